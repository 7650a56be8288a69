/* SPDX-License-Identifier: MIT */
/*
 * Hardware queues seen through their progress fences: a GPU wait holds its queue until the
 * fence reaches the value (NFV-11), on the GPU for a user-mode queue and in the OS for a
 * kernel-mode one; progress values go up by one per command buffer and never run ahead of
 * what was queued (HPF). Termination and malformed buffers have their own files.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"

TestSuite(gpu_wait, .init = fst_rt_setup, .fini = fst_rt_teardown);
TestSuite(progress, .init = fst_rt_setup, .fini = fst_rt_teardown);

/*
 * Queue `waiter` waits for 5; `signaller` signals 4, which must not release it; then 5 comes
 * from the CPU or from `signaller`.
 */
static void
check_wait_unblocks_at_value(fsr_handle waiter, fsr_handle signaller, bool is_cpu_signal)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t progress = fst_submit_wait(fx.process, waiter, fence, 5);

	fst_submit_signal(fx.process, signaller, fence, 4);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), 4);
	cr_expect_eq(fst_last_completed(fx.process, waiter), progress - 1, "4 < 5: still waiting");
	cr_expect_eq(fst_last_queued(fx.process, waiter), progress);

	if (is_cpu_signal)
		cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 5), FSR_OK);
	else
		fst_submit_signal(fx.process, signaller, fence, 5);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, waiter), progress, "5 ≥ 5: unblocked");
}

Test(gpu_wait, nfv_11_user_mode_wait_unblocks_at_its_value_from_cpu)
{
	check_wait_unblocks_at_value(
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE), true);
}

Test(gpu_wait, nfv_11_user_mode_wait_unblocks_at_its_value_from_gpu)
{
	check_wait_unblocks_at_value(
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE), false);
}

Test(gpu_wait, nfv_11_user_mode_wait_unblocks_from_a_queue_on_the_same_engine)
{
	check_wait_unblocks_at_value(fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
				     fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
				     false);
}

Test(gpu_wait, nfv_11_kernel_mode_wait_unblocks_at_its_value_from_cpu)
{
	check_wait_unblocks_at_value(
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE), true);
}

Test(gpu_wait, nfv_11_kernel_mode_wait_unblocks_at_its_value_from_a_kernel_mode_queue)
{
	check_wait_unblocks_at_value(
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE), false);
}

Test(gpu_wait, nfv_11_kernel_mode_wait_unblocks_at_its_value_from_a_user_mode_queue)
{
	check_wait_unblocks_at_value(
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE), false);
}

Test(gpu_wait, nfv_11_user_mode_wait_unblocks_from_a_kernel_mode_queue)
{
	check_wait_unblocks_at_value(
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE), false);
}

Test(gpu_wait, nfv_11_wait_unblocks_on_a_value_above_its_own)
{
	fsr_handle waiter = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t progress = fst_submit_wait(fx.process, waiter, fence, 5);

	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 9), FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, waiter), progress);
}

Test(gpu_wait, nfv_10_same_adapter_gpu_wait_unblocks_without_an_interrupt)
{
	fsr_handle waiter = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle signaller = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t interrupts = fst_stats().interrupts;
	uint64_t progress = fst_submit_wait(fx.process, waiter, fence, 1);

	fst_submit_work(fx.process, signaller, 1000);
	fst_submit_signal(fx.process, signaller, fence, 1);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, waiter), progress);
	cr_expect_eq(fst_stats().interrupts, interrupts);
}

Test(gpu_wait, blocked_queue_does_not_hold_up_other_queues_of_its_engine)
{
	fsr_handle blocked = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle other = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);

	fst_submit_wait(fx.process, blocked, fence, 1);
	fst_submit_work(fx.process, other, 100);
	fst_submit_work(fx.process, other, 100);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, blocked), 0);
	cr_expect_eq(fst_last_completed(fx.process, other), 2);
}

Test(progress, hpf_01_each_command_buffer_gets_the_next_value)
{
	fsr_handle queues[2] = {fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
				fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE)};

	for (int q = 0; q < 2; q++) {
		for (uint64_t expected = 1; expected <= 4; expected++) {
			cr_expect_eq(fst_submit_work(fx.process, queues[q], 10), expected);
			cr_expect_eq(fst_last_queued(fx.process, queues[q]), expected);
		}
	}
	fst_run_until_idle();
	for (int q = 0; q < 2; q++)
		cr_expect_eq(fst_last_completed(fx.process, queues[q]), 4);
}

Test(progress, hpf_05_hpf_07_completed_stays_at_or_below_queued_while_stepping)
{
	fsr_handle queues[2] = {
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE)};
	uint64_t previous[2] = {0, 0};
	bool has_run = true;
	int steps = 0;

	for (int i = 0; i < 6; i++)
		for (int q = 0; q < 2; q++)
			fst_submit_work(fx.process, queues[q], 100 + 50 * (uint64_t) i);
	while (has_run && steps < 100000) {
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
		steps++;
		for (int q = 0; q < 2; q++) {
			uint64_t last_queued = 0;
			uint64_t last_completed = 0;

			cr_assert_eq(fsr_hwqueue_get_progress(fx.process, queues[q], &last_queued,
							      &last_completed),
				     FSR_OK);
			cr_assert_leq(last_completed, last_queued, "HPF-05, step %d", steps);
			cr_assert_geq(last_completed, previous[q], "HPF-07, step %d", steps);
			previous[q] = last_completed;
		}
		if (previous[0] == 6 && previous[1] == 6)
			break;
	}
	cr_expect_eq(previous[0], 6);
	cr_expect_eq(previous[1], 6);
}

Test(progress, hpf_02_completed_value_means_the_buffer_has_executed)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;
	bool has_run = true;
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 7), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	/* Step by step: the first step that shows the value completed shows the signal too. */
	while (has_run && fst_last_completed(fx.process, queue) < progress)
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	cr_expect_eq(fst_fence_value(fx.process, fence), 7, "the signal before the end ran");
}

Test(progress, hpf_01_latest_buffer_destroyed_unsubmitted_gives_its_value_back)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_cmdbuf *dropped = NULL;

	cr_assert_eq(fst_submit_work(fx.process, queue, 10), 1);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &dropped), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(dropped, 10), FSR_OK);
	fsr_cmdbuf_destroy(dropped);
	cr_expect_eq(fst_submit_work(fx.process, queue, 10), 2);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, 2, FSR_INFINITE), FSR_OK);
	cr_expect_eq(fst_last_queued(fx.process, queue), 2);
}

Test(progress, hpf_01_older_buffer_destroyed_unsubmitted_leaves_no_hole)
{
	fsr_handle queues[2] = {fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
				fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE)};

	for (int q = 0; q < 2; q++) {
		struct fsr_cmdbuf *first = NULL;
		struct fsr_cmdbuf *second = NULL;
		struct fsr_cmdbuf *third = NULL;
		uint64_t progress = 0;

		cr_assert_eq(fsr_cmdbuf_create(fx.process, queues[q], &first), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_create(fx.process, queues[q], &second), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_create(fx.process, queues[q], &third), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_work(second, 10), FSR_OK);
		fsr_cmdbuf_destroy(first);
		cr_expect_eq(fst_last_queued(fx.process, queues[q]), 1, "1 went in empty");
		cr_assert_eq(fsr_cmdbuf_submit(second, &progress), FSR_OK);
		cr_expect_eq(progress, 2);
		cr_assert_eq(fsr_cmdbuf_submit(third, &progress), FSR_OK);
		cr_expect_eq(progress, 3);
		cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queues[q], 3, FSR_INFINITE),
			     FSR_OK);
	}
}

Test(progress, hpf_01_middle_buffer_destroyed_unsubmitted_is_filled_in_its_turn)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_cmdbuf *first = NULL;
	struct fsr_cmdbuf *second = NULL;
	struct fsr_cmdbuf *third = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &first), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &second), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &third), FSR_OK);
	fsr_cmdbuf_destroy(second);
	cr_expect_eq(fst_last_queued(fx.process, queue), 0, "2 waits for 1");
	cr_assert_eq(fsr_cmdbuf_submit(first, NULL), FSR_OK);
	cr_expect_eq(fst_last_queued(fx.process, queue), 2, "then 2 goes in empty");
	cr_assert_eq(fsr_cmdbuf_submit(third, NULL), FSR_OK);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, 3, FSR_INFINITE), FSR_OK);
}
