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
 * MMU-14: an access to an unmapped GPU VA terminates "the context and/or device that caused
 * it". The reference OS's choice (docs/runtime.md "Page faults as built"): the context, scope
 * CONTEXT — it goes in error (context_error, its pending fences signalled UINT64_MAX) and its
 * device stays whole, so the process may go on with another context; a device whose contexts
 * faulted before is terminated whole, scope DEVICE — device_lost (PAGE_FAULT), every doorbell
 * DISCONNECTED_ABORT (TDR-04). Then the memory manager's recovery, an engine reset promoted to
 * an adapter reset if it fails (TDR-06, os/tdr.c). A context destroyed before the OS handled
 * the interrupt leaves only the recovery to do (the engine still waits for its reset).
 */
void
os_gpu_page_fault(struct fsr_adapter *adapter, const struct hw_interrupt *interrupt)
{
	struct os_context *context = os_context_find(adapter, interrupt->fault_context);
	bool is_device_lost = false;

	if (context)
		is_device_lost = context->device->page_faults++ > 0;
	FSR_TRACE(adapter->runtime, fencescope_os, page_fault, adapter->id, interrupt->engine_id,
		  interrupt->fault_process_id, interrupt->fault_context, interrupt->fault_va,
		  interrupt->fault_access, interrupt->fault_type,
		  is_device_lost ? FSTP_FAULT_SCOPE_DEVICE : FSTP_FAULT_SCOPE_CONTEXT);
	os_tdr_page_fault(adapter, interrupt->engine_id, context, is_device_lost);
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
	uint64_t key;
	void *value;

	for (size_t cursor = 0; rt_map_next(&runtime->fences, &cursor, &key, &value);)
		RT_FOR_EACH_FENCE_MEMBER(fence, (struct fsr_fence *) value)
			if (fence->waiters &&
			    fence->waiters->value <=
				rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE))
				released += os_fence_release_waiters(fence);
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
	uint64_t key;
	void *value;

	for (size_t cursor = 0; rt_map_next(&runtime->fences, &cursor, &key, &value);)
		RT_FOR_EACH_FENCE_MEMBER(fence, (struct fsr_fence *) value)
			if (fence->waiters &&
			    fence->waiters->value <= rt_fence_current(fence, RT_POINT_NONE))
				return true;
	return false;
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
	uint64_t key;
	void *value;

	*out = (struct fsr_test_invariants){0};
	rt_lock(runtime);
	for (size_t cursor = 0; rt_map_next(&runtime->fences, &cursor, &key, &value);)
		RT_FOR_EACH_FENCE_MEMBER(member, (struct fsr_fence *) value)
			count_waiters(member, out);
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

fsr_status
fsr_test_allocation_storage(struct fsr_process *process, fsr_handle allocation, uint8_t **storage,
			    uint64_t *size_bytes)
{
	struct rt_object *object;
	fsr_status status;

	if (!process || !storage || !size_bytes)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = os_kmt_lookup(process, allocation, RT_OBJECT_ALLOCATION, &object);
	if (status == FSR_OK) {
		const struct os_allocation *a = object->pointer;

		*storage = a->storage;
		*size_bytes = a->size_bytes;
	}
	rt_unlock(process->runtime);
	return status;
}
