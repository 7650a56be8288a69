/* SPDX-License-Identifier: MIT */
/*
 * The runtime's test-only API: what a test needs to hand the OS another driver and to watch
 * every event the runtime fires, without LTTng. Exported from libfencescope-runtime
 * (FSR_TEST_API) but installed nowhere and not part of the public API of
 * include/fencescope/runtime.h: it may change with the runtime. The conformance suite
 * (tests/conformance/, docs/driver-interface.md "Checking your driver") is written against this
 * header and the public API only.
 */
#ifndef FENCESCOPE_TEST_API_H
#define FENCESCOPE_TEST_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fencescope/runtime.h>

#ifndef FSR_TEST_API
#define FSR_TEST_API
#endif

/* A kernel-mode driver's DDI table (the runtime's common/driver-interface-private.h). */
struct dxgk_ddi;

/* The most fields an event of docs/trace-format.md has. */
#define FSR_EVENT_TAP_MAX_FIELDS 10

/*
 * Called for every event the runtime fires (FSR_TRACE), in firing order, whether or not an
 * LTTng session records it. `name` is "provider:event" (a string literal: it outlives the
 * call); `fields` holds the event's fields in the order docs/trace-format.md lists them, each
 * integer converted to uint64_t (enums and booleans too); a string or sequence field is 0 in
 * its place. `fields` is valid only during the call.
 *
 * The tap runs inside the runtime with its lock held, from whatever thread fired the event
 * (in realtime mode an engine's or the OS's thread): it must not call the runtime.
 */
typedef void (*fsr_event_tap)(void *user_data, const char *name, const uint64_t *fields,
			      uint32_t field_count);

/*
 * Sets the runtime's one tap (NULL removes it). Takes the runtime lock: call it from a thread
 * that does not hold it (not from a tap or a wait callback). With no tap set, firing an event
 * costs one more branch.
 */
FSR_TEST_API void fsr_runtime_set_event_tap(struct fsr_runtime *runtime, fsr_event_tap tap,
					    void *user_data);

/* The reference driver's DriverEntry: fills `ddi` with its table. */
FSR_TEST_API void kmd_driver_entry(struct dxgk_ddi *ddi);

/*
 * As fsr_adapter_create, with the driver whose table is `ddi` (copied): the OS calls that driver
 * only through it. FSR_ERR_INVALID_ARGUMENT for a NULL table.
 */
FSR_TEST_API fsr_status fsr_adapter_create_with_ddi(struct fsr_runtime *runtime,
						    const struct fsr_adapter_config *config,
						    const struct dxgk_ddi *ddi,
						    uint32_t *adapter_id);

/*
 * FST-02 for tests: engine `engine_id` of adapter `adapter_id` asks for F1 (a
 * GPU_ENGINE_STATE_CHANGE interrupt, TRANSITION_TO_F1) at its next step if it has no work at
 * all, whatever the adapter's engine_idle_to_f1_ns; the OS then disconnects its doorbells and
 * powers it down (docs/runtime.md, "Engine F-states"). Takes the runtime lock. Unknown ids:
 * nothing.
 */
FSR_TEST_API void fsr_test_engine_request_f1(struct fsr_runtime *runtime, uint32_t adapter_id,
					     uint32_t engine_id);

/*
 * Evicts an allocation of `process` as the D3 power-down does (RES-05): its resident
 * flag clears (allocation_residency), its storage and the UMD's view of it stay. Tests only: the
 * OS evicts on its own only for power; an engine that fetches from it asserts.
 */
FSR_TEST_API fsr_status fsr_test_allocation_evict(struct fsr_process *process,
						  fsr_handle allocation);

/*
 * ConnectDoorbell as fsr_doorbell_connect, for a caller that holds the runtime lock already: an
 * interleaving observer (rt_interleave_set_observer) that plays a second UMD thread at a point
 * of the first, e.g. between a ring's load of the mapping and its store (a stale ring).
 */
FSR_TEST_API fsr_status fsr_test_doorbell_connect_locked(struct fsr_process *process,
							 fsr_handle hwqueue,
							 enum fsr_doorbell_status *status);

/*
 * Faults of the emulated GPU that TDR exists for (hw/reset.c; docs/runtime.md "TDR and recovery
 * as built"), for tests and the fault injector. Each takes the runtime lock (call it from a
 * thread that does not hold it); FSR_ERR_INVALID_ARGUMENT for an unknown adapter or engine.
 *
 * A hung engine: the work item in flight never ends, and the engine answers no preemption
 * request, until an engine or adapter reset. `hwqueue` 0: the work item the engine runs now
 * hangs, or, if it is idle, the next one to start there (of any queue); otherwise the first
 * work item of the next command buffer of the hardware queue `hwqueue` (its kernel handle) to
 * start on that engine (a ring buffer's first HW_PACKET_WORK, or a kernel-mode DMA packet).
 * The OS's watchdog then finds no progress for the TDR delay (TDR-02).
 */
FSR_TEST_API fsr_status fsr_test_engine_hang(struct fsr_runtime *runtime, uint32_t adapter_id,
					     uint32_t engine_id, fsr_handle hwqueue);
/*
 * A packet that ignores preemption: the next command buffer (ring buffer or DMA packet) of
 * `hwqueue` (any queue: 0) to start on that engine runs to its end even when a preemption
 * request comes meanwhile, and the engine answers the request only at that end (a coarser
 * boundary than it declared).
 */
FSR_TEST_API fsr_status fsr_test_packet_ignores_preemption(struct fsr_runtime *runtime,
							   uint32_t adapter_id, uint32_t engine_id,
							   fsr_handle hwqueue);
/*
 * FST-02, TDR-03: at its next step the engine reports Active->Hung (a GPU_ENGINE_STATE_CHANGE
 * interrupt, NewState HUNG, through the KMD's interrupt routine); the OS starts recovery at once.
 */
FSR_TEST_API fsr_status fsr_test_engine_report_hung(struct fsr_runtime *runtime,
						    uint32_t adapter_id, uint32_t engine_id);
/*
 * TDR-06: the next `count` resets of that engine (DxgkDdiResetEngine) fail (0: none), so that
 * the OS promotes the recovery to an adapter reset.
 */
FSR_TEST_API fsr_status fsr_test_engine_reset_fail(struct fsr_runtime *runtime, uint32_t adapter_id,
						   uint32_t engine_id, uint32_t count);
/*
 * MMU-14 (docs/runtime.md "Page faults as built"): the sum of every byte the engine's READ
 * accesses have read so far (hw/access.c), so that a test can check a read saw the memory its
 * VA maps; and the storage of an allocation of `process` (host memory standing for video
 * memory: what the GPU's writes land in), borrowed, with its size, so that a test can check
 * what landed where. FSR_ERR_INVALID_ARGUMENT / FSR_ERR_INVALID_HANDLE otherwise. Realtime:
 * read it only once the work that wrote it has completed (a wait on its fence orders it).
 */
FSR_TEST_API fsr_status fsr_test_engine_read_sum(struct fsr_runtime *runtime, uint32_t adapter_id,
						 uint32_t engine_id, uint64_t *sum);
FSR_TEST_API fsr_status fsr_test_allocation_storage(struct fsr_process *process,
						    fsr_handle allocation, uint8_t **storage,
						    uint64_t *size_bytes);
/*
 * What an emulated display's hardware knows of itself (PRE-13; docs/runtime.md "Display, vsync
 * and flips as built"): its vsyncs so far, the flip it scans out and the one pending in its flip
 * register (0: none), the flips it latched at a vsync, and its no-tearing watch: the frames
 * during whose scan-out the surface changed, which only a driver that flips immediately makes.
 */
struct fsr_test_display_state {
	uint64_t period_ns;
	uint64_t vsync_count;
	uint64_t scanout_flip_id;
	uint64_t pending_flip_id;
	uint64_t flips_latched;
	uint64_t torn_frames;
};

/*
 * Reads display `source_id` of adapter `adapter_id` (takes the runtime lock).
 * FSR_ERR_INVALID_ARGUMENT for an adapter or display that does not exist.
 */
FSR_TEST_API fsr_status fsr_test_display_get_state(struct fsr_runtime *runtime, uint32_t adapter_id,
						   uint32_t source_id,
						   struct fsr_test_display_state *state);

/*
 * Preemption for tests (spec 002; docs/runtime.md "Scheduling and preemption as built"): the OS
 * asks engine `engine_id` of adapter `adapter_id` to preempt what it runs, for `reason` (an
 * enum fstp_preempt_reason of the trace: 0 TIME_SLICE, 1 PRIORITY, 2 SUSPEND, 3 TDR, ...), as
 * its scheduler and TDR watchdog do (os_preempt_request). *request_id: the request's id, 0 when
 * none was issued. Takes the runtime lock. FSR_ERR_INVALID_ARGUMENT: unknown ids or reason.
 */
FSR_TEST_API fsr_status fsr_test_preempt_request(struct fsr_runtime *runtime, uint32_t adapter_id,
						 uint32_t engine_id, int reason,
						 uint64_t *request_id);
/* Whether the OS has handled the completion of request `request_id` (os_preempt_completed). */
FSR_TEST_API bool fsr_test_preempt_completed(struct fsr_runtime *runtime, uint32_t adapter_id,
					     uint32_t engine_id, uint64_t request_id);

/*
 * The runtime's own state, read for the fault injection invariants (docs/robustness.md) once a
 * run is idle: queues, and CPU waiters (blocking and asynchronous; kernel-mode queues' software
 * waits are the queues' business). A queue is innocent when its context was not put in error
 * nor suspended, its device is not lost, its process not killed and its work not abandoned.
 */
struct fsr_test_invariants {
	uint32_t innocent_queues;
	uint32_t guilty_queues;
	/* innocent queues whose progress fence is below LastQueuedValue: work that never ran */
	uint32_t stuck_innocent_queues;
	uint32_t waiting; /* CPU waiters still registered: neither released nor given DEVICE_LOST */
	uint32_t unreleased_waiters; /* of them, those whose fence already reached their value */
};
/* Takes the runtime lock: not from a tap. */
FSR_TEST_API void fsr_test_invariants(struct fsr_runtime *runtime, struct fsr_test_invariants *out);

/*
 * GpuMmu (docs/runtime.md "GpuMmu as built"): the root register the driver programmed into a
 * context of `process` (DxgkDdiSetRootPageTable; 0: none), as the GPU's MMU walks from it, and
 * the GPU MMU's walk of one access from such a register, as an engine makes it (hw_mmu_translate):
 * true with *host_ptr the byte the VA names, or false with *fault_type (enum fstp_fault_type:
 * 0 NOT_MAPPED, 1 READ_ONLY). `is_write`: the access kind. Both take the runtime lock (not from a
 * tap). What tests of the mapping rules and conformance drivers use to look through the page
 * tables without a work packet.
 */
FSR_TEST_API fsr_status fsr_test_context_root_register(struct fsr_process *process,
						       fsr_handle context, uint64_t *root_register);
FSR_TEST_API bool fsr_test_gpu_translate(struct fsr_runtime *runtime, uint32_t adapter_id,
					 uint64_t root_register, uint64_t va, bool is_write,
					 void **host_ptr, int *fault_type);
/*
 * The same walk for `count` VAs under one take of the lock (the benchmark's translation cost):
 * returns how many translated; *checksum sums the host addresses they reached (so the walks
 * cannot be optimized away).
 */
FSR_TEST_API uint64_t fsr_test_gpu_translate_many(struct fsr_runtime *runtime, uint32_t adapter_id,
						  uint64_t root_register, const uint64_t *vas,
						  size_t count, uint64_t *checksum);

#endif /* FENCESCOPE_TEST_API_H */
