/* SPDX-License-Identifier: MIT */
/*
 * The power states as the OS keeps them (spec 000; docs/runtime.md "Engine F-states (FST)"):
 * each engine's F-state, which the KMD programs (DxgkDdiSetPowerComponentFState) and the OS
 * records (engine_power), and the wake that a ConnectDoorbell or a kernel-mode submission to an
 * engine in F1 needs first (FST-06). The transitions down, which disconnect doorbells, are
 * os/power-down.c's; this file calls no other of the OS's files, so that the doorbells
 * (os/doorbell.c) and the scheduler (os/queue.c) can wake what they need.
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
