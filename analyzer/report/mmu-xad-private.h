/* SPDX-License-Identifier: MIT */
/*
 * The report's accumulators for GpuMmu and cross-adapter fences (trace format 1.5, issue 14;
 * docs/report-schema.md 2.3): report.c hands every operation, edge and marker to these files:
 * page-faults.c keeps the page faults (rare: kept whole) and the VA mapping lifetimes, and joins
 * each fault with the TDR sequence that recovered from it once recovery_finish() assembled them
 * (`page_faults`, `memory`); cross-adapter.c folds propagations and cross-adapter edges into
 * per-(fence, from, to) statistics (`cross_adapter`). tables.c prints them.
 */
#ifndef FSA_MMU_XAD_PRIVATE_H
#define FSA_MMU_XAD_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "fsa/model.h"
#include "quantile-private.h"

struct fsa_report;

/* One page fault: the engine's (fencescope_hw:page_fault) joined with the OS's handling
 * (fencescope_os:page_fault) and the recovery that followed (MMU-14, TDR-06). */
struct fsa_fault_row {
	uint64_t ts_ns;      /* the engine's fault, else the OS's handling */
	uint64_t handled_ns; /* FSA_TIME_NONE: the OS never handled it */
	uint32_t adapter_id, engine_id, process_id;
	uint64_t context_handle, hwqueue_handle, gpu_va, packet_id;
	int64_t access, fault_type, scope; /* -1: unknown (scope: not handled) */
	uint64_t latency_ns;               /* engine → OS, FSA_TIME_NONE unknown */
	/* The TDR sequence of reason PAGE_FAULT on that engine that followed (tdr.sequences). */
	uint64_t tdr_begin_ns, tdr_end_ns;           /* FSA_TIME_NONE: none */
	int64_t result, engine_reset, adapter_reset; /* -1: none */
	uint64_t contexts_in_error, devices_lost;
	/* Work lost: packets that ended FAULTED / ABORTED on that engine (any engine of the adapter
	 * after an adapter reset) from the fault to the recovery's end (the faulting packet alone
	 * without a recovery), and the GPU time they had run. */
	uint64_t packets_faulted, packets_aborted, lost_gpu_ns;
};

/* Closed mappings' lifetimes of one VA space (va_mapping intervals in range). */
struct fsa_mapping_acc {
	uint64_t key; /* first: process << 32 | adapter */
	uint32_t process_id, adapter_id;
	struct fsa_quantile lifetime;
	uint64_t open_at_end;
};

/* Cross-adapter propagation metrics (docs/report-schema.md `cross_adapter`). */
enum fsa_xad_metric {
	FSA_XAD_SIGNAL_TO_RELEASE,         /* signal executed → a waiter released on the other */
	FSA_XAD_SIGNAL_TO_PROPAGATE,       /* signal executed → fence_propagate */
	FSA_XAD_PROPAGATE_TO_NOTIFICATION, /* fence_propagate → the NotificationOnly update */
	FSA_XAD_METRIC_COUNT,
};

/* One (fence, from adapter, to adapter); fence 0: every fence of that adapter pair. */
struct fsa_xad_acc {
	uint64_t fence_global_handle;
	uint32_t from_adapter_id, to_adapter_id;
	uint64_t propagations, notified, edges;
	struct fsa_quantile q[FSA_XAD_METRIC_COUNT];
};

struct fsa_mmu_xad {
	bool has_data; /* a format 1.5 item: the 2.3 sections appear */
	/* page-faults.c */
	GArray *hw_faults, *os_faults; /* struct fsa_marker */
	GArray *rows;                  /* struct fsa_fault_row, after mmu_finish() */
	struct fsa_quantile handling;  /* engine fault → OS handling */
	GHashTable *mappings;          /* key → fsa_mapping_acc */
	/* cross-adapter.c */
	GHashTable *xad; /* struct fsa_xad_acc (key and value) */
	/* Cross-adapter signals' ends (op id → end + 1) and propagations waiting for their signal
	 * (op id → struct fsa_marker), each a bounded FIFO of FSA_XAD_MEMORY ids. */
	GHashTable *signal_ends, *waiting;
	uint64_t *signal_order, *waiting_order;
	size_t signal_head, signal_len, waiting_head, waiting_len;
	struct fsa_quantile release_all; /* every signal → release sample (thresholds) */
	/* The last wait given out (the model gives a wait, then its edge). */
	struct fsa_op last_wait;
	bool has_last_wait;
};

#define FSA_XAD_MEMORY 4096

struct fsa_mmu_xad *mmu_xad_new(void);
void mmu_xad_free(struct fsa_mmu_xad *m);
/* page-faults.c: markers in range (faults, VA reservations and mappings). */
fsa_status mmu_on_marker(struct fsa_report *r, const struct fsa_marker *marker);
/* cross-adapter.c: every operation, before the time filter (the signals' ends and the last
 * wait, for the edges and propagations in range); edges and markers in range. */
fsa_status xad_on_op(struct fsa_report *r, const struct fsa_op *op);
fsa_status xad_on_edge(struct fsa_report *r, const struct fsa_edge *edge);
fsa_status xad_on_marker(struct fsa_report *r, const struct fsa_marker *marker);
/* After recovery_finish(): the fault rows. */
void mmu_finish(struct fsa_report *r);
/* Whether the 2.3 sections appear: a trace of format 1.5 or later, or one with its items. */
bool mmu_xad_is_shown(const struct fsa_report *r);
const char *xad_metric_name(enum fsa_xad_metric metric);
/* Every signal → release sample of the report (the `propagation` threshold). */
struct fsa_quantile *xad_release_all(struct fsa_report *r);

#endif /* FSA_MMU_XAD_PRIVATE_H */
