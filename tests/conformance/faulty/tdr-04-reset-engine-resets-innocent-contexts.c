/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, TDR-04 (and TDR-06's engine reset): DxgkDdiResetEngine resets the whole engine
 * state, innocent contexts included — besides the guilty work item in flight, it throws away
 * every other queue's work the engine held: the DMA packets waiting in its queue and what the
 * command processor had taken of each ring. The innocent contexts' work is then lost instead of
 * completing. Built on the reference driver: its reset, then the engine's queued work dropped.
 */
#include "faulty.h"

static struct fsr_adapter *os_adapter;

static int
capturing_add_adapter(struct fsr_adapter *adapter, const struct dxgk_callbacks *callbacks,
		      void **miniport)
{
	os_adapter = adapter;
	return reference.DxgkDdiAddAdapter(adapter, callbacks, miniport);
}

static int
wide_reset_engine(void *miniport, uint32_t engine_id, struct hw_dma_packet **aborted)
{
	struct hw_engine *engine = &os_adapter->gpu->engines[engine_id];
	int status = reference.DxgkDdiResetEngine(miniport, engine_id, aborted);

	/* Every queue's taken ring work skipped, every waiting DMA packet dropped (sim mode). */
	for (struct os_hwqueue *q = engine->run_list; q; q = q->next_on_engine)
		atomic_store(&q->control->read_ptr_bytes, q->fetched_ptr);
	for (struct hw_dma_packet *p = engine->dma_head; p; p = p->next)
		p->queue = NULL;
	return status;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiAddAdapter = capturing_add_adapter;
	ddi->DxgkDdiResetEngine = wide_reset_engine;
}

const char *
fsc_driver_name(void)
{
	return "tdr-04-reset-engine-resets-innocent-contexts";
}
