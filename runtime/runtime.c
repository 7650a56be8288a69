/* SPDX-License-Identifier: MIT */
/*
 * The runtime core: creation and teardown, adapters, processes and their handle tables, the
 * public stepping calls and the helpers every layer shares (refusing a call, looking up a
 * handle). The model itself lives in hw/, kmd/, os/ and umd/.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common-private.h"
#include "common/fault-private.h"
#include "kmd/kmd-private.h"
#include "os/os-private.h"

_Static_assert((int) FSR_ERR_BAD_STATE == (int) FSTP_STATUS_BAD_STATE,
	       "status values are the contract's");
_Static_assert((int) FSR_ERR_INVALID_HANDLE == (int) FSTP_STATUS_INVALID_HANDLE, "same");
_Static_assert((int) FSR_SUBMIT_USER_MODE == (int) FSTP_SUBMISSION_MODE_USER_MODE, "same");
_Static_assert((int) FSR_ENGINE_COPY == (int) FSTP_ENGINE_TYPE_COPY, "same");
_Static_assert((int) FSR_INTERRUPT_HWQUEUE == (int) FSTP_INTERRUPT_FORM_HWQUEUE, "same");
_Static_assert(FSR_TRACE_FORMAT_MAJOR == FSTP_FORMAT_MAJOR &&
		   FSR_TRACE_FORMAT_MINOR == FSTP_FORMAT_MINOR,
	       "one format version");

const char *
fsr_status_name(fsr_status status)
{
#define RT_STATUS_NAME_(prefix, name, value)                                                       \
	case value:                                                                                \
		return #name;
	switch ((int) status) {
		FSTP_STATUS(RT_STATUS_NAME_, STATUS)
	}
	return "UNKNOWN";
#undef RT_STATUS_NAME_
}

/* ---- random numbers: splitmix64 to seed xoshiro256** ------------------------------------- */

static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
fsr_runtime_random(struct fsr_runtime *runtime)
{
	uint64_t *s = runtime->rng;
	uint64_t result;
	uint64_t t;

	rt_lock(runtime);
	result = rotl(s[1] * 5, 7) * 9;
	t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	rt_unlock(runtime);
	return result;
}

/* ---- shared helpers ----------------------------------------------------------------------- */

/* ---- latency histograms ------------------------------------------------------------------- */

uint64_t
fsr_latency_percentile(const uint64_t histogram[FSR_LATENCY_BUCKETS], double fraction)
{
	uint64_t total = 0;
	uint64_t seen = 0;
	uint64_t target;

	for (unsigned int i = 0; i < FSR_LATENCY_BUCKETS; i++)
		total += histogram[i];
	if (total == 0)
		return 0;
	target = (uint64_t) (fraction * (double) total);
	if (target == 0)
		target = 1;
	for (unsigned int i = 0; i < FSR_LATENCY_BUCKETS; i++) {
		seen += histogram[i];
		if (seen >= target) {
			/* The bucket's upper edge: 2^(top) × (1 + (fraction + 1) / 8). */
			unsigned int top = i / 8u;
			unsigned int eighth = i % 8u;

			return (UINT64_C(1) << top) + (((UINT64_C(1) << top) * (eighth + 1)) >> 3);
		}
	}
	return 0;
}

/* ---- runtime ------------------------------------------------------------------------------ */

fsr_status
fsr_runtime_create(const struct fsr_runtime_config *config, struct fsr_runtime **runtime_out)
{
	struct fsr_runtime *runtime = NULL;
	fsr_status status = FSR_OK;
	uint64_t seed;

	if (!config || !runtime_out ||
	    (config->clock_mode != FSR_CLOCK_SIM && config->clock_mode != FSR_CLOCK_REALTIME) ||
	    (config->interleave_seed && config->clock_mode != FSR_CLOCK_SIM)) {
		status = FSR_ERR_INVALID_ARGUMENT;
		goto end;
	}
	/* Fault injection is sim mode's: a realtime run cannot replay where a fault fired. */
	if (config->fault_plan && config->clock_mode != FSR_CLOCK_SIM) {
		status = FSR_ERR_NOT_SUPPORTED;
		goto end;
	}
	runtime = calloc(1, sizeof(*runtime));
	if (!runtime) {
		status = FSR_ERR_NO_RESOURCES;
		goto end;
	}
	runtime->config = *config;
	runtime->config.fault_plan = NULL; /* the caller's; the injector keeps a copy */
	status = rt_faults_init(runtime, config->fault_plan);
	if (status != FSR_OK) {
		free(runtime);
		runtime = NULL;
		goto end;
	}
	if (!runtime->config.clock_correlation_period_ns)
		runtime->config.clock_correlation_period_ns = 10000000u;
	if (!runtime->config.interrupt_latency_ns)
		runtime->config.interrupt_latency_ns = 2000u;
	/* Spec 001 has no periodic log read: off unless asked for (0 and FSR_INFINITE alike). */
	if (!runtime->config.log_read_period_ns)
		runtime->config.log_read_period_ns = FSR_INFINITE;
	pthread_mutex_init(&runtime->lock, NULL);
	rt_clock_init(&runtime->clock, config->clock_mode);
	rt_map_init(&runtime->fences);
	seed = config->seed;
	for (int i = 0; i < 4; i++)
		runtime->rng[i] = splitmix64(&seed);
	runtime->next_process_id = 1;
	runtime->stats.trace_hash = FSR_FNV_OFFSET;
	os_actor_init(runtime);
	if (config->interleave_seed &&
	    rt_interleave_enable(runtime, config->interleave_seed, NULL, 0) != FSR_OK) {
		status = FSR_ERR_NO_RESOURCES;
		fsr_runtime_destroy(runtime);
		runtime = NULL;
		goto end;
	}

	rt_lock(runtime);
	FSR_TRACE(
	    runtime, fencescope_os, trace_info, FSTP_FORMAT_MAJOR, FSTP_FORMAT_MINOR, FSR_VERSION,
	    config->clock_mode == FSR_CLOCK_SIM ? FSTP_CLOCK_MODE_SIM : FSTP_CLOCK_MODE_REALTIME);
	rt_unlock(runtime);

	status = rt_clock_start(runtime);
	if (status != FSR_OK) {
		fsr_runtime_destroy(runtime);
		runtime = NULL;
	}
end:
	if (runtime_out)
		*runtime_out = status == FSR_OK ? runtime : NULL;
	return status;
}

void
fsr_runtime_destroy(struct fsr_runtime *runtime)
{
	if (!runtime)
		return;
	while (runtime->processes)
		fsr_process_terminate(runtime->processes, false);
	rt_clock_stop(runtime);
	rt_interleave_fini(runtime);
	os_run_callbacks(runtime);
	os_adapters_remove(runtime);
	/* Fences still referenced by nothing but the map (all handles are closed by now). */
	uint64_t key;
	void *value;

	for (size_t cursor = 0; rt_map_next(&runtime->fences, &cursor, &key, &value);) {
		struct fsr_fence *fence = value;

		while (fence->peers) { /* cross-adapter objects (XAD-03) */
			struct fsr_fence *peer = fence->peers;

			fence->peers = peer->next_peer;
			free(peer);
		}
		free(fence);
	}
	rt_map_fini(&runtime->fences);
	rt_clock_fini(&runtime->clock);
	rt_faults_fini(runtime);
	pthread_mutex_destroy(&runtime->lock);
	free(runtime);
}

enum fsr_clock_mode
fsr_runtime_get_clock_mode(const struct fsr_runtime *runtime)
{
	return runtime->config.clock_mode;
}

uint64_t
fsr_runtime_now_ns(struct fsr_runtime *runtime)
{
	return rt_clock_now(runtime);
}

fsr_status
fsr_runtime_step(struct fsr_runtime *runtime, bool *has_run)
{
	if (runtime->config.clock_mode != FSR_CLOCK_SIM)
		return FSR_ERR_NOT_SUPPORTED;
	*has_run = rt_clock_step(runtime);
	return FSR_OK;
}

fsr_status
fsr_runtime_run_until(struct fsr_runtime *runtime, uint64_t time_ns)
{
	_Atomic uint32_t never = 0;
	fsr_status status;

	if (runtime->config.clock_mode == FSR_CLOCK_REALTIME) {
		uint64_t now = rt_clock_now(runtime);

		if (time_ns > now)
			usleep((useconds_t) ((time_ns - now) / 1000u));
		return FSR_OK;
	}
	status = rt_clock_block(runtime, &never, time_ns);
	return status == FSR_ERR_TIMEOUT || status == FSR_OK ? FSR_OK : status;
}

fsr_status
fsr_runtime_run_until_idle(struct fsr_runtime *runtime)
{
	if (runtime->config.clock_mode == FSR_CLOCK_SIM) {
		while (runtime->clock.strong_count > 0 && rt_clock_step(runtime))
			;
		return FSR_OK;
	}
	for (;;) {
		bool is_idle;

		rt_lock(runtime);
		is_idle = os_is_idle(runtime);
		rt_unlock(runtime);
		if (is_idle)
			return FSR_OK;
		usleep(100);
	}
}

void
fsr_runtime_get_stats(struct fsr_runtime *runtime, struct fsr_runtime_stats *stats)
{
	rt_lock(runtime);
	*stats = runtime->stats;
	/* Realtime events are counted apart (the engines fire without the lock). */
	stats->events += atomic_load_explicit(&runtime->concurrent_events, memory_order_relaxed);
	for (int b = 0; b < FSR_LATENCY_BUCKETS; b++)
		stats->user_mode_submit_to_start[b] = atomic_load_explicit(
		    &runtime->user_mode_submit_to_start[b], memory_order_relaxed);
	/* The shutdown pairs are part of the run's trace (fsr_runtime_destroy). */
	stats->events += runtime->adapter_count;
	rt_unlock(runtime);
	stats->steps = atomic_load_explicit(&runtime->clock.steps, memory_order_relaxed);
}

/* ---- adapters ----------------------------------------------------------------------------- */

void
fsr_adapter_config_init(struct fsr_adapter_config *config)
{
	*config = (struct fsr_adapter_config){
	    .engine_count = 3,
	    .engine_types = {FSR_ENGINE_3D, FSR_ENGINE_COMPUTE, FSR_ENGINE_COPY},
	    .gpu_ts_frequency_hz = 100000000u,
	    .log_capacity_entries = FSR_DEFAULT_LOG_SIZE / FSR_LOG_ENTRY_BYTES,
	    .interrupt_form = FSR_INTERRUPT_FENCE_ARRAY,
	    .doorbell_model = FSR_DOORBELL_GLOBAL,
	    .physical_doorbells = 1,
	    .doorbell_size_bytes = FSR_MIN_DOORBELL_BYTES,
	    .scheduling_period_ns = 100000,
	};
}

fsr_status
fsr_adapter_create(struct fsr_runtime *runtime, const struct fsr_adapter_config *config,
		   uint32_t *adapter_id)
{
	struct dxgk_ddi ddi;

	/* The reference driver's DriverEntry, then the OS adds the adapter with its table. */
	kmd_driver_entry(&ddi);
	return fsr_adapter_create_with_ddi(runtime, config, &ddi, adapter_id);
}
