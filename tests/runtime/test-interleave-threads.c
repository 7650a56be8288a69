/* SPDX-License-Identifier: MIT */
/*
 * Sim-mode interleaving's threads (common/interleave.c) under ThreadSanitizer: a plain TAP
 * program, because Criterion cannot run under ThreadSanitizer (suite slow; scripts/test runs it
 * again in a ThreadSanitizer build). 100 seeds of two engines signalling and waiting on each
 * other while the caller waits and submits: every wait is released, and the same seed gives
 * the same trace. The rules themselves are checked by test-interleave.c.
 */
#include <stdbool.h>

#include "tap.h"

static int failures; /* of the current TAP test */
static int test_count;

static void
ok(bool condition, const char *what, uint64_t seed)
{
	if (!condition) {
		printf("# seed %llu: %s\n", (unsigned long long) seed, what);
		failures++;
		failed_checks++;
	}
}

enum op {
	OP_WORK,
	OP_SIGNAL,
	OP_WAIT,
};

static void
submit(struct fsr_process *process, fsr_handle queue, enum op op, fsr_handle fence, uint64_t value)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	SETUP(fsr_cmdbuf_create(process, queue, &cmdbuf));
	if (op == OP_WORK)
		SETUP(fsr_cmdbuf_work(cmdbuf, value));
	else if (op == OP_SIGNAL)
		SETUP(fsr_cmdbuf_signal(cmdbuf, fence, value));
	else
		SETUP(fsr_cmdbuf_wait(cmdbuf, fence, value));
	SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
}

/* Returns the trace hash; counts the waits that failed in *failed. */
static uint64_t
run(uint64_t seed, int *failed)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_SIM,
					    .seed = 1,
					    .log_read_period_ns = FSR_INFINITE,
					    .interleave_seed = seed};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_runtime_stats stats;
	struct fsr_runtime *runtime = NULL;
	struct fsr_process *process = NULL;
	fsr_handle device = 0, c0 = 0, c1 = 0, q0 = 0, q1 = 0, f = 0, g = 0;
	uint32_t adapter = 0;

	fsr_adapter_config_init(&adapter_config);
	adapter_config.keep_log_size_when_tracing = true;
	SETUP(fsr_runtime_create(&config, &runtime));
	SETUP(fsr_adapter_create(runtime, &adapter_config, &adapter));
	SETUP(fsr_process_create(runtime, "interleave", &process));
	SETUP(fsr_device_create(process, adapter, &device));
	SETUP(fsr_context_create(process, device, 0, &c0));
	SETUP(fsr_context_create(process, device, 1, &c1));
	SETUP(fsr_hwqueue_create_user_mode(process, c0, &queue_config, &q0));
	SETUP(fsr_hwqueue_create_user_mode(process, c1, &queue_config, &q1));
	SETUP(fsr_fence_create(process, device, 0, 0, &f, NULL));
	SETUP(fsr_fence_create(process, device, 0, 0, &g, NULL));
	submit(process, q1, OP_WAIT, f, 2);
	submit(process, q1, OP_SIGNAL, g, 1);
	for (uint64_t i = 1; i <= 3; i++) {
		submit(process, q0, OP_WORK, 0, 50);
		submit(process, q0, OP_SIGNAL, f, i);
	}
	*failed += fsr_fence_wait_cpu(process, f, 1, 10000000, FSR_WAIT_BLOCKING) != FSR_OK;
	*failed += fsr_fence_wait_cpu(process, g, 1, 10000000, FSR_WAIT_BLOCKING) != FSR_OK;
	*failed += fsr_fence_wait_cpu(process, f, 3, 10000000, FSR_WAIT_BLOCKING) != FSR_OK;
	fsr_runtime_run_until_idle(runtime);
	fsr_runtime_get_stats(runtime, &stats);
	fsr_runtime_destroy(runtime);
	return stats.trace_hash;
}

int
main(void)
{
	int failed = 0;

	printf("1..2\n");
	for (uint64_t seed = 1; seed <= 100; seed++) {
		int before = failed;

		run(seed, &failed);
		ok(failed == before, "a wait was not released", seed);
	}
	printf("%s %d - 100 seeds: every wait released\n", failures ? "not ok" : "ok",
	       ++test_count);
	failures = 0;
	for (uint64_t seed = 1; seed <= 10; seed++)
		ok(run(seed, &failed) == run(seed, &failed), "same seed, another trace", seed);
	printf("%s %d - same seed, same trace\n", failures ? "not ok" : "ok", ++test_count);
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
