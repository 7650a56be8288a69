/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, PRE-13: its DXGK_DRIVERCAPS leave FlipOnVSyncMmIo at 0, which a driver of a
 * scheduler that preempts while flips are pending may not do; the OS then refuses presents on
 * its displays. Built on the reference driver.
 */
#include "faulty.h"

static int
query_without_mmio_flips(void *miniport, enum dxgk_query_adapter_info_type type, void *output,
			 size_t output_size)
{
	int result = reference.DxgkDdiQueryAdapterInfo(miniport, type, output, output_size);

	if (result == 0 && type == DXGKQAITYPE_DRIVERCAPS)
		((struct dxgk_drivercaps *) output)->flip_caps.flip_on_vsync_mmio = false;
	return result;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiQueryAdapterInfo = query_without_mmio_flips;
}

const char *
fsc_driver_name(void)
{
	return "pre-13-no-flip-on-vsync-mmio";
}
