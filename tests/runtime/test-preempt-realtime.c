/* SPDX-License-Identifier: MIT */
/*
 * Preemption in realtime (suite slow, run under ThreadSanitizer by scripts/test): the engines'
 * threads run their work without the OS's lock while the test's thread asks them to preempt
 * (os_preempt_request through fsr_test_preempt_request). Each round puts a long packet on a
 * kernel-mode queue (3D) and a long work item in a ring (compute), waits a little, and asks both
 * engines — and the idle copy engine — to preempt. Every request must complete (PRE-03), after
 * its preempt_request in the event order (the engine's completion events fire under the OS's
 * lock), every buffer's progress must arrive exactly once (PRE-09: the remainder resumes, nothing
 * runs twice), and nothing is left running at the end.
 *
 * A plain program speaking TAP, because Criterion cannot run under ThreadSanitizer.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fencescope/queue.h>
#include <fencescope/runtime.h>

#include "fencescope-test.h"
#include "tap.h"

#define ROUNDS     40
#define WORK_TICKS 200000u /* 2 ms at 100 MHz */
#define MAX_IDS    (ROUNDS * 3 + 8)

/* What the tap saw, in firing order (engines' threads and the test's alike: a mutex). */
static struct {
	pthread_mutex_t lock;
	uint64_t requested[MAX_IDS + 1]; /* request id -> order of its preempt_request (0: none) */
	uint64_t completed[MAX_IDS + 1]; /* request id -> order of its preempt_complete */
	uint64_t completions[MAX_IDS + 1];
	uint64_t order;
	uint64_t preempted_packets; /* packet_end PREEMPTED */
	uint64_t resubmissions;     /* packet_queued naming a preempted packet */
	uint64_t bad_order;         /* a completion before its request */
} seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void
tap(void *data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	(void) data;
	(void) field_count;
	pthread_mutex_lock(&seen.lock);
	seen.order++;
	if (strcmp(name, "fencescope_os:preempt_request") == 0 && fields[3] <= MAX_IDS) {
		seen.requested[fields[3]] = seen.order;
	} else if (strcmp(name, "fencescope_hw:preempt_complete") == 0 && fields[3] <= MAX_IDS) {
		if (!seen.requested[fields[3]])
			seen.bad_order++;
		seen.completed[fields[3]] = seen.order;
		seen.completions[fields[3]]++;
	} else if (strcmp(name, "fencescope_hw:packet_end") == 0 && fields[6] == 1) {
		seen.preempted_packets++;
	} else if (strcmp(name, "fencescope_os:packet_queued") == 0 && fields[4] != 0) {
		seen.resubmissions++;
	}
	pthread_mutex_unlock(&seen.lock);
}

static _Atomic uint64_t priority_requests;

static void
priority_tap(void *data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	(void) data;
	(void) field_count;
	if (strcmp(name, "fencescope_os:preempt_request") == 0 && fields[4] == 1)
		atomic_fetch_add(&priority_requests, 1);
}

static void
sleep_us(long us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

static fsr_handle
make_queue(struct fsr_process *process, fsr_handle device, uint32_t engine,
	   enum fsr_submission_mode mode)
{
	struct fsr_hwqueue_config config = {.mode = mode};
	fsr_handle context;
	fsr_handle queue;

	SETUP(fsr_context_create(process, device, engine, &context));
	SETUP(mode == FSR_SUBMIT_USER_MODE
		  ? fsr_hwqueue_create_user_mode(process, context, &config, &queue)
		  : fsr_hwqueue_create(process, context, &config, &queue));
	return queue;
}

static uint64_t
submit_work(struct fsr_process *process, fsr_handle queue)
{
	struct fsr_cmdbuf *cmdbuf;
	uint64_t value;

	SETUP(fsr_cmdbuf_create(process, queue, &cmdbuf));
	SETUP(fsr_cmdbuf_work(cmdbuf, WORK_TICKS));
	SETUP(fsr_cmdbuf_submit(cmdbuf, &value));
	return value;
}

/*
 * 5: the scheduler in realtime (PRE-15): a low-priority context's long kernel-mode packets and a
 * high-priority ring's short ones on the 3D engine, the OS's scheduler preempting (PRIORITY) on
 * its own timer and submissions, the engines' threads racing it; everything completes once.
 */
static void
priority_rounds(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 17};
	struct fsr_adapter_config adapter_config;
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device, low_context, high_context, low, high;
	struct fsr_hwqueue_config km = {.mode = FSR_SUBMIT_KERNEL_MODE};
	struct fsr_hwqueue_config um = {.mode = FSR_SUBMIT_USER_MODE};
	uint64_t low_value = 0, high_value = 0, last_queued, last_completed;
	uint64_t requests_before;
	bool ok;
	uint32_t adapter;

	fsr_adapter_config_init(&adapter_config);
	SETUP(fsr_runtime_create(&config, &runtime));
	fsr_runtime_set_event_tap(runtime, priority_tap, NULL);
	SETUP(fsr_adapter_create(runtime, &adapter_config, &adapter));
	SETUP(fsr_process_create(runtime, "priority", &process));
	SETUP(fsr_device_create(process, adapter, &device));
	SETUP(fsr_context_create(process, device, 0, &low_context));
	SETUP(fsr_context_create(process, device, 0, &high_context));
	SETUP(fsr_context_set_scheduling(process, low_context, 2, 0));
	SETUP(fsr_context_set_scheduling(process, high_context, 30, 0));
	SETUP(fsr_hwqueue_create(process, low_context, &km, &low));
	SETUP(fsr_hwqueue_create_user_mode(process, high_context, &um, &high));
	requests_before = atomic_load(&priority_requests);
	for (uint32_t round = 0; round < ROUNDS; round++) {
		low_value = submit_work(process, low);
		sleep_us(150 + 29 * (round % 8));
		high_value = submit_work(process, high);
		SETUP(fsr_hwqueue_wait_progress(process, high, high_value, FSR_INFINITE));
	}
	SETUP(fsr_runtime_run_until_idle(runtime));
	SETUP(fsr_hwqueue_get_progress(process, low, &last_queued, &last_completed));
	ok = last_completed == low_value;
	CHECK(ok, "low: %lu of %lu", (unsigned long) last_completed, (unsigned long) low_value);
	SETUP(fsr_hwqueue_get_progress(process, high, &last_queued, &last_completed));
	CHECK(last_completed == high_value, "high: %lu of %lu", (unsigned long) last_completed,
	      (unsigned long) high_value);
	ok = ok && last_completed == high_value;
	CHECK(atomic_load(&priority_requests) > requests_before, "no PRIORITY request");
	ok = ok && atomic_load(&priority_requests) > requests_before;
	SETUP(fsr_process_terminate(process, false));
	fsr_runtime_destroy(runtime);
	printf("%s 5 - pre_15_priority_preemption_in_realtime (%lu PRIORITY requests)\n",
	       ok ? "ok" : "not ok",
	       (unsigned long) (atomic_load(&priority_requests) - requests_before));
}

int
main(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 13};
	struct fsr_adapter_config adapter_config;
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device;
	fsr_handle km_queue;
	fsr_handle ring_queue;
	uint64_t ids[MAX_IDS];
	uint32_t engines[MAX_IDS];
	uint32_t id_count = 0;
	uint64_t km_value = 0;
	uint64_t ring_value = 0;
	uint64_t last_queued;
	uint64_t last_completed;
	uint32_t adapter;

	printf("1..5\n");
	fsr_adapter_config_init(&adapter_config);
	SETUP(fsr_runtime_create(&config, &runtime));
	fsr_runtime_set_event_tap(runtime, tap, NULL);
	SETUP(fsr_adapter_create(runtime, &adapter_config, &adapter));
	SETUP(fsr_process_create(runtime, "preempt", &process));
	SETUP(fsr_device_create(process, adapter, &device));
	km_queue = make_queue(process, device, 0, FSR_SUBMIT_KERNEL_MODE);
	ring_queue = make_queue(process, device, 1, FSR_SUBMIT_USER_MODE);

	for (uint32_t round = 0; round < ROUNDS; round++) {
		km_value = submit_work(process, km_queue);
		ring_value = submit_work(process, ring_queue);
		sleep_us(200 + 37 * (round % 16));
		for (uint32_t engine = 0; engine < 3; engine++) {
			/*
			 * 0: FSR_MAX_PREEMPT_REQUESTS are outstanding on the engine (a loaded
			 * machine's threads lag behind): none issued, by design.
			 */
			SETUP(fsr_test_preempt_request(runtime, adapter, engine, 1 /* PRIORITY */,
						       &ids[id_count]));
			if (ids[id_count]) {
				engines[id_count] = engine;
				id_count++;
			}
		}
	}
	SETUP(fsr_runtime_run_until_idle(runtime));

	/* 1: every request completed, once, after its request event */
	{
		uint32_t incomplete = 0;
		uint32_t not_once = 0;

		for (uint32_t i = 0; i < id_count; i++) {
			if (!fsr_test_preempt_completed(runtime, adapter, engines[i], ids[i]))
				incomplete++;
			pthread_mutex_lock(&seen.lock);
			if (seen.completions[ids[i]] != 1 ||
			    seen.completed[ids[i]] < seen.requested[ids[i]])
				not_once++;
			pthread_mutex_unlock(&seen.lock);
		}
		CHECK(id_count >= ROUNDS, "only %u requests issued", id_count);
		CHECK(incomplete == 0, "%u of %u requests not completed", incomplete, id_count);
		CHECK(not_once == 0 && seen.bad_order == 0,
		      "%u requests not completed once after their request (%lu out of order)",
		      not_once, (unsigned long) seen.bad_order);
		printf("%s 1 - every preemption request completes after it was made\n",
		       incomplete || not_once || seen.bad_order || id_count < ROUNDS ? "not ok"
										     : "ok");
	}
	/* 2: work was preempted mid-way, and the kernel-mode remainders were resubmitted */
	CHECK(seen.preempted_packets > 0, "nothing was preempted");
	CHECK(seen.resubmissions > 0, "no kernel-mode packet was resubmitted");
	printf("%s 2 - packets preempted (%lu) and resubmitted (%lu)\n",
	       seen.preempted_packets && seen.resubmissions ? "ok" : "not ok",
	       (unsigned long) seen.preempted_packets, (unsigned long) seen.resubmissions);
	/* 3: every buffer's progress arrived (PRE-09) */
	SETUP(fsr_hwqueue_get_progress(process, km_queue, &last_queued, &last_completed));
	CHECK(last_completed == km_value, "kernel mode: %lu of %lu", (unsigned long) last_completed,
	      (unsigned long) km_value);
	{
		bool ok = last_completed == km_value;

		SETUP(fsr_hwqueue_get_progress(process, ring_queue, &last_queued, &last_completed));
		CHECK(last_completed == ring_value, "ring: %lu of %lu",
		      (unsigned long) last_completed, (unsigned long) ring_value);
		printf("%s 3 - every buffer completes once\n",
		       ok && last_completed == ring_value ? "ok" : "not ok");
	}
	/* 4: the runtime winds down */
	SETUP(fsr_process_terminate(process, false));
	fsr_runtime_destroy(runtime);
	printf("ok 4 - teardown\n");
	priority_rounds();
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
