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

#include <criterion/criterion.h>
#include <gtk/gtk.h>

#include "fsv-live-reader.h"
#include "fsv-live.h"
#include "fsv-window-private.h"

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

/* The traces of traces/frame-pipeline read so far, growing, the last one the whole trace. */
static GPtrArray *
read_growing_traces(void)
{
	g_autofree char *path = g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
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

static FsvWindow *window;

static void
settle(void)
{
	for (int i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
	g_usleep(20000);
	for (int i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
}

static gboolean
is_allocated(void)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const FsvView *view = fsv_timeline_get_view(timeline);

	return gtk_widget_get_mapped(GTK_WIDGET(timeline)) && view &&
	       gtk_widget_get_width(GTK_WIDGET(timeline)) > 100 &&
	       fsv_view_get_width(view) == gtk_widget_get_width(GTK_WIDGET(timeline));
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

Test(live_follow, newer_traces_follow_the_end_until_scrolled_back_and_follow_resumes)
{
	g_autoptr(GPtrArray) traces = read_growing_traces();
	FsvTimeline *timeline;
	FsvTrace *first, *second, *third, *whole;
	guint64 width, begin, end;
	gint64 deadline;
	FsvItem selected;
	guint64 selected_id;

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

	gtk_init();
	window = fsv_window_new(NULL);
	gtk_window_set_default_size(GTK_WINDOW(window), 1400, 800);
	gtk_window_present(GTK_WINDOW(window));
	timeline = _fsv_window_get_timeline(window);

	/* The first trace opens whole, following. */
	_fsv_live_show_trace(window, URL, first, FALSE);
	deadline = g_get_monotonic_time() + TIMEOUT_US;
	while (!is_allocated() && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	cr_assert(is_allocated());
	settle();
	cr_expect(_fsv_window_is_progress_shown(window), "no live bar");
	cr_expect(_fsv_live_is_following(window));

	/* Zoomed in at the end: the next trace keeps the width, ending at its newest event. */
	end = fsv_trace_get_end_ns(first);
	width = (end - fsv_trace_get_begin_ns(first)) / 4;
	fsv_timeline_set_visible_range(timeline, end - width, end);
	settle();
	fsv_timeline_select_op(timeline, fsv_trace_get_op_count(first) / 2);
	fsv_timeline_get_selection(timeline, &selected);
	cr_assert_eq(selected.kind, FSV_ITEM_OP);
	selected_id = fsv_trace_get_op(first, selected.index)->id;
	_fsv_live_show_trace(window, URL, second, FALSE);
	settle();
	cr_expect(_fsv_live_is_following(window));
	expect_view(fsv_trace_get_end_ns(second) - width, fsv_trace_get_end_ns(second),
		    "following");
	/* The selected operation is still selected in the newer trace, by its op id. */
	fsv_timeline_get_selection(timeline, &selected);
	cr_expect_eq(selected.kind, FSV_ITEM_OP);
	cr_expect_eq(fsv_trace_get_op(second, selected.index)->id, selected_id);

	/* Scrolled back: the next trace leaves the view on its times, no longer following. */
	begin = fsv_trace_get_begin_ns(second);
	fsv_timeline_set_visible_range(timeline, begin, begin + width);
	settle();
	_fsv_live_show_trace(window, URL, third, FALSE);
	settle();
	cr_expect_not(_fsv_live_is_following(window), "still following after scrolling back");
	expect_view(begin, begin + width, "scrolled back");

	/* The bar's Follow (as End): to the newest event again, following the next ones. */
	cr_assert_not_null(_fsv_live_get_follow_button(window));
	cr_expect(gtk_widget_get_sensitive(_fsv_live_get_follow_button(window)));
	cr_expect(gtk_widget_activate(_fsv_live_get_follow_button(window)), "Follow not activated");
	/* A button activated from the keyboard shows itself pressed for a moment, then clicks. */
	deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!_fsv_live_is_following(window) && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	settle();
	cr_expect(_fsv_live_is_following(window));
	expect_view(fsv_trace_get_end_ns(third) - width, fsv_trace_get_end_ns(third),
		    "follow again");

	/* The session's end: the whole trace, followed to its end, the bar gone. */
	_fsv_live_show_trace(window, URL, whole, TRUE);
	settle();
	expect_view(fsv_trace_get_end_ns(whole) - width, fsv_trace_get_end_ns(whole), "the end");
	cr_expect_not(_fsv_window_is_progress_shown(window), "the live bar is still shown");
	cr_expect_not(_fsv_live_is_running(window));
	cr_expect_eq(fsv_timeline_get_trace(timeline), whole);
	gtk_window_destroy(GTK_WINDOW(window));
	settle();
}
