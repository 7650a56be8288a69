/* SPDX-License-Identifier: MIT */
/*
 * Power transitions down as the OS drives them (spec 000; docs/runtime.md "Engine F-states
 * (FST)"): an engine to F1. The states themselves are os/power.c's.
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
 * their next ring. A ConnectDoorbell on a queue of an engine in
 * F1 first brings it back to F0 (FST-06), then connects, which takes what was written meanwhile
 * (FST-07); so does a kernel-mode submission, which the OS sees.
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
		os_doorbell_disconnect(q, FSTP_DISCONNECT_REASON_ENGINE_F1);
	/*
	 * Then F0 → F1. Work that arrived since the request (taken by a ring or by the
	 * disconnects) makes the KMD keep the engine in F0: it runs.
	 */
	os_set_engine_fstate(adapter, engine_id, FSTP_ENGINE_POWER_F1);
}
