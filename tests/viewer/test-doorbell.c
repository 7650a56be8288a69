/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: issue 12's items on an exact synthetic timeline (suite unit): a user-mode queue's
 * doorbell connection band (UMS-12, UMS-14: the status word's intervals), ring ticks with their
 * level of detail, a victimization arrow from the victim's band to the beneficiary's (UMS-23),
 * a suspended context hatched on each of its queues (SUS-01), an engine's F-state row (FST-03)
 * and an adapter's D-state row (DST-01): layout, hit testing, details and pixels;
 * and what a whole-trace draw of a mapped index with 300 000 rings reads (issue 15 §1: the
 * buckets' marker styles, not the markers).
 *
 * The trace is built from normalized events fed to the analyzer model (as a recording would be
 * read), so the tests know every time exactly. All times are T0 + n µs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <cairo.h>
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "fencescope-tp-enums.h"
#include "fsv-index.h"
#include "fsv-render.h"
#include "fst-timeline.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define PID   UINT64_C(1)
#define DEV   UINT64_C(0x8001000000000001)
#define CTX   UINT64_C(0x8002000000000002)
#define CTX2  UINT64_C(0x8002000000000003)
#define UQ    UINT64_C(0x8003000000000005) /* the victim */
#define UQ2   UINT64_C(0x8003000000000009) /* the beneficiary */
#define DB    UINT64_C(0x8005000000000001)
#define DB2   UINT64_C(0x8005000000000002)
#define T0    UINT64_C(1000000000)
#define US(n) (T0 + (uint64_t) (n) *1000)
#define RINGS 2000 /* UQ rings every 100 ns from 30 µs to 230 µs */

static GArray *events;
static FsvTrace *trace;
static FsvView *view;

/* The events of the timeline being written (fst-timeline.h). */
#define ev(...) fst_event_add(events, __VA_ARGS__)

static void
status(uint64_t ts, uint64_t queue, uint64_t doorbell, int old_status, int new_status)
{
	ev("doorbell_status", ts, "process_id", PID, "hwqueue_handle", queue, "doorbell_handle",
	   doorbell, "old_status", (uint64_t) old_status, "new_status", (uint64_t) new_status,
	   NULL);
}

static void
build(void)
{
	events = fst_events_new();
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(2), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	ev("adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count", UINT64_C(1),
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("process_create", T0, "process_id", PID, NULL);
	ev("device_create", T0, "process_id", PID, "adapter_id", UINT64_C(0), "device_handle", DEV,
	   NULL);
	ev("context_create", T0, "process_id", PID, "device_handle", DEV, "context_handle", CTX,
	   "engine_id", UINT64_C(0), NULL);
	ev("context_create", T0, "process_id", PID, "device_handle", DEV, "context_handle", CTX2,
	   "engine_id", UINT64_C(0), NULL);
	ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX, "hwqueue_handle", UQ,
	   "engine_id", UINT64_C(0), "submission_mode", (uint64_t) FSTP_SUBMISSION_MODE_USER_MODE,
	   NULL);
	ev("hwqueue_create", T0, "process_id", PID, "context_handle", CTX2, "hwqueue_handle", UQ2,
	   "engine_id", UINT64_C(0), "submission_mode", (uint64_t) FSTP_SUBMISSION_MODE_USER_MODE,
	   NULL);
	ev("doorbell_create", US(10), "process_id", PID, "hwqueue_handle", UQ, "doorbell_handle",
	   DB, "status", (uint64_t) FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, NULL);
	ev("doorbell_create", US(10), "process_id", PID, "hwqueue_handle", UQ2, "doorbell_handle",
	   DB2, "status", (uint64_t) FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, NULL);
	/* UQ connects (UMS-12: the store, then ConnectDoorbell's event) and rings. */
	status(US(20), UQ, DB, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
	       FSTP_DOORBELL_STATUS_CONNECTED);
	ev("doorbell_connect", US(20), "process_id", PID, "hwqueue_handle", UQ, "doorbell_handle",
	   DB, "physical_doorbell", UINT64_C(0), "status",
	   (uint64_t) FSTP_DOORBELL_STATUS_CONNECTED, NULL);
	for (uint64_t i = 0; i < RINGS; i++)
		ev("doorbell_ring", US(30) + i * 100, "process_id", PID, "hwqueue_handle", UQ,
		   "doorbell_handle", DB, "write_ptr_bytes", (i + 1) * 64, "status",
		   (uint64_t) FSTP_DOORBELL_STATUS_CONNECTED, NULL);
	/* UMS-23: UQ2 takes UQ's physical doorbell at 300 µs. */
	ev("doorbell_victimize", US(300), "adapter_id", UINT64_C(0), "victim_hwqueue_handle", UQ,
	   "victim_doorbell_handle", DB, "connecting_hwqueue_handle", UQ2, "physical_doorbell",
	   UINT64_C(0), NULL);
	status(US(300), UQ, DB, FSTP_DOORBELL_STATUS_CONNECTED,
	       FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
	ev("doorbell_disconnect", US(300), "process_id", PID, "hwqueue_handle", UQ,
	   "doorbell_handle", DB, "physical_doorbell", UINT64_C(0), "status",
	   (uint64_t) FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, "reason",
	   (uint64_t) FSTP_DISCONNECT_REASON_VICTIMIZED, NULL);
	status(US(301), UQ2, DB2, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
	       FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD);
	ev("doorbell_connect", US(301), "process_id", PID, "hwqueue_handle", UQ2, "doorbell_handle",
	   DB2, "physical_doorbell", UINT64_C(0), "status",
	   (uint64_t) FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD, NULL);
	/* CTX suspended 400–500 µs; engine 0 in F1 550–650 µs; the adapter in D3 700–800 µs. */
	ev("context_suspend", US(400), "adapter_id", UINT64_C(0), "context_handle", CTX,
	   "hwqueue_count", UINT64_C(1), NULL);
	ev("context_resume", US(500), "adapter_id", UINT64_C(0), "context_handle", CTX,
	   "hwqueue_count", UINT64_C(1), NULL);
	ev("engine_power", US(550), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "old_state", (uint64_t) FSTP_ENGINE_POWER_F0, "new_state",
	   (uint64_t) FSTP_ENGINE_POWER_F1, NULL);
	ev("engine_power", US(650), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "old_state", (uint64_t) FSTP_ENGINE_POWER_F1, "new_state",
	   (uint64_t) FSTP_ENGINE_POWER_F0, NULL);
	ev("device_power", US(700), "adapter_id", UINT64_C(0), "old_state",
	   (uint64_t) FSTP_DEVICE_POWER_D0, "new_state", (uint64_t) FSTP_DEVICE_POWER_D3, NULL);
	ev("device_power", US(800), "adapter_id", UINT64_C(0), "old_state",
	   (uint64_t) FSTP_DEVICE_POWER_D3, "new_state", (uint64_t) FSTP_DEVICE_POWER_D0, NULL);
	/* UQ's doorbell dies (ABORT) at 900 µs; the trace ends at 1000 µs. */
	status(US(900), UQ, DB, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
	       FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT);
	ev("doorbell_destroy", US(1000), "process_id", PID, "hwqueue_handle", UQ2,
	   "doorbell_handle", DB2, NULL);

	trace = fst_trace_from_events("doorbells", events);
	cr_assert_null(fsv_trace_get_partial_error(trace), "%s",
		       fsv_trace_get_partial_error(trace));
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 400);
	fsv_view_set_range(view, US(0), US(1000));
}

static void
teardown(void)
{
	fsv_view_free(view);
	fsv_trace_unref(trace);
	g_array_unref(events);
}

TestSuite(doorbell, .init = build, .fini = teardown);

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

/* The marker under (x, y), failing the test when there is none. */
static const FsvMarker *
marker_at(double x, double y, guint32 *index)
{
	FsvItem hit;

	cr_assert(fsv_view_hit_test(view, x, y, &hit), "nothing at %.1f, %.1f", x, y);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER, "item kind %d at %.1f, %.1f", hit.kind, x, y);
	if (index)
		*index = hit.index;
	return fsv_trace_get_marker(trace, hit.index);
}

/* The value of NAME in an item's details. */
static char *
detail(guint32 marker, const char *name)
{
	FsvItem item = {FSV_ITEM_MARKER, marker, FSV_INDEX_NONE};
	g_auto(GStrv) d = fsv_trace_describe_item(trace, &item);

	for (guint i = 0; d[i] && d[i + 1]; i += 2)
		if (strcmp(d[i], name) == 0)
			return g_strdup(d[i + 1]);
	return NULL;
}

Test(doorbell, rows_get_a_band_per_doorbell_queue_and_power_rows_only_with_such_events)
{
	guint32 uq = fsv_trace_find_queue_row(trace, UQ),
		uq2 = fsv_trace_find_queue_row(trace, UQ2);
	guint32 f = row_of_kind(FSV_ROW_ENGINE_POWER), d = row_of_kind(FSV_ROW_DEVICE_POWER);
	double ty, th, by, bh, ry, rh;

	cr_assert_neq(uq, FSV_INDEX_NONE);
	cr_assert(fsv_trace_get_row(trace, uq)->has_doorbell_band);
	cr_assert(fsv_trace_get_row(trace, uq2)->has_doorbell_band);
	/* The band lies under the tick strip, inside the row. */
	cr_assert(fsv_view_get_strip_geometry(view, uq, FSV_STRIP_TICKS, &ty, &th));
	cr_assert(fsv_view_get_strip_geometry(view, uq, FSV_STRIP_BAND, &by, &bh));
	cr_assert(fsv_view_get_row_geometry(view, uq, &ry, &rh));
	cr_assert_eq(by, ty + th);
	cr_assert_gt(bh, 0);
	cr_assert_leq(by + bh, ry + rh);
	/* FST-03 / DST-01: an F-state row under its engine, a D-state row under its adapter. */
	cr_assert_neq(f, FSV_INDEX_NONE);
	cr_assert_neq(d, FSV_INDEX_NONE);
	cr_assert_eq(fsv_trace_get_row(trace, fsv_trace_get_row(trace, f)->parent)->kind,
		     FSV_ROW_ENGINE);
	cr_assert_eq(fsv_trace_get_row(trace, fsv_trace_get_row(trace, d)->parent)->kind,
		     FSV_ROW_ADAPTER);
}

Test(doorbell, sample_trace_without_doorbells_has_no_band_and_no_power_rows)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "sim-plain-lttng", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) t = fsv_trace_load(path, NULL, NULL, NULL, &error);

	cr_assert_not_null(t, "%s", error ? error->message : "");
	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++) {
		const FsvRow *row = fsv_trace_get_row(t, r);

		cr_assert_not(row->has_doorbell_band, "row %u", r);
		cr_assert(row->kind != FSV_ROW_ENGINE_POWER && row->kind != FSV_ROW_DEVICE_POWER);
	}
}

Test(doorbell, ums_14_band_answers_the_status_word_at_each_time)
{
	guint32 uq = fsv_trace_find_queue_row(trace, UQ),
		uq2 = fsv_trace_find_queue_row(trace, UQ2);
	double by, bh, by2, bh2;
	static const struct {
		uint64_t us;
		int status;
	} want[] = {
	    {15, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY},
	    {100, FSTP_DOORBELL_STATUS_CONNECTED},
	    {350, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY},
	    {950, FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT},
	};
	guint32 id;
	const FsvMarker *m;
	g_autofree char *state = NULL, *duration = NULL, *physical = NULL;

	cr_assert(fsv_view_get_strip_geometry(view, uq, FSV_STRIP_BAND, &by, &bh));
	for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
		m = marker_at(x_of(US(want[i].us)), by + bh / 2, NULL);
		cr_assert_eq(m->kind, FSA_MARK_DOORBELL_STATE, "at %" PRIu64 " µs", want[i].us);
		cr_assert_eq(m->code, want[i].status, "at %" PRIu64 " µs", want[i].us);
	}
	m = marker_at(x_of(US(100)), by + bh / 2, &id);
	cr_assert_eq(m->begin_ns, US(20));
	cr_assert_eq(m->end_ns, US(300));
	state = detail(id, "State");
	duration = detail(id, "Duration");
	physical = detail(id, "Physical doorbell");
	cr_assert_str_eq(state, "CONNECTED");
	cr_assert_not_null(duration);
	cr_assert_str_eq(physical, "0");
	/* The beneficiary's notify-KMD connection, until its doorbell is destroyed. */
	cr_assert(fsv_view_get_strip_geometry(view, uq2, FSV_STRIP_BAND, &by2, &bh2));
	m = marker_at(x_of(US(600)), by2 + bh2 / 2, NULL);
	cr_assert_eq(m->code, FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD);
	cr_assert_eq(m->end_ns, US(1000));
}

Test(doorbell, ring_ticks_answer_their_write_pointer_and_status_read)
{
	guint32 uq = fsv_trace_find_queue_row(trace, UQ), id;
	double ty, th;
	const FsvMarker *m;
	g_autofree char *wp = NULL, *read = NULL;

	/* Close enough that single rings are told apart (2 px per ring). */
	fsv_view_set_range(view, US(100), US(100) + 100 * 680);
	cr_assert(fsv_view_get_strip_geometry(view, uq, FSV_STRIP_TICKS, &ty, &th));
	m = marker_at(x_of(US(30) + 1000 * 100), ty + th / 2, &id);
	cr_assert_eq(m->kind, FSA_MARK_DOORBELL_RING);
	cr_assert_eq(m->begin_ns, US(30) + 1000 * 100);
	wp = detail(id, "Write pointer");
	read = detail(id, "Status read");
	cr_assert_str_eq(wp, "64064 bytes");
	cr_assert_str_eq(read, "CONNECTED");
}

Test(doorbell, ums_23_victimization_arrow_goes_from_victim_band_to_beneficiary_band)
{
	guint32 uq = fsv_trace_find_queue_row(trace, UQ),
		uq2 = fsv_trace_find_queue_row(trace, UQ2);
	guint32 victimize = FSV_INDEX_NONE, id;
	double x, y0, y1, by, bh, by2, bh2;
	const FsvMarker *m;
	g_autofree char *victim = NULL, *beneficiary = NULL, *physical = NULL;

	for (guint32 i = 0; i < fsv_trace_get_marker_count(trace); i++)
		if (fsv_trace_get_marker(trace, i)->kind == FSA_MARK_DOORBELL_VICTIMIZE)
			victimize = i;
	cr_assert_neq(victimize, FSV_INDEX_NONE);
	cr_assert(fsv_view_get_victim_arrow(view, victimize, &x, &y0, &y1));
	cr_assert(fsv_view_get_strip_geometry(view, uq, FSV_STRIP_BAND, &by, &bh));
	cr_assert(fsv_view_get_strip_geometry(view, uq2, FSV_STRIP_BAND, &by2, &bh2));
	cr_assert_float_eq(y0, by + bh / 2, 0.01);
	cr_assert_float_eq(y1, by2 + bh2 / 2, 0.01);
	cr_assert_float_eq(x, floor(x_of(US(300))) + 0.5, 0.01);
	/* Its shaft, halfway between the two rows, answers the victimization. */
	m = marker_at(x, (y0 + y1) / 2, &id);
	cr_assert_eq(id, victimize);
	cr_assert_eq(m->hwqueue_handle, UQ);
	cr_assert_eq(m->other_handle, UQ2);
	victim = detail(id, "Victim");
	beneficiary = detail(id, "Beneficiary");
	physical = detail(id, "Physical doorbell");
	cr_assert_not_null(strstr(victim, "0x8003000000000005"), "%s", victim);
	cr_assert_not_null(strstr(beneficiary, "0x8003000000000009"), "%s", beneficiary);
	cr_assert_str_eq(physical, "0");
}

Test(doorbell, sus_01_suspension_is_hatched_on_the_queues_of_its_context_only)
{
	guint32 uq = fsv_trace_find_queue_row(trace, UQ),
		uq2 = fsv_trace_find_queue_row(trace, UQ2);
	double ry, rh;
	FsvItem hit;
	const FsvMarker *m;

	cr_assert(fsv_view_get_row_geometry(view, uq, &ry, &rh));
	m = marker_at(x_of(US(450)), ry + 10, NULL);
	cr_assert_eq(m->kind, FSA_MARK_CONTEXT_SUSPENDED);
	cr_assert_eq(m->begin_ns, US(400));
	cr_assert_eq(m->end_ns, US(500));
	/* UQ2 is on another context: nothing there but its band. */
	cr_assert(fsv_view_get_row_geometry(view, uq2, &ry, &rh));
	cr_assert_not(fsv_view_hit_test(view, x_of(US(450)), ry + 10, &hit) &&
		      hit.kind == FSV_ITEM_MARKER &&
		      fsv_trace_get_marker(trace, hit.index)->kind == FSA_MARK_CONTEXT_SUSPENDED);
}

Test(doorbell, fst_03_dst_01_power_rows_answer_their_low_power_ranges)
{
	double ry, rh;
	FsvItem hit;
	const FsvMarker *m;
	guint32 f = row_of_kind(FSV_ROW_ENGINE_POWER), d = row_of_kind(FSV_ROW_DEVICE_POWER), id;
	g_autofree char *state = NULL;

	cr_assert(fsv_view_get_row_geometry(view, f, &ry, &rh));
	m = marker_at(x_of(US(600)), ry + rh / 2, &id);
	cr_assert_eq(m->kind, FSA_MARK_ENGINE_F1);
	cr_assert_eq(m->end_ns - m->begin_ns, 100000);
	state = detail(id, "State");
	cr_assert_not_null(strstr(state, "F1"));
	cr_assert_not(fsv_view_hit_test(view, x_of(US(200)), ry + rh / 2, &hit), "F0 there");
	cr_assert(fsv_view_get_row_geometry(view, d, &ry, &rh));
	m = marker_at(x_of(US(750)), ry + rh / 2, NULL);
	cr_assert_eq(m->kind, FSA_MARK_DEVICE_D3);
}

/* ---- Pixels ------------------------------------------------------------------------------ */

static cairo_surface_t *
render(bool no_lod, const char *png)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 400);
	cairo_t *cr = cairo_create(s);
	FsvRenderOptions o;

	fsv_render_options_init(&o);
	o.no_lod = no_lod;
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
	/* As cairo stores a colour: 16 bits rounded, then the high byte. */
	return ((guint32) (c[0] * 65535 + 0.5) >> 8) << 16 |
	       ((guint32) (c[1] * 65535 + 0.5) >> 8) << 8 | ((guint32) (c[2] * 65535 + 0.5) >> 8);
}

Test(doorbell, band_pixels_take_the_colour_of_the_state)
{
	guint32 uq = fsv_trace_find_queue_row(trace, UQ),
		uq2 = fsv_trace_find_queue_row(trace, UQ2);
	double by, bh, by2, bh2;
	cairo_surface_t *s;

	cr_assert(fsv_view_get_strip_geometry(view, uq, FSV_STRIP_BAND, &by, &bh));
	cr_assert(fsv_view_get_strip_geometry(view, uq2, FSV_STRIP_BAND, &by2, &bh2));
	s = render(false, "doorbells.png");
	cr_assert_eq(pixel(s, x_of(US(100)), by + 1), rgb24(FSV_COLOR_DOORBELL_CONNECTED));
	cr_assert_eq(pixel(s, x_of(US(350)), by + 1), rgb24(FSV_COLOR_DOORBELL_RETRY),
		     "0x%06x at %.1f,%.1f, want 0x%06x", pixel(s, x_of(US(350)), by + 1),
		     x_of(US(350)), by + 1, rgb24(FSV_COLOR_DOORBELL_RETRY));
	cr_assert_eq(pixel(s, x_of(US(950)), by + 1), rgb24(FSV_COLOR_DOORBELL_ABORT));
	cr_assert_eq(pixel(s, x_of(US(600)), by2 + 1), rgb24(FSV_COLOR_DOORBELL_NOTIFY_KMD));
	/* Before its doorbell exists a queue has no state: the band is blank there. */
	cr_assert_neq(pixel(s, x_of(US(5)), by + 1), rgb24(FSV_COLOR_DOORBELL_RETRY));
	cairo_surface_destroy(s);
}

/* The level-of-detail invariant (docs/viewer.md) for the ring ticks: at a far zoom every pixel
 * column a full draw ticks, the LOD draw ticks too, and the LOD draw ticks nothing further than
 * 2 px from a full draw's tick. */
Test(doorbell, ring_ticks_aggregate_without_losing_a_column)
{
	guint32 uq = fsv_trace_find_queue_row(trace, UQ);
	double ty, th;
	cairo_surface_t *full, *lod;
	guint32 bg;
	int lw = fsv_view_get_label_width(view);
	FsvRenderStats stats;
	cairo_surface_t *probe = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 400);
	cairo_t *cr = cairo_create(probe);
	FsvRenderOptions o;

	/* 2000 rings over 200 µs in ~1350 px: several per pixel, aggregated. */
	fsv_view_set_range(view, US(0), US(1000));
	cr_assert(fsv_view_get_strip_geometry(view, uq, FSV_STRIP_TICKS, &ty, &th));
	full = render(true, NULL);
	lod = render(false, NULL);
	fsv_render_options_init(&o);
	fsv_render_draw_with_stats(cr, trace, view, &o, &stats);
	cr_assert_gt(stats.buckets_drawn, 0, "the rings are drawn as aggregates");
	cr_assert_lt(stats.items_drawn + stats.buckets_drawn, RINGS);
	cairo_destroy(cr);
	cairo_surface_destroy(probe);
	bg = pixel(full, x_of(US(5)), ty + th / 2);
	for (int x = lw; x < 1600; x++) {
		bool in_full = pixel(full, x, ty + th / 2) != bg;
		bool in_lod = pixel(lod, x, ty + th / 2) != bg;

		if (in_full)
			cr_assert(in_lod, "column %d ticked by the full draw only", x);
		if (in_lod) {
			bool near = false;

			for (int k = MAX(x - 2, lw); k <= MIN(x + 2, 1599) && !near; k++)
				near = pixel(full, k, ty + th / 2) != bg;
			cr_assert(near, "column %d ticked by the LOD draw only", x);
		}
	}
	cairo_surface_destroy(full);
	cairo_surface_destroy(lod);
}

Test(doorbell, victimization_arrow_is_drawn_between_the_rows)
{
	guint32 victimize = FSV_INDEX_NONE;
	double x, y0, y1;
	cairo_surface_t *s;
	guint32 c;

	for (guint32 i = 0; i < fsv_trace_get_marker_count(trace); i++)
		if (fsv_trace_get_marker(trace, i)->kind == FSA_MARK_DOORBELL_VICTIMIZE)
			victimize = i;
	cr_assert(fsv_view_get_victim_arrow(view, victimize, &x, &y0, &y1));
	s = render(false, NULL);
	c = pixel(s, x, (y0 + y1) / 2);
	/* The orange shaft (antialiased against the row's background: red well above blue). */
	cr_assert_gt((c >> 16) & 0xff, (c & 0xff) + 60, "pixel 0x%06x", c);
	cairo_surface_destroy(s);
}

/* The recorded doorbell-pressure scenario (6 user-mode queues on 2 physical doorbells): every
 * queue has its band, and each victimization's arrow, where it is drawn apart from the others,
 * answers that victimization with its victim and beneficiary. */
Test(recorded, doorbell_pressure_bands_and_arrows)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "doorbell-pressure", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) t = fsv_trace_load(path, NULL, NULL, NULL, &error);
	g_autoptr(FsvView) v = NULL;
	guint queues = 0, victimizations = 0, answered = 0;

	cr_assert_not_null(t, "%s", error ? error->message : "");
	v = fsv_view_new(t);
	fsv_view_set_size(v, 1600, 1200);
	fsv_view_fit(v);
	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++) {
		const FsvRow *row = fsv_trace_get_row(t, r);

		if (row->kind != FSV_ROW_QUEUE)
			continue;
		queues++;
		cr_assert(row->has_doorbell_band, "queue row %u has no band", r);
	}
	cr_assert_eq(queues, 6);
	for (guint32 i = 0; i < fsv_trace_get_marker_count(t); i++) {
		const FsvMarker *m = fsv_trace_get_marker(t, i);
		double x, y0, y1;
		FsvItem hit;

		if (m->kind != FSA_MARK_DOORBELL_VICTIMIZE)
			continue;
		victimizations++;
		cr_assert(fsv_view_get_victim_arrow(v, i, &x, &y0, &y1));
		/* Zoomed on it, its shaft halfway between the two bands is its arrow. */
		fsv_view_set_range(v, m->begin_ns - 2000, m->begin_ns + 2000);
		cr_assert(fsv_view_get_victim_arrow(v, i, &x, &y0, &y1));
		if (fsv_view_hit_test(v, x, (y0 + y1) / 2, &hit) && hit.kind == FSV_ITEM_MARKER &&
		    fsv_trace_get_marker(t, hit.index)->kind == FSA_MARK_DOORBELL_VICTIMIZE &&
		    fsv_trace_get_marker(t, hit.index)->begin_ns == m->begin_ns)
			answered++;
		fsv_view_fit(v);
	}
	cr_assert_gt(victimizations, 0);
	/* Victimizations at the same time share their pixel column: one of them answers. */
	cr_assert_geq(answered * 2, victimizations, "%u of %u arrows answered", answered,
		      victimizations);
}

/* ---- Drawing cost of a mapped index (issue 15 §1) ---------------------------------------- */

#define MANY_RINGS 300000 /* 33.6 MB of FsvMarker: thousands of pages */

/* Pages of [data, data + size) mapped into this process now (/proc/self/pagemap's present
 * bit): what the process has touched of a file mapping, not what the page cache holds. */
static gsize
resident_bytes(const void *data, gsize size)
{
	gsize page = (gsize) sysconf(_SC_PAGESIZE), resident = 0;
	guintptr first = (guintptr) data / page, last = ((guintptr) data + size + page - 1) / page;
	int pagemap = open("/proc/self/pagemap", O_RDONLY);

	cr_assert_geq(pagemap, 0, "/proc/self/pagemap: %s", g_strerror(errno));
	for (guintptr p = first; p < last; p++) {
		guint64 entry = 0;

		cr_assert_eq(pread(pagemap, &entry, sizeof(entry), (off_t) (p * sizeof(entry))),
			     (ssize_t) sizeof(entry));
		if (entry >> 63 & 1)
			resident += page;
	}
	close(pagemap);
	return resident;
}

/* A whole-trace draw of a mapped index draws the rings as buckets, and a bucket is drawn from
 * its top marker's 4-byte style (MKST), never from the 112-byte marker: the marker array of
 * the mapping stays unread (on a 100 M event trace it is 756 MB, and reading each bucket's top
 * made all of it resident at the first draw). */
Test(marker_styles, whole_trace_draw_of_a_mapped_index_leaves_the_marker_array_unread)
{
	g_autoptr(GArray) many = fst_events_new();
	g_autoptr(GError) error = NULL;
	g_autofree char *dir = g_dir_make_tmp("fsv-test-styles-XXXXXX", &error);
	g_autofree char *file = NULL;
	g_autoptr(FsvTrace) built = NULL;
	g_autoptr(FsvTrace) mapped = NULL;
	FsvView *v;
	cairo_surface_t *s;
	cairo_t *cr;
	FsvRenderOptions o;
	FsvRenderStats stats;
	gsize markers_size, resident;
	guint32 uq;
	double ty, th;
	guint32 ticked = 0;

	cr_assert_not_null(dir, "%s", error ? error->message : "?");
	fst_event_add(many, "trace_info", T0, "format_major", UINT64_C(1), "format_minor",
		      UINT64_C(2), "clock_mode", (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	fst_event_add(many, "adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count",
		      UINT64_C(1), "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	fst_event_add(many, "process_create", T0, "process_id", PID, NULL);
	fst_event_add(many, "device_create", T0, "process_id", PID, "adapter_id", UINT64_C(0),
		      "device_handle", DEV, NULL);
	fst_event_add(many, "context_create", T0, "process_id", PID, "device_handle", DEV,
		      "context_handle", CTX, "engine_id", UINT64_C(0), NULL);
	fst_event_add(many, "hwqueue_create", T0, "process_id", PID, "context_handle", CTX,
		      "hwqueue_handle", UQ, "engine_id", UINT64_C(0), "submission_mode",
		      (uint64_t) FSTP_SUBMISSION_MODE_USER_MODE, NULL);
	fst_event_add(many, "doorbell_create", US(10), "process_id", PID, "hwqueue_handle", UQ,
		      "doorbell_handle", DB, "status",
		      (uint64_t) FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, NULL);
	fst_event_add(many, "doorbell_connect", US(20), "process_id", PID, "hwqueue_handle", UQ,
		      "doorbell_handle", DB, "physical_doorbell", UINT64_C(0), "status",
		      (uint64_t) FSTP_DOORBELL_STATUS_CONNECTED, NULL);
	/* A ring every 1 µs for 300 ms: ~150 per pixel column at 1920 px. */
	for (uint64_t i = 0; i < MANY_RINGS; i++)
		fst_event_add(many, "doorbell_ring", US(30 + i), "process_id", PID,
			      "hwqueue_handle", UQ, "doorbell_handle", DB, "write_ptr_bytes",
			      (i + 1) * 64, "status", (uint64_t) FSTP_DOORBELL_STATUS_CONNECTED,
			      NULL);
	built = fst_trace_from_events("many-rings", many);
	cr_assert_geq(fsv_trace_get_marker_count(built), MANY_RINGS);
	file = g_build_filename(dir, "rings.fsvi", NULL);
	cr_assert(fsv_index_save(built, "k", file, &error), "%s", error ? error->message : "?");
	mapped = fsv_index_map(file, "k", fsv_trace_get_path(built), &error);
	cr_assert_not_null(mapped, "%s", error ? error->message : "?");
	markers_size = fsv_trace_get_marker_count(mapped) * sizeof(FsvMarker);

	v = fsv_view_new(mapped);
	fsv_view_set_size(v, 1920, 1080);
	fsv_view_fit(v);
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1920, 1080);
	cr = cairo_create(s);
	fsv_render_options_init(&o);
	fsv_render_draw_with_stats(cr, mapped, v, &o, &stats);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	resident = resident_bytes(fsv_trace_get_marker(mapped, 0), markers_size);

	/* The rings were drawn, as buckets, and tick the strip. */
	cr_assert_gt(stats.buckets_drawn, 1000, "%" G_GUINT64_FORMAT " buckets",
		     (guint64) stats.buckets_drawn);
	uq = fsv_trace_find_queue_row(mapped, UQ);
	cr_assert(fsv_view_get_strip_geometry(v, uq, FSV_STRIP_TICKS, &ty, &th));
	for (int x = (int) ceil(fsv_view_time_to_x(v, US(40)));
	     x < (int) floor(fsv_view_time_to_x(v, US(30 + MANY_RINGS - 10))); x++) {
		guint32 c = pixel(s, x, ty + th / 2);

		/* The tick colour (#4a5568, 85 % opaque) over the row's light background. */
		ticked += (c >> 16 & 0xff) < 0x90 && (c >> 8 & 0xff) < 0x90 && (c & 0xff) < 0x90;
	}
	cr_assert_gt(ticked, 1000, "%u columns ticked", ticked);
	/* A few pages at most (the long markers drawn one by one: the band, the connection), and
	 * no bucket's top: reading one top per bucket would map nearly all of it. */
	cr_assert_lt(resident, markers_size / 20, "%zu of %zu bytes of markers resident", resident,
		     markers_size);

	cairo_surface_destroy(s);
	fsv_view_free(v);
	g_unlink(file);
	g_rmdir(dir);
}
