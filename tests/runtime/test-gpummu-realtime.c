/* SPDX-License-Identifier: MIT */
/*
 * GpuMmu on the realtime clock (suite slow, run under ThreadSanitizer by scripts/test): while
 * the engines' threads run a stream of work packets, two threads of the application — each its
 * own process, with its own VA space (MMU-01) — map and unmap allocations, grow their roots
 * (MMU-03: reservations ever higher, each growth reprogramming every context under its engine's
 * lock) and walk every mapping through the GPU's MMU (fsr_test_gpu_translate), checking that a
 * mapping translates to its own allocation's bytes and an unmapped one no longer does (MMU-06).
 * A data race between the driver's page-table and root-register writes and the engines' steps,
 * or a walk of a root freed after a growth, is what ThreadSanitizer or AddressSanitizer would
 * report here.
 *
 * A plain program speaking TAP rather than a Criterion test: Criterion 2.4's inheritable arena
 * cannot be mapped under ThreadSanitizer.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fencescope/runtime.h>

#include "fencescope-test.h"
#include "tap.h"

#define MAPPERS    2
#define ITERATIONS 3000
#define KB4        UINT64_C(4096)
#define KB64       UINT64_C(65536)

struct mapper {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device, context, queue, fence;
	uint32_t index;
	_Atomic uint64_t failures;
};

static _Atomic bool is_done;

/* The GPU's walk of `va` in `mapper`'s 3D context: the host byte, or NULL. */
static unsigned char *
walk(struct mapper *mapper, uint64_t va)
{
	uint64_t root = 0;
	void *host = NULL;
	int fault;

	if (fsr_test_context_root_register(mapper->process, mapper->context, &root) != FSR_OK ||
	    !fsr_test_gpu_translate(mapper->runtime, 0, root, va, true, &host, &fault))
		return NULL;
	return host;
}

static void
expect(struct mapper *mapper, bool condition, const char *what, uint64_t i)
{
	if (!condition) {
		printf("# mapper %u, iteration %llu: %s\n", mapper->index, (unsigned long long) i,
		       what);
		atomic_fetch_add(&mapper->failures, 1);
	}
}

static void *
map_loop(void *data)
{
	struct mapper *mapper = data;

	for (uint64_t i = 0; i < ITERATIONS; i++) {
		bool is_large = i % 3 == 0;
		struct fsr_allocation_config config = {
		    .size_bytes = (1 + i % 4) * (is_large ? KB64 : KB4),
		    .segment = is_large ? FSR_SEGMENT_LOCAL : FSR_SEGMENT_SYSTEM,
		    .page_size_bytes = (uint32_t) (is_large ? KB64 : KB4)};
		struct fsr_va_map_args args = {.size_bytes = config.size_bytes};
		uint64_t va = 0, high = 0;
		unsigned char *first, *last;

		if (fsr_allocation_create_with_config(mapper->process, mapper->device, &config,
						      &args.allocation) != FSR_OK ||
		    fsr_va_map(mapper->process, mapper->device, &args, &va) != FSR_OK) {
			expect(mapper, false, "map failed", i);
			continue;
		}
		/* The GPU writes through the mapping, the CPU side reads it back. */
		first = walk(mapper, va);
		last = walk(mapper, va + config.size_bytes - 1);
		expect(mapper, first && last == first + config.size_bytes - 1,
		       "a mapping translates to its allocation", i);
		if (first)
			first[0] = (unsigned char) (mapper->index + 1);
		/* MMU-03: every 30 iterations the root grows (a VA further up). */
		if (i % 30 == 0)
			expect(mapper,
			       fsr_va_reserve(mapper->process, mapper->device, KB64, 0, 0,
					      ((i / 30) + 2) * (UINT64_C(1) << 30),
					      &high) == FSR_OK,
			       "a reservation above the root", i);
		expect(mapper, walk(mapper, va) == first, "the mapping survives the growth", i);
		expect(mapper,
		       fsr_va_unmap(mapper->process, mapper->device, va, config.size_bytes) ==
			   FSR_OK,
		       "unmap", i);
		expect(mapper, walk(mapper, va) == NULL, "MMU-06: an unmapped VA faults", i);
		expect(mapper, fsr_allocation_destroy(mapper->process, args.allocation) == FSR_OK,
		       "destroy", i);
	}
	return NULL;
}

/* The engines' threads stay busy: a stream of work on each mapper's queue. */
static void *
work_loop(void *data)
{
	struct mapper *mappers = data;
	uint64_t value = 0;

	while (!atomic_load(&is_done)) {
		value++;
		for (uint32_t m = 0; m < MAPPERS; m++) {
			struct fsr_cmdbuf *cmdbuf = NULL;

			if (fsr_cmdbuf_create(mappers[m].process, mappers[m].queue, &cmdbuf) !=
				FSR_OK ||
			    fsr_cmdbuf_work(cmdbuf, 2000) != FSR_OK ||
			    fsr_cmdbuf_signal(cmdbuf, mappers[m].fence, value) != FSR_OK ||
			    fsr_cmdbuf_submit(cmdbuf, NULL) != FSR_OK)
				atomic_fetch_add(&mappers[m].failures, 1);
		}
		for (uint32_t m = 0; m < MAPPERS; m++)
			if (fsr_fence_wait_cpu(mappers[m].process, mappers[m].fence, value,
					       UINT64_C(10000000000), FSR_WAIT_BLOCKING) != FSR_OK)
				atomic_fetch_add(&mappers[m].failures, 1);
	}
	return NULL;
}

static void
mmu_01_mmu_03_mmu_06_mappings_churn_while_engines_run_in_realtime(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 17};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_runtime *runtime;
	struct mapper mappers[MAPPERS];
	pthread_t threads[MAPPERS], worker;
	uint32_t adapter;

	memset(mappers, 0, sizeof(mappers));
	fsr_adapter_config_init(&adapter_config);
	SETUP(fsr_runtime_create(&config, &runtime));
	SETUP(fsr_adapter_create(runtime, &adapter_config, &adapter));
	for (uint32_t m = 0; m < MAPPERS; m++) {
		struct mapper *mapper = &mappers[m];

		mapper->runtime = runtime;
		mapper->index = m;
		SETUP(fsr_process_create(runtime, m ? "mapper-b" : "mapper-a", &mapper->process));
		SETUP(fsr_device_create(mapper->process, adapter, &mapper->device));
		SETUP(fsr_context_create(mapper->process, mapper->device, 0, &mapper->context));
		SETUP(fsr_hwqueue_create_user_mode(mapper->process, mapper->context, &queue_config,
						   &mapper->queue));
		SETUP(
		    fsr_fence_create(mapper->process, mapper->device, 0, 0, &mapper->fence, NULL));
	}
	atomic_store(&is_done, false);
	pthread_create(&worker, NULL, work_loop, mappers);
	for (uint32_t m = 0; m < MAPPERS; m++)
		pthread_create(&threads[m], NULL, map_loop, &mappers[m]);
	for (uint32_t m = 0; m < MAPPERS; m++)
		pthread_join(threads[m], NULL);
	atomic_store(&is_done, true);
	pthread_join(worker, NULL);
	for (uint32_t m = 0; m < MAPPERS; m++) {
		CHECK(atomic_load(&mappers[m].failures) == 0, "mapper %u: %llu failures", m,
		      (unsigned long long) atomic_load(&mappers[m].failures));
		CHECK(fsr_process_terminate(mappers[m].process, false) == FSR_OK, "terminate %u",
		      m);
	}
	fsr_runtime_destroy(runtime);
}

int
main(void)
{
	printf("1..1\n");
	mmu_01_mmu_03_mmu_06_mappings_churn_while_engines_run_in_realtime();
	printf("%s 1 - mmu_01_mmu_03_mmu_06_mappings_churn_while_engines_run_in_realtime\n",
	       failed_checks ? "not ok" : "ok");
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
