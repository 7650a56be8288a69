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

#include "runtime-private.h"

_Static_assert((int) FSR_ERR_BAD_STATE == (int) FSTP_STATUS_BAD_STATE,
	       "status values are the contract's");
_Static_assert((int) FSR_ERR_INVALID_HANDLE == (int) FSTP_STATUS_INVALID_HANDLE, "same");
_Static_assert((int) FSR_SUBMIT_USER_MODE == (int) FSTP_SUBMISSION_MODE_USER_MODE, "same");
_Static_assert((int) FSR_ENGINE_COPY == (int) FSTP_ENGINE_TYPE_COPY, "same");
_Static_assert((int) FSR_INTERRUPT_HWQUEUE == (int) FSTP_INTERRUPT_FORM_HWQUEUE, "same");
_Static_assert(FSR_TRACE_FORMAT_MAJOR == FSTP_FORMAT_MAJOR &&
		   FSR_TRACE_FORMAT_MINOR == FSTP_FORMAT_MINOR,
	       "one format version");
_Static_assert(sizeof(struct hw_log_entry) == FSR_LOG_ENTRY_BYTES, "a log entry is 32 bytes");

void
rt_abort_precondition(const char *id, const char *cond, const char *file, int line)
{
	fprintf(stderr, "fencescope: precondition %s failed: %s (%s:%d)\n", id, cond, file, line);
	abort();
}

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

fsr_handle
rt_new_kernel_handle(struct fsr_runtime *runtime, enum rt_object_type type)
{
	/* Kernel handles: a type byte above a counter, never reused within a run. */
	return (UINT64_C(0x8) << 60) | ((uint64_t) type << 48) | ++runtime->next_kernel_handle;
}

fsr_status
rt_refuse(struct fsr_runtime *runtime, uint32_t process_id, const char *call, fsr_handle handle,
	  fsr_status status)
{
	FSR_TRACE(runtime, fencescope_os, call_failed, process_id, call, handle, (int) status);
	return status;
}

fsr_status
rt_lookup(struct fsr_process *process, fsr_handle handle, enum rt_object_type type,
	  struct rt_object **object)
{
	struct rt_object *found = rt_map_get(&process->handles, handle);

	if (!found) {
		/* A fence's global handle is not a handle of this process until it opens it. */
		if (type == RT_OBJECT_FENCE && rt_map_get(&process->runtime->fences, handle))
			return FSR_ERR_ACCESS_DENIED;
		return FSR_ERR_INVALID_HANDLE;
	}
	if (found->type != type)
		return FSR_ERR_INVALID_HANDLE;
	*object = found;
	return FSR_OK;
}

void
rt_run_callbacks(struct fsr_runtime *runtime)
{
	struct os_waiter *list;

	rt_lock(runtime);
	list = runtime->done_callbacks;
	runtime->done_callbacks = NULL;
	rt_unlock(runtime);
	while (list) {
		struct os_waiter *waiter = list;

		list = waiter->next_done;
		waiter->callback(waiter->status, waiter->observed_value, waiter->user_data);
		free(waiter);
	}
}

/* ---- latency histograms ------------------------------------------------------------------- */

void
rt_latency_add(uint64_t histogram[FSR_LATENCY_BUCKETS], uint64_t latency_ns)
{
	unsigned int bucket = 0;

	if (latency_ns > 0) {
		/* Eight buckets per power of two: the top bit, then the three bits below it. */
		unsigned int top = 63u - (unsigned int) __builtin_clzll(latency_ns);
		unsigned int fraction = top >= 3 ? (unsigned int) (latency_ns >> (top - 3)) & 7u
						 : (unsigned int) (latency_ns << (3 - top)) & 7u;

		bucket = top * 8u + fraction;
	}
	if (bucket >= FSR_LATENCY_BUCKETS)
		bucket = FSR_LATENCY_BUCKETS - 1;
	histogram[bucket]++;
}

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
	    (config->clock_mode != FSR_CLOCK_SIM && config->clock_mode != FSR_CLOCK_REALTIME)) {
		status = FSR_ERR_INVALID_ARGUMENT;
		goto end;
	}
	runtime = calloc(1, sizeof(*runtime));
	if (!runtime) {
		status = FSR_ERR_NO_RESOURCES;
		goto end;
	}
	runtime->config = *config;
	if (!runtime->config.clock_correlation_period_ns)
		runtime->config.clock_correlation_period_ns = 10000000u;
	if (!runtime->config.interrupt_latency_ns)
		runtime->config.interrupt_latency_ns = 2000u;
	if (!runtime->config.log_read_period_ns)
		runtime->config.log_read_period_ns = 1000000u;
	pthread_mutex_init(&runtime->lock, NULL);
	rt_clock_init(&runtime->clock, config->clock_mode);
	rt_map_init(&runtime->fences);
	seed = config->seed;
	for (int i = 0; i < 4; i++)
		runtime->rng[i] = splitmix64(&seed);
	runtime->next_process_id = 1;
	runtime->stats.trace_hash = UINT64_C(0xcbf29ce484222325);
	os_actor_init(runtime);

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
	rt_run_callbacks(runtime);
	/*
	 * A last clock pair once the engines have stopped: every GPU time of the run then lies
	 * between two pairs and maps by interpolation, never by extrapolating a drifting counter
	 * past the last periodic pair (docs/trace-format.md "GPU time to trace time").
	 */
	rt_lock(runtime);
	for (uint32_t i = 0; i < runtime->adapter_count; i++)
		kmd_correlate_clock(runtime->adapters[i], rt_clock_now(runtime));
	rt_unlock(runtime);
	for (uint32_t i = 0; i < runtime->adapter_count; i++) {
		struct fsr_adapter *adapter = runtime->adapters[i];

		for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
			struct hw_engine *engine = &adapter->engines[e];

			while (engine->dma_head) {
				struct hw_dma_packet *packet = engine->dma_head;

				engine->dma_head = packet->next;
				free(packet);
			}
			free(engine->busy_packet);
		}
		free(adapter);
	}
	while (runtime->interrupts_head) {
		struct hw_interrupt *interrupt = runtime->interrupts_head;

		runtime->interrupts_head = interrupt->next;
		free(interrupt->packet);
		free(interrupt);
	}
	/* Fences still referenced by nothing but the map (all handles are closed by now). */
	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;

		if (!rt_map_next(&runtime->fences, &cursor, &key, &value))
			break;
		free(value);
	}
	rt_map_fini(&runtime->fences);
	rt_clock_fini(&runtime->clock);
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
	};
}

fsr_status
fsr_adapter_create(struct fsr_runtime *runtime, const struct fsr_adapter_config *config,
		   uint32_t *adapter_id)
{
	struct fsr_adapter *adapter = NULL;
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (!config || !adapter_id || config->engine_count == 0 ||
	    config->engine_count > FSR_MAX_ENGINES) {
		status = rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	for (uint32_t e = 0; e < config->engine_count; e++) {
		if (config->engine_types[e] > FSR_ENGINE_COPY) {
			status =
			    rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_INVALID_ARGUMENT);
			goto end;
		}
	}
	/*
	 * A counter of at least 1 kHz that drifts by less than 100% (so it runs), and logs small
	 * enough to grow 16 times (LOG-20) within 32 bits: outside that, times overflow.
	 */
	if ((config->gpu_ts_frequency_hz && (config->gpu_ts_frequency_hz < FSR_MIN_GPU_HZ ||
					     config->gpu_ts_frequency_hz > FSR_MAX_GPU_HZ)) ||
	    config->gpu_ts_drift_ppm <= -1000000 || config->gpu_ts_drift_ppm >= 1000000 ||
	    config->log_capacity_entries > FSR_MAX_LOG_ENTRIES ||
	    (config->interrupt_form && (config->interrupt_form < FSR_INTERRUPT_FENCE_ARRAY ||
					config->interrupt_form > FSR_INTERRUPT_HWQUEUE))) {
		status = rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	if (runtime->adapter_count == FSR_MAX_ADAPTERS) {
		status = rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_NO_RESOURCES);
		goto end;
	}
	adapter = calloc(1, sizeof(*adapter));
	if (!adapter) {
		status = FSR_ERR_NO_RESOURCES;
		goto end;
	}
	adapter->runtime = runtime;
	adapter->id = runtime->adapter_count;
	adapter->config = *config;
	if (!adapter->config.gpu_ts_frequency_hz)
		adapter->config.gpu_ts_frequency_hz = 100000000u;
	if (!adapter->config.log_capacity_entries)
		adapter->config.log_capacity_entries = FSR_DEFAULT_LOG_SIZE / FSR_LOG_ENTRY_BYTES;
	if (!adapter->config.interrupt_form)
		adapter->config.interrupt_form = FSR_INTERRUPT_FENCE_ARRAY;
	runtime->adapters[runtime->adapter_count++] = adapter;
	FSR_TRACE(runtime, fencescope_os, adapter_create, adapter->id, config->engine_count, 0,
		  FSTP_DOORBELL_MODEL_NONE, adapter->config.gpu_ts_frequency_hz, 1,
		  adapter->config.interrupt_form == FSR_INTERRUPT_HWQUEUE);
	for (uint32_t e = 0; e < config->engine_count; e++) {
		hw_engine_init(adapter, e);
		kmd_describe_engine(adapter, e);
	}
	kmd_correlate_clock(adapter, rt_clock_now(runtime));
	*adapter_id = adapter->id;
end:
	rt_unlock(runtime);
	/* Engines join the clock outside the lock: in realtime mode they start running. */
	if (status == FSR_OK) {
		for (uint32_t e = 0; e < adapter->config.engine_count; e++)
			rt_clock_add_actor(runtime, &adapter->engines[e].actor);
	}
	return status;
}

fsr_status
fsr_adapter_read_gpu_ts(struct fsr_runtime *runtime, uint32_t adapter_id, uint64_t *gpu_ts)
{
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (adapter_id >= runtime->adapter_count || !gpu_ts)
		status = FSR_ERR_INVALID_ARGUMENT;
	else
		*gpu_ts = hw_gpu_ts(runtime->adapters[adapter_id], rt_clock_now(runtime));
	rt_unlock(runtime);
	return status;
}

/* ---- processes ---------------------------------------------------------------------------- */

fsr_status
fsr_process_create(struct fsr_runtime *runtime, const char *name, struct fsr_process **process_out)
{
	struct fsr_process *process;
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (!name || !process_out) {
		status = rt_refuse(runtime, 0, "CreateProcess", 0, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	process = calloc(1, sizeof(*process));
	if (!process || !(process->name = strdup(name))) {
		free(process);
		status = FSR_ERR_NO_RESOURCES;
		goto end;
	}
	process->runtime = runtime;
	process->id = runtime->next_process_id++;
	rt_map_init(&process->handles);
	process->next = runtime->processes;
	runtime->processes = process;
	FSR_TRACE(runtime, fencescope_os, process_create, process->id, process->name);
	*process_out = process;
end:
	rt_unlock(runtime);
	return status;
}

uint32_t
fsr_process_get_id(const struct fsr_process *process)
{
	return process->id;
}

fsr_status
fsr_process_terminate(struct fsr_process *process, bool is_abnormal)
{
	struct fsr_runtime *runtime;
	struct fsr_process **link;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	rt_lock(runtime);
	FSR_TRACE(runtime, fencescope_os, process_terminate, process->id,
		  is_abnormal ? FSTP_TERMINATION_ABNORMAL : FSTP_TERMINATION_NORMAL);
	rt_unlock(runtime);

	/* TRM-01: normal termination lets every queue finish what it queued; TRM-04: not so. */
	while (process->devices) {
		struct os_device *device = process->devices;

		if (!is_abnormal) {
			for (struct os_context *c = device->contexts; c; c = c->next_in_device) {
				for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
					fsr_hwqueue_wait_progress(
					    process, q->handle, atomic_load(&q->last_queued_value),
					    FSR_INFINITE);
			}
		} else {
			rt_lock(runtime);
			for (struct os_context *c = device->contexts; c; c = c->next_in_device)
				for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
					q->is_abandoned = true;
			rt_unlock(runtime);
		}
		fsr_device_destroy(process, device->handle);
	}

	rt_lock(runtime);
	/* Fence handles not tied to a device that still exists. */
	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;
		struct rt_object *object;

		if (!rt_map_next(&process->handles, &cursor, &key, &value))
			break;
		object = value;
		if (object->type == RT_OBJECT_FENCE)
			os_fence_close_handle(process, key, object->pointer);
		free(object);
	}
	rt_map_fini(&process->handles);
	for (link = &runtime->processes; *link; link = &(*link)->next) {
		if (*link == process) {
			*link = process->next;
			break;
		}
	}
	rt_unlock(runtime);
	rt_run_callbacks(runtime);
	free(process->name);
	free(process);
	return FSR_OK;
}
