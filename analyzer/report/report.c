/* SPDX-License-Identifier: MIT */
/*
 * The report as a model sink: each callback folds one finished item into per-queue, per-fence,
 * per-process and per-engine accumulators and forgets it, so memory follows the number of those
 * objects, not the length of the trace (bounded quantiles, a bounded heap of the longest waits,
 * capped lists of examples). fsa_report_finish() evaluates the thresholds; the tables and the
 * writers are in tables.c and write-*.c.
 */
#include <stdlib.h>
#include <string.h>

#include "critical-path-private.h"
#include "frame-stats-private.h"
#include "mmu-xad-private.h"
#include "recovery-private.h"
#include "report-private.h"

static void
latency_init(struct fsa_latency *latency)
{
	for (size_t i = 0; i < FSA_METRIC_COUNT; i++)
		quantile_init(&latency->q[i]);
}

static void
latency_fini(struct fsa_latency *latency)
{
	for (size_t i = 0; i < FSA_METRIC_COUNT; i++)
		quantile_fini(&latency->q[i]);
}

static void
queue_free(gpointer data)
{
	struct fsa_queue_acc *queue = data;

	latency_fini(&queue->latency);
	quantile_fini(&queue->reconnect);
	g_free(queue);
}

static void
fence_free(gpointer data)
{
	struct fsa_fence_acc *fence = data;

	latency_fini(&fence->latency);
	g_free(fence);
}

static void
process_free(gpointer data)
{
	struct fsa_process_acc *process = data;

	latency_fini(&process->latency);
	g_free(process);
}

static void
engine_free(gpointer data)
{
	struct fsa_engine_acc *engine = data;

	quantile_fini(&engine->preemption);
	quantile_fini(&engine->reconnect);
	g_free(engine);
}

static bool in_range(struct fsa_report *r, uint64_t begin_ns, uint64_t end_ns);

/* --- Lookups (created on first sight) ------------------------------------------------------ */

static struct fsa_queue_acc *
get_queue(struct fsa_report *r, uint64_t hwqueue_handle)
{
	struct fsa_queue_acc *queue;

	if (r->last_queue && r->last_queue->hwqueue_handle == hwqueue_handle)
		return r->last_queue;
	queue = g_hash_table_lookup(r->queues, &hwqueue_handle);
	if (!queue) {
		queue = g_new0(struct fsa_queue_acc, 1);
		queue->hwqueue_handle = hwqueue_handle;
		queue->process_id = UINT32_MAX;
		queue->adapter_id = queue->engine_id = UINT32_MAX;
		queue->source = FSA_SRC_USER_MODE_QUEUE;
		latency_init(&queue->latency);
		quantile_init(&queue->reconnect);
		g_hash_table_insert(r->queues, &queue->hwqueue_handle, queue);
	}
	return r->last_queue = queue;
}

static struct fsa_fence_acc *
get_fence(struct fsa_report *r, uint64_t fence_global_handle)
{
	struct fsa_fence_acc *fence;

	if (r->last_fence && r->last_fence->fence_global_handle == fence_global_handle)
		return r->last_fence;
	fence = g_hash_table_lookup(r->fences, &fence_global_handle);
	if (!fence) {
		fence = g_new0(struct fsa_fence_acc, 1);
		fence->fence_global_handle = fence_global_handle;
		latency_init(&fence->latency);
		g_hash_table_insert(r->fences, &fence->fence_global_handle, fence);
	}
	return r->last_fence = fence;
}

static struct fsa_process_acc *
get_process(struct fsa_report *r, uint32_t process_id)
{
	uint64_t key = process_id;
	struct fsa_process_acc *process;

	if (r->last_process && r->last_process->process_id == key)
		return r->last_process;
	process = g_hash_table_lookup(r->processes, &key);
	if (!process) {
		process = g_new0(struct fsa_process_acc, 1);
		process->process_id = key;
		latency_init(&process->latency);
		g_hash_table_insert(r->processes, &process->process_id, process);
	}
	return r->last_process = process;
}

static struct fsa_engine_acc *
get_engine(struct fsa_report *r, uint32_t adapter_id, uint32_t engine_id)
{
	uint64_t key = (uint64_t) adapter_id << 32 | engine_id;
	struct fsa_engine_acc *engine = g_hash_table_lookup(r->engines, &key);

	if (!engine) {
		engine = g_new0(struct fsa_engine_acc, 1);
		engine->key = key;
		engine->adapter_id = adapter_id;
		engine->engine_id = engine_id;
		quantile_init(&engine->preemption);
		quantile_init(&engine->reconnect);
		g_hash_table_insert(r->engines, &engine->key, engine);
	}
	return engine;
}

static struct fsa_adapter_acc *
get_adapter(struct fsa_report *r, uint32_t adapter_id)
{
	uint64_t key = adapter_id;
	struct fsa_adapter_acc *adapter = g_hash_table_lookup(r->adapters, &key);

	if (!adapter) {
		adapter = g_new0(struct fsa_adapter_acc, 1);
		adapter->adapter_id = key;
		g_hash_table_insert(r->adapters, &adapter->adapter_id, adapter);
	}
	return adapter;
}

/* --- The time filter -------------------------------------------------------------------------- */

static void
resolve_range(struct fsa_report *r)
{
	uint64_t origin = 0;

	if (r->is_range_resolved)
		return;
	if (r->model) {
		const struct fsa_summary *summary = fsa_model_borrow_summary(r->model);

		if (summary && summary->first_ns != FSA_TIME_NONE)
			origin = summary->first_ns;
	}
	const struct fsa_report_time *begin = &r->options.begin, *end = &r->options.end;

	/* A relative time past the end of the clock saturates rather than wrapping to its start. */
	r->begin_ns = !begin->is_set ? 0
		      : begin->is_relative
			  ? (begin->ns > UINT64_MAX - origin ? UINT64_MAX : origin + begin->ns)
			  : begin->ns;
	r->end_ns = !end->is_set ? FSA_TIME_NONE
		    : end->is_relative
			? (end->ns > UINT64_MAX - origin ? FSA_TIME_NONE : origin + end->ns)
			: end->ns;
	r->is_range_resolved = true;
}

/* Does [begin_ns, end_ns] overlap the filter? FSA_TIME_NONE: an unknown begin takes the end, an
 * unknown end is open (a wait never unblocked lasts to the end of the trace). */
static bool
in_range(struct fsa_report *r, uint64_t begin_ns, uint64_t end_ns)
{
	resolve_range(r);
	if (begin_ns == FSA_TIME_NONE)
		begin_ns = end_ns;
	if (end_ns != FSA_TIME_NONE && end_ns < r->begin_ns)
		return false;
	if (r->end_ns != FSA_TIME_NONE && begin_ns != FSA_TIME_NONE && begin_ns > r->end_ns)
		return false;
	return true;
}

bool
report_in_range(struct fsa_report *r, uint64_t begin_ns, uint64_t end_ns)
{
	return in_range(r, begin_ns, end_ns);
}

/* --- Callbacks -------------------------------------------------------------------------------- */

/* The latest time any item named: the trace's end when the report has no model. */
static void
see_time(struct fsa_report *r, uint64_t begin_ns, uint64_t end_ns)
{
	if (begin_ns != FSA_TIME_NONE && (r->latest_ns == FSA_TIME_NONE || begin_ns > r->latest_ns))
		r->latest_ns = begin_ns;
	if (end_ns != FSA_TIME_NONE && (r->latest_ns == FSA_TIME_NONE || end_ns > r->latest_ns))
		r->latest_ns = end_ns;
}

/* Loss counts come from the trace: their sums saturate rather than wrap. */
static uint64_t
add_saturating(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static fsa_status
remember(struct fsa_report *r, fsa_status status)
{
	if (status != FSA_OK && r->status == FSA_OK)
		r->status = status;
	return status;
}

static fsa_status
latency_add(struct fsa_report *r, struct fsa_latency *const *targets, size_t count,
	    enum fsa_metric metric, uint64_t value)
{
	/* One value into up to four statistics: its bucket once. */
	struct fsa_quantile_bucket bucket = quantile_bucket(value);

	for (size_t i = 0; i < count; i++) {
		if (!targets[i])
			continue;
		fsa_status status = quantile_add_in(&targets[i]->q[metric], value, bucket);

		if (status != FSA_OK)
			return remember(r, status);
	}
	return FSA_OK;
}

/* Heap order: a shorter wait is "less"; on a tie the later operation is, so the earliest of equal
 * waits stays (deterministic output). */
static bool
long_wait_less(const struct fsa_long_wait *a, const struct fsa_long_wait *b)
{
	if (a->duration_ns != b->duration_ns)
		return a->duration_ns < b->duration_ns;
	return a->op.id > b->op.id;
}

static void
heap_swap(struct fsa_long_wait *a, struct fsa_long_wait *b)
{
	struct fsa_long_wait t = *a;

	*a = *b;
	*b = t;
}

static void
heap_sift_down(struct fsa_long_wait *heap, size_t len, size_t i)
{
	for (;;) {
		size_t smallest = i, l = 2 * i + 1, rr = 2 * i + 2;

		if (l < len && long_wait_less(&heap[l], &heap[smallest]))
			smallest = l;
		if (rr < len && long_wait_less(&heap[rr], &heap[smallest]))
			smallest = rr;
		if (smallest == i)
			return;
		heap_swap(&heap[i], &heap[smallest]);
		i = smallest;
	}
}

_Static_assert(FSA_REPORT_EDGE_INDEX == 1u << 11, "pending_home() gives 11 bits");

/* The pending edges' index (report-private.h): a slot's home for a wait op id. */
static size_t
pending_home(uint64_t wait_op_id)
{
	/* Fibonacci hashing: the top bits spread consecutive ids (the model numbers its
	 * operations in order) evenly. */
	return (size_t) ((wait_op_id * UINT64_C(0x9e3779b97f4a7c15)) >> 53);
}

/* The index slot of `wait_op_id`, or the free slot where it would go. */
static size_t
pending_slot(const struct fsa_report *r, uint64_t wait_op_id)
{
	size_t i = pending_home(wait_op_id);

	while (r->pending_index[i].at && r->pending_index[i].wait_op_id != wait_op_id)
		i = (i + 1) & (FSA_REPORT_EDGE_INDEX - 1);
	return i;
}

/* The latest remembered edge of the wait, NULL when none. */
static const struct fsa_edge *
pending_find(const struct fsa_report *r, uint64_t wait_op_id)
{
	uint32_t at = r->pending_index[pending_slot(r, wait_op_id)].at;

	return at ? &r->pending[at - 1] : NULL;
}

/* The wait's edge is now the one at ring position `at`. */
static void
pending_index_put(struct fsa_report *r, uint64_t wait_op_id, size_t at)
{
	r->pending_index[pending_slot(r, wait_op_id)] =
	    (struct fsa_pending_slot){.wait_op_id = wait_op_id, .at = (uint32_t) at + 1};
}

/* Forgets the wait's edge: backward-shift deletion (no tombstones, the index never fills). */
static void
pending_forget(struct fsa_report *r, uint64_t wait_op_id)
{
	size_t i = pending_slot(r, wait_op_id), j;

	if (!r->pending_index[i].at)
		return;
	for (j = (i + 1) & (FSA_REPORT_EDGE_INDEX - 1); r->pending_index[j].at;
	     j = (j + 1) & (FSA_REPORT_EDGE_INDEX - 1)) {
		size_t home = pending_home(r->pending_index[j].wait_op_id);

		if (((j - home) & (FSA_REPORT_EDGE_INDEX - 1)) >=
		    ((j - i) & (FSA_REPORT_EDGE_INDEX - 1))) {
			r->pending_index[i] = r->pending_index[j];
			i = j;
		}
	}
	r->pending_index[i] = (struct fsa_pending_slot){0};
}

static void
set_signaller(struct fsa_long_wait *wait, const struct fsa_edge *edge)
{
	wait->has_signaller = true;
	wait->signal_source = edge->signal_source;
	wait->signal_hwqueue_handle = edge->signal_hwqueue_handle;
	wait->signal_process_id = edge->signal_process_id;
	wait->signal_end_ns = edge->signal_end_ns;
}

static void
longest_offer(struct fsa_report *r, const struct fsa_op *op, uint64_t duration_ns)
{
	size_t cap = r->options.longest_count;

	/* Most waits are not among the longest: long_wait_less(shortest, this wait) is false, and
	 * that is known before the operation is copied. */
	if (r->longest_len == cap &&
	    !(r->longest[0].duration_ns < duration_ns ||
	      (r->longest[0].duration_ns == duration_ns && r->longest[0].op.id > op->id)))
		return;

	struct fsa_long_wait candidate = {.op = *op, .duration_ns = duration_ns};

	if (r->longest_len == cap) {
		r->longest[0] = candidate;
		heap_sift_down(r->longest, r->longest_len, 0);
	} else {
		size_t i = r->longest_len++;

		r->longest[i] = candidate;
		while (i > 0 && long_wait_less(&r->longest[i], &r->longest[(i - 1) / 2])) {
			heap_swap(&r->longest[i], &r->longest[(i - 1) / 2]);
			i = (i - 1) / 2;
		}
	}
	const struct fsa_edge *edge = pending_find(r, op->id);

	if (edge) {
		for (size_t i = 0; i < r->longest_len; i++)
			if (r->longest[i].op.id == op->id)
				set_signaller(&r->longest[i], edge);
	}
}

static fsa_status
on_op(void *data, const struct fsa_op *op)
{
	struct fsa_report *r = data;
	uint64_t begin_ns = op->queued_ns, end_ns = op->end_ns;

	if (op->state == FSA_OP_INFERRED) {
		if (begin_ns == FSA_TIME_NONE)
			begin_ns = op->inferred_begin_ns;
		end_ns = op->inferred_end_ns;
	}
	see_time(r, begin_ns, end_ns);
	if (xad_on_op(r, op) != FSA_OK)
		return remember(r, FSA_ERR_NOMEM);
	/* A chain reaches back before the time filter: the critical path keeps every op. */
	if (r->critical_path && critical_path_on_op(r, op) != FSA_OK)
		return remember(r, FSA_ERR_NOMEM);
	if (!in_range(r, begin_ns, end_ns))
		return FSA_OK;
	if (recovery_on_op(r, op) != FSA_OK)
		return remember(r, FSA_ERR_NOMEM);
	if ((size_t) op->source < 3 && (size_t) op->kind < 2)
		r->op_counts[op->source][op->kind]++;
	if ((size_t) op->state < 4)
		r->state_counts[op->state]++;

	struct fsa_queue_acc *queue = NULL;

	if (op->source != FSA_SRC_CPU && op->hwqueue_handle != 0) {
		queue = get_queue(r, op->hwqueue_handle);
		queue->process_id = op->process_id;
		queue->source = op->source;
		if (op->adapter_id != UINT32_MAX)
			queue->adapter_id = op->adapter_id;
		if (op->engine_id != UINT32_MAX)
			queue->engine_id = op->engine_id;
		if ((size_t) op->kind < 2 && (size_t) op->state < 4)
			queue->op_states[op->kind][op->state]++;
	}
	if (op->state != FSA_OP_OBSERVED || op->queued_ns == FSA_TIME_NONE ||
	    op->end_ns == FSA_TIME_NONE || op->end_ns < op->queued_ns)
		return FSA_OK;

	/* A CPU signal is an instant: it has no latency of its own. */
	if (op->kind == FSA_OP_SIGNAL && op->source == FSA_SRC_CPU)
		return FSA_OK;

	struct fsa_latency *targets[] = {
	    &r->overall,
	    queue ? &queue->latency : NULL,
	    &get_fence(r, op->fence_global_handle)->latency,
	    &get_process(r, op->process_id)->latency,
	};
	size_t target_count = sizeof(targets) / sizeof(targets[0]);
	uint64_t duration_ns = op->end_ns - op->queued_ns;
	enum fsa_metric metric = op->kind == FSA_OP_SIGNAL   ? FSA_METRIC_SIGNAL
				 : op->source == FSA_SRC_CPU ? FSA_METRIC_CPU_WAIT
							     : FSA_METRIC_WAIT;
	fsa_status status = latency_add(r, targets, target_count, metric, duration_ns);

	if (status != FSA_OK)
		return status;
	if (op->kind == FSA_OP_WAIT && op->source == FSA_SRC_USER_MODE_QUEUE &&
	    op->observed_ns != FSA_TIME_NONE && op->observed_ns >= op->queued_ns &&
	    op->observed_ns <= op->end_ns) {
		status = latency_add(r, targets, target_count, FSA_METRIC_WAIT_QUEUED,
				     op->observed_ns - op->queued_ns);
		if (status == FSA_OK)
			status = latency_add(r, targets, target_count, FSA_METRIC_WAIT_STALLED,
					     op->end_ns - op->observed_ns);
		if (status != FSA_OK)
			return status;
	}
	if (op->kind == FSA_OP_WAIT)
		longest_offer(r, op, duration_ns);
	return FSA_OK;
}

static fsa_status
on_edge(void *data, const struct fsa_edge *edge)
{
	struct fsa_report *r = data;

	if (!in_range(r, edge->signal_end_ns, edge->wait_end_ns))
		return FSA_OK;
	r->edge_count++;
	if (xad_on_edge(r, edge) != FSA_OK)
		return remember(r, FSA_ERR_NOMEM);
	for (size_t i = 0; i < r->longest_len; i++) {
		if (r->longest[i].op.id == edge->wait_op_id) {
			set_signaller(&r->longest[i], edge);
			return FSA_OK;
		}
	}
	/* The wait may come after its edge: remember the most recent edges, a bounded FIFO. The
	 * oldest one's wait op id is forgotten, even when a later edge of the same wait is the one
	 * the index finds (as a map replaced and then removed by id would). */
	if (r->pending_len == FSA_REPORT_EDGE_MEMORY) {
		pending_forget(r, r->pending[r->pending_head].wait_op_id);
		r->pending_head = (r->pending_head + 1) % FSA_REPORT_EDGE_MEMORY;
		r->pending_len--;
	}
	size_t at = (r->pending_head + r->pending_len) % FSA_REPORT_EDGE_MEMORY;

	r->pending[at] = *edge;
	pending_index_put(r, edge->wait_op_id, at);
	r->pending_len++;
	return FSA_OK;
}

static fsa_status
on_packet(void *data, const struct fsa_packet *packet)
{
	struct fsa_report *r = data;
	uint64_t begin_ns =
	    packet->start_ns != FSA_TIME_NONE ? packet->start_ns : packet->queued_ns;

	see_time(r, begin_ns, packet->end_ns);
	if (r->critical_path && critical_path_on_packet(r, packet) != FSA_OK)
		return remember(r, FSA_ERR_NOMEM);
	if (!in_range(r, begin_ns, packet->end_ns))
		return FSA_OK;
	r->packet_count++;

	struct fsa_engine_acc *engine = get_engine(r, packet->adapter_id, packet->engine_id);

	engine->packets++;
	engine->by_status[packet->status == FSA_PACKET_NEVER_ENDED ? 4
			  : (size_t) packet->status < 4            ? (size_t) packet->status
								   : 3]++;
	if (packet->resubmission_of != 0)
		engine->resubmissions++;
	if (packet->start_ns != FSA_TIME_NONE && packet->end_ns != FSA_TIME_NONE &&
	    packet->end_ns >= packet->start_ns)
		engine->busy_ns += packet->end_ns - packet->start_ns;
	return remember(r, recovery_on_packet(r, packet));
}

static bool
is_example_marker(enum fsa_marker_kind kind)
{
	return kind == FSA_MARK_TDR || kind == FSA_MARK_ENGINE_RESET ||
	       kind == FSA_MARK_PAGE_FAULT || kind == FSA_MARK_DEVICE_LOST;
}

/*
 * How long an interval marker lasted, for the doorbell section: one still open at the end of the
 * trace (end_ns FSA_TIME_NONE; the model sends those at its finish) lasts up to the trace's last
 * event, or to the --end bound if that comes first, and sets *is_open.
 */
static uint64_t
interval_length(struct fsa_report *r, const struct fsa_marker *marker, bool *is_open)
{
	uint64_t end = marker->end_ns;

	*is_open = end == FSA_TIME_NONE;
	if (*is_open) {
		const struct fsa_summary *summary =
		    r->model ? fsa_model_borrow_summary(r->model) : NULL;

		end = summary ? summary->last_ns : r->latest_ns;
		if (r->end_ns != FSA_TIME_NONE && r->end_ns < end)
			end = r->end_ns;
	}
	return end != FSA_TIME_NONE && end >= marker->begin_ns ? end - marker->begin_ns : 0;
}

/* Doorbell markers' adapter and engine: the marker's, else its queue's (model), else unknown. */
static struct fsa_engine_acc *
marker_engine(struct fsa_report *r, const struct fsa_marker *marker)
{
	const struct fsa_queue_info *info =
	    r->model && marker->hwqueue_handle
		? fsa_model_find_queue(r->model, marker->hwqueue_handle)
		: NULL;

	if (marker->engine_id != UINT32_MAX)
		return get_engine(r, marker->adapter_id, marker->engine_id);
	return info ? get_engine(r, info->adapter_id, info->engine_id) : NULL;
}

/* SUS-01, SUS-04: a context's suspension counts for each of its queues and once for its engine. */
static void
add_suspension(struct fsa_report *r, const struct fsa_marker *marker, uint64_t length, bool is_open)
{
	size_t count = r->model ? fsa_model_queue_count(r->model) : 0;
	bool is_engine_counted = false;

	for (size_t i = 0; i < count; i++) {
		const struct fsa_queue_info *info = fsa_model_borrow_queue(r->model, i);
		struct fsa_queue_acc *queue;

		if (info->context_handle != marker->context_handle || !info->is_user_mode)
			continue;
		queue = get_queue(r, info->hwqueue_handle);
		queue->suspended_ns += length;
		queue->open_at_end += is_open;
		if (!is_engine_counted) {
			struct fsa_engine_acc *engine =
			    get_engine(r, info->adapter_id, info->engine_id);

			engine->suspended_ns += length;
			engine->open_at_end += is_open;
			is_engine_counted = true;
		}
	}
}

static fsa_status
on_marker(void *data, const struct fsa_marker *marker)
{
	struct fsa_report *r = data;
	bool has_duration = fsa_marker_kind_is_interval(marker->kind) &&
			    marker->end_ns != FSA_TIME_NONE && marker->end_ns >= marker->begin_ns;
	uint64_t duration_ns = has_duration ? marker->end_ns - marker->begin_ns : 0;
	fsa_status status = FSA_OK;

	see_time(r, marker->begin_ns, marker->end_ns);
	/* Frames take every vsync and flip: a frame's time is the span between two of them. */
	if (frame_stats_on_marker(r, marker) != FSA_OK)
		return remember(r, FSA_ERR_NOMEM);
	if ((size_t) marker->kind >= FSA_MARK_KIND_COUNT ||
	    !in_range(r, marker->begin_ns, marker->end_ns))
		return FSA_OK;
	r->marker_count++;
	r->marker_counts[marker->kind]++;
	status = remember(r, recovery_on_marker(r, marker));
	if (status == FSA_OK)
		status = remember(r, mmu_on_marker(r, marker));
	if (status == FSA_OK)
		status = remember(r, xad_on_marker(r, marker));
	if (status != FSA_OK)
		return status;
	if (has_duration)
		status = remember(r, quantile_add(&r->marker_durations[marker->kind], duration_ns));
	if (status != FSA_OK)
		return status;

	bool is_doorbell = marker->kind <= FSA_MARK_DOORBELL_DESTROY ||
			   marker->kind == FSA_MARK_DOORBELL_CONNECTED ||
			   marker->kind == FSA_MARK_DOORBELL_STATE;
	struct fsa_queue_acc *queue = marker->hwqueue_handle != 0 && is_doorbell
					  ? get_queue(r, marker->hwqueue_handle)
					  : NULL;
	bool is_open = false;
	uint64_t length =
	    fsa_marker_kind_is_interval(marker->kind) ? interval_length(r, marker, &is_open) : 0;

	if (queue) {
		marker_engine(r, marker); /* a row in doorbells.engines */
		if (queue->engine_id == UINT32_MAX && marker->engine_id != UINT32_MAX) {
			queue->adapter_id = marker->adapter_id;
			queue->engine_id = marker->engine_id;
		}
	}
	switch (marker->kind) {
	case FSA_MARK_DOORBELL_RING:
		if (queue)
			queue->rings++;
		break;
	case FSA_MARK_DOORBELL_CONNECT:
		if (!queue)
			break;
		queue->connects++;
		/* doorbell_status DISCONNECTED_RETRY = 2, DISCONNECTED_ABORT = 3. */
		if (marker->code >= 2)
			queue->failed_connects++;
		if (marker->latency_ns != FSA_TIME_NONE) {
			struct fsa_engine_acc *engine = marker_engine(r, marker);

			status = remember(r, quantile_add(&queue->reconnect, marker->latency_ns));
			if (status == FSA_OK)
				status = remember(
				    r, quantile_add(&r->reconnect_all, marker->latency_ns));
			if (status == FSA_OK && engine)
				status = remember(
				    r, quantile_add(&engine->reconnect, marker->latency_ns));
		}
		break;
	case FSA_MARK_DOORBELL_DISCONNECT:
		if (queue)
			queue->disconnects++;
		break;
	case FSA_MARK_DOORBELL_VICTIMIZE:
		if (queue)
			queue->victimized++;
		if (marker->other_handle != 0)
			get_queue(r, marker->other_handle)->victimizer++;
		break;
	case FSA_MARK_DOORBELL_CONNECTED:
		if (queue) {
			queue->connected_ns += length;
			queue->open_at_end += is_open;
		}
		break;
	case FSA_MARK_DOORBELL_STATE:
		if (!queue)
			break;
		/* The status word: CONNECTED 0, CONNECTED_NOTIFY_KMD 1, RETRY 2, ABORT 3; an
		 * ABORT interval is one turn of the word to DISCONNECTED_ABORT (UMS-16). */
		if (marker->code >= 0 && marker->code < 4)
			queue->status_ns[marker->code] += length;
		queue->aborts += marker->code == 3;
		queue->open_at_end += is_open;
		break;
	case FSA_MARK_CONTEXT_SUSPENDED:
		add_suspension(r, marker, length, is_open);
		break;
	case FSA_MARK_ENGINE_F1: {
		struct fsa_engine_acc *engine =
		    get_engine(r, marker->adapter_id, marker->engine_id);

		engine->f1_count++;
		engine->f1_ns += length;
		engine->open_at_end += is_open;
		break;
	}
	case FSA_MARK_DEVICE_D3: {
		struct fsa_adapter_acc *adapter = get_adapter(r, marker->adapter_id);

		adapter->d3_count++;
		adapter->d3_ns += length;
		adapter->open_at_end += is_open;
		break;
	}
	case FSA_MARK_PREEMPTION: {
		struct fsa_engine_acc *engine =
		    get_engine(r, marker->adapter_id, marker->engine_id);

		engine->preemptions++;
		if (marker->code >= 0 && marker->code < 6)
			engine->preempt_reasons[marker->code]++;
		if (has_duration)
			status = remember(r, quantile_add(&engine->preemption, duration_ns));
		break;
	}
	default:
		break;
	}
	if (is_example_marker(marker->kind) &&
	    r->marker_example_counts[marker->kind] < r->options.example_count) {
		r->marker_example_counts[marker->kind]++;
		g_array_append_val(r->marker_examples, *marker);
	}
	return status;
}

static fsa_status
on_loss(void *data, const struct fsa_loss *loss)
{
	struct fsa_report *r = data;

	if ((size_t) loss->kind >= FSA_LOSS_KIND_COUNT ||
	    !in_range(r, loss->begin_ns, loss->end_ns))
		return FSA_OK;
	r->loss_count++;
	recovery_on_loss(r, loss);
	r->lost_by_kind[loss->kind] = add_saturating(r->lost_by_kind[loss->kind], loss->count);
	r->loss_records_by_kind[loss->kind]++;
	if (r->losses->len < r->options.loss_list_count)
		g_array_append_val(r->losses, *loss);

	bool is_overrun = fsa_loss_is_per_log(loss->kind);
	struct fsa_loss_total *total = NULL;

	for (size_t i = 0; i < r->loss_totals->len; i++) {
		struct fsa_loss_total *t = &g_array_index(r->loss_totals, struct fsa_loss_total, i);

		if (t->kind == loss->kind &&
		    (is_overrun ? t->hwqueue_handle == loss->hwqueue_handle &&
				      t->log_type == loss->log_type
				: t->stream_id == loss->stream_id)) {
			total = t;
			break;
		}
	}
	if (!total) {
		struct fsa_loss_total t = {
		    .kind = loss->kind,
		    .hwqueue_handle = is_overrun ? loss->hwqueue_handle : 0,
		    .stream_id = is_overrun ? 0 : loss->stream_id,
		    .log_type = is_overrun ? loss->log_type : 0,
		    .first_begin_ns = FSA_TIME_NONE,
		    .last_end_ns = FSA_TIME_NONE,
		};

		g_array_append_val(r->loss_totals, t);
		total =
		    &g_array_index(r->loss_totals, struct fsa_loss_total, r->loss_totals->len - 1);
	}
	total->records++;
	total->lost = add_saturating(total->lost, loss->count);
	total->inferred_ops += loss->inferred_ops;
	if (loss->begin_ns != FSA_TIME_NONE &&
	    (total->first_begin_ns == FSA_TIME_NONE || loss->begin_ns < total->first_begin_ns))
		total->first_begin_ns = loss->begin_ns;
	if (loss->end_ns != FSA_TIME_NONE &&
	    (total->last_end_ns == FSA_TIME_NONE || loss->end_ns > total->last_end_ns))
		total->last_end_ns = loss->end_ns;

	if (loss->kind == FSA_LOSS_LOG_OVERRUN && loss->hwqueue_handle != 0 && loss->log_type < 2) {
		struct fsa_queue_acc *queue = get_queue(r, loss->hwqueue_handle);

		queue->overruns[loss->log_type]++;
		queue->entries_lost[loss->log_type] =
		    add_saturating(queue->entries_lost[loss->log_type], loss->count);
		queue->inferred_ops[loss->log_type] += loss->inferred_ops;
	}
	return FSA_OK;
}

static fsa_status
on_anomaly(void *data, const struct fsa_anomaly *anomaly)
{
	struct fsa_report *r = data;

	if ((size_t) anomaly->kind >= FSA_ANOM_KIND_COUNT ||
	    !in_range(r, anomaly->ts_ns, anomaly->ts_ns))
		return FSA_OK;
	r->anomaly_total++;
	if (r->anomaly_counts[anomaly->kind]++ < r->options.example_count)
		g_array_append_val(r->anomaly_examples, *anomaly);
	return FSA_OK;
}

/* --- Life cycle ------------------------------------------------------------------------------- */

struct fsa_report *
fsa_report_create(const struct fsa_report_options *options)
{
	struct fsa_report *r = g_new0(struct fsa_report, 1);

	if (options)
		r->options = *options;
	if (!r->options.sections)
		r->options.sections = FSA_REPORT_ALL_SECTIONS;
	if (!r->options.longest_count)
		r->options.longest_count = 10;
	if (!r->options.example_count)
		r->options.example_count = 5;
	if (!r->options.loss_list_count)
		r->options.loss_list_count = 100;
	r->sink = (struct fsa_model_sink){
	    .data = r,
	    .op = on_op,
	    .edge = on_edge,
	    .packet = on_packet,
	    .marker = on_marker,
	    .loss = on_loss,
	    .anomaly = on_anomaly,
	};
	latency_init(&r->overall);
	quantile_init(&r->reconnect_all);
	r->queues = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, queue_free);
	r->fences = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, fence_free);
	r->processes = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, process_free);
	r->engines = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, engine_free);
	r->adapters = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	r->latest_ns = FSA_TIME_NONE;
	for (size_t i = 0; i < FSA_MARK_KIND_COUNT; i++)
		quantile_init(&r->marker_durations[i]);
	r->marker_examples = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	r->longest = g_new0(struct fsa_long_wait, r->options.longest_count);
	r->pending = g_new(struct fsa_edge, FSA_REPORT_EDGE_MEMORY);
	r->pending_index = g_new0(struct fsa_pending_slot, FSA_REPORT_EDGE_INDEX);
	r->losses = g_array_new(FALSE, FALSE, sizeof(struct fsa_loss));
	r->loss_totals = g_array_new(FALSE, FALSE, sizeof(struct fsa_loss_total));
	r->anomaly_examples = g_array_new(FALSE, FALSE, sizeof(struct fsa_anomaly));
	r->recovery = recovery_new();
	r->mmu_xad = mmu_xad_new();
	r->frame_stats = frame_stats_new(r, (r->options.sections & FSA_REPORT_CRITICAL_PATH) != 0);
	if (r->options.sections & FSA_REPORT_CRITICAL_PATH)
		r->critical_path = critical_path_new();
	if (!r->frame_stats ||
	    ((r->options.sections & FSA_REPORT_CRITICAL_PATH) && !r->critical_path)) {
		fsa_report_destroy(r);
		return NULL;
	}
	r->thresholds = g_ptr_array_new_with_free_func((GDestroyNotify) threshold_destroy);
	r->failures = g_ptr_array_new_with_free_func(g_free);
	r->threshold_messages = g_ptr_array_new_with_free_func(g_free);
	r->threshold_failed = g_array_new(FALSE, FALSE, sizeof(gboolean));
	return r;
}

void
fsa_report_destroy(struct fsa_report *r)
{
	if (!r)
		return;
	latency_fini(&r->overall);
	quantile_fini(&r->reconnect_all);
	g_hash_table_destroy(r->queues);
	g_hash_table_destroy(r->fences);
	g_hash_table_destroy(r->processes);
	g_hash_table_destroy(r->engines);
	g_hash_table_destroy(r->adapters);
	for (size_t i = 0; i < FSA_MARK_KIND_COUNT; i++)
		quantile_fini(&r->marker_durations[i]);
	g_array_free(r->marker_examples, TRUE);
	g_free(r->longest);
	g_free(r->pending);
	g_free(r->pending_index);
	g_array_free(r->losses, TRUE);
	g_array_free(r->loss_totals, TRUE);
	g_array_free(r->anomaly_examples, TRUE);
	recovery_free(r->recovery);
	mmu_xad_free(r->mmu_xad);
	frame_stats_free(r->frame_stats);
	critical_path_free(r->critical_path);
	g_ptr_array_free(r->thresholds, TRUE);
	g_ptr_array_free(r->failures, TRUE);
	g_ptr_array_free(r->threshold_messages, TRUE);
	g_array_free(r->threshold_failed, TRUE);
	g_free(r->partial_reason);
	g_free(r->trace_path);
	g_free(r);
}

const struct fsa_model_sink *
fsa_report_borrow_sink(struct fsa_report *report)
{
	return &report->sink;
}

void
fsa_report_set_model(struct fsa_report *report, const struct fsa_model *model)
{
	report->model = model;
}

fsa_status
fsa_report_add_threshold(struct fsa_report *report, const char *expression, char **error_message)
{
	struct fsa_threshold *threshold = NULL;
	fsa_status status = threshold_parse(expression, &threshold, error_message);

	if (status == FSA_OK)
		g_ptr_array_add(report->thresholds, threshold);
	return status;
}

fsa_status
fsa_report_set_partial(struct fsa_report *report, const char *reason)
{
	g_free(report->partial_reason);
	report->partial_reason =
	    g_strdup(reason ? reason : "the trace could not be read to its end");
	return FSA_OK;
}

fsa_status
fsa_report_set_trace_path(struct fsa_report *report, const char *path)
{
	g_free(report->trace_path);
	report->trace_path = g_strdup(path);
	return FSA_OK;
}

fsa_status
fsa_report_finish(struct fsa_report *report)
{
	resolve_range(report);
	recovery_finish(report);
	mmu_finish(report);
	if (!report->is_finished) {
		/* Once: the frames still held, then the paths over the frames or the waits. */
		remember(report, frame_stats_finish(report));
		if (report->critical_path)
			remember(report, critical_path_finish(report));
	}
	g_ptr_array_set_size(report->failures, 0);
	if (report->options.is_fail_on_loss && report->loss_count > 0) {
		g_ptr_array_add(report->failures,
				g_strdup_printf("--fail-on-loss: %" G_GUINT64_FORMAT
						" fence log entries lost in %" G_GUINT64_FORMAT
						" overruns, %" G_GUINT64_FORMAT
						" events and %" G_GUINT64_FORMAT
						" packets discarded by the tracer",
						report->lost_by_kind[FSA_LOSS_LOG_OVERRUN],
						report->loss_records_by_kind[FSA_LOSS_LOG_OVERRUN],
						report->lost_by_kind[FSA_LOSS_TRACER_EVENTS],
						report->lost_by_kind[FSA_LOSS_TRACER_PACKETS]));
	}
	g_ptr_array_set_size(report->threshold_messages, 0);
	g_array_set_size(report->threshold_failed, 0);
	for (size_t i = 0; i < report->thresholds->len; i++) {
		char *message = NULL;
		gboolean is_failed =
		    threshold_check(report->thresholds->pdata[i], report, &message);

		if (is_failed)
			g_ptr_array_add(report->failures, g_strdup(message));
		g_ptr_array_add(report->threshold_messages, message);
		g_array_append_val(report->threshold_failed, is_failed);
	}
	report->is_finished = true;
	return report->status;
}

size_t
fsa_report_failure_count(const struct fsa_report *report)
{
	return report->failures->len;
}

const char *
fsa_report_borrow_failure(const struct fsa_report *report, size_t index)
{
	return index < report->failures->len ? report->failures->pdata[index] : NULL;
}

fsa_status
fsa_report_write(struct fsa_report *report, enum fsa_report_format format, FILE *out)
{
	fsa_status status;

	if (!report->is_finished) {
		status = fsa_report_finish(report);
		if (status != FSA_OK)
			return status;
	}
	GPtrArray *tables = report_build_tables(report);

	switch (format) {
	case FSA_REPORT_FORMAT_JSON:
		status = report_write_json(report, tables, out);
		break;
	case FSA_REPORT_FORMAT_CSV:
		status = report_write_csv(report, tables, out);
		break;
	case FSA_REPORT_FORMAT_TEXT:
	default:
		status = report_write_text(report, tables, out);
		break;
	}
	g_ptr_array_free(tables, TRUE);
	if (status == FSA_OK && (fflush(out) != 0 || ferror(out)))
		status = FSA_ERR_IO;
	return status;
}
