/* SPDX-License-Identifier: MIT */
/*
 * F- and D-states in realtime (suite slow, and under ThreadSanitizer by scripts/test). First,
 * two threads connect at once in D3, round after round: the main thread puts the device in D3,
 * then both threads submit a buffer to their own queue together — both rings meet their dummy
 * pages and both threads may call ConnectDoorbell, but only the first to take the lock wakes the
 * device (DST-04, DST-05): one device_power D0 a round, every buffer run once, in order (DST-08).
 * Second, engines going to F1 between bursts (engine_idle_to_f1_ns of 20 µs) while two threads
 * submit: the F1 requests race the rings and reconnects, nothing is lost (FST-04, FST-07).
 *
 * A plain program speaking TAP rather than a Criterion test: Criterion 2.4's inheritable arena
 * cannot be mapped under ThreadSanitizer.
 */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t, nanosleep */

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

#define THREADS    2
#define TIMEOUT_NS (UINT64_C(20) * 1000000000u)

/* device_power: adapter, old, new; engine_power: adapter, engine, old, new (docs/trace-format.md)
 */
#define POWER_D0 0
#define POWER_F1 1

struct power_run {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	uint32_t adapter;
	fsr_handle queues[THREADS];
	uint32_t rounds;
	uint32_t buffers; /* per round and queue */
	bool is_d3;       /* the main thread sets D3 before each round */
	/* the tap's findings; engines fire from their own threads */
	pthread_mutex_t lock;
	uint64_t next_expected[THREADS];
	uint32_t out_of_order;
	uint32_t wakes;    /* device_power to D0 */
	uint32_t f1_count; /* engine_power to F1 */
	_Atomic uint32_t failures;
	pthread_barrier_t start;
	pthread_barrier_t end;
};

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct power_run *run = user_data;

	(void) field_count;
	pthread_mutex_lock(&run->lock);
	if (strcmp(name, "fencescope_hw:packet_end") == 0) {
		for (uint32_t q = 0; q < THREADS; q++) {
			if (run->queues[q] != fields[2])
				continue;
			if (fields[4] != run->next_expected[q] + 1)
				run->out_of_order++;
			run->next_expected[q] = fields[4];
		}
	} else if (strcmp(name, "fencescope_os:device_power") == 0 && fields[2] == POWER_D0) {
		run->wakes++;
	} else if (strcmp(name, "fencescope_os:engine_power") == 0 && fields[3] == POWER_F1) {
		run->f1_count++;
	}
	pthread_mutex_unlock(&run->lock);
}

struct worker {
	struct power_run *run;
	uint32_t index;
};

static void *
run_worker(void *data)
{
	struct worker *worker = data;
	struct power_run *run = worker->run;
	fsr_handle queue = run->queues[worker->index];

	for (uint32_t r = 0; r < run->rounds; r++) {
		pthread_barrier_wait(&run->start);
		for (uint32_t n = 0; n < run->buffers; n++) {
			struct fsr_cmdbuf *cmdbuf = NULL;

			if (fsr_cmdbuf_create(run->process, queue, &cmdbuf) != FSR_OK ||
			    fsr_cmdbuf_work(cmdbuf, 1 + (n % 3)) != FSR_OK ||
			    fsr_cmdbuf_submit(cmdbuf, NULL) != FSR_OK)
				atomic_fetch_add(&run->failures, 1);
			sched_yield();
		}
		if (fsr_hwqueue_wait_progress(run->process, queue,
					      (uint64_t) (r + 1) * run->buffers,
					      TIMEOUT_NS) != FSR_OK)
			atomic_fetch_add(&run->failures, 1);
		pthread_barrier_wait(&run->end);
	}
	return NULL;
}

static void
run_power(bool is_d3, uint32_t rounds, uint32_t buffers)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 12};
	struct fsr_adapter_config adapter_config;
	struct power_run run = {.rounds = rounds, .buffers = buffers, .is_d3 = is_d3};
	struct worker workers[THREADS];
	pthread_t ids[THREADS];
	fsr_handle device;
	fsr_handle contexts[2];

	pthread_mutex_init(&run.lock, NULL);
	pthread_barrier_init(&run.start, NULL, THREADS + 1);
	pthread_barrier_init(&run.end, NULL, THREADS + 1);
	fsr_adapter_config_init(&adapter_config);
	if (!is_d3)
		adapter_config.engine_idle_to_f1_ns = 20000;
	SETUP(fsr_runtime_create(&config, &run.runtime));
	fsr_runtime_set_event_tap(run.runtime, tap, &run);
	SETUP(fsr_adapter_create(run.runtime, &adapter_config, &run.adapter));
	SETUP(fsr_process_create(run.runtime, "power", &run.process));
	SETUP(fsr_device_create(run.process, run.adapter, &device));
	for (uint32_t e = 0; e < 2; e++)
		SETUP(fsr_context_create(run.process, device, e, &contexts[e]));
	for (uint32_t q = 0; q < THREADS; q++) {
		struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};

		/* D3: both on the 3D engine; F1: one per engine, each going to F1 on its own. */
		SETUP(fsr_hwqueue_create(run.process, contexts[is_d3 ? 0 : q], &queue_config,
					 &run.queues[q]));
		SETUP(fsr_doorbell_create(run.process, run.queues[q], 0, 0));
	}
	for (uint32_t t = 0; t < THREADS; t++) {
		workers[t] = (struct worker){.run = &run, .index = t};
		if (pthread_create(&ids[t], NULL, run_worker, &workers[t]) != 0)
			abort();
	}
	for (uint32_t r = 0; r < rounds; r++) {
		if (is_d3)
			SETUP(fsr_adapter_set_power(run.runtime, run.adapter, FSR_DEVICE_POWER_D3));
		pthread_barrier_wait(&run.start);
		pthread_barrier_wait(&run.end);
		if (!is_d3) {
			/* an idle pause, longer than engine_idle_to_f1_ns, now and then */
			struct timespec pause = {.tv_nsec = (r % 4 == 0) ? 100000 : 0};

			nanosleep(&pause, NULL);
		}
	}
	for (uint32_t t = 0; t < THREADS; t++)
		pthread_join(ids[t], NULL);
	SETUP(fsr_runtime_run_until_idle(run.runtime));

	CHECK(atomic_load(&run.failures) == 0, "%u submissions or waits failed",
	      atomic_load(&run.failures));
	pthread_mutex_lock(&run.lock);
	for (uint32_t q = 0; q < THREADS; q++)
		CHECK(run.next_expected[q] == (uint64_t) rounds * buffers,
		      "queue %u completed up to %lu of %u", q, (unsigned long) run.next_expected[q],
		      rounds * buffers);
	CHECK(run.out_of_order == 0, "%u buffers completed out of order or twice",
	      run.out_of_order);
	if (is_d3)
		CHECK(run.wakes == rounds, "%u wakes in %u rounds (one each)", run.wakes, rounds);
	else
		CHECK(run.f1_count > 0, "no engine went to F1");
	printf("# %s: %u rounds, %u wakes, %u F1 transitions\n", is_d3 ? "D3" : "F1", rounds,
	       run.wakes, run.f1_count);
	pthread_mutex_unlock(&run.lock);
	fsr_runtime_set_event_tap(run.runtime, NULL, NULL);
	fsr_runtime_destroy(run.runtime);
	pthread_mutex_destroy(&run.lock);
	pthread_barrier_destroy(&run.start);
	pthread_barrier_destroy(&run.end);
}

/*
 * A runtime destroyed with the device in D3 and a long buffer in flight returns: the normal
 * termination wakes the device (DST-05) and the buffer completes (TRM-01).
 */
static void
run_destroy_in_d3(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 13};
	struct fsr_adapter_config adapter_config;
	struct power_run run = {0};
	struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_handle device, context;

	pthread_mutex_init(&run.lock, NULL);
	fsr_adapter_config_init(&adapter_config);
	SETUP(fsr_runtime_create(&config, &run.runtime));
	fsr_runtime_set_event_tap(run.runtime, tap, &run);
	SETUP(fsr_adapter_create(run.runtime, &adapter_config, &run.adapter));
	SETUP(fsr_process_create(run.runtime, "power", &run.process));
	SETUP(fsr_device_create(run.process, run.adapter, &device));
	SETUP(fsr_context_create(run.process, device, 0, &context));
	SETUP(fsr_hwqueue_create(run.process, context, &queue_config, &run.queues[0]));
	SETUP(fsr_doorbell_create(run.process, run.queues[0], 0, 0));
	SETUP(fsr_cmdbuf_create(run.process, run.queues[0], &cmdbuf));
	SETUP(fsr_cmdbuf_work(cmdbuf, 200000)); /* 2 ms at 100 MHz */
	SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
	SETUP(fsr_adapter_set_power(run.runtime, run.adapter, FSR_DEVICE_POWER_D3));
	fsr_runtime_destroy(run.runtime); /* the tap goes with the runtime */
	CHECK(run.next_expected[0] == 1, "the buffer held in D3 completed (%lu)",
	      (unsigned long) run.next_expected[0]);
	CHECK(run.wakes == 1, "%u wakes", run.wakes);
	pthread_mutex_destroy(&run.lock);
}

int
main(void)
{
	int before;

	printf("1..3\n");
	run_power(true, 200, 2);
	printf("%s 1 - dst_04_dst_05_two_connects_in_d3_wake_once_in_realtime\n",
	       failed_checks ? "not ok" : "ok");
	before = failed_checks;
	run_power(false, 200, 5);
	printf("%s 2 - fst_04_fst_07_f1_between_bursts_loses_nothing_in_realtime\n",
	       failed_checks > before ? "not ok" : "ok");
	before = failed_checks;
	run_destroy_in_d3();
	printf("%s 3 - dst_05_destroying_the_runtime_in_d3_wakes_it_and_returns\n",
	       failed_checks > before ? "not ok" : "ok");
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
