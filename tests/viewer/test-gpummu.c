/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: issue 14's items on an exact synthetic timeline (suite unit): a GPU page fault
 * (MMU-14) drawn on its engine's row and on the queue rows of the faulting context, tied to the
 * recovery that followed (TDR-06: the TDR, the engine reset, the context in error) in its
 * details and, when selected, in the pixels; layout, hit testing, details, pixels and level of
 * detail.
 *
 * The trace is built from normalized events fed to the analyzer model, as a recording would be
 * read, so the tests know every time exactly. GPU ticks are nanoseconds and the clock pairs map
 * them one to one: all times are T0 + n µs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
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

#define PID_A    UINT64_C(1)
#define PID_B    UINT64_C(2)
#define DEV_A    UINT64_C(0x8001000000000001)
#define DEV_B    UINT64_C(0x8001000000000002)
#define CTX_A    UINT64_C(0x8002000000000002)
#define CTX_B    UINT64_C(0x8002000000000003)
#define KQ_A     UINT64_C(0x8003000000000005)
#define KQ_B     UINT64_C(0x8003000000000009)
#define FAULT_VA UINT64_C(0x7f0000)
#define T0       UINT64_C(1000000000)
#define US(n)    (T0 + (uint64_t) (n) *1000)

static GArray *events;
static FsvTrace *trace;
static FsvView *view;

/* The events of the timeline being written (fst-timeline.h). */
#define ev(...) fst_event_add(events, __VA_ARGS__)

static void
pair(uint64_t adapter, uint64_t ts)
{
	ev("clock_correlation", ts, "adapter_id", adapter, "cpu_ts_ns", ts, "gpu_ts", ts,
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
}

static void
packet(uint64_t id, uint64_t queue, uint64_t queued, uint64_t start, uint64_t end, int status)
{
	ev("packet_queued", US(queued), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", queue, "packet_id", id, "fence_id", 100 + id, NULL);
	ev("packet_start", US(start), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", queue, "packet_id", id, "progress_value", id, "gpu_ts", US(start),
	   NULL);
	if (status >= 0)
		ev("packet_end", US(end), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
		   "hwqueue_handle", queue, "packet_id", id, "progress_value", id, "gpu_ts",
		   US(end), "status", (uint64_t) status, NULL);
}

static void
process(uint64_t pid, uint64_t dev, uint64_t ctx, uint64_t queue)
{
	ev("process_create", T0, "process_id", pid, NULL);
	ev("device_create", T0, "process_id", pid, "adapter_id", UINT64_C(0), "device_handle", dev,
	   NULL);
	ev("context_create", T0, "process_id", pid, "device_handle", dev, "context_handle", ctx,
	   "engine_id", UINT64_C(0), NULL);
	ev("hwqueue_create", T0, "process_id", pid, "context_handle", ctx, "hwqueue_handle", queue,
	   "engine_id", UINT64_C(0), "submission_mode", (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE,
	   NULL);
}

/* The MMU-14 sequence of docs/trace-format.md's 1.5 paragraph at AT µs: the engine's failed
 * translation, its interrupt, the OS's handling, the recovery (TDR-06) with the context in
 * error and a successful engine reset. */
static void
page_fault(uint64_t at, uint64_t pid, uint64_t ctx, uint64_t va, uint64_t packet_id)
{
	ev("fencescope_hw:page_fault", US(at), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "process_id", pid, "context_handle", ctx, "gpu_va", va, "fault_type",
	   (uint64_t) FSTP_FAULT_TYPE_NOT_MAPPED, "gpu_ts", US(at), NULL);
	(void) packet_id;
	ev("tdr_begin", US(at) + 2000, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "reason", (uint64_t) FSTP_LOSS_REASON_PAGE_FAULT, "context_handle", ctx, NULL);
	ev("context_error", US(at) + 3000, "adapter_id", UINT64_C(0), "process_id", pid,
	   "device_handle", pid == PID_A ? DEV_A : DEV_B, "context_handle", ctx, "reason",
	   (uint64_t) FSTP_LOSS_REASON_PAGE_FAULT, NULL);
	ev("engine_reset", US(at) + 4000, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "is_success", UINT64_C(1), NULL);
	ev("tdr_end", US(at) + 6000, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0), "result",
	   (uint64_t) FSTP_TDR_RESULT_ENGINE_RESET, NULL);
}

static void
begin_trace(void)
{
	events = fst_events_new();
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(5), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	ev("adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count", UINT64_C(1),
	   "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	ev("engine_describe", T0, "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "engine_type", (uint64_t) FSTP_ENGINE_TYPE_GRAPHICS_3D, NULL);
	pair(0, T0);
	process(PID_A, DEV_A, CTX_A, KQ_A);
	process(PID_B, DEV_B, CTX_B, KQ_B);
}

static void
end_trace(const char *name)
{
	trace = fst_trace_from_events(name, events);
	cr_assert_null(fsv_trace_get_partial_error(trace), "%s",
		       fsv_trace_get_partial_error(trace));
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 400);
}

/* Process A faults at 50 µs in its packet 2 while process B keeps rendering (packets 1, 3, 4);
 * the recovery runs 52–56 µs. */
static void
build(void)
{
	begin_trace();
	packet(1, KQ_B, 1, 10, 30, FSTP_PACKET_STATUS_COMPLETED);
	packet(2, KQ_A, 20, 31, -1, -1);
	page_fault(50, PID_A, CTX_A, FAULT_VA, 2);
	ev("packet_end", US(50), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_A, "packet_id", UINT64_C(2), "progress_value", UINT64_C(2),
	   "gpu_ts", US(50), "status", (uint64_t) FSTP_PACKET_STATUS_FAULTED, NULL);
	packet(3, KQ_B, 40, 60, 90, FSTP_PACKET_STATUS_COMPLETED);
	packet(4, KQ_B, 80, 91, 120, FSTP_PACKET_STATUS_COMPLETED);
	ev("context_destroy", US(130), "process_id", PID_A, "context_handle", CTX_A, NULL);
	pair(0, US(150));
	end_trace("gpummu");
	fsv_view_set_range(view, US(0), US(150));
}

static void
teardown(void)
{
	fsv_view_free(view);
	fsv_trace_unref(trace);
	g_array_unref(events);
}

TestSuite(gpummu, .init = build, .fini = teardown);

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

static bool
row_lists_marker(guint32 row, guint32 marker)
{
	guint n = 0;
	const guint32 *list = fsv_trace_get_row_markers(trace, row, &n);

	for (guint i = 0; i < n; i++)
		if (list[i] == marker)
			return true;
	return false;
}

Test(gpummu, mmu_14_fault_is_on_its_engine_and_its_contexts_queue_rows)
{
	guint32 fault = marker_of(FSA_MARK_PAGE_FAULT, 0);
	guint32 engine = row_of_kind(FSV_ROW_ENGINE);

	cr_assert_eq(fsv_trace_get_marker(trace, fault)->row, engine, "its row is the engine's");
	cr_assert(row_lists_marker(engine, fault));
	cr_assert(row_lists_marker(fsv_trace_find_queue_row(trace, KQ_A), fault),
		  "the faulting context's queue row shows it");
	cr_assert_not(row_lists_marker(fsv_trace_find_queue_row(trace, KQ_B), fault),
		      "another process's queue does not");
}

Test(gpummu, mmu_14_click_on_the_flash_selects_the_fault_on_each_row)
{
	guint32 fault = marker_of(FSA_MARK_PAGE_FAULT, 0);
	guint32 rows[] = {row_of_kind(FSV_ROW_ENGINE), fsv_trace_find_queue_row(trace, KQ_A)};

	/* 1 µs is ~9 px here: the TDR (52 µs) and the reset (54 µs) lie right of the flash. */
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		double ry, rh;
		FsvItem hit;

		cr_assert(fsv_view_get_row_geometry(view, rows[i], &ry, &rh));
		hit = hit_at(x_of(US(50)) + 1, ry + 5);
		cr_assert_eq(hit.kind, FSV_ITEM_MARKER, "row %u", rows[i]);
		cr_assert_eq(hit.index, fault, "row %u: marker %u", rows[i], hit.index);
		cr_assert_eq(hit.row, rows[i]);
	}
}

Test(gpummu, tdr_06_fault_details_name_the_va_and_the_recovery)
{
	guint32 fault = marker_of(FSA_MARK_PAGE_FAULT, 0);
	g_autofree char *va = detail(FSV_ITEM_MARKER, fault, "Faulting VA");
	g_autofree char *type = detail(FSV_ITEM_MARKER, fault, "Fault type");
	g_autofree char *ctx = detail(FSV_ITEM_MARKER, fault, "Faulting context");
	g_autofree char *recovery = detail(FSV_ITEM_MARKER, fault, "Recovery");
	g_autofree char *reset = detail(FSV_ITEM_MARKER, fault, "Engine reset");
	g_autofree char *steps = detail(FSV_ITEM_MARKER, fault, "Recovery steps");
	g_autofree char *title =
	    fsv_trace_dup_item_title(trace, &(FsvItem){FSV_ITEM_MARKER, fault, FSV_INDEX_NONE});

	cr_assert_str_eq(va, "0x7f0000");
	cr_assert_not_null(strstr(type, "NOT_MAPPED"), "%s", type);
	cr_assert_not_null(strstr(ctx, "0x8002000000000002"), "%s", ctx);
	cr_assert_str_eq(recovery, "TDR (PAGE_FAULT), 2.000 µs after");
	cr_assert_str_eq(reset, "succeeded, 4.000 µs after");
	cr_assert_str_eq(steps, "TDR → engine reset → context in error");
	cr_assert_str_eq(title, "Page fault at VA 0x7f0000");
}

Test(gpummu, tdr_06_recovery_is_the_tdr_that_followed_the_fault)
{
	FsvFaultRecovery rec;

	cr_assert(_fsv_trace_find_fault_recovery(trace, marker_of(FSA_MARK_PAGE_FAULT, 0), &rec));
	cr_assert_eq(rec.tdr, marker_of(FSA_MARK_TDR, 0));
	cr_assert_eq(rec.engine_reset, marker_of(FSA_MARK_ENGINE_RESET, 0));
	cr_assert_eq(rec.context_error, marker_of(FSA_MARK_CONTEXT_ERROR, 0));
	cr_assert_eq(rec.adapter_reset, FSV_INDEX_NONE);
	cr_assert_eq(rec.device_lost, FSV_INDEX_NONE);
}

/* ---- Pixels ------------------------------------------------------------------------------ */

static cairo_surface_t *
render(const char *png, const FsvItem *selection)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 400);
	cairo_t *cr = cairo_create(s);
	FsvRenderOptions o;

	fsv_render_options_init(&o);
	if (selection)
		o.selection = *selection;
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

/* Pixels of colour WANT in [x0, x1) × [y0, y1). */
static guint
count(cairo_surface_t *s, guint32 want, double x0, double y0, double x1, double y1)
{
	guint n = 0;

	for (int y = (int) y0; y < (int) y1; y++)
		for (int x = (int) x0; x < (int) x1; x++)
			n += pixel(s, x, y) == want;
	return n;
}

/* Pixels within DISTANCE of colour WANT in each channel (antialiased lines). */
static guint
count_near(cairo_surface_t *s, guint32 want, int distance, double x0, double y0, double x1,
	   double y1)
{
	guint n = 0;

	for (int y = (int) y0; y < (int) y1; y++)
		for (int x = (int) x0; x < (int) x1; x++) {
			guint32 p = pixel(s, x, y);
			bool near = true;

			for (int k = 0; k < 24; k += 8)
				near &= abs((int) (p >> k & 0xff) - (int) (want >> k & 0xff)) <=
					distance;
			n += near;
		}
	return n;
}

Test(gpummu, mmu_14_flash_is_drawn_at_the_top_of_both_rows)
{
	guint32 rows[] = {row_of_kind(FSV_ROW_ENGINE), fsv_trace_find_queue_row(trace, KQ_A),
			  fsv_trace_find_queue_row(trace, KQ_B)};
	cairo_surface_t *s = render("gpummu-fault.png", NULL);
	double x = x_of(US(50));

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		double ry, rh;
		guint red;

		cr_assert(fsv_view_get_row_geometry(view, rows[i], &ry, &rh));
		red = count(s, rgb24(FSV_COLOR_PAGE_FAULT), x - 5, ry, x + 6, ry + 14);
		if (i < 2)
			cr_assert_gt(red, 10, "row %u: %u red pixels of the flash", rows[i], red);
		else
			cr_assert_eq(red, 0, "process B's queue has no fault drawn");
	}
	cairo_surface_destroy(s);
}

Test(gpummu, tdr_06_selected_fault_outlines_its_recovery)
{
	guint32 fault = marker_of(FSA_MARK_PAGE_FAULT, 0);
	guint32 engine = row_of_kind(FSV_ROW_ENGINE);
	FsvItem sel = {FSV_ITEM_MARKER, fault, engine};
	double ry, rh;
	cairo_surface_t *plain = render(NULL, NULL),
			*selected = render("gpummu-fault-selected.png", &sel);
	guint32 blue = rgb24(FSV_COLOR_SELECTION);
	/* The TDR's right edge, 56 µs, is outlined; it is not selected itself. */
	double xe = x_of(US(56));

	cr_assert(fsv_view_get_row_geometry(view, engine, &ry, &rh));
	cr_assert_eq(count(plain, blue, xe - 2, ry, xe + 4, ry + rh), 0);
	cr_assert_gt(count(selected, blue, xe - 2, ry, xe + 4, ry + rh), 10,
		     "the TDR is outlined in the selection colour");
	cairo_surface_destroy(plain);
	cairo_surface_destroy(selected);
}

/* ---- Level of detail: many faults ------------------------------------------------------- */

/* 40000 faults of process A, one every 100 ns (the recovery is left out: its intervals would
 * overlap): about 30 per pixel of the whole trace. */
static void
build_many(void)
{
	begin_trace();
	for (uint64_t k = 0; k < 40000; k++)
		ev("fencescope_hw:page_fault", US(10) + 100 * k, "adapter_id", UINT64_C(0),
		   "engine_id", UINT64_C(0), "process_id", PID_A, "context_handle", CTX_A, "gpu_va",
		   FAULT_VA + 4096 * k, "fault_type", (uint64_t) FSTP_FAULT_TYPE_NOT_MAPPED,
		   "gpu_ts", US(10) + 100 * k, NULL);
	pair(0, US(4020));
	end_trace("gpummu-many");
	fsv_view_fit(view);
}

TestSuite(gpummu_lod, .init = build_many, .fini = teardown);

Test(gpummu_lod, faults_aggregate_without_losing_a_column)
{
	guint32 engine = row_of_kind(FSV_ROW_ENGINE);
	double ry, rh;
	int lw = fsv_view_get_label_width(view);
	cairo_surface_t *full, *lod;
	FsvRenderStats stats;
	guint painted = 0;
	guint32 red = rgb24(FSV_COLOR_PAGE_FAULT);

	cr_assert(fsv_view_get_row_geometry(view, engine, &ry, &rh));
	{
		cairo_surface_t *s[2];

		for (int k = 0; k < 2; k++) {
			cairo_t *cr;
			FsvRenderOptions o;

			s[k] = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 400);
			cr = cairo_create(s[k]);
			fsv_render_options_init(&o);
			o.no_lod = k == 0;
			o.show_legend = false;
			fsv_render_draw_with_stats(cr, trace, view, &o, &stats);
			cairo_destroy(cr);
			cairo_surface_flush(s[k]);
		}
		full = s[0];
		lod = s[1];
		cairo_surface_write_to_png(full, FST_OUT_DIR "/gpummu-many-full.png");
		cairo_surface_write_to_png(lod, FST_OUT_DIR "/gpummu-many-lod.png");
	}
	cr_assert_lt(stats.items_drawn + stats.buckets_drawn, 10000,
		     "the faults are drawn as aggregates: %" PRIu64 " items, %" PRIu64 " buckets",
		     stats.items_drawn, stats.buckets_drawn);
	/* The flash above the labels: every column the full draw paints red, the LOD draw does. */
	for (int x = lw; x < 1600; x++) {
		bool in_full = false, in_lod = false;

		for (int y = (int) ry + 1; y < (int) ry + 10; y++) {
			in_full |= pixel(full, x, y) == red;
			in_lod |= pixel(lod, x, y) == red;
		}
		painted += in_full;
		if (in_full && !in_lod)
			for (int k = MAX(x - 1, lw); k <= MIN(x + 1, 1599) && !in_lod; k++)
				for (int y = (int) ry + 1; y < (int) ry + 10; y++)
					in_lod |= pixel(lod, k, y) == red;
		if (in_full)
			cr_assert(in_lod, "column %d painted by the full draw only", x);
	}
	cr_assert_gt(painted, 100);
	cairo_surface_destroy(full);
	cairo_surface_destroy(lod);
}

/* ---- The VA space row (MMU-01, MMU-04, MMU-06, MMU-07, MMU-11, MMU-12) ------------------- */

#define VA_1 UINT64_C(0x100000)
#define VA_2 UINT64_C(0x200000)

/* Process A's VA space on adapter 0: a 1 MB range reserved at 5 µs (freed at 45 µs); 64 KB of
 * local memory in 64 KB pages mapped at VA_1 from 10 to 40 µs, 16 KB of system memory in 4 KB
 * pages at VA_2 from 12 µs to the end; at 50 µs a packet reads VA_1, unmapped: the engine
 * faults, the OS handles it (scope CONTEXT) and recovers. */
static void
build_va(void)
{
	begin_trace();
	ev("va_space_create", T0, "adapter_id", UINT64_C(0), "process_id", PID_A, "va_size_bytes",
	   UINT64_C(1) << 40, "page_table_levels", UINT64_C(4), "root_entry_count", UINT64_C(16),
	   NULL);
	ev("va_reserve", US(5), "adapter_id", UINT64_C(0), "process_id", PID_A, "gpu_va", VA_1,
	   "size_bytes", UINT64_C(0x100000), "min_va", UINT64_C(0), "max_va", UINT64_C(0),
	   "is_os_picked", UINT64_C(0), NULL);
	ev("allocation_create", US(6), "process_id", PID_A, "allocation_handle", UINT64_C(0xa1),
	   "size_bytes", UINT64_C(0x10000), "segment", (uint64_t) FSTP_SEGMENT_LOCAL,
	   "page_size_bytes", UINT64_C(65536), NULL);
	ev("va_map", US(10), "process_id", PID_A, "allocation_handle", UINT64_C(0xa1), "gpu_va",
	   VA_1, "size_bytes", UINT64_C(0x10000), "offset_bytes", UINT64_C(0), "adapter_id",
	   UINT64_C(0), "is_os_picked", UINT64_C(0), "page_size_bytes", UINT64_C(65536), "segment",
	   (uint64_t) FSTP_SEGMENT_LOCAL, NULL);
	ev("va_map", US(12), "process_id", PID_A, "allocation_handle", UINT64_C(0xa2), "gpu_va",
	   VA_2, "size_bytes", UINT64_C(0x4000), "offset_bytes", UINT64_C(0), "adapter_id",
	   UINT64_C(0), "is_os_picked", UINT64_C(1), "page_size_bytes", UINT64_C(4096), "segment",
	   (uint64_t) FSTP_SEGMENT_SYSTEM, NULL);
	packet(1, KQ_A, 20, 30, -1, -1);
	ev("va_unmap", US(40), "process_id", PID_A, "gpu_va", VA_1, "size_bytes", UINT64_C(0x10000),
	   "adapter_id", UINT64_C(0), NULL);
	ev("va_free", US(45), "adapter_id", UINT64_C(0), "process_id", PID_A, "gpu_va", VA_1,
	   "size_bytes", UINT64_C(0x100000), NULL);
	ev("fencescope_hw:page_fault", US(50), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "process_id", PID_A, "context_handle", CTX_A, "gpu_va", VA_1, "fault_type",
	   (uint64_t) FSTP_FAULT_TYPE_NOT_MAPPED, "gpu_ts", US(50), "access",
	   (uint64_t) FSTP_ACCESS_KIND_READ, "packet_id", UINT64_C(1), NULL);
	ev("fencescope_os:page_fault", US(51), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "process_id", PID_A, "context_handle", CTX_A, "gpu_va", VA_1, "access",
	   (uint64_t) FSTP_ACCESS_KIND_READ, "fault_type", (uint64_t) FSTP_FAULT_TYPE_NOT_MAPPED,
	   "scope", (uint64_t) FSTP_FAULT_SCOPE_CONTEXT, NULL);
	ev("tdr_begin", US(52), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0), "reason",
	   (uint64_t) FSTP_LOSS_REASON_PAGE_FAULT, "context_handle", CTX_A, NULL);
	ev("context_error", US(53), "adapter_id", UINT64_C(0), "process_id", PID_A, "device_handle",
	   DEV_A, "context_handle", CTX_A, "reason", (uint64_t) FSTP_LOSS_REASON_PAGE_FAULT, NULL);
	ev("engine_reset", US(54), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "is_success", UINT64_C(1), NULL);
	ev("packet_end", US(54), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0),
	   "hwqueue_handle", KQ_A, "packet_id", UINT64_C(1), "progress_value", UINT64_C(1),
	   "gpu_ts", US(54), "status", (uint64_t) FSTP_PACKET_STATUS_FAULTED, NULL);
	ev("tdr_end", US(56), "adapter_id", UINT64_C(0), "engine_id", UINT64_C(0), "result",
	   (uint64_t) FSTP_TDR_RESULT_ENGINE_RESET, NULL);
	pair(0, US(100));
	end_trace("gpummu-va");
	fsv_view_set_range(view, US(0), US(100));
}

TestSuite(gpummu_va, .init = build_va, .fini = teardown);

static guint32
mapping_at(uint64_t va)
{
	for (guint32 i = 0; i < fsv_trace_get_marker_count(trace); i++) {
		const FsvMarker *m = fsv_trace_get_marker(trace, i);

		if (m->kind == FSA_MARK_VA_MAPPING && m->value == va)
			return i;
	}
	cr_assert_fail("no mapping at 0x%" PRIx64, va);
	return FSV_INDEX_NONE;
}

Test(gpummu_va, mmu_01_a_va_space_row_per_process_and_adapter)
{
	guint32 group = row_of_kind(FSV_ROW_VA_GROUP), row = row_of_kind(FSV_ROW_VA_SPACE);
	const FsvRow *r;

	cr_assert_neq(group, FSV_INDEX_NONE);
	cr_assert_neq(row, FSV_INDEX_NONE);
	r = fsv_trace_get_row(trace, row);
	cr_assert_eq(r->parent, group);
	cr_assert_eq(r->process_id, PID_A);
	cr_assert_eq(r->adapter_id, 0);
	cr_assert_eq(fsv_trace_find_va_row(trace, (guint32) PID_A, 0), row);
	cr_assert_eq(fsv_trace_find_va_row(trace, (guint32) PID_B, 0), FSV_INDEX_NONE,
		     "process B never used the VA API");
	cr_assert(fsv_view_is_row_expanded(view, group), "the group is shown expanded");
	cr_assert_eq(r->lane_count, 2, "two mappings at once: two lanes");
}

Test(gpummu_va, mmu_07_mappings_are_intervals_from_map_to_unmap)
{
	const FsvMarker *a = fsv_trace_get_marker(trace, mapping_at(VA_1));
	const FsvMarker *b = fsv_trace_get_marker(trace, mapping_at(VA_2));

	cr_assert_eq(a->begin_ns, US(10));
	cr_assert_eq(a->end_ns, US(40));
	cr_assert_not(a->is_open);
	cr_assert_eq(b->begin_ns, US(12));
	cr_assert(b->is_open, "never unmapped: open at the end");
	cr_assert_neq(a->lane, b->lane);
}

Test(gpummu_va, mmu_12_click_on_a_mapping_names_its_range_and_page_size)
{
	guint32 row = row_of_kind(FSV_ROW_VA_SPACE), map = mapping_at(VA_1);
	double ly, lh;
	FsvItem hit;
	g_autofree char *range = NULL, *page = NULL, *segment = NULL, *alloc = NULL;

	cr_assert(fsv_view_get_lane_geometry(view, row, fsv_trace_get_marker(trace, map)->lane, &ly,
					     &lh));
	hit = hit_at(x_of(US(25)), ly + lh / 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, map);
	range = detail(FSV_ITEM_MARKER, map, "VA range");
	page = detail(FSV_ITEM_MARKER, map, "Page size");
	segment = detail(FSV_ITEM_MARKER, map, "Segment");
	alloc = detail(FSV_ITEM_MARKER, map, "Allocation");
	cr_assert_str_eq(range, "0x100000 – 0x10ffff");
	cr_assert_str_eq(page, "64 KB");
	cr_assert_str_eq(segment, "local (video) memory");
	cr_assert_str_eq(alloc, "0xa1");
}

Test(gpummu_va, mmu_06_reserve_and_free_are_ticks_of_the_va_row)
{
	guint32 row = row_of_kind(FSV_ROW_VA_SPACE);
	double ty, th;
	FsvItem hit;
	g_autofree char *size = NULL;

	cr_assert(fsv_view_get_strip_geometry(view, row, FSV_STRIP_TICKS, &ty, &th));
	hit = hit_at(x_of(US(5)), ty + th / 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(fsv_trace_get_marker(trace, hit.index)->kind, FSA_MARK_VA_RESERVE);
	size = detail(FSV_ITEM_MARKER, hit.index, "Size");
	cr_assert_not_null(strstr(size, "MiB (1048576 bytes)"), "%s", size);
	{
		g_autofree char *title = fsv_trace_dup_item_title(trace, &hit);

		cr_assert_not_null(strstr(title, "VA reserve 0x100000, 1.0"), "%s", title);
	}
	hit = hit_at(x_of(US(45)), ty + th / 2);
	cr_assert_eq(fsv_trace_get_marker(trace, hit.index)->kind, FSA_MARK_VA_FREE);
}

Test(gpummu_va, mmu_14_the_handled_fault_is_on_the_va_row_with_its_access_and_scope)
{
	guint32 row = row_of_kind(FSV_ROW_VA_SPACE);
	guint32 handled = marker_of(FSA_MARK_PAGE_FAULT_HANDLED, 0);
	guint32 engine_fault = marker_of(FSA_MARK_PAGE_FAULT, 0);
	double ry, rh;
	FsvItem hit;
	g_autofree char *access = detail(FSV_ITEM_MARKER, handled, "Access");
	g_autofree char *scope = detail(FSV_ITEM_MARKER, handled, "Terminated");
	g_autofree char *packet = detail(FSV_ITEM_MARKER, engine_fault, "Packet");
	g_autofree char *steps = detail(FSV_ITEM_MARKER, handled, "Recovery steps");

	cr_assert(row_lists_marker(row, handled), "the VA row shows the OS's fault");
	cr_assert(row_lists_marker(fsv_trace_find_queue_row(trace, KQ_A), handled));
	cr_assert_not(row_lists_marker(fsv_trace_find_queue_row(trace, KQ_A), engine_fault),
		      "the queue row shows the OS's fault only, not the engine's as well");
	cr_assert_eq(fsv_trace_get_marker(trace, engine_fault)->row, row_of_kind(FSV_ROW_ENGINE));
	cr_assert(fsv_view_get_row_geometry(view, row, &ry, &rh));
	hit = hit_at(x_of(US(51)) + 1, ry + 5);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, handled);
	cr_assert_str_eq(access, "read");
	cr_assert_str_eq(scope, "the context (scope CONTEXT)");
	cr_assert_str_eq(packet, "1");
	cr_assert_str_eq(steps, "TDR → engine reset → context in error");
}

Test(gpummu_va, mmu_12_mappings_take_the_colour_of_their_page_size)
{
	guint32 row = row_of_kind(FSV_ROW_VA_SPACE);
	const FsvMarker *a = fsv_trace_get_marker(trace, mapping_at(VA_1));
	double ly, lh;
	cairo_surface_t *s = render("gpummu-va.png", NULL);

	cr_assert(fsv_view_get_lane_geometry(view, row, a->lane, &ly, &lh));
	cr_assert_eq(pixel(s, x_of(US(30)), ly + 2), rgb24(FSV_COLOR_VA_64K),
		     "64 KB pages of local memory: violet, solid");
	cr_assert_eq(pixel(s, x_of(US(65)), ly + 2), pixel(s, x_of(US(5)), ly + 2),
		     "unmapped at 40 µs: the row's background, as before the map");
	cairo_surface_destroy(s);
}

Test(gpummu_va, a_trace_without_va_events_has_no_va_rows)
{
	teardown();
	build();
	cr_assert_eq(row_of_kind(FSV_ROW_VA_GROUP), FSV_INDEX_NONE);
	cr_assert_eq(row_of_kind(FSV_ROW_VA_SPACE), FSV_INDEX_NONE);
	cr_assert_eq(row_of_kind(FSV_ROW_XFENCE), FSV_INDEX_NONE);
}

/* ---- Cross-adapter fences (XAD-03, XAD-07, XAD-08, XAD-10) ------------------------------ */

#define KQ_D0  UINT64_C(0x8003000000000101)
#define KQ_D1  UINT64_C(0x8003000000000102)
#define CTX_D0 UINT64_C(0x8002000000000101)
#define CTX_D1 UINT64_C(0x8002000000000102)
#define DEV_D0 UINT64_C(0x8001000000000101)
#define DEV_D1 UINT64_C(0x8001000000000102)
#define XF_G   UINT64_C(0x8005000000000001)
#define XF_0   UINT64_C(0x41)
#define XF_1   UINT64_C(0x42)

/* An iGPU (adapter 0, native fences) and a dGPU (adapter 1, without: XAD-10): process A creates
 * a cross-adapter fence on adapter 0 and opens it on adapter 1 (a monitored fence there). Its
 * queue on adapter 1 waits for value 5 from 5 µs; its queue on adapter 0 signals 5 at 20 µs;
 * the OS propagates it at 21 µs and notifies adapter 1 at 22 µs (NotificationOnly, XAD-08),
 * which releases the wait at 23 µs. */
static void
build_xad(void)
{
	events = fst_events_new();
	ev("trace_info", T0, "format_major", UINT64_C(1), "format_minor", UINT64_C(5), "clock_mode",
	   (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	for (uint64_t a = 0; a < 2; a++) {
		ev("adapter_create", T0, "adapter_id", a, "engine_count", UINT64_C(1),
		   "gpu_ts_frequency_hz", UINT64_C(1000000000), "native_fences", 1 - a, NULL);
		ev("engine_describe", T0, "adapter_id", a, "engine_id", UINT64_C(0), "engine_type",
		   (uint64_t) FSTP_ENGINE_TYPE_GRAPHICS_3D, NULL);
		pair(a, T0);
	}
	ev("process_create", T0, "process_id", PID_A, NULL);
	for (uint64_t a = 0; a < 2; a++) {
		ev("device_create", T0, "process_id", PID_A, "adapter_id", a, "device_handle",
		   a ? DEV_D1 : DEV_D0, NULL);
		ev("context_create", T0, "process_id", PID_A, "device_handle", a ? DEV_D1 : DEV_D0,
		   "context_handle", a ? CTX_D1 : CTX_D0, "engine_id", UINT64_C(0), NULL);
		ev("hwqueue_create", T0, "process_id", PID_A, "context_handle", a ? CTX_D1 : CTX_D0,
		   "hwqueue_handle", a ? KQ_D1 : KQ_D0, "engine_id", UINT64_C(0), "submission_mode",
		   (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	}
	ev("fence_create", T0, "process_id", PID_A, "adapter_id", UINT64_C(0),
	   "fence_global_handle", XF_G, "fence_handle", XF_0, "is_cross_adapter", UINT64_C(1),
	   "initial_value", UINT64_C(0), "fence_object", (uint64_t) FSTP_FENCE_OBJECT_NATIVE, NULL);
	ev("fence_cross_adapter_open", T0 + 100, "process_id", PID_A, "fence_global_handle", XF_G,
	   "fence_handle", XF_1, "adapter_id", UINT64_C(1), "creator_adapter_id", UINT64_C(0),
	   "created_as", (uint64_t) FSTP_FENCE_OBJECT_NATIVE, "opened_as",
	   (uint64_t) FSTP_FENCE_OBJECT_MONITORED, NULL);
	ev("fence_open", T0 + 100, "process_id", PID_A, "fence_global_handle", XF_G, "fence_handle",
	   XF_1, NULL);
	ev("fence_wait_queued", US(5), "process_id", PID_A, "hwqueue_handle", KQ_D1, "fence_handle",
	   XF_1, "fence_value", UINT64_C(5), "progress_value", UINT64_C(1), NULL);
	ev("fence_signal_queued", US(10), "process_id", PID_A, "hwqueue_handle", KQ_D0,
	   "fence_handle", XF_0, "fence_value", UINT64_C(5), "progress_value", UINT64_C(1), NULL);
	ev("km_fence_signal_executed", US(20), "process_id", PID_A, "hwqueue_handle", KQ_D0,
	   "fence_handle", XF_0, "fence_value", UINT64_C(5), NULL);
	ev("fence_propagate", US(21), "fence_global_handle", XF_G, "from_adapter_id", UINT64_C(0),
	   "to_adapter_id", UINT64_C(1), "fence_value", UINT64_C(5), NULL);
	/* XAD-14: adapter 1 holds a monitored fence: no NotificationOnly update there, the OS
	 * releases its waiter itself. */
	ev("km_fence_wait_unblocked", US(23), "process_id", PID_A, "hwqueue_handle", KQ_D1,
	   "fence_handle", XF_1, "fence_value", UINT64_C(5), NULL);
	for (uint64_t a = 0; a < 2; a++)
		pair(a, US(100));
	end_trace("cross-adapter");
	fsv_view_set_range(view, US(0), US(40));
}

TestSuite(xad, .init = build_xad, .fini = teardown);

Test(xad, xad_03_the_fence_has_a_row_under_each_adapter)
{
	guint32 r0 = fsv_trace_find_xfence_row(trace, XF_G, 0);
	guint32 r1 = fsv_trace_find_xfence_row(trace, XF_G, 1);

	cr_assert_neq(r0, FSV_INDEX_NONE);
	cr_assert_neq(r1, FSV_INDEX_NONE);
	cr_assert_eq(fsv_trace_get_row(trace, fsv_trace_get_row(trace, r0)->parent)->kind,
		     FSV_ROW_ADAPTER);
	cr_assert_eq(fsv_trace_get_row(trace, fsv_trace_get_row(trace, r0)->parent)->adapter_id, 0);
	cr_assert_eq(fsv_trace_get_row(trace, fsv_trace_get_row(trace, r1)->parent)->adapter_id, 1);
	/* XAD-10: a native fence on its creator, a monitored fence on the adapter without. */
	cr_assert_not_null(strstr(fsv_trace_get_row(trace, r0)->sublabel, "native here"));
	cr_assert_not_null(strstr(fsv_trace_get_row(trace, r1)->sublabel, "monitored here"), "%s",
			   fsv_trace_get_row(trace, r1)->sublabel);
	cr_assert(fsv_view_get_row_geometry(view, r0, &(double){0}, &(double){0}),
		  "shown by default");
}

Test(xad, xad_07_the_propagation_arrow_joins_the_two_adapters)
{
	guint32 prop = marker_of(FSA_MARK_FENCE_PROPAGATION, 0);
	guint32 r0 = fsv_trace_find_xfence_row(trace, XF_G, 0);
	guint32 r1 = fsv_trace_find_xfence_row(trace, XF_G, 1);
	double x0, y0, x1, y1, ry0, rh0, ry1, rh1;
	FsvItem hit;
	g_autofree char *to = NULL, *released = NULL, *notified = NULL;

	cr_assert_eq(fsv_trace_get_marker(trace, prop)->row, r1, "on the notified adapter's row");
	cr_assert(fsv_view_get_propagation_arrow(view, prop, &x0, &y0, &x1, &y1));
	cr_assert(fsv_view_get_row_geometry(view, r0, &ry0, &rh0));
	cr_assert(fsv_view_get_row_geometry(view, r1, &ry1, &rh1));
	cr_assert(y0 > ry0 && y0 < ry0 + rh0, "from adapter 0's row");
	cr_assert(y1 > ry1 && y1 < ry1 + rh1, "to adapter 1's row");
	cr_assert_float_eq(x0, floor(x_of(US(21))) + 0.5, 0.01);
	cr_assert_float_eq(x1, floor(x_of(US(21))) + 0.5, 0.01);
	/* Halfway along the arrow, whatever row it crosses there. */
	hit = hit_at((x0 + x1) / 2, (y0 + y1) / 2);
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, prop);
	to = detail(FSV_ITEM_MARKER, prop, "To adapter");
	released = detail(FSV_ITEM_MARKER, prop, "Waits released there");
	notified = detail(FSV_ITEM_MARKER, prop, "NotificationOnly update");
	cr_assert_str_eq(to, "1 (monitored)");
	cr_assert_str_eq(released, "1");
	cr_assert_not_null(strstr(notified, "monitored fence there"), "%s", notified);
}

Test(xad, xad_07_each_adapter_row_steps_to_the_value_when_it_sees_it)
{
	guint32 r0 = fsv_trace_find_xfence_row(trace, XF_G, 0);
	guint32 r1 = fsv_trace_find_xfence_row(trace, XF_G, 1);
	guint n0 = 0, n1 = 0;
	const FsvFenceStep *s0 = fsv_trace_get_fence_steps(trace, r0, &n0);
	const FsvFenceStep *s1 = fsv_trace_get_fence_steps(trace, r1, &n1);

	cr_assert_eq(n0, 2);
	cr_assert_eq(n1, 2);
	cr_assert_eq(s0[1].ns, US(20), "the signal ran on adapter 0 at 20 µs");
	cr_assert_eq(s0[1].value, 5);
	cr_assert_eq(s1[1].ns, US(21), "adapter 1 saw the value when the OS propagated it");
	cr_assert_eq(s1[1].op, FSV_STEP_PROPAGATED);
	{
		FsvItem item = {FSV_ITEM_FENCE_STEP, 1, r1};
		g_auto(GStrv) d = fsv_trace_describe_item(trace, &item);
		bool found = false;

		for (guint i = 0; d[i] && d[i + 1]; i += 2)
			found |= strcmp(d[i], "Shown by") == 0 &&
				 strstr(d[i + 1], "propagation from adapter 0") != NULL;
		cr_assert(found, "the step names the propagation");
	}
}

Test(xad, xad_07_selecting_the_signal_draws_its_propagation_and_its_wait)
{
	guint32 prop = marker_of(FSA_MARK_FENCE_PROPAGATION, 0);
	guint32 signal = FSV_INDEX_NONE;
	double x0, y0, x1, y1;
	cairo_surface_t *plain, *selected;
	guint32 blue = rgb24(FSV_COLOR_SELECTION), teal = rgb24(FSV_COLOR_PROPAGATION);

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++)
		if (fsv_trace_get_op(trace, i)->kind == FSA_OP_SIGNAL)
			signal = i;
	cr_assert_neq(signal, FSV_INDEX_NONE);
	cr_assert_eq(fsv_trace_get_marker(trace, prop)->value2, fsv_trace_get_op(trace, signal)->id,
		     "the model joined the propagation to its signal");
	cr_assert(fsv_view_get_propagation_arrow(view, prop, &x0, &y0, &x1, &y1));
	plain = render("cross-adapter.png", NULL);
	selected = render("cross-adapter-selected.png",
			  &(FsvItem){FSV_ITEM_OP, signal, fsv_trace_get_op(trace, signal)->row});
	/* Unselected, the arrow is drawn in its own colour; with its signal selected, in the
	 * selection's. The signal's edge to the wait on adapter 1 (an arrow too) crosses rows. */
	cr_assert_gt(count_near(plain, teal, 40, MIN(x0, x1) - 3, MIN(y0, y1) + 3, MAX(x0, x1) + 4,
				MAX(y0, y1) - 3),
		     10, "the propagation arrow is always drawn");
	cr_assert_eq(count_near(plain, blue, 40, MIN(x0, x1) - 3, MIN(y0, y1) + 3, MAX(x0, x1) + 4,
				MAX(y0, y1) - 3),
		     0);
	for (double k = 0.2; k < 0.85; k += 0.15) {
		double x = x0 + k * (x1 - x0), y = y0 + k * (y1 - y0);

		cr_assert_gt(count_near(selected, blue, 40, x - 2, y - 1, x + 3, y + 2), 0,
			     "the selected signal's propagation is highlighted at %.0f%% of its "
			     "length",
			     k * 100);
	}
	cairo_surface_destroy(plain);
	cairo_surface_destroy(selected);
}

Test(xad, xad_07_selecting_the_released_wait_highlights_the_propagation_too)
{
	guint32 prop = marker_of(FSA_MARK_FENCE_PROPAGATION, 0);
	guint32 wait = FSV_INDEX_NONE;
	double x0, y0, x1, y1;
	cairo_surface_t *selected;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++)
		if (fsv_trace_get_op(trace, i)->kind == FSA_OP_WAIT)
			wait = i;
	cr_assert_neq(wait, FSV_INDEX_NONE);
	cr_assert_eq(fsv_trace_get_op(trace, wait)->adapter_id, 1);
	cr_assert_neq(fsv_trace_get_op(trace, wait)->signal_op, FSV_INDEX_NONE,
		      "the model's edge crosses the adapters");
	cr_assert(fsv_view_get_propagation_arrow(view, prop, &x0, &y0, &x1, &y1));
	selected = render(NULL, &(FsvItem){FSV_ITEM_OP, wait, fsv_trace_get_op(trace, wait)->row});
	/* Along the whole arrow (the dependency arrow from the signal to the wait crosses it at
	 * one point at most). */
	for (double k = 0.2; k < 0.85; k += 0.15) {
		double x = x0 + k * (x1 - x0), y = y0 + k * (y1 - y0);

		cr_assert_gt(count_near(selected, rgb24(FSV_COLOR_SELECTION), 40, x - 2, y - 1,
					x + 3, y + 2),
			     0, "the propagation is highlighted at %.0f%% of its length", k * 100);
	}
	cairo_surface_destroy(selected);
}

/* Mappings alive at once as in traces/mapping-churn (six): 6 mapped at 10 µs, unmapped at
 * 40 + k µs, then 20 at once from 50 µs (more than the 16 lanes a VA row takes). */
static void
build_deep_mappings(void)
{
	begin_trace();
	ev("va_space_create", T0, "adapter_id", UINT64_C(0), "process_id", PID_A, "va_size_bytes",
	   UINT64_C(1) << 40, "page_table_levels", UINT64_C(4), "root_entry_count", UINT64_C(16),
	   NULL);
	for (uint64_t k = 0; k < 26; k++) {
		uint64_t va = UINT64_C(0x100000) * (k + 1);
		uint64_t map = k < 6 ? US(10) + k : US(50) + k;
		uint64_t unmap = k < 6 ? US(40) + 1000 * k : US(90);

		ev("va_map", map, "process_id", PID_A, "allocation_handle", UINT64_C(0xa0) + k,
		   "gpu_va", va, "size_bytes", UINT64_C(0x10000), "offset_bytes", UINT64_C(0),
		   "adapter_id", UINT64_C(0), "is_os_picked", UINT64_C(0), "page_size_bytes",
		   UINT64_C(65536), "segment", (uint64_t) FSTP_SEGMENT_LOCAL, NULL);
		ev("va_unmap", unmap, "process_id", PID_A, "gpu_va", va, "size_bytes",
		   UINT64_C(0x10000), "adapter_id", UINT64_C(0), NULL);
	}
	pair(0, US(100));
	fst_events_sort(events, 0);
	end_trace("gpummu-deep-mappings");
	fsv_view_set_size(view, 1600, 900); /* every lane in sight */
	fsv_view_set_range(view, US(0), US(100));
}

TestSuite(gpummu_va_deep, .init = build_deep_mappings, .fini = teardown);

/* Issue 15 §2: with four lanes the fifth and sixth mapping were drawn over others. Each of
 * the six gets a lane of its own, and a click at its lane's centre answers it. */
Test(gpummu_va_deep, mmu_06_six_mappings_at_once_take_six_lanes_none_over_another)
{
	guint32 row = row_of_kind(FSV_ROW_VA_SPACE);
	guint lanes_used = 0;

	cr_assert_eq(fsv_trace_get_row(trace, row)->lane_count, FSV_VA_MAX_LANES,
		     "20 at once at 50 µs: the most lanes a VA row takes");
	for (uint64_t k = 0; k < 6; k++) {
		guint32 map = mapping_at(UINT64_C(0x100000) * (k + 1));
		const FsvMarker *m = fsv_trace_get_marker(trace, map);
		double ly, lh;
		FsvItem hit;

		for (uint64_t j = 0; j < k; j++)
			cr_assert_neq(
			    fsv_trace_get_marker(trace, mapping_at(UINT64_C(0x100000) * (j + 1)))
				->lane,
			    m->lane, "mappings %" PRIu64 " and %" PRIu64 " share a lane", j, k);
		lanes_used |= 1u << m->lane;
		cr_assert(fsv_view_get_lane_geometry(view, row, m->lane, &ly, &lh));
		hit = hit_at(x_of(US(30)), ly + lh / 2);
		cr_assert_eq(hit.kind, FSV_ITEM_MARKER, "mapping %" PRIu64, k);
		cr_assert_eq(hit.index, map, "mapping %" PRIu64 ": its lane answers it", k);
	}
	cr_assert_eq(lanes_used, 0x3f, "lanes 0 to 5");
	/* Of the 20 at once, the first 16 have a lane each. */
	for (uint64_t k = 6; k < 6 + FSV_VA_MAX_LANES; k++)
		for (uint64_t j = 6; j < k; j++)
			cr_assert_neq(
			    fsv_trace_get_marker(trace, mapping_at(UINT64_C(0x100000) * (j + 1)))
				->lane,
			    fsv_trace_get_marker(trace, mapping_at(UINT64_C(0x100000) * (k + 1)))
				->lane);
}

/* 20000 short mappings of one VA space, one after the other (a lane), about 15 per pixel of the
 * whole trace: drawn as aggregates without losing a column the full draw paints. */
static void
build_many_mappings(void)
{
	begin_trace();
	ev("va_space_create", T0, "adapter_id", UINT64_C(0), "process_id", PID_A, "va_size_bytes",
	   UINT64_C(1) << 40, "page_table_levels", UINT64_C(4), "root_entry_count", UINT64_C(16),
	   NULL);
	for (uint64_t k = 0; k < 20000; k++) {
		uint64_t t = US(10) + 100 * k;

		ev("va_map", t, "process_id", PID_A, "allocation_handle", UINT64_C(0xa1), "gpu_va",
		   VA_1, "size_bytes", UINT64_C(0x10000), "offset_bytes", UINT64_C(0), "adapter_id",
		   UINT64_C(0), "is_os_picked", UINT64_C(0), "page_size_bytes",
		   k % 7 ? UINT64_C(65536) : UINT64_C(4096), "segment",
		   (uint64_t) FSTP_SEGMENT_LOCAL, NULL);
		ev("va_unmap", t + 10 + k % 40, "process_id", PID_A, "gpu_va", VA_1, "size_bytes",
		   UINT64_C(0x10000), "adapter_id", UINT64_C(0), NULL);
	}
	pair(0, US(2020));
	end_trace("gpummu-many-mappings");
	fsv_view_fit(view);
}

TestSuite(gpummu_va_lod, .init = build_many_mappings, .fini = teardown);

Test(gpummu_va_lod, mmu_06_mappings_aggregate_without_losing_a_column)
{
	guint32 row = row_of_kind(FSV_ROW_VA_SPACE);
	double ly, lh;
	int lw = fsv_view_get_label_width(view);
	cairo_surface_t *s[2];
	FsvRenderStats stats[2];
	guint painted = 0;

	cr_assert_eq(fsv_trace_get_row(trace, row)->lane_count, 1, "one mapping at a time");
	cr_assert(fsv_view_get_lane_geometry(view, row, 0, &ly, &lh));
	for (int k = 0; k < 2; k++) {
		cairo_t *cr;
		FsvRenderOptions o;

		s[k] = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 400);
		cr = cairo_create(s[k]);
		fsv_render_options_init(&o);
		o.no_lod = k == 0;
		o.show_legend = false;
		fsv_render_draw_with_stats(cr, trace, view, &o, &stats[k]);
		cairo_destroy(cr);
		cairo_surface_flush(s[k]);
	}
	cr_assert_gt(stats[1].buckets_drawn, 0, "aggregates are drawn");
	cr_assert_lt(stats[1].items_drawn + stats[1].buckets_drawn, 20000 / 4,
		     "%" PRIu64 " items, %" PRIu64 " buckets", stats[1].items_drawn,
		     stats[1].buckets_drawn);
	for (int x = lw; x < 1600; x++) {
		guint32 bg = pixel(s[0], lw + 1, ly + lh / 2);
		bool in_full = pixel(s[0], x, ly + lh / 2) != bg;
		bool in_lod = pixel(s[1], x, ly + lh / 2) != bg;

		painted += in_full;
		if (in_full)
			cr_assert(in_lod, "column %d painted by the full draw only", x);
		if (in_lod) {
			bool near = false;

			for (int k = MAX(x - 2, lw); k <= MIN(x + 2, 1599) && !near; k++)
				near = pixel(s[0], k, ly + lh / 2) != bg;
			cr_assert(near, "column %d painted by the LOD draw only", x);
		}
	}
	cr_assert_gt(painted, 1000, "the mappings cover the trace");
	cairo_surface_destroy(s[0]);
	cairo_surface_destroy(s[1]);
}
