/* SPDX-License-Identifier: MIT */
/*
 * Page faults in realtime (MMU-14, TDR-06; docs/runtime.md "Page faults as built"): the engines'
 * threads translate accesses while the OS maps and unmaps, faults and resets them. A plain TAP
 * program, so that scripts/test runs it under ThreadSanitizer too (Criterion cannot): page-table
 * words and CurrentValue are the only memory the GPU and the OS share, and the faulting engine's
 * stop and reset go through the engine's lock.
 *
 * An innocent process renders frames from its own thread — a user-mode 3D queue that writes one
 * tile of its canvas a frame, a kernel-mode compute queue beside it — while the main thread runs
 * a faulty process's rounds: a write that lands, a write queued behind a gate, the range
 * unmapped, the gate opened; the fault terminates the faulty context (every second round the
 * engine reset fails and is promoted to an adapter reset). Checks: one fault sequence per round
 * in the 1.5 order, the faulty wait ends DEVICE_LOST, the unmapped write landed nowhere, and the
 * innocent's frames all complete, each tile holding the last frame that wrote it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "fencescope-test.h"
#include "fencescope-tp-enums.h"
#include "tap.h"

#define PAGE   UINT64_C(4096)
#define TILES  8u
#define FRAMES 120u
#define ROUNDS 4u

#define MAX_SEEN 16384

/* The events the checks read, in firing order (engines and the OS fire concurrently). */
static struct {
	pthread_mutex_t lock;
	struct {
		const char *name;
		uint64_t fields[8];
	} events[MAX_SEEN];
	size_t count;
} seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool
is_watched(const char *name)
{
	static const char *const watched[] = {
	    "fencescope_hw:page_fault",        "fencescope_hw:interrupt_raise",
	    "fencescope_os:interrupt_handled", "fencescope_os:page_fault",
	    "fencescope_os:tdr_begin",         "fencescope_os:context_error",
	    "fencescope_kmd:engine_reset",     "fencescope_kmd:adapter_reset",
	    "fencescope_os:tdr_end",           "fencescope_os:device_lost",
	};

	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		if (strcmp(name, watched[i]) == 0)
			return true;
	return false;
}

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	(void) user_data;
	if (!is_watched(name))
		return;
	pthread_mutex_lock(&seen.lock);
	if (seen.count < MAX_SEEN) {
		seen.events[seen.count].name = name;
		memset(seen.events[seen.count].fields, 0, sizeof(seen.events[0].fields));
		memcpy(seen.events[seen.count].fields, fields,
		       (field_count < 8 ? field_count : 8) * sizeof(*fields));
		seen.count++;
	}
	pthread_mutex_unlock(&seen.lock);
}

static size_t
find(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < seen.count; i++)
		if (strcmp(seen.events[i].name, name) == 0 &&
		    (field < 0 || seen.events[i].fields[field] == value))
			return i;
	return SIZE_MAX;
}

/*
 * A CPU wait on a fence the faulting context would have signalled: DEVICE_LOST when it was
 * waiting when the OS terminated the context; one that starts after finds the fence at
 * UINT64_MAX (TDR-04's value) and returns at once, FSR_OK. Either way it was lost.
 */
static bool
is_lost_wait(struct fsr_process *process, fsr_handle fence, fsr_status status)
{
	uint64_t current = 0;

	if (status == FSR_ERR_DEVICE_LOST)
		return true;
	return status == FSR_OK && fsr_fence_read(process, fence, &current) == FSR_OK &&
	       current == UINT64_MAX;
}

struct innocent {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device, render, compute, fence, compute_fence;
	uint64_t canvas_va;
	uint8_t *canvas;
	fsr_status status;
};

static void *
render_frames(void *data)
{
	struct innocent *in = data;

	for (uint32_t frame = 1; frame <= FRAMES && in->status == FSR_OK; frame++) {
		struct fsr_cmdbuf *cmdbuf = NULL;

		in->status = fsr_cmdbuf_create(in->process, in->render, &cmdbuf);
		if (in->status == FSR_OK)
			in->status = fsr_cmdbuf_work(cmdbuf, 20000);
		if (in->status == FSR_OK)
			in->status = fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE,
						       in->canvas_va + (frame % TILES) * PAGE, PAGE,
						       (uint8_t) frame);
		if (in->status == FSR_OK)
			in->status = fsr_cmdbuf_signal(cmdbuf, in->fence, frame);
		if (in->status == FSR_OK) {
			in->status = fsr_cmdbuf_submit(cmdbuf, NULL);
			cmdbuf = NULL;
		}
		fsr_cmdbuf_destroy(cmdbuf);
		if (in->status == FSR_OK && frame % 8 == 0) {
			cmdbuf = NULL;
			in->status = fsr_cmdbuf_create(in->process, in->compute, &cmdbuf);
			if (in->status == FSR_OK)
				in->status = fsr_cmdbuf_work(cmdbuf, 100000);
			if (in->status == FSR_OK)
				in->status =
				    fsr_cmdbuf_signal(cmdbuf, in->compute_fence, frame / 8);
			if (in->status == FSR_OK) {
				in->status = fsr_cmdbuf_submit(cmdbuf, NULL);
				cmdbuf = NULL;
			}
			fsr_cmdbuf_destroy(cmdbuf);
		}
		/* Keep the GPU a few frames behind, as a renderer's frame latency does. */
		if (in->status == FSR_OK && frame > 3)
			in->status = fsr_fence_wait_cpu(in->process, in->fence, frame - 3,
							UINT64_C(5000000000), FSR_WAIT_BLOCKING);
	}
	return NULL;
}

static void
map_new(struct fsr_process *process, fsr_handle device, uint64_t size, fsr_handle *allocation,
	uint64_t *va, uint8_t **storage)
{
	struct fsr_allocation_config config = {.size_bytes = size,
					       .segment = FSR_SEGMENT_SYSTEM,
					       .page_size_bytes = FSR_GPU_PAGE_BYTES};
	struct fsr_va_map_args args = {.size_bytes = size};
	uint64_t storage_size = 0;

	SETUP(fsr_allocation_create_with_config(process, device, &config, allocation));
	args.allocation = *allocation;
	SETUP(fsr_va_map(process, device, &args, va));
	SETUP(fsr_test_allocation_storage(process, *allocation, storage, &storage_size));
}

static void
faulty_round(struct fsr_runtime *runtime, uint32_t adapter, struct fsr_process *process,
	     uint32_t round)
{
	struct fsr_hwqueue_config config = {.mode = round % 2 ? FSR_SUBMIT_USER_MODE
							      : FSR_SUBMIT_KERNEL_MODE};
	fsr_handle device, context, queue, fence, gate, allocation;
	struct fsr_cmdbuf *cmdbuf;
	uint64_t va = 0;
	uint8_t *storage = NULL;
	fsr_status status;

	/* A device per round: each fault is its device's first (scope CONTEXT). */
	SETUP(fsr_device_create(process, adapter, &device));
	SETUP(fsr_context_create(process, device, 0, &context));
	if (config.mode == FSR_SUBMIT_USER_MODE)
		SETUP(fsr_hwqueue_create_user_mode(process, context, &config, &queue));
	else
		SETUP(fsr_hwqueue_create(process, context, &config, &queue));
	SETUP(fsr_fence_create(process, device, 0, 0, &fence, NULL));
	SETUP(fsr_fence_create(process, device, 0, 0, &gate, NULL));
	map_new(process, device, 2 * PAGE, &allocation, &va, &storage);
	SETUP(fsr_cmdbuf_create(process, queue, &cmdbuf));
	SETUP(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, va, 2 * PAGE, 0x11));
	SETUP(fsr_cmdbuf_signal(cmdbuf, fence, 1));
	SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
	SETUP(fsr_fence_wait_cpu(process, fence, 1, UINT64_C(5000000000), FSR_WAIT_BLOCKING));
	CHECK(storage[0] == 0x11 && storage[2 * PAGE - 1] == 0x11, "round %u: the write landed",
	      round);
	SETUP(fsr_cmdbuf_create(process, queue, &cmdbuf));
	SETUP(fsr_cmdbuf_wait(cmdbuf, gate, 1));
	SETUP(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, va, 2 * PAGE, 0x22));
	SETUP(fsr_cmdbuf_signal(cmdbuf, fence, 2));
	SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
	if (round % 2 == 0)
		SETUP(fsr_test_engine_reset_fail(runtime, adapter, 0, 1));
	SETUP(fsr_va_unmap(process, device, va, 2 * PAGE));
	SETUP(fsr_fence_signal_cpu(process, gate, 1));
	status = fsr_fence_wait_cpu(process, fence, 2, UINT64_C(5000000000), FSR_WAIT_BLOCKING);
	CHECK(is_lost_wait(process, fence, status), "round %u: the faulting buffer's wait: %s",
	      round, fsr_status_name(status));
	CHECK(storage[0] == 0x11 && storage[2 * PAGE - 1] == 0x11,
	      "round %u: the unmapped write landed nowhere", round);
	SETUP(fsr_device_destroy(process, device));
}

static void
faults_beside_a_renderer(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 1};
	struct fsr_adapter_config adapter_config;
	struct innocent in = {0};
	struct fsr_process *faulty;
	fsr_handle context_3d, context_compute, canvas;
	struct fsr_hwqueue_config user = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_hwqueue_config kernel = {.mode = FSR_SUBMIT_KERNEL_MODE};
	uint32_t adapter;
	pthread_t thread;
	size_t from = 0;

	int failed_before = failed_checks;

	fsr_adapter_config_init(&adapter_config);
	adapter_config.keep_log_size_when_tracing = true;
	SETUP(fsr_runtime_create(&config, &in.runtime));
	SETUP(fsr_adapter_create(in.runtime, &adapter_config, &adapter));
	fsr_runtime_set_event_tap(in.runtime, tap, NULL);
	SETUP(fsr_process_create(in.runtime, "innocent", &in.process));
	SETUP(fsr_device_create(in.process, adapter, &in.device));
	SETUP(fsr_context_create(in.process, in.device, 0, &context_3d));
	SETUP(fsr_context_create(in.process, in.device, 1, &context_compute));
	SETUP(fsr_hwqueue_create_user_mode(in.process, context_3d, &user, &in.render));
	SETUP(fsr_hwqueue_create(in.process, context_compute, &kernel, &in.compute));
	SETUP(fsr_fence_create(in.process, in.device, 0, 0, &in.fence, NULL));
	SETUP(fsr_fence_create(in.process, in.device, 0, 0, &in.compute_fence, NULL));
	map_new(in.process, in.device, TILES * PAGE, &canvas, &in.canvas_va, &in.canvas);
	SETUP(fsr_process_create(in.runtime, "faulty", &faulty));

	if (pthread_create(&thread, NULL, render_frames, &in) != 0) {
		printf("Bail out! pthread_create\n");
		exit(EXIT_FAILURE);
	}
	for (uint32_t round = 1; round <= ROUNDS; round++)
		faulty_round(in.runtime, adapter, faulty, round);
	pthread_join(thread, NULL);
	CHECK(in.status == FSR_OK, "the innocent's frames: %s", fsr_status_name(in.status));
	SETUP(fsr_fence_wait_cpu(in.process, in.fence, FRAMES, UINT64_C(5000000000),
				 FSR_WAIT_BLOCKING));
	SETUP(fsr_fence_wait_cpu(in.process, in.compute_fence, FRAMES / 8, UINT64_C(5000000000),
				 FSR_WAIT_BLOCKING));
	for (uint32_t tile = 0; tile < TILES; tile++) {
		uint32_t last = FRAMES - (FRAMES - tile) % TILES; /* the last frame of that tile */

		CHECK(in.canvas[tile * PAGE] == (uint8_t) last &&
			  in.canvas[tile * PAGE + PAGE - 1] == (uint8_t) last,
		      "tile %u holds %u, not frame %u", tile, in.canvas[tile * PAGE], last);
	}
	SETUP(fsr_runtime_run_until_idle(in.runtime));
	fsr_runtime_set_event_tap(in.runtime, NULL, NULL);

	/* One fault sequence per round, in the 1.5 order. */
	for (uint32_t round = 1; round <= ROUNDS; round++) {
		size_t fault = find(from, "fencescope_hw:page_fault", -1, 0);
		size_t raise =
		    find(fault, "fencescope_hw:interrupt_raise", 2, FSTP_INTERRUPT_TYPE_PAGE_FAULT);
		size_t os_fault = find(raise, "fencescope_os:page_fault", -1, 0);
		size_t begin =
		    find(os_fault, "fencescope_os:tdr_begin", 2, FSTP_LOSS_REASON_PAGE_FAULT);
		size_t error =
		    find(begin, "fencescope_os:context_error", 4, FSTP_LOSS_REASON_PAGE_FAULT);
		size_t reset = find(error, "fencescope_kmd:engine_reset", -1, 0);
		size_t end = find(reset, "fencescope_os:tdr_end", -1, 0);

		CHECK(end != SIZE_MAX, "round %u: the fault sequence is incomplete or out of order",
		      round);
		if (end == SIZE_MAX)
			break;
		CHECK(seen.events[end].fields[2] == (round % 2 == 0
							 ? (uint64_t) FSTP_TDR_RESULT_ADAPTER_RESET
							 : (uint64_t) FSTP_TDR_RESULT_ENGINE_RESET),
		      "round %u: tdr_end result %llu", round,
		      (unsigned long long) seen.events[end].fields[2]);
		CHECK(seen.events[os_fault].fields[7] == FSTP_FAULT_SCOPE_CONTEXT,
		      "round %u: scope", round);
		from = end + 1;
	}
	CHECK(find(from, "fencescope_hw:page_fault", -1, 0) == SIZE_MAX, "more faults than rounds");
	CHECK(find(0, "fencescope_os:device_lost", -1, 0) == SIZE_MAX,
	      "a device lost to a first fault");
	SETUP(fsr_process_terminate(faulty, false));
	SETUP(fsr_process_terminate(in.process, false));
	fsr_runtime_destroy(in.runtime);
	printf("%s 1 - page faults beside an innocent renderer, %u rounds\n",
	       failed_checks > failed_before ? "not ok" : "ok", ROUNDS);
}

/* ---- 2: unmaps racing the engine's translations ------------------------------------------ */

#define RACE_ITERATIONS 200u
#define RACE_VA         UINT64_C(0x40000000)

struct mapper {
	struct fsr_process *process;
	fsr_handle device, allocation;
	_Atomic bool is_done;
	fsr_status status;
};

/* Unmaps and maps the range again, as fast as it can, until the writer is done. */
static void *
churn_mapping(void *data)
{
	struct mapper *m = data;
	struct fsr_va_map_args args = {
	    .allocation = m->allocation, .size_bytes = 2 * PAGE, .va = RACE_VA};
	uint64_t va_turns = 0;

	while (!atomic_load(&m->is_done) && m->status == FSR_OK) {
		uint64_t va = 0;

		m->status = fsr_va_unmap(m->process, m->device, RACE_VA, 2 * PAGE);
		/* Unmapped a while, mapped a while: writes meet both, and the edges between. */
		nanosleep(&(struct timespec){.tv_nsec = (long) (20000 + 10000 * (va_turns % 5))},
			  NULL);
		if (m->status == FSR_OK)
			m->status = fsr_va_map(m->process, m->device, &args, &va);
		nanosleep(&(struct timespec){.tv_nsec = 30000}, NULL);
		va_turns++;
	}
	return NULL;
}

/*
 * MMU-14 under a race: one thread unmaps and maps a two-page range again and again while the
 * main thread's buffers write the whole range through it. Each write either lands whole (its
 * buffer completes, both pages hold its value) or faults and lands nowhere (the buffer's wait
 * ends DEVICE_LOST, both pages keep the value before); the faulting context's process makes a
 * new device and context and goes on. Every fault is one hw:page_fault. Under ThreadSanitizer
 * and AddressSanitizer this is the check that a walk in flight never touches a table or page an
 * unmap freed (DxgkDdiFlushTlb).
 */
static void
unmaps_racing_writes(void)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 1};
	struct fsr_adapter_config adapter_config;
	struct fsr_runtime *runtime;
	struct mapper mapper = {0};
	struct fsr_allocation_config ac = {.size_bytes = 2 * PAGE,
					   .segment = FSR_SEGMENT_SYSTEM,
					   .page_size_bytes = FSR_GPU_PAGE_BYTES};
	struct fsr_hwqueue_config user = {.mode = FSR_SUBMIT_USER_MODE};
	fsr_handle device = 0, context, queue = 0, fence = 0;
	uint64_t reserved = 0, mapped = 0, storage_size = 0, value = 0, faults = 0, landed = 0;
	uint8_t *storage = NULL;
	uint8_t before = 0;
	pthread_t thread;
	int failed_before = failed_checks;

	fsr_adapter_config_init(&adapter_config);
	adapter_config.keep_log_size_when_tracing = true;
	seen.count = 0;
	SETUP(fsr_runtime_create(&config, &runtime));
	SETUP(fsr_adapter_create(runtime, &adapter_config, &(uint32_t){0}));
	fsr_runtime_set_event_tap(runtime, tap, NULL);
	SETUP(fsr_process_create(runtime, "racer", &mapper.process));
	SETUP(fsr_device_create(mapper.process, 0, &mapper.device));
	SETUP(fsr_allocation_create_with_config(mapper.process, mapper.device, &ac,
						&mapper.allocation));
	SETUP(fsr_test_allocation_storage(mapper.process, mapper.allocation, &storage,
					  &storage_size));
	SETUP(fsr_va_reserve(mapper.process, mapper.device, 2 * PAGE, 0, 0, RACE_VA, &reserved));
	SETUP(fsr_va_map(mapper.process, mapper.device,
			 &(struct fsr_va_map_args){.allocation = mapper.allocation,
						   .size_bytes = 2 * PAGE,
						   .va = RACE_VA},
			 &mapped));
	if (pthread_create(&thread, NULL, churn_mapping, &mapper) != 0) {
		printf("Bail out! pthread_create\n");
		exit(EXIT_FAILURE);
	}
	for (uint32_t i = 1; i <= RACE_ITERATIONS; i++) {
		struct fsr_cmdbuf *cmdbuf;
		uint8_t v = (uint8_t) (1 + i % 250);
		fsr_status status;

		if (!queue) {
			/* A new device each time: every fault is its device's first. */
			SETUP(fsr_device_create(mapper.process, 0, &device));
			SETUP(fsr_context_create(mapper.process, device, 0, &context));
			SETUP(fsr_hwqueue_create_user_mode(mapper.process, context, &user, &queue));
			SETUP(fsr_fence_create(mapper.process, device, 0, 0, &fence, NULL));
			value = 0;
		}
		SETUP(fsr_cmdbuf_create(mapper.process, queue, &cmdbuf));
		SETUP(fsr_cmdbuf_access(cmdbuf, FSR_GPU_WRITE, RACE_VA, 2 * PAGE, v));
		SETUP(fsr_cmdbuf_signal(cmdbuf, fence, ++value));
		SETUP(fsr_cmdbuf_submit(cmdbuf, NULL));
		status = fsr_fence_wait_cpu(mapper.process, fence, value, UINT64_C(5000000000),
					    FSR_WAIT_BLOCKING);
		if (!is_lost_wait(mapper.process, fence, status)) {
			CHECK(status == FSR_OK, "iteration %u: the wait ended %s", i,
			      fsr_status_name(status));
			landed++;
			CHECK(
			    storage[0] == v && storage[PAGE] == v && storage[2 * PAGE - 1] == v,
			    "iteration %u: a completed write did not land whole (%#x %#x %#x, not "
			    "%#x)",
			    i, storage[0], storage[PAGE], storage[2 * PAGE - 1], v);
			before = v;
			continue;
		}
		faults++;
		CHECK(storage[0] == before && storage[PAGE] == before &&
			  storage[2 * PAGE - 1] == before,
		      "iteration %u: a faulting write landed (%#x %#x %#x, not %#x)", i, storage[0],
		      storage[PAGE], storage[2 * PAGE - 1], before);
		SETUP(fsr_device_destroy(mapper.process, device));
		queue = 0;
	}
	atomic_store(&mapper.is_done, true);
	pthread_join(thread, NULL);
	CHECK(mapper.status == FSR_OK, "the mapper: %s", fsr_status_name(mapper.status));
	SETUP(fsr_runtime_run_until_idle(runtime));
	fsr_runtime_set_event_tap(runtime, NULL, NULL);
	pthread_mutex_lock(&seen.lock);
	{
		size_t hw_faults = 0;

		for (size_t i = 0; i < seen.count; i++)
			hw_faults += strcmp(seen.events[i].name, "fencescope_hw:page_fault") == 0;
		CHECK(hw_faults == faults, "%zu page faults for %llu faulted buffers", hw_faults,
		      (unsigned long long) faults);
	}
	pthread_mutex_unlock(&seen.lock);
	SETUP(fsr_process_terminate(mapper.process, false));
	fsr_runtime_destroy(runtime);
	printf("# %llu writes landed whole, %llu faulted and landed nowhere\n",
	       (unsigned long long) landed, (unsigned long long) faults);
	printf("%s 2 - unmaps racing the engine's writes, %u buffers\n",
	       failed_checks > failed_before ? "not ok" : "ok", RACE_ITERATIONS);
}

int
main(void)
{
	printf("1..2\n");
	faults_beside_a_renderer();
	unmaps_racing_writes();
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
