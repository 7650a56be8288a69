/* SPDX-License-Identifier: MIT */
/*
 * `fencescope record` end to end (suite e2e): each test runs the real command in a sandbox
 * (record-sandbox.h) where no other LTTng daemon is reachable, so that `record` starts and
 * stops its own, then reads the trace it printed back through libbabeltrace2 and checks that
 * no daemon and no session was left behind. The traced program is fire-all, which fires every
 * event of the trace contract once, or a built-in scenario through `fencescope run`.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "record-sandbox.h"
#include "trace-reader.h"

/* Every event of the contract, once. */
#define CONTRACT_EVENT_COUNT 72
#define TIMEOUT_S            60
/* Fires the contract's events, says so, and waits until the sandbox has signalled `record`. */
#define FIRE_THEN_WAIT                                                                             \
	FSCT_FIRE_ALL " && touch " FSCT_READY_FILE " && while [ ! -e " FSCT_DONE_FILE              \
		      " ]; do sleep 0.05; done"

TestSuite(record, .timeout = 2 * TIMEOUT_S + 90);

static void
record_in_sandbox_with(struct fsct_sandbox_options options, struct fsct_outcome *outcome)
{
	options.timeout_s = TIMEOUT_S;
	cr_assert_eq(fsct_record_in_sandbox(&options, outcome), 0, "sandbox: %s",
		     outcome->setup_error);
}

static void
record_in_sandbox(const char *const *args, struct fsct_outcome *outcome)
{
	record_in_sandbox_with((struct fsct_sandbox_options){.args = args}, outcome);
}

/* `record` stopped every daemon it started, and no LTTng process is left in the sandbox. */
static void
expect_nothing_left(const struct fsct_outcome *outcome)
{
	cr_expect_str_empty(outcome->leftovers, "left running:\n%s(record's stderr: %s)",
			    outcome->leftovers, outcome->err);
	cr_expect_null(strstr(outcome->session_list, "fencescope-"), "a session is left:\n%s",
		       outcome->session_list);
}

static void
expect_started_daemon(const struct fsct_outcome *outcome, const char *name)
{
	cr_expect_not_null(strstr(outcome->seen_daemons, name), "record did not start %s; saw:\n%s",
			   name, outcome->seen_daemons);
}

/* Reads the trace at path and checks that the contract's events are all there. */
static void
expect_contract_trace(const char *path)
{
	struct fst_trace *trace = NULL;
	char *error = NULL;

	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "cannot read %s: %s", path, error);
	cr_expect_geq(trace->event_count, CONTRACT_EVENT_COUNT, "%zu events in %s",
		      trace->event_count, path);
	cr_expect_eq(trace->discarded_events, 0);
	cr_expect_not_null(fst_trace_find_event(trace, "fencescope_umd:fence_wait_queued"));
	fst_trace_destroy(trace);
}

static void
expect_one_line_error(const struct fsct_outcome *outcome, const char *cause)
{
	cr_expect(!strncmp(outcome->err, "fencescope record: ", 19), "stderr: %s", outcome->err);
	cr_expect_eq(strchr(outcome->err, '\n'), outcome->err + strlen(outcome->err) - 1,
		     "not one line: %s", outcome->err);
	cr_expect_not_null(strstr(outcome->err, cause), "stderr: %s", outcome->err);
}

static char *
dup_work_path(const struct fsct_outcome *outcome, const char *name)
{
	char *path = NULL;

	cr_assert_geq(asprintf(&path, "%s/%s", outcome->work_dir, name), 0);
	return path;
}

Test(record, command_gives_a_complete_trace_and_leaves_no_daemon_or_session)
{
	const char *const args[] = {"record", "-o", "trace", "--", FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;
	char *expected_path;
	char *path;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	expected_path = dup_work_path(&outcome, "trace");
	path = fsct_dup_last_line(outcome.out);
	cr_expect_str_eq(path, expected_path);
	cr_expect_not_null(strstr(outcome.err, "discarded events: 0\n"), "stderr: %s", outcome.err);
	expect_contract_trace(path);
	expect_started_daemon(&outcome, "lttng-sessiond");
	expect_nothing_left(&outcome);
	free(path);
	free(expected_path);
	fsct_outcome_clear(&outcome);
}

Test(record, default_output_directory_is_named_after_the_time)
{
	const char *const args[] = {"record", "--", FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;
	char *prefix;
	char *path;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	prefix = dup_work_path(&outcome, "fencescope-trace-");
	path = fsct_dup_last_line(outcome.out);
	cr_expect(!strncmp(path, prefix, strlen(prefix)) &&
		      strlen(path) == strlen(prefix) + strlen("YYYYMMDD-HHMMSS"),
		  "path %s", path);
	expect_contract_trace(path);
	expect_nothing_left(&outcome);
	free(path);
	free(prefix);
	fsct_outcome_clear(&outcome);
}

Test(record, missing_program_fails_in_one_line_and_starts_nothing)
{
	const char *const args[] = {"record", "-o", "trace", "--", "/nonexistent/program", NULL};
	struct fsct_outcome outcome;
	char *trace_dir;

	record_in_sandbox(args, &outcome);
	cr_expect(outcome.exit_status == 1 || outcome.exit_status == 2, "exit status %d",
		  outcome.exit_status);
	expect_one_line_error(&outcome, "/nonexistent/program");
	cr_expect_str_empty(outcome.out);
	cr_expect_str_empty(outcome.seen_daemons, "started:\n%s", outcome.seen_daemons);
	trace_dir = dup_work_path(&outcome, "trace");
	cr_expect_neq(access(trace_dir, F_OK), 0, "%s was created", trace_dir);
	expect_nothing_left(&outcome);
	free(trace_dir);
	fsct_outcome_clear(&outcome);
}

Test(record, bad_option_is_a_usage_error)
{
	const char *const unknown[] = {"record", "--no-such-option", "--", FSCT_FIRE_ALL, NULL};
	const char *const conflict[] = {"record", "--live",      "--snapshot",
					"--",     FSCT_FIRE_ALL, NULL};
	const char *const size[] = {"record", "--subbuf-size", "3M", "--", FSCT_FIRE_ALL, NULL};
	const char *const *const cases[] = {unknown, conflict, size};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fsct_outcome outcome;

		record_in_sandbox(cases[i], &outcome);
		cr_expect_eq(outcome.exit_status, 2, "%s: exit status %d", cases[i][1],
			     outcome.exit_status);
		expect_one_line_error(&outcome, "");
		cr_expect_str_empty(outcome.seen_daemons);
		fsct_outcome_clear(&outcome);
	}
}

Test(record, non_empty_output_directory_is_refused)
{
	const char *const args[] = {"record", "-o", "/", "--", FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 2, "exit status %d", outcome.exit_status);
	expect_one_line_error(&outcome, "not an empty directory");
	cr_expect_str_empty(outcome.seen_daemons);
	fsct_outcome_clear(&outcome);
}

Test(record, running_daemon_is_used_and_left_running_without_the_session)
{
	const char *const args[] = {"record", "-o", "trace", "--", FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;
	char *path;

	record_in_sandbox_with((struct fsct_sandbox_options){.args = args, .has_sessiond = true},
			       &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	cr_expect_str_empty(outcome.seen_daemons, "record started:\n%s", outcome.seen_daemons);
	cr_expect(outcome.have_daemons_survived, "record stopped a daemon it did not start");
	cr_expect_not_null(strstr(outcome.session_list, "no available recording session"),
			   "lttng list:\n%s", outcome.session_list);
	path = fsct_dup_last_line(outcome.out);
	expect_contract_trace(path);
	expect_nothing_left(&outcome);
	free(path);
	fsct_outcome_clear(&outcome);
}

Test(record, crashed_program_is_reported_and_its_trace_kept)
{
	const char *const args[] = {
	    "record", "-o", "trace", "--", "/bin/sh", "-c", FSCT_FIRE_ALL " && kill -SEGV $$",
	    NULL};
	struct fsct_outcome outcome;
	char *path;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 1, "exit status %d", outcome.exit_status);
	cr_expect_not_null(strstr(outcome.err, "fencescope record: program killed by signal 11"),
			   "stderr: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	expect_contract_trace(path);
	expect_nothing_left(&outcome);
	free(path);
	fsct_outcome_clear(&outcome);
}

Test(record, interrupt_stops_the_program_and_still_saves_the_trace)
{
	const char *const args[] = {"record",  "-o", "trace",        "--",
				    "/bin/sh", "-c", FIRE_THEN_WAIT, NULL};
	struct fsct_outcome outcome;
	char *path;

	record_in_sandbox_with(
	    (struct fsct_sandbox_options){.args = args, .signal_on_ready = SIGINT}, &outcome);
	cr_expect_eq(outcome.exit_status, 130, "exit status %d, stderr: %s", outcome.exit_status,
		     outcome.err);
	path = fsct_dup_last_line(outcome.out);
	expect_contract_trace(path);
	expect_started_daemon(&outcome, "lttng-sessiond");
	expect_nothing_left(&outcome);
	free(path);
	fsct_outcome_clear(&outcome);
}

Test(record, snapshot_mode_writes_the_events_to_a_snapshot)
{
	const char *const args[] = {"record", "--snapshot",  "-o", "trace",
				    "--",     FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;
	char *prefix;
	char *path;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	prefix = dup_work_path(&outcome, "trace/snapshot-");
	path = fsct_dup_last_line(outcome.out);
	cr_expect(!strncmp(path, prefix, strlen(prefix)), "snapshot path %s", path);
	expect_contract_trace(path);
	expect_nothing_left(&outcome);
	free(path);
	free(prefix);
	fsct_outcome_clear(&outcome);
}

Test(record, sigusr1_takes_a_snapshot_while_recording)
{
	const char *const args[] = {"record",  "--snapshot", "-o",           "trace", "--",
				    "/bin/sh", "-c",         FIRE_THEN_WAIT, NULL};
	struct fsct_outcome outcome;
	char *first_end;

	record_in_sandbox_with(
	    (struct fsct_sandbox_options){.args = args, .signal_on_ready = SIGUSR1}, &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	first_end = strchr(outcome.out, '\n');
	cr_assert_not_null(first_end, "no snapshot printed: %s", outcome.out);
	*first_end = '\0';
	cr_expect_str_neq(first_end + 1, "", "no final snapshot");
	expect_contract_trace(outcome.out);
	expect_nothing_left(&outcome);
	fsct_outcome_clear(&outcome);
}

Test(record, live_mode_streams_through_a_relay_daemon_that_it_stops)
{
	const char *const args[] = {"record", "--live", "-o", "trace", "--", FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;
	char host[256] = "";
	char *expected_url = NULL;
	char *prefix;
	char *path;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	gethostname(host, sizeof(host) - 1);
	cr_assert_geq(asprintf(&expected_url, "net://localhost/host/%s/fencescope-", host), 0);
	cr_expect(!strncmp(outcome.out, expected_url, strlen(expected_url)), "live URL: %s",
		  outcome.out);
	prefix = dup_work_path(&outcome, "trace/");
	path = fsct_dup_last_line(outcome.out);
	cr_expect(!strncmp(path, prefix, strlen(prefix)), "trace path %s", path);
	expect_contract_trace(path);
	expect_started_daemon(&outcome, "lttng-relayd");
	expect_started_daemon(&outcome, "lttng-sessiond");
	expect_nothing_left(&outcome);
	free(path);
	free(prefix);
	free(expected_url);
	fsct_outcome_clear(&outcome);
}

/* The totals `fencescope run` prints ("events: N") say how many events the trace must hold. */
static unsigned long long
read_total(const char *out, const char *key)
{
	const char *line = strstr(out, key);

	cr_assert_not_null(line, "no '%s' in:\n%s", key, out);
	return strtoull(line + strlen(key), NULL, 10);
}

Test(record, scenario_is_recorded_with_every_event_it_fired)
{
	const char *const args[] = {
	    "record", "-o", "trace", "--clock", "sim", "--seed", "7", "producer-consumer", NULL};
	struct fsct_outcome outcome;
	struct fst_trace *trace = NULL;
	char *error = NULL;
	char *path;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "cannot read %s: %s", path, error);
	cr_expect_eq(trace->discarded_events, 0);
	cr_expect_eq(trace->event_count, read_total(outcome.out, "\nevents: "),
		     "the trace holds %zu events", trace->event_count);
	cr_expect_not_null(fst_trace_find_event(trace, "fencescope_umd:fence_signal_queued"));
	expect_nothing_left(&outcome);
	fst_trace_destroy(trace);
	free(path);
	fsct_outcome_clear(&outcome);
}

Test(record, relayd_url_streams_to_that_relay_daemon_and_leaves_it_running)
{
	const char *const args[] = {"record", "--relayd",    "net://localhost",
				    "--",     FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;
	char host[256] = "";
	char *url;
	char *relay_path = NULL;

	record_in_sandbox_with((struct fsct_sandbox_options){.args = args, .has_relayd = true},
			       &outcome);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	cr_expect(outcome.have_daemons_survived, "record stopped the relay daemon");
	url = fsct_dup_last_line(outcome.out);
	cr_assert(!strncmp(url, "net://localhost/fencescope-", 27), "printed %s", url);
	gethostname(host, sizeof(host) - 1);
	cr_assert_geq(asprintf(&relay_path, "%s/relay/%s/%s", outcome.work_dir, host,
			       url + strlen("net://localhost/")),
		      0);
	expect_contract_trace(relay_path);
	expect_nothing_left(&outcome);
	free(relay_path);
	free(url);
	fsct_outcome_clear(&outcome);
}

Test(record, fail_on_loss_fails_when_the_tracer_discarded_events)
{
	const char *const args[] = {"record",         "-o",      "trace", "--subbuf-size", "4k",
				    "--fail-on-loss", "--clock", "sim",   "--scale",       "5000",
				    "stress",         NULL};
	struct fsct_outcome outcome;
	struct fst_trace *trace = NULL;
	char *error = NULL;
	char *path;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 1, "exit status %d", outcome.exit_status);
	cr_expect_null(strstr(outcome.err, "discarded events: 0\n"), "stderr: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "cannot read %s: %s", path, error);
	cr_expect_gt(trace->discarded_events, 0);
	expect_nothing_left(&outcome);
	fst_trace_destroy(trace);
	free(path);
	fsct_outcome_clear(&outcome);
}

/* Regression: `record -- /bin/true` printed a trace path and exited 0 although nothing was
 * recorded. */
Test(record, program_that_fires_no_event_exits_3_and_leaves_no_trace)
{
	const char *const args[] = {"record", "-o", "trace", "--", "/bin/true", NULL};
	struct fsct_outcome outcome;
	char *trace;

	record_in_sandbox(args, &outcome);
	cr_expect_eq(outcome.exit_status, 3, "exit status %d, stderr: %s", outcome.exit_status,
		     outcome.err);
	cr_expect_not_null(strstr(outcome.err, "nothing was recorded"), "stderr: %s", outcome.err);
	cr_expect_str_empty(outcome.out, "no trace path is printed: %s", outcome.out);
	trace = dup_work_path(&outcome, "trace");
	cr_expect_neq(access(trace, F_OK), 0, "%s is left", trace);
	expect_nothing_left(&outcome);
	free(trace);
	fsct_outcome_clear(&outcome);
}

/* Regression: recording into a full file system exited 0 with "discarded events: 0" and left
 * a trace that cannot be read. */
Test(record, full_file_system_fails_with_status_4_and_says_the_trace_is_incomplete)
{
	const char *const args[] = {"record",  "-o",   "small/trace", "stress",
				    "--scale", "2000", NULL};
	struct fsct_outcome outcome;

	record_in_sandbox_with(
	    (struct fsct_sandbox_options){.args = args, .small_tmpfs_size = "2m"}, &outcome);
	cr_expect_eq(outcome.exit_status, 4, "exit status %d, stderr: %s", outcome.exit_status,
		     outcome.err);
	cr_expect_not_null(strstr(outcome.err, "the trace is incomplete"), "stderr: %s",
			   outcome.err);
	expect_nothing_left(&outcome);
	fsct_outcome_clear(&outcome);
}

/* Regression: a `record` killed with SIGKILL left the program, lttng-sessiond and the
 * consumer daemon running and writing. Its watchdog now ends them, and keeps the trace. */
Test(record, kill_9_of_record_ends_the_program_the_session_and_the_daemons)
{
	const char *const args[] = {"record",
				    "-o",
				    "trace",
				    "--",
				    "/bin/sh",
				    "-c",
				    FSCT_FIRE_ALL
				    " && echo $$ > program.pid && touch " FSCT_READY_FILE
				    " && while :; do sleep 0.05; done",
				    NULL};
	struct fsct_outcome outcome;
	char *pid_path, *pid_text = NULL, *trace;
	size_t size = 0;
	FILE *file;
	long pid = 0;

	record_in_sandbox_with(
	    (struct fsct_sandbox_options){.args = args, .signal_on_ready = SIGKILL, .settle_s = 30},
	    &outcome);
	cr_expect_eq(outcome.exit_status, 128 + SIGKILL);
	expect_started_daemon(&outcome, "lttng-sessiond");
	cr_expect_str_empty(outcome.leftovers, "left running:\n%s", outcome.leftovers);
	pid_path = dup_work_path(&outcome, "program.pid");
	file = fopen(pid_path, "r");
	cr_assert_not_null(file, "the program did not start");
	cr_assert_gt(getline(&pid_text, &size, file), 0);
	fclose(file);
	pid = strtol(pid_text, NULL, 10);
	cr_assert_gt(pid, 0);
	for (int i = 0; i < 100 && kill((pid_t) pid, 0) == 0; i++)
		usleep(50000);
	cr_expect_neq(kill((pid_t) pid, 0), 0, "the program (pid %ld) still runs", pid);
	if (kill((pid_t) pid, 0) == 0)
		kill((pid_t) pid, SIGKILL);
	/* The session was destroyed, not just dropped: what was recorded is readable. */
	trace = dup_work_path(&outcome, "trace");
	expect_contract_trace(trace);
	free(trace);
	free(pid_path);
	free(pid_text);
	fsct_outcome_clear(&outcome);
}

/* Regression: two `record` at once as root shared the root session daemon, and the first to
 * end stopped it under the other (5.3 M of 19.1 M events kept, reported complete). Now both
 * succeed (each with a daemon of its own, not as root) or the second refuses clearly; the
 * first is complete either way. */
Test(record, two_records_at_once_both_succeed_or_one_refuses_clearly)
{
	const char *const args[] = {"record",  "-o", "first",        "--",
				    "/bin/sh", "-c", FIRE_THEN_WAIT, NULL};
	/* The second program fires its events after the first `record` has ended. */
	const char *const second[] = {"record",
				      "-o",
				      "second",
				      "--",
				      "/bin/sh",
				      "-c",
				      "touch " FSCT_SECOND_READY_FILE
				      " && while [ ! -e " FSCT_DONE_FILE
				      " ]; do sleep 0.05; done && sleep 2 && " FSCT_FIRE_ALL,
				      NULL};
	struct fsct_outcome outcome;
	char *first_path, *second_path;

	record_in_sandbox_with((struct fsct_sandbox_options){.args = args, .second_args = second},
			       &outcome);
	cr_expect_eq(outcome.exit_status, 0, "first: exit %d, stderr: %s", outcome.exit_status,
		     outcome.err);
	first_path = dup_work_path(&outcome, "first");
	expect_contract_trace(first_path);
	if (outcome.second_exit_status == 0) {
		second_path = dup_work_path(&outcome, "second");
		expect_contract_trace(second_path);
		free(second_path);
	} else {
		cr_expect_eq(outcome.second_exit_status, 1, "second: exit %d, stderr: %s",
			     outcome.second_exit_status, outcome.second_err);
		cr_expect_not_null(strstr(outcome.second_err, "another fencescope record (pid "),
				   "second: %s", outcome.second_err);
		cr_expect_str_empty(outcome.second_out, "%s", outcome.second_out);
	}
	expect_nothing_left(&outcome);
	free(first_path);
	fsct_outcome_clear(&outcome);
}

/* Two sim-clock recordings of one user would share the user's sim clock word and stamp each
 * other's events (also with a private daemon each, as a normal user): the second one refuses,
 * naming the first; the first is complete. */
Test(record, second_sim_clock_recording_of_a_user_refuses_clearly)
{
	const char *const args[] = {"record", "--clock", "sim", "-o",           "first",
				    "--",     "/bin/sh", "-c",  FIRE_THEN_WAIT, NULL};
	const char *const second[] = {"record", "--clock", "sim",         "-o",
				      "second", "--",      FSCT_FIRE_ALL, NULL};
	struct fsct_outcome outcome;
	char *first_path, *second_path;

	record_in_sandbox_with((struct fsct_sandbox_options){.args = args, .second_args = second},
			       &outcome);
	cr_expect_eq(outcome.exit_status, 0, "first: exit %d, stderr: %s", outcome.exit_status,
		     outcome.err);
	first_path = dup_work_path(&outcome, "first");
	expect_contract_trace(first_path);
	cr_expect_eq(outcome.second_exit_status, 1, "second: exit %d, stderr: %s",
		     outcome.second_exit_status, outcome.second_err);
	cr_expect_not_null(strstr(outcome.second_err, "is recording on the sim clock"),
			   "second: %s", outcome.second_err);
	second_path = dup_work_path(&outcome, "second");
	cr_expect_neq(access(second_path, F_OK), 0, "the refused recording left %s", second_path);
	expect_nothing_left(&outcome);
	free(first_path);
	free(second_path);
	fsct_outcome_clear(&outcome);
}
