/* SPDX-License-Identifier: MIT */
/*
 * Fence operation boxes (GPV-01..08). A queued event opens a box under the key (queue, local
 * fence handle, value, operation) — by key, never by order, because a command list can be
 * recorded long before it runs (GPV-05). A fence log entry (user-mode queues, GPV-06), an OS
 * software command (kernel-mode queues, LOG-02) or a CPU wait's end closes it. Closed boxes wait
 * in the pending list until their GPU times can be interpolated between clock correlation pairs
 * and, for waits, until the signal that released them (GPV-07) has been given out, then go to
 * the sink. After a fence log overrun, the open boxes of that queue and log whose fence the
 * fallback scan shows at or past their value are marked inferred (LOG-18, GPV-08); entries
 * missing between two read (a gap in entry_position) are a loss too, and the boxes that provably
 * wrote them are inferred. Mapped times are kept causal within the clock's tolerance, and every
 * move is counted (summary.clamped_times).
 *
 * What this file does not do: packets (packets.c), markers (markers.c), the objects it works on
 * (objects.c).
 */
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

static uint64_t
open_key(uint64_t fence_handle, uint64_t value, enum fsa_op_kind kind)
{
	return hmap_key2(fence_handle, value * 2 + (uint64_t) kind);
}

static bool open_signal_link(struct op_rec *rec);
static void open_signal_close(struct op_rec *rec);
static void open_signal_unlink(struct op_rec *rec);

/* Boxes are made and dropped millions of times: recycled through a free list. */
static void
op_free(struct fsa_model *model, struct op_rec *rec)
{
	open_signal_unlink(rec);
	rec->is_free = true;
	rec->next = model->free_ops;
	model->free_ops = rec;
}

static struct op_rec *
op_new(struct fsa_model *model, enum fsa_op_kind kind, enum fsa_op_source source)
{
	struct op_rec *rec = model->free_ops;

	if (rec) {
		model->free_ops = rec->next;
		memset(rec, 0, sizeof(*rec));
	} else {
		rec = calloc(1, sizeof(*rec));
	}
	if (!rec) {
		model->failed = FSA_ERR_NOMEM;
		return NULL;
	}
	rec->op.kind = kind;
	rec->op.source = source;
	rec->op.state = FSA_OP_OBSERVED;
	rec->op.adapter_id = UINT32_MAX;
	rec->op.engine_id = UINT32_MAX;
	rec->op.queued_ns = FSA_TIME_NONE;
	rec->op.observed_ns = FSA_TIME_NONE;
	rec->op.end_ns = FSA_TIME_NONE;
	rec->op.inferred_begin_ns = FSA_TIME_NONE;
	rec->op.inferred_end_ns = FSA_TIME_NONE;
	rec->op.log_position = UINT64_MAX;
	return rec;
}

static void
op_set_queue(struct op_rec *rec, struct queue_state *queue)
{
	rec->queue = queue;
	rec->op.hwqueue_handle = queue->info.hwqueue_handle;
	rec->op.adapter_id = queue->info.adapter_id;
	rec->op.engine_id = queue->info.engine_id;
	if (!rec->op.process_id)
		rec->op.process_id = queue->info.process_id;
}

static fsa_status
anomaly_for(struct fsa_model *model, enum fsa_anomaly_kind kind, const struct op_rec *rec,
	    uint64_t ts, uint64_t a, uint64_t b)
{
	struct fsa_anomaly anomaly = {
	    .kind = kind,
	    .ts_ns = ts,
	    .process_id = rec->op.process_id,
	    .hwqueue_handle = rec->op.hwqueue_handle,
	    .fence_handle = rec->op.fence_handle,
	    .fence_global_handle = rec->op.fence_global_handle,
	    .fence_value = rec->op.fence_value,
	    .op_id = rec->op.id,
	    .a = a,
	    .b = b,
	};

	return emit_anomaly(model, &anomaly);
}

/* Finds the fence an operation names and reports unknown or closed handles. */
static fsa_status
attach_fence(struct fsa_model *model, struct op_rec *rec, uint64_t ts)
{
	bool is_closed = false;

	rec->fence = fence_of(model, rec->op.process_id, rec->op.fence_handle, ts, &is_closed);
	if (rec->fence)
		rec->op.fence_global_handle = rec->fence->info.fence_global_handle;
	if (is_closed || (rec->fence && rec->fence->is_destroyed))
		return anomaly_for(model, FSA_ANOM_OP_ON_DESTROYED_FENCE, rec, ts, 0, 0);
	if (!rec->fence)
		return anomaly_for(model, FSA_ANOM_UNKNOWN_FENCE, rec, ts, 0, 0);
	return FSA_OK;
}

fsa_status
ops_queued(struct fsa_model *model, const struct fsa_event *ev, enum fsa_op_kind kind)
{
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
	struct op_rec *rec, *head;
	uint64_t key;
	fsa_status status;

	if (!queue)
		return model->failed;
	rec =
	    op_new(model, kind,
		   queue->info.is_user_mode ? FSA_SRC_USER_MODE_QUEUE : FSA_SRC_KERNEL_MODE_QUEUE);
	if (!rec)
		return model->failed;
	rec->op.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	op_set_queue(rec, queue);
	rec->op.fence_handle = ev->u[FSA_F_FENCE_HANDLE];
	rec->op.fence_value = ev->u[FSA_F_FENCE_VALUE];
	rec->op.progress_value = ev->u[FSA_F_PROGRESS_VALUE];
	rec->op.queued_ns = ev->ts_ns;
	key = open_key(rec->op.fence_handle, rec->op.fence_value, kind);
	head = hmap_get(&queue->open, key);
	if (!head) {
		if (!hmap_put(&queue->open, key, rec)) {
			op_free(model, rec);
			return model->failed = FSA_ERR_NOMEM;
		}
		rec->open_tail = rec;
	} else {
		/* The same key queued again and again, never closed, must not cost a walk each. */
		head->open_tail->next_open = rec;
		head->open_tail = rec;
	}
	queue->open_count++;
	status = attach_fence(model, rec, ev->ts_ns);
	if (kind == FSA_OP_SIGNAL && rec->fence && !open_signal_link(rec))
		return model->failed = FSA_ERR_NOMEM;
	return status;
}

/* Unlinks the oldest open operation with this key (hash collisions are checked). */
static struct op_rec *
take_open(struct queue_state *queue, uint64_t fence_handle, uint64_t value, enum fsa_op_kind kind)
{
	uint64_t key = open_key(fence_handle, value, kind);
	/* One probe: the slot found here is replaced or emptied below. */
	size_t slot = hmap_find(&queue->open, key);
	struct op_rec *head = slot != HMAP_NONE ? hmap_slot_value(&queue->open, slot) : NULL;
	struct op_rec *rec, *prev = NULL;

	for (rec = head; rec; prev = rec, rec = rec->next_open)
		if (rec->op.fence_handle == fence_handle && rec->op.fence_value == value &&
		    rec->op.kind == kind)
			break;
	if (!rec)
		return NULL;
	if (prev) {
		prev->next_open = rec->next_open;
		if (head->open_tail == rec)
			head->open_tail = prev;
	} else {
		head = rec->next_open;
		if (head)
			head->open_tail = rec->open_tail;
	}
	rec->next_open = NULL;
	if (head)
		hmap_slot_set(&queue->open, slot, head);
	else
		hmap_slot_remove(&queue->open, slot);
	queue->open_count--;
	return rec;
}

static void
pending_append(struct fsa_model *model, struct op_rec *rec)
{
	rec->prev = model->pending_tail;
	rec->next = NULL;
	if (model->pending_tail)
		model->pending_tail->next = rec;
	else
		model->pending_head = rec;
	model->pending_tail = rec;
	model->pending_count++;
}

static void
pending_unlink(struct fsa_model *model, struct op_rec *rec)
{
	if (rec->prev)
		rec->prev->next = rec->next;
	else
		model->pending_head = rec->next;
	if (rec->next)
		rec->next->prev = rec->prev;
	else
		model->pending_tail = rec->prev;
	model->pending_count--;
}

static fsa_status try_emit(struct fsa_model *model, struct op_rec *rec, bool is_final);

/* NO_CLOCK_CORRELATION is reported once per adapter. */
static bool
clock_needs_warning(struct fsa_model *model, uint32_t adapter_id)
{
	struct clock_state *clock = fsa_clock_get(model, adapter_id, true);

	if (!clock || clock->warned)
		return false;
	clock->warned = true;
	return true;
}

/* A box is closed: it gets its id and waits in the pending list until it can be given out. */
static fsa_status
close_op(struct fsa_model *model, struct op_rec *rec, uint64_t ts)
{
	rec->op.id = ++model->next_op_id;
	open_signal_close(rec);
	rec->closed_ns = ts;
	pending_append(model, rec);
	return try_emit(model, rec, false);
}

/* GPU ticks of the box → trace time, once the clock pairs around them are known. */
static fsa_status
map_times(struct fsa_model *model, struct op_rec *rec, bool is_final, bool *is_mapped)
{
	struct clock_state *clock = fsa_clock_get(model, rec->op.adapter_id, false);
	uint64_t latest = rec->op.end_gpu_ts > rec->op.observed_gpu_ts ? rec->op.end_gpu_ts
								       : rec->op.observed_gpu_ts;
	fsa_status status = FSA_OK;

	*is_mapped = false;
	if (!is_final && !fsa_clock_is_final(clock, latest) &&
	    !clock_has_waited(rec->closed_ns, model->last_ts)) {
		/* Without any pair yet, a box waits; at the end it is placed at its read. */
		return FSA_OK;
	}
	if (!clock || !clock->pair_count) {
		if (clock_needs_warning(model, rec->op.adapter_id)) {
			status = anomaly_for(model, FSA_ANOM_NO_CLOCK_CORRELATION, rec,
					     rec->closed_ns, rec->op.adapter_id, 0);
			if (status)
				return status;
		}
		rec->op.end_ns = rec->closed_ns;
		rec->is_at_read = true;
	} else {
		/* A zero end timestamp (LOG-21) leaves the box ending at its read, the latest it
		 * can have ended. */
		rec->op.end_ns =
		    rec->op.end_gpu_ts ? fsa_clock_map(clock, rec->op.end_gpu_ts) : rec->closed_ns;
		if (rec->op.observed_gpu_ts)
			rec->op.observed_ns = fsa_clock_map(clock, rec->op.observed_gpu_ts);
	}
	rec->needs_mapping = false;
	fsa_clock_unmapped_add(model, rec->op.adapter_id, -1);
	*is_mapped = true;
	if (rec->op.queued_ns != FSA_TIME_NONE) {
		uint64_t queued = rec->op.queued_ns;

		/* Within the mapping's tolerance, GPU times snap to the CPU time they cannot
		 * precede; further off, the box is reported, not clamped (trace-format.md). */
		if (rec->op.observed_ns < queued &&
		    queued - rec->op.observed_ns <= FSA_CLOCK_TOLERANCE_NS) {
			rec->op.observed_ns = queued;
			model->summary.clamped_times++;
		}
		if (rec->op.end_ns < queued && queued - rec->op.end_ns <= FSA_CLOCK_TOLERANCE_NS) {
			rec->op.end_ns = queued;
			model->summary.clamped_times++;
		}
		if (rec->op.end_ns < queued)
			status = anomaly_for(model, FSA_ANOM_END_BEFORE_QUEUED, rec, rec->closed_ns,
					     queued, rec->op.end_ns);
		else if (rec->op.observed_ns < queued)
			status = anomaly_for(model, FSA_ANOM_END_BEFORE_QUEUED, rec, rec->closed_ns,
					     queued, rec->op.observed_ns);
	}
	if (rec->op.observed_ns != FSA_TIME_NONE && rec->op.observed_ns > rec->op.end_ns &&
	    rec->op.observed_ns - rec->op.end_ns <= FSA_CLOCK_TOLERANCE_NS) {
		rec->op.observed_ns = rec->op.end_ns;
		model->summary.clamped_times++;
	}
	return status;
}

/*
 * Boxes whose GPU times had no clock pair (a recording at --loglevel INFO, clock_correlation
 * being DEBUG; a sim run on a real clock) end at their log reads, and the OS reads one queue's
 * log before another's: in realtime the consumer's wait log was read ~12 µs before the
 * producer's signal log, so every wait "ended" before the signal that released it and GPV-07
 * found no release (0 edges where the sim recording, whose reads share one virtual instant, had
 * 206). Two such boxes of one adapter are ordered by their GPU timestamps, the adapter's own
 * counter, which needs no pair: the signal ran by the wait's end when its end tick is not after
 * the wait's.
 */
static bool
gpu_orders(bool is_at_read, uint64_t end_gpu_ts, uint32_t adapter_id, const struct op_rec *wait)
{
	return wait && wait->is_at_read && is_at_read && end_gpu_ts && wait->op.end_gpu_ts &&
	       adapter_id == wait->op.adapter_id;
}

/* The same for a remembered signal. */
static bool
is_gpu_ordered(const struct signal_memory *s, const struct op_rec *wait)
{
	return gpu_orders(s->is_at_read, s->end_gpu_ts, s->adapter_id, wait);
}

/* Whether the signal S may have run by the end of the wait (HI its end, LIMIT with the
 * tolerance). */
static bool
may_run_by(const struct signal_memory *s, const struct op_rec *wait, uint64_t limit)
{
	if (is_gpu_ordered(s, wait))
		return s->end_gpu_ts <= wait->op.end_gpu_ts;
	return s->begin_ns <= limit;
}

/*
 * GPV-07: a wait for (fence, V) was released by the signal that first brought the fence to a
 * value ≥ V. Signals do not end in the order of their values — a CPU signal can overtake a slower
 * GPU signal, a signal can be below a value already reached (`value_regression`) — so this is not
 * the smallest signal ≥ V but the first in time. A signal writes its value (spec 001: "write N",
 * also below CurrentValue), so a regression below V takes the fence below V again, and the next
 * signal ≥ V is a new release: the release is the signal, among those that ended by the wait's
 * end, that last took the fence from below V to V or more. A wait that ended in [lo, hi] (an exact
 * end: lo == hi; an inferred wait: its range) gets it when it may have ended by hi, within the
 * tolerance (a signal below V counts only when it ended by hi itself). Returns NULL for "no edge":
 * the fence was at V or more before any remembered signal and stayed there (a wait at or below the
 * initial value, or the release was forgotten), a later signal took it below V again and none
 * brought it back by then, or no remembered signal reached V by then.
 */
static const struct signal_memory *
find_release(const struct fence_state *fence, uint64_t value, uint64_t hi,
	     const struct op_rec *wait)
{
	uint64_t limit =
	    hi > UINT64_MAX - FSA_CLOCK_TOLERANCE_NS ? UINT64_MAX : hi + FSA_CLOCK_TOLERANCE_NS;
	const struct signal_memory *release = NULL;
	unsigned release_index = 0;
	/* Before the remembered signals: below V unless the initial value or a forgotten signal
	 * reached it (then "at V or more" with no release known). */
	bool is_at_value = fence->info.initial_value >= value;
	uint64_t at_value_since_ns = 0;

	/* GPV-07/GPV-08: a forgotten signal reached V at some time up to forgotten_end_ns. A
	 * remembered signal below V is a regression after it only when it surely began later: with
	 * 0 here, signals inferred in the same log gap as a forgotten release (same end, earlier
	 * begin) took the fence below V, and the next signal was named the release. */
	if (!is_at_value && fence->has_forgotten && fence->forgotten_max_value >= value) {
		is_at_value = true;
		at_value_since_ns = fence->forgotten_end_ns;
	}

	for (unsigned i = 0; i < fence->history_count; i++) {
		const struct signal_memory *s;

		/* Below V while the fence is below V (no release then), a signal changes nothing:
		 * pass them in a tight loop (most are older, lower signals). */
		if (!is_at_value) {
			while (i < fence->history_count && fence->history[i].value < value)
				i++;
			if (i == fence->history_count)
				break;
		}
		s = &fence->history[i];
		if (s->value >= value) {
			if (!may_run_by(s, wait, limit)) {
				/* In the order of the reads, not of the GPU: the next may have. */
				if (is_gpu_ordered(s, wait))
					continue;
				break; /* may have run after the wait ended */
			}
			if (!is_at_value) {
				release = s;
				release_index = i;
				at_value_since_ns = s->end_ns;
			}
			is_at_value = true;
		} else if ((is_gpu_ordered(s, wait) ? s->end_gpu_ts <= wait->op.end_gpu_ts
						    : s->end_ns <= hi) &&
			   s->begin_ns > at_value_since_ns) {
			/* A regression below V, surely after the fence reached V and before the
			 * wait ended (an inferred signal that may have run before keeps the
			 * release). */
			is_at_value = false;
			release = NULL;
		}
	}
	if (!release)
		return NULL;
	/* Unless an inferred signal ≥ V that ended later may have run before it (its range starts
	 * earlier): then which came first is not known. */
	for (unsigned j = release_index + 1; j < fence->history_count; j++)
		if (fence->history[j].value >= value &&
		    fence->history[j].begin_ns < release->end_ns)
			return NULL;
	return release;
}

/*
 * Whether a signal lost in a gap of a signal log (one no inferred box accounts for) may have
 * brought the fence to the wait's value before `release` did. Its fence and value are not in the
 * trace, and it ran after the entry before its gap: so any such gap that began before `release`
 * ended may hide the first signal to reach the value (GPV-07). GPV-08: no edge rather than a
 * wrong one. (A wait's observed time does not prove the fence was still below the value then:
 * a wait already satisfied has one too.)
 */
static bool
may_release_be_lost(const struct fsa_model *model, const struct signal_memory *release)
{
	return model->unmatched_signal_gap_begin_ns != FSA_TIME_NONE &&
	       model->unmatched_signal_gap_begin_ns < release->end_ns;
}

/*
 * Whether a signal of this fence, not given out yet, may have ended by `hi` (GPV-07 must then
 * wait for it: one of V or more may be the release, one below V a regression that took the
 * fence below V again, spec 001). A closed one is pending its clock pair; an open one may have run
 * with its entry not read yet — unless its queue's signal log was already read past `hi` (entries
 * of one log are read in order, LOG-13, LOG-22) and lost none still unaccounted for (an overrun
 * waiting for its scan), or, for a kernel-mode queue or the CPU, the trace itself is past it.
 * Returns the first such signal found (what holds the wait: op_rec.blocker), NULL for none.
 */
static struct op_rec *
has_unknown_signal_before(struct fsa_model *model, const struct fence_state *fence, uint64_t hi,
			  bool is_final, const struct op_rec *wait)
{
	uint64_t limit =
	    hi > UINT64_MAX - FSA_CLOCK_TOLERANCE_NS ? UINT64_MAX : hi + FSA_CLOCK_TOLERANCE_NS;
	/* The open signals of a fence are mostly on one queue: its log's read time is mapped once
	 * per call, not once per signal (nothing here changes the queue or the clock). */
	const struct queue_state *mapped_queue = NULL;
	uint64_t mapped_read = FSA_TIME_NONE;
	/* A queue whose open signals are all known not to have run by `limit` (the checks below
	 * that depend on the queue alone said so): its other open signals are skipped at once. */
	const struct queue_state *skip_queue = NULL;
	bool has_skip_queue = false;

	if (!fence->open_signal_count)
		return NULL;

	const struct open_signal *open = fence->open_signals;
	const struct open_signal *const end = open + fence->open_signal_count;

	for (; open < end; open++) {
		const struct queue_state *queue;
		uint64_t read;

		/* Most open signals are on a queue already skipped: pass them in a tight loop. */
		if (has_skip_queue) {
			while (open < end && !open->is_closed && open->queue == skip_queue)
				open++;
			if (open == end)
				break;
		}
		queue = open->queue;
		if (!open->is_closed && is_final)
			continue;
		if (open->is_closed) {
			/* Closed, not given out yet. */
			const struct op_rec *rec = open->rec;

			if (rec->needs_mapping)
				return open->rec;
			/* Both at their reads: the GPU's order (is_gpu_ordered). */
			if (gpu_orders(rec->is_at_read, rec->op.end_gpu_ts, rec->op.adapter_id,
				       wait)) {
				if (rec->op.end_gpu_ts <= wait->op.end_gpu_ts)
					return open->rec;
				continue;
			}
			if ((rec->op.state == FSA_OP_INFERRED ? rec->op.inferred_begin_ns
							      : rec->op.end_ns) <= limit)
				return open->rec;
			continue;
		}
		/* At the end of the trace, what is still open never ran. */
		if (is_final || (open->queued_ns != FSA_TIME_NONE && open->queued_ns > limit))
			continue;
		if (!queue || !queue->info.is_user_mode) {
			if (model->last_ts == FSA_TIME_NONE || model->last_ts <= limit)
				return open->rec;
			skip_queue = queue;
			has_skip_queue = true;
			continue;
		}
		/* Entries lost to an overrun are known only at the fallback scan (LOG-18). */
		if (queue->overrun[FSTP_LOG_TYPE_SIGNALS].is_pending)
			return open->rec;
		/* A wait at its read: has the signal log been read past its GPU end? In ticks of
		 * the adapter, which needs no clock pair. */
		if (wait && wait->is_at_read && wait->op.end_gpu_ts &&
		    queue->info.adapter_id == wait->op.adapter_id) {
			if (queue->last_end_gpu_ts[FSTP_LOG_TYPE_SIGNALS] <= wait->op.end_gpu_ts)
				return open->rec;
			skip_queue = queue;
			has_skip_queue = true;
			continue;
		}
		if (queue != mapped_queue) {
			mapped_queue = queue;
			mapped_read = queue->last_end_gpu_ts[FSTP_LOG_TYPE_SIGNALS]
					  ? fsa_model_gpu_to_trace(
						model, queue->info.adapter_id,
						queue->last_end_gpu_ts[FSTP_LOG_TYPE_SIGNALS])
					  : FSA_TIME_NONE;
		}
		read = mapped_read;
		if (read == FSA_TIME_NONE || read <= limit)
			return open->rec;
		skip_queue = queue;
		has_skip_queue = true;
	}
	return NULL;
}

/*
 * has_unknown_signal_before()'s test for one open signal, before the end of the trace: whether
 * it may have ended by `limit`. A held wait keeps the open signal that held it (its blocker) and
 * is not retried while that signal is open and still may have (the wait would be held again:
 * any such signal holds it), so a fence's held waits are not each scanned again at every signal
 * of the fence that goes out (GPV-07; retrying them all was quadratic on a trace whose stream of
 * one CPU ends early: its queues' signal logs are never read past the waits).
 */
static bool
open_signal_may_precede(const struct fsa_model *model, const struct op_rec *signal, uint64_t limit)
{
	const struct open_signal *open = &signal->fence->open_signals[signal->open_signal_index];
	const struct queue_state *queue = open->queue;
	uint64_t read;

	if (open->is_closed)
		return signal->needs_mapping ||
		       (signal->op.state == FSA_OP_INFERRED ? signal->op.inferred_begin_ns
							    : signal->op.end_ns) <= limit;
	if (open->queued_ns != FSA_TIME_NONE && open->queued_ns > limit)
		return false;
	if (!queue || !queue->info.is_user_mode)
		return model->last_ts == FSA_TIME_NONE || model->last_ts <= limit;
	if (queue->overrun[FSTP_LOG_TYPE_SIGNALS].is_pending)
		return true;
	read = queue->last_end_gpu_ts[FSTP_LOG_TYPE_SIGNALS]
		   ? fsa_model_gpu_to_trace(model, queue->info.adapter_id,
					    queue->last_end_gpu_ts[FSTP_LOG_TYPE_SIGNALS])
		   : FSA_TIME_NONE;
	return read == FSA_TIME_NONE || read <= limit;
}

/* Adds a signal box to its fence's open signals; its fence value, queued time and queue are set
 * and do not change until it is unlinked. False when out of memory. */
static bool
open_signal_link(struct op_rec *rec)
{
	struct fence_state *fence = rec->fence;

	if (fence->open_signal_count == fence->open_signal_capacity) {
		uint32_t capacity =
		    fence->open_signal_capacity ? fence->open_signal_capacity * 2 : 8;
		struct open_signal *grown = realloc(fence->open_signals, capacity * sizeof(*grown));

		if (!grown)
			return false;
		fence->open_signals = grown;
		fence->open_signal_capacity = capacity;
	}
	rec->open_signal_index = fence->open_signal_count;
	fence->open_signals[fence->open_signal_count++] = (struct open_signal){
	    .fence_value = rec->op.fence_value,
	    .queued_ns = rec->op.queued_ns,
	    .queue = rec->queue,
	    .rec = rec,
	    .is_closed = rec->op.id != 0,
	};
	rec->is_open_signal = true;
	return true;
}

/* The box got its id: its open signal entry says it is closed. */
static void
open_signal_close(struct op_rec *rec)
{
	if (rec->is_open_signal)
		rec->fence->open_signals[rec->open_signal_index].is_closed = true;
}

static void
open_signal_unlink(struct op_rec *rec)
{
	struct fence_state *fence = rec->fence;
	uint32_t last;

	if (!rec->is_open_signal)
		return;
	/* The last entry takes its place: the scan does not depend on the order. */
	last = --fence->open_signal_count;
	if (rec->open_signal_index != last) {
		fence->open_signals[rec->open_signal_index] = fence->open_signals[last];
		fence->open_signals[rec->open_signal_index].rec->open_signal_index =
		    rec->open_signal_index;
	}
	rec->is_open_signal = false;
}

/* The oldest remembered signal, or `op` itself when it is older, is forgotten. */
static void
forget(struct fence_state *fence, uint64_t value, uint64_t end_ns)
{
	if (!fence->has_forgotten || value > fence->forgotten_max_value)
		fence->forgotten_max_value = value;
	if (!fence->has_forgotten || end_ns > fence->forgotten_end_ns)
		fence->forgotten_end_ns = end_ns;
	fence->has_forgotten = true;
}

/* False when out of memory. The history stays in the order signals ended. */
static bool
remember_signal(struct fence_state *fence, const struct op_rec *rec, bool is_regression)
{
	const struct fsa_op *op = &rec->op;
	uint64_t end = op->state == FSA_OP_INFERRED ? op->inferred_end_ns : op->end_ns;
	uint64_t begin = op->state == FSA_OP_INFERRED ? op->inferred_begin_ns : end;
	unsigned at;

	if (end == FSA_TIME_NONE)
		return true;
	/* A fence is kept for the whole run, and a trace may create and destroy fences by the
	 * million: the history grows as used rather than taking 3 KiB for each. */
	if (fence->history_count == fence->history_capacity &&
	    fence->history_capacity < FSA_SIGNAL_HISTORY) {
		unsigned capacity = fence->history_capacity ? fence->history_capacity * 4 : 4;
		struct signal_memory *grown;

		if (capacity > FSA_SIGNAL_HISTORY)
			capacity = FSA_SIGNAL_HISTORY;
		/* Full size: room for the window to move on (the window is at its start until the
		 * history is full). */
		grown = realloc(fence->history,
				(capacity == FSA_SIGNAL_HISTORY ? FSA_SIGNAL_WINDOW : capacity) *
				    sizeof(*grown));
		if (!grown)
			return false;
		fence->history = grown;
		fence->history_capacity = capacity;
	}
	for (at = fence->history_count; at > 0 && fence->history[at - 1].end_ns > end; at--)
		;
	if (fence->history_count == FSA_SIGNAL_HISTORY) {
		if (!at) {
			forget(fence, op->fence_value, end);
			return true;
		}
		forget(fence, fence->history[0].value, fence->history[0].end_ns);
		/* The oldest goes by moving the window on by one entry: the others stay put. */
		fence->history++;
		fence->history_start++;
		fence->history_count--;
		at--;
		if (fence->history_start + FSA_SIGNAL_HISTORY > FSA_SIGNAL_WINDOW) {
			struct signal_memory *base = fence->history - fence->history_start;

			memmove(base, fence->history,
				fence->history_count * sizeof(fence->history[0]));
			fence->history = base;
			fence->history_start = 0;
		}
	}
	memmove(&fence->history[at + 1], &fence->history[at],
		(fence->history_count - at) * sizeof(fence->history[0]));
	fence->history_count++;
	if (begin > fence->history_begin_max_ns)
		fence->history_begin_max_ns = begin;
	fence->history[at] = (struct signal_memory){
	    .op_id = op->id,
	    .value = op->fence_value,
	    .begin_ns = begin,
	    .end_ns = end,
	    .source = op->source,
	    .hwqueue_handle = op->hwqueue_handle,
	    .fence_handle = op->fence_handle,
	    .process_id = op->process_id,
	    .adapter_id = op->adapter_id,
	    .is_regression = is_regression,
	    .is_at_read = rec->is_at_read,
	    .end_gpu_ts = op->end_gpu_ts,
	};
	return true;
}

/*
 * VALUE_REGRESSION: a signal below a value the fence had surely reached before it ran (an inferred
 * signal ran somewhere in its range: compared by the range's start, the other's end). The reference
 * runtime's GPU writes N (spec 001), so such a signal lowers CurrentValue. Logs of several queues
 * are read in any order and GPU times wait for their clock mapping, so signals are given out in
 * any order: compare by time, both ways. The new signal `rec` is a regression when a signal
 * that ended before it (remembered, or the highest one) was higher; and every remembered signal
 * that ended after it below its value, not reported yet, is one too — reported now, once.
 */
static fsa_status
find_regressions(struct fsa_model *model, struct fence_state *fence, const struct op_rec *rec,
		 uint64_t end, bool *is_regression)
{
	const struct fsa_op *op = &rec->op;
	/* An inferred signal ran somewhere in its range: only a surely earlier one counts. */
	uint64_t begin = op->state == FSA_OP_INFERRED ? op->inferred_begin_ns : end;
	uint64_t higher = 0;
	fsa_status status = FSA_OK;

	if (end == FSA_TIME_NONE)
		return FSA_OK;
	if (fence->has_signal && op->fence_value < fence->max_signal_value &&
	    fence->max_signal_end_ns != FSA_TIME_NONE && begin > fence->max_signal_end_ns) {
		*is_regression = true;
		higher = fence->max_signal_value;
	}
	/* Every remembered signal was given out before, so none is above max_signal_value: a
	 * signal at or above it has no higher one to look for (the common case, values grow). */
	for (unsigned i = 0; fence->has_signal && op->fence_value < fence->max_signal_value &&
			     i < fence->history_count && !*is_regression;
	     i++) {
		const struct signal_memory *s = &fence->history[i];

		if (s->end_ns < begin && s->value > op->fence_value) {
			*is_regression = true;
			higher = s->value;
		}
	}
	if (*is_regression)
		status = anomaly_for(model, FSA_ANOM_VALUE_REGRESSION, rec, end, higher,
				     op->fence_value);
	/* Only a remembered signal that began after `end` can be a regression now: none when
	 * every one began by then (the common case, signals given out in the order they end). */
	for (unsigned i = 0;
	     fence->history_begin_max_ns > end && i < fence->history_count && !status; i++) {
		struct signal_memory *s = &fence->history[i];
		struct fsa_anomaly anomaly;

		if (s->is_regression || s->begin_ns <= end || s->value >= op->fence_value)
			continue;
		s->is_regression = true;
		anomaly = (struct fsa_anomaly){
		    .kind = FSA_ANOM_VALUE_REGRESSION,
		    .ts_ns = s->end_ns,
		    .process_id = s->process_id,
		    .hwqueue_handle = s->hwqueue_handle,
		    .fence_handle = s->fence_handle,
		    .fence_global_handle = op->fence_global_handle,
		    .fence_value = s->value,
		    .op_id = s->op_id,
		    .a = op->fence_value,
		    .b = s->value,
		};
		status = emit_anomaly(model, &anomaly);
	}
	return status;
}

/* A wait's latest possible end, within the tolerance (GPV-07's `limit`). */
static uint64_t
wait_limit(const struct op_rec *wait)
{
	uint64_t hi =
	    wait->op.state == FSA_OP_INFERRED ? wait->op.inferred_end_ns : wait->op.end_ns;

	return hi > UINT64_MAX - FSA_CLOCK_TOLERANCE_NS ? UINT64_MAX : hi + FSA_CLOCK_TOLERANCE_NS;
}

/* Whether a remembered signal may be the release of a wait for `value` ending by `limit`:
 * find_release() names only one of `value` or more that began by then, and a release that
 * may_release_be_lost() is none (the gap it looks at only moves earlier). */
static bool
may_reach(const struct fsa_model *model, const struct signal_memory *signal, uint64_t value,
	  uint64_t limit)
{
	return signal->value >= value && signal->begin_ns <= limit &&
	       !may_release_be_lost(model, signal);
}

/* Whether no signal the fence remembers may be the release of a wait for `value` ending by
 * `limit`: try_emit() would then find none. */
static bool
has_no_reach(const struct fsa_model *model, const struct fence_state *fence, uint64_t value,
	     uint64_t limit)
{
	for (unsigned i = 0; i < fence->history_count; i++)
		if (may_reach(model, &fence->history[i], value, limit))
			return false;
	return true;
}

/*
 * Whether a held wait would be held again if retried now, known without its scans (GPV-07):
 * before the end of the trace and within the lag, either the open signal that held it (its
 * blocker) is still an open signal of its fence (the box it was, or a box recycled since into
 * another) and may still have ended before it (open_signal_may_precede()), or it was held with
 * no release, no remembered signal could have been one then (is_unreached), and `added`, the
 * signal just remembered by the fence (NULL: none since the wait's last retry), cannot be one
 * either: every signal a fence remembers is followed by this check of its held waits, so the
 * fence still remembers none that could, find_release() would give none, and a wait above the
 * initial value without a release is held. try_emit() would then keep it held and change
 * nothing: what goes out, and in which order, is what retrying every held wait gives. Without
 * this, every held wait was retried, with its scans of the fence's open and remembered signals,
 * each time a signal of its fence went out: quadratic on a trace whose stream of one CPU ends
 * early (its signals never appear, so waits stay held for the lag, FSA_EDGE_LAG_NS).
 */
static bool
is_still_held(const struct fsa_model *model, struct op_rec *wait, const struct signal_memory *added)
{
	const struct op_rec *blocker = wait->blocker;

	/* A wait placed at its log read (no clock pair) is ordered against signals at their reads
	 * by GPU ticks (is_gpu_ordered(), s11-dopt), which the shortcuts below do not know: it is
	 * retried at every signal, as all held waits were before them. */
	if (wait->is_at_read)
		return false;
	/* Checked at every signal the fence remembers, whatever else holds the wait. */
	if (wait->is_unreached && added &&
	    may_reach(model, added, wait->op.fence_value, wait_limit(wait)))
		wait->is_unreached = false;
	if (model->is_finished || model->last_ts >= wait->closed_ns + FSA_EDGE_LAG_NS)
		return false;
	if (blocker && blocker->is_open_signal && blocker->fence == wait->fence &&
	    open_signal_may_precede(model, blocker, wait_limit(wait)))
		return true;
	return wait->is_unreached;
}

static void
active_unlink(struct op_rec *wait)
{
	if (!wait->is_active)
		return;
	if (wait->active_prev)
		wait->active_prev->active_next = wait->active_next;
	else
		wait->fence->active = wait->active_next;
	if (wait->active_next)
		wait->active_next->active_prev = wait->active_prev;
	wait->is_active = false;
}

/* An unreached held wait joins its fence's bounds (fence_state.inert_min_value ...). */
static void
inert_bounds_add(struct fence_state *fence, const struct op_rec *wait)
{
	/* The lag's end as try_emit() computes it (wrapping alike). */
	uint64_t lag_end = wait->closed_ns + FSA_EDGE_LAG_NS;
	uint64_t limit = wait_limit(wait);

	if (wait->op.fence_value < fence->inert_min_value)
		fence->inert_min_value = wait->op.fence_value;
	if (limit > fence->inert_max_limit)
		fence->inert_max_limit = limit;
	if (lag_end < fence->inert_min_lag_end_ns)
		fence->inert_min_lag_end_ns = lag_end;
}

/*
 * A wait was held (again): on its fence's held list, newest first, and on the active list (at
 * its head when new, the newest) or in the bounds of the unreached ones. One that was unreached
 * and is active now cannot be put in its place at once: the next signal walks every held wait.
 */
static void
held_place(struct fence_state *fence, struct op_rec *wait, bool was_unreached)
{
	if (!wait->is_held) {
		wait->is_held = true;
		wait->held_prev = NULL;
		wait->held_next = fence->held;
		if (fence->held)
			fence->held->held_prev = wait;
		fence->held = wait;
		if (!wait->is_unreached) {
			wait->is_active = true;
			wait->active_prev = NULL;
			wait->active_next = fence->active;
			if (fence->active)
				fence->active->active_prev = wait;
			fence->active = wait;
		}
	} else if (!wait->is_unreached && !wait->is_active && was_unreached) {
		fence->held_needs_walk = true;
	}
	if (wait->is_unreached) {
		active_unlink(wait);
		inert_bounds_add(fence, wait);
	}
}

/*
 * Whether a signal of the fence that goes out may let go one of its unreached held waits (then
 * every held wait is walked; else only the active ones, the others being held again as
 * is_still_held() says): at the end of the trace, once the lag of one may be over, or when
 * `added` (the signal just remembered, NULL: none) may be the release of one — not when below
 * the lowest value, begun after the latest limit, or lost (may_reach()).
 */
static bool
may_free_unreached(const struct fsa_model *model, const struct fence_state *fence,
		   const struct signal_memory *added)
{
	/* A signal at its read may release a wait at its read that ended "before" it
	 * (is_gpu_ordered()): the bounds, in trace time, cannot say. */
	return fence->held_needs_walk || model->is_finished || (added && added->is_at_read) ||
	       model->last_ts >= fence->inert_min_lag_end_ns ||
	       (added && added->value >= fence->inert_min_value &&
		added->begin_ns <= fence->inert_max_limit && !may_release_be_lost(model, added));
}

/* Walks every held wait of the fence after a signal went out, then makes its active list and
 * bounds exact. */
static fsa_status
held_walk(struct fsa_model *model, struct fence_state *fence, const struct signal_memory *added)
{
	struct op_rec *tail = NULL;
	fsa_status status = FSA_OK;

	for (struct op_rec *wait = fence->held, *next; wait && !status; wait = next) {
		next = wait->held_next;
		if (!is_still_held(model, wait, added))
			status = try_emit(model, wait, false);
	}
	if (status) {
		fence->held_needs_walk = true;
		return status;
	}
	fence->active = NULL;
	fence->inert_min_value = UINT64_MAX;
	fence->inert_max_limit = 0;
	fence->inert_min_lag_end_ns = UINT64_MAX;
	fence->held_needs_walk = false;
	for (struct op_rec *wait = fence->held; wait; wait = wait->held_next) {
		wait->is_active = !wait->is_unreached;
		if (wait->is_unreached) {
			inert_bounds_add(fence, wait);
			continue;
		}
		wait->active_prev = tail;
		wait->active_next = NULL;
		if (tail)
			tail->active_next = wait;
		else
			fence->active = wait;
		tail = wait;
	}
	return FSA_OK;
}

static fsa_status
emit(struct fsa_model *model, struct op_rec *rec, const struct signal_memory *release)
{
	struct fsa_op *op = &rec->op;
	struct fsa_summary *sum = &model->summary;
	struct signal_memory added = {0};
	bool has_added = false;
	fsa_status status = FSA_OK;

	if (release)
		op->signal_op_id = release->op_id;
	sum->op_counts[op->source][op->kind]++;
	if (op->state == FSA_OP_INFERRED)
		sum->inferred_ops++;
	else if (op->state == FSA_OP_NEVER_COMPLETED)
		sum->never_completed_ops++;
	else if (op->state == FSA_OP_UNQUEUED)
		sum->unqueued_ops++;
	if (rec->queue) {
		if (op->kind == FSA_OP_WAIT)
			rec->queue->info.wait_count++;
		else
			rec->queue->info.signal_count++;
	}
	if (rec->fence) {
		struct fence_state *fence = rec->fence;
		uint64_t end = op->state == FSA_OP_INFERRED ? op->inferred_end_ns : op->end_ns;

		if (op->kind == FSA_OP_WAIT) {
			fence->info.wait_count++;
		} else if (op->state == FSA_OP_OBSERVED || op->state == FSA_OP_INFERRED ||
			   op->state == FSA_OP_UNQUEUED) {
			fence->info.signal_count++;
			bool is_regression = false;

			status = find_regressions(model, fence, rec, end, &is_regression);
			if (status)
				goto end;
			if (!fence->has_signal || op->fence_value > fence->max_signal_value) {
				fence->max_signal_value = op->fence_value;
				fence->max_signal_end_ns = end;
			}
			fence->has_signal = true;
			open_signal_unlink(rec);
			if (op->fence_value > fence->info.last_value)
				fence->info.last_value = op->fence_value;
			if (!remember_signal(fence, rec, is_regression)) {
				status = FSA_ERR_NOMEM;
				goto end;
			}
			/* What the fence's held waits are checked against below (remembered when it
			 * has an end: remember_signal()). */
			has_added = end != FSA_TIME_NONE;
			added.value = op->fence_value;
			added.begin_ns = op->state == FSA_OP_INFERRED ? op->inferred_begin_ns : end;
			added.end_ns = end;
		}
	}
	if (model->sink.op) {
		status = model->sink.op(model->sink.data, op);
		if (status)
			goto end;
	}
	/* The waits this signal may have released, or that waited to know whether it came
	 * before them, go out now, after it. */
	if (op->kind == FSA_OP_SIGNAL && rec->fence && rec->fence->held) {
		struct fence_state *fence = rec->fence;

		if (may_free_unreached(model, fence, has_added ? &added : NULL)) {
			status = held_walk(model, fence, has_added ? &added : NULL);
		} else {
			/* A wait given out or held again leaves the active list as it goes. */
			for (struct op_rec *wait = fence->active, *next; wait && !status;
			     wait = next) {
				next = wait->active_next;
				if (!is_still_held(model, wait, has_added ? &added : NULL))
					status = try_emit(model, wait, false);
			}
		}
		if (status)
			goto end;
	}
	if (release) {
		struct fsa_edge edge = {
		    .signal_op_id = release->op_id,
		    .wait_op_id = op->id,
		    .fence_global_handle = op->fence_global_handle,
		    .signal_value = release->value,
		    .wait_value = op->fence_value,
		    .signal_source = release->source,
		    .wait_source = op->source,
		    .signal_hwqueue_handle = release->hwqueue_handle,
		    .wait_hwqueue_handle = op->hwqueue_handle,
		    .signal_process_id = release->process_id,
		    .wait_process_id = op->process_id,
		    .signal_end_ns = release->end_ns,
		    .wait_end_ns = op->end_ns,
		    .signal_adapter_id = release->adapter_id,
		    .wait_adapter_id = op->adapter_id,
		};

		sum->edge_count++;
		if (model->sink.edge)
			status = model->sink.edge(model->sink.data, &edge);
	}
end:
	if (status)
		model->failed = status;
	return status;
}

static uint64_t
end_of(const struct op_rec *rec)
{
	if (rec->op.state == FSA_OP_INFERRED)
		return rec->op.inferred_end_ns;
	return rec->op.end_ns != FSA_TIME_NONE ? rec->op.end_ns : rec->closed_ns;
}

/* Gives a pending box out if it is ready (see the file comment); frees it then. */
static fsa_status
try_emit(struct fsa_model *model, struct op_rec *rec, bool is_final)
{
	const struct signal_memory *release = NULL;
	fsa_status status;

	model->try_emit_calls++;
	/* Set again below if it is held again: a retry that returns before (the frontier) may have
	 * come after a signal that could be its release (is_still_held()). */
	bool was_unreached = rec->is_unreached;

	if (rec->is_unreached) {
		rec->is_unreached = false;
		if (rec->is_held)
			rec->fence->held_needs_walk = true;
	}
	/* Once the trace has ended, a wait retried when a signal goes out is final too. */
	is_final = is_final || model->is_finished;
	if (rec->needs_mapping) {
		bool is_mapped;

		status = map_times(model, rec, is_final, &is_mapped);
		if (status || !is_mapped)
			return status;
	}
	/* Items go out in the order they ended: not before a box still waiting for its clock pair
	 * that may end earlier (clock-fit.c fsa_clock_frontier). */
	if (!is_final && end_of(rec) > fsa_clock_frontier(model))
		return FSA_OK;
	if (rec->op.kind == FSA_OP_WAIT && rec->fence && rec->op.state != FSA_OP_NEVER_COMPLETED &&
	    !(rec->op.source == FSA_SRC_CPU &&
	      rec->op.cpu_wait_result != FSTP_CPU_WAIT_RESULT_SATISFIED)) {
		uint64_t lo =
		    rec->op.state == FSA_OP_INFERRED ? rec->op.inferred_begin_ns : rec->op.end_ns;
		uint64_t hi =
		    rec->op.state == FSA_OP_INFERRED ? rec->op.inferred_end_ns : rec->op.end_ns;
		struct op_rec *blocker = NULL;
		bool is_unsure = false;

		if (lo != FSA_TIME_NONE && hi != FSA_TIME_NONE) {
			blocker = has_unknown_signal_before(model, rec->fence, hi, is_final, rec);
			is_unsure = blocker != NULL;
			if (!is_unsure)
				release = find_release(rec->fence, rec->op.fence_value, hi, rec);
			if (release && may_release_be_lost(model, release))
				release = NULL;
		}
		/* At the end, only a closed signal still to go out in this flush holds a wait: it
		 * gives the wait out when it goes. */
		if ((is_final && is_unsure) ||
		    (!is_final &&
		     (is_unsure ||
		      (!release && rec->op.fence_value > rec->fence->info.initial_value)) &&
		     model->last_ts < rec->closed_ns + FSA_EDGE_LAG_NS)) {
			rec->blocker = blocker;
			rec->is_unreached =
			    rec->op.fence_value > rec->fence->info.initial_value &&
			    (lo == FSA_TIME_NONE || hi == FSA_TIME_NONE ||
			     has_no_reach(model, rec->fence, rec->op.fence_value, wait_limit(rec)));
			model->held_waits += !rec->is_held;
			held_place(rec->fence, rec, was_unreached);
			return FSA_OK;
		}
		/* A signal that ended a little after the wait it released (within the mapping's
		 * tolerance): the wait's end moves to it, and is counted (docs/analyzer.md). */
		if (release && release->begin_ns == release->end_ns &&
		    rec->op.state != FSA_OP_INFERRED && release->end_ns > rec->op.end_ns) {
			rec->op.end_ns = release->end_ns;
			model->summary.clamped_times++;
		}
	}
	if (rec->is_held) {
		if (rec->held_prev)
			rec->held_prev->held_next = rec->held_next;
		else
			rec->fence->held = rec->held_next;
		if (rec->held_next)
			rec->held_next->held_prev = rec->held_prev;
		rec->is_held = false;
		active_unlink(rec);
	}
	pending_unlink(model, rec);
	status = emit(model, rec, release);
	op_free(model, rec);
	return status;
}

static int
compare_by_end(const void *a, const void *b)
{
	const struct op_rec *x = *(struct op_rec *const *) a, *y = *(struct op_rec *const *) b;
	uint64_t ex = end_of(x), ey = end_of(y);

	if (ex != ey)
		return ex < ey ? -1 : 1;
	if (x->op.kind != y->op.kind)
		return x->op.kind == FSA_OP_SIGNAL ? -1 : 1;
	return x->op.id < y->op.id ? -1 : x->op.id > y->op.id;
}

/*
 * Gives out what is ready in the order the operations ended, signals before waits at the same
 * time: a wait then finds the signal that released it among the signals already given out, and
 * signals that came later cannot push it out of the fence's memory first.
 */
fsa_status
ops_flush(struct fsa_model *model, bool is_final)
{
	struct op_rec **ready;
	size_t count = 0;
	fsa_status status = FSA_OK;

	if (!model->pending_count)
		return FSA_OK;
	ready = malloc(model->pending_count * sizeof(*ready));
	if (!ready)
		return model->failed = FSA_ERR_NOMEM;
	for (struct op_rec *rec = model->pending_head; rec && !status; rec = rec->next) {
		if (rec->needs_mapping) {
			bool is_mapped;

			status = map_times(model, rec, is_final, &is_mapped);
			if (!is_mapped)
				continue;
		}
		ready[count++] = rec;
	}
	/* Past the frontier nothing goes out yet: not worth sorting. */
	if (!is_final) {
		uint64_t frontier = fsa_clock_frontier(model);
		size_t kept = 0;

		for (size_t i = 0; i < count; i++)
			if (end_of(ready[i]) <= frontier)
				ready[kept++] = ready[i];
		count = kept;
	}
	if (!status && count > 1)
		qsort(ready, count, sizeof(*ready), compare_by_end);
	/* A signal given out gives out the waits it released at once: those may be further
	 * down `ready` already recycled, and are skipped. */
	for (size_t i = 0; i < count && !status; i++)
		if (!ready[i]->is_free && (is_final || !is_still_held(model, ready[i], NULL)))
			status = try_emit(model, ready[i], is_final);
	free(ready);
	return status;
}

static uint64_t
queued_of(const void *item)
{
	return ((const struct op_rec *) item)->op.queued_ns;
}

/* Appends to a growing array of boxes; false when out of memory. */
static bool
found_push(struct op_rec ***found, size_t *count, size_t *capacity, struct op_rec *rec)
{
	if (*count == *capacity) {
		size_t n = *capacity ? *capacity * 2 : 64;
		struct op_rec **grown = realloc(*found, n * sizeof(*grown));

		if (!grown)
			return false;
		*found = grown;
		*capacity = n;
	}
	(*found)[(*count)++] = rec;
	return true;
}

/*
 * LOG-11, LOG-13: every operation a queue executes writes one entry, at the next position of its
 * log. Entries missing between two read (a gap in entry_position that no overrun explains: the
 * tracer discarded them) are a loss. The queue runs its command buffers in order, so the open
 * boxes of that log whose buffer came before the one of the entry read after the gap (a lower
 * progress value) ran before it: their entries are among the missing ones, and they are marked
 * inferred between the entry before the gap and the one after (GPV-08), oldest queued first and
 * never more than the gap holds.
 */
static fsa_status
log_gap(struct fsa_model *model, struct queue_state *queue, unsigned log,
	const struct op_rec *after, uint64_t first_missing, uint64_t position, uint64_t read_ns)
{
	enum fsa_op_kind kind = log == FSTP_LOG_TYPE_WAITS ? FSA_OP_WAIT : FSA_OP_SIGNAL;
	uint64_t missing = position - first_missing;
	struct fsa_loss loss = {
	    .kind = FSA_LOSS_LOG_GAP,
	    .count = missing,
	    .adapter_id = queue->info.adapter_id,
	    .hwqueue_handle = queue->info.hwqueue_handle,
	    .log_type = (uint8_t) log,
	    .cached_position = first_missing,
	    .new_position = position,
	    .begin_ns = queue->last_end_gpu_ts[log]
			    ? fsa_model_gpu_to_trace(model, queue->info.adapter_id,
						     queue->last_end_gpu_ts[log])
			    : queue->info.created_ns,
	    .end_ns = after->op.end_gpu_ts ? fsa_model_gpu_to_trace(model, queue->info.adapter_id,
								    after->op.end_gpu_ts)
					   : read_ns,
	    .stream_id = UINT64_MAX,
	    .cpu_id = UINT32_MAX,
	    .read_ns = FSA_TIME_NONE,
	};
	struct op_rec **found = NULL;
	size_t count = 0, capacity = 0;
	uint64_t key;
	void *value;
	fsa_status status = FSA_OK;

	if (loss.end_ns == FSA_TIME_NONE || loss.end_ns > read_ns)
		loss.end_ns = read_ns;
	if (loss.begin_ns != FSA_TIME_NONE && loss.begin_ns > loss.end_ns)
		loss.begin_ns = loss.end_ns;
	model->summary.log_entries_missing =
	    add_saturating(model->summary.log_entries_missing, missing);
	for (size_t i = 0; after->op.progress_value && hmap_next(&queue->open, &i, &key, &value);)
		for (struct op_rec *rec = value; rec; rec = rec->next_open)
			if (rec->op.kind == kind && rec->op.progress_value &&
			    rec->op.progress_value < after->op.progress_value &&
			    rec->op.queued_ns <= loss.end_ns &&
			    !found_push(&found, &count, &capacity, rec)) {
				free(found);
				return model->failed = FSA_ERR_NOMEM;
			}
	if (!sort_by_time((void **) found, count, queued_of)) {
		free(found);
		return model->failed = FSA_ERR_NOMEM;
	}
	if (count > missing)
		count = 0; /* more candidates than missing entries: which ran is not provable */
	for (size_t i = 0; i < count && !status; i++) {
		struct op_rec *rec =
		    take_open(queue, found[i]->op.fence_handle, found[i]->op.fence_value, kind);
		uint64_t begin = loss.begin_ns;

		if (begin == FSA_TIME_NONE || rec->op.queued_ns > begin)
			begin = rec->op.queued_ns;
		rec->op.state = FSA_OP_INFERRED;
		rec->op.inferred_begin_ns = begin < loss.end_ns ? begin : loss.end_ns;
		rec->op.inferred_end_ns = loss.end_ns;
		status = close_op(model, rec, read_ns);
	}
	free(found);
	if (status)
		return status;
	if (count < missing && kind == FSA_OP_SIGNAL) {
		uint64_t begin = loss.begin_ns == FSA_TIME_NONE ? 0 : loss.begin_ns;

		if (model->unmatched_signal_gap_begin_ns == FSA_TIME_NONE ||
		    begin < model->unmatched_signal_gap_begin_ns)
			model->unmatched_signal_gap_begin_ns = begin;
	}
	loss.inferred_ops = count;
	return emit_loss(model, &loss);
}

/*
 * When the progress value of a progress fence write reached the fence, on the trace clock: its
 * GPU end mapped through the clock pairs read so far, else (no pair: a recording at INFO has no
 * clock_correlation, which is DEBUG) its read, where the boxes of the same log end too.
 */
static uint64_t
progress_entry_ns(struct fsa_model *model, const struct queue_state *queue, uint64_t end_gpu_ts,
		  uint64_t read_ns)
{
	const struct clock_state *clock = fsa_clock_get(model, queue->info.adapter_id, false);
	uint64_t ns;

	if (!end_gpu_ts || !clock || !clock->pair_count)
		return read_ns;
	ns = fsa_clock_map_const(clock, end_gpu_ts);
	return ns == FSA_TIME_NONE || ns > read_ns ? read_ns : ns;
}

/*
 * The entry of a progress fence write (HPF-02: the runtime logs it like any signal, LOG-11).
 * It is no fence operation box — no queued event comes with it (GPV-02) and the buffer's
 * packet_end already marks its completion — but it holds its place in the log: a gap before it
 * is a loss as before any entry (the signals of its own buffer and of earlier ones ran before
 * it), and its timestamp is the one the next entry must not go below (LOG-22). In a trace
 * without the queue's packet_end events (recorded at INFO: packets are DEBUG) it is the only
 * sign that the buffer completed, so it steps the progress fence itself (fsa_fence_value, packet
 * id 0); otherwise the packets do, at their GPU end.
 */
static fsa_status
progress_log_entry(struct fsa_model *model, struct queue_state *queue, unsigned log,
		   const struct fsa_event *ev)
{
	uint64_t end = ev->u[FSA_F_END_GPU_TS];
	struct op_rec after = {0};
	fsa_status status = FSA_OK;

	after.op.progress_value = ev->u[FSA_F_FENCE_VALUE] + 1;
	after.op.end_gpu_ts = end;
	after.op.log_position = ev->u[FSA_F_ENTRY_POSITION];
	if (queue->is_known || queue->has_position[log]) {
		uint64_t expected = queue->has_position[log] ? queue->next_position[log] : 0;

		if (after.op.log_position > expected && after.op.log_position != UINT64_MAX)
			status = log_gap(model, queue, log, &after, expected, after.op.log_position,
					 ev->ts_ns);
	}
	if (after.op.log_position != UINT64_MAX) {
		queue->has_position[log] = true;
		queue->next_position[log] = after.op.log_position + 1;
	}
	if (end && end >= queue->last_end_gpu_ts[log]) {
		queue->last_end_gpu_ts[log] = end;
		if (queue->overrun[log].is_pending && !queue->overrun[log].first_end_gpu_ts_after)
			queue->overrun[log].first_end_gpu_ts_after = end;
	}
	if (!status && !queue->has_packet_end)
		status = packets_step_progress(model, queue, ev->u[FSA_F_FENCE_VALUE],
					       progress_entry_ns(model, queue, end, ev->ts_ns), 0);
	return status ? (model->failed = status) : FSA_OK;
}

fsa_status
ops_log_entry(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
	unsigned log = ev->u[FSA_F_LOG_TYPE] ? 1 : 0;
	enum fsa_op_kind kind = ev->u[FSA_F_OPERATION] == FSTP_LOG_OPERATION_WAIT_UNBLOCKED
				    ? FSA_OP_WAIT
				    : FSA_OP_SIGNAL;
	uint64_t end = ev->u[FSA_F_END_GPU_TS], observed = ev->u[FSA_F_OBSERVED_GPU_TS];
	struct op_rec *rec;
	fsa_status status = FSA_OK;

	if (!queue)
		return model->failed;
	model->summary.log_entries_read++;
	if (kind == FSA_OP_SIGNAL && queue->info.progress_fence_handle &&
	    ev->u[FSA_F_FENCE_GLOBAL_HANDLE] == queue->info.progress_fence_handle)
		return progress_log_entry(model, queue, log, ev);
	rec = take_open(queue, ev->u[FSA_F_FENCE_HANDLE], ev->u[FSA_F_FENCE_VALUE], kind);
	if (!rec) {
		rec = op_new(model, kind, FSA_SRC_USER_MODE_QUEUE);
		if (!rec)
			return model->failed;
		rec->op.state = FSA_OP_UNQUEUED;
		op_set_queue(rec, queue);
		rec->op.fence_handle = ev->u[FSA_F_FENCE_HANDLE];
		rec->op.fence_value = ev->u[FSA_F_FENCE_VALUE];
		rec->fence = hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);
		rec->op.fence_global_handle = ev->u[FSA_F_FENCE_GLOBAL_HANDLE];
		status = anomaly_for(model, FSA_ANOM_LOG_ENTRY_WITHOUT_QUEUED, rec, ev->ts_ns,
				     ev->u[FSA_F_ENTRY_POSITION], 0);
	}
	if (!rec->fence && ev->u[FSA_F_FENCE_GLOBAL_HANDLE]) {
		rec->fence = hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);
		rec->op.fence_global_handle = ev->u[FSA_F_FENCE_GLOBAL_HANDLE];
	}
	/* Unqueued: given out once mapped. */
	if (kind == FSA_OP_SIGNAL && rec->fence && !rec->is_open_signal && !open_signal_link(rec)) {
		op_free(model, rec);
		return model->failed = FSA_ERR_NOMEM;
	}
	rec->op.end_gpu_ts = end;
	rec->op.observed_gpu_ts = observed;
	rec->op.log_position = ev->u[FSA_F_ENTRY_POSITION];
	if (!rec->needs_mapping)
		fsa_clock_unmapped_add(model, rec->op.adapter_id, 1);
	rec->needs_mapping = true;
	/* LOG-21: zero is tolerated but recorded; LOG-22: a non-zero timestamp must not go down. */
	if (!status && !end)
		status = anomaly_for(model, FSA_ANOM_ZERO_TIMESTAMP, rec, ev->ts_ns,
				     queue->last_end_gpu_ts[log], 0);
	else if (!status && end < queue->last_end_gpu_ts[log])
		status = anomaly_for(model, FSA_ANOM_GPU_TIMESTAMP_BACKWARDS, rec, ev->ts_ns,
				     queue->last_end_gpu_ts[log], end);
	if (!status && end && observed > end)
		status =
		    anomaly_for(model, FSA_ANOM_OBSERVED_AFTER_END, rec, ev->ts_ns, observed, end);
	if (!status && (queue->is_known || queue->has_position[log])) {
		uint64_t expected = queue->has_position[log] ? queue->next_position[log] : 0;

		if (rec->op.log_position > expected && rec->op.log_position != UINT64_MAX)
			status = log_gap(model, queue, log, rec, expected, rec->op.log_position,
					 ev->ts_ns);
	}
	if (rec->op.log_position != UINT64_MAX) {
		/* A position that goes back (a log re-created, LOG-04) starts over from it. */
		queue->has_position[log] = true;
		queue->next_position[log] = rec->op.log_position + 1;
	}
	if (end) {
		queue->last_end_gpu_ts[log] = end;
		if (queue->overrun[log].is_pending && !queue->overrun[log].first_end_gpu_ts_after)
			queue->overrun[log].first_end_gpu_ts_after = end;
	}
	if (status) {
		op_free(model, rec);
		return model->failed = status;
	}
	return close_op(model, rec, ev->ts_ns);
}

fsa_status
ops_km_closed(struct fsa_model *model, const struct fsa_event *ev, enum fsa_op_kind kind)
{
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
	struct op_rec *rec;
	fsa_status status = FSA_OK;

	if (!queue)
		return model->failed;
	rec = take_open(queue, ev->u[FSA_F_FENCE_HANDLE], ev->u[FSA_F_FENCE_VALUE], kind);
	if (!rec) {
		rec = op_new(model, kind, FSA_SRC_KERNEL_MODE_QUEUE);
		if (!rec)
			return model->failed;
		rec->op.state = FSA_OP_UNQUEUED;
		rec->op.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
		op_set_queue(rec, queue);
		rec->op.fence_handle = ev->u[FSA_F_FENCE_HANDLE];
		rec->op.fence_value = ev->u[FSA_F_FENCE_VALUE];
		status = attach_fence(model, rec, ev->ts_ns);
		if (!status)
			status = anomaly_for(model, FSA_ANOM_LOG_ENTRY_WITHOUT_QUEUED, rec,
					     ev->ts_ns, 0, 0);
		if (status) {
			op_free(model, rec);
			return model->failed = status;
		}
	}
	rec->op.end_ns = ev->ts_ns;
	return close_op(model, rec, ev->ts_ns);
}

fsa_status
ops_cpu_wait_begin(struct fsa_model *model, const struct fsa_event *ev)
{
	struct op_rec *rec = op_new(model, FSA_OP_WAIT, FSA_SRC_CPU), *old;

	if (!rec)
		return model->failed;
	rec->op.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	rec->op.fence_handle = ev->u[FSA_F_FENCE_HANDLE];
	rec->op.fence_value = ev->u[FSA_F_FENCE_VALUE];
	rec->op.queued_ns = ev->ts_ns;
	old = hmap_get(&model->cpu_waits, ev->u[FSA_F_WAITER_ID]);
	if (!hmap_put(&model->cpu_waits, ev->u[FSA_F_WAITER_ID], rec)) {
		op_free(model, rec);
		return model->failed = FSA_ERR_NOMEM;
	}
	if (old)
		op_free(model,
			old); /* a waiter id reused without an end: the trace lost that end */
	return attach_fence(model, rec, ev->ts_ns);
}

fsa_status
ops_cpu_wait_end(struct fsa_model *model, const struct fsa_event *ev)
{
	struct op_rec *rec = hmap_remove(&model->cpu_waits, ev->u[FSA_F_WAITER_ID]);

	if (!rec) {
		fsa_status status;

		rec = op_new(model, FSA_OP_WAIT, FSA_SRC_CPU);
		if (!rec)
			return model->failed;
		rec->op.state = FSA_OP_UNQUEUED;
		rec->op.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
		rec->op.fence_handle = ev->u[FSA_F_FENCE_HANDLE];
		rec->op.fence_value = ev->u[FSA_F_FENCE_VALUE];
		status = attach_fence(model, rec, ev->ts_ns);
		if (status) {
			op_free(model, rec);
			return model->failed = status;
		}
	}
	rec->op.end_ns = ev->ts_ns;
	rec->op.cpu_wait_result = (uint8_t) ev->u[FSA_F_RESULT];
	rec->op.observed_value = ev->u[FSA_F_OBSERVED_VALUE];
	if (rec->fence && rec->op.observed_value > rec->fence->info.last_value)
		rec->fence->info.last_value = rec->op.observed_value;
	return close_op(model, rec, ev->ts_ns);
}

fsa_status
ops_cpu_signal(struct fsa_model *model, const struct fsa_event *ev)
{
	struct op_rec *rec = op_new(model, FSA_OP_SIGNAL, FSA_SRC_CPU);
	fsa_status status;

	if (!rec)
		return model->failed;
	rec->op.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	rec->op.fence_handle = ev->u[FSA_F_FENCE_HANDLE];
	rec->op.fence_value = ev->u[FSA_F_FENCE_VALUE];
	rec->op.queued_ns = ev->ts_ns;
	rec->op.end_ns = ev->ts_ns;
	status = attach_fence(model, rec, ev->ts_ns);
	if (status) {
		op_free(model, rec);
		return model->failed = status;
	}
	return close_op(model, rec, ev->ts_ns);
}

/* LOG-16, LOG-17: entries were overwritten before the OS read them. */
fsa_status
ops_overrun(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
	unsigned log = ev->u[FSA_F_LOG_TYPE] ? 1 : 0;
	struct overrun_state *overrun;

	if (!queue)
		return model->failed;
	overrun = &queue->overrun[log];
	model->summary.overrun_count++;
	/* The entries read next start after the lost ones (LOG-17). */
	queue->has_position[log] = true;
	queue->next_position[log] =
	    add_saturating(ev->u[FSA_F_CACHED_POSITION], ev->u[FSA_F_ENTRIES_LOST]);
	model->summary.log_entries_lost =
	    add_saturating(model->summary.log_entries_lost, ev->u[FSA_F_ENTRIES_LOST]);
	if (overrun->is_pending) {
		/* A second overrun before any scan: one loss covering both. */
		overrun->loss.count =
		    add_saturating(overrun->loss.count, ev->u[FSA_F_ENTRIES_LOST]);
		overrun->loss.new_position = ev->u[FSA_F_NEW_POSITION];
		overrun->loss.end_ns = ev->ts_ns;
		return FSA_OK;
	}
	*overrun = (struct overrun_state){
	    .is_pending = true,
	    .loss =
		{
		    .kind = FSA_LOSS_LOG_OVERRUN,
		    .count = ev->u[FSA_F_ENTRIES_LOST],
		    .adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID],
		    .hwqueue_handle = queue->info.hwqueue_handle,
		    .log_type = (uint8_t) log,
		    .cached_position = ev->u[FSA_F_CACHED_POSITION],
		    .new_position = ev->u[FSA_F_NEW_POSITION],
		    .end_ns = ev->ts_ns,
		    .stream_id = UINT64_MAX,
		    .cpu_id = UINT32_MAX,
		    .read_ns = ev->ts_ns,
		},
	};
	/* The lost entries come after the last entry read from that log. */
	overrun->loss.begin_ns =
	    queue->last_end_gpu_ts[log]
		? fsa_model_gpu_to_trace(model, queue->info.adapter_id, queue->last_end_gpu_ts[log])
		: queue->info.created_ns;
	return FSA_OK;
}

fsa_status
ops_scan_value(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fence_state *fence = hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);
	uint64_t key = hmap_key2(ev->u[FSA_F_ADAPTER_ID], ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);

	if (fence && ev->u[FSA_F_CURRENT_VALUE] > fence->info.last_value)
		fence->info.last_value = ev->u[FSA_F_CURRENT_VALUE];
	/* Stored + 1 so that a value of 0 is not a NULL pointer; UINT64_MAX saturates. */
	if (!hmap_put(&model->scan_values, key,
		      (void *) (uintptr_t) (ev->u[FSA_F_CURRENT_VALUE] == UINT64_MAX
						? UINT64_MAX
						: ev->u[FSA_F_CURRENT_VALUE] + 1)))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

/* Marks the open boxes of one overrun log inferred when the scan proves their value reached. */
static fsa_status
infer_overrun(struct fsa_model *model, struct queue_state *queue, unsigned log, uint64_t scan_ns)
{
	struct overrun_state *overrun = &queue->overrun[log];
	enum fsa_op_kind kind = log == FSTP_LOG_TYPE_WAITS ? FSA_OP_WAIT : FSA_OP_SIGNAL;
	struct op_rec **found = NULL;
	size_t count = 0, capacity = 0;
	uint64_t key, end_ns;
	void *value;
	fsa_status status = FSA_OK;

	end_ns = overrun->first_end_gpu_ts_after
		     ? fsa_model_gpu_to_trace(model, queue->info.adapter_id,
					      overrun->first_end_gpu_ts_after)
		     : scan_ns;
	if (end_ns == FSA_TIME_NONE || end_ns > scan_ns)
		end_ns = scan_ns;
	overrun->loss.end_ns = end_ns;
	for (size_t i = 0; hmap_next(&queue->open, &i, &key, &value);) {
		for (struct op_rec *rec = value; rec; rec = rec->next_open) {
			uintptr_t scanned;

			if (rec->op.kind != kind || !rec->fence || rec->op.queued_ns > end_ns)
				continue;
			scanned = (uintptr_t) hmap_get(
			    &model->scan_values, hmap_key2(queue->info.adapter_id,
							   rec->fence->info.fence_global_handle));
			if (!scanned || rec->op.fence_value > (uint64_t) scanned - 1)
				continue;
			if (count == capacity) {
				size_t n = capacity ? capacity * 2 : 64;
				struct op_rec **grown = realloc(found, n * sizeof(*grown));

				if (!grown) {
					free(found);
					return model->failed = FSA_ERR_NOMEM;
				}
				found = grown;
				capacity = n;
			}
			found[count++] = rec;
		}
	}
	/* Oldest first, so that ids follow the order the operations were queued. */
	if (!sort_by_time((void **) found, count, queued_of)) {
		free(found);
		return model->failed = FSA_ERR_NOMEM;
	}
	for (size_t i = 0; i < count && !status; i++) {
		struct op_rec *rec =
		    take_open(queue, found[i]->op.fence_handle, found[i]->op.fence_value, kind);
		uint64_t begin = overrun->loss.begin_ns;

		if (begin == FSA_TIME_NONE || rec->op.queued_ns > begin)
			begin = rec->op.queued_ns;
		rec->op.state = FSA_OP_INFERRED;
		rec->op.inferred_begin_ns = begin < end_ns ? begin : end_ns;
		rec->op.inferred_end_ns = end_ns;
		status = close_op(model, rec, scan_ns);
	}
	free(found);
	if (status)
		return status;
	overrun->loss.inferred_ops = count;
	overrun->is_pending = false;
	return emit_loss(model, &overrun->loss);
}

/* LOG-18: the fallback scan after an overrun (or a NULL interrupt) has read every fence. */
fsa_status
ops_scan(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	fsa_status status = FSA_OK;

	for (size_t i = 0; i < model->queue_count && !status; i++) {
		struct queue_state *queue = model->queue_list[i];

		if (queue->info.adapter_id != adapter)
			continue;
		for (unsigned log = 0; log < 2 && !status; log++)
			if (queue->overrun[log].is_pending)
				status = infer_overrun(model, queue, log, ev->ts_ns);
	}
	hmap_fini(&model->scan_values);
	return status;
}

static int
compare_open(const void *a, const void *b)
{
	const struct op_rec *x = *(struct op_rec *const *) a, *y = *(struct op_rec *const *) b;

	if (x->op.queued_ns != y->op.queued_ns)
		return x->op.queued_ns < y->op.queued_ns ? -1 : 1;
	if (x->op.fence_value != y->op.fence_value)
		return x->op.fence_value < y->op.fence_value ? -1 : 1;
	return (int) x->op.kind - (int) y->op.kind;
}

/* A box still open at the end: it gets its id and its anomaly, then goes out (freed on error). */
static fsa_status
give_out_never_completed(struct fsa_model *model, struct op_rec *rec, enum fsa_anomaly_kind kind)
{
	fsa_status status;

	rec->op.state = FSA_OP_NEVER_COMPLETED;
	rec->op.id = ++model->next_op_id;
	open_signal_close(rec);
	status = anomaly_for(model, kind, rec, model->last_ts, rec->op.queued_ns, 0);
	if (status) {
		op_free(model, rec);
		return status;
	}
	pending_append(model, rec);
	return try_emit(model, rec, true);
}

/* End of trace: what is still open never completed (or, after an overrun, stays unknown). */
static fsa_status
close_never_completed(struct fsa_model *model, struct queue_state *queue)
{
	struct op_rec **all = NULL;
	size_t count = 0;
	uint64_t key;
	void *value;
	fsa_status status = FSA_OK;

	if (queue->open_count) {
		all = malloc(queue->open_count * sizeof(*all));
		if (!all)
			return model->failed = FSA_ERR_NOMEM;
	}
	for (size_t i = 0; hmap_next(&queue->open, &i, &key, &value);)
		for (struct op_rec *rec = value; rec && count < queue->open_count;
		     rec = rec->next_open)
			all[count++] = rec;
	hmap_fini(&queue->open);
	queue->open_count = 0;
	if (count)
		qsort(all, count, sizeof(*all), compare_open);
	for (size_t i = 0; i < count; i++) {
		struct op_rec *rec = all[i];
		enum fsa_anomaly_kind kind;

		rec->next_open = NULL;
		if (status) {
			op_free(model, rec);
			continue;
		}
		if (rec->op.source == FSA_SRC_USER_MODE_QUEUE && rec->op.progress_value &&
		    rec->op.progress_value <= queue->completed_progress)
			kind = FSA_ANOM_QUEUED_WITHOUT_LOG_ENTRY; /* its buffer completed */
		else
			kind = rec->op.kind == FSA_OP_WAIT ? FSA_ANOM_WAIT_NEVER_UNBLOCKED
							   : FSA_ANOM_SIGNAL_NEVER_EXECUTED;
		status = give_out_never_completed(model, rec, kind);
	}
	free(all);
	return status;
}

fsa_status
ops_finish(struct fsa_model *model)
{
	fsa_status status = FSA_OK;

	for (size_t i = 0; i < model->queue_count && !status; i++) {
		struct queue_state *queue = model->queue_list[i];

		for (unsigned log = 0; log < 2 && !status; log++) {
			if (!queue->overrun[log].is_pending)
				continue;
			queue->overrun[log].is_pending = false;
			status = emit_loss(model, &queue->overrun[log].loss);
		}
	}
	/* What closed is given out before what never did. */
	if (!status)
		status = ops_flush(model, true);
	for (size_t i = 0; i < model->queue_count && !status; i++)
		status = close_never_completed(model, model->queue_list[i]);
	if (!status && model->cpu_waits.count) {
		struct op_rec **all;
		size_t count;

		if (!hmap_take_values(&model->cpu_waits, (void ***) &all, &count))
			return model->failed = FSA_ERR_NOMEM;
		qsort(all, count, sizeof(*all), compare_open);
		for (size_t i = 0; i < count; i++) {
			if (status)
				op_free(model, all[i]);
			else
				status = give_out_never_completed(model, all[i],
								  FSA_ANOM_WAIT_NEVER_UNBLOCKED);
		}
		free(all);
	}
	return status;
}

void
ops_free(struct fsa_model *model)
{
	uint64_t key;
	void *value;

	while (model->pending_head) {
		struct op_rec *rec = model->pending_head;

		pending_unlink(model, rec);
		free(rec);
	}
	for (size_t i = 0; i < model->queue_count; i++) {
		struct queue_state *queue = model->queue_list[i];

		for (size_t j = 0; hmap_next(&queue->open, &j, &key, &value);) {
			for (struct op_rec *rec = value, *next; rec; rec = next) {
				next = rec->next_open;
				free(rec);
			}
		}
		hmap_fini(&queue->open);
	}
	for (size_t i = 0; hmap_next(&model->cpu_waits, &i, &key, &value);)
		free(value);
	hmap_fini(&model->cpu_waits);
	while (model->free_ops) {
		struct op_rec *rec = model->free_ops;

		model->free_ops = rec->next;
		free(rec);
	}
}

uint64_t
ops_find_signal(struct fsa_model *model, uint64_t fence_global_handle, uint64_t value,
		uint32_t adapter_id)
{
	const struct fence_state *fence = hmap_get(&model->fences, fence_global_handle);
	uint64_t best = 0;

	if (!fence)
		return 0;
	/* Closed and not given out yet (waiting for a clock pair, most often). */
	for (uint32_t i = 0; i < fence->open_signal_count; i++) {
		const struct open_signal *open = &fence->open_signals[i];
		const struct fsa_op *op = &open->rec->op;

		if (open->is_closed && open->fence_value == value && op->id > best &&
		    (op->adapter_id == UINT32_MAX || op->adapter_id == adapter_id))
			best = op->id;
	}
	if (best)
		return best;
	for (unsigned i = fence->history_count; i-- > 0;) {
		const struct signal_memory *signal = &fence->history[i];

		if (signal->value == value && signal->op_id > best &&
		    (signal->adapter_id == UINT32_MAX || signal->adapter_id == adapter_id))
			best = signal->op_id;
	}
	return best;
}
