/* SPDX-License-Identifier: MIT */
/*
 * Timeout detection and recovery (spec 000, 002, 004; TDR-01 to TDR-06; docs/runtime.md "TDR
 * and recovery as built"): the OS's watchdog over every engine, and the recovery it starts.
 *
 * Progress, per engine (FST-01): for kernel-mode queues the OS knows its own submissions and
 * completions (os_tdr_packet_submitted / _completed, exact); for user-mode queues it samples, at
 * each OS step and at least every TDR_SAMPLES_PER_DELAY-th of the delay, each queue's
 * LastQueuedValue against its progress fence's CurrentValue. An engine has work while a DMA
 * packet is out or a queue of a context that is not suspended has LastQueuedValue above
 * CurrentValue; it progresses when a packet completes or a progress fence moves. An engine with
 * work and no progress for the TDR delay (TDR-02) gets `tdr_detect` (TIMEOUT), then a preemption
 * request with reason TDR (TDR-01); if that completes within the preemption timeout there is no
 * recovery and the watch starts over, otherwise recovery runs. An Active->Hung state change the
 * KMD reports (TDR-03) gets `tdr_detect` (ENGINE_HUNG), the preemption request (TDR-01 says
 * always) and recovery at once, without waiting for the request.
 *
 * Recovery: `tdr_begin` with the guilty context (the one whose work item the engine was running
 * at the detection, DxgkDdiQueryEngineStatus); the guilty context is suspended (reason TDR: off
 * the run list before the engine restarts); DxgkDdiResetEngine — which aborts the work in flight
 * and leaves every other context's work in place — or, when it fails, DxgkDdiResetFromTimeout,
 * the adapter reset (TDR-06), whose aborted DMA packets of innocent contexts are resubmitted;
 * then the guilty context in error (os_context_error: context_error, its fences, device_lost,
 * which sets its device's doorbells to DISCONNECTED_ABORT, TDR-04); `tdr_end`.
 *
 * What it is not: the hardware's faults and resets (hw/reset.c), the preemption itself (the
 * scheduler's).
 */
#include <stdlib.h>

#include "os/os-private.h"

/* The watchdog samples user-mode progress at least this many times per TDR delay (FST-01). */
#define TDR_SAMPLES_PER_DELAY 4

enum tdr_state {
	TDR_WATCHING,   /* looking for a stall */
	TDR_PREEMPTING, /* tdr_detect fired, the preemption request is out */
};

struct os_tdr_engine {
	enum tdr_state state;
	bool has_work;           /* at the last look: work outstanding */
	uint64_t stall_since_ns; /* the last progress, or when the work began */
	/*
	 * TDR_PREEMPTING: the suspect, the context whose work item was in flight at the detection
	 * (0 if none), by handle: it may be destroyed meanwhile.
	 */
	fsr_handle suspect;
	enum fstp_loss_reason reason;
	uint64_t request_id;
	uint64_t preempt_deadline_ns;
};

struct os_tdr {
	struct os_tdr_engine engines[FSR_MAX_ENGINES];
};

fsr_status
os_tdr_init(struct fsr_adapter *adapter)
{
	adapter->tdr = calloc(1, sizeof(*adapter->tdr));
	return adapter->tdr ? FSR_OK : FSR_ERR_NO_RESOURCES;
}

void
os_tdr_fini(struct fsr_adapter *adapter)
{
	free(adapter->tdr);
	adapter->tdr = NULL;
}

static bool
is_watching(const struct fsr_adapter *adapter)
{
	return adapter->config.tdr_delay_ns != FSR_INFINITE;
}

/* FST-01: a completion is progress, at the instant the OS learns of it. */
void
os_tdr_packet_completed(struct fsr_adapter *adapter, uint32_t engine_id)
{
	struct os_tdr_engine *engine = &adapter->tdr->engines[engine_id];

	engine->stall_since_ns = rt_clock_now(adapter->runtime);
}

struct os_context *
os_context_find(struct fsr_adapter *adapter, fsr_handle handle)
{
	for (struct fsr_process *p = adapter->runtime->processes; handle && p; p = p->next)
		for (struct os_device *d = p->devices; d; d = d->next_in_process)
			for (struct os_context *c = d->contexts; d->adapter == adapter && c;
			     c = c->next_in_device)
				if (c->handle == handle)
					return c;
	return NULL;
}

/*
 * FST-01: the user-mode queues of the engine, at this sample: whether one has work
 * (LastQueuedValue above its progress fence's CurrentValue, in a context that can run) and
 * whether a progress fence moved since the last sample. The reads are the watchdog's: they
 * are no interleaving points, so they change no seeded schedule.
 */
static void
sample_rings(struct fsr_adapter *adapter, uint32_t engine_id, bool *has_work, bool *has_progress)
{
	*has_work = false;
	*has_progress = false;
	for (struct os_hwqueue *q = adapter->user_queues[engine_id]; q; q = q->next_user_queue) {
		uint64_t completed = rt_fence_current(q->progress_fence, RT_POINT_NONE);
		uint64_t queued = rt_queue_last_queued(q, RT_POINT_NONE);

		if (completed != q->tdr_seen_progress) {
			q->tdr_seen_progress = completed;
			*has_progress = true;
		}
		if (queued > completed && !os_context_is_suspended(q->context))
			*has_work = true;
	}
}

/*
 * FST-01: whether a kernel-mode queue of the engine has a DMA packet out, in a context that can
 * run, and when the OS handed out the earliest of them (its own submissions: exact).
 */
static bool
has_km_work(struct fsr_adapter *adapter, uint32_t engine_id, uint64_t *since_ns)
{
	bool has_work = false;

	*since_ns = FSR_NEVER;
	for (struct os_hwqueue *q = adapter->runtime->km_queues; q; q = q->next_km) {
		if (q->adapter != adapter || q->engine_id != engine_id || !q->is_km_busy ||
		    os_context_is_suspended(q->context))
			continue;
		has_work = true;
		if (q->km_sent_ns < *since_ns)
			*since_ns = q->km_sent_ns;
	}
	return has_work;
}

/* ---- the preemption request (TDR-01) ------------------------------------------------------ */

/*
 * TDR-01: the preemption request that always comes before recovery, through the scheduler's
 * path (os/scheduler.c: DxgkDdiPreemptCommand, preempt_request with reason TDR). It completed
 * when the engine's DMA_PREEMPTED for it was handled; a request the scheduler could not issue
 * (id 0: too many outstanding on the engine) never completes, and recovery follows.
 */
static void
request_preemption(struct fsr_adapter *adapter, uint32_t engine_id, struct os_tdr_engine *engine)
{
	engine->request_id = os_preempt_request(adapter, engine_id, FSTP_PREEMPT_REASON_TDR);
}

static bool
is_preemption_complete(struct fsr_adapter *adapter, uint32_t engine_id,
		       const struct os_tdr_engine *engine)
{
	return os_preempt_completed(adapter, engine_id, engine->request_id);
}

/* ---- recovery (TDR-04 to TDR-06) ---------------------------------------------------------- */

/*
 * A DMA packet a reset took off the engine: the guilty context's (or a gone queue's) is dropped;
 * an innocent context's is resubmitted under a new packet id that names the one it replaces, so
 * that its work is redone, not lost (an adapter reset's innocents).
 */
static void
take_back_packet(struct fsr_adapter *adapter, struct hw_dma_packet *packet)
{
	struct fsr_runtime *runtime = adapter->runtime;
	struct os_hwqueue *queue;

	if (!packet)
		return;
	queue = packet->queue;
	if (!queue || queue->context->is_in_error || os_context_is_suspended(queue->context)) {
		if (queue)
			queue->is_km_busy = false; /* its context runs nothing more */
		free(packet);
		return;
	}
	/* Redone whole: an adapter reset loses the state a preemption would have saved. */
	packet->resubmission_of = packet->packet_id;
	packet->packet_id = ++adapter->next_packet_id;
	packet->is_preempted = false;
	packet->start_ns = 0;
	packet->next = NULL;
	queue->km_sent_ns = rt_clock_now(runtime);
	os_sched_queue_packet(queue, packet); /* packet_queued (new fence id, PRE-07), submit */
}

/* GPU_STOP: the adapter could not be reset; every device on it is lost. */
static void
lose_every_device(struct fsr_adapter *adapter)
{
	for (struct fsr_process *p = adapter->runtime->processes; p; p = p->next)
		for (struct os_device *d = p->devices; d; d = d->next_in_process)
			if (d->adapter == adapter && !d->is_lost)
				os_device_lose(d, FSTP_LOSS_REASON_GPU_STOP);
}

/*
 * DxgkDdiResetEngine, and when it fails DxgkDdiResetFromTimeout, the adapter-wide reset
 * (TDR-06); an adapter that cannot be reset loses every device on it.
 */
static enum fstp_tdr_result
reset_engine(struct fsr_adapter *adapter, uint32_t engine_id)
{
	struct fsr_runtime *runtime = adapter->runtime;
	struct hw_dma_packet *aborted = NULL;
	enum fstp_tdr_result result = FSTP_TDR_RESULT_ENGINE_RESET;

	if (adapter->ddi.DxgkDdiResetEngine(adapter->miniport, engine_id, &aborted) == 0) {
		take_back_packet(adapter, aborted);
	} else {
		/* TDR-06: a failed engine reset is promoted to an adapter-wide one. */
		struct hw_dma_packet *all[FSR_MAX_ENGINES] = {0};

		if (adapter->ddi.DxgkDdiResetFromTimeout(adapter->miniport, all) == 0) {
			result = FSTP_TDR_RESULT_ADAPTER_RESET;
			for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
				take_back_packet(adapter, all[e]);
				adapter->tdr->engines[e].stall_since_ns = rt_clock_now(runtime);
			}
		} else {
			result = FSTP_TDR_RESULT_FAILED;
			lose_every_device(adapter);
		}
	}
	return result;
}

static void
recover(struct fsr_adapter *adapter, uint32_t engine_id, enum fstp_loss_reason reason,
	struct os_context *guilty)
{
	struct fsr_runtime *runtime = adapter->runtime;
	struct os_tdr_engine *engine = &adapter->tdr->engines[engine_id];
	enum fstp_tdr_result result;

	FSR_TRACE(runtime, fencescope_os, tdr_begin, adapter->id, engine_id, (int) reason,
		  guilty ? guilty->handle : 0);
	/* Off the run list before the engine restarts: it runs nothing more (TDR-04). */
	if (guilty)
		(void) os_context_suspend(guilty, FSTP_PREEMPT_REASON_TDR);
	result = reset_engine(adapter, engine_id);
	if (guilty)
		os_context_error(guilty, reason);
	engine->state = TDR_WATCHING;
	engine->suspect = 0;
	engine->stall_since_ns = rt_clock_now(runtime);
	FSR_TRACE(runtime, fencescope_os, tdr_end, adapter->id, engine_id, (int) result);
	/* Innocent kernel-mode queues go on (the guilty one's context is suspended). */
	os_km_schedule(runtime);
}

void
os_tdr_page_fault(struct fsr_adapter *adapter, uint32_t engine_id, struct os_context *guilty,
		  bool is_device_lost)
{
	struct fsr_runtime *runtime = adapter->runtime;
	struct os_tdr_engine *engine = &adapter->tdr->engines[engine_id];
	enum fstp_tdr_result result;

	/*
	 * TDR-06 in docs/trace-format.md's order (1.5): the memory manager initiates the engine
	 * reset; the guilty context is terminated first (MMU-14), so that it is off the run list
	 * and its fences are released before the engine runs again.
	 */
	FSR_TRACE(runtime, fencescope_os, tdr_begin, adapter->id, engine_id,
		  (int) FSTP_LOSS_REASON_PAGE_FAULT, guilty ? guilty->handle : 0);
	if (guilty)
		os_context_fault(guilty, FSTP_LOSS_REASON_PAGE_FAULT, is_device_lost);
	result = reset_engine(adapter, engine_id);
	/* A timeout recovery of the engine that was under way is moot: the engine was reset. */
	engine->state = TDR_WATCHING;
	engine->suspect = 0;
	engine->stall_since_ns = rt_clock_now(runtime);
	FSR_TRACE(runtime, fencescope_os, tdr_end, adapter->id, engine_id, (int) result);
	os_km_schedule(runtime);
}

/* The watch finds a stall (TIMEOUT) or the KMD reported Hung: tdr_detect and the request. */
static void
detect(struct fsr_adapter *adapter, uint32_t engine_id, enum fstp_loss_reason reason, uint64_t now)
{
	struct os_tdr_engine *engine = &adapter->tdr->engines[engine_id];
	struct dxgk_engine_status status = {0};

	adapter->ddi.DxgkDdiQueryEngineStatus(adapter->miniport, engine_id, &status);
	engine->suspect = status.running_context ? status.running_context->handle : 0;
	engine->reason = reason;
	FSR_TRACE(adapter->runtime, fencescope_os, tdr_detect, adapter->id, engine_id,
		  engine->suspect, (int) reason,
		  engine->has_work && now > engine->stall_since_ns ? now - engine->stall_since_ns
								   : 0);
	request_preemption(adapter, engine_id, engine);
	engine->state = TDR_PREEMPTING;
	engine->preempt_deadline_ns = rt_add_ns(now, adapter->config.tdr_preempt_timeout_ns);
}

void
os_tdr_engine_hung(struct fsr_adapter *adapter, uint32_t engine_id)
{
	struct os_tdr_engine *engine;

	if (engine_id >= adapter->config.engine_count)
		return;
	engine = &adapter->tdr->engines[engine_id];
	/* TDR-03: at once — TDR-01's request first, but no waiting for it. */
	detect(adapter, engine_id, FSTP_LOSS_REASON_ENGINE_HUNG, rt_clock_now(adapter->runtime));
	recover(adapter, engine_id, FSTP_LOSS_REASON_ENGINE_HUNG,
		os_context_find(adapter, engine->suspect));
}

/* One engine's watch; returns when it wants to look again. */
static uint64_t
watch_engine(struct fsr_adapter *adapter, uint32_t engine_id, uint64_t now)
{
	struct os_tdr_engine *engine = &adapter->tdr->engines[engine_id];
	uint64_t delay = adapter->config.tdr_delay_ns;
	bool has_ring_work;
	bool has_progress;
	bool has_km;
	uint64_t km_since;
	struct dxgk_engine_status status = {0};
	uint64_t due;

	sample_rings(adapter, engine_id, &has_ring_work, &has_progress);
	if (engine->state == TDR_PREEMPTING) {
		if (is_preemption_complete(adapter, engine_id, engine)) {
			/* The engine answered: no recovery; the watch starts over (TDR-01). */
			engine->state = TDR_WATCHING;
			engine->suspect = 0;
			engine->stall_since_ns = now;
		} else if (now >= engine->preempt_deadline_ns) {
			recover(adapter, engine_id, engine->reason,
				os_context_find(adapter, engine->suspect));
			return rt_add_ns(now, delay / TDR_SAMPLES_PER_DELAY);
		} else {
			return engine->preempt_deadline_ns;
		}
	}
	has_km = has_km_work(adapter, engine_id, &km_since);
	/*
	 * And the engine's own word: work in flight whose queue is gone (its process ended while
	 * it ran, a hang included) is work no queue shows the OS, but the engine still runs it.
	 */
	adapter->ddi.DxgkDdiQueryEngineStatus(adapter->miniport, engine_id, &status);
	if (!has_ring_work && !has_km && !status.is_busy) {
		engine->has_work = false;
		return rt_add_ns(now, delay / TDR_SAMPLES_PER_DELAY);
	}
	if (!engine->has_work) {
		/*
		 * Work seen for the first time: the clock starts when the OS handed out the
		 * packet (exact), or now for a ring (sampled).
		 */
		engine->stall_since_ns = has_km ? km_since : now;
		engine->has_work = true;
	} else {
		if (has_progress && now > engine->stall_since_ns)
			engine->stall_since_ns = now; /* a progress fence moved since the sample */
		/*
		 * Kernel mode alone: a packet handed out after the last completion began the
		 * work (the engine had none in between), so TDR-02 counts from it.
		 */
		if (has_km && !has_ring_work && km_since > engine->stall_since_ns)
			engine->stall_since_ns = km_since;
	}
	due = rt_add_ns(engine->stall_since_ns, delay);
	if (now < due) {
		/* TDR-02: never before the delay; look again then, and sample meanwhile. */
		uint64_t sample = rt_add_ns(now, delay / TDR_SAMPLES_PER_DELAY);

		return due < sample ? due : sample;
	}
	detect(adapter, engine_id, FSTP_LOSS_REASON_TIMEOUT, now);
	return engine->preempt_deadline_ns;
}

uint64_t
os_tdr_watch(struct fsr_runtime *runtime, uint64_t now)
{
	uint64_t next = FSR_NEVER;

	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		if (!is_watching(adapter))
			continue;
		for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
			uint64_t due = watch_engine(adapter, e, now);

			if (due < next)
				next = due;
		}
	}
	return next;
}

/* ---- the guilty context in error (TDR-04, TDR-05) ----------------------------------------- */

/*
 * A fence the guilty context would have signalled: its CPU waiters end with DEVICE_LOST, then
 * CurrentValue is written UINT64_MAX (as ID3D12Fence::GetCompletedValue reads on a removed
 * device; the spec prescribes no value), through the driver like any CPU signal (NFV-13), which
 * releases every GPU wait on it and every kernel-mode queue's wait: a GPU wait has no result
 * to carry, it ends. Nothing is left waiting on work that will never run.
 */
static void
lose_fence(struct fsr_runtime *runtime, struct fsr_fence *fence)
{
	struct os_waiter **link;

	if (!fence)
		return;
	link = &fence->waiters;
	while (*link) {
		struct os_waiter *waiter = *link;

		if (waiter->kind == OS_WAITER_KM_QUEUE) {
			link = &waiter->next;
			continue;
		}
		os_fence_remove_waiter(fence, waiter);
		os_waiter_finish(runtime, waiter, FSR_ERR_DEVICE_LOST,
				 rt_fence_current(fence, RT_POINT_NONE));
	}
	os_fence_write_cpu(fence, UINT64_MAX);
	os_fence_release_waiters(fence);
	os_fence_propagate(fence); /* XAD-07: the other adapters' waiters must not hang */
}

/* The fences a queue's pending work would signal: its ring's or software queue's, its progress. */
static void
lose_queue_fences(struct fsr_runtime *runtime, struct os_hwqueue *queue)
{
	if (queue->ring) {
		uint64_t read_ptr = rt_word_load(runtime, &queue->control->read_ptr_bytes,
						 memory_order_acquire, RT_POINT_NONE);
		uint64_t write_ptr = rt_word_load(runtime, &queue->control->write_ptr_bytes,
						  memory_order_acquire, RT_POINT_NONE);

		for (; read_ptr != write_ptr; read_ptr += sizeof(struct hw_packet)) {
			struct hw_packet packet =
			    rt_ring_read(runtime, queue, read_ptr, RT_POINT_NONE);

			if (packet.type == HW_PACKET_SIGNAL)
				lose_fence(runtime,
					   rt_fence_on_adapter(runtime, packet.a, queue->adapter));
		}
	}
	for (struct os_km_buffer *b = queue->km_head; b; b = b->next)
		for (size_t i = b->position; i < b->count; i++)
			if (b->packets[i].type == HW_PACKET_SIGNAL)
				lose_fence(runtime, rt_fence_on_adapter(runtime, b->packets[i].a,
									queue->adapter));
	lose_fence(runtime, queue->progress_fence);
}

void
os_context_error(struct os_context *context, enum fstp_loss_reason reason)
{
	os_context_fault(context, reason, true);
}

void
os_context_fault(struct os_context *context, enum fstp_loss_reason reason, bool is_device_lost)
{
	struct os_device *device = context->device;
	struct fsr_adapter *adapter = device->adapter;
	struct fsr_runtime *runtime = adapter->runtime;

	if (context->is_in_error)
		return;
	context->is_in_error = true;
	/* It runs nothing more: off the run list for good (a TDR suspended it already). */
	(void) os_context_suspend(context, FSTP_PREEMPT_REASON_TDR);
	FSR_TRACE(runtime, fencescope_os, context_error, adapter->id, device->process->id,
		  device->handle, context->handle, (int) reason);
	for (struct os_hwqueue *q = context->queues; q; q = q->next_in_context)
		lose_queue_fences(runtime, q);
	/*
	 * TDR-04: the device is lost: every doorbell DISCONNECTED_ABORT (TDR-05: re-create).
	 * A page fault of scope CONTEXT leaves the device whole (MMU-14, os/fault.c).
	 */
	if (is_device_lost && !device->is_lost)
		os_device_lose(device, reason);
}
