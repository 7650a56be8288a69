/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, INT-14 (and INT-11, INT-13): the adapter has the
 * OptimizedNativeFenceSignaledInterrupt cap, so the GPU raises its native fence interrupts in
 * the HWQueue form; this driver's interrupt routine rewrites each into a fence-array interrupt
 * naming only the fence of the last entry of the queue's signals log, as a driver would that
 * thought one fence per interrupt enough. The OS's own log reads (INT-10) still find the other
 * entries, so waiters are released: what gives it away is the form the OS handles.
 */
#include "faulty.h"

/* The driver's view of a local fence handle of the queue's process (its address translation). */
static struct fsr_fence *
fence_of_local_handle(struct os_hwqueue *queue, uint64_t local)
{
	const struct rt_map *map = &queue->process->handles;

	for (size_t i = 0; i < map->capacity; i++) {
		const struct rt_object *object = map->slots[i].value;

		if (map->slots[i].key == local && object && object->type == RT_OBJECT_FENCE)
			return object->pointer;
	}
	return NULL;
}

static void
last_fence_interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	if (!interrupt->is_retirement && interrupt->form == FSTP_INTERRUPT_FORM_HWQUEUE &&
	    interrupt->queue) {
		struct os_hwqueue *queue = interrupt->queue;
		struct hw_fence_log *log = &queue->logs[FSTP_LOG_TYPE_SIGNALS];
		uint64_t header = atomic_load(&log->header);
		uint64_t position = (header >> 32) * log->capacity + (uint32_t) header;
		struct fsr_fence *fence = queue->progress_fence;

		if (position > 0) {
			struct fsr_fence *logged = fence_of_local_handle(
			    queue, log->entries[(position - 1) % log->capacity].native_fence);

			if (logged)
				fence = logged;
		}
		interrupt->form = FSTP_INTERRUPT_FORM_FENCE_ARRAY;
		interrupt->fences[0] = fence->global_handle;
		interrupt->fence_count = 1;
	}
	reference.DxgkDdiInterruptRoutine(miniport, interrupt);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiInterruptRoutine = last_fence_interrupt_routine;
}

const char *
fsc_driver_name(void)
{
	return "int-14-reports-last-fence";
}
