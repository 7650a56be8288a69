/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvLod, the level-of-detail index of one lane of intervals (a queue lane's fence
 * boxes, an engine's packets, a row's markers), so a redraw visits O(pixels) items at any zoom
 * instead of every item in view.
 *
 * Items are split by size class (duration in [4^c, 4^(c+1)) ns). For a zoom of p ns per pixel
 * the level L with 4^L ≤ p < 4^(L+1) is used: items of class ≥ L (at least 4^L ns, about a
 * pixel or more) are visited one by one; smaller items are visited as buckets of level L, each
 * covering a 4^L ns slot of start times and holding how many items start there, the union of
 * their extents (min begin, max end) and the most significant one (the longest, unless the
 * builder ranks them otherwise: a frames row's is its worst frame, fsv-frames.c). Drawing a
 * bucket over [min begin, max end] covers every pixel its items would have covered, so the
 * invariant holds: an item a full draw shows as at least one pixel is drawn individually or its
 * pixels are covered by its bucket.
 *
 * Plain C + GLib, immutable once built, safe to read from several threads.
 */
#ifndef FSV_LOD_H
#define FSV_LOD_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
	guint64 begin_ns, end_ns; /* union extent of the bucket's items */
	guint32 count;            /* items aggregated */
	guint32 top;              /* the most significant of them (an item id) */
} FsvLodBucket;

typedef struct _FsvLod FsvLod;

/* An item to index: its span and the caller's id for it. */
typedef struct {
	guint64 begin_ns, end_ns; /* end ≥ begin */
	guint32 id;
} FsvLodItem;

/* Returns: (transfer full): an index of N items (copied; any order). */
FsvLod *fsv_lod_new(const FsvLodItem *items, gsize n);
void fsv_lod_free(FsvLod *lod);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvLod, fsv_lod_free)

gsize fsv_lod_get_item_count(const FsvLod *lod);
/* Bytes the index uses (for the memory figures). */
gsize fsv_lod_get_size(const FsvLod *lod);

/* Called for each item drawn one by one, and for each bucket. Return false to stop. */
typedef bool (*FsvLodItemFunc)(const FsvLodItem *item, gpointer user_data);
typedef bool (*FsvLodBucketFunc)(const FsvLodBucket *bucket, gpointer user_data);

/*
 * Visits what overlaps [begin_ns, end_ns] at NS_PER_PX nanoseconds per pixel: items that may
 * be a pixel or wider one by one, smaller ones in buckets. NS_PER_PX ≤ 0 (or no_lod) visits
 * every overlapping item. Visits items before buckets, each group roughly in time order.
 */
void fsv_lod_visit(const FsvLod *lod, guint64 begin_ns, guint64 end_ns, double ns_per_px,
		   FsvLodItemFunc item_func, FsvLodBucketFunc bucket_func, gpointer user_data);

/* Buckets ahead of the one visited whose top fsv_lod_visit_ahead() announces. */
#define FSV_LOD_AHEAD 8
/* Called with the top of the bucket FSV_LOD_AHEAD buckets ahead of the one about to be visited,
 * to prefetch what drawing it will read. */
typedef void (*FsvLodAheadFunc)(guint32 top, gpointer user_data);
/*
 * fsv_lod_visit() calling AHEAD (nullable) before each bucket: a bucket's drawing reads a byte
 * or two about its top item (its kind, its style) from arrays as long as the items, and at a far
 * zoom the tops are spread over all of them, so each read is a cache miss; announced
 * FSV_LOD_AHEAD buckets ahead, those misses overlap (issue 15 §1).
 */
void fsv_lod_visit_ahead(const FsvLod *lod, guint64 begin_ns, guint64 end_ns, double ns_per_px,
			 FsvLodItemFunc item_func, FsvLodBucketFunc bucket_func,
			 FsvLodAheadFunc ahead, gpointer user_data);

G_END_DECLS

#endif /* FSV_LOD_H */
