/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, INT-14: the adapter lacks the OptimizedNativeFenceSignaledInterrupt cap (it
 * raises fence-array interrupts), but this driver's interrupt routine reports each as a
 * HWQueue-form interrupt naming the queue that ran the signal. The OS's log read still releases
 * the waiters: what gives it away is the form the OS handles.
 */
#include "faulty.h"

static void
hwqueue_form_interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	if (!interrupt->is_retirement && interrupt->form == FSTP_INTERRUPT_FORM_FENCE_ARRAY &&
	    interrupt->queue) {
		interrupt->form = FSTP_INTERRUPT_FORM_HWQUEUE;
		interrupt->fence_count = 0;
	}
	reference.DxgkDdiInterruptRoutine(miniport, interrupt);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiInterruptRoutine = hwqueue_form_interrupt_routine;
}

const char *
fsc_driver_name(void)
{
	return "int-14-hwqueue-form-without-cap";
}
