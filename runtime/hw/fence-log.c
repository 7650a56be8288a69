/* SPDX-License-Identifier: MIT */
/*
 * Native fence log buffers as the emulated GPU writes them (LOG-06 to LOG-16): the entry at
 * the index the UMD programmed, then the header's FirstFreeEntryIndex, wrapping to 0 and
 * incrementing WraparoundCount at the capacity. The GPU never waits for the reader (LOG-16):
 * an entry the OS has not read yet is simply overwritten. Entry writes are posted (SYN-10,
 * docs/runtime.md "Fence logs"): visible after a GPU barrier or the driver's
 * UpdateNativeFenceLogs; the header store is not. The OS allocates the memory
 * (rt_fence_log_alloc) and reads it (os/log-reader.c).
 */
#include "hw/hw-private.h"

void
hw_fence_log_write(struct fsr_runtime *runtime, struct hw_fence_log *log, uint32_t index,
		   const struct hw_log_entry *entry)
{
	uint64_t header =
	    rt_word_load(runtime, &log->header, memory_order_relaxed, RT_POINT_GPU_READ_LOG_HEADER);
	uint64_t wraparound_count = header >> 32;

	index %= log->capacity;
	/* Posted: the CPU sees it after a GPU barrier or UpdateNativeFenceLogs (SYN-10). */
	rt_log_entry_post(runtime, log, index, entry);
	/* LOG-14: every entry written moves FirstFreeEntryIndex; LOG-16: wrapping counts. */
	if (index + 1 == log->capacity) {
		wraparound_count++;
		index = 0;
	} else {
		index++;
	}
	/*
	 * Release orders the GPU's own stores, but the entry may still be posted: a reader that
	 * sees the new index sees the entry only after the driver's barrier (SYN-10).
	 */
	rt_word_store(runtime, &log->header, (wraparound_count << 32) | index, memory_order_release,
		      RT_POINT_GPU_WRITE_LOG_HEADER);
}

void
hw_fence_logs_flush(struct os_hwqueue *queue)
{
	rt_fence_log_flush(&queue->logs[FSTP_LOG_TYPE_WAITS]);
	rt_fence_log_flush(&queue->logs[FSTP_LOG_TYPE_SIGNALS]);
}
