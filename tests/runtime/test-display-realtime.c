/* SPDX-License-Identifier: MIT */
/*
 * Displays and flips in realtime (PRE-13; suite slow, and under ThreadSanitizer by scripts/test):
 * two displays refreshing every 2 ms on their own threads, two processes on two threads
 * presenting frames of 0.2 to 5 ms of rendering (some longer than a frame, so a vsync passes
 * without a flip) on display 0, and a third thread on display 1, while the engine runs and the OS
 * handles the vsync interrupts, and a fourth thread has the OS ask the 3D engine to preempt
 * every half millisecond (PRE-13: the scheduler preempts even while flips are pending). Checked
 * on the event tap: every flip is programmed once and
 * latched once, by one of the first two vsyncs of its display after flip_queued (the OS fires
 * flip_queued before the driver writes the flip register, and a vsync may run in between: it
 * latches nothing), flip_done follows that vsync and carries its count, each display's flips land
 * in present order, vsync counts only grow and average one period of GPU time apart, and the
 * displays' no-tearing watch stays at 0.
 *
 * A plain program speaking TAP rather than a Criterion test: Criterion 2.4's inheritable arena
 * cannot be mapped under ThreadSanitizer.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <fencescope/runtime.h>

#include "fencescope-test.h"
#include "tap.h"

#define PERIOD_NS  UINT64_C(2000000)
#define GPU_HZ     UINT64_C(100000000)
#define FRAMES     40
#define PRESENTERS 3
#define MAX_FLIPS  (PRESENTERS * FRAMES + 1)
#define MAX_VSYNCS 4096
#define SOURCES    2

struct flip_record {
	uint32_t source;
	size_t queued_at; /* tap index of flip_queued, 0: never */
	uint32_t queued_times;
	size_t latched_at; /* tap index of the vsync that latched it */
	uint32_t latched_times;
	uint64_t latched_vsync_count;
	size_t done_at;
	uint32_t done_times;
	uint64_t done_vsync_count;
};

struct run {
	pthread_mutex_t lock;
	size_t events;
	struct flip_record flips[MAX_FLIPS];
	/* per display: its vsyncs in tap order (tap index, count, gpu_ts) */
	size_t vsync_index[SOURCES][MAX_VSYNCS];
	uint64_t vsync_count[SOURCES][MAX_VSYNCS];
	uint64_t vsync_gpu_ts[SOURCES][MAX_VSYNCS];
	size_t vsyncs[SOURCES];
	uint32_t bad_ids;
};

static struct run run;

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	size_t index;

	(void) user_data;
	(void) field_count;
	pthread_mutex_lock(&run.lock);
	index = ++run.events;
	if (strcmp(name, "fencescope_hw:vsync") == 0) {
		uint32_t source = (uint32_t) fields[1];
		size_t n = run.vsyncs[source];

		if (n < MAX_VSYNCS) {
			run.vsync_index[source][n] = index;
			run.vsync_count[source][n] = fields[2];
			run.vsync_gpu_ts[source][n] = fields[4];
			run.vsyncs[source]++;
		}
		if (fields[3] && fields[3] < MAX_FLIPS) {
			run.flips[fields[3]].latched_at = index;
			run.flips[fields[3]].latched_times++;
			run.flips[fields[3]].latched_vsync_count = fields[2];
		} else if (fields[3]) {
			run.bad_ids++;
		}
	} else if (strcmp(name, "fencescope_os:flip_queued") == 0) {
		if (fields[4] < MAX_FLIPS) {
			run.flips[fields[4]].source = (uint32_t) fields[1];
			run.flips[fields[4]].queued_at = index;
			run.flips[fields[4]].queued_times++;
		} else {
			run.bad_ids++;
		}
	} else if (strcmp(name, "fencescope_os:flip_done") == 0) {
		if (fields[2] < MAX_FLIPS) {
			run.flips[fields[2]].done_at = index;
			run.flips[fields[2]].done_times++;
			run.flips[fields[2]].done_vsync_count = fields[3];
		} else {
			run.bad_ids++;
		}
	}
	pthread_mutex_unlock(&run.lock);
}

/* PRE-13: preemption requests on the 3D engine until the presenters are done. */
struct preempter {
	struct fsr_runtime *runtime;
	uint32_t adapter;
	_Atomic int is_done;
	uint32_t requests;
};

static void *
preempt_engine(void *data)
{
	struct preempter *preempter = data;
	struct timespec half_ms = {.tv_nsec = 500000};

	while (!atomic_load(&preempter->is_done)) {
		uint64_t request_id = 0;

		/* Reason PRIORITY (1); none is issued while too many are outstanding. */
		if (fsr_test_preempt_request(preempter->runtime, preempter->adapter, 0, 1,
					     &request_id) == FSR_OK &&
		    request_id)
			preempter->requests++;
		nanosleep(&half_ms, NULL);
	}
	return NULL;
}

struct presenter {
	struct fsr_runtime *runtime;
	uint32_t adapter;
	uint32_t source;
	uint64_t seed;
	uint64_t presented;
	fsr_status status;
};

static void *
present_frames(void *data)
{
	struct presenter *presenter = data;
	struct fsr_process *process = NULL;
	fsr_handle device, context, queue;
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
	uint64_t state = presenter->seed;

	presenter->status = fsr_process_create(presenter->runtime, "presenter", &process);
	if (presenter->status == FSR_OK)
		presenter->status = fsr_device_create(process, presenter->adapter, &device);
	if (presenter->status == FSR_OK)
		presenter->status = fsr_context_create(process, device, 0, &context);
	if (presenter->status == FSR_OK)
		presenter->status = fsr_hwqueue_create_user_mode(process, context, &config, &queue);
	for (int frame = 0; presenter->status == FSR_OK && frame < FRAMES; frame++) {
		struct fsr_cmdbuf *cmdbuf = NULL;
		/* 0.2 to 5 ms of rendering: some frames take longer than a 2 ms frame. */
		uint64_t ticks;

		state = state * 6364136223846793005u + 1442695040888963407u;
		ticks = 20000 + (state >> 33) % 480000;
		presenter->status = fsr_cmdbuf_create(process, queue, &cmdbuf);
		if (presenter->status == FSR_OK)
			presenter->status = fsr_cmdbuf_work(cmdbuf, ticks);
		if (presenter->status == FSR_OK)
			presenter->status = fsr_cmdbuf_submit(cmdbuf, NULL);
		else
			fsr_cmdbuf_destroy(cmdbuf);
		if (presenter->status == FSR_OK)
			presenter->status = fsr_present(process, queue, presenter->source, NULL);
		if (presenter->status == FSR_OK)
			presenter->presented++;
	}
	return NULL;
}

/* The index of the first vsync of `source` after tap index `after` (its rank), or SIZE_MAX. */
static size_t
vsync_rank_after(uint32_t source, size_t after)
{
	for (size_t i = 0; i < run.vsyncs[source]; i++)
		if (run.vsync_index[source][i] > after)
			return i;
	return SIZE_MAX;
}

static void
check_flips(uint64_t flip_count)
{
	uint64_t last_done[SOURCES] = {0};
	size_t last_done_at[SOURCES] = {0};

	CHECK(run.bad_ids == 0, "%u events name an unknown flip", run.bad_ids);
	for (uint64_t id = 1; id <= flip_count; id++) {
		const struct flip_record *flip = &run.flips[id];
		size_t first;

		CHECK(flip->queued_times == 1, "flip %lu programmed %u times", (unsigned long) id,
		      flip->queued_times);
		CHECK(flip->latched_times == 1, "flip %lu latched %u times", (unsigned long) id,
		      flip->latched_times);
		CHECK(flip->done_times == 1, "flip %lu done %u times", (unsigned long) id,
		      flip->done_times);
		if (flip->queued_times != 1 || flip->latched_times != 1 || flip->done_times != 1)
			continue;
		/* PRE-13: latched at the next vsync (the first, or the one racing flip_queued). */
		first = vsync_rank_after(flip->source, flip->queued_at);
		CHECK(first != SIZE_MAX &&
			  (run.vsync_index[flip->source][first] == flip->latched_at ||
			   (first + 1 < run.vsyncs[flip->source] &&
			    run.vsync_index[flip->source][first + 1] == flip->latched_at)),
		      "flip %lu was not latched by one of the first two vsyncs after flip_queued",
		      (unsigned long) id);
		CHECK(flip->latched_at > flip->queued_at,
		      "flip %lu latched before it was programmed", (unsigned long) id);
		CHECK(flip->done_at > flip->latched_at, "flip %lu done before its vsync",
		      (unsigned long) id);
		CHECK(flip->done_vsync_count == flip->latched_vsync_count,
		      "flip %lu: flip_done says vsync %lu, the vsync that latched it %lu",
		      (unsigned long) id, (unsigned long) flip->done_vsync_count,
		      (unsigned long) flip->latched_vsync_count);
		/* One display's flips land in the order they were presented (their ids). */
		CHECK(flip->done_at > last_done_at[flip->source],
		      "flip %lu landed before flip %lu, presented earlier", (unsigned long) id,
		      (unsigned long) last_done[flip->source]);
		last_done[flip->source] = id;
		last_done_at[flip->source] = flip->done_at;
	}
}

static void
check_vsyncs(uint32_t source)
{
	size_t n = run.vsyncs[source];
	uint64_t span_ticks, span_vsyncs, expected = PERIOD_NS * GPU_HZ / 1000000000u;

	CHECK(n > 10, "display %u: only %zu vsyncs", source, n);
	if (n <= 10)
		return;
	for (size_t i = 1; i < n; i++)
		CHECK(run.vsync_count[source][i] > run.vsync_count[source][i - 1],
		      "display %u: vsync count went from %lu to %lu", source,
		      (unsigned long) run.vsync_count[source][i - 1],
		      (unsigned long) run.vsync_count[source][i]);
	/* Each vsync's count is the periods since the display started: the mean gap is one. */
	span_ticks = run.vsync_gpu_ts[source][n - 1] - run.vsync_gpu_ts[source][0];
	span_vsyncs = run.vsync_count[source][n - 1] - run.vsync_count[source][0];
	CHECK(span_ticks / span_vsyncs > expected * 9 / 10 &&
		  span_ticks / span_vsyncs < expected * 11 / 10,
	      "display %u: %lu GPU ticks a vsync, not about %lu", source,
	      (unsigned long) (span_ticks / span_vsyncs), (unsigned long) expected);
}

int
main(void)
{
	struct fsr_runtime_config runtime_config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 1};
	struct fsr_adapter_config adapter_config;
	struct fsr_runtime *runtime = NULL;
	struct presenter presenters[PRESENTERS];
	pthread_t threads[PRESENTERS];
	struct preempter preempter = {0};
	pthread_t preempt_thread;
	uint64_t flips = 0;
	uint32_t adapter;

	printf("1..1\n");
	pthread_mutex_init(&run.lock, NULL);
	fsr_adapter_config_init(&adapter_config);
	adapter_config.display_count = SOURCES;
	adapter_config.vsync_period_ns = PERIOD_NS;
	adapter_config.gpu_ts_frequency_hz = GPU_HZ;
	SETUP(fsr_runtime_create(&runtime_config, &runtime));
	fsr_runtime_set_event_tap(runtime, tap, NULL);
	SETUP(fsr_adapter_create(runtime, &adapter_config, &adapter));
	preempter = (struct preempter){.runtime = runtime, .adapter = adapter};
	if (pthread_create(&preempt_thread, NULL, preempt_engine, &preempter) != 0) {
		printf("Bail out! pthread_create\n");
		return EXIT_FAILURE;
	}
	for (int p = 0; p < PRESENTERS; p++) {
		/* Two on display 0 (flips of two processes interleave), one on display 1. */
		presenters[p] = (struct presenter){.runtime = runtime,
						   .adapter = adapter,
						   .source = p == PRESENTERS - 1 ? 1 : 0,
						   .seed = (uint64_t) p + 1};
		if (pthread_create(&threads[p], NULL, present_frames, &presenters[p]) != 0) {
			printf("Bail out! pthread_create\n");
			return EXIT_FAILURE;
		}
	}
	for (int p = 0; p < PRESENTERS; p++) {
		pthread_join(threads[p], NULL);
		CHECK(presenters[p].status == FSR_OK, "presenter %d: %s", p,
		      fsr_status_name(presenters[p].status));
		flips += presenters[p].presented;
	}
	atomic_store(&preempter.is_done, 1);
	pthread_join(preempt_thread, NULL);
	CHECK(preempter.requests > 10, "only %u preemption requests", preempter.requests);
	SETUP(fsr_runtime_run_until_idle(runtime));
	/* Idle means every flip presented is on screen. */
	pthread_mutex_lock(&run.lock);
	check_flips(flips);
	for (uint32_t s = 0; s < SOURCES; s++)
		check_vsyncs(s);
	pthread_mutex_unlock(&run.lock);
	for (uint32_t s = 0; s < SOURCES; s++) {
		struct fsr_test_display_state state;

		SETUP(fsr_test_display_get_state(runtime, adapter, s, &state));
		CHECK(state.torn_frames == 0, "display %u: %lu torn frames", s,
		      (unsigned long) state.torn_frames);
		CHECK(state.pending_flip_id == 0, "display %u: a flip still pending when idle", s);
	}
	CHECK(flips == PRESENTERS * FRAMES, "%lu flips presented", (unsigned long) flips);
	/* The tap stays: the display and engine threads read it until destroy stops them. */
	fsr_runtime_destroy(runtime);
	printf("%s 1 - pre_13_realtime_flips_land_at_the_next_vsync_in_present_order_untorn "
	       "(%lu flips, %zu and %zu vsyncs, %u preemption requests)\n",
	       failed_checks ? "not ok" : "ok", (unsigned long) flips, run.vsyncs[0], run.vsyncs[1],
	       preempter.requests);
	return failed_checks ? EXIT_FAILURE : EXIT_SUCCESS;
}
