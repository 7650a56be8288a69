/* SPDX-License-Identifier: MIT */
/*
 * viewer/core counter tracks (issue 15 §4, suite unit): known answers on an exact synthetic
 * timeline fed to the analyzer model — an engine's busy fraction over any window equals the sum
 * of its packets' overlaps with the window; a queue's depth equals a brute-force count of
 * submitted minus completed operations at every change point; at every zoom each pixel column's
 * min/max equals the brute-force min/max over the column's span (depth and a fence's
 * CurrentValue); a one-nanosecond spike survives at the widest zoom, in the data and in the
 * pixels. And on six traces of traces/: each progress fence's CurrentValue steps are the
 * progress values its queue's command buffers wrote as they completed (HPF-02), through the
 * whole trace.
 *
 * Times are T0 + n ns; the generator is seeded, so every run checks the same timeline.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cairo.h>
#include <criterion/criterion.h>
#include <glib.h>

#include "fencescope-tp-enums.h"
#include "fsv-counters.h"
#include "fsv-render.h"
#include "fst-timeline.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define PID   UINT64_C(1)
#define DEV   UINT64_C(0x8001000000000001)
#define CTX   UINT64_C(0x8002000000000002)
#define KQ    UINT64_C(0x8003000000000005)
#define FENCE UINT64_C(0x8004000000000020)
#define FH    UINT64_C(0x20)
#define T0    UINT64_C(1000000000)
#define US(n) (T0 + (uint64_t) (n) *1000)

#define N_SIGNALS 400
#define N_PACKETS 300
/* The spikes: a signal in and out of the queue in 1 ns, a packet 1 ns long, both where
 * nothing else happens. */
#define SPIKE_OP     (US(950) + 17)
#define SPIKE_PACKET (US(970) + 3)
#define END          US(1000)

typedef struct {
	guint64 begin, end; /* end FSV_TIME_NONE: never completed */
} Span;

static GArray *events;
static GArray *ops;     /* Span: each signal's queued → executed */
static GArray *packets; /* Span: each packet's start → end */
static FsvTrace *trace;
static FsvView *view;
static guint32 engine_row, busy_row, queue_row, depth_row, fence_row;

/* The events of the timeline being written (fst-timeline.h). */
#define ev(...) fst_event_add(events, __VA_ARGS__)

static void
signal_op(guint64 value, guint64 queued, guint64 executed)
{
	Span s = {queued, executed};

	ev("fence_signal_queued", queued, "process_id", PID, "hwqueue_handle", KQ, "fence_handle",
	   FH, "fence_value", value, "progress_value", value, NULL);
	if (executed != FSV_TIME_NONE)
		ev("km_fence_signal_executed", executed, "process_id", PID, "hwqueue_handle", KQ,
		   "fence_handle", FH, "fence_value", value, NULL);
	g_array_append_val(ops, s);
}

static void
packet(guint64 id, guint64 start, guint64 end)
{
	Span s = {start, end};

	ev("packet_queued", start, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ, "packet_id", id, "fence_id", 1000 + id, NULL);
	ev("packet_start", start, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ, "packet_id", id, "progress_value", id, "gpu_ts", start, NULL);
	ev("packet_end", end, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0), "hwqueue_handle",
	   KQ, "packet_id", id, "progress_value", id, "gpu_ts", end, "status",
	   (uint64_t) FSTP_PACKET_STATUS_COMPLETED, NULL);
	g_array_append_val(packets, s);
}

static guint32
find_row(FsvRowKind kind)
{
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == kind)
			return r;
	cr_assert_fail("no row of kind %d", kind);
	return FSV_INDEX_NONE;
}

static void
build(void)
{
	g_autoptr(GRand) rand = g_rand_new_with_seed(15);
	guint64 t;

	events = fst_events_new();
	ops = g_array_new(FALSE, FALSE, sizeof(Span));
	packets = g_array_new(FALSE, FALSE, sizeof(Span));
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(5), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	ev("adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count", UINT64_C(1),
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("clock_correlation", T0, "adapter_id", UINT64_C(0), "cpu_ts_ns", T0, "gpu_ts", T0,
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("process_create", T0, "process_id", PID, NULL);
	ev("device_create", T0, "process_id", PID, "adapter_id", UINT64_C(0), "device_handle", DEV,
	   NULL);
	ev("context_create", T0, "process_id", PID, "device_handle", DEV, "context_handle", CTX,
	   "engine_id", UINT64_C(0), NULL);
	ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX, "hwqueue_handle", KQ,
	   "engine_id", UINT64_C(0), "submission_mode", (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE,
	   NULL);
	ev("fence_create", T0, "process_id", PID, "adapter_id", UINT64_C(0), "fence_global_handle",
	   FENCE, "fence_handle", FH, "initial_value", UINT64_C(0), NULL);
	/* Signals queued in [10, 900) µs, each in the queue 0 to 40 µs (a tenth leave at once:
	 * in and out at the same time; two never complete), several at the same nanosecond. */
	for (guint i = 0; i < N_SIGNALS; i++) {
		guint64 queued = US(10) + (guint64) g_rand_int_range(rand, 0, 890000);
		guint64 stay = g_rand_int_range(rand, 0, 10) == 0
				   ? 0
				   : (guint64) g_rand_int_range(rand, 1, 40000);

		if (i % 7 == 3 && i > 0)
			queued = g_array_index(ops, Span, i - 1).begin; /* same instant */
		signal_op(i + 1, queued, i == 100 || i == 200 ? FSV_TIME_NONE : queued + stay);
	}
	signal_op(N_SIGNALS + 1, SPIKE_OP, SPIKE_OP + 1);
	/* Packets one after the other in [10, 900) µs: gaps of 0 (touching) to 3 µs. */
	t = US(10);
	for (guint i = 0; i < N_PACKETS; i++) {
		guint64 gap = g_rand_int_range(rand, 0, 3) == 0
				  ? 0
				  : (guint64) g_rand_int_range(rand, 1, 3000);
		guint64 len = (guint64) g_rand_int_range(rand, 1, 2900);

		packet(i + 1, t + gap, t + gap + len);
		t += gap + len;
	}
	cr_assert_lt(t, US(950));
	packet(N_PACKETS + 1, SPIKE_PACKET, SPIKE_PACKET + 1);
	ev("clock_correlation", END, "adapter_id", UINT64_C(0), "cpu_ts_ns", END, "gpu_ts", END,
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	fst_events_sort(events, 0); /* stable: same-time events keep their order */

	trace = fst_trace_from_events("counters", events);
	cr_assert_null(fsv_trace_get_partial_error(trace), "%s",
		       fsv_trace_get_partial_error(trace));
	cr_assert_eq(fsv_trace_get_op_count(trace), ops->len);
	cr_assert_eq(fsv_trace_get_packet_count(trace), packets->len);
	engine_row = find_row(FSV_ROW_ENGINE);
	busy_row = find_row(FSV_ROW_BUSY);
	queue_row = find_row(FSV_ROW_QUEUE);
	depth_row = find_row(FSV_ROW_DEPTH);
	fence_row = find_row(FSV_ROW_FENCE);
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 600);
	fsv_view_set_show_counter(view, FSV_COUNTER_BUSY, true);
	fsv_view_set_show_counter(view, FSV_COUNTER_DEPTH, true);
}

static void
teardown(void)
{
	fsv_view_free(view);
	fsv_trace_unref(trace);
	g_array_unref(events);
	g_array_unref(ops);
	g_array_unref(packets);
}

TestSuite(counters, .init = build, .fini = teardown);

/* ---- Brute force ------------------------------------------------------------------------ */

static guint64
brute_busy(guint64 a, guint64 b)
{
	guint64 sum = 0;

	for (guint i = 0; i < packets->len; i++) {
		const Span *p = &g_array_index(packets, Span, i);
		guint64 lo = MAX(a, p->begin), hi = MIN(b, p->end);

		if (hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* Submitted by T minus completed by T: the ops with begin ≤ t < end. */
static guint32
brute_depth(guint64 t)
{
	guint32 n = 0;

	for (guint i = 0; i < ops->len; i++) {
		const Span *o = &g_array_index(ops, Span, i);

		if (o->begin <= t && (o->end == FSV_TIME_NONE || t < o->end))
			n++;
	}
	return n;
}

/* Min and max of the depth over [a, b): at a and at every submission or completion inside. */
static void
brute_depth_range(guint64 a, guint64 b, guint32 *min, guint32 *max)
{
	*min = *max = brute_depth(a);
	for (guint i = 0; i < ops->len; i++) {
		const Span *o = &g_array_index(ops, Span, i);
		guint64 at[2] = {o->begin, o->end};

		for (int k = 0; k < 2; k++)
			if (at[k] != FSV_TIME_NONE && at[k] > a && at[k] < b) {
				guint32 d = brute_depth(at[k]);

				*min = MIN(*min, d);
				*max = MAX(*max, d);
			}
	}
}

static bool
brute_fence_range(guint64 a, guint64 b, guint64 *min, guint64 *max)
{
	guint n = 0;
	const FsvFenceStep *s = fsv_trace_get_fence_steps(trace, fence_row, &n);
	bool any = false;

	for (guint i = 0; i < n; i++) {
		/* In force at a (the last step at or before it), or inside (a, b). */
		bool in_force = s[i].ns <= a && (i + 1 == n || s[i + 1].ns > a);

		if (!in_force && !(s[i].ns > a && s[i].ns < b))
			continue;
		*min = any ? MIN(*min, s[i].value) : s[i].value;
		*max = any ? MAX(*max, s[i].value) : s[i].value;
		any = true;
	}
	return any;
}

/* ---- Tests ------------------------------------------------------------------------------ */

Test(counters, rows_exist_per_engine_and_queue_and_are_hidden_by_kind)
{
	int height = fsv_view_get_content_height(view);
	double y, h;

	cr_assert_eq(fsv_trace_get_row(trace, busy_row)->parent, engine_row);
	cr_assert_eq(depth_row, queue_row + 1, "the depth row follows its queue");
	cr_assert(fsv_view_get_row_geometry(view, busy_row, &y, &h));
	cr_assert(fsv_view_get_row_geometry(view, depth_row, &y, &h));
	fsv_view_set_show_counter(view, FSV_COUNTER_DEPTH, false);
	cr_assert_not(fsv_view_get_row_geometry(view, depth_row, &y, &h));
	cr_assert(fsv_view_get_row_geometry(view, busy_row, &y, &h));
	cr_assert_eq(fsv_view_get_content_height(view), height - (int) h);
	fsv_view_set_show_counter(view, FSV_COUNTER_BUSY, false);
	cr_assert_not(fsv_view_get_row_geometry(view, busy_row, &y, &h));
	cr_assert_not(fsv_view_get_show_counter(view, FSV_COUNTER_BUSY));
}

Test(counters, busy_of_a_window_is_the_sum_of_packet_overlaps)
{
	g_autoptr(GRand) rand = g_rand_new_with_seed(4);

	cr_assert_eq(fsv_counters_busy_ns(trace, busy_row, T0, END), brute_busy(T0, END));
	cr_assert_eq(fsv_counters_busy_ns(trace, engine_row, T0, END), brute_busy(T0, END),
		     "the engine row answers for its busy row");
	for (int i = 0; i < 3000; i++) {
		guint64 a = T0 + (guint64) g_rand_int_range(rand, 0, 1000000);
		guint64 len = i % 3 == 0 ? (guint64) g_rand_int_range(rand, 1, 50)
					 : (guint64) g_rand_int_range(rand, 1, 200000);

		cr_assert_eq(fsv_counters_busy_ns(trace, busy_row, a, a + len),
			     brute_busy(a, a + len), "window [%" PRIu64 ", +%" PRIu64 ")", a - T0,
			     len);
	}
	/* Every packet boundary, ±1 ns. */
	for (guint i = 0; i < packets->len; i++) {
		const Span *p = &g_array_index(packets, Span, i);

		cr_assert_eq(fsv_counters_busy_ns(trace, busy_row, p->begin - 1, p->end + 1),
			     brute_busy(p->begin - 1, p->end + 1));
		cr_assert_eq(fsv_counters_busy_ns(trace, busy_row, p->begin + 1, p->end),
			     brute_busy(p->begin + 1, p->end));
	}
}

Test(counters, depth_is_a_brute_force_count_at_every_change_point)
{
	cr_assert_not(_fsv_trace_get_counters(trace)->rows[depth_row].is_wide,
		      "a millisecond of points is stored compact");
	guint n = fsv_counters_get_depth_count(trace, depth_row);
	guint32 max = 0;

	cr_assert_gt(n, N_SIGNALS, "a point per distinct submission and completion time");
	for (guint i = 0; i < n; i++) {
		guint64 ns;
		guint32 depth;

		fsv_counters_get_depth_point(trace, depth_row, i, &ns, &depth);
		cr_assert_eq(depth, brute_depth(ns), "point %u at +%" PRIu64, i, ns - T0);
		cr_assert_eq(fsv_counters_depth_at(trace, depth_row, ns), depth);
		cr_assert_eq(fsv_counters_depth_at(trace, queue_row, ns - 1), brute_depth(ns - 1));
		if (i > 0) {
			guint64 prev_ns;
			guint32 prev;

			fsv_counters_get_depth_point(trace, depth_row, i - 1, &prev_ns, &prev);
			cr_assert_lt(prev_ns, ns);
			cr_assert_neq(prev, depth, "a change point changes the depth");
		}
		max = MAX(max, depth);
	}
	/* Every submission and completion, also those that changed nothing. */
	for (guint i = 0; i < ops->len; i++) {
		const Span *o = &g_array_index(ops, Span, i);

		cr_assert_eq(fsv_counters_depth_at(trace, depth_row, o->begin),
			     brute_depth(o->begin));
		if (o->end != FSV_TIME_NONE)
			cr_assert_eq(fsv_counters_depth_at(trace, depth_row, o->end),
				     brute_depth(o->end));
	}
	cr_assert_eq(fsv_counters_get_depth_max(trace, depth_row), max);
	cr_assert_eq(fsv_counters_depth_at(trace, depth_row, END), 2, "two never completed");
	cr_assert_eq(fsv_counters_depth_at(trace, depth_row, T0), 0);
}

/* At several zooms and positions, each pixel column's min/max is the brute force's over the
 * column's span, for the depth and the fence's CurrentValue, and its busy time the sum of the
 * packets' overlaps: both through the single-span queries and through the column sweeps the
 * drawing uses. */
Test(counters, every_pixel_column_holds_the_true_min_and_max_at_every_zoom)
{
	static const double spans_ns[] = {4e9, 1.2e6, 1e5, 7e3, 900, 100};
	g_autoptr(GRand) rand = g_rand_new_with_seed(9);
	int lw = fsv_view_get_label_width(view), w = fsv_view_get_width(view);
	guint n = (guint) (w - lw), columns = 0, spiky = 0;
	g_autofree guint64 *begin = g_new(guint64, n), *end = g_new(guint64, n);
	g_autofree guint64 *busy = g_new(guint64, n), *fmin = g_new(guint64, n);
	g_autofree guint64 *fmax = g_new(guint64, n);
	g_autofree guint32 *dmin = g_new(guint32, n), *dmax = g_new(guint32, n);
	g_autofree bool *has = g_new(bool, n);

	for (guint z = 0; z < G_N_ELEMENTS(spans_ns); z++) {
		for (int pos = 0; pos < 3; pos++) {
			guint64 first = z == 0
					    ? T0 - 10000
					    : US(10) + (guint64) g_rand_int_range(rand, 0, 880000);

			fsv_view_set_range(view, first, first + (guint64) spans_ns[z]);
			for (guint i = 0; i < n; i++)
				fsv_view_get_column_span(view, lw + i, &begin[i], &end[i]);
			fsv_counters_busy_columns(trace, busy_row, begin, end, n, busy);
			fsv_counters_depth_columns(trace, depth_row, begin, end, n, dmin, dmax);
			fsv_counters_fence_columns(trace, fence_row, begin, end, n, fmin, fmax,
						   has);
			for (guint i = 0; i < n; i++) {
				guint64 a = begin[i], b = end[i], smin = 0, smax = 0, bmin = 0,
					bmax = 0;
				guint32 one_min, one_max, emin, emax;
				bool one_has, brute_has;

				cr_assert_gt(b, a);
				brute_depth_range(a, b, &emin, &emax);
				fsv_counters_depth_range(trace, depth_row, a, b, &one_min,
							 &one_max);
				cr_assert_eq(one_min, emin, "zoom %u column %u: min %u, brute %u",
					     z, i, one_min, emin);
				cr_assert_eq(one_max, emax, "zoom %u column %u: max %u, brute %u",
					     z, i, one_max, emax);
				cr_assert_eq(dmin[i], emin, "sweep, zoom %u column %u", z, i);
				cr_assert_eq(dmax[i], emax, "sweep, zoom %u column %u", z, i);
				cr_assert_eq(busy[i], brute_busy(a, b), "sweep, zoom %u column %u",
					     z, i);
				one_has =
				    fsv_counters_fence_range(trace, fence_row, a, b, &smin, &smax);
				brute_has = brute_fence_range(a, b, &bmin, &bmax);
				cr_assert_eq(one_has, brute_has);
				cr_assert_eq(has[i], brute_has);
				if (brute_has) {
					cr_assert_eq(smin, bmin);
					cr_assert_eq(smax, bmax);
					cr_assert_eq(fmin[i], bmin, "sweep, zoom %u column %u", z,
						     i);
					cr_assert_eq(fmax[i], bmax);
				}
				columns++;
				spiky += emin != emax;
			}
		}
	}
	cr_assert_gt(spiky, 100, "columns where the depth changes were checked (%u)", spiky);
	cr_assert_gt(columns, 10000);
}

/* The darkest pixel of column X between rows Y0 and Y1 of the image: its topmost y drawn in
 * a colour far from the background, -1 when none. */
static int
top_of_ink(cairo_surface_t *surface, int x, int y0, int y1)
{
	const unsigned char *data = cairo_image_surface_get_data(surface);
	int stride = cairo_image_surface_get_stride(surface);

	for (int y = y0; y < y1; y++) {
		guint32 px = *(const guint32 *) (data + y * stride + x * 4);
		int r = (px >> 16) & 0xff, g = (px >> 8) & 0xff, b = px & 0xff;

		if (r + g + b < 3 * 200)
			return y;
	}
	return -1;
}

/* The search the fence rows' columns and value labels use (through the row's step blocks, one
 * time per 16 steps) answers as a scan of the steps does, from every start, at every step's time
 * and either side of it. */
Test(counters, fence_step_search_through_blocks_is_the_scan)
{
	guint n = 0;
	const FsvFenceStep *s = fsv_trace_get_fence_steps(trace, fence_row, &n);
	guint checked = 0;

	cr_assert_gt(n, 4 * FSV_STEP_BLOCK, "%u steps: several blocks", n);
	for (guint from = 0; from <= n; from += from < 40 ? 1 : 7) {
		for (guint k = 0; k < n; k += k < 40 ? 1 : 5) {
			for (gint d = -1; d <= 1; d++) {
				guint64 ns = s[k].ns + (guint64) d;
				guint want = from;

				while (want < n && s[want].ns <= ns)
					want++;
				cr_assert_eq(
				    fsv_counters_fence_step_after(trace, fence_row, from, ns), want,
				    "from %u, ns of step %u %+d", from, k, d);
				checked++;
			}
		}
	}
	cr_assert_eq(fsv_counters_fence_step_after(trace, fence_row, n + 3, 0), n);
	cr_assert_gt(checked, 10000);
}

/* A sweep searches each column's end from where the previous column's width would put it
 * (issue 15 §1, fsv-counters.c gallop_upper_from): columns of uneven widths, from one step to
 * several blocks of steps, wide after narrow and narrow after wide (the end before the guess),
 * each ending at, just before or just after a step, hold the brute force's min and max. */
Test(counters, fence_columns_of_uneven_widths_hold_the_true_min_and_max)
{
	guint n_steps = 0;
	const FsvFenceStep *s = fsv_trace_get_fence_steps(trace, fence_row, &n_steps);
	g_autoptr(GRand) rand = g_rand_new_with_seed(15);
	guint checked = 0;

	cr_assert_gt(n_steps, 8 * FSV_STEP_BLOCK, "%u steps: columns several blocks wide", n_steps);
	/* Sweeps of every mix: mostly wide, mostly narrow, even. */
	for (guint sweep = 0; sweep < 300; sweep++) {
		g_autoptr(GArray) begin = g_array_new(FALSE, FALSE, sizeof(guint64));
		g_autoptr(GArray) end = g_array_new(FALSE, FALSE, sizeof(guint64));
		g_autofree guint64 *fmin = NULL, *fmax = NULL;
		g_autofree bool *has = NULL;
		double wide = (sweep % 3 + 1) / 4.0;
		guint k = (guint) g_rand_int_range(rand, 0, FSV_STEP_BLOCK);
		guint64 at = s[k].ns - 1;

		while (k + 1 < n_steps) {
			/* Wide (1 to 6 blocks) or narrow (1 to 3 steps). */
			guint width =
			    g_rand_double(rand) < wide
				? (guint) g_rand_int_range(rand, FSV_STEP_BLOCK, 6 * FSV_STEP_BLOCK)
				: (guint) g_rand_int_range(rand, 1, 4);
			guint64 e;

			k = MIN(k + width, n_steps - 1);
			e = s[k].ns + (guint64) g_rand_int_range(rand, -1, 2);
			if (e <= at)
				continue;
			g_array_append_val(begin, at);
			g_array_append_val(end, e);
			at = e;
		}
		fmin = g_new(guint64, begin->len);
		fmax = g_new(guint64, begin->len);
		has = g_new(bool, begin->len);
		fsv_counters_fence_columns(trace, fence_row, (const guint64 *) begin->data,
					   (const guint64 *) end->data, begin->len, fmin, fmax,
					   has);
		for (guint i = 0; i < begin->len; i++) {
			guint64 bmin = 0, bmax = 0;
			bool brute_has =
			    brute_fence_range(g_array_index(begin, guint64, i),
					      g_array_index(end, guint64, i), &bmin, &bmax);

			cr_assert_eq(has[i], brute_has, "sweep %u column %u", sweep, i);
			if (brute_has) {
				cr_assert_eq(fmin[i], bmin,
					     "sweep %u column %u: min %" PRIu64 ", brute %" PRIu64,
					     sweep, i, fmin[i], bmin);
				cr_assert_eq(fmax[i], bmax,
					     "sweep %u column %u: max %" PRIu64 ", brute %" PRIu64,
					     sweep, i, fmax[i], bmax);
				checked++;
			}
		}
	}
	cr_assert_gt(checked, 3000, "%u columns checked", checked);
}

/* Whether every page of [DATA, DATA + SIZE) is mapped in this process (/proc/self/pagemap:
 * bit 63 of a page's entry). */
static bool
all_pages_present(const void *data, gsize size)
{
	gsize page = (gsize) sysconf(_SC_PAGESIZE);
	guintptr first = (guintptr) data / page, last = ((guintptr) data + size - 1) / page;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	bool all = fd >= 0;

	for (guintptr p = first; all && p <= last; p++) {
		guint64 entry = 0;

		all = pread(fd, &entry, sizeof(entry), (off_t) (p * sizeof(entry))) ==
			  (ssize_t) sizeof(entry) &&
		      (entry >> 63) != 0;
	}
	if (fd >= 0)
		close(fd);
	return all;
}

/* Issue 15 §1: at the whole-trace zoom the fence rows' sweep reads every page of their steps;
 * on a mapped trace those pages are mapped ahead (fsv_view_new starts it in a thread), so the
 * first draw with the fence rows unfolded does not take a page fault for each. */
Test(counters, a_mapped_trace_has_its_fence_steps_mapped_ahead)
{
	guint n = 0;
	const FsvFenceStep *s = fsv_trace_get_fence_steps(trace, fence_row, &n);

	if (!g_getenv("FSV_TRACE_ROUND_TRIP"))
		cr_skip_test("a built trace's arrays are its own memory");
	cr_assert_gt(n, 0);
	_fsv_counters_populate(trace);
	cr_assert(all_pages_present(s, n * sizeof(*s)), "%u steps mapped", n);
}

Test(counters, a_one_nanosecond_spike_survives_at_the_widest_zoom)
{
	cairo_surface_t *surface;
	cairo_t *cr;
	FsvRenderOptions options;
	double x, y, h, dy, dh;
	guint64 a, b;
	guint32 dmin, dmax;

	/* Wider than the trace can be shown: the view clamps to its widest zoom. */
	fsv_view_set_range(view, T0, T0 + UINT64_C(1000000000000));
	cr_assert_gt(fsv_view_get_ns_per_px(view), 1000.0);
	x = floor(fsv_view_time_to_x(view, SPIKE_OP));
	fsv_view_get_column_span(view, x, &a, &b);
	cr_assert(a <= SPIKE_OP && SPIKE_OP < b);
	fsv_counters_depth_range(trace, depth_row, a, b, &dmin, &dmax);
	cr_assert_eq(dmax, brute_depth(SPIKE_OP), "the 1 ns op counts in its column");
	cr_assert_eq(dmax, dmin + 1);
	x = floor(fsv_view_time_to_x(view, SPIKE_PACKET));
	fsv_view_get_column_span(view, x, &a, &b);
	cr_assert_eq(fsv_counters_busy_ns(trace, busy_row, a, b), 1);

	/* And in the pixels: the depth column of the spike is inked above its neighbours', the
	 * busy column of the 1 ns packet is inked at all. */
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, fsv_view_get_width(view),
					     fsv_view_get_height(view));
	cr = cairo_create(surface);
	fsv_render_options_init(&options);
	options.show_legend = false;
	options.show_ruler_grid = false;
	fsv_render_draw(cr, trace, view, &options);
	cairo_surface_flush(surface);
	cr_assert(fsv_view_get_row_geometry(view, depth_row, &dy, &dh));
	x = floor(fsv_view_time_to_x(view, SPIKE_OP));
	cr_assert_lt(top_of_ink(surface, (int) x, (int) dy, (int) (dy + dh)),
		     top_of_ink(surface, (int) x + 3, (int) dy, (int) (dy + dh)),
		     "the spike's column rises above the column 3 px right");
	cr_assert(fsv_view_get_row_geometry(view, busy_row, &y, &h));
	x = floor(fsv_view_time_to_x(view, SPIKE_PACKET));
	cr_assert_geq(top_of_ink(surface, (int) x, (int) y, (int) (y + h)), 0,
		      "the 1 ns packet's busy column is drawn");
	cr_assert_lt(top_of_ink(surface, (int) x + 3, (int) y, (int) (y + h)), 0,
		     "idle columns are not");
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
}

Test(counters, hit_testing_and_details_give_the_value_at_the_pointer)
{
	const Span *p = &g_array_index(packets, Span, 10);
	g_autofree char *text = NULL, *expected = NULL, *span = NULL, *title = NULL;
	g_autofree char *depth_title = NULL, *want_title = NULL, *want_depth = NULL;
	g_auto(GStrv) fields = NULL;
	double y, h, x;
	FsvItem hit;
	guint64 a, b, ns = 0;
	guint32 depth = 0;
	guint k;

	/* Busy: inside a packet, its merged interval; the tooltip's fraction is the column's. */
	fsv_view_set_range(view, p->begin - 1000, p->end + 1000);
	cr_assert(fsv_view_get_row_geometry(view, busy_row, &y, &h));
	x = fsv_view_time_to_x(view, p->begin + (p->end - p->begin) / 2);
	cr_assert(fsv_view_hit_test(view, x, y + h / 2, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_COUNTER);
	cr_assert_eq(hit.row, busy_row);
	cr_assert_eq(hit.index % 2, 1, "inside a busy interval");
	cr_assert(fsv_counters_get_item_span(trace, &hit, &a, &b));
	cr_assert(a <= p->begin && b >= p->end);
	title = fsv_trace_dup_item_title(trace, &hit);
	cr_assert_str_eq(title, "Engine busy");
	x = floor(fsv_view_time_to_x(view, p->begin));
	fsv_view_get_column_span(view, x, &a, &b);
	span = fsv_format_duration(b - a);
	expected = g_strdup_printf("busy %.1f %% of %s",
				   100.0 * (double) brute_busy(a, b) / (double) (b - a), span);
	text = fsv_view_dup_counter_text(view, busy_row, x);
	cr_assert_str_eq(text, expected);

	/* Depth: the change point in force, its depth in the title and details. */
	for (k = 0; k < fsv_counters_get_depth_count(trace, depth_row); k++) {
		fsv_counters_get_depth_point(trace, depth_row, k, &ns, &depth);
		if (depth >= 3)
			break;
	}
	cr_assert_geq(depth, 3);
	fsv_view_set_range(view, ns - 500, ns + 500);
	cr_assert(fsv_view_get_row_geometry(view, depth_row, &y, &h));
	cr_assert(fsv_view_hit_test(view, fsv_view_time_to_x(view, ns) + 0.5, y + h / 2, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_COUNTER);
	cr_assert_eq(hit.index, k);
	depth_title = fsv_trace_dup_item_title(trace, &hit);
	want_title = g_strdup_printf("Queue depth %u", depth);
	cr_assert_str_eq(depth_title, want_title);
	fields = fsv_trace_describe_item(trace, &hit);
	cr_assert_str_eq(fields[0], "Queue");
	cr_assert_str_eq(fields[2], "Depth");
	want_depth = g_strdup_printf("%u (submitted − completed)", depth);
	cr_assert_str_eq(fields[3], want_depth);

	/* The row labels: what each counter row sums up. */
	{
		FsvItem label = {FSV_ITEM_ROW, depth_row, depth_row};
		g_auto(GStrv) row_fields = fsv_trace_describe_item(trace, &label);
		g_autofree char *want_max =
		    g_strdup_printf("%u", fsv_counters_get_depth_max(trace, depth_row));
		bool has_max = false;

		for (guint i = 0; row_fields[i] && row_fields[i + 1]; i += 2)
			if (strcmp(row_fields[i], "Largest depth") == 0)
				has_max = strcmp(row_fields[i + 1], want_max) == 0;
		cr_assert(has_max);
	}
}

Test(counters, range_statistics_give_average_busy_and_max_depth)
{
	guint64 a = US(200), b = US(420);
	guint32 emin, emax;
	FsvRangeStats stats;
	bool has_engine = false, has_queue = false;

	brute_depth_range(a, b, &emin, &emax);
	fsv_trace_range_stats(trace, a, b, &stats);
	cr_assert_eq(stats.total.busy_ns, brute_busy(a, b));
	cr_assert_eq(stats.total.busy_engines, 1);
	cr_assert_eq(stats.total.depth_max, emax);
	for (guint i = 0; i < stats.rows->len; i++) {
		const FsvRowStats *r = &g_array_index(stats.rows, FsvRowStats, i);

		if (r->row == engine_row) {
			cr_assert_eq(r->busy_ns, brute_busy(a, b));
			has_engine = true;
		}
		if (r->row == queue_row) {
			cr_assert_eq(r->depth_max, emax);
			has_queue = true;
		}
	}
	cr_assert(has_engine && has_queue);
	fsv_range_stats_clear(&stats);
}

/* Pixels of exactly COLOR in the legend's strip (a strip of its own under the timeline since
 * issue 15 §3), drawn for the view's rows. */
static guint
legend_pixels_of(FsvColor color)
{
	int w = fsv_view_get_width(view);
	int h = fsv_render_get_legend_height(trace, view, w);
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(surface);
	int stride = cairo_image_surface_get_stride(surface);
	const unsigned char *data;
	double rgb[3];
	guint32 want;
	guint n = 0;

	fsv_render_get_color(color, rgb);
	want = (guint32) lround(rgb[0] * 255) << 16 | (guint32) lround(rgb[1] * 255) << 8 |
	       (guint32) lround(rgb[2] * 255);
	fsv_render_draw_legend(cr, trace, view, w, NULL);
	cairo_surface_flush(surface);
	data = cairo_image_surface_get_data(surface);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			guint32 px = *(const guint32 *) (data + y * stride + x * 4);
			bool same = true;

			/* Within 1 of each component: cairo rounds through 16 bits. */
			for (int shift = 0; shift <= 16; shift += 8)
				same &= abs((int) ((px >> shift) & 0xff) -
					    (int) ((want >> shift) & 0xff)) <= 1;
			n += same;
		}
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	return n;
}

Test(counters, the_legend_names_counter_tracks_only_while_they_are_shown)
{
	cr_assert_gt(legend_pixels_of(FSV_COLOR_COUNTER_BUSY), 50);
	cr_assert_gt(legend_pixels_of(FSV_COLOR_COUNTER_DEPTH), 50);
	fsv_view_set_show_counter(view, FSV_COUNTER_DEPTH, false);
	cr_assert_eq(legend_pixels_of(FSV_COLOR_COUNTER_DEPTH), 0);
	cr_assert_gt(legend_pixels_of(FSV_COLOR_COUNTER_BUSY), 50);
	fsv_view_set_show_counter(view, FSV_COUNTER_BUSY, false);
	cr_assert_eq(legend_pixels_of(FSV_COLOR_COUNTER_BUSY), 0);
}

/* ---- A depth row stored wide ------------------------------------------------------------ */

/* Change points seconds apart (a block of 64 spans more than 2^32 ns): the row keeps 64-bit
 * times, and answers as a compact one does. */
static void
build_wide(void)
{
	events = fst_events_new();
	ops = g_array_new(FALSE, FALSE, sizeof(Span));
	packets = g_array_new(FALSE, FALSE, sizeof(Span));
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(5), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	ev("adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count", UINT64_C(1),
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("process_create", T0, "process_id", PID, NULL);
	ev("device_create", T0, "process_id", PID, "adapter_id", UINT64_C(0), "device_handle", DEV,
	   NULL);
	ev("context_create", T0, "process_id", PID, "device_handle", DEV, "context_handle", CTX,
	   "engine_id", UINT64_C(0), NULL);
	ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX, "hwqueue_handle", KQ,
	   "engine_id", UINT64_C(0), "submission_mode", (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE,
	   NULL);
	ev("fence_create", T0, "process_id", PID, "adapter_id", UINT64_C(0), "fence_global_handle",
	   FENCE, "fence_handle", FH, "initial_value", UINT64_C(0), NULL);
	/* 40 signals a second apart, each in the queue 1.5 s: the depth steps 1, 2, 1, 2, … */
	for (guint i = 0; i < 40; i++)
		signal_op(i + 1, T0 + (guint64) i * 1000000000 + 7,
			  T0 + (guint64) i * 1000000000 + 1500000007);
	fst_events_sort(events, 0);
	trace = fst_trace_from_events("counters-wide", events);
	depth_row = find_row(FSV_ROW_DEPTH);
	view = fsv_view_new(trace);
}

TestSuite(counters_wide, .init = build_wide, .fini = teardown);

Test(counters_wide, a_depth_row_seconds_apart_is_stored_wide_and_answers_the_same)
{
	const FsvCounters *c = _fsv_trace_get_counters(trace);
	guint n = fsv_counters_get_depth_count(trace, depth_row);
	g_autofree guint64 *begin = g_new(guint64, 1000), *end = g_new(guint64, 1000);
	g_autofree guint32 *dmin = g_new(guint32, 1000), *dmax = g_new(guint32, 1000);

	cr_assert(c->rows[depth_row].is_wide, "blocks span more than 2^32 ns");
	cr_assert_eq(n, 80);
	for (guint i = 0; i < n; i++) {
		guint64 ns;
		guint32 depth;

		fsv_counters_get_depth_point(trace, depth_row, i, &ns, &depth);
		cr_assert_eq(depth, brute_depth(ns));
		cr_assert_eq(fsv_counters_depth_at(trace, depth_row, ns - 1), brute_depth(ns - 1));
	}
	for (guint i = 0; i < 1000; i++) {
		begin[i] = T0 + (guint64) i * 41000000;
		end[i] = begin[i] + 41000000;
	}
	fsv_counters_depth_columns(trace, depth_row, begin, end, 1000, dmin, dmax);
	for (guint i = 0; i < 1000; i++) {
		guint32 emin, emax;

		brute_depth_range(begin[i], end[i], &emin, &emax);
		cr_assert_eq(dmin[i], emin, "column %u", i);
		cr_assert_eq(dmax[i], emax, "column %u", i);
	}
	cr_assert_eq(fsv_counters_get_depth_max(trace, depth_row), 2);
}

/* ---- traces/: progress fences follow their command buffers (HPF-02) ------------------- */

/* Checks each progress fence of traces/NAME against its queue's completed buffers; returns
 * how many were checked, *USER_MODE how many steps were checked to the nanosecond. */
static guint
check_progress_fences(const char *name, guint *user_mode)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) t = fsv_trace_load(path, NULL, NULL, NULL, &error);
	guint checked = 0;

	cr_assert_not_null(t, "%s", error ? error->message : "");
	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++) {
		const FsvRow *row = fsv_trace_get_row(t, r);
		const struct fsa_fence_info *f;
		const struct fsa_queue_info *q = NULL;
		const FsvFenceStep *steps;
		guint n = 0, k = 0;
		guint64 last = 0, mid = fsv_trace_get_begin_ns(t) +
					(fsv_trace_get_end_ns(t) - fsv_trace_get_begin_ns(t)) / 2;
		guint64 at_mid = 0;

		if (row->kind != FSV_ROW_FENCE)
			continue;
		f = fsv_trace_find_fence(t, row->fence_global_handle);
		if (!f || !f->is_progress_fence)
			continue;
		for (guint32 i = 0; i < fsv_trace_get_row_count(t) && !q; i++) {
			const FsvRow *qr = fsv_trace_get_row(t, i);
			const struct fsa_queue_info *qi;

			if (qr->kind != FSV_ROW_QUEUE)
				continue;
			qi = fsv_trace_find_queue(t, qr->hwqueue_handle);
			if (qi && qi->progress_fence_handle == row->fence_global_handle)
				q = qi;
		}
		cr_assert_not_null(q, "the queue of progress fence 0x%" PRIx64,
				   row->fence_global_handle);
		steps = fsv_trace_get_fence_steps(t, r, &n);
		/* The progress writes: each buffer of the queue that completed, its progress value
		 * at its end, in time order, each above the last (HPF-02). */
		for (guint32 i = 0; i < fsv_trace_get_packet_count(t); i++) {
			const FsvPacket *p = fsv_trace_get_packet(t, i);

			if (p->hwqueue_handle != q->hwqueue_handle ||
			    p->status != FSA_PACKET_COMPLETED || p->progress_value <= last)
				continue;
			while (k < n && steps[k].op != FSV_STEP_BUFFER_COMPLETED)
				k++;
			cr_assert_lt(k, n, "a step for buffer value %" PRIu64, p->progress_value);
			cr_assert_eq(steps[k].value, p->progress_value);
			/* A user-mode queue's value is written at the buffer's GPU end; a
			 * kernel-mode queue's by the OS once it saw the buffer complete. */
			if (q->is_user_mode)
				cr_assert_eq(steps[k].ns, p->end_ns, "value %" PRIu64,
					     p->progress_value);
			else
				cr_assert_geq(steps[k].ns, p->end_ns, "value %" PRIu64,
					      p->progress_value);
			*user_mode += q->is_user_mode;
			last = p->progress_value;
			k++;
		}
		for (; k < n; k++)
			cr_assert_neq(steps[k].op, FSV_STEP_BUFFER_COMPLETED,
				      "no step without a buffer");
		/* Not flat at 0 with a jump at the end: half-way, the value is half-way too. */
		for (guint i = 0; i < n && steps[i].ns <= mid; i++)
			at_mid = steps[i].value;
		cr_assert_gt(last, 10);
		cr_assert(at_mid > last / 4 && at_mid < last * 3 / 4,
			  "%s 0x%" PRIx64 ": %" PRIu64 " of %" PRIu64 " half-way", name,
			  row->fence_global_handle, at_mid, last);
		checked++;
	}
	return checked;
}

Test(counters_recorded, progress_fence_steps_are_the_progress_values_buffers_wrote)
{
	static const char *const names[] = {"frame-pipeline", "stress",      "producer-consumer",
					    "cpu-waiters",    "log-overrun", "cross-adapter"};
	guint user_mode = 0;

	cr_assert_eq(check_progress_fences("frame-pipeline", &user_mode), 2,
		     "frame-pipeline has two progress fences");
	for (guint i = 1; i < G_N_ELEMENTS(names); i++)
		cr_assert_gt(check_progress_fences(names[i], &user_mode), 0, "%s", names[i]);
	cr_assert_gt(user_mode, 0, "a user-mode queue's steps were checked to the nanosecond");
}
