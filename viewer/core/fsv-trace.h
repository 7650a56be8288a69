/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvTrace, the whole-trace index the timeline draws from. It is built once, from
 * the analyzer model's sink (fsa/model.h) fed by analyzer/ingest, and is read-only afterwards:
 * rows (adapter → engine → HWQueue and cross-adapter fences, CPU processes, GPU VA spaces,
 * fences), per row the fence operation boxes,
 * packets and markers sorted by time with their level-of-detail indexes, lost data, signal ↔
 * wait edges, anomalies, the summary and the clock fits. It never re-reads the trace.
 *
 * It is not a model: it decides nothing about fences. What a box is, when it starts and why it
 * is inferred are the analyzer's answers (docs/analyzer.md); FsvTrace only stores them compactly
 * (a 10 M event trace must open) and answers "what lies in this time range of this row".
 *
 * A plain, thread-safe ref-counted struct, not a GObject: fsv_trace_load() runs in a worker
 * thread (GTask) and hands the finished trace to the UI thread. Everything returned by the
 * accessors is borrowed and lives as long as the trace.
 *
 * Times are trace-clock nanoseconds; FSV_TIME_NONE (= FSA_TIME_NONE) means "not known".
 */
#ifndef FSV_TRACE_H
#define FSV_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <gio/gio.h>
#include <glib.h>

#include "fsa/ingest.h"
#include "fsa/model.h"

G_BEGIN_DECLS

#define FSV_TIME_NONE UINT64_MAX
/* Row and item indexes: "none". */
#define FSV_INDEX_NONE UINT32_MAX

#define FSV_TRACE_ERROR (fsv_trace_error_quark())
typedef enum {
	FSV_TRACE_ERROR_IO,        /* no such path, no CTF trace under it */
	FSV_TRACE_ERROR_TRACE,     /* the trace cannot be decoded (what was read is kept) */
	FSV_TRACE_ERROR_FORMAT,    /* the trace's format major version is too new */
	FSV_TRACE_ERROR_CANCELLED, /* the GCancellable was cancelled (G_IO_ERROR_CANCELLED too) */
	FSV_TRACE_ERROR_NOMEM,
	/* An index file (fsv-index.h) that cannot be used: damaged, stale, of another format or
	 * version; the caller rebuilds it from the trace. */
	FSV_TRACE_ERROR_INDEX,
} FsvTraceError;

GQuark fsv_trace_error_quark(void);

typedef enum {
	FSV_ROW_ADAPTER,     /* group header: one GPU adapter */
	FSV_ROW_ENGINE,      /* group header of its queues; its own lane shows packets */
	FSV_ROW_QUEUE,       /* one HWQueue: fence wait and signal boxes, doorbell ticks */
	FSV_ROW_CPU_GROUP,   /* group header of the CPU process rows */
	FSV_ROW_CPU_PROCESS, /* CPU waits and signals of one process (no queue) */
	FSV_ROW_FENCE_GROUP, /* group header of the fence rows (collapsed by default) */
	FSV_ROW_FENCE,       /* one fence: its CurrentValue as steps */
	/* An engine's F-state (FST-03): F1 ranges, F0 elsewhere. First child of its engine, only
	 * when the trace has engine_f1 markers for it. */
	FSV_ROW_ENGINE_POWER,
	/* An adapter's D-state (DST-01): D3 ranges, D0 elsewhere. First child of its adapter, only
	 * when the trace has device_d3 markers for it. */
	FSV_ROW_DEVICE_POWER,
	/* One display (VidPN source) of an adapter (PRE-13): its vsyncs as ticks, missed ones in
	 * red, and its flips from queued to done. Children of their adapter, after its D-state
	 * row, only when the trace has vsync or flip markers. */
	FSV_ROW_DISPLAY,
	/* Format 1.5 (issue 14). The group of the GPU VA space rows (expanded by default), after
	 * the CPU group, only when the trace has VA spaces: */
	FSV_ROW_VA_GROUP,
	/* One process's GPU virtual address space on one adapter (MMU-01): its mappings as
	 * intervals from map to unmap in up to FSV_VA_MAX_LANES lanes, VA reserves and frees as
	 * ticks, the page faults the OS handled for that process (MMU-14). */
	FSV_ROW_VA_SPACE,
	/* A cross-adapter fence as one adapter sees it (XAD-03..08): a row under each adapter it
	 * lives on, after that adapter's engines: its CurrentValue as steps (the signals run on
	 * this adapter, the propagations from the other one), the propagations that reached this
	 * adapter (propagate → NotificationOnly update) and the arrows from the other adapter's
	 * row. */
	FSV_ROW_XFENCE,
	/* Counter tracks (issue 15 §4, fsv-counters.h), thin rows: an engine's busy fraction,
	 * first child of its engine after its F-state row; a queue's depth, right after its queue
	 * row (same parent: the queue row is the row before it). */
	FSV_ROW_BUSY,
	FSV_ROW_DEPTH,
	/* Issue 16 §3: a display's frames (fsa/frames.h, docs/analyzer.md "Frames"), one box per
	 * frame from the vsync before it to the vsync that latched it, coloured by frame time
	 * against the display's budget; pending presents from flip_queued on. Right after its
	 * display row (same parent: the display row is the row before it), only when the display
	 * has frames (fsv-frames.h). */
	FSV_ROW_FRAMES,
} FsvRowKind;

/* Lanes of a VA space row's mappings: as many as its most mappings alive at once need, up to
 * this many (issue 15 §2: four lanes drew a fifth and sixth mapping over others). */
#define FSV_VA_MAX_LANES 16

/* One timeline row. Rows are stored in display order (a parent before its children). */
typedef struct {
	FsvRowKind kind;
	guint32 parent; /* row index of the group it belongs to, FSV_INDEX_NONE at top level */
	guint depth;    /* 0 for top-level rows */
	char *label;    /* e.g. "HWQueue 0x1001 · pid 42 game · ctx 0x20" */
	char *sublabel; /* a second, shorter line (engine type, counts), "" when none */
	guint32 adapter_id, engine_id, process_id; /* UINT32_MAX when not applicable */
	guint32 source_id;                         /* display rows, else UINT32_MAX */
	guint64 hwqueue_handle, context_handle, fence_global_handle; /* 0 when not applicable */
	/* Boxes of one row may overlap in time (a queue holds many queued operations at once):
	 * they are spread over lane_count lanes, as many as the row's deepest instant needs
	 * (1 ≤ lane_count ≤ FSV_MAX_LANES), so that no box lies under another: waits in lanes
	 * [0, first_lower_lane), signals in [first_lower_lane, lane_count) (first_lower_lane is
	 * lane_count when a row has no signals; engine rows: packets, every lane "upper"). The
	 * view shows a row collapsed (at most FSV_COLLAPSED_LANES lanes, "+k more") or expanded
	 * (fsv_view_set_row_lanes_expanded(), docs/viewer.md "Lanes"). */
	guint lane_count;
	guint first_lower_lane;
	guint32 op_count, packet_count, marker_count;
	/* Queue rows whose doorbell has a connection state (doorbell_state or doorbell_connected
	 * markers): a band under the tick strip shows it. */
	bool has_doorbell_band;
	/* Engine rows with preemptions, resubmitted pieces or TDR stages: a strip above the
	 * lanes carries the preemption brackets and the connectors between pieces. */
	bool has_event_strip;
	/* Fence rows: the smallest and largest CurrentValue of their steps. */
	guint64 value_min, value_max;
} FsvRow;

/* Lanes of one row at most (FsvOp.lane and FsvPacket.lane are 16-bit); past it, the lane that
 * frees first takes a box. */
#define FSV_MAX_LANES 65535
/* Lanes a collapsed row shows at most (half of them per half when it has waits and signals):
 * the last one of a half aggregates the lanes below it. */
#define FSV_COLLAPSED_LANES 6

/* Which kind of thing an index names. */
typedef enum {
	FSV_ITEM_NONE,
	FSV_ITEM_OP,         /* fence wait or signal box: fsv_trace_get_op() */
	FSV_ITEM_PACKET,     /* fsv_trace_get_packet() */
	FSV_ITEM_MARKER,     /* fsv_trace_get_marker() */
	FSV_ITEM_LOSS,       /* fsv_trace_get_loss() */
	FSV_ITEM_FENCE_STEP, /* a CurrentValue step on a fence row: index into that row's steps */
	FSV_ITEM_ROW,        /* a row label (index is the row) */
	/* The aggregated slot of a collapsed row ("+k more", docs/viewer.md "Lanes"): index is
	 * its first lane; clicking it expands the row's lanes. */
	FSV_ITEM_LANES,
	/* A point of a counter row (fsv-counters.h): on a depth row the change point in force
	 * (index into the row's points); on a busy row 2k + 1 for busy interval k, 2k for the
	 * idle gap before it. */
	FSV_ITEM_COUNTER,
	/* A frame of a display (fsv_trace_get_frame(), fsv-frames.h), drawn on its frames row. */
	FSV_ITEM_FRAME,
} FsvItemKind;

typedef struct {
	FsvItemKind kind;
	guint32 index;
	guint32 row; /* the row it is drawn on, FSV_INDEX_NONE for whole-width items */
} FsvItem;

/*
 * One fence operation, as the analyzer closed it (struct fsa_op, compacted). begin_ns/end_ns is
 * the span the timeline draws: [queued, end] for observed boxes; [inferred_begin, inferred_end]
 * for inferred ones; [queued, last event of the trace] for never-completed ones; [observed or
 * end, end] for unqueued ones.
 */
typedef struct {
	guint64 begin_ns, end_ns;
	guint64 queued_ns, observed_ns, op_end_ns; /* the model's queued_ns, observed_ns, end_ns */
	guint64 fence_handle, fence_global_handle, fence_value;
	guint64 progress_value;
	guint64 observed_gpu_ts, end_gpu_ts, log_position;
	guint64 observed_value; /* CPU waits */
	guint64 id;             /* the analyzer's op id */
	guint64 hwqueue_handle;
	guint32 signal_op; /* waits: index of the signal that released it, FSV_INDEX_NONE */
	guint32 row;       /* its row (queue or CPU process) */
	guint32 process_id;
	guint32 adapter_id, engine_id;
	guint8 kind;            /* enum fsa_op_kind */
	guint8 source;          /* enum fsa_op_source */
	guint8 state;           /* enum fsa_op_state */
	guint8 cpu_wait_result; /* FSTP_CPU_WAIT_RESULT_* */
	guint16 lane;           /* its lane in its row (FsvRow.lane_count) */
} FsvOp;

typedef struct {
	guint64 queued_ns, start_ns, end_ns; /* end_ns: end of trace when it never ended */
	guint64 start_gpu_ts, end_gpu_ts;
	guint64 packet_id, resubmission_of, progress_value;
	guint64 hwqueue_handle;
	guint32 row; /* the engine row */
	/* A preempted packet runs as pieces (PRE-06, PRE-07): the piece this one resubmits and
	 * the piece that resubmits it (packet indexes, FSV_INDEX_NONE when none), joined by
	 * (adapter, packet id) ↔ (adapter, resubmission_of). */
	guint32 prev_piece, next_piece;
	/* The DMA fence id the scheduler gave it (format 1.4, 0 unknown): a resubmitted paging
	 * piece keeps its earlier piece's, others get a new one. */
	guint64 fence_id;
	guint64 context_handle; /* 0 when unknown */
	bool is_context_switch; /* a zero-length context-switch buffer (PRE-05) */
	guint32 adapter_id, engine_id;
	guint8 status; /* enum fsa_packet_status */
	bool is_user_mode, is_paging;
	guint16 lane; /* its lane in its engine row */
} FsvPacket;

typedef struct {
	guint64 begin_ns, end_ns; /* end_ns: end of trace for an interval still open */
	guint64 hwqueue_handle, context_handle, doorbell_handle, other_handle;
	guint64 value;
	gint64 code;
	guint64 latency_ns;
	guint64 value2; /* the model's kind-specific second value and code (format 1.4) */
	gint64 code2;
	/* Queue row, else engine row, else adapter row; engine_f1 on its engine's F-state row,
	 * device_d3 on its adapter's D-state row; context_suspended and context_error on the first
	 * queue row of its context (and drawn on every queue row of that context), device_lost
	 * likewise on the queue rows of its process; vsync and flip on their display row. */
	guint32 row;
	guint32 adapter_id, engine_id, process_id;
	guint8 kind;  /* enum fsa_marker_kind */
	bool is_open; /* the model gave FSA_TIME_NONE as its end */
	/* Flips on a display row: the sub-lane (0 or 1) a flip is drawn in, so that a flip queued
	 * while another is pending does not hide it. */
	guint8 lane;
	/* Vsyncs: no new frame was latched although the display's presenter was presenting
	 * (between its first and its last flip): the previous frame was shown again. */
	bool is_missed;
} FsvMarker;

typedef struct {
	struct fsa_loss loss; /* as the model reported it */
	/* The queue row of an overrun, FSV_INDEX_NONE for tracer discards (drawn across every
	 * row). begin_ns/end_ns: the range drawn hatched (the whole trace when unknown). */
	guint32 row;
	guint64 begin_ns, end_ns;
} FsvLoss;

/* FsvFenceStep.op of a progress fence's step to a completed command buffer's value. */
#define FSV_STEP_BUFFER_COMPLETED (FSV_INDEX_NONE - 1)
/* FsvFenceStep.op of a cross-adapter fence row's step to a value another adapter signalled and
 * the OS propagated here (XAD-07); FsvFenceStep.marker names the propagation. */
#define FSV_STEP_PROPAGATED (FSV_INDEX_NONE - 2)

/* A point of a fence's CurrentValue: from ns on, the fence is known to be at value. */
typedef struct {
	guint64 ns;
	guint64 value;
	/* The signal or CPU wait that showed it, FSV_STEP_BUFFER_COMPLETED for a progress fence's
	 * command buffer that completed, FSV_STEP_PROPAGATED for a propagation from another
	 * adapter, FSV_INDEX_NONE for the initial value. */
	guint32 op;
	guint32 marker; /* FSV_STEP_PROPAGATED: the propagation marker, else FSV_INDEX_NONE */
} FsvFenceStep;

typedef struct _FsvTrace FsvTrace;

/*
 * Progress of fsv_trace_load(): events read so far and the fraction in [0, 1] (negative when
 * the reader cannot tell). Called from the loading thread, about every 64k events.
 */
typedef void (*FsvTraceProgressFunc)(guint64 events, double fraction, gpointer user_data);

/*
 * Reads PATH (a trace folder, a folder above traces, or net:// URL) and builds the index.
 * Thread-safe: call it from a worker thread. Cancelling CANCELLABLE stops reading at the next
 * progress point and returns NULL with G_IO_ERROR_CANCELLED.
 *
 * A damaged trace (FSV_TRACE_ERROR_TRACE) still yields a trace: what was read before the damage
 * is returned with the error set in fsv_trace_get_partial_error() and *error left unset.
 *
 * Returns: (transfer full) (nullable): the trace, or NULL with *error set (one line, starting
 * with the path).
 */
FsvTrace *fsv_trace_load(const char *path, FsvTraceProgressFunc progress, gpointer user_data,
			 GCancellable *cancellable, GError **error);

FsvTrace *fsv_trace_ref(FsvTrace *trace);
void fsv_trace_unref(FsvTrace *trace);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvTrace, fsv_trace_unref)

/* Returns: (transfer none): the path given to fsv_trace_load(). */
const char *fsv_trace_get_path(const FsvTrace *trace);
/* Returns: (transfer none): a short name for titles (the trace folder's base name). */
const char *fsv_trace_get_name(const FsvTrace *trace);
/* Returns: (transfer none) (nullable): why the trace is partial (damaged), NULL when whole. */
const char *fsv_trace_get_partial_error(const FsvTrace *trace);
/*
 * Returns: (transfer none) (nullable): why GPU times are not on the trace clock, or only
 * approximately (docs/analyzer.md "GPU time", mismatched clocks); NULL when they are.
 */
const char *fsv_trace_get_clock_warning(const FsvTrace *trace);

/* First and last event of the trace (0, 0 for a trace without events). */
guint64 fsv_trace_get_begin_ns(const FsvTrace *trace);
guint64 fsv_trace_get_end_ns(const FsvTrace *trace);

/* Returns: (transfer none): the model's summary, copied (runtime_version owned by the trace). */
const struct fsa_summary *fsv_trace_get_summary(const FsvTrace *trace);
/* The ingest's counts (events read, traces found). */
const struct fsa_ingest_stats *fsv_trace_get_ingest_stats(const FsvTrace *trace);

guint fsv_trace_get_row_count(const FsvTrace *trace);
const FsvRow *fsv_trace_get_row(const FsvTrace *trace, guint32 row);
/* The queue row of a HWQueue handle, FSV_INDEX_NONE when the trace has no such queue. */
guint32 fsv_trace_find_queue_row(const FsvTrace *trace, guint64 hwqueue_handle);
/* The fence row of a global fence handle, FSV_INDEX_NONE when none. */
guint32 fsv_trace_find_fence_row(const FsvTrace *trace, guint64 fence_global_handle);

guint fsv_trace_get_op_count(const FsvTrace *trace);
const FsvOp *fsv_trace_get_op(const FsvTrace *trace, guint32 op);
/* The index of the analyzer op id, FSV_INDEX_NONE when none. */
guint32 fsv_trace_find_op_by_id(const FsvTrace *trace, guint64 op_id);
/* Operations of a row sorted by begin_ns. Returns: (transfer none): *n_ops indexes. */
const guint32 *fsv_trace_get_row_ops(const FsvTrace *trace, guint32 row, guint *n_ops);

guint fsv_trace_get_packet_count(const FsvTrace *trace);
const FsvPacket *fsv_trace_get_packet(const FsvTrace *trace, guint32 packet);
/* Packets of an engine row, sorted by start_ns. */
const guint32 *fsv_trace_get_row_packets(const FsvTrace *trace, guint32 row, guint *n_packets);

guint fsv_trace_get_marker_count(const FsvTrace *trace);
const FsvMarker *fsv_trace_get_marker(const FsvTrace *trace, guint32 marker);
/* Markers of a row sorted by begin_ns. */
const guint32 *fsv_trace_get_row_markers(const FsvTrace *trace, guint32 row, guint *n_markers);

guint fsv_trace_get_loss_count(const FsvTrace *trace);
const FsvLoss *fsv_trace_get_loss(const FsvTrace *trace, guint32 loss);

/* CurrentValue steps of a fence row, sorted by time. */
const FsvFenceStep *fsv_trace_get_fence_steps(const FsvTrace *trace, guint32 row, guint *n_steps);

/* Signal → wait edges. For a signal: the waits it released; for a wait: its signal (at most
 * one). Returns: (transfer none): *n op indexes. */
const guint32 *fsv_trace_get_op_edges(const FsvTrace *trace, guint32 op, guint *n);

guint fsv_trace_get_anomaly_count(const FsvTrace *trace);
const struct fsa_anomaly *fsv_trace_get_anomaly(const FsvTrace *trace, guint32 anomaly);

guint fsv_trace_get_process_count(const FsvTrace *trace);
const struct fsa_process_info *fsv_trace_get_process(const FsvTrace *trace, guint index);
const struct fsa_process_info *fsv_trace_find_process(const FsvTrace *trace, guint32 process_id);
const struct fsa_queue_info *fsv_trace_find_queue(const FsvTrace *trace, guint64 hwqueue_handle);
/* The queues in the model's order (fsa_model_borrow_queue). */
guint fsv_trace_get_queue_count(const FsvTrace *trace);
const struct fsa_queue_info *fsv_trace_get_queue(const FsvTrace *trace, guint index);
/* A hardware context (its process, device, priority, time slice, error) and an engine (its
 * declared preemption granularities), as the model gives them (format 1.4); NULL when the trace
 * has no such context or engine_describe. */
const struct fsa_context_info *fsv_trace_find_context(const FsvTrace *trace,
						      guint64 context_handle);
const struct fsa_engine_info *fsv_trace_find_engine(const FsvTrace *trace, guint32 adapter_id,
						    guint32 engine_id);
/* GPU ticks of an adapter as a duration in ns (its clock fit's rate, else its nominal
 * frequency); false when the trace does not know the adapter's counter. */
bool fsv_trace_ticks_to_ns(const FsvTrace *trace, guint32 adapter_id, guint64 ticks, guint64 *ns);
const struct fsa_fence_info *fsv_trace_find_fence(const FsvTrace *trace,
						  guint64 fence_global_handle);
/* A process's GPU VA space on an adapter as the model counted it (format 1.5), NULL when the
 * trace has none. */
const struct fsa_va_space_info *fsv_trace_find_va_space(const FsvTrace *trace, guint32 process_id,
							guint32 adapter_id);
/* The VA space row of a process on an adapter, FSV_INDEX_NONE when none. */
guint32 fsv_trace_find_va_row(const FsvTrace *trace, guint32 process_id, guint32 adapter_id);
/* The row of a cross-adapter fence under an adapter, FSV_INDEX_NONE when none. */
guint32 fsv_trace_find_xfence_row(const FsvTrace *trace, guint64 fence_global_handle,
				  guint32 adapter_id);
/* What a fence is on an adapter (FSTP_FENCE_OBJECT_*: its creator's fence_object there, else
 * what a cross-adapter open made it); FSTP_FENCE_OBJECT_NATIVE when the trace does not say. */
guint8 fsv_trace_get_fence_object(const FsvTrace *trace, guint64 fence_global_handle,
				  guint32 adapter_id);
guint fsv_trace_get_clock_fit_count(const FsvTrace *trace);
const struct fsa_clock_fit *fsv_trace_get_clock_fit(const FsvTrace *trace, guint index);

/*
 * Trace ns → GPU ticks of an adapter (the inverse of the least-squares fit). Returns false
 * without a clock fit for the adapter.
 */
bool fsv_trace_trace_to_gpu(const FsvTrace *trace, guint32 adapter_id, guint64 ns, guint64 *gpu_ts);

/*
 * Every field of an item, for a details panel or a tooltip: a NULL-terminated array of
 * alternating names and values ("Kind", "wait", "Queued", "1.234 567 ms (GPU 123456)", …),
 * durations and both trace and GPU times included.
 *
 * Returns: (transfer full): free with g_strfreev().
 */
char **fsv_trace_describe_item(const FsvTrace *trace, const FsvItem *item);
/*
 * The same fields, and in *links (transfer full) one FsvItem per field (name, value pair): the
 * item the field's value names ("Released by" → the signal op, "Wait" → each wait released,
 * "Packet" → an op's command buffer, "Operations" → a packet's ops, "Resubmission of" /
 * "Resubmitted as" → the other pieces of a preempted packet), kind FSV_ITEM_NONE for the
 * others. The details pane makes them links. FRAME_BUDGET_NS: a frame's budget given
 * (fsv_view_get_frame_budget()), 0 its display's vsync period.
 */
char **fsv_trace_describe_item_with_links(const FsvTrace *trace, const FsvItem *item,
					  guint64 frame_budget_ns, GArray **links);
/* Returns: (transfer full): a one-line title for an item ("Wait fence 0x12 ≥ 5"). */
char *fsv_trace_dup_item_title(const FsvTrace *trace, const FsvItem *item);

/* The search language (fsv_query_*, fsv_trace_find_ops, fsv_trace_find_next_op) is in
 * fsv-query.h. */

/*
 * Formats a duration with an adaptive unit ("850 ns", "12.5 µs", "3.210 ms", "1.500 s").
 * Returns: (transfer full).
 */
char *fsv_format_duration(guint64 ns);
/* Formats a trace time relative to the trace's begin ("+1.234 567 ms"). Returns: (transfer
 * full). */
char *fsv_trace_format_time(const FsvTrace *trace, guint64 ns);

G_END_DECLS

#endif /* FSV_TRACE_H */
