/* SPDX-License-Identifier: MIT */
/*
 * A driver engineer's own program (README "Recording your own program"): the build tree is
 * installed with `meson install --destdir` into a temporary folder, docs/examples/
 * fence-ping-pong.c is compiled against that installed tree through its pkg-config file
 * (PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR pointing into it), and `fencescope record
 * --clock sim|realtime -- ./fence-ping-pong` records it in a sandbox (record-sandbox.h). The
 * trace must hold the program's twenty signals and nineteen GPU waits in that clock mode.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record-sandbox.h"
#include "trace-reader.h"

static char *root;    /* the temporary folder: destdir/ and the compiled program */
static char *program; /* root/fence-ping-pong, built against the installed tree */

/* Runs a shell command line; returns its output, fails the test unless it exits 0. */
static char *
run_shell(const char *command)
{
	char *out = NULL, *err = NULL;
	int status = -1;
	const char *argv[] = {"/bin/sh", "-c", command, NULL};

	cr_assert(
	    g_spawn_sync(NULL, (char **) argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
	cr_assert(g_spawn_check_wait_status(status, NULL), "%s failed:\n%s%s", command, out, err);
	g_free(err);
	return out;
}

static void
build_against_the_installed_tree(void)
{
	g_autofree char *install = NULL, *pc = NULL, *flags = NULL, *compile = NULL;
	g_autofree char *libdir = NULL;

	root = g_dir_make_tmp("fst-example-XXXXXX", NULL);
	cr_assert(root);
	install = g_strdup_printf("meson install -C '%s' --destdir '%s/destdir' --no-rebuild "
				  "--quiet",
				  FS_BUILD_DIR, root);
	g_free(run_shell(install));
	/* The folder of the installed fencescope-runtime.pc, wherever LIBDIR is. */
	pc = g_strdup_printf("find '%s/destdir' -name fencescope-runtime.pc -printf '%%h'", root);
	libdir = run_shell(pc);
	cr_assert(libdir[0], "meson install put no fencescope-runtime.pc under %s", root);
	g_free(pc);
	pc = g_strdup_printf("PKG_CONFIG_PATH='%s' PKG_CONFIG_SYSROOT_DIR='%s/destdir' "
			     "pkg-config --cflags --libs fencescope-runtime",
			     libdir, root);
	flags = g_strstrip(run_shell(pc));
	cr_assert(strstr(flags, "-lfencescope-runtime"), "%s", flags);
	cr_assert(strstr(flags, root), "the flags point into the installed tree: %s", flags);
	program = g_build_filename(root, "fence-ping-pong", NULL);
	/* The run-time path of the library is the installed one too (the library's folder is
	 * the .pc file's parent). */
	compile = g_strdup_printf("cc -std=c11 -Wall -Werror '%s/docs/examples/fence-ping-pong.c' "
				  "%s -Wl,-rpath,'%s/..' -o '%s'",
				  FS_SOURCE_DIR, flags, libdir, program);
	g_free(run_shell(compile));
}

static void
setup(void)
{
	build_against_the_installed_tree();
}

static void
teardown(void)
{
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", root);

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	g_free(root);
	g_free(program);
}

TestSuite(example, .init = setup, .fini = teardown, .timeout = 600);

static void
record_and_check(const char *clock, const char *label)
{
	const char *const args[] = {"record", "--clock", clock, "-o", "trace", "--", program, NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 120};
	struct fsct_outcome outcome;
	struct fst_trace *trace = NULL;
	char *error = NULL;
	char *path;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "sandbox: %s",
		     outcome.setup_error);
	cr_expect_eq(outcome.exit_status, 0, "stderr: %s", outcome.err);
	cr_expect(strstr(outcome.out, clock), "the program ran on the %s clock: %s", clock,
		  outcome.out);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "cannot read %s: %s", path, error);
	cr_expect_eq(fst_trace_count(trace, "fencescope_os:trace_info", "clock_mode", label), 1,
		     "trace_info says %s", label);
	cr_expect_eq(fst_trace_count(trace, "fencescope_umd:fence_signal_queued", NULL, NULL), 20);
	cr_expect_eq(fst_trace_count(trace, "fencescope_umd:fence_wait_queued", NULL, NULL), 19);
	cr_expect_eq(trace->discarded_events, 0);
	fst_trace_destroy(trace);
	free(path);
	fsct_outcome_clear(&outcome);
}

Test(example, own_program_built_with_pkg_config_records_on_the_sim_clock)
{
	record_and_check("sim", "SIM");
}

Test(example, own_program_built_with_pkg_config_records_on_the_realtime_clock)
{
	record_and_check("realtime", "REALTIME");
}
