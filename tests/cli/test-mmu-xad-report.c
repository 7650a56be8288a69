/* SPDX-License-Identifier: MIT */
/*
 * The report's schema 2.3 sections (`page_faults`, `memory`, `cross_adapter`) and the analyzer's
 * cross-adapter edges against the emulator's own events (suite e2e). page-fault, mapping-churn,
 * cross-adapter, cross-adapter-2a and cross-adapter-2b are recorded with `fencescope record` in
 * sim and in realtime mode; the raw events are read back (trace-reader.h: libbabeltrace2, not the
 * analyzer) and give the ground truth:
 *
 *  - page faults (MMU-14, TDR-06): each fencescope_hw:page_fault (time, engine, process, context,
 *    VA, access, packet), the fencescope_os:page_fault that answers it (scope), the TDR of reason
 *    PAGE_FAULT that follows (its resets and result) and the packets that ended FAULTED or
 *    ABORTED from the fault to its tdr_end;
 *  - VA spaces (MMU-02, 03, 06, 07): per process and adapter, the reserves, frees, maps, unmaps,
 *    mapped bytes at most and at the end, page tables created and destroyed, and the entries the
 *    KMD's page_table_updates wrote;
 *  - cross-adapter fences (XAD-07, 08, 10): the fence_propagate and NotificationOnly
 *    update_current_value events per fence and adapter pair, the opens on another adapter, and
 *    the CurrentValue writes (fencescope_hw:fence_value_write, update_current_value without
 *    NotificationOnly) with the GPU waits' releases (gpu_wait_begin/end), which the analyzer never
 *    reads: every edge from a signal on one adapter to a wait on another names the signal of the
 *    write that released the wait (its value is the first written at or above the wait's: the
 *    scenarios' fences only grow), each adapter's GPU times mapped through its own clock fit, and
 *    each box lands on its ground truth; the report's signal_to_release statistic is the one the
 *    ground truth gives for the waits already waiting when their signal ran.
 *
 * `fencescope report --format json` must give exactly those numbers (times within the mapping's
 * tolerance in sim, within the tracer's latency in realtime).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "fencescope-tp-enums.h"
#include "fsa/ingest.h"
#include "fsa/model.h"
#include "known-truth.h"
#include "record-sandbox.h"
#include "trace-reader.h"

#define MAX_FAULTS 16
#define MAX_SPACES 16
#define MAX_PAIRS  64

static uint64_t
field(const struct fst_event *event, const char *name)
{
	const struct fst_field *f = fst_event_find_field(event, name);

	cr_assert_not_null(f, "%s has no field %s", event->name, name);
	return f->u;
}

static bool
is(const struct fst_event *event, const char *name)
{
	return strcmp(event->name, name) == 0;
}

/* --- Recording and reading ------------------------------------------------------------------- */

struct recording {
	char label[96];
	bool is_realtime;
	struct fsct_outcome outcome;
	char *path;
	struct fst_trace *trace;
	JsonNode *report;
	/* The analyzer's own rebuild, in this process: boxes and edges. */
	struct fsa_model *model;
	struct fsct_rebuilt rebuilt;
	struct fsa_edge *edges;
	size_t edge_count, edge_capacity;
};

static fsa_status
keep_edge(void *data, const struct fsa_edge *edge)
{
	struct recording *rec = data;

	if (rec->edge_count == rec->edge_capacity) {
		rec->edge_capacity = rec->edge_capacity ? 2 * rec->edge_capacity : 256;
		rec->edges = realloc(rec->edges, rec->edge_capacity * sizeof(*rec->edges));
		cr_assert_not_null(rec->edges);
	}
	rec->edges[rec->edge_count++] = *edge;
	return FSA_OK;
}

static fsa_status
keep_op(void *data, const struct fsa_op *op)
{
	return fsct_keep_op(&((struct recording *) data)->rebuilt, op);
}

static JsonNode *
report_json(const char *path)
{
	char *command, *text = NULL;
	size_t size = 0;
	FILE *output;
	GError *error = NULL;
	JsonNode *root;

	cr_assert_geq(asprintf(&command,
			       "%s report --format json --sections page_faults,memory,cross_adapter"
			       ",tdr %s",
			       FS_FENCESCOPE, path),
		      0);
	output = popen(command, "r");
	cr_assert_not_null(output);
	cr_assert_geq(getdelim(&text, &size, '\0', output), 1);
	cr_assert_eq(pclose(output), 0, "%s failed", command);
	root = json_from_string(text, &error);
	cr_assert_not_null(root, "%s", error ? error->message : "");
	free(text);
	free(command);
	return root;
}

static void
record(struct recording *rec, const char *scenario, bool is_realtime, const char *scale)
{
	const char *args[] = {
	    "record",  "-o",  "trace",  "--clock", is_realtime ? "realtime" : "sim",
	    "--scale", scale, scenario, NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 240};
	struct fsa_model_sink sink = {.data = rec, .op = keep_op, .edge = keep_edge};
	char *error = NULL;

	memset(rec, 0, sizeof(*rec));
	snprintf(rec->label, sizeof(rec->label), "%s (%s)", scenario,
		 is_realtime ? "realtime" : "sim");
	rec->is_realtime = is_realtime;
	cr_assert_eq(fsct_record_in_sandbox(&options, &rec->outcome), 0, "%s",
		     rec->outcome.setup_error);
	cr_assert_eq(rec->outcome.exit_status, 0, "record %s: %s", rec->label, rec->outcome.err);
	rec->path = fsct_dup_last_line(rec->outcome.out);
	cr_assert_eq(fst_trace_read(rec->path, &rec->trace, &error), 0, "%s", error);
	cr_assert_eq(rec->trace->discarded_events, 0, "%s: the tracer discarded events",
		     rec->label);
	rec->report = report_json(rec->path);
	rec->model = fsa_model_create(&sink);
	cr_assert_not_null(rec->model);
	cr_assert_eq(fsa_ingest_into_model(rec->path, rec->model, NULL, NULL, NULL, &error), FSA_OK,
		     "%s", error);
}

static void
recording_clear(struct recording *rec)
{
	json_node_unref(rec->report);
	fsa_model_destroy(rec->model);
	fsct_rebuilt_clear(&rec->rebuilt);
	free(rec->edges);
	fst_trace_destroy(rec->trace);
	free(rec->path);
	fsct_outcome_clear(&rec->outcome);
}

static JsonArray *
table(JsonNode *root, const char *section, const char *name)
{
	JsonObject *sections = json_node_get_object(root);

	cr_assert(json_object_has_member(sections, section), "no section %s", section);
	return json_object_get_array_member(json_object_get_object_member(sections, section), name);
}

static gint64
member(JsonObject *row, const char *name)
{
	cr_assert(json_object_has_member(row, name), "no %s", name);
	cr_assert(!json_object_get_null_member(row, name), "%s is null", name);
	if (json_node_get_value_type(json_object_get_member(row, name)) == G_TYPE_STRING)
		return (gint64) strtoull(json_object_get_string_member(row, name), NULL, 10);
	return json_object_get_int_member(row, name);
}

static uint64_t
handle(JsonObject *row, const char *name)
{
	cr_assert(json_object_has_member(row, name), "no %s", name);
	if (json_object_get_null_member(row, name))
		return 0;
	return strtoull(json_object_get_string_member(row, name), NULL, 16);
}

static const char *
string(JsonObject *row, const char *name)
{
	cr_assert(json_object_has_member(row, name), "no %s", name);
	return json_object_get_null_member(row, name) ? NULL
						      : json_object_get_string_member(row, name);
}

/* A bool or null: -1 for null. */
static int
tristate(JsonObject *row, const char *name)
{
	cr_assert(json_object_has_member(row, name), "no %s", name);
	if (json_object_get_null_member(row, name))
		return -1;
	return json_object_get_boolean_member(row, name);
}

/* --- Page faults (MMU-14, TDR-06) ------------------------------------------------------------ */

struct truth_fault {
	int64_t ts_ns, handled_ns, tdr_begin_ns, tdr_end_ns;
	uint64_t adapter, engine, process, context, va, access, packet, scope;
	bool is_handled, has_tdr, has_end;
	int64_t engine_reset, adapter_reset;
	uint64_t result, faulted, aborted;
};

static void
check_page_faults(const char *scenario, bool is_realtime)
{
	static const char *const access_names[] = {"read", "write"};
	static const char *const scope_names[] = {"context", "device"};
	static const char *const result_names[] = {"engine_reset", "adapter_reset", "failed"};
	struct truth_fault faults[MAX_FAULTS];
	size_t count = 0;
	struct recording rec;
	JsonArray *rows;

	record(&rec, scenario, is_realtime, "2");
	memset(faults, 0, sizeof(faults));
	for (size_t i = 0; i < rec.trace->event_count; i++) {
		const struct fst_event *ev = &rec.trace->events[i];

		if (is(ev, "fencescope_hw:page_fault")) {
			struct truth_fault *f = &faults[count++];

			cr_assert_leq(count, MAX_FAULTS);
			f->ts_ns = ev->ts_ns;
			f->adapter = field(ev, "adapter_id");
			f->engine = field(ev, "engine_id");
			f->process = field(ev, "process_id");
			f->context = field(ev, "context_handle");
			f->va = field(ev, "gpu_va");
			f->access = field(ev, "access");
			f->packet = field(ev, "packet_id");
			f->engine_reset = f->adapter_reset = -1;
			continue;
		}
		for (size_t k = 0; k < count; k++) {
			struct truth_fault *f = &faults[k];

			if (is(ev, "fencescope_os:page_fault") && !f->is_handled &&
			    field(ev, "engine_id") == f->engine) {
				f->is_handled = true;
				f->handled_ns = ev->ts_ns;
				f->scope = field(ev, "scope");
				break;
			}
			if (is(ev, "fencescope_os:tdr_begin") && !f->has_tdr &&
			    field(ev, "reason") == FSTP_LOSS_REASON_PAGE_FAULT &&
			    field(ev, "engine_id") == f->engine) {
				f->has_tdr = true;
				f->tdr_begin_ns = ev->ts_ns;
				break;
			}
			if (f->has_tdr && !f->has_end) {
				if (is(ev, "fencescope_kmd:engine_reset"))
					f->engine_reset = (int64_t) field(ev, "is_success");
				else if (is(ev, "fencescope_kmd:adapter_reset"))
					f->adapter_reset = (int64_t) field(ev, "is_success");
				else if (is(ev, "fencescope_os:tdr_end") &&
					 field(ev, "engine_id") == f->engine) {
					f->has_end = true;
					f->tdr_end_ns = ev->ts_ns;
					f->result = field(ev, "result");
				}
			}
		}
	}
	/* The work lost: packets that ended FAULTED or ABORTED from the fault to its tdr_end. */
	for (size_t i = 0; i < rec.trace->event_count; i++) {
		const struct fst_event *ev = &rec.trace->events[i];

		if (!is(ev, "fencescope_hw:packet_end"))
			continue;
		for (size_t k = 0; k < count; k++) {
			struct truth_fault *f = &faults[k];
			uint64_t status = field(ev, "status");

			if (!f->has_end || ev->ts_ns < f->ts_ns || ev->ts_ns > f->tdr_end_ns ||
			    field(ev, "adapter_id") != f->adapter ||
			    (field(ev, "engine_id") != f->engine && f->adapter_reset < 0))
				continue;
			f->faulted += status == FSTP_PACKET_STATUS_FAULTED;
			f->aborted += status == FSTP_PACKET_STATUS_ABORTED;
		}
	}
	cr_assert_gt(count, 0, "%s: the scenario faults", rec.label);
	rows = table(rec.report, "page_faults", "faults");
	cr_assert_eq(json_array_get_length(rows), count, "%s: faults", rec.label);
	for (size_t k = 0; k < count; k++) {
		const struct truth_fault *f = &faults[k];
		JsonObject *row = json_array_get_object_element(rows, (guint) k);

		cr_expect_eq(member(row, "ts_ns"), f->ts_ns, "%s #%zu", rec.label, k);
		cr_expect_eq(member(row, "engine_id"), (gint64) f->engine, "%s #%zu", rec.label, k);
		cr_expect_eq(member(row, "process_id"), (gint64) f->process, "%s #%zu", rec.label,
			     k);
		cr_expect_eq(handle(row, "context_handle"), f->context, "%s #%zu", rec.label, k);
		cr_expect_eq(handle(row, "gpu_va"), f->va, "%s #%zu", rec.label, k);
		cr_expect_str_eq(string(row, "access"), access_names[f->access & 1], "%s #%zu",
				 rec.label, k);
		cr_expect_eq(member(row, "packet_id"), (gint64) f->packet, "%s #%zu", rec.label, k);
		cr_expect(f->is_handled, "%s #%zu: the OS handles every fault", rec.label, k);
		cr_expect_eq(member(row, "handled_ns"), f->handled_ns, "%s #%zu", rec.label, k);
		cr_expect_eq(member(row, "handling_ns"), f->handled_ns - f->ts_ns, "%s #%zu",
			     rec.label, k);
		cr_expect_str_eq(string(row, "scope"), scope_names[f->scope & 1], "%s #%zu",
				 rec.label, k);
		cr_expect(f->has_tdr && f->has_end, "%s #%zu: recovered", rec.label, k);
		cr_expect_eq(member(row, "tdr_begin_ns"), f->tdr_begin_ns, "%s #%zu", rec.label, k);
		cr_expect_eq(member(row, "tdr_end_ns"), f->tdr_end_ns, "%s #%zu", rec.label, k);
		cr_expect_str_eq(string(row, "recovery"), result_names[f->result % 3], "%s #%zu",
				 rec.label, k);
		cr_expect_eq(tristate(row, "engine_reset"), f->engine_reset, "%s #%zu", rec.label,
			     k);
		cr_expect_eq(tristate(row, "adapter_reset"), f->adapter_reset, "%s #%zu", rec.label,
			     k);
		cr_expect_eq(member(row, "packets_faulted"), (gint64) f->faulted,
			     "%s #%zu: %" G_GINT64_FORMAT " faulted, the emulator %" PRIu64,
			     rec.label, k, member(row, "packets_faulted"), f->faulted);
		cr_expect_eq(member(row, "packets_aborted"), (gint64) f->aborted,
			     "%s #%zu: %" G_GINT64_FORMAT " aborted, the emulator %" PRIu64,
			     rec.label, k, member(row, "packets_aborted"), f->aborted);
		cr_expect_geq(f->faulted, 1, "%s #%zu: the faulting packet", rec.label, k);
	}
	/* memory.va_spaces counts each process's handled faults. */
	rows = table(rec.report, "memory", "va_spaces");
	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);
		gint64 handled = 0;

		for (size_t k = 0; k < count; k++)
			handled += faults[k].is_handled &&
				   (gint64) faults[k].process == member(row, "process_id") &&
				   (gint64) faults[k].adapter == member(row, "adapter_id");
		cr_expect_eq(member(row, "page_faults"), handled, "%s: process %" G_GINT64_FORMAT,
			     rec.label, member(row, "process_id"));
	}
	recording_clear(&rec);
}

Test(mmu_xad_report, mmu_14_tdr_06_page_faults_match_the_emulator_in_sim, .timeout = 300)
{
	check_page_faults("page-fault", false);
}

Test(mmu_xad_report, mmu_14_tdr_06_page_faults_match_the_emulator_in_realtime, .timeout = 300)
{
	check_page_faults("page-fault", true);
}

/* --- VA spaces (MMU-02, 03, 06, 07, 12) --------------------------------------------------------
 */

struct truth_space {
	uint64_t process, adapter;
	uint64_t reserves, frees, maps, unmaps, mapped, mapped_peak;
	uint64_t tables_created, tables_destroyed, updates, written;
};

static struct truth_space *
space_of(struct truth_space *spaces, size_t *count, uint64_t process, uint64_t adapter)
{
	for (size_t i = 0; i < *count; i++)
		if (spaces[i].process == process && spaces[i].adapter == adapter)
			return &spaces[i];
	cr_assert_lt(*count, MAX_SPACES);
	spaces[*count] = (struct truth_space){.process = process, .adapter = adapter};
	return &spaces[(*count)++];
}

static void
check_memory(bool is_realtime)
{
	struct truth_space spaces[MAX_SPACES];
	size_t count = 0;
	struct recording rec;
	JsonArray *rows;

	record(&rec, "mapping-churn", is_realtime, "6");
	for (size_t i = 0; i < rec.trace->event_count; i++) {
		const struct fst_event *ev = &rec.trace->events[i];
		struct truth_space *s;

		if (strncmp(ev->name, "fencescope_os:va_", 17) != 0 &&
		    strncmp(ev->name, "fencescope_os:page_table_", 25) != 0 &&
		    !is(ev, "fencescope_kmd:page_table_update"))
			continue;
		s = space_of(spaces, &count, field(ev, "process_id"), field(ev, "adapter_id"));
		if (is(ev, "fencescope_os:va_reserve"))
			s->reserves++;
		else if (is(ev, "fencescope_os:va_free"))
			s->frees++;
		else if (is(ev, "fencescope_os:va_map")) {
			s->maps++;
			s->mapped += field(ev, "size_bytes");
			if (s->mapped > s->mapped_peak)
				s->mapped_peak = s->mapped;
		} else if (is(ev, "fencescope_os:va_unmap")) {
			s->unmaps++;
			s->mapped -= field(ev, "size_bytes");
		} else if (is(ev, "fencescope_os:page_table_create"))
			s->tables_created++;
		else if (is(ev, "fencescope_os:page_table_destroy"))
			s->tables_destroyed++;
		else if (is(ev, "fencescope_kmd:page_table_update")) {
			s->updates++;
			if (field(ev, "is_valid"))
				s->written += field(ev, "page_count");
		}
	}
	rows = table(rec.report, "memory", "va_spaces");
	cr_assert_eq(json_array_get_length(rows), count, "%s: VA spaces", rec.label);
	cr_assert_geq(count, 3, "%s: three processes", rec.label);
	for (size_t k = 0; k < count; k++) {
		const struct truth_space *s = NULL;
		JsonObject *row = json_array_get_object_element(rows, (guint) k);

		for (size_t j = 0; j < count; j++)
			if ((gint64) spaces[j].process == member(row, "process_id") &&
			    (gint64) spaces[j].adapter == member(row, "adapter_id"))
				s = &spaces[j];
		cr_assert_not_null(s, "%s: a VA space the trace does not have", rec.label);
		cr_expect_eq(member(row, "reserves"), (gint64) s->reserves, "%s", rec.label);
		cr_expect_eq(member(row, "frees"), (gint64) s->frees, "%s", rec.label);
		cr_expect_eq(member(row, "maps"), (gint64) s->maps, "%s", rec.label);
		cr_expect_eq(member(row, "unmaps"), (gint64) s->unmaps, "%s", rec.label);
		cr_expect_eq(member(row, "mapped_peak_bytes"), (gint64) s->mapped_peak, "%s",
			     rec.label);
		cr_expect_eq(member(row, "mapped_end_bytes"), (gint64) s->mapped, "%s", rec.label);
		cr_expect_eq(member(row, "maps_4k") + member(row, "maps_64k"), (gint64) s->maps,
			     "%s", rec.label);
		cr_expect_gt(member(row, "maps_64k"), 0, "%s: 64 KB pages", rec.label);
		cr_expect_gt(member(row, "maps_4k"), 0, "%s: 4 KB pages", rec.label);
		cr_expect_eq(member(row, "page_tables_created"), (gint64) s->tables_created, "%s",
			     rec.label);
		cr_expect_eq(member(row, "page_tables_destroyed"), (gint64) s->tables_destroyed,
			     "%s", rec.label);
		cr_expect_eq(member(row, "page_table_updates"), (gint64) s->updates, "%s",
			     rec.label);
		cr_expect_eq(member(row, "entries_written"), (gint64) s->written, "%s", rec.label);
		cr_expect_gt(s->maps, 0, "%s", rec.label);
	}
	recording_clear(&rec);
}

Test(mmu_xad_report, mmu_06_07_mapping_churn_memory_matches_the_emulator_in_sim, .timeout = 300)
{
	check_memory(false);
}

Test(mmu_xad_report, mmu_06_07_mapping_churn_memory_matches_the_emulator_in_realtime,
     .timeout = 300)
{
	check_memory(true);
}

/* --- Cross-adapter fences (XAD-07, 08, 10) ------------------------------------------------------
 */

struct truth_pair {
	uint64_t fence, from, to;
	uint64_t propagations, notifications;
};

static struct truth_pair *
pair_of(struct truth_pair *pairs, size_t *count, uint64_t fence, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < *count; i++)
		if (pairs[i].fence == fence && pairs[i].from == from && pairs[i].to == to)
			return &pairs[i];
	cr_assert_lt(*count, MAX_PAIRS);
	pairs[*count] = (struct truth_pair){.fence = fence, .from = from, .to = to};
	return &pairs[(*count)++];
}

/* The ground-truth write of `op` (a signal box): the GPU's fence_value_write on its queue at its
 * value, or, for the OS's and the CPU's signals, the update_current_value that wrote it. */
static const struct fst_event *
write_of(const struct recording *rec, const struct fsa_op *op, int64_t window_ns)
{
	const struct fst_event *best = NULL;

	for (size_t i = 0; i < rec->trace->event_count; i++) {
		const struct fst_event *ev = &rec->trace->events[i];
		bool is_gpu = is(ev, "fencescope_hw:fence_value_write");

		if (!is_gpu && !(is(ev, "fencescope_kmd:update_current_value") &&
				 field(ev, "notification_only") == 0))
			continue;
		if (field(ev, "fence_global_handle") != op->fence_global_handle ||
		    field(ev, "fence_value") != op->fence_value)
			continue;
		if (is_gpu != (op->source == FSA_SRC_USER_MODE_QUEUE))
			continue;
		if (is_gpu && field(ev, "hwqueue_handle") != op->hwqueue_handle)
			continue;
		if (llabs((long long) (ev->ts_ns - (int64_t) op->end_ns)) > window_ns)
			continue;
		if (!best || llabs((long long) (ev->ts_ns - (int64_t) op->end_ns)) <
				 llabs((long long) (best->ts_ns - (int64_t) op->end_ns)))
			best = ev;
	}
	return best;
}

/* The GPU's release of a user-mode wait box (gpu_wait_end on its queue at its value). */
static const struct fst_event *
release_of(const struct recording *rec, const struct fsa_op *op, int64_t window_ns)
{
	const struct fst_event *best = NULL;

	for (size_t i = 0; i < rec->trace->event_count; i++) {
		const struct fst_event *ev = &rec->trace->events[i];

		if (!is(ev, "fencescope_hw:gpu_wait_end") ||
		    field(ev, "fence_global_handle") != op->fence_global_handle ||
		    field(ev, "fence_value") != op->fence_value ||
		    field(ev, "hwqueue_handle") != op->hwqueue_handle ||
		    llabs((long long) (ev->ts_ns - (int64_t) op->end_ns)) > window_ns)
			continue;
		if (!best || llabs((long long) (ev->ts_ns - (int64_t) op->end_ns)) <
				 llabs((long long) (best->ts_ns - (int64_t) op->end_ns)))
			best = ev;
	}
	return best;
}

/*
 * The first value written at or above `value` to `fence`: the scenarios' fences only grow, so it
 * is the smallest such value written. The writes are the GPU's and the driver's
 * (update_current_value), and on an adapter without native fences, where the OS applies a
 * kernel-mode queue's or the CPU's signal to the monitored fence without a DDI, the OS's own
 * event of that signal (km_fence_signal_executed, cpu_signal: the rebuilt box of that source).
 */
static bool
first_write_at_or_above(const struct recording *rec, uint64_t fence, uint64_t value,
			uint64_t *written)
{
	bool is_found = false;

	for (size_t i = 0; i < rec->trace->event_count; i++) {
		const struct fst_event *ev = &rec->trace->events[i];
		uint64_t v;

		if (!is(ev, "fencescope_hw:fence_value_write") &&
		    !(is(ev, "fencescope_kmd:update_current_value") &&
		      field(ev, "notification_only") == 0))
			continue;
		v = field(ev, "fence_value");
		if (field(ev, "fence_global_handle") == fence && v >= value &&
		    (!is_found || v < *written)) {
			*written = v;
			is_found = true;
		}
	}
	for (size_t i = 0; i < rec->rebuilt.op_count; i++) {
		const struct fsa_op *op = &rec->rebuilt.ops[i];

		if (op->kind != FSA_OP_SIGNAL || op->source == FSA_SRC_USER_MODE_QUEUE ||
		    op->fence_global_handle != fence || op->fence_value < value ||
		    op->state != FSA_OP_OBSERVED)
			continue;
		if (!is_found || op->fence_value < *written) {
			*written = op->fence_value;
			is_found = true;
		}
	}
	return is_found;
}

static void
check_cross_adapter(const char *scenario, bool is_realtime)
{
	struct truth_pair pairs[MAX_PAIRS];
	size_t pair_count = 0, opens = 0, cross_edges = 0, samples = 0;
	uint64_t truth_min = UINT64_MAX, truth_max = 0, truth_total = 0;
	int64_t tolerance = 0, window;
	struct recording rec;
	JsonArray *rows;
	gint64 report_opens = 0;

	record(&rec, scenario, is_realtime, "12");
	for (size_t i = 0; i < rec.trace->event_count; i++) {
		const struct fst_event *ev = &rec.trace->events[i];

		if (is(ev, "fencescope_os:fence_propagate"))
			pair_of(pairs, &pair_count, field(ev, "fence_global_handle"),
				field(ev, "from_adapter_id"), field(ev, "to_adapter_id"))
			    ->propagations++;
		else if (is(ev, "fencescope_os:fence_cross_adapter_open"))
			opens++;
	}
	/* A NotificationOnly update answers the latest propagation of that fence and value to its
	 * adapter (XAD-07, XAD-08). */
	for (size_t i = 0; i < rec.trace->event_count; i++) {
		const struct fst_event *ev = &rec.trace->events[i];

		if (!is(ev, "fencescope_kmd:update_current_value") ||
		    field(ev, "notification_only") == 0)
			continue;
		for (size_t p = 0; p < pair_count; p++)
			if (pairs[p].fence == field(ev, "fence_global_handle") &&
			    pairs[p].to == field(ev, "adapter_id"))
				pairs[p].notifications++;
	}
	cr_assert_gt(pair_count, 0, "%s: the scenario propagates", rec.label);
	cr_assert_gt(opens, 0, "%s: the scenario opens across adapters", rec.label);

	/* The report: per fence and adapter pair, three metric rows each. */
	rows = table(rec.report, "cross_adapter", "propagation");
	for (size_t p = 0; p < pair_count; p++) {
		bool is_found = false;

		for (guint i = 0; i < json_array_get_length(rows); i++) {
			JsonObject *row = json_array_get_object_element(rows, i);

			if (handle(row, "fence_global_handle") != pairs[p].fence ||
			    member(row, "from_adapter_id") != (gint64) pairs[p].from ||
			    member(row, "to_adapter_id") != (gint64) pairs[p].to)
				continue;
			is_found = true;
			cr_expect_eq(member(row, "propagations"), (gint64) pairs[p].propagations,
				     "%s: fence 0x%" PRIx64, rec.label, pairs[p].fence);
			cr_expect_eq(member(row, "notified"), (gint64) pairs[p].notifications,
				     "%s: fence 0x%" PRIx64, rec.label, pairs[p].fence);
			/* Every propagation found the signal that caused it (XAD-06, XAD-07). */
			if (strcmp(string(row, "metric"), "signal_to_propagate") == 0)
				cr_expect_eq(member(row, "count"), (gint64) pairs[p].propagations,
					     "%s: fence 0x%" PRIx64 " %" PRIu64 " -> %" PRIu64
					     ": propagations with their signal",
					     rec.label, pairs[p].fence, pairs[p].from, pairs[p].to);
		}
		cr_expect(is_found, "%s: no row for fence 0x%" PRIx64, rec.label, pairs[p].fence);
	}
	rows = table(rec.report, "cross_adapter", "fences");
	for (guint i = 0; i < json_array_get_length(rows); i++)
		report_opens += member(json_array_get_object_element(rows, i), "opens");
	cr_expect_eq(report_opens, (gint64) opens, "%s: opens", rec.label);

	/* Every cross-adapter edge names the signal of the write that released its wait, and both
	 * boxes land on their ground truth, each through its own adapter's clock fit. */
	for (size_t e = 0; e < rec.edge_count; e++) {
		const struct fsa_edge *edge = &rec.edges[e];
		const struct fsa_op *signal =
		    fsct_rebuilt_find_op(&rec.rebuilt, edge->signal_op_id);
		const struct fsa_op *wait = fsct_rebuilt_find_op(&rec.rebuilt, edge->wait_op_id);
		const struct fst_event *write, *release;
		uint64_t written = 0;
		int64_t signal_tol, wait_tol, truth_signal_ns, truth_release_ns, reached;

		if (edge->signal_adapter_id == UINT32_MAX || edge->wait_adapter_id == UINT32_MAX ||
		    edge->signal_adapter_id == edge->wait_adapter_id)
			continue;
		cross_edges++;
		cr_assert_not_null(signal);
		cr_assert_not_null(wait);
		cr_assert(first_write_at_or_above(&rec, wait->fence_global_handle,
						  wait->fence_value, &written),
			  "%s: a wait released without a write", rec.label);
		cr_expect_eq(signal->fence_value, written,
			     "%s: the edge of wait %" PRIu64 " names the signal of %" PRIu64
			     ", the write was %" PRIu64,
			     rec.label, wait->id, signal->fence_value, written);
		signal_tol = signal->source == FSA_SRC_USER_MODE_QUEUE
				 ? fsct_tolerance_of(rec.model, signal->adapter_id)
				 : 0;
		wait_tol = wait->source == FSA_SRC_USER_MODE_QUEUE
			       ? fsct_tolerance_of(rec.model, wait->adapter_id)
			       : 0;
		if (signal_tol > tolerance)
			tolerance = signal_tol;
		if (wait_tol > tolerance)
			tolerance = wait_tol;
		window = is_realtime ? FSCT_RT_PREEMPT_NS : 1000;
		write = write_of(&rec, signal, window + signal_tol);
		/* Only a user-mode queue's signal must have the GPU's write; the OS's and the CPU's
		 * have the driver's update_current_value on a native adapter, and are their own
		 * event otherwise. */
		cr_assert(write || signal->source != FSA_SRC_USER_MODE_QUEUE,
			  "%s: signal %" PRIu64 " has no ground-truth write", rec.label,
			  signal->id);
		truth_signal_ns = write ? write->ts_ns : (int64_t) signal->end_ns;
		if (wait->source == FSA_SRC_USER_MODE_QUEUE) {
			release = release_of(&rec, wait, window + wait_tol);
			cr_assert_not_null(release, "%s: wait %" PRIu64 " has no gpu_wait_end",
					   rec.label, wait->id);
			truth_release_ns = release->ts_ns;
		} else {
			truth_release_ns = (int64_t) wait->end_ns; /* the OS's own event */
		}
		if (!is_realtime) {
			cr_expect_leq(
			    llabs((long long) (truth_signal_ns - (int64_t) signal->end_ns)),
			    signal_tol + 1000, "%s: signal %" PRIu64, rec.label, signal->id);
			cr_expect_leq(
			    llabs((long long) (truth_release_ns - (int64_t) wait->end_ns)),
			    wait_tol + 1000, "%s: wait %" PRIu64, rec.label, wait->id);
		}
		/* The report's signal_to_release counts the waits already waiting. */
		reached = (int64_t) (wait->observed_ns != FSA_TIME_NONE ? wait->observed_ns
									: wait->queued_ns);
		if (wait->queued_ns == FSA_TIME_NONE && wait->observed_ns == FSA_TIME_NONE)
			continue;
		if (reached > (int64_t) edge->signal_end_ns ||
		    edge->wait_end_ns < edge->signal_end_ns)
			continue;
		samples++;
		{
			uint64_t sample = (uint64_t) (truth_release_ns > truth_signal_ns
							  ? truth_release_ns - truth_signal_ns
							  : 0);

			truth_min = sample < truth_min ? sample : truth_min;
			truth_max = sample > truth_max ? sample : truth_max;
			truth_total += sample;
		}
	}
	cr_log_info("%s: %zu propagation pairs, %zu opens, %zu cross-adapter edges, %zu released "
		    "while waiting (ground truth %" PRIu64 "..%" PRIu64 " ns), tolerance %" PRId64
		    " ns",
		    rec.label, pair_count, opens, cross_edges, samples, samples ? truth_min : 0,
		    truth_max, tolerance);
	cr_expect_gt(cross_edges, 0, "%s: edges cross adapters", rec.label);
	cr_expect_eq(fsa_model_clock_fit_count(rec.model), 2, "%s: a clock fit per adapter",
		     rec.label);
	rows = table(rec.report, "cross_adapter", "adapters");
	{
		gint64 edges = 0, count = 0, min = INT64_MAX, max = 0, total = 0;

		for (guint i = 0; i < json_array_get_length(rows); i++) {
			JsonObject *row = json_array_get_object_element(rows, i);

			if (strcmp(string(row, "metric"), "signal_to_release") != 0)
				continue;
			edges += member(row, "edges");
			count += member(row, "count");
			if (member(row, "count")) {
				min = member(row, "min_ns") < min ? member(row, "min_ns") : min;
				max = member(row, "max_ns") > max ? member(row, "max_ns") : max;
				total += member(row, "total_ns");
			}
		}
		cr_expect_eq(edges, (gint64) cross_edges, "%s: cross-adapter edges", rec.label);
		cr_expect_eq(count, (gint64) samples, "%s: signal_to_release samples", rec.label);
		if (samples && !is_realtime) {
			/* Each sample within the two boxes' tolerances of its ground truth. */
			int64_t slack = 2 * (tolerance + 1000);

			cr_expect_leq(llabs((long long) (min - (gint64) truth_min)), slack,
				      "%s: min %" G_GINT64_FORMAT " truth %" PRIu64, rec.label, min,
				      truth_min);
			cr_expect_leq(llabs((long long) (max - (gint64) truth_max)), slack,
				      "%s: max %" G_GINT64_FORMAT " truth %" PRIu64, rec.label, max,
				      truth_max);
			cr_expect_leq(llabs((long long) (total - (gint64) truth_total)),
				      slack * (gint64) samples, "%s: total", rec.label);
		} else if (samples) {
			/* Realtime: the ground truth is stamped late by the tracer, never early. */
			cr_expect_gt(max, 0, "%s", rec.label);
		}
	}
	recording_clear(&rec);
}

Test(mmu_xad_report, xad_07_08_cross_adapter_scenario_1_in_sim, .timeout = 300)
{
	check_cross_adapter("cross-adapter", false);
}

Test(mmu_xad_report, xad_07_08_cross_adapter_scenario_1_in_realtime, .timeout = 300)
{
	check_cross_adapter("cross-adapter", true);
}

Test(mmu_xad_report, xad_10_14_cross_adapter_scenario_2a_in_sim, .timeout = 300)
{
	check_cross_adapter("cross-adapter-2a", false);
}

Test(mmu_xad_report, xad_10_14_cross_adapter_scenario_2a_in_realtime, .timeout = 300)
{
	check_cross_adapter("cross-adapter-2a", true);
}

Test(mmu_xad_report, xad_11_15_cross_adapter_scenario_2b_in_sim, .timeout = 300)
{
	check_cross_adapter("cross-adapter-2b", false);
}

Test(mmu_xad_report, xad_11_15_cross_adapter_scenario_2b_in_realtime, .timeout = 300)
{
	check_cross_adapter("cross-adapter-2b", true);
}
