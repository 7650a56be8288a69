/* SPDX-License-Identifier: MIT */
/*
 * FsvTimeline: input → FsvView, FsvView → fsv_render_draw(). The widget keeps only what the
 * user is doing (a drag, the pointer, the selection, range, measurement and search); the row
 * layout, zoom limits and hit tests are the core's FsvView, so the widget and the headless
 * renderer cannot disagree about where a box is.
 *
 * One primary-button GtkGestureDrag serves click, pan and range: a drag shorter than
 * CLICK_SLOP pixels is a click. Keys are widget bindings to the timeline.* actions, so they
 * act only while the timeline has the focus (typing in the search entry never zooms).
 */
#include "fsv-config.h"

#include <math.h>
#include <string.h>

#include "fsv-timeline.h"
#include "fsv-frames.h"

#define CLICK_SLOP   4.0  /* px a press may move and still be a click */
#define KEY_ZOOM     1.25 /* W / S */
#define WHEEL_ZOOM   1.2  /* per wheel notch */
#define KEY_PAN      0.10 /* A / D: a tenth of the time area */
#define WHEEL_SCROLL 48.0 /* px per notch, Ctrl+wheel scrolls rows */
#define WHEEL_PAN    60.0 /* px per notch, Shift+wheel or horizontal wheel pans */
#define SNAP_PX      6.0  /* a measurement point this close to a box edge snaps to it */

/* What a resize keeps (docs/viewer.md "Resizing"): a fitted view refits, a zoomed one keeps its
 * left edge and scale. */
typedef enum {
	FIT_NONE,  /* zoomed or panned by hand: keep begin and ns per pixel */
	FIT_WHOLE, /* the whole trace (F, a new trace): fit it again */
	FIT_RANGE, /* a range shown whole (Z, go to time, a search match): show it again */
} FitMode;

typedef enum {
	DRAG_NONE,
	DRAG_PAN,
	DRAG_RANGE,
} DragMode;

struct _FsvTimeline {
	GtkWidget parent_instance;

	FsvTrace *trace;
	FsvView *view;
	FsvRenderOptions options;
	/* The search the boxes are faded by: options.query borrows it. */
	FsvQuery *query;

	/* Drag state: where it started, the viewport's x/y at the last update. */
	DragMode drag_mode;
	double drag_x, drag_y, drag_last_dx, drag_last_dy;
	gboolean is_drag_shift;

	double pointer_x, pointer_y;
	gboolean has_pointer;
	gboolean has_measure_a;
	/* The box edges the measurement points snapped to ("end of W 0x12 ≥ 5"), NULL when a
	 * point did not snap. Owned. */
	char *measure_a_name, *measure_b_name;
	/* Bookmarks drawn (a copy of the window's list) and the go-to-time marker. */
	GArray *bookmark_ns;       /* guint64 */
	GArray *highlights;        /* FsvItem: options.highlights */
	GPtrArray *bookmark_names; /* char *, owned, NULL-terminated for the renderer */
	/* Set with a trace until the first allocation: the trace is fitted to the real width. */
	gboolean needs_fit;
	FitMode fit_mode;
	guint64 fit_begin_ns, fit_end_ns; /* FIT_RANGE: the range to show again */
	/* The viewport the fit left (begin, ns per pixel): one that differs at a resize was moved
	 * by something else (a reveal, a scrollbar), and is kept as a zoomed one. */
	guint64 fitted_view_begin_ns;
	double fitted_view_ns_per_px;
	char *status;

	GtkAdjustment *hadjustment, *vadjustment;
	GtkScrollablePolicy hscroll_policy, vscroll_policy;
	gboolean is_syncing_adjustments;
	/* Counter rows shown (issue 15 §4), kept across traces. */
	gboolean show_counter[FSV_COUNTER_KIND_COUNT];
	guint64 frame_budget_ns; /* fsv_timeline_set_frame_budget(), for every view */
	/* The horizontal viewport "viewport-changed" last announced: a comparison's other timeline
	 * follows it (docs/viewer.md "Comparing two traces"). */
	FsvViewport announced;
};

enum {
	PROP_0,
	PROP_STATUS,
	N_PROPS,
	/* GtkScrollable */
	PROP_HADJUSTMENT = N_PROPS,
	PROP_VADJUSTMENT,
	PROP_HSCROLL_POLICY,
	PROP_VSCROLL_POLICY,
};

enum {
	SIGNAL_SELECTION_CHANGED,
	SIGNAL_RANGE_CHANGED,
	SIGNAL_MEASURE_CHANGED,
	SIGNAL_VIEWPORT_CHANGED,
	N_SIGNALS,
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE_WITH_CODE(FsvTimeline, fsv_timeline, GTK_TYPE_WIDGET,
			      G_IMPLEMENT_INTERFACE(GTK_TYPE_SCROLLABLE, NULL))

/* Sets what a resize keeps (FitMode) and remembers the viewport the fit left. */
static void
set_fit_mode(FsvTimeline *self, FitMode mode)
{
	self->fit_mode = mode;
	self->fitted_view_begin_ns = fsv_view_get_begin_ns(self->view);
	self->fitted_view_ns_per_px = fsv_view_get_ns_per_px(self->view);
}

/* --- Scrollbars ---------------------------------------------------------------------------- */

/* The horizontal adjustment counts pixels at the current zoom from the trace's first event;
 * the vertical one is the view's scroll_y over the rows' content height. Times are subtracted
 * as integers before they become doubles: trace times near 2^60 ns have a 256 ns step as
 * doubles, which is many pixels at the deepest zoom. */
/* Pixels from the trace's first event to the left edge of the time area. */
static double
view_offset_px(FsvTimeline *self)
{
	guint64 t0 = fsv_trace_get_begin_ns(self->trace);
	guint64 begin = fsv_view_get_begin_ns(self->view);

	return (begin >= t0 ? (double) (begin - t0) : -(double) (t0 - begin)) /
	       fsv_view_get_ns_per_px(self->view);
}

static void
sync_adjustments(FsvTimeline *self)
{
	if (self->is_syncing_adjustments)
		return;
	self->is_syncing_adjustments = TRUE;
	if (self->hadjustment) {
		if (self->view) {
			double total = (double) (fsv_trace_get_end_ns(self->trace) -
						 fsv_trace_get_begin_ns(self->trace)) /
				       fsv_view_get_ns_per_px(self->view);
			double value = view_offset_px(self);
			double page = fsv_view_get_time_width(self->view);

			gtk_adjustment_configure(self->hadjustment, value, MIN(0.0, value),
						 MAX(total, value + page), page * 0.1, page * 0.9,
						 page);
		} else {
			gtk_adjustment_configure(self->hadjustment, 0, 0, 0, 0, 0, 0);
		}
	}
	if (self->vadjustment) {
		if (self->view) {
			double page =
			    fsv_view_get_height(self->view) - fsv_view_get_ruler_height(self->view);

			gtk_adjustment_configure(self->vadjustment,
						 fsv_view_get_scroll_y(self->view), 0,
						 MAX(page, fsv_view_get_content_height(self->view)),
						 WHEEL_SCROLL, page * 0.9, page);
		} else {
			gtk_adjustment_configure(self->vadjustment, 0, 0, 0, 0, 0, 0);
		}
	}
	self->is_syncing_adjustments = FALSE;
}

/* "viewport-changed" when the time axis moved (its left edge or its scale), not for a vertical
 * scroll or a relayout. */
static void
announce_viewport(FsvTimeline *self)
{
	FsvViewport now;

	if (self->view == NULL)
		return;
	fsv_view_get_viewport(self->view, &now);
	if (now.begin_ns == self->announced.begin_ns &&
	    now.begin_frac == self->announced.begin_frac &&
	    now.ns_per_px == self->announced.ns_per_px)
		return;
	self->announced = now;
	g_signal_emit(self, signals[SIGNAL_VIEWPORT_CHANGED], 0);
}

/* Every change of the viewport ends here: scrollbars follow, the widget redraws. */
static void
view_changed(FsvTimeline *self)
{
	sync_adjustments(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	announce_viewport(self);
}

/* The scrollbar moved: pan by the difference, which keeps the zoom exactly. */
static void
hadjustment_value_changed(GtkAdjustment *adjustment, FsvTimeline *self)
{
	if (self->is_syncing_adjustments || self->view == NULL)
		return;
	fsv_view_pan(self->view, gtk_adjustment_get_value(adjustment) - view_offset_px(self));
	self->fit_mode = FIT_NONE;
	view_changed(self);
}

static void
vadjustment_value_changed(GtkAdjustment *adjustment, FsvTimeline *self)
{
	if (self->is_syncing_adjustments || self->view == NULL)
		return;
	fsv_view_set_scroll_y(self->view, gtk_adjustment_get_value(adjustment));
	view_changed(self);
}

static void
set_adjustment(FsvTimeline *self, GtkAdjustment **slot, GtkAdjustment *adjustment,
	       GCallback callback)
{
	if (*slot == adjustment && adjustment != NULL)
		return;
	if (*slot) {
		g_signal_handlers_disconnect_by_data(*slot, self);
		g_clear_object(slot);
	}
	if (adjustment == NULL)
		adjustment = gtk_adjustment_new(0, 0, 0, 0, 0, 0);
	*slot = g_object_ref_sink(adjustment);
	g_signal_connect(adjustment, "value-changed", callback, self);
	sync_adjustments(self);
}

/* --- Status line --------------------------------------------------------------------------- */

static void
set_status_take(FsvTimeline *self, char *status)
{
	if (g_strcmp0(self->status, status) == 0) {
		g_free(status);
		return;
	}
	g_free(self->status);
	self->status = status;
	g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_STATUS]);
}

static void
update_hover(FsvTimeline *self)
{
	FsvItem hit = {.kind = FSV_ITEM_NONE};
	g_autofree char *time = NULL;
	g_autofree char *title = NULL;
	g_autofree char *counter = NULL;
	gboolean changed;

	if (self->view == NULL || !self->has_pointer)
		return;
	fsv_view_hit_test_selected(self->view, self->pointer_x, self->pointer_y,
				   &self->options.selection, &hit);
	if (hit.kind == FSV_ITEM_ROW)
		hit.kind = FSV_ITEM_NONE; /* labels are not outlined */
	changed = hit.kind != self->options.hover.kind || hit.index != self->options.hover.index;
	self->options.hover = hit;
	if (self->pointer_x >= fsv_view_get_label_width(self->view))
		time = fsv_trace_format_time(self->trace,
					     fsv_view_x_to_time(self->view, self->pointer_x));
	if (hit.kind != FSV_ITEM_NONE)
		title = fsv_trace_dup_item_title(self->trace, &hit);
	/* A counter or fence row: what its pixel column under the pointer shows. */
	counter = fsv_view_dup_counter_text(
	    self->view, fsv_view_row_at_y(self->view, self->pointer_y), self->pointer_x);
	set_status_take(self, g_strdup_printf("%s%s%s%s%s", time ? time : "",
					      time && title ? "  ·  " : "", title ? title : "",
					      counter ? "  ·  " : "", counter ? counter : ""));
	if (changed)
		gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* --- Public API ---------------------------------------------------------------------------- */

GtkWidget *
fsv_timeline_new(void)
{
	return g_object_new(FSV_TYPE_TIMELINE, NULL);
}

void
fsv_timeline_set_trace(FsvTimeline *self, FsvTrace *trace)
{
	int width, height;

	g_return_if_fail(FSV_IS_TIMELINE(self));
	g_clear_pointer(&self->view, fsv_view_free);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	fsv_render_options_init(&self->options);
	self->has_measure_a = FALSE;
	g_clear_pointer(&self->measure_a_name, g_free);
	g_clear_pointer(&self->measure_b_name, g_free);
	g_array_set_size(self->bookmark_ns, 0);
	g_ptr_array_set_size(self->bookmark_names, 0);
	g_array_set_size(self->highlights, 0);
	if (trace) {
		self->trace = fsv_trace_ref(trace);
		self->view = fsv_view_new(trace);
		for (guint k = 0; k < FSV_COUNTER_KIND_COUNT; k++)
			fsv_view_set_show_counter(self->view, k, self->show_counter[k]);
		fsv_view_set_frame_budget(self->view, self->frame_budget_ns);
		width = gtk_widget_get_width(GTK_WIDGET(self));
		height = gtk_widget_get_height(GTK_WIDGET(self));
		self->needs_fit = width <= 1 || height <= 1;
		if (!self->needs_fit)
			fsv_view_set_size(self->view, width, height);
		fsv_view_fit(self->view);
		set_fit_mode(self, FIT_WHOLE);
	}
	set_status_take(self, g_strdup(""));
	view_changed(self);
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
	g_signal_emit(self, signals[SIGNAL_MEASURE_CHANGED], 0);
}

/* Op OP of OLD in TRACE, a newer trace of its session (FSV_INDEX_NONE: not there). A completed
 * op keeps its id (ids are given as ops complete); an op still open in OLD had an id of OLD
 * only (the next completed op may take it), so it is found by what it is: its kind, source,
 * queue, process, fence, value and queued time, open or completed since. */
static guint32
find_same_op(FsvTrace *trace, FsvTrace *old, guint32 op)
{
	const FsvOp *o = fsv_trace_get_op(old, op);

	if (o->state != FSA_OP_NEVER_COMPLETED)
		return fsv_trace_find_op_by_id(trace, o->id);
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *n = fsv_trace_get_op(trace, i);

		if (n->queued_ns == o->queued_ns && n->kind == o->kind && n->source == o->source &&
		    n->hwqueue_handle == o->hwqueue_handle && n->process_id == o->process_id &&
		    n->fence_handle == o->fence_handle && n->fence_value == o->fence_value)
			return i;
	}
	return FSV_INDEX_NONE;
}

void
fsv_timeline_replace_trace(FsvTimeline *self, FsvTrace *trace)
{
	FsvItem selection = {.kind = FSV_ITEM_NONE, .index = FSV_INDEX_NONE, .row = FSV_INDEX_NONE};
	FsvView *view;

	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->trace == NULL || self->view == NULL || trace == NULL || self->needs_fit) {
		fsv_timeline_set_trace(self, trace);
		return;
	}
	/* The selected operation, found again by its op id (or, still open, by what it is): its
	 * index and row may differ in the newer trace. */
	if (self->options.selection.kind == FSV_ITEM_OP &&
	    self->options.selection.index < fsv_trace_get_op_count(self->trace)) {
		guint32 op = find_same_op(trace, self->trace, self->options.selection.index);

		if (op != FSV_INDEX_NONE)
			selection = (FsvItem){FSV_ITEM_OP, op, fsv_trace_get_op(trace, op)->row};
	}
	view = fsv_view_new(trace);
	fsv_view_copy_state(view, self->view);
	g_clear_pointer(&self->view, fsv_view_free);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	self->trace = fsv_trace_ref(trace);
	self->view = view;
	/* Times (range, measurement, cursor, bookmarks) mean the same in the newer trace; items
	 * are indexes of the older one: the selection is the one found again, the hover and the
	 * highlights go (the window highlights the selection's chain again). */
	self->options.selection = selection;
	self->options.hover =
	    (FsvItem){.kind = FSV_ITEM_NONE, .index = FSV_INDEX_NONE, .row = FSV_INDEX_NONE};
	g_array_set_size(self->highlights, 0);
	self->options.highlights = NULL;
	self->options.n_highlights = 0;
	set_fit_mode(self, self->fit_mode);
	view_changed(self);
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

FsvTrace *
fsv_timeline_get_trace(FsvTimeline *self)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), NULL);
	return self->trace;
}

void
fsv_timeline_set_show_counter(FsvTimeline *self, FsvCounterKind kind, gboolean is_shown)
{
	g_return_if_fail(FSV_IS_TIMELINE(self) && kind < FSV_COUNTER_KIND_COUNT);
	self->show_counter[kind] = is_shown;
	if (self->view)
		fsv_view_set_show_counter(self->view, kind, is_shown);
	view_changed(self);
}

gboolean
fsv_timeline_get_show_counter(FsvTimeline *self, FsvCounterKind kind)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self) && kind < FSV_COUNTER_KIND_COUNT, FALSE);
	return self->show_counter[kind];
}

void
fsv_timeline_set_frame_budget(FsvTimeline *self, guint64 budget_ns)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	self->frame_budget_ns = budget_ns;
	if (self->view)
		fsv_view_set_frame_budget(self->view, budget_ns);
	view_changed(self);
}

guint64
fsv_timeline_get_frame_budget(FsvTimeline *self)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), 0);
	return self->frame_budget_ns;
}

const FsvView *
fsv_timeline_get_view(FsvTimeline *self)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), NULL);
	return self->view;
}

void
fsv_timeline_zoom(FsvTimeline *self, double factor, double x)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL)
		return;
	fsv_view_zoom(self->view, factor, x);
	self->fit_mode = FIT_NONE;
	view_changed(self);
	update_hover(self);
}

void
fsv_timeline_pan(FsvTimeline *self, double dx)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL)
		return;
	fsv_view_pan(self->view, dx);
	self->fit_mode = FIT_NONE;
	view_changed(self);
	update_hover(self);
}

void
fsv_timeline_get_viewport(FsvTimeline *self, FsvViewport *viewport)
{
	g_return_if_fail(FSV_IS_TIMELINE(self) && viewport != NULL);
	if (self->view == NULL) {
		*viewport = (FsvViewport){0, 0, 0};
		return;
	}
	fsv_view_get_viewport(self->view, viewport);
}

void
fsv_timeline_follow_viewport(FsvTimeline *self, const FsvViewport *viewport)
{
	g_return_if_fail(FSV_IS_TIMELINE(self) && viewport != NULL);
	if (self->view == NULL)
		return;
	fsv_view_set_viewport(self->view, viewport);
	/* Followed, not fitted: a resize keeps this (the timeline it follows refits, if it was
	 * fitted, and this one follows again). Not announced: it is the other's move. */
	self->fit_mode = FIT_NONE;
	self->needs_fit = FALSE;
	fsv_view_get_viewport(self->view, &self->announced);
	view_changed(self);
	update_hover(self);
}

void
fsv_timeline_set_extent(FsvTimeline *self, guint64 begin_ns, guint64 end_ns)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL)
		return;
	fsv_view_set_extent(self->view, begin_ns, end_ns);
	/* A fitted view shows the new extent whole at once. */
	if (self->fit_mode == FIT_WHOLE) {
		fsv_view_fit(self->view);
		set_fit_mode(self, FIT_WHOLE);
	}
	view_changed(self);
}

void
fsv_timeline_fit(FsvTimeline *self)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL)
		return;
	fsv_view_fit(self->view);
	set_fit_mode(self, FIT_WHOLE);
	view_changed(self);
}

/* Shows [begin, end] whole and remembers it, so a resize shows it whole again. */
static void
show_fitted_range(FsvTimeline *self, guint64 begin_ns, guint64 end_ns)
{
	fsv_view_set_range(self->view, begin_ns, end_ns);
	self->fit_begin_ns = begin_ns;
	self->fit_end_ns = end_ns;
	set_fit_mode(self, FIT_RANGE);
}

void
fsv_timeline_set_visible_range(FsvTimeline *self, guint64 begin_ns, guint64 end_ns)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL || end_ns <= begin_ns)
		return;
	show_fitted_range(self, begin_ns, end_ns);
	view_changed(self);
}

/* The time span an item covers, for zooming to it. */
static gboolean
item_span(FsvTimeline *self, const FsvItem *item, guint64 *begin_ns, guint64 *end_ns)
{
	switch (item->kind) {
	case FSV_ITEM_OP: {
		const FsvOp *op = fsv_trace_get_op(self->trace, item->index);

		*begin_ns = op->begin_ns;
		*end_ns = op->end_ns;
		return TRUE;
	}
	case FSV_ITEM_PACKET: {
		const FsvPacket *packet = fsv_trace_get_packet(self->trace, item->index);

		*begin_ns = packet->start_ns;
		*end_ns = packet->end_ns;
		return TRUE;
	}
	case FSV_ITEM_MARKER: {
		const FsvMarker *marker = fsv_trace_get_marker(self->trace, item->index);

		*begin_ns = marker->begin_ns;
		*end_ns = marker->end_ns;
		return TRUE;
	}
	case FSV_ITEM_COUNTER:
		return fsv_counters_get_item_span(self->trace, item, begin_ns, end_ns);
	case FSV_ITEM_FRAME: {
		const FsvFrame *frame = fsv_trace_get_frame(self->trace, item->index);

		*begin_ns = frame->draw_begin_ns;
		*end_ns = frame->draw_end_ns;
		return TRUE;
	}
	case FSV_ITEM_LOSS: {
		const FsvLoss *loss = fsv_trace_get_loss(self->trace, item->index);

		*begin_ns = loss->begin_ns;
		*end_ns = loss->end_ns;
		return TRUE;
	}
	case FSV_ITEM_NONE:
	case FSV_ITEM_FENCE_STEP:
	case FSV_ITEM_ROW:
	case FSV_ITEM_LANES:
	default:
		return FALSE;
	}
}

gboolean
fsv_timeline_zoom_to_selection(FsvTimeline *self)
{
	guint64 begin, end, pad;

	g_return_val_if_fail(FSV_IS_TIMELINE(self), FALSE);
	if (self->view == NULL)
		return FALSE;
	if (self->options.has_range) {
		begin = self->options.range_begin_ns;
		end = self->options.range_end_ns;
	} else if (!item_span(self, &self->options.selection, &begin, &end)) {
		return FALSE;
	}
	/* A tenth of the span each side, so the item is seen with its neighbours. */
	pad = MAX((end - begin) / 10, 100);
	begin = begin > pad ? begin - pad : 0;
	show_fitted_range(self, begin, end + pad);
	view_changed(self);
	return TRUE;
}

void
fsv_timeline_set_selection(FsvTimeline *self, const FsvItem *item)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (item == NULL || self->trace == NULL) {
		self->options.selection = (FsvItem){
		    .kind = FSV_ITEM_NONE, .index = FSV_INDEX_NONE, .row = FSV_INDEX_NONE};
	} else {
		self->options.selection = *item;
		/* An op or packet in a collapsed row's aggregated slot: expand the row so that it
		 * is seen in its own lane (docs/viewer.md "Lanes"). */
		if (self->view && fsv_view_reveal_item(self->view, item))
			view_changed(self);
	}
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

void
fsv_timeline_get_selection(FsvTimeline *self, FsvItem *item)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	g_return_if_fail(item != NULL);
	*item = self->options.selection;
}

gboolean
fsv_timeline_select_at(FsvTimeline *self, double x, double y)
{
	FsvItem hit;

	g_return_val_if_fail(FSV_IS_TIMELINE(self), FALSE);
	if (self->view == NULL)
		return FALSE;
	if (!fsv_view_hit_test_selected(self->view, x, y, &self->options.selection, &hit)) {
		fsv_timeline_set_selection(self, NULL);
		return FALSE;
	}
	if (hit.kind == FSV_ITEM_ROW) {
		/* A group label folds its group; the label of a row with stacked lanes expands
		 * or collapses its lanes; any other label selects nothing. */
		if (fsv_view_row_has_children(self->view, hit.index)) {
			fsv_view_set_row_expanded(self->view, hit.index,
						  !fsv_view_is_row_expanded(self->view, hit.index));
			view_changed(self);
		} else if (fsv_view_row_has_stacked_lanes(self->view, hit.index)) {
			fsv_view_set_row_lanes_expanded(
			    self->view, hit.index,
			    !fsv_view_is_row_lanes_expanded(self->view, hit.index));
			view_changed(self);
		}
		return FALSE;
	}
	if (hit.kind == FSV_ITEM_LANES) {
		/* "+k more": every lane of the row. */
		fsv_view_set_row_lanes_expanded(self->view, hit.row, true);
		view_changed(self);
		return FALSE;
	}
	fsv_timeline_set_selection(self, &hit);
	return TRUE;
}

void
fsv_timeline_select_op(FsvTimeline *self, guint32 op_index)
{
	const FsvOp *op;
	FsvItem item;
	double y, height;
	int ruler, visible;

	g_return_if_fail(FSV_IS_TIMELINE(self));
	g_return_if_fail(self->trace != NULL);
	g_return_if_fail(op_index < fsv_trace_get_op_count(self->trace));
	op = fsv_trace_get_op(self->trace, op_index);
	item = (FsvItem){.kind = FSV_ITEM_OP, .index = op_index, .row = op->row};
	/* Expand every group above the op's row so it is laid out, and the row's lanes when the
	 * op lies in its aggregated slot. */
	fsv_view_reveal_item(self->view, &item);
	/* Its lane in sight (in a deep row it can lie far below the row's top). */
	if (fsv_view_get_lane_geometry(self->view, op->row, op->lane, &y, &height)) {
		ruler = fsv_view_get_ruler_height(self->view);
		visible = fsv_view_get_height(self->view);
		if (y < ruler || y + height > visible)
			fsv_view_set_scroll_y(self->view, fsv_view_get_scroll_y(self->view) + y -
							      ruler - (visible - ruler) / 3.0);
	}
	view_changed(self);
	fsv_timeline_set_selection(self, &item);
}

void
fsv_timeline_reveal_item(FsvTimeline *self, const FsvItem *item)
{
	guint64 begin, end, view_begin, view_end, span, centre;
	double y, height;
	int ruler, visible;

	g_return_if_fail(FSV_IS_TIMELINE(self));
	g_return_if_fail(item != NULL);
	if (self->trace == NULL || self->view == NULL)
		return;
	/* At the current zoom, centred on the item when its start is out of sight: the zoom the
	 * user chose is kept (Z zooms to the selection). */
	view_begin = fsv_view_get_begin_ns(self->view);
	view_end = fsv_view_get_end_ns(self->view);
	if (item_span(self, item, &begin, &end) && (begin < view_begin || begin > view_end)) {
		span = view_end - view_begin;
		centre = begin / 2 + MIN(end, begin + span / 2) / 2;
		view_begin = centre > span / 2 ? centre - span / 2 : 0;
		fsv_view_set_range(self->view, view_begin, view_begin + span);
	}
	/* An op: its groups expanded and its row (its lane, in a deep row) scrolled in by
	 * fsv_timeline_select_op, which selects it. */
	if (item->kind == FSV_ITEM_OP && item->index < fsv_trace_get_op_count(self->trace)) {
		fsv_timeline_select_op(self, item->index);
		return;
	}
	if (item->row != FSV_INDEX_NONE && item->row < fsv_trace_get_row_count(self->trace)) {
		/* Expand every group above the item's row so it is laid out. */
		for (guint32 row = fsv_trace_get_row(self->trace, item->row)->parent;
		     row != FSV_INDEX_NONE; row = fsv_trace_get_row(self->trace, row)->parent)
			fsv_view_set_row_expanded(self->view, row, true);
		if (fsv_view_get_row_geometry(self->view, item->row, &y, &height)) {
			ruler = fsv_view_get_ruler_height(self->view);
			visible = fsv_view_get_height(self->view);
			if (y < ruler || y + height > visible)
				fsv_view_set_scroll_y(self->view,
						      fsv_view_get_scroll_y(self->view) + y -
							  ruler - (visible - ruler) / 3.0);
		}
	}
	view_changed(self);
	fsv_timeline_set_selection(self, item);
}

void
fsv_timeline_center_at(FsvTimeline *self, guint64 ns)
{
	guint64 span, begin;

	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL)
		return;
	span = fsv_view_get_end_ns(self->view) - fsv_view_get_begin_ns(self->view);
	begin = ns > span / 2 ? ns - span / 2 : 0;
	fsv_view_set_range(self->view, begin, begin + span);
	view_changed(self);
}

const guint32 *
fsv_timeline_get_arrow_targets(FsvTimeline *self, guint *n)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), NULL);
	g_return_val_if_fail(n != NULL, NULL);
	*n = 0;
	if (self->trace == NULL || self->options.selection.kind != FSV_ITEM_OP)
		return NULL;
	return fsv_trace_get_op_edges(self->trace, self->options.selection.index, n);
}

void
fsv_timeline_set_range(FsvTimeline *self, gboolean has_range, guint64 begin_ns, guint64 end_ns)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	self->options.has_range = has_range && self->trace != NULL;
	self->options.range_begin_ns = MIN(begin_ns, end_ns);
	self->options.range_end_ns = MAX(begin_ns, end_ns);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
}

gboolean
fsv_timeline_get_range(FsvTimeline *self, guint64 *begin_ns, guint64 *end_ns)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), FALSE);
	if (begin_ns)
		*begin_ns = self->options.range_begin_ns;
	if (end_ns)
		*end_ns = self->options.range_end_ns;
	return self->options.has_range;
}

/* Places a point at NS named NAME (taken; NULL: not snapped). */
static void
add_measure_point_named(FsvTimeline *self, guint64 ns, char *name)
{
	if (!self->has_measure_a || self->options.has_measure) {
		/* First point, or a third one: start over. */
		self->options.has_measure = false;
		self->options.measure_a_ns = ns;
		self->has_measure_a = TRUE;
		g_free(self->measure_a_name);
		self->measure_a_name = name;
		g_clear_pointer(&self->measure_b_name, g_free);
	} else {
		self->options.measure_b_ns = ns;
		self->options.has_measure = true;
		g_free(self->measure_b_name);
		self->measure_b_name = name;
	}
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_MEASURE_CHANGED], 0);
}

void
fsv_timeline_add_measure_point(FsvTimeline *self, guint64 ns)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->trace == NULL)
		return;
	add_measure_point_named(self, ns, NULL);
}

/* The box edge nearest X within SNAP_PX on the row at Y: a begin or end of what hit testing
 * finds around X (ops, packets, markers, lost data), so a point snaps only to what is drawn
 * there. Returns its time and a name ("end of W 0x12 ≥ 5"), or FALSE. */
static gboolean
snap_to_edge(FsvTimeline *self, double x, double y, guint64 *ns, char **name)
{
	double best = SNAP_PX + 0.5;
	gboolean found = FALSE;

	for (int k = -2; k <= 2; k++) {
		double px = x + k * SNAP_PX / 2;
		guint64 edges[2];
		FsvItem hit;

		if (px < fsv_view_get_label_width(self->view) ||
		    !fsv_view_hit_test(self->view, px, y, &hit) ||
		    !item_span(self, &hit, &edges[0], &edges[1]))
			continue;
		for (int e = 0; e < 2; e++) {
			double d = fabs(fsv_view_time_to_x(self->view, edges[e]) - x);
			g_autofree char *title = NULL;

			if (d >= best)
				continue;
			best = d;
			found = TRUE;
			*ns = edges[e];
			title = fsv_trace_dup_item_title(self->trace, &hit);
			g_free(*name);
			*name = edges[0] == edges[1]
				    ? g_strdup(title)
				    : g_strdup_printf("%s of %s", e == 0 ? "begin" : "end", title);
		}
	}
	return found;
}

void
fsv_timeline_add_measure_point_at(FsvTimeline *self, double x, double y, gboolean is_snapping)
{
	char *name = NULL;
	guint64 ns;

	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL || x < fsv_view_get_label_width(self->view))
		return;
	ns = fsv_view_x_to_time(self->view, x);
	if (is_snapping)
		snap_to_edge(self, x, y, &ns, &name);
	add_measure_point_named(self, ns, name);
}

const char *
fsv_timeline_get_measure_name(FsvTimeline *self, gboolean is_second)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), NULL);
	return is_second ? self->measure_b_name : self->measure_a_name;
}

gboolean
fsv_timeline_get_measure(FsvTimeline *self, guint64 *a_ns, guint64 *b_ns)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), FALSE);
	if (a_ns)
		*a_ns = self->options.measure_a_ns;
	if (b_ns)
		*b_ns = self->options.measure_b_ns;
	return self->options.has_measure;
}

void
fsv_timeline_go_to(FsvTimeline *self, guint64 ns)
{
	double half;
	guint64 begin;

	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (self->view == NULL)
		return;
	/* Centred at the current zoom: a zoomed view keeps its scale, so a resize keeps it. */
	half = fsv_view_get_time_width(self->view) * fsv_view_get_ns_per_px(self->view) / 2;
	begin = (double) ns > half ? ns - (guint64) half : 0;
	fsv_view_pan(self->view,
		     fsv_view_time_to_x(self->view, begin) - fsv_view_get_label_width(self->view));
	self->fit_mode = FIT_NONE;
	self->options.has_cursor = true;
	self->options.cursor_ns = ns;
	view_changed(self);
	update_hover(self);
}

gboolean
fsv_timeline_get_cursor(FsvTimeline *self, guint64 *ns)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), FALSE);
	if (ns)
		*ns = self->options.cursor_ns;
	return self->options.has_cursor;
}

void
fsv_timeline_set_bookmarks(FsvTimeline *self, const guint64 *ns, const char *const *names, guint n)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	g_array_set_size(self->bookmark_ns, 0);
	g_ptr_array_set_size(self->bookmark_names, 0);
	for (guint i = 0; i < n; i++) {
		g_array_append_val(self->bookmark_ns, ns[i]);
		g_ptr_array_add(self->bookmark_names, g_strdup(names ? names[i] : NULL));
	}
	self->options.n_bookmarks = n;
	self->options.bookmark_ns = (const guint64 *) (gpointer) self->bookmark_ns->data;
	self->options.bookmark_names = (const char *const *) self->bookmark_names->pdata;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void
fsv_timeline_set_highlights(FsvTimeline *self, const FsvItem *items, guint n)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (n == 0 && self->highlights->len == 0)
		return;
	g_array_set_size(self->highlights, 0);
	if (n > 0)
		g_array_append_vals(self->highlights, items, n);
	self->options.highlights = (const FsvItem *) (gpointer) self->highlights->data;
	self->options.n_highlights = self->highlights->len;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

const FsvItem *
fsv_timeline_get_highlights(FsvTimeline *self, guint *n)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), NULL);
	*n = self->highlights->len;
	return (const FsvItem *) (gpointer) self->highlights->data;
}

void
fsv_timeline_set_query(FsvTimeline *self, FsvQuery *query)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	if (query)
		fsv_query_ref(query);
	g_clear_pointer(&self->query, fsv_query_unref);
	self->query = query;
	self->options.query = query;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void
fsv_timeline_clear(FsvTimeline *self)
{
	g_return_if_fail(FSV_IS_TIMELINE(self));
	self->has_measure_a = FALSE;
	self->options.has_measure = false;
	g_clear_pointer(&self->measure_a_name, g_free);
	g_clear_pointer(&self->measure_b_name, g_free);
	self->options.has_cursor = false;
	fsv_timeline_set_selection(self, NULL);
	fsv_timeline_set_range(self, FALSE, 0, 0);
	g_signal_emit(self, signals[SIGNAL_MEASURE_CHANGED], 0);
}

const char *
fsv_timeline_get_status(FsvTimeline *self)
{
	g_return_val_if_fail(FSV_IS_TIMELINE(self), NULL);
	return self->status ? self->status : "";
}

/* --- Input --------------------------------------------------------------------------------- */

static double
pointer_or_centre_x(FsvTimeline *self)
{
	if (self->has_pointer && self->pointer_x >= fsv_view_get_label_width(self->view))
		return self->pointer_x;
	return fsv_view_get_label_width(self->view) + fsv_view_get_time_width(self->view) / 2.0;
}

static gboolean
on_scroll(GtkEventControllerScroll *controller, double dx, double dy, FsvTimeline *self)
{
	GdkModifierType state =
	    gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(controller));

	if (self->view == NULL)
		return FALSE;
	if (state & GDK_CONTROL_MASK) {
		fsv_view_set_scroll_y(self->view,
				      fsv_view_get_scroll_y(self->view) + dy * WHEEL_SCROLL);
	} else if (state & GDK_SHIFT_MASK) {
		fsv_view_pan(self->view, (dy + dx) * WHEEL_PAN);
		self->fit_mode = FIT_NONE;
	} else {
		if (dx != 0.0)
			fsv_view_pan(self->view, dx * WHEEL_PAN);
		if (dy != 0.0)
			fsv_view_zoom(self->view, pow(WHEEL_ZOOM, -dy), pointer_or_centre_x(self));
		self->fit_mode = FIT_NONE;
	}
	view_changed(self);
	update_hover(self);
	return TRUE;
}

static void
on_motion(GtkEventControllerMotion *controller, double x, double y, FsvTimeline *self)
{
	(void) controller;
	self->pointer_x = x;
	self->pointer_y = y;
	self->has_pointer = TRUE;
	update_hover(self);
}

static void
on_leave(GtkEventControllerMotion *controller, FsvTimeline *self)
{
	(void) controller;
	self->has_pointer = FALSE;
	if (self->options.hover.kind != FSV_ITEM_NONE) {
		self->options.hover.kind = FSV_ITEM_NONE;
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
	set_status_take(self, g_strdup(""));
}

static void
on_drag_begin(GtkGestureDrag *gesture, double x, double y, FsvTimeline *self)
{
	GdkModifierType state =
	    gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
	guint button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(gesture));

	gtk_widget_grab_focus(GTK_WIDGET(self));
	self->drag_x = x;
	self->drag_y = y;
	self->drag_last_dx = 0;
	self->drag_last_dy = 0;
	self->drag_mode = DRAG_NONE;
	self->is_drag_shift = (state & GDK_SHIFT_MASK) || button == GDK_BUTTON_SECONDARY;
}

static void
on_drag_update(GtkGestureDrag *gesture, double dx, double dy, FsvTimeline *self)
{
	(void) gesture;
	if (self->view == NULL)
		return;
	if (self->drag_mode == DRAG_NONE) {
		if (fabs(dx) < CLICK_SLOP && fabs(dy) < CLICK_SLOP)
			return;
		self->drag_mode = self->is_drag_shift ? DRAG_RANGE : DRAG_PAN;
	}
	if (self->drag_mode == DRAG_PAN) {
		if (dx != self->drag_last_dx)
			self->fit_mode = FIT_NONE;
		fsv_view_pan(self->view, -(dx - self->drag_last_dx));
		fsv_view_set_scroll_y(self->view, fsv_view_get_scroll_y(self->view) -
						      (dy - self->drag_last_dy));
		view_changed(self);
	} else {
		double x0 = MAX(self->drag_x, (double) fsv_view_get_label_width(self->view));

		fsv_timeline_set_range(self, TRUE, fsv_view_x_to_time(self->view, x0),
				       fsv_view_x_to_time(self->view, self->drag_x + dx));
	}
	self->drag_last_dx = dx;
	self->drag_last_dy = dy;
}

static void
on_drag_end(GtkGestureDrag *gesture, double dx, double dy, FsvTimeline *self)
{
	GdkModifierType state =
	    gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
	guint button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(gesture));
	double x = self->drag_x + dx, y = self->drag_y + dy;

	if (self->view == NULL || self->drag_mode != DRAG_NONE) {
		self->drag_mode = DRAG_NONE;
		return;
	}
	/* A click. */
	if (button == GDK_BUTTON_SECONDARY)
		return;
	/* Ctrl+click measures, snapping to a box edge within SNAP_PX unless Shift is held too. */
	if ((state & GDK_CONTROL_MASK) && x >= fsv_view_get_label_width(self->view))
		fsv_timeline_add_measure_point_at(self, x, y, !(state & GDK_SHIFT_MASK));
	else
		fsv_timeline_select_at(self, x, y);
}

static gboolean
query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
	FsvTimeline *self = FSV_TIMELINE(widget);
	g_auto(GStrv) fields = NULL;
	g_autoptr(GString) text = NULL;
	g_autofree char *title = NULL;
	FsvItem hit;

	if (keyboard || self->view == NULL ||
	    !fsv_view_hit_test_selected(self->view, x, y, &self->options.selection, &hit))
		return FALSE;
	title = fsv_trace_dup_item_title(self->trace, &hit);
	text = g_string_new(NULL);
	g_string_append_printf(text, "<b>%s</b>", title);
	/* Lost data says how much was lost: the whole description, it is short. Other items
	 * get their title; the details pane has the rest. */
	if (hit.kind == FSV_ITEM_LOSS || hit.kind == FSV_ITEM_MARKER) {
		fields = fsv_trace_describe_item(self->trace, &hit);
		for (guint i = 0; fields[i] && fields[i + 1]; i += 2) {
			g_autofree char *name = g_markup_escape_text(fields[i], -1);
			g_autofree char *value = g_markup_escape_text(fields[i + 1], -1);

			g_string_append_printf(text, "\n%s: %s", name, value);
		}
	}
	/* A counter row's value over the pixel under the pointer (for busy, the fraction of the
	 * pixel's span: the item is the whole interval). */
	if (hit.kind == FSV_ITEM_COUNTER || hit.kind == FSV_ITEM_FENCE_STEP) {
		g_autofree char *counter = fsv_view_dup_counter_text(self->view, hit.row, x);

		if (counter)
			g_string_append_printf(text, "\nThis pixel: %s", counter);
	}
	gtk_tooltip_set_markup(tooltip, text->str);
	return TRUE;
}

/* --- Actions ------------------------------------------------------------------------------- */

static void
action_zoom(GtkWidget *widget, const char *name, GVariant *parameter)
{
	FsvTimeline *self = FSV_TIMELINE(widget);

	(void) parameter;
	if (self->view == NULL)
		return;
	fsv_timeline_zoom(self, g_str_equal(name, "timeline.zoom-in") ? KEY_ZOOM : 1.0 / KEY_ZOOM,
			  fsv_view_get_label_width(self->view) +
			      fsv_view_get_time_width(self->view) / 2.0);
}

static void
action_pan(GtkWidget *widget, const char *name, GVariant *parameter)
{
	FsvTimeline *self = FSV_TIMELINE(widget);
	double dx;

	(void) parameter;
	if (self->view == NULL)
		return;
	dx = fsv_view_get_time_width(self->view) * KEY_PAN;
	fsv_timeline_pan(self, g_str_equal(name, "timeline.pan-left") ? -dx : dx);
}

static void
action_fit(GtkWidget *widget, const char *name, GVariant *parameter)
{
	(void) name;
	(void) parameter;
	fsv_timeline_fit(FSV_TIMELINE(widget));
}

static void
action_zoom_selection(GtkWidget *widget, const char *name, GVariant *parameter)
{
	(void) name;
	(void) parameter;
	fsv_timeline_zoom_to_selection(FSV_TIMELINE(widget));
}

static void
action_measure(GtkWidget *widget, const char *name, GVariant *parameter)
{
	FsvTimeline *self = FSV_TIMELINE(widget);

	(void) parameter;
	if (self->view == NULL)
		return;
	/* M snaps to the box edge at the pointer; Shift+M places the point where it is. */
	fsv_timeline_add_measure_point_at(self, pointer_or_centre_x(self),
					  self->has_pointer ? self->pointer_y
							    : fsv_view_get_height(self->view) / 2.0,
					  !g_str_equal(name, "timeline.measure-free"));
}

/* L and B: the window's legend toggle and bookmark (keys of the timeline, like the others, so
 * typing in an entry never triggers them). */
static void
action_window(GtkWidget *widget, const char *name, GVariant *parameter)
{
	(void) parameter;
	gtk_widget_activate_action(widget,
				   g_str_equal(name, "timeline.toggle-legend") ? "win.show-legend"
									       : "win.add-bookmark",
				   NULL);
}

static void
action_clear(GtkWidget *widget, const char *name, GVariant *parameter)
{
	FsvTimeline *self = FSV_TIMELINE(widget);
	gboolean has_nothing = self->options.selection.kind == FSV_ITEM_NONE &&
			       !self->options.has_range && !self->has_measure_a &&
			       !self->options.has_measure && !self->options.has_cursor;

	(void) name;
	(void) parameter;
	fsv_timeline_clear(self);
	/* Escape with nothing left to clear closes a comparison (docs/viewer.md "Comparing two
	 * traces"); the action is disabled in a window showing one trace. */
	if (has_nothing)
		gtk_widget_activate_action(widget, "win.close-compare", NULL);
}

/* --- GtkWidget ----------------------------------------------------------------------------- */

static void
fsv_timeline_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
	FsvTimeline *self = FSV_TIMELINE(widget);

	(void) baseline;
	if (self->view) {
		/* fsv_view_set_size keeps begin and ns per pixel: what a zoomed view keeps. A
		 * fitted one shows the same span again at the new width (docs/viewer.md
		 * "Resizing"). */
		if (self->fit_mode != FIT_NONE &&
		    (fsv_view_get_begin_ns(self->view) != self->fitted_view_begin_ns ||
		     fsv_view_get_ns_per_px(self->view) != self->fitted_view_ns_per_px))
			self->fit_mode = FIT_NONE;
		fsv_view_set_size(self->view, MAX(width, 1), MAX(height, 1));
		if (self->needs_fit && width > 1 && height > 1)
			self->needs_fit = FALSE;
		if (self->fit_mode == FIT_WHOLE)
			fsv_view_fit(self->view);
		else if (self->fit_mode == FIT_RANGE)
			fsv_view_set_range(self->view, self->fit_begin_ns, self->fit_end_ns);
		set_fit_mode(self, self->fit_mode);
		sync_adjustments(self);
		/* A refit moved the time axis: a comparison's other timeline follows. */
		announce_viewport(self);
	}
}

static void
fsv_timeline_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
		     int *natural, int *minimum_baseline, int *natural_baseline)
{
	(void) widget;
	(void) for_size;
	*minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 320 : 160;
	*natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 1024 : 600;
	*minimum_baseline = -1;
	*natural_baseline = -1;
}

static void
fsv_timeline_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	FsvTimeline *self = FSV_TIMELINE(widget);
	int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
	cairo_t *cr;

	if (self->view == NULL || width <= 0 || height <= 0)
		return;
	cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, width, height));
	fsv_render_draw(cr, self->trace, self->view, &self->options);
	cairo_destroy(cr);
}

static void
fsv_timeline_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
	FsvTimeline *self = FSV_TIMELINE(object);

	switch (prop_id) {
	case PROP_STATUS:
		g_value_set_string(value, fsv_timeline_get_status(self));
		break;
	case PROP_HADJUSTMENT:
		g_value_set_object(value, self->hadjustment);
		break;
	case PROP_VADJUSTMENT:
		g_value_set_object(value, self->vadjustment);
		break;
	case PROP_HSCROLL_POLICY:
		g_value_set_enum(value, self->hscroll_policy);
		break;
	case PROP_VSCROLL_POLICY:
		g_value_set_enum(value, self->vscroll_policy);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
	}
}

static void
fsv_timeline_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
	FsvTimeline *self = FSV_TIMELINE(object);

	switch (prop_id) {
	case PROP_HADJUSTMENT:
		set_adjustment(self, &self->hadjustment, g_value_get_object(value),
			       G_CALLBACK(hadjustment_value_changed));
		break;
	case PROP_VADJUSTMENT:
		set_adjustment(self, &self->vadjustment, g_value_get_object(value),
			       G_CALLBACK(vadjustment_value_changed));
		break;
	case PROP_HSCROLL_POLICY:
		self->hscroll_policy = g_value_get_enum(value);
		break;
	case PROP_VSCROLL_POLICY:
		self->vscroll_policy = g_value_get_enum(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
	}
}

static void
fsv_timeline_dispose(GObject *object)
{
	FsvTimeline *self = FSV_TIMELINE(object);

	if (self->hadjustment)
		g_signal_handlers_disconnect_by_data(self->hadjustment, self);
	if (self->vadjustment)
		g_signal_handlers_disconnect_by_data(self->vadjustment, self);
	g_clear_object(&self->hadjustment);
	g_clear_object(&self->vadjustment);
	g_clear_pointer(&self->view, fsv_view_free);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	g_clear_pointer(&self->status, g_free);
	g_clear_pointer(&self->measure_a_name, g_free);
	g_clear_pointer(&self->measure_b_name, g_free);
	g_clear_pointer(&self->bookmark_ns, g_array_unref);
	g_clear_pointer(&self->highlights, g_array_unref);
	g_clear_pointer(&self->bookmark_names, g_ptr_array_unref);
	self->options.n_bookmarks = 0;
	self->options.query = NULL;
	g_clear_pointer(&self->query, fsv_query_unref);
	G_OBJECT_CLASS(fsv_timeline_parent_class)->dispose(object);
}

static void
fsv_timeline_class_init(FsvTimelineClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
	static const struct {
		guint key;
		GdkModifierType modifiers;
		const char *action;
	} bindings[] = {
	    {GDK_KEY_w, 0, "timeline.zoom-in"},
	    {GDK_KEY_plus, 0, "timeline.zoom-in"},
	    {GDK_KEY_equal, 0, "timeline.zoom-in"},
	    {GDK_KEY_s, 0, "timeline.zoom-out"},
	    {GDK_KEY_minus, 0, "timeline.zoom-out"},
	    {GDK_KEY_a, 0, "timeline.pan-left"},
	    {GDK_KEY_Left, 0, "timeline.pan-left"},
	    {GDK_KEY_d, 0, "timeline.pan-right"},
	    {GDK_KEY_Right, 0, "timeline.pan-right"},
	    {GDK_KEY_f, 0, "timeline.fit"},
	    {GDK_KEY_z, 0, "timeline.zoom-selection"},
	    {GDK_KEY_m, 0, "timeline.measure"},
	    {GDK_KEY_Escape, 0, "timeline.clear"},
	    {GDK_KEY_M, GDK_SHIFT_MASK, "timeline.measure-free"},
	    {GDK_KEY_l, 0, "timeline.toggle-legend"},
	    {GDK_KEY_b, 0, "timeline.add-bookmark"},
	};

	object_class->get_property = fsv_timeline_get_property;
	object_class->set_property = fsv_timeline_set_property;
	object_class->dispose = fsv_timeline_dispose;
	widget_class->measure = fsv_timeline_measure;
	widget_class->size_allocate = fsv_timeline_size_allocate;
	widget_class->snapshot = fsv_timeline_snapshot;
	widget_class->query_tooltip = query_tooltip;

	properties[PROP_STATUS] = g_param_spec_string("status", NULL, NULL, "",
						      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, N_PROPS, properties);
	g_object_class_override_property(object_class, PROP_HADJUSTMENT, "hadjustment");
	g_object_class_override_property(object_class, PROP_VADJUSTMENT, "vadjustment");
	g_object_class_override_property(object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
	g_object_class_override_property(object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

	/**
	 * FsvTimeline::selection-changed: the selected item changed (or was cleared).
	 */
	signals[SIGNAL_SELECTION_CHANGED] =
	    g_signal_new("selection-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
			 NULL, NULL, G_TYPE_NONE, 0);
	/**
	 * FsvTimeline::range-changed: the range selection changed (or was cleared).
	 */
	signals[SIGNAL_RANGE_CHANGED] =
	    g_signal_new("range-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
			 NULL, NULL, G_TYPE_NONE, 0);
	/**
	 * FsvTimeline::measure-changed: a measurement point was placed or cleared.
	 */
	signals[SIGNAL_MEASURE_CHANGED] =
	    g_signal_new("measure-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
			 NULL, NULL, G_TYPE_NONE, 0);
	/**
	 * FsvTimeline::viewport-changed: the time axis moved — zoom, pan, fit, a resize's refit,
	 * a new trace — (not a vertical scroll); fsv_timeline_get_viewport() says where.
	 */
	signals[SIGNAL_VIEWPORT_CHANGED] =
	    g_signal_new("viewport-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
			 NULL, NULL, G_TYPE_NONE, 0);

	gtk_widget_class_install_action(widget_class, "timeline.zoom-in", NULL, action_zoom);
	gtk_widget_class_install_action(widget_class, "timeline.zoom-out", NULL, action_zoom);
	gtk_widget_class_install_action(widget_class, "timeline.pan-left", NULL, action_pan);
	gtk_widget_class_install_action(widget_class, "timeline.pan-right", NULL, action_pan);
	gtk_widget_class_install_action(widget_class, "timeline.fit", NULL, action_fit);
	gtk_widget_class_install_action(widget_class, "timeline.zoom-selection", NULL,
					action_zoom_selection);
	gtk_widget_class_install_action(widget_class, "timeline.measure", NULL, action_measure);
	gtk_widget_class_install_action(widget_class, "timeline.measure-free", NULL,
					action_measure);
	gtk_widget_class_install_action(widget_class, "timeline.toggle-legend", NULL,
					action_window);
	gtk_widget_class_install_action(widget_class, "timeline.add-bookmark", NULL, action_window);
	gtk_widget_class_install_action(widget_class, "timeline.clear", NULL, action_clear);
	for (guint i = 0; i < G_N_ELEMENTS(bindings); i++)
		gtk_widget_class_add_binding_action(
		    widget_class, bindings[i].key, bindings[i].modifiers, bindings[i].action, NULL);
	gtk_widget_class_set_css_name(widget_class, "fsvtimeline");
}

static void
fsv_timeline_init(FsvTimeline *self)
{
	GtkEventController *scroll, *motion;
	GtkGesture *drag, *right_drag;

	fsv_render_options_init(&self->options);
	for (guint k = 0; k < FSV_COUNTER_KIND_COUNT; k++)
		self->show_counter[k] = TRUE;
	self->bookmark_ns = g_array_new(FALSE, FALSE, sizeof(guint64));
	self->highlights = g_array_new(FALSE, FALSE, sizeof(FsvItem));
	self->bookmark_names = g_ptr_array_new_with_free_func(g_free);
	gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);
	gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
	/* A focusable drawing says what it is and how to drive it from the keyboard. */
	gtk_accessible_update_property(
	    GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, "Timeline",
	    GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
	    "Hardware queues with their fence waits, signals and packets over time. W and S zoom, "
	    "A and D pan, F fits the whole trace, Z zooms to the selection, M measures (snapping "
	    "to box edges; Shift+M does not snap), L shows or hides the legend, B adds a bookmark, "
	    "Escape clears (with nothing to clear, it closes a comparison of two traces).",
	    -1);
	gtk_widget_set_overflow(GTK_WIDGET(self), GTK_OVERFLOW_HIDDEN);

	scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
	g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
	gtk_widget_add_controller(GTK_WIDGET(self), scroll);

	motion = gtk_event_controller_motion_new();
	g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
	g_signal_connect(motion, "leave", G_CALLBACK(on_leave), self);
	gtk_widget_add_controller(GTK_WIDGET(self), motion);

	drag = gtk_gesture_drag_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), GDK_BUTTON_PRIMARY);
	g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
	g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
	g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));

	right_drag = gtk_gesture_drag_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(right_drag), GDK_BUTTON_SECONDARY);
	g_signal_connect(right_drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
	g_signal_connect(right_drag, "drag-update", G_CALLBACK(on_drag_update), self);
	g_signal_connect(right_drag, "drag-end", G_CALLBACK(on_drag_end), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(right_drag));
}
