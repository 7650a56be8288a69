/* SPDX-License-Identifier: MIT */
/*
 * Preemption and context scheduling attributes (spec 002 PRE-01..PRE-12, spec 003 PRE-15;
 * docs/runtime.md "Scheduling and preemption as built"), in sim mode on the fixture. Each test
 * reads what happened from the event tap: fencescope_os:preempt_request, then the GPU's
 * packet_end PREEMPTED and preempt_complete (granularity reached, work left), and the OS's
 * resubmission of what was left (packet_queued with resubmission_of).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "runtime-fixture.h"

#define LONG_TICKS 100000u /* 1 ms at the fixture's 100 MHz */

/*
 * A test's own configuration. Criterion runs the suite's .init even for a test that says
 * `.init = NULL`: tear that runtime down first, or it leaks (LeakSanitizer, scripts/test).
 */
static void
setup_own(const struct fsr_runtime_config *runtime_config,
	  const struct fsr_adapter_config *adapter_config)
{
	if (fx.runtime)
		fst_rt_teardown();
	fst_rt_setup_with(runtime_config, adapter_config);
}

static void
setup_with_granularity(enum fsr_preempt_granularity graphics)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.graphics_preempt_granularity[0] = graphics;
	setup_own(&runtime_config, &adapter_config);
}

/* The index of the n-th (0-based) event `name` from `from` on, or SIZE_MAX. */
static size_t
find_event(size_t from, const char *name, size_t n)
{
	for (size_t i = from; i < fst_tap_event_count(); i++)
		if (strcmp(fst_tap_event(i)->name, name) == 0 && n-- == 0)
			return i;
	return SIZE_MAX;
}

/* The index of the first event `name` whose field `field` is `value`, from `from` on. */
static size_t
find_with(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < fst_tap_event_count(); i++)
		if (strcmp(fst_tap_event(i)->name, name) == 0 &&
		    fst_tap_event(i)->fields[field] == value)
			return i;
	return SIZE_MAX;
}

static const struct fst_event *
event(size_t from, const char *name, size_t n)
{
	size_t index = find_event(from, name, n);

	cr_assert_neq(index, SIZE_MAX, "no %s #%zu", name, n);
	return fst_tap_event(index);
}

static uint64_t
request(uint32_t engine_id, int reason)
{
	uint64_t request_id = 0;

	cr_assert_eq(
	    fsr_test_preempt_request(fx.runtime, fx.adapter_id, engine_id, reason, &request_id),
	    FSR_OK);
	cr_assert_neq(request_id, 0);
	return request_id;
}

/* Runs until the engine has been busy with the fixture's first packet for `ns`. */
static void
run_for(uint64_t ns)
{
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + ns),
		     FSR_OK);
}

TestSuite(context_schedule, .init = fst_rt_setup, .fini = fst_rt_teardown);

/* PRE-15: every context starts at priority 16, no time slice, told after context_create. */
Test(context_schedule, pre_15_context_schedule_at_creation_and_on_change)
{
	fsr_handle context;
	const struct fst_event *e;
	size_t create;

	fst_tap_start();
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 1, &context), FSR_OK);
	create = find_event(0, "fencescope_os:context_create", 0);
	cr_assert_neq(create, SIZE_MAX);
	cr_assert_eq(find_event(0, "fencescope_os:context_schedule", 0), create + 1);
	e = event(0, "fencescope_os:context_schedule", 0);
	cr_assert_eq(e->fields[2], context);
	cr_assert_eq(e->fields[3], 1);
	cr_assert_eq(e->fields[4], FSR_DEFAULT_CONTEXT_PRIORITY);
	cr_assert_eq(e->fields[5], 0);

	cr_assert_eq(fsr_context_set_scheduling(fx.process, context, 31, 250000), FSR_OK);
	e = event(0, "fencescope_os:context_schedule", 1);
	cr_assert_eq(e->fields[2], context);
	cr_assert_eq(e->fields[4], 31);
	cr_assert_eq(e->fields[5], 250000);

	cr_assert_eq(fsr_context_set_scheduling(fx.process, context, 32, 0),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:context_schedule", -1, 0), 2);
	cr_assert_eq(fsr_context_set_scheduling(fx.process, 0xdead, 1, 0), FSR_ERR_INVALID_HANDLE);
}

TestSuite(preempt, .init = fst_rt_setup, .fini = fst_rt_teardown);

/* An engine that runs nothing completes a request at once: NONE, nothing left. */
Test(preempt, idle_engine_completes_at_once)
{
	uint64_t id;
	const struct fst_event *e;

	fst_tap_start();
	id = request(0, 1 /* PRIORITY */);
	e = event(0, "fencescope_os:preempt_request", 0);
	cr_assert_eq(e->fields[2], 0, "nothing runs: no context");
	cr_assert_eq(e->fields[3], id);
	cr_assert_eq(e->fields[4], 1);
	fst_run_until_idle();
	e = event(0, "fencescope_hw:preempt_complete", 0);
	cr_assert_eq(e->fields[3], id);
	cr_assert_eq(e->fields[5], 0 /* NONE */);
	cr_assert_eq(e->fields[7], 0);
	cr_assert(find_event(0, "fencescope_os:preempt_request", 0) <
		  find_event(0, "fencescope_hw:preempt_complete", 0));
	cr_assert_eq(fst_tap_count(0, "fencescope_os:interrupt_handled", 2, 5 /* DMA_PREEMPTED */),
		     1);
	cr_assert(fsr_test_preempt_completed(fx.runtime, fx.adapter_id, 0, id));
}

/*
 * PRE-01, PRE-03, PRE-09 (kernel mode): a long DMA packet — the KMD has no way to mark one
 * non-preemptible — stops mid-way at the finest boundary (SHADER by default), ends PREEMPTED with
 * the work left, and its remainder is resubmitted under a new packet id naming the old one, with
 * a new fence id (PRE-07); the buffer's progress then completes once.
 */
Test(preempt, pre_01_pre_07_pre_09_dma_packet_resumes_with_its_remaining_work)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	uint64_t value;
	uint64_t id;
	const struct fst_event *queued;
	const struct fst_event *done;
	const struct fst_event *end;
	const struct fst_event *requeued;

	fst_tap_start();
	value = fst_submit_work(fx.process, queue, LONG_TICKS);
	run_for(400000); /* 40000 ticks done */
	cr_assert(!fsr_test_preempt_completed(fx.runtime, fx.adapter_id, 0, 1));
	id = request(0, 1);
	cr_assert_eq(event(0, "fencescope_os:preempt_request", 0)->fields[2], fx.context_3d);
	fst_run_until_idle();
	queued = event(0, "fencescope_os:packet_queued", 0);
	done = event(0, "fencescope_hw:preempt_complete", 0);
	cr_assert_eq(done->fields[2], fx.context_3d);
	cr_assert_eq(done->fields[3], id);
	cr_assert_eq(done->fields[4], queued->fields[3]);
	cr_assert_eq(done->fields[5], 500 /* SHADER_BOUNDARY */);
	cr_assert_gt(done->fields[7], 0);
	cr_assert_lt(done->fields[7], LONG_TICKS);
	end = event(0, "fencescope_hw:packet_end", 0);
	cr_assert_eq(end->fields[3], queued->fields[3]);
	cr_assert_eq(end->fields[6], 1 /* PREEMPTED */);
	requeued = event(0, "fencescope_os:packet_queued", 1);
	cr_assert_eq(requeued->fields[4], queued->fields[3], "resubmission_of the preempted one");
	cr_assert_neq(requeued->fields[3], queued->fields[3]);
	cr_assert_gt(requeued->fields[6], queued->fields[6], "PRE-07: a new fence id");
	end = event(0, "fencescope_hw:packet_end", 1);
	cr_assert_eq(end->fields[3], requeued->fields[3]);
	cr_assert_eq(end->fields[6], 0 /* COMPLETED */);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:packet_complete", -1, 0), 1);
	cr_assert_eq(fst_last_completed(fx.process, queue), value);
	cr_assert(fsr_test_preempt_completed(fx.runtime, fx.adapter_id, 0, id));
}

/* PRE-03: the work stops only at a boundary of the declared granularity (primitives: 4096). */
Test(preempt, pre_03_stops_only_at_a_boundary_of_its_granularity, .init = NULL,
     .fini = fst_rt_teardown)
{
	fsr_handle queue;
	const struct fst_event *done;
	uint64_t id;

	setup_with_granularity(FSR_PREEMPT_PRIMITIVE_OR_DISPATCH_BOUNDARY);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fst_tap_start();
	fst_submit_work(fx.process, queue, LONG_TICKS);
	run_for(123450); /* 12345 ticks: the next primitive boundary is 16384 */
	id = request(0, 0);
	fst_run_until_idle();
	done = event(0, "fencescope_hw:preempt_complete", 0);
	cr_assert_eq(done->fields[3], id);
	cr_assert_eq(done->fields[5], 200 /* PRIMITIVE_OR_DISPATCH_BOUNDARY */);
	cr_assert_eq((LONG_TICKS - done->fields[7]) % 4096, 0, "stopped after %lu ticks",
		     (unsigned long) (LONG_TICKS - done->fields[7]));
	cr_assert_eq(LONG_TICKS - done->fields[7], 16384);
}

/* A copy engine stops only between DMA buffers: the packet completes, then the request. */
Test(preempt, copy_engine_stops_at_the_dma_buffer_boundary)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_copy, FSR_SUBMIT_KERNEL_MODE);
	const struct fst_event *done;

	fst_tap_start();
	fst_submit_work(fx.process, queue, LONG_TICKS);
	run_for(100000);
	request(2, 0);
	fst_run_until_idle();
	done = event(0, "fencescope_hw:preempt_complete", 0);
	cr_assert_eq(done->fields[5], 100 /* DMA_BUFFER_BOUNDARY */);
	cr_assert_eq(done->fields[7], 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, 1 /* PREEMPTED */), 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:packet_queued", -1, 0), 1);
	cr_assert(find_event(0, "fencescope_hw:packet_end", 0) <
		  find_event(0, "fencescope_hw:preempt_complete", 0));
}

/*
 * PRE-09 (user mode): a ring's work item stops, the context's state is saved, and the ring
 * resumes it later with what was left; what follows it (the signal, the progress write) runs
 * once.
 */
Test(preempt, pre_09_ring_work_resumes_at_its_saved_point)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	const struct fst_event *done;
	uint64_t value;

	fst_tap_start();
	value = fst_submit_work(fx.process, queue, LONG_TICKS);
	fst_submit_signal(fx.process, queue, fence, 7);
	run_for(300000);
	request(0, 0);
	fst_run_until_idle();
	done = event(0, "fencescope_hw:preempt_complete", 0);
	cr_assert_eq(done->fields[2], fx.context_3d);
	cr_assert_gt(done->fields[7], 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, 1 /* PREEMPTED */), 1);
	/* the preempted buffer starts again, and every buffer ends once COMPLETED */
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_start", 3, done->fields[4]), 2);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, 0 /* COMPLETED */), 2);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:fence_value_write", 3,
				   fst_borrow_queue(queue)->progress_fence->global_handle),
		     2);
	cr_assert_eq(fst_fence_value(fx.process, fence), 7);
	cr_assert_eq(fst_last_completed(fx.process, queue), value + 1);
	/* It resumed with what was left, not from the start: resume to end = work left. */
	{
		size_t resumed = find_with(find_event(0, "fencescope_hw:packet_end", 0),
					   "fencescope_hw:packet_start", 3, done->fields[4]);
		size_t ended = find_with(resumed, "fencescope_hw:packet_end", 3, done->fields[4]);
		uint64_t took;

		cr_assert_neq(resumed, SIZE_MAX);
		cr_assert_neq(ended, SIZE_MAX);
		took = fst_tap_event(ended)->fields[5] - fst_tap_event(resumed)->fields[5];
		cr_assert(took >= done->fields[7] && took <= done->fields[7] + 16,
			  "resumed for %llu ticks, %llu were left", (unsigned long long) took,
			  (unsigned long long) done->fields[7]);
	}
}

/*
 * PRE-04: the KMD asks for the finest granularity the engine declared (engine_describe): pixel
 * boundaries (16 ticks) on a 3D engine that declares them, the compute one on a compute engine.
 */
Test(preempt, pre_04_kmd_requests_the_finest_declared_granularity, .init = NULL,
     .fini = fst_rt_teardown)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	fsr_handle queue_3d;
	fsr_handle queue_compute;
	const struct dxgk_engine_caps *caps;
	const struct fst_event *e;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.graphics_preempt_granularity[0] = FSR_PREEMPT_PIXEL_OR_THREAD_BOUNDARY;
	adapter_config.compute_preempt_granularity[0] = FSR_PREEMPT_DMA_BUFFER_BOUNDARY;
	adapter_config.graphics_preempt_granularity[1] = FSR_PREEMPT_DMA_BUFFER_BOUNDARY;
	adapter_config.compute_preempt_granularity[1] =
	    FSR_PREEMPT_TRIANGLE_OR_THREAD_GROUP_BOUNDARY;
	setup_own(&runtime_config, &adapter_config);
	/* What the OS learnt from DxgkDdiDescribeEngine (engine_describe's fields). */
	caps = fx.runtime->adapters[fx.adapter_id]->engine_caps;
	cr_assert_eq(caps[0].graphics_preempt_granularity, 400);
	cr_assert_eq(caps[0].compute_preempt_granularity, 100);
	cr_assert(caps[0].is_preemption_aware, "preemption aware by default");
	cr_assert_eq(caps[2].graphics_preempt_granularity, 100, "copy: DMA buffer boundary");
	cr_assert_eq(caps[2].compute_preempt_granularity, 100);
	fst_tap_start();

	queue_3d = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	queue_compute = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	fst_submit_work(fx.process, queue_3d, LONG_TICKS);
	fst_submit_work(fx.process, queue_compute, LONG_TICKS);
	run_for(100085); /* 10008.5 ticks */
	request(0, 0);
	request(1, 0);
	fst_run_until_idle();
	e = event(0, "fencescope_hw:preempt_complete", 0);
	cr_assert_eq(e->fields[1], 0);
	cr_assert_eq(e->fields[5], 400 /* PIXEL_OR_THREAD_BOUNDARY */);
	cr_assert_eq(LONG_TICKS - e->fields[7], 10016);
	e = event(0, "fencescope_hw:preempt_complete", 1);
	cr_assert_eq(e->fields[1], 1);
	cr_assert_eq(e->fields[5], 300 /* TRIANGLE_OR_THREAD_GROUP_BOUNDARY */);
	cr_assert_eq(LONG_TICKS - e->fields[7], 10240);
}

/*
 * PRE-12: a ring blocked on a GPU wait whose condition does not hold yet is preempted at once:
 * the request completes before the fence is signalled; the wait and the work behind it run
 * once the signal comes.
 */
Test(preempt, pre_12_gpu_wait_is_preempted_before_its_condition_holds)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t value;
	uint64_t id;

	fst_tap_start();
	fst_submit_wait(fx.process, queue, fence, 5);
	value = fst_submit_work(fx.process, queue, 1000);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:gpu_wait_begin", -1, 0), 1);
	id = request(0, 1);
	fst_run_until_idle();
	cr_assert(fsr_test_preempt_completed(fx.runtime, fx.adapter_id, 0, id));
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:gpu_wait_end", -1, 0), 0,
		     "preempted before its condition holds");
	cr_assert_lt(fst_last_completed(fx.process, queue), value);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 5), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:gpu_wait_end", -1, 0), 1);
	cr_assert_eq(fst_last_completed(fx.process, queue), value);
}

/* ---- the scheduler (PRE-15) and PreemptionAware = 0 (PRE-08) ------------------------------ */

TestSuite(sched, .init = fst_rt_setup, .fini = fst_rt_teardown);

static fsr_handle
context_on(uint32_t engine_id, uint32_t priority, uint64_t time_slice_ns)
{
	fsr_handle context;

	cr_assert_eq(fsr_context_create(fx.process, fx.device, engine_id, &context), FSR_OK);
	cr_assert_eq(fsr_context_set_scheduling(fx.process, context, priority, time_slice_ns),
		     FSR_OK);
	return context;
}

/*
 * PRE-15: a higher-priority context that gets work preempts the lower one running (reason
 * PRIORITY), runs first, and the lower one resumes after it: kernel mode, then user mode (the
 * OS sees the ring's work on its scheduling timer).
 */
static void
higher_priority_preempts(enum fsr_submission_mode mode)
{
	fsr_handle low = context_on(0, 4, 0);
	fsr_handle high = context_on(0, 28, 0);
	fsr_handle low_queue = fst_queue_new(fx.process, low, mode);
	fsr_handle high_queue = fst_queue_new(fx.process, high, mode);
	uint64_t low_value;
	uint64_t high_value;
	size_t request;
	size_t high_end;
	size_t low_end;

	fst_tap_start();
	low_value = fst_submit_work(fx.process, low_queue, LONG_TICKS);
	run_for(200000);
	high_value = fst_submit_work(fx.process, high_queue, 1000);
	fst_run_until_idle();
	request = find_with(0, "fencescope_os:preempt_request", 4, 1 /* PRIORITY */);
	cr_assert_neq(request, SIZE_MAX, "no PRIORITY request");
	cr_assert_eq(fst_tap_event(request)->fields[2], low, "it names the running context");
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, 1 /* PREEMPTED */), 1);
	high_end = find_with(0, "fencescope_hw:packet_end", 2, high_queue);
	low_end = find_with(0, "fencescope_hw:packet_end", 6, 0 /* COMPLETED */);
	cr_assert_neq(high_end, SIZE_MAX);
	cr_assert_eq(low_end, high_end, "the high-priority work ends first");
	cr_assert_eq(fst_last_completed(fx.process, high_queue), high_value);
	cr_assert_eq(fst_last_completed(fx.process, low_queue), low_value);
}

Test(sched, pre_15_higher_priority_preempts_lower_kernel_mode)
{
	higher_priority_preempts(FSR_SUBMIT_KERNEL_MODE);
}

Test(sched, pre_15_higher_priority_preempts_lower_ring)
{
	higher_priority_preempts(FSR_SUBMIT_USER_MODE);
}

/* PRE-15: equal priorities with work share the engine in time slices (reason TIME_SLICE). */
Test(sched, pre_15_equal_priorities_share_the_engine_in_time_slices)
{
	fsr_handle a = context_on(0, 16, 100000);
	fsr_handle b = context_on(0, 16, 100000);
	fsr_handle queue_a = fst_queue_new(fx.process, a, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle queue_b = fst_queue_new(fx.process, b, FSR_SUBMIT_USER_MODE);
	uint64_t value_a;
	uint64_t value_b;
	size_t slices;
	size_t starts_a;
	size_t starts_b;

	fst_tap_start();
	value_a = fst_submit_work(fx.process, queue_a, LONG_TICKS);
	value_b = fst_submit_work(fx.process, queue_b, LONG_TICKS);
	fst_run_until_idle();
	slices = fst_tap_count(0, "fencescope_os:preempt_request", 4, 0 /* TIME_SLICE */);
	starts_a = fst_tap_count(0, "fencescope_hw:packet_start", 2, queue_a);
	starts_b = fst_tap_count(0, "fencescope_hw:packet_start", 2, queue_b);
	/* 2 ms of work in 100 us slices: some 20 slices, each context started again and again. */
	cr_assert_geq(slices, 10, "%zu time slices", slices);
	cr_assert_geq(starts_a, 5);
	cr_assert_geq(starts_b, 5);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:preempt_request", 4, 1 /* PRIORITY */), 0);
	cr_assert_eq(fst_last_completed(fx.process, queue_a), value_a);
	cr_assert_eq(fst_last_completed(fx.process, queue_b), value_b);
}

/* PRE-15: a suspended context takes no part: its work does not preempt a lower priority. */
Test(sched, pre_15_a_suspended_context_takes_no_part)
{
	fsr_handle low = context_on(0, 4, 0);
	fsr_handle high = context_on(0, 28, 0);
	fsr_handle low_queue = fst_queue_new(fx.process, low, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle high_queue = fst_queue_new(fx.process, high, FSR_SUBMIT_USER_MODE);

	fst_tap_start();
	cr_assert_eq(fsr_context_suspend(fx.process, high), FSR_OK);
	fst_submit_work(fx.process, low_queue, LONG_TICKS);
	run_for(200000);
	fst_submit_work(fx.process, high_queue, 1000);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_os:preempt_request", -1, 0), 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 6, 1 /* PREEMPTED */), 0);
	cr_assert_eq(fsr_context_resume(fx.process, high), FSR_OK);
	fst_run_until_idle();
}

/*
 * PRE-08: a command buffer split into two DMA packets (two work items). Preemption aware,
 * another context's packet runs between them; PreemptionAware = 0, they run back to back in
 * the same context and the other packet after them.
 */
static void
split_packets(bool is_unaware, fsr_handle *queue_a, fsr_handle *queue_b)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	struct fsr_cmdbuf *cmdbuf;
	fsr_handle context_b;
	uint64_t value;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.preemption_unaware = is_unaware;
	setup_own(&runtime_config, &adapter_config);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &context_b), FSR_OK);
	*queue_a = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	*queue_b = fst_queue_new(fx.process, context_b, FSR_SUBMIT_KERNEL_MODE);
	fst_tap_start();
	cr_assert_eq(fsr_cmdbuf_create(fx.process, *queue_a, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 10000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 10000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &value), FSR_OK);
	run_for(50000);
	fst_submit_work(fx.process, *queue_b, 10000);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, *queue_a), value);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_start", 2, *queue_a), 2);
}

Test(sched, pre_08_aware_runs_another_context_between_split_packets, .init = NULL,
     .fini = fst_rt_teardown)
{
	fsr_handle a, b;

	split_packets(false, &a, &b);
	cr_assert_eq(fst_tap_event(find_event(0, "fencescope_hw:packet_start", 1))->fields[2], b,
		     "the other context's packet runs between the two");
}

Test(sched, pre_08_unaware_runs_split_packets_back_to_back, .init = NULL, .fini = fst_rt_teardown)
{
	fsr_handle a, b;

	split_packets(true, &a, &b);
	cr_assert(!fx.runtime->adapters[fx.adapter_id]->engine_caps[0].is_preemption_aware);
	cr_assert_eq(fst_tap_event(find_event(0, "fencescope_hw:packet_start", 1))->fields[2], a,
		     "the second split packet runs right after the first");
	cr_assert_eq(fst_tap_event(find_event(0, "fencescope_hw:packet_start", 2))->fields[2], b);
}

/* ---- paging packets and context allocations (PRE-06, PRE-14) ------------------------------ */

static void
setup_with_context_allocations(uint64_t bytes)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.context_allocation_bytes = bytes;
	setup_own(&runtime_config, &adapter_config);
}

/*
 * PRE-14: a new context gets its context allocation, initialized by a paging packet on its
 * engine (InitContextResource); the allocation goes with the context.
 */
Test(paging, pre_14_context_allocation_is_initialized_by_a_paging_packet, .init = NULL,
     .fini = fst_rt_teardown)
{
	fsr_handle context;
	size_t create;
	size_t queued;

	setup_with_context_allocations(65536);
	fst_run_until_idle();
	fst_tap_start();
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 1, &context), FSR_OK);
	create = find_event(0, "fencescope_os:allocation_create", 0);
	cr_assert_neq(create, SIZE_MAX);
	cr_assert_eq(fst_tap_event(create)->fields[3], 65536);
	queued = find_with(0, "fencescope_os:packet_queued", 5, 1 /* is_paging */);
	cr_assert_neq(queued, SIZE_MAX);
	cr_assert_eq(fst_tap_event(queued)->fields[1], 1, "on the context's engine");
	fst_run_until_idle();
	cr_assert_eq(
	    fst_tap_count(0, "fencescope_hw:packet_end", 3, fst_tap_event(queued)->fields[3]), 1);
	cr_assert_eq(fsr_context_destroy(fx.process, context), FSR_OK);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:allocation_destroy", 1,
				   fst_tap_event(create)->fields[2]),
		     1);
}

/*
 * PRE-06: a preempted paging packet is resubmitted with the fence id it had (PRE-07: not a new
 * one) and runs before any other packet on its engine — here a kernel-mode packet that was
 * waiting behind it; nothing of it runs twice.
 */
Test(paging, pre_06_preempted_paging_packet_keeps_its_fence_id_and_runs_first, .init = NULL,
     .fini = fst_rt_teardown)
{
	fsr_handle queue;
	fsr_handle context;
	size_t queued;
	size_t end;
	size_t requeued;
	size_t next_start;

	setup_with_context_allocations(16 * LONG_TICKS);
	fst_run_until_idle();
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fst_tap_start();
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &context), FSR_OK);
	fst_submit_work(fx.process, queue, 1000);
	queued = find_with(0, "fencescope_os:packet_queued", 5, 1);
	cr_assert_neq(queued, SIZE_MAX);
	run_for(300000);
	request(0, 2 /* SUSPEND */);
	fst_run_until_idle();
	end = find_with(0, "fencescope_hw:packet_end", 6, 1 /* PREEMPTED */);
	cr_assert_neq(end, SIZE_MAX, "the paging packet was preempted");
	cr_assert_eq(fst_tap_event(end)->fields[3], fst_tap_event(queued)->fields[3]);
	requeued = find_with(0, "fencescope_os:packet_queued", 4, fst_tap_event(queued)->fields[3]);
	cr_assert_neq(requeued, SIZE_MAX, "resubmitted");
	cr_assert_eq(fst_tap_event(requeued)->fields[5], 1, "still a paging packet");
	cr_assert_eq(fst_tap_event(requeued)->fields[6], fst_tap_event(queued)->fields[6],
		     "PRE-06: its original fence id");
	next_start = find_event(end, "fencescope_hw:packet_start", 0);
	cr_assert_neq(next_start, SIZE_MAX);
	cr_assert_eq(fst_tap_event(next_start)->fields[3], fst_tap_event(requeued)->fields[3],
		     "the paging remainder runs before the waiting kernel-mode packet");
	cr_assert_eq(
	    fst_tap_count(0, "fencescope_hw:packet_end", 3, fst_tap_event(requeued)->fields[3]), 1);
}

/*
 * PRE-05: with lazy context switching, a context switch is a zero-length packet of the new
 * context, queued before its first packet after another context's: A, B, B, A -> three
 * switches (the first packet too), none between B's two.
 */
Test(sched, pre_05_lazy_context_switch_is_a_zero_length_packet, .init = NULL,
     .fini = fst_rt_teardown)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	fsr_handle context_b;
	fsr_handle a, b;
	size_t first;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.lazy_context_switch = true;
	setup_own(&runtime_config, &adapter_config);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &context_b), FSR_OK);
	a = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	b = fst_queue_new(fx.process, context_b, FSR_SUBMIT_KERNEL_MODE);
	fst_tap_start();
	fst_submit_work(fx.process, a, 1000);
	fst_run_until_idle();
	fst_submit_work(fx.process, b, 1000);
	fst_submit_work(fx.process, b, 1000);
	fst_run_until_idle();
	fst_submit_work(fx.process, a, 1000);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_os:packet_queued", 7, 1 /* is_context_switch */),
		     3);
	first = find_with(0, "fencescope_os:packet_queued", 7, 1);
	cr_assert_eq(fst_tap_event(first)->fields[2], a);
	cr_assert_eq(fst_tap_event(first + 1)->fields[7], 0, "then the packet itself");
	cr_assert_eq(fst_tap_count(0, "fencescope_os:packet_queued", 2, b), 3, "one switch");
	cr_assert_eq(fst_last_completed(fx.process, a), 2);
	cr_assert_eq(fst_last_completed(fx.process, b), 2);
}

/*
 * PRE-15, PRE-12: a watched scheduler does not keep a sim run busy for a ring blocked on a wait
 * that only the CPU will satisfy: the run goes idle, and the work runs once signalled.
 */
Test(sched, pre_12_pre_15_a_blocked_ring_lets_the_run_go_idle)
{
	fsr_handle high = context_on(0, 28, 100000);
	fsr_handle queue = fst_queue_new(fx.process, high, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t value;

	fst_submit_wait(fx.process, queue, fence, 1);
	value = fst_submit_work(fx.process, queue, 1000);
	fst_run_until_idle();
	cr_assert_lt(fst_last_completed(fx.process, queue), value);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 1), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), value);
}

/* One run of time slices and a priority preemption on the fixture; its trace hash. */
static uint64_t
scheduled_run_hash(void)
{
	fsr_handle a, b, high;
	fsr_handle queue_a, queue_b, queue_high;
	uint64_t hash;

	fst_rt_setup();
	a = context_on(0, 16, 50000);
	b = context_on(0, 16, 50000);
	high = context_on(0, 30, 0);
	queue_a = fst_queue_new(fx.process, a, FSR_SUBMIT_KERNEL_MODE);
	queue_b = fst_queue_new(fx.process, b, FSR_SUBMIT_USER_MODE);
	queue_high = fst_queue_new(fx.process, high, FSR_SUBMIT_USER_MODE);
	fst_submit_work(fx.process, queue_a, LONG_TICKS);
	fst_submit_work(fx.process, queue_b, LONG_TICKS);
	run_for(333333);
	fst_submit_work(fx.process, queue_high, 5000);
	fst_run_until_idle();
	hash = fst_stats().trace_hash;
	fst_rt_teardown();
	return hash;
}

/* PRE-15: sim mode stays deterministic with the scheduler's timer, slices and preemptions. */
Test(determinism, pre_15_scheduled_runs_are_reproducible)
{
	cr_assert_eq(scheduled_run_hash(), scheduled_run_hash());
}
