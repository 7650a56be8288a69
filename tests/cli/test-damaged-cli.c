/* SPDX-License-Identifier: MIT */
/*
 * The commands over a trace on which libbabeltrace2 itself crashes (a damaged copy of
 * traces/frame-pipeline, tests/common/damage.c): `report`, `export` and `render` each write what
 * was read before the damage, marked partial, say why on stderr in one line that is the same on
 * every run, exit 1, and leave no temporary file beside their outputs.
 */
#define _GNU_SOURCE

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "damage.h"

static char *work, *trace;

static void
make_crashing_copy(void)
{
	g_autofree char *cmd = NULL;
	g_autofree char *stream = NULL;

	work = g_dir_make_tmp("fst-damaged-cli-XXXXXX", NULL);
	cr_assert_not_null(work);
	trace = g_build_filename(work, "trace", NULL);
	cmd = g_strdup_printf("cp -r '%s/traces/frame-pipeline' '%s'", FST_SOURCE_ROOT, trace);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	stream = g_build_filename(trace, "ust", "uid", "0", "64-bit", "fencescope_0", NULL);
	cr_assert(fst_damage_until_babeltrace_crashes(trace, stream, 300),
		  "no damage of %s crashes babeltrace2", stream);
}

static void
remove_copy(void)
{
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", work);

	cr_expect_eq(system(cmd), 0);
	g_clear_pointer(&work, g_free);
	g_clear_pointer(&trace, g_free);
}

TestSuite(damaged_cli, .init = make_crashing_copy, .fini = remove_copy, .timeout = 120);

struct run {
	int status;
	char *out, *err;
};

static struct run
fencescope(const char *const *args)
{
	GPtrArray *argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	struct run r = {0};
	int wait_status = 0;

	g_ptr_array_add(argv, (char *) FST_FENCESCOPE);
	for (; *args; args++)
		g_ptr_array_add(argv, (char *) *args);
	g_ptr_array_add(argv, NULL);
	cr_assert(g_spawn_sync(NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
			       &r.out, &r.err, &wait_status, &error),
		  "%s", error ? error->message : "");
	r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
	g_ptr_array_free(argv, TRUE);
	return r;
}

static void
run_fini(struct run *r)
{
	g_free(r->out);
	g_free(r->err);
}

/* The one line that says why: the last line of stderr, without GLib's noise. */
static void
expect_crash_line(const struct run *r)
{
	cr_expect_not_null(strstr(r->err, "libbabeltrace2 crashed (SIG"), "stderr: %s", r->err);
	cr_expect_null(strstr(r->err, "CRITICAL"), "stderr: %s", r->err);
	cr_expect_eq(strchr(r->err, '\n'), r->err + strlen(r->err) - 1, "stderr: %s", r->err);
}

/* Only `names` (NULL-terminated) are in `dir`: no temporary file was left. */
static void
expect_only(const char *dir, const char *const *names)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	size_t count = 0, expected = 0;

	cr_assert_not_null(d);
	while ((name = g_dir_read_name(d))) {
		bool is_known = false;

		for (const char *const *n = names; *n; n++)
			is_known = is_known || strcmp(*n, name) == 0;
		cr_expect(is_known, "%s left in %s", name, dir);
		count++;
	}
	while (names[expected])
		expected++;
	cr_expect_eq(count, expected);
}

Test(damaged_cli, report_prints_a_partial_report_of_what_was_read_before_the_crash)
{
	const char *args[] = {"report", trace, NULL};
	struct run r = fencescope(args), again;

	cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
	cr_assert_not_null(strstr(r.out, "\nPARTIAL: "), "stdout:\n%s", r.out);
	cr_expect_not_null(strstr(r.out, "libbabeltrace2 crashed (SIG"), "stdout:\n%s", r.out);
	expect_crash_line(&r);
	again = fencescope(args);
	cr_expect_str_eq(again.out, r.out, "the partial report differs from run to run");
	cr_expect_str_eq(again.err, r.err);
	run_fini(&again);
	run_fini(&r);
}

Test(damaged_cli, report_json_says_partial_with_the_cause)
{
	const char *args[] = {"report", trace, "--format", "json", NULL};
	struct run r = fencescope(args);

	cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.out, "\"is_partial\" : true"), "stdout:\n%.400s", r.out);
	cr_expect_not_null(strstr(r.out, "libbabeltrace2 crashed (SIG"), "stdout:\n%.400s", r.out);
	run_fini(&r);
}

Test(damaged_cli, export_writes_both_outputs_marked_partial_and_no_temporary_file)
{
	g_autofree char *out = g_build_filename(work, "out", NULL);
	g_autofree char *db = g_build_filename(out, "a.db", NULL);
	g_autofree char *json = g_build_filename(out, "a.json", NULL);
	const char *args[] = {"export", trace, "--sqlite", db, "--perfetto", json, NULL};
	const char *const names[] = {"a.db", "a.json", NULL};
	g_autofree char *text = NULL;
	struct run r;

	cr_assert_eq(g_mkdir(out, 0700), 0);
	r = fencescope(args);
	cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
	expect_crash_line(&r);
	expect_only(out, names);
	cr_assert(g_file_get_contents(json, &text, NULL, NULL));
	cr_expect_not_null(strstr(text, "libbabeltrace2 crashed (SIG"), "%.400s", text);
	run_fini(&r);
}

Test(damaged_cli, render_draws_what_was_read_and_leaves_no_temporary_file)
{
	g_autofree char *out = g_build_filename(work, "out", NULL);
	g_autofree char *png = g_build_filename(out, "a.png", NULL);
	const char *args[] = {"render", trace, "-o", png, NULL};
	const char *const names[] = {"a.png", NULL};
	struct run r;

	cr_assert_eq(g_mkdir(out, 0700), 0);
	r = fencescope(args);
	cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.err, "libbabeltrace2 crashed (SIG"), "stderr: %s", r.err);
	expect_only(out, names);
	run_fini(&r);
}

/* traces/ holds several recordings (five, when this was written): merged, they gave 1212
 * false anomalies. */
TestSuite(recordings_cli, .timeout = 120);

Test(recordings_cli, report_refuses_a_folder_of_several_recordings_and_lists_them)
{
	g_autofree char *traces = g_build_filename(FST_SOURCE_ROOT, "traces", NULL);
	const char *args[] = {"report", traces, NULL};
	struct run r = fencescope(args);

	cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
	cr_expect_str_eq(r.out, "");
	cr_expect_not_null(strstr(r.err, " recordings, and fencescope never merges"), "stderr: %s",
			   r.err);
	cr_expect_not_null(strstr(r.err, "/traces/log-overrun;"), "stderr: %s", r.err);
	cr_expect_not_null(strstr(r.err, "--recording NAME"), "stderr: %s", r.err);
	run_fini(&r);
}

Test(recordings_cli, report_export_and_render_read_the_one_recording_picked)
{
	g_autofree char *traces = g_build_filename(FST_SOURCE_ROOT, "traces", NULL);
	g_autofree char *golden = g_build_filename(traces, "stress", "expected.txt", NULL);
	g_autofree char *out = g_dir_make_tmp("fst-recording-XXXXXX", NULL);
	g_autofree char *db = g_build_filename(out, "a.db", NULL);
	g_autofree char *png = g_build_filename(out, "a.png", NULL);
	g_autofree char *expected = NULL;
	const char *report[] = {"report", traces, "--recording", "stress", NULL};
	const char *export[] = {"export", traces, "--recording", "stress", "--sqlite", db, NULL};
	const char *render[] = {"render", traces, "--recording", "stress", "-o", png, NULL};
	const char *unknown[] = {"report", traces, "--recording", "no-such", NULL};
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", out);
	struct run r;

	cr_assert(g_file_get_contents(golden, &expected, NULL, NULL));
	r = fencescope(report);
	cr_expect_eq(r.status, 0, "stderr: %s", r.err);
	/* The golden's first line names traces/stress; this one names the recording picked. */
	cr_expect(g_str_has_prefix(r.out, "fencescope report  "), "%.60s", r.out);
	cr_expect_not_null(strstr(r.out, "/traces/stress\n"), "%.200s", r.out);
	cr_expect_str_eq(strchr(r.out, '\n'), strchr(expected, '\n'));
	run_fini(&r);
	r = fencescope(export);
	cr_expect_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect(g_file_test(db, G_FILE_TEST_IS_REGULAR));
	run_fini(&r);
	r = fencescope(render);
	cr_expect_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect(g_file_test(png, G_FILE_TEST_IS_REGULAR));
	run_fini(&r);
	r = fencescope(unknown);
	cr_expect_eq(r.status, 1, "stderr: %s", r.err);
	cr_expect_not_null(strstr(r.err, "no recording is called \"no-such\""), "stderr: %s",
			   r.err);
	run_fini(&r);
	cr_expect_eq(system(rm), 0);
}
