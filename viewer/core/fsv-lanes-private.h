/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the lanes of a row (docs/viewer.md "Lanes"). A queue holds many operations at
 * once and an engine many packets, so a row's boxes overlap in time; they are spread over as
 * many lanes as the deepest moment needs (no cap: a box is never drawn under another), waits in
 * the upper lanes and signals in the lower ones. A row is shown collapsed (at most
 * FSV_COLLAPSED_LANES lanes, the last lane of a half standing for the lanes below it: "+k
 * more") or expanded (every lane); that choice is the view's, the split into slots is here so
 * that the view, the renderer and the tests compute it one way.
 *
 * It is not the trace's storage: fsv-trace.c gives it each row's sorted items and keeps the
 * FsvRowLanes it returns; fsv-view.c lays the slots out in pixels.
 */
#ifndef FSV_LANES_PRIVATE_H
#define FSV_LANES_PRIVATE_H

#include "fsv-lod.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

/* One box to lay out: its span, its id (op or packet index) and its half (signals below). */
typedef struct {
	guint64 begin_ns, end_ns;
	guint32 id;
	bool is_lower;
} FsvLaneItem;

typedef struct _FsvRowLanes FsvRowLanes;

/*
 * Lays out N items given in begin order: each goes to the first lane of its half free at its
 * begin (a zero-length item holds its lane for 1 ns), a new lane when none is. LANES[i]
 * receives the lane of ITEMS[i]; *LANE_COUNT (≥ 1) every lane, *FIRST_LOWER_LANE the first lane
 * of the lower half (LANE_COUNT when it is empty). Builds the level-of-detail index of each lane
 * and of the lanes a collapsed half aggregates. Past FSV_MAX_LANES lanes, the lane that frees
 * first takes the item (the only case where boxes overlap).
 * Returns: (transfer full).
 */
FsvRowLanes *_fsv_row_lanes_new(const FsvLaneItem *items, gsize n, guint16 *lanes,
				guint *lane_count, guint *first_lower_lane);
void _fsv_row_lanes_free(FsvRowLanes *lanes);
/* The index of one lane (NULL: empty lane). */
const FsvLod *_fsv_row_lanes_get_lod(const FsvRowLanes *lanes, guint lane);
/* The index of every item of lanes [first_lane, end of its half) (the aggregated slot of a
 * collapsed half starting at FIRST_LANE); NULL when no collapsed slot starts there. */
const FsvLod *_fsv_row_lanes_get_stack_lod(const FsvRowLanes *lanes, guint first_lane);
gsize _fsv_row_lanes_get_size(const FsvRowLanes *lanes);

/*
 * Slots: the lanes as shown, top to bottom. Expanded, one slot per lane. Collapsed, a half of
 * more lanes than its cap (FSV_COLLAPSED_LANES, or half of it when the row has both halves)
 * shows cap − 1 lanes and one aggregated slot for the rest.
 */
guint _fsv_lanes_get_slot_count(const FsvRow *row, bool is_expanded);
/* The trace lanes [*first_lane, *first_lane + *n_lanes) drawn in SLOT (n_lanes > 1: aggregated). */
void _fsv_lanes_get_slot(const FsvRow *row, bool is_expanded, guint slot, guint *first_lane,
			 guint *n_lanes);
/* The slot that draws LANE. */
guint _fsv_lanes_slot_of_lane(const FsvRow *row, bool is_expanded, guint lane);
/* Whether the collapsed form of ROW aggregates lanes (expanding it shows more). */
bool _fsv_lanes_has_stack(const FsvRow *row);

G_END_DECLS

#endif /* FSV_LANES_PRIVATE_H */
