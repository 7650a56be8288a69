/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, FST-04: told to disconnect a doorbell because its engine goes to F1
 * (DxgkDdiDisconnectDoorbell, reason ENGINE_F1), it powers the engine down first, whatever the
 * engine is doing, and only then disconnects: the command processor, off, takes nothing, and
 * work the engine had taken from a ring the UMD saw CONNECTED stays there, never run. Built on
 * the reference driver.
 */
#include "faulty.h"

#include "hw/hw-private.h"

static void
early_power_down(void *miniport, struct os_doorbell *doorbell, enum fstp_disconnect_reason reason)
{
	if (reason == FSTP_DISCONNECT_REASON_ENGINE_F1)
		hw_engine_set_fstate(
		    &doorbell->queue->adapter->gpu->engines[doorbell->queue->engine_id],
		    FSTP_ENGINE_POWER_F1);
	reference.DxgkDdiDisconnectDoorbell(miniport, doorbell, reason);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiDisconnectDoorbell = early_power_down;
}

const char *
fsc_driver_name(void)
{
	return "fst-04-powers-down-before-disconnecting";
}
