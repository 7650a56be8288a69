/* SPDX-License-Identifier: MIT */
/*
 * Realtime stress (suite slow, run under ThreadSanitizer by scripts/test): several threads,
 * each owning a queue (user mode or kernel mode) and two fences — one its queue signals, one it
 * signals from the CPU — submit GPU waits on the other threads' fences, GPU and CPU signals of
 * their own, and block in CPU waits, all at random, for real, on the realtime clock's engine and
 * OS threads. Every wait targets a value whose signal is already queued, so every wait must end:
 * a CPU wait that times out is a lost wake-up (SYN-06), and a queue that never drains is a
 * deadlock. Each fence has one signaller whose values only grow: a signal writes its value
 * (spec 001, "write N"), so a CPU signal overtaking a queued GPU signal of the same fence would
 * take the fence back down when the GPU's runs — a regression, not what this test is about.
 *
 * A plain program speaking TAP rather than a Criterion test: Criterion 2.4's inheritable arena
 * cannot be mapped under ThreadSanitizer ("Could not initialize inheritable arena").
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <fencescope/runtime.h>

#include "tap.h"

#define THREADS    4
#define ITERATIONS 2000
#define TIMEOUT_NS (UINT64_C(20) * 1000000000u)

/* Like Criterion's expect: report and go on. */
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("# %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);          \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failed_checks++;                                                           \
		}                                                                                  \
	} while (0)

struct stress {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device;
	fsr_handle fences[THREADS][2]; /* [GPU_FENCE]: its queue signals it; [CPU_FENCE]: the CPU */
	fsr_handle queues[THREADS];
	_Atomic uint64_t queued_value[THREADS][2]; /* highest value whose signal is queued */
	_Atomic uint64_t lost_wakeups;
	_Atomic uint64_t failures;
};

struct worker {
	struct stress *stress;
	int index;
	uint64_t rng;
	uint64_t next_value[2];
};

enum { GPU_FENCE, CPU_FENCE };

static uint64_t
next_random(struct worker *worker)
{
	/* xorshift64*: each thread its own stream. */
	worker->rng ^= worker->rng >> 12;
	worker->rng ^= worker->rng << 25;
	worker->rng ^= worker->rng >> 27;
	return worker->rng * UINT64_C(2685821657736338717);
}

static void
expect_ok(struct stress *stress, fsr_status status)
{
	if (status != FSR_OK)
		atomic_fetch_add(&stress->failures, 1);
}

static void
submit_round(struct worker *worker)
{
	struct stress *stress = worker->stress;
	int other = (int) (next_random(worker) % THREADS);
	int kind = (int) (next_random(worker) % 2);
	uint64_t wait_value = atomic_load(&stress->queued_value[other][kind]);
	struct fsr_cmdbuf *cmdbuf;
	uint64_t value = ++worker->next_value[GPU_FENCE];

	expect_ok(stress,
		  fsr_cmdbuf_create(stress->process, stress->queues[worker->index], &cmdbuf));
	if (wait_value > 0)
		expect_ok(stress, fsr_cmdbuf_wait(cmdbuf, stress->fences[other][kind], wait_value));
	expect_ok(stress, fsr_cmdbuf_work(cmdbuf, 1 + next_random(worker) % 2000));
	expect_ok(stress,
		  fsr_cmdbuf_signal(cmdbuf, stress->fences[worker->index][GPU_FENCE], value));
	expect_ok(stress, fsr_cmdbuf_submit(cmdbuf, NULL));
	atomic_store(&stress->queued_value[worker->index][GPU_FENCE], value);
}

static void
cpu_wait_round(struct worker *worker)
{
	struct stress *stress = worker->stress;
	int other = (int) (next_random(worker) % THREADS);
	int kind = (int) (next_random(worker) % 2);
	uint64_t value = atomic_load(&stress->queued_value[other][kind]);
	enum fsr_wait_mode mode =
	    next_random(worker) % 4 == 0 ? FSR_WAIT_POLLING : FSR_WAIT_BLOCKING;
	fsr_status status;

	if (value == 0)
		return;
	status = fsr_fence_wait_cpu(stress->process, stress->fences[other][kind], value, TIMEOUT_NS,
				    mode);
	if (status == FSR_ERR_TIMEOUT)
		atomic_fetch_add(&stress->lost_wakeups, 1);
	else
		expect_ok(stress, status);
}

static void
cpu_signal_round(struct worker *worker)
{
	struct stress *stress = worker->stress;
	uint64_t value = ++worker->next_value[CPU_FENCE];

	expect_ok(stress, fsr_fence_signal_cpu(stress->process,
					       stress->fences[worker->index][CPU_FENCE], value));
	atomic_store(&stress->queued_value[worker->index][CPU_FENCE], value);
}

static void *
run_worker(void *data)
{
	struct worker *worker = data;

	for (int i = 0; i < ITERATIONS; i++) {
		uint64_t choice = next_random(worker) % 10;

		if (choice < 6)
			submit_round(worker);
		else if (choice < 9)
			cpu_wait_round(worker);
		else
			cpu_signal_round(worker);
	}
	return NULL;
}

static void
syn_06_no_lost_wakeup_and_no_deadlock_under_realtime_contention(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 7};
	struct fsr_adapter_config adapter_config;
	struct stress stress = {0};
	struct worker workers[THREADS];
	pthread_t threads[THREADS];
	uint32_t adapter;

	fsr_adapter_config_init(&adapter_config);
	SETUP(fsr_runtime_create(&config, &stress.runtime));
	SETUP(fsr_adapter_create(stress.runtime, &adapter_config, &adapter));
	SETUP(fsr_process_create(stress.runtime, "stress", &stress.process));
	SETUP(fsr_device_create(stress.process, adapter, &stress.device));
	for (int i = 0; i < THREADS; i++) {
		/* Alternate user-mode queues on 3D and compute with kernel-mode queues on copy. */
		uint32_t engine = (uint32_t) (i % 3);
		struct fsr_hwqueue_config queue_config = {
		    .mode = engine == 2 ? FSR_SUBMIT_KERNEL_MODE : FSR_SUBMIT_USER_MODE,
		};
		fsr_handle context;

		SETUP(fsr_context_create(stress.process, stress.device, engine, &context));
		SETUP(
		    fsr_hwqueue_create(stress.process, context, &queue_config, &stress.queues[i]));
		for (int kind = GPU_FENCE; kind <= CPU_FENCE; kind++)
			SETUP(fsr_fence_create(stress.process, stress.device, 0, 0,
					       &stress.fences[i][kind], NULL));
	}
	for (int i = 0; i < THREADS; i++) {
		workers[i] =
		    (struct worker){.stress = &stress,
				    .index = i,
				    .rng = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t) (i + 1)};
		if (pthread_create(&threads[i], NULL, run_worker, &workers[i]) != 0)
			abort();
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);

	/* Everything queued must drain: every fence reaches the last value queued for it. */
	for (int i = 0; i < THREADS; i++) {
		uint64_t last_queued;
		uint64_t value;

		for (int kind = GPU_FENCE; kind <= CPU_FENCE; kind++)
			CHECK(fsr_fence_wait_cpu(stress.process, stress.fences[i][kind],
						 atomic_load(&stress.queued_value[i][kind]),
						 TIMEOUT_NS, FSR_WAIT_BLOCKING) == FSR_OK,
			      "fence %d/%d never reached its last value", i, kind);
		SETUP(
		    fsr_hwqueue_get_progress(stress.process, stress.queues[i], &last_queued, NULL));
		CHECK(fsr_hwqueue_wait_progress(stress.process, stress.queues[i], last_queued,
						TIMEOUT_NS) == FSR_OK,
		      "queue %d did not drain", i);
		for (int kind = GPU_FENCE; kind <= CPU_FENCE; kind++) {
			SETUP(fsr_fence_read(stress.process, stress.fences[i][kind], &value));
			CHECK(value == atomic_load(&stress.queued_value[i][kind]),
			      "fence %d/%d is at %llu", i, kind, (unsigned long long) value);
		}
	}
	CHECK(atomic_load(&stress.lost_wakeups) == 0, "%llu CPU waits never woke up",
	      (unsigned long long) atomic_load(&stress.lost_wakeups));
	CHECK(atomic_load(&stress.failures) == 0, "%llu calls failed",
	      (unsigned long long) atomic_load(&stress.failures));
	fsr_runtime_destroy(stress.runtime);
}

int
main(void)
{
	printf("1..1\n");
	syn_06_no_lost_wakeup_and_no_deadlock_under_realtime_contention();
	printf("%s 1 - syn_06_no_lost_wakeup_and_no_deadlock_under_realtime_contention\n",
	       failed_checks ? "not ok" : "ok");
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
