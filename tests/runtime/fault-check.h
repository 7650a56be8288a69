/* SPDX-License-Identifier: MIT */
/*
 * The invariants every run with injected faults must keep (docs/robustness.md), and the
 * accounting of each fault's effect, checked from the runtime's own events (the test API's
 * event tap) and, once the run is idle, from its state (fsr_test_invariants):
 *  - innocent queues progress: no queue untouched by a fault is left with work that never ran;
 *  - nothing runs twice: no buffer completes twice on a queue, no progress value is written
 *    twice, no log entry is read twice;
 *  - no fence left unsignalled without a DEVICE_LOST result: every CPU wait that began ended
 *    (satisfied, DEVICE_LOST, or its own timeout), none is still registered;
 *  - no wake-up lost: no waiter is left whose fence reached its value, and every interrupt
 *    raised was handled except those the line dropped;
 *  - every injected fault has its effect (s7-context.md's "Fault accounting", the same rule as
 *    the report's `faults` section): accounted == injected per kind.
 * Usable from Criterion tests and plain programs alike: it asserts nothing itself.
 */
#ifndef FST_FAULT_CHECK_H
#define FST_FAULT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include <fencescope/runtime.h>

#include "fencescope-test.h"

struct fst_fault_check;

struct fst_fault_verdict {
	uint64_t injected[FSR_FAULT_KIND_COUNT];
	uint64_t accounted[FSR_FAULT_KIND_COUNT];
	uint32_t repeated_completions;     /* a (queue, progress value) ended COMPLETED twice */
	uint32_t repeated_progress_writes; /* a queue's progress value written again or lower */
	uint32_t repeated_log_entries;     /* a log position read twice or backwards */
	uint32_t unmatched_interrupts; /* raised − handled − dropped, summed per engine/type */
	uint32_t unended_waits;        /* cpu_wait_begin without its cpu_wait_end */
	uint32_t device_lost_waits;    /* waits that ended DEVICE_LOST (allowed) */
	uint64_t events;
	struct fsr_test_invariants state;
	bool invariants_hold; /* every invariant, whatever the accounting */
	char violation[256];  /* the first broken invariant or unaccounted kind, "" when none */
};

/* Taps `runtime`'s events (its one tap) from now on. Returns: (transfer full). */
struct fst_fault_check *fst_fault_check_new(struct fsr_runtime *runtime);
/* Removes the tap and frees the check. */
void fst_fault_check_free(struct fst_fault_check *check);
/*
 * Once the run is idle (fsr_runtime_run_until_idle; runtime lock not held): fills `verdict`
 * and returns true when every invariant holds and every injected fault was accounted for. May
 * be called again later in the run (after the processes ended: a storm's overrun may show only
 * at its queue's last log read); each call judges the run so far.
 */
bool fst_fault_check_verify(struct fst_fault_check *check, struct fst_fault_verdict *verdict);

#endif /* FST_FAULT_CHECK_H */
