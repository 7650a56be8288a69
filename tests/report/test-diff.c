/* SPDX-License-Identifier: MIT */
/*
 * `fencescope diff` (issue 16 §2) over two recordings that differ by one known change:
 * traces/diff-slow's producer works twice as long as traces/diff-base's (tests/report/diff-*.json),
 * so the consumer's waits and the producer's signals must be reported beyond noise, and a trace
 * against itself must show zero deltas and no change. Goldens: traces/diff-slow/expected-diff.*
 * (scripts/regen-golden). Plus --fail-if with a base term (exit 3 / 0) and bad usage (exit 2,
 * one line).
 */
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "report-run.h"

#define BASE "traces/diff-base"
#define SLOW "traces/diff-slow"

/* Runs `fencescope diff ARGS…` from the source root (paths as scripts/regen-golden gives them). */
static void
run_diff(const char *const *args, struct fst_run *run)
{
	char *root = g_path_get_dirname(FS_TRACES);

	fst_run_fencescope_in(root, args, run);
	g_free(root);
}

static void
check_golden(const char *format, const char *expected_name)
{
	char *path = g_build_filename(FS_TRACES, "diff-slow", expected_name, NULL);
	const char *args[] = {"diff", "--format", format, BASE, SLOW, NULL};
	char *expected = NULL;
	struct fst_run run;

	cr_assert(g_file_get_contents(path, &expected, NULL, NULL),
		  "%s is missing: run scripts/regen-golden", path);
	run_diff(args, &run);
	cr_assert_eq(run.exit_status, 0, "fencescope diff: %s", run.err);
	if (strcmp(run.out, expected) != 0) {
		char **want = g_strsplit(expected, "\n", -1), **got = g_strsplit(run.out, "\n", -1);
		size_t line = 0;

		while (want[line] && got[line] && strcmp(want[line], got[line]) == 0)
			line++;
		cr_assert(false,
			  "diff differs from %s at line %zu:\n  expected: %s\n  got:      %s", path,
			  line + 1, want[line] ? want[line] : "(end)",
			  got[line] ? got[line] : "(end)");
	}
	fst_run_clear(&run);
	g_free(expected);
	g_free(path);
}

Test(diff, golden_text)
{
	check_golden("text", "expected-diff.txt");
}

Test(diff, golden_json)
{
	check_golden("json", "expected-diff.json");
}

Test(diff, golden_csv)
{
	check_golden("csv", "expected-diff.csv");
}

/* The JSON diff of BASE and NEW, parsed; *root is the document's object. */
static JsonParser *
diff_json(const char *base, const char *new_trace, JsonObject **diff)
{
	const char *args[] = {"diff", "--format", "json", base, new_trace, NULL};
	JsonParser *parser = json_parser_new();
	GError *error = NULL;
	struct fst_run run;

	run_diff(args, &run);
	cr_assert_eq(run.exit_status, 0, "fencescope diff %s %s: %s", base, new_trace, run.err);
	cr_assert(json_parser_load_from_data(parser, run.out, -1, &error), "not JSON: %s",
		  error ? error->message : "");
	*diff = json_object_get_object_member(json_node_get_object(json_parser_get_root(parser)),
					      "diff");
	cr_assert_not_null(*diff);
	fst_run_clear(&run);
	return parser;
}

/* The latency row (scope, name, metric, stat). */
static JsonObject *
latency_row(JsonObject *diff, const char *scope, const char *name, const char *metric,
	    const char *stat)
{
	JsonArray *rows = json_object_get_array_member(diff, "latency");

	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);

		if (strcmp(json_object_get_string_member(row, "scope"), scope) == 0 &&
		    strcmp(json_object_get_string_member(row, "name"), name) == 0 &&
		    strcmp(json_object_get_string_member(row, "metric"), metric) == 0 &&
		    strcmp(json_object_get_string_member(row, "stat"), stat) == 0)
			return row;
	}
	cr_assert(false, "no latency row %s %s %s %s", scope, name, metric, stat);
	return NULL;
}

/* A trace against itself: every delta zero, nothing beyond noise, nothing added or removed
 * (frame-pipeline adds the display's frame time and present latency, fsa/frames.h). */
static void
check_against_itself(const char *trace, bool has_frames)
{
	JsonObject *diff;
	JsonParser *parser = diff_json(trace, trace, &diff);
	JsonObject *traces = json_object_get_object_member(diff, "traces");
	const char *tables[] = {"counts", "latency"};
	size_t display_rows = 0;

	cr_assert_eq(json_object_get_int_member(traces, "changes_beyond_noise"), 0);
	cr_assert_eq(json_object_get_int_member(traces, "added"), 0);
	cr_assert_eq(json_object_get_int_member(traces, "removed"), 0);
	cr_assert_gt(json_object_get_int_member(traces, "matched"), 5);
	for (size_t t = 0; t < G_N_ELEMENTS(tables); t++) {
		JsonArray *rows = json_object_get_array_member(diff, tables[t]);
		const char *delta = t == 0 ? "delta" : "delta_ns";

		cr_assert_gt(json_array_get_length(rows), 10);
		for (guint i = 0; i < json_array_get_length(rows); i++) {
			JsonObject *row = json_array_get_object_element(rows, i);

			display_rows +=
			    strcmp(json_object_get_string_member(row, "scope"), "display") == 0;
			cr_assert_eq(json_object_get_int_member(row, delta), 0, "%s row %u",
				     tables[t], i);
			cr_assert(json_object_get_null_member(row, "is_beyond_noise") ||
				      !json_object_get_boolean_member(row, "is_beyond_noise"),
				  "%s row %u beyond noise", tables[t], i);
		}
	}
	if (has_frames)
		cr_assert_eq(display_rows, 3 + 3 * 4,
			     "frame_time, present_latency and missed_frame_time of gpu0.display0");
	else
		cr_assert_eq(display_rows, 0);
	g_object_unref(parser);
}

Test(diff, a_trace_against_itself_has_zero_deltas_and_no_change)
{
	check_against_itself(SLOW, true);
	check_against_itself("traces/frame-pipeline", true);
}

/* The known change: the producer (3D queue) signals and the consumer (compute queue) waits
 * about twice as long, and the median, p95 and p99 say so beyond noise. */
Test(diff, a_producer_twice_as_slow_is_beyond_noise_where_it_should_be)
{
	static const struct {
		const char *scope, *name, *metric;
	} changed[] = {
	    {"trace", "trace", "wait"},
	    {"queue", "app#1/gpu0.compute0/user#1", "wait"},
	    {"queue", "app#1/gpu0.compute0/user#1", "wait_stalled"},
	    {"queue", "app#1/gpu0.3d0/user#1", "signal"},
	    {"queue", "app#1/gpu0.3d0/user#1", "packet"},
	    {"process", "app#1", "cpu_wait"},
	};
	/* Frames: 20 to 28 ms of rendering misses the 60 Hz vsync in 43 of 99 frames, none in the
	 * base: frame time p95 and p99 double, beyond noise; the median stays one vsync. */
	static const struct {
		const char *stat;
		bool is_beyond;
	} frames[] = {{"p50", false}, {"p95", true}, {"p99", true}};
	static const char *const stats[] = {"p50", "p95", "p99"};
	JsonObject *diff;
	JsonParser *parser = diff_json(BASE, SLOW, &diff);

	for (size_t i = 0; i < G_N_ELEMENTS(changed); i++) {
		for (size_t s = 0; s < G_N_ELEMENTS(stats); s++) {
			JsonObject *row = latency_row(diff, changed[i].scope, changed[i].name,
						      changed[i].metric, stats[s]);

			cr_assert(json_object_get_boolean_member(row, "is_beyond_noise"),
				  "%s %s %s", changed[i].name, changed[i].metric, stats[s]);
			cr_assert_gt(json_object_get_int_member(row, "delta_ns"), 0);
			cr_assert_gt(json_object_get_double_member(row, "delta_pct"), 50.0);
			cr_assert_gt(json_object_get_int_member(row, "new_low_ns"),
				     json_object_get_int_member(row, "base_high_ns"));
		}
	}
	for (size_t i = 0; i < G_N_ELEMENTS(frames); i++) {
		JsonObject *row =
		    latency_row(diff, "display", "gpu0.display0", "frame_time", frames[i].stat);

		cr_assert_eq(json_object_get_boolean_member(row, "is_beyond_noise"),
			     frames[i].is_beyond, "frame_time %s", frames[i].stat);
	}
	/* Same work, same counts: the number of operations did not change; frames that missed a
	 * vsync went from none to 43. */
	JsonArray *counts = json_object_get_array_member(diff, "counts");

	for (guint i = 0; i < json_array_get_length(counts); i++) {
		JsonObject *row = json_array_get_object_element(counts, i);
		bool is_missed =
		    strcmp(json_object_get_string_member(row, "metric"), "missed_frame_time") == 0;

		cr_assert_eq(json_object_get_int_member(row, "delta"), is_missed ? 43 : 0, "%s %s",
			     json_object_get_string_member(row, "name"),
			     json_object_get_string_member(row, "metric"));
		cr_assert_eq(json_object_get_boolean_member(row, "is_beyond_noise"), is_missed);
	}
	g_object_unref(parser);
}

/* Different programs: nothing matches by name, so both sides' objects are listed. */
Test(diff, unmatched_processes_queues_and_fences_are_added_and_removed)
{
	JsonObject *diff;
	JsonParser *parser = diff_json("traces/frame-pipeline", BASE, &diff);
	JsonArray *rows = json_object_get_array_member(diff, "matching");
	size_t added = 0, removed = 0;

	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);
		const char *status = json_object_get_string_member(row, "status");

		added += strcmp(status, "added") == 0;
		removed += strcmp(status, "removed") == 0;
		if (strcmp(status, "added") == 0)
			cr_assert(json_object_get_null_member(row, "base_key"));
	}
	/* frame-pipeline: process "scenario", 2 queues, 4 fences; diff-base: process "app", 2
	 * queues, 4 fences (2 its own, 2 progress fences): none matches by name; only the whole
	 * trace and the display gpu0.display0, which both have, are matched. */
	cr_assert_eq(added, 7);
	cr_assert_eq(removed, 7);
	cr_assert_eq(
	    json_object_get_int_member(json_object_get_object_member(diff, "traces"), "matched"),
	    2);
	g_object_unref(parser);
}

Test(diff, fail_if_relative_to_base_exits_3_on_the_regression_and_0_without)
{
	const char *slower[] = {"diff", "--fail-if", "p99(wait) > 1.10 * base", BASE, SLOW, NULL};
	const char *same[] = {"diff", "--fail-if", "p99(wait) > 1.10 * base", SLOW, SLOW, NULL};
	const char *faster[] = {"diff", "--fail-if", "p99(wait) > 1.10 * base", SLOW, BASE, NULL};
	const char *scoped[] = {"diff", "--fail-if", "max(signal, process=1) > 2.5 * base + 1ms",
				BASE,   SLOW,        NULL};
	/* By stable name, as a CI script writes it before any handle is known. */
	const char *named[] = {"diff",
			       "--fail-if",
			       "p99(wait, queue=\"app#1/gpu0.compute0/user#1\") > 1.10 * base",
			       "--fail-if",
			       "p50(wait, fence='app#1/fence#9') > base",
			       BASE,
			       SLOW,
			       NULL};
	struct fst_run run;

	run_diff(slower, &run);
	cr_assert_eq(run.exit_status, 3, "stderr: %s", run.err);
	cr_assert_not_null(strstr(run.err, "fencescope diff: threshold failed: p99(wait) > 1.10 * "
					   "base: measured 27.997 ms, base 13.928 ms"),
			   "%s", run.err);
	cr_assert_not_null(strstr(run.out, "fencescope diff  " BASE "  " SLOW "\n"));
	fst_run_clear(&run);
	run_diff(same, &run);
	cr_assert_eq(run.exit_status, 0, "stderr: %s", run.err);
	fst_run_clear(&run);
	run_diff(faster, &run);
	cr_assert_eq(run.exit_status, 0, "stderr: %s", run.err);
	fst_run_clear(&run);
	run_diff(scoped, &run);
	cr_assert_eq(run.exit_status, 0, "stderr: %s", run.err);
	fst_run_clear(&run);
	run_diff(named, &run);
	cr_assert_eq(run.exit_status, 3, "stderr: %s", run.err);
	cr_assert_not_null(strstr(run.err, "user#1\") > 1.10 * base: measured 27.997 ms, base "
					   "13.928 ms, limit 15.321 ms\n"),
			   "%s", run.err);
	/* No such fence: nothing measured, no failure, the result says so. */
	cr_assert_null(strstr(run.err, "fence#9"), "%s", run.err);
	cr_assert_not_null(strstr(run.out, "no fence named app#1/fence#9 in the new trace"), "%s",
			   run.out);
	fst_run_clear(&run);
}

static void
assert_usage_error(const char *const *args, const char *what)
{
	struct fst_run run;

	run_diff(args, &run);
	cr_assert_eq(run.exit_status, 2, "%s: exit %d", what, run.exit_status);
	cr_assert(g_str_has_prefix(run.err, "fencescope diff: "), "%s: '%s'", what, run.err);
	cr_assert(strchr(run.err, '\n') == run.err + strlen(run.err) - 1, "%s: not one line: '%s'",
		  what, run.err);
	cr_assert_str_eq(run.out, "", "%s", what);
	fst_run_clear(&run);
}

Test(diff, bad_usage_exits_2_with_one_line)
{
	const char *one[] = {"diff", BASE, NULL};
	const char *three[] = {"diff", BASE, SLOW, SLOW, NULL};
	const char *format[] = {"diff", "-f", "xml", BASE, SLOW, NULL};
	const char *typo[] = {"diff", "--fail-if", "p99(wait) > 1.1 * bse", BASE, SLOW, NULL};
	const char *metric[] = {"diff", "--fail-if", "p99(waits) > base", BASE, SLOW, NULL};
	const char *unit[] = {"diff", "--fail-if", "p99(wait) > 2ms * base", BASE, SLOW, NULL};
	const char *option[] = {"diff", "--no-such", BASE, SLOW, NULL};
	const char *report[] = {"report", "--fail-if", "p99(wait) > base", BASE, NULL};
	const char *quote[] = {"diff", "--fail-if", "p99(wait, queue=\"app#1) > base",
			       BASE,   SLOW,        NULL};
	const char *kind[] = {"diff", "--fail-if", "count(anomaly, kind=\"x\") > base",
			      BASE,   SLOW,        NULL};
	struct fst_run run;

	assert_usage_error(one, "one trace");
	assert_usage_error(three, "three traces");
	assert_usage_error(format, "-f xml");
	assert_usage_error(typo, "bse");
	assert_usage_error(metric, "waits");
	assert_usage_error(unit, "2ms * base");
	assert_usage_error(option, "--no-such");
	assert_usage_error(quote, "unclosed quote");
	assert_usage_error(kind, "a name for kind=");
	/* `report` has no base: its own one-line error. */
	run_diff(report, &run);
	cr_assert_eq(run.exit_status, 2);
	cr_assert_not_null(strstr(run.err, "base is the other trace of fencescope diff"), "%s",
			   run.err);
	fst_run_clear(&run);
}

Test(diff, a_missing_trace_exits_1_with_one_line)
{
	const char *args[] = {"diff", BASE, "traces/no-such-trace", NULL};
	struct fst_run run;

	run_diff(args, &run);
	cr_assert_eq(run.exit_status, 1);
	cr_assert(g_str_has_prefix(run.err, "fencescope diff: "), "'%s'", run.err);
	fst_run_clear(&run);
}

/* Issue 16 §6 holds for diff too: 120 columns unless --wide. */
Test(diff, text_fits_120_columns)
{
	const char *args[] = {"diff", BASE, SLOW, NULL};
	struct fst_run run;
	char **lines;

	run_diff(args, &run);
	cr_assert_eq(run.exit_status, 0);
	lines = g_strsplit(run.out, "\n", -1);
	for (size_t i = 0; lines[i]; i++)
		cr_assert_leq(g_utf8_strlen(lines[i], -1), 120, "line %zu: %s", i + 1, lines[i]);
	g_strfreev(lines);
	fst_run_clear(&run);
}

/* --- What is compared: --begin/--end, --recording, --times/--relative (issue 16 §2) ---------- */

static JsonObject *
json_table(JsonObject *diff, const char *name)
{
	JsonObject *table = json_object_get_object_member(diff, name);

	cr_assert_not_null(table, "no diff.%s", name);
	return table;
}

/* An integer member: the JSON writer puts integers past 2^53 between quotes, so that every
 * reader gets them exactly (trace times are). */
static gint64
int_member(JsonObject *object, const char *name)
{
	JsonNode *node = json_object_get_member(object, name);

	cr_assert_not_null(node, "no member %s", name);
	if (json_node_get_value_type(node) == G_TYPE_STRING)
		return g_ascii_strtoll(json_node_get_string(node), NULL, 10);
	return json_node_get_int(node);
}

/* The JSON diff of ARGS (exit 0 expected). */
static JsonParser *
diff_json_args(const char *const *args, JsonObject **diff)
{
	JsonParser *parser = json_parser_new();
	GError *error = NULL;
	struct fst_run run;

	run_diff(args, &run);
	cr_assert_eq(run.exit_status, 0, "fencescope diff: %s", run.err);
	cr_assert(json_parser_load_from_data(parser, run.out, -1, &error), "not JSON: %s",
		  error ? error->message : "");
	*diff = json_object_get_object_member(json_node_get_object(json_parser_get_root(parser)),
					      "diff");
	cr_assert_not_null(*diff);
	fst_run_clear(&run);
	return parser;
}

static gint64
count_of_row(JsonObject *diff, const char *name, const char *metric, const char *side)
{
	JsonArray *rows = json_object_get_array_member(diff, "counts");

	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);

		if (strcmp(json_object_get_string_member(row, "name"), name) == 0 &&
		    strcmp(json_object_get_string_member(row, "metric"), metric) == 0)
			return json_object_get_int_member(row, side);
	}
	cr_assert(false, "no count row %s %s", name, metric);
	return -1;
}

/* "+TIME" is from each trace's own first event: the same part of the two runs. The window's
 * bounds are those first events plus TIME in each trace (the times tables say so), fewer
 * operations are counted than in the whole traces, and a window past both ends counts them all. */
Test(diff, relative_begin_and_end_compare_the_same_window_of_each_run)
{
	const char *window[] = {"diff",  "-f",  "json", "--begin", "+0.5s",
				"--end", "+1s", BASE,   SLOW,      NULL};
	const char *whole[] = {"diff",  "-f",    "json", "--begin", "+0",
			       "--end", "+100s", BASE,   SLOW,      NULL};
	JsonObject *diff, *full;
	JsonParser *parser = diff_json_args(window, &diff);
	JsonParser *full_parser = diff_json(BASE, SLOW, &full);
	const char *tables[] = {"base_times", "new_times"};

	for (size_t i = 0; i < 2; i++) {
		JsonObject *t = json_table(diff, tables[i]);
		gint64 first = int_member(t, "first_ns");

		cr_assert_eq(int_member(t, "filter_begin_ns"), first + 500000000);
		cr_assert_eq(int_member(t, "filter_end_ns"), first + 1000000000);
		cr_assert(json_object_get_null_member(t, "origin_ns"), "absolute times: no origin");
	}
	for (size_t side = 0; side < 2; side++) {
		const char *key = side ? "new" : "base";
		gint64 in_window = count_of_row(diff, "trace", "wait", key);
		gint64 in_all = count_of_row(full, "trace", "wait", key);

		cr_assert_gt(in_window, 5, "%s", key);
		cr_assert_lt(in_window, in_all, "%s", key);
		cr_assert_lt(count_of_row(diff, "trace", "packet", key),
			     count_of_row(full, "trace", "packet", key), "%s", key);
		cr_assert_lt(count_of_row(diff, "trace", "frame_time", key),
			     count_of_row(full, "trace", "frame_time", key), "%s", key);
	}
	/* The slow run does half as many frames in the same half second. */
	cr_assert_lt(count_of_row(diff, "trace", "wait", "new"),
		     count_of_row(diff, "trace", "wait", "base"));
	g_object_unref(parser);
	parser = diff_json_args(whole, &diff);
	cr_assert_eq(json_array_get_length(json_object_get_array_member(diff, "counts")),
		     json_array_get_length(json_object_get_array_member(full, "counts")));
	for (size_t side = 0; side < 2; side++)
		cr_assert_eq(count_of_row(diff, "trace", "wait", side ? "new" : "base"),
			     count_of_row(full, "trace", "wait", side ? "new" : "base"));
	g_object_unref(parser);
	g_object_unref(full_parser);
}

/* diff-base and diff-slow were recorded one after the other: no absolute time is in both, and
 * comparing the part of one run with nothing of the other is refused in one line. An absolute
 * time inside both traces (here one trace against itself) is taken. */
Test(diff, an_absolute_time_outside_either_trace_is_refused_in_one_line)
{
	/* diff-base runs from 346.218 s to 347.885 s of the sim clock, diff-slow from 348.282 s. */
	const char *outside[] = {"diff", "--begin", "1795532347000000000", BASE, SLOW, NULL};
	const char *inside[] = {
	    "diff", "-f", "json", "--begin", "1795532349000000000", "--end", "1795532349500000000",
	    SLOW,   SLOW, NULL};
	JsonObject *diff;
	JsonParser *parser;
	struct fst_run run;

	run_diff(outside, &run);
	cr_assert_eq(run.exit_status, 2, "%s", run.err);
	cr_assert_str_eq(run.err,
			 "fencescope diff: --begin 1795532347000000000 is an absolute time outside "
			 "NEW (" SLOW "): an absolute time must fall in both traces; give +TIME, "
			 "from each trace's start\n");
	cr_assert_str_eq(run.out, "");
	fst_run_clear(&run);
	parser = diff_json_args(inside, &diff);
	cr_assert_eq(int_member(json_table(diff, "new_times"), "filter_begin_ns"),
		     G_GINT64_CONSTANT(1795532349000000000));
	cr_assert_gt(count_of_row(diff, "trace", "wait", "new"), 5);
	cr_assert_eq(json_object_get_int_member(json_table(diff, "traces"), "changes_beyond_noise"),
		     0);
	g_object_unref(parser);
}

/* --times relative (or --relative) writes each trace's times from its own first event, with
 * that origin; --recording picks one recording of a folder, the same one or BASE:NEW in each. */
Test(diff, recording_picks_each_side_and_relative_times_count_from_each_start)
{
	const char *picked[] = {"diff",       "-f",          "json",
				"--relative", "--recording", "diff-base:diff-slow",
				FS_TRACES,    FS_TRACES,     NULL};
	const char *same[] = {"diff",        "-f",        "json",    "--times", "relative",
			      "--recording", "diff-slow", FS_TRACES, FS_TRACES, NULL};
	const char *none[] = {"diff", "--recording", "no-such", FS_TRACES, FS_TRACES, NULL};
	JsonObject *diff, *direct;
	JsonParser *parser = diff_json_args(picked, &diff);
	JsonParser *direct_parser = diff_json(BASE, SLOW, &direct);
	const char *tables[] = {"base_times", "new_times"};
	struct fst_run run;

	for (size_t i = 0; i < 2; i++) {
		JsonObject *t = json_table(diff, tables[i]);

		cr_assert(g_str_has_suffix(json_object_get_string_member(t, "path"),
					   i ? "/diff-slow" : "/diff-base"));
		cr_assert_eq(int_member(t, "first_ns"), 0);
		cr_assert_gt(int_member(t, "last_ns"), 1000000000);
		cr_assert_gt(int_member(t, "origin_ns"), 0);
	}
	cr_assert_eq(
	    json_object_get_int_member(json_table(diff, "traces"), "changes_beyond_noise"),
	    json_object_get_int_member(json_table(direct, "traces"), "changes_beyond_noise"));
	g_object_unref(parser);
	g_object_unref(direct_parser);
	parser = diff_json_args(same, &diff);
	cr_assert_eq(json_object_get_int_member(json_table(diff, "traces"), "changes_beyond_noise"),
		     0);
	g_object_unref(parser);
	run_diff(none, &run);
	cr_assert_eq(run.exit_status, 1, "%s", run.err);
	cr_assert(g_str_has_prefix(run.err, "fencescope diff: "), "%s", run.err);
	fst_run_clear(&run);
}

Test(diff, bad_windows_and_times_exit_2_with_one_line)
{
	const char *times[] = {"diff", "--times", "sometimes", BASE, SLOW, NULL};
	const char *order[] = {"diff", "--begin", "+2s", "--end", "+1s", BASE, SLOW, NULL};
	const char *begin[] = {"diff", "--begin", "soon", BASE, SLOW, NULL};
	const char *budget[] = {"diff", "--frame-budget", "0ms", BASE, SLOW, NULL};
	const char *both[] = {"diff", "--relative", "--times", "absolute", BASE, SLOW, NULL};

	assert_usage_error(times, "--times sometimes");
	assert_usage_error(order, "--end before --begin");
	assert_usage_error(begin, "--begin soon");
	assert_usage_error(budget, "--frame-budget 0ms");
	assert_usage_error(both, "--relative --times absolute");
}

/* --- --fail-if knows every metric diff compares (issue 16 §2) ------------------------------- */

/* Known answer on diff-base → diff-slow: the producer renders twice as long. Regressed: packet
 * durations, waits (stalled), signals, CPU waits, frame time p99 (16.7 → 33.3 ms), missed vsyncs
 * and frames over a 20 ms budget (none → 43 frames). Not regressed: the frame time median (one
 * vsync), the present latency (shorter), the number of waits, anomalies (none), the queued part
 * of waits. Each regressed one fails (exit 3, one stderr line each), the others pass. */
Test(diff, fail_if_knows_every_metric_and_fails_exactly_the_regressed_ones)
{
	static const char *const regressed[] = {
	    "p99(packet) > 1.10 * base",
	    "p95(packet, queue=\"app#1/gpu0.3d0/user#1\") > 1.5 * base",
	    "p99(packet, process='app#1') > 1.10 * base",
	    "p99(frame) > 1.10 * base",
	    "p99(frame_time, display=\"gpu0.display0\") > 1.5 * base",
	    "count(missed_vsync) > base",
	    "count(frame_over_budget) > base",
	    "p99(wait_stalled) > 1.10 * base",
	    "p99(signal) > 1.10 * base",
	    "p99(cpu_wait) > 1.10 * base",
	    "p99(wait, queue=\"app#1/gpu0.compute0/user#1\") > 1.10 * base",
	};
	static const char *const kept[] = {
	    "p50(frame) > 1.10 * base",
	    "p50(present) > 1.10 * base",
	    "max(present_latency, display=\"gpu0.display0\") > base",
	    "count(wait) > 1.2 * base",
	    "count(packet) > 1.2 * base",
	    "count(frame) > base",
	    "count(anomaly) > base",
	    "p50(wait_queued) > base + 1us",
	};
	GPtrArray *args = g_ptr_array_new();
	struct fst_run run;

	g_ptr_array_add(args, (char *) "diff");
	g_ptr_array_add(args, (char *) "--frame-budget");
	g_ptr_array_add(args, (char *) "20ms");
	for (size_t i = 0; i < G_N_ELEMENTS(regressed); i++) {
		g_ptr_array_add(args, (char *) "--fail-if");
		g_ptr_array_add(args, (char *) regressed[i]);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(kept); i++) {
		g_ptr_array_add(args, (char *) "--fail-if");
		g_ptr_array_add(args, (char *) kept[i]);
	}
	g_ptr_array_add(args, (char *) BASE);
	g_ptr_array_add(args, (char *) SLOW);
	g_ptr_array_add(args, NULL);
	run_diff((const char *const *) args->pdata, &run);
	cr_assert_eq(run.exit_status, 3, "%s", run.err);
	for (size_t i = 0; i < G_N_ELEMENTS(regressed); i++) {
		g_autofree char *line = g_strdup_printf(
		    "fencescope diff: threshold failed: %s: measured ", regressed[i]);

		cr_expect_not_null(strstr(run.err, line), "%s did not fail: %s", regressed[i],
				   run.err);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(kept); i++) {
		g_autofree char *line = g_strdup_printf("threshold failed: %s:", kept[i]);

		cr_expect_null(strstr(run.err, line), "%s failed: %s", kept[i], run.err);
		cr_expect_not_null(strstr(run.out, kept[i]), "%s not in the thresholds table",
				   kept[i]);
	}
	/* The values are those of the tables: frame time p99 16.667 ms → 33.333 ms. */
	cr_expect_not_null(strstr(run.err, "p99(frame) > 1.10 * base: measured 33.333 ms, base "
					   "16.667 ms, limit 18.333 ms\n"),
			   "%s", run.err);
	cr_expect_not_null(strstr(run.err, "count(frame_over_budget) > base: measured 43, base 0"),
			   "%s", run.err);
	fst_run_clear(&run);
	/* The same thresholds of a trace against itself: none fails. */
	args->pdata[args->len - 2] = (char *) SLOW;
	args->pdata[args->len - 3] = (char *) SLOW;
	run_diff((const char *const *) args->pdata, &run);
	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	fst_run_clear(&run);
	g_ptr_array_free(args, TRUE);
}

Test(diff, fail_if_scopes_and_the_report_refuse_what_they_cannot_measure)
{
	const char *fence_packet[] = {
	    "diff", "--fail-if", "p99(packet, fence=\"app#1/fence#3\") > base", BASE, SLOW, NULL};
	const char *queue_frame[] = {
	    "diff", "--fail-if", "p99(frame, queue=\"app#1/gpu0.3d0/user#1\") > base",
	    BASE,   SLOW,        NULL};
	const char *display_key[] = {"diff", "--fail-if", "p99(frame, display=0) > base",
				     BASE,   SLOW,        NULL};
	const char *report_packet[] = {"report", "--fail-if", "p99(packet) > 1ms", BASE, NULL};
	struct fst_run run;

	assert_usage_error(fence_packet, "packet by fence");
	assert_usage_error(queue_frame, "frame by queue");
	assert_usage_error(display_key, "display= without quotes");
	run_diff(report_packet, &run);
	cr_assert_eq(run.exit_status, 2);
	cr_assert_str_eq(run.err, "fencescope report: --fail-if 'p99(packet) > 1ms': packet is a "
				  "metric of fencescope diff; a report has no packet durations\n");
	fst_run_clear(&run);
}

/* -s/--sections picks the diff's tables (the thresholds table stays with --fail-if); an unknown
 * name is a usage error in one line. */
Test(diff, sections_pick_the_tables_written)
{
	const char *some[] = {"diff",       "-f", "json", "-s", "latency,times",
			      "--relative", BASE, SLOW,   NULL};
	const char *with_threshold[] = {
	    "diff", "-f", "json", "--sections", "counts", "--fail-if", "count(wait) > base",
	    BASE,   SLOW, NULL};
	const char *typo[] = {"diff", "-s", "latnecy", BASE, SLOW, NULL};
	const char *none[] = {"diff", "-s", "", BASE, SLOW, NULL};
	JsonObject *diff;
	JsonParser *parser = diff_json_args(some, &diff);
	GList *members = json_object_get_members(diff);
	struct fst_run run;

	cr_assert_eq(g_list_length(members), 3);
	cr_assert(json_object_has_member(diff, "latency"));
	cr_assert(json_object_has_member(diff, "base_times"));
	cr_assert(json_object_has_member(diff, "new_times"));
	g_list_free(members);
	g_object_unref(parser);
	run_diff(with_threshold, &run);
	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	cr_assert_not_null(strstr(run.out, "\"counts\""));
	cr_assert_null(strstr(run.out, "\"latency\""));
	cr_assert_not_null(strstr(run.out, "\"thresholds\""));
	fst_run_clear(&run);
	assert_usage_error(typo, "-s latnecy");
	assert_usage_error(none, "-s ''");
}
