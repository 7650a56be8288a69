/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvView, where the timeline looks. It holds the viewport (the trace time at the
 * left edge of the time area, nanoseconds per pixel, the size in pixels, the vertical scroll),
 * the row layout (which groups are expanded, which optional rows are shown, each visible row's
 * y and height) and answers the geometric questions: time ↔ pixel, which row is at y, which
 * item is under (x, y), and the statistics of a time range.
 *
 * It draws nothing (fsv-render.h does) and knows no GTK: the widget forwards its size, scroll,
 * zoom and clicks here, and the headless renderer and the tests use the same object.
 *
 * Geometry: x = 0 is the left edge of the drawing; the row labels take the first label_width
 * pixels, the time area the rest. y = 0 is the top; the time ruler takes the first
 * ruler_height pixels, the rows the rest, scrolled by scroll_y.
 */
#ifndef FSV_VIEW_H
#define FSV_VIEW_H

#include <stdbool.h>

#include <glib.h>

#include "fsv-counters.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

typedef struct _FsvView FsvView;

/* Returns: (transfer full): a view of TRACE (referenced) showing the whole trace at 1024x768. */
FsvView *fsv_view_new(FsvTrace *trace);
void fsv_view_free(FsvView *view);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvView, fsv_view_free)

/* Returns: (transfer none). */
FsvTrace *fsv_view_get_trace(const FsvView *view);

/* Size of the whole drawing (labels and ruler included), in pixels. Keeps begin and
 * ns_per_px: a wider window shows more time. */
void fsv_view_set_size(FsvView *view, int width, int height);
int fsv_view_get_width(const FsvView *view);
int fsv_view_get_height(const FsvView *view);
/* The labels' width: as set (default 240), but at most width − 1 while the drawing is
 * narrower than that, so the time area always keeps a pixel. */
int fsv_view_get_label_width(const FsvView *view);
void fsv_view_set_label_width(FsvView *view, int label_width);
int fsv_view_get_ruler_height(const FsvView *view);
/* Width of the time area: width − label_width (at least 1). */
int fsv_view_get_time_width(const FsvView *view);

/* --- The horizontal viewport ------------------------------------------------------------ */

guint64 fsv_view_get_begin_ns(const FsvView *view);
/* Time at the right edge of the time area. */
guint64 fsv_view_get_end_ns(const FsvView *view);
double fsv_view_get_ns_per_px(const FsvView *view);
/* Shows [begin_ns, end_ns] across the time area (end > begin; clamped to sensible zoom
 * limits: at most 100 px per ns, at least the whole trace plus margins). */
void fsv_view_set_range(FsvView *view, guint64 begin_ns, guint64 end_ns);
/* Shows the whole trace with a small margin (the F key). */
void fsv_view_fit(FsvView *view);
/* Zooms by FACTOR (> 1 zooms in) keeping the time under pixel X (drawing coordinates) in
 * place: the mouse wheel, or W/S with X at the centre. */
void fsv_view_zoom(FsvView *view, double factor, double x);
/* Moves the viewport by DX pixels (positive: later times), as a drag or A/D. */
void fsv_view_pan(FsvView *view, double dx);

/*
 * The horizontal viewport exactly: the time at the left edge of the time area is begin_ns +
 * begin_frac (trace times near 2^60 ns do not fit a double to the ns, so the integer and the
 * fraction are kept apart), and ns_per_px the scale. Two views that share one (a comparison of
 * two traces, fsv-align.h) draw a time at the same x.
 */
typedef struct {
	guint64 begin_ns;
	double begin_frac; /* [0, 1) */
	double ns_per_px;
} FsvViewport;

void fsv_view_get_viewport(const FsvView *view, FsvViewport *viewport);
/* Shows VIEWPORT as it is, without the zoom-out limit (a view following another shows what
 * that one shows); only ns_per_px below 0.01 (100 px per ns) is raised to it. */
void fsv_view_set_viewport(FsvView *view, const FsvViewport *viewport);
/*
 * The span fsv_view_fit() shows (with its margins) and the zoom-out limit covers: by default
 * the trace's first event to its last. A comparison sets both traces' union, aligned, in this
 * view's times, so that either view fits both traces (docs/viewer.md "Comparing two traces").
 * END <= BEGIN goes back to the trace's own span.
 */
void fsv_view_set_extent(FsvView *view, guint64 begin_ns, guint64 end_ns);

/* Drawing x of a trace time (may lie outside the drawing). */
double fsv_view_time_to_x(const FsvView *view, guint64 ns);
/* Trace time at drawing x (clamped to [0, UINT64_MAX − 1]). */
guint64 fsv_view_x_to_time(const FsvView *view, double x);

/* --- Rows ------------------------------------------------------------------------------- */

/* Vertical scroll in pixels (clamped to [0, content height − visible height]). */
void fsv_view_set_scroll_y(FsvView *view, double scroll_y);
double fsv_view_get_scroll_y(const FsvView *view);
/* Height of every visible row together (without the ruler). */
int fsv_view_get_content_height(const FsvView *view);

/* Group rows (adapters, engines, the CPU and fence groups) can be collapsed; a collapsed
 * group hides its descendants. Every group starts expanded except the fence group. */
void fsv_view_set_row_expanded(FsvView *view, guint32 row, bool is_expanded);
bool fsv_view_is_row_expanded(const FsvView *view, guint32 row);
bool fsv_view_row_has_children(const FsvView *view, guint32 row);
/* Whether the fence rows are shown at all (default: shown, in a collapsed group). */
void fsv_view_set_show_fence_rows(FsvView *view, bool is_shown);
/* Whether the counter rows of KIND (engines' busy fraction, queues' depth; issue 15 §4) are
 * laid out. Default: hidden (the window shows them; `fencescope render` draws without them,
 * so its renders are those of before). */
void fsv_view_set_show_counter(FsvView *view, FsvCounterKind kind, bool is_shown);
bool fsv_view_get_show_counter(const FsvView *view, FsvCounterKind kind);
/* Hides or shows one row (a filter by queue or process), and its children. */
void fsv_view_set_row_hidden(FsvView *view, guint32 row, bool is_hidden);
/* The budget frames are graded against, as the report's --frame-budget: a frame whose frame
 * time exceeds it is over budget (docs/viewer.md "Frames"). 0, the default: each frame against
 * its display's vsync period as measured at it, as the report does without the option. */
void fsv_view_set_frame_budget(FsvView *view, guint64 budget_ns);
guint64 fsv_view_get_frame_budget(const FsvView *view);

/* Rows currently laid out, top to bottom. */
guint fsv_view_get_visible_row_count(const FsvView *view);
/* The I-th laid-out row: its index in the trace and its y (content coordinates, before
 * scrolling: add ruler_height − scroll_y for drawing coordinates) and height. */
guint32 fsv_view_get_visible_row(const FsvView *view, guint i, int *y, int *height);
/* Drawing y and height of a row; false when the row is not laid out (collapsed or hidden). */
bool fsv_view_get_row_geometry(const FsvView *view, guint32 row, double *y, double *height);
/*
 * Drawing y (top) and height of the lane LANE of a row (FsvOp.lane, FsvPacket.lane): where its
 * boxes are drawn, which for a lane a collapsed row aggregates is its aggregated slot. False
 * when the row is not laid out.
 */
bool fsv_view_get_lane_geometry(const FsvView *view, guint32 row, guint lane, double *y,
				double *height);

/* --- Lanes (docs/viewer.md "Lanes") ----------------------------------------------------- */

/*
 * A queue, CPU or engine row has as many lanes as its deepest instant needs (FsvRow.lane_count,
 * no box under another). Collapsed (the default), it shows at most FSV_COLLAPSED_LANES slots
 * (half of them for waits, half for signals when it has both): a half with more lanes shows
 * all but its last slot lane by lane, and its last slot aggregates the remaining lanes ("+k
 * more", hit as FSV_ITEM_LANES). Expanded, one slot per lane: the row grows.
 */
void fsv_view_set_row_lanes_expanded(FsvView *view, guint32 row, bool is_expanded);
bool fsv_view_is_row_lanes_expanded(const FsvView *view, guint32 row);
/* Whether the collapsed form of ROW aggregates lanes (expanding it shows more of them). */
bool fsv_view_row_has_stacked_lanes(const FsvView *view, guint32 row);

/* One slot of a row's lanes as laid out: the trace lanes it draws and where. */
typedef struct {
	guint first_lane, lane_count; /* lane_count > 1: the aggregated slot ("+k more") */
	double y, height;             /* drawing coordinates */
} FsvLaneSlot;

/* Slots of a row top to bottom (0 for rows without lanes of ops or packets). */
guint fsv_view_get_lane_slot_count(const FsvView *view, guint32 row);
/* False when SLOT is out of range or the row is not laid out. */
bool fsv_view_get_lane_slot(const FsvView *view, guint32 row, guint slot, FsvLaneSlot *slot_out);
/* The slot that draws lane LANE of ROW. */
guint fsv_view_lane_to_slot(const FsvView *view, guint32 row, guint lane);
/*
 * Makes ITEM visible: expands the groups above its row and, for an op or packet in an
 * aggregated slot, the row's lanes. Returns whether the layout changed.
 */
bool fsv_view_reveal_item(FsvView *view, const FsvItem *item);
/* The strips at the bottom of a queue or CPU row: the tick strip (doorbell rings and instant
 * markers) and, on a queue row with has_doorbell_band, the doorbell connection band under it.
 * Other rows have a tick strip at their bottom and no band. */
typedef enum {
	FSV_STRIP_TICKS,
	FSV_STRIP_BAND,
	/* Above an engine's lanes (has_event_strip): preemption brackets, piece connectors. */
	FSV_STRIP_EVENTS,
} FsvStrip;

/* Drawing y and height of a strip of a row; false when the row is not laid out or has no
 * such strip. */
bool fsv_view_get_strip_geometry(const FsvView *view, guint32 row, FsvStrip strip, double *y,
				 double *height);
/* The connector of a preempted packet's piece (packet: a packet index with next_piece, PRE-06,
 * PRE-07) to its resubmitted piece: an arc from the top-right corner of the piece (x0, y0)
 * through the event strip (at height y_peak) to the top-left corner of the resubmitted piece
 * (x1, y1). False when either piece's row is not laid out. */
bool fsv_view_get_piece_connector(const FsvView *view, guint32 packet, double *x0, double *y0,
				  double *x1, double *y1, double *y_peak);
/* The vertical extent of a group row with its visible descendants: from the top of ROW to the
 * bottom of the last visible row under it (an adapter reset is drawn over it, TDR-06). False
 * when the row is not laid out. */
bool fsv_view_get_group_extent(const FsvView *view, guint32 row, double *y0, double *y1);
/* A doorbell victimization's arrow (marker: a doorbell_victimize marker's index): vertical at x,
 * from the middle of the victim's band (y0) to the beneficiary's (y1); a row without a band
 * uses its tick strip. False when either row is not laid out or the beneficiary has no row. */
bool fsv_view_get_victim_arrow(const FsvView *view, guint32 marker, double *x, double *y0,
			       double *y1);
/* A cross-adapter propagation's arrow (marker: a fence_propagation marker's index, XAD-07): from
 * the signalling adapter's row of that fence at the propagation (x0, y0) to the notified
 * adapter's row at its NotificationOnly update (x1, y1; at the propagation when it has none).
 * False when either row is not laid out. */
bool fsv_view_get_propagation_arrow(const FsvView *view, guint32 marker, double *x0, double *y0,
				    double *x1, double *y1);
/* The row at drawing y, FSV_INDEX_NONE over the ruler or below the last row. */
guint32 fsv_view_row_at_y(const FsvView *view, double y);

/* The time span of the pixel column at drawing x (floored to a whole pixel): [*begin_ns,
 * *end_ns), what a counter row draws in that column (end > begin). */
void fsv_view_get_column_span(const FsvView *view, double x, guint64 *begin_ns, guint64 *end_ns);
/* What a counter row shows in the pixel column at drawing x, for a tooltip: "busy 73.2 % of
 * 1.250 µs", "depth 3 – 5", "CurrentValue 12 – 14". Returns: (transfer full) (nullable): NULL
 * when ROW is no counter or fence row or x is outside the time area. */
char *fsv_view_dup_counter_text(const FsvView *view, guint32 row, double x);

/* --- Hit testing ------------------------------------------------------------------------ */

/*
 * What is drawn at (x, y): a box, packet, marker, fence step, loss overlay, or a row label
 * (x < label_width). A pixel covered by a level-of-detail aggregate answers the most
 * significant item aggregated there. Boxes narrower than 3 px are hit within ±2 px. Markers: in
 * a queue's doorbell band, the connection state there; elsewhere in a row a victimization,
 * then another marker, then a doorbell ring (their ticks). A victimization's arrow (victim's
 * band → beneficiary's band) answers its victimize marker before anything else right on its
 * shaft (±1 px), and before the row's markers within ±2.5 px.
 * Returns false (hit->kind = FSV_ITEM_NONE) over nothing.
 */
bool fsv_view_hit_test(const FsvView *view, double x, double y, FsvItem *hit);
/*
 * fsv_view_hit_test() as the renderer draws with SELECTION selected (NULL or FSV_ITEM_NONE:
 * nothing): a selected op or packet is drawn over everything else of the time area with its
 * outline (fsv-render.c), so inside that frame it is what is hit.
 */
bool fsv_view_hit_test_selected(const FsvView *view, double x, double y, const FsvItem *selection,
				FsvItem *hit);

/* --- Range statistics ------------------------------------------------------------------- */

typedef struct {
	guint32 row;
	guint64 wait_count, signal_count, inferred_count, never_completed_count;
	guint64 packet_count, marker_count;
	/* Latency (end − begin) of the observed ops overlapping the range, ns; 0 when none. */
	guint64 latency_min_ns, latency_p50_ns, latency_p99_ns, latency_max_ns;
	double latency_mean_ns;
	/* Waits only: total time stalled on the GPU (observed → end) inside the range. */
	guint64 stalled_ns;
	/* Counter tracks (issue 15 §4). An engine row: the time a packet ran inside the range
	 * (busy_ns / (end − begin) is its average busy fraction). A queue row: its largest depth
	 * inside the range. The total: the sum of the engines' busy time over busy_engines
	 * engines, and the largest depth of any queue. */
	guint64 busy_ns;
	guint busy_engines;
	guint32 depth_max;
} FsvRowStats;

typedef struct {
	guint64 begin_ns, end_ns;
	FsvRowStats total;    /* row = FSV_INDEX_NONE */
	GArray *rows;         /* FsvRowStats of the rows with anything in the range, in row order */
	guint64 lost_entries; /* log entries lost in overruns overlapping the range */
	guint64 discarded_events;
} FsvRangeStats;

/* Statistics of every op, packet and marker overlapping [begin_ns, end_ns] (rows hidden by
 * the layout included). Free with fsv_range_stats_clear(). */
void fsv_trace_range_stats(const FsvTrace *trace, guint64 begin_ns, guint64 end_ns,
			   FsvRangeStats *stats);
void fsv_range_stats_clear(FsvRangeStats *stats);

/* --- A newer trace of the same session (live following, issue 16 §4) -------------------- */

/*
 * Gives VIEW (of a newer trace of FROM's session) FROM's state: its size and label width, the
 * times shown and the vertical scroll, which fence and counter rows are shown, the frame
 * budget, and each row's
 * expanded, lanes-expanded and hidden state, rows matched by what they show (kind, adapter,
 * engine, process, display, queue, context, fence handles), not by index. Rows new in VIEW keep
 * their defaults.
 */
void fsv_view_copy_state(FsvView *view, const FsvView *from);
/* Whether ROW is hidden (fsv_view_set_row_hidden). */
bool fsv_view_is_row_hidden(const FsvView *view, guint32 row);

G_END_DECLS

#endif /* FSV_VIEW_H */
