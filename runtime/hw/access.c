/* SPDX-License-Identifier: MIT */
/*
 * The engine's memory accesses (MMU-14; docs/runtime.md "Page faults as built"): a work
 * packet's read or write of a GPU VA range, translated through the context's page tables by
 * the GPU's MMU (hw/mmu.c, hw_mmu_translate) from the root register the KMD programmed into
 * the context. Every 4 KB page of the range is translated — a 64 KB page is walked once per 4 KB
 * of it, which gives the same page — before any byte moves, so an access that faults on any
 * page writes nothing at all: no write lands outside a mapping, not even the part of a write
 * whose first pages were mapped. What it is not: the fault's consequences (hw/engine.c raises
 * the interrupt, the OS terminates and resets) and the page tables themselves (hw/mmu.c, the
 * KMD, the OS's memory manager).
 */
#include <stdlib.h>
#include <string.h>

#include "hw/hw-private.h"

#define ACCESS_PAGE_BYTES UINT64_C(4096)

/* One translated piece of the range: host bytes within one 4 KB page. */
struct access_piece {
	uint8_t *host;
	uint64_t bytes;
};

bool
hw_access_run(struct hw_engine *engine, struct os_context *context, const struct hw_packet *access,
	      uint64_t *fault_va, int *fault_type)
{
	struct fsr_adapter *adapter = engine->adapter;
	/* The root register the KMD programmed into the context (DxgkDdiSetRootPageTable). */
	uint64_t root = atomic_load_explicit(&context->hw_root_page_table, memory_order_acquire);
	enum fstp_access_kind kind = (enum fstp_access_kind) access->flags;
	uint64_t va = access->a;
	uint64_t end = access->a + access->b; /* the UMD refused a range that wraps */
	size_t count = (size_t) ((end - (va & ~(ACCESS_PAGE_BYTES - 1)) + ACCESS_PAGE_BYTES - 1) /
				 ACCESS_PAGE_BYTES);
	struct access_piece *pieces = calloc(count, sizeof(*pieces));
	size_t n = 0;
	bool is_mapped = true;

	if (!pieces)
		abort(); /* an access the GPU could not make would be neither done nor faulted */
	/* First every page: the whole range translates, or nothing moves (all or nothing). */
	for (uint64_t at = va; at < end; n++) {
		uint64_t page_end = (at & ~(ACCESS_PAGE_BYTES - 1)) + ACCESS_PAGE_BYTES;
		enum fstp_fault_type type = FSTP_FAULT_TYPE_NOT_MAPPED;
		void *host = NULL;

		if (!hw_mmu_translate(adapter, root, at, kind, &host, &type)) {
			*fault_va = at;
			*fault_type = (int) type;
			is_mapped = false;
			break;
		}
		pieces[n].host = host;
		pieces[n].bytes = (page_end < end ? page_end : end) - at;
		at += pieces[n].bytes;
	}
	if (is_mapped) {
		uint64_t sum = 0;

		for (size_t i = 0; i < n; i++) {
			if (kind == FSTP_ACCESS_KIND_WRITE) {
				memset(pieces[i].host, (int) (uint8_t) access->c, pieces[i].bytes);
				continue;
			}
			for (uint64_t b = 0; b < pieces[i].bytes; b++)
				sum += pieces[i].host[b];
		}
		engine->bytes_read_sum += sum; /* what the reads saw (fsr_test_engine_read_sum) */
	}
	free(pieces);
	return is_mapped;
}

fsr_status
fsr_test_engine_read_sum(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id,
			 uint64_t *sum)
{
	struct hw_engine *engine;

	if (!runtime || !sum || adapter_id >= runtime->adapter_count ||
	    engine_id >= runtime->adapters[adapter_id]->config.engine_count)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(runtime);
	engine = &runtime->adapters[adapter_id]->gpu->engines[engine_id];
	hw_engine_lock(engine);
	*sum = engine->bytes_read_sum;
	hw_engine_unlock(engine);
	rt_unlock(runtime);
	return FSR_OK;
}
