/* SPDX-License-Identifier: MIT */
/*
 * The helpers of the leaf every layer shares (common/common-private.h): kernel handles, refusals,
 * latency histograms and the memory of fence logs. Nothing here calls above
 * the leaf.
 */
#include <stdlib.h>

#include "common/common-private.h"

_Static_assert(sizeof(struct hw_log_entry) == FSR_LOG_ENTRY_BYTES, "a log entry is 32 bytes");

#ifdef RT_TSAN
_Atomic uint64_t rt_tsan_barrier_word;
#endif

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

unsigned int
rt_latency_bucket(uint64_t latency_ns)
{
	unsigned int bucket = 0;

	if (latency_ns > 0) {
		/* Eight buckets per power of two: the top bit, then the three bits below it. */
		unsigned int top = 63u - (unsigned int) __builtin_clzll(latency_ns);
		unsigned int fraction = top >= 3 ? (unsigned int) (latency_ns >> (top - 3)) & 7u
						 : (unsigned int) (latency_ns << (3 - top)) & 7u;

		bucket = top * 8u + fraction;
	}
	return bucket < FSR_LATENCY_BUCKETS ? bucket : FSR_LATENCY_BUCKETS - 1;
}

void
rt_latency_add(uint64_t histogram[FSR_LATENCY_BUCKETS], uint64_t latency_ns)
{
	histogram[rt_latency_bucket(latency_ns)]++;
}

void
rt_fence_log_alloc(struct hw_fence_log *log, uint32_t capacity, uint32_t generation)
{
	log->entries = calloc(capacity, sizeof(*log->entries));
	log->posted = calloc(capacity, sizeof(*log->posted));
	if (!log->entries || !log->posted)
		abort(); /* logs are small; failing here would leave a queue without its log */
	log->posted_count = 0;
	log->capacity = capacity;
	log->generation = generation;
	atomic_init(&log->header, 0);
}

void
rt_fence_log_free(struct hw_fence_log *log)
{
	free(log->entries);
	free(log->posted);
	log->entries = NULL;
	log->posted = NULL;
	log->posted_count = 0;
}

void
fsr_runtime_set_event_tap(struct fsr_runtime *runtime, fsr_event_tap tap, void *user_data)
{
	rt_lock(runtime);
	runtime->event_tap.tap = tap;
	runtime->event_tap.user_data = user_data;
	rt_unlock(runtime);
}
