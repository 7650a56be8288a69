/* SPDX-License-Identifier: MIT */
/*
 * Runs `fencescope record` for the end-to-end tests in a sandbox of its own: a forked process
 * in private mount and network namespaces (inside a user namespace when not root) with tmpfs
 * on /var/run/lttng and /dev/shm, so that `record` finds no session daemon and no relay daemon
 * port of anyone else's and starts its own. The sandbox watches which LTTng daemons appear in
 * it while `record` runs and reports which of them are still running afterwards, so that a
 * test can check that `record` stopped what it started and nothing else. It is a test helper
 * only; it does not read traces (trace-reader.h does).
 */
#ifndef FSCT_RECORD_SANDBOX_H
#define FSCT_RECORD_SANDBOX_H

#include <stdbool.h>

/* Created in the sandbox's work directory by the traced program, read by the sandbox. */
#define FSCT_READY_FILE "ready"
/* Created in the work directory by the second run's program (options->second_args). */
#define FSCT_SECOND_READY_FILE "second-ready"
/* Created by the sandbox once the signal was sent and `record` printed a line on stdout. */
#define FSCT_DONE_FILE "done"

struct fsct_sandbox_options {
	/* Arguments of `fencescope`, NULL-terminated, starting with "record". */
	const char *const *args;
	/*
	 * Start an lttng-sessiond in the sandbox before `record` (which must then use it and
	 * leave it running, without a session), and stop it afterwards.
	 */
	bool has_sessiond;
	/*
	 * Start an lttng-relayd in the sandbox before `record`, writing to WORK_DIR/relay on the
	 * default ports (as a remote relay daemon would), and stop it afterwards.
	 */
	bool has_relayd;
	/* Send this signal to `record` once the work directory holds FSCT_READY_FILE; 0: none. */
	int signal_on_ready;
	/* Limit for `record` in seconds; it is killed after it. */
	int timeout_s;
	/* A tmpfs of this size (mount's size=, such as "2m") on WORK_DIR/small, for a full disk. */
	const char *small_tmpfs_size;
	/*
	 * A second `fencescope` run (arguments as args) started once the work directory holds
	 * FSCT_READY_FILE, while the first one still runs; FSCT_DONE_FILE (which ends the first
	 * one's program) is written once the second one's program created FSCT_SECOND_READY_FILE,
	 * or the second run ended. It is waited for; its exit status and output go to
	 * outcome->second_*.
	 */
	const char *const *second_args;
	/* With has_relayd: more arguments of the sandbox's lttng-relayd (NULL-terminated), such as
	 * its ports; NULL: none. */
	const char *const *relayd_args;
	/* A file of the work directory that the sandbox waits for (up to timeout_s) once `record`
	 * exited, before it stops its own daemons: a live reader's end. NULL: no wait. */
	const char *stop_after_file;
	/* Seconds to wait after `record` exited for the LTTng processes to end before listing the
	 * leftovers (what a killed `record` leaves to its watchdog); 0: list them at once. */
	int settle_s;
};

struct fsct_outcome {
	/* The work directory, which is also `record`'s working directory: relative -o land here. */
	char *work_dir;
	/* `record`'s exit status; 128 + N if killed by signal N; -1 on timeout. */
	int exit_status;
	/* What `record` printed on stdout and on stderr. */
	char *out;
	char *err;
	/* LTTng daemons seen while `record` ran (not the sandbox's own), one "PID NAME" a line. */
	char *seen_daemons;
	/* LTTng processes still running in the sandbox once `record` exited, as above. */
	char *leftovers;
	/* Output of `lttng list` in the sandbox after `record` exited. */
	char *session_list;
	/* The sandbox's own daemons (if any) were all still running after `record` exited. */
	bool have_daemons_survived;
	/* The sandbox could not be set up: why (the other members are then empty). */
	char *setup_error;
	/* With options->second_args: its exit status (as exit_status), stdout and stderr. */
	int second_exit_status;
	char *second_out;
	char *second_err;
};

/*
 * Runs `fencescope` with options->args in a new sandbox and fills *outcome (all strings
 * non-NULL). Returns 0, or -1 if the sandbox itself failed (outcome->setup_error says why).
 * Release the outcome, and its work directory, with fsct_outcome_clear().
 */
int fsct_record_in_sandbox(const struct fsct_sandbox_options *options,
			   struct fsct_outcome *outcome);

void fsct_outcome_clear(struct fsct_outcome *outcome);

/* Returns: (transfer full) the last non-empty line of text, or an empty string. */
char *fsct_dup_last_line(const char *text);

#endif /* FSCT_RECORD_SANDBOX_H */
