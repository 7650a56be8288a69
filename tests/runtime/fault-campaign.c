/* SPDX-License-Identifier: MIT */
/*
 * A seeded random fault campaign (docs/robustness.md): for each seed, a sim-mode run of three
 * processes — each a user-mode queue on the 3D engine and a kernel-mode queue on the compute
 * engine that waits for it on the GPU, with CPU waiters blocking and asynchronous — under a
 * random fault plan drawn from the seed (lost and delayed interrupts, corrupt packets, killed
 * processes, log overrun storms, hung engines, packets ignoring preemption; small logs, each
 * interrupt form in turn). Every run must keep
 * fault-check.h's invariants and account for every fault it injected.
 *
 *   fencescope-fault-campaign [FIRST_SEED [SEEDS [ROUNDS]]]   (defaults 1, 30, 12)
 *
 * Prints TAP, one line per seed, with the faults injected; exits non-zero if any run broke an
 * invariant. The test `runtime-fault-campaign` runs the default; `scripts/fuzz --faults` runs
 * it for as long as asked.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault-check.h"
#include "tap.h"

#define PROCESSES 3

struct campaign_process {
	struct fsr_process *process;
	fsr_handle device, context_3d, context_compute;
	fsr_handle user_queue, km_queue;
	fsr_handle user_fence, km_fence;
	bool is_stopped; /* killed, or its device lost: it submits nothing more */
};

struct wait_tally {
	uint32_t ended, bad;
};

static void
on_async_wait(fsr_status status, uint64_t observed, void *user_data)
{
	struct wait_tally *tally = user_data;

	(void) observed;
	tally->ended++;
	if (status != FSR_OK && status != FSR_ERR_DEVICE_LOST && status != FSR_ERR_DESTROYED)
		tally->bad++;
}

/* A buffer: optionally a GPU wait, some work, a signal. The submit's status. */
static fsr_status
submit(struct campaign_process *p, fsr_handle queue, fsr_handle wait_fence, uint64_t wait_value,
       fsr_handle signal_fence, uint64_t value, uint64_t ticks)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	SETUP(fsr_cmdbuf_create(p->process, queue, &cmdbuf));
	if (wait_fence)
		SETUP(fsr_cmdbuf_wait(cmdbuf, wait_fence, wait_value));
	SETUP(fsr_cmdbuf_work(cmdbuf, ticks));
	SETUP(fsr_cmdbuf_signal(cmdbuf, signal_fence, value));
	return fsr_cmdbuf_submit(cmdbuf, NULL);
}

static void
setup_process(struct fsr_runtime *runtime, struct campaign_process *p, int index)
{
	char name[16];
	struct fsr_hwqueue_config user = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_hwqueue_config kernel = {.mode = FSR_SUBMIT_KERNEL_MODE};

	snprintf(name, sizeof(name), "victim-%d", index);
	SETUP(fsr_process_create(runtime, name, &p->process));
	SETUP(fsr_device_create(p->process, 0, &p->device));
	SETUP(fsr_context_create(p->process, p->device, 0, &p->context_3d));
	SETUP(fsr_context_create(p->process, p->device, 1, &p->context_compute));
	SETUP(fsr_hwqueue_create_user_mode(p->process, p->context_3d, &user, &p->user_queue));
	SETUP(fsr_hwqueue_create(p->process, p->context_compute, &kernel, &p->km_queue));
	SETUP(fsr_fence_create(p->process, p->device, 0, 0, &p->user_fence, NULL));
	SETUP(fsr_fence_create(p->process, p->device, 0, 0, &p->km_fence, NULL));
}

/* A submission's status: go on, or stop this process (killed, or its device lost). */
static bool
accept(struct campaign_process *p, fsr_status status, uint64_t seed)
{
	if (status == FSR_OK)
		return true;
	CHECK(status == FSR_ERR_DESTROYED || status == FSR_ERR_DEVICE_LOST,
	      "seed %" PRIu64 ": submit returned %s", seed, fsr_status_name(status));
	p->is_stopped = true;
	return false;
}

static void
run_round(struct campaign_process *processes, uint64_t round, uint64_t seed,
	  struct wait_tally *tally)
{
	for (int i = 0; i < PROCESSES; i++) {
		struct campaign_process *p = &processes[i];
		fsr_status status;

		if (p->is_stopped)
			continue;
		status = submit(p, p->user_queue, 0, 0, p->user_fence, round, 150 + 50 * i);
		if (!accept(p, status, seed))
			continue;
		status = submit(p, p->km_queue, p->user_fence, round, p->km_fence, round, 100);
		if (!accept(p, status, seed))
			continue;
		status = fsr_fence_wait_cpu_async(p->process, p->km_fence, round, FSR_INFINITE,
						  on_async_wait, tally);
		CHECK(status == FSR_OK, "seed %" PRIu64 ": async wait %s", seed,
		      fsr_status_name(status));
		if (status != FSR_OK)
			continue;
		tally->ended--; /* counted back when it ends */
		if ((round + (uint64_t) i) % 4 == 0) {
			status = fsr_fence_wait_cpu(p->process, p->user_fence, round, FSR_INFINITE,
						    FSR_WAIT_BLOCKING);
			CHECK(status == FSR_OK || status == FSR_ERR_DEVICE_LOST,
			      "seed %" PRIu64 ": blocking wait %s (a lost wake-up?)", seed,
			      fsr_status_name(status));
		}
	}
}

static bool
run_seed(uint64_t seed, uint32_t rounds)
{
	struct fsr_fault_plan plan = {.random_seed = seed, .random_max = 8};
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_SIM, .seed = seed};
	struct fsr_adapter_config adapter;
	struct campaign_process processes[PROCESSES] = {0};
	struct wait_tally tally = {0};
	struct fst_fault_verdict verdict;
	struct fst_fault_check *check;
	struct fsr_runtime *runtime;
	int before = failed_checks;
	uint64_t injected = 0;
	bool is_ok;

	plan.random_ppm[FSR_FAULT_LOST_INTERRUPT] = 60000;
	plan.random_ppm[FSR_FAULT_DELAYED_INTERRUPT] = 40000;
	plan.random_ppm[FSR_FAULT_CORRUPT_PACKET] = 20000;
	plan.random_ppm[FSR_FAULT_PROCESS_KILLED] = 15000;
	plan.random_ppm[FSR_FAULT_LOG_OVERRUN_STORM] = 8000;
	plan.random_ppm[FSR_FAULT_HUNG_ENGINE] = 4000;
	plan.random_ppm[FSR_FAULT_IGNORES_PREEMPTION] = 500000;
	config.fault_plan = &plan;
	fsr_adapter_config_init(&adapter);
	adapter.interrupt_form = (enum fsr_interrupt_form)(1 + seed % 3);
	adapter.log_capacity_entries = 16;
	adapter.keep_log_size_when_tracing = true;
	SETUP(fsr_runtime_create(&config, &runtime));
	SETUP(fsr_adapter_create(runtime, &adapter, &(uint32_t){0}));
	check = fst_fault_check_new(runtime);
	for (int i = 0; i < PROCESSES; i++)
		setup_process(runtime, &processes[i], i);
	for (uint64_t round = 1; round <= rounds; round++)
		run_round(processes, round, seed, &tally);
	SETUP(fsr_runtime_run_until_idle(runtime));
	/* The state's invariants while the queues exist, then the accounting once they went:
	 * a storm's overrun may show only at its queue's last log read. */
	fst_fault_check_verify(check, &verdict);
	CHECK(verdict.invariants_hold, "seed %" PRIu64 ": %s", seed, verdict.violation);
	for (int i = 0; i < PROCESSES; i++)
		SETUP(fsr_process_terminate(processes[i].process, processes[i].is_stopped));
	SETUP(fsr_runtime_run_until_idle(runtime));
	is_ok = fst_fault_check_verify(check, &verdict);
	CHECK(is_ok, "seed %" PRIu64 ": %s", seed, verdict.violation);
	CHECK(tally.bad == 0, "seed %" PRIu64 ": %u async waits ended badly", seed, tally.bad);
	fst_fault_check_free(check);
	fsr_runtime_destroy(runtime);
	for (int kind = 0; kind < FSR_FAULT_KIND_COUNT; kind++)
		injected += verdict.injected[kind];
	printf(
	    "%s %" PRIu64 " - seed %" PRIu64 ": %" PRIu64 " faults (lost %" PRIu64
	    ", delayed %" PRIu64 ", corrupt %" PRIu64 ", killed %" PRIu64 ", storm %" PRIu64
	    ", hung %" PRIu64 ", ignored preemption %" PRIu64 "), %u waits DEVICE_LOST\n",
	    failed_checks == before ? "ok" : "not ok", seed, seed, injected,
	    verdict.injected[FSR_FAULT_LOST_INTERRUPT],
	    verdict.injected[FSR_FAULT_DELAYED_INTERRUPT],
	    verdict.injected[FSR_FAULT_CORRUPT_PACKET], verdict.injected[FSR_FAULT_PROCESS_KILLED],
	    verdict.injected[FSR_FAULT_LOG_OVERRUN_STORM], verdict.injected[FSR_FAULT_HUNG_ENGINE],
	    verdict.injected[FSR_FAULT_IGNORES_PREEMPTION], verdict.device_lost_waits);
	return failed_checks == before;
}

int
main(int argc, char **argv)
{
	uint64_t first = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	uint64_t count = argc > 2 ? strtoull(argv[2], NULL, 0) : 30;
	uint32_t rounds = argc > 3 ? (uint32_t) strtoul(argv[3], NULL, 0) : 12;

	printf("1..%" PRIu64 "\n", count);
	for (uint64_t seed = first; seed < first + count; seed++)
		run_seed(seed, rounds);
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
