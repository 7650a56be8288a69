/* SPDX-License-Identifier: MIT */
/*
 * UI tests of FsvWindow (suite ui, under Xvfb): the real window opens traces/frame-pipeline in
 * its worker thread, zooms with the timeline's actions (the W/S/A/D/F keys are bindings to
 * them), selects a fence wait through the hit test as a click does, and the details pane and
 * the dependency arrows are checked, also in the pixels: a screenshot of the window is written
 * to the build folder (window-selected.png) and must show the arrow colour. Range statistics,
 * measurement, search, folding a group, dropping a folder and the shortcuts window are checked
 * too. Failing opens (a missing folder, a truncated stream file) say why in one line and keep
 * a trace shown, and a cancelled load leaves no half-loaded trace. In doorbell-pressure a click
 * on a doorbell victimization arrow names its victim and beneficiary (issue 12).
 */
#define _DEFAULT_SOURCE /* truncate() */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "damage.h"
#include "fsv-bookmarks.h"
#include "fst-ui.h"

static FsvWindow *window;

static gboolean
is_allocated(void)
{
	return fst_ui_timeline_is_laid_out(_fsv_window_get_timeline(window));
}

static void
make_window(void)
{
	fst_ui_begin(FALSE);
	window = fst_ui_window_new(1600, 900);
	fst_ui_open_trace(window, "frame-pipeline");
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	fst_ui_spin_until(is_allocated, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
}

static void
destroy_window(void)
{
	fst_ui_window_destroy(window);
	fst_ui_end();
}

/* The longest wait on a GPU queue that a signal released, on a user-mode queue (two phases,
 * GPU timestamps) when there is one: the kind of box the test clicks. */
static guint32
find_released_wait(FsvTrace *trace)
{
	guint32 best = FSV_INDEX_NONE;
	guint64 best_len = 0;
	gboolean best_user = FALSE;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *op = fsv_trace_get_op(trace, i);
		guint n = 0;

		if (op->kind != FSA_OP_WAIT || op->state != FSA_OP_OBSERVED ||
		    op->signal_op == FSV_INDEX_NONE || op->source == FSA_SRC_CPU)
			continue;
		fsv_trace_get_op_edges(trace, i, &n);
		if (n == 0)
			continue;
		gboolean user = op->source == FSA_SRC_USER_MODE_QUEUE;

		if ((user && !best_user) ||
		    (user == best_user && op->end_ns - op->begin_ns > best_len)) {
			best = i;
			best_len = op->end_ns - op->begin_ns;
			best_user = user;
		}
	}
	return best;
}

TestSuite(window, .init = make_window, .fini = destroy_window, .timeout = 120);

Test(window, opens_trace_with_its_name_in_the_title)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	g_autofree char *details = _fsv_window_dup_details_text(window);

	cr_assert_not_null(trace);
	cr_assert_not_null(strstr(gtk_window_get_title(GTK_WINDOW(window)), "frame-pipeline"),
			   "title: %s", gtk_window_get_title(GTK_WINDOW(window)));
	cr_assert_gt(fsv_trace_get_op_count(trace), 0);
	/* The trace joins the recent traces the header bar's menu lists. */
	{
		g_autofree char *path =
		    g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
		g_autoptr(GFile) file = g_file_new_for_path(path);
		g_autofree char *uri = g_file_get_uri(file);
		GtkRecentInfo *info =
		    gtk_recent_manager_lookup_item(gtk_recent_manager_get_default(), uri, NULL);

		cr_assert_not_null(info, "%s is not in the recent traces", uri);
		cr_assert(gtk_recent_info_has_application(info, "fencescope-view"));
		gtk_recent_info_unref(info);
	}
	/* With nothing selected the pane summarizes the trace. */
	cr_assert_not_null(strstr(details, "Fence waits:"), "details:\n%s", details);
	{
		/* The count the golden report gives (traces/ is re-recorded now and then). */
		g_autofree char *golden_path = g_build_filename(
		    FST_SOURCE_ROOT, "traces", "frame-pipeline", "expected.txt", NULL);
		g_autofree char *golden = NULL;
		g_autofree char *want = NULL;
		const char *line;

		cr_assert(g_file_get_contents(golden_path, &golden, NULL, NULL), "%s", golden_path);
		line = strstr(golden, "\n  events ");
		cr_assert_not_null(line, "no events line in %s", golden_path);
		want = g_strdup_printf("Events: %" G_GUINT64_FORMAT,
				       g_ascii_strtoull(line + strlen("\n  events "), NULL, 10));
		cr_assert_not_null(strstr(details, want), "%s in details:\n%s", want, details);
	}
}

Test(window, zoom_and_pan_actions_move_the_viewport)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const FsvView *view = fsv_timeline_get_view(timeline);
	double fitted = fsv_view_get_ns_per_px(view);
	guint64 begin;

	cr_assert(gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.zoom-in", NULL));
	cr_assert_float_eq(fsv_view_get_ns_per_px(view), fitted / 1.25, fitted * 1e-6);
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.zoom-out", NULL));
	cr_assert_float_eq(fsv_view_get_ns_per_px(view), fitted, fitted * 1e-6);
	for (int i = 0; i < 8; i++)
		gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.zoom-in", NULL);
	begin = fsv_view_get_begin_ns(view);
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.pan-right", NULL));
	cr_assert_gt(fsv_view_get_begin_ns(view), begin);
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.pan-left", NULL));
	cr_assert_lt(llabs((long long) (fsv_view_get_begin_ns(view) - begin)),
		     2 * (long long) ceil(fsv_view_get_ns_per_px(view)) + 2);
	/* The mouse wheel's zoom keeps the time under the pointer in place. */
	{
		double x = fsv_view_get_label_width(view) + 300;
		guint64 t = fsv_view_x_to_time(view, x);

		fsv_timeline_zoom(timeline, 2.0, x);
		cr_assert_lt(fabs(fsv_view_time_to_x(view, t) - x), 1.0);
	}
	/* The horizontal scrollbar pans without changing the zoom. */
	{
		g_autoptr(GtkAdjustment) hadjustment = NULL;
		double ns_per_px = fsv_view_get_ns_per_px(view);
		guint64 before = fsv_view_get_begin_ns(view);

		g_object_get(timeline, "hadjustment", &hadjustment, NULL);
		cr_assert_gt(gtk_adjustment_get_upper(hadjustment),
			     gtk_adjustment_get_page_size(hadjustment));
		gtk_adjustment_set_value(hadjustment, gtk_adjustment_get_value(hadjustment) + 100);
		cr_assert_eq(fsv_view_get_ns_per_px(view), ns_per_px);
		cr_assert_lt(
		    fabs((double) (fsv_view_get_begin_ns(view) - before) - 100 * ns_per_px),
		    2 * ns_per_px + 2);
	}
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.fit", NULL));
	cr_assert_float_eq(fsv_view_get_ns_per_px(view), fitted, fitted * 1e-6);
}

Test(window, click_on_a_wait_shows_its_details_and_arrows)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint32 wait = find_released_wait(trace);
	const FsvOp *op, *signal;
	const guint32 *targets;
	guint n = 0;
	FsvItem selection;
	double y, h, x, sy, sh;
	g_autofree char *details = NULL;
	g_autofree char *shot = NULL;
	g_autoptr(GdkTexture) texture = NULL;
	double arrow[3];
	guint arrow_pixels;
	guint64 span;

	cr_assert_neq(wait, FSV_INDEX_NONE, "frame-pipeline has no released GPU wait");
	op = fsv_trace_get_op(trace, wait);
	signal = fsv_trace_get_op(trace, op->signal_op);
	/* Zoom so the wait and its signal both show, as a user would with the wheel. */
	span = MAX(op->end_ns, signal->end_ns) - MIN(op->begin_ns, signal->begin_ns);
	fsv_timeline_set_visible_range(timeline, MIN(op->begin_ns, signal->begin_ns) - span / 2,
				       MAX(op->end_ns, signal->end_ns) + span / 2);
	fst_ui_settle();
	cr_assert(fsv_view_get_lane_geometry(view, op->row, op->lane, &y, &h),
		  "the wait's row is not laid out");
	x = (fsv_view_time_to_x(view, op->begin_ns) + fsv_view_time_to_x(view, op->end_ns)) / 2;

	cr_assert(fsv_timeline_select_at(timeline, x, y + h / 2), "nothing at (%.0f, %.0f)", x,
		  y + h / 2);
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(fsv_trace_get_op(trace, selection.index)->kind, FSA_OP_WAIT);
	wait = selection.index;
	op = fsv_trace_get_op(trace, wait);

	/* The details pane: every field, both time bases, the phases, the releasing signal. */
	details = _fsv_window_dup_details_text(window);
	cr_assert_not_null(strstr(details, "Operation: wait"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "State: observed"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "HWQueue: 0x"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Fence: 0x"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Value: "), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Queued: "), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Unblocked: "), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "GPU"), "no GPU time in:\n%s", details);
	cr_assert_not_null(strstr(details, "Duration: "), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Released by: signal op"), "details:\n%s", details);
	if (op->source == FSA_SRC_USER_MODE_QUEUE && op->observed_ns != FSV_TIME_NONE) {
		/* The wait's phases: queued behind other work, then stalled on the GPU. */
		cr_assert_not_null(strstr(details, "Reached on GPU: "), "details:\n%s", details);
		cr_assert_not_null(strstr(details, "Queued phase: "), "details:\n%s", details);
		cr_assert_not_null(strstr(details, "Stalled on GPU: "), "details:\n%s", details);
	}

	/* The arrows: from the wait back to the signal that released it. */
	targets = fsv_timeline_get_arrow_targets(timeline, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(targets[0], op->signal_op);

	/* And in the pixels: the arrow colour appears between the two boxes. */
	fst_ui_settle();
	texture = fst_ui_screenshot(GTK_WIDGET(window));
	shot = g_build_filename(FST_BUILD_DIR, "window-selected.png", NULL);
	cr_assert(gdk_texture_save_to_png(texture, shot));
	signal = fsv_trace_get_op(trace, op->signal_op);
	cr_assert(fsv_view_get_lane_geometry(view, signal->row, signal->lane, &sy, &sh));
	{
		graphene_point_t origin;
		double x0 = MIN(fsv_view_time_to_x(view, signal->begin_ns),
				fsv_view_time_to_x(view, op->begin_ns));
		double x1 = MAX(fsv_view_time_to_x(view, signal->end_ns),
				fsv_view_time_to_x(view, op->end_ns));

		cr_assert(gtk_widget_compute_point(GTK_WIDGET(timeline), GTK_WIDGET(window),
						   &GRAPHENE_POINT_INIT(0, 0), &origin));
		fsv_render_get_color(FSV_COLOR_ARROW, arrow);
		arrow_pixels = fst_ui_count_colour(texture, arrow, 24, (int) (origin.x + x0) - 20,
						   (int) (origin.y + MIN(sy, y)) - 20,
						   (int) (origin.x + x1) + 20,
						   (int) (origin.y + MAX(sy + sh, y + h)) + 20);
	}
	cr_assert_gt(arrow_pixels, 10, "no arrow drawn (%u pixels of its colour); see %s",
		     arrow_pixels, shot);

	/* Escape clears: no selection, no arrows. */
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.clear", NULL));
	fsv_timeline_get_arrow_targets(timeline, &n);
	cr_assert_eq(n, 0);
}

Test(window, range_selection_shows_statistics_and_measure_shows_delta)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	guint64 begin = fsv_trace_get_begin_ns(trace), end = fsv_trace_get_end_ns(trace);
	g_autofree char *details = NULL;

	fsv_timeline_set_range(timeline, TRUE, begin, begin + (end - begin) / 2);
	details = _fsv_window_dup_details_text(window);
	cr_assert_not_null(strstr(details, "Range"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Waits: "), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Latency p50: "), "details:\n%s", details);
	cr_assert(
	    gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.zoom-selection", NULL));
	cr_assert_lt(fsv_view_get_end_ns(fsv_timeline_get_view(timeline)), end);

	fsv_timeline_add_measure_point(timeline, begin + 1000);
	cr_assert_null(strstr(_fsv_window_get_status(window), "Δt"));
	fsv_timeline_add_measure_point(timeline, begin + 1001000);
	cr_assert_not_null(strstr(_fsv_window_get_status(window), "Δt = 1.000 ms"), "status: %s",
			   _fsv_window_get_status(window));
}

Test(window, search_filters_by_fence_rejects_bad_terms_and_gives_keys_back)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	guint32 wait = find_released_wait(trace);
	g_autofree char *text =
	    g_strdup_printf("fence=0x%" G_GINT64_MODIFIER "x value=%" G_GUINT64_FORMAT,
			    fsv_trace_get_op(trace, wait)->fence_handle,
			    fsv_trace_get_op(trace, wait)->fence_value);
	FsvItem selection;
	const FsvOp *found;

	/* Typing filters (non-matching ops fade); Enter selects the first match. */
	_fsv_window_set_search_text(window, text);
	cr_assert_not(_fsv_window_search_has_error(window));
	_fsv_window_activate_search(window);
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	found = fsv_trace_get_op(trace, selection.index);
	cr_assert_eq(found->fence_handle, fsv_trace_get_op(trace, wait)->fence_handle);
	cr_assert_eq(found->fence_value, fsv_trace_get_op(trace, wait)->fence_value);

	/* After Enter the keys go back to the timeline (Z, W, F typed next once landed in the
	 * entry). */
	cr_assert(gtk_widget_is_focus(GTK_WIDGET(timeline)), "Enter gives the focus back");

	_fsv_window_set_search_text(window, "colour=blue");
	cr_assert(_fsv_window_search_has_error(window));
	_fsv_window_set_search_text(window, "kind=wait and (dur>2xs");
	cr_assert(_fsv_window_search_has_error(window));
	_fsv_window_set_search_text(window, "kind=wait and dur>1ms or state=never_completed");
	cr_assert_not(_fsv_window_search_has_error(window));
	_fsv_window_set_search_text(window, "");
	cr_assert_not(_fsv_window_search_has_error(window));
}

Test(window, failed_open_keeps_the_trace_and_says_why_in_one_line)
{
	FsvTrace *before = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	g_autoptr(GFile) missing = g_file_new_for_path("/nonexistent/fencescope-trace");
	const char *error;

	fsv_window_open(window, missing);
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error);
	cr_assert_not_null(strstr(error, "/nonexistent/fencescope-trace"), "error: %s", error);
	cr_assert_null(strchr(error, '\n'), "error: %s", error);
	cr_assert_eq(fsv_timeline_get_trace(_fsv_window_get_timeline(window)), before);
}

Test(window, cancelled_load_keeps_the_previous_trace)
{
	FsvTrace *before = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "stress", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);

	fsv_window_open(window, file);
	cr_assert(_fsv_window_is_loading(window));
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(window), "win.cancel-load", NULL));
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_eq(fsv_timeline_get_trace(_fsv_window_get_timeline(window)), before);
	cr_assert_not_null(strstr(gtk_window_get_title(GTK_WINDOW(window)), "frame-pipeline"));
}

Test(window, shortcuts_window_lists_the_timeline_keys)
{
	g_autoptr(GtkBuilder) builder =
	    gtk_builder_new_from_resource("/org/fencescope/Viewer/gtk/help-overlay.ui");
	GObject *overlay = gtk_builder_get_object(builder, "help_overlay");
	g_autofree char *ui = NULL;
	g_autoptr(GBytes) bytes =
	    g_resources_lookup_data("/org/fencescope/Viewer/gtk/help-overlay.ui", 0, NULL);

	cr_assert(GTK_IS_SHORTCUTS_WINDOW(overlay));
	ui = g_strndup(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes));
	for (const char *const *key =
		 (const char *const[]){">w<", ">s<", ">a<", ">d<", ">f<", ">z<", ">m<", NULL};
	     *key; key++)
		cr_assert_not_null(strstr(ui, *key), "no %s in the shortcuts window", *key);
	gtk_window_destroy(GTK_WINDOW(overlay));
}

Test(window, click_on_a_group_label_folds_and_unfolds_it)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint32 adapter = FSV_INDEX_NONE;
	guint before = fsv_view_get_visible_row_count(view);
	FsvItem selection;
	double y, h;

	for (guint32 row = 0; row < fsv_trace_get_row_count(trace); row++)
		if (fsv_trace_get_row(trace, row)->kind == FSV_ROW_ADAPTER) {
			adapter = row;
			break;
		}
	cr_assert_neq(adapter, FSV_INDEX_NONE);
	cr_assert(fsv_view_get_row_geometry(view, adapter, &y, &h));
	/* A click on the label selects nothing and folds the adapter's engines and queues. */
	cr_assert_not(fsv_timeline_select_at(timeline, 10, y + h / 2));
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_NONE);
	cr_assert_not(fsv_view_is_row_expanded(view, adapter));
	cr_assert_lt(fsv_view_get_visible_row_count(view), before);
	cr_assert_not(fsv_view_get_row_geometry(
	    view,
	    fsv_trace_find_queue_row(
		trace, fsv_trace_get_op(trace, find_released_wait(trace))->hwqueue_handle),
	    &y, &h));
	/* A second click unfolds it. */
	cr_assert(fsv_view_get_row_geometry(view, adapter, &y, &h));
	fsv_timeline_select_at(timeline, 10, y + h / 2);
	cr_assert(fsv_view_is_row_expanded(view, adapter));
	cr_assert_eq(fsv_view_get_visible_row_count(view), before);
}

/* docs/viewer.md "Lanes": cpu-waiters queues 256 signals at once. A click on the "+k more"
 * slot expands the row, its boxes then each in a lane of its own and selectable; the row's
 * label folds the lanes again; selecting an op of a folded lane from elsewhere unfolds them. */
Test(window, click_on_more_lanes_expands_a_deep_row_and_its_label_folds_it)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace;
	const FsvView *view;
	guint32 row = FSV_INDEX_NONE, deep = FSV_INDEX_NONE;
	int collapsed_height;
	FsvLaneSlot slot;
	FsvItem selection;
	const FsvOp *op;
	double x, y, h;

	fst_ui_open_trace(window, "cpu-waiters");
	fst_ui_settle();
	trace = fsv_timeline_get_trace(timeline);
	view = fsv_timeline_get_view(timeline);
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace) && row == FSV_INDEX_NONE; r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_QUEUE &&
		    fsv_view_row_has_stacked_lanes(view, r))
			row = r;
	cr_assert_neq(row, FSV_INDEX_NONE, "cpu-waiters has a deep queue");
	collapsed_height = fsv_view_get_content_height(view);
	cr_assert(
	    fsv_view_get_lane_slot(view, row, fsv_view_get_lane_slot_count(view, row) - 1, &slot));
	cr_assert_gt(slot.lane_count, 1, "the last slot aggregates");
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace) && deep == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_op(trace, i)->row == row &&
		    fsv_trace_get_op(trace, i)->lane == slot.first_lane + 40)
			deep = i;
	cr_assert_neq(deep, FSV_INDEX_NONE);
	op = fsv_trace_get_op(trace, deep);
	x = (fsv_view_time_to_x(view, op->begin_ns) + fsv_view_time_to_x(view, op->end_ns)) / 2;
	/* The click on "+k more" selects nothing and shows every lane. */
	cr_assert_not(fsv_timeline_select_at(timeline, x, slot.y + slot.height / 2));
	cr_assert(fsv_view_is_row_lanes_expanded(view, row));
	cr_assert_gt(fsv_view_get_content_height(view), collapsed_height);
	fst_ui_settle();
	/* The label folds the lanes again. */
	cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
	cr_assert_not(fsv_timeline_select_at(timeline, 10, y + 10));
	cr_assert_not(fsv_view_is_row_lanes_expanded(view, row));
	cr_assert_eq(fsv_view_get_content_height(view), collapsed_height);
	/* Selected from elsewhere (the search), it unfolds its row, seen in its own lane. */
	fsv_timeline_select_op(timeline, deep);
	fst_ui_settle();
	cr_assert(fsv_view_is_row_lanes_expanded(view, row));
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.index, deep);
	/* Scrolled to its lane, which answers a click. */
	cr_assert(fsv_view_get_lane_geometry(view, row, op->lane, &y, &h));
	cr_assert(y >= fsv_view_get_ruler_height(view) && y + h <= fsv_view_get_height(view),
		  "its lane is in sight (y %.0f)", y);
	fsv_timeline_set_selection(timeline, NULL);
	cr_assert(fsv_timeline_select_at(timeline, x, y + h / 2));
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(selection.index, deep, "its own lane answers a click");
}

Test(window, dropping_a_trace_folder_opens_it)
{
	g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(GTK_WIDGET(window));
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "log-overrun", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	GSList files = {.data = file, .next = NULL};
	GtkDropTarget *target = NULL;
	GValue value = G_VALUE_INIT;
	gboolean is_accepted = FALSE;

	for (guint i = 0; i < g_list_model_get_n_items(controllers) && !target; i++) {
		g_autoptr(GObject) controller = g_list_model_get_item(controllers, i);

		if (GTK_IS_DROP_TARGET(controller))
			target = GTK_DROP_TARGET(controller);
	}
	cr_assert_not_null(target, "the window takes no drops");
	g_value_init(&value, GDK_TYPE_FILE_LIST);
	g_value_take_boxed(&value, gdk_file_list_new_from_list(&files));
	g_signal_emit_by_name(target, "drop", &value, 100.0, 100.0, &is_accepted);
	g_value_unset(&value);
	cr_assert(is_accepted);
	cr_assert(_fsv_window_is_loading(window));
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_not_null(strstr(gtk_window_get_title(GTK_WINDOW(window)), "log-overrun"));
	/* That trace lost log entries: its summary says how many. */
	{
		g_autofree char *details = _fsv_window_dup_details_text(window);

		cr_assert_not_null(strstr(details, "Log entries lost: 640"), "details:\n%s",
				   details);
	}
}

Test(window, damaged_trace_is_named_in_a_one_line_error)
{
	g_autofree char *work = g_dir_make_tmp("fsv-ui-XXXXXX", NULL);
	g_autofree char *sample =
	    g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	g_autofree char *copy = g_build_filename(work, "damaged", NULL);
	g_autofree char *stream =
	    g_build_filename(copy, "ust", "uid", "0", "64-bit", "fencescope_0", NULL);
	g_autofree char *cp = g_strdup_printf("cp -r '%s' '%s'", sample, copy);
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", work);
	g_autoptr(GFile) file = g_file_new_for_path(copy);
	GStatBuf st;
	const char *error;

	cr_assert_not_null(work);
	cr_assert_eq(system(cp), 0, "%s", cp);
	cr_assert_eq(g_stat(stream, &st), 0, "%s", stream);
	cr_assert_eq(truncate(stream, st.st_size / 2), 0);

	fsv_window_open(window, file);
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error, "a truncated stream file opened without a word");
	cr_assert_not_null(strstr(error, "fencescope_0"), "error: %s", error);
	cr_assert_null(strchr(error, '\n'), "error: %s", error);
	/* Whatever was shown stays usable. */
	cr_assert_not_null(fsv_timeline_get_trace(_fsv_window_get_timeline(window)));
	cr_assert_eq(system(rm), 0);
}

/* libbabeltrace2 crashes on this copy (tests/common/damage.c): the decoder runs in a child
 * process, so the window lives on, shows what was read before the crash, and says why. */
Test(window, a_decoder_crash_keeps_the_window_and_shows_the_partial_banner)
{
	g_autofree char *work = g_dir_make_tmp("fsv-ui-XXXXXX", NULL);
	g_autofree char *sample =
	    g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	g_autofree char *copy = g_build_filename(work, "crashing", NULL);
	g_autofree char *stream =
	    g_build_filename(copy, "ust", "uid", "0", "64-bit", "fencescope_0", NULL);
	g_autofree char *cp = g_strdup_printf("cp -r '%s' '%s'", sample, copy);
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", work);
	g_autoptr(GFile) file = g_file_new_for_path(copy);
	FsvTrace *trace;
	const char *error;

	cr_assert_not_null(work);
	cr_assert_eq(system(cp), 0, "%s", cp);
	cr_assert(fst_damage_until_babeltrace_crashes(copy, stream, 300),
		  "no damage of %s crashes babeltrace2", stream);

	fsv_window_open(window, file);
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error, "a crash of the decoder went without a word");
	cr_expect_not_null(strstr(error, "libbabeltrace2 crashed (SIG"), "banner: %s", error);
	cr_expect_null(strchr(error, '\n'), "banner: %s", error);
	trace = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	cr_assert_not_null(trace, "the partial trace is not shown");
	cr_expect_str_eq(fsv_trace_get_name(trace), "crashing");
	cr_expect_not_null(fsv_trace_get_partial_error(trace));
	cr_expect(gtk_widget_get_visible(GTK_WIDGET(window)));
	{
		/* For a reader of the build folder: what a user sees after the crash, once the
		 * banner's revealer has finished sliding in. */
		g_autoptr(GdkTexture) texture = NULL;

		for (int i = 0; i < 30; i++)
			fst_ui_settle();
		texture = fst_ui_screenshot(GTK_WIDGET(window));
		g_autofree char *shot = g_build_filename(FST_BUILD_DIR, "window-partial.png", NULL);

		cr_expect(gdk_texture_save_to_png(texture, shot));
	}
	cr_assert_eq(system(rm), 0);
}

/* Opening a second trace while the first loads: the first load is cancelled, and whichever
 * thread ends first, the window ends on the trace opened last. */
Test(window, opening_another_trace_while_one_loads_shows_the_last_one)
{
	g_autofree char *stress = g_build_filename(FST_SOURCE_ROOT, "traces", "stress", NULL);
	g_autofree char *cpu = g_build_filename(FST_SOURCE_ROOT, "traces", "cpu-waiters", NULL);
	g_autoptr(GFile) first = g_file_new_for_path(stress);
	g_autoptr(GFile) last = g_file_new_for_path(cpu);

	fsv_window_open(window, first);
	fsv_window_open(window, last);
	fsv_window_open(window, first);
	fsv_window_open(window, last);
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_not(_fsv_window_is_progress_shown(window));
	cr_assert_str_eq(
	    fsv_trace_get_name(fsv_timeline_get_trace(_fsv_window_get_timeline(window))),
	    "cpu-waiters");
	cr_assert_not_null(strstr(gtk_window_get_title(GTK_WINDOW(window)), "cpu-waiters"));
}

/* An open the window cannot read (not a local folder) while a load runs: that load is
 * cancelled, so its loading bar goes too; the error says why and the trace shown stays. */
Test(window, unreadable_open_during_a_load_leaves_no_loading_bar)
{
	FsvTrace *before = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	g_autofree char *stress = g_build_filename(FST_SOURCE_ROOT, "traces", "stress", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(stress);
	g_autoptr(GFile) remote = g_file_new_for_uri("sftp://example.invalid/trace");
	const char *error;

	fsv_window_open(window, file);
	cr_assert(_fsv_window_is_progress_shown(window));
	fsv_window_open(window, remote);
	cr_assert_not(_fsv_window_is_loading(window));
	cr_assert_not(_fsv_window_is_progress_shown(window), "the cancelled load's bar stayed");
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error);
	cr_assert_not_null(strstr(error, "not a local folder"), "error: %s", error);
	fst_ui_settle();
	cr_assert_eq(fsv_timeline_get_trace(_fsv_window_get_timeline(window)), before);
}

static gpointer closed_window;

static gboolean
is_closed_window_finalized(void)
{
	return closed_window == NULL;
}

/* Closing a window while its trace loads: the load is cancelled, its thread ends, and the
 * window is finalized (the GTask's reference is the last one), with nothing touching it after. */
Test(window, closing_a_window_while_it_loads_frees_it)
{
	g_autofree char *stress = g_build_filename(FST_SOURCE_ROOT, "traces", "stress", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(stress);
	FsvWindow *other = fsv_window_new(NULL);

	gtk_window_present(GTK_WINDOW(other));
	fst_ui_settle();
	fsv_window_open(other, file);
	cr_assert(_fsv_window_is_loading(other));
	closed_window = other;
	g_object_add_weak_pointer(G_OBJECT(other), &closed_window);
	gtk_window_destroy(GTK_WINDOW(other));
	fst_ui_spin_until(is_closed_window_finalized, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	/* The other window is untouched. */
	cr_assert_not_null(fsv_timeline_get_trace(_fsv_window_get_timeline(window)));
}

/* Collects the buttons, menu buttons and search entries under WIDGET, the window's own ones
 * (not the inner button of a menu button, nor the title bar's window controls). */
static void
collect_controls(GtkWidget *widget, GPtrArray *out)
{
	if (GTK_IS_WINDOW_CONTROLS(widget))
		return;
	if (GTK_IS_MENU_BUTTON(widget) || GTK_IS_SEARCH_ENTRY(widget) || GTK_IS_BUTTON(widget)) {
		g_ptr_array_add(out, widget);
		if (GTK_IS_MENU_BUTTON(widget))
			return;
	}
	for (GtkWidget *child = gtk_widget_get_first_child(widget); child;
	     child = gtk_widget_get_next_sibling(child))
		collect_controls(child, out);
}

/* Accessibility basics: every control says what it is to a screen reader (a label, its own
 * or an accessible one), and so does the timeline, a focusable drawing. */
Test(window, controls_and_timeline_have_accessible_labels)
{
	g_autoptr(GPtrArray) controls = g_ptr_array_new();

	collect_controls(GTK_WIDGET(window), controls);
	cr_assert_gt(controls->len, 4);
	for (guint i = 0; i < controls->len; i++) {
		GtkWidget *w = controls->pdata[i];
		const char *text = GTK_IS_BUTTON(w) ? gtk_button_get_label(GTK_BUTTON(w)) : NULL;

		cr_assert(text || gtk_test_accessible_has_property(GTK_ACCESSIBLE(w),
								   GTK_ACCESSIBLE_PROPERTY_LABEL),
			  "a %s (tooltip '%s') has no accessible label", G_OBJECT_TYPE_NAME(w),
			  gtk_widget_get_tooltip_text(w));
	}
	cr_assert(gtk_test_accessible_has_property(GTK_ACCESSIBLE(_fsv_window_get_timeline(window)),
						   GTK_ACCESSIBLE_PROPERTY_LABEL));
	cr_assert(gtk_test_accessible_has_property(GTK_ACCESSIBLE(_fsv_window_get_timeline(window)),
						   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION));
}

/* The status line's hint names the key that opens the shortcuts window (Ctrl+?, as the
 * shortcuts window itself says), not a bare '?' that does nothing. */
Test(window, status_hint_names_the_shortcuts_key_that_works)
{
	g_autoptr(GBytes) bytes =
	    g_resources_lookup_data("/org/fencescope/Viewer/gtk/help-overlay.ui", 0, NULL);
	g_autofree char *ui = g_strndup(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes));
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const char *status;

	/* The hint shows while the pointer is over nothing: reopening the trace clears what
	 * the pointer (wherever Xvfb put it) last hovered. */
	fsv_timeline_set_trace(timeline, fsv_timeline_get_trace(timeline));
	status = _fsv_window_get_status(window);
	cr_assert_not_null(strstr(ui, "&lt;Control&gt;question"));
	cr_assert_not_null(strstr(status, "Ctrl+?: shortcuts"), "status: %s", status);
	cr_assert_null(strstr(status, " ? :"), "status: %s", status);
}

/* Enter in the search entry walks the matches in time order, each once, then wraps: even where
 * hundreds of matching operations that began earlier are still open (a deep queue, waits that
 * never completed), which once made it jump back and cycle. */
Test(window, search_enter_visits_each_match_once_in_time_order)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace;
	g_autoptr(FsvQuery) filter = fsv_query_parse("pid=1", NULL, NULL);
	guint matches = 0, steps;
	g_autofree guint8 *seen = NULL;
	FsvItem selection;
	guint32 previous = FSV_INDEX_NONE, first;

	fst_ui_open_trace(window, "stress");
	trace = fsv_timeline_get_trace(timeline);
	cr_assert_not_null(filter);
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++)
		matches += fsv_query_match_op(filter, fsv_trace_get_op(trace, i));
	cr_assert_gt(matches, 1000);
	seen = g_new0(guint8, fsv_trace_get_op_count(trace));
	_fsv_window_set_search_text(window, "pid=1");
	fsv_timeline_set_selection(timeline, NULL);
	for (steps = 0; steps < matches; steps++) {
		const FsvOp *op;

		_fsv_window_activate_search(window);
		fsv_timeline_get_selection(timeline, &selection);
		cr_assert_eq(selection.kind, FSV_ITEM_OP);
		cr_assert_not(seen[selection.index], "step %u: op %u again", steps,
			      selection.index);
		seen[selection.index] = 1;
		op = fsv_trace_get_op(trace, selection.index);
		if (previous != FSV_INDEX_NONE) {
			const FsvOp *p = fsv_trace_get_op(trace, previous);

			cr_assert(p->begin_ns < op->begin_ns ||
				      (p->begin_ns == op->begin_ns && previous < selection.index),
				  "step %u went back in time", steps);
		}
		previous = selection.index;
	}
	/* One more wraps to the first match. */
	first = fsv_trace_find_next_op(trace, filter, FSV_INDEX_NONE);
	_fsv_window_activate_search(window);
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.index, first);
	_fsv_window_set_search_text(window, "");
}

/* A window made narrow keeps the timeline whole: the pane does not squeeze it under its
 * minimum width, which cut the row labels and the ruler's corner off on the left. */
Test(window, narrow_window_keeps_the_timeline_labels_whole)
{
	GtkWidget *timeline = GTK_WIDGET(_fsv_window_get_timeline(window));
	int minimum = 0;
	graphene_rect_t bounds;

	gtk_window_set_default_size(GTK_WINDOW(window), 400, 400);
	gtk_window_unmaximize(GTK_WINDOW(window));
	fst_ui_settle();
	fst_ui_settle();
	gtk_widget_measure(timeline, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
	cr_assert_geq(gtk_widget_get_width(timeline), minimum, "timeline %d px < its minimum %d",
		      gtk_widget_get_width(timeline), minimum);
	cr_assert(gtk_widget_compute_bounds(timeline, GTK_WIDGET(window), &bounds));
	cr_assert_geq(bounds.origin.x, 0, "the timeline starts %g px left of the window",
		      bounds.origin.x);
	cr_assert_leq(fsv_view_get_label_width(fsv_timeline_get_view(FSV_TIMELINE(timeline))),
		      gtk_widget_get_width(timeline) - 1);
}

/* Issue 12: in the recorded doorbell-pressure trace, a click on a victimization's arrow selects
 * it and the details pane names the victim, the beneficiary and the physical doorbell; the
 * screenshot (window-doorbell.png) shows the band colours and the arrow. */
Test(window, click_on_a_victimization_arrow_shows_victim_and_beneficiary)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const FsvView *view;
	FsvTrace *trace;
	guint32 victimize = FSV_INDEX_NONE;
	const FsvMarker *m;
	FsvItem selection;
	double x, y0, y1, rgb[3];
	g_autofree char *details = NULL, *shot = NULL;
	g_autoptr(GdkTexture) texture = NULL;
	graphene_point_t origin;
	guint selected, green, amber;

	fst_ui_open_trace(window, "doorbell-pressure");
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	fst_ui_settle();
	view = fsv_timeline_get_view(timeline);
	trace = fsv_timeline_get_trace(timeline);
	for (guint32 i = 0; i < fsv_trace_get_marker_count(trace) && victimize == FSV_INDEX_NONE;
	     i++)
		if (fsv_trace_get_marker(trace, i)->kind == FSA_MARK_DOORBELL_VICTIMIZE)
			victimize = i;
	cr_assert_neq(victimize, FSV_INDEX_NONE, "doorbell-pressure has no victimization");
	m = fsv_trace_get_marker(trace, victimize);
	fsv_timeline_set_visible_range(timeline, m->begin_ns - 20000, m->begin_ns + 20000);
	fst_ui_settle();
	cr_assert(fsv_view_get_victim_arrow(view, victimize, &x, &y0, &y1), "no arrow laid out");
	cr_assert(fsv_timeline_select_at(timeline, x, (y0 + y1) / 2), "nothing at the arrow");
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_MARKER);
	cr_assert_eq(fsv_trace_get_marker(trace, selection.index)->kind,
		     FSA_MARK_DOORBELL_VICTIMIZE);
	details = _fsv_window_dup_details_text(window);
	cr_assert_not_null(strstr(details, "Victim: HWQueue 0x"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Beneficiary: HWQueue 0x"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Physical doorbell: "), "details:\n%s", details);

	fst_ui_settle();
	/* The details pane widened with the selection and the timeline narrowed: the range,
	 * shown whole, was refitted to the new width (docs/viewer.md "Resizing"). */
	cr_assert(fsv_view_get_victim_arrow(view, victimize, &x, &y0, &y1), "no arrow laid out");
	texture = fst_ui_screenshot(GTK_WIDGET(window));
	shot = g_build_filename(FST_BUILD_DIR, "window-doorbell.png", NULL);
	cr_assert(gdk_texture_save_to_png(texture, shot));
	cr_assert(gtk_widget_compute_point(GTK_WIDGET(timeline), GTK_WIDGET(window),
					   &GRAPHENE_POINT_INIT(0, 0), &origin));
	/* The selected arrow is drawn in the selection colour; the others selected. The bands
	 * show connected (green) and retry (amber) stretches. */
	fsv_render_get_color(FSV_COLOR_SELECTION, rgb);
	selected = fst_ui_count_colour(texture, rgb, 24, (int) (origin.x + x) - 3,
				       (int) (origin.y + MIN(y0, y1)), (int) (origin.x + x) + 4,
				       (int) (origin.y + MAX(y0, y1)));
	cr_assert_gt(selected, 5, "the selected arrow is not drawn; see %s", shot);
	fsv_render_get_color(FSV_COLOR_DOORBELL_CONNECTED, rgb);
	green =
	    fst_ui_count_colour(texture, rgb, 24, (int) origin.x, (int) origin.y,
				gdk_texture_get_width(texture), gdk_texture_get_height(texture));
	fsv_render_get_color(FSV_COLOR_DOORBELL_RETRY, rgb);
	amber =
	    fst_ui_count_colour(texture, rgb, 24, (int) origin.x, (int) origin.y,
				gdk_texture_get_width(texture), gdk_texture_get_height(texture));
	cr_assert_gt(green, 20, "no connected band; see %s", shot);
	cr_assert_gt(amber, 20, "no retry band; see %s", shot);
}

/* Issue 13 (PRE-06, PRE-07): in a recording of priority-inversion, a click on the connector
 * between a preempted piece and its resubmitted piece selects the resubmitted piece and the
 * details pane names the packet it resubmits and both fence ids; the screenshot
 * (window-preemption.png) shows the orange preempted pieces. The recording is
 * $FSV_RECORDED_TRACES/priority-inversion, else traces/priority-inversion; without either the
 * test is skipped, saying so. */
Test(window, click_on_a_piece_connector_shows_the_resubmission)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const char *dir = g_getenv("FSV_RECORDED_TRACES");
	g_autofree char *path =
	    dir ? g_build_filename(dir, "priority-inversion", NULL)
		: g_build_filename(FST_SOURCE_ROOT, "traces", "priority-inversion", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autofree char *details = NULL, *shot = NULL;
	g_autoptr(GdkTexture) texture = NULL;
	const FsvView *view;
	FsvTrace *trace;
	guint32 first = FSV_INDEX_NONE;
	const FsvPacket *a, *b;
	double x0, y0, x1, y1, peak, rgb[3];
	FsvItem selection;
	guint orange;

	if (!g_file_test(path, G_FILE_TEST_IS_DIR))
		cr_skip_test("no priority-inversion recording at %s", path);
	fsv_window_open(window, file);
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	fst_ui_settle();
	view = fsv_timeline_get_view(timeline);
	trace = fsv_timeline_get_trace(timeline);
	for (guint32 i = 0; i < fsv_trace_get_packet_count(trace) && first == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_packet(trace, i)->next_piece != FSV_INDEX_NONE)
			first = i;
	cr_assert_neq(first, FSV_INDEX_NONE, "priority-inversion has no resubmitted piece");
	a = fsv_trace_get_packet(trace, first);
	b = fsv_trace_get_packet(trace, a->next_piece);
	fsv_timeline_set_visible_range(timeline, a->end_ns - (b->start_ns - a->end_ns),
				       b->start_ns + (b->start_ns - a->end_ns));
	fst_ui_settle();
	cr_assert(fsv_view_get_piece_connector(view, first, &x0, &y0, &x1, &y1, &peak));
	cr_assert(fsv_timeline_select_at(timeline, (x0 + x1) / 2, peak + 1), "nothing there");
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_PACKET);
	cr_assert_eq(selection.index, a->next_piece);
	details = _fsv_window_dup_details_text(window);
	cr_assert_not_null(strstr(details, "Resubmission of: packet"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Fence ids: "), "details:\n%s", details);
	fst_ui_settle();
	texture = fst_ui_screenshot(GTK_WIDGET(window));
	shot = g_build_filename(FST_BUILD_DIR, "window-preemption.png", NULL);
	cr_assert(gdk_texture_save_to_png(texture, shot));
	fsv_render_get_color(FSV_COLOR_PACKET_PREEMPTED, rgb);
	orange = fst_ui_count_colour(texture, rgb, 24, 0, 0, gdk_texture_get_width(texture),
				     gdk_texture_get_height(texture));
	cr_assert_gt(orange, 20, "no preempted piece drawn; see %s", shot);
}

/* A recording named NAME: $FSV_RECORDED_TRACES/NAME, else traces/NAME; NULL (the test is then
 * skipped, saying so) when neither exists. Returns: (transfer full) (nullable). */
static char *
recorded_trace(const char *name)
{
	const char *dir = g_getenv("FSV_RECORDED_TRACES");
	char *path = dir ? g_build_filename(dir, name, NULL)
			 : g_build_filename(FST_SOURCE_ROOT, "traces", name, NULL);

	if (g_file_test(path, G_FILE_TEST_IS_DIR))
		return path;
	g_free(path);
	return NULL;
}

static void
open_path(const char *path)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);

	fsv_window_open(window, file);
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	fst_ui_settle();
}

/* Issue 14 (MMU-14, TDR-06): in a recording of page-fault, a click on the flash of a page fault
 * on its engine's row selects the fault, and the details pane names the faulting VA, its access
 * and the recovery that followed; the screenshot (window-page-fault.png) shows the flash. */
Test(window, mmu_14_click_on_a_page_fault_names_its_va_and_recovery)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	g_autofree char *path = recorded_trace("page-fault");
	g_autofree char *details = NULL, *shot = NULL;
	g_autoptr(GdkTexture) texture = NULL;
	graphene_point_t origin;
	const FsvView *view;
	FsvTrace *trace;
	guint32 fault = FSV_INDEX_NONE;
	const FsvMarker *m;
	FsvItem selection;
	double x, ry, rh, rgb[3];
	guint red;

	if (!path)
		cr_skip_test("no page-fault recording (FSV_RECORDED_TRACES or traces/)");
	open_path(path);
	view = fsv_timeline_get_view(timeline);
	trace = fsv_timeline_get_trace(timeline);
	for (guint32 i = 0; i < fsv_trace_get_marker_count(trace) && fault == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_marker(trace, i)->kind == FSA_MARK_PAGE_FAULT)
			fault = i;
	cr_assert_neq(fault, FSV_INDEX_NONE, "page-fault has no page fault");
	m = fsv_trace_get_marker(trace, fault);
	fsv_timeline_set_visible_range(timeline, m->begin_ns - 200000, m->begin_ns + 400000);
	fst_ui_settle();
	cr_assert(fsv_view_get_row_geometry(view, m->row, &ry, &rh), "the engine row is not shown");
	x = fsv_view_time_to_x(view, m->begin_ns);
	cr_assert(fsv_timeline_select_at(timeline, x + 1, ry + 5), "nothing at the flash");
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_MARKER);
	cr_assert_eq(fsv_trace_get_marker(trace, selection.index)->kind, FSA_MARK_PAGE_FAULT);
	details = _fsv_window_dup_details_text(window);
	cr_assert_not_null(strstr(details, "Faulting VA: 0x"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Recovery: TDR (PAGE_FAULT)"), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Recovery steps: "), "details:\n%s", details);
	fst_ui_settle();
	texture = fst_ui_screenshot(GTK_WIDGET(window));
	shot = g_build_filename(FST_BUILD_DIR, "window-page-fault.png", NULL);
	cr_assert(gdk_texture_save_to_png(texture, shot));
	cr_assert(gtk_widget_compute_point(GTK_WIDGET(timeline), GTK_WIDGET(window),
					   &GRAPHENE_POINT_INIT(0, 0), &origin));
	fsv_render_get_color(FSV_COLOR_PAGE_FAULT, rgb);
	red = fst_ui_count_colour(texture, rgb, 24, (int) (origin.x + x) - 5, (int) (origin.y + ry),
				  (int) (origin.x + x) + 6, (int) (origin.y + ry + 14));
	cr_assert_gt(red, 10, "no flash at the fault; see %s", shot);
}

/* Issue 14 (XAD-07): in a recording of cross-adapter, a click on a propagation's arrow between
 * the two adapters' fence rows selects it, and the details pane names both adapters and the
 * waits it released; the screenshot (window-cross-adapter.png) shows the arrow selected. */
Test(window, xad_07_click_on_a_propagation_arrow_names_both_adapters)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	g_autofree char *path = recorded_trace("cross-adapter");
	g_autofree char *details = NULL, *shot = NULL;
	g_autoptr(GdkTexture) texture = NULL;
	graphene_point_t origin;
	const FsvView *view;
	FsvTrace *trace;
	guint32 prop = FSV_INDEX_NONE;
	const FsvMarker *m;
	FsvItem selection;
	double x0, y0, x1, y1, rgb[3];
	guint blue;

	if (!path)
		cr_skip_test("no cross-adapter recording (FSV_RECORDED_TRACES or traces/)");
	open_path(path);
	view = fsv_timeline_get_view(timeline);
	trace = fsv_timeline_get_trace(timeline);
	for (guint32 i = 0; i < fsv_trace_get_marker_count(trace) && prop == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_marker(trace, i)->kind == FSA_MARK_FENCE_PROPAGATION &&
		    !fsv_trace_get_marker(trace, i)->is_open)
			prop = i;
	cr_assert_neq(prop, FSV_INDEX_NONE, "cross-adapter has no propagation");
	m = fsv_trace_get_marker(trace, prop);
	fsv_timeline_set_visible_range(timeline, m->begin_ns - 20000, m->end_ns + 20000);
	fst_ui_settle();
	cr_assert(fsv_view_get_propagation_arrow(view, prop, &x0, &y0, &x1, &y1),
		  "the arrow is not laid out");
	cr_assert(fsv_timeline_select_at(timeline, (x0 + x1) / 2, (y0 + y1) / 2),
		  "nothing at the arrow");
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_MARKER);
	cr_assert_eq(fsv_trace_get_marker(trace, selection.index)->kind,
		     FSA_MARK_FENCE_PROPAGATION);
	details = _fsv_window_dup_details_text(window);
	cr_assert_not_null(strstr(details, "From adapter: "), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "To adapter: "), "details:\n%s", details);
	cr_assert_not_null(strstr(details, "Propagate → notified: "), "details:\n%s", details);
	fst_ui_settle();
	/* Refitted to the timeline's width once the details pane widened (docs/viewer.md
	 * "Resizing"). */
	cr_assert(fsv_view_get_propagation_arrow(view, prop, &x0, &y0, &x1, &y1),
		  "the arrow is not laid out");
	texture = fst_ui_screenshot(GTK_WIDGET(window));
	shot = g_build_filename(FST_BUILD_DIR, "window-cross-adapter.png", NULL);
	cr_assert(gdk_texture_save_to_png(texture, shot));
	cr_assert(gtk_widget_compute_point(GTK_WIDGET(timeline), GTK_WIDGET(window),
					   &GRAPHENE_POINT_INIT(0, 0), &origin));
	fsv_render_get_color(FSV_COLOR_SELECTION, rgb);
	blue = fst_ui_count_colour(
	    texture, rgb, 40, (int) (origin.x + MIN(x0, x1)) - 4, (int) (origin.y + MIN(y0, y1)),
	    (int) (origin.x + MAX(x0, x1)) + 5, (int) (origin.y + MAX(y0, y1)));
	cr_assert_gt(blue, 10, "the selected arrow is not drawn; see %s", shot);
}

/* --- Issue 15 §3: refit, go to time, legend, bookmarks, snapping ------------------------- */

/* Resizes the timeline as a window resize does: through the paned beside the details pane. */
static void
set_timeline_width(int width)
{
	GtkWidget *paned =
	    gtk_widget_get_ancestor(GTK_WIDGET(_fsv_window_get_timeline(window)), GTK_TYPE_PANED);
	const FsvView *view = fsv_timeline_get_view(_fsv_window_get_timeline(window));
	int before = fsv_view_get_width(view);

	/* The horizontal one, beside the details pane (the operations table's is vertical). */
	while (paned &&
	       gtk_orientable_get_orientation(GTK_ORIENTABLE(paned)) != GTK_ORIENTATION_HORIZONTAL)
		paned = gtk_widget_get_ancestor(gtk_widget_get_parent(paned), GTK_TYPE_PANED);
	cr_assert_not_null(paned);
	gtk_paned_set_position(GTK_PANED(paned), width);
	/* Until the timeline has a new width (a busy machine may take more than one settle). */
	for (int i = 0; i < 50; i++) {
		fst_ui_settle();
		if (fsv_view_get_width(view) != before)
			break;
	}
	fst_ui_settle();
}

Test(window, resize_refits_a_fitted_view_and_keeps_a_zoomed_one)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint64 begin, end;
	double scale;
	int width;

	fsv_timeline_fit(timeline);
	fst_ui_settle();
	begin = fsv_view_get_begin_ns(view);
	end = fsv_view_get_end_ns(view);
	width = fsv_view_get_width(view);
	set_timeline_width(width - 300);
	cr_assert_lt(fsv_view_get_width(view), width, "the timeline did not narrow");
	/* Fitted: the same span over fewer pixels. */
	cr_assert_leq(fsv_view_get_begin_ns(view) > begin ? fsv_view_get_begin_ns(view) - begin
							  : begin - fsv_view_get_begin_ns(view),
		      (end - begin) / 1000);
	cr_assert_leq(fsv_view_get_end_ns(view) > end ? fsv_view_get_end_ns(view) - end
						      : end - fsv_view_get_end_ns(view),
		      (end - begin) / 1000);

	/* Zoomed by hand: the left edge and scale stay, a wider timeline shows more time. */
	fsv_timeline_zoom(timeline, 4.0, fsv_view_get_label_width(view) + 100);
	begin = fsv_view_get_begin_ns(view);
	scale = fsv_view_get_ns_per_px(view);
	end = fsv_view_get_end_ns(view);
	set_timeline_width(width);
	cr_assert_eq(fsv_view_get_begin_ns(view), begin);
	cr_assert_float_eq(fsv_view_get_ns_per_px(view), scale, scale * 1e-9);
	cr_assert_gt(fsv_view_get_end_ns(view), end);
}

Test(window, go_to_time_takes_report_times_and_refuses_bad_ones)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint64 t0 = fsv_trace_get_begin_ns(trace), at, begin, end;
	g_autofree char *absolute = NULL;
	const FsvOp *op = fsv_trace_get_op(trace, fsv_trace_get_op_count(trace) / 2);

	fsv_timeline_zoom(timeline, 20.0, fsv_view_get_label_width(view) + 10);
	fst_ui_settle();
	/* The absolute time `report` prints, "S.NNNNNNNNN s", to the ns. */
	absolute = g_strdup_printf("%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT " s",
				   op->begin_ns / 1000000000, op->begin_ns % 1000000000);
	_fsv_window_go_to_text(window, absolute);
	fst_ui_settle();
	cr_assert_str_empty(_fsv_window_get_goto_error(window));
	cr_assert(fsv_timeline_get_cursor(timeline, &at));
	cr_assert_eq(at, op->begin_ns, "%s", absolute);
	cr_assert(fsv_view_get_begin_ns(view) < at && at < fsv_view_get_end_ns(view));
	cr_assert(gtk_widget_is_focus(GTK_WIDGET(timeline)), "keys go back to the timeline");

	/* Relative, as the ruler and `report --times relative` write it. */
	_fsv_window_go_to_text(window, "+1.500 ms");
	cr_assert(fsv_timeline_get_cursor(timeline, &at));
	cr_assert_eq(at, t0 + 1500000);
	_fsv_window_go_to_text(window, "+2ms");
	cr_assert(fsv_timeline_get_cursor(timeline, &at));
	cr_assert_eq(at, t0 + 2000000);

	/* Bad input: a one-line error in the bar, nothing moves. */
	begin = fsv_view_get_begin_ns(view);
	end = fsv_view_get_end_ns(view);
	_fsv_window_go_to_text(window, "soon");
	cr_assert_str_not_empty(_fsv_window_get_goto_error(window));
	cr_assert_null(strchr(_fsv_window_get_goto_error(window), '\n'));
	_fsv_window_go_to_text(window, "2.5ms"); /* trace time 2.5 ms: long before the trace */
	cr_assert_not_null(strstr(_fsv_window_get_goto_error(window), "+TIME"), "%s",
			   _fsv_window_get_goto_error(window));
	cr_assert_eq(fsv_view_get_begin_ns(view), begin);
	cr_assert_eq(fsv_view_get_end_ns(view), end);
	cr_assert(fsv_timeline_get_cursor(timeline, &at));
	cr_assert_eq(at, t0 + 2000000, "the marker stayed where it was");
}

Test(window, legend_key_hides_it_and_the_choice_is_remembered)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	g_autofree char *ini =
	    g_build_filename(g_get_user_config_dir(), "fencescope", "viewer.ini", NULL);
	g_autofree char *text = NULL;
	FsvWindow *second;

	/* The test's own viewer.ini: the tests run side by side, and one that opened its window
	 * while this one had the legend hidden started without it (flaky). */
	cr_assert(g_str_has_prefix(ini, fst_ui_get_work_dir()), "%s is shared", ini);
	cr_assert(_fsv_window_is_legend_shown(window));
	gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.toggle-legend", NULL);
	fst_ui_settle();
	cr_assert_not(_fsv_window_is_legend_shown(window));
	cr_assert(g_file_get_contents(ini, &text, NULL, NULL), "%s", ini);
	cr_assert_not_null(strstr(text, "show-legend=false"), "%s", text);

	/* A new window starts as the user left it. */
	second = fsv_window_new(NULL);
	cr_assert_not(g_variant_get_boolean(
	    g_action_group_get_action_state(G_ACTION_GROUP(second), "show-legend")));
	gtk_window_destroy(GTK_WINDOW(second));

	gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.toggle-legend", NULL);
	fst_ui_settle();
	cr_assert(_fsv_window_is_legend_shown(window));
}

/* The legend's strip lies under the timeline: not one row pixel is under it. */
Test(window, legend_never_covers_the_rows)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	GtkWidget *above = gtk_widget_get_parent(GTK_WIDGET(timeline));
	GtkWidget *legend;
	graphene_rect_t rows, strip;

	/* The strip follows the timeline's grid (or the split that holds it and a compared
	 * trace's timeline, fsv-compare.c). */
	while (above && !GTK_IS_SCROLLED_WINDOW(gtk_widget_get_next_sibling(above)))
		above = gtk_widget_get_parent(above);
	cr_assert_not_null(above, "no legend strip after the timeline");
	legend = gtk_widget_get_first_child(gtk_widget_get_next_sibling(above));

	cr_assert(_fsv_window_is_legend_shown(window));
	cr_assert(gtk_widget_compute_bounds(GTK_WIDGET(timeline), GTK_WIDGET(window), &rows));
	cr_assert_not_null(legend);
	cr_assert(gtk_widget_compute_bounds(legend, GTK_WIDGET(window), &strip));
	cr_assert_gt(strip.size.height, 20);
	cr_assert_geq(strip.origin.y, rows.origin.y + rows.size.height, "legend at %g, rows end %g",
		      strip.origin.y, rows.origin.y + rows.size.height);
}

static char *
bookmarks_file(void)
{
	g_autofree char *trace =
	    g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	g_autoptr(FsvBookmarks) bookmarks = fsv_bookmarks_load(trace, NULL, NULL);

	return g_strdup(fsv_bookmarks_get_path(bookmarks));
}

Test(window, bookmarks_persist_per_trace_and_a_damaged_file_is_not_trusted)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	g_autofree char *file = bookmarks_file();
	g_autofree char *damaged = g_strconcat(file, ".damaged", NULL);
	g_autofree char *text = NULL;
	guint64 t0 = fsv_trace_get_begin_ns(trace);

	g_unlink(file);
	g_unlink(damaged);
	fst_ui_open_trace(window, "frame-pipeline");
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 0);
	_fsv_window_go_to_text(window, "+10ms");
	gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.add-bookmark", NULL);
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 1);
	cr_assert(g_file_get_contents(file, &text, NULL, NULL), "%s", file);
	cr_assert_not_null(strstr(text, "\"Bookmark 1\""), "%s", text);
	g_clear_pointer(&text, g_free);
	text = g_strdup_printf("%" G_GUINT64_FORMAT, t0 + 10000000);
	{
		g_autofree char *json = NULL;

		cr_assert(g_file_get_contents(file, &json, NULL, NULL));
		cr_assert_not_null(strstr(json, text), "%s in %s", text, json);
	}

	/* Opened again (another run), the bookmark is there. */
	fst_ui_open_trace(window, "frame-pipeline");
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 1);

	/* A damaged file: one line saying so, an empty list, no crash; the next bookmark sets the
	 * damaged file aside instead of losing it. */
	cr_assert(g_file_set_contents(file, "{\"bookmarks\": [{\"name\": 3", -1, NULL));
	fst_ui_open_trace(window, "frame-pipeline");
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 0);
	cr_assert_not_null(_fsv_window_get_error(window));
	cr_assert_not_null(strstr(_fsv_window_get_error(window), "Bookmarks not loaded"), "%s",
			   _fsv_window_get_error(window));
	cr_assert_null(strchr(_fsv_window_get_error(window), '\n'));
	gtk_widget_activate_action(GTK_WIDGET(timeline), "timeline.add-bookmark", NULL);
	cr_assert(g_file_test(damaged, G_FILE_TEST_EXISTS));
	fst_ui_open_trace(window, "frame-pipeline");
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 1);
	g_unlink(file);
	g_unlink(damaged);
}

Test(window, measurement_snaps_to_a_box_edge_and_shift_does_not)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint32 index = find_released_wait(trace);
	const FsvOp *op = fsv_trace_get_op(trace, index);
	double x_end, y, lane_h;
	guint64 a, b;

	fsv_timeline_set_visible_range(timeline, op->begin_ns - (op->end_ns - op->begin_ns),
				       op->end_ns + (op->end_ns - op->begin_ns));
	fst_ui_settle();
	x_end = fsv_view_time_to_x(view, op->end_ns);
	/* The lane is found by hit testing down the op's row: what is drawn is what answers. */
	cr_assert(fsv_view_get_row_geometry(view, op->row, &y, &lane_h));
	for (double end_y = y + lane_h; y < end_y; y += 1) {
		FsvItem hit;

		if (fsv_view_hit_test(view, x_end - 3, y, &hit) && hit.kind == FSV_ITEM_OP &&
		    hit.index == index)
			break;
	}
	/* 3 px left of the wait's end, inside it: snaps to the end exactly, and says so. */
	fsv_timeline_add_measure_point_at(timeline, x_end - 3, y, TRUE);
	fsv_timeline_add_measure_point_at(timeline, x_end - 3, y, FALSE);
	cr_assert(fsv_timeline_get_measure(timeline, &a, &b));
	cr_assert_eq(a, op->end_ns);
	cr_assert_not_null(fsv_timeline_get_measure_name(timeline, FALSE));
	cr_assert_not_null(strstr(fsv_timeline_get_measure_name(timeline, FALSE), "end of "), "%s",
			   fsv_timeline_get_measure_name(timeline, FALSE));
	/* Without snapping the point stays under the pointer. */
	cr_assert_eq(b, fsv_view_x_to_time(view, x_end - 3));
	cr_assert_null(fsv_timeline_get_measure_name(timeline, TRUE));
	cr_assert_not_null(strstr(_fsv_window_get_status(window), "end of "), "%s",
			   _fsv_window_get_status(window));
}

/* Issue 15 §4: the counter rows are shown in the window, the View menu's actions (also
 * Ctrl+Shift+B / Ctrl+Shift+D) hide and show each kind, and the tooltip of a busy row gives the
 * fraction of the pixel under the pointer. */
Test(window, counter_rows_toggle_from_the_menu_and_answer_at_the_pointer)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint32 busy = FSV_INDEX_NONE, depth = FSV_INDEX_NONE;
	g_autofree char *text = NULL;
	GAction *action;
	FsvItem hit;
	double y, h, x;

	for (guint32 row = 0; row < fsv_trace_get_row_count(trace); row++) {
		FsvRowKind kind = fsv_trace_get_row(trace, row)->kind;

		if (kind == FSV_ROW_BUSY && busy == FSV_INDEX_NONE)
			busy = row;
		if (kind == FSV_ROW_DEPTH && depth == FSV_INDEX_NONE)
			depth = row;
	}
	cr_assert_neq(busy, FSV_INDEX_NONE);
	cr_assert_neq(depth, FSV_INDEX_NONE);
	cr_assert(fsv_view_get_row_geometry(view, busy, &y, &h), "busy rows shown by default");
	cr_assert(fsv_view_get_row_geometry(view, depth, &y, &h));
	action = g_action_map_lookup_action(G_ACTION_MAP(window), "show-depth");
	cr_assert_not_null(action);
	g_action_activate(action, NULL);
	cr_assert_not(g_variant_get_boolean(g_action_get_state(action)));
	cr_assert_not(fsv_view_get_row_geometry(view, depth, &y, &h), "depth rows hidden");
	cr_assert(fsv_view_get_row_geometry(view, busy, &y, &h), "busy rows stay");
	g_action_activate(action, NULL);
	cr_assert(fsv_view_get_row_geometry(view, depth, &y, &h), "depth rows back");

	/* Hover the middle of the busy row, where frame-pipeline's engine ran. */
	cr_assert(fsv_view_get_row_geometry(view, busy, &y, &h));
	for (x = fsv_view_get_label_width(view) + 1; x < fsv_view_get_width(view); x++)
		if (fsv_view_hit_test(view, x, y + h / 2, &hit) && hit.kind == FSV_ITEM_COUNTER &&
		    hit.index % 2 == 1)
			break;
	cr_assert_lt(x, fsv_view_get_width(view), "a busy stretch is drawn");
	text = fsv_view_dup_counter_text(view, busy, x);
	cr_assert(g_str_has_prefix(text, "busy "), "%s", text);
}
