/* SPDX-License-Identifier: MIT */
/*
 * fencescope-bench-viewer TRACE: the viewer's figures, headless (scripts/bench viewer).
 *
 *   load     fsv_trace_load with a progress callback, as the GTK app's worker thread runs it:
 *            wall time, events per second, peak RSS and the index's own size;
 *   cancel   a second load cancelled through its GCancellable after CANCEL_AFTER seconds:
 *            how long the worker takes to return once cancelled;
 *   redraw   fsv_render_draw at 1920x1080 on a cairo image surface, the whole trace and
 *            100 ms, 1 ms and 10 µs windows at several positions, each drawn several times:
 *            p50 / p99 / max per zoom, against the 16 ms frame budget; also with the fence
 *            rows expanded and with a selected signal's arrows.
 *
 * Prints a table on stdout; exits 1 if the trace cannot be loaded.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cairo.h>
#include <glib.h>

#include "fsv-render.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define WIDTH        1920
#define HEIGHT       1080
#define POSITIONS    12
#define REPEATS      3
#define CANCEL_AFTER 1.0

static double
now(void)
{
	return (double) g_get_monotonic_time() / 1e6;
}

static double
peak_rss_mb(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double) u.ru_maxrss / 1024.0;
}

typedef struct {
	guint64 events;
	guint calls;
} Progress;

static void
on_progress(guint64 events, double fraction, gpointer data)
{
	Progress *p = data;

	(void) fraction;
	p->events = events;
	p->calls++;
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static double
pct(GArray *a, double q)
{
	guint i = (guint) (q * a->len + 0.999999);

	return g_array_index(a, double, MIN(MAX(i, 1), a->len) - 1);
}

/* Draws WINDOW-ns views at POSITIONS positions (whole trace when WINDOW is 0), REPEATS times
 * each; prints p50, p99 and max in ms. */
static void
bench_zoom(FsvTrace *trace, FsvView *view, cairo_t *cr, const char *name, guint64 window,
	   const FsvRenderOptions *opt)
{
	g_autoptr(GArray) times = g_array_new(FALSE, FALSE, sizeof(double));
	guint64 b = fsv_trace_get_begin_ns(trace), e = fsv_trace_get_end_ns(trace);
	guint64 items = 0, buckets = 0;
	guint positions = window == 0 ? 1 : POSITIONS;

	for (guint pos = 0; pos < positions; pos++) {
		guint64 start = b;

		if (window == 0) {
			fsv_view_fit(view);
		} else {
			if (e - b > window)
				start = b + (guint64) ((double) (e - b - window) * (pos + 0.5) /
						       positions);
			fsv_view_set_range(view, start, start + window);
		}
		for (int r = 0; r < REPEATS; r++) {
			FsvRenderStats st;
			double t0 = now(), dt;

			fsv_render_draw_with_stats(cr, trace, view, opt, &st);
			cairo_surface_flush(cairo_get_target(cr));
			dt = (now() - t0) * 1e3;
			g_array_append_val(times, dt);
			items += st.items_drawn;
			buckets += st.buckets_drawn;
		}
	}
	qsort(times->data, times->len, sizeof(double), compare_double);
	printf("  %-28s %6u %8.2f %8.2f %8.2f %10" PRIu64 " %10" PRIu64 "  %s\n", name, times->len,
	       pct(times, 0.50), pct(times, 0.99), g_array_index(times, double, times->len - 1),
	       items / times->len, buckets / times->len,
	       g_array_index(times, double, times->len - 1) < 16.0 ? "ok" : "OVER 16 ms");
}

typedef struct {
	const char *path;
	GCancellable *cancellable;
	double returned_at;
	GError *error;
	FsvTrace *trace;
} CancelRun;

static gpointer
cancel_worker(gpointer data)
{
	CancelRun *c = data;

	c->trace = fsv_trace_load(c->path, NULL, NULL, c->cancellable, &c->error);
	c->returned_at = now();
	return NULL;
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvView) view = NULL;
	Progress progress = {0};
	cairo_surface_t *surface;
	cairo_t *cr;
	FsvRenderOptions opt;
	double t0, load_s, rss_before = peak_rss_mb();
	guint64 events;

	if (argc != 2) {
		fprintf(stderr, "usage: fencescope-bench-viewer TRACE\n");
		return 2;
	}
	t0 = now();
	trace = fsv_trace_load(argv[1], on_progress, &progress, NULL, &error);
	load_s = now() - t0;
	if (!trace) {
		fprintf(stderr, "fencescope-bench-viewer: %s\n", error->message);
		return 1;
	}
	events = fsv_trace_get_ingest_stats(trace)->events;
	printf("viewer benchmark: %s\n", argv[1]);
	printf("  load: %" PRIu64 " events in %.2f s (%.2f M events/s), %u progress calls\n",
	       events, load_s, events / load_s / 1e6, progress.calls);
	printf("  index: %u rows, %u ops, %u packets, %u markers; %.0f MB of index; peak RSS "
	       "%.0f MB (%.0f MB before loading)\n",
	       fsv_trace_get_row_count(trace), fsv_trace_get_op_count(trace),
	       fsv_trace_get_packet_count(trace), fsv_trace_get_marker_count(trace),
	       _fsv_trace_get_memory_size(trace) / 1e6, peak_rss_mb(), rss_before);

	/* Cancellation: a worker thread, as in the app. */
	{
		CancelRun c = {argv[1], g_cancellable_new(), 0, NULL, NULL};
		GThread *thread = g_thread_new("load", cancel_worker, &c);
		double cancelled_at;

		g_usleep((gulong) (CANCEL_AFTER * 1e6));
		cancelled_at = now();
		g_cancellable_cancel(c.cancellable);
		g_thread_join(thread);
		if (c.trace)
			printf("  cancel: the load finished before the cancel at %.1f s\n",
			       CANCEL_AFTER);
		else
			printf(
			    "  cancel: cancelled after %.1f s, the worker returned %.0f ms later "
			    "(%s)\n",
			    CANCEL_AFTER, (c.returned_at - cancelled_at) * 1e3,
			    c.error ? c.error->message : "?");
		if (c.trace)
			fsv_trace_unref(c.trace);
		g_clear_error(&c.error);
		g_object_unref(c.cancellable);
	}

	view = fsv_view_new(trace);
	fsv_view_set_size(view, WIDTH, HEIGHT);
	surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
	cr = cairo_create(surface);
	fsv_render_options_init(&opt);
	/* The first draw loads fonts; not a redraw. */
	fsv_render_draw(cr, trace, view, &opt);

	printf("\n  redraw at %dx%d, image surface (ms)\n", WIDTH, HEIGHT);
	printf("  %-28s %6s %8s %8s %8s %10s %10s\n", "window", "draws", "p50", "p99", "max",
	       "items", "buckets");
	bench_zoom(trace, view, cr, "whole trace", 0, &opt);
	bench_zoom(trace, view, cr, "100 ms", 100000000, &opt);
	bench_zoom(trace, view, cr, "1 ms", 1000000, &opt);
	bench_zoom(trace, view, cr, "10 us", 10000, &opt);
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_FENCE_GROUP)
			fsv_view_set_row_expanded(view, r, true);
	bench_zoom(trace, view, cr, "whole trace, fence rows", 0, &opt);
	bench_zoom(trace, view, cr, "1 ms, fence rows", 1000000, &opt);
	{
		/* The signal that released the most waits, selected. */
		guint32 best = FSV_INDEX_NONE;
		guint most = 0;

		for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
			guint n = 0;

			fsv_trace_get_op_edges(trace, i, &n);
			if (fsv_trace_get_op(trace, i)->kind == FSA_OP_SIGNAL && n > most) {
				most = n;
				best = i;
			}
		}
		if (best != FSV_INDEX_NONE) {
			opt.selection =
			    (FsvItem){FSV_ITEM_OP, best, fsv_trace_get_op(trace, best)->row};
			bench_zoom(trace, view, cr, "whole trace, selection", 0, &opt);
			bench_zoom(trace, view, cr, "1 ms, selection", 1000000, &opt);
		}
	}
	{
		FsvRenderOptions full = opt;

		full.no_lod = true;
		full.selection.kind = FSV_ITEM_NONE;
		printf("  without level of detail (for comparison):\n");
		bench_zoom(trace, view, cr, "whole trace, no LOD", 0, &full);
	}
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	printf("\n  peak RSS at the end: %.0f MB\n", peak_rss_mb());
	return 0;
}
