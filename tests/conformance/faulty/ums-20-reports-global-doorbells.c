/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, UMS-20 (and UMS-17): DxgkDdiQueryAdapterInfo reports one global doorbell
 * whatever the GPU has, so on a dedicated-doorbell GPU the OS would neither know how many
 * physical doorbells there are nor that queues must be victimized to share them.
 */
#include "faulty.h"

static int
global_query_adapter_info(void *miniport, enum dxgk_query_adapter_info_type type, void *output,
			  size_t output_size)
{
	struct dxgk_usermodesubmission_caps *caps = output;
	int status = reference.DxgkDdiQueryAdapterInfo(miniport, type, output, output_size);

	if (status == 0 && type == DXGKQAITYPE_USERMODESUBMISSION_CAPS &&
	    caps->doorbell_model != FSR_DOORBELL_NONE) {
		caps->doorbell_model = FSR_DOORBELL_GLOBAL;
		caps->physical_doorbells = 1;
	}
	return status;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiQueryAdapterInfo = global_query_adapter_info;
}

const char *
fsc_driver_name(void)
{
	return "ums-20-reports-global-doorbells";
}
