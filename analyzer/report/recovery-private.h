/* SPDX-License-Identifier: MIT */
/*
 * The report's accumulators for scheduling, preemption, TDR, display and injected faults (trace
 * format 1.4, issue 13; docs/report-schema.md 2.2): report.c hands every packet, marker, loss
 * and operation in range to recovery.c, which keeps what the `preemption` tables of 2.2 and the
 * `tdr`, `display` and `faults` sections need; recovery_finish() assembles the TDR sequences and
 * accounts for the injected faults once the model has finished; tables.c prints them.
 */
#ifndef FSA_RECOVERY_PRIVATE_H
#define FSA_RECOVERY_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "fsa/model.h"
#include "quantile-private.h"

struct fsa_report;

/* Preemptions of one (adapter, engine, reason, granularity reached); granularity -1: never
 * completed. */
struct fsa_preempt_acc {
	uint32_t adapter_id, engine_id;
	int64_t reason, granularity;
	struct fsa_quantile latency; /* request → complete, completed ones only */
	uint64_t count;
};

/* Time slices (run intervals that ended with a TIME_SLICE preemption) of an engine or a
 * context. */
struct fsa_slice_acc {
	uint64_t key; /* first: the hash key (engine key, or context handle) */
	uint32_t adapter_id, engine_id;
	uint64_t context_handle; /* 0 for an engine */
	struct fsa_quantile length;
	uint64_t preempted; /* pieces preempted for any reason */
	uint64_t packets, resubmissions;
};

struct fsa_resubmission {
	uint32_t adapter_id, engine_id;
	uint64_t hwqueue_handle, packet_id, resubmission_of;
	uint64_t old_fence_id, new_fence_id; /* 0 when unknown */
	bool is_paging;
	uint64_t start_ns;
};

/* One display (adapter, source). */
#define FSA_VSYNC_RING 64
struct fsa_display_acc {
	uint64_t key; /* first: adapter << 32 | source */
	uint32_t adapter_id, source_id;
	uint64_t vsyncs, last_vsync_ns;
	struct fsa_quantile period;
	/* The latest vsyncs (time, vsync_count), for the vsync a flip was queued after. */
	uint64_t ring_ns[FSA_VSYNC_RING], ring_count[FSA_VSYNC_RING];
	size_t ring_next, ring_len;
	uint64_t flips, flips_done, flips_pending, missed;
	struct fsa_quantile latency; /* flip_queued → flip_done */
};

/* A TDR sequence, assembled at the end (docs/report-schema.md `tdr`). */
struct fsa_tdr_sequence {
	uint32_t adapter_id, engine_id;
	uint64_t detect_ns; /* FSA_TIME_NONE: a tdr_begin without tdr_detect */
	uint64_t stalled_ns;
	int64_t reason;
	uint64_t preempt_ns; /* the TDR preemption request, FSA_TIME_NONE: none */
	bool is_preempt_completed;
	uint64_t preempt_complete_ns;
	uint64_t begin_ns, end_ns; /* tdr_begin, tdr_end; FSA_TIME_NONE: none */
	int64_t result;            /* tdr result, -1 without tdr_end */
	int64_t engine_reset;      /* -1 none, else is_success */
	int64_t adapter_reset;     /* -1 none, else is_success */
	uint64_t guilty_context;
	uint32_t guilty_process; /* UINT32_MAX unknown */
	uint64_t contexts_in_error, devices_lost;
	uint64_t packets_lost, lost_gpu_ns;
	uint64_t guilty_unsignalled; /* signals of the guilty context never executed */
};

struct fsa_recovery {
	bool has_data;                              /* any format 1.4 item: the 2.2 tables appear */
	GArray *preempts;                           /* struct fsa_preempt_acc */
	GHashTable *slice_engines, *slice_contexts; /* key → fsa_slice_acc */
	/* key(adapter, packet): how many TIME_SLICE preemptions wait for their preempted piece,
	 * and the preempted pieces (a GQueue of struct piece) waiting for their preemption. */
	GHashTable *slice_markers, *preempted_pieces;
	GHashTable *preempted_fence_ids; /* key2(adapter, packet) → fence id + 1 */
	GArray *resubmissions;           /* the first --examples */
	uint64_t resubmission_count, resubmissions_same_fence_id, resubmissions_paging;
	uint64_t resubmissions_paging_same_fence_id;
	GHashTable *displays; /* key → fsa_display_acc */
	/* Kept whole (rare): TDR-related markers, ABORTED/FAULTED packets, the fault injector's
	 * faults and the effects the fault accounting looks for. */
	GArray *tdr_markers;  /* struct fsa_marker */
	GArray *lost_packets; /* struct fsa_packet */
	GArray *faults;       /* struct fsa_marker (fault_injected) */
	GArray *effects;      /* struct fsa_marker: late/unhandled interrupts, coarse preemptions */
	GArray *overruns;     /* struct fsa_loss (log overruns) */
	GHashTable *unsignalled; /* context handle → signals never executed */
	/* recovery_finish() */
	GArray *sequences; /* struct fsa_tdr_sequence */
	GArray *errors;    /* struct fsa_marker: every context_error, in trace order */
	uint64_t injected[8], accounted[8];
	GArray *unaccounted; /* struct fsa_marker (fault_injected) */
};

struct fsa_recovery *recovery_new(void);
void recovery_free(struct fsa_recovery *recovery);
fsa_status recovery_on_op(struct fsa_report *r, const struct fsa_op *op);
fsa_status recovery_on_packet(struct fsa_report *r, const struct fsa_packet *packet);
fsa_status recovery_on_marker(struct fsa_report *r, const struct fsa_marker *marker);
void recovery_on_loss(struct fsa_report *r, const struct fsa_loss *loss);
/* After the model finished: TDR sequences and fault accounting. */
void recovery_finish(struct fsa_report *r);
/* Whether the 2.2 tables and sections appear: the trace is format 1.4 or later, or has an item
 * only format 1.4 makes. */
bool recovery_is_shown(const struct fsa_report *r);

/* Stable names of the contract's enumerations (lower case), "unknown" for another value. */
const char *preempt_reason_name(int64_t reason);
const char *preempt_granularity_name(int64_t granularity); /* -1: "not_completed" */
const char *loss_reason_name(int64_t reason);
const char *tdr_result_name(int64_t result);
const char *fault_kind_name(int64_t kind);

#endif /* FSA_RECOVERY_PRIVATE_H */
