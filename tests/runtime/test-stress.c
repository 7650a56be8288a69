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

/* Test interface of the runtime (runtime/os/os-private.h): LOG-04's trigger. */
void fsr_test_force_tracing(struct fsr_runtime *runtime, bool is_tracing);

#define THREADS    4
#define ITERATIONS 2000
#define TIMEOUT_NS (UINT64_C(20) * 1000000000u)

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

/* xorshift64*: each thread its own stream. */
static uint64_t
xorshift(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(2685821657736338717);
}

static uint64_t
next_random(struct worker *worker)
{
	return xorshift(&worker->rng);
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
		SETUP(queue_config.mode == FSR_SUBMIT_USER_MODE
			  ? fsr_hwqueue_create_user_mode(stress.process, context, &queue_config,
							 &stress.queues[i])
			  : fsr_hwqueue_create(stress.process, context, &queue_config,
					       &stress.queues[i]));
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

/*
 * Churn: what the OS changes under running engines. Threads create a queue (user mode on 3D or
 * compute, kernel mode on copy) and a fence, submit a few buffers that signal it and wait on a
 * fence of the steady queue, and destroy the queue and close the fence with the work possibly
 * still running — while one steady queue keeps signalling, with tracing switched on and off
 * (LOG-04 re-creates the logs of idle queues), logs small enough to overrun (LOG-16, LOG-17),
 * and interrupts coalesced in the HWQueue form on one adapter and the fence-array form on the
 * other. Nothing may crash, leak a fence or deadlock, and every wait on the steady fence ends.
 * Under ThreadSanitizer (scripts/test) it checks that the engines, running without the OS's
 * lock, share nothing with it but the spec's words, their own lock and the interrupt line.
 */
#define CHURN_THREADS    3
#define CHURN_ITERATIONS 150

struct churn {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle devices[2];
	fsr_handle steady_fence;
	_Atomic uint64_t steady_value;
	_Atomic bool is_done;
	_Atomic uint64_t failures;
};

struct churner {
	struct churn *churn;
	int index;
	uint64_t rng;
};

static uint64_t
churn_random(struct churner *churner)
{
	return xorshift(&churner->rng);
}

static void
churn_expect_ok(struct churn *churn, fsr_status status, int line)
{
	if (status != FSR_OK) {
		printf("# churn: line %d: status %d\n", line, (int) status);
		atomic_fetch_add(&churn->failures, 1);
	}
}

#define CHURN_OK(churn, call) churn_expect_ok(churn, call, __LINE__)

static void *
run_churner(void *data)
{
	struct churner *churner = data;
	struct churn *churn = churner->churn;

	for (int i = 0; i < CHURN_ITERATIONS; i++) {
		uint32_t adapter = (uint32_t) (churn_random(churner) % 2);
		uint32_t engine = (uint32_t) (churn_random(churner) % 3);
		struct fsr_hwqueue_config queue_config = {
		    .mode = engine == 2 ? FSR_SUBMIT_KERNEL_MODE : FSR_SUBMIT_USER_MODE,
		};
		uint64_t steady = atomic_load(&churn->steady_value);
		fsr_handle context;
		fsr_handle queue;
		fsr_handle fence;
		int buffers = 1 + (int) (churn_random(churner) % 4);

		CHURN_OK(churn, fsr_context_create(churn->process, churn->devices[adapter], engine,
						   &context));
		CHURN_OK(churn,
			 queue_config.mode == FSR_SUBMIT_USER_MODE
			     ? fsr_hwqueue_create_user_mode(churn->process, context, &queue_config,
							    &queue)
			     : fsr_hwqueue_create(churn->process, context, &queue_config, &queue));
		CHURN_OK(churn, fsr_fence_create(churn->process, churn->devices[adapter], 0, 0,
						 &fence, NULL));
		for (int b = 0; b < buffers; b++) {
			struct fsr_cmdbuf *cmdbuf;

			CHURN_OK(churn, fsr_cmdbuf_create(churn->process, queue, &cmdbuf));
			/* The steady fence lives on adapter 0: a wait across adapters is refused.
			 */
			if (adapter == 0 && steady > 0)
				CHURN_OK(churn,
					 fsr_cmdbuf_wait(cmdbuf, churn->steady_fence, steady));
			CHURN_OK(churn, fsr_cmdbuf_work(cmdbuf, 1 + churn_random(churner) % 500));
			CHURN_OK(churn, fsr_cmdbuf_signal(cmdbuf, fence, (uint64_t) b + 1));
			CHURN_OK(churn, fsr_cmdbuf_submit(cmdbuf, NULL));
		}
		if (churn_random(churner) % 2)
			CHURN_OK(churn,
				 fsr_fence_wait_cpu(churn->process, fence, (uint64_t) buffers,
						    TIMEOUT_NS, FSR_WAIT_BLOCKING));
		/* Often with its work still running: the engine must let go of it first. */
		CHURN_OK(churn, fsr_hwqueue_destroy(churn->process, queue));
		CHURN_OK(churn, fsr_fence_close(churn->process, fence));
		CHURN_OK(churn, fsr_context_destroy(churn->process, context));
		if (churner->index == 0)
			fsr_test_force_tracing(churn->runtime, i % 20 < 10);
	}
	return NULL;
}

/* The steady queue: a signal per buffer, until the churners are done. */
static void *
run_steady(void *data)
{
	struct churn *churn = data;
	struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};
	fsr_handle context;
	fsr_handle queue;

	CHURN_OK(churn, fsr_context_create(churn->process, churn->devices[0], 0, &context));
	CHURN_OK(churn,
		 fsr_hwqueue_create_user_mode(churn->process, context, &queue_config, &queue));
	while (!atomic_load(&churn->is_done)) {
		struct fsr_cmdbuf *cmdbuf;
		uint64_t value = atomic_load(&churn->steady_value) + 1;

		CHURN_OK(churn, fsr_cmdbuf_create(churn->process, queue, &cmdbuf));
		CHURN_OK(churn, fsr_cmdbuf_work(cmdbuf, 200));
		CHURN_OK(churn, fsr_cmdbuf_signal(cmdbuf, churn->steady_fence, value));
		CHURN_OK(churn, fsr_cmdbuf_submit(cmdbuf, NULL));
		atomic_store(&churn->steady_value, value);
		CHURN_OK(churn, fsr_fence_wait_cpu(churn->process, churn->steady_fence, value,
						   TIMEOUT_NS, FSR_WAIT_BLOCKING));
	}
	CHURN_OK(churn, fsr_hwqueue_destroy(churn->process, queue));
	CHURN_OK(churn, fsr_context_destroy(churn->process, context));
	return NULL;
}

static void
queues_come_and_go_under_running_engines_in_realtime(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 11};
	struct churn churn = {0};
	struct churner churners[CHURN_THREADS];
	pthread_t threads[CHURN_THREADS];
	pthread_t steady;

	SETUP(fsr_runtime_create(&config, &churn.runtime));
	for (int a = 0; a < 2; a++) {
		struct fsr_adapter_config adapter_config;
		uint32_t adapter;

		fsr_adapter_config_init(&adapter_config);
		adapter_config.log_capacity_entries = 8; /* overruns (LOG-16, LOG-17) */
		adapter_config.interrupt_coalesce_ns = 20000;
		adapter_config.interrupt_form =
		    a == 0 ? FSR_INTERRUPT_HWQUEUE : FSR_INTERRUPT_FENCE_ARRAY;
		SETUP(fsr_adapter_create(churn.runtime, &adapter_config, &adapter));
	}
	SETUP(fsr_process_create(churn.runtime, "churn", &churn.process));
	for (uint32_t a = 0; a < 2; a++)
		SETUP(fsr_device_create(churn.process, a, &churn.devices[a]));
	SETUP(fsr_fence_create(churn.process, churn.devices[0], 0, 0, &churn.steady_fence, NULL));
	if (pthread_create(&steady, NULL, run_steady, &churn) != 0)
		abort();
	for (int i = 0; i < CHURN_THREADS; i++) {
		churners[i] =
		    (struct churner){.churn = &churn,
				     .index = i,
				     .rng = UINT64_C(0x2545f4914f6cdd1d) * (uint64_t) (i + 1)};
		if (pthread_create(&threads[i], NULL, run_churner, &churners[i]) != 0)
			abort();
	}
	for (int i = 0; i < CHURN_THREADS; i++)
		pthread_join(threads[i], NULL);
	atomic_store(&churn.is_done, true);
	pthread_join(steady, NULL);
	CHECK(fsr_runtime_run_until_idle(churn.runtime) == FSR_OK, "the runtime never got idle");
	CHECK(atomic_load(&churn.failures) == 0, "%llu calls failed",
	      (unsigned long long) atomic_load(&churn.failures));
	fsr_test_force_tracing(churn.runtime, false);
	fsr_runtime_destroy(churn.runtime);
}

int
main(void)
{
	int before;

	printf("1..2\n");
	syn_06_no_lost_wakeup_and_no_deadlock_under_realtime_contention();
	printf("%s 1 - syn_06_no_lost_wakeup_and_no_deadlock_under_realtime_contention\n",
	       failed_checks ? "not ok" : "ok");
	before = failed_checks;
	queues_come_and_go_under_running_engines_in_realtime();
	printf("%s 2 - queues_come_and_go_under_running_engines_in_realtime\n",
	       failed_checks > before ? "not ok" : "ok");
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
