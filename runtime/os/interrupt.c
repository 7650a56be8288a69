/* SPDX-License-Identifier: MIT */
/*
 * The OS's side of the emulated GPU's interrupts, and its periodic housekeeping, as one actor.
 *
 * A native fence signaled interrupt is handled in the form the GPU raised it (INT-04 to
 * INT-13): with fences named (several when the GPU coalesced signals), the OS releases each
 * fence's waiters and reads the logs of the queues of every device that has the fence open
 * (INT-10); with a NULL array it scans every waiter (INT-06); with a queue named, it reads that
 * queue's logs (INT-11)
 * and releases the waiters of every fence they name, which covers signals that raised no
 * interrupt themselves (INT-13); with a NULL queue, it does so for every queue of the engine
 * (INT-12).
 *
 * Interrupts reach the OS only from the driver's interrupt routine, as DxgkCbNotifyInterrupt
 * (os_notify_interrupt); the logs are read by os/log-reader.c.
 */
#include <stdlib.h>

#include "os/os-private.h"

/*
 * INT-05: every fence an interrupt names stays live from the moment the driver queues it
 * (DxgkCbNotifyInterrupt) until the OS has handled it, so a fence whose last handle closes
 * while its interrupt is in flight is freed (and its global handle retired) only afterwards.
 * A handle that names no live fence at queueing time is the driver's bug: it takes no
 * reference, and handle_interrupt refuses it.
 */
static void
hold_interrupt_fences(struct fsr_runtime *runtime, struct hw_interrupt *interrupt, bool is_hold)
{
	if (interrupt->type != FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED ||
	    interrupt->form != FSTP_INTERRUPT_FORM_FENCE_ARRAY)
		return;
	for (uint32_t i = 0; i < interrupt->fence_count; i++) {
		struct fsr_fence *fence = rt_map_get(&runtime->fences, interrupt->fences[i]);

		if (is_hold) {
			if (fence) {
				fence->interrupt_refs++;
				interrupt->fences_held |= UINT32_C(1) << i;
			}
		} else if (interrupt->fences_held & (UINT32_C(1) << i)) {
			interrupt->fences_held &= ~(UINT32_C(1) << i);
			os_fence_unref_interrupt(fence);
		}
	}
}

static void
handle_interrupt(struct fsr_runtime *runtime, struct hw_interrupt *interrupt)
{
	struct fsr_adapter *adapter = interrupt->adapter;
	struct fsr_fence *fence;
	uint32_t fence_count = 0;
	uint32_t released = 0;
	fsr_handle queue_handle = interrupt->queue ? interrupt->queue->handle : 0;
	bool is_page_fault = false;
	uint64_t key;
	void *value;

	if (interrupt->type == FSTP_INTERRUPT_TYPE_DMA_COMPLETED) {
		/* INT-01: the kernel-mode path learns of completions through interrupts. */
		os_tdr_packet_completed(adapter, interrupt->engine_id); /* FST-01: progress */
		os_km_packet_done(runtime, interrupt->packet, interrupt->completed_fence_id);
		goto end;
	}
	if (interrupt->type == FSTP_INTERRUPT_TYPE_CRTC_VSYNC) {
		/* PRE-13: a display's vertical sync, naming the flip it latched (os/display.c). */
		os_display_vsync(adapter, interrupt);
		goto end;
	}
	if (interrupt->type == FSTP_INTERRUPT_TYPE_PAGE_FAULT &&
	    interrupt->fault_reason == FSTP_LOSS_REASON_PAGE_FAULT) {
		/* MMU-14: the memory manager's part comes after the interrupt (below). */
		is_page_fault = true;
		goto end;
	}
	if (interrupt->type == FSTP_INTERRUPT_TYPE_PAGE_FAULT) {
		/* The GPU stopped a queue on a command it could not run (docs/robustness.md). */
		os_gpu_fault(adapter, interrupt->queue,
			     (enum fstp_loss_reason) interrupt->fault_reason);
		goto end;
	}
	if (interrupt->type == FSTP_INTERRUPT_TYPE_DMA_PREEMPTED) {
		/* PRE-03: the engine completed preemption requests (os/scheduler.c). */
		os_preempt_done(adapter, interrupt);
		os_km_schedule(runtime);
		goto end;
	}
	if (interrupt->type == FSTP_INTERRUPT_TYPE_ENGINE_STATE_CHANGE) {
		/* FST-02, FST-04: the KMD reports the engine's state; F1 is the OS's to start. */
		os_engine_state_change(adapter, interrupt->engine_id,
				       (enum fstp_engine_state) interrupt->engine_state);
		/* TDR-03: Active->Hung starts recovery at once (os/tdr.c). */
		if (interrupt->engine_state == FSTP_ENGINE_STATE_HUNG)
			os_tdr_engine_hung(adapter, interrupt->engine_id);
		goto end;
	}
	switch (interrupt->form) {
	case FSTP_INTERRUPT_FORM_FENCE_ARRAY:
		/* INT-04, INT-10: each fence named (a coalesced interrupt names several). */
		fence_count = interrupt->fence_count;
		for (uint32_t i = 0; i < interrupt->fence_count; i++) {
			fence = rt_map_get(&runtime->fences, interrupt->fences[i]);
			if (fence) /* a cross-adapter fence: its object on this adapter */
				fence = rt_fence_on_adapter(runtime, interrupt->fences[i], adapter);
			if (!fence && rt_map_get(&runtime->fences, interrupt->fences[i]))
				continue; /* that adapter's object is gone: nothing waits there */
			if (!fence) {
				/* INT-05: a fence that no longer exists: refused, loudly. */
				rt_refuse(runtime, 0, "NativeFenceSignaledInterrupt",
					  interrupt->fences[i], FSR_ERR_DESTROYED);
				continue;
			}
			released += os_fence_release_waiters(fence);
			/* INT-10: and the logs of every queue that could have signalled it. */
			released += os_read_fence_logs(fence);
		}
		break;
	case FSTP_INTERRUPT_FORM_NULL_ARRAY:
		/* INT-06: scan every outstanding waiter. */
		for (size_t cursor = 0; rt_map_next(&runtime->fences, &cursor, &key, &value);)
			RT_FOR_EACH_FENCE_MEMBER(member, (struct fsr_fence *) value)
				if (member->waiters)
					released += os_fence_release_waiters(member);
		released += os_read_engine_logs(adapter, interrupt->engine_id);
		break;
	case FSTP_INTERRUPT_FORM_HWQUEUE:
		/*
		 * INT-11: the log only, progress fence included — its writes are logged like
		 * any signal (HPF-02, LOG-11), and no CurrentValue is read here (spec 001: "Reading
		 * only the log buffer ensures a single read over PCI").
		 */
		released += interrupt->queue
				? os_read_logs(interrupt->queue)                      /* INT-11 */
				: os_read_engine_logs(adapter, interrupt->engine_id); /* INT-12 */
		break;
	case FSTP_INTERRUPT_FORM_NULL_HWQUEUE:
		/* INT-12: the GPU could not tell which queue: every queue of the engine. */
		released += os_read_engine_logs(adapter, interrupt->engine_id);
		break;
	default:
		break;
	}
	/*
	 * XAD-06, XAD-07: a cross-adapter fence's MonitoredValue is 0, so every signal of it
	 * interrupted: what this GPU moved goes to the other adapters, whatever the form.
	 */
	released += os_fence_propagate_from_adapter(adapter);
	if (released == 0)
		runtime->stats.spurious_interrupts++; /* SYN-07: allowed, and counted */
end:
	FSR_TRACE(runtime, fencescope_os, interrupt_handled, adapter->id, interrupt->engine_id,
		  interrupt->type, interrupt->form, queue_handle, fence_count, released);
	/*
	 * MMU-14, TDR-06: the interrupt only tells the OS; the memory manager then terminates the
	 * context (or device) and has the engine reset (os/fault.c), after interrupt_handled, in
	 * the order of docs/trace-format.md (1.5).
	 */
	if (is_page_fault)
		os_gpu_page_fault(adapter, interrupt);
	hold_interrupt_fences(runtime, interrupt, false);
	free(interrupt);
}

/* DxgkCbNotifyInterrupt, from the driver's interrupt routine (interrupt level: lock held). */
void
os_notify_interrupt(struct fsr_adapter *adapter, struct hw_interrupt *interrupt)
{
	struct fsr_runtime *runtime = adapter->runtime;

	runtime->stats.interrupts++;
	interrupt->fences_held = 0;
	hold_interrupt_fences(runtime, interrupt, true);
	interrupt->next = NULL;
	if (runtime->interrupts_tail)
		runtime->interrupts_tail->next = interrupt;
	else
		runtime->interrupts_head = interrupt;
	runtime->interrupts_tail = interrupt;
	rt_clock_kick(runtime, &runtime->os_actor,
		      rt_add_ns(rt_clock_now(runtime), runtime->config.interrupt_latency_ns));
}

/* DxgkCbReleasePacketFence, from the driver's interrupt routine (lock held). */
void
os_release_packet_fence(struct fsr_adapter *adapter, struct fsr_fence *fence)
{
	(void) adapter;
	os_fence_unref_packet(fence);
}

static void
expire_async_waiters(struct fsr_runtime *runtime, uint64_t now)
{
	struct os_waiter **link = &runtime->async_waiters;

	while (*link) {
		struct os_waiter *waiter = *link;
		struct fsr_fence *fence = waiter->fence;

		if (waiter->deadline_ns > now) {
			link = &waiter->next_async;
			continue;
		}
		os_fence_remove_waiter(fence, waiter);
		os_waiter_finish(runtime, waiter, FSR_ERR_TIMEOUT,
				 rt_fence_current(fence, RT_POINT_NONE)); /* unlinks it */
		os_fence_release_waiters(fence);
	}
}

static uint64_t
os_step(struct rt_actor *actor, uint64_t now)
{
	struct fsr_runtime *runtime = actor->runtime;
	uint64_t next;
	uint64_t tdr_next;
	bool is_weak = true;

	rt_lock(runtime);
	/* Realtime: `now` was read before the lock; what this step stamps happens now. */
	now = rt_clock_now(runtime);
	while (runtime->interrupts_head) {
		struct hw_interrupt *interrupt = runtime->interrupts_head;

		runtime->interrupts_head = interrupt->next;
		if (!runtime->interrupts_head)
			runtime->interrupts_tail = NULL;
		handle_interrupt(runtime, interrupt);
	}
	expire_async_waiters(runtime, now);
	/* LOG-04: tracing may have started since the last step; the logs then grow. */
	os_grow_logs_for_tracing(runtime);
	if (now >= runtime->next_log_read_ns) {
		/* Not in spec 001: the opt-in periodic read
		 * (fsr_runtime_config.log_read_period_ns). */
		os_read_all_logs(runtime);
		runtime->next_log_read_ns = rt_add_ns(now, runtime->config.log_read_period_ns);
	}
	if (now >= runtime->next_correlation_ns) {
		/* Each pair reads the CPU clock itself: events of this step came before it. */
		for (uint32_t a = 0; a < runtime->adapter_count; a++)
			runtime->adapters[a]->ddi.DxgkDdiCalibrateGpuClock(
			    runtime->adapters[a]->miniport, rt_clock_now(runtime));
		runtime->next_correlation_ns =
		    rt_add_ns(now, runtime->config.clock_correlation_period_ns);
	}
	if (now >= runtime->next_rescan_ns) {
		/* At the TDR cadence: wake-ups a lost interrupt withheld (os/fault.c). */
		os_rescan_waiters(runtime);
		runtime->next_rescan_ns = rt_add_ns(now, FSR_FAULT_RESCAN_PERIOD_NS);
		runtime->is_wakeup_owed = false; /* a waiter it left owes to no dropped interrupt */
	}
	os_km_schedule(runtime);
	/* TDR-01 to TDR-03: the watchdog (os/tdr.c); its looks are housekeeping (weak). */
	tdr_next = os_tdr_watch(runtime, now);

	next = runtime->next_log_read_ns < runtime->next_correlation_ns
		   ? runtime->next_log_read_ns
		   : runtime->next_correlation_ns;
	if (tdr_next < next)
		next = tdr_next;
	if (runtime->next_rescan_ns < next)
		next = runtime->next_rescan_ns;
	for (struct os_waiter *w = runtime->async_waiters; w; w = w->next_async) {
		is_weak = false; /* a deadline is real work */
		if (w->deadline_ns < next)
			next = w->deadline_ns;
	}
	if (runtime->interrupts_head)
		is_weak = false;
	/* PRE-15: the scheduler's next look (os_km_schedule ran it). */
	if (runtime->sched_next_ns < next)
		next = runtime->sched_next_ns;
	if (runtime->sched_next_ns != FSR_NEVER && runtime->sched_has_work)
		is_weak = false;
	/* A fault plan may drop an interrupt: a wake-up the next check owes is real work. */
	if (is_weak && runtime->is_wakeup_owed && os_has_unreleased_waiter(runtime))
		is_weak = false;
	actor->next_is_weak = is_weak;
	rt_unlock(runtime);
	return next;
}

void
os_actor_init(struct fsr_runtime *runtime)
{
	uint64_t now = rt_clock_now(runtime);

	runtime->sched_next_ns = FSR_NEVER;
	runtime->os_actor.name = "os";
	runtime->os_actor.step = os_step;
	runtime->next_log_read_ns =
	    runtime->config.log_read_period_ns == FSR_INFINITE ? FSR_NEVER : now;
	runtime->next_correlation_ns = rt_add_ns(now, runtime->config.clock_correlation_period_ns);
	runtime->next_rescan_ns = rt_add_ns(now, FSR_FAULT_RESCAN_PERIOD_NS);
	runtime->clock.after_step = os_run_callbacks;
	rt_clock_add_actor(runtime, &runtime->os_actor);
	rt_clock_kick_weak(runtime, &runtime->os_actor, now);
}

/*
 * Realtime idle (lock held): no interrupt pending, every engine idle (DxgkDdiQueryEngineIdle: not
 * busy, no DMA packet, no ring with work it can run), no kernel-mode queue with a buffer that
 * is not blocked on a software wait. Everything it reads changes only with the lock held.
 */
bool
os_is_idle(struct fsr_runtime *runtime)
{
	if (runtime->interrupts_head)
		return false;
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		for (uint32_t e = 0; e < adapter->config.engine_count; e++)
			if (!adapter->ddi.DxgkDdiQueryEngineIdle(adapter->miniport, e))
				return false;
	}
	for (struct os_hwqueue *q = runtime->km_queues; q; q = q->next_km)
		if (q->km_head && !q->is_km_blocked && !os_context_is_suspended(q->context))
			return false;
	return os_displays_are_idle(runtime);
}
