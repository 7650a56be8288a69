/* SPDX-License-Identifier: MIT */
/*
 * Devices, hardware contexts and hardware queues as the OS creates and destroys them, and the
 * OS scheduler of kernel-mode queues (spec 003, PRE-15): their command buffers wait in a
 * software queue; the OS runs their fence waits and signals itself, as software commands
 * (LOG-02, XAD-16, XAD-17), and hands their work to the engine as DMA packets, one at a time,
 * learning of each completion from an interrupt (INT-01).
 */
#include <stdlib.h>
#include <string.h>

#include "os/os-private.h"

#define OS_DEFAULT_RING_BYTES (64u * 1024u)

static fsr_status
add_object(struct fsr_process *process, fsr_handle handle, enum rt_object_type type, void *pointer)
{
	struct rt_object *object = calloc(1, sizeof(*object));

	if (!object)
		return FSR_ERR_NO_RESOURCES;
	*object = (struct rt_object){.type = type, .pointer = pointer};
	if (rt_map_insert(&process->handles, handle, object) != 0) {
		free(object);
		return FSR_ERR_NO_RESOURCES;
	}
	return FSR_OK;
}

static void
remove_object(struct fsr_process *process, fsr_handle handle)
{
	free(rt_map_remove(&process->handles, handle));
}

/* ---- devices ------------------------------------------------------------------------------ */

fsr_status
fsr_device_create(struct fsr_process *process, uint32_t adapter_id, fsr_handle *device_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_device *device = NULL;
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (adapter_id >= runtime->adapter_count || !device_handle) {
		status = rt_refuse(runtime, process->id, "CreateDevice", adapter_id,
				   FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	device = calloc(1, sizeof(*device));
	if (!device) {
		status = rt_refuse(runtime, process->id, "CreateDevice", 0, FSR_ERR_NO_RESOURCES);
		goto end;
	}
	device->handle = rt_new_kernel_handle(runtime, RT_OBJECT_DEVICE);
	device->process = process;
	device->adapter = runtime->adapters[adapter_id];
	status = add_object(process, device->handle, RT_OBJECT_DEVICE, device);
	if (status != FSR_OK) {
		free(device);
		rt_refuse(runtime, process->id, "CreateDevice", 0, status);
		goto end;
	}
	device->next_in_process = process->devices;
	process->devices = device;
	FSR_TRACE(runtime, fencescope_os, device_create, process->id, adapter_id, device->handle);
	*device_handle = device->handle;
end:
	rt_unlock(runtime);
	return status;
}

fsr_status
fsr_device_destroy(struct fsr_process *process, fsr_handle device_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct rt_object *object;
	struct os_device *device;
	fsr_status status;

	rt_lock(runtime);
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "DestroyDevice", device_handle, status);
		rt_unlock(runtime);
		return status;
	}
	device = object->pointer;
	rt_unlock(runtime);

	while (device->contexts)
		fsr_context_destroy(process, device->contexts->handle);

	rt_lock(runtime);
	/* The process's fence handles made on this device go with it. */
	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;
		struct rt_object *handle_object;

		if (!rt_map_next(&process->handles, &cursor, &key, &value))
			break;
		handle_object = value;
		if (handle_object->type == RT_OBJECT_FENCE && handle_object->device == device) {
			rt_map_remove(&process->handles, key);
			os_fence_close_handle(process, key, handle_object->pointer);
			free(handle_object);
		}
	}
	/* Shared fences opened elsewhere outlive their creating device. */
	while (device->fences) {
		struct fsr_fence *fence = device->fences;

		device->fences = fence->next_in_device;
		fence->device = NULL;
	}
	for (struct os_device **link = &process->devices; *link; link = &(*link)->next_in_process) {
		if (*link == device) {
			*link = device->next_in_process;
			break;
		}
	}
	os_device_free_allocations(device); /* RES-04 */
	FSR_TRACE(runtime, fencescope_os, device_destroy, process->id, device->adapter->id,
		  device->handle);
	remove_object(process, device_handle);
	free(device);
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return FSR_OK;
}

_Static_assert((int) FSR_DEVICE_LOSS_TIMEOUT == (int) FSTP_LOSS_REASON_TIMEOUT &&
		   (int) FSR_DEVICE_LOSS_ENGINE_HUNG == (int) FSTP_LOSS_REASON_ENGINE_HUNG &&
		   (int) FSR_DEVICE_LOSS_PAGE_FAULT == (int) FSTP_LOSS_REASON_PAGE_FAULT &&
		   (int) FSR_DEVICE_LOSS_GPU_STOP == (int) FSTP_LOSS_REASON_GPU_STOP,
	       "the public loss reasons are the trace's");

fsr_status
fsr_device_mark_lost(struct fsr_process *process, fsr_handle device_handle,
		     enum fsr_device_loss_reason reason)
{
	struct rt_object *object;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status == FSR_OK && (unsigned) reason > FSR_DEVICE_LOSS_GPU_STOP)
		status = FSR_ERR_INVALID_ARGUMENT;
	if (status == FSR_OK)
		os_device_lose(object->pointer, (enum fstp_loss_reason) reason);
	else
		rt_refuse(process->runtime, process->id, "MarkDeviceLost", device_handle, status);
	rt_unlock(process->runtime);
	return status;
}

/* ---- contexts ----------------------------------------------------------------------------- */

fsr_status
fsr_context_create(struct fsr_process *process, fsr_handle device_handle, uint32_t engine_id,
		   fsr_handle *context_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct rt_object *object;
	struct os_device *device;
	struct os_context *context;
	fsr_status status;

	rt_lock(runtime);
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status != FSR_OK)
		goto refuse;
	device = object->pointer;
	if (engine_id >= device->adapter->config.engine_count || !context_handle) {
		status = FSR_ERR_INVALID_ARGUMENT;
		goto refuse;
	}
	context = calloc(1, sizeof(*context));
	if (!context) {
		status = FSR_ERR_NO_RESOURCES;
		goto refuse;
	}
	context->handle = rt_new_kernel_handle(runtime, RT_OBJECT_CONTEXT);
	context->device = device;
	context->process_id = process->id;
	context->engine_id = engine_id;
	status = add_object(process, context->handle, RT_OBJECT_CONTEXT, context);
	if (status != FSR_OK) {
		free(context);
		goto refuse;
	}
	context->next_in_device = device->contexts;
	device->contexts = context;
	FSR_TRACE(runtime, fencescope_os, context_create, process->id, device->handle,
		  context->handle, engine_id);
	os_context_init_scheduling(context);   /* PRE-15: context_schedule, after context_create */
	os_context_create_allocation(context); /* PRE-14, when configured */
	os_vidmm_context_created(context);     /* MMU-01: its process's VA space, if any */
	*context_handle = context->handle;
	goto end;
refuse:
	rt_refuse(runtime, process->id, "CreateContext", device_handle, status);
end:
	rt_unlock(runtime);
	return status;
}

fsr_status
fsr_context_destroy(struct fsr_process *process, fsr_handle context_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct rt_object *object;
	struct os_context *context;
	fsr_status status;

	rt_lock(runtime);
	status = os_kmt_lookup(process, context_handle, RT_OBJECT_CONTEXT, &object);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "DestroyContext", context_handle, status);
		rt_unlock(runtime);
		return status;
	}
	context = object->pointer;
	rt_unlock(runtime);

	while (context->queues)
		fsr_hwqueue_destroy(process, context->queues->handle);

	rt_lock(runtime);
	for (struct os_context **link = &context->device->contexts; *link;
	     link = &(*link)->next_in_device) {
		if (*link == context) {
			*link = context->next_in_device;
			break;
		}
	}
	os_context_destroy_allocation(context); /* PRE-14 */
	FSR_TRACE(runtime, fencescope_os, context_destroy, process->id, context->device->handle,
		  context->handle, context->engine_id);
	remove_object(process, context_handle);
	free(context);
	rt_unlock(runtime);
	return FSR_OK;
}

/* ---- suspend and resume (SUS) ------------------------------------------------------------ */

fsr_status
os_context_suspend(struct os_context *context, enum fstp_preempt_reason reason)
{
	struct fsr_adapter *adapter = context->device->adapter;
	uint32_t bit = UINT32_C(1) << reason;
	bool was_suspended = os_context_is_suspended(context);

	if (context->os_suspend_reasons & bit)
		return FSR_ERR_BAD_STATE;
	context->os_suspend_reasons |= bit;
	/* SUS-01: one SuspendContext, when the first reason comes; the KMD does the rest. */
	if (!was_suspended) {
		adapter->ddi.DxgkDdiSuspendContext(adapter->miniport, context, reason);
		/*
		 * The application's suspension does not wait for the work item in flight: the
		 * engine preempts it at its granularity (reason SUSPEND) and the context resumes
		 * it at its saved point (docs/runtime.md "Suspend and resume as built").
		 */
		if (reason == FSTP_PREEMPT_REASON_SUSPEND &&
		    adapter->ddi.DxgkDdiQueryEngineContext(adapter->miniport, context->engine_id) ==
			context)
			os_preempt_request(adapter, context->engine_id,
					   FSTP_PREEMPT_REASON_SUSPEND);
	}
	return FSR_OK;
}

fsr_status
os_context_resume(struct os_context *context, enum fstp_preempt_reason reason)
{
	struct fsr_adapter *adapter = context->device->adapter;
	uint32_t bit = UINT32_C(1) << reason;

	if (!(context->os_suspend_reasons & bit))
		return FSR_ERR_BAD_STATE;
	context->os_suspend_reasons &= ~bit;
	if (os_context_is_suspended(context))
		return FSR_OK; /* still suspended for another reason */
	/* SUS-04, SUS-05: ResumeContext; SUS-07: the kernel-mode queues' buffers go on. */
	adapter->ddi.DxgkDdiResumeContext(adapter->miniport, context, reason);
	os_km_schedule(adapter->runtime);
	return FSR_OK;
}

static fsr_status
context_call(struct fsr_process *process, fsr_handle context_handle, const char *call,
	     bool is_suspend)
{
	struct fsr_runtime *runtime;
	struct rt_object *object;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	rt_lock(runtime);
	status = os_kmt_lookup(process, context_handle, RT_OBJECT_CONTEXT, &object);
	if (status == FSR_OK)
		status = is_suspend
			     ? os_context_suspend(object->pointer, FSTP_PREEMPT_REASON_SUSPEND)
			     : os_context_resume(object->pointer, FSTP_PREEMPT_REASON_SUSPEND);
	if (status != FSR_OK)
		rt_refuse(runtime, process->id, call, context_handle, status);
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return status;
}

fsr_status
fsr_context_suspend(struct fsr_process *process, fsr_handle context)
{
	return context_call(process, context, "SuspendContext", true);
}

fsr_status
fsr_context_resume(struct fsr_process *process, fsr_handle context)
{
	return context_call(process, context, "ResumeContext", false);
}

/* ---- scheduling attributes (PRE-15; os/scheduler.c) -------------------------------------- */

fsr_status
fsr_context_set_scheduling(struct fsr_process *process, fsr_handle context_handle,
			   uint32_t priority, uint64_t time_slice_ns)
{
	struct fsr_runtime *runtime;
	struct rt_object *object;
	struct os_context *context;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	rt_lock(runtime);
	status = os_kmt_lookup(process, context_handle, RT_OBJECT_CONTEXT, &object);
	if (status == FSR_OK && priority > FSR_MAX_CONTEXT_PRIORITY)
		status = FSR_ERR_INVALID_ARGUMENT;
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "SetContextSchedulingProperties", context_handle,
			  status);
		rt_unlock(runtime);
		return status;
	}
	context = object->pointer;
	os_context_set_scheduling(context, priority, time_slice_ns);
	/* The scheduler looks at its queues again, and its timer follows (PRE-15). */
	os_km_schedule(runtime);
	os_sched_kick(runtime);
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return FSR_OK;
}

/* ---- hardware queues ---------------------------------------------------------------------- */

bool
os_is_tracing(struct fsr_runtime *runtime)
{
	return runtime->is_tracing_forced || FSR_IS_TRACING();
}

void
fsr_test_force_tracing(struct fsr_runtime *runtime, bool is_tracing)
{
	rt_lock(runtime);
	runtime->is_tracing_forced = is_tracing;
	rt_unlock(runtime);
}

static void
init_logs(struct os_hwqueue *queue)
{
	struct fsr_adapter *adapter = queue->adapter;
	uint32_t capacity = adapter->config.log_capacity_entries;

	/* LOG-20: with tracing on, the OS first grows the logs so that fewer entries are lost. */
	if (!os_is_tracing(adapter->runtime))
		adapter->runtime->are_logs_grown_for_tracing = false; /* this queue's are not */
	if (os_is_tracing(adapter->runtime) && !adapter->config.keep_log_size_when_tracing) {
		uint32_t grown = capacity * FSR_TRACING_LOG_GROW;

		for (int type = 0; type < 2; type++)
			FSR_TRACE(adapter->runtime, fencescope_os, fence_log_resize, adapter->id,
				  queue->handle, type, capacity, grown,
				  FSTP_LOG_RESIZE_REASON_TRACING_ENABLED);
		capacity = grown;
	}
	/*
	 * LOG-01, LOG-03: two logs, and SetNativeFenceLogBuffer once for each: the OS allocates the
	 * buffer, the driver programs the GPU with it (and hands back the one before: none here).
	 */
	for (int type = 0; type < 2; type++) {
		struct hw_fence_log log = {0};

		rt_fence_log_alloc(&log, capacity, 1);
		adapter->ddi.DxgkDdiSetNativeFenceLogBuffer(adapter->miniport, queue,
							    (enum fstp_log_type) type, &log);
		rt_fence_log_free(&log);
	}
}

/*
 * LOG-04, LOG-20 on a running queue: re-creates both logs grown for tracing and hands them to
 * the driver again. Only when the queue is idle — every submitted buffer complete — since the
 * UMD has programmed the log index of each queued entry into the buffers (LOG-12) and those
 * would point into the old log. The entries not read yet are read first, so nothing written to
 * the old logs is lost; the new logs start empty at generation + 1.
 */
static bool
regrow_logs_for_tracing(struct os_hwqueue *queue)
{
	struct fsr_adapter *adapter = queue->adapter;
	uint32_t capacity = adapter->config.log_capacity_entries;
	uint32_t grown = capacity * FSR_TRACING_LOG_GROW;

	if (adapter->config.keep_log_size_when_tracing || queue->logs[0].capacity >= grown)
		return true;
	if (atomic_load(&queue->last_queued_value) >
	    atomic_load(&queue->progress_fence->current_value))
		return false; /* not yet: a later OS step tries again */
	os_read_logs(queue);
	for (int type = 0; type < 2; type++) {
		struct hw_fence_log log = {0};

		FSR_TRACE(adapter->runtime, fencescope_os, fence_log_resize, adapter->id,
			  queue->handle, type, queue->logs[type].capacity, grown,
			  FSTP_LOG_RESIZE_REASON_TRACING_ENABLED);
		rt_fence_log_alloc(&log, grown, queue->logs[type].generation + 1);
		queue->os_log_position[type] = 0;
		queue->umd_log_position[type] = 0;
		/* The driver programs the new log; the old one comes back once the GPU is off it.
		 */
		adapter->ddi.DxgkDdiSetNativeFenceLogBuffer(adapter->miniport, queue,
							    (enum fstp_log_type) type, &log);
		rt_fence_log_free(&log);
	}
	return true;
}

void
os_grow_logs_for_tracing(struct fsr_runtime *runtime)
{
	bool are_all_grown = true;

	if (runtime->are_logs_grown_for_tracing || !os_is_tracing(runtime))
		return;
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		for (uint32_t e = 0; e < adapter->config.engine_count; e++)
			for (struct os_hwqueue *q = adapter->user_queues[e]; q;
			     q = q->next_user_queue)
				if (!regrow_logs_for_tracing(q))
					are_all_grown = false;
	}
	runtime->are_logs_grown_for_tracing = are_all_grown;
}

/*
 * A user-mode queue's ring buffer and ring buffer control, each with a reference for the queue:
 * the UMD's (resident, RES-01, of the device, big enough), or two the OS makes itself.
 */
static fsr_status
user_ring_allocations(struct fsr_process *process, struct os_device *device,
		      const struct fsr_hwqueue_config *config, struct os_allocation **ring,
		      struct os_allocation **ring_control)
{
	uint64_t ring_bytes;
	fsr_status status;

	if (!config->ring_allocation && !config->ring_control_allocation) {
		ring_bytes =
		    config->ring_size_bytes ? config->ring_size_bytes : OS_DEFAULT_RING_BYTES;
		if (ring_bytes % sizeof(struct hw_packet) != 0 ||
		    ring_bytes < 8 * sizeof(struct hw_packet))
			return FSR_ERR_INVALID_ARGUMENT;
		status = os_allocation_new(device, ring_bytes, true, ring);
		if (status != FSR_OK)
			return status;
		status =
		    os_allocation_new(device, sizeof(struct rt_ring_control), true, ring_control);
		if (status != FSR_OK) {
			os_allocation_unref(*ring);
			*ring = NULL;
		}
		return status;
	}
	if (os_allocation_lookup(process, config->ring_allocation, ring) != FSR_OK ||
	    os_allocation_lookup(process, config->ring_control_allocation, ring_control) !=
		FSR_OK ||
	    *ring == *ring_control || (*ring)->device != device ||
	    (*ring_control)->device != device) {
		*ring = *ring_control = NULL;
		return FSR_ERR_INVALID_ARGUMENT;
	}
	ring_bytes = (*ring)->size_bytes;
	if (ring_bytes % sizeof(struct hw_packet) != 0 ||
	    ring_bytes < 8 * sizeof(struct hw_packet) || ring_bytes > UINT32_MAX ||
	    (*ring_control)->size_bytes < sizeof(struct rt_ring_control)) {
		*ring = *ring_control = NULL;
		return FSR_ERR_INVALID_ARGUMENT;
	}
	/* RES-01: the queue runs from them at once. */
	if (!os_allocation_is_resident(*ring) || !os_allocation_is_resident(*ring_control)) {
		*ring = *ring_control = NULL;
		return FSR_ERR_BAD_STATE;
	}
	os_allocation_ref(*ring);
	os_allocation_ref(*ring_control);
	return FSR_OK;
}

fsr_status
fsr_hwqueue_create(struct fsr_process *process, fsr_handle context_handle,
		   const struct fsr_hwqueue_config *config, fsr_handle *hwqueue_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_hwqueue *queue = NULL;
	struct rt_object *object;
	struct os_context *context;
	struct os_allocation *ring = NULL;
	struct os_allocation *ring_control = NULL;
	uint32_t ring_bytes = 0;
	fsr_status status;

	rt_lock(runtime);
	status = os_kmt_lookup(process, context_handle, RT_OBJECT_CONTEXT, &object);
	if (status != FSR_OK)
		goto refuse;
	context = object->pointer;
	if (!config || !hwqueue_handle ||
	    (config->mode != FSR_SUBMIT_KERNEL_MODE && config->mode != FSR_SUBMIT_USER_MODE)) {
		status = FSR_ERR_INVALID_ARGUMENT;
		goto refuse;
	}
	if (config->mode == FSR_SUBMIT_USER_MODE) {
		/*
		 * UMS-05: only on a node that supports user-mode submission, of an adapter whose
		 * driver gave doorbell caps the OS can use (UMS-06).
		 */
		if (!context->device->adapter->engine_caps[context->engine_id]
			 .supports_user_mode_submission ||
		    context->device->adapter->ums_caps.doorbell_model == FSR_DOORBELL_NONE) {
			status = FSR_ERR_NOT_SUPPORTED;
			goto refuse;
		}
		if (context->device->is_lost) {
			/* UMS-16: a lost device takes kernel-mode queues only (the fall-back). */
			status = FSR_ERR_DEVICE_LOST;
			goto refuse;
		}
		status =
		    user_ring_allocations(process, context->device, config, &ring, &ring_control);
		if (status != FSR_OK)
			goto refuse;
		ring_bytes = (uint32_t) ring->size_bytes;
	}
	queue = calloc(1, sizeof(*queue));
	if (!queue) {
		status = FSR_ERR_NO_RESOURCES;
		goto refuse;
	}
	if (ring) {
		queue->ring_allocation = ring;
		queue->ring_control_allocation = ring_control;
		queue->ring = ring->storage;
		queue->control = ring_control->storage;
		ring = ring_control = NULL; /* the queue's references now */
	}
	queue->handle = rt_new_kernel_handle(runtime, RT_OBJECT_HWQUEUE);
	queue->process = process;
	queue->context = context;
	queue->adapter = context->device->adapter;
	queue->engine_id = context->engine_id;
	queue->mode = config->mode;
	queue->ring_entries = ring_bytes / sizeof(struct hw_packet);
	atomic_init(&queue->last_queued_value, 0);
	if (queue->control) {
		/* A new queue's ring starts empty, whatever the allocation held. */
		atomic_store(&queue->control->write_ptr_bytes, 0);
		atomic_store(&queue->control->read_ptr_bytes, 0);
	}
	status = os_fence_new(context->device, 0, 0, &queue->progress_fence);
	if (status != FSR_OK)
		goto refuse;
	queue->progress_fence->packet_refs = 1; /* the queue's own reference */
	/* LOG-10: the handle the UMD names it by in the log entry of each progress write. */
	if (config->mode == FSR_SUBMIT_USER_MODE)
		queue->progress_fence_local_handle = (uint32_t) os_new_local_handle(process);
	status = add_object(process, queue->handle, RT_OBJECT_HWQUEUE, queue);
	if (status != FSR_OK) {
		os_fence_unref_packet(queue->progress_fence);
		goto refuse;
	}
	queue->next_in_context = context->queues;
	context->queues = queue;
	FSR_TRACE(runtime, fencescope_os, hwqueue_create, process->id, context->handle,
		  queue->handle, context->engine_id, config->mode, ring_bytes,
		  queue->progress_fence->global_handle);
	if (queue->mode == FSR_SUBMIT_USER_MODE) {
		struct os_hwqueue **link = &queue->adapter->user_queues[queue->engine_id];

		init_logs(queue);
		while (*link)
			link = &(*link)->next_user_queue;
		*link = queue;
	} else {
		queue->next_km = runtime->km_queues;
		runtime->km_queues = queue;
	}
	queue->adapter->ddi.DxgkDdiCreateHwQueue(queue->adapter->miniport, queue);
	*hwqueue_handle = queue->handle;
	goto end;
refuse:
	if (queue) {
		if (queue->ring_allocation) {
			os_allocation_unref(queue->ring_allocation);
			os_allocation_unref(queue->ring_control_allocation);
		}
		free(queue);
	}
	if (ring) {
		os_allocation_unref(ring);
		os_allocation_unref(ring_control);
	}
	rt_refuse(runtime, process->id, "CreateHwQueue", context_handle, status);
end:
	rt_unlock(runtime);
	return status;
}

static fsr_status
lookup_queue(struct fsr_process *process, fsr_handle handle, const char *call,
	     struct os_hwqueue **queue)
{
	struct rt_object *object;
	fsr_status status = os_kmt_lookup(process, handle, RT_OBJECT_HWQUEUE, &object);

	if (status != FSR_OK)
		return rt_refuse(process->runtime, process->id, call, handle, status);
	*queue = object->pointer;
	return FSR_OK;
}

fsr_status
fsr_hwqueue_get_progress(struct fsr_process *process, fsr_handle hwqueue, uint64_t *last_queued,
			 uint64_t *last_completed)
{
	struct os_hwqueue *queue = NULL;
	fsr_status status;

	rt_lock(process->runtime);
	status = lookup_queue(process, hwqueue, "QueryHwQueueProgress", &queue);
	if (status == FSR_OK) {
		if (last_queued)
			*last_queued = rt_queue_last_queued(queue, RT_POINT_OS_READ_LAST_QUEUED);
		if (last_completed)
			*last_completed =
			    rt_fence_current(queue->progress_fence, RT_POINT_OS_READ_CURRENT_VALUE);
	}
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_hwqueue_wait_progress(struct fsr_process *process, fsr_handle hwqueue, uint64_t progress_value,
			  uint64_t timeout_ns)
{
	struct os_hwqueue *queue = NULL;
	fsr_status status;

	rt_lock(process->runtime);
	status = lookup_queue(process, hwqueue, "WaitForHwQueueProgress", &queue);
	if (status == FSR_OK)
		status = os_fence_wait(process, queue->progress_fence,
				       queue->progress_fence->global_handle, progress_value,
				       timeout_ns, FSR_WAIT_BLOCKING);
	rt_unlock(process->runtime);
	os_run_callbacks(process->runtime);
	return status;
}

static void
unref_packet_fences(struct os_hwqueue *queue, const struct hw_packet *packet)
{
	if (packet->type == HW_PACKET_WAIT || packet->type == HW_PACKET_SIGNAL) {
		struct fsr_fence *fence =
		    rt_fence_on_adapter(queue->adapter->runtime, packet->a, queue->adapter);

		if (fence)
			os_fence_unref_packet(fence);
	}
}

/*
 * A kernel-mode queue blocked on a fence wait has an OS waiter on that fence (km_wait), named
 * by the wait packet at the head of its software queue. It goes with the queue and
 * MonitoredValue is re-armed without it (NFV-06); left behind, a later signal or close of the
 * fence would release it into the freed queue.
 */
static void
retire_km_waiter(struct fsr_runtime *runtime, struct os_hwqueue *queue)
{
	const struct hw_packet *packet;
	struct fsr_fence *fence;

	if (!queue->is_km_blocked || !queue->km_head)
		return;
	packet = &queue->km_head->packets[queue->km_head->position];
	fence = rt_fence_on_adapter(runtime, packet->a, queue->adapter);
	for (struct os_waiter *w = fence ? fence->waiters : NULL; w; w = w->next) {
		if (w->kind == OS_WAITER_KM_QUEUE && w->queue == queue) {
			os_fence_remove_waiter(fence, w);
			free(w);
			os_fence_release_waiters(fence);
			break;
		}
	}
	queue->is_km_blocked = false;
}

/*
 * The queue's ring allocations go (TRM-01, TRM-03): abandoned packets (TRM-04) still hold their
 * fences and let them go, then the queue's references on the two allocations drop (the storage
 * lives on while the UMD or a doorbell holds one, RES-02; the device's destruction frees what the
 * UMD left, RES-04, TRM-06). After DxgkDdiDestroyHwQueue: the engine reads the ring control
 * word of every queue on its list, so the allocations outlive the queue's place there.
 */
static void
release_ring(struct os_hwqueue *queue)
{
	struct fsr_runtime *runtime = queue->adapter->runtime;
	uint64_t read_ptr;
	uint64_t write_ptr;

	if (!queue->ring_allocation)
		return;
	read_ptr = rt_word_load(runtime, &queue->control->read_ptr_bytes, memory_order_acquire,
				RT_POINT_NONE);
	write_ptr = rt_word_load(runtime, &queue->control->write_ptr_bytes, memory_order_acquire,
				 RT_POINT_NONE);
	for (; read_ptr != write_ptr; read_ptr += sizeof(struct hw_packet)) {
		struct hw_packet packet = rt_ring_read(runtime, queue, read_ptr, RT_POINT_NONE);

		unref_packet_fences(queue, &packet);
	}
	os_allocation_unref(queue->ring_allocation);
	os_allocation_unref(queue->ring_control_allocation);
	queue->ring_allocation = NULL;
	queue->ring_control_allocation = NULL;
	queue->ring = NULL;
	queue->control = NULL;
}

void
os_hwqueue_free(struct os_hwqueue *queue)
{
	struct fsr_runtime *runtime = queue->adapter->runtime;

	if (queue->mode == FSR_SUBMIT_USER_MODE) {
		release_ring(queue);
		for (int type = 0; type < 2; type++)
			rt_fence_log_free(&queue->logs[type]);
	}
	retire_km_waiter(runtime, queue); /* before the wait packet lets its fence go */
	free(queue->km_preempted);        /* a preempted packet's remainder never resubmitted */
	queue->km_preempted = NULL;
	while (queue->km_head) {
		struct os_km_buffer *buffer = queue->km_head;

		queue->km_head = buffer->next;
		for (size_t i = buffer->position; i < buffer->count; i++)
			unref_packet_fences(queue, &buffer->packets[i]);
		free(buffer->packets);
		free(buffer);
	}
	/* Whoever still waits for progress the queue will never make: it is gone. */
	while (queue->progress_fence->waiters) {
		struct os_waiter *waiter = queue->progress_fence->waiters;

		os_fence_remove_waiter(queue->progress_fence, waiter);
		os_waiter_finish(runtime, waiter, FSR_ERR_DESTROYED,
				 rt_fence_current(queue->progress_fence, RT_POINT_NONE));
	}
	os_fence_unref_packet(queue->progress_fence);
	free(queue->dropped);
	free(queue);
}

static void
termination_step(struct os_hwqueue *queue, enum fstp_termination_step step, uint64_t value)
{
	FSR_TRACE(queue->adapter->runtime, fencescope_os, termination_step, queue->process->id,
		  queue->handle, (int) step, value);
}

/* After DestroyHwQueue: the packets the GPU had not run go to the UMD, references and all. */
static void
salvage_ring(struct os_hwqueue *queue, struct os_ring_salvage *salvage)
{
	struct fsr_runtime *runtime = queue->adapter->runtime;
	uint64_t read_ptr = rt_word_load(runtime, &queue->control->read_ptr_bytes,
					 memory_order_acquire, RT_POINT_NONE);
	uint64_t write_ptr = rt_word_load(runtime, &queue->control->write_ptr_bytes,
					  memory_order_acquire, RT_POINT_NONE);
	size_t count = (size_t) ((write_ptr - read_ptr) / sizeof(struct hw_packet));

	*salvage = (struct os_ring_salvage){0};
	if (!queue->ring || count == 0)
		return;
	salvage->packets = malloc(count * sizeof(*salvage->packets));
	if (!salvage->packets)
		abort(); /* dropping them would lose work the caller means to resubmit */
	for (size_t i = 0; i < count; i++)
		salvage->packets[i] = rt_ring_read(
		    runtime, queue, read_ptr + i * sizeof(struct hw_packet), RT_POINT_NONE);
	salvage->count = count;
	/* Nothing left for release_ring to let go: the references are the salvage's now. */
	rt_word_store(runtime, &queue->control->read_ptr_bytes, write_ptr, memory_order_release,
		      RT_POINT_NONE);
}

void
os_hwqueue_end(struct fsr_process *process, struct os_hwqueue *queue, enum os_queue_end how,
	       struct os_ring_salvage *salvage)
{
	struct fsr_runtime *runtime = process->runtime;
	bool is_termination = how != OS_QUEUE_DESTROY;
	fsr_handle handle = queue->handle;
	uint64_t completed;

	if (how == OS_QUEUE_TERMINATE_ABNORMAL)
		queue->is_abandoned = true; /* TRM-04: no wait; what is queued is abandoned */
	if (queue->doorbell) {
		/* A dead (ABORT) doorbell's queue has work nothing will take: abandoned. */
		if (atomic_load_explicit(&queue->doorbell->status, memory_order_relaxed) ==
		    FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT)
			queue->is_abandoned = true;
		if (is_termination) {
			/*
			 * TRM-01, TRM-03: DisconnectDoorbell first — the GPU takes the write
			 * pointer — and the doorbell stays until the wait is over. Abnormal: the
			 * device is in error, the status ABORT.
			 */
			os_doorbell_disconnect(queue,
					       how == OS_QUEUE_TERMINATE_ABNORMAL
						   ? FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT
						   : FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
					       FSTP_DISCONNECT_REASON_TERMINATION);
			termination_step(queue, FSTP_TERMINATION_STEP_DISCONNECT, 0);
		} else {
			/* DestroyHwQueue: the doorbell goes first, then the wait (TRM-01). */
			os_doorbell_destroy(queue);
		}
	}
	/*
	 * A suspended context's queue runs nothing until its context resumes: its queued work
	 * is abandoned rather than waited for (it would never come).
	 */
	if (os_context_is_suspended(queue->context))
		queue->is_abandoned = true;
	if (!queue->is_abandoned) {
		/*
		 * TRM-01: LastQueuedValue read *after* the disconnect, so no store the UMD made
		 * before it is missed; what was queued completes before the queue goes, its ring
		 * resident meanwhile (TRM-02).
		 */
		uint64_t last_queued = rt_queue_last_queued(queue, RT_POINT_OS_READ_LAST_QUEUED);
		fsr_status status;

		if (is_termination)
			termination_step(queue, FSTP_TERMINATION_STEP_WAIT_BEGIN, last_queued);
		status = os_fence_wait(process, queue->progress_fence,
				       queue->progress_fence->global_handle, last_queued,
				       FSR_INFINITE, FSR_WAIT_BLOCKING);
		if (status != FSR_OK)
			queue->is_abandoned = true; /* nothing can finish it: abandon (sim) */
		if (is_termination)
			termination_step(queue, FSTP_TERMINATION_STEP_WAIT_END,
					 rt_fence_current(queue->progress_fence, RT_POINT_NONE));
	}
	os_read_logs(queue); /* the last entries reach the trace */
	/*
	 * Sim-mode interleaving: let every engine step this call let run finish before the queue
	 * leaves its engine (letting go of the lock does it; common/interleave.c).
	 */
	if (runtime->interleave) {
		rt_unlock(runtime);
		rt_lock(runtime);
	}
	/*
	 * TRM-01, TRM-03: then DestroyDoorbell (the doorbell's references on the ring allocations
	 * go), DestroyHwQueue, and the queue's own references (release_ring, in os_hwqueue_free).
	 */
	if (queue->doorbell)
		os_doorbell_destroy(queue); /* disconnected already: DxgkDdiDestroyDoorbell only */
	/* Interrupts not handled yet must not name the queue once it is gone. */
	for (struct hw_interrupt *i = runtime->interrupts_head; i; i = i->next) {
		if (i->queue == queue)
			i->queue = NULL;
		if (i->packet && i->packet->queue == queue)
			i->packet->queue = NULL;
	}
	/* Its ring, or its DMA packets, leave the engine. */
	queue->adapter->ddi.DxgkDdiDestroyHwQueue(queue->adapter->miniport, queue);
	if (salvage)
		salvage_ring(queue, salvage);
	for (struct os_hwqueue **link = &queue->adapter->user_queues[queue->engine_id]; *link;
	     link = &(*link)->next_user_queue) {
		if (*link == queue) {
			*link = queue->next_user_queue;
			break;
		}
	}
	if (queue->mode == FSR_SUBMIT_KERNEL_MODE) {
		for (struct os_hwqueue **link = &runtime->km_queues; *link;
		     link = &(*link)->next_km) {
			if (*link == queue) {
				*link = queue->next_km;
				break;
			}
		}
	}
	for (struct os_hwqueue **link = &queue->context->queues; *link;
	     link = &(*link)->next_in_context) {
		if (*link == queue) {
			*link = queue->next_in_context;
			break;
		}
	}
	FSR_TRACE(runtime, fencescope_os, hwqueue_destroy, process->id, queue->handle,
		  rt_queue_last_queued(queue, RT_POINT_NONE),
		  rt_fence_current(queue->progress_fence, RT_POINT_NONE));
	completed = rt_fence_current(queue->progress_fence, RT_POINT_NONE);
	remove_object(process, handle);
	os_hwqueue_free(queue); /* the queue's references on its ring allocations go */
	if (is_termination)
		FSR_TRACE(runtime, fencescope_os, termination_step, process->id, handle,
			  (int) FSTP_TERMINATION_STEP_DESTROY, completed);
}

static bool
is_dead(const struct os_hwqueue *queue)
{
	return queue->doorbell &&
	       atomic_load_explicit(&queue->doorbell->status, memory_order_relaxed) ==
		   FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT;
}

fsr_status
os_kmt_destroy_dead_hwqueue(struct fsr_process *process, fsr_handle hwqueue, fsr_handle *context,
			    uint64_t *last_queued, struct os_ring_salvage *salvage)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_hwqueue *queue = NULL;
	fsr_status status;

	rt_lock(runtime);
	status = lookup_queue(process, hwqueue, "DestroyHwQueue", &queue);
	/* Only a dead queue falls back: its doorbell reads ABORT. */
	if (status == FSR_OK && !is_dead(queue))
		status =
		    rt_refuse(runtime, process->id, "DestroyHwQueue", hwqueue, FSR_ERR_BAD_STATE);
	if (status == FSR_OK) {
		*context = queue->context->handle;
		*last_queued = rt_queue_last_queued(queue, RT_POINT_NONE);
		/* UMS-16: no wait (ABORT: abandoned); the GPU is off the ring afterwards. */
		os_hwqueue_end(process, queue, OS_QUEUE_DESTROY, salvage);
	}
	rt_unlock(runtime);
	if (status == FSR_OK)
		os_run_callbacks(runtime);
	return status;
}

fsr_status
fsr_hwqueue_destroy(struct fsr_process *process, fsr_handle hwqueue)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_hwqueue *queue = NULL;
	fsr_status status;

	rt_lock(runtime);
	status = lookup_queue(process, hwqueue, "DestroyHwQueue", &queue);
	if (status == FSR_OK)
		os_hwqueue_end(process, queue, OS_QUEUE_DESTROY, NULL);
	rt_unlock(runtime);
	if (status == FSR_OK)
		os_run_callbacks(runtime);
	return status;
}

/* ---- the kernel-mode scheduler ------------------------------------------------------------ */

static void
km_wait(struct fsr_runtime *runtime, struct os_hwqueue *queue, struct fsr_fence *fence,
	const struct hw_packet *packet)
{
	struct os_waiter *waiter = calloc(1, sizeof(*waiter));

	if (!waiter)
		abort(); /* a queue that could not wait would run ahead of its fence */
	waiter->kind = OS_WAITER_KM_QUEUE;
	waiter->id = ++runtime->next_waiter_id;
	waiter->value = packet->b;
	waiter->deadline_ns = FSR_NEVER;
	waiter->queue = queue;
	queue->is_km_blocked = true;
	/* The OS's own waiter moves MonitoredValue like any CPU waiter (NFV-04). */
	os_fence_add_waiter(fence, waiter);
	os_fence_release_waiters(fence);
}

/* Runs one kernel-mode queue's software commands until work is in flight or a wait blocks. */
static void
km_run_queue(struct fsr_runtime *runtime, struct os_hwqueue *queue)
{
	struct fsr_adapter *adapter = queue->adapter;

	/* SUS-07: a suspended context's buffers stay queued until ResumeContext. */
	if (os_context_is_suspended(queue->context))
		return;
	/* PRE-09: a preempted packet's remainder goes first; the queue stays busy with it. */
	if (os_sched_resubmit(queue))
		return;
	while (queue->km_head && !queue->is_km_busy && !queue->is_km_blocked) {
		struct os_km_buffer *buffer = queue->km_head;
		struct hw_packet *packet;
		struct fsr_fence *fence;
		struct hw_dma_packet *dma;

		if (buffer->position == buffer->count) {
			queue->km_head = buffer->next;
			if (!queue->km_head)
				queue->km_tail = NULL;
			free(buffer->packets);
			free(buffer);
			continue;
		}
		packet = &buffer->packets[buffer->position];
		switch (packet->type) {
		case HW_PACKET_ACCESS:
		case HW_PACKET_WORK: {
			/*
			 * MMU-14: the accesses before a WORK travel in its DMA packet and run
			 * first; accesses no WORK follows make a DMA packet of their own (1 tick).
			 */
			size_t accesses = 0;

			while (buffer->position + accesses < buffer->count &&
			       buffer->packets[buffer->position + accesses].type ==
				   HW_PACKET_ACCESS)
				accesses++;
			dma = calloc(1, sizeof(*dma) + accesses * sizeof(struct hw_packet));
			if (!dma)
				abort();
			dma->access_count = (uint32_t) accesses;
			if (accesses)
				memcpy(dma->accesses, packet, accesses * sizeof(struct hw_packet));
			buffer->position += accesses;
			if (buffer->position < buffer->count &&
			    buffer->packets[buffer->position].type == HW_PACKET_WORK)
				dma->gpu_ticks = buffer->packets[buffer->position].a;
			else {
				dma->gpu_ticks = 1;
				buffer->position--; /* the command after the accesses runs next */
			}
			dma->packet_id = ++adapter->next_packet_id;
			dma->queue = queue;
			dma->progress_value = buffer->packets[0].b;
			dma->submit_ns = buffer->submit_ns;
			queue->km_sent_ns = rt_clock_now(runtime); /* FST-01: the TDR's clock */
			/* PRE-08: another split packet of the buffer follows, no wait between. */
			for (size_t i = buffer->position + 1; i < buffer->count; i++) {
				if (buffer->packets[i].type == HW_PACKET_WAIT)
					break;
				if (buffer->packets[i].type == HW_PACKET_WORK ||
				    buffer->packets[i].type == HW_PACKET_ACCESS) {
					dma->is_split_continued = true;
					break;
				}
			}
			os_sched_queue_packet(queue, dma);
			break;
		}
		case HW_PACKET_WAIT:
			/*
			 * XAD-14, XAD-17: a software wait; on a cross-adapter fence it sits in this
			 * adapter's object's waiting list until a propagated signal releases it.
			 */
			fence = rt_fence_on_adapter(runtime, packet->a, adapter);
			if (fence->is_destroyed &&
			    rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE) < packet->b) {
				/* Nothing can signal it any more: the wait is dropped, loudly. */
				rt_refuse(runtime, queue->process->id, "KernelModeFenceWait",
					  fence->global_handle, FSR_ERR_DESTROYED);
				os_fence_unref_packet(fence);
				break;
			}
			if (rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE) < packet->b) {
				km_wait(runtime, queue, fence, packet);
				if (queue->is_km_blocked)
					return;
			}
			FSR_TRACE(runtime, fencescope_os, km_fence_wait_unblocked,
				  queue->process->id, queue->handle, packet->c, packet->b);
			os_fence_unref_packet(fence);
			break;
		case HW_PACKET_SIGNAL:
			/*
			 * XAD-16: applied when it reaches the head, after the work before it. The
			 * event that closes the signal box comes before the value is written, so no
			 * wait it releases can be stamped before it (GPV-07).
			 */
			fence = rt_fence_on_adapter(runtime, packet->a, adapter);
			FSR_TRACE(runtime, fencescope_os, km_fence_signal_executed,
				  queue->process->id, queue->handle, packet->c, packet->b);
			/* XAD-15: written from the CPU, then propagated to the other adapters. */
			os_fence_write_cpu(fence, packet->b);
			os_fence_release_waiters(fence);
			os_fence_propagate(fence);
			os_fence_unref_packet(fence);
			break;
		case HW_PACKET_PROGRESS:
			os_fence_write_cpu(queue->progress_fence, packet->a);
			os_fence_release_waiters(queue->progress_fence);
			break;
		default:
			break;
		}
		buffer->position++;
	}
}

void
os_km_schedule(struct fsr_runtime *runtime)
{
	for (struct os_hwqueue *queue = runtime->km_queues; queue; queue = queue->next_km)
		km_run_queue(runtime, queue);
	/* PRE-15: priorities and time slices, on the adapters that have them (os/scheduler.c). */
	runtime->sched_next_ns = os_sched_run(runtime, &runtime->sched_has_work);
}

void
os_sched_kick(struct fsr_runtime *runtime)
{
	if (runtime->sched_next_ns == FSR_NEVER)
		return;
	if (runtime->sched_has_work)
		rt_clock_kick(runtime, &runtime->os_actor, runtime->sched_next_ns);
	else
		rt_clock_kick_weak(runtime, &runtime->os_actor, runtime->sched_next_ns);
}

void
os_km_packet_done(struct fsr_runtime *runtime, struct hw_dma_packet *packet,
		  uint64_t completed_fence_id)
{
	struct os_hwqueue *queue = packet->queue;

	if (completed_fence_id != packet->fence_id)
		rt_refuse(runtime, queue && queue->process ? queue->process->id : 0,
			  "DmaCompletedFenceId", packet->fence_id, FSR_ERR_BAD_STATE);

	/* Counted here, at interrupt level, not by the engine, which runs without the lock. */
	rt_latency_add(runtime->stats.submit_to_start, packet->start_ns > packet->submit_ns
							   ? packet->start_ns - packet->submit_ns
							   : 0);
	if (queue) {
		struct fsr_adapter *adapter = queue->adapter;

		FSR_TRACE(runtime, fencescope_os, packet_complete, adapter->id, queue->engine_id,
			  queue->handle, packet->packet_id, packet->progress_value);
		/* A context switch (PRE-05) comes before the queue's packet, still in flight. */
		if (!packet->is_context_switch)
			queue->is_km_busy = false;
	}
	free(packet);
}

/*
 * D3DKMTSubmitCommand of a kernel-mode queue (the UMD's thunk): the buffer joins the queue's
 * software queue; LastQueuedValue first (HPF-03).
 */
fsr_status
os_kmt_submit_command(struct os_hwqueue *queue, struct fsr_process *process,
		      uint64_t progress_value, struct hw_packet *packets, size_t count)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_km_buffer *buffer = calloc(1, sizeof(*buffer));

	if (!buffer)
		return FSR_ERR_NO_RESOURCES;
	buffer->packets = packets;
	buffer->count = count;
	buffer->submit_ns = rt_clock_now(runtime);
	/* A kernel-mode queue's LastQueuedValue: the GPU never reads it (the OS runs the queue). */
	rt_word_store(runtime, &queue->last_queued_value, progress_value, memory_order_release,
		      RT_POINT_NONE);
	if (queue->km_tail)
		queue->km_tail->next = buffer;
	else
		queue->km_head = buffer;
	queue->km_tail = buffer;
	FSR_TRACE(runtime, fencescope_os, submit_command, process->id, queue->handle, packets[0].a,
		  progress_value, (uint32_t) (count - 2));
	/* The scheduler's submit path runs in the caller, as a SubmitCommand call would. */
	os_km_schedule(runtime);
	os_sched_kick(runtime);
	return FSR_OK;
}
