/* SPDX-License-Identifier: MIT */
/*
 * The built-in scenarios: real workloads on the runtime's public API whose totals are known
 * in advance, so that a recording of any of them can be checked event by event. Each one
 * builds its own runtime, runs to the end, and tears down. `fencescope run --list` shows them;
 * adding one is a function and a line in `builtins[]`.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fencescope/scenario.h>

#include "fencescope-test.h" /* the GPU's faults (tdr-hang, adapter-reset) */

/* One adapter, one process, a device and a context per engine: what every scenario starts from. */
struct world {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	uint32_t adapter;
	fsr_handle device;
	fsr_handle contexts[3]; /* 3D, compute, copy */
	struct fsr_scenario_totals *totals;
	uint64_t start_ns;
	char **error;
};

/* Fails the scenario with a message naming the call; `world` and label `end` in scope. */
#define TRY(call)                                                                                  \
	do {                                                                                       \
		status = (call);                                                                   \
		if (status != FSR_OK) {                                                            \
			world_fail(world, status, #call);                                          \
			goto end;                                                                  \
		}                                                                                  \
	} while (0)

static void
world_fail(struct world *world, fsr_status status, const char *call)
{
	if (world->error && !*world->error &&
	    asprintf(world->error, "%s failed: %s", call, fsr_status_name(status)) < 0)
		*world->error = NULL;
}

static fsr_status
world_open(struct world *world, const struct fsr_scenario_options *options,
	   struct fsr_runtime_config *runtime_config,
	   const struct fsr_adapter_config *adapter_config)
{
	fsr_status status;

	runtime_config->clock_mode = options->clock_mode;
	runtime_config->seed = options->seed ? options->seed : 1; /* 0: the scenario's own */
	runtime_config->interleave_seed = options->interleave_seed;
	runtime_config->fault_plan = options->fault_plan;
	TRY(fsr_runtime_create(runtime_config, &world->runtime));
	TRY(fsr_adapter_create(world->runtime, adapter_config, &world->adapter));
	TRY(fsr_process_create(world->runtime, "scenario", &world->process));
	TRY(fsr_device_create(world->process, world->adapter, &world->device));
	for (uint32_t e = 0; e < 3; e++)
		TRY(fsr_context_create(world->process, world->device, e, &world->contexts[e]));
	world->start_ns = fsr_runtime_now_ns(world->runtime);
end:
	return status;
}

/* Lets everything queued finish, then records the runtime's own counts and tears down. */
static fsr_status
world_close(struct world *world, fsr_status status)
{
	struct fsr_runtime_stats stats;

	if (!world->runtime)
		return status;
	if (status == FSR_OK)
		status = fsr_runtime_run_until_idle(world->runtime);
	if (world->process) {
		fsr_status terminate = fsr_process_terminate(world->process, status != FSR_OK);

		if (status == FSR_OK && terminate != FSR_OK) {
			status = terminate;
			world_fail(world, status, "fsr_process_terminate");
		}
	}
	fsr_runtime_get_stats(world->runtime, &stats);
	world->totals->log_entries_read = stats.log_entries_read;
	world->totals->log_entries_lost = stats.log_entries_lost;
	world->totals->events = stats.events;
	if (fsr_runtime_get_clock_mode(world->runtime) == FSR_CLOCK_SIM)
		world->totals->virtual_ns = fsr_runtime_now_ns(world->runtime) - world->start_ns;
	fsr_runtime_destroy(world->runtime);
	return status;
}

static fsr_status
queue_new(struct world *world, uint32_t engine, enum fsr_submission_mode mode, fsr_handle *queue)
{
	struct fsr_hwqueue_config config = {.mode = mode, .ring_size_bytes = 256 * 1024};

	/* A user-mode queue takes work only through its doorbell (UMS-13): made ready here. */
	if (mode == FSR_SUBMIT_USER_MODE)
		return fsr_hwqueue_create_user_mode(world->process, world->contexts[engine],
						    &config, queue);
	return fsr_hwqueue_create(world->process, world->contexts[engine], &config, queue);
}

/* A command buffer: optional wait, work, optional signal, as a UMD would record it. */
struct step {
	fsr_handle queue;
	bool is_user_mode;
	fsr_handle wait_fence;
	uint64_t wait_value;
	uint64_t work_ticks;
	fsr_handle signal_fence;
	uint64_t signal_value;
};

static fsr_status
submit(struct world *world, const struct step *step)
{
	struct fsr_scenario_totals *totals = world->totals;
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_status status;

	TRY(fsr_cmdbuf_create(world->process, step->queue, &cmdbuf));
	if (step->wait_fence)
		TRY(fsr_cmdbuf_wait(cmdbuf, step->wait_fence, step->wait_value));
	if (step->work_ticks)
		TRY(fsr_cmdbuf_work(cmdbuf, step->work_ticks));
	if (step->signal_fence)
		TRY(fsr_cmdbuf_signal(cmdbuf, step->signal_fence, step->signal_value));
	status = fsr_cmdbuf_submit(cmdbuf, NULL);
	cmdbuf = NULL; /* freed by submit, whatever it returned */
	if (status != FSR_OK) {
		world_fail(world, status, "fsr_cmdbuf_submit");
		goto end;
	}
	totals->submissions++;
	totals->work_gpu_ticks += step->work_ticks;
	if (step->is_user_mode) {
		totals->gpu_waits += step->wait_fence != 0;
		totals->gpu_signals += step->signal_fence != 0;
	} else {
		totals->kernel_waits += step->wait_fence != 0;
		totals->kernel_signals += step->signal_fence != 0;
	}
end:
	fsr_cmdbuf_destroy(cmdbuf);
	return status;
}

static fsr_status
cpu_wait(struct world *world, fsr_handle fence, uint64_t value)
{
	fsr_status status =
	    fsr_fence_wait_cpu(world->process, fence, value, FSR_INFINITE, FSR_WAIT_BLOCKING);

	world->totals->cpu_waits++;
	if (status != FSR_OK)
		world_fail(world, status, "fsr_fence_wait_cpu");
	return status;
}

static uint64_t
random_between(struct world *world, uint64_t low, uint64_t high)
{
	return low + fsr_runtime_random(world->runtime) % (high - low + 1);
}

/* ---- producer-consumer --------------------------------------------------------------------- */

/* A 3D queue produces, a compute queue consumes each value: GPU-to-GPU sync (SYN-11). */
static fsr_status
run_producer_consumer(const struct fsr_scenario *scenario,
		      const struct fsr_scenario_options *options,
		      struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 200;
	fsr_handle producer, consumer, fence;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &producer));
	TRY(queue_new(world, 1, FSR_SUBMIT_USER_MODE, &consumer));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &fence, NULL));
	for (uint64_t value = 1; value <= rounds; value++) {
		TRY(submit(world, &(struct step){.queue = producer,
						 .is_user_mode = true,
						 .work_ticks = random_between(world, 2000, 8000),
						 .signal_fence = fence,
						 .signal_value = value}));
		TRY(submit(world, &(struct step){.queue = consumer,
						 .is_user_mode = true,
						 .wait_fence = fence,
						 .wait_value = value,
						 .work_ticks = random_between(world, 1000, 6000)}));
		/* Keep a bounded amount in flight, as an application would. */
		if (value % 32 == 0)
			TRY(cpu_wait(world, fence, value - 16));
	}
end:
	return world_close(world, status);
}

/* ---- frame-pipeline ------------------------------------------------------------------------ */

#define FRAME_PERIOD_NS  16666667u /* 60 Hz: the display's default refresh */
#define FRAME_LONG_EVERY 8         /* every 8th frame renders longer than a frame */

/*
 * Frames presented on a 60 Hz display (PRE-13). The CPU starts a frame every period: the copy
 * engine uploads it (kernel mode: copy engines take no user-mode submission, UMS-05) once the
 * previous frame's render is done — a GPU wait on the previous frame, whose upload buffer this
 * one reuses —, the 3D engine renders it once uploaded (user mode), and the application
 * presents it (fsr_present): the OS waits for the render, then has the driver program an MMIO
 * flip that the display takes at its next vsync. Every FRAME_LONG_EVERY-th frame renders for
 * longer than a frame, so a vsync passes without a flip and the frames behind it queue. The
 * display's flip queue (FSR_MAX_QUEUED_FLIPS) holds the CPU back when it runs ahead.
 */
static fsr_status
run_frame_pipeline(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		   struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t frames = options->scale ? options->scale : 120;
	fsr_handle copy, render, uploaded, rendered;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.display_count = 1;
	adapter_config.vsync_period_ns = FRAME_PERIOD_NS;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 2, FSR_SUBMIT_KERNEL_MODE, &copy));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &render));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &uploaded, NULL));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &rendered, NULL));
	for (uint64_t frame = 1; frame <= frames; frame++) {
		uint64_t start = world->start_ns + (frame - 1) * FRAME_PERIOD_NS;
		uint64_t render_ticks = frame % FRAME_LONG_EVERY == 0
					    ? random_between(world, 2000000, 2500000)
					    : random_between(world, 400000, 1200000);

		TRY(fsr_runtime_run_until(world->runtime, start));
		TRY(submit(world, &(struct step){.queue = copy,
						 .wait_fence = rendered,
						 .wait_value = frame - 1,
						 .work_ticks = random_between(world, 50000, 150000),
						 .signal_fence = uploaded,
						 .signal_value = frame}));
		TRY(submit(world, &(struct step){.queue = render,
						 .is_user_mode = true,
						 .wait_fence = uploaded,
						 .wait_value = frame,
						 .work_ticks = render_ticks,
						 .signal_fence = rendered,
						 .signal_value = frame}));
		TRY(fsr_present(world->process, render, 0, NULL));
		totals->flips++;
	}
end:
	/* world_close runs until idle: until every flip is on screen. */
	return world_close(world, status);
}

/* ---- log-overrun --------------------------------------------------------------------------- */

#define OVERRUN_LOG_ENTRIES 16
#define OVERRUN_BURST       40

/*
 * A 16-entry log read only when an interrupt comes: bursts of 40 signals between two CPU
 * waits overrun it every time (LOG-16, LOG-17), and each overrun makes the OS scan the
 * device's fences (LOG-18).
 */
static fsr_status
run_log_overrun(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {.log_read_period_ns = FSR_INFINITE};
	struct fsr_adapter_config adapter_config;
	uint64_t bursts = options->scale ? options->scale : 10;
	fsr_handle queue, fence;
	uint64_t value = 0;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.log_capacity_entries = OVERRUN_LOG_ENTRIES;
	adapter_config.keep_log_size_when_tracing = true;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &queue));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &fence, NULL));
	for (uint64_t burst = 0; burst < bursts; burst++) {
		for (int i = 0; i < OVERRUN_BURST; i++) {
			value++;
			TRY(submit(world, &(struct step){.queue = queue,
							 .is_user_mode = true,
							 .work_ticks = 500,
							 .signal_fence = fence,
							 .signal_value = value}));
		}
		TRY(cpu_wait(world, fence, value));
	}
end:
	return world_close(world, status);
}

/* ---- cpu-waiters --------------------------------------------------------------------------- */

#define WAITER_FENCES 4

/* Atomics: in realtime mode the callbacks run on the OS's thread. */
struct waiter_count {
	_Atomic uint64_t ended;
	_Atomic uint64_t failed;
};

static void
count_waiter(fsr_status status, uint64_t observed_value, void *user_data)
{
	struct waiter_count *count = user_data;

	(void) observed_value;
	atomic_fetch_add(&count->failed, status != FSR_OK);
	atomic_fetch_add(&count->ended, 1);
}

/*
 * Many CPU waiters on few fences, at spread values, while a queue signals each fence one step
 * at a time: MonitoredValue follows the least waited value (NFV-04, NFV-09) and only the
 * signals that release someone interrupt the CPU (INT-02).
 */
static fsr_status
run_cpu_waiters(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t waiters = options->scale ? options->scale : 64;
	struct waiter_count count = {0, 0};
	fsr_handle queue, fences[WAITER_FENCES];
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 1, FSR_SUBMIT_USER_MODE, &queue));
	for (int f = 0; f < WAITER_FENCES; f++)
		TRY(fsr_fence_create(world->process, world->device, 0, 0, &fences[f], NULL));
	for (uint64_t w = 0; w < waiters; w++)
		for (int f = 0; f < WAITER_FENCES; f++)
			TRY(fsr_fence_wait_cpu_async(world->process, fences[f],
						     random_between(world, 1, waiters),
						     FSR_INFINITE, count_waiter, &count));
	for (uint64_t value = 1; value <= waiters; value++)
		for (int f = 0; f < WAITER_FENCES; f++)
			TRY(submit(world, &(struct step){.queue = queue,
							 .is_user_mode = true,
							 .work_ticks = 1000,
							 .signal_fence = fences[f],
							 .signal_value = value}));
	TRY(fsr_runtime_run_until_idle(world->runtime));
	/* Realtime: the last callbacks may still be on their way from the OS's thread. */
	for (int tries = 0; atomic_load(&count.ended) < waiters * WAITER_FENCES && tries < 5000;
	     tries++)
		fsr_runtime_run_until(world->runtime, fsr_runtime_now_ns(world->runtime) + 1000000);
	totals->cpu_waits += atomic_load(&count.ended);
	if (atomic_load(&count.ended) != waiters * WAITER_FENCES || atomic_load(&count.failed)) {
		status = FSR_ERR_BAD_STATE;
		world_fail(world, status, "an asynchronous CPU wait");
	}
end:
	return world_close(world, status);
}

/* ---- stress -------------------------------------------------------------------------------- */

/*
 * Size it at will (`--scale` rounds, about 40 events each): three user-mode queues chained
 * through three fences in a ring, a kernel-mode copy queue joining in every fourth round, and
 * a CPU throttle. Ten million events is about 250 000 rounds.
 */
static fsr_status
run_stress(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
	   struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 1000;
	fsr_handle queues[3], copy, fences[3];
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &queues[0]));
	TRY(queue_new(world, 1, FSR_SUBMIT_USER_MODE, &queues[1]));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &queues[2]));
	TRY(queue_new(world, 2, FSR_SUBMIT_KERNEL_MODE, &copy));
	for (int f = 0; f < 3; f++)
		TRY(fsr_fence_create(world->process, world->device, 0, 0, &fences[f], NULL));
	for (uint64_t round = 1; round <= rounds; round++) {
		for (int q = 0; q < 3; q++) {
			/* Queue q waits for the previous queue's value of this round. */
			int previous = (q + 2) % 3;

			TRY(submit(world,
				   &(struct step){.queue = queues[q],
						  .is_user_mode = true,
						  .wait_fence = q == 0 ? (round > 1 ? fences[2] : 0)
								       : fences[previous],
						  .wait_value = q == 0 ? round - 1 : round,
						  .work_ticks = random_between(world, 100, 2000),
						  .signal_fence = fences[q],
						  .signal_value = round}));
		}
		if (round % 4 == 0)
			TRY(submit(world, &(struct step){.queue = copy,
							 .wait_fence = fences[1],
							 .wait_value = round,
							 .work_ticks = 300}));
		if (round % 64 == 0)
			TRY(cpu_wait(world, fences[2], round - 32));
	}
	TRY(cpu_wait(world, fences[2], rounds));
end:
	return world_close(world, status);
}

/* ---- doorbells ----------------------------------------------------------------------------- */

/*
 * A user-mode queue that takes work through its doorbell: fsr_hwqueue_create_user_mode
 * (CreateHwQueue, CreateDoorbell, ConnectDoorbell; UMS-08, UMS-12, UMS-15), through queue_new.
 * Every doorbell scenario makes its queues here. On dedicated doorbells fewer than the queues,
 * each connect past the physical count victimizes the least recently used (UMS-22, UMS-23);
 * from then on fsr_cmdbuf_submit rings the doorbell and reconnects on DISCONNECTED_RETRY
 * itself (UMS-14, UMS-15).
 */
static fsr_status
queue_with_doorbell(struct world *world, uint32_t engine, fsr_handle *queue)
{
	return queue_new(world, engine, FSR_SUBMIT_USER_MODE, queue);
}

#define PRESSURE_QUEUES    6
#define PRESSURE_DOORBELLS 2

/*
 * Dedicated doorbells under pressure (UMS-20 to UMS-24): 6 user-mode queues on the 3D and the
 * compute engine share 2 physical doorbells. Each round every queue waits for the previous
 * queue's fence (queue 0 for the last queue's previous round) and signals its own, so the
 * queues form a ring of GPU waits and signals. Each queue submits two buffers in a row (the
 * wait and work, then more work and the signal), the queues round robin: the first ring finds
 * the doorbell victimized since the queue's last turn (RETRY) and reconnects, victimizing the
 * least recently used other queue (UMS-22, UMS-23) — a victimization and a reconnect per queue
 * and round — and the second finds it connected. The compute engine's doorbells connect
 * CONNECTED_NOTIFY_KMD (UMS-24), so that second ring is followed by NotifyWorkSubmission.
 */
static fsr_status
run_doorbell_pressure(const struct fsr_scenario *scenario,
		      const struct fsr_scenario_options *options,
		      struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 40;
	fsr_handle queues[PRESSURE_QUEUES], fences[PRESSURE_QUEUES];
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.doorbell_model = FSR_DOORBELL_DEDICATED;
	adapter_config.physical_doorbells = PRESSURE_DOORBELLS;
	adapter_config.doorbell_notify_kmd_engines = 1u << 1;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	for (uint32_t q = 0; q < PRESSURE_QUEUES; q++) {
		TRY(queue_with_doorbell(world, q % 2, &queues[q]));
		TRY(fsr_fence_create(world->process, world->device, 0, 0, &fences[q], NULL));
	}
	for (uint64_t round = 1; round <= rounds; round++) {
		for (uint32_t q = 0; q < PRESSURE_QUEUES; q++) {
			bool is_first = q == 0;
			fsr_handle wait_fence = is_first
						    ? (round > 1 ? fences[PRESSURE_QUEUES - 1] : 0)
						    : fences[q - 1];

			TRY(submit(world,
				   &(struct step){.queue = queues[q],
						  .is_user_mode = true,
						  .wait_fence = wait_fence,
						  .wait_value = is_first ? round - 1 : round,
						  .work_ticks = random_between(world, 500, 3000)}));
			TRY(submit(world,
				   &(struct step){.queue = queues[q],
						  .is_user_mode = true,
						  .work_ticks = random_between(world, 100, 500),
						  .signal_fence = fences[q],
						  .signal_value = round}));
		}
		/* Two rounds in flight at most: the rounds' submissions, and so the victimizations,
		 * spread over the GPU's work instead of all coming at the start. */
		if (round > 2)
			TRY(cpu_wait(world, fences[PRESSURE_QUEUES - 1], round - 2));
	}
	TRY(cpu_wait(world, fences[PRESSURE_QUEUES - 1], rounds));
end:
	return world_close(world, status);
}

#define GLOBAL_QUEUES 32
#define GLOBAL_CHAIN  4

/*
 * The global doorbell (UMS-17 to UMS-19): 32 user-mode queues on the 3D and the compute engine
 * connect to the one physical doorbell, each once; a ring makes the engines scan every connected
 * queue's write pointer and nothing is ever victimized. Queues form chains of 4: within a round
 * each waits for the previous queue of its chain and signals its own fence.
 */
static fsr_status
run_doorbell_global(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		    struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 10;
	fsr_handle queues[GLOBAL_QUEUES], fences[GLOBAL_QUEUES];
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.doorbell_model = FSR_DOORBELL_GLOBAL;
	adapter_config.physical_doorbells = 1;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	for (uint32_t q = 0; q < GLOBAL_QUEUES; q++) {
		TRY(queue_with_doorbell(world, q % 2, &queues[q]));
		TRY(fsr_fence_create(world->process, world->device, 0, 0, &fences[q], NULL));
	}
	for (uint64_t round = 1; round <= rounds; round++) {
		for (uint32_t q = 0; q < GLOBAL_QUEUES; q++) {
			bool is_chained = q % GLOBAL_CHAIN != 0;

			TRY(submit(world,
				   &(struct step){.queue = queues[q],
						  .is_user_mode = true,
						  .wait_fence = is_chained ? fences[q - 1] : 0,
						  .wait_value = round,
						  .work_ticks = random_between(world, 200, 1500),
						  .signal_fence = fences[q],
						  .signal_value = round}));
		}
		if (round % 4 == 0)
			TRY(cpu_wait(world, fences[GLOBAL_QUEUES - 1], round - 2));
	}
	TRY(cpu_wait(world, fences[GLOBAL_QUEUES - 1], rounds));
end:
	return world_close(world, status);
}

/* ---- power, suspension, termination ------------------------------------------------------- */

#define POWER_QUEUES     3
#define POWER_IDLE_TO_F1 UINT64_C(50000) /* 50 µs */

/* Lets the runtime's clock go on by `ns` (sim: runs what falls due; realtime: sleeps). */
static fsr_status
idle_for(struct world *world, uint64_t ns)
{
	fsr_status status;

	TRY(fsr_runtime_run_until(world->runtime, fsr_runtime_now_ns(world->runtime) + ns));
end:
	return status;
}

/*
 * Engine F-states and device D-states (FST-01 to FST-07, DST-01 to DST-08): 3 user-mode queues
 * (two on the 3D engine, one on compute) on dedicated doorbells, engine_idle_to_f1_ns 50 µs.
 * Each round every queue runs a buffer that signals its fence, the CPU waits for them, and the
 * scenario stays idle for 4× the idle time: each engine asks for F1, the OS disconnects its
 * doorbells (ENGINE_F1) and powers it down. The next round's rings read RETRY and reconnect,
 * and the connect brings the engine back to F0 first (FST-06). Every second round the adapter
 * then goes to D3 (every context suspended, every doorbell disconnected, the rings evicted) and
 * the first queue writes and rings its next buffer while the device is down: its reconnect
 * wakes the device (DST-04, DST-05), the other queues reconnect on their own rings (DST-07),
 * and what was written in D3 runs after the wake (DST-08).
 */
static fsr_status
run_power_states(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		 struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 8;
	fsr_handle queues[POWER_QUEUES], fences[POWER_QUEUES];
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.doorbell_model = FSR_DOORBELL_DEDICATED;
	adapter_config.physical_doorbells = 4;
	adapter_config.engine_idle_to_f1_ns = POWER_IDLE_TO_F1;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	for (uint32_t q = 0; q < POWER_QUEUES; q++) {
		TRY(queue_with_doorbell(world, q == 2 ? 1 : 0, &queues[q]));
		TRY(fsr_fence_create(world->process, world->device, 0, 0, &fences[q], NULL));
	}
	for (uint64_t round = 1; round <= rounds; round++) {
		bool is_d3 = round % 2 == 0;

		/* D3, and a while in it before the first ring wakes the device. */
		if (is_d3) {
			TRY(fsr_adapter_set_power(world->runtime, world->adapter,
						  FSR_DEVICE_POWER_D3));
			TRY(idle_for(world, 2 * POWER_IDLE_TO_F1));
		}
		for (uint32_t q = 0; q < POWER_QUEUES; q++)
			TRY(submit(world,
				   &(struct step){.queue = queues[q],
						  .is_user_mode = true,
						  .work_ticks = random_between(world, 500, 2000),
						  .signal_fence = fences[q],
						  .signal_value = round}));
		for (uint32_t q = 0; q < POWER_QUEUES; q++)
			TRY(cpu_wait(world, fences[q], round));
		/* Idle long enough for every engine to ask for F1 and be powered down. */
		TRY(idle_for(world, 4 * POWER_IDLE_TO_F1));
	}
end:
	return world_close(world, status);
}

/* A second process of the scenario with a device, a 3D context and a user-mode queue. */
struct side_process {
	struct fsr_process *process;
	fsr_handle device, context, queue, fence;
};

static fsr_status
side_open(struct world *world, const char *name, struct side_process *side)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE,
					    .ring_size_bytes = 64 * 1024};
	fsr_status status;

	TRY(fsr_process_create(world->runtime, name, &side->process));
	TRY(fsr_device_create(side->process, world->adapter, &side->device));
	TRY(fsr_context_create(side->process, side->device, 0, &side->context));
	TRY(fsr_hwqueue_create_user_mode(side->process, side->context, &config, &side->queue));
	TRY(fsr_fence_create(side->process, side->device, 0, 0, &side->fence, NULL));
end:
	return status;
}

/* One command buffer of `ticks` signalling `value` on a side process's queue; its status. */
static fsr_status
side_submit(struct world *world, struct side_process *side, fsr_handle queue, uint64_t ticks,
	    uint64_t value)
{
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_status status = fsr_cmdbuf_create(side->process, queue, &cmdbuf);

	if (status == FSR_OK)
		status = fsr_cmdbuf_work(cmdbuf, ticks);
	if (status == FSR_OK)
		status = fsr_cmdbuf_signal(cmdbuf, side->fence, value);
	if (status == FSR_OK) {
		status = fsr_cmdbuf_submit(cmdbuf, NULL);
		cmdbuf = NULL;
	}
	fsr_cmdbuf_destroy(cmdbuf);
	if (status == FSR_OK) {
		world->totals->submissions++;
		world->totals->work_gpu_ticks += ticks;
	}
	return status;
}

/*
 * Suspension and termination (SUS-01 to SUS-07, TRM-01 to TRM-07, UMS-16), on dedicated
 * doorbells, in three parts per round:
 *  - the 3D context of the main process is suspended while its UMD keeps writing and ringing
 *    its queue (the doorbell stays connected, SUS-02; nothing runs, SUS-03) and the compute
 *    queue goes on working; then it is resumed and what was rung runs (SUS-05);
 *  - a process ends normally with work queued (TRM-01, TRM-02: disconnect, wait, destroy), and
 *    another abnormally (TRM-03 to TRM-05: device in error, SuspendContext, ABORT, abandoned);
 *  - a third process's device is lost (UMS-16): its next submission fails with
 *    FSR_ERR_DEVICE_LOST, the UMD falls back to a kernel-mode queue, resubmits that buffer
 *    there and ends normally.
 */
static fsr_status
run_suspend_terminate(const struct fsr_scenario *scenario,
		      const struct fsr_scenario_options *options,
		      struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 4;
	fsr_handle render, compute, render_fence, compute_fence;
	uint64_t render_value = 0, compute_value = 0;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.doorbell_model = FSR_DOORBELL_DEDICATED;
	adapter_config.physical_doorbells = 4;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_with_doorbell(world, 0, &render));
	TRY(queue_with_doorbell(world, 1, &compute));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &render_fence, NULL));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &compute_fence, NULL));
	for (uint64_t round = 1; round <= rounds; round++) {
		struct side_process normal = {0}, crashing = {0}, lossy = {0};
		fsr_handle kernel_queue = 0;

		/* Suspended while the UMD keeps ringing; compute goes on meanwhile. */
		TRY(fsr_context_suspend(world->process, world->contexts[0]));
		for (int i = 0; i < 3; i++) {
			TRY(submit(world,
				   &(struct step){.queue = render,
						  .is_user_mode = true,
						  .work_ticks = random_between(world, 300, 900),
						  .signal_fence = render_fence,
						  .signal_value = ++render_value}));
			TRY(submit(world,
				   &(struct step){.queue = compute,
						  .is_user_mode = true,
						  .work_ticks = random_between(world, 1000, 3000),
						  .signal_fence = compute_fence,
						  .signal_value = ++compute_value}));
			TRY(cpu_wait(world, compute_fence, compute_value));
		}
		TRY(fsr_context_resume(world->process, world->contexts[0]));
		TRY(cpu_wait(world, render_fence, render_value));

		/* A normal and an abnormal termination, each with work queued. */
		TRY(side_open(world, "normal", &normal));
		TRY(side_submit(world, &normal, normal.queue, 2000, 1));
		TRY(side_submit(world, &normal, normal.queue, 2000, 2));
		TRY(fsr_process_terminate(normal.process, false));
		TRY(side_open(world, "crashing", &crashing));
		TRY(side_submit(world, &crashing, crashing.queue, 5000, 1));
		TRY(side_submit(world, &crashing, crashing.queue, 5000, 2));
		TRY(fsr_process_terminate(crashing.process, true));

		/* A lost device and the UMD's fall-back to a kernel-mode queue. */
		TRY(side_open(world, "lossy", &lossy));
		TRY(side_submit(world, &lossy, lossy.queue, 1000, 1));
		TRY(fsr_device_mark_lost(lossy.process, lossy.device, FSR_DEVICE_LOSS_ENGINE_HUNG));
		status = side_submit(world, &lossy, lossy.queue, 1000, 2);
		if (status != FSR_ERR_DEVICE_LOST) {
			world_fail(world, status == FSR_OK ? FSR_ERR_BAD_STATE : status,
				   "fsr_cmdbuf_submit after fsr_device_mark_lost");
			status = status == FSR_OK ? FSR_ERR_BAD_STATE : status;
			goto end;
		}
		TRY(fsr_hwqueue_fall_back_to_kernel_mode(lossy.process, lossy.queue, &kernel_queue,
							 NULL));
		TRY(side_submit(world, &lossy, kernel_queue, 1000, 2));
		totals->kernel_signals++;
		TRY(fsr_fence_wait_cpu(lossy.process, lossy.fence, 2, FSR_INFINITE,
				       FSR_WAIT_BLOCKING));
		totals->cpu_waits++;
		TRY(fsr_process_terminate(lossy.process, false));
	}
end:
	return world_close(world, status);
}

/* ---- priority-inversion (PRE-15, PRE-03, PRE-09) ------------------------------------------ */

/*
 * A low-priority context (4) keeps the 3D engine busy with long kernel-mode packets (20 ms);
 * a high-priority context (28) submits short frames to a ring on the same engine and waits for
 * each. Without preemption a frame would wait for the long packet; the OS sees the ring's work
 * on its scheduling timer and preempts the low context (reason PRIORITY): the frame runs, the
 * long packet resumes with what it had left (packet_queued.resubmission_of).
 */
static fsr_status
run_priority_inversion(const struct fsr_scenario *scenario,
		       const struct fsr_scenario_options *options,
		       struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 8;
	fsr_handle high_context, low_queue, high_queue, low_fence, high_fence;
	uint64_t low_value = 0, high_value = 0;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(fsr_context_set_scheduling(world->process, world->contexts[0], 4, 0));
	TRY(fsr_context_create(world->process, world->device, 0, &high_context));
	TRY(fsr_context_set_scheduling(world->process, high_context, 28, 0));
	TRY(queue_new(world, 0, FSR_SUBMIT_KERNEL_MODE, &low_queue));
	TRY(fsr_hwqueue_create_user_mode(world->process, high_context,
					 &(struct fsr_hwqueue_config){.mode = FSR_SUBMIT_USER_MODE},
					 &high_queue));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &low_fence, NULL));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &high_fence, NULL));
	for (uint64_t round = 0; round < rounds; round++) {
		TRY(submit(world, &(struct step){.queue = low_queue,
						 .work_ticks = 2000000,
						 .signal_fence = low_fence,
						 .signal_value = ++low_value}));
		/* The long packet runs a while, then the frames come. */
		TRY(fsr_runtime_run_until(world->runtime,
					  fsr_runtime_now_ns(world->runtime) +
					      random_between(world, 1000000, 4000000)));
		for (int frame = 0; frame < 3; frame++) {
			TRY(submit(world,
				   &(struct step){.queue = high_queue,
						  .is_user_mode = true,
						  .work_ticks = random_between(world, 20000, 60000),
						  .signal_fence = high_fence,
						  .signal_value = ++high_value}));
			TRY(cpu_wait(world, high_fence, high_value));
		}
		TRY(cpu_wait(world, low_fence, low_value));
	}
end:
	return world_close(world, status);
}

/* ---- timeslice-mix (PRE-15) ---------------------------------------------------------------- */

/*
 * Two 3D contexts and two compute contexts, all of priority 16 with a 250 us time slice, each
 * with a 2 ms work item per round (user- and kernel-mode queues mixed): each engine is shared
 * by time slice (reason TIME_SLICE), the preempted items resume where they stopped.
 */
static fsr_status
run_timeslice_mix(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		  struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 6;
	fsr_handle contexts[4], queues[4], fences[4];
	uint64_t values[4] = {0};
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	for (uint32_t i = 0; i < 4; i++) {
		uint32_t engine = i / 2; /* 3D, 3D, compute, compute */
		struct fsr_hwqueue_config config = {.mode = i % 2 ? FSR_SUBMIT_KERNEL_MODE
								  : FSR_SUBMIT_USER_MODE};

		contexts[i] = world->contexts[engine];
		if (i % 2)
			TRY(fsr_context_create(world->process, world->device, engine,
					       &contexts[i]));
		TRY(fsr_context_set_scheduling(world->process, contexts[i], 16, 250000));
		TRY(i % 2 ? fsr_hwqueue_create(world->process, contexts[i], &config, &queues[i])
			  : fsr_hwqueue_create_user_mode(world->process, contexts[i], &config,
							 &queues[i]));
		TRY(fsr_fence_create(world->process, world->device, 0, 0, &fences[i], NULL));
	}
	for (uint64_t round = 0; round < rounds; round++) {
		for (uint32_t i = 0; i < 4; i++)
			TRY(submit(world, &(struct step){.queue = queues[i],
							 .is_user_mode = i % 2 == 0,
							 .work_ticks = 200000,
							 .signal_fence = fences[i],
							 .signal_value = ++values[i]}));
		for (uint32_t i = 0; i < 4; i++)
			TRY(cpu_wait(world, fences[i], values[i]));
	}
end:
	return world_close(world, status);
}

/* ---- TDR: a hang recovered, an engine reset promoted ----------------------------------- */

/*
 * TDR-01 to TDR-06 (docs/runtime.md "TDR and recovery as built"), per round: the main process
 * (innocent) keeps a user-mode 3D queue and a kernel-mode compute queue busy with buffers that
 * each signal the next value; a second process ("hung-app") submits one buffer whose work
 * hangs the 3D engine (the test API's fault). Its CPU wait ends with FSR_ERR_DEVICE_LOST once
 * the TDR has recovered: tdr_detect after the delay, the preemption request, tdr_begin, the
 * engine reset (with `promote`: a failed one, promoted to an adapter reset that aborts and
 * resubmits the innocent's compute packet in flight), context_error, device_lost, tdr_end. Its
 * UMD then destroys its queue and re-creates device, context, queue, doorbell and ring (TDR-05),
 * whose buffer runs. The innocent's work all completes. The TDR delay is 2 s in sim mode and
 * 200 ms in realtime, so that a realtime run stays short.
 */
static fsr_status
run_tdr(const struct fsr_scenario_options *options, struct fsr_scenario_totals *totals,
	char **error, bool promote)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 2;
	uint64_t delay_ns = options->clock_mode == FSR_CLOCK_REALTIME ? UINT64_C(200000000)
								      : FSR_DEFAULT_TDR_DELAY_NS;
	fsr_handle render, compute, render_fence, compute_fence;
	uint64_t render_value = 0, compute_value = 0;
	fsr_status status;

	fsr_adapter_config_init(&adapter_config);
	adapter_config.tdr_delay_ns = delay_ns;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &render));
	TRY(queue_new(world, 1, FSR_SUBMIT_KERNEL_MODE, &compute));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &render_fence, NULL));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &compute_fence, NULL));
	for (uint64_t round = 1; round <= rounds; round++) {
		struct side_process hung = {0};
		fsr_handle device, context, queue;
		struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};

		TRY(side_open(world, "hung-app", &hung));
		if (promote)
			TRY(fsr_test_engine_reset_fail(world->runtime, world->adapter, 0, 1));
		TRY(fsr_test_engine_hang(world->runtime, world->adapter, 0, hung.queue));
		TRY(side_submit(world, &hung, hung.queue, 1000, 1));
		/* The innocent's work, queued behind and beside the hang. */
		for (int i = 0; i < 4; i++) {
			TRY(submit(world,
				   &(struct step){.queue = render,
						  .is_user_mode = true,
						  .work_ticks = random_between(world, 1000, 5000),
						  .signal_fence = render_fence,
						  .signal_value = ++render_value}));
			/* In flight on the compute engine when the TDR comes (kernel mode). */
			TRY(submit(world, &(struct step){.queue = compute,
							 .work_ticks = delay_ns / 10 * 6 / 10,
							 .signal_fence = compute_fence,
							 .signal_value = ++compute_value}));
		}
		/* The hung app's wait ends when the TDR has recovered: its device is lost. */
		status = fsr_fence_wait_cpu(hung.process, hung.fence, 1, FSR_INFINITE,
					    FSR_WAIT_BLOCKING);
		totals->cpu_waits++;
		if (status != FSR_ERR_DEVICE_LOST) {
			status = status == FSR_OK ? FSR_ERR_BAD_STATE : status;
			world_fail(world, status, "fsr_fence_wait_cpu on the hung buffer");
			goto end;
		}
		/* TDR-05: its UMD destroys the queue and re-creates everything on a new device. */
		TRY(fsr_hwqueue_destroy(hung.process, hung.queue));
		TRY(fsr_device_create(hung.process, world->adapter, &device));
		TRY(fsr_context_create(hung.process, device, 0, &context));
		TRY(fsr_hwqueue_create_user_mode(hung.process, context, &config, &queue));
		TRY(fsr_fence_create(hung.process, device, 0, 0, &hung.fence, NULL));
		TRY(side_submit(world, &hung, queue, 1000, 1));
		totals->gpu_signals++;
		TRY(fsr_fence_wait_cpu(hung.process, hung.fence, 1, FSR_INFINITE,
				       FSR_WAIT_BLOCKING));
		totals->cpu_waits++;
		TRY(fsr_process_terminate(hung.process, false));
		/* The innocent's work all completed. */
		TRY(cpu_wait(world, render_fence, render_value));
		TRY(cpu_wait(world, compute_fence, compute_value));
	}
end:
	return world_close(world, status);
}

static fsr_status
run_tdr_hang(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
	     struct fsr_scenario_totals *totals, char **error)
{
	(void) scenario;
	return run_tdr(options, totals, error, false);
}

static fsr_status
run_adapter_reset(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		  struct fsr_scenario_totals *totals, char **error)
{
	(void) scenario;
	return run_tdr(options, totals, error, true);
}

/* ---- fault-injection ------------------------------------------------------------------------ */

/* A side process's CPU wait for `value` that must end with `expected`. */
static fsr_status
side_wait(struct world *world, struct side_process *side, uint64_t value, fsr_status expected,
	  const char *what)
{
	fsr_status status =
	    fsr_fence_wait_cpu(side->process, side->fence, value, FSR_INFINITE, FSR_WAIT_BLOCKING);

	world->totals->cpu_waits++;
	if (status == expected)
		return FSR_OK;
	status = status == FSR_OK ? FSR_ERR_BAD_STATE : status;
	world_fail(world, status, what);
	return status;
}

/* Aims a fault of the injector at a side process's queue, its first opportunity there. */
static fsr_status
aim(struct world *world, enum fsr_fault_kind kind, struct side_process *side, uint64_t parameter)
{
	struct fsr_fault fault = {.kind = kind,
				  .adapter_id = world->adapter,
				  .engine_id = FSR_FAULT_ANY_ENGINE,
				  .hwqueue = side->queue,
				  .parameter = parameter};
	fsr_status status = fsr_runtime_add_fault(world->runtime, &fault);

	if (status != FSR_OK)
		world_fail(world, status, "fsr_runtime_add_fault");
	return status;
}

/* The innocent process's round: a 3D (user-mode) and a compute (kernel-mode) buffer. */
static fsr_status
innocent_work(struct world *world, const fsr_handle queues[2], const fsr_handle fences[2],
	      uint64_t values[2])
{
	fsr_status status = FSR_OK;

	for (int i = 0; i < 2 && status == FSR_OK; i++)
		status = submit(world, &(struct step){.queue = queues[i],
						      .is_user_mode = i == 0,
						      .work_ticks = 2000 + 1000 * (uint64_t) i,
						      .signal_fence = fences[i],
						      .signal_value = ++values[i]});
	return status;
}

/*
 * Every fault of the injector (docs/robustness.md), each aimed at a process of its own while the
 * main process (the innocent) keeps a user-mode 3D queue and a kernel-mode compute queue busy:
 * an interrupt lost (its waiter released by the OS's check at the TDR cadence), one delayed
 * 2 ms, a log overrun storm, a corrupt ring packet (context in error, DEVICE_LOST), a process
 * killed between its ring write and its doorbell, a hung engine (TDR) and a packet that ignores
 * the TDR's preemption request (2.05 s of work, which ends before the request's timeout). Each
 * fault once a round, in sim mode; in realtime (no injector) only the innocent's work runs.
 */
static fsr_status
run_fault_injection(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		    struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 1;
	fsr_handle queues[2], fences[2];
	uint64_t values[2] = {0, 0};
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.log_capacity_entries = 16;
	adapter_config.keep_log_size_when_tracing = true;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &queues[0]));
	TRY(queue_new(world, 1, FSR_SUBMIT_KERNEL_MODE, &queues[1]));
	for (int i = 0; i < 2; i++)
		TRY(fsr_fence_create(world->process, world->device, 0, 0, &fences[i], NULL));
	for (uint64_t round = 1; round <= rounds; round++) {
		struct side_process side = {0};

		/* Realtime: no injector (a fault could not be replayed); the innocent alone. */
		if (options->clock_mode != FSR_CLOCK_SIM) {
			TRY(innocent_work(world, queues, fences, values));
			TRY(cpu_wait(world, fences[0], values[0]));
			TRY(cpu_wait(world, fences[1], values[1]));
			continue;
		}
		/* An interrupt lost, one delayed, a storm: one process, its waits all satisfied. */
		TRY(side_open(world, "unlucky-app", &side));
		TRY(aim(world, FSR_FAULT_LOST_INTERRUPT, &side, 0));
		TRY(side_submit(world, &side, side.queue, 1000, 1));
		TRY(innocent_work(world, queues, fences, values));
		TRY(side_wait(world, &side, 1, FSR_OK, "the wait of a lost interrupt"));
		TRY(aim(world, FSR_FAULT_DELAYED_INTERRUPT, &side, 2000000));
		TRY(side_submit(world, &side, side.queue, 1000, 2));
		TRY(side_wait(world, &side, 2, FSR_OK, "the wait of a delayed interrupt"));
		TRY(aim(world, FSR_FAULT_LOG_OVERRUN_STORM, &side, 0));
		TRY(side_submit(world, &side, side.queue, 1000, 3));
		TRY(side_wait(world, &side, 3, FSR_OK, "the wait through a log overrun storm"));
		totals->gpu_signals += 3;
		TRY(fsr_process_terminate(side.process, false));

		/* A corrupt packet: its context in error, its waiter DEVICE_LOST. */
		TRY(side_open(world, "corrupt-app", &side));
		TRY(aim(world, FSR_FAULT_CORRUPT_PACKET, &side, 0));
		TRY(side_submit(world, &side, side.queue, 1000, 1));
		TRY(innocent_work(world, queues, fences, values));
		TRY(side_wait(world, &side, 1, FSR_ERR_DEVICE_LOST,
			      "the wait of a corrupt packet"));
		TRY(fsr_process_terminate(side.process, false));

		/* A process killed between its ring write and its doorbell. */
		TRY(side_open(world, "killed-app", &side));
		TRY(aim(world, FSR_FAULT_PROCESS_KILLED, &side, 0));
		status = side_submit(world, &side, side.queue, 1000, 1);
		if (status != FSR_ERR_DESTROYED) {
			world_fail(world, status == FSR_OK ? FSR_ERR_BAD_STATE : status,
				   "the submission of a killed process");
			goto end;
		}
		TRY(fsr_process_terminate(side.process, true)); /* frees what is left of it */
		TRY(innocent_work(world, queues, fences, values));

		/* A hung engine: the TDR recovers it, the innocent goes on. */
		TRY(side_open(world, "hung-app", &side));
		TRY(aim(world, FSR_FAULT_HUNG_ENGINE, &side, 0));
		TRY(side_submit(world, &side, side.queue, 1000, 1));
		TRY(innocent_work(world, queues, fences, values));
		TRY(side_wait(world, &side, 1, FSR_ERR_DEVICE_LOST, "the wait of a hung engine"));
		TRY(fsr_process_terminate(side.process, false));

		/* A packet that ignores the TDR's preemption request: it ends on its own. */
		TRY(side_open(world, "stubborn-app", &side));
		TRY(aim(world, FSR_FAULT_IGNORES_PREEMPTION, &side, 0));
		TRY(side_submit(world, &side, side.queue, UINT64_C(205000000), 1));
		TRY(side_wait(world, &side, 1, FSR_OK, "the wait of a packet ignoring preemption"));
		totals->gpu_signals++;
		TRY(fsr_process_terminate(side.process, false));

		/* The innocent's work all completed. */
		TRY(cpu_wait(world, fences[0], values[0]));
		TRY(cpu_wait(world, fences[1], values[1]));
	}
end:
	return world_close(world, status);
}

/* ---- mapping-churn ------------------------------------------------------------------------ */

#define CHURN_PROCESSES 3
#define CHURN_KB4       UINT64_C(4096)
#define CHURN_KB64      UINT64_C(65536)
/* Each process's own reservation, where its 4 KB-page allocations are mapped at fixed VAs. */
#define CHURN_RESERVED_VA    (UINT64_C(4) << 30)
#define CHURN_RESERVED_BYTES (UINT64_C(1) << 20)

/* One process of the churn: its queue, fence, and what it mapped in the round before. */
struct churn_process {
	struct fsr_process *process;
	fsr_handle device, queue, fence;
	fsr_handle local, system; /* the previous round's allocations, 0 when none */
	uint64_t local_va, local_alias_va, system_va, local_bytes, system_bytes;
};

/*
 * One round of a process (MMU-04 to MMU-07, MMU-11 to MMU-13): a local allocation of 64 KB pages
 * mapped twice at VAs VidMm picks (one between bounds), a system one of 4 KB pages mapped at a
 * fixed VA of the process's reservation, work on its queue; then the previous round's mappings
 * unmapped and their allocations destroyed while that work runs.
 */
static fsr_status
churn_round(struct world *world, struct churn_process *churn, uint64_t round)
{
	struct fsr_allocation_config local_config = {.size_bytes =
							 random_between(world, 1, 4) * CHURN_KB64,
						     .segment = FSR_SEGMENT_LOCAL,
						     .page_size_bytes = (uint32_t) CHURN_KB64};
	struct fsr_allocation_config system_config = {
	    .size_bytes = random_between(world, 1, 8) * CHURN_KB4, .segment = FSR_SEGMENT_SYSTEM};
	fsr_handle local = 0, system = 0;
	uint64_t local_va = 0, alias_va = 0, system_va = 0;
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t ticks = random_between(world, 2000, 6000);
	fsr_status status;

	TRY(fsr_allocation_create_with_config(churn->process, churn->device, &local_config,
					      &local));
	TRY(fsr_allocation_create_with_config(churn->process, churn->device, &system_config,
					      &system));
	TRY(fsr_va_map(
	    churn->process, churn->device,
	    &(struct fsr_va_map_args){.allocation = local, .size_bytes = local_config.size_bytes},
	    &local_va));
	TRY(fsr_va_map(churn->process, churn->device,
		       &(struct fsr_va_map_args){.allocation = local,
						 .size_bytes = CHURN_KB64,
						 .min_va = UINT64_C(1) << 30,
						 .max_va = UINT64_C(2) << 30,
						 .is_read_only = true},
		       &alias_va));
	/* Alternate halves of the reservation, so the previous round's stays mapped meanwhile. */
	system_va = CHURN_RESERVED_VA + (round % 2) * (CHURN_RESERVED_BYTES / 2);
	TRY(fsr_va_map(churn->process, churn->device,
		       &(struct fsr_va_map_args){.allocation = system,
						 .size_bytes = system_config.size_bytes,
						 .va = system_va},
		       &system_va));
	TRY(fsr_cmdbuf_create(churn->process, churn->queue, &cmdbuf));
	TRY(fsr_cmdbuf_work(cmdbuf, ticks));
	TRY(fsr_cmdbuf_signal(cmdbuf, churn->fence, round));
	status = fsr_cmdbuf_submit(cmdbuf, NULL);
	cmdbuf = NULL;
	if (status != FSR_OK) {
		world_fail(world, status, "fsr_cmdbuf_submit");
		goto end;
	}
	world->totals->submissions++;
	world->totals->gpu_signals++;
	world->totals->work_gpu_ticks += ticks;
	if (churn->local) {
		TRY(fsr_va_unmap(churn->process, churn->device, churn->local_va,
				 churn->local_bytes));
		TRY(fsr_va_unmap(churn->process, churn->device, churn->local_alias_va, CHURN_KB64));
		TRY(fsr_va_unmap(churn->process, churn->device, churn->system_va,
				 churn->system_bytes));
		TRY(fsr_allocation_destroy(churn->process, churn->local));
		TRY(fsr_allocation_destroy(churn->process, churn->system));
	}
	churn->local = local;
	churn->system = system;
	local = system = 0;
	churn->local_va = local_va;
	churn->local_alias_va = alias_va;
	churn->system_va = system_va;
	churn->local_bytes = local_config.size_bytes;
	churn->system_bytes = system_config.size_bytes;
end:
	fsr_cmdbuf_destroy(cmdbuf);
	return status;
}

/*
 * GpuMmu mapping churn (spec 004; docs/runtime.md "GpuMmu as built"): three processes on one
 * adapter, each with a user-mode 3D queue that keeps working while, round after round, it
 * creates allocations in the local segment (64 KB pages) and in system memory (4 KB pages), maps
 * them (VAs it picks in a reservation of its own, VAs VidMm picks, with and without bounds, one
 * allocation twice), and unmaps and destroys the previous round's. Each process's VA space grows
 * its page tables on the way and goes with the process. The work packets do not touch the
 * mappings (--scale rounds, default 16).
 */
static fsr_status
run_mapping_churn(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		  struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 16;
	struct side_process sides[CHURN_PROCESSES - 1] = {0};
	struct churn_process churn[CHURN_PROCESSES] = {0};
	static const char *const names[CHURN_PROCESSES - 1] = {"churn-b", "churn-c"};
	uint64_t reserved = 0;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	churn[0].process = world->process;
	churn[0].device = world->device;
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &churn[0].queue));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &churn[0].fence, NULL));
	for (uint32_t p = 1; p < CHURN_PROCESSES; p++) {
		TRY(side_open(world, names[p - 1], &sides[p - 1]));
		churn[p] = (struct churn_process){.process = sides[p - 1].process,
						  .device = sides[p - 1].device,
						  .queue = sides[p - 1].queue,
						  .fence = sides[p - 1].fence};
	}
	for (uint32_t p = 0; p < CHURN_PROCESSES; p++)
		TRY(fsr_va_reserve(churn[p].process, churn[p].device, CHURN_RESERVED_BYTES, 0, 0,
				   CHURN_RESERVED_VA, &reserved));
	for (uint64_t round = 1; round <= rounds; round++) {
		for (uint32_t p = 0; p < CHURN_PROCESSES; p++)
			TRY(churn_round(world, &churn[p], round));
		/* Two rounds in flight at most, as an application keeps its frames. */
		if (round > 2)
			for (uint32_t p = 0; p < CHURN_PROCESSES; p++)
				TRY(fsr_fence_wait_cpu(churn[p].process, churn[p].fence, round - 2,
						       FSR_INFINITE, FSR_WAIT_BLOCKING));
	}
	TRY(fsr_runtime_run_until_idle(world->runtime));
	/* The last round's mappings and the reservations go with the processes. */
	for (uint32_t p = 1; p < CHURN_PROCESSES; p++) {
		TRY(fsr_process_terminate(sides[p - 1].process, false));
		sides[p - 1].process = NULL;
	}
end:
	for (uint32_t p = 1; p < CHURN_PROCESSES; p++)
		if (sides[p - 1].process)
			fsr_process_terminate(sides[p - 1].process, true);
	return world_close(world, status);
}

/* ---- registry ------------------------------------------------------------------------------ */

/* ---- cross-adapter, cross-adapter-2a, cross-adapter-2b ------------------------------------- */

/*
 * Cross-adapter fences (spec 001 "Cross-adapter native fences", docs/runtime.md "Cross-adapter
 * fences as built"): the world's adapter is the iGPU, a second adapter of the same runtime the
 * dGPU; one process holds a device on each.
 */
struct dgpu {
	uint32_t adapter;
	fsr_handle device;
	fsr_handle context; /* its 3D engine */
};

static fsr_status
dgpu_open(struct world *world, struct dgpu *dgpu)
{
	struct fsr_adapter_config config;
	fsr_status status;

	fsr_adapter_config_init(&config);
	TRY(fsr_adapter_create(world->runtime, &config, &dgpu->adapter));
	TRY(fsr_device_create(world->process, dgpu->adapter, &dgpu->device));
	TRY(fsr_context_create(world->process, dgpu->device, 0, &dgpu->context));
end:
	return status;
}

static fsr_status
queue_on(struct world *world, fsr_handle context, enum fsr_submission_mode mode, fsr_handle *queue)
{
	struct fsr_hwqueue_config config = {.mode = mode, .ring_size_bytes = 256 * 1024};

	if (mode == FSR_SUBMIT_USER_MODE)
		return fsr_hwqueue_create_user_mode(world->process, context, &config, queue);
	return fsr_hwqueue_create(world->process, context, &config, queue);
}

/* A cross-adapter fence created on `creator`, opened on `other`: its handle on each. */
static fsr_status
cross_fence(struct world *world, fsr_handle creator, fsr_handle other, fsr_handle *on_creator,
	    fsr_handle *on_other)
{
	fsr_handle global = 0;
	fsr_status status;

	TRY(fsr_fence_create(world->process, creator, 0, FSR_FENCE_CROSS_ADAPTER, on_creator,
			     &global));
	TRY(fsr_fence_open(world->process, other, global, on_other));
end:
	return status;
}

static fsr_status
cpu_signal(struct world *world, fsr_handle fence, uint64_t value)
{
	fsr_status status = fsr_fence_signal_cpu(world->process, fence, value);

	world->totals->cpu_signals++;
	if (status != FSR_OK)
		world_fail(world, status, "fsr_fence_signal_cpu");
	return status;
}

#define XAD_CPU_SIGNAL_EVERY 10 /* a CPU signal on one adapter released on the other */

/*
 * Scenario 1 (both adapters native): the iGPU renders each frame and signals `rendered`, a
 * cross-adapter fence the dGPU's queue waits on before it composes the frame and signals
 * `composed` back, which the iGPU waits on before it reuses the frame's buffer; the CPU keeps a
 * bounded number of frames in flight by waiting on `composed` through the iGPU. Every 10th
 * frame the iGPU's render also waits on `settings`, which the CPU signals through the dGPU.
 * Every signal goes through the OS's propagation (XAD-07, XAD-12, XAD-13).
 */
static fsr_status
run_cross_adapter(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		  struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t frames = options->scale ? options->scale : 60;
	struct dgpu dgpu = {0};
	fsr_handle render, compose;
	fsr_handle rendered_igpu, rendered_dgpu, composed_igpu, composed_dgpu, settings_igpu,
	    settings_dgpu;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(dgpu_open(world, &dgpu));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &render));
	TRY(queue_on(world, dgpu.context, FSR_SUBMIT_USER_MODE, &compose));
	TRY(cross_fence(world, world->device, dgpu.device, &rendered_igpu, &rendered_dgpu));
	TRY(cross_fence(world, dgpu.device, world->device, &composed_dgpu, &composed_igpu));
	TRY(cross_fence(world, dgpu.device, world->device, &settings_dgpu, &settings_igpu));
	for (uint64_t frame = 1; frame <= frames; frame++) {
		bool is_settings = frame % XAD_CPU_SIGNAL_EVERY == 0;

		TRY(submit(world,
			   &(struct step){.queue = render,
					  .is_user_mode = true,
					  .wait_fence = is_settings ? settings_igpu : composed_igpu,
					  .wait_value = is_settings ? frame / XAD_CPU_SIGNAL_EVERY
								    : frame - 1,
					  .work_ticks = random_between(world, 200000, 600000),
					  .signal_fence = rendered_igpu,
					  .signal_value = frame}));
		TRY(submit(world,
			   &(struct step){.queue = compose,
					  .is_user_mode = true,
					  .wait_fence = rendered_dgpu,
					  .wait_value = frame,
					  .work_ticks = random_between(world, 100000, 300000),
					  .signal_fence = composed_dgpu,
					  .signal_value = frame}));
		if (is_settings) {
			/* The render waits; the CPU changes the settings through the dGPU. */
			TRY(fsr_runtime_run_until(world->runtime,
						  fsr_runtime_now_ns(world->runtime) + 1000000));
			TRY(cpu_signal(world, settings_dgpu, frame / XAD_CPU_SIGNAL_EVERY));
		}
		if (frame % 4 == 0)
			TRY(cpu_wait(world, composed_igpu, frame - 2));
	}
	TRY(cpu_wait(world, composed_igpu, frames));
end:
	return world_close(world, status);
}

/*
 * Scenario 2a (an iGPU without native fences, the dGPU with them): the dGPU renders each frame
 * and signals `rendered` from its ring; the iGPU's kernel-mode queue (a software wait in the
 * OS's monitored fence waiting list) waits for it before scanning the frame out, and the CPU
 * waits on `rendered` through the iGPU (the monitored fence CPU waiter list) to keep two
 * frames in flight (XAD-10, XAD-14).
 */
static fsr_status
run_cross_adapter_2a(const struct fsr_scenario *scenario,
		     const struct fsr_scenario_options *options, struct fsr_scenario_totals *totals,
		     char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t frames = options->scale ? options->scale : 60;
	struct dgpu dgpu = {0};
	fsr_handle render, scan_out, rendered_dgpu, rendered_igpu, shown;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.no_native_fences = true;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(dgpu_open(world, &dgpu));
	TRY(queue_on(world, dgpu.context, FSR_SUBMIT_USER_MODE, &render));
	TRY(queue_new(world, 0, FSR_SUBMIT_KERNEL_MODE, &scan_out));
	TRY(cross_fence(world, dgpu.device, world->device, &rendered_dgpu, &rendered_igpu));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &shown, NULL));
	for (uint64_t frame = 1; frame <= frames; frame++) {
		TRY(submit(world, &(struct step){.queue = scan_out,
						 .wait_fence = rendered_igpu,
						 .wait_value = frame,
						 .work_ticks = random_between(world, 50000, 150000),
						 .signal_fence = shown,
						 .signal_value = frame}));
		TRY(submit(world,
			   &(struct step){.queue = render,
					  .is_user_mode = true,
					  .work_ticks = random_between(world, 200000, 600000),
					  .signal_fence = rendered_dgpu,
					  .signal_value = frame}));
		if (frame > 2)
			TRY(cpu_wait(world, rendered_igpu, frame - 2));
	}
	TRY(cpu_wait(world, shown, frames));
end:
	return world_close(world, status);
}

/*
 * Scenario 2b (an iGPU without native fences, the dGPU with them): the iGPU's kernel-mode
 * queue decodes each frame and signals `decoded`, a monitored fence there and a native fence
 * on the dGPU (XAD-11), which the OS writes from the CPU when the packet reaches the head of
 * the software queue (XAD-15, XAD-16) and propagates to the dGPU, whose ring waits on it; the
 * CPU waits through the dGPU (the native fence CPU waiter list). Every 10th frame the dGPU also
 * waits on `settings`, which the CPU signals through the iGPU.
 */
static fsr_status
run_cross_adapter_2b(const struct fsr_scenario *scenario,
		     const struct fsr_scenario_options *options, struct fsr_scenario_totals *totals,
		     char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t frames = options->scale ? options->scale : 60;
	struct dgpu dgpu = {0};
	fsr_handle decode, render, decoded_igpu, decoded_dgpu, settings_igpu, settings_dgpu;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.no_native_fences = true;
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(dgpu_open(world, &dgpu));
	TRY(queue_new(world, 1, FSR_SUBMIT_KERNEL_MODE, &decode));
	TRY(queue_on(world, dgpu.context, FSR_SUBMIT_USER_MODE, &render));
	TRY(cross_fence(world, world->device, dgpu.device, &decoded_igpu, &decoded_dgpu));
	TRY(cross_fence(world, world->device, dgpu.device, &settings_igpu, &settings_dgpu));
	for (uint64_t frame = 1; frame <= frames; frame++) {
		bool is_settings = frame % XAD_CPU_SIGNAL_EVERY == 0;

		TRY(submit(world,
			   &(struct step){.queue = decode,
					  .work_ticks = random_between(world, 100000, 400000),
					  .signal_fence = decoded_igpu,
					  .signal_value = frame}));
		if (is_settings)
			TRY(submit(world,
				   &(struct step){.queue = render,
						  .is_user_mode = true,
						  .wait_fence = settings_dgpu,
						  .wait_value = frame / XAD_CPU_SIGNAL_EVERY}));
		TRY(submit(world,
			   &(struct step){.queue = render,
					  .is_user_mode = true,
					  .wait_fence = decoded_dgpu,
					  .wait_value = frame,
					  .work_ticks = random_between(world, 200000, 500000)}));
		if (is_settings)
			TRY(cpu_signal(world, settings_igpu, frame / XAD_CPU_SIGNAL_EVERY));
		if (frame % 4 == 0)
			TRY(cpu_wait(world, decoded_dgpu, frame - 2));
	}
	TRY(cpu_wait(world, decoded_dgpu, frames));
end:
	return world_close(world, status);
}

/* ---- page-fault ------------------------------------------------------------------------------ */

/* A fresh allocation of `process`'s `device`, mapped whole at a VA the memory manager picks. */
static fsr_status
map_new(struct fsr_process *process, fsr_handle device, uint64_t size, uint32_t page_size,
	fsr_handle *allocation, uint64_t *va)
{
	struct fsr_allocation_config config = {
	    .size_bytes = size,
	    .segment =
		page_size == FSR_GPU_LARGE_PAGE_BYTES ? FSR_SEGMENT_LOCAL : FSR_SEGMENT_SYSTEM,
	    .page_size_bytes = page_size,
	};
	struct fsr_va_map_args args = {.size_bytes = size};
	fsr_status status = fsr_allocation_create_with_config(process, device, &config, allocation);

	args.allocation = *allocation;
	if (status == FSR_OK)
		status = fsr_va_map(process, device, &args, va);
	return status;
}

/*
 * MMU-14 and TDR-06 (docs/runtime.md "Page faults as built"), per round: the main process keeps
 * rendering frames on a user-mode 3D queue — each one reads a 64 KB-page texture, works and
 * writes one 4 KB tile of its canvas, then signals — while a second process ("faulty-app")
 * writes a buffer it maps, queues one more write of it behind a fence, unmaps it (the unmap
 * call faults nothing) and opens the fence: the GPU faults when it runs the write (page_fault,
 * the buffer FAULTED, the PAGE_FAULT interrupt), the OS terminates the faulty context (scope
 * CONTEXT: context_error, its wait ends DEVICE_LOST; its device stays) and has the 3D engine
 * reset — every second round the engine reset fails and is promoted to an adapter reset, which
 * aborts and resubmits the main process's compute packet in flight. The faulty app then goes on
 * with a new context of the same device, whose buffer completes. The main process's frames all
 * complete, every tile holding the frame that wrote it last.
 */
static fsr_status
run_page_fault(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
	       struct fsr_scenario_totals *totals, char **error)
{
	struct world world_storage = {.totals = totals, .error = error};
	struct world *world = &world_storage;
	struct fsr_runtime_config runtime_config = {0};
	struct fsr_adapter_config adapter_config;
	uint64_t rounds = options->scale ? options->scale : 2;
	const uint64_t frames = 6, tiles = 4;
	fsr_handle render, compute, render_fence, compute_fence, canvas, texture;
	uint64_t canvas_va = 0, texture_va = 0, frame_value = 0, compute_value = 0;
	fsr_status status;

	(void) scenario;
	fsr_adapter_config_init(&adapter_config);
	TRY(world_open(world, options, &runtime_config, &adapter_config));
	TRY(queue_new(world, 0, FSR_SUBMIT_USER_MODE, &render));
	TRY(queue_new(world, 1, FSR_SUBMIT_KERNEL_MODE, &compute));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &render_fence, NULL));
	TRY(fsr_fence_create(world->process, world->device, 0, 0, &compute_fence, NULL));
	TRY(map_new(world->process, world->device, tiles * FSR_GPU_PAGE_BYTES, FSR_GPU_PAGE_BYTES,
		    &canvas, &canvas_va));
	TRY(map_new(world->process, world->device, FSR_GPU_LARGE_PAGE_BYTES,
		    FSR_GPU_LARGE_PAGE_BYTES, &texture, &texture_va));
	for (uint64_t round = 1; round <= rounds; round++) {
		struct side_process faulty = {0};
		struct fsr_cmdbuf *cmdbuf = NULL;
		fsr_handle buffer, gate, context, queue;
		uint64_t buffer_va = 0;
		struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
		bool is_promoted = round % 2 == 0;

		TRY(side_open(world, "faulty-app", &faulty));
		TRY(map_new(faulty.process, faulty.device, 2 * FSR_GPU_PAGE_BYTES,
			    FSR_GPU_PAGE_BYTES, &buffer, &buffer_va));
		TRY(fsr_fence_create(faulty.process, faulty.device, 0, 0, &gate, NULL));
		/* A write that lands (its buffer completes), then one behind a gate that won't. */
		TRY(fsr_cmdbuf_create(faulty.process, faulty.queue, &cmdbuf));
		TRY(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, buffer_va, 2 * FSR_GPU_PAGE_BYTES,
				      0x11));
		TRY(fsr_cmdbuf_signal(cmdbuf, faulty.fence, 1));
		status = fsr_cmdbuf_submit(cmdbuf, NULL);
		cmdbuf = NULL;
		if (status != FSR_OK) {
			world_fail(world, status, "fsr_cmdbuf_submit of the first write");
			goto end;
		}
		totals->submissions++;
		totals->gpu_signals++;
		TRY(fsr_fence_wait_cpu(faulty.process, faulty.fence, 1, FSR_INFINITE,
				       FSR_WAIT_BLOCKING));
		totals->cpu_waits++;
		TRY(fsr_cmdbuf_create(faulty.process, faulty.queue, &cmdbuf));
		TRY(fsr_cmdbuf_wait(cmdbuf, gate, 1));
		TRY(fsr_cmdbuf_work(cmdbuf, 2000));
		TRY(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, buffer_va + FSR_GPU_PAGE_BYTES, 64,
				      0x22));
		TRY(fsr_cmdbuf_signal(cmdbuf, faulty.fence, 2));
		status = fsr_cmdbuf_submit(cmdbuf, NULL);
		cmdbuf = NULL;
		if (status != FSR_OK) {
			world_fail(world, status, "fsr_cmdbuf_submit of the faulty buffer");
			goto end;
		}
		totals->submissions++;
		totals->work_gpu_ticks += 2000;
		totals->gpu_waits++;
		if (is_promoted)
			TRY(fsr_test_engine_reset_fail(world->runtime, world->adapter, 0, 1));
		/* The main process renders; its compute packets run beside. */
		for (uint64_t f = 0; f < frames; f++) {
			uint64_t tile = (frame_value + f) % tiles;

			TRY(fsr_cmdbuf_create(world->process, render, &cmdbuf));
			TRY(fsr_cmdbuf_access(cmdbuf, FSR_GPU_READ, texture_va,
					      FSR_GPU_LARGE_PAGE_BYTES, 0));
			TRY(fsr_cmdbuf_work(cmdbuf, random_between(world, 20000, 40000)));
			TRY(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE,
					      canvas_va + tile * FSR_GPU_PAGE_BYTES,
					      FSR_GPU_PAGE_BYTES, (uint8_t) (frame_value + f + 1)));
			TRY(fsr_cmdbuf_signal(cmdbuf, render_fence, frame_value + f + 1));
			status = fsr_cmdbuf_submit(cmdbuf, NULL);
			cmdbuf = NULL;
			if (status != FSR_OK) {
				world_fail(world, status, "fsr_cmdbuf_submit of a frame");
				goto end;
			}
			totals->submissions++;
			totals->gpu_signals++;
			if (f == 1) {
				TRY(submit(world, &(struct step){.queue = compute,
								 .work_ticks = 2000000,
								 .signal_fence = compute_fence,
								 .signal_value = ++compute_value}));
				/* MMU-14: unmapped while the write is queued: it faults later. */
				TRY(fsr_va_unmap(faulty.process, faulty.device, buffer_va,
						 2 * FSR_GPU_PAGE_BYTES));
				TRY(fsr_fence_signal_cpu(faulty.process, gate, 1));
				totals->cpu_signals++;
			}
		}
		frame_value += frames;
		status = fsr_fence_wait_cpu(faulty.process, faulty.fence, 2, FSR_INFINITE,
					    FSR_WAIT_BLOCKING);
		totals->cpu_waits++;
		/*
		 * DEVICE_LOST if it waited when the OS terminated the context; in realtime the
		 * fault may come first: the wait then finds the fence at UINT64_MAX (TDR-04).
		 */
		if (status == FSR_OK) {
			uint64_t current = 0;

			if (fsr_fence_read(faulty.process, faulty.fence, &current) == FSR_OK &&
			    current == UINT64_MAX)
				status = FSR_ERR_DEVICE_LOST;
		}
		if (status != FSR_ERR_DEVICE_LOST) {
			status = status == FSR_OK ? FSR_ERR_BAD_STATE : status;
			world_fail(world, status, "fsr_fence_wait_cpu on the faulting buffer");
			goto end;
		}
		/* Scope CONTEXT: the device is whole; a new context of it runs. */
		TRY(fsr_hwqueue_destroy(faulty.process, faulty.queue));
		TRY(fsr_context_create(faulty.process, faulty.device, 0, &context));
		TRY(fsr_hwqueue_create_user_mode(faulty.process, context, &config, &queue));
		TRY(fsr_fence_create(faulty.process, faulty.device, 0, 0, &faulty.fence, NULL));
		TRY(side_submit(world, &faulty, queue, 1000, 1));
		totals->gpu_signals++;
		TRY(fsr_fence_wait_cpu(faulty.process, faulty.fence, 1, FSR_INFINITE,
				       FSR_WAIT_BLOCKING));
		totals->cpu_waits++;
		TRY(fsr_process_terminate(faulty.process, false));
		TRY(cpu_wait(world, render_fence, frame_value));
		TRY(cpu_wait(world, compute_fence, compute_value));
	}
end:
	return world_close(world, status);
}

static const struct fsr_scenario producer_consumer = {
    "producer-consumer",
    "3D queue signals a fence that a compute queue waits on, value by value (--scale rounds, "
    "default 200)",
    run_producer_consumer, NULL};
static const struct fsr_scenario frame_pipeline = {
    "frame-pipeline",
    "60 Hz frames: copy upload (after the previous render) -> 3D render -> flip on the next "
    "vsync; every 8th frame misses a vsync (--scale frames, default 120)",
    run_frame_pipeline, NULL};
static const struct fsr_scenario log_overrun = {
    "log-overrun",
    "16-entry fence log read only on interrupts; bursts of 40 signals overrun it (--scale "
    "bursts, default 10)",
    run_log_overrun, NULL};
static const struct fsr_scenario cpu_waiters = {
    "cpu-waiters",
    "4 fences x N CPU waiters at spread values, signalled step by step: MonitoredValue at work "
    "(--scale waiters per fence, default 64)",
    run_cpu_waiters, NULL};
static const struct fsr_scenario stress = {
    "stress",
    "3 user-mode queues chained in a ring plus a kernel-mode copy queue, ~40 events a round "
    "(--scale rounds, default 1000; 250000 for ~10M events)",
    run_stress, NULL};

static const struct fsr_scenario doorbell_pressure = {
    "doorbell-pressure",
    "dedicated model: 6 user-mode queues in a wait/signal ring on 2 physical doorbells, a "
    "victimization and a reconnect per queue and round (--scale rounds, default 40)",
    run_doorbell_pressure, NULL};
static const struct fsr_scenario doorbell_global = {
    "doorbell-global",
    "global model: 32 user-mode queues in chains of 4 on the one doorbell, no victimization "
    "(--scale rounds, default 10)",
    run_doorbell_global, NULL};

static const struct fsr_scenario power_states = {
    "power-states",
    "3 user-mode queues on dedicated doorbells: engines go idle to F1 and a connect wakes them, "
    "every second round the device goes to D3 and a ring written there wakes it (--scale "
    "rounds, default 8)",
    run_power_states, NULL};
static const struct fsr_scenario suspend_terminate = {
    "suspend-terminate",
    "a context suspended while its UMD keeps ringing, then resumed; a normal and an abnormal "
    "process termination; a lost device and the UMD's fall-back to kernel mode (--scale "
    "rounds, default 4)",
    run_suspend_terminate, NULL};

static const struct fsr_scenario priority_inversion = {
    "priority-inversion",
    "a low-priority context's 20 ms kernel-mode packets on the 3D engine, a high-priority ring's "
    "short frames that preemption lets through (reason PRIORITY; --scale rounds, default 8)",
    run_priority_inversion, NULL};
static const struct fsr_scenario timeslice_mix = {
    "timeslice-mix",
    "two 3D and two compute contexts of equal priority with 250 us time slices, user- and "
    "kernel-mode queues, sharing each engine (reason TIME_SLICE; --scale rounds, default 6)",
    run_timeslice_mix, NULL};

static const struct fsr_scenario tdr_hang = {
    "tdr-hang",
    "a hung 3D engine recovered by TDR (detect, preemption request, engine reset, context in "
    "error, device lost) while an innocent process's queues keep running and complete; the hung "
    "app re-creates its queue (--scale rounds, default 2)",
    run_tdr_hang, NULL};
static const struct fsr_scenario adapter_reset = {
    "adapter-reset",
    "as tdr-hang, but the engine reset fails and is promoted to an adapter reset: the innocent "
    "compute packet in flight is aborted and resubmitted (--scale rounds, default 2)",
    run_adapter_reset, NULL};

static const struct fsr_scenario fault_injection = {
    "fault-injection",
    "every fault of the injector once a round (sim clock; realtime runs the innocent alone) — a "
    "lost and a delayed interrupt, a log overrun storm, a corrupt packet, a killed process, a "
    "hung engine, a packet ignoring preemption — beside an innocent process whose work all "
    "completes (--scale rounds, default 1)",
    run_fault_injection, NULL};

static const struct fsr_scenario mapping_churn = {
    "mapping-churn",
    "GpuMmu: 3 processes map and unmap 64 KB-page local and 4 KB-page system allocations at "
    "fixed and picked VAs, one mapped twice, while their queues work (--scale rounds, default "
    "16)",
    run_mapping_churn, NULL};

static const struct fsr_scenario page_fault = {
    "page-fault",
    "a process whose GPU write hits a range it unmapped while the write was queued: the page "
    "fault terminates its context and the 3D engine is reset (every second round promoted to an "
    "adapter reset) while another process keeps rendering frames that read and write mapped "
    "memory (--scale rounds, default 2)",
    run_page_fault, NULL};
static const struct fsr_scenario cross_adapter = {
    "cross-adapter",
    "iGPU -> dGPU frame pipeline over cross-adapter fences, both adapters native (spec 001 "
    "scenario 1): GPU and CPU signals propagated by the OS (--scale frames, default 60)",
    run_cross_adapter, NULL};
static const struct fsr_scenario cross_adapter_2a = {
    "cross-adapter-2a",
    "an iGPU without native fences waits (kernel-mode queue, CPU) on frames the dGPU signals "
    "(spec 001 scenario 2a; --scale frames, default 60)",
    run_cross_adapter_2a, NULL};
static const struct fsr_scenario cross_adapter_2b = {
    "cross-adapter-2b",
    "an iGPU without native fences signals from a kernel-mode queue and the CPU, the dGPU waits "
    "(spec 001 scenario 2b; --scale frames, default 60)",
    run_cross_adapter_2b, NULL};

static const struct fsr_scenario *const builtins[] = {
    &producer_consumer,  &frame_pipeline,  &log_overrun,
    &cpu_waiters,        &stress,          &doorbell_pressure,
    &doorbell_global,    &power_states,    &suspend_terminate,
    &priority_inversion, &timeslice_mix,   &tdr_hang,
    &adapter_reset,      &fault_injection, &mapping_churn,
    &page_fault,         &cross_adapter,   &cross_adapter_2a,
    &cross_adapter_2b,
};

const struct fsr_scenario *const *
fsr_scenario_builtins(size_t *count)
{
	*count = sizeof(builtins) / sizeof(builtins[0]);
	return builtins;
}

const struct fsr_scenario *
fsr_scenario_find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i]->name, name) == 0)
			return builtins[i];
	return NULL;
}

fsr_status
fsr_scenario_run(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
		 struct fsr_scenario_totals *totals, char **error)
{
	if (error)
		*error = NULL;
	if (!scenario || !options || !totals)
		return FSR_ERR_INVALID_ARGUMENT;
	*totals = (struct fsr_scenario_totals){0};
	return scenario->run(scenario, options, totals, error);
}
