/* SPDX-License-Identifier: MIT */
/*
 * The smallest program of your own on the fencescope runtime: a 3D queue and a compute queue of
 * one emulated process hand a native fence back and forth ten times (3D signals 1, compute waits
 * for 1 and signals 2, 3D waits for 2 and signals 3, ...), each step after some GPU work. Every
 * call fires the runtime's tracepoints, so recording it shows twenty boxes per queue and their
 * dependency arrows:
 *
 *     cc fence-ping-pong.c $(pkg-config --cflags --libs fencescope-runtime) -o fence-ping-pong
 *     fencescope record --clock sim -- ./fence-ping-pong      # or --clock realtime
 *     fencescope report fencescope-trace-*
 *
 * `fencescope record` tells the program which clock it records with in FENCESCOPE_CLOCK
 * ("sim" or "realtime"); the runtime must run in that clock mode (docs/recording.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fencescope/runtime.h>

#define ROUNDS 10

#define CHECK(call)                                                                                \
	do {                                                                                       \
		fsr_status check_status = (call);                                                  \
		if (check_status != FSR_OK) {                                                      \
			fprintf(stderr, "fence-ping-pong: %s: %s\n", #call,                        \
				fsr_status_name(check_status));                                    \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* One command buffer: wait for `wait_value` (0: no wait), work, signal `signal_value`. */
static void
submit(struct fsr_process *process, fsr_handle queue, fsr_handle fence, uint64_t wait_value,
       uint64_t signal_value)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	CHECK(fsr_cmdbuf_create(process, queue, &cmdbuf));
	if (wait_value)
		CHECK(fsr_cmdbuf_wait(cmdbuf, fence, wait_value));
	CHECK(fsr_cmdbuf_work(cmdbuf, 2000)); /* 20 µs at the default 100 MHz */
	CHECK(fsr_cmdbuf_signal(cmdbuf, fence, signal_value));
	CHECK(fsr_cmdbuf_submit(cmdbuf, NULL));
}

int
main(void)
{
	const char *clock = getenv("FENCESCOPE_CLOCK");
	struct fsr_runtime_config config = {
	    .clock_mode = clock && strcmp(clock, "sim") == 0 ? FSR_CLOCK_SIM : FSR_CLOCK_REALTIME,
	    .seed = 1,
	};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_runtime *runtime = NULL;
	struct fsr_process *process = NULL;
	fsr_handle device, context_3d, context_compute, queue_3d, queue_compute, fence;
	uint32_t adapter_id;

	CHECK(fsr_runtime_create(&config, &runtime));
	fsr_adapter_config_init(&adapter_config); /* engine 0: 3D, 1: compute, 2: copy */
	CHECK(fsr_adapter_create(runtime, &adapter_config, &adapter_id));
	CHECK(fsr_process_create(runtime, "fence-ping-pong", &process));
	CHECK(fsr_device_create(process, adapter_id, &device));
	CHECK(fsr_context_create(process, device, 0, &context_3d));
	CHECK(fsr_context_create(process, device, 1, &context_compute));
	/* A user-mode queue takes work only through its doorbell: made, connected, ready. */
	CHECK(fsr_hwqueue_create_user_mode(process, context_3d, &queue_config, &queue_3d));
	CHECK(
	    fsr_hwqueue_create_user_mode(process, context_compute, &queue_config, &queue_compute));
	CHECK(fsr_fence_create(process, device, 0, 0, &fence, NULL));

	for (uint64_t v = 1; v <= 2 * ROUNDS; v += 2) {
		submit(process, queue_3d, fence, v - 1, v);
		submit(process, queue_compute, fence, v, v + 1);
	}
	/* The CPU waits for the last value: in sim mode this runs the virtual clock. */
	CHECK(fsr_fence_wait_cpu(process, fence, 2 * ROUNDS, FSR_INFINITE, FSR_WAIT_BLOCKING));
	printf("fence-ping-pong: %d round trips on the %s clock\n", ROUNDS,
	       config.clock_mode == FSR_CLOCK_SIM ? "sim" : "realtime");
	CHECK(fsr_process_terminate(process, false));
	fsr_runtime_destroy(runtime);
	return 0;
}
