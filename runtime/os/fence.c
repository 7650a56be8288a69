/* SPDX-License-Identifier: MIT */
/*
 * Native fences as the OS keeps them (spec 001): global and local handles (SHF-01 to SHF-06),
 * the list of CPU waiters per fence, and MonitoredValue, which the OS keeps at the least
 * waited value minus one (UINT64_MAX without waiters, NFV-04, NFV-05) through the driver's
 * UpdateMonitoredValues, resampling CurrentValue right after (SYN-05). CPU signals go through
 * the driver's UpdateCurrentValuesFromCpu (NFV-13). Waiting by polling (NFV-07) never enters
 * the OS's list and so never moves MonitoredValue.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "os/os-private.h"

#define OS_POLL_INTERVAL_NS 50000u

static enum fstp_cpu_wait_result
wait_result_of(fsr_status status)
{
	switch (status) {
	case FSR_OK:
		return FSTP_CPU_WAIT_RESULT_SATISFIED;
	case FSR_ERR_TIMEOUT:
		return FSTP_CPU_WAIT_RESULT_TIMEOUT;
	case FSR_ERR_DESTROYED:
		return FSTP_CPU_WAIT_RESULT_FENCE_DESTROYED;
	case FSR_ERR_DEVICE_LOST:
		return FSTP_CPU_WAIT_RESULT_DEVICE_LOST;
	default:
		return FSTP_CPU_WAIT_RESULT_CANCELLED;
	}
}

fsr_status
os_fence_new(struct os_device *device, uint64_t initial_value, bool is_shared,
	     struct fsr_fence **fence_out)
{
	struct fsr_runtime *runtime = device->adapter->runtime;
	struct fsr_fence *fence = calloc(1, sizeof(*fence));

	if (!fence)
		return FSR_ERR_NO_RESOURCES;
	fence->global_handle = rt_new_kernel_handle(runtime, RT_OBJECT_FENCE);
	fence->adapter = device->adapter;
	fence->device = device;
	fence->is_shared = is_shared;
	atomic_init(&fence->current_value, initial_value);
	atomic_init(&fence->monitored_value, FSR_NO_MONITORED);
	if (rt_map_insert(&runtime->fences, fence->global_handle, fence) != 0) {
		free(fence);
		return FSR_ERR_NO_RESOURCES;
	}
	fence->next_in_device = device->fences;
	device->fences = fence;
	/* SHF-01: the global fence first; a process's local handle comes with OpenNativeFence. */
	fence->adapter->ddi.DxgkDdiCreateNativeFence(fence->adapter->miniport, fence);
	*fence_out = fence;
	return FSR_OK;
}

static void
unlink_from_device(struct fsr_fence *fence)
{
	if (!fence->device)
		return;
	for (struct fsr_fence **link = &fence->device->fences; *link;
	     link = &(*link)->next_in_device) {
		if (*link == fence) {
			*link = fence->next_in_device;
			break;
		}
	}
	fence->device = NULL;
}

static void
free_if_unused(struct fsr_fence *fence)
{
	/*
	 * INT-05: the global handle stays live while a queued interrupt names it; the OS must
	 * never meet a destroyed fence's handle in an interrupt it handles.
	 */
	if (fence->handle_count > 0 || fence->packet_refs > 0 || fence->interrupt_refs > 0)
		return;
	/* SHF-04: after the last CloseNativeFence; nothing can name the global handle now. */
	fence->adapter->ddi.DxgkDdiDestroyNativeFence(fence->adapter->miniport, fence);
	rt_map_remove(&fence->adapter->runtime->fences, fence->global_handle);
	unlink_from_device(fence);
	free(fence);
}

void
os_fence_unref_packet(struct fsr_fence *fence)
{
	fence->packet_refs--;
	free_if_unused(fence);
}

void
os_fence_unref_interrupt(struct fsr_fence *fence)
{
	fence->interrupt_refs--;
	free_if_unused(fence);
}

void
os_kmt_release_fence(struct fsr_fence *fence)
{
	os_fence_unref_packet(fence);
}

void
os_fence_close_handle(struct fsr_process *process, fsr_handle handle, struct fsr_fence *fence)
{
	struct fsr_runtime *runtime = process->runtime;

	FSR_TRACE(runtime, fencescope_os, fence_close, process->id, fence->global_handle, handle);
	/* SHF-03, SHF-04: the driver cleans up this process's handle first. */
	fence->adapter->ddi.DxgkDdiCloseNativeFence(fence->adapter->miniport, fence, process->id,
						    handle);
	/* The waits made through this handle end with it, whoever else holds the fence. */
	for (struct os_waiter **link = &fence->waiters; *link;) {
		struct os_waiter *waiter = *link;

		if (waiter->kind == OS_WAITER_KM_QUEUE || waiter->process_id != process->id ||
		    waiter->fence_handle != handle) {
			link = &waiter->next;
			continue;
		}
		*link = waiter->next;
		fence->waiter_count--;
		os_waiter_finish(runtime, waiter, FSR_ERR_DESTROYED,
				 rt_fence_current(fence, RT_POINT_NONE));
	}
	if (--fence->handle_count > 0) {
		os_fence_release_waiters(fence); /* re-arms MonitoredValue (NFV-04) */
		return;                          /* SHF-03: another process still holds it */
	}
	/* SHF-04, SHF-05: the last handle closes, then the global fence is destroyed, once. */
	fence->is_destroyed = true;
	FSR_TRACE(runtime, fencescope_os, fence_destroy, fence->global_handle,
		  rt_fence_current(fence, RT_POINT_NONE));
	while (fence->waiters) {
		struct os_waiter *waiter = fence->waiters;

		os_fence_remove_waiter(fence, waiter);
		os_waiter_finish(runtime, waiter, FSR_ERR_DESTROYED,
				 rt_fence_current(fence, RT_POINT_NONE));
	}
	/* NFV-05: no waiter left, so a signal still queued must not interrupt for it. */
	if (rt_fence_monitored(fence, RT_POINT_OS_READ_MONITORED_VALUE) != FSR_NO_MONITORED)
		fence->adapter->ddi.DxgkDdiUpdateMonitoredValues(fence->adapter->miniport, fence,
								 FSR_NO_MONITORED, 0);
	unlink_from_device(fence);
	free_if_unused(fence);
}

void
os_fence_add_waiter(struct fsr_fence *fence, struct os_waiter *waiter)
{
	struct os_waiter **link = &fence->waiters;

	/* Sorted by value, and by arrival among equal values. */
	while (*link && (*link)->value <= waiter->value)
		link = &(*link)->next;
	waiter->fence = fence;
	waiter->next = *link;
	*link = waiter;
	fence->waiter_count++;
}

void
os_fence_remove_waiter(struct fsr_fence *fence, struct os_waiter *waiter)
{
	for (struct os_waiter **link = &fence->waiters; *link; link = &(*link)->next) {
		if (*link == waiter) {
			*link = waiter->next;
			fence->waiter_count--;
			return;
		}
	}
}

void
os_waiter_finish(struct fsr_runtime *runtime, struct os_waiter *waiter, fsr_status status,
		 uint64_t observed_value)
{
	waiter->status = status;
	waiter->observed_value = observed_value;
	if (waiter->deadline_ns != FSR_NEVER && waiter->kind == OS_WAITER_ASYNC) {
		for (struct os_waiter **link = &runtime->async_waiters; *link;
		     link = &(*link)->next_async) {
			if (*link == waiter) {
				*link = waiter->next_async;
				break;
			}
		}
	}
	switch (waiter->kind) {
	case OS_WAITER_CALLER:
		FSR_TRACE(runtime, fencescope_os, cpu_wait_end, waiter->process_id, waiter->id,
			  waiter->fence_handle, waiter->value, wait_result_of(status),
			  observed_value);
		rt_clock_wake(&waiter->done);
		break;
	case OS_WAITER_ASYNC:
		FSR_TRACE(runtime, fencescope_os, cpu_wait_end, waiter->process_id, waiter->id,
			  waiter->fence_handle, waiter->value, wait_result_of(status),
			  observed_value);
		waiter->next_done = runtime->done_callbacks;
		runtime->done_callbacks = waiter;
		break;
	case OS_WAITER_KM_QUEUE:
		/* The software queue goes on from its wait (os/queue.c). */
		waiter->queue->is_km_blocked = false;
		rt_clock_kick(runtime, &runtime->os_actor, rt_clock_now(runtime));
		free(waiter);
		break;
	case OS_WAITER_FLIP:
		/* A present's rendering is done (or its queue went): os/display.c goes on. */
		waiter->flip_rendered(runtime, waiter->flip, status);
		free(waiter);
		break;
	}
}

uint32_t
os_fence_release_waiters(struct fsr_fence *fence)
{
	struct fsr_runtime *runtime = fence->adapter->runtime;
	uint64_t current_value = rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE);
	uint32_t released = 0;

	for (;;) {
		uint64_t monitored;

		/* NFV-09: release every waiter the value satisfies... */
		while (fence->waiters && fence->waiters->value <= current_value) {
			struct os_waiter *waiter = fence->waiters;

			os_fence_remove_waiter(fence, waiter);
			os_waiter_finish(runtime, waiter, FSR_OK, current_value);
			released++;
		}
		/* ...and move MonitoredValue to the least value still waited for, minus one. */
		monitored = fence->waiters ? fence->waiters->value - 1 : FSR_NO_MONITORED;
		if (monitored == rt_fence_monitored(fence, RT_POINT_OS_READ_MONITORED_VALUE))
			break;
		current_value = fence->adapter->ddi.DxgkDdiUpdateMonitoredValues(
		    fence->adapter->miniport, fence, monitored, fence->waiter_count);
		/* SYN-05: the resampled value may already satisfy someone: go round again. */
	}
	return released;
}

/* ---- API ---------------------------------------------------------------------------------- */

fsr_handle
os_new_local_handle(struct fsr_process *process)
{
	/* D3DKMT-style process-local handles: 32 bits, distinct from kernel handles. */
	return UINT32_C(0x40000000) | (++process->next_local_handle << 6);
}

static fsr_status
add_fence_handle(struct fsr_process *process, struct fsr_fence *fence, struct os_device *device,
		 fsr_handle *handle)
{
	struct rt_object *object = calloc(1, sizeof(*object));

	if (!object)
		return FSR_ERR_NO_RESOURCES;
	*object = (struct rt_object){.type = RT_OBJECT_FENCE, .pointer = fence, .device = device};
	*handle = os_new_local_handle(process);
	if (rt_map_insert(&process->handles, *handle, object) != 0) {
		free(object);
		return FSR_ERR_NO_RESOURCES;
	}
	fence->handle_count++;
	/* SHF-01 (the creator's handle, after CreateNativeFence), SHF-02 (another process's). */
	fence->adapter->ddi.DxgkDdiOpenNativeFence(fence->adapter->miniport, fence, process->id,
						   *handle);
	return FSR_OK;
}

fsr_status
fsr_fence_create(struct fsr_process *process, fsr_handle device_handle, uint64_t initial_value,
		 uint32_t flags, fsr_handle *fence_handle, fsr_handle *global_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct rt_object *object;
	struct fsr_fence *fence = NULL;
	fsr_status status;

	rt_lock(runtime);
	if (!fence_handle || (flags & ~(uint32_t) FSR_FENCE_SHARED)) {
		status = rt_refuse(runtime, process->id, "CreateNativeFence", device_handle,
				   FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "CreateNativeFence", device_handle, status);
		goto end;
	}
	status = os_fence_new(object->pointer, initial_value, flags & FSR_FENCE_SHARED, &fence);
	if (status == FSR_OK)
		status = add_fence_handle(process, fence, object->pointer, fence_handle);
	if (status != FSR_OK) {
		if (fence)
			free_if_unused(fence);
		rt_refuse(runtime, process->id, "CreateNativeFence", device_handle, status);
		goto end;
	}
	/* SHF-01: CreateNativeFence for the global fence, then OpenNativeFence for A's handle. */
	FSR_TRACE(runtime, fencescope_os, fence_create, process->id, fence->adapter->id,
		  fence->global_handle, *fence_handle, FSTP_FENCE_TYPE_DEFAULT, fence->is_shared, 0,
		  initial_value, FSTP_FENCE_OBJECT_NATIVE);
	if (global_handle)
		*global_handle = fence->global_handle;
end:
	rt_unlock(runtime);
	return status;
}

fsr_status
fsr_fence_open(struct fsr_process *process, fsr_handle device_handle, fsr_handle global_handle,
	       fsr_handle *fence_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct rt_object *object;
	struct fsr_fence *fence = NULL;
	struct os_device *device;
	fsr_status status;

	rt_lock(runtime);
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status != FSR_OK || !fence_handle) {
		status = status != FSR_OK ? status : FSR_ERR_INVALID_ARGUMENT;
		rt_refuse(runtime, process->id, "OpenNativeFence", device_handle, status);
		goto end;
	}
	device = object->pointer;
	fence = rt_map_get(&runtime->fences, global_handle);
	if (!fence || fence->is_destroyed)
		status = fence ? FSR_ERR_DESTROYED : FSR_ERR_INVALID_HANDLE;
	else if (!fence->is_shared)
		status = FSR_ERR_ACCESS_DENIED;
	else if (fence->adapter != device->adapter)
		status = FSR_ERR_NOT_SUPPORTED; /* cross-adapter fences come with their own work */
	else
		status = add_fence_handle(process, fence, device, fence_handle);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "OpenNativeFence", global_handle, status);
		goto end;
	}
	/* SHF-02: every process gets a local handle of its own for the same global fence. */
	FSR_TRACE(runtime, fencescope_os, fence_open, process->id, global_handle, *fence_handle);
end:
	rt_unlock(runtime);
	return status;
}

fsr_status
fsr_fence_close(struct fsr_process *process, fsr_handle fence_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct rt_object *object;
	fsr_status status;

	rt_lock(runtime);
	status = os_kmt_lookup(process, fence_handle, RT_OBJECT_FENCE, &object);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "DestroySynchronizationObject", fence_handle,
			  status);
		goto end;
	}
	rt_map_remove(&process->handles, fence_handle);
	os_fence_close_handle(process, fence_handle, object->pointer);
	free(object);
end:
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return status;
}

static fsr_status
lookup_fence(struct fsr_process *process, fsr_handle handle, const char *call,
	     struct fsr_fence **fence)
{
	struct rt_object *object;
	fsr_status status = os_kmt_lookup(process, handle, RT_OBJECT_FENCE, &object);

	if (status != FSR_OK)
		return rt_refuse(process->runtime, process->id, call, handle, status);
	*fence = object->pointer;
	return FSR_OK;
}

fsr_status
fsr_fence_read(struct fsr_process *process, fsr_handle fence_handle, uint64_t *current_value)
{
	struct fsr_fence *fence = NULL;
	fsr_status status;

	rt_lock(process->runtime);
	status = lookup_fence(process, fence_handle, "ReadFenceValue", &fence);
	if (status == FSR_OK && current_value)
		*current_value = rt_fence_current(fence, RT_POINT_USER_READ_CURRENT_VALUE);
	rt_unlock(process->runtime);
	return status;
}

/* NFV-03: kernel-only, so a test-only accessor, not part of the public API (os-private.h). */
fsr_status
fsr_test_fence_read_monitored(struct fsr_process *process, fsr_handle fence_handle,
			      uint64_t *monitored_value)
{
	struct fsr_fence *fence = NULL;
	fsr_status status;

	rt_lock(process->runtime);
	status = lookup_fence(process, fence_handle, "ReadMonitoredValue", &fence);
	if (status == FSR_OK && monitored_value)
		*monitored_value = rt_fence_monitored(fence, RT_POINT_USER_READ_MONITORED_VALUE);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_fence_signal_cpu(struct fsr_process *process, fsr_handle fence_handle, uint64_t value)
{
	struct fsr_runtime *runtime = process->runtime;
	struct fsr_fence *fence = NULL;
	fsr_status status;

	rt_lock(runtime);
	status = lookup_fence(process, fence_handle, "SignalSynchronizationObjectFromCpu", &fence);
	if (status != FSR_OK)
		goto end;
	if (value < rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE)) {
		status = rt_refuse(runtime, process->id, "SignalSynchronizationObjectFromCpu",
				   fence_handle, FSR_ERR_VALUE_REGRESSION);
		goto end;
	}
	FSR_TRACE(runtime, fencescope_os, cpu_signal, process->id, fence_handle, value);
	fence->adapter->ddi.DxgkDdiUpdateCurrentValuesFromCpu(fence->adapter->miniport, fence,
							      value, false);
	os_fence_release_waiters(fence);
end:
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return status;
}

static fsr_status
poll_until(struct fsr_runtime *runtime, struct fsr_fence *fence, uint64_t value,
	   uint64_t deadline_ns, uint64_t *observed)
{
	for (;;) {
		uint64_t now;

		/* NFV-02: user mode reads CurrentValue directly, without the OS. */
		*observed = rt_fence_current(fence, RT_POINT_USER_READ_CURRENT_VALUE);
		if (*observed >= value)
			return FSR_OK;
		now = rt_clock_now(runtime);
		if (now >= deadline_ns)
			return FSR_ERR_TIMEOUT;
		if (runtime->config.clock_mode == FSR_CLOCK_SIM) {
			_Atomic uint32_t never = 0;
			uint64_t until = deadline_ns - now > OS_POLL_INTERVAL_NS
					     ? now + OS_POLL_INTERVAL_NS
					     : deadline_ns;

			/*
			 * With only housekeeping left nothing can move CurrentValue: block to
			 * the deadline at once, so an endless poll is refused as a blocking
			 * wait is instead of stepping virtual time forever.
			 */
			if (runtime->clock.strong_count == 0)
				until = deadline_ns;
			if (rt_clock_block(runtime, &never, until) == FSR_ERR_BAD_STATE)
				return FSR_ERR_BAD_STATE;
		} else {
			usleep(OS_POLL_INTERVAL_NS / 1000u);
		}
	}
}

static struct os_waiter *
new_waiter(struct fsr_runtime *runtime, uint32_t process_id, struct fsr_fence *fence,
	   fsr_handle fence_handle, uint64_t value, uint64_t timeout_ns, enum fsr_wait_mode mode)
{
	struct os_waiter *waiter = calloc(1, sizeof(*waiter));
	uint64_t now = rt_clock_now(runtime);

	if (!waiter)
		return NULL;
	waiter->id = ++runtime->next_waiter_id;
	waiter->fence = fence;
	waiter->value = value;
	waiter->deadline_ns = timeout_ns == FSR_INFINITE || timeout_ns > FSR_NEVER - now
				  ? FSR_NEVER
				  : now + timeout_ns;
	waiter->process_id = process_id;
	waiter->fence_handle = fence_handle;
	atomic_init(&waiter->done, 0);
	FSR_TRACE(runtime, fencescope_os, cpu_wait_begin, process_id, waiter->id, fence_handle,
		  value, timeout_ns,
		  mode == FSR_WAIT_POLLING ? FSTP_CPU_WAIT_MODE_POLLING
					   : FSTP_CPU_WAIT_MODE_BLOCKING);
	return waiter;
}

fsr_status
os_fence_wait(struct fsr_process *process, struct fsr_fence *fence, fsr_handle fence_handle,
	      uint64_t value, uint64_t timeout_ns, enum fsr_wait_mode mode)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_waiter *waiter;
	uint64_t observed = 0;
	fsr_status status;

	waiter = new_waiter(runtime, process->id, fence, fence_handle, value, timeout_ns, mode);
	if (!waiter)
		return rt_refuse(runtime, process->id, "WaitForSynchronizationObjectFromCpu",
				 fence_handle, FSR_ERR_NO_RESOURCES);
	waiter->kind = OS_WAITER_CALLER;
	/* The fence must outlive the wait even if its last handle is closed meanwhile. */
	fence->packet_refs++;
	if (mode == FSR_WAIT_POLLING ||
	    rt_fence_current(fence, RT_POINT_OS_READ_CURRENT_VALUE) >= value || timeout_ns == 0) {
		/* Polling, or nothing to wait for: the OS's list is never touched. */
		rt_unlock(runtime);
		status = poll_until(runtime, fence, value, waiter->deadline_ns, &observed);
		rt_lock(runtime);
		FSR_TRACE(runtime, fencescope_os, cpu_wait_end, process->id, waiter->id,
			  fence_handle, value, wait_result_of(status), observed);
		goto end;
	}
	/* NFV-06: a new waiter moves MonitoredValue, and may be released at once (SYN-05). */
	os_fence_add_waiter(fence, waiter);
	os_fence_release_waiters(fence);
	rt_unlock(runtime);
	os_run_callbacks(runtime);

	status = rt_clock_block(runtime, &waiter->done, waiter->deadline_ns);

	rt_lock(runtime);
	if (!atomic_load(&waiter->done)) {
		/* Timed out (or, in sim mode, nothing left can satisfy it): retire the waiter. */
		os_fence_remove_waiter(fence, waiter);
		os_waiter_finish(runtime, waiter, status, rt_fence_current(fence, RT_POINT_NONE));
		os_fence_release_waiters(fence);
	}
	status = waiter->status;
end:
	free(waiter);
	os_fence_unref_packet(fence);
	return status;
}

fsr_status
fsr_fence_wait_cpu(struct fsr_process *process, fsr_handle fence_handle, uint64_t value,
		   uint64_t timeout_ns, enum fsr_wait_mode mode)
{
	struct fsr_runtime *runtime = process->runtime;
	const char *call = "WaitForSynchronizationObjectFromCpu";
	struct fsr_fence *fence = NULL;
	fsr_status status;

	rt_lock(runtime);
	status = lookup_fence(process, fence_handle, call, &fence);
	if (status == FSR_OK && mode != FSR_WAIT_BLOCKING && mode != FSR_WAIT_POLLING)
		status =
		    rt_refuse(runtime, process->id, call, fence_handle, FSR_ERR_INVALID_ARGUMENT);
	if (status == FSR_OK)
		status = os_fence_wait(process, fence, fence_handle, value, timeout_ns, mode);
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return status;
}

fsr_status
fsr_fence_wait_cpu_async(struct fsr_process *process, fsr_handle fence_handle, uint64_t value,
			 uint64_t timeout_ns, fsr_wait_callback callback, void *user_data)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_waiter *waiter = NULL;
	struct fsr_fence *fence = NULL;
	fsr_status status;

	rt_lock(runtime);
	if (!callback) {
		status = rt_refuse(runtime, process->id, "WaitForSynchronizationObjectFromCpu",
				   fence_handle, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	status = lookup_fence(process, fence_handle, "WaitForSynchronizationObjectFromCpu", &fence);
	if (status != FSR_OK)
		goto end;
	waiter = new_waiter(runtime, process->id, fence, fence_handle, value, timeout_ns,
			    FSR_WAIT_BLOCKING);
	if (!waiter) {
		status = rt_refuse(runtime, process->id, "WaitForSynchronizationObjectFromCpu",
				   fence_handle, FSR_ERR_NO_RESOURCES);
		goto end;
	}
	waiter->kind = OS_WAITER_ASYNC;
	waiter->callback = callback;
	waiter->user_data = user_data;
	if (waiter->deadline_ns != FSR_NEVER) {
		waiter->next_async = runtime->async_waiters;
		runtime->async_waiters = waiter;
		rt_clock_kick(runtime, &runtime->os_actor, waiter->deadline_ns);
	}
	os_fence_add_waiter(waiter->fence, waiter);
	os_fence_release_waiters(waiter->fence);
end:
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return status;
}

void
os_run_callbacks(struct fsr_runtime *runtime)
{
	struct os_waiter *list;

	rt_lock(runtime);
	list = runtime->done_callbacks;
	runtime->done_callbacks = NULL;
	rt_unlock(runtime);
	while (list) {
		struct os_waiter *waiter = list;

		list = waiter->next_done;
		waiter->callback(waiter->status, waiter->observed_value, waiter->user_data);
		free(waiter);
	}
}
