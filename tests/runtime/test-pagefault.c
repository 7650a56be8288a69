/* SPDX-License-Identifier: MIT */
/*
 * GPU accesses through the MMU and their page faults (spec 004; MMU-14, TDR-06; docs/runtime.md
 * "Page faults as built"): work packets that read and write GPU VAs, translated page by page
 * through the context's page tables when the engine runs them; an access to an unmapped VA (or
 * a write through a read-only mapping) faults — the buffer ends FAULTED, nothing is written,
 * the OS terminates the context (a second fault of the device: the device) and has the engine
 * reset, promoted to an adapter reset when that fails; other processes carry on. The fault's
 * events are asserted in the order docs/trace-format.md (1.5) gives. Sim mode, both submission
 * modes, a seeded interleaving sweep, and realtime.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "runtime-fixture.h"

#define PAGE    UINT64_C(4096)
#define PAGE_64 UINT64_C(65536)

static void
setup_pf(void)
{
	fst_rt_setup();
	fst_tap_start();
}

TestSuite(pagefault, .init = setup_pf, .fini = fst_rt_teardown);

/* ---- helpers -------------------------------------------------------------------------------- */

/* An allocation of `process`'s `device` (zero-filled) mapped whole at a VA of its own. */
struct mapped {
	fsr_handle allocation;
	uint64_t va;
	uint64_t size;
	uint8_t *storage;
};

static struct mapped
map_new(struct fsr_process *process, fsr_handle device, uint64_t size, uint32_t page_size,
	bool is_read_only)
{
	struct fsr_allocation_config config = {
	    .size_bytes = size,
	    .segment = page_size == PAGE_64 ? FSR_SEGMENT_LOCAL : FSR_SEGMENT_SYSTEM,
	    .page_size_bytes = page_size,
	};
	struct fsr_va_map_args args = {.size_bytes = size, .is_read_only = is_read_only};
	struct mapped m = {.size = size};
	uint64_t storage_size = 0;

	cr_assert_eq(fsr_allocation_create_with_config(process, device, &config, &m.allocation),
		     FSR_OK);
	args.allocation = m.allocation;
	cr_assert_eq(fsr_va_map(process, device, &args, &m.va), FSR_OK);
	cr_assert_eq(fsr_test_allocation_storage(process, m.allocation, &m.storage, &storage_size),
		     FSR_OK);
	cr_assert_geq(storage_size, size);
	return m;
}

/* One command buffer of one access; returns its progress value. */
static uint64_t
submit_access(struct fsr_process *process, fsr_handle queue, enum fsr_gpu_access access,
	      uint64_t va, uint64_t bytes, uint8_t value)
{
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, access, va, bytes, value), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	return progress;
}

static bool
is_filled(const uint8_t *bytes, uint64_t count, uint8_t value)
{
	for (uint64_t i = 0; i < count; i++)
		if (bytes[i] != value)
			return false;
	return true;
}

static size_t
find(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < fst_tap_event_count(); i++) {
		const struct fst_event *e = fst_tap_event(i);

		if (strcmp(e->name, name) == 0 && (field < 0 || e->fields[field] == value))
			return i;
	}
	return SIZE_MAX;
}

static uint64_t
field_of(size_t index, int field)
{
	cr_assert_neq(index, SIZE_MAX);
	return fst_tap_event(index)->fields[field];
}

/*
 * docs/trace-format.md (1.5): a page fault reads hw:page_fault -> interrupt_raise (PAGE_FAULT)
 * -> interrupt_handled -> os:page_fault -> tdr_begin (PAGE_FAULT) -> context_error (->
 * device_lost when the scope is DEVICE) -> engine_reset (-> adapter_reset) -> tdr_end. Returns
 * the index of hw:page_fault; fails the test if the events are missing or out of order.
 */
static size_t
assert_fault_sequence(size_t from, bool is_device_scope, bool is_promoted)
{
	size_t fault = find(from, "fencescope_hw:page_fault", -1, 0);
	size_t raise =
	    find(fault, "fencescope_hw:interrupt_raise", 2, FSTP_INTERRUPT_TYPE_PAGE_FAULT);
	size_t handled =
	    find(raise, "fencescope_os:interrupt_handled", 2, FSTP_INTERRUPT_TYPE_PAGE_FAULT);
	size_t os_fault = find(handled, "fencescope_os:page_fault", -1, 0);
	size_t begin = find(os_fault, "fencescope_os:tdr_begin", 2, FSTP_LOSS_REASON_PAGE_FAULT);
	size_t error = find(begin, "fencescope_os:context_error", 4, FSTP_LOSS_REASON_PAGE_FAULT);
	size_t lost = find(error, "fencescope_os:device_lost", 2, FSTP_LOSS_REASON_PAGE_FAULT);
	size_t reset = find(error, "fencescope_kmd:engine_reset", -1, 0);
	size_t adapter_reset = find(reset, "fencescope_kmd:adapter_reset", -1, 0);
	size_t end = find(reset, "fencescope_os:tdr_end", -1, 0);

	cr_assert_neq(fault, SIZE_MAX, "no hw:page_fault");
	cr_assert_neq(raise, SIZE_MAX, "no PAGE_FAULT interrupt after hw:page_fault");
	cr_assert_neq(handled, SIZE_MAX, "no interrupt_handled after the raise");
	cr_assert_neq(os_fault, SIZE_MAX, "no os:page_fault after interrupt_handled");
	cr_assert_neq(begin, SIZE_MAX, "no tdr_begin (PAGE_FAULT) after os:page_fault");
	cr_assert_neq(error, SIZE_MAX, "no context_error (PAGE_FAULT) after tdr_begin");
	cr_assert_neq(reset, SIZE_MAX, "no engine_reset after context_error");
	cr_assert_neq(end, SIZE_MAX, "no tdr_end after the reset");
	cr_assert_eq(field_of(begin, 3), field_of(fault, 3), "tdr_begin names the guilty context");
	cr_assert_eq(field_of(error, 3), field_of(fault, 3), "the faulting context is in error");
	cr_assert_eq(field_of(os_fault, 3), field_of(fault, 3));
	cr_assert_eq(field_of(os_fault, 4), field_of(fault, 4), "the OS names the faulting VA");
	cr_assert_eq(field_of(os_fault, 5), field_of(fault, 7), "and its access kind");
	cr_assert_eq(field_of(os_fault, 7),
		     is_device_scope ? FSTP_FAULT_SCOPE_DEVICE : FSTP_FAULT_SCOPE_CONTEXT);
	if (is_device_scope)
		cr_assert(lost != SIZE_MAX && lost < reset, "device_lost before the engine reset");
	else
		cr_assert(lost == SIZE_MAX || lost > end, "no device_lost in a CONTEXT fault");
	if (is_promoted) {
		cr_assert_eq(field_of(reset, 2), 0, "the engine reset failed");
		cr_assert(adapter_reset != SIZE_MAX && adapter_reset < end);
		cr_assert_eq(field_of(end, 2), FSTP_TDR_RESULT_ADAPTER_RESET);
	} else {
		cr_assert_eq(field_of(reset, 2), 1);
		cr_assert(adapter_reset == SIZE_MAX || adapter_reset > end);
		cr_assert_eq(field_of(end, 2), FSTP_TDR_RESULT_ENGINE_RESET);
	}
	return fault;
}

/* ---- accesses that translate ------------------------------------------------------------ */

static void
write_and_read_back(enum fsr_submission_mode mode, uint32_t page_size)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, mode);
	struct mapped m = map_new(fx.process, fx.device, 4 * page_size, page_size, false);
	uint64_t progress, sum = 0;

	/* Three pages from the middle of the first: every page of the range is translated. */
	(void) submit_access(fx.process, queue, FSR_GPU_WRITE, m.va + page_size / 2, 2 * page_size,
			     0xab);
	progress = submit_access(fx.process, queue, FSR_GPU_READ, m.va, 4 * page_size, 0);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	cr_assert(is_filled(m.storage, page_size / 2, 0));
	cr_assert(is_filled(m.storage + page_size / 2, 2 * page_size, 0xab));
	cr_assert(is_filled(m.storage + 5 * page_size / 2, 3 * page_size / 2, 0));
	cr_assert_eq(fsr_test_engine_read_sum(fx.runtime, fx.adapter_id, 0, &sum), FSR_OK);
	cr_assert_eq(sum, 2 * page_size * 0xab, "the read saw what the write stored");
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:page_fault", -1, 0), 0);
}

Test(pagefault, mmu_14_user_mode_write_lands_in_the_mapped_allocation)
{
	write_and_read_back(FSR_SUBMIT_USER_MODE, PAGE);
}

Test(pagefault, mmu_14_kernel_mode_write_lands_in_the_mapped_allocation)
{
	write_and_read_back(FSR_SUBMIT_KERNEL_MODE, PAGE);
}

Test(pagefault, mmu_14_64k_pages_translate_across_pages)
{
	write_and_read_back(FSR_SUBMIT_USER_MODE, PAGE_64);
}

/* Kernel mode: the accesses before a WORK ride in its DMA packet and run when it starts. */
Test(pagefault, mmu_14_kernel_mode_accesses_travel_in_the_dma_packet_of_their_work)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	struct mapped m = map_new(fx.process, fx.device, PAGE, PAGE, false);
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress = 0;
	size_t start, fault;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, m.va, 16, 0x61), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_READ, m.va, 16, 0), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 5000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:packet_queued", 2, queue), 1,
		     "one DMA packet: the accesses and the work");
	cr_assert(is_filled(m.storage, 16, 0x61));
	/* A bad access in front of the work: the packet ends FAULTED before its work runs. */
	start = fst_tap_event_count();
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, m.va, 16, 0x62), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, m.va + PAGE, 16, 0x63), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 5000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_run_until_idle();
	fault = assert_fault_sequence(start, false, false);
	cr_assert_eq(field_of(fault, 1), 1);
	cr_assert_eq(
	    fst_tap_count(start, "fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_COMPLETED), 0);
	cr_assert_eq(
	    fst_tap_count(start, "fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_FAULTED), 1);
	cr_assert(is_filled(m.storage, 16, 0x62), "the access before the faulting one ran");
}

/*
 * PRE-09 with MMU-14: a preempted DMA packet's remainder resumes its work, not its accesses,
 * which ran when it started: an unmap meanwhile faults nothing.
 */
Test(pagefault, mmu_14_a_preempted_packet_s_remainder_does_not_repeat_its_accesses)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	struct mapped m = map_new(fx.process, fx.device, PAGE, PAGE, false);
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress = 0, request_id = 0;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, m.va, PAGE, 0x71), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 100000), FSR_OK); /* 1 ms */
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + 400000),
		     FSR_OK);
	cr_assert(is_filled(m.storage, PAGE, 0x71), "the access ran when the packet started");
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, m.va, PAGE), FSR_OK);
	cr_assert_eq(fsr_test_preempt_request(fx.runtime, fx.adapter_id, 0, 1, &request_id),
		     FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_PREEMPTED),
		     1, "the packet was preempted and resumed");
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:page_fault", -1, 0), 0);
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
}

Test(pagefault, mmu_07_one_allocation_mapped_twice_written_through_both)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct mapped m = map_new(fx.process, fx.device, 2 * PAGE, PAGE, false);
	struct fsr_va_map_args args = {
	    .allocation = m.allocation, .offset_bytes = PAGE, .size_bytes = PAGE};
	uint64_t alias = 0, progress;

	cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &alias), FSR_OK);
	(void) submit_access(fx.process, queue, FSR_GPU_WRITE, m.va, PAGE, 0x11);
	progress = submit_access(fx.process, queue, FSR_GPU_WRITE, alias + 8, 8, 0x22);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	cr_assert(is_filled(m.storage, PAGE, 0x11));
	cr_assert(is_filled(m.storage + PAGE, 8, 0));
	cr_assert(is_filled(m.storage + PAGE + 8, 8, 0x22), "the alias maps the second page");
}

Test(pagefault, mmu_14_recording_refuses_a_malformed_access)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_cmdbuf *cmdbuf;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, PAGE, 0, 1),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_READ, UINT64_MAX - 2, 8, 0),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, (enum fsr_gpu_access) 7, PAGE, 8, 0),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_READ, PAGE, FSR_MAX_ACCESS_BYTES + 1, 0),
		     FSR_ERR_INVALID_ARGUMENT);
	/* A raw access is not the UMD's: submission refuses it (only work may be raw). */
	cr_assert_eq(fsr_cmdbuf_raw(cmdbuf, HW_PACKET_ACCESS, FSTP_ACCESS_KIND_WRITE, PAGE, 8, 1),
		     FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_ERR_MALFORMED_PACKET);
	cr_assert_geq(fst_tap_count(0, "fencescope_os:call_failed", -1, 0), 4);
}

/* ---- MMU-14 and TDR-06: faults and their recovery --------------------------------------- */

static void
fault_on_an_unmapped_va(enum fsr_submission_mode mode)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, mode);
	struct mapped m = map_new(fx.process, fx.device, PAGE, PAGE, false);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result waited = {0};
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress = 0;
	size_t fault, end;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 1, FSR_INFINITE, fst_wait_record, &waited),
	    FSR_OK);
	/* A write to the page after the mapping: never mapped. */
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, m.va + PAGE + 16, 32, 0x5a), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	fst_run_until_idle();

	fault = assert_fault_sequence(0, false, false);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:page_fault", -1, 0), 1, "exactly once");
	cr_assert_eq(field_of(fault, 0), fx.adapter_id);
	cr_assert_eq(field_of(fault, 2), fsr_process_get_id(fx.process));
	cr_assert_eq(field_of(fault, 3), fx.context_3d);
	cr_assert_eq(field_of(fault, 4), m.va + PAGE + 16);
	cr_assert_eq(field_of(fault, 5), FSTP_FAULT_TYPE_NOT_MAPPED);
	cr_assert_eq(field_of(fault, 7), FSTP_ACCESS_KIND_WRITE);
	/* The packet that faulted ended FAULTED, under the id the fault names. */
	cr_assert_neq(find(0, "fencescope_hw:packet_end", 3, field_of(fault, 8)), SIZE_MAX);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_FAULTED),
		     1);
	/* The signal after the fault never ran: its waiter got DEVICE_LOST, the fence MAX. */
	cr_assert_eq(waited.call_count, 1);
	cr_assert_eq(waited.status, FSR_ERR_DEVICE_LOST);
	cr_assert_eq(fst_fence_value(fx.process, fence), UINT64_MAX);
	cr_assert(is_filled(m.storage, PAGE, 0), "nothing landed in the mapped page");
	/* Scope CONTEXT: the device is whole; a new context of it runs. */
	end = find(0, "fencescope_os:tdr_end", -1, 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:device_lost", -1, 0), 0);
	{
		fsr_handle context, again;
		uint64_t done;

		cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &context), FSR_OK);
		again = fst_queue_new(fx.process, context, mode);
		done = submit_access(fx.process, again, FSR_GPU_WRITE, m.va, 8, 0x77);
		fst_run_until_idle();
		cr_assert_eq(fst_last_completed(fx.process, again), done);
		cr_assert(is_filled(m.storage, 8, 0x77));
	}
	cr_assert_lt(end, fst_tap_event_count());
}

Test(pagefault, mmu_14_user_mode_unmapped_write_faults_terminates_the_context)
{
	fault_on_an_unmapped_va(FSR_SUBMIT_USER_MODE);
}

Test(pagefault, mmu_14_kernel_mode_unmapped_write_faults_terminates_the_context)
{
	fault_on_an_unmapped_va(FSR_SUBMIT_KERNEL_MODE);
}

static void
multi_page_write_is_all_or_nothing(enum fsr_submission_mode mode)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, mode);
	struct mapped m = map_new(fx.process, fx.device, 3 * PAGE, PAGE, false);
	size_t fault;

	/* Pages 0 and 2 mapped, page 1 not: a write over all three must store nothing. */
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, m.va, 3 * PAGE), FSR_OK);
	{
		struct fsr_va_map_args args = {.allocation = m.allocation, .size_bytes = PAGE};
		uint64_t va = 0, first = 0;

		cr_assert_eq(fsr_va_reserve(fx.process, fx.device, 3 * PAGE, 0, 0,
					    UINT64_C(0x80000000), &va),
			     FSR_OK);
		args.va = va;
		cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &first), FSR_OK);
		args.va = va + 2 * PAGE;
		args.offset_bytes = 2 * PAGE;
		cr_assert_eq(fsr_va_map(fx.process, fx.device, &args, &first), FSR_OK);
		m.va = va;
	}
	(void) submit_access(fx.process, queue, FSR_GPU_WRITE, m.va + 100, 3 * PAGE - 200, 0xee);
	fst_run_until_idle();
	fault = assert_fault_sequence(0, false, false);
	cr_assert_eq(field_of(fault, 4), m.va + PAGE, "the first byte on the unmapped page");
	cr_assert(is_filled(m.storage, 3 * PAGE, 0), "no byte of the faulting write landed");
}

Test(pagefault, mmu_14_faulting_multi_page_write_stores_nothing_user_mode)
{
	multi_page_write_is_all_or_nothing(FSR_SUBMIT_USER_MODE);
}

Test(pagefault, mmu_14_faulting_multi_page_write_stores_nothing_kernel_mode)
{
	multi_page_write_is_all_or_nothing(FSR_SUBMIT_KERNEL_MODE);
}

Test(pagefault, mmu_14_write_through_a_read_only_mapping_faults_read_does_not)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct mapped m = map_new(fx.process, fx.device, PAGE, PAGE, true);
	uint64_t progress;
	size_t fault;

	progress = submit_access(fx.process, queue, FSR_GPU_READ, m.va, PAGE, 0);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:page_fault", -1, 0), 0);
	(void) submit_access(fx.process, queue, FSR_GPU_WRITE, m.va, 8, 0x33);
	fst_run_until_idle();
	fault = assert_fault_sequence(0, false, false);
	cr_assert_eq(field_of(fault, 5), FSTP_FAULT_TYPE_READ_ONLY);
	cr_assert(is_filled(m.storage, PAGE, 0));
}

/* An unmap while work that uses the range is queued: the fault comes when the GPU runs it. */
static void
unmap_while_queued(enum fsr_submission_mode mode)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, mode);
	struct mapped m = map_new(fx.process, fx.device, 2 * PAGE, PAGE, false);
	fsr_handle gate = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf;
	size_t unmap, fault;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_wait(cmdbuf, gate, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, m.va, 2 * PAGE, 0x44), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_run_until_idle(); /* queued, blocked at the wait */
	cr_assert_eq(fsr_va_unmap(fx.process, fx.device, m.va, 2 * PAGE), FSR_OK);
	unmap = find(0, "fencescope_os:va_unmap", -1, 0);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:page_fault", -1, 0), 0,
		     "the unmap call itself faults nothing");
	cr_assert_eq(fst_tap_count(0, "fencescope_os:context_error", -1, 0), 0);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, gate, 1), FSR_OK);
	fst_run_until_idle();
	fault = assert_fault_sequence(0, false, false);
	cr_assert(unmap < fault);
	cr_assert_eq(field_of(fault, 4), m.va);
	cr_assert(is_filled(m.storage, 2 * PAGE, 0));
}

Test(pagefault, mmu_14_unmap_while_queued_faults_when_the_gpu_runs_user_mode)
{
	unmap_while_queued(FSR_SUBMIT_USER_MODE);
}

Test(pagefault, mmu_14_unmap_while_queued_faults_when_the_gpu_runs_kernel_mode)
{
	unmap_while_queued(FSR_SUBMIT_KERNEL_MODE);
}

Test(pagefault, mmu_14_a_process_without_a_va_space_faults)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);

	(void) submit_access(fx.process, queue, FSR_GPU_READ, 0x100000, 8, 0);
	fst_run_until_idle();
	(void) assert_fault_sequence(0, false, false);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:va_space_create", -1, 0), 0);
}

/* MMU-01: the same VA in another process is that process's, not the mapper's. */
Test(pagefault, mmu_01_another_process_s_mapped_va_faults_here)
{
	struct fsr_process *other;
	fsr_handle device, context, queue;
	struct mapped mine = map_new(fx.process, fx.device, PAGE, PAGE, false);
	size_t fault;

	fst_rt_add_process("other", &other, &device, &context);
	queue = fst_queue_new(other, context, FSR_SUBMIT_USER_MODE);
	(void) submit_access(other, queue, FSR_GPU_WRITE, mine.va, 8, 0x66);
	fst_run_until_idle();
	fault = assert_fault_sequence(0, false, false);
	cr_assert_eq(field_of(fault, 3), context);
	cr_assert(is_filled(mine.storage, PAGE, 0));
}

/* MMU-14 "and/or device": the device's second page fault terminates the device. */
Test(pagefault, mmu_14_a_second_fault_of_the_device_loses_the_device)
{
	fsr_handle first = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle second = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	enum fsr_doorbell_status status = FSR_DOORBELL_CONNECTED;
	size_t fault;

	(void) submit_access(fx.process, first, FSR_GPU_WRITE, 0x200000, 8, 1);
	fst_run_until_idle();
	(void) assert_fault_sequence(0, false, false);
	cr_assert_eq(fsr_doorbell_get_status(fx.process, second, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED, "a CONTEXT fault leaves the device whole");
	(void) submit_access(fx.process, second, FSR_GPU_READ, 0x200000, 8, 0);
	fst_run_until_idle();
	fault = assert_fault_sequence(find(0, "fencescope_os:tdr_end", -1, 0) + 1, true, false);
	cr_assert_eq(field_of(fault, 1), 1, "on the compute engine");
	cr_assert_eq(fst_tap_count(0, "fencescope_os:device_lost", 1, fx.device), 1);
	/* TDR-04: a device lost to a page fault disconnects its doorbells for good. */
	cr_assert_eq(fsr_doorbell_get_status(fx.process, second, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_ABORT);
}

/* TDR-05 after a DEVICE fault: the UMD makes a new device, whose work runs in the same VA space. */
Test(pagefault, mmu_14_tdr_05_after_a_device_fault_a_new_device_runs)
{
	fsr_handle first = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle second = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	struct mapped m = map_new(fx.process, fx.device, PAGE, PAGE, false);
	fsr_handle device, context, queue;
	uint64_t done;

	(void) submit_access(fx.process, first, FSR_GPU_WRITE, m.va + PAGE, 8, 1);
	fst_run_until_idle();
	(void) submit_access(fx.process, second, FSR_GPU_WRITE, m.va + PAGE, 8, 2);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_os:device_lost", 1, fx.device), 1);
	cr_assert_eq(fsr_device_create(fx.process, fx.adapter_id, &device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, device, 0, &context), FSR_OK);
	queue = fst_queue_new(fx.process, context, FSR_SUBMIT_USER_MODE);
	/* The process's VA space is the adapter's, not the device's: the mapping still holds. */
	done = submit_access(fx.process, queue, FSR_GPU_WRITE, m.va, 8, 0x5e);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), done);
	cr_assert(is_filled(m.storage, 8, 0x5e));
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:page_fault", -1, 0), 2);
}

/* Other processes carry on: their work on the faulting engine runs after the reset. */
static void
innocent_keeps_rendering(enum fsr_submission_mode mode)
{
	fsr_handle guilty = fst_queue_new(fx.process, fx.context_3d, mode);
	struct fsr_process *innocent;
	fsr_handle device, context, queue, fence;
	struct mapped canvas;
	uint64_t progress = 0, sum = 0;
	enum fsr_doorbell_status status;

	fst_rt_add_process("innocent", &innocent, &device, &context);
	queue = fst_queue_new(innocent, context, mode);
	fence = fst_fence_new(innocent, device, 0);
	canvas = map_new(innocent, device, 4 * PAGE, PAGE, false);
	for (uint64_t frame = 1; frame <= 6; frame++) {
		struct fsr_cmdbuf *cmdbuf;

		cr_assert_eq(fsr_cmdbuf_create(innocent, queue, &cmdbuf), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 20000), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE,
					       canvas.va + (frame - 1) % 4 * PAGE, PAGE,
					       (uint8_t) frame),
			     FSR_OK);
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, frame), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
		if (frame == 2) /* the guilty one faults while the innocent's frames are queued */
			(void) submit_access(fx.process, guilty, FSR_GPU_WRITE, canvas.va, PAGE,
					     0xff);
	}
	fst_run_until_idle();
	(void) assert_fault_sequence(0, false, false);
	cr_assert_eq(fst_last_completed(innocent, queue), progress, "every frame completed");
	cr_assert_eq(fst_fence_value(innocent, fence), 6);
	cr_assert(is_filled(canvas.storage, PAGE, 5));
	cr_assert(is_filled(canvas.storage + PAGE, PAGE, 6));
	cr_assert(is_filled(canvas.storage + 2 * PAGE, PAGE, 3));
	cr_assert(is_filled(canvas.storage + 3 * PAGE, PAGE, 4));
	cr_assert_eq(fst_tap_count(0, "fencescope_os:context_error", 3, context), 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:device_lost", -1, 0), 0);
	cr_assert_eq(fsr_test_engine_read_sum(fx.runtime, fx.adapter_id, 0, &sum), FSR_OK);
	if (mode == FSR_SUBMIT_USER_MODE) {
		cr_assert_eq(fsr_doorbell_get_status(innocent, queue, &status), FSR_OK);
		cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	}
}

Test(pagefault, mmu_14_user_mode_another_process_keeps_rendering)
{
	innocent_keeps_rendering(FSR_SUBMIT_USER_MODE);
}

Test(pagefault, mmu_14_kernel_mode_another_process_keeps_rendering)
{
	innocent_keeps_rendering(FSR_SUBMIT_KERNEL_MODE);
}

Test(pagefault, tdr_06_page_fault_recovered_by_an_engine_reset_of_the_memory_manager)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t fault, begin;

	(void) submit_access(fx.process, queue, FSR_GPU_READ, 0x300000, 4, 0);
	fst_run_until_idle();
	fault = assert_fault_sequence(0, false, false);
	begin = find(fault, "fencescope_os:tdr_begin", -1, 0);
	/* Not a timeout: no detection, no TDR preemption request before the reset. */
	cr_assert_eq(fst_tap_count(0, "fencescope_os:tdr_detect", -1, 0), 0);
	cr_assert_eq(find(fault, "fencescope_os:preempt_request", -1, 0) == SIZE_MAX ||
			 find(fault, "fencescope_os:preempt_request", -1, 0) > begin,
		     true);
	cr_assert_eq(field_of(begin, 1), 0);
	/* The engine runs again after it. */
	{
		fsr_handle context, after;
		uint64_t done;

		cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &context), FSR_OK);
		after = fst_queue_new(fx.process, context, FSR_SUBMIT_USER_MODE);
		done = fst_submit_work(fx.process, after, 1000);
		fst_run_until_idle();
		cr_assert_eq(fst_last_completed(fx.process, after), done);
	}
}

/* TDR-06: the engine reset fails; the adapter reset aborts and resubmits innocent work. */
Test(pagefault, tdr_06_failed_engine_reset_after_a_page_fault_promoted_to_adapter_reset)
{
	fsr_handle guilty = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_process *other;
	fsr_handle device, context_3d, compute, innocent;
	uint64_t progress;
	size_t adapter_reset, resubmitted;

	fst_rt_add_process("innocent", &other, &device, &context_3d);
	cr_assert_eq(fsr_context_create(other, device, 1, &compute), FSR_OK);
	innocent = fst_queue_new(other, compute, FSR_SUBMIT_KERNEL_MODE);
	cr_assert_eq(fsr_test_engine_reset_fail(fx.runtime, fx.adapter_id, 0, 1), FSR_OK);
	/* An innocent compute packet in flight when the fault comes. */
	progress = fst_submit_work(other, innocent, 1000000);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + 1000000),
		     FSR_OK);
	(void) submit_access(fx.process, guilty, FSR_GPU_WRITE, 0x400000, 8, 1);
	fst_run_until_idle();
	(void) assert_fault_sequence(0, false, true);
	adapter_reset = find(0, "fencescope_kmd:adapter_reset", -1, 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_ABORTED),
		     1);
	resubmitted = find(adapter_reset, "fencescope_os:packet_queued", 2, innocent);
	cr_assert_neq(resubmitted, SIZE_MAX);
	cr_assert_neq(field_of(resubmitted, 4), 0, "resubmission_of names the aborted packet");
	cr_assert_eq(fst_last_completed(other, innocent), progress);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:context_error", -1, 0), 1);
}

/* The recovery holds whatever the interleaving of the GPU and the OS (sim mode, 8 seeds). */
Test(pagefault, mmu_14_tdr_06_fault_and_recovery_hold_under_an_interleaving_sweep, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		fst_rt_teardown();
		setup_pf();
		cr_assert_eq(rt_interleave_enable(fx.runtime, seed, NULL, 0), FSR_OK);
		innocent_keeps_rendering(seed % 2 ? FSR_SUBMIT_USER_MODE : FSR_SUBMIT_KERNEL_MODE);
	}
}

/* Same seed, same calls, same events: a fault changes nothing in sim mode's determinism. */
Test(pagefault, page_faults_are_deterministic_in_sim_mode)
{
	uint64_t hashes[2];

	for (int run = 0; run < 2; run++) {
		fst_rt_teardown();
		setup_pf();
		innocent_keeps_rendering(FSR_SUBMIT_USER_MODE);
		hashes[run] = fst_stats().trace_hash;
	}
	cr_assert_eq(hashes[0], hashes[1]);
}
