/* SPDX-License-Identifier: MIT */
/*
 * Cross-adapter fences in realtime (suite slow, run under ThreadSanitizer by scripts/test): the
 * propagation crosses threads — a dGPU engine's thread writes the shared CurrentValue and raises
 * its interrupt, the OS's thread propagates it (XAD-07) and wakes the other adapters' engine
 * threads through their drivers' run-list rescans, and the test's thread waits from the CPU.
 * Three adapters: a native iGPU, the dGPU and an iGPU without native fences (scenario 2).
 * Each round, the dGPU signals a fence both iGPUs wait for (GPU and software waits, then a CPU
 * wait), and the non-native iGPU signals another back to the dGPU from a kernel-mode queue
 * (scenario 2b). Nothing may be lost: every wait ends, every queue completes.
 * A plain program speaking TAP, because Criterion cannot run under ThreadSanitizer.
 */
#include <stdio.h>
#include <stdlib.h>

#include <fencescope/runtime.h>

#include "fencescope-test.h"
#include "tap.h"

#define ROUNDS     200
#define TIMEOUT_NS (UINT64_C(20) * 1000000000u)

static struct fsr_process *process;

static uint32_t
add_adapter(struct fsr_runtime *runtime, bool is_native, fsr_handle *device, fsr_handle *context)
{
	struct fsr_adapter_config config;
	uint32_t adapter;

	fsr_adapter_config_init(&config);
	config.no_native_fences = !is_native;
	SETUP(fsr_adapter_create(runtime, &config, &adapter));
	SETUP(fsr_device_create(process, adapter, device));
	SETUP(fsr_context_create(process, *device, 0, context));
	return adapter;
}

static fsr_handle
queue_new(fsr_handle context, enum fsr_submission_mode mode)
{
	struct fsr_hwqueue_config config = {.mode = mode};
	fsr_handle queue;

	SETUP(mode == FSR_SUBMIT_USER_MODE
		  ? fsr_hwqueue_create_user_mode(process, context, &config, &queue)
		  : fsr_hwqueue_create(process, context, &config, &queue));
	return queue;
}

static uint64_t
submit(fsr_handle queue, fsr_handle fence, uint64_t value, bool is_wait)
{
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress;

	SETUP(fsr_cmdbuf_create(process, queue, &cmdbuf));
	if (!is_wait)
		SETUP(fsr_cmdbuf_work(cmdbuf, 200));
	SETUP(is_wait ? fsr_cmdbuf_wait(cmdbuf, fence, value)
		      : fsr_cmdbuf_signal(cmdbuf, fence, value));
	SETUP(fsr_cmdbuf_submit(cmdbuf, &progress));
	return progress;
}

int
main(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 14};
	struct fsr_runtime *runtime;
	fsr_handle igpu_device, igpu_context, dgpu_device, dgpu_context, legacy_device,
	    legacy_context;
	fsr_handle down_global, up_global;
	fsr_handle down_dgpu, down_igpu, down_legacy; /* dGPU -> both iGPUs */
	fsr_handle up_legacy, up_dgpu;                /* non-native iGPU -> dGPU */
	fsr_handle dgpu_queue, dgpu_wait_queue, igpu_queue, legacy_queue, legacy_signal_queue;
	uint64_t progress[5] = {0};
	struct fsr_test_invariants invariants;

	printf("1..4\n");
	SETUP(fsr_runtime_create(&config, &runtime));
	SETUP(fsr_process_create(runtime, "cross-adapter", &process));
	add_adapter(runtime, true, &igpu_device, &igpu_context);
	add_adapter(runtime, true, &dgpu_device, &dgpu_context);
	add_adapter(runtime, false, &legacy_device, &legacy_context);
	SETUP(fsr_fence_create(process, dgpu_device, 0, FSR_FENCE_CROSS_ADAPTER, &down_dgpu,
			       &down_global));
	SETUP(fsr_fence_open(process, igpu_device, down_global, &down_igpu));
	SETUP(fsr_fence_open(process, legacy_device, down_global, &down_legacy));
	SETUP(fsr_fence_create(process, legacy_device, 0, FSR_FENCE_CROSS_ADAPTER, &up_legacy,
			       &up_global));
	SETUP(fsr_fence_open(process, dgpu_device, up_global, &up_dgpu));
	dgpu_queue = queue_new(dgpu_context, FSR_SUBMIT_USER_MODE);
	igpu_queue = queue_new(igpu_context, FSR_SUBMIT_USER_MODE);
	legacy_queue = queue_new(legacy_context, FSR_SUBMIT_KERNEL_MODE);
	{
		fsr_handle context;

		SETUP(fsr_context_create(process, dgpu_device, 1, &context));
		dgpu_wait_queue = queue_new(context, FSR_SUBMIT_USER_MODE);
		SETUP(fsr_context_create(process, legacy_device, 1, &context));
		legacy_signal_queue = queue_new(context, FSR_SUBMIT_KERNEL_MODE);
	}

	for (uint64_t v = 1; v <= ROUNDS; v++) {
		fsr_status status;

		/* Scenario 1 and 2a: waits on both iGPUs, the signal on the dGPU. */
		progress[0] = submit(igpu_queue, down_igpu, v, true);
		progress[1] = submit(legacy_queue, down_legacy, v, true);
		progress[2] = submit(dgpu_queue, down_dgpu, v, false);
		/* Scenario 2b: a wait on the dGPU, the signal on the non-native iGPU. */
		progress[3] = submit(dgpu_wait_queue, up_dgpu, v, true);
		progress[4] = submit(legacy_signal_queue, up_legacy, v, false);
		status = fsr_fence_wait_cpu(process, down_igpu, v, TIMEOUT_NS, FSR_WAIT_BLOCKING);
		CHECK(status == FSR_OK, "round %lu: iGPU CPU wait: %s", (unsigned long) v,
		      fsr_status_name(status));
		status = fsr_fence_wait_cpu(process, down_legacy, v, TIMEOUT_NS, FSR_WAIT_BLOCKING);
		CHECK(status == FSR_OK, "round %lu: non-native iGPU CPU wait: %s",
		      (unsigned long) v, fsr_status_name(status));
		status = fsr_fence_wait_cpu(process, up_dgpu, v, TIMEOUT_NS, FSR_WAIT_BLOCKING);
		CHECK(status == FSR_OK, "round %lu: dGPU CPU wait: %s", (unsigned long) v,
		      fsr_status_name(status));
		if (failed_checks)
			break;
	}
	printf("%s 1 - every CPU wait on another adapter's signal ended\n",
	       failed_checks ? "not ok" : "ok");

	{
		fsr_handle queues[5] = {igpu_queue, legacy_queue, dgpu_queue, dgpu_wait_queue,
					legacy_signal_queue};
		int before = failed_checks;

		for (int q = 0; q < 5; q++) {
			fsr_status status =
			    fsr_hwqueue_wait_progress(process, queues[q], progress[q], TIMEOUT_NS);

			CHECK(status == FSR_OK, "queue %d: %s", q, fsr_status_name(status));
		}
		printf("%s 2 - every GPU and software wait was released\n",
		       failed_checks > before ? "not ok" : "ok");
	}
	{
		uint64_t a = 0;
		uint64_t b = 0;
		int before = failed_checks;

		SETUP(fsr_fence_read(process, down_legacy, &a));
		SETUP(fsr_fence_read(process, up_dgpu, &b));
		CHECK(a == ROUNDS && b == ROUNDS, "values %lu %lu", (unsigned long) a,
		      (unsigned long) b);
		printf("%s 3 - one CurrentValue on every adapter (XAD-03)\n",
		       failed_checks > before ? "not ok" : "ok");
	}
	SETUP(fsr_runtime_run_until_idle(runtime));
	fsr_test_invariants(runtime, &invariants);
	CHECK(invariants.unreleased_waiters == 0, "%u waiters left whose value was reached",
	      invariants.unreleased_waiters);
	printf("%s 4 - no waiter left behind (SYN-06)\n",
	       invariants.unreleased_waiters ? "not ok" : "ok");
	fsr_runtime_destroy(runtime);
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
