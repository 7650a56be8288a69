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
 * It is not the trace's storage: fsv-trace-build.c gives it each row's sorted items and indexes
 * the lanes and aggregated slots it names (FsvRowData); fsv-view.c lays the slots out in pixels.
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

/*
 * Lays out N items given in begin order: each goes to the first lane of its half free at its
 * begin (a zero-length item holds its lane for 1 ns), a new lane when none is. LANES[i]
 * receives the lane of ITEMS[i], *FIRST_LOWER_LANE the first lane of the lower half (the lane
 * count when it is empty). Past FSV_MAX_LANES lanes, the lane that frees first takes the item
 * (the only case where boxes overlap). Returns the number of lanes (≥ 1).
 */
guint _fsv_lanes_assign(const FsvLaneItem *items, gsize n, guint16 *lanes, guint *first_lower_lane);

/* Boxes an aggregated slot indexes one by one at most; past it, the union of their spans. */
#define FSV_STACK_MAX_BOXES 65536

/*
 * The lanes the collapsed form of a row of LANE_COUNT lanes aggregates in half HALF (0 upper, 1
 * lower): [*from, *to). False when that half shows every lane.
 */
bool _fsv_lanes_get_stack(guint lane_count, guint first_lower_lane, int half, guint *from,
			  guint *to);
/*
 * What the aggregated slot of lanes [FROM, TO) indexes, appended to OUT (FsvLodItem): its
 * boxes, or when there are more than FSV_STACK_MAX_BOXES the union of their spans as merged
 * runs (*IS_UNION; a run's id is its first box's), so that a trace whose queues hold a hundred
 * operations at once does not index its boxes twice.
 */
void _fsv_lanes_get_stack_items(const FsvLaneItem *items, const guint16 *lanes, gsize n, guint from,
				guint to, GArray *out, bool *is_union);

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
