/* SPDX-License-Identifier: MIT */
/*
 * Power transitions as the OS drives them (spec 000; docs/runtime.md "Engine F-states (FST)" and
 * "Device D-states (DST)"): an engine to F1, the device to D3 and back, and ConnectDoorbell,
 * which may have to wake either first. The states themselves are os/power.c's, the doorbells'
 * steps os/doorbell.c's, suspend and resume os/queue.c's.
 *
 * For a user-mode submission engine the OS no longer sees the work (FST-01), so the engine, as
 * its KMD watches it, reports that it has been idle long enough with a GPU_ENGINE_STATE_CHANGE
 * interrupt, NewState TRANSITION_TO_F1 (FST-02), sooner than the TDR cadence (FST-03). Its
 * deferred handling here, at the OS's level (the runtime lock, never an engine's), disconnects
 * every doorbell of that engine's queues — status RETRY, rotation, DxgkDdiDisconnectDoorbell
 * reason ENGINE_F1, which makes the GPU take each write pointer — and only then starts F0 → F1
 * (FST-04); no other engine's doorbell is touched (FST-05). If the engine has work again by then
 * (a ring it took between its request and this handling), the KMD keeps it in F0
 * (DxgkDdiSetPowerComponentFState fails) and the work runs; its queues, now RETRY, reconnect on
 * their next ring. A ConnectDoorbell on a queue of an engine in F1 first brings it back to F0
 * (FST-06), then connects, which takes what was written meanwhile (FST-07); so does a
 * kernel-mode submission, which the OS sees.
 *
 * The device's D3 and its wake, and the connect thunk that wakes it, are below (DST-01 to
 * DST-08).
 */
#include "os/os-private.h"

void
os_engine_state_change(struct fsr_adapter *adapter, uint32_t engine_id,
		       enum fstp_engine_state new_state)
{
	if (engine_id >= adapter->config.engine_count) {
		rt_refuse(adapter->runtime, 0, "EngineStateChangeInterrupt", engine_id,
			  FSR_ERR_INVALID_ARGUMENT);
		return;
	}
	/* Active → Hung belongs to the TDR work; a request for an engine already in F1 is stale. */
	if (new_state != FSTP_ENGINE_STATE_TRANSITION_TO_F1 ||
	    adapter->os_fstate[engine_id] == FSTP_ENGINE_POWER_F1)
		return;
	/* FST-04, FST-05: every doorbell of this engine's queues, and only those, first. */
	for (struct os_hwqueue *q = adapter->user_queues[engine_id]; q; q = q->next_user_queue)
		os_doorbell_disconnect(q, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
				       FSTP_DISCONNECT_REASON_ENGINE_F1);
	/*
	 * Then F0 → F1. Work that arrived since the request (taken by a ring or by the
	 * disconnects) makes the KMD keep the engine in F0: it runs.
	 */
	os_set_engine_fstate(adapter, engine_id, FSTP_ENGINE_POWER_F1);
}

/* ---- device D-states (DST-01 to DST-08) ------------------------------------------------- */

/* Every context on the adapter's GPU, suspended (SuspendContext) or resumed for POWER. */
static void
power_contexts(struct fsr_adapter *adapter, bool is_suspend)
{
	for (struct fsr_process *p = adapter->runtime->processes; p; p = p->next)
		for (struct os_device *d = p->devices; d; d = d->next_in_process)
			for (struct os_context *c = d->contexts; d->adapter == adapter && c;
			     c = c->next_in_device) {
				if (is_suspend)
					os_context_suspend(c, FSTP_PREEMPT_REASON_POWER);
				else
					os_context_resume(c, FSTP_PREEMPT_REASON_POWER);
			}
}

/*
 * D0 → D3 (DST-01 to DST-03), in the spec's order: SuspendContext for every context (reason
 * POWER; the KMD takes their queues off the run lists), then every doorbell disconnected —
 * status RETRY, rotation to the dummy page (DST-02), DxgkDdiDisconnectDoorbell reason DEVICE_D3
 * — then the rings evicted, once nothing on the GPU can reach them (DST-03), then
 * DxgkDdiSetPowerState(D3). The rings' content and the UMD's view of them stay (RES-05): what
 * the UMD writes in D3 is kept (DST-08).
 */
static void
device_power_down(struct fsr_adapter *adapter)
{
	if (adapter->os_dstate == FSTP_DEVICE_POWER_D3)
		return;
	power_contexts(adapter, true);
	for (uint32_t e = 0; e < adapter->config.engine_count; e++)
		for (struct os_hwqueue *q = adapter->user_queues[e]; q; q = q->next_user_queue)
			os_doorbell_disconnect(q, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
					       FSTP_DISCONNECT_REASON_DEVICE_D3);
	/*
	 * DST-03: the rings go only once no engine is in one: in realtime SuspendContext took each
	 * engine's lock, which waited for its step; with sim-mode interleaving a step switched out
	 * half way through a packet finishes it when the caller lets go of the lock (as
	 * fsr_hwqueue_destroy does before a queue leaves its engine).
	 */
	if (adapter->runtime->interleave) {
		rt_unlock(adapter->runtime);
		rt_lock(adapter->runtime);
	}
	os_set_rings_resident(adapter, false);
	os_vidmm_set_resident(adapter, false); /* MMU-02: page tables too */
	os_set_device_power(adapter, FSTP_DEVICE_POWER_D3);
}

/*
 * D3 → D0 (DST-05), under the lock, so that a second ConnectDoorbell that waited for it finds
 * D0 (one wake): DxgkDdiSetPowerState(D0), the rings resident, the caller's doorbell connected
 * (when a ConnectDoorbell woke the device: DST-04, DST-06), then ResumeContext for every
 * context. Other queues stay RETRY until they connect themselves (DST-07); what they wrote
 * meanwhile runs then (DST-08).
 */
static fsr_status
device_wake(struct fsr_adapter *adapter, struct os_hwqueue *caller,
	    enum fstp_doorbell_status *status)
{
	fsr_status result = FSR_OK;

	os_set_device_power(adapter, FSTP_DEVICE_POWER_D0);
	os_set_rings_resident(adapter, true);
	os_vidmm_set_resident(adapter, true);
	if (caller)
		result = os_doorbell_connect(caller, status);
	power_contexts(adapter, false);
	return result;
}

fsr_status
os_kmt_connect_doorbell(struct os_hwqueue *queue, enum fstp_doorbell_status *status)
{
	/* DST-04: a ConnectDoorbell in D3 does not fail: it wakes the device. */
	if (queue->adapter->os_dstate == FSTP_DEVICE_POWER_D3)
		return device_wake(queue->adapter, queue, status);
	return os_doorbell_connect(queue, status);
}

fsr_status
fsr_adapter_set_power(struct fsr_runtime *runtime, uint32_t adapter_id, enum fsr_device_power state)
{
	struct fsr_adapter *adapter;
	fsr_status status = FSR_OK;

	if (!runtime)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(runtime);
	if (adapter_id >= runtime->adapter_count ||
	    (state != FSR_DEVICE_POWER_D0 && state != FSR_DEVICE_POWER_D3)) {
		status =
		    rt_refuse(runtime, 0, "SetPowerState", adapter_id, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	adapter = runtime->adapters[adapter_id];
	if (state == FSR_DEVICE_POWER_D3)
		device_power_down(adapter);
	else if (adapter->os_dstate == FSTP_DEVICE_POWER_D3)
		device_wake(adapter, NULL, NULL);
end:
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return status;
}

fsr_status
fsr_doorbell_connect(struct fsr_process *process, fsr_handle hwqueue,
		     enum fsr_doorbell_status *status)
{
	struct os_hwqueue *queue;
	enum fstp_doorbell_status written = FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY;
	fsr_status result;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	result = os_doorbell_lookup_queue(process, hwqueue, "ConnectDoorbell", true, &queue);
	if (result == FSR_OK)
		result = os_kmt_connect_doorbell(queue, &written);
	if (status)
		*status = (enum fsr_doorbell_status) written;
	rt_unlock(process->runtime);
	return result;
}

/* ConnectDoorbell for a caller that holds the runtime lock (tests: a second UMD thread). */
fsr_status
fsr_test_doorbell_connect_locked(struct fsr_process *process, fsr_handle hwqueue,
				 enum fsr_doorbell_status *status)
{
	struct os_hwqueue *queue;
	enum fstp_doorbell_status written = FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY;
	fsr_status result =
	    os_doorbell_lookup_queue(process, hwqueue, "ConnectDoorbell", true, &queue);

	if (result == FSR_OK)
		result = os_kmt_connect_doorbell(queue, &written);
	if (status)
		*status = (enum fsr_doorbell_status) written;
	return result;
}
