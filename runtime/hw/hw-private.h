/* SPDX-License-Identifier: MIT */
/*
 * The emulated GPU (hw/) as its driver sees it: the functions the KMD calls to program it
 * (lock held unless stated). The GPU calls nothing above the common leaf: it reaches the OS
 * only by raising its interrupt line (struct hw_line, connected by the KMD).
 */
#ifndef FENCESCOPE_RUNTIME_HW_PRIVATE_H
#define FENCESCOPE_RUNTIME_HW_PRIVATE_H

#include "common/common-private.h"

/*
 * The GPU's interrupt line, connected by the KMD (DxgkDdiStartDevice) to the interrupt routine
 * the OS handed it (DxgkDdiInterruptRoutine of the adapter's DDI table). The GPU reaches
 * nothing above it but through this line.
 */
struct hw_line {
	void (*raise)(void *context, struct hw_interrupt *interrupt);
	void *context;
};

struct hw_engine {
	struct fsr_adapter *adapter;
	uint32_t id;
	enum fsr_engine_type type;
	struct rt_actor actor;
	struct os_hwqueue *run_list; /* user-mode queues on this engine */
	struct os_hwqueue *cursor;   /* round robin: next queue to look at */
	struct hw_dma_packet *dma_head;
	struct hw_dma_packet *dma_tail;
	/* what it is busy with until busy_until_ns */
	bool is_busy;
	uint64_t busy_until_ns;
	struct os_hwqueue *busy_queue;     /* user-mode work: its queue, NULL if abandoned */
	struct os_hwqueue *running_queue;  /* the queue run_queue is in (interleaving: checked) */
	struct hw_dma_packet *busy_packet; /* kernel-mode DMA packet */
	bool prefer_dma;
	/*
	 * The native fence signaled interrupt pending on the line until pending_due_ns, which
	 * later signals join (interrupt_coalesce_ns of the adapter). Owned until it goes up the
	 * line; NULL when none is pending.
	 */
	struct hw_interrupt *pending;
	uint64_t pending_due_ns;
};

/* The GPU of an adapter: its engines and its interrupt line. */
struct hw_gpu {
	struct hw_engine engines[FSR_MAX_ENGINES];
	struct hw_line line;
};

/* The GPU timestamp counter at CPU time cpu_ns, and GPU ticks in ns (with drift). */
uint64_t hw_gpu_ts(struct fsr_adapter *adapter, uint64_t cpu_ns);
uint64_t hw_ticks_to_ns(struct fsr_adapter *adapter, uint64_t ticks);
/* Power-up: every engine of the adapter, idle, its line not connected yet; -1 without memory. */
int hw_init(struct fsr_adapter *adapter);
/* Connects the interrupt line and lets the engines run (they join the clock; lock NOT held). */
void hw_start(struct fsr_adapter *adapter, const struct hw_line *line);
/* Engines stopped: frees the DMA packets the engines still hold, and the GPU (lock NOT held). */
void hw_fini(struct fsr_adapter *adapter);
/* The command processor rescans its run lists (a CurrentValue moved). */
void hw_engine_kick_all(struct fsr_adapter *adapter);
void hw_engine_add_queue(struct hw_engine *engine, struct os_hwqueue *queue);
void hw_engine_remove_queue(struct hw_engine *engine, struct os_hwqueue *queue);
void hw_engine_push_dma(struct hw_engine *engine, struct hw_dma_packet *packet);
bool hw_engine_is_idle(struct hw_engine *engine);
/* The GPU's write of one log entry at the UMD's index (LOG-12), then its own increment of
 * FirstFreeEntryIndex and, at the capacity, WraparoundCount (LOG-14, LOG-16). */
void hw_fence_log_write(struct fsr_runtime *runtime, struct hw_fence_log *log, uint32_t index,
			const struct hw_log_entry *entry);
/* The GPU's posted entry writes to both logs of `queue` become visible (SYN-10). */
void hw_fence_logs_flush(struct os_hwqueue *queue);

#endif /* FENCESCOPE_RUNTIME_HW_PRIVATE_H */
