/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, DST-05: once woken (DxgkDdiSetPowerState(D0)), its DxgkDdiConnectDoorbell for
 * the queue that woke the device first puts every context it suspended for the power-down back
 * on the run lists, then connects: the contexts resume before the caller is connected. Built on
 * the reference driver, which it hands every SuspendContext, ResumeContext and connect.
 */
#include "faulty.h"

#define MAX_SUSPENDED 64

static struct os_context *suspended[MAX_SUSPENDED];
static uint32_t suspended_count;

static void
remembering_suspend(void *miniport, struct os_context *context, enum fstp_preempt_reason reason)
{
	if (suspended_count < MAX_SUSPENDED)
		suspended[suspended_count++] = context;
	reference.DxgkDdiSuspendContext(miniport, context, reason);
}

static bool is_woken;

static void
noting_wake(void *miniport, enum fstp_device_power dstate)
{
	reference.DxgkDdiSetPowerState(miniport, dstate);
	is_woken = dstate == FSTP_DEVICE_POWER_D0 && suspended_count > 0;
}

static int
resume_then_connect(void *miniport, struct os_doorbell *doorbell, uint32_t *physical,
		    struct rt_doorbell_page **page, enum fstp_doorbell_status *status)
{
	/* The wrong order: every context resumed before the caller's connect. */
	if (is_woken) {
		for (uint32_t i = 0; i < suspended_count; i++)
			reference.DxgkDdiResumeContext(miniport, suspended[i],
						       FSTP_PREEMPT_REASON_POWER);
		suspended_count = 0;
		is_woken = false;
	}
	return reference.DxgkDdiConnectDoorbell(miniport, doorbell, physical, page, status);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiSuspendContext = remembering_suspend;
	ddi->DxgkDdiSetPowerState = noting_wake;
	ddi->DxgkDdiConnectDoorbell = resume_then_connect;
}

const char *
fsc_driver_name(void)
{
	return "dst-05-wake-resumes-before-connecting";
}
