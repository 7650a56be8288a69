/* SPDX-License-Identifier: MIT */
/*
 * TDR in realtime (suite slow, and under ThreadSanitizer by scripts/test): the engines run on
 * their own threads while the OS's watchdog recovers a hung engine. A process ("hung") hangs
 * the 3D engine with a user-mode buffer, round after round, while two innocent threads of
 * another process submit to a user-mode queue on the same engine and to a kernel-mode queue on
 * the compute engine. Each round: the hung app's CPU wait ends with FSR_ERR_DEVICE_LOST after
 * the TDR (TDR-01's preempt_request, then tdr_begin, engine_reset, context_error, device_lost,
 * tdr_end), it re-creates its device and queue (TDR-05); every innocent buffer runs once and in
 * order (TDR-04), and only the hung app's contexts go in error. A TDR delay of 20 ms keeps it
 * short.
 *
 * A plain program speaking TAP rather than a Criterion test: Criterion 2.4's inheritable arena
 * cannot be mapped under ThreadSanitizer.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fencescope/runtime.h>

#include "fencescope-test.h"
#include "tap.h"

#define ROUNDS          4
#define BUFFERS         40 /* per innocent thread and round */
#define DELAY_NS        UINT64_C(20000000)
#define WAIT_TIMEOUT_NS (UINT64_C(20) * 1000000000u)

/* docs/trace-format.md: enum values the tap compares */
#define PREEMPT_REASON_TDR 3
#define TDR_ENGINE_RESET   0

struct tdr_run {
	struct fsr_runtime *runtime;
	uint32_t adapter;
	struct fsr_process *innocent;
	fsr_handle innocent_device;
	fsr_handle queues[2]; /* user-mode on 3D, kernel-mode on compute */
	fsr_handle fences[2];
	/* the tap's findings; engines fire from their own threads */
	pthread_mutex_t lock;
	uint64_t next_expected[2];
	uint32_t out_of_order;
	uint32_t requests; /* preempt_request, reason TDR */
	uint32_t begins;
	uint32_t begins_before_request; /* a tdr_begin with no request since the last one */
	bool has_request;
	uint32_t resets_ok;
	uint32_t ends_engine_reset;
	uint32_t errors;
	uint32_t innocent_losses; /* device_lost of the innocent device */
	uint32_t innocent_aborts; /* packet_end ABORTED of an innocent queue */
	uint32_t detects;
	uint64_t stalled_min_ns; /* tdr_detect's stalled_ns */
	uint64_t stalled_max_ns;
};

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct tdr_run *run = user_data;

	(void) field_count;
	pthread_mutex_lock(&run->lock);
	if (strcmp(name, "fencescope_hw:packet_end") == 0) {
		for (uint32_t q = 0; q < 2; q++) {
			if (run->queues[q] != fields[2])
				continue;
			if (fields[6] != 0)
				run->innocent_aborts++;
			else if (fields[4] != run->next_expected[q] + 1)
				run->out_of_order++;
			else
				run->next_expected[q] = fields[4];
		}
	} else if (strcmp(name, "fencescope_os:preempt_request") == 0 &&
		   fields[4] == PREEMPT_REASON_TDR) {
		run->requests++;
		run->has_request = true;
	} else if (strcmp(name, "fencescope_os:tdr_detect") == 0) {
		if (!run->detects++ || fields[4] < run->stalled_min_ns)
			run->stalled_min_ns = fields[4];
		if (fields[4] > run->stalled_max_ns)
			run->stalled_max_ns = fields[4];
	} else if (strcmp(name, "fencescope_os:tdr_begin") == 0) {
		run->begins++;
		if (!run->has_request)
			run->begins_before_request++;
		run->has_request = false;
	} else if (strcmp(name, "fencescope_kmd:engine_reset") == 0 && fields[2] == 1) {
		run->resets_ok++;
	} else if (strcmp(name, "fencescope_os:tdr_end") == 0 && fields[2] == TDR_ENGINE_RESET) {
		run->ends_engine_reset++;
	} else if (strcmp(name, "fencescope_os:context_error") == 0) {
		run->errors++;
	} else if (strcmp(name, "fencescope_os:device_lost") == 0 &&
		   fields[1] == run->innocent_device) {
		run->innocent_losses++;
	}
	pthread_mutex_unlock(&run->lock);
}

struct worker {
	struct tdr_run *run;
	uint32_t index;
	uint64_t next_value;
	_Atomic uint32_t failures;
};

/* One innocent thread: BUFFERS buffers of work and a signal, then a wait for the last. */
static void *
innocent_thread(void *data)
{
	struct worker *worker = data;
	struct tdr_run *run = worker->run;

	for (uint32_t b = 0; b < BUFFERS; b++) {
		struct fsr_cmdbuf *cmdbuf;

		if (fsr_cmdbuf_create(run->innocent, run->queues[worker->index], &cmdbuf) !=
			FSR_OK ||
		    fsr_cmdbuf_work(cmdbuf, 20000) != FSR_OK ||
		    fsr_cmdbuf_signal(cmdbuf, run->fences[worker->index], ++worker->next_value) !=
			FSR_OK ||
		    fsr_cmdbuf_submit(cmdbuf, NULL) != FSR_OK) {
			atomic_fetch_add(&worker->failures, 1);
			return NULL;
		}
	}
	if (fsr_fence_wait_cpu(run->innocent, run->fences[worker->index], worker->next_value,
			       WAIT_TIMEOUT_NS, FSR_WAIT_BLOCKING) != FSR_OK)
		atomic_fetch_add(&worker->failures, 1);
	return NULL;
}

/* The hung app's round: a hung buffer, its wait (DEVICE_LOST), then a re-created queue's. */
static void
hung_round(struct tdr_run *run, uint32_t round)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_process *process;
	fsr_handle device, context, queue, fence;
	struct fsr_cmdbuf *cmdbuf;
	fsr_status status;

	SETUP(fsr_process_create(run->runtime, "hung", &process));
	SETUP(fsr_device_create(process, run->adapter, &device));
	SETUP(fsr_context_create(process, device, 0, &context));
	SETUP(fsr_hwqueue_create_user_mode(process, context, &config, &queue));
	SETUP(fsr_fence_create(process, device, 0, 0, &fence, NULL));
	SETUP(fsr_test_engine_hang(run->runtime, run->adapter, 0, queue));
	SETUP(fsr_cmdbuf_create(process, queue, &cmdbuf));
	SETUP(fsr_cmdbuf_work(cmdbuf, 1000));
	SETUP(fsr_cmdbuf_signal(cmdbuf, fence, 1));
	SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
	status = fsr_fence_wait_cpu(process, fence, 1, WAIT_TIMEOUT_NS, FSR_WAIT_BLOCKING);
	CHECK(status == FSR_ERR_DEVICE_LOST, "round %u: the hung wait ended with %s", round,
	      fsr_status_name(status));
	/* TDR-05: destroy, re-create on a new device, and run. */
	SETUP(fsr_hwqueue_destroy(process, queue));
	SETUP(fsr_device_create(process, run->adapter, &device));
	SETUP(fsr_context_create(process, device, 0, &context));
	SETUP(fsr_hwqueue_create_user_mode(process, context, &config, &queue));
	SETUP(fsr_fence_create(process, device, 0, 0, &fence, NULL));
	SETUP(fsr_cmdbuf_create(process, queue, &cmdbuf));
	SETUP(fsr_cmdbuf_work(cmdbuf, 1000));
	SETUP(fsr_cmdbuf_signal(cmdbuf, fence, 1));
	SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
	status = fsr_fence_wait_cpu(process, fence, 1, WAIT_TIMEOUT_NS, FSR_WAIT_BLOCKING);
	CHECK(status == FSR_OK, "round %u: the re-created queue's wait ended with %s", round,
	      fsr_status_name(status));
	SETUP(fsr_process_terminate(process, false));
}

int
main(void)
{
	struct fsr_runtime_config runtime_config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 1};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config um = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_hwqueue_config km = {.mode = FSR_SUBMIT_KERNEL_MODE};
	struct tdr_run run = {0};
	struct worker workers[2] = {{0}};
	pthread_t threads[2];
	fsr_handle context_3d, context_compute;

	printf("TAP version 13\n1..1\n");
	pthread_mutex_init(&run.lock, NULL);
	fsr_adapter_config_init(&adapter_config);
	adapter_config.tdr_delay_ns = DELAY_NS;
	SETUP(fsr_runtime_create(&runtime_config, &run.runtime));
	fsr_runtime_set_event_tap(run.runtime, tap, &run);
	SETUP(fsr_adapter_create(run.runtime, &adapter_config, &run.adapter));
	SETUP(fsr_process_create(run.runtime, "innocent", &run.innocent));
	SETUP(fsr_device_create(run.innocent, run.adapter, &run.innocent_device));
	SETUP(fsr_context_create(run.innocent, run.innocent_device, 0, &context_3d));
	SETUP(fsr_context_create(run.innocent, run.innocent_device, 1, &context_compute));
	SETUP(fsr_hwqueue_create_user_mode(run.innocent, context_3d, &um, &run.queues[0]));
	SETUP(fsr_hwqueue_create(run.innocent, context_compute, &km, &run.queues[1]));
	for (uint32_t q = 0; q < 2; q++)
		SETUP(fsr_fence_create(run.innocent, run.innocent_device, 0, 0, &run.fences[q],
				       NULL));
	for (uint32_t round = 1; round <= ROUNDS; round++) {
		for (uint32_t t = 0; t < 2; t++) {
			workers[t].run = &run;
			workers[t].index = t;
			if (pthread_create(&threads[t], NULL, innocent_thread, &workers[t]) != 0)
				abort();
		}
		hung_round(&run, round);
		for (uint32_t t = 0; t < 2; t++)
			pthread_join(threads[t], NULL);
	}
	SETUP(fsr_runtime_run_until_idle(run.runtime));
	fsr_runtime_set_event_tap(run.runtime, NULL, NULL);
	for (uint32_t t = 0; t < 2; t++)
		CHECK(atomic_load(&workers[t].failures) == 0, "innocent thread %u failed", t);
	CHECK(run.next_expected[0] == ROUNDS * BUFFERS && run.next_expected[1] == ROUNDS * BUFFERS,
	      "innocent buffers completed: %llu and %llu of %u",
	      (unsigned long long) run.next_expected[0], (unsigned long long) run.next_expected[1],
	      ROUNDS * BUFFERS);
	CHECK(run.out_of_order == 0, "%u innocent buffers out of order", run.out_of_order);
	CHECK(run.innocent_aborts == 0, "%u innocent work items aborted", run.innocent_aborts);
	CHECK(run.innocent_losses == 0, "the innocent device was lost");
	CHECK(run.begins == ROUNDS, "%u tdr_begin for %u hangs", run.begins, ROUNDS);
	CHECK(run.begins_before_request == 0, "%u tdr_begin without a preemption request first",
	      run.begins_before_request);
	CHECK(run.resets_ok == ROUNDS && run.ends_engine_reset == ROUNDS,
	      "%u engine resets, %u tdr_end ENGINE_RESET", run.resets_ok, run.ends_engine_reset);
	CHECK(run.errors == ROUNDS, "%u contexts in error", run.errors);
	/* TDR-02: never before the delay (a ring is sampled: up to a quarter of it later). */
	CHECK(run.detects == ROUNDS && run.stalled_min_ns >= DELAY_NS, "%u detections, %llu ns",
	      run.detects, (unsigned long long) run.stalled_min_ns);
	printf("# tdr_detect stalled_ns: min %llu, max %llu (delay %llu)\n",
	       (unsigned long long) run.stalled_min_ns, (unsigned long long) run.stalled_max_ns,
	       (unsigned long long) DELAY_NS);
	fsr_runtime_destroy(run.runtime);
	pthread_mutex_destroy(&run.lock);
	printf("%s 1 - tdr_01_tdr_04_tdr_05_realtime_hangs_recovered_beside_innocent_threads\n",
	       failed_checks ? "not ok" : "ok");
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
