/* SPDX-License-Identifier: MIT */
/*
 * An engine of the emulated GPU with its share of the command processor: it runs the
 * user-mode queues of its run list (their rings) and the DMA packets the OS scheduler hands it
 * for kernel-mode queues, one at a time, round robin.
 *
 * In a ring it executes, in order (spec 001): work (busy for its duration in GPU time); GPU
 * waits, which block their queue until CurrentValue ≥ value (NFV-11) while the engine serves
 * other queues; GPU signals, in the order of SYN-09 — write CurrentValue, write the log entry
 * of the following log instruction, move FirstFreeEntryIndex, full barrier, read
 * MonitoredValue and raise an interrupt iff the new value is greater (INT-02) — at once, or
 * held pending on the line for the adapter's interrupt_coalesce_ns while later signals of the
 * engine join it (INT-04, INT-06, INT-12, INT-13); and the
 * progress fence write that ends each command buffer (HPF-02), a signal of the queue's native
 * progress fence written and logged the same way. Any change of a CurrentValue
 * makes every engine of the adapter look at its blocked waits again.
 *
 * Every GPU timestamp (log entries, hw events) is read from the counter at the moment its
 * operation happens: one pass runs many operations, so a time read once per pass would date a
 * wait's end before the signal that released it. In sim mode the clock stands still during a
 * step and each read gives the step's instant.
 *
 * Concurrency (docs/runtime.md, "Concurrency"). In realtime each engine runs on its own thread
 * without the OS's lock: it shares with the OS and the UMD only the spec's memory words, through
 * the accessors of common/common-private.h, and its interrupt line. Its own state is guarded by
 * its own lock (struct hw_engine), which the KMD takes to program it; what it sends up the line
 * during a step waits in its outbox and reaches the driver's interrupt routine, under the OS's
 * lock (the interrupt level), once the step has let go of the engine's lock. In sim mode without
 * interleaving the engines step under the OS's lock, one at a time; with interleaving they step
 * without it, passing the scheduler's baton, and take it only around the interrupt line.
 */
#include <stdlib.h>

#include "common/fault-private.h"
#include "hw/hw-private.h"

/* Work takes at least a nanosecond, so that time moves while an engine works. */
static uint64_t
work_ns(struct fsr_adapter *adapter, uint64_t ticks)
{
	uint64_t ns = hw_ticks_to_ns(adapter, ticks);

	return ns ? ns : 1;
}

/* The GPU timestamp counter now: read it where the operation happens, after the lock. */
static uint64_t
gpu_now(struct fsr_adapter *adapter)
{
	return hw_gpu_ts(adapter, rt_clock_now(adapter->runtime));
}

static struct hw_engine *
engine_of(struct rt_actor *actor)
{
	return (struct hw_engine *) ((char *) actor - offsetof(struct hw_engine, actor));
}

/* The fence a ring's wait or signal names by its GPU address (HW_PACKET_WAIT). */
static struct fsr_fence *
fence_at(const struct hw_packet *packet)
{
	return (struct fsr_fence *) (uintptr_t) packet->c;
}

void
hw_engine_kick_all(struct fsr_adapter *adapter)
{
	struct fsr_runtime *runtime = adapter->runtime;
	uint64_t now = rt_clock_now(runtime);

	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		struct hw_engine *engine = &adapter->gpu->engines[e];

		/*
		 * Realtime: only an engine with a queue blocked on a GPU wait has anything to look
		 * at again; waking the others costs a system call and a switch each per signal.
		 * The blocked engine counts its wait before it reads CurrentValue, and the writer
		 * wrote CurrentValue before this read (both seq_cst): one of them sees the other.
		 * Sim mode kicks them all, as ever (same steps, same recordings).
		 */
		if (runtime->clock.mode == FSR_CLOCK_REALTIME &&
		    !atomic_load(&engine->blocked_queues))
			continue;
		rt_clock_kick(runtime, &engine->actor, now);
	}
}

void
hw_engine_add_queue(struct hw_engine *engine, struct os_hwqueue *queue)
{
	struct os_hwqueue **link;

	hw_engine_lock(engine);
	link = &engine->run_list;
	while (*link)
		link = &(*link)->next_on_engine;
	queue->next_on_engine = NULL;
	*link = queue;
	atomic_fetch_add_explicit(&engine->user_queue_count, 1, memory_order_relaxed);
	hw_engine_unlock(engine);
	/* A polling engine that slept with an empty run list starts watching its doorbells. */
	if (engine->actor.poll)
		rt_clock_kick(engine->adapter->runtime, &engine->actor,
			      rt_clock_now(engine->adapter->runtime));
}

/* An interrupt that names `queue`, which is going: it names no queue any more. */
static void
forget_queue(struct hw_interrupt *interrupt, struct os_hwqueue *queue)
{
	if (interrupt->queue != queue)
		return;
	interrupt->queue = NULL;
	/* A HWQueue form becomes the NULL-HWQueue one; a DMA packet is dropped by the OS. */
	if (interrupt->form == FSTP_INTERRUPT_FORM_HWQUEUE)
		interrupt->form = FSTP_INTERRUPT_FORM_NULL_HWQUEUE;
	if (interrupt->packet)
		interrupt->packet->queue = NULL;
}

void
hw_engine_remove_queue(struct hw_engine *engine, struct os_hwqueue *queue)
{
	/* Realtime: the engine's lock waits for a step that may be in the queue to end. */
	hw_engine_lock(engine);
	for (struct os_hwqueue **link = &engine->run_list; *link; link = &(*link)->next_on_engine) {
		if (*link == queue) {
			*link = queue->next_on_engine;
			atomic_fetch_sub_explicit(&engine->user_queue_count, 1,
						  memory_order_relaxed);
			break;
		}
	}
	if (engine->cursor == queue)
		engine->cursor = queue->next_on_engine;
	if (queue->is_wait_observed)
		atomic_fetch_sub(&engine->blocked_queues, 1);
	/* Interleaving: a queue goes only when no engine step is half way through it. */
	FSR_ASSERT_PRE("engine-remove-queue:not-running", engine->running_queue != queue);
	if (engine->busy_queue == queue)
		engine->busy_queue = NULL; /* the work in flight finishes with no effect */
	if (engine->reserved_for == queue)
		engine->reserved_for = NULL;
	for (struct hw_dma_packet *p = engine->dma_head; p; p = p->next)
		if (p->queue == queue)
			p->queue = NULL;
	if (engine->busy_packet && engine->busy_packet->queue == queue)
		engine->busy_packet->queue = NULL;
	if (engine->fault_packet && engine->fault_packet->queue == queue)
		engine->fault_packet->queue = NULL;
	/* Neither the pending interrupt nor one waiting in the outbox names it any more. */
	if (engine->pending)
		forget_queue(engine->pending, queue);
	for (struct hw_interrupt *i = engine->outbox_head; i; i = i->next)
		forget_queue(i, queue);
	for (struct hw_interrupt *i = engine->held_head; i; i = i->next)
		forget_queue(i, queue);
	hw_engine_unlock(engine);
}

/*
 * SUS-01: the queue leaves the hardware scheduler's list. The engine skips it from now on: a
 * ring (run_queue stops at the next packet boundary — the work item it is busy with finishes,
 * nothing after it starts) and a DMA packet of it that has not started. Its doorbell stays
 * connected: rings are still taken (SUS-02, SUS-03).
 */
void
hw_engine_suspend_queue(struct hw_engine *engine, struct os_hwqueue *queue)
{
	hw_engine_lock(engine);
	queue->hw_is_suspended = true;
	if (engine->cursor == queue)
		engine->cursor = queue->next_on_engine;
	if (engine->reserved_for == queue)
		engine->reserved_for = NULL; /* its next split packet waits for the resume */
	hw_engine_unlock(engine);
}

/*
 * SUS-04, SUS-05: back on the list; a doorbell queue's write pointer is taken now, so what the
 * UMD wrote meanwhile runs without a new ring. The engine is kicked to look at it.
 */
void
hw_engine_resume_queue(struct hw_engine *engine, struct os_hwqueue *queue)
{
	hw_engine_lock(engine);
	queue->hw_is_suspended = false;
	/* Every user-mode queue runs only what was taken from its ring (UMS-13). */
	if (queue->mode == FSR_SUBMIT_USER_MODE)
		hw_engine_take_write_ptr(engine, queue);
	hw_engine_unlock(engine);
	rt_clock_kick(engine->adapter->runtime, &engine->actor,
		      rt_clock_now(engine->adapter->runtime));
}

void
hw_engine_push_dma(struct hw_engine *engine, struct hw_dma_packet *packet)
{
	packet->next = NULL;
	hw_engine_lock(engine);
	if (engine->dma_tail)
		engine->dma_tail->next = packet;
	else
		engine->dma_head = packet;
	engine->dma_tail = packet;
	hw_engine_unlock(engine);
	rt_clock_kick(engine->adapter->runtime, &engine->actor,
		      rt_clock_now(engine->adapter->runtime));
}

/* An idle query (DxgkDdiQueryEngineIdle): reads of the ring control that never switch. */
static bool
queue_has_packets(struct fsr_runtime *runtime, struct os_hwqueue *queue)
{
	/* A queue has, for the GPU, what the command processor took of it (UMS-13). */
	return rt_word_load(runtime, &queue->control->read_ptr_bytes, memory_order_relaxed,
			    RT_POINT_NONE) != queue->fetched_ptr;
}

/*
 * A queue is blocked while the GPU wait at its head is unsatisfied (NFV-11). Once a signal has
 * raised CurrentValue to the value, the queue is runnable even though is_wait_observed still
 * says it waits: the signal kicked this engine, whose thread (realtime) may not have taken the
 * lock yet to look again.
 */
static bool
queue_is_blocked(struct hw_engine *engine, struct os_hwqueue *queue)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;
	struct hw_packet wait;
	struct fsr_fence *fence;

	if (!queue->is_wait_observed)
		return false;
	/* run_queue stops with the read pointer on the wait it observed. */
	wait = rt_ring_read(runtime, queue,
			    rt_word_load(runtime, &queue->control->read_ptr_bytes,
					 memory_order_relaxed, RT_POINT_NONE),
			    RT_POINT_NONE);
	fence = fence_at(&wait);
	FSR_ASSERT_PRE("engine-is-idle:observed-wait-at-head",
		       wait.type == HW_PACKET_WAIT && fence);
	return rt_word_load(runtime, fence->current_word, memory_order_seq_cst, RT_POINT_NONE) <
	       wait.b;
}

/* A DMA packet the engine may start: its queue is gone (dropped) or not suspended. */
static bool
is_dma_startable(const struct hw_dma_packet *packet)
{
	return !packet->queue || !packet->queue->hw_is_suspended;
}

bool
hw_engine_is_idle(struct hw_engine *engine)
{
	bool is_idle;

	hw_engine_lock(engine);
	/* An engine in F1 runs nothing, whatever it holds (FST-04 powers down only idle ones). */
	is_idle = (hw_engine_is_off(engine) && !engine->preempt_count) ||
		  (!engine->is_busy && !engine->pending && !engine->outbox_head &&
		   !engine->held_head && !engine->preempt_count);
	/* Stopped on a page fault: the reset the OS owes it is work (MMU-14, TDR-06). */
	if (engine->is_page_faulted)
		is_idle = false;
	/*
	 * A ring the command processor has not taken yet is work (UMS-13: it runs only what it
	 * took). Only an engine with user-mode queues looks: the others are not woken by rings
	 * (realtime) and never look at the counts.
	 */
	if (is_idle && !hw_engine_is_off(engine) &&
	    atomic_load_explicit(&engine->user_queue_count, memory_order_relaxed) &&
	    hw_engine_doorbells_rang(engine))
		is_idle = false;
	/* SUS-03, SUS-07: a suspended queue's work waits; it keeps no engine busy. */
	for (struct hw_dma_packet *p = engine->dma_head; is_idle && !hw_engine_is_off(engine) && p;
	     p = p->next)
		if (is_dma_startable(p))
			is_idle = false;
	for (struct os_hwqueue *q = engine->run_list; is_idle && !hw_engine_is_off(engine) && q;
	     q = q->next_on_engine)
		if (!q->hw_is_suspended && !q->hw_is_faulted &&
		    queue_has_packets(engine->adapter->runtime, q) && !queue_is_blocked(engine, q))
			is_idle = false;
	hw_engine_unlock(engine);
	return is_idle;
}

/* Up the line to the driver's interrupt routine, at interrupt level (sim mode). */
static void
raise_on_line(struct hw_engine *engine, struct hw_interrupt *interrupt)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;

	rt_isr_enter(runtime);
	engine->adapter->gpu->line.raise(engine->adapter->gpu->line.context, interrupt);
	rt_isr_exit(runtime);
}

/*
 * The fault injector's hook on the line (sim mode; docs/robustness.md). LOST_INTERRUPT: a
 * native fence signaled interrupt, raised (interrupt_raise fired), is dropped. DELAYED_INTERRUPT:
 * the line holds the interrupt, and whatever follows it up the line, in order, until the delay
 * has passed (release_held). True when the line took `interrupt`.
 */
static bool
line_fault(struct hw_engine *engine, struct hw_interrupt *interrupt)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;
	uint32_t adapter_id = engine->adapter->id;
	uint64_t queue = interrupt->queue ? interrupt->queue->handle : 0;
	uint64_t delay;

	if (!engine->held_head) {
		if (interrupt->is_retirement)
			return false;
		if (interrupt->type == FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED &&
		    rt_fault_take(runtime, FSR_FAULT_LOST_INTERRUPT, adapter_id, engine->id, queue,
				  &delay)) {
			rt_fault_fired(runtime, FSR_FAULT_LOST_INTERRUPT, adapter_id, engine->id,
				       queue, interrupt->fence_count ? interrupt->fences[0] : 0);
			free(interrupt);
			return true;
		}
		if (!rt_fault_take(runtime, FSR_FAULT_DELAYED_INTERRUPT, adapter_id, engine->id,
				   queue, &delay))
			return false;
		rt_fault_fired(runtime, FSR_FAULT_DELAYED_INTERRUPT, adapter_id, engine->id, queue,
			       delay);
		engine->held_until_ns = rt_add_ns(rt_clock_now(runtime), delay);
		rt_clock_kick(runtime, &engine->actor, engine->held_until_ns);
	}
	if (interrupt->is_retirement) { /* the caller's, on its stack in sim mode */
		struct hw_interrupt *copy = malloc(sizeof(*copy));

		if (!copy)
			abort();
		*copy = *interrupt;
		interrupt = copy;
	}
	interrupt->next = NULL;
	if (engine->held_tail)
		engine->held_tail->next = interrupt;
	else
		engine->held_head = interrupt;
	engine->held_tail = interrupt;
	return true;
}

/* What the line held goes up, in order, once the delay is over (engine's step). */
static void
release_held(struct hw_engine *engine, uint64_t now)
{
	struct hw_interrupt *interrupt = engine->held_head;

	if (!interrupt || now < engine->held_until_ns)
		return;
	engine->held_head = NULL;
	engine->held_tail = NULL;
	while (interrupt) {
		struct hw_interrupt *next = interrupt->next;
		bool is_retirement = interrupt->is_retirement;

		raise_on_line(engine, interrupt);
		if (is_retirement)
			free(interrupt);
		interrupt = next;
	}
}

/*
 * Sends an interrupt or a retirement report up the line. Sim mode: now, at interrupt level
 * (with interleaving the lock is taken for it). Realtime: into the outbox, which the step
 * delivers once it has let go of the engine's lock (deliver_outbox).
 */
static void
send_up_line(struct hw_engine *engine, struct hw_interrupt *interrupt)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;

	if (rt_gpu_is_concurrent(runtime)) {
		interrupt->next = NULL;
		if (engine->outbox_tail)
			engine->outbox_tail->next = interrupt;
		else
			engine->outbox_head = interrupt;
		engine->outbox_tail = interrupt;
		return;
	}
	if (rt_faults_are_on(runtime) && line_fault(engine, interrupt))
		return;
	raise_on_line(engine, interrupt);
}

/*
 * The hw events of a completed preemption (PRE-03, PRE-09): the stopped packet's end, one
 * preempt_complete per request, then the interrupt's raise.
 */
static void
fire_preempt_events(struct hw_engine *engine, struct hw_interrupt *interrupt)
{
	struct fsr_adapter *adapter = engine->adapter;
	const struct hw_preempt_record *r = &interrupt->preempt;

	if (r->is_packet_preempted)
		FSR_TRACE(adapter->runtime, fencescope_hw, packet_end, adapter->id, engine->id,
			  r->queue_handle, r->packet_id, r->progress_value, r->gpu_ts,
			  FSTP_PACKET_STATUS_PREEMPTED);
	for (uint32_t i = 0; i < r->request_count; i++)
		FSR_TRACE(adapter->runtime, fencescope_hw, preempt_complete, adapter->id,
			  engine->id, r->context_handle, r->request_ids[i], r->packet_id,
			  r->granularity, r->gpu_ts, r->work_left_ticks);
	FSR_TRACE(adapter->runtime, fencescope_hw, interrupt_raise, adapter->id, engine->id,
		  interrupt->type, interrupt->form, interrupt->queue ? interrupt->queue->handle : 0,
		  interrupt->fence_count, (const uint64_t *) interrupt->fences);
}

/*
 * Realtime, after the step (engine's lock not held): the outbox goes to the driver's interrupt
 * routine in the order it was sent, at interrupt level (the OS's lock). The engine's lock is
 * taken inside the OS's, as the KMD takes it, to take the outbox: a DestroyHwQueue that ran in
 * between has made its interrupts forget the queue.
 */
static void
deliver_outbox(struct hw_engine *engine)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;
	struct hw_interrupt *interrupt;

	rt_lock(runtime);
	hw_engine_lock(engine);
	interrupt = engine->outbox_head;
	engine->outbox_head = NULL;
	engine->outbox_tail = NULL;
	hw_engine_unlock(engine);
	while (interrupt) {
		struct hw_interrupt *next = interrupt->next;
		bool is_retirement = interrupt->is_retirement;

		/* A preemption's events come now, after the OS's request (struct hw_interrupt). */
		if (!is_retirement && interrupt->type == FSTP_INTERRUPT_TYPE_DMA_PREEMPTED)
			fire_preempt_events(engine, interrupt);
		/* An interrupt is the OS's from here (it frees it); a report is not. */
		engine->adapter->gpu->line.raise(engine->adapter->gpu->line.context, interrupt);
		if (is_retirement)
			free(interrupt);
		interrupt = next;
	}
	rt_unlock(runtime);
}

/*
 * A wait or signal packet naming `fence` has retired: the GPU reports it up its line, so that
 * the OS, told by the driver's interrupt routine, drops the reference the packet held.
 */
static void
report_retired(struct hw_engine *engine, struct fsr_fence *fence)
{
	struct hw_interrupt report = {.is_retirement = true, .retired_fence = fence};
	struct hw_interrupt *queued;

	if (!rt_gpu_is_concurrent(engine->adapter->runtime)) {
		send_up_line(engine, &report);
		return;
	}
	queued = malloc(sizeof(*queued));
	if (!queued)
		abort(); /* a lost report would keep the fence forever */
	*queued = report;
	send_up_line(engine, queued);
}

/* The interrupt goes up the line: the driver's interrupt routine hands it to the OS. */
static void
deliver_interrupt(struct hw_engine *engine, struct hw_interrupt *interrupt)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;

	if (interrupt->type == FSTP_INTERRUPT_TYPE_DMA_PREEMPTED) {
		/* Realtime: its events wait for the outbox's delivery, under the OS's lock. */
		if (!rt_gpu_is_concurrent(runtime))
			fire_preempt_events(engine, interrupt);
		send_up_line(engine, interrupt);
		return;
	}
	FSR_TRACE(runtime, fencescope_hw, interrupt_raise, engine->adapter->id, engine->id,
		  interrupt->type, interrupt->form, interrupt->queue ? interrupt->queue->handle : 0,
		  interrupt->fence_count, (const uint64_t *) interrupt->fences);
	send_up_line(engine, interrupt);
}

/* The pending interrupt goes up once its time has come (lock held). */
static void
deliver_due_interrupt(struct hw_engine *engine, uint64_t now)
{
	struct hw_interrupt *interrupt = engine->pending;

	if (!interrupt || now < engine->pending_due_ns)
		return;
	engine->pending = NULL;
	deliver_interrupt(engine, interrupt);
}

/*
 * A signal that needs an interrupt joins the one pending on the line. Fence-array form: its
 * fence is added, once (INT-04); past FSR_MAX_INTERRUPT_FENCES the GPU cannot tell the subset
 * any more and the interrupt collapses to the NULL array (INT-06), which makes the OS scan every
 * waiter — either way the fence is covered (INT-07). HWQueue form: one queue's interrupt covers
 * every entry of its logs since the OS's last read (INT-13); a signal of another queue makes it
 * the NULL-HWQueue form, which makes the OS read every queue of the engine (INT-12). The NULL
 * forms already cover everything.
 */
static void
coalesce_interrupt(struct hw_interrupt *pending, struct os_hwqueue *queue, fsr_handle fence)
{
	switch (pending->form) {
	case FSTP_INTERRUPT_FORM_FENCE_ARRAY:
		if (pending->queue != queue)
			pending->queue = NULL; /* signals of several queues */
		for (uint32_t i = 0; i < pending->fence_count; i++)
			if (pending->fences[i] == fence)
				return;
		if (pending->fence_count == FSR_MAX_INTERRUPT_FENCES) {
			pending->form = FSTP_INTERRUPT_FORM_NULL_ARRAY;
			pending->fence_count = 0;
			pending->queue = NULL;
			return;
		}
		pending->fences[pending->fence_count++] = fence;
		break;
	case FSTP_INTERRUPT_FORM_HWQUEUE:
		if (pending->queue != queue) {
			pending->form = FSTP_INTERRUPT_FORM_NULL_HWQUEUE;
			pending->queue = NULL;
		}
		break;
	default:
		break;
	}
}

/*
 * Raises an interrupt: at once, or — a native fence signaled interrupt on an adapter that
 * coalesces — held pending on the line for interrupt_coalesce_ns, or joined to the one already
 * pending there. `fence` is the signalled fence of the fence-array form (0 for other forms).
 */
static void
raise_interrupt(struct hw_engine *engine, enum fstp_interrupt_type type,
		enum fstp_interrupt_form form, struct os_hwqueue *queue, fsr_handle fence,
		struct hw_dma_packet *packet)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct hw_interrupt *interrupt;
	bool is_coalesced = type == FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED &&
			    adapter->config.interrupt_coalesce_ns > 0;

	if (is_coalesced && engine->pending) {
		coalesce_interrupt(engine->pending, queue, fence);
		return;
	}
	interrupt = calloc(1, sizeof(*interrupt));
	if (!interrupt)
		abort(); /* a lost interrupt is the one thing the model must never do (SYN-06) */
	*interrupt = (struct hw_interrupt){.type = type,
					   .form = form,
					   .adapter = adapter,
					   .engine_id = engine->id,
					   .queue = queue,
					   .packet = packet,
					   .completed_fence_id = packet ? packet->hw_fence_id : 0};
	if (form == FSTP_INTERRUPT_FORM_FENCE_ARRAY) {
		interrupt->fences[0] = fence;
		interrupt->fence_count = 1;
	}
	if (!is_coalesced) {
		deliver_interrupt(engine, interrupt);
		return;
	}
	/* The engine's step delivers it when due (engine_step returns that time at the latest). */
	engine->pending = interrupt;
	engine->pending_due_ns =
	    rt_add_ns(rt_clock_now(adapter->runtime), adapter->config.interrupt_coalesce_ns);
}

/*
 * SYN-09's tail, after CurrentValue and the log entry are written: full barrier, read
 * MonitoredValue, interrupt iff the value is above it (INT-02).
 */
static void
signal_interrupt_check(struct hw_engine *engine, struct os_hwqueue *queue, struct fsr_fence *fence,
		       uint64_t value, uint64_t gpu_ts)
{
	struct fsr_adapter *adapter = engine->adapter;
	uint64_t monitored;
	bool is_interrupt;

	/*
	 * SYN-09: a full barrier, which also makes the log entries this queue posted visible
	 * (docs/runtime.md, "Fence logs"), then MonitoredValue: seq_cst, so that with the OS's
	 * store-barrier-resample (SYN-04, SYN-05) one side always sees the other (SYN-06).
	 */
	rt_barrier(adapter->runtime, RT_POINT_GPU_BARRIER);
	rt_fence_log_flush(&queue->logs[FSTP_LOG_TYPE_WAITS]);
	rt_fence_log_flush(&queue->logs[FSTP_LOG_TYPE_SIGNALS]);
	monitored = rt_word_load(adapter->runtime, &fence->monitored_value, memory_order_seq_cst,
				 RT_POINT_GPU_READ_MONITORED_VALUE);
	is_interrupt = value > monitored;
	FSR_TRACE(adapter->runtime, fencescope_hw, fence_value_write, adapter->id, engine->id,
		  queue->handle, fence->global_handle, value, monitored, is_interrupt, gpu_ts);
	hw_engine_kick_all(adapter);
	if (!is_interrupt)
		return;
	switch (adapter->config.interrupt_form) {
	case FSR_INTERRUPT_NULL_ARRAY:
		raise_interrupt(engine, FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED,
				FSTP_INTERRUPT_FORM_NULL_ARRAY, NULL, 0, NULL);
		break;
	case FSR_INTERRUPT_HWQUEUE:
		raise_interrupt(engine, FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED,
				FSTP_INTERRUPT_FORM_HWQUEUE, queue, 0, NULL);
		break;
	case FSR_INTERRUPT_FENCE_ARRAY:
	default:
		raise_interrupt(engine, FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED,
				FSTP_INTERRUPT_FORM_FENCE_ARRAY, queue, fence->global_handle, NULL);
		break;
	}
}

static void
write_log_entry(struct fsr_runtime *runtime, struct os_hwqueue *queue, const struct hw_packet *log,
		uint64_t observed_gpu_ts, uint64_t end_gpu_ts)
{
	enum fstp_log_type type = (enum fstp_log_type)(log->flags & 0xff);
	struct hw_log_entry entry = {
	    .fence_value = log->b,
	    .native_fence = (uint32_t) log->c,
	    .operation = (log->flags >> 8) & 0xff,
	    .observed_gpu_ts = observed_gpu_ts,
	    .end_gpu_ts = end_gpu_ts,
	};

	hw_fence_log_write(runtime, &queue->logs[type], (uint32_t) log->a, &entry);
	if (rt_faults_are_on(runtime))
		hw_fence_log_storm(queue, type, (uint32_t) log->a, end_gpu_ts);
}

/*
 * The GPU met a malformed command in `queue`'s ring: the buffer it is in ends FAULTED, the
 * queue runs nothing more, and a fault interrupt (PAGE_FAULT, reason INVALID_COMMAND) tells the
 * OS, which puts the queue's context in error (docs/robustness.md).
 */
static void
fault_queue(struct hw_engine *engine, struct os_hwqueue *queue)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct hw_interrupt *interrupt = calloc(1, sizeof(*interrupt));

	if (!interrupt)
		abort();
	queue->hw_is_faulted = true;
	FSR_TRACE(adapter->runtime, fencescope_hw, packet_end, adapter->id, engine->id,
		  queue->handle, queue->hw_packet_id, queue->hw_progress_value, gpu_now(adapter),
		  FSTP_PACKET_STATUS_FAULTED);
	*interrupt = (struct hw_interrupt){.type = FSTP_INTERRUPT_TYPE_PAGE_FAULT,
					   .form = FSTP_INTERRUPT_FORM_NOT_FENCE,
					   .adapter = adapter,
					   .engine_id = engine->id,
					   .queue = queue,
					   .fault_reason = FSTP_LOSS_REASON_INVALID_COMMAND};
	deliver_interrupt(engine, interrupt);
}

/*
 * MMU-14, TDR-06: an access of the work item the engine started did not translate. In the
 * order of docs/trace-format.md (1.5): fencescope_hw:page_fault, the packet ends FAULTED, and
 * the PAGE_FAULT interrupt (reason PAGE_FAULT) names the access and its context. The engine
 * stops there and runs nothing more until the OS, which terminates the context (or device),
 * has it reset (hw_engine_reset). `queue`: the ring's or the DMA packet's queue.
 */
static void
page_fault(struct hw_engine *engine, struct os_hwqueue *queue, uint64_t packet_id,
	   uint64_t progress_value, const struct hw_packet *access, uint64_t fault_va,
	   int fault_type)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct fsr_runtime *runtime = adapter->runtime;
	struct hw_interrupt *interrupt = calloc(1, sizeof(*interrupt));
	uint64_t gpu_ts = gpu_now(adapter);

	if (!interrupt)
		abort();
	FSR_TRACE(runtime, fencescope_hw, page_fault, adapter->id, engine->id,
		  queue->context->process_id, queue->context->handle, fault_va, fault_type, gpu_ts,
		  (int) access->flags, packet_id);
	FSR_TRACE(runtime, fencescope_hw, packet_end, adapter->id, engine->id, queue->handle,
		  packet_id, progress_value, gpu_ts, FSTP_PACKET_STATUS_FAULTED);
	engine->is_page_faulted = true;
	engine->busy_until_ns = FSR_NEVER; /* engine_run's answer: nothing until the reset */
	engine->has_worked = true;
	*interrupt = (struct hw_interrupt){.type = FSTP_INTERRUPT_TYPE_PAGE_FAULT,
					   .form = FSTP_INTERRUPT_FORM_NOT_FENCE,
					   .adapter = adapter,
					   .engine_id = engine->id,
					   .queue = queue,
					   .fault_reason = FSTP_LOSS_REASON_PAGE_FAULT,
					   .fault_va = fault_va,
					   .fault_access = (int) access->flags,
					   .fault_type = fault_type,
					   .fault_packet_id = packet_id,
					   .fault_context = queue->context->handle,
					   .fault_process_id = queue->context->process_id};
	deliver_interrupt(engine, interrupt);
}

enum run_result {
	RUN_EMPTY,
	RUN_BLOCKED,
	RUN_BUSY,
};

/* Runs what a user-mode queue has until something takes time or blocks. */
static enum run_result
run_queue(struct hw_engine *engine, struct os_hwqueue *queue)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct fsr_runtime *runtime = adapter->runtime;
	/* The GPU's own read pointer; the write pointer acquires the UMD's slots (HPF-04). */
	uint64_t read_ptr = rt_word_load(runtime, &queue->control->read_ptr_bytes,
					 memory_order_relaxed, RT_POINT_GPU_READ_READ_PTR);
	uint64_t start_ptr = read_ptr;
	/*
	 * Up to what the command processor took from a doorbell, a connect, a disconnect or a
	 * notification (hw/doorbell.c, UMS-13), never the write pointer read here: the command
	 * processor does not poll rings.
	 */
	uint64_t write_ptr = queue->fetched_ptr;
	enum run_result result = RUN_EMPTY;

	engine->running_queue = queue;
	/* SUS-01, SUS-03: a suspended queue runs nothing; one suspended meanwhile stops here. */
	while (read_ptr != write_ptr && !queue->hw_is_suspended && !queue->hw_is_faulted) {
		struct hw_packet slot =
		    rt_ring_read(runtime, queue, read_ptr, RT_POINT_GPU_READ_RING_SLOT);
		struct hw_packet log_slot = {0};
		const struct hw_packet *packet = &slot;
		const struct hw_packet *log = &log_slot;
		struct fsr_fence *fence;
		uint64_t gpu_ts;

		/*
		 * The hardware never fetches from a ring that is not resident (RES-05): the D3
		 * power-down evicts only once every queue is off the run lists (DST-03); nor from
		 * a freed one: the queue holds its ring allocations until it leaves the engine, and
		 * an abnormal termination suspends its context first (TRM-05).
		 */
		FSR_ASSERT_PRE("gpu-fetch:ring-resident", rt_queue_ring_is_resident(queue));
		/* Waits, signals and progress writes are followed by a log instruction (LOG-05). */
		if (slot.type == HW_PACKET_WAIT || slot.type == HW_PACKET_SIGNAL ||
		    slot.type == HW_PACKET_PROGRESS)
			log_slot = rt_ring_read(runtime, queue, read_ptr + sizeof(slot),
						RT_POINT_GPU_READ_RING_SLOT);

		switch (packet->type) {
		case HW_PACKET_BEGIN: {
			uint64_t now = rt_clock_now(runtime);

			gpu_ts = hw_gpu_ts(adapter, now);
			FSR_TRACE(runtime, fencescope_hw, packet_start, adapter->id, engine->id,
				  queue->handle, packet->a, packet->b, gpu_ts);
			queue->hw_packet_id = packet->a;
			queue->hw_progress_value = packet->b;
			hw_engine_packet_started(engine, queue);
			atomic_fetch_add_explicit(
			    &runtime->user_mode_submit_to_start[rt_latency_bucket(
				now > packet->c ? now - packet->c : 0)],
			    1, memory_order_relaxed);
			read_ptr += sizeof(*packet);
			break;
		}
		case HW_PACKET_WORK: {
			uint64_t ticks = packet->a;
			uint64_t now = rt_clock_now(runtime);

			if (queue->hw_has_saved_work) {
				/*
				 * PRE-09: the context resumes at its saved point with the work that
				 * was left; the command buffer starts again on the engine.
				 */
				ticks = queue->hw_saved_ticks;
				queue->hw_has_saved_work = false;
				FSR_TRACE(runtime, fencescope_hw, packet_start, adapter->id,
					  engine->id, queue->handle, queue->hw_packet_id,
					  queue->hw_progress_value, hw_gpu_ts(adapter, now));
			}
			engine->is_busy = true;
			engine->busy_queue = queue;
			engine->busy_start_ns = now;
			engine->busy_ticks = ticks;
			engine->busy_until_ns = now + work_ns(adapter, ticks);
			hw_engine_work_started(engine, queue, NULL); /* a hang armed for it */
			result = RUN_BUSY;
			goto end;
		}
		case HW_PACKET_WAIT:
			fence = fence_at(packet);
			if (!queue->is_wait_observed) {
				queue->is_wait_observed = true;
				atomic_fetch_add(&engine->blocked_queues, 1);
				queue->wait_observed_gpu_ts = gpu_now(adapter);
				FSR_TRACE(runtime, fencescope_hw, gpu_wait_begin, adapter->id,
					  engine->id, queue->handle, packet->a, packet->b,
					  queue->wait_observed_gpu_ts);
			}
			if (rt_word_load(runtime, fence->current_word, memory_order_seq_cst,
					 RT_POINT_GPU_READ_CURRENT_VALUE) < packet->b) {
				result = RUN_BLOCKED;
				goto end;
			}
			/* The wait ends when the GPU sees the value: read the time after it. */
			gpu_ts = gpu_now(adapter);
			FSR_TRACE(runtime, fencescope_hw, gpu_wait_end, adapter->id, engine->id,
				  queue->handle, packet->a, packet->b, gpu_ts);
			write_log_entry(runtime, queue, log, queue->wait_observed_gpu_ts, gpu_ts);
			queue->is_wait_observed = false;
			atomic_fetch_sub(&engine->blocked_queues, 1);
			report_retired(engine, fence);
			read_ptr += 2 * sizeof(*packet);
			break;
		case HW_PACKET_SIGNAL:
			/* The signal happens when CurrentValue is written: read the time before. */
			fence = fence_at(packet);
			gpu_ts = gpu_now(adapter);
			/* SYN-09: CurrentValue, then the log entry, then the barrier. */
			rt_fence_write_current(runtime, fence, packet->b,
					       RT_POINT_GPU_WRITE_CURRENT_VALUE);
			write_log_entry(runtime, queue, log, 0, gpu_ts);
			signal_interrupt_check(engine, queue, fence, packet->b, gpu_ts);
			report_retired(engine, fence);
			read_ptr += 2 * sizeof(*packet);
			break;
		case HW_PACKET_PROGRESS:
			/*
			 * HPF-02: the buffer's last instruction, a signal of the native progress
			 * fence in SYN-09's order: CurrentValue, its log entry (LOG-11: the OS
			 * learns of it from the log in the HWQueue form, INT-11), the barrier.
			 */
			gpu_ts = gpu_now(adapter);
			rt_fence_write_current(runtime, queue->progress_fence, packet->a,
					       RT_POINT_GPU_WRITE_CURRENT_VALUE);
			write_log_entry(runtime, queue, log, 0, gpu_ts);
			signal_interrupt_check(engine, queue, queue->progress_fence, packet->a,
					       gpu_ts);
			/* The buffer ends once its interrupt is raised, which may take a while. */
			gpu_ts = gpu_now(adapter);
			FSR_TRACE(runtime, fencescope_hw, packet_end, adapter->id, engine->id,
				  queue->handle, packet->b, packet->a, gpu_ts,
				  FSTP_PACKET_STATUS_COMPLETED);
			if (queue->handle == engine->ignoring_queue)
				engine->is_ignoring_preemption = false; /* its end: answered */
			read_ptr += 2 * sizeof(*packet);
			break;
		case HW_PACKET_ACCESS: {
			/*
			 * MMU-14: the access goes through the context's page tables now, when the
			 * GPU gets to it, whatever was mapped when it was recorded. A fault stops
			 * the queue at it (its buffer ended FAULTED) and the engine until a reset.
			 */
			uint64_t fault_va;
			int fault_type;

			if (!hw_access_run(engine, queue->context, packet, &fault_va,
					   &fault_type)) {
				queue->hw_is_faulted = true;
				page_fault(engine, queue, queue->hw_packet_id,
					   queue->hw_progress_value, packet, fault_va, fault_type);
				result = RUN_BUSY; /* the engine stops: engine_run returns */
				goto end;
			}
			read_ptr += sizeof(*packet);
			break;
		}
		case HW_PACKET_LOG:
			/* A log instruction travels with its wait or signal; a stray one is
			 * skipped. */
			read_ptr += sizeof(*packet);
			break;
		default:
			/*
			 * No such command: the ring's memory changed after the UMD validated the
			 * buffer (the fault injector's CORRUPT_PACKET). The buffer ends FAULTED
			 * here and the queue stops; the OS hears of it by interrupt.
			 */
			fault_queue(engine, queue);
			goto end;
		}
		/* Release: the UMD that sees the slot free sees it read (ring reuse). */
		rt_word_store(runtime, &queue->control->read_ptr_bytes, read_ptr,
			      memory_order_release, RT_POINT_GPU_WRITE_READ_PTR);
	}
end:
	rt_word_store(runtime, &queue->control->read_ptr_bytes, read_ptr, memory_order_release,
		      RT_POINT_GPU_WRITE_READ_PTR);
	engine->running_queue = NULL;
	if (read_ptr != start_ptr)
		engine->has_worked = true; /* the idle watch starts over (FST-01) */
	return result;
}

static void
finish_busy(struct hw_engine *engine)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct hw_dma_packet *packet = engine->busy_packet;
	uint64_t gpu_ts;

	engine->is_busy = false;
	if (engine->busy_queue) {
		struct os_hwqueue *queue = engine->busy_queue;

		rt_word_fetch_add(adapter->runtime, &queue->control->read_ptr_bytes,
				  sizeof(struct hw_packet), memory_order_release,
				  RT_POINT_GPU_WRITE_READ_PTR);
		engine->busy_queue = NULL;
		/* Round robin after each work item (a suspended queue's link may be stale). */
		if (!queue->hw_is_suspended)
			engine->cursor = queue->next_on_engine;
	}
	if (packet) {
		engine->busy_packet = NULL;
		if (!packet->queue) {
			free(packet);
			return;
		}
		if (packet->queue->handle == engine->ignoring_queue)
			engine->is_ignoring_preemption = false; /* its end: answered (hw/reset.c) */
		gpu_ts = gpu_now(adapter);
		FSR_TRACE(adapter->runtime, fencescope_hw, packet_end, adapter->id, engine->id,
			  packet->queue->handle, packet->packet_id, packet->progress_value, gpu_ts,
			  FSTP_PACKET_STATUS_COMPLETED);
		/* PRE-08: PreemptionAware = 0 runs the buffer's next split packet next. */
		if (adapter->config.preemption_unaware && packet->is_split_continued)
			engine->reserved_for = packet->queue;
		raise_interrupt(engine, FSTP_INTERRUPT_TYPE_DMA_COMPLETED,
				FSTP_INTERRUPT_FORM_NOT_FENCE, packet->queue, 0, packet);
	}
}

/* The run-list priority of a DMA packet's context (PRE-15); a dropped packet matches any. */
static bool
dma_matches(const struct hw_dma_packet *packet, int level)
{
	return level < 0 || !packet->queue || (int) packet->queue->context->hw_priority == level;
}

/*
 * Starts the first startable DMA packet of priority `level` (-1: any), in DMA queue order;
 * paging packets only when `is_paging` (PRE-06: they run before anything else on the engine);
 * only the reserved queue's when the engine is reserved for a split command buffer (PRE-08).
 */
static bool
start_dma(struct hw_engine *engine, int level, bool is_paging)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct hw_dma_packet *previous = NULL;

	while (previous ? previous->next : engine->dma_head) {
		struct hw_dma_packet *packet = previous ? previous->next : engine->dma_head;
		bool is_first_start;
		uint64_t now;

		/* SUS-07: a suspended queue's packet waits in the DMA queue, in its place. */
		if (!is_dma_startable(packet) || !dma_matches(packet, level) ||
		    (is_paging && !packet->is_paging) ||
		    (engine->reserved_for && packet->queue != engine->reserved_for)) {
			previous = packet;
			continue;
		}
		if (previous)
			previous->next = packet->next;
		else
			engine->dma_head = packet->next;
		if (engine->dma_tail == packet)
			engine->dma_tail = previous;
		if (!packet->queue) {
			free(packet);
			continue;
		}
		engine->reserved_for = NULL;
		now = rt_clock_now(adapter->runtime);
		engine->is_busy = true;
		engine->busy_packet = packet;
		engine->busy_until_ns = now + work_ns(adapter, packet->gpu_ticks);
		engine->busy_start_ns = now;
		engine->busy_ticks = packet->gpu_ticks;
		/*
		 * MMU-14: a packet's accesses run when it first starts; the remainder of a
		 * preempted one does not make them again (an adapter reset's redo, which starts
		 * afresh, does).
		 */
		is_first_start = !packet->start_ns;
		/* the OS counts submit→start when the packet is done (a resubmission: its first) */
		if (!packet->start_ns)
			packet->start_ns = now;
		FSR_TRACE(adapter->runtime, fencescope_hw, packet_start, adapter->id, engine->id,
			  packet->queue->handle, packet->packet_id, packet->progress_value,
			  hw_gpu_ts(adapter, now));
		hw_engine_packet_started(engine, packet->queue);
		/* MMU-14: the packet's accesses first, each through its context's page tables. */
		for (uint32_t i = 0; is_first_start && i < packet->access_count; i++) {
			uint64_t fault_va;
			int fault_type;

			if (hw_access_run(engine, packet->queue->context, &packet->accesses[i],
					  &fault_va, &fault_type))
				continue;
			engine->is_busy = false;
			engine->busy_packet = NULL;
			engine->fault_packet = packet;
			page_fault(engine, packet->queue, packet->packet_id, packet->progress_value,
				   &packet->accesses[i], fault_va, fault_type);
			return true;
		}
		hw_engine_work_started(engine, packet->queue, packet); /* a hang armed for it */
		return true;
	}
	return false;
}

/* One priority level: DMA packets and rings round robin, as the engine always did. */
static uint64_t
run_level(struct hw_engine *engine, int level)
{
	size_t count = 0;
	struct os_hwqueue *queue;

	if (engine->prefer_dma && start_dma(engine, level, false)) {
		engine->prefer_dma = false;
		return engine->busy_until_ns;
	}
	engine->prefer_dma = true;
	for (queue = engine->run_list; queue; queue = queue->next_on_engine)
		count++;
	queue = engine->cursor ? engine->cursor : engine->run_list;
	for (size_t i = 0; i < count; i++) {
		if ((int) queue->context->hw_priority == level &&
		    run_queue(engine, queue) == RUN_BUSY)
			return engine->busy_until_ns;
		queue = queue->next_on_engine ? queue->next_on_engine : engine->run_list;
	}
	if (start_dma(engine, level, false))
		return engine->busy_until_ns;
	return FSR_NEVER;
}

/*
 * The command processor's arbitration (PRE-15; docs/runtime.md "Scheduling and preemption as
 * built"): paging packets first (PRE-06); then by the context priority the KMD programmed,
 * highest first — at each level DMA packets and rings in round robin, as before priorities
 * existed; a lower level runs only when nothing of a higher one can. A PreemptionAware = 0
 * engine reserved for a split command buffer runs only its next packet (PRE-08).
 */
static uint64_t
engine_run(struct hw_engine *engine)
{
	uint32_t levels = 0;

	if (engine->reserved_for)
		return start_dma(engine, -1, false) ? engine->busy_until_ns : FSR_NEVER;
	/* PRE-06: paging packets first; a preempted one's remainder before anything else. */
	if (start_dma(engine, -1, true)) {
		engine->is_awaiting_paging = false;
		return engine->busy_until_ns;
	}
	if (engine->is_awaiting_paging)
		return FSR_NEVER;
	for (struct hw_dma_packet *p = engine->dma_head; p; p = p->next)
		if (p->queue && is_dma_startable(p))
			levels |= UINT32_C(1) << p->queue->context->hw_priority;
	for (struct os_hwqueue *q = engine->run_list; q; q = q->next_on_engine)
		if (!q->hw_is_suspended)
			levels |= UINT32_C(1) << q->context->hw_priority;
	if (!levels) /* dropped packets only, or suspended queues: one pass frees and skips */
		return run_level(engine, FSR_DEFAULT_CONTEXT_PRIORITY);
	for (int level = 31; level >= 0; level--) {
		uint64_t next;

		if (!(levels & (UINT32_C(1) << level)))
			continue;
		next = run_level(engine, level);
		if (next != FSR_NEVER)
			return next;
	}
	return FSR_NEVER;
}

/*
 * FST-01, FST-02: whether the engine has no work at all (engine's lock held): nothing in
 * flight, no DMA packet, no interrupt pending, and every queue's ring run up to what the command
 * processor took — a queue blocked on a GPU wait has work. *is_eligible is always true now:
 * every user-mode queue takes work only through its doorbell (UMS-13), so a connect wakes an
 * engine in F1 for any of them (FST-06); no ring is polled.
 */
static bool
has_no_work(struct hw_engine *engine, bool *is_eligible)
{
	struct fsr_runtime *runtime = engine->adapter->runtime;

	*is_eligible = true;
	/* Interleaving: a step switched out half way through a queue is still at work. */
	if (engine->is_busy || engine->dma_head || engine->pending || engine->running_queue ||
	    engine->preempt_count || engine->is_page_faulted)
		return false;
	if (engine->held_head)
		return false;
	for (struct os_hwqueue *q = engine->run_list; q; q = q->next_on_engine)
		if (!q->hw_is_faulted &&
		    rt_word_load(runtime, &q->control->read_ptr_bytes, memory_order_relaxed,
				 RT_POINT_NONE) != q->fetched_ptr)
			return false;
	return true;
}

/*
 * FST-02, FST-03: the engine's interrupt asking for F1 (GPU_ENGINE_STATE_CHANGE, NewState
 * TRANSITION_TO_F1), up its line like any interrupt: the OS's deferred handling does the rest
 * (os/power.c). Never with the OS's lock taken here: in realtime it waits in the outbox.
 */
static void
raise_engine_state_change(struct hw_engine *engine, enum fstp_engine_state new_state)
{
	struct hw_interrupt *interrupt = calloc(1, sizeof(*interrupt));

	if (!interrupt)
		abort();
	*interrupt = (struct hw_interrupt){.type = FSTP_INTERRUPT_TYPE_ENGINE_STATE_CHANGE,
					   .form = FSTP_INTERRUPT_FORM_NOT_FENCE,
					   .adapter = engine->adapter,
					   .engine_id = engine->id,
					   .engine_state = (int) new_state};
	FSR_TRACE(engine->adapter->runtime, fencescope_hw, engine_state_change, engine->adapter->id,
		  engine->id, (int) new_state);
	deliver_interrupt(engine, interrupt);
}

/*
 * FST-01 to FST-03, at the end of a step (engine's lock held): an engine with no work for the
 * adapter's engine_idle_to_f1_ns (or at once, when a test forces it) asks for F1, once until it
 * works again. Returns when it wants to look again (`next` or sooner).
 */
static uint64_t
watch_idle(struct hw_engine *engine, uint64_t now, uint64_t next)
{
	uint64_t threshold = engine->adapter->config.engine_idle_to_f1_ns;
	bool is_eligible;
	uint64_t due;

	if (hw_engine_is_off(engine) || (threshold == 0 && !engine->is_f1_forced))
		return next;
	if (engine->has_worked) {
		/* It ran something: its idleness starts now at the earliest. */
		engine->has_worked = false;
		engine->is_idle_tracked = false;
		engine->is_f1_requested = false;
	}
	if (!has_no_work(engine, &is_eligible)) {
		engine->is_idle_tracked = false;
		engine->is_f1_requested = false;
		return next;
	}
	if (!is_eligible) {
		engine->is_f1_forced = false;
		return next;
	}
	if (!engine->is_idle_tracked) {
		engine->is_idle_tracked = true;
		engine->idle_since_ns = now;
	}
	if (engine->is_f1_requested)
		return next;
	due = engine->is_f1_forced ? now : rt_add_ns(engine->idle_since_ns, threshold);
	if (now < due)
		return due < next ? due : next;
	engine->is_f1_requested = true;
	engine->is_f1_forced = false;
	raise_engine_state_change(engine, FSTP_ENGINE_STATE_TRANSITION_TO_F1);
	return next;
}

void
hw_engine_set_fstate(struct hw_engine *engine, enum fstp_engine_power fstate)
{
	hw_engine_lock(engine);
	engine->fstate = fstate;
	if (fstate == FSTP_ENGINE_POWER_F0) {
		engine->is_f1_requested = false;
		engine->is_idle_tracked = false;
	}
	hw_engine_unlock(engine);
	rt_clock_kick(engine->adapter->runtime, &engine->actor,
		      rt_clock_now(engine->adapter->runtime));
}

void
hw_gpu_set_dstate(struct fsr_adapter *adapter, enum fstp_device_power dstate)
{
	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		struct hw_engine *engine = &adapter->gpu->engines[e];

		hw_engine_lock(engine);
		engine->is_device_off = dstate == FSTP_DEVICE_POWER_D3;
		engine->is_idle_tracked = false;
		hw_engine_unlock(engine);
		rt_clock_kick(adapter->runtime, &engine->actor, rt_clock_now(adapter->runtime));
	}
}

bool
hw_engine_power_down_if_idle(struct hw_engine *engine)
{
	bool is_eligible = true;
	bool is_idle;

	hw_engine_lock(engine);
	/*
	 * Not mid-step (interleaving: the step switched out at a point; realtime: the engine's lock
	 * waited for it), not with work, not with a polled queue.
	 */
	is_idle = engine->fstate == FSTP_ENGINE_POWER_F1 ||
		  (!engine->is_stepping && has_no_work(engine, &is_eligible) && is_eligible);
	if (is_idle) {
		engine->fstate = FSTP_ENGINE_POWER_F1;
	} else {
		engine->is_f1_requested = false; /* it asks again once idle again */
		engine->is_idle_tracked = false;
	}
	hw_engine_unlock(engine);
	if (!is_idle)
		rt_clock_kick(engine->adapter->runtime, &engine->actor,
			      rt_clock_now(engine->adapter->runtime));
	return is_idle;
}

void
fsr_test_engine_request_f1(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t engine_id)
{
	struct hw_engine *engine;

	rt_lock(runtime);
	if (adapter_id < runtime->adapter_count &&
	    engine_id < runtime->adapters[adapter_id]->config.engine_count) {
		engine = &runtime->adapters[adapter_id]->gpu->engines[engine_id];
		hw_engine_lock(engine);
		engine->is_f1_forced = true;
		engine->is_f1_requested = false;
		hw_engine_unlock(engine);
		rt_clock_kick(runtime, &engine->actor, rt_clock_now(runtime));
	}
	rt_unlock(runtime);
}

/* ---- preemption (spec 002: PRE-03, PRE-04, PRE-09, PRE-12) ------------------------------ */

/*
 * The emulated meaning of each granularity (docs/runtime.md "Scheduling and preemption as
 * built"): a WORK packet's ticks are a stream of primitives (dispatches) every 4096 ticks,
 * triangles (thread groups) every 256, pixels (threads) every 16; a shader stops at any tick. A
 * DMA buffer boundary is only between packets (0: the end of the work item).
 */
uint64_t
hw_preempt_boundary_ticks(int granularity)
{
	switch (granularity) {
	case FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY:
		return 4096;
	case FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY:
		return 256;
	case FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY:
		return 16;
	case FSTP_PREEMPT_GRANULARITY_SHADER_BOUNDARY:
		return 1;
	default:
		return 0;
	}
}

/* The context of what the engine is busy with (0: nothing, or its queue is gone). */
static fsr_handle
busy_context(const struct hw_engine *engine)
{
	if (engine->busy_packet && engine->busy_packet->queue)
		return engine->busy_packet->queue->context->handle;
	if (engine->busy_queue)
		return engine->busy_queue->context->handle;
	return 0;
}

void
hw_engine_set_context_priority(struct hw_engine *engine, struct os_context *context,
			       uint32_t priority)
{
	hw_engine_lock(engine);
	context->hw_priority = priority;
	hw_engine_unlock(engine);
	rt_clock_kick(engine->adapter->runtime, &engine->actor,
		      rt_clock_now(engine->adapter->runtime));
}

struct os_context *
hw_engine_running_context(struct hw_engine *engine)
{
	struct os_context *context = NULL;

	hw_engine_lock(engine);
	if (engine->is_busy && engine->busy_packet && engine->busy_packet->queue)
		context = engine->busy_packet->queue->context;
	else if (engine->is_busy && engine->busy_queue)
		context = engine->busy_queue->context;
	hw_engine_unlock(engine);
	return context;
}

fsr_handle
hw_engine_preempt(struct hw_engine *engine, uint64_t request_id, int granularity)
{
	fsr_handle context;

	hw_engine_lock(engine);
	FSR_ASSERT_PRE("hw-engine-preempt:room", engine->preempt_count < FSR_MAX_PREEMPT_REQUESTS);
	engine->preempt_requests[engine->preempt_count++] = request_id;
	/* A request that finds a stop planned joins it; the first one's granularity holds. */
	if (engine->preempt_count == 1)
		engine->preempt_granularity = granularity;
	context = engine->is_busy ? busy_context(engine) : 0;
	hw_engine_unlock(engine);
	rt_clock_kick(engine->adapter->runtime, &engine->actor,
		      rt_clock_now(engine->adapter->runtime));
	return context;
}

/*
 * Completes every pending request (engine's lock held): the record of where the work stopped,
 * then the DMA_PREEMPTED interrupt, which carries a preempted DMA packet back to the OS.
 */
static void
complete_preemption(struct hw_engine *engine, struct hw_preempt_record *record,
		    struct os_hwqueue *queue, struct hw_dma_packet *packet)
{
	struct hw_interrupt *interrupt = calloc(1, sizeof(*interrupt));

	if (!interrupt)
		abort(); /* a lost completion would look like a hung engine to the TDR */
	record->request_count = engine->preempt_count;
	for (uint32_t i = 0; i < engine->preempt_count; i++)
		record->request_ids[i] = engine->preempt_requests[i];
	*interrupt = (struct hw_interrupt){.type = FSTP_INTERRUPT_TYPE_DMA_PREEMPTED,
					   .form = FSTP_INTERRUPT_FORM_NOT_FENCE,
					   .adapter = engine->adapter,
					   .engine_id = engine->id,
					   .queue = queue,
					   .packet = packet,
					   .preempt_request_id =
					       engine->preempt_requests[engine->preempt_count - 1],
					   .preempt = *record};
	engine->preempt_count = 0;
	engine->is_preempt_planned = false;
	engine->is_preempt_at_end = false;
	deliver_interrupt(engine, interrupt);
}

/*
 * The fault injector's IGNORES_PREEMPTION (docs/robustness.md): a preemption request meeting a
 * busy engine is the opportunity — when the granularity the engine declared would stop the work
 * item before its end, so that ignoring the request shows (it then stops at the end, a DMA
 * buffer boundary) — and the packet in flight ignores it, as fsr_test_packet_ignores_preemption
 * arms one.
 */
static void
ignore_fault(struct hw_engine *engine, uint64_t now)
{
	struct fsr_adapter *adapter = engine->adapter;
	uint64_t step = hw_preempt_boundary_ticks(engine->preempt_granularity);
	struct os_hwqueue *queue = engine->busy_queue    ? engine->busy_queue
				   : engine->busy_packet ? engine->busy_packet->queue
							 : NULL;
	uint64_t done = hw_gpu_ts(adapter, now) - hw_gpu_ts(adapter, engine->busy_start_ns);
	uint64_t parameter;

	if (!queue || hw_engine_is_ignoring_preemption(engine) || engine->is_hung || !step ||
	    (done + step - 1) / step * step >= engine->busy_ticks ||
	    !rt_fault_take(adapter->runtime, FSR_FAULT_IGNORES_PREEMPTION, adapter->id, engine->id,
			   queue ? queue->handle : 0, &parameter))
		return;
	rt_fault_fired(adapter->runtime, FSR_FAULT_IGNORES_PREEMPTION, adapter->id, engine->id,
		       queue ? queue->handle : 0,
		       engine->busy_packet ? engine->busy_packet->packet_id
		       : queue             ? queue->hw_packet_id
					   : 0);
	engine->is_ignoring_preemption = true;
	engine->ignoring_queue = queue ? queue->handle : 0; /* its command buffer's work only */
}

/*
 * PRE-03: the engine plans where the work item it is busy with stops: the next boundary the
 * granularity allows at or after now (ticks done so far, rounded up), or its end when that
 * comes first or the granularity is a DMA buffer boundary. Nothing busy: the requests complete
 * at once — PRE-12: a queue blocked on an unsatisfied GPU wait holds nothing on the engine, so
 * it is preempted at once too (its wait is re-evaluated when it runs again).
 */
static void
plan_preemption(struct hw_engine *engine, uint64_t now)
{
	struct fsr_adapter *adapter = engine->adapter;
	uint64_t step;
	uint64_t done;
	uint64_t boundary;
	uint64_t stop_ns;

	if (!engine->preempt_count || engine->is_preempt_planned)
		return;
	/* PRE-08: between two split packets of one buffer, the stop waits for the next one. */
	if (!engine->is_busy && engine->reserved_for)
		return;
	if (rt_faults_are_on(adapter->runtime) && engine->is_busy)
		ignore_fault(engine, now);
	/* A packet that ignores preemption (hw/reset.c) stops only at its end: coarser. */
	step = hw_engine_is_ignoring_preemption(engine)
		   ? 0
		   : hw_preempt_boundary_ticks(engine->preempt_granularity);
	if (!engine->is_busy) {
		struct hw_preempt_record record = {
		    .granularity = FSTP_PREEMPT_GRANULARITY_NONE,
		    .gpu_ts = hw_gpu_ts(adapter, now),
		};

		complete_preemption(engine, &record, NULL, NULL);
		return;
	}
	engine->is_preempt_planned = true;
	/* The ticks done so far: the GPU counter's progress since the work item started. */
	done = hw_gpu_ts(adapter, now) - hw_gpu_ts(adapter, engine->busy_start_ns);
	if (done > engine->busy_ticks)
		done = engine->busy_ticks;
	boundary = step ? (done + step - 1) / step * step : engine->busy_ticks;
	if (boundary >= engine->busy_ticks) {
		/* The end of the work item comes first: a DMA buffer boundary. */
		engine->is_preempt_at_end = true;
		engine->preempt_reached = FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY;
		engine->preempt_work_left = 0;
		return;
	}
	stop_ns = engine->busy_start_ns + hw_ticks_to_ns(adapter, boundary);
	if (stop_ns < now)
		stop_ns = now;
	if (stop_ns < engine->busy_until_ns)
		engine->busy_until_ns = stop_ns;
	engine->preempt_reached = engine->preempt_granularity;
	engine->preempt_work_left = engine->busy_ticks - boundary;
}

/*
 * PRE-03, PRE-09: the work item stops at its planned boundary (busy_until_ns): the context's
 * state is saved — a ring's WORK packet stays at the read pointer with the ticks left, a DMA
 * packet goes back to the OS with them — and the requests complete.
 */
static void
stop_preempted(struct hw_engine *engine, uint64_t now)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct hw_dma_packet *packet = engine->busy_packet;
	struct os_hwqueue *queue = packet ? packet->queue : engine->busy_queue;
	struct hw_preempt_record record = {
	    .context_handle = busy_context(engine),
	    .queue_handle = queue ? queue->handle : 0,
	    .granularity = engine->preempt_reached,
	    .gpu_ts = hw_gpu_ts(adapter, now),
	    .work_left_ticks = engine->preempt_work_left,
	    .is_packet_preempted = queue != NULL,
	};

	engine->is_busy = false;
	engine->busy_queue = NULL;
	engine->busy_packet = NULL;
	if (packet) {
		record.packet_id = packet->packet_id;
		record.progress_value = packet->progress_value;
		packet->gpu_ticks = engine->preempt_work_left;
		packet->is_preempted = true;
		if (packet->is_paging && packet->queue)
			engine->is_awaiting_paging = true; /* PRE-06 */
		if (!packet->queue) {
			free(packet); /* its queue is gone: nothing to resubmit */
			packet = NULL;
		}
	} else if (queue) {
		record.packet_id = queue->hw_packet_id;
		record.progress_value = queue->hw_progress_value;
		queue->hw_has_saved_work = true;
		queue->hw_saved_ticks = engine->preempt_work_left;
		/* The others get the engine now (round robin); it resumes later. */
		if (!queue->hw_is_suspended)
			engine->cursor = queue->next_on_engine;
	}
	if (!queue)
		record.work_left_ticks = 0;
	engine->has_worked = true;
	complete_preemption(engine, &record, queue, packet);
}

/* The work item ended at the boundary planned for it (a DMA buffer boundary). */
static void
complete_at_end(struct hw_engine *engine, uint64_t now, fsr_handle context,
		const struct hw_preempt_record *ended)
{
	struct hw_preempt_record record = *ended;

	record.context_handle = context;
	record.granularity = FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY;
	record.gpu_ts = hw_gpu_ts(engine->adapter, now);
	complete_preemption(engine, &record, NULL, NULL);
}

static uint64_t
engine_step(struct rt_actor *actor, uint64_t now)
{
	struct hw_engine *engine = engine_of(actor);
	struct fsr_runtime *runtime = engine->adapter->runtime;
	bool has_outbox;
	uint64_t next;

	rt_lock_gpu(runtime);
	hw_engine_lock(engine);
	/* Realtime: `now` was read before the lock, which may have taken long to get. */
	now = rt_clock_now(runtime);
	engine->is_stepping = true;
	release_held(engine, now); /* what a delayed line held goes first (fault injection) */
	deliver_due_interrupt(engine, now);
	if (hw_engine_is_off(engine)) {
		/*
		 * Powered down (FST-04, DST-01): the command processor is off until F0 or D0. It
		 * runs nothing, so a preemption request completes at once.
		 */
		if (!engine->is_busy)
			plan_preemption(engine, now);
		next = FSR_NEVER;
		goto end;
	}
	hw_engine_take_rings(engine); /* the doorbells that rang since the last step */
	/* FST-02, TDR-03: the engine reports Active->Hung (test API: fsr_test_engine_report_hung).
	 */
	if (engine->is_hung_report_pending) {
		engine->is_hung_report_pending = false;
		raise_engine_state_change(engine, FSTP_ENGINE_STATE_HUNG);
	}
	/* Hung (hw/reset.c): the work in flight never ends; the command processor spins. */
	if (engine->is_hung) {
		next = rt_add_ns(now, HW_HANG_SPIN_NS);
		goto end;
	}
	/*
	 * MMU-14: stopped on a page fault until the OS has it reset (TDR-06). Nothing runs, so a
	 * preemption request completes at once (granularity NONE).
	 */
	if (engine->is_page_faulted) {
		plan_preemption(engine, now);
		next = FSR_NEVER;
		goto end;
	}
	plan_preemption(engine, now);
	if (engine->is_busy && now < engine->busy_until_ns) {
		next = engine->busy_until_ns;
		goto end;
	}
	if (engine->is_busy && engine->is_preempt_planned && !engine->is_preempt_at_end) {
		stop_preempted(engine, now);
		/* Realtime: the outbox goes up before anything else starts (its events first). */
		next = now;
		goto end;
	}
	if (engine->is_busy) {
		bool is_at_end = engine->is_preempt_planned && engine->is_preempt_at_end;
		fsr_handle context = busy_context(engine);
		struct os_hwqueue *queue =
		    engine->busy_packet ? engine->busy_packet->queue : engine->busy_queue;
		struct hw_preempt_record ended = {0};

		if (queue) {
			ended.queue_handle = queue->handle;
			ended.packet_id = engine->busy_packet ? engine->busy_packet->packet_id
							      : queue->hw_packet_id;
		}
		finish_busy(engine);
		/* PRE-08: PreemptionAware = 0 stops only once the split buffer has ended. */
		if (is_at_end && engine->reserved_for) {
			engine->is_preempt_planned = false;
			engine->is_preempt_at_end = false;
			is_at_end = false;
		}
		if (is_at_end) {
			complete_at_end(engine, now, context, &ended);
			next = now;
			goto end;
		}
	}
	next = engine_run(engine);
	if (engine->is_hung)
		next = rt_add_ns(now, HW_HANG_SPIN_NS); /* a work item that started hung */
	next = watch_idle(engine, now, next);
end:
	if (engine->pending && engine->pending_due_ns < next)
		next = engine->pending_due_ns;
	if (engine->held_head && engine->held_until_ns < next)
		next = engine->held_until_ns;
	has_outbox = engine->outbox_head != NULL;
	engine->is_stepping = false;
	hw_engine_unlock(engine);
	rt_unlock_gpu(runtime);
	if (has_outbox)
		deliver_outbox(engine);
	return next;
}

/*
 * A polling command processor between steps (realtime, doorbell_polling): it spins on its
 * doorbells' ring counts while it has user-mode queues, and sleeps like any engine otherwise.
 */
static enum rt_poll
engine_poll(struct rt_actor *actor)
{
	struct hw_engine *engine = engine_of(actor);

	if (!atomic_load_explicit(&engine->user_queue_count, memory_order_relaxed))
		return RT_POLL_SLEEP;
	return hw_engine_doorbells_rang(engine) ? RT_POLL_WORK : RT_POLL_SPIN;
}

int
hw_init(struct fsr_adapter *adapter)
{
	adapter->gpu = calloc(1, sizeof(*adapter->gpu));
	if (!adapter->gpu)
		return -1;
	for (uint32_t id = 0; id < adapter->config.engine_count; id++) {
		struct hw_engine *engine = &adapter->gpu->engines[id];

		engine->adapter = adapter;
		engine->id = id;
		engine->type = adapter->config.engine_types[id];
		engine->actor.name = "engine";
		engine->actor.step = engine_step;
		/* Sim mode has no spinning: the polling engine is realtime only. */
		if (adapter->config.doorbell_polling &&
		    adapter->runtime->clock.mode == FSR_CLOCK_REALTIME)
			engine->actor.poll = engine_poll;
		atomic_init(&engine->user_queue_count, 0);
		/* A ring wakes only engines with user-mode queues (realtime; they join under the
		 * OS's lock, which the ringing UMD holds). */
		engine->actor.ring_interest = &engine->user_queue_count;
		atomic_init(&engine->blocked_queues, 0);
		pthread_mutex_init(&engine->lock, NULL);
	}
	pthread_mutex_init(&adapter->gpu->doorbell_lock, NULL);
	return 0;
}

void
hw_start(struct fsr_adapter *adapter, const struct hw_line *line)
{
	adapter->gpu->line = *line;
	for (uint32_t e = 0; e < adapter->config.engine_count; e++)
		rt_clock_add_actor(adapter->runtime, &adapter->gpu->engines[e].actor);
}

void
hw_fini(struct fsr_adapter *adapter)
{
	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		struct hw_engine *engine = &adapter->gpu->engines[e];

		while (engine->dma_head) {
			struct hw_dma_packet *packet = engine->dma_head;

			engine->dma_head = packet->next;
			free(packet);
		}
		free(engine->busy_packet);
		free(engine->fault_packet); /* a fault the OS never had reset */
		engine->busy_packet = NULL;
		free(engine->pending); /* never delivered: the OS has gone */
		engine->pending = NULL;
		while (engine->held_head) { /* held by a delayed line (fault injection) */
			struct hw_interrupt *interrupt = engine->held_head;

			engine->held_head = interrupt->next;
			if (!interrupt->is_retirement)
				free(interrupt->packet);
			free(interrupt);
		}
		engine->held_tail = NULL;
		while (engine->outbox_head) {
			struct hw_interrupt *interrupt = engine->outbox_head;

			engine->outbox_head = interrupt->next;
			free(interrupt->packet); /* a DMA packet the OS never got back */
			free(interrupt);
		}
		engine->outbox_tail = NULL;
		pthread_mutex_destroy(&engine->lock);
	}
	pthread_mutex_destroy(&adapter->gpu->doorbell_lock);
	free(adapter->gpu);
	adapter->gpu = NULL;
}
