/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: TraceBuild, an FsvTrace while it is being built (fsv-trace-build.c: the model's
 * sink and the indexing phases; fsv-trace-layout.c: the rows). It grows GArrays and looks rows
 * up in hash tables; when it is finished, fsv-trace-build.c freezes it into the flat, read-only
 * FsvTrace of fsv-trace-storage.h and destroys it.
 */
#ifndef FSV_TRACE_BUILD_PRIVATE_H
#define FSV_TRACE_BUILD_PRIVATE_H

#include "fsv-trace-storage.h"

G_BEGIN_DECLS

/* A row's items while building. LODs are indexes into TraceBuild.lods (a marker layer's
 * FSV_INDEX_NONE when none). */
typedef struct {
	GArray *ops;                    /* guint32 op indexes, sorted by begin_ns */
	GArray *packets;                /* guint32 */
	GArray *markers;                /* guint32 */
	GArray *steps;                  /* FsvFenceStep */
	guint32 lane_lods, n_lane_lods; /* one per lane, consecutive */
	/* The aggregated slots of a collapsed row (fsv-lanes-private.h), upper and lower half:
	 * their LOD (FSV_INDEX_NONE: none), first lane, and whether it holds merged runs. */
	guint32 stack_lods[2], stack_first[2], stack_is_union[2];
	guint32 va_lods, n_va_lods; /* VA space rows: mappings per lane, consecutive */
	guint32 marker_lods[FSV_MARKER_LAYER_COUNT];
} RowLists;

typedef struct {
	char *path, *partial_error;
	struct fsa_summary summary;
	char *runtime_version;
	struct fsa_ingest_stats stats;
	guint64 begin_ns, end_ns;

	GArray *rows;       /* FsvRow, labels owned */
	RowLists *row_data; /* one per row */
	GArray *ops;        /* FsvOp, in the analyzer's close order (op id order) */
	GArray *packets;    /* FsvPacket */
	GArray *markers;    /* FsvMarker */
	GArray *losses;     /* FsvLoss */
	GArray *anomalies;  /* struct fsa_anomaly */
	/* struct fsa_fence_value: CurrentValue steps without an operation (progress fences) */
	GArray *fence_values;
	GArray *edge_ids; /* pairs of guint64 op ids (signal, wait), while loading */
	guint32 *edge_start, *edge_ops;
	guint n_edge_ops;
	/* Every LOD of every row (fsv-lod-private.h). */
	GArray *lods, *lod_items, *lod_buckets;

	GArray *processes; /* struct fsa_process_info, names owned */
	GArray *queues;    /* struct fsa_queue_info */
	GArray *contexts;  /* struct fsa_context_info */
	GArray *engines;   /* struct fsa_engine_info */
	GArray *fences;    /* struct fsa_fence_info */
	GArray *va_spaces; /* struct fsa_va_space_info (format 1.5) */
	GArray *xopens;    /* struct fsa_cross_open, every fence's (format 1.5) */
	GArray *clock_fits;
	guint64 marker_kinds; /* bit k: the trace has a marker of kind k */
	bool has_paging_packets, has_resubmitted_pieces;
	GHashTable *queue_rows; /* hwqueue handle → row + 1 */
	GHashTable *fence_rows; /* global fence handle → row + 1 */
	GHashTable *va_rows;    /* process id << 32 | adapter id → row + 1 */
	/* Cross-adapter fences (XAD-03): global fence handle → GArray of guint32 pairs (adapter,
	 * row) of its rows under each adapter. */
	GHashTable *xfence_rows;
	/* Issue 16 §3 (fsv-frames-private.h): the frame builder (owned, NULL once finished), the
	 * frames it gave (struct fsa_frame, in its order), then the stored frames (FsvFrame) and
	 * frames rows (FsvFrameRow) once indexed. The vsync and flip markers it was fed (struct
	 * fsa_marker) are kept too, so that a live update can feed them to its own builder. */
	struct fsa_frame_builder *frame_builder;
	GArray *frames, *stored_frames, *frame_rows, *frame_markers;
} TraceBuild;

/* fsv-trace-layout.c: the rows, and the row each item goes on. */
void _fsv_build_layout_rows(TraceBuild *build);
guint32 _fsv_build_find_engine_row(const TraceBuild *build, guint32 adapter_id, guint32 engine_id);
guint32 _fsv_build_find_cpu_row(const TraceBuild *build, guint32 pid);
guint32 _fsv_build_marker_row(const TraceBuild *build, const FsvMarker *marker);
guint32 _fsv_build_find_queue_row(const TraceBuild *build, guint64 hwqueue_handle);
guint32 _fsv_build_find_fence_row(const TraceBuild *build, guint64 fence_global_handle);
guint32 _fsv_build_find_va_row(const TraceBuild *build, guint32 process_id, guint32 adapter_id);
guint32 _fsv_build_find_xfence_row(const TraceBuild *build, guint64 fence, guint32 adapter_id);
const struct fsa_fence_info *_fsv_build_find_fence(const TraceBuild *build, guint64 fence);
bool _fsv_build_has_marker_kind(const TraceBuild *build, guint8 kind);
/* Takes ARRAY's elements as a g_malloc block (never NULL: an empty array gives a valid pointer
 * for offset 0), its length in *N; ARRAY stays, empty. Every freeze uses it (fsv-trace-build.c,
 * fsv-frames.c). */
gpointer _fsv_build_steal_array(GArray *array, gsize *n);

static inline FsvRow *
_fsv_build_row_at(TraceBuild *build, guint32 row)
{
	return &g_array_index(build->rows, FsvRow, row);
}

G_END_DECLS

#endif /* FSV_TRACE_BUILD_PRIVATE_H */
