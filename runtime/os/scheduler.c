/* SPDX-License-Identifier: MIT */
/*
 * The OS's GPU scheduler (spec 002, spec 003 PRE-15; docs/runtime.md "Scheduling and preemption
 * as built"): each context's scheduling attributes (priority, time slice), the preemption
 * requests the OS issues to an engine through its driver (DxgkDdiPreemptCommand) and their
 * completion, which the GPU reports by the DMA_PREEMPTED interrupt, and the resubmission of a
 * preempted DMA packet's remainder (PRE-07, PRE-09). The OS never reads the GPU's state:
 * what an engine runs it learns from its driver's answer, completions from interrupts.
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
	context->priority = FSR_DEFAULT_CONTEXT_PRIORITY;
	context->time_slice_ns = 0;
	context->hw_priority = FSR_DEFAULT_CONTEXT_PRIORITY;
	os_context_fire_schedule(context);
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
		if (packet->queue && packet->is_preempted) {
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

void
os_sched_queue_packet(struct os_hwqueue *queue, struct hw_dma_packet *packet)
{
	struct fsr_adapter *adapter = queue->adapter;
	struct os_engine_sched *sched = &adapter->sched[queue->engine_id];

	/* A resubmitted paging packet keeps its fence id; PRE-07: any other gets a new one. */
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
