/* SPDX-License-Identifier: MIT */
/*
 * Golden reports: `fencescope report --format text|json` over each trace in traces/ must print
 * exactly traces/<name>/expected.txt and expected.json, as babeltrace's tests compare with their
 * .expect files. After a deliberate change, regenerate them with scripts/regen-golden and review
 * the difference.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "report-run.h"

/* TIMES: NULL for the default (absolute), else the --times value. */
static void
check_times(const char *scenario, const char *format, const char *times, const char *expected_name)
{
	char *trace = g_build_filename(FS_TRACES, scenario, NULL);
	char *expected_path = g_build_filename(trace, expected_name, NULL);
	/* Run from the source tree with "traces/NAME", as scripts/regen-golden does: the text's
	 * first line names the trace as given. */
	char *root = g_path_get_dirname(FS_TRACES);
	char *relative = g_build_filename("traces", scenario, NULL);
	char *expected = NULL;
	const char *args[] = {"report", "--format", format, relative, NULL, NULL, NULL};
	struct fst_run run;

	if (times) {
		args[4] = "--times";
		args[5] = times;
	}
	cr_assert(g_file_get_contents(expected_path, &expected, NULL, NULL),
		  "%s is missing: run scripts/regen-golden", expected_path);
	fst_run_fencescope_in(root, args, &run);
	cr_assert_eq(run.exit_status, 0, "fencescope report %s: %s", trace, run.err);
	if (strcmp(run.out, expected) != 0) {
		/* Name the first line that differs: the whole file is too long for a message. */
		char **want = g_strsplit(expected, "\n", -1), **got = g_strsplit(run.out, "\n", -1);
		size_t line = 0;

		while (want[line] && got[line] && strcmp(want[line], got[line]) == 0)
			line++;
		cr_assert(false, "%s differs from %s at line %zu:\n  expected: %s\n  got:      %s",
			  trace, expected_path, line + 1, want[line] ? want[line] : "(end)",
			  got[line] ? got[line] : "(end)");
		g_strfreev(want);
		g_strfreev(got);
	}
	fst_run_clear(&run);
	g_free(expected);
	g_free(expected_path);
	g_free(relative);
	g_free(root);
	g_free(trace);
}

static void
check(const char *scenario, const char *format, const char *expected_name)
{
	check_times(scenario, format, NULL, expected_name);
}

/* --times relative (issue 15 §3): every time since the first event, "+1.500 ms" in text as the
 * viewer writes it; the summary names the origin. One trace in each format. */
Test(golden, frame_pipeline_relative_text)
{
	check_times("frame-pipeline", "text", "relative", "expected-relative.txt");
}

Test(golden, frame_pipeline_relative_json)
{
	check_times("frame-pipeline", "json", "relative", "expected-relative.json");
}

Test(golden, frame_pipeline_relative_csv)
{
	check_times("frame-pipeline", "csv", "relative", "expected-relative.csv");
}

Test(golden, frame_pipeline_text)
{
	check("frame-pipeline", "text", "expected.txt");
}

Test(golden, frame_pipeline_json)
{
	check("frame-pipeline", "json", "expected.json");
}

Test(golden, producer_consumer_text)
{
	check("producer-consumer", "text", "expected.txt");
}

Test(golden, producer_consumer_json)
{
	check("producer-consumer", "json", "expected.json");
}

Test(golden, log_overrun_text)
{
	check("log-overrun", "text", "expected.txt");
}

Test(golden, log_overrun_json)
{
	check("log-overrun", "json", "expected.json");
}

Test(golden, cpu_waiters_text)
{
	check("cpu-waiters", "text", "expected.txt");
}

Test(golden, cpu_waiters_json)
{
	check("cpu-waiters", "json", "expected.json");
}

Test(golden, stress_text)
{
	check("stress", "text", "expected.txt");
}

Test(golden, stress_json)
{
	check("stress", "json", "expected.json");
}

/* Issue 10: a realtime recording (LTTng's monotonic clock, epoch offset) is rebuilt on the trace's
 * own time base (GPV-04): no end_before_queued, waits and signals counted, edges drawn. */
Test(golden, realtime_producer_consumer_text)
{
	check("realtime-producer-consumer", "text", "expected.txt");
}

Test(golden, realtime_producer_consumer_json)
{
	check("realtime-producer-consumer", "json", "expected.json");
}

/* Issue 10: a sim run recorded with plain lttng (LTTng's clock, trace_info says sim): GPU time
 * unmapped and said so (summary, trace_clock_mismatch), boxes at their reads, never made up. */
Test(golden, sim_plain_lttng_text)
{
	check("sim-plain-lttng", "text", "expected.txt");
}

Test(golden, sim_plain_lttng_json)
{
	check("sim-plain-lttng", "json", "expected.json");
}

/* Issue 12: the doorbell section of a doorbell-pressure recording (6 queues on 2 dedicated
 * doorbells): per queue, per engine and per adapter. A golden, not a truth check (that is
 * tests/cli/test-doorbell-report.c). */
Test(golden, doorbell_pressure_text)
{
	check("doorbell-pressure", "text", "expected.txt");
}

Test(golden, doorbell_pressure_json)
{
	check("doorbell-pressure", "json", "expected.json");
}

/* Issue 12: 32 queues on the global doorbell: one connect each, no victimization. */
Test(golden, doorbell_global_text)
{
	check("doorbell-global", "text", "expected.txt");
}

Test(golden, doorbell_global_json)
{
	check("doorbell-global", "json", "expected.json");
}

/* Issue 12: engines idle into F1 and woken by a reconnect, the device twice in D3 (FST, DST).
 * The truth check is tests/cli/test-doorbell-report.c. */
Test(golden, fst_03_dst_01_power_states_text)
{
	check("power-states", "text", "expected.txt");
}

Test(golden, fst_03_dst_01_power_states_json)
{
	check("power-states", "json", "expected.json");
}

/* Issue 12: a suspended context, a normal and an abnormal termination, a lost device and the
 * UMD's fall-back (SUS, TRM, UMS-16): suspended time, ABORTs, suspensions open at the end. */
Test(golden, sus_01_trm_03_suspend_terminate_text)
{
	check("suspend-terminate", "text", "expected.txt");
}

Test(golden, sus_01_trm_03_suspend_terminate_json)
{
	check("suspend-terminate", "json", "expected.json");
}

/* Issue 16 §6: the text report fits 120 columns by default on every trace in traces/ (wide
 * tables are split into parts that repeat their key columns), and its first line names the
 * trace; --wide keeps one line per row. Widths count characters, not bytes ("µs"). */
Test(golden, text_fits_120_columns_on_every_trace)
{
	char *root = g_path_get_dirname(FS_TRACES);
	GDir *dir = g_dir_open(FS_TRACES, 0, NULL);
	const char *name;
	size_t traces = 0, widest_wide = 0;

	cr_assert(dir, "cannot list %s", FS_TRACES);
	while ((name = g_dir_read_name(dir))) {
		char *totals = g_build_filename(FS_TRACES, name, "totals.txt", NULL);
		char *relative = g_build_filename("traces", name, NULL);
		const char *args[] = {"report", relative, NULL, NULL};
		struct fst_run run;

		if (!g_file_test(totals, G_FILE_TEST_EXISTS)) {
			g_free(totals);
			g_free(relative);
			continue;
		}
		for (int wide = 0; wide < 2; wide++) {
			char **lines, *header;

			args[1] = wide ? "--wide" : relative;
			args[2] = wide ? relative : NULL;
			fst_run_fencescope_in(root, args, &run);
			cr_assert_eq(run.exit_status, 0, "fencescope report %s: %s", relative,
				     run.err);
			header = g_strdup_printf("fencescope report  %s\n", relative);
			cr_assert(g_str_has_prefix(run.out, header), "%s: first line is not %s",
				  relative, header);
			g_free(header);
			lines = g_strsplit(run.out, "\n", -1);
			for (size_t i = 0; lines[i]; i++) {
				size_t width = g_utf8_strlen(lines[i], -1);

				if (wide)
					widest_wide = MAX(widest_wide, width);
				else
					cr_assert_leq(width, 120, "%s line %zu is %zu columns: %s",
						      relative, i + 1, width, lines[i]);
			}
			g_strfreev(lines);
			fst_run_clear(&run);
		}
		traces++;
		g_free(totals);
		g_free(relative);
	}
	g_dir_close(dir);
	g_free(root);
	cr_assert_geq(traces, 20, "only %zu traces in %s", traces, FS_TRACES);
	cr_assert_gt(widest_wide, 120, "--wide should keep a table wider than 120 columns");
}
