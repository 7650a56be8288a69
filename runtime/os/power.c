/* SPDX-License-Identifier: MIT */
/*
 * The power states as the OS keeps them (spec 000; docs/runtime.md "Engine F-states (FST)"):
 * each engine's F-state, which the KMD programs (DxgkDdiSetPowerComponentFState) and the OS
 * records (engine_power), and the wake that a ConnectDoorbell or a kernel-mode submission to an
 * engine in F1 needs first (FST-06). The transitions down, which disconnect doorbells, are
 * os/power-transitions.c's; this file calls no other of the OS's files, so that the doorbells
 * (os/doorbell.c) and the scheduler (os/queue.c) can wake what they need. Also the device's
 * D-state (device_power) and the residency of the rings (DST-01, DST-05).
 */
#include "os/os-private.h"

bool
os_set_engine_fstate(struct fsr_adapter *adapter, uint32_t engine_id, enum fstp_engine_power fstate)
{
	/* The KMD programs the transition; once it is done, the OS records it (engine_power). */
	if (adapter->ddi.DxgkDdiSetPowerComponentFState(adapter->miniport, engine_id, fstate) != 0)
		return false;
	FSR_TRACE(adapter->runtime, fencescope_os, engine_power, adapter->id, engine_id,
		  (int) adapter->os_fstate[engine_id], (int) fstate);
	adapter->os_fstate[engine_id] = fstate;
	return true;
}

void
os_engine_wake(struct fsr_adapter *adapter, uint32_t engine_id)
{
	if (adapter->os_fstate[engine_id] == FSTP_ENGINE_POWER_F1 &&
	    !os_set_engine_fstate(adapter, engine_id, FSTP_ENGINE_POWER_F0))
		rt_refuse(adapter->runtime, 0, "SetPowerComponentFState", engine_id,
			  FSR_ERR_BAD_STATE);
}

void
os_set_device_power(struct fsr_adapter *adapter, enum fstp_device_power dstate)
{
	adapter->ddi.DxgkDdiSetPowerState(adapter->miniport, dstate);
	FSR_TRACE(adapter->runtime, fencescope_os, device_power, adapter->id,
		  (int) adapter->os_dstate, (int) dstate);
	adapter->os_dstate = dstate;
}

/*
 * Every user-mode queue's ring buffer and ring buffer control allocations (os/allocation.c):
 * evicted or made resident, each firing allocation_residency. Eviction keeps the storage and the
 * UMD's view of it (RES-05): the UMD's writes in D3 are kept (DST-08); the GPU asserts it never
 * fetches from an evicted ring (DST-03).
 */
void
os_set_rings_resident(struct fsr_adapter *adapter, bool is_resident)
{
	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		for (struct os_hwqueue *q = adapter->user_queues[e]; q; q = q->next_user_queue) {
			os_allocation_set_resident(q->ring_allocation, is_resident);
			os_allocation_set_resident(q->ring_control_allocation, is_resident);
		}
	}
}
