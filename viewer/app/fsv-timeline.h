/* SPDX-License-Identifier: MIT */
/*
 * FsvTimeline: the timeline widget. It owns an FsvView of an FsvTrace (viewer/core), draws it
 * with the core's fsv_render_draw() through gtk_snapshot_append_cairo(), and turns input into
 * view changes: the wheel zooms about the pointer, a drag pans, Shift+drag or a right-button
 * drag selects a time range, a click selects a box (or collapses a group when it lands on a
 * group label), Ctrl+click or M places measurement points; W/S zoom, A/D pan, F fits, Z zooms to
 * the selection, Escape clears. It is a GtkScrollable: scrollbars given its adjustments
 * follow it (horizontal: time, vertical: rows). Prefer plain GtkScrollbars to a
 * GtkScrolledWindow, whose capture-phase scroll handler takes touchpad scrolling first.
 *
 * It draws nothing itself and decides nothing about the trace: geometry, hit testing and
 * drawing are the core's, so what the window shows is what `fencescope render` writes.
 */
#ifndef FSV_TIMELINE_H
#define FSV_TIMELINE_H

#include <gtk/gtk.h>

#include "fsv-render.h"
#include "fsv-trace.h"
#include "fsv-view.h"

G_BEGIN_DECLS

#define FSV_TYPE_TIMELINE (fsv_timeline_get_type())

G_DECLARE_FINAL_TYPE(FsvTimeline, fsv_timeline, FSV, TIMELINE, GtkWidget)

GtkWidget *fsv_timeline_new(void);

/* Shows TRACE (referenced; NULL shows nothing), fitted, with no selection. */
void fsv_timeline_set_trace(FsvTimeline *self, FsvTrace *trace);
/*
 * Shows TRACE, a newer trace of the session the one shown belongs to (live following, issue 16
 * §4), keeping what the user set: the times shown, the vertical scroll, each row's expanded,
 * lanes-expanded and hidden state (rows matched by what they show: fsv_view_copy_state), the
 * selected operation (found again by its op id; one still open by its kind, queue, process,
 * fence, value and queued time, since an open op's id is its trace's own), the range,
 * measurement, go-to marker and bookmarks. Without a trace shown it is fsv_timeline_set_trace().
 */
void fsv_timeline_replace_trace(FsvTimeline *self, FsvTrace *trace);
/* Returns: (transfer none) (nullable). */
FsvTrace *fsv_timeline_get_trace(FsvTimeline *self);
/* Returns: (transfer none) (nullable): the view, for reading geometry (tests, the window). */
const FsvView *fsv_timeline_get_view(FsvTimeline *self);

/* Shows or hides the counter rows of KIND (engines' busy fraction, queues' depth; issue 15
 * §4). Default: shown; the choice holds for the traces shown next. */
void fsv_timeline_set_show_counter(FsvTimeline *self, FsvCounterKind kind, gboolean is_shown);
gboolean fsv_timeline_get_show_counter(FsvTimeline *self, FsvCounterKind kind);
/* The budget frames are graded against (--frame-budget; 0, the default: each display's vsync
 * period, fsv_view_set_frame_budget()); the choice holds for the traces shown next. */
void fsv_timeline_set_frame_budget(FsvTimeline *self, guint64 budget_ns);
guint64 fsv_timeline_get_frame_budget(FsvTimeline *self);

/* --- Navigation (also the timeline.* actions) -------------------------------------------- */

void fsv_timeline_zoom(FsvTimeline *self, double factor, double x);
void fsv_timeline_pan(FsvTimeline *self, double dx);
void fsv_timeline_fit(FsvTimeline *self);

/* --- A comparison's shared time axis (docs/viewer.md "Comparing two traces") ------------- */

/* Where the time axis is ("viewport-changed" says when it moved). */
void fsv_timeline_get_viewport(FsvTimeline *self, FsvViewport *viewport);
/* Shows VIEWPORT exactly (no zoom-out limit), as a timeline following another: not announced
 * by "viewport-changed", and kept at a resize (the timeline it follows refits). */
void fsv_timeline_follow_viewport(FsvTimeline *self, const FsvViewport *viewport);
/* What F fits and the zoom-out limit covers: [BEGIN, END] (END <= BEGIN: the trace's span).
 * Holds until the next trace; a view that showed the whole span shows the new one whole. */
void fsv_timeline_set_extent(FsvTimeline *self, guint64 begin_ns, guint64 end_ns);
void fsv_timeline_set_visible_range(FsvTimeline *self, guint64 begin_ns, guint64 end_ns);
/* Zooms to the range selection, else to the selected item; false when there is neither. */
gboolean fsv_timeline_zoom_to_selection(FsvTimeline *self);

/* --- Selection ----------------------------------------------------------------------------- */

/* Selects ITEM (NULL or kind FSV_ITEM_NONE clears) and emits "selection-changed". */
void fsv_timeline_set_selection(FsvTimeline *self, const FsvItem *item);
/* The selected item (kind FSV_ITEM_NONE when nothing is). */
void fsv_timeline_get_selection(FsvTimeline *self, FsvItem *item);
/* Hit tests widget point (X, Y) like a click: selects what is there (a row label toggles its
 * group instead). Returns whether something was selected. */
gboolean fsv_timeline_select_at(FsvTimeline *self, double x, double y);
/* Selects op OP (an FsvTrace op index) and scrolls its row into view. */
void fsv_timeline_select_op(FsvTimeline *self, guint32 op);
/* Selects ITEM (an op, packet, marker or loss) and brings it into view: its groups expanded,
 * its row scrolled in, and the time axis, at the current zoom, centred on it when its start is
 * out of sight. Emits "selection-changed". */
void fsv_timeline_reveal_item(FsvTimeline *self, const FsvItem *item);
/* Centres the time axis on trace time NS at the current zoom. */
void fsv_timeline_center_at(FsvTimeline *self, guint64 ns);
/*
 * The dependency arrows drawn for the selection: op indexes at the other end of each arrow
 * (for a selected signal, the waits it released; for a wait, its signal). Returns:
 * (transfer none): *n indexes, NULL and 0 when the selection is not an op or has none.
 */
const guint32 *fsv_timeline_get_arrow_targets(FsvTimeline *self, guint *n);

/* A range selection [begin, end] (emits "range-changed"); clear with has_range false. */
void fsv_timeline_set_range(FsvTimeline *self, gboolean has_range, guint64 begin_ns,
			    guint64 end_ns);
gboolean fsv_timeline_get_range(FsvTimeline *self, guint64 *begin_ns, guint64 *end_ns);

/* Places a measurement point at trace time NS: the first sets A, the second B (then Δt is
 * shown), a third starts over. Emits "measure-changed". */
void fsv_timeline_add_measure_point(FsvTimeline *self, guint64 ns);
/* Whether both points are placed, and where. */
gboolean fsv_timeline_get_measure(FsvTimeline *self, guint64 *a_ns, guint64 *b_ns);

/* Places a measurement point at widget x, snapping (IS_SNAPPING) to the nearest box edge within a
 * few pixels on the row at Y — the begin or end of an op, packet, marker or lost-data band that
 * hit testing finds there — as Ctrl+click and M do (Shift disables snapping). */
void fsv_timeline_add_measure_point_at(FsvTimeline *self, double x, double y, gboolean is_snapping);
/* Returns: (transfer none) (nullable): what the first (IS_SECOND false) or second point snapped
 * to, "end of W 0x12 ≥ 5"; NULL when it did not snap. */
const char *fsv_timeline_get_measure_name(FsvTimeline *self, gboolean is_second);

/* Centres the view on NS at the current zoom and marks it with a line (go to time, Ctrl+G); the
 * marker stays until Escape or the next go to. */
void fsv_timeline_go_to(FsvTimeline *self, guint64 ns);
/* Whether the go-to marker is shown, and where. */
gboolean fsv_timeline_get_cursor(FsvTimeline *self, guint64 *ns);
/* The bookmarks drawn as flagged lines (copied; NAMES may be NULL). */
void fsv_timeline_set_bookmarks(FsvTimeline *self, const guint64 *ns, const char *const *names,
				guint n);

/* Outlines ITEMS, each joined to the one before it: the chain of causes of the selected wait
 * (copied; N 0 clears them). */
void fsv_timeline_set_highlights(FsvTimeline *self, const FsvItem *items, guint n);
/* The items outlined so far (borrowed), their count in *N. */
const FsvItem *fsv_timeline_get_highlights(FsvTimeline *self, guint *n);

/* Fades ops that do not match QUERY (NULL or empty: none faded). Keeps a reference. */
void fsv_timeline_set_query(FsvTimeline *self, FsvQuery *query);

/* Selection, range and measurement all cleared (Escape). */
void fsv_timeline_clear(FsvTimeline *self);

/* Returns: (transfer none): one line on what is under the pointer ("status" property). */
const char *fsv_timeline_get_status(FsvTimeline *self);

G_END_DECLS

#endif /* FSV_TIMELINE_H */
