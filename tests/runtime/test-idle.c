/* SPDX-License-Identifier: MIT */
/*
 * Realtime idle (suite slow, run under ThreadSanitizer by scripts/test): in realtime mode
 * fsr_runtime_run_until_idle() must return only when nothing is left to run — no queue with
 * work its engine can take, no engine busy, no interrupt pending. Each round releases a queue
 * blocked on a GPU wait and asks for idle at once, which is when the engine thread that the
 * signal woke may not have run yet: then the queue must count as runnable, not as blocked.
 * Hundreds of tiny rounds, because the race is a matter of which thread gets the lock first.
 *
 * This is not the stress test (test-stress.c): it checks the idle test, not lost wake-ups.
 * A plain program speaking TAP, because Criterion cannot run under ThreadSanitizer.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <fencescope/runtime.h>

#include "tap.h"

#define ROUNDS     300
#define TIMEOUT_NS (UINT64_C(20) * 1000000000u)

/* One adapter, one process: a producer on 3D, consumers on compute (user) and copy (kernel). */
struct idle_fixture {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device;
	fsr_handle fence;
	fsr_handle producer;    /* 3D, user mode */
	fsr_handle consumer;    /* compute, user mode */
	fsr_handle km_consumer; /* copy, kernel mode */
	uint64_t value;         /* the fence value of the current round */
};

/*
 * A busy loop on another thread, so that the engine threads compete for the CPUs with it and
 * with the test's thread, as in a recording on a loaded machine.
 */
static _Atomic bool is_loading;

static void *
load_cpu(void *data)
{
	volatile uint64_t spins = 0;

	(void) data;
	while (atomic_load_explicit(&is_loading, memory_order_relaxed))
		spins++;
	return NULL;
}

static fsr_handle
make_queue(struct idle_fixture *fixture, uint32_t engine, enum fsr_submission_mode mode)
{
	struct fsr_hwqueue_config config = {.mode = mode};
	fsr_handle context;
	fsr_handle queue;

	SETUP(fsr_context_create(fixture->process, fixture->device, engine, &context));
	SETUP(mode == FSR_SUBMIT_USER_MODE
		  ? fsr_hwqueue_create_user_mode(fixture->process, context, &config, &queue)
		  : fsr_hwqueue_create(fixture->process, context, &config, &queue));
	return queue;
}

static void
fixture_init(struct idle_fixture *fixture)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 11};
	struct fsr_adapter_config adapter_config;
	uint32_t adapter;

	*fixture = (struct idle_fixture){0};
	fsr_adapter_config_init(&adapter_config);
	SETUP(fsr_runtime_create(&config, &fixture->runtime));
	SETUP(fsr_adapter_create(fixture->runtime, &adapter_config, &adapter));
	SETUP(fsr_process_create(fixture->runtime, "idle", &fixture->process));
	SETUP(fsr_device_create(fixture->process, adapter, &fixture->device));
	SETUP(fsr_fence_create(fixture->process, fixture->device, 0, 0, &fixture->fence, NULL));
	fixture->producer = make_queue(fixture, 0, FSR_SUBMIT_USER_MODE);
	fixture->consumer = make_queue(fixture, 1, FSR_SUBMIT_USER_MODE);
	fixture->km_consumer = make_queue(fixture, 2, FSR_SUBMIT_KERNEL_MODE);
}

static void
fixture_fini(struct idle_fixture *fixture)
{
	SETUP(fsr_process_terminate(fixture->process, false));
	fsr_runtime_destroy(fixture->runtime);
}

/* A command buffer: wait for the round's value if asked, tiny work, signal it if asked. */
static void
submit(struct idle_fixture *fixture, fsr_handle queue, bool is_wait, bool is_signal)
{
	struct fsr_cmdbuf *cmdbuf;

	SETUP(fsr_cmdbuf_create(fixture->process, queue, &cmdbuf));
	if (is_wait)
		SETUP(fsr_cmdbuf_wait(cmdbuf, fixture->fence, fixture->value));
	SETUP(fsr_cmdbuf_work(cmdbuf, 10));
	if (is_signal)
		SETUP(fsr_cmdbuf_signal(cmdbuf, fixture->fence, fixture->value));
	SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
}

/* After run_until_idle: every command buffer of `queue` is done. Returns whether it was. */
static bool
is_drained(struct idle_fixture *fixture, fsr_handle queue)
{
	uint64_t queued;
	uint64_t completed;

	SETUP(fsr_hwqueue_get_progress(fixture->process, queue, &queued, &completed));
	return completed == queued;
}

/* Waits for the queue to drain after all, so that the next round starts clean. */
static void
settle(struct idle_fixture *fixture, fsr_handle queue)
{
	uint64_t queued;

	SETUP(fsr_hwqueue_get_progress(fixture->process, queue, &queued, NULL));
	SETUP(fsr_hwqueue_wait_progress(fixture->process, queue, queued, TIMEOUT_NS));
}

static int
check_drained(struct idle_fixture *fixture, fsr_handle queue)
{
	if (is_drained(fixture, queue))
		return 0;
	settle(fixture, queue);
	return 1;
}

/*
 * As known-answer.json ends: the 3D queue signals, the compute queue waits for the value, the
 * CPU waits for it too and then asks for idle. The CPU wait can end (its interrupt handled by
 * the OS thread) before the compute engine's thread has looked at its wait again.
 */
static int
blocked_rounds_after_gpu_signal(void)
{
	struct idle_fixture fixture;
	int blocked = 0;

	fixture_init(&fixture);
	for (int round = 0; round < ROUNDS; round++) {
		fixture.value++;
		submit(&fixture, fixture.producer, false, true);
		submit(&fixture, fixture.consumer, true, false);
		SETUP(fsr_fence_wait_cpu(fixture.process, fixture.fence, fixture.value, TIMEOUT_NS,
					 FSR_WAIT_BLOCKING));
		SETUP(fsr_runtime_run_until_idle(fixture.runtime));
		blocked += check_drained(&fixture, fixture.producer);
		blocked += check_drained(&fixture, fixture.consumer);
	}
	fixture_fini(&fixture);
	return blocked;
}

/*
 * A queue blocked on a GPU wait (idle: nothing can run), then a CPU signal releases it and the
 * caller asks for idle at once: the engine woken by the signal must count as about to run. On
 * a kernel-mode queue the OS releases the wait itself, in the signal's call.
 */
static int
blocked_rounds_after_cpu_signal(fsr_handle (*queue_of)(struct idle_fixture *fixture))
{
	struct idle_fixture fixture;
	int blocked = 0;

	fixture_init(&fixture);
	for (int round = 0; round < ROUNDS; round++) {
		fixture.value++;
		submit(&fixture, queue_of(&fixture), true, false);
		SETUP(fsr_runtime_run_until_idle(fixture.runtime));
		SETUP(fsr_fence_signal_cpu(fixture.process, fixture.fence, fixture.value));
		SETUP(fsr_runtime_run_until_idle(fixture.runtime));
		blocked += check_drained(&fixture, queue_of(&fixture));
	}
	fixture_fini(&fixture);
	return blocked;
}

static fsr_handle
user_mode_consumer(struct idle_fixture *fixture)
{
	return fixture->consumer;
}

static fsr_handle
kernel_mode_consumer(struct idle_fixture *fixture)
{
	return fixture->km_consumer;
}

static void
report(int number, const char *name, int blocked)
{
	if (blocked) {
		printf("# %d of %d rounds: run_until_idle returned with a queue not done\n",
		       blocked, ROUNDS);
		failed_checks++;
	}
	printf("%s %d - %s\n", blocked ? "not ok" : "ok", number, name);
}

int
main(void)
{
	pthread_t loader;

	printf("1..3\n");
	atomic_store(&is_loading, true);
	if (pthread_create(&loader, NULL, load_cpu, NULL) != 0)
		abort();
	report(1, "idle_after_gpu_signal_means_the_waiting_queue_is_done",
	       blocked_rounds_after_gpu_signal());
	report(2, "idle_after_cpu_signal_means_the_user_mode_queue_is_done",
	       blocked_rounds_after_cpu_signal(user_mode_consumer));
	report(3, "idle_after_cpu_signal_means_the_kernel_mode_queue_is_done",
	       blocked_rounds_after_cpu_signal(kernel_mode_consumer));
	atomic_store(&is_loading, false);
	pthread_join(loader, NULL);
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
