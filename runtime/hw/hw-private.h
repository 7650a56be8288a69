/* SPDX-License-Identifier: MIT */
/*
 * The emulated GPU (hw/) as its driver sees it: the functions the KMD calls to program it
 * (lock held unless stated). The GPU calls nothing above the common leaf: it reaches the OS
 * only by raising its interrupt line (struct hw_line, connected by the KMD).
 */
#ifndef FENCESCOPE_RUNTIME_HW_PRIVATE_H
#define FENCESCOPE_RUNTIME_HW_PRIVATE_H

#include "common/common.h"

/* The GPU timestamp counter at CPU time cpu_ns, and GPU ticks in ns (with drift). */
uint64_t hw_gpu_ts(struct fsr_adapter *adapter, uint64_t cpu_ns);
uint64_t hw_ticks_to_ns(struct fsr_adapter *adapter, uint64_t ticks);
/* Power-up: every engine of the adapter, idle, its line not connected yet. */
void hw_init(struct fsr_adapter *adapter);
/* Connects the interrupt line and lets the engines run (they join the clock; lock NOT held). */
void hw_start(struct fsr_adapter *adapter, const struct hw_line *line);
/* Engines stopped: frees the DMA packets the engines still hold (lock NOT held). */
void hw_fini(struct fsr_adapter *adapter);
/* The command processor rescans its run lists (a CurrentValue moved). */
void hw_engine_kick_all(struct fsr_adapter *adapter);
void hw_engine_add_queue(struct hw_engine *engine, struct os_hwqueue *queue);
void hw_engine_remove_queue(struct hw_engine *engine, struct os_hwqueue *queue);
void hw_engine_push_dma(struct hw_engine *engine, struct hw_dma_packet *packet);
bool hw_engine_is_idle(struct hw_engine *engine);
/* The GPU's write of one log entry and FirstFreeEntryIndex (LOG-06..LOG-16). */
void hw_fence_log_write(struct hw_fence_log *log, uint32_t index, const struct hw_log_entry *entry);

#endif /* FENCESCOPE_RUNTIME_HW_PRIVATE_H */
