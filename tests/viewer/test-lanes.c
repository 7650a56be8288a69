/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: lanes at any queue depth (issue 15 §2, docs/viewer.md "Lanes") on exact synthetic
 * timelines (suite unit). A kernel-mode queue holds DEPTH waits queued one microsecond apart,
 * all pending at once, and DEPTH signals of the same fence queued between them; each signal
 * executes 10 µs after the previous one and releases its wait 1 µs later, so at the middle of
 * the trace every one of the 2 × DEPTH boxes overlaps every other of its kind (the deep queue
 * of the issue: "the box you selected is drawn under thirty others"). An engine runs DEPTH
 * overlapping packets of DEPTH queues likewise.
 *
 * What is checked, at depths 1, 6, 7, 50 and 200, collapsed and expanded: every box has a lane
 * of its own where no other box of the lane overlaps it; the centre of every drawn box (from the
 * view's geometry) hits that box, or the aggregated slot that draws it; its pixels are drawn
 * there; and in the 200-deep queue, each of the 200 waits is selected by a click at a point
 * computed from the geometry (the aggregated slot first, which expands the row, as the window
 * does) and is then drawn on top with the selection's outline, where hit testing answers it.
 *
 * The trace is built from normalized events fed to the analyzer model (as a recording is read),
 * so the tests know every time exactly: T0 + n µs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <glib.h>

#include "fencescope-tp-enums.h"
#include "fsv-render.h"
#include "fsv-lanes-private.h"
#include "fst-timeline.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define PID   UINT64_C(1)
#define DEV   UINT64_C(0x8001000000000001)
#define CTX   UINT64_C(0x8002000000000002)
#define KQ    UINT64_C(0x8003000000000005)
#define KQ_P0 UINT64_C(0x8003000000001000) /* + i: the queues of the engine's packets */
#define FG    UINT64_C(0x8005000000000001)
#define FH    UINT64_C(0x41)
#define T0    UINT64_C(1000000000)
#define US(n) (T0 + (uint64_t) (n) *1000)

#define WIDTH  1200
#define HEIGHT 700

static GArray *events;
static FsvTrace *trace;
static FsvView *view;
static guint32 queue_row, engine_row;

/* The events of the timeline being written (fst-timeline.h). */
#define ev(...) fst_event_add(events, __VA_ARGS__)

static void
build(guint depth)
{
	guint setup;

	events = fst_events_new();
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(5), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	ev("adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count", UINT64_C(1),
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("engine_describe", T0, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "engine_type", (uint64_t) FSTP_ENGINE_TYPE_GRAPHICS_3D, NULL);
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
	for (uint64_t i = 0; i < depth; i++)
		ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX, "hwqueue_handle",
		   KQ_P0 + i, "engine_id", UINT64_C(0), "submission_mode",
		   (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	ev("fence_create", T0, "process_id", PID, "adapter_id", UINT64_C(0), "fence_global_handle",
	   FG, "fence_handle", FH, "initial_value", UINT64_C(0), "fence_object",
	   (uint64_t) FSTP_FENCE_OBJECT_NATIVE, NULL);
	setup = events->len;
	/* Wait i (value i + 1) queued at 10 + i µs, its signal at 10.5 + i µs; signal i runs at
	 * 10 + depth + 10 i µs and releases wait i 1 µs later. */
	for (uint64_t i = 0; i < depth; i++) {
		uint64_t run = 10 + depth + 10 * i;

		ev("fence_wait_queued", US(10 + i), "process_id", PID, "hwqueue_handle", KQ,
		   "fence_handle", FH, "fence_value", i + 1, "progress_value", 2 * i + 1, NULL);
		ev("fence_signal_queued", US(10 + i) + 500, "process_id", PID, "hwqueue_handle", KQ,
		   "fence_handle", FH, "fence_value", i + 1, "progress_value", 2 * i + 2, NULL);
		ev("km_fence_signal_executed", US(run), "process_id", PID, "hwqueue_handle", KQ,
		   "fence_handle", FH, "fence_value", i + 1, NULL);
		ev("km_fence_wait_unblocked", US(run + 1), "process_id", PID, "hwqueue_handle", KQ,
		   "fence_handle", FH, "fence_value", i + 1, NULL);
		/* Packet i of queue i runs from 10 + i µs to the signal: all DEPTH at once. */
		ev("packet_queued", US(9 + i), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
		   "hwqueue_handle", KQ_P0 + i, "packet_id", i + 1, "fence_id", 100 + i, NULL);
		ev("packet_start", US(10 + i), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
		   "hwqueue_handle", KQ_P0 + i, "packet_id", i + 1, "progress_value", UINT64_C(1),
		   "gpu_ts", US(10 + i), NULL);
		ev("packet_end", US(run), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
		   "hwqueue_handle", KQ_P0 + i, "packet_id", i + 1, "progress_value", UINT64_C(1),
		   "gpu_ts", US(run), "status", (uint64_t) FSTP_PACKET_STATUS_COMPLETED, NULL);
	}
	ev("clock_correlation", US(20 + 11 * depth), "adapter_id", UINT64_C(0), "cpu_ts_ns",
	   US(20 + 11 * depth), "gpu_ts", US(20 + 11 * depth), "gpu_ts_frequency_hz",
	   UINT64_C(1000000000), NULL);
	/* Events are written per operation, then put in time order as a recording delivers them
	 * (stable: same-time events keep the order they were written in). */
	fst_events_sort(events, setup);
	trace = fst_trace_from_events("deep-queue", events);
	cr_assert_null(fsv_trace_get_partial_error(trace), "%s",
		       fsv_trace_get_partial_error(trace));
	queue_row = fsv_trace_find_queue_row(trace, KQ);
	cr_assert_neq(queue_row, FSV_INDEX_NONE);
	engine_row = fsv_trace_get_row(trace, queue_row)->parent;
	cr_assert_eq(fsv_trace_get_row(trace, engine_row)->kind, FSV_ROW_ENGINE);
	view = fsv_view_new(trace);
	fsv_view_set_size(view, WIDTH, HEIGHT);
	fsv_view_set_range(view, US(5), US(30 + 11 * depth));
}

static void
teardown(void)
{
	fsv_view_free(view);
	fsv_trace_unref(trace);
	g_array_unref(events);
	view = NULL;
	trace = NULL;
}

/* ---- Pixels ----------------------------------------------------------------------------- */

static cairo_surface_t *
render(const FsvItem *selection)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
	cairo_t *cr = cairo_create(s);
	FsvRenderOptions o;

	fsv_render_options_init(&o);
	o.show_legend = false;
	if (selection)
		o.selection = *selection;
	fsv_render_draw(cr, trace, view, &o);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	return s;
}

static guint32
pixel(cairo_surface_t *s, int x, int y)
{
	const unsigned char *data = cairo_image_surface_get_data(s);

	return *(const guint32 *) (data + y * cairo_image_surface_get_stride(s) + x * 4) & 0xffffff;
}

static guint32
rgb24(FsvColor color)
{
	double c[3];

	fsv_render_get_color(color, c);
	return ((guint32) (c[0] * 65535 + 0.5) >> 8) << 16 |
	       ((guint32) (c[1] * 65535 + 0.5) >> 8) << 8 | ((guint32) (c[2] * 65535 + 0.5) >> 8);
}

static bool
is_near(guint32 p, guint32 want, int distance)
{
	for (int k = 0; k < 24; k += 8)
		if (abs((int) (p >> k & 0xff) - (int) (want >> k & 0xff)) > distance)
			return false;
	return true;
}

/* Pixels of about colour WANT in [x0, x1) × [y0, y1). */
static guint
count_near(cairo_surface_t *s, guint32 want, double x0, double y0, double x1, double y1)
{
	guint n = 0;

	for (int y = (int) MAX(y0, 0); y < (int) MIN(y1, HEIGHT); y++)
		for (int x = (int) MAX(x0, 0); x < (int) MIN(x1, WIDTH); x++)
			n += is_near(pixel(s, x, y), want, 40);
	return n;
}

/* ---- Geometry --------------------------------------------------------------------------- */

typedef struct {
	FsvItem item;
	double x, y;   /* the centre of the visible part of its box */
	double ly, lh; /* its slot */
	bool is_stacked;
} Box;

/* Where an op or packet is drawn: the centre of its box in its slot (lane or aggregated). */
static Box
box_of(FsvItemKind kind, guint32 index)
{
	Box b = {{kind, index, FSV_INDEX_NONE}, 0, 0, 0, 0, false};
	guint64 begin, end;
	guint32 row;
	guint lane;
	FsvLaneSlot slot;

	if (kind == FSV_ITEM_OP) {
		const FsvOp *o = fsv_trace_get_op(trace, index);

		begin = o->begin_ns, end = o->end_ns, row = o->row, lane = o->lane;
	} else {
		const FsvPacket *p = fsv_trace_get_packet(trace, index);

		begin = p->start_ns, end = p->end_ns, row = p->row, lane = p->lane;
	}
	b.item.row = row;
	cr_assert(fsv_view_get_lane_slot(view, row, fsv_view_lane_to_slot(view, row, lane), &slot));
	cr_assert(fsv_view_get_lane_geometry(view, row, lane, &b.ly, &b.lh));
	cr_assert_float_eq(b.ly, slot.y, 1e-9, "lane geometry and slot agree");
	b.is_stacked = slot.lane_count > 1;
	b.x = (MAX(fsv_view_time_to_x(view, begin), fsv_view_get_label_width(view)) +
	       MIN(fsv_view_time_to_x(view, end), fsv_view_get_width(view))) /
	      2;
	b.y = b.ly + b.lh / 2;
	return b;
}

/* Scrolls so that Y (drawing coordinates) lies in the middle of the rows' area; returns the new
 * drawing y of the same point. */
static double
scroll_to(double y)
{
	double before = fsv_view_get_scroll_y(view);
	int mid = fsv_view_get_ruler_height(view) +
		  (fsv_view_get_height(view) - fsv_view_get_ruler_height(view)) / 2;

	fsv_view_set_scroll_y(view, before + y - mid);
	return y - (fsv_view_get_scroll_y(view) - before);
}

/* ---- Layout ----------------------------------------------------------------------------- */

static void
check_lanes(guint depth)
{
	const FsvRow *q = fsv_trace_get_row(trace, queue_row);
	const FsvRow *e = fsv_trace_get_row(trace, engine_row);
	guint n = 0;
	const guint32 *list = fsv_trace_get_row_ops(trace, queue_row, &n);

	cr_assert_eq(n, 2 * depth, "every wait and signal on the queue's row");
	cr_assert_eq(q->lane_count, 2 * depth, "depth %u: a lane per overlapping box", depth);
	cr_assert_eq(q->first_lower_lane, depth, "waits above, signals below");
	cr_assert_eq(e->lane_count, depth, "a lane per running packet");
	for (guint i = 0; i < n; i++) {
		const FsvOp *a = fsv_trace_get_op(trace, list[i]);

		cr_assert_eq(a->lane < q->first_lower_lane, a->kind == FSA_OP_WAIT);
		for (guint j = i + 1; j < n; j++) {
			const FsvOp *b = fsv_trace_get_op(trace, list[j]);

			if (a->lane == b->lane)
				cr_assert(a->end_ns <= b->begin_ns || b->end_ns <= a->begin_ns,
					  "ops %u and %u overlap in lane %u", list[i], list[j],
					  a->lane);
		}
	}
	/* Collapsed: six slots at most, three per half; expanded: one per lane. */
	cr_assert_eq(fsv_view_get_lane_slot_count(view, queue_row),
		     MIN(depth, FSV_COLLAPSED_LANES / 2) * 2);
	cr_assert_eq(fsv_view_get_lane_slot_count(view, engine_row),
		     MIN(depth, FSV_COLLAPSED_LANES));
	cr_assert_eq(fsv_view_row_has_stacked_lanes(view, queue_row), depth > 3);
	cr_assert_eq(fsv_view_row_has_stacked_lanes(view, engine_row), depth > 6);
	fsv_view_set_row_lanes_expanded(view, queue_row, true);
	fsv_view_set_row_lanes_expanded(view, engine_row, true);
	cr_assert_eq(fsv_view_get_lane_slot_count(view, queue_row), 2 * depth);
	cr_assert_eq(fsv_view_get_lane_slot_count(view, engine_row), depth);
}

/* Every op and packet: the centre of its drawn box hits it (or the aggregated slot drawing
 * it), and the renderer painted that box there. The view is scrolled to each in turn. */
static void
check_hit_is_drawing(const char *form)
{
	guint n_ops = fsv_trace_get_op_count(trace), n_packets = fsv_trace_get_packet_count(trace);
	cairo_surface_t *s = NULL;
	double scrolled = -1;

	for (guint k = 0; k < n_ops + n_packets; k++) {
		FsvItemKind kind = k < n_ops ? FSV_ITEM_OP : FSV_ITEM_PACKET;
		guint32 index = k < n_ops ? k : k - n_ops;
		Box b = box_of(kind, index);
		FsvItem hit;
		guint32 want;

		if (b.y < fsv_view_get_ruler_height(view) + 20 || b.y > HEIGHT - 20) {
			scroll_to(b.y);
			b = box_of(kind, index);
		}
		if (!s || scrolled != fsv_view_get_scroll_y(view)) {
			if (s)
				cairo_surface_destroy(s);
			s = render(NULL);
			scrolled = fsv_view_get_scroll_y(view);
		}
		cr_assert(fsv_view_hit_test(view, b.x, b.y, &hit), "%s: nothing at %u's centre",
			  form, index);
		if (b.is_stacked) {
			cr_assert_eq(hit.kind, FSV_ITEM_LANES,
				     "%s: %s %u is in the aggregated slot", form,
				     kind == FSV_ITEM_OP ? "op" : "packet", index);
			cr_assert_eq(hit.row, b.item.row);
		} else {
			cr_assert_eq(hit.kind, kind, "%s: %s %u", form,
				     kind == FSV_ITEM_OP ? "op" : "packet", index);
			cr_assert_eq(hit.index, index, "%s: the centre of box %u hits box %u", form,
				     index, hit.index);
		}
		/* Its fill at the top of its box (labels are drawn lower down). */
		if (kind == FSV_ITEM_PACKET)
			want = 0; /* a queue's colour: anything but the background */
		else if (fsv_trace_get_op(trace, index)->kind == FSA_OP_WAIT)
			want = rgb24(FSV_COLOR_WAIT_QUEUED);
		else
			want = rgb24(FSV_COLOR_SIGNAL);
		if (b.is_stacked || want == 0)
			cr_assert(!is_near(pixel(s, (int) b.x, (int) b.ly + 2), 0xffffff, 8),
				  "%s: %u is painted", form, index);
		else
			cr_assert(is_near(pixel(s, (int) b.x, (int) b.ly + 2), want, 40),
				  "%s: op %u drawn at its centre (%06x there)", form, index,
				  pixel(s, (int) b.x, (int) b.ly + 2));
	}
	if (s)
		cairo_surface_destroy(s);
}

static void
check_depth(guint depth)
{
	build(depth);
	check_lanes(depth);
	check_hit_is_drawing("expanded");
	fsv_view_set_row_lanes_expanded(view, queue_row, false);
	fsv_view_set_row_lanes_expanded(view, engine_row, false);
	fsv_view_set_scroll_y(view, 0);
	check_hit_is_drawing("collapsed");
	teardown();
}

TestSuite(lanes);

Test(lanes, depth_1_hit_testing_finds_the_box_drawn_at_every_centre)
{
	check_depth(1);
}

Test(lanes, depth_6_hit_testing_finds_the_box_drawn_at_every_centre)
{
	check_depth(6);
}

Test(lanes, depth_7_hit_testing_finds_the_box_drawn_at_every_centre)
{
	check_depth(7);
}

Test(lanes, depth_50_hit_testing_finds_the_box_drawn_at_every_centre)
{
	check_depth(50);
}

Test(lanes, depth_200_hit_testing_finds_the_box_drawn_at_every_centre, .timeout = 120)
{
	check_depth(200);
}

/* ---- The 200-deep queue: select each wait by clicking, see it on top ---------------------- */

/* The selection's outline in the selection colour around B (its box in its slot). */
static guint
outline_pixels(cairo_surface_t *s, const Box *b)
{
	FsvItem hit;

	cr_assert(fsv_view_hit_test_selected(view, b->x, b->y, &b->item, &hit));
	cr_assert_eq(hit.index, b->item.index, "the selected box answers at its centre");
	/* The top and bottom edges of the frame over the box's width. */
	return count_near(s, rgb24(FSV_COLOR_SELECTION), b->x - 2, b->ly - 3, b->x + 3, b->ly) +
	       count_near(s, rgb24(FSV_COLOR_SELECTION), b->x - 2, b->ly + b->lh, b->x + 3,
			  b->ly + b->lh + 3);
}

Test(lanes, deep_queue_every_one_of_200_waits_is_selected_by_a_click_and_drawn_on_top,
     .timeout = 180)
{
	guint n = 0, waits = 0;
	const guint32 *list;

	build(200);
	list = fsv_trace_get_row_ops(trace, queue_row, &n);
	for (guint i = 0; i < n; i++) {
		guint32 op = list[i];
		Box b;
		FsvItem hit;
		cairo_surface_t *s;

		if (fsv_trace_get_op(trace, op)->kind != FSA_OP_WAIT)
			continue;
		waits++;
		/* A fresh, collapsed row each time, as a user opening the trace sees it. */
		fsv_view_set_row_lanes_expanded(view, queue_row, false);
		fsv_view_set_scroll_y(view, 0);
		b = box_of(FSV_ITEM_OP, op);
		cr_assert(fsv_view_hit_test(view, b.x, b.y, &hit));
		if (b.is_stacked) {
			/* The click lands on "+k more": the window expands the row. */
			cr_assert_eq(hit.kind, FSV_ITEM_LANES, "wait %u: the aggregated slot", op);
			fsv_view_set_row_lanes_expanded(view, hit.row, true);
			b = box_of(FSV_ITEM_OP, op);
			scroll_to(b.y);
			b = box_of(FSV_ITEM_OP, op);
			cr_assert_not(b.is_stacked);
			cr_assert(fsv_view_hit_test(view, b.x, b.y, &hit));
		}
		cr_assert_eq(hit.kind, FSV_ITEM_OP);
		cr_assert_eq(hit.index, op, "the click at wait %u's box selects %u", op, hit.index);
		s = render(&hit);
		cr_assert_gt(outline_pixels(s, &b), 6, "wait %u is drawn selected, outlined", op);
		cr_assert(
		    is_near(pixel(s, (int) b.x, (int) b.ly + 2), rgb24(FSV_COLOR_WAIT_QUEUED), 40),
		    "wait %u's own fill on top", op);
		cairo_surface_destroy(s);
	}
	cr_assert_eq(waits, 200);
	teardown();
}

/* Selected from elsewhere (the search, --select-op) while its row stays collapsed, a wait of
 * the aggregated slot is drawn there on top, outlined, and hit there; revealing it expands the
 * row. */
Test(lanes, a_selected_wait_in_the_aggregated_slot_is_drawn_and_hit_on_top)
{
	guint n = 0;
	const guint32 *list;
	guint32 op = FSV_INDEX_NONE;
	Box b;
	FsvItem sel, hit;
	cairo_surface_t *plain, *selected;

	build(50);
	list = fsv_trace_get_row_ops(trace, queue_row, &n);
	for (guint i = 0; i < n; i++)
		if (fsv_trace_get_op(trace, list[i])->kind == FSA_OP_WAIT &&
		    fsv_trace_get_op(trace, list[i])->lane == 30)
			op = list[i];
	cr_assert_neq(op, FSV_INDEX_NONE);
	b = box_of(FSV_ITEM_OP, op);
	cr_assert(b.is_stacked);
	sel = b.item;
	cr_assert(fsv_view_hit_test(view, b.x, b.y, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_LANES, "unselected, the slot answers");
	cr_assert(fsv_view_hit_test_selected(view, b.x, b.y, &sel, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_OP);
	cr_assert_eq(hit.index, op, "selected, the wait drawn on top answers");
	plain = render(NULL);
	selected = render(&sel);
	cr_assert_gt(outline_pixels(selected, &b), 6);
	cr_assert_eq(outline_pixels(plain, &b), 0);
	cr_assert(
	    is_near(pixel(selected, (int) b.x, (int) b.ly + 2), rgb24(FSV_COLOR_WAIT_QUEUED), 40),
	    "its own fill, not the slot's");
	cairo_surface_destroy(plain);
	cairo_surface_destroy(selected);
	cr_assert(fsv_view_reveal_item(view, &sel), "revealing expands the row");
	cr_assert(fsv_view_is_row_lanes_expanded(view, queue_row));
	b = box_of(FSV_ITEM_OP, op);
	cr_assert_not(b.is_stacked);
	cr_assert_not(fsv_view_reveal_item(view, &sel), "once is enough");
	teardown();
}

/* The aggregated slot says what it holds. */
Test(lanes, the_aggregated_slot_says_how_many_lanes_it_stacks)
{
	FsvLaneSlot slot;
	FsvItem item;
	g_autofree char *title = NULL;
	g_auto(GStrv) fields = NULL;

	build(50);
	cr_assert(fsv_view_get_lane_slot(view, queue_row, 2, &slot));
	cr_assert_eq(slot.first_lane, 2);
	cr_assert_eq(slot.lane_count, 48, "waits: lanes 0, 1, then 2–49 stacked");
	cr_assert(fsv_view_get_lane_slot(view, queue_row, 5, &slot));
	cr_assert_eq(slot.first_lane, 52);
	cr_assert_eq(slot.lane_count, 48, "signals likewise");
	item = (FsvItem){FSV_ITEM_LANES, 2, queue_row};
	title = fsv_trace_dup_item_title(trace, &item);
	cr_assert_str_eq(title, "+48 more lanes (click to expand)");
	fields = fsv_trace_describe_item(trace, &item);
	cr_assert_not_null(fields[0]);
	teardown();
}

/* The disclosure triangle's pixels in the label of ROW: left of its text, where a group's is. */
static guint
disclosure_pixels(cairo_surface_t *s, guint32 row)
{
	const FsvRow *r = fsv_trace_get_row(trace, row);
	double y, h, x = 8 + r->depth * 14;

	cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
	return count_near(s, rgb24(FSV_COLOR_DISCLOSURE), x - 1, y + 5, x + 10, y + 17);
}

/* Issue 15 §2: a deep queue's label shows that it folds, ▸ while its lanes are stacked, ▾
 * while they are all shown, as a group's label does; a row without stacked lanes shows none. */
Test(lanes, a_row_with_stacked_lanes_has_a_fold_indicator_in_its_label)
{
	cairo_surface_t *folded, *unfolded, *shallow;
	guint a, b;

	build(50);
	cr_assert(fsv_view_row_has_stacked_lanes(view, queue_row));
	folded = render(NULL);
	fsv_view_set_row_lanes_expanded(view, queue_row, true);
	unfolded = render(NULL);
	a = disclosure_pixels(folded, queue_row);
	b = disclosure_pixels(unfolded, queue_row);
	cr_assert_gt(a, 6, "▸ drawn (%u pixels)", a);
	cr_assert_gt(b, 6, "▾ drawn (%u pixels)", b);
	{
		/* ▸ is taller than wide, ▾ wider than tall: the columns they ink differ. */
		const FsvRow *r = fsv_trace_get_row(trace, queue_row);
		double x = 8 + r->depth * 14, y0, h0, y1, h1;
		guint cols_folded = 0, cols_unfolded = 0;

		fsv_view_set_row_lanes_expanded(view, queue_row, false);
		cr_assert(fsv_view_get_row_geometry(view, queue_row, &y0, &h0));
		fsv_view_set_row_lanes_expanded(view, queue_row, true);
		cr_assert(fsv_view_get_row_geometry(view, queue_row, &y1, &h1));
		for (int cx = (int) x - 1; cx < (int) x + 10; cx++) {
			cols_folded += count_near(folded, rgb24(FSV_COLOR_DISCLOSURE), cx, y0 + 5,
						  cx + 1, y0 + 17) > 0;
			cols_unfolded += count_near(unfolded, rgb24(FSV_COLOR_DISCLOSURE), cx,
						    y1 + 5, cx + 1, y1 + 17) > 0;
		}
		cr_assert_lt(cols_folded, cols_unfolded, "▸ %u columns, ▾ %u", cols_folded,
			     cols_unfolded);
	}
	cairo_surface_destroy(folded);
	cairo_surface_destroy(unfolded);
	teardown();
	build(1);
	cr_assert_not(fsv_view_row_has_stacked_lanes(view, queue_row));
	shallow = render(NULL);
	cr_assert_eq(disclosure_pixels(shallow, queue_row), 0, "nothing to fold: no triangle");
	cairo_surface_destroy(shallow);
	teardown();
}

/* An expanded 200-deep queue is 6 400 px tall: scrolled into its middle (as selecting a wait
 * there does), its label still says which row it is, at the top of the rows' area. */
Test(lanes, an_expanded_deep_row_scrolled_into_its_middle_keeps_its_label_in_sight)
{
	int rh, lw, content_y = 0;
	double y, h;
	cairo_surface_t *s;
	guint text;

	build(200);
	fsv_view_set_row_lanes_expanded(view, queue_row, true);
	rh = fsv_view_get_ruler_height(view);
	lw = fsv_view_get_label_width(view);
	for (guint i = 0; i < fsv_view_get_visible_row_count(view); i++)
		if (fsv_view_get_visible_row(view, i, &content_y, NULL) == queue_row)
			break;
	fsv_view_set_scroll_y(view, content_y + 2000);
	cr_assert(fsv_view_get_row_geometry(view, queue_row, &y, &h));
	cr_assert_lt(y, rh - 1000, "the row starts far above the view");
	cr_assert_gt(y + h, HEIGHT, "and ends below it");
	s = render(NULL);
	text = count_near(s, rgb24(FSV_COLOR_TEXT), 0, rh, lw - 40, rh + 30);
	cr_assert_gt(text, 20, "the label's text at the top (%u pixels)", text);
	cr_assert_gt(count_near(s, rgb24(FSV_COLOR_DISCLOSURE), 0, rh, lw, rh + 30), 6,
		     "and its ▾");
	cairo_surface_destroy(s);
	teardown();
}

/* The chain of causes of a selected wait is outlined in the dependency colour
 * (FsvRenderOptions.highlights); without highlights nothing is. */
Test(lanes, highlighted_items_are_outlined_in_the_dependency_colour)
{
	cairo_surface_t *plain, *lit;
	FsvRenderOptions o;
	FsvItem items[2];
	Box a, b;
	guint before, after;

	build(6);
	items[0] = (FsvItem){FSV_ITEM_OP, 0, fsv_trace_get_op(trace, 0)->row};
	items[1] = (FsvItem){FSV_ITEM_PACKET, 0, fsv_trace_get_packet(trace, 0)->row};
	a = box_of(FSV_ITEM_OP, 0);
	b = box_of(FSV_ITEM_PACKET, 0);
	plain = render(NULL);
	fsv_render_options_init(&o);
	o.show_legend = false;
	o.highlights = items;
	o.n_highlights = 2;
	lit = cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
	{
		cairo_t *cr = cairo_create(lit);

		fsv_render_draw(cr, trace, view, &o);
		cairo_destroy(cr);
		cairo_surface_flush(lit);
	}
	before = count_near(plain, rgb24(FSV_COLOR_ARROW), 0, MIN(a.ly, b.ly) - 3, WIDTH,
			    MAX(a.ly + a.lh, b.ly + b.lh) + 3);
	after = count_near(lit, rgb24(FSV_COLOR_ARROW), 0, MIN(a.ly, b.ly) - 3, WIDTH,
			   MAX(a.ly + a.lh, b.ly + b.lh) + 3);
	cr_assert_eq(before, 0, "nothing outlined without highlights (%u)", before);
	cr_assert_gt(after, 40, "both boxes outlined (%u pixels)", after);
	cairo_surface_destroy(plain);
	cairo_surface_destroy(lit);
	teardown();
}

/* ---- fsv-lanes.c on its own: random rows ---------------------------------------------------- */

/* How many of ITEMS overlap at T (a zero-length item covers its instant). */
static guint
depth_at(const FsvLaneItem *items, gsize n, guint64 t, bool lower)
{
	guint d = 0;

	for (gsize i = 0; i < n; i++)
		d += items[i].is_lower == lower && items[i].begin_ns <= t &&
		     t < MAX(items[i].end_ns, items[i].begin_ns + 1);
	return d;
}

static bool
covers(const FsvLodItem *item, gpointer data)
{
	guint64 *t = data;

	if (item->begin_ns <= t[0] && t[0] <= item->end_ns)
		t[1] = 1;
	return true;
}

/* Greedy lanes use exactly as many lanes as the deepest instant (interval partitioning is
 * optimal), no two boxes of a lane overlap, waits stay above signals. */
Test(lanes, random_rows_get_one_lane_per_level_of_depth_and_no_overlap)
{
	GRand *rand = g_rand_new_with_seed(15);

	for (int round = 0; round < 40; round++) {
		gsize n = (gsize) g_rand_int_range(rand, 1, 400);
		g_autofree FsvLaneItem *items = g_new(FsvLaneItem, n);
		g_autofree guint16 *lanes = g_new(guint16, n);
		guint64 t = 0;
		guint lane_count, first_lower, deepest[2] = {0, 0};

		for (gsize i = 0; i < n; i++) {
			t += (guint64) g_rand_int_range(rand, 0, 50);
			items[i] = (FsvLaneItem){t, t + (guint64) g_rand_int_range(rand, 0, 2000),
						 (guint32) i, g_rand_boolean(rand)};
		}
		lane_count = _fsv_lanes_assign(items, n, lanes, &first_lower);
		for (gsize i = 0; i < n; i++) {
			bool lower = items[i].is_lower;

			deepest[lower] =
			    MAX(deepest[lower], depth_at(items, n, items[i].begin_ns, lower));
			cr_assert_eq(lanes[i] >= first_lower, lower, "halves");
			for (gsize j = i + 1; j < n; j++)
				if (lanes[i] == lanes[j])
					cr_assert(MAX(items[i].end_ns, items[i].begin_ns + 1) <=
						      items[j].begin_ns,
						  "round %d: %zu and %zu overlap in lane %u", round,
						  i, j, lanes[i]);
		}
		cr_assert_eq(lane_count, MAX(deepest[0] + deepest[1], 1), "round %d", round);
		cr_assert_eq(first_lower, deepest[1] ? deepest[0] : lane_count);
	}
	g_rand_free(rand);
}

/* Past FSV_STACK_MAX_BOXES boxes, the aggregated slot indexes the union of their spans: far
 * fewer items, the same instants covered. */
Test(lanes, a_huge_stack_indexes_the_union_of_its_boxes)
{
	gsize n = 8 * (FSV_STACK_MAX_BOXES / 3 + 1000);
	g_autofree FsvLaneItem *items = g_new(FsvLaneItem, n);
	g_autofree guint16 *lanes = g_new(guint16, n);
	guint lane_count, first_lower, from = 0, to = 0;
	bool is_union = false;
	g_autoptr(GArray) runs = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));
	g_autoptr(FsvLod) stack = NULL;

	/* Eight boxes in flight, each 800 ns, one beginning every 100 ns; a pause every 1000. */
	for (gsize i = 0; i < n; i++) {
		guint64 b = 100 * (guint64) i + 5000 * (i / 1000);

		items[i] = (FsvLaneItem){b, b + 800, (guint32) i, false};
	}
	lane_count = _fsv_lanes_assign(items, n, lanes, &first_lower);
	cr_assert_eq(lane_count, 8);
	cr_assert(_fsv_lanes_get_stack(lane_count, first_lower, 0, &from, &to));
	cr_assert_eq(from, FSV_COLLAPSED_LANES - 1);
	cr_assert_eq(to, 8);
	cr_assert_not(_fsv_lanes_get_stack(lane_count, first_lower, 1, &from, &to), "no signals");
	_fsv_lanes_get_stack_items(items, lanes, n, FSV_COLLAPSED_LANES - 1, 8, runs, &is_union);
	stack = fsv_lod_new((const FsvLodItem *) runs->data, runs->len);
	cr_assert(is_union, "more than %d boxes stacked", FSV_STACK_MAX_BOXES);
	cr_assert_lt(fsv_lod_get_item_count(stack), n / 100, "runs, not boxes");
	for (guint64 t = 0; t < items[n - 1].end_ns + 6000; t += 37) {
		guint64 probe[2] = {t, 0};
		bool stacked = false;

		fsv_lod_visit(stack, t, t, 0, covers, NULL, probe);
		gsize lo = 0, hi = n;

		/* The boxes begun by t: the last few of them (eight in flight) may cover it. */
		while (lo < hi) {
			gsize mid = lo + (hi - lo) / 2;

			if (items[mid].begin_ns <= t)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (gsize i = lo > 16 ? lo - 16 : 0; i < lo; i++)
			stacked |= lanes[i] >= FSV_COLLAPSED_LANES - 1 && t <= items[i].end_ns;
		cr_assert_eq(probe[1] != 0, stacked, "at %" G_GUINT64_FORMAT " ns", t);
	}
}
