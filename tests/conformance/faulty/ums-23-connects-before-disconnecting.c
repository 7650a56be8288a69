/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, UMS-23: when it victimizes, DxgkDdiConnectDoorbell connects the physical
 * doorbell to the new queue first and only then tells the OS (DxgkCbDisconnectDoorbell) and
 * disconnects the victim — for a while one physical doorbell serves two queues, the victim's
 * mapping still naming it (the model's CONNECT_BEFORE_DISCONNECT). Built on the reference
 * driver: the OS callback it hands the reference is wrapped so that, when the reference
 * victimizes, the new queue's connect is done first.
 */
#include "faulty.h"

static const struct dxgk_callbacks *os_callbacks;
static struct dxgk_callbacks wrapped;
static struct os_doorbell *connecting;

static void
late_disconnect_doorbell(struct fsr_adapter *os_adapter, struct os_doorbell *victim,
			 enum fstp_doorbell_status status)
{
	/* The wrong order: the new queue owns the victim's physical doorbell before the OS knows.
	 */
	if (connecting)
		hw_doorbell_connect(os_adapter, victim->kmd_physical, connecting->queue, false);
	os_callbacks->DxgkCbDisconnectDoorbell(os_adapter, victim, status);
}

static int
wrapped_add_adapter(struct fsr_adapter *os_adapter, const struct dxgk_callbacks *callbacks,
		    void **miniport)
{
	os_callbacks = callbacks;
	wrapped = *callbacks;
	wrapped.DxgkCbDisconnectDoorbell = late_disconnect_doorbell;
	return reference.DxgkDdiAddAdapter(os_adapter, &wrapped, miniport);
}

static int
early_connect_doorbell(void *miniport, struct os_doorbell *doorbell, uint32_t *physical,
		       struct rt_doorbell_page **page, enum fstp_doorbell_status *status)
{
	int result;

	connecting = doorbell;
	result = reference.DxgkDdiConnectDoorbell(miniport, doorbell, physical, page, status);
	connecting = NULL;
	return result;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiAddAdapter = wrapped_add_adapter;
	ddi->DxgkDdiConnectDoorbell = early_connect_doorbell;
}

const char *
fsc_driver_name(void)
{
	return "ums-23-connects-before-disconnecting";
}
