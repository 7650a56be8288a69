/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto protobuf exporter on synthetic items, read back with Debian's protoc (an
 * independent protobuf reader) against perfetto_subset.proto: boxes are BEGIN/END pairs on their
 * queue's lanes, overlapping boxes get lanes of the same name, flow arrows never end before they
 * start (issue 10 §3), an edge that cannot have one is counted, and the export's own instant
 * carries the counts and `partial`; counter tracks give a queue's depth, an engine's busy time
 * and a fence's CurrentValue. check-perfetto-proto.py does the same on real traces.
 */
#define _GNU_SOURCE
#include <inttypes.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "fsa/export-writers.h"

#include "export-test-util.h"

static struct fsa_perfetto_proto_writer *writer;

static void
setup(void)
{
	fst_make_dir();
}

static void
teardown(void)
{
	fsa_perfetto_proto_writer_destroy(writer);
	fst_remove_dir();
}

TestSuite(export_perfetto_proto, .init = setup, .fini = teardown);

static const struct fsa_model_sink *
start(void)
{
	struct fsa_export_info info = {.trace_path = "traces/x", .fencescope_version = "9.9.9"};
	char *error = NULL;

	cr_assert_eq(fsa_perfetto_proto_writer_create(fst_path("out.pftrace"), false, &info,
						      &writer, &error),
		     FSA_OK, "%s", error ? error : "");
	return fsa_perfetto_proto_writer_borrow_sink(writer);
}

/* One decoded TracePacket: its text and the fields the tests read. */
struct packet {
	char *text;
	int64_t ts; /* -1 without a timestamp */
	int64_t track_uuid, type;
	bool has_flow, has_end_flow;
};

static int64_t
field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? g_ascii_strtoll(p + strlen(key), NULL, 10) : -1;
}

/* Finishes, decodes with protoc, and splits the text into packets. */
static GPtrArray *
finish_and_decode(void)
{
	char *error = NULL, *out = NULL, *err = NULL, *input = NULL;
	gsize input_len;
	int status;
	GPtrArray *packets = g_ptr_array_new();
	const char *argv[] = {FST_PROTOC, "--proto_path=" FST_PROTO_DIR,
			      "--decode=perfetto.protos.Trace", "perfetto_subset.proto", NULL};
	g_autofree char *cmd = NULL;
	gchar **parts;

	cr_assert_eq(fsa_perfetto_proto_writer_finish(writer, &error), FSA_OK, "%s",
		     error ? error : "");
	cr_assert(g_file_get_contents(fst_path("out.pftrace"), &input, &input_len, NULL));
	g_free(input);
	cmd = g_strdup_printf("%s %s %s %s < %s", argv[0], argv[1], argv[2], argv[3],
			      fst_path("out.pftrace"));
	{
		const char *sh[] = {"/bin/sh", "-c", cmd, NULL};

		cr_assert(g_spawn_sync(NULL, (char **) sh, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
				       &err, &status, NULL));
	}
	cr_assert(g_spawn_check_wait_status(status, NULL), "protoc: %s", err);
	g_free(err);
	parts = g_strsplit(out, "\npacket {", -1);
	for (gchar **p = parts; *p; p++) {
		struct packet *k = g_new0(struct packet, 1);

		k->text = g_strdup(*p);
		k->ts = field(k->text, "timestamp: ");
		k->track_uuid = field(k->text, "track_uuid: ");
		k->type = strstr(k->text, "TYPE_SLICE_BEGIN") ? 1
			  : strstr(k->text, "TYPE_SLICE_END") ? 2
			  : strstr(k->text, "TYPE_INSTANT")   ? 3
			  : strstr(k->text, "TYPE_COUNTER")   ? 4
							      : 0;
		k->has_flow = strstr(k->text, "\n    flow_ids: ") != NULL;
		k->has_end_flow = strstr(k->text, "terminating_flow_ids: ") != NULL;
		g_ptr_array_add(packets, k);
	}
	g_strfreev(parts);
	g_free(out);
	return packets;
}

static void
packets_free(GPtrArray *packets)
{
	for (guint i = 0; i < packets->len; i++) {
		struct packet *k = packets->pdata[i];

		g_free(k->text);
		g_free(k);
	}
	g_ptr_array_unref(packets);
}

/* The uint_value of the debug annotation named NAME in the packet P (names are interned: the
 * iid is looked up in the InternedData of all packets). */
static int64_t
annotation(GPtrArray *packets, const struct packet *p, const char *name)
{
	g_autofree char *needle = g_strdup_printf("name: \"%s\"", name);
	int64_t iid = -1;

	for (guint i = 0; i < packets->len && iid < 0; i++) {
		const char *text = ((struct packet *) packets->pdata[i])->text;
		const char *at = strstr(text, needle);

		/* debug_annotation_names { iid: N name: "…" }: the iid just before the name. */
		if (at && at > text) {
			const char *start = g_strrstr_len(text, at - text, "iid: ");

			if (start && strstr(text, "debug_annotation_names"))
				iid = g_ascii_strtoll(start + 5, NULL, 10);
		}
	}
	cr_assert_geq(iid, 0, "no annotation name %s", name);
	{
		g_autofree char *key = g_strdup_printf("name_iid: %" G_GINT64_FORMAT "\n", iid);
		const char *at = strstr(p->text, key);

		if (!at)
			return -1;
		at = strchr(at, '\n') + 1;
		while (*at == ' ')
			at++;
		if (g_str_has_prefix(at, "uint_value: "))
			return g_ascii_strtoll(at + 12, NULL, 10);
		return -2; /* a string or another type */
	}
}

static const struct packet *
slice_begin_of(GPtrArray *packets, uint64_t op_id)
{
	for (guint i = 0; i < packets->len; i++) {
		const struct packet *k = packets->pdata[i];

		if (k->type == 1 && strstr(k->text, "uint_value") &&
		    annotation(packets, k, "op_id") == (int64_t) op_id)
			return k;
	}
	cr_assert_fail("op %" PRIu64 " has no slice", op_id);
	return NULL;
}

Test(export_perfetto_proto, boxes_are_begin_end_pairs_on_lanes_of_their_queue)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op a = fst_op(1, FSA_OP_WAIT, 100, 500);
	struct fsa_op b = fst_op(2, FSA_OP_SIGNAL, 200, 300); /* inside a's span: another lane */
	struct fsa_op c = fst_op(3, FSA_OP_SIGNAL, 600, 602); /* after both: lasts 6 ns */
	GPtrArray *packets;
	int lanes = 0, named = 0, begins = 0, ends = 0;
	const struct packet *pa, *pb, *pc;

	fsa_perfetto_proto_writer_set_time_base(writer, 0);
	cr_assert_eq(sink->op(sink->data, &a), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &b), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &c), FSA_OK);
	packets = finish_and_decode();
	for (guint i = 0; i < packets->len; i++) {
		const struct packet *k = packets->pdata[i];

		if (strstr(k->text, "track_descriptor") && strstr(k->text, "parent_uuid") &&
		    !strstr(k->text, "counter {")) {
			lanes++;
			named += strstr(k->text, "name: \"hwqueue 0x100\"") != NULL;
		}
		begins += k->type == 1;
		ends += k->type == 2;
	}
	/* Queue 0x100 (no model: named by its handle) on two lanes of one name, + the export's. */
	cr_assert_eq(named, 2);
	cr_assert_eq(lanes, 3);
	cr_assert_eq(fsa_perfetto_proto_writer_track_count(writer), 2);
	cr_assert_eq(fsa_perfetto_proto_writer_lane_count(writer), 3);
	cr_assert_eq(begins, 3);
	cr_assert_eq(ends, 3);
	pa = slice_begin_of(packets, 1);
	pb = slice_begin_of(packets, 2);
	pc = slice_begin_of(packets, 3);
	cr_assert_eq(pa->ts, 100);
	cr_assert_eq(pb->ts, 200);
	cr_assert_neq(pa->track_uuid, pb->track_uuid, "overlapping boxes share a lane");
	cr_assert_eq(pc->track_uuid, pa->track_uuid,
		     "a box after the others reuses the first lane");
	cr_assert_eq(annotation(packets, pa, "value"), 5);
	/* Each END on the lane of its BEGIN, at the box's end (6 ns at least). */
	for (guint i = 0; i < packets->len; i++) {
		const struct packet *k = packets->pdata[i];

		if (k->type == 2 && k->track_uuid == pc->track_uuid)
			cr_assert(k->ts == 500 || k->ts == 606, "END at %" G_GINT64_FORMAT, k->ts);
		if (k->type == 2 && k->track_uuid == pb->track_uuid)
			cr_assert_eq(k->ts, 300);
	}
	packets_free(packets);
}

/* Issue 10 §3: where mapped times put a wait's end before its signal's, the arrow still runs
 * forward; a wait box that ends before its signal box begins has no arrow and is counted. */
Test(export_perfetto_proto, flow_arrows_never_end_before_they_start)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op signal = fst_op(1, FSA_OP_SIGNAL, 100, 300);
	struct fsa_op early_wait = fst_op(2, FSA_OP_WAIT, 50, 200);
	struct fsa_op same_end = fst_op(3, FSA_OP_WAIT, 60, 300);
	struct fsa_op normal = fst_op(4, FSA_OP_WAIT, 70, 400);
	struct fsa_op gone_wait = fst_op(5, FSA_OP_WAIT, 10, 90);
	struct fsa_edge e1, e2, e3, e4;
	GPtrArray *packets;
	int64_t starts[8], ends[8];
	int n_start = 0, n_end = 0;

	fsa_perfetto_proto_writer_set_time_base(writer, 0);
	early_wait.hwqueue_handle = 0x200;
	same_end.hwqueue_handle = 0x300;
	normal.hwqueue_handle = 0x500;
	gone_wait.hwqueue_handle = 0x400;
	e1 = fst_edge(&signal, &early_wait);
	e2 = fst_edge(&signal, &same_end);
	e3 = fst_edge(&signal, &normal);
	e4 = fst_edge(&signal, &gone_wait);
	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &early_wait), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &same_end), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &normal), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &gone_wait), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e1), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e2), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e3), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &e4), FSA_OK);
	packets = finish_and_decode();
	for (guint i = 0; i < packets->len; i++) {
		const struct packet *k = packets->pdata[i];

		if (k->has_flow)
			starts[n_start++] = k->ts;
		if (k->has_end_flow)
			ends[n_end++] = k->ts;
	}
	cr_assert_eq(n_start, 3);
	cr_assert_eq(n_end, 3);
	/* Written in edge order: start, end per arrow. Every start inside the signal box
	 * [100, 300], every end inside its wait box, after the start. */
	for (int i = 0; i < 3; i++) {
		cr_assert_gt(ends[i], starts[i],
			     "arrow %d: %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT, i, starts[i],
			     ends[i]);
		cr_assert(starts[i] > 100 && starts[i] < 300);
	}
	cr_assert_eq(ends[0], 197); /* 3 ns inside early_wait's end */
	cr_assert_eq(starts[0], 196);
	cr_assert_eq(ends[2], 397);
	cr_assert_eq(starts[2], 297);
	cr_assert_eq(fsa_perfetto_proto_writer_unbound_edge_count(writer), 1);
	packets_free(packets);
}

Test(export_perfetto_proto, export_instant_has_the_counts_and_partial)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op op = fst_op(1, FSA_OP_WAIT, 2000000000, 2000000100);
	GPtrArray *packets;
	const struct packet *info = NULL;

	fsa_perfetto_proto_writer_set_time_base(writer, 1000000000);
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	cr_assert_eq(fsa_perfetto_proto_writer_set_partial(writer, "cut short"), FSA_OK);
	packets = finish_and_decode();
	for (guint i = 0; i < packets->len; i++)
		if (strstr(((struct packet *) packets->pdata[i])->text, "TYPE_INSTANT"))
			info = packets->pdata[i];
	cr_assert_not_null(info);
	cr_assert_eq(annotation(packets, info, "time_base_ns"), 1000000000);
	cr_assert_eq(annotation(packets, info, "dependency_arrows"), 0);
	cr_assert_eq(annotation(packets, info, "partial"), -2);
	cr_assert(strstr(info->text, "string_value: \"cut short\""), "%s", info->text);
	cr_assert(strstr(info->text, "string_value: \"traces/x\""), "%s", info->text);
	/* Times relative to the time base. */
	cr_assert_eq(slice_begin_of(packets, 1)->ts, 1000000000);
	packets_free(packets);
}

Test(export_perfetto_proto, file_appears_only_when_finished)
{
	char *error = NULL;

	start();
	cr_assert_eq(fst_dir_file_count(), 1, "only the temporary file");
	cr_assert(access(fst_path("out.pftrace"), F_OK) != 0);
	cr_assert_eq(fsa_perfetto_proto_writer_finish(writer, &error), FSA_OK, "%s",
		     error ? error : "");
	cr_assert(access(fst_path("out.pftrace"), F_OK) == 0);
	cr_assert_eq(fst_dir_file_count(), 1);
}

/* The counter track named NAME: its points "ts=value" in time order, comma-separated. */
static char *
counter_points(GPtrArray *packets, const char *name)
{
	g_autofree char *needle = g_strdup_printf("name: \"%s\"", name);
	int64_t uuid = -1;
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < packets->len && uuid < 0; i++) {
		const struct packet *k = packets->pdata[i];

		if (strstr(k->text, needle) && strstr(k->text, "counter {"))
			uuid = field(k->text, "uuid: ");
	}
	cr_assert_geq(uuid, 0, "no counter track %s", name);
	/* Written in time order: no sort needed. */
	for (guint i = 0; i < packets->len; i++) {
		const struct packet *k = packets->pdata[i];

		if (k->type == 4 && k->track_uuid == uuid)
			g_string_append_printf(out, "%s%" G_GINT64_FORMAT "=%" G_GINT64_FORMAT,
					       out->len ? "," : "", k->ts,
					       field(k->text, "counter_value: "));
	}
	return g_string_free(out, FALSE);
}

static struct fsa_packet
packet_on_engine_1(uint64_t id, uint64_t start_ns, uint64_t end_ns)
{
	return (struct fsa_packet){.packet_id = id,
				   .adapter_id = 0,
				   .engine_id = 1,
				   .hwqueue_handle = 0x100,
				   .status = FSA_PACKET_COMPLETED,
				   .queued_ns = start_ns,
				   .start_ns = start_ns,
				   .end_ns = end_ns};
}

/* Issue 16 §5, docs/export.md "Counter tracks": known answers. Three operations submitted at
 * 100, 200, 300 and completed at 1000, 1100, 1200 make the queue 1, 2, 3 deep, then 2, 1, 0; the
 * signal of fence 0x12 to 5 sets its CurrentValue at its end; overlapping packets are busy once. */
Test(export_perfetto_proto, counters_give_queue_depth_busy_time_and_fence_value)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op ops[] = {fst_op(1, FSA_OP_WAIT, 100, 1000), fst_op(2, FSA_OP_WAIT, 200, 1100),
			       fst_op(3, FSA_OP_SIGNAL, 300, 1200)};
	struct fsa_packet packets_in[] = {packet_on_engine_1(1, 100, 400),
					  packet_on_engine_1(2, 300, 500),
					  packet_on_engine_1(3, 600, 700)};
	struct fsa_fence_value progress = {.fence_global_handle = 0x12, .value = 9, .ts_ns = 1500};
	GPtrArray *packets;
	g_autofree char *depth = NULL, *busy = NULL, *fence = NULL;

	fsa_perfetto_proto_writer_set_time_base(writer, 0);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(sink->op(sink->data, &ops[i]), FSA_OK);
		cr_assert_eq(sink->packet(sink->data, &packets_in[i]), FSA_OK);
	}
	cr_assert_not_null(sink->fence_value, "counters take the progress fences' values");
	cr_assert_eq(sink->fence_value(sink->data, &progress), FSA_OK);
	packets = finish_and_decode();
	depth = counter_points(packets, "hwqueue 0x100 depth");
	busy = counter_points(packets, "engine 1 busy");
	fence = counter_points(packets, "fence 0x12 CurrentValue");
	cr_assert_str_eq(depth, "100=1,200=2,300=3,1000=2,1100=1,1200=0");
	cr_assert_str_eq(busy, "100=100,500=0,600=100,700=0");
	cr_assert_str_eq(fence, "1200=5,1500=9");
	packets_free(packets);
}

/* With a resolution, a busy track gives the per cent of each interval that was busy, and a
 * depth track keeps each interval's lowest, highest and last points. */
Test(export_perfetto_proto, counter_resolution_bounds_points_and_keeps_extremes)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op ops[] = {fst_op(1, FSA_OP_WAIT, 100, 1000), fst_op(2, FSA_OP_WAIT, 200, 1100),
			       fst_op(3, FSA_OP_SIGNAL, 300, 1200)};
	struct fsa_packet packets_in[] = {packet_on_engine_1(1, 100, 400),
					  packet_on_engine_1(2, 300, 500),
					  packet_on_engine_1(3, 1600, 2100)};
	GPtrArray *packets;
	g_autofree char *depth = NULL, *busy = NULL;

	fsa_perfetto_proto_writer_set_time_base(writer, 0);
	fsa_perfetto_proto_writer_set_counter_resolution(writer, 1000);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(sink->op(sink->data, &ops[i]), FSA_OK);
		cr_assert_eq(sink->packet(sink->data, &packets_in[i]), FSA_OK);
	}
	packets = finish_and_decode();
	depth = counter_points(packets, "hwqueue 0x100 depth");
	busy = counter_points(packets, "engine 1 busy");
	/* [0, 1000): lowest 1 at 100, highest and last 3 at 300; [1000, 2000): 2, 1, 0. */
	cr_assert_str_eq(depth, "100=1,300=3,1000=2,1200=0");
	/* [100, 500) is 40 % of [0, 1000), [1600, 2000) 40 % of the next (equal: no point), [2000,
	 * 2100) 10 % of the next; then idle. */
	cr_assert_str_eq(busy, "0=40,2000=10,3000=0");
	packets_free(packets);
}

Test(export_perfetto_proto, no_counters_leaves_out_counter_tracks)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op op = fst_op(1, FSA_OP_SIGNAL, 100, 1000);
	GPtrArray *packets;

	cr_assert_eq(fsa_perfetto_proto_writer_set_counters(writer, false), FSA_OK);
	cr_assert_null(sink->fence_value);
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	packets = finish_and_decode();
	for (guint i = 0; i < packets->len; i++) {
		const struct packet *k = packets->pdata[i];

		cr_assert_neq(k->type, 4);
		cr_assert_null(strstr(k->text, "counter {"));
	}
	packets_free(packets);
}
