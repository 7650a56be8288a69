/* SPDX-License-Identifier: MIT */
/*
 * The user-mode driver's command buffers. Recording a fence wait or signal fires its "queued"
 * event with the CPU time of recording (GPV-02) and, on a user-mode queue, adds the
 * instruction that makes the GPU write the log payload right after it (LOG-05). Submitting
 * follows HPF-03: the buffer already has its progress value (given when recording began),
 * ends with the progress fence write (on a user-mode queue followed by its log instruction, as
 * every native fence signal is), LastQueuedValue is stored, and only then is the buffer
 * made visible — appended to the ring and the write pointer advanced (user mode, HPF-04), or
 * handed to the OS through SubmitCommand (kernel mode). The UMD, not the GPU, decides which
 * log entry each payload goes to: the next one of that log (LOG-12, LOG-13), counted here since
 * user mode cannot read the log's header; the GPU increments FirstFreeEntryIndex itself when it
 * writes the entry (LOG-14, hw/fence-log.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/fault-private.h"
#include "os/os-private.h"

#define UMD_MAX_WORK_TICKS (UINT64_C(1) << 40)
/* A command no GPU has: what a corrupted ring slot holds (fault injection). */
#define UMD_CORRUPT_COMMAND 0xbadu

struct fsr_cmdbuf {
	struct fsr_process *process;
	struct os_hwqueue *queue;
	fsr_handle queue_handle;
	uint64_t progress_value;
	struct hw_packet *packets;
	size_t count;
	size_t capacity;
	bool *is_raw;
};

/* The queue may have been destroyed since the buffer was created (lock held). */
static bool
is_queue_alive(const struct fsr_cmdbuf *cmdbuf)
{
	const struct rt_object *object =
	    rt_map_get(&cmdbuf->process->handles, cmdbuf->queue_handle);

	return object && object->pointer == cmdbuf->queue;
}

fsr_status
fsr_cmdbuf_create(struct fsr_process *process, fsr_handle hwqueue, struct fsr_cmdbuf **cmdbuf_out)
{
	struct fsr_runtime *runtime = process->runtime;
	struct fsr_cmdbuf *cmdbuf = NULL;
	struct rt_object *object;
	fsr_status status;

	rt_lock(runtime);
	status = os_kmt_lookup(process, hwqueue, RT_OBJECT_HWQUEUE, &object);
	if (status == FSR_OK && !cmdbuf_out)
		status = FSR_ERR_INVALID_ARGUMENT;
	if (status == FSR_OK && !(cmdbuf = calloc(1, sizeof(*cmdbuf))))
		status = FSR_ERR_NO_RESOURCES;
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "CreateCommandBuffer", hwqueue, status);
		goto end;
	}
	cmdbuf->process = process;
	cmdbuf->queue = object->pointer;
	cmdbuf->queue_handle = hwqueue;
	/* HPF-03: the buffer's progress value comes first, before anything is recorded. */
	cmdbuf->progress_value = ++cmdbuf->queue->next_progress_value;
	*cmdbuf_out = cmdbuf;
end:
	rt_unlock(runtime);
	return status;
}

static void
release_packets(struct fsr_cmdbuf *cmdbuf)
{
	struct fsr_runtime *runtime = cmdbuf->process->runtime;

	for (size_t i = 0; i < cmdbuf->count; i++) {
		struct hw_packet *packet = &cmdbuf->packets[i];

		if (!cmdbuf->is_raw[i] &&
		    (packet->type == HW_PACKET_WAIT || packet->type == HW_PACKET_SIGNAL)) {
			struct fsr_fence *fence =
			    rt_fence_on_adapter(runtime, packet->a, cmdbuf->queue->adapter);

			if (fence)
				os_kmt_release_fence(fence);
		}
	}
}

static void
free_cmdbuf(struct fsr_cmdbuf *cmdbuf)
{
	free(cmdbuf->packets);
	free(cmdbuf->is_raw);
	free(cmdbuf);
}

static fsr_status write_ring(struct os_hwqueue *queue, struct fsr_process *process,
			     uint64_t progress_value, const struct hw_packet *packets, size_t count,
			     fsr_status *ring_status);

/*
 * HPF-02 on a user-mode queue: the progress fence is a native fence (spec 001, "Indicating a
 * native progress fence for hardware queues"), so its write is a GPU signal like any other and
 * is followed by its log instruction (LOG-05, LOG-11): the signals log then tells the OS of it,
 * as a HWQueue-form interrupt needs (INT-11, INT-13). `packets` has room for both.
 */
static size_t
end_with_progress(struct os_hwqueue *queue, struct hw_packet *packets, size_t count,
		  uint64_t progress_value, uint64_t packet_id)
{
	packets[count++] =
	    (struct hw_packet){.type = HW_PACKET_PROGRESS, .a = progress_value, .b = packet_id};
	if (queue->mode == FSR_SUBMIT_USER_MODE)
		packets[count++] =
		    (struct hw_packet){.type = HW_PACKET_LOG,
				       .flags = (uint32_t) FSTP_LOG_TYPE_SIGNALS |
						(uint32_t) FSTP_LOG_OPERATION_SIGNAL_EXECUTED << 8,
				       .b = progress_value,
				       .c = queue->progress_fence_local_handle};
	return count;
}

/* Packets a buffer of `recorded` packets takes: BEGIN, them, PROGRESS and its log instruction. */
static size_t
buffer_packet_count(const struct os_hwqueue *queue, size_t recorded)
{
	return recorded + (queue->mode == FSR_SUBMIT_USER_MODE ? 3 : 2);
}

/* LOG-12: the UMD gives each log instruction the next entry of its log. */
static void
assign_log_entries(const struct os_hwqueue *queue, struct hw_packet *packets, size_t count,
		   uint64_t positions[2])
{
	for (size_t i = 0; i < count; i++) {
		struct hw_packet *log = &packets[i];
		uint32_t type = log->flags & 0xff;

		if (log->type != HW_PACKET_LOG)
			continue;
		log->a = positions[type]++ % queue->logs[type].capacity;
	}
}

/* Appends a finished buffer to the ring; the log positions move only if it went in. */
static fsr_status
write_buffer_to_ring(struct os_hwqueue *queue, struct fsr_process *process, uint64_t progress_value,
		     struct hw_packet *packets, size_t count, fsr_status *ring_status)
{
	uint64_t positions[2] = {queue->umd_log_position[0], queue->umd_log_position[1]};
	fsr_status status;

	/* When it was submitted: the engine counts submit → start when it begins it (stats). */
	packets[0].c = rt_clock_now(process->runtime);
	assign_log_entries(queue, packets, count, positions);
	status = write_ring(queue, process, progress_value, packets, count, ring_status);
	if (status == FSR_OK) {
		queue->umd_log_position[0] = positions[0];
		queue->umd_log_position[1] = positions[1];
	}
	return status;
}

/* A command buffer with nothing in it but its progress value: BEGIN, then PROGRESS. */
static fsr_status
submit_empty(struct os_hwqueue *queue, struct fsr_process *process, uint64_t progress_value)
{
	uint64_t packet_id = ++queue->adapter->next_packet_id;
	size_t count = buffer_packet_count(queue, 0);
	struct hw_packet *packets = malloc(count * sizeof(*packets));
	fsr_status status;

	if (!packets)
		return FSR_ERR_NO_RESOURCES;
	packets[0] =
	    (struct hw_packet){.type = HW_PACKET_BEGIN, .a = packet_id, .b = progress_value};
	end_with_progress(queue, packets, 1, progress_value, packet_id);
	if (queue->mode == FSR_SUBMIT_USER_MODE) {
		fsr_status ring_status = FSR_OK; /* a dead doorbell shows at the next submit */

		status = write_buffer_to_ring(queue, process, progress_value, packets, count,
					      &ring_status);
		free(packets);
	} else {
		status = os_kmt_submit_command(queue, process, progress_value, packets, count);
		if (status != FSR_OK)
			free(packets);
	}
	return status;
}

/* Submits, empty, the dropped buffers whose turn has come (lock held). */
static void
flush_dropped(struct os_hwqueue *queue, struct fsr_process *process)
{
	for (size_t i = 0; i < queue->dropped_count;) {
		uint64_t value = queue->dropped[i];

		if (value != rt_queue_last_queued(queue, RT_POINT_UMD_READ_LAST_QUEUED) + 1 ||
		    submit_empty(queue, process, value) != FSR_OK) {
			i++;
			continue;
		}
		queue->dropped[i] = queue->dropped[--queue->dropped_count];
		i = 0;
	}
}

/*
 * Lock held. A buffer dropped unsubmitted must not leave a hole in the progress values
 * (HPF-01): the latest one gives its value back; an older one is submitted empty in its turn.
 */
static void
give_back_progress_value(struct fsr_cmdbuf *cmdbuf)
{
	struct os_hwqueue *queue = cmdbuf->queue;
	uint64_t *dropped;

	if (!is_queue_alive(cmdbuf))
		return; /* the queue is gone */
	if (queue->next_progress_value == cmdbuf->progress_value) {
		queue->next_progress_value--;
		return;
	}
	dropped = realloc(queue->dropped, (queue->dropped_count + 1) * sizeof(*dropped));
	if (!dropped)
		abort(); /* a hole would stall every later buffer of the queue */
	queue->dropped = dropped;
	queue->dropped[queue->dropped_count++] = cmdbuf->progress_value;
	flush_dropped(queue, cmdbuf->process);
}

void
fsr_cmdbuf_destroy(struct fsr_cmdbuf *cmdbuf)
{
	struct fsr_runtime *runtime;

	if (!cmdbuf)
		return;
	runtime = cmdbuf->process->runtime;
	rt_lock(runtime);
	release_packets(cmdbuf);
	give_back_progress_value(cmdbuf);
	rt_unlock(runtime);
	free_cmdbuf(cmdbuf);
}

static fsr_status
append(struct fsr_cmdbuf *cmdbuf, struct hw_packet packet, bool is_raw)
{
	if (cmdbuf->count == cmdbuf->capacity) {
		size_t capacity = cmdbuf->capacity ? cmdbuf->capacity * 2 : 16;
		struct hw_packet *packets = realloc(cmdbuf->packets, capacity * sizeof(*packets));
		bool *raw = packets ? realloc(cmdbuf->is_raw, capacity * sizeof(*raw)) : NULL;

		if (packets)
			cmdbuf->packets = packets;
		if (!packets || !raw)
			return FSR_ERR_NO_RESOURCES;
		cmdbuf->is_raw = raw;
		cmdbuf->capacity = capacity;
	}
	cmdbuf->is_raw[cmdbuf->count] = is_raw;
	cmdbuf->packets[cmdbuf->count++] = packet;
	return FSR_OK;
}

fsr_status
fsr_cmdbuf_work(struct fsr_cmdbuf *cmdbuf, uint64_t gpu_ticks)
{
	fsr_status status = FSR_ERR_INVALID_ARGUMENT;

	if (!cmdbuf)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(cmdbuf->process->runtime);
	if (!is_queue_alive(cmdbuf))
		status = FSR_ERR_DESTROYED;
	else if (gpu_ticks > 0 && gpu_ticks < UMD_MAX_WORK_TICKS)
		status = append(cmdbuf, (struct hw_packet){.type = HW_PACKET_WORK, .a = gpu_ticks},
				false);
	if (status != FSR_OK)
		rt_refuse(cmdbuf->process->runtime, cmdbuf->process->id, "RecordWork",
			  cmdbuf->queue_handle, status);
	rt_unlock(cmdbuf->process->runtime);
	return status;
}

fsr_status
fsr_cmdbuf_access(struct fsr_cmdbuf *cmdbuf, enum fsr_gpu_access access, uint64_t gpu_va,
		  uint64_t bytes, uint8_t value)
{
	fsr_status status = FSR_ERR_INVALID_ARGUMENT;

	if (!cmdbuf)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(cmdbuf->process->runtime);
	/* Validated where it enters; whether the range is mapped is the GPU's to find (MMU-14). */
	if (!is_queue_alive(cmdbuf))
		status = FSR_ERR_DESTROYED;
	else if ((access == FSR_GPU_READ || access == FSR_GPU_WRITE) && bytes > 0 &&
		 bytes <= FSR_MAX_ACCESS_BYTES && gpu_va <= UINT64_MAX - (bytes - 1))
		status = append(cmdbuf,
				(struct hw_packet){.type = HW_PACKET_ACCESS,
						   .flags = access == FSR_GPU_WRITE
								? FSTP_ACCESS_KIND_WRITE
								: FSTP_ACCESS_KIND_READ,
						   .a = gpu_va,
						   .b = bytes,
						   .c = value},
				false);
	if (status != FSR_OK)
		rt_refuse(cmdbuf->process->runtime, cmdbuf->process->id, "RecordAccess",
			  cmdbuf->queue_handle, status);
	rt_unlock(cmdbuf->process->runtime);
	return status;
}

static fsr_status
record_fence_op(struct fsr_cmdbuf *cmdbuf, fsr_handle fence_handle, uint64_t value, bool is_wait)
{
	struct fsr_process *process = cmdbuf->process;
	struct fsr_runtime *runtime = process->runtime;
	const char *call = is_wait ? "RecordFenceWait" : "RecordFenceSignal";
	struct os_hwqueue *queue = cmdbuf->queue;
	struct rt_object *object;
	struct fsr_fence *fence;
	fsr_status status;
	size_t count = cmdbuf->count;

	if (!is_queue_alive(cmdbuf))
		return rt_refuse(runtime, process->id, call, cmdbuf->queue_handle,
				 FSR_ERR_DESTROYED);
	status = os_kmt_lookup(process, fence_handle, RT_OBJECT_FENCE, &object);
	if (status != FSR_OK)
		return rt_refuse(runtime, process->id, call, fence_handle, status);
	fence = object->pointer;
	if (fence->adapter != queue->adapter)
		return rt_refuse(runtime, process->id, call, fence_handle, FSR_ERR_NOT_SUPPORTED);
	/*
	 * A ring's instruction names the fence by its GPU address (the CurrentValue word the UMD
	 * got when it created or opened the fence), which the GPU uses without the OS's tables; a
	 * kernel-mode buffer names it by its handle, for the OS that runs it.
	 */
	status = append(cmdbuf,
			(struct hw_packet){.type = is_wait ? HW_PACKET_WAIT : HW_PACKET_SIGNAL,
					   .a = fence->global_handle,
					   .b = value,
					   .c = queue->mode == FSR_SUBMIT_USER_MODE
						    ? (uint64_t) (uintptr_t) fence
						    : fence_handle},
			false);
	if (status == FSR_OK && queue->mode == FSR_SUBMIT_USER_MODE) {
		/* LOG-05: the log-payload instruction right after the fence instruction. */
		enum fstp_log_type type = is_wait ? FSTP_LOG_TYPE_WAITS : FSTP_LOG_TYPE_SIGNALS;
		enum fstp_log_operation operation = is_wait ? FSTP_LOG_OPERATION_WAIT_UNBLOCKED
							    : FSTP_LOG_OPERATION_SIGNAL_EXECUTED;

		status =
		    append(cmdbuf,
			   (struct hw_packet){.type = HW_PACKET_LOG,
					      .flags = (uint32_t) type | (uint32_t) operation << 8,
					      .b = value,
					      .c = fence_handle},
			   false);
	}
	if (status != FSR_OK) {
		cmdbuf->count = count;
		return rt_refuse(runtime, process->id, call, fence_handle, status);
	}
	fence->packet_refs++;
	/* GPV-02: the CPU time at which the instruction is recorded. */
	if (is_wait)
		FSR_TRACE(runtime, fencescope_umd, fence_wait_queued, process->id, queue->handle,
			  fence_handle, value, cmdbuf->progress_value);
	else
		FSR_TRACE(runtime, fencescope_umd, fence_signal_queued, process->id, queue->handle,
			  fence_handle, value, cmdbuf->progress_value);
	return FSR_OK;
}

fsr_status
fsr_cmdbuf_wait(struct fsr_cmdbuf *cmdbuf, fsr_handle fence, uint64_t value)
{
	fsr_status status;

	if (!cmdbuf)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(cmdbuf->process->runtime);
	status = record_fence_op(cmdbuf, fence, value, true);
	rt_unlock(cmdbuf->process->runtime);
	return status;
}

fsr_status
fsr_cmdbuf_signal(struct fsr_cmdbuf *cmdbuf, fsr_handle fence, uint64_t value)
{
	fsr_status status;

	if (!cmdbuf)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(cmdbuf->process->runtime);
	status = record_fence_op(cmdbuf, fence, value, false);
	rt_unlock(cmdbuf->process->runtime);
	return status;
}

fsr_status
fsr_cmdbuf_raw(struct fsr_cmdbuf *cmdbuf, uint32_t type, uint32_t flags, uint64_t a, uint64_t b,
	       uint64_t c)
{
	fsr_status status;

	if (!cmdbuf)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(cmdbuf->process->runtime);
	status = append(
	    cmdbuf, (struct hw_packet){.type = type, .flags = flags, .a = a, .b = b, .c = c}, true);
	rt_unlock(cmdbuf->process->runtime);
	return status;
}

/*
 * Only work may be written raw: fence, log, begin and progress instructions are the UMD's
 * own, and a raw one could name a fence the process never opened or break the log order.
 */
static bool
is_well_formed(const struct fsr_cmdbuf *cmdbuf)
{
	for (size_t i = 0; i < cmdbuf->count; i++) {
		const struct hw_packet *packet = &cmdbuf->packets[i];

		if (!cmdbuf->is_raw[i])
			continue;
		if (packet->type != HW_PACKET_WORK || packet->flags != 0 || packet->a == 0 ||
		    packet->a >= UMD_MAX_WORK_TICKS)
			return false;
	}
	return true;
}

/*
 * The ring (UMS-13) and what the UMD does with the status it reads after it (UMS-14,
 * UMS-24): CONNECTED, done; CONNECTED_NOTIFY_KMD, NotifyWorkSubmission; RETRY, ConnectDoorbell,
 * whose connect makes the GPU take the work (no second ring, UMS-15); ABORT, the queue is dead
 * (FSR_ERR_DEVICE_LOST). The ring itself is a load of the mapping and a store through it — a
 * store to the GPU's doorbell word or to the dummy page, which reaches no engine — and calls
 * nothing in the OS or the KMD (UMS-25).
 */
static fsr_status
ring_doorbell(struct os_hwqueue *queue, struct fsr_process *process, uint64_t progress_value,
	      uint64_t write_ptr)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_doorbell *doorbell = queue->doorbell;
	struct rt_doorbell_page *page =
	    (struct rt_doorbell_page *) (uintptr_t) atomic_load_explicit(&doorbell->mapping,
									 memory_order_seq_cst);
	enum fstp_doorbell_status status;
	fsr_status result = FSR_OK;

	/*
	 * Between the load and the store the OS may rotate: a stale ring, which the GPU survives
	 * (it reads the owner's ring control word, not the value). Global model: the value names
	 * the queue (its doorbell); dedicated: the write pointer.
	 */
	rt_point(runtime, RT_POINT_UMD_RING_DOORBELL);
	rt_doorbell_page_store(runtime, page,
			       queue->adapter->ums_caps.doorbell_model == FSR_DOORBELL_GLOBAL
				   ? doorbell->handle
				   : write_ptr);
	status = (enum fstp_doorbell_status) rt_word_load(
	    runtime, &doorbell->status, memory_order_seq_cst, RT_POINT_UMD_READ_DOORBELL_STATUS);
	FSR_TRACE(runtime, fencescope_umd, doorbell_ring, process->id, queue->handle,
		  doorbell->handle, write_ptr, (int) status);
	switch (status) {
	case FSTP_DOORBELL_STATUS_CONNECTED:
		break;
	case FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD:
		os_kmt_notify_work_submission(queue, progress_value);
		break;
	case FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY:
		result = os_kmt_connect_doorbell(queue, &status);
		break;
	case FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT:
	default:
		result = FSR_ERR_DEVICE_LOST;
		break;
	}
	return result;
}

/*
 * The fault injector's CORRUPT_PACKET (docs/robustness.md): the buffer the UMD validated and
 * wrote changes in the ring's memory before the GPU reads it — its first work or progress
 * instruction (one that holds no fence reference) becomes a command that does not exist.
 */
static void
corrupt_fault(struct os_hwqueue *queue, uint64_t write_ptr, const struct hw_packet *packets,
	      size_t count)
{
	struct fsr_runtime *runtime = queue->adapter->runtime;
	uint64_t parameter;

	/* A buffer the GPU will never take (a dead doorbell) can meet no GPU: no fault there. */
	if (atomic_load_explicit(&queue->doorbell->status, memory_order_relaxed) ==
		FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT ||
	    rt_fault_is_doomed(runtime, queue->context->handle) ||
	    !rt_fault_take(runtime, FSR_FAULT_CORRUPT_PACKET, queue->adapter->id, queue->engine_id,
			   queue->handle, &parameter))
		return;
	for (size_t i = 1; i < count; i++) {
		struct hw_packet slot = packets[i];

		if (slot.type != HW_PACKET_WORK && slot.type != HW_PACKET_PROGRESS)
			continue;
		slot.type = UMD_CORRUPT_COMMAND;
		rt_ring_write(runtime, queue, write_ptr + i * sizeof(slot), &slot, RT_POINT_NONE);
		queue->umd_is_corrupted = true;
		rt_fault_doom(runtime, queue->context->handle);
		rt_fault_fired(runtime, FSR_FAULT_CORRUPT_PACKET, queue->adapter->id,
			       queue->engine_id, queue->handle, packets[0].a);
		return;
	}
}

/*
 * The fault injector's PROCESS_KILLED (docs/robustness.md), user mode: the process dies between
 * writing its ring and ringing the doorbell; kernel mode: once the OS queued its buffer. A dead
 * process rings nothing more; fsr_cmdbuf_submit has the OS end it once it lets go of the lock.
 */
/*
 * A queue of the process holds a corrupted buffer the GPU has not met yet: killing the process
 * now would abandon it, and the corruption would have no effect to account for.
 */
static bool
has_unmet_corruption(struct fsr_process *process)
{
	for (struct os_device *d = process->devices; d; d = d->next_in_process)
		for (struct os_context *c = d->contexts; c; c = c->next_in_device)
			for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
				if (q->umd_is_corrupted && !q->hw_is_faulted)
					return true;
	return false;
}

/* Whether a context of the process met a fatal fault; `is_dooming`: each does now. */
static bool
is_doomed(struct fsr_process *process, bool is_dooming)
{
	bool is_any = false;

	for (struct os_device *d = process->devices; d; d = d->next_in_process)
		for (struct os_context *c = d->contexts; c; c = c->next_in_device) {
			is_any |= rt_fault_is_doomed(process->runtime, c->handle);
			if (is_dooming)
				rt_fault_doom(process->runtime, c->handle);
		}
	return is_any;
}

static bool
kill_fault(struct os_hwqueue *queue, struct fsr_process *process)
{
	struct fsr_runtime *runtime = process->runtime;
	uint64_t parameter;

	if (process->is_killed)
		return true;
	if (!rt_faults_are_on(runtime) || has_unmet_corruption(process) ||
	    is_doomed(process, false) ||
	    !rt_fault_take(runtime, FSR_FAULT_PROCESS_KILLED, queue->adapter->id, queue->engine_id,
			   queue->handle, &parameter))
		return false;
	rt_fault_fired(runtime, FSR_FAULT_PROCESS_KILLED, queue->adapter->id, queue->engine_id,
		       queue->handle, process->id);
	process->is_killed = true;
	is_doomed(process, true);
	return true;
}

static fsr_status
write_ring(struct os_hwqueue *queue, struct fsr_process *process, uint64_t progress_value,
	   const struct hw_packet *packets, size_t count, fsr_status *ring_status)
{
	struct fsr_runtime *runtime = process->runtime;
	/* The UMD's own write pointer; acquire the GPU's read pointer before reusing slots. */
	uint64_t write_ptr = rt_word_load(runtime, &queue->control->write_ptr_bytes,
					  memory_order_relaxed, RT_POINT_UMD_READ_WRITE_PTR);
	uint64_t read_ptr = rt_word_load(runtime, &queue->control->read_ptr_bytes,
					 memory_order_acquire, RT_POINT_UMD_READ_READ_PTR);
	uint64_t size = count * sizeof(struct hw_packet);

	/* UMS-13: no doorbell, no way to tell the GPU; the caller refuses before (submit). */
	if (!queue->doorbell)
		return FSR_ERR_BAD_STATE;
	if (write_ptr - read_ptr + size > (uint64_t) queue->ring_entries * sizeof(struct hw_packet))
		return FSR_ERR_NO_RESOURCES;
	for (size_t i = 0; i < count; i++)
		rt_ring_write(runtime, queue, write_ptr + i * sizeof(struct hw_packet), &packets[i],
			      RT_POINT_UMD_WRITE_RING_SLOT);
	/*
	 * HPF-03, HPF-04: LastQueuedValue before the buffer becomes visible to the GPU; release,
	 * so that whoever sees the progress value the buffer writes sees LastQueuedValue ≥ it.
	 * The write pointer's release publishes the slots (the GPU acquires it).
	 */
	rt_word_store(runtime, &queue->last_queued_value, progress_value, memory_order_release,
		      RT_POINT_UMD_WRITE_LAST_QUEUED);
	rt_word_store(runtime, &queue->control->write_ptr_bytes, write_ptr + size,
		      memory_order_release, RT_POINT_UMD_WRITE_WRITE_PTR);
	FSR_TRACE(runtime, fencescope_umd, ring_write, process->id, queue->handle, progress_value,
		  write_ptr + size, (uint32_t) size);
	if (rt_faults_are_on(runtime)) {
		if (kill_fault(queue, process)) {
			*ring_status = FSR_ERR_DESTROYED; /* killed before its ring */
			return FSR_OK;
		}
		corrupt_fault(queue, write_ptr, packets, count);
	}
	*ring_status = ring_doorbell(queue, process, progress_value, write_ptr + size);
	return FSR_OK;
}

fsr_status
fsr_cmdbuf_submit(struct fsr_cmdbuf *cmdbuf, uint64_t *progress_value)
{
	struct fsr_process *process;
	struct fsr_runtime *runtime;
	struct os_hwqueue *queue;
	struct hw_packet *packets = NULL;
	size_t count;
	fsr_status status = FSR_OK;
	fsr_status ring_status = FSR_OK; /* queued, but the doorbell said the queue is dead */

	if (!cmdbuf)
		return FSR_ERR_INVALID_ARGUMENT;
	process = cmdbuf->process;
	runtime = process->runtime;
	queue = cmdbuf->queue;
	rt_lock(runtime);
	if (!is_queue_alive(cmdbuf) || queue->is_abandoned)
		status = FSR_ERR_DESTROYED;
	else if (!is_well_formed(cmdbuf))
		status = FSR_ERR_MALFORMED_PACKET;
	else if (queue->mode == FSR_SUBMIT_USER_MODE && !queue->doorbell)
		/*
		 * UMS-13: a user-mode queue takes work only through its doorbell. One that never
		 * had one, or whose doorbell was destroyed, refuses the buffer (a call_failed):
		 * written into a ring no doorbell will ever announce, it would wait for nothing.
		 */
		status = FSR_ERR_BAD_STATE;
	if (status == FSR_OK)
		flush_dropped(queue, process);
	if (status == FSR_OK && cmdbuf->progress_value !=
				    rt_queue_last_queued(queue, RT_POINT_UMD_READ_LAST_QUEUED) + 1)
		status = FSR_ERR_BAD_STATE; /* HPF-01: buffers are submitted in recording order */
	if (status != FSR_OK)
		goto refuse;

	count = buffer_packet_count(queue, cmdbuf->count);
	packets = malloc(count * sizeof(*packets));
	if (!packets) {
		status = FSR_ERR_NO_RESOURCES;
		goto refuse;
	}
	packets[0] = (struct hw_packet){.type = HW_PACKET_BEGIN,
					.a = ++queue->adapter->next_packet_id,
					.b = cmdbuf->progress_value};
	if (cmdbuf->count > 0) /* an empty buffer has no packet array: memcpy(NULL) is UB */
		memcpy(&packets[1], cmdbuf->packets, cmdbuf->count * sizeof(*packets));
	/* HPF-02: the last instruction writes the progress value (and, user mode, logs it). */
	end_with_progress(queue, packets, cmdbuf->count + 1, cmdbuf->progress_value, packets[0].a);

	if (queue->mode == FSR_SUBMIT_USER_MODE) {
		status = write_buffer_to_ring(queue, process, cmdbuf->progress_value, packets,
					      count, &ring_status);
		free(packets);
		packets = NULL;
	} else {
		status =
		    os_kmt_submit_command(queue, process, cmdbuf->progress_value, packets, count);
		if (status == FSR_OK)
			packets = NULL; /* the OS's now */
		if (status == FSR_OK && kill_fault(queue, process))
			ring_status = FSR_ERR_DESTROYED; /* killed mid-submission */
	}
	if (status != FSR_OK)
		goto refuse;
	flush_dropped(queue, process);
	if (progress_value)
		*progress_value = cmdbuf->progress_value;
	rt_unlock(runtime);
	free_cmdbuf(cmdbuf);
	if (process->is_killed) {
		/* TRM-03 to TRM-05: the OS ends the dead process abnormally; it stays a husk. */
		os_kmt_end_killed_process(process);
		return FSR_ERR_DESTROYED;
	}
	return ring_status;
refuse:
	free(packets);
	release_packets(cmdbuf);
	give_back_progress_value(cmdbuf);
	rt_refuse(runtime, process->id, "SubmitCommand", cmdbuf->queue_handle, status);
	rt_unlock(runtime);
	free_cmdbuf(cmdbuf);
	return status;
}

/* ---- the fall-back to a kernel-mode queue (UMS-16) ---------------------------------------- */

/*
 * Resubmits the packets a dead ring had not run to the kernel-mode queue, one command buffer
 * per progress write: BEGIN with the new queue's next progress value, the work and memory
 * accesses, waits and signals as a kernel-mode buffer names them (by the process's handle, which
 * the log instruction after each carries; log instructions go: a kernel-mode queue has no log,
 * LOG-02), then the progress write. A buffer the GPU had begun goes on from where it stopped.
 * The packets' fence references pass to the new buffers. Lock held.
 */
static fsr_status
resubmit_salvage(struct os_hwqueue *queue, struct fsr_process *process,
		 struct os_ring_salvage *salvage)
{
	struct hw_packet *packets = NULL;
	size_t count = 0;
	size_t first = 0; /* the first packet of the buffer being built */

	for (size_t i = 0; i < salvage->count; i++) {
		struct hw_packet packet = salvage->packets[i];
		uint64_t progress_value;
		fsr_status status;

		if (!packets) {
			/* room for BEGIN, the rest of the salvage and PROGRESS */
			packets = malloc((salvage->count + 2) * sizeof(*packets));
			if (!packets)
				return FSR_ERR_NO_RESOURCES;
			count = 1;
		}
		switch (packet.type) {
		case HW_PACKET_WORK:
		case HW_PACKET_ACCESS:
			packets[count++] = packet;
			break;
		case HW_PACKET_WAIT:
		case HW_PACKET_SIGNAL:
			if (i + 1 < salvage->count && salvage->packets[i + 1].type == HW_PACKET_LOG)
				packet.c = salvage->packets[i + 1].c; /* the process's handle */
			packets[count++] = packet;
			break;
		case HW_PACKET_PROGRESS:
			progress_value = ++queue->next_progress_value;
			packets[0] = (struct hw_packet){.type = HW_PACKET_BEGIN,
							.a = ++queue->adapter->next_packet_id,
							.b = progress_value};
			count =
			    end_with_progress(queue, packets, count, progress_value, packets[0].a);
			status =
			    os_kmt_submit_command(queue, process, progress_value, packets, count);
			if (status != FSR_OK) {
				free(packets);
				return status;
			}
			packets = NULL; /* the OS's now, references and all */
			for (; first <= i; first++)
				salvage->packets[first].type = HW_PACKET_LOG; /* moved */
			break;
		default: /* BEGIN, LOG: the new buffers have their own */
			break;
		}
	}
	/* A ring ends with whole buffers: nothing is left without its progress write. */
	free(packets);
	return FSR_OK;
}

fsr_status
fsr_hwqueue_fall_back_to_kernel_mode(struct fsr_process *process, fsr_handle hwqueue,
				     fsr_handle *kernel_queue, uint64_t *progress_base)
{
	struct fsr_runtime *runtime;
	struct os_ring_salvage salvage = {0};
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_KERNEL_MODE};
	struct rt_object *object;
	fsr_handle context = 0;
	uint64_t base = 0;
	fsr_status status;

	if (!process || !kernel_queue)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	/* UMS-16: the dead queue goes, without waiting; the ring is the UMD's to read then. */
	status = os_kmt_destroy_dead_hwqueue(process, hwqueue, &context, &base, &salvage);
	if (status != FSR_OK)
		return status;
	for (size_t i = 0; i < salvage.count; i++) {
		if (salvage.packets[i].type == HW_PACKET_PROGRESS) {
			base = salvage.packets[i].a - 1; /* the first buffer not completed */
			break;
		}
	}
	status = fsr_hwqueue_create(process, context, &config, kernel_queue);
	rt_lock(runtime);
	if (status == FSR_OK) {
		status = os_kmt_lookup(process, *kernel_queue, RT_OBJECT_HWQUEUE, &object);
		if (status == FSR_OK)
			status = resubmit_salvage(object->pointer, process, &salvage);
	}
	/* What could not be resubmitted lets its fences go. */
	for (size_t i = 0; i < salvage.count; i++) {
		const struct hw_packet *packet = &salvage.packets[i];

		if (packet->type == HW_PACKET_WAIT || packet->type == HW_PACKET_SIGNAL) {
			struct fsr_fence *creator = rt_map_get(&runtime->fences, packet->a);
			struct fsr_fence *fence = creator;

			/* A cross-adapter fence: the object the ring named (its adapter's). */
			RT_FOR_EACH_FENCE_MEMBER(member, creator)
				if (member == (struct fsr_fence *) (uintptr_t) packet->c)
					fence = member;
			if (fence)
				os_kmt_release_fence(fence);
		}
	}
	rt_unlock(runtime);
	free(salvage.packets);
	if (progress_base)
		*progress_base = base;
	return status;
}
