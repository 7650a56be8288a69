/* SPDX-License-Identifier: MIT */
/*
 * `fencescope render TRACE -o out.png|svg|pdf`: draws the viewer's timeline without a display,
 * with the same code the GTK viewer draws with (viewer/core fsv_render_draw) on a cairo image,
 * SVG or PDF surface — for reports and CI. The format follows the output's extension.
 *
 * Exit status: 0 written; 1 the trace is damaged (what was read is drawn, marked partial);
 * 2 bad usage or an unreadable trace; 4 the -o file cannot be created (checked before the trace
 * is read) or written. The image appears under its name only once complete (fsa/output-file.h).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "fsa/output-file.h"
#include "fsa/report.h"
#include "fsv-render.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#include "cli.h"

#define RENDER_COMMAND "render"

static void
output_file_clear(struct fsa_output_file *file)
{
	fsa_output_file_end(file);
}

static void
on_progress(guint64 events, double fraction, gpointer user_data)
{
	(void) user_data;
	if (fraction >= 0)
		fprintf(stderr, "\rfencescope render: reading… %3.0f%% (%" PRIu64 " events)",
			fraction * 100, events);
	else
		fprintf(stderr, "\rfencescope render: reading… %" PRIu64 " events", events);
}

/* Returns false when +DURATION from the trace's start lies past the last representable time
 * (the sum would wrap around to an early time and draw something else than asked). */
static bool
resolve(const FsvTrace *trace, const struct fsa_report_time *t, guint64 unset, guint64 *ns)
{
	guint64 base = fsv_trace_get_begin_ns(trace);

	if (!t->is_set) {
		*ns = unset;
		return true;
	}
	if (t->is_relative && t->ns > G_MAXUINT64 - 1 - base)
		return false;
	*ns = t->is_relative ? base + t->ns : t->ns;
	return true;
}

int
fs_render_main(int argc, char **argv)
{
	g_autofree char *out_path = NULL;
	g_autofree char *begin_text = NULL;
	g_autofree char *end_text = NULL;
	g_autofree char *filter_text = NULL;
	g_autofree char *recording = NULL;
	gint width = 1600, height = 0;
	/* G_MININT64: not given (any negative id given is refused). */
	gint64 select_op = G_MININT64;
	gboolean is_quiet = FALSE, show_fences = FALSE, no_legend = FALSE;
	struct fsa_report_time begin = {0}, end = {0};
	g_auto(GStrv) rest = NULL;
	g_autoptr(GOptionContext) context = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvView) view = NULL;
	g_autoptr(FsvQuery) query = NULL;
	FsvRenderOptions options;
	FsvRenderFormat format;
	__attribute__((cleanup(output_file_clear))) struct fsa_output_file output = {0};
	char *output_error = NULL;
	guint64 b, e;
	const GOptionEntry entries[] = {
	    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path,
	     "Write FILE; .png, .svg or .pdf chooses the format", "FILE"},
	    {"begin", 0, 0, G_OPTION_ARG_STRING, &begin_text,
	     "Left edge: trace ns, a duration (2.5ms), or +DURATION from the first event "
	     "(default: the trace's start)",
	     "TIME"},
	    {"end", 0, 0, G_OPTION_ARG_STRING, &end_text, "Right edge (default: the trace's end)",
	     "TIME"},
	    {"width", 'W', 0, G_OPTION_ARG_INT, &width, "Width in pixels (default 1600)", "PX"},
	    {"height", 'H', 0, G_OPTION_ARG_INT, &height,
	     "Height of the timeline in pixels (default: every row, at most 4000); the "
	     "legend is a strip of its own under it",
	     "PX"},
	    {"select-op", 0, 0, G_OPTION_ARG_INT64, &select_op,
	     "Select the fence operation with this analyzer op id: highlight it and draw its "
	     "dependency arrows",
	     "ID"},
	    {"filter", 0, 0, G_OPTION_ARG_STRING, &filter_text,
	     "Fade operations not matching a search ('kind=wait and dur>2ms', the viewer's "
	     "search language, docs/user-guide.md)",
	     "QUERY"},
	    {"fences", 0, 0, G_OPTION_ARG_NONE, &show_fences,
	     "Expand the fence rows (CurrentValue steps)", NULL},
	    {"no-legend", 0, 0, G_OPTION_ARG_NONE, &no_legend, "Leave the legend out", NULL},
	    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &is_quiet, "No progress on stderr", NULL},
	    {"recording", 0, 0, G_OPTION_ARG_STRING, &recording,
	     "Of a folder holding several recordings, the one named NAME (its LTTng trace name "
	     "or its folder)",
	     "NAME"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "TRACE"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	context = g_option_context_new(NULL);
	g_set_prgname("fencescope " RENDER_COMMAND);
	g_option_context_set_summary(
	    context, "Draws the timeline the viewer shows (fencescope-view) without a display:\n"
		     "hardware queues with their fence wait and signal boxes, packets, doorbell\n"
		     "rings, preemption / TDR / fault markers and lost data (docs/viewer.md).");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fs_error(RENDER_COMMAND, "%s", error->message);
		return FS_EXIT_USAGE;
	}
	if (!rest || !rest[0] || rest[1]) {
		fs_error(RENDER_COMMAND, "give exactly one TRACE; see 'fencescope render --help'");
		return FS_EXIT_USAGE;
	}
	if (!fs_recording_pick(RENDER_COMMAND, &rest[0], recording))
		return FS_EXIT_FAILURE;
	if (!out_path) {
		fs_error(RENDER_COMMAND, "give -o FILE (.png, .svg or .pdf)");
		return FS_EXIT_USAGE;
	}
	if (!fsv_render_format_from_path(out_path, &format)) {
		fs_error(RENDER_COMMAND, "%s: the name must end in .png, .svg or .pdf", out_path);
		return FS_EXIT_USAGE;
	}
	if (width < 320 || width > 16384 || (height != 0 && (height < 100 || height > 16384))) {
		fs_error(RENDER_COMMAND, "--width must be 320…16384 and --height 100…16384 pixels");
		return FS_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		const char *text = i == 0 ? begin_text : end_text;
		char *why = NULL;

		if (text && fsa_report_parse_time(text, i == 0 ? &begin : &end, &why) != FSA_OK) {
			fs_error(RENDER_COMMAND, "--%s %s: %s", i == 0 ? "begin" : "end", text,
				 why ? why : "not a time");
			free(why);
			return FS_EXIT_USAGE;
		}
	}
	if (select_op != G_MININT64 && select_op < 0) {
		fs_error(RENDER_COMMAND,
			 "--select-op %" G_GINT64_FORMAT ": an op id is not negative", select_op);
		return FS_EXIT_USAGE;
	}
	fsv_render_options_init(&options);
	if (filter_text && !(query = fsv_query_parse(filter_text, NULL, &error))) {
		fs_error(RENDER_COMMAND, "--filter: %s", error->message);
		return FS_EXIT_USAGE;
	}
	options.query = query;
	/* Before the trace is read: a wrong -o fails at once. */
	fs_remove_outputs_on_signals();
	if (fsa_output_file_begin(&output, out_path, FSA_OUTPUT_REPLACE | FSA_OUTPUT_INTO_SPECIAL,
				  &output_error) != FSA_OK) {
		fs_error(RENDER_COMMAND, "%s", output_error ? output_error : out_path);
		free(output_error);
		return FS_EXIT_OUTPUT;
	}

	trace = fsv_trace_load(rest[0], !is_quiet && isatty(STDERR_FILENO) ? on_progress : NULL,
			       NULL, NULL, &error);
	if (!is_quiet && isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	if (!trace) {
		fs_error(RENDER_COMMAND, "%s", error->message);
		return FS_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		bool is_begin = i == 0;
		guint64 unset =
		    is_begin ? fsv_trace_get_begin_ns(trace) : fsv_trace_get_end_ns(trace);

		if (!resolve(trace, is_begin ? &begin : &end, unset, is_begin ? &b : &e)) {
			fs_error(RENDER_COMMAND, "--%s %s: too far after the trace's start",
				 is_begin ? "begin" : "end", is_begin ? begin_text : end_text);
			return FS_EXIT_USAGE;
		}
	}
	if (e <= b) {
		/* Name the option the user gave: the other edge is the trace's own. */
		if (!end.is_set)
			fs_error(RENDER_COMMAND, "--begin %s: at or after the trace's end",
				 begin_text);
		else if (!begin.is_set)
			fs_error(RENDER_COMMAND, "--end %s: at or before the trace's start",
				 end_text);
		else
			fs_error(RENDER_COMMAND, "--end must be after --begin");
		return FS_EXIT_USAGE;
	}
	view = fsv_view_new(trace);
	for (guint32 r = 0; show_fences && r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_FENCE_GROUP)
			fsv_view_set_row_expanded(view, r, true);
	if (select_op >= 0) {
		guint32 op = fsv_trace_find_op_by_id(trace, (guint64) select_op);

		if (op == FSV_INDEX_NONE) {
			fs_error(RENDER_COMMAND,
				 "--select-op %" G_GINT64_FORMAT ": no such op in %s", select_op,
				 rest[0]);
			return FS_EXIT_USAGE;
		}
		options.selection = (FsvItem){FSV_ITEM_OP, op, fsv_trace_get_op(trace, op)->row};
		/* Seen in its own lane: expands its row when it lies in an aggregated slot. */
		fsv_view_reveal_item(view, &options.selection);
	}
	if (height == 0)
		/* The legend has a strip of its own under the timeline (fsv_render_to_file). */
		height =
		    CLAMP(fsv_view_get_ruler_height(view) + fsv_view_get_content_height(view) + 8,
			  240, 4000);
	fsv_view_set_size(view, width, height);
	if (begin.is_set || end.is_set)
		fsv_view_set_range(view, b, e);
	else
		fsv_view_fit(view);
	options.show_legend = !no_legend;
	if (!fsv_render_to_file(trace, view, &options, format, output.tmp_path, &error)) {
		/* The message names the temporary file: name the output instead. */
		fs_error(RENDER_COMMAND, "%s: cannot write the image", output.path);
		return FS_EXIT_OUTPUT;
	}
	if (fsa_output_file_commit(&output, &output_error) != FSA_OK) {
		fs_error(RENDER_COMMAND, "%s", output_error ? output_error : out_path);
		free(output_error);
		return FS_EXIT_OUTPUT;
	}
	if (fsv_trace_get_partial_error(trace)) {
		fs_error(RENDER_COMMAND, "%s (drawn up to the damage)",
			 fsv_trace_get_partial_error(trace));
		return FS_EXIT_FAILURE;
	}
	return FS_EXIT_OK;
}
