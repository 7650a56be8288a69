/* SPDX-License-Identifier: MIT */
/*
 * A small sim-mode workload for end-to-end tests of the runtime's tracing: a producer on a
 * user-mode 3D queue signals a fence that a user-mode compute queue and a kernel-mode copy
 * queue wait for, a CPU thread waits on it now and then, and the fence log of the 3D queue
 * is small enough to overrun between two reads. Work durations come from the seeded random
 * numbers, so the same seed must give the same trace. Usage: fencescope-sim-workload [SEED]
 */
#include <stdio.h>
#include <stdlib.h>

#include <fencescope/runtime.h>

#define ROUNDS 40

#define TRY(call)                                                                                  \
	do {                                                                                       \
		fsr_status status_ = (call);                                                       \
		if (status_ != FSR_OK) {                                                           \
			fprintf(stderr, "sim-workload: %s: %s\n", #call,                           \
				fsr_status_name(status_));                                         \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

int
main(int argc, char **argv)
{
	struct fsr_runtime_config config = {
	    .clock_mode = FSR_CLOCK_SIM,
	    .seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1,
	    .log_read_period_ns = FSR_INFINITE,
	};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config user_mode = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_hwqueue_config kernel_mode = {.mode = FSR_SUBMIT_KERNEL_MODE};
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device, contexts[3], producer, consumer, copier, fence;
	uint32_t adapter;

	fsr_adapter_config_init(&adapter_config);
	adapter_config.log_capacity_entries = 16;
	adapter_config.keep_log_size_when_tracing = true;
	TRY(fsr_runtime_create(&config, &runtime));
	TRY(fsr_adapter_create(runtime, &adapter_config, &adapter));
	TRY(fsr_process_create(runtime, "sim-workload", &process));
	TRY(fsr_device_create(process, adapter, &device));
	for (uint32_t e = 0; e < 3; e++)
		TRY(fsr_context_create(process, device, e, &contexts[e]));
	TRY(fsr_hwqueue_create_user_mode(process, contexts[0], &user_mode, &producer));
	TRY(fsr_hwqueue_create_user_mode(process, contexts[1], &user_mode, &consumer));
	TRY(fsr_hwqueue_create(process, contexts[2], &kernel_mode, &copier));
	TRY(fsr_fence_create(process, device, 0, 0, &fence, NULL));

	for (uint64_t value = 1; value <= ROUNDS; value++) {
		struct fsr_cmdbuf *cmdbuf;

		TRY(fsr_cmdbuf_create(process, producer, &cmdbuf));
		TRY(fsr_cmdbuf_work(cmdbuf, 1000 + fsr_runtime_random(runtime) % 4000));
		TRY(fsr_cmdbuf_signal(cmdbuf, fence, value));
		TRY(fsr_cmdbuf_submit(cmdbuf, NULL));
		if (value % 2 == 0) {
			TRY(fsr_cmdbuf_create(process, consumer, &cmdbuf));
			TRY(fsr_cmdbuf_wait(cmdbuf, fence, value));
			TRY(fsr_cmdbuf_work(cmdbuf, 500 + fsr_runtime_random(runtime) % 1000));
			TRY(fsr_cmdbuf_submit(cmdbuf, NULL));
		}
		if (value % 20 == 0) {
			TRY(fsr_cmdbuf_create(process, copier, &cmdbuf));
			TRY(fsr_cmdbuf_wait(cmdbuf, fence, value));
			TRY(fsr_cmdbuf_work(cmdbuf, 200));
			TRY(fsr_cmdbuf_submit(cmdbuf, NULL));
			/*
			 * Waiters now and then make some signals raise interrupts, and the OS reads
			 * the logs then: 20 signals between reads overrun the 16-entry log.
			 */
			TRY(fsr_fence_wait_cpu(process, fence, value, FSR_INFINITE,
					       FSR_WAIT_BLOCKING));
		}
	}
	TRY(fsr_fence_wait_cpu(process, fence, ROUNDS, FSR_INFINITE, FSR_WAIT_BLOCKING));
	TRY(fsr_runtime_run_until_idle(runtime));
	TRY(fsr_process_terminate(process, false));
	fsr_runtime_destroy(runtime);
	return 0;
}
