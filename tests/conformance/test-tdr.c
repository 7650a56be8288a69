/* SPDX-License-Identifier: MIT */
/*
 * Conformance: a driver's part in timeout detection and recovery (TDR-01, TDR-04, TDR-06;
 * docs/runtime.md "TDR and recovery as built"), through the public API, the test-only API's
 * faults (a hung engine, a failing engine reset) and the event tap. The 3D engine hangs in the
 * fixture's 3D context while another process's queues — one user-mode, one kernel-mode — have
 * work queued on the same engine: DxgkDdiResetEngine must abort only the work in flight (the
 * guilty context's) and leave every other context's work to run to its end; a failed engine
 * reset must be promoted to an adapter reset (DxgkDdiResetFromTimeout).
 */
#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"
#include "fencescope-tp-enums.h"

static struct fsr_process *innocent;
static fsr_handle innocent_device, innocent_context, innocent_um, innocent_km, innocent_fence;
static fsr_handle guilty_queue;
static uint64_t last_um, last_km;

static void
setup_tdr(void)
{
	fsc_setup();
	fst_rt_add_process("innocent", &innocent, &innocent_device, &innocent_context);
	innocent_um = fst_queue_new(innocent, innocent_context, FSR_SUBMIT_USER_MODE);
	innocent_km = fst_queue_new(innocent, innocent_context, FSR_SUBMIT_KERNEL_MODE);
	innocent_fence = fst_fence_new(innocent, innocent_device, 0);
	guilty_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
}

TestSuite(tdr, .init = setup_tdr, .fini = fsc_teardown);

/* The hang, then four buffers on each innocent queue, all on the 3D engine. */
static void
hang_with_innocent_work(void)
{
	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, guilty_queue), FSR_OK);
	fst_submit_work(fx.process, guilty_queue, 1000);
	for (uint64_t v = 1; v <= 4; v++) {
		last_um = fst_submit_signal(innocent, innocent_um, innocent_fence, v);
		last_km = fst_submit_work(innocent, innocent_km, 100000);
	}
	fst_run_until_idle();
}

Test(tdr, tdr_04_an_engine_reset_leaves_innocent_contexts_work_to_complete)
{
	enum fsr_doorbell_status status;
	size_t reset = 0;

	hang_with_innocent_work();
	reset = fsc_find(0, "fencescope_kmd:engine_reset", 1, 0);
	cr_assert_neq(reset, FSC_NONE, "no engine reset");
	cr_assert_eq(fsc_event_at(reset)->fields[2], 1, "the engine reset failed");
	if (fst_last_completed(innocent, innocent_um) != last_um ||
	    fst_last_completed(innocent, innocent_km) != last_km)
		fsc_dump_events(reset);
	cr_expect_eq(fst_last_completed(innocent, innocent_um), last_um,
		     "the innocent user-mode queue's work was lost");
	cr_expect_eq(fst_last_completed(innocent, innocent_km), last_km,
		     "the innocent kernel-mode queue's work was lost");
	cr_expect_eq(fst_fence_value(innocent, innocent_fence), 4);
	cr_expect_eq(fsc_count(0, "fencescope_hw:packet_end", 2, innocent_um) +
			 fsc_count(0, "fencescope_hw:packet_end", 2, innocent_km),
		     8, "every innocent buffer ends once");
	cr_expect_eq(fsc_count(0, "fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_ABORTED), 1,
		     "only the guilty work item is aborted");
	cr_expect_eq(fsc_count(0, "fencescope_os:context_error", FSC_ANY, 0), 1);
	cr_expect_eq(fsc_count(0, "fencescope_os:context_error", 3, fx.context_3d), 1);
	cr_assert_eq(fsr_doorbell_get_status(innocent, innocent_um, &status), FSR_OK);
	cr_expect_eq(status, FSR_DOORBELL_CONNECTED);
}

Test(tdr, tdr_01_the_driver_resets_only_after_the_preemption_request)
{
	size_t request, reset;

	hang_with_innocent_work();
	request = fsc_find(0, "fencescope_os:preempt_request", 4, FSTP_PREEMPT_REASON_TDR);
	reset = fsc_find(0, "fencescope_kmd:engine_reset", 1, 0);
	cr_assert_neq(request, FSC_NONE);
	cr_assert_neq(reset, FSC_NONE);
	cr_expect_lt(request, reset);
	cr_expect_eq(fsc_count(0, "fencescope_os:tdr_end", 2, FSTP_TDR_RESULT_ENGINE_RESET), 1);
}

Test(tdr, tdr_06_a_failed_engine_reset_is_promoted_to_an_adapter_reset)
{
	size_t failed, adapter_reset;

	cr_assert_eq(fsr_test_engine_reset_fail(fx.runtime, fx.adapter_id, 0, 1), FSR_OK);
	hang_with_innocent_work();
	failed = fsc_find(0, "fencescope_kmd:engine_reset", 2, 0);
	adapter_reset = fsc_find(0, "fencescope_kmd:adapter_reset", FSC_ANY, 0);
	cr_assert_neq(failed, FSC_NONE, "the injected failure did not fail the engine reset");
	cr_assert_neq(adapter_reset, FSC_NONE, "no adapter reset after the failed engine reset");
	cr_expect_lt(failed, adapter_reset);
	cr_expect_eq(fsc_event_at(adapter_reset)->fields[1], 1);
	cr_expect_eq(fsc_count(0, "fencescope_os:tdr_end", 2, FSTP_TDR_RESULT_ADAPTER_RESET), 1);
	/* The adapter reset found the innocents between two work items: they complete too. */
	cr_expect_eq(fst_last_completed(innocent, innocent_um), last_um);
	cr_expect_eq(fst_last_completed(innocent, innocent_km), last_km);
}

/*
 * MMU-14, TDR-06 (docs/runtime.md "Page faults as built"): the driver passes the GPU's page fault
 * interrupt to the OS, which terminates the faulting context and has the engine reset; the reset
 * lets the stopped engine run the innocent contexts' work. An access to a VA the process never
 * mapped (it has no VA space) faults whatever the driver's page-table format.
 */
Test(tdr, mmu_14_tdr_06_a_page_fault_reaches_the_os_and_the_engine_runs_on)
{
	struct fsr_cmdbuf *cmdbuf;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, guilty_queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, UINT64_C(0x10000000), 64, 0x5a),
		     FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	for (uint64_t v = 1; v <= 4; v++) {
		last_um = fst_submit_signal(innocent, innocent_um, innocent_fence, v);
		last_km = fst_submit_work(innocent, innocent_km, 100000);
	}
	/* Not run_until_idle: an engine that never gets its reset would keep it busy for ever. */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime,
					   fsr_runtime_now_ns(fx.runtime) + UINT64_C(5000000000)),
		     FSR_OK);
	cr_expect_eq(fsc_count(0, "fencescope_hw:page_fault", FSC_ANY, 0), 1);
	cr_expect_eq(fsc_count(0, "fencescope_os:page_fault", 3, fx.context_3d), 1,
		     "the OS did not handle the page fault");
	cr_expect_eq(fsc_count(0, "fencescope_os:context_error", 3, fx.context_3d), 1);
	cr_expect_eq(fsc_count(0, "fencescope_os:tdr_end", 2, FSTP_TDR_RESULT_ENGINE_RESET), 1);
	cr_expect_eq(fst_last_completed(innocent, innocent_um), last_um,
		     "the innocent user-mode queue's work did not run after the fault");
	cr_expect_eq(fst_last_completed(innocent, innocent_km), last_km,
		     "the innocent kernel-mode queue's work did not run after the fault");
}
