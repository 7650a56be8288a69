/* SPDX-License-Identifier: MIT */
/*
 * The model's format 1.5 items on synthetic events (docs/analyzer.md "GpuMmu and cross-adapter
 * fences"): page fault markers (MMU-14, TDR-06), VA reservations and mapping intervals with the VA
 * space statistics (MMU-02, 03, 06, 07, 12), and cross-adapter fences: the open's conversion
 * (XAD-10), the propagation interval closed by the NotificationOnly update (XAD-07, XAD-08) and
 * an edge from a signal on one adapter to a wait on another, each mapped through its own clock.
 */
#include <criterion/criterion.h>

#include "model-fixture.h"

TestSuite(model_mmu, .init = fixture_setup, .fini = fixture_teardown);

static const struct fsa_marker *
find_marker(enum fsa_marker_kind kind, size_t nth)
{
	for (size_t i = 0; i < got.marker_count; i++)
		if (got.markers[i].kind == kind && nth-- == 0)
			return &got.markers[i];
	return NULL;
}

static size_t
count_markers(enum fsa_marker_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < got.marker_count; i++)
		n += got.markers[i].kind == kind;
	return n;
}

Test(model_mmu, mmu_14_page_fault_on_engine_and_handled_for_process)
{
	const struct fsa_marker *hw, *os;
	const struct fsa_va_space_info *space;

	fixture_objects(T0);
	feed_ok("packet_start", T0 + 30, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		UQ, "packet_id", U(7), "progress_value", U(1), "gpu_ts", U(100003), NULL);
	feed_ok("page_fault", T0 + 50, "adapter_id", U(0), "engine_id", U(0), "process_id", U(PID),
		"context_handle", CTX, "gpu_va", U(0xdead000), "fault_type",
		U(FSTP_FAULT_TYPE_NOT_MAPPED), "gpu_ts", U(100005), "access",
		U(FSTP_ACCESS_KIND_WRITE), "packet_id", U(7), NULL);
	feed_ok("fencescope_os:page_fault", T0 + 80, "adapter_id", U(0), "engine_id", U(0),
		"process_id", U(PID), "context_handle", CTX, "gpu_va", U(0xdead000), "access",
		U(FSTP_ACCESS_KIND_WRITE), "fault_type", U(FSTP_FAULT_TYPE_NOT_MAPPED), "scope",
		U(FSTP_FAULT_SCOPE_DEVICE), NULL);
	cr_assert_eq(finish(), FSA_OK);

	hw = find_marker(FSA_MARK_PAGE_FAULT, 0);
	cr_assert_not_null(hw);
	cr_assert_eq(hw->begin_ns, T0 + 50);
	cr_assert_eq(hw->end_ns, T0 + 50);
	cr_assert_eq(hw->adapter_id, 0);
	cr_assert_eq(hw->engine_id, 0);
	cr_assert_eq(hw->process_id, PID);
	cr_assert_eq(hw->context_handle, CTX);
	cr_assert_eq(hw->value, 0xdead000);
	cr_assert_eq(hw->code, FSTP_FAULT_TYPE_NOT_MAPPED);
	cr_assert_eq(hw->code2, FSTP_ACCESS_KIND_WRITE);
	cr_assert_eq(hw->value2, 7, "the faulting packet");
	cr_assert_eq(hw->hwqueue_handle, UQ, "the packet's queue");

	os = find_marker(FSA_MARK_PAGE_FAULT_HANDLED, 0);
	cr_assert_not_null(os);
	cr_assert_eq(os->begin_ns, T0 + 80);
	cr_assert_eq(os->process_id, PID);
	cr_assert_eq(os->context_handle, CTX);
	cr_assert_eq(os->value, 0xdead000);
	cr_assert_eq(os->code2, FSTP_ACCESS_KIND_WRITE);
	cr_assert_eq(os->value2, FSTP_FAULT_SCOPE_DEVICE);
	cr_assert_eq(os->other_handle, 7, "joined with the engine's fault");
	cr_assert_eq(os->hwqueue_handle, UQ);
	cr_assert_eq(os->latency_ns, 30, "engine fault → OS handling");
	cr_assert(!fsa_marker_kind_is_interval(FSA_MARK_PAGE_FAULT_HANDLED));

	space = fsa_model_find_va_space(model, PID, 0);
	cr_assert_not_null(space);
	cr_assert_eq(space->page_faults, 1);
}

Test(model_mmu, mmu_14_os_fault_without_engine_fault_has_no_latency)
{
	const struct fsa_marker *os;

	fixture_objects(T0);
	feed_ok("fencescope_os:page_fault", T0 + 80, "adapter_id", U(0), "engine_id", U(0),
		"process_id", U(PID), "context_handle", CTX, "gpu_va", U(0x1000), "scope",
		U(FSTP_FAULT_SCOPE_CONTEXT), NULL);
	cr_assert_eq(finish(), FSA_OK);
	os = find_marker(FSA_MARK_PAGE_FAULT_HANDLED, 0);
	cr_assert_not_null(os);
	cr_assert_eq(os->latency_ns, FSA_TIME_NONE);
	cr_assert_eq(os->other_handle, 0);
	cr_assert_eq(count_markers(FSA_MARK_PAGE_FAULT), 0);
}

Test(model_mmu, mmu_06_07_12_mappings_are_intervals_split_by_a_partial_unmap)
{
	const struct fsa_va_space_info *space;
	const struct fsa_marker *m;

	fixture_objects(T0);
	feed_ok("va_space_create", T0 + 1, "adapter_id", U(0), "process_id", U(PID),
		"va_size_bytes", UINT64_C(1) << 40, "page_table_levels", U(4), "root_entry_count",
		U(512), NULL);
	feed_ok("va_reserve", T0 + 2, "adapter_id", U(0), "process_id", U(PID), "gpu_va",
		U(0x100000), "size_bytes", U(0x200000), "min_va", U(0x100000), "max_va",
		U(0x10000000), "is_os_picked", U(1), NULL);
	/* A: 256 KiB of a local allocation in 64 KB pages; B: 12 KiB of system memory in 4 KB. */
	feed_ok("va_map", T0 + 10, "process_id", U(PID), "allocation_handle", U(0xa1), "gpu_va",
		U(0x100000), "size_bytes", U(0x40000), "offset_bytes", U(0), "adapter_id", U(0),
		"is_os_picked", U(0), "page_size_bytes", U(65536), "segment", U(FSTP_SEGMENT_LOCAL),
		NULL);
	feed_ok("va_map", T0 + 20, "process_id", U(PID), "allocation_handle", U(0xb1), "gpu_va",
		U(0x200000), "size_bytes", U(0x3000), "offset_bytes", U(0x1000), "adapter_id", U(0),
		"is_os_picked", U(1), "page_size_bytes", U(4096), "segment", U(FSTP_SEGMENT_SYSTEM),
		NULL);
	/* The middle 64 KiB of A goes: A ends, its two sides stay mapped. */
	feed_ok("va_unmap", T0 + 30, "process_id", U(PID), "gpu_va", U(0x110000), "size_bytes",
		U(0x10000), "adapter_id", U(0), NULL);
	feed_ok("va_unmap", T0 + 40, "process_id", U(PID), "gpu_va", U(0x200000), "size_bytes",
		U(0x3000), "adapter_id", U(0), NULL);
	feed_ok("va_free", T0 + 50, "adapter_id", U(0), "process_id", U(PID), "gpu_va", U(0x100000),
		"size_bytes", U(0x200000), NULL);
	cr_assert_eq(finish(), FSA_OK);

	m = find_marker(FSA_MARK_VA_RESERVE, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->value, 0x100000);
	cr_assert_eq(m->value2, 0x200000);
	cr_assert_eq(m->code, 1, "os picked");
	m = find_marker(FSA_MARK_VA_FREE, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->begin_ns, T0 + 50);

	cr_assert_eq(count_markers(FSA_MARK_VA_MAPPING), 4);
	m = find_marker(FSA_MARK_VA_MAPPING, 0); /* A, ended by the partial unmap */
	cr_assert_eq(m->begin_ns, T0 + 10);
	cr_assert_eq(m->end_ns, T0 + 30);
	cr_assert_eq(m->value, 0x100000);
	cr_assert_eq(m->value2, 0x40000);
	cr_assert_eq(m->other_handle, 0xa1);
	cr_assert_eq(m->code, FSTP_SEGMENT_LOCAL);
	cr_assert_eq(m->code2, 65536);
	cr_assert(fsa_marker_kind_is_interval(m->kind));
	m = find_marker(FSA_MARK_VA_MAPPING, 1); /* B, unmapped whole */
	cr_assert_eq(m->begin_ns, T0 + 20);
	cr_assert_eq(m->end_ns, T0 + 40);
	cr_assert_eq(m->value, 0x200000);
	cr_assert_eq(m->code2, 4096);
	/* The two sides of A, mapped from the unmap on to the end of the trace (in either order).
	 */
	m = find_marker(FSA_MARK_VA_MAPPING, 2);
	if (m->value != 0x100000)
		m = find_marker(FSA_MARK_VA_MAPPING, 3);
	cr_assert_eq(m->begin_ns, T0 + 30);
	cr_assert_eq(m->end_ns, FSA_TIME_NONE);
	cr_assert_eq(m->value, 0x100000);
	cr_assert_eq(m->value2, 0x10000);
	m = find_marker(FSA_MARK_VA_MAPPING, find_marker(FSA_MARK_VA_MAPPING, 3) == m ? 2 : 3);
	cr_assert_eq(m->begin_ns, T0 + 30);
	cr_assert_eq(m->value, 0x120000);
	cr_assert_eq(m->value2, 0x20000);
	cr_assert_eq(m->end_ns, FSA_TIME_NONE);
	cr_assert_eq(m->other_handle, 0xa1);

	space = fsa_model_find_va_space(model, PID, 0);
	cr_assert_not_null(space);
	cr_assert_eq(fsa_model_va_space_count(model), 1);
	cr_assert_eq(space->created_ns, T0 + 1);
	cr_assert_eq(space->va_size_bytes, UINT64_C(1) << 40);
	cr_assert_eq(space->page_table_levels, 4);
	cr_assert_eq(space->root_entry_count, 512);
	cr_assert_eq(space->reserve_count, 1);
	cr_assert_eq(space->reserve_os_picked_count, 1);
	cr_assert_eq(space->free_count, 1);
	cr_assert_eq(space->reserved_bytes, 0);
	cr_assert_eq(space->reserved_bytes_peak, 0x200000);
	cr_assert_eq(space->map_count, 2);
	cr_assert_eq(space->map_os_picked_count, 1);
	cr_assert_eq(space->unmap_count, 2);
	cr_assert_eq(space->mapped_bytes_peak, 0x43000);
	cr_assert_eq(space->mapped_bytes, 0x30000);
	cr_assert_eq(space->map_count_by_page_size[0], 1);
	cr_assert_eq(space->map_count_by_page_size[1], 1);
	cr_assert_eq(space->mapped_bytes_peak_by_page_size[0], 0x3000);
	cr_assert_eq(space->mapped_bytes_by_page_size[0], 0);
	cr_assert_eq(space->mapped_bytes_peak_by_page_size[1], 0x40000);
	cr_assert_eq(space->mapped_bytes_by_page_size[1], 0x30000);
	cr_assert_eq(space->mapped_bytes_peak_by_segment[FSTP_SEGMENT_LOCAL], 0x40000);
	cr_assert_eq(space->mapped_bytes_by_segment[FSTP_SEGMENT_SYSTEM], 0);
	cr_assert_eq(space->map_count_by_segment[FSTP_SEGMENT_SYSTEM], 1);
}

Test(model_mmu, mmu_02_03_page_tables_are_counted_per_va_space)
{
	const struct fsa_va_space_info *space;

	fixture_objects(T0);
	feed_ok("va_space_create", T0 + 1, "adapter_id", U(1), "process_id", U(PID),
		"va_size_bytes", UINT64_C(1) << 40, "page_table_levels", U(3), "root_entry_count",
		U(16), NULL);
	for (unsigned level = 0; level < 3; level++)
		feed_ok("page_table_create", T0 + 2 + level, "adapter_id", U(1), "process_id",
			U(PID), "table_id", U(0x70 + level), "level", U(level), "entry_count",
			U(512), "segment", U(FSTP_SEGMENT_LOCAL), NULL);
	feed_ok("page_table_resize", T0 + 10, "adapter_id", U(1), "process_id", U(PID), "table_id",
		U(0x70), "old_entry_count", U(16), "new_entry_count", U(64), NULL);
	feed_ok("page_table_residency", T0 + 11, "adapter_id", U(1), "process_id", U(PID),
		"table_id", U(0x72), "is_resident", U(0), "segment", U(FSTP_SEGMENT_SYSTEM), NULL);
	feed_ok("page_table_residency", T0 + 12, "adapter_id", U(1), "process_id", U(PID),
		"table_id", U(0x72), "is_resident", U(1), "segment", U(FSTP_SEGMENT_LOCAL), NULL);
	feed_ok("page_table_update", T0 + 13, "process_id", U(PID), "gpu_va", U(0x10000),
		"page_count", U(4), "page_size_bytes", U(4096), "is_valid", U(1), "adapter_id",
		U(1), "table_id", U(0x72), "level", U(2), "first_entry", U(16), NULL);
	feed_ok("page_table_update", T0 + 14, "process_id", U(PID), "gpu_va", U(0x10000),
		"page_count", U(1), "page_size_bytes", U(4096), "is_valid", U(0), "adapter_id",
		U(1), "table_id", U(0x72), "level", U(2), "first_entry", U(16), NULL);
	feed_ok("page_table_destroy", T0 + 15, "adapter_id", U(1), "process_id", U(PID), "table_id",
		U(0x72), NULL);
	feed_ok("va_space_destroy", T0 + 20, "adapter_id", U(1), "process_id", U(PID), NULL);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_null(fsa_model_find_va_space(model, PID, 0), "only adapter 1 has one");
	space = fsa_model_find_va_space(model, PID, 1);
	cr_assert_not_null(space);
	cr_assert_eq(space->page_tables_created, 3);
	cr_assert_eq(space->page_tables_destroyed, 1);
	cr_assert_eq(space->page_tables_live_peak, 3);
	cr_assert_eq(space->page_tables_live, 0, "the space went with every table");
	cr_assert_eq(space->root_resizes, 1);
	cr_assert_eq(space->root_entry_count, 16);
	cr_assert_eq(space->root_entry_count_max, 64);
	cr_assert_eq(space->page_tables_evicted, 1);
	cr_assert_eq(space->page_tables_made_resident, 1);
	cr_assert_eq(space->page_table_updates, 2);
	cr_assert_eq(space->entries_written, 4);
	cr_assert_eq(space->entries_invalidated, 1);
	cr_assert_eq(space->destroyed_ns, T0 + 20);
}

#define PID2 2
#define DEV2 UINT64_C(0x8001000000000002)
#define CTX2 UINT64_C(0x8002000000000004)
#define UQB  UINT64_C(0x800300000000000b)
#define FX   UINT64_C(0x100) /* process 1's handle of the cross-adapter fence */
#define FX2  UINT64_C(0x200) /* process 2's, on adapter 1 */
#define FX_G UINT64_C(0x8004000000000030)

/* A second adapter whose counter runs at 50 MHz from tick 5000 at T0 (20 ns per tick), and a
 * process on it with a user-mode queue UQB, and the cross-adapter fence FX_G created on adapter 0
 * and opened on adapter 1 as `opened_as` (a monitored fence on an adapter without native fences,
 * XAD-10). */
static void
two_adapters_opened_as(uint64_t opened_as)
{
	fixture_objects(T0);
	feed_ok("adapter_create", T0, "adapter_id", U(1), "engine_count", U(1),
		"gpu_ts_frequency_hz", U(50000000), "native_fences", U(0), NULL);
	feed_ok("clock_correlation", T0, "adapter_id", U(1), "cpu_ts_ns", T0, "gpu_ts", U(5000),
		"gpu_ts_frequency_hz", U(50000000), NULL);
	feed_ok("clock_correlation", T0, "adapter_id", U(1), "cpu_ts_ns", T0 + FIXTURE_PAIR_SPAN_NS,
		"gpu_ts", 5000 + FIXTURE_PAIR_SPAN_NS / 20, "gpu_ts_frequency_hz", U(50000000),
		NULL);
	feed_ok("process_create", T0, "process_id", U(PID2), NULL);
	feed_ok("device_create", T0, "process_id", U(PID2), "adapter_id", U(1), "device_handle",
		DEV2, NULL);
	feed_ok("context_create", T0, "process_id", U(PID2), "device_handle", DEV2,
		"context_handle", CTX2, "engine_id", U(0), NULL);
	feed_ok("hwqueue_create", T0, "process_id", U(PID2), "context_handle", CTX2,
		"hwqueue_handle", UQB, "engine_id", U(0), "submission_mode",
		U(FSTP_SUBMISSION_MODE_USER_MODE), "progress_fence_handle",
		UINT64_C(0x8004000000000005), NULL);
	feed_ok("fence_create", T0, "process_id", U(PID), "adapter_id", U(0), "fence_global_handle",
		FX_G, "fence_handle", FX, "is_shared", U(1), "is_cross_adapter", U(1),
		"initial_value", U(0), "fence_object", U(FSTP_FENCE_OBJECT_NATIVE), NULL);
	feed_ok("fence_cross_adapter_open", T0 + 1, "process_id", U(PID2), "fence_global_handle",
		FX_G, "fence_handle", FX2, "adapter_id", U(1), "creator_adapter_id", U(0),
		"created_as", U(FSTP_FENCE_OBJECT_NATIVE), "opened_as", opened_as, NULL);
	feed_ok("fence_open", T0 + 1, "process_id", U(PID2), "fence_global_handle", FX_G,
		"fence_handle", FX2, NULL);
}

Test(model_mmu, xad_10_cross_adapter_open_is_kept_on_the_fence)
{
	const struct fsa_fence_info *fence;
	const struct fsa_cross_open *open;

	two_adapters_opened_as(FSTP_FENCE_OBJECT_MONITORED);
	cr_assert_eq(finish(), FSA_OK);
	fence = fsa_model_find_fence(model, FX_G);
	cr_assert_not_null(fence);
	cr_assert(fence->is_cross_adapter);
	cr_assert_eq(fence->fence_object, FSTP_FENCE_OBJECT_NATIVE);
	cr_assert_eq(fence->cross_open_count, 1);
	open = fsa_model_borrow_cross_open(model, FX_G, 0);
	cr_assert_not_null(open);
	cr_assert_eq(open->ts_ns, T0 + 1);
	cr_assert_eq(open->process_id, PID2);
	cr_assert_eq(open->fence_handle, FX2);
	cr_assert_eq(open->adapter_id, 1);
	cr_assert_eq(open->creator_adapter_id, 0);
	cr_assert_eq(open->created_as, FSTP_FENCE_OBJECT_NATIVE);
	cr_assert_eq(open->opened_as, FSTP_FENCE_OBJECT_MONITORED);
	cr_assert_null(fsa_model_borrow_cross_open(model, FX_G, 1));
}

Test(model_mmu, xad_07_08_propagation_and_cross_adapter_edge_each_on_its_own_clock)
{
	const struct fsa_op *signal = NULL, *wait = NULL;
	const struct fsa_marker *propagation, *notification;
	const struct fsa_fence_info *fence;

	two_adapters_opened_as(FSTP_FENCE_OBJECT_NATIVE);
	feed_ok("fence_signal_queued", T0 + 10, "process_id", U(PID), "hwqueue_handle", UQ,
		"fence_handle", FX, "fence_value", U(1), "progress_value", U(1), NULL);
	feed_ok("fence_wait_queued", T0 + 20, "process_id", U(PID2), "hwqueue_handle", UQB,
		"fence_handle", FX2, "fence_value", U(1), "progress_value", U(1), NULL);
	/* The signal runs on adapter 0 at tick 100010 (T0 + 100). */
	SIGNAL_ENTRY(T0 + 150, UQ, 0, FX, FX_G, 1, 100010);
	feed_ok("fence_propagate", T0 + 160, "fence_global_handle", FX_G, "from_adapter_id", U(0),
		"to_adapter_id", U(1), "fence_value", U(1), NULL);
	feed_ok("update_current_value", T0 + 170, "adapter_id", U(1), "fence_global_handle", FX_G,
		"fence_value", U(1), "notification_only", U(1), NULL);
	/* The wait on adapter 1: reached at tick 5003 (T0 + 60), released at 5010 (T0 + 200). */
	feed_ok("fence_log_entry", T0 + 300, "hwqueue_handle", UQB, "log_type",
		U(FSTP_LOG_TYPE_WAITS), "entry_position", U(0), "fence_handle", FX2,
		"fence_global_handle", FX_G, "fence_value", U(1), "operation",
		U(FSTP_LOG_OPERATION_WAIT_UNBLOCKED), "observed_gpu_ts", U(5003), "end_gpu_ts",
		U(5010), NULL);
	cr_assert_eq(finish(), FSA_OK);

	for (size_t i = 0; i < got.op_count; i++) {
		if (got.ops[i].fence_global_handle != FX_G)
			continue;
		if (got.ops[i].kind == FSA_OP_SIGNAL)
			signal = &got.ops[i];
		else
			wait = &got.ops[i];
	}
	cr_assert_not_null(signal);
	cr_assert_not_null(wait);
	cr_assert_eq(signal->adapter_id, 0);
	cr_assert_eq(signal->end_ns, T0 + 100);
	cr_assert_eq(wait->adapter_id, 1);
	cr_assert_eq(wait->observed_ns, T0 + 60, "adapter 1's own clock");
	cr_assert_eq(wait->end_ns, T0 + 200);
	cr_assert_eq(wait->signal_op_id, signal->id);

	cr_assert_eq(got.edge_count, 1);
	cr_assert_eq(got.edges[0].signal_op_id, signal->id);
	cr_assert_eq(got.edges[0].wait_op_id, wait->id);
	cr_assert_eq(got.edges[0].signal_adapter_id, 0);
	cr_assert_eq(got.edges[0].wait_adapter_id, 1);
	cr_assert_eq(got.edges[0].signal_process_id, PID);
	cr_assert_eq(got.edges[0].wait_process_id, PID2);

	propagation = find_marker(FSA_MARK_FENCE_PROPAGATION, 0);
	cr_assert_not_null(propagation);
	cr_assert(fsa_marker_kind_is_interval(FSA_MARK_FENCE_PROPAGATION));
	cr_assert_eq(propagation->begin_ns, T0 + 160);
	cr_assert_eq(propagation->end_ns, T0 + 170, "closed by the NotificationOnly update");
	cr_assert_eq(propagation->adapter_id, 0);
	cr_assert_eq(propagation->code, 1);
	cr_assert_eq(propagation->other_handle, FX_G);
	cr_assert_eq(propagation->value, 1);
	cr_assert_eq(propagation->value2, signal->id, "the signal that caused it");
	notification = find_marker(FSA_MARK_FENCE_NOTIFICATION, 0);
	cr_assert_not_null(notification);
	cr_assert_eq(notification->begin_ns, T0 + 170);
	cr_assert_eq(notification->adapter_id, 1);
	cr_assert_eq(notification->other_handle, FX_G);
	cr_assert_eq(notification->value, 1);

	fence = fsa_model_find_fence(model, FX_G);
	cr_assert_eq(fence->propagation_count, 1);
	cr_assert_eq(fence->notification_count, 1);
}

Test(model_mmu, xad_07_propagation_without_notification_stays_open)
{
	const struct fsa_marker *propagation;

	two_adapters_opened_as(FSTP_FENCE_OBJECT_NATIVE);
	feed_ok("fence_propagate", T0 + 160, "fence_global_handle", FX_G, "from_adapter_id", U(0),
		"to_adapter_id", U(1), "fence_value", U(5), NULL);
	/* An ordinary (writing) update is no notification (NFV-13). */
	feed_ok("update_current_value", T0 + 170, "adapter_id", U(1), "fence_global_handle", FX_G,
		"fence_value", U(5), "notification_only", U(0), NULL);
	cr_assert_eq(finish(), FSA_OK);
	propagation = find_marker(FSA_MARK_FENCE_PROPAGATION, 0);
	cr_assert_not_null(propagation);
	cr_assert_eq(propagation->end_ns, FSA_TIME_NONE);
	cr_assert_eq(propagation->value2, 0, "no signal of value 5 in the trace");
	cr_assert_eq(count_markers(FSA_MARK_FENCE_NOTIFICATION), 0);
}

/* XAD-14: to an adapter where the fence is a monitored fence the OS makes no driver call; the
 * propagation is an instant marked code2 = 1, closed at once. */
Test(model_mmu, xad_14_propagation_to_a_monitored_fence_is_an_instant)
{
	const struct fsa_marker *propagation;

	two_adapters_opened_as(FSTP_FENCE_OBJECT_MONITORED);
	feed_ok("fence_propagate", T0 + 160, "fence_global_handle", FX_G, "from_adapter_id", U(0),
		"to_adapter_id", U(1), "fence_value", U(3), NULL);
	propagation = find_marker(FSA_MARK_FENCE_PROPAGATION, 0);
	cr_assert_not_null(propagation, "given out at once, not at the end");
	cr_assert_eq(propagation->begin_ns, T0 + 160);
	cr_assert_eq(propagation->end_ns, T0 + 160);
	cr_assert_eq(propagation->code2, 1);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_markers(FSA_MARK_FENCE_PROPAGATION), 1);
}
