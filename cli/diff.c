/* SPDX-License-Identifier: MIT */
/*
 * `fencescope diff [OPTIONS] BASE NEW`: reads two traces, each through its own model, into one
 * diff (fsa/diff.h) and prints what changed as text, JSON or CSV (docs/report-schema.md "Diff").
 * The command parses options, wires ingest → model → diff for each trace and turns the result
 * into an exit status, as `fencescope report` does.
 *
 * Exit status: 0 success; 1 a trace cannot be read (a damaged trace still gets a diff, marked
 * partial); 2 bad usage; 3 a --fail-if threshold failed (each named on stderr); 4 the -o file
 * cannot be created or written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "fsa/diff.h"
#include "fsa/ingest.h"
#include "fsa/model.h"
#include "fsa/output-file.h"

#include "cli.h"

#define DIFF_COMMAND "diff"

struct diff_args {
	gchar *format;
	gchar *sections;
	gchar **fail_if;
	gboolean is_wide;
	gchar *output;
	struct fs_choice_args choice; /* report's --begin, --end, --times, --frame-budget, … */
	gchar **rest;
};

static void
diff_args_clear(struct diff_args *args)
{
	g_free(args->format);
	g_free(args->sections);
	g_strfreev(args->fail_if);
	g_free(args->output);
	fs_choice_args_clear(&args->choice);
	g_strfreev(args->rest);
}

/* --recording NAME (in each trace) or BASE_NAME:NEW_NAME: replaces each path with the folder of
 * that recording under it (report's --recording, fs_recording_pick()). */
static bool
pick_recordings(char **traces, const char *recording)
{
	const char *colon = recording ? strchr(recording, ':') : NULL;
	char *names[2] = {NULL, NULL};
	bool is_ok = true;

	if (!recording)
		return true;
	if (colon) {
		names[0] = g_strndup(recording, (gsize) (colon - recording));
		names[1] = g_strdup(colon + 1);
	} else {
		names[0] = g_strdup(recording);
		names[1] = g_strdup(recording);
	}
	for (int side = 0; side < 2 && is_ok; side++)
		is_ok = fs_recording_pick(DIFF_COMMAND, &traces[side],
					  names[side][0] ? names[side] : NULL);
	g_free(names[0]);
	g_free(names[1]);
	return is_ok;
}

/* An absolute --begin/--end compares the same trace time in both traces: it must fall within
 * each one's events, or the two windows are not the same part of the two runs (a relative time,
 * +TIME, is from each trace's own start and always is). Returns false after one line. */
static bool
check_absolute_window(const struct fsa_report_options *options, struct fsa_model *const models[2],
		      const struct diff_args *args)
{
	const struct fsa_report_time *times[2] = {&options->begin, &options->end};
	const char *names[2] = {"--begin", "--end"},
		   *texts[2] = {args->choice.begin, args->choice.end};

	for (int i = 0; i < 2; i++) {
		if (!times[i]->is_set || times[i]->is_relative)
			continue;
		for (int side = 0; side < 2; side++) {
			const struct fsa_summary *s = fsa_model_borrow_summary(models[side]);
			bool is_in = s->first_ns != FSA_TIME_NONE && s->first_ns <= times[i]->ns &&
				     times[i]->ns <= s->last_ns;

			if (is_in)
				continue;
			fs_error(DIFF_COMMAND,
				 "%s %s is an absolute time outside %s (%s): an absolute time must "
				 "fall in both traces; give +TIME, from each trace's start",
				 names[i], texts[i], side ? "NEW" : "BASE", args->rest[side]);
			return false;
		}
	}
	return true;
}

/* One side's reading, done on its own thread: the two traces are read at once (each reader is
 * a decoder process feeding a model, about one core together), so the diff of two traces takes
 * about as long as the report of one on two cores. Messages wait for the join, so the two
 * sides' lines never interleave. */
struct side_read {
	struct fsa_diff *diff;
	enum fsa_diff_side side;
	const char *trace;
	struct fsa_model *model;
	bool is_damaged;
	char *message; /* one line for stderr, or NULL */
	int exit_status;
};

/* Reads TRACE into SIDE's model; a damaged trace marks the side partial. */
static gpointer
read_side(gpointer data)
{
	struct side_read *r = data;
	struct fsa_ingest_stats stats = {0};
	char *error = NULL;
	fsa_status status;

	r->exit_status = FS_EXIT_OK;
	r->model = fsa_model_create(fsa_diff_borrow_sink(r->diff, r->side));
	if (!r->model) {
		r->message = g_strdup("out of memory");
		r->exit_status = FS_EXIT_FAILURE;
		return NULL;
	}
	fsa_diff_set_model(r->diff, r->side, r->model, r->trace);
	status = fsa_ingest_into_model(r->trace, r->model, NULL, NULL, &stats, &error);
	if (status == FSA_ERR_TRACE) {
		char *reason =
		    g_strdup_printf("the trace is damaged after %" G_GUINT64_FORMAT " events: %s",
				    stats.events, error ? error : "cannot decode it");

		fsa_diff_set_partial(r->diff, r->side, reason);
		r->message = g_strdup_printf("%s (the diff covers what was read before)",
					     error ? error : r->trace);
		g_free(reason);
		r->is_damaged = true;
	} else if (status != FSA_OK) {
		/* Ingest's messages already start with the trace's path. */
		r->message = error ? g_strdup(error)
				   : g_strdup_printf("%s: %s", r->trace, fsa_status_string(status));
		r->exit_status = FS_EXIT_FAILURE;
	}
	free(error);
	return NULL;
}

static int
write_output(struct fsa_diff *diff, enum fsa_report_format format, struct fsa_output_file *output)
{
	FILE *out = output ? fopen(output->tmp_path, "w") : stdout;
	fsa_status status;
	char *why = NULL;

	if (!out) {
		fs_error(DIFF_COMMAND, "%s: %s", output->path, g_strerror(errno));
		return FS_EXIT_OUTPUT;
	}
	status = fsa_diff_write(diff, format, out);
	if (output ? fclose(out) != 0 : fflush(out) != 0)
		status = FSA_ERR_IO;
	if (status == FSA_OK && output)
		status = fsa_output_file_commit(output, &why);
	if (status != FSA_OK) {
		fs_error(DIFF_COMMAND, "%s: %s", output ? output->path : "standard output",
			 why                    ? why
			 : status == FSA_ERR_IO ? "cannot write the diff"
						: fsa_status_string(status));
		free(why);
		return status == FSA_ERR_IO ? FS_EXIT_OUTPUT : FS_EXIT_FAILURE;
	}
	return FS_EXIT_OK;
}

static int
run_diff(const struct diff_args *args, const struct fsa_diff_options *options,
	 enum fsa_report_format format)
{
	struct fsa_diff *diff = fsa_diff_create(options);
	struct side_read reads[2];
	struct fsa_output_file output = {0};
	bool is_damaged = false;
	char *error = NULL;
	GThread *base_thread;
	int exit_status = FS_EXIT_OK;

	if (!diff) {
		fs_error(DIFF_COMMAND, "out of memory");
		return FS_EXIT_FAILURE;
	}
	for (size_t i = 0; args->fail_if && args->fail_if[i]; i++) {
		if (fsa_diff_add_threshold(diff, args->fail_if[i], &error) != FSA_OK) {
			fs_error(DIFF_COMMAND, "--fail-if %s", error ? error : args->fail_if[i]);
			free(error);
			fsa_diff_destroy(diff);
			return FS_EXIT_USAGE;
		}
	}
	if (args->output &&
	    fsa_output_file_begin(&output, args->output,
				  FSA_OUTPUT_REPLACE | FSA_OUTPUT_INTO_SPECIAL, &error) != FSA_OK) {
		fs_error(DIFF_COMMAND, "%s", error ? error : args->output);
		free(error);
		fsa_diff_destroy(diff);
		return FS_EXIT_OUTPUT;
	}
	for (int side = 0; side < 2; side++)
		reads[side] = (struct side_read){
		    .diff = diff, .side = (enum fsa_diff_side) side, .trace = args->rest[side]};
	base_thread = g_thread_new("fencescope-diff-base", read_side, &reads[0]);
	read_side(&reads[1]);
	g_thread_join(base_thread);
	for (int side = 0; side < 2; side++) {
		if (reads[side].message)
			fs_error(DIFF_COMMAND, "%s", reads[side].message);
		if (reads[side].exit_status != FS_EXIT_OK)
			exit_status = reads[side].exit_status;
		is_damaged = is_damaged || reads[side].is_damaged;
	}
	if (exit_status != FS_EXIT_OK)
		goto end;
	if (!check_absolute_window(&options->report,
				   (struct fsa_model *const[2]){reads[0].model, reads[1].model},
				   args)) {
		exit_status = FS_EXIT_USAGE;
		goto end;
	}
	if (fsa_diff_finish(diff) != FSA_OK) {
		fs_error(DIFF_COMMAND, "out of memory");
		exit_status = FS_EXIT_FAILURE;
		goto end;
	}
	exit_status = write_output(diff, format, args->output ? &output : NULL);
	if (exit_status != FS_EXIT_OK)
		goto end;
	if (is_damaged) {
		exit_status = FS_EXIT_FAILURE;
		goto end;
	}
	for (size_t i = 0; i < fsa_diff_failure_count(diff); i++) {
		fs_error(DIFF_COMMAND, "threshold failed: %s", fsa_diff_borrow_failure(diff, i));
		exit_status = FS_EXIT_THRESHOLD;
	}
end:
	fsa_output_file_end(&output);
	fsa_diff_destroy(diff);
	for (int side = 0; side < 2; side++) {
		fsa_model_destroy(reads[side].model);
		g_free(reads[side].message);
	}
	return exit_status;
}

int
fs_diff_main(int argc, char **argv)
{
	struct diff_args args = {0};
	const GOptionEntry entries[] = {
	    {"format", 'f', 0, G_OPTION_ARG_STRING, &args.format, "text (default), json or csv",
	     "FORMAT"},
	    {"sections", 's', 0, G_OPTION_ARG_STRING, &args.sections,
	     "comma-separated tables: traces, times, matching, counts, latency, anomalies, losses "
	     "(default: all)",
	     "LIST"},
	    {"fail-if", 0, 0, G_OPTION_ARG_STRING_ARRAY, &args.fail_if,
	     "exit 3 when EXPR holds in NEW, e.g. 'p99(wait) > 1.10 * base' (base: the same "
	     "statistic in BASE; repeatable; docs/report-schema.md)",
	     "EXPR"},
	    {"wide", 0, 0, G_OPTION_ARG_NONE, &args.is_wide,
	     "text: one line per row however wide (default: tables split to fit 120 columns)",
	     NULL},
	    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &args.output,
	     "write the diff to FILE instead of standard output", "FILE"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args.rest, NULL, "BASE NEW"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	GOptionContext *context = g_option_context_new(NULL);
	GError *error = NULL;
	struct fsa_diff_options options = {0};
	enum fsa_report_format format = FSA_REPORT_FORMAT_TEXT;
	char *message = NULL;
	int exit_status;

	g_option_context_set_summary(
	    context, "Compare two fencescope traces: per queue, fence and process, operation "
		     "counts and\nlatency percentiles with their deltas and whether each change "
		     "is beyond noise;\nanomalies and losses; queues, fences and processes added "
		     "or removed (matched\nby stable names, not handles). Exit status: 0 ok, 1 "
		     "error, 2 usage, 3 a\nthreshold failed, 4 the -o file cannot be written.");
	g_option_context_add_main_entries(context, entries, NULL);
	fs_choice_add_entries(context, &args.choice, true);
	g_set_prgname("fencescope diff");
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fs_error(DIFF_COMMAND, "%s", error->message);
		g_error_free(error);
		exit_status = FS_EXIT_USAGE;
		goto end;
	}
	if (!args.rest || !args.rest[0] || !args.rest[1] || args.rest[2]) {
		fs_error(DIFF_COMMAND,
			 "give two traces, BASE and NEW; see 'fencescope diff --help'");
		exit_status = FS_EXIT_USAGE;
		goto end;
	}
	if (args.format && fsa_report_parse_format(args.format, &format, &message) != FSA_OK) {
		fs_error(DIFF_COMMAND, "%s", message ? message : "invalid --format");
		free(message);
		exit_status = FS_EXIT_USAGE;
		goto end;
	}
	options.is_text_wide = args.is_wide;
	if (args.sections &&
	    fsa_diff_parse_tables(args.sections, &options.tables, &message) != FSA_OK) {
		fs_error(DIFF_COMMAND, "%s", message ? message : "invalid --sections");
		free(message);
		exit_status = FS_EXIT_USAGE;
		goto end;
	}
	exit_status = fs_choice_parse(DIFF_COMMAND, &args.choice, &options.report);
	if (exit_status != FS_EXIT_OK)
		goto end;
	if (!pick_recordings(args.rest, args.choice.recording)) {
		exit_status = FS_EXIT_FAILURE;
		goto end;
	}
	fs_remove_outputs_on_signals();
	exit_status = run_diff(&args, &options, format);
end:
	g_option_context_free(context);
	diff_args_clear(&args);
	return exit_status;
}
