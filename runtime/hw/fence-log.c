/* SPDX-License-Identifier: MIT */
/*
 * Native fence log buffers as the emulated GPU writes them (LOG-06 to LOG-16): the payload goes
 * to the entry the UMD programmed into the LOG instruction (LOG-12: the UMD, which cannot read
 * the log, decides the entry), and then the GPU increments the header's FirstFreeEntryIndex
 * itself, by one per entry written (LOG-14), wrapping to 0 and incrementing WraparoundCount at
 * the capacity (LOG-16) — spec 001: "When the GPU writes to the log buffer, it increments the
 * FirstFreeEntryIndex value in the log header." The header never takes the UMD's index: a UMD
 * that skips or repeats entries breaks LOG-13 ("UMD must ensure that writes to log entries are
 * monotonically increasing"), and the OS, which reads the entries below FirstFreeEntryIndex,
 * then reads what the GPU left there. The GPU never waits for the reader (LOG-16): an entry the
 * OS has not read yet is simply overwritten. Entry writes are posted (SYN-10, docs/runtime.md
 * "Fence logs"): visible after a GPU barrier or the driver's UpdateNativeFenceLogs; the header
 * store is not. The OS allocates the memory (rt_fence_log_alloc) and reads it
 * (os/log-reader.c).
 */
#include "common/fault-private.h"
#include "hw/hw-private.h"

void
hw_fence_log_write(struct fsr_runtime *runtime, struct hw_fence_log *log, uint32_t index,
		   const struct hw_log_entry *entry)
{
	uint64_t header =
	    rt_word_load(runtime, &log->header, memory_order_relaxed, RT_POINT_GPU_READ_LOG_HEADER);
	uint32_t first_free = (uint32_t) header;
	uint64_t wraparound_count = header >> 32;

	/* Posted: the CPU sees it after a GPU barrier or UpdateNativeFenceLogs (SYN-10). */
	rt_log_entry_post(runtime, log, index % log->capacity, entry);
	/* LOG-14: every entry written moves FirstFreeEntryIndex on by one; LOG-16: wrapping
	 * counts. Only the GPU writes the header, so a plain read-modify-write is enough. */
	if (first_free + 1 >= log->capacity) {
		wraparound_count++;
		first_free = 0;
	} else {
		first_free++;
	}
	/*
	 * Release orders the GPU's own stores, but the entry may still be posted: a reader that
	 * sees the new index sees the entry only after the driver's barrier (SYN-10).
	 */
	rt_word_store(runtime, &log->header, (wraparound_count << 32) | first_free,
		      memory_order_release, RT_POINT_GPU_WRITE_LOG_HEADER);
}

void
hw_fence_log_storm(struct os_hwqueue *queue, enum fstp_log_type type, uint32_t index,
		   uint64_t gpu_ts)
{
	struct fsr_runtime *runtime = queue->adapter->runtime;
	struct hw_fence_log *log = &queue->logs[type];
	const struct hw_log_entry filler = {.end_gpu_ts = gpu_ts};
	uint64_t capacities;
	uint64_t count;

	if (!rt_fault_take(runtime, FSR_FAULT_LOG_OVERRUN_STORM, queue->adapter->id,
			   queue->engine_id, queue->handle, &capacities))
		return;
	count = capacities * log->capacity;
	rt_fault_fired(runtime, FSR_FAULT_LOG_OVERRUN_STORM, queue->adapter->id, queue->engine_id,
		       queue->handle, count);
	for (uint64_t i = 1; i <= count; i++)
		hw_fence_log_write(runtime, log, (uint32_t) ((index + i) % log->capacity), &filler);
}

static struct hw_engine *
engine_of_queue(struct os_hwqueue *queue)
{
	return &queue->adapter->gpu->engines[queue->engine_id];
}

void
hw_fence_logs_flush(struct os_hwqueue *queue)
{
	struct hw_engine *engine = engine_of_queue(queue);

	/* The posted writes are the engine's: its lock, as the KMD programs it. */
	hw_engine_lock(engine);
	rt_fence_log_flush(&queue->logs[FSTP_LOG_TYPE_WAITS]);
	rt_fence_log_flush(&queue->logs[FSTP_LOG_TYPE_SIGNALS]);
	hw_engine_unlock(engine);
}

void
hw_fence_log_install(struct os_hwqueue *queue, enum fstp_log_type type, struct hw_fence_log *log)
{
	struct hw_engine *engine = engine_of_queue(queue);
	struct hw_fence_log *slot = &queue->logs[type];
	struct hw_fence_log old;

	/* No step of the engine is half way through the old log while it changes. */
	hw_engine_lock(engine);
	rt_fence_log_flush(slot); /* what was posted lands in the memory the OS reads last */
	old = *slot;
	*slot = *log;
	*log = old;
	hw_engine_unlock(engine);
}
