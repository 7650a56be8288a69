/* SPDX-License-Identifier: MIT */
/*
 * Packets rebuilt per engine: queued (SubmitCommand, the scheduler's packet_queued or, on a
 * user-mode queue, the ring write) → packet_start → packet_end, preempted pieces linked by
 * resubmission_of. An ended packet waits, in the order packets ended, until a clock pair maps its
 * GPU times (or FSA_CLOCK_WAIT_NS has passed); a completed packet steps its queue's progress
 * fence (HPF-02).
 *
 * What it is not: the fence operations inside a packet (ops.c), the objects it names
 * (objects.c), GPU time itself (clock-fit.c).
 */
#include <stdlib.h>

#include "model-private.h"

static uint64_t
packet_start_of(const void *item)
{
	return ((const struct packet_rec *) item)->packet.start_ns;
}

struct packet_queued_info {
	uint64_t queued_ns;
	uint64_t resubmission_of;
	bool is_paging;
	uint64_t fence_id;      /* format 1.4 */
	bool is_context_switch; /* format 1.4 */
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

			return emit_anomaly(model, &anomaly);
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
fsa_status
packets_step_progress(struct fsa_model *model, struct queue_state *queue, uint64_t value,
		      uint64_t ts, uint64_t packet_id)
{
	struct fence_state *fence = hmap_get(&model->fences, queue->info.progress_fence_handle);
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
	    !clock_has_waited(rec->packet.end_ns, model->last_ts))
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
		struct queue_state *queue = hmap_get(&model->queues, rec->packet.hwqueue_handle);

		if (queue)
			queue->info.packet_count++;
		if (!status && queue && queue->info.is_user_mode &&
		    rec->packet.status == FSA_PACKET_COMPLETED)
			status = packets_step_progress(model, queue, rec->packet.progress_value,
						       rec->packet.end_ns, rec->packet.packet_id);
	}
	if (!status && model->sink.packet)
		status = model->sink.packet(model->sink.data, &rec->packet);
	free(rec);
	if (status)
		model->failed = status;
	return status;
}

fsa_status
packets_flush(struct fsa_model *model, bool is_final)
{
	for (struct packet_rec *rec = model->pending_packets_head, *next; rec; rec = next) {
		next = rec->next;
		if (emit_packet(model, rec, is_final))
			return model->failed;
	}
	return FSA_OK;
}

fsa_status
packets_on_queued(struct fsa_model *model, const struct fsa_event *ev)
{
	uint64_t key = hmap_key2(ev->u[FSA_F_ADAPTER_ID], ev->u[FSA_F_PACKET_ID]);
	struct packet_queued_info *info = hmap_get(&model->packet_queued, key);
	uintptr_t submitted = (uintptr_t) hmap_remove(&model->km_packets, ev->u[FSA_F_PACKET_ID]);

	if (!info) {
		info = malloc(sizeof(*info));
		if (!info || !hmap_put(&model->packet_queued, key, info)) {
			free(info);
			return model->failed = FSA_ERR_NOMEM;
		}
	}
	/* The box opens at SubmitCommand when there was one, else when the scheduler queued it. */
	info->queued_ns = submitted ? (uint64_t) submitted - 1 : ev->ts_ns;
	info->resubmission_of = ev->u[FSA_F_RESUBMISSION_OF];
	info->is_paging = ev->u[FSA_F_IS_PAGING] != 0;
	/* PRE-06, PRE-07: the fence id shows whether a resubmission kept it; PRE-05. */
	info->fence_id = ev->u[FSA_F_FENCE_ID];
	info->is_context_switch = ev->u[FSA_F_IS_CONTEXT_SWITCH] != 0;
	return FSA_OK;
}

/* A packet record for the packet_start/packet_end EV names, with no times yet. Returns:
 * (transfer full) (nullable: out of memory). */
static struct packet_rec *
packet_rec_new(const struct queue_state *queue, const struct fsa_event *ev)
{
	struct packet_rec *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	rec->packet = (struct fsa_packet){
	    .adapter_id = (uint32_t) ev->u[FSA_F_ADAPTER_ID],
	    .engine_id = (uint32_t) ev->u[FSA_F_ENGINE_ID],
	    .hwqueue_handle = ev->u[FSA_F_HWQUEUE_HANDLE],
	    .packet_id = ev->u[FSA_F_PACKET_ID],
	    .progress_value = ev->u[FSA_F_PROGRESS_VALUE],
	    .is_user_mode = queue->info.is_user_mode,
	    .context_handle = queue->info.context_handle,
	    .queued_ns = FSA_TIME_NONE,
	    .start_ns = FSA_TIME_NONE,
	    .end_ns = FSA_TIME_NONE,
	};
	return rec;
}

fsa_status
packets_on_start(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint64_t key = hmap_key2(adapter, ev->u[FSA_F_PACKET_ID]);
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);
	struct packet_queued_info *info = hmap_remove(&model->packet_queued, key);
	struct packet_rec *rec = queue ? packet_rec_new(queue, ev) : NULL, *old;

	if (!queue || !rec) {
		free(info);
		return model->failed ? model->failed : (model->failed = FSA_ERR_NOMEM);
	}
	rec->packet.start_ns = ev->ts_ns;
	rec->packet.start_gpu_ts = ev->u[FSA_F_GPU_TS];
	rec->packet.status = FSA_PACKET_NEVER_ENDED;
	if (info) {
		rec->packet.queued_ns = info->queued_ns;
		rec->packet.resubmission_of = info->resubmission_of;
		rec->packet.is_paging = info->is_paging;
		rec->packet.fence_id = info->fence_id;
		rec->packet.is_context_switch = info->is_context_switch;
		free(info);
	} else if (queue->info.is_user_mode) {
		uintptr_t written =
		    (uintptr_t) hmap_remove(&queue->ring_writes, rec->packet.progress_value);

		if (written)
			rec->packet.queued_ns = (uint64_t) written - 1;
	} else {
		uintptr_t submitted =
		    (uintptr_t) hmap_remove(&model->km_packets, rec->packet.packet_id);

		if (submitted)
			rec->packet.queued_ns = (uint64_t) submitted - 1;
	}
	old = hmap_get(&model->packets, key);
	if (!hmap_put(&model->packets, key, rec)) {
		free(rec);
		return model->failed = FSA_ERR_NOMEM;
	}
	free(old); /* started twice without an end: the end was lost */
	return FSA_OK;
}

fsa_status
packets_on_end(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint64_t key = hmap_key2(adapter, ev->u[FSA_F_PACKET_ID]);
	struct packet_rec *rec = hmap_remove(&model->packets, key);
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);

	if (!queue)
		return model->failed;
	if (!rec) {
		/* Its start was not in the trace (or was lost). */
		rec = packet_rec_new(queue, ev);
		if (!rec)
			return model->failed = FSA_ERR_NOMEM;
	}
	queue->has_packet_end = true;
	rec->packet.end_ns = ev->ts_ns;
	rec->packet.end_gpu_ts = ev->u[FSA_F_GPU_TS];
	rec->packet.status = (enum fsa_packet_status) ev->u[FSA_F_STATUS];
	if (rec->packet.status == FSA_PACKET_COMPLETED &&
	    rec->packet.progress_value > queue->completed_progress)
		queue->completed_progress = rec->packet.progress_value;
	pending_packet_append(model, rec);
	return emit_packet(model, rec, false);
}

fsa_status
packets_on_complete(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);

	if (!queue)
		return model->failed;
	if (ev->u[FSA_F_PROGRESS_VALUE] > queue->completed_progress)
		queue->completed_progress = ev->u[FSA_F_PROGRESS_VALUE];
	/* The OS writes a kernel-mode queue's progress fence once it saw the packet complete. */
	if (queue->info.is_user_mode)
		return FSA_OK;
	return model->failed = packets_step_progress(model, queue, ev->u[FSA_F_PROGRESS_VALUE],
						     ev->ts_ns, ev->u[FSA_F_PACKET_ID]);
}

fsa_status
packets_on_submit_command(struct fsa_model *model, const struct fsa_event *ev)
{
	if (!hmap_put(&model->km_packets, ev->u[FSA_F_PACKET_ID],
		      (void *) (uintptr_t) (ev->ts_ns + 1)))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

fsa_status
packets_on_ring_write(struct fsa_model *model, const struct fsa_event *ev)
{
	struct queue_state *queue = queue_used(model, ev->u[FSA_F_HWQUEUE_HANDLE], ev->ts_ns);

	if (!queue)
		return model->failed;
	if (!hmap_put(&queue->ring_writes, ev->u[FSA_F_PROGRESS_VALUE],
		      (void *) (uintptr_t) (ev->ts_ns + 1)))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

fsa_status
packets_finish(struct fsa_model *model)
{
	fsa_status status = packets_flush(model, true);

	/* Packets that started and never ended. */
	if (!status && model->packets.count) {
		struct packet_rec **all;
		size_t count;

		if (!hmap_take_values(&model->packets, (void ***) &all, &count))
			return model->failed = FSA_ERR_NOMEM;
		if (!sort_by_time((void **) all, count, packet_start_of))
			status = model->failed = FSA_ERR_NOMEM;
		for (size_t i = 0; i < count; i++)
			pending_packet_append(model, all[i]);
		free(all);
		if (!status)
			status = packets_flush(model, true);
	}
	return status;
}

void
packets_free(struct fsa_model *model)
{
	while (model->pending_packets_head) {
		struct packet_rec *rec = model->pending_packets_head;

		model->pending_packets_head = rec->next;
		free(rec);
	}
	hmap_fini_values(&model->packets);
	hmap_fini_values(&model->packet_queued);
	hmap_fini(&model->km_packets);
}
