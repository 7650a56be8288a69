/* SPDX-License-Identifier: MIT */
/*
 * `fencescope-view --live` following a real live session (issue 16 §4; suite ui, under Xvfb, and
 * it records: lttng-sessiond and lttng-relayd must be installed). `fencescope record --live`
 * runs in a sandbox of its own (tests/cli/record-sandbox.h); its traced program, a shell script,
 * starts the real viewer on the URL `record` printed, waits until the viewer is connected to the
 * relay daemon, then runs two scenarios 2 s apart, keeping a copy of the state the window writes
 * to FSV_TEST_STATE_FILE after each. While the session records the window follows it: the view's
 * end advances from the first copy to the second, and it follows the newest events; once the
 * session is destroyed the window holds the whole session, no longer live.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "record-sandbox.h"

#define TIMEOUT_S 120

TestSuite(viewer_live, .timeout = TIMEOUT_S + 180);

static GKeyFile *
load_state(const char *work_dir, const char *name)
{
	g_autofree char *path = g_build_filename(work_dir, name, NULL);
	GKeyFile *file = g_key_file_new();
	g_autoptr(GError) error = NULL;

	cr_assert(g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, &error),
		  "no window state %s: %s", name, error->message);
	return file;
}

/* The final state once the window says the session is over (up to a minute after `record`). */
static GKeyFile *
wait_final_state(const char *work_dir)
{
	g_autofree char *path = g_build_filename(work_dir, "state", NULL);

	for (int i = 0; i < 600; i++) {
		g_autoptr(GKeyFile) file = g_key_file_new();

		if (g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, NULL) &&
		    g_key_file_get_boolean(file, "state", "loaded", NULL) &&
		    !g_key_file_get_boolean(file, "live", "running", NULL))
			return g_steal_pointer(&file);
		g_usleep(100 * 1000);
	}
	return load_state(work_dir, "state");
}

static void
stop_viewer(const char *work_dir)
{
	g_autofree char *path = g_build_filename(work_dir, "viewer.pid", NULL);
	g_autofree char *text = NULL;
	pid_t pid;

	if (!g_file_get_contents(path, &text, NULL, NULL) || (pid = atoi(text)) <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 100 && kill(pid, 0) == 0; i++)
		g_usleep(50 * 1000);
	kill(pid, SIGKILL);
}

Test(viewer_live, window_follows_the_session_and_ends_static)
{
	const char *program =
	    "set -u; url=$(head -n 1 out); export FSV_TEST_STATE_FILE=\"$PWD/state\"; " FST_VIEWER
	    " --live \"$url\" > viewer.log 2>&1 & echo $! > viewer.pid; "
	    "i=0; until awk '$2 ~ /:14E0$/ && $4 == \"01\" {f = 1} END {exit !f}' "
	    "/proc/net/tcp /proc/net/tcp6 2> /dev/null; do "
	    "i=$((i + 1)); [ $i -gt 600 ] && exit 9; sleep 0.05; done; sleep 2; " FST_FENCESCOPE
	    " run --clock realtime producer-consumer > run-1.out && sleep 2.5 && "
	    "cp state state-1 && sleep 1 && " FST_FENCESCOPE
	    " run --clock realtime frame-pipeline > run-2.out && sleep 2.5 && "
	    "cp state state-2";
	const char *const args[] = {"record", "--live", "-o",    "trace", "--",
				    "sh",     "-c",     program, NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = TIMEOUT_S};
	struct fsct_outcome outcome;
	g_autoptr(GKeyFile) first = NULL;
	g_autoptr(GKeyFile) second = NULL;
	g_autoptr(GKeyFile) last = NULL;
	guint64 first_end, second_end;

	if (!g_getenv("DISPLAY"))
		cr_skip_test("no X display (the ui suite runs under xvfb-run)");
	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "sandbox: %s",
		     outcome.setup_error);
	last = wait_final_state(outcome.work_dir);
	stop_viewer(outcome.work_dir);
	cr_expect_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	first = load_state(outcome.work_dir, "state-1");
	second = load_state(outcome.work_dir, "state-2");
	cr_expect(g_key_file_get_boolean(first, "state", "loaded", NULL), "no trace shown live");
	cr_expect(g_key_file_get_boolean(first, "live", "running", NULL));
	cr_expect(g_key_file_get_boolean(second, "live", "running", NULL));
	cr_expect(g_key_file_get_boolean(second, "live", "following", NULL));
	first_end = g_key_file_get_uint64(first, "view", "end_ns", NULL);
	second_end = g_key_file_get_uint64(second, "view", "end_ns", NULL);
	/* The second run happened after the first copy: the timeline's end moved on with it. */
	cr_expect_gt(second_end, first_end, "the view's end did not advance");
	cr_expect(g_key_file_get_boolean(last, "state", "loaded", NULL));
	cr_expect_not(g_key_file_get_boolean(last, "live", "running", NULL),
		      "the window still follows a destroyed session");
	cr_expect_geq(g_key_file_get_uint64(last, "view", "end_ns", NULL), second_end);
	fsct_outcome_clear(&outcome);
}
