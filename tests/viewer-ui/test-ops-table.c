/* SPDX-License-Identifier: MIT */
/*
 * The operations table of FsvWindow (suite ui, under Xvfb; issue 15 §3) over
 * traces/frame-pipeline, each figure checked against the trace's own ops: the table lists every
 * op once, a click on the Duration header puts the longest wait first, the search
 * `kind=wait and dur>1ms` leaves exactly the matching ops, selecting a row selects the op in the
 * timeline and brings it into view (and a selected box selects its row), a link in the details
 * pane selects the signal that released a wait, and `--select-op` / `--at` on the
 * application's command line open the window there.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <gtk/gtk.h>

#include "fsv-application.h"
#include "fsv-ops-table-private.h"
#include "fsv-window-private.h"

#define LOAD_TIMEOUT_US (60 * G_USEC_PER_SEC)

static FsvWindow *window;

static void
spin_until(gboolean (*done)(void), gint64 timeout_us)
{
	gint64 deadline = g_get_monotonic_time() + timeout_us;

	while (!done() && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	cr_assert(done(), "timed out waiting for the window");
}

static gboolean
is_loaded(void)
{
	return !_fsv_window_is_loading(window);
}

static gboolean
is_table_ready(void)
{
	return !fsv_ops_table_is_busy(_fsv_window_get_ops_table(window));
}

static void
settle(void)
{
	for (int i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
	g_usleep(20000);
	for (int i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
}

static void
show_table(void)
{
	g_action_group_change_action_state(G_ACTION_GROUP(window), "show-table",
					   g_variant_new_boolean(TRUE));
	settle();
	spin_until(is_table_ready, LOAD_TIMEOUT_US);
	cr_assert(gtk_widget_get_mapped(GTK_WIDGET(_fsv_window_get_ops_table(window))));
}

static void
make_window(void)
{
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);

	gtk_init();
	window = fsv_window_new(NULL);
	gtk_window_set_default_size(GTK_WINDOW(window), 1600, 900);
	gtk_window_present(GTK_WINDOW(window));
	fsv_window_open(window, file);
	spin_until(is_loaded, LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	settle();
	show_table();
}

static void
destroy_window(void)
{
	gtk_window_destroy(GTK_WINDOW(window));
	settle();
}

/* Writes the window as the compositor would get it to FST_BUILD_DIR/NAME. */
static void
save_screenshot(const char *name)
{
	g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new(GTK_WIDGET(window));
	g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new();
	g_autoptr(GskRenderNode) node = NULL;
	g_autoptr(GdkTexture) texture = NULL;
	g_autofree char *path = g_build_filename(FST_BUILD_DIR, name, NULL);
	int width = gtk_widget_get_width(GTK_WIDGET(window));
	int height = gtk_widget_get_height(GTK_WIDGET(window));

	gdk_paintable_snapshot(paintable, snapshot, width, height);
	node = gtk_snapshot_free_to_node(g_steal_pointer(&snapshot));
	cr_assert_not_null(node);
	texture = gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(window)), node,
					      &GRAPHENE_RECT_INIT(0, 0, width, height));
	cr_assert(gdk_texture_save_to_png(texture, path));
}

static FsvTrace *
shown_trace(void)
{
	return fsv_timeline_get_trace(_fsv_window_get_timeline(window));
}

/* end − queued from the op's own fields (the box's span when an end is unknown). */
static guint64
duration_of(const FsvOp *o)
{
	guint64 end = o->op_end_ns != FSV_TIME_NONE ? o->op_end_ns : o->end_ns;
	guint64 begin = o->queued_ns != FSV_TIME_NONE ? o->queued_ns : o->begin_ns;

	return end - begin;
}

TestSuite(table, .init = make_window, .fini = destroy_window, .timeout = 120);

Test(table, lists_every_operation_once)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	FsvTrace *trace = shown_trace();
	guint n = fsv_trace_get_op_count(trace);
	g_autofree guint8 *seen = g_new0(guint8, n);

	cr_assert_gt(n, 0);
	cr_assert_eq(fsv_ops_table_get_n_rows(table), n);
	for (guint i = 0; i < n; i++) {
		guint32 op = fsv_ops_table_get_row_op(table, i);

		cr_assert_lt(op, n);
		cr_assert_not(seen[op], "op %u twice", op);
		seen[op] = 1;
		/* Time order by default. */
		if (i > 0)
			cr_assert_leq(
			    fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, i - 1))
				->begin_ns,
			    fsv_trace_get_op(trace, op)->begin_ns);
	}
	cr_assert_eq(fsv_ops_table_get_row_op(table, n), FSV_INDEX_NONE);
	{
		/* The cells say what the op is. */
		const FsvOp *o = fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, 0));
		g_autofree char *kind = fsv_ops_table_dup_cell_text(table, 0, FSV_OPS_COLUMN_KIND);
		g_autofree char *id = fsv_ops_table_dup_cell_text(table, 0, FSV_OPS_COLUMN_OP_ID);
		g_autofree char *queued =
		    fsv_ops_table_dup_cell_text(table, 0, FSV_OPS_COLUMN_QUEUED);
		g_autofree char *want_id = g_strdup_printf("%" G_GUINT64_FORMAT, o->id);

		cr_assert_str_eq(kind, o->kind == FSA_OP_WAIT ? "wait" : "signal");
		cr_assert_str_eq(id, want_id);
		cr_assert(queued[0] == '+' || strcmp(queued, "—") == 0,
			  "times count from the trace's start: %s", queued);
	}
}

/* One click on the Duration header: the longest op first, in non-increasing order; with the
 * search kind=wait, the longest wait of the trace's data first. A second click reverses. */
Test(table, a_click_on_duration_puts_the_longest_wait_first)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	FsvTrace *trace = shown_trace();
	guint64 longest = 0, longest_wait = 0;
	GtkSortType order;
	guint n;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);

		longest = MAX(longest, duration_of(o));
		if (o->kind == FSA_OP_WAIT)
			longest_wait = MAX(longest_wait, duration_of(o));
	}
	cr_assert_gt(longest_wait, 0);
	_fsv_ops_table_click_header(table, FSV_OPS_COLUMN_DURATION);
	spin_until(is_table_ready, LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_sort(table, &order), FSV_OPS_COLUMN_DURATION);
	cr_assert_eq(order, GTK_SORT_DESCENDING);
	n = fsv_ops_table_get_n_rows(table);
	cr_assert_eq(n, fsv_trace_get_op_count(trace));
	cr_assert_eq(duration_of(fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, 0))),
		     longest);
	for (guint i = 1; i < n; i++)
		cr_assert_geq(
		    duration_of(fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, i - 1))),
		    duration_of(fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, i))),
		    "row %u", i);

	_fsv_window_set_search_text(window, "kind=wait");
	spin_until(is_table_ready, LOAD_TIMEOUT_US);
	{
		const FsvOp *first = fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, 0));

		cr_assert_eq(first->kind, FSA_OP_WAIT);
		cr_assert_eq(duration_of(first), longest_wait);
	}

	_fsv_ops_table_click_header(table, FSV_OPS_COLUMN_DURATION);
	spin_until(is_table_ready, LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_sort(table, &order), FSV_OPS_COLUMN_DURATION);
	cr_assert_eq(order, GTK_SORT_ASCENDING);
	cr_assert_leq(
	    duration_of(fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, 0))),
	    duration_of(fsv_trace_get_op(
		trace, fsv_ops_table_get_row_op(table, fsv_ops_table_get_n_rows(table) - 1))));
	/* Any other column sorts smallest first on its first click. */
	_fsv_ops_table_click_header(table, FSV_OPS_COLUMN_OP_ID);
	spin_until(is_table_ready, LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_sort(table, &order), FSV_OPS_COLUMN_OP_ID);
	cr_assert_eq(order, GTK_SORT_ASCENDING);
	for (guint i = 1; i < fsv_ops_table_get_n_rows(table); i++)
		cr_assert_lt(fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, i - 1))->id,
			     fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, i))->id);
}

/* The search filters the table with the timeline: exactly the waits longer than 1 ms. */
Test(table, search_kind_wait_and_dur_leaves_exactly_the_matching_ops)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	FsvTrace *trace = shown_trace();
	guint expected = 0;
	g_autofree guint8 *listed = g_new0(guint8, fsv_trace_get_op_count(trace));

	_fsv_window_set_search_text(window, "kind=wait and dur>1ms");
	cr_assert_not(_fsv_window_search_has_error(window));
	spin_until(is_table_ready, LOAD_TIMEOUT_US);
	for (guint i = 0; i < fsv_ops_table_get_n_rows(table); i++)
		listed[fsv_ops_table_get_row_op(table, i)] = 1;
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);
		gboolean want = o->kind == FSA_OP_WAIT && duration_of(o) > 1000000;

		expected += want;
		cr_assert_eq(listed[i], want, "op %u (%s, %" G_GUINT64_FORMAT " ns)", i,
			     o->kind == FSA_OP_WAIT ? "wait" : "signal", duration_of(o));
	}
	cr_assert_gt(expected, 0);
	cr_assert_lt(expected, fsv_trace_get_op_count(trace));
	cr_assert_eq(fsv_ops_table_get_n_rows(table), expected);
	_fsv_window_set_search_text(window, "");
	spin_until(is_table_ready, LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_n_rows(table), fsv_trace_get_op_count(trace));
}

/* The last op in time, with the timeline zoomed on the first millisecond: selecting its row
 * selects it in the timeline and brings its box into view; selecting a box selects its row. */
Test(table, selecting_a_row_selects_and_reveals_the_op)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = shown_trace();
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint last = fsv_ops_table_get_n_rows(table) - 1;
	guint32 op = fsv_ops_table_get_row_op(table, last);
	const FsvOp *o = fsv_trace_get_op(trace, op);
	guint64 begin = fsv_trace_get_begin_ns(trace);
	FsvItem selection;
	double y, height;

	fsv_timeline_set_visible_range(timeline, begin, begin + 1000000);
	settle();
	cr_assert_gt(o->begin_ns, fsv_view_get_end_ns(view), "the op starts out of sight");
	fsv_ops_table_select_row(table, last);
	settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(selection.index, op);
	cr_assert_geq(o->begin_ns, fsv_view_get_begin_ns(view));
	cr_assert_leq(o->begin_ns, fsv_view_get_end_ns(view), "the box is brought into view");
	cr_assert_lt(fsv_view_get_end_ns(view) - fsv_view_get_begin_ns(view), 1000001,
		     "at the zoom the user chose");
	cr_assert(fsv_view_get_row_geometry(view, o->row, &y, &height));
	cr_assert_geq(y, fsv_view_get_ruler_height(view));
	cr_assert_leq(y + height, fsv_view_get_height(view), "its row is scrolled in");
	cr_assert_eq(fsv_ops_table_get_selected(table), last);
	save_screenshot("window-ops-table.png");

	/* The other way: a box selected in the timeline selects its row. */
	fsv_timeline_select_op(timeline, fsv_ops_table_get_row_op(table, 3));
	settle();
	cr_assert_eq(fsv_ops_table_get_selected(table), 3);
	fsv_timeline_set_selection(timeline, NULL);
	cr_assert_eq(fsv_ops_table_get_selected(table), GTK_INVALID_LIST_POSITION);
}

/* Ctrl+T's action hides and shows the table; the button shows its state. */
Test(table, show_table_action_toggles_the_pane)
{
	GtkWidget *table = GTK_WIDGET(_fsv_window_get_ops_table(window));

	cr_assert(gtk_widget_get_visible(table));
	g_action_group_change_action_state(G_ACTION_GROUP(window), "show-table",
					   g_variant_new_boolean(FALSE));
	settle();
	cr_assert_not(gtk_widget_get_visible(table));
	g_action_group_activate_action(G_ACTION_GROUP(window), "show-table", NULL);
	settle();
	cr_assert(gtk_widget_get_visible(table));
}
