/* SPDX-License-Identifier: MIT */
/*
 * The OS's side of the emulated GPU's interrupts, and its periodic housekeeping, as one actor.
 *
 * A native fence signaled interrupt is handled in the form the GPU raised it (INT-04 to
 * INT-13): with a fence named, the OS releases that fence's waiters and reads the logs of the
 * queues of the fence's device (INT-10); with a NULL array it scans every waiter (INT-06);
 * with a queue named, it reads that queue's logs (INT-11) and releases the waiters of every
 * fence they name, which covers signals that raised no interrupt themselves (INT-13).
 *
 * Reading a log (SYN-10, LOG-17): read the header, let the driver put its barrier, then read
 * from the position read last time to the header's position. If that advanced by more than
 * the capacity, the GPU overwrote entries nobody read: the OS reports how many, reads what is
 * left, and falls back to reading the CurrentValue of every fence the device has open,
 * created or opened (LOG-18).
 */
#include <stdlib.h>

#include "runtime-private.h"

static struct fsr_fence *
fence_of_local_handle(struct os_hwqueue *queue, uint32_t native_fence)
{
	struct rt_object *object = rt_map_get(&queue->process->handles, native_fence);

	return object && object->type == RT_OBJECT_FENCE ? object->pointer : NULL;
}

/* Reads one fence's CurrentValue for a scan, once however many handles name it. */
static void
scan_fence(struct fsr_fence *fence, uint64_t generation, uint32_t *scanned, uint32_t *released)
{
	struct fsr_runtime *runtime = fence->adapter->runtime;

	if (fence->scan_generation == generation)
		return;
	fence->scan_generation = generation;
	FSR_TRACE(runtime, fencescope_os, fence_scan_value, fence->adapter->id,
		  fence->global_handle, atomic_load(&fence->current_value));
	*released += os_fence_release_waiters(fence);
	(*scanned)++;
}

/*
 * LOG-18: the CurrentValue of every fence the device has open — those it created (SHF-01)
 * and the shared fences its process opened on it (SHF-02), whose entries the lost ones may
 * have been as well — each read once.
 */
static uint32_t
scan_device(struct os_device *device, enum fstp_scan_reason reason)
{
	struct fsr_runtime *runtime = device->adapter->runtime;
	uint64_t generation = ++runtime->scan_generation;
	uint32_t scanned = 0;
	uint32_t released = 0;

	for (struct fsr_fence *fence = device->fences; fence; fence = fence->next_in_device)
		scan_fence(fence, generation, &scanned, &released);
	for (size_t cursor = 0;;) {
		struct rt_object *object;
		uint64_t key;
		void *value;

		if (!rt_map_next(&device->process->handles, &cursor, &key, &value))
			break;
		object = value;
		if (object->type == RT_OBJECT_FENCE && object->device == device)
			scan_fence(object->pointer, generation, &scanned, &released);
	}
	FSR_TRACE(runtime, fencescope_os, fence_scan, device->adapter->id, device->handle, reason,
		  scanned, released);
	runtime->stats.fences_scanned += scanned;
	return released;
}

/*
 * Releases the waiters of every fence of the adapter that has some: what the OS does when a
 * log cannot tell it which fences moved — entries lost to an overrun may have named fences of
 * any device, and an entry may name a handle its process has closed since (INT-06, SYN-06).
 */
static uint32_t
release_adapter_waiters(struct fsr_adapter *adapter)
{
	uint32_t released = 0;

	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;
		struct fsr_fence *fence;

		if (!rt_map_next(&adapter->runtime->fences, &cursor, &key, &value))
			break;
		fence = value;
		if (fence->adapter == adapter && fence->waiters)
			released += os_fence_release_waiters(fence);
	}
	return released;
}

static void
report_anomaly(struct os_hwqueue *queue, enum fstp_log_type type, uint64_t position,
	       enum fstp_log_anomaly anomaly, uint64_t previous_gpu_ts, uint64_t gpu_ts)
{
	struct fsr_runtime *runtime = queue->engine->adapter->runtime;

	FSR_TRACE(runtime, fencescope_os, fence_log_anomaly, queue->handle, type, position, anomaly,
		  previous_gpu_ts, gpu_ts);
	runtime->stats.log_anomalies++;
}

static uint32_t
read_log(struct os_hwqueue *queue, enum fstp_log_type type, bool *is_overrun,
	 bool *has_unknown_fence)
{
	struct fsr_adapter *adapter = queue->engine->adapter;
	struct fsr_runtime *runtime = adapter->runtime;
	struct hw_fence_log *log = &queue->logs[type];
	uint64_t header = atomic_load_explicit(&log->header, memory_order_acquire);
	uint32_t index = (uint32_t) header;
	uint32_t wraparound_count = (uint32_t) (header >> 32);
	uint64_t position = (uint64_t) wraparound_count * log->capacity + index;
	uint64_t cached = queue->os_log_position[type];
	uint64_t start = cached;
	uint32_t released = 0;

	if (position == cached)
		return 0;
	kmd_update_native_fence_logs(queue);
	/* LOG-17 as rules.md reads it: lost iff the position moved by more than the capacity. */
	if (position - cached > log->capacity) {
		uint64_t lost = position - cached - log->capacity;

		FSR_TRACE(runtime, fencescope_os, fence_log_overrun, adapter->id, queue->handle,
			  type, lost, log->capacity, cached, position);
		runtime->stats.log_entries_lost += lost;
		start = position - log->capacity;
		*is_overrun = true;
	}
	for (uint64_t p = start; p < position; p++) {
		const struct hw_log_entry *entry = &log->entries[p % log->capacity];
		struct fsr_fence *fence = fence_of_local_handle(queue, entry->native_fence);
		uint64_t previous = queue->os_last_gpu_ts[type];

		FSR_TRACE(runtime, fencescope_os, fence_log_entry, queue->handle, type, p,
			  entry->native_fence, fence ? fence->global_handle : 0, entry->fence_value,
			  entry->operation, entry->observed_gpu_ts, entry->end_gpu_ts);
		runtime->stats.log_entries_read++;
		if (!fence) {
			report_anomaly(queue, type, p, FSTP_LOG_ANOMALY_UNKNOWN_FENCE, 0, 0);
			*has_unknown_fence = true;
		}
		/* LOG-21: zero timestamps are accepted and left out of the monotonic check. */
		if (entry->end_gpu_ts == 0) {
			report_anomaly(queue, type, p, FSTP_LOG_ANOMALY_ZERO_TIMESTAMP, previous,
				       0);
		} else {
			if (entry->end_gpu_ts < previous) /* LOG-22 */
				report_anomaly(queue, type, p, FSTP_LOG_ANOMALY_TIMESTAMP_BACKWARDS,
					       previous, entry->end_gpu_ts);
			queue->os_last_gpu_ts[type] = entry->end_gpu_ts;
		}
		if (entry->observed_gpu_ts > entry->end_gpu_ts &&
		    entry->end_gpu_ts != 0) /* LOG-09 */
			report_anomaly(queue, type, p, FSTP_LOG_ANOMALY_OBSERVED_AFTER_END,
				       entry->observed_gpu_ts, entry->end_gpu_ts);
		if (fence && entry->operation == FSTP_LOG_OPERATION_SIGNAL_EXECUTED)
			released += os_fence_release_waiters(fence);
	}
	FSR_TRACE(runtime, fencescope_os, fence_log_read, adapter->id, queue->handle, type, index,
		  wraparound_count, (uint32_t) (position - start));
	queue->os_log_position[type] = position;
	return released;
}

uint32_t
os_read_logs(struct os_hwqueue *queue)
{
	bool is_overrun = false;
	bool has_unknown_fence = false;
	uint32_t released;

	if (queue->mode != FSR_SUBMIT_USER_MODE)
		return 0; /* LOG-02 */
	released = read_log(queue, FSTP_LOG_TYPE_WAITS, &is_overrun, &has_unknown_fence);
	released += read_log(queue, FSTP_LOG_TYPE_SIGNALS, &is_overrun, &has_unknown_fence);
	if (is_overrun)
		released += scan_device(queue->context->device, FSTP_SCAN_REASON_LOG_OVERRUN);
	if (is_overrun || has_unknown_fence)
		released += release_adapter_waiters(queue->engine->adapter);
	return released;
}

static uint32_t
read_device_logs(struct os_device *device)
{
	uint32_t released = 0;

	for (struct os_context *c = device->contexts; c; c = c->next_in_device)
		for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
			released += os_read_logs(q);
	return released;
}

static uint32_t
read_engine_logs(struct hw_engine *engine)
{
	uint32_t released = 0;

	for (struct os_hwqueue *q = engine->run_list; q; q = q->next_on_engine)
		released += os_read_logs(q);
	return released;
}

static void
read_all_logs(struct fsr_runtime *runtime)
{
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		for (uint32_t e = 0; e < adapter->config.engine_count; e++)
			read_engine_logs(&adapter->engines[e]);
	}
}

static void
handle_interrupt(struct fsr_runtime *runtime, struct hw_interrupt *interrupt)
{
	struct hw_engine *engine = interrupt->engine;
	struct fsr_fence *fence;
	uint32_t fence_count = 0;
	uint32_t released = 0;
	fsr_handle queue_handle = interrupt->queue ? interrupt->queue->handle : 0;

	if (interrupt->type == FSTP_INTERRUPT_TYPE_DMA_COMPLETED) {
		/* INT-01: the kernel-mode path learns of completions through interrupts. */
		os_km_packet_done(runtime, interrupt->packet);
		goto end;
	}
	switch (interrupt->form) {
	case FSTP_INTERRUPT_FORM_FENCE_ARRAY:
		fence_count = 1;
		fence = rt_map_get(&runtime->fences, interrupt->fence);
		if (!fence) {
			/* INT-05: a fence that no longer exists. Refuse it, loudly, and go on. */
			rt_refuse(runtime, 0, "NativeFenceSignaledInterrupt", interrupt->fence,
				  FSR_ERR_DESTROYED);
			break;
		}
		released += os_fence_release_waiters(fence);
		if (fence->device)
			released += read_device_logs(fence->device);
		break;
	case FSTP_INTERRUPT_FORM_NULL_ARRAY:
		/* INT-06: scan every outstanding waiter. */
		for (size_t cursor = 0;;) {
			uint64_t key;
			void *value;

			if (!rt_map_next(&runtime->fences, &cursor, &key, &value))
				break;
			fence = value;
			if (fence->waiters)
				released += os_fence_release_waiters(fence);
		}
		released += read_engine_logs(engine);
		break;
	case FSTP_INTERRUPT_FORM_HWQUEUE:
		released += interrupt->queue ? os_read_logs(interrupt->queue) /* INT-11 */
					     : read_engine_logs(engine);      /* INT-12 */
		/* The progress fence writes no log entry: its waiters are checked directly. */
		if (interrupt->queue)
			released += os_fence_release_waiters(interrupt->queue->progress_fence);
		break;
	default:
		break;
	}
	if (released == 0)
		runtime->stats.spurious_interrupts++; /* SYN-07: allowed, and counted */
end:
	FSR_TRACE(runtime, fencescope_os, interrupt_handled, engine->adapter->id, engine->id,
		  interrupt->type, interrupt->form, queue_handle, fence_count, released);
	free(interrupt);
}

void
os_raise_interrupt(struct fsr_runtime *runtime, struct hw_interrupt *interrupt)
{
	interrupt->next = NULL;
	if (runtime->interrupts_tail)
		runtime->interrupts_tail->next = interrupt;
	else
		runtime->interrupts_head = interrupt;
	runtime->interrupts_tail = interrupt;
	rt_clock_kick(runtime, &runtime->os_actor,
		      rt_add_ns(rt_clock_now(runtime), runtime->config.interrupt_latency_ns));
}

static void
expire_async_waiters(struct fsr_runtime *runtime, uint64_t now)
{
	struct os_waiter **link = &runtime->async_waiters;

	while (*link) {
		struct os_waiter *waiter = *link;
		struct fsr_fence *fence = waiter->fence;

		if (waiter->deadline_ns > now) {
			link = &waiter->next_async;
			continue;
		}
		os_fence_remove_waiter(fence, waiter);
		os_waiter_finish(runtime, waiter, FSR_ERR_TIMEOUT,
				 atomic_load(&fence->current_value)); /* unlinks it */
		os_fence_release_waiters(fence);
	}
}

static uint64_t
os_step(struct rt_actor *actor, uint64_t now)
{
	struct fsr_runtime *runtime = actor->runtime;
	uint64_t next;
	bool is_weak = true;

	rt_lock(runtime);
	/* Realtime: `now` was read before the lock; what this step stamps happens now. */
	now = rt_clock_now(runtime);
	while (runtime->interrupts_head) {
		struct hw_interrupt *interrupt = runtime->interrupts_head;

		runtime->interrupts_head = interrupt->next;
		if (!runtime->interrupts_head)
			runtime->interrupts_tail = NULL;
		handle_interrupt(runtime, interrupt);
	}
	expire_async_waiters(runtime, now);
	if (now >= runtime->next_log_read_ns) {
		read_all_logs(runtime);
		runtime->next_log_read_ns = rt_add_ns(now, runtime->config.log_read_period_ns);
	}
	if (now >= runtime->next_correlation_ns) {
		/* Each pair reads the CPU clock itself: events of this step came before it. */
		for (uint32_t a = 0; a < runtime->adapter_count; a++)
			kmd_correlate_clock(runtime->adapters[a], rt_clock_now(runtime));
		runtime->next_correlation_ns =
		    rt_add_ns(now, runtime->config.clock_correlation_period_ns);
	}
	os_km_schedule(runtime);

	next = runtime->next_log_read_ns < runtime->next_correlation_ns
		   ? runtime->next_log_read_ns
		   : runtime->next_correlation_ns;
	for (struct os_waiter *w = runtime->async_waiters; w; w = w->next_async) {
		is_weak = false; /* a deadline is real work */
		if (w->deadline_ns < next)
			next = w->deadline_ns;
	}
	if (runtime->interrupts_head)
		is_weak = false;
	actor->next_is_weak = is_weak;
	rt_unlock(runtime);
	return next;
}

void
os_actor_init(struct fsr_runtime *runtime)
{
	uint64_t now = rt_clock_now(runtime);

	runtime->os_actor.name = "os";
	runtime->os_actor.step = os_step;
	runtime->next_log_read_ns = now;
	runtime->next_correlation_ns = rt_add_ns(now, runtime->config.clock_correlation_period_ns);
	rt_clock_add_actor(runtime, &runtime->os_actor);
	rt_clock_kick_weak(runtime, &runtime->os_actor, now);
}

/*
 * Realtime idle (lock held): no interrupt pending, every engine idle (hw_engine_is_idle: not
 * busy, no DMA packet, no ring with work it can run), no kernel-mode queue with a buffer that
 * is not blocked on a software wait. Everything it reads changes only with the lock held.
 */
bool
os_is_idle(struct fsr_runtime *runtime)
{
	if (runtime->interrupts_head)
		return false;
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		for (uint32_t e = 0; e < adapter->config.engine_count; e++)
			if (!hw_engine_is_idle(&adapter->engines[e]))
				return false;
	}
	for (struct os_hwqueue *q = runtime->km_queues; q; q = q->next_km)
		if (q->km_head && !q->is_km_blocked)
			return false;
	return true;
}
