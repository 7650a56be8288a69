/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, XAD-05: DxgkDdiUpdateMonitoredValues "optimizes" a fence nobody waits on by
 * storing UINT64_MAX (no interrupt) instead of the value it is given: a cross-adapter fence's
 * MonitoredValue moves off 0, and a GPU signal no longer interrupts (XAD-06), so the other
 * adapter never hears of it.
 */
#include "faulty.h"

static uint64_t
disarming_update_monitored_values(void *miniport, struct fsr_fence *fence, uint64_t monitored_value,
				  uint32_t waiter_count)
{
	return reference.DxgkDdiUpdateMonitoredValues(
	    miniport, fence, waiter_count == 0 ? UINT64_MAX : monitored_value, waiter_count);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiUpdateMonitoredValues = disarming_update_monitored_values;
}

const char *
fsc_driver_name(void)
{
	return "xad-05-disarms-without-waiters";
}
