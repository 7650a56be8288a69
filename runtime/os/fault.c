/* SPDX-License-Identifier: MIT */
/*
 * What the OS does about the faults the GPU reports or hides (docs/robustness.md): a context
 * whose ring held a command the GPU could not run is put in error (os_context_error, the TDR's
 * path, os/tdr.c), and a periodic check at the
 * TDR cadence releases the CPU waiters whose fence reached their value while no interrupt told
 * the OS (an interrupt lost on the line). Neither knows of the fault injector: the first acts on
 * the GPU's fault interrupt, the second on the fences' own values, as Dxgkrnl's periodic
 * monitoring would. Not here: the TDR watchdog and engine reset (the GPU's hangs).
 */
#include <stdlib.h>

#include "os/os-private.h"
#include "fencescope-test.h"

/* The GPU's fault interrupt (PAGE_FAULT form NOT_FENCE, the queue named): its context errs. */
void
os_gpu_fault(struct fsr_adapter *adapter, struct os_hwqueue *queue, enum fstp_loss_reason reason)
{
	(void) adapter;
	/* A queue destroyed since: nothing is left to put in error. */
	if (queue)
		os_context_error(queue->context, reason);
}

/*
 * The OS's periodic check at the TDR cadence (FSR_FAULT_RESCAN_PERIOD_NS), for lost
 * interrupts: every fence with CPU or software waiters has its CurrentValue read, and the
 * waiters it satisfies are released (SYN-06 holds even when the line dropped the interrupt that
 * should have told the OS). Returns the waiters released; fires nothing when there were none.
 */
uint32_t
os_rescan_waiters(struct fsr_runtime *runtime)
{
	uint32_t released = 0;

	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;
		struct fsr_fence *fence;

		if (!rt_map_next(&runtime->fences, &cursor, &key, &value))
			break;
		RT_FOR_EACH_FENCE_MEMBER(member, (struct fsr_fence *) value) {
			fence = member;
			if (fence->waiters &&
			    fence->waiters->value <=
				rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE))
				released += os_fence_release_waiters(fence);
		}
	}
	runtime->stats.waiters_rescued += released;
	return released;
}

/*
 * Sim mode with a fault plan: whether a waiter is satisfied but not released — a wake-up the
 * periodic check owes, so its timer is real work, not housekeeping (the clock's weak timers),
 * and a blocked wait runs on to it. Reads with RT_POINT_NONE: the simulator's question, not
 * the OS's.
 */
bool
os_has_unreleased_waiter(struct fsr_runtime *runtime)
{
	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;
		struct fsr_fence *fence;

		if (!rt_map_next(&runtime->fences, &cursor, &key, &value))
			return false;
		RT_FOR_EACH_FENCE_MEMBER(member, (struct fsr_fence *) value) {
			fence = member;
			if (fence->waiters &&
			    fence->waiters->value <= rt_fence_current(fence, RT_POINT_NONE))
				return true;
		}
	}
}

/* ---- the invariants' ground truth, for tests (test-api/fencescope-test.h) ---------------- */

/* A queue that no fault touched: its context runs, its device is whole, its process alive. */
static bool
is_innocent(const struct os_hwqueue *queue)
{
	const struct os_context *context = queue->context;

	return !context->device->is_lost && !context->device->is_in_error &&
	       !context->is_in_error && !os_context_is_suspended(context) &&
	       !queue->process->is_killed && !queue->is_abandoned && !queue->hw_is_faulted;
}

static void
count_waiters(struct fsr_fence *fence, struct fsr_test_invariants *out)
{
	uint64_t current = rt_fence_current(fence, RT_POINT_NONE);

	for (const struct os_waiter *w = fence->waiters; w; w = w->next) {
		if (w->kind == OS_WAITER_KM_QUEUE)
			continue;
		out->waiting++;
		if (w->value <= current)
			out->unreleased_waiters++;
	}
}

void
fsr_test_invariants(struct fsr_runtime *runtime, struct fsr_test_invariants *out)
{
	*out = (struct fsr_test_invariants){0};
	rt_lock(runtime);
	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;

		if (!rt_map_next(&runtime->fences, &cursor, &key, &value))
			break;
		RT_FOR_EACH_FENCE_MEMBER(member, (struct fsr_fence *) value)
			count_waiters(member, out);
	}
	for (struct fsr_process *p = runtime->processes; p; p = p->next)
		for (struct os_device *d = p->devices; d; d = d->next_in_process)
			for (struct os_context *c = d->contexts; c; c = c->next_in_device)
				for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context) {
					uint64_t done =
					    rt_fence_current(q->progress_fence, RT_POINT_NONE);

					/* Progress fences are in no table: their waiters too. */
					count_waiters(q->progress_fence, out);
					if (!is_innocent(q)) {
						out->guilty_queues++;
						continue;
					}
					out->innocent_queues++;
					if (done < rt_queue_last_queued(q, RT_POINT_NONE))
						out->stuck_innocent_queues++;
				}
	rt_unlock(runtime);
}
