/* SPDX-License-Identifier: MIT */
/*
 * A sim-mode recording reads back in the order the run emitted it (suite e2e). LTTng-UST puts
 * an event in the ring buffer of the CPU its thread runs on, and Babeltrace's muxer merges the
 * per-CPU streams by time only: two events of one virtual instant in two streams may come out
 * in either order. The sim clock therefore never hands out the same instant twice: every event
 * of a sim recording has a timestamp of its own, so the muxed order is the run's order.
 *
 * `fencescope record log-overrun --scale 500` is recorded a few times while a helper thread
 * moves the scenario's thread from CPU to CPU every ~100 us (without it a recording migrates
 * rarely, and a misordered log read showed in about 1 recording of 5). Each recording must have
 * strictly increasing timestamps, and the analyzer must find exactly the overruns the runtime
 * reported (LOG-17), no loss range ending before it begins and no timestamp going backwards.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "record-sandbox.h"
#include "trace-reader.h"

#define RECORDINGS 3
#define SCALE      "500"

/* ---- moving the scenario between CPUs ------------------------------------------------------ */

/*
 * A process of its own, forked while the test is single-threaded (the sandbox forks too): it
 * moves the scenario until the test closes `stop`, then writes how many moves it made.
 */
struct migrator {
	pid_t pid;
	int stop_fd;  /* the test's end: closed to stop it */
	int moves_fd; /* the test's end: the count of moves */
};

/* The pid of `fencescope run …` that record started, or 0. */
static pid_t
find_scenario(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	pid_t found = 0;

	if (!proc)
		return 0;
	while (!found && (entry = readdir(proc))) {
		char path[300], cmdline[4096];
		size_t length;
		FILE *file;

		if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", entry->d_name);
		if (!(file = fopen(path, "r")))
			continue;
		length = fread(cmdline, 1, sizeof(cmdline) - 1, file);
		fclose(file);
		cmdline[length] = '\0';
		/* argv[0] is the fencescope binary, argv[1] "run". */
		if (strcmp(cmdline, FS_FENCESCOPE) == 0 && length > strlen(cmdline) + 4 &&
		    strcmp(cmdline + strlen(cmdline) + 1, "run") == 0)
			found = (pid_t) atol(entry->d_name);
	}
	closedir(proc);
	return found;
}

static _Noreturn void
migrate(int stop_fd, int moves_fd)
{
	unsigned long moves = 0;
	pid_t pid = 0;
	int cpu = 0;
	char byte;

	/* The test closes its end to stop us: a read then returns 0. */
	while (read(stop_fd, &byte, 1) < 0) {
		cpu_set_t set;

		if (!pid || kill(pid, 0) != 0) {
			pid = find_scenario();
			if (!pid) {
				usleep(1000);
				continue;
			}
		}
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		/* The sim runtime runs on the program's main thread, whose id is the pid. */
		if (sched_setaffinity(pid, sizeof(set), &set) == 0)
			moves++;
		cpu ^= 1;
		usleep(100);
	}
	if (write(moves_fd, &moves, sizeof(moves)) != sizeof(moves))
		_exit(1);
	_exit(0);
}

static void
migrator_start(struct migrator *migrator)
{
	int stop[2], moves[2];

	*migrator = (struct migrator){.pid = 0, .stop_fd = -1, .moves_fd = -1};
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return; /* one CPU: one stream, nothing to reorder */
	cr_assert_eq(pipe2(stop, O_NONBLOCK | O_CLOEXEC), 0);
	cr_assert_eq(pipe2(moves, O_CLOEXEC), 0);
	migrator->pid = fork();
	cr_assert_geq(migrator->pid, 0);
	if (migrator->pid == 0) {
		close(stop[1]);
		close(moves[0]);
		migrate(stop[0], moves[1]);
	}
	close(stop[0]);
	close(moves[1]);
	migrator->stop_fd = stop[1];
	migrator->moves_fd = moves[0];
}

/* Returns how many times it moved the scenario. */
static unsigned long
migrator_stop(struct migrator *migrator)
{
	unsigned long moves = 0;

	if (migrator->pid <= 0)
		return 0;
	close(migrator->stop_fd);
	if (read(migrator->moves_fd, &moves, sizeof(moves)) != sizeof(moves))
		moves = 0;
	close(migrator->moves_fd);
	waitpid(migrator->pid, NULL, 0);
	return moves;
}

/* ---- what the analyzer finds --------------------------------------------------------------- */

struct findings {
	size_t overruns;
	size_t inverted_ranges;
	size_t backwards;
};

static fsa_status
keep_loss(void *data, const struct fsa_loss *loss)
{
	struct findings *findings = data;

	if (loss->kind != FSA_LOSS_LOG_OVERRUN)
		return FSA_OK;
	findings->overruns++;
	if (loss->begin_ns != FSA_TIME_NONE && loss->end_ns != FSA_TIME_NONE &&
	    loss->begin_ns > loss->end_ns)
		findings->inverted_ranges++;
	return FSA_OK;
}

static fsa_status
keep_anomaly(void *data, const struct fsa_anomaly *anomaly)
{
	struct findings *findings = data;

	if (anomaly->kind == FSA_ANOM_TIMESTAMP_BACKWARDS ||
	    anomaly->kind == FSA_ANOM_GPU_TIMESTAMP_BACKWARDS)
		findings->backwards++;
	return FSA_OK;
}

/* ---- the test ------------------------------------------------------------------------------ */

static void
expect_own_timestamps(const struct fst_trace *trace, int recording)
{
	size_t shared = 0;

	for (size_t i = 1; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];

		if (event->ts_ns > trace->events[i - 1].ts_ns)
			continue;
		if (shared++ < 4)
			cr_log_error("recording %d: %s at %" PRId64 " after %s at %" PRId64,
				     recording, event->name, event->ts_ns,
				     trace->events[i - 1].name, trace->events[i - 1].ts_ns);
	}
	cr_expect_eq(shared, 0,
		     "recording %d: %zu of %zu events do not have a timestamp of their own",
		     recording, shared, trace->event_count);
}

static void
record_and_check(int recording)
{
	struct fsct_sandbox_options options = {
	    .args = (const char *const[]){"record", "-o", "trace", "--scale", SCALE, "log-overrun",
					  NULL},
	    .timeout_s = 200,
	};
	struct fsct_outcome outcome = {0};
	struct migrator migrator;
	struct fst_trace *trace = NULL;
	struct findings findings = {0};
	struct fsa_model_sink sink = {
	    .data = &findings, .loss = keep_loss, .anomaly = keep_anomaly};
	struct fsa_model *model = fsa_model_create(&sink);
	char *error = NULL, *path;
	unsigned long moves;
	size_t overruns;

	migrator_start(&migrator);
	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	moves = migrator_stop(&migrator);
	cr_assert_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);
	cr_assert_eq(trace->discarded_events, 0);
	expect_own_timestamps(trace, recording);

	cr_assert_eq(fsa_ingest_into_model(path, model, NULL, NULL, NULL, &error), FSA_OK, "%s",
		     error);
	cr_assert_eq(fsa_model_borrow_summary(model)->clock_mode, 0, "a sim-mode recording");
	overruns = fst_trace_count(trace, "fencescope_os:fence_log_overrun", NULL, NULL);
	cr_assert_gt(overruns, 0);
	fprintf(stderr, "recording %d: %zu events, %lu CPU moves, %zu of %zu overruns found\n",
		recording, trace->event_count, moves, findings.overruns, overruns);
	cr_expect_eq(findings.overruns, overruns,
		     "recording %d: %zu overruns found of %zu (LOG-17)", recording,
		     findings.overruns, overruns);
	cr_expect_eq(findings.inverted_ranges, 0,
		     "recording %d: %zu loss ranges end before they begin", recording,
		     findings.inverted_ranges);
	cr_expect_eq(findings.backwards, 0, "recording %d: %zu timestamps go backwards", recording,
		     findings.backwards);

	fsa_model_destroy(model);
	free(path);
	fst_trace_destroy(trace);
	fsct_outcome_clear(&outcome);
}

Test(sim_order, log_overrun_recordings_read_back_in_run_order_under_cpu_migration_log_17,
     .timeout = 400)
{
	for (int recording = 1; recording <= RECORDINGS; recording++)
		record_and_check(recording);
}
