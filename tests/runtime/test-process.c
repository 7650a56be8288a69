/* SPDX-License-Identifier: MIT */
/*
 * Process termination (TRM): a normal one lets every queue finish what it queued before the
 * queue goes; an abnormal one abandons queued work, even work that could never run, and
 * returns at once. Either way the other processes and the runtime keep working (TRM-07).
 * Process B does the work; the fixture's process A watches through a shared fence.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"

TestSuite(termination, .init = fst_rt_setup, .fini = fst_rt_teardown);

static struct fsr_process *process_b;
static fsr_handle device_b;
static fsr_handle context_b;
static fsr_handle watched_a; /* A's handle of the shared fence */
static fsr_handle watched_b; /* B's handle of it */

static void
make_process_b(void)
{
	fsr_handle global_handle = 0;

	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_SHARED, &watched_a,
				      &global_handle),
		     FSR_OK);
	fst_rt_add_process("b", &process_b, &device_b, &context_b);
	cr_assert_eq(fsr_fence_open(process_b, device_b, global_handle, &watched_b), FSR_OK);
}

/* A's own queue still runs work and signals after B is gone. */
static void
check_a_still_works(void)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 100), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
}

static void
submit_work_then_signal(fsr_handle queue, uint64_t gpu_ticks, uint64_t value)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(process_b, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, gpu_ticks), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, watched_b, value), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
}

Test(termination, trm_01_normal_termination_completes_queued_work_first)
{
	fsr_handle user_queue, kernel_queue;
	uint64_t start;

	make_process_b();
	user_queue = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	kernel_queue = fst_queue_new(process_b, context_b, FSR_SUBMIT_KERNEL_MODE);
	/*
	 * One engine: the ring's work starts at once, the DMA packet once the OS has scheduled it,
	 * so the user-mode queue's signal of 1 runs first. A GPU signal writes N (spec 001): the
	 * fence ends at 2 only if both ran, in that order.
	 */
	submit_work_then_signal(kernel_queue, 5000, 2);
	submit_work_then_signal(user_queue, 5000, 1);
	start = fsr_runtime_now_ns(fx.runtime);

	cr_assert_eq(fsr_process_terminate(process_b, false), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, watched_a), 2, "both buffers ran");
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime) - start, 50000, "5000 ticks at 100 MHz");
	check_a_still_works();
}

Test(termination, trm_01_normal_termination_of_a_queue_nothing_can_unblock_returns, .timeout = 10)
{
	fsr_handle queue;
	fsr_handle never;

	make_process_b();
	queue = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	never = fst_fence_new(process_b, device_b, 0);
	fst_submit_wait(process_b, queue, never, 1);
	submit_work_then_signal(queue, 10, 1);

	/* Sim mode: the wait for LastQueuedValue is refused, and the queue is abandoned. */
	cr_assert_eq(fsr_process_terminate(process_b, false), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, watched_a), 0);
	check_a_still_works();
}

Test(termination, trm_04_abnormal_termination_abandons_a_blocked_user_mode_queue, .timeout = 10)
{
	fsr_handle queue;
	fsr_handle never;

	make_process_b();
	queue = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	never = fst_fence_new(process_b, device_b, 0);
	fst_submit_wait(process_b, queue, never, 1);
	submit_work_then_signal(queue, 10, 1);
	fst_run_until_idle();

	cr_assert_eq(fsr_process_terminate(process_b, true), FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, watched_a), 0, "the signal never ran");
	check_a_still_works();
}

Test(termination, trm_04_abnormal_termination_abandons_a_blocked_kernel_mode_queue, .timeout = 10)
{
	fsr_handle queue;
	fsr_handle never;

	make_process_b();
	queue = fst_queue_new(process_b, context_b, FSR_SUBMIT_KERNEL_MODE);
	never = fst_fence_new(process_b, device_b, 0);
	fst_submit_wait(process_b, queue, never, 1);
	submit_work_then_signal(queue, 10, 1);
	fst_run_until_idle();
	cr_assert_eq(fst_monitored_value(process_b, never), 0, "the OS waits for the queue");

	cr_assert_eq(fsr_process_terminate(process_b, true), FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, watched_a), 0, "the signal never ran");
	check_a_still_works();
}

Test(termination, trm_04_abandoned_kernel_mode_wait_on_a_shared_fence_is_retired, .timeout = 10)
{
	fsr_handle queue;

	make_process_b();
	queue = fst_queue_new(process_b, context_b, FSR_SUBMIT_KERNEL_MODE);
	fst_submit_wait(process_b, queue, watched_b, 5);
	fst_run_until_idle();
	cr_assert_eq(fst_monitored_value(fx.process, watched_a), 4);

	cr_assert_eq(fsr_process_terminate(process_b, true), FSR_OK);
	/* The dead queue's OS waiter must not stay on A's fence, nor be released later. */
	cr_expect_eq(fst_monitored_value(fx.process, watched_a), UINT64_MAX);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, watched_a, 5), FSR_OK);
	fst_run_until_idle();
	check_a_still_works();
}

Test(termination, trm_04_abnormal_termination_drops_work_in_flight)
{
	fsr_handle queue;

	make_process_b();
	queue = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	submit_work_then_signal(queue, 1000000, 1); /* 10 ms */
	/* 1 ms into the 10: by time, not by a count of steps, which depends on what else runs. */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + 1000000),
		     FSR_OK);
	cr_assert_eq(fst_last_completed(process_b, queue), 0, "still working");

	cr_assert_eq(fsr_process_terminate(process_b, true), FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, watched_a), 0);
	check_a_still_works();
}
