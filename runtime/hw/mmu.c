/* SPDX-License-Identifier: MIT */
/*
 * The emulated GPU's MMU (spec 004; docs/runtime.md "GpuMmu as built"): the walk of one access
 * through the page tables, in the format hw/hw-private.h describes, from the root register the
 * KMD programmed into the context. It reads memory words only — the root table, a directory
 * entry, a leaf entry, each an atomic load — and never the OS's VA space, its reservations or
 * its allocations: the KMD's writes are the only way the OS's mappings reach it.
 *
 * What it is not: the tables' allocation, growth and residency (the OS's memory manager,
 * os/vidmm.c), the entries' writing (the KMD, kmd/gpummu.c), a fault's reporting (the engine,
 * which raises the PAGE_FAULT interrupt).
 */
#include "hw/hw-private.h"

static inline const _Atomic uint64_t *
entry_table(uint64_t entry)
{
	return (const _Atomic uint64_t *) (uintptr_t) (entry & HW_PTE_ADDRESS_MASK);
}

static inline uint64_t
load_entry(const _Atomic uint64_t *table, uint64_t index)
{
	/* Acquire: a table the entry names was zero-filled and written before it was named. */
	return atomic_load_explicit(&table[index], memory_order_acquire);
}

/* The leaf entry for `va` in directory entry `pde`'s span, 0 when none; *page_bytes its page. */
static uint64_t
walk_directory(const _Atomic uint64_t *directory, uint64_t va, uint64_t *page_bytes)
{
	uint64_t index = (va >> HW_MMU_DIR_SHIFT) & ((UINT64_C(1) << HW_MMU_DIR_INDEX_BITS) - 1);
	uint64_t pde_64k = load_entry(directory, index * HW_PDE_WORDS + 1);
	uint64_t pde_4k;

	if (pde_64k & HW_PTE_VALID) {
		uint64_t pte = load_entry(entry_table(pde_64k),
					  (va >> HW_MMU_LEAF64_SHIFT) &
					      ((UINT64_C(1) << HW_MMU_LEAF64_INDEX_BITS) - 1));

		if (pte & HW_PTE_VALID) {
			*page_bytes = UINT64_C(1) << HW_MMU_LEAF64_SHIFT;
			return pte;
		}
	}
	pde_4k = load_entry(directory, index * HW_PDE_WORDS);
	if (!(pde_4k & HW_PTE_VALID))
		return 0;
	*page_bytes = UINT64_C(1) << HW_MMU_LEAF_SHIFT;
	return load_entry(entry_table(pde_4k), (va >> HW_MMU_LEAF_SHIFT) &
						   ((UINT64_C(1) << HW_MMU_LEAF_INDEX_BITS) - 1));
}

bool
hw_mmu_translate(struct fsr_adapter *adapter, uint64_t root_register, uint64_t va,
		 enum fstp_access_kind access, void **host_ptr, enum fstp_fault_type *fault_type)
{
	const _Atomic uint64_t *root = entry_table(root_register);
	uint64_t root_entries = (root_register & HW_MMU_ROOT_COUNT_MASK) + 1;
	uint64_t root_index = va >> HW_MMU_ROOT_SHIFT;
	uint64_t page_bytes = 0;
	uint64_t rde;
	uint64_t pte;

	(void) adapter;
	*fault_type = FSTP_FAULT_TYPE_NOT_MAPPED;
	/* MMU-01: a context with no VA space translates nothing. */
	if (!root || (va >> HW_MMU_VA_BITS) != 0 || root_index >= root_entries)
		return false;
	rde = load_entry(root, root_index);
	if (!(rde & HW_PTE_VALID))
		return false;
	pte = walk_directory(entry_table(rde), va, &page_bytes);
	if (!(pte & HW_PTE_VALID))
		return false;
	if (access == FSTP_ACCESS_KIND_WRITE && (pte & HW_PTE_READ_ONLY)) {
		*fault_type = FSTP_FAULT_TYPE_READ_ONLY;
		return false;
	}
	*host_ptr = (char *) (uintptr_t) (pte & HW_PTE_ADDRESS_MASK) + (va & (page_bytes - 1));
	return true;
}

void
hw_mmu_flush(struct fsr_adapter *adapter)
{
	/* An engine translates and accesses within one step, holding its lock throughout. */
	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		hw_engine_lock(&adapter->gpu->engines[e]);
		hw_engine_unlock(&adapter->gpu->engines[e]);
	}
}

bool
fsr_test_gpu_translate(struct fsr_runtime *runtime, uint32_t adapter_id, uint64_t root_register,
		       uint64_t va, bool is_write, void **host_ptr, int *fault_type)
{
	enum fstp_fault_type type = FSTP_FAULT_TYPE_NOT_MAPPED;
	bool is_mapped = false;

	rt_lock(runtime);
	if (adapter_id < runtime->adapter_count)
		is_mapped = hw_mmu_translate(
		    runtime->adapters[adapter_id], root_register, va,
		    is_write ? FSTP_ACCESS_KIND_WRITE : FSTP_ACCESS_KIND_READ, host_ptr, &type);
	rt_unlock(runtime);
	*fault_type = (int) type;
	return is_mapped;
}

uint64_t
fsr_test_gpu_translate_many(struct fsr_runtime *runtime, uint32_t adapter_id,
			    uint64_t root_register, const uint64_t *vas, size_t count,
			    uint64_t *checksum)
{
	struct fsr_adapter *adapter;
	uint64_t mapped = 0, sum = 0;

	rt_lock(runtime);
	adapter = adapter_id < runtime->adapter_count ? runtime->adapters[adapter_id] : NULL;
	for (size_t i = 0; adapter && i < count; i++) {
		enum fstp_fault_type type;
		void *host;

		if (hw_mmu_translate(adapter, root_register, vas[i], FSTP_ACCESS_KIND_READ, &host,
				     &type)) {
			mapped++;
			sum += (uint64_t) (uintptr_t) host;
		}
	}
	rt_unlock(runtime);
	*checksum = sum;
	return mapped;
}
