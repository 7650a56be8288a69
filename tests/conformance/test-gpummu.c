/* SPDX-License-Identifier: MIT */
/*
 * Conformance: the driver's part of the GpuMmu (spec 004, MMU-01 to MMU-03, MMU-12). The OS
 * says which pages a mapping covers; the driver writes the page table entries in its format
 * (DxgkDdiUpdatePageTable) and programs each context's root (DxgkDdiSetRootPageTable). The
 * suite looks through the GPU's own walk (fsr_test_gpu_translate from the context's root
 * register): every page of a mapping translates to the allocation's page at the same offset, and
 * nothing else translates — not the page before, not the page after.
 */
#include <criterion/criterion.h>

#include "conformance.h"

#define KB4  UINT64_C(4096)
#define KB64 UINT64_C(65536)

TestSuite(gpummu, .init = fsc_setup, .fini = fsc_teardown);

static uint8_t *
walk(struct fsr_process *process, fsr_handle context, uint64_t va)
{
	uint64_t root = 0;
	void *host = NULL;
	int fault = -1;

	cr_assert_eq(fsr_test_context_root_register(process, context, &root), FSR_OK);
	if (!fsr_test_gpu_translate(fx.runtime, fx.adapter_id, root, va, false, &host, &fault))
		return NULL;
	return host;
}

static fsr_handle
allocation_new(uint64_t size, enum fsr_segment segment, uint32_t page_size)
{
	struct fsr_allocation_config config = {
	    .size_bytes = size, .segment = segment, .page_size_bytes = page_size};
	fsr_handle allocation = 0;

	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, &config, &allocation),
		     FSR_OK);
	return allocation;
}

/* Maps `pages` pages of `page` bytes in the middle of a larger reservation, checks every page
 * and the pages around it. */
static void
check_mapping_exact(uint64_t page, uint64_t pages, enum fsr_segment segment)
{
	uint64_t reserved = 0, va = 0;
	fsr_handle allocation = allocation_new(pages * page, segment, (uint32_t) page);
	struct fsr_va_map_args args = {.allocation = allocation, .size_bytes = pages * page};
	uint8_t *base;

	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, (pages + 2) * page, 0, 0, 0, &reserved),
		     FSR_OK);
	args.va = reserved + page;
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_OK);
	base = walk(fx.process, fx.context_3d, va);
	cr_assert_not_null(base, "the mapping's first page translates");
	for (uint64_t p = 0; p < pages; p++)
		cr_assert_eq(walk(fx.process, fx.context_3d, va + p * page + 12),
			     base + p * page + 12, "page %llu maps the allocation's page %llu",
			     (unsigned long long) p, (unsigned long long) p);
	cr_expect_null(walk(fx.process, fx.context_3d, va - 1), "the page before is not mapped");
	cr_expect_null(walk(fx.process, fx.context_3d, va + pages * page),
		       "the page after is not mapped");
	cr_expect_null(walk(fx.process, fx.context_3d, va + pages * page + page - 1));
}

Test(gpummu, mmu_02_a_4kb_mapping_translates_its_pages_and_no_more)
{
	check_mapping_exact(KB4, 3, FSR_SEGMENT_SYSTEM);
}

Test(gpummu, mmu_02_mmu_12_a_64kb_mapping_translates_its_pages_and_no_more)
{
	check_mapping_exact(KB64, 3, FSR_SEGMENT_LOCAL);
}

Test(gpummu, mmu_02_an_unmapped_range_translates_no_more)
{
	fsr_handle allocation = allocation_new(2 * KB4, FSR_SEGMENT_LOCAL, 0);
	struct fsr_va_map_args args = {.allocation = allocation, .size_bytes = 2 * KB4};
	uint64_t va = 0;
	size_t mark = fsc_event_count();

	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_OK);
	cr_assert_neq(fsc_find(mark, "fencescope_kmd:page_table_update", 4 /* is_valid */, 1),
		      FSC_NONE);
	cr_assert_not_null(walk(fx.process, fx.context_3d, va + KB4));
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, va, 2 * KB4), FSR_OK);
	cr_expect_null(walk(fx.process, fx.context_3d, va));
	cr_expect_null(walk(fx.process, fx.context_3d, va + KB4));
}

Test(gpummu, mmu_01_mmu_03_every_context_translates_through_the_grown_root)
{
	fsr_handle allocation = allocation_new(KB4, FSR_SEGMENT_LOCAL, 0);
	struct fsr_va_map_args args = {.allocation = allocation, .size_bytes = KB4};
	uint64_t low = 0, high = 0, reserved = 0;
	struct fsr_process *other;
	fsr_handle other_device, other_context;

	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &low), FSR_OK);
	cr_assert_eq(
	    fsr_va_reserve(fx.process, fx.device, KB64, 0, 0, UINT64_C(600) << 30, &reserved),
	    FSR_OK);
	args.va = reserved;
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &high), FSR_OK);
	for (fsr_handle c = 0; c < 3; c++) {
		fsr_handle context = c == 0   ? fx.context_3d
				     : c == 1 ? fx.context_compute
					      : fx.context_copy;

		cr_assert_not_null(walk(fx.process, context, low));
		cr_assert_eq(walk(fx.process, context, high), walk(fx.process, context, low));
	}
	/* MMU-01: another process's contexts translate none of it. */
	fst_rt_add_process("other", &other, &other_device, &other_context);
	cr_expect_null(walk(other, other_context, low));
	cr_expect_null(walk(other, other_context, high));
}
