/* SPDX-License-Identifier: MIT */
/*
 * The emulated GPU's faults that TDR exists for, and its resets (issue 13; docs/runtime.md "TDR
 * and recovery as built"):
 *
 * - a **hung engine**: the work item in flight never ends and the engine answers no preemption
 *   request; its command processor spins (it steps every HW_HANG_SPIN_NS) until a reset;
 * - a **packet that ignores preemption**: it ends normally, but the engine answers a preemption
 *   request only at the packet's end (the preemption core in hw/engine.c reads
 *   is_ignoring_preemption);
 * - an engine that **reports Active->Hung** itself (GPU_ENGINE_STATE_CHANGE, FST-02, TDR-03);
 * - an **engine reset** that fails (the OS promotes it to an adapter reset, TDR-06).
 *
 * The faults are armed only through the test-only API (test-api/fencescope-test.h), which the
 * fault injector also calls. The resets are what the KMD's DxgkDdiResetEngine and
 * DxgkDdiResetFromTimeout program. What it is not: the watchdog and the recovery policy (the
 * OS's, os/tdr.c).
 */
#include <stdlib.h>

#include "common/fault-private.h"
#include "hw/hw-private.h"

static struct hw_engine *
engine_at(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id)
{
	if (!runtime || adapter_id >= runtime->adapter_count ||
	    engine_id >= runtime->adapters[adapter_id]->config.engine_count)
		return NULL;
	return &runtime->adapters[adapter_id]->gpu->engines[engine_id];
}

static bool
is_for(fsr_handle armed_queue, const struct os_hwqueue *queue)
{
	return armed_queue == 0 || (queue && queue->handle == armed_queue);
}

void
hw_engine_packet_started(struct hw_engine *engine, struct os_hwqueue *queue)
{
	if (engine->is_ignore_armed && is_for(engine->ignore_queue, queue)) {
		engine->is_ignore_armed = false;
		engine->is_ignoring_preemption = true;
		engine->ignoring_queue = queue ? queue->handle : 0;
	}
}

/*
 * A queue of the work item's context holds a corrupted buffer the GPU has not met yet (the
 * injector's CORRUPT_PACKET): a hang now would put the context in error before the GPU meets
 * it, and the corruption would have no effect to account for.
 */
static bool
has_unmet_corruption(const struct os_hwqueue *queue)
{
	if (!queue)
		return false;
	for (const struct os_hwqueue *q = queue->context->queues; q; q = q->next_in_context)
		if (q->umd_is_corrupted && !q->hw_is_faulted)
			return true;
	return false;
}

/*
 * The fault injector's HUNG_ENGINE (docs/robustness.md): a work item starting is the
 * opportunity; the hang is armed for it, as fsr_test_engine_hang arms one.
 */
static void
hang_fault(struct hw_engine *engine, struct os_hwqueue *queue, struct hw_dma_packet *packet)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;
	uint64_t handle = queue ? queue->handle : 0;
	uint64_t parameter;

	if (engine->is_hang_armed || engine->is_hung || has_unmet_corruption(queue) ||
	    (queue && rt_fault_is_doomed(runtime, queue->context->handle)) ||
	    !rt_fault_take(runtime, FSR_FAULT_HUNG_ENGINE, engine->adapter->id, engine->id, handle,
			   &parameter))
		return;
	if (queue)
		rt_fault_doom(runtime, queue->context->handle);
	rt_fault_fired(runtime, FSR_FAULT_HUNG_ENGINE, engine->adapter->id, engine->id, handle,
		       packet  ? packet->packet_id
		       : queue ? queue->hw_packet_id
			       : 0);
	engine->is_hang_armed = true;
	engine->hang_queue = 0;
}

bool
hw_engine_is_ignoring_preemption(const struct hw_engine *engine)
{
	const struct os_hwqueue *queue =
	    engine->busy_packet ? engine->busy_packet->queue : engine->busy_queue;

	/* Only the work of that command buffer's queue: another queue's in between answers. */
	return engine->is_ignoring_preemption && queue && queue->handle == engine->ignoring_queue;
}

void
hw_engine_work_started(struct hw_engine *engine, struct os_hwqueue *queue,
		       struct hw_dma_packet *packet)
{
	if (rt_faults_are_on(engine->adapter->runtime))
		hang_fault(engine, queue, packet);
	if (!engine->is_hang_armed || !is_for(engine->hang_queue, queue))
		return;
	/* The work item never ends: only a reset takes it off the engine. */
	engine->is_hang_armed = false;
	engine->is_hung = true;
	engine->busy_until_ns = FSR_NEVER;
}

bool
hw_engine_reset(struct hw_engine *engine, struct hw_dma_packet **aborted)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct fsr_runtime *runtime = adapter->runtime;
	bool is_success = true;

	*aborted = NULL;
	hw_engine_lock(engine);
	if (engine->reset_failures > 0) {
		/* An injected failure: the engine stays as it is (hung, if it was). */
		engine->reset_failures--;
		is_success = false;
		goto end;
	}
	if (engine->is_busy && engine->busy_queue) {
		struct os_hwqueue *queue = engine->busy_queue;

		/*
		 * The work item is not consumed (the read pointer stays on it): if its queue ever
		 * runs again (an innocent queue after an adapter reset), it runs it again, the
		 * ticks it was started with, under a fresh packet_start (the saved-work path of a
		 * preemption, PRE-09); a guilty queue's context is in error and runs nothing.
		 */
		FSR_TRACE(runtime, fencescope_hw, packet_end, adapter->id, engine->id,
			  queue->handle, queue->hw_packet_id, queue->hw_progress_value,
			  hw_gpu_ts(adapter, rt_clock_now(runtime)), FSTP_PACKET_STATUS_ABORTED);
		queue->hw_has_saved_work = true;
		queue->hw_saved_ticks = engine->busy_ticks;
	}
	if (engine->is_busy && engine->busy_packet) {
		struct hw_dma_packet *packet = engine->busy_packet;

		if (packet->queue)
			FSR_TRACE(runtime, fencescope_hw, packet_end, adapter->id, engine->id,
				  packet->queue->handle, packet->packet_id, packet->progress_value,
				  hw_gpu_ts(adapter, rt_clock_now(runtime)),
				  FSTP_PACKET_STATUS_ABORTED);
		if (packet->queue)
			*aborted = packet;
		else
			free(packet);
	}
	/*
	 * TDR-06: an engine stopped on a page fault runs again. The faulted DMA packet ended
	 * FAULTED already (no ABORTED): it goes back to the OS, which drops it (its context is in
	 * error); a faulted ring stays faulted (its context runs nothing more).
	 */
	if (engine->is_page_faulted && engine->fault_packet) {
		if (engine->fault_packet->queue)
			*aborted = engine->fault_packet;
		else
			free(engine->fault_packet);
	}
	engine->is_page_faulted = false;
	engine->fault_packet = NULL;
	engine->is_busy = false;
	engine->busy_queue = NULL;
	engine->busy_packet = NULL;
	engine->is_hung = false;
	engine->is_hang_armed = false;
	engine->is_ignoring_preemption = false;
	engine->is_hung_report_pending = false;
	/*
	 * A preemption request the hung engine never answered: the engine, now idle, completes
	 * it at its next step (granularity NONE), after the reset.
	 */
	engine->is_preempt_planned = false;
	engine->is_preempt_at_end = false;
end:
	hw_engine_unlock(engine);
	rt_clock_kick(runtime, &engine->actor, rt_clock_now(runtime));
	return is_success;
}

/* ---- the test-only API (test-api/fencescope-test.h) ------------------------------------- */

/* What a test-only call sets on an engine's registers (engine's lock held). */
struct test_arm {
	enum { ARM_HANG, ARM_IGNORE, ARM_REPORT_HUNG, ARM_RESET_FAIL } what;
	fsr_handle hwqueue;
	uint32_t count;
};

static void
arm(struct hw_engine *engine, const struct test_arm *a)
{
	switch (a->what) {
	case ARM_HANG:
		if (a->hwqueue == 0 && engine->is_busy && !engine->is_hung) {
			/* The work in flight hangs now. */
			engine->is_hung = true;
			engine->busy_until_ns = FSR_NEVER;
		} else {
			engine->is_hang_armed = true;
			engine->hang_queue = a->hwqueue;
		}
		break;
	case ARM_IGNORE:
		engine->is_ignore_armed = true;
		engine->ignore_queue = a->hwqueue;
		break;
	case ARM_REPORT_HUNG:
		engine->is_hung_report_pending = true;
		break;
	case ARM_RESET_FAIL:
		engine->reset_failures = a->count;
		break;
	}
}

/*
 * The runtime lock, then the engine's, as the KMD programs it; the engine steps at once when
 * what was set acts at its next step (a hang, a Hung report).
 */
static fsr_status
arm_engine(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id, struct test_arm a,
	   bool is_kicked)
{
	struct hw_engine *engine;

	if (!runtime)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(runtime);
	engine = engine_at(runtime, adapter_id, engine_id);
	if (engine) {
		hw_engine_lock(engine);
		arm(engine, &a);
		hw_engine_unlock(engine);
		if (is_kicked)
			rt_clock_kick(runtime, &engine->actor, rt_clock_now(runtime));
	}
	rt_unlock(runtime);
	return engine ? FSR_OK : FSR_ERR_INVALID_ARGUMENT;
}

fsr_status
fsr_test_engine_hang(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id,
		     fsr_handle hwqueue)
{
	return arm_engine(runtime, adapter_id, engine_id,
			  (struct test_arm){.what = ARM_HANG, .hwqueue = hwqueue}, true);
}

fsr_status
fsr_test_packet_ignores_preemption(struct fsr_runtime *runtime, uint32_t adapter_id,
				   uint32_t engine_id, fsr_handle hwqueue)
{
	return arm_engine(runtime, adapter_id, engine_id,
			  (struct test_arm){.what = ARM_IGNORE, .hwqueue = hwqueue}, false);
}

fsr_status
fsr_test_engine_report_hung(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id)
{
	return arm_engine(runtime, adapter_id, engine_id,
			  (struct test_arm){.what = ARM_REPORT_HUNG}, true);
}

fsr_status
fsr_test_engine_reset_fail(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id,
			   uint32_t count)
{
	return arm_engine(runtime, adapter_id, engine_id,
			  (struct test_arm){.what = ARM_RESET_FAIL, .count = count}, false);
}
