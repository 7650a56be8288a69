/* SPDX-License-Identifier: MIT */
/*
 * Object lifetimes at their edges, the cases a review found broken: a command buffer whose
 * queue was destroyed, waits made through a handle that is closed while another process keeps
 * the fence, a kernel-mode queue waiting on a fence nobody can signal any more, a queue-naming
 * interrupt whose log names a fence of another device, and adapter settings that would make
 * time overflow.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"

TestSuite(lifetime, .init = fst_rt_setup, .fini = fst_rt_teardown);

Test(lifetime, recording_into_a_buffer_whose_queue_was_destroyed_is_refused)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_wait(cmdbuf, fence, 1), FSR_ERR_DESTROYED);
	cr_expect_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_ERR_DESTROYED);
	cr_expect_eq(fsr_cmdbuf_work(cmdbuf, 10), FSR_ERR_DESTROYED);
	cr_expect_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_ERR_DESTROYED);
}

/* SHF-03 with NFV-04: B's waits go with B's handle; A's fence stays, with no waiter left. */
Test(lifetime, shf_03_closing_a_handle_ends_the_waits_made_through_it)
{
	struct fsr_process *b;
	fsr_handle b_device, global, a_fence, b_fence;
	struct fst_wait_result result = {0};

	fst_rt_add_process("b", &b, &b_device, NULL);
	cr_assert_eq(
	    fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_SHARED, &a_fence, &global),
	    FSR_OK);
	cr_assert_eq(fsr_fence_open(b, b_device, global, &b_fence), FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(b, b_fence, 5, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, a_fence), 4);
	cr_assert_eq(fsr_fence_close(b, b_fence), FSR_OK);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_ERR_DESTROYED);
	cr_expect_eq(fst_monitored_value(fx.process, a_fence), FSR_NO_MONITORED, "NFV-05");
	cr_expect_eq(fsr_process_terminate(b, false), FSR_OK);
}

Test(lifetime, kernel_mode_wait_on_a_fence_nobody_can_signal_is_dropped)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_copy, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t progress = fst_submit_wait(fx.process, queue, fence, 1);
	struct fsr_runtime_stats stats;

	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, queue), progress - 1, "the wait holds it");
	cr_assert_eq(fsr_fence_close(fx.process, fence), FSR_OK);
	fst_run_until_idle();
	/* The queue goes on past the dead wait instead of waiting forever. */
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
	stats = fst_stats();
	cr_expect_gt(stats.events, 0);
}

/* INT-11, LOG-18, SYN-06: a log overrun may have hidden a signal of any device's fence. */
static void
setup_hwqueue_interrupts_small_logs(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	runtime_config.log_read_period_ns = FSR_INFINITE;
	adapter_config.log_capacity_entries = 4;
	adapter_config.interrupt_form = FSR_INTERRUPT_HWQUEUE;
	fst_rt_setup_with(&runtime_config, &adapter_config);
}

TestSuite(lifetime_hwqueue_interrupts, .init = setup_hwqueue_interrupts_small_logs,
	  .fini = fst_rt_teardown);

Test(lifetime_hwqueue_interrupts, syn_06_overrun_releases_waiters_of_a_fence_of_another_device)
{
	fsr_handle other_device, fence;
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle filler = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result result = {0};

	cr_assert_eq(fsr_device_create(fx.process, fx.adapter_id, &other_device), FSR_OK);
	fence = fst_fence_new(fx.process, other_device, 0);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 5, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	/*
	 * The signal of `fence` interrupts (5 > MonitoredValue 4), but before the OS reads the
	 * queue's 4-entry log the filler's signals have overwritten its entry: only a release
	 * beyond the queue's device can find the waiter.
	 */
	fst_submit_signal(fx.process, queue, fence, 5);
	for (uint64_t v = 1; v <= 8; v++)
		fst_submit_signal(fx.process, queue, filler, v);
	fst_run_until_idle();
	cr_expect_gt(fst_stats().log_entries_lost, 0, "the overrun was not provoked");
	cr_expect_eq(result.call_count, 1, "the waiter was never released");
	cr_expect_eq(result.status, FSR_OK);
}

Test(lifetime, adapter_settings_that_would_overflow_time_are_refused)
{
	struct fsr_adapter_config config;
	uint32_t id;

	fsr_adapter_config_init(&config);
	config.gpu_ts_drift_ppm = -1000000;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &config, &id), FSR_ERR_INVALID_ARGUMENT);
	fsr_adapter_config_init(&config);
	config.gpu_ts_frequency_hz = 10;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &config, &id), FSR_ERR_INVALID_ARGUMENT);
	fsr_adapter_config_init(&config);
	config.log_capacity_entries = UINT32_MAX;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &config, &id), FSR_ERR_INVALID_ARGUMENT);
	fsr_adapter_config_init(&config);
	cr_expect_eq(fsr_adapter_create(fx.runtime, &config, &id), FSR_OK, "and a good one works");
}

static void
setup_without_periodic_housekeeping(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	runtime_config.clock_correlation_period_ns = FSR_INFINITE;
	runtime_config.log_read_period_ns = FSR_INFINITE;
	fst_rt_setup_with(&runtime_config, &adapter_config);
}

TestSuite(lifetime_no_housekeeping, .init = setup_without_periodic_housekeeping,
	  .fini = fst_rt_teardown);

Test(lifetime_no_housekeeping, infinite_housekeeping_periods_do_not_wrap_time, .timeout = 20)
{
	uint64_t now = fsr_runtime_now_ns(fx.runtime);

	cr_expect_eq(fsr_runtime_run_until(fx.runtime, now + 1000000), FSR_OK);
	cr_expect_eq(fsr_runtime_now_ns(fx.runtime), now + 1000000);
}
