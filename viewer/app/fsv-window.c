/* SPDX-License-Identifier: MIT */
/*
 * FsvWindow: opening traces (file chooser, recent traces, drag and drop), loading one in a
 * worker thread with progress and Cancel, and the panes around the timeline: the details of
 * the selection (its references as links), the statistics of a range, the measurement, the
 * status line, the search and the operations table (kept in step with the timeline's
 * selection both ways), where a window opened by `--select-op` / `--at` starts, the legend's
 * strip, the go-to-time bar (Ctrl+G), the trace's bookmarks (fsv-bookmarks.h) and, for
 * end-to-end tests, the state dump of FSV_TEST_STATE_FILE.
 *
 * Loading is an FsvLoadJob (fsv-load-job.h): fsv_trace_open() in a worker thread, the index from
 * the cache or from the index builder process, so the UI thread never reads the trace, builds an
 * index or waits on either. Its progress every 100 ms fills the loading page (FsvLoadView: the
 * rows found so far and what they hold so far) and the bar. A newer open drops an older load
 * (its builder is killed), and a load that failed or was cancelled brings back the trace shown
 * so far.
 */
#include "fsv-config.h"

#include "fsv-load-job.h"
#include "fsv-load-view.h"
#include "fsv-bookmarks.h"
#include "fsv-chain.h"
#include "fsv-compare.h"
#include "fsv-time.h"
#include "fsv-window-private.h"
#include "fsv-live.h"

#include <string.h>

#include "fsv-ops-table-private.h"
#include "fsv-ops-table.h"

#define RECENT_APP_NAME "fencescope-view"
#define RECENT_MAX      10

struct _FsvWindow {
	GtkApplicationWindow parent_instance;

	/* Template children. */
	GtkMenuButton *recent_button;
	GtkSearchEntry *search_entry;
	GtkRevealer *progress_revealer;
	GtkLabel *progress_label;
	GtkProgressBar *progress_bar;
	GtkRevealer *error_revealer;
	GtkLabel *error_label;
	GtkStack *stack;
	FsvLoadView *load_view;
	/* The timeline of the trace the window opened (the template's "timeline"). */
	FsvTimeline *base_timeline;
	/*
	 * The timeline everything below follows: the details pane, the operations table, go to
	 * time, bookmarks, the legend. It is base_timeline, or in a comparison (fsv-compare.h)
	 * whichever of the two has the focus: then `timeline`, `trace`, `bookmarks`, `chain_index`
	 * and `chain_cancellable` are the focused side's and the other_* fields the other side's,
	 * and moving the focus swaps them (swap_sides).
	 */
	FsvTimeline *timeline;
	GtkScrollbar *vscrollbar, *hscrollbar;
	GtkLabel *status_label;
	GtkGrid *details_grid;
	GtkDrawingArea *legend_area;
	GtkScrolledWindow *legend_scroller;
	GtkRevealer *goto_revealer;
	GtkEntry *goto_entry;
	GtkLabel *goto_error;
	GtkMenuButton *bookmarks_button;
	GtkBox *bookmarks_box;
	GtkLabel *bookmarks_hint;

	FsvBookmarks *bookmarks; /* of the trace shown, NULL before the first load */
	gboolean is_legend_shown;
	int legend_width; /* the width the legend's height was computed for */
	/* Idle updates of the legend's height and of the bookmark list (0: none pending); removed
	 * at dispose, so none runs on a destroyed window. */
	guint legend_idle, bookmarks_idle;
	/* FSV_TEST_STATE_FILE: where the state dump goes (NULL: none) and what it last wrote. */
	char *state_file;
	char *state_text;
	guint state_source;
	FsvOpsTable *ops_table;

	guint details_rows;
	FsvTrace *trace; /* the trace shown, NULL before the first load */
	/* The chains of causes of its waits (fsv-chain.h): built in a worker thread once the
	 * trace is shown (1.4 s for the 12 M-event stress trace on a loaded machine), then kept. */
	FsvChainIndex *chain_index;
	GCancellable *chain_cancellable;
	FsvLoadJob *load; /* Owned: the load that runs, NULL when none */
	GtkFileChooserNative *chooser;
	FsvQuery *query; /* the search entry's last valid query, NULL when empty */

	/* fsv_window_set_start(): applied once the loaded trace is laid out at its real size. */
	gboolean has_start_op, has_start_at;
	guint64 start_op_id;
	char *start_at; /* --at as typed */
	guint start_tick;
	FsvOpenFlags open_flags;

	/* The other side of a comparison, NULL when there is none (see `timeline`). */
	FsvTimeline *other_timeline; /* Weak: in the compare pane */
	FsvTrace *other_trace;
	FsvBookmarks *other_bookmarks;
	FsvChainIndex *other_chain_index;
	GCancellable *other_chain_cancellable;
};

G_DEFINE_FINAL_TYPE(FsvWindow, fsv_window, GTK_TYPE_APPLICATION_WINDOW)

/* --- Loading ------------------------------------------------------------------------------- */

/* The load's progress, every 100 ms: the loading page and the bar. */
static void
on_load_progress(const FsvLoadProgress *progress, gpointer user_data)
{
	FsvWindow *self = user_data;

	fsv_load_view_show_progress(self->load_view, self->progress_bar, progress);
}

static void
show_error(FsvWindow *self, const char *message)
{
	gtk_label_set_text(self->error_label, message ? message : "");
	gtk_revealer_set_reveal_child(self->error_revealer, message != NULL);
}

static void
stop_progress(FsvWindow *self)
{
	gtk_revealer_set_reveal_child(self->progress_revealer, FALSE);
}

static void
add_recent(FsvTrace *trace)
{
	g_autoptr(GFile) file = g_file_new_for_path(fsv_trace_get_path(trace));
	g_autofree char *uri = g_file_get_uri(file);
	g_autofree char *display_name = g_strdup(fsv_trace_get_name(trace));
	char *groups[] = {(char *) "fencescope", NULL};
	GtkRecentData data = {
	    .display_name = display_name,
	    .mime_type = (char *) "inode/directory",
	    .app_name = (char *) RECENT_APP_NAME,
	    .app_exec = (char *) RECENT_APP_NAME " %u",
	    .groups = groups,
	};

	gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
}

static void bookmarks_load(FsvWindow *self);
static void legend_update(FsvWindow *self);

static void details_update(FsvWindow *self);

static void
chain_index_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
	(void) source;
	(void) cancellable;
	g_task_return_pointer(task, fsv_chain_index_new(task_data),
			      (GDestroyNotify) fsv_chain_index_free);
}

static void
chain_index_done(GObject *source, GAsyncResult *result, gpointer user_data)
{
	FsvChainIndex *index = g_task_propagate_pointer(G_TASK(result), NULL);

	(void) source;
	(void) user_data;
	/* The window is alive (its dispose cancels): a cancelled build gives no index. */
	if (index == NULL)
		return;
	/* The trace of either side of a comparison (the sides may have swapped meanwhile). */
	if (g_task_get_task_data(G_TASK(result)) == FSV_WINDOW(source)->trace) {
		FSV_WINDOW(source)->chain_index = index;
		details_update(FSV_WINDOW(source));
	} else if (g_task_get_task_data(G_TASK(result)) == FSV_WINDOW(source)->other_trace) {
		FSV_WINDOW(source)->other_chain_index = index;
	} else {
		fsv_chain_index_free(index);
	}
}

/* The chain index of TRACE, built off the UI thread; *CANCELLABLE cancels it. */
static void
chain_index_build_for(FsvWindow *self, FsvTrace *trace, GCancellable **cancellable)
{
	g_autoptr(GTask) task = NULL;

	if (*cancellable)
		g_cancellable_cancel(*cancellable);
	g_clear_object(cancellable);
	*cancellable = g_cancellable_new();
	task = g_task_new(self, *cancellable, chain_index_done, NULL);
	g_task_set_task_data(task, fsv_trace_ref(trace), (GDestroyNotify) fsv_trace_unref);
	g_task_set_return_on_cancel(task, TRUE);
	g_task_run_in_thread(task, chain_index_thread);
}

/* The chain index of the trace shown. */
static void
chain_index_build(FsvWindow *self)
{
	chain_index_build_for(self, self->trace, &self->chain_cancellable);
}

/* "BASE — fencescope viewer", "BASE vs NEW — fencescope viewer" in a comparison. */
static void
title_update(FsvWindow *self)
{
	FsvTrace *base = self->timeline == self->base_timeline ? self->trace : self->other_trace;
	FsvTrace *compared =
	    self->timeline == self->base_timeline ? self->other_trace : self->trace;
	g_autofree char *title = NULL;

	if (base == NULL)
		return;
	if (compared)
		title = g_strdup_printf("%s vs %s — fencescope viewer", fsv_trace_get_name(base),
					fsv_trace_get_name(compared));
	else
		title = g_strdup_printf("%s — fencescope viewer", fsv_trace_get_name(base));
	gtk_window_set_title(GTK_WINDOW(self), title);
}

static void
show_trace(FsvWindow *self, FsvTrace *trace)
{
	/* A new trace of the window's own (a load, a live session's update) ends a comparison. */
	if (self->other_timeline)
		fsv_window_close_compare(self);
	g_clear_pointer(&self->chain_index, fsv_chain_index_free);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	self->trace = fsv_trace_ref(trace);
	chain_index_build(self);
	fsv_timeline_set_trace(self->timeline, trace);
	fsv_timeline_set_query(self->timeline, self->query);
	fsv_ops_table_set_trace(self->ops_table, trace);
	fsv_ops_table_set_query(self->ops_table, self->query);
	bookmarks_load(self);
	legend_update(self);
	title_update(self);
	gtk_stack_set_visible_child_name(self->stack, "trace");
	gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
}

/* --select-op, --at: the op selected and zoomed to, the time centred. */
static void
apply_start(FsvWindow *self)
{
	g_autofree char *problem = NULL;

	if (self->has_start_op) {
		guint32 op = fsv_trace_find_op_by_id(self->trace, self->start_op_id);

		if (op == FSV_INDEX_NONE) {
			problem = g_strdup_printf("--select-op %" G_GUINT64_FORMAT
						  ": this trace has no operation with that op id",
						  self->start_op_id);
		} else {
			FsvItem item = {FSV_ITEM_OP, op, fsv_trace_get_op(self->trace, op)->row};

			fsv_timeline_reveal_item(self->timeline, &item);
			fsv_timeline_zoom_to_selection(self->timeline);
		}
	}
	if (self->has_start_at) {
		g_autoptr(GError) error = NULL;
		guint64 ns = 0;

		if (fsv_trace_parse_time(self->trace, self->start_at, &ns, &error))
			fsv_timeline_center_at(self->timeline, ns);
		else if (problem == NULL)
			problem = g_strdup_printf("--at: %s", error->message);
	}
	self->has_start_op = self->has_start_at = FALSE;
	if (problem)
		show_error(self, problem);
}

/* The first allocation fits the trace to the timeline's real width: the start is applied after
 * it, or the fit would undo it. */
static gboolean
apply_start_when_laid_out(GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
	FsvWindow *self = user_data;
	const FsvView *view = fsv_timeline_get_view(self->timeline);
	int width = gtk_widget_get_width(widget);

	(void) clock;
	if (self->trace == NULL || view == NULL || width <= 1 || fsv_view_get_width(view) != width)
		return G_SOURCE_CONTINUE;
	self->start_tick = 0;
	apply_start(self);
	return G_SOURCE_REMOVE;
}

void
fsv_window_set_start(FsvWindow *self, gboolean has_op, guint64 op_id, const char *at)
{
	g_return_if_fail(FSV_IS_WINDOW(self));
	self->has_start_op = has_op;
	self->start_op_id = op_id;
	self->has_start_at = at != NULL;
	g_free(self->start_at);
	self->start_at = g_strdup(at);
}

/* The page a load leaves behind when it brings no trace: the trace shown before, else the
 * empty state. */
static void
show_previous_page(FsvWindow *self)
{
	gtk_stack_set_visible_child_name(self->stack, self->trace ? "trace" : "empty");
	if (self->trace)
		gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
}

/* The load is over: TRACE shown, or ERROR said (both NULL: cancelled). A newer open has
 * destroyed an older load, whose end therefore never comes here. */
static void
on_load_done(FsvTrace *trace, const GError *error, gpointer user_data)
{
	FsvWindow *self = user_data;

	g_clear_pointer(&self->load, fsv_load_job_destroy);
	stop_progress(self);
	fsv_load_view_reset(self->load_view, NULL);
	if (trace == NULL) {
		/* `--compare NEW` waits for a base that will not come: nothing to compare with. */
		if (self->trace == NULL)
			fsv_window_close_compare(self);
		show_previous_page(self);
		show_error(self, error ? error->message : NULL);
		return;
	}
	/* A damaged trace opens with what could be read, and says so. */
	show_error(self, fsv_trace_get_partial_error(trace) ? fsv_trace_get_partial_error(trace)
							    : fsv_trace_get_clock_warning(trace));
	show_trace(self, trace);
	add_recent(trace);
	/* `--compare NEW` loaded before the base: shown beside it now. */
	_fsv_compare_base_shown(self);
	if (self->has_start_op || self->has_start_at)
		self->start_tick = gtk_widget_add_tick_callback(
		    GTK_WIDGET(self->timeline), apply_start_when_laid_out, self, NULL);
}

void
fsv_window_open(FsvWindow *self, GFile *file)
{
	g_autofree char *path = NULL;
	g_autofree char *name = NULL;
	g_autofree char *label = NULL;

	g_return_if_fail(FSV_IS_WINDOW(self));
	g_return_if_fail(G_IS_FILE(file));
	_fsv_live_stop(self);
	/* Another trace of the window's own: a comparison (or NEW's load) ends. */
	fsv_window_close_compare(self);
	g_clear_pointer(&self->load, fsv_load_job_destroy);

	path = g_file_get_path(file);
	if (path == NULL) {
		g_autofree char *uri = g_file_get_uri(file);
		g_autofree char *message = g_strdup_printf("%s: not a local folder", uri);

		/* A load this open cancelled is over too: no progress bar or loading page is left
		 * behind. */
		stop_progress(self);
		show_previous_page(self);
		show_error(self, message);
		return;
	}
	self->load = fsv_load_job_start(path, self->open_flags,
					G_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))),
					on_load_progress, on_load_done, self);

	name = g_file_get_basename(file);
	label = g_strdup_printf("Loading %s…", name);
	gtk_label_set_text(self->progress_label, label);
	gtk_progress_bar_set_fraction(self->progress_bar, 0);
	gtk_progress_bar_set_text(self->progress_bar, "");
	gtk_revealer_set_reveal_child(self->progress_revealer, TRUE);
	/* What is loaded so far, instead of the empty state or the previous trace (which comes
	 * back if this load fails or is cancelled). */
	fsv_load_view_reset(self->load_view, name);
	gtk_stack_set_visible_child_name(self->stack, "loading");
	show_error(self, NULL);
}

void
fsv_window_set_open_flags(FsvWindow *self, FsvOpenFlags flags)
{
	g_return_if_fail(FSV_IS_WINDOW(self));
	self->open_flags = flags;
}

static void
on_cancel_clicked(FsvWindow *self)
{
	if (self->load)
		fsv_load_job_cancel(self->load);
	/* Following a live session: Cancel stops it, the trace so far stays (fsv-live.h). */
	_fsv_live_stop(self);
}

static void
on_error_dismissed(FsvWindow *self)
{
	show_error(self, NULL);
}

/* --- Details pane -------------------------------------------------------------------------- */

static void
details_clear(FsvWindow *self)
{
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->details_grid))))
		gtk_grid_remove(self->details_grid, child);
	self->details_rows = 0;
}

static void
details_add(FsvWindow *self, const char *name, const char *value)
{
	GtkWidget *key = gtk_label_new(name);
	GtkWidget *val = gtk_label_new(value);

	gtk_label_set_xalign(GTK_LABEL(key), 0);
	gtk_label_set_yalign(GTK_LABEL(key), 0);
	gtk_widget_add_css_class(key, "fsv-details-key");
	gtk_label_set_xalign(GTK_LABEL(val), 0);
	gtk_label_set_wrap(GTK_LABEL(val), TRUE);
	gtk_label_set_wrap_mode(GTK_LABEL(val), PANGO_WRAP_WORD_CHAR);
	gtk_label_set_selectable(GTK_LABEL(val), TRUE);
	gtk_label_set_max_width_chars(GTK_LABEL(val), 36);
	gtk_widget_set_hexpand(val, TRUE);
	gtk_grid_attach(self->details_grid, key, 0, (int) self->details_rows, 1, 1);
	gtk_grid_attach(self->details_grid, val, 1, (int) self->details_rows, 1, 1);
	self->details_rows++;
}

static void
details_heading(FsvWindow *self, const char *text)
{
	GtkWidget *label = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(label), 0);
	gtk_widget_add_css_class(label, "heading");
	gtk_widget_set_margin_top(label, self->details_rows ? 12 : 0);
	gtk_grid_attach(self->details_grid, label, 0, (int) self->details_rows, 2, 1);
	self->details_rows++;
}

static void
details_add_count(FsvWindow *self, const char *name, guint64 value)
{
	g_autofree char *text = g_strdup_printf("%" G_GUINT64_FORMAT, value);

	details_add(self, name, text);
}

static void
details_add_duration(FsvWindow *self, const char *name, guint64 ns)
{
	g_autofree char *text = fsv_format_duration(ns);

	details_add(self, name, text);
}

/* A link of the details pane: selects and reveals the item it names. */
static gboolean
on_details_link(GtkLabel *label, const char *uri, FsvWindow *self)
{
	const FsvItem *target = g_object_get_data(G_OBJECT(label), "fsv-link-target");

	(void) uri;
	if (target == NULL || self->trace == NULL)
		return FALSE;
	/* Copied: revealing rebuilds the pane, and this label with it. */
	FsvItem item = *target;

	fsv_timeline_reveal_item(self->timeline, &item);
	return TRUE;
}

static void
details_add_link(FsvWindow *self, const char *name, const char *value, const FsvItem *target)
{
	g_autofree char *escaped = g_markup_escape_text(value, -1);
	g_autofree char *markup = g_strdup_printf("<a href=\"fsv-item:%d:%u\">%s</a>",
						  (int) target->kind, target->index, escaped);
	GtkWidget *label;

	details_add(self, name, value);
	label = gtk_grid_get_child_at(self->details_grid, 1, (int) self->details_rows - 1);
	gtk_label_set_markup(GTK_LABEL(label), markup);
	/* A selectable label takes the click for its selection, not its link. */
	gtk_label_set_selectable(GTK_LABEL(label), FALSE);
	gtk_widget_set_tooltip_text(label, "Select it in the timeline");
	g_object_set_data_full(G_OBJECT(label), "fsv-link-target",
			       g_memdup2(target, sizeof(*target)), g_free);
	g_signal_connect(label, "activate-link", G_CALLBACK(on_details_link), self);
}

/* The most links of a chain the pane lists. */
#define CHAIN_MAX_LINKS 24

/* What a chain that ended names as its cause (fsa_chain_stop_name, in words). */
static const char *
chain_stop_text(enum fsa_chain_stop stop)
{
	switch (stop) {
	case FSA_CHAIN_STOP_CPU_SUBMISSION:
		return "the CPU's submission";
	case FSA_CHAIN_STOP_CPU_SIGNAL:
		return "a CPU signal";
	case FSA_CHAIN_STOP_TRACE_START:
		return "submitted before the trace";
	case FSA_CHAIN_STOP_NOT_OBSERVED:
		return "never completed: nothing released it";
	case FSA_CHAIN_STOP_INFERRED:
		return "an inferred operation (lost log entry): its time is a range";
	case FSA_CHAIN_STOP_UNQUEUED:
		return "an unqueued signal: its command buffer is not known";
	case FSA_CHAIN_STOP_RELEASE_UNKNOWN:
		return "what released it is not in the trace";
	case FSA_CHAIN_STOP_NO_PACKET:
		return "its command buffer's packet is not in the trace";
	case FSA_CHAIN_STOP_UNEXPLAINED:
		return "a packet's start nothing in the trace explains";
	case FSA_CHAIN_STOP_LIMIT:
		return "longer than the pane lists";
	default:
		return fsa_chain_stop_name(stop);
	}
}

/* A wait's chain of causes (docs/analyzer.md "Chains of causes"): each link a link to its op or
 * packet, with the part of the wait's time it holds. */
static void
details_add_chain(FsvWindow *self, guint32 op)
{
	g_autoptr(GArray) links = NULL;
	enum fsa_chain_stop stop = FSA_CHAIN_STOP_KIND_COUNT;
	FsvItem stop_item;

	if (self->chain_index == NULL) {
		details_heading(self, "Chain of causes");
		details_add(self, "", "indexing the trace…");
		return;
	}
	links = fsv_chain_index_chain_of_wait(self->chain_index, op, CHAIN_MAX_LINKS, &stop,
					      &stop_item);
	if (links == NULL || links->len < 2)
		return;
	{
		/* The timeline outlines the same links (the wait itself is the selection). */
		g_autoptr(GArray) items = g_array_new(FALSE, FALSE, sizeof(FsvItem));

		for (guint i = 1; i < links->len; i++) {
			const FsvItem *it = &g_array_index(links, FsvChainLink, i).item;
			const FsvItem *last =
			    items->len ? &g_array_index(items, FsvItem, items->len - 1) : NULL;

			/* A submission names the packet its queue link named: once. */
			if (it->kind != FSV_ITEM_NONE &&
			    (!last || last->kind != it->kind || last->index != it->index))
				g_array_append_val(items, *it);
		}
		fsv_timeline_set_highlights(self->timeline,
					    (const FsvItem *) (gpointer) items->data, items->len);
	}
	details_heading(self, "Chain of causes");
	for (guint i = 1; i < links->len; i++) {
		const FsvChainLink *l = &g_array_index(links, FsvChainLink, i);
		g_autofree char *title = l->item.kind != FSV_ITEM_NONE
					     ? fsv_trace_dup_item_title(self->trace, &l->item)
					     : g_strdup("(not in the trace)");
		g_autofree char *held = fsv_format_duration(l->hold_end_ns - l->hold_begin_ns);
		g_autofree char *value = g_strdup_printf("%s · holds %s", title, held);

		if (l->item.kind != FSV_ITEM_NONE)
			details_add_link(self, fsa_chain_role_name(l->role), value, &l->item);
		else
			details_add(self, fsa_chain_role_name(l->role), value);
	}
	details_add(self, "Ends at", chain_stop_text(stop));
}

/* Issue 16 §3: a frame's critical path (fsv_chain_index_path_of_frame, the report's
 * definition): each link a link to its op, packet or flip with the part of the frame it holds,
 * outlined in the timeline, then the share per queue, engine, process and display. */
static void
details_add_frame_path(FsvWindow *self, guint32 frame)
{
	g_autoptr(FsvFramePath) path = NULL;
	g_autoptr(GArray) shares = NULL;
	g_autoptr(GArray) items = g_array_new(FALSE, FALSE, sizeof(FsvItem));
	guint64 span;

	if (self->chain_index == NULL) {
		details_heading(self, "Critical path");
		details_add(self, "", "indexing the trace…");
		return;
	}
	path = fsv_chain_index_path_of_frame(self->chain_index, frame, CHAIN_MAX_LINKS);
	if (path == NULL)
		return;
	span = path->end_ns - path->begin_ns;
	details_heading(self, "Critical path");
	for (guint i = 0; i < path->links->len; i++) {
		const FsvPathLink *l = &g_array_index(path->links, FsvPathLink, i);
		g_autofree char *title =
		    !l->has_item ? g_strdup_printf("flip %" G_GUINT64_FORMAT, l->flip_id)
		    : l->item.kind != FSV_ITEM_NONE
			? fsv_trace_dup_item_title(self->trace, &l->item)
			: g_strdup("(not in the trace)");
		g_autofree char *held = fsv_format_duration(l->hold_end_ns - l->hold_begin_ns);
		g_autofree char *value = g_strdup_printf("%s · holds %s", title, held);
		const FsvItem *last =
		    items->len ? &g_array_index(items, FsvItem, items->len - 1) : NULL;

		if (l->item.kind != FSV_ITEM_NONE) {
			details_add_link(self, l->role, value, &l->item);
			if (!last || last->kind != l->item.kind || last->index != l->item.index)
				g_array_append_val(items, l->item);
		} else {
			details_add(self, l->role, value);
		}
	}
	details_add(self, "Ends at", path->stop);
	fsv_timeline_set_highlights(self->timeline, (const FsvItem *) (gpointer) items->data,
				    items->len);
	shares = fsv_frame_path_shares(self->trace, path);
	if (shares->len == 0)
		return;
	details_heading(self, "Share of the frame");
	for (guint i = 0; i < shares->len; i++) {
		const FsvPathShare *s = &g_array_index(shares, FsvPathShare, i);
		g_autofree char *held = fsv_format_duration(s->held_ns);
		g_autofree char *name = g_strdup_printf("%s %s", s->scope, s->key);
		g_autofree char *value = g_strdup_printf(
		    "%s (%.1f %%)", held, span ? 100.0 * (double) s->held_ns / (double) span : 0.0);

		details_add(self, name, value);
	}
}

static void
details_add_selection(FsvWindow *self, const FsvItem *item)
{
	g_autofree char *title = fsv_trace_dup_item_title(self->trace, item);
	g_autoptr(GArray) links = NULL;
	g_auto(GStrv) fields = fsv_trace_describe_item_with_links(
	    self->trace, item, fsv_timeline_get_frame_budget(self->timeline), &links);

	details_heading(self, title);
	for (guint i = 0; fields[i] && fields[i + 1]; i += 2) {
		const FsvItem *target = &g_array_index(links, FsvItem, i / 2);

		if (target->kind != FSV_ITEM_NONE)
			details_add_link(self, fields[i], fields[i + 1], target);
		else
			details_add(self, fields[i], fields[i + 1]);
	}
	if (item->kind == FSV_ITEM_OP &&
	    fsv_trace_get_op(self->trace, item->index)->kind == FSA_OP_WAIT)
		details_add_chain(self, item->index);
	if (item->kind == FSV_ITEM_FRAME)
		details_add_frame_path(self, item->index);
}

/* One row's share of a range: its label on one line, what it did on the next, across both
 * columns (a queue label is too long for the name column). */
static void
details_add_row_stats(FsvWindow *self, const FsvRowStats *r, guint64 span_ns)
{
	const FsvRow *row = fsv_trace_get_row(self->trace, r->row);
	g_autoptr(GString) text = g_string_new(row->label);
	const char *sep = "\n";
	GtkWidget *label;

	if (r->wait_count) {
		g_string_append_printf(text, "%s%" G_GUINT64_FORMAT " waits", sep, r->wait_count);
		sep = " · ";
	}
	if (r->signal_count) {
		g_string_append_printf(text, "%s%" G_GUINT64_FORMAT " signals", sep,
				       r->signal_count);
		sep = " · ";
	}
	if (r->packet_count) {
		g_string_append_printf(text, "%s%" G_GUINT64_FORMAT " packets", sep,
				       r->packet_count);
		sep = " · ";
	}
	if (r->marker_count) {
		g_string_append_printf(text, "%s%" G_GUINT64_FORMAT " markers", sep,
				       r->marker_count);
		sep = " · ";
	}
	if (r->busy_engines > 0) {
		g_string_append_printf(text, "%sbusy %.1f %%", sep,
				       100.0 * (double) r->busy_ns / (double) MAX(span_ns, 1));
		sep = " · ";
	}
	if (r->depth_max > 0) {
		g_string_append_printf(text, "%smax depth %u", sep, r->depth_max);
		sep = " · ";
	}
	if (r->wait_count + r->signal_count > 0) {
		g_autofree char *p50 = fsv_format_duration(r->latency_p50_ns);
		g_autofree char *max = fsv_format_duration(r->latency_max_ns);

		g_string_append_printf(text, "%sp50 %s, max %s", sep, p50, max);
	}
	label = gtk_label_new(text->str);
	gtk_label_set_xalign(GTK_LABEL(label), 0);
	gtk_label_set_wrap(GTK_LABEL(label), TRUE);
	gtk_label_set_selectable(GTK_LABEL(label), TRUE);
	gtk_widget_set_margin_top(label, 4);
	gtk_grid_attach(self->details_grid, label, 0, (int) self->details_rows, 2, 1);
	self->details_rows++;
}

static void
details_add_range(FsvWindow *self, guint64 begin, guint64 end)
{
	FsvRangeStats stats;
	const FsvRowStats *t = &stats.total;
	g_autofree char *from = fsv_trace_format_time(self->trace, begin);
	g_autofree char *to = fsv_trace_format_time(self->trace, end);
	g_autofree char *span = g_strdup_printf("%s → %s", from, to);

	fsv_trace_range_stats(self->trace, begin, end, &stats);
	details_heading(self, "Range");
	details_add(self, "Span", span);
	details_add_duration(self, "Duration", end - begin);
	details_add_count(self, "Waits", t->wait_count);
	details_add_count(self, "Signals", t->signal_count);
	details_add_count(self, "Inferred", t->inferred_count);
	details_add_count(self, "Never completed", t->never_completed_count);
	details_add_count(self, "Packets", t->packet_count);
	details_add_count(self, "Markers", t->marker_count);
	if (t->wait_count + t->signal_count > 0) {
		g_autofree char *mean = fsv_format_duration((guint64) t->latency_mean_ns);

		details_add_duration(self, "Latency min", t->latency_min_ns);
		details_add_duration(self, "Latency p50", t->latency_p50_ns);
		details_add_duration(self, "Latency p99", t->latency_p99_ns);
		details_add_duration(self, "Latency max", t->latency_max_ns);
		details_add(self, "Latency mean", mean);
		details_add_duration(self, "Stalled on GPU", t->stalled_ns);
	}
	/* Counter tracks (issue 15 §4): the engines' mean busy fraction, the deepest queue. */
	if (t->busy_engines > 0 && end > begin) {
		g_autofree char *busy = g_strdup_printf(
		    "%.1f %% (%u engine%s)",
		    100.0 * (double) t->busy_ns / ((double) (end - begin) * t->busy_engines),
		    t->busy_engines, t->busy_engines == 1 ? "" : "s");

		details_add(self, "Busy (mean)", busy);
	}
	if (t->depth_max > 0)
		details_add_count(self, "Max queue depth", t->depth_max);
	if (stats.lost_entries)
		details_add_count(self, "Log entries lost", stats.lost_entries);
	if (stats.discarded_events)
		details_add_count(self, "Events discarded", stats.discarded_events);
	if (stats.rows && stats.rows->len > 0)
		details_heading(self, "Rows in the range");
	for (guint i = 0; stats.rows && i < stats.rows->len; i++)
		details_add_row_stats(self, &g_array_index(stats.rows, FsvRowStats, i),
				      end - begin);
	fsv_range_stats_clear(&stats);
}

static void
details_add_summary(FsvWindow *self)
{
	const struct fsa_summary *summary = fsv_trace_get_summary(self->trace);
	guint64 waits = 0, signals = 0;

	for (int s = 0; s < 3; s++) {
		waits += summary->op_counts[s][FSA_OP_WAIT];
		signals += summary->op_counts[s][FSA_OP_SIGNAL];
	}
	details_heading(self, fsv_trace_get_name(self->trace));
	details_add(self, "Path", fsv_trace_get_path(self->trace));
	details_add_count(self, "Events", summary->event_count);
	details_add_duration(self, "Duration",
			     fsv_trace_get_end_ns(self->trace) -
				 fsv_trace_get_begin_ns(self->trace));
	details_add_count(self, "Fence waits", waits);
	details_add_count(self, "Fence signals", signals);
	details_add_count(self, "Inferred", summary->inferred_ops);
	details_add_count(self, "Never completed", summary->never_completed_ops);
	details_add_count(self, "Packets", summary->packet_count);
	details_add_count(self, "Dependencies", summary->edge_count);
	details_add_count(self, "Log entries lost", summary->log_entries_lost);
	details_add_count(self, "Events discarded", summary->tracer_discarded_events);
	details_heading(self, "Tip");
	details_add(self, "Click", "a box for its details and dependency arrows");
	details_add(self, "Shift+drag", "a range for its statistics");
	details_add(self, "Ctrl+click", "twice (or M twice) to measure");
}

/* The pane shows, in order: the selection, the range, and the trace's summary when there is
 * neither. */
static void
details_update(FsvWindow *self)
{
	FsvItem item;
	guint64 begin, end;
	gboolean has_range;

	details_clear(self);
	fsv_timeline_set_highlights(self->timeline, NULL, 0);
	if (self->trace == NULL)
		return;
	fsv_timeline_get_selection(self->timeline, &item);
	has_range = fsv_timeline_get_range(self->timeline, &begin, &end);
	if (item.kind != FSV_ITEM_NONE)
		details_add_selection(self, &item);
	if (has_range)
		details_add_range(self, begin, end);
	if (item.kind == FSV_ITEM_NONE && !has_range)
		details_add_summary(self);
}

/* The timeline handlers below hear both timelines of a comparison and follow only the one that
 * has the focus (`timeline`). */
static void
on_selection_changed(FsvWindow *self, FsvTimeline *timeline)
{
	FsvItem item;

	if (timeline != self->timeline)
		return;
	details_update(self);
	/* The table follows the timeline: the op's row selected and scrolled to. */
	fsv_timeline_get_selection(self->timeline, &item);
	fsv_ops_table_select_op(self->ops_table,
				item.kind == FSV_ITEM_OP ? item.index : FSV_INDEX_NONE);
}

void
fsv_window_set_frame_budget(FsvWindow *self, guint64 budget_ns)
{
	g_return_if_fail(FSV_IS_WINDOW(self));
	fsv_timeline_set_frame_budget(self->base_timeline, budget_ns);
	if (self->other_timeline)
		fsv_timeline_set_frame_budget(self->other_timeline, budget_ns);
	/* The details pane grades the selected frame against it too. */
	if (self->trace)
		details_update(self);
}

/* A row of the operations table selected: its box selected and brought into view. */
static void
on_table_op_selected(FsvWindow *self, guint op)
{
	FsvItem item;

	if (self->trace == NULL || op >= fsv_trace_get_op_count(self->trace))
		return;
	item = (FsvItem){
	    .kind = FSV_ITEM_OP, .index = op, .row = fsv_trace_get_op(self->trace, op)->row};
	fsv_timeline_reveal_item(self->timeline, &item);
}

static void
on_range_changed(FsvWindow *self, FsvTimeline *timeline)
{
	if (timeline == self->timeline)
		details_update(self);
}

static void
status_update(FsvWindow *self)
{
	guint64 a, b;
	g_autofree char *text = NULL;
	const char *status = fsv_timeline_get_status(self->timeline);

	/* What is under the pointer in the other timeline of a comparison, if it is there. */
	if (*status == '\0' && self->other_timeline)
		status = fsv_timeline_get_status(self->other_timeline);

	if (self->trace && fsv_timeline_get_measure(self->timeline, &a, &b)) {
		g_autofree char *dt = fsv_format_duration(a > b ? a - b : b - a);
		g_autofree char *ta = fsv_trace_format_time(self->trace, MIN(a, b));
		g_autofree char *tb = fsv_trace_format_time(self->trace, MAX(a, b));

		const char *name_a = fsv_timeline_get_measure_name(self->timeline, FALSE);
		const char *name_b = fsv_timeline_get_measure_name(self->timeline, TRUE);
		g_autofree char *names = NULL;

		/* The box edges the points snapped to, first point first. */
		if (name_a || name_b)
			names = g_strdup_printf(" · %s → %s", name_a ? name_a : "(free)",
						name_b ? name_b : "(free)");
		text = g_strdup_printf("Δt = %s (%s → %s)%s%s%s", dt, ta, tb, names ? names : "",
				       *status ? "    " : "", status);
	} else {
		text = g_strdup(*status ? status
					: "Scroll: zoom · drag: pan · shift+drag: range · "
					  "ctrl+click or M: measure · Ctrl+?: shortcuts");
	}
	gtk_label_set_text(self->status_label, text);
}

static void
on_measure_changed(FsvWindow *self, FsvTimeline *timeline)
{
	if (timeline == self->timeline)
		status_update(self);
}

static void
on_timeline_status(FsvWindow *self, GParamSpec *pspec, FsvTimeline *timeline)
{
	(void) pspec;
	(void) timeline;
	status_update(self);
}

/* --- Search -------------------------------------------------------------------------------- */

/* Issue 16 §3, go to frame N: the search `frame=N` (or `frame:N`), which names a frame, not
 * ops. True with *NUMBER set when TEXT is one. */
static gboolean
parse_frame_search(const char *text, guint64 *number)
{
	g_autofree char *compact = g_strstrip(g_strdup(text));
	char *end = NULL;

	if (!g_str_has_prefix(compact, "frame"))
		return FALSE;
	end = g_strchug(compact + strlen("frame"));
	if (*end != '=' && *end != ':')
		return FALSE;
	end = g_strchug(end + 1);
	if (!g_ascii_isdigit(*end))
		return FALSE;
	*number = g_ascii_strtoull(end, &end, 10);
	return *end == '\0';
}

static void
on_search_changed(FsvWindow *self)
{
	const char *text = gtk_editable_get_text(GTK_EDITABLE(self->search_entry));
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvQuery) query = NULL;
	guint64 frame;

	if (parse_frame_search(text, &frame)) {
		/* Enter goes to the frame; no op is filtered meanwhile. */
		gtk_widget_remove_css_class(GTK_WIDGET(self->search_entry), "error");
		g_clear_pointer(&self->query, fsv_query_unref);
		fsv_timeline_set_query(self->timeline, NULL);
		fsv_ops_table_set_query(self->ops_table, NULL);
		return;
	}
	query = fsv_query_parse(text, NULL, &error);
	if (query == NULL) {
		gtk_widget_add_css_class(GTK_WIDGET(self->search_entry), "error");
		gtk_widget_set_tooltip_text(GTK_WIDGET(self->search_entry), error->message);
		return;
	}
	gtk_widget_remove_css_class(GTK_WIDGET(self->search_entry), "error");
	gtk_widget_set_tooltip_text(
	    GTK_WIDGET(self->search_entry),
	    "Search (Ctrl+F): dur>2ms, kind=wait|signal, state=, source=, queue=, pid=, "
	    "fence=, value=, op=, combined with and, or, not and ( ); Enter selects the next "
	    "match; frame=N goes to frame N");
	g_clear_pointer(&self->query, fsv_query_unref);
	if (fsv_query_is_active(query))
		self->query = g_steal_pointer(&query);
	fsv_timeline_set_query(self->timeline, self->query);
	if (self->other_timeline)
		fsv_timeline_set_query(self->other_timeline, self->query);
	fsv_ops_table_set_query(self->ops_table, self->query);
}

static void
on_search_stopped(FsvWindow *self)
{
	gtk_editable_set_text(GTK_EDITABLE(self->search_entry), "");
	gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
}

/* Enter: selects the next op matching the search after the selected one, wrapping around, and
 * brings it into view at the current zoom. */
static void
on_search_activate(FsvWindow *self)
{
	FsvItem selection;
	guint32 next;
	guint64 number;

	/* Keys typed after Enter (Z, W, F, arrows) are for the timeline, not the entry. */
	gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
	if (self->trace != NULL &&
	    parse_frame_search(gtk_editable_get_text(GTK_EDITABLE(self->search_entry)), &number)) {
		guint32 frame = fsv_trace_find_frame(self->trace, number);
		FsvItem item;

		if (frame == FSV_INDEX_NONE) {
			gtk_widget_error_bell(GTK_WIDGET(self));
			return;
		}
		item =
		    (FsvItem){FSV_ITEM_FRAME, frame, fsv_trace_get_frame(self->trace, frame)->row};
		/* Scrolled into view and selected: the details pane lists its critical path. */
		fsv_timeline_reveal_item(self->timeline, &item);
		return;
	}
	if (self->trace == NULL || !fsv_query_is_active(self->query))
		return;
	fsv_timeline_get_selection(self->timeline, &selection);
	/* One pass over the ops: a batch of the matches overlapping the selection's start
	 * could be all earlier ops still open, and the search then cycled over them. */
	next = fsv_trace_find_next_op(self->trace, self->query,
				      selection.kind == FSV_ITEM_OP ? selection.index
								    : FSV_INDEX_NONE);
	if (next == FSV_INDEX_NONE) {
		gtk_widget_error_bell(GTK_WIDGET(self));
		return;
	}
	on_table_op_selected(self, next);
}

/* --- Settings ----------------------------------------------------------------------------- */

/* What the viewer remembers between runs (the legend shown or hidden), in
 * g_get_user_config_dir()/fencescope/viewer.ini. A file that cannot be read gives the defaults. */
static char *
settings_path(void)
{
	return g_build_filename(g_get_user_config_dir(), "fencescope", "viewer.ini", NULL);
}

static gboolean
settings_get_boolean(const char *key, gboolean fallback)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autofree char *path = settings_path();
	g_autoptr(GError) error = NULL;
	gboolean value;

	if (!g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, NULL))
		return fallback;
	value = g_key_file_get_boolean(file, "view", key, &error);
	return error ? fallback : value;
}

static void
settings_set_boolean(const char *key, gboolean value)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autofree char *path = settings_path();
	g_autofree char *dir = g_path_get_dirname(path);
	g_autoptr(GError) error = NULL;

	(void) g_key_file_load_from_file(file, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
	g_key_file_set_boolean(file, "view", key, value);
	if (g_mkdir_with_parents(dir, 0700) != 0 || !g_key_file_save_to_file(file, path, &error))
		g_warning("cannot remember the setting %s: %s", key,
			  error ? error->message : g_strerror(errno));
}

/* --- Legend -------------------------------------------------------------------------------- */

static void
legend_draw(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
	FsvWindow *self = user_data;

	(void) area;
	(void) height;
	if (self->trace)
		fsv_render_draw_legend(cr, self->trace, fsv_timeline_get_view(self->timeline),
				       width, NULL);
}

/* The strip's height follows its width (entries flow into columns): set it for the width it
 * has now. A resize that changes the column count changes the height once, then settles. */
static void
legend_update(FsvWindow *self)
{
	int width = gtk_widget_get_width(GTK_WIDGET(self->legend_area));

	if (width <= 1)
		width = gtk_widget_get_width(GTK_WIDGET(self->timeline));
	self->legend_width = width;
	gtk_widget_set_visible(GTK_WIDGET(self->legend_scroller),
			       self->is_legend_shown && self->trace != NULL);
	if (self->trace)
		gtk_drawing_area_set_content_height(
		    self->legend_area,
		    fsv_render_get_legend_height(self->trace, fsv_timeline_get_view(self->timeline),
						 MAX(width, 320)));
	gtk_widget_queue_draw(GTK_WIDGET(self->legend_area));
}

static gboolean
legend_idle_cb(gpointer user_data)
{
	FsvWindow *self = user_data;

	self->legend_idle = 0;
	legend_update(self);
	return G_SOURCE_REMOVE;
}

static void
on_legend_resize(GtkDrawingArea *area, int width, int height, FsvWindow *self)
{
	(void) area;
	(void) height;
	if (self->trace && width != self->legend_width &&
	    fsv_render_get_legend_height(self->trace, fsv_timeline_get_view(self->timeline),
					 MAX(width, 320)) !=
		fsv_render_get_legend_height(self->trace, fsv_timeline_get_view(self->timeline),
					     MAX(self->legend_width, 320)))
		/* Not from inside the allocation: the new height is set on the next idle. */
		if (self->legend_idle == 0)
			self->legend_idle = g_idle_add(legend_idle_cb, self);
	self->legend_width = width;
}

static void
show_legend_changed(GSimpleAction *action, GVariant *value, gpointer user_data)
{
	FsvWindow *self = user_data;

	g_simple_action_set_state(action, value);
	self->is_legend_shown = g_variant_get_boolean(value);
	settings_set_boolean("show-legend", self->is_legend_shown);
	legend_update(self);
}

/* --- Go to time ---------------------------------------------------------------------------- */

static void
goto_set_error(FsvWindow *self, const char *message)
{
	gtk_label_set_text(self->goto_error, message ? message : "");
	if (message)
		gtk_widget_add_css_class(GTK_WIDGET(self->goto_entry), "error");
	else
		gtk_widget_remove_css_class(GTK_WIDGET(self->goto_entry), "error");
}

static void
goto_close(FsvWindow *self)
{
	goto_set_error(self, NULL);
	gtk_revealer_set_reveal_child(self->goto_revealer, FALSE);
	gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
}

static void
on_goto_closed(FsvWindow *self)
{
	goto_close(self);
}

/* Enter: a time the report prints (absolute or relative) centres the view there with a marker;
 * anything else says why in one line and changes nothing. */
static void
on_goto_activate(FsvWindow *self)
{
	const char *text = gtk_editable_get_text(GTK_EDITABLE(self->goto_entry));
	g_autoptr(GError) error = NULL;
	guint64 ns;

	if (self->trace == NULL)
		return;
	if (!fsv_trace_parse_time(self->trace, text, &ns, &error)) {
		goto_set_error(self, error->message);
		return;
	}
	fsv_timeline_go_to(self->timeline, ns);
	goto_close(self);
}

static gboolean
on_goto_key(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
	    FsvWindow *self)
{
	(void) controller;
	(void) keycode;
	(void) state;
	if (keyval != GDK_KEY_Escape)
		return FALSE;
	goto_close(self);
	return TRUE;
}

static void
go_to_time_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	FsvWindow *self = user_data;

	(void) action;
	(void) parameter;
	if (self->trace == NULL)
		return;
	goto_set_error(self, NULL);
	gtk_revealer_set_reveal_child(self->goto_revealer, TRUE);
	gtk_widget_grab_focus(GTK_WIDGET(self->goto_entry));
}

/* --- Bookmarks ----------------------------------------------------------------------------- */

static void bookmarks_changed(FsvWindow *self);

static void
bookmarks_save(FsvWindow *self)
{
	g_autoptr(GError) error = NULL;

	if (!fsv_bookmarks_save(self->bookmarks, &error)) {
		g_autofree char *message =
		    g_strdup_printf("Bookmarks not saved: %s", error->message);

		show_error(self, message);
	}
}

/* Which bookmark a row's widget stands for: its index, set on the row when it was built. */
static guint
bookmark_index(GtkWidget *widget)
{
	return GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(widget), "fsv-bookmark-index"));
}

static void
on_bookmark_jump(GtkButton *button, FsvWindow *self)
{
	const FsvBookmark *bookmark =
	    fsv_bookmarks_get(self->bookmarks, bookmark_index(GTK_WIDGET(button)));

	gtk_popover_popdown(GTK_POPOVER(gtk_menu_button_get_popover(self->bookmarks_button)));
	fsv_timeline_go_to(self->timeline, bookmark->ns);
	gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
}

static void
on_bookmark_renamed(GtkEntry *entry, FsvWindow *self)
{
	const char *name = gtk_editable_get_text(GTK_EDITABLE(entry));

	if (*name == '\0')
		return;
	fsv_bookmarks_rename(self->bookmarks, bookmark_index(GTK_WIDGET(entry)), name);
	bookmarks_save(self);
	bookmarks_changed(self);
}

static gboolean
bookmarks_idle_cb(gpointer user_data)
{
	FsvWindow *self = user_data;

	self->bookmarks_idle = 0;
	bookmarks_changed(self);
	return G_SOURCE_REMOVE;
}

static void
on_bookmark_deleted(GtkButton *button, FsvWindow *self)
{
	fsv_bookmarks_remove(self->bookmarks, bookmark_index(GTK_WIDGET(button)));
	bookmarks_save(self);
	/* Rebuilt from an idle: this button is one of the rows being removed. */
	if (self->bookmarks_idle == 0)
		self->bookmarks_idle = g_idle_add(bookmarks_idle_cb, self);
}

/* One row: the time (a button that jumps there), the name (Enter renames), a delete button. */
static void
bookmarks_add_row(FsvWindow *self, guint i)
{
	const FsvBookmark *bookmark = fsv_bookmarks_get(self->bookmarks, i);
	g_autofree char *when = fsv_trace_format_time(self->trace, bookmark->ns);
	GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
	GtkWidget *jump = gtk_button_new_with_label(when);
	GtkWidget *name = gtk_entry_new();
	GtkWidget *delete = gtk_button_new_from_icon_name("user-trash-symbolic");

	g_object_set_data(G_OBJECT(jump), "fsv-bookmark-index", GUINT_TO_POINTER(i));
	g_object_set_data(G_OBJECT(name), "fsv-bookmark-index", GUINT_TO_POINTER(i));
	g_object_set_data(G_OBJECT(delete), "fsv-bookmark-index", GUINT_TO_POINTER(i));
	gtk_widget_set_tooltip_text(jump, "Go there");
	gtk_editable_set_text(GTK_EDITABLE(name), bookmark->name);
	gtk_editable_set_width_chars(GTK_EDITABLE(name), 18);
	gtk_widget_set_tooltip_text(name, "Name (Enter renames)");
	gtk_widget_set_tooltip_text(delete, "Delete this bookmark");
	gtk_accessible_update_property(GTK_ACCESSIBLE(delete), GTK_ACCESSIBLE_PROPERTY_LABEL,
				       "Delete bookmark", -1);
	g_signal_connect(jump, "clicked", G_CALLBACK(on_bookmark_jump), self);
	g_signal_connect(name, "activate", G_CALLBACK(on_bookmark_renamed), self);
	g_signal_connect(delete, "clicked", G_CALLBACK(on_bookmark_deleted), self);
	gtk_box_append(GTK_BOX(row), jump);
	gtk_box_append(GTK_BOX(row), name);
	gtk_box_append(GTK_BOX(row), delete);
	gtk_box_append(self->bookmarks_box, row);
}

/* TIMELINE draws BOOKMARKS (nullable) as flagged lines. */
static void
timeline_show_bookmarks(FsvTimeline *timeline, FsvBookmarks *bookmarks)
{
	g_autoptr(GArray) times = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	guint n = bookmarks ? fsv_bookmarks_get_count(bookmarks) : 0;

	for (guint i = 0; i < n; i++) {
		const FsvBookmark *bookmark = fsv_bookmarks_get(bookmarks, i);

		g_array_append_val(times, bookmark->ns);
		g_ptr_array_add(names, bookmark->name);
	}
	fsv_timeline_set_bookmarks(timeline, (const guint64 *) (gpointer) times->data,
				   (const char *const *) names->pdata, n);
}

/* The list and the timeline's flags follow the bookmarks. */
static void
bookmarks_changed(FsvWindow *self)
{
	GtkWidget *child;
	guint n;

	while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->bookmarks_box))))
		gtk_box_remove(self->bookmarks_box, child);
	n = self->bookmarks ? fsv_bookmarks_get_count(self->bookmarks) : 0;
	for (guint i = 0; i < n; i++)
		bookmarks_add_row(self, i);
	gtk_widget_set_visible(GTK_WIDGET(self->bookmarks_hint), n == 0);
	timeline_show_bookmarks(self->timeline, self->bookmarks);
}

static void
bookmarks_load(FsvWindow *self)
{
	g_autofree char *warning = NULL;

	g_clear_pointer(&self->bookmarks, fsv_bookmarks_free);
	self->bookmarks = fsv_bookmarks_load(fsv_trace_get_path(self->trace), NULL, &warning);
	if (warning)
		show_error(self, warning);
	bookmarks_changed(self);
}

/* B: a bookmark at the go-to marker, else at the selection's start, else at the view's centre. */
static void
add_bookmark_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	FsvWindow *self = user_data;
	const FsvView *view;
	FsvItem selection;
	guint64 ns;

	(void) action;
	(void) parameter;
	if (self->trace == NULL || self->bookmarks == NULL)
		return;
	view = fsv_timeline_get_view(self->timeline);
	fsv_timeline_get_selection(self->timeline, &selection);
	if (fsv_timeline_get_cursor(self->timeline, &ns))
		;
	else if (selection.kind == FSV_ITEM_OP)
		ns = fsv_trace_get_op(self->trace, selection.index)->begin_ns;
	else if (selection.kind == FSV_ITEM_PACKET)
		ns = fsv_trace_get_packet(self->trace, selection.index)->start_ns;
	else if (selection.kind == FSV_ITEM_MARKER)
		ns = fsv_trace_get_marker(self->trace, selection.index)->begin_ns;
	else if (selection.kind == FSV_ITEM_FRAME)
		ns = fsv_trace_get_frame(self->trace, selection.index)->draw_begin_ns;
	else
		ns = fsv_view_get_begin_ns(view) / 2 + fsv_view_get_end_ns(view) / 2;
	fsv_bookmarks_add(self->bookmarks, ns, NULL);
	bookmarks_save(self);
	bookmarks_changed(self);
}

/* --- Test state dump ----------------------------------------------------------------------- */

/* With FSV_TEST_STATE_FILE set, the window writes what it shows to that file (a key file,
 * replaced atomically) whenever it changes, so an end-to-end test driving it with real input
 * (tests/viewer-ui/test-e2e.c) checks real state: the viewport, selection, range, measurement,
 * search, focus, legend and where the timeline lies in the window. */
static char *
state_dump(FsvWindow *self)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	const FsvView *view = fsv_timeline_get_view(self->timeline);
	GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(self));
	graphene_point_t origin = GRAPHENE_POINT_INIT(0, 0);
	double surface_x = 0, surface_y = 0;
	FsvItem selection;
	guint64 a, b;
	char number[G_ASCII_DTOSTR_BUF_SIZE];

	g_key_file_set_boolean(file, "state", "loaded", self->trace != NULL && !self->load);
	/* A live session followed (fsv-live.h): still recording, the view on its newest events. */
	g_key_file_set_boolean(file, "live", "running", _fsv_live_is_running(self));
	g_key_file_set_boolean(file, "live", "following", _fsv_live_is_following(self));
	if (self->trace == NULL || view == NULL)
		return g_key_file_to_data(file, NULL, NULL);
	g_key_file_set_string(file, "state", "trace", fsv_trace_get_path(self->trace));
	if (!gtk_widget_compute_point(GTK_WIDGET(self->timeline), GTK_WIDGET(self),
				      &GRAPHENE_POINT_INIT(0, 0), &origin))
		origin = GRAPHENE_POINT_INIT(-1, -1);
	gtk_native_get_surface_transform(GTK_NATIVE(self), &surface_x, &surface_y);
	g_key_file_set_integer(file, "timeline", "x", (int) lround(origin.x + surface_x));
	g_key_file_set_integer(file, "timeline", "y", (int) lround(origin.y + surface_y));
	g_key_file_set_integer(file, "timeline", "width", fsv_view_get_width(view));
	g_key_file_set_integer(file, "timeline", "height", fsv_view_get_height(view));
	g_key_file_set_integer(file, "timeline", "label_width", fsv_view_get_label_width(view));
	g_key_file_set_uint64(file, "view", "begin_ns", fsv_view_get_begin_ns(view));
	g_key_file_set_uint64(file, "view", "end_ns", fsv_view_get_end_ns(view));
	g_key_file_set_string(file, "view", "ns_per_px",
			      g_ascii_dtostr(number, sizeof(number), fsv_view_get_ns_per_px(view)));
	g_key_file_set_string(file, "view", "scroll_y",
			      g_ascii_dtostr(number, sizeof(number), fsv_view_get_scroll_y(view)));
	fsv_timeline_get_selection(self->timeline, &selection);
	g_key_file_set_integer(file, "selection", "kind", selection.kind);
	g_key_file_set_uint64(file, "selection", "index", selection.index);
	if (fsv_timeline_get_range(self->timeline, &a, &b)) {
		g_key_file_set_uint64(file, "range", "begin_ns", a);
		g_key_file_set_uint64(file, "range", "end_ns", b);
	}
	if (fsv_timeline_get_measure(self->timeline, &a, &b)) {
		g_key_file_set_uint64(file, "measure", "a_ns", a);
		g_key_file_set_uint64(file, "measure", "b_ns", b);
	}
	if (fsv_timeline_get_cursor(self->timeline, &a))
		g_key_file_set_uint64(file, "view", "cursor_ns", a);
	g_key_file_set_integer(file, "state", "bookmarks",
			       self->bookmarks ? (int) fsv_bookmarks_get_count(self->bookmarks)
					       : 0);
	g_key_file_set_string(file, "state", "status", gtk_label_get_text(self->status_label));
	g_key_file_set_boolean(file, "goto", "shown",
			       gtk_revealer_get_reveal_child(self->goto_revealer));
	g_key_file_set_string(file, "goto", "text",
			      gtk_editable_get_text(GTK_EDITABLE(self->goto_entry)));
	g_key_file_set_string(file, "goto", "error", gtk_label_get_text(self->goto_error));
	g_key_file_set_boolean(file, "goto", "has_focus",
			       gtk_widget_has_focus(GTK_WIDGET(self->goto_entry)) ||
				   gtk_widget_is_ancestor(focus ? focus : GTK_WIDGET(self),
							  GTK_WIDGET(self->goto_entry)));
	g_key_file_set_string(file, "search", "text",
			      gtk_editable_get_text(GTK_EDITABLE(self->search_entry)));
	g_key_file_set_boolean(file, "search", "has_error",
			       gtk_widget_has_css_class(GTK_WIDGET(self->search_entry), "error"));
	g_key_file_set_string(file, "state", "focus", focus ? G_OBJECT_TYPE_NAME(focus) : "");
	g_key_file_set_boolean(file, "state", "timeline_has_focus",
			       gtk_widget_has_focus(GTK_WIDGET(self->timeline)));
	if (gtk_widget_get_visible(GTK_WIDGET(self->ops_table))) {
		graphene_rect_t table;
		g_autoptr(GString) rows = g_string_new(NULL);
		guint n = MIN(fsv_ops_table_get_n_rows(self->ops_table), 6);

		if (gtk_widget_compute_bounds(GTK_WIDGET(self->ops_table), GTK_WIDGET(self),
					      &table)) {
			g_key_file_set_integer(file, "table", "x",
					       (int) lround(table.origin.x + surface_x));
			g_key_file_set_integer(file, "table", "y",
					       (int) lround(table.origin.y + surface_y));
			g_key_file_set_integer(file, "table", "width", (int) table.size.width);
			g_key_file_set_integer(file, "table", "height", (int) table.size.height);
		}
		/* The ops of the first rows, top to bottom: what a click there selects. */
		for (guint i = 0; i < n; i++)
			g_string_append_printf(rows, "%s%u", i ? ";" : "",
					       fsv_ops_table_get_row_op(self->ops_table, i));
		g_key_file_set_string(file, "table", "first_rows", rows->str);
		/* Where those rows are on screen, for a real click (x;y;width;height). */
		for (guint i = 0; i < n; i++) {
			graphene_rect_t row;
			char key[16];
			g_autofree char *where = NULL;

			if (!_fsv_ops_table_get_row_bounds(self->ops_table, i, GTK_WIDGET(self),
							   &row))
				continue;
			g_snprintf(key, sizeof(key), "row_%u", i);
			where =
			    g_strdup_printf("%d;%d;%d;%d", (int) lround(row.origin.x + surface_x),
					    (int) lround(row.origin.y + surface_y),
					    (int) row.size.width, (int) row.size.height);
			g_key_file_set_string(file, "table", key, where);
		}
	}
	g_key_file_set_boolean(file, "legend", "shown",
			       gtk_widget_get_visible(GTK_WIDGET(self->legend_scroller)));
	/* A comparison: both timelines where they are and what they show. */
	_fsv_compare_dump_state(self, file);
	return g_key_file_to_data(file, NULL, NULL);
}

static gboolean
state_tick(gpointer user_data)
{
	FsvWindow *self = user_data;
	g_autofree char *text = state_dump(self);
	g_autoptr(GError) error = NULL;

	if (g_strcmp0(text, self->state_text) == 0)
		return G_SOURCE_CONTINUE;
	if (!g_file_set_contents(self->state_file, text, -1, &error))
		g_warning("FSV_TEST_STATE_FILE: %s", error->message);
	g_free(self->state_text);
	self->state_text = g_steal_pointer(&text);
	return G_SOURCE_CONTINUE;
}

/* --- Actions ------------------------------------------------------------------------------- */

static void
chooser_response(GtkNativeDialog *dialog, int response, FsvWindow *self)
{
	if (response == GTK_RESPONSE_ACCEPT) {
		g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));

		if (file)
			fsv_window_open(self, file);
	}
	g_clear_object(&self->chooser);
}

static void
open_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	FsvWindow *self = user_data;

	(void) action;
	(void) parameter;
	if (self->chooser)
		return;
	/* GTK 4.8 has no GtkFileDialog (4.10); the native chooser uses the portal when there
	 * is one. */
	self->chooser =
	    gtk_file_chooser_native_new("Open Trace Folder", GTK_WINDOW(self),
					GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Open", "_Cancel");
	g_signal_connect(self->chooser, "response", G_CALLBACK(chooser_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(self->chooser));
}

static void
open_recent_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	g_autoptr(GFile) file = g_file_new_for_uri(g_variant_get_string(parameter, NULL));

	(void) action;
	fsv_window_open(FSV_WINDOW(user_data), file);
}

static void
fit_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	(void) action;
	(void) parameter;
	fsv_timeline_fit(FSV_WINDOW(user_data)->timeline);
}

/* Issue 15 §4: View ▸ Engine Busy / Queue Depth show or hide that kind of counter row. */
static void
counter_toggled(GSimpleAction *action, GVariant *state, FsvWindow *self, FsvCounterKind kind)
{
	g_simple_action_set_state(action, state);
	fsv_timeline_set_show_counter(self->timeline, kind, g_variant_get_boolean(state));
	if (self->other_timeline)
		fsv_timeline_set_show_counter(self->other_timeline, kind,
					      g_variant_get_boolean(state));
	legend_update(self); /* the legend names the counter tracks shown */
}

static void
show_busy_changed(GSimpleAction *action, GVariant *state, gpointer user_data)
{
	counter_toggled(action, state, FSV_WINDOW(user_data), FSV_COUNTER_BUSY);
}

static void
show_depth_changed(GSimpleAction *action, GVariant *state, gpointer user_data)
{
	counter_toggled(action, state, FSV_WINDOW(user_data), FSV_COUNTER_DEPTH);
}

static void
find_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	(void) action;
	(void) parameter;
	gtk_widget_grab_focus(GTK_WIDGET(FSV_WINDOW(user_data)->search_entry));
}

static void
cancel_load_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	(void) action;
	(void) parameter;
	on_cancel_clicked(FSV_WINDOW(user_data));
}

/* win.show-table (Ctrl+T, the header bar's toggle): shows or hides the operations table. */
static void
show_table_changed(GSimpleAction *action, GVariant *value, gpointer user_data)
{
	FsvWindow *self = user_data;
	gboolean is_shown = g_variant_get_boolean(value);

	g_simple_action_set_state(action, value);
	gtk_widget_set_visible(GTK_WIDGET(self->ops_table), is_shown);
	if (is_shown) {
		FsvItem item;

		/* Its selected row in sight now that it has a size. */
		fsv_timeline_get_selection(self->timeline, &item);
		if (item.kind == FSV_ITEM_OP)
			fsv_ops_table_select_op(self->ops_table, item.index);
	}
}

static void
close_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	(void) action;
	(void) parameter;
	gtk_window_close(GTK_WINDOW(user_data));
}

static gint
compare_recent(gconstpointer a, gconstpointer b)
{
	GDateTime *ta = gtk_recent_info_get_modified((GtkRecentInfo *) a);
	GDateTime *tb = gtk_recent_info_get_modified((GtkRecentInfo *) b);

	return -g_date_time_compare(ta, tb);
}

/* The recent menu is rebuilt each time it opens: the recent list is shared by every window and
 * every run. */
static void
recent_menu_create(GtkMenuButton *button, gpointer user_data)
{
	g_autoptr(GMenu) menu = g_menu_new();
	GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
	guint n = 0;

	(void) user_data;
	items = g_list_sort(items, compare_recent);
	for (GList *l = items; l && n < RECENT_MAX; l = l->next) {
		GtkRecentInfo *info = l->data;
		g_autoptr(GMenuItem) item = NULL;
		g_autofree char *label = NULL;

		if (!gtk_recent_info_has_application(info, RECENT_APP_NAME) ||
		    !gtk_recent_info_exists(info))
			continue;
		label = g_strdup(gtk_recent_info_get_display_name(info));
		item = g_menu_item_new(label, NULL);
		g_menu_item_set_action_and_target(item, "win.open-recent", "s",
						  gtk_recent_info_get_uri(info));
		g_menu_append_item(menu, item);
		n++;
	}
	g_list_free_full(items, (GDestroyNotify) gtk_recent_info_unref);
	if (n == 0)
		g_menu_append(menu, "No recent traces", "win.no-recent");
	gtk_menu_button_set_menu_model(button, G_MENU_MODEL(menu));
}

/* A scrollbar only while there is something out of sight on its axis. */
static void
on_adjustment_changed(GtkAdjustment *adjustment, GtkWidget *scrollbar)
{
	gtk_widget_set_visible(scrollbar, gtk_adjustment_get_upper(adjustment) -
						  gtk_adjustment_get_lower(adjustment) >
					      gtk_adjustment_get_page_size(adjustment) + 0.5);
}

/* --- Drag and drop ------------------------------------------------------------------------- */

static gboolean
on_drop(GtkDropTarget *target, const GValue *value, double x, double y, FsvWindow *self)
{
	GFile *file = NULL;

	(void) target;
	(void) x;
	(void) y;
	if (G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST)) {
		GSList *files = gdk_file_list_get_files(g_value_get_boxed(value));

		file = files ? files->data : NULL;
		g_slist_free(files);
	} else if (G_VALUE_HOLDS(value, G_TYPE_FILE)) {
		file = g_value_get_object(value);
	}
	if (file == NULL)
		return FALSE;
	fsv_window_open(self, file);
	return TRUE;
}

/* --- Hooks of fsv-compare.c: a second trace beside the first ----------------------------- */

#define SWAP_POINTERS(a, b)                                                                        \
	do {                                                                                       \
		gpointer swap_tmp_ = (a);                                                          \
		(a) = (b);                                                                         \
		(b) = swap_tmp_;                                                                   \
	} while (0)

/* The timeline the panes follow is framed (style.css "fsv-followed"), the other not. */
static void
mark_followed(FsvWindow *self)
{
	gtk_widget_add_css_class(GTK_WIDGET(self->timeline), "fsv-followed");
	if (self->other_timeline)
		gtk_widget_remove_css_class(GTK_WIDGET(self->other_timeline), "fsv-followed");
}

/* The other side of the comparison becomes the one the panes follow (see `timeline`). */
static void
swap_sides(FsvWindow *self)
{
	SWAP_POINTERS(self->timeline, self->other_timeline);
	SWAP_POINTERS(self->trace, self->other_trace);
	SWAP_POINTERS(self->bookmarks, self->other_bookmarks);
	SWAP_POINTERS(self->chain_index, self->other_chain_index);
	SWAP_POINTERS(self->chain_cancellable, self->other_chain_cancellable);
	fsv_ops_table_set_trace(self->ops_table, self->trace);
	fsv_ops_table_set_query(self->ops_table, self->query);
	bookmarks_changed(self);
	legend_update(self);
	on_selection_changed(self, self->timeline);
	status_update(self);
	mark_followed(self);
}

/* The focus moved: onto the other side's timeline (a click, Tab), that side is followed. */
static void
on_focus_widget(FsvWindow *self, GParamSpec *pspec, gpointer user_data)
{
	GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(self));

	(void) pspec;
	(void) user_data;
	if (self->other_timeline && focus &&
	    (focus == GTK_WIDGET(self->other_timeline) ||
	     gtk_widget_is_ancestor(focus, GTK_WIDGET(self->other_timeline))))
		swap_sides(self);
}

FsvOpenFlags
_fsv_window_get_open_flags(FsvWindow *self)
{
	return self->open_flags;
}

FsvTimeline *
_fsv_window_get_base_timeline(FsvWindow *self)
{
	return self->base_timeline;
}

FsvTimeline *
_fsv_window_get_other_timeline(FsvWindow *self)
{
	return self->other_timeline;
}

void
_fsv_window_set_compared(FsvWindow *self, FsvTimeline *timeline, FsvTrace *trace)
{
	g_autofree char *warning = NULL;

	g_return_if_fail(timeline != NULL && trace != NULL && self->trace != NULL);
	_fsv_window_unset_compared(self);
	self->other_timeline = timeline;
	self->other_trace = fsv_trace_ref(trace);
	/* Its own bookmarks, drawn in its own timeline (per trace, as always). */
	self->other_bookmarks = fsv_bookmarks_load(fsv_trace_get_path(trace), NULL, &warning);
	if (warning)
		show_error(self, warning);
	timeline_show_bookmarks(timeline, self->other_bookmarks);
	chain_index_build_for(self, trace, &self->other_chain_cancellable);
	fsv_timeline_set_query(timeline, self->query);
	for (guint k = 0; k < FSV_COUNTER_KIND_COUNT; k++)
		fsv_timeline_set_show_counter(
		    timeline, k, fsv_timeline_get_show_counter(self->base_timeline, k));
	fsv_timeline_set_frame_budget(timeline, fsv_timeline_get_frame_budget(self->base_timeline));
	g_signal_connect_swapped(timeline, "selection-changed", G_CALLBACK(on_selection_changed),
				 self);
	g_signal_connect_swapped(timeline, "range-changed", G_CALLBACK(on_range_changed), self);
	g_signal_connect_swapped(timeline, "measure-changed", G_CALLBACK(on_measure_changed), self);
	g_signal_connect_swapped(timeline, "notify::status", G_CALLBACK(on_timeline_status), self);
	/* The one of the two the panes follow is framed, so it is clear which they show. */
	mark_followed(self);
	title_update(self);
}

void
_fsv_window_unset_compared(FsvWindow *self)
{
	FsvTimeline *other;

	if (self->other_timeline == NULL)
		return;
	if (self->timeline != self->base_timeline)
		swap_sides(self);
	other = self->other_timeline;
	g_signal_handlers_disconnect_by_data(other, self);
	gtk_widget_remove_css_class(GTK_WIDGET(other), "fsv-followed");
	gtk_widget_remove_css_class(GTK_WIDGET(self->base_timeline), "fsv-followed");
	fsv_timeline_set_highlights(other, NULL, 0);
	fsv_timeline_set_bookmarks(other, NULL, NULL, 0);
	if (self->other_chain_cancellable)
		g_cancellable_cancel(self->other_chain_cancellable);
	g_clear_object(&self->other_chain_cancellable);
	g_clear_pointer(&self->other_chain_index, fsv_chain_index_free);
	g_clear_pointer(&self->other_bookmarks, fsv_bookmarks_free);
	g_clear_pointer(&self->other_trace, fsv_trace_unref);
	self->other_timeline = NULL;
	title_update(self);
	status_update(self);
}

/* --- Test accessors ------------------------------------------------------------------------ */

/* --- Hooks of fsv-live.c: a live session's traces shown in place -------------------------- */

void
_fsv_window_stop_loading(FsvWindow *self)
{
	/* A live session takes the window's place: no comparison beside it (fsv-compare.h). */
	fsv_window_close_compare(self);
	g_clear_pointer(&self->load, fsv_load_job_destroy);
	stop_progress(self);
	show_previous_page(self);
}

/* A newer trace of the session shown (live following, issue 16 §4) in place of the one shown,
 * keeping what the user set: the timeline's rows, times, selection, range and measurement
 * (fsv_timeline_replace_trace), the table's sort and search (the table is given the trace
 * before the timeline, whose selection it then follows), and the bookmarks in memory (they
 * belong to the session, not to each trace of it: not read again every second). */
static void
show_newer_trace(FsvWindow *self, FsvTrace *trace)
{
	g_clear_pointer(&self->chain_index, fsv_chain_index_free);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	self->trace = fsv_trace_ref(trace);
	chain_index_build(self);
	fsv_ops_table_set_trace(self->ops_table, trace);
	fsv_ops_table_set_query(self->ops_table, self->query);
	fsv_timeline_replace_trace(self->timeline, trace);
	fsv_timeline_set_query(self->timeline, self->query);
	if (self->bookmarks == NULL)
		bookmarks_load(self);
	legend_update(self);
}

void
_fsv_window_show_live_trace(FsvWindow *self, FsvTrace *trace)
{
	GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(self));
	GtkAdjustment *vadjustment = NULL;
	gboolean had_trace = self->trace != NULL;
	double scroll_y = 0;

	g_object_get(self->timeline, "vadjustment", &vadjustment, NULL);
	if (vadjustment)
		scroll_y = gtk_adjustment_get_value(vadjustment);
	if (focus)
		g_object_ref(focus);
	show_error(self, fsv_trace_get_partial_error(trace) ? fsv_trace_get_partial_error(trace)
							    : fsv_trace_get_clock_warning(trace));
	if (had_trace)
		show_newer_trace(self, trace);
	else
		show_trace(self, trace);
	/* A newer trace of the same session every second: the rows stay scrolled where they were
	 * and the focus where it was (typing in the search entry goes on). */
	if (had_trace && vadjustment)
		gtk_adjustment_set_value(vadjustment, scroll_y);
	if (had_trace && focus && gtk_widget_get_root(focus) == GTK_ROOT(self))
		gtk_widget_grab_focus(focus);
	g_clear_object(&focus);
	g_clear_object(&vadjustment);
}

void
_fsv_window_set_live_bar(FsvWindow *self, const char *label, const char *text)
{
	if (label == NULL) {
		stop_progress(self);
		return;
	}
	gtk_label_set_text(self->progress_label, label);
	gtk_progress_bar_pulse(self->progress_bar);
	gtk_progress_bar_set_text(self->progress_bar, text);
	gtk_revealer_set_reveal_child(self->progress_revealer, TRUE);
}

GtkBox *
_fsv_window_get_progress_box(FsvWindow *self)
{
	GtkWidget *child = gtk_revealer_get_child(self->progress_revealer);

	return GTK_IS_BOX(child) ? GTK_BOX(child) : NULL;
}

void
_fsv_window_show_error(FsvWindow *self, const char *message)
{
	show_error(self, message);
}

FsvTimeline *
_fsv_window_get_timeline(FsvWindow *self)
{
	return self->timeline;
}

FsvOpsTable *
_fsv_window_get_ops_table(FsvWindow *self)
{
	return self->ops_table;
}

gboolean
_fsv_window_is_loading(FsvWindow *self)
{
	return self->load != NULL;
}

gboolean
_fsv_window_is_progress_shown(FsvWindow *self)
{
	return gtk_revealer_get_reveal_child(self->progress_revealer);
}

const char *
_fsv_window_get_page(FsvWindow *self)
{
	return gtk_stack_get_visible_child_name(self->stack);
}

guint
_fsv_window_get_preview_row_count(FsvWindow *self)
{
	FsvLoadPreview *preview = fsv_load_view_get_preview(self->load_view);

	return preview ? fsv_load_preview_get_row_count(preview) : 0;
}

GPid
_fsv_window_get_builder_pid(FsvWindow *self)
{
	return self->load ? fsv_load_job_get_builder_pid(self->load) : 0;
}

const char *
_fsv_window_get_error(FsvWindow *self)
{
	if (!gtk_revealer_get_reveal_child(self->error_revealer))
		return NULL;
	return gtk_label_get_text(self->error_label);
}

char *
_fsv_window_dup_details_text(FsvWindow *self)
{
	GString *text = g_string_new(NULL);

	for (guint row = 0; row < self->details_rows; row++) {
		GtkWidget *key = gtk_grid_get_child_at(self->details_grid, 0, (int) row);
		GtkWidget *value = gtk_grid_get_child_at(self->details_grid, 1, (int) row);

		if (key && value && key != value)
			g_string_append_printf(text, "%s: %s\n", gtk_label_get_text(GTK_LABEL(key)),
					       gtk_label_get_text(GTK_LABEL(value)));
		else if (key)
			g_string_append_printf(text, "%s\n", gtk_label_get_text(GTK_LABEL(key)));
	}
	return g_string_free(text, FALSE);
}

const char *
_fsv_window_get_status(FsvWindow *self)
{
	return gtk_label_get_text(self->status_label);
}

void
_fsv_window_set_search_text(FsvWindow *self, const char *text)
{
	gtk_editable_set_text(GTK_EDITABLE(self->search_entry), text);
	on_search_changed(self);
}

void
_fsv_window_activate_search(FsvWindow *self)
{
	on_search_activate(self);
}

gboolean
_fsv_window_click_details_link(FsvWindow *self, const char *name, guint nth)
{
	for (guint row = 0; row < self->details_rows; row++) {
		GtkWidget *key = gtk_grid_get_child_at(self->details_grid, 0, (int) row);
		GtkWidget *value = gtk_grid_get_child_at(self->details_grid, 1, (int) row);
		gboolean is_handled = FALSE;
		g_autofree char *uri = NULL;

		if (!key || !value || key == value ||
		    strcmp(gtk_label_get_text(GTK_LABEL(key)), name) != 0 ||
		    !g_object_get_data(G_OBJECT(value), "fsv-link-target") || nth-- > 0)
			continue;
		uri = g_strdup(gtk_label_get_label(GTK_LABEL(value)));
		/* What GtkLabel does on a click on its link. */
		g_signal_emit_by_name(value, "activate-link", uri, &is_handled);
		return is_handled;
	}
	return FALSE;
}

gboolean
_fsv_window_is_start_pending(FsvWindow *self)
{
	return self->has_start_op || self->has_start_at;
}

void
_fsv_window_focus_search(FsvWindow *self)
{
	gtk_widget_grab_focus(GTK_WIDGET(self->search_entry));
}

void
_fsv_window_stop_search(FsvWindow *self)
{
	g_signal_emit_by_name(self->search_entry, "stop-search");
}

gboolean
_fsv_window_search_has_error(FsvWindow *self)
{
	return gtk_widget_has_css_class(GTK_WIDGET(self->search_entry), "error");
}

const char *
_fsv_window_get_goto_error(FsvWindow *self)
{
	return gtk_label_get_text(self->goto_error);
}

void
_fsv_window_go_to_text(FsvWindow *self, const char *text)
{
	go_to_time_activated(NULL, NULL, self);
	gtk_editable_set_text(GTK_EDITABLE(self->goto_entry), text);
	on_goto_activate(self);
}

gboolean
_fsv_window_is_legend_shown(FsvWindow *self)
{
	return gtk_widget_get_visible(GTK_WIDGET(self->legend_scroller));
}

guint
_fsv_window_get_bookmark_count(FsvWindow *self)
{
	return self->bookmarks ? fsv_bookmarks_get_count(self->bookmarks) : 0;
}

/* --- GObject ------------------------------------------------------------------------------- */

FsvWindow *
fsv_window_new(GtkApplication *application)
{
	return g_object_new(FSV_TYPE_WINDOW, "application", application, NULL);
}

static void
fsv_window_dispose(GObject *object)
{
	FsvWindow *self = FSV_WINDOW(object);

	/* First: a comparison's sides swapped back, its load cancelled, its chooser gone. */
	_fsv_compare_dispose(self);
	g_clear_pointer(&self->load, fsv_load_job_destroy);
	if (self->chooser)
		gtk_native_dialog_destroy(GTK_NATIVE_DIALOG(self->chooser));
	g_clear_object(&self->chooser);
	if (self->chain_cancellable)
		g_cancellable_cancel(self->chain_cancellable);
	g_clear_object(&self->chain_cancellable);
	g_clear_pointer(&self->chain_index, fsv_chain_index_free);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	g_clear_pointer(&self->bookmarks, fsv_bookmarks_free);
	g_clear_handle_id(&self->state_source, g_source_remove);
	g_clear_handle_id(&self->legend_idle, g_source_remove);
	g_clear_handle_id(&self->bookmarks_idle, g_source_remove);
	g_clear_pointer(&self->state_file, g_free);
	g_clear_pointer(&self->state_text, g_free);
	g_clear_pointer(&self->start_at, g_free);
	g_clear_pointer(&self->query, fsv_query_unref);
	if (self->start_tick && self->timeline)
		gtk_widget_remove_tick_callback(GTK_WIDGET(self->timeline), self->start_tick);
	self->start_tick = 0;
	self->timeline = NULL;
	gtk_widget_dispose_template(GTK_WIDGET(self), FSV_TYPE_WINDOW);
	G_OBJECT_CLASS(fsv_window_parent_class)->dispose(object);
}

static void
fsv_window_class_init(FsvWindowClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->dispose = fsv_window_dispose;
	g_type_ensure(FSV_TYPE_TIMELINE);
	g_type_ensure(FSV_TYPE_OPS_TABLE);
	g_type_ensure(FSV_TYPE_LOAD_VIEW);
	gtk_widget_class_set_template_from_resource(widget_class,
						    "/org/fencescope/Viewer/fsv-window.ui");
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, recent_button);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, search_entry);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, progress_revealer);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, progress_label);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, progress_bar);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, error_revealer);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, error_label);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, stack);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, load_view);
	gtk_widget_class_bind_template_child_full(widget_class, "timeline", FALSE,
						  G_STRUCT_OFFSET(FsvWindow, base_timeline));
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, vscrollbar);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, hscrollbar);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, status_label);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, details_grid);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, legend_area);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, legend_scroller);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, goto_revealer);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, goto_entry);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, goto_error);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, bookmarks_button);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, bookmarks_box);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, bookmarks_hint);
	gtk_widget_class_bind_template_callback(widget_class, on_goto_activate);
	gtk_widget_class_bind_template_callback(widget_class, on_goto_closed);
	gtk_widget_class_bind_template_child(widget_class, FsvWindow, ops_table);
	gtk_widget_class_bind_template_callback(widget_class, on_cancel_clicked);
	gtk_widget_class_bind_template_callback(widget_class, on_error_dismissed);
	gtk_widget_class_bind_template_callback(widget_class, on_selection_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_range_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_measure_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_timeline_status);
	gtk_widget_class_bind_template_callback(widget_class, on_search_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_search_stopped);
	gtk_widget_class_bind_template_callback(widget_class, on_search_activate);
	gtk_widget_class_bind_template_callback(widget_class, on_table_op_selected);
}

static void
load_style_once(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		g_autoptr(GtkCssProvider) provider = gtk_css_provider_new();

		gtk_css_provider_load_from_resource(provider, "/org/fencescope/Viewer/style.css");
		gtk_style_context_add_provider_for_display(gdk_display_get_default(),
							   GTK_STYLE_PROVIDER(provider),
							   GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
		gtk_icon_theme_add_resource_path(
		    gtk_icon_theme_get_for_display(gdk_display_get_default()),
		    "/org/fencescope/Viewer/icons");
		g_once_init_leave(&once, 1);
	}
}

static void
fsv_window_init(FsvWindow *self)
{
	static const GActionEntry entries[] = {
	    {.name = "open", .activate = open_activated},
	    {.name = "open-recent", .activate = open_recent_activated, .parameter_type = "s"},
	    {.name = "fit", .activate = fit_activated},
	    {.name = "show-busy", .state = "true", .change_state = show_busy_changed},
	    {.name = "show-depth", .state = "true", .change_state = show_depth_changed},
	    {.name = "find", .activate = find_activated},
	    {.name = "close", .activate = close_activated},
	    {.name = "cancel-load", .activate = cancel_load_activated},
	    {.name = "go-to-time", .activate = go_to_time_activated},
	    {.name = "add-bookmark", .activate = add_bookmark_activated},
	    {.name = "show-legend", .state = "true", .change_state = show_legend_changed},
	    {.name = "show-table", .state = "false", .change_state = show_table_changed},
	};
	GtkDropTarget *drop;
	GtkEventController *goto_keys;
	const char *state_file = g_getenv("FSV_TEST_STATE_FILE");
	GType types[] = {GDK_TYPE_FILE_LIST, G_TYPE_FILE};

	load_style_once();
	gtk_widget_init_template(GTK_WIDGET(self));
	self->timeline = self->base_timeline;
	g_action_map_add_action_entries(G_ACTION_MAP(self), entries, G_N_ELEMENTS(entries), self);
	/* A second trace beside the first (fsv-compare.h): its pane and actions; the panes follow
	 * the timeline that has the focus. */
	_fsv_compare_install(self);
	g_signal_connect(self, "notify::focus-widget", G_CALLBACK(on_focus_widget), NULL);
	gtk_menu_button_set_create_popup_func(self->recent_button, recent_menu_create, NULL, NULL);

	drop = gtk_drop_target_new(G_TYPE_INVALID, GDK_ACTION_COPY);
	gtk_drop_target_set_gtypes(drop, types, G_N_ELEMENTS(types));
	g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));

	g_signal_connect_object(gtk_scrollbar_get_adjustment(self->vscrollbar), "changed",
				G_CALLBACK(on_adjustment_changed), self->vscrollbar, 0);
	g_signal_connect_object(gtk_scrollbar_get_adjustment(self->hscrollbar), "changed",
				G_CALLBACK(on_adjustment_changed), self->hscrollbar, 0);
	gtk_stack_set_visible_child_name(self->stack, "empty");
	status_update(self);

	/* The legend as the user left it (shown the first time). */
	self->is_legend_shown = settings_get_boolean("show-legend", TRUE);
	g_action_group_change_action_state(G_ACTION_GROUP(self), "show-legend",
					   g_variant_new_boolean(self->is_legend_shown));
	gtk_drawing_area_set_draw_func(self->legend_area, legend_draw, self, NULL);
	g_signal_connect(self->legend_area, "resize", G_CALLBACK(on_legend_resize), self);
	legend_update(self);

	goto_keys = gtk_event_controller_key_new();
	g_signal_connect(goto_keys, "key-pressed", G_CALLBACK(on_goto_key), self);
	gtk_widget_add_controller(GTK_WIDGET(self->goto_entry), goto_keys);
	gtk_widget_set_visible(GTK_WIDGET(self->bookmarks_hint), TRUE);

	if (state_file && *state_file) {
		self->state_file = g_strdup(state_file);
		self->state_source = g_timeout_add(25, state_tick, self);
	}
}
