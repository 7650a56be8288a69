/* SPDX-License-Identifier: MIT */
/*
 * The real `fencescope` over the damaged traces of tests/ingest/damaged/ (make-damaged.py says
 * how each was made): the ways a trace gets damaged that made libbabeltrace2 2.0.4 abort or crash
 * inside fencescope (issue 10, section 4), and every input the fuzzer (tests/fuzz) found to break
 * a tool, kept as a small trace. Whatever libbabeltrace2 does with them, `fencescope report` must
 * end by itself with either a partial report (a `PARTIAL:` line first, one line on stderr, exit
 * 1) or a one-line error (nothing on stdout, exit 1) — the same cause on every run, and no
 * temporary file left behind; `export` and `render` must end by themselves too.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#define DAMAGED(name) FSTI_DAMAGED "/" name

struct damaged_run {
	int exit_status; /* -1 when it did not end by itself (a signal: a crash) */
	int signal;
	char *out, *err; /* g_free */
};

static char *tmp_dir; /* TMPDIR of every run: must be empty after each */

static void
make_tmp_dir(void)
{
	tmp_dir = g_dir_make_tmp("fsti-damaged-XXXXXX", NULL);
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

TestSuite(damaged_cli, .init = make_tmp_dir, .fini = remove_tmp_dir, .timeout = 180);

static void
run_fencescope(const char *const *args, struct damaged_run *run)
{
	GPtrArray *argv = g_ptr_array_new();
	char **envp = g_environ_setenv(g_get_environ(), "TMPDIR", tmp_dir, TRUE);

	/* A decoder that spins is cut after 3 s, not the 60 s a user gets. */
	envp = g_environ_setenv(envp, "FENCESCOPE_DECODE_TIMEOUT", "3", TRUE);
	GError *error = NULL;
	int wait_status = 0;

	g_ptr_array_add(argv, (gpointer) FS_FENCESCOPE);
	for (size_t i = 0; args[i]; i++)
		g_ptr_array_add(argv, (gpointer) args[i]);
	g_ptr_array_add(argv, NULL);
	*run = (struct damaged_run){0};
	cr_assert(g_spawn_sync(NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
			       &run->out, &run->err, &wait_status, &error),
		  "cannot run %s: %s", FS_FENCESCOPE, error ? error->message : "");
	g_ptr_array_free(argv, TRUE);
	g_strfreev(envp);
	run->exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
	run->signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
	/* A sanitizer report in the child reaches the test log (and the leak check). */
	if (run->err && run->err[0])
		fprintf(stderr, "%s", run->err);
}

static void
damaged_run_clear(struct damaged_run *run)
{
	g_free(run->out);
	g_free(run->err);
	*run = (struct damaged_run){0};
}

static bool
is_one_line(const char *text)
{
	const char *newline = strchr(text, '\n');

	return text[0] && newline && newline[1] == '\0';
}

/* docs/report-schema.md: a damaged trace's text report starts with a `PARTIAL:` line (after
 * the report's title line). */
static bool
is_partial_text(const char *out)
{
	/* "fencescope report  TRACE" */
	if (g_str_has_prefix(out, "fencescope report") && strchr(out, '\n'))
		out = strchr(out, '\n') + 1;
	return g_str_has_prefix(out, "PARTIAL: ");
}

static void
assert_tmp_dir_empty(const char *what)
{
	GDir *dir = g_dir_open(tmp_dir, 0, NULL);
	const char *left;

	cr_assert_not_null(dir);
	left = g_dir_read_name(dir);
	cr_expect_null(left, "%s left %s/%s behind", what, tmp_dir, left ? left : "");
	g_dir_close(dir);
}

/* One `fencescope report` run over TRACE in FORMAT: it ended by itself with a partial report or
 * a one-line error. Returns the run for the caller to compare. */
static void
report_once(const char *trace, const char *format, struct damaged_run *run)
{
	const char *args[] = {"report", "--format", format, trace, NULL};

	run_fencescope(args, run);
	cr_assert_neq(run->exit_status, -1, "report --format %s %s was killed by signal %d: %s",
		      format, trace, run->signal, run->err);
	cr_assert_eq(run->exit_status, 1, "report --format %s %s exited %d (stderr: %s)", format,
		     trace, run->exit_status, run->err);
	cr_assert(is_one_line(run->err), "report %s: not one line on stderr: '%s'", trace,
		  run->err);
	cr_assert(g_str_has_prefix(run->err, "fencescope report: "), "report %s: '%s'", trace,
		  run->err);
	if (!run->out[0])
		return; /* a clean one-line error, no report */
	if (strcmp(format, "text") == 0) {
		cr_assert(is_partial_text(run->out),
			  "report %s: a report after an error must start with PARTIAL: '%.200s'",
			  trace, run->out);
	} else {
		g_autoptr(JsonParser) parser = json_parser_new();
		JsonObject *root, *summary, *trace_table;

		cr_assert(json_parser_load_from_data(parser, run->out, -1, NULL),
			  "report %s: the JSON report does not parse", trace);
		root = json_node_get_object(json_parser_get_root(parser));
		cr_assert_not_null(root);
		summary = json_object_get_object_member(root, "summary");
		cr_assert_not_null(summary, "report %s: no summary", trace);
		trace_table = json_object_get_object_member(summary, "trace");
		cr_assert_not_null(trace_table, "report %s: no summary.trace", trace);
		cr_assert(json_object_get_boolean_member(trace_table, "is_partial"),
			  "report %s: is_partial is not true", trace);
		cr_assert_null(
		    strchr(json_object_get_string_member(trace_table, "partial_reason"), '\n'));
	}
}

/* `fencescope report` twice in text and once in JSON: a clean outcome, the same both times. */
static void
assert_report_ends_cleanly(const char *trace)
{
	struct damaged_run first, second, json;

	report_once(trace, "text", &first);
	assert_tmp_dir_empty("report");
	report_once(trace, "text", &second);
	cr_expect_str_eq(second.err, first.err, "the cause differs from run to run");
	cr_expect_str_eq(second.out, first.out, "the partial report differs from run to run");
	report_once(trace, "json", &json);
	assert_tmp_dir_empty("report --format json");
	damaged_run_clear(&first);
	damaged_run_clear(&second);
	damaged_run_clear(&json);
}

/* `fencescope export` and `render` end by themselves too (their messages are their own). */
static void
assert_other_tools_end(const char *trace)
{
	g_autofree char *perfetto = g_build_filename(tmp_dir, "out", "x.json", NULL);
	g_autofree char *png = g_build_filename(tmp_dir, "out", "x.png", NULL);
	g_autofree char *out_dir = g_build_filename(tmp_dir, "out", NULL);
	const char *export_args[] = {"export", "--perfetto", perfetto, trace, NULL};
	const char *render_args[] = {"render", "-o", png, trace, NULL};
	struct damaged_run run;

	cr_assert_eq(g_mkdir(out_dir, 0700), 0);
	run_fencescope(export_args, &run);
	cr_expect_neq(run.exit_status, -1, "export %s was killed by signal %d", trace, run.signal);
	damaged_run_clear(&run);
	run_fencescope(render_args, &run);
	cr_expect_neq(run.exit_status, -1, "render %s was killed by signal %d", trace, run.signal);
	damaged_run_clear(&run);
	g_unlink(perfetto);
	g_unlink(png);
	cr_assert_eq(g_rmdir(out_dir), 0, "export or render left files in %s", out_dir);
	assert_tmp_dir_empty("export and render");
}

static void
assert_tools_end_cleanly(const char *trace)
{
	assert_report_ends_cleanly(trace);
	assert_other_tools_end(trace);
}

/* A copy of the stray-notes-txt trace without its notes.txt, in a folder of its own. */
static char *
copy_without_notes(void)
{
	const char *files[] = {"metadata", "fencescope_0", "fencescope_1"};
	char *copy = g_dir_make_tmp("fsti-clean-XXXXXX", NULL);

	cr_assert_not_null(copy);
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *from =
		    g_build_filename(DAMAGED("stray-notes-txt"), files[i], NULL);
		g_autofree char *to = g_build_filename(copy, files[i], NULL);
		g_autofree char *bytes = NULL;
		gsize len = 0;

		cr_assert(g_file_get_contents(from, &bytes, &len, NULL), "%s", from);
		cr_assert(g_file_set_contents(to, bytes, (gssize) len, NULL), "%s", to);
	}
	return copy;
}

/* A stray file is skipped: the whole report (the same as without the file), exit 0, and one
 * note on stderr naming it. */
Test(damaged_cli, a_stray_notes_txt_beside_the_streams_is_skipped_with_a_note)
{
	const char *args[] = {"report", DAMAGED("stray-notes-txt"), NULL};
	g_autofree char *clean = copy_without_notes();
	const char *clean_args[] = {"report", clean, NULL};
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", clean);
	struct damaged_run run, without;

	run_fencescope(args, &run);
	run_fencescope(clean_args, &without);
	cr_assert_eq(system(rm), 0);
	cr_expect_eq(run.exit_status, 0, "exit %d, stderr: %s", run.exit_status, run.err);
	cr_expect(!is_partial_text(run.out), "%.200s", run.out);
	/* The same report but for its first line, which names each trace's path. */
	cr_expect_str_eq(strchr(run.out, '\n'), strchr(without.out, '\n'),
			 "the report differs from the one without the file");
	cr_expect(is_one_line(run.err), "stderr: '%s'", run.err);
	cr_expect(g_str_has_prefix(run.err, "fencescope: note: "), "stderr: '%s'", run.err);
	cr_expect_not_null(strstr(run.err, "stray-notes-txt/notes.txt is not a CTF stream file"),
			   "stderr: '%s'", run.err);
	cr_expect_str_eq(without.err, "");
	assert_tmp_dir_empty("report");
	damaged_run_clear(&run);
	damaged_run_clear(&without);
	assert_other_tools_end(DAMAGED("stray-notes-txt"));
}

/* A stream whose first packet's magic is damaged cannot be read: a partial report naming it,
 * its packet a loss, the other stream read. */
Test(damaged_cli, one_flipped_bit_in_a_packet_magic_is_a_partial_report_naming_the_stream)
{
	const char *args[] = {"report", "--sections", "summary,losses",
			      DAMAGED("flipped-bit-in-packet-magic"), NULL};
	struct damaged_run run;

	assert_tools_end_cleanly(DAMAGED("flipped-bit-in-packet-magic"));
	run_fencescope(args, &run);
	cr_expect_eq(run.exit_status, 1, "exit %d, stderr: %s", run.exit_status, run.err);
	cr_expect(is_partial_text(run.out), "%.200s", run.out);
	cr_expect_not_null(strstr(run.out, "fencescope_1 cannot be read"), "%.400s", run.out);
	cr_expect_not_null(strstr(run.err, "fencescope_1 cannot be read"), "%s", run.err);
	cr_expect_not_null(strstr(run.out, "tracer_discarded_packets"), "%s", run.out);
	assert_tmp_dir_empty("report");
	damaged_run_clear(&run);
}

Test(damaged_cli, big_endian_metadata_over_little_endian_streams_is_a_clean_outcome)
{
	assert_tools_end_cleanly(DAMAGED("big-endian-metadata"));
}

Test(damaged_cli, a_packet_size_of_2_63_is_a_partial_report_or_one_line_error)
{
	assert_tools_end_cleanly(DAMAGED("packet-size-2-63"));
}

Test(damaged_cli, a_content_size_of_2_62_is_a_partial_report_or_one_line_error)
{
	assert_tools_end_cleanly(DAMAGED("content-size-2-62"));
}

Test(damaged_cli, a_packet_end_time_of_2_64_minus_1_is_a_partial_report_or_one_line_error)
{
	assert_tools_end_cleanly(DAMAGED("timestamp-end-2-64-minus-1"));
}

Test(damaged_cli, a_sequence_length_above_2_31_is_a_partial_report_not_an_exit_from_a_guard)
{
	struct damaged_run run;

	assert_tools_end_cleanly(DAMAGED("sequence-length-above-2-31"));
	/* libbabeltrace2 segfaults after the first events: they make a partial report. */
	report_once(DAMAGED("sequence-length-above-2-31"), "text", &run);
	cr_expect(is_partial_text(run.out), "no partial report: '%s'", run.err);
	damaged_run_clear(&run);
}

/* Found by fuzz-trace: 181 bytes of stream on which libbabeltrace2 (and babeltrace2) spin
 * forever. The decoder is cut when it has sent nothing for FENCESCOPE_DECODE_TIMEOUT. */
Test(damaged_cli, a_stream_that_libbabeltrace2_never_finishes_is_cut_into_a_partial_report)
{
	struct damaged_run run;

	assert_tools_end_cleanly(DAMAGED("stream-that-libbabeltrace2-never-finishes"));
	report_once(DAMAGED("stream-that-libbabeltrace2-never-finishes"), "text", &run);
	cr_expect(is_partial_text(run.out), "no partial report: '%s'", run.err);
	cr_expect(strstr(run.err, "FENCESCOPE_DECODE_TIMEOUT"), "'%s'", run.err);
	damaged_run_clear(&run);
}

/* Every folder under tests/ingest/damaged/, also those added for inputs the fuzzer found. */
Test(damaged_cli, every_damaged_trace_kept_under_tests_ends_as_a_partial_report_or_one_line_error)
{
	g_autoptr(GDir) dir = g_dir_open(FSTI_DAMAGED, 0, NULL);
	const char *name;
	size_t count = 0;

	cr_assert_not_null(dir);
	while ((name = g_dir_read_name(dir))) {
		g_autofree char *trace = g_build_filename(FSTI_DAMAGED, name, NULL);

		/* A stray file damages nothing: that trace gets a whole report (its own test). */
		if (!g_file_test(trace, G_FILE_TEST_IS_DIR) || strcmp(name, "stray-notes-txt") == 0)
			continue;
		assert_report_ends_cleanly(trace);
		count++;
	}
	cr_assert_geq(count, 7, "only %zu damaged traces found in %s", count, FSTI_DAMAGED);
}
