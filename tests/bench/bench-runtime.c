/* SPDX-License-Identifier: MIT */
/*
 * The runtime's benchmark program; scripts/bench runs it untraced and inside an LTTng session
 * and prints the comparison. Each mode writes "key value" lines to the file given with -o:
 *   sim N       a sim-mode producer/consumer workload until N events were fired:
 *               events, seconds (events per second = events / seconds), cpu_seconds
 *   realtime N  on the realtime clock, one queue on the 3D engine, three ways in one run:
 *               kernel-mode submission (realtime_*), user-mode submission by doorbell with
 *               the engine sleeping until a ring wakes it (doorbell_*) and with the engine
 *               polling its doorbells (doorbell_polling_*; fsr_adapter_config.doorbell_polling).
 *               Each: N submissions of tiny work, 32 in flight (_submissions, _seconds), then
 *               N/10 more one at a time, each waited for (submit-to-start _p50_ns and _p99_ns:
 *               the path's own latency, no queueing; fsr_runtime_stats.submit_to_start and
 *               user_mode_submit_to_start)
 *   cost N      what an event costs the runtime (sim chunks) and what it costs a bare
 *               LTTng-UST tracepoint with the sim workload's own payloads (bare chunks), in
 *               alternating chunks on this one thread until the sim chunks fired N events
 *               (run_cost): medians over the chunks of ns per event, wall and thread CPU.
 *               The bare events are one batch of the sim workload (caught with the test
 *               API's event tap, untimed), fired again and again in their order by
 *               lttng_ust_tracepoint on the runtime's own tracepoints (the same providers,
 *               fields and sizes), with nothing of FSR_TRACE around them.
 *   preempt N   realtime preemption (spec 002): N samples of the request -> complete latency at
 *               each granularity of the 3D engine (preempt_<granularity>_p50_ns, _p99_ns,
 *               _max_ns: a 2 ms kernel-mode packet, a request 0.3 to 1.5 ms into it, until the
 *               OS has handled the completion), and N samples of how long a tiny high-priority
 *               submission waits behind such a packet of a low-priority context, with
 *               preemption (priorities 28 and 4: priority_wait_preempting_*) and without (both
 *               16: priority_wait_no_preemption_*), from its submit to its progress.
 *   mmu N       GpuMmu in sim mode (spec 004): the GPU MMU's walk per emulated access
 *               (mmu_translate_4k_ns, mmu_translate_64k_ns: N walks each at random VAs of a
 *               64 MB mapping of 4 KB pages, of 64 KB pages; fsr_test_gpu_translate_many, one
 *               lock for the batch) and the memory manager's map/unmap throughput
 *               (mmu_map_unmap_4k_per_s: a one-page mapping at a picked VA and its unmap,
 *               mmu_map_unmap_64k_per_s: 64 KB, mmu_map_unmap_1m_per_s: a 1 MB mapping of 4 KB
 *               pages, 256 entries; N/10 pairs each, page tables already made)
 *   xad N       realtime cross-adapter propagation (spec 001, XAD-07): N samples of a dGPU ring's
 *               signal of a cross-adapter fence -> an iGPU ring's GPU wait on it released
 *               (xad_cross_*: through the interrupt, the OS's fence_propagate and the iGPU
 *               driver's NotificationOnly rescan), and, alternating with them in the same run,
 *               N samples of the same on one adapter, a dGPU 3D ring's wait released by its
 *               compute ring's signal (xad_same_*: the GPU sees its own write). Each from the
 *               signal's gpu_ts (fence_value_write) to the wait's (gpu_wait_end), both adapters
 *               on the same GPU clock, read through the test API's event tap.
 * sim, cost and mmu run on the calling thread alone; CPU time is that thread's, which time other
 * processes take on a loaded machine does not inflate as it does wall time.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Call sites of the runtime's tracepoints in this program; the probes are the runtime's. */
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "fencescope-hw.h"
#include "fencescope-kmd.h"
#include "fencescope-os.h"
#include "fencescope-umd.h"

#include <fencescope/runtime.h>
#include "fencescope-test.h"

#define TRY(call)                                                                                  \
	do {                                                                                       \
		fsr_status status_ = (call);                                                       \
		if (status_ != FSR_OK) {                                                           \
			fprintf(stderr, "bench-runtime: %s: %s\n", #call,                          \
				fsr_status_name(status_));                                         \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static double
seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static double
thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

struct setup {
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	fsr_handle device;
	fsr_handle queues[2];
	fsr_handle fence;
};

/* Queues on the 3D engine and, with `queues` 2, the compute engine. */
static void
setup_with(struct setup *s, enum fsr_clock_mode mode, enum fsr_submission_mode submission,
	   uint32_t queues, bool is_polling)
{
	struct fsr_runtime_config config = {.clock_mode = mode, .seed = 1};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config queue_config = {.mode = submission, .ring_size_bytes = 1 << 20};
	uint32_t adapter;

	fsr_adapter_config_init(&adapter_config);
	adapter_config.doorbell_polling = is_polling;
	TRY(fsr_runtime_create(&config, &s->runtime));
	TRY(fsr_adapter_create(s->runtime, &adapter_config, &adapter));
	TRY(fsr_process_create(s->runtime, "bench", &s->process));
	TRY(fsr_device_create(s->process, adapter, &s->device));
	for (uint32_t e = 0; e < queues; e++) {
		fsr_handle context;

		TRY(fsr_context_create(s->process, s->device, e, &context));
		if (submission == FSR_SUBMIT_USER_MODE)
			TRY(fsr_hwqueue_create_user_mode(s->process, context, &queue_config,
							 &s->queues[e]));
		else
			TRY(fsr_hwqueue_create(s->process, context, &queue_config, &s->queues[e]));
	}
	TRY(fsr_fence_create(s->process, s->device, 0, 0, &s->fence, NULL));
}

static void
setup(struct setup *s, enum fsr_clock_mode mode, enum fsr_submission_mode submission)
{
	setup_with(s, mode, submission, 2, false);
}

/* One batch of the sim workload: the 3D queue signals, the compute queue waits for each value. */
static void
sim_batch(struct setup *s, uint64_t *value)
{
	for (int i = 0; i < 64; i++) {
		struct fsr_cmdbuf *cmdbuf;

		++*value;
		TRY(fsr_cmdbuf_create(s->process, s->queues[0], &cmdbuf));
		TRY(fsr_cmdbuf_work(cmdbuf, 100));
		TRY(fsr_cmdbuf_signal(cmdbuf, s->fence, *value));
		TRY(fsr_cmdbuf_submit(cmdbuf, NULL));
		TRY(fsr_cmdbuf_create(s->process, s->queues[1], &cmdbuf));
		TRY(fsr_cmdbuf_wait(cmdbuf, s->fence, *value));
		TRY(fsr_cmdbuf_work(cmdbuf, 50));
		TRY(fsr_cmdbuf_submit(cmdbuf, NULL));
	}
	TRY(fsr_fence_wait_cpu(s->process, s->fence, *value, FSR_INFINITE, FSR_WAIT_BLOCKING));
	TRY(fsr_runtime_run_until_idle(s->runtime));
}

static void
run_sim(FILE *out, uint64_t target_events)
{
	struct setup s;
	struct fsr_runtime_stats stats = {0};
	uint64_t value = 0;
	double start;
	double cpu_start;

	setup(&s, FSR_CLOCK_SIM, FSR_SUBMIT_USER_MODE);
	start = seconds_now();
	cpu_start = thread_cpu_seconds();
	while (stats.events < target_events) {
		sim_batch(&s, &value);
		fsr_runtime_get_stats(s.runtime, &stats);
	}
	fprintf(out, "sim_events %llu\nsim_seconds %.6f\nsim_cpu_seconds %.6f\n",
		(unsigned long long) stats.events, seconds_now() - start,
		thread_cpu_seconds() - cpu_start);
	fsr_runtime_destroy(s.runtime);
}

/*
 * One way of submitting on the realtime clock (`prefix` names its keys): N submissions, 32 in
 * flight, then N/10 one at a time for the latency. A polling engine has only the 3D queue on
 * its run list, so one engine spins.
 */
static void
run_realtime_one(FILE *out, const char *prefix, enum fsr_submission_mode submission,
		 bool is_polling, uint64_t submissions)
{
	struct setup s;
	struct fsr_runtime_stats before;
	struct fsr_runtime_stats stats;
	uint64_t *histogram;
	uint64_t progress = 0;
	double start;

	setup_with(&s, FSR_CLOCK_REALTIME, submission, 1, is_polling);
	start = seconds_now();
	for (uint64_t i = 0; i < submissions; i++) {
		struct fsr_cmdbuf *cmdbuf;

		TRY(fsr_cmdbuf_create(s.process, s.queues[0], &cmdbuf));
		TRY(fsr_cmdbuf_work(cmdbuf, 10));
		TRY(fsr_cmdbuf_submit(cmdbuf, &progress));
		/* Keep 32 in flight: a submitter that waits now and then, like a real one. */
		if (progress > 32)
			TRY(fsr_hwqueue_wait_progress(s.process, s.queues[0], progress - 32,
						      FSR_INFINITE));
	}
	TRY(fsr_hwqueue_wait_progress(s.process, s.queues[0], progress, FSR_INFINITE));
	fprintf(out, "%s_submissions %llu\n%s_seconds %.6f\n", prefix,
		(unsigned long long) submissions, prefix, seconds_now() - start);

	fsr_runtime_get_stats(s.runtime, &before);
	for (uint64_t i = 0; i < submissions / 10; i++) {
		struct fsr_cmdbuf *cmdbuf;

		TRY(fsr_cmdbuf_create(s.process, s.queues[0], &cmdbuf));
		TRY(fsr_cmdbuf_work(cmdbuf, 10));
		TRY(fsr_cmdbuf_submit(cmdbuf, &progress));
		TRY(fsr_hwqueue_wait_progress(s.process, s.queues[0], progress, FSR_INFINITE));
	}
	fsr_runtime_get_stats(s.runtime, &stats);
	histogram = submission == FSR_SUBMIT_USER_MODE ? stats.user_mode_submit_to_start
						       : stats.submit_to_start;
	for (int b = 0; b < FSR_LATENCY_BUCKETS; b++)
		histogram[b] -= submission == FSR_SUBMIT_USER_MODE
				    ? before.user_mode_submit_to_start[b]
				    : before.submit_to_start[b];
	fprintf(out, "%s_p50_ns %llu\n%s_p99_ns %llu\n", prefix,
		(unsigned long long) fsr_latency_percentile(histogram, 0.50), prefix,
		(unsigned long long) fsr_latency_percentile(histogram, 0.99));
	fsr_runtime_destroy(s.runtime);
}

/* Kernel mode, then by doorbell with the engine sleeping, then with it polling. */
static void
run_realtime(FILE *out, uint64_t submissions)
{
	run_realtime_one(out, "realtime", FSR_SUBMIT_KERNEL_MODE, false, submissions);
	run_realtime_one(out, "doorbell", FSR_SUBMIT_USER_MODE, false, submissions);
	run_realtime_one(out, "doorbell_polling", FSR_SUBMIT_USER_MODE, true, submissions);
}

/*
 * The events the sim workload fires, each with its field count (the tap's, which is the
 * tracepoint's argument count). A sequence's elements are not in the tap's fields, only its
 * count: bare_fire passes that many zeros, the same payload size.
 */
#define BARE_EVENTS(X)                                                                             \
	X(fencescope_umd, fence_signal_queued, 5)                                                  \
	X(fencescope_umd, fence_wait_queued, 5)                                                    \
	X(fencescope_umd, ring_write, 5)                                                           \
	X(fencescope_umd, doorbell_ring, 5)                                                        \
	X(fencescope_os, cpu_wait_begin, 6)                                                        \
	X(fencescope_os, cpu_wait_end, 6)                                                          \
	X(fencescope_os, fence_log_entry, 9)                                                       \
	X(fencescope_os, fence_log_read, 6)                                                        \
	X(fencescope_os, interrupt_handled, 7)                                                     \
	X(fencescope_kmd, update_monitored_value, 5)                                               \
	X(fencescope_kmd, update_native_fence_logs, 3)                                             \
	X(fencescope_hw, packet_start, 6)                                                          \
	X(fencescope_hw, ring_fetch, 6)                                                            \
	X(fencescope_hw, packet_end, 7)                                                            \
	X(fencescope_hw, gpu_wait_begin, 6)                                                        \
	X(fencescope_hw, gpu_wait_end, 6)                                                          \
	X(fencescope_hw, fence_value_write, 8)                                                     \
	X(fencescope_hw, interrupt_raise, 7)

#define BARE_KIND(provider, event, n) BARE_##provider##_##event,
enum bare_kind { BARE_EVENTS(BARE_KIND) BARE_KIND_COUNT };
#define BARE_NAME(provider, event, n) {#provider ":" #event, n},
static const struct {
	const char *name;
	uint32_t field_count;
} bare_events[] = {BARE_EVENTS(BARE_NAME)};

#define BARE_MAX_SEQUENCE 256

struct bare_event {
	enum bare_kind kind;
	uint64_t fields[FSR_EVENT_TAP_MAX_FIELDS];
};

struct bare_capture {
	struct bare_event *events;
	size_t count;
	size_t capacity;
	const char *unknown; /* an event the table above does not have */
};

static void
bare_capture_tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct bare_capture *capture = user_data;
	struct bare_event *event;
	int kind = 0;

	while (kind < BARE_KIND_COUNT && (strcmp(bare_events[kind].name, name) != 0 ||
					  bare_events[kind].field_count != field_count))
		kind++;
	if (kind == BARE_KIND_COUNT) {
		capture->unknown = name;
		return;
	}
	if (capture->count == capture->capacity) {
		capture->capacity = capture->capacity ? 2 * capture->capacity : 1024;
		capture->events =
		    realloc(capture->events, capture->capacity * sizeof(*capture->events));
		if (!capture->events) {
			perror("bench-runtime");
			exit(1);
		}
	}
	event = &capture->events[capture->count++];
	event->kind = (enum bare_kind) kind;
	memcpy(event->fields, fields, field_count * sizeof(*fields));
}

/* One batch of the sim workload in its steady state (after two to warm up), as events. */
static void
bare_capture(struct bare_capture *capture)
{
	struct setup s;
	uint64_t value = 0;

	setup(&s, FSR_CLOCK_SIM, FSR_SUBMIT_USER_MODE);
	sim_batch(&s, &value);
	sim_batch(&s, &value);
	fsr_runtime_set_event_tap(s.runtime, bare_capture_tap, capture);
	sim_batch(&s, &value);
	fsr_runtime_set_event_tap(s.runtime, NULL, NULL);
	fsr_runtime_destroy(s.runtime);
	if (capture->unknown) {
		fprintf(stderr,
			"bench-runtime: the sim workload fires %s, which bare mode does not know "
			"(add it to BARE_EVENTS)\n",
			capture->unknown);
		exit(1);
	}
	for (size_t i = 0; i < capture->count; i++) {
		const struct bare_event *event = &capture->events[i];

		if ((event->kind == BARE_fencescope_hw_interrupt_raise &&
		     event->fields[5] > BARE_MAX_SEQUENCE) ||
		    (event->kind == BARE_fencescope_kmd_update_native_fence_logs &&
		     event->fields[1] > BARE_MAX_SEQUENCE)) {
			fprintf(stderr, "bench-runtime: a sequence longer than %d\n",
				BARE_MAX_SEQUENCE);
			exit(1);
		}
	}
}

#define F3(f) f[0], f[1], f[2]
#define F5(f) F3(f), f[3], f[4]
#define F6(f) F5(f), f[5]
#define F7(f) F6(f), f[6]
#define F8(f) F7(f), f[7]
#define F9(f) F8(f), f[8]

/* The tracepoint call, as the runtime's FSR_TRACE makes it, and nothing else. */
static inline void
bare_fire(const struct bare_event *event)
{
	static const uint64_t zeros[BARE_MAX_SEQUENCE];
	const uint64_t *f = event->fields;

	switch (event->kind) {
	case BARE_fencescope_umd_fence_signal_queued:
		lttng_ust_tracepoint(fencescope_umd, fence_signal_queued, F5(f));
		break;
	case BARE_fencescope_umd_fence_wait_queued:
		lttng_ust_tracepoint(fencescope_umd, fence_wait_queued, F5(f));
		break;
	case BARE_fencescope_umd_ring_write:
		lttng_ust_tracepoint(fencescope_umd, ring_write, F5(f));
		break;
	case BARE_fencescope_umd_doorbell_ring:
		lttng_ust_tracepoint(fencescope_umd, doorbell_ring, F5(f));
		break;
	case BARE_fencescope_os_cpu_wait_begin:
		lttng_ust_tracepoint(fencescope_os, cpu_wait_begin, F6(f));
		break;
	case BARE_fencescope_os_cpu_wait_end:
		lttng_ust_tracepoint(fencescope_os, cpu_wait_end, F6(f));
		break;
	case BARE_fencescope_os_fence_log_entry:
		lttng_ust_tracepoint(fencescope_os, fence_log_entry, F9(f));
		break;
	case BARE_fencescope_os_fence_log_read:
		lttng_ust_tracepoint(fencescope_os, fence_log_read, F6(f));
		break;
	case BARE_fencescope_os_interrupt_handled:
		lttng_ust_tracepoint(fencescope_os, interrupt_handled, F7(f));
		break;
	case BARE_fencescope_kmd_update_monitored_value:
		lttng_ust_tracepoint(fencescope_kmd, update_monitored_value, F5(f));
		break;
	case BARE_fencescope_kmd_update_native_fence_logs:
		lttng_ust_tracepoint(fencescope_kmd, update_native_fence_logs, f[0], f[1], zeros);
		break;
	case BARE_fencescope_hw_packet_start:
		lttng_ust_tracepoint(fencescope_hw, packet_start, F6(f));
		break;
	case BARE_fencescope_hw_ring_fetch:
		lttng_ust_tracepoint(fencescope_hw, ring_fetch, F6(f));
		break;
	case BARE_fencescope_hw_packet_end:
		lttng_ust_tracepoint(fencescope_hw, packet_end, F7(f));
		break;
	case BARE_fencescope_hw_gpu_wait_begin:
		lttng_ust_tracepoint(fencescope_hw, gpu_wait_begin, F6(f));
		break;
	case BARE_fencescope_hw_gpu_wait_end:
		lttng_ust_tracepoint(fencescope_hw, gpu_wait_end, F6(f));
		break;
	case BARE_fencescope_hw_fence_value_write:
		lttng_ust_tracepoint(fencescope_hw, fence_value_write, F8(f));
		break;
	case BARE_fencescope_hw_interrupt_raise:
		lttng_ust_tracepoint(fencescope_hw, interrupt_raise, F6(f), zeros);
		break;
	case BARE_KIND_COUNT:
		break;
	}
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *) a;
	double y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *values, size_t count)
{
	qsort(values, count, sizeof(*values), compare_double);
	return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/*
 * Chunks of the sim workload (COST_CHUNK_BATCHES batches, some 3900 events) and of bare
 * tracepoints (as many events), one after the other, until the sim chunks fired N events;
 * each chunk's nanoseconds per event in wall and in thread CPU time, and their medians. A
 * chunk lasts a millisecond or two: the median one is one that no other process interrupted,
 * so neither side pays for the other's bad luck on a loaded machine.
 */
#define COST_CHUNK_BATCHES 4

static void
run_cost(FILE *out, uint64_t target_events)
{
	struct bare_capture capture = {0};
	struct setup s;
	struct fsr_runtime_stats stats = {0};
	uint64_t value = 0;
	size_t next = 0;
	size_t chunks = 0;
	size_t capacity = 0;
	double *ns[4] = {NULL}; /* sim wall, sim cpu, bare wall, bare cpu */
	double sim_seconds = 0;

	bare_capture(&capture);
	setup(&s, FSR_CLOCK_SIM, FSR_SUBMIT_USER_MODE);
	while (stats.events < target_events) {
		uint64_t before = stats.events;
		uint64_t events;
		double start = seconds_now();
		double cpu_start = thread_cpu_seconds();
		double wall;

		for (int b = 0; b < COST_CHUNK_BATCHES; b++)
			sim_batch(&s, &value);
		fsr_runtime_get_stats(s.runtime, &stats);
		events = stats.events - before;
		if (chunks == capacity) {
			capacity = capacity ? 2 * capacity : 1024;
			for (int k = 0; k < 4; k++) {
				ns[k] = realloc(ns[k], capacity * sizeof(*ns[k]));
				if (!ns[k]) {
					perror("bench-runtime");
					exit(1);
				}
			}
		}
		wall = seconds_now() - start;
		sim_seconds += wall;
		ns[0][chunks] = wall * 1e9 / (double) events;
		ns[1][chunks] = (thread_cpu_seconds() - cpu_start) * 1e9 / (double) events;

		start = seconds_now();
		cpu_start = thread_cpu_seconds();
		for (uint64_t i = 0; i < events; i++) {
			bare_fire(&capture.events[next]);
			if (++next == capture.count)
				next = 0;
		}
		ns[2][chunks] = (seconds_now() - start) * 1e9 / (double) events;
		ns[3][chunks] = (thread_cpu_seconds() - cpu_start) * 1e9 / (double) events;
		chunks++;
	}
	fprintf(
	    out,
	    "cost_events %llu\ncost_chunks %zu\ncost_sim_seconds %.6f\n"
	    "cost_sim_ns %.3f\ncost_sim_cpu_ns %.3f\ncost_bare_ns %.3f\ncost_bare_cpu_ns %.3f\n",
	    (unsigned long long) stats.events, chunks, sim_seconds, median(ns[0], chunks),
	    median(ns[1], chunks), median(ns[2], chunks), median(ns[3], chunks));
	for (int k = 0; k < 4; k++)
		free(ns[k]);
	fsr_runtime_destroy(s.runtime);
	free(capture.events);
}

/* ---- preemption (spec 002; docs/runtime.md "Scheduling and preemption as built") ---------- */

#define PREEMPT_PACKET_TICKS 200000u /* 2 ms at 100 MHz */

static void
sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t) (ns / 1000000000u),
			      .tv_nsec = (long) (ns % 1000000000u)};

	nanosleep(&ts, NULL);
}

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a;
	uint64_t y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

static void
print_percentiles(FILE *out, const char *prefix, uint64_t *samples, uint64_t count)
{
	qsort(samples, count, sizeof(*samples), compare_u64);
	fprintf(out, "%s_samples %llu\n%s_p50_ns %llu\n%s_p99_ns %llu\n%s_max_ns %llu\n", prefix,
		(unsigned long long) count, prefix, (unsigned long long) samples[count / 2], prefix,
		(unsigned long long) samples[count * 99 / 100], prefix,
		(unsigned long long) samples[count - 1]);
}

/* A realtime runtime whose 3D engine declares `granularity`, with one process and device. */
static void
preempt_setup(struct setup *s, enum fsr_preempt_granularity granularity)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 7};
	struct fsr_adapter_config adapter_config;
	uint32_t adapter;

	memset(s, 0, sizeof(*s));
	fsr_adapter_config_init(&adapter_config);
	adapter_config.graphics_preempt_granularity[0] = granularity;
	TRY(fsr_runtime_create(&config, &s->runtime));
	TRY(fsr_adapter_create(s->runtime, &adapter_config, &adapter));
	TRY(fsr_process_create(s->runtime, "bench", &s->process));
	TRY(fsr_device_create(s->process, adapter, &s->device));
}

static fsr_handle
preempt_queue(struct setup *s, uint32_t priority)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_KERNEL_MODE};
	fsr_handle context;
	fsr_handle queue;

	TRY(fsr_context_create(s->process, s->device, 0, &context));
	TRY(fsr_context_set_scheduling(s->process, context, priority, 0));
	TRY(fsr_hwqueue_create(s->process, context, &config, &queue));
	return queue;
}

static uint64_t
preempt_submit(struct setup *s, fsr_handle queue, uint64_t ticks)
{
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress;

	TRY(fsr_cmdbuf_create(s->process, queue, &cmdbuf));
	TRY(fsr_cmdbuf_work(cmdbuf, ticks));
	TRY(fsr_cmdbuf_submit(cmdbuf, &progress));
	return progress;
}

/*
 * Request -> complete latency at one granularity: a 2 ms packet on the 3D engine, a request
 * 0.3 to 1.5 ms into it, timed from the request call until the OS has handled the completion
 * (os_preempt_completed), polled; the remainder then runs to the end before the next sample.
 */
static void
run_preempt_latency(FILE *out, const char *prefix, enum fsr_preempt_granularity granularity,
		    uint64_t samples)
{
	uint64_t *latencies = calloc(samples, sizeof(*latencies));
	struct setup s;
	fsr_handle queue;

	if (!latencies)
		exit(1);
	preempt_setup(&s, granularity);
	queue = preempt_queue(&s, FSR_DEFAULT_CONTEXT_PRIORITY);
	for (uint64_t i = 0; i < samples; i++) {
		uint64_t progress = preempt_submit(&s, queue, PREEMPT_PACKET_TICKS);
		uint64_t request = 0;
		double start;

		sleep_ns(300000 + (i * 7919 % 1200) * 1000);
		start = seconds_now();
		TRY(fsr_test_preempt_request(s.runtime, 0, 0, 1 /* PRIORITY */, &request));
		/* Polled with a yield between looks: a tight loop on the runtime's lock would
		 * keep the engine's and the OS's threads from it. */
		while (!fsr_test_preempt_completed(s.runtime, 0, 0, request))
			sched_yield();
		latencies[i] = (uint64_t) ((seconds_now() - start) * 1e9);
		TRY(fsr_hwqueue_wait_progress(s.process, queue, progress, FSR_INFINITE));
	}
	print_percentiles(out, prefix, latencies, samples);
	fsr_runtime_destroy(s.runtime);
	free(latencies);
}

/*
 * How long a high-priority submission waits behind a long low-priority packet: a 2 ms packet of
 * a context of priority 4, then 0.3 to 1.5 ms into it a tiny one of a context of priority 28
 * (with preemption; without: both contexts 16, nothing preempts), timed from its submit until
 * its progress arrives.
 */
static void
run_priority_wait(FILE *out, const char *prefix, bool is_preempting, uint64_t samples)
{
	uint64_t *waits = calloc(samples, sizeof(*waits));
	struct setup s;
	fsr_handle low;
	fsr_handle high;

	if (!waits)
		exit(1);
	preempt_setup(&s, FSR_PREEMPT_DEFAULT);
	low = preempt_queue(&s, is_preempting ? 4 : FSR_DEFAULT_CONTEXT_PRIORITY);
	high = preempt_queue(&s, is_preempting ? 28 : FSR_DEFAULT_CONTEXT_PRIORITY);
	for (uint64_t i = 0; i < samples; i++) {
		uint64_t low_progress = preempt_submit(&s, low, PREEMPT_PACKET_TICKS);
		uint64_t high_progress;
		double start;

		sleep_ns(300000 + (i * 7919 % 1200) * 1000);
		start = seconds_now();
		high_progress = preempt_submit(&s, high, 100);
		TRY(fsr_hwqueue_wait_progress(s.process, high, high_progress, FSR_INFINITE));
		waits[i] = (uint64_t) ((seconds_now() - start) * 1e9);
		TRY(fsr_hwqueue_wait_progress(s.process, low, low_progress, FSR_INFINITE));
	}
	print_percentiles(out, prefix, waits, samples);
	fsr_runtime_destroy(s.runtime);
	free(waits);
}

static void
run_preempt(FILE *out, uint64_t samples)
{
	static const struct {
		const char *prefix;
		enum fsr_preempt_granularity granularity;
	} levels[] = {
	    {"preempt_dma_buffer", FSR_PREEMPT_DMA_BUFFER_BOUNDARY},
	    {"preempt_primitive", FSR_PREEMPT_PRIMITIVE_OR_DISPATCH_BOUNDARY},
	    {"preempt_triangle", FSR_PREEMPT_TRIANGLE_OR_THREAD_GROUP_BOUNDARY},
	    {"preempt_pixel", FSR_PREEMPT_PIXEL_OR_THREAD_BOUNDARY},
	    {"preempt_shader", FSR_PREEMPT_SHADER_BOUNDARY},
	};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		run_preempt_latency(out, levels[i].prefix, levels[i].granularity, samples);
	run_priority_wait(out, "priority_wait_preempting", true, samples);
	run_priority_wait(out, "priority_wait_no_preemption", false, samples);
}

/* ---- mmu ------------------------------------------------------------------------------------ */

#define MMU_BENCH_MAPPING (UINT64_C(64) << 20)

/* ns per walk at `count` random VAs of a 64 MB mapping of `page`-byte pages. */
static double
mmu_translate_ns(struct setup *s, fsr_handle context, uint32_t page, uint64_t count)
{
	struct fsr_allocation_config config = {
	    .size_bytes = MMU_BENCH_MAPPING, .segment = FSR_SEGMENT_LOCAL, .page_size_bytes = page};
	struct fsr_va_map_args args = {.size_bytes = MMU_BENCH_MAPPING};
	uint64_t *vas = malloc(count * sizeof(*vas));
	uint64_t va, root, checksum, mapped, rng = 88172645463325252ull;
	double start, elapsed;

	if (!vas)
		exit(1);
	TRY(fsr_allocation_create_with_config(s->process, s->device, &config, &args.allocation));
	TRY(fsr_va_map(s->process, s->device, &args, &va));
	TRY(fsr_test_context_root_register(s->process, context, &root));
	for (uint64_t i = 0; i < count; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		vas[i] = va + rng % MMU_BENCH_MAPPING;
	}
	start = thread_cpu_seconds();
	mapped = fsr_test_gpu_translate_many(s->runtime, 0, root, vas, count, &checksum);
	elapsed = thread_cpu_seconds() - start;
	if (mapped != count || checksum == 0) {
		fprintf(stderr, "bench-runtime: %llu of %llu walks translated\n",
			(unsigned long long) mapped, (unsigned long long) count);
		exit(1);
	}
	TRY(fsr_va_unmap(s->process, s->device, va, MMU_BENCH_MAPPING));
	TRY(fsr_allocation_destroy(s->process, args.allocation));
	free(vas);
	return elapsed * 1e9 / (double) count;
}

/* Map/unmap pairs per second of `bytes` of an allocation of `page`-byte pages, at picked VAs. */
static double
mmu_map_unmap_per_s(struct setup *s, uint64_t bytes, uint32_t page, uint64_t pairs)
{
	struct fsr_allocation_config config = {
	    .size_bytes = bytes, .segment = FSR_SEGMENT_LOCAL, .page_size_bytes = page};
	struct fsr_va_map_args args = {.size_bytes = bytes};
	uint64_t va, anchor;
	double start;

	TRY(fsr_allocation_create_with_config(s->process, s->device, &config, &args.allocation));
	/* A first mapping stays: the tables the pairs use are not emptied, made and freed again. */
	TRY(fsr_va_map(s->process, s->device, &args, &anchor));
	start = thread_cpu_seconds();
	for (uint64_t i = 0; i < pairs; i++) {
		TRY(fsr_va_map(s->process, s->device, &args, &va));
		TRY(fsr_va_unmap(s->process, s->device, va, bytes));
	}
	start = thread_cpu_seconds() - start;
	TRY(fsr_va_unmap(s->process, s->device, anchor, bytes));
	TRY(fsr_allocation_destroy(s->process, args.allocation));
	return (double) pairs / start;
}

static void
run_mmu(FILE *out, uint64_t walks)
{
	struct setup s;
	fsr_handle context;
	uint64_t pairs = walks / 10 ? walks / 10 : 1;

	setup_with(&s, FSR_CLOCK_SIM, FSR_SUBMIT_KERNEL_MODE, 1, false);
	TRY(fsr_context_create(s.process, s.device, 1, &context));
	fprintf(out, "mmu_translate_4k_ns %.2f\n", mmu_translate_ns(&s, context, 4096, walks));
	fprintf(out, "mmu_translate_64k_ns %.2f\n", mmu_translate_ns(&s, context, 65536, walks));
	fprintf(out, "mmu_map_unmap_4k_per_s %.0f\n", mmu_map_unmap_per_s(&s, 4096, 4096, pairs));
	fprintf(out, "mmu_map_unmap_64k_per_s %.0f\n",
		mmu_map_unmap_per_s(&s, 65536, 65536, pairs));
	fprintf(out, "mmu_map_unmap_1m_per_s %.0f\n",
		mmu_map_unmap_per_s(&s, UINT64_C(1) << 20, 4096, pairs));
	fsr_runtime_destroy(s.runtime);
}

/* ---- xad: cross-adapter propagation latency ------------------------------------------------ */

#define XAD_FENCES 2 /* 0: the cross-adapter fence, 1: the dGPU's own */

struct xad_tap {
	uint64_t globals[XAD_FENCES];
	uint64_t samples;
	/* gpu_ts by fence and value: written by the engines' threads, each slot once */
	_Atomic uint64_t *signal_ts[XAD_FENCES];
	_Atomic uint64_t *wait_end_ts[XAD_FENCES];
};

static void
xad_record(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct xad_tap *tap = user_data;
	bool is_signal = strcmp(name, "fencescope_hw:fence_value_write") == 0;
	uint64_t fence, value, gpu_ts;

	if (!is_signal && strcmp(name, "fencescope_hw:gpu_wait_end") != 0)
		return;
	(void) field_count;
	fence = fields[3];
	value = fields[4];
	gpu_ts = is_signal ? fields[7] : fields[5];
	for (int f = 0; f < XAD_FENCES; f++) {
		if (fence != tap->globals[f] || value == 0 || value > tap->samples)
			continue;
		atomic_store((is_signal ? tap->signal_ts[f] : tap->wait_end_ts[f]) + value, gpu_ts);
	}
}

static uint64_t
xad_submit(struct fsr_process *process, fsr_handle queue, fsr_handle fence, uint64_t value,
	   bool is_wait)
{
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress;

	TRY(fsr_cmdbuf_create(process, queue, &cmdbuf));
	TRY(is_wait ? fsr_cmdbuf_wait(cmdbuf, fence, value)
		    : fsr_cmdbuf_signal(cmdbuf, fence, value));
	TRY(fsr_cmdbuf_submit(cmdbuf, &progress));
	return progress;
}

static void
run_xad(FILE *out, uint64_t samples)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .seed = 14};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config queue_config = {.mode = FSR_SUBMIT_USER_MODE,
						  .ring_size_bytes = 1 << 20};
	struct xad_tap tap = {.samples = samples};
	struct fsr_runtime *runtime;
	struct fsr_process *process;
	uint32_t igpu, dgpu;
	fsr_handle igpu_device, dgpu_device, context;
	fsr_handle igpu_wait, dgpu_signal, dgpu_wait, dgpu_compute_signal;
	fsr_handle cross_dgpu, cross_igpu, own;
	uint64_t *latencies[XAD_FENCES];
	const double ticks_to_ns = 1e9 / 100e6; /* the default GPU clock, 100 MHz, both */

	for (int f = 0; f < XAD_FENCES; f++) {
		tap.signal_ts[f] = calloc(samples + 1, sizeof(*tap.signal_ts[f]));
		tap.wait_end_ts[f] = calloc(samples + 1, sizeof(*tap.wait_end_ts[f]));
		latencies[f] = calloc(samples, sizeof(*latencies[f]));
		if (!tap.signal_ts[f] || !tap.wait_end_ts[f] || !latencies[f])
			exit(1);
	}
	fsr_adapter_config_init(&adapter_config);
	TRY(fsr_runtime_create(&config, &runtime));
	TRY(fsr_adapter_create(runtime, &adapter_config, &igpu));
	TRY(fsr_adapter_create(runtime, &adapter_config, &dgpu));
	TRY(fsr_process_create(runtime, "bench", &process));
	TRY(fsr_device_create(process, igpu, &igpu_device));
	TRY(fsr_device_create(process, dgpu, &dgpu_device));
	TRY(fsr_context_create(process, igpu_device, 0, &context));
	TRY(fsr_hwqueue_create_user_mode(process, context, &queue_config, &igpu_wait));
	TRY(fsr_context_create(process, dgpu_device, 0, &context));
	TRY(fsr_hwqueue_create_user_mode(process, context, &queue_config, &dgpu_signal));
	TRY(fsr_context_create(process, dgpu_device, 0, &context));
	TRY(fsr_hwqueue_create_user_mode(process, context, &queue_config, &dgpu_wait));
	TRY(fsr_context_create(process, dgpu_device, 1, &context));
	TRY(fsr_hwqueue_create_user_mode(process, context, &queue_config, &dgpu_compute_signal));
	TRY(fsr_fence_create(process, dgpu_device, 0, FSR_FENCE_CROSS_ADAPTER, &cross_dgpu,
			     &tap.globals[0]));
	TRY(fsr_fence_open(process, igpu_device, tap.globals[0], &cross_igpu));
	TRY(fsr_fence_create(process, dgpu_device, 0, 0, &own, &tap.globals[1]));
	fsr_runtime_set_event_tap(runtime, xad_record, &tap);
	for (uint64_t v = 1; v <= samples; v++) {
		uint64_t progress;

		/* Across adapters: the iGPU waits, the dGPU signals once the wait is blocked. */
		progress = xad_submit(process, igpu_wait, cross_igpu, v, true);
		sleep_ns(50000);
		xad_submit(process, dgpu_signal, cross_dgpu, v, false);
		TRY(fsr_hwqueue_wait_progress(process, igpu_wait, progress, FSR_INFINITE));
		/* On one adapter: the dGPU's 3D ring waits, its compute ring signals. */
		progress = xad_submit(process, dgpu_wait, own, v, true);
		sleep_ns(50000);
		xad_submit(process, dgpu_compute_signal, own, v, false);
		TRY(fsr_hwqueue_wait_progress(process, dgpu_wait, progress, FSR_INFINITE));
	}
	TRY(fsr_runtime_run_until_idle(runtime));
	fsr_runtime_set_event_tap(runtime, NULL, NULL);
	for (int f = 0; f < XAD_FENCES; f++) {
		for (uint64_t v = 1; v <= samples; v++) {
			uint64_t signal = atomic_load(tap.signal_ts[f] + v);
			uint64_t end = atomic_load(tap.wait_end_ts[f] + v);

			latencies[f][v - 1] =
			    end > signal ? (uint64_t) ((double) (end - signal) * ticks_to_ns) : 0;
		}
		print_percentiles(out, f == 0 ? "xad_cross" : "xad_same", latencies[f], samples);
		free(tap.signal_ts[f]);
		free(tap.wait_end_ts[f]);
		free(latencies[f]);
	}
	fsr_runtime_destroy(runtime);
}

int
main(int argc, char **argv)
{
	FILE *out;
	uint64_t n;

	if (argc != 5 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr,
			"usage: bench-runtime -o FILE sim|realtime|cost|preempt|mmu|xad N\n");
		return 2;
	}
	out = fopen(argv[2], "a");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	n = strtoull(argv[4], NULL, 10);
	if (strcmp(argv[3], "sim") == 0)
		run_sim(out, n);
	else if (strcmp(argv[3], "realtime") == 0)
		run_realtime(out, n);
	else if (strcmp(argv[3], "cost") == 0)
		run_cost(out, n);
	else if (strcmp(argv[3], "preempt") == 0 && n > 0)
		run_preempt(out, n);
	else if (strcmp(argv[3], "mmu") == 0 && n > 0)
		run_mmu(out, n);
	else if (strcmp(argv[3], "xad") == 0 && n > 0)
		run_xad(out, n);
	else
		return 2;
	fclose(out);
	return 0;
}
