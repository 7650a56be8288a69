/* SPDX-License-Identifier: MIT */
/*
 * Native GPU fences (spec 001): a 64-bit CurrentValue that only increases, written by the GPU
 * and by the OS on behalf of CPU signals, and a MonitoredValue that the OS keeps equal to the
 * least value its CPU waiters wait for, minus one (UINT64_MAX without waiters), so that the GPU
 * raises an interrupt only when a signal can release a waiter.
 *
 * A process names a fence by its local handle (a D3DKMT handle, valid only in that process).
 * A shared fence also has a global handle that another process opens to get its own local
 * handle (SHF-01, SHF-02); the fence is destroyed when its last local handle is closed (SHF-04).
 * Include <fencescope/runtime.h>, not this header.
 */
#ifndef FENCESCOPE_FENCE_H
#define FENCESCOPE_FENCE_H

#include <fencescope/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

enum fsr_fence_flags {
	FSR_FENCE_SHARED = 1 << 0,
	/*
	 * XAD-01: a cross-adapter fence (implies FSR_FENCE_SHARED): a device of another adapter
	 * opens it by its global handle with fsr_fence_open, and both adapters' GPUs reach the
	 * same CurrentValue (XAD-03); its MonitoredValue is 0 on every adapter for its whole life
	 * (XAD-05), and the OS propagates every signal to the other adapters (XAD-07).
	 */
	FSR_FENCE_CROSS_ADAPTER = 1 << 1,
	/*
	 * D3DDDI_NATIVEFENCE_TYPE_INTRA_GPU instead of the default type: fence_create.fence_type.
	 * It behaves as a default fence in the runtime; with FSR_FENCE_CROSS_ADAPTER it is refused
	 * (XAD-02: FSR_ERR_INVALID_ARGUMENT).
	 */
	FSR_FENCE_INTRA_GPU = 1 << 2,
};

/*
 * Creates a native fence on `device` with CurrentValue = `initial_value`.
 * Returns: the process-local handle in *fence, the global handle in *global_handle (nullable
 * out-param; other processes open a shared fence with it).
 */
FSR_API fsr_status fsr_fence_create(struct fsr_process *process, fsr_handle device,
				    uint64_t initial_value, uint32_t flags, fsr_handle *fence,
				    fsr_handle *global_handle);

/*
 * Opens a shared fence of another process (SHF-02), or a cross-adapter fence on a device of
 * another adapter (XAD-03: the same CurrentValue; XAD-10, XAD-11: opened as a monitored fence
 * on an adapter without native fences, as a native fence on one with them). A fence created
 * without FSR_FENCE_CROSS_ADAPTER is refused on another adapter (FSR_ERR_NOT_SUPPORTED).
 * Returns: a new local handle in *fence.
 */
FSR_API fsr_status fsr_fence_open(struct fsr_process *process, fsr_handle device,
				  fsr_handle global_handle, fsr_handle *fence);

/*
 * Closes the process's local handle (D3DKMTDestroySynchronizationObject, SHF-06); the fence is
 * destroyed with its last handle. Outstanding CPU waits on it end with FSR_ERR_DESTROYED.
 */
FSR_API fsr_status fsr_fence_close(struct fsr_process *process, fsr_handle fence);

/* Reads CurrentValue as user mode may (NFV-02). */
FSR_API fsr_status fsr_fence_read(struct fsr_process *process, fsr_handle fence,
				  uint64_t *current_value);

/*
 * SignalSynchronizationObjectFromCpu (NFV-13): sets CurrentValue to `value` and releases the
 * waiters it satisfies. A value lower than CurrentValue is refused (FSR_ERR_VALUE_REGRESSION);
 * an equal one is accepted and changes nothing.
 */
FSR_API fsr_status fsr_fence_signal_cpu(struct fsr_process *process, fsr_handle fence,
					uint64_t value);

enum fsr_wait_mode {
	FSR_WAIT_BLOCKING = 0, /* a waiter in the OS's list: moves MonitoredValue */
	FSR_WAIT_POLLING = 1,  /* reads CurrentValue every `poll` interval: the OS never knows */
};

/*
 * Waits until CurrentValue ≥ value (NFV-07), at most `timeout_ns` (FSR_INFINITE: no limit; 0:
 * test once). Returns FSR_OK, FSR_ERR_TIMEOUT, FSR_ERR_DESTROYED when the fence is destroyed
 * meanwhile, or FSR_ERR_BAD_STATE in sim mode when nothing left to run could satisfy it.
 * In sim mode the call runs the event loop while it waits.
 */
FSR_API fsr_status fsr_fence_wait_cpu(struct fsr_process *process, fsr_handle fence, uint64_t value,
				      uint64_t timeout_ns, enum fsr_wait_mode mode);

/*
 * Called once when an asynchronous wait ends, from the OS's context without runtime locks
 * held. It may call the API but must not block: in realtime mode it runs on the OS's or an
 * engine's thread, which would stop handling interrupts meanwhile. `status` is as for
 * fsr_fence_wait_cpu.
 */
typedef void (*fsr_wait_callback)(fsr_status status, uint64_t observed_value, void *user_data);

/*
 * Adds a blocking CPU waiter without blocking the caller: the callback runs when it ends. This
 * is how a scenario has many CPU waiters outstanding at once in sim mode. The callback is not
 * run when the call fails.
 */
FSR_API fsr_status fsr_fence_wait_cpu_async(struct fsr_process *process, fsr_handle fence,
					    uint64_t value, uint64_t timeout_ns,
					    fsr_wait_callback callback, void *user_data);

#ifdef __cplusplus
}
#endif

#endif /* FENCESCOPE_FENCE_H */
