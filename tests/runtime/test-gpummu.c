/* SPDX-License-Identifier: MIT */
/*
 * The GpuMmu core (spec 004, MMU-01 to MMU-13; docs/runtime.md "GpuMmu as built"): allocations in
 * a segment or system memory with their page size, each process's GPU VA space per adapter, VA
 * reservations and mappings, and the page tables the OS keeps in the driver's format. Every
 * check looks through the GPU's own walk (fsr_test_gpu_translate, from the root register the
 * driver programmed into a context), so a rule holds where the engines see memory, and the tap
 * counts the events the memory manager and the driver fire.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "fencescope-test.h"
#include "runtime-fixture.h"

#define KB4  UINT64_C(4096)
#define KB64 UINT64_C(65536)
#define MB2  (UINT64_C(2) << 20)
#define GB1  (UINT64_C(1) << 30)

struct mmu_log {
	uint32_t va_space_create;
	uint32_t va_space_destroy;
	uint32_t va_reserve;
	uint32_t va_free;
	uint32_t va_map;
	uint32_t va_unmap;
	uint32_t page_table_create;
	uint32_t page_table_resize;
	uint32_t page_table_residency;
	uint32_t page_table_destroy;
	uint32_t page_table_update;
	uint32_t leaf_updates; /* page_table_update at the leaf (level 2) */
	uint64_t last_map_fields[9];
	uint64_t last_allocation_create[6];
	uint64_t last_resize[5];
};

static struct mmu_log mlog;

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct mmu_log *log = user_data;

	if (strcmp(name, "fencescope_os:va_space_create") == 0)
		log->va_space_create++;
	else if (strcmp(name, "fencescope_os:va_space_destroy") == 0)
		log->va_space_destroy++;
	else if (strcmp(name, "fencescope_os:va_reserve") == 0)
		log->va_reserve++;
	else if (strcmp(name, "fencescope_os:va_free") == 0)
		log->va_free++;
	else if (strcmp(name, "fencescope_os:va_map") == 0) {
		log->va_map++;
		memcpy(log->last_map_fields, fields, field_count * sizeof(*fields));
	} else if (strcmp(name, "fencescope_os:va_unmap") == 0)
		log->va_unmap++;
	else if (strcmp(name, "fencescope_os:page_table_create") == 0)
		log->page_table_create++;
	else if (strcmp(name, "fencescope_os:page_table_resize") == 0) {
		log->page_table_resize++;
		memcpy(log->last_resize, fields, field_count * sizeof(*fields));
	} else if (strcmp(name, "fencescope_os:page_table_residency") == 0)
		log->page_table_residency++;
	else if (strcmp(name, "fencescope_os:page_table_destroy") == 0)
		log->page_table_destroy++;
	else if (strcmp(name, "fencescope_kmd:page_table_update") == 0) {
		log->page_table_update++;
		if (fields[7] == 2)
			log->leaf_updates++;
	} else if (strcmp(name, "fencescope_os:allocation_create") == 0)
		memcpy(log->last_allocation_create, fields, field_count * sizeof(*fields));
}

static void
setup_mmu(void)
{
	memset(&mlog, 0, sizeof(mlog));
	fst_rt_setup();
	fsr_runtime_set_event_tap(fx.runtime, tap, &mlog);
}

static void
teardown_mmu(void)
{
	if (fx.runtime)
		fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	fst_rt_teardown();
}

TestSuite(gpummu, .init = setup_mmu, .fini = teardown_mmu);

static fsr_handle
make_allocation(struct fsr_process *process, fsr_handle device, uint64_t size,
		enum fsr_segment segment, uint32_t page_size)
{
	struct fsr_allocation_config config = {
	    .size_bytes = size, .segment = segment, .page_size_bytes = page_size};
	fsr_handle allocation = 0;

	cr_assert_eq(fsr_allocation_create_with_config(process, device, &config, &allocation),
		     FSR_OK);
	return allocation;
}

static uint64_t
map(struct fsr_process *process, fsr_handle device, fsr_handle allocation, uint64_t offset,
    uint64_t size, uint64_t va)
{
	struct fsr_va_map_args args = {
	    .allocation = allocation, .offset_bytes = offset, .size_bytes = size, .va = va};
	uint64_t mapped = 0;

	cr_assert_eq(fsr_va_map(process, device, &args, &mapped), FSR_OK);
	return mapped;
}

/* The GPU's walk of `va` for `context` of `process`: the host byte, or NULL on a fault. */
static unsigned char *
gpu_byte(struct fsr_process *process, fsr_handle context, uint64_t va, bool is_write,
	 int *fault_type)
{
	uint64_t root = 0;
	void *host = NULL;
	int fault = -1;

	cr_assert_eq(fsr_test_context_root_register(process, context, &root), FSR_OK);
	if (!fsr_test_gpu_translate(fx.runtime, fx.adapter_id, root, va, is_write, &host, &fault)) {
		if (fault_type)
			*fault_type = fault;
		return NULL;
	}
	return host;
}

Test(gpummu, mmu_04_new_allocation_has_no_va_and_no_va_space)
{
	make_allocation(fx.process, fx.device, KB64, FSR_SEGMENT_LOCAL, 0);
	/* MMU-04: VidMm assigns nothing on its own: no VA space, no translation. */
	cr_assert_eq(mlog.va_space_create, 0);
	cr_assert_eq(mlog.va_map, 0);
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, KB64, false, NULL));
}

Test(gpummu, mmu_06_mapping_translates_to_the_allocation_pages)
{
	fsr_handle allocation =
	    make_allocation(fx.process, fx.device, 4 * KB4, FSR_SEGMENT_LOCAL, 0);
	uint64_t va = map(fx.process, fx.device, allocation, 0, 4 * KB4, 0);
	unsigned char *first = gpu_byte(fx.process, fx.context_3d, va, true, NULL);

	cr_assert_eq(mlog.va_space_create, 1);
	cr_assert_not_null(first);
	for (uint64_t off = 0; off < 4 * KB4; off += 777) {
		unsigned char *byte = gpu_byte(fx.process, fx.context_3d, va + off, true, NULL);

		cr_assert_eq(byte, first + off, "offset %llu", (unsigned long long) off);
	}
	/* Past the mapping: nothing. */
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va + 4 * KB4, false, NULL));
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va - 1, false, NULL));
}

Test(gpummu, mmu_06_unmap_invalidates_and_faults)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_SYSTEM, 0);
	uint64_t va = map(fx.process, fx.device, allocation, 0, KB4, 0);
	int fault = -1;

	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va, false, NULL));
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, va, KB4), FSR_OK);
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va, false, &fault));
	cr_assert_eq(fault, 0 /* NOT_MAPPED */);
	cr_assert_eq(mlog.va_unmap, 1);
	/* The picked range went with the mapping. */
	cr_assert_eq(mlog.va_reserve, 1);
	cr_assert_eq(mlog.va_free, 1);
}

Test(gpummu, mmu_14_read_only_mapping_faults_on_write_only)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_SYSTEM, 0);
	struct fsr_va_map_args args = {
	    .allocation = allocation, .size_bytes = KB4, .is_read_only = true};
	uint64_t va = 0;
	int fault = -1;

	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_OK);
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va, false, NULL));
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va, true, &fault));
	cr_assert_eq(fault, 1 /* READ_ONLY */);
}

Test(gpummu, mmu_01_va_mapped_in_one_process_does_not_translate_in_another)
{
	struct fsr_process *other;
	fsr_handle other_device, other_context;
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_LOCAL, 0);
	uint64_t va = map(fx.process, fx.device, allocation, 0, KB4, 0);

	fst_rt_add_process("other", &other, &other_device, &other_context);
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va, false, NULL));
	/* No VA space at all in the other process yet. */
	cr_assert_null(gpu_byte(other, other_context, va, false, NULL));
	/* Its own space, with a mapping of its own at the same VA: another page. */
	fsr_handle other_allocation =
	    make_allocation(other, other_device, KB4, FSR_SEGMENT_LOCAL, 0);
	uint64_t other_va = map(other, other_device, other_allocation, 0, KB4, 0);

	cr_assert_eq(other_va, va, "both spaces pick the same lowest VA");
	cr_assert_neq(gpu_byte(other, other_context, va, false, NULL),
		      gpu_byte(fx.process, fx.context_3d, va, false, NULL));
	cr_assert_eq(mlog.va_space_create, 2);
	cr_assert_eq(fsr_process_terminate(other, false), FSR_OK);
	cr_assert_eq(mlog.va_space_destroy, 1);
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va, false, NULL));
}

Test(gpummu, mmu_05_allocate_returns_a_handle_and_deallocate_frees_it)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_LOCAL, 0);

	cr_assert_neq(allocation, 0);
	cr_assert_eq(mlog.last_allocation_create[2], allocation);
	cr_assert_eq(fsr_allocation_destroy(fx.process, allocation), FSR_OK);
	cr_assert_eq(fsr_allocation_destroy(fx.process, allocation), FSR_ERR_INVALID_HANDLE);
}

Test(gpummu, mmu_05_mmu_06_destroying_a_mapped_allocation_unmaps_it)
{
	fsr_handle allocation =
	    make_allocation(fx.process, fx.device, 2 * KB4, FSR_SEGMENT_LOCAL, 0);
	uint64_t va1 = map(fx.process, fx.device, allocation, 0, KB4, 0);
	uint64_t va2 = map(fx.process, fx.device, allocation, KB4, KB4, 0);

	cr_assert_eq(fsr_allocation_destroy(fx.process, allocation), FSR_OK);
	cr_assert_eq(mlog.va_unmap, 2);
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va1, false, NULL));
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va2, false, NULL));
}

Test(gpummu, mmu_07_one_allocation_mapped_twice)
{
	fsr_handle allocation =
	    make_allocation(fx.process, fx.device, 2 * KB4, FSR_SEGMENT_LOCAL, 0);
	uint64_t va1 = map(fx.process, fx.device, allocation, 0, 2 * KB4, 0);
	uint64_t va2 = map(fx.process, fx.device, allocation, KB4, KB4, 0);
	unsigned char *through1, *through2;

	cr_assert_neq(va1, va2);
	through1 = gpu_byte(fx.process, fx.context_3d, va1 + KB4 + 5, true, NULL);
	through2 = gpu_byte(fx.process, fx.context_3d, va2 + 5, true, NULL);
	cr_assert_not_null(through1);
	cr_assert_eq(through1, through2, "both mappings name the same byte");
	/* Unmapping one leaves the other. */
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, va2, KB4), FSR_OK);
	cr_assert_eq(gpu_byte(fx.process, fx.context_3d, va1 + KB4 + 5, true, NULL), through1);
}

Test(gpummu, mmu_08_gpu_va_is_independent_of_the_cpu_address)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_SYSTEM, 0);
	uint64_t va = map(fx.process, fx.device, allocation, 0, KB4, 0);
	unsigned char *host = gpu_byte(fx.process, fx.context_3d, va, true, NULL);
	uint64_t chosen;

	cr_assert_not_null(host);
	cr_assert_neq((uint64_t) (uintptr_t) host, va, "the GPU VA is not the host address");
	/* The UMD may choose any VA of its own for the same allocation (MMU-08). */
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB64, 0, 0, 0x7f0000000ull, &chosen),
		     FSR_OK);
	cr_assert_eq(chosen, 0x7f0000000ull);
	cr_assert_eq(map(fx.process, fx.device, allocation, 0, KB4, chosen + KB4), chosen + KB4);
	cr_assert_eq(gpu_byte(fx.process, fx.context_3d, chosen + KB4, true, NULL), host);
}

Test(gpummu, mmu_10_ranges_are_4kb_granular_at_the_interface)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB64, FSR_SEGMENT_LOCAL, 0);
	struct fsr_va_map_args args = {.allocation = allocation, .size_bytes = KB4 + 1};
	uint64_t va = 0;

	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB4 + 512, 0, 0, 0, &va),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB4, 0, 0, 0x10000800ull, &va),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_ERR_INVALID_ARGUMENT);
	args.size_bytes = KB4;
	args.offset_bytes = 100;
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_ERR_INVALID_ARGUMENT);
	/* A 4 KB-aligned range of a 64 KB-page allocation is fine (4 KB entries then). */
	args.offset_bytes = KB4;
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_OK);
	cr_assert_eq(va % KB4, 0);
	cr_assert_eq(mlog.last_map_fields[7], KB4, "page_size_bytes of va_map");
}

Test(gpummu, mmu_11_system_and_segment_allocations_both_map)
{
	fsr_handle system = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_SYSTEM, 0);
	fsr_handle local = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_LOCAL, 0);
	uint64_t va_system = map(fx.process, fx.device, system, 0, KB4, 0);

	cr_assert_eq(mlog.last_map_fields[8], 0 /* SYSTEM */);
	uint64_t va_local = map(fx.process, fx.device, local, 0, KB4, 0);

	cr_assert_eq(mlog.last_map_fields[8], 1 /* LOCAL */);
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va_system, true, NULL));
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va_local, true, NULL));
}

Test(gpummu, mmu_12_64kb_pages_only_in_a_segment)
{
	struct fsr_allocation_config config = {
	    .size_bytes = KB64, .segment = FSR_SEGMENT_SYSTEM, .page_size_bytes = KB64};
	fsr_handle allocation = 0;

	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, &config, &allocation),
		     FSR_ERR_INVALID_ARGUMENT);
	config.page_size_bytes = 8192;
	config.segment = FSR_SEGMENT_LOCAL;
	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, &config, &allocation),
		     FSR_ERR_INVALID_ARGUMENT);
	config.page_size_bytes = KB64;
	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, &config, &allocation),
		     FSR_OK);
	cr_assert_eq(mlog.last_allocation_create[5], KB64);
	cr_assert_eq(mlog.last_allocation_create[4], 1 /* LOCAL */);
}

Test(gpummu, mmu_12_64kb_pages_translate_across_levels)
{
	fsr_handle allocation =
	    make_allocation(fx.process, fx.device, 4 * KB64, FSR_SEGMENT_LOCAL, (uint32_t) KB64);
	uint64_t reserved;
	uint64_t va;
	unsigned char *base;

	/* Across a 2 MB directory entry and a 1 GB root entry: 2 pages each side of 1 GB. */
	cr_assert_eq(
	    fsr_va_reserve(fx.process, fx.device, 8 * KB64, 0, 0, GB1 - 4 * KB64, &reserved),
	    FSR_OK);
	va = map(fx.process, fx.device, allocation, 0, 4 * KB64, GB1 - 2 * KB64);
	cr_assert_eq(mlog.last_map_fields[7], KB64);
	base = gpu_byte(fx.process, fx.context_3d, va, true, NULL);
	cr_assert_not_null(base);
	for (uint64_t off = 0; off < 4 * KB64; off += 4099)
		cr_assert_eq(gpu_byte(fx.process, fx.context_3d, va + off, false, NULL), base + off,
			     "offset %llu", (unsigned long long) off);
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va - 1, false, NULL));
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va + 4 * KB64, false, NULL));
	cr_assert_eq(((uintptr_t) base) % KB64, 0, "a 64 KB page is 64 KB aligned");
}

Test(gpummu, mmu_12_4kb_and_64kb_pages_mix_in_one_directory_span)
{
	fsr_handle big =
	    make_allocation(fx.process, fx.device, KB64, FSR_SEGMENT_LOCAL, (uint32_t) KB64);
	fsr_handle small = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_SYSTEM, 0);
	uint64_t reserved;

	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, MB2, 0, 0, 2 * MB2, &reserved), FSR_OK);
	map(fx.process, fx.device, big, 0, KB64, 2 * MB2);
	map(fx.process, fx.device, small, 0, KB4, 2 * MB2 + KB64);
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, 2 * MB2 + 100, false, NULL));
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, 2 * MB2 + KB64 + 100, false, NULL));
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, 2 * MB2 + KB64 + KB4, false, NULL));
	cr_assert_neq(gpu_byte(fx.process, fx.context_3d, 2 * MB2, false, NULL),
		      gpu_byte(fx.process, fx.context_3d, 2 * MB2 + KB64, false, NULL));
}

Test(gpummu, mmu_13_allocation_sized_to_a_multiple_of_its_page)
{
	make_allocation(fx.process, fx.device, 70000, FSR_SEGMENT_LOCAL, (uint32_t) KB64);
	cr_assert_eq(mlog.last_allocation_create[3], 2 * KB64, "size rounded up to 64 KB pages");
	make_allocation(fx.process, fx.device, 5000, FSR_SEGMENT_SYSTEM, 0);
	cr_assert_eq(mlog.last_allocation_create[3], 2 * KB4, "size rounded up to 4 KB pages");
}

Test(gpummu, mmu_06_picked_va_lies_within_the_bounds)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_LOCAL, 0);
	struct fsr_va_map_args args = {.allocation = allocation,
				       .size_bytes = KB4,
				       .min_va = 5 * GB1,
				       .max_va = 5 * GB1 + 2 * KB64};
	uint64_t va = 0;

	for (int i = 0; i < 2; i++) {
		cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_OK);
		cr_assert(va >= args.min_va && va + KB4 <= args.max_va);
		cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va, false, NULL));
	}
	/* Full: two 64 KB-aligned slots only. */
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_ERR_NO_RESOURCES);
}

Test(gpummu, mmu_06_fixed_map_needs_a_reservation_and_no_overlap)
{
	fsr_handle allocation =
	    make_allocation(fx.process, fx.device, 2 * KB4, FSR_SEGMENT_LOCAL, 0);
	struct fsr_va_map_args args = {
	    .allocation = allocation, .size_bytes = KB4, .va = 0x40000000ull};
	uint64_t va = 0, reserved = 0;

	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB64, 0, 0, 0x40000000ull, &reserved),
		     FSR_OK);
	cr_assert_eq(
	    fsr_va_reserve(fx.process, fx.device, KB4, 0, 0, 0x40000000ull + KB4, &reserved),
	    FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_OK);
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_ERR_BAD_STATE);
	/* Freeing the reservation unmaps what it holds. */
	cr_assert_eq(fsr_va_free(fx.process, fx.device, 0x40000000ull, KB64), FSR_OK);
	cr_assert_eq(mlog.va_unmap, 1);
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, 0x40000000ull, false, NULL));
}

Test(gpummu, mmu_02_mmu_03_root_grows_and_tables_go_with_the_space)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_LOCAL, 0);
	uint64_t low = map(fx.process, fx.device, allocation, 0, KB4, 0);
	uint64_t reserved;
	unsigned char *low_byte = gpu_byte(fx.process, fx.context_3d, low, false, NULL);

	cr_assert_eq(mlog.page_table_resize, 0, "one root entry covers the first GB");
	/* MMU-03: a VA at 100 GB grows the root; what was mapped still translates. */
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB4, 0, 0, 100 * GB1, &reserved),
		     FSR_OK);
	cr_assert_eq(mlog.page_table_resize, 1);
	cr_assert_geq(mlog.last_resize[4], 101);
	cr_assert_eq(map(fx.process, fx.device, allocation, 0, KB4, 100 * GB1), 100 * GB1);
	cr_assert_eq(gpu_byte(fx.process, fx.context_3d, low, false, NULL), low_byte);
	cr_assert_eq(gpu_byte(fx.process, fx.context_3d, 100 * GB1, false, NULL), low_byte);
	/* A context created afterwards translates through the same tables. */
	fsr_handle context = 0;

	cr_assert_eq(fsr_context_create(fx.process, fx.device, 1, &context), FSR_OK);
	cr_assert_eq(gpu_byte(fx.process, context, 100 * GB1, false, NULL), low_byte);
	/* MMU-02: root + 2 directories + 2 leaves made; all resident; all freed with the space. */
	cr_assert_eq(mlog.page_table_create, 5);
	cr_assert_eq(mlog.page_table_residency, 5);
	fsr_process_terminate(fx.process, false);
	fx.process = NULL;
	cr_assert_eq(mlog.page_table_destroy, 5);
	cr_assert_eq(mlog.va_space_destroy, 1);
}

Test(gpummu, mmu_02_page_tables_follow_the_device_power_state)
{
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_LOCAL, 0);

	map(fx.process, fx.device, allocation, 0, KB4, 0);
	cr_assert_eq(mlog.page_table_residency, 3);
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3), FSR_OK);
	cr_assert_eq(mlog.page_table_residency, 6);
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D0), FSR_OK);
	cr_assert_eq(mlog.page_table_residency, 9);
}

/* ---- property test: random reserve/map/unmap orders against a reference map ------------- */

#define FUZZ_ALLOCATIONS 8
#define FUZZ_RANGES      16
#define FUZZ_MAPPINGS    32
#define FUZZ_LOW         (UINT64_C(64) << 20) /* random VAs below 64 MB: dense */
#define FUZZ_ANCHOR      (UINT64_C(512) << 30)

struct ref_allocation {
	fsr_handle handle; /* 0: none */
	uint64_t size;
	uint64_t page;
	uint64_t anchor_va; /* where it is mapped whole, to learn its storage */
	unsigned char *storage;
};

struct ref_range {
	bool is_used;
	bool is_for_mapping;
	uint64_t va, size;
};

struct ref_mapping {
	bool is_used;
	int allocation;
	uint64_t va, size, offset;
};

struct ref_model {
	struct ref_allocation allocations[FUZZ_ALLOCATIONS];
	struct ref_range ranges[FUZZ_RANGES];
	struct ref_mapping mappings[FUZZ_MAPPINGS];
	uint64_t next_anchor;
	uint64_t rng;
};

static uint64_t
fuzz_next(struct ref_model *model)
{
	/* splitmix64 */
	uint64_t z = (model->rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static bool
ref_overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return a < b + bs && b < a + as;
}

/* What the GPU must see at `va`: the storage byte, or NULL. */
static unsigned char *
ref_translate(const struct ref_model *model, uint64_t va)
{
	for (int m = 0; m < FUZZ_MAPPINGS; m++) {
		const struct ref_mapping *mapping = &model->mappings[m];

		if (mapping->is_used && va >= mapping->va && va < mapping->va + mapping->size)
			return model->allocations[mapping->allocation].storage + mapping->offset +
			       (va - mapping->va);
	}
	for (int a = 0; a < FUZZ_ALLOCATIONS; a++) {
		const struct ref_allocation *allocation = &model->allocations[a];

		if (allocation->handle && va >= allocation->anchor_va &&
		    va < allocation->anchor_va + allocation->size)
			return allocation->storage + (va - allocation->anchor_va);
	}
	return NULL;
}

static void
fuzz_check(struct ref_model *model, uint64_t va)
{
	unsigned char *expected = ref_translate(model, va);
	unsigned char *seen = gpu_byte(fx.process, fx.context_3d, va, false, NULL);

	cr_assert_eq(seen, expected, "VA 0x%llx: the GPU sees %p, the reference %p",
		     (unsigned long long) va, (void *) seen, (void *) expected);
}

static void
fuzz_create(struct ref_model *model, int a)
{
	struct ref_allocation *allocation = &model->allocations[a];
	bool is_large = fuzz_next(model) % 3 == 0;
	uint64_t page = is_large ? KB64 : KB4;
	uint64_t pages = 1 + fuzz_next(model) % 6;
	uint64_t va;

	allocation->handle = make_allocation(fx.process, fx.device, pages * page,
					     is_large || fuzz_next(model) % 2 ? FSR_SEGMENT_LOCAL
									      : FSR_SEGMENT_SYSTEM,
					     (uint32_t) page);
	allocation->size = pages * page;
	allocation->page = page;
	allocation->anchor_va = model->next_anchor;
	model->next_anchor += UINT64_C(1) << 20;
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, allocation->size, 0, 0,
				    allocation->anchor_va, &va),
		     FSR_OK);
	map(fx.process, fx.device, allocation->handle, 0, allocation->size, allocation->anchor_va);
	allocation->storage =
	    gpu_byte(fx.process, fx.context_3d, allocation->anchor_va, false, NULL);
	cr_assert_not_null(allocation->storage);
}

static void
fuzz_destroy(struct ref_model *model, int a)
{
	struct ref_allocation *allocation = &model->allocations[a];

	cr_assert_eq(fsr_allocation_destroy(fx.process, allocation->handle), FSR_OK);
	cr_assert_eq(fsr_va_free(fx.process, fx.device, allocation->anchor_va, allocation->size),
		     FSR_OK);
	for (int m = 0; m < FUZZ_MAPPINGS; m++) {
		struct ref_mapping *mapping = &model->mappings[m];

		if (mapping->is_used && mapping->allocation == a) {
			mapping->is_used = false;
			for (int r = 0; r < FUZZ_RANGES; r++)
				if (model->ranges[r].is_used && model->ranges[r].is_for_mapping &&
				    model->ranges[r].va == mapping->va)
					model->ranges[r].is_used = false;
		}
	}
	allocation->handle = 0;
}

static int
free_slot_range(struct ref_model *model)
{
	for (int r = 0; r < FUZZ_RANGES; r++)
		if (!model->ranges[r].is_used)
			return r;
	return -1;
}

static void
fuzz_reserve(struct ref_model *model)
{
	int r = free_slot_range(model);
	uint64_t size = (1 + fuzz_next(model) % 40) * KB4;
	uint64_t fixed =
	    fuzz_next(model) % 2 ? (1 + fuzz_next(model) % (FUZZ_LOW / KB4 - 64)) * KB4 : 0;
	bool expect_overlap = false;
	uint64_t va = 0;
	fsr_status status;

	if (r < 0)
		return;
	for (int o = 0; fixed && o < FUZZ_RANGES; o++)
		if (model->ranges[o].is_used &&
		    ref_overlaps(fixed, size, model->ranges[o].va, model->ranges[o].size))
			expect_overlap = true;
	status = fsr_va_reserve(fx.process, fx.device, size, 0, fixed ? 0 : FUZZ_LOW, fixed, &va);
	if (expect_overlap) {
		cr_assert_eq(status, FSR_ERR_BAD_STATE);
		return;
	}
	cr_assert_eq(status, FSR_OK);
	cr_assert(fixed ? va == fixed : va + size <= FUZZ_LOW, "MMU-06: within the bounds");
	for (int o = 0; o < FUZZ_RANGES; o++)
		cr_assert(!model->ranges[o].is_used ||
			  !ref_overlaps(va, size, model->ranges[o].va, model->ranges[o].size));
	model->ranges[r] = (struct ref_range){.is_used = true, .va = va, .size = size};
}

static void
fuzz_free(struct ref_model *model)
{
	int r = (int) (fuzz_next(model) % FUZZ_RANGES);
	struct ref_range *range = &model->ranges[r];

	if (!range->is_used || range->is_for_mapping)
		return;
	cr_assert_eq(fsr_va_free(fx.process, fx.device, range->va, range->size), FSR_OK);
	for (int m = 0; m < FUZZ_MAPPINGS; m++)
		if (model->mappings[m].is_used &&
		    ref_overlaps(model->mappings[m].va, model->mappings[m].size, range->va,
				 range->size))
			model->mappings[m].is_used = false;
	range->is_used = false;
}

static void
fuzz_map(struct ref_model *model)
{
	int a = (int) (fuzz_next(model) % FUZZ_ALLOCATIONS);
	int r = (int) (fuzz_next(model) % FUZZ_RANGES);
	struct ref_allocation *allocation = &model->allocations[a];
	struct fsr_va_map_args args = {.allocation = allocation->handle};
	int slot = -1;
	uint64_t va = 0;
	bool is_picked = fuzz_next(model) % 3 == 0;
	bool expect_refusal = false;
	fsr_status status;

	for (int m = 0; m < FUZZ_MAPPINGS && slot < 0; m++)
		if (!model->mappings[m].is_used)
			slot = m;
	if (!allocation->handle || slot < 0)
		return;
	args.offset_bytes = (fuzz_next(model) % (allocation->size / KB4)) * KB4;
	args.size_bytes =
	    (1 + fuzz_next(model) % ((allocation->size - args.offset_bytes) / KB4)) * KB4;
	if (is_picked) {
		args.max_va = FUZZ_LOW;
	} else {
		struct ref_range *range = &model->ranges[r];

		if (!range->is_used || range->is_for_mapping || range->size < args.size_bytes)
			return;
		args.va = range->va +
			  (fuzz_next(model) % ((range->size - args.size_bytes) / KB4 + 1)) * KB4;
		for (int m = 0; m < FUZZ_MAPPINGS; m++)
			if (model->mappings[m].is_used &&
			    ref_overlaps(args.va, args.size_bytes, model->mappings[m].va,
					 model->mappings[m].size))
				expect_refusal = true;
	}
	if (is_picked && free_slot_range(model) < 0)
		return;
	status = fsr_va_map(fx.process, fx.device, &args, &va);
	if (expect_refusal) {
		cr_assert_eq(status, FSR_ERR_BAD_STATE);
		return;
	}
	cr_assert_eq(status, FSR_OK);
	if (is_picked) {
		int free_range = free_slot_range(model);

		cr_assert(va + args.size_bytes <= FUZZ_LOW, "MMU-06: within the bounds");
		for (int o = 0; o < FUZZ_RANGES; o++)
			cr_assert(!model->ranges[o].is_used ||
				  !ref_overlaps(va, args.size_bytes, model->ranges[o].va,
						model->ranges[o].size));
		model->ranges[free_range] = (struct ref_range){
		    .is_used = true, .is_for_mapping = true, .va = va, .size = args.size_bytes};
	}
	model->mappings[slot] = (struct ref_mapping){.is_used = true,
						     .allocation = a,
						     .va = va,
						     .size = args.size_bytes,
						     .offset = args.offset_bytes};
}

static void
fuzz_unmap(struct ref_model *model)
{
	int m = (int) (fuzz_next(model) % FUZZ_MAPPINGS);
	struct ref_mapping *mapping = &model->mappings[m];

	if (!mapping->is_used)
		return;
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, mapping->va, mapping->size), FSR_OK);
	for (int r = 0; r < FUZZ_RANGES; r++)
		if (model->ranges[r].is_used && model->ranges[r].is_for_mapping &&
		    model->ranges[r].va == mapping->va)
			model->ranges[r].is_used = false;
	mapping->is_used = false;
}

static void
fuzz_check_all(struct ref_model *model)
{
	for (int m = 0; m < FUZZ_MAPPINGS; m++) {
		const struct ref_mapping *mapping = &model->mappings[m];

		if (!mapping->is_used)
			continue;
		fuzz_check(model, mapping->va);
		fuzz_check(model, mapping->va - 1);
		fuzz_check(model, mapping->va + mapping->size - 1);
		fuzz_check(model, mapping->va + mapping->size);
	}
	for (int i = 0; i < 64; i++)
		fuzz_check(model, fuzz_next(model) % FUZZ_LOW);
}

Test(gpummu, mmu_06_mmu_07_mmu_10_random_orders_translate_as_a_reference_map)
{
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct ref_model model = {.next_anchor = FUZZ_ANCHOR, .rng = seed};

		for (int step = 0; step < 250; step++) {
			int a = (int) (fuzz_next(&model) % FUZZ_ALLOCATIONS);

			switch (fuzz_next(&model) % 8) {
			case 0:
				if (!model.allocations[a].handle)
					fuzz_create(&model, a);
				else if (fuzz_next(&model) % 4 == 0)
					fuzz_destroy(&model, a);
				break;
			case 1:
			case 2:
				fuzz_reserve(&model);
				break;
			case 3:
				fuzz_free(&model);
				break;
			case 4:
			case 5:
				fuzz_map(&model);
				break;
			default:
				fuzz_unmap(&model);
				break;
			}
			if (step % 10 == 9)
				fuzz_check_all(&model);
		}
		fuzz_check_all(&model);
		/* Everything goes with the process (a fresh one for the next seed). */
		for (int a = 0; a < FUZZ_ALLOCATIONS; a++)
			if (model.allocations[a].handle)
				fuzz_destroy(&model, a);
		for (int r = 0; r < FUZZ_RANGES; r++)
			if (model.ranges[r].is_used && !model.ranges[r].is_for_mapping)
				cr_assert_eq(fsr_va_free(fx.process, fx.device, model.ranges[r].va,
							 model.ranges[r].size),
					     FSR_OK);
		cr_assert_gt(mlog.va_map, 20 * seed, "seed %llu: the run maps",
			     (unsigned long long) seed);
		cr_assert_eq(mlog.va_map, mlog.va_unmap, "seed %llu: every mapping unmapped",
			     (unsigned long long) seed);
		cr_assert_eq(mlog.va_reserve, mlog.va_free, "seed %llu: every range freed",
			     (unsigned long long) seed);
	}
}

Test(gpummu, mmu_06_mmu_10_bad_input_is_refused_and_changes_nothing)
{
	struct fsr_allocation_config config = {.size_bytes = KB4};
	fsr_handle allocation = make_allocation(fx.process, fx.device, KB4, FSR_SEGMENT_SYSTEM, 0);
	struct fsr_va_map_args args = {.allocation = allocation, .size_bytes = KB4};
	fsr_handle out = 0;
	uint64_t va = 0;

	cr_assert_eq(fsr_allocation_create_with_config(NULL, fx.device, &config, &out),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, NULL, &out),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, &config, NULL),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_allocation_create_with_config(fx.process, 0x1234, &config, &out),
		     FSR_ERR_INVALID_HANDLE);
	config.segment = (enum fsr_segment) 7;
	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, &config, &out),
		     FSR_ERR_INVALID_ARGUMENT);
	config = (struct fsr_allocation_config){.size_bytes = 0};
	cr_assert_eq(fsr_allocation_create_with_config(fx.process, fx.device, &config, &out),
		     FSR_ERR_INVALID_ARGUMENT);
	/* No VA space yet: nothing to free or unmap, and a refused call makes none. */
	cr_assert_eq(fsr_va_free(fx.process, fx.device, KB64, KB4), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, KB64, KB4), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_reserve(NULL, fx.device, KB4, 0, 0, 0, &va), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB4, 0, 0, 0, NULL),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_map(fx.process, fx.device, NULL, &va), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, NULL), FSR_ERR_INVALID_ARGUMENT);
	args.allocation = 0x4321;
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_ERR_INVALID_HANDLE);
	cr_assert_eq(mlog.va_space_create, 0);
	/* Out of the space, wrapping, bounds the wrong way round. */
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB4, 0, 0, FSR_GPU_VA_SPACE_BYTES, &va),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB4, 0, 0, UINT64_MAX - KB4 + 1, &va),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, KB4, 2 * GB1, GB1, 0, &va),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, 2 * KB64, 0, KB64 * 2, 0, &va),
		     FSR_ERR_NO_RESOURCES, "no 128 KB below 128 KB but page 0's 64 KB");
	/* A mapping past the allocation's end, an unmap or free of a part only. */
	args.allocation = allocation;
	args.offset_bytes = KB4;
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_ERR_INVALID_ARGUMENT);
	args.offset_bytes = 0;
	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &va), FSR_OK);
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, va + KB4, KB4), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_va_free(fx.process, fx.device, va, KB4), FSR_ERR_INVALID_ARGUMENT,
		     "a mapping's own range goes with the unmap, not with fsr_va_free");
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va, false, NULL));
	cr_assert_eq(mlog.va_unmap, 0);
}

Test(gpummu, mmu_02_tables_left_empty_are_freed_and_made_again)
{
	fsr_handle allocation =
	    make_allocation(fx.process, fx.device, 2 * KB64, FSR_SEGMENT_LOCAL, (uint32_t) KB64);
	uint64_t reserved, va1, va2;

	cr_assert_eq(fsr_va_reserve(fx.process, fx.device, 4 * MB2, 0, 0, 3 * GB1 / 2, &reserved),
		     FSR_OK);
	/* One 64 KB leaf and one directory for both mappings (same 2 MB span). */
	va1 = map(fx.process, fx.device, allocation, 0, KB64, reserved);
	va2 = map(fx.process, fx.device, allocation, 0, KB4, reserved + KB64);
	cr_assert_eq(mlog.page_table_create, 4, "root, directory, a 64 KB and a 4 KB leaf");
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, va1, KB64), FSR_OK);
	cr_assert_eq(mlog.page_table_destroy, 1, "the 64 KB leaf went; the directory stays");
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va2, false, NULL));
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, va2, KB4), FSR_OK);
	cr_assert_eq(mlog.page_table_destroy, 3, "then the 4 KB leaf and the empty directory");
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, va2, false, NULL));
	/* Mapping there again makes the tables again, and they translate. */
	va1 = map(fx.process, fx.device, allocation, KB64, KB64, reserved);
	cr_assert_eq(mlog.page_table_create, 6);
	cr_assert_not_null(gpu_byte(fx.process, fx.context_3d, va1 + 5, false, NULL));
	cr_assert_null(gpu_byte(fx.process, fx.context_3d, reserved + 2 * MB2, false, NULL));
}
