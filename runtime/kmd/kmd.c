/* SPDX-License-Identifier: MIT */
/*
 * The kernel-mode driver of the emulated GPU: the DDIs the OS calls (spec 001), each one a
 * short function that touches the GPU's registers and the GPU-visible words with the ordering
 * the spec asks for and fires its fencescope_kmd event. Policy (when to call them) is the OS's.
 * The OS reaches them only through the table kmd_driver_entry fills; the driver reaches the OS
 * only through the callbacks DxgkDdiAddAdapter receives (docs/driver-interface.md).
 */
#include <stdlib.h>

#include "hw/hw-private.h"
#include "kmd/kmd-private.h"

static int
add_adapter(struct fsr_adapter *os_adapter, const struct dxgk_callbacks *callbacks, void **miniport)
{
	struct kmd_adapter *kmd = calloc(1, sizeof(*kmd));

	if (!kmd)
		return -1;
	kmd->adapter = os_adapter;
	kmd->callbacks = callbacks;
	if (hw_init(os_adapter) != 0) {
		free(kmd);
		return -1;
	}
	hw_doorbells_init(os_adapter);
	hw_displays_init(os_adapter);
	*miniport = kmd;
	return 0;
}

/* The GPU's line: calls the interrupt routine the OS connected, with this driver's context. */
static void
line_raise(void *context, struct hw_interrupt *interrupt)
{
	struct kmd_adapter *kmd = context;

	kmd->isr(kmd, interrupt);
}

static void
start_device(void *miniport, dxgk_interrupt_routine isr)
{
	struct kmd_adapter *kmd = miniport;
	struct hw_line line = {.raise = line_raise, .context = kmd};

	kmd->isr = isr;
	hw_start(kmd->adapter, &line);
	hw_displays_start(kmd->adapter);
}

static void
remove_adapter(void *miniport)
{
	struct kmd_adapter *kmd = miniport;

	hw_displays_fini(kmd->adapter);
	hw_fini(kmd->adapter);
	free(kmd);
}

/*
 * DxgkDdiInterruptRoutine, at interrupt level (lock held): a GPU interrupt goes to the OS as
 * DxgkCbNotifyInterrupt; a packet's retirement report as DxgkCbReleasePacketFence.
 */
static void
interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	struct kmd_adapter *kmd = miniport;

	if (interrupt->is_retirement)
		kmd->callbacks->DxgkCbReleasePacketFence(kmd->adapter, interrupt->retired_fence);
	else
		kmd->callbacks->DxgkCbNotifyInterrupt(kmd->adapter, interrupt);
}

/*
 * UMS-04: the GPU's 3D and compute nodes can take user-mode submission unless the adapter's
 * configuration says the node lacks it; copy engines cannot.
 */
static bool
engine_takes_user_mode_submission(const struct fsr_adapter *adapter, uint32_t engine_id)
{
	return adapter->config.engine_types[engine_id] != FSR_ENGINE_COPY &&
	       !(adapter->config.engines_without_user_mode_submission & (UINT32_C(1) << engine_id));
}

/*
 * DXGKQAITYPE_USERMODESUBMISSION_CAPS (UMS-06): the doorbell memory size, and the doorbell model
 * and count of the GPU; no model at all when no node takes user-mode submission.
 */
static int
query_adapter_info(void *miniport, enum dxgk_query_adapter_info_type type, void *output,
		   size_t output_size)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	struct dxgk_usermodesubmission_caps *caps = output;
	bool has_ums_engine = false;

	if (type == DXGKQAITYPE_GPUMMUCAPS && output_size == sizeof(struct dxgk_gpummu_caps)) {
		kmd_gpummu_caps(output); /* MMU-02, MMU-03, MMU-12 */
		return 0;
	}
	if (type == DXGKQAITYPE_DRIVERCAPS && output_size == sizeof(struct dxgk_drivercaps)) {
		/* PRE-13: this driver's displays flip by MMIO on the next vsync. */
		*(struct dxgk_drivercaps *) output =
		    (struct dxgk_drivercaps){.flip_caps = {.flip_on_vsync_mmio = true}};
		return 0;
	}
	if (type != DXGKQAITYPE_USERMODESUBMISSION_CAPS || output_size != sizeof(*caps))
		return -1;
	for (uint32_t e = 0; e < adapter->config.engine_count; e++)
		has_ums_engine = has_ums_engine || engine_takes_user_mode_submission(adapter, e);
	*caps = (struct dxgk_usermodesubmission_caps){0};
	if (has_ums_engine) {
		caps->doorbell_size_bytes = adapter->config.doorbell_size_bytes;
		caps->doorbell_model = adapter->config.doorbell_model;
		caps->physical_doorbells = adapter->config.physical_doorbells;
	}
	return 0;
}

/*
 * PRE-03: the granularity the GPU's engine supports, as configured; the default is the finest
 * the emulated GPU has (SHADER_BOUNDARY). A copy engine stops only between DMA buffers.
 */
static int
declared_granularity(const struct fsr_adapter *adapter, uint32_t engine_id, bool is_compute)
{
	enum fsr_preempt_granularity configured =
	    is_compute ? adapter->config.compute_preempt_granularity[engine_id]
		       : adapter->config.graphics_preempt_granularity[engine_id];

	if (adapter->config.engine_types[engine_id] == FSR_ENGINE_COPY)
		return FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY;
	return configured == FSR_PREEMPT_DEFAULT ? FSTP_PREEMPT_GRANULARITY_SHADER_BOUNDARY
						 : (int) configured;
}

static void
describe_engine(void *miniport, uint32_t engine_id, struct dxgk_engine_caps *caps)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	enum fsr_engine_type type = adapter->config.engine_types[engine_id];

	caps->type = type;
	caps->supports_user_mode_submission = engine_takes_user_mode_submission(adapter, engine_id);
	caps->graphics_preempt_granularity = declared_granularity(adapter, engine_id, false);
	caps->compute_preempt_granularity = declared_granularity(adapter, engine_id, true);
	caps->is_preemption_aware = !adapter->config.preemption_unaware;
	FSR_TRACE(adapter->runtime, fencescope_kmd, engine_describe, adapter->id, engine_id,
		  (int) type, caps->supports_user_mode_submission,
		  caps->graphics_preempt_granularity, caps->compute_preempt_granularity,
		  caps->is_preemption_aware);
}

/*
 * GPV-04 (CalibrateGpuClock): one CPU sample and the GPU counter at that instant. The CPU side is
 * the trace clock's own raw reading (rt_clock_trace_ns), so that the analyzer converts it to
 * trace time exactly as the tracer converts event timestamps, whatever the clock's origin.
 */
static void
calibrate_gpu_clock(void *miniport, uint64_t cpu_ns)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	FSR_TRACE(adapter->runtime, fencescope_kmd, clock_correlation, adapter->id,
		  rt_clock_trace_ns(adapter->runtime, cpu_ns), hw_gpu_ts(adapter, cpu_ns),
		  adapter->config.gpu_ts_frequency_hz);
}

static uint64_t
read_gpu_timestamp(void *miniport, uint64_t cpu_ns)
{
	return hw_gpu_ts(((struct kmd_adapter *) miniport)->adapter, cpu_ns);
}

static bool
query_engine_idle(void *miniport, uint32_t engine_id)
{
	return hw_engine_is_idle(
	    &((struct kmd_adapter *) miniport)->adapter->gpu->engines[engine_id]);
}

static struct hw_engine *
engine_of(void *miniport, uint32_t engine_id)
{
	return &((struct kmd_adapter *) miniport)->adapter->gpu->engines[engine_id];
}

static void
create_hwqueue(void *miniport, struct os_hwqueue *queue)
{
	struct hw_engine *engine = engine_of(miniport, queue->engine_id);

	/*
	 * UMS-05: a user-mode queue's ring joins its engine's run list; the command processor
	 * runs of it only what a doorbell made it take (UMS-13; kernel mode has no ring).
	 */
	/* A queue born in a suspended context starts off the scheduler's list (SUS-01). */
	if (queue->context->kmd_is_suspended)
		hw_engine_suspend_queue(engine, queue);
	if (queue->mode == FSR_SUBMIT_USER_MODE)
		hw_engine_add_queue(engine, queue);
}

static void
destroy_hwqueue(void *miniport, struct os_hwqueue *queue)
{
	/* Its ring, or its DMA packets. */
	hw_engine_remove_queue(engine_of(miniport, queue->engine_id), queue);
}

static void
submit_command(void *miniport, struct hw_dma_packet *packet)
{
	/* The DMA fence the GPU writes at the packet's end: the OS's SubmissionFenceId (PRE-07). */
	packet->hw_fence_id = packet->fence_id;
	hw_engine_push_dma(engine_of(miniport, packet->queue->engine_id), packet);
}

static uint64_t
update_monitored_values(void *miniport, struct fsr_fence *fence, uint64_t monitored_value,
			uint32_t waiter_count)
{
	struct fsr_runtime *runtime = fence->adapter->runtime;
	uint64_t current_value;

	(void) miniport;
	/*
	 * SYN-01, SYN-04: the new MonitoredValue, then a full barrier, so that any CurrentValue
	 * read after this returns was written by a signal that saw it; then the OS resamples
	 * CurrentValue (SYN-05). With the GPU's own barrier between its CurrentValue write and
	 * its MonitoredValue read (SYN-09), one of the two sides always sees the other's write:
	 * no wake-up is lost (SYN-06).
	 */
	rt_word_store(runtime, &fence->monitored_value, monitored_value, memory_order_seq_cst,
		      RT_POINT_OS_WRITE_MONITORED_VALUE);
	rt_barrier(runtime, RT_POINT_OS_BARRIER);
	current_value = rt_word_load(runtime, fence->current_word, memory_order_seq_cst,
				     RT_POINT_OS_READ_CURRENT_VALUE);
	FSR_TRACE(fence->adapter->runtime, fencescope_kmd, update_monitored_value,
		  fence->adapter->id, fence->global_handle, monitored_value, waiter_count,
		  current_value);
	return current_value;
}

static void
update_current_values_from_cpu(void *miniport, struct fsr_fence *fence, uint64_t value,
			       bool notification_only)
{
	(void) miniport;
	/*
	 * NFV-13: the OS applies a CPU signal through the driver; NFV-01: one 64-bit store of the
	 * value it was given, as spec 001's DxgkDdiUpdateCurrentValuesFromCpu(hFence, 10)
	 * writes 10. The driver does not clamp: whether a lower value is refused is the OS's policy
	 * (it refuses a CPU signal below CurrentValue; a kernel-mode queue's signal is the GPU
	 * signal of that queue and is written as it is, as a user-mode queue's is). The event comes
	 * first: a user-mode reader of CurrentValue may act on the store at once.
	 */
	FSR_TRACE(fence->adapter->runtime, fencescope_kmd, update_current_value, fence->adapter->id,
		  fence->global_handle, value, notification_only);
	/*
	 * XAD-08: NotificationOnly = TRUE tells the driver of a value another adapter's signal
	 * wrote into the CurrentValue both GPUs share (XAD-03): nothing to write.
	 */
	if (!notification_only)
		rt_fence_write_current(fence->adapter->runtime, fence, value,
				       RT_POINT_OS_WRITE_CURRENT_VALUE);
	/*
	 * The command processor rescans its run list for GPU waits it can now release (XAD-07,
	 * XAD-13: after a propagated signal, this adapter's engines are woken here).
	 */
	hw_engine_kick_all(fence->adapter);
}

static void
set_native_fence_log_buffer(void *miniport, struct os_hwqueue *queue, enum fstp_log_type type,
			    struct hw_fence_log *log)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	hw_fence_log_install(queue, type, log);

	FSR_TRACE(adapter->runtime, fencescope_kmd, set_fence_log_buffer, adapter->id,
		  queue->handle, type, queue->logs[type].capacity, queue->logs[type].generation);
}

static void
update_native_fence_logs(void *miniport, struct os_hwqueue *const *queues, uint32_t queue_count)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	uint64_t stack_handles[16];
	uint64_t *handles = stack_handles;

	/*
	 * SYN-10: the barrier that makes every entry below FirstFreeEntryIndex visible: the GPU's
	 * posted entry writes land in the memory the OS reads (docs/runtime.md, "Fence logs").
	 */
	rt_barrier(adapter->runtime, RT_POINT_OS_BARRIER);
	for (uint32_t i = 0; i < queue_count; i++)
		hw_fence_logs_flush(queues[i]);
	if (queue_count > 16)
		handles = malloc(queue_count * sizeof(*handles));
	if (!handles)
		abort();
	for (uint32_t i = 0; i < queue_count; i++)
		handles[i] = queues[i]->handle;
	FSR_TRACE(adapter->runtime, fencescope_kmd, update_native_fence_logs, adapter->id,
		  queue_count, (const uint64_t *) handles);
	if (handles != stack_handles)
		free(handles);
}

/* SHF-01: the driver has no per-fence state of its own; the DDIs leave their events. */
static void
create_native_fence(void *miniport, struct fsr_fence *fence)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	FSR_TRACE(adapter->runtime, fencescope_kmd, create_native_fence, adapter->id,
		  fence->global_handle, atomic_load(fence->current_word));
}

static void
open_native_fence(void *miniport, struct fsr_fence *fence, uint32_t process_id,
		  uint64_t local_handle)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	FSR_TRACE(adapter->runtime, fencescope_kmd, open_native_fence, adapter->id, process_id,
		  fence->global_handle, local_handle);
}

static void
close_native_fence(void *miniport, struct fsr_fence *fence, uint32_t process_id,
		   uint64_t local_handle)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	FSR_TRACE(adapter->runtime, fencescope_kmd, close_native_fence, adapter->id, process_id,
		  fence->global_handle, local_handle);
}

static void
destroy_native_fence(void *miniport, struct fsr_fence *fence)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	FSR_TRACE(adapter->runtime, fencescope_kmd, destroy_native_fence, adapter->id,
		  fence->global_handle, atomic_load(fence->current_word));
}

/* ---- doorbells (spec 000, UMS-08 to UMS-25) ---------------------------------------------- */

static void
create_doorbell(void *miniport, struct os_doorbell *doorbell)
{
	(void) miniport;
	/*
	 * UMS-09, UMS-10: the driver's doorbell object, with no physical doorbell; no other one.
	 * The GPU takes nothing yet: the queue's work waits for the connect (UMS-15).
	 */
	doorbell->kmd_is_connected = false;
	doorbell->kmd_physical = 0;
	doorbell->kmd_last_use = 0;
}

/*
 * UMS-22: the least recently used connected doorbell (the smallest last-use number: the last
 * ConnectDoorbell or NotifyWorkSubmission the driver saw, since it does not see rings, UMS-25),
 * never the one connecting.
 */
static uint32_t
least_recently_used(struct kmd_adapter *kmd, const struct os_doorbell *connecting)
{
	uint32_t count = kmd->adapter->config.physical_doorbells;
	uint32_t victim = 0;

	for (uint32_t k = 1; k < count; k++)
		if (kmd->physical[k]->kmd_last_use < kmd->physical[victim]->kmd_last_use)
			victim = k;
	FSR_ASSERT_PRE("kmd-connect-doorbell:victim-not-connecting",
		       kmd->physical[victim] != connecting);
	return victim;
}

static int
connect_doorbell(void *miniport, struct os_doorbell *doorbell, uint32_t *physical,
		 struct rt_doorbell_page **page, enum fstp_doorbell_status *status)
{
	struct kmd_adapter *kmd = miniport;
	struct fsr_adapter *adapter = kmd->adapter;
	struct os_hwqueue *queue = doorbell->queue;
	bool is_notify_kmd =
	    adapter->config.doorbell_notify_kmd_engines & (UINT32_C(1) << queue->engine_id);
	uint32_t k;

	doorbell->kmd_last_use = ++kmd->use_counter;
	*status = is_notify_kmd ? FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD
				: FSTP_DOORBELL_STATUS_CONNECTED;
	if (doorbell->kmd_is_connected) {
		*physical = doorbell->kmd_physical; /* already connected: only marked used */
		*page = hw_doorbell_page(adapter, *physical);
		return 0;
	}
	if (adapter->config.doorbell_model != FSR_DOORBELL_DEDICATED) {
		/* UMS-17, UMS-19: the one global doorbell; nothing is ever victimized. */
		k = 0;
	} else {
		uint32_t count = adapter->config.physical_doorbells;

		for (k = 0; k < count && kmd->physical[k]; k++)
			;
		if (k == count) {
			struct os_doorbell *victim;

			k = least_recently_used(kmd, doorbell);
			victim = kmd->physical[k];
			/*
			 * UMS-23, in the spec's order: the OS first (status RETRY, the victim's
			 * mapping to its dummy page), then the hardware disconnect, which takes the
			 * victim's write pointer, and only then the connect.
			 */
			kmd->callbacks->DxgkCbDisconnectDoorbell(
			    adapter, victim, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
			hw_doorbell_disconnect(adapter, k, victim->queue);
			victim->kmd_is_connected = false;
			kmd->physical[k] = NULL;
			FSR_TRACE(adapter->runtime, fencescope_kmd, doorbell_victimize, adapter->id,
				  victim->queue->handle, victim->handle, queue->handle, k);
		}
		kmd->physical[k] = doorbell;
	}
	doorbell->kmd_is_connected = true;
	doorbell->kmd_physical = k;
	doorbell->kmd_is_notify_kmd = is_notify_kmd;
	/* UMS-15: the GPU takes the queue's write pointer: work written meanwhile is not lost. */
	hw_doorbell_connect(adapter, k, queue, is_notify_kmd);
	*physical = k;
	*page = hw_doorbell_page(adapter, k);
	return 0;
}

static void
disconnect_doorbell(void *miniport, struct os_doorbell *doorbell,
		    enum fstp_disconnect_reason reason)
{
	struct kmd_adapter *kmd = miniport;

	(void) reason;
	if (!doorbell->kmd_is_connected)
		return;
	hw_doorbell_disconnect(kmd->adapter, doorbell->kmd_physical, doorbell->queue);
	if (kmd->adapter->config.doorbell_model == FSR_DOORBELL_DEDICATED)
		kmd->physical[doorbell->kmd_physical] = NULL;
	doorbell->kmd_is_connected = false;
}

static void
destroy_doorbell(void *miniport, struct os_doorbell *doorbell)
{
	/* The OS disconnects first; a driver keeps nothing of a doorbell that goes. */
	disconnect_doorbell(miniport, doorbell, FSTP_DISCONNECT_REASON_DESTROY);
}

static void
notify_work_submission(void *miniport, struct os_doorbell *doorbell, uint64_t progress_value)
{
	struct kmd_adapter *kmd = miniport;

	(void) progress_value;
	/* A use the driver sees (LRU); on a notify-KMD doorbell, what makes the GPU fetch. */
	doorbell->kmd_last_use = ++kmd->use_counter;
	if (doorbell->kmd_is_connected)
		hw_doorbell_notify(kmd->adapter, doorbell->queue);
}

/* ---- suspend and resume (spec 000, SUS-01 to SUS-07) ------------------------------------ */

/*
 * SUS-01: every HWQueue of the context leaves its engine's scheduler list — user-mode queues
 * (their rings) and kernel-mode ones (their DMA packets not started yet) alike. The engine's
 * granularity: a work item it is busy with finishes, nothing after it starts. Doorbells and
 * rings are left alone (SUS-02): the UMD keeps writing and ringing, the command processor keeps
 * taking write pointers, nothing runs (SUS-03). The reason is the OS's; the driver does the same
 * for each.
 */
static void
suspend_context(void *miniport, struct os_context *context, enum fstp_preempt_reason reason)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	struct hw_engine *engine = engine_of(miniport, context->engine_id);
	uint32_t count = 0;

	context->kmd_is_suspended = true;
	for (struct os_hwqueue *q = context->queues; q; q = q->next_in_context, count++)
		hw_engine_suspend_queue(engine, q);
	FSR_TRACE(adapter->runtime, fencescope_kmd, context_suspend, adapter->id, context->handle,
		  count, (int) reason);
}

/*
 * SUS-04, SUS-05: the queues are back on the list and the command processor takes each one's
 * write pointer, so what was written during the suspension runs without a new ring.
 */
static void
resume_context(void *miniport, struct os_context *context, enum fstp_preempt_reason reason)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	struct hw_engine *engine = engine_of(miniport, context->engine_id);
	uint32_t count = 0;

	context->kmd_is_suspended = false;
	for (struct os_hwqueue *q = context->queues; q; q = q->next_in_context, count++)
		hw_engine_resume_queue(engine, q);
	FSR_TRACE(adapter->runtime, fencescope_kmd, context_resume, adapter->id, context->handle,
		  count, (int) reason);
}

/* ---- preemption (spec 002, PRE-03, PRE-04) ----------------------------------------------- */

/*
 * PRE-04: the KMD asks the engine for the finest granularity it declared for its type (3D:
 * graphics, compute: compute, copy: DMA buffer boundary); PreemptionAware = 0: only a
 * DMA buffer boundary. PRE-01: there is no way to make a packet non-preemptible — a DMA packet
 * carries no such flag, and the engine stops whatever it runs.
 */
static fsr_handle
preempt_command(void *miniport, uint32_t engine_id, uint64_t request_id,
		enum fstp_preempt_reason reason)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	int granularity = declared_granularity(
	    adapter, engine_id, adapter->config.engine_types[engine_id] == FSR_ENGINE_COMPUTE);

	(void) reason;
	if (adapter->config.preemption_unaware)
		granularity = FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY;
	return hw_engine_preempt(engine_of(miniport, engine_id), request_id, granularity);
}

/*
 * PRE-15: the context's priority goes into its engine's run list, by which the command
 * processor arbitrates; what it runs now is read from the engine.
 */
static void
set_context_scheduling_properties(void *miniport, struct os_context *context)
{
	hw_engine_set_context_priority(engine_of(miniport, context->engine_id), context,
				       context->priority);
}

static struct os_context *
query_engine_context(void *miniport, uint32_t engine_id)
{
	return hw_engine_running_context(engine_of(miniport, engine_id));
}

/* ---- power (spec 000, FST-04, FST-06) --------------------------------------------------- */

/*
 * The engine's power component, as the OS asks: F1 powers the command processor down, unless the
 * engine has work again since it asked (it then stays in F0 and says so).
 */
static int
set_power_component_fstate(void *miniport, uint32_t engine_id, enum fstp_engine_power fstate)
{
	struct hw_engine *engine = engine_of(miniport, engine_id);

	if (fstate == FSTP_ENGINE_POWER_F1)
		return hw_engine_power_down_if_idle(engine) ? 0 : -1;
	hw_engine_set_fstate(engine, fstate);
	return 0;
}

/* DST-01, DST-05: the whole GPU off (D3) or on (D0); the OS has done the rest around it. */
static void
set_power_state(void *miniport, enum fstp_device_power dstate)
{
	hw_gpu_set_dstate(((struct kmd_adapter *) miniport)->adapter, dstate);
}

/* ---- TDR and recovery (TDR-01 to TDR-06) ------------------------------------------------ */

static void
query_engine_status(void *miniport, uint32_t engine_id, struct dxgk_engine_status *status)
{
	struct hw_engine *engine = engine_of(miniport, engine_id);

	status->is_busy = !hw_engine_is_idle(engine);
	status->running_context = hw_engine_running_context(engine);
}

/*
 * TDR-06: the engine alone. The GPU aborts the work in flight and clears a hang; the other
 * contexts' queues keep their place and their work (only the running work item was lost, and
 * it was the guilty one's: the OS put its context off the run list first).
 */
static int
reset_engine(void *miniport, uint32_t engine_id, struct hw_dma_packet **aborted)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;
	bool is_success = hw_engine_reset(engine_of(miniport, engine_id), aborted);

	FSR_TRACE(adapter->runtime, fencescope_kmd, engine_reset, adapter->id, engine_id,
		  (uint8_t) is_success);
	return is_success ? 0 : -1;
}

/*
 * TDR-06: the whole adapter, after an engine reset failed: every engine is reset, whatever
 * failure was injected into its engine reset (the adapter's reset power-cycles the GPU), and
 * every engine's work in flight is aborted.
 */
static int
reset_from_timeout(void *miniport, struct hw_dma_packet *aborted[FSR_MAX_ENGINES])
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		struct hw_engine *engine = engine_of(miniport, e);

		hw_engine_lock(engine);
		engine->reset_failures = 0;
		hw_engine_unlock(engine);
		(void) hw_engine_reset(engine, &aborted[e]);
	}
	FSR_TRACE(adapter->runtime, fencescope_kmd, adapter_reset, adapter->id, (uint8_t) 1);
	return 0;
}

/*
 * PRE-13 (DxgkDdiSetVidPnSourceAddress with FlipOnNextVSync): the display's flip register
 * takes the new address, which the display latches at its next vsync; the vsync interrupt then
 * tells the OS. The driver never changes the scan-out address itself (flip_immediate).
 */
static int
set_vidpn_source_address(void *miniport, const struct dxgk_set_vidpn_source_address *args)
{
	struct fsr_adapter *adapter = ((struct kmd_adapter *) miniport)->adapter;

	if (args->vidpn_source_id >= adapter->config.display_count || args->flags.flip_immediate ||
	    !args->flags.flip_on_next_vsync)
		return -1;
	hw_display_program_flip(&adapter->gpu->displays[args->vidpn_source_id], args->flip_id);
	return 0;
}

void
kmd_driver_entry(struct dxgk_ddi *ddi)
{
	*ddi = (struct dxgk_ddi){
	    .DxgkDdiAddAdapter = add_adapter,
	    .DxgkDdiStartDevice = start_device,
	    .DxgkDdiRemoveAdapter = remove_adapter,
	    .DxgkDdiQueryAdapterInfo = query_adapter_info,
	    .DxgkDdiDescribeEngine = describe_engine,
	    .DxgkDdiCalibrateGpuClock = calibrate_gpu_clock,
	    .DxgkDdiReadGpuTimestamp = read_gpu_timestamp,
	    .DxgkDdiQueryEngineIdle = query_engine_idle,
	    .DxgkDdiCreateHwQueue = create_hwqueue,
	    .DxgkDdiDestroyHwQueue = destroy_hwqueue,
	    .DxgkDdiSubmitCommand = submit_command,
	    .DxgkDdiUpdateMonitoredValues = update_monitored_values,
	    .DxgkDdiUpdateCurrentValuesFromCpu = update_current_values_from_cpu,
	    .DxgkDdiSetNativeFenceLogBuffer = set_native_fence_log_buffer,
	    .DxgkDdiUpdateNativeFenceLogs = update_native_fence_logs,
	    .DxgkDdiCreateNativeFence = create_native_fence,
	    .DxgkDdiOpenNativeFence = open_native_fence,
	    .DxgkDdiCloseNativeFence = close_native_fence,
	    .DxgkDdiDestroyNativeFence = destroy_native_fence,
	    .DxgkDdiCreateDoorbell = create_doorbell,
	    .DxgkDdiConnectDoorbell = connect_doorbell,
	    .DxgkDdiDisconnectDoorbell = disconnect_doorbell,
	    .DxgkDdiDestroyDoorbell = destroy_doorbell,
	    .DxgkDdiNotifyWorkSubmission = notify_work_submission,
	    .DxgkDdiSetPowerComponentFState = set_power_component_fstate,
	    .DxgkDdiSetPowerState = set_power_state,
	    .DxgkDdiSuspendContext = suspend_context,
	    .DxgkDdiResumeContext = resume_context,
	    .DxgkDdiSetVidPnSourceAddress = set_vidpn_source_address,
	    .DxgkDdiPreemptCommand = preempt_command,
	    .DxgkDdiSetContextSchedulingProperties = set_context_scheduling_properties,
	    .DxgkDdiQueryEngineContext = query_engine_context,
	    .DxgkDdiInterruptRoutine = interrupt_routine,
	    .DxgkDdiQueryEngineStatus = query_engine_status,
	    .DxgkDdiResetEngine = reset_engine,
	    .DxgkDdiResetFromTimeout = reset_from_timeout,
	};
	kmd_gpummu_entries(ddi);
}
