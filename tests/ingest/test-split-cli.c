/* SPDX-License-Identifier: MIT */
/*
 * The real `fencescope report` with one decoder process and with two (docs/analyzer.md "Two
 * decoders", FENCESCOPE_DECODERS): the same bytes on stdout, in text and JSON, on multi-stream
 * traces, one with every event of a stream tied in time with a twin in the other decoder's
 * stream (tests/ingest/split/make-split.py) and one with discarded events; and, when one of the
 * two decoders is killed mid-trace, a partial report (`PARTIAL:` under the title, exit 1)
 * with the cause, the same on every run, and no temporary file (the views) left behind, also
 * after a Ctrl-C. (A
 * report adds the tied twins up whatever their order: test-ingest.c checks that order event by
 * event.)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

struct split_run {
	int exit_status;
	char *out, *err; /* g_free */
};

static char *tmp_dir; /* TMPDIR of every run (the views): empty after each */

static void
make_tmp_dir(void)
{
	tmp_dir = g_dir_make_tmp("fsti-split-cli-XXXXXX", NULL);
	cr_assert_not_null(tmp_dir);
}

static void
remove_tmp_dir(void)
{
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp_dir);

	cr_assert_eq(system(cmd), 0);
	g_free(tmp_dir);
	tmp_dir = NULL;
}

TestSuite(split_cli, .init = make_tmp_dir, .fini = remove_tmp_dir, .timeout = 120);

/* A helper that kills itself after 50 events when its view holds fencescope_0 (CPU 0). */
static char *
killing_helper(void)
{
	char *path = g_build_filename(tmp_dir, "..", "fsti-split-cli-helper.sh", NULL);
	g_autofree char *text = g_strdup_printf(
	    "#!/bin/sh\n"
	    "for a; do trace=$a; done\n"
	    "if [ -e \"$trace/d0/fencescope_0\" ]; then\n"
	    "  FENCESCOPE_DECODE_KILL_AFTER=50; export FENCESCOPE_DECODE_KILL_AFTER\n"
	    "fi\n"
	    "exec '%s' \"$@\"\n",
	    FSTI_DECODE_HELPER);

	cr_assert(g_file_set_contents(path, text, -1, NULL));
	cr_assert_eq(chmod(path, 0755), 0);
	return path;
}

static void
report(const char *trace, const char *format, const char *decoders, const char *helper,
       struct split_run *run)
{
	const char *argv[] = {FS_FENCESCOPE, "report", trace, "--format", format, NULL};
	char **envp = g_environ_setenv(g_get_environ(), "TMPDIR", tmp_dir, TRUE);
	GError *error = NULL;
	int wait_status = 0;

	envp = g_environ_setenv(envp, "FENCESCOPE_DECODERS", decoders, TRUE);
	if (helper)
		envp = g_environ_setenv(envp, "FENCESCOPE_DECODE_HELPER", helper, TRUE);
	*run = (struct split_run){0};
	cr_assert(g_spawn_sync(NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &run->out,
			       &run->err, &wait_status, &error),
		  "cannot run %s: %s", FS_FENCESCOPE, error ? error->message : "");
	g_strfreev(envp);
	run->exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

static void
expect_tmp_dir_empty(void)
{
	GDir *dir = g_dir_open(tmp_dir, 0, NULL);
	const char *left = dir ? g_dir_read_name(dir) : NULL;

	cr_expect_null(left, "left behind in TMPDIR: %s", left);
	if (dir)
		g_dir_close(dir);
}

static void
expect_same_report(const char *trace)
{
	static const char *const formats[] = {"text", "json"};

	for (size_t f = 0; f < 2; f++) {
		struct split_run one, two;

		report(trace, formats[f], "1", NULL, &one);
		report(trace, formats[f], "2", NULL, &two);
		cr_assert_eq(one.exit_status, 0, "%s: %s", trace, one.err);
		cr_assert_eq(two.exit_status, 0, "%s: %s", trace, two.err);
		cr_assert_gt(strlen(one.out), 100);
		cr_expect_str_eq(two.out, one.out, "%s (%s): two decoders differ from one", trace,
				 formats[f]);
		cr_expect_str_eq(two.err, one.err);
		expect_tmp_dir_empty();
		g_free(one.out);
		g_free(one.err);
		g_free(two.out);
		g_free(two.err);
	}
}

Test(split_cli, ties_across_the_decoders_give_the_report_of_one_decoder)
{
	expect_same_report(FSTI_SPLIT "/ties-copy-first");
	expect_same_report(FSTI_SPLIT "/ties-copy-last");
}

Test(split_cli, discarded_events_give_the_report_of_one_decoder)
{
	expect_same_report(FSTI_SPLIT "/discards");
}

Test(split_cli, a_recorded_two_cpu_trace_gives_the_report_of_one_decoder)
{
	expect_same_report(FSTI_TRACES "/realtime-producer-consumer");
}

Test(split_cli, one_decoder_killed_mid_trace_gives_a_partial_report_with_a_stable_cause)
{
	g_autofree char *helper = killing_helper();
	struct split_run first, again;

	report(FSTI_TRACES "/realtime-producer-consumer", "text", "2", helper, &first);
	report(FSTI_TRACES "/realtime-producer-consumer", "text", "2", helper, &again);
	unlink(helper);
	cr_assert_eq(first.exit_status, 1, "%s", first.err);
	/* Under the title, where docs/report-schema.md puts it. */
	cr_assert(strstr(first.out, "\nPARTIAL: the trace is damaged after "), "%.200s", first.out);
	cr_expect(strstr(first.out, "the decoder was stopped by SIGKILL from outside"), "%.300s",
		  first.out);
	cr_expect_null(strstr(first.out, "fencescope-view"), "%.300s", first.out);
	cr_expect_str_eq(again.out, first.out, "the partial report changes from run to run");
	cr_expect_str_eq(again.err, first.err);
	expect_tmp_dir_empty();
	g_free(first.out);
	g_free(first.err);
	g_free(again.out);
	g_free(again.err);
}

Test(split_cli, ctrl_c_while_two_decoders_read_leaves_no_view_behind)
{
	g_autofree char *helper = g_build_filename(tmp_dir, "..", "fsti-split-cli-slow.sh", NULL);
	g_autofree char *text =
	    g_strdup_printf("#!/bin/sh\nsleep 3\nexec '%s' \"$@\"\n", FSTI_DECODE_HELPER);
	const char *argv[] = {FS_FENCESCOPE, "report", FSTI_TRACES "/realtime-producer-consumer",
			      NULL};
	char **envp = g_environ_setenv(g_get_environ(), "TMPDIR", tmp_dir, TRUE);
	GError *error = NULL;
	GPid pid;
	int wait_status = 0;
	bool has_views = false;

	cr_assert(g_file_set_contents(helper, text, -1, NULL));
	cr_assert_eq(chmod(helper, 0755), 0);
	envp = g_environ_setenv(envp, "FENCESCOPE_DECODERS", "2", TRUE);
	envp = g_environ_setenv(envp, "FENCESCOPE_DECODE_HELPER", helper, TRUE);
	cr_assert(g_spawn_async(NULL, (char **) argv, envp,
				G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
				    G_SPAWN_STDERR_TO_DEV_NULL,
				NULL, NULL, &pid, &error),
		  "%s", error ? error->message : "");
	g_strfreev(envp);
	/* The two views are made before the helpers start (which sleep 3 s here). */
	for (int i = 0; i < 200 && !has_views; i++) {
		GDir *dir = g_dir_open(tmp_dir, 0, NULL);

		has_views = dir && g_dir_read_name(dir) && g_dir_read_name(dir);
		if (dir)
			g_dir_close(dir);
		if (!has_views)
			g_usleep(10000);
	}
	cr_assert(has_views, "no view made in %s", tmp_dir);
	kill(pid, SIGINT);
	cr_assert_eq(waitpid(pid, &wait_status, 0), pid);
	cr_expect(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGINT);
	unlink(helper);
	expect_tmp_dir_empty();
}

/* A Ctrl-C while a view is being made, not only after: fencescope remembers each path of a view
 * before making it, so the signal handler finds all of them (it used to remember a path just
 * after making it, and a signal in between left the view in TMPDIR: seen under load in 2 of 5
 * runs of the test above). SIGINT goes out as soon as the first view's folder appears, then a few
 * microseconds later on each run, to land at every step of making the two views. */
Test(split_cli, ctrl_c_at_any_moment_of_making_the_views_leaves_tmpdir_clean)
{
	g_autofree char *helper = g_build_filename(tmp_dir, "..", "fsti-split-cli-slow2.sh", NULL);
	g_autofree char *text =
	    g_strdup_printf("#!/bin/sh\nsleep 1\nexec '%s' \"$@\"\n", FSTI_DECODE_HELPER);
	const char *argv[] = {FS_FENCESCOPE, "report", FSTI_TRACES "/realtime-producer-consumer",
			      NULL};
	char **envp = g_environ_setenv(g_get_environ(), "TMPDIR", tmp_dir, TRUE);
	size_t killed_while_making = 0;

	cr_assert(g_file_set_contents(helper, text, -1, NULL));
	cr_assert_eq(chmod(helper, 0755), 0);
	envp = g_environ_setenv(envp, "FENCESCOPE_DECODERS", "2", TRUE);
	envp = g_environ_setenv(envp, "FENCESCOPE_DECODE_HELPER", helper, TRUE);
	for (int run = 0; run < 40; run++) {
		GError *error = NULL;
		GPid pid;
		int wait_status = 0;
		bool has_view = false;

		cr_assert(g_spawn_async(NULL, (char **) argv, envp,
					G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
					    G_SPAWN_STDERR_TO_DEV_NULL,
					NULL, NULL, &pid, &error),
			  "%s", error ? error->message : "");
		/* No sleep: the first entry is the first view's folder, just made. */
		for (int i = 0; i < 2000000 && !has_view; i++) {
			GDir *dir = g_dir_open(tmp_dir, 0, NULL);

			has_view = dir && g_dir_read_name(dir);
			if (dir)
				g_dir_close(dir);
		}
		cr_assert(has_view, "run %d: no view made in %s", run, tmp_dir);
		if (run % 8)
			g_usleep((gulong) (run % 8) * 15);
		kill(pid, SIGINT);
		cr_assert_eq(waitpid(pid, &wait_status, 0), pid);
		cr_expect(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGINT,
			  "run %d: the report was not ended by SIGINT", run);
		killed_while_making += WIFSIGNALED(wait_status);
		expect_tmp_dir_empty();
		/* Whatever one run left must not hide the next run's view. */
		g_autofree char *clean = g_strdup_printf("rm -rf '%s'/*", tmp_dir);
		cr_assert_eq(system(clean), 0);
	}
	g_strfreev(envp);
	unlink(helper);
	cr_expect_gt(killed_while_making, 0);
}
