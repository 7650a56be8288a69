/* SPDX-License-Identifier: MIT */
/*
 * `fencescope report` as CI uses it: exit status 3 when a --fail-if threshold or --fail-on-loss
 * trips (and the failure named on stderr), 2 for bad usage with a one-line message, 1 for a trace
 * that cannot be read, and a damaged trace gives a clear error (with the partial report), never a
 * crash. Runs the real binary over traces/.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "report-run.h"

#define TRACE(name) FS_TRACES "/" name

static struct fst_run
run_report(const char *const *args)
{
	struct fst_run run;

	fst_run_fencescope(args, &run);
	return run;
}

static void
assert_one_line(const char *text, const char *prefix)
{
	cr_assert(g_str_has_prefix(text, prefix), "'%s' does not start with '%s'", text, prefix);
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "not one line: '%s'", text);
}

Test(cli_report, fail_if_that_trips_exits_3)
{
	const char *args[] = {"report",
			      "--sections",
			      "summary",
			      "--fail-if",
			      "p99(wait)>1ms",
			      "--fail-if",
			      "max(signal)>100s",
			      TRACE("frame-pipeline"),
			      NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 3, "%s", run.err);
	cr_assert(strstr(run.err, "fencescope report: threshold failed: p99(wait)>1ms: measured "),
		  "%s", run.err);
	/* The report is still printed, with the thresholds it checked. */
	cr_assert(strstr(run.out, "THRESHOLDS"), "%s", run.out);
	fst_run_clear(&run);
}

Test(cli_report, fail_if_that_holds_exits_0)
{
	const char *args[] = {"report",
			      "--sections",
			      "summary",
			      "--fail-if",
			      "p99(wait)>1s",
			      "--fail-if",
			      "count(anomaly)>0",
			      TRACE("frame-pipeline"),
			      NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	fst_run_clear(&run);
}

Test(cli_report, fail_on_loss_on_an_overrun_exits_3)
{
	const char *args[] = {"report", "--fail-on-loss", TRACE("log-overrun"), NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 3, "%s", run.err);
	cr_assert(strstr(run.err, "threshold failed: --fail-on-loss: 640 fence log entries lost in "
				  "10 overruns"),
		  "%s", run.err);
	fst_run_clear(&run);
}

Test(cli_report, fail_on_loss_without_loss_exits_0)
{
	const char *args[] = {"report", "--fail-on-loss",           "-f",
			      "json",   TRACE("producer-consumer"), NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	fst_run_clear(&run);
}

Test(cli_report, bad_fail_if_exits_2_with_one_line)
{
	const char *args[] = {"report", "--fail-if", "p99(wiat)>2ms", TRACE("frame-pipeline"),
			      NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 2);
	assert_one_line(run.err, "fencescope report: --fail-if 'p99(wiat)>2ms': unknown metric "
				 "'wiat'");
	cr_assert_str_empty(run.out);
	fst_run_clear(&run);
}

Test(cli_report, usage_errors_exit_2)
{
	const char *bad_format[] = {"report", "--format", "xml", TRACE("frame-pipeline"), NULL};
	const char *bad_time[] = {"report", "--begin", "soon", TRACE("frame-pipeline"), NULL};
	const char *bad_section[] = {"report", "-s", "summary,nope", TRACE("frame-pipeline"), NULL};
	const char *no_trace[] = {"report", NULL};
	const char *const *cases[] = {bad_format, bad_time, bad_section, no_trace};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fst_run run = run_report(cases[i]);

		cr_assert_eq(run.exit_status, 2, "case %zu: %s", i, run.err);
		assert_one_line(run.err, "fencescope report: ");
		fst_run_clear(&run);
	}
}

Test(cli_report, nonexistent_trace_exits_1)
{
	const char *args[] = {"report", "/nonexistent/trace", NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 1, "%s", run.err);
	assert_one_line(run.err, "fencescope report: /nonexistent/trace: ");
	cr_assert_str_empty(run.out);
	fst_run_clear(&run);
}

Test(cli_report, output_file_holds_the_same_report)
{
	char *dir = g_dir_make_tmp("fst-report-XXXXXX", NULL);
	char *path = g_build_filename(dir, "report.csv", NULL);
	const char *to_file[] = {"report", "-f", "csv", "-o", path, TRACE("producer-consumer"),
				 NULL};
	const char *to_stdout[] = {"report", "-f", "csv", TRACE("producer-consumer"), NULL};
	struct fst_run file_run = run_report(to_file), stdout_run = run_report(to_stdout);
	char *contents = NULL;

	cr_assert_eq(file_run.exit_status, 0, "%s", file_run.err);
	cr_assert_str_empty(file_run.out);
	cr_assert(g_file_get_contents(path, &contents, NULL, NULL));
	cr_assert_str_eq(contents, stdout_run.out);
	/* Every CSV row names its section and table. */
	char **lines = g_strsplit(contents, "\n", -1);

	for (size_t i = 0; lines[i]; i++)
		cr_assert(!lines[i][0] || g_str_has_prefix(lines[i], "section,table,") ||
			      g_regex_match_simple("^[a-z_]+,[a-z_]+,", lines[i], 0, 0),
			  "line %zu: %s", i + 1, lines[i]);
	g_strfreev(lines);
	g_free(contents);
	g_unlink(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
	fst_run_clear(&file_run);
	fst_run_clear(&stdout_run);
}

Test(cli_report, relative_begin_counts_from_the_first_event)
{
	const char *all[] = {"report", "-f", "json", "-s", "summary", TRACE("frame-pipeline"),
			     NULL};
	const char *late[] = {"report",  "-f",      "json",  "-s",
			      "summary", "--begin", "+1.5s", TRACE("frame-pipeline"),
			      NULL};
	struct fst_run run_all = run_report(all), run_late = run_report(late);
	JsonNode *root_all = json_from_string(run_all.out, NULL);
	JsonNode *root_late = json_from_string(run_late.out, NULL);

	cr_assert_not_null(root_all);
	cr_assert_not_null(root_late);
	JsonObject *trace_all = json_object_get_object_member(
	    json_object_get_object_member(json_node_get_object(root_all), "summary"), "trace");
	JsonObject *trace_late = json_object_get_object_member(
	    json_object_get_object_member(json_node_get_object(root_late), "summary"), "trace");
	/* Trace times are above 2^53: decimal strings (docs/report-schema.md). */
	guint64 first =
	    g_ascii_strtoull(json_object_get_string_member(trace_all, "first_ns"), NULL, 10);

	cr_assert_eq(g_ascii_strtoull(json_object_get_string_member(trace_late, "filter_begin_ns"),
				      NULL, 10),
		     first + 1500000000);
	/* Frames run at 60 Hz for about 2 s: fewer than half the operations are that late. */
	gint64 waits_all = json_object_get_int_member(trace_all, "kernel_mode_waits");
	gint64 waits_late = json_object_get_int_member(trace_late, "kernel_mode_waits");

	cr_assert_gt(waits_late, 0);
	cr_assert_lt(waits_late, waits_all / 2);
	json_node_unref(root_all);
	json_node_unref(root_late);
	fst_run_clear(&run_all);
	fst_run_clear(&run_late);
}

/* Copies a trace, cuts its largest stream file in half, and reports on it. */
Test(cli_report, damaged_trace_is_a_clear_error_not_a_crash)
{
	char *dir = g_dir_make_tmp("fst-damaged-XXXXXX", NULL);
	char *copy = g_strdup_printf("cp -r %s/producer-consumer %s/t", FS_TRACES, dir);
	char *stream = g_strdup_printf("%s/t/ust/uid/0/64-bit/fencescope_1", dir);
	char *trace = g_strdup_printf("%s/t", dir);
	char *cleanup = g_strdup_printf("rm -rf %s", dir);
	const char *args[] = {"report", trace, NULL};
	GStatBuf st;

	cr_assert_eq(system(copy), 0);
	cr_assert_eq(g_stat(stream, &st), 0, "%s", stream);
	cr_assert_eq(truncate(stream, st.st_size / 2 + 123), 0);
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 1, "exit %d: %s", run.exit_status, run.err);
	cr_assert(g_str_has_prefix(run.err, "fencescope report: "), "%s", run.err);
	/* Either nothing could be read, or the report says it is partial. */
	cr_assert(run.out[0] == '\0' || strstr(run.out, "PARTIAL: "), "%s", run.out);
	fst_run_clear(&run);
	cr_assert_eq(system(cleanup), 0);
	g_free(cleanup);
	g_free(trace);
	g_free(stream);
	g_free(copy);
	g_free(dir);
}

/* --times takes relative or absolute only (issue 15 §3). */
Test(cli_report, bad_times_exits_2_with_one_line)
{
	const char *args[] = {"report", "--times", "since-boot", TRACE("frame-pipeline"), NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 2, "%s", run.err);
	cr_assert(strstr(run.err, "--times takes relative or absolute"), "%s", run.err);
	fst_run_clear(&run);
}

/* --times relative with --begin: a filter time is relative like every other time, and a
 * filter begin before the first event is negative (signed ns). */
Test(cli_report, relative_times_count_from_the_first_event)
{
	const char *args[] = {
	    "report",     "--times", "relative", "--format", "csv",
	    "--sections", "summary", "--begin",  "1000",     TRACE("frame-pipeline"),
	    NULL};
	struct fst_run run = run_report(args);

	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	/* first_ns is 0, filter_begin_ns (trace ns 1000) lies far before the first event. */
	cr_assert(
	    strstr(run.out, "\nsummary,trace,1.5,true,sim,fencescope_sim,correlated,0.1.0,0,"),
	    "%s", run.out);
	cr_assert(strstr(run.out, ",-1795513400691097232,"), "%s", run.out);
	cr_assert(strstr(run.out, "summary,times,relative to the first event,1795513400691098232"),
		  "%s", run.out);
	fst_run_clear(&run);
}
