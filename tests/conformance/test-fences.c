/* SPDX-License-Identifier: MIT */
/*
 * Conformance: native fence values (NFV) and shared fences (SHF), held against the driver under
 * test through the public API and the event tap. A CPU signal reaches CurrentValue only through
 * DxgkDdiUpdateCurrentValuesFromCpu, and the waiters it satisfies are released after it
 * (NFV-13); MonitoredValue follows the least waited value (NFV-04); the last close of a shared
 * fence comes before its destruction (SHF-04).
 */
#include <criterion/criterion.h>

#include "conformance.h"
#include "fencescope-tp-enums.h"

TestSuite(nfv, .init = fsc_setup, .fini = fsc_teardown);
TestSuite(shf, .init = fsc_setup, .fini = fsc_teardown);

/* The global handle of a fence, from its fence_create event (local handle is field 3). */
static uint64_t
global_handle_of(fsr_handle fence)
{
	size_t created = fsc_find(0, "fencescope_os:fence_create", 3, fence);

	cr_assert_neq(created, FSC_NONE, "no fence_create for %#llx", (unsigned long long) fence);
	return fsc_event_at(created)->fields[2];
}

Test(nfv, nfv_13_cpu_signal_is_applied_through_update_current_values_from_cpu)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t global = global_handle_of(fence);
	struct fst_wait_result result = {0};
	size_t mark, signal, update, released;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 5, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	mark = fsc_event_count();
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 5), FSR_OK);

	/* The OS's cpu_signal, then the driver's store, then the waiter's release. */
	signal = fsc_find(mark, "fencescope_os:cpu_signal", 2, 5);
	update = fsc_find(mark, "fencescope_kmd:update_current_value", 1, global);
	released = fsc_find(mark, "fencescope_os:cpu_wait_end", 2, fence);
	if (signal == FSC_NONE || update == FSC_NONE || released == FSC_NONE)
		fsc_dump_events(mark);
	cr_assert_neq(signal, FSC_NONE);
	cr_assert_neq(update, FSC_NONE,
		      "the CPU signal went past DxgkDdiUpdateCurrentValuesFromCpu");
	cr_assert_neq(released, FSC_NONE);
	cr_expect_lt(signal, update);
	cr_expect_lt(update, released, "waiters are released after the driver applied the value");
	cr_expect_eq(fsc_event_at(update)->fields[2], 5);
	cr_expect_eq(fsc_event_at(update)->fields[3], 0, "a signal, not a notification");
	cr_expect_eq(fsc_count(mark, "fencescope_kmd:update_current_value", FSC_ANY, 0), 1);
	cr_expect_eq(fsc_event_at(released)->fields[4], FSTP_CPU_WAIT_RESULT_SATISFIED);

	cr_expect_eq(fst_fence_value(fx.process, fence), 5, "CurrentValue holds the signal");
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_OK);
	cr_expect_eq(result.observed_value, 5);
}

/* NFV-11, NFV-13: the engines see a CPU signal too, and release the GPU waits it satisfies. */
Test(nfv, nfv_13_cpu_signal_unblocks_a_gpu_wait)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t progress = fst_submit_wait(fx.process, queue, fence, 3);

	fst_run_until_idle();
	cr_assert_lt(fst_last_completed(fx.process, queue), progress, "blocked on the fence");
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 3), FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, queue), progress);
}

Test(nfv, nfv_04_nfv_05_monitored_value_is_least_waited_value_minus_one)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result at_3 = {0};
	struct fst_wait_result at_7 = {0};

	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX, "NFV-05: no waiter");
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 7, FSR_INFINITE, fst_wait_record, &at_7),
	    FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, fence), 6);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 3, FSR_INFINITE, fst_wait_record, &at_3),
	    FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, fence), 2);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 4), FSR_OK);
	cr_expect_eq(at_3.call_count, 1);
	cr_expect_eq(fst_monitored_value(fx.process, fence), 6, "NFV-09: moves to the next waiter");
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 7), FSR_OK);
	cr_expect_eq(at_7.call_count, 1);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
}

/*
 * SHF-03, SHF-04: closing one process's handle destroys nothing while another holds the fence;
 * the last close comes first, then the one destruction of the global fence — in the OS's events
 * (fence_close, fence_destroy) and at the driver boundary (DxgkDdiCloseNativeFence, then
 * DxgkDdiDestroyNativeFence), which the rule names; the destruction happens once (SHF-05), from
 * the one call that closes a handle, D3DKMTDestroySynchronizationObject (SHF-06).
 */
Test(shf, shf_04_shf_05_shf_06_last_close_comes_before_destroy)
{
	struct fsr_process *process_b = NULL;
	fsr_handle device_b = 0;
	fsr_handle global = 0;
	fsr_handle fence_a = fsc_shared_fence_new(fx.process, fx.device, &global);
	fsr_handle fence_b = 0;
	size_t mark, close_b, destroy, ddi_close_b, ddi_destroy;

	fst_rt_add_process("b", &process_b, &device_b, NULL);
	cr_assert_eq(fsr_fence_open(process_b, device_b, global, &fence_b), FSR_OK);

	mark = fsc_event_count();
	cr_assert_eq(fsr_fence_close(fx.process, fence_a), FSR_OK);
	cr_expect_eq(fsc_count(mark, "fencescope_os:fence_close", 1, global), 1);
	cr_expect_eq(fsc_count(mark, "fencescope_os:fence_destroy", 0, global), 0,
		     "SHF-03: process b still holds it");
	cr_expect_eq(fsc_count(mark, "fencescope_kmd:close_native_fence", 2, global), 1);
	cr_expect_eq(fsc_count(mark, "fencescope_kmd:destroy_native_fence", 1, global), 0,
		     "SHF-03: process b still holds it");

	mark = fsc_event_count();
	cr_assert_eq(fsr_fence_close(process_b, fence_b), FSR_OK);
	close_b = fsc_find(mark, "fencescope_os:fence_close", 2, fence_b);
	destroy = fsc_find(mark, "fencescope_os:fence_destroy", 0, global);
	if (close_b == FSC_NONE || destroy == FSC_NONE || destroy < close_b)
		fsc_dump_events(mark);
	cr_assert_neq(close_b, FSC_NONE);
	cr_assert_neq(destroy, FSC_NONE);
	cr_expect_lt(close_b, destroy,
		     "SHF-04: close the local handle, then destroy the global one");
	cr_expect_eq(fsc_count(mark, "fencescope_os:fence_destroy", 0, global), 1, "SHF-05: once");

	/* The same order at the driver; no interrupt holds the fence to defer it (INT-05). */
	ddi_close_b = fsc_find(mark, "fencescope_kmd:close_native_fence", 2, global);
	ddi_destroy = fsc_find(mark, "fencescope_kmd:destroy_native_fence", 1, global);
	if (ddi_close_b == FSC_NONE || ddi_destroy == FSC_NONE || ddi_destroy < ddi_close_b)
		fsc_dump_events(mark);
	cr_assert_neq(ddi_close_b, FSC_NONE);
	cr_assert_neq(ddi_destroy, FSC_NONE);
	cr_expect_eq(fsc_event_at(ddi_close_b)->fields[3], fence_b, "b's local handle");
	cr_expect_lt(ddi_close_b, ddi_destroy,
		     "SHF-04: DxgkDdiCloseNativeFence, then DxgkDdiDestroyNativeFence");
	cr_expect_eq(fsc_count(mark, "fencescope_kmd:destroy_native_fence", 1, global), 1,
		     "SHF-05: once");
	cr_assert_eq(fsr_process_terminate(process_b, false), FSR_OK);
}
