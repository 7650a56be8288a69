/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: what fsv-view.c and fsv-render.c read from an FsvTrace beyond its public API —
 * the level-of-detail indexes of each row's lanes. Not for the GTK app: it goes through
 * fsv-view.h and fsv-render.h.
 *
 * How a trace is stored (flat arrays of plain structs, the same in memory and in its index
 * file) is in fsv-trace-storage.h, for the trace's own files only. Adding an array to the trace
 * (the counters' tracks, say) is one line there, in FSV_TRACE_ARRAYS: X(field, type, "TAG");
 * fill it in fsv-trace-build.c's build_freeze(), read it in an accessor of fsv-trace.c, and if
 * its elements hold indexes, check them in fsv-index.c's check_section().
 */
#ifndef FSV_TRACE_PRIVATE_H
#define FSV_TRACE_PRIVATE_H

#include "fsv-counters.h"
#include "fsv-lod.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

/* Ops of a queue or CPU row (item ids: op indexes), one index per lane; NULL when the row has
 * no ops in that lane. */
const FsvLod *_fsv_trace_get_op_lod(const FsvTrace *trace, guint32 row, guint lane);
/* Packets of an engine row (item ids: packet indexes), one per lane. */
const FsvLod *_fsv_trace_get_packet_lod(const FsvTrace *trace, guint32 row, guint lane);
/* The ops or packets of lanes [first_lane, end of its half) of a row, the aggregated slot of a
 * collapsed row, or the union of their spans (*is_union, fsv-lanes-private.h); NULL when no
 * such slot starts at FIRST_LANE. */
const FsvLod *_fsv_trace_get_stack_lod(const FsvTrace *trace, guint32 row, guint first_lane,
				       bool *is_union);
/*
 * A row's markers are split in layers, each with its own level-of-detail index, so that an
 * aggregate of one layer never stands for an item of another (a ring bucket never hides a
 * connect, a state bucket is always a state):
 */
typedef enum {
	FSV_MARKER_LAYER_OTHER,  /* connect/disconnect triangles, preemption, TDR, suspend, F1… */
	FSV_MARKER_LAYER_RING,   /* doorbell rings: ticks in the tick strip */
	FSV_MARKER_LAYER_BAND,   /* doorbell_state (else doorbell_connected): the queue's band */
	FSV_MARKER_LAYER_VICTIM, /* doorbell_victimize: arrows victim → beneficiary */
	FSV_MARKER_LAYER_VSYNC,  /* vsyncs that latched a flip or had nothing to latch */
	FSV_MARKER_LAYER_MISSED, /* missed vsyncs: never hidden in a bucket of other vsyncs */
	/* Long ranges drawn under the other markers and hit last, so that an instant within
	 * them still answers: suspension, context in error, a TDR detection's stall. */
	FSV_MARKER_LAYER_BACK,
	/* Engine and adapter resets (TDR-06): a reset is an instant right next to its TDR and its
	 * request, which would stand for it in a bucket of theirs; drawn over them. */
	FSV_MARKER_LAYER_RESET,
	/* GPU page faults (MMU-14): the flash glyph, drawn over everything of the row and hit
	 * first in its glyph; a fault lies nanoseconds from its TDR and reset, and in a bucket of
	 * theirs it would be lost. */
	FSV_MARKER_LAYER_FAULT,
	/* Cross-adapter propagations (XAD-07) on the notified adapter's fence row: arrows from
	 * the signalling adapter's row, drawn for every laid-out row like victimizations. */
	FSV_MARKER_LAYER_PROPAGATION,
	FSV_MARKER_LAYER_COUNT,
} FsvMarkerLayer;

/* VA mappings of a VA space row in one of its lanes (item ids: marker indexes; MMU-04, MMU-06,
 * MMU-07); NULL when none. Mappings are in no marker layer (_fsv_marker_layer gives
 * FSV_MARKER_LAYER_COUNT). */
const FsvLod *_fsv_trace_get_va_lod(const FsvTrace *trace, guint32 row, guint lane);
/* Markers of a row in one layer (item ids: marker indexes); NULL when none. */
const FsvLod *_fsv_trace_get_marker_lod(const FsvTrace *trace, guint32 row, FsvMarkerLayer layer);
/* The layer a marker of KIND goes to (doorbell_connected: BAND; rows with doorbell_state
 * markers leave their doorbell_connected intervals out of every layer, the band shows them). */
FsvMarkerLayer _fsv_marker_layer(guint8 kind);
/* Whether the trace has paging packets (PRE-06), and preempted packets joined to a resubmitted
 * piece (PRE-07), in O(1): the legend names them only then. */
bool _fsv_trace_has_paging_packets(const FsvTrace *trace);
bool _fsv_trace_has_resubmitted_pieces(const FsvTrace *trace);
/* Display markers (PRE-13): the display (VidPN source) of a vsync or flip marker, UINT32_MAX for
 * other kinds; whether the marker is a vsync (an instant) or a flip (queued → done). */
guint32 _fsv_marker_display_source(const FsvMarker *marker);
bool _fsv_marker_is_vsync(const FsvMarker *marker);
bool _fsv_marker_is_flip(const FsvMarker *marker);
/* A vsync's flip latched (0: none); a flip's id. */
guint64 _fsv_vsync_flip_id(const FsvMarker *marker);
guint64 _fsv_flip_id(const FsvMarker *marker);
/* A vsync's count (from 1); the vsync at which a flip took effect (0: unknown). */
guint64 _fsv_vsync_count(const FsvMarker *marker);
guint64 _fsv_flip_vsync_count(const FsvMarker *marker);
/* The layer a marker goes to: _fsv_marker_layer() of its kind, but a vsync's by whether it was
 * missed. */
FsvMarkerLayer _fsv_marker_get_layer(const FsvMarker *marker);
/* A preemption granularity (FSTP_PREEMPT_GRANULARITY_*) in words: "primitive boundary", or on
 * a compute engine "dispatch boundary" (PRE-03). */
const char *_fsv_granularity_name(gint64 code, bool is_compute);
/* Whether a marker of KIND on an engine row is drawn in its event strip (FSV_STRIP_EVENTS). */
bool _fsv_marker_uses_event_strip(guint8 kind);
/*
 * MMU-14, TDR-06: what followed a page fault (a FSA_MARK_PAGE_FAULT marker): the TDR of its
 * engine that began at or after it (reason PAGE_FAULT preferred), the engine and adapter resets
 * inside that TDR, the faulting context's context_error and its process's device_lost from the
 * fault to the TDR's end. Marker indexes, FSV_INDEX_NONE for each one the trace does not have.
 * Returns false when nothing followed.
 */
typedef struct {
	guint32 tdr, engine_reset, adapter_reset, context_error, device_lost;
} FsvFaultRecovery;
bool _fsv_trace_find_fault_recovery(const FsvTrace *trace, guint32 marker,
				    FsvFaultRecovery *recovery);
/* Whether the trace has a marker of KIND (enum fsa_marker_kind), in O(1). */
bool _fsv_trace_has_marker_kind(const FsvTrace *trace, guint8 kind);

/*
 * Builds a trace from normalized events (fsa/event.h) fed to the analyzer model in order, as
 * fsv_trace_load() builds one from a recording: for tests of drawing and hit testing on exact
 * synthetic timelines. NAME is the trace's name. Returns: (transfer full).
 */
FsvTrace *_fsv_trace_new_from_events(const char *name, const struct fsa_event *events, gsize n);

/* How many threads the build after reading uses for N_JOBS independent jobs (index_rows, the
 * counters' rows): FSV_BUILD_THREADS (tests), else one per processor, at most four; at least
 * one, at most N_JOBS. The index does not depend on it. */
guint _fsv_build_threads(guint n_jobs);
/*
 * A live session's trace built as its events arrive (issue 16 §4, fsv-live-reader.h): one
 * analyzer model fed each event once (no replay), the items it gives out kept. Each
 * _fsv_trace_append_build() is the trace of the session so far: the items kept, and what the
 * model still holds open (fsa_model_peek: operations drawn as never completed up to the newest
 * event, open packets and intervals). With IS_FINAL the model is finished instead, and the trace
 * is the one the whole session gives at once (fsv_trace_load() of its recording).
 * Not thread-safe: one thread feeds and builds.
 */
typedef struct _FsvTraceAppend FsvTraceAppend;
/* Returns: (transfer full) (nullable: out of memory). NAME is the traces' name. */
FsvTraceAppend *_fsv_trace_append_new(const char *name);
void _fsv_trace_append_free(FsvTraceAppend *append);
/* Feeds one event (or, EVENT NULL, one tracer loss) to the model. */
void _fsv_trace_append_event(FsvTraceAppend *append, const struct fsa_event *event,
			     const struct fsa_discard *discard);
/* The trace so far (IS_FINAL: the whole session's; nothing may be fed after it). STATS
 * (nullable) are the reader's; PARTIAL_ERROR (nullable) marks it partial. Returns: (transfer
 * full). */
FsvTrace *_fsv_trace_append_build(FsvTraceAppend *append, gboolean is_final,
				  const struct fsa_ingest_stats *stats, const char *partial_error);
/*
 * fsv_trace_load() whose analyzer model feeds TEE (nullable) too, item by item, after the
 * trace's own sink: the index builder counts what is loaded so far with it (fsv-load-preview.h).
 */
FsvTrace *_fsv_trace_load_teed(const char *path, const struct fsa_model_sink *tee,
			       FsvTraceProgressFunc progress, gpointer user_data,
			       GCancellable *cancellable, GError **error);
/*
 * What drawing a LOD bucket needs of its top item, without reading the item: a bucket stands
 * for one pixel column of a lane, so at a far zoom the buckets' tops are spread over the whole
 * op and packet arrays, and reading them would make those arrays resident (a mapped index file
 * is read 64 KB around each page touched). These small arrays are read instead.
 */
guint8 _fsv_trace_get_op_kind(const FsvTrace *trace, guint32 op); /* FsvOp.kind */
typedef struct {
	guint64 hwqueue_handle;
	guint8 status; /* enum fsa_packet_status */
	bool is_paging;
	guint8 reserved[6];
} FsvPacketStyle;
/* Returns: (transfer none): FsvPacket's hwqueue_handle, status and is_paging. */
const FsvPacketStyle *_fsv_trace_get_packet_style(const FsvTrace *trace, guint32 packet);
/*
 * What drawing a marker bucket needs of its top marker (kind, flags, flip lane, a small code),
 * 4 bytes instead of FsvMarker's 112: the marker arrays of a 100 M event trace are 756 MB, and a
 * whole-trace draw that read each bucket's top marker made all of it resident (issue 15 §1).
 */
enum {
	FSV_MARKER_STYLE_OPEN = 1 << 0,   /* FsvMarker.is_open */
	FSV_MARKER_STYLE_MISSED = 1 << 1, /* FsvMarker.is_missed */
	FSV_MARKER_STYLE_64K = 1 << 2,    /* FsvMarker.code2 == 65536 (a VA mapping's page size) */
};
typedef struct {
	guint8 kind;  /* enum fsa_marker_kind */
	guint8 flags; /* FSV_MARKER_STYLE_* */
	guint8 lane;  /* FsvMarker.lane */
	/* FsvMarker.code clamped to [-128, 127]: the codes a bucket is drawn by (doorbell status,
	 * preemption reason, VA segment, reset success) are small; a clamped one stays out of
	 * their ranges and keeps its sign and whether it is 0. */
	gint8 code;
} FsvMarkerStyle;
/* Returns: (transfer none): marker MARKER's style. */
const FsvMarkerStyle *_fsv_trace_get_marker_style(const FsvTrace *trace, guint32 marker);
/* Prefetch hints (no effect on what is read; an index out of range is ignored): the op kind,
 * packet style or marker style of an item that a bucket about to be drawn has as its top
 * (fsv_lod_visit_ahead). */
void _fsv_trace_prefetch_op_kind(const FsvTrace *trace, guint32 op);
void _fsv_trace_prefetch_packet_style(const FsvTrace *trace, guint32 packet);
void _fsv_trace_prefetch_marker_style(const FsvTrace *trace, guint32 marker);
/* The style of MARKER (what fsv-trace-build.c stores for it). */
FsvMarkerStyle _fsv_marker_style_of(const FsvMarker *marker);
/* A marker with STYLE's fields (kind, is_open, is_missed, lane, code, code2) and span [BEGIN,
 * END], every other field 0: what a bucket is drawn as. */
void _fsv_marker_from_style(const FsvMarkerStyle *style, guint64 begin_ns, guint64 end_ns,
			    FsvMarker *out);
/* The counter tracks' data (fsv-counters.h), built with the index. */
const FsvCounters *_fsv_trace_get_counters(const FsvTrace *trace);
/* Bytes of the index (ops, packets, markers, LODs), for the benchmark. */
gsize _fsv_trace_get_memory_size(const FsvTrace *trace);

G_END_DECLS

#endif /* FSV_TRACE_PRIVATE_H */
