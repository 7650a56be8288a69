/* SPDX-License-Identifier: MIT */
/*
 * viewer/app: a second trace below the window's own (fsv-compare.h). The pane is built once, at
 * the window's init: the base timeline's grid moves into a vertical GtkPaned whose lower child,
 * hidden until a comparison, is NEW's — a header (name, alignment, progress and Cancel while it
 * loads, Align Here, close) over a stack of FsvLoadView (what is loaded so far) and NEW's own
 * timeline with its scrollbars. NEW is loaded as the window loads a trace, by an FsvLoadJob
 * (fsv-load-job.h: cache, index builder, progress), so the UI thread never reads it.
 *
 * Both timelines keep one time axis: each announces its moves ("viewport-changed") and the other
 * follows through fsv_align_viewport() — the left edge shifted by the offset, the scale the
 * same — so whichever the user zooms or drags leads. A guard stops the echo. The window
 * (fsv-window.c) owns what follows the focus: the details pane, operations table, search and
 * bookmarks; this file only says which timeline is the other side (_fsv_window_set_compared).
 *
 * It is not the alignment arithmetic (viewer/core/fsv-align.c) nor the drawing (each timeline
 * draws its own trace with its own ruler).
 */
#include "fsv-config.h"

#include "fsv-compare.h"

#include <math.h>
#include <string.h>

#include "fsv-align.h"
#include "fsv-live.h"
#include "fsv-load-job.h"
#include "fsv-load-view.h"
#include "fsv-window-private.h"

#define COMPARE_DATA_KEY "fsv-compare"

typedef struct {
	FsvWindow *window; /* Weak: the owner, whose data this is */
	/* The pane's widgets, all Weak: children of the window. */
	GtkPaned *paned;
	GtkWidget *pane;
	GtkLabel *name_label, *offset_label;
	GtkWidget *progress_box, *align_button;
	GtkProgressBar *progress_bar;
	GtkStack *stack;
	FsvLoadView *load_view;
	FsvTimeline *timeline;
	GtkScrollbar *hscrollbar, *vscrollbar;
	GtkFileChooserNative *chooser; /* Compare With…'s, while open */

	FsvLoadJob *load; /* Owned: NEW's load, NULL when none runs */
	char *name;       /* NEW's folder name, while comparing */

	FsvTrace *trace;     /* NEW once loaded, until the comparison ends */
	gboolean is_shown;   /* NEW beside the window's trace (the window knows it) */
	FsvAlignSpec align;  /* --align, resolved when NEW is shown */
	gboolean has_align;  /* align holds a spec */
	char *align_problem; /* --align refused before loading: said when NEW is shown */
	gint64 offset_ns;    /* NEW_time = BASE_time + offset_ns */
	char *aligned_at;    /* what is aligned: "the trace starts", "op:12 = op:15", … */
	gboolean is_syncing; /* one timeline is following the other: no echo */
	gulong base_handler; /* the base timeline's "viewport-changed" */
	gulong new_handler;  /* NEW's */
} FsvCompare;

static FsvCompare *
compare_get(FsvWindow *window)
{
	return window ? g_object_get_data(G_OBJECT(window), COMPARE_DATA_KEY) : NULL;
}

static void
compare_free(gpointer data)
{
	FsvCompare *compare = data;

	/* The window's dispose ended the comparison (its load cancelled, its sides back). */
	g_clear_pointer(&compare->trace, fsv_trace_unref);
	fsv_align_spec_clear(&compare->align);
	g_free(compare->align_problem);
	g_free(compare->aligned_at);
	g_free(compare->name);
	g_free(compare);
}

/* --- The shared time axis ------------------------------------------------------------------ */

/* The other timeline shows what LEADER shows, moved by the offset (fsv-align.h). */
static void
sync_from(FsvCompare *compare, FsvTimeline *leader)
{
	FsvTimeline *base = _fsv_window_get_base_timeline(compare->window);
	FsvTimeline *follower = leader == base ? compare->timeline : base;
	FsvViewport from, to;

	if (compare->is_syncing || !compare->is_shown)
		return;
	compare->is_syncing = TRUE;
	fsv_timeline_get_viewport(leader, &from);
	fsv_align_viewport(&from, leader == base ? compare->offset_ns : -compare->offset_ns, &to);
	fsv_timeline_follow_viewport(follower, &to);
	compare->is_syncing = FALSE;
}

static void
on_viewport_changed(FsvTimeline *timeline, FsvCompare *compare)
{
	sync_from(compare, timeline);
}

/* The line over NEW's rows: which points are aligned and how far NEW's times are shifted. */
static void
offset_label_update(FsvCompare *compare)
{
	FsvTrace *base = fsv_timeline_get_trace(_fsv_window_get_base_timeline(compare->window));
	g_autofree char *shift = NULL;
	gint64 relative;
	g_autofree char *text = NULL;

	if (!compare->is_shown || base == NULL) {
		gtk_label_set_text(compare->offset_label, "");
		return;
	}
	/* The shift of NEW's times from its start against BASE's at one x: 0 when the starts
	 * are aligned, whatever the clocks of the two recordings. */
	relative = compare->offset_ns - fsv_align_starts(base, compare->trace);
	shift = fsv_align_format_offset(relative);
	text = relative == 0
		   ? g_strdup_printf("aligned at %s · NEW's times are BASE's", compare->aligned_at)
		   : g_strdup_printf("aligned at %s · NEW's times are BASE's %s",
				     compare->aligned_at, shift);
	gtk_label_set_text(compare->offset_label, text);
}

/* The offset becomes OFFSET_NS (WHAT: the points aligned, taken); LEADER stays where it is and
 * the other follows. Both fit (F) the union of the two traces, aligned. */
static void
set_offset(FsvCompare *compare, gint64 offset_ns, char *what, FsvTimeline *leader)
{
	FsvTimeline *base = _fsv_window_get_base_timeline(compare->window);
	guint64 begin, end;

	compare->offset_ns = offset_ns;
	g_free(compare->aligned_at);
	compare->aligned_at = what;
	fsv_align_union(fsv_timeline_get_trace(base), compare->trace, offset_ns, &begin, &end);
	/* Without echo: a fitted timeline refits to the union, then the other follows LEADER. */
	compare->is_syncing = TRUE;
	fsv_timeline_set_extent(base, begin, end);
	fsv_timeline_set_extent(compare->timeline, fsv_align_shift(begin, offset_ns),
				fsv_align_shift(end, offset_ns));
	compare->is_syncing = FALSE;
	sync_from(compare, leader);
	offset_label_update(compare);
}

/* --- Showing NEW --------------------------------------------------------------------------- */

static void
actions_update(FsvCompare *compare)
{
	GAction *align = g_action_map_lookup_action(G_ACTION_MAP(compare->window), "align-here");
	GAction *close = g_action_map_lookup_action(G_ACTION_MAP(compare->window), "close-compare");

	g_simple_action_set_enabled(G_SIMPLE_ACTION(align), compare->is_shown);
	g_simple_action_set_enabled(G_SIMPLE_ACTION(close),
				    compare->is_shown || compare->load != NULL);
}

static void
stop_progress(FsvCompare *compare)
{
	gtk_widget_set_visible(compare->progress_box, FALSE);
}

/* NEW (loaded) beside the window's trace (shown): the window follows whichever has the focus,
 * and the two are aligned. */
static void
show_new(FsvCompare *compare)
{
	FsvTimeline *base = _fsv_window_get_base_timeline(compare->window);
	g_autofree char *name = NULL;
	g_autofree char *problem = g_steal_pointer(&compare->align_problem);
	g_autoptr(GError) error = NULL;
	gint64 offset = fsv_align_starts(fsv_timeline_get_trace(base), compare->trace);
	char *what = g_strdup("the trace starts");

	fsv_timeline_set_trace(compare->timeline, compare->trace);
	gtk_stack_set_visible_child_name(compare->stack, "trace");
	name = g_markup_printf_escaped("<b>NEW</b> %s", fsv_trace_get_name(compare->trace));
	gtk_label_set_markup(compare->name_label, name);
	_fsv_window_set_compared(compare->window, compare->timeline, compare->trace);
	compare->is_shown = TRUE;
	if (compare->has_align) {
		if (fsv_align_resolve(&compare->align, fsv_timeline_get_trace(base), compare->trace,
				      &offset, &error)) {
			g_free(what);
			what = g_strdup_printf("%s = %s", compare->align.base_point.text,
					       compare->align.new_point.text);
		} else {
			g_free(problem);
			problem = g_strdup_printf(
			    "--align: %s; the trace starts are aligned instead", error->message);
		}
	}
	/* What could not be read of NEW, and the --align that could not be followed: one line
	 * that says both (a damaged NEW is also why an op it lost cannot be aligned on). */
	if (fsv_trace_get_partial_error(compare->trace)) {
		g_autofree char *damaged =
		    g_strdup_printf("NEW %s: %s", fsv_trace_get_name(compare->trace),
				    fsv_trace_get_partial_error(compare->trace));
		char *both = problem ? g_strdup_printf("%s — %s", damaged, problem)
				     : g_steal_pointer(&damaged);

		g_free(problem);
		problem = both;
	}
	if (problem)
		_fsv_window_show_error(compare->window, problem);
	compare->base_handler =
	    g_signal_connect(base, "viewport-changed", G_CALLBACK(on_viewport_changed), compare);
	compare->new_handler = g_signal_connect(compare->timeline, "viewport-changed",
						G_CALLBACK(on_viewport_changed), compare);
	set_offset(compare, offset, what, base);
	actions_update(compare);
}

/* NEW's progress, every 100 ms: the pane's loading page and its bar. */
static void
on_new_progress(const FsvLoadProgress *progress, gpointer user_data)
{
	FsvCompare *compare = user_data;

	fsv_load_view_show_progress(compare->load_view, compare->progress_bar, progress);
}

/* Whether the window shows a trace of its own, loaded (not one being replaced). */
static gboolean
has_base(FsvCompare *compare)
{
	return fsv_timeline_get_trace(_fsv_window_get_base_timeline(compare->window)) != NULL &&
	       !_fsv_window_is_loading(compare->window);
}

/* NEW is loaded (TRACE), or cannot be (ERROR; both NULL: cancelled). A newer comparison, or
 * its end, has destroyed an older load, whose end therefore never comes here. */
static void
on_new_loaded(FsvTrace *trace, const GError *error, gpointer user_data)
{
	FsvCompare *compare = user_data;
	g_autofree char *message = NULL;

	g_clear_pointer(&compare->load, fsv_load_job_destroy);
	stop_progress(compare);
	fsv_load_view_reset(compare->load_view, NULL);
	if (trace == NULL) {
		/* NEW cannot be opened: one line, and the window keeps its own trace alone. */
		if (error)
			message =
			    g_strdup_printf("Compare with %s: %s", compare->name, error->message);
		fsv_window_close_compare(compare->window);
		if (message)
			_fsv_window_show_error(compare->window, message);
		return;
	}
	compare->trace = fsv_trace_ref(trace);
	gtk_label_set_text(compare->name_label, compare->name);
	/* `--compare` on the command line: the window's own trace may still be loading; NEW is
	 * shown beside it when it is (_fsv_compare_base_shown). */
	if (has_base(compare))
		show_new(compare);
	actions_update(compare);
}

void
fsv_window_compare(FsvWindow *window, GFile *file, const char *align)
{
	FsvCompare *compare = compare_get(window);
	g_autoptr(GError) error = NULL;
	g_autofree char *label = NULL;
	g_autofree char *path = NULL;

	g_return_if_fail(FSV_IS_WINDOW(window) && compare != NULL);
	g_return_if_fail(G_IS_FILE(file));
	fsv_window_close_compare(window);
	if (_fsv_live_is_running(window)) {
		_fsv_window_show_error(window, "Compare: the window follows a live session; stop "
					       "following it (Cancel) first");
		return;
	}
	path = g_file_get_path(file);
	if (path == NULL) {
		g_autofree char *uri = g_file_get_uri(file);
		g_autofree char *message =
		    g_strdup_printf("Compare with %s: not a local folder", uri);

		_fsv_window_show_error(window, message);
		return;
	}
	if (align && !(compare->has_align = fsv_align_parse(align, &compare->align, &error)))
		compare->align_problem = g_strdup_printf(
		    "--align: %s; the trace starts are aligned instead", error->message);
	compare->name = g_path_get_basename(path);
	compare->load =
	    fsv_load_job_start(path, _fsv_window_get_open_flags(window),
			       G_APPLICATION(gtk_window_get_application(GTK_WINDOW(window))),
			       on_new_progress, on_new_loaded, compare);

	/* The pane, half of the height, shows what is loaded so far. */
	label = g_strdup_printf("Loading %s…", compare->name);
	gtk_label_set_text(compare->name_label, label);
	gtk_label_set_text(compare->offset_label, "");
	gtk_progress_bar_set_fraction(compare->progress_bar, 0);
	gtk_progress_bar_set_text(compare->progress_bar, "");
	gtk_widget_set_visible(compare->progress_box, TRUE);
	fsv_load_view_reset(compare->load_view, compare->name);
	gtk_stack_set_visible_child_name(compare->stack, "loading");
	gtk_widget_set_visible(compare->pane, TRUE);
	if (gtk_widget_get_height(GTK_WIDGET(compare->paned)) > 1)
		gtk_paned_set_position(compare->paned,
				       gtk_widget_get_height(GTK_WIDGET(compare->paned)) / 2);
	actions_update(compare);
}

void
fsv_window_close_compare(FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);
	FsvTimeline *base;
	gboolean had_focus;

	if (compare == NULL || (compare->load == NULL && compare->trace == NULL &&
				!gtk_widget_get_visible(compare->pane)))
		return;
	base = _fsv_window_get_base_timeline(window);
	had_focus = gtk_widget_is_ancestor(gtk_root_get_focus(GTK_ROOT(window))
					       ? gtk_root_get_focus(GTK_ROOT(window))
					       : GTK_WIDGET(window),
					   compare->pane);
	g_clear_pointer(&compare->load, fsv_load_job_destroy);
	stop_progress(compare);
	if (compare->is_shown) {
		g_clear_signal_handler(&compare->base_handler, base);
		g_clear_signal_handler(&compare->new_handler, compare->timeline);
		_fsv_window_unset_compared(window);
		compare->is_shown = FALSE;
		/* The base alone again: F fits its own trace. */
		if (base)
			fsv_timeline_set_extent(base, 0, 0);
	}
	fsv_timeline_set_trace(compare->timeline, NULL);
	fsv_load_view_reset(compare->load_view, NULL);
	g_clear_pointer(&compare->trace, fsv_trace_unref);
	fsv_align_spec_clear(&compare->align);
	compare->has_align = FALSE;
	g_clear_pointer(&compare->align_problem, g_free);
	g_clear_pointer(&compare->aligned_at, g_free);
	g_clear_pointer(&compare->name, g_free);
	gtk_widget_set_visible(compare->pane, FALSE);
	actions_update(compare);
	if (had_focus && base && gtk_widget_get_mapped(GTK_WIDGET(base)))
		gtk_widget_grab_focus(GTK_WIDGET(base));
}

void
_fsv_compare_base_shown(FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);

	if (compare && compare->trace && !compare->is_shown && compare->load == NULL &&
	    has_base(compare))
		show_new(compare);
}

/* --- Align Here ---------------------------------------------------------------------------- */

/* Where TIMELINE's alignment point is: its selection's start, else its go-to marker. */
static gboolean
anchor_of(FsvTimeline *timeline, guint64 *ns)
{
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	FsvItem item;

	fsv_timeline_get_selection(timeline, &item);
	switch (item.kind) {
	case FSV_ITEM_OP:
		*ns = fsv_trace_get_op(trace, item.index)->begin_ns;
		return TRUE;
	case FSV_ITEM_PACKET:
		*ns = fsv_trace_get_packet(trace, item.index)->start_ns;
		return TRUE;
	case FSV_ITEM_MARKER:
		*ns = fsv_trace_get_marker(trace, item.index)->begin_ns;
		return TRUE;
	case FSV_ITEM_LOSS:
		*ns = fsv_trace_get_loss(trace, item.index)->begin_ns;
		return TRUE;
	case FSV_ITEM_FRAME:
		/* Its box's start, as `--align frame:N` (fsv-align.h). */
		*ns = fsv_align_frame_ns(trace, item.index);
		return TRUE;
	default:
		return fsv_timeline_get_cursor(timeline, ns);
	}
}

void
_fsv_compare_align_here(FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);
	FsvTimeline *base;
	FsvTrace *base_trace;
	guint64 base_ns, new_ns;
	g_autofree char *base_at = NULL;
	g_autofree char *new_at = NULL;

	if (compare == NULL || !compare->is_shown)
		return;
	base = _fsv_window_get_base_timeline(window);
	base_trace = fsv_timeline_get_trace(base);
	if (!anchor_of(base, &base_ns) || !anchor_of(compare->timeline, &new_ns)) {
		_fsv_window_show_error(
		    window, "Align Here: select an operation (or go to a time, Ctrl+G) in both "
			    "traces first; the two are then drawn at the same x");
		return;
	}
	base_at = fsv_trace_format_time(base_trace, base_ns);
	new_at = fsv_trace_format_time(compare->trace, new_ns);
	/* The timeline that has the focus stays where it is; the other moves. */
	set_offset(compare, fsv_align_offset(base_ns, new_ns),
		   g_strdup_printf("BASE %s = NEW %s", base_at, new_at),
		   _fsv_window_get_timeline(window));
}

/* --- Actions ------------------------------------------------------------------------------- */

static void
chooser_response(GtkNativeDialog *dialog, int response, FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);
	/* Released after the response is handled (the dialog is the caller's here). */
	g_autoptr(GtkFileChooserNative) chooser =
	    compare ? g_steal_pointer(&compare->chooser) : NULL;

	if (response == GTK_RESPONSE_ACCEPT) {
		g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));

		if (file)
			fsv_window_compare(window, file, NULL);
	}
}

void
_fsv_compare_dispose(FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);

	if (compare == NULL)
		return;
	fsv_window_close_compare(window);
	if (compare->chooser) {
		g_signal_handlers_disconnect_by_data(compare->chooser, window);
		gtk_native_dialog_destroy(GTK_NATIVE_DIALOG(compare->chooser));
	}
	g_clear_object(&compare->chooser);
}

static void
compare_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	FsvWindow *window = user_data;
	FsvCompare *compare = compare_get(window);

	(void) action;
	(void) parameter;
	if (compare->chooser)
		return;
	if (!has_base(compare)) {
		_fsv_window_show_error(window, "Compare: open a trace first; the one to compare "
					       "with is shown below it");
		return;
	}
	compare->chooser = gtk_file_chooser_native_new(
	    "Compare With Trace Folder", GTK_WINDOW(window), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
	    "_Compare", "_Cancel");
	g_signal_connect(compare->chooser, "response", G_CALLBACK(chooser_response), window);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(compare->chooser));
}

static void
align_here_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	(void) action;
	(void) parameter;
	_fsv_compare_align_here(FSV_WINDOW(user_data));
}

static void
close_compare_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	(void) action;
	(void) parameter;
	fsv_window_close_compare(FSV_WINDOW(user_data));
}

/* --- The pane ------------------------------------------------------------------------------ */

/* A scrollbar only while there is something out of sight on its axis (as the window's). */
static void
on_adjustment_changed(GtkAdjustment *adjustment, GtkWidget *scrollbar)
{
	gtk_widget_set_visible(scrollbar, gtk_adjustment_get_upper(adjustment) -
						  gtk_adjustment_get_lower(adjustment) >
					      gtk_adjustment_get_page_size(adjustment) + 0.5);
}

static GtkWidget *
icon_button(const char *icon, const char *action, const char *tooltip, const char *name)
{
	GtkWidget *button = gtk_button_new_from_icon_name(icon);

	gtk_button_set_has_frame(GTK_BUTTON(button), FALSE);
	/* A click keeps the focus where it was: on the timeline the panes follow. */
	gtk_widget_set_focus_on_click(button, FALSE);
	gtk_actionable_set_action_name(GTK_ACTIONABLE(button), action);
	gtk_widget_set_tooltip_text(button, tooltip);
	gtk_accessible_update_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
				       -1);
	return button;
}

/* NEW's header: its name, the alignment, progress and Cancel while loading, Align Here, close. */
static GtkWidget *
build_header(FsvCompare *compare)
{
	GtkWidget *header = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	GtkWidget *cancel = gtk_button_new_with_mnemonic("_Cancel");

	gtk_widget_add_css_class(header, "fsv-compare-header");
	gtk_widget_set_margin_start(header, 8);
	gtk_widget_set_margin_end(header, 4);
	gtk_widget_set_margin_top(header, 2);
	gtk_widget_set_margin_bottom(header, 2);
	compare->name_label = GTK_LABEL(gtk_label_new(""));
	gtk_label_set_ellipsize(compare->name_label, PANGO_ELLIPSIZE_MIDDLE);
	gtk_label_set_max_width_chars(compare->name_label, 40);
	compare->offset_label = GTK_LABEL(gtk_label_new(""));
	gtk_label_set_xalign(compare->offset_label, 0);
	gtk_label_set_ellipsize(compare->offset_label, PANGO_ELLIPSIZE_END);
	gtk_widget_set_hexpand(GTK_WIDGET(compare->offset_label), TRUE);
	gtk_widget_add_css_class(GTK_WIDGET(compare->offset_label), "dim-label");
	gtk_widget_set_tooltip_text(
	    GTK_WIDGET(compare->offset_label),
	    "Both timelines share one time axis: NEW time = BASE time + the "
	    "offset. Align Here (Ctrl+L) aligns the selected operation of "
	    "each; Escape with nothing selected closes the comparison.");
	compare->progress_box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	compare->progress_bar = GTK_PROGRESS_BAR(gtk_progress_bar_new());
	gtk_progress_bar_set_show_text(compare->progress_bar, TRUE);
	gtk_widget_set_size_request(GTK_WIDGET(compare->progress_bar), 240, -1);
	gtk_widget_set_valign(GTK_WIDGET(compare->progress_bar), GTK_ALIGN_CENTER);
	gtk_actionable_set_action_name(GTK_ACTIONABLE(cancel), "win.close-compare");
	gtk_widget_set_focus_on_click(cancel, FALSE);
	gtk_box_append(GTK_BOX(compare->progress_box), GTK_WIDGET(compare->progress_bar));
	gtk_box_append(GTK_BOX(compare->progress_box), cancel);
	gtk_widget_set_visible(compare->progress_box, FALSE);
	compare->align_button = gtk_button_new_with_mnemonic("_Align Here");
	gtk_button_set_has_frame(GTK_BUTTON(compare->align_button), FALSE);
	gtk_widget_set_focus_on_click(compare->align_button, FALSE);
	gtk_actionable_set_action_name(GTK_ACTIONABLE(compare->align_button), "win.align-here");
	gtk_widget_set_tooltip_text(compare->align_button,
				    "Align the selected operation (or go-to marker) of each trace "
				    "(Ctrl+L)");
	gtk_box_append(GTK_BOX(header), GTK_WIDGET(compare->name_label));
	gtk_box_append(GTK_BOX(header), GTK_WIDGET(compare->offset_label));
	gtk_box_append(GTK_BOX(header), compare->progress_box);
	gtk_box_append(GTK_BOX(header), compare->align_button);
	gtk_box_append(GTK_BOX(header),
		       icon_button("window-close-symbolic", "win.close-compare",
				   "Close the comparison (Escape with nothing selected)",
				   "Close the comparison"));
	return header;
}

/* NEW's timeline with scrollbars of its own, as the base's (no GtkScrolledWindow: its
 * capture-phase scroll handler would take the wheel from the timeline). */
static GtkWidget *
build_timeline_grid(FsvCompare *compare)
{
	GtkWidget *grid = gtk_grid_new();
	GtkAdjustment *hadjustment = gtk_adjustment_new(0, 0, 0, 0, 0, 0);
	GtkAdjustment *vadjustment = gtk_adjustment_new(0, 0, 0, 0, 0, 0);

	compare->timeline = FSV_TIMELINE(fsv_timeline_new());
	gtk_widget_set_hexpand(GTK_WIDGET(compare->timeline), TRUE);
	gtk_widget_set_vexpand(GTK_WIDGET(compare->timeline), TRUE);
	g_object_set(compare->timeline, "hadjustment", hadjustment, "vadjustment", vadjustment,
		     NULL);
	gtk_accessible_update_property(GTK_ACCESSIBLE(compare->timeline),
				       GTK_ACCESSIBLE_PROPERTY_LABEL, "Compared timeline", -1);
	compare->vscrollbar =
	    GTK_SCROLLBAR(gtk_scrollbar_new(GTK_ORIENTATION_VERTICAL, vadjustment));
	compare->hscrollbar =
	    GTK_SCROLLBAR(gtk_scrollbar_new(GTK_ORIENTATION_HORIZONTAL, hadjustment));
	g_signal_connect_object(hadjustment, "changed", G_CALLBACK(on_adjustment_changed),
				compare->hscrollbar, 0);
	g_signal_connect_object(vadjustment, "changed", G_CALLBACK(on_adjustment_changed),
				compare->vscrollbar, 0);
	gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(compare->timeline), 0, 0, 1, 1);
	gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(compare->vscrollbar), 1, 0, 1, 1);
	gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(compare->hscrollbar), 0, 1, 1, 1);
	return grid;
}

/* The base timeline's grid moves into a vertical GtkPaned, NEW's pane (hidden) under it: with
 * one child shown, a GtkPaned gives it all its space and draws no handle. */
static void
build_pane(FsvCompare *compare)
{
	GtkWidget *grid =
	    gtk_widget_get_parent(GTK_WIDGET(_fsv_window_get_base_timeline(compare->window)));
	GtkWidget *box = gtk_widget_get_parent(grid);
	GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
	GtkWidget *stack = gtk_stack_new();

	g_return_if_fail(GTK_IS_BOX(box));
	gtk_widget_set_vexpand(paned, TRUE);
	gtk_widget_set_hexpand(paned, TRUE);
	/* Neither timeline below its minimum (a squeezed one was drawn shifted); the two share
	 * the height as it changes. */
	gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
	gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
	gtk_paned_set_resize_start_child(GTK_PANED(paned), TRUE);
	gtk_paned_set_resize_end_child(GTK_PANED(paned), TRUE);
	g_object_ref(grid);
	gtk_box_remove(GTK_BOX(box), grid);
	gtk_paned_set_start_child(GTK_PANED(paned), grid);
	g_object_unref(grid);
	gtk_box_prepend(GTK_BOX(box), paned);
	compare->paned = GTK_PANED(paned);

	compare->pane = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	gtk_widget_add_css_class(compare->pane, "fsv-compare-pane");
	gtk_box_append(GTK_BOX(compare->pane), build_header(compare));
	compare->stack = GTK_STACK(stack);
	gtk_widget_set_vexpand(stack, TRUE);
	compare->load_view = FSV_LOAD_VIEW(fsv_load_view_new());
	gtk_stack_add_named(compare->stack, GTK_WIDGET(compare->load_view), "loading");
	gtk_stack_add_named(compare->stack, build_timeline_grid(compare), "trace");
	gtk_box_append(GTK_BOX(compare->pane), stack);
	gtk_widget_set_visible(compare->pane, FALSE);
	gtk_paned_set_end_child(GTK_PANED(paned), compare->pane);
}

void
_fsv_compare_install(FsvWindow *window)
{
	static const GActionEntry entries[] = {
	    {.name = "compare", .activate = compare_activated},
	    {.name = "align-here", .activate = align_here_activated},
	    {.name = "close-compare", .activate = close_compare_activated},
	};
	FsvCompare *compare = g_new0(FsvCompare, 1);

	compare->window = window;
	g_object_set_data_full(G_OBJECT(window), COMPARE_DATA_KEY, compare, compare_free);
	g_action_map_add_action_entries(G_ACTION_MAP(window), entries, G_N_ELEMENTS(entries),
					window);
	build_pane(compare);
	actions_update(compare);
}

/* --- State dump and tests ------------------------------------------------------------------ */

/* Where TIMELINE lies on the screen and what it shows, under keys PREFIX_*. */
static void
dump_timeline(FsvWindow *window, FsvTimeline *timeline, const char *prefix, GKeyFile *file)
{
	const FsvView *view = fsv_timeline_get_view(timeline);
	graphene_point_t origin = GRAPHENE_POINT_INIT(-1, -1);
	double surface_x = 0, surface_y = 0;
	char number[G_ASCII_DTOSTR_BUF_SIZE];
	char key[64];

	if (view == NULL)
		return;
	if (!gtk_widget_compute_point(GTK_WIDGET(timeline), GTK_WIDGET(window),
				      &GRAPHENE_POINT_INIT(0, 0), &origin))
		origin = GRAPHENE_POINT_INIT(-1, -1);
	gtk_native_get_surface_transform(GTK_NATIVE(window), &surface_x, &surface_y);
#define DUMP_INT(name, value)                                                                      \
	(g_snprintf(key, sizeof(key), "%s_%s", prefix, name),                                      \
	 g_key_file_set_integer(file, "compare", key, (value)))
	DUMP_INT("x", (int) lround(origin.x + surface_x));
	DUMP_INT("y", (int) lround(origin.y + surface_y));
	DUMP_INT("width", fsv_view_get_width(view));
	DUMP_INT("height", fsv_view_get_height(view));
	DUMP_INT("label_width", fsv_view_get_label_width(view));
#undef DUMP_INT
	g_snprintf(key, sizeof(key), "%s_begin_ns", prefix);
	g_key_file_set_uint64(file, "compare", key, fsv_view_get_begin_ns(view));
	g_snprintf(key, sizeof(key), "%s_ns_per_px", prefix);
	g_key_file_set_string(file, "compare", key,
			      g_ascii_dtostr(number, sizeof(number), fsv_view_get_ns_per_px(view)));
	g_snprintf(key, sizeof(key), "%s_trace_begin_ns", prefix);
	g_key_file_set_uint64(file, "compare", key,
			      fsv_trace_get_begin_ns(fsv_timeline_get_trace(timeline)));
}

void
_fsv_compare_dump_state(FsvWindow *window, GKeyFile *file)
{
	FsvCompare *compare = compare_get(window);

	if (compare == NULL)
		return;
	g_key_file_set_boolean(file, "compare", "shown", compare->is_shown);
	g_key_file_set_boolean(file, "compare", "loading", compare->load != NULL);
	if (!compare->is_shown)
		return;
	g_key_file_set_int64(file, "compare", "offset_ns", compare->offset_ns);
	g_key_file_set_boolean(file, "compare", "new_has_focus",
			       _fsv_window_get_timeline(window) == compare->timeline);
	dump_timeline(window, _fsv_window_get_base_timeline(window), "base", file);
	dump_timeline(window, compare->timeline, "new", file);
}

FsvTimeline *
_fsv_compare_get_timeline(FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);

	return compare && compare->is_shown ? compare->timeline : NULL;
}

gboolean
_fsv_compare_is_loading(FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);

	return compare && compare->load != NULL;
}

gboolean
_fsv_compare_get_offset(FsvWindow *window, gint64 *offset_ns)
{
	FsvCompare *compare = compare_get(window);

	if (compare == NULL || !compare->is_shown)
		return FALSE;
	*offset_ns = compare->offset_ns;
	return TRUE;
}

const char *
_fsv_compare_get_offset_text(FsvWindow *window)
{
	FsvCompare *compare = compare_get(window);

	return compare && compare->is_shown ? gtk_label_get_text(compare->offset_label) : NULL;
}
