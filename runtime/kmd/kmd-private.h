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

#endif /* FENCESCOPE_RUNTIME_KMD_PRIVATE_H */
