/* SPDX-License-Identifier: MIT */
/*
 * Conformance: a driver's DxgkDdiPreemptCommand (spec 002, PRE-03, PRE-04, PRE-09), seen through
 * the public API, the test API's preemption request and the event tap only. A long kernel-mode
 * packet on the 3D engine is preempted 40% of the way through: the engine must stop at the
 * granularity the driver declared in engine_describe (PRE-04: the finest it has), at a boundary
 * of it (PRE-03), and the rest of the packet must run later, once (PRE-09).
 */
#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"

#define TICKS 100000u

TestSuite(preempt, .init = fsc_setup, .fini = fsc_teardown);

/* The ticks between two boundaries of a granularity (docs/runtime.md). */
static uint64_t
boundary_ticks(uint64_t granularity)
{
	switch (granularity) {
	case 200:
		return 4096;
	case 300:
		return 256;
	case 400:
		return 16;
	case 500:
		return 1;
	default:
		return 0;
	}
}

Test(preempt, pre_03_pre_04_a_preemption_stops_at_the_declared_granularity)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t describe = fsc_find(0, "fencescope_kmd:engine_describe", 1, 0);
	size_t mark;
	size_t done;
	uint64_t declared;
	uint64_t request = 0;
	uint64_t value;
	uint64_t left;

	cr_assert_neq(describe, FSC_NONE);
	declared = fsc_event_at(describe)->fields[4]; /* engine 0 is 3D: the graphics one */
	mark = fsc_event_count();
	value = fst_submit_work(fx.process, queue, TICKS);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + 400000),
		     FSR_OK);
	cr_assert_eq(fsr_test_preempt_request(fx.runtime, fx.adapter_id, 0, 1, &request), FSR_OK);
	fst_run_until_idle();
	cr_assert(fsr_test_preempt_completed(fx.runtime, fx.adapter_id, 0, request));
	done = fsc_find(mark, "fencescope_hw:preempt_complete", 3, request);
	cr_assert_neq(done, FSC_NONE);
	cr_expect_eq(
	    fsc_event_at(done)->fields[5], declared, "stopped at granularity %llu, declared %llu",
	    (unsigned long long) fsc_event_at(done)->fields[5], (unsigned long long) declared);
	left = fsc_event_at(done)->fields[7];
	if (boundary_ticks(declared)) {
		cr_expect_gt(left, 0, "a finer granularity than a DMA buffer stops mid-packet");
		cr_expect_eq((TICKS - left) % boundary_ticks(declared), 0);
	}
	cr_expect_eq(fst_last_completed(fx.process, queue), value, "the rest ran (PRE-09)");
	cr_expect_eq(fsc_count(mark, "fencescope_os:packet_complete", 2, queue), 1);
}

/*
 * PRE-07: a preempted packet's remainder is resubmitted under a new fence id, and the driver
 * must program that one: the completion reports the fence id the OS gave the packet (a driver
 * that reuses the preempted packet's is refused: call_failed "DmaCompletedFenceId").
 */
Test(preempt, pre_07_a_resubmission_completes_with_its_new_fence_id)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t mark = fsc_event_count();
	size_t first;
	size_t again;
	uint64_t request = 0;

	fst_submit_work(fx.process, queue, TICKS);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + 400000),
		     FSR_OK);
	cr_assert_eq(fsr_test_preempt_request(fx.runtime, fx.adapter_id, 0, 1, &request), FSR_OK);
	fst_run_until_idle();
	first = fsc_find(mark, "fencescope_os:packet_queued", 2, queue);
	cr_assert_neq(first, FSC_NONE);
	again = fsc_find(first + 1, "fencescope_os:packet_queued", 2, queue);
	if (fsc_event_at(fsc_find(mark, "fencescope_hw:preempt_complete", 3, request))->fields[7]) {
		cr_assert_neq(again, FSC_NONE, "the remainder was resubmitted");
		cr_expect_neq(fsc_event_at(again)->fields[6], fsc_event_at(first)->fields[6],
			      "a new fence id");
	}
	if (fsc_count(mark, "fencescope_os:call_failed", FSC_ANY, 0))
		fsc_dump_events(mark);
	cr_expect_eq(fsc_count(mark, "fencescope_os:call_failed", FSC_ANY, 0), 0,
		     "every completion reported the fence id the OS gave its packet");
}
