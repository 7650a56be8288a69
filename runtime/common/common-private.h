/* SPDX-License-Identifier: MIT */
/*
 * The leaf every layer of the runtime shares (hw/, kmd/, os/, umd/ and runtime.c): the clock and
 * its actors, handles, refusals, tracing (common/trace-private.h), the handle map
 * (common/map-private.h), the words of memory the spec shares between the CPU and the GPU, and the
 * object model the layers hand each other by pointer. Its functions (the .c files of common/) call
 * nothing above it (tests/layers checks that on the built objects).
 *
 * One lock, `runtime->lock`, stands for the OS's device interrupt level (SYN-03): every model
 * structure below is read and written with it held, by API calls, by the OS actor and (except
 * with sim-mode interleaving, common/interleave.c) by the engines. The words the spec shares
 * between the CPU and the GPU (CurrentValue, MonitoredValue, ring slots and pointers, log
 * entries and headers, LastQueuedValue) are reached only through the accessors below, C11
 * atomics with the orderings the spec asks for, because user mode reads some of them without
 * the lock (NFV-02, NFV-07) and the GPU is not at the OS's interrupt level.
 *
 * Layer prefixes: hw_ (emulated GPU, hw/hw-private.h), kmd_ and the DxgkDdi* / DxgkCb* tables
 * (kmd/kmd-private.h, common/driver-interface-private.h), os_ (graphics kernel, os/os-private.h),
 * umd_ (user-mode driver); rt_ for this leaf.
 */
#ifndef FENCESCOPE_RUNTIME_COMMON_H
#define FENCESCOPE_RUNTIME_COMMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fencescope/runtime.h>

#include "common/map-private.h"
#include "common/trace-private.h"
#include "common/driver-interface-private.h"

#define FSR_NEVER            UINT64_MAX
#define FSR_MAX_ADAPTERS     8
#define FSR_LOG_ENTRY_BYTES  32
#define FSR_DEFAULT_LOG_SIZE 4096
#define FSR_MIN_GPU_HZ       UINT64_C(1000)
#define FSR_MAX_GPU_HZ       UINT64_C(100000000000)
#define FSR_TRACING_LOG_GROW 16 /* LOG-20: the factor the OS grows logs by when tracing */

/* Exported from the library for tests, declared by no installed header: not public API. */
#define FSR_TEST_API __attribute__((visibility("default")))
#include "test-api/fencescope-test.h" /* declared there, so that the definitions are checked against it */

#ifndef NDEBUG
#define FSR_ASSERT_PRE(id, cond)                                                                   \
	do {                                                                                       \
		if (!(cond))                                                                       \
			rt_abort_precondition(id, #cond, __FILE__, __LINE__);                      \
	} while (0)
#else
/* Not evaluated, but its operands count as used (a release build warns of none unused). */
#define FSR_ASSERT_PRE(id, cond) ((void) sizeof(cond))
#endif
_Noreturn void rt_abort_precondition(const char *id, const char *cond, const char *file, int line);

/* ---- clock and actors ------------------------------------------------------------------- */

/*
 * An actor is a state machine of the model (an engine, the OS). Its step runs without the
 * runtime lock held, does what is due at `now_ns`, and returns when it wants to run again
 * (FSR_NEVER: only when kicked). A step that sets `next_is_weak` says its next wake-up is
 * housekeeping (periodic log reads, clock correlation) that does not keep the runtime busy.
 */
enum rt_poll {
	RT_POLL_SLEEP, /* nothing to watch: sleep until kicked or due */
	RT_POLL_SPIN,  /* nothing yet: look again */
	RT_POLL_WORK,  /* something to do: step now */
};

struct rt_actor {
	const char *name;
	char label[16]; /* unique in the runtime: "os", "engine0", ... (interleaving scripts) */
	uint64_t (*step)(struct rt_actor *actor, uint64_t now_ns);
	struct fsr_runtime *runtime;
	bool next_is_weak;
	/* sim: the one valid timer of this actor */
	bool is_scheduled;
	bool is_scheduled_weak;
	uint64_t due_ns;
	uint64_t generation;
	/* realtime */
	pthread_t thread;
	bool has_thread;
	_Atomic uint32_t kick;
	_Atomic uint32_t is_sleeping; /* in futex_wait (or about to be): a kick must wake it */
	/*
	 * Nullable: in realtime a doorbell ring (rt_doorbell_page_store) does not kick this actor
	 * while the word is 0 (an engine with no user-mode queue has nothing to take from a ring).
	 */
	_Atomic uint32_t *ring_interest;
	/*
	 * Realtime, nullable: instead of sleeping until its next due time or a kick, the actor's
	 * thread spins while this says RT_POLL_SPIN, and steps again as soon as it says
	 * RT_POLL_WORK (a polling command processor: the engine's doorbells). RT_POLL_SLEEP: sleep
	 * as usual. Called on the actor's own thread, between its steps, with no lock held.
	 */
	enum rt_poll (*poll)(struct rt_actor *actor);
};

struct rt_timer {
	uint64_t due_ns;
	uint64_t seq;
	uint64_t generation;
	struct rt_actor *actor;
};

/* Every engine and display of every adapter, and the OS. */
#define RT_MAX_ACTORS (FSR_MAX_ADAPTERS * (FSR_MAX_ENGINES + FSR_MAX_DISPLAYS) + 1)

struct rt_clock {
	enum fsr_clock_mode mode;
	/* sim */
	uint64_t now_ns;
	_Atomic uint64_t *trace_clock; /* the sim clock plugin's shared word, if recording */
	struct rt_timer *heap;
	size_t heap_count;
	size_t heap_capacity;
	uint64_t seq;
	size_t strong_count; /* actors whose valid timer is not weak */
	bool is_stepping;
	/*
	 * Sim: runs the step rt_clock_step chose, when set: the interleaving scheduler
	 * (common/interleave.c) runs it on the actor's own thread. NULL: rt_clock_run_actor.
	 */
	void (*run_step)(struct fsr_runtime *runtime, struct rt_actor *actor);
	/* Run after every step, lock not held: the OS's callbacks of ended waits
	 * (os_run_callbacks). */
	void (*after_step)(struct fsr_runtime *runtime);
	/* Steps run, in both modes; counted apart from stats so realtime steps take no lock. */
	_Atomic uint64_t steps;
	/* realtime */
	_Atomic bool is_running;
	struct rt_actor *actors[RT_MAX_ACTORS];
	size_t actor_count;
};

void rt_clock_init(struct rt_clock *clock, enum fsr_clock_mode mode);
void rt_clock_fini(struct rt_clock *clock);
void rt_clock_add_actor(struct fsr_runtime *runtime, struct rt_actor *actor);
fsr_status rt_clock_start(struct fsr_runtime *runtime);
void rt_clock_stop(struct fsr_runtime *runtime);
uint64_t rt_clock_now(struct fsr_runtime *runtime);
/*
 * What the trace clock reads at runtime time `now_ns`, on its own raw scale (docs/trace-format.md,
 * clock_correlation.cpu_ts_ns): in realtime `now_ns` itself (CLOCK_MONOTONIC, LTTng's default
 * clock); in sim the shared word the clock plugin reads, when this process records through it.
 */
uint64_t rt_clock_trace_ns(struct fsr_runtime *runtime, uint64_t now_ns);
/*
 * Sim mode recording through the sim clock plugin: the event just fired took the instant
 * now_ns, so virtual time moves on by one nanosecond and the next event gets another. Called by
 * FSR_TRACE only when clock->trace_clock is set.
 */
void rt_clock_tick_after_event(struct rt_clock *clock);
/* Runs `actor` at `at_ns` at the latest (now if in the past). Any thread, lock held or not. */
void rt_clock_kick(struct fsr_runtime *runtime, struct rt_actor *actor, uint64_t at_ns);
/* As rt_clock_kick, for housekeeping that does not keep the runtime busy. */
void rt_clock_kick_weak(struct fsr_runtime *runtime, struct rt_actor *actor, uint64_t at_ns);
/* Sim: runs one step; false when no timer is left. */
bool rt_clock_step(struct fsr_runtime *runtime);
/*
 * Sim: runs one step of `actor` at the current instant and schedules what it asks for next
 * (no after_step): what rt_clock_step does once it has chosen the actor. The interleaving
 * scheduler (common/interleave.c) calls it on the actor's own thread.
 */
void rt_clock_run_actor(struct fsr_runtime *runtime, struct rt_actor *actor);
/* Sim: if `actor` has a timer due now, consumes it (its step is about to run); else nothing. */
void rt_clock_take_due(struct fsr_runtime *runtime, struct rt_actor *actor);
/*
 * Blocks the caller (lock not held) until *done is non-zero or `deadline_ns`: sim mode runs
 * the loop meanwhile. Returns FSR_OK, FSR_ERR_TIMEOUT, or (sim) FSR_ERR_BAD_STATE when only
 * housekeeping is left to run.
 */
fsr_status rt_clock_block(struct fsr_runtime *runtime, _Atomic uint32_t *done,
			  uint64_t deadline_ns);
void rt_clock_wake(_Atomic uint32_t *done);

/* ---- objects ----------------------------------------------------------------------------- */

enum rt_object_type {
	RT_OBJECT_DEVICE = 1,
	RT_OBJECT_CONTEXT,
	RT_OBJECT_HWQUEUE,
	RT_OBJECT_FENCE,
	RT_OBJECT_DOORBELL,
	RT_OBJECT_ALLOCATION,
};

/* Packets of command buffers and rings: 32 bytes, as a UMD would lay them out. */
enum hw_packet_type {
	HW_PACKET_BEGIN = 1, /* a: packet id, b: progress value, c: CPU ns of the submission */
	HW_PACKET_WORK = 2,  /* a: GPU ticks */
	/*
	 * a: global fence handle, b: value, c: in a command buffer of a kernel-mode queue the local
	 * fence handle; in a ring, the fence's GPU address (its CurrentValue word, which the UMD
	 * got when it created or opened the fence): the GPU resolves nothing through the OS's
	 * tables.
	 */
	HW_PACKET_WAIT = 3,
	HW_PACKET_SIGNAL = 4,   /* as HW_PACKET_WAIT */
	HW_PACKET_LOG = 5,      /* flags: log type | operation << 8, a: entry index, b: value,
				   c: local fence handle (LOG-05) */
	HW_PACKET_PROGRESS = 6, /* a: progress value (HPF-02); on a user-mode queue followed by
				   its log instruction, like a signal (LOG-05, LOG-11) */
	/*
	 * A memory access the engine makes through the context's GPU VA space (MMU-14,
	 * docs/runtime.md "Page faults as built"): flags: enum fstp_access_kind (READ, WRITE),
	 * a: GPU VA, b: bytes, c: the byte a WRITE stores in every byte of the range. Every page
	 * of the range is translated before any byte moves: a write is all or nothing.
	 */
	HW_PACKET_ACCESS = 7,
};

struct hw_packet {
	uint32_t type;
	uint32_t flags;
	uint64_t a;
	uint64_t b;
	uint64_t c;
};

/* One entry of a native fence log, as the GPU writes it (32 bytes). */
struct hw_log_entry {
	uint64_t fence_value;
	uint32_t native_fence; /* hNativeFence: the queue process's local handle (LOG-10) */
	uint32_t operation;    /* enum fstp_log_operation */
	uint64_t observed_gpu_ts;
	uint64_t end_gpu_ts;
};

/* One posted write of the GPU to a log entry: not visible to the CPU yet (SYN-10). */
struct hw_posted_entry {
	uint32_t index;
	struct hw_log_entry entry;
};

/*
 * A log: header {FirstFreeEntryIndex, WraparoundCount} read as one 64-bit word. The GPU's entry
 * writes are posted: they wait in `posted` (what the CPU cannot see yet) until a GPU barrier or
 * the driver's UpdateNativeFenceLogs makes them visible in `entries` (docs/runtime.md, "Fence
 * logs"); the header store is not posted.
 */
struct hw_fence_log {
	_Atomic uint64_t header; /* low 32 bits: FirstFreeEntryIndex, high: WraparoundCount */
	uint32_t capacity;
	uint32_t generation;
	struct hw_log_entry *entries;
	struct hw_posted_entry *posted; /* capacity of them */
	uint32_t posted_count;
};

struct os_waiter;
struct os_device;
struct os_display;
struct os_km_buffer;
struct os_hwqueue;

/*
 * A video memory allocation of a device (os/allocation.c; docs/runtime.md "Residency as
 * built"): today only the ring buffer and ring buffer control of user-mode queues (RES-01 to
 * RES-06). It lives while it has references — the UMD's handle, the HWQueue that runs from it,
 * each doorbell that names it (RES-03) — and the storage goes with the last. Eviction only
 * clears the resident flag: the storage, which is the CPU's and the GPU's view alike, stays
 * (RES-05). The OS changes it under its lock; the GPU only reads is_resident (its assertion).
 */
struct os_allocation {
	fsr_handle handle;
	struct os_device *device;
	uint32_t process_id;
	uint64_t size_bytes;
	/*
	 * The memory (host memory stands for video memory), aligned to the page size and
	 * zero-filled up to a whole number of pages, so that page table entries can point into it.
	 */
	void *storage;
	_Atomic bool is_resident;
	uint32_t refs;
	bool has_umd_handle; /* the UMD has not freed it (fsr_allocation_destroy) */
	/* MMU-11, MMU-12: where it lives and its page size (the rings': system, 4 KB) */
	int segment;              /* enum fstp_segment */
	uint32_t page_size_bytes; /* 4 KB or 64 KB */
	bool is_gpummu;           /* made by fsr_allocation_create_with_config */
	uint32_t mapping_count;   /* os/vidmm.c: its live GPU VA mappings (MMU-07) */
	struct os_allocation *next_in_device;
};

/* The ring buffer control allocation's content: the queue's write and read pointers. */
struct rt_ring_control {
	_Atomic uint64_t write_ptr_bytes;
	_Atomic uint64_t read_ptr_bytes;
};

/*
 * A hardware context (one engine of a device). Shared by pointer like a HWQueue: the OS's part
 * (its queues, why it is suspended) and the KMD's (whether its queues are off the hardware
 * scheduler's list, SUS-01), each under the OS's lock.
 */
struct os_context {
	fsr_handle handle;
	struct os_device *device;
	/* Its process's id: what the GPU knows of whose work it runs (a page fault names it). */
	uint32_t process_id;
	uint32_t engine_id;
	struct os_hwqueue *queues;
	struct os_context *next_in_device;
	/*
	 * The OS: a bit (1 << enum fstp_preempt_reason) per reason it is suspended for (SUSPEND,
	 * POWER, TERMINATION); SuspendContext when the first is set, ResumeContext when the last
	 * is cleared (docs/runtime.md "Suspend and resume as built").
	 */
	uint32_t os_suspend_reasons;
	bool kmd_is_suspended; /* the KMD's: its queues are off the run list (SUS-01) */
	/* The OS put it in error (os/tdr.c: the guilty context of a TDR): it runs nothing more. */
	bool is_in_error;
	/*
	 * PRE-15: the OS's scheduling attributes (fsr_context_set_scheduling): priority 0..31
	 * (default 16), time slice in ns among equal priorities (0: run to completion).
	 */
	uint32_t priority;
	uint64_t time_slice_ns;
	/* The KMD's copy, programmed into the engine's run list (the command processor arbitrates
	 * ring queues by it; engine's lock). */
	uint32_t hw_priority;
	/* PRE-14: the context allocation (fsr_adapter_config.context_allocation_bytes), or NULL */
	struct os_allocation *allocation;
	/*
	 * MMU-01, MMU-03: the KMD's: the root page table register it programmed for the context
	 * (DxgkDdiSetRootPageTable), in the GPU's format (hw/hw-private.h, HW_MMU_ROOT_*): what
	 * the engine's MMU walks from (hw_mmu_translate). 0: no VA space, every access faults.
	 */
	_Atomic uint64_t hw_root_page_table;
};

struct fsr_fence {
	fsr_handle global_handle;
	struct fsr_adapter *adapter;
	struct os_device *device; /* the creating device: its fences are what a scan reads */
	_Atomic uint64_t current_value;
	_Atomic uint64_t monitored_value;
	bool is_shared;
	bool is_destroyed;
	uint32_t handle_count;     /* local handles open */
	uint32_t packet_refs;      /* queued packets that name it */
	uint32_t interrupt_refs;   /* queued interrupts that name it, until handled (INT-05) */
	struct os_waiter *waiters; /* sorted by value, then by arrival */
	uint32_t waiter_count;
	uint64_t scan_generation; /* the last fallback scan that read it (LOG-18) */
	struct fsr_fence *next_in_device;
	/*
	 * The CurrentValue word the GPU and the OS use: &current_value, or, for a cross-adapter
	 * fence opened on another adapter, its creator's (XAD-03: one CurrentValue in system
	 * memory that every adapter's GPU reaches).
	 */
	_Atomic uint64_t *current_word;
	uint8_t type;          /* enum fstp_fence_type */
	bool is_monitored;     /* a monitored fence (adapter without native fences, XAD-10) */
	bool is_cross_adapter; /* XAD-01: MonitoredValue held at 0 (XAD-05) */
	/*
	 * Cross-adapter (os/fence.c): the creator holds, in `peers`, the fence objects opened on
	 * the other adapters (one per adapter, each with its own MonitoredValue, XAD-04, its own
	 * waiters and its adapter's driver); a peer names its creator, shares its global handle
	 * and is in no map (rt_fence_on_adapter finds it).
	 */
	struct fsr_fence *creator; /* NULL for the creator itself */
	struct fsr_fence *peers;
	struct fsr_fence *next_peer;
	uint64_t propagated_value; /* creator: the last value propagated (XAD-07) */
};

/* Each fence object of a map entry: the creator, then its cross-adapter peers. */
#define RT_FOR_EACH_FENCE_MEMBER(member, first)                                                    \
	for (struct fsr_fence *member = (first); member;                                           \
	     member = member == (first) ? (first)->peers : member->next_peer)

/* A DMA packet handed to an engine for a kernel-mode queue. */
struct hw_dma_packet {
	uint64_t packet_id;
	struct os_hwqueue *queue; /* NULL once the queue is gone: the packet is then dropped */
	uint64_t gpu_ticks;
	uint64_t progress_value;
	uint64_t submit_ns; /* when its command buffer was submitted */
	uint64_t start_ns;  /* when the engine started it (set by the GPU) */
	/*
	 * SubmissionFenceId (PRE-07): monotonic per engine; a resubmitted paging packet
	 * keeps its own, any other resubmission gets a new one.
	 */
	uint64_t fence_id;
	/*
	 * The DMA fence the KMD programmed for the packet (DxgkDdiSubmitCommand): what the GPU
	 * reports in the DMA_COMPLETED interrupt, which the OS checks against fence_id (PRE-07).
	 */
	uint64_t hw_fence_id;
	uint64_t resubmission_of; /* the packet this one resubmits after a preemption, 0 if none */
	bool is_paging;
	bool is_context_switch; /* PRE-05: a zero-length context-switch packet */
	/*
	 * Set by the GPU when it preempts the packet (PRE-09): gpu_ticks is then what is left of
	 * it, and the packet comes back to the OS with the DMA_PREEMPTED interrupt.
	 */
	bool is_preempted;
	/*
	 * PRE-08: another split packet of the same command buffer follows with nothing but
	 * signals between (the OS knows its buffer); an engine of a PreemptionAware = 0 driver
	 * runs it next, back to back.
	 */
	bool is_split_continued;
	struct hw_dma_packet *next;
	/*
	 * MMU-14: the memory accesses the packet makes before its work (HW_PACKET_ACCESS, in
	 * order): the ACCESS commands of its command buffer before the WORK it carries, or before
	 * a wait, a signal or the progress write when no WORK follows. Allocated with the packet
	 * (one free frees both).
	 */
	uint32_t access_count;
	struct hw_packet accesses[];
};

struct os_hwqueue {
	fsr_handle handle;
	struct fsr_process *process;
	struct os_context *context;
	struct fsr_adapter *adapter;
	uint32_t engine_id;
	enum fsr_submission_mode mode;
	struct fsr_fence *progress_fence;
	/*
	 * The process-local (D3DKMT) handle the UMD names the progress fence by in the log entry
	 * its progress write makes (LOG-10), the hHwQueueProgressFence of CreateHwQueue. It is no
	 * entry of the process's handle table: no fence call may signal or wait on it.
	 */
	uint32_t progress_fence_local_handle;
	_Atomic uint64_t last_queued_value; /* HwQueueProgressFenceLastQueuedValue (HPF-08) */
	uint64_t next_progress_value;       /* the UMD's counter */
	uint64_t *dropped;                  /* values of buffers dropped unsubmitted (HPF-01) */
	size_t dropped_count;
	bool is_abandoned;
	/*
	 * user mode: ring buffer and ring buffer control, the storage of two allocations the
	 * queue holds a reference on (NULL in kernel mode)
	 */
	struct os_allocation *ring_allocation;
	struct os_allocation *ring_control_allocation;
	struct hw_packet *ring;
	uint32_t ring_entries;
	struct rt_ring_control *control;
	struct hw_fence_log logs[2]; /* indexed by enum fstp_log_type */
	uint64_t umd_log_position[2];
	uint64_t os_log_position[2]; /* what the OS has read up to (LOG-17) */
	uint64_t os_last_gpu_ts[2];  /* last non-zero end timestamp read (LOG-22) */
	/* GPU state of the head command */
	bool is_wait_observed;
	uint64_t wait_observed_gpu_ts;
	/*
	 * PRE-09: the context's saved state of a preempted ring work item (engine's lock): the
	 * ticks left of the WORK packet at the read pointer, which resumes with them. And the
	 * command buffer the ring is in (its BEGIN packet), for the events of a preemption.
	 */
	bool hw_has_saved_work;
	uint64_t hw_saved_ticks;
	uint64_t hw_packet_id;
	uint64_t hw_progress_value;
	/* kernel mode: the OS's software queue */
	struct os_km_buffer *km_head;
	struct os_km_buffer *km_tail;
	bool is_km_busy;    /* a DMA packet in flight */
	bool is_km_blocked; /* a software wait outstanding */
	/*
	 * PRE-07, PRE-09: the remainder of the queue's preempted DMA packet, which the OS
	 * resubmits (packet_queued with resubmission_of) before anything else of the queue.
	 */
	struct hw_dma_packet *km_preempted;
	struct os_hwqueue *next_in_context;
	struct os_hwqueue *next_km;         /* runtime's list of kernel-mode queues */
	struct os_hwqueue *next_on_engine;  /* the GPU's run list of the engine (user mode) */
	struct os_hwqueue *next_user_queue; /* the OS's list of the engine (adapter->user_queues) */
	/*
	 * User mode with a doorbell (issue 12, docs/runtime.md "User-mode submission"): the
	 * doorbell, NULL without one, and what the command processor has *taken* of the ring —
	 * it runs up to fetched_ptr and no further, and moves it only when a ring reaches it, the
	 * KMD connects, disconnects or notifies (engine state: under the engine's lock). A queue
	 * without a doorbell takes no work (UMS-13: no polling of the write pointer).
	 */
	struct os_doorbell *doorbell;
	uint64_t fetched_ptr;
	/*
	 * SUS-01, SUS-04: off the hardware scheduler's list (SuspendContext): the engine runs
	 * nothing of it — ring or DMA packet — until ResumeContext (engine's lock).
	 */
	bool hw_is_suspended;
	/*
	 * The GPU met a malformed command in the ring (the fault injector's CORRUPT_PACKET,
	 * docs/robustness.md): it runs nothing more of the queue, whatever the OS does, and the
	 * buffer it was in (hw_packet_id, hw_progress_value below: its BEGIN) ended FAULTED.
	 */
	bool hw_is_faulted;
	bool umd_is_corrupted; /* the injector changed a buffer in its ring (UMD side) */
	/* the GPU's view of the doorbell (hw/doorbell.c; engine's lock) */
	bool hw_is_doorbell_connected;
	bool hw_is_notify_kmd;
	uint32_t hw_physical;
	/* os: the TDR watchdog's last sample of the progress fence (os/tdr.c, FST-01) */
	uint64_t tdr_seen_progress;
	/* os: when the kernel-mode scheduler handed the engine its DMA packet in flight (FST-01) */
	uint64_t km_sent_ns;
};

/*
 * A doorbell page as the CPU maps it (doorbell_size_bytes of the UMS caps, UMS-06): the word a
 * ring stores, the count of the rings (what the command processor watches on a physical
 * doorbell) and the actors a store wakes — the adapter's engines for a physical doorbell (its
 * interrupt to the command processor), none for a dummy page.
 */
struct rt_doorbell_page {
	_Atomic uint64_t word;
	_Atomic uint64_t rings;
	struct rt_actor *const *wake;
	uint32_t wake_count;
};

/*
 * A user-mode queue's doorbell (spec 000, UMS-08 to UMS-25). Like a HWQueue, one object shared
 * by pointer by the OS (the status word, the mapping, the dummy page, which only it writes),
 * the KMD (its doorbell object: physical doorbell and last use) and the GPU (which reads the
 * queue's ring control word when a ring or the KMD tells it to).
 */
struct os_doorbell {
	fsr_handle handle;
	struct os_hwqueue *queue;
	/* DoorbellStatusCpuVirtualAddress: an enum fstp_doorbell_status; the OS writes it. */
	_Atomic uint64_t status;
	/*
	 * DoorbellCpuVirtualAddress, the OS's "page table" entry: 0 names the dummy page, k + 1
	 * physical doorbell k. One atomic word: a ring loads it, then stores through it.
	 */
	_Atomic uint64_t mapping; /* a struct rt_doorbell_page *: dummy_page or a physical one */
	struct rt_doorbell_page dummy_page; /* one per doorbell; wakes no engine (UMS-14) */
	uint32_t os_physical;               /* the physical doorbell the KMD last returned */
	/* the KMD's doorbell object (under the OS's lock) */
	bool kmd_is_connected;
	uint32_t kmd_physical;
	uint64_t kmd_last_use; /* the last ConnectDoorbell or NotifyWorkSubmission (LRU) */
	bool kmd_is_notify_kmd;
	/* RES-03: the OS's references on the ring allocations, held while the doorbell lives */
	struct os_allocation *ring_allocation;
	struct os_allocation *ring_control_allocation;
};

/* ---- emulated GPU ------------------------------------------------------------------------ */

/* Preemption requests an engine holds at once (the OS issues no more: os_preempt_request). */
#define FSR_MAX_PREEMPT_REQUESTS 16

/* What a preemption's completion tells (PRE-03, PRE-09): see struct hw_interrupt. */
struct hw_preempt_record {
	fsr_handle context_handle; /* what ran (0: nothing) */
	fsr_handle queue_handle;
	uint64_t packet_id; /* the packet it stopped (or that ended at the boundary), 0: none */
	uint64_t progress_value;
	int granularity;          /* enum fstp_preempt_granularity reached */
	uint64_t gpu_ts;          /* when the work stopped */
	uint64_t work_left_ticks; /* of the preempted packet (0: it ended, or nothing ran) */
	bool is_packet_preempted; /* packet_end PREEMPTED of packet_id first */
	uint32_t request_count;
	uint64_t request_ids[FSR_MAX_PREEMPT_REQUESTS];
};

/*
 * What the GPU sends up its interrupt line: an interrupt (type, form and payload as the spec's
 * forms, INT-04 to INT-13; one coalesced interrupt may name several fences, or none when it
 * collapsed signals it cannot tell apart), or the report that a wait or signal packet naming
 * `retired_fence` has retired (the reference the queued packet held, HPF-01/TRM-04 bookkeeping).
 */
struct hw_interrupt {
	bool is_retirement; /* the report, not an interrupt: only retired_fence */
	struct fsr_fence *retired_fence;
	enum fstp_interrupt_type type;
	enum fstp_interrupt_form form;
	struct fsr_adapter *adapter;
	uint32_t engine_id;
	struct os_hwqueue *queue; /* the queue that signalled; NULL when several did */
	uint32_t fence_count;     /* FENCE_ARRAY form: the signalled fences (INT-04) */
	fsr_handle fences[FSR_MAX_INTERRUPT_FENCES];
	uint32_t fences_held; /* os: bit i, the queued interrupt holds fences[i] alive (INT-05) */
	struct hw_dma_packet *packet; /* DMA_COMPLETED */
	/* ENGINE_STATE_CHANGE: EngineStateChange.NewState (FST-02), an enum fstp_engine_state */
	int engine_state;
	/* PAGE_FAULT: why the GPU stopped the queue, an enum fstp_loss_reason */
	int fault_reason;
	/*
	 * PAGE_FAULT with reason PAGE_FAULT (MMU-14): the access that did not translate — its VA
	 * (the first page that failed), kind (enum fstp_access_kind) and fault type (enum
	 * fstp_fault_type), the packet it was in, and the context it ran for (by handle: the
	 * queue may be destroyed before the OS handles the interrupt).
	 */
	uint64_t fault_va;
	int fault_access;
	int fault_type;
	uint64_t fault_packet_id;
	fsr_handle fault_context;
	uint32_t fault_process_id;
	/*
	 * CRTC_VSYNC (PRE-13): the display (VidPN source) that reached its vertical sync, its
	 * vsync count, the flip it scans out from this vsync on (the spec's
	 * CrtcVsync.PhysicalAddress, the address being displayed: the flip id stands for it; 0
	 * for the surface of power-up) and the vsync that latched that flip. Reporting what is on
	 * screen rather than what changed lets a later vsync interrupt report a flip whose own
	 * interrupt was lost. engine_id is the source's id.
	 */
	uint32_t vidpn_source_id;
	uint64_t vsync_count;
	uint64_t flip_id;
	uint64_t flip_vsync_count;
	/*
	 * DMA_PREEMPTED (PRE-03): the last preemption request the engine completed (every earlier
	 * one of the engine too: an engine completes its requests in order), and `packet`, the
	 * preempted DMA packet whose remainder the OS resubmits (NULL when none was preempted).
	 */
	uint64_t preempt_request_id;
	/* DMA_COMPLETED: the fence id the GPU wrote at the packet's end (its hw_fence_id) */
	uint64_t completed_fence_id;
	/*
	 * DMA_PREEMPTED: the preemption's hw events (packet_end PREEMPTED, one preempt_complete per
	 * request), fired as the interrupt goes up the line: in realtime once the step has let go
	 * of the engine's lock and the OS's lock is held, so that they follow the OS's
	 * preempt_request, which it fires with its lock held after DxgkDdiPreemptCommand.
	 */
	struct hw_preempt_record preempt;
	struct hw_interrupt *next;
};

/* What DxgkDdiDescribeEngine tells the OS of an engine. */
struct dxgk_engine_caps {
	enum fsr_engine_type type;
	bool supports_user_mode_submission; /* UMS-04 */
	/* PRE-03: where it stops graphics and compute work (enum fstp_preempt_granularity) */
	int graphics_preempt_granularity;
	int compute_preempt_granularity;
	bool is_preemption_aware; /* PreemptionAware */
};

/* The OS's per-engine scheduling state (os/scheduler.c; lock held). */
struct os_engine_sched {
	uint64_t preempt_requested;   /* the last request id issued on the engine, 0: none */
	uint64_t preempt_completed;   /* the last one the engine completed (DMA_PREEMPTED) */
	uint32_t preempt_outstanding; /* issued, not completed (at most FSR_MAX_PREEMPT_REQUESTS) */
	fsr_handle last_context;      /* PRE-05: the context of the last DMA packet queued */
	uint64_t priority_request;    /* the PRIORITY request outstanding, 0: none */
	/* time slices: the context the OS last saw running, since when, and the request made */
	struct os_context *slice_context;
	uint64_t slice_start_ns;
	uint64_t slice_request;
	uint64_t next_fence_id; /* SubmissionFenceId, monotonic per engine (PRE-07) */
};

struct fsr_adapter {
	struct fsr_runtime *runtime;
	uint32_t id;
	struct fsr_adapter_config config;
	/* hw: the GPU's engines and its interrupt line (hw/hw-private.h), the driver's to touch */
	struct hw_gpu *gpu;
	/* os: the driver's DDI table, its adapter context, and what it described */
	struct dxgk_ddi ddi;
	void *miniport;
	struct dxgk_engine_caps engine_caps[FSR_MAX_ENGINES];
	/* What DxgkDdiQueryAdapterInfo reported, once checked; zero when it made no sense. */
	struct dxgk_usermodesubmission_caps ums_caps;
	struct os_hwqueue *user_queues[FSR_MAX_ENGINES]; /* per engine, in creation order */
	/* os: each engine's power component as the OS set it (FST-04, FST-06; lock held) */
	enum fstp_engine_power os_fstate[FSR_MAX_ENGINES];
	/* os: the device's power state as the OS set it (DST-01, DST-05; lock held) */
	enum fstp_device_power os_dstate;
	uint64_t next_packet_id;
	/* os: the TDR watchdog's state per engine (os/tdr.c), NULL until the adapter starts */
	struct os_tdr *tdr;
	/*
	 * os: the displays' flip queues (os/display.c; display_count of them, NULL without any)
	 * and whether the driver declared FlipOnVSyncMmIo (PRE-13): presents are refused without.
	 */
	struct os_display *os_displays;
	bool has_flip_on_vsync_mmio;
	uint64_t next_flip_id;
	/* os: preemption requests (unique per adapter) and each engine's scheduling state */
	uint64_t next_preempt_request_id;
	struct os_engine_sched sched[FSR_MAX_ENGINES];
	/*
	 * os: called (lock held) each time an engine completes preemption requests, with the
	 * last request id completed: the TDR watchdog's hook (os/os-private.h).
	 */
	void (*on_preempt_complete)(struct fsr_adapter *adapter, uint32_t engine_id,
				    uint64_t request_id, void *data);
	void *on_preempt_complete_data;
	/*
	 * os: some context of the adapter has a priority other than the default or a time slice:
	 * the scheduler watches its engines (os_sched_check) on its timer.
	 */
	bool is_scheduling_watched;
	/*
	 * os: each engine's paging queue (PRE-06, PRE-14), made on first use: a kernel-mode
	 * queue of the OS's own, of a context of the highest priority, whose DMA packets are
	 * paging packets (NULL: none yet).
	 */
	struct os_hwqueue *paging_queues[FSR_MAX_ENGINES];
	/*
	 * os (os/vidmm.c): the driver's GpuMmu caps, asked when the first VA space of the adapter
	 * is made (has_gpummu_caps; zero before), and the page tables' names (page_table_create).
	 */
	struct dxgk_gpummu_caps gpummu_caps;
	bool has_gpummu_caps;
	uint64_t next_page_table_id;
};

/* ---- runtime ----------------------------------------------------------------------------- */

struct fsr_runtime {
	struct fsr_runtime_config config;
	pthread_mutex_t lock;
	struct rt_clock clock;
	uint64_t rng[4];
	struct fsr_adapter *adapters[FSR_MAX_ADAPTERS];
	uint32_t adapter_count;
	struct fsr_process *processes;
	uint32_t next_process_id;
	uint64_t next_kernel_handle;
	uint64_t next_global_fence_handle;
	uint64_t next_waiter_id;
	uint64_t scan_generation; /* fallback scans run, to read each fence once per scan */
	struct rt_map fences;     /* global handle -> struct fsr_fence * */
	struct os_hwqueue *km_queues;
	struct os_waiter *async_waiters; /* with a deadline, for the OS actor to time out */
	struct os_waiter *done_callbacks;
	struct hw_interrupt *interrupts_head;
	struct hw_interrupt *interrupts_tail;
	struct rt_actor os_actor;
	/* Sim-mode interleaving (common/interleave.c), NULL when off: the common case. */
	struct rt_interleave *interleave;
	/* The fault injector (common/fault.c), NULL without a plan: the common case. */
	struct rt_faults *faults;
	uint64_t next_correlation_ns;
	uint64_t next_log_read_ns;
	uint64_t next_rescan_ns; /* os: the check for lost wake-ups (os/fault.c) */
	/*
	 * Sim mode, the simulator's own: an interrupt was dropped since the OS's last check for
	 * lost wake-ups (common/fault.c sets it, the check clears it), so that check is real work.
	 */
	bool is_wakeup_owed;
	/* os: every user-mode queue's logs are grown for tracing (LOG-04, LOG-20) */
	bool are_logs_grown_for_tracing;
	bool is_tracing_forced; /* os: tests only (fsr_test_force_tracing) */
	/* os: the scheduler's next look (os_sched_run), and whether it watches pending work */
	uint64_t sched_next_ns;
	bool sched_has_work;
	struct fsr_runtime_stats stats;
	/*
	 * Realtime: events fired, counted apart from stats (engines fire without the lock);
	 * stats.trace_hash is not kept (realtime runs are not reproducible).
	 */
	_Atomic uint64_t concurrent_events;
	/* stats.user_mode_submit_to_start, counted by the engines (realtime: without the lock) */
	_Atomic uint64_t user_mode_submit_to_start[FSR_LATENCY_BUCKETS];
	struct rt_event_tap event_tap; /* tests only (FSR_TRACE) */
	/* Cross-adapter fences alive (os/fence.c): interrupts look for their propagation. */
	uint32_t cross_adapter_fences;
};

/*
 * Realtime: the engines run on their own threads without the OS's lock (docs/runtime.md,
 * "Concurrency"). Sim mode runs one actor at a time (with interleaving, one baton).
 */
static inline bool
rt_gpu_is_concurrent(const struct fsr_runtime *runtime)
{
	return runtime->clock.mode == FSR_CLOCK_REALTIME;
}

/*
 * Whether the GPU may fetch from a user-mode queue's ring buffer and ring buffer control: both
 * resident (the OS evicts them only once nothing can fetch: the D3 power-down suspends first).
 * Freed they cannot be: the queue holds a reference on both for as long as it exists.
 */
static inline bool
rt_queue_ring_is_resident(const struct os_hwqueue *queue)
{
	return atomic_load_explicit(&queue->ring_allocation->is_resident, memory_order_acquire) &&
	       atomic_load_explicit(&queue->ring_control_allocation->is_resident,
				    memory_order_acquire);
}

/* The ring slot at a byte offset of the ring buffer control's read or write pointer. */
static inline struct hw_packet *
rt_ring_slot(struct os_hwqueue *queue, uint64_t ptr_bytes)
{
	return &queue->ring[(ptr_bytes / sizeof(struct hw_packet)) % queue->ring_entries];
}

/* a + b in ns, saturating at FSR_NEVER: "never" plus anything stays never. */
static inline uint64_t
rt_add_ns(uint64_t a, uint64_t b)
{
	return b >= FSR_NEVER - a ? FSR_NEVER : a + b;
}

/* A new kernel handle, unique for the runtime's life (lock held). */
fsr_handle rt_new_kernel_handle(struct fsr_runtime *runtime, enum rt_object_type type);
/* Emits call_failed for a refused call and returns `status` (lock held). */
fsr_status rt_refuse(struct fsr_runtime *runtime, uint32_t process_id, const char *call,
		     fsr_handle handle, fsr_status status);
/* Counts one latency sample in a histogram of fsr_runtime_stats (lock held). */
void rt_latency_add(uint64_t histogram[FSR_LATENCY_BUCKETS], uint64_t latency_ns);
/* The histogram bucket of a latency (fsr_runtime_stats.submit_to_start's layout). */
unsigned int rt_latency_bucket(uint64_t latency_ns);

/* ---- the runtime lock ----------------------------------------------------------------------- */

void rt_interleave_lock(struct fsr_runtime *runtime);
void rt_interleave_unlock(struct fsr_runtime *runtime);

/*
 * The OS's device interrupt level (SYN-03). With sim-mode interleaving on, actors run on
 * threads passing one baton and the lock is the scheduler's (a holder that is switched out
 * keeps it; an actor that needs it waits off the baton): common/interleave.c.
 */
static inline void
rt_lock(struct fsr_runtime *runtime)
{
	if (runtime->interleave)
		rt_interleave_lock(runtime);
	else
		pthread_mutex_lock(&runtime->lock);
}

static inline void
rt_unlock(struct fsr_runtime *runtime)
{
	if (runtime->interleave)
		rt_interleave_unlock(runtime);
	else
		pthread_mutex_unlock(&runtime->lock);
}

/*
 * An engine's step. In sim mode without interleaving the engines step under the lock,
 * serialised with everything else. With interleaving, and in realtime, they run as the GPU
 * does, without the OS's lock, touching the shared words only through the accessors below, and
 * take the lock only to call the interrupt routine: with interleaving at once
 * (rt_isr_enter), in realtime once their step has let go of the engine's own lock
 * (hw/engine.c, docs/runtime.md "Concurrency").
 */
static inline void
rt_lock_gpu(struct fsr_runtime *runtime)
{
	if (!runtime->interleave && !rt_gpu_is_concurrent(runtime))
		rt_lock(runtime);
}

static inline void
rt_unlock_gpu(struct fsr_runtime *runtime)
{
	if (!runtime->interleave && !rt_gpu_is_concurrent(runtime))
		rt_unlock(runtime);
}

/* The GPU's interrupt line reaches the driver's interrupt routine at interrupt level. */
static inline void
rt_isr_enter(struct fsr_runtime *runtime)
{
	if (runtime->interleave)
		rt_lock(runtime);
}

static inline void
rt_isr_exit(struct fsr_runtime *runtime)
{
	if (runtime->interleave)
		rt_unlock(runtime);
}

/* ---- shared words: accessors and interleaving points ---------------------------------------- */

/*
 * Every access to a word the spec shares between the CPU (OS, UMD, user mode) and the GPU goes
 * through an accessor below, which names the access: a *point*. In realtime and in sim mode
 * without interleaving an accessor is the plain C11 access. In sim mode with interleaving
 * (fsr_runtime_config.interleave_seed, or a test's script) each point is where the scheduler
 * may hand the baton to another actor, before the access happens (docs/runtime.md,
 * "Interleaving"). RT_POINT_NONE accesses (reads for an event's fields, idle queries) never
 * switch.
 */
enum rt_point {
	RT_POINT_NONE = 0,
	RT_POINT_STEP_END, /* not an access: a script's "until the step ends" */
	/* the GPU (hw/) */
	RT_POINT_GPU_READ_WRITE_PTR,
	RT_POINT_GPU_READ_READ_PTR,
	RT_POINT_GPU_WRITE_READ_PTR,
	RT_POINT_GPU_READ_RING_SLOT,
	RT_POINT_GPU_READ_CURRENT_VALUE,
	RT_POINT_GPU_WRITE_CURRENT_VALUE,
	RT_POINT_GPU_WRITE_LOG_ENTRY,
	RT_POINT_GPU_READ_LOG_HEADER,
	RT_POINT_GPU_WRITE_LOG_HEADER,
	RT_POINT_GPU_BARRIER,
	RT_POINT_GPU_READ_MONITORED_VALUE,
	/* the OS and its driver (os/, kmd/) */
	RT_POINT_OS_READ_CURRENT_VALUE,
	RT_POINT_OS_WRITE_CURRENT_VALUE,
	RT_POINT_OS_READ_MONITORED_VALUE,
	RT_POINT_OS_WRITE_MONITORED_VALUE,
	RT_POINT_OS_BARRIER,
	RT_POINT_OS_READ_LOG_HEADER,
	RT_POINT_OS_READ_LOG_ENTRY,
	RT_POINT_OS_READ_LAST_QUEUED,
	RT_POINT_OS_READ_RING,
	/* the UMD (umd/) */
	RT_POINT_UMD_READ_WRITE_PTR,
	RT_POINT_UMD_READ_READ_PTR,
	RT_POINT_UMD_WRITE_RING_SLOT,
	RT_POINT_UMD_WRITE_LAST_QUEUED,
	RT_POINT_UMD_WRITE_WRITE_PTR,
	RT_POINT_UMD_READ_LAST_QUEUED,
	/* user mode reading a fence without the OS (NFV-02, NFV-07) */
	RT_POINT_USER_READ_CURRENT_VALUE,
	RT_POINT_USER_READ_MONITORED_VALUE,
	/* doorbells (issue 12): the UMD's ring and status read, the OS's status store and rotation
	 */
	RT_POINT_UMD_RING_DOORBELL,
	RT_POINT_UMD_READ_DOORBELL_STATUS,
	RT_POINT_OS_WRITE_DOORBELL_STATUS,
	RT_POINT_OS_ROTATE_DOORBELL,
	RT_POINT_GPU_READ_DOORBELL,
	RT_POINT_COUNT
};

/* The point's name, e.g. "gpu-write-current-value" (scripts, reports). */
FSR_TEST_API const char *rt_point_name(enum rt_point point);
void rt_interleave_point(struct fsr_runtime *runtime, enum rt_point point);

static inline void
rt_point(struct fsr_runtime *runtime, enum rt_point point)
{
	if (runtime->interleave && point != RT_POINT_NONE)
		rt_interleave_point(runtime, point);
}

static inline uint64_t
rt_word_load(struct fsr_runtime *runtime, _Atomic uint64_t *word, memory_order order,
	     enum rt_point point)
{
	rt_point(runtime, point);
	return atomic_load_explicit(word, order);
}

static inline void
rt_word_store(struct fsr_runtime *runtime, _Atomic uint64_t *word, uint64_t value,
	      memory_order order, enum rt_point point)
{
	rt_point(runtime, point);
	atomic_store_explicit(word, value, order);
}

static inline void
rt_word_fetch_add(struct fsr_runtime *runtime, _Atomic uint64_t *word, uint64_t value,
		  memory_order order, enum rt_point point)
{
	rt_point(runtime, point);
	atomic_fetch_add_explicit(word, value, order);
}

/*
 * A ring's store through the mapping (UMS-13): the word, then the count, released, then the
 * wake-up of whoever the page wakes. No OS, no KMD on the way (UMS-25).
 */
static inline void
rt_doorbell_page_store(struct fsr_runtime *runtime, struct rt_doorbell_page *page, uint64_t value)
{
	atomic_store_explicit(&page->word, value, memory_order_relaxed);
	atomic_fetch_add_explicit(&page->rings, 1, memory_order_release);
	for (uint32_t i = 0; i < page->wake_count; i++) {
		struct rt_actor *actor = page->wake[i];

		/* Sim mode kicks every one, as ever: the same steps, the same recordings. */
		if (actor->ring_interest && runtime->clock.mode == FSR_CLOCK_REALTIME &&
		    !atomic_load_explicit(actor->ring_interest, memory_order_relaxed))
			continue;
		rt_clock_kick(runtime, actor, rt_clock_now(runtime));
	}
}

#if defined(__SANITIZE_THREAD__)
#define RT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RT_TSAN 1
#endif
#endif

#ifdef RT_TSAN
/* common.c: the word every full barrier touches under ThreadSanitizer (rt_barrier). */
extern _Atomic uint64_t rt_tsan_barrier_word;
#endif

/*
 * A full barrier (seq_cst fence) of the side `point` names. ThreadSanitizer does not model
 * fences (gcc refuses atomic_thread_fence under -fsanitize=thread): there, a seq_cst
 * read-modify-write of one word all barriers share stands in for it — a total order of the
 * barriers that it can see, as the fences give one.
 */
static inline void
rt_barrier(struct fsr_runtime *runtime, enum rt_point point)
{
	rt_point(runtime, point);
#ifdef RT_TSAN
	atomic_fetch_add_explicit(&rt_tsan_barrier_word, 0, memory_order_seq_cst);
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/*
 * NFV-01: CurrentValue = value, one 64-bit atomic store, never torn. Spec 001 ("Signal
 * Fence(N): write N as a new current value"): the writer stores the value it was given, also
 * a lower one — a GPU signal below CurrentValue makes it go down, as the hardware would, and
 * the analyzer reports it (value_regression). Refusing a lower CPU signal is the OS's policy
 * (fsr_fence_signal_cpu), not the store's. Sequentially consistent: SYN-09's barrier follows.
 */
static inline void
rt_fence_write_current(struct fsr_runtime *runtime, struct fsr_fence *fence, uint64_t value,
		       enum rt_point point)
{
	rt_word_store(runtime, fence->current_word, value, memory_order_seq_cst, point);
}

/* A fence's words, read through the fence's runtime. */
static inline uint64_t
rt_fence_current(struct fsr_fence *fence, enum rt_point point)
{
	return rt_word_load(fence->adapter->runtime, fence->current_word, memory_order_seq_cst,
			    point);
}

static inline uint64_t
rt_fence_monitored(struct fsr_fence *fence, enum rt_point point)
{
	return rt_word_load(fence->adapter->runtime, &fence->monitored_value, memory_order_seq_cst,
			    point);
}

/* The object of a map entry (a creator) on `adapter`: itself or its peer there (XAD-03). */
static inline struct fsr_fence *
rt_fence_member_on(struct fsr_fence *creator, const struct fsr_adapter *adapter)
{
	RT_FOR_EACH_FENCE_MEMBER(member, creator)
		if (member->adapter == adapter)
			return member;
	return NULL;
}

/*
 * The fence object a global handle names on `adapter`: the fence itself, or for a
 * cross-adapter fence its peer opened there (XAD-03); NULL when none.
 */
static inline struct fsr_fence *
rt_fence_on_adapter(struct fsr_runtime *runtime, uint64_t global_handle,
		    const struct fsr_adapter *adapter)
{
	struct fsr_fence *fence = rt_map_get(&runtime->fences, global_handle);

	return fence ? rt_fence_member_on(fence, adapter) : NULL;
}

/* A queue's LastQueuedValue (HPF-08): release/acquire with the UMD's store (HPF-04). */
static inline uint64_t
rt_queue_last_queued(struct os_hwqueue *queue, enum rt_point point)
{
	return rt_word_load(queue->adapter->runtime, &queue->last_queued_value,
			    memory_order_acquire, point);
}

/* A ring slot, read by the GPU (or the OS) or written by the UMD before the write pointer. */
static inline struct hw_packet
rt_ring_read(struct fsr_runtime *runtime, struct os_hwqueue *queue, uint64_t ptr_bytes,
	     enum rt_point point)
{
	rt_point(runtime, point);
	return *rt_ring_slot(queue, ptr_bytes);
}

static inline void
rt_ring_write(struct fsr_runtime *runtime, struct os_hwqueue *queue, uint64_t ptr_bytes,
	      const struct hw_packet *packet, enum rt_point point)
{
	rt_point(runtime, point);
	*rt_ring_slot(queue, ptr_bytes) = *packet;
}

/* ---- sim-mode interleaving: the test interface (common/interleave.c) ---------------------- */

/*
 * A scripted switch: at the `occurrence`-th (1-based) point `at` of actor `actor` ("caller",
 * "os", "engine0", ...), the scheduler hands the baton to actor `to` — resuming it where it was
 * switched out, or starting a step of it — until `to` reaches point `until` (before that
 * access) or its step ends (RT_POINT_STEP_END); then `actor` goes on.
 */
struct rt_interleave_switch {
	const char *actor;
	enum rt_point at;
	uint32_t occurrence;
	const char *to;
	enum rt_point until;
};

/* Called at every point before the scheduler decides, the baton held: a test's invariant. */
typedef void (*rt_interleave_observer)(struct fsr_runtime *runtime, const char *actor,
				       enum rt_point point, void *data);

struct rt_interleave_stats {
	uint64_t points;   /* points met */
	uint64_t switches; /* batons handed over at a point */
	uint64_t started;  /* steps started at a point (an actor due now, or an engine polling) */
	/* switches by [point][kind of the actor switched to: 0 caller, 1 os, 2 engine] */
	uint32_t by_point[RT_POINT_COUNT][3];
};

/*
 * Turns interleaving on for a sim runtime, between two calls (the fixture's adapter and process
 * may exist already; nothing is half done between calls in sim mode): with `seed` != 0 a seeded
 * scheduler switches at random points (fsr_runtime_config.interleave_seed does the same), and
 * `script` (copied; may be NULL) forces the listed switches. FSR_ERR_INVALID_ARGUMENT in
 * realtime.
 */
FSR_TEST_API fsr_status rt_interleave_enable(struct fsr_runtime *runtime, uint64_t seed,
					     const struct rt_interleave_switch *script,
					     size_t script_count);
FSR_TEST_API void rt_interleave_set_observer(struct fsr_runtime *runtime,
					     rt_interleave_observer observer, void *data);
FSR_TEST_API void rt_interleave_get_stats(struct fsr_runtime *runtime,
					  struct rt_interleave_stats *stats);
/* The scripted switches that fired, of those enable was given. */
FSR_TEST_API size_t rt_interleave_fired(struct fsr_runtime *runtime);
/* At runtime teardown, engines stopped: ends the actors' threads. */
void rt_interleave_fini(struct fsr_runtime *runtime);

/* ---- shared memory: fence logs --------------------------------------------------------- */

/*
 * The memory of a native fence log, which the OS allocates and hands to the driver through
 * SetNativeFenceLogBuffer (LOG-01, LOG-03); the GPU writes it (hw/fence-log.c), the OS reads it
 * (os/log-reader.c).
 */
void rt_fence_log_alloc(struct hw_fence_log *log, uint32_t capacity, uint32_t generation);
void rt_fence_log_free(struct hw_fence_log *log);

/*
 * A log entry is memory the GPU writes and the OS reads with no lock between them: each of its
 * words is stored and loaded as a relaxed atomic, and an entry the GPU overwrites while the OS
 * reads it (an overrun during the read: the GPU never waits for the reader, LOG-16) may be read
 * half old, half new. The OS's next read then finds the position moved by more than the
 * capacity and reports the overrun (LOG-17); the entry read in that window is not marked.
 */
static inline void
rt_log_entry_store(struct hw_log_entry *slot, const struct hw_log_entry *entry)
{
	__atomic_store_n(&slot->fence_value, entry->fence_value, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->native_fence, entry->native_fence, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->operation, entry->operation, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->observed_gpu_ts, entry->observed_gpu_ts, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->end_gpu_ts, entry->end_gpu_ts, __ATOMIC_RELAXED);
}

static inline struct hw_log_entry
rt_log_entry_load(const struct hw_log_entry *slot)
{
	return (struct hw_log_entry){
	    .fence_value = __atomic_load_n(&slot->fence_value, __ATOMIC_RELAXED),
	    .native_fence = __atomic_load_n(&slot->native_fence, __ATOMIC_RELAXED),
	    .operation = __atomic_load_n(&slot->operation, __ATOMIC_RELAXED),
	    .observed_gpu_ts = __atomic_load_n(&slot->observed_gpu_ts, __ATOMIC_RELAXED),
	    .end_gpu_ts = __atomic_load_n(&slot->end_gpu_ts, __ATOMIC_RELAXED),
	};
}

/*
 * SYN-10: the GPU's posted entry writes land in the memory the CPU reads, in order. The posted
 * writes are the GPU's: a flush runs on the GPU (its barrier) or, for the driver's
 * UpdateNativeFenceLogs, with the engine's lock held (hw_fence_logs_flush).
 */
static inline void
rt_fence_log_flush(struct hw_fence_log *log)
{
	for (uint32_t i = 0; i < log->posted_count; i++)
		rt_log_entry_store(&log->entries[log->posted[i].index], &log->posted[i].entry);
	log->posted_count = 0;
}

/* The GPU writes an entry: posted, visible after the next flush (a full write buffer drains). */
static inline void
rt_log_entry_post(struct fsr_runtime *runtime, struct hw_fence_log *log, uint32_t index,
		  const struct hw_log_entry *entry)
{
	rt_point(runtime, RT_POINT_GPU_WRITE_LOG_ENTRY);
	if (log->posted_count == log->capacity)
		rt_fence_log_flush(log);
	log->posted[log->posted_count++] =
	    (struct hw_posted_entry){.index = index, .entry = *entry};
}

/* The OS reads an entry: what is visible, stale if the GPU's write is still posted. */
static inline struct hw_log_entry
rt_log_entry_read(struct fsr_runtime *runtime, const struct hw_fence_log *log, uint32_t index)
{
	rt_point(runtime, RT_POINT_OS_READ_LOG_ENTRY);
	return rt_log_entry_load(&log->entries[index]);
}

#endif /* FENCESCOPE_RUNTIME_COMMON_H */
