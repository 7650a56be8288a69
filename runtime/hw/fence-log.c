/* SPDX-License-Identifier: MIT */
/*
 * Native fence log buffers as the emulated GPU writes them (LOG-06 to LOG-16): the entry at
 * the index the UMD programmed, then the header's FirstFreeEntryIndex, wrapping to 0 and
 * incrementing WraparoundCount at the capacity. The GPU never waits for the reader (LOG-16):
 * an entry the OS has not read yet is simply overwritten. The OS allocates the memory
 * (rt_fence_log_alloc) and reads it (os/log-reader.c).
 */
#include "hw/hw-private.h"

void
hw_fence_log_write(struct hw_fence_log *log, uint32_t index, const struct hw_log_entry *entry)
{
	uint64_t header = atomic_load_explicit(&log->header, memory_order_relaxed);
	uint64_t wraparound_count = header >> 32;

	index %= log->capacity;
	log->entries[index] = *entry;
	/* LOG-14: every entry written moves FirstFreeEntryIndex; LOG-16: wrapping counts. */
	if (index + 1 == log->capacity) {
		wraparound_count++;
		index = 0;
	} else {
		index++;
	}
	/* Release: a reader that sees the new index sees the entry (SYN-09's barrier). */
	atomic_store_explicit(&log->header, (wraparound_count << 32) | index, memory_order_release);
}
