/* SPDX-License-Identifier: MIT */
/*
 * The GPU VA fuzz (MMU-14; docs/runtime.md "Page faults as built"): random packet VAs against
 * random map/unmap orders, checked against a shadow copy of every allocation.
 *
 *   fencescope-va-fuzz [FIRST_SEED [SEEDS [ROUNDS]]]   (defaults 1, 20, 16)
 *
 * Each round, in sim mode (every fourth seed under sim-mode interleaving, its seed the fuzz
 * seed): a fresh process maps ranges of a few allocations (4 KB and 64 KB pages, some read-only)
 * at random pages of a reserved window, records one command buffer that waits on a gate and
 * then makes random reads and writes — inside mappings, across their edges, in the holes, and
 * outside the window —, maps and unmaps more while the buffer waits, opens the gate and runs
 * until idle. The shadow applies the accesses the mappings of that moment allow, in order, up to
 * the first that must fault. Then: every allocation's storage equals its shadow byte for byte
 * (no write landed outside a mapping, a faulting write landed nowhere, every good write landed),
 * the reads read what the shadow says, and exactly one fencescope_hw:page_fault fired for a
 * round that must fault, at the VA and access the shadow names, none otherwise.
 *
 * Prints TAP, one line per seed; exits non-zero if a seed broke a property. The test
 * `runtime-va-fuzz` runs a short smoke; `scripts/fuzz --va` runs fresh seeds for a while.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fencescope/runtime.h>

#include "fencescope-test.h"

#define PAGE         UINT64_C(4096)
#define WINDOW_PAGES 96u                  /* 384 KB: room for a few 64 KB pages too */
#define WINDOW_VA    UINT64_C(0x40000000) /* a fixed window, half the rounds (else picked) */
#define MAX_ALLOCS   3
#define MAX_MAPPINGS 32
#define MAX_ACCESSES 6
#define FUZZ_ENGINE  0

struct alloc {
	fsr_handle handle;
	uint64_t size;
	uint32_t page_size;
	uint8_t *storage;
	uint8_t *shadow;
};

struct mapping {
	uint64_t va;
	uint64_t size;
	uint32_t alloc;
	uint64_t offset;
	bool is_read_only;
};

struct round {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device;
	uint64_t base; /* the reserved window */
	struct alloc allocs[MAX_ALLOCS];
	uint32_t alloc_count;
	struct mapping maps[MAX_MAPPINGS];
	uint32_t map_count;
};

static uint64_t rng_state;

static uint64_t
rnd(uint64_t n)
{
	/* splitmix64: the seed alone decides the run */
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return n ? z % n : z;
}

/* What the tap saw: page faults and the last one's VA and access kind. */
static struct {
	uint64_t faults;
	uint64_t va;
	uint64_t access;
} seen;

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	(void) user_data;
	if (strcmp(name, "fencescope_hw:page_fault") != 0 || field_count < 8)
		return;
	seen.faults++;
	seen.va = fields[4];
	seen.access = fields[7];
}

static int failures;
/* What the fuzz exercised, for the summary: it must not pass by testing nothing. */
static struct {
	uint64_t rounds, faulted, read_only_faults, accesses, bytes_written, bytes_read;
} totals;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		printf("# ");                                                                      \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		failures++;                                                                        \
	} while (0)

/* The mapping that covers `va`, NULL in a hole. */
static const struct mapping *
mapping_at(const struct round *r, uint64_t va)
{
	for (uint32_t i = 0; i < r->map_count; i++)
		if (va >= r->maps[i].va && va - r->maps[i].va < r->maps[i].size)
			return &r->maps[i];
	return NULL;
}

static bool
is_free(const struct round *r, uint64_t va, uint64_t size)
{
	for (uint64_t at = va; at < va + size; at += PAGE)
		if (mapping_at(r, at))
			return false;
	return true;
}

/* A random mapping: a whole-page range of an allocation at a free page of the window. */
static void
map_random(struct round *r)
{
	struct alloc *a;
	struct fsr_va_map_args args = {0};
	uint64_t pages, unit, va = 0, got = 0;
	uint32_t index;
	fsr_status status;

	if (r->map_count == MAX_MAPPINGS || r->alloc_count == 0)
		return;
	index = (uint32_t) rnd(r->alloc_count);
	a = &r->allocs[index];
	/* Half the time in the allocation's own pages (64 KB PTEs when it has them). */
	unit = rnd(2) ? a->page_size : PAGE;
	pages = 1 + rnd(a->size / unit);
	args.allocation = a->handle;
	args.offset_bytes = rnd(a->size / unit - pages + 1) * unit;
	args.size_bytes = pages * unit;
	args.is_read_only = rnd(8) == 0;
	args.va = r->base + rnd(WINDOW_PAGES * PAGE / unit - pages + 1) * unit;
	if (!is_free(r, args.va, args.size_bytes))
		return;
	va = args.va;
	status = fsr_va_map(r->process, r->device, &args, &got);
	if (status != FSR_OK) {
		FAIL("fsr_va_map at %#" PRIx64 " + %#" PRIx64 " refused: %s", va, args.size_bytes,
		     fsr_status_name(status));
		return;
	}
	r->maps[r->map_count++] = (struct mapping){.va = got,
						   .size = args.size_bytes,
						   .alloc = index,
						   .offset = args.offset_bytes,
						   .is_read_only = args.is_read_only};
}

static void
unmap_random(struct round *r)
{
	uint32_t i;

	if (r->map_count == 0)
		return;
	i = (uint32_t) rnd(r->map_count);
	if (fsr_va_unmap(r->process, r->device, r->maps[i].va, r->maps[i].size) != FSR_OK)
		FAIL("fsr_va_unmap at %#" PRIx64 " refused", r->maps[i].va);
	r->maps[i] = r->maps[--r->map_count];
}

static void
random_mapping_ops(struct round *r, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		if (rnd(3) == 0)
			unmap_random(r);
		else
			map_random(r);
	}
}

struct access {
	enum fsr_gpu_access kind;
	uint64_t va;
	uint64_t bytes;
	uint8_t value;
};

/* A VA near the window: inside it mostly, across its edges and outside it sometimes. */
static uint64_t
random_va(const struct round *r)
{
	uint64_t span = (WINDOW_PAGES + 8) * PAGE;

	return r->base - 4 * PAGE + rnd(span);
}

/*
 * The shadow's run of the accesses, as the engine must make them with the mappings of now:
 * in order, each translated page by page (4 KB) first; the first that does not translate
 * faults at its first byte on the failing page and ends the buffer. Returns whether one
 * faults; *sum: what the reads before it read.
 */
static bool
shadow_run(struct round *r, const struct access *accesses, uint32_t count, uint64_t *fault_va,
	   enum fsr_gpu_access *fault_kind, uint64_t *sum)
{
	*sum = 0;
	for (uint32_t i = 0; i < count; i++) {
		const struct access *x = &accesses[i];
		uint64_t end = x->va + x->bytes;

		for (uint64_t at = x->va; at < end; at = (at & ~(PAGE - 1)) + PAGE) {
			const struct mapping *m = mapping_at(r, at);

			if (!m || (m->is_read_only && x->kind == FSR_GPU_WRITE)) {
				*fault_va = at;
				*fault_kind = x->kind;
				totals.read_only_faults += m != NULL;
				return true;
			}
		}
		for (uint64_t at = x->va; at < end; at++) {
			const struct mapping *m = mapping_at(r, at);
			uint8_t *byte = &r->allocs[m->alloc].shadow[m->offset + (at - m->va)];

			if (x->kind == FSR_GPU_WRITE)
				*byte = x->value;
			else
				*sum += *byte;
		}
		totals.accesses++;
		if (x->kind == FSR_GPU_WRITE)
			totals.bytes_written += x->bytes;
		else
			totals.bytes_read += x->bytes;
	}
	return false;
}

static void
check(bool ok, uint64_t seed, uint32_t round, const char *what)
{
	if (!ok)
		FAIL("seed %" PRIu64 " round %u: %s", seed, round, what);
}

static void
run_round(struct fsr_runtime *runtime, uint32_t adapter, uint64_t seed, uint32_t index)
{
	struct round r = {.runtime = runtime};
	struct access accesses[MAX_ACCESSES];
	uint32_t access_count = 1 + (uint32_t) rnd(MAX_ACCESSES);
	enum fsr_submission_mode mode = rnd(2) ? FSR_SUBMIT_USER_MODE : FSR_SUBMIT_KERNEL_MODE;
	struct fsr_hwqueue_config config = {.mode = mode};
	fsr_handle context, queue, gate, gate_global;
	struct fsr_cmdbuf *cmdbuf;
	uint64_t faults_before = seen.faults, sum_before = 0, sum_after = 0, expected_sum = 0;
	uint64_t fault_va = 0, progress = 0;
	enum fsr_gpu_access fault_kind = FSR_GPU_READ;
	bool is_fault;
	char name[32];

	snprintf(name, sizeof(name), "fuzz-%" PRIu64 "-%u", seed, index);
	if (fsr_process_create(runtime, name, &r.process) != FSR_OK ||
	    fsr_device_create(r.process, adapter, &r.device) != FSR_OK ||
	    fsr_context_create(r.process, r.device, FUZZ_ENGINE, &context) != FSR_OK ||
	    fsr_va_reserve(r.process, r.device, WINDOW_PAGES * PAGE, 0, 0, rnd(2) ? WINDOW_VA : 0,
			   &r.base) != FSR_OK) {
		FAIL("seed %" PRIu64 " round %u: setup refused", seed, index);
		return;
	}
	if (mode == FSR_SUBMIT_USER_MODE)
		(void) fsr_hwqueue_create_user_mode(r.process, context, &config, &queue);
	else
		(void) fsr_hwqueue_create(r.process, context, &config, &queue);
	(void) fsr_fence_create(r.process, r.device, 0, 0, &gate, &gate_global);
	r.alloc_count = 1 + (uint32_t) rnd(MAX_ALLOCS);
	for (uint32_t i = 0; i < r.alloc_count; i++) {
		struct alloc *a = &r.allocs[i];
		bool is_large = rnd(3) == 0;
		struct fsr_allocation_config ac = {
		    .page_size_bytes = is_large ? FSR_GPU_LARGE_PAGE_BYTES : FSR_GPU_PAGE_BYTES,
		    .segment = is_large || rnd(2) ? FSR_SEGMENT_LOCAL : FSR_SEGMENT_SYSTEM,
		};

		a->page_size = ac.page_size_bytes;
		ac.size_bytes = (1 + rnd(is_large ? 2 : 8)) * a->page_size;
		if (fsr_allocation_create_with_config(r.process, r.device, &ac, &a->handle) !=
			FSR_OK ||
		    fsr_test_allocation_storage(r.process, a->handle, &a->storage, &a->size) !=
			FSR_OK) {
			FAIL("seed %" PRIu64 " round %u: allocation refused", seed, index);
			return;
		}
		a->shadow = malloc(a->size);
		if (!a->shadow)
			abort();
		memcpy(a->shadow, a->storage,
		       a->size); /* zero-filled, as the memory manager says */
	}
	random_mapping_ops(&r, 2 + (uint32_t) rnd(5));

	/* One buffer: the gate, then the accesses, recorded now, run after more map/unmaps. */
	if (fsr_cmdbuf_create(r.process, queue, &cmdbuf) != FSR_OK) {
		FAIL("seed %" PRIu64 " round %u: cmdbuf refused", seed, index);
		return;
	}
	(void) fsr_cmdbuf_wait(cmdbuf, gate, 1);
	for (uint32_t i = 0; i < access_count; i++) {
		struct access *x = &accesses[i];

		x->kind = rnd(2) ? FSR_GPU_WRITE : FSR_GPU_READ;
		x->bytes = 1 + rnd(rnd(4) == 0 ? 3 * PAGE : 256);
		if (r.map_count && rnd(16) != 0) {
			/* Mostly inside a mapping of now (which may be gone when the GPU runs it).
			 */
			const struct mapping *m = &r.maps[rnd(r.map_count)];

			x->va = m->va + rnd(m->size);
			if (x->va + x->bytes > m->va + m->size && rnd(8) != 0)
				x->bytes = m->va + m->size - x->va; /* up to its edge, mostly */
		} else {
			x->va = random_va(&r);
		}
		x->value = (uint8_t) (1 + rnd(255));
		if (fsr_cmdbuf_access(cmdbuf, x->kind, x->va, x->bytes, x->value) != FSR_OK)
			FAIL("seed %" PRIu64 " round %u: access refused", seed, index);
	}
	if (fsr_cmdbuf_submit(cmdbuf, &progress) != FSR_OK)
		FAIL("seed %" PRIu64 " round %u: submit refused", seed, index);
	(void) fsr_runtime_run_until_idle(runtime);
	check(seen.faults == faults_before, seed, index, "a fault before the gate opened");
	/* The mappings change while the work waits: it must see them as they are when it runs. */
	random_mapping_ops(&r, (uint32_t) rnd(3));
	is_fault = shadow_run(&r, accesses, access_count, &fault_va, &fault_kind, &expected_sum);
	totals.rounds++;
	totals.faulted += is_fault;
	(void) fsr_test_engine_read_sum(runtime, adapter, FUZZ_ENGINE, &sum_before);
	(void) fsr_fence_signal_cpu(r.process, gate, 1);
	(void) fsr_runtime_run_until_idle(runtime);
	(void) fsr_test_engine_read_sum(runtime, adapter, FUZZ_ENGINE, &sum_after);

	check(seen.faults - faults_before == (is_fault ? 1u : 0u), seed, index,
	      is_fault ? "a bad access did not fault exactly once" : "a good access faulted");
	if (is_fault && seen.faults - faults_before == 1) {
		check(seen.va == fault_va, seed, index, "the fault names another VA");
		check(seen.access == (uint64_t) fault_kind, seed, index,
		      "the fault names another access kind");
	}
	check(sum_after - sum_before == expected_sum, seed, index,
	      "the reads did not read what the mappings map");
	for (uint32_t i = 0; i < r.alloc_count; i++) {
		struct alloc *a = &r.allocs[i];

		for (uint64_t b = 0; b < a->size; b++) {
			if (a->storage[b] == a->shadow[b])
				continue;
			FAIL("seed %" PRIu64 " round %u: allocation %u byte %#" PRIx64
			     " is %#x, the shadow says %#x",
			     seed, index, i, b, a->storage[b], a->shadow[b]);
			break;
		}
		free(a->shadow);
	}
	if (!is_fault) {
		uint64_t last = 0, done = 0;

		(void) fsr_hwqueue_get_progress(r.process, queue, &last, &done);
		check(done == progress, seed, index, "a buffer without a fault did not complete");
	}
	(void) fsr_process_terminate(r.process, false);
}

static bool
run_seed(uint64_t seed, uint32_t rounds)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_SIM, .seed = seed};
	struct fsr_adapter_config adapter_config;
	struct fsr_runtime *runtime;
	uint32_t adapter;
	int before = failures;

	rng_state = seed;
	if (seed % 4 == 0)
		config.interleave_seed = seed;
	fsr_adapter_config_init(&adapter_config);
	adapter_config.keep_log_size_when_tracing = true;
	if (fsr_runtime_create(&config, &runtime) != FSR_OK ||
	    fsr_adapter_create(runtime, &adapter_config, &adapter) != FSR_OK) {
		FAIL("seed %" PRIu64 ": runtime refused", seed);
		return false;
	}
	fsr_runtime_set_event_tap(runtime, tap, NULL);
	seen.faults = 0;
	for (uint32_t i = 0; i < rounds; i++)
		run_round(runtime, adapter, seed, i);
	fsr_runtime_set_event_tap(runtime, NULL, NULL);
	fsr_runtime_destroy(runtime);
	return failures == before;
}

int
main(int argc, char **argv)
{
	uint64_t first = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	uint64_t count = argc > 2 ? strtoull(argv[2], NULL, 0) : 20;
	uint32_t rounds = argc > 3 ? (uint32_t) strtoul(argv[3], NULL, 0) : 16;

	printf("1..%" PRIu64 "\n", count);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t seed = first + i;
		bool ok = run_seed(seed, rounds);

		printf("%s %" PRIu64 " - seed %" PRIu64 " (%u rounds)\n", ok ? "ok" : "not ok",
		       i + 1, seed, rounds);
		fflush(stdout);
	}
	printf("# %" PRIu64 " rounds, %" PRIu64 " faulted (%" PRIu64 " through a read-only "
	       "mapping); %" PRIu64 " accesses translated, %" PRIu64 " bytes written, %" PRIu64
	       " read\n",
	       totals.rounds, totals.faulted, totals.read_only_faults, totals.accesses,
	       totals.bytes_written, totals.bytes_read);
	return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
