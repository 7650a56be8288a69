/* SPDX-License-Identifier: MIT */
/*
 * Doorbells in realtime (suite slow, and under ThreadSanitizer by scripts/test): i915's
 * intel_guc_steal_guc_ids shape for real — 2 physical doorbells, 5 user-mode queues on two
 * engines, one thread per queue submitting as fast as it can, so that rings, reconnects and
 * victimizations race the engines' threads, which service rings and take write pointers
 * without the OS's lock. Then the global model with 64 queues and 4 threads. Checked on the
 * event tap: every buffer of every queue ran exactly once and in progress order (UMS-15: none
 * lost to a victimization or a stale ring), the physical doorbells were never connected to two
 * queues at once nor more than the physical count (UMS-21, from the OS's connect and disconnect
 * events, which it fires under its lock), and steals happened (dedicated) or never (global).
 * Then device loss (UMS-16) under 4 submitting threads: each thread whose submission answers
 * FSR_ERR_DEVICE_LOST falls back to a kernel-mode queue and goes on; every fence value of every
 * queue is written once, in order, whether by the GPU from the ring or by the OS afterwards.
 *
 * A plain program speaking TAP rather than a Criterion test: Criterion 2.4's inheritable arena
 * cannot be mapped under ThreadSanitizer.
 */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fencescope/runtime.h>

#include "fencescope-test.h"
#include "tap.h"

#define MAX_QUEUES 64
#define TIMEOUT_NS (UINT64_C(20) * 1000000000u)

struct doorbell_run {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle queues[MAX_QUEUES];
	uint32_t queue_count;
	uint32_t threads;
	uint32_t buffers; /* per queue */
	bool is_global;
	/* the tap's findings; engines fire from their own threads */
	pthread_mutex_t lock;
	uint64_t next_expected[MAX_QUEUES]; /* the next progress value to complete */
	uint32_t out_of_order;
	uint32_t owner[FSR_MAX_PHYSICAL_DOORBELLS]; /* queue index + 1 */
	uint32_t connected;
	uint32_t max_connected;
	uint32_t shared;
	uint32_t steals;
	_Atomic uint32_t failures;
	pthread_barrier_t start; /* the threads submit together, so that their rings race */
	/* suspend and resume racing the submissions (SUS-01, SUS-03, SUS-05): context 0's */
	bool is_suspending;
	fsr_handle contexts[2];
	bool is_suspended;        /* from context_suspend until the suspender resumes */
	_Atomic bool is_resuming; /* the suspender is about to call fsr_context_resume */
	uint32_t suspensions;
	uint32_t ran_while_suspended; /* packet_start or packet_end of context 0 meanwhile */
};

static uint32_t
queue_index(struct doorbell_run *run, uint64_t handle)
{
	for (uint32_t i = 0; i < run->queue_count; i++)
		if (run->queues[i] == handle)
			return i;
	return UINT32_MAX;
}

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct doorbell_run *run = user_data;

	(void) field_count;
	pthread_mutex_lock(&run->lock);
	if (strcmp(name, "fencescope_kmd:context_suspend") == 0 && fields[1] == run->contexts[0]) {
		run->is_suspended = true;
		run->suspensions++;
	} else if (strcmp(name, "fencescope_kmd:context_resume") == 0) {
		run->is_suspended = false;
	} else if (strcmp(name, "fencescope_hw:packet_end") == 0 && fields[6] == 1) {
		/* PREEMPTED: the suspension's preemption stopping a work item (SUSPEND); the
		 * item ends again, COMPLETED, once resumed. */
		pthread_mutex_unlock(&run->lock);
		return;
	} else if ((strcmp(name, "fencescope_hw:packet_start") == 0 ||
		    strcmp(name, "fencescope_hw:packet_end") == 0) &&
		   run->is_suspended && !atomic_load(&run->is_resuming)) {
		uint32_t q = queue_index(run, fields[2]);

		/* Queues alternate between the contexts: the even ones are context 0's. */
		if (q != UINT32_MAX && q % 2 == 0)
			run->ran_while_suspended++;
	}
	if (strcmp(name, "fencescope_hw:packet_end") == 0) {
		uint32_t q = queue_index(run, fields[2]);

		if (q != UINT32_MAX) {
			if (fields[4] != run->next_expected[q] + 1)
				run->out_of_order++;
			run->next_expected[q] = fields[4];
		}
	} else if (strcmp(name, "fencescope_kmd:doorbell_victimize") == 0) {
		run->steals++;
	} else if (!run->is_global && strcmp(name, "fencescope_kmd:doorbell_connect") == 0) {
		uint32_t q = queue_index(run, fields[1]);
		uint32_t k = (uint32_t) fields[3];

		if (run->owner[k] != 0 && run->owner[k] != q + 1)
			run->shared++;
		if (run->owner[k] != q + 1)
			run->connected++;
		run->owner[k] = q + 1;
		if (run->connected > run->max_connected)
			run->max_connected = run->connected;
	} else if (!run->is_global && strcmp(name, "fencescope_kmd:doorbell_disconnect") == 0) {
		uint32_t q = queue_index(run, fields[1]);
		uint32_t k = (uint32_t) fields[3];

		if (run->owner[k] == q + 1) {
			run->owner[k] = 0;
			run->connected--;
		}
	}
	pthread_mutex_unlock(&run->lock);
}

struct worker {
	struct doorbell_run *run;
	uint32_t index;
};

/* Thread t submits its queues' buffers round robin, then waits for each queue's last one. */
static void *
run_worker(void *data)
{
	struct worker *worker = data;
	struct doorbell_run *run = worker->run;

	pthread_barrier_wait(&run->start);
	for (uint32_t n = 0; n < run->buffers; n++) {
		for (uint32_t q = worker->index; q < run->queue_count; q += run->threads) {
			struct fsr_cmdbuf *cmdbuf = NULL;

			if (fsr_cmdbuf_create(run->process, run->queues[q], &cmdbuf) != FSR_OK ||
			    fsr_cmdbuf_work(cmdbuf, 1 + (n % 3)) != FSR_OK ||
			    fsr_cmdbuf_submit(cmdbuf, NULL) != FSR_OK)
				atomic_fetch_add(&run->failures, 1);
			/* The runtime's lock is not fair: let the other threads ring in between. */
			sched_yield();
		}
	}
	for (uint32_t q = worker->index; q < run->queue_count; q += run->threads)
		if (fsr_hwqueue_wait_progress(run->process, run->queues[q], run->buffers,
					      TIMEOUT_NS) != FSR_OK)
			atomic_fetch_add(&run->failures, 1);
	return NULL;
}

/* Suspends and resumes context 0 while the workers submit (SUS-01, SUS-03, SUS-05). */
static void *
run_suspender(void *data)
{
	struct doorbell_run *run = data;
	struct timespec pause = {.tv_nsec = 20000};

	for (uint32_t i = 0; i < 200; i++) {
		if (fsr_context_suspend(run->process, run->contexts[0]) != FSR_OK)
			atomic_fetch_add(&run->failures, 1);
		nanosleep(&pause, NULL);
		atomic_store(&run->is_resuming, true);
		if (fsr_context_resume(run->process, run->contexts[0]) != FSR_OK)
			atomic_fetch_add(&run->failures, 1);
		atomic_store(&run->is_resuming, false);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void
run_doorbells(enum fsr_doorbell_model model, uint32_t physical, uint32_t queues, uint32_t threads,
	      uint32_t buffers, bool is_polling, bool is_suspending)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 11};
	struct fsr_adapter_config adapter_config;
	struct doorbell_run run = {.queue_count = queues,
				   .threads = threads,
				   .buffers = buffers,
				   .is_global = model == FSR_DOORBELL_GLOBAL,
				   .is_suspending = is_suspending};
	pthread_t suspender;
	struct worker workers[MAX_QUEUES];
	pthread_t ids[MAX_QUEUES];
	fsr_handle device;
	fsr_handle *contexts = run.contexts;
	uint32_t adapter;

	pthread_mutex_init(&run.lock, NULL);
	pthread_barrier_init(&run.start, NULL, threads);
	fsr_adapter_config_init(&adapter_config);
	adapter_config.doorbell_model = model;
	adapter_config.physical_doorbells = physical;
	adapter_config.doorbell_polling = is_polling;
	SETUP(fsr_runtime_create(&config, &run.runtime));
	fsr_runtime_set_event_tap(run.runtime, tap, &run);
	SETUP(fsr_adapter_create(run.runtime, &adapter_config, &adapter));
	SETUP(fsr_process_create(run.runtime, "doorbells", &run.process));
	SETUP(fsr_device_create(run.process, adapter, &device));
	for (uint32_t e = 0; e < 2; e++)
		SETUP(fsr_context_create(run.process, device, e, &contexts[e]));
	for (uint32_t q = 0; q < queues; q++) {
		struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};

		SETUP(fsr_hwqueue_create(run.process, contexts[q % 2], &queue_config,
					 &run.queues[q]));
		SETUP(fsr_doorbell_create(run.process, run.queues[q], 0, 0));
	}
	for (uint32_t t = 0; t < threads; t++) {
		workers[t] = (struct worker){.run = &run, .index = t};
		if (pthread_create(&ids[t], NULL, run_worker, &workers[t]) != 0)
			abort();
	}
	if (is_suspending && pthread_create(&suspender, NULL, run_suspender, &run) != 0)
		abort();
	for (uint32_t t = 0; t < threads; t++)
		pthread_join(ids[t], NULL);
	if (is_suspending)
		pthread_join(suspender, NULL);
	SETUP(fsr_runtime_run_until_idle(run.runtime));

	CHECK(atomic_load(&run.failures) == 0, "%u submissions or waits failed",
	      atomic_load(&run.failures));
	pthread_mutex_lock(&run.lock);
	for (uint32_t q = 0; q < queues; q++)
		CHECK(run.next_expected[q] == buffers, "queue %u completed up to %lu of %u", q,
		      (unsigned long) run.next_expected[q], buffers);
	CHECK(run.out_of_order == 0, "%u buffers completed out of order or twice",
	      run.out_of_order);
	CHECK(run.shared == 0, "%u connects on a physical doorbell another queue held", run.shared);
	if (model == FSR_DOORBELL_GLOBAL) {
		CHECK(run.steals == 0, "%u steals with the global doorbell", run.steals);
	} else {
		CHECK(run.max_connected <= physical, "%u connected at once", run.max_connected);
		CHECK(run.steals > 0, "no steal with %u queues on %u doorbells", queues, physical);
	}
	if (is_suspending) {
		CHECK(run.suspensions == 200, "%u suspensions", run.suspensions);
		CHECK(run.ran_while_suspended == 0, "%u packets of context 0 ran while suspended",
		      run.ran_while_suspended);
	}
	printf("# %u queues, %u threads, %u buffers each: %u steals, %u suspensions\n", queues,
	       threads, buffers, run.steals, run.suspensions);
	pthread_mutex_unlock(&run.lock);
	fsr_runtime_set_event_tap(run.runtime, NULL, NULL);
	fsr_runtime_destroy(run.runtime);
	pthread_mutex_destroy(&run.lock);
	pthread_barrier_destroy(&run.start);
}

/* ---- device loss and the fall-back, in realtime (UMS-16) --------------------------------- */

#define LOSS_QUEUES  4
#define LOSS_BUFFERS 300

struct loss_run {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device;
	fsr_handle queues[LOSS_QUEUES];
	fsr_handle fences[LOSS_QUEUES];         /* queue q's buffer n signals fences[q] to n */
	uint64_t globals[LOSS_QUEUES];          /* their global handles (the GPU's events) */
	_Atomic fsr_handle kernel[LOSS_QUEUES]; /* the fall-back queues, 0 until made */
	pthread_mutex_t lock;
	uint64_t last_written[LOSS_QUEUES];
	uint32_t out_of_order; /* a value written twice, skipped or backwards */
	_Atomic uint32_t failures;
	_Atomic uint32_t fall_backs;
	pthread_barrier_t start;
};

static int
loss_fence(struct loss_run *run, const char *name, const uint64_t *fields)
{
	for (int q = 0; q < LOSS_QUEUES; q++) {
		if (strcmp(name, "fencescope_hw:fence_value_write") == 0 &&
		    fields[3] == run->globals[q])
			return q;
		if (strcmp(name, "fencescope_os:km_fence_signal_executed") == 0 &&
		    fields[2] == run->fences[q])
			return q;
	}
	return -1;
}

static void
loss_tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct loss_run *run = user_data;
	int q;

	(void) field_count;
	pthread_mutex_lock(&run->lock);
	q = loss_fence(run, name, fields);
	if (q >= 0) {
		uint64_t value =
		    fields[strcmp(name, "fencescope_hw:fence_value_write") == 0 ? 4 : 3];

		if (value != run->last_written[q] + 1)
			run->out_of_order++;
		run->last_written[q] = value;
	}
	pthread_mutex_unlock(&run->lock);
}

struct loss_worker {
	struct loss_run *run;
	uint32_t index;
};

/*
 * Thread q submits queue q's buffers; thread 0 loses the device a third of the way. A submit
 * answered FSR_ERR_DEVICE_LOST makes the thread fall back (the buffer is in the ring, and the
 * fall-back resubmits it) and go on on the kernel-mode queue.
 */
static void *
loss_worker(void *data)
{
	struct loss_worker *worker = data;
	struct loss_run *run = worker->run;
	uint32_t q = worker->index;
	fsr_handle queue = run->queues[q];

	pthread_barrier_wait(&run->start);
	for (uint64_t n = 1; n <= LOSS_BUFFERS; n++) {
		struct fsr_cmdbuf *cmdbuf = NULL;
		fsr_status status;

		if (q == 0 && n == LOSS_BUFFERS / 3 &&
		    fsr_device_mark_lost(run->process, run->device, FSR_DEVICE_LOSS_ENGINE_HUNG) !=
			FSR_OK)
			atomic_fetch_add(&run->failures, 1);
		if (fsr_cmdbuf_create(run->process, queue, &cmdbuf) != FSR_OK ||
		    fsr_cmdbuf_work(cmdbuf, 1 + (n % 3)) != FSR_OK ||
		    fsr_cmdbuf_signal(cmdbuf, run->fences[q], n) != FSR_OK) {
			atomic_fetch_add(&run->failures, 1);
			fsr_cmdbuf_destroy(cmdbuf);
			continue;
		}
		status = fsr_cmdbuf_submit(cmdbuf, NULL);
		if (status == FSR_ERR_DEVICE_LOST && queue == run->queues[q]) {
			fsr_handle kernel = 0;

			if (fsr_hwqueue_fall_back_to_kernel_mode(run->process, queue, &kernel,
								 NULL) != FSR_OK)
				atomic_fetch_add(&run->failures, 1);
			atomic_store(&run->kernel[q], kernel);
			atomic_fetch_add(&run->fall_backs, 1);
			queue = kernel;
		} else if (status != FSR_OK) {
			atomic_fetch_add(&run->failures, 1);
		}
		sched_yield();
	}
	if (fsr_fence_wait_cpu(run->process, run->fences[q], LOSS_BUFFERS, TIMEOUT_NS,
			       FSR_WAIT_BLOCKING) != FSR_OK)
		atomic_fetch_add(&run->failures, 1);
	return NULL;
}

static void
run_device_loss(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 13};
	struct fsr_adapter_config adapter_config;
	struct loss_run run = {0};
	struct loss_worker workers[LOSS_QUEUES];
	pthread_t ids[LOSS_QUEUES];
	fsr_handle contexts[2];
	uint32_t adapter;

	pthread_mutex_init(&run.lock, NULL);
	pthread_barrier_init(&run.start, NULL, LOSS_QUEUES);
	fsr_adapter_config_init(&adapter_config);
	adapter_config.doorbell_model = FSR_DOORBELL_DEDICATED;
	adapter_config.physical_doorbells = 2;
	SETUP(fsr_runtime_create(&config, &run.runtime));
	SETUP(fsr_adapter_create(run.runtime, &adapter_config, &adapter));
	SETUP(fsr_process_create(run.runtime, "lost", &run.process));
	SETUP(fsr_device_create(run.process, adapter, &run.device));
	for (uint32_t e = 0; e < 2; e++)
		SETUP(fsr_context_create(run.process, run.device, e, &contexts[e]));
	for (uint32_t q = 0; q < LOSS_QUEUES; q++) {
		struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};
		fsr_handle global = 0;

		SETUP(fsr_hwqueue_create(run.process, contexts[q % 2], &queue_config,
					 &run.queues[q]));
		SETUP(fsr_doorbell_create(run.process, run.queues[q], 0, 0));
		SETUP(fsr_fence_create(run.process, run.device, 0, 0, &run.fences[q], &global));
		run.globals[q] = global;
	}
	fsr_runtime_set_event_tap(run.runtime, loss_tap, &run);
	for (uint32_t t = 0; t < LOSS_QUEUES; t++) {
		workers[t] = (struct loss_worker){.run = &run, .index = t};
		if (pthread_create(&ids[t], NULL, loss_worker, &workers[t]) != 0)
			abort();
	}
	for (uint32_t t = 0; t < LOSS_QUEUES; t++)
		pthread_join(ids[t], NULL);
	SETUP(fsr_runtime_run_until_idle(run.runtime));

	CHECK(atomic_load(&run.failures) == 0, "%u calls failed", atomic_load(&run.failures));
	pthread_mutex_lock(&run.lock);
	for (uint32_t q = 0; q < LOSS_QUEUES; q++)
		CHECK(run.last_written[q] == LOSS_BUFFERS, "fence %u ends at %lu of %u", q,
		      (unsigned long) run.last_written[q], LOSS_BUFFERS);
	CHECK(run.out_of_order == 0, "%u values written twice, skipped or out of order",
	      run.out_of_order);
	CHECK(atomic_load(&run.fall_backs) > 0, "no queue fell back");
	printf("# %u queues, %u buffers each, %u fell back to kernel mode\n", LOSS_QUEUES,
	       LOSS_BUFFERS, atomic_load(&run.fall_backs));
	pthread_mutex_unlock(&run.lock);
	fsr_runtime_set_event_tap(run.runtime, NULL, NULL);
	fsr_runtime_destroy(run.runtime);
	pthread_mutex_destroy(&run.lock);
	pthread_barrier_destroy(&run.start);
}

int
main(void)
{
	int before;

	printf("1..5\n");
	run_doorbells(FSR_DOORBELL_DEDICATED, 2, 5, 5, 400, false, false);
	printf("%s 1 - ums_21_ums_22_steal_ids_two_doorbells_five_queues_in_realtime\n",
	       failed_checks ? "not ok" : "ok");
	before = failed_checks;
	run_doorbells(FSR_DOORBELL_GLOBAL, 1, 64, 4, 40, false, false);
	printf("%s 2 - ums_18_global_doorbell_64_queues_in_realtime\n",
	       failed_checks > before ? "not ok" : "ok");
	/*
	 * The steals again with polling engines (doorbell_polling): the rings wake no thread, the
	 * engines' threads find them by spinning on the ring counts, racing the connects.
	 */
	before = failed_checks;
	run_doorbells(FSR_DOORBELL_DEDICATED, 2, 5, 5, 200, true, false);
	printf("%s 3 - ums_13_ums_21_steal_ids_with_polling_engines_in_realtime\n",
	       failed_checks > before ? "not ok" : "ok");
	before = failed_checks;
	run_doorbells(FSR_DOORBELL_DEDICATED, 2, 5, 5, 400, false, true);
	printf("%s 4 - sus_01_sus_03_sus_05_suspend_and_resume_racing_steals_in_realtime\n",
	       failed_checks > before ? "not ok" : "ok");
	before = failed_checks;
	run_device_loss();
	printf(
	    "%s 5 - ums_16_device_loss_and_fall_back_in_realtime_lose_no_buffer_run_none_twice\n",
	    failed_checks > before ? "not ok" : "ok");
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
