/* SPDX-License-Identifier: MIT */
/*
 * `fencescope export TRACE --sqlite FILE --perfetto FILE`: reads a trace once and writes the
 * model's timeline to an SQLite file, a Perfetto trace (native protobuf, or Chrome trace-event
 * JSON for a name ending in .json or --perfetto-format=json), or both (docs/export.md). The writers
 * are model sinks; this command only wires them to the trace (fsa_ingest_into_model), fans the
 * model's items out to both, and reports errors. It computes nothing itself: that is `fencescope
 * report`, or a query on the SQLite file.
 *
 * Exit status: 0 written; 1 the trace is damaged (what was read before the damage is written,
 * marked partial); 2 bad usage or an unreadable trace; 4 an output could not be created or
 * written (exists without --force, not a regular file, no such folder, full disk): then no
 * output is left under its name.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <fencescope/runtime.h>

#include "fsa/export-writers.h"
#include "fsa/ingest.h"
#include "fsa/model.h"
#include "fsa/output-file.h"
#include "fsa/report.h"

#include "cli.h"

#define EXPORT_COMMAND "export"

/* The model has one sink: this one hands each item to every writer, if it is in the time
 * filter. */
struct export_fanout {
	const struct fsa_model_sink *sinks[2];
	size_t count;
	/* --begin / --end, as `fencescope report` reads them (docs/report-schema.md "Time
	 * filter"); relative times count from the model's first event. */
	struct fsa_report_time begin, end;
	const struct fsa_model *model;
};

static uint64_t
resolve(const struct export_fanout *f, const struct fsa_report_time *t, uint64_t unset)
{
	const struct fsa_summary *summary;

	if (!t->is_set)
		return unset;
	if (!t->is_relative)
		return t->ns;
	summary = fsa_model_borrow_summary(f->model);
	return (summary->first_ns == FSA_TIME_NONE ? 0 : summary->first_ns) + t->ns;
}

/* Whether [begin, end] overlaps the filter; FSA_TIME_NONE as end: open to the end of the trace,
 * as begin: the same as end. */
static bool
is_in(const struct export_fanout *f, uint64_t begin, uint64_t end)
{
	if (!f->begin.is_set && !f->end.is_set)
		return true;
	if (begin == FSA_TIME_NONE)
		begin = end;
	if (begin == FSA_TIME_NONE)
		return true; /* no time at all: nothing to filter on */
	return (end == FSA_TIME_NONE || end >= resolve(f, &f->begin, 0)) &&
	       begin <= resolve(f, &f->end, UINT64_MAX);
}

static bool
keep_op(const struct export_fanout *f, const struct fsa_op *op)
{
	if (op->state == FSA_OP_INFERRED)
		return is_in(f, op->inferred_begin_ns, op->inferred_end_ns);
	if (op->state == FSA_OP_UNQUEUED)
		return is_in(f, op->observed_ns != FSA_TIME_NONE ? op->observed_ns : op->end_ns,
			     op->end_ns);
	return is_in(f, op->queued_ns, op->end_ns);
}

/* An edge is kept when the wait it released is: its end time is the wait's. */
static bool
keep_edge(const struct export_fanout *f, const struct fsa_edge *e)
{
	return is_in(f, e->signal_end_ns, e->wait_end_ns);
}

static bool
keep_packet(const struct export_fanout *f, const struct fsa_packet *p)
{
	return is_in(f, p->start_ns, p->end_ns);
}

static bool
keep_marker(const struct export_fanout *f, const struct fsa_marker *m)
{
	return is_in(f, m->begin_ns, m->end_ns);
}

/* A loss without a time range always counts. */
static bool
keep_loss(const struct export_fanout *f, const struct fsa_loss *l)
{
	return l->begin_ns == FSA_TIME_NONE || is_in(f, l->begin_ns, l->end_ns);
}

static bool
keep_anomaly(const struct export_fanout *f, const struct fsa_anomaly *a)
{
	return a->ts_ns == FSA_TIME_NONE || is_in(f, a->ts_ns, a->ts_ns);
}

#define FANOUT(callback, type)                                                                     \
	static fsa_status fanout_##callback(void *data, const type *item)                          \
	{                                                                                          \
		struct export_fanout *f = data;                                                    \
		if (!keep_##callback(f, item))                                                     \
			return FSA_OK;                                                             \
		for (size_t i = 0; i < f->count; i++) {                                            \
			fsa_status status = f->sinks[i]->callback(f->sinks[i]->data, item);        \
			if (status != FSA_OK)                                                      \
				return status;                                                     \
		}                                                                                  \
		return FSA_OK;                                                                     \
	}
FANOUT(op, struct fsa_op)
FANOUT(edge, struct fsa_edge)
FANOUT(packet, struct fsa_packet)
FANOUT(marker, struct fsa_marker)
FANOUT(loss, struct fsa_loss)
FANOUT(anomaly, struct fsa_anomaly)
#undef FANOUT

/* A fence value (the counter tracks' CurrentValue) is kept when its time is in the filter; only
 * the Perfetto writers take them. */
static fsa_status
fanout_fence_value(void *data, const struct fsa_fence_value *v)
{
	struct export_fanout *f = data;

	if (v->ts_ns != FSA_TIME_NONE && !is_in(f, v->ts_ns, v->ts_ns))
		return FSA_OK;
	for (size_t i = 0; i < f->count; i++) {
		if (f->sinks[i]->fence_value) {
			fsa_status status = f->sinks[i]->fence_value(f->sinks[i]->data, v);

			if (status != FSA_OK)
				return status;
		}
	}
	return FSA_OK;
}

struct export_progress {
	bool is_shown;
	gint64 last_us;
};

/* On a terminal, a one-line progress count on stderr at most 5 times a second. */
static bool
show_progress(void *data, uint64_t events, double fraction)
{
	struct export_progress *p = data;
	gint64 now = g_get_monotonic_time();

	if (now - p->last_us < 200000)
		return false;
	p->last_us = now;
	p->is_shown = true;
	if (fraction >= 0)
		fprintf(stderr, "\rfencescope export: %" PRIu64 " events (%.0f%%)   ", events,
			fraction * 100);
	else
		fprintf(stderr, "\rfencescope export: %" PRIu64 " events   ", events);
	fflush(stderr);
	return false;
}

/* Everything one export holds, released by export_clear. */
struct export_run {
	struct fsa_sqlite_writer *sqlite;
	struct fsa_perfetto_writer *perfetto;
	struct fsa_perfetto_proto_writer *proto;
	struct fsa_model *model;
};

static void
export_clear(struct export_run *run)
{
	fsa_model_destroy(run->model);
	fsa_sqlite_writer_destroy(run->sqlite);
	fsa_perfetto_writer_destroy(run->perfetto);
	fsa_perfetto_proto_writer_destroy(run->proto);
}

/* The writers' own account of a failure in one of their callbacks, if any. */
static const char *
writer_error(const struct export_run *run)
{
	const char *error = run->sqlite ? fsa_sqlite_writer_borrow_error(run->sqlite) : NULL;

	if (!error && run->perfetto)
		error = fsa_perfetto_writer_borrow_error(run->perfetto);
	if (!error && run->proto)
		error = fsa_perfetto_proto_writer_borrow_error(run->proto);
	return error;
}

/* "TRACE: problem": ingest's messages name the trace already. Returns: (transfer full). */
static char *
trace_message(const char *trace, const char *message, fsa_status status)
{
	if (message && g_str_has_prefix(message, trace))
		return g_strdup(message);
	return g_strdup_printf("%s: %s", trace, message ? message : fsa_status_string(status));
}

/* The Perfetto output's format: --perfetto-format when given, else JSON for a name ending in
 * .json and the native protobuf trace for any other (.pftrace, .perfetto-trace, …). */
static bool
is_proto_format(const char *path, const char *format)
{
	if (format)
		return strcmp(format, "proto") == 0;
	return !g_str_has_suffix(path, ".json");
}

/* Finishes the native Perfetto trace; an exit status or -1 when written. */
static int
finish_proto(struct export_run *run, const char *partial, const char *path, gboolean is_quiet)
{
	char *message = NULL;
	fsa_status status = FSA_OK;
	uint64_t unbound;

	if (partial)
		status = fsa_perfetto_proto_writer_set_partial(run->proto, partial);
	if (status == FSA_OK)
		status = fsa_perfetto_proto_writer_finish(run->proto, &message);
	if (status != FSA_OK) {
		const char *why =
		    message ? message : fsa_perfetto_proto_writer_borrow_error(run->proto);

		fs_error(EXPORT_COMMAND, "%s", why ? why : fsa_status_string(status));
		free(message);
		return status == FSA_ERR_NOMEM ? FS_EXIT_FAILURE : FS_EXIT_OUTPUT;
	}
	unbound = fsa_perfetto_proto_writer_unbound_edge_count(run->proto);
	if (unbound && !is_quiet)
		fprintf(stderr,
			"fencescope export: %" PRIu64 " dependencies have no arrow in %s (their "
			"operations were too far apart, or the wait ends before the signal begins; "
			"docs/export.md)\n",
			unbound, path);
	return -1;
}

static int
export_trace(const char *trace, const char *sqlite_path, const char *perfetto_path,
	     const char *perfetto_format, gboolean is_force, gboolean is_quiet,
	     gboolean has_counters, uint64_t counter_resolution_ns,
	     const struct fsa_report_time *begin, const struct fsa_report_time *end)
{
	struct export_run run = {0};
	struct export_fanout fanout = {0};
	struct export_progress progress = {0};
	struct fsa_export_info info = {.trace_path = trace, .fencescope_version = FSR_VERSION};
	struct fsa_model_sink sink = {
	    .data = &fanout,
	    .op = fanout_op,
	    .edge = fanout_edge,
	    .packet = fanout_packet,
	    .marker = fanout_marker,
	    .loss = fanout_loss,
	    .anomaly = fanout_anomaly,
	    .fence_value = fanout_fence_value,
	};
	struct fsa_ingest_stats stats = {0};
	bool is_terminal = !is_quiet && isatty(STDERR_FILENO);
	char *message = NULL;
	char *partial = NULL;
	fsa_status status;
	int exit_status = FS_EXIT_FAILURE;

	if (sqlite_path) {
		status =
		    fsa_sqlite_writer_create(sqlite_path, is_force, &info, &run.sqlite, &message);
		if (status != FSA_OK) {
			fs_error(EXPORT_COMMAND, "%s",
				 message ? message : fsa_status_string(status));
			exit_status = status == FSA_ERR_NOMEM ? FS_EXIT_FAILURE : FS_EXIT_OUTPUT;
			goto end;
		}
		fanout.sinks[fanout.count++] = fsa_sqlite_writer_borrow_sink(run.sqlite);
	}
	if (perfetto_path && is_proto_format(perfetto_path, perfetto_format)) {
		status = fsa_perfetto_proto_writer_create(perfetto_path, is_force, &info,
							  &run.proto, &message);
		if (status != FSA_OK) {
			fs_error(EXPORT_COMMAND, "%s",
				 message ? message : fsa_status_string(status));
			exit_status = status == FSA_ERR_NOMEM ? FS_EXIT_FAILURE : FS_EXIT_OUTPUT;
			goto end;
		}
		fsa_perfetto_proto_writer_set_counter_resolution(run.proto, counter_resolution_ns);
		status = fsa_perfetto_proto_writer_set_counters(run.proto, has_counters);
		if (status != FSA_OK) {
			fs_error(EXPORT_COMMAND, "out of memory");
			goto end;
		}
		fanout.sinks[fanout.count++] = fsa_perfetto_proto_writer_borrow_sink(run.proto);
	} else if (perfetto_path) {
		status = fsa_perfetto_writer_create(perfetto_path, is_force, &info, &run.perfetto,
						    &message);
		if (status != FSA_OK) {
			fs_error(EXPORT_COMMAND, "%s",
				 message ? message : fsa_status_string(status));
			exit_status = status == FSA_ERR_NOMEM ? FS_EXIT_FAILURE : FS_EXIT_OUTPUT;
			goto end;
		}
		fsa_perfetto_writer_set_counter_resolution(run.perfetto, counter_resolution_ns);
		status = fsa_perfetto_writer_set_counters(run.perfetto, has_counters);
		if (status != FSA_OK) {
			fs_error(EXPORT_COMMAND, "out of memory");
			goto end;
		}
		fanout.sinks[fanout.count++] = fsa_perfetto_writer_borrow_sink(run.perfetto);
	}
	run.model = fsa_model_create(&sink);
	if (!run.model) {
		fs_error(EXPORT_COMMAND, "out of memory");
		goto end;
	}
	if (run.perfetto)
		fsa_perfetto_writer_set_model(run.perfetto, run.model);
	if (run.proto)
		fsa_perfetto_proto_writer_set_model(run.proto, run.model);
	fanout.model = run.model;
	fanout.begin = *begin;
	fanout.end = *end;

	status = fsa_ingest_into_model(trace, run.model, is_terminal ? show_progress : NULL,
				       &progress, &stats, &message);
	if (progress.is_shown)
		fputs("\r\033[K", stderr);
	if (status != FSA_OK && writer_error(&run)) {
		/* A writer failed (a full disk…): the output is what failed, not the trace. */
		fs_error(EXPORT_COMMAND, "%s", writer_error(&run));
		exit_status = FS_EXIT_OUTPUT;
		goto end;
	}
	switch (status) {
	case FSA_OK:
		break;
	case FSA_ERR_TRACE:
		/* What was read before the damage is exported, and says so. */
		partial = trace_message(trace, message, status);
		fs_error(EXPORT_COMMAND,
			 "%s; exporting what was read before it (%" PRIu64 " events)", partial,
			 stats.events);
		break;
	case FSA_ERR_IO:
	case FSA_ERR_FORMAT_VERSION:
	case FSA_ERR_INVALID:
		partial = trace_message(trace, message, status);
		fs_error(EXPORT_COMMAND, "%s", partial);
		exit_status = FS_EXIT_USAGE;
		goto end;
	default: {
		const char *why = writer_error(&run);

		if (why)
			fs_error(EXPORT_COMMAND, "%s", why);
		else
			fs_error(EXPORT_COMMAND, "%s: %s", trace,
				 message ? message : fsa_status_string(status));
		goto end;
	}
	}
	free(message);
	message = NULL;

	if (run.sqlite) {
		status = fsa_sqlite_writer_add_model(run.sqlite, run.model);
		if (status == FSA_OK && partial)
			status = fsa_sqlite_writer_set_partial(run.sqlite, partial);
		if (status == FSA_OK)
			status = fsa_sqlite_writer_finish(run.sqlite, &message);
		if (status != FSA_OK) {
			const char *why =
			    message ? message : fsa_sqlite_writer_borrow_error(run.sqlite);

			fs_error(EXPORT_COMMAND, "%s", why ? why : fsa_status_string(status));
			exit_status = status == FSA_ERR_NOMEM ? FS_EXIT_FAILURE : FS_EXIT_OUTPUT;
			goto end;
		}
	}
	if (run.perfetto) {
		status = fsa_perfetto_writer_add_model(run.perfetto, run.model);
		if (status == FSA_OK && partial)
			status = fsa_perfetto_writer_set_partial(run.perfetto, partial);
		if (status == FSA_OK)
			status = fsa_perfetto_writer_finish(run.perfetto, &message);
		if (status != FSA_OK) {
			const char *why =
			    message ? message : fsa_perfetto_writer_borrow_error(run.perfetto);

			fs_error(EXPORT_COMMAND, "%s", why ? why : fsa_status_string(status));
			exit_status = status == FSA_ERR_NOMEM ? FS_EXIT_FAILURE : FS_EXIT_OUTPUT;
			goto end;
		}
		if (fsa_perfetto_writer_unbound_edge_count(run.perfetto) && !is_quiet)
			fprintf(stderr,
				"fencescope export: %" PRIu64
				" dependencies have no arrow in %s (their operations were too far "
				"apart; docs/export.md)\n",
				fsa_perfetto_writer_unbound_edge_count(run.perfetto),
				perfetto_path);
	}
	if (run.proto) {
		int proto_status = finish_proto(&run, partial, perfetto_path, is_quiet);

		if (proto_status >= 0) {
			exit_status = proto_status;
			goto end;
		}
	}
	exit_status = partial ? FS_EXIT_FAILURE : FS_EXIT_OK;
end:
	free(message);
	g_free(partial);
	export_clear(&run);
	return exit_status;
}

int
fs_export_main(int argc, char **argv)
{
	g_autofree char *sqlite_path = NULL;
	g_autofree char *perfetto_path = NULL;
	g_autofree char *perfetto_format = NULL;
	g_autofree char *begin_text = NULL;
	g_autofree char *resolution_text = NULL;
	/* docs/export.md "Counter tracks": what keeps the 12 M-event stress trace under 300 MB. */
	uint64_t counter_resolution_ns = 1000000;
	g_autofree char *end_text = NULL;
	g_autofree char *recording = NULL;
	gboolean is_force = FALSE, is_quiet = FALSE, is_no_counters = FALSE;
	struct fsa_report_time begin = {0}, end = {0};
	g_auto(GStrv) rest = NULL;
	g_autoptr(GOptionContext) context = NULL;
	g_autoptr(GError) error = NULL;
	const GOptionEntry entries[] = {
	    {"sqlite", 0, 0, G_OPTION_ARG_FILENAME, &sqlite_path,
	     "Write an SQLite database (tables in docs/export.md)", "FILE"},
	    {"perfetto", 0, 0, G_OPTION_ARG_FILENAME, &perfetto_path,
	     "Write a Perfetto trace for ui.perfetto.dev: native protobuf, or Chrome trace-event "
	     "JSON when FILE ends in .json",
	     "FILE"},
	    {"perfetto-format", 0, 0, G_OPTION_ARG_STRING, &perfetto_format,
	     "The --perfetto file's format whatever its name: proto or json", "proto|json"},
	    {"no-counters", 0, 0, G_OPTION_ARG_NONE, &is_no_counters,
	     "No counter tracks (engine busy, queue depth, fence CurrentValue) in the --perfetto "
	     "file",
	     NULL},
	    {"counter-resolution", 0, 0, G_OPTION_ARG_STRING, &resolution_text,
	     "Counter tracks keep, per interval of DURATION, their lowest, highest and last "
	     "points (busy: per cent of it busy); 0 keeps every change (default 1ms)",
	     "DURATION"},
	    {"begin", 0, 0, G_OPTION_ARG_STRING, &begin_text,
	     "Only what overlaps [TIME, …]: trace ns, a duration (2.5ms), or +DURATION from the "
	     "first event",
	     "TIME"},
	    {"end", 0, 0, G_OPTION_ARG_STRING, &end_text, "Only what overlaps […, TIME]", "TIME"},
	    {"force", 'f', 0, G_OPTION_ARG_NONE, &is_force, "Replace output files that exist",
	     NULL},
	    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &is_quiet, "No progress and no notes on stderr",
	     NULL},
	    {"recording", 0, 0, G_OPTION_ARG_STRING, &recording,
	     "Of a folder holding several recordings, the one named NAME (its LTTng trace name "
	     "or its folder)",
	     "NAME"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "TRACE"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	context = g_option_context_new(NULL);
	g_set_prgname("fencescope " EXPORT_COMMAND);
	g_option_context_set_summary(
	    context, "Reads TRACE (a trace folder, an lttng session folder, or a net:// live URL)\n"
		     "once and writes one or both outputs. Each output is written to a temporary\n"
		     "file and renamed when complete.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fs_error(EXPORT_COMMAND, "%s", error->message);
		return FS_EXIT_USAGE;
	}
	if (!rest || !rest[0] || rest[1]) {
		fs_error(EXPORT_COMMAND, "give exactly one TRACE; see 'fencescope export --help'");
		return FS_EXIT_USAGE;
	}
	if (!fs_recording_pick(EXPORT_COMMAND, &rest[0], recording))
		return FS_EXIT_FAILURE;
	if (!sqlite_path && !perfetto_path) {
		fs_error(EXPORT_COMMAND, "nothing to write: give --sqlite FILE, --perfetto FILE "
					 "or both");
		return FS_EXIT_USAGE;
	}
	/* The same file under two names (a.db, ./a.db, a link) is caught too. */
	if (sqlite_path && perfetto_path && fsa_output_paths_are_same(sqlite_path, perfetto_path)) {
		fs_error(EXPORT_COMMAND, "%s and %s: --sqlite and --perfetto need different files",
			 sqlite_path, perfetto_path);
		return FS_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		const char *text = i == 0 ? begin_text : end_text;
		char *why = NULL;

		if (text && fsa_report_parse_time(text, i == 0 ? &begin : &end, &why) != FSA_OK) {
			fs_error(EXPORT_COMMAND, "--%s %s: %s", i == 0 ? "begin" : "end", text,
				 why ? why : "not a time");
			free(why);
			return FS_EXIT_USAGE;
		}
	}
	if (resolution_text) {
		char *why = NULL;

		if (fsa_report_parse_duration(resolution_text, &counter_resolution_ns, &why) !=
		    FSA_OK) {
			fs_error(EXPORT_COMMAND, "--counter-resolution %s: %s", resolution_text,
				 why ? why : "not a duration");
			free(why);
			return FS_EXIT_USAGE;
		}
		if (!perfetto_path) {
			fs_error(EXPORT_COMMAND, "--counter-resolution needs --perfetto FILE");
			return FS_EXIT_USAGE;
		}
	}
	if (perfetto_format && strcmp(perfetto_format, "proto") != 0 &&
	    strcmp(perfetto_format, "json") != 0) {
		fs_error(EXPORT_COMMAND, "--perfetto-format %s: give proto or json",
			 perfetto_format);
		return FS_EXIT_USAGE;
	}
	if (perfetto_format && !perfetto_path) {
		fs_error(EXPORT_COMMAND, "--perfetto-format needs --perfetto FILE");
		return FS_EXIT_USAGE;
	}
	if (is_no_counters && !perfetto_path) {
		fs_error(EXPORT_COMMAND, "--no-counters needs --perfetto FILE");
		return FS_EXIT_USAGE;
	}
	fs_remove_outputs_on_signals();
	return export_trace(rest[0], sqlite_path, perfetto_path, perfetto_format, is_force,
			    is_quiet, !is_no_counters, counter_resolution_ns, &begin, &end);
}
