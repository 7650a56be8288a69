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

#include <criterion/criterion.h>
#include <gtk/gtk.h>

#include "fsv-frames.h"
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
}

static void
destroy_window(void)
{
	gtk_window_destroy(GTK_WINDOW(window));
	settle();
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
	settle();
	cr_assert(fsv_view_get_row_geometry(view, f->row, &y, &h), "no frames row laid out");
	cr_assert(fsv_timeline_select_at(timeline,
					 (fsv_view_time_to_x(view, f->draw_begin_ns) +
					  fsv_view_time_to_x(view, f->draw_end_ns)) /
					     2,
					 y + h / 2));
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_FRAME);
	cr_assert_eq(selection.index, late);
	spin_until(has_path, LOAD_TIMEOUT_US);
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
	{
		g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new(GTK_WIDGET(window));
		g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new();
		g_autoptr(GskRenderNode) node = NULL;
		g_autoptr(GdkTexture) texture = NULL;
		g_autofree char *shot = g_build_filename(FST_BUILD_DIR, "window-frame.png", NULL);
		int width = gtk_widget_get_width(GTK_WIDGET(window));
		int height = gtk_widget_get_height(GTK_WIDGET(window));

		gdk_paintable_snapshot(paintable, snapshot, width, height);
		node = gtk_snapshot_free_to_node(g_steal_pointer(&snapshot));
		/* A layout still pending draws nothing yet: let it settle. */
		for (int i = 0; i < 50 && !node; i++) {
			settle();
			snapshot = gtk_snapshot_new();
			gdk_paintable_snapshot(paintable, snapshot, width, height);
			node = gtk_snapshot_free_to_node(g_steal_pointer(&snapshot));
		}
		cr_assert_not_null(node);
		{
			texture = gsk_renderer_render_texture(
			    gtk_native_get_renderer(GTK_NATIVE(window)), node,
			    &GRAPHENE_RECT_INIT(0, 0, width, height));
			cr_assert(gdk_texture_save_to_png(texture, shot));
		}
	}
	/* The long render of the frame is on its path: its "run" link selects that packet. */
	cr_assert(_fsv_window_click_details_link(window, "run", 0), "%s", details);
	settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_PACKET);
	/* Back to the frame: its path's signal link selects the signal op. */
	fsv_timeline_set_selection(timeline, &(FsvItem){FSV_ITEM_FRAME, late, f->row});
	settle();
	spin_until(has_path, LOAD_TIMEOUT_US);
	cr_assert(_fsv_window_click_details_link(window, "signal", 0), "%s", details);
	settle();
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
	settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(selection.kind, FSV_ITEM_FRAME);
	cr_assert_eq(fsv_trace_get_frame(trace, selection.index)->index, 42);
	spin_until(has_path, LOAD_TIMEOUT_US);
	cr_assert_not_null(strstr(details, "Frame: #42"), "%s", details);
	_fsv_window_set_search_text(window, "frame: 9999");
	cr_assert_not(_fsv_window_search_has_error(window));
	_fsv_window_activate_search(window);
	settle();
	fsv_timeline_get_selection(timeline, &selection);
	cr_assert_eq(fsv_trace_get_frame(trace, selection.index)->index, 42);
	g_clear_pointer(&details, g_free);
}
