/* SPDX-License-Identifier: MIT */
/*
 * Comparing two traces in one window (suite ui, under Xvfb; issue 16 §2, docs/viewer.md
 * "Comparing two traces"): the real window opens traces/diff-base, then traces/diff-slow below
 * it through fsv_window_compare() (its index builder, as any load), and the tests drive the
 * timelines' own functions and actions: zoom and pan on either timeline move both (one scale,
 * NEW's left edge = BASE's + the offset, exactly), Align Here puts the selected op of each at one
 * x (also in the pixels of a screenshot, compare-aligned.png in the build folder), --align's
 * points, the details pane, operations table and bookmarks following the focused timeline,
 * Escape and the close button going back to one trace, and a NEW that cannot be opened said in
 * one line while the window keeps BASE.
 */
#define _DEFAULT_SOURCE /* truncate() */
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "fsv-align.h"
#include "fsv-application.h"
#include "fsv-bookmarks.h"
#include "fsv-compare.h"
#include "fsv-frames.h"
#include "fsv-render.h"
#include "fst-ui.h"

static FsvWindow *window;

static gboolean
is_loaded(void)
{
	return !_fsv_window_is_loading(window) && !_fsv_compare_is_loading(window);
}

static FsvTimeline *
base_timeline(void)
{
	return _fsv_window_get_base_timeline(window);
}

static FsvTimeline *
new_timeline(void)
{
	return _fsv_compare_get_timeline(window);
}

static gboolean
is_timeline_allocated(FsvTimeline *timeline)
{
	const FsvView *view = timeline ? fsv_timeline_get_view(timeline) : NULL;

	return view && gtk_widget_get_mapped(GTK_WIDGET(timeline)) &&
	       gtk_widget_get_width(GTK_WIDGET(timeline)) > 100 &&
	       fsv_view_get_width(view) == gtk_widget_get_width(GTK_WIDGET(timeline)) &&
	       fsv_view_get_height(view) == gtk_widget_get_height(GTK_WIDGET(timeline));
}

static gboolean
are_both_allocated(void)
{
	return is_timeline_allocated(base_timeline()) && is_timeline_allocated(new_timeline());
}

static GFile *
trace_file(const char *name)
{
	g_autofree char *path = fst_ui_trace_path(name);

	return g_file_new_for_path(path);
}

/* NEW (traces/NAME, ALIGN as --align's) below the window's trace, loaded and laid out. */
static void
compare_with(const char *name, const char *align)
{
	g_autoptr(GFile) file = trace_file(name);

	fsv_window_compare(window, file, align);
	cr_assert(_fsv_compare_is_loading(window));
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_not_null(new_timeline(), "NEW not shown: %s", _fsv_window_get_error(window));
	fst_ui_spin_until(are_both_allocated, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
}

static void
make_window(void)
{
	fst_ui_begin(FALSE);
	window = fst_ui_window_new(1600, 1000);
	fst_ui_open_trace(window, "diff-base");
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	compare_with("diff-slow", NULL);
}

static void
destroy_window(void)
{
	fst_ui_window_destroy(window);
	fst_ui_end();
}

static gint64
offset(void)
{
	gint64 value = 0;

	cr_assert(_fsv_compare_get_offset(window, &value), "not comparing");
	return value;
}

/* The one time axis: the same scale, NEW's left edge BASE's + the offset, to the fraction. */
static void
assert_one_time_axis(void)
{
	FsvViewport base, compared, expected;

	fsv_timeline_get_viewport(base_timeline(), &base);
	fsv_timeline_get_viewport(new_timeline(), &compared);
	fsv_align_viewport(&base, offset(), &expected);
	cr_assert_eq(compared.ns_per_px, base.ns_per_px, "scales %g and %g", base.ns_per_px,
		     compared.ns_per_px);
	cr_assert_eq(compared.begin_ns, expected.begin_ns,
		     "NEW begins at %" G_GUINT64_FORMAT ", BASE + offset is %" G_GUINT64_FORMAT,
		     compared.begin_ns, expected.begin_ns);
	cr_assert_float_eq(compared.begin_frac, expected.begin_frac, 1e-12);
}

/* The op with analyzer op id ID in TIMELINE's trace: its index. */
static guint32
op_by_id(FsvTimeline *timeline, guint64 id)
{
	guint32 op = fsv_trace_find_op_by_id(fsv_timeline_get_trace(timeline), id);

	cr_assert_neq(op, FSV_INDEX_NONE, "no op %" G_GUINT64_FORMAT, id);
	return op;
}

static double
op_begin_x(FsvTimeline *timeline, guint32 op)
{
	return fsv_view_time_to_x(fsv_timeline_get_view(timeline),
				  fsv_trace_get_op(fsv_timeline_get_trace(timeline), op)->begin_ns);
}

TestSuite(compare, .init = make_window, .fini = destroy_window, .timeout = 240);

Test(compare, new_is_shown_below_base_with_its_own_rows_aligned_at_the_trace_starts)
{
	FsvTrace *base = fsv_timeline_get_trace(base_timeline());
	FsvTrace *compared = fsv_timeline_get_trace(new_timeline());
	graphene_rect_t base_box, new_box;
	const char *text = _fsv_compare_get_offset_text(window);

	cr_assert_str_eq(fsv_trace_get_name(base), "diff-base");
	cr_assert_str_eq(fsv_trace_get_name(compared), "diff-slow");
	cr_assert_eq(_fsv_window_get_timeline(window), base_timeline(), "BASE has the focus");
	cr_assert_not_null(
	    strstr(gtk_window_get_title(GTK_WINDOW(window)), "diff-base vs diff-slow"), "title: %s",
	    gtk_window_get_title(GTK_WINDOW(window)));
	/* Below BASE, left edges in one column: a time lies at one x of the window in both. */
	cr_assert(
	    gtk_widget_compute_bounds(GTK_WIDGET(base_timeline()), GTK_WIDGET(window), &base_box));
	cr_assert(
	    gtk_widget_compute_bounds(GTK_WIDGET(new_timeline()), GTK_WIDGET(window), &new_box));
	cr_assert_geq(new_box.origin.y, base_box.origin.y + base_box.size.height);
	cr_assert_eq(new_box.origin.x, base_box.origin.x);
	cr_assert_gt(base_box.size.height, 150, "BASE squeezed to %g px", base_box.size.height);
	cr_assert_gt(new_box.size.height, 150, "NEW squeezed to %g px", new_box.size.height);
	cr_assert_eq(fsv_view_get_label_width(fsv_timeline_get_view(new_timeline())),
		     fsv_view_get_label_width(fsv_timeline_get_view(base_timeline())));
	/* The starts at one x, and the offset said. */
	cr_assert_eq(offset(), fsv_align_starts(base, compared));
	assert_one_time_axis();
	cr_assert_float_eq(fsv_view_time_to_x(fsv_timeline_get_view(base_timeline()),
					      fsv_trace_get_begin_ns(base)),
			   fsv_view_time_to_x(fsv_timeline_get_view(new_timeline()),
					      fsv_trace_get_begin_ns(compared)),
			   1e-6);
	cr_assert_not_null(text);
	cr_assert_not_null(strstr(text, "aligned at the trace starts"), "%s", text);
	/* Fitted: both show the longer trace (diff-slow) whole. */
	cr_assert_geq(fsv_view_get_end_ns(fsv_timeline_get_view(new_timeline())),
		      fsv_trace_get_end_ns(compared));
	cr_assert_geq(fsv_view_get_end_ns(fsv_timeline_get_view(base_timeline())),
		      fsv_align_shift(fsv_trace_get_end_ns(compared), -offset()));
}

Test(compare, zoom_and_pan_on_either_timeline_move_both)
{
	const FsvView *base_view = fsv_timeline_get_view(base_timeline());
	double scale = fsv_view_get_ns_per_px(base_view);
	FsvViewport before, after;

	/* The wheel's and W's zoom on BASE, about a point. */
	fsv_timeline_zoom(base_timeline(), 3.0, 700.5);
	cr_assert_lt(fsv_view_get_ns_per_px(base_view), scale);
	assert_one_time_axis();
	/* A drag's pan on NEW: BASE follows. */
	fsv_timeline_get_viewport(base_timeline(), &before);
	fsv_timeline_pan(new_timeline(), 137.25);
	fsv_timeline_get_viewport(base_timeline(), &after);
	cr_assert_gt(after.begin_ns, before.begin_ns, "BASE did not follow NEW's pan");
	assert_one_time_axis();
	/* The keys' actions on NEW (W, D): both again. */
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(new_timeline()), "timeline.zoom-in", NULL));
	assert_one_time_axis();
	cr_assert(
	    gtk_widget_activate_action(GTK_WIDGET(new_timeline()), "timeline.pan-right", NULL));
	assert_one_time_axis();
	/* Zooming out past NEW's own limit from BASE, or past BASE's from NEW: still one axis. */
	for (int i = 0; i < 30; i++)
		fsv_timeline_zoom(new_timeline(), 0.5, 900);
	assert_one_time_axis();
	for (int i = 0; i < 30; i++)
		fsv_timeline_zoom(base_timeline(), 0.5, 900);
	assert_one_time_axis();
	/* F on either: both show both traces whole. */
	fsv_timeline_zoom(base_timeline(), 50.0, 900);
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(new_timeline()), "timeline.fit", NULL));
	assert_one_time_axis();
	cr_assert_geq(fsv_view_get_end_ns(fsv_timeline_get_view(new_timeline())),
		      fsv_trace_get_end_ns(fsv_timeline_get_trace(new_timeline())));
	cr_assert_leq(fsv_view_get_begin_ns(base_view),
		      fsv_trace_get_begin_ns(fsv_timeline_get_trace(base_timeline())));
	/* A resize: the fitted timeline refits, the other follows. */
	gtk_window_set_default_size(GTK_WINDOW(window), 1300, 900);
	for (int i = 0; i < 20; i++)
		fst_ui_settle();
	fst_ui_spin_until(are_both_allocated, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_lt(fsv_view_get_width(base_view), 1300);
	assert_one_time_axis();
}

Test(compare, align_here_puts_the_two_selected_ops_at_the_same_x)
{
	guint32 base_op = op_by_id(base_timeline(), 40);
	guint32 new_op = op_by_id(new_timeline(), 60);
	FsvTrace *base = fsv_timeline_get_trace(base_timeline());
	FsvTrace *compared = fsv_timeline_get_trace(new_timeline());
	FsvViewport new_before, new_after;
	const char *text;

	fsv_timeline_zoom(base_timeline(), 20.0, 800);
	fsv_timeline_select_op(base_timeline(), base_op);
	fsv_timeline_select_op(new_timeline(), new_op);
	/* Ctrl+L from NEW: NEW stays, BASE moves. */
	gtk_widget_grab_focus(GTK_WIDGET(new_timeline()));
	fst_ui_settle();
	cr_assert_eq(_fsv_window_get_timeline(window), new_timeline(),
		     "NEW does not have the focus");
	fsv_timeline_get_viewport(new_timeline(), &new_before);
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(window), "win.align-here", NULL));
	fsv_timeline_get_viewport(new_timeline(), &new_after);
	cr_assert_eq(offset(), (gint64) fsv_trace_get_op(compared, new_op)->begin_ns -
				   (gint64) fsv_trace_get_op(base, base_op)->begin_ns);
	cr_assert_eq(new_after.begin_ns, new_before.begin_ns, "the focused timeline moved");
	cr_assert_eq(new_after.ns_per_px, new_before.ns_per_px);
	assert_one_time_axis();
	cr_assert_float_eq(op_begin_x(base_timeline(), base_op), op_begin_x(new_timeline(), new_op),
			   1e-6);
	text = _fsv_compare_get_offset_text(window);
	cr_assert_not_null(strstr(text, "aligned at BASE +"), "%s", text);
	cr_assert_not_null(strstr(text, "= NEW +"), "%s", text);
	/* And so they stay through a zoom and a pan. */
	fsv_timeline_zoom(base_timeline(), 4.0, 333);
	fsv_timeline_pan(new_timeline(), -41.5);
	cr_assert_float_eq(op_begin_x(base_timeline(), base_op), op_begin_x(new_timeline(), new_op),
			   1e-6);

	/* In the pixels: the selection's outline starts at one column in both timelines. */
	{
		g_autoptr(GdkTexture) texture = NULL;
		int width = gtk_widget_get_width(GTK_WIDGET(window));
		int height = gtk_widget_get_height(GTK_WIDGET(window));
		double rgb[3];
		int left[2];
		FsvTimeline *timelines[2] = {base_timeline(), new_timeline()};
		guint32 ops[2] = {base_op, new_op};

		/* The op of each in sight (both, being aligned), its row scrolled in. */
		fsv_timeline_center_at(base_timeline(), fsv_trace_get_op(base, base_op)->begin_ns);
		fsv_timeline_select_op(base_timeline(), base_op);
		fsv_timeline_select_op(new_timeline(), new_op);
		for (int i = 0; i < 10; i++)
			fst_ui_settle();
		fst_ui_settle();
		texture = fst_ui_save_screenshot(GTK_WIDGET(window), "compare-aligned.png");
		fsv_render_get_color(FSV_COLOR_SELECTION, rgb);
		for (int k = 0; k < 2; k++) {
			const FsvView *view = fsv_timeline_get_view(timelines[k]);
			const FsvOp *op =
			    fsv_trace_get_op(fsv_timeline_get_trace(timelines[k]), ops[k]);
			graphene_point_t origin;
			double y, h;
			gsize stride = (gsize) width * 4;
			g_autofree guchar *data = g_malloc(stride * (gsize) height);
			int x0, y0, y1;

			cr_assert(fsv_view_get_lane_geometry(view, op->row, op->lane, &y, &h));
			cr_assert(gtk_widget_compute_point(GTK_WIDGET(timelines[k]),
							   GTK_WIDGET(window),
							   &GRAPHENE_POINT_INIT(0, 0), &origin));
			gdk_texture_download(texture, data, stride);
			x0 = (int) origin.x + fsv_view_get_label_width(view);
			y0 = (int) (origin.y + y) - 3;
			y1 = (int) (origin.y + y + h) + 3;
			left[k] = -1;
			for (int x = x0;
			     x < (int) origin.x + fsv_view_get_width(view) && left[k] < 0; x++) {
				for (int py = MAX(y0, 0); py < MIN(y1, height); py++) {
					const guchar *p =
					    data + (gsize) py * stride + (gsize) x * 4;

					if (abs(p[2] - (int) lround(rgb[0] * 255)) <= 40 &&
					    abs(p[1] - (int) lround(rgb[1] * 255)) <= 40 &&
					    abs(p[0] - (int) lround(rgb[2] * 255)) <= 40) {
						left[k] = x;
						break;
					}
				}
			}
			cr_assert_geq(left[k], 0, "no selection outline in timeline %d", k);
		}
		cr_assert_leq(abs(left[0] - left[1]), 1, "outlines begin at x %d (BASE), %d (NEW)",
			      left[0], left[1]);
	}
}

/* Align Here with a frame selected in each: the frames' starts (their boxes' left edges, as
 * `--align frame:N=frame:M`) at one x, not the go-to markers. */
Test(compare, align_here_with_frames_selected_aligns_their_starts)
{
	FsvTrace *base = fsv_timeline_get_trace(base_timeline());
	FsvTrace *compared = fsv_timeline_get_trace(new_timeline());
	guint32 bf = fsv_trace_find_frame(base, 4), nf = fsv_trace_find_frame(compared, 7);
	FsvItem item = {.kind = FSV_ITEM_FRAME};

	cr_assert_neq(bf, FSV_INDEX_NONE);
	cr_assert_neq(nf, FSV_INDEX_NONE);
	item.index = bf;
	item.row = fsv_trace_get_frame(base, bf)->row;
	fsv_timeline_set_selection(base_timeline(), &item);
	item.index = nf;
	item.row = fsv_trace_get_frame(compared, nf)->row;
	fsv_timeline_set_selection(new_timeline(), &item);
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(window), "win.align-here", NULL));
	cr_assert_null(_fsv_window_get_error(window), "%s", _fsv_window_get_error(window));
	cr_assert_eq(offset(), (gint64) fsv_trace_get_frame(compared, nf)->draw_begin_ns -
				   (gint64) fsv_trace_get_frame(base, bf)->draw_begin_ns);
	assert_one_time_axis();
}

Test(compare, align_names_op_ids_or_times_and_a_point_a_trace_lacks_is_said)
{
	FsvTrace *base = fsv_timeline_get_trace(base_timeline());
	FsvTrace *compared;
	const char *error;

	compare_with("diff-slow", "op:3=op:5");
	compared = fsv_timeline_get_trace(new_timeline());
	cr_assert_eq(
	    offset(),
	    (gint64) fsv_trace_get_op(compared, fsv_trace_find_op_by_id(compared, 5))->begin_ns -
		(gint64) fsv_trace_get_op(base, fsv_trace_find_op_by_id(base, 3))->begin_ns);
	cr_assert_not_null(strstr(_fsv_compare_get_offset_text(window), "op:3 = op:5"));
	assert_one_time_axis();

	/* (A new comparison: a new trace of NEW.) */
	compare_with("diff-slow", "+10ms=+25ms");
	compared = fsv_timeline_get_trace(new_timeline());
	cr_assert_eq(offset(), fsv_align_starts(base, compared) + 15000000);
	assert_one_time_axis();

	compare_with("diff-slow", "op:3=op:999999999");
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error, "an op NEW lacks went without a word");
	cr_assert_not_null(strstr(error, "--align: NEW op:999999999: diff-slow has no operation"),
			   "%s", error);
	cr_assert_null(strchr(error, '\n'), "%s", error);
	cr_assert_eq(offset(), fsv_align_starts(base, fsv_timeline_get_trace(new_timeline())));
}

Test(compare, details_table_and_bookmarks_follow_the_timeline_that_has_the_focus)
{
	FsvTrace *base = fsv_timeline_get_trace(base_timeline());
	FsvTrace *compared = fsv_timeline_get_trace(new_timeline());
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	guint32 new_op = op_by_id(new_timeline(), 60);
	g_autofree char *title = fsv_trace_dup_item_title(
	    compared, &(FsvItem){FSV_ITEM_OP, new_op, fsv_trace_get_op(compared, new_op)->row});
	g_autofree char *details = NULL;
	g_autofree char *summary = NULL;

	g_autofree char *new_duration =
	    fsv_format_duration(fsv_trace_get_op(compared, new_op)->end_ns -
				fsv_trace_get_op(compared, new_op)->begin_ns);
	g_autofree char *cell = NULL;
	guint32 base_same = fsv_trace_find_op_by_id(base, 60);

	/* The table is told apart by the duration of op 60, which diff-slow doubled. */
	cr_assert_neq(fsv_trace_get_op(base, base_same)->end_ns -
			  fsv_trace_get_op(base, base_same)->begin_ns,
		      fsv_trace_get_op(compared, new_op)->end_ns -
			  fsv_trace_get_op(compared, new_op)->begin_ns);
	/* The table shown (Ctrl+T): it lists its rows only while it is. */
	g_action_group_change_action_state(G_ACTION_GROUP(window), "show-table",
					   g_variant_new_boolean(TRUE));
	for (int i = 0; i < 5; i++)
		fst_ui_settle();
	/* A click on NEW gives it the focus (drag-begin grabs it) and selects there. */
	gtk_widget_grab_focus(GTK_WIDGET(new_timeline()));
	fsv_timeline_select_op(new_timeline(), new_op);
	fst_ui_settle();
	cr_assert_eq(_fsv_window_get_timeline(window), new_timeline());
	/* Framed: the one the panes follow. */
	cr_assert(gtk_widget_has_css_class(GTK_WIDGET(new_timeline()), "fsv-followed"));
	cr_assert_not(gtk_widget_has_css_class(GTK_WIDGET(base_timeline()), "fsv-followed"));
	details = _fsv_window_dup_details_text(window);
	cr_assert(g_str_has_prefix(details, title), "details:\n%s\nwant %s", details, title);
	while (fsv_ops_table_is_busy(table))
		g_main_context_iteration(NULL, TRUE);
	cr_assert_eq(fsv_ops_table_get_n_rows(table), fsv_trace_get_op_count(compared));
	cr_assert_eq(fsv_ops_table_get_row_op(table, fsv_ops_table_get_selected(table)), new_op);
	cell = fsv_ops_table_dup_cell_text(table, fsv_ops_table_get_selected(table),
					   FSV_OPS_COLUMN_DURATION);
	cr_assert_str_eq(cell, new_duration, "the table does not list NEW's ops");
	/* A bookmark goes to NEW's list, not BASE's. */
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(window), "win.add-bookmark", NULL));
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 1);

	/* The focus back on BASE: its summary (nothing selected there), its ops, no bookmark. */
	gtk_widget_grab_focus(GTK_WIDGET(base_timeline()));
	fst_ui_settle();
	cr_assert_eq(_fsv_window_get_timeline(window), base_timeline());
	cr_assert(gtk_widget_has_css_class(GTK_WIDGET(base_timeline()), "fsv-followed"));
	cr_assert_not(gtk_widget_has_css_class(GTK_WIDGET(new_timeline()), "fsv-followed"));
	summary = _fsv_window_dup_details_text(window);
	cr_assert(g_str_has_prefix(summary, "diff-base\n"), "details:\n%s", summary);
	while (fsv_ops_table_is_busy(table))
		g_main_context_iteration(NULL, TRUE);
	cr_assert_eq(fsv_ops_table_get_n_rows(table), fsv_trace_get_op_count(base));
	cr_assert_eq(fsv_ops_table_select_op(table, base_same), TRUE);
	g_free(cell);
	cell = fsv_ops_table_dup_cell_text(table, fsv_ops_table_get_selected(table),
					   FSV_OPS_COLUMN_DURATION);
	cr_assert_str_neq(cell, new_duration, "the table still lists NEW's ops");
	cr_assert_eq(_fsv_window_get_bookmark_count(window), 0);
	/* NEW kept its selection. */
	{
		FsvItem item;

		fsv_timeline_get_selection(new_timeline(), &item);
		cr_assert_eq(item.index, new_op);
	}
	/* Clean up NEW's bookmark file for the next runs. */
	{
		g_autoptr(FsvBookmarks) marks =
		    fsv_bookmarks_load(fsv_trace_get_path(compared), NULL, NULL);

		while (marks && fsv_bookmarks_get_count(marks) > 0)
			fsv_bookmarks_remove(marks, 0);
		cr_assert(marks && fsv_bookmarks_save(marks, NULL));
	}
}

Test(compare, escape_with_nothing_selected_or_the_close_button_leave_one_trace)
{
	FsvTimeline *compared = new_timeline();
	const FsvView *base_view = fsv_timeline_get_view(base_timeline());
	FsvTrace *base = fsv_timeline_get_trace(base_timeline());

	fsv_timeline_select_op(compared, op_by_id(compared, 60));
	gtk_widget_grab_focus(GTK_WIDGET(compared));
	fst_ui_settle();
	/* The first Escape clears the selection, the second closes the comparison. */
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(compared), "timeline.clear", NULL));
	cr_assert_not_null(new_timeline(), "Escape closed with a selection to clear");
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(compared), "timeline.clear", NULL));
	fst_ui_settle();
	cr_assert_null(new_timeline(), "Escape with nothing selected kept the comparison");
	cr_assert_eq(_fsv_window_get_timeline(window), base_timeline());
	cr_assert_null(_fsv_window_get_other_timeline(window));
	cr_assert_not(gtk_widget_has_css_class(GTK_WIDGET(base_timeline()), "fsv-followed"),
		      "one trace is not framed");
	cr_assert_str_eq(gtk_window_get_title(GTK_WINDOW(window)), "diff-base — fencescope viewer");
	cr_assert(gtk_widget_is_focus(GTK_WIDGET(base_timeline())), "the focus was lost");
	/* F fits BASE alone again. */
	fsv_timeline_fit(base_timeline());
	cr_assert_lt(fsv_view_get_end_ns(base_view) - fsv_view_get_begin_ns(base_view),
		     (fsv_trace_get_end_ns(base) - fsv_trace_get_begin_ns(base)) * 21 / 20);
	/* Escape in a window with one trace closes nothing and keeps the trace. */
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(base_timeline()), "timeline.clear", NULL));
	cr_assert_eq(fsv_timeline_get_trace(base_timeline()), base);

	/* Again, closed by the pane's button (win.close-compare). */
	compare_with("diff-slow", NULL);
	cr_assert(g_action_group_get_action_enabled(G_ACTION_GROUP(window), "close-compare"));
	g_action_group_activate_action(G_ACTION_GROUP(window), "close-compare", NULL);
	fst_ui_settle();
	cr_assert_null(new_timeline());
	cr_assert_not(g_action_group_get_action_enabled(G_ACTION_GROUP(window), "align-here"));
}

Test(compare, a_new_that_cannot_be_opened_is_said_in_one_line_and_the_window_keeps_base)
{
	g_autofree char *work = g_dir_make_tmp("fsv-compare-XXXXXX", NULL);
	g_autofree char *empty = g_build_filename(work, "not-a-trace", NULL);
	g_autofree char *copy = g_build_filename(work, "damaged", NULL);
	g_autofree char *stream =
	    g_build_filename(copy, "ust", "uid", "0", "64-bit", "fencescope_0", NULL);
	g_autofree char *cp = NULL;
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", work);
	g_autoptr(GFile) empty_file = g_file_new_for_path(empty);
	g_autoptr(GFile) copy_file = g_file_new_for_path(copy);
	g_autoptr(GFile) sample = trace_file("diff-slow");
	g_autofree char *sample_path = g_file_get_path(sample);
	FsvTrace *base = fsv_timeline_get_trace(base_timeline());
	const char *error;
	GStatBuf st;

	cr_assert_not_null(work);
	cr_assert_eq(g_mkdir(empty, 0700), 0);
	/* A folder that holds no trace: nothing to show below, one line, BASE alone. */
	fsv_window_compare(window, empty_file, NULL);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error, "a folder without a trace went without a word");
	cr_assert(g_str_has_prefix(error, "Compare with not-a-trace: "), "%s", error);
	cr_assert_null(strchr(error, '\n'), "%s", error);
	cr_assert_null(new_timeline());
	cr_assert_eq(_fsv_window_get_timeline(window), base_timeline());
	cr_assert_eq(fsv_timeline_get_trace(base_timeline()), base);
	cr_assert_str_eq(_fsv_window_get_page(window), "trace");
	cr_assert_str_eq(gtk_window_get_title(GTK_WINDOW(window)), "diff-base — fencescope viewer");

	/* A truncated stream file: what could be read is shown below, and the cause in one line;
	 * or, if nothing could, the same as above. Either way BASE stays. */
	cp = g_strdup_printf("cp -r '%s' '%s'", sample_path, copy);
	cr_assert_eq(system(cp), 0, "%s", cp);
	cr_assert_eq(g_stat(stream, &st), 0, "%s", stream);
	cr_assert_eq(truncate(stream, st.st_size / 2), 0);
	fsv_window_compare(window, copy_file, NULL);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error, "a truncated NEW went without a word");
	cr_assert_not_null(strstr(error, "damaged"), "%s", error);
	cr_assert_null(strchr(error, '\n'), "%s", error);
	cr_assert_eq(fsv_timeline_get_trace(base_timeline()), base);
	if (new_timeline())
		cr_assert_not_null(
		    fsv_trace_get_partial_error(fsv_timeline_get_trace(new_timeline())));
	cr_assert_eq(system(rm), 0);
}

/* A NEW read in part with an --align it cannot follow: the error line says both, the damage
 * and the alignment refused, in one line (neither drops the other). */
Test(compare, a_partly_damaged_new_and_an_align_not_followed_are_both_said)
{
	g_autofree char *work = g_dir_make_tmp("fsv-compare-XXXXXX", NULL);
	g_autofree char *copy = g_build_filename(work, "damaged", NULL);
	g_autofree char *stream =
	    g_build_filename(copy, "ust", "uid", "0", "64-bit", "fencescope_0", NULL);
	g_autofree char *cp = NULL;
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", work);
	g_autoptr(GFile) copy_file = g_file_new_for_path(copy);
	g_autoptr(GFile) sample = trace_file("diff-slow");
	g_autofree char *sample_path = g_file_get_path(sample);
	const char *error;
	GStatBuf st;

	cr_assert_not_null(work);
	cp = g_strdup_printf("cp -r '%s' '%s'", sample_path, copy);
	cr_assert_eq(system(cp), 0, "%s", cp);
	cr_assert_eq(g_stat(stream, &st), 0, "%s", stream);
	cr_assert_eq(truncate(stream, st.st_size / 2), 0);
	fsv_window_compare(window, copy_file, "op:3=op:999999999");
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	cr_assert_not_null(new_timeline(), "half of diff-slow is shown");
	cr_assert_not_null(fsv_trace_get_partial_error(fsv_timeline_get_trace(new_timeline())));
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error);
	cr_assert(g_str_has_prefix(error, "NEW damaged: "), "%s", error);
	cr_assert_not_null(strstr(error, "--align: NEW op:999999999: damaged has no operation"),
			   "the --align refused was dropped: %s", error);
	cr_assert_not_null(strstr(error, "the trace starts are aligned instead"), "%s", error);
	cr_assert_null(strchr(error, '\n'), "%s", error);
	cr_assert_eq(system(rm), 0);
}

/* The fallback dialog of Compare With…'s GtkFileChooserNative (no portal under Xvfb). */
static GtkWidget *
find_chooser(const char *title)
{
	GListModel *toplevels = gtk_window_get_toplevels();

	for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
		g_autoptr(GtkWindow) toplevel = g_list_model_get_item(toplevels, i);

		if (GTK_IS_FILE_CHOOSER(toplevel) &&
		    g_strcmp0(gtk_window_get_title(toplevel), title) == 0)
			return GTK_WIDGET(toplevel);
	}
	return NULL;
}

Test(compare, compare_with_asks_for_a_folder_and_shows_the_one_chosen_below)
{
	g_autoptr(GFile) file = trace_file("diff-slow");
	GtkWidget *chooser = NULL;

	g_action_group_activate_action(G_ACTION_GROUP(window), "close-compare", NULL);
	fst_ui_settle();
	cr_assert_null(new_timeline());
	g_action_group_activate_action(G_ACTION_GROUP(window), "compare", NULL);
	for (int i = 0; i < 100 && chooser == NULL; i++) {
		fst_ui_settle();
		chooser = find_chooser("Compare With Trace Folder");
	}
	cr_assert_not_null(chooser, "View ▸ Compare With… showed no folder chooser");
	/* In a folder chooser with nothing selected, accepting chooses the folder shown. */
	cr_assert(gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(chooser), file, NULL));
	for (int i = 0; i < 10; i++)
		fst_ui_settle();
	gtk_dialog_response(GTK_DIALOG(chooser), GTK_RESPONSE_ACCEPT);
	for (int i = 0; i < 100 && !_fsv_compare_is_loading(window) && new_timeline() == NULL; i++)
		fst_ui_settle();
	cr_assert(_fsv_compare_is_loading(window) || new_timeline(),
		  "the folder chosen is not loading: %s", _fsv_window_get_error(window));
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_not_null(new_timeline(), "%s", _fsv_window_get_error(window));
	cr_assert_str_eq(fsv_trace_get_name(fsv_timeline_get_trace(new_timeline())), "diff-slow");
}

/* --- The command line: fencescope-view TRACE --compare NEW --align B=N, fencescope view ---- */

typedef struct {
	FstUiRun base; /* first: the runner's */
	gboolean is_shown;
	gint64 offset_ns;
	char *error;
	char *align_accel;           /* Align Here's first shortcut */
	guint64 new_frame_budget_ns; /* the view of NEW's timeline */
} CompareRun;

/* Once both traces are loaded (or NEW failed): what the window shows, then quit. */
static gboolean
poll_compared(gpointer data)
{
	CompareRun *run = data;

	if (run->base.window == NULL || _fsv_window_is_loading(run->base.window) ||
	    _fsv_compare_is_loading(run->base.window))
		return G_SOURCE_CONTINUE;
	run->is_shown = _fsv_compare_get_offset(run->base.window, &run->offset_ns);
	if (_fsv_compare_get_timeline(run->base.window) &&
	    fsv_timeline_get_view(_fsv_compare_get_timeline(run->base.window)))
		run->new_frame_budget_ns = fsv_view_get_frame_budget(
		    fsv_timeline_get_view(_fsv_compare_get_timeline(run->base.window)));
	{
		g_auto(GStrv) accels = gtk_application_get_accels_for_action(
		    GTK_APPLICATION(run->base.app), "win.align-here");

		run->align_accel = g_strdup(accels ? accels[0] : NULL);
	}
	run->error = g_strdup(_fsv_window_get_error(run->base.window));
	fst_ui_run_finish(&run->base);
	return G_SOURCE_REMOVE;
}

static FsvTrace *
load_trace(const char *name)
{
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", name, NULL);
	FsvTrace *trace = fsv_trace_load(path, NULL, NULL, NULL, NULL);

	cr_assert_not_null(trace, "%s", name);
	return trace;
}

/* The application's own windows, with a viewer.ini of the test's own. */
static void
begin_command_line(void)
{
	fst_ui_begin(FALSE);
}

TestSuite(compare_command_line, .init = begin_command_line, .fini = fst_ui_end, .timeout = 240);

Test(compare_command_line, compare_and_align_open_new_below_with_those_points_at_one_x)
{
	g_autofree char *base_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-base", NULL);
	g_autofree char *new_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-slow", NULL);
	g_autoptr(FsvTrace) base = load_trace("diff-base");
	g_autoptr(FsvTrace) compared = load_trace("diff-slow");
	const char *argv[] = {"fencescope-view", "--compare", new_path, "--align",
			      "op:60=op:60",     base_path,   NULL};
	CompareRun run = {0};

	cr_assert_eq(fst_ui_run_application(argv, poll_compared, &run.base), 0);
	cr_assert(run.base.is_done, "the window never showed the traces");
	cr_assert_null(run.error, "error: %s", run.error);
	cr_assert(run.is_shown, "NEW not shown below");
	cr_assert_str_eq(run.align_accel, "<Control>l", "Align Here is not on Ctrl+L");
	g_free(run.align_accel);
	cr_assert_eq(
	    run.offset_ns,
	    (gint64) fsv_trace_get_op(compared, fsv_trace_find_op_by_id(compared, 60))->begin_ns -
		(gint64) fsv_trace_get_op(base, fsv_trace_find_op_by_id(base, 60))->begin_ns);
}

/* --frame-budget grades NEW's frames as the base's: the compared timeline's view has it. */
Test(compare_command_line, frame_budget_is_the_compared_timelines_too)
{
	g_autofree char *base_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-base", NULL);
	g_autofree char *new_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-slow", NULL);
	const char *argv[] = {"fencescope-view", "--frame-budget", "12ms", "--compare",
			      new_path,          base_path,        NULL};
	CompareRun run = {0};

	cr_assert_eq(fst_ui_run_application(argv, poll_compared, &run.base), 0);
	cr_assert(run.base.is_done, "the window never showed the traces");
	cr_assert_null(run.error, "error: %s", run.error);
	cr_assert(run.is_shown, "NEW not shown below");
	cr_assert_eq(run.new_frame_budget_ns, 12000000);
	g_free(run.align_accel);
}

/* A base that cannot be opened: its one line, and nothing is compared with nothing. */
Test(compare_command_line, a_base_that_cannot_be_opened_ends_the_comparison)
{
	g_autofree char *new_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-slow", NULL);
	g_autofree char *work = g_dir_make_tmp("fsv-compare-XXXXXX", NULL);
	g_autofree char *empty = g_build_filename(work, "no-trace-here", NULL);
	const char *argv[] = {"fencescope-view", "--compare", new_path, empty, NULL};
	CompareRun run = {0};

	cr_assert_eq(g_mkdir(empty, 0700), 0);
	cr_assert_eq(fst_ui_run_application(argv, poll_compared, &run.base), 0);
	cr_assert(run.base.is_done);
	cr_assert_not(run.is_shown, "NEW shown without a base");
	cr_assert_not_null(run.error, "the base's failure went without a word");
	cr_assert_not_null(strstr(run.error, "no-trace-here"), "%s", run.error);
	g_free(run.error);
	g_free(run.align_accel);
	g_rmdir(empty);
	g_rmdir(work);
}

/* Bad values: one line on stderr, exit status 2, no window; from `fencescope view` too. */
Test(compare_command_line, bad_compare_or_align_exit_2_before_a_window_opens)
{
	g_autofree char *base_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-base", NULL);
	g_autofree char *new_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-slow", NULL);
	const char *const bad[][5] = {
	    {"--compare", "/no/such/trace", base_path, NULL, NULL},
	    {"--align", "+1ms=+2ms", base_path, NULL, NULL},
	    {"--compare", new_path, "--align", "+1ms", base_path},
	    {"--compare", new_path, "--align", "op:x=op:2", base_path},
	    /* Beside --compare, another option with a value: fencescope-view's main() took
	     * --frame-budget's for a TRACE ("0: no such file or folder"). */
	    {"--compare", new_path, "--frame-budget", "0", base_path},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		const char *argv[7] = {"fencescope-view"};
		g_autofree char *cli = NULL;
		g_autofree char *err = NULL;
		int status = 0;
		CompareRun run = {0};

		for (size_t k = 0; k < 5 && bad[i][k]; k++)
			argv[k + 1] = bad[i][k];
		cr_assert_eq(fst_ui_run_application(argv, poll_compared, &run.base), 2, "case %zu",
			     i);
		cr_assert_null(run.base.window, "case %zu opened a window", i);
		/* `fencescope view` refuses the same, itself (it never starts the viewer). */
		cli = g_strjoin("' '", bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], NULL);
		{
			g_autofree char *command =
			    g_strdup_printf("%s view '%s'", FST_FENCESCOPE, cli);

			cr_assert(g_spawn_command_line_sync(command, NULL, &err, &status, NULL));
		}
		cr_assert_eq(WEXITSTATUS(status), 2, "fencescope view case %zu: %s", i, err);
		cr_assert_eq(strchr(err, '\n'), strrchr(err, '\n'), "one line: %s", err);
		cr_assert(g_str_has_prefix(err, "fencescope view: --"), "%s", err);
		/* The fencescope-view program too: its main() must not take an option's value for
		 * a TRACE (it said "op:x=op:2: no such file or folder" for `--align op:x=op:2`). */
		{
			const char *exe_argv[7] = {FST_VIEWER_EXE};
			g_autofree char *exe_err = NULL;

			for (size_t k = 0; k < 5 && bad[i][k]; k++)
				exe_argv[k + 1] = bad[i][k];
			cr_assert(g_spawn_sync(NULL, (char **) exe_argv, NULL, G_SPAWN_DEFAULT,
					       NULL, NULL, NULL, &exe_err, &status, NULL));
			cr_assert_eq(WEXITSTATUS(status), 2, "fencescope-view case %zu: %s", i,
				     exe_err);
			cr_assert_eq(strchr(exe_err, '\n'), strrchr(exe_err, '\n'), "one line: %s",
				     exe_err);
			cr_assert(g_str_has_prefix(exe_err, "fencescope-view: --"), "%s", exe_err);
		}
	}
}

/* `fencescope view W --compare W --recording BASE_NAME:NEW_NAME`, W a folder of two recordings:
 * each side picks its own (as fencescope diff's --recording), so a NEW_NAME W lacks is said by
 * that name alone after BASE_NAME was picked, and a BASE_NAME W lacks likewise. */
Test(compare_command_line, recording_base_colon_new_picks_one_recording_in_each)
{
	g_autofree char *work = g_dir_make_tmp("fsv-compare-XXXXXX", NULL);
	g_autofree char *base_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-base", NULL);
	g_autofree char *new_path = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-slow", NULL);
	g_autofree char *cp = g_strdup_printf("cp -r '%s' '%s/a' && cp -r '%s' '%s/b'", base_path,
					      work, new_path, work);
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", work);
	static const char *const cases[][2] = {{"a:zzz", "a"}, {"zzz:b", "b"}};

	cr_assert_not_null(work);
	cr_assert_eq(system(cp), 0, "%s", cp);
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *command =
		    g_strdup_printf("%s view '%s' --compare '%s' --recording %s", FST_FENCESCOPE,
				    work, work, cases[i][0]);
		g_autofree char *err = NULL;
		g_autoptr(GError) error = NULL;
		int status = 0;

		cr_assert(g_spawn_command_line_sync(command, NULL, &err, &status, &error), "%s: %s",
			  command, error ? error->message : "");
		cr_assert_eq(WEXITSTATUS(status), 1, "%s: %s", cases[i][0], err);
		cr_assert_not_null(strstr(err, "zzz"), "%s", err);
		cr_assert_null(strstr(err, cases[i][0]), "--recording %s taken as one name: %s",
			       cases[i][0], err);
	}
	cr_assert_eq(system(rm), 0);
}
