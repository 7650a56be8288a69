/* SPDX-License-Identifier: MIT */
/*
 * Conformance: a driver's DxgkDdiSuspendContext and DxgkDdiResumeContext (spec 000, SUS-01 to
 * SUS-05, SUS-07), seen through the public API and the event tap only. A dedicated-doorbell GPU
 * with a user-mode queue (with its doorbell) and a kernel-mode queue in the 3D context: while
 * the context is suspended the UMD writes and rings, the kernel-mode queue takes submissions,
 * and the GPU must run, signal and log nothing of either (SUS-01, SUS-03, SUS-07); once resumed,
 * everything written meanwhile must run without a new ring (SUS-04, SUS-05).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"

static fsr_handle um_queue;
static fsr_handle km_queue;
static fsr_handle fence;

static void
setup_suspend(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;

	fsc_config_init(&runtime_config, &config);
	config.doorbell_model = FSR_DOORBELL_DEDICATED;
	config.physical_doorbells = 4;
	fsc_setup_with(&runtime_config, &config);
	um_queue = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
	cr_assert_eq(fsr_doorbell_create(fx.process, um_queue, 0, 0), FSR_OK);
	km_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	/* Both have run once: the doorbell is connected. */
	fst_submit_work(fx.process, um_queue, 10);
	fst_submit_work(fx.process, km_queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, um_queue), 1);
	cr_assert_eq(fst_last_completed(fx.process, km_queue), 1);
}

TestSuite(suspend, .init = setup_suspend, .fini = fsc_teardown);

/* The GPU's events naming a queue (packet_start, packet_end, fence_value_write: field 2). */
static size_t
gpu_events_of(size_t from, fsr_handle queue)
{
	return fsc_count(from, "fencescope_hw:packet_start", 2, queue) +
	       fsc_count(from, "fencescope_hw:packet_end", 2, queue) +
	       fsc_count(from, "fencescope_hw:fence_value_write", 2, queue);
}

Test(suspend, sus_01_sus_03_sus_07_a_suspended_context_runs_nothing_until_resumed)
{
	size_t mark = fsc_event_count();
	size_t resumed;

	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(fsc_count(mark, "fencescope_kmd:context_suspend", 1, fx.context_3d), 1);
	for (uint64_t v = 1; v <= 3; v++) {
		fst_submit_signal(fx.process, um_queue, fence, v);
		fst_submit_work(fx.process, km_queue, 10);
	}
	fst_run_until_idle();
	if (gpu_events_of(mark, um_queue) || gpu_events_of(mark, km_queue))
		fsc_dump_events(mark);
	cr_expect_eq(gpu_events_of(mark, um_queue), 0, "the user-mode queue ran while suspended");
	cr_expect_eq(gpu_events_of(mark, km_queue), 0, "the kernel-mode queue ran while suspended");
	cr_expect_eq(fst_fence_value(fx.process, fence), 0);
	cr_expect_eq(fst_last_completed(fx.process, um_queue), 1);
	cr_expect_eq(fst_last_completed(fx.process, km_queue), 1);

	resumed = fsc_event_count();
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(fsc_count(resumed, "fencescope_kmd:context_resume", 1, fx.context_3d), 1);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, fence), 3);
	cr_expect_eq(fst_last_completed(fx.process, um_queue), 4);
	cr_expect_eq(fst_last_completed(fx.process, km_queue), 4);
}

Test(suspend, sus_05_resume_runs_the_work_queued_during_suspension_without_a_new_ring)
{
	size_t resumed;

	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	for (int i = 0; i < 4; i++)
		fst_submit_work(fx.process, um_queue, 10);
	fst_run_until_idle();
	resumed = fsc_event_count();
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(fsc_count(resumed, "fencescope_umd:doorbell_ring", FSC_ANY, 0), 0);
	cr_expect_eq(fsc_count(resumed, "fencescope_hw:packet_end", 2, um_queue), 4,
		     "the four buffers written while suspended ran after the resume");
	cr_expect_eq(fst_last_completed(fx.process, um_queue), 5);
}
