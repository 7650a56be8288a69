/* SPDX-License-Identifier: MIT */
/*
 * The OS graphics kernel (os/): handle tables (handles.c), processes (process.c), adapters
 * (adapter.c), devices, contexts, hardware queues and the kernel-mode scheduler (queue.c),
 * fences and CPU waits (fence.c), interrupts and housekeeping (interrupt.c), the native fence
 * log reader (log-reader.c). It calls its driver only through the adapter's DDI table
 * (adapter->ddi, common/driver-interface-private.h) and never the GPU; the driver calls it back
 * only through the callback table of adapter.c. Lock held unless stated.
 */
#ifndef FENCESCOPE_RUNTIME_OS_PRIVATE_H
#define FENCESCOPE_RUNTIME_OS_PRIVATE_H

#include "common/common-private.h"

/* ---- the OS's own objects ---------------------------------------------------------------- */

enum os_waiter_kind {
	OS_WAITER_CALLER,   /* a thread blocked in fsr_fence_wait_cpu */
	OS_WAITER_ASYNC,    /* fsr_fence_wait_cpu_async */
	OS_WAITER_KM_QUEUE, /* a kernel-mode queue's software wait */
	OS_WAITER_FLIP,     /* a present's wait for its rendering (os/display.c) */
};

struct os_flip;

struct os_waiter {
	uint64_t id;
	enum os_waiter_kind kind;
	struct fsr_fence *fence;
	uint64_t value;
	uint64_t deadline_ns;
	uint32_t process_id;
	fsr_handle fence_handle;  /* local handle in the waiting process */
	struct os_hwqueue *queue; /* OS_WAITER_KM_QUEUE */
	/*
	 * OS_WAITER_FLIP: the present's flip, and what os_waiter_finish calls for it (set by
	 * os/display.c, so that fence.c, which display.c calls, does not call it back by name).
	 */
	struct os_flip *flip;
	void (*flip_rendered)(struct fsr_runtime *runtime, struct os_flip *flip, fsr_status status);
	_Atomic uint32_t done;
	fsr_status status;
	uint64_t observed_value;
	fsr_wait_callback callback;
	void *user_data;
	struct os_waiter *next;       /* in the fence's list */
	struct os_waiter *next_async; /* in the runtime's async list */
	struct os_waiter *next_done;  /* callbacks to run */
};

/* A kernel-mode command buffer in the OS's software queue. */
struct os_km_buffer {
	uint64_t submit_ns;
	struct hw_packet *packets;
	size_t count;
	size_t position;
	struct os_km_buffer *next;
};

struct os_device {
	fsr_handle handle;
	struct fsr_process *process;
	struct fsr_adapter *adapter;
	struct os_context *contexts;
	struct fsr_fence *fences;          /* created on this device */
	struct os_allocation *allocations; /* alive (RES-04: freed with the device) */
	bool is_lost;     /* device loss (UMS-16): its doorbells are ABORT for good */
	bool is_in_error; /* abnormal termination (TRM-03) */
	/* MMU-14: GPU page faults of its contexts so far (a second loses the device: os/fault.c) */
	uint32_t page_faults;

	struct os_device *next_in_process;
};

struct rt_object {
	enum rt_object_type type;
	void *pointer;            /* os_device, os_context, os_hwqueue or fsr_fence */
	struct os_device *device; /* fences: the device the handle was made on */
};

struct fsr_process {
	struct fsr_runtime *runtime;
	uint32_t id;
	char *name;
	struct rt_map handles; /* handle -> struct rt_object * */
	uint32_t next_local_handle;
	struct os_device *devices;
	/*
	 * Killed by the fault injector (PROCESS_KILLED) and ended abnormally: a husk that only
	 * fsr_process_terminate may take, to free it.
	 */
	bool is_killed;
	/* os/vidmm.c: its GPU VA space on each adapter (MMU-01), NULL until first used */
	struct os_va_space *va_spaces[FSR_MAX_ADAPTERS];
	struct fsr_process *next;
};

/* ---- the D3DKMT-style thunks the user-mode driver calls (umd/) ---------------------------- */

/* A new D3DKMT-style process-local handle (32 bits, distinct from kernel handles). */
fsr_handle os_new_local_handle(struct fsr_process *process);
/* Looks a handle up in a process's table with the expected type. */
fsr_status os_kmt_lookup(struct fsr_process *process, fsr_handle handle, enum rt_object_type type,
			 struct rt_object **object);
/* Drops the reference a recorded, never submitted, fence packet held. */
void os_kmt_release_fence(struct fsr_fence *fence);
/*
 * DestroyHwQueue of a queue whose doorbell is dead (UMS-16's fall-back; lock NOT held): no wait;
 * once the GPU is off the ring, the packets it had not run go to *salvage (os_ring_salvage,
 * below) instead of being dropped. *context: the queue's context, for the kernel-mode queue.
 */
struct os_ring_salvage;
fsr_status os_kmt_destroy_dead_hwqueue(struct fsr_process *process, fsr_handle hwqueue,
				       fsr_handle *context, uint64_t *last_queued,
				       struct os_ring_salvage *salvage);
/* SubmitCommand of a kernel-mode queue: the buffer (packets, now the OS's) joins its queue. */
/*
 * The process died in a submission (the fault injector's PROCESS_KILLED): its abnormal
 * termination (TRM-03 to TRM-05), process_terminate ABNORMAL first; the process stays
 * allocated, empty, until fsr_process_terminate frees it. Lock NOT held.
 */
void os_kmt_end_killed_process(struct fsr_process *process);
fsr_status os_kmt_submit_command(struct os_hwqueue *queue, struct fsr_process *process,
				 uint64_t progress_value, struct hw_packet *packets, size_t count);

/* ---- allocations (allocation.c) ---------------------------------------------------------- */

/*
 * A new allocation of `device` with one reference (its creator's: the UMD's handle or the OS's
 * own), resident or not; allocation_create (and allocation_residency when resident).
 */
fsr_status os_allocation_new(struct os_device *device, uint64_t size_bytes, bool is_resident,
			     struct os_allocation **allocation);
/*
 * A GpuMmu allocation (MMU-05, MMU-11 to MMU-13): `size_bytes` rounded up to `page_size_bytes`
 * (4 KB or 64 KB), placed in `segment` (enum fstp_segment), resident.
 */
fsr_status os_allocation_new_in_segment(struct os_device *device, uint64_t size_bytes, int segment,
					uint32_t page_size_bytes,
					struct os_allocation **allocation);
void os_allocation_ref(struct os_allocation *allocation);
/* Drops a reference; the last one frees the storage (allocation_destroy). */
void os_allocation_unref(struct os_allocation *allocation);
/* Makes resident or evicts (the D3 power-down, its wake): only the flag moves (RES-05). */
void os_allocation_set_resident(struct os_allocation *allocation, bool is_resident);
bool os_allocation_is_resident(const struct os_allocation *allocation);
/* An allocation handle of `process` (no call_failed: the caller refuses). */
fsr_status os_allocation_lookup(struct fsr_process *process, fsr_handle handle,
				struct os_allocation **allocation);
/* RES-04: at device destruction, after its queues: the allocations the UMD did not free. */
void os_device_free_allocations(struct os_device *device);

/* ---- the GpuMmu's memory manager (vidmm.c; docs/runtime.md "GpuMmu as built") --------------- */

struct os_va_space;
/* MMU-02: the driver's GpuMmu caps (DXGKQAITYPE_GPUMMUCAPS), asked once; false: unusable. */
bool os_vidmm_query_caps(struct fsr_adapter *adapter);
/* The process's VA space on the adapter, NULL when it has none. */
struct os_va_space *os_vidmm_find_space(struct fsr_process *process, struct fsr_adapter *adapter);
/* ... made the first time (va_space_create, its root, every context of it programmed). */
fsr_status os_vidmm_get_space(struct fsr_process *process, struct fsr_adapter *adapter,
			      struct os_va_space **space);
uint64_t os_vidmm_space_size(const struct os_va_space *space);
/* A new context translates through its process's VA space on its adapter, if there is one. */
void os_vidmm_context_created(struct os_context *context);
/* fsr_va_reserve, fsr_va_free, fsr_va_map, fsr_va_unmap past the handle checks (MMU-06). */
fsr_status os_vidmm_reserve(struct os_va_space *space, uint64_t size, uint64_t min_va,
			    uint64_t max_va, uint64_t fixed_va, uint64_t *va);
fsr_status os_vidmm_free(struct os_va_space *space, uint64_t va, uint64_t size);
fsr_status os_vidmm_map(struct os_va_space *space, struct os_allocation *allocation,
			const struct fsr_va_map_args *args, uint64_t *va);
fsr_status os_vidmm_unmap(struct os_va_space *space, uint64_t va, uint64_t size);
/* Before an allocation's UMD handle goes: each of its mappings unmapped (va_unmap). */
void os_vidmm_unmap_allocation(struct os_allocation *allocation);
/* MMU-02: the page tables of every VA space on the adapter evicted (D3) or resident (D0). */
void os_vidmm_set_resident(struct fsr_adapter *adapter, bool is_resident);
/* At the end of a process, its devices gone: its VA spaces, their ranges and page tables. */
void os_vidmm_destroy_spaces(struct fsr_process *process);

/* ---- adapters (adapter.c) ----------------------------------------------------------------- */

/*
 * fsr_adapter_create with the driver whose DDI table is `ddi` (lock NOT held): what a test
 * calls to hand the OS another driver, e.g. the reference table with one entry replaced.
 */
FSR_TEST_API fsr_status fsr_adapter_create_with_ddi(struct fsr_runtime *runtime,
						    const struct fsr_adapter_config *config,
						    const struct dxgk_ddi *ddi,
						    uint32_t *adapter_id);
/*
 * MonitoredValue of a fence of `process`, for white-box tests only (lock NOT held): the spec
 * gives user mode no access to it at all (NFV-03), so the public API has no call that reads it;
 * a tool sees it in fencescope_kmd:update_monitored_value.
 */
FSR_TEST_API fsr_status fsr_test_fence_read_monitored(struct fsr_process *process,
						      fsr_handle fence_handle,
						      uint64_t *monitored_value);
/*
 * Tests only (lock NOT held): makes the OS take tracing as on (`is_tracing`) whether or not a
 * session records it, as if a session had started (LOG-04, LOG-20).
 */
FSR_TEST_API void fsr_test_force_tracing(struct fsr_runtime *runtime, bool is_tracing);
/* At runtime teardown, engines stopped (lock NOT held): the last clock pair, then removal. */
void os_adapters_remove(struct fsr_runtime *runtime);

/* ---- interrupts and housekeeping (interrupt.c) -------------------------------------------- */

void os_actor_init(struct fsr_runtime *runtime);
/* os/fault.c (docs/robustness.md): the GPU's fault interrupt, and the periodic check for
 * wake-ups a lost interrupt withheld (lock held). */
void os_gpu_fault(struct fsr_adapter *adapter, struct os_hwqueue *queue,
		  enum fstp_loss_reason reason);
/*
 * MMU-14, TDR-06: the GPU's page fault interrupt (PAGE_FAULT, reason PAGE_FAULT), after
 * interrupt_handled: os:page_fault with the scope the OS chose, then the recovery
 * (os_tdr_page_fault). docs/runtime.md "Page faults as built".
 */
void os_gpu_page_fault(struct fsr_adapter *adapter, const struct hw_interrupt *interrupt);
uint32_t os_rescan_waiters(struct fsr_runtime *runtime);
bool os_has_unreleased_waiter(struct fsr_runtime *runtime);
/* DxgkCbNotifyInterrupt: queues the interrupt for the OS actor (its DPC). */
void os_notify_interrupt(struct fsr_adapter *adapter, struct hw_interrupt *interrupt);
/* Doorbells (os/doorbell.c), lock held. DxgkCbDisconnectDoorbell: status, then rotation. */
void os_disconnect_doorbell_cb(struct fsr_adapter *adapter, struct os_doorbell *doorbell,
			       enum fstp_doorbell_status status);
/*
 * ConnectDoorbell for the UMD's RETRY (the status written in *status), power-transitions.c: wakes
 * the device first if it is in D3 (DST-04, DST-05), then os_doorbell_connect.
 */
fsr_status os_kmt_connect_doorbell(struct os_hwqueue *queue, enum fstp_doorbell_status *status);
/* The connect itself (doorbell.c): the engine to F0 if in F1 (FST-06), the DDI, rotate, status. */
fsr_status os_doorbell_connect(struct os_hwqueue *queue, enum fstp_doorbell_status *status);
/* A doorbell thunk's queue: a user-mode queue of `process`, with a doorbell or (Create) without. */
fsr_status os_doorbell_lookup_queue(struct fsr_process *process, fsr_handle handle,
				    const char *call, bool needs_doorbell,
				    struct os_hwqueue **queue);
/* NotifyWorkSubmission for the UMD's CONNECTED_NOTIFY_KMD. */
void os_kmt_notify_work_submission(struct os_hwqueue *queue, uint64_t progress_value);
/* DestroyDoorbell: disconnect (reason DESTROY) if connected, unmap, free the dummy page. */
void os_doorbell_destroy(struct os_hwqueue *queue);
/*
 * An OS-initiated disconnect (termination, device loss, F1, D3): `status` (ABORT stays ABORT),
 * the rotation to the dummy page, then DxgkDdiDisconnectDoorbell(reason), if it was connected
 * (true; false when there was nothing to disconnect, a queue without a doorbell too).
 */
bool os_doorbell_disconnect(struct os_hwqueue *queue, enum fstp_doorbell_status status,
			    enum fstp_disconnect_reason reason);
/* Device loss (UMS-16): the device in error, ABORT on each of its doorbells; device_lost. */
void os_device_lose(struct os_device *device, enum fstp_loss_reason reason);

/* ---- power (power.c: the states; power-transitions.c: the transitions) -------------------- */

/* The KMD programs the engine's F-state, then the OS records it (engine_power); false: refused. */
bool os_set_engine_fstate(struct fsr_adapter *adapter, uint32_t engine_id,
			  enum fstp_engine_power fstate);
/* FST-06: an engine in F1 goes back to F0 (before a connect or a submission to it). */
void os_engine_wake(struct fsr_adapter *adapter, uint32_t engine_id);
/* The KMD programs the device's D-state (DxgkDdiSetPowerState), the OS records it (device_power).
 */
void os_set_device_power(struct fsr_adapter *adapter, enum fstp_device_power dstate);
/* DST-01, DST-05: every user-mode queue's ring evicted (false) or made resident (true). */
void os_set_rings_resident(struct fsr_adapter *adapter, bool is_resident);
/* A GPU_ENGINE_STATE_CHANGE interrupt's deferred handling (FST-02, FST-04, FST-05). */
void os_engine_state_change(struct fsr_adapter *adapter, uint32_t engine_id,
			    enum fstp_engine_state new_state);
/* DxgkCbReleasePacketFence: a retired packet's reference on `fence` goes. */
void os_release_packet_fence(struct fsr_adapter *adapter, struct fsr_fence *fence);
bool os_is_idle(struct fsr_runtime *runtime);

/* ---- displays and flips (display.c), PRE-13 --------------------------------------------- */

/*
 * At adapter creation, after the driver's start (lock held): the displays' flip queues, and
 * whether the driver declares FlipOnVSyncMmIo (DxgkDdiQueryAdapterInfo, DXGKQAITYPE_DRIVERCAPS);
 * call_failed when it has displays and does not.
 */
void os_displays_init(struct fsr_adapter *adapter);
/* At runtime teardown, engines and displays stopped: what the flip queues still hold. */
void os_displays_fini(struct fsr_adapter *adapter);
/* A CRTC_VSYNC interrupt's deferred handling: flip_done, then the next flip programmed. */
void os_display_vsync(struct fsr_adapter *adapter, const struct hw_interrupt *interrupt);
/* Realtime idle: no flip ready to be shown or programmed and waiting for its vsync. */
bool os_displays_are_idle(struct fsr_runtime *runtime);

/* ---- fences and waits (fence.c) ----------------------------------------------------------- */

/* Runs the callbacks of ended asynchronous waits (lock NOT held; after every clock step). */
void os_run_callbacks(struct fsr_runtime *runtime);
/* flags: FSR_FENCE_* (fencescope/fence.h); 0 for a queue's progress fence. */
fsr_status os_fence_new(struct os_device *device, uint64_t initial_value, uint32_t flags,
			struct fsr_fence **fence_out);
void os_fence_unref_packet(struct fsr_fence *fence);
/* Drops the reference a queued interrupt held (INT-05); frees a destroyed, unnamed fence. */
void os_fence_unref_interrupt(struct fsr_fence *fence);
void os_fence_close_handle(struct fsr_process *process, fsr_handle handle, struct fsr_fence *fence);
/* Releases the waiters that CurrentValue satisfies and re-arms MonitoredValue (NFV-09). */
uint32_t os_fence_release_waiters(struct fsr_fence *fence);
/* CPU writes and cross-adapter propagation (os/fence.c, XAD-07, XAD-15). */
void os_fence_write_cpu(struct fsr_fence *fence, uint64_t value);
uint32_t os_fence_propagate(struct fsr_fence *from);
uint32_t os_fence_propagate_from_adapter(struct fsr_adapter *adapter);
void os_fence_add_waiter(struct fsr_fence *fence, struct os_waiter *waiter);
void os_fence_remove_waiter(struct fsr_fence *fence, struct os_waiter *waiter);
void os_waiter_finish(struct fsr_runtime *runtime, struct os_waiter *waiter, fsr_status status,
		      uint64_t observed_value);
/* A blocking or polling CPU wait on a fence (lock held on entry and on return). */
fsr_status os_fence_wait(struct fsr_process *process, struct fsr_fence *fence,
			 fsr_handle fence_handle, uint64_t value, uint64_t timeout_ns,
			 enum fsr_wait_mode mode);

/* ---- the log reader (log-reader.c) -------------------------------------------------------- */

/* Reads both logs of a user-mode queue; returns the CPU waiters released (LOG-17, LOG-18). */
/* Whether a session records the OS's events (or a test says so): LOG-20 grows the logs then. */
bool os_is_tracing(struct fsr_runtime *runtime);
/*
 * The OS actor's step (lock held): once tracing is on, re-creates the logs of every running
 * user-mode queue grown (LOG-04, LOG-20), each when it is idle.
 */
void os_grow_logs_for_tracing(struct fsr_runtime *runtime);
uint32_t os_read_logs(struct os_hwqueue *queue);
/* The logs of every queue of a device (INT-10), of an engine (INT-12), of every engine. */
/* INT-10: the logs of the queues of every device that has `fence` open (one read). */
uint32_t os_read_fence_logs(struct fsr_fence *fence);
uint32_t os_read_engine_logs(struct fsr_adapter *adapter, uint32_t engine_id);
void os_read_all_logs(struct fsr_runtime *runtime);

/* ---- hardware queues and the kernel-mode scheduler (queue.c) ------------------------------ */

/*
 * Suspend and resume (SUS): the OS's entry, for fsr_context_suspend, the D3 power-down and
 * abnormal termination alike (lock held). A context is suspended while it has at least one
 * reason (enum fstp_preempt_reason: SUSPEND, POWER, TERMINATION); DxgkDdiSuspendContext is
 * called when the first comes, DxgkDdiResumeContext when the last goes (then the kernel-mode
 * scheduler runs again, SUS-07). FSR_ERR_BAD_STATE: already suspended for `reason` (suspend),
 * not suspended for it (resume); nothing is called then.
 */
fsr_status os_context_suspend(struct os_context *context, enum fstp_preempt_reason reason);
fsr_status os_context_resume(struct os_context *context, enum fstp_preempt_reason reason);
static inline bool
os_context_is_suspended(const struct os_context *context)
{
	return context->os_suspend_reasons != 0;
}
void os_km_schedule(struct fsr_runtime *runtime);
/* From outside the OS actor (a UMD call): its timer follows the scheduler's next look. */
void os_sched_kick(struct fsr_runtime *runtime);
/*
 * DMA_COMPLETED: the packet is done. PRE-07: the fence id the GPU reports must be the one the
 * OS gave the packet; another one (a driver that reused an old fence id) is refused loudly
 * (call_failed "DmaCompletedFenceId", the packet's fence id) and the packet completes anyway.
 */
void os_km_packet_done(struct fsr_runtime *runtime, struct hw_dma_packet *packet,
		       uint64_t completed_fence_id);
void os_hwqueue_free(struct os_hwqueue *queue);
/* How a queue ends: the UMD's DestroyHwQueue, or its process's termination (TRM). */
enum os_queue_end {
	OS_QUEUE_DESTROY,
	OS_QUEUE_TERMINATE,          /* TRM-01: disconnect, wait for LastQueuedValue, destroy */
	OS_QUEUE_TERMINATE_ABNORMAL, /* TRM-03, TRM-04: no wait; its context is suspended */
};
/*
 * What the UMD takes back from its ring when a dead queue goes (UMS-16's fall-back): the
 * packets the GPU had not run, from its read pointer to the write pointer, with the fence
 * references they hold. The ring is the UMD's memory: it reads it once the GPU is off it.
 */
struct os_ring_salvage {
	struct hw_packet *packets; /* malloc'd; NULL when none */
	size_t count;
};
/*
 * Ends a queue (lock held on entry and on return; the lock may be let go meanwhile); with
 * `salvage` (nullable), the packets the GPU had not run are handed back instead of dropped.
 */
void os_hwqueue_end(struct fsr_process *process, struct os_hwqueue *queue, enum os_queue_end how,
		    struct os_ring_salvage *salvage);

/* ---- TDR and recovery (tdr.c) ------------------------------------------------------------ */

/* The watchdog's state of an adapter (at creation; -1: no memory), and its end (at removal). */
fsr_status os_tdr_init(struct fsr_adapter *adapter);
void os_tdr_fini(struct fsr_adapter *adapter);
/*
 * FST-01: the OS learnt of a kernel-mode DMA packet's completion (its submission it reads from
 * the queue, os_hwqueue.km_sent_ns).
 */
void os_tdr_packet_completed(struct fsr_adapter *adapter, uint32_t engine_id);
/*
 * The watchdog, from the OS actor's step (lock held): samples every engine's progress, detects
 * a stall (TDR-02), sends the preemption request (TDR-01) and recovers when it does not
 * complete. Returns when it wants to look again (FSR_NEVER: no adapter watches).
 */
uint64_t os_tdr_watch(struct fsr_runtime *runtime, uint64_t now);
/* TDR-03: the KMD reported Active->Hung (GPU_ENGINE_STATE_CHANGE): recovery at once. */
void os_tdr_engine_hung(struct fsr_adapter *adapter, uint32_t engine_id);
/*
 * The OS puts `context` in error (after a TDR; a fault): it runs nothing more (suspended for
 * TDR), its pending fences are signalled (UINT64_MAX) after its CPU waiters got DEVICE_LOST,
 * and its device is lost (context_error, then device_lost).
 */
void os_context_error(struct os_context *context, enum fstp_loss_reason reason);
/* As os_context_error, and the device is lost only when `is_device_lost` (MMU-14's scope). */
void os_context_fault(struct os_context *context, enum fstp_loss_reason reason,
		      bool is_device_lost);
/* The context of kernel handle `handle` on the adapter, NULL if it is gone (or 0). */
struct os_context *os_context_find(struct fsr_adapter *adapter, fsr_handle handle);
/*
 * TDR-06: the recovery of a GPU page fault on `engine_id`, initiated by the memory manager:
 * tdr_begin (PAGE_FAULT, the guilty context) -> the guilty context in error (its device lost
 * too when `is_device_lost`: scope DEVICE) -> DxgkDdiResetEngine, promoted to
 * DxgkDdiResetFromTimeout when it fails -> tdr_end. No tdr_detect and no preemption request:
 * no timeout was detected, and the engine stopped at the fault.
 */
void os_tdr_page_fault(struct fsr_adapter *adapter, uint32_t engine_id, struct os_context *guilty,
		       bool is_device_lost);
/* ---- the scheduler and preemption (scheduler.c; docs/runtime.md "Scheduling and preemption
 * as built") -------------------------------------------------------------------------------- */

/* PRE-15: a new context's attributes (priority 16, no time slice); fires context_schedule. */
void os_context_init_scheduling(struct os_context *context);
/* context_schedule: the context's attributes now. */
void os_context_fire_schedule(struct os_context *context);
/*
 * fsr_context_set_scheduling: the attributes, context_schedule, the KMD's run list
 * (DxgkDdiSetContextSchedulingProperties); the adapter's scheduler starts watching its engines
 * once a context has a priority other than the default or a time slice.
 */
void os_context_set_scheduling(struct os_context *context, uint32_t priority,
			       uint64_t time_slice_ns);
/*
 * PRE-15 (lock held): the scheduler looks at every engine of the adapters it watches, asking
 * the KMD what runs (DxgkDdiQueryEngineContext), and asks for a preemption for PRIORITY (a
 * context of a higher priority has work) or TIME_SLICE (the running context's slice is over
 * and one of equal priority has work). Returns when to look again (FSR_NEVER: not before
 * something happens); *has_work: an engine runs a context while another has work (the look
 * is then real work, not housekeeping). Run by the kernel-mode scheduler (os_km_schedule) and the
 * OS actor's timer.
 */
uint64_t os_sched_run(struct fsr_runtime *runtime, bool *has_work);
/*
 * PRE-03, PRE-04 (and the TDR watchdog): the OS asks engine `engine_id` of `adapter` to preempt
 * what it runs (lock held). The driver programs the engine (DxgkDdiPreemptCommand) and names the
 * context it runs (0: nothing); preempt_request fires with it. Returns the request id (unique per
 * adapter, increasing; an engine completes its requests in order), or 0 when none was issued: an
 * engine out of range, or FSR_MAX_PREEMPT_REQUESTS already outstanding on it. The engine stops at
 * the next boundary its granularity allows (at once when it runs nothing), fires preempt_complete,
 * and raises DMA_PREEMPTED, whose handling (os_preempt_done) records the completion.
 */
uint64_t os_preempt_request(struct fsr_adapter *adapter, uint32_t engine_id,
			    enum fstp_preempt_reason reason);
/*
 * Whether request `request_id` of engine `engine_id` has completed: its DMA_PREEMPTED
 * interrupt has been handled (lock held). What the TDR watchdog asks: a request that
 * does not complete in time starts recovery.
 */
bool os_preempt_completed(const struct fsr_adapter *adapter, uint32_t engine_id,
			  uint64_t request_id);
/*
 * A hook called (lock held, from the DMA_PREEMPTED handling) each time an engine completes
 * requests, with the last request id completed (every earlier one of that engine completed
 * too). One listener per adapter; NULL removes it.
 */
void os_preempt_set_listener(struct fsr_adapter *adapter,
			     void (*listener)(struct fsr_adapter *adapter, uint32_t engine_id,
					      uint64_t request_id, void *data),
			     void *data);
/*
 * PRE-14 (fsr_adapter_config.context_allocation_bytes): at context creation the context
 * allocation (DxgkCbCreateContextAllocation) and its InitContextResource, a paging packet on
 * the engine's paging queue (PRE-06); at its destruction the allocation goes
 * (DxgkCbDestroyContextAllocation). Nothing without the configuration.
 */
void os_context_create_allocation(struct os_context *context);
void os_context_destroy_allocation(struct os_context *context);
/* At adapter removal, engines stopped: the paging queues and their contexts. */
void os_paging_queues_free(struct fsr_adapter *adapter);
/* The DMA_PREEMPTED interrupt's deferred handling (interrupt.c, which then runs the
 * kernel-mode scheduler: a preempted packet's remainder waits in its queue, km_preempted). */
void os_preempt_done(struct fsr_adapter *adapter, struct hw_interrupt *interrupt);
/*
 * A kernel-mode queue's DMA packet to its engine: its fence id (PRE-07),
 * packet_queued, then DxgkDdiSubmitCommand; the queue is busy until the packet completes.
 */
void os_sched_queue_packet(struct os_hwqueue *queue, struct hw_dma_packet *packet);
/* Resubmits the queue's preempted packet's remainder, if it has one (true then). */
bool os_sched_resubmit(struct os_hwqueue *queue);

#endif /* FENCESCOPE_RUNTIME_OS_PRIVATE_H */
