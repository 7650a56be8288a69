/* SPDX-License-Identifier: MIT */
/*
 * The marker timelines: doorbells (UMS-12..24) and their status words, preemption (PRE-04, PRE-09),
 * TDR and resets (TDR-01..06), suspend (SUS-01, SUS-04), power (FST-03, DST-01), lost devices
 * and failed calls (page faults and the other format 1.5 markers: memory.c, crossadapter.c); since
 * format 1.4 also TDR detection, adapter resets, contexts in error (TDR-04), flips and vsyncs
 * (PRE-13) and the fault injector's faults. A point marker goes to the sink at once; an interval is
 * kept open under its key until the event that closes it, and one still open at the end goes out
 * without an end.
 *
 * What it is not: packets (packets.c) or fence operations (ops.c); it only reads the queue
 * table (objects.c) to place a doorbell on its adapter and engine.
 */
#include <stdlib.h>

#include "model-private.h"

static uint64_t
marker_begin_of(const void *item)
{
	return ((const struct fsa_marker *) item)->begin_ns;
}

static fsa_status
emit_marker(struct fsa_model *model, const struct fsa_marker *marker)
{
	fsa_status status = FSA_OK;

	if (model->sink.marker)
		status = model->sink.marker(model->sink.data, marker);
	if (status)
		model->failed = status;
	return status;
}

static struct fsa_marker
marker_at(enum fsa_marker_kind kind, uint64_t ts)
{
	return (struct fsa_marker){
	    .kind = kind,
	    .begin_ns = ts,
	    .end_ns = ts,
	    .adapter_id = UINT32_MAX,
	    .engine_id = UINT32_MAX,
	    .process_id = UINT32_MAX,
	    .latency_ns = FSA_TIME_NONE,
	};
}

/* Opens an interval marker under `key` (an open one with the same key is closed first). */
static fsa_status
interval_open(struct fsa_model *model, struct hmap *map, uint64_t key,
	      const struct fsa_marker *marker)
{
	struct fsa_marker *open = hmap_get(map, key);

	if (open) {
		/* Opened twice without a close: the first ends where the second begins. */
		open->end_ns = marker->begin_ns;
		if (emit_marker(model, open))
			return model->failed;
	} else {
		open = malloc(sizeof(*open));
		if (!open || !hmap_put(map, key, open)) {
			free(open);
			return model->failed = FSA_ERR_NOMEM;
		}
	}
	*open = *marker;
	open->end_ns = FSA_TIME_NONE;
	return FSA_OK;
}

/* Closes the interval under `key`; returns it (to adjust, then emit) or NULL if none. */
static struct fsa_marker *
interval_take(struct hmap *map, uint64_t key, uint64_t ts)
{
	struct fsa_marker *open = hmap_remove(map, key);

	if (open)
		open->end_ns = ts;
	return open;
}

static fsa_status
interval_close(struct fsa_model *model, struct hmap *map, uint64_t key, uint64_t ts)
{
	struct fsa_marker *open = interval_take(map, key, ts);
	fsa_status status = FSA_OK;

	if (open)
		status = emit_marker(model, open);
	free(open);
	return status;
}

fsa_status
markers_on_doorbell(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_DOORBELL_RING, ev->ts_ns);
	struct queue_state *queue = NULL;
	uint64_t doorbell = ev->u[FSA_F_DOORBELL_HANDLE];

	m.process_id =
	    fsa_event_has(ev, FSA_F_PROCESS_ID) ? (uint32_t) ev->u[FSA_F_PROCESS_ID] : UINT32_MAX;
	m.hwqueue_handle = ev->u[FSA_F_HWQUEUE_HANDLE];
	m.doorbell_handle = doorbell;
	m.code = (int64_t) ev->u[FSA_F_STATUS];
	if (m.hwqueue_handle) {
		queue = queue_used(model, m.hwqueue_handle, ev->ts_ns);
		if (!queue)
			return model->failed;
		m.adapter_id = queue->info.adapter_id;
		m.engine_id = queue->info.engine_id;
	}
	switch (ev->type) {
	case FSA_EV_DOORBELL_RING:
		m.value = ev->u[FSA_F_WRITE_PTR_BYTES];
		break;
	case FSA_EV_DOORBELL_CREATE:
		m.kind = FSA_MARK_DOORBELL_CREATE;
		break;
	case FSA_EV_DOORBELL_CONNECT:
		m.kind = FSA_MARK_DOORBELL_CONNECT;
		m.value = ev->u[FSA_F_PHYSICAL_DOORBELL];
		if (queue && queue->last_disconnect_ns)
			m.latency_ns = ev->ts_ns - queue->last_disconnect_ns;
		if (m.code == FSTP_DOORBELL_STATUS_CONNECTED ||
		    m.code == FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD) {
			struct fsa_marker connected = m;

			connected.kind = FSA_MARK_DOORBELL_CONNECTED;
			connected.latency_ns = FSA_TIME_NONE;
			if (interval_open(model, &model->doorbells, doorbell, &connected))
				return model->failed;
		}
		break;
	case FSA_EV_DOORBELL_DISCONNECT:
		m.kind = FSA_MARK_DOORBELL_DISCONNECT;
		m.value = ev->u[FSA_F_PHYSICAL_DOORBELL];
		m.code = (int64_t) ev->u[FSA_F_REASON];
		if (queue)
			queue->last_disconnect_ns = ev->ts_ns;
		if (interval_close(model, &model->doorbells, doorbell, ev->ts_ns))
			return model->failed;
		break;
	case FSA_EV_DOORBELL_DESTROY:
		m.kind = FSA_MARK_DOORBELL_DESTROY;
		if (interval_close(model, &model->doorbells, doorbell, ev->ts_ns))
			return model->failed;
		break;
	default:
		return FSA_OK;
	}
	return emit_marker(model, &m);
}

/*
 * The status word's intervals (FSA_MARK_DOORBELL_STATE; UMS-08, UMS-12, UMS-14, UMS-16, UMS-23,
 * UMS-24): opened by doorbell_create with its status, moved on by every doorbell_status store
 * that changes the word, closed by doorbell_destroy. The KMD events' own status (create,
 * connect, disconnect: "after the step") moves it too, so a trace without doorbell_status
 * still has its states; in the runtime's order the store comes first and the event agrees. A
 * connect names the physical doorbell of the CONNECTED interval it follows.
 */
fsa_status
markers_on_doorbell_state(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t doorbell = ev->u[FSA_F_DOORBELL_HANDLE];
	struct fsa_marker *open = hmap_get(&model->doorbell_states, doorbell);
	struct fsa_marker m = marker_at(FSA_MARK_DOORBELL_STATE, ev->ts_ns);
	bool is_connected;

	if (ev->type == FSA_EV_DOORBELL_DESTROY)
		return interval_close(model, &model->doorbell_states, doorbell, ev->ts_ns);
	m.code =
	    (int64_t) ev->u[ev->type == FSA_EV_DOORBELL_STATUS ? FSA_F_NEW_STATUS : FSA_F_STATUS];
	is_connected = m.code == FSTP_DOORBELL_STATUS_CONNECTED ||
		       m.code == FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD;
	if (open && open->code == m.code) {
		if (ev->type == FSA_EV_DOORBELL_CONNECT && is_connected)
			open->value = ev->u[FSA_F_PHYSICAL_DOORBELL];
		return FSA_OK;
	}
	m.process_id =
	    fsa_event_has(ev, FSA_F_PROCESS_ID) ? (uint32_t) ev->u[FSA_F_PROCESS_ID] : UINT32_MAX;
	m.hwqueue_handle = ev->u[FSA_F_HWQUEUE_HANDLE];
	m.doorbell_handle = doorbell;
	m.value = ev->type == FSA_EV_DOORBELL_CONNECT && is_connected
		      ? ev->u[FSA_F_PHYSICAL_DOORBELL]
		      : UINT32_MAX;
	if (m.hwqueue_handle) {
		const struct fsa_queue_info *queue = fsa_model_find_queue(model, m.hwqueue_handle);

		if (queue) {
			m.adapter_id = queue->adapter_id;
			m.engine_id = queue->engine_id;
		}
	}
	return interval_open(model, &model->doorbell_states, doorbell, &m);
}

fsa_status
markers_on_victimize(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_DOORBELL_VICTIMIZE, ev->ts_ns);

	m.adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	m.hwqueue_handle = ev->u[FSA_F_VICTIM_HWQUEUE_HANDLE];
	m.doorbell_handle = ev->u[FSA_F_VICTIM_DOORBELL_HANDLE];
	m.other_handle = ev->u[FSA_F_CONNECTING_HWQUEUE_HANDLE];
	m.value = ev->u[FSA_F_PHYSICAL_DOORBELL];
	return emit_marker(model, &m);
}

fsa_status
markers_on_engine_event(struct fsa_model *model, const struct fsa_event *ev,
			enum fsa_marker_kind kind)
{
	struct fsa_marker m = marker_at(kind, ev->ts_ns);

	m.adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	m.engine_id =
	    fsa_event_has(ev, FSA_F_ENGINE_ID) ? (uint32_t) ev->u[FSA_F_ENGINE_ID] : UINT32_MAX;
	switch (ev->type) {
	case FSA_EV_ENGINE_RESET:
		m.code = (int64_t) ev->u[FSA_F_IS_SUCCESS];
		break;
	case FSA_EV_FENCE_LOG_RESIZE:
		m.hwqueue_handle = ev->u[FSA_F_HWQUEUE_HANDLE];
		m.value = ev->u[FSA_F_NEW_CAPACITY_ENTRIES];
		m.code = (int64_t) ev->u[FSA_F_REASON];
		break;
	default:
		break;
	}
	return emit_marker(model, &m);
}

fsa_status
markers_on_interval(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint32_t engine = (uint32_t) ev->u[FSA_F_ENGINE_ID];
	struct fsa_marker m = marker_at(FSA_MARK_PREEMPTION, ev->ts_ns);
	struct fsa_marker *open;
	fsa_status status;

	m.adapter_id = adapter;
	switch (ev->type) {
	case FSA_EV_PREEMPT_REQUEST:
		m.engine_id = engine;
		m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
		m.code = (int64_t) ev->u[FSA_F_REASON];
		m.code2 = -1; /* no boundary reached until it completes */
		return interval_open(model, &model->preemptions, ev->u[FSA_F_REQUEST_ID], &m);
	case FSA_EV_PREEMPT_COMPLETE:
		open = interval_take(&model->preemptions, ev->u[FSA_F_REQUEST_ID], ev->ts_ns);
		if (!open)
			return FSA_OK;
		open->value = ev->u[FSA_F_PACKET_ID];
		/* PRE-03, PRE-04: the boundary reached and the work left (format 1.4). */
		open->code2 = (int64_t) ev->u[FSA_F_GRANULARITY];
		open->value2 = ev->u[FSA_F_WORK_LEFT_TICKS];
		status = emit_marker(model, open);
		free(open);
		return status;
	case FSA_EV_TDR_BEGIN:
		m.kind = FSA_MARK_TDR;
		m.engine_id = engine;
		m.value = ev->u[FSA_F_REASON];
		m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE]; /* the guilty one (format 1.4) */
		return interval_open(model, &model->tdrs, ENGINE_KEY(adapter, engine), &m);
	case FSA_EV_TDR_END:
		open = interval_take(&model->tdrs, ENGINE_KEY(adapter, engine), ev->ts_ns);
		if (!open)
			return FSA_OK;
		open->code = (int64_t) ev->u[FSA_F_RESULT];
		status = emit_marker(model, open);
		free(open);
		return status;
	case FSA_EV_CONTEXT_SUSPEND:
		m.kind = FSA_MARK_CONTEXT_SUSPENDED;
		m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
		m.value = ev->u[FSA_F_HWQUEUE_COUNT];
		m.code = (int64_t) ev->u[FSA_F_REASON]; /* format 1.3 */
		return interval_open(model, &model->suspends, m.context_handle, &m);
	case FSA_EV_CONTEXT_RESUME:
		return interval_close(model, &model->suspends, ev->u[FSA_F_CONTEXT_HANDLE],
				      ev->ts_ns);
	case FSA_EV_ENGINE_POWER:
		m.kind = FSA_MARK_ENGINE_F1;
		m.engine_id = engine;
		if (ev->u[FSA_F_NEW_STATE] == FSTP_ENGINE_POWER_F1)
			return interval_open(model, &model->engine_f1, ENGINE_KEY(adapter, engine),
					     &m);
		return interval_close(model, &model->engine_f1, ENGINE_KEY(adapter, engine),
				      ev->ts_ns);
	case FSA_EV_DEVICE_POWER:
		m.kind = FSA_MARK_DEVICE_D3;
		if (ev->u[FSA_F_NEW_STATE] == FSTP_DEVICE_POWER_D3)
			return interval_open(model, &model->device_d3, adapter, &m);
		return interval_close(model, &model->device_d3, adapter, ev->ts_ns);
	default:
		return FSA_OK;
	}
}

fsa_status
markers_on_context_destroy(struct fsa_model *model, const struct fsa_event *ev)
{
	/* SUS-01, TRM-03: nothing of a destroyed context is suspended any more. */
	if (interval_close(model, &model->suspends, ev->u[FSA_F_CONTEXT_HANDLE], ev->ts_ns))
		return model->failed;
	/* TDR-04: a context stays in error until it is destroyed. */
	return interval_close(model, &model->context_errors, ev->u[FSA_F_CONTEXT_HANDLE],
			      ev->ts_ns);
}

fsa_status
markers_on_instant(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_TDR_DETECT, ev->ts_ns);

	m.adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	switch (ev->type) {
	case FSA_EV_TDR_DETECT: /* TDR-01..03 */
		m.engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID];
		m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
		m.value = ev->u[FSA_F_STALLED_NS];
		m.code = (int64_t) ev->u[FSA_F_REASON];
		break;
	case FSA_EV_ADAPTER_RESET: /* TDR-06 */
		m.kind = FSA_MARK_ADAPTER_RESET;
		m.code = (int64_t) ev->u[FSA_F_IS_SUCCESS];
		break;
	case FSA_EV_VSYNC: /* PRE-13 */
		m.kind = FSA_MARK_VSYNC;
		m.other_handle = ev->u[FSA_F_SOURCE_ID];
		m.value = ev->u[FSA_F_VSYNC_COUNT];
		m.value2 = ev->u[FSA_F_FLIP_ID];
		break;
	case FSA_EV_FAULT_INJECTED:
		m.kind = FSA_MARK_FAULT_INJECTED;
		m.engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID];
		m.hwqueue_handle = ev->u[FSA_F_HWQUEUE_HANDLE];
		m.code = (int64_t) ev->u[FSA_F_KIND];
		m.value = ev->u[FSA_F_DETAIL];
		break;
	default:
		return FSA_OK;
	}
	return emit_marker(model, &m);
}

fsa_status
markers_on_context_error(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_CONTEXT_ERROR, ev->ts_ns);
	const struct fsa_context_info *context = context_find(model, ev->u[FSA_F_CONTEXT_HANDLE]);

	/* A second context_error of a context already in error changes nothing. */
	if (hmap_get(&model->context_errors, ev->u[FSA_F_CONTEXT_HANDLE]))
		return FSA_OK;
	m.adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
	m.other_handle = ev->u[FSA_F_DEVICE_HANDLE];
	m.code = (int64_t) ev->u[FSA_F_REASON];
	if (context)
		m.engine_id = context->engine_id;
	return interval_open(model, &model->context_errors, m.context_handle, &m);
}

struct irq_raise {
	uint64_t ts_ns;
	uint64_t hwqueue_handle;
};

/* The raises of one (adapter, engine, type) not handled yet, oldest first. */
struct irq_stack {
	uint32_t adapter_id, engine_id;
	uint8_t type;
	struct irq_raise *raises;
	size_t count, capacity;
};

static uint64_t
irq_key(const struct fsa_event *ev)
{
	uint64_t key = ((uint64_t) (uint32_t) ev->u[FSA_F_ADAPTER_ID] << 40) ^
		       ((uint64_t) (uint32_t) ev->u[FSA_F_ENGINE_ID] << 8) ^
		       (uint8_t) ev->u[FSA_F_TYPE];

	return hmap_key2(key, ev->u[FSA_F_HWQUEUE_HANDLE]);
}

/*
 * An interrupt_handled goes with the latest raise of its adapter, engine, type and queue
 * (hwqueue_handle, 0 for the NULL forms) not yet handled. The line delivers in order and at once
 * unless a fault holds an interrupt back: a dropped interrupt then stays unhandled at its own time,
 * where FIFO matching would pair every later handled event with the raise before it and leave the
 * last raise of the trace unhandled instead. An interrupt delayed on the line holds the later ones
 * back with it, so it still ends FSA_INTERRUPT_LATE_NS or more after its raise.
 */
fsa_status
markers_on_interrupt(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t key = irq_key(ev);
	struct irq_stack *stack = hmap_get(&model->interrupts, key);
	struct irq_raise raise;
	struct fsa_marker m;

	if (ev->type == FSA_EV_INTERRUPT_RAISE) {
		if (!stack) {
			stack = calloc(1, sizeof(*stack));
			if (!stack || !hmap_put(&model->interrupts, key, stack)) {
				free(stack);
				return model->failed = FSA_ERR_NOMEM;
			}
			stack->adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
			stack->engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID];
			stack->type = (uint8_t) ev->u[FSA_F_TYPE];
		}
		if (stack->count == stack->capacity) {
			size_t capacity = stack->capacity ? 2 * stack->capacity : 4;
			struct irq_raise *raises =
			    realloc(stack->raises, capacity * sizeof(*raises));

			if (!raises)
				return model->failed = FSA_ERR_NOMEM;
			stack->raises = raises;
			stack->capacity = capacity;
		}
		stack->raises[stack->count++] =
		    (struct irq_raise){ev->ts_ns, ev->u[FSA_F_HWQUEUE_HANDLE]};
		return FSA_OK;
	}
	if (!stack || !stack->count)
		return FSA_OK; /* its raise is not in the trace */
	raise = stack->raises[--stack->count];
	if (ev->ts_ns < raise.ts_ns || ev->ts_ns - raise.ts_ns < FSA_INTERRUPT_LATE_NS)
		return FSA_OK;
	m = marker_at(FSA_MARK_INTERRUPT_LATE, raise.ts_ns);
	m.end_ns = ev->ts_ns;
	m.adapter_id = stack->adapter_id;
	m.engine_id = stack->engine_id;
	m.hwqueue_handle = raise.hwqueue_handle;
	m.code = stack->type;
	return emit_marker(model, &m);
}

static uint64_t
unhandled_begin_of(const void *item)
{
	return ((const struct fsa_marker *) item)->begin_ns;
}

/* Every raise still waiting at the end was never handled: by raise time. */
static fsa_status
flush_unhandled_interrupts(struct fsa_model *model)
{
	struct irq_stack **stacks;
	struct fsa_marker **all = NULL;
	size_t stack_count, count = 0, n = 0;
	fsa_status status = FSA_OK;

	if (!hmap_take_values(&model->interrupts, (void ***) &stacks, &stack_count))
		return model->failed = FSA_ERR_NOMEM;
	for (size_t i = 0; i < stack_count; i++)
		count += stacks[i]->count;
	if (count && !(all = calloc(count, sizeof(*all))))
		status = model->failed = FSA_ERR_NOMEM;
	for (size_t i = 0; i < stack_count && !status; i++) {
		for (size_t r = 0; r < stacks[i]->count && !status; r++) {
			struct fsa_marker *m = malloc(sizeof(*m));

			if (!m) {
				status = model->failed = FSA_ERR_NOMEM;
				break;
			}
			*m = marker_at(FSA_MARK_INTERRUPT_UNHANDLED, stacks[i]->raises[r].ts_ns);
			m->adapter_id = stacks[i]->adapter_id;
			m->engine_id = stacks[i]->engine_id;
			m->hwqueue_handle = stacks[i]->raises[r].hwqueue_handle;
			m->code = stacks[i]->type;
			all[n++] = m;
		}
	}
	if (!status && !sort_by_time((void **) all, n, unhandled_begin_of))
		status = model->failed = FSA_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!status)
			status = emit_marker(model, all[i]);
		free(all[i]);
	}
	free(all);
	for (size_t i = 0; i < stack_count; i++) {
		free(stacks[i]->raises);
		free(stacks[i]);
	}
	free(stacks);
	return status;
}

static void
free_interrupts(struct fsa_model *model)
{
	struct irq_stack **stacks;
	size_t count;

	if (!hmap_take_values(&model->interrupts, (void ***) &stacks, &count)) {
		hmap_fini(&model->interrupts);
		return;
	}
	for (size_t i = 0; i < count; i++) {
		free(stacks[i]->raises);
		free(stacks[i]);
	}
	free(stacks);
	hmap_fini(&model->interrupts);
}

fsa_status
markers_on_flip(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint64_t key = hmap_key2(adapter, ev->u[FSA_F_FLIP_ID]);
	struct fsa_marker m = marker_at(FSA_MARK_FLIP, ev->ts_ns);
	struct fsa_marker *open;
	fsa_status status;

	if (ev->type == FSA_EV_FLIP_QUEUED) {
		m.adapter_id = adapter;
		m.other_handle = ev->u[FSA_F_SOURCE_ID];
		m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
		m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
		m.value = ev->u[FSA_F_FLIP_ID];
		return interval_open(model, &model->flips, key, &m);
	}
	open = interval_take(&model->flips, key, ev->ts_ns);
	if (!open)
		return FSA_OK; /* its flip_queued is not in the trace */
	open->value2 = ev->u[FSA_F_VSYNC_COUNT];
	status = emit_marker(model, open);
	free(open);
	return status;
}

fsa_status
markers_on_device_lost(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_DEVICE_LOST, ev->ts_ns);

	m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	m.other_handle = ev->u[FSA_F_DEVICE_HANDLE];
	m.code = (int64_t) ev->u[FSA_F_REASON];
	return emit_marker(model, &m);
}

fsa_status
markers_on_call_failed(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_CALL_FAILED, ev->ts_ns);

	m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	m.value = ev->u[FSA_F_HANDLE];
	m.code = (int64_t) ev->u[FSA_F_STATUS];
	return emit_marker(model, &m);
}

static fsa_status
close_open_intervals(struct fsa_model *model, struct hmap *map)
{
	struct fsa_marker **all;
	size_t count;
	fsa_status status = FSA_OK;

	if (!hmap_take_values(map, (void ***) &all, &count))
		return model->failed = FSA_ERR_NOMEM;
	/* Deterministic output: by start time. */
	if (!sort_by_time((void **) all, count, marker_begin_of))
		status = model->failed = FSA_ERR_NOMEM;
	for (size_t i = 0; i < count; i++) {
		if (!status)
			status = emit_marker(model, all[i]); /* end_ns stays FSA_TIME_NONE */
		free(all[i]);
	}
	free(all);
	return status;
}

fsa_status
markers_finish(struct fsa_model *model)
{
	fsa_status status = close_open_intervals(model, &model->preemptions);

	if (!status)
		status = close_open_intervals(model, &model->tdrs);
	if (!status)
		status = close_open_intervals(model, &model->suspends);
	if (!status)
		status = close_open_intervals(model, &model->engine_f1);
	if (!status)
		status = close_open_intervals(model, &model->device_d3);
	if (!status)
		status = close_open_intervals(model, &model->doorbells);
	if (!status)
		status = close_open_intervals(model, &model->doorbell_states);
	if (!status)
		status = close_open_intervals(model, &model->context_errors);
	if (!status)
		status = close_open_intervals(model, &model->flips);
	if (!status)
		status = flush_unhandled_interrupts(model);
	return status;
}

void
markers_free(struct fsa_model *model)
{
	hmap_fini_values(&model->preemptions);
	hmap_fini_values(&model->tdrs);
	hmap_fini_values(&model->suspends);
	hmap_fini_values(&model->engine_f1);
	hmap_fini_values(&model->device_d3);
	hmap_fini_values(&model->doorbells);
	hmap_fini_values(&model->doorbell_states);
	hmap_fini_values(&model->context_errors);
	hmap_fini_values(&model->flips);
	free_interrupts(model);
}

fsa_status
markers_emit(struct fsa_model *model, const struct fsa_marker *marker)
{
	return emit_marker(model, marker);
}

struct fsa_marker
markers_at(enum fsa_marker_kind kind, uint64_t ts)
{
	return marker_at(kind, ts);
}

fsa_status
markers_close_all(struct fsa_model *model, struct hmap *map)
{
	return close_open_intervals(model, map);
}
