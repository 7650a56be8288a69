/* SPDX-License-Identifier: MIT */
/*
 * The object tables: processes, queues, fences (with each process's local handles), adapters
 * (their clocks, engines' types and the devices and contexts that lead a queue to its adapter),
 * kept from the events that create, open, close and destroy them, and the lookups the other
 * files make (the queue an event uses, the fence a local handle names). Also the public
 * accessors of fsa/model.h that read these tables.
 *
 * What it is not: the fence operations on those objects (ops.c), packets (packets.c), markers
 * (markers.c), or GPU time (clock-fit.c, which it only asks for an adapter's clock).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

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

/* A new, zeroed object of `size` bytes under `key` in a table's map and at the end of its list
 * (which keeps the order the accessors give). NULL, with model->failed set, when out of memory. */
static void *
table_add(struct fsa_model *model, struct hmap *map, void ***list, size_t *count, size_t *capacity,
	  uint64_t key, size_t size)
{
	void *item = calloc(1, size);

	if (!item || !hmap_put(map, key, item) || !list_push(list, count, capacity, item)) {
		if (item)
			hmap_remove(map, key);
		free(item);
		model->failed = FSA_ERR_NOMEM;
		return NULL;
	}
	return item;
}

static struct process_state *
process_get(struct fsa_model *model, uint32_t process_id, uint64_t ts)
{
	struct process_state *process = hmap_get(&model->processes, process_id);

	if (process)
		return process;
	process = table_add(model, &model->processes, (void ***) &model->process_list,
			    &model->process_count, &model->process_capacity, process_id,
			    sizeof(*process));
	if (!process)
		return NULL;
	process->info.process_id = process_id;
	process->info.name = "";
	process->info.created_ns = ts;
	process->info.terminated_ns = FSA_TIME_NONE;
	return process;
}

static struct queue_state *
queue_get(struct fsa_model *model, uint64_t handle, uint64_t ts)
{
	struct queue_state *queue = hmap_get(&model->queues, handle);

	if (queue)
		return queue;
	queue = table_add(model, &model->queues, (void ***) &model->queue_list, &model->queue_count,
			  &model->queue_capacity, handle, sizeof(*queue));
	if (!queue)
		return NULL;
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

static struct fence_state *
fence_add(struct fsa_model *model, uint64_t fence_global_handle)
{
	return table_add(model, &model->fences, (void ***) &model->fence_list, &model->fence_count,
			 &model->fence_capacity, fence_global_handle, sizeof(struct fence_state));
}

/* A queue named before (or without) its hwqueue_create is reported once. */
struct queue_state *
queue_used(struct fsa_model *model, uint64_t handle, uint64_t ts)
{
	struct queue_state *queue;

	/* Most events in a row name the same queue; queues stay until the model is freed. */
	if (model->last_queue && model->last_queue->info.hwqueue_handle == handle)
		return model->last_queue;
	queue = hmap_get(&model->queues, handle);
	if (queue)
		return model->last_queue = queue;
	queue = queue_get(model, handle, ts);
	if (queue) {
		struct fsa_anomaly anomaly = {
		    .kind = FSA_ANOM_UNKNOWN_QUEUE, .ts_ns = ts, .hwqueue_handle = handle};

		if (emit_anomaly(model, &anomaly))
			return NULL;
	}
	return queue;
}

struct fence_state *
fence_of(struct fsa_model *model, uint32_t process_id, uint64_t fence_handle, uint64_t ts,
	 bool *is_closed)
{
	struct process_state *process = hmap_get(&model->processes, process_id);
	struct fence_state *fence = process ? hmap_get(&process->locals, fence_handle) : NULL;

	(void) ts;
	*is_closed = false;
	if (fence)
		return fence;
	if (process && (fence = hmap_get(&process->closed, fence_handle))) {
		*is_closed = true;
		return fence;
	}
	/* The OS's own waits on a queue's progress fence name its global handle (trace-format). */
	return hmap_get(&model->fences, fence_handle);
}

fsa_status
objects_on_process_create(struct fsa_model *model, const struct fsa_event *ev)
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

fsa_status
objects_on_process_terminate(struct fsa_model *model, const struct fsa_event *ev)
{
	struct process_state *process =
	    process_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], ev->ts_ns);

	if (!process)
		return model->failed;
	process->info.terminated_ns = ev->ts_ns;
	process->info.is_abnormal_termination =
	    ev->u[FSA_F_TERMINATION] == FSTP_TERMINATION_ABNORMAL;
	return FSA_OK;
}

fsa_status
objects_on_adapter_create(struct fsa_model *model, const struct fsa_event *ev)
{
	if (!fsa_clock_get(model, (uint32_t) ev->u[FSA_F_ADAPTER_ID], true))
		return model->failed = FSA_ERR_NOMEM;
	fsa_clock_get(model, (uint32_t) ev->u[FSA_F_ADAPTER_ID], false)->fit.nominal_hz =
	    ev->u[FSA_F_GPU_TS_FREQUENCY_HZ];
	return FSA_OK;
}

fsa_status
objects_on_engine_describe(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t key = ENGINE_KEY(ev->u[FSA_F_ADAPTER_ID], ev->u[FSA_F_ENGINE_ID]);
	struct fsa_engine_info *engine = hmap_get(&model->engines, key);

	if (!hmap_put(&model->engine_types, key,
		      (void *) (uintptr_t) (ev->u[FSA_F_ENGINE_TYPE] + 1)))
		return model->failed = FSA_ERR_NOMEM;
	if (!engine) {
		engine =
		    table_add(model, &model->engines, (void ***) &model->engine_list,
			      &model->engine_count, &model->engine_capacity, key, sizeof(*engine));
		if (!engine)
			return model->failed;
	}
	/* PRE-01, PRE-02: what the engine declares; format 1.4 adds compute and PreemptionAware. */
	*engine = (struct fsa_engine_info){
	    .adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID],
	    .engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID],
	    .engine_type = (uint8_t) ev->u[FSA_F_ENGINE_TYPE],
	    .ums_supported = ev->u[FSA_F_UMS_SUPPORTED] != 0,
	    .preempt_granularity = (uint16_t) ev->u[FSA_F_PREEMPT_GRANULARITY],
	    .compute_preempt_granularity = (uint16_t) ev->u[FSA_F_COMPUTE_PREEMPT_GRANULARITY],
	    .is_preemption_aware = ev->u[FSA_F_IS_PREEMPTION_AWARE] != 0,
	};
	return FSA_OK;
}

fsa_status
objects_on_device_create(struct fsa_model *model, const struct fsa_event *ev)
{
	/* Contexts find their adapter through their device: device → adapter + 1. */
	if (!hmap_put(&model->context_engines, ~ev->u[FSA_F_DEVICE_HANDLE] ^ 1,
		      (void *) (uintptr_t) (ev->u[FSA_F_ADAPTER_ID] + 1)))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

static struct fsa_context_info *
context_get(struct fsa_model *model, uint64_t handle, uint64_t ts)
{
	struct fsa_context_info *context = hmap_get(&model->contexts, handle);

	if (context)
		return context;
	context =
	    table_add(model, &model->contexts, (void ***) &model->context_list,
		      &model->context_count, &model->context_capacity, handle, sizeof(*context));
	if (!context)
		return NULL;
	context->context_handle = handle;
	context->adapter_id = UINT32_MAX;
	context->engine_id = UINT32_MAX;
	context->created_ns = ts;
	context->destroyed_ns = FSA_TIME_NONE;
	context->error_ns = FSA_TIME_NONE;
	return context;
}

struct fsa_context_info *
context_find(struct fsa_model *model, uint64_t context_handle)
{
	return hmap_get(&model->contexts, context_handle);
}

fsa_status
objects_on_context_create(struct fsa_model *model, const struct fsa_event *ev)
{
	void *adapter = hmap_get(&model->context_engines, ~ev->u[FSA_F_DEVICE_HANDLE] ^ 1);
	struct fsa_context_info *context =
	    context_get(model, ev->u[FSA_F_CONTEXT_HANDLE], ev->ts_ns);

	if (!context)
		return model->failed;
	context->created_ns = ev->ts_ns;
	context->process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	context->device_handle = ev->u[FSA_F_DEVICE_HANDLE];
	context->engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID];
	if (adapter)
		context->adapter_id = (uint32_t) (uintptr_t) adapter - 1;
	if (adapter && !hmap_put(&model->context_engines, ~ev->u[FSA_F_CONTEXT_HANDLE], adapter))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

/* PRE-15: a context's priority and time slice, at its creation and whenever they change. */
fsa_status
objects_on_context_schedule(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_context_info *context =
	    context_get(model, ev->u[FSA_F_CONTEXT_HANDLE], ev->ts_ns);

	if (!context)
		return model->failed;
	if (!context->schedule_count) {
		context->process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
		context->engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID];
	}
	if (context->adapter_id == UINT32_MAX)
		context->adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	context->priority = (uint32_t) ev->u[FSA_F_PRIORITY];
	if (!context->has_schedule || context->priority < context->priority_min)
		context->priority_min = context->priority;
	if (!context->has_schedule || context->priority > context->priority_max)
		context->priority_max = context->priority;
	context->has_schedule = true;
	context->time_slice_ns = ev->u[FSA_F_TIME_SLICE_NS];
	context->schedule_count++;
	return FSA_OK;
}

fsa_status
objects_on_context_destroy(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_context_info *context = context_find(model, ev->u[FSA_F_CONTEXT_HANDLE]);

	if (context)
		context->destroyed_ns = ev->ts_ns;
	return FSA_OK;
}

/* TDR-04: the context put in error (the first time counts). */
fsa_status
objects_on_context_error(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_context_info *context =
	    context_get(model, ev->u[FSA_F_CONTEXT_HANDLE], ev->ts_ns);

	if (!context)
		return model->failed;
	if (context->adapter_id == UINT32_MAX)
		context->adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	if (!context->process_id)
		context->process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	if (!context->device_handle)
		context->device_handle = ev->u[FSA_F_DEVICE_HANDLE];
	if (context->error_ns == FSA_TIME_NONE) {
		context->error_ns = ev->ts_ns;
		context->error_reason = (uint8_t) ev->u[FSA_F_REASON];
	}
	return FSA_OK;
}

fsa_status
objects_on_hwqueue_create(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue = queue_get(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
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
	queue->info.adapter_id =
	    (uint32_t) (uintptr_t) hmap_get(&model->context_engines, ~ev->u[FSA_F_CONTEXT_HANDLE]);
	if (queue->info.adapter_id)
		queue->info.adapter_id--;
	engine_type = (uintptr_t) hmap_get(
	    &model->engine_types, ENGINE_KEY(queue->info.adapter_id, queue->info.engine_id));
	queue->info.engine_type = engine_type ? (uint8_t) (engine_type - 1) : UINT8_MAX;
	progress = hmap_get(&model->fences, queue->info.progress_fence_handle);
	if (!progress && queue->info.progress_fence_handle) {
		/* HPF-01: the progress fence has no fence_create of its own; it starts at 0. */
		progress = fence_add(model, queue->info.progress_fence_handle);
		if (!progress)
			return model->failed;
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

fsa_status
objects_on_hwqueue_destroy(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);

	if (!queue)
		return model->failed;
	queue->info.destroyed_ns = ev->ts_ns;
	if (ev->u[FSA_F_LAST_COMPLETED_VALUE] > queue->completed_progress)
		queue->completed_progress = ev->u[FSA_F_LAST_COMPLETED_VALUE];
	return FSA_OK;
}

fsa_status
objects_on_fence_create(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t global = ev->u[FSA_F_FENCE_GLOBAL_HANDLE];
	struct fence_state *fence = hmap_get(&model->fences, global);
	struct process_state *process =
	    process_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], ev->ts_ns);

	if (!process)
		return model->failed;
	if (!fence) {
		fence = fence_add(model, global);
		if (!fence)
			return model->failed;
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
	    /* XAD-10, XAD-11 (format 1.5; 0, NATIVE, before) */
	    .fence_object = (uint8_t) ev->u[FSA_F_FENCE_OBJECT],
	    .cross_open_count = fence->info.cross_open_count,
	};
	for (size_t i = 0; i < model->queue_count; i++)
		if (model->queue_list[i]->info.progress_fence_handle == global)
			fence->info.is_progress_fence = true;
	hmap_remove(&process->closed, ev->u[FSA_F_FENCE_HANDLE]);
	if (!hmap_put(&process->locals, ev->u[FSA_F_FENCE_HANDLE], fence))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

static fsa_status
on_fence_handle(struct fsa_model *model, const struct fsa_event *ev, bool is_open)
{
	struct process_state *process =
	    process_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], ev->ts_ns);
	struct fence_state *fence = hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);
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

		return emit_anomaly(model, &anomaly);
	}
	if (is_open) {
		hmap_remove(&process->closed, local);
		if (!hmap_put(&process->locals, local, fence))
			return model->failed = FSA_ERR_NOMEM;
	} else {
		hmap_remove(&process->locals, local);
		if (!hmap_put(&process->closed, local, fence))
			return model->failed = FSA_ERR_NOMEM;
	}
	return FSA_OK;
}

fsa_status
objects_on_fence_open(struct fsa_model *model, const struct fsa_event *ev)
{
	return on_fence_handle(model, ev, true);
}

fsa_status
objects_on_fence_close(struct fsa_model *model, const struct fsa_event *ev)
{
	return on_fence_handle(model, ev, false);
}

fsa_status
objects_on_fence_destroy(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fence_state *fence = hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);

	if (!fence)
		return FSA_OK;
	fence->is_destroyed = true;
	fence->info.destroyed_ns = ev->ts_ns;
	fence->info.final_value = ev->u[FSA_F_FINAL_VALUE];
	if (fence->info.final_value > fence->info.last_value)
		fence->info.last_value = fence->info.final_value;
	return FSA_OK;
}

fsa_status
objects_on_monitored_value(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fence_state *fence = hmap_get(&model->fences, ev->u[FSA_F_FENCE_GLOBAL_HANDLE]);

	if (fence && ev->u[FSA_F_CURRENT_VALUE] > fence->info.last_value)
		fence->info.last_value = ev->u[FSA_F_CURRENT_VALUE];
	return FSA_OK;
}

void
objects_finish(struct fsa_model *model)
{
	for (size_t i = 0; i < model->clock_count; i++)
		fsa_clock_finish(&model->clocks[i]);
	for (size_t i = 0; i < model->fence_count; i++) {
		struct fence_state *fence = model->fence_list[i];

		if (!fence->is_destroyed)
			fence->info.final_value = fence->info.last_value;
	}
}

void
objects_free(struct fsa_model *model)
{
	for (size_t i = 0; i < model->process_count; i++) {
		hmap_fini(&model->process_list[i]->locals);
		hmap_fini(&model->process_list[i]->closed);
		free(model->process_list[i]->name);
		free(model->process_list[i]);
	}
	free(model->process_list);
	hmap_fini(&model->processes);
	for (size_t i = 0; i < model->queue_count; i++) {
		hmap_fini(&model->queue_list[i]->ring_writes);
		free(model->queue_list[i]);
	}
	free(model->queue_list);
	hmap_fini(&model->queues);
	for (size_t i = 0; i < model->fence_count; i++) {
		struct fence_state *fence = model->fence_list[i];

		free(fence->history ? fence->history - fence->history_start : NULL);
		free(fence->open_signals);
		free(fence->cross_opens);
		free(fence);
	}
	free(model->fence_list);
	hmap_fini(&model->fences);
	for (size_t i = 0; i < model->clock_count; i++)
		free(model->clocks[i].pairs);
	free(model->clocks);
	hmap_fini(&model->engine_types);
	hmap_fini(&model->context_engines);
	for (size_t i = 0; i < model->context_count; i++)
		free(model->context_list[i]);
	free(model->context_list);
	hmap_fini(&model->contexts);
	for (size_t i = 0; i < model->engine_count; i++)
		free(model->engine_list[i]);
	free(model->engine_list);
	hmap_fini(&model->engines);
}

size_t
fsa_model_context_count(const struct fsa_model *model)
{
	return model->context_count;
}

const struct fsa_context_info *
fsa_model_borrow_context(const struct fsa_model *model, size_t index)
{
	return index < model->context_count ? model->context_list[index] : NULL;
}

const struct fsa_context_info *
fsa_model_find_context(const struct fsa_model *model, uint64_t context_handle)
{
	return hmap_get(&model->contexts, context_handle);
}

size_t
fsa_model_engine_count(const struct fsa_model *model)
{
	return model->engine_count;
}

const struct fsa_engine_info *
fsa_model_borrow_engine(const struct fsa_model *model, size_t index)
{
	return index < model->engine_count ? model->engine_list[index] : NULL;
}

const struct fsa_engine_info *
fsa_model_find_engine(const struct fsa_model *model, uint32_t adapter_id, uint32_t engine_id)
{
	return hmap_get(&model->engines, ENGINE_KEY(adapter_id, engine_id));
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
	struct process_state *process = hmap_get(&model->processes, process_id);

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
	struct queue_state *queue = hmap_get(&model->queues, hwqueue_handle);

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
	struct fence_state *fence = hmap_get(&model->fences, fence_global_handle);

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
