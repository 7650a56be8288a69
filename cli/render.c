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
#include "fsv-loader.h"
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
on_progress(const FsvLoadProgress *progress, gpointer user_data)
{
	(void) user_data;
	if (progress->stage != FSV_LOAD_STAGE_READING)
		fprintf(stderr, "\r\033[Kfencescope render: %s…",
			progress->stage == FSV_LOAD_STAGE_CACHE    ? "opening the index"
			: progress->stage == FSV_LOAD_STAGE_SAVING ? "writing the index"
								   : "mapping the index");
	else if (progress->fraction >= 0)
		fprintf(stderr, "\rfencescope render: reading… %3.0f%% (%" PRIu64 " events)",
			progress->fraction * 100, progress->events);
	else
		fprintf(stderr, "\rfencescope render: reading… %" PRIu64 " events",
			progress->events);
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

/* The command line, as GOptionContext fills it, and what is derived from it. */
typedef struct {
	char *out_path;
	char *begin_text, *end_text;
	char *filter_text;
	char *recording;
	char *frame_budget_text;
	gint width, height; /* height 0: every row, at most 4000 px */
	/* G_MININT64: not given (any negative id given is refused). */
	gint64 select_op;
	gboolean is_quiet, show_fences, expand_lanes, no_legend, no_cache;
	char **rest; /* the TRACE; rest[0] becomes the recording picked under it */
	/* Derived. */
	struct fsa_report_time begin, end;
	guint64 frame_budget_ns; /* --frame-budget, 0 each display's vsync period */
	FsvRenderFormat format;
	FsvQuery *query; /* --filter, NULL when not given */
} RenderOptions;

static void
render_options_clear(RenderOptions *o)
{
	g_free(o->out_path);
	g_free(o->begin_text);
	g_free(o->end_text);
	g_free(o->filter_text);
	g_free(o->recording);
	g_free(o->frame_budget_text);
	g_strfreev(o->rest);
	g_clear_pointer(&o->query, fsv_query_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RenderOptions, render_options_clear)

static GOptionContext *
render_options_new_context(RenderOptions *o)
{
	const GOptionEntry entries[] = {
	    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o->out_path,
	     "Write FILE; .png, .svg or .pdf chooses the format", "FILE"},
	    {"begin", 0, 0, G_OPTION_ARG_STRING, &o->begin_text,
	     "Left edge: trace ns, a duration (2.5ms), or +DURATION from the first event "
	     "(default: the trace's start)",
	     "TIME"},
	    {"end", 0, 0, G_OPTION_ARG_STRING, &o->end_text,
	     "Right edge (default: the trace's end)", "TIME"},
	    {"width", 'W', 0, G_OPTION_ARG_INT, &o->width, "Width in pixels (default 1600)", "PX"},
	    {"height", 'H', 0, G_OPTION_ARG_INT, &o->height,
	     "Height of the timeline in pixels (default: every row, at most 4000); the "
	     "legend is a strip of its own under it",
	     "PX"},
	    {"select-op", 0, 0, G_OPTION_ARG_INT64, &o->select_op,
	     "Select the fence operation with this analyzer op id: highlight it and draw its "
	     "dependency arrows",
	     "ID"},
	    {"filter", 0, 0, G_OPTION_ARG_STRING, &o->filter_text,
	     "Fade operations not matching a search ('kind=wait and dur>2ms', the viewer's "
	     "search language, docs/user-guide.md)",
	     "QUERY"},
	    {"frame-budget", 0, 0, G_OPTION_ARG_STRING, &o->frame_budget_text,
	     "Frames: a frame over TIME is over budget, as fencescope report --frame-budget "
	     "grades it (default: the display's vsync period)",
	     "TIME"},
	    {"fences", 0, 0, G_OPTION_ARG_NONE, &o->show_fences,
	     "Expand the fence rows (CurrentValue steps)", NULL},
	    {"expand-lanes", 0, 0, G_OPTION_ARG_NONE, &o->expand_lanes,
	     "Show every lane of deep rows instead of their \"+k more\" slot", NULL},
	    {"no-legend", 0, 0, G_OPTION_ARG_NONE, &o->no_legend, "Leave the legend out", NULL},
	    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o->is_quiet, "No progress on stderr", NULL},
	    {"no-cache", 0, 0, G_OPTION_ARG_NONE, &o->no_cache,
	     "Build the trace's index again, without reading or writing the index cache", NULL},
	    {"recording", 0, 0, G_OPTION_ARG_STRING, &o->recording,
	     "Of a folder holding several recordings, the one named NAME (its LTTng trace name "
	     "or its folder)",
	     "NAME"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->rest, NULL, "TRACE"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	GOptionContext *context = g_option_context_new(NULL);

	g_option_context_set_summary(
	    context, "Draws the timeline the viewer shows (fencescope-view) without a display:\n"
		     "hardware queues with their fence wait and signal boxes, packets, doorbell\n"
		     "rings, preemption / TDR / fault markers and lost data (docs/viewer.md).");
	g_option_context_add_main_entries(context, entries, NULL);
	return context;
}

/* Phase 1: the command line, everything checked that can be without the trace. Returns
 * FS_EXIT_OK to go on, else the exit status (said on stderr). */
static int
render_options_parse(RenderOptions *o, int argc, char **argv)
{
	g_autoptr(GOptionContext) context = render_options_new_context(o);
	g_autoptr(GError) error = NULL;

	g_set_prgname("fencescope " RENDER_COMMAND);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fs_error(RENDER_COMMAND, "%s", error->message);
		return FS_EXIT_USAGE;
	}
	if (!o->rest || !o->rest[0] || o->rest[1]) {
		fs_error(RENDER_COMMAND, "give exactly one TRACE; see 'fencescope render --help'");
		return FS_EXIT_USAGE;
	}
	if (!fs_recording_pick(RENDER_COMMAND, &o->rest[0], o->recording))
		return FS_EXIT_FAILURE;
	if (!o->out_path) {
		fs_error(RENDER_COMMAND, "give -o FILE (.png, .svg or .pdf)");
		return FS_EXIT_USAGE;
	}
	if (!fsv_render_format_from_path(o->out_path, &o->format)) {
		fs_error(RENDER_COMMAND, "%s: the name must end in .png, .svg or .pdf",
			 o->out_path);
		return FS_EXIT_USAGE;
	}
	if (o->width < 320 || o->width > 16384 ||
	    (o->height != 0 && (o->height < 100 || o->height > 16384))) {
		fs_error(RENDER_COMMAND, "--width must be 320…16384 and --height 100…16384 pixels");
		return FS_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		const char *text = i == 0 ? o->begin_text : o->end_text;
		char *why = NULL;

		if (text &&
		    fsa_report_parse_time(text, i == 0 ? &o->begin : &o->end, &why) != FSA_OK) {
			fs_error(RENDER_COMMAND, "--%s %s: %s", i == 0 ? "begin" : "end", text,
				 why ? why : "not a time");
			free(why);
			return FS_EXIT_USAGE;
		}
	}
	if (o->frame_budget_text) {
		char *why = NULL;

		if (fsa_report_parse_frame_budget(o->frame_budget_text, &o->frame_budget_ns,
						  &why) != FSA_OK) {
			fs_error(RENDER_COMMAND, "--frame-budget %s: %s", o->frame_budget_text,
				 why ? why : "invalid");
			free(why);
			return FS_EXIT_USAGE;
		}
	}
	if (o->select_op != G_MININT64 && o->select_op < 0) {
		fs_error(RENDER_COMMAND,
			 "--select-op %" G_GINT64_FORMAT ": an op id is not negative",
			 o->select_op);
		return FS_EXIT_USAGE;
	}
	if (o->filter_text && !(o->query = fsv_query_parse(o->filter_text, NULL, &error))) {
		fs_error(RENDER_COMMAND, "--filter: %s", error->message);
		return FS_EXIT_USAGE;
	}
	return FS_EXIT_OK;
}

/* Phase 3: the trace, with progress on a terminal. */
static int
render_load_trace(const RenderOptions *o, FsvTrace **trace)
{
	bool show_progress = !o->is_quiet && isatty(STDERR_FILENO);
	g_autoptr(GError) error = NULL;

	/* From the index cache, else built by the index builder process (docs/viewer.md
	 * "Loading"). */
	*trace = fsv_trace_open(o->rest[0], o->no_cache ? FSV_OPEN_NO_CACHE : FSV_OPEN_DEFAULT,
				show_progress ? on_progress : NULL, NULL, NULL, &error);
	if (show_progress)
		fputs("\r\033[K", stderr);
	if (!*trace) {
		fs_error(RENDER_COMMAND, "%s", error->message);
		return FS_EXIT_USAGE;
	}
	return FS_EXIT_OK;
}

/* The time range to draw, [*b, *e] (the trace's own edges where not given). */
static int
render_resolve_range(const RenderOptions *o, const FsvTrace *trace, guint64 *b, guint64 *e)
{
	for (int i = 0; i < 2; i++) {
		bool is_begin = i == 0;
		guint64 unset =
		    is_begin ? fsv_trace_get_begin_ns(trace) : fsv_trace_get_end_ns(trace);

		if (!resolve(trace, is_begin ? &o->begin : &o->end, unset, is_begin ? b : e)) {
			fs_error(RENDER_COMMAND, "--%s %s: too far after the trace's start",
				 is_begin ? "begin" : "end",
				 is_begin ? o->begin_text : o->end_text);
			return FS_EXIT_USAGE;
		}
	}
	if (*e <= *b) {
		/* Name the option the user gave: the other edge is the trace's own. */
		if (!o->end.is_set)
			fs_error(RENDER_COMMAND, "--begin %s: at or after the trace's end",
				 o->begin_text);
		else if (!o->begin.is_set)
			fs_error(RENDER_COMMAND, "--end %s: at or before the trace's start",
				 o->end_text);
		else
			fs_error(RENDER_COMMAND, "--end must be after --begin");
		return FS_EXIT_USAGE;
	}
	return FS_EXIT_OK;
}

/* Phase 4: the view and what is drawn on it: rows, lanes, the selection (revealed: its row's
 * lanes expand when it lies in an aggregated slot), then the size, which depends on the rows,
 * and the range. */
static int
render_make_view(const RenderOptions *o, FsvTrace *trace, FsvView **view_out,
		 FsvRenderOptions *options)
{
	g_autoptr(FsvView) view = fsv_view_new(trace);
	guint64 b = 0, e = 0;
	int height = o->height;
	int status = render_resolve_range(o, trace, &b, &e);

	if (status != FS_EXIT_OK)
		return status;
	fsv_render_options_init(options);
	options->query = o->query; /* borrowed: o outlives the drawing */
	options->show_legend = !o->no_legend;
	fsv_view_set_frame_budget(view, o->frame_budget_ns);
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++) {
		if (o->show_fences && fsv_trace_get_row(trace, r)->kind == FSV_ROW_FENCE_GROUP)
			fsv_view_set_row_expanded(view, r, true);
		if (o->expand_lanes && fsv_view_row_has_stacked_lanes(view, r))
			fsv_view_set_row_lanes_expanded(view, r, true);
	}
	if (o->select_op != G_MININT64) {
		guint32 op = fsv_trace_find_op_by_id(trace, (guint64) o->select_op);

		if (op == FSV_INDEX_NONE) {
			fs_error(RENDER_COMMAND,
				 "--select-op %" G_GINT64_FORMAT ": no such op in %s", o->select_op,
				 o->rest[0]);
			return FS_EXIT_USAGE;
		}
		options->selection = (FsvItem){FSV_ITEM_OP, op, fsv_trace_get_op(trace, op)->row};
		fsv_view_reveal_item(view, &options->selection);
	}
	if (height == 0)
		/* The legend has a strip of its own under the timeline (fsv_render_to_file). */
		height =
		    CLAMP(fsv_view_get_ruler_height(view) + fsv_view_get_content_height(view) + 8,
			  240, 4000);
	fsv_view_set_size(view, o->width, height);
	if (o->begin.is_set || o->end.is_set)
		fsv_view_set_range(view, b, e);
	else
		fsv_view_fit(view);
	*view_out = g_steal_pointer(&view);
	return FS_EXIT_OK;
}

/* Phase 5: the image into the output file begun in phase 2, then under its name. */
static int
render_write(const RenderOptions *o, FsvTrace *trace, const FsvView *view,
	     const FsvRenderOptions *options, struct fsa_output_file *output)
{
	g_autoptr(GError) error = NULL;
	char *output_error = NULL;

	if (!fsv_render_to_file(trace, view, options, o->format, output->tmp_path, &error)) {
		/* The message names the temporary file: name the output instead. */
		fs_error(RENDER_COMMAND, "%s: cannot write the image", output->path);
		return FS_EXIT_OUTPUT;
	}
	if (fsa_output_file_commit(output, &output_error) != FSA_OK) {
		fs_error(RENDER_COMMAND, "%s", output_error ? output_error : o->out_path);
		free(output_error);
		return FS_EXIT_OUTPUT;
	}
	return FS_EXIT_OK;
}

int
fs_render_main(int argc, char **argv)
{
	g_auto(RenderOptions) o = {.width = 1600, .select_op = G_MININT64};
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvView) view = NULL;
	__attribute__((cleanup(output_file_clear))) struct fsa_output_file output = {0};
	FsvRenderOptions options;
	char *output_error = NULL;
	int status = render_options_parse(&o, argc, argv);

	if (status != FS_EXIT_OK)
		return status;
	/* Phase 2, before the trace is read: a wrong -o fails at once. */
	fs_remove_outputs_on_signals();
	if (fsa_output_file_begin(&output, o.out_path, FSA_OUTPUT_REPLACE | FSA_OUTPUT_INTO_SPECIAL,
				  &output_error) != FSA_OK) {
		fs_error(RENDER_COMMAND, "%s", output_error ? output_error : o.out_path);
		free(output_error);
		return FS_EXIT_OUTPUT;
	}
	if ((status = render_load_trace(&o, &trace)) != FS_EXIT_OK ||
	    (status = render_make_view(&o, trace, &view, &options)) != FS_EXIT_OK ||
	    (status = render_write(&o, trace, view, &options, &output)) != FS_EXIT_OK)
		return status;
	if (fsv_trace_get_partial_error(trace)) {
		fs_error(RENDER_COMMAND, "%s (drawn up to the damage)",
			 fsv_trace_get_partial_error(trace));
		return FS_EXIT_FAILURE;
	}
	return FS_EXIT_OK;
}
