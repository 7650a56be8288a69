/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, INT-02 (and SYN-06): its interrupt routine swallows the native fence signaled
 * interrupts the GPU raises, so the OS never learns that a signal crossed MonitoredValue.
 */
#include <stdlib.h>

#include "faulty.h"

static void
dropping_interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	if (!interrupt->is_retirement &&
	    interrupt->type == FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED) {
		free(interrupt); /* the OS would have freed it after handling */
		return;
	}
	reference.DxgkDdiInterruptRoutine(miniport, interrupt);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiInterruptRoutine = dropping_interrupt_routine;
}

const char *
fsc_driver_name(void)
{
	return "int-02-drops-fence-interrupts";
}
