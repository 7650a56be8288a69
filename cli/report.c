/* SPDX-License-Identifier: MIT */
/*
 * `fencescope report [OPTIONS] TRACE`: reads a trace once through the model into a report
 * (fsa/report.h) and prints it as text, JSON or CSV (docs/report-schema.md). The command only
 * parses options, wires ingest → model → report, shows progress on a terminal and turns the
 * result into an exit status; every number is computed in analyzer/report.
 *
 * Exit status: 0 success; 1 the trace cannot be read (a damaged trace still prints the partial
 * report, marked so); 2 bad usage; 3 a --fail-if threshold or --fail-on-loss failed (each
 * failure is named on stderr); 4 the -o file cannot be created or written (checked before the
 * trace is read; the report appears under its name only once complete, fsa/output-file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "fsa/output-file.h"
#include "fsa/report.h"

#include "cli.h"
#include "report-live.h"

#define REPORT_COMMAND "report"

struct report_args {
	gchar *format;
	gchar *sections;
	struct fs_choice_args choice; /* --begin, --end, --times, --frame-budget, --recording */
	gchar **fail_if;
	gboolean is_fail_on_loss;
	gboolean is_wide;
	gint top;
	gint examples;
	gchar *output;
	gboolean has_critical_path; /* --critical-path[=N] */
	gchar *critical_path_count;
	gboolean is_live;
	gchar *interval;
	gchar **rest;
};

/* --critical-path takes an optional N: GOption hands it to a callback, which has no user data
 * for the main entries. */
static struct report_args *critical_path_args;

static gboolean
on_critical_path(const gchar *name, const gchar *value, gpointer data, GError **error)
{
	(void) name;
	(void) data;
	(void) error;
	critical_path_args->has_critical_path = TRUE;
	g_free(critical_path_args->critical_path_count);
	critical_path_args->critical_path_count = g_strdup(value);
	return TRUE;
}

static void
report_args_clear(struct report_args *args)
{
	g_free(args->format);
	g_free(args->sections);
	fs_choice_args_clear(&args->choice);
	g_strfreev(args->fail_if);
	g_free(args->output);
	g_free(args->critical_path_count);
	g_free(args->interval);
	g_strfreev(args->rest);
}

struct progress {
	bool is_shown;
	gint64 last_us;
};

/* On a terminal only: a line rewritten in place, at most five times a second. */
static bool
show_progress(void *data, uint64_t events, double fraction)
{
	struct progress *p = data;
	gint64 now = g_get_monotonic_time();

	if (now - p->last_us < 200000)
		return false;
	p->last_us = now;
	if (fraction >= 0)
		fprintf(stderr, "\rfencescope report: %" G_GUINT64_FORMAT " events (%.0f%%)",
			events, fraction * 100);
	else
		fprintf(stderr, "\rfencescope report: %" G_GUINT64_FORMAT " events", events);
	p->is_shown = true;
	return false;
}

static void
end_progress(struct progress *p)
{
	if (p->is_shown)
		fprintf(stderr, "\r\033[K");
	p->is_shown = false;
}

/* Parses the options into report options; returns FS_EXIT_OK or FS_EXIT_USAGE (message printed). */
static int
build_options(const struct report_args *args, struct fsa_report_options *options,
	      enum fsa_report_format *format)
{
	char *error = NULL;
	fsa_status status = FSA_OK;

	*options = (struct fsa_report_options){.is_fail_on_loss = args->is_fail_on_loss,
					       .is_text_wide = args->is_wide};
	*format = FSA_REPORT_FORMAT_TEXT;
	if (args->format)
		status = fsa_report_parse_format(args->format, format, &error);
	if (status == FSA_OK && args->sections)
		status = fsa_report_parse_sections(args->sections, &options->sections, &error);
	if (status == FSA_OK && args->has_critical_path) {
		char *end = NULL;
		const char *count = args->critical_path_count;

		/* The section comes with the option, besides the others asked for (all by
		 * default). */
		options->sections =
		    (options->sections ? options->sections : FSA_REPORT_ALL_SECTIONS) |
		    FSA_REPORT_CRITICAL_PATH;
		if (count && *count) {
			errno = 0;
			options->critical_path_count = (size_t) g_ascii_strtoull(count, &end, 10);
			if (errno || !*count || *end || !options->critical_path_count) {
				error = strdup("--critical-path takes a number above 0");
				status = FSA_ERR_INVALID;
			}
		}
	}
	if (status == FSA_OK && (args->top < 0 || args->examples < 0)) {
		error = strdup("--top and --examples take a positive number");
		status = FSA_ERR_INVALID;
	}
	if (status != FSA_OK) {
		fs_error(REPORT_COMMAND, "%s", error ? error : "invalid option");
		free(error);
		return FS_EXIT_USAGE;
	}
	options->longest_count = (size_t) args->top;
	options->example_count = (size_t) args->examples;
	return fs_choice_parse(REPORT_COMMAND, &args->choice, options);
}

/* --live and --interval; returns FS_EXIT_OK or FS_EXIT_USAGE (message printed). */
static int
parse_live(const struct report_args *args, uint64_t *interval_ns)
{
	char *error = NULL;

	if (args->interval && !args->is_live) {
		fs_error(REPORT_COMMAND, "--interval goes with --live");
		return FS_EXIT_USAGE;
	}
	if (!args->interval)
		return FS_EXIT_OK;
	if (fsa_report_parse_duration(args->interval, interval_ns, &error) != FSA_OK) {
		fs_error(REPORT_COMMAND, "--interval %s", error ? error : args->interval);
		free(error);
		return FS_EXIT_USAGE;
	}
	if (*interval_ns < FS_LIVE_MIN_INTERVAL_NS) {
		fs_error(REPORT_COMMAND, "--interval %s: at least 100ms", args->interval);
		return FS_EXIT_USAGE;
	}
	return FS_EXIT_OK;
}

/* Writes the report to standard output, or to OUTPUT's temporary file and renames it. */
static int
write_output(struct fsa_report *report, enum fsa_report_format format,
	     struct fsa_output_file *output)
{
	FILE *out = output ? fopen(output->tmp_path, "w") : stdout;
	fsa_status status;
	char *why = NULL;

	if (!out) {
		fs_error(REPORT_COMMAND, "%s: %s", output->path, g_strerror(errno));
		return FS_EXIT_OUTPUT;
	}
	status = fsa_report_write(report, format, out);
	if (output ? fclose(out) != 0 : fflush(out) != 0)
		status = FSA_ERR_IO;
	if (status == FSA_OK && output)
		status = fsa_output_file_commit(output, &why);
	if (status != FSA_OK) {
		fs_error(REPORT_COMMAND, "%s: %s", output ? output->path : "standard output",
			 why                    ? why
			 : status == FSA_ERR_IO ? "cannot write the report"
						: fsa_status_string(status));
		free(why);
		return status == FSA_ERR_IO ? FS_EXIT_OUTPUT : FS_EXIT_FAILURE;
	}
	return FS_EXIT_OK;
}

static int
run_report(const char *trace, const struct report_args *args,
	   const struct fsa_report_options *options, enum fsa_report_format format,
	   uint64_t live_interval_ns)
{
	struct fsa_report *report = fsa_report_create(options);
	struct fs_live_summary *live = NULL;
	const struct fsa_model_sink *sink;
	struct fsa_model *model = NULL;
	struct progress progress = {0};
	struct fsa_ingest_stats stats = {0};
	struct fsa_output_file output = {0};
	char *error = NULL;
	int exit_status = FS_EXIT_OK;
	fsa_status status;

	if (!report) {
		fs_error(REPORT_COMMAND, "out of memory");
		return FS_EXIT_FAILURE;
	}
	/* Before the trace is read: a wrong -o fails at once. */
	if (args->output &&
	    fsa_output_file_begin(&output, args->output,
				  FSA_OUTPUT_REPLACE | FSA_OUTPUT_INTO_SPECIAL, &error) != FSA_OK) {
		fs_error(REPORT_COMMAND, "%s", error ? error : args->output);
		free(error);
		fsa_report_destroy(report);
		return FS_EXIT_OUTPUT;
	}
	for (size_t i = 0; args->fail_if && args->fail_if[i]; i++) {
		if (fsa_report_add_threshold(report, args->fail_if[i], &error) != FSA_OK) {
			fs_error(REPORT_COMMAND, "--fail-if %s", error ? error : args->fail_if[i]);
			free(error);
			fsa_output_file_end(&output);
			fsa_report_destroy(report);
			return FS_EXIT_USAGE;
		}
	}
	sink = fsa_report_borrow_sink(report);
	/* --live: the rolling summaries go to standard output, before the report. */
	if (args->is_live) {
		live = fs_live_summary_create(live_interval_ns, format, stdout);
		if (live)
			sink = fs_live_summary_wrap_sink(live, sink);
	}
	model = (!args->is_live || live) ? fsa_model_create(sink) : NULL;
	if (!model) {
		fs_error(REPORT_COMMAND, "out of memory");
		fsa_output_file_end(&output);
		fsa_report_destroy(report);
		return FS_EXIT_FAILURE;
	}
	fsa_report_set_model(report, model);
	fsa_report_set_trace_path(report, trace);
	if (live)
		status = fs_live_summary_ingest(live, trace, model, &stats, &error);
	else
		status = fsa_ingest_into_model(trace, model,
					       isatty(STDERR_FILENO) ? show_progress : NULL,
					       &progress, &stats, &error);
	end_progress(&progress);
	if (status == FSA_ERR_TRACE) {
		/* What was read before the damage is still worth a report, marked partial. */
		char *reason =
		    g_strdup_printf("the trace is damaged after %" G_GUINT64_FORMAT " events: %s",
				    stats.events, error ? error : "cannot decode it");

		fsa_report_set_partial(report, reason);
		g_free(reason);
	} else if (status != FSA_OK) {
		/* Ingest's messages already start with the trace's path. */
		if (error)
			fs_error(REPORT_COMMAND, "%s", error);
		else
			fs_error(REPORT_COMMAND, "%s: %s", trace, fsa_status_string(status));
		exit_status = FS_EXIT_FAILURE;
		goto end;
	}
	status = fsa_report_finish(report);
	if (status != FSA_OK) {
		fs_error(REPORT_COMMAND, "%s: %s", trace, fsa_status_string(status));
		exit_status = FS_EXIT_FAILURE;
		goto end;
	}
	exit_status = write_output(report, format, args->output ? &output : NULL);
	if (exit_status != FS_EXIT_OK)
		goto end;
	if (error) {
		/* The damaged trace: the partial report is out, the run still failed. */
		fs_error(REPORT_COMMAND, "%s (the report covers what was read before)", error);
		exit_status = FS_EXIT_FAILURE;
		goto end;
	}
	for (size_t i = 0; i < fsa_report_failure_count(report); i++) {
		fs_error(REPORT_COMMAND, "threshold failed: %s",
			 fsa_report_borrow_failure(report, i));
		exit_status = FS_EXIT_THRESHOLD;
	}
end:
	fsa_output_file_end(&output);
	free(error);
	fsa_model_destroy(model);
	fs_live_summary_destroy(live);
	fsa_report_destroy(report);
	return exit_status;
}

int
fs_report_main(int argc, char **argv)
{
	struct report_args args = {0};
	/* GOptionEntry keeps a callback in its gpointer member: ISO C has no cast for that. */
	union {
		GOptionArgFunc func;
		gpointer pointer;
	} critical_path_callback = {.func = on_critical_path};
	const GOptionEntry entries[] = {
	    {"format", 'f', 0, G_OPTION_ARG_STRING, &args.format, "text (default), json or csv",
	     "FORMAT"},
	    {"sections", 's', 0, G_OPTION_ARG_STRING, &args.sections,
	     "comma-separated: summary, latency, longest, doorbells, preemption, losses, "
	     "anomalies, clocks, tdr, display, faults, page_faults, memory, cross_adapter, "
	     "frames, critical_path (default: all, which is every one but critical_path)",
	     "LIST"},
	    {"critical-path", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
	     critical_path_callback.pointer,
	     "add the critical_path section: each frame's path (the N slowest with =N), or the "
	     "N longest waits' (default 10) in a trace without frames",
	     "N"},
	    {"fail-if", 0, 0, G_OPTION_ARG_STRING_ARRAY, &args.fail_if,
	     "exit 3 when EXPR holds, e.g. 'p99(wait)>2ms' (repeatable; docs/report-schema.md)",
	     "EXPR"},
	    {"fail-on-loss", 0, 0, G_OPTION_ARG_NONE, &args.is_fail_on_loss,
	     "exit 3 when fence log entries or tracer events were lost", NULL},
	    {"top", 0, 0, G_OPTION_ARG_INT, &args.top, "longest waits listed (default 10)", "N"},
	    {"examples", 0, 0, G_OPTION_ARG_INT, &args.examples,
	     "examples listed per anomaly kind (default 5)", "N"},
	    {"wide", 0, 0, G_OPTION_ARG_NONE, &args.is_wide,
	     "text: one line per row however wide (default: tables split to fit 120 columns)",
	     NULL},
	    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &args.output,
	     "write the report to FILE instead of standard output", "FILE"},
	    {"live", 0, 0, G_OPTION_ARG_NONE, &args.is_live,
	     "while reading (a live session: net://…), print a rolling summary every interval, "
	     "then the report",
	     NULL},
	    {"interval", 0, 0, G_OPTION_ARG_STRING, &args.interval,
	     "the --live summary's period (default 1s, at least 100ms)", "DURATION"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args.rest, NULL, "TRACE"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	GOptionContext *context = g_option_context_new(NULL);

	critical_path_args = &args;
	GError *error = NULL;
	struct fsa_report_options options;
	enum fsa_report_format format;
	uint64_t live_interval_ns = FS_LIVE_DEFAULT_INTERVAL_NS;
	int exit_status;

	g_option_context_set_summary(
	    context,
	    "Analyze a fencescope trace (a folder, an LTTng session folder or net:// URL):\n"
	    "fence wait and signal latency, longest waits, doorbells, preemption, lost "
	    "data,\nanomalies. Exit status: 0 ok, 1 error, 2 usage, 3 a threshold failed, 4 the "
	    "-o\nfile cannot be written.");
	g_option_context_add_main_entries(context, entries, NULL);
	fs_choice_add_entries(context, &args.choice, false);
	g_set_prgname("fencescope report");
	/* GOption gives an optional argument the next word when it is no option: `--critical-path
	 * TRACE` would take TRACE for N. Only --critical-path=N names one. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--critical-path") == 0)
			argv[i] = (char *) "--critical-path=";
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fs_error(REPORT_COMMAND, "%s", error->message);
		g_error_free(error);
		exit_status = FS_EXIT_USAGE;
		goto end;
	}
	if (!args.rest || !args.rest[0] || args.rest[1]) {
		fs_error(REPORT_COMMAND, "give one TRACE; see 'fencescope report --help'");
		exit_status = FS_EXIT_USAGE;
		goto end;
	}
	exit_status = build_options(&args, &options, &format);
	if (exit_status == FS_EXIT_OK)
		exit_status = parse_live(&args, &live_interval_ns);
	if (exit_status == FS_EXIT_OK &&
	    !fs_recording_pick(REPORT_COMMAND, &args.rest[0], args.choice.recording))
		exit_status = FS_EXIT_FAILURE;
	if (exit_status == FS_EXIT_OK) {
		fs_remove_outputs_on_signals();
		exit_status = run_report(args.rest[0], &args, &options, format, live_interval_ns);
	}
end:
	g_option_context_free(context);
	report_args_clear(&args);
	return exit_status;
}
