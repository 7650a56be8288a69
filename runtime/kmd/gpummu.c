/* SPDX-License-Identifier: MIT */
/*
 * The reference driver's GpuMmu DDIs (spec 004, MMU-01 to MMU-03, MMU-12; docs/runtime.md
 * "GpuMmu as built"): the page table format is the GPU's (hw/hw-private.h, HW_MMU_*), known
 * here and in the GPU's MMU only. The OS learns the geometry from the caps, allocates the tables
 * and hands the driver generic entries (struct dxgk_pte), which the driver writes as words of
 * its format, one atomic store each, so that an engine walking at the same time reads either
 * the old or the new entry, never half of one. It also programs each context's root register
 * and flushes the MMU's view (the TLB).
 *
 * What it is not: which tables exist, where VAs go, when entries change (the OS, os/vidmm.c);
 * the walk (hw/mmu.c).
 */
#include "hw/hw-private.h"
#include "kmd/kmd-private.h"

void
kmd_gpummu_caps(struct dxgk_gpummu_caps *caps)
{
	*caps = (struct dxgk_gpummu_caps){
	    .va_bit_count = HW_MMU_VA_BITS,
	    .level_count = HW_MMU_LEVELS,
	    .levels =
		{
		    {.index_bit_count = HW_MMU_ROOT_INDEX_BITS,
		     .va_shift = HW_MMU_ROOT_SHIFT,
		     .entry_bytes = sizeof(uint64_t)},
		    {.index_bit_count = HW_MMU_DIR_INDEX_BITS,
		     .va_shift = HW_MMU_DIR_SHIFT,
		     .entry_bytes = HW_PDE_WORDS * sizeof(uint64_t)},
		    {.index_bit_count = HW_MMU_LEAF_INDEX_BITS,
		     .va_shift = HW_MMU_LEAF_SHIFT,
		     .entry_bytes = sizeof(uint64_t)},
		},
	    .is_64kb_page_supported = true,
	    .is_dual_pde_supported = true,
	    .leaf_64kb_index_bit_count = HW_MMU_LEAF64_INDEX_BITS,
	    .table_alignment_bytes = HW_MMU_TABLE_ALIGN,
	};
}

/* MMU-03: a root of *entry_count entries, one word each (this GPU takes any count up to 1024). */
static size_t
get_root_page_table_size(void *miniport, uint32_t *entry_count)
{
	(void) miniport;
	if (*entry_count == 0)
		*entry_count = 1;
	return (size_t) *entry_count * sizeof(uint64_t);
}

/*
 * MMU-01: the context's root register, written with its engine's lock held: an engine walks
 * only within its step, under that lock, so no walk of the old root is left when this returns.
 */
static void
set_root_page_table(void *miniport, struct os_context *context, void *root, uint32_t entry_count)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	struct hw_engine *engine = &adapter->gpu->engines[context->engine_id];

	hw_engine_lock(engine);
	atomic_store_explicit(&context->hw_root_page_table, hw_mmu_root_register(root, entry_count),
			      memory_order_release);
	hw_engine_unlock(engine);
}

/* An entry as a word of the GPU's format. */
static uint64_t
entry_word(const struct dxgk_pte *entry)
{
	uint64_t word;

	if (!entry->is_valid)
		return 0;
	word = (uint64_t) (uintptr_t) entry->address | HW_PTE_VALID;
	if (entry->is_read_only)
		word |= HW_PTE_READ_ONLY;
	return word;
}

/*
 * MMU-02, MMU-03: the entries in the GPU's format. A directory entry is two words (dual PDE):
 * the entry's page size says which leaf it names. Release stores: a table an entry names was
 * filled before the entry that names it.
 */
static void
update_page_table(void *miniport, const struct dxgk_update_page_table *args)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	_Atomic uint64_t *table = args->table;
	uint32_t page_size = args->entry_count ? args->entries[0].page_size_bytes : 0;
	bool is_directory = args->level == HW_MMU_LEVELS - 2;

	for (uint32_t i = 0; i < args->entry_count; i++) {
		const struct dxgk_pte *entry = &args->entries[i];
		uint64_t index = (uint64_t) args->first_entry + i;

		if (is_directory)
			index = index * HW_PDE_WORDS +
				(entry->page_size_bytes == FSR_GPU_LARGE_PAGE_BYTES ? 1 : 0);
		atomic_store_explicit(&table[index], entry_word(entry), memory_order_release);
	}
	FSR_TRACE(adapter->runtime, fencescope_kmd, page_table_update, args->process_id,
		  args->first_va, args->entry_count, args->level == 0 ? 0 : page_size,
		  (uint8_t) (args->entry_count && args->entries[0].is_valid), adapter->id,
		  args->table_id, args->level, args->first_entry);
}

static void
flush_tlb(void *miniport)
{
	hw_mmu_flush(((struct kmd_adapter *) miniport)->adapter);
}

void
kmd_gpummu_entries(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiGetRootPageTableSize = get_root_page_table_size;
	ddi->DxgkDdiSetRootPageTable = set_root_page_table;
	ddi->DxgkDdiUpdatePageTable = update_page_table;
	ddi->DxgkDdiFlushTlb = flush_tlb;
}
