/* SPDX-License-Identifier: MIT */
/*
 * Fault injection through the whole pipeline (suite e2e; docs/robustness.md): the built-in
 * scenario fault-injection, which injects every fault kind, is recorded with `fencescope record`
 * in the sim clock, and a scenario file with a "faults" plan is recorded too; the raw events are
 * read back (trace-reader.h: libbabeltrace2, not the analyzer) to count the injector's ground
 * truth, fencescope_os:fault_injected per kind, and `fencescope report --format json --sections
 * faults` must show those counts as `injected` and as many `accounted` for every kind, with no
 * fault left unaccounted (docs/report-schema.md "faults", s7's fault accounting rule).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "record-sandbox.h"
#include "trace-reader.h"

#define KINDS 7

static const char *const kind_names[KINDS] = {
    "hung_engine",    "ignores_preemption", "lost_interrupt",   "delayed_interrupt",
    "corrupt_packet", "process_killed",     "log_overrun_storm"};

/* fault_injected per kind, from the trace itself. */
static void
count_injected(const struct fst_trace *trace, uint64_t injected[KINDS])
{
	memset(injected, 0, KINDS * sizeof(*injected));
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		const struct fst_field *kind;

		if (strcmp(event->name, "fencescope_os:fault_injected") != 0)
			continue;
		kind = fst_event_find_field(event, "kind");
		cr_assert_not_null(kind);
		cr_assert_lt(kind->u, KINDS);
		injected[kind->u]++;
	}
}

static JsonNode *
report_faults(const char *path)
{
	char *command, *text = NULL;
	size_t size = 0;
	FILE *output;
	GError *error = NULL;
	JsonNode *root;

	cr_assert_geq(
	    asprintf(&command, "%s report --format json --sections faults %s", FS_FENCESCOPE, path),
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

/* Records `args`, then checks the report's faults section against the trace; the counts. */
static void
record_and_check(const char *const *args, const char *label, uint64_t injected[KINDS])
{
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 240};
	struct fsct_outcome outcome = {0};
	struct fst_trace *trace = NULL;
	char *error = NULL, *path;
	JsonNode *root;
	JsonObject *faults;
	JsonArray *kinds, *unaccounted;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record %s: %s", label, outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);
	cr_assert_eq(trace->discarded_events, 0, "%s: the tracer discarded events", label);
	count_injected(trace, injected);
	if (getenv("FST_KEEP_TRACE")) {
		char *copy;

		if (asprintf(&copy, "rm -rf %s && cp -r %s %s", getenv("FST_KEEP_TRACE"), path,
			     getenv("FST_KEEP_TRACE")) > 0 &&
		    system(copy) != 0)
			cr_log_warn("could not keep the trace");
		free(copy);
	}
	root = report_faults(path);
	cr_assert(json_object_has_member(json_node_get_object(root), "faults"), "%s", label);
	faults = json_object_get_object_member(json_node_get_object(root), "faults");
	kinds = json_object_get_array_member(faults, "kinds");
	for (size_t k = 0; k < KINDS; k++) {
		gint64 reported = 0, accounted = 0;

		for (guint i = 0; i < json_array_get_length(kinds); i++) {
			JsonObject *row = json_array_get_object_element(kinds, i);

			if (strcmp(json_object_get_string_member(row, "kind"), kind_names[k]) != 0)
				continue;
			reported = json_object_get_int_member(row, "injected");
			accounted = json_object_get_int_member(row, "accounted");
		}
		cr_expect_eq(reported, (gint64) injected[k], "%s: %s injected", label,
			     kind_names[k]);
		cr_expect_eq(accounted, reported,
			     "%s: %s accounted %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT, label,
			     kind_names[k], accounted, reported);
	}
	unaccounted = json_object_get_array_member(faults, "unaccounted");
	for (guint i = 0; i < json_array_get_length(unaccounted); i++) {
		JsonObject *row = json_array_get_object_element(unaccounted, i);

		cr_expect_fail("%s: %s unaccounted at %" G_GINT64_FORMAT
			       " ns, engine %" G_GINT64_FORMAT,
			       label, json_object_get_string_member(row, "kind"),
			       json_object_get_int_member(row, "ts_ns"),
			       json_object_get_int_member(row, "engine_id"));
	}
	json_node_unref(root);
	fst_trace_destroy(trace);
	free(path);
	fsct_outcome_clear(&outcome);
}

Test(fault_report, every_fault_kind_injected_is_accounted_by_the_report, .timeout = 300)
{
	const char *args[] = {"record",  "-o", "trace",           "--clock", "sim",
			      "--scale", "2",  "fault-injection", NULL};
	uint64_t injected[KINDS];

	record_and_check(args, "fault-injection", injected);
	for (size_t k = 0; k < KINDS; k++)
		cr_expect_eq(injected[k], 2, "fault-injection injects %s once a round",
			     kind_names[k]);
}

Test(fault_report, a_scenario_file_fault_plan_is_accounted_by_the_report, .timeout = 300)
{
	const char *args[] = {"record",  "-o",  "trace",
			      "--clock", "sim", FS_SOURCE_DIR "/tests/cli/fault-plan.json",
			      NULL};
	uint64_t injected[KINDS];
	uint64_t total = 0;

	record_and_check(args, "tests/cli/fault-plan.json", injected);
	for (size_t k = 0; k < KINDS; k++)
		total += injected[k];
	cr_expect_gt(total, 0, "the file's plan injected nothing");
}
