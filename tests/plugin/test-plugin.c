/* SPDX-License-Identifier: MIT */
/*
 * sink.fencescope.report (analyzer/plugin) in the real babeltrace2 CLI, loaded with
 * --plugin-path from the build tree: it writes exactly what `fencescope report` writes for the
 * same trace and options, fails the graph (exit 1, the cause named) on a failed threshold or a
 * bad parameter, and writes to `path` when given.
 */
#define _GNU_SOURCE

#include <criterion/criterion.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lttng-harness.h"

extern char **environ;

#define TRACE(name) FSTP_TRACES "/" name

static char work[] = "/tmp/fstp-plugin-XXXXXX";

static void
work_create(void)
{
	cr_assert_not_null(mkdtemp(work));
}

static void
work_remove(void)
{
	fst_remove_tree(work);
}

TestSuite(plugin, .init = work_create, .fini = work_remove, .timeout = 60);

struct outcome {
	int exit_status;
	char *out, *err;
};

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long len;

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t) len + 1);
	cr_assert_not_null(text);
	cr_assert_eq(fread(text, 1, (size_t) len, f), (size_t) len);
	fclose(f);
	return text;
}

/*
 * The child's environment. In an ASan build, babeltrace2 (not built with ASan) must preload the
 * ASan runtime to load our plugin; leak detection stays off there (babeltrace2's own exit-time
 * allocations are not ours; the in-process tests check ours).
 */
static char **
child_environ(void)
{
#ifdef FSTP_PRELOAD
	static char *env[256];
	size_t n = 0;

	for (char **e = environ; *e && n < 253; e++) {
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0 && strncmp(*e, "ASAN_OPTIONS=", 13) != 0)
			env[n++] = *e;
	}
	env[n++] = (char *) "LD_PRELOAD=" FSTP_PRELOAD;
	env[n++] = (char *) "ASAN_OPTIONS=detect_leaks=0";
	env[n] = NULL;
	return env;
#else
	return environ;
#endif
}

/* Runs argv (argv[0] looked up in PATH), stdout and stderr kept. */
static void
run(const char *const *argv, struct outcome *outcome)
{
	char *out_path = NULL, *err_path = NULL;
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int status;

	cr_assert_geq(asprintf(&out_path, "%s/stdout", work), 0);
	cr_assert_geq(asprintf(&err_path, "%s/stderr", work), 0);
	cr_assert_eq(posix_spawn_file_actions_init(&actions), 0);
	cr_assert_eq(posix_spawn_file_actions_addopen(&actions, 1, out_path,
						      O_WRONLY | O_CREAT | O_TRUNC, 0600),
		     0);
	cr_assert_eq(posix_spawn_file_actions_addopen(&actions, 2, err_path,
						      O_WRONLY | O_CREAT | O_TRUNC, 0600),
		     0);
	cr_assert_eq(
	    posix_spawnp(&pid, argv[0], &actions, NULL, (char *const *) argv, child_environ()), 0,
	    "cannot run %s", argv[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	posix_spawn_file_actions_destroy(&actions);
	cr_assert(WIFEXITED(status), "%s killed by signal %d", argv[0], WTERMSIG(status));
	outcome->exit_status = WEXITSTATUS(status);
	outcome->out = slurp(out_path);
	outcome->err = slurp(err_path);
	free(out_path);
	free(err_path);
}

static void
outcome_clear(struct outcome *outcome)
{
	free(outcome->out);
	free(outcome->err);
}

Test(plugin, the_text_report_is_the_one_fencescope_report_writes)
{
	const char *const bt[] = {
	    "babeltrace2", "--plugin-path=" FSTP_PLUGIN_DIR, TRACE("frame-pipeline"),
	    "-c",          "sink.fencescope.report",         NULL};
	const char *const fs[] = {FSTP_FENCESCOPE, "report", TRACE("frame-pipeline"), NULL};
	struct outcome plugin, cli;

	run(bt, &plugin);
	run(fs, &cli);
	cr_expect_eq(plugin.exit_status, 0, "stderr: %s", plugin.err);
	cr_expect_eq(cli.exit_status, 0, "stderr: %s", cli.err);
	cr_expect_gt(strlen(cli.out), 1000);
	/* The same report, but for its first line: babeltrace2's sink is not told the trace's
	 * path, `fencescope report` names it ("fencescope report  TRACE", issue 16 §6). */
	cr_expect_str_eq(strchr(plugin.out, '\n'), strchr(cli.out, '\n'));
	cr_expect(strncmp(plugin.out, "fencescope report\n", 18) == 0, "%.40s", plugin.out);
	cr_expect(strncmp(cli.out, "fencescope report  /", 20) == 0, "%.40s", cli.out);
	outcome_clear(&plugin);
	outcome_clear(&cli);
}

Test(plugin, parameters_are_the_options_of_fencescope_report)
{
	const char *const bt[] = {"babeltrace2",
				  "--plugin-path=" FSTP_PLUGIN_DIR,
				  TRACE("log-overrun"),
				  "-c",
				  "sink.fencescope.report",
				  "-p",
				  "format=\"json\",sections=\"summary,losses\",top=3",
				  NULL};
	const char *const fs[] = {FSTP_FENCESCOPE,
				  "report",
				  TRACE("log-overrun"),
				  "--format",
				  "json",
				  "--sections",
				  "summary,losses",
				  "--top",
				  "3",
				  NULL};
	struct outcome plugin, cli;

	run(bt, &plugin);
	run(fs, &cli);
	cr_expect_eq(plugin.exit_status, 0, "stderr: %s", plugin.err);
	cr_expect_not_null(strstr(plugin.out, "\"schema_version\""), "%s", plugin.out);
	cr_expect_str_eq(plugin.out, cli.out);
	outcome_clear(&plugin);
	outcome_clear(&cli);
}

Test(plugin, a_failed_threshold_fails_the_graph_and_names_the_threshold)
{
	const char *const bt[] = {"babeltrace2",
				  "--plugin-path=" FSTP_PLUGIN_DIR,
				  TRACE("log-overrun"),
				  "-c",
				  "sink.fencescope.report",
				  "-p",
				  "fail-if=[\"lost(log)>0\"],format=\"csv\"",
				  NULL};
	struct outcome plugin;

	run(bt, &plugin);
	cr_expect_eq(plugin.exit_status, 1);
	cr_expect_not_null(strstr(plugin.err, "threshold failed: lost(log)>0"), "stderr: %s",
			   plugin.err);
	/* The report is still written before the failure. */
	cr_expect_gt(strlen(plugin.out), 0);
	outcome_clear(&plugin);
}

Test(plugin, a_bad_parameter_is_refused_with_its_name)
{
	const char *const bt[] = {"babeltrace2",
				  "--plugin-path=" FSTP_PLUGIN_DIR,
				  TRACE("frame-pipeline"),
				  "-c",
				  "sink.fencescope.report",
				  "-p",
				  "format=\"yaml\"",
				  NULL};
	struct outcome plugin;

	run(bt, &plugin);
	cr_expect_eq(plugin.exit_status, 1);
	cr_expect_not_null(strstr(plugin.err, "parameter \"format\""), "stderr: %s", plugin.err);
	cr_expect_str_empty(plugin.out);
	outcome_clear(&plugin);
}

Test(plugin, path_writes_the_report_to_a_file)
{
	char *path = NULL, *param = NULL, *written;
	struct outcome plugin;

	cr_assert_geq(asprintf(&path, "%s/report.json", work), 0);
	cr_assert_geq(asprintf(&param, "format=\"json\",path=\"%s\"", path), 0);
	{
		const char *const bt[] = {"babeltrace2",
					  "--plugin-path=" FSTP_PLUGIN_DIR,
					  TRACE("stress"),
					  "-c",
					  "sink.fencescope.report",
					  "-p",
					  param,
					  NULL};

		run(bt, &plugin);
	}
	cr_expect_eq(plugin.exit_status, 0, "stderr: %s", plugin.err);
	cr_expect_str_empty(plugin.out);
	written = slurp(path);
	cr_expect_not_null(strstr(written, "\"schema_version\""));
	free(written);
	free(path);
	free(param);
	outcome_clear(&plugin);
}

/* `wide=true` is `fencescope report --wide`: the same report, one line per table row. */
Test(plugin, wide_is_the_option_of_fencescope_report)
{
	const char *const bt[] = {"babeltrace2",
				  "--plugin-path=" FSTP_PLUGIN_DIR,
				  TRACE("frame-pipeline"),
				  "-c",
				  "sink.fencescope.report",
				  "-p",
				  "wide=true,sections=\"longest\"",
				  NULL};
	const char *const fs[] = {
	    FSTP_FENCESCOPE,         "report", "--wide", "--sections", "longest",
	    TRACE("frame-pipeline"), NULL};
	struct outcome plugin, cli;

	run(bt, &plugin);
	run(fs, &cli);
	cr_expect_eq(plugin.exit_status, 0, "stderr: %s", plugin.err);
	cr_expect_str_eq(strchr(plugin.out, '\n'), strchr(cli.out, '\n'));
	/* frame-pipeline's longest waits are ~200 columns wide: one line per row here. */
	cr_expect_not_null(strstr(plugin.out, " signalled at  op\n"), "%s", plugin.out);
	outcome_clear(&plugin);
	outcome_clear(&cli);
}
