/* SPDX-License-Identifier: MIT */
/*
 * The runtime's fault injector (sim mode only; docs/robustness.md): a plan of faults that the
 * emulated system meets at chosen points — an interrupt the GPU's line drops or delays, a ring
 * packet whose memory changes after the UMD validated it, a process killed in the middle of a
 * submission, a burst of fence log writes that overruns the log between two OS reads, and the
 * hardware faults of TDR (a hung engine, a packet that ignores preemption). Each fault fires
 * fencescope_os:fault_injected where it acts, and the modelled OS recovers from it as the spec
 * has it. The plan is part of struct fsr_runtime_config (fault_plan); fsr_runtime_create
 * refuses one in realtime mode, and copies it.
 *
 * Include <fencescope/runtime.h>, which includes this header.
 */
#ifndef FENCESCOPE_FAULT_H
#define FENCESCOPE_FAULT_H

#include <stdint.h>

#include <fencescope/status.h> /* FSR_API */

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds, with the values of the trace's `fault_kind` (docs/trace-format.md). */
enum fsr_fault_kind {
	/* The engine stops making progress in a packet (TDR; its hardware side is the TDR's). */
	FSR_FAULT_HUNG_ENGINE = 0,
	/* A packet runs past preemption requests (TDR's hardware side). */
	FSR_FAULT_IGNORES_PREEMPTION = 1,
	/*
	 * The GPU's interrupt line drops a native fence signaled interrupt after raising it
	 * (interrupt_raise fires, the OS never gets it). The OS's periodic check at the TDR
	 * cadence (FSR_FAULT_RESCAN_PERIOD_NS) finds the waiters it should have released.
	 */
	FSR_FAULT_LOST_INTERRUPT = 2,
	/*
	 * The line holds an interrupt (of any type) for `parameter` ns (at least, and by
	 * default, 1 ms) before the driver's interrupt routine gets it; what the engine sends up
	 * the line meanwhile waits behind it, in order.
	 */
	FSR_FAULT_DELAYED_INTERRUPT = 3,
	/*
	 * The memory of a command buffer the UMD validated and wrote into a user-mode queue's
	 * ring changes before the GPU reads it: the GPU meets a malformed command, ends the buffer
	 * FAULTED and reports it; the OS puts the queue's context in error (INVALID_COMMAND).
	 */
	FSR_FAULT_CORRUPT_PACKET = 4,
	/*
	 * The submitting process dies abnormally in fsr_cmdbuf_submit: after writing its ring and
	 * before ringing the doorbell (user mode), or once the OS queued the buffer (kernel mode).
	 * The OS runs the abnormal termination (TRM-03 to TRM-05); the call returns
	 * FSR_ERR_DESTROYED and the process may only be passed to fsr_process_terminate, which
	 * then frees it.
	 */
	FSR_FAULT_PROCESS_KILLED = 5,
	/*
	 * A runaway log writer: right after a log write the GPU writes `parameter` times the
	 * log's capacity (0 means 2) filler entries naming no fence into the queue's log, so that
	 * the OS's next read finds an overrun (LOG-17, LOG-18).
	 */
	FSR_FAULT_LOG_OVERRUN_STORM = 6,
};

#define FSR_FAULT_KIND_COUNT 7
/* fsr_fault.engine_id: any engine of the adapter. */
#define FSR_FAULT_ANY_ENGINE UINT32_MAX
/* The most faults a plan lists. */
#define FSR_MAX_FAULTS 64
/* A delayed interrupt is held at least this long (and this long when the plan says 0). */
#define FSR_FAULT_MIN_DELAY_NS UINT64_C(1000000)
/* The OS's check for lost wake-ups runs at the TDR cadence: every 2 s (TDR-02's delay). */
#define FSR_FAULT_RESCAN_PERIOD_NS UINT64_C(2000000000)

/*
 * One planned fault. It fires at one *opportunity* of its kind that matches adapter_id,
 * engine_id and hwqueue: the nth one (1-based) counted from at_ns, or, with nth 0, the first
 * at or after at_ns (sim time, ns). Opportunities: an interrupt going up an engine's line
 * (LOST: native fence signaled ones only; DELAYED: any), a buffer written into a user-mode ring
 * (CORRUPT), a submission (PROCESS_KILLED: fsr_cmdbuf_submit of any queue), a log entry
 * written (LOG_OVERRUN_STORM). Each fault fires at most once, and a queue has at most one
 * corrupt packet and one storm in a run (a second would have no effect of its own: the queue
 * stopped at the first malformed command; two storms between two reads are one overrun).
 */
struct fsr_fault {
	enum fsr_fault_kind kind;
	uint32_t adapter_id;
	uint32_t engine_id; /* or FSR_FAULT_ANY_ENGINE */
	uint64_t hwqueue;   /* kernel handle of the queue; 0: any queue */
	uint64_t at_ns;     /* 0: from the start */
	uint32_t nth;       /* 0: the first opportunity at or after at_ns */
	uint64_t parameter; /* DELAYED: the delay in ns; LOG_OVERRUN_STORM: capacities written */
};

/*
 * A fault plan: the listed faults, and a seeded random plan on top — at every opportunity of
 * kind k, a fault with probability random_ppm[k] / 1 000 000, drawn from a generator of its
 * own seeded with random_seed (0: no random faults), so that a run with faults is as
 * deterministic as one without, and a plan changes nothing else of the run. Random faults have
 * their kind's default parameter and stop after random_max of them (0: 16).
 */
struct fsr_fault_plan {
	uint32_t count;
	struct fsr_fault faults[FSR_MAX_FAULTS];
	uint64_t random_seed;
	uint32_t random_ppm[FSR_FAULT_KIND_COUNT];
	uint32_t random_max;
};

struct fsr_runtime;

/*
 * Adds `fault` to the running runtime's plan (sim mode only; a runtime created without a plan
 * gets one), so that a workload can aim a fault at a queue it has just made (its kernel handle
 * in `hwqueue`); its nth counts from now. FSR_ERR_NOT_SUPPORTED in realtime mode,
 * FSR_ERR_INVALID_ARGUMENT for a fault fsr_runtime_create would refuse, FSR_ERR_NO_RESOURCES
 * past FSR_MAX_FAULTS faults. Takes the runtime lock.
 */
FSR_API fsr_status fsr_runtime_add_fault(struct fsr_runtime *runtime,
					 const struct fsr_fault *fault);

/* The trace's name of a kind ("LOST_INTERRUPT", ...), or NULL for none. */
FSR_API const char *fsr_fault_kind_name(enum fsr_fault_kind kind);
/* The kind named `name` (as fsr_fault_kind_name, case-insensitive, '-' for '_'); -1 if none. */
FSR_API int fsr_fault_kind_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* FENCESCOPE_FAULT_H */
