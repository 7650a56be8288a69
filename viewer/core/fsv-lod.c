/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the level-of-detail index of one lane of intervals (fsv-lod.h). An index is a
 * header over ranges of two flat arrays, items and buckets (fsv-lod-private.h), which a trace
 * shares between all its indexes and stores in its index file. Items are kept
 * once, sorted by (size class, begin); each level's buckets are built from the level below
 * (four slots merge into one, plus the items of the class just below the level), so building
 * costs O(items + buckets) per level. A level that would not compress (nearly one bucket per
 * item: sparse items) is not stored; visiting it visits the items themselves, which are then
 * few per pixel anyway.
 *
 * This file decides what is visited, not how it looks: fsv-render.c draws the items and
 * buckets, and the hit tester in fsv-view.c asks the same question.
 */
#include "fsv-lod.h"
#include "fsv-lod-private.h"

#include <string.h>

#define LOD_CLASSES FSV_LOD_CLASSES

static guint
size_class(guint64 duration)
{
	/* floor(log4(duration)), 0 for durations below 4 ns. */
	return duration == 0 ? 0 : (guint) (63 - __builtin_clzll(duration)) / 2;
}

static guint64
pow4(guint c)
{
	return c >= 32 ? UINT64_MAX : (guint64) 1 << (2 * c);
}

static int
compare_items(const void *a, const void *b, void *data)
{
	const FsvLodItem *x = a, *y = b;
	guint cx = size_class(x->end_ns - x->begin_ns), cy = size_class(y->end_ns - y->begin_ns);

	(void) data;
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Merges the (sorted) buckets of the level below and the (sorted) items of class L − 1 into
 * level L's buckets, keeping with each bucket the rank of its top item in TOP_DUR (its duration
 * unless RANK is given). */
static void
build_level(const FsvLodItem *sorted, const guint32 *class_start, guint level,
	    const FsvLodBucket *below, const guint64 *below_dur, gsize n_below, FsvLodRankFunc rank,
	    gpointer rank_data, FsvLodBucket **out, guint64 **out_dur, gsize *n_out)
{
	const FsvLodItem *items = sorted + class_start[level - 1];
	gsize n_items = class_start[level] - class_start[level - 1];
	gsize i = 0, j = 0, n = 0;
	guint shift = 2 * level;
	FsvLodBucket *buckets = g_new(FsvLodBucket, n_below + n_items + 1);
	guint64 *dur = g_new(guint64, n_below + n_items + 1);

	while (i < n_below || j < n_items) {
		guint64 begin, end, top_dur;
		guint32 count, top;

		if (j >= n_items || (i < n_below && below[i].begin_ns <= items[j].begin_ns)) {
			begin = below[i].begin_ns;
			end = below[i].end_ns;
			count = below[i].count;
			top = below[i].top;
			top_dur = below_dur[i];
			i++;
		} else {
			begin = items[j].begin_ns;
			end = items[j].end_ns;
			count = 1;
			top = items[j].id;
			top_dur = rank ? rank(top, rank_data) : end - begin;
			j++;
		}
		if (n > 0 && (buckets[n - 1].begin_ns >> shift) == (begin >> shift)) {
			FsvLodBucket *b = &buckets[n - 1];

			b->end_ns = MAX(b->end_ns, end);
			b->count = count > UINT32_MAX - b->count ? UINT32_MAX : b->count + count;
			if (top_dur > dur[n - 1]) {
				b->top = top;
				dur[n - 1] = top_dur;
			}
		} else {
			buckets[n] = (FsvLodBucket){begin, end, count, top};
			dur[n] = top_dur;
			n++;
		}
	}
	*out = buckets;
	*out_dur = dur;
	*n_out = n;
}

guint32
_fsv_lod_build(const FsvLodItem *items, gsize n, guint32 kind, GArray *headers, GArray *items_out,
	       GArray *buckets_out)
{
	return _fsv_lod_build_ranked(items, n, kind, NULL, NULL, headers, items_out, buckets_out);
}

guint32
_fsv_lod_build_ranked(const FsvLodItem *items, gsize n, guint32 kind, FsvLodRankFunc rank,
		      gpointer rank_data, GArray *headers, GArray *items_out, GArray *buckets_out)
{
	FsvLodHeader h = {0};
	FsvLodItem *sorted;
	FsvLodBucket *below = NULL;
	guint64 *below_dur = NULL;
	gsize n_below = 0, c = 0;

	g_return_val_if_fail(n < UINT32_MAX, UINT32_MAX);
	h.kind = kind;
	h.n_items = (guint32) n;
	h.items_start = items_out->len;
	h.buckets_start = buckets_out->len;
	g_array_append_vals(items_out, items, (guint) n);
	sorted = &g_array_index(items_out, FsvLodItem, h.items_start);
	/* The items come from initializers, whose padding (after id) is undefined: zeroed, so
	 * that the index file holds no undefined bytes and the same trace gives the same file. */
	for (gsize i = 0; i < n; i++)
		memset((char *) &sorted[i] + G_STRUCT_OFFSET(FsvLodItem, id) + sizeof(guint32), 0,
		       sizeof(FsvLodItem) - G_STRUCT_OFFSET(FsvLodItem, id) - sizeof(guint32));
	if (n > 1)
		g_qsort_with_data(sorted, (gint) n, sizeof(*sorted), compare_items, NULL);
	for (guint k = 0; k <= LOD_CLASSES; k++) {
		while (c < n && size_class(sorted[c].end_ns - sorted[c].begin_ns) < k)
			c++;
		h.class_start[k] = (guint32) (k == LOD_CLASSES ? n : c);
	}

	/* Level 0 aggregates nothing. Level L is stored when it compresses the items below it
	 * by a quarter at least; the chain continues from the last level built either way. */
	for (guint level = 1; level <= LOD_CLASSES; level++) {
		FsvLodBucket *buckets;
		guint64 *dur;
		gsize n_buckets, n_aggregated = h.class_start[level];

		build_level(sorted, h.class_start, level, below, below_dur, n_below, rank,
			    rank_data, &buckets, &dur, &n_buckets);
		g_free(below);
		g_free(below_dur);
		below = buckets;
		below_dur = dur;
		n_below = n_buckets;
		if (n_aggregated > 0 && n_buckets * 4 <= n_aggregated * 3) {
			h.level_start[level] = buckets_out->len - (guint32) h.buckets_start;
			h.level_n[level] = (guint32) n_buckets;
			g_array_append_vals(buckets_out, buckets, (guint) n_buckets);
		}
	}
	g_free(below);
	g_free(below_dur);
	g_array_append_val(headers, h);
	return headers->len - 1;
}

void
_fsv_lod_init_view(FsvLod *lod, const FsvLodHeader *header, const FsvLodItem *items,
		   const FsvLodBucket *buckets)
{
	memset(lod, 0, sizeof(*lod));
	lod->header = header;
	lod->items = items + header->items_start;
	lod->buckets = buckets + header->buckets_start;
}

FsvLod *
fsv_lod_new(const FsvLodItem *items, gsize n)
{
	FsvLod *lod = g_new0(FsvLod, 1);
	g_autoptr(GArray) headers = g_array_new(FALSE, FALSE, sizeof(FsvLodHeader));

	lod->own_items = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));
	lod->own_buckets = g_array_new(FALSE, FALSE, sizeof(FsvLodBucket));
	_fsv_lod_build(items, n, 0, headers, lod->own_items, lod->own_buckets);
	lod->own_header = g_memdup2(headers->data, sizeof(FsvLodHeader));
	lod->header = lod->own_header;
	lod->items = (const FsvLodItem *) lod->own_items->data;
	lod->buckets = (const FsvLodBucket *) lod->own_buckets->data;
	return lod;
}

void
fsv_lod_free(FsvLod *lod)
{
	if (!lod)
		return;
	g_free(lod->own_header);
	if (lod->own_items)
		g_array_unref(lod->own_items);
	if (lod->own_buckets)
		g_array_unref(lod->own_buckets);
	g_free(lod);
}

gsize
fsv_lod_get_item_count(const FsvLod *lod)
{
	return lod->header->n_items;
}

gsize
fsv_lod_get_size(const FsvLod *lod)
{
	gsize size = sizeof(FsvLodHeader) + lod->header->n_items * sizeof(FsvLodItem);

	for (guint level = 0; level <= LOD_CLASSES; level++)
		size += lod->header->level_n[level] * sizeof(FsvLodBucket);
	return size;
}

/* First index in [lo, hi) whose begin_ns ≥ ns (items or buckets: begin_ns first). */
#define LOWER_BOUND(array, lo, hi, ns, out)                                                        \
	do {                                                                                       \
		gsize l_ = (lo), h_ = (hi);                                                        \
		while (l_ < h_) {                                                                  \
			gsize m_ = l_ + (h_ - l_) / 2;                                             \
			if ((array)[m_].begin_ns < (ns))                                           \
				l_ = m_ + 1;                                                       \
			else                                                                       \
				h_ = m_;                                                           \
		}                                                                                  \
		(out) = l_;                                                                        \
	} while (0)

static guint64
sub_sat(guint64 a, guint64 b)
{
	return a > b ? a - b : 0;
}

/* Visits the items of classes [from, to) overlapping [begin, end]. */
static bool
visit_classes(const FsvLod *lod, guint from, guint to, guint64 begin, guint64 end,
	      FsvLodItemFunc item_func, gpointer user_data)
{
	for (guint c = from; c < to; c++) {
		gsize lo = lod->header->class_start[c], hi = lod->header->class_start[c + 1], i;

		if (lo == hi)
			continue;
		/* An item of class c is shorter than 4^(c+1) ns: it overlaps begin only if it
		 * starts after begin − 4^(c+1). */
		LOWER_BOUND(lod->items, lo, hi, sub_sat(begin, pow4(c + 1)), i);
		for (; i < hi && lod->items[i].begin_ns <= end; i++)
			if (lod->items[i].end_ns >= begin && !item_func(&lod->items[i], user_data))
				return false;
	}
	return true;
}

void
fsv_lod_visit(const FsvLod *lod, guint64 begin_ns, guint64 end_ns, double ns_per_px,
	      FsvLodItemFunc item_func, FsvLodBucketFunc bucket_func, gpointer user_data)
{
	fsv_lod_visit_ahead(lod, begin_ns, end_ns, ns_per_px, item_func, bucket_func, NULL,
			    user_data);
}

void
fsv_lod_visit_ahead(const FsvLod *lod, guint64 begin_ns, guint64 end_ns, double ns_per_px,
		    FsvLodItemFunc item_func, FsvLodBucketFunc bucket_func, FsvLodAheadFunc ahead,
		    gpointer user_data)
{
	guint level = 0;
	const FsvLodBucket *buckets;
	gsize i, n_buckets;

	if (lod->header->n_items == 0 || end_ns < begin_ns)
		return;
	/* The level whose items are shorter than a pixel: 4^level ≤ ns_per_px. */
	while (ns_per_px >= 1.0 && level + 1 <= LOD_CLASSES &&
	       (double) pow4(level + 1) <= ns_per_px)
		level++;
	if (ns_per_px < 1.0)
		level = 0;
	n_buckets = lod->header->level_n[level];
	buckets = lod->buckets + lod->header->level_start[level];
	if (n_buckets == 0 || !bucket_func) {
		visit_classes(lod, 0, LOD_CLASSES, begin_ns, end_ns, item_func, user_data);
		return;
	}
	if (!visit_classes(lod, level, LOD_CLASSES, begin_ns, end_ns, item_func, user_data))
		return;
	/* A bucket's items start in its 4^level slot and are shorter than 4^level: its extent
	 * ends before the slot's start + 2·4^level. */
	LOWER_BOUND(buckets, 0, n_buckets, sub_sat(begin_ns, 2 * pow4(level)), i);
	for (; i < n_buckets && buckets[i].begin_ns <= end_ns; i++) {
		if (ahead && i + FSV_LOD_AHEAD < n_buckets)
			ahead(buckets[i + FSV_LOD_AHEAD].top, user_data);
		if (buckets[i].end_ns >= begin_ns && !bucket_func(&buckets[i], user_data))
			return;
	}
}
