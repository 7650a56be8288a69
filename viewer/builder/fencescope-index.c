/* SPDX-License-Identifier: MIT */
/*
 * `fencescope-index --output FILE [--key KEY] TRACE`: the index builder (issue 15 §1). It reads
 * TRACE with fsv_trace_load() — analyzer/ingest's decoder children, the analyzer model, the
 * sorting, lanes and level-of-detail build — and writes the finished index to FILE with
 * fsv_index_save(). The viewer and `fencescope render` run it through fsv_trace_open()
 * (viewer/core/fsv-loader.c), so that none of this runs in their process: a crash here ends only
 * this process. It is installed in LIBEXECDIR/fencescope, not on PATH: it is not a command.
 *
 * It speaks on its stdout, one line at a time (docs/viewer.md "Loading"):
 *   fencescope-index 1              first line: the protocol's version
 *   progress EVENTS FRACTION        about every 64k events; FRACTION -1 when unknown
 *   preview … row … end             what is loaded so far (fsv-load-preview-private.h), at most
 *                                   about 6 times a second and once when reading ends
 *   stage saving                    the index is built: writing FILE
 *   done complete | done partial CAUSE | failed CAUSE
 * and exits 0 (complete), 1 (partial: a damaged trace, FILE holds what was read) or 2 (failed:
 * FILE is not written; bad usage too). Anything else that would go to stdout goes to stderr.
 *
 * FENCESCOPE_INDEX_HOLD_MS=N (tests only) waits N ms once the index is built, before writing it, so
 * that a test can see the preview and kill or cancel a builder that is surely mid-load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <glib.h>

#include "fsv-index.h"
#include "fsv-load-preview-private.h"
#include "fsv-loader-private.h"
#include "fsv-trace-private.h"

/* Previews at most this often (they cost the loader a parse and the window a redraw). */
#define PREVIEW_INTERVAL_US (150 * 1000)

typedef struct {
	FILE *protocol;
	FsvPreviewCollector *collector;
	gint64 last_preview_us;
} Builder;

static void
send_preview(Builder *builder)
{
	g_autoptr(GString) block = g_string_new(NULL);

	_fsv_preview_collector_write(builder->collector, block);
	fputs(block->str, builder->protocol);
	fflush(builder->protocol);
	builder->last_preview_us = g_get_monotonic_time();
}

static void
on_progress(guint64 events, double fraction, gpointer user_data)
{
	Builder *builder = user_data;
	char text[G_ASCII_DTOSTR_BUF_SIZE];

	g_ascii_formatd(text, sizeof(text), "%.4f", fraction >= 0 ? fraction : -1.0);
	fprintf(builder->protocol, "progress %" G_GUINT64_FORMAT " %s\n", events, text);
	if (_fsv_preview_collector_has_news(builder->collector) &&
	    g_get_monotonic_time() - builder->last_preview_us >= PREVIEW_INTERVAL_US)
		send_preview(builder);
	fflush(builder->protocol);
}

/* One line: newlines of a cause (there should be none) become spaces. */
static void
send_line(Builder *builder, const char *what, const char *cause)
{
	g_autofree char *flat = g_strdup(cause ? cause : "");

	g_strdelimit(flat, "\r\n", ' ');
	fprintf(builder->protocol, "%s%s%s\n", what, *flat ? " " : "", flat);
	fflush(builder->protocol);
}

static void
hold_if_asked(void)
{
	const char *env = g_getenv("FENCESCOPE_INDEX_HOLD_MS");
	guint64 ms;

	if (env && g_ascii_string_to_unsigned(env, 10, 0, 600000, &ms, NULL) && ms > 0)
		g_usleep(ms * 1000);
}

int
main(int argc, char **argv)
{
	g_autofree char *output = NULL;
	g_autofree char *key = NULL;
	g_autofree char *partial = NULL;
	g_auto(GStrv) rest = NULL;
	g_autoptr(GOptionContext) context = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvPreviewCollector) collector = _fsv_preview_collector_new();
	struct fsa_model_sink tee;
	Builder builder = {0};
	int protocol_fd, status;
	const GOptionEntry entries[] = {
	    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the index to FILE", "FILE"},
	    {"key", 0, 0, G_OPTION_ARG_STRING, &key,
	     "The trace's key (fsv_index_key), computed when not given", "KEY"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "TRACE"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	/* The viewer that started us going away ends us too (a killed viewer leaves no builder
	 * behind); if it is already gone, stop now. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return FSV_INDEX_EXIT_FAILED;
	/* Only the protocol goes to stdout: whatever else writes there goes to stderr. */
	protocol_fd = dup(STDOUT_FILENO);
	if (protocol_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
	    !(builder.protocol = fdopen(protocol_fd, "w"))) {
		fprintf(stderr, "fencescope-index: %s\n", strerror(errno));
		return FSV_INDEX_EXIT_FAILED;
	}
	builder.collector = collector;
	fprintf(builder.protocol, "fencescope-index %d\n", FSV_INDEX_PROTOCOL_VERSION);
	fflush(builder.protocol);

	context = g_option_context_new(NULL);
	g_option_context_set_summary(context,
				     "Builds the viewer's index of TRACE into FILE (run by "
				     "fencescope-view and fencescope render, not by hand).");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error) || !output || !rest ||
	    !rest[0] || rest[1]) {
		g_autofree char *cause =
		    g_strdup_printf("fencescope-index: %s",
				    error ? error->message : "give --output FILE and one TRACE");

		fprintf(stderr, "%s\n", cause);
		send_line(&builder, "failed", cause);
		return FSV_INDEX_EXIT_FAILED;
	}
	if (key == NULL && !(key = fsv_index_key(rest[0], &error))) {
		send_line(&builder, "failed", error->message);
		return FSV_INDEX_EXIT_FAILED;
	}

	_fsv_preview_collector_init_sink(collector, &tee);
	trace = _fsv_trace_load_teed(rest[0], &tee, on_progress, &builder, NULL, &error);
	if (trace == NULL) {
		send_line(&builder, "failed", error->message);
		return FSV_INDEX_EXIT_FAILED;
	}
	/* Reading is over: the last preview is the whole of what was read. */
	send_preview(&builder);
	hold_if_asked();
	send_line(&builder, "stage saving", NULL);
	/* The trace's arrays read as zeros after this save (their pages go to the page cache):
	 * what is needed of it afterwards is copied first. */
	partial = g_strdup(fsv_trace_get_partial_error(trace));
	if (!_fsv_index_save_and_drop(trace, key, output, &error)) {
		send_line(&builder, "failed", error->message);
		return FSV_INDEX_EXIT_FAILED;
	}
	if (partial) {
		send_line(&builder, "done partial", partial);
		status = FSV_INDEX_EXIT_PARTIAL;
	} else {
		send_line(&builder, "done complete", NULL);
		status = FSV_INDEX_EXIT_COMPLETE;
	}
	/* The last line: the pipe ends now, so that the loader maps the index while this process
	 * frees the trace and exits (a second for a 100 M event trace). */
	fclose(builder.protocol);
	return status;
}
