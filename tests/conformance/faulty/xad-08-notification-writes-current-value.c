/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, XAD-08: DxgkDdiUpdateCurrentValuesFromCpu ignores NotificationOnly and stores
 * the value it is told of, though the CurrentValue is shared with the GPU that signalled it
 * (XAD-03): a later signal of that GPU can be overwritten by an older value.
 */
#include "faulty.h"

static void
writing_update_current_values_from_cpu(void *miniport, struct fsr_fence *fence, uint64_t value,
				       bool notification_only)
{
	(void) notification_only;
	reference.DxgkDdiUpdateCurrentValuesFromCpu(miniport, fence, value, false);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiUpdateCurrentValuesFromCpu = writing_update_current_values_from_cpu;
}

const char *
fsc_driver_name(void)
{
	return "xad-08-notification-writes-current-value";
}
