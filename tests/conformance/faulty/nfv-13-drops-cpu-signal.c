/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, NFV-13: DxgkDdiUpdateCurrentValuesFromCpu announces the CPU signal and lets
 * the engines rescan, but never stores CurrentValue (it treats every call as notification only).
 */
#include "faulty.h"

static void
dropping_update_current_values_from_cpu(void *miniport, struct fsr_fence *fence, uint64_t value,
					bool notification_only)
{
	(void) notification_only;
	reference.DxgkDdiUpdateCurrentValuesFromCpu(miniport, fence, value, true);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiUpdateCurrentValuesFromCpu = dropping_update_current_values_from_cpu;
}

const char *
fsc_driver_name(void)
{
	return "nfv-13-drops-cpu-signal";
}
