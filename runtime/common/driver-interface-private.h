/* SPDX-License-Identifier: MIT */
/*
 * The interface between the OS graphics kernel (os/) and a kernel-mode driver (kmd/), as the
 * WDDM draws it (seeds 000, 001, 003): the OS calls the driver only through the DDI table the
 * driver fills at DriverEntry (struct dxgk_ddi, as DRIVER_INITIALIZATION_DATA), and the driver
 * calls the OS only through the callback table the OS hands it when an adapter is added
 * (struct dxgk_callbacks, as DXGKRNL_INTERFACE). docs/driver-interface.md says, for each entry,
 * who calls it, in which order, under which lock and which rule ids it carries.
 *
 * Every entry runs with the runtime lock held (the OS's device interrupt level, SYN-03) except
 * DxgkDdiStartDevice and DxgkDdiRemoveAdapter, which the OS calls outside it. `miniport` is the
 * driver's adapter context (DxgkDdiAddAdapter returns it); `os_adapter` is the OS's.
 *
 * A test hands the OS another driver by passing another table to fsr_adapter_create_with_ddi
 * (os/os-private.h): a faulty variant copies kmd_driver_entry's table and replaces one entry.
 */
#ifndef FENCESCOPE_RUNTIME_DRIVER_INTERFACE_H
#define FENCESCOPE_RUNTIME_DRIVER_INTERFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fencescope/runtime.h>

#include "common/trace-private.h"

struct fsr_adapter;
struct fsr_fence;
struct os_hwqueue;
struct os_context;
struct os_doorbell;
struct rt_doorbell_page;
struct hw_dma_packet;
struct hw_interrupt;
struct hw_fence_log;
struct dxgk_engine_caps;

/* What DxgkDdiQueryAdapterInfo can be asked (DXGK_QUERYADAPTERINFOTYPE). */
enum dxgk_query_adapter_info_type {
	DXGKQAITYPE_USERMODESUBMISSION_CAPS = 1,
	DXGKQAITYPE_DRIVERCAPS = 2, /* struct dxgk_drivercaps (its flip caps, PRE-13) */
	DXGKQAITYPE_GPUMMUCAPS = 3, /* struct dxgk_gpummu_caps (MMU-02, MMU-03, MMU-12) */
};

/*
 * The GpuMmu (spec 004; docs/runtime.md "GpuMmu as built"). The page tables' FORMAT is the
 * driver's (MMU-02): the OS learns only their geometry from these caps (DXGK_GPUMMUCAPS and
 * its DXGK_PAGE_TABLE_LEVEL_DESCRIPTORs), asks the driver the root table's size
 * (DxgkDdiGetRootPageTableSize), allocates every table itself (zero-filled: the caps say an
 * all-zero entry is invalid), and has the driver write entries in its format from the generic
 * struct dxgk_pte (DxgkDdiUpdatePageTable) and program a context's root
 * (DxgkDdiSetRootPageTable).
 */
#define DXGK_MAX_PAGE_TABLE_LEVELS 4

/* DXGK_PAGE_TABLE_LEVEL_DESCRIPTOR, as the model needs it. */
struct dxgk_page_table_level {
	uint32_t index_bit_count; /* VA bits this level indexes (entries: 2^bits, the root's max) */
	uint32_t va_shift;        /* the lowest VA bit it indexes: an entry spans 2^shift bytes */
	uint32_t entry_bytes; /* an entry's size (a table: entries x this, PageTableSizeInBytes) */
};

/*
 * DXGK_GPUMMUCAPS: levels[0] is the resizable root, levels[level_count - 1] the leaf, which
 * maps 4 KB pages. With `is_64kb_page_supported` a memory segment can be managed in 64 KB
 * pages (MMU-12); with `is_dual_pde_supported` an entry of the level above the leaf names two
 * leaf tables, one of 4 KB pages and one of 64 KB pages (leaf_64kb_index_bit_count entries),
 * so both sizes mix in one span.
 */
struct dxgk_gpummu_caps {
	uint32_t va_bit_count;
	uint32_t level_count; /* 2..DXGK_MAX_PAGE_TABLE_LEVELS */
	struct dxgk_page_table_level levels[DXGK_MAX_PAGE_TABLE_LEVELS];
	bool is_64kb_page_supported;
	bool is_dual_pde_supported;
	uint32_t leaf_64kb_index_bit_count;
	uint32_t table_alignment_bytes; /* every table's memory (the root's too) */
};

/*
 * DXGK_PTE, the OS's generic entry that the driver turns into its format. At the leaf:
 * `address` is the page (host memory of the allocation: the model's physical memory), with
 * `page_size_bytes` 4 KB or 64 KB. Above it: `address` is the next level's table, and
 * `page_size_bytes` (level above the leaf only) the page size of that leaf table.
 */
struct dxgk_pte {
	bool is_valid;
	bool is_read_only;
	uint32_t page_size_bytes;
	void *address;
};

/* DXGKARG_UPDATEPAGETABLE: `entry_count` entries of table `table` from `first_entry`. */
struct dxgk_update_page_table {
	uint32_t process_id; /* for the trace */
	uint64_t table_id;   /* the OS's name of the table (page_table_create) */
	void *table;         /* its memory */
	uint32_t level;
	uint32_t first_entry;
	uint32_t entry_count;
	uint64_t first_va; /* the first VA the entries span (trace) */
	const struct dxgk_pte *entries;
};

/*
 * DXGK_FLIPCAPS, the part of DXGK_DRIVERCAPS the model reads. PRE-13: the scheduler preempts
 * even while flips are pending, so a driver must flip by MMIO on the next vsync and say so with
 * FlipOnVSyncMmIo = 1; the OS refuses presents on an adapter whose driver does not.
 */
struct dxgk_flipcaps {
	bool flip_on_vsync_mmio;
};

/* DXGK_DRIVERCAPS (DXGKQAITYPE_DRIVERCAPS): what the model asks of it. */
struct dxgk_drivercaps {
	struct dxgk_flipcaps flip_caps;
};

/*
 * DXGKARG_SETVIDPNSOURCEADDRESS: the surface display `vidpn_source_id` scans out from now on.
 * The model's surfaces have no memory: `flip_id` stands for PrimaryAddress. With
 * flip_on_next_vsync the display takes it at its next vertical sync (an MMIO flip: the address
 * register is latched at the vsync, never during a scan-out, PRE-13); flip_immediate, which
 * the OS never asks for, would change it at once.
 */
struct dxgk_set_vidpn_source_address {
	uint32_t vidpn_source_id;
	uint64_t flip_id;
	struct {
		bool flip_immediate;
		bool flip_on_next_vsync;
	} flags;
};

/*
 * DXGK_USERMODESUBMISSION_CAPS: the doorbell memory size the spec requires (UMS-06), and the
 * doorbell model and count, which the OS reports in adapter_create (UMS-17, UMS-20).
 */
struct dxgk_usermodesubmission_caps {
	uint32_t doorbell_size_bytes;
	enum fsr_doorbell_model doorbell_model; /* FSR_DOORBELL_NONE: no user-mode submission */
	uint32_t physical_doorbells;
};

/*
 * DXGK_ENGINESTATUS, as the model extends it: what DxgkDdiQueryEngineStatus answers the TDR
 * watchdog (os/tdr.c).
 */
struct dxgk_engine_status {
	bool is_busy;                       /* the engine has work it runs or can run */
	struct os_context *running_context; /* whose work item is in flight, NULL if none */
};

/* The driver calls the OS through these only (DxgkCb*). */
struct dxgk_callbacks {
	/*
	 * From DxgkDdiInterruptRoutine, at interrupt level (lock held): queue `interrupt` for the
	 * OS's deferred handling (its DPC, the OS actor), which frees it. INT-01, INT-04..INT-13.
	 */
	void (*DxgkCbNotifyInterrupt)(struct fsr_adapter *os_adapter,
				      struct hw_interrupt *interrupt);
	/*
	 * From DxgkDdiInterruptRoutine, at interrupt level (lock held): a wait or signal packet
	 * naming `fence` has retired on the GPU; the OS drops the reference the queued packet held
	 * (it frees a destroyed fence nothing names any more, SHF-04).
	 */
	void (*DxgkCbReleasePacketFence)(struct fsr_adapter *os_adapter, struct fsr_fence *fence);
	/*
	 * UMS-23, RES-06: from inside DxgkDdiConnectDoorbell (lock held), the KMD victimizes
	 * `doorbell` before it disconnects its physical doorbell: the OS writes `status` to the
	 * status word, then rotates the mapping to the dummy page, and returns. It takes no lock
	 * and calls no DDI.
	 */
	void (*DxgkCbDisconnectDoorbell)(struct fsr_adapter *os_adapter,
					 struct os_doorbell *doorbell,
					 enum fstp_doorbell_status status);
};

/* What the driver's interrupt routine is: the GPU's line calls it with the miniport context. */
typedef void (*dxgk_interrupt_routine)(void *miniport, struct hw_interrupt *interrupt);

/* The OS calls the driver through these only (DxgkDdi*). */
struct dxgk_ddi {
	/* Adapter start: the driver makes its context and initialises the GPU's engines. */
	int (*DxgkDdiAddAdapter)(struct fsr_adapter *os_adapter,
				 const struct dxgk_callbacks *callbacks, void **miniport);
	/* Outside the lock: connects the GPU's interrupt line to `isr` and starts the engines. */
	void (*DxgkDdiStartDevice)(void *miniport, dxgk_interrupt_routine isr);
	/* Outside the lock, engines stopped: frees what the GPU still holds and the context. */
	void (*DxgkDdiRemoveAdapter)(void *miniport);
	/*
	 * UMS-06, UMS-17, UMS-20: fills `output` (`output_size` bytes) with the adapter's answer to
	 * `type`; DXGKQAITYPE_USERMODESUBMISSION_CAPS takes a struct dxgk_usermodesubmission_caps.
	 * Non-zero: the driver does not answer that query.
	 */
	int (*DxgkDdiQueryAdapterInfo)(void *miniport, enum dxgk_query_adapter_info_type type,
				       void *output, size_t output_size);
	/* UMS-04: an engine's type and whether it takes user-mode submission (engine_describe). */
	void (*DxgkDdiDescribeEngine)(void *miniport, uint32_t engine_id,
				      struct dxgk_engine_caps *caps);
	/* GPV-04: one CPU sample and the GPU counter at that instant (clock_correlation). */
	void (*DxgkDdiCalibrateGpuClock)(void *miniport, uint64_t cpu_ns);
	/* The GPU counter at CPU time cpu_ns (fsr_adapter_read_gpu_ts). */
	uint64_t (*DxgkDdiReadGpuTimestamp)(void *miniport, uint64_t cpu_ns);
	/* True when the engine has nothing it can run (realtime idle). */
	bool (*DxgkDdiQueryEngineIdle)(void *miniport, uint32_t engine_id);
	/* UMS-05: a hardware queue joins its engine (user mode: the engine's run list). */
	void (*DxgkDdiCreateHwQueue)(void *miniport, struct os_hwqueue *queue);
	/* TRM-01..04: the queue leaves its engine; work in flight finishes with no effect. */
	void (*DxgkDdiDestroyHwQueue)(void *miniport, struct os_hwqueue *queue);
	/* INT-01, PRE-15: a kernel-mode queue's DMA packet to its engine. */
	void (*DxgkDdiSubmitCommand)(void *miniport, struct hw_dma_packet *packet);
	/* SYN-01, SYN-04, SYN-05: store MonitoredValue, full barrier, return CurrentValue. */
	uint64_t (*DxgkDdiUpdateMonitoredValues)(void *miniport, struct fsr_fence *fence,
						 uint64_t monitored_value, uint32_t waiter_count);
	/* NFV-01, NFV-13: a CPU signal (or notification) of a native fence. */
	void (*DxgkDdiUpdateCurrentValuesFromCpu)(void *miniport, struct fsr_fence *fence,
						  uint64_t value, bool notification_only);
	/*
	 * LOG-01, LOG-03, LOG-04: the OS hands a queue's log buffer of `type` to the driver, which
	 * programs the GPU with it once no engine step is using the one before; that one comes
	 * back in *log for the OS to free (zeroed when there was none).
	 */
	void (*DxgkDdiSetNativeFenceLogBuffer)(void *miniport, struct os_hwqueue *queue,
					       enum fstp_log_type type, struct hw_fence_log *log);
	/*
	 * SYN-10: the barrier before the OS reads log entries, once per read for every HWQueue
	 * whose logs have new entries (`queues`, `queue_count` >= 1).
	 */
	void (*DxgkDdiUpdateNativeFenceLogs)(void *miniport, struct os_hwqueue *const *queues,
					     uint32_t queue_count);
	/* SHF-01: a global native fence now exists; its handle is live until Destroy (INT-05). */
	void (*DxgkDdiCreateNativeFence)(void *miniport, struct fsr_fence *fence);
	/* SHF-01, SHF-02: process `process_id` has local handle `local_handle` of `fence`. */
	void (*DxgkDdiOpenNativeFence)(void *miniport, struct fsr_fence *fence, uint32_t process_id,
				       uint64_t local_handle);
	/* SHF-03, SHF-04: process `process_id` closed `local_handle`. */
	void (*DxgkDdiCloseNativeFence)(void *miniport, struct fsr_fence *fence,
					uint32_t process_id, uint64_t local_handle);
	/*
	 * SHF-04, SHF-05: the global fence is gone, after its last close and once no packet and
	 * no queued interrupt names it (INT-05). The OS frees `fence` right after.
	 */
	void (*DxgkDdiDestroyNativeFence)(void *miniport, struct fsr_fence *fence);
	/*
	 * UMS-09, UMS-10: the KMD makes its doorbell object; it assigns no physical doorbell and
	 * touches no other doorbell.
	 */
	void (*DxgkDdiCreateDoorbell)(void *miniport, struct os_doorbell *doorbell);
	/*
	 * UMS-12, UMS-15, UMS-17..UMS-24: connects `doorbell` to a physical doorbell (*physical)
	 * and says which connected status the OS writes (*status: CONNECTED or
	 * CONNECTED_NOTIFY_KMD). Dedicated model without a free one: victimizes the least recently
	 * used other doorbell (DxgkCbDisconnectDoorbell, then the hardware disconnect, then the
	 * connect). *page: the physical doorbell's page, which the OS maps
	 * (DoorbellCpuVirtualAddress). The GPU takes the queue's write pointer on connect.
	 * Non-zero: refused (status ABORT).
	 */
	int (*DxgkDdiConnectDoorbell)(void *miniport, struct os_doorbell *doorbell,
				      uint32_t *physical, struct rt_doorbell_page **page,
				      enum fstp_doorbell_status *status);
	/*
	 * TRM-01, FST-04 (reason ENGINE_F1; to come, D3): an OS-initiated disconnect (the OS
	 * already wrote the status and rotated the mapping); the GPU takes the queue's write
	 * pointer first.
	 */
	void (*DxgkDdiDisconnectDoorbell)(void *miniport, struct os_doorbell *doorbell,
					  enum fstp_disconnect_reason reason);
	/* RES-02, TRM-01: the KMD's doorbell object goes (after any disconnect). */
	void (*DxgkDdiDestroyDoorbell)(void *miniport, struct os_doorbell *doorbell);
	/*
	 * UMS-24, UMS-25: the UMD read CONNECTED_NOTIFY_KMD after its ring; one round trip per
	 * call, which makes the GPU take the queue's write pointer and counts as a use (LRU).
	 */
	void (*DxgkDdiNotifyWorkSubmission)(void *miniport, struct os_doorbell *doorbell,
					    uint64_t progress_value);
	/*
	 * SUS-01, SUS-02, SUS-03 (also for the reasons POWER and TERMINATION): every HWQueue
	 * of `context` leaves its engine's hardware scheduler list. A work item the engine is
	 * running finishes; the queue stops at the next packet boundary (its ring, or a DMA packet
	 * not started yet). Doorbells stay connected and the rings resident: rings are still
	 * taken, but nothing runs, signals or logs. Fires context_suspend.
	 */
	void (*DxgkDdiSuspendContext)(void *miniport, struct os_context *context,
				      enum fstp_preempt_reason reason);
	/*
	 * SUS-04, SUS-05: the HWQueues of `context` are back on the list, and the
	 * command processor takes each doorbell queue's write pointer, so the work queued
	 * meanwhile runs without a new ring. Fires context_resume with `reason`, the OS's reason
	 * that went last (the spec's ResumeContext carries none: the model passes it for the
	 * trace).
	 */
	void (*DxgkDdiResumeContext)(void *miniport, struct os_context *context,
				     enum fstp_preempt_reason reason);
	/*
	 * FST-04, FST-06: the engine's power component goes to `fstate`: F1 once the OS has
	 * disconnected every doorbell of the engine's queues, F0 before any connect or submission
	 * to it. The GPU's command processor of an engine in F1 takes and runs nothing. Non-zero:
	 * the engine has work again (taken since it asked for F1) and stays in F0.
	 */
	int (*DxgkDdiSetPowerComponentFState)(void *miniport, uint32_t engine_id,
					      enum fstp_engine_power fstate);
	/*
	 * DST-01, DST-05: the device's power state. D3 is the last step of the power-down (every
	 * context suspended, every doorbell disconnected, the rings evicted): the GPU's engines
	 * take and run nothing until D0, the first step of the wake.
	 */
	void (*DxgkDdiSetPowerState)(void *miniport, enum fstp_device_power dstate);
	/*
	 * PRE-13: the OS has the driver program a flip of display `args->vidpn_source_id`
	 * (FlipOnNextVSync), one at a time per display: the next once the vsync interrupt reported
	 * this one latched (CRTC_VSYNC with its flip_id). Non-zero: refused, nothing programmed.
	 */
	int (*DxgkDdiSetVidPnSourceAddress)(void *miniport,
					    const struct dxgk_set_vidpn_source_address *args);
	/*
	 * PRE-03, PRE-04 (DxgkDdiPreemptCommand; also the TDR watchdog's): the OS asks engine
	 * `engine_id` to preempt what it runs, request `request_id` (unique per adapter,
	 * increasing), for `reason`. The KMD programs the engine to stop at the finest boundary it
	 * declared for the engine (engine_describe; a DMA buffer boundary when it declared
	 * PreemptionAware = 0) and returns the handle of the context the engine runs (0: nothing),
	 * which the OS names in preempt_request. The completion comes later from the GPU:
	 * preempt_complete (and packet_end PREEMPTED when a packet was stopped mid-way), then the
	 * DMA_PREEMPTED interrupt, which hands a preempted DMA packet back with what is left of it.
	 * An engine that runs nothing completes at once (granularity NONE, no work left).
	 */
	fsr_handle (*DxgkDdiPreemptCommand)(void *miniport, uint32_t engine_id, uint64_t request_id,
					    enum fstp_preempt_reason reason);
	/*
	 * PRE-15 (DxgkDdiSetContextSchedulingProperties): the context's priority changed (or it
	 * was created): the KMD programs it into the engine's run list, by which the command
	 * processor arbitrates between the contexts with work (highest first, round robin among
	 * equals).
	 */
	void (*DxgkDdiSetContextSchedulingProperties)(void *miniport, struct os_context *context);
	/*
	 * PRE-15: the context whose work the engine runs now (NULL: nothing), as the KMD reads it
	 * from the engine: what the OS's scheduler compares priorities and time slices with. The
	 * answer may be stale by the time the OS acts on it (realtime): a request then preempts
	 * whatever runs, which the engine's arbitration resumes.
	 */
	struct os_context *(*DxgkDdiQueryEngineContext)(void *miniport, uint32_t engine_id);
	/*
	 * At interrupt level (lock held): what the GPU's line calls (through DxgkDdiStartDevice's
	 * connection). Turns a GPU interrupt into DxgkCbNotifyInterrupt, and a packet retirement
	 * report into DxgkCbReleasePacketFence.
	 */
	void (*DxgkDdiInterruptRoutine)(void *miniport, struct hw_interrupt *interrupt);
	/*
	 * TDR-01, TDR-02 (the watchdog, os/tdr.c): whether the engine has work and whose work item
	 * is in flight — the context a timeout names as guilty.
	 */
	void (*DxgkDdiQueryEngineStatus)(void *miniport, uint32_t engine_id,
					 struct dxgk_engine_status *status);
	/*
	 * TDR-06 (DXGKARG_RESETENGINE): resets one engine — the work in flight is aborted
	 * (packet_end ABORTED) and any hang cleared — and touches no other work: the queues of
	 * other contexts keep their place, their DMA packets and what their rings hold, and go on
	 * after it. The DMA packet that was in flight comes back in *aborted (NULL if none) for the
	 * OS to drop (the guilty context's) or resubmit. Fires engine_reset. Non-zero: the reset
	 * failed (nothing changed), and the OS promotes it to an adapter reset.
	 */
	int (*DxgkDdiResetEngine)(void *miniport, uint32_t engine_id,
				  struct hw_dma_packet **aborted);
	/*
	 * TDR-06 (DxgkDdiResetFromTimeout, then RestartFromTimeout, as one entry): resets every
	 * engine of the adapter; the DMA packet each had in flight comes back in aborted[e]. Fires
	 * adapter_reset. Non-zero: the adapter could not be reset (GPU_STOP).
	 */
	int (*DxgkDdiResetFromTimeout)(void *miniport,
				       struct hw_dma_packet *aborted[FSR_MAX_ENGINES]);
	/*
	 * MMU-03 (DxgkDdiGetRootPageTableSize): the bytes a root table of *entry_count entries
	 * takes; the driver may raise *entry_count to what it allocates in.
	 */
	size_t (*DxgkDdiGetRootPageTableSize)(void *miniport, uint32_t *entry_count);
	/*
	 * MMU-01, MMU-03 (DxgkDdiSetRootPageTable): `context` translates through the root table
	 * `root` of `entry_count` entries from now on (NULL: through nothing, every access
	 * faults). When it returns, no engine walks the root programmed before: the OS may free it.
	 */
	void (*DxgkDdiSetRootPageTable)(void *miniport, struct os_context *context, void *root,
					uint32_t entry_count);
	/*
	 * MMU-02, MMU-03 (DxgkDdiUpdatePageTable, a paging operation that the model's driver
	 * applies from the CPU): writes the entries in the driver's format, each word at once
	 * (the GPU's MMU reads them as it walks). Fires fencescope_kmd:page_table_update.
	 */
	void (*DxgkDdiUpdatePageTable)(void *miniport, const struct dxgk_update_page_table *args);
	/*
	 * MMU-06 (the paging buffer's FLUSHTLB): when it returns, every GPU access that translated
	 * through an entry since invalidated has completed, so the memory behind it may be freed.
	 */
	void (*DxgkDdiFlushTlb)(void *miniport);
};

#endif /* FENCESCOPE_RUNTIME_DRIVER_INTERFACE_H */
