/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, PRE-13: it declares FlipOnVSyncMmIo, but its DxgkDdiSetVidPnSourceAddress writes
 * the display's scan-out address at once instead of its flip register, so the surface changes in
 * the middle of a scan-out (a torn frame) and the next vsync latches nothing. Built on the
 * reference driver, whose adapter it remembers at DxgkDdiAddAdapter.
 */
#include "faulty.h"

#include "hw/hw-private.h"

static struct fsr_adapter *os_adapter;

static int
remembering_add_adapter(struct fsr_adapter *adapter, const struct dxgk_callbacks *callbacks,
			void **miniport)
{
	os_adapter = adapter;
	return reference.DxgkDdiAddAdapter(adapter, callbacks, miniport);
}

static int
immediate_flip(void *miniport, const struct dxgk_set_vidpn_source_address *args)
{
	(void) miniport;
	hw_display_flip_immediate(&os_adapter->gpu->displays[args->vidpn_source_id], args->flip_id);
	return 0;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiAddAdapter = remembering_add_adapter;
	ddi->DxgkDdiSetVidPnSourceAddress = immediate_flip;
}

const char *
fsc_driver_name(void)
{
	return "pre-13-flips-immediately";
}
