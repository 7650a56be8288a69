/* SPDX-License-Identifier: MIT */
/*
 * The OS reaches its driver only through the DDI table it was handed, and the GPU reaches the
 * OS only through the driver's interrupt routine (docs/driver-interface.md): an adapter created
 * with a copy of the reference table in which one entry is replaced runs that entry, and a
 * driver that breaks a rule there is seen breaking it. The seam the conformance variants of
 * issue 11 §3 are built on.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

static struct dxgk_ddi reference;
static unsigned int cpu_signal_calls;
static unsigned int interrupt_routine_calls;
static unsigned int interrupts_seen;

static void
counting_update_current_values_from_cpu(void *miniport, struct fsr_fence *fence, uint64_t value,
					bool notification_only)
{
	cpu_signal_calls++;
	reference.DxgkDdiUpdateCurrentValuesFromCpu(miniport, fence, value, notification_only);
}

/* Faulty: announces the CPU signal but never stores CurrentValue (breaks NFV-13). */
static void
dropping_update_current_values_from_cpu(void *miniport, struct fsr_fence *fence, uint64_t value,
					bool notification_only)
{
	(void) notification_only;
	cpu_signal_calls++;
	reference.DxgkDdiUpdateCurrentValuesFromCpu(miniport, fence, value, true);
}

static void
counting_interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	interrupt_routine_calls++;
	if (!interrupt->is_retirement)
		interrupts_seen++;
	reference.DxgkDdiInterruptRoutine(miniport, interrupt);
}

/* Faulty: user-mode submission caps without a doorbell size (breaks UMS-06). */
static int
sizeless_query_adapter_info(void *miniport, enum dxgk_query_adapter_info_type type, void *output,
			    size_t output_size)
{
	int status = reference.DxgkDdiQueryAdapterInfo(miniport, type, output, output_size);

	((struct dxgk_usermodesubmission_caps *) output)->doorbell_size_bytes = 0;
	return status;
}

/* Faulty: answers no query at all. */
static int
silent_query_adapter_info(void *miniport, enum dxgk_query_adapter_info_type type, void *output,
			  size_t output_size)
{
	(void) miniport;
	(void) type;
	(void) output;
	(void) output_size;
	return -1;
}

/* The fixture, with an adapter whose driver is `ddi`. */
static void
setup_with_ddi(const struct dxgk_ddi *ddi)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	fst_rt_setup_with_ddi(&runtime_config, &adapter_config, ddi);
	cpu_signal_calls = 0;
	interrupt_routine_calls = 0;
	interrupts_seen = 0;
}

static void
init(void)
{
	kmd_driver_entry(&reference);
}

TestSuite(driver, .init = init, .fini = fst_rt_teardown);

Test(driver, reference_table_fills_every_entry)
{
	cr_expect_not_null(reference.DxgkDdiAddAdapter);
	cr_expect_not_null(reference.DxgkDdiStartDevice);
	cr_expect_not_null(reference.DxgkDdiRemoveAdapter);
	cr_expect_not_null(reference.DxgkDdiQueryAdapterInfo);
	cr_expect_not_null(reference.DxgkDdiDescribeEngine);
	cr_expect_not_null(reference.DxgkDdiCalibrateGpuClock);
	cr_expect_not_null(reference.DxgkDdiReadGpuTimestamp);
	cr_expect_not_null(reference.DxgkDdiQueryEngineIdle);
	cr_expect_not_null(reference.DxgkDdiCreateHwQueue);
	cr_expect_not_null(reference.DxgkDdiDestroyHwQueue);
	cr_expect_not_null(reference.DxgkDdiSubmitCommand);
	cr_expect_not_null(reference.DxgkDdiUpdateMonitoredValues);
	cr_expect_not_null(reference.DxgkDdiUpdateCurrentValuesFromCpu);
	cr_expect_not_null(reference.DxgkDdiSetNativeFenceLogBuffer);
	cr_expect_not_null(reference.DxgkDdiUpdateNativeFenceLogs);
	cr_expect_not_null(reference.DxgkDdiInterruptRoutine);
	/* An adapter made with the table as it is runs the fixture's setup. */
	setup_with_ddi(&reference);
}

Test(driver, nfv_13_cpu_signal_goes_through_update_current_values_from_cpu)
{
	struct dxgk_ddi ddi = reference;
	fsr_handle fence;

	ddi.DxgkDdiUpdateCurrentValuesFromCpu = counting_update_current_values_from_cpu;
	setup_with_ddi(&ddi);
	fence = fst_fence_new(fx.process, fx.device, 0);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 5), FSR_OK);
	cr_expect_eq(cpu_signal_calls, 1, "one DxgkDdiUpdateCurrentValuesFromCpu per CPU signal");
	cr_expect_eq(fst_fence_value(fx.process, fence), 5);
}

Test(driver, nfv_13_driver_that_drops_the_cpu_signal_is_seen)
{
	struct dxgk_ddi ddi = reference;
	fsr_handle fence;

	ddi.DxgkDdiUpdateCurrentValuesFromCpu = dropping_update_current_values_from_cpu;
	setup_with_ddi(&ddi);
	fence = fst_fence_new(fx.process, fx.device, 0);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 5), FSR_OK);
	cr_expect_eq(cpu_signal_calls, 1);
	cr_expect_eq(fst_fence_value(fx.process, fence), 0,
		     "the OS stores CurrentValue only through the driver it was given");
}

Test(driver, int_02_gpu_interrupts_reach_the_os_through_the_tables_interrupt_routine)
{
	struct dxgk_ddi ddi = reference;
	fsr_handle queue;
	fsr_handle fence;
	struct fst_wait_result result = {0};

	ddi.DxgkDdiInterruptRoutine = counting_interrupt_routine;
	setup_with_ddi(&ddi);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	/* A CPU waiter sets MonitoredValue below 1, so the GPU's signal of 1 interrupts. */
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 1, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 1);
	fst_run_until_idle();
	cr_expect_geq(interrupts_seen, 1, "the GPU's line calls the routine the OS connected");
	cr_expect_gt(interrupt_routine_calls, interrupts_seen,
		     "packet retirements go up the same line");
	cr_expect_eq(result.call_count, 1, "the interrupt released the CPU waiter");
	cr_expect_eq(result.status, FSR_OK);
}

/*
 * UMS-06: the OS needs the doorbell size to make doorbells. Caps it cannot use are the driver's
 * bad input: the adapter works, but takes no user-mode queue (UMS-05), and says so.
 */
static void
expect_adapter_without_user_mode_queues(void)
{
	struct fsr_hwqueue_config user_mode = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_ums_caps caps = {0};
	fsr_handle queue = 0;

	cr_assert_eq(fsr_adapter_query_ums_caps(fx.runtime, fx.adapter_id, &caps), FSR_OK);
	cr_expect_eq(caps.doorbell_model, FSR_DOORBELL_NONE);
	cr_expect_eq(caps.doorbell_size_bytes, 0);
	cr_expect_eq(caps.user_mode_submission_engines, 0x3, "the nodes still have the flag");
	cr_expect_eq(fsr_hwqueue_create(fx.process, fx.context_3d, &user_mode, &queue),
		     FSR_ERR_NOT_SUPPORTED);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	cr_expect_eq(fsr_hwqueue_wait_progress(
			 fx.process, queue, fst_submit_work(fx.process, queue, 10), FSR_INFINITE),
		     FSR_OK);
}

Test(driver, ums_06_doorbell_caps_without_a_size_leave_the_adapter_without_user_mode_queues)
{
	struct dxgk_ddi ddi = reference;

	ddi.DxgkDdiQueryAdapterInfo = sizeless_query_adapter_info;
	setup_with_ddi(&ddi);
	expect_adapter_without_user_mode_queues();
}

Test(driver, ums_06_a_driver_without_doorbell_caps_leaves_the_adapter_without_user_mode_queues)
{
	struct dxgk_ddi ddi = reference;

	ddi.DxgkDdiQueryAdapterInfo = silent_query_adapter_info;
	setup_with_ddi(&ddi);
	expect_adapter_without_user_mode_queues();
}
