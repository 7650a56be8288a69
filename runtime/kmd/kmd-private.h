/* SPDX-License-Identifier: MIT */
/*
 * The reference kernel-mode driver (kmd/): what the world outside it may call is its
 * DriverEntry, which fills a DDI table (common/driver-interface-private.h). Everything else of the
 * driver is reached through that table. The driver programs the GPU (hw/hw-private.h) and calls
 * the OS only through the callback table DxgkDdiAddAdapter receives.
 */
#ifndef FENCESCOPE_RUNTIME_KMD_PRIVATE_H
#define FENCESCOPE_RUNTIME_KMD_PRIVATE_H

#include "common/common-private.h"

/* DriverEntry: fills `ddi` with the reference driver's entries (every entry set). */
FSR_TEST_API void kmd_driver_entry(struct dxgk_ddi *ddi);

/* The driver's adapter context (the "miniport" of every DDI). */
struct kmd_adapter {
	struct fsr_adapter *adapter; /* the OS's adapter, which also holds the GPU's engines */
	const struct dxgk_callbacks *callbacks;
	dxgk_interrupt_routine isr; /* what the OS connected the line to (DxgkDdiStartDevice) */
	/* doorbells (dedicated model): which doorbell each physical one serves, NULL when free */
	struct os_doorbell *physical[FSR_MAX_PHYSICAL_DOORBELLS];
	/* LRU (docs/runtime.md): one number per ConnectDoorbell or NotifyWorkSubmission */
	uint64_t use_counter;
};

/*
 * The GpuMmu part of the driver (kmd/gpummu.c; docs/driver-interface.md): its caps
 * (DXGKQAITYPE_GPUMMUCAPS), and its page-table DDIs set into `ddi`.
 */
void kmd_gpummu_caps(struct dxgk_gpummu_caps *caps);
void kmd_gpummu_entries(struct dxgk_ddi *ddi);

#endif /* FENCESCOPE_RUNTIME_KMD_PRIVATE_H */
