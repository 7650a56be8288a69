/* SPDX-License-Identifier: MIT */
/*
 * Every built-in scenario recorded through `fencescope record` (suite e2e): the trace holds the
 * expected event families, and its counts equal the totals `fencescope run` printed for the
 * same run — one queued event per fence operation, one log entry per GPU signal and per GPU
 * wait unless an overrun says how many were lost (LOG-11, LOG-17, LOG-19), one software
 * operation per kernel-mode fence command, one end per CPU wait. A bad scenario file is
 * refused with its line and exit status 2.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "record-sandbox.h"
#include "trace-reader.h"

/* A total as `fencescope run` printed it ("key: value"), or -1. */
static long long
total_of(const char *out, const char *key)
{
	char needle[64];
	const char *at;

	snprintf(needle, sizeof(needle), "\n%s: ", key);
	at = strstr(out, needle);
	return at ? atoll(at + strlen(needle)) : -1;
}

/* CPU waits of the application: waits on a queue's progress fence name its kernel handle. */
static size_t
count_application_cpu_waits(const struct fst_trace *trace)
{
	size_t n = 0;

	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];

		if (strcmp(event->name, "fencescope_os:cpu_wait_end") == 0)
			n += fst_event_find_field(event, "fence_handle")->u >> 63 == 0;
	}
	return n;
}

/*
 * A sim-mode recording carries virtual time (the sim clock plugin): every clock_correlation
 * event is stamped at exactly its cpu_ts_ns field, up to the clock's fixed offset.
 */
static void
expect_virtual_timestamps(const struct fst_trace *trace)
{
	bool has_offset = false;
	int64_t offset = 0;
	size_t checked = 0;

	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		int64_t this_offset;

		if (strcmp(event->name, "fencescope_kmd:clock_correlation") != 0)
			continue;
		this_offset = event->ts_ns - (int64_t) fst_event_find_field(event, "cpu_ts_ns")->u;
		if (!has_offset)
			offset = this_offset;
		cr_expect_eq(this_offset, offset, "event %zu is not at its virtual time", i);
		has_offset = true;
		checked++;
	}
	cr_expect_geq(checked, 1);
}

static unsigned long long
sum_lost(const struct fst_trace *trace, const char *log_type)
{
	return fst_trace_sum(trace, "fencescope_os:fence_log_overrun", "entries_lost", "log_type",
			     log_type);
}

/*
 * frame-pipeline: between the first and the last flip on screen, a vsync latched no flip (a
 * frame rendered for longer than a frame missed it).
 */
static void
expect_a_missed_vsync(const struct fst_trace *trace)
{
	size_t flips_done = 0, missed = 0;
	size_t total = fst_trace_count(trace, "fencescope_os:flip_done", NULL, NULL);

	for (size_t i = 0; i < trace->event_count && flips_done < total; i++) {
		const struct fst_event *event = &trace->events[i];

		if (strcmp(event->name, "fencescope_os:flip_done") == 0)
			flips_done++;
		else if (flips_done > 0 && strcmp(event->name, "fencescope_hw:vsync") == 0 &&
			 fst_event_find_field(event, "flip_id")->u == 0)
			missed++;
	}
	cr_expect_gt(missed, 0, "no vsync without a flip between the first and the last flip");
}

/* Records `args` (ending with the scenario `name`) and checks the trace against the totals. */
static void
record_args_and_check(const char *name, const char *const *args)
{
	struct fsct_sandbox_options options = {
	    .args = args,
	    .timeout_s = 200,
	};
	struct fsct_outcome outcome = {0};
	struct fst_trace *trace = NULL;
	char *error = NULL;
	char *path;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record %s: %s", name, outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);

	cr_expect_eq(trace->discarded_events, 0);
	cr_expect_eq((long long) trace->event_count, total_of(outcome.out, "events"));
	cr_expect_eq(fst_trace_count(trace, "fencescope_os:trace_info", NULL, NULL), 1);
	cr_expect_eq((long long) count_application_cpu_waits(trace),
		     total_of(outcome.out, "cpu_waits"));
	cr_expect_eq(
	    (long long) fst_trace_count(trace, "fencescope_umd:fence_signal_queued", NULL, NULL),
	    total_of(outcome.out, "gpu_signals") + total_of(outcome.out, "kernel_signals"));
	cr_expect_eq(
	    (long long) fst_trace_count(trace, "fencescope_umd:fence_wait_queued", NULL, NULL),
	    total_of(outcome.out, "gpu_waits") + total_of(outcome.out, "kernel_waits"));
	cr_expect_eq((long long) fst_trace_count(trace, "fencescope_os:km_fence_signal_executed",
						 NULL, NULL),
		     total_of(outcome.out, "kernel_signals"));
	cr_expect_eq(
	    (long long) fst_trace_count(trace, "fencescope_os:km_fence_wait_unblocked", NULL, NULL),
	    total_of(outcome.out, "kernel_waits"));
	cr_expect_eq(
	    (long long) (fst_trace_count(trace, "fencescope_os:submit_command", NULL, NULL) +
			 fst_trace_count(trace, "fencescope_umd:ring_write", NULL, NULL)),
	    total_of(outcome.out, "submissions"));
	/*
	 * LOG-11, LOG-17: each GPU operation's entry was read, or counted in an overrun; so was
	 * the progress write's of every user-mode buffer (HPF-02: one per ring_write).
	 */
	cr_expect_eq(
	    (long long) (fst_trace_count(trace, "fencescope_os:fence_log_entry", "operation",
					 "SIGNAL_EXECUTED") +
			 sum_lost(trace, "SIGNALS")),
	    total_of(outcome.out, "gpu_signals") +
		(long long) fst_trace_count(trace, "fencescope_umd:ring_write", NULL, NULL));
	cr_expect_eq((long long) (fst_trace_count(trace, "fencescope_os:fence_log_entry",
						  "operation", "WAIT_UNBLOCKED") +
				  sum_lost(trace, "WAITS")),
		     total_of(outcome.out, "gpu_waits"));
	cr_expect_eq((long long) (sum_lost(trace, "SIGNALS") + sum_lost(trace, "WAITS")),
		     total_of(outcome.out, "log_entries_lost"));
	if (strcmp(name, "log-overrun") == 0)
		cr_expect_gt(sum_lost(trace, "SIGNALS"), 0, "LOG-19: the overrun is in the trace");
	/* PRE-13: every present's flip was programmed and reached the screen. */
	cr_expect_eq((long long) fst_trace_count(trace, "fencescope_os:flip_queued", NULL, NULL),
		     total_of(outcome.out, "flips"));
	cr_expect_eq((long long) fst_trace_count(trace, "fencescope_os:flip_done", NULL, NULL),
		     total_of(outcome.out, "flips"));
	if (strcmp(name, "frame-pipeline") == 0)
		expect_a_missed_vsync(trace);
	cr_expect_geq(fst_trace_count(trace, "fencescope_kmd:clock_correlation", NULL, NULL), 1);
	expect_virtual_timestamps(trace);

	free(path);
	fst_trace_destroy(trace);
	fsct_outcome_clear(&outcome);
}

static void
record_and_check(const char *name)
{
	record_args_and_check(name, (const char *const[]){"record", "-o", "trace", name, NULL});
}

/*
 * Sim-mode interleaving from the command line: the GPU and the OS switch at shared words
 * (docs/runtime.md, "Interleaving"), and the recording still matches the run's totals.
 */
Test(scenarios, an_interleaved_sim_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_args_and_check("frame-pipeline",
			      (const char *const[]){"record", "-o", "trace", "--interleave-seed",
						    "3", "frame-pipeline", NULL});
}

/* Same interleaving seed, same run: the totals, and the run's events, are the same. */
Test(scenarios, the_same_interleave_seed_gives_the_same_run)
{
	char *outputs[2];

	for (int i = 0; i < 2; i++) {
		char *command;
		FILE *output;
		size_t size = 0;

		cr_assert_geq(asprintf(&command,
				       "%s run --json --interleave-seed 11 stress --scale 3",
				       FS_FENCESCOPE),
			      0);
		output = popen(command, "r");
		cr_assert_not_null(output);
		outputs[i] = NULL;
		cr_assert_geq(getdelim(&outputs[i], &size, '\0', output), 1);
		cr_expect_eq(pclose(output), 0);
		free(command);
	}
	cr_expect_str_eq(outputs[0], outputs[1]);
	free(outputs[0]);
	free(outputs[1]);
}

/* Interleaving is a sim-clock tool: with the realtime clock the option is refused. */
Test(scenarios, interleave_seed_with_the_realtime_clock_is_refused_with_exit_status_2)
{
	char *command;
	FILE *output;
	char line[512] = "";
	int status;

	cr_assert_geq(asprintf(&command,
			       "%s run --clock realtime --interleave-seed 1 producer-consumer 2>&1",
			       FS_FENCESCOPE),
		      0);
	output = popen(command, "r");
	cr_assert_not_null(output);
	cr_assert_not_null(fgets(line, sizeof(line), output));
	status = pclose(output);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "exit status %d", status);
	cr_expect(strstr(line, "--interleave-seed"), "error: %s", line);
	free(command);
}

Test(scenarios, producer_consumer_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_and_check("producer-consumer");
}

Test(scenarios, frame_pipeline_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_and_check("frame-pipeline");
}

Test(scenarios, log_19_log_overrun_recording_reports_the_entries_lost, .timeout = 240)
{
	record_and_check("log-overrun");
}

Test(scenarios, cpu_waiters_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_and_check("cpu-waiters");
}

Test(scenarios, stress_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_and_check("stress");
}

Test(scenarios, ums_22_doorbell_pressure_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_and_check("doorbell-pressure");
}

Test(scenarios, ums_18_doorbell_global_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_and_check("doorbell-global");
}

/* FST-07, DST-08: engines in F1 and the device in D3 between buffers lose none of them. (The
 * suspend-terminate scenario is checked by tests/cli/test-doorbell-report.c: its crashed and
 * lost processes' buffers do not all run, by design.) */
Test(scenarios, fst_07_dst_08_power_states_recording_matches_the_totals_of_the_run, .timeout = 240)
{
	record_and_check("power-states");
}

Test(scenarios, bad_scenario_file_is_refused_with_its_line_and_exit_status_2)
{
	char path[] = "/tmp/fsct-bad-XXXXXX.json";
	int fd = mkstemps(path, 5);
	FILE *file = fdopen(fd, "w");
	char *command;
	char line[512] = "";
	FILE *output;
	int status;

	cr_assert_not_null(file);
	fputs("{\n  \"processes\": [\n    {\"name\": \"app\",\n     \"queues\": [{\"name\": \"q\", "
	      "\"engine\": 0, \"mode\": \"user\"}]}\n  ],\n  \"script\": [\n    {\"submit\": "
	      "\"nope\", \"commands\": [{\"work\": 10}]}\n  ]\n}\n",
	      file);
	fclose(file);
	cr_assert_geq(asprintf(&command, "%s run %s 2>&1", FS_FENCESCOPE, path), 0);
	output = popen(command, "r");
	cr_assert_not_null(output);
	cr_assert_not_null(fgets(line, sizeof(line), output));
	status = pclose(output);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "exit status %d", status);
	/* The unknown queue "nope" is on line 7. */
	cr_expect(strstr(line, path) && strstr(line, ":7:"), "error: %s", line);
	remove(path);
	free(command);
}
