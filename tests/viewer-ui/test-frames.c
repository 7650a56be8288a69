/* SPDX-License-Identifier: MIT */
/*
 * Frames rows in FsvWindow (suite ui, under Xvfb; issue 16 §3) over traces/frame-pipeline: a
 * click on the frame that missed a vsync selects it, the details pane gives its frame time,
 * budget, missed vsyncs and present, then its critical path (the report's definition,
 * tests/viewer/test-frames.c holds the two against each other) as links and the share per
 * queue; the timeline outlines the path; a link of the path selects its op or packet; the search
 * `frame=N` goes to frame N. Leaves a screenshot, window-frame.png, in this build folder.
 */
#include <string.h>

#include "fsv-frames.h"
#include "fst-ui.h"

static FsvWindow *window;

static void
make_window(void)
{
	fst_ui_begin(FALSE);
	window = fst_ui_window_new_with_trace("frame-pipeline", 1600, 900);
}

static void
destroy_window(void)
{
	fst_ui_window_destroy(window);
	fst_ui_end();
}

TestSuite(frames_ui, .init = make_window, .fini = destroy_window, .timeout = 120);

static char *details;

static gboolean
has_path(void)
{
	g_free(details);
	details = _fsv_window_dup_details_text(window);
	return strstr(details, "Critical path") != NULL &&
	       strstr(details, "indexing the trace") == NULL;
}

Test(frames_ui, click_on_a_frame_lists_its_critical_path_and_a_link_selects_the_op)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint32 late = FSV_INDEX_NONE;
	const FsvFrame *f;
	FsvItem selection;
	double y, h;

	for (guint32 i = 0; i < fsv_trace_get_frame_count(trace); i++)
		if (fsv_trace_get_frame(trace, i)->missed_vsyncs > 0)
			late = i;
	cr_assert_neq(late, FSV_INDEX_NONE, "frame-pipeline misses a vsync once");
	f = fsv_trace_get_frame(trace, late);
	fsv_timeline_set_visible_range(timeline, f->draw_begin_ns - 30000000,
				       f->draw_end_ns + 30000000);
	fst_ui_settle();
	cr_assert(fsv_view_get_row_geometry(view, f->row, &y, &h), "no frames row laid out");
	cr_assert(fsv_timeline_select_at(timeline,
					 (fsv_view_time_to_x(view, f->draw_begin_ns) +
					  fsv_view_time_to_x(view, f->draw_end_ns)) /
					     2,
					 y + h / 2));
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_FRAME);
	cr_assert_eq(selection.index, late);
	fst_ui_spin_until(has_path, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_not_null(strstr(details, "Frame time: 33.333 ms"), "%s", details);
	cr_assert_not_null(strstr(details, "Missed vsyncs: 1"), "%s", details);
	cr_assert_not_null(strstr(details, "Present latency: "), "%s", details);
	cr_assert_not_null(strstr(details, "vsync: flip"), "%s", details);
	cr_assert_not_null(strstr(details, "Ends at"), "%s", details);
	cr_assert_not_null(strstr(details, "queue 0x"), "no share per queue:\n%s", details);
	{
		guint n = 0;

		fsv_timeline_get_highlights(timeline, &n);
		cr_assert_geq(n, 2, "the path is outlined");
	}
	/* Left in the build folder to look at. */
	g_object_unref(fst_ui_save_screenshot(GTK_WIDGET(window), "window-frame.png"));
	/* The long render of the frame is on its path: its "run" link selects that packet. */
	cr_assert(_fsv_window_click_details_link(window, "run", 0), "%s", details);
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_PACKET);
	/* Back to the frame: its path's signal link selects the signal op. */
	fsv_timeline_set_selection(timeline, &(FsvItem){FSV_ITEM_FRAME, late, f->row});
	fst_ui_settle();
	fst_ui_spin_until(has_path, FST_UI_LOAD_TIMEOUT_US);
	cr_assert(_fsv_window_click_details_link(window, "signal", 0), "%s", details);
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_OP);
	cr_assert_eq(fsv_trace_get_op(trace, selection.index)->kind, FSA_OP_SIGNAL);
	g_clear_pointer(&details, g_free);
}

/* Go to frame N: the search `frame=N` selects frame N on Enter; a frame the trace has not rings
 * the bell and selects nothing new. */
Test(frames_ui, search_frame_n_selects_frame_n)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	FsvItem selection;

	_fsv_window_set_search_text(window, "frame=42");
	cr_assert_not(_fsv_window_search_has_error(window));
	_fsv_window_activate_search(window);
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_FRAME);
	cr_assert_eq(fsv_trace_get_frame(trace, selection.index)->index, 42);
	fst_ui_spin_until(has_path, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_not_null(strstr(details, "Frame: #42"), "%s", details);
	_fsv_window_set_search_text(window, "frame: 9999");
	cr_assert_not(_fsv_window_search_has_error(window));
	_fsv_window_activate_search(window);
	fst_ui_settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(fsv_trace_get_frame(trace, selection.index)->index, 42);
	g_clear_pointer(&details, g_free);
}
