/* SPDX-License-Identifier: MIT */
/*
 * Hardware queues seen through their progress fences: a GPU wait holds its queue until the
 * fence reaches the value (NFV-11), on the GPU for a user-mode queue and in the OS for a
 * kernel-mode one; progress values go up by one per command buffer and never run ahead of
 * what was queued (HPF). Termination and malformed buffers have their own files.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

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

TestSuite(scheduling, .init = fst_rt_setup, .fini = fst_rt_teardown);

/*
 * UMS-02: user-mode submission is chosen per queue: one context holds a user-mode queue (with
 * its ring and logs) and a kernel-mode queue (neither) side by side, and both run their work.
 */
Test(scheduling, ums_02_one_context_holds_user_mode_and_kernel_mode_queues_side_by_side)
{
	fsr_handle user = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle kernel = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	uint64_t user_progress = fst_submit_work(fx.process, user, 300);
	uint64_t kernel_progress = fst_submit_work(fx.process, kernel, 300);

	cr_expect_eq(fst_borrow_queue(user)->mode, FSR_SUBMIT_USER_MODE);
	cr_expect_not_null(fst_borrow_queue(user)->ring, "a user-mode queue has its ring");
	cr_expect_eq(fst_borrow_queue(kernel)->mode, FSR_SUBMIT_KERNEL_MODE);
	cr_expect_null(fst_borrow_queue(kernel)->ring, "a kernel-mode queue has none");
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, user), user_progress);
	cr_expect_eq(fst_last_completed(fx.process, kernel), kernel_progress);
}

/*
 * UMS-18: with no doorbells, the engine's command processor polls the write pointer of every
 * user-mode queue of its run list and fetches the new work of each, missing none: four queues
 * of one engine, each written three times in turn, all complete.
 */
Test(scheduling, ums_18_the_engine_polls_every_user_mode_queue_and_misses_none)
{
	enum { QUEUES = 4, BUFFERS = 3 };
	fsr_handle queues[QUEUES];

	for (int q = 0; q < QUEUES; q++)
		queues[q] = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	for (int b = 0; b < BUFFERS; b++)
		for (int q = 0; q < QUEUES; q++)
			fst_submit_work(fx.process, queues[q], 100 + 10 * (uint64_t) q);
	fst_run_until_idle();
	for (int q = 0; q < QUEUES; q++)
		cr_expect_eq(fst_last_completed(fx.process, queues[q]), BUFFERS, "queue %d", q);
}

/*
 * HPF-08: LastQueuedValue is the UMD's own read/write mapping, and the OS reads that very
 * location: a value the UMD stores there (white-box, as through its CPU VA) is what the OS
 * reports as queued.
 */
Test(scheduling, hpf_08_the_os_reads_last_queued_value_where_the_umd_wrote_it)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	uint64_t progress = fst_submit_work(fx.process, queue, 100);
	struct os_hwqueue *os_queue = fst_borrow_queue(queue);

	fst_run_until_idle();
	cr_assert_eq(fst_last_queued(fx.process, queue), progress);
	atomic_store(&os_queue->last_queued_value, progress + 5);
	cr_expect_eq(fst_last_queued(fx.process, queue), progress + 5,
		     "the OS read the UMD's mapping, not a copy of its own");
	atomic_store(&os_queue->last_queued_value, progress); /* as it was, for the teardown */
}

/*
 * PRE-15: the OS keeps a software queue per kernel-mode queue and hands its engine the next
 * command buffer of that queue only when the previous one completed, in order; each packet goes
 * to its queue's engine only, and an engine runs one packet at a time.
 */
Test(scheduling, pre_15_each_engine_runs_one_kernel_mode_buffer_at_a_time_in_order)
{
	enum { BUFFERS = 3 };
	fsr_handle queues[3] = {
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE),
	    fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE),
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE)};
	uint64_t engine_of[3];
	uint64_t queue_in_flight[3] = {0};
	uint64_t engine_running[8] = {0};
	uint64_t last_progress[3] = {0};
	size_t queued = 0;

	for (int q = 0; q < 3; q++)
		engine_of[q] = fst_borrow_queue(queues[q])->engine_id;
	cr_assert_eq(engine_of[0], engine_of[1]);
	cr_assert_neq(engine_of[0], engine_of[2]);
	fst_tap_start();
	for (int b = 0; b < BUFFERS; b++)
		for (int q = 0; q < 3; q++)
			fst_submit_work(fx.process, queues[q], 200);
	fst_run_until_idle();
	/*
	 * packet_queued, packet_complete (OS) and packet_start, packet_end (engine): adapter,
	 * engine, queue, packet id, progress value, ...
	 */
	for (size_t i = 0; i < fst_tap_event_count(); i++) {
		const struct fst_event *event = fst_tap_event(i);
		const char *name = event->name;
		int q = 0;

		if (strcmp(name, "fencescope_os:packet_queued") != 0 &&
		    strcmp(name, "fencescope_os:packet_complete") != 0 &&
		    strcmp(name, "fencescope_hw:packet_start") != 0 &&
		    strcmp(name, "fencescope_hw:packet_end") != 0)
			continue;
		while (q < 3 && queues[q] != event->fields[2])
			q++;
		cr_assert_lt(q, 3);
		cr_assert_lt(event->fields[1], 8);
		cr_expect_eq(event->fields[1], engine_of[q], "a packet goes to its queue's engine");
		if (strcmp(name, "fencescope_os:packet_queued") == 0) {
			queued++;
			cr_expect_eq(queue_in_flight[q], 0,
				     "the next buffer only after the last completed (event %zu)",
				     i);
			queue_in_flight[q]++;
		} else if (strcmp(name, "fencescope_os:packet_complete") == 0) {
			cr_expect_eq(queue_in_flight[q], 1);
			queue_in_flight[q]--;
			cr_expect_gt(event->fields[4], last_progress[q], "in order");
			last_progress[q] = event->fields[4];
		} else if (strcmp(name, "fencescope_hw:packet_start") == 0) {
			cr_expect_eq(engine_running[event->fields[1]], 0,
				     "one packet at a time per engine (event %zu)", i);
			engine_running[event->fields[1]]++;
		} else {
			engine_running[event->fields[1]]--;
		}
	}
	cr_expect_eq(queued, 3 * BUFFERS);
	for (int q = 0; q < 3; q++)
		cr_expect_eq(fst_last_completed(fx.process, queues[q]), BUFFERS);
}

/*
 * XAD-16, XAD-17: on a kernel-mode queue a native fence signal is the OS's software command
 * (spec 001, scenario 2's non-native side): it is applied from the CPU (km_fence_signal_executed,
 * DxgkDdiUpdateCurrentValuesFromCpu), never written by the GPU, and only once its packet reaches
 * the head of the queue — not while the work before it still runs.
 */
Test(scheduling, xad_16_xad_17_kernel_mode_signal_is_applied_by_the_os_after_the_work_before_it)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle fence = 0, global = 0;
	struct fsr_cmdbuf *cmdbuf = NULL;
	bool has_run = true;
	bool was_running = false;
	int steps = 0;
	size_t seen = 0;
	size_t in_flight = 0;

	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, 0, &fence, &global), FSR_OK);
	fst_tap_start();
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 5000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 7), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	while (has_run && fst_fence_value(fx.process, fence) < 7 && steps++ < 10000) {
		for (; seen < fst_tap_event_count(); seen++) {
			const char *name = fst_tap_event(seen)->name;

			if (strcmp(name, "fencescope_os:packet_queued") == 0)
				in_flight++;
			else if (strcmp(name, "fencescope_os:packet_complete") == 0)
				in_flight--;
		}
		if (in_flight > 0) {
			was_running = true;
			cr_assert_eq(fst_fence_value(fx.process, fence), 0,
				     "XAD-16: applied while the work before it runs");
		}
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
	}
	fst_run_until_idle();
	cr_expect(was_running, "the work was seen in flight");
	cr_expect_eq(fst_fence_value(fx.process, fence), 7);
	cr_expect_eq(fst_tap_count(0, "fencescope_os:km_fence_signal_executed", -1, 0), 1,
		     "XAD-17: the OS's software signal");
	/* update_current_value: adapter, fence global handle, value, notification only */
	cr_expect_eq(fst_tap_count(0, "fencescope_kmd:update_current_value", 1, global), 1,
		     "XAD-17: applied from the CPU");
	/* fence_value_write: adapter, engine, queue, fence global handle, ... */
	cr_expect_eq(fst_tap_count(0, "fencescope_hw:fence_value_write", 3, global), 0,
		     "XAD-17: no GPU write of the fence");
}
