/* SPDX-License-Identifier: MIT */
/*
 * The report's `tdr`, `preemption` (schema 2.2) and `faults` sections against the emulator's
 * own events (suite e2e). tdr-hang and adapter-reset are recorded with `fencescope record` in
 * sim and realtime mode, and seeds of the fault campaign (tests/runtime/fault-campaign.c) with
 * `record --clock sim -- fencescope-fault-campaign SEED 1`; the raw events are read back
 * (trace-reader.h: libbabeltrace2, not the analyzer) and give the ground truth:
 *  - per tdr_detect, in order: its engine, stalled_ns and context, whether a TDR preemption
 *    request followed and completed, the tdr_begin's guilty context, the engine_reset's and
 *    adapter_reset's success, tdr_end's result, and between tdr_begin and tdr_end the
 *    context_error and device_lost events, and the packets that ended ABORTED or FAULTED from
 *    the detection to tdr_end (TDR-01..06);
 *  - the preemption requests per reason, and how many completed;
 *  - the fault_injected events per kind: the report's `injected`, and since the campaign's own
 *    checker (fault-check.h) verified each fault's effect from the runtime's side, `accounted`
 *    must equal them (docs/report-schema.md `faults`).
 * `fencescope report --format json` must give exactly those numbers.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "record-sandbox.h"
#include "trace-reader.h"

#define MAX_TDRS 16

/* Enumeration values (docs/trace-format.md). */
enum { REASON_TDR = 3 };
enum { STATUS_FAULTED = 2, STATUS_ABORTED = 3 };
static const char *const result_names[] = {"engine_reset", "adapter_reset", "failed"};
static const char *const fault_names[] = {
    "hung_engine",    "ignores_preemption", "lost_interrupt",   "delayed_interrupt",
    "corrupt_packet", "process_killed",     "log_overrun_storm"};

struct truth_tdr {
	int64_t detect_ns, begin_ns, end_ns;
	uint64_t engine, stalled_ns, context, guilty;
	uint64_t request_id;
	bool has_request, is_completed, has_begin, has_end;
	int64_t engine_reset, adapter_reset; /* -1 none */
	uint64_t result;
	uint64_t errors, lost_devices, lost_packets;
};

struct truth {
	struct truth_tdr tdrs[MAX_TDRS];
	size_t tdr_count;
	uint64_t requests[6], completed[6];
	uint64_t faults[7];
};

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

/* The latest TDR of ENGINE detected at or before TS, NULL if none. */
static struct truth_tdr *
tdr_of(struct truth *truth, uint64_t engine, int64_t ts)
{
	for (size_t i = truth->tdr_count; i-- > 0;)
		if (truth->tdrs[i].engine == engine && truth->tdrs[i].detect_ns <= ts)
			return &truth->tdrs[i];
	return NULL;
}

static void
count_truth(const struct fst_trace *trace, struct truth *truth)
{
	uint64_t request_reasons[4096] = {0}; /* request id → reason + 1 */

	memset(truth, 0, sizeof(*truth));
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *ev = &trace->events[i];
		struct truth_tdr *t;

		if (is(ev, "fencescope_os:tdr_detect")) {
			cr_assert_lt(truth->tdr_count, MAX_TDRS);
			t = &truth->tdrs[truth->tdr_count++];
			t->detect_ns = ev->ts_ns;
			t->engine = field(ev, "engine_id");
			t->stalled_ns = field(ev, "stalled_ns");
			t->context = field(ev, "context_handle");
			t->engine_reset = t->adapter_reset = -1;
		} else if (is(ev, "fencescope_os:preempt_request")) {
			uint64_t reason = field(ev, "reason"), id = field(ev, "request_id");

			cr_assert_lt(reason, 6);
			truth->requests[reason]++;
			if (id < 4096)
				request_reasons[id] = reason + 1;
			t = tdr_of(truth, field(ev, "engine_id"), ev->ts_ns);
			if (reason == REASON_TDR && t && !t->has_request) {
				t->has_request = true;
				t->request_id = id;
			}
		} else if (is(ev, "fencescope_hw:preempt_complete")) {
			uint64_t id = field(ev, "request_id");

			if (id < 4096 && request_reasons[id])
				truth->completed[request_reasons[id] - 1]++;
			/* In time: before the recovery began (a hung engine answers after its
			 * reset). */
			for (size_t k = 0; k < truth->tdr_count; k++)
				if (truth->tdrs[k].has_request && truth->tdrs[k].request_id == id &&
				    !truth->tdrs[k].has_begin)
					truth->tdrs[k].is_completed = true;
		} else if (is(ev, "fencescope_os:tdr_begin")) {
			t = tdr_of(truth, field(ev, "engine_id"), ev->ts_ns);
			cr_assert_not_null(t, "a tdr_begin without its tdr_detect");
			t->has_begin = true;
			t->begin_ns = ev->ts_ns;
			t->guilty = field(ev, "context_handle");
		} else if (is(ev, "fencescope_os:tdr_end")) {
			t = tdr_of(truth, field(ev, "engine_id"), ev->ts_ns);
			cr_assert_not_null(t);
			t->has_end = true;
			t->end_ns = ev->ts_ns;
			t->result = field(ev, "result");
		} else if (is(ev, "fencescope_kmd:engine_reset") ||
			   is(ev, "fencescope_kmd:adapter_reset")) {
			/* The recovery in progress (between its tdr_begin and tdr_end). */
			for (size_t k = 0; k < truth->tdr_count; k++) {
				t = &truth->tdrs[k];
				if (!t->has_begin || t->has_end)
					continue;
				if (is(ev, "fencescope_kmd:adapter_reset"))
					t->adapter_reset = (int64_t) field(ev, "is_success");
				else if (field(ev, "engine_id") == t->engine)
					t->engine_reset = (int64_t) field(ev, "is_success");
			}
		}
		if (is(ev, "fencescope_os:fault_injected")) {
			cr_assert_lt(field(ev, "kind"), 7);
			truth->faults[field(ev, "kind")]++;
		}
	}
	/* What happened during each recovery (a second pass: the windows are known now). */
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *ev = &trace->events[i];

		for (size_t k = 0; k < truth->tdr_count; k++) {
			struct truth_tdr *t = &truth->tdrs[k];
			bool in_recovery = t->has_begin && t->has_end && ev->ts_ns >= t->begin_ns &&
					   ev->ts_ns <= t->end_ns;

			if (in_recovery && is(ev, "fencescope_os:context_error"))
				t->errors++;
			else if (in_recovery && is(ev, "fencescope_os:device_lost"))
				t->lost_devices++;
			else if (is(ev, "fencescope_hw:packet_end") && t->has_end &&
				 ev->ts_ns >= t->detect_ns && ev->ts_ns <= t->end_ns &&
				 (field(ev, "status") == STATUS_ABORTED ||
				  field(ev, "status") == STATUS_FAULTED) &&
				 (field(ev, "engine_id") == t->engine || t->adapter_reset >= 0))
				t->lost_packets++;
		}
	}
}

static JsonNode *
report_json(const char *path)
{
	char *command, *text = NULL;
	size_t size = 0;
	FILE *output;
	GError *error = NULL;
	JsonNode *root;

	cr_assert_geq(
	    asprintf(&command,
		     "%s report --format json --sections summary,preemption,tdr,faults %s",
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
	return json_object_get_int_member(row, name);
}

/* A handle: "0x…". */
static uint64_t
handle(JsonObject *row, const char *name)
{
	cr_assert(json_object_has_member(row, name), "no %s", name);
	if (json_object_get_null_member(row, name))
		return 0;
	return strtoull(json_object_get_string_member(row, name), NULL, 16);
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

static void
compare(const struct truth *truth, JsonNode *root, const char *label)
{
	JsonArray *sequences = table(root, "tdr", "sequences");
	JsonArray *latency = table(root, "preemption", "latency");
	JsonArray *kinds = table(root, "faults", "kinds");
	uint64_t requests[6] = {0}, completed[6] = {0};
	static const char *const reasons[] = {"time_slice", "priority",    "suspend",
					      "tdr",        "termination", "power"};

	cr_assert_eq(json_array_get_length(sequences), truth->tdr_count, "%s: TDR sequences",
		     label);
	for (size_t i = 0; i < truth->tdr_count; i++) {
		const struct truth_tdr *t = &truth->tdrs[i];
		JsonObject *row = json_array_get_object_element(sequences, (guint) i);

		cr_expect_eq(member(row, "engine_id"), (gint64) t->engine, "%s #%zu", label, i);
		cr_expect_eq(member(row, "stalled_ns"), (gint64) t->stalled_ns, "%s #%zu", label,
			     i);
		cr_expect_eq(tristate(row, "preempt_completed"),
			     t->has_request ? t->is_completed : -1, "%s #%zu", label, i);
		cr_expect_eq(handle(row, "guilty_context_handle"),
			     t->has_begin ? t->guilty : t->context, "%s #%zu", label, i);
		cr_expect_eq(tristate(row, "engine_reset"), t->engine_reset, "%s #%zu", label, i);
		cr_expect_eq(tristate(row, "adapter_reset"), t->adapter_reset, "%s #%zu", label, i);
		if (t->has_end)
			cr_expect_str_eq(json_object_get_string_member(row, "result"),
					 result_names[t->result], "%s #%zu", label, i);
		cr_expect_eq(member(row, "contexts_in_error"), (gint64) t->errors, "%s #%zu", label,
			     i);
		cr_expect_eq(member(row, "devices_lost"), (gint64) t->lost_devices, "%s #%zu",
			     label, i);
		cr_expect_eq(member(row, "packets_lost"), (gint64) t->lost_packets, "%s #%zu",
			     label, i);
		if (t->lost_packets)
			cr_expect_gt(member(row, "lost_gpu_ns"), 0, "%s #%zu", label, i);
	}
	for (guint i = 0; i < json_array_get_length(latency); i++) {
		JsonObject *row = json_array_get_object_element(latency, i);
		const char *reason = json_object_get_string_member(row, "reason");
		bool is_completed =
		    strcmp(json_object_get_string_member(row, "granularity"), "not_completed") != 0;

		for (size_t r = 0; r < 6; r++) {
			if (strcmp(reason, reasons[r]) != 0)
				continue;
			requests[r] += (uint64_t) member(row, "count");
			if (is_completed)
				completed[r] += (uint64_t) member(row, "count");
		}
	}
	for (size_t r = 0; r < 6; r++) {
		cr_expect_eq(requests[r], truth->requests[r], "%s: %s requests", label, reasons[r]);
		cr_expect_eq(completed[r], truth->completed[r], "%s: %s completed", label,
			     reasons[r]);
	}
	for (size_t k = 0; k < 7; k++) {
		gint64 injected = 0, accounted = 0;

		for (guint i = 0; i < json_array_get_length(kinds); i++) {
			JsonObject *row = json_array_get_object_element(kinds, i);

			if (strcmp(json_object_get_string_member(row, "kind"), fault_names[k]) ==
			    0) {
				injected = member(row, "injected");
				accounted = member(row, "accounted");
			}
		}
		cr_expect_eq(injected, (gint64) truth->faults[k], "%s: %s injected", label,
			     fault_names[k]);
		cr_expect_eq(accounted, injected,
			     "%s: %s accounted %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT, label,
			     fault_names[k], accounted, injected);
	}
	cr_expect_eq(json_array_get_length(table(root, "faults", "unaccounted")), 0, "%s", label);
}

static void
record_and_compare(const char *const *args, const char *label, struct truth *truth)
{
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 240};
	struct fsct_outcome outcome = {0};
	struct fst_trace *trace = NULL;
	char *error = NULL, *path;
	JsonNode *root;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record %s: %s", label, outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);
	cr_assert_eq(trace->discarded_events, 0, "%s: the tracer discarded events", label);
	count_truth(trace, truth);
	root = report_json(path);
	compare(truth, root, label);
	json_node_unref(root);
	fst_trace_destroy(trace);
	free(path);
	fsct_outcome_clear(&outcome);
}

static void
check_tdr(const char *scenario, bool is_realtime, bool is_promoted)
{
	const char *args[] = {
	    "record",  "-o", "trace",  "--clock", is_realtime ? "realtime" : "sim",
	    "--scale", "2",  scenario, NULL};
	char label[96];
	struct truth truth;

	snprintf(label, sizeof(label), "%s (%s)", scenario, is_realtime ? "realtime" : "sim");
	record_and_compare(args, label, &truth);
	/* The scenario's shape: two rounds, each a hang recovered by a reset. */
	cr_expect_eq(truth.tdr_count, 2, "%s", label);
	for (size_t i = 0; i < truth.tdr_count; i++) {
		cr_expect(truth.tdrs[i].has_begin && truth.tdrs[i].has_end, "%s", label);
		cr_expect_eq(truth.tdrs[i].engine_reset, is_promoted ? 0 : 1, "%s", label);
		cr_expect_eq(truth.tdrs[i].adapter_reset, is_promoted ? 1 : -1, "%s", label);
		cr_expect_geq(truth.tdrs[i].errors, 1, "%s: the guilty context in error", label);
		cr_expect_geq(truth.tdrs[i].lost_packets, 1, "%s: the hung packet", label);
	}
}

Test(recovery_report, tdr_01_06_tdr_hang_report_matches_the_emulator_in_sim, .timeout = 300)
{
	check_tdr("tdr-hang", false, false);
}

Test(recovery_report, tdr_01_06_tdr_hang_report_matches_the_emulator_in_realtime, .timeout = 300)
{
	check_tdr("tdr-hang", true, false);
}

Test(recovery_report, tdr_06_adapter_reset_report_matches_the_emulator_in_sim, .timeout = 300)
{
	check_tdr("adapter-reset", false, true);
}

Test(recovery_report, tdr_06_adapter_reset_report_matches_the_emulator_in_realtime, .timeout = 300)
{
	check_tdr("adapter-reset", true, true);
}

/*
 * Fault injection (sim mode only): seeds of the campaign that inject lost and delayed
 * interrupts, corrupt packets, killed processes and log overrun storms (seeds 2, 17, 27; the
 * campaign prints each seed's faults). The report's injected count per kind equals the
 * fault_injected events, and every one is accounted for.
 */
static void
check_campaign(const char *seed)
{
	const char *args[] = {"record",          "-o", "trace", "--clock", "sim", "--",
			      FS_FAULT_CAMPAIGN, seed, "1",     NULL};
	char label[64];
	struct truth truth;
	uint64_t total = 0;

	snprintf(label, sizeof(label), "fault campaign seed %s", seed);
	record_and_compare(args, label, &truth);
	for (size_t k = 0; k < 7; k++)
		total += truth.faults[k];
	cr_expect_gt(total, 0, "%s injected nothing", label);
}

Test(recovery_report, faults_campaign_seed_2_every_fault_accounted, .timeout = 300)
{
	check_campaign("2");
}

Test(recovery_report, faults_campaign_seed_17_every_fault_accounted, .timeout = 300)
{
	check_campaign("17");
}

Test(recovery_report, faults_campaign_seed_27_every_fault_accounted, .timeout = 300)
{
	check_campaign("27");
}
