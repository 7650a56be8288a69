/* SPDX-License-Identifier: MIT */
/*
 * The emulated GPU (hw/) as its driver sees it: the functions the KMD calls to program it
 * (the OS's lock held unless stated; each takes the engine's own lock where it touches the
 * engine's state). The GPU calls nothing above the common leaf: it reaches the OS
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
	/*
	 * Realtime: the engine's own state below — its run list and DMA queue, which the KMD
	 * programs (CreateHwQueue, DestroyHwQueue, SubmitCommand), what it is busy with, its
	 * pending interrupts, the GPU state of its queues and their posted log writes — is guarded
	 * by this lock, the engine's register interface, never by the OS's. The engine holds it
	 * for its whole step; the KMD takes it, inside the OS's lock, to program the engine. So
	 * the order is always OS lock, then engine lock; an engine never takes the OS's lock while
	 * holding its own. Sim mode runs one actor at a time and does not take it.
	 */
	pthread_mutex_t lock;
	/*
	 * Realtime: what the engine sent up its line during a step (interrupts and retirement
	 * reports, in order), delivered to the interrupt routine under the OS's lock once the step
	 * has let go of the engine's lock. Sim mode delivers at once and leaves it empty.
	 */
	struct hw_interrupt *outbox_head;
	struct hw_interrupt *outbox_tail;
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
	/*
	 * The fault injector's delayed interrupt (docs/robustness.md): the line holds what goes up
	 * it until held_until_ns, in order. Sim mode only; owned; NULL when nothing is held.
	 */
	struct hw_interrupt *held_head;
	struct hw_interrupt *held_tail;
	uint64_t held_until_ns;
	/* the count of each physical doorbell's rings this engine's command processor has seen */
	uint64_t seen_rings[FSR_MAX_PHYSICAL_DOORBELLS];
	/* user-mode queues on the run list: a polling engine spins only while it has some */
	_Atomic uint32_t user_queue_count;
	/* run-list queues blocked on a GPU wait: realtime, only they need a CurrentValue's kick */
	_Atomic uint32_t blocked_queues;
	/*
	 * F-states (FST-01 to FST-07): the power component as the KMD set it — in F1 the command
	 * processor takes and runs nothing — and the engine's own watch of its idleness: since
	 * when it has had no work at all, and whether it asked for F1 (TRANSITION_TO_F1) since it
	 * last worked. `is_f1_forced`: a test asked for F1 now (fsr_test_engine_request_f1).
	 */
	enum fstp_engine_power fstate;
	bool is_idle_tracked;
	uint64_t idle_since_ns;
	bool is_f1_requested;
	bool is_f1_forced;
	bool has_worked;    /* ran something since the idle watch last looked */
	bool is_stepping;   /* in its step (interleaving may switch it out half way) */
	bool is_device_off; /* the device is in D3 (DST-01): as in F1, nothing taken or run */
	/*
	 * Faults and resets (hw/reset.c; docs/runtime.md "TDR and recovery as built"), engine's
	 * lock. A hung engine's work item in flight never ends and it answers no preemption
	 * request until a reset; `is_hang_armed`: the next work item to start (of the queue
	 * `hang_queue`, any queue when 0) hangs. `is_ignoring_preemption`: the packet in flight
	 * answers a preemption request only at its end; `is_ignore_armed`: the next packet of
	 * `ignore_queue` (any when 0) does. `is_hung_report_pending`: the engine reports
	 * Active->Hung (GPU_ENGINE_STATE_CHANGE) at its next step. `reset_failures`: that many
	 * engine resets fail from now on.
	 */
	bool is_hung;
	bool is_hang_armed;
	fsr_handle hang_queue;
	bool is_ignoring_preemption;
	fsr_handle ignoring_queue; /* whose command buffer ignores it */
	bool is_ignore_armed;
	fsr_handle ignore_queue;
	bool is_hung_report_pending;
	uint32_t reset_failures;
	/*
	 * Preemption (PRE-03, PRE-04, PRE-09; hw/engine.c): the requests the KMD programmed and
	 * not completed yet, the granularity it asked for, and — once the engine has planned the
	 * stop of the work item it is busy with — where it stops (busy_until_ns then is the
	 * boundary) and what is left. busy_start_ns and busy_ticks: the work item in flight.
	 */
	uint64_t preempt_requests[FSR_MAX_PREEMPT_REQUESTS];
	uint32_t preempt_count;
	int preempt_granularity; /* enum fstp_preempt_granularity asked for */
	bool is_preempt_planned;
	bool is_preempt_at_end; /* the boundary is the end of the work item (DMA buffer) */
	int preempt_reached;
	uint64_t preempt_work_left;
	uint64_t busy_start_ns;
	uint64_t busy_ticks;
	/*
	 * PRE-08, PreemptionAware = 0: the queue whose command buffer's next split packet must
	 * run next, back to back (NULL: none); nothing else starts meanwhile.
	 */
	struct os_hwqueue *reserved_for;
	/* PRE-06: a paging packet was preempted: nothing else starts before its remainder. */
	bool is_awaiting_paging;
	/*
	 * MMU-14, TDR-06 (docs/runtime.md "Page faults as built"): an access of the work it
	 * started did not translate. The engine stopped there and runs nothing until a reset
	 * (hw_engine_reset), as a GPU stalled on a fault does; `fault_packet` is the DMA packet
	 * that faulted (owned; NULL for a ring's, whose queue stays faulted, hw_is_faulted).
	 */
	bool is_page_faulted;
	struct hw_dma_packet *fault_packet;
	/* every byte its READ accesses read, summed (tests: fsr_test_engine_read_sum) */
	uint64_t bytes_read_sum;
};

/*
 * A physical doorbell (hw/doorbell.c): the word the UMD stores through its mapping, a ring the
 * command processor has not serviced yet, and the queue the KMD connected to it (dedicated
 * model; the global doorbell has none: every connected queue of the adapter shares it).
 */
struct hw_doorbell {
	struct rt_doorbell_page page; /* rings counted; the engines compare (seen_rings) */
	struct os_hwqueue *owner;
};

/*
 * An emulated display (hw/display.c; PRE-13): a VidPN source that scans out one frame per
 * vsync period and raises the CRTC_VSYNC interrupt at every vertical sync. Its flip register is
 * double-buffered: the driver writes the pending address, which the display latches into the
 * scan-out address at the next vsync only, so the surface never changes during a scan-out.
 */
struct hw_display {
	struct fsr_adapter *adapter;
	uint32_t source_id;
	struct rt_actor actor;
	/*
	 * Realtime: the display's registers below, taken by the KMD (inside the OS's lock) and
	 * by the display's step; never held while the OS's lock is taken. Sim mode does not take
	 * it.
	 */
	pthread_mutex_t lock;
	uint64_t period_ns;
	uint64_t epoch_ns;      /* vsync n is at epoch_ns + n * period_ns */
	uint64_t vsync_count;   /* vertical syncs so far */
	uint64_t pending_flip;  /* the flip register (FlipOnNextVSync), 0 when empty */
	uint64_t scanout_flip;  /* the surface being scanned out, 0: the one at power-up */
	uint64_t scanout_vsync; /* the vsync count when it was latched (the frame it tore in) */
	/* The no-tearing watch: frames whose scan-out saw the surface change (never, unless a
	 * driver flips immediately), and the flips latched at a vsync. */
	uint64_t torn_frames;
	uint64_t torn_vsync; /* the vsync count of the last torn frame, to count each once */
	bool is_torn_counted;
	uint64_t flips_latched;
};

/* The GPU of an adapter: its engines, its interrupt line and its physical doorbells. */
struct hw_gpu {
	struct hw_display displays[FSR_MAX_DISPLAYS];
	struct hw_engine engines[FSR_MAX_ENGINES];
	struct hw_line line;
	struct hw_doorbell doorbells[FSR_MAX_PHYSICAL_DOORBELLS];
	struct rt_actor *engine_actors[FSR_MAX_ENGINES]; /* whom a physical doorbell wakes */
	/*
	 * Realtime: guards the doorbells' owners, taken after an engine's lock (the KMD and the
	 * engines alike), so a ring is serviced with the owner of that instant. A leaf lock.
	 */
	pthread_mutex_t doorbell_lock;
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
/* SuspendContext / ResumeContext of one queue (SUS-01, SUS-04, SUS-05; takes the engine's lock). */
void hw_engine_suspend_queue(struct hw_engine *engine, struct os_hwqueue *queue);
void hw_engine_resume_queue(struct hw_engine *engine, struct os_hwqueue *queue);
/* The command processor takes `queue`'s write pointer (engine's lock held; ring_fetch). */
void hw_engine_take_write_ptr(struct hw_engine *engine, struct os_hwqueue *queue);
bool hw_engine_is_idle(struct hw_engine *engine);
/*
 * PRE-03, PRE-04 (the KMD's DxgkDdiPreemptCommand): programs preemption request `request_id`
 * at `granularity` (an enum fstp_preempt_granularity; takes the engine's lock) and kicks the
 * engine, which stops the work item it runs at the next boundary the granularity allows,
 * saves what is left of it (a ring's WORK packet resumes with it, a DMA packet goes back to
 * the OS), fires packet_end PREEMPTED and preempt_complete, and raises DMA_PREEMPTED. Nothing
 * running: it completes at once (granularity NONE). Returns the handle of the context it runs
 * (0: none). Exported for faulty conformance drivers (a coarser granularity than declared).
 */
FSR_TEST_API fsr_handle hw_engine_preempt(struct hw_engine *engine, uint64_t request_id,
					  int granularity);
/* PRE-15: the context's priority in the run list (takes the engine's lock). */
void hw_engine_set_context_priority(struct hw_engine *engine, struct os_context *context,
				    uint32_t priority);
/* The context of the work the engine runs now, NULL if none (takes the engine's lock). */
struct os_context *hw_engine_running_context(struct hw_engine *engine);
/* The ticks between two boundaries of `granularity` in a WORK packet (0: only at its end). */
uint64_t hw_preempt_boundary_ticks(int granularity);
/*
 * FST-04, FST-06 (the KMD's DxgkDdiSetPowerComponentFState): the engine's power component, as
 * told. In F1 the command processor takes no write pointer and runs nothing, whatever it held;
 * back in F0 it runs again and its idle watch starts over. Exported for a faulty conformance
 * driver that powers down too early (FST-04).
 */
FSR_TEST_API void hw_engine_set_fstate(struct hw_engine *engine, enum fstp_engine_power fstate);
/*
 * F1 only if the engine has no work at all and polls no queue (engine's lock: never mid-step);
 * false, and it stays in F0 and will ask again, otherwise. True when it already is in F1.
 */
bool hw_engine_power_down_if_idle(struct hw_engine *engine);
/* DST-01, DST-05 (the KMD's DxgkDdiSetPowerState): every engine off in D3, on again in D0. */
void hw_gpu_set_dstate(struct fsr_adapter *adapter, enum fstp_device_power dstate);
/* Whether the engine's command processor is off: its F1, or the device's D3 (engine's lock). */
static inline bool
hw_engine_is_off(const struct hw_engine *engine)
{
	return engine->fstate == FSTP_ENGINE_POWER_F1 || engine->is_device_off;
}
/* The GPU's write of one log entry at the UMD's index (LOG-12), then its own increment of
 * FirstFreeEntryIndex and, at the capacity, WraparoundCount (LOG-14, LOG-16). */
void hw_fence_log_write(struct fsr_runtime *runtime, struct hw_fence_log *log, uint32_t index,
			const struct hw_log_entry *entry);
/*
 * The fault injector's LOG_OVERRUN_STORM (docs/robustness.md), after the GPU wrote entry `index`
 * of `queue`'s log of `type`: a runaway log writer writes k times the capacity of filler entries
 * naming no fence after it, so that the OS's next read finds an overrun (LOG-17, LOG-18). A
 * whole number of capacities keeps the UMD's entry indexes and the header's positions in step.
 */
void hw_fence_log_storm(struct os_hwqueue *queue, enum fstp_log_type type, uint32_t index,
			uint64_t gpu_ts);
/* The GPU's posted entry writes to both logs of `queue` become visible (SYN-10); takes the
 * engine's lock. */
void hw_fence_logs_flush(struct os_hwqueue *queue);
/*
 * Programs the log buffer `log` (allocated by the OS) as `queue`'s log of `type` (LOG-03, LOG-04):
 * with the engine's lock held, so that no step of the engine is half way through the old one,
 * which comes back in *log for the OS to free.
 */
void hw_fence_log_install(struct os_hwqueue *queue, enum fstp_log_type type,
			  struct hw_fence_log *log);
/*
 * Doorbells (hw/doorbell.c), called by the KMD with the OS's lock held. Connect: the physical
 * doorbell serves `queue` from now on (dedicated; the global one serves every connected queue)
 * and the command processor takes the queue's write pointer at once (UMS-15). Disconnect: it
 * takes the write pointer first — a ring that landed but was not serviced is not lost — then
 * forgets the owner. Notify: NotifyWorkSubmission's fetch (CONNECTED_NOTIFY_KMD).
 */
/* The physical doorbells' pages, each waking every engine (after hw_init). */
void hw_doorbells_init(struct fsr_adapter *adapter);
/* Physical doorbell k's page, which the OS maps for a connected queue. */
struct rt_doorbell_page *hw_doorbell_page(struct fsr_adapter *adapter, uint32_t physical);
/* Exported for a faulty conformance driver that connects in the wrong order (UMS-23). */
FSR_TEST_API void hw_doorbell_connect(struct fsr_adapter *adapter, uint32_t physical,
				      struct os_hwqueue *queue, bool is_notify_kmd);
void hw_doorbell_disconnect(struct fsr_adapter *adapter, uint32_t physical,
			    struct os_hwqueue *queue);
void hw_doorbell_notify(struct fsr_adapter *adapter, struct os_hwqueue *queue);
/* The physical doorbell's owner now (tests' invariant checks; doorbell lock taken). */
struct os_hwqueue *hw_doorbell_owner(struct fsr_adapter *adapter, uint32_t physical);
/*
 * In an engine's step (engine's lock held): the rings that landed since the last look, each
 * serviced with the physical doorbell's owner of that instant (UMS-20), or, on the global
 * doorbell, by taking the write pointer of every connected queue of the engine (UMS-18).
 */
void hw_engine_take_rings(struct hw_engine *engine);
/*
 * Has a physical doorbell rung since hw_engine_take_rings last looked? Relaxed loads of the
 * ring counts only: a polling engine's look between steps (its own thread, no lock) and the
 * idle query's (engine's lock held).
 */
bool hw_engine_doorbells_rang(struct hw_engine *engine);
/*
 * Faults and resets (hw/reset.c). A hung engine's command processor spins: it steps every
 * HW_HANG_SPIN_NS looking at its registers (a preemption request it never answers, a reset)
 * and never ends the work in flight, so that the runtime is not idle while it hangs.
 */
#define HW_HANG_SPIN_NS UINT64_C(1000000)
/*
 * A work item (a ring's HW_PACKET_WORK, or `packet`, a kernel-mode DMA packet) starts on the
 * engine (engine's lock held): it hangs if a hang is armed for it (busy_until_ns never comes).
 */
void hw_engine_work_started(struct hw_engine *engine, struct os_hwqueue *queue,
			    struct hw_dma_packet *packet);
/* A command buffer of `queue` starts (its BEGIN, or a DMA packet): an armed "ignores preemption".
 */
void hw_engine_packet_started(struct hw_engine *engine, struct os_hwqueue *queue);
/* Whether the work item in flight belongs to a command buffer that ignores preemption. */
bool hw_engine_is_ignoring_preemption(const struct hw_engine *engine);
/*
 * TDR-06 (the KMD's DxgkDdiResetEngine): aborts the work in flight (packet_end ABORTED) and
 * clears any hang; false when the reset fails (an injected failure: nothing changes). A ring
 * work item that was aborted is not consumed: its queue runs it again from its start when it
 * runs again (a fresh packet_start). The DMA packet in flight, if any, comes back in *aborted
 * (NULL if none), for the OS to drop or resubmit.
 */
bool hw_engine_reset(struct hw_engine *engine, struct hw_dma_packet **aborted);
/*
 * MMU-14 (hw/access.c): runs one memory access (a HW_PACKET_ACCESS) of `context`'s work
 * through the context's page tables, as the engine does: every page of the range is
 * translated first, and only if all translate do bytes move (a write stores its value in every
 * byte, a read reads them). False when a page did not translate: *fault_va is the first byte
 * of the range on that page and *fault_type an enum fstp_fault_type; nothing was written.
 * Engine's lock held.
 */
bool hw_access_run(struct hw_engine *engine, struct os_context *context,
		   const struct hw_packet *access, uint64_t *fault_va, int *fault_type);
/*
 * Displays (hw/display.c), PRE-13. Init: after hw_init, display_count of them, idle. Start (lock
 * NOT held): each joins the clock, its vsyncs counted from now. Fini: before hw_fini.
 */
void hw_displays_init(struct fsr_adapter *adapter);
void hw_displays_start(struct fsr_adapter *adapter);
void hw_displays_fini(struct fsr_adapter *adapter);
/*
 * The driver's MMIO flip on the next vsync (OS lock held): the flip register takes `flip_id`,
 * which the display latches at its next vertical sync, never sooner. A flip still pending is
 * replaced (the reference OS programs one at a time).
 */
void hw_display_program_flip(struct hw_display *display, uint64_t flip_id);
/*
 * The scan-out address changes at once, mid-frame: a tear, which the display counts. No
 * driver of the model's may do this on a FlipOnVSyncMmIo display; exported for the faulty
 * conformance driver that does (PRE-13).
 */
FSR_TEST_API void hw_display_flip_immediate(struct hw_display *display, uint64_t flip_id);

/*
 * The GPU's MMU (hw/mmu.c; spec 004, MMU-01, MMU-03, MMU-12; docs/runtime.md "GpuMmu as
 * built"). Its page table format, which the KMD writes (DxgkDdiUpdatePageTable) and the OS
 * never reads: a 40-bit GPU VA, three levels, every entry a 64-bit word read atomically.
 *  - level 0, the root, resizable: up to 1024 entries, each spanning 1 GiB (VA bits 30..39),
 *    naming a directory;
 *  - level 1, a directory, 512 entries of 2 MiB (bits 21..29); each entry is two words (a dual
 *    PDE): word 0 names the leaf table of 4 KB pages, word 1 the one of 64 KB pages;
 *  - level 2, a leaf table: 512 entries of 4 KB pages (bits 12..20), or 32 entries of 64 KB
 *    pages (bits 16..20).
 * An entry word is the host address of its table or page (4 KB aligned; 64 KB for a 64 KB page)
 * with HW_PTE_VALID and, in a leaf, HW_PTE_READ_ONLY in its low bits; all-zero is invalid.
 * The MMU walks the 64 KB leaf of a span first, then the 4 KB one.
 */
#define HW_MMU_VA_BITS           40
#define HW_MMU_LEVELS            3
#define HW_MMU_ROOT_SHIFT        30
#define HW_MMU_ROOT_INDEX_BITS   10
#define HW_MMU_DIR_SHIFT         21
#define HW_MMU_DIR_INDEX_BITS    9
#define HW_MMU_LEAF_SHIFT        12
#define HW_MMU_LEAF_INDEX_BITS   9
#define HW_MMU_LEAF64_SHIFT      16
#define HW_MMU_LEAF64_INDEX_BITS 5
#define HW_MMU_TABLE_ALIGN       4096u
#define HW_PDE_WORDS             2 /* a directory entry: [0] 4 KB leaf, [1] 64 KB leaf */
#define HW_PTE_VALID             UINT64_C(1)
#define HW_PTE_READ_ONLY         UINT64_C(2)
#define HW_PTE_ADDRESS_MASK      (~UINT64_C(0xfff))
/* The root register a context is programmed with: the root's address | (its entries - 1). */
#define HW_MMU_ROOT_COUNT_MASK UINT64_C(0xfff)

static inline uint64_t
hw_mmu_root_register(const void *root, uint32_t entry_count)
{
	return root ? (uint64_t) (uintptr_t) root | (uint64_t) (entry_count - 1) : 0;
}

/*
 * The MMU's walk of one access (MMU-01, MMU-03, MMU-14): translates `va` through the page
 * tables the root register `root_register` names (the KMD programmed it into the context,
 * os_context.hw_root_page_table: load it with memory_order_acquire), for an access of kind
 * `access`. True: *host_ptr is the byte `va` names (the access may touch the rest of its page,
 * no further). False: a page fault, *fault_type NOT_MAPPED (no valid entry on the way: no VA
 * space, out of the root, an invalid directory or page entry) or READ_ONLY (a write through a
 * read-only page). Reads only the table words (atomics), never the OS's structures. Called by
 * an engine within its step, engine's lock held, and the access it translates must end within
 * the same step: DxgkDdiFlushTlb (hw_mmu_flush) relies on it. Takes no lock; `adapter` is
 * the GPU whose MMU walks (unused by the reference walker beyond checks).
 */
bool hw_mmu_translate(struct fsr_adapter *adapter, uint64_t root_register, uint64_t va,
		      enum fstp_access_kind access, void **host_ptr,
		      enum fstp_fault_type *fault_type);
/*
 * The TLB flush (DxgkDdiFlushTlb): takes and lets go of every engine's lock, so that every
 * access that translated before it has completed when it returns (realtime; nothing in sim).
 */
void hw_mmu_flush(struct fsr_adapter *adapter);

/* The engine's lock (realtime only; see struct hw_engine). */
static inline void
hw_engine_lock(struct hw_engine *engine)
{
	if (rt_gpu_is_concurrent(engine->adapter->runtime))
		pthread_mutex_lock(&engine->lock);
}

static inline void
hw_engine_unlock(struct hw_engine *engine)
{
	if (rt_gpu_is_concurrent(engine->adapter->runtime))
		pthread_mutex_unlock(&engine->lock);
}

#endif /* FENCESCOPE_RUNTIME_HW_PRIVATE_H */
