/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: how an FsvTrace is stored (issue 15 §1). Only the trace's own files read this:
 * fsv-trace.c (accessors), fsv-trace-build.c and fsv-trace-layout.c (building from the model),
 * fsv-index.c (the index file). Everything else goes through fsv-trace.h and
 * fsv-trace-private.h.
 *
 * The loaded form is a set of flat arrays of fixed-size plain structs: no pointers, no GArray or
 * GHashTable. Whatever refers to another item does so by index (ops[i].row, a row's ops as an
 * (offset, count) range of row_ops, edges as CSR, strings as offsets into one pool), and every
 * lookup is a binary search in a sorted array. So a trace is the same bytes in memory and in
 * its index file: fsv_index_save() writes the arrays, fsv_index_map() points them into a
 * read-only mapping of the file, and the accessors cannot tell the difference.
 *
 * A few views with pointers are derived from the arrays when a trace is made or mapped (rows
 * with their labels, processes with their names, the summary, one FsvLod per LOD header): they
 * are O(rows), never O(items).
 *
 * ADDING AN ARRAY is one line in FSV_TRACE_ARRAYS below: X(field, element type, "TAG"), where
 * TAG is 4 characters unique in the list. The trace then has `type *field` and `gsize n_field`,
 * fsv_trace_unref() frees it, and the index file saves, maps and checksums it (bump
 * FSV_INDEX_FORMAT_VERSION in fsv-index.h). Fill it in fsv-trace-build.c's freeze (a built
 * trace owns g_malloc'd arrays). If its elements hold indexes into other arrays, add their
 * bounds check to fsv-index.c's check_section() (an array may only check against arrays
 * listed before it), so a damaged index file is refused instead of trusted. The element type
 * must be plain data (no pointers), the same on every build of the same version.
 */
#ifndef FSV_TRACE_STORAGE_H
#define FSV_TRACE_STORAGE_H

#include "fsv-frames.h"
#include "fsv-lod-private.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

/* The trace's single values (one element). */
typedef struct {
	struct fsa_summary summary; /* runtime_version NULL: see runtime_version */
	struct fsa_ingest_stats stats;
	guint64 begin_ns, end_ns;
	guint64 marker_kinds;    /* bit k: the trace has a marker of kind k */
	guint64 runtime_version; /* offset in strings */
	guint64 partial_error;   /* offset in strings, FSV_STRING_NONE when the trace is whole */
	guint32 has_paging_packets, has_resubmitted_pieces;
} FsvTraceScalars;

#define FSV_STRING_NONE G_MAXUINT64

/* A row: FsvRow with its label and sublabel as offsets in strings (row.label, row.sublabel
 * NULL). */
typedef struct {
	FsvRow row;
	guint64 label, sublabel;
} FsvStoredRow;

/* What a row holds, as ranges of the global arrays. */
typedef struct {
	guint32 ops_start, n_ops;         /* row_ops: op indexes sorted by begin_ns */
	guint32 packets_start, n_packets; /* row_packets */
	guint32 markers_start, n_markers; /* row_markers */
	guint32 steps_start, n_steps;     /* steps */
	/* lods: one per lane of ops or packets (lane l: lane_lods + l; n_items 0 when the lane
	 * is empty), one per VA mapping lane, one per marker layer (FSV_INDEX_NONE: none). */
	guint32 lane_lods, n_lane_lods;
	/* The aggregated slot of each half of a collapsed row (docs/viewer.md "Lanes"): its LOD
	 * (FSV_INDEX_NONE: none), its first lane, and 1 when it indexes the union of its boxes
	 * (merged runs) rather than the boxes. */
	guint32 stack_lods[2], stack_first[2], stack_is_union[2];
	guint32 va_lods, n_va_lods;
	guint32 marker_lods[FSV_MARKER_LAYER_COUNT];
} FsvRowData;

/* A process, its name as an offset in strings (info.name NULL). */
typedef struct {
	struct fsa_process_info info;
	guint64 name;
} FsvStoredProcess;

/* A sorted lookup: key → row (queue handle, global fence handle, pid << 32 | adapter). */
typedef struct {
	guint64 key;
	guint32 row;
	guint32 reserved;
} FsvRowKey;

/* Cross-adapter fence rows (XAD-03), sorted by (fence, adapter). */
typedef struct {
	guint64 fence_global_handle;
	guint32 adapter_id;
	guint32 row;
} FsvXfenceRow;

/* Issue 16 §3 (fsv-frames.h): a frames row of the stored trace: its frames [first, first + count)
 * and their level-of-detail index (item ids: frame indexes; FSV_INDEX_NONE when it has no frames).
 */
typedef struct {
	guint32 row, first, count, lod;
	guint64 budget_ns; /* the median vsync period of its frames, 0 unknown */
} FsvFrameRow;

/* Every array of a trace: X(field, element type, tag), in index file order. */
#define FSV_TRACE_ARRAYS(X)                                                                        \
	X(strings, char, "STRS")                                                                   \
	X(scalars, FsvTraceScalars, "SCAL")                                                        \
	X(ops, FsvOp, "OPS_")                                                                      \
	X(packets, FsvPacket, "PKTS")                                                              \
	X(op_kinds, guint8, "OPKD")                                                                \
	X(packet_styles, FsvPacketStyle, "PKST")                                                   \
	X(markers, FsvMarker, "MRKS")                                                              \
	X(marker_styles, FsvMarkerStyle, "MKST")                                                   \
	X(losses, FsvLoss, "LOSS")                                                                 \
	X(anomalies, struct fsa_anomaly, "ANOM")                                                   \
	X(edge_start, guint32, "EDGS")                                                             \
	X(edge_ops, guint32, "EDGO")                                                               \
	X(steps, FsvFenceStep, "STEP")                                                             \
	X(row_ops, guint32, "ROPS")                                                                \
	X(row_packets, guint32, "RPKT")                                                            \
	X(row_markers, guint32, "RMRK")                                                            \
	X(lods, FsvLodHeader, "LODH")                                                              \
	X(lod_items, FsvLodItem, "LODI")                                                           \
	X(lod_buckets, FsvLodBucket, "LODB")                                                       \
	X(rows, FsvStoredRow, "ROWS")                                                              \
	X(row_data, FsvRowData, "RDAT")                                                            \
	X(processes, FsvStoredProcess, "PROC")                                                     \
	X(queues, struct fsa_queue_info, "QUEU")                                                   \
	X(contexts, struct fsa_context_info, "CTXS")                                               \
	X(engines, struct fsa_engine_info, "ENGS")                                                 \
	X(fences, struct fsa_fence_info, "FENC")                                                   \
	X(va_spaces, struct fsa_va_space_info, "VASP")                                             \
	X(xopens, struct fsa_cross_open, "XOPN")                                                   \
	X(clock_fits, struct fsa_clock_fit, "CLKF")                                                \
	X(queue_rows, FsvRowKey, "QROW")                                                           \
	X(fence_rows, FsvRowKey, "FROW")                                                           \
	X(va_rows, FsvRowKey, "VROW")                                                              \
	X(xfence_rows, FsvXfenceRow, "XROW")                                                       \
	X(counter_rows, FsvCounterRow, "CROW")                                                     \
	X(busy_begin, guint64, "BSYB")                                                             \
	X(busy_end, guint64, "BSYE")                                                               \
	X(busy_before, guint64, "BSYP")                                                            \
	X(depth_base, guint64, "DPTB")                                                             \
	X(depth_offset, guint32, "DPTO")                                                           \
	X(depth_value16, guint16, "DPTS")                                                          \
	X(depth_ns, guint64, "DPTN")                                                               \
	X(depth_value, guint32, "DPTV")                                                            \
	X(counter_pyramid, FsvCounterMinMax, "CPYR")                                               \
	X(step_block_ns, guint64, "STPB")                                                          \
	X(frames, FsvFrame, "FRMS")                                                                \
	X(frame_rows, FsvFrameRow, "FRRW")

struct _FsvTrace {
	gint ref_count;
	char *path, *name; /* the path it was opened as (never stored) */
#define FSV_TRACE_ARRAY_MEMBER(field, type, tag)                                                   \
	type *field;                                                                               \
	gsize n_##field;
	FSV_TRACE_ARRAYS(FSV_TRACE_ARRAY_MEMBER)
#undef FSV_TRACE_ARRAY_MEMBER

	/* Derived views (_fsv_trace_derive), owned. */
	FsvRow *row_views;
	struct fsa_process_info *process_views;
	struct fsa_summary summary;
	const char *partial_error;
	FsvLod *lod_views;
	/* The counter tracks' arrays above, as fsv-counters.c reads them (issue 15 §4). */
	FsvCounters counters;

	/* The index file mapping the arrays point into; NULL when each array is its own
	 * g_malloc block (a built trace). */
	void *mapping;
	gsize mapping_size;
};

/* One entry per array: for the index file's generic save and map. */
typedef struct {
	const char *tag; /* 4 characters */
	gsize element_size;
	gsize data_offset, count_offset; /* offsetof(FsvTrace, field), offsetof(..., n_field) */
} FsvTraceArrayInfo;

extern const FsvTraceArrayInfo _fsv_trace_arrays[];
extern const guint _fsv_trace_array_count;

static inline void **
_fsv_trace_array_data(FsvTrace *trace, const FsvTraceArrayInfo *info)
{
	return (void **) ((char *) trace + info->data_offset);
}

static inline gsize *
_fsv_trace_array_count_of(FsvTrace *trace, const FsvTraceArrayInfo *info)
{
	return (gsize *) ((char *) trace + info->count_offset);
}

/* A trace with no arrays, path PATH (its name from it). Returns: (transfer full). */
FsvTrace *_fsv_trace_new_empty(const char *path);
/* Makes the derived views from the arrays (after building or mapping). */
void _fsv_trace_derive(FsvTrace *trace);
/* Points trace->counters at the counter arrays (part of _fsv_trace_derive; again once a build
 * has made them). */
void _fsv_trace_derive_counters(FsvTrace *trace);
/* What a fence is on an adapter, from FENCES and XOPENS (fsv_trace_get_fence_object). */
guint8 _fsv_fence_object_of(const struct fsa_fence_info *fences, gsize n_fences,
			    const struct fsa_cross_open *xopens, gsize n_xopens, guint64 fence,
			    guint32 adapter_id);
/* With FSV_TRACE_ROUND_TRIP=1 in the environment (tests), a built trace is saved to an index
 * file in a temporary folder and mapped back: the caller gets the mapped trace. */
FsvTrace *_fsv_trace_maybe_round_trip(FsvTrace *trace);

G_END_DECLS

#endif /* FSV_TRACE_STORAGE_H */
