/* SPDX-License-Identifier: MIT */
/*
 * How a window following a live session shows each newer trace (issue 16 §4; suite ui, under
 * Xvfb; the live session itself is test-live.c's). The newer traces are real: FsvLiveReader
 * reads traces/frame-pipeline with a 1 ms interval and hands over the traces of what it read so
 * far, growing, then the whole; they are shown in the window as the reader's would be
 * (_fsv_live_show_trace). Checked: a view at the end follows the newest event keeping its width,
 * a view scrolled back stays on its times and stops following, the bar's Follow button follows
 * again, the selected operation stays selected, the session's end hides the bar.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "fsv-bookmarks.h"
#include "fsv-live-reader.h"
#include "fsv-live.h"
#include "fst-ui.h"

#define TIMEOUT_US (60 * G_USEC_PER_SEC)
#define URL        "net://localhost/host/test/live-follow"

typedef struct {
	GMutex lock;
	GPtrArray *traces; /* the growing ones, then the whole */
	gboolean is_done;
} Collected;

static void
collect(FsvTrace *trace, gboolean is_final, guint64 events, const GError *error, gpointer user_data)
{
	Collected *collected = user_data;

	(void) events;
	(void) error;
	g_mutex_lock(&collected->lock);
	if (trace)
		g_ptr_array_add(collected->traces, fsv_trace_ref(trace));
	collected->is_done = is_final;
	g_mutex_unlock(&collected->lock);
	/* The reader looks at the clock every 1024 events and builds when the interval (1 ms) and
	 * twice its last build's time have passed: on a quiet machine it reads the 5k events of
	 * frame-pipeline too fast for more than one or two builds. Holding its thread here (the
	 * callback runs in it) lets every later look at the clock find the time passed, so each
	 * 1024 events give a growing trace whatever the machine's speed. */
	if (!is_final)
		g_usleep(200 * 1000);
}

/* The traces of traces/NAME read so far, growing, the last one the whole trace. */
static GPtrArray *
read_growing_traces_of(const char *name)
{
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", name, NULL);
	Collected collected = {
	    .traces = g_ptr_array_new_with_free_func((GDestroyNotify) fsv_trace_unref)};
	gint64 deadline = g_get_monotonic_time() + TIMEOUT_US;
	FsvLiveReader *reader = fsv_live_reader_start(path, 1, collect, &collected);
	gboolean is_done = FALSE;

	while (!is_done && g_get_monotonic_time() < deadline) {
		g_usleep(10000);
		g_mutex_lock(&collected.lock);
		is_done = collected.is_done;
		g_mutex_unlock(&collected.lock);
	}
	fsv_live_reader_stop(reader);
	cr_assert(is_done, "the reader never ended");
	return collected.traces;
}

static GPtrArray *
read_growing_traces(void)
{
	return read_growing_traces_of("frame-pipeline");
}

static FsvWindow *window;

static gboolean
is_allocated(void)
{
	return fst_ui_timeline_is_laid_out(_fsv_window_get_timeline(window));
}

/* The view's [begin, end] within two pixels of [BEGIN, END]. */
static void
expect_view(guint64 begin, guint64 end, const char *what)
{
	const FsvView *view = fsv_timeline_get_view(_fsv_window_get_timeline(window));
	double slack = 2 * fsv_view_get_ns_per_px(view);

	cr_expect_leq(fabs((double) fsv_view_get_begin_ns(view) - (double) begin), slack,
		      "%s: begin %" G_GUINT64_FORMAT " not %" G_GUINT64_FORMAT, what,
		      fsv_view_get_begin_ns(view), begin);
	cr_expect_leq(fabs((double) fsv_view_get_end_ns(view) - (double) end), slack,
		      "%s: end %" G_GUINT64_FORMAT " not %" G_GUINT64_FORMAT, what,
		      fsv_view_get_end_ns(view), end);
}

/* Each test with a viewer.ini of its own (fst-ui.h). */
static void
begin_test(void)
{
	fst_ui_begin(FALSE);
}

TestSuite(live_follow, .init = begin_test, .fini = fst_ui_end);

static gboolean same_op(FsvTrace *trace_a, guint32 a, FsvTrace *trace_b, guint32 b);

Test(live_follow, newer_traces_follow_the_end_until_scrolled_back_and_follow_resumes)
{
	g_autoptr(GPtrArray) traces = read_growing_traces();
	FsvTimeline *timeline;
	FsvTrace *first, *second, *third, *whole;
	guint64 width, begin, end;
	gint64 deadline;
	FsvItem selected;
	guint32 selected_op;

	/* frame-pipeline has 5k events: a trace every few thousand, the reader's builds permitting
	 * (each waits twice the last one's time), and the whole. */
	for (int attempt = 0; attempt < 20 && traces->len < 4; attempt++) {
		g_ptr_array_unref(traces);
		traces = read_growing_traces();
	}
	cr_assert_geq(traces->len, 4, "only %u traces", traces->len);
	first = g_ptr_array_index(traces, 0);
	second = g_ptr_array_index(traces, 1);
	third = g_ptr_array_index(traces, 2);
	whole = g_ptr_array_index(traces, traces->len - 1);
	cr_assert_lt(fsv_trace_get_end_ns(first), fsv_trace_get_end_ns(second));
	cr_assert_lt(fsv_trace_get_end_ns(second), fsv_trace_get_end_ns(third));

	window = fst_ui_window_new(1400, 800);
	timeline = _fsv_window_get_timeline(window);

	/* The first trace opens whole, following. */
	_fsv_live_show_trace(window, URL, first, FALSE);
	fst_ui_spin_until(is_allocated, TIMEOUT_US);
	fst_ui_settle();
	cr_expect(_fsv_window_is_progress_shown(window), "no live bar");
	cr_expect(_fsv_live_is_following(window));

	/* Zoomed in at the end: the next trace keeps the width, ending at its newest event. */
	end = fsv_trace_get_end_ns(first);
	width = (end - fsv_trace_get_begin_ns(first)) / 4;
	fsv_timeline_set_visible_range(timeline, end - width, end);
	fst_ui_settle();
	fsv_timeline_select_op(timeline, fsv_trace_get_op_count(first) / 2);
	fsv_timeline_get_selection(timeline, &selected);
	cr_assert_eq(selected.kind, FSV_ITEM_OP);
	selected_op = selected.index;
	_fsv_live_show_trace(window, URL, second, FALSE);
	fst_ui_settle();
	cr_expect(_fsv_live_is_following(window));
	expect_view(fsv_trace_get_end_ns(second) - width, fsv_trace_get_end_ns(second),
		    "following");
	/* The selected operation is still selected in the newer trace, by its op id (or, still
	 * open, by what it is). */
	fsv_timeline_get_selection(timeline, &selected);
	cr_expect_eq(selected.kind, FSV_ITEM_OP);
	cr_expect(same_op(second, selected.index, first, selected_op), "another op selected");

	/* Scrolled back: the next trace leaves the view on its times, no longer following. */
	begin = fsv_trace_get_begin_ns(second);
	fsv_timeline_set_visible_range(timeline, begin, begin + width);
	fst_ui_settle();
	_fsv_live_show_trace(window, URL, third, FALSE);
	fst_ui_settle();
	cr_expect_not(_fsv_live_is_following(window), "still following after scrolling back");
	expect_view(begin, begin + width, "scrolled back");

	/* The bar's Follow (as End): to the newest event again, following the next ones. */
	cr_assert_not_null(_fsv_live_get_follow_button(window));
	cr_expect_not(
	    gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(_fsv_live_get_follow_button(window))),
	    "the Follow toggle is on while not following");
	cr_expect(gtk_widget_activate(_fsv_live_get_follow_button(window)), "Follow not activated");
	/* A button activated from the keyboard shows itself pressed for a moment, then clicks. */
	deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!_fsv_live_is_following(window) && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	fst_ui_settle();
	cr_expect(_fsv_live_is_following(window));
	cr_expect(
	    gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(_fsv_live_get_follow_button(window))),
	    "the Follow toggle is off while following");
	expect_view(fsv_trace_get_end_ns(third) - width, fsv_trace_get_end_ns(third),
		    "follow again");

	/* The session's end: the whole trace, followed to its end, the bar gone. */
	_fsv_live_show_trace(window, URL, whole, TRUE);
	fst_ui_settle();
	expect_view(fsv_trace_get_end_ns(whole) - width, fsv_trace_get_end_ns(whole), "the end");
	cr_expect_not(_fsv_window_is_progress_shown(window), "the live bar is still shown");
	cr_expect_not(_fsv_live_is_running(window));
	cr_expect_eq(fsv_timeline_get_trace(timeline), whole);
	fst_ui_window_destroy(window);
}

/* KEYVAL pressed, as the window's live key controller ("fsv-live-keys") sees it: End and F,
 * which follow again. Returns whether it took the key. */
static gboolean
press_live_key(guint keyval)
{
	g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(GTK_WIDGET(window));
	gboolean is_handled = FALSE, is_found = FALSE;

	for (guint i = 0; i < g_list_model_get_n_items(controllers) && !is_found; i++) {
		g_autoptr(GObject) controller = g_list_model_get_item(controllers, i);

		if (!GTK_IS_EVENT_CONTROLLER_KEY(controller) ||
		    g_strcmp0(gtk_event_controller_get_name(GTK_EVENT_CONTROLLER(controller)),
			      "fsv-live-keys") != 0)
			continue;
		is_found = TRUE;
		g_signal_emit_by_name(controller, "key-pressed", keyval, 0, (GdkModifierType) 0,
				      &is_handled);
	}
	cr_assert(is_found, "no live key controller");
	return is_handled;
}

/* The row of TRACE that shows what ROW of OTHER shows (kind and handles), FSV_INDEX_NONE. */
static guint32
same_row(FsvTrace *trace, FsvTrace *other, guint32 row)
{
	const FsvRow *o = fsv_trace_get_row(other, row);

	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++) {
		const FsvRow *t = fsv_trace_get_row(trace, r);

		if (t->kind == o->kind && t->adapter_id == o->adapter_id &&
		    t->engine_id == o->engine_id && t->process_id == o->process_id &&
		    t->source_id == o->source_id && t->hwqueue_handle == o->hwqueue_handle &&
		    t->context_handle == o->context_handle &&
		    t->fence_global_handle == o->fence_global_handle)
			return r;
	}
	return FSV_INDEX_NONE;
}

/* Whether op A of TRACE_A and op B of TRACE_B are one operation of the session: by op id once
 * it completed in both, else by what it is (an open op's id is its trace's own). */
static gboolean
same_op(FsvTrace *trace_a, guint32 a, FsvTrace *trace_b, guint32 b)
{
	const FsvOp *x = fsv_trace_get_op(trace_a, a), *y = fsv_trace_get_op(trace_b, b);

	if (x->state != FSA_OP_NEVER_COMPLETED && y->state != FSA_OP_NEVER_COMPLETED)
		return x->id == y->id;
	return x->queued_ns == y->queued_ns && x->kind == y->kind && x->source == y->source &&
	       x->hwqueue_handle == y->hwqueue_handle && x->process_id == y->process_id &&
	       x->fence_handle == y->fence_handle && x->fence_value == y->fence_value;
}

/* Clicks the label of ROW (folds a group, expands a row's stacked lanes). */
static void
click_label(FsvTimeline *timeline, guint32 row)
{
	double y, h;

	cr_assert(fsv_view_get_row_geometry(fsv_timeline_get_view(timeline), row, &y, &h),
		  "row %u not laid out", row);
	fsv_timeline_select_at(timeline, 10, y + MIN(h / 2, 10));
}

/*
 * Issue 16 §4 (s11): what the user set stays across the session's newer traces, rows matched by
 * what they show: a group folded and the fence group unfolded, a row's stacked lanes expanded, the
 * selected op, the vertical scroll, the table's sort, a bookmark; the view scrolled back stays.
 * Two updates (newer traces) after setting it all, everything is checked on the newest.
 */
Test(live_follow, folded_rows_expanded_lanes_selection_sort_and_bookmarks_stay_across_updates)
{
	g_autoptr(GPtrArray) traces = read_growing_traces_of("cpu-waiters");
	FsvTimeline *timeline;
	FsvOpsTable *table;
	FsvTrace *first, *third;
	const FsvView *view;
	guint32 deep = FSV_INDEX_NONE, fence_group = FSV_INDEX_NONE, cpu_group = FSV_INDEX_NONE;
	guint32 op, row;
	guint64 begin, end;
	GtkSortType order;
	FsvItem selected;
	double scroll;

	for (int attempt = 0; attempt < 20 && traces->len < 4; attempt++) {
		g_ptr_array_unref(traces);
		traces = read_growing_traces_of("cpu-waiters");
	}
	cr_assert_geq(traces->len, 4, "only %u traces", traces->len);
	first = g_ptr_array_index(traces, 0);
	third = g_ptr_array_index(traces, 2);

	/* The session's bookmarks of an earlier run go (they are kept by the traces' path, here
	 * the folder the reader read). */
	{
		g_autoptr(FsvBookmarks) bookmarks =
		    fsv_bookmarks_load(fsv_trace_get_path(first), NULL, NULL);

		g_unlink(fsv_bookmarks_get_path(bookmarks));
	}
	window = fst_ui_window_new(1400, 800);
	timeline = _fsv_window_get_timeline(window);
	table = _fsv_window_get_ops_table(window);
	_fsv_live_show_trace(window, URL, first, FALSE);
	fst_ui_spin_until(is_allocated, TIMEOUT_US);
	fst_ui_settle();
	view = fsv_timeline_get_view(timeline);

	/* Rows: a queue with stacked lanes expanded, the fence group unfolded, the CPU group
	 * folded. */
	for (guint32 r = 0; r < fsv_trace_get_row_count(first); r++) {
		const FsvRow *each = fsv_trace_get_row(first, r);

		if (deep == FSV_INDEX_NONE && each->kind == FSV_ROW_QUEUE &&
		    fsv_view_row_has_stacked_lanes(view, r))
			deep = r;
		if (each->kind == FSV_ROW_FENCE_GROUP)
			fence_group = r;
		if (each->kind == FSV_ROW_CPU_GROUP)
			cpu_group = r;
	}
	cr_assert_neq(deep, FSV_INDEX_NONE, "cpu-waiters' first trace has a deep queue");
	cr_assert_neq(fence_group, FSV_INDEX_NONE);
	cr_assert_neq(cpu_group, FSV_INDEX_NONE);
	click_label(timeline, deep);
	cr_assert(fsv_view_is_row_lanes_expanded(view, deep));
	click_label(timeline, cpu_group);
	cr_assert_not(fsv_view_is_row_expanded(view, cpu_group));
	click_label(timeline, fence_group);
	cr_assert(fsv_view_is_row_expanded(view, fence_group));
	/* An op of the deep queue selected, the table sorted by duration, a bookmark, the rows
	 * scrolled, the view scrolled back to the start. */
	op = FSV_INDEX_NONE;
	for (guint32 i = 0; i < fsv_trace_get_op_count(first) && op == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_op(first, i)->row == deep && fsv_trace_get_op(first, i)->lane > 3)
			op = i;
	cr_assert_neq(op, FSV_INDEX_NONE);
	fsv_timeline_select_op(timeline, op);
	fsv_ops_table_sort(table, FSV_OPS_COLUMN_DURATION, GTK_SORT_DESCENDING);
	begin = fsv_trace_get_begin_ns(first);
	end = begin + (fsv_trace_get_end_ns(first) - begin) / 3;
	fsv_timeline_set_visible_range(timeline, begin, end);
	_fsv_window_go_to_text(window, "+1us");
	gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.add-bookmark", NULL);
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 1, "%u bookmarks",
		     _fsv_window_get_bookmark_count(window));
	fsv_timeline_set_visible_range(timeline, begin, end);
	fst_ui_settle();
	scroll = fsv_view_get_scroll_y(fsv_timeline_get_view(timeline));
	cr_assert_gt(scroll, 0, "the selected op's lane scrolled into sight");

	/* Two updates. */
	_fsv_live_show_trace(window, URL, g_ptr_array_index(traces, 1), FALSE);
	fst_ui_settle();
	_fsv_live_show_trace(window, URL, third, FALSE);
	fst_ui_settle();
	cr_assert_eq(fsv_timeline_get_trace(timeline), third);
	view = fsv_timeline_get_view(timeline);

	row = same_row(third, first, deep);
	cr_assert_neq(row, FSV_INDEX_NONE);
	cr_expect(fsv_view_is_row_lanes_expanded(view, row), "the deep queue's lanes folded");
	row = same_row(third, first, cpu_group);
	cr_expect_not(fsv_view_is_row_expanded(view, row), "the CPU group unfolded");
	row = same_row(third, first, fence_group);
	cr_expect(fsv_view_is_row_expanded(view, row), "the fence group folded");
	fsv_timeline_get_selection(timeline, &selected);
	cr_expect_eq(selected.kind, FSV_ITEM_OP);
	cr_expect(same_op(third, selected.index, first, op), "another op selected");
	cr_expect_eq(fsv_ops_table_get_sort(table, &order), FSV_OPS_COLUMN_DURATION);
	cr_expect_eq(order, GTK_SORT_DESCENDING);
	cr_expect_eq(_fsv_window_get_bookmark_count(window), 1, "the bookmark went");
	cr_expect_not(_fsv_live_is_following(window));
	expect_view(begin, end, "scrolled back");
	cr_expect_leq(fabs(fsv_view_get_scroll_y(view) - scroll), 1.0, "scroll %g, was %g",
		      fsv_view_get_scroll_y(view), scroll);

	/* An operation still open selected: its id is its trace's own, so the newer trace finds
	 * it by what it is (queue, fence, value, queued time), completed since or not. */
	{
		FsvTrace *fourth = g_ptr_array_index(traces, 3);
		guint32 open = FSV_INDEX_NONE;

		for (guint32 i = 0; i < fsv_trace_get_op_count(third) && open == FSV_INDEX_NONE;
		     i++)
			if (fsv_trace_get_op(third, i)->state == FSA_OP_NEVER_COMPLETED)
				open = i;
		cr_assert_neq(open, FSV_INDEX_NONE, "cpu-waiters' third trace has an open op");
		fsv_timeline_select_op(timeline, open);
		_fsv_live_show_trace(window, URL, fourth, FALSE);
		fst_ui_settle();
		fsv_timeline_get_selection(timeline, &selected);
		cr_assert_eq(selected.kind, FSV_ITEM_OP, "the open op's selection went");
		cr_expect(same_op(fourth, selected.index, third, open), "another op selected");
		_fsv_live_show_trace(window, URL, third, FALSE);
		fst_ui_settle();
		fsv_timeline_set_visible_range(timeline, begin, end);
		fst_ui_settle();
	}

	/* End follows again; scrolled back once more, F (in the timeline) too. */
	cr_expect(press_live_key(GDK_KEY_End), "End not taken");
	cr_expect(_fsv_live_is_following(window), "End did not follow");
	expect_view(fsv_trace_get_end_ns(third) - (end - begin), fsv_trace_get_end_ns(third),
		    "End");
	fsv_timeline_set_visible_range(timeline, begin, end);
	_fsv_live_show_trace(window, URL, third, FALSE);
	fst_ui_settle();
	cr_expect_not(_fsv_live_is_following(window));
	gtk_widget_grab_focus(GTK_WIDGET(timeline));
	cr_expect_not(press_live_key(GDK_KEY_f), "F is the timeline's (fit), not taken");
	cr_expect(_fsv_live_is_following(window), "F did not follow");

	/* The Follow toggle turned off at the end pauses following there. */
	gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(_fsv_live_get_follow_button(window)), TRUE);
	fst_ui_settle();
	cr_expect(_fsv_live_is_following(window));
	gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(_fsv_live_get_follow_button(window)), FALSE);
	begin = fsv_view_get_begin_ns(fsv_timeline_get_view(timeline));
	end = fsv_view_get_end_ns(fsv_timeline_get_view(timeline));
	_fsv_live_show_trace(window, URL, g_ptr_array_index(traces, 3), FALSE);
	fst_ui_settle();
	cr_expect_not(_fsv_live_is_following(window), "following after the toggle went off");
	expect_view(begin, end, "paused at the end");
	fst_ui_window_destroy(window);
}
