/* SPDX-License-Identifier: MIT */
/*
 * Native fence values as the API shows them (spec 001): CurrentValue is what the last signal
 * wrote — a GPU signal writes N even below it, a CPU signal below it is refused by the OS;
 * MonitoredValue is the least waited value minus one, UINT64_MAX without
 * waiters, after every waiter added or retired; and the CPU waits (blocking, polling,
 * asynchronous) end as fence.h says — satisfied, timed out, destroyed, or refused in sim mode
 * when nothing left could satisfy them. Interrupts and shared handles have their own files.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include <criterion/criterion.h>

#include "runtime-fixture.h"

TestSuite(fence, .init = fst_rt_setup, .fini = fst_rt_teardown);

/*
 * NFV-03: user mode has no access to MonitoredValue at all, so the library exports no call
 * that reads it (tests read it through the test-only accessor of os/os-private.h).
 */
Test(fence, nfv_03_user_mode_has_no_call_that_reads_monitored_value)
{
	cr_expect_null(dlsym(RTLD_DEFAULT, "fsr_fence_read_monitored"));
	cr_expect_not_null(dlsym(RTLD_DEFAULT, "fsr_fence_read"), "the library is loaded");
}

/*
 * NFV-02: user mode reads CurrentValue itself — fsr_fence_read goes through neither the OS nor
 * the driver: it fires no event — but writes it only through the OS: a CPU signal is the
 * kernel's DxgkDdiUpdateCurrentValuesFromCpu (fencescope_kmd:update_current_value).
 */
Test(fence, nfv_02_user_mode_reads_current_value_itself_and_writes_it_only_through_the_os)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = 0, global = 0;
	uint64_t value = 0;
	size_t before;

	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, 0, &fence, &global), FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 3);
	fst_run_until_idle();
	fst_tap_start();
	cr_assert_eq(fsr_fence_read(fx.process, fence, &value), FSR_OK);
	cr_expect_eq(value, 3, "the GPU's write, read by user mode");
	cr_expect_eq(fst_tap_event_count(), 0, "a user-mode read involves neither OS nor driver");

	before = fst_tap_event_count();
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 5), FSR_OK);
	/* update_current_value: adapter, fence global handle, value, notification only */
	cr_expect_eq(fst_tap_count(before, "fencescope_kmd:update_current_value", 1, global), 1,
		     "the CPU write is the kernel's");
	cr_expect_eq(fst_fence_value(fx.process, fence), 5);
}

/*
 * Spec 001, "Signal Fence(N): write N as a new current value": a GPU signal stores its value,
 * also below CurrentValue (the fence goes down, as the hardware's would; the analyzer reports
 * it as value_regression). A kernel-mode queue's signal is that queue's GPU signal, applied by
 * the OS through DxgkDdiUpdateCurrentValuesFromCpu (XAD-16, NFV-13): written as it is too.
 */
Test(fence, nfv_01_gpu_signal_writes_its_value_even_below_current_value)
{
	fsr_handle user_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle kernel_queue =
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle fence_a = fst_fence_new(fx.process, fx.device, 0);
	fsr_handle fence_b = fst_fence_new(fx.process, fx.device, 0);
	fsr_handle fence_c = fst_fence_new(fx.process, fx.device, 20);

	fst_submit_signal(fx.process, user_queue, fence_a, 10);
	fst_submit_signal(fx.process, user_queue, fence_a, 5);
	fst_submit_signal(fx.process, user_queue, fence_c, 7);
	fst_submit_signal(fx.process, kernel_queue, fence_b, 10);
	fst_submit_signal(fx.process, kernel_queue, fence_b, 5);
	fst_run_until_idle();

	cr_assert_eq(fst_last_completed(fx.process, user_queue), 3, "every signal ran");
	cr_assert_eq(fst_last_completed(fx.process, kernel_queue), 2, "both signals ran");
	cr_expect_eq(fst_fence_value(fx.process, fence_a), 5, "user-mode queue: 10, then 5");
	cr_expect_eq(fst_fence_value(fx.process, fence_c), 7, "below the initial value");
	cr_expect_eq(fst_fence_value(fx.process, fence_b), 5, "kernel-mode queue: 10, then 5");
}

/* The OS refuses a CPU signal below CurrentValue: a policy of the project beyond the seeds
 * (rules.md, "Notes on the seeds"), applied before NFV-13's DDI call, never by the driver. */
Test(fence, nfv_13_cpu_signal_below_current_value_is_refused)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);

	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 10), FSR_OK);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fence, 9), FSR_ERR_VALUE_REGRESSION);
	cr_expect_eq(fst_fence_value(fx.process, fence), 10);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fence, 10), FSR_OK,
		     "an equal value is accepted");
	cr_expect_eq(fst_fence_value(fx.process, fence), 10);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fence, 11), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, fence), 11);
}

Test(fence, nfv_13_initial_value_counts_for_regression)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 100);

	cr_expect_eq(fst_fence_value(fx.process, fence), 100);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fence, 99), FSR_ERR_VALUE_REGRESSION);
	cr_expect_eq(fst_fence_value(fx.process, fence), 100);
}

Test(fence, nfv_01_values_near_uint64_max_survive_cpu_and_gpu_signals)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle cpu_fence = fst_fence_new(fx.process, fx.device, 0);
	fsr_handle gpu_fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result result = {0};

	cr_assert_eq(fsr_fence_signal_cpu(fx.process, cpu_fence, UINT64_C(0xF000000000000001)),
		     FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, cpu_fence), UINT64_C(0xF000000000000001));

	/* A waiter on the largest value sets MonitoredValue one below it, not to "none". */
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, gpu_fence, UINT64_MAX - 1, FSR_INFINITE,
					      fst_wait_record, &result),
		     FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, gpu_fence), UINT64_MAX - 2);
	fst_submit_signal(fx.process, queue, gpu_fence, UINT64_C(0xFFFFFFFF00000002));
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, gpu_fence), UINT64_C(0xFFFFFFFF00000002));
	cr_expect_eq(result.call_count, 0, "0xFFFFFFFF00000002 < UINT64_MAX - 1");
	fst_submit_signal(fx.process, queue, gpu_fence, UINT64_MAX - 1);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, gpu_fence), UINT64_MAX - 1);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_OK);
	cr_expect_eq(result.observed_value, UINT64_MAX - 1);
	cr_expect_eq(fst_monitored_value(fx.process, gpu_fence), FSR_NO_MONITORED);
}

Test(fence, nfv_05_monitored_value_is_max_without_waiters)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 3);

	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 4), FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
}

Test(fence, nfv_04_monitored_value_is_least_waited_value_minus_one)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	/* Static: the waiters are still outstanding when the fixture's teardown ends them. */
	static struct fst_wait_result results[3];
	const uint64_t values[3] = {10, 5, 7};
	const uint64_t expected[3] = {9, 4, 4};

	for (int i = 0; i < 3; i++) {
		cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fence, values[i], FSR_INFINITE,
						      fst_wait_record, &results[i]),
			     FSR_OK);
		cr_expect_eq(fst_monitored_value(fx.process, fence), expected[i],
			     "after the waiter on %lu", (unsigned long) values[i]);
	}
	for (int i = 0; i < 3; i++)
		cr_expect_eq(results[i].call_count, 0, "nothing is satisfied yet");
}

Test(fence, nfv_09_cpu_signals_release_waiters_and_move_monitored_value)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result at_10 = {0};
	struct fst_wait_result at_5 = {0};
	struct fst_wait_result at_7 = {0};

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 10, FSR_INFINITE, fst_wait_record, &at_10),
	    FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 5, FSR_INFINITE, fst_wait_record, &at_5),
	    FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 7, FSR_INFINITE, fst_wait_record, &at_7),
	    FSR_OK);

	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 4), FSR_OK);
	cr_expect_eq(at_5.call_count, 0, "4 satisfies nobody");
	cr_expect_eq(fst_monitored_value(fx.process, fence), 4);

	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 6), FSR_OK);
	cr_expect_eq(at_5.call_count, 1);
	cr_expect_eq(at_5.status, FSR_OK);
	cr_expect_eq(at_5.observed_value, 6);
	cr_expect_eq(at_7.call_count, 0);
	cr_expect_eq(fst_monitored_value(fx.process, fence), 6, "next least is 7");

	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 9), FSR_OK);
	cr_expect_eq(at_7.call_count, 1);
	cr_expect_eq(at_10.call_count, 0);
	cr_expect_eq(fst_monitored_value(fx.process, fence), 9);

	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 10), FSR_OK);
	cr_expect_eq(at_10.call_count, 1);
	cr_expect_eq(at_10.status, FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
	cr_expect_eq(at_5.call_count, 1, "a callback runs once");
}

Test(fence, syn_05_waiter_already_satisfied_is_released_at_once)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 8);
	struct fst_wait_result result = {0};
	uint64_t interrupts = fst_stats().interrupts;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 8, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	cr_expect_eq(result.call_count, 1, "released inside the call");
	cr_expect_eq(result.status, FSR_OK);
	cr_expect_eq(result.observed_value, 8);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
	cr_expect_eq(fst_stats().interrupts, interrupts, "no GPU interrupt was needed");
}

Test(fence, nfv_06_expired_async_waiter_is_retired_and_monitored_value_moves)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	static struct fst_wait_result lasting; /* outstanding until teardown */
	struct fst_wait_result expiring = {0};
	uint64_t start = fsr_runtime_now_ns(fx.runtime);

	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fence, 30, FSR_INFINITE, fst_wait_record,
					      &lasting),
		     FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 20, 1000, fst_wait_record, &expiring),
	    FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, fence), 19);

	cr_assert_eq(fsr_runtime_run_until(fx.runtime, start + 999), FSR_OK);
	cr_expect_eq(expiring.call_count, 0, "not before its timeout");
	cr_expect_eq(fst_monitored_value(fx.process, fence), 19);

	cr_assert_eq(fsr_runtime_run_until(fx.runtime, start + 1000), FSR_OK);
	cr_expect_eq(expiring.call_count, 1);
	cr_expect_eq(expiring.status, FSR_ERR_TIMEOUT);
	cr_expect_eq(expiring.observed_value, 0);
	cr_expect_eq(fst_monitored_value(fx.process, fence), 29, "the waiter on 30 is left");
	cr_expect_eq(lasting.call_count, 0);
}

Test(fence, nfv_07_blocking_wait_times_out_after_exactly_its_timeout)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t start = fsr_runtime_now_ns(fx.runtime);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 5, 5000, FSR_WAIT_BLOCKING),
		     FSR_ERR_TIMEOUT);
	cr_expect_eq(fsr_runtime_now_ns(fx.runtime) - start, 5000);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX, "the waiter is retired");

	start = fsr_runtime_now_ns(fx.runtime);
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 5, 0, FSR_WAIT_BLOCKING),
		     FSR_ERR_TIMEOUT, "a zero timeout tests once");
	cr_expect_eq(fsr_runtime_now_ns(fx.runtime), start);
}

Test(fence, nfv_07_polling_wait_times_out_after_exactly_its_timeout)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t start = fsr_runtime_now_ns(fx.runtime);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 5, 120000, FSR_WAIT_POLLING),
		     FSR_ERR_TIMEOUT);
	cr_expect_eq(fsr_runtime_now_ns(fx.runtime) - start, 120000);
}

Test(fence, nfv_07_blocking_wait_is_released_by_a_gpu_signal)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t start = fsr_runtime_now_ns(fx.runtime);
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK); /* 10 µs at 100 MHz */
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 3), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 3, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, fence), 3);
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime) - start, 10000, "after the work");
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
}

Test(fence, nfv_07_polling_wait_is_satisfied_by_a_gpu_signal)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t start = fsr_runtime_now_ns(fx.runtime);
	uint64_t interrupts = fst_stats().interrupts;
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 3), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 2, FSR_INFINITE, FSR_WAIT_POLLING),
		     FSR_OK);
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime) - start, 10000, "after the work");
	/* The OS never knew of the waiter: MonitoredValue stayed "none", no interrupt came. */
	cr_expect_eq(fst_stats().interrupts, interrupts);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
}

Test(fence, blocking_wait_nothing_can_satisfy_is_refused_in_sim_mode, .timeout = 10)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_ERR_BAD_STATE);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX, "the waiter is retired");
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fence, 1), FSR_OK, "the fence still works");
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
}

Test(fence, polling_wait_nothing_can_satisfy_is_refused_in_sim_mode, .timeout = 10)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_POLLING),
		     FSR_ERR_BAD_STATE);
}

Test(fence, blocking_wait_on_a_blocked_gpu_queue_is_refused_in_sim_mode, .timeout = 10)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle never = fst_fence_new(fx.process, fx.device, 0);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_wait(cmdbuf, never, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_ERR_BAD_STATE);
	/* Now satisfy the GPU wait: the signal behind it runs and a new wait succeeds. */
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, never, 1), FSR_OK);
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
}

Test(fence, closing_the_fence_ends_an_async_wait_with_destroyed)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 2);
	struct fst_wait_result result = {0};

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 5, 100000, fst_wait_record, &result),
	    FSR_OK);
	cr_assert_eq(fsr_fence_close(fx.process, fence), FSR_OK);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_ERR_DESTROYED);
	cr_expect_eq(result.observed_value, 2);
	/* Its timeout must not fire later on a retired waiter. */
	fst_run_until_idle();
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + 200000),
		     FSR_OK);
	cr_expect_eq(result.call_count, 1);
}

struct close_on_wake {
	struct fsr_process *process;
	fsr_handle fence;
	fsr_status status;
};

static void
close_fence_cb(fsr_status status, uint64_t observed_value, void *user_data)
{
	struct close_on_wake *close = user_data;

	(void) observed_value;
	cr_expect_eq(status, FSR_OK);
	close->status = fsr_fence_close(close->process, close->fence);
}

Test(fence, closing_the_fence_ends_a_blocking_wait_with_destroyed)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle trigger = fst_fence_new(fx.process, fx.device, 0);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct close_on_wake close = {.process = fx.process, .fence = fence, .status = 1};
	struct fsr_cmdbuf *cmdbuf = NULL;

	/* The GPU signals `trigger` later; its waiter's callback closes `fence` meanwhile. */
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, trigger, 1, FSR_INFINITE, close_fence_cb, &close),
	    FSR_OK);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, trigger, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 100, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_ERR_DESTROYED);
	cr_expect_eq(close.status, FSR_OK);
	cr_expect_eq(fsr_fence_read(fx.process, fence, NULL), FSR_ERR_INVALID_HANDLE);
}

Test(fence, runtime_destroy_ends_outstanding_async_waits_once)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	static struct fst_wait_result without_timeout;
	static struct fst_wait_result with_timeout;

	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fence, 4, FSR_INFINITE, fst_wait_record,
					      &without_timeout),
		     FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 4, 1000000, fst_wait_record, &with_timeout),
	    FSR_OK);
	fst_rt_teardown();
	cr_expect_eq(without_timeout.call_count, 1);
	cr_expect_eq(without_timeout.status, FSR_ERR_DESTROYED);
	cr_expect_eq(with_timeout.call_count, 1);
	cr_expect_eq(with_timeout.status, FSR_ERR_DESTROYED);
}
