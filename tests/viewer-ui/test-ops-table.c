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

#include "fsv-application.h"
#include "fsv-ops-table-private.h"
#include "fst-ui.h"

static FsvWindow *window;

static gboolean
is_table_ready(void)
{
	return !fsv_ops_table_is_busy(_fsv_window_get_ops_table(window));
}

static void
show_table(void)
{
	g_action_group_change_action_state(G_ACTION_GROUP(window), "show-table",
					   g_variant_new_boolean(TRUE));
	fst_ui_settle();
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	cr_assert(gtk_widget_get_mapped(GTK_WIDGET(_fsv_window_get_ops_table(window))));
}

static void
make_window_without_table(void)
{
	fst_ui_begin(FALSE);
	window = fst_ui_window_new_with_trace("frame-pipeline", 1600, 900);
}

static void
make_window(void)
{
	make_window_without_table();
	show_table();
}

static void
destroy_window(void)
{
	fst_ui_window_destroy(window);
	fst_ui_end();
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
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
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
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	{
		const FsvOp *first = fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, 0));

		cr_assert_eq(first->kind, FSA_OP_WAIT);
		cr_assert_eq(duration_of(first), longest_wait);
	}

	_fsv_ops_table_click_header(table, FSV_OPS_COLUMN_DURATION);
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_sort(table, &order), FSV_OPS_COLUMN_DURATION);
	cr_assert_eq(order, GTK_SORT_ASCENDING);
	cr_assert_leq(
	    duration_of(fsv_trace_get_op(trace, fsv_ops_table_get_row_op(table, 0))),
	    duration_of(fsv_trace_get_op(
		trace, fsv_ops_table_get_row_op(table, fsv_ops_table_get_n_rows(table) - 1))));
	/* Any other column sorts smallest first on its first click. */
	_fsv_ops_table_click_header(table, FSV_OPS_COLUMN_OP_ID);
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
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
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
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
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
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
	fst_ui_settle();
	cr_assert_gt(o->begin_ns, fsv_view_get_end_ns(view), "the op starts out of sight");
	fsv_ops_table_select_row(table, last);
	fst_ui_settle();
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
	g_object_unref(fst_ui_save_screenshot(GTK_WIDGET(window), "window-ops-table.png"));

	/* The other way: a box selected in the timeline selects its row. */
	fsv_timeline_select_op(timeline, fsv_ops_table_get_row_op(table, 3));
	fst_ui_settle();
	cr_assert_eq(fsv_ops_table_get_selected(table), 3);
	fsv_timeline_set_selection(timeline, NULL);
	cr_assert_eq(fsv_ops_table_get_selected(table), GTK_INVALID_LIST_POSITION);
}

/* In the details pane, "Released by signal op N" is a link: a click selects that signal (in the
 * timeline and the table); the signal's "Wait" links select the waits it released; a queue
 * op's "Packet" link selects its command buffer, whose "Operations" link leads back. */
Test(table, details_links_select_the_signal_the_waits_and_the_packet)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	FsvTrace *trace = shown_trace();
	guint32 wait = FSV_INDEX_NONE, with_packet = FSV_INDEX_NONE;
	const guint32 *edges;
	guint n_edges = 0;
	FsvItem selection;
	g_autofree char *details = NULL;
	g_autofree char *released = NULL;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);

		if (wait == FSV_INDEX_NONE && o->kind == FSA_OP_WAIT &&
		    o->signal_op != FSV_INDEX_NONE)
			wait = i;
		if (with_packet == FSV_INDEX_NONE && o->source == FSA_SRC_USER_MODE_QUEUE &&
		    o->kind == FSA_OP_SIGNAL)
			with_packet = i;
	}
	cr_assert_neq(wait, FSV_INDEX_NONE, "frame-pipeline has a released wait");
	fsv_timeline_select_op(timeline, wait);
	fst_ui_settle();
	details = _fsv_window_dup_details_text(window);
	released =
	    g_strdup_printf("Released by: signal op %" G_GUINT64_FORMAT,
			    fsv_trace_get_op(trace, fsv_trace_get_op(trace, wait)->signal_op)->id);
	cr_assert_not_null(strstr(details, released), "details:\n%s", details);
	cr_assert(_fsv_window_click_details_link(window, "Released by", 0));
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(selection.index, fsv_trace_get_op(trace, wait)->signal_op);
	cr_assert_eq(fsv_ops_table_get_row_op(table, fsv_ops_table_get_selected(table)),
		     selection.index, "the table follows");

	/* From the signal, its first released wait. */
	edges = fsv_trace_get_op_edges(trace, selection.index, &n_edges);
	cr_assert_gt(n_edges, 0);
	cr_assert(_fsv_window_click_details_link(window, "  Wait", 0));
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(selection.index, edges[0]);

	/* A signal on a user-mode queue → its packet → back to its operations. */
	cr_assert_neq(with_packet, FSV_INDEX_NONE);
	fsv_timeline_select_op(timeline, with_packet);
	fst_ui_settle();
	cr_assert(_fsv_window_click_details_link(window, "Packet", 0), "no packet link");
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_PACKET);
	{
		const FsvPacket *p = fsv_trace_get_packet(trace, selection.index);
		const FsvOp *o = fsv_trace_get_op(trace, with_packet);

		cr_assert_eq(p->hwqueue_handle, o->hwqueue_handle);
		cr_assert_eq(p->progress_value, o->progress_value);
	}
	cr_assert(_fsv_window_click_details_link(window, "Operations", 0));
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(fsv_trace_get_op(trace, selection.index)->progress_value,
		     fsv_trace_get_op(trace, with_packet)->progress_value);
	cr_assert_not(_fsv_window_click_details_link(window, "Operation", 0),
		      "plain fields are no links");
}

/* Above 200 000 ops the rows are computed in a worker thread: lowered to 0 here, a sort and a
 * filter give the rows the UI thread gives, while the previous rows stay shown meanwhile. */
Test(table, worker_thread_sorts_and_filters_like_the_ui_thread)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	guint n = fsv_ops_table_get_n_rows(table);
	g_autofree guint32 *sync_rows = NULL;
	guint n_sync;

	_fsv_ops_table_set_sync_max_ops(G_MAXUINT);
	_fsv_window_set_search_text(window, "state=observed or kind=signal");
	fsv_ops_table_sort(table, FSV_OPS_COLUMN_END, GTK_SORT_DESCENDING);
	cr_assert_not(fsv_ops_table_is_busy(table));
	n_sync = fsv_ops_table_get_n_rows(table);
	cr_assert_gt(n_sync, 0);
	sync_rows = g_new(guint32, n_sync);
	for (guint i = 0; i < n_sync; i++)
		sync_rows[i] = fsv_ops_table_get_row_op(table, i);

	_fsv_ops_table_set_sync_max_ops(0);
	_fsv_window_set_search_text(window, "");
	fsv_ops_table_sort(table, FSV_OPS_COLUMN_NONE, GTK_SORT_ASCENDING);
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_n_rows(table), n);
	_fsv_window_set_search_text(window, "state=observed or kind=signal");
	fsv_ops_table_sort(table, FSV_OPS_COLUMN_END, GTK_SORT_DESCENDING);
	cr_assert(fsv_ops_table_is_busy(table), "the worker runs");
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_n_rows(table), n_sync);
	for (guint i = 0; i < n_sync; i++)
		cr_assert_eq(fsv_ops_table_get_row_op(table, i), sync_rows[i], "row %u", i);
	_fsv_ops_table_set_sync_max_ops(200000);
}

/* A real pointer click (xdotool, as the end-to-end test does) on row 5, found by
 * _fsv_ops_table_get_row_bounds(), selects that op in the timeline. */
Test(table, xdotool_click_on_a_row_selects_its_op)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	graphene_rect_t bounds;
	FsvItem selection;
	gint64 deadline;
	double scale;

	if (!fst_ui_has_xdotool()) {
		cr_skip_test("xdotool is not installed");
		return;
	}
	fst_ui_settle();
	cr_assert(_fsv_ops_table_get_row_bounds(table, 5, GTK_WIDGET(window), &bounds),
		  "row 5 is on screen");
	cr_assert_gt(bounds.size.height, 4);
	scale = gtk_widget_get_scale_factor(GTK_WIDGET(window));
	/* Under Xvfb there is no window manager (no windowactivate): the window is found by its
	 * title (the tests run one at a time: CRITERION_JOBS=1 in meson.build), raised above any
	 * other, and the pointer moved relative to it. */
	fst_ui_xdotool("search --sync --name 'frame-pipeline — fencescope viewer' "
		       "windowraise %%1 mousemove --window %%1 %d %d click 1",
		       (int) ((bounds.origin.x + 20) * scale),
		       (int) ((bounds.origin.y + bounds.size.height / 2) * scale));
	deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	do {
		g_main_context_iteration(NULL, FALSE);
		fsv_timeline_get_selection(timeline, &selection);
	} while (selection.kind == FSV_ITEM_NONE && g_get_monotonic_time() < deadline);
	cr_assert_eq(selection.kind, FSV_ITEM_OP, "the click selected nothing");
	cr_assert_eq(selection.index, fsv_ops_table_get_row_op(table, 5));
	cr_assert_eq(fsv_ops_table_get_selected(table), 5);
}

/* Ctrl+T's action hides and shows the table; hidden, it computes nothing (a trace opened
 * with the table hidden costs the UI thread nothing there), and catches up when shown. */
Test(table, show_table_action_toggles_the_pane_and_a_hidden_table_waits)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	FsvTrace *trace = shown_trace();
	guint n = fsv_ops_table_get_n_rows(table), waits = 0;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++)
		waits += fsv_trace_get_op(trace, i)->kind == FSA_OP_WAIT;
	cr_assert_lt(waits, n);
	cr_assert(gtk_widget_get_visible(GTK_WIDGET(table)));
	g_action_group_change_action_state(G_ACTION_GROUP(window), "show-table",
					   g_variant_new_boolean(FALSE));
	fst_ui_settle();
	cr_assert_not(gtk_widget_get_visible(GTK_WIDGET(table)));
	_fsv_window_set_search_text(window, "kind=wait");
	cr_assert_eq(fsv_ops_table_get_n_rows(table), n, "hidden: not recomputed");
	g_action_group_activate_action(G_ACTION_GROUP(window), "show-table", NULL);
	fst_ui_settle();
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	cr_assert(gtk_widget_get_visible(GTK_WIDGET(table)));
	cr_assert_eq(fsv_ops_table_get_n_rows(table), waits, "shown: the search applies");
}

TestSuite(table_fresh, .init = make_window_without_table, .fini = destroy_window, .timeout = 120);

static char *chain_details;

static gboolean
has_chain(void)
{
	g_free(chain_details);
	chain_details = _fsv_window_dup_details_text(window);
	return strstr(chain_details, "Chain of causes") != NULL &&
	       strstr(chain_details, "indexing the trace") == NULL;
}

/* Issue 16 §1, the viewer's part: a selected wait lists its chain of causes in the details
 * pane (docs/analyzer.md "Chains of causes": the signal that released it, that signal's command
 * buffer running, what that buffer queued behind, back to the CPU's submission), each link a
 * link that selects its op or packet. */
Test(table, a_selected_wait_lists_its_chain_of_causes_as_links)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = shown_trace();
	guint32 wait = FSV_INDEX_NONE;
	FsvItem selection;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace) && wait == FSV_INDEX_NONE; i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);

		if (o->kind == FSA_OP_WAIT && o->source == FSA_SRC_USER_MODE_QUEUE &&
		    o->state == FSA_OP_OBSERVED && o->signal_op != FSV_INDEX_NONE &&
		    fsv_trace_get_op(trace, o->signal_op)->source != FSA_SRC_CPU && i > 40)
			wait = i;
	}
	cr_assert_neq(wait, FSV_INDEX_NONE, "frame-pipeline has a user-mode wait a queue released");
	fsv_timeline_select_op(timeline, wait);
	fst_ui_settle();
	fst_ui_spin_until(has_chain, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_not_null(strstr(chain_details, "Ends at"), "%s", chain_details);
	/* The timeline outlines the links, the releasing signal first. */
	{
		guint n = 0;
		const FsvItem *hl = fsv_timeline_get_highlights(timeline, &n);

		cr_assert_geq(n, 2, "the signal and its command buffer at least");
		cr_assert_eq(hl[0].kind, FSV_ITEM_OP);
		cr_assert_eq(hl[0].index, fsv_trace_get_op(trace, wait)->signal_op);
		cr_assert_eq(hl[1].kind, FSV_ITEM_PACKET);
	}
	/* Its first link: the signal that released it. */
	cr_assert(_fsv_window_click_details_link(window, "signal", 0), "%s", chain_details);
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(selection.index, fsv_trace_get_op(trace, wait)->signal_op);
	{
		guint n = 0;

		fsv_timeline_get_highlights(timeline, &n);
		cr_assert_eq(n, 0, "a signal has no chain: nothing outlined");
	}
	/* Back to the wait, then to the packet that ran the signal's command buffer. */
	fsv_timeline_select_op(timeline, wait);
	fst_ui_settle();
	fst_ui_spin_until(has_chain, FST_UI_LOAD_TIMEOUT_US);
	cr_assert(_fsv_window_click_details_link(window, "run", 0), "%s", chain_details);
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_PACKET);
	{
		const FsvOp *s = fsv_trace_get_op(trace, fsv_trace_get_op(trace, wait)->signal_op);
		const FsvPacket *p = fsv_trace_get_packet(trace, selection.index);

		cr_assert_eq(p->hwqueue_handle, s->hwqueue_handle);
		cr_assert_eq(p->progress_value, s->progress_value);
	}
	g_clear_pointer(&chain_details, g_free);
}

/* How many of the first rows are on screen: a realized, mapped row inside the table's
 * scrolled window, each below the one before. */
static guint
rows_on_screen(FsvOpsTable *table, guint want)
{
	graphene_rect_t last = GRAPHENE_RECT_INIT(0, -1, 0, 0);
	guint n = 0;

	for (guint i = 0; i < want && i < fsv_ops_table_get_n_rows(table); i++) {
		graphene_rect_t bounds;

		if (!_fsv_ops_table_get_row_bounds(table, i, GTK_WIDGET(window), &bounds) ||
		    bounds.size.height < 4 || bounds.origin.y <= last.origin.y)
			break;
		last = bounds;
		n++;
	}
	return n;
}

/* Shown after a search was typed while it was hidden (Ctrl+T after Ctrl+F), the table shows
 * all the rows that fit, not only the first (issue 15: the rows computed on map were given to
 * a list view that had laid out its single estimated row). */
static void
check_shown_after_search(const char *text)
{
	FsvOpsTable *table = _fsv_window_get_ops_table(window);
	guint n;

	g_action_group_change_action_state(G_ACTION_GROUP(window), "show-table",
					   g_variant_new_boolean(FALSE));
	fst_ui_settle();
	_fsv_window_set_search_text(window, text);
	fst_ui_settle();
	g_action_group_change_action_state(G_ACTION_GROUP(window), "show-table",
					   g_variant_new_boolean(TRUE));
	fst_ui_settle();
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	n = fsv_ops_table_get_n_rows(table);
	cr_assert_gt(n, 8, "%s: %u rows", text, n);
	cr_assert_geq(rows_on_screen(table, 8), 8, "%s: only %u of the first 8 rows shown", text,
		      rows_on_screen(table, 8));
}

Test(table, shown_after_a_search_it_shows_every_row_that_fits)
{
	check_shown_after_search("kind=wait");
	check_shown_after_search("kind=signal");
	check_shown_after_search("");
	/* The rows computed in the worker thread, as for a trace of 200 000 ops or more. */
	_fsv_ops_table_set_sync_max_ops(0);
	check_shown_after_search("kind=wait");
	check_shown_after_search("");
	_fsv_ops_table_set_sync_max_ops(200000);
}

/* The same in a window whose table was never shown before the search. */
Test(table_fresh, first_shown_after_a_search_it_shows_every_row_that_fits)
{
	check_shown_after_search("kind=wait");
}

Test(table_fresh, first_shown_after_a_search_in_the_worker_it_shows_every_row_that_fits)
{
	_fsv_ops_table_set_sync_max_ops(0);
	check_shown_after_search("kind=wait");
	_fsv_ops_table_set_sync_max_ops(200000);
}

/* Enter and Escape in the search entry give the keys back to the timeline: Z, W, F typed next
 * zoom instead of landing in the entry. Escape clears the search too. */
Test(table, enter_and_escape_in_the_search_give_the_keys_back)
{
	GtkWidget *timeline = GTK_WIDGET(_fsv_window_get_timeline(window));
	FsvOpsTable *table = _fsv_window_get_ops_table(window);

	_fsv_window_focus_search(window);
	cr_assert_not(gtk_widget_is_focus(timeline));
	_fsv_window_set_search_text(window, "kind=signal");
	_fsv_window_activate_search(window);
	cr_assert(gtk_widget_is_focus(timeline), "Enter");

	_fsv_window_focus_search(window);
	cr_assert_not(gtk_widget_is_focus(timeline));
	_fsv_window_stop_search(window);
	cr_assert(gtk_widget_is_focus(timeline), "Escape");
	fst_ui_spin_until(is_table_ready, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_eq(fsv_ops_table_get_n_rows(table), fsv_trace_get_op_count(shown_trace()),
		     "Escape cleared the search");
}

/* --- The application's command line (fencescope view --select-op / --at) ---------------- */

typedef struct {
	FstUiRun base; /* first: the runner's */
	FsvItem selection;
	guint64 begin_ns, end_ns;
	guint64 frame_budget_ns; /* the view's (fsv_view_get_frame_budget()) */
	char *error;
} StartRun;

/* Once the window has loaded its trace and applied the start: what it shows, then quit. */
static gboolean
poll_started(gpointer data)
{
	StartRun *run = data;
	FsvTimeline *timeline;
	const FsvView *view;

	if (run->base.window == NULL || _fsv_window_is_loading(run->base.window) ||
	    _fsv_window_is_start_pending(run->base.window))
		return G_SOURCE_CONTINUE;
	timeline = _fsv_window_get_timeline(run->base.window);
	view = fsv_timeline_get_view(timeline);
	fsv_timeline_get_selection(timeline, &run->selection);
	run->begin_ns = fsv_view_get_begin_ns(view);
	run->end_ns = fsv_view_get_end_ns(view);
	run->frame_budget_ns = fsv_view_get_frame_budget(view);
	run->error = g_strdup(_fsv_window_get_error(run->base.window));
	fst_ui_run_finish(&run->base);
	return G_SOURCE_REMOVE;
}

static FsvTrace *
load_frame_pipeline(void)
{
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	FsvTrace *trace = fsv_trace_load(path, NULL, NULL, NULL, NULL);

	cr_assert_not_null(trace);
	return trace;
}

/* The application's own windows, with a viewer.ini of the test's own. */
static void
begin_command_line(void)
{
	fst_ui_begin(FALSE);
}

TestSuite(command_line, .init = begin_command_line, .fini = fst_ui_end, .timeout = 120);

/* The op id report prints for the longest wait: the window opens with it selected and zoomed
 * to. */
Test(command_line, select_op_opens_with_that_op_selected_and_in_view)
{
	g_autoptr(FsvTrace) trace = load_frame_pipeline();
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	guint32 longest = FSV_INDEX_NONE;
	g_autofree char *id = NULL;
	StartRun run = {0};
	const FsvOp *o;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		o = fsv_trace_get_op(trace, i);
		if (o->kind == FSA_OP_WAIT &&
		    (longest == FSV_INDEX_NONE ||
		     duration_of(o) > duration_of(fsv_trace_get_op(trace, longest))))
			longest = i;
	}
	o = fsv_trace_get_op(trace, longest);
	id = g_strdup_printf("%" G_GUINT64_FORMAT, o->id);
	{
		const char *argv[] = {"fencescope-view", "--select-op", id, path, NULL};

		cr_assert_eq(fst_ui_run_application(argv, poll_started, &run.base), 0);
	}
	cr_assert(run.base.is_done, "the window never showed the trace");
	cr_assert_null(run.error, "error: %s", run.error);
	cr_assert_eq(run.selection.kind, FSV_ITEM_OP);
	cr_assert_eq(run.selection.index, longest);
	cr_assert_leq(run.begin_ns, o->begin_ns);
	cr_assert_geq(run.end_ns, o->end_ns, "the whole box in view");
	cr_assert_lt(run.end_ns - run.begin_ns,
		     fsv_trace_get_end_ns(trace) - fsv_trace_get_begin_ns(trace), "zoomed to it");
	g_free(run.error);
}

/* --at +1.5ms centres the time axis 1.5 ms after the trace's first event; an absolute time in
 * trace ns, or as `report` prints it ("1795513402.024431610 s"), the same. */
Test(command_line, at_centres_the_timeline_on_that_time)
{
	g_autoptr(FsvTrace) trace = load_frame_pipeline();
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	guint64 base = fsv_trace_get_begin_ns(trace);
	g_autofree char *absolute = g_strdup_printf("%" G_GUINT64_FORMAT, base + 2500000);
	g_autofree char *as_report =
	    g_strdup_printf("%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT " s",
			    (base + 3500000) / 1000000000, (base + 3500000) % 1000000000);
	const struct {
		const char *text;
		guint64 want;
	} cases[] = {
	    {"+1.5ms", base + 1500000},
	    {absolute, base + 2500000},
	    {as_report, base + 3500000},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const char *argv[] = {"fencescope-view", "--at", cases[i].text, path, NULL};
		guint64 centre, span;
		StartRun run = {0};

		cr_assert_eq(fst_ui_run_application(argv, poll_started, &run.base), 0, "--at %s",
			     cases[i].text);
		cr_assert(run.base.is_done);
		cr_assert_null(run.error, "error: %s", run.error);
		span = run.end_ns - run.begin_ns;
		centre = run.begin_ns + span / 2;
		cr_assert_leq(centre > cases[i].want ? centre - cases[i].want
						     : cases[i].want - centre,
			      1000, "--at %s: centre %" G_GUINT64_FORMAT, cases[i].text, centre);
	}
}

/* --frame-budget 12ms, as the report takes it: the window's frames are graded against 12 ms
 * (test-frames.c checks the grades against the report's); without it, each display's own. */
Test(command_line, frame_budget_is_the_views)
{
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	const char *given[] = {"fencescope-view", "--frame-budget", "12ms", path, NULL};
	const char *none[] = {"fencescope-view", path, NULL};
	StartRun run = {0}, run_none = {0};

	cr_assert_eq(fst_ui_run_application(given, poll_started, &run.base), 0);
	cr_assert(run.base.is_done);
	cr_assert_null(run.error, "error: %s", run.error);
	cr_assert_eq(run.frame_budget_ns, 12000000);
	cr_assert_eq(fst_ui_run_application(none, poll_started, &run_none.base), 0);
	cr_assert(run_none.base.is_done);
	cr_assert_eq(run_none.frame_budget_ns, 0);
}

/* Bad values: one line, exit status 2, no window; an id the trace lacks: said in the window. */
Test(command_line, bad_values_exit_2_and_unknown_ids_are_said)
{
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	static const char *const bad[][2] = {
	    {"--select-op", "x12"}, {"--select-op", "-1"},   {"--at", "1.5xs"},
	    {"--at", "+"},          {"--frame-budget", "0"}, {"--frame-budget", "2parsecs"}};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		const char *argv[] = {"fencescope-view", bad[i][0], bad[i][1], path, NULL};
		StartRun run = {0};

		cr_assert_eq(fst_ui_run_application(argv, poll_started, &run.base), 2, "%s %s",
			     bad[i][0], bad[i][1]);
		cr_assert_null(run.base.window);
	}
	/* A time, but outside the trace: go to time's line in the window, the view unmoved. */
	{
		const char *argv[] = {"fencescope-view", "--at", "2.5ms", path, NULL};
		StartRun run = {0};

		cr_assert_eq(fst_ui_run_application(argv, poll_started, &run.base), 0);
		cr_assert(run.base.is_done);
		cr_assert_not_null(run.error);
		cr_assert_not_null(strstr(run.error, "--at: '2.5ms' is outside the trace"), "%s",
				   run.error);
		cr_assert_not_null(strstr(run.error, "+TIME"), "%s", run.error);
		g_free(run.error);
	}
	{
		const char *argv[] = {"fencescope-view", "--select-op", "999999999", path, NULL};
		StartRun run = {0};

		cr_assert_eq(fst_ui_run_application(argv, poll_started, &run.base), 0);
		cr_assert(run.base.is_done);
		cr_assert_not_null(run.error);
		cr_assert_not_null(strstr(run.error, "--select-op 999999999"), "%s", run.error);
		cr_assert_eq(run.selection.kind, FSV_ITEM_NONE);
		g_free(run.error);
	}
}
