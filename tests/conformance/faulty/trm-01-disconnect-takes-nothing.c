/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, TRM-01: DxgkDdiDisconnectDoorbell with reason TERMINATION disconnects the
 * physical doorbell without making the command processor take the queue's write pointer. A
 * ring that landed but was not serviced yet is then lost: the queue's last buffer never runs and
 * the OS's wait for LastQueuedValue cannot end. Built on the reference driver: its disconnect,
 * with what the GPU had taken put back as it was (sim mode, where the tests run).
 */
#include "faulty.h"

static void
forgetful_disconnect_doorbell(void *miniport, struct os_doorbell *doorbell,
			      enum fstp_disconnect_reason reason)
{
	uint64_t taken = doorbell->queue->fetched_ptr;

	reference.DxgkDdiDisconnectDoorbell(miniport, doorbell, reason);
	if (reason == FSTP_DISCONNECT_REASON_TERMINATION)
		doorbell->queue->fetched_ptr = taken;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiDisconnectDoorbell = forgetful_disconnect_doorbell;
}

const char *
fsc_driver_name(void)
{
	return "trm-01-disconnect-takes-nothing";
}
