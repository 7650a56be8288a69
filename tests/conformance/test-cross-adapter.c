/* SPDX-License-Identifier: MIT */
/*
 * Conformance: cross-adapter fences (XAD), held against the driver under test on two adapters
 * (both driven by it) through the public API, the test-only API and the event tap. The driver
 * stores the MonitoredValue the OS gives it, 0 for a cross-adapter fence, and keeps it there
 * (XAD-05), so that every GPU signal interrupts (XAD-06); told of a value with NotificationOnly
 * it writes nothing, since both GPUs share the CurrentValue (XAD-08).
 */
#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"

TestSuite(xad, .init = fsc_setup, .fini = fsc_teardown);

static uint32_t second_adapter;
static fsr_handle second_device;
static fsr_handle second_context;

static void
add_second_adapter(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fsc_config_init(&runtime_config, &adapter_config);
	cr_assert_eq(fsr_adapter_create_with_ddi(fx.runtime, &adapter_config, fsc_driver_table(),
						 &second_adapter),
		     FSR_OK);
	cr_assert_eq(fsr_device_create(fx.process, second_adapter, &second_device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, second_device, 0, &second_context), FSR_OK);
}

/* A cross-adapter fence created on the first adapter and opened on the second. */
static void
cross_fence_new(fsr_handle *first, fsr_handle *second, fsr_handle *global)
{
	cr_assert_eq(
	    fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_CROSS_ADAPTER, first, global),
	    FSR_OK);
	cr_assert_eq(fsr_fence_open(fx.process, second_device, *global, second), FSR_OK);
}

Test(xad, xad_05_monitored_value_stays_zero_on_both_adapters)
{
	fsr_handle first = 0;
	fsr_handle second = 0;
	fsr_handle global = 0;
	struct fst_wait_result first_wait = {0};
	struct fst_wait_result second_wait = {0};

	add_second_adapter();
	cross_fence_new(&first, &second, &global);
	cr_expect_eq(fst_monitored_value(fx.process, first), 0, "at creation");
	cr_expect_eq(fst_monitored_value(fx.process, second), 0, "at opening");
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, first, 5, FSR_INFINITE, fst_wait_record,
					      &first_wait),
		     FSR_OK);
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, second, 6, FSR_INFINITE, fst_wait_record,
					      &second_wait),
		     FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, first), 0, "with a CPU waiter");
	cr_expect_eq(fst_monitored_value(fx.process, second), 0, "with a CPU waiter");
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, second, 6), FSR_OK);
	cr_expect_eq(first_wait.call_count, 1);
	cr_expect_eq(second_wait.call_count, 1);
	cr_expect_eq(fst_monitored_value(fx.process, first), 0, "after the waiters went");
	cr_expect_eq(fst_monitored_value(fx.process, second), 0, "after the waiters went");
}

Test(xad, xad_06_xad_07_a_gpu_signal_without_waiters_interrupts_and_reaches_the_other_adapter)
{
	fsr_handle first = 0;
	fsr_handle second = 0;
	fsr_handle global = 0;
	fsr_handle queue;
	struct fst_wait_result result = {0};
	size_t mark, write, propagate;

	add_second_adapter();
	cross_fence_new(&first, &second, &global);
	queue = fst_queue_new(fx.process, second_context, FSR_SUBMIT_USER_MODE);
	mark = fsc_event_count();
	fst_submit_signal(fx.process, queue, second, 3);
	fst_run_until_idle();
	write = fsc_find(mark, "fencescope_hw:fence_value_write", 3, global);
	cr_assert_neq(write, FSC_NONE);
	cr_expect_eq(fsc_event_at(write)->fields[6], 1, "XAD-06: no waiter, still an interrupt");
	propagate = fsc_find(write, "fencescope_os:fence_propagate", 0, global);
	cr_expect_neq(propagate, FSC_NONE, "XAD-07");
	cr_expect_eq(fst_fence_value(fx.process, first), 3);
	/* And a CPU waiter on the other adapter is released by the next one. */
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, first, 4, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	fst_submit_signal(fx.process, queue, second, 4);
	fst_run_until_idle();
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_OK);
}

/*
 * XAD-08: with interleaved actors (sim-mode interleaving), the GPU's next signal may land
 * between the OS's read of the value it propagates and the driver's NotificationOnly call; a
 * driver that writes that value then takes CurrentValue back below the GPU's last signal.
 */
Test(xad, xad_08_a_notification_only_update_never_writes_current_value)
{
	const uint64_t signals = 8;

	fsc_teardown();
	for (uint64_t seed = 1; seed <= 64; seed++) {
		struct fsr_runtime_config runtime_config;
		struct fsr_adapter_config adapter_config;
		fsr_handle first = 0;
		fsr_handle second = 0;
		fsr_handle global = 0;
		fsr_handle queue;
		size_t propagated;

		fsc_config_init(&runtime_config, &adapter_config);
		runtime_config.interleave_seed = seed;
		fsc_setup_with(&runtime_config, &adapter_config);
		add_second_adapter();
		cross_fence_new(&first, &second, &global);
		queue = fst_queue_new(fx.process, second_context, FSR_SUBMIT_USER_MODE);
		for (uint64_t v = 1; v <= signals; v++)
			fst_submit_signal(fx.process, queue, second, v);
		fst_run_until_idle();
		propagated = fsc_find(0, "fencescope_os:fence_propagate", 0, global);
		cr_assert_neq(propagated, FSC_NONE, "seed %lu: propagated", (unsigned long) seed);
		cr_assert_eq(fst_fence_value(fx.process, first), signals,
			     "seed %lu: CurrentValue went back to %lu", (unsigned long) seed,
			     (unsigned long) fst_fence_value(fx.process, first));
		fsc_teardown();
	}
	fsc_setup();
}
