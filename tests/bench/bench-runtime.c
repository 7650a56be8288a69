/* SPDX-License-Identifier: MIT */
/*
 * The runtime's benchmark program; scripts/bench runs it untraced and inside an LTTng session
 * and prints the comparison. Each mode writes "key value" lines to the file given with -o:
 *   sim N       a sim-mode producer/consumer workload until N events were fired:
 *               events, seconds (events per second = events / seconds), cpu_seconds
 *   realtime N  N kernel-mode submissions of tiny work on the realtime clock, 32 in flight
 *               (submissions, seconds), then N/10 more one at a time, each waited for
 *               (submit-to-start p50 and p99 in ns: the path's own latency, no queueing)
 *   bare N      N calls of a bare LTTng-UST tracepoint with a fencescope-like payload:
 *               events, seconds, cpu_seconds
 * sim and bare run on the calling thread alone; cpu_seconds is that thread's CPU time, which
 * time other processes take on a loaded machine does not inflate as it does `seconds`.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bench-tp.h"

#include <fencescope/runtime.h>

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

static void
setup(struct setup *s, enum fsr_clock_mode mode, enum fsr_submission_mode submission)
{
	struct fsr_runtime_config config = {.clock_mode = mode, .seed = 1};
	struct fsr_adapter_config adapter_config;
	struct fsr_hwqueue_config queue_config = {.mode = submission, .ring_size_bytes = 1 << 20};
	uint32_t adapter;

	fsr_adapter_config_init(&adapter_config);
	TRY(fsr_runtime_create(&config, &s->runtime));
	TRY(fsr_adapter_create(s->runtime, &adapter_config, &adapter));
	TRY(fsr_process_create(s->runtime, "bench", &s->process));
	TRY(fsr_device_create(s->process, adapter, &s->device));
	for (uint32_t e = 0; e < 2; e++) {
		fsr_handle context;

		TRY(fsr_context_create(s->process, s->device, e, &context));
		TRY(fsr_hwqueue_create(s->process, context, &queue_config, &s->queues[e]));
	}
	TRY(fsr_fence_create(s->process, s->device, 0, 0, &s->fence, NULL));
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
		/* A batch: the 3D queue signals, the compute queue waits for each value. */
		for (int i = 0; i < 64; i++) {
			struct fsr_cmdbuf *cmdbuf;

			value++;
			TRY(fsr_cmdbuf_create(s.process, s.queues[0], &cmdbuf));
			TRY(fsr_cmdbuf_work(cmdbuf, 100));
			TRY(fsr_cmdbuf_signal(cmdbuf, s.fence, value));
			TRY(fsr_cmdbuf_submit(cmdbuf, NULL));
			TRY(fsr_cmdbuf_create(s.process, s.queues[1], &cmdbuf));
			TRY(fsr_cmdbuf_wait(cmdbuf, s.fence, value));
			TRY(fsr_cmdbuf_work(cmdbuf, 50));
			TRY(fsr_cmdbuf_submit(cmdbuf, NULL));
		}
		TRY(fsr_fence_wait_cpu(s.process, s.fence, value, FSR_INFINITE, FSR_WAIT_BLOCKING));
		TRY(fsr_runtime_run_until_idle(s.runtime));
		fsr_runtime_get_stats(s.runtime, &stats);
	}
	fprintf(out, "sim_events %llu\nsim_seconds %.6f\nsim_cpu_seconds %.6f\n",
		(unsigned long long) stats.events, seconds_now() - start,
		thread_cpu_seconds() - cpu_start);
	fsr_runtime_destroy(s.runtime);
}

static void
run_realtime(FILE *out, uint64_t submissions)
{
	struct setup s;
	struct fsr_runtime_stats before;
	struct fsr_runtime_stats stats;
	uint64_t progress = 0;
	double start;

	setup(&s, FSR_CLOCK_REALTIME, FSR_SUBMIT_KERNEL_MODE);
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
	fprintf(out, "realtime_submissions %llu\nrealtime_seconds %.6f\n",
		(unsigned long long) submissions, seconds_now() - start);

	fsr_runtime_get_stats(s.runtime, &before);
	for (uint64_t i = 0; i < submissions / 10; i++) {
		struct fsr_cmdbuf *cmdbuf;

		TRY(fsr_cmdbuf_create(s.process, s.queues[0], &cmdbuf));
		TRY(fsr_cmdbuf_work(cmdbuf, 10));
		TRY(fsr_cmdbuf_submit(cmdbuf, &progress));
		TRY(fsr_hwqueue_wait_progress(s.process, s.queues[0], progress, FSR_INFINITE));
	}
	fsr_runtime_get_stats(s.runtime, &stats);
	for (int b = 0; b < FSR_LATENCY_BUCKETS; b++)
		stats.submit_to_start[b] -= before.submit_to_start[b];
	fprintf(out, "realtime_p50_ns %llu\nrealtime_p99_ns %llu\n",
		(unsigned long long) fsr_latency_percentile(stats.submit_to_start, 0.50),
		(unsigned long long) fsr_latency_percentile(stats.submit_to_start, 0.99));
	fsr_runtime_destroy(s.runtime);
}

static void
run_bare(FILE *out, uint64_t count)
{
	double start = seconds_now();
	double cpu_start = thread_cpu_seconds();

	for (uint64_t i = 0; i < count; i++)
		lttng_ust_tracepoint(fencescope_bench, bare, (uint32_t) i, i, i + 1, i + 2, i + 3);
	fprintf(out, "bare_events %llu\nbare_seconds %.6f\nbare_cpu_seconds %.6f\n",
		(unsigned long long) count, seconds_now() - start,
		thread_cpu_seconds() - cpu_start);
}

int
main(int argc, char **argv)
{
	FILE *out;
	uint64_t n;

	if (argc != 5 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: bench-runtime -o FILE sim|realtime|bare N\n");
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
	else if (strcmp(argv[3], "bare") == 0)
		run_bare(out, n);
	else
		return 2;
	fclose(out);
	return 0;
}
