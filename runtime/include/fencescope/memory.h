/* SPDX-License-Identifier: MIT */
/*
 * GPU virtual memory (spec 004, GpuMmu; docs/runtime.md "GpuMmu as built"): allocations placed
 * in a memory segment or in system memory, and each process's GPU virtual address space on
 * each adapter, in which the UMD reserves ranges and maps allocation ranges. The emulated
 * engines reach memory only through these mappings, translated by the GPU's MMU through page
 * tables the OS's memory manager (VidMm) keeps in the driver's format.
 *
 * A process has one GPU VA space per adapter (MMU-01), made by the memory manager the first
 * time the process reserves or maps on that adapter (va_space_create) and destroyed with the
 * process (va_space_destroy): a process that never calls fsr_va_reserve or fsr_va_map has none,
 * and its trace has none of these events. All its devices on one adapter share it. GPU VAs are
 * numbers of that space only: they are not host pointers and are independent of any CPU
 * address (MMU-08). VA 0 is never mapped.
 *
 * Include <fencescope/runtime.h>, which includes this header.
 */
#ifndef FENCESCOPE_MEMORY_H
#define FENCESCOPE_MEMORY_H

#ifndef FENCESCOPE_RUNTIME_H
#error "Please include <fencescope/runtime.h> instead."
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* MMU-10: GPU VAs are managed at this granularity at the interface. */
#define FSR_GPU_PAGE_BYTES UINT32_C(4096)
/* MMU-12: a memory segment may also be managed in pages of this size, as the driver chooses. */
#define FSR_GPU_LARGE_PAGE_BYTES UINT32_C(65536)
/* The size of every process's GPU VA space on an adapter of the reference driver: 1 TiB. */
#define FSR_GPU_VA_SPACE_BYTES (UINT64_C(1) << 40)

/* Where an allocation lives (MMU-11; the trace's `segment`). */
enum fsr_segment {
	FSR_SEGMENT_SYSTEM = 0, /* system memory, managed in 4 KB pages (MMU-12) */
	FSR_SEGMENT_LOCAL = 1,  /* the adapter's memory segment, 4 KB or 64 KB pages */
};

struct fsr_allocation_config {
	uint64_t size_bytes; /* > 0; rounded up to a multiple of the page size (MMU-13) */
	enum fsr_segment segment;
	/*
	 * The page size the allocation is aligned and sized to (MMU-12, MMU-13): 0 or
	 * FSR_GPU_PAGE_BYTES, or FSR_GPU_LARGE_PAGE_BYTES in FSR_SEGMENT_LOCAL when the driver
	 * supports 64 KB pages (the reference driver does). Anything else is refused
	 * (FSR_ERR_INVALID_ARGUMENT), as is 64 KB in system memory (MMU-12).
	 */
	uint32_t page_size_bytes;
};

/*
 * MMU-05, MMU-11, MMU-12, MMU-13: a VidMm allocation of `device` placed in `config->segment`,
 * aligned to and sized as a multiple of its page size (the size is rounded up; allocation_create
 * carries the rounded size), resident at once (allocation_residency), zero-filled. It has no
 * GPU VA until the UMD maps it (MMU-04). fsr_allocation_destroy frees it (its handle goes once
 * every mapping of it has been unmapped: the OS unmaps what is left, va_unmap for each). What
 * the UMD did not free goes with its device (RES-04).
 * Returns: the handle in *allocation.
 */
FSR_API fsr_status fsr_allocation_create_with_config(struct fsr_process *process, fsr_handle device,
						     const struct fsr_allocation_config *config,
						     fsr_handle *allocation);

/*
 * MMU-06, MMU-10: reserves `size_bytes` (a multiple of 4 KB) of the GPU VA space of `device`'s
 * process on `device`'s adapter. `fixed_va` non-zero: exactly there (4 KB aligned, inside the
 * space, overlapping no other reservation); 0: the memory manager picks the lowest free range
 * at or above `min_va` whose end is at or below `max_va` (0: no bound), aligned to 64 KB.
 * FSR_ERR_INVALID_ARGUMENT for a size or VA off the 4 KB grid, a range out of the space or the
 * bounds; FSR_ERR_BAD_STATE for a fixed range that overlaps a reservation; FSR_ERR_NO_RESOURCES
 * when no free range fits. Fires va_reserve (and va_space_create the first time).
 * Returns: the first VA in *va.
 */
FSR_API fsr_status fsr_va_reserve(struct fsr_process *process, fsr_handle device,
				  uint64_t size_bytes, uint64_t min_va, uint64_t max_va,
				  uint64_t fixed_va, uint64_t *va);

/*
 * MMU-06: frees a whole reservation (the `va` and `size_bytes` fsr_va_reserve gave); every
 * mapping still inside it is unmapped first (va_unmap each, then va_free).
 */
FSR_API fsr_status fsr_va_free(struct fsr_process *process, fsr_handle device, uint64_t va,
			       uint64_t size_bytes);

struct fsr_va_map_args {
	fsr_handle allocation; /* of the same process, made on a device of the same adapter */
	uint64_t offset_bytes; /* into the allocation: a multiple of 4 KB (MMU-10) */
	uint64_t size_bytes;   /* a multiple of 4 KB, inside the allocation */
	/*
	 * Non-zero: map there, 4 KB aligned, inside one reservation of the UMD's
	 * (fsr_va_reserve) and over no other mapping. 0: the memory manager picks a free range
	 * between min_va and max_va (as fsr_va_reserve does) and reserves it for this mapping
	 * alone (va_reserve with is_os_picked; fsr_va_unmap frees it again, va_free).
	 */
	uint64_t va;
	uint64_t min_va;   /* bounds of a picked VA (0: none) */
	uint64_t max_va;   /* highest VA + 1 a picked range may reach (0: none) */
	bool is_read_only; /* a write through the mapping faults (READ_ONLY) */
};

/*
 * MMU-04, MMU-06, MMU-07, MMU-11: maps `args->size_bytes` of an allocation from
 * `args->offset_bytes` at a GPU VA of `device`'s process on its adapter. One allocation may be
 * mapped any number of times at once (MMU-07). The page tables use 64 KB pages where the
 * allocation has them and the VA, the offset and the size are all 64 KB aligned (a picked VA
 * of a 64 KB allocation is), 4 KB pages otherwise (va_map's page_size_bytes). The mapping
 * translates from the moment the call returns. FSR_ERR_INVALID_ARGUMENT for a range off the
 * 4 KB grid or outside the allocation or the space, an allocation of another adapter;
 * FSR_ERR_BAD_STATE for a fixed VA outside a reservation or over a mapping;
 * FSR_ERR_NO_RESOURCES when no free range fits. Fires va_map (after va_reserve for a picked
 * VA, and the page_table_create / page_table_update events of the tables it needed).
 * Returns: the mapping's first VA in *va.
 */
FSR_API fsr_status fsr_va_map(struct fsr_process *process, fsr_handle device,
			      const struct fsr_va_map_args *args, uint64_t *va);

/*
 * MMU-06: unmaps a whole mapping (the VA fsr_va_map gave and its size): its page table
 * entries are invalidated (page_table_update with is_valid 0) and, when this returns, no access
 * of the GPU's translates through it any more (work still queued that uses the range faults
 * when it runs, not here). A picked mapping's own reservation is freed with it.
 */
FSR_API fsr_status fsr_va_unmap(struct fsr_process *process, fsr_handle device, uint64_t va,
				uint64_t size_bytes);

#ifdef __cplusplus
}
#endif

#endif /* FENCESCOPE_MEMORY_H */
