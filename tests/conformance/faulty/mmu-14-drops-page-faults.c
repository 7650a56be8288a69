/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, MMU-14 (and TDR-06): its interrupt routine swallows the GPU's page fault
 * interrupts, so the OS never terminates the faulting context nor resets the engine, which stays
 * stopped on the fault with the other contexts' work queued behind it.
 */
#include <stdlib.h>

#include "faulty.h"

static void
dropping_interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	if (!interrupt->is_retirement && interrupt->type == FSTP_INTERRUPT_TYPE_PAGE_FAULT &&
	    interrupt->fault_reason == FSTP_LOSS_REASON_PAGE_FAULT) {
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
	return "mmu-14-drops-page-faults";
}
