/* SPDX-License-Identifier: MIT */
/*
 * Native fences as the OS keeps them (spec 001): global and local handles (SHF-01 to SHF-06),
 * the list of CPU waiters per fence, and MonitoredValue, which the OS keeps at the least
 * waited value minus one (UINT64_MAX without waiters, NFV-04, NFV-05) through the driver's
 * UpdateMonitoredValues, resampling CurrentValue right after (SYN-05). CPU signals go through
 * the driver's UpdateCurrentValuesFromCpu (NFV-13). Waiting by polling (NFV-07) never enters
 * the OS's list and so never moves MonitoredValue.
 *
 * Cross-adapter fences (XAD-01 to XAD-11, docs/runtime.md "Cross-adapter fences as built"): the
 * creator's object, and one peer object per other adapter it is opened on, each with its own
 * MonitoredValue held at 0 (XAD-04, XAD-05), its own waiters and its adapter's driver, all
 * reaching the creator's CurrentValue word (XAD-03). On an adapter without native fences a
 * fence is a monitored fence: the OS writes its value from the CPU and calls no native fence
 * DDI for it (XAD-10, XAD-11, XAD-14).
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

/*
 * XAD-05: a cross-adapter fence's MonitoredValue is 0 on this adapter from its creation on,
 * stored by the driver like any MonitoredValue; the OS never moves it again.
 */
static void
hold_monitored_at_zero(struct fsr_fence *fence)
{
	fence->adapter->ddi.DxgkDdiUpdateMonitoredValues(fence->adapter->miniport, fence, 0, 0);
}

fsr_status
os_fence_new(struct os_device *device, uint64_t initial_value, uint32_t flags,
	     struct fsr_fence **fence_out)
{
	struct fsr_runtime *runtime = device->adapter->runtime;
	struct fsr_fence *fence = calloc(1, sizeof(*fence));

	if (!fence)
		return FSR_ERR_NO_RESOURCES;
	fence->global_handle = rt_new_kernel_handle(runtime, RT_OBJECT_FENCE);
	fence->adapter = device->adapter;
	fence->device = device;
	fence->is_shared = flags & (FSR_FENCE_SHARED | FSR_FENCE_CROSS_ADAPTER);
	fence->is_cross_adapter = flags & FSR_FENCE_CROSS_ADAPTER;
	fence->type =
	    flags & FSR_FENCE_INTRA_GPU ? FSTP_FENCE_TYPE_INTRA_GPU : FSTP_FENCE_TYPE_DEFAULT;
	fence->is_monitored = device->adapter->config.no_native_fences;
	fence->current_word = &fence->current_value;
	fence->propagated_value = initial_value;
	atomic_init(&fence->current_value, initial_value);
	atomic_init(&fence->monitored_value, fence->is_cross_adapter ? 0 : FSR_NO_MONITORED);
	if (rt_map_insert(&runtime->fences, fence->global_handle, fence) != 0) {
		free(fence);
		return FSR_ERR_NO_RESOURCES;
	}
	fence->next_in_device = device->fences;
	device->fences = fence;
	if (fence->is_cross_adapter)
		runtime->cross_adapter_fences++;
	/* SHF-01: the global fence first; a process's local handle comes with OpenNativeFence. */
	if (!fence->is_monitored) {
		fence->adapter->ddi.DxgkDdiCreateNativeFence(fence->adapter->miniport, fence);
		if (fence->is_cross_adapter)
			hold_monitored_at_zero(fence);
	}
	*fence_out = fence;
	return FSR_OK;
}

/* The creator of a cross-adapter fence's group (the fence itself otherwise). */
static struct fsr_fence *
creator_of(struct fsr_fence *fence)
{
	return fence->creator ? fence->creator : fence;
}

/* Local handles open on every adapter's object of the fence (SHF-04 counts them all). */
static uint32_t
group_handle_count(struct fsr_fence *fence)
{
	uint32_t count = 0;

	RT_FOR_EACH_FENCE_MEMBER(member, creator_of(fence))
		count += member->handle_count;
	return count;
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
	/* XAD-03: the creator's CurrentValue outlives every peer that reaches it. */
	if (fence->peers)
		return;
	/* SHF-04: after the last CloseNativeFence; nothing can name the global handle now. */
	if (!fence->is_monitored)
		fence->adapter->ddi.DxgkDdiDestroyNativeFence(fence->adapter->miniport, fence);
	unlink_from_device(fence);
	if (fence->creator) {
		struct fsr_fence *creator = fence->creator;

		for (struct fsr_fence **link = &creator->peers; *link; link = &(*link)->next_peer) {
			if (*link == fence) {
				*link = fence->next_peer;
				break;
			}
		}
		free(fence);
		free_if_unused(creator);
		return;
	}
	if (fence->is_cross_adapter)
		fence->adapter->runtime->cross_adapter_fences--;
	rt_map_remove(&fence->adapter->runtime->fences, fence->global_handle);
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
	if (!fence->is_monitored)
		fence->adapter->ddi.DxgkDdiCloseNativeFence(fence->adapter->miniport, fence,
							    process->id, handle);
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
	if (group_handle_count(fence) > 0) {
		/*
		 * A cross-adapter fence still open on another adapter: this adapter's object goes
		 * once its queued work lets it go (a software wait still in its list stays there,
		 * for a propagated signal to release).
		 */
		unlink_from_device(fence);
		free_if_unused(fence);
		return;
	}
	/* SHF-04, SHF-05: the last handle closes, then the global fence is destroyed, once. */
	FSR_TRACE(runtime, fencescope_os, fence_destroy, fence->global_handle,
		  rt_fence_current(fence, RT_POINT_NONE));
	RT_FOR_EACH_FENCE_MEMBER(member, creator_of(fence)) {
		member->is_destroyed = true;
		while (member->waiters) {
			struct os_waiter *waiter = member->waiters;

			os_fence_remove_waiter(member, waiter);
			os_waiter_finish(runtime, waiter, FSR_ERR_DESTROYED,
					 rt_fence_current(member, RT_POINT_NONE));
		}
		/*
		 * NFV-05: no waiter left, so a signal still queued must not interrupt for it —
		 * but a cross-adapter fence's MonitoredValue stays 0 for its whole life (XAD-05),
		 * and a monitored fence has none the GPU reads.
		 */
		if (!member->is_cross_adapter && !member->is_monitored &&
		    rt_fence_monitored(member, RT_POINT_OS_READ_MONITORED_VALUE) !=
			FSR_NO_MONITORED)
			member->adapter->ddi.DxgkDdiUpdateMonitoredValues(
			    member->adapter->miniport, member, FSR_NO_MONITORED, 0);
	}
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
		/*
		 * XAD-05: a cross-adapter fence's MonitoredValue stays 0 whatever the waiters, so
		 * that every GPU signal interrupts (XAD-06); a monitored fence (an adapter without
		 * native fences) has none: the OS releases its waiters where it writes the value.
		 */
		if (fence->is_cross_adapter || fence->is_monitored)
			break;
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
	if (!fence->device) {
		/*
		 * A cross-adapter fence's object whose handles had all closed, opened again while
		 * the fence lives on another adapter: it is this device's again (LOG-18's scans).
		 */
		fence->device = device;
		fence->next_in_device = device->fences;
		device->fences = fence;
	}
	/* SHF-01 (the creator's handle, after CreateNativeFence), SHF-02 (another process's). */
	if (!fence->is_monitored)
		fence->adapter->ddi.DxgkDdiOpenNativeFence(fence->adapter->miniport, fence,
							   process->id, *handle);
	return FSR_OK;
}

static enum fstp_fence_object
object_of(const struct fsr_fence *fence)
{
	return fence->is_monitored ? FSTP_FENCE_OBJECT_MONITORED : FSTP_FENCE_OBJECT_NATIVE;
}

/*
 * XAD-03: a cross-adapter fence opened on another adapter than its creator's: that adapter's
 * object of it (made at the first open there), which reaches the creator's CurrentValue.
 */
static fsr_status
open_cross_adapter(struct fsr_process *process, struct fsr_fence *creator, struct os_device *device,
		   fsr_handle *fence_handle)
{
	struct fsr_runtime *runtime = process->runtime;
	struct fsr_fence *peer =
	    rt_fence_on_adapter(runtime, creator->global_handle, device->adapter);
	fsr_status status;

	if (!peer) {
		peer = calloc(1, sizeof(*peer));
		if (!peer)
			return FSR_ERR_NO_RESOURCES;
		peer->global_handle = creator->global_handle;
		peer->adapter = device->adapter;
		peer->device = device;
		peer->is_shared = true;
		peer->is_cross_adapter = true;
		peer->type = creator->type;
		/*
		 * XAD-10, XAD-11: what it is here depends on this adapter alone: a monitored fence
		 * on an adapter without native fences, a native fence on one with them, whatever
		 * it is on the creator's.
		 */
		peer->is_monitored = device->adapter->config.no_native_fences;
		/* XAD-03: the creator's CurrentValue word itself, not a copy. */
		peer->current_word = creator->current_word;
		atomic_init(&peer->current_value, 0);
		/* XAD-04: a MonitoredValue of its own, 0 for the fence's life (XAD-05). */
		atomic_init(&peer->monitored_value, 0);
		peer->creator = creator;
		peer->next_peer = creator->peers;
		creator->peers = peer;
		peer->next_in_device = device->fences;
		device->fences = peer;
		if (!peer->is_monitored) {
			peer->adapter->ddi.DxgkDdiCreateNativeFence(peer->adapter->miniport, peer);
			hold_monitored_at_zero(peer);
		}
	}
	status = add_fence_handle(process, peer, device, fence_handle);
	if (status != FSR_OK) {
		free_if_unused(peer);
		return status;
	}
	FSR_TRACE(runtime, fencescope_os, fence_cross_adapter_open, process->id,
		  creator->global_handle, *fence_handle, device->adapter->id, creator->adapter->id,
		  object_of(creator), object_of(peer));
	return FSR_OK;
}

/*
 * A CPU write of CurrentValue: through the driver for a native fence (NFV-13); the OS's own
 * store for a monitored fence, whose memory it maps (XAD-15: "VidSch updates fence value
 * directly from CPU").
 */
void
os_fence_write_cpu(struct fsr_fence *fence, uint64_t value)
{
	if (fence->is_monitored)
		rt_fence_write_current(fence->adapter->runtime, fence, value,
				       RT_POINT_OS_WRITE_CURRENT_VALUE);
	else
		fence->adapter->ddi.DxgkDdiUpdateCurrentValuesFromCpu(fence->adapter->miniport,
								      fence, value, false);
}

/*
 * XAD-07: a cross-adapter fence's new value, seen on `from`'s adapter (its GPU's interrupt,
 * XAD-06, a CPU signal, or a software queue's signal), goes to every other adapter's object:
 * fence_propagate, then the driver's UpdateCurrentValuesFromCpu with NotificationOnly = TRUE
 * (XAD-08: no write; the driver rescans its run list, XAD-13), or, on a monitored fence, the
 * OS observing the value (XAD-14); then that adapter's waiters go (CPU waits, software waits).
 * A value already propagated is not propagated again. Returns the waiters released.
 */
uint32_t
os_fence_propagate(struct fsr_fence *from)
{
	struct fsr_runtime *runtime = from->adapter->runtime;
	struct fsr_fence *creator = creator_of(from);
	uint32_t released = 0;
	uint64_t value;

	if (!from->is_cross_adapter)
		return 0;
	value = rt_fence_current(from, RT_POINT_OS_READ_CURRENT_VALUE);
	if (value == creator->propagated_value)
		return 0;
	creator->propagated_value = value;
	RT_FOR_EACH_FENCE_MEMBER(to, creator) {
		/*
		 * XAD-09: not to the adapter that signalled: its GPU waits synchronised on the
		 * GPU (the signalling engine kicked its own adapter's engines, hw_engine_kick_all).
		 */
		if (to == from)
			continue;
		FSR_TRACE(runtime, fencescope_os, fence_propagate, creator->global_handle,
			  from->adapter->id, to->adapter->id, value);
		if (!to->is_monitored)
			to->adapter->ddi.DxgkDdiUpdateCurrentValuesFromCpu(to->adapter->miniport,
									   to, value, true);
		released += os_fence_release_waiters(to);
	}
	return released;
}

/*
 * After a native fence signaled interrupt of `adapter` (any form): every cross-adapter fence
 * its GPU moved is propagated from it (XAD-06, XAD-07), its own waiters released first.
 */
uint32_t
os_fence_propagate_from_adapter(struct fsr_adapter *adapter)
{
	struct fsr_runtime *runtime = adapter->runtime;
	uint32_t released = 0;
	uint64_t key;
	void *value;

	if (runtime->cross_adapter_fences == 0)
		return 0;
	for (size_t cursor = 0; rt_map_next(&runtime->fences, &cursor, &key, &value);) {
		struct fsr_fence *fence = value;

		if (!fence->is_cross_adapter)
			continue;
		fence = rt_fence_member_on(fence, adapter);
		if (!fence ||
		    rt_fence_current(fence, RT_POINT_NONE) == creator_of(fence)->propagated_value)
			continue;
		released += os_fence_release_waiters(fence);
		released += os_fence_propagate(fence);
	}
	return released;
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
	if (!fence_handle ||
	    (flags &
	     ~(uint32_t) (FSR_FENCE_SHARED | FSR_FENCE_CROSS_ADAPTER | FSR_FENCE_INTRA_GPU)) ||
	    /* XAD-02: a cross-adapter fence only with the default type. */
	    ((flags & FSR_FENCE_CROSS_ADAPTER) && (flags & FSR_FENCE_INTRA_GPU))) {
		status = rt_refuse(runtime, process->id, "CreateNativeFence", device_handle,
				   FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "CreateNativeFence", device_handle, status);
		goto end;
	}
	status = os_fence_new(object->pointer, initial_value, flags, &fence);
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
		  fence->global_handle, *fence_handle, fence->type, fence->is_shared,
		  fence->is_cross_adapter, initial_value, object_of(fence));
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
	else if (fence->adapter != device->adapter && !fence->is_cross_adapter)
		status = FSR_ERR_NOT_SUPPORTED; /* XAD-01: created cross-adapter, or not across */
	else if (fence->adapter != device->adapter)
		status = open_cross_adapter(process, fence, device, fence_handle);
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
	os_fence_write_cpu(fence, value);
	os_fence_release_waiters(fence);
	/* XAD-12, XAD-15: a CPU signal of a cross-adapter fence goes to the other adapters. */
	os_fence_propagate(fence);
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
