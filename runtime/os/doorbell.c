/* SPDX-License-Identifier: MIT */
/*
 * Doorbells as the OS sees them (spec 000, UMS-08 to UMS-25; docs/runtime.md "User-mode
 * submission (design)"): the thunks CreateDoorbell, ConnectDoorbell, DestroyDoorbell and
 * NotifyWorkSubmission, and DxgkCbDisconnectDoorbell, by which the KMD victimizes a doorbell.
 * The OS alone writes a doorbell's status word and its mapping (the dummy page or a physical
 * doorbell's word); the KMD tells it what to write through the DDIs' returns and the callback.
 *
 * The order that keeps the UMD's reading of the status true (UMS-14): the status is written
 * *before* a rotation to the dummy page and *after* a rotation to a physical doorbell, so a ring
 * that met the dummy page is always followed by a read of RETRY.
 *
 * What it is not: the choice of a physical doorbell or a victim (kmd/kmd.c), how the GPU learns
 * of work (hw/doorbell.c), the UMD's ring (umd/cmdbuf.c). Not yet: residency of the ring
 * allocations (RES) is checked by CreateDoorbell (check_ring_allocations). Device loss
 * (os_device_lose) writes ABORT to every doorbell of the device; termination (os/queue.c),
 * F1 and D3 (os/power-transitions.c) disconnect through os_doorbell_disconnect; ConnectDoorbell's
 * thunk, which may wake the device, is in os/power-transitions.c.
 */
#include <stdlib.h>

#include "os/os-private.h"

static uint64_t
doorbell_status(struct os_doorbell *doorbell)
{
	return atomic_load_explicit(&doorbell->status, memory_order_relaxed);
}

/* A store to the status word (seq_cst: the UMD's ring and read are ordered against it). */
static void
write_status(struct os_doorbell *doorbell, enum fstp_doorbell_status status)
{
	struct os_hwqueue *queue = doorbell->queue;
	struct fsr_runtime *runtime = queue->adapter->runtime;

	FSR_TRACE(runtime, fencescope_os, doorbell_status, queue->process->id, queue->handle,
		  doorbell->handle, (int) doorbell_status(doorbell), (int) status);
	rt_word_store(runtime, &doorbell->status, (uint64_t) status, memory_order_seq_cst,
		      RT_POINT_OS_WRITE_DOORBELL_STATUS);
}

/* The mapping now names `page`: the doorbell's dummy page or a physical doorbell's. */
static void
rotate(struct os_doorbell *doorbell, struct rt_doorbell_page *page)
{
	struct os_hwqueue *queue = doorbell->queue;
	struct fsr_runtime *runtime = queue->adapter->runtime;
	bool is_dummy = page == &doorbell->dummy_page;

	rt_word_store(runtime, &doorbell->mapping, (uint64_t) (uintptr_t) page,
		      memory_order_seq_cst, RT_POINT_OS_ROTATE_DOORBELL);
	FSR_TRACE(runtime, fencescope_os, doorbell_rotate, queue->process->id, queue->handle,
		  doorbell->handle, (uint8_t) is_dummy, is_dummy ? 0 : doorbell->os_physical,
		  queue->adapter->ums_caps.doorbell_size_bytes);
}

static bool
is_mapped_physical(struct os_doorbell *doorbell)
{
	return atomic_load_explicit(&doorbell->mapping, memory_order_relaxed) !=
	       (uint64_t) (uintptr_t) &doorbell->dummy_page;
}

/* Status, then the rotation to the dummy page, then the event: a disconnect. */
static void
disconnect(struct os_doorbell *doorbell, enum fstp_doorbell_status status,
	   enum fstp_disconnect_reason reason)
{
	struct os_hwqueue *queue = doorbell->queue;

	write_status(doorbell, status);
	/* RES-06: the ring stays mapped and resident, only the doorbell page moves. */
	rotate(doorbell, &doorbell->dummy_page);
	FSR_TRACE(queue->adapter->runtime, fencescope_kmd, doorbell_disconnect, queue->process->id,
		  queue->handle, doorbell->handle, doorbell->os_physical, (int) status,
		  (int) reason);
}

void
os_disconnect_doorbell_cb(struct fsr_adapter *adapter, struct os_doorbell *doorbell,
			  enum fstp_doorbell_status status)
{
	(void) adapter;
	/* UMS-23 a.: takes no lock (the KMD's caller holds it) and calls no DDI. */
	disconnect(doorbell, status, FSTP_DISCONNECT_REASON_VICTIMIZED);
}

fsr_status
os_doorbell_connect(struct os_hwqueue *queue, enum fstp_doorbell_status *status)
{
	struct os_doorbell *doorbell = queue->doorbell;
	struct fsr_adapter *adapter = queue->adapter;
	enum fstp_doorbell_status connected = FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT;
	struct rt_doorbell_page *page = NULL;
	uint32_t physical = 0;

	if (doorbell_status(doorbell) == FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT) {
		*status = FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT; /* dead for good */
		return FSR_ERR_DEVICE_LOST;
	}
	/* FST-06: a queue of an engine in F1 brings it back to F0 first; the connect fetches. */
	os_engine_wake(adapter, queue->engine_id);
	if (adapter->ddi.DxgkDdiConnectDoorbell(adapter->miniport, doorbell, &physical, &page,
						&connected) != 0 ||
	    (connected != FSTP_DOORBELL_STATUS_CONNECTED &&
	     connected != FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD) ||
	    physical >= adapter->ums_caps.physical_doorbells || !page) {
		/* A driver that cannot connect, or says nonsense: the queue is dead (ABORT; the
		 * spec's fallback to a kernel-mode queue is the caller's, not built yet). */
		if (is_mapped_physical(doorbell))
			rotate(doorbell, &doorbell->dummy_page);
		write_status(doorbell, FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT);
		*status = FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT;
		return FSR_ERR_DEVICE_LOST;
	}
	/* UMS-12, UMS-24: the rotation to the physical doorbell first, then the status. */
	doorbell->os_physical = physical;
	rotate(doorbell, page);
	if (doorbell_status(doorbell) != connected)
		write_status(doorbell, connected);
	FSR_TRACE(adapter->runtime, fencescope_kmd, doorbell_connect, queue->process->id,
		  queue->handle, doorbell->handle, physical, (int) connected);
	*status = connected;
	return FSR_OK;
}

void
os_kmt_notify_work_submission(struct os_hwqueue *queue, uint64_t progress_value)
{
	/* UMS-25: one round trip to the KMD per call. */
	FSR_TRACE(queue->adapter->runtime, fencescope_umd, notify_work_submission,
		  queue->process->id, queue->handle, progress_value);
	queue->adapter->ddi.DxgkDdiNotifyWorkSubmission(queue->adapter->miniport, queue->doorbell,
							progress_value);
}

bool
os_doorbell_disconnect(struct os_hwqueue *queue, enum fstp_doorbell_status status,
		       enum fstp_disconnect_reason reason)
{
	struct os_doorbell *doorbell = queue->doorbell;
	struct fsr_adapter *adapter = queue->adapter;
	bool was_connected;

	if (!doorbell)
		return false;
	/* ABORT is for good (UMS-16): a later disconnect does not make the queue retry. */
	if (doorbell_status(doorbell) == FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT)
		status = FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT;
	was_connected = is_mapped_physical(doorbell);
	if (was_connected) {
		/*
		 * Status, rotation, then the DDI, which makes the GPU take the write pointer (2b):
		 * a last ring that met the dummy page, or landed unserviced, is not lost (TRM-01).
		 */
		disconnect(doorbell, status, reason);
		adapter->ddi.DxgkDdiDisconnectDoorbell(adapter->miniport, doorbell, reason);
	} else if (doorbell_status(doorbell) != status) {
		write_status(doorbell, status);
	}
	return was_connected;
}

void
os_device_lose(struct os_device *device, enum fstp_loss_reason reason)
{
	struct fsr_runtime *runtime = device->adapter->runtime;

	device->is_lost = true;
	FSR_TRACE(runtime, fencescope_os, device_lost, device->process->id, device->handle,
		  (int) reason);
	/*
	 * UMS-16: every doorbell of the device reads ABORT and maps its dummy page; the KMD lets
	 * its physical doorbell go (other processes' queues may take it). What the GPU took before
	 * runs; what is written after is never taken: the UMD falls back to a kernel-mode queue.
	 */
	for (struct os_context *c = device->contexts; c; c = c->next_in_device)
		for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
			if (q->doorbell)
				os_doorbell_disconnect(q, FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT,
						       FSTP_DISCONNECT_REASON_DEVICE_LOST);
}

void
os_doorbell_destroy(struct os_hwqueue *queue)
{
	struct os_doorbell *doorbell = queue->doorbell;
	struct fsr_adapter *adapter = queue->adapter;

	os_doorbell_disconnect(queue, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
			       FSTP_DISCONNECT_REASON_DESTROY);
	adapter->ddi.DxgkDdiDestroyDoorbell(adapter->miniport, doorbell);
	FSR_TRACE(adapter->runtime, fencescope_kmd, doorbell_destroy, queue->process->id,
		  queue->handle, doorbell->handle);
	queue->doorbell = NULL;
	/* RES-02: the ring allocations are not freed here; they live on while referenced. */
	os_allocation_unref(doorbell->ring_allocation);
	os_allocation_unref(doorbell->ring_control_allocation);
	free(doorbell);
}

/* ---- the thunks ------------------------------------------------------------------------- */

fsr_status
os_doorbell_lookup_queue(struct fsr_process *process, fsr_handle handle, const char *call,
			 bool needs_doorbell, struct os_hwqueue **queue)
{
	struct rt_object *object;
	fsr_status status = os_kmt_lookup(process, handle, RT_OBJECT_HWQUEUE, &object);

	if (status == FSR_OK) {
		*queue = object->pointer;
		/* UMS-11: doorbells are for user-mode queues, and the calls need one but Create. */
		if ((*queue)->mode != FSR_SUBMIT_USER_MODE)
			status = FSR_ERR_NOT_SUPPORTED;
		else if (needs_doorbell != ((*queue)->doorbell != NULL))
			status = FSR_ERR_BAD_STATE;
	}
	if (status != FSR_OK)
		return rt_refuse(process->runtime, process->id, call, handle, status);
	return FSR_OK;
}

/*
 * CreateDoorbell's ring allocations: the queue's own (0 and 0 name them), resident (RES-01,
 * the project's interpretation: refused, not trusted).
 */
static fsr_status
check_ring_allocations(struct fsr_process *process, struct os_hwqueue *queue,
		       fsr_handle ring_handle, fsr_handle control_handle)
{
	struct os_allocation *ring = queue->ring_allocation;
	struct os_allocation *control = queue->ring_control_allocation;

	if (ring_handle || control_handle) {
		if (os_allocation_lookup(process, ring_handle, &ring) != FSR_OK ||
		    os_allocation_lookup(process, control_handle, &control) != FSR_OK ||
		    ring != queue->ring_allocation || control != queue->ring_control_allocation)
			return FSR_ERR_INVALID_ARGUMENT;
	}
	if (!os_allocation_is_resident(ring) || !os_allocation_is_resident(control))
		return FSR_ERR_BAD_STATE;
	return FSR_OK;
}

fsr_status
fsr_doorbell_create(struct fsr_process *process, fsr_handle hwqueue, fsr_handle ring_allocation,
		    fsr_handle ring_control_allocation)
{
	struct fsr_runtime *runtime;
	struct os_hwqueue *queue = NULL;
	struct os_doorbell *doorbell = NULL;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	rt_lock(runtime);
	status = os_doorbell_lookup_queue(process, hwqueue, "CreateDoorbell", false, &queue);
	if (status != FSR_OK)
		goto end;
	if (queue->context->device->is_lost) {
		/* UMS-16: a lost device's queues get no doorbell; kernel-mode queues still work. */
		status =
		    rt_refuse(runtime, process->id, "CreateDoorbell", hwqueue, FSR_ERR_DEVICE_LOST);
		goto end;
	}
	status = check_ring_allocations(process, queue, ring_allocation, ring_control_allocation);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "CreateDoorbell", hwqueue, status);
		goto end;
	}
	doorbell = calloc(1, sizeof(*doorbell));
	if (!doorbell) {
		status = rt_refuse(runtime, process->id, "CreateDoorbell", hwqueue,
				   FSR_ERR_NO_RESOURCES);
		goto end;
	}
	doorbell->handle = rt_new_kernel_handle(runtime, RT_OBJECT_DOORBELL);
	doorbell->queue = queue;
	/* RES-03: the OS's references, held while the doorbell lives. */
	doorbell->ring_allocation = queue->ring_allocation;
	doorbell->ring_control_allocation = queue->ring_control_allocation;
	os_allocation_ref(doorbell->ring_allocation);
	os_allocation_ref(doorbell->ring_control_allocation);
	/* UMS-08, UMS-09: status RETRY, mapped on the dummy page, no physical doorbell. */
	atomic_init(&doorbell->status, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
	atomic_init(&doorbell->dummy_page.word, 0);
	atomic_init(&doorbell->dummy_page.rings, 0);
	atomic_init(&doorbell->mapping, (uint64_t) (uintptr_t) &doorbell->dummy_page);
	queue->doorbell = doorbell;
	queue->adapter->ddi.DxgkDdiCreateDoorbell(queue->adapter->miniport, doorbell);
	FSR_TRACE(runtime, fencescope_kmd, doorbell_create, process->id, queue->handle,
		  doorbell->handle, (int) FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
end:
	rt_unlock(runtime);
	return status;
}

fsr_status
fsr_doorbell_destroy(struct fsr_process *process, fsr_handle hwqueue)
{
	struct os_hwqueue *queue = NULL;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = os_doorbell_lookup_queue(process, hwqueue, "DestroyDoorbell", true, &queue);
	if (status == FSR_OK)
		os_doorbell_destroy(queue);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_doorbell_get_status(struct fsr_process *process, fsr_handle hwqueue,
			enum fsr_doorbell_status *status)
{
	struct os_hwqueue *queue = NULL;
	fsr_status result;

	if (!process || !status)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	result = os_doorbell_lookup_queue(process, hwqueue, "GetDoorbellStatus", true, &queue);
	if (result == FSR_OK)
		*status = (enum fsr_doorbell_status) rt_word_load(
		    process->runtime, &queue->doorbell->status, memory_order_seq_cst,
		    RT_POINT_UMD_READ_DOORBELL_STATUS);
	rt_unlock(process->runtime);
	return result;
}

fsr_status
fsr_hwqueue_notify_work_submission(struct fsr_process *process, fsr_handle hwqueue,
				   uint64_t progress_value)
{
	struct os_hwqueue *queue = NULL;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = os_doorbell_lookup_queue(process, hwqueue, "NotifyWorkSubmission", true, &queue);
	if (status == FSR_OK)
		os_kmt_notify_work_submission(queue, progress_value);
	rt_unlock(process->runtime);
	return status;
}
