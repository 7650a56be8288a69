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

#include <string.h>

struct _FsvRowLanes {
	guint lane_count;
	guint first_lower;
	FsvLod **lods;         /* lane_count, NULL for an empty lane */
	FsvLod *stack_lods[2]; /* the aggregated slot of the upper and the lower half */
	guint stack_first[2];  /* its first lane, G_MAXUINT when the half has none */
};

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

/* How many lanes a collapsed half shows at most. */
static guint
half_cap(const FsvRow *row)
{
	bool has_both = row->first_lower_lane > 0 && row->first_lower_lane < row->lane_count;

	return has_both ? FSV_COLLAPSED_LANES / 2 : FSV_COLLAPSED_LANES;
}

static FsvLod *
lod_of(const FsvLaneItem *items, const guint16 *lanes, gsize n, guint from, guint to)
{
	g_autoptr(GArray) sel = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));

	for (gsize i = 0; i < n; i++)
		if (lanes[i] >= from && lanes[i] < to) {
			FsvLodItem it = {items[i].begin_ns, items[i].end_ns, items[i].id};

			g_array_append_val(sel, it);
		}
	return sel->len ? fsv_lod_new((const FsvLodItem *) sel->data, sel->len) : NULL;
}

FsvRowLanes *
_fsv_row_lanes_new(const FsvLaneItem *items, gsize n, guint16 *lanes, guint *lane_count,
		   guint *first_lower_lane)
{
	FsvRowLanes *rl = g_new0(FsvRowLanes, 1);
	guint upper, lower;
	g_autofree guint *count = NULL;
	g_autofree guint *start = NULL;
	g_autofree FsvLodItem *sorted = NULL;
	FsvRow shape = {0};

	upper = assign_half(items, n, lanes, false, FSV_MAX_LANES);
	lower = assign_half(items, n, lanes, true, FSV_MAX_LANES - MIN(upper, FSV_MAX_LANES - 1));
	for (gsize i = 0; i < n; i++)
		if (items[i].is_lower)
			lanes[i] = (guint16) (lanes[i] + upper);
	rl->lane_count = MAX(upper + lower, 1);
	rl->first_lower = lower > 0 ? upper : rl->lane_count;
	*lane_count = rl->lane_count;
	*first_lower_lane = rl->first_lower;

	/* One pass to bucket the items by lane, then one index per lane. */
	count = g_new0(guint, rl->lane_count + 1);
	start = g_new0(guint, rl->lane_count + 1);
	sorted = g_new(FsvLodItem, MAX(n, 1));
	for (gsize i = 0; i < n; i++)
		count[lanes[i]]++;
	for (guint l = 1; l <= rl->lane_count; l++)
		start[l] = start[l - 1] + count[l - 1];
	memset(count, 0, sizeof(guint) * (rl->lane_count + 1));
	for (gsize i = 0; i < n; i++)
		sorted[start[lanes[i]] + count[lanes[i]]++] =
		    (FsvLodItem){items[i].begin_ns, items[i].end_ns, items[i].id};
	rl->lods = g_new0(FsvLod *, rl->lane_count);
	for (guint l = 0; l < rl->lane_count; l++)
		if (count[l] > 0)
			rl->lods[l] = fsv_lod_new(sorted + start[l], count[l]);

	/* The aggregated slot of each half that a collapsed row cannot show lane by lane. */
	shape.lane_count = rl->lane_count;
	shape.first_lower_lane = rl->first_lower;
	rl->stack_first[0] = rl->stack_first[1] = G_MAXUINT;
	for (int h = 0; h < 2; h++) {
		guint a = h == 0 ? 0 : rl->first_lower;
		guint b = h == 0 ? rl->first_lower : rl->lane_count;
		guint cap = half_cap(&shape);

		if (b - a <= cap)
			continue;
		rl->stack_first[h] = a + cap - 1;
		rl->stack_lods[h] = lod_of(items, lanes, n, a + cap - 1, b);
	}
	return rl;
}

void
_fsv_row_lanes_free(FsvRowLanes *rl)
{
	if (!rl)
		return;
	for (guint l = 0; l < rl->lane_count; l++)
		fsv_lod_free(rl->lods[l]);
	g_free(rl->lods);
	fsv_lod_free(rl->stack_lods[0]);
	fsv_lod_free(rl->stack_lods[1]);
	g_free(rl);
}

const FsvLod *
_fsv_row_lanes_get_lod(const FsvRowLanes *rl, guint lane)
{
	return rl && lane < rl->lane_count ? rl->lods[lane] : NULL;
}

const FsvLod *
_fsv_row_lanes_get_stack_lod(const FsvRowLanes *rl, guint first_lane)
{
	if (!rl)
		return NULL;
	for (int h = 0; h < 2; h++)
		if (rl->stack_first[h] == first_lane)
			return rl->stack_lods[h];
	return NULL;
}

gsize
_fsv_row_lanes_get_size(const FsvRowLanes *rl)
{
	gsize size;

	if (!rl)
		return 0;
	size = sizeof(*rl) + rl->lane_count * sizeof(FsvLod *);
	for (guint l = 0; l < rl->lane_count; l++)
		if (rl->lods[l])
			size += fsv_lod_get_size(rl->lods[l]);
	for (int h = 0; h < 2; h++)
		if (rl->stack_lods[h])
			size += fsv_lod_get_size(rl->stack_lods[h]);
	return size;
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
