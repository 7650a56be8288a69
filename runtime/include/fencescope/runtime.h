/* SPDX-License-Identifier: MIT */
/*
 * The fencescope reference runtime: an emulated GPU with its kernel-mode driver and a model of
 * the OS graphics kernel and user-mode driver, following the WDDM native fence and user-mode
 * submission documents (../shared/spec). Applications and scenarios drive it through this
 * API; every state change fires a tracepoint of docs/trace-format.md.
 *
 * One runtime holds adapters and emulated processes. It runs in one of two clock modes that
 * share all the code of the model:
 *  - FSR_CLOCK_SIM: a discrete-event loop in virtual time. Nothing runs by itself: the caller
 *    steps the loop (fsr_runtime_step, fsr_runtime_run_until, fsr_runtime_run_until_idle) and
 *    blocking calls step it for as long as they wait. Same seed and same calls give the same
 *    sequence of events.
 *  - FSR_CLOCK_REALTIME: one thread per engine and one for the OS, on CLOCK_MONOTONIC; blocking
 *    calls block the calling thread.
 *
 * Thread safety: in realtime mode every call may be made from any thread. In sim mode the
 * runtime belongs to the thread that created it.
 */
#ifndef FENCESCOPE_RUNTIME_H
#define FENCESCOPE_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include <fencescope/status.h>
#include <fencescope/version.h> /* FSR_VERSION */
#include <fencescope/fault.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The trace format this runtime writes (docs/trace-format.md). */
#define FSR_TRACE_FORMAT_MAJOR 1
#define FSR_TRACE_FORMAT_MINOR 5
#define FSR_INFINITE           UINT64_MAX
#define FSR_MAX_ENGINES        8
#define FSR_NO_MONITORED       UINT64_MAX
#define FSR_LATENCY_BUCKETS    512
/*
 * The most entries a fence log may hold (fsr_adapter_config.log_capacity_entries; scenario
 * files' "log-entries"), so that a log grown 16 times when tracing starts (LOG-20) still
 * counts its entries and positions in 32 bits. An entry is 32 bytes: at the maximum a log
 * takes 512 MiB (8 GiB grown). fsr_adapter_create refuses more.
 */
#define FSR_MAX_LOG_ENTRIES (UINT32_C(1) << 24)

typedef uint64_t fsr_handle;

struct fsr_runtime;

enum fsr_clock_mode {
	FSR_CLOCK_SIM = 0,
	FSR_CLOCK_REALTIME = 1,
};

struct fsr_runtime_config {
	enum fsr_clock_mode clock_mode;
	uint64_t seed; /* seeds fsr_runtime_random() */
	/* Period of fencescope_kmd:clock_correlation events; 0 means 10 ms, FSR_INFINITE only
	 * when an adapter starts. */
	uint64_t clock_correlation_period_ns;
	/* Delay between an interrupt and the OS handling it (sim mode); 0 means 2 µs. */
	uint64_t interrupt_latency_ns;
	/*
	 * Off by default: 0 and FSR_INFINITE mean the OS reads the fence logs only as spec 001
	 * has it, on interrupts and when a queue is destroyed. Any other value adds a periodic
	 * read at that period, which the spec does not have: it hides missing interrupt-time
	 * reads, so use it only to see entries that would otherwise wait for the next interrupt.
	 */
	uint64_t log_read_period_ns;
	/*
	 * Sim mode only: non-zero lets the engines, the OS and the API caller interleave at every
	 * access to a word the CPU and the GPU share, chosen by a scheduler seeded with this
	 * (docs/runtime.md, "Interleaving"). 0, the default, keeps one step at a time: runs and
	 * trace hashes as without it. Refused in realtime mode.
	 */
	uint64_t interleave_seed;
	/*
	 * Sim mode only: faults to inject (<fencescope/fault.h>, docs/robustness.md), copied by
	 * fsr_runtime_create. NULL, the default, injects none and changes nothing of a run.
	 * Refused (FSR_ERR_NOT_SUPPORTED) in realtime mode, and FSR_ERR_INVALID_ARGUMENT for a
	 * plan that names an unknown kind, too many faults, a delay below
	 * FSR_FAULT_MIN_DELAY_NS or a probability above 1.
	 */
	const struct fsr_fault_plan *fault_plan;
};

enum fsr_engine_type {
	FSR_ENGINE_3D = 0,
	FSR_ENGINE_COMPUTE = 1,
	FSR_ENGINE_COPY = 2,
};

/* Fences a coalesced fence-array interrupt names at most (fsr_adapter_config). */
#define FSR_MAX_INTERRUPT_FENCES 8
/* The longest an interrupt may be held for coalescing: 1 s. */
#define FSR_MAX_INTERRUPT_COALESCE_NS UINT64_C(1000000000)

/* Which form of native fence signaled interrupt the emulated GPU raises (INT-04, INT-11). */
enum fsr_interrupt_form {
	FSR_INTERRUPT_FENCE_ARRAY = 1, /* names the signalled fences */
	FSR_INTERRUPT_NULL_ARRAY = 2,  /* makes the OS scan every waiter */
	FSR_INTERRUPT_HWQUEUE = 3,     /* OptimizedNativeFenceSignaledInterrupt: names the queue */
};

/*
 * How the adapter's doorbells tell the GPU of new work (spec 000, UMS-17, UMS-20). The values are
 * the trace's `doorbell_model` (docs/trace-format.md).
 */
enum fsr_doorbell_model {
	FSR_DOORBELL_NONE = 0,      /* no user-mode submission (in fsr_ums_caps only) */
	FSR_DOORBELL_GLOBAL = 1,    /* one doorbell for every queue; the value names the queue */
	FSR_DOORBELL_DEDICATED = 2, /* a doorbell per connected queue, shared by victimization */
};

/* The most physical doorbells an adapter may have (fsr_adapter_config.physical_doorbells). */
#define FSR_MAX_PHYSICAL_DOORBELLS 64
/* The bounds of a doorbell's size in bytes (fsr_adapter_config.doorbell_size_bytes). */
#define FSR_MIN_DOORBELL_BYTES 8
#define FSR_MAX_DOORBELL_BYTES 4096

/* The most displays (VidPN sources) an adapter may have (fsr_adapter_config.display_count). */
#define FSR_MAX_DISPLAYS 4
/* A display's refresh period (fsr_adapter_config.vsync_period_ns): 60 Hz by default. */
#define FSR_DEFAULT_VSYNC_PERIOD_NS UINT64_C(16666667)
#define FSR_MIN_VSYNC_PERIOD_NS     UINT64_C(100000)     /* 10 kHz */
#define FSR_MAX_VSYNC_PERIOD_NS     UINT64_C(1000000000) /* 1 Hz */

/*
 * Where an engine can stop work for a preemption (PRE-03): D3DKMDT_GRAPHICS_PREEMPTION_GRANULARITY
 * and D3DKMDT_COMPUTE_PREEMPTION_GRANULARITY, numbered as the trace's preempt_granularity. In the
 * emulated GPU a WORK packet's ticks are a stream of primitives (dispatches) every 4096 ticks,
 * triangles (thread groups) every 256, pixels (threads) every 16, and a shader can stop at any
 * tick; DMA_BUFFER_BOUNDARY stops only between packets (docs/runtime.md "Scheduling and
 * preemption as built"). FSR_PREEMPT_DEFAULT (0) in fsr_adapter_config: the finest the engine
 * supports.
 */
enum fsr_preempt_granularity {
	FSR_PREEMPT_DEFAULT = 0,
	FSR_PREEMPT_DMA_BUFFER_BOUNDARY = 100,
	FSR_PREEMPT_PRIMITIVE_OR_DISPATCH_BOUNDARY = 200,
	FSR_PREEMPT_TRIANGLE_OR_THREAD_GROUP_BOUNDARY = 300,
	FSR_PREEMPT_PIXEL_OR_THREAD_BOUNDARY = 400,
	FSR_PREEMPT_SHADER_BOUNDARY = 500,
};

struct fsr_adapter_config {
	uint32_t engine_count;                              /* 1..FSR_MAX_ENGINES */
	enum fsr_engine_type engine_types[FSR_MAX_ENGINES]; /* one per engine */
	uint64_t gpu_ts_frequency_hz;                       /* 0 means 100 MHz */
	uint64_t gpu_ts_offset;                             /* counter value at CPU time 0 */
	int32_t gpu_ts_drift_ppm; /* counter drift against the CPU clock */
	/* Entries of each fence log of a user-mode queue, 1..FSR_MAX_LOG_ENTRIES; 0 means 4 KB
	 * worth (LOG-01). */
	uint32_t log_capacity_entries;
	/* Do not grow the logs when tracing is on (LOG-20), so overruns can be provoked. */
	bool keep_log_size_when_tracing;
	enum fsr_interrupt_form interrupt_form; /* 0 means FSR_INTERRUPT_FENCE_ARRAY */
	/*
	 * Interrupt coalescing (INT-06, INT-12, INT-13): a native fence signaled interrupt stays
	 * pending on the GPU's line this long before the driver's interrupt routine gets it, and
	 * every signal of the same engine that needs an interrupt meanwhile joins it instead of
	 * raising its own. The fence-array form then names every fence signalled since, up to
	 * FSR_MAX_INTERRUPT_FENCES, past which the GPU cannot tell the subset and sends the NULL
	 * array (INT-06); the HWQueue form names the queue while one queue signals and becomes
	 * the NULL-HWQueue form when another queue joins (INT-12). Deterministic in sim mode (it
	 * follows virtual time). 0: no coalescing, every interrupt goes up at once, alone.
	 * At most FSR_MAX_INTERRUPT_COALESCE_NS.
	 */
	uint64_t interrupt_coalesce_ns;
	/*
	 * User-mode submission (spec 000). Bit e set: engine e's node lacks the
	 * UserModeSubmissionSupported flag (UMS-04), so user-mode queues are refused there
	 * (UMS-05). Copy engines never have it. Only bits below engine_count may be set.
	 */
	uint32_t engines_without_user_mode_submission;
	/* The doorbell model (UMS-17, UMS-20); FSR_DOORBELL_NONE (0) means FSR_DOORBELL_GLOBAL. */
	enum fsr_doorbell_model doorbell_model;
	/*
	 * Physical doorbells: global model, 1 (0 means 1); dedicated model,
	 * 1..FSR_MAX_PHYSICAL_DOORBELLS (0 means 16), shared by victimization when more queues
	 * connect (UMS-22).
	 */
	uint32_t physical_doorbells;
	/*
	 * The doorbell memory size of the UMS caps (UMS-06): the size of a doorbell's dummy page
	 * and of its physical mapping. A power of two,
	 * FSR_MIN_DOORBELL_BYTES..FSR_MAX_DOORBELL_BYTES; 0 means 8 (one 64-bit word, the write
	 * pointer rung).
	 */
	uint32_t doorbell_size_bytes;
	/*
	 * Bit e set: the reference KMD connects engine e's doorbells with the status
	 * CONNECTED_NOTIFY_KMD (UMS-24), so that the UMD calls NotifyWorkSubmission after each
	 * ring and the notification, not the ring, makes the engine take the work. For tests;
	 * only bits below engine_count may be set.
	 */
	uint32_t doorbell_notify_kmd_engines;
	/*
	 * A polling command processor (docs/runtime.md "How the command processor learns of
	 * work"): in realtime, an engine with user-mode queues on its run list does not sleep
	 * until kicked when it has nothing to run, but spins on its physical doorbells' ring
	 * counts, as a running command processor does; a ring then wakes no thread (no system
	 * call on the UMD's path). It costs a CPU per such engine. Sim mode ignores it: virtual
	 * time has no spinning, the engine steps when a ring lands either way, and a recording
	 * is the same with or without it. Off by default.
	 */
	bool doorbell_polling;
	/*
	 * Engine F-states (spec 000, FST-01 to FST-07; docs/runtime.md "Engine F-states"): an
	 * engine whose user-mode queues all have doorbells and that has had no work at all for
	 * this long asks for F1 (a GPU_ENGINE_STATE_CHANGE interrupt, TRANSITION_TO_F1); the OS
	 * disconnects its doorbells and powers it down, and a ConnectDoorbell (or a kernel-mode
	 * submission) brings it back to F0. 0, the default: engines never ask. At most
	 * FSR_MAX_ENGINE_IDLE_TO_F1_NS.
	 */
	uint64_t engine_idle_to_f1_ns;
	/*
	 * TDR (spec 000, 002, 004; docs/runtime.md "TDR and recovery as built"): an engine with
	 * work outstanding and no progress for this long — its kernel-mode DMA packets not
	 * completed, its user-mode queues' progress fences not moving towards LastQueuedValue
	 * (FST-01) — is sent a preemption request (reason TDR, TDR-01), and recovered (engine
	 * reset, promoted to an adapter reset if it fails, TDR-06) if the request does not complete
	 * within tdr_preempt_timeout_ns. 0 means FSR_DEFAULT_TDR_DELAY_NS (TDR-02: 2 s);
	 * FSR_INFINITE: no watchdog (a GPU_ENGINE_STATE_CHANGE to Hung still starts recovery,
	 * TDR-03).
	 */
	uint64_t tdr_delay_ns;
	/* How long the TDR's preemption request has to complete; 0 means
	 * FSR_DEFAULT_TDR_PREEMPT_TIMEOUT_NS. */
	uint64_t tdr_preempt_timeout_ns;
	/*
	 * Emulated displays (VidPN sources 0..display_count-1; PRE-13, docs/runtime.md "Display,
	 * vsync and flips as built"): each scans out at vsync_period_ns, raises a vsync interrupt
	 * at every vertical sync (fencescope_hw:vsync) and takes the flips fsr_present queues
	 * (fencescope/queue.h) at the next vsync only. 0..FSR_MAX_DISPLAYS; 0, the default: no
	 * display, no vsync, presents refused.
	 */
	uint32_t display_count;
	/*
	 * The displays' refresh period, FSR_MIN_VSYNC_PERIOD_NS..FSR_MAX_VSYNC_PERIOD_NS; 0 means
	 * FSR_DEFAULT_VSYNC_PERIOD_NS (60 Hz). In sim mode vsync n of a display is exactly n
	 * periods after the adapter started.
	 */
	uint64_t vsync_period_ns;
	/*
	 * Preemption (spec 002, PRE-03, PRE-04): each engine's graphics and compute preemption
	 * granularity, as its driver declares them (engine_describe). A 3D engine preempts at its
	 * graphics one, a compute engine at its compute one; a copy engine only at a DMA buffer
	 * boundary whatever is set. FSR_PREEMPT_DEFAULT (0): the finest the emulated GPU supports,
	 * SHADER_BOUNDARY (a copy engine: DMA_BUFFER_BOUNDARY).
	 */
	enum fsr_preempt_granularity graphics_preempt_granularity[FSR_MAX_ENGINES];
	enum fsr_preempt_granularity compute_preempt_granularity[FSR_MAX_ENGINES];
	/*
	 * The driver declares PreemptionAware = 0 (Windows 7 behaviour): no mid-packet
	 * preemption, and the DMA packets one command buffer is split into run back to back in
	 * the same context. False, the default: preemption aware.
	 */
	bool preemption_unaware;
	/*
	 * PRE-15: how often the OS's scheduler looks at the engines while some context of the
	 * adapter has a priority other than the default or a time slice and work is pending (a
	 * ring gets work without the OS: the scheduler sees it only when it looks). 0 means
	 * 100 us.
	 */
	uint64_t scheduling_period_ns;
	/*
	 * PRE-14, PRE-06: each new context gets a context allocation of this many bytes
	 * (allocation_create), which the OS initializes by a paging packet on the context's
	 * engine (InitContextResource: one GPU tick per 16 bytes), and which goes with the
	 * context (allocation_destroy). Paging packets run before anything else on their engine
	 * and, preempted, keep their fence id. 0, the default: no context allocation. At most
	 * 4 GiB.
	 */
	uint64_t context_allocation_bytes;
	/*
	 * PRE-05: the GPU switches contexts lazily: before a kernel-mode DMA packet of another
	 * context than the last one the OS queued on the engine, the OS queues a zero-length
	 * context-switch packet of the new context (packet_queued.is_context_switch). Off by
	 * default.
	 */
	bool lazy_context_switch;
	/*
	 * XAD-10, XAD-11, XAD-17 (docs/runtime.md "Cross-adapter fences as built"): the adapter
	 * has no native fence support — an iGPU of spec 001's scenario 2. It takes kernel-mode
	 * queues only (user-mode queues are refused: UMS needs native fences), its fences are
	 * regular monitored fences (fence_create.fence_object MONITORED) whose values the OS
	 * writes from the CPU and whose waits it runs in software, and the native fence DDIs are
	 * never called for them. False, the default: native fences.
	 */
	bool no_native_fences;
};

/* TDR-02: the default TDR delay, two seconds. */
#define FSR_DEFAULT_TDR_DELAY_NS UINT64_C(2000000000)
/* The default time the TDR's preemption request has to complete before recovery: 100 ms. */
#define FSR_DEFAULT_TDR_PREEMPT_TIMEOUT_NS UINT64_C(100000000)

/* The longest fsr_adapter_config.engine_idle_to_f1_ns: 1 s, below the 2 s TDR cadence (FST-03). */
#define FSR_MAX_ENGINE_IDLE_TO_F1_NS UINT64_C(1000000000)

/*
 * What the OS learnt of an adapter's user-mode submission from its driver
 * (DxgkDdiQueryAdapterInfo with DXGKQAITYPE_USERMODESUBMISSION_CAPS, and each node's
 * UserModeSubmissionSupported flag from DxgkDdiDescribeEngine, UMS-04).
 */
struct fsr_ums_caps {
	/* FSR_DOORBELL_NONE when no engine takes user-mode submission, or when the driver's caps
	 * did not make sense (then the other fields are 0 and user-mode queues are refused). */
	enum fsr_doorbell_model doorbell_model;
	uint32_t physical_doorbells;
	uint32_t doorbell_size_bytes;          /* UMS-06 */
	uint32_t user_mode_submission_engines; /* bit e: engine e's node has the flag (UMS-04) */
};

/* Fills `config` with the defaults of one 3D, one compute and one copy engine. */
FSR_API void fsr_adapter_config_init(struct fsr_adapter_config *config);

/* Creates a runtime. Returns: (transfer full) in *runtime; release with fsr_runtime_destroy. */
FSR_API fsr_status fsr_runtime_create(const struct fsr_runtime_config *config,
				      struct fsr_runtime **runtime);

/*
 * Terminates every process that is still alive (normally: their queued work completes first,
 * and each queue's logs are read a last time), stops the clock, and frees everything.
 */
FSR_API void fsr_runtime_destroy(struct fsr_runtime *runtime);

FSR_API enum fsr_clock_mode fsr_runtime_get_clock_mode(const struct fsr_runtime *runtime);

/* The runtime's CPU clock in ns: virtual time in sim mode, CLOCK_MONOTONIC otherwise. */
FSR_API uint64_t fsr_runtime_now_ns(struct fsr_runtime *runtime);

/* A deterministic pseudo-random number from the configured seed (xoshiro256**). */
FSR_API uint64_t fsr_runtime_random(struct fsr_runtime *runtime);

/*
 * Sim mode: runs the earliest pending step of an actor. *has_run tells whether there was one.
 * Realtime mode: FSR_ERR_NOT_SUPPORTED.
 */
FSR_API fsr_status fsr_runtime_step(struct fsr_runtime *runtime, bool *has_run);

/* Sim mode: runs every step due up to `time_ns` and sets the clock to it. Realtime: sleeps. */
FSR_API fsr_status fsr_runtime_run_until(struct fsr_runtime *runtime, uint64_t time_ns);

/*
 * Sim mode: runs until nothing is scheduled. Realtime: waits until nothing can run — no
 * interrupt pending, no engine busy, no queue with work it can run (a GPU wait that a signal
 * has satisfied can run, even before its engine has looked again).
 */
FSR_API fsr_status fsr_runtime_run_until_idle(struct fsr_runtime *runtime);

/* Counters for tests and benchmarks. */
struct fsr_runtime_stats {
	uint64_t steps; /* actor steps run */
	/* Tracepoints fired (whether or not a session records them), counting the clock pair per
	 * adapter that fsr_runtime_destroy() fires last, so a trace holds exactly this many. */
	uint64_t events;
	uint64_t interrupts;          /* interrupts the emulated GPU raised that reached the OS */
	uint64_t spurious_interrupts; /* fence interrupts that released no waiter (SYN-07) */
	uint64_t log_entries_read;    /* fence log entries the OS read */
	uint64_t log_entries_lost;    /* fence log entries lost to overruns */
	uint64_t log_anomalies;       /* entries breaking a timestamp rule or naming no fence */
	uint64_t fences_scanned;      /* fence values read by fallback scans after overruns */
	/* Sim mode: a hash of every fired event's name and integer fields, in order (same calls,
	 * same hash). Realtime runs are not reproducible: it keeps its initial value. */
	uint64_t trace_hash;
	/*
	 * Kernel-mode submit → start on the engine (counted when the packet's completion reaches
	 * the OS), as a histogram: eight buckets per power of
	 * two, bucket 8k + j counting latencies in [2^k (1 + j/8), 2^k (1 + (j+1)/8)) ns.
	 * fsr_latency_percentile() reads it.
	 */
	uint64_t submit_to_start[FSR_LATENCY_BUCKETS];
	/*
	 * User-mode submit → start, the same histogram: from the UMD's fsr_cmdbuf_submit writing
	 * the buffer into the ring to the engine starting it (the command processor took it from a
	 * doorbell ring, a connect or a notification, then reached it).
	 */
	uint64_t user_mode_submit_to_start[FSR_LATENCY_BUCKETS];
	/* Faults the injector caused, per enum fsr_fault_kind (fault_injected events). */
	uint64_t faults_injected[FSR_FAULT_KIND_COUNT];
	/* Waiters the OS's periodic check released: wake-ups a lost interrupt had withheld. */
	uint64_t waiters_rescued;
};

/* The latency at or below which `fraction` (0..1) of a histogram's samples fall, in ns. */
FSR_API uint64_t fsr_latency_percentile(const uint64_t histogram[FSR_LATENCY_BUCKETS],
					double fraction);
FSR_API void fsr_runtime_get_stats(struct fsr_runtime *runtime, struct fsr_runtime_stats *stats);

/* Adds an adapter; its id (0, 1, ...) in *adapter_id. */
FSR_API fsr_status fsr_adapter_create(struct fsr_runtime *runtime,
				      const struct fsr_adapter_config *config,
				      uint32_t *adapter_id);

/* GPU timestamp counter of an adapter now. */
FSR_API fsr_status fsr_adapter_read_gpu_ts(struct fsr_runtime *runtime, uint32_t adapter_id,
					   uint64_t *gpu_ts);

/* The user-mode submission caps the adapter's driver reported (D3DKMTQueryAdapterInfo). */
FSR_API fsr_status fsr_adapter_query_ums_caps(struct fsr_runtime *runtime, uint32_t adapter_id,
					      struct fsr_ums_caps *caps);

/* A device power state (spec 000, DST; the trace's device_power values). */
enum fsr_device_power {
	FSR_DEVICE_POWER_D0 = 0,
	FSR_DEVICE_POWER_D3 = 3,
};

/*
 * Device D-states for tests and scenarios (docs/runtime.md, "Device D-states"). D3: the OS
 * suspends every context on the GPU (reason POWER), disconnects every doorbell (RETRY, reason
 * DEVICE_D3), evicts the rings and powers the device down (DST-01 to DST-03). A ConnectDoorbell
 * in D3 — the UMD's reconnect after a ring, or fsr_doorbell_connect — wakes it (DST-04 to
 * DST-07), as does D0 here (no doorbell is connected then), and a normal process termination
 * (fsr_runtime_destroy too). Setting the state it is in does nothing. A queue destroyed in D3
 * waits for work that only a wake runs: wake the device first.
 */
FSR_API fsr_status fsr_adapter_set_power(struct fsr_runtime *runtime, uint32_t adapter_id,
					 enum fsr_device_power state);

/* An emulated process: its own handle table and a GPU virtual address space per adapter
 * (<fencescope/memory.h>). */
struct fsr_process;

/* Returns: (transfer none) in *process: owned by the runtime until fsr_process_terminate. */
FSR_API fsr_status fsr_process_create(struct fsr_runtime *runtime, const char *name,
				      struct fsr_process **process);
FSR_API uint32_t fsr_process_get_id(const struct fsr_process *process);

/*
 * Ends a process. Normal termination (TRM-01) waits until the work each queue has queued
 * completes; abnormal termination (TRM-04) abandons it. Then every queue, context, device and
 * fence handle of the process is destroyed and `process` is freed. (Spec 000's abnormal order —
 * suspend each context, then disconnect each doorbell — waits for contexts to be suspendable
 * and for doorbells: the runtime has neither yet.)
 */
FSR_API fsr_status fsr_process_terminate(struct fsr_process *process, bool is_abnormal);

#ifdef __cplusplus
}
#endif

#include <fencescope/fence.h>
#include <fencescope/queue.h>
#include <fencescope/memory.h>

#endif /* FENCESCOPE_RUNTIME_H */
