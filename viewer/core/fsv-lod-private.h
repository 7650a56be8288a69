/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvLod's flat storage, for FsvTrace and its index file (fsv-trace-storage.h,
 * fsv-index.c). A trace keeps every level-of-detail index of every row in three flat arrays: the
 * headers (FsvLodHeader, one per index), the items of all of them (FsvLodItem) and the buckets
 * of all of them (FsvLodBucket); a header names its ranges by offset, so the three arrays can
 * be written to a file and mapped back. An FsvLod is then a small view over one header.
 */
#ifndef FSV_LOD_PRIVATE_H
#define FSV_LOD_PRIVATE_H

#include "fsv-lod.h"

G_BEGIN_DECLS

/* Size classes and levels are powers of 4: duration class c covers [4^c, 4^(c+1)) ns. */
#define FSV_LOD_CLASSES 32

typedef struct {
	guint32 kind;    /* FsvItemKind of its item ids (fsv-trace.h): what the ids index */
	guint32 n_items; /* its items: [items_start, items_start + n_items) of the items array */
	guint64 items_start;
	guint64 buckets_start; /* its levels' buckets, level after level, from here */
	/* Items of class c: [class_start[c], class_start[c + 1]), relative to items_start. */
	guint32 class_start[FSV_LOD_CLASSES + 1];
	/* Level L's buckets: [level_start[L], + level_n[L]) relative to buckets_start; level_n
	 * 0: the level is not stored (it would not compress), visits go to the items. */
	guint32 level_start[FSV_LOD_CLASSES + 1];
	guint32 level_n[FSV_LOD_CLASSES + 1];
} FsvLodHeader;

struct _FsvLod {
	const FsvLodHeader *header;
	const FsvLodItem *items;     /* the header's items (items_start applied) */
	const FsvLodBucket *buckets; /* the header's buckets (buckets_start applied) */
	/* fsv_lod_new()'s own storage; NULL for a view into a trace's arrays. */
	FsvLodHeader *own_header;
	GArray *own_items, *own_buckets;
};

/*
 * Builds the index of N items (copied, any order) at the end of HEADERS (FsvLodHeader), ITEMS
 * (FsvLodItem) and BUCKETS (FsvLodBucket), its ids being of KIND. Returns the header's index.
 */
guint32 _fsv_lod_build(const FsvLodItem *items, gsize n, guint32 kind, GArray *headers,
		       GArray *items_out, GArray *buckets_out);
/* How significant item ID is: a bucket's top is its item of the highest rank (ties: the first
 * in (begin, id) order). */
typedef guint64 (*FsvLodRankFunc)(guint32 id, gpointer user_data);
/* _fsv_lod_build() with each bucket's top the item RANK ranks highest instead of the longest
 * (a frames row: its worst frame, fsv-frames.c). */
guint32 _fsv_lod_build_ranked(const FsvLodItem *items, gsize n, guint32 kind, FsvLodRankFunc rank,
			      gpointer rank_data, GArray *headers, GArray *items_out,
			      GArray *buckets_out);
/* Points LOD at HEADER of arrays ITEMS and BUCKETS (the whole arrays: offsets applied here). */
void _fsv_lod_init_view(FsvLod *lod, const FsvLodHeader *header, const FsvLodItem *items,
			const FsvLodBucket *buckets);

G_END_DECLS

#endif /* FSV_LOD_PRIVATE_H */
