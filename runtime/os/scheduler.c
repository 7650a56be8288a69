/* SPDX-License-Identifier: MIT */
/*
 * The OS's GPU scheduler (spec 002, spec 003 PRE-15; docs/runtime.md "Scheduling and preemption
 * as built"): each context's scheduling attributes (priority, time slice), the preemption
 * requests the OS issues to an engine through its driver (DxgkDdiPreemptCommand) and their
 * completion, which the GPU reports by the DMA_PREEMPTED interrupt, and the resubmission of a
 * preempted DMA packet's remainder (PRE-07, PRE-09). The OS never reads the GPU's state:
 * what an engine runs it learns from its driver's answer, completions from interrupts. Not
 * modelled, not observable here (docs/runtime.md): binding-leak detection (PRE-10: work packets
 * bind no allocation) and linked adapters (PRE-11).
 */
#include <stdlib.h>

#include "os/os-private.h"

/* ---- context scheduling attributes (PRE-15) ----------------------------------------------- */

void
os_context_fire_schedule(struct os_context *context)
{
	struct os_device *device = context->device;

	FSR_TRACE(device->adapter->runtime, fencescope_os, context_schedule, device->adapter->id,
		  device->process->id, context->handle, context->engine_id, context->priority,
		  context->time_slice_ns);
}

void
os_context_init_scheduling(struct os_context *context)
{
	struct fsr_adapter *adapter = context->device->adapter;

	context->priority = FSR_DEFAULT_CONTEXT_PRIORITY;
	context->time_slice_ns = 0;
	os_context_fire_schedule(context);
	adapter->ddi.DxgkDdiSetContextSchedulingProperties(adapter->miniport, context);
}

void
os_context_set_scheduling(struct os_context *context, uint32_t priority, uint64_t time_slice_ns)
{
	struct fsr_adapter *adapter = context->device->adapter;

	context->priority = priority;
	context->time_slice_ns = time_slice_ns;
	os_context_fire_schedule(context);
	/* The command processor arbitrates rings and DMA packets by it (PRE-15). */
	adapter->ddi.DxgkDdiSetContextSchedulingProperties(adapter->miniport, context);
	if (priority != FSR_DEFAULT_CONTEXT_PRIORITY || time_slice_ns)
		adapter->is_scheduling_watched = true;
}

/* ---- the scheduler's decisions (PRE-15) --------------------------------------------------- */

/*
 * Whether a queue has work the OS knows of (lock held): a kernel-mode queue, a buffer it can
 * run (not blocked on a software wait) or a packet on the engine; a ring, LastQueuedValue above
 * its progress fence's CurrentValue (a ring blocked on a GPU wait counts: the OS cannot tell).
 * A suspended context's queues take no part.
 */
static bool
queue_has_work(struct os_hwqueue *queue)
{
	if (os_context_is_suspended(queue->context) || queue->is_abandoned)
		return false;
	if (queue->mode == FSR_SUBMIT_KERNEL_MODE)
		return (queue->km_head && !queue->is_km_blocked) || queue->is_km_busy ||
		       queue->km_preempted;
	return rt_queue_last_queued(queue, RT_POINT_OS_READ_LAST_QUEUED) >
	       rt_fence_current(queue->progress_fence, RT_POINT_OS_READ_CURRENT_VALUE);
}

static bool
is_outstanding(const struct fsr_adapter *adapter, uint32_t engine_id, uint64_t request_id)
{
	return request_id && !os_preempt_completed(adapter, engine_id, request_id);
}

struct sched_view {
	struct os_hwqueue *best; /* the highest-priority queue with work not running */
	bool has_work;           /* some queue of the engine has work */
	bool has_equal;          /* a queue of the running context's priority waits */
};

static void
consider(struct sched_view *view, struct os_hwqueue *queue, const struct os_context *running)
{
	if (!queue_has_work(queue))
		return;
	view->has_work = true;
	if (running && queue->context == running)
		return;
	if (!view->best || queue->context->priority > view->best->context->priority)
		view->best = queue;
	if (running && queue->context->priority == running->priority)
		view->has_equal = true;
}

/*
 * One engine (lock held): PRIORITY when a context of a higher priority than the one running
 * has work; TIME_SLICE when the running context's time slice is over and a context of its
 * priority has work. Returns when to look again.
 */
static uint64_t
check_engine(struct fsr_adapter *adapter, uint32_t engine_id, uint64_t now, bool *has_work)
{
	struct fsr_runtime *runtime = adapter->runtime;
	struct os_engine_sched *sched = &adapter->sched[engine_id];
	struct os_context *running =
	    adapter->ddi.DxgkDdiQueryEngineContext(adapter->miniport, engine_id);
	struct sched_view view = {0};
	uint64_t period = adapter->config.scheduling_period_ns;
	uint64_t next = FSR_NEVER;

	for (struct os_hwqueue *q = runtime->km_queues; q; q = q->next_km)
		if (q->adapter == adapter && q->engine_id == engine_id)
			consider(&view, q, running);
	for (struct os_hwqueue *q = adapter->user_queues[engine_id]; q; q = q->next_user_queue)
		consider(&view, q, running);
	/*
	 * Rings get work without the OS: look again while any queue has work. Only a running
	 * context with another one waiting makes the look real work (a strong timer): an idle or
	 * blocked engine is not helped by a preemption, and a sim run must be able to go idle
	 * with a ring blocked on a wait the CPU will satisfy later.
	 */
	if (view.has_work)
		next = rt_add_ns(now, period);
	if (running && view.best)
		*has_work = true;
	if (running != sched->slice_context) {
		sched->slice_context = running;
		sched->slice_start_ns = now;
	}
	if (!running)
		return next;
	/* PRE-15: a higher priority with work preempts the running context. */
	if (view.best && view.best->context->priority > running->priority &&
	    !is_outstanding(adapter, engine_id, sched->priority_request)) {
		sched->priority_request =
		    os_preempt_request(adapter, engine_id, FSTP_PREEMPT_REASON_PRIORITY);
		return next;
	}
	/* PRE-15: equal priorities with work share the engine in time slices. */
	if (running->time_slice_ns && view.has_equal &&
	    !is_outstanding(adapter, engine_id, sched->slice_request)) {
		uint64_t due = rt_add_ns(sched->slice_start_ns, running->time_slice_ns);

		if (now >= due) {
			sched->slice_request =
			    os_preempt_request(adapter, engine_id, FSTP_PREEMPT_REASON_TIME_SLICE);
			sched->slice_start_ns = now;
		} else if (due < next) {
			next = due;
		}
	}
	return next;
}

uint64_t
os_sched_run(struct fsr_runtime *runtime, bool *has_work)
{
	uint64_t now = rt_clock_now(runtime);
	uint64_t next = FSR_NEVER;

	*has_work = false;
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		if (!adapter->is_scheduling_watched)
			continue;
		for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
			uint64_t due = check_engine(adapter, e, now, has_work);

			if (due < next)
				next = due;
		}
	}
	return next;
}

/* ---- paging packets and context allocations (PRE-06, PRE-14) ----------------------------- */

/* The engine's paging queue, made on first use (lock held); NULL without memory. */
static struct os_hwqueue *
paging_queue(struct fsr_adapter *adapter, uint32_t engine_id)
{
	struct fsr_runtime *runtime = adapter->runtime;
	struct os_hwqueue *queue = adapter->paging_queues[engine_id];
	struct os_context *context;

	if (queue)
		return queue;
	queue = calloc(1, sizeof(*queue));
	context = calloc(1, sizeof(*context));
	if (!queue || !context) {
		free(queue);
		free(context);
		return NULL;
	}
	/* The OS's own context: nothing outranks its paging (PRE-15 arbitration). */
	context->handle = rt_new_kernel_handle(runtime, RT_OBJECT_CONTEXT);
	context->engine_id = engine_id;
	context->priority = FSR_MAX_CONTEXT_PRIORITY;
	context->hw_priority = FSR_MAX_CONTEXT_PRIORITY;
	queue->handle = rt_new_kernel_handle(runtime, RT_OBJECT_HWQUEUE);
	queue->context = context;
	queue->adapter = adapter;
	queue->engine_id = engine_id;
	queue->mode = FSR_SUBMIT_KERNEL_MODE;
	adapter->paging_queues[engine_id] = queue;
	return queue;
}

void
os_context_create_allocation(struct os_context *context)
{
	struct fsr_adapter *adapter = context->device->adapter;
	uint64_t bytes = adapter->config.context_allocation_bytes;
	struct os_hwqueue *queue;
	struct hw_dma_packet *packet;

	if (!bytes)
		return;
	/* PRE-14: DxgkCbCreateContextAllocation's allocation, resident (allocation_create). */
	if (os_allocation_new(context->device, bytes, true, &context->allocation) != FSR_OK) {
		rt_refuse(adapter->runtime, context->device->process->id, "CreateContextAllocation",
			  context->handle, FSR_ERR_NO_RESOURCES);
		return;
	}
	queue = paging_queue(adapter, context->engine_id);
	packet = calloc(1, sizeof(*packet));
	if (!queue || !packet) {
		free(packet);
		return;
	}
	/* InitContextResource: a paging buffer on the context's engine (PRE-06). */
	packet->packet_id = ++adapter->next_packet_id;
	packet->queue = queue;
	packet->gpu_ticks = bytes / 16 ? bytes / 16 : 1;
	packet->submit_ns = rt_clock_now(adapter->runtime);
	packet->is_paging = true;
	os_sched_queue_packet(queue, packet);
}

void
os_context_destroy_allocation(struct os_context *context)
{
	/* PRE-14: DxgkCbDestroyContextAllocation (allocation_destroy). */
	if (context->allocation)
		os_allocation_unref(context->allocation);
	context->allocation = NULL;
}

void
os_paging_queues_free(struct fsr_adapter *adapter)
{
	for (uint32_t e = 0; e < FSR_MAX_ENGINES; e++) {
		if (!adapter->paging_queues[e])
			continue;
		free(adapter->paging_queues[e]->km_preempted);
		free(adapter->paging_queues[e]->context);
		free(adapter->paging_queues[e]);
		adapter->paging_queues[e] = NULL;
	}
}

/* ---- preemption requests (PRE-03, PRE-04) ---------------------------------------------- */

uint64_t
os_preempt_request(struct fsr_adapter *adapter, uint32_t engine_id, enum fstp_preempt_reason reason)
{
	struct os_engine_sched *sched;
	fsr_handle context;
	uint64_t request_id;

	if (engine_id >= adapter->config.engine_count)
		return 0;
	sched = &adapter->sched[engine_id];
	if (sched->preempt_outstanding >= FSR_MAX_PREEMPT_REQUESTS)
		return 0;
	request_id = ++adapter->next_preempt_request_id;
	sched->preempt_requested = request_id;
	sched->preempt_outstanding++;
	/*
	 * The driver programs the engine and says what it runs; the event follows with the lock
	 * still held, so the engine's completion events (fired under the lock in realtime, as
	 * the DMA_PREEMPTED interrupt goes up) come after it.
	 */
	context =
	    adapter->ddi.DxgkDdiPreemptCommand(adapter->miniport, engine_id, request_id, reason);
	FSR_TRACE(adapter->runtime, fencescope_os, preempt_request, adapter->id, engine_id, context,
		  request_id, (int) reason);
	return request_id;
}

bool
os_preempt_completed(const struct fsr_adapter *adapter, uint32_t engine_id, uint64_t request_id)
{
	return engine_id < adapter->config.engine_count && request_id != 0 &&
	       request_id <= adapter->sched[engine_id].preempt_completed;
}

void
os_preempt_set_listener(struct fsr_adapter *adapter,
			void (*listener)(struct fsr_adapter *adapter, uint32_t engine_id,
					 uint64_t request_id, void *data),
			void *data)
{
	adapter->on_preempt_complete = listener;
	adapter->on_preempt_complete_data = data;
}

/*
 * The DMA_PREEMPTED interrupt's deferred handling: the engine completed its requests up to
 * interrupt->preempt_request_id; a preempted DMA packet comes back with what is left of it,
 * which the queue resubmits before anything else of it (os_sched_resubmit).
 */
void
os_preempt_done(struct fsr_adapter *adapter, struct hw_interrupt *interrupt)
{
	struct os_engine_sched *sched = &adapter->sched[interrupt->engine_id];
	struct hw_dma_packet *packet = interrupt->packet;
	uint32_t count = interrupt->preempt.request_count;

	interrupt->packet = NULL;
	if (interrupt->preempt_request_id > sched->preempt_completed)
		sched->preempt_completed = interrupt->preempt_request_id;
	sched->preempt_outstanding =
	    count >= sched->preempt_outstanding ? 0 : sched->preempt_outstanding - count;
	if (packet) {
		if (packet->queue && packet->is_preempted && packet->is_paging) {
			/*
			 * PRE-06: a paging packet is resubmitted at once, with its fence id; the
			 * engine starts nothing else before it.
			 */
			packet->queue->km_preempted = packet;
			os_sched_resubmit(packet->queue);
		} else if (packet->queue && packet->is_preempted) {
			/* is_km_busy stays: the packet is not done, only off the engine. */
			packet->queue->km_preempted = packet;
		} else {
			free(packet);
		}
	}
	if (adapter->on_preempt_complete)
		adapter->on_preempt_complete(adapter, interrupt->engine_id,
					     interrupt->preempt_request_id,
					     adapter->on_preempt_complete_data);
}

/* ---- DMA packets: fence ids and resubmission (PRE-07) ------------------------------------- */

static void queue_one(struct os_hwqueue *queue, struct hw_dma_packet *packet);

void
os_sched_queue_packet(struct os_hwqueue *queue, struct hw_dma_packet *packet)
{
	struct fsr_adapter *adapter = queue->adapter;
	struct os_engine_sched *sched = &adapter->sched[queue->engine_id];

	/*
	 * PRE-05: lazy context switching: a context switch is a zero-length packet of the new
	 * context, queued before its first packet (paging packets are the OS's own: no switch).
	 */
	if (adapter->config.lazy_context_switch && !packet->is_paging &&
	    sched->last_context != queue->context->handle) {
		struct hw_dma_packet *context_switch = calloc(1, sizeof(*context_switch));

		if (!context_switch)
			abort();
		context_switch->packet_id = ++adapter->next_packet_id;
		context_switch->queue = queue;
		context_switch->progress_value = packet->progress_value;
		context_switch->submit_ns = packet->submit_ns;
		context_switch->is_context_switch = true;
		queue_one(queue, context_switch);
	}
	if (!packet->is_paging)
		sched->last_context = queue->context->handle;
	queue_one(queue, packet);
}

static void
queue_one(struct os_hwqueue *queue, struct hw_dma_packet *packet)
{
	struct fsr_adapter *adapter = queue->adapter;
	struct os_engine_sched *sched = &adapter->sched[queue->engine_id];

	/* PRE-06: a resubmitted paging packet keeps its fence id; PRE-07: any other gets one. */
	if (!(packet->resubmission_of && packet->is_paging))
		packet->fence_id = ++sched->next_fence_id;
	FSR_TRACE(adapter->runtime, fencescope_os, packet_queued, adapter->id, queue->engine_id,
		  queue->handle, packet->packet_id, packet->resubmission_of, packet->is_paging,
		  packet->fence_id, packet->is_context_switch);
	queue->is_km_busy = true;
	/* FST-01: the OS sees its own submissions; an engine in F1 wakes first. */
	os_engine_wake(adapter, queue->engine_id);
	adapter->ddi.DxgkDdiSubmitCommand(adapter->miniport, packet);
}

bool
os_sched_resubmit(struct os_hwqueue *queue)
{
	struct hw_dma_packet *packet = queue->km_preempted;

	if (!packet)
		return false;
	queue->km_preempted = NULL;
	/*
	 * PRE-09: the remainder (gpu_ticks is what was left) under a new packet id that names the
	 * one it resubmits. Nothing of the command buffer runs twice: its waits, signals and
	 * progress write are the OS's software commands, run once after the work (XAD-16).
	 */
	packet->resubmission_of = packet->packet_id;
	packet->packet_id = ++queue->adapter->next_packet_id;
	packet->is_preempted = false;
	os_sched_queue_packet(queue, packet);
	return true;
}

/* ---- the test API (fencescope-test.h) ------------------------------------------------------ */

fsr_status
fsr_test_preempt_request(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id,
			 int reason, uint64_t *request_id)
{
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (adapter_id >= runtime->adapter_count || !request_id || reason < 0 ||
	    reason > FSTP_PREEMPT_REASON_POWER ||
	    engine_id >= runtime->adapters[adapter_id]->config.engine_count)
		status = FSR_ERR_INVALID_ARGUMENT;
	else
		*request_id = os_preempt_request(runtime->adapters[adapter_id], engine_id,
						 (enum fstp_preempt_reason) reason);
	rt_unlock(runtime);
	return status;
}

bool
fsr_test_preempt_completed(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id,
			   uint64_t request_id)
{
	bool is_completed = false;

	rt_lock(runtime);
	if (adapter_id < runtime->adapter_count)
		is_completed =
		    os_preempt_completed(runtime->adapters[adapter_id], engine_id, request_id);
	rt_unlock(runtime);
	return is_completed;
}
