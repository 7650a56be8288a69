/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, INT-01: its interrupt routine swallows DMA-completed interrupts, so the OS never
 * learns that a kernel-mode queue's packet finished (the packet is lost with it).
 */
#include <stdlib.h>

#include "faulty.h"

static void
dropping_interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	if (!interrupt->is_retirement && interrupt->type == FSTP_INTERRUPT_TYPE_DMA_COMPLETED) {
		free(interrupt);
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
	return "int-01-drops-dma-completed";
}
