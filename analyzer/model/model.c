/* SPDX-License-Identifier: MIT */
/*
 * The model's front: takes normalized events in trace order, keeps the objects they name
 * (processes, queues, fences, adapters' clocks), and dispatches. Fence operation boxes live in
 * ops.c and GPU time in clock-fit.c; this file also rebuilds packets per engine (queued → start
 * → end, preempted pieces linked by resubmission_of) and the marker timelines: doorbells
 * (UMS-12..24), preemption (PRE-04, PRE-09), TDR and resets (TDR-01..06), suspend (SUS-01,
 * SUS-04), power (FST-03, DST-01), page faults (MMU-14).
 *
 * It never fails on what a trace says: a malformed or inconsistent trace becomes anomalies.
 * Only out of memory, a sink's refusal and a newer format major version stop it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

#define ENGINE_KEY(adapter, engine) (((uint64_t) (adapter) << 32) | (uint32_t) (engine))

static bool
list_push(void ***list, size_t *count, size_t *capacity, void *item)
{
	if (*count == *capacity) {
		size_t n = *capacity ? *capacity * 2 : 16;
		void **grown = realloc(*list, n * sizeof(**list));

		if (!grown)
			return false;
		*list = grown;
		*capacity = n;
	}
	(*list)[(*count)++] = item;
	return true;
}

struct timed_item {
	uint64_t ns;
	size_t order;
	void *item;
};

static int
compare_timed(const void *a, const void *b)
{
	const struct timed_item *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

bool
fsa_model_sort_by_time(void **items, size_t count, uint64_t (*time_of)(const void *item))
{
	struct timed_item *timed;

	if (count < 2)
		return true;
	timed = malloc(count * sizeof(*timed));
	if (!timed)
		return false;
	for (size_t i = 0; i < count; i++)
		timed[i] =
		    (struct timed_item){.ns = time_of(items[i]), .order = i, .item = items[i]};
	qsort(timed, count, sizeof(*timed), compare_timed);
	for (size_t i = 0; i < count; i++)
		items[i] = timed[i].item;
	free(timed);
	return true;
}

static uint64_t
marker_begin_of(const void *item)
{
	return ((const struct fsa_marker *) item)->begin_ns;
}

static uint64_t
packet_start_of(const void *item)
{
	return ((const struct packet_rec *) item)->packet.start_ns;
}

struct fsa_model *
fsa_model_create(const struct fsa_model_sink *sink)
{
	struct fsa_model *model = calloc(1, sizeof(*model));

	if (!model)
		return NULL;
	if (sink)
		model->sink = *sink;
	model->summary.first_ns = FSA_TIME_NONE;
	model->summary.last_ns = FSA_TIME_NONE;
	model->summary.runtime_version = "";
	return model;
}

static void
free_markers(struct fsa_hmap *map)
{
	uint64_t key;
	void *value;

	for (size_t i = 0; fsa_hmap_next(map, &i, &key, &value);)
		free(value);
	fsa_hmap_fini(map);
}

void
fsa_model_destroy(struct fsa_model *model)
{
	if (!model)
		return;
	fsa_ops_free(model);
	for (size_t i = 0; i < model->process_count; i++) {
		fsa_hmap_fini(&model->process_list[i]->locals);
		fsa_hmap_fini(&model->process_list[i]->closed);
		free(model->process_list[i]->name);
		free(model->process_list[i]);
	}
	free(model->process_list);
	fsa_hmap_fini(&model->processes);
	for (size_t i = 0; i < model->queue_count; i++) {
		fsa_hmap_fini(&model->queue_list[i]->ring_writes);
		free(model->queue_list[i]);
	}
	free(model->queue_list);
	fsa_hmap_fini(&model->queues);
	for (size_t i = 0; i < model->fence_count; i++) {
		free(model->fence_list[i]->history);
		free(model->fence_list[i]);
	}
	free(model->fence_list);
	fsa_hmap_fini(&model->fences);
	for (size_t i = 0; i < model->clock_count; i++)
		free(model->clocks[i].pairs);
	free(model->clocks);
	fsa_hmap_fini(&model->engine_types);
	fsa_hmap_fini(&model->context_engines);
	while (model->pending_packets_head) {
		struct packet_rec *rec = model->pending_packets_head;

		model->pending_packets_head = rec->next;
		free(rec);
	}
	free_markers(&model->packets);
	free_markers(&model->packet_queued);
	fsa_hmap_fini(&model->km_packets);
	free_markers(&model->preemptions);
	free_markers(&model->tdrs);
	free_markers(&model->suspends);
	free_markers(&model->engine_f1);
	free_markers(&model->device_d3);
	free_markers(&model->doorbells);
	fsa_hmap_fini(&model->scan_values);
	free(model);
}

fsa_status
fsa_model_emit_anomaly(struct fsa_model *model, struct fsa_anomaly *anomaly)
{
	fsa_status status = FSA_OK;

	model->summary.anomaly_counts[anomaly->kind]++;
	if (model->sink.anomaly)
		status = model->sink.anomaly(model->sink.data, anomaly);
	if (status)
		model->failed = status;
	return status;
}

fsa_status
fsa_model_emit_loss(struct fsa_model *model, const struct fsa_loss *loss)
{
	fsa_status status = FSA_OK;

	if (model->sink.loss)
		status = model->sink.loss(model->sink.data, loss);
	if (status)
		model->failed = status;
	return status;
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
interval_open(struct fsa_model *model, struct fsa_hmap *map, uint64_t key,
	      const struct fsa_marker *marker)
{
	struct fsa_marker *open = fsa_hmap_get(map, key);

	if (open) {
		/* Opened twice without a close: the first ends where the second begins. */
		open->end_ns = marker->begin_ns;
		if (emit_marker(model, open))
			return model->failed;
	} else {
		open = malloc(sizeof(*open));
		if (!open || !fsa_hmap_put(map, key, open)) {
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
interval_take(struct fsa_hmap *map, uint64_t key, uint64_t ts)
{
	struct fsa_marker *open = fsa_hmap_remove(map, key);

	if (open)
		open->end_ns = ts;
	return open;
}

static fsa_status
interval_close(struct fsa_model *model, struct fsa_hmap *map, uint64_t key, uint64_t ts)
{
	struct fsa_marker *open = interval_take(map, key, ts);
	fsa_status status = FSA_OK;

	if (open)
		status = emit_marker(model, open);
	free(open);
	return status;
}

static struct process_state *
process_get(struct fsa_model *model, uint32_t process_id, uint64_t ts)
{
	struct process_state *process = fsa_hmap_get(&model->processes, process_id);

	if (process)
		return process;
	process = calloc(1, sizeof(*process));
	if (!process || !fsa_hmap_put(&model->processes, process_id, process) ||
	    !list_push((void ***) &model->process_list, &model->process_count,
		       &model->process_capacity, process)) {
		if (process)
			fsa_hmap_remove(&model->processes, process_id);
		free(process);
		model->failed = FSA_ERR_NOMEM;
		return NULL;
	}
	process->info.process_id = process_id;
	process->info.name = "";
	process->info.created_ns = ts;
	process->info.terminated_ns = FSA_TIME_NONE;
	return process;
}

struct queue_state *
fsa_model_queue_get(struct fsa_model *model, uint64_t handle, uint64_t ts)
{
	struct queue_state *queue = fsa_hmap_get(&model->queues, handle);

	if (queue)
		return queue;
	queue = calloc(1, sizeof(*queue));
	if (!queue || !fsa_hmap_put(&model->queues, handle, queue) ||
	    !list_push((void ***) &model->queue_list, &model->queue_count, &model->queue_capacity,
		       queue)) {
		if (queue)
			fsa_hmap_remove(&model->queues, handle);
		free(queue);
		model->failed = FSA_ERR_NOMEM;
		return NULL;
	}
	queue->info.hwqueue_handle = handle;
	queue->info.adapter_id = 0;
	queue->info.engine_id = UINT32_MAX;
	queue->info.engine_type = UINT8_MAX;
	queue->info.created_ns = ts;
	queue->info.destroyed_ns = FSA_TIME_NONE;
	/* A queue the trace never created (its creation was lost or came before the trace):
	 * user-mode is the only kind that has fence log entries, so assume it until told. */
	queue->info.is_user_mode = true;
	return queue;
}

/* A queue named before (or without) its hwqueue_create is reported once. */
struct queue_state *
fsa_model_queue_used(struct fsa_model *model, uint64_t handle, uint64_t ts)
{
	struct queue_state *queue = fsa_hmap_get(&model->queues, handle);

	if (queue)
		return queue;
	queue = fsa_model_queue_get(model, handle, ts);
	if (queue) {
		struct fsa_anomaly anomaly = {
		    .kind = FSA_ANOM_UNKNOWN_QUEUE, .ts_ns = ts, .hwqueue_handle = handle};

		if (fsa_model_emit_anomaly(model, &anomaly))
			return NULL;
	}
	return queue;
}

struct fence_state *
fsa_model_fence_of(struct fsa_model *model, uint32_t process_id, uint64_t fence_handle, uint64_t ts,
		   bool *is_closed)
{
	struct process_state *process = fsa_hmap_get(&model->processes, process_id);
	struct fence_state *fence = process ? fsa_hmap_get(&process->locals, fence_handle) : NULL;

	(void) ts;
	*is_closed = false;
	if (fence)
		return fence;
	if (process && (fence = fsa_hmap_get(&process->closed, fence_handle))) {
		*is_closed = true;
		return fence;
	}
	/* The OS's own waits on a queue's progress fence name its global handle (trace-format). */
	return fsa_hmap_get(&model->fences, fence_handle);
}

static fsa_status
on_trace_info(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_summary *sum = &model->summary;

	sum->has_trace_info = true;
	sum->format_major = (uint32_t) ev->u[FSA_F_FORMAT_MAJOR];
	sum->format_minor = (uint32_t) ev->u[FSA_F_FORMAT_MINOR];
	sum->clock_mode = (uint8_t) ev->u[FSA_F_CLOCK_MODE];
	/* A reader accepts every minor version of the major it knows, never a newer major. */
	if (sum->format_major > FSTP_FORMAT_MAJOR)
		return model->failed = FSA_ERR_FORMAT_VERSION;
	return FSA_OK;
}

static fsa_status
on_process_create(struct fsa_model *model, const struct fsa_event *ev)
{
	struct process_state *process =
	    process_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], ev->ts_ns);
	const char *name = ev->s[FSA_S_NAME] ? ev->s[FSA_S_NAME] : "";

	if (!process)
		return model->failed;
	process->info.created_ns = ev->ts_ns;
	free(process->name);
	process->name = strdup(name);
	if (!process->name)
		return model->failed = FSA_ERR_NOMEM;
	process->info.name = process->name;
	return FSA_OK;
}

static fsa_status
on_hwqueue_create(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue =
	    fsa_model_queue_get(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
	uintptr_t engine_type;
	struct fence_state *progress;

	if (!queue)
		return model->failed;
	queue->is_known = true;
	queue->info.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	queue->info.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
	queue->info.engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID];
	queue->info.is_user_mode = ev->u[FSA_F_SUBMISSION_MODE] == FSTP_SUBMISSION_MODE_USER_MODE;
	queue->info.ring_size_bytes = (uint32_t) ev->u[FSA_F_RING_SIZE_BYTES];
	queue->info.progress_fence_handle = ev->u[FSA_F_PROGRESS_FENCE_HANDLE];
	queue->info.created_ns = ev->ts_ns;
	/* hwqueue_create has no adapter: the context's device knows it. */
	queue->info.adapter_id = (uint32_t) (uintptr_t) fsa_hmap_get(&model->context_engines,
								     ~ev->u[FSA_F_CONTEXT_HANDLE]);
	if (queue->info.adapter_id)
		queue->info.adapter_id--;
	engine_type = (uintptr_t) fsa_hmap_get(
	    &model->engine_types, ENGINE_KEY(queue->info.adapter_id, queue->info.engine_id));
	queue->info.engine_type = engine_type ? (uint8_t) (engine_type - 1) : UINT8_MAX;
	progress = fsa_hmap_get(&model->fences, queue->info.progress_fence_handle);
	if (!progress && queue->info.progress_fence_handle) {
		/* HPF-01: the progress fence has no fence_create of its own; it starts at 0. */
		progress = calloc(1, sizeof(*progress));
		if (!progress ||
		    !fsa_hmap_put(&model->fences, queue->info.progress_fence_handle, progress) ||
		    !list_push((void ***) &model->fence_list, &model->fence_count,
			       &model->fence_capacity, progress)) {
			if (progress)
				fsa_hmap_remove(&model->fences, queue->info.progress_fence_handle);
			free(progress);
			return model->failed = FSA_ERR_NOMEM;
		}
		progress->info = (struct fsa_fence_info){
		    .fence_global_handle = queue->info.progress_fence_handle,
		    .adapter_id = queue->info.adapter_id,
		    .creator_process_id = queue->info.process_id,
		    .created_ns = ev->ts_ns,
		    .destroyed_ns = FSA_TIME_NONE,
		};
	}
	if (progress)
		progress->info.is_progress_fence = true;
	return FSA_OK;
}

static fsa_status
on_fence_create(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t global = ev->u[FSA_F_FENCE_GLOBAL_HANDLE];
	struct fence_state *fence = fsa_hmap_get(&model->fences, global);
	struct process_state *process =
	    process_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], ev->ts_ns);

	if (!process)
		return model->failed;
	if (!fence) {
		fence = calloc(1, sizeof(*fence));
		if (!fence || !fsa_hmap_put(&model->fences, global, fence) ||
		    !list_push((void ***) &model->fence_list, &model->fence_count,
			       &model->fence_capacity, fence)) {
			if (fence)
				fsa_hmap_remove(&model->fences, global);
			free(fence);
			return model->failed = FSA_ERR_NOMEM;
		}
	}
	fence->info = (struct fsa_fence_info){
	    .fence_global_handle = global,
	    .adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID],
	    .creator_process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID],
	    .creator_fence_handle = ev->u[FSA_F_FENCE_HANDLE],
	    .fence_type = (uint8_t) ev->u[FSA_F_FENCE_TYPE],
	    .is_shared = ev->u[FSA_F_IS_SHARED] != 0,
	    .is_cross_adapter = ev->u[FSA_F_IS_CROSS_ADAPTER] != 0,
	    .initial_value = ev->u[FSA_F_INITIAL_VALUE],
	    .last_value = ev->u[FSA_F_INITIAL_VALUE],
	    .final_value = ev->u[FSA_F_INITIAL_VALUE],
	    .created_ns = ev->ts_ns,
	    .destroyed_ns = FSA_TIME_NONE,
	};
	for (size_t i = 0; i < model->queue_count; i++)
		if (model->queue_list[i]->info.progress_fence_handle == global)
			fence->info.is_progress_fence = true;
	fsa_hmap_remove(&process->closed, ev->u[FSA_F_FENCE_HANDLE]);
	if (!fsa_hmap_put(&process->locals, ev->u[FSA_F_FENCE_HANDLE], fence))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

static fsa_status
on_fence_handle(struct fsa_model *model, const struct fsa_event *ev, bool is_open)
{
	struct process_state *process =
	    process_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], ev->ts_ns);
	struct fence_state *fence = fsa_hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);
	uint64_t local = ev->u[FSA_F_FENCE_HANDLE];

	if (!process)
		return model->failed;
	if (!fence) {
		struct fsa_anomaly anomaly = {
		    .kind = FSA_ANOM_UNKNOWN_FENCE,
		    .ts_ns = ev->ts_ns,
		    .process_id = process->info.process_id,
		    .fence_handle = local,
		    .fence_global_handle = ev->u[FSA_F_FENCE_GLOBAL_HANDLE],
		};

		return fsa_model_emit_anomaly(model, &anomaly);
	}
	if (is_open) {
		fsa_hmap_remove(&process->closed, local);
		if (!fsa_hmap_put(&process->locals, local, fence))
			return model->failed = FSA_ERR_NOMEM;
	} else {
		fsa_hmap_remove(&process->locals, local);
		if (!fsa_hmap_put(&process->closed, local, fence))
			return model->failed = FSA_ERR_NOMEM;
	}
	return FSA_OK;
}

static fsa_status
on_fence_destroy(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fence_state *fence = fsa_hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);

	if (!fence)
		return FSA_OK;
	fence->is_destroyed = true;
	fence->info.destroyed_ns = ev->ts_ns;
	fence->info.final_value = ev->u[FSA_F_FINAL_VALUE];
	if (fence->info.final_value > fence->info.last_value)
		fence->info.last_value = fence->info.final_value;
	return FSA_OK;
}

/* ---- packets ---- */

struct packet_queued_info {
	uint64_t queued_ns;
	uint64_t resubmission_of;
	bool is_paging;
};

/* Ended packets wait here, in the order they ended, for their GPU times to be mapped. */
static void
pending_packet_append(struct fsa_model *model, struct packet_rec *rec)
{
	rec->prev = model->pending_packets_tail;
	rec->next = NULL;
	if (model->pending_packets_tail)
		model->pending_packets_tail->next = rec;
	else
		model->pending_packets_head = rec;
	model->pending_packets_tail = rec;
}

/*
 * A packet cannot start before it was queued nor end before it started. Mapped GPU times within
 * the tolerance of that are moved and counted; further off they stay and are reported
 * (docs/analyzer.md "Tolerance").
 */
static fsa_status
keep_packet_causal(struct fsa_model *model, struct fsa_packet *packet)
{
	uint64_t queued = packet->queued_ns;

	if (queued != FSA_TIME_NONE && packet->start_ns != FSA_TIME_NONE &&
	    packet->start_ns < queued) {
		if (queued - packet->start_ns > FSA_CLOCK_TOLERANCE_NS) {
			struct fsa_anomaly anomaly = {
			    .kind = FSA_ANOM_END_BEFORE_QUEUED,
			    .ts_ns = packet->start_ns,
			    .hwqueue_handle = packet->hwqueue_handle,
			    .a = queued,
			    .b = packet->start_ns,
			};

			return fsa_model_emit_anomaly(model, &anomaly);
		}
		packet->start_ns = queued;
		model->summary.clamped_times++;
	}
	if (packet->start_ns != FSA_TIME_NONE && packet->end_ns != FSA_TIME_NONE &&
	    packet->end_ns < packet->start_ns &&
	    packet->start_ns - packet->end_ns <= FSA_CLOCK_TOLERANCE_NS) {
		packet->end_ns = packet->start_ns;
		model->summary.clamped_times++;
	}
	return FSA_OK;
}

/* HPF-02: the queue's progress fence reached the progress value of a buffer that completed. */
static fsa_status
step_progress(struct fsa_model *model, struct queue_state *queue, uint64_t value, uint64_t ts,
	      uint64_t packet_id)
{
	struct fence_state *fence = fsa_hmap_get(&model->fences, queue->info.progress_fence_handle);
	struct fsa_fence_value step = {
	    .fence_global_handle = queue->info.progress_fence_handle,
	    .value = value,
	    .ts_ns = ts,
	    .hwqueue_handle = queue->info.hwqueue_handle,
	    .packet_id = packet_id,
	};

	if (!fence || value <= queue->progress_stepped || ts == FSA_TIME_NONE)
		return FSA_OK;
	queue->progress_stepped = value;
	if (value > fence->info.last_value)
		fence->info.last_value = value;
	return model->sink.fence_value ? model->sink.fence_value(model->sink.data, &step) : FSA_OK;
}

static fsa_status
emit_packet(struct fsa_model *model, struct packet_rec *rec, bool is_final)
{
	struct clock_state *clock = fsa_clock_get(model, rec->packet.adapter_id, false);
	uint64_t latest = rec->packet.end_gpu_ts > rec->packet.start_gpu_ts
			      ? rec->packet.end_gpu_ts
			      : rec->packet.start_gpu_ts;
	fsa_status status = FSA_OK;

	/* Until mapped, end_ns is the trace time of the packet_end event. */
	if (!is_final && !fsa_clock_is_final(clock, latest) &&
	    !fsa_clock_has_waited(rec->packet.end_ns, model->last_ts))
		return FSA_OK;
	/* Without any pair (none in the trace, or a sim run on a real clock), a packet stays at the
	 * trace times of its packet_start and packet_end events instead of FSA_TIME_NONE. */
	if (rec->packet.start_gpu_ts && clock && clock->pair_count)
		rec->packet.start_ns = fsa_clock_map(clock, rec->packet.start_gpu_ts);
	if (rec->packet.end_gpu_ts && clock && clock->pair_count)
		rec->packet.end_ns = fsa_clock_map(clock, rec->packet.end_gpu_ts);
	status = keep_packet_causal(model, &rec->packet);
	if (rec->prev)
		rec->prev->next = rec->next;
	else
		model->pending_packets_head = rec->next;
	if (rec->next)
		rec->next->prev = rec->prev;
	else
		model->pending_packets_tail = rec->prev;
	model->summary.packet_count++;
	{
		struct queue_state *queue =
		    fsa_hmap_get(&model->queues, rec->packet.hwqueue_handle);

		if (queue)
			queue->info.packet_count++;
		if (!status && queue && queue->info.is_user_mode &&
		    rec->packet.status == FSA_PACKET_COMPLETED)
			status = step_progress(model, queue, rec->packet.progress_value,
					       rec->packet.end_ns, rec->packet.packet_id);
	}
	if (!status && model->sink.packet)
		status = model->sink.packet(model->sink.data, &rec->packet);
	free(rec);
	if (status)
		model->failed = status;
	return status;
}

static fsa_status
flush_packets(struct fsa_model *model, bool is_final)
{
	for (struct packet_rec *rec = model->pending_packets_head, *next; rec; rec = next) {
		next = rec->next;
		if (emit_packet(model, rec, is_final))
			return model->failed;
	}
	return FSA_OK;
}

static fsa_status
on_packet_queued(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t key = fsa_hmap_key2(ev->u[FSA_F_ADAPTER_ID], ev->u[FSA_F_PACKET_ID]);
	struct packet_queued_info *info = fsa_hmap_get(&model->packet_queued, key);
	uintptr_t submitted =
	    (uintptr_t) fsa_hmap_remove(&model->km_packets, ev->u[FSA_F_PACKET_ID]);

	if (!info) {
		info = malloc(sizeof(*info));
		if (!info || !fsa_hmap_put(&model->packet_queued, key, info)) {
			free(info);
			return model->failed = FSA_ERR_NOMEM;
		}
	}
	/* The box opens at SubmitCommand when there was one, else when the scheduler queued it. */
	info->queued_ns = submitted ? (uint64_t) submitted - 1 : ev->ts_ns;
	info->resubmission_of = ev->u[FSA_F_RESUBMISSION_OF];
	info->is_paging = ev->u[FSA_F_IS_PAGING] != 0;
	return FSA_OK;
}

static fsa_status
on_packet_start(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint64_t key = fsa_hmap_key2(adapter, ev->u[FSA_F_PACKET_ID]);
	struct queue_state *queue =
	    fsa_model_queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
	struct packet_queued_info *info = fsa_hmap_remove(&model->packet_queued, key);
	struct packet_rec *rec = calloc(1, sizeof(*rec)), *old;

	if (!queue || !rec) {
		free(rec);
		free(info);
		return model->failed ? model->failed : (model->failed = FSA_ERR_NOMEM);
	}
	rec->packet = (struct fsa_packet){
	    .adapter_id = adapter,
	    .engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID],
	    .hwqueue_handle = ev->u[FSA_F_HWQUEUE_HANDLE],
	    .packet_id = ev->u[FSA_F_PACKET_ID],
	    .progress_value = ev->u[FSA_F_PROGRESS_VALUE],
	    .is_user_mode = queue->info.is_user_mode,
	    .queued_ns = FSA_TIME_NONE,
	    .start_ns = ev->ts_ns,
	    .end_ns = FSA_TIME_NONE,
	    .start_gpu_ts = ev->u[FSA_F_GPU_TS],
	    .status = FSA_PACKET_NEVER_ENDED,
	};
	if (info) {
		rec->packet.queued_ns = info->queued_ns;
		rec->packet.resubmission_of = info->resubmission_of;
		rec->packet.is_paging = info->is_paging;
		free(info);
	} else if (queue->info.is_user_mode) {
		uintptr_t written =
		    (uintptr_t) fsa_hmap_remove(&queue->ring_writes, rec->packet.progress_value);

		if (written)
			rec->packet.queued_ns = (uint64_t) written - 1;
	} else {
		uintptr_t submitted =
		    (uintptr_t) fsa_hmap_remove(&model->km_packets, rec->packet.packet_id);

		if (submitted)
			rec->packet.queued_ns = (uint64_t) submitted - 1;
	}
	old = fsa_hmap_get(&model->packets, key);
	if (!fsa_hmap_put(&model->packets, key, rec)) {
		free(rec);
		return model->failed = FSA_ERR_NOMEM;
	}
	free(old); /* started twice without an end: the end was lost */
	return FSA_OK;
}

static fsa_status
on_packet_end(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint64_t key = fsa_hmap_key2(adapter, ev->u[FSA_F_PACKET_ID]);
	struct packet_rec *rec = fsa_hmap_remove(&model->packets, key);
	struct queue_state *queue =
	    fsa_model_queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);

	if (!queue)
		return model->failed;
	if (!rec) {
		rec = calloc(1, sizeof(*rec));
		if (!rec)
			return model->failed = FSA_ERR_NOMEM;
		rec->packet = (struct fsa_packet){
		    .adapter_id = adapter,
		    .engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID],
		    .hwqueue_handle = ev->u[FSA_F_HWQUEUE_HANDLE],
		    .packet_id = ev->u[FSA_F_PACKET_ID],
		    .progress_value = ev->u[FSA_F_PROGRESS_VALUE],
		    .is_user_mode = queue->info.is_user_mode,
		    .queued_ns = FSA_TIME_NONE,
		    .start_ns = FSA_TIME_NONE,
		};
	}
	rec->packet.end_ns = ev->ts_ns;
	rec->packet.end_gpu_ts = ev->u[FSA_F_GPU_TS];
	rec->packet.status = (enum fsa_packet_status) ev->u[FSA_F_STATUS];
	if (rec->packet.status == FSA_PACKET_COMPLETED &&
	    rec->packet.progress_value > queue->completed_progress)
		queue->completed_progress = rec->packet.progress_value;
	pending_packet_append(model, rec);
	return emit_packet(model, rec, false);
}

/* ---- markers ---- */

static fsa_status
on_doorbell(struct fsa_model *model, const struct fsa_event *ev)
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
		queue = fsa_model_queue_used(model, m.hwqueue_handle, ev->ts_ns);
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

static fsa_status
on_victimize(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_DOORBELL_VICTIMIZE, ev->ts_ns);

	m.adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	m.hwqueue_handle = ev->u[FSA_F_VICTIM_HWQUEUE_HANDLE];
	m.doorbell_handle = ev->u[FSA_F_VICTIM_DOORBELL_HANDLE];
	m.other_handle = ev->u[FSA_F_CONNECTING_HWQUEUE_HANDLE];
	m.value = ev->u[FSA_F_PHYSICAL_DOORBELL];
	return emit_marker(model, &m);
}

static fsa_status
on_engine_marker(struct fsa_model *model, const struct fsa_event *ev, enum fsa_marker_kind kind)
{
	struct fsa_marker m = marker_at(kind, ev->ts_ns);

	m.adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	m.engine_id =
	    fsa_event_has(ev, FSA_F_ENGINE_ID) ? (uint32_t) ev->u[FSA_F_ENGINE_ID] : UINT32_MAX;
	switch (ev->type) {
	case FSA_EV_ENGINE_RESET:
		m.code = (int64_t) ev->u[FSA_F_IS_SUCCESS];
		break;
	case FSA_EV_PAGE_FAULT:
		m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
		m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
		m.value = ev->u[FSA_F_GPU_VA];
		m.code = (int64_t) ev->u[FSA_F_FAULT_TYPE];
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

static fsa_status
on_interval(struct fsa_model *model, const struct fsa_event *ev)
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
		return interval_open(model, &model->preemptions, ev->u[FSA_F_REQUEST_ID], &m);
	case FSA_EV_PREEMPT_COMPLETE:
		open = interval_take(&model->preemptions, ev->u[FSA_F_REQUEST_ID], ev->ts_ns);
		if (!open)
			return FSA_OK;
		open->value = ev->u[FSA_F_PACKET_ID];
		status = emit_marker(model, open);
		free(open);
		return status;
	case FSA_EV_TDR_BEGIN:
		m.kind = FSA_MARK_TDR;
		m.engine_id = engine;
		m.value = ev->u[FSA_F_REASON];
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

static fsa_status
on_device_lost(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_DEVICE_LOST, ev->ts_ns);

	m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	m.other_handle = ev->u[FSA_F_DEVICE_HANDLE];
	m.code = (int64_t) ev->u[FSA_F_REASON];
	return emit_marker(model, &m);
}

static fsa_status
on_call_failed(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_marker m = marker_at(FSA_MARK_CALL_FAILED, ev->ts_ns);

	m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	m.value = ev->u[FSA_F_HANDLE];
	m.code = (int64_t) ev->u[FSA_F_STATUS];
	return emit_marker(model, &m);
}

/* ---- dispatch ---- */

static fsa_status
dispatch(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue;
	struct process_state *process;

	switch (ev->type) {
	case FSA_EV_TRACE_INFO:
		if (ev->s[FSA_S_RUNTIME_VERSION] && !model->summary.has_trace_info) {
			/* Borrowed strings end with the event: keep a copy. */
			strncpy(model->runtime_version, ev->s[FSA_S_RUNTIME_VERSION],
				sizeof(model->runtime_version) - 1);
			model->summary.runtime_version = model->runtime_version;
		}
		return on_trace_info(model, ev);
	case FSA_EV_PROCESS_CREATE:
		return on_process_create(model, ev);
	case FSA_EV_PROCESS_TERMINATE:
		process = process_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], ev->ts_ns);
		if (!process)
			return model->failed;
		process->info.terminated_ns = ev->ts_ns;
		process->info.is_abnormal_termination =
		    ev->u[FSA_F_TERMINATION] == FSTP_TERMINATION_ABNORMAL;
		return FSA_OK;
	case FSA_EV_ADAPTER_CREATE:
		if (!fsa_clock_get(model, (uint32_t) ev->u[FSA_F_ADAPTER_ID], true))
			return model->failed = FSA_ERR_NOMEM;
		fsa_clock_get(model, (uint32_t) ev->u[FSA_F_ADAPTER_ID], false)->fit.nominal_hz =
		    ev->u[FSA_F_GPU_TS_FREQUENCY_HZ];
		return FSA_OK;
	case FSA_EV_ENGINE_DESCRIBE:
		if (!fsa_hmap_put(&model->engine_types,
				  ENGINE_KEY(ev->u[FSA_F_ADAPTER_ID], ev->u[FSA_F_ENGINE_ID]),
				  (void *) (uintptr_t) (ev->u[FSA_F_ENGINE_TYPE] + 1)))
			return model->failed = FSA_ERR_NOMEM;
		return FSA_OK;
	case FSA_EV_DEVICE_CREATE:
		/* Contexts find their adapter through their device: device → adapter + 1. */
		if (!fsa_hmap_put(&model->context_engines, ~ev->u[FSA_F_DEVICE_HANDLE] ^ 1,
				  (void *) (uintptr_t) (ev->u[FSA_F_ADAPTER_ID] + 1)))
			return model->failed = FSA_ERR_NOMEM;
		return FSA_OK;
	case FSA_EV_CONTEXT_CREATE: {
		void *adapter =
		    fsa_hmap_get(&model->context_engines, ~ev->u[FSA_F_DEVICE_HANDLE] ^ 1);

		if (adapter &&
		    !fsa_hmap_put(&model->context_engines, ~ev->u[FSA_F_CONTEXT_HANDLE], adapter))
			return model->failed = FSA_ERR_NOMEM;
		return FSA_OK;
	}
	case FSA_EV_HWQUEUE_CREATE:
		return on_hwqueue_create(model, ev);
	case FSA_EV_HWQUEUE_DESTROY:
		queue = fsa_model_queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
		if (!queue)
			return model->failed;
		queue->info.destroyed_ns = ev->ts_ns;
		if (ev->u[FSA_F_LAST_COMPLETED_VALUE] > queue->completed_progress)
			queue->completed_progress = ev->u[FSA_F_LAST_COMPLETED_VALUE];
		return FSA_OK;
	case FSA_EV_FENCE_CREATE:
		return on_fence_create(model, ev);
	case FSA_EV_FENCE_OPEN:
		return on_fence_handle(model, ev, true);
	case FSA_EV_FENCE_CLOSE:
		return on_fence_handle(model, ev, false);
	case FSA_EV_FENCE_DESTROY:
		return on_fence_destroy(model, ev);
	case FSA_EV_FENCE_WAIT_QUEUED:
		return fsa_ops_queued(model, ev, FSA_OP_WAIT);
	case FSA_EV_FENCE_SIGNAL_QUEUED:
		return fsa_ops_queued(model, ev, FSA_OP_SIGNAL);
	case FSA_EV_FENCE_LOG_ENTRY:
		return fsa_ops_log_entry(model, ev);
	case FSA_EV_KM_FENCE_WAIT_UNBLOCKED:
	case FSA_EV_KM_FENCE_SIGNAL_EXECUTED:
		return fsa_ops_km_closed(
		    model, ev,
		    ev->type == FSA_EV_KM_FENCE_WAIT_UNBLOCKED ? FSA_OP_WAIT : FSA_OP_SIGNAL);
	case FSA_EV_CPU_WAIT_BEGIN:
		return fsa_ops_cpu_wait_begin(model, ev);
	case FSA_EV_CPU_WAIT_END:
		return fsa_ops_cpu_wait_end(model, ev);
	case FSA_EV_CPU_SIGNAL:
		return fsa_ops_cpu_signal(model, ev);
	case FSA_EV_FENCE_LOG_OVERRUN:
		return fsa_ops_overrun(model, ev);
	case FSA_EV_FENCE_SCAN_VALUE:
		return fsa_ops_scan_value(model, ev);
	case FSA_EV_FENCE_SCAN:
		return fsa_ops_scan(model, ev);
	case FSA_EV_CLOCK_CORRELATION:
		if (fsa_clock_on_correlation(model, ev))
			return model->failed;
		if (fsa_ops_flush(model, false))
			return model->failed;
		return flush_packets(model, false);
	case FSA_EV_UPDATE_MONITORED_VALUE: {
		struct fence_state *fence =
		    fsa_hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);

		if (fence && ev->u[FSA_F_CURRENT_VALUE] > fence->info.last_value)
			fence->info.last_value = ev->u[FSA_F_CURRENT_VALUE];
		return FSA_OK;
	}
	case FSA_EV_SUBMIT_COMMAND:
		if (!fsa_hmap_put(&model->km_packets, ev->u[FSA_F_PACKET_ID],
				  (void *) (uintptr_t) (ev->ts_ns + 1)))
			return model->failed = FSA_ERR_NOMEM;
		return FSA_OK;
	case FSA_EV_RING_WRITE:
		queue = fsa_model_queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
		if (!queue)
			return model->failed;
		if (!fsa_hmap_put(&queue->ring_writes, ev->u[FSA_F_PROGRESS_VALUE],
				  (void *) (uintptr_t) (ev->ts_ns + 1)))
			return model->failed = FSA_ERR_NOMEM;
		return FSA_OK;
	case FSA_EV_PACKET_QUEUED:
		return on_packet_queued(model, ev);
	case FSA_EV_PACKET_START:
		return on_packet_start(model, ev);
	case FSA_EV_PACKET_END:
		return on_packet_end(model, ev);
	case FSA_EV_PACKET_COMPLETE:
		queue = fsa_model_queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
		if (!queue)
			return model->failed;
		if (ev->u[FSA_F_PROGRESS_VALUE] > queue->completed_progress)
			queue->completed_progress = ev->u[FSA_F_PROGRESS_VALUE];
		/* The OS writes a kernel-mode queue's progress fence once it saw the packet
		 * complete. */
		if (queue->info.is_user_mode)
			return FSA_OK;
		return model->failed = step_progress(model, queue, ev->u[FSA_F_PROGRESS_VALUE],
						     ev->ts_ns, ev->u[FSA_F_PACKET_ID]);
	case FSA_EV_DOORBELL_RING:
	case FSA_EV_DOORBELL_CREATE:
	case FSA_EV_DOORBELL_CONNECT:
	case FSA_EV_DOORBELL_DISCONNECT:
	case FSA_EV_DOORBELL_DESTROY:
		return on_doorbell(model, ev);
	case FSA_EV_DOORBELL_VICTIMIZE:
		return on_victimize(model, ev);
	case FSA_EV_ENGINE_RESET:
		return on_engine_marker(model, ev, FSA_MARK_ENGINE_RESET);
	case FSA_EV_PAGE_FAULT:
		return on_engine_marker(model, ev, FSA_MARK_PAGE_FAULT);
	case FSA_EV_FENCE_LOG_RESIZE:
		return on_engine_marker(model, ev, FSA_MARK_LOG_RESIZE);
	case FSA_EV_PREEMPT_REQUEST:
	case FSA_EV_PREEMPT_COMPLETE:
	case FSA_EV_TDR_BEGIN:
	case FSA_EV_TDR_END:
	case FSA_EV_CONTEXT_SUSPEND:
	case FSA_EV_CONTEXT_RESUME:
	case FSA_EV_ENGINE_POWER:
	case FSA_EV_DEVICE_POWER:
		return on_interval(model, ev);
	case FSA_EV_DEVICE_LOST:
		return on_device_lost(model, ev);
	case FSA_EV_CALL_FAILED:
		return on_call_failed(model, ev);
	default:
		/* Detail the model does not need (allocations, VA maps, interrupts, ground truth
		 * of the emulator, log reads): counted in the summary only. */
		return FSA_OK;
	}
}

bool
fsa_model_needs_payload(enum fsa_event_type type)
{
	switch (type) {
	case FSA_EV_NOTIFY_WORK_SUBMISSION:
	case FSA_EV_DEVICE_DESTROY:
	case FSA_EV_CONTEXT_DESTROY:
	case FSA_EV_ALLOCATION_CREATE:
	case FSA_EV_ALLOCATION_DESTROY:
	case FSA_EV_ALLOCATION_RESIDENCY:
	case FSA_EV_VA_MAP:
	case FSA_EV_VA_UNMAP:
	case FSA_EV_INTERRUPT_HANDLED:
	case FSA_EV_FENCE_LOG_READ:
	case FSA_EV_FENCE_LOG_ANOMALY:
	case FSA_EV_FENCE_PROPAGATE:
	case FSA_EV_SET_FENCE_LOG_BUFFER:
	case FSA_EV_UPDATE_CURRENT_VALUE:
	case FSA_EV_PAGE_TABLE_UPDATE:
	case FSA_EV_RING_FETCH:
	case FSA_EV_FENCE_VALUE_WRITE:
	case FSA_EV_GPU_WAIT_BEGIN:
	case FSA_EV_GPU_WAIT_END:
	case FSA_EV_INTERRUPT_RAISE:
	case FSA_EV_ENGINE_STATE_CHANGE:
		/* dispatch() ignores them: counted in the summary only. */
		return false;
	default:
		return true;
	}
}

fsa_status
fsa_model_add_event(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_summary *sum = &model->summary;
	fsa_status status;

	if (model->failed)
		return model->failed;
	if (model->is_finished)
		return FSA_ERR_INVALID;
	sum->event_count++;
	sum->event_counts[ev->type < FSA_EV_COUNT ? ev->type : FSA_EV_UNKNOWN]++;
	if (sum->first_ns == FSA_TIME_NONE)
		sum->first_ns = ev->ts_ns;
	if (ev->ts_ns == 0 || (sum->last_ns != FSA_TIME_NONE && ev->ts_ns < sum->last_ns)) {
		struct fsa_anomaly anomaly = {
		    .kind = ev->ts_ns ? FSA_ANOM_TIMESTAMP_BACKWARDS : FSA_ANOM_ZERO_TIMESTAMP,
		    .ts_ns = ev->ts_ns,
		    .a = sum->last_ns == FSA_TIME_NONE ? 0 : sum->last_ns,
		    .b = ev->ts_ns,
		};

		status = fsa_model_emit_anomaly(model, &anomaly);
		if (status)
			return status;
	}
	if (sum->last_ns == FSA_TIME_NONE || ev->ts_ns > sum->last_ns)
		sum->last_ns = ev->ts_ns;
	model->last_ts = sum->last_ns;
	if (ev->type <= FSA_EV_UNKNOWN || ev->type >= FSA_EV_COUNT)
		return FSA_OK;
	status = dispatch(model, ev);
	if (status)
		return model->failed = status;
	/* Waits held for their signal are let go once the lag has passed. */
	if (++model->events_since_flush >= 4096 &&
	    (model->pending_head || model->pending_packets_head)) {
		model->events_since_flush = 0;
		status = fsa_ops_flush(model, false);
		if (!status)
			status = flush_packets(model, false);
	}
	return status;
}

fsa_status
fsa_model_add_discard(struct fsa_model *model, const struct fsa_discard *discard)
{
	struct fsa_loss loss = {
	    .kind = discard->kind == FSA_DISCARD_EVENTS ? FSA_LOSS_TRACER_EVENTS
							: FSA_LOSS_TRACER_PACKETS,
	    .count = discard->count,
	    .begin_ns = discard->has_range ? discard->begin_ns : FSA_TIME_NONE,
	    .end_ns = discard->has_range ? discard->end_ns : FSA_TIME_NONE,
	    .adapter_id = UINT32_MAX,
	    .stream_id = discard->stream_id,
	    .cpu_id = discard->cpu_id,
	};

	if (model->failed)
		return model->failed;
	if (discard->kind == FSA_DISCARD_EVENTS)
		model->summary.tracer_discarded_events =
		    fsa_add_saturating(model->summary.tracer_discarded_events, discard->count);
	else
		model->summary.tracer_discarded_packets =
		    fsa_add_saturating(model->summary.tracer_discarded_packets, discard->count);
	return fsa_model_emit_loss(model, &loss);
}

static fsa_status
close_open_intervals(struct fsa_model *model, struct fsa_hmap *map)
{
	struct fsa_marker **all;
	size_t count;
	fsa_status status = FSA_OK;

	if (!fsa_hmap_take_values(map, (void ***) &all, &count))
		return model->failed = FSA_ERR_NOMEM;
	/* Deterministic output: by start time. */
	if (!fsa_model_sort_by_time((void **) all, count, marker_begin_of))
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
fsa_model_finish(struct fsa_model *model)
{
	fsa_status status;

	if (model->failed)
		return model->failed;
	if (model->is_finished)
		return FSA_OK;
	model->is_finished = true;
	status = fsa_ops_finish(model);
	if (!status)
		status = flush_packets(model, true);
	/* Packets that started and never ended. */
	if (!status && model->packets.count) {
		struct packet_rec **all;
		size_t count;

		if (!fsa_hmap_take_values(&model->packets, (void ***) &all, &count))
			return model->failed = FSA_ERR_NOMEM;
		if (!fsa_model_sort_by_time((void **) all, count, packet_start_of))
			status = model->failed = FSA_ERR_NOMEM;
		for (size_t i = 0; i < count; i++)
			pending_packet_append(model, all[i]);
		free(all);
		if (!status)
			status = flush_packets(model, true);
	}
	if (!status)
		status = close_open_intervals(model, &model->preemptions);
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
	for (size_t i = 0; i < model->clock_count; i++)
		fsa_clock_finish(&model->clocks[i]);
	for (size_t i = 0; i < model->fence_count; i++) {
		struct fence_state *fence = model->fence_list[i];

		if (!fence->is_destroyed)
			fence->info.final_value = fence->info.last_value;
	}
	if (status)
		model->failed = status;
	return status;
}

const struct fsa_summary *
fsa_model_borrow_summary(const struct fsa_model *model)
{
	return &model->summary;
}

size_t
fsa_model_process_count(const struct fsa_model *model)
{
	return model->process_count;
}

const struct fsa_process_info *
fsa_model_borrow_process(const struct fsa_model *model, size_t index)
{
	return index < model->process_count ? &model->process_list[index]->info : NULL;
}

const struct fsa_process_info *
fsa_model_find_process(const struct fsa_model *model, uint32_t process_id)
{
	struct process_state *process = fsa_hmap_get(&model->processes, process_id);

	return process ? &process->info : NULL;
}

size_t
fsa_model_queue_count(const struct fsa_model *model)
{
	return model->queue_count;
}

const struct fsa_queue_info *
fsa_model_borrow_queue(const struct fsa_model *model, size_t index)
{
	return index < model->queue_count ? &model->queue_list[index]->info : NULL;
}

const struct fsa_queue_info *
fsa_model_find_queue(const struct fsa_model *model, uint64_t hwqueue_handle)
{
	struct queue_state *queue = fsa_hmap_get(&model->queues, hwqueue_handle);

	return queue ? &queue->info : NULL;
}

size_t
fsa_model_fence_count(const struct fsa_model *model)
{
	return model->fence_count;
}

const struct fsa_fence_info *
fsa_model_borrow_fence(const struct fsa_model *model, size_t index)
{
	return index < model->fence_count ? &model->fence_list[index]->info : NULL;
}

const struct fsa_fence_info *
fsa_model_find_fence(const struct fsa_model *model, uint64_t fence_global_handle)
{
	struct fence_state *fence = fsa_hmap_get(&model->fences, fence_global_handle);

	return fence ? &fence->info : NULL;
}

size_t
fsa_model_clock_fit_count(const struct fsa_model *model)
{
	return model->clock_count;
}

const struct fsa_clock_fit *
fsa_model_borrow_clock_fit(const struct fsa_model *model, size_t index)
{
	return index < model->clock_count ? &model->clocks[index].fit : NULL;
}

uint64_t
fsa_model_gpu_to_trace(const struct fsa_model *model, uint32_t adapter_id, uint64_t gpu_ts)
{
	for (size_t i = 0; i < model->clock_count; i++)
		if (model->clocks[i].fit.adapter_id == adapter_id)
			return fsa_clock_map_const(&model->clocks[i], gpu_ts);
	return FSA_TIME_NONE;
}
