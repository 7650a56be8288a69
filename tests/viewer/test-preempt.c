/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: issue 13's items on an exact synthetic timeline (suite unit): a packet preempted
 * by a higher-priority one and resubmitted (PRE-04, PRE-06, PRE-07), joined to its resubmitted
 * piece by a connector through the engine's event strip; preemption brackets coloured by their
 * reason; paging packets drawn apart; a hung packet, the TDR's preemption request that never
 * completes, the recovery interval, the failed engine reset promoted to an adapter reset, the
 * guilty context in error and its device lost (TDR-01..06); a display's vsyncs, flips and a
 * missed vsync (PRE-13): layout, hit testing, details and pixels.
 *
 * The trace is built from normalized events fed to the analyzer model, as a recording would be
 * read, so the tests know every time exactly. GPU ticks are nanoseconds and the clock pairs map
 * them one to one: all times are T0 + n µs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <cairo.h>
#include <criterion/criterion.h>
#include <glib.h>

#include "fencescope-tp-enums.h"
#include "fsv-render.h"
#include "fst-timeline.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define PID    UINT64_C(1)
#define DEV    UINT64_C(0x8001000000000001)
#define CTX_LO UINT64_C(0x8002000000000002)
#define CTX_HI UINT64_C(0x8002000000000003)
#define KQ_LO  UINT64_C(0x8003000000000005)
#define KQ_HI  UINT64_C(0x8003000000000009)
#define T0     UINT64_C(1000000000)
#define US(n)  (T0 + (uint64_t) (n) *1000)

static GArray *events;
static FsvTrace *trace;
static FsvView *view;

/* The events of the timeline being written (fst-timeline.h). */
#define ev(...) fst_event_add(events, __VA_ARGS__)

static void
pair(uint64_t ts)
{
	ev("clock_correlation", ts, "adapter_id", UINT64_C(0), "cpu_ts_ns", ts, "gpu_ts", ts,
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
}

/* A packet of QUEUE queued at QUEUED µs, run from START to END µs, ending with STATUS. */
static void
packet(uint64_t id, uint64_t queue, uint64_t resubmission_of, bool is_paging, uint64_t queued,
       uint64_t start, uint64_t end, int status)
{
	/* Fence ids: 100 + the packet id, but a resubmitted paging piece keeps its earlier
	 * piece's (PRE-06). */
	ev("packet_queued", US(queued), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", queue, "packet_id", id, "resubmission_of", resubmission_of,
	   "is_paging", (uint64_t) is_paging, "fence_id",
	   is_paging && resubmission_of ? 100 + resubmission_of : 100 + id, NULL);
	ev("packet_start", US(start), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", queue, "packet_id", id, "progress_value", id, "gpu_ts", US(start),
	   NULL);
	if (status >= 0)
		ev("packet_end", US(end), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
		   "hwqueue_handle", queue, "packet_id", id, "progress_value", id, "gpu_ts",
		   US(end), "status", (uint64_t) status, NULL);
}

static void
preempt(uint64_t request, uint64_t ctx, int reason, uint64_t at, uint64_t done, uint64_t id)
{
	ev("preempt_request", US(at), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "context_handle", ctx, "request_id", request, "reason", (uint64_t) reason, NULL);
	if (done)
		ev("preempt_complete", US(done), "adapter_id", UINT64_C(0), "engine_id",
		   UINT64_C(0), "context_handle", ctx, "request_id", request, "packet_id", id,
		   "granularity",
		   (uint64_t) FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY, "gpu_ts",
		   US(done), NULL);
}

/* Events must come in time order: the scenario is written in that order. */
static void
build(void)
{
	events = fst_events_new();
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(4), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	ev("adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count", UINT64_C(1),
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("engine_describe", T0, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "engine_type", (uint64_t) FSTP_ENGINE_TYPE_GRAPHICS_3D, "preempt_granularity",
	   (uint64_t) FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY,
	   "compute_preempt_granularity",
	   (uint64_t) FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY,
	   "is_preemption_aware", UINT64_C(1), NULL);
	pair(T0);
	ev("process_create", T0, "process_id", PID, NULL);
	ev("device_create", T0, "process_id", PID, "adapter_id", UINT64_C(0), "device_handle", DEV,
	   NULL);
	ev("context_create", T0, "process_id", PID, "device_handle", DEV, "context_handle", CTX_LO,
	   "engine_id", UINT64_C(0), NULL);
	ev("context_create", T0, "process_id", PID, "device_handle", DEV, "context_handle", CTX_HI,
	   "engine_id", UINT64_C(0), NULL);
	ev("context_schedule", T0, "adapter_id", UINT64_C(0), "process_id", PID, "context_handle",
	   CTX_LO, "engine_id", UINT64_C(0), "priority", UINT64_C(2), "time_slice_ns",
	   UINT64_C(2000000), NULL);
	ev("context_schedule", T0, "adapter_id", UINT64_C(0), "process_id", PID, "context_handle",
	   CTX_HI, "engine_id", UINT64_C(0), "priority", UINT64_C(20), "time_slice_ns", UINT64_C(0),
	   NULL);
	ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX_LO, "hwqueue_handle",
	   KQ_LO, "engine_id", UINT64_C(0), "submission_mode",
	   (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX_HI, "hwqueue_handle",
	   KQ_HI, "engine_id", UINT64_C(0), "submission_mode",
	   (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	/* PRE-04: packet 1 (low priority) is preempted for packet 2 (high) at 40 µs, stops at
	 * 45 µs, and resumes as packet 3 (PRE-07) after packet 2. */
	ev("packet_queued", US(5), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_LO, "packet_id", UINT64_C(1), "fence_id", UINT64_C(101), NULL);
	ev("packet_start", US(10), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_LO, "packet_id", UINT64_C(1), "progress_value", UINT64_C(1),
	   "gpu_ts", US(10), NULL);
	preempt(1, CTX_LO, FSTP_PREEMPT_REASON_PRIORITY, 40, 0, 0);
	ev("packet_end", US(45), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_LO, "packet_id", UINT64_C(1), "progress_value", UINT64_C(1),
	   "gpu_ts", US(45), "status", (uint64_t) FSTP_PACKET_STATUS_PREEMPTED, NULL);
	ev("preempt_complete", US(45), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "context_handle", CTX_LO, "request_id", UINT64_C(1), "packet_id", UINT64_C(1),
	   "granularity", (uint64_t) FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY,
	   "gpu_ts", US(45), "work_left_ticks", UINT64_C(39000), NULL);
	packet(2, KQ_HI, 0, false, 39, 46, 80, FSTP_PACKET_STATUS_COMPLETED);
	packet(3, KQ_LO, 1, false, 45, 81, 120, FSTP_PACKET_STATUS_COMPLETED);
	/* A paging packet, preempted when its time slice ran out, resubmitted (PRE-06). */
	ev("packet_queued", US(125), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_LO, "packet_id", UINT64_C(4), "is_paging", UINT64_C(1), "fence_id",
	   UINT64_C(104), NULL);
	ev("packet_start", US(130), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_LO, "packet_id", UINT64_C(4), "progress_value", UINT64_C(4),
	   "gpu_ts", US(130), NULL);
	preempt(2, CTX_LO, FSTP_PREEMPT_REASON_TIME_SLICE, 150, 0, 0);
	ev("packet_end", US(155), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_LO, "packet_id", UINT64_C(4), "progress_value", UINT64_C(4),
	   "gpu_ts", US(155), "status", (uint64_t) FSTP_PACKET_STATUS_PREEMPTED, NULL);
	ev("preempt_complete", US(155), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "context_handle", CTX_LO, "request_id", UINT64_C(2), "packet_id", UINT64_C(4),
	   "granularity", (uint64_t) FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY, "gpu_ts",
	   US(155), "work_left_ticks", UINT64_C(15000), NULL);
	packet(5, KQ_LO, 4, true, 155, 160, 175, FSTP_PACKET_STATUS_COMPLETED);
	pair(US(190));
	/* TDR-01..06: packet 6 hangs from 200 µs; the watchdog detects it at 400 µs and asks
	 * for a preemption that never completes; recovery 450–470 µs: the engine reset fails and
	 * is promoted to an adapter reset; the packet is aborted, its context put in error and
	 * its device lost. */
	ev("packet_queued", US(195), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_HI, "packet_id", UINT64_C(6), "fence_id", UINT64_C(106), NULL);
	ev("packet_start", US(200), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_HI, "packet_id", UINT64_C(6), "progress_value", UINT64_C(6),
	   "gpu_ts", US(200), NULL);
	pair(US(300));
	ev("tdr_detect", US(400), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "context_handle", CTX_HI, "reason", (uint64_t) FSTP_LOSS_REASON_TIMEOUT, "stalled_ns",
	   UINT64_C(200000), NULL);
	preempt(3, CTX_HI, FSTP_PREEMPT_REASON_TDR, 400, 0, 0);
	ev("tdr_begin", US(450), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0), "reason",
	   (uint64_t) FSTP_LOSS_REASON_TIMEOUT, "context_handle", CTX_HI, NULL);
	ev("engine_reset", US(455), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "is_success", UINT64_C(0), NULL);
	ev("adapter_reset", US(458), "adapter_id", UINT64_C(0), "is_success", UINT64_C(1), NULL);
	ev("packet_end", US(460), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_HI, "packet_id", UINT64_C(6), "progress_value", UINT64_C(6),
	   "gpu_ts", US(460), "status", (uint64_t) FSTP_PACKET_STATUS_ABORTED, NULL);
	ev("context_error", US(462), "adapter_id", UINT64_C(0), "process_id", PID, "device_handle",
	   DEV, "context_handle", CTX_HI, "reason", (uint64_t) FSTP_LOSS_REASON_TIMEOUT, NULL);
	ev("tdr_end", US(470), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0), "result",
	   (uint64_t) FSTP_TDR_RESULT_ADAPTER_RESET, NULL);
	ev("device_lost", US(475), "process_id", PID, "device_handle", DEV, "reason",
	   (uint64_t) FSTP_LOSS_REASON_TIMEOUT, NULL);
	pair(US(500));
	packet(7, KQ_LO, 0, false, 480, 500, 600, FSTP_PACKET_STATUS_COMPLETED);
	/* PRE-13: display 0 of adapter 0, a vsync every 100 µs from 600 µs; flip 1 lands at
	 * vsync 2 (700 µs), vsync 3 (800 µs) latches nothing while flip 2 renders (missed),
	 * flip 2 lands at vsync 4 (900 µs); vsync 5 (1000 µs) comes after the last flip: not
	 * missed. */
	for (uint64_t k = 1; k <= 5; k++) {
		uint64_t flip = k == 2 ? 1 : k == 4 ? 2 : 0;

		if (k == 2)
			ev("flip_queued", US(610), "adapter_id", UINT64_C(0), "source_id",
			   UINT64_C(0), "process_id", PID, "context_handle", CTX_LO, "flip_id",
			   UINT64_C(1), NULL);
		if (k == 4)
			ev("flip_queued", US(850), "adapter_id", UINT64_C(0), "source_id",
			   UINT64_C(0), "process_id", PID, "context_handle", CTX_LO, "flip_id",
			   UINT64_C(2), NULL);
		/* PRE-09: ring submission 8 is preempted at 940 µs and resumes at its saved
		 * point under its own id at 960 µs (no packet_queued). */
		if (k == 5) {
			for (int piece = 0; piece < 2; piece++) {
				ev("packet_start", US(920 + 40 * piece), "adapter_id", UINT64_C(0),
				   "engine_id", UINT64_C(0), "hwqueue_handle", KQ_LO, "packet_id",
				   UINT64_C(8), "progress_value", UINT64_C(8), "gpu_ts",
				   US(920 + 40 * piece), NULL);
				ev("packet_end", US(940 + 40 * piece), "adapter_id", UINT64_C(0),
				   "engine_id", UINT64_C(0), "hwqueue_handle", KQ_LO, "packet_id",
				   UINT64_C(8), "progress_value", UINT64_C(8), "gpu_ts",
				   US(940 + 40 * piece), "status",
				   (uint64_t) (piece ? FSTP_PACKET_STATUS_COMPLETED
						     : FSTP_PACKET_STATUS_PREEMPTED),
				   NULL);
			}
		}
		ev("vsync", US(500 + 100 * k), "adapter_id", UINT64_C(0), "source_id", UINT64_C(0),
		   "vsync_count", k, "flip_id", flip, "gpu_ts", US(500 + 100 * k), NULL);
		if (flip)
			ev("flip_done", US(500 + 100 * k) + 1000, "adapter_id", UINT64_C(0),
			   "source_id", UINT64_C(0), "flip_id", flip, "vsync_count", k, NULL);
	}
	pair(US(1000) + 2000);

	trace = fst_trace_from_events("preemption", events);
	cr_assert_null(fsv_trace_get_partial_error(trace), "%s",
		       fsv_trace_get_partial_error(trace));
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 400);
	fsv_view_set_range(view, US(0), US(250));
}

static void
teardown(void)
{
	fsv_view_free(view);
	fsv_trace_unref(trace);
	g_array_unref(events);
}

TestSuite(preempt, .init = build, .fini = teardown);

static guint32
row_of_kind(FsvRowKind kind)
{
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == kind)
			return r;
	return FSV_INDEX_NONE;
}

static double
x_of(uint64_t ns)
{
	return fsv_view_time_to_x(view, ns);
}

static guint32
packet_by_id(uint64_t id)
{
	for (guint32 i = 0; i < fsv_trace_get_packet_count(trace); i++)
		if (fsv_trace_get_packet(trace, i)->packet_id == id)
			return i;
	cr_assert_fail("no packet %" PRIu64, id);
	return FSV_INDEX_NONE;
}

static guint32
marker_of(guint8 kind, guint nth)
{
	for (guint32 i = 0; i < fsv_trace_get_marker_count(trace); i++)
		if (fsv_trace_get_marker(trace, i)->kind == kind && nth-- == 0)
			return i;
	cr_assert_fail("no marker of kind %u", kind);
	return FSV_INDEX_NONE;
}

/* The value of NAME in an item's details, NULL when it has none. */
static char *
detail(FsvItemKind kind, guint32 index, const char *name)
{
	FsvItem item = {kind, index, FSV_INDEX_NONE};
	g_auto(GStrv) d = fsv_trace_describe_item(trace, &item);

	for (guint i = 0; d[i] && d[i + 1]; i += 2)
		if (strcmp(d[i], name) == 0)
			return g_strdup(d[i + 1]);
	return NULL;
}

static FsvItem
hit_at(double x, double y)
{
	FsvItem hit;

	cr_assert(fsv_view_hit_test(view, x, y, &hit), "nothing at %.1f, %.1f", x, y);
	return hit;
}

Test(preempt, pre_06_pre_07_pieces_of_a_preempted_packet_are_linked)
{
	const FsvPacket *p1 = fsv_trace_get_packet(trace, packet_by_id(1));
	const FsvPacket *p3 = fsv_trace_get_packet(trace, packet_by_id(3));
	const FsvPacket *p4 = fsv_trace_get_packet(trace, packet_by_id(4));
	const FsvPacket *p2 = fsv_trace_get_packet(trace, packet_by_id(2));

	cr_assert_eq(p1->status, FSA_PACKET_PREEMPTED);
	cr_assert_eq(p1->next_piece, packet_by_id(3));
	cr_assert_eq(p3->prev_piece, packet_by_id(1));
	cr_assert_eq(p3->next_piece, FSV_INDEX_NONE);
	cr_assert_eq(p4->next_piece, packet_by_id(5), "the paging packet's pieces too");
	cr_assert_eq(p2->prev_piece, FSV_INDEX_NONE);
	cr_assert_eq(p2->next_piece, FSV_INDEX_NONE);
}

Test(preempt, pre_09_a_ring_submission_resumes_under_its_own_id)
{
	guint32 first = FSV_INDEX_NONE, second = FSV_INDEX_NONE;
	g_autofree char *resumes = NULL;

	for (guint32 i = 0; i < fsv_trace_get_packet_count(trace); i++) {
		if (fsv_trace_get_packet(trace, i)->packet_id != 8)
			continue;
		if (first == FSV_INDEX_NONE)
			first = i;
		else
			second = i;
	}
	cr_assert_neq(second, FSV_INDEX_NONE, "two pieces of packet 8");
	if (fsv_trace_get_packet(trace, first)->start_ns >
	    fsv_trace_get_packet(trace, second)->start_ns) {
		guint32 x = first;

		first = second;
		second = x;
	}
	cr_assert_eq(fsv_trace_get_packet(trace, first)->next_piece, second);
	cr_assert_eq(fsv_trace_get_packet(trace, second)->prev_piece, first);
	resumes = detail(FSV_ITEM_PACKET, second, "Resumes");
	cr_assert_not_null(resumes);
	cr_assert_not_null(strstr(resumes, "8 at its saved point"), "%s", resumes);
}

Test(preempt, engine_row_has_an_event_strip_above_its_lanes)
{
	guint32 engine = row_of_kind(FSV_ROW_ENGINE);
	double sy, sh, ly, lh, ry, rh;

	cr_assert(fsv_trace_get_row(trace, engine)->has_event_strip);
	cr_assert(fsv_view_get_row_geometry(view, engine, &ry, &rh));
	cr_assert(fsv_view_get_strip_geometry(view, engine, FSV_STRIP_EVENTS, &sy, &sh));
	cr_assert(fsv_view_get_lane_geometry(view, engine, 0, &ly, &lh));
	cr_assert_geq(sy, ry);
	cr_assert_leq(sy + sh, ly, "the strip lies above the lanes");
	/* Queue rows have no such strip. */
	cr_assert_not(fsv_view_get_strip_geometry(view, fsv_trace_find_queue_row(trace, KQ_LO),
						  FSV_STRIP_EVENTS, &sy, &sh));
}

Test(preempt, sample_trace_without_preemption_has_no_event_strip)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "sim-plain-lttng", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) t = fsv_trace_load(path, NULL, NULL, NULL, &error);

	cr_assert_not_null(t, "%s", error ? error->message : "");
	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++)
		cr_assert_not(fsv_trace_get_row(t, r)->has_event_strip, "row %u", r);
}

Test(preempt, pre_07_connector_answers_the_resubmitted_piece_with_both_ids)
{
	guint32 p1 = packet_by_id(1), p3 = packet_by_id(3);
	double x0, y0, x1, y1, peak;
	FsvItem hit;
	g_autofree char *of = NULL, *as = NULL, *piece = NULL;

	cr_assert(fsv_view_get_piece_connector(view, p1, &x0, &y0, &x1, &y1, &peak));
	cr_assert_float_eq(x0, x_of(US(45)), 0.01);
	cr_assert_float_eq(x1, x_of(US(81)), 0.01);
	cr_assert_lt(peak, y0, "the arc rises above the lanes");
	/* The arc over packet 2, in the strip: the resubmitted piece. */
	hit = hit_at(x_of(US(63)), peak + 1);
	cr_assert_eq(hit.kind, FSV_ITEM_PACKET);
	cr_assert_eq(hit.index, p3);
	of = detail(FSV_ITEM_PACKET, p3, "Resubmission of");
	as = detail(FSV_ITEM_PACKET, p1, "Resubmitted as");
	piece = detail(FSV_ITEM_PACKET, p3, "Piece");
	cr_assert_str_eq(of, "packet 1");
	cr_assert_str_eq(as, "packet 3");
	cr_assert_not_null(strstr(piece, "2 "), "%s", piece);
	/* The lane itself still answers the packet that ran there. */
	hit = hit_at(x_of(US(63)), y0 + 4);
	cr_assert_eq(hit.index, packet_by_id(2));
}

Test(preempt, pre_04_bracket_answers_its_reason_and_packet)
{
	guint32 engine = row_of_kind(FSV_ROW_ENGINE), id = marker_of(FSA_MARK_PREEMPTION, 0);
	double sy, sh;
	FsvItem hit;
	g_autofree char *reason = NULL, *packet_id = NULL, *duration = NULL;

	cr_assert(fsv_view_get_strip_geometry(view, engine, FSV_STRIP_EVENTS, &sy, &sh));
	hit = hit_at(x_of(US(42)), sy + 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, id);
	reason = detail(FSV_ITEM_MARKER, id, "Reason");
	packet_id = detail(FSV_ITEM_MARKER, id, "Packet preempted");
	duration = detail(FSV_ITEM_MARKER, id, "Duration");
	cr_assert_not_null(strstr(reason, "PRIORITY"), "%s", reason);
	cr_assert_str_eq(packet_id, "1");
	cr_assert_str_eq(duration, "5.000 µs");
}

Test(preempt, tdr_01_request_never_completed_then_recovery_and_reset)
{
	guint32 engine = row_of_kind(FSV_ROW_ENGINE), tdr = marker_of(FSA_MARK_TDR, 0);
	guint32 request = marker_of(FSA_MARK_PREEMPTION, 2);
	double sy, sh;
	FsvItem hit;
	g_autofree char *completed = NULL, *result = NULL, *reason = NULL, *reset = NULL,
			*guilty = NULL;

	fsv_view_set_range(view, US(0), US(1000));
	cr_assert(fsv_view_get_strip_geometry(view, engine, FSV_STRIP_EVENTS, &sy, &sh));
	cr_assert(fsv_trace_get_marker(trace, request)->is_open);
	completed = detail(FSV_ITEM_MARKER, request, "Completed");
	cr_assert_not_null(completed);
	reason = detail(FSV_ITEM_MARKER, request, "Reason");
	cr_assert_not_null(strstr(reason, "TDR"), "%s", reason);
	hit = hit_at(x_of(US(466)), sy + 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, tdr, "kind %u", fsv_trace_get_marker(trace, hit.index)->kind);
	result = detail(FSV_ITEM_MARKER, tdr, "Result");
	cr_assert_not_null(strstr(result, "ADAPTER_RESET"), "%s", result);
	guilty = detail(FSV_ITEM_MARKER, tdr, "Guilty context");
	cr_assert_not_null(strstr(guilty, "0x8002000000000003"), "%s", guilty);
	cr_assert_not_null(strstr(guilty, "priority 20"), "%s", guilty);
	reset = detail(FSV_ITEM_MARKER, marker_of(FSA_MARK_ENGINE_RESET, 0), "Result");
	cr_assert_not_null(strstr(reset, "failed"), "%s", reset);
}

Test(preempt, tdr_02_detection_spans_the_stall_it_reports)
{
	guint32 engine = row_of_kind(FSV_ROW_ENGINE), detect = marker_of(FSA_MARK_TDR_DETECT, 0);
	const FsvMarker *m = fsv_trace_get_marker(trace, detect);
	double sy, sh;
	FsvItem hit;
	g_autofree char *stalled = NULL, *running = NULL, *reason = NULL;

	cr_assert_eq(m->begin_ns, US(200), "from the last progress");
	cr_assert_eq(m->end_ns, US(400), "to the detection");
	cr_assert_eq(m->row, engine);
	fsv_view_set_range(view, US(0), US(1000));
	cr_assert(fsv_view_get_strip_geometry(view, engine, FSV_STRIP_EVENTS, &sy, &sh));
	hit = hit_at(x_of(US(300)), sy + 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, detect);
	stalled = detail(FSV_ITEM_MARKER, detect, "No progress for");
	running = detail(FSV_ITEM_MARKER, detect, "Context running");
	reason = detail(FSV_ITEM_MARKER, detect, "Reason");
	cr_assert_str_eq(stalled, "200.000 µs");
	cr_assert_not_null(strstr(running, "0x8002000000000003"), "%s", running);
	cr_assert_not_null(strstr(reason, "TIMEOUT"), "%s", reason);
}

Test(preempt, tdr_06_adapter_reset_crosses_every_row_of_its_adapter)
{
	guint32 reset = marker_of(FSA_MARK_ADAPTER_RESET, 0);
	guint32 rows[] = {row_of_kind(FSV_ROW_ENGINE), fsv_trace_find_queue_row(trace, KQ_LO),
			  fsv_trace_find_queue_row(trace, KQ_HI), row_of_kind(FSV_ROW_DISPLAY)};
	double y0, y1;
	g_autofree char *result = NULL;

	fsv_view_set_range(view, US(0), US(1000));
	cr_assert(fsv_view_get_group_extent(view, row_of_kind(FSV_ROW_ADAPTER), &y0, &y1));
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		double ry, rh;
		FsvItem hit;

		cr_assert(fsv_view_get_row_geometry(view, rows[i], &ry, &rh));
		cr_assert_leq(y0, ry);
		cr_assert_geq(y1, ry + rh, "row %u inside the adapter's extent", rows[i]);
		hit = hit_at(floor(x_of(US(458))) + 0.5, ry + rh / 2);
		cr_assert_eq(hit.kind, FSV_ITEM_MARKER, "row %u", rows[i]);
		cr_assert_eq(hit.index, reset, "row %u", rows[i]);
	}
	result = detail(FSV_ITEM_MARKER, reset, "Result");
	cr_assert_str_eq(result, "succeeded");
}

Test(preempt, tdr_04_context_in_error_covers_the_guilty_context_queues_only)
{
	guint32 hi = fsv_trace_find_queue_row(trace, KQ_HI),
		lo = fsv_trace_find_queue_row(trace, KQ_LO);
	guint32 error = marker_of(FSA_MARK_CONTEXT_ERROR, 0);
	const FsvMarker *m = fsv_trace_get_marker(trace, error);
	double ry, rh;
	FsvItem hit;
	g_autofree char *reason = NULL, *context = NULL;

	cr_assert_eq(m->begin_ns, US(462));
	cr_assert(m->is_open, "never destroyed: open to the end");
	fsv_view_set_range(view, US(0), US(1000));
	cr_assert(fsv_view_get_row_geometry(view, hi, &ry, &rh));
	hit = hit_at(x_of(US(700)), ry + 8);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, error);
	cr_assert(fsv_view_get_row_geometry(view, lo, &ry, &rh));
	cr_assert_not(fsv_view_hit_test(view, x_of(US(700)), ry + 8, &hit) &&
			  hit.kind == FSV_ITEM_MARKER &&
			  fsv_trace_get_marker(trace, hit.index)->kind == FSA_MARK_CONTEXT_ERROR,
		      "the innocent context's queue is not in error");
	reason = detail(FSV_ITEM_MARKER, error, "Reason");
	context = detail(FSV_ITEM_MARKER, error, "In error");
	cr_assert_str_eq(reason, "TIMEOUT");
	cr_assert_not_null(strstr(context, "0x8002000000000003"), "%s", context);
}

Test(preempt, pre_03_preemption_details_say_where_it_stopped_and_the_work_left)
{
	guint32 id = marker_of(FSA_MARK_PREEMPTION, 0), slice = marker_of(FSA_MARK_PREEMPTION, 1);
	g_autofree char *at = NULL, *left = NULL, *declared = NULL, *note = NULL, *at2 = NULL;

	at = detail(FSV_ITEM_MARKER, id, "Stopped at");
	left = detail(FSV_ITEM_MARKER, id, "Work left");
	declared = detail(FSV_ITEM_MARKER, id, "Engine declares");
	note = detail(FSV_ITEM_MARKER, id, "Note");
	cr_assert_str_eq(at, "primitive boundary");
	cr_assert_str_eq(left, "39000 GPU ticks (39.000 µs)");
	cr_assert_str_eq(declared, "primitive boundary");
	cr_assert_null(note);
	/* The time-slice one stopped at a DMA buffer boundary: coarser than declared. */
	at2 = detail(FSV_ITEM_MARKER, slice, "Stopped at");
	cr_assert_str_eq(at2, "DMA buffer boundary");
	g_free(note);
	note = detail(FSV_ITEM_MARKER, slice, "Note");
	cr_assert_not_null(note);
}

Test(preempt, pre_06_pre_07_resubmitted_pieces_show_old_and_new_fence_ids)
{
	g_autofree char *paging = NULL, *other = NULL, *first = NULL;

	paging = detail(FSV_ITEM_PACKET, packet_by_id(5), "Fence ids");
	other = detail(FSV_ITEM_PACKET, packet_by_id(3), "Fence ids");
	first = detail(FSV_ITEM_PACKET, packet_by_id(1), "Fence id");
	cr_assert_str_eq(paging, "104 (packet 4) → 104 (kept)");
	cr_assert_str_eq(other, "101 (packet 1) → 103 (new)");
	cr_assert_str_eq(first, "101");
}

Test(preempt, pre_13_display_row_has_vsyncs_flips_and_a_missed_vsync)
{
	guint32 display = row_of_kind(FSV_ROW_DISPLAY), flip1 = marker_of(FSA_MARK_FLIP, 0);
	double ty, th, ly, lh;
	FsvItem hit;
	g_autofree char *latched = NULL, *on_screen = NULL, *missed = NULL, *after = NULL;

	cr_assert_neq(display, FSV_INDEX_NONE);
	cr_assert_eq(fsv_trace_get_row(trace, display)->parent, row_of_kind(FSV_ROW_ADAPTER));
	cr_assert_eq(fsv_trace_get_row(trace, display)->source_id, 0);
	fsv_view_set_range(view, US(550), US(1050));
	cr_assert(fsv_view_get_strip_geometry(view, display, FSV_STRIP_TICKS, &ty, &th));
	cr_assert(fsv_view_get_lane_geometry(view, display, 0, &ly, &lh));
	cr_assert_geq(ly, ty + th, "flips under the vsync strip");
	/* The flip, queued 610 µs, on screen at vsync 2 (700 µs). */
	hit = hit_at(x_of(US(650)), ly + lh / 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, flip1);
	on_screen = detail(FSV_ITEM_MARKER, flip1, "On screen at vsync");
	cr_assert_str_eq(on_screen, "2");
	/* Vsyncs: 2 latched flip 1; 3 latched nothing while flip 2 rendered (missed); 5 came
	 * after the last flip (not missed). */
	hit = hit_at(x_of(US(700)), ty + th / 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	latched = detail(FSV_ITEM_MARKER, hit.index, "Flip latched");
	cr_assert_str_eq(latched, "1");
	hit = hit_at(x_of(US(800)), ty + th / 2);
	cr_assert(fsv_trace_get_marker(trace, hit.index)->is_missed);
	missed = detail(FSV_ITEM_MARKER, hit.index, "Flip latched");
	cr_assert_not_null(strstr(missed, "missed"), "%s", missed);
	hit = hit_at(x_of(US(1000)), ty + th / 2);
	cr_assert_eq(fsv_trace_get_marker(trace, hit.index)->kind, FSA_MARK_VSYNC);
	cr_assert_not(fsv_trace_get_marker(trace, hit.index)->is_missed);
	after = detail(FSV_ITEM_MARKER, hit.index, "Flip latched");
	cr_assert_str_eq(after, "none");
}

/* ---- Pixels ------------------------------------------------------------------------------ */

static cairo_surface_t *
render(const char *png)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 400);
	cairo_t *cr = cairo_create(s);
	FsvRenderOptions o;

	fsv_render_options_init(&o);
	fsv_render_draw(cr, trace, view, &o);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	if (png) {
		g_autofree char *path = g_build_filename(FST_OUT_DIR, png, NULL);

		cairo_surface_write_to_png(s, path);
	}
	return s;
}

static guint32
pixel(cairo_surface_t *s, double x, double y)
{
	const guint8 *data = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);

	return *(const guint32 *) (data + (int) y * stride + (int) x * 4) & 0xffffff;
}

static guint32
rgb24(FsvColor color)
{
	double c[3];

	fsv_render_get_color(color, c);
	return ((guint32) (c[0] * 65535 + 0.5) >> 8) << 16 |
	       ((guint32) (c[1] * 65535 + 0.5) >> 8) << 8 | ((guint32) (c[2] * 65535 + 0.5) >> 8);
}

Test(preempt, pieces_paging_and_brackets_take_their_colours)
{
	guint32 engine = row_of_kind(FSV_ROW_ENGINE);
	double ly, lh, sy, sh;
	cairo_surface_t *s;

	cr_assert(fsv_view_get_lane_geometry(view, engine, 0, &ly, &lh));
	cr_assert(fsv_view_get_strip_geometry(view, engine, FSV_STRIP_EVENTS, &sy, &sh));
	s = render("preemption.png");
	cr_assert_eq(pixel(s, x_of(US(20)), ly + lh / 2), rgb24(FSV_COLOR_PACKET_PREEMPTED));
	cr_assert_eq(pixel(s, x_of(US(140)), ly + lh / 2), rgb24(FSV_COLOR_PACKET_PAGING));
	cr_assert_eq(pixel(s, x_of(US(165)), ly + lh / 2), rgb24(FSV_COLOR_PACKET_PAGING),
		     "the paging packet's resubmitted piece");
	/* Brackets at the top of the strip, by reason: priority 40–45 µs, time slice 150–155. */
	{
		guint32 a = pixel(s, x_of(US(43)), sy + 1), b = pixel(s, x_of(US(153)), sy + 1);
		guint32 want_a = rgb24(FSV_COLOR_PREEMPT_PRIORITY),
			want_b = rgb24(FSV_COLOR_PREEMPTION);

		/* Drawn at 95% over the background: within a few levels of the colour. */
		for (int k = 0; k < 24; k += 8) {
			cr_assert_leq(abs((int) (a >> k & 0xff) - (int) (want_a >> k & 0xff)), 14,
				      "priority bracket 0x%06x, want 0x%06x", a, want_a);
			cr_assert_leq(abs((int) (b >> k & 0xff) - (int) (want_b >> k & 0xff)), 14,
				      "time-slice bracket 0x%06x, want 0x%06x", b, want_b);
		}
	}
	cairo_surface_destroy(s);
}

Test(preempt, tdr_04_device_loss_is_drawn_on_every_queue_of_its_process)
{
	guint32 lost = marker_of(FSA_MARK_DEVICE_LOST, 0);
	guint32 rows[] = {fsv_trace_find_queue_row(trace, KQ_LO),
			  fsv_trace_find_queue_row(trace, KQ_HI)};
	g_autofree char *device = NULL, *reason = NULL;

	fsv_view_set_range(view, US(0), US(1000));
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		double ry, rh;
		FsvItem hit;

		cr_assert(fsv_view_get_row_geometry(view, rows[i], &ry, &rh));
		hit = hit_at(x_of(US(475)), ry + 4);
		cr_assert_eq(hit.kind, FSV_ITEM_MARKER, "row %u", rows[i]);
		cr_assert_eq(hit.index, lost, "row %u", rows[i]);
	}
	device = detail(FSV_ITEM_MARKER, lost, "Device");
	reason = detail(FSV_ITEM_MARKER, lost, "Reason");
	cr_assert_str_eq(device, "0x8001000000000001");
	cr_assert_str_eq(reason, "TIMEOUT");
}

Test(preempt, recovery_and_display_take_their_colours)
{
	guint32 lo = fsv_trace_find_queue_row(trace, KQ_LO),
		hi = fsv_trace_find_queue_row(trace, KQ_HI);
	guint32 display = row_of_kind(FSV_ROW_DISPLAY);
	double ry, rh, ty, th, ly, lh;
	cairo_surface_t *s;
	guint32 c, bg;

	fsv_view_set_range(view, US(0), US(1050));
	s = render("recovery.png");
	/* TDR-06: the adapter reset's purple line on an innocent queue's row. */
	cr_assert(fsv_view_get_row_geometry(view, lo, &ry, &rh));
	cr_assert_eq(pixel(s, floor(x_of(US(458))), ry + rh / 2), rgb24(FSV_COLOR_RESET));
	/* TDR-04: the guilty context's queue is greyed and hatched after the error; the
	 * innocent one is not. */
	cr_assert(fsv_view_get_row_geometry(view, hi, &ry, &rh));
	bg = pixel(s, x_of(US(300)), ry + 10);
	c = pixel(s, x_of(US(700)), ry + 10);
	cr_assert_neq(c, bg, "hatched 0x%06x", c);
	/* PRE-13: the missed vsync is red down through the flips; a flip is blue. */
	cr_assert(fsv_view_get_strip_geometry(view, display, FSV_STRIP_TICKS, &ty, &th));
	cr_assert(fsv_view_get_lane_geometry(view, display, 0, &ly, &lh));
	cr_assert_eq(pixel(s, floor(x_of(US(800))), ly + lh / 2), rgb24(FSV_COLOR_MISSED_VSYNC));
	c = pixel(s, x_of(US(660)), ly + lh / 2);
	cr_assert_gt(c & 0xff, (c >> 16) & 0xff, "a flip is blue: 0x%06x", c);
	cairo_surface_destroy(s);
}

/* Tooltips name each item in one line. */
Test(preempt, titles_name_the_new_items)
{
	static const struct {
		guint8 kind;
		const char *title;
	} want[] = {
	    {FSA_MARK_PREEMPTION, "Preemption (PRIORITY) of packet 1, primitive boundary"},
	    {FSA_MARK_TDR_DETECT, "TDR detection: no progress for 200.000 µs"},
	    {FSA_MARK_TDR, "TDR, guilty context 0x8002000000000003"},
	    {FSA_MARK_ENGINE_RESET, "Engine reset (failed)"},
	    {FSA_MARK_ADAPTER_RESET, "Adapter reset"},
	    {FSA_MARK_CONTEXT_ERROR, "Context 0x8002000000000003 in error"},
	    {FSA_MARK_FLIP, "Flip 1"},
	    {FSA_MARK_VSYNC, "Vsync 1"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
		FsvItem item = {FSV_ITEM_MARKER, marker_of(want[i].kind, 0), FSV_INDEX_NONE};
		g_autofree char *title = fsv_trace_dup_item_title(trace, &item);

		cr_assert_str_eq(title, want[i].title);
	}
}

/* ---- Level of detail ------------------------------------------------------------------- */

/* The level-of-detail invariant (docs/viewer.md) for preemption brackets: 2000 time-slice
 * preemptions of 5 ns every 100 ns, at a zoom where many share a pixel: every column the full
 * draw paints in the brackets' bar, the LOD draw paints too, and the LOD draw paints nothing
 * further than 2 px from the full draw's. */
static void
build_many(void)
{
	events = fst_events_new();
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(4), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	ev("adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count", UINT64_C(1),
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("process_create", T0, "process_id", PID, NULL);
	ev("context_create", T0, "process_id", PID, "device_handle", DEV, "context_handle", CTX_LO,
	   "engine_id", UINT64_C(0), NULL);
	ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX_LO, "hwqueue_handle",
	   KQ_LO, "engine_id", UINT64_C(0), "submission_mode",
	   (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	for (uint64_t i = 0; i < 2000; i++) {
		uint64_t at = US(10) + i * 100;

		ev("preempt_request", at, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
		   "context_handle", CTX_LO, "request_id", i + 1, "reason",
		   (uint64_t) FSTP_PREEMPT_REASON_TIME_SLICE, NULL);
		ev("preempt_complete", at + 5, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
		   "context_handle", CTX_LO, "request_id", i + 1, "packet_id", UINT64_C(0),
		   "granularity", (uint64_t) FSTP_PREEMPT_GRANULARITY_NONE, "gpu_ts", at + 5, NULL);
	}
	ev("process_create", US(1000), "process_id", PID + 1, NULL);
	trace = fst_trace_from_events("many", events);
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 400);
	fsv_view_set_range(view, US(0), US(1000));
}

TestSuite(preempt_lod, .init = build_many, .fini = teardown);

static cairo_surface_t *
render_lod(bool no_lod, FsvRenderStats *stats)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 400);
	cairo_t *cr = cairo_create(s);
	FsvRenderOptions o;

	fsv_render_options_init(&o);
	o.no_lod = no_lod;
	o.show_legend = false;
	fsv_render_draw_with_stats(cr, trace, view, &o, stats);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	return s;
}

Test(preempt_lod, brackets_aggregate_without_losing_a_column)
{
	guint32 engine = row_of_kind(FSV_ROW_ENGINE);
	double sy, sh;
	int lw = fsv_view_get_label_width(view);
	FsvRenderStats stats;
	cairo_surface_t *full, *lod;
	guint32 bg;
	guint painted = 0;

	cr_assert(fsv_view_get_strip_geometry(view, engine, FSV_STRIP_EVENTS, &sy, &sh));
	full = render_lod(true, &stats);
	lod = render_lod(false, &stats);
	cr_assert_gt(stats.buckets_drawn, 0, "the brackets are drawn as aggregates");
	cr_assert_lt(stats.items_drawn + stats.buckets_drawn, 2000);
	bg = pixel(full, x_of(US(5)), sy + 1);
	for (int x = lw; x < 1600; x++) {
		bool in_full = pixel(full, x, sy + 1) != bg, in_lod = pixel(lod, x, sy + 1) != bg;

		painted += in_full;
		if (in_full)
			cr_assert(in_lod, "column %d painted by the full draw only", x);
		if (in_lod) {
			bool near = false;

			for (int k = MAX(x - 2, lw); k <= MIN(x + 2, 1599) && !near; k++)
				near = pixel(full, k, sy + 1) != bg;
			cr_assert(near, "column %d painted by the LOD draw only", x);
		}
	}
	cr_assert_gt(painted, 100, "the brackets' bar is drawn");
	cairo_surface_destroy(full);
	cairo_surface_destroy(lod);
}
