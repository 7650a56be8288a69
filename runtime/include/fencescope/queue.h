/* SPDX-License-Identifier: MIT */
/*
 * Devices, hardware contexts, hardware queues and the command buffers the user-mode driver
 * builds for them (spec 000, 003).
 *
 * A HWQueue takes work in one of two ways (UMS-02):
 *  - kernel mode: command buffers go through SubmitCommand to the OS scheduler, which runs
 *    their fence waits and signals itself as software commands and hands their work to the
 *    engine as DMA packets (LOG-02: no fence log);
 *  - user mode: the UMD writes command buffers into the queue's ring and the engine runs
 *    them, fence waits and signals included, on the GPU, writing an entry in the queue's
 *    wait or signal log for each (LOG-05 to LOG-14). The engine learns of work from the
 *    queue's doorbell only (fsr_doorbell_create, fsr_doorbell_connect; UMS-13): a user-mode
 *    queue without one takes no work (fsr_cmdbuf_submit refuses it). Make a ready one with
 *    fsr_hwqueue_create_user_mode.
 * Each queue has a progress fence: the UMD gives each command buffer the next value, which
 * the engine writes when the buffer is done (HPF-01 to HPF-07).
 * Include <fencescope/runtime.h>, not this header.
 */
#ifndef FENCESCOPE_QUEUE_H
#define FENCESCOPE_QUEUE_H

#include <fencescope/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

FSR_API fsr_status fsr_device_create(struct fsr_process *process, uint32_t adapter_id,
				     fsr_handle *device);
/* Destroys the device's queues, contexts and fence handles too. */
FSR_API fsr_status fsr_device_destroy(struct fsr_process *process, fsr_handle device);

/* Why a device was lost: the values are the trace's `loss_reason` (fencescope_os:device_lost). */
enum fsr_device_loss_reason {
	FSR_DEVICE_LOSS_TIMEOUT = 0,
	FSR_DEVICE_LOSS_ENGINE_HUNG = 1,
	FSR_DEVICE_LOSS_PAGE_FAULT = 2,
	FSR_DEVICE_LOSS_GPU_STOP = 3,
};

/*
 * Device loss (UMS-16), for tests and scenarios: the OS writes DISCONNECTED_ABORT to every
 * doorbell of the device and maps their dummy pages (ConnectDoorbell answers ABORT from then
 * on), the KMD lets their physical doorbells go, and fencescope_os:device_lost fires. What the
 * GPU had taken of a ring runs; a buffer submitted after it returns FSR_ERR_DEVICE_LOST. The
 * device keeps working with kernel-mode queues; it refuses new user-mode queues and doorbells
 * (FSR_ERR_DEVICE_LOST). Other devices, other processes' included, are not touched.
 */
FSR_API fsr_status fsr_device_mark_lost(struct fsr_process *process, fsr_handle device,
					enum fsr_device_loss_reason reason);

FSR_API fsr_status fsr_context_create(struct fsr_process *process, fsr_handle device,
				      uint32_t engine_id, fsr_handle *context);
FSR_API fsr_status fsr_context_destroy(struct fsr_process *process, fsr_handle context);

/* The scheduling priority of a new context, and the highest one (PRE-15). */
#define FSR_DEFAULT_CONTEXT_PRIORITY 16u
#define FSR_MAX_CONTEXT_PRIORITY     31u

/*
 * A context's scheduling attributes on its engine (spec 003, PRE-15): its priority, 0 (lowest)
 * to FSR_MAX_CONTEXT_PRIORITY, and its time slice among contexts of equal priority with work, in
 * ns (0: its work runs to completion once started). A new context has priority
 * FSR_DEFAULT_CONTEXT_PRIORITY and no time slice. A higher-priority context that gets work
 * preempts a lower one on the engine (reason PRIORITY); contexts of equal priority with work
 * share the engine in time slices (reason TIME_SLICE). Fires fencescope_os:context_schedule (as
 * fsr_context_create does with the defaults). FSR_ERR_INVALID_ARGUMENT (call_failed
 * "SetContextSchedulingProperties"): a priority above FSR_MAX_CONTEXT_PRIORITY.
 */
FSR_API fsr_status fsr_context_set_scheduling(struct fsr_process *process, fsr_handle context,
					      uint32_t priority, uint64_t time_slice_ns);

/*
 * Suspends a hardware context (spec 000, SUS-01 to SUS-07): its queues leave the GPU's
 * scheduler list — a work item running finishes, nothing after it starts. Doorbells stay
 * connected and rings resident (SUS-02): the UMD keeps writing command buffers and ringing, and
 * kernel-mode submissions are accepted (SUS-07), but nothing runs, signals or logs until
 * fsr_context_resume, after which everything queued meanwhile runs without a new ring (SUS-05).
 * A doorbell victimized meanwhile can be reconnected; that does not resume the context (SUS-06).
 * Destroying a queue of a suspended context abandons its queued work. FSR_ERR_BAD_STATE
 * (call_failed): suspending a context this call already suspended, resuming one it did not.
 * The OS may also suspend a context itself (device power-down, abnormal termination): a
 * context runs again once every reason it was suspended for is gone.
 */
FSR_API fsr_status fsr_context_suspend(struct fsr_process *process, fsr_handle context);
FSR_API fsr_status fsr_context_resume(struct fsr_process *process, fsr_handle context);

/*
 * Video memory allocations of a device (spec 000, RES-01 to RES-06): a user-mode queue's ring
 * buffer and ring buffer control. Created not resident (allocation_create); the UMD makes it
 * resident (allocation_residency) before it names it in fsr_hwqueue_create and
 * fsr_doorbell_create (RES-01). fsr_allocation_destroy lets go of the UMD's handle; the storage
 * lives on while the HWQueue or a doorbell that names it does (RES-02, RES-03) and goes with
 * the last of them (allocation_destroy). What the UMD did not free goes with its device
 * (RES-04). The OS evicts it only for power (D3): the ring stays writable (RES-05).
 */
FSR_API fsr_status fsr_allocation_create(struct fsr_process *process, fsr_handle device,
					 uint64_t size_bytes, fsr_handle *allocation);
FSR_API fsr_status fsr_allocation_make_resident(struct fsr_process *process, fsr_handle allocation);
FSR_API fsr_status fsr_allocation_destroy(struct fsr_process *process, fsr_handle allocation);

enum fsr_submission_mode {
	FSR_SUBMIT_KERNEL_MODE = 0,
	FSR_SUBMIT_USER_MODE = 1,
};

struct fsr_hwqueue_config {
	enum fsr_submission_mode mode;
	uint32_t ring_size_bytes; /* user mode; 0 means 64 KB */
	/*
	 * User mode: the ring buffer and ring buffer control allocations the queue runs from,
	 * resident (RES-01), of the context's device; the ring control at least 16 bytes (the
	 * write and read pointers), the ring a multiple of 32 bytes, at least 256, and the ring
	 * size is the allocation's (ring_size_bytes is then ignored). Both 0: the OS makes the
	 * two itself, resident, of ring_size_bytes, with no UMD handle; they go with the queue.
	 */
	fsr_handle ring_allocation;
	fsr_handle ring_control_allocation;
};

FSR_API fsr_status fsr_hwqueue_create(struct fsr_process *process, fsr_handle context,
				      const struct fsr_hwqueue_config *config, fsr_handle *hwqueue);
/*
 * A user-mode queue ready for work, in the spec's order: CreateHwQueue with the
 * UserModeSubmission flag, CreateDoorbell, ConnectDoorbell (UMS-08, UMS-12, UMS-15). `config`
 * (nullable: the defaults) must say FSR_SUBMIT_USER_MODE. On failure (the refusal of any of
 * the three, each a call_failed event) nothing is left behind and its status is returned.
 */
FSR_API fsr_status fsr_hwqueue_create_user_mode(struct fsr_process *process, fsr_handle context,
						const struct fsr_hwqueue_config *config,
						fsr_handle *hwqueue);
/* Waits for the queue's queued work, reads its logs a last time, and destroys it. */
FSR_API fsr_status fsr_hwqueue_destroy(struct fsr_process *process, fsr_handle hwqueue);

/* The queue's progress fence: the last value queued and the last value completed. */
FSR_API fsr_status fsr_hwqueue_get_progress(struct fsr_process *process, fsr_handle hwqueue,
					    uint64_t *last_queued, uint64_t *last_completed);

/* Blocks until the queue has completed `progress_value` (as fsr_fence_wait_cpu). */
FSR_API fsr_status fsr_hwqueue_wait_progress(struct fsr_process *process, fsr_handle hwqueue,
					     uint64_t progress_value, uint64_t timeout_ns);

/* A command buffer being recorded by the UMD for one queue. */
struct fsr_cmdbuf;

/* Returns: (transfer full) in *cmdbuf; submit it or free it with fsr_cmdbuf_destroy. */
FSR_API fsr_status fsr_cmdbuf_create(struct fsr_process *process, fsr_handle hwqueue,
				     struct fsr_cmdbuf **cmdbuf);
FSR_API void fsr_cmdbuf_destroy(struct fsr_cmdbuf *cmdbuf);

/* Work that keeps the engine busy for `gpu_ticks` of the adapter's timestamp counter. */
FSR_API fsr_status fsr_cmdbuf_work(struct fsr_cmdbuf *cmdbuf, uint64_t gpu_ticks);

/*
 * A GPU wait until the fence reaches `value` (NFV-11), and a GPU signal of `value`. Recording
 * one fires fencescope_umd:fence_wait_queued / fence_signal_queued with the time of recording
 * (GPV-02); on a user-mode queue the UMD adds the log-payload instruction right after it
 * (LOG-05).
 */
FSR_API fsr_status fsr_cmdbuf_wait(struct fsr_cmdbuf *cmdbuf, fsr_handle fence, uint64_t value);
FSR_API fsr_status fsr_cmdbuf_signal(struct fsr_cmdbuf *cmdbuf, fsr_handle fence, uint64_t value);

/* What a GPU memory access does (the trace's `access_kind`). */
enum fsr_gpu_access {
	FSR_GPU_READ = 0,
	FSR_GPU_WRITE = 1,
};

/* The longest range one recorded access may name (FSR_ERR_INVALID_ARGUMENT beyond). */
#define FSR_MAX_ACCESS_BYTES (UINT64_C(1) << 24)

/*
 * A GPU memory access of `bytes` bytes at `gpu_va` in the process's GPU VA space on the queue's
 * adapter: a READ, or a WRITE that stores `value` in every byte of the range. The engine
 * translates every page of the range through the context's page tables when it runs the
 * command (MMU-14), not when it is recorded: the range need not be mapped yet, and one unmapped
 * by the time the GPU gets there is a page fault (fencescope_hw:page_fault, the buffer ends
 * FAULTED, the context is terminated and the engine reset: docs/runtime.md "Page faults as
 * built"). A faulting write stores nothing, not even in the pages that did translate.
 * FSR_ERR_INVALID_ARGUMENT for another access kind, 0 bytes, more than FSR_MAX_ACCESS_BYTES
 * or a range that wraps the 64-bit address space.
 */
FSR_API fsr_status fsr_cmdbuf_access(struct fsr_cmdbuf *cmdbuf, enum fsr_gpu_access access,
				     uint64_t gpu_va, uint64_t bytes, uint8_t value);

/*
 * Appends one raw 32-byte packet {type, flags, a, b, c}, as a buggy or hostile UMD could write
 * it. Submission checks every packet and refuses the buffer with FSR_ERR_MALFORMED_PACKET.
 */
FSR_API fsr_status fsr_cmdbuf_raw(struct fsr_cmdbuf *cmdbuf, uint32_t type, uint32_t flags,
				  uint64_t a, uint64_t b, uint64_t c);

/*
 * Submits and frees the command buffer. It ends with the write of the progress value it was
 * given when it was created (HPF-03; returned in *progress_value, nullable; HPF-02), then
 * goes to the OS (kernel mode) or into the ring (user mode). Buffers of one queue are
 * submitted in the order they were created (FSR_ERR_BAD_STATE otherwise); one destroyed
 * unsubmitted leaves no hole in the progress values. On failure the buffer is freed too and
 * nothing was queued. A command buffer must not outlive its process; recording into one
 * whose queue was destroyed fails with FSR_ERR_DESTROYED.
 */
FSR_API fsr_status fsr_cmdbuf_submit(struct fsr_cmdbuf *cmdbuf, uint64_t *progress_value);

/*
 * A doorbell's status word, D3DDDI_DOORBELL_STATUS (UMS-12, UMS-14, UMS-24): the OS
 * writes it, the UMD reads it after every ring. The values are the trace's `doorbell_status`.
 */
enum fsr_doorbell_status {
	FSR_DOORBELL_CONNECTED = 0,            /* the ring reached the GPU */
	FSR_DOORBELL_CONNECTED_NOTIFY_KMD = 1, /* ... and NotifyWorkSubmission must follow */
	FSR_DOORBELL_DISCONNECTED_RETRY = 2,   /* reconnect: the connect takes the work */
	FSR_DOORBELL_DISCONNECTED_ABORT = 3,   /* the queue is dead: make another */
};

/*
 * CreateDoorbell (UMS-08 to UMS-11): a user-mode queue's doorbell, mapped on its dummy page with
 * status DISCONNECTED_RETRY and no physical doorbell. The queue takes work only through it
 * (before it, fsr_cmdbuf_submit refuses with FSR_ERR_BAD_STATE): fsr_cmdbuf_submit rings it, reads
 * the status and acts on it (reconnects on RETRY, notifies on CONNECTED_NOTIFY_KMD, returns
 * FSR_ERR_DEVICE_LOST on ABORT). FSR_ERR_NOT_SUPPORTED on a kernel-mode queue, FSR_ERR_BAD_STATE
 * when it has one already.
 * `ring_allocation` and `ring_control_allocation` name the queue's ring allocations (those of
 * its fsr_hwqueue_config; both 0: the queue's own, whichever they are): another allocation is
 * FSR_ERR_INVALID_ARGUMENT, a non-resident one FSR_ERR_BAD_STATE (RES-01). The doorbell holds a
 * reference on both while it lives (RES-03); destroying it does not free them (RES-02).
 */
FSR_API fsr_status fsr_doorbell_create(struct fsr_process *process, fsr_handle hwqueue,
				       fsr_handle ring_allocation,
				       fsr_handle ring_control_allocation);
/*
 * ConnectDoorbell (UMS-12, UMS-15, UMS-22 to UMS-24): the KMD gives the doorbell a physical
 * one, victimizing the least recently used other queue when none is free (dedicated model);
 * the GPU takes the queue's write pointer. *status (nullable): the status word now.
 */
FSR_API fsr_status fsr_doorbell_connect(struct fsr_process *process, fsr_handle hwqueue,
					enum fsr_doorbell_status *status);
/* DestroyDoorbell (RES-02): disconnects (the GPU takes the write pointer) and unmaps. */
FSR_API fsr_status fsr_doorbell_destroy(struct fsr_process *process, fsr_handle hwqueue);
/* The status word, as the UMD reads it (a load, no call into the OS). */
FSR_API fsr_status fsr_doorbell_get_status(struct fsr_process *process, fsr_handle hwqueue,
					   enum fsr_doorbell_status *status);
/*
 * NotifyWorkSubmission (UMS-24, UMS-25): one KMD round trip, which on a CONNECTED_NOTIFY_KMD
 * doorbell makes the GPU take the work. fsr_cmdbuf_submit calls it itself when it must.
 */
FSR_API fsr_status fsr_hwqueue_notify_work_submission(struct fsr_process *process,
						      fsr_handle hwqueue, uint64_t progress_value);

/*
 * The UMD's fall-back on a dead doorbell (UMS-16): after fsr_cmdbuf_submit returned
 * FSR_ERR_DEVICE_LOST on `hwqueue` (its doorbell reads DISCONNECTED_ABORT; FSR_ERR_BAD_STATE
 * otherwise), destroys it without waiting and makes a kernel-mode queue on the same context
 * (*kernel_queue), into which it resubmits, in order, what the GPU had not run of the ring:
 * from the GPU's read pointer on, so that no packet is lost or run twice (a buffer the GPU had
 * begun goes on from where it stopped). The old queue's progress value p of a buffer not
 * completed becomes p − *progress_base on the new queue (nullable). Command buffers recorded
 * for the old queue and not submitted fail with FSR_ERR_DESTROYED: record them again.
 */
FSR_API fsr_status fsr_hwqueue_fall_back_to_kernel_mode(struct fsr_process *process,
							fsr_handle hwqueue,
							fsr_handle *kernel_queue,
							uint64_t *progress_base);

/* The most flips a display's flip queue holds (fsr_present): presented, not yet on screen. */
#define FSR_MAX_QUEUED_FLIPS 3

/*
 * Presents on display `source_id` of the queue's adapter what the queue's command buffers
 * submitted so far render (PRE-13; docs/runtime.md "Display, vsync and flips as built"). The
 * flip joins the display's flip queue and *flip_id (nullable) gets its id, unique per adapter,
 * from 1. The call does not wait for the rendering: the OS does. Once the queue has completed
 * the progress value it had queued at this call (its LastQueuedValue), and every flip presented
 * before on that display is on screen, the OS has the driver program an MMIO flip
 * (DxgkDdiSetVidPnSourceAddress, FlipOnNextVSync: fencescope_os:flip_queued), which the display
 * takes at its next vertical sync, never during a scan-out (fencescope_hw:vsync names it), and
 * the vsync interrupt tells the OS (fencescope_os:flip_done). Flips of one display are shown in
 * the order they were presented, one per vsync at most, whichever process presented them.
 * Blocks only while the display's queue holds FSR_MAX_QUEUED_FLIPS flips, until the oldest is
 * on screen (in sim mode FSR_ERR_BAD_STATE when nothing left to run can put it there).
 * A flip whose queue is destroyed before its rendering completes is dropped. Refused
 * (call_failed): a bad handle, a display the adapter does not have (FSR_ERR_INVALID_ARGUMENT),
 * a driver that does not declare FlipOnVSyncMmIo (FSR_ERR_NOT_SUPPORTED), a lost device
 * (FSR_ERR_DEVICE_LOST).
 */
FSR_API fsr_status fsr_present(struct fsr_process *process, fsr_handle hwqueue, uint32_t source_id,
			       uint64_t *flip_id);

#ifdef __cplusplus
}
#endif

#endif /* FENCESCOPE_QUEUE_H */
