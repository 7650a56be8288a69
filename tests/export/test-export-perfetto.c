/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto exporter on synthetic items, read back with json-glib: the document parses, fence
 * boxes become complete events with their args, overlapping boxes never share a track, every
 * flow arrow has both ends inside the slices it binds, odd strings survive escaping, and the
 * file appears only when complete.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "fencescope-tp-enums.h"
#include "fsa/export-writers.h"

#include "export-test-util.h"

static struct fsa_perfetto_writer *writer;
static JsonParser *parser;

static void
setup(void)
{
	fst_make_dir();
}

static void
teardown(void)
{
	if (parser)
		g_object_unref(parser);
	fsa_perfetto_writer_destroy(writer);
	fst_remove_dir();
}

TestSuite(export_perfetto, .init = setup, .fini = teardown);

static const struct fsa_model_sink *
start(void)
{
	struct fsa_export_info info = {.trace_path = "traces/x", .fencescope_version = "9.9.9"};
	char *error = NULL;

	cr_assert_eq(
	    fsa_perfetto_writer_create(fst_path("out.json"), false, &info, &writer, &error), FSA_OK,
	    "%s", error ? error : "");
	return fsa_perfetto_writer_borrow_sink(writer);
}

/* Finishes, parses, and returns the traceEvents array (owned by the parser). */
static JsonArray *
finish_and_parse(void)
{
	char *error = NULL;
	GError *gerror = NULL;
	JsonObject *root;

	cr_assert_eq(fsa_perfetto_writer_finish(writer, &error), FSA_OK, "%s", error ? error : "");
	parser = json_parser_new();
	cr_assert(json_parser_load_from_file(parser, fst_path("out.json"), &gerror), "%s",
		  gerror ? gerror->message : "");
	root = json_node_get_object(json_parser_get_root(parser));
	cr_assert_not_null(root);
	cr_assert_str_eq(json_object_get_string_member(root, "displayTimeUnit"), "ns");
	return json_object_get_array_member(root, "traceEvents");
}

static JsonObject *
other_data(void)
{
	return json_object_get_object_member(json_node_get_object(json_parser_get_root(parser)),
					     "otherData");
}

static const char *
str(JsonObject *o, const char *key)
{
	return json_object_has_member(o, key) ? json_object_get_string_member(o, key) : "";
}

/* The events with phase PH (and name NAME when not NULL). */
static GPtrArray *
events(JsonArray *all, const char *ph, const char *name)
{
	GPtrArray *found = g_ptr_array_new();

	for (guint i = 0; i < json_array_get_length(all); i++) {
		JsonObject *e = json_array_get_object_element(all, i);

		if (strcmp(str(e, "ph"), ph) == 0 && (!name || strcmp(str(e, "name"), name) == 0))
			g_ptr_array_add(found, e);
	}
	return found;
}

/* Microseconds with three decimals → ns, as a viewer reads them (rounded to the nearest). */
static int64_t
ns(JsonObject *e, const char *key)
{
	return (int64_t) (json_object_get_double_member(e, key) * 1000.0 + 0.5);
}

static const char *
thread_name(JsonArray *all, int64_t pid, int64_t tid)
{
	GPtrArray *meta = events(all, "M", "thread_name");
	const char *name = NULL;

	for (guint i = 0; i < meta->len; i++) {
		JsonObject *m = meta->pdata[i];

		if (json_object_get_int_member(m, "pid") == pid &&
		    json_object_get_int_member(m, "tid") == tid)
			name = json_object_get_string_member(
			    json_object_get_object_member(m, "args"), "name");
	}
	g_ptr_array_unref(meta);
	return name;
}

Test(export_perfetto, fence_boxes_are_complete_events_with_their_args)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op wait = fst_op(7, FSA_OP_WAIT, 1000, 5500);
	struct fsa_queue_info queue = {.hwqueue_handle = 0x100,
				       .process_id = 42,
				       .adapter_id = 0,
				       .engine_id = 1,
				       .engine_type = FSTP_ENGINE_TYPE_COMPUTE,
				       .is_user_mode = true};
	struct fsa_process_info process = {.process_id = 42, .name = "game"};
	JsonArray *all;
	GPtrArray *x;
	JsonObject *e, *args;

	wait.observed_ns = 3000;
	cr_assert_eq(sink->op(sink->data, &wait), FSA_OK);
	cr_assert_eq(fsa_perfetto_writer_add_queue(writer, &queue), FSA_OK);
	cr_assert_eq(fsa_perfetto_writer_add_process(writer, &process), FSA_OK);
	all = finish_and_parse();

	x = events(all, "X", "wait f0x12=5");
	cr_assert_eq(x->len, 1);
	e = x->pdata[0];
	cr_assert_str_eq(str(e, "cat"), "wait");
	cr_assert_eq(ns(e, "ts"), 1000);
	cr_assert_eq(ns(e, "dur"), 4500);
	cr_assert_eq(json_object_get_int_member(e, "pid"), 1, "adapter 0 is pid 1");
	args = json_object_get_object_member(e, "args");
	cr_assert_eq(json_object_get_int_member(args, "id"), 7);
	cr_assert_str_eq(str(args, "state"), "observed");
	cr_assert_str_eq(str(args, "hwqueue_handle"), "0x100");
	cr_assert_eq(json_object_get_int_member(args, "fence_value"), 5);
	cr_assert_eq(json_object_get_int_member(args, "duration_ns"), 4500);
	cr_assert_eq(json_object_get_int_member(args, "observed_ns"), 3000);
	cr_assert(!json_object_get_boolean_member(args, "is_inferred"));
	g_ptr_array_unref(x);

	/* The stalled-on-GPU phase nests in the box, on the same track. */
	x = events(all, "X", "stalled on GPU");
	cr_assert_eq(x->len, 1);
	cr_assert_eq(ns(x->pdata[0], "ts"), 3000);
	cr_assert_eq(ns(x->pdata[0], "dur"), 2500);
	cr_assert_eq(json_object_get_int_member(x->pdata[0], "tid"),
		     json_object_get_int_member(e, "tid"));
	g_ptr_array_unref(x);

	const char *name = thread_name(all, 1, json_object_get_int_member(e, "tid"));

	cr_assert_not_null(name);
	cr_assert(strstr(name, "hwqueue 0x100") && strstr(name, "COMPUTE") && strstr(name, "game"),
		  "%s", name);
}

Test(export_perfetto, inferred_and_unfinished_operations_are_told_apart)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op inferred = fst_op(1, FSA_OP_SIGNAL, 100, FSA_TIME_NONE);
	struct fsa_op never = fst_op(2, FSA_OP_WAIT, 200, FSA_TIME_NONE);
	struct fsa_op last = fst_op(3, FSA_OP_SIGNAL, 900, 1000);
	struct fsa_loss overrun = {.kind = FSA_LOSS_LOG_OVERRUN,
				   .count = 37,
				   .begin_ns = 100,
				   .end_ns = 400,
				   .hwqueue_handle = 0x100,
				   .log_type = FSTP_LOG_TYPE_SIGNALS,
				   .inferred_ops = 1};
	JsonArray *all;
	GPtrArray *x;
	JsonObject *args;

	inferred.state = FSA_OP_INFERRED;
	inferred.inferred_begin_ns = 100;
	inferred.inferred_end_ns = 400;
	never.state = FSA_OP_NEVER_COMPLETED;
	cr_assert_eq(sink->op(sink->data, &inferred), FSA_OK);
	cr_assert_eq(sink->loss(sink->data, &overrun), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &last), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &never), FSA_OK);
	all = finish_and_parse();

	x = events(all, "X", "inferred signal f0x12=5");
	cr_assert_eq(x->len, 1);
	cr_assert_str_eq(str(x->pdata[0], "cat"), "signal.inferred");
	cr_assert_eq(ns(x->pdata[0], "ts"), 100);
	cr_assert_eq(ns(x->pdata[0], "dur"), 300);
	args = json_object_get_object_member(x->pdata[0], "args");
	cr_assert(json_object_get_boolean_member(args, "is_inferred"));
	g_ptr_array_unref(x);

	x = events(all, "X", "never unblocked wait f0x12=5");
	cr_assert_eq(x->len, 1);
	cr_assert_str_eq(str(x->pdata[0], "cat"), "wait.never_completed");
	cr_assert_eq(ns(x->pdata[0], "ts") + ns(x->pdata[0], "dur"), 1000,
		     "drawn to the latest time seen");
	g_ptr_array_unref(x);

	x = events(all, "X", "log overrun: 37 signal entries lost");
	cr_assert_eq(x->len, 1);
	cr_assert_str_eq(str(x->pdata[0], "cat"), "loss");
	args = json_object_get_object_member(x->pdata[0], "args");
	cr_assert_eq(json_object_get_int_member(args, "inferred_ops"), 1);
	g_ptr_array_unref(x);
}

/* Slices on one tid never overlap partly: each pair is disjoint or nested. */
static void
assert_slices_nest(JsonArray *all)
{
	GPtrArray *x = events(all, "X", NULL);

	for (guint i = 0; i < x->len; i++)
		for (guint j = i + 1; j < x->len; j++) {
			JsonObject *a = x->pdata[i], *b = x->pdata[j];
			int64_t a0 = ns(a, "ts"), a1 = a0 + ns(a, "dur");
			int64_t b0 = ns(b, "ts"), b1 = b0 + ns(b, "dur");

			if (json_object_get_int_member(a, "pid") !=
				json_object_get_int_member(b, "pid") ||
			    json_object_get_int_member(a, "tid") !=
				json_object_get_int_member(b, "tid"))
				continue;
			cr_assert(a1 <= b0 || b1 <= a0 || (a0 <= b0 && b1 <= a1) ||
				      (b0 <= a0 && a1 <= b1),
				  "'%s' [%ld, %ld] and '%s' [%ld, %ld] overlap on one track",
				  str(a, "name"), (long) a0, (long) a1, str(b, "name"), (long) b0,
				  (long) b1);
		}
	g_ptr_array_unref(x);
}

Test(export_perfetto, overlapping_boxes_get_lanes_of_their_own)
{
	const struct fsa_model_sink *sink = start();
	/* Recorded early, run late: each box overlaps the next; the fourth fits after the first. */
	uint64_t spans[][2] = {{0, 500}, {100, 600}, {200, 700}, {500, 900}, {50, 80}};
	JsonArray *all;
	GPtrArray *x;
	GHashTable *tids = g_hash_table_new(NULL, NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(spans); i++) {
		struct fsa_op op = fst_op(i + 1, FSA_OP_WAIT, spans[i][0], spans[i][1]);

		cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	}
	all = finish_and_parse();
	assert_slices_nest(all);
	x = events(all, "X", NULL);
	cr_assert_eq(x->len, G_N_ELEMENTS(spans));
	for (guint i = 0; i < x->len; i++)
		g_hash_table_add(tids,
				 GINT_TO_POINTER(json_object_get_int_member(x->pdata[i], "tid")));
	cr_assert_eq(g_hash_table_size(tids), 3, "three lanes hold five boxes");
	g_hash_table_unref(tids);
	g_ptr_array_unref(x);
}

/* The X slice of operation ID. */
static JsonObject *
slice_of(JsonArray *all, int64_t id)
{
	GPtrArray *x = events(all, "X", NULL);
	JsonObject *found = NULL;

	for (guint i = 0; i < x->len; i++) {
		JsonObject *args = json_object_get_object_member(x->pdata[i], "args");

		if (strcmp(str(x->pdata[i], "cat"), "wait.stalled") != 0 &&
		    json_object_has_member(args, "id") &&
		    json_object_get_int_member(args, "id") == id)
			found = x->pdata[i];
	}
	g_ptr_array_unref(x);
	return found;
}

/* A flow end lies on the slice's track, at or after its start and strictly before its end. */
static void
assert_binds(JsonObject *flow, JsonObject *slice)
{
	int64_t t = ns(flow, "ts"), s0 = ns(slice, "ts"), s1 = s0 + ns(slice, "dur");

	cr_assert_eq(json_object_get_int_member(flow, "pid"),
		     json_object_get_int_member(slice, "pid"));
	cr_assert_eq(json_object_get_int_member(flow, "tid"),
		     json_object_get_int_member(slice, "tid"));
	cr_assert(t >= s0 && t < s1, "flow at %ld outside [%ld, %ld)", (long) t, (long) s0,
		  (long) s1);
}

Test(export_perfetto, dependency_edges_become_paired_flow_arrows)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op signal = fst_op(1, FSA_OP_SIGNAL, 100, 200);
	struct fsa_op wait_a = fst_op(2, FSA_OP_WAIT, 50, 260);
	struct fsa_op wait_b = fst_op(4, FSA_OP_WAIT, 60, 300);
	struct fsa_op instant = fst_op(3, FSA_OP_SIGNAL, 280, 280); /* a zero-length box */
	struct fsa_edge e1, e2, e3;
	JsonArray *all;
	GPtrArray *s, *f;

	wait_a.hwqueue_handle = 0x200;
	wait_b.hwqueue_handle = 0x300;
	e1 = fst_edge(&signal, &wait_a);
	e2 = fst_edge(&instant, &wait_b);
	e3 = fst_edge(&signal, &wait_b);
	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &wait_a), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e1), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &instant), FSA_OK);
	/* An edge may come before its wait: it waits for it. */
	cr_assert_eq(sink->edge(sink->data, &e2), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e3), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &wait_b), FSA_OK);
	all = finish_and_parse();
	assert_slices_nest(all);

	s = events(all, "s", NULL);
	f = events(all, "f", NULL);
	cr_assert_eq(s->len, 3);
	cr_assert_eq(f->len, 3);
	for (guint i = 0; i < s->len; i++) {
		JsonObject *start_ev = s->pdata[i], *end_ev = NULL;
		int64_t id = json_object_get_int_member(start_ev, "id");

		for (guint j = 0; j < f->len; j++)
			if (json_object_get_int_member(f->pdata[j], "id") == id) {
				cr_assert_null(end_ev, "flow id %ld ends twice", (long) id);
				end_ev = f->pdata[j];
			}
		cr_assert_not_null(end_ev, "flow id %ld has no end", (long) id);
		cr_assert_str_eq(str(end_ev, "bp"), "e");
		cr_assert_str_eq(str(end_ev, "cat"), str(start_ev, "cat"));
		cr_assert_str_eq(str(end_ev, "name"), str(start_ev, "name"));
	}
	/* Flows are written in edge order once both ends are known: e1, then e2 and e3. */
	assert_binds(s->pdata[0], slice_of(all, 1));
	assert_binds(f->pdata[0], slice_of(all, 2));
	assert_binds(s->pdata[1], slice_of(all, 3));
	assert_binds(f->pdata[1], slice_of(all, 4));
	assert_binds(s->pdata[2], slice_of(all, 1));
	assert_binds(f->pdata[2], slice_of(all, 4));
	cr_assert_eq(fsa_perfetto_writer_unbound_edge_count(writer), 0);
	cr_assert_eq(json_object_get_int_member(other_data(), "dependency_arrows"), 3);
	g_ptr_array_unref(s);
	g_ptr_array_unref(f);
}

Test(export_perfetto, edge_to_a_forgotten_operation_is_counted_not_drawn)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op signal = fst_op(1, FSA_OP_SIGNAL, 100, 200);
	struct fsa_op wait = fst_op(2, FSA_OP_WAIT, 50, 260);
	struct fsa_edge edge;
	JsonArray *all;
	GPtrArray *s;

	/* 70 000 operations later, the first has left the cache of recent operations. */
	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	for (uint64_t id = 3; id < 70003; id++) {
		struct fsa_op op = fst_op(id, FSA_OP_SIGNAL, 300 + id, 301 + id);

		cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	}
	wait.id = 70003;
	edge = fst_edge(&signal, &wait);
	cr_assert_eq(sink->op(sink->data, &wait), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);
	all = finish_and_parse();
	s = events(all, "s", NULL);
	cr_assert_eq(s->len, 0);
	cr_assert_eq(fsa_perfetto_writer_unbound_edge_count(writer), 1);
	cr_assert_eq(json_object_get_int_member(other_data(), "dependency_edges_without_arrow"), 1);
	g_ptr_array_unref(s);
}

/* Issue 10 §3: mapped times can put a wait's end before the end of the signal that released
 * it; the arrow still never ends before it starts, and an edge whose wait box ends before its
 * signal box begins has none (counted). */
Test(export_perfetto, flow_arrows_never_end_before_they_start)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op signal = fst_op(1, FSA_OP_SIGNAL, 100, 300);
	struct fsa_op early_wait = fst_op(2, FSA_OP_WAIT, 50, 200); /* ends inside the signal */
	struct fsa_op same_end = fst_op(3, FSA_OP_WAIT, 60, 300);   /* ends with it */
	struct fsa_op gone_wait = fst_op(4, FSA_OP_WAIT, 10, 90);   /* ends before it begins */
	struct fsa_edge e1, e2, e3;
	JsonArray *all;
	GPtrArray *s, *f;

	early_wait.hwqueue_handle = 0x200;
	same_end.hwqueue_handle = 0x300;
	gone_wait.hwqueue_handle = 0x400;
	e1 = fst_edge(&signal, &early_wait);
	e2 = fst_edge(&signal, &same_end);
	e3 = fst_edge(&signal, &gone_wait);
	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &early_wait), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &same_end), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &gone_wait), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e1), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e2), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e3), FSA_OK);
	all = finish_and_parse();
	s = events(all, "s", NULL);
	f = events(all, "f", NULL);
	cr_assert_eq(s->len, 2);
	cr_assert_eq(f->len, 2);
	for (guint i = 0; i < s->len; i++) {
		cr_assert_eq(json_object_get_int_member(s->pdata[i], "id"),
			     json_object_get_int_member(f->pdata[i], "id"));
		cr_assert_gt(ns(f->pdata[i], "ts"), ns(s->pdata[i], "ts"), "arrow %u ends first",
			     i);
	}
	assert_binds(s->pdata[0], slice_of(all, 1));
	assert_binds(f->pdata[0], slice_of(all, 2));
	assert_binds(s->pdata[1], slice_of(all, 1));
	assert_binds(f->pdata[1], slice_of(all, 3));
	cr_assert_eq(fsa_perfetto_writer_unbound_edge_count(writer), 1);
	cr_assert_eq(json_object_get_int_member(other_data(), "dependency_edges_without_arrow"), 1);
	g_ptr_array_unref(s);
	g_ptr_array_unref(f);
}

Test(export_perfetto, odd_strings_are_escaped)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op op = fst_op(1, FSA_OP_WAIT, 100, 200);
	struct fsa_process_info process = {.process_id = 42,
					   .name = "a\"b\\c\nd\te\x01f\xff g\xc3\xa9"};
	JsonArray *all;
	const char *name;

	op.source = FSA_SRC_CPU;
	op.hwqueue_handle = 0;
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	cr_assert_eq(fsa_perfetto_writer_add_process(writer, &process), FSA_OK);
	all = finish_and_parse();
	name = thread_name(all, json_object_get_int_member(slice_of(all, 1), "pid"),
			   json_object_get_int_member(slice_of(all, 1), "tid"));
	cr_assert_not_null(name);
	cr_assert_str_eq(name, "pid 42 a\"b\\c\nd\te\x01f\xef\xbf\xbd g\xc3\xa9",
			 "invalid UTF-8 becomes U+FFFD, valid UTF-8 stays");
}

Test(export_perfetto, every_event_has_a_valid_time_and_track)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_packet packet = {.adapter_id = 1,
				    .engine_id = 0,
				    .packet_id = 9,
				    .start_ns = 10,
				    .end_ns = FSA_TIME_NONE,
				    .queued_ns = FSA_TIME_NONE,
				    .status = FSA_PACKET_NEVER_ENDED};
	struct fsa_marker ring = {.kind = FSA_MARK_DOORBELL_RING,
				  .begin_ns = 20,
				  .end_ns = 20,
				  .adapter_id = 1,
				  .engine_id = UINT32_MAX,
				  .hwqueue_handle = 0x100,
				  .latency_ns = FSA_TIME_NONE};
	struct fsa_marker tdr = {.kind = FSA_MARK_TDR,
				 .begin_ns = 30,
				 .end_ns = FSA_TIME_NONE,
				 .adapter_id = 1,
				 .engine_id = 0,
				 .latency_ns = FSA_TIME_NONE};
	struct fsa_anomaly anomaly = {.kind = FSA_ANOM_ZERO_TIMESTAMP, .ts_ns = 0};
	struct fsa_loss tracer = {.kind = FSA_LOSS_TRACER_EVENTS,
				  .count = 5,
				  .begin_ns = FSA_TIME_NONE,
				  .end_ns = FSA_TIME_NONE,
				  .adapter_id = UINT32_MAX,
				  .cpu_id = 1};
	struct fsa_op op = fst_op(1, FSA_OP_SIGNAL, 40, 90);
	JsonArray *all;
	GPtrArray *x;

	op.adapter_id = 1;
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	cr_assert_eq(sink->packet(sink->data, &packet), FSA_OK);
	cr_assert_eq(sink->marker(sink->data, &ring), FSA_OK);
	cr_assert_eq(sink->marker(sink->data, &tdr), FSA_OK);
	cr_assert_eq(sink->anomaly(sink->data, &anomaly), FSA_OK);
	cr_assert_eq(sink->loss(sink->data, &tracer), FSA_OK);
	all = finish_and_parse();
	assert_slices_nest(all);

	for (guint i = 0; i < json_array_get_length(all); i++) {
		JsonObject *e = json_array_get_object_element(all, i);
		const char *ph = str(e, "ph");

		cr_assert(json_object_has_member(e, "pid"));
		cr_assert(json_object_has_member(e, "ts"));
		cr_assert(ns(e, "ts") >= 0);
		/* Metadata, and counters: a counter track is its process and name. */
		if (strcmp(ph, "M") == 0 || strcmp(ph, "C") == 0)
			continue;
		cr_assert(thread_name(all, json_object_get_int_member(e, "pid"),
				      json_object_get_int_member(e, "tid")),
			  "'%s' is on a track without a name", str(e, "name"));
	}
	x = events(all, "i", "doorbell_ring");
	cr_assert_eq(x->len, 1);
	g_ptr_array_unref(x);
	x = events(all, "X", "tdr");
	cr_assert_eq(x->len, 1);
	cr_assert_eq(ns(x->pdata[0], "ts") + ns(x->pdata[0], "dur"), 90, "open until the end");
	g_ptr_array_unref(x);
	x = events(all, "X", "packet 9 (never_ended)");
	cr_assert_eq(x->len, 1);
	g_ptr_array_unref(x);
	x = events(all, "i", "tracer discarded 5 events");
	cr_assert_eq(x->len, 1);
	g_ptr_array_unref(x);
}

Test(export_perfetto, times_are_relative_to_the_time_base_and_args_stay_exact)
{
	const struct fsa_model_sink *sink = start();
	/* Epoch-based trace times need 61 bits: a double of µs cannot hold their ns. */
	uint64_t base = UINT64_C(1795306066000000000);
	struct fsa_op op = fst_op(1, FSA_OP_SIGNAL, base + 865228219, base + 865229219);
	JsonArray *all;
	JsonObject *e, *args;

	fsa_perfetto_writer_set_time_base(writer, base);
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	all = finish_and_parse();
	e = slice_of(all, 1);
	cr_assert_eq(ns(e, "ts"), 865228219);
	cr_assert_eq(ns(e, "dur"), 1000);
	args = json_object_get_object_member(e, "args");
	cr_assert_str_eq(str(args, "queued_ns"), "1795306066865228219", "too big for a JS number");
	cr_assert_str_eq(str(other_data(), "time_base_ns"), "1795306066000000000");
}

Test(export_perfetto, file_appears_only_when_finished_and_is_never_replaced)
{
	struct fsa_perfetto_writer *other = NULL;
	char *error = NULL;

	start();
	cr_assert_eq(fst_dir_file_count(), 1, "only the temporary file");
	cr_assert_eq(access(fst_path("out.json"), F_OK), -1);
	finish_and_parse();
	cr_assert_eq(fst_dir_file_count(), 1);
	cr_assert_eq(fsa_perfetto_writer_create(fst_path("out.json"), false, NULL, &other, &error),
		     FSA_ERR_IO);
	cr_assert(error && strstr(error, "exists"), "%s", error ? error : "");
	free(error);
	cr_assert_eq(fsa_perfetto_writer_create(fst_path("out.json"), true, NULL, &other, &error),
		     FSA_OK);
	fsa_perfetto_writer_destroy(other);
	cr_assert_eq(fst_dir_file_count(), 1, "a cancelled export leaves the old file alone");
}

/* Format 1.5: a cross-adapter edge is an arrow from one adapter's process to the other's
 * (XAD-07), and a VA mapping and a propagation are interval markers with their args. */
Test(export_perfetto, xad_07_cross_adapter_arrow_and_format_15_markers)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op signal = fst_op(1, FSA_OP_SIGNAL, 100, 200);
	struct fsa_op wait = fst_op(2, FSA_OP_WAIT, 50, 400);
	struct fsa_marker mapping = {.kind = FSA_MARK_VA_MAPPING,
				     .begin_ns = 10,
				     .end_ns = 500,
				     .adapter_id = 1,
				     .engine_id = UINT32_MAX,
				     .process_id = 42,
				     .other_handle = 0xa1,
				     .value = 0x10000,
				     .value2 = 0x20000,
				     .code = 1,
				     .code2 = 65536,
				     .latency_ns = FSA_TIME_NONE};
	struct fsa_marker propagation = {.kind = FSA_MARK_FENCE_PROPAGATION,
					 .begin_ns = 220,
					 .end_ns = 230,
					 .adapter_id = 0,
					 .engine_id = UINT32_MAX,
					 .process_id = UINT32_MAX,
					 .other_handle = 0x12,
					 .value = 5,
					 .value2 = 1,
					 .code = 1,
					 .latency_ns = FSA_TIME_NONE};
	struct fsa_edge edge;
	JsonArray *all;
	GPtrArray *s, *f, *x;
	JsonObject *args;

	wait.hwqueue_handle = 0x200;
	wait.adapter_id = 1;
	edge = fst_edge(&signal, &wait);
	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	cr_assert_eq(sink->marker(sink->data, &propagation), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &wait), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);
	cr_assert_eq(sink->marker(sink->data, &mapping), FSA_OK);
	all = finish_and_parse();
	assert_slices_nest(all);

	s = events(all, "s", NULL);
	f = events(all, "f", NULL);
	cr_assert_eq(s->len, 1);
	cr_assert_eq(f->len, 1);
	cr_assert_eq(json_object_get_int_member(s->pdata[0], "pid"), 1, "adapter 0");
	cr_assert_eq(json_object_get_int_member(f->pdata[0], "pid"), 2, "adapter 1");
	assert_binds(s->pdata[0], slice_of(all, 1));
	assert_binds(f->pdata[0], slice_of(all, 2));
	x = events(all, "X", "va_mapping");
	cr_assert_eq(x->len, 1);
	cr_assert_eq(ns(x->pdata[0], "dur"), 490);
	args = json_object_get_object_member(x->pdata[0], "args");
	cr_assert_eq(json_object_get_int_member(args, "value2"), 0x20000);
	cr_assert_eq(json_object_get_int_member(args, "code2"), 65536);
	g_ptr_array_unref(x);
	x = events(all, "X", "fence_propagation");
	cr_assert_eq(x->len, 1);
	cr_assert_eq(json_object_get_int_member(x->pdata[0], "pid"), 1,
		     "on the adapter that signalled");
	args = json_object_get_object_member(x->pdata[0], "args");
	cr_assert_eq(json_object_get_int_member(args, "value2"), 1, "the signal's op id");
	cr_assert_eq(json_object_get_int_member(args, "code"), 1, "the adapter notified");
	g_ptr_array_unref(x);
	g_ptr_array_unref(s);
	g_ptr_array_unref(f);
}

/* The "ph":"C" events named NAME: "ts=value" in file order (written in time order). */
static char *
counter_points(JsonArray *all, const char *name)
{
	GPtrArray *found = events(all, "C", name);
	GString *out = g_string_new(NULL);

	cr_assert_gt(found->len, 0, "no counter %s", name);
	for (guint i = 0; i < found->len; i++) {
		JsonObject *e = found->pdata[i];

		cr_assert_eq(json_object_get_int_member(e, "pid"), 1, "adapter 0's process");
		g_string_append_printf(
		    out, "%s%" G_GINT64_FORMAT "=%" G_GINT64_FORMAT, out->len ? "," : "",
		    ns(e, "ts"),
		    json_object_get_int_member(json_object_get_object_member(e, "args"), "value"));
	}
	g_ptr_array_unref(found);
	return g_string_free(out, FALSE);
}

/* Issue 16 §5, docs/export.md "Counter tracks", the JSON's "ph":"C": three operations submitted
 * at 100, 200, 300 ns and completed at 1000, 1100, 1200 make the queue 1, 2, 3 deep, then 2, 1,
 * 0; the signal of fence 0x12 to 5 sets its CurrentValue at its end; overlapping packets are
 * busy once. */
Test(export_perfetto, counters_give_queue_depth_busy_time_and_fence_value)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op ops[] = {fst_op(1, FSA_OP_WAIT, 100, 1000), fst_op(2, FSA_OP_WAIT, 200, 1100),
			       fst_op(3, FSA_OP_SIGNAL, 300, 1200)};
	struct fsa_packet packets[3];
	const uint64_t spans[3][2] = {{100, 400}, {300, 500}, {600, 700}};
	JsonArray *all;
	g_autofree char *depth = NULL, *busy = NULL, *fence = NULL;

	fsa_perfetto_writer_set_time_base(writer, 0);
	for (size_t i = 0; i < 3; i++) {
		packets[i] = (struct fsa_packet){.packet_id = i + 1,
						 .engine_id = 1,
						 .hwqueue_handle = 0x100,
						 .status = FSA_PACKET_COMPLETED,
						 .queued_ns = spans[i][0],
						 .start_ns = spans[i][0],
						 .end_ns = spans[i][1]};
		cr_assert_eq(sink->op(sink->data, &ops[i]), FSA_OK);
		cr_assert_eq(sink->packet(sink->data, &packets[i]), FSA_OK);
	}
	all = finish_and_parse();
	depth = counter_points(all, "hwqueue 0x100 depth");
	busy = counter_points(all, "engine 1 busy");
	fence = counter_points(all, "fence 0x12 CurrentValue");
	cr_assert_str_eq(depth, "100=1,200=2,300=3,1000=2,1100=1,1200=0");
	cr_assert_str_eq(busy, "100=100,500=0,600=100,700=0");
	cr_assert_str_eq(fence, "1200=5");
}

Test(export_perfetto, no_counters_writes_no_counter_events)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op op = fst_op(1, FSA_OP_SIGNAL, 100, 1000);
	GPtrArray *found;

	cr_assert_eq(fsa_perfetto_writer_set_counters(writer, false), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	found = events(finish_and_parse(), "C", NULL);
	cr_assert_eq(found->len, 0);
	g_ptr_array_unref(found);
}
