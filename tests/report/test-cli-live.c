/* SPDX-License-Identifier: MIT */
/*
 * `fencescope report --live` on recorded traces (issue 16 §4; a live session itself is the e2e
 * suite's, tests/cli/test-live.c): the rolling summaries come first, in the report's format, the
 * last one marked "end" with the totals of the report; the report after them is the same as
 * without --live; --interval is checked. Runs the real binary over traces/.
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

static JsonObject *
parse_object(JsonParser *parser, const char *text)
{
	g_autoptr(GError) error = NULL;

	cr_assert(json_parser_load_from_data(parser, text, -1, &error), "not JSON (%s): %s",
		  error ? error->message : "", text);
	cr_assert(JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser)), "not an object: %s", text);
	return json_node_get_object(json_parser_get_root(parser));
}

/* The number SECTION.TABLE.MEMBER ("summary.trace.cpu_waits") of the JSON report TEXT. */
static gint64
report_number(const char *text, const char *section, const char *table, const char *member)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	JsonObject *root = parse_object(parser, text);
	JsonObject *object =
	    json_object_get_object_member(json_object_get_object_member(root, section), table);

	cr_assert_not_null(object, "no %s.%s in the report", section, table);
	return json_object_get_int_member(object, member);
}

/* The p50 of metric METRIC in the JSON report's latency.overall. */
static gint64
report_p50(const char *text, const char *metric)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	JsonObject *root = parse_object(parser, text);
	JsonArray *rows =
	    json_object_get_array_member(json_object_get_object_member(root, "latency"), "overall");

	for (guint i = 0; rows && i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);

		if (!strcmp(json_object_get_string_member(row, "metric"), metric))
			return json_object_get_int_member(row, "p50_ns");
	}
	cr_assert_fail("no %s row in latency.overall", metric);
	return -1;
}

static char *
write_temp_path(void)
{
	char *path = g_build_filename(g_get_tmp_dir(), "fsct-live-XXXXXX", NULL);
	int fd = g_mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	return path;
}

Test(cli_live, json_summaries_are_lines_and_the_report_is_the_same_as_without_live)
{
	g_autofree char *path = write_temp_path();
	g_autofree char *live_report = NULL;
	const char *live_args[] = {"report",     "--live", "--format",          "json", "-o", path,
				   "--interval", "100ms",  TRACE("deep-queue"), NULL};
	const char *plain_args[] = {"report", "--format", "json", TRACE("deep-queue"), NULL};
	struct fst_run live = run_report(live_args);
	struct fst_run plain = run_report(plain_args);
	g_auto(GStrv) lines = NULL;
	guint count;
	JsonObject *last;
	g_autoptr(JsonParser) parser = json_parser_new();

	cr_assert_eq(live.exit_status, 0, "%s", live.err);
	cr_assert_eq(plain.exit_status, 0, "%s", plain.err);
	cr_assert(g_file_get_contents(path, &live_report, NULL, NULL));
	cr_expect_str_eq(live_report, plain.out, "the report differs with --live");
	/* Standard output holds only the summaries, one JSON object a line, the last one "end". */
	lines = g_strsplit(g_strchomp(live.out), "\n", -1);
	count = g_strv_length(lines);
	cr_assert_geq(count, 1, "no summary: '%s'", live.out);
	for (guint i = 0; i + 1 < count; i++) {
		g_autoptr(JsonParser) line_parser = json_parser_new();

		cr_expect_str_eq(
		    json_object_get_string_member(parse_object(line_parser, lines[i]), "live"),
		    "at");
	}
	last = parse_object(parser, lines[count - 1]);
	cr_expect_str_eq(json_object_get_string_member(last, "live"), "end");
	cr_expect_eq(json_object_get_int_member(last, "events"),
		     report_number(plain.out, "summary", "trace", "events"));
	cr_expect_eq(json_object_get_int_member(last, "waits"),
		     report_number(plain.out, "summary", "trace", "user_mode_waits") +
			 report_number(plain.out, "summary", "trace", "kernel_mode_waits") +
			 report_number(plain.out, "summary", "trace", "cpu_waits"));
	cr_expect_eq(json_object_get_int_member(last, "signals"),
		     report_number(plain.out, "summary", "trace", "user_mode_signals") +
			 report_number(plain.out, "summary", "trace", "kernel_mode_signals") +
			 report_number(plain.out, "summary", "trace", "cpu_signals"));
	/* The summary's quantiles are the report's within the histogram's 1/256. */
	for (size_t k = 0; k < 2; k++) {
		const char *metric = k == 0 ? "wait" : "signal";
		g_autofree char *member = g_strdup_printf("%s_p50_ns", metric);
		double exact = (double) report_p50(plain.out, metric);
		double approximate = (double) json_object_get_int_member(last, member);

		cr_expect_leq(approximate, exact * (1 + 1.0 / 256) + 1, "%s: %.0f vs %.0f", member,
			      approximate, exact);
		cr_expect_geq(approximate, exact * (1 - 1.0 / 256) - 1, "%s: %.0f vs %.0f", member,
			      approximate, exact);
	}
	g_unlink(path);
	fst_run_clear(&live);
	fst_run_clear(&plain);
}

Test(cli_live, text_summary_comes_before_the_text_report)
{
	const char *live_args[] = {"report", "--live", TRACE("log-overrun"), NULL};
	const char *plain_args[] = {"report", TRACE("log-overrun"), NULL};
	struct fst_run live = run_report(live_args);
	struct fst_run plain = run_report(plain_args);
	const char *end = strstr(live.out, "live end ");
	const char *report;

	cr_assert_eq(live.exit_status, 0, "%s", live.err);
	cr_assert_not_null(end, "no end summary: %s", live.out);
	/* Losses so far are the report's: 640 entries in 10 overruns (traces/log-overrun). */
	cr_expect(strstr(end, "lost 640 log entries (10 overruns)"), "%s", end);
	report = strstr(live.out, "fencescope report  "); /* its first line names the trace */
	cr_assert_not_null(report, "%s", live.out);
	cr_expect(end < report);
	cr_expect_str_eq(report, plain.out);
	fst_run_clear(&live);
	fst_run_clear(&plain);
}

Test(cli_live, csv_summary_is_a_header_and_rows)
{
	g_autofree char *path = write_temp_path();
	const char *args[] = {"report", "--live", "-f", "csv", "-o", path, TRACE("deep-queue"),
			      NULL};
	struct fst_run run = run_report(args);
	g_auto(GStrv) lines = NULL;

	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	lines = g_strsplit(g_strchomp(run.out), "\n", -1);
	cr_assert_geq(g_strv_length(lines), 2, "%s", run.out);
	cr_expect(g_str_has_prefix(lines[0], "live,elapsed_s,events_per_s,events,"), "%s",
		  lines[0]);
	cr_expect(g_str_has_prefix(lines[g_strv_length(lines) - 1], "end,"), "%s", run.out);
	g_unlink(path);
	fst_run_clear(&run);
}

Test(cli_live, interval_is_checked)
{
	const char *short_args[] = {"report", "--live", "--interval", "10ms", TRACE("deep-queue"),
				    NULL};
	const char *alone_args[] = {"report", "--interval", "1s", TRACE("deep-queue"), NULL};
	const char *bad_args[] = {"report", "--live", "--interval", "soon", TRACE("deep-queue"),
				  NULL};
	struct fst_run runs[] = {run_report(short_args), run_report(alone_args),
				 run_report(bad_args)};

	for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
		cr_expect_eq(runs[i].exit_status, 2, "run %zu: %s", i, runs[i].err);
		cr_expect(g_str_has_prefix(runs[i].err, "fencescope report: --interval"),
			  "run %zu: %s", i, runs[i].err);
		cr_expect_str_eq(runs[i].out, "");
		fst_run_clear(&runs[i]);
	}
}
