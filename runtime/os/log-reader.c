/* SPDX-License-Identifier: MIT */
/*
 * The OS's reader of native fence logs. One read (an interrupt's, a queue destruction's) covers
 * a set of queues (SYN-10, LOG-17): read every log's header, let the driver put its barrier
 * once for every queue with new entries (DxgkDdiUpdateNativeFenceLogs), then read each log
 * from the position read last time to the header's position. If that advanced by more than the
 * capacity, the GPU overwrote entries nobody read: the OS reports how many, reads what is left, and
 * falls back to reading the CurrentValue of every fence the device has open, created or opened
 * (LOG-18).
 */
#include <stdlib.h>

#include "os/os-private.h"

/*
 * The fence a log entry names (LOG-10): a handle of the queue's process, or the queue's own
 * progress fence, whose writes are logged like any signal (HPF-02, LOG-11).
 */
static struct fsr_fence *
fence_of_local_handle(struct os_hwqueue *queue, uint32_t native_fence)
{
	struct rt_object *object;

	if (native_fence != 0 && native_fence == queue->progress_fence_local_handle)
		return queue->progress_fence;
	object = rt_map_get(&queue->process->handles, native_fence);

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
		  fence->global_handle, rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE));
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

	uint64_t key;
	void *value;

	for (size_t cursor = 0; rt_map_next(&adapter->runtime->fences, &cursor, &key, &value);) {
		struct fsr_fence *fence = rt_fence_member_on(value, adapter);

		if (fence && fence->waiters)
			released += os_fence_release_waiters(fence);
	}
	return released;
}

static void
report_anomaly(struct os_hwqueue *queue, enum fstp_log_type type, uint64_t position,
	       enum fstp_log_anomaly anomaly, uint64_t previous_gpu_ts, uint64_t gpu_ts)
{
	struct fsr_runtime *runtime = queue->adapter->runtime;

	FSR_TRACE(runtime, fencescope_os, fence_log_anomaly, queue->handle, type, position, anomaly,
		  previous_gpu_ts, gpu_ts);
	runtime->stats.log_anomalies++;
}

/* A log's header as the OS read it, before the driver's barrier (SYN-10). */
struct log_header {
	uint32_t index;            /* FirstFreeEntryIndex */
	uint32_t wraparound_count; /* WraparoundCount */
	uint64_t position;         /* entries ever written: wraparound_count × capacity + index */
};

static struct log_header
read_header(struct fsr_runtime *runtime, struct hw_fence_log *log)
{
	uint64_t header =
	    rt_word_load(runtime, &log->header, memory_order_acquire, RT_POINT_OS_READ_LOG_HEADER);
	struct log_header read = {.index = (uint32_t) header,
				  .wraparound_count = (uint32_t) (header >> 32)};

	read.position = (uint64_t) read.wraparound_count * log->capacity + read.index;
	return read;
}

/* Reads the entries of one log up to `header`, read before the barrier. */
static uint32_t
read_entries(struct os_hwqueue *queue, enum fstp_log_type type, struct log_header header,
	     bool *is_overrun, bool *has_unknown_fence)
{
	struct fsr_adapter *adapter = queue->adapter;
	struct fsr_runtime *runtime = adapter->runtime;
	struct hw_fence_log *log = &queue->logs[type];
	uint64_t position = header.position;
	uint64_t cached = queue->os_log_position[type];
	uint64_t start = cached;
	uint32_t released = 0;

	if (position == cached)
		return 0;
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
		const struct hw_log_entry read =
		    rt_log_entry_read(runtime, log, (uint32_t) (p % log->capacity));
		const struct hw_log_entry *entry = &read;
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
	FSR_TRACE(runtime, fencescope_os, fence_log_read, adapter->id, queue->handle, type,
		  header.index, header.wraparound_count, (uint32_t) (position - start));
	queue->os_log_position[type] = position;
	return released;
}

/* Reads both logs of a queue up to the headers read before the barrier. */
static uint32_t
read_queue_entries(struct os_hwqueue *queue, const struct log_header headers[2])
{
	bool is_overrun = false;
	bool has_unknown_fence = false;
	uint32_t released;

	released = read_entries(queue, FSTP_LOG_TYPE_WAITS, headers[FSTP_LOG_TYPE_WAITS],
				&is_overrun, &has_unknown_fence);
	released += read_entries(queue, FSTP_LOG_TYPE_SIGNALS, headers[FSTP_LOG_TYPE_SIGNALS],
				 &is_overrun, &has_unknown_fence);
	if (is_overrun)
		released += scan_device(queue->context->device, FSTP_SCAN_REASON_LOG_OVERRUN);
	if (is_overrun || has_unknown_fence)
		released += release_adapter_waiters(queue->adapter);
	return released;
}

/* The user-mode queues of one adapter whose logs one read covers. */
struct queue_list {
	struct os_hwqueue **queues;
	uint32_t count;
	uint32_t capacity;
};

static void
queue_list_add(struct queue_list *list, struct os_hwqueue *queue)
{
	if (queue->mode != FSR_SUBMIT_USER_MODE)
		return; /* LOG-02 */
	if (list->count == list->capacity) {
		uint32_t capacity = list->capacity ? list->capacity * 2 : 8;
		struct os_hwqueue **queues = realloc(list->queues, capacity * sizeof(*queues));

		if (!queues)
			abort(); /* a read the OS cannot make would lose wake-ups (SYN-06) */
		list->queues = queues;
		list->capacity = capacity;
	}
	list->queues[list->count++] = queue;
}

/*
 * One read of the logs of `list` (SYN-10, spec 001 "Synchronously updating the native fence
 * log"): read the header of every log, call DxgkDdiUpdateNativeFenceLogs once with every
 * HWQueue whose logs have new entries, and only then read entries, up to the headers read
 * before the barrier. Frees the list.
 */
static uint32_t
read_queue_list(struct fsr_adapter *adapter, struct queue_list *list)
{
	struct log_header(*headers)[2] = NULL;
	struct os_hwqueue **moved = NULL;
	uint32_t moved_count = 0;
	uint32_t released = 0;

	if (list->count == 0)
		goto end;
	headers = calloc(list->count, sizeof(*headers));
	moved = calloc(list->count, sizeof(*moved));
	if (!headers || !moved)
		abort(); /* as in queue_list_add */
	for (uint32_t i = 0; i < list->count; i++) {
		struct os_hwqueue *queue = list->queues[i];
		bool has_new_entries = false;

		for (int type = FSTP_LOG_TYPE_WAITS; type <= FSTP_LOG_TYPE_SIGNALS; type++) {
			headers[i][type] = read_header(adapter->runtime, &queue->logs[type]);
			if (headers[i][type].position != queue->os_log_position[type])
				has_new_entries = true;
		}
		if (has_new_entries)
			moved[moved_count++] = queue;
	}
	if (moved_count == 0)
		goto end;
	adapter->ddi.DxgkDdiUpdateNativeFenceLogs(adapter->miniport, moved, moved_count);
	for (uint32_t i = 0; i < list->count; i++)
		released += read_queue_entries(list->queues[i], headers[i]);
end:
	free(headers);
	free(moved);
	free(list->queues);
	*list = (struct queue_list){0};
	return released;
}

uint32_t
os_read_logs(struct os_hwqueue *queue)
{
	struct queue_list list = {0};

	queue_list_add(&list, queue);
	return read_queue_list(queue->adapter, &list);
}

static void
queue_list_add_device(struct queue_list *list, struct os_device *device)
{
	for (uint32_t i = 0; i < list->count; i++)
		if (list->queues[i]->context->device == device)
			return; /* its queues are in already */
	for (struct os_context *c = device->contexts; c; c = c->next_in_device)
		for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
			queue_list_add(list, q);
}

/*
 * INT-10: the logs of every HWQueue that could have signalled `fence`: the queues of its
 * parent device, and, for a shared fence, of every device a process opened it on (SHF-02) —
 * a queue of another process signals the fence through its own handle, in its own log.
 */
uint32_t
os_read_fence_logs(struct fsr_fence *fence)
{
	struct fsr_runtime *runtime = fence->adapter->runtime;
	struct queue_list list = {0};

	if (fence->device)
		queue_list_add_device(&list, fence->device);
	for (struct fsr_process *process = fence->is_shared ? runtime->processes : NULL; process;
	     process = process->next) {
		for (size_t cursor = 0;;) {
			struct rt_object *object;
			uint64_t key;
			void *value;

			if (!rt_map_next(&process->handles, &cursor, &key, &value))
				break;
			object = value;
			if (object->type == RT_OBJECT_FENCE && object->pointer == fence &&
			    object->device)
				queue_list_add_device(&list, object->device);
		}
	}
	return read_queue_list(fence->adapter, &list);
}

uint32_t
os_read_engine_logs(struct fsr_adapter *adapter, uint32_t engine_id)
{
	struct queue_list list = {0};

	for (struct os_hwqueue *q = adapter->user_queues[engine_id]; q; q = q->next_user_queue)
		queue_list_add(&list, q);
	return read_queue_list(adapter, &list);
}

void
os_read_all_logs(struct fsr_runtime *runtime)
{
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];
		struct queue_list list = {0};

		for (uint32_t e = 0; e < adapter->config.engine_count; e++)
			for (struct os_hwqueue *q = adapter->user_queues[e]; q;
			     q = q->next_user_queue)
				queue_list_add(&list, q);
		read_queue_list(adapter, &list);
	}
}
