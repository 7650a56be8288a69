/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, PRE-03/PRE-04: it declares the engine's finest granularity (the reference
 * driver's engine_describe, SHADER_BOUNDARY by default) but DxgkDdiPreemptCommand programs the
 * engine to stop only at a DMA buffer boundary: a preemption waits for the packet to end. Built
 * on the reference driver; the OS's adapter is caught at DxgkDdiAddAdapter to reach the engine.
 */
#include "hw/hw-private.h"

#include "faulty.h"

static struct fsr_adapter *os_adapter;

static int
catching_add_adapter(struct fsr_adapter *adapter, const struct dxgk_callbacks *callbacks,
		     void **miniport)
{
	os_adapter = adapter;
	return reference.DxgkDdiAddAdapter(adapter, callbacks, miniport);
}

static fsr_handle
coarse_preempt_command(void *miniport, uint32_t engine_id, uint64_t request_id,
		       enum fstp_preempt_reason reason)
{
	(void) miniport;
	(void) reason;
	return hw_engine_preempt(&os_adapter->gpu->engines[engine_id], request_id,
				 FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiAddAdapter = catching_add_adapter;
	ddi->DxgkDdiPreemptCommand = coarse_preempt_command;
}

const char *
fsc_driver_name(void)
{
	return "pre-03-preempts-at-dma-buffer-boundary";
}
