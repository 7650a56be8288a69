/* SPDX-License-Identifier: MIT */
/*
 * Cross-adapter fences (format 1.5, seed 001 "Cross-adapter native fences", XAD-01..17): a fence's
 * opens on another adapter than its creator's and what it became there (XAD-10, XAD-11), the
 * propagation of each of its signals to the other adapter (XAD-07: fence_propagate, an interval
 * that the NotificationOnly update of that adapter closes, XAD-08) and those updates (instants).
 *
 * What it is not: the fence's boxes and edges (ops.c: a wait on one adapter released by a signal
 * on another is an ordinary edge of the same global fence, each side mapped through its own
 * adapter's clock fit) or its life (objects.c).
 */
#include <stdlib.h>

#include "model-private.h"

static uint64_t
propagation_key(uint64_t fence, uint32_t to_adapter, uint64_t value)
{
	return hmap_key2(fence, ((uint64_t) to_adapter << 32) ^ value);
}

fsa_status
xad_on_cross_open(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fence_state *fence = hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);

	/* The fence_open that follows reports an unknown fence (objects.c). */
	if (!fence)
		return FSA_OK;
	if (fence->info.cross_open_count == fence->cross_open_capacity) {
		uint32_t capacity = fence->cross_open_capacity ? 2 * fence->cross_open_capacity : 2;
		struct fsa_cross_open *grown =
		    realloc(fence->cross_opens, capacity * sizeof(*grown));

		if (!grown)
			return model->failed = FSA_ERR_NOMEM;
		fence->cross_opens = grown;
		fence->cross_open_capacity = capacity;
	}
	fence->cross_opens[fence->info.cross_open_count++] = (struct fsa_cross_open){
	    .ts_ns = ev->ts_ns,
	    .process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID],
	    .fence_handle = ev->u[FSA_F_FENCE_HANDLE],
	    .adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID],
	    .creator_adapter_id = (uint32_t) ev->u[FSA_F_CREATOR_ADAPTER_ID],
	    .created_as = (uint8_t) ev->u[FSA_F_CREATED_AS],
	    .opened_as = (uint8_t) ev->u[FSA_F_OPENED_AS],
	};
	fence->info.is_cross_adapter = true;
	return FSA_OK;
}

/* What the fence is on `adapter_id`: its creator's object there, or what an open made of it
 * (XAD-10, XAD-11); NATIVE when the trace does not say. */
static uint8_t
fence_object_on(const struct fence_state *fence, uint32_t adapter_id)
{
	if (fence->info.adapter_id == adapter_id)
		return fence->info.fence_object;
	for (uint32_t i = fence->info.cross_open_count; i-- > 0;)
		if (fence->cross_opens[i].adapter_id == adapter_id)
			return fence->cross_opens[i].opened_as;
	return FSTP_FENCE_OBJECT_NATIVE;
}

/*
 * XAD-07: a propagation opens an interval that the NotificationOnly update closes. To an adapter
 * where the fence is a monitored fence the OS makes no driver call and releases the waiters at
 * once (XAD-14): the propagation is an instant there.
 */
fsa_status
xad_on_propagate(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t global = ev->u[FSA_F_FENCE_GLOBAL_HANDLE];
	uint32_t from = (uint32_t) ev->u[FSA_F_FROM_ADAPTER_ID];
	uint32_t to = (uint32_t) ev->u[FSA_F_TO_ADAPTER_ID];
	uint64_t value = ev->u[FSA_F_FENCE_VALUE];
	uint64_t key = propagation_key(global, to, value);
	struct fence_state *fence = hmap_get(&model->fences, global);
	struct fsa_marker *open = hmap_get(&model->propagations, key);

	if (fence)
		fence->info.propagation_count++;
	if (open) {
		/* The same value propagated again before its notification: the first ends here. */
		hmap_remove(&model->propagations, key);
		open->end_ns = FSA_TIME_NONE;
		if (markers_emit(model, open)) {
			free(open);
			return model->failed;
		}
	} else {
		open = malloc(sizeof(*open));
		if (!open)
			return model->failed = FSA_ERR_NOMEM;
	}
	*open = markers_at(FSA_MARK_FENCE_PROPAGATION, ev->ts_ns);
	open->end_ns = FSA_TIME_NONE;
	open->adapter_id = from;
	open->code = to;
	open->other_handle = global;
	open->value = value;
	/* The signal that caused it (its log entry or km event came first, XAD-06). */
	open->value2 = ops_find_signal(model, global, value, from);
	if (fence && fence_object_on(fence, to) == FSTP_FENCE_OBJECT_MONITORED) {
		fsa_status status;

		open->end_ns = ev->ts_ns;
		open->code2 = 1; /* no driver call */
		status = markers_emit(model, open);
		free(open);
		return status;
	}
	if (!hmap_put(&model->propagations, key, open)) {
		free(open);
		return model->failed = FSA_ERR_NOMEM;
	}
	return FSA_OK;
}

/* XAD-08: UpdateCurrentValuesFromCpu with NotificationOnly writes nothing; it tells the adapter
 * that the value changed. Other updates (NFV-13) are only counted in the summary. */
fsa_status
xad_on_update_current_value(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t global = ev->u[FSA_F_FENCE_GLOBAL_HANDLE];
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint64_t value = ev->u[FSA_F_FENCE_VALUE];
	struct fence_state *fence;
	struct fsa_marker m, *open;
	fsa_status status;

	if (!ev->u[FSA_F_NOTIFICATION_ONLY])
		return FSA_OK;
	fence = hmap_get(&model->fences, global);
	if (fence)
		fence->info.notification_count++;
	m = markers_at(FSA_MARK_FENCE_NOTIFICATION, ev->ts_ns);
	m.adapter_id = adapter;
	m.other_handle = global;
	m.value = value;
	status = markers_emit(model, &m);
	if (status)
		return status;
	open = hmap_remove(&model->propagations, propagation_key(global, adapter, value));
	if (!open)
		return FSA_OK;
	open->end_ns = ev->ts_ns;
	status = markers_emit(model, open);
	free(open);
	return status;
}

fsa_status
xad_finish(struct fsa_model *model)
{
	return markers_close_all(model, &model->propagations);
}

void
xad_free(struct fsa_model *model)
{
	hmap_fini_values(&model->propagations);
}

const struct fsa_cross_open *
fsa_model_borrow_cross_open(const struct fsa_model *model, uint64_t fence_global_handle,
			    size_t index)
{
	const struct fence_state *fence = hmap_get(&model->fences, fence_global_handle);

	if (!fence || index >= fence->info.cross_open_count)
		return NULL;
	return &fence->cross_opens[index];
}
