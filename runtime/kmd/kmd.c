/* SPDX-License-Identifier: MIT */
/*
 * The kernel-mode driver of the emulated GPU: the DDIs the OS calls (spec 001), each one a
 * short function that touches the GPU-visible words with the ordering the spec asks for and
 * fires its fencescope_kmd event. Policy (when to call them) is the OS's.
 */
#include "runtime-private.h"

void
kmd_describe_engine(struct fsr_adapter *adapter, uint32_t engine_id)
{
	enum fsr_engine_type type = adapter->config.engine_types[engine_id];

	/* UMS-04: 3D and compute nodes can take user-mode submission; copy engines cannot. */
	FSR_TRACE(adapter->runtime, fencescope_kmd, engine_describe, adapter->id, engine_id,
		  (int) type, type != FSR_ENGINE_COPY,
		  FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY);
}

/*
 * GPV-04 (CalibrateGpuClock): one CPU sample and the GPU counter at that instant. The CPU side is
 * the trace clock's own raw reading (rt_clock_trace_ns), so that the analyzer converts it to
 * trace time exactly as the tracer converts event timestamps, whatever the clock's origin.
 */
void
kmd_correlate_clock(struct fsr_adapter *adapter, uint64_t cpu_ns)
{
	FSR_TRACE(adapter->runtime, fencescope_kmd, clock_correlation, adapter->id,
		  rt_clock_trace_ns(adapter->runtime, cpu_ns), hw_gpu_ts(adapter, cpu_ns),
		  adapter->config.gpu_ts_frequency_hz);
}

uint64_t
kmd_update_monitored_value(struct fsr_fence *fence, uint64_t monitored_value, uint32_t waiter_count)
{
	uint64_t current_value;

	/*
	 * SYN-01, SYN-04: the new MonitoredValue, then a full barrier, so that any CurrentValue
	 * read after this returns was written by a signal that saw it; then the OS resamples
	 * CurrentValue (SYN-05). With the GPU's own barrier between its CurrentValue write and
	 * its MonitoredValue read (SYN-09), one of the two sides always sees the other's write:
	 * no wake-up is lost (SYN-06).
	 */
	atomic_store_explicit(&fence->monitored_value, monitored_value, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
	current_value = atomic_load_explicit(&fence->current_value, memory_order_seq_cst);
	FSR_TRACE(fence->adapter->runtime, fencescope_kmd, update_monitored_value,
		  fence->adapter->id, fence->global_handle, monitored_value, waiter_count,
		  current_value);
	return current_value;
}

void
kmd_update_current_value(struct fsr_fence *fence, uint64_t value, bool notification_only)
{
	/*
	 * NFV-13: the OS applies a CPU signal through the driver; NFV-01: one 64-bit store. The
	 * event comes first: a user-mode reader of CurrentValue may act on the store at once.
	 */
	FSR_TRACE(fence->adapter->runtime, fencescope_kmd, update_current_value, fence->adapter->id,
		  fence->global_handle, value, notification_only);
	if (!notification_only)
		rt_fence_raise(fence, value);
	/* The command processor rescans its run list for GPU waits it can now release. */
	hw_engine_kick_all(fence->adapter);
}

void
kmd_set_fence_log_buffer(struct os_hwqueue *queue, enum fstp_log_type type)
{
	struct fsr_adapter *adapter = queue->engine->adapter;

	FSR_TRACE(adapter->runtime, fencescope_kmd, set_fence_log_buffer, adapter->id,
		  queue->handle, type, queue->logs[type].capacity, queue->logs[type].generation);
}

void
kmd_update_native_fence_logs(struct os_hwqueue *queue)
{
	(void) queue;
	/* SYN-10: the barrier that makes every entry below FirstFreeEntryIndex visible. */
	atomic_thread_fence(memory_order_seq_cst);
}
