/* SPDX-License-Identifier: MIT */
/*
 * A live session read live (issue 16 §4, suite e2e): `fencescope record --live` records two
 * scenario runs a few seconds apart in a sandbox (record-sandbox.h) while `fencescope report
 * --live` follows the session through the relay daemon; the reader must end by itself once the
 * session is destroyed (exit 0, not partial), and what it saw must be what the session wrote on
 * disk: the report's JSON sections, event counts per type included, are identical. Once with
 * the relay daemon `record` starts, once through a relay daemon of the sandbox's on 127.0.0.1 with
 * explicit ports (`--relayd net://127.0.0.1:P1:P2`, the distributed path). The viewer's reader
 * (live-probe.c, FsvLiveReader) follows the same way, its traces growing; and a relay daemon
 * killed under the reader gives a partial report with the cause.
 *
 * The traced program is a shell script: it starts the reader on the URL `record` printed first,
 * waits until the reader is connected to the relay daemon's live port (/proc/net/tcp) and a
 * little more for it to attach — a reader sees a stream from where it attached — then runs the
 * scenarios. The reader's exit status lands in live.status.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "record-sandbox.h"

#define TIMEOUT_S 120
/* Where the reader's exit status goes, once it ended. */
#define LIVE_STATUS_FILE "live.status"

TestSuite(live, .timeout = 2 * TIMEOUT_S + 120);

/* The live reader: `report --live`, JSON summaries in live.out, the report in live.json. */
#define REPORT_READER                                                                              \
	FS_FENCESCOPE " report --live --interval 200ms --format json -o live.json \"%s\" "         \
		      "> live.out 2> live.err"
/* The viewer's live reader (live-probe.c): a line per trace in live.out. */
#define VIEWER_READER FSCT_LIVE_PROBE " \"%s\" > live.out 2> live.err"

/*
 * The traced program: starts the reader (READER, a shell command with one %s for the URL) on
 * READER_URL (a shell expression; $url is the URL `record` printed), waits for its connection
 * to LIVE_PORT, then two scenario runs 2 s apart.
 */
static char *
dup_program(const char *reader, const char *reader_url, unsigned live_port)
{
	g_autoptr(GString) command = g_string_new(reader);

	g_string_replace(command, "%s", reader_url, 1);

	return g_strdup_printf(
	    "set -u; url=$(head -n 1 out); "
	    "(%s; echo $? > " LIVE_STATUS_FILE ".tmp; "
	    "mv " LIVE_STATUS_FILE ".tmp " LIVE_STATUS_FILE ") & "
	    "i=0; until awk '$2 ~ /:%04X$/ && $4 == \"01\" {f = 1} END {exit !f}' "
	    "/proc/net/tcp /proc/net/tcp6 2> /dev/null; do "
	    "i=$((i + 1)); [ $i -gt 600 ] && exit 9; sleep 0.05; done; sleep 2; " FS_FENCESCOPE
	    " run --clock realtime producer-consumer > run-1.out && sleep 2 && " FS_FENCESCOPE
	    " run --clock realtime frame-pipeline > run-2.out",
	    command->str, live_port);
}

static char *
read_work_file(const struct fsct_outcome *outcome, const char *name)
{
	g_autofree char *path = g_build_filename(outcome->work_dir, name, NULL);
	char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return g_strdup("");
	return text;
}

/* The reader's exit status once it wrote it (up to a minute after `record` ended), else -1. */
static int
wait_reader_status(const struct fsct_outcome *outcome)
{
	for (int i = 0; i < 600; i++) {
		g_autofree char *text = read_work_file(outcome, LIVE_STATUS_FILE);

		if (*text)
			return atoi(text);
		g_usleep(100 * 1000);
	}
	return -1;
}

static JsonObject *
parse_object(JsonParser *parser, const char *text, const char *what)
{
	g_autoptr(GError) error = NULL;

	cr_assert(json_parser_load_from_data(parser, text, -1, &error),
		  "%s is not JSON (%s): %.300s", what, error ? error->message : "", text);
	cr_assert(JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser)), "%s: not an object", what);
	return json_node_get_object(json_parser_get_root(parser));
}

/* `fencescope report --format json TRACE` of the trace on disk. */
static char *
dup_disk_report(const char *trace)
{
	const char *argv[] = {FS_FENCESCOPE, "report", "--format", "json", trace, NULL};
	g_autoptr(GError) error = NULL;
	g_autofree char *err = NULL;
	char *out = NULL;
	int wait_status = 0;

	cr_assert(g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
			       &wait_status, &error),
		  "%s", error ? error->message : "");
	cr_assert(g_spawn_check_wait_status(wait_status, NULL), "report %s: %s", trace, err);
	return out;
}

/*
 * Every section of the live report (an object or array member of the top level) is the disk
 * report's, member for member; scalars of the top level (the schema version, a trace's path or
 * URL) may differ. Returns how many sections were compared.
 */
static guint
expect_same_sections(const char *live_text, const char *disk_text)
{
	g_autoptr(JsonParser) live_parser = json_parser_new();
	g_autoptr(JsonParser) disk_parser = json_parser_new();
	JsonObject *live = parse_object(live_parser, live_text, "the live report");
	JsonObject *disk = parse_object(disk_parser, disk_text, "the disk report");
	g_autoptr(GList) names = json_object_get_members(live);
	guint compared = 0;

	for (GList *l = names; l; l = l->next) {
		const char *name = l->data;
		JsonNode *node = json_object_get_member(live, name);

		if (JSON_NODE_HOLDS_VALUE(node) || JSON_NODE_HOLDS_NULL(node))
			continue;
		cr_assert(json_object_has_member(disk, name), "the disk report has no %s", name);
		{
			g_autofree char *a = json_to_string(node, FALSE);
			g_autofree char *b =
			    json_to_string(json_object_get_member(disk, name), FALSE);

			cr_expect_str_eq(a, b, "section %s differs live and on disk", name);
		}
		compared++;
	}
	return compared;
}

/* The live summaries: JSON lines, at least one while the session ran, the last one "end". */
static void
expect_summaries(const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	guint running = 0, count = 0;
	gboolean has_end = FALSE;

	for (guint i = 0; lines[i]; i++) {
		g_autoptr(JsonParser) parser = json_parser_new();
		const char *kind;

		if (!*lines[i])
			continue;
		kind = json_object_get_string_member(parse_object(parser, lines[i], "a summary"),
						     "live");
		count++;
		running += !strcmp(kind, "at");
		has_end = !strcmp(kind, "end");
	}
	cr_expect(has_end, "the last summary is not 'end':\n%s", text);
	cr_expect_geq(running, 1, "no summary while the session ran (%u lines):\n%s", count, text);
}

/* Reads the reader's outcome and compares it with the report of TRACE (on disk). */
static void
expect_live_equals_disk(const struct fsct_outcome *outcome, const char *trace)
{
	int reader_status = wait_reader_status(outcome);
	g_autofree char *live_err = read_work_file(outcome, "live.err");
	g_autofree char *live_out = read_work_file(outcome, "live.out");
	g_autofree char *live_report = read_work_file(outcome, "live.json");
	g_autofree char *disk_report = NULL;
	g_autofree char *run_1 = read_work_file(outcome, "run-1.out");

	cr_assert_eq(reader_status, 0, "the live reader: status %d, stderr: %s (record: %s)",
		     reader_status, live_err, outcome->err);
	cr_expect_null(strstr(live_report, "\"is_partial\" : true"), "live report partial: %s",
		       live_err);
	cr_expect_str_empty(live_err, "the live reader said something");
	cr_assert_str_not_empty(run_1, "the program did not run: %s", outcome->err);
	expect_summaries(live_out);
	disk_report = dup_disk_report(trace);
	cr_expect_geq(expect_same_sections(live_report, disk_report), 10,
		      "too few sections compared");
	/* Not two empty reports: both runs' events are there. */
	cr_expect_not_null(strstr(disk_report, "\"fencescope_umd:fence_wait_queued\""));
}

static void
expect_nothing_left(const struct fsct_outcome *outcome)
{
	cr_expect_str_empty(outcome->leftovers, "left running:\n%s(record's stderr: %s)",
			    outcome->leftovers, outcome->err);
}

Test(live, report_live_follows_record_live_ends_with_the_session_and_equals_the_disk_trace)
{
	g_autofree char *program = dup_program(REPORT_READER, "$url", 5344);
	const char *const args[] = {"record", "--live", "-o",    "trace", "--",
				    "sh",     "-c",     program, NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = TIMEOUT_S};
	struct fsct_outcome outcome;
	g_autofree char *trace = NULL;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "sandbox: %s",
		     outcome.setup_error);
	cr_expect_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	trace = fsct_dup_last_line(outcome.out);
	expect_live_equals_disk(&outcome, trace);
	expect_nothing_left(&outcome);
	fsct_outcome_clear(&outcome);
}

Test(live, report_live_through_a_relay_daemon_on_explicit_ports)
{
	/* Another machine's relay daemon, as far as `record` can tell: it does not start it. */
	const char *const relayd_args[] = {"--control-port=tcp://127.0.0.1:15342",
					   "--data-port=tcp://127.0.0.1:15343",
					   "--live-port=tcp://127.0.0.1:15344", NULL};
	/* `record` prints net://127.0.0.1/host/HOST/SESSION: the reader adds the live port. */
	g_autofree char *program = dup_program(
	    REPORT_READER, "$(echo \"$url\" | sed 's|^net://127.0.0.1/|net://127.0.0.1:15344/|')",
	    15344);
	const char *const args[] = {"record", "--live", "--relayd", "net://127.0.0.1:15342:15343",
				    "--",     "sh",     "-c",       program,
				    NULL};
	struct fsct_sandbox_options options = {
	    .args = args,
	    .has_relayd = true,
	    .relayd_args = relayd_args,
	    .stop_after_file = LIVE_STATUS_FILE,
	    .timeout_s = TIMEOUT_S,
	};
	struct fsct_outcome outcome;
	g_autofree char *relay_dir = NULL;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "sandbox: %s",
		     outcome.setup_error);
	cr_expect_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	cr_expect(g_str_has_prefix(outcome.out, "net://127.0.0.1/host/"), "live URL: %s",
		  outcome.out);
	/* The relay daemon writes the session under its output folder, WORK/relay/HOST/…. */
	relay_dir = g_build_filename(outcome.work_dir, "relay", NULL);
	expect_live_equals_disk(&outcome, relay_dir);
	cr_expect(outcome.have_daemons_survived, "the sandbox's relay daemon was stopped");
	expect_nothing_left(&outcome);
	fsct_outcome_clear(&outcome);
}

/* `fencescope view --live`'s reader: traces while the session runs, their end advancing, and the
 * whole session's trace at its end, with the events of the trace on disk. */
Test(live, viewer_reader_follows_the_session_and_ends_with_the_disk_trace)
{
	g_autofree char *program = dup_program(VIEWER_READER, "$url", 5344);
	const char *const args[] = {"record", "--live", "-o",    "trace", "--",
				    "sh",     "-c",     program, NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = TIMEOUT_S};
	struct fsct_outcome outcome;
	g_autofree char *trace = NULL;
	g_autofree char *live_out = NULL;
	g_autofree char *live_err = NULL;
	g_autofree char *disk_report = NULL;
	g_auto(GStrv) lines = NULL;
	guint64 last_end = 0, final_events = 0;
	guint traces = 0, advances = 0;
	int partial = -1, reader_status;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "sandbox: %s",
		     outcome.setup_error);
	cr_expect_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	reader_status = wait_reader_status(&outcome);
	live_out = read_work_file(&outcome, "live.out");
	live_err = read_work_file(&outcome, "live.err");
	cr_assert_eq(reader_status, 0, "live-probe: status %d: %s%s", reader_status, live_out,
		     live_err);
	lines = g_strsplit(live_out, "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		guint64 events, end_ns;
		unsigned ops, packets;

		if (sscanf(lines[i], "trace %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %u %u",
			   &events, &end_ns, &ops, &packets) == 4) {
			advances += traces > 0 && end_ns > last_end;
			traces++;
			last_end = end_ns;
		} else if (g_str_has_prefix(lines[i], "final ")) {
			cr_assert_eq(sscanf(lines[i],
					    "final %*u %*u %*u %*u %" G_GUINT64_FORMAT " %d",
					    &final_events, &partial),
				     2, "%s", lines[i]);
		}
	}
	/* Two runs 2 s apart, a trace at most every 300 ms: the end moved while it ran. */
	cr_expect_geq(traces, 2, "traces while the session ran:\n%s", live_out);
	cr_expect_geq(advances, 1, "the trace's end never advanced:\n%s", live_out);
	cr_expect_eq(partial, 0, "the final trace is partial or missing:\n%s", live_out);
	trace = fsct_dup_last_line(outcome.out);
	disk_report = dup_disk_report(trace);
	{
		g_autoptr(JsonParser) parser = json_parser_new();
		JsonObject *root = parse_object(parser, disk_report, "the disk report");
		JsonObject *summary = json_object_get_object_member(
		    json_object_get_object_member(root, "summary"), "trace");

		cr_expect_eq((gint64) final_events, json_object_get_int_member(summary, "events"),
			     "events live %" G_GUINT64_FORMAT, final_events);
		cr_expect_geq(final_events, 1000);
	}
	expect_nothing_left(&outcome);
	fsct_outcome_clear(&outcome);
}

/* A relay daemon that dies under the reader is not the session's end: the report covers what
 * was read, marked partial with Babeltrace's cause, and the reader exits with 1. */
Test(live, report_live_is_partial_with_the_cause_when_the_relay_daemon_dies)
{
	const char *const relayd_args[] = {"--control-port=tcp://127.0.0.1:15342",
					   "--data-port=tcp://127.0.0.1:15343",
					   "--live-port=tcp://127.0.0.1:15344", NULL};
	g_autoptr(GString) program = g_string_new(NULL);
	g_autofree char *start = dup_program(
	    REPORT_READER, "$(echo \"$url\" | sed 's|^net://127.0.0.1/|net://127.0.0.1:15344/|')",
	    15344);
	const char *args[] = {"record", "--live", "--relayd", "net://127.0.0.1:15342:15343",
			      "--",     "sh",     "-c",       NULL,
			      NULL};
	struct fsct_sandbox_options options = {
	    .args = args,
	    .has_relayd = true,
	    .relayd_args = relayd_args,
	    .stop_after_file = LIVE_STATUS_FILE,
	    .timeout_s = TIMEOUT_S,
	};
	struct fsct_outcome outcome;
	int reader_status;
	g_autofree char *live_err = NULL;
	g_autofree char *live_report = NULL;

	/* The scenarios run, then the relay daemon of this network namespace (the sandbox's) is
	 * killed while the session still records. */
	g_string_append_printf(
	    program,
	    "%s && sleep 2 && for p in /proc/[0-9]*; do "
	    "[ \"$(cat $p/comm 2> /dev/null)\" = lttng-relayd ] && "
	    "[ \"$(readlink $p/ns/net)\" = \"$(readlink /proc/self/ns/net)\" ] && "
	    "kill -9 ${p#/proc/}; done; sleep 2",
	    start);
	args[7] = program->str;
	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "sandbox: %s",
		     outcome.setup_error);
	reader_status = wait_reader_status(&outcome);
	live_err = read_work_file(&outcome, "live.err");
	live_report = read_work_file(&outcome, "live.json");
	cr_expect_eq(reader_status, 1, "the reader: status %d: %s", reader_status, live_err);
	cr_expect_not_null(strstr(live_err, "cannot read the live session"), "%s", live_err);
	cr_expect_not_null(strstr(live_report, "\"is_partial\" : true"), "not partial: %.400s",
			   live_report);
	/* What arrived before is there. */
	cr_expect_not_null(strstr(live_report, "\"fencescope_umd:fence_wait_queued\""));
	fsct_outcome_clear(&outcome);
}
