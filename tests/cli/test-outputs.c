/* SPDX-License-Identifier: MIT */
/*
 * Every output file of fencescope (`report -o`, `export --sqlite/--perfetto`, `render -o`, the
 * Babeltrace plugin's path) is complete or absent: on a full file system (a small tmpfs in a
 * private mount namespace) and on Ctrl-C no truncated file and no temporary file remains, and
 * the exit status (4) says the output failed, not the trace. Also: two names of one file, and
 * --force next to a FIFO. Real commands over traces/, real tmpfs; needs root (suite e2e).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *base; /* the test's own folder; the outputs go to base/out */
static char *out_dir;

static void
setup(void)
{
	base = g_dir_make_tmp("fst-outputs-XXXXXX", NULL);
	cr_assert(base);
	out_dir = g_build_filename(base, "out", NULL);
	cr_assert(g_mkdir(out_dir, 0755) == 0);
}

static void
teardown(void)
{
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", base);

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", base);
	g_free(base);
	g_free(out_dir);
}

TestSuite(outputs, .init = setup, .fini = teardown, .timeout = 120);

struct outcome {
	int status;    /* exit status, or 128 + the signal that ended it */
	char *err;     /* what it printed on stderr */
	char *listing; /* the names in out_dir afterwards, one a line, sorted */
};

static void
outcome_clear(struct outcome *o)
{
	g_free(o->err);
	g_free(o->listing);
}

static bool
has_temporary(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		if (strstr(e->d_name, ".tmp-"))
			found = true;
	if (d)
		closedir(d);
	return found;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static char *
list_dir(const char *dir)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	GString *text = g_string_new(NULL);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			g_ptr_array_add(names, g_strdup(e->d_name));
	if (d)
		closedir(d);
	g_ptr_array_sort(names, compare_names);
	for (guint i = 0; i < names->len; i++)
		g_string_append_printf(text, "%s\n", (char *) names->pdata[i]);
	g_ptr_array_unref(names);
	return g_string_free(text, FALSE);
}

/*
 * Runs fencescope ARGV in out_dir. With TMPFS_SIZE, out_dir is first a tmpfs of that size in a
 * private mount namespace (seen only by the command). With is_interrupted, SIGINT is sent as
 * soon as out_dir holds a temporary file (or after 20 s).
 */
static struct outcome
run(const char *tmpfs_size, bool is_interrupted, const char *const *argv)
{
	g_autofree char *err_path = g_build_filename(base, "stderr", NULL);
	g_autofree char *result_path = g_build_filename(base, "result", NULL);
	struct outcome o = {0};
	int wait_status;
	pid_t keeper;

	keeper = fork();
	cr_assert(keeper >= 0);
	if (keeper == 0) {
		/* The keeper: owns the namespace, runs the command, lists what is left. */
		int status = -1, fd;
		pid_t child;
		FILE *result;

		if (tmpfs_size) {
			char options[64];

			snprintf(options, sizeof(options), "size=%s", tmpfs_size);
			if (unshare(CLONE_NEWNS) != 0 ||
			    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
			    mount("tmpfs", out_dir, "tmpfs", 0, options) != 0) {
				fprintf(stderr, "cannot mount a tmpfs: %s\n", strerror(errno));
				_exit(99);
			}
		}
		child = fork();
		if (child == 0) {
			fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || dup2(fd, STDERR_FILENO) < 0 || chdir(out_dir) != 0)
				_exit(98);
			execv(FS_FENCESCOPE, (char *const *) argv);
			_exit(97);
		}
		if (is_interrupted) {
			struct timespec ms = {0, 1000000};

			for (int i = 0; i < 20000 && !has_temporary(out_dir); i++) {
				if (waitpid(child, &status, WNOHANG) == child)
					break;
				nanosleep(&ms, NULL);
			}
			kill(child, SIGINT);
		}
		if (status == -1)
			waitpid(child, &status, 0);
		result = fopen(result_path, "w");
		if (!result)
			_exit(96);
		fprintf(result, "%d\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		char *listing = list_dir(out_dir);

		fputs(listing, result);
		fclose(result);
		_exit(0);
	}
	cr_assert(waitpid(keeper, &wait_status, 0) == keeper);
	cr_assert(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0, "the keeper failed (%d)",
		  wait_status);
	g_autofree char *result = NULL;
	cr_assert(g_file_get_contents(result_path, &result, NULL, NULL));
	cr_assert(g_file_get_contents(err_path, &o.err, NULL, NULL));
	char *newline = strchr(result, '\n');
	cr_assert(newline);
	o.status = atoi(result);
	o.listing = g_strdup(newline + 1);
	return o;
}

#define TRACE(name) FS_TRACES "/" name

Test(outputs, export_perfetto_on_a_full_disk_exits_4_naming_the_output_and_leaves_nothing)
{
	const char *argv[] = {"fencescope", "export", TRACE("frame-pipeline"),
			      "--perfetto", "a.json", NULL};
	struct outcome o = run("64k", false, argv);

	cr_expect_eq(o.status, 4, "exit %d: %s", o.status, o.err);
	cr_expect(strstr(o.err, "a.json"), "names the output: %s", o.err);
	cr_expect(!strstr(o.err, "cannot read"), "does not blame the trace: %s", o.err);
	cr_expect_str_eq(o.listing, "", "nothing is left: %s", o.listing);
	outcome_clear(&o);
}

Test(outputs, export_sqlite_on_a_full_disk_exits_4_and_leaves_nothing)
{
	const char *argv[] = {"fencescope", "export", TRACE("frame-pipeline"),
			      "--sqlite",   "a.db",   NULL};
	struct outcome o = run("64k", false, argv);

	cr_expect_eq(o.status, 4, "exit %d: %s", o.status, o.err);
	cr_expect(strstr(o.err, "a.db"), "names the output: %s", o.err);
	cr_expect_str_eq(o.listing, "", "nothing is left: %s", o.listing);
	outcome_clear(&o);
}

Test(outputs, report_on_a_full_disk_exits_4_and_leaves_nothing)
{
	const char *argv[] = {"fencescope", "report", TRACE("stress"), "--format",
			      "json",       "-o",     "r.json",        NULL};
	struct outcome o = run("16k", false, argv);

	cr_expect_eq(o.status, 4, "exit %d: %s", o.status, o.err);
	cr_expect(strstr(o.err, "r.json"), "names the output: %s", o.err);
	cr_expect_str_eq(o.listing, "", "nothing is left: %s", o.listing);
	outcome_clear(&o);
}

Test(outputs, render_on_a_full_disk_exits_4_and_leaves_nothing)
{
	const char *argv[] = {"fencescope", "render", TRACE("stress"), "-o", "r.png", NULL};
	struct outcome o = run("16k", false, argv);

	cr_expect_eq(o.status, 4, "exit %d: %s", o.status, o.err);
	cr_expect(strstr(o.err, "r.png"), "names the output: %s", o.err);
	cr_expect_str_eq(o.listing, "", "nothing is left: %s", o.listing);
	outcome_clear(&o);
}

Test(outputs, plugin_on_a_full_disk_fails_and_leaves_nothing)
{
	g_autofree char *path_param = g_strdup_printf("path=\"%s/r.txt\"", out_dir);
	g_autofree char *cmd = g_strdup_printf(
	    "unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=8k tmpfs %s && "
	    "babeltrace2 --plugin-path=%s %s -c sink.fencescope.report -p '\\''%s'\\'' "
	    "2>/dev/null; echo $? > %s/rc; ls -A %s > %s/listing'",
	    out_dir, FS_PLUGIN_DIR, TRACE("stress"), path_param, base, out_dir, base);
	g_autofree char *rc = NULL, *listing = NULL, *rc_path = g_build_filename(base, "rc", NULL),
			*listing_path = g_build_filename(base, "listing", NULL);

	cr_assert(system(cmd) == 0, "%s", cmd);
	cr_assert(g_file_get_contents(rc_path, &rc, NULL, NULL));
	cr_assert(g_file_get_contents(listing_path, &listing, NULL, NULL));
	cr_expect_neq(atoi(rc), 0, "babeltrace2 fails");
	cr_expect_str_eq(listing, "", "nothing is left: %s", listing);
}

Test(outputs, ctrl_c_during_an_export_leaves_no_file_and_ends_by_sigint)
{
	const char *argv[] = {"fencescope", "export",     TRACE("stress"), "--sqlite",
			      "a.db",       "--perfetto", "a.json",        NULL};
	struct outcome o = run(NULL, true, argv);

	cr_expect_eq(o.status, 128 + SIGINT, "exit %d: %s", o.status, o.err);
	cr_expect_str_eq(o.listing, "", "nothing is left: %s", o.listing);
	outcome_clear(&o);
}

Test(outputs, ctrl_c_during_a_report_leaves_no_file_and_ends_by_sigint)
{
	const char *argv[] = {"fencescope", "report", TRACE("stress"), "-o", "r.txt", NULL};
	struct outcome o = run(NULL, true, argv);

	cr_expect_eq(o.status, 128 + SIGINT, "exit %d: %s", o.status, o.err);
	cr_expect_str_eq(o.listing, "", "nothing is left: %s", o.listing);
	outcome_clear(&o);
}

Test(outputs, ctrl_c_during_a_render_leaves_no_file_and_ends_by_sigint)
{
	const char *argv[] = {"fencescope", "render", TRACE("stress"), "-o", "r.svg", NULL};
	struct outcome o = run(NULL, true, argv);

	cr_expect_eq(o.status, 128 + SIGINT, "exit %d: %s", o.status, o.err);
	cr_expect_str_eq(o.listing, "", "nothing is left: %s", o.listing);
	outcome_clear(&o);
}

Test(outputs, sqlite_and_perfetto_under_two_names_of_one_file_are_refused)
{
	g_autofree char *link = g_build_filename(out_dir, "link.db", NULL);
	const char *same[] = {"fencescope", "export",  TRACE("frame-pipeline"),
			      "--sqlite",   "a.db",    "--perfetto",
			      "./a.db",     "--force", NULL};
	struct outcome o = run(NULL, false, same);

	cr_expect_eq(o.status, 2, "exit %d: %s", o.status, o.err);
	cr_expect_str_eq(o.listing, "", "nothing written: %s", o.listing);
	outcome_clear(&o);

	/* An existing file and a symbolic link to it. */
	const char *first[] = {"fencescope", "export", TRACE("frame-pipeline"),
			       "--sqlite",   "a.db",   NULL};
	o = run(NULL, false, first);
	cr_assert_eq(o.status, 0, "%s", o.err);
	outcome_clear(&o);
	cr_assert(symlink("a.db", link) == 0);
	const char *linked[] = {"fencescope", "export",  TRACE("frame-pipeline"),
				"--sqlite",   "a.db",    "--perfetto",
				"link.db",    "--force", NULL};
	o = run(NULL, false, linked);
	cr_expect_eq(o.status, 2, "exit %d: %s", o.status, o.err);
	cr_expect_str_eq(o.listing, "a.db\nlink.db\n", "%s", o.listing);
	outcome_clear(&o);
	g_autofree char *head = NULL;
	g_autofree char *db = g_build_filename(out_dir, "a.db", NULL);
	cr_assert(g_file_get_contents(db, &head, NULL, NULL));
	cr_expect(g_str_has_prefix(head, "SQLite format 3"), "a.db still holds the database");
}

Test(outputs, force_never_replaces_a_fifo_a_device_or_a_folder)
{
	g_autofree char *fifo = g_build_filename(out_dir, "fifo.json", NULL);
	g_autofree char *dir = g_build_filename(out_dir, "dir.json", NULL);
	g_autofree char *dev = g_build_filename(out_dir, "null.json", NULL);
	struct stat st;

	cr_assert(mkfifo(fifo, 0644) == 0);
	cr_assert(g_mkdir(dir, 0755) == 0);
	cr_assert(mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0);
	const char *names[] = {"fifo.json", "dir.json", "null.json"};
	for (size_t i = 0; i < 3; i++) {
		const char *argv[] = {"fencescope", "export", TRACE("frame-pipeline"),
				      "--perfetto", names[i], "--force",
				      NULL};
		struct outcome o = run(NULL, false, argv);

		cr_expect_eq(o.status, 4, "%s: exit %d: %s", names[i], o.status, o.err);
		cr_expect(strstr(o.err, "regular file"), "%s", o.err);
		cr_expect_str_eq(o.listing, "dir.json\nfifo.json\nnull.json\n", "%s", o.listing);
		outcome_clear(&o);
	}
	cr_expect(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	cr_expect(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
	cr_expect(stat(dev, &st) == 0 && S_ISCHR(st.st_mode));
}

Test(outputs, an_output_in_a_missing_folder_fails_before_the_trace_is_read)
{
	/* The trace does not exist either: the output must be the one named. */
	const char *render[] = {"fencescope", "render",         "/nonexistent/trace",
				"-o",         "/missing/x.png", NULL};
	const char *report[] = {"fencescope", "report",         "/nonexistent/trace",
				"-o",         "/missing/x.txt", NULL};
	const char *export[] = {"fencescope", "export",        "/nonexistent/trace",
				"--sqlite",   "/missing/x.db", NULL};
	const char *const *commands[] = {render, report, export};

	for (size_t i = 0; i < 3; i++) {
		struct outcome o = run(NULL, false, commands[i]);

		cr_expect_eq(o.status, 4, "%s: exit %d: %s", commands[i][1], o.status, o.err);
		cr_expect(strstr(o.err, "/missing/x."), "names the output: %s", o.err);
		cr_expect(!strstr(o.err, "/nonexistent/trace"), "not the trace: %s", o.err);
		outcome_clear(&o);
	}
}

Test(outputs, report_to_dev_null_still_works)
{
	const char *argv[] = {"fencescope", "report",    TRACE("frame-pipeline"),
			      "-o",         "/dev/null", NULL};
	struct outcome o = run(NULL, false, argv);

	cr_expect_eq(o.status, 0, "%s", o.err);
	outcome_clear(&o);
}

/* Regression: `run --json` printed the scenario's name between quotes as it was, so a name
 * with a quote or a control character made the line invalid JSON. */
Test(outputs, run_json_escapes_the_scenario_name)
{
	g_autofree char *scenario = g_build_filename(base, "odd.json", NULL);
	g_autofree char *text = NULL, *out = NULL, *err = NULL;
	const char *check[] = {"python3", "-c",
			       "import json, sys; print(json.load(sys.stdin)['scenario'] == "
			       "'odd \"name\"\\x1f\\\\')",
			       NULL};
	int status = -1;

	cr_assert(g_file_get_contents(FS_SOURCE_DIR "/docs/examples/producer-consumer.json", &text,
				      NULL, NULL));
	/* The file's name member, replaced by one that needs escaping. */
	char *at = strstr(text, "\"producer-consumer-file\"");
	cr_assert(at);
	*at = '\0';
	g_autofree char *odd = g_strdup_printf("%s\"odd \\\"name\\\"\\u001f\\\\\"%s", text,
					       at + strlen("\"producer-consumer-file\""));
	cr_assert(g_file_set_contents(scenario, odd, -1, NULL));

	const char *run_argv[] = {FS_FENCESCOPE, "run", "--json", scenario, NULL};
	cr_assert(
	    g_spawn_sync(NULL, (char **) run_argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
	cr_assert(g_spawn_check_wait_status(status, NULL), "run failed: %s", err);
	g_free(err);
	err = NULL;
	GPid pid;
	int in_fd, out_fd;
	cr_assert(g_spawn_async_with_pipes(NULL, (char **) check, NULL,
					   G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL,
					   NULL, &pid, &in_fd, &out_fd, NULL, NULL));
	cr_assert(write(in_fd, out, strlen(out)) == (ssize_t) strlen(out));
	close(in_fd);
	FILE *f = fdopen(out_fd, "r");
	char line[64] = "";
	cr_assert(fgets(line, sizeof(line), f) || true);
	fclose(f);
	waitpid(pid, &status, 0);
	g_spawn_close_pid(pid);
	cr_expect_str_eq(line, "True\n", "python3 read %s from: %s", line, out);
}

/* The version printed (and written into trace_info and the exports) is project(version:). */
Test(outputs, version_is_the_meson_project_version)
{
	const char *argv[] = {FS_FENCESCOPE, "--version", NULL};
	g_autofree char *out = NULL, *err = NULL, *expected = NULL;
	int status = -1;

	cr_assert(
	    g_spawn_sync(NULL, (char **) argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
	cr_assert(g_spawn_check_wait_status(status, NULL), "--version failed: %s", err);
	expected = g_strdup_printf("fencescope %s (trace format ", FS_PROJECT_VERSION);
	cr_expect(g_str_has_prefix(out, expected), "expected \"%s...\", got \"%s\"", expected, out);
}
