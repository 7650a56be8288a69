/* SPDX-License-Identifier: MIT */
/*
 * Cross-adapter fences for the report (trace format 1.5, docs/report-schema.md 2.3
 * `cross_adapter`): per (fence, adapter that signalled, adapter notified), and per adapter pair,
 * the propagations (XAD-07), how many the NotificationOnly update closed (XAD-08), the edges from
 * a signal on one adapter to a wait on the other, and three latencies:
 *
 * - signal_to_release: a signal executed on adapter A (its box's end, on A's clock) → a wait on
 *   adapter B that it released (the wait's end, on B's clock), for each wait that was already
 *   waiting when the signal executed (the GPU had reached it: its observed time, else its queued
 *   time, at or before the signal's end) — the time the propagation costs a waiter;
 * - signal_to_propagate: the signal's end → the OS's fence_propagate;
 * - propagate_to_notification: fence_propagate → the NotificationOnly update on B.
 *
 * The model gives a signal's box when its GPU time can be mapped and a propagation when its
 * notification came: either may come first, so each waits for the other in a bounded memory.
 */
#include "mmu-xad-private.h"
#include "report-private.h"

const char *
xad_metric_name(enum fsa_xad_metric metric)
{
	static const char *const names[FSA_XAD_METRIC_COUNT] = {
	    [FSA_XAD_SIGNAL_TO_RELEASE] = "signal_to_release",
	    [FSA_XAD_SIGNAL_TO_PROPAGATE] = "signal_to_propagate",
	    [FSA_XAD_PROPAGATE_TO_NOTIFICATION] = "propagate_to_notification",
	};

	return (size_t) metric < FSA_XAD_METRIC_COUNT ? names[metric] : "unknown";
}

struct fsa_quantile *
xad_release_all(struct fsa_report *r)
{
	return &r->mmu_xad->release_all;
}

static struct fsa_xad_acc *
get_acc(struct fsa_mmu_xad *m, uint64_t fence, uint32_t from, uint32_t to)
{
	struct fsa_xad_acc key = {
	    .fence_global_handle = fence, .from_adapter_id = from, .to_adapter_id = to};
	struct fsa_xad_acc *acc = g_hash_table_lookup(m->xad, &key);

	if (!acc) {
		acc = g_new0(struct fsa_xad_acc, 1);
		*acc = key;
		for (int i = 0; i < FSA_XAD_METRIC_COUNT; i++)
			quantile_init(&acc->q[i]);
		g_hash_table_add(m->xad, acc);
	}
	return acc;
}

/* A sample of one metric, for the fence's row and for its adapter pair's (fence 0). */
static fsa_status
add_sample(struct fsa_mmu_xad *m, uint64_t fence, uint32_t from, uint32_t to,
	   enum fsa_xad_metric metric, uint64_t value)
{
	fsa_status status = quantile_add(&get_acc(m, fence, from, to)->q[metric], value);

	if (status == FSA_OK)
		status = quantile_add(&get_acc(m, 0, from, to)->q[metric], value);
	if (status == FSA_OK && metric == FSA_XAD_SIGNAL_TO_RELEASE)
		status = quantile_add(&m->release_all, value);
	return status;
}

/* Remembers `value` under `id` in a bounded FIFO (the oldest id is forgotten). */
static void
fifo_put(GHashTable *table, uint64_t *order, size_t *head, size_t *len, uint64_t id, gpointer value)
{
	uint64_t *key = g_new(uint64_t, 1);

	if (*len == FSA_XAD_MEMORY) {
		uint64_t oldest = order[*head];

		g_hash_table_remove(table, &oldest);
		*head = (*head + 1) % FSA_XAD_MEMORY;
		(*len)--;
	}
	*key = id;
	g_hash_table_replace(table, key, value);
	order[(*head + *len) % FSA_XAD_MEMORY] = id;
	(*len)++;
}

static fsa_status
signal_to_propagate(struct fsa_mmu_xad *m, const struct fsa_marker *propagation,
		    uint64_t signal_end_ns)
{
	/* The signal ran before the OS propagated it (XAD-06, XAD-07): a negative difference is
	 * a mapping error within the tolerance, counted as 0. */
	uint64_t value =
	    propagation->begin_ns >= signal_end_ns ? propagation->begin_ns - signal_end_ns : 0;

	return add_sample(m, propagation->other_handle, propagation->adapter_id,
			  (uint32_t) propagation->code, FSA_XAD_SIGNAL_TO_PROPAGATE, value);
}

fsa_status
xad_on_op(struct fsa_report *r, const struct fsa_op *op)
{
	struct fsa_mmu_xad *m = r->mmu_xad;
	const struct fsa_fence_info *fence;
	struct fsa_marker *waiting;

	if (op->kind == FSA_OP_WAIT) {
		m->last_wait = *op;
		m->has_last_wait = true;
		return FSA_OK;
	}
	if (op->end_ns == FSA_TIME_NONE || !r->model || !op->fence_global_handle)
		return FSA_OK;
	fence = fsa_model_find_fence(r->model, op->fence_global_handle);
	if (!fence || !fence->is_cross_adapter)
		return FSA_OK;
	waiting = g_hash_table_lookup(m->waiting, &op->id);
	if (waiting) {
		fsa_status status = signal_to_propagate(m, waiting, op->end_ns);

		/* Its FIFO slot stays: a later put finds nothing to remove there. */
		g_hash_table_remove(m->waiting, &op->id);
		return status;
	}
	fifo_put(m->signal_ends, m->signal_order, &m->signal_head, &m->signal_len, op->id,
		 g_memdup2(&(uint64_t){op->end_ns}, sizeof(uint64_t)));
	return FSA_OK;
}

fsa_status
xad_on_marker(struct fsa_report *r, const struct fsa_marker *marker)
{
	struct fsa_mmu_xad *m = r->mmu_xad;
	struct fsa_xad_acc *fence_acc, *pair_acc;
	uint32_t from = marker->adapter_id, to = (uint32_t) marker->code;
	const uint64_t *signal_end;
	fsa_status status = FSA_OK;

	if (marker->kind == FSA_MARK_FENCE_NOTIFICATION) {
		m->has_data = true;
		return FSA_OK;
	}
	if (marker->kind != FSA_MARK_FENCE_PROPAGATION)
		return FSA_OK;
	m->has_data = true;
	fence_acc = get_acc(m, marker->other_handle, from, to);
	pair_acc = get_acc(m, 0, from, to);
	fence_acc->propagations++;
	pair_acc->propagations++;
	/* code2: a propagation to an adapter where the fence is monitored, no driver call (XAD-14)
	 */
	if (marker->end_ns != FSA_TIME_NONE && !marker->code2) {
		fence_acc->notified++;
		pair_acc->notified++;
		status = add_sample(
		    m, marker->other_handle, from, to, FSA_XAD_PROPAGATE_TO_NOTIFICATION,
		    marker->end_ns >= marker->begin_ns ? marker->end_ns - marker->begin_ns : 0);
	}
	if (status != FSA_OK || !marker->value2)
		return status;
	signal_end = g_hash_table_lookup(m->signal_ends, &marker->value2);
	if (signal_end)
		return signal_to_propagate(m, marker, *signal_end);
	fifo_put(m->waiting, m->waiting_order, &m->waiting_head, &m->waiting_len, marker->value2,
		 g_memdup2(marker, sizeof(*marker)));
	return FSA_OK;
}

fsa_status
xad_on_edge(struct fsa_report *r, const struct fsa_edge *edge)
{
	struct fsa_mmu_xad *m = r->mmu_xad;
	const struct fsa_op *wait = &m->last_wait;
	uint32_t from = edge->signal_adapter_id, to = edge->wait_adapter_id;
	uint64_t reached;

	if (from == UINT32_MAX || to == UINT32_MAX || from == to)
		return FSA_OK;
	m->has_data = true;
	get_acc(m, edge->fence_global_handle, from, to)->edges++;
	get_acc(m, 0, from, to)->edges++;
	if (!m->has_last_wait || wait->id != edge->wait_op_id ||
	    edge->signal_end_ns == FSA_TIME_NONE || edge->wait_end_ns == FSA_TIME_NONE ||
	    edge->wait_end_ns < edge->signal_end_ns)
		return FSA_OK;
	/* Only a wait that was already waiting when the signal ran was released by it. */
	reached = wait->observed_ns != FSA_TIME_NONE ? wait->observed_ns : wait->queued_ns;
	if (reached == FSA_TIME_NONE || reached > edge->signal_end_ns)
		return FSA_OK;
	return add_sample(m, edge->fence_global_handle, from, to, FSA_XAD_SIGNAL_TO_RELEASE,
			  edge->wait_end_ns - edge->signal_end_ns);
}
