/* SPDX-License-Identifier: MIT */
/*
 * The fault injector (docs/robustness.md), one sim-mode test per fault kind, each run checked
 * by fault-check.h's invariants — innocent queues progress, nothing runs twice, no fence left
 * unsignalled without a DEVICE_LOST result for its waiters, no wake-up lost — and its
 * accounting (every injected fault has its effect in the events); then the plan's own rules
 * (sim only, validated, nothing changed without a fault) and a short seeded random campaign.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "fault-check.h"
#include "runtime-fixture.h"

static struct fst_fault_check *check;

/* The fixture with `plan`, and the check tapping it from the start. */
static void
setup_plan(const struct fsr_fault_plan *plan, enum fsr_interrupt_form form)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	runtime_config.fault_plan = plan;
	if (form)
		adapter_config.interrupt_form = form;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	check = fst_fault_check_new(fx.runtime);
}

static struct fsr_fault_plan
one_fault(enum fsr_fault_kind kind, uint32_t engine, uint32_t nth, uint64_t parameter)
{
	struct fsr_fault_plan plan = {.count = 1};

	plan.faults[0] = (struct fsr_fault){
	    .kind = kind, .adapter_id = 0, .engine_id = engine, .nth = nth, .parameter = parameter};
	return plan;
}

/* Idle, then every invariant and the accounting; returns the verdict for more checks. */
static struct fst_fault_verdict
verify(void)
{
	struct fst_fault_verdict verdict;

	fst_run_until_idle();
	cr_expect(fst_fault_check_verify(check, &verdict), "invariant broken: %s",
		  verdict.violation);
	return verdict;
}

static void
teardown(void)
{
	fst_fault_check_free(check);
	check = NULL;
	fst_rt_teardown();
}

TestSuite(fault, .fini = teardown);

/* One buffer signalling `fence` to `value`, submitted; returns fsr_cmdbuf_submit's status. */
static fsr_status
try_signal(struct fsr_process *process, fsr_handle queue, fsr_handle fence, uint64_t value)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 100), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, value), FSR_OK);
	return fsr_cmdbuf_submit(cmdbuf, NULL);
}

Test(fault, syn_06_lost_interrupt_waiter_released_at_the_tdr_cadence)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_LOST_INTERRUPT, 0, 1, 0);
	fsr_handle queue, fence;
	uint64_t start;
	struct fst_fault_verdict verdict;

	setup_plan(&plan, 0);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	start = fsr_runtime_now_ns(fx.runtime);
	fst_submit_signal(fx.process, queue, fence, 1);
	/* The signal interrupts for this waiter; the line drops it; the OS's check finds it. */
	cr_assert_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime), start + 1000000,
		      "released by the periodic check, not by the interrupt");
	cr_expect_leq(fsr_runtime_now_ns(fx.runtime), start + FSR_FAULT_RESCAN_PERIOD_NS + 1000000);
	cr_expect_eq(fst_stats().waiters_rescued, 1);
	verdict = verify();
	cr_expect_eq(verdict.injected[FSR_FAULT_LOST_INTERRUPT], 1);
}

Test(fault, syn_06_lost_hwqueue_interrupt_releases_the_progress_waiter)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_LOST_INTERRUPT, 0, 1, 0);
	fsr_handle queue;
	uint64_t progress;

	setup_plan(&plan, FSR_INTERRUPT_HWQUEUE);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	progress = fst_submit_work(fx.process, queue, 1000);
	cr_assert_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
	cr_expect_eq(fst_stats().faults_injected[FSR_FAULT_LOST_INTERRUPT], 1);
	cr_expect_eq(fst_stats().waiters_rescued, 1);
	verify();
}

Test(fault, delayed_interrupt_is_handled_a_millisecond_late_in_order)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_DELAYED_INTERRUPT, 0, 1, 3000000);
	fsr_handle queue, fence;
	uint64_t start;
	struct fst_fault_verdict verdict;

	setup_plan(&plan, 0);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	start = fsr_runtime_now_ns(fx.runtime);
	fst_submit_signal(fx.process, queue, fence, 1);
	cr_assert_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime), start + 3000000, "the line held it 3 ms");
	cr_expect_eq(fst_stats().waiters_rescued, 0, "the interrupt itself released it");
	verdict = verify();
	cr_expect_eq(verdict.accounted[FSR_FAULT_DELAYED_INTERRUPT], 1);
}

Test(fault, int_01_delayed_dma_completed_interrupt_holds_the_kernel_mode_queue)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_DELAYED_INTERRUPT, 1, 1, 0);
	fsr_handle queue;
	uint64_t first, second;

	setup_plan(&plan, 0);
	queue = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	first = fst_submit_work(fx.process, queue, 100);
	second = fst_submit_work(fx.process, queue, 100);
	cr_assert_eq(fsr_hwqueue_wait_progress(fx.process, queue, second, FSR_INFINITE), FSR_OK);
	cr_expect_eq(fst_last_completed(fx.process, queue), second);
	cr_expect_gt(second, first);
	verify();
}

Test(fault, tdr_04_tdr_05_corrupt_packet_faults_its_context_and_spares_the_innocent)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_CORRUPT_PACKET, 0, 2, 0);
	struct fsr_process *innocent;
	fsr_handle innocent_device, innocent_context, innocent_queue, guilty_queue, fence;
	enum fsr_doorbell_status status;
	struct fst_fault_verdict verdict;
	uint64_t last = 0;

	setup_plan(&plan, 0);
	fst_rt_add_process("innocent", &innocent, &innocent_device, &innocent_context);
	guilty_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	innocent_queue = fst_queue_new(innocent, innocent_context, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	/* Work, then a signal: the second buffer's work becomes garbage in the ring. */
	for (uint64_t value = 1; value <= 3; value++)
		cr_assert_eq(try_signal(fx.process, guilty_queue, fence, value), FSR_OK);
	for (int i = 0; i < 4; i++)
		last = fst_submit_work(innocent, innocent_queue, 500);
	/* The waiter of the value the faulted buffer would have written gets DEVICE_LOST. */
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 3, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_ERR_DEVICE_LOST);
	/* Its pending signals are lost: written UINT64_MAX (os_context_error, os/tdr.c). */
	cr_expect_eq(fst_fence_value(fx.process, fence), UINT64_MAX);
	cr_expect_eq(fsr_hwqueue_wait_progress(innocent, innocent_queue, last, FSR_INFINITE),
		     FSR_OK);
	/* TDR-04: the guilty device's doorbells read ABORT; TDR-05: the UMD must re-create. */
	cr_expect_eq(fsr_doorbell_get_status(fx.process, guilty_queue, &status), FSR_OK);
	cr_expect_eq(status, FSR_DOORBELL_DISCONNECTED_ABORT);
	cr_expect_eq(fsr_doorbell_get_status(innocent, innocent_queue, &status), FSR_OK);
	cr_expect_eq(status, FSR_DOORBELL_CONNECTED);
	verdict = verify();
	cr_expect_eq(verdict.accounted[FSR_FAULT_CORRUPT_PACKET], 1);
	cr_expect_eq(verdict.device_lost_waits, 1);
	cr_expect_eq(verdict.state.guilty_queues, 1);
	cr_expect_eq(fsr_hwqueue_destroy(fx.process, guilty_queue), FSR_OK, "abandoned, no wait");
}

Test(fault, trm_03_process_killed_between_ring_write_and_doorbell)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_PROCESS_KILLED, 0, 2, 0);
	struct fsr_process *victim;
	fsr_handle victim_device, victim_context, victim_queue, queue, fence, victim_fence;
	struct fst_fault_verdict verdict;
	uint64_t last;

	setup_plan(&plan, 0);
	fst_rt_add_process("victim", &victim, &victim_device, &victim_context);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	/* The fixture's process submits once (the first opportunity), the victim next. */
	fst_submit_signal(fx.process, queue, fence, 1);
	victim_queue = fst_queue_new(victim, victim_context, FSR_SUBMIT_USER_MODE);
	victim_fence = fst_fence_new(victim, victim_device, 0);
	cr_assert_eq(try_signal(victim, victim_queue, victim_fence, 1), FSR_ERR_DESTROYED);
	/* The husk answers nothing; only fsr_process_terminate takes it. */
	cr_expect_eq(try_signal(fx.process, queue, fence, 2), FSR_OK);
	last = fst_submit_signal(fx.process, queue, fence, 3);
	cr_assert_eq(fsr_hwqueue_wait_progress(fx.process, queue, last, FSR_INFINITE), FSR_OK);
	verdict = verify();
	cr_expect_eq(verdict.injected[FSR_FAULT_PROCESS_KILLED], 1);
	cr_expect_eq(verdict.accounted[FSR_FAULT_PROCESS_KILLED], 1);
	cr_expect_eq(fsr_process_terminate(victim, false), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, fence), 3);
}

Test(fault, trm_04_process_killed_mid_kernel_mode_submission_abandons_its_work)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_PROCESS_KILLED, 1, 1, 0);
	struct fsr_process *victim;
	fsr_handle victim_device, victim_context, victim_queue, victim_fence, queue, fence;
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t last;

	setup_plan(&plan, 0);
	fst_rt_add_process("victim", &victim, &victim_device, &victim_context);
	cr_assert_eq(fsr_context_create(victim, victim_device, 1, &victim_context), FSR_OK);
	victim_queue = fst_queue_new(victim, victim_context, FSR_SUBMIT_KERNEL_MODE);
	victim_fence = fst_fence_new(victim, victim_device, 0);
	cr_assert_eq(fsr_cmdbuf_create(victim, victim_queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, victim_fence, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_ERR_DESTROYED);
	queue = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	last = fst_submit_signal(fx.process, queue, fence, 7);
	cr_assert_eq(fsr_hwqueue_wait_progress(fx.process, queue, last, FSR_INFINITE), FSR_OK);
	verify();
	cr_expect_eq(fsr_process_terminate(victim, true), FSR_OK);
}

Test(fault, log_17_log_18_overrun_storm_is_reported_and_waiters_still_released)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_LOG_OVERRUN_STORM, 0, 2, 2);
	fsr_handle queue, fence;
	struct fst_fault_verdict verdict;
	struct fsr_runtime_stats stats;

	setup_plan(&plan, FSR_INTERRUPT_HWQUEUE);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	for (uint64_t value = 1; value <= 4; value++)
		fst_submit_signal(fx.process, queue, fence, value);
	cr_assert_eq(fsr_fence_wait_cpu(fx.process, fence, 4, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	verdict = verify();
	stats = fst_stats();
	cr_expect_gt(stats.log_entries_lost, 0);
	cr_expect_gt(stats.fences_scanned, 0, "LOG-18: the fallback scan");
	cr_expect_eq(verdict.accounted[FSR_FAULT_LOG_OVERRUN_STORM], 1);
}

Test(fault, plan_is_refused_in_realtime_and_when_malformed)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME};
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_LOST_INTERRUPT, 0, 1, 0);
	struct fsr_runtime *runtime = NULL;

	config.fault_plan = &plan;
	cr_expect_eq(fsr_runtime_create(&config, &runtime), FSR_ERR_NOT_SUPPORTED);
	cr_expect_null(runtime);
	config.clock_mode = FSR_CLOCK_SIM;
	plan.faults[0].kind = (enum fsr_fault_kind) 9;
	cr_expect_eq(fsr_runtime_create(&config, &runtime), FSR_ERR_INVALID_ARGUMENT);
	plan = one_fault(FSR_FAULT_DELAYED_INTERRUPT, 0, 1, 1000);
	cr_expect_eq(fsr_runtime_create(&config, &runtime), FSR_ERR_INVALID_ARGUMENT,
		     "a delay below 1 ms");
	plan = one_fault(FSR_FAULT_LOST_INTERRUPT, 0, 1, 0);
	plan.random_seed = 1;
	plan.random_ppm[FSR_FAULT_CORRUPT_PACKET] = 1000001;
	cr_expect_eq(fsr_runtime_create(&config, &runtime), FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_fault_kind_from_name("lost-interrupt"), FSR_FAULT_LOST_INTERRUPT);
	cr_expect_str_eq(fsr_fault_kind_name(FSR_FAULT_LOG_OVERRUN_STORM), "LOG_OVERRUN_STORM");
}

/* A small workload; returns its trace hash. */
static uint64_t
hash_of_run(const struct fsr_fault_plan *plan)
{
	fsr_handle queue, fence;
	uint64_t hash;

	setup_plan(plan, 0);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	for (uint64_t value = 1; value <= 5; value++) {
		fst_submit_signal(fx.process, queue, fence, value);
		cr_assert_eq(
		    fsr_fence_wait_cpu(fx.process, fence, value, FSR_INFINITE, FSR_WAIT_BLOCKING),
		    FSR_OK);
	}
	fst_run_until_idle();
	hash = fst_stats().trace_hash;
	teardown();
	return hash;
}

Test(fault, a_plan_that_never_fires_changes_nothing)
{
	struct fsr_fault_plan never = one_fault(FSR_FAULT_CORRUPT_PACKET, 0, 1000, 0);
	struct fsr_fault_plan lost = one_fault(FSR_FAULT_LOST_INTERRUPT, 0, 2, 0);

	never.random_seed = 42; /* a random plan with no kind enabled draws nothing */
	cr_expect_eq(hash_of_run(NULL), hash_of_run(&never));
	cr_expect_neq(hash_of_run(NULL), hash_of_run(&lost));
	cr_expect_eq(hash_of_run(&lost), hash_of_run(&lost), "same plan, same run");
	setup_plan(NULL, 0); /* for the suite's teardown */
}

Test(fault, tdr_02_tdr_04_hung_engine_recovered_by_tdr_innocent_queue_goes_on)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_HUNG_ENGINE, 0, 1, 0);
	struct fsr_process *innocent;
	fsr_handle innocent_device, innocent_context, innocent_queue, guilty_queue, fence;
	struct fst_fault_verdict verdict;
	uint64_t last = 0;
	uint64_t start;
	fsr_status status;

	setup_plan(&plan, 0);
	fst_rt_add_process("innocent", &innocent, &innocent_device, &innocent_context);
	guilty_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	innocent_queue = fst_queue_new(innocent, innocent_context, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	start = fsr_runtime_now_ns(fx.runtime);
	/* The first work item on the 3D engine hangs: the guilty queue's. */
	cr_assert_eq(try_signal(fx.process, guilty_queue, fence, 1), FSR_OK);
	cr_assert_eq(try_signal(fx.process, guilty_queue, fence, 2), FSR_OK);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, start + 100000), FSR_OK);
	for (int i = 0; i < 3; i++)
		last = fst_submit_work(innocent, innocent_queue, 500);
	status = fsr_fence_wait_cpu(fx.process, fence, 2, FSR_INFINITE, FSR_WAIT_BLOCKING);
	cr_expect_eq(status, FSR_ERR_DEVICE_LOST, "%s", fsr_status_name(status));
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime), start + UINT64_C(2000000000),
		      "TDR-02: not before the delay");
	cr_expect_eq(fsr_hwqueue_wait_progress(innocent, innocent_queue, last, FSR_INFINITE),
		     FSR_OK);
	verdict = verify();
	cr_expect_eq(verdict.injected[FSR_FAULT_HUNG_ENGINE], 1);
	cr_expect_eq(verdict.accounted[FSR_FAULT_HUNG_ENGINE], 1);
}

Test(fault, tdr_01_packet_ignoring_the_tdr_preemption_stops_only_at_its_end)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_IGNORES_PREEMPTION, 0, 1, 0);
	fsr_handle queue;
	struct fst_fault_verdict verdict;
	uint64_t long_one, start;

	setup_plan(&plan, 0);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	start = fsr_runtime_now_ns(fx.runtime);
	/*
	 * 2.05 s of work: no progress for the TDR delay, so the TDR's preemption request comes
	 * (TDR-01), which the engine would answer at its next primitive; the packet ignores it and
	 * ends first, within the request's timeout: no recovery.
	 */
	long_one = fst_submit_work(fx.process, queue, UINT64_C(205000000));
	cr_assert_eq(fsr_hwqueue_wait_progress(fx.process, queue, long_one, FSR_INFINITE), FSR_OK);
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime), start + UINT64_C(2050000000),
		      "it ran to its end");
	verdict = verify();
	cr_expect_eq(verdict.injected[FSR_FAULT_IGNORES_PREEMPTION], 1);
	cr_expect_eq(verdict.accounted[FSR_FAULT_IGNORES_PREEMPTION], 1);
	cr_expect_eq(verdict.state.guilty_queues, 0, "no recovery: nobody in error");
}

Test(fault, pre_03_packet_ignoring_a_priority_preemption_stops_only_at_its_end)
{
	struct fsr_fault_plan plan = one_fault(FSR_FAULT_IGNORES_PREEMPTION, 0, 1, 0);
	struct fsr_process *urgent;
	fsr_handle urgent_device, urgent_context, urgent_queue, queue;
	struct fst_fault_verdict verdict;
	uint64_t long_one, start, urgent_one;

	setup_plan(&plan, 0);
	fst_rt_add_process("urgent", &urgent, &urgent_device, &urgent_context);
	cr_assert_eq(
	    fsr_context_set_scheduling(urgent, urgent_context, FSR_MAX_CONTEXT_PRIORITY, 0),
	    FSR_OK);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	urgent_queue = fst_queue_new(urgent, urgent_context, FSR_SUBMIT_USER_MODE);
	start = fsr_runtime_now_ns(fx.runtime);
	long_one = fst_submit_work(fx.process, queue, 1000000); /* 10 ms at 100 MHz */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, start + 1000000), FSR_OK);
	/* A higher priority preempts (PRIORITY): the packet runs on to its end regardless. */
	urgent_one = fst_submit_work(urgent, urgent_queue, 100);
	cr_assert_eq(fsr_hwqueue_wait_progress(urgent, urgent_queue, urgent_one, FSR_INFINITE),
		     FSR_OK);
	cr_expect_eq(fst_last_completed(fx.process, queue), long_one,
		     "the long packet ended before the urgent one ran");
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime), start + 10000000);
	verdict = verify();
	cr_expect_eq(verdict.injected[FSR_FAULT_IGNORES_PREEMPTION], 1);
	cr_expect_eq(verdict.accounted[FSR_FAULT_IGNORES_PREEMPTION], 1);
}
