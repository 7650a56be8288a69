/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: a row's lanes (fsv-lanes-private.h). Lane assignment is interval partitioning:
 * items in begin order, each to the lowest-numbered lane free at its begin, so the number of
 * lanes is the row's greatest depth (how many of its boxes overlap at one instant) and no two
 * boxes of a lane overlap. Two binary heaps make it O(n log lanes): the busy lanes by the time
 * they free, the free lanes by number (a deep queue still reads as a staircase from the top).
 *
 * It decides where boxes go, not how they look (fsv-render.c) nor where lanes are in pixels
 * (fsv-view.c).
 */
#include "fsv-lanes-private.h"

/* ---- Heaps ---------------------------------------------------------------------------- */

typedef struct {
	guint64 end;
	guint lane;
} Busy;

static void
busy_push(GArray *heap, Busy b)
{
	guint i = heap->len;

	g_array_append_val(heap, b);
	while (i > 0) {
		Busy *a = (Busy *) heap->data;
		guint p = (i - 1) / 2;

		if (a[p].end < a[i].end || (a[p].end == a[i].end && a[p].lane <= a[i].lane))
			break;
		Busy t = a[p];
		a[p] = a[i];
		a[i] = t;
		i = p;
	}
}

static Busy
busy_pop(GArray *heap)
{
	Busy *a = (Busy *) heap->data;
	Busy top = a[0];
	guint i = 0, n = heap->len - 1;

	a[0] = a[n];
	g_array_set_size(heap, n);
	for (;;) {
		guint l = 2 * i + 1, r = l + 1, m = i;

		if (l < n &&
		    (a[l].end < a[m].end || (a[l].end == a[m].end && a[l].lane < a[m].lane)))
			m = l;
		if (r < n &&
		    (a[r].end < a[m].end || (a[r].end == a[m].end && a[r].lane < a[m].lane)))
			m = r;
		if (m == i)
			break;
		Busy t = a[m];
		a[m] = a[i];
		a[i] = t;
		i = m;
	}
	return top;
}

static void
free_push(GArray *heap, guint lane)
{
	guint i = heap->len;

	g_array_append_val(heap, lane);
	while (i > 0) {
		guint *a = (guint *) heap->data;
		guint p = (i - 1) / 2;

		if (a[p] <= a[i])
			break;
		guint t = a[p];
		a[p] = a[i];
		a[i] = t;
		i = p;
	}
}

static guint
free_pop(GArray *heap)
{
	guint *a = (guint *) heap->data;
	guint top = a[0], i = 0, n = heap->len - 1;

	a[0] = a[n];
	g_array_set_size(heap, n);
	for (;;) {
		guint l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && a[l] < a[m])
			m = l;
		if (r < n && a[r] < a[m])
			m = r;
		if (m == i)
			break;
		guint t = a[m];
		a[m] = a[i];
		a[i] = t;
		i = m;
	}
	return top;
}

/* Lanes of one half (items with is_lower == LOWER), numbered from 0; returns how many. */
static guint
assign_half(const FsvLaneItem *items, gsize n, guint16 *lanes, bool lower, guint max_lanes)
{
	g_autoptr(GArray) busy = g_array_new(FALSE, FALSE, sizeof(Busy));
	g_autoptr(GArray) free_lanes = g_array_new(FALSE, FALSE, sizeof(guint));
	guint used = 0;

	for (gsize i = 0; i < n; i++) {
		const FsvLaneItem *it = &items[i];
		guint64 end = MAX(it->end_ns, it->begin_ns + 1);
		guint lane;

		if (it->is_lower != lower)
			continue;
		while (busy->len > 0 && g_array_index(busy, Busy, 0).end <= it->begin_ns)
			free_push(free_lanes, busy_pop(busy).lane);
		if (free_lanes->len > 0) {
			lane = free_pop(free_lanes);
		} else if (used < max_lanes) {
			lane = used++;
		} else {
			/* Out of lane numbers: the lane that frees first takes it. */
			Busy b = busy_pop(busy);

			lane = b.lane;
			end = MAX(end, b.end);
		}
		busy_push(busy, (Busy){end, lane});
		lanes[i] = (guint16) lane;
	}
	return used;
}

guint
_fsv_lanes_assign(const FsvLaneItem *items, gsize n, guint16 *lanes, guint *first_lower_lane)
{
	guint upper = assign_half(items, n, lanes, false, FSV_MAX_LANES);
	guint lower =
	    assign_half(items, n, lanes, true, FSV_MAX_LANES - MIN(upper, FSV_MAX_LANES - 1));
	guint count = MAX(upper + lower, 1);

	for (gsize i = 0; i < n; i++)
		if (items[i].is_lower)
			lanes[i] = (guint16) (lanes[i] + upper);
	*first_lower_lane = lower > 0 ? upper : count;
	return count;
}

/* How many lanes a collapsed half shows at most. */
static guint
cap_of(guint lane_count, guint first_lower_lane)
{
	bool has_both = first_lower_lane > 0 && first_lower_lane < lane_count;

	return has_both ? FSV_COLLAPSED_LANES / 2 : FSV_COLLAPSED_LANES;
}

static guint
half_cap(const FsvRow *row)
{
	return cap_of(row->lane_count, row->first_lower_lane);
}

bool
_fsv_lanes_get_stack(guint lane_count, guint first_lower_lane, int half, guint *from, guint *to)
{
	guint split = MIN(first_lower_lane, MAX(lane_count, 1));
	guint a = half == 0 ? 0 : split, b = half == 0 ? split : MAX(lane_count, 1);
	guint cap = cap_of(lane_count, first_lower_lane);

	if (b - a <= cap)
		return false;
	*from = a + cap - 1;
	*to = b;
	return true;
}

void
_fsv_lanes_get_stack_items(const FsvLaneItem *items, const guint16 *lanes, gsize n, guint from,
			   guint to, GArray *out, bool *is_union)
{
	gsize count = 0, first = out->len;

	for (gsize i = 0; i < n; i++)
		count += lanes[i] >= from && lanes[i] < to;
	*is_union = count > FSV_STACK_MAX_BOXES;
	/* ITEMS come in begin order: a box that begins at or before the end of the run so far
	 * extends it. */
	for (gsize i = 0; i < n; i++) {
		FsvLodItem it = {items[i].begin_ns, items[i].end_ns, items[i].id};
		FsvLodItem *last =
		    out->len > first ? &g_array_index(out, FsvLodItem, out->len - 1) : NULL;

		if (lanes[i] < from || lanes[i] >= to)
			continue;
		if (*is_union && last && it.begin_ns <= last->end_ns)
			last->end_ns = MAX(last->end_ns, it.end_ns);
		else
			g_array_append_val(out, it);
	}
}

/* ---- Slots ---------------------------------------------------------------------------- */

/* Slots of the half [a, b): every lane expanded or when they fit, else cap (the last one
 * aggregated). */
static guint
half_slots(const FsvRow *row, bool is_expanded, guint a, guint b)
{
	guint cap = half_cap(row);

	return is_expanded || b - a <= cap ? b - a : cap;
}

static guint
lower_start(const FsvRow *row)
{
	return MIN(row->first_lower_lane, MAX(row->lane_count, 1));
}

guint
_fsv_lanes_get_slot_count(const FsvRow *row, bool is_expanded)
{
	guint n = MAX(row->lane_count, 1), s = lower_start(row);

	return MAX(half_slots(row, is_expanded, 0, s) + half_slots(row, is_expanded, s, n), 1);
}

void
_fsv_lanes_get_slot(const FsvRow *row, bool is_expanded, guint slot, guint *first_lane,
		    guint *n_lanes)
{
	guint n = MAX(row->lane_count, 1), s = lower_start(row);
	guint upper = half_slots(row, is_expanded, 0, s);
	guint a = slot < upper ? 0 : s, b = slot < upper ? s : n;
	guint j = slot < upper ? slot : slot - upper;
	guint slots = half_slots(row, is_expanded, a, b);

	if (a + j >= n) { /* past the last slot: the last lane */
		*first_lane = n - 1;
		*n_lanes = 1;
		return;
	}
	*first_lane = a + j;
	*n_lanes = slots < b - a && j == slots - 1 ? b - (a + j) : 1;
}

guint
_fsv_lanes_slot_of_lane(const FsvRow *row, bool is_expanded, guint lane)
{
	guint n = MAX(row->lane_count, 1), s = lower_start(row);
	guint upper = half_slots(row, is_expanded, 0, s);
	guint a, slots;

	lane = MIN(lane, n - 1);
	a = lane < s ? 0 : s;
	slots = half_slots(row, is_expanded, a, lane < s ? s : n);
	return (a == 0 ? 0 : upper) + MIN(lane - a, slots - 1);
}

bool
_fsv_lanes_has_stack(const FsvRow *row)
{
	return _fsv_lanes_get_slot_count(row, false) < _fsv_lanes_get_slot_count(row, true);
}
