/* SPDX-License-Identifier: MIT */
/*
 * analyzer/model: normalized events in (fsa/event.h), timeline out. It rebuilds per-HWQueue fence
 * wait and signal boxes, signal → wait dependency edges, packets per engine, doorbell, power,
 * suspend, preemption and TDR timelines, lost data (fence log overruns and tracer discards) and
 * anomalies, as docs/trace-format.md "How a fence box is rebuilt" describes.
 *
 * It streams: each finished item goes to the sink's callbacks as soon as it is final, and the
 * model forgets it. Memory grows with live objects (queues, fences, operations still open,
 * operations waiting for a clock correlation pair), not with trace length. Queues, fences,
 * processes and clock fits are kept for the whole analysis (they are few) and can be looked up
 * while the model lives.
 *
 * All times are trace-clock nanoseconds; FSA_TIME_NONE means "not known". Raw GPU ticks are kept
 * beside the mapped times so a user can check the mapping.
 */
#ifndef FSA_MODEL_H
#define FSA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsa/event.h"
#include "fsa/export.h"

#define FSA_TIME_NONE UINT64_MAX

typedef enum fsa_status {
	FSA_OK = 0,
	FSA_ERR_NOMEM = -1,
	FSA_ERR_INVALID = -2,
	/* The trace's format major version is newer than the one this analyzer reads. */
	FSA_ERR_FORMAT_VERSION = -3,
	FSA_ERR_IO = -4,
	/* The trace cannot be decoded (truncated, corrupt, not a CTF trace). */
	FSA_ERR_TRACE = -5,
	FSA_ERR_CANCELLED = -6,
} fsa_status;

FSA_API const char *fsa_status_string(fsa_status status);

struct fsa_process_info {
	uint32_t process_id;
	const char *name; /* owned by the model; "" when unknown */
	uint64_t created_ns, terminated_ns;
	bool is_abnormal_termination;
};

struct fsa_queue_info {
	uint64_t hwqueue_handle;
	uint32_t process_id;
	uint64_t context_handle;
	uint32_t adapter_id;
	uint32_t engine_id;
	uint8_t engine_type; /* FSTP_ENGINE_TYPE_*, UINT8_MAX when no engine_describe */
	bool is_user_mode;
	uint32_t ring_size_bytes;
	uint64_t progress_fence_handle;
	uint64_t created_ns, destroyed_ns;
	/* Totals known so far (final after fsa_model_finish). */
	uint64_t wait_count, signal_count, packet_count;
};

/*
 * A hardware context (fencescope_os:context_create) with its scheduling parameters
 * (fencescope_os:context_schedule, PRE-15; format 1.4) and its error state
 * (fencescope_os:context_error, TDR-04).
 */
struct fsa_context_info {
	uint64_t context_handle;
	uint32_t process_id;
	uint64_t device_handle;
	uint32_t adapter_id; /* UINT32_MAX when its device's adapter is unknown */
	uint32_t engine_id;
	/* The latest context_schedule (final after fsa_model_finish); has_schedule false when
	 * the trace has none (format 1.3 and before: equal priorities, run to completion). */
	bool has_schedule;
	uint32_t priority;       /* 0 (lowest) to 31 */
	uint64_t time_slice_ns;  /* 0: run to completion */
	uint32_t schedule_count; /* context_schedule events seen */
	/* The lowest and highest priority any of them gave (a context may be re-scheduled, as a
	 * scenario's teardown does). */
	uint32_t priority_min, priority_max;
	uint64_t created_ns, destroyed_ns;
	/* The first context_error: FSA_TIME_NONE when never in error; reason FSTP_LOSS_REASON_*. */
	uint64_t error_ns;
	uint8_t error_reason;
};

/* An engine as its engine_describe says (format 1.4 adds the compute granularity and
 * PreemptionAware; 0 in older traces). */
struct fsa_engine_info {
	uint32_t adapter_id, engine_id;
	uint8_t engine_type; /* FSTP_ENGINE_TYPE_* */
	bool ums_supported;
	uint16_t preempt_granularity;         /* graphics, FSTP_PREEMPT_GRANULARITY_* */
	uint16_t compute_preempt_granularity; /* compute, FSTP_PREEMPT_GRANULARITY_* */
	bool is_preemption_aware;
};

struct fsa_fence_info {
	uint64_t fence_global_handle;
	uint32_t adapter_id;
	uint32_t creator_process_id;
	uint64_t creator_fence_handle;
	uint8_t fence_type; /* FSTP_FENCE_TYPE_* */
	bool is_shared, is_cross_adapter;
	bool is_progress_fence;
	uint64_t initial_value;
	/* The highest value the trace shows it reached (signals, scans, CPU waits' observed). */
	uint64_t last_value;
	uint64_t final_value; /* at fence_destroy, else last_value */
	uint64_t created_ns, destroyed_ns;
	uint64_t wait_count, signal_count;
	/* Format 1.5 (XAD-10, XAD-11): what it is on its creator's adapter (FSTP_FENCE_OBJECT_*;
	 * NATIVE in older traces), its opens on other adapters (fencescope_os:
	 * fence_cross_adapter_open; fsa_model_borrow_cross_open), and the propagations of its
	 * signals to another adapter (fencescope_os:fence_propagate, XAD-07) and the
	 * NotificationOnly updates (fencescope_kmd:update_current_value, XAD-08) seen so far. */
	uint8_t fence_object;
	uint32_t cross_open_count;
	uint64_t propagation_count, notification_count;
};

/* A fence opened on another adapter than its creator's (fencescope_os:fence_cross_adapter_open;
 * format 1.5): what it is there. */
struct fsa_cross_open {
	uint64_t ts_ns;
	uint32_t process_id;
	uint64_t fence_handle; /* process-local */
	uint32_t adapter_id, creator_adapter_id;
	uint8_t created_as, opened_as; /* FSTP_FENCE_OBJECT_* */
};

/*
 * A process's GPU virtual address space on one adapter (format 1.5, GpuMmu): what its
 * va_space_create said, and what happened in it so far (final after fsa_model_finish). Made by
 * va_space_create, or by the first VA event of a (process, adapter) the trace never created.
 * Index [0] of the *_by_page_size arrays is 4 KB pages, [1] 64 KB, [2] any other size;
 * *_by_segment is indexed by FSTP_SEGMENT_* (SYSTEM 0, LOCAL 1).
 */
struct fsa_va_space_info {
	uint32_t adapter_id, process_id;
	uint64_t created_ns, destroyed_ns; /* FSA_TIME_NONE when not in the trace */
	uint64_t va_size_bytes;
	uint32_t page_table_levels;
	uint32_t root_entry_count;     /* at creation */
	uint32_t root_entry_count_max; /* the largest the root grew to */
	/* VA ranges (MMU-06): reserve / free and the bytes reserved now and at most. */
	uint64_t reserve_count, free_count, reserve_os_picked_count;
	uint64_t reserved_bytes, reserved_bytes_peak;
	/* Mappings (MMU-04, 06, 07, 11, 12): map / unmap calls, the bytes mapped now (at the end
	 * after fsa_model_finish) and at most, by page size and by segment. */
	uint64_t map_count, unmap_count, map_os_picked_count;
	uint64_t mapped_bytes, mapped_bytes_peak;
	uint64_t map_count_by_page_size[3];
	uint64_t mapped_bytes_by_page_size[3], mapped_bytes_peak_by_page_size[3];
	uint64_t map_count_by_segment[2];
	uint64_t mapped_bytes_by_segment[2], mapped_bytes_peak_by_segment[2];
	/* Page tables (MMU-02, MMU-03): created, destroyed, live now and at most, root resizes,
	 * residency changes (made resident / evicted), KMD updates and the entries they wrote
	 * (valid) or invalidated. */
	uint64_t page_tables_created, page_tables_destroyed;
	uint64_t page_tables_live, page_tables_live_peak;
	uint64_t root_resizes;
	uint64_t page_tables_made_resident, page_tables_evicted;
	uint64_t page_table_updates, entries_written, entries_invalidated;
	/* GPU page faults of this process on this adapter the OS handled
	 * (fencescope_os:page_fault). */
	uint64_t page_faults;
};

/* GPU → trace time for one adapter (docs/trace-format.md "GPU time to trace time"). */
struct fsa_clock_fit {
	uint32_t adapter_id;
	uint64_t pair_count;
	uint64_t nominal_hz;
	/* Least squares over all pairs: trace_ns = offset_ns + ns_per_tick × gpu_ts. */
	double offset_ns;
	double ns_per_tick;
	/* Residuals of the pairs against that line. Mapping itself is piecewise between pairs. */
	double residual_rms_ns;
	double residual_max_ns;
	/* The first pair, exactly: map relative to it (trace_ns = anchor_cpu_ns + ns_per_tick ×
	 * (gpu_ts − anchor_gpu_ts)) to keep nanoseconds, which offset_ns as a double near 2^60
	 * cannot (its step is 256 ns). */
	uint64_t anchor_cpu_ns;
	uint64_t anchor_gpu_ts;
	/* The counter's drift against nominal_hz, from the fit (0 with a single pair). */
	double drift_ppm;
	/* GPU times mapped outside the pairs (past the last or before the first): extrapolated,
	 * each off by at most its distance × the change in drift. None when the runtime's pair at
	 * shutdown closes the trace. */
	uint64_t extrapolated_count;
	uint64_t extrapolated_max_ns; /* the farthest such distance, trace ns */
};

enum fsa_op_kind {
	FSA_OP_WAIT,
	FSA_OP_SIGNAL,
};

/* Where an operation ran. */
enum fsa_op_source {
	FSA_SRC_USER_MODE_QUEUE,   /* closed by a fence log entry (GPU time) */
	FSA_SRC_KERNEL_MODE_QUEUE, /* closed by an OS software command (CPU time) */
	FSA_SRC_CPU,               /* cpu_wait_begin/end or cpu_signal: no queue */
};

enum fsa_op_state {
	/* Queued and closed by its log entry or OS event: both ends observed. */
	FSA_OP_OBSERVED,
	/* Its log entry was lost to an overrun; the fallback scan proves it happened, between
	 * inferred_begin_ns and inferred_end_ns (GPV-08). */
	FSA_OP_INFERRED,
	/* Queued, never closed by the end of the trace (for waits: a hang candidate). */
	FSA_OP_NEVER_COMPLETED,
	/* Closed by a log entry whose queued event the trace does not have. */
	FSA_OP_UNQUEUED,
};

struct fsa_op {
	uint64_t id; /* unique in one analysis, in the order operations are closed */
	enum fsa_op_kind kind;
	enum fsa_op_source source;
	enum fsa_op_state state;
	uint64_t hwqueue_handle; /* 0 for FSA_SRC_CPU */
	uint32_t process_id;
	uint32_t adapter_id, engine_id; /* UINT32_MAX when unknown */
	uint64_t fence_handle;          /* process-local */
	uint64_t fence_global_handle;   /* 0 when the trace never mapped the local handle */
	uint64_t fence_value;
	uint64_t progress_value; /* of the command buffer; 0 for CPU operations */
	uint64_t queued_ns;      /* opens the box; FSA_TIME_NONE for FSA_OP_UNQUEUED */
	/* Waits on user-mode queues: when the GPU reached the wait (end of the "queued" phase and
	 * start of "stalled on GPU"). FSA_TIME_NONE when the entry says 0 (one phase). */
	uint64_t observed_ns;
	uint64_t end_ns; /* closes the box; FSA_TIME_NONE unless OBSERVED or UNQUEUED */
	uint64_t inferred_begin_ns, inferred_end_ns; /* FSA_OP_INFERRED only */
	uint64_t observed_gpu_ts, end_gpu_ts;        /* raw log entry ticks, 0 when none */
	uint64_t log_position;                       /* absolute entry position, UINT64_MAX none */
	/* CPU waits only: how the wait ended (FSTP_CPU_WAIT_RESULT_*), observed CurrentValue. */
	uint8_t cpu_wait_result;
	uint64_t observed_value;
	/* Waits: the signal that released it (GPV-07), 0 when not known. */
	uint64_t signal_op_id;
};

/* Signal → wait dependency, joined on (fence_global_handle, value) across queues (GPV-07). */
struct fsa_edge {
	uint64_t signal_op_id, wait_op_id;
	uint64_t fence_global_handle;
	uint64_t signal_value, wait_value;
	enum fsa_op_source signal_source, wait_source;
	uint64_t signal_hwqueue_handle, wait_hwqueue_handle; /* 0 for CPU */
	uint32_t signal_process_id, wait_process_id;
	uint64_t signal_end_ns, wait_end_ns;
	/* Where each side ran (UINT32_MAX for CPU operations and unknown queues): a signal on one
	 * adapter may release a wait on another (cross-adapter fences, XAD-07; format 1.5). */
	uint32_t signal_adapter_id, wait_adapter_id;
};

enum fsa_packet_status {
	FSA_PACKET_COMPLETED = 0, /* = FSTP_PACKET_STATUS_* */
	FSA_PACKET_PREEMPTED = 1,
	FSA_PACKET_FAULTED = 2,
	FSA_PACKET_ABORTED = 3,
	FSA_PACKET_NEVER_ENDED = 255,
};

/* One execution of a packet (a DMA packet or a ring submission) on an engine. A preempted
 * packet that is resubmitted appears once per piece, linked by resubmission_of. */
struct fsa_packet {
	uint32_t adapter_id, engine_id;
	uint64_t hwqueue_handle;
	uint64_t packet_id;
	uint64_t resubmission_of;
	uint64_t progress_value;
	bool is_user_mode, is_paging;
	uint64_t queued_ns; /* submit_command / packet_queued / ring_write; FSA_TIME_NONE unknown */
	uint64_t start_ns, end_ns;
	uint64_t start_gpu_ts, end_gpu_ts;
	enum fsa_packet_status status;
	/* From packet_queued (format 1.4): the DMA fence id the scheduler gave it (a resubmitted
	 * paging packet keeps its original one, PRE-06; others get a new one, PRE-07), 0 when
	 * unknown; a zero-length context-switch buffer (PRE-05). */
	uint64_t fence_id;
	bool is_context_switch;
	/* The context the packet ran for (its queue's, or packet_queued's), 0 when unknown. */
	uint64_t context_handle;
};

enum fsa_marker_kind {
	/* Instants (end_ns == begin_ns). */
	FSA_MARK_DOORBELL_RING,       /* value = write pointer, code = doorbell status */
	FSA_MARK_DOORBELL_CREATE,     /* code = status */
	FSA_MARK_DOORBELL_CONNECT,    /* value = physical doorbell, code = status */
	FSA_MARK_DOORBELL_DISCONNECT, /* value = physical doorbell, code = disconnect reason */
	FSA_MARK_DOORBELL_VICTIMIZE,  /* hwqueue = victim, other_handle = connecting queue */
	FSA_MARK_DOORBELL_DESTROY,
	FSA_MARK_ENGINE_RESET, /* code = is_success */
	/* fencescope_hw:page_fault, on the engine: process_id, context_handle, value = gpu_va,
	 * code = fault type; format 1.5: value2 = the faulting packet, code2 = access
	 * (FSTP_ACCESS_KIND_*), hwqueue_handle = that packet's queue when the trace started it. */
	FSA_MARK_PAGE_FAULT,
	FSA_MARK_DEVICE_LOST, /* other_handle = device, code = loss reason */
	FSA_MARK_LOG_RESIZE,  /* value = new capacity, code = reason */
	FSA_MARK_CALL_FAILED, /* value = handle, code = status (sign-extended) */
	/* Intervals. */
	/* request → complete; value = packet, code = reason, code2 = the granularity reached
	 * (FSTP_PREEMPT_GRANULARITY_*; -1 while not completed), value2 = work_left_ticks
	 * (format 1.4). */
	FSA_MARK_PREEMPTION,
	/* tdr_begin → tdr_end; code = tdr result, value = reason, context_handle = the guilty
	 * context (format 1.4, 0 when none is known). */
	FSA_MARK_TDR,
	FSA_MARK_CONTEXT_SUSPENDED,  /* context_suspend → context_resume; code =
					FSTP_PREEMPT_REASON_* */
	FSA_MARK_ENGINE_F1,          /* engine in F1 */
	FSA_MARK_DEVICE_D3,          /* adapter in D3 */
	FSA_MARK_DOORBELL_CONNECTED, /* doorbell_connect (CONNECTED) → disconnect/destroy */
	/* A doorbell's status word holding one value: code = FSTP_DOORBELL_STATUS_*, value = the
	 * physical doorbell mapped while connected (UINT32_MAX otherwise). From doorbell_create
	 * (its status) through each fencescope_os:doorbell_status store that changes the word, to
	 * doorbell_destroy. Consecutive intervals of one doorbell tile its life. */
	FSA_MARK_DOORBELL_STATE,
	/* Format 1.4 (issue 13). Instants: */
	/* fencescope_os:tdr_detect: context_handle = the context running, value = stalled_ns,
	 * code = loss reason (TIMEOUT or ENGINE_HUNG). */
	FSA_MARK_TDR_DETECT,
	FSA_MARK_ADAPTER_RESET, /* code = is_success */
	/* fencescope_hw:vsync: engine_id = UINT32_MAX, other_handle = display (source_id),
	 * value = vsync_count, value2 = the flip that took effect (0 none). */
	FSA_MARK_VSYNC,
	/* fencescope_os:fault_injected (the fault injector's ground truth): engine_id,
	 * hwqueue_handle (0 none), code = fault kind (FSTP_FAULT_KIND_*), value = detail. */
	FSA_MARK_FAULT_INJECTED,
	/* Intervals: */
	/* context_error → that context's context_destroy (open at the trace end otherwise):
	 * process_id, context_handle, other_handle = device, engine_id from the context,
	 * code = loss reason. */
	FSA_MARK_CONTEXT_ERROR,
	/* flip_queued → flip_done of one flip: other_handle = display (source_id), value = flip id,
	 * process_id and context_handle from flip_queued, value2 = the vsync_count it took effect
	 * at (0 while pending). */
	FSA_MARK_FLIP,
	/* Interrupts (fault accounting, docs/analyzer.md "Interrupts the OS did not handle in
	 * time"): an interrupt_handled FSA_INTERRUPT_LATE_NS (1 ms) or more after its raise, from
	 * raise to handled (an interval), and a raise never handled (an instant at the raise):
	 * engine_id, hwqueue_handle, code = interrupt type. */
	FSA_MARK_INTERRUPT_LATE,
	FSA_MARK_INTERRUPT_UNHANDLED,
	/* Format 1.5 (issue 14: GpuMmu and cross-adapter fences; docs/analyzer.md "GpuMmu and
	 * cross-adapter fences"). Instants: */
	/* fencescope_os:page_fault, the OS's handling (MMU-14, TDR-06): adapter_id, engine_id,
	 * process_id, context_handle, value = gpu_va, code = fault type, code2 = access,
	 * value2 = scope (FSTP_FAULT_SCOPE_*: what the OS terminated), and from the engine's
	 * fencescope_hw:page_fault it answers (the latest of that engine not answered yet):
	 * other_handle = its packet, hwqueue_handle = that packet's queue, latency_ns = from the
	 * engine's fault to this (FSA_TIME_NONE without one). */
	FSA_MARK_PAGE_FAULT_HANDLED,
	/* fencescope_os:va_reserve / va_free (MMU-06): adapter_id, process_id, value = gpu_va,
	 * value2 = size_bytes; reserve: code = is_os_picked. */
	FSA_MARK_VA_RESERVE,
	FSA_MARK_VA_FREE,
	/* fencescope_kmd:update_current_value with notification_only (XAD-08): adapter_id,
	 * other_handle = global fence, value = fence value. */
	FSA_MARK_FENCE_NOTIFICATION,
	/* Intervals: */
	/* A GPU VA mapping (MMU-04, 06, 07): va_map → the va_unmap that covers it (open at the
	 * trace end otherwise). adapter_id, process_id, value = gpu_va, value2 = size_bytes,
	 * other_handle = allocation, code = segment (FSTP_SEGMENT_*), code2 = page_size_bytes.
	 * An unmap of part of a mapping ends it and
	 * opens the parts left mapped as new intervals from the unmap on. */
	FSA_MARK_VA_MAPPING,
	/* A cross-adapter fence signal propagated (XAD-07): fence_propagate → the
	 * NotificationOnly update_current_value of that fence and value on the adapter notified
	 * (open at the end without one; an instant, end_ns = begin_ns, to an adapter where the
	 * fence is a monitored fence: the OS makes no driver call there, XAD-14; code2 = 1 then,
	 * else 0). adapter_id = the adapter that signalled, code = the adapter notified,
	 * other_handle = global fence, value = fence value, value2 = the id of the signal operation
	 * that caused it (0 when not found). The waits it released are the edges that name that
	 * signal on the notified adapter. */
	FSA_MARK_FENCE_PROPAGATION,
	FSA_MARK_KIND_COUNT,
};

/* An interrupt handled this long after its raise or later is `interrupt_late`. */
#define FSA_INTERRUPT_LATE_NS UINT64_C(1000000)

/* Interval kinds (preemption through doorbell_state, context_error, flip, interrupt_late,
 * va_mapping, fence_propagation) have a duration;
 * the others are instants (end_ns == begin_ns). */
static inline bool
fsa_marker_kind_is_interval(enum fsa_marker_kind kind)
{
	return (kind >= FSA_MARK_PREEMPTION && kind <= FSA_MARK_DOORBELL_STATE) ||
	       kind == FSA_MARK_CONTEXT_ERROR || kind == FSA_MARK_FLIP ||
	       kind == FSA_MARK_INTERRUPT_LATE || kind == FSA_MARK_VA_MAPPING ||
	       kind == FSA_MARK_FENCE_PROPAGATION;
}

struct fsa_marker {
	enum fsa_marker_kind kind;
	uint64_t begin_ns, end_ns; /* end_ns FSA_TIME_NONE: still open at the end of the trace */
	uint32_t adapter_id, engine_id, process_id; /* UINT32_MAX when not applicable */
	uint64_t hwqueue_handle, context_handle, doorbell_handle, other_handle;
	uint64_t value;
	int64_t code;
	/* Doorbell connects after a disconnect: time since that queue's previous disconnect
	 * (the reconnect latency), FSA_TIME_NONE for a first connect. */
	uint64_t latency_ns;
	/* Kind-specific second value and code (format 1.4 kinds; 0 for the others). */
	uint64_t value2;
	int64_t code2;
};

enum fsa_loss_kind {
	FSA_LOSS_LOG_OVERRUN,    /* fence log entries overwritten before the OS read them */
	FSA_LOSS_TRACER_EVENTS,  /* discarded-events message */
	FSA_LOSS_TRACER_PACKETS, /* discarded-packets message */
	/* Fence log entries missing between two entries read (a hole in entry_position that no
	 * overrun explains: the tracer discarded them, or the reader skipped them). */
	FSA_LOSS_LOG_GAP,
	FSA_LOSS_KIND_COUNT,
};

/* Losses of one fence log of one queue (hwqueue_handle, log_type and the positions are set). */
static inline bool
fsa_loss_is_per_log(enum fsa_loss_kind kind)
{
	return kind == FSA_LOSS_LOG_OVERRUN || kind == FSA_LOSS_LOG_GAP;
}

struct fsa_loss {
	enum fsa_loss_kind kind;
	uint64_t count; /* entries, events or packets lost; 0 when the tracer did not count */
	/* The time range the lost data lies in (for an overrun: from the last entry of that log
	 * read before it to the overrun's read). FSA_TIME_NONE when unknown. */
	uint64_t begin_ns, end_ns;
	uint32_t adapter_id;
	uint64_t hwqueue_handle; /* overrun, gap */
	uint8_t log_type;        /* overrun, gap: FSTP_LOG_TYPE_* */
	/* Overrun: the position read up to and the header's. Gap: the first missing position and
	 * the position of the entry read after the gap. */
	uint64_t cached_position, new_position;
	/* Overrun, gap: fence operations of that queue and log marked inferred because of it. */
	uint64_t inferred_ops;
	/* Tracer: the stream and CPU. */
	uint64_t stream_id;
	uint32_t cpu_id;
	/* Overrun: when the OS's read found it (its first fencescope_os:fence_log_overrun; the
	 * range above is when the entries were lost). FSA_TIME_NONE for the other kinds. */
	uint64_t read_ns;
};

enum fsa_anomaly_kind {
	FSA_ANOM_TIMESTAMP_BACKWARDS,     /* trace timestamp below the previous event's */
	FSA_ANOM_ZERO_TIMESTAMP,          /* trace timestamp 0, or a log entry with end_gpu_ts 0 */
	FSA_ANOM_GPU_TIMESTAMP_BACKWARDS, /* a log's non-zero end_gpu_ts went down (LOG-22) */
	FSA_ANOM_OBSERVED_AFTER_END,      /* observed_gpu_ts > end_gpu_ts */
	FSA_ANOM_WAIT_NEVER_UNBLOCKED,    /* hang candidate */
	FSA_ANOM_SIGNAL_NEVER_EXECUTED,
	FSA_ANOM_VALUE_REGRESSION, /* a signal to a value below the fence's known value */
	FSA_ANOM_OP_ON_DESTROYED_FENCE,
	FSA_ANOM_LOG_ENTRY_WITHOUT_QUEUED,
	FSA_ANOM_QUEUED_WITHOUT_LOG_ENTRY, /* a user-mode op closed by nothing and not inferred */
	FSA_ANOM_END_BEFORE_QUEUED,        /* GPU end maps before the CPU queued time */
	FSA_ANOM_UNKNOWN_FENCE,            /* a handle no fence_create/fence_open named */
	FSA_ANOM_UNKNOWN_QUEUE,            /* a queue no hwqueue_create named */
	FSA_ANOM_NO_CLOCK_CORRELATION,     /* GPU times of an adapter without any pair */
	FSA_ANOM_TRACE_CLOCK_MISMATCH,     /* the trace clock is not the one the runtime sampled */
	FSA_ANOM_KIND_COUNT,
};

struct fsa_anomaly {
	enum fsa_anomaly_kind kind;
	uint64_t ts_ns; /* where in the trace it shows */
	uint32_t process_id;
	uint64_t hwqueue_handle;
	uint64_t fence_handle, fence_global_handle, fence_value;
	uint64_t op_id; /* the operation concerned, 0 if none */
	/* Kind-specific: previous and current timestamp, known and new value, … */
	uint64_t a, b;
};

/*
 * How GPU times were placed on the trace clock (docs/analyzer.md "GPU time"). CORRELATED: with
 * clock_correlation pairs on the trace clock, exact to the fit. EVENT_STAMPED: the trace clock is
 * a real clock but not the one the runtime sampled, so each pair's CPU side is its event's own
 * timestamp, late by the tracer's latency (µs). UNMAPPED: a sim-mode runtime recorded with a
 * real clock: virtual GPU times have no place on it, and boxes end where the OS read them.
 */
enum fsa_gpu_time {
	FSA_GPU_TIME_CORRELATED,
	FSA_GPU_TIME_EVENT_STAMPED,
	FSA_GPU_TIME_UNMAPPED,
};

struct fsa_summary {
	uint32_t format_major, format_minor; /* 0.0 when the trace has no trace_info */
	bool has_trace_info;
	uint8_t clock_mode;  /* FSTP_CLOCK_MODE_* */
	uint8_t trace_clock; /* enum fsa_trace_clock of the clock_correlation events */
	uint8_t gpu_time;    /* enum fsa_gpu_time */
	const char *runtime_version;
	uint64_t first_ns, last_ns; /* FSA_TIME_NONE without events */
	uint64_t event_count;
	uint64_t event_counts[FSA_EV_COUNT]; /* [FSA_EV_UNKNOWN]: events of other providers */
	uint64_t op_counts[3][2];            /* [source][kind] */
	uint64_t inferred_ops, never_completed_ops, unqueued_ops;
	uint64_t edge_count, packet_count;
	uint64_t log_entries_read, log_entries_lost, overrun_count;
	uint64_t log_entries_missing; /* in gaps of entry_position (FSA_LOSS_LOG_GAP) */
	uint64_t tracer_discarded_events, tracer_discarded_packets;
	uint64_t anomaly_counts[FSA_ANOM_KIND_COUNT];
	/* Mapped times moved by at most FSA_CLOCK_TOLERANCE (1 µs) to respect causality: a box's
	 * observed or end time before its queued time, a packet's start before its queued time or
	 * its end before its start, a wait's end before the signal that released it. */
	uint64_t clamped_times;
};

/*
 * A fence's CurrentValue seen to change without a fence operation box: a queue's progress fence
 * reaching the progress value of a command buffer that completed (HPF-02) — at the packet's GPU
 * end for a user-mode queue (packet_end COMPLETED; in a trace without the queue's packet_end, at
 * the progress fence write of its log, packet_id 0), when the OS saw it complete for a
 * kernel-mode queue (packet_complete). One per new value, in the order the model learns them.
 */
struct fsa_fence_value {
	uint64_t fence_global_handle;
	uint64_t value;
	uint64_t ts_ns;
	uint64_t hwqueue_handle; /* the queue whose progress fence it is */
	uint64_t packet_id;      /* the packet that completed */
};

/*
 * Callbacks get borrowed items, valid during the call. Any may be NULL. A callback that returns
 * non-FSA_OK stops the analysis: fsa_model_add_event() returns that status.
 */
struct fsa_model_sink {
	void *data;
	fsa_status (*op)(void *data, const struct fsa_op *op);
	fsa_status (*edge)(void *data, const struct fsa_edge *edge);
	fsa_status (*packet)(void *data, const struct fsa_packet *packet);
	fsa_status (*marker)(void *data, const struct fsa_marker *marker);
	fsa_status (*loss)(void *data, const struct fsa_loss *loss);
	fsa_status (*anomaly)(void *data, const struct fsa_anomaly *anomaly);
	fsa_status (*fence_value)(void *data, const struct fsa_fence_value *step);
};

struct fsa_model;

/* Returns: (transfer full) (nullable: out of memory). The sink is copied. */
FSA_API struct fsa_model *fsa_model_create(const struct fsa_model_sink *sink);
FSA_API void fsa_model_destroy(struct fsa_model *model);

/*
 * Feeds one event, in trace order. Returns FSA_ERR_FORMAT_VERSION for a trace_info whose major
 * version is newer than FSTP_FORMAT_MAJOR (the model then refuses further events), a sink's
 * status, or FSA_OK. Malformed input is an anomaly, never an error.
 */
FSA_API fsa_status fsa_model_add_event(struct fsa_model *model, const struct fsa_event *event);
/* False for the event types the model only counts (allocations, interrupts, the emulator's
 * ground truth, …): a reader may give those without fields (fsa_ingest_callbacks). */
FSA_API bool fsa_model_needs_payload(enum fsa_event_type type);
FSA_API fsa_status fsa_model_add_discard(struct fsa_model *model,
					 const struct fsa_discard *discard);
/* End of trace: flushes every open item (never completed, inferred, open intervals). */
FSA_API fsa_status fsa_model_finish(struct fsa_model *model);
/*
 * What the model holds and has not given out yet, given to SINK's op, packet and marker
 * callbacks as copies, without changing the model (issue 16 §4: a live session shown while it
 * records, viewer/core/fsv-live-reader.c): operations still open, and those closed but waiting
 * for a clock pair or their signal, as never completed (end FSA_TIME_NONE, no signal; an open
 * one gets an id after every id given so far, which the model may give another operation
 * later); packets started or ended and not given out; intervals still open, without an end.
 * No anomaly, loss or edge. A later fsa_model_finish() gives all of it out as it would have.
 * Returns a sink's status, or the model's failure.
 */
FSA_API fsa_status fsa_model_peek(const struct fsa_model *model, const struct fsa_model_sink *sink);

FSA_API const struct fsa_summary *fsa_model_borrow_summary(const struct fsa_model *model);

FSA_API size_t fsa_model_process_count(const struct fsa_model *model);
FSA_API const struct fsa_process_info *fsa_model_borrow_process(const struct fsa_model *model,
								size_t index);
FSA_API const struct fsa_process_info *fsa_model_find_process(const struct fsa_model *model,
							      uint32_t process_id);
/* Queues in creation order. */
FSA_API size_t fsa_model_queue_count(const struct fsa_model *model);
FSA_API const struct fsa_queue_info *fsa_model_borrow_queue(const struct fsa_model *model,
							    size_t index);
FSA_API const struct fsa_queue_info *fsa_model_find_queue(const struct fsa_model *model,
							  uint64_t hwqueue_handle);
/* Contexts in creation order (context_create, or first named by context_schedule). */
FSA_API size_t fsa_model_context_count(const struct fsa_model *model);
FSA_API const struct fsa_context_info *fsa_model_borrow_context(const struct fsa_model *model,
								size_t index);
FSA_API const struct fsa_context_info *fsa_model_find_context(const struct fsa_model *model,
							      uint64_t context_handle);
/* Engines in the order of their engine_describe. */
FSA_API size_t fsa_model_engine_count(const struct fsa_model *model);
FSA_API const struct fsa_engine_info *fsa_model_borrow_engine(const struct fsa_model *model,
							      size_t index);
FSA_API const struct fsa_engine_info *
fsa_model_find_engine(const struct fsa_model *model, uint32_t adapter_id, uint32_t engine_id);
/* Fences in creation order. */
FSA_API size_t fsa_model_fence_count(const struct fsa_model *model);
FSA_API const struct fsa_fence_info *fsa_model_borrow_fence(const struct fsa_model *model,
							    size_t index);
FSA_API const struct fsa_fence_info *fsa_model_find_fence(const struct fsa_model *model,
							  uint64_t fence_global_handle);
/* Cross-adapter opens of a fence (format 1.5), in trace order; NULL past the last. */
FSA_API const struct fsa_cross_open *fsa_model_borrow_cross_open(const struct fsa_model *model,
								 uint64_t fence_global_handle,
								 size_t index);
/* GPU VA spaces (format 1.5) in the order the trace made them (va_space_create, or a first VA
 * event of a process on an adapter). */
FSA_API size_t fsa_model_va_space_count(const struct fsa_model *model);
FSA_API const struct fsa_va_space_info *fsa_model_borrow_va_space(const struct fsa_model *model,
								  size_t index);
FSA_API const struct fsa_va_space_info *
fsa_model_find_va_space(const struct fsa_model *model, uint32_t process_id, uint32_t adapter_id);
FSA_API size_t fsa_model_clock_fit_count(const struct fsa_model *model);
FSA_API const struct fsa_clock_fit *fsa_model_borrow_clock_fit(const struct fsa_model *model,
							       size_t index);
/* GPU ticks of an adapter → trace ns with the mapping known so far; FSA_TIME_NONE without a
 * clock correlation pair for that adapter. */
FSA_API uint64_t fsa_model_gpu_to_trace(const struct fsa_model *model, uint32_t adapter_id,
					uint64_t gpu_ts);

FSA_API const char *fsa_op_kind_name(enum fsa_op_kind kind);         /* "wait", "signal" */
FSA_API const char *fsa_op_source_name(enum fsa_op_source source);   /* "user_mode", … */
FSA_API const char *fsa_op_state_name(enum fsa_op_state state);      /* "observed", … */
FSA_API const char *fsa_marker_kind_name(enum fsa_marker_kind kind); /* "doorbell_ring", … */
FSA_API const char *fsa_loss_kind_name(enum fsa_loss_kind kind);     /* "log_overrun", … */
FSA_API const char *fsa_anomaly_kind_name(enum fsa_anomaly_kind kind);
FSA_API const char *fsa_packet_status_name(enum fsa_packet_status status);
FSA_API const char *fsa_trace_clock_name(enum fsa_trace_clock clock); /* "monotonic", … */
FSA_API const char *fsa_gpu_time_name(enum fsa_gpu_time gpu_time);    /* "correlated", … */

#endif /* FSA_MODEL_H */
