/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvView (fsv-view.h) — the viewport, the row layout and the geometric queries.
 * The layout is recomputed eagerly whenever a row is expanded, collapsed, hidden or shown, so
 * every getter is a lookup. Row heights depend on the row's kind and lane count only; the
 * renderer (fsv-render.c) asks fsv_view_get_lane_geometry() where to draw, so drawing and hit
 * testing can never disagree about where a box is.
 */
#include "fsv-view.h"
#include "fsv-view-private.h"
#include "fsv-trace-private.h"
#include "fsv-lanes-private.h"
#include "fsv-frames-private.h"

#include <math.h>
#include <string.h>

typedef struct {
	guint32 row;
	int y, height; /* content coordinates */
} LayoutRow;

struct _FsvView {
	FsvTrace *trace;
	int width, height, label_width, ruler_height;
	/* The label width asked for; label_width is it clamped to width − 1, so the time area
	 * keeps a pixel and its right edge never lies left of its left edge. */
	int wanted_label_width;
	guint64 begin_ns;
	double begin_frac; /* the left edge is begin_ns + begin_frac */
	/* What fit shows and the zoom-out limit covers (fsv_view_set_extent): the trace's span
	 * unless extent_end_ns > extent_begin_ns. */
	guint64 extent_begin_ns, extent_end_ns;
	double ns_per_px;
	double scroll_y;
	guint8 *is_collapsed;      /* per row */
	guint8 *is_hidden;         /* per row */
	guint8 *is_lanes_expanded; /* per row: every lane shown (docs/viewer.md "Lanes") */
	bool show_fence_rows;
	bool show_counter[FSV_COUNTER_KIND_COUNT];
	guint64 frame_budget_ns; /* fsv_view_set_frame_budget(), 0 each display's own */
	GArray *layout;          /* LayoutRow, visible rows top to bottom */
	guint32 *row_slot;       /* row → index in layout + 1, 0 when not laid out */
	int content_height;
};

/* Lanes shown by a queue, CPU or engine row: its collapsed or expanded slots. */
static int
row_slots(const FsvView *v, guint32 r, const FsvRow *row)
{
	return (int) _fsv_lanes_get_slot_count(row, v->is_lanes_expanded[r]);
}

static int
row_height(const FsvView *v, guint32 r, const FsvRow *row)
{
	switch (row->kind) {
	case FSV_ROW_ADAPTER:
	case FSV_ROW_CPU_GROUP:
	case FSV_ROW_FENCE_GROUP:
	case FSV_ROW_VA_GROUP:
		return FSV_GROUP_HEIGHT;
	case FSV_ROW_VA_SPACE:
		return FSV_ROW_PAD_TOP + (int) row->lane_count * FSV_VA_LANE_HEIGHT +
		       FSV_TICK_HEIGHT + FSV_ROW_PAD_BOTTOM;
	case FSV_ROW_XFENCE:
		return FSV_FENCE_ROW_HEIGHT;
	case FSV_ROW_ENGINE:
		return FSV_ROW_PAD_TOP + (row->has_event_strip ? FSV_EVENT_STRIP_HEIGHT : 0) +
		       row_slots(v, r, row) * FSV_PACKET_LANE_HEIGHT + FSV_ROW_PAD_BOTTOM;
	case FSV_ROW_FENCE:
		return FSV_FENCE_ROW_HEIGHT;
	case FSV_ROW_ENGINE_POWER:
	case FSV_ROW_DEVICE_POWER:
		return FSV_POWER_ROW_HEIGHT;
	case FSV_ROW_DISPLAY:
		return FSV_DISPLAY_ROW_HEIGHT;
	case FSV_ROW_BUSY:
	case FSV_ROW_DEPTH:
		return FSV_COUNTER_ROW_HEIGHT;
	case FSV_ROW_FRAMES:
		return FSV_FRAMES_ROW_HEIGHT;
	case FSV_ROW_QUEUE:
	case FSV_ROW_CPU_PROCESS:
	default:
		return FSV_ROW_PAD_TOP + row_slots(v, r, row) * FSV_LANE_HEIGHT + FSV_TICK_HEIGHT +
		       (row->has_doorbell_band ? FSV_BAND_HEIGHT : 0) + FSV_ROW_PAD_BOTTOM;
	}
}

static void
relayout(FsvView *v)
{
	guint n = fsv_trace_get_row_count(v->trace);
	int y = 0;

	g_array_set_size(v->layout, 0);
	memset(v->row_slot, 0, sizeof(guint32) * MAX(n, 1));
	for (guint32 r = 0; r < n; r++) {
		const FsvRow *row = fsv_trace_get_row(v->trace, r);
		bool is_visible = !v->is_hidden[r];
		LayoutRow lr;

		if (!v->show_fence_rows &&
		    (row->kind == FSV_ROW_FENCE || row->kind == FSV_ROW_FENCE_GROUP))
			is_visible = false;
		if (fsv_counter_kind_of_row(row) != FSV_COUNTER_KIND_COUNT &&
		    !v->show_counter[fsv_counter_kind_of_row(row)])
			is_visible = false;
		for (guint32 p = row->parent; is_visible && p != FSV_INDEX_NONE;
		     p = fsv_trace_get_row(v->trace, p)->parent)
			if (v->is_collapsed[p] || v->is_hidden[p])
				is_visible = false;
		if (!is_visible)
			continue;
		lr.row = r;
		lr.y = y;
		lr.height = row_height(v, r, row);
		y += lr.height;
		g_array_append_val(v->layout, lr);
		v->row_slot[r] = v->layout->len;
	}
	v->content_height = y;
	fsv_view_set_scroll_y(v, v->scroll_y);
}

FsvView *
fsv_view_new(FsvTrace *trace)
{
	FsvView *v;
	guint n;

	g_return_val_if_fail(trace != NULL, NULL);
	v = g_new0(FsvView, 1);
	n = fsv_trace_get_row_count(trace);
	v->trace = fsv_trace_ref(trace);
	v->width = 1024;
	v->height = 768;
	v->label_width = v->wanted_label_width = FSV_DEFAULT_LABEL_WIDTH;
	v->ruler_height = FSV_RULER_HEIGHT;
	v->is_collapsed = g_new0(guint8, MAX(n, 1));
	v->is_hidden = g_new0(guint8, MAX(n, 1));
	v->is_lanes_expanded = g_new0(guint8, MAX(n, 1));
	v->row_slot = g_new0(guint32, MAX(n, 1));
	v->layout = g_array_new(FALSE, FALSE, sizeof(LayoutRow));
	v->show_fence_rows = true;
	for (guint32 r = 0; r < n; r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_FENCE_GROUP)
			v->is_collapsed[r] = true;
	relayout(v);
	fsv_view_fit(v);
	/* The fence rows' sweep reads all their steps at the whole-trace zoom: mapped ahead, in
	 * a thread, while the rows are still folded (fsv-counters.h). */
	_fsv_counters_populate_ahead(trace);
	return v;
}

void
fsv_view_free(FsvView *v)
{
	if (!v)
		return;
	fsv_trace_unref(v->trace);
	g_free(v->is_collapsed);
	g_free(v->is_hidden);
	g_free(v->is_lanes_expanded);
	g_free(v->row_slot);
	g_array_unref(v->layout);
	g_free(v);
}

FsvTrace *
fsv_view_get_trace(const FsvView *v)
{
	return v->trace;
}

void
fsv_view_set_size(FsvView *v, int width, int height)
{
	v->width = MAX(width, 1);
	v->height = MAX(height, 1);
	v->label_width = CLAMP(v->wanted_label_width, 0, v->width - 1);
	fsv_view_set_scroll_y(v, v->scroll_y);
}

int
fsv_view_get_width(const FsvView *v)
{
	return v->width;
}

int
fsv_view_get_height(const FsvView *v)
{
	return v->height;
}

int
fsv_view_get_label_width(const FsvView *v)
{
	return v->label_width;
}

void
fsv_view_set_label_width(FsvView *v, int label_width)
{
	v->wanted_label_width = MAX(label_width, 0);
	v->label_width = CLAMP(label_width, 0, v->width - 1);
}

int
fsv_view_get_ruler_height(const FsvView *v)
{
	return v->ruler_height;
}

int
fsv_view_get_time_width(const FsvView *v)
{
	return MAX(v->width - v->label_width, 1);
}

guint64
fsv_view_get_begin_ns(const FsvView *v)
{
	return v->begin_ns;
}

guint64
fsv_view_get_end_ns(const FsvView *v)
{
	return fsv_view_x_to_time(v, v->width);
}

double
fsv_view_get_ns_per_px(const FsvView *v)
{
	return v->ns_per_px;
}

/* The span fit shows: the trace's, or the extent a comparison set. */
static void
get_extent(const FsvView *v, guint64 *begin_ns, guint64 *end_ns)
{
	if (v->extent_end_ns > v->extent_begin_ns) {
		*begin_ns = v->extent_begin_ns;
		*end_ns = v->extent_end_ns;
	} else {
		*begin_ns = fsv_trace_get_begin_ns(v->trace);
		*end_ns = fsv_trace_get_end_ns(v->trace);
	}
}

/* Zoom limits: 100 px per ns at most; at least the trace (or 1 ms) over 4 widths. */
static double
max_ns_per_px(const FsvView *v)
{
	guint64 b, e;
	double span;

	get_extent(v, &b, &e);
	span = e > b ? (double) (e - b) : 0.0;
	return MAX(span, 1e6) * 4.0 / fsv_view_get_time_width(v);
}

/* The viewport moves to BASE + DELTA ns. Trace times are near 2^60 ns, where a double steps
 * by 256 ns: the left edge is kept as an integer plus a fraction in [0, 1), and only offsets
 * from it are computed in floating point. The whole time area stays inside [0, UINT64_MAX − 1]
 * (a pan past either end stops there): an integer that wrapped around would jump the view to
 * the other end of time, and a double past 2^64 has no guint64 value at all. */
#define TWO_POW_64 18446744073709551616.0

static void
set_viewport(FsvView *v, guint64 base, double delta, double ns_per_px)
{
	double whole = floor(delta), frac = delta - whole, span;
	guint64 last_begin;

	v->ns_per_px = CLAMP(ns_per_px, 0.01, max_ns_per_px(v));
	span = ceil(v->ns_per_px * fsv_view_get_time_width(v));
	last_begin = span >= (double) (UINT64_MAX - 1) ? 0 : UINT64_MAX - 1 - (guint64) span;
	if (whole < 0 && (-whole >= TWO_POW_64 || (guint64) (-whole) > base)) {
		v->begin_ns = 0;
		v->begin_frac = 0;
		return;
	}
	if (whole > 0 &&
	    (base >= last_begin || whole >= TWO_POW_64 || (guint64) whole > last_begin - base)) {
		v->begin_ns = MAX(last_begin, MIN(base, UINT64_MAX - 1));
		v->begin_frac = 0;
		return;
	}
	v->begin_ns = whole < 0 ? base - (guint64) (-whole) : base + (guint64) whole;
	v->begin_frac = frac;
}

void
fsv_view_set_range(FsvView *v, guint64 begin_ns, guint64 end_ns)
{
	if (end_ns <= begin_ns)
		end_ns = begin_ns + 1;
	set_viewport(v, begin_ns, 0, (double) (end_ns - begin_ns) / fsv_view_get_time_width(v));
}

void
fsv_view_fit(FsvView *v)
{
	guint64 b, e, span, margin;

	get_extent(v, &b, &e);
	span = e > b ? e - b : 1000;
	margin = span / 50 + 1;
	fsv_view_set_range(v, b > margin ? b - margin : 0, e + margin);
}

void
fsv_view_set_extent(FsvView *v, guint64 begin_ns, guint64 end_ns)
{
	v->extent_begin_ns = begin_ns;
	v->extent_end_ns = end_ns > begin_ns ? end_ns : begin_ns;
}

void
fsv_view_get_viewport(const FsvView *v, FsvViewport *viewport)
{
	viewport->begin_ns = v->begin_ns;
	viewport->begin_frac = v->begin_frac;
	viewport->ns_per_px = v->ns_per_px;
}

void
fsv_view_set_viewport(FsvView *v, const FsvViewport *viewport)
{
	double frac = isfinite(viewport->begin_frac) ? viewport->begin_frac : 0.0;
	double ns_per_px = isfinite(viewport->ns_per_px) ? MAX(viewport->ns_per_px, 0.01) : 1.0;

	/* Exactly what was given: the integer part and the fraction as they are (a fraction out
	 * of [0, 1) is carried into the integer by set_viewport, which keeps the time area inside
	 * [0, UINT64_MAX − 1]), and the scale without the zoom-out limit. */
	if (frac >= 0 && frac < 1 && viewport->begin_ns < UINT64_MAX - 1) {
		v->begin_ns = viewport->begin_ns;
		v->begin_frac = frac;
	} else {
		set_viewport(v, MIN(viewport->begin_ns, UINT64_MAX - 1), frac, ns_per_px);
	}
	v->ns_per_px = ns_per_px;
}

void
fsv_view_zoom(FsvView *v, double factor, double x)
{
	double off, p;

	if (!(factor > 0.0))
		return;
	/* The time under x stays under x: it is begin + off before and begin' + off' after. */
	off = v->begin_frac + (x - v->label_width) * v->ns_per_px;
	p = CLAMP(v->ns_per_px / factor, 0.01, max_ns_per_px(v));
	set_viewport(v, v->begin_ns, off - (x - v->label_width) * p, p);
}

void
fsv_view_pan(FsvView *v, double dx)
{
	set_viewport(v, v->begin_ns, v->begin_frac + dx * v->ns_per_px, v->ns_per_px);
}

double
fsv_view_time_to_x(const FsvView *v, guint64 ns)
{
	double d = ns >= v->begin_ns ? (double) (ns - v->begin_ns) : -(double) (v->begin_ns - ns);

	return v->label_width + (d - v->begin_frac) / v->ns_per_px;
}

guint64
fsv_view_x_to_time(const FsvView *v, double x)
{
	double off = floor(v->begin_frac + (x - v->label_width) * v->ns_per_px + 0.5);

	if (off < 0)
		return (guint64) (-off) >= v->begin_ns ? 0 : v->begin_ns - (guint64) (-off);
	if (off >= (double) (UINT64_MAX - 1 - v->begin_ns))
		return UINT64_MAX - 1;
	return v->begin_ns + (guint64) off;
}

/* ---- Rows ------------------------------------------------------------------------------ */

void
fsv_view_set_scroll_y(FsvView *v, double scroll_y)
{
	double max = MAX(0.0, (double) v->content_height - (v->height - v->ruler_height));

	v->scroll_y = CLAMP(scroll_y, 0.0, max);
}

double
fsv_view_get_scroll_y(const FsvView *v)
{
	return v->scroll_y;
}

int
fsv_view_get_content_height(const FsvView *v)
{
	return v->content_height;
}

void
fsv_view_set_row_expanded(FsvView *v, guint32 row, bool is_expanded)
{
	g_return_if_fail(row < fsv_trace_get_row_count(v->trace));
	v->is_collapsed[row] = !is_expanded;
	relayout(v);
}

bool
fsv_view_is_row_expanded(const FsvView *v, guint32 row)
{
	g_return_val_if_fail(row < fsv_trace_get_row_count(v->trace), false);
	return !v->is_collapsed[row];
}

bool
fsv_view_row_has_children(const FsvView *v, guint32 row)
{
	guint n = fsv_trace_get_row_count(v->trace);

	g_return_val_if_fail(row < n, false);
	return row + 1 < n && fsv_trace_get_row(v->trace, row + 1)->parent == row;
}

void
fsv_view_set_row_lanes_expanded(FsvView *v, guint32 row, bool is_expanded)
{
	g_return_if_fail(row < fsv_trace_get_row_count(v->trace));
	if (v->is_lanes_expanded[row] == is_expanded)
		return;
	v->is_lanes_expanded[row] = is_expanded;
	relayout(v);
}

bool
fsv_view_is_row_lanes_expanded(const FsvView *v, guint32 row)
{
	g_return_val_if_fail(row < fsv_trace_get_row_count(v->trace), false);
	return v->is_lanes_expanded[row];
}

bool
fsv_view_row_has_stacked_lanes(const FsvView *v, guint32 row)
{
	const FsvRow *r;

	g_return_val_if_fail(row < fsv_trace_get_row_count(v->trace), false);
	r = fsv_trace_get_row(v->trace, row);
	return (r->kind == FSV_ROW_QUEUE || r->kind == FSV_ROW_CPU_PROCESS ||
		r->kind == FSV_ROW_ENGINE) &&
	       _fsv_lanes_has_stack(r);
}

bool
fsv_view_reveal_item(FsvView *v, const FsvItem *item)
{
	guint32 row = FSV_INDEX_NONE;
	guint lane = 0;
	bool changed = false;

	g_return_val_if_fail(item != NULL, false);
	if (item->kind == FSV_ITEM_OP && item->index < fsv_trace_get_op_count(v->trace)) {
		row = fsv_trace_get_op(v->trace, item->index)->row;
		lane = fsv_trace_get_op(v->trace, item->index)->lane;
	} else if (item->kind == FSV_ITEM_PACKET &&
		   item->index < fsv_trace_get_packet_count(v->trace)) {
		row = fsv_trace_get_packet(v->trace, item->index)->row;
		lane = fsv_trace_get_packet(v->trace, item->index)->lane;
	} else {
		row = item->row;
	}
	if (row == FSV_INDEX_NONE || row >= fsv_trace_get_row_count(v->trace))
		return false;
	for (guint32 p = fsv_trace_get_row(v->trace, row)->parent; p != FSV_INDEX_NONE;
	     p = fsv_trace_get_row(v->trace, p)->parent)
		if (v->is_collapsed[p]) {
			v->is_collapsed[p] = false;
			changed = true;
		}
	if ((item->kind == FSV_ITEM_OP || item->kind == FSV_ITEM_PACKET) &&
	    !v->is_lanes_expanded[row]) {
		guint first, n;

		_fsv_lanes_get_slot(
		    fsv_trace_get_row(v->trace, row), false,
		    _fsv_lanes_slot_of_lane(fsv_trace_get_row(v->trace, row), false, lane), &first,
		    &n);
		if (n > 1) {
			v->is_lanes_expanded[row] = true;
			changed = true;
		}
	}
	if (changed)
		relayout(v);
	return changed;
}

void
fsv_view_set_show_fence_rows(FsvView *v, bool is_shown)
{
	v->show_fence_rows = is_shown;
	relayout(v);
}

void
fsv_view_set_frame_budget(FsvView *v, guint64 budget_ns)
{
	g_return_if_fail(v != NULL);
	v->frame_budget_ns = budget_ns;
}

guint64
fsv_view_get_frame_budget(const FsvView *v)
{
	g_return_val_if_fail(v != NULL, 0);
	return v->frame_budget_ns;
}

void
fsv_view_set_show_counter(FsvView *v, FsvCounterKind kind, bool is_shown)
{
	g_return_if_fail(kind < FSV_COUNTER_KIND_COUNT);
	v->show_counter[kind] = is_shown;
	relayout(v);
}

bool
fsv_view_get_show_counter(const FsvView *v, FsvCounterKind kind)
{
	g_return_val_if_fail(kind < FSV_COUNTER_KIND_COUNT, false);
	return v->show_counter[kind];
}

void
fsv_view_set_row_hidden(FsvView *v, guint32 row, bool is_hidden)
{
	g_return_if_fail(row < fsv_trace_get_row_count(v->trace));
	v->is_hidden[row] = is_hidden;
	relayout(v);
}

guint
fsv_view_get_visible_row_count(const FsvView *v)
{
	return v->layout->len;
}

guint32
fsv_view_get_visible_row(const FsvView *v, guint i, int *y, int *height)
{
	const LayoutRow *lr;

	g_return_val_if_fail(i < v->layout->len, FSV_INDEX_NONE);
	lr = &g_array_index(v->layout, LayoutRow, i);
	if (y)
		*y = lr->y;
	if (height)
		*height = lr->height;
	return lr->row;
}

bool
fsv_view_get_row_geometry(const FsvView *v, guint32 row, double *y, double *height)
{
	const LayoutRow *lr;

	if (row >= fsv_trace_get_row_count(v->trace) || v->row_slot[row] == 0)
		return false;
	lr = &g_array_index(v->layout, LayoutRow, v->row_slot[row] - 1);
	*y = lr->y + v->ruler_height - v->scroll_y;
	*height = lr->height;
	return true;
}

bool
fsv_view_get_lane_geometry(const FsvView *v, guint32 row, guint lane, double *y, double *height)
{
	double ry, rh;
	const FsvRow *r;

	if (!fsv_view_get_row_geometry(v, row, &ry, &rh))
		return false;
	r = fsv_trace_get_row(v->trace, row);
	if (r->kind == FSV_ROW_ENGINE || r->kind == FSV_ROW_QUEUE || r->kind == FSV_ROW_CPU_PROCESS)
		lane = _fsv_lanes_slot_of_lane(r, v->is_lanes_expanded[row], lane);
	else
		lane = MIN(lane, r->lane_count ? r->lane_count - 1 : 0);
	switch (r->kind) {
	case FSV_ROW_ENGINE:
		*y = ry + FSV_ROW_PAD_TOP + (r->has_event_strip ? FSV_EVENT_STRIP_HEIGHT : 0) +
		     lane * FSV_PACKET_LANE_HEIGHT;
		*height = FSV_PACKET_LANE_HEIGHT - 2;
		return true;
	case FSV_ROW_QUEUE:
	case FSV_ROW_CPU_PROCESS:
		*y = ry + FSV_ROW_PAD_TOP + lane * FSV_LANE_HEIGHT;
		*height = FSV_LANE_HEIGHT - 2;
		return true;
	case FSV_ROW_VA_SPACE:
		*y = ry + FSV_ROW_PAD_TOP + lane * FSV_VA_LANE_HEIGHT;
		*height = FSV_VA_LANE_HEIGHT - 2;
		return true;
	case FSV_ROW_DISPLAY:
		/* The two sub-lanes of flips, under the vsync strip (FsvMarker.lane). */
		lane = MIN(lane, 1);
		*y = ry + 3 + FSV_VSYNC_STRIP_HEIGHT + 2 + lane * FSV_FLIP_LANE_HEIGHT;
		*height = FSV_FLIP_LANE_HEIGHT - 2;
		return true;
	default:
		*y = ry + 2;
		*height = rh - 4;
		return true;
	}
}

bool
fsv_view_get_strip_geometry(const FsvView *v, guint32 row, FsvStrip strip, double *y,
			    double *height)
{
	double ry, rh;
	const FsvRow *r;
	double band;

	if (!fsv_view_get_row_geometry(v, row, &ry, &rh))
		return false;
	r = fsv_trace_get_row(v->trace, row);
	band = r->has_doorbell_band ? FSV_BAND_HEIGHT : 0;
	if (strip == FSV_STRIP_EVENTS) {
		if (!r->has_event_strip)
			return false;
		*y = ry + 2;
		*height = FSV_ROW_PAD_TOP - 2 + FSV_EVENT_STRIP_HEIGHT;
		return true;
	}
	if (r->kind == FSV_ROW_DISPLAY) {
		/* Its vsync ticks, on top; no band. */
		if (strip != FSV_STRIP_TICKS)
			return false;
		*y = ry + 3;
		*height = FSV_VSYNC_STRIP_HEIGHT;
		return true;
	}
	if (strip == FSV_STRIP_BAND) {
		if (!r->has_doorbell_band)
			return false;
		*y = ry + rh - FSV_ROW_PAD_BOTTOM - band;
		*height = band;
		return true;
	}
	*y = ry + rh - FSV_ROW_PAD_BOTTOM - band - FSV_TICK_HEIGHT;
	*height = FSV_TICK_HEIGHT;
	return true;
}

guint
fsv_view_get_lane_slot_count(const FsvView *v, guint32 row)
{
	const FsvRow *r;

	g_return_val_if_fail(row < fsv_trace_get_row_count(v->trace), 0);
	r = fsv_trace_get_row(v->trace, row);
	if (r->kind != FSV_ROW_ENGINE && r->kind != FSV_ROW_QUEUE && r->kind != FSV_ROW_CPU_PROCESS)
		return 0;
	return _fsv_lanes_get_slot_count(r, v->is_lanes_expanded[row]);
}

bool
fsv_view_get_lane_slot(const FsvView *v, guint32 row, guint slot, FsvLaneSlot *out)
{
	const FsvRow *r;
	double ry, rh;
	int lane_h;

	if (slot >= fsv_view_get_lane_slot_count(v, row) ||
	    !fsv_view_get_row_geometry(v, row, &ry, &rh))
		return false;
	r = fsv_trace_get_row(v->trace, row);
	_fsv_lanes_get_slot(r, v->is_lanes_expanded[row], slot, &out->first_lane, &out->lane_count);
	lane_h = r->kind == FSV_ROW_ENGINE ? FSV_PACKET_LANE_HEIGHT : FSV_LANE_HEIGHT;
	out->y = ry + FSV_ROW_PAD_TOP + (r->has_event_strip ? FSV_EVENT_STRIP_HEIGHT : 0) +
		 (double) slot * lane_h;
	out->height = lane_h - 2;
	return true;
}

guint
fsv_view_lane_to_slot(const FsvView *v, guint32 row, guint lane)
{
	g_return_val_if_fail(row < fsv_trace_get_row_count(v->trace), 0);
	return _fsv_lanes_slot_of_lane(fsv_trace_get_row(v->trace, row), v->is_lanes_expanded[row],
				       lane);
}

guint32
fsv_view_row_at_y(const FsvView *v, double y)
{
	double cy = y - v->ruler_height + v->scroll_y;
	guint lo = 0, hi = v->layout->len;

	if (y < v->ruler_height || cy < 0)
		return FSV_INDEX_NONE;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		const LayoutRow *lr = &g_array_index(v->layout, LayoutRow, mid);

		if (cy < lr->y)
			hi = mid;
		else if (cy >= lr->y + lr->height)
			lo = mid + 1;
		else
			return lr->row;
	}
	return FSV_INDEX_NONE;
}

void
fsv_view_get_column_span(const FsvView *v, double x, guint64 *begin_ns, guint64 *end_ns)
{
	double column = floor(x);

	*begin_ns = fsv_view_x_to_time(v, column);
	*end_ns = fsv_view_x_to_time(v, column + 1);
	if (*end_ns <= *begin_ns)
		*end_ns = *begin_ns + 1;
}

char *
fsv_view_dup_counter_text(const FsvView *v, guint32 row, double x)
{
	guint64 b, e;
	const FsvRow *r;

	if (row >= fsv_trace_get_row_count(v->trace) || x < v->label_width || x >= v->width)
		return NULL;
	r = fsv_trace_get_row(v->trace, row);
	fsv_view_get_column_span(v, x, &b, &e);
	if (r->kind == FSV_ROW_BUSY) {
		g_autofree char *span = fsv_format_duration(e - b);
		guint64 busy = fsv_counters_busy_ns(v->trace, row, b, e);

		return g_strdup_printf("busy %.1f %% of %s",
				       100.0 * (double) busy / (double) (e - b), span);
	}
	if (r->kind == FSV_ROW_DEPTH) {
		guint32 lo, hi;

		fsv_counters_depth_range(v->trace, row, b, e, &lo, &hi);
		return lo == hi ? g_strdup_printf("depth %" G_GUINT32_FORMAT, lo)
				: g_strdup_printf(
				      "depth %" G_GUINT32_FORMAT " – %" G_GUINT32_FORMAT, lo, hi);
	}
	if (r->kind == FSV_ROW_FENCE || r->kind == FSV_ROW_XFENCE) {
		guint64 lo, hi;

		if (!fsv_counters_fence_range(v->trace, row, b, e, &lo, &hi))
			return NULL;
		return lo == hi
			   ? g_strdup_printf("CurrentValue %" G_GUINT64_FORMAT, lo)
			   : g_strdup_printf(
				 "CurrentValue %" G_GUINT64_FORMAT " – %" G_GUINT64_FORMAT, lo, hi);
	}
	return NULL;
}

/* ---- Hit testing ----------------------------------------------------------------------- */

typedef struct {
	guint64 t, slack;
	guint32 best;
	guint64 best_distance; /* 0 inside; else ns to the nearer edge */
	guint64 best_length;
	/* Display rows: only the flips of this sub-lane (markers), -1: any item. */
	const FsvTrace *trace;
	int flip_lane;
} HitSearch;

static void
hit_consider(HitSearch *h, guint32 id, guint64 begin, guint64 end)
{
	guint64 d = h->t < begin ? begin - h->t : h->t > end ? h->t - end : 0;

	if (d > h->slack)
		return;
	if (h->flip_lane >= 0 && fsv_trace_get_marker(h->trace, id)->lane != h->flip_lane)
		return;
	/* Inside beats near; among insides, the shortest (it sits on top visually). */
	if (h->best == FSV_INDEX_NONE || d < h->best_distance ||
	    (d == h->best_distance && end - begin < h->best_length)) {
		h->best = id;
		h->best_distance = d;
		h->best_length = end - begin;
	}
}

static bool
hit_item(const FsvLodItem *item, gpointer data)
{
	hit_consider(data, item->id, item->begin_ns, item->end_ns);
	return true;
}

static bool
hit_bucket(const FsvLodBucket *b, gpointer data)
{
	hit_consider(data, b->top, b->begin_ns, b->end_ns);
	return true;
}

static guint32
hit_lod(const FsvView *v, const FsvLod *lod, guint64 t, double slack_px)
{
	HitSearch h = {t, (guint64) (slack_px * v->ns_per_px), FSV_INDEX_NONE, 0, 0, v->trace, -1};

	if (!lod)
		return FSV_INDEX_NONE;
	fsv_lod_visit(lod, t > h.slack ? t - h.slack : 0, t + h.slack, v->ns_per_px, hit_item,
		      hit_bucket, &h);
	return h.best;
}

bool
fsv_view_get_victim_arrow(const FsvView *v, guint32 marker, double *x, double *y0, double *y1)
{
	const FsvMarker *m;
	guint32 to;
	double h;

	if (marker >= fsv_trace_get_marker_count(v->trace))
		return false;
	m = fsv_trace_get_marker(v->trace, marker);
	if (m->kind != FSA_MARK_DOORBELL_VICTIMIZE || m->row == FSV_INDEX_NONE ||
	    m->other_handle == 0)
		return false;
	to = fsv_trace_find_queue_row(v->trace, m->other_handle);
	if (to == FSV_INDEX_NONE || to == m->row)
		return false;
	if (!fsv_view_get_strip_geometry(v, m->row, FSV_STRIP_BAND, y0, &h) &&
	    !fsv_view_get_strip_geometry(v, m->row, FSV_STRIP_TICKS, y0, &h))
		return false;
	*y0 += h / 2;
	if (!fsv_view_get_strip_geometry(v, to, FSV_STRIP_BAND, y1, &h) &&
	    !fsv_view_get_strip_geometry(v, to, FSV_STRIP_TICKS, y1, &h))
		return false;
	*y1 += h / 2;
	*x = floor(fsv_view_time_to_x(v, m->begin_ns)) + 0.5;
	return true;
}

bool
fsv_view_get_propagation_arrow(const FsvView *v, guint32 marker, double *x0, double *y0, double *x1,
			       double *y1)
{
	const FsvMarker *m;
	guint32 from;
	double h;

	if (marker >= fsv_trace_get_marker_count(v->trace))
		return false;
	m = fsv_trace_get_marker(v->trace, marker);
	if (m->kind != FSA_MARK_FENCE_PROPAGATION || m->row == FSV_INDEX_NONE)
		return false;
	from = fsv_trace_find_xfence_row(v->trace, m->other_handle, m->adapter_id);
	if (from == FSV_INDEX_NONE || from == m->row || !fsv_view_get_row_geometry(v, from, y0, &h))
		return false;
	*y0 += h / 2;
	if (!fsv_view_get_row_geometry(v, m->row, y1, &h))
		return false;
	*y1 += h / 2;
	*x0 = floor(fsv_view_time_to_x(v, m->begin_ns)) + 0.5;
	*x1 = floor(fsv_view_time_to_x(v, m->is_open ? m->begin_ns : m->end_ns)) + 0.5;
	return true;
}

bool
fsv_view_get_piece_connector(const FsvView *v, guint32 packet, double *x0, double *y0, double *x1,
			     double *y1, double *y_peak)
{
	const FsvPacket *a, *b;
	double h, sy, sh;

	if (packet >= fsv_trace_get_packet_count(v->trace))
		return false;
	a = fsv_trace_get_packet(v->trace, packet);
	if (a->next_piece == FSV_INDEX_NONE || a->row == FSV_INDEX_NONE)
		return false;
	b = fsv_trace_get_packet(v->trace, a->next_piece);
	if (b->row == FSV_INDEX_NONE || !fsv_view_get_lane_geometry(v, a->row, a->lane, y0, &h) ||
	    !fsv_view_get_lane_geometry(v, b->row, b->lane, y1, &h))
		return false;
	*x0 = fsv_view_time_to_x(v, a->end_ns);
	*x1 = fsv_view_time_to_x(v, b->start_ns);
	*y_peak = MIN(*y0, *y1) - 6;
	if (fsv_view_get_strip_geometry(v, a->row, FSV_STRIP_EVENTS, &sy, &sh))
		*y_peak = MAX(sy + sh / 2 + 1, MIN(*y0, *y1) - FSV_EVENT_STRIP_HEIGHT + 2);
	return true;
}

bool
fsv_view_get_group_extent(const FsvView *v, guint32 row, double *y0, double *y1)
{
	guint depth, i;
	double h;

	if (!fsv_view_get_row_geometry(v, row, y0, &h))
		return false;
	depth = fsv_trace_get_row(v->trace, row)->depth;
	*y1 = *y0 + h;
	for (i = v->row_slot[row]; i < v->layout->len; i++) {
		const LayoutRow *lr = &g_array_index(v->layout, LayoutRow, i);

		if (fsv_trace_get_row(v->trace, lr->row)->depth <= depth)
			break;
		*y1 = lr->y + lr->height + v->ruler_height - v->scroll_y;
	}
	return true;
}

/* TDR-06: an adapter reset's line crosses every row of its adapter: the adapter_reset marker
 * of ROW's adapter within SLACK_PX of x, FSV_INDEX_NONE if none. */
typedef struct {
	const FsvTrace *trace;
	guint64 t, slack;
	guint32 best;
} ResetHit;

static bool
reset_item(const FsvLodItem *item, gpointer data)
{
	ResetHit *h = data;
	const FsvMarker *m = fsv_trace_get_marker(h->trace, item->id);

	if (m->kind == FSA_MARK_ADAPTER_RESET && h->best == FSV_INDEX_NONE &&
	    item->begin_ns + h->slack >= h->t && item->begin_ns <= h->t + h->slack)
		h->best = item->id;
	return true;
}

static guint32
hit_adapter_reset(const FsvView *v, guint32 row, guint64 t, double slack_px)
{
	ResetHit h = {v->trace, t, (guint64) (slack_px * v->ns_per_px), FSV_INDEX_NONE};
	const FsvLod *lod;

	while (row != FSV_INDEX_NONE && fsv_trace_get_row(v->trace, row)->kind != FSV_ROW_ADAPTER)
		row = fsv_trace_get_row(v->trace, row)->parent;
	if (row == FSV_INDEX_NONE ||
	    !(lod = _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_RESET)))
		return FSV_INDEX_NONE;
	/* Every item: resets are few, and a bucket's top may be another kind. */
	fsv_lod_visit(lod, t > h.slack ? t - h.slack : 0, t + h.slack, 0, reset_item, NULL, &h);
	return h.best;
}

/* The connector over (x, y) of an engine row: the earlier piece, FSV_INDEX_NONE if none. The
 * row's packets are sorted by start: the pieces whose connector spans t started before it, and
 * a connector spans only the few packets that ran between two pieces, so a bounded look back
 * from the first packet starting after t finds it. */
static guint32
hit_piece_connector(const FsvView *v, guint32 row, double x, double y)
{
	guint n = 0;
	const guint32 *list = fsv_trace_get_row_packets(v->trace, row, &n);
	guint64 t = fsv_view_x_to_time(v, x);
	guint lo = 0, hi = n;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (fsv_trace_get_packet(v->trace, list[mid])->start_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint k = 0; k < 256 && lo > 0; k++, lo--) {
		guint32 id = list[lo - 1];
		double x0, y0, x1, y1, peak;

		if (!fsv_view_get_piece_connector(v, id, &x0, &y0, &x1, &y1, &peak))
			continue;
		if (x >= x0 - 1 && x <= x1 + 1 && y >= peak - 3 && y <= MAX(y0, y1) + 1)
			return id;
	}
	return FSV_INDEX_NONE;
}

/* A victimization arrow through (x, y): the victim layers of every laid-out queue row near t
 * (the arrows of their aggregates too: the drawing draws one per bucket). */
typedef struct {
	const FsvView *v;
	double x, y, slack_px;
	guint32 best;
} ArrowHit;

static void
arrow_consider(ArrowHit *a, guint32 id)
{
	double ax, y0, y1;

	if (a->best != FSV_INDEX_NONE || !fsv_view_get_victim_arrow(a->v, id, &ax, &y0, &y1))
		return;
	if (fabs(ax - a->x) <= a->slack_px && a->y >= MIN(y0, y1) - 2 && a->y <= MAX(y0, y1) + 2)
		a->best = id;
}

static bool
arrow_item(const FsvLodItem *item, gpointer data)
{
	arrow_consider(data, item->id);
	return true;
}

static bool
arrow_bucket(const FsvLodBucket *b, gpointer data)
{
	arrow_consider(data, b->top);
	return true;
}

static guint32
hit_victim_arrow(const FsvView *v, double x, double y, guint64 t, double slack_px)
{
	ArrowHit a = {v, x, y, slack_px, FSV_INDEX_NONE};
	guint64 slack = (guint64) (3.0 * v->ns_per_px);

	for (guint i = 0; i < v->layout->len && a.best == FSV_INDEX_NONE; i++) {
		const FsvLod *lod = _fsv_trace_get_marker_lod(
		    v->trace, g_array_index(v->layout, LayoutRow, i).row, FSV_MARKER_LAYER_VICTIM);

		if (lod)
			fsv_lod_visit(lod, t > slack ? t - slack : 0, t + slack, v->ns_per_px,
				      arrow_item, arrow_bucket, &a);
	}
	return a.best;
}

/* XAD-07: a propagation arrow through (x, y): the propagation layers of every laid-out row near
 * t (the arrows of their aggregates too: the drawing draws one per bucket), within SLACK_PX of
 * the segment. */
static void
propagation_consider(ArrowHit *a, guint32 id)
{
	double x0, y0, x1, y1, dx, dy, k, px, py;

	if (a->best != FSV_INDEX_NONE ||
	    !fsv_view_get_propagation_arrow(a->v, id, &x0, &y0, &x1, &y1))
		return;
	dx = x1 - x0;
	dy = y1 - y0;
	k = dx * dx + dy * dy > 0 ? ((a->x - x0) * dx + (a->y - y0) * dy) / (dx * dx + dy * dy) : 0;
	k = CLAMP(k, 0.0, 1.0);
	px = x0 + k * dx;
	py = y0 + k * dy;
	if (hypot(a->x - px, a->y - py) <= a->slack_px)
		a->best = id;
}

static bool
propagation_item(const FsvLodItem *item, gpointer data)
{
	propagation_consider(data, item->id);
	return true;
}

static bool
propagation_bucket(const FsvLodBucket *b, gpointer data)
{
	propagation_consider(data, b->top);
	return true;
}

static guint32
hit_propagation_arrow(const FsvView *v, double x, double y, guint64 t, double slack_px)
{
	ArrowHit a = {v, x, y, slack_px, FSV_INDEX_NONE};
	guint64 slack = (guint64) ((slack_px + 1) * v->ns_per_px);

	for (guint i = 0; i < v->layout->len && a.best == FSV_INDEX_NONE; i++) {
		guint32 row = g_array_index(v->layout, LayoutRow, i).row;
		const FsvLod *lod =
		    fsv_trace_get_row(v->trace, row)->kind == FSV_ROW_XFENCE
			? _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_PROPAGATION)
			: NULL;

		if (lod)
			fsv_lod_visit(lod, t > slack ? t - slack : 0, t + slack, v->ns_per_px,
				      propagation_item, propagation_bucket, &a);
	}
	return a.best;
}

bool
_fsv_view_get_box(const FsvView *v, const FsvItem *item, double *x0, double *x1, double *y,
		  double *h)
{
	guint64 begin, end;
	guint32 row;
	guint lane;

	if (item->kind == FSV_ITEM_OP && item->index < fsv_trace_get_op_count(v->trace)) {
		const FsvOp *o = fsv_trace_get_op(v->trace, item->index);

		begin = o->begin_ns;
		end = o->end_ns;
		row = o->row;
		lane = o->lane;
	} else if (item->kind == FSV_ITEM_PACKET &&
		   item->index < fsv_trace_get_packet_count(v->trace)) {
		const FsvPacket *p = fsv_trace_get_packet(v->trace, item->index);

		begin = p->start_ns;
		end = p->end_ns;
		row = p->row;
		lane = p->lane;
	} else {
		return false;
	}
	if (row == FSV_INDEX_NONE || !fsv_view_get_lane_geometry(v, row, lane, y, h))
		return false;
	*x0 = MAX(fsv_view_time_to_x(v, begin), v->label_width - 8.0);
	*x1 = MIN(fsv_view_time_to_x(v, end), v->width + 8.0);
	/* 3 px at least, so that a selected sliver can be seen and clicked; then the whole
	 * pixels from the first one it touches to the one its end lies in. */
	if (*x1 - *x0 < 3) {
		*x0 = (*x0 + *x1) / 2 - 1.5;
		*x1 = *x0 + 3;
	}
	*x0 = floor(*x0);
	*x1 = floor(*x1) + 1;
	return true;
}

/* Whether (x, y) lies in the drawn frame of SELECTION (an op or packet), which is on top. */
static bool
selection_covers(const FsvView *v, const FsvItem *selection, double x, double y)
{
	double x0, x1, by, bh;

	if (!selection || (selection->kind != FSV_ITEM_OP && selection->kind != FSV_ITEM_PACKET) ||
	    x < v->label_width || y < v->ruler_height ||
	    !_fsv_view_get_box(v, selection, &x0, &x1, &by, &bh))
		return false;
	return x >= x0 - FSV_SELECTION_FRAME_X && x < x1 + FSV_SELECTION_FRAME_X &&
	       y >= by - FSV_SELECTION_FRAME_Y && y < by + bh + FSV_SELECTION_FRAME_Y;
}

bool
fsv_view_hit_test(const FsvView *v, double x, double y, FsvItem *hit)
{
	return fsv_view_hit_test_selected(v, x, y, NULL, hit);
}

bool
fsv_view_hit_test_selected(const FsvView *v, double x, double y, const FsvItem *selection,
			   FsvItem *hit)
{
	guint32 row = fsv_view_row_at_y(v, y);
	const FsvRow *r;
	guint64 t;
	double ry, rh;

	*hit = (FsvItem){FSV_ITEM_NONE, FSV_INDEX_NONE, FSV_INDEX_NONE};
	if (row == FSV_INDEX_NONE)
		return false;
	if (x < v->label_width) {
		*hit = (FsvItem){FSV_ITEM_ROW, row, row};
		return true;
	}
	r = fsv_trace_get_row(v->trace, row);
	t = fsv_view_x_to_time(v, x);
	fsv_view_get_row_geometry(v, row, &ry, &rh);

	/* A victimization arrow is drawn over the boxes: right on its shaft (±1 px), it wins; so
	 * does an adapter reset's line over its adapter's rows. */
	{
		guint32 id = hit_victim_arrow(v, x, y, t, 1.0);

		if (id == FSV_INDEX_NONE)
			id = hit_propagation_arrow(v, x, y, t, 1.5);
		if (id == FSV_INDEX_NONE)
			id = hit_adapter_reset(v, row, t, 1.5);
		if (id != FSV_INDEX_NONE) {
			*hit =
			    (FsvItem){FSV_ITEM_MARKER, id, fsv_trace_get_marker(v->trace, id)->row};
			return true;
		}
		/* The selected op or packet is drawn over every row's content and the lost-data
		 * overlays, under those arrows (fsv-render.c draw_selected_box). */
		if (selection_covers(v, selection, x, y)) {
			*hit = *selection;
			hit->row = selection->kind == FSV_ITEM_OP
				       ? fsv_trace_get_op(v->trace, selection->index)->row
				       : fsv_trace_get_packet(v->trace, selection->index)->row;
			return true;
		}
		/* MMU-14: a page fault's flash, at the top of each of its rows, is drawn over the
		 * rest of the row. */
		if (y < ry + 14)
			id = hit_lod(
			    v, _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_FAULT), t,
			    4.5);
		if (id != FSV_INDEX_NONE) {
			*hit = (FsvItem){FSV_ITEM_MARKER, id, row};
			return true;
		}
	}
	/* Issue 15 §4: a counter row answers its value at the pointer, everywhere in the row. */
	if (r->kind == FSV_ROW_BUSY || r->kind == FSV_ROW_DEPTH) {
		guint32 id = fsv_counters_item_at(v->trace, row, t);

		if (id == FSV_INDEX_NONE)
			return false;
		*hit = (FsvItem){FSV_ITEM_COUNTER, id, row};
		return true;
	}
	/* Issue 16 §3: a frames row answers the frame under the pointer (its LOD, as drawn). */
	if (r->kind == FSV_ROW_FRAMES) {
		guint32 id = hit_lod(v, _fsv_trace_get_frame_lod(v->trace, row), t, 2.0);

		if (id == FSV_INDEX_NONE)
			return false;
		*hit = (FsvItem){FSV_ITEM_FRAME, id, row};
		return true;
	}
	if (r->kind == FSV_ROW_QUEUE || r->kind == FSV_ROW_CPU_PROCESS ||
	    r->kind == FSV_ROW_ENGINE) {
		int lane_h = r->kind == FSV_ROW_ENGINE ? FSV_PACKET_LANE_HEIGHT : FSV_LANE_HEIGHT;
		int top = FSV_ROW_PAD_TOP + (r->has_event_strip ? FSV_EVENT_STRIP_HEIGHT : 0);
		int slot = (int) floor((y - ry - top) / lane_h);
		FsvLaneSlot ls;
		bool is_union = false;

		if (slot >= 0 && fsv_view_get_lane_slot(v, row, (guint) slot, &ls) && y >= ls.y &&
		    y < ls.y + ls.height + 2) {
			/* A lane: its box there (lanes never overlap); an aggregated slot: itself,
			 * drawn as the union of the boxes of its lanes. */
			const FsvLod *lod =
			    ls.lane_count > 1
				? _fsv_trace_get_stack_lod(v->trace, row, ls.first_lane, &is_union)
			    : r->kind == FSV_ROW_ENGINE
				? _fsv_trace_get_packet_lod(v->trace, row, ls.first_lane)
				: _fsv_trace_get_op_lod(v->trace, row, ls.first_lane);
			guint32 id = hit_lod(v, lod, t, 2.0);

			if (id != FSV_INDEX_NONE && ls.lane_count > 1) {
				*hit = (FsvItem){FSV_ITEM_LANES, ls.first_lane, row};
				return true;
			}
			if (id != FSV_INDEX_NONE) {
				*hit = (FsvItem){r->kind == FSV_ROW_ENGINE ? FSV_ITEM_PACKET
									   : FSV_ITEM_OP,
						 id, row};
				return true;
			}
		}
	}
	/* The event strip above an engine's lanes: a preemption bracket or TDR stage there, else
	 * the connector of preempted pieces, which answers the resubmitted piece (its details
	 * name both pieces). */
	if (r->kind == FSV_ROW_ENGINE) {
		double sy, sh;

		if (fsv_view_get_strip_geometry(v, row, FSV_STRIP_EVENTS, &sy, &sh) && y >= sy &&
		    y < sy + sh) {
			guint32 id = hit_lod(
			    v, _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_RESET), t,
			    2.0);

			if (id == FSV_INDEX_NONE)
				id = hit_lod(v,
					     _fsv_trace_get_marker_lod(v->trace, row,
								       FSV_MARKER_LAYER_OTHER),
					     t, 2.0);
			if (id == FSV_INDEX_NONE)
				id = hit_lod(
				    v,
				    _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_BACK),
				    t, 2.0);
			if (id != FSV_INDEX_NONE) {
				*hit = (FsvItem){FSV_ITEM_MARKER, id, row};
				return true;
			}
			id = hit_piece_connector(v, row, x, y);
			if (id != FSV_INDEX_NONE) {
				*hit =
				    (FsvItem){FSV_ITEM_PACKET,
					      fsv_trace_get_packet(v->trace, id)->next_piece, row};
				return true;
			}
		}
	}
	/* A display row: its vsync strip (a missed vsync first: it is drawn over the others),
	 * else the flip of the sub-lane under the pointer. */
	if (r->kind == FSV_ROW_DISPLAY) {
		double sy, sh, ly, lh;
		guint32 id = FSV_INDEX_NONE;

		if (fsv_view_get_strip_geometry(v, row, FSV_STRIP_TICKS, &sy, &sh) && y >= sy &&
		    y < sy + sh + 1) {
			id = hit_lod(
			    v, _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_MISSED), t,
			    2.0);
			if (id == FSV_INDEX_NONE)
				id = hit_lod(v,
					     _fsv_trace_get_marker_lod(v->trace, row,
								       FSV_MARKER_LAYER_VSYNC),
					     t, 2.0);
		}
		for (guint lane = 0; lane < 2 && id == FSV_INDEX_NONE; lane++) {
			const FsvLod *lod =
			    _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_OTHER);
			HitSearch h = {t,
				       (guint64) (2.0 * v->ns_per_px),
				       FSV_INDEX_NONE,
				       0,
				       0,
				       v->trace,
				       (int) lane};

			if (!lod || !fsv_view_get_lane_geometry(v, row, lane, &ly, &lh) || y < ly ||
			    y >= ly + lh + 2)
				continue;
			fsv_lod_visit(lod, t > h.slack ? t - h.slack : 0, t + h.slack, v->ns_per_px,
				      hit_item, hit_bucket, &h);
			id = h.best;
		}
		if (id != FSV_INDEX_NONE) {
			*hit = (FsvItem){FSV_ITEM_MARKER, id, row};
			return true;
		}
	}
	/* MMU-06: a VA space row's lanes answer the mapping there. */
	if (r->kind == FSV_ROW_VA_SPACE) {
		int lane = (int) floor((y - ry - FSV_ROW_PAD_TOP) / FSV_VA_LANE_HEIGHT);
		guint32 id =
		    lane >= 0 && lane < (int) r->lane_count
			? hit_lod(v, _fsv_trace_get_va_lod(v->trace, row, (guint) lane), t, 2.0)
			: FSV_INDEX_NONE;

		if (id != FSV_INDEX_NONE) {
			*hit = (FsvItem){FSV_ITEM_MARKER, id, row};
			return true;
		}
	}
	if (r->kind == FSV_ROW_XFENCE) {
		/* Its strip at the bottom: the propagations that reached it, the NotificationOnly
		 * updates; above it, its CurrentValue steps (below). */
		double ty, th;
		guint32 id = FSV_INDEX_NONE;

		if (fsv_view_get_strip_geometry(v, row, FSV_STRIP_TICKS, &ty, &th) && y >= ty - 1) {
			id = hit_lod(
			    v, _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_OTHER), t,
			    2.0);
			if (id == FSV_INDEX_NONE)
				id = hit_lod(v,
					     _fsv_trace_get_marker_lod(
						 v->trace, row, FSV_MARKER_LAYER_PROPAGATION),
					     t, 2.0);
		}
		if (id != FSV_INDEX_NONE) {
			*hit = (FsvItem){FSV_ITEM_MARKER, id, row};
			return true;
		}
	}
	if (r->kind == FSV_ROW_FENCE || r->kind == FSV_ROW_XFENCE) {
		guint n = 0;
		const FsvFenceStep *steps = fsv_trace_get_fence_steps(v->trace, row, &n);
		guint lo = 0, hi = n;

		while (lo < hi) {
			guint mid = lo + (hi - lo) / 2;

			if (steps[mid].ns <= t)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0) {
			*hit = (FsvItem){FSV_ITEM_FENCE_STEP, lo - 1, row};
			return true;
		}
	}
	if (r->kind != FSV_ROW_DISPLAY) {
		static const FsvMarkerLayer order[] = {
		    FSV_MARKER_LAYER_FAULT, FSV_MARKER_LAYER_VICTIM,      FSV_MARKER_LAYER_RESET,
		    FSV_MARKER_LAYER_OTHER, FSV_MARKER_LAYER_PROPAGATION, FSV_MARKER_LAYER_RING,
		    FSV_MARKER_LAYER_BACK};
		double by, bh, ty, th;
		guint32 id = FSV_INDEX_NONE;
		bool in_ticks = fsv_view_get_strip_geometry(v, row, FSV_STRIP_TICKS, &ty, &th) &&
				y >= ty && y < ty + th;

		/* In the band: its state. In the tick strip: what is ticked there. Elsewhere in
		 * the row, an arrow crossing it before the row's own markers (whose instants are
		 * drawn in the tick strip only). */
		if (fsv_view_get_strip_geometry(v, row, FSV_STRIP_BAND, &by, &bh) && y >= by &&
		    y < by + bh + 1)
			id = hit_lod(
			    v, _fsv_trace_get_marker_lod(v->trace, row, FSV_MARKER_LAYER_BAND), t,
			    1.0);
		for (guint i = 0; i < G_N_ELEMENTS(order) && id == FSV_INDEX_NONE && in_ticks; i++)
			id = hit_lod(v, _fsv_trace_get_marker_lod(v->trace, row, order[i]), t, 2.0);
		if (id != FSV_INDEX_NONE) {
			*hit = (FsvItem){FSV_ITEM_MARKER, id, row};
			return true;
		}
		id = hit_victim_arrow(v, x, y, t, 2.5);
		if (id != FSV_INDEX_NONE) {
			*hit =
			    (FsvItem){FSV_ITEM_MARKER, id, fsv_trace_get_marker(v->trace, id)->row};
			return true;
		}
		for (guint i = 0; i < G_N_ELEMENTS(order) && id == FSV_INDEX_NONE; i++)
			id = hit_lod(v, _fsv_trace_get_marker_lod(v->trace, row, order[i]), t, 2.0);
		if (id != FSV_INDEX_NONE) {
			*hit = (FsvItem){FSV_ITEM_MARKER, id, row};
			return true;
		}
	}
	for (guint32 i = 0; i < fsv_trace_get_loss_count(v->trace); i++) {
		const FsvLoss *l = fsv_trace_get_loss(v->trace, i);
		guint64 slack = (guint64) (2.0 * v->ns_per_px);

		if ((l->row == row || l->row == FSV_INDEX_NONE) && t + slack >= l->begin_ns &&
		    t <= l->end_ns + slack) {
			*hit = (FsvItem){FSV_ITEM_LOSS, i, l->row};
			return true;
		}
	}
	return false;
}

/* ---- Range statistics ------------------------------------------------------------------ */

typedef struct {
	const FsvTrace *trace;
	guint64 begin, end;
	FsvRowStats *row;
	GArray *latencies; /* guint64, this row */
} StatsWalk;

static bool
stats_op(const FsvLodItem *item, gpointer data)
{
	StatsWalk *w = data;
	const FsvOp *o = fsv_trace_get_op(w->trace, item->id);

	if (o->kind == FSA_OP_WAIT)
		w->row->wait_count++;
	else
		w->row->signal_count++;
	if (o->state == FSA_OP_INFERRED)
		w->row->inferred_count++;
	else if (o->state == FSA_OP_NEVER_COMPLETED)
		w->row->never_completed_count++;
	if (o->state == FSA_OP_OBSERVED && o->queued_ns != FSV_TIME_NONE &&
	    o->op_end_ns != FSV_TIME_NONE && o->op_end_ns >= o->queued_ns) {
		guint64 lat = o->op_end_ns - o->queued_ns;

		g_array_append_val(w->latencies, lat);
	}
	if (o->kind == FSA_OP_WAIT && o->observed_ns != FSV_TIME_NONE &&
	    o->op_end_ns != FSV_TIME_NONE) {
		guint64 a = MAX(o->observed_ns, w->begin), b = MIN(o->op_end_ns, w->end);

		if (b > a)
			w->row->stalled_ns += b - a;
	}
	return true;
}

static bool
stats_packet(const FsvLodItem *item, gpointer data)
{
	(void) item;
	((StatsWalk *) data)->row->packet_count++;
	return true;
}

static bool
stats_marker(const FsvLodItem *item, gpointer data)
{
	(void) item;
	((StatsWalk *) data)->row->marker_count++;
	return true;
}

static int
compare_u64(const void *a, const void *b)
{
	guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

	return x < y ? -1 : x > y;
}

static void
finish_latency(FsvRowStats *s, GArray *lat)
{
	const guint64 *l;
	double sum = 0;

	if (lat->len == 0)
		return;
	qsort(lat->data, lat->len, sizeof(guint64), compare_u64);
	l = (const guint64 *) lat->data;
	for (guint i = 0; i < lat->len; i++)
		sum += (double) l[i];
	s->latency_min_ns = l[0];
	s->latency_max_ns = l[lat->len - 1];
	/* Nearest rank. */
	s->latency_p50_ns = l[(guint) ceil(0.50 * lat->len) - 1];
	s->latency_p99_ns = l[(guint) ceil(0.99 * lat->len) - 1];
	s->latency_mean_ns = sum / lat->len;
}

void
fsv_trace_range_stats(const FsvTrace *trace, guint64 begin_ns, guint64 end_ns, FsvRangeStats *stats)
{
	g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GArray) lat = g_array_new(FALSE, FALSE, sizeof(guint64));

	memset(stats, 0, sizeof(*stats));
	stats->begin_ns = begin_ns;
	stats->end_ns = end_ns;
	stats->total.row = FSV_INDEX_NONE;
	stats->rows = g_array_new(FALSE, TRUE, sizeof(FsvRowStats));
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++) {
		const FsvRow *row = fsv_trace_get_row(trace, r);
		FsvRowStats rs = {.row = r};
		StatsWalk w = {trace, begin_ns, end_ns, &rs, lat};

		g_array_set_size(lat, 0);
		for (guint lane = 0; lane < row->lane_count; lane++) {
			const FsvLod *ops = _fsv_trace_get_op_lod(trace, r, lane);
			const FsvLod *packets = _fsv_trace_get_packet_lod(trace, r, lane);

			if (ops)
				fsv_lod_visit(ops, begin_ns, end_ns, 0, stats_op, NULL, &w);
			if (packets)
				fsv_lod_visit(packets, begin_ns, end_ns, 0, stats_packet, NULL, &w);
		}
		for (int l = 0; l < FSV_MARKER_LAYER_COUNT; l++)
			if (_fsv_trace_get_marker_lod(trace, r, l))
				fsv_lod_visit(_fsv_trace_get_marker_lod(trace, r, l), begin_ns,
					      end_ns, 0, stats_marker, NULL, &w);
		/* VA mappings (MMU-06) count as markers too. */
		for (guint lane = 0; lane < FSV_VA_MAX_LANES; lane++)
			if (_fsv_trace_get_va_lod(trace, r, lane))
				fsv_lod_visit(_fsv_trace_get_va_lod(trace, r, lane), begin_ns,
					      end_ns, 0, stats_marker, NULL, &w);
		/* Counter tracks (issue 15 §4): exact busy time, largest depth in the range. */
		if (row->kind == FSV_ROW_ENGINE && fsv_counters_get_busy_count(trace, r) > 0 &&
		    end_ns > begin_ns) {
			rs.busy_ns = fsv_counters_busy_ns(trace, r, begin_ns, end_ns);
			rs.busy_engines = 1;
		}
		if (row->kind == FSV_ROW_QUEUE && end_ns > begin_ns) {
			guint32 lo;

			fsv_counters_depth_range(trace, r, begin_ns, end_ns, &lo, &rs.depth_max);
		}
		/* An engine idle over the whole range counts in the mean busy fraction too. */
		stats->total.busy_ns += rs.busy_ns;
		stats->total.busy_engines += rs.busy_engines;
		stats->total.depth_max = MAX(stats->total.depth_max, rs.depth_max);
		if (rs.wait_count + rs.signal_count + rs.packet_count + rs.marker_count == 0 &&
		    rs.busy_ns == 0 && rs.depth_max == 0)
			continue;
		g_array_append_vals(all, lat->data, lat->len);
		finish_latency(&rs, lat);
		stats->total.wait_count += rs.wait_count;
		stats->total.signal_count += rs.signal_count;
		stats->total.inferred_count += rs.inferred_count;
		stats->total.never_completed_count += rs.never_completed_count;
		stats->total.packet_count += rs.packet_count;
		stats->total.marker_count += rs.marker_count;
		stats->total.stalled_ns += rs.stalled_ns;
		g_array_append_val(stats->rows, rs);
	}
	finish_latency(&stats->total, all);
	for (guint32 i = 0; i < fsv_trace_get_loss_count(trace); i++) {
		const FsvLoss *l = fsv_trace_get_loss(trace, i);

		if (l->end_ns < begin_ns || l->begin_ns > end_ns)
			continue;
		if (fsa_loss_is_per_log(l->loss.kind))
			stats->lost_entries += l->loss.count;
		else if (l->loss.kind == FSA_LOSS_TRACER_EVENTS)
			stats->discarded_events += l->loss.count;
	}
}

void
fsv_range_stats_clear(FsvRangeStats *stats)
{
	if (stats->rows)
		g_array_unref(stats->rows);
	stats->rows = NULL;
}

/* ---- Keeping a view's state across a newer trace (live following, issue 16 §4) ---------- */

/* A row's identity across two traces of one session: what it shows (kind, adapter, engine,
 * process, display, queue, context, fence), not where it lies (rows of a newer trace move when
 * a queue or process appears before them). Two rows with one identity (group rows of one kind
 * without ids) are told apart by their order. Returns: (transfer full). */
static char *
row_key(const FsvRow *row, guint occurrence)
{
	return g_strdup_printf(
	    "%d:%u:%u:%u:%u:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT "#%u",
	    (int) row->kind, row->adapter_id, row->engine_id, row->process_id, row->source_id,
	    row->hwqueue_handle, row->context_handle, row->fence_global_handle, occurrence);
}

/* Every row of TRACE by its key (row_key): key → row + 1. Returns: (transfer full). */
static GHashTable *
row_keys(FsvTrace *trace)
{
	GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint n = fsv_trace_get_row_count(trace);

	for (guint32 r = 0; r < n; r++) {
		const FsvRow *row = fsv_trace_get_row(trace, r);
		guint occurrence = 0;
		char *key;

		while (g_hash_table_contains(keys, (key = row_key(row, occurrence)))) {
			g_free(key);
			occurrence++;
		}
		g_hash_table_insert(keys, key, GUINT_TO_POINTER(r + 1));
	}
	return keys;
}

void
fsv_view_copy_state(FsvView *v, const FsvView *from)
{
	g_autoptr(GHashTable) keys = NULL;
	GHashTableIter iter;
	gpointer key, value;
	guint n_from;

	g_return_if_fail(v != NULL && from != NULL);
	v->width = from->width;
	v->height = from->height;
	v->wanted_label_width = from->wanted_label_width;
	v->label_width = from->label_width;
	v->ruler_height = from->ruler_height;
	v->show_fence_rows = from->show_fence_rows;
	memcpy(v->show_counter, from->show_counter, sizeof(v->show_counter));
	v->frame_budget_ns = from->frame_budget_ns;
	/* Rows by identity: a row new in V keeps its defaults. */
	n_from = fsv_trace_get_row_count(from->trace);
	keys = row_keys(from->trace);
	{
		g_autoptr(GHashTable) own = row_keys(v->trace);

		g_hash_table_iter_init(&iter, own);
		while (g_hash_table_iter_next(&iter, &key, &value)) {
			guint32 r = GPOINTER_TO_UINT(value) - 1;
			guint32 f = GPOINTER_TO_UINT(g_hash_table_lookup(keys, key));

			if (f == 0 || f - 1 >= n_from)
				continue;
			v->is_collapsed[r] = from->is_collapsed[f - 1];
			v->is_hidden[r] = from->is_hidden[f - 1];
			v->is_lanes_expanded[r] = from->is_lanes_expanded[f - 1];
		}
	}
	/* The times shown: trace times mean the same in both (one session, one clock). */
	v->begin_ns = from->begin_ns;
	v->begin_frac = from->begin_frac;
	v->ns_per_px = from->ns_per_px;
	v->scroll_y = from->scroll_y;
	relayout(v);
}

bool
fsv_view_is_row_hidden(const FsvView *v, guint32 row)
{
	g_return_val_if_fail(row < fsv_trace_get_row_count(v->trace), false);
	return v->is_hidden[row];
}
