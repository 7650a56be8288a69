/* SPDX-License-Identifier: MIT */
/*
 * Suspending and resuming a hardware context (spec 000, SUS-01 to SUS-07; docs/runtime.md
 * "Suspend and resume as built"). Each test tells from the event tap what ran while the context
 * was suspended: a tap of its own marks the suspension from context_suspend to context_resume
 * and counts every event of the GPU (packet start and end, fence write, wait, ring fetch) that
 * names one of the context's queues in between. Under sim-mode interleaving a seed sweep checks
 * the same while the UMD rings as the context goes off and back on the list.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "runtime-fixture.h"

#define MAX_QUEUES 8

struct suspend_log {
	fsr_handle context;
	fsr_handle queues[MAX_QUEUES]; /* the suspended context's queues */
	uint32_t queue_count;
	bool is_suspended; /* between context_suspend and context_resume of `context` */
	uint32_t suspends;
	uint32_t resumes;
	uint32_t last_hwqueue_count;
	/* events of the GPU or the OS's scheduler naming one of `queues` while suspended */
	uint32_t ran_while_suspended;
	uint32_t fetched_while_suspended; /* ring_fetch of one of `queues` while suspended */
	uint32_t rings;                   /* doorbell_ring of one of `queues`, any time */
	uint32_t rings_since_resume;
	uint32_t fetches;
	uint32_t victimized; /* doorbell_victimize naming one of `queues` as the victim */
	uint32_t disconnects;
	uint32_t suspend_preemptions; /* preempt_request SUSPEND naming `context` */
	uint32_t preempted_ends;      /* packet_end PREEMPTED of one of `queues` */
	uint32_t packet_starts[MAX_QUEUES];
	uint32_t packet_ends[MAX_QUEUES];
};

static struct suspend_log sus_log;

static bool
is_ours(fsr_handle queue, uint32_t *index)
{
	for (uint32_t i = 0; i < sus_log.queue_count; i++) {
		if (sus_log.queues[i] == queue) {
			if (index)
				*index = i;
			return true;
		}
	}
	return false;
}

/* Events whose third field is the queue (fencescope_hw: adapter, engine, queue). */
static const char *const gpu_events[] = {
    "fencescope_hw:packet_start",   "fencescope_hw:packet_end",   "fencescope_hw:fence_value_write",
    "fencescope_hw:gpu_wait_begin", "fencescope_hw:gpu_wait_end",
};

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct suspend_log *log = user_data;
	uint32_t index = 0;

	(void) field_count;
	if (strcmp(name, "fencescope_kmd:context_suspend") == 0 && fields[1] == log->context) {
		log->is_suspended = true;
		log->suspends++;
		log->last_hwqueue_count = (uint32_t) fields[2];
		return;
	}
	if (strcmp(name, "fencescope_kmd:context_resume") == 0 && fields[1] == log->context) {
		log->is_suspended = false;
		log->resumes++;
		log->last_hwqueue_count = (uint32_t) fields[2];
		log->rings_since_resume = 0;
		return;
	}
	if (strcmp(name, "fencescope_os:preempt_request") == 0 && fields[2] == log->context &&
	    fields[4] == 2 /* SUSPEND */)
		log->suspend_preemptions++;
	for (size_t i = 0; i < sizeof(gpu_events) / sizeof(gpu_events[0]); i++) {
		if (strcmp(name, gpu_events[i]) != 0 || !is_ours(fields[2], &index))
			continue;
		/* The suspension's own preemption stops the work item: that is not running. */
		if (i == 1 && fields[6] == 1 /* PREEMPTED */) {
			log->preempted_ends++;
			continue;
		}
		if (log->is_suspended)
			log->ran_while_suspended++;
		if (i == 0)
			log->packet_starts[index]++;
		if (i == 1)
			log->packet_ends[index]++;
	}
	/* SUS-07: the OS's software queue runs nothing of a suspended kernel-mode queue. */
	if ((strcmp(name, "fencescope_os:km_fence_signal_executed") == 0 ||
	     strcmp(name, "fencescope_os:packet_queued") == 0) &&
	    is_ours(fields[strcmp(name, "fencescope_os:packet_queued") == 0 ? 2 : 1], NULL) &&
	    log->is_suspended)
		log->ran_while_suspended++;
	if (strcmp(name, "fencescope_hw:ring_fetch") == 0 && is_ours(fields[2], NULL)) {
		if (log->is_suspended)
			log->fetched_while_suspended++;
		log->fetches++;
	}
	if (strcmp(name, "fencescope_umd:doorbell_ring") == 0 && is_ours(fields[1], NULL)) {
		log->rings++;
		log->rings_since_resume++;
	}
	if (strcmp(name, "fencescope_kmd:doorbell_victimize") == 0 && is_ours(fields[1], NULL))
		log->victimized++;
	if (strcmp(name, "fencescope_kmd:doorbell_disconnect") == 0 && is_ours(fields[1], NULL))
		log->disconnects++;
}

static void
setup_suspend(enum fsr_doorbell_model model, uint32_t physical, uint64_t interleave_seed)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	memset(&sus_log, 0, sizeof(sus_log));
	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.doorbell_model = model;
	adapter_config.physical_doorbells = physical;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	fsr_runtime_set_event_tap(fx.runtime, tap, &sus_log);
	sus_log.context = fx.context_3d;
	if (interleave_seed)
		cr_assert_eq(rt_interleave_enable(fx.runtime, interleave_seed, NULL, 0), FSR_OK);
}

static void
teardown_suspend(void)
{
	if (fx.runtime)
		fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	fst_rt_teardown();
}

TestSuite(suspend, .fini = teardown_suspend);

/* A queue of the 3D context (the one the tests suspend), with a doorbell in user mode. */
static fsr_handle
our_queue(enum fsr_submission_mode mode)
{
	fsr_handle queue = mode == FSR_SUBMIT_USER_MODE
			       ? fst_queue_new_without_doorbell(fx.process, fx.context_3d)
			       : fst_queue_new(fx.process, fx.context_3d, mode);

	if (mode == FSR_SUBMIT_USER_MODE)
		cr_assert_eq(fsr_doorbell_create(fx.process, queue, 0, 0), FSR_OK);
	sus_log.queues[sus_log.queue_count++] = queue;
	return queue;
}

static enum fsr_doorbell_status
doorbell_status(fsr_handle queue)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_DISCONNECTED_ABORT;

	cr_assert_eq(fsr_doorbell_get_status(fx.process, queue, &status), FSR_OK);
	return status;
}

Test(suspend, sus_01_sus_04_every_queue_of_the_context_leaves_the_list_and_comes_back)
{
	fsr_handle um[2], km, other;

	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	um[0] = our_queue(FSR_SUBMIT_USER_MODE);
	um[1] = our_queue(FSR_SUBMIT_USER_MODE);
	km = our_queue(FSR_SUBMIT_KERNEL_MODE);
	other = fst_queue_new_without_doorbell(fx.process, fx.context_compute);
	cr_assert_eq(fsr_doorbell_create(fx.process, other, 0, 0), FSR_OK);

	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(sus_log.suspends, 1);
	cr_assert_eq(sus_log.last_hwqueue_count, 3, "the context's three queues left the list");
	for (int round = 0; round < 3; round++) {
		fst_submit_work(fx.process, um[0], 10);
		fst_submit_work(fx.process, um[1], 10);
		fst_submit_work(fx.process, km, 10);
		fst_submit_work(fx.process, other, 10);
	}
	fst_run_until_idle();
	/* Nothing of the suspended context ran; the other context's queue did. */
	cr_assert_eq(sus_log.ran_while_suspended, 0);
	cr_assert_eq(fst_last_completed(fx.process, um[0]), 0);
	cr_assert_eq(fst_last_completed(fx.process, um[1]), 0);
	cr_assert_eq(fst_last_completed(fx.process, km), 0);
	cr_assert_eq(fst_last_completed(fx.process, other), 3);

	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(sus_log.resumes, 1);
	cr_assert_eq(sus_log.last_hwqueue_count, 3);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, um[0]), 3);
	cr_assert_eq(fst_last_completed(fx.process, um[1]), 3);
	cr_assert_eq(fst_last_completed(fx.process, km), 3);
	for (uint32_t i = 0; i < 2; i++)
		cr_assert_eq(sus_log.packet_ends[i], 3, "queue %u ran each buffer once", i);
}

Test(suspend, sus_01_suspend_and_resume_are_refused_out_of_order)
{
	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_ERR_BAD_STATE);
	cr_assert_eq(sus_log.suspends, 1, "a refused suspend calls no DDI");
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_ERR_BAD_STATE);
	cr_assert_eq(sus_log.resumes, 1);
	cr_assert_eq(fsr_context_suspend(fx.process, 0x1234), FSR_ERR_INVALID_HANDLE);
	cr_assert_eq(fsr_context_suspend(NULL, fx.context_3d), FSR_ERR_INVALID_ARGUMENT);
}

Test(suspend, sus_02_doorbells_stay_connected_while_the_context_is_suspended)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_DISCONNECTED_RETRY;
	fsr_handle queue;

	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	queue = our_queue(FSR_SUBMIT_USER_MODE);
	cr_assert_eq(fsr_doorbell_connect(fx.process, queue, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(doorbell_status(queue), FSR_DOORBELL_CONNECTED);
	cr_assert_eq(sus_log.disconnects, 0);
	/* Its ring allocations stay resident. */
	cr_assert(atomic_load(&fst_borrow_queue(queue)->ring_allocation->is_resident));
	cr_assert(atomic_load(&fst_borrow_queue(queue)->ring_control_allocation->is_resident));
	cr_assert_eq(sus_log.rings, 1, "the ring went to the physical doorbell, no reconnect");
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(doorbell_status(queue), FSR_DOORBELL_CONNECTED);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
}

/*
 * SUS-03: the UMD writes twenty command buffers with a signal each into the suspended queue
 * and rings after each, without being stalled; the GPU runs, signals and logs none of them.
 */
static void
written_and_rung_but_nothing_runs(enum fsr_doorbell_model model)
{
	fsr_handle queue, fence;
	struct os_hwqueue *os_queue;
	uint64_t signal_header, wait_header;

	setup_suspend(model, model == FSR_DOORBELL_DEDICATED ? 4 : 1, 0);
	queue = our_queue(FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	fst_submit_work(fx.process, queue, 10); /* connected, and its log has run once */
	fst_run_until_idle();
	os_queue = fst_borrow_queue(queue);
	signal_header = atomic_load(&os_queue->logs[FSTP_LOG_TYPE_SIGNALS].header);
	wait_header = atomic_load(&os_queue->logs[FSTP_LOG_TYPE_WAITS].header);

	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	for (uint64_t v = 1; v <= 20; v++)
		fst_submit_signal(fx.process, queue, fence, v);
	fst_run_until_idle();
	cr_assert_eq(sus_log.rings, 21, "every buffer rang");
	cr_assert_eq(fst_last_queued(fx.process, queue), 21);
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
	cr_assert_eq(fst_fence_value(fx.process, fence), 0, "no signal ran");
	cr_assert_eq(sus_log.ran_while_suspended, 0);
	cr_assert_eq(sus_log.fetched_while_suspended, 0);
	cr_assert_eq(atomic_load(&os_queue->logs[FSTP_LOG_TYPE_SIGNALS].header), signal_header,
		     "nothing logged");
	cr_assert_eq(atomic_load(&os_queue->logs[FSTP_LOG_TYPE_WAITS].header), wait_header);

	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), 20);
	cr_assert_eq(fst_last_completed(fx.process, queue), 21);
	cr_assert_eq(sus_log.packet_ends[0], 21);
}

Test(suspend, sus_03_suspended_queue_is_written_and_rung_but_runs_signals_and_logs_nothing)
{
	written_and_rung_but_nothing_runs(FSR_DOORBELL_DEDICATED);
}

Test(suspend, sus_03_global_doorbell_suspended_queue_runs_nothing)
{
	written_and_rung_but_nothing_runs(FSR_DOORBELL_GLOBAL);
}

/*
 * SUS-01's granularity: the engine is busy with a long work item of the queue when the context
 * is suspended. The OS preempts it (reason SUSPEND): it stops at the engine's granularity, and
 * neither the rest of it nor the signal after it, in the same command buffer, runs until the
 * resume, after which the item resumes at its saved point (PRE-09).
 */
Test(suspend, sus_01_sus_03_a_running_work_item_is_preempted_and_the_queue_stops)
{
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_handle queue, fence;
	uint64_t progress = 0;
	bool has_run = true;

	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	queue = our_queue(FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 7), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	/* Step until the buffer started: the engine is busy with its long work item. */
	for (int i = 0; i < 100 && has_run && !sus_log.packet_starts[0]; i++)
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
	cr_assert_eq(sus_log.packet_starts[0], 1);
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(sus_log.suspend_preemptions, 1);
	cr_assert_eq(sus_log.preempted_ends, 1, "the item stops at once, not at its end");
	cr_assert_eq(fst_fence_value(fx.process, fence), 0, "the signal after the item waits");
	cr_assert_eq(sus_log.ran_while_suspended, 0);
	cr_assert_eq(fst_last_completed(fx.process, queue), 0);
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), 7);
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	cr_assert_eq(sus_log.packet_starts[0], 2, "started, then resumed at its saved point");
}

/*
 * SUS-05: the buffers written during the suspension rang, but the command processor did not
 * take them (the queue was off its list); the resume takes the write pointer, and they all run
 * with no ring after it.
 */
Test(suspend, sus_05_resume_takes_the_write_pointer_and_runs_everything_without_a_new_ring)
{
	fsr_handle queue;
	uint32_t fetches;

	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	queue = our_queue(FSR_SUBMIT_USER_MODE);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	for (int i = 0; i < 5; i++)
		fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
	fetches = sus_log.fetches;
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(sus_log.fetches, fetches + 1, "ResumeContext took the write pointer");
	fst_run_until_idle();
	cr_assert_eq(sus_log.rings_since_resume, 0);
	cr_assert_eq(fst_last_completed(fx.process, queue), 6);
	cr_assert_eq(sus_log.packet_ends[0], 6);
}

/*
 * SUS-06: the KMD victimizes the suspended queue's doorbell (one physical doorbell, a queue of
 * another context takes it); its UMD reads RETRY, reconnects on its next ring — which
 * victimizes the other — and its work still waits for the resume.
 */
Test(suspend, sus_06_suspended_queues_doorbell_is_victimized_and_reconnect_does_not_resume)
{
	fsr_handle queue, other;

	setup_suspend(FSR_DOORBELL_DEDICATED, 1, 0);
	queue = our_queue(FSR_SUBMIT_USER_MODE);
	other = fst_queue_new_without_doorbell(fx.process, fx.context_compute);
	cr_assert_eq(fsr_doorbell_create(fx.process, other, 0, 0), FSR_OK);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	fst_submit_work(fx.process, other, 10); /* takes the only doorbell */
	cr_assert_eq(sus_log.victimized, 1);
	cr_assert_eq(doorbell_status(queue), FSR_DOORBELL_DISCONNECTED_RETRY);
	fst_submit_work(fx.process, queue, 10); /* rings the dummy page, reads RETRY, reconnects */
	cr_assert_eq(doorbell_status(queue), FSR_DOORBELL_CONNECTED);
	fst_run_until_idle();
	cr_assert_eq(sus_log.resumes, 0, "the reconnect resumed nothing");
	cr_assert_eq(sus_log.ran_while_suspended, 0);
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
	cr_assert_eq(fst_last_completed(fx.process, other), 1);
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 2);
}

/*
 * SUS-07: a kernel-mode queue of the suspended context takes SubmitCommand (the buffer joins
 * its software queue), including one whose DMA packet already waits in the engine's DMA queue;
 * nothing runs until the resume.
 */
Test(suspend, sus_07_kernel_mode_submit_on_a_suspended_context_succeeds_and_runs_after_resume)
{
	fsr_handle queue, fence;

	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	queue = our_queue(FSR_SUBMIT_KERNEL_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	fst_submit_work(fx.process, queue, 10); /* its DMA packet is handed to the engine now */
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 5);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(sus_log.ran_while_suspended, 0);
	cr_assert_eq(fst_last_queued(fx.process, queue), 3);
	cr_assert_eq(fst_last_completed(fx.process, queue), 0);
	cr_assert_eq(fst_fence_value(fx.process, fence), 0);
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), 5);
	cr_assert_eq(fst_last_completed(fx.process, queue), 3);
}

Test(suspend, sus_01_a_queue_created_in_a_suspended_context_starts_off_the_list)
{
	fsr_handle queue;

	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(sus_log.last_hwqueue_count, 0);
	queue = our_queue(FSR_SUBMIT_USER_MODE);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 0);
	cr_assert_eq(sus_log.ran_while_suspended, 0);
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(sus_log.last_hwqueue_count, 1);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
}

/* A suspended context's queue runs nothing more: destroying it abandons its work, no hang. */
Test(suspend, sus_03_destroying_a_suspended_contexts_queues_abandons_their_work)
{
	fsr_handle um, km;

	setup_suspend(FSR_DOORBELL_DEDICATED, 4, 0);
	um = our_queue(FSR_SUBMIT_USER_MODE);
	km = our_queue(FSR_SUBMIT_KERNEL_MODE);
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	fst_submit_work(fx.process, um, 10);
	fst_submit_work(fx.process, km, 10);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, um), FSR_OK);
	cr_assert_eq(fsr_context_destroy(fx.process, fx.context_3d), FSR_OK);
	fx.context_3d = 0;
	fst_run_until_idle();
	cr_assert_eq(sus_log.ran_while_suspended, 0);
	(void) km;
}

/*
 * Under interleaving: the UMD submits while the context goes off the list and back, the
 * engines and the OS actor running at any point in between. Nothing of the context runs
 * between context_suspend and context_resume, and every buffer runs once, in order.
 */
Test(suspend, sus_03_sus_05_interleaving_seed_sweep, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		fsr_handle queue[2];

		setup_suspend(seed % 2 ? FSR_DOORBELL_DEDICATED : FSR_DOORBELL_GLOBAL, 1, seed);
		queue[0] = our_queue(FSR_SUBMIT_USER_MODE);
		queue[1] = our_queue(FSR_SUBMIT_KERNEL_MODE);
		fst_submit_work(fx.process, queue[0], 10);
		fst_submit_work(fx.process, queue[1], 10);
		fst_run_until_idle();
		cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
		fst_submit_work(fx.process, queue[0], 10);
		fst_submit_work(fx.process, queue[1], 10);
		fst_run_until_idle();
		cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
		fst_submit_work(fx.process, queue[0], 10);
		fst_run_until_idle();
		cr_assert_eq(sus_log.ran_while_suspended, 0, "seed %lu", (unsigned long) seed);
		cr_assert_eq(fst_last_completed(fx.process, queue[0]), 3, "seed %lu",
			     (unsigned long) seed);
		cr_assert_eq(fst_last_completed(fx.process, queue[1]), 2, "seed %lu",
			     (unsigned long) seed);
		cr_assert_eq(sus_log.packet_ends[0], 3, "seed %lu", (unsigned long) seed);
		teardown_suspend();
	}
}
