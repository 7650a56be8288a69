/* SPDX-License-Identifier: MIT */
/*
 * The model's front: takes normalized events in trace order, counts them in the summary, and
 * hands each to the one handler of its type (dispatch); the files behind it keep the object
 * tables (objects.c), the fence operation boxes and edges (ops.c), packets (packets.c), markers
 * (markers.c) and GPU time (clock-fit.c). It also says when pending output is flushed, and
 * finishes the files in order at the end.
 *
 * It never fails on what a trace says: a malformed or inconsistent trace becomes anomalies.
 * Only out of memory, a sink's refusal and a newer format major version stop it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

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
	model->unmatched_signal_gap_begin_ns = FSA_TIME_NONE;
	return model;
}

void
fsa_model_destroy(struct fsa_model *model)
{
	if (!model)
		return;
	ops_free(model);
	objects_free(model);
	packets_free(model);
	markers_free(model);
	memory_free(model);
	xad_free(model);
	hmap_fini(&model->scan_values);
	free(model);
}

static fsa_status
on_trace_info(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_summary *sum = &model->summary;

	if (ev->s[FSA_S_RUNTIME_VERSION] && !sum->has_trace_info) {
		/* Borrowed strings end with the event: keep a copy. */
		strncpy(model->runtime_version, ev->s[FSA_S_RUNTIME_VERSION],
			sizeof(model->runtime_version) - 1);
		sum->runtime_version = model->runtime_version;
	}
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
on_clock_correlation(struct fsa_model *model, const struct fsa_event *ev)
{
	if (fsa_clock_on_correlation(model, ev))
		return model->failed;
	if (ops_flush(model, false))
		return model->failed;
	return packets_flush(model, false);
}

/* One handler per event type; each file's handlers are named after it (objects_on_…). */
static fsa_status
dispatch(struct fsa_model *model, const struct fsa_event *ev)
{
	switch (ev->type) {
	case FSA_EV_TRACE_INFO:
		return on_trace_info(model, ev);
	case FSA_EV_PROCESS_CREATE:
		return objects_on_process_create(model, ev);
	case FSA_EV_PROCESS_TERMINATE:
		return objects_on_process_terminate(model, ev);
	case FSA_EV_ADAPTER_CREATE:
		return objects_on_adapter_create(model, ev);
	case FSA_EV_ENGINE_DESCRIBE:
		return objects_on_engine_describe(model, ev);
	case FSA_EV_DEVICE_CREATE:
		return objects_on_device_create(model, ev);
	case FSA_EV_CONTEXT_CREATE:
		return objects_on_context_create(model, ev);
	case FSA_EV_HWQUEUE_CREATE:
		return objects_on_hwqueue_create(model, ev);
	case FSA_EV_HWQUEUE_DESTROY:
		return objects_on_hwqueue_destroy(model, ev);
	case FSA_EV_FENCE_CREATE:
		return objects_on_fence_create(model, ev);
	case FSA_EV_FENCE_OPEN:
		return objects_on_fence_open(model, ev);
	case FSA_EV_FENCE_CLOSE:
		return objects_on_fence_close(model, ev);
	case FSA_EV_FENCE_DESTROY:
		return objects_on_fence_destroy(model, ev);
	case FSA_EV_UPDATE_MONITORED_VALUE:
		return objects_on_monitored_value(model, ev);
	case FSA_EV_FENCE_WAIT_QUEUED:
		return ops_queued(model, ev, FSA_OP_WAIT);
	case FSA_EV_FENCE_SIGNAL_QUEUED:
		return ops_queued(model, ev, FSA_OP_SIGNAL);
	case FSA_EV_FENCE_LOG_ENTRY:
		return ops_log_entry(model, ev);
	case FSA_EV_KM_FENCE_WAIT_UNBLOCKED:
		return ops_km_closed(model, ev, FSA_OP_WAIT);
	case FSA_EV_KM_FENCE_SIGNAL_EXECUTED:
		return ops_km_closed(model, ev, FSA_OP_SIGNAL);
	case FSA_EV_CPU_WAIT_BEGIN:
		return ops_cpu_wait_begin(model, ev);
	case FSA_EV_CPU_WAIT_END:
		return ops_cpu_wait_end(model, ev);
	case FSA_EV_CPU_SIGNAL:
		return ops_cpu_signal(model, ev);
	case FSA_EV_FENCE_LOG_OVERRUN:
		return ops_overrun(model, ev);
	case FSA_EV_FENCE_SCAN_VALUE:
		return ops_scan_value(model, ev);
	case FSA_EV_FENCE_SCAN:
		return ops_scan(model, ev);
	case FSA_EV_CLOCK_CORRELATION:
		return on_clock_correlation(model, ev);
	case FSA_EV_SUBMIT_COMMAND:
		return packets_on_submit_command(model, ev);
	case FSA_EV_RING_WRITE:
		return packets_on_ring_write(model, ev);
	case FSA_EV_PACKET_QUEUED:
		return packets_on_queued(model, ev);
	case FSA_EV_PACKET_START:
		return packets_on_start(model, ev);
	case FSA_EV_PACKET_END:
		return packets_on_end(model, ev);
	case FSA_EV_PACKET_COMPLETE:
		return packets_on_complete(model, ev);
	case FSA_EV_DOORBELL_RING:
	case FSA_EV_DOORBELL_CREATE:
	case FSA_EV_DOORBELL_CONNECT:
	case FSA_EV_DOORBELL_DISCONNECT:
	case FSA_EV_DOORBELL_DESTROY: {
		fsa_status status = markers_on_doorbell_state(model, ev);

		return status ? status : markers_on_doorbell(model, ev);
	}
	case FSA_EV_DOORBELL_STATUS:
		return markers_on_doorbell_state(model, ev);
	case FSA_EV_DOORBELL_VICTIMIZE:
		return markers_on_victimize(model, ev);
	case FSA_EV_ENGINE_RESET:
		return markers_on_engine_event(model, ev, FSA_MARK_ENGINE_RESET);
	case FSA_EV_PAGE_FAULT:
	case FSA_EV_OS_PAGE_FAULT:
		return memory_on_page_fault(model, ev);
	case FSA_EV_VA_SPACE_CREATE:
	case FSA_EV_VA_SPACE_DESTROY:
		return memory_on_va_space(model, ev);
	case FSA_EV_VA_RESERVE:
	case FSA_EV_VA_FREE:
	case FSA_EV_VA_MAP:
	case FSA_EV_VA_UNMAP:
		return memory_on_va_range(model, ev);
	case FSA_EV_PAGE_TABLE_CREATE:
	case FSA_EV_PAGE_TABLE_RESIZE:
	case FSA_EV_PAGE_TABLE_RESIDENCY:
	case FSA_EV_PAGE_TABLE_DESTROY:
	case FSA_EV_PAGE_TABLE_UPDATE:
		return memory_on_page_table(model, ev);
	case FSA_EV_FENCE_CROSS_ADAPTER_OPEN:
		return xad_on_cross_open(model, ev);
	case FSA_EV_FENCE_PROPAGATE:
		return xad_on_propagate(model, ev);
	case FSA_EV_UPDATE_CURRENT_VALUE:
		return xad_on_update_current_value(model, ev);
	case FSA_EV_FENCE_LOG_RESIZE:
		return markers_on_engine_event(model, ev, FSA_MARK_LOG_RESIZE);
	case FSA_EV_PREEMPT_REQUEST:
	case FSA_EV_PREEMPT_COMPLETE:
	case FSA_EV_TDR_BEGIN:
	case FSA_EV_TDR_END:
	case FSA_EV_CONTEXT_SUSPEND:
	case FSA_EV_CONTEXT_RESUME:
	case FSA_EV_ENGINE_POWER:
	case FSA_EV_DEVICE_POWER:
		return markers_on_interval(model, ev);
	case FSA_EV_CONTEXT_DESTROY: {
		fsa_status status = objects_on_context_destroy(model, ev);

		return status ? status : markers_on_context_destroy(model, ev);
	}
	case FSA_EV_CONTEXT_SCHEDULE:
		return objects_on_context_schedule(model, ev);
	case FSA_EV_CONTEXT_ERROR: {
		fsa_status status = objects_on_context_error(model, ev);

		return status ? status : markers_on_context_error(model, ev);
	}
	case FSA_EV_TDR_DETECT:
	case FSA_EV_ADAPTER_RESET:
	case FSA_EV_VSYNC:
	case FSA_EV_FAULT_INJECTED:
		return markers_on_instant(model, ev);
	case FSA_EV_FLIP_QUEUED:
	case FSA_EV_FLIP_DONE:
		return markers_on_flip(model, ev);
	case FSA_EV_INTERRUPT_RAISE:
	case FSA_EV_INTERRUPT_HANDLED:
		return markers_on_interrupt(model, ev);
	case FSA_EV_DEVICE_LOST:
		return markers_on_device_lost(model, ev);
	case FSA_EV_CALL_FAILED:
		return markers_on_call_failed(model, ev);
	default:
		/* Detail the model does not need (allocations, ground truth
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
	case FSA_EV_ALLOCATION_CREATE:
	case FSA_EV_ALLOCATION_DESTROY:
	case FSA_EV_ALLOCATION_RESIDENCY:
	case FSA_EV_FENCE_LOG_READ:
	case FSA_EV_FENCE_LOG_ANOMALY:
	case FSA_EV_SET_FENCE_LOG_BUFFER:
	case FSA_EV_RING_FETCH:
	case FSA_EV_FENCE_VALUE_WRITE:
	case FSA_EV_GPU_WAIT_BEGIN:
	case FSA_EV_GPU_WAIT_END:
	case FSA_EV_ENGINE_STATE_CHANGE:
	case FSA_EV_CREATE_NATIVE_FENCE:
	case FSA_EV_OPEN_NATIVE_FENCE:
	case FSA_EV_CLOSE_NATIVE_FENCE:
	case FSA_EV_DESTROY_NATIVE_FENCE:
	case FSA_EV_UPDATE_NATIVE_FENCE_LOGS:
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

		status = emit_anomaly(model, &anomaly);
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
		status = ops_flush(model, false);
		if (!status)
			status = packets_flush(model, false);
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
	    .read_ns = FSA_TIME_NONE,
	};

	if (model->failed)
		return model->failed;
	if (discard->kind == FSA_DISCARD_EVENTS)
		model->summary.tracer_discarded_events =
		    add_saturating(model->summary.tracer_discarded_events, discard->count);
	else
		model->summary.tracer_discarded_packets =
		    add_saturating(model->summary.tracer_discarded_packets, discard->count);
	return emit_loss(model, &loss);
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
	status = ops_finish(model);
	if (!status)
		status = packets_finish(model);
	if (!status)
		status = markers_finish(model);
	if (!status)
		status = memory_finish(model);
	if (!status)
		status = xad_finish(model);
	objects_finish(model);
	if (status)
		model->failed = status;
	return status;
}

const struct fsa_summary *
fsa_model_borrow_summary(const struct fsa_model *model)
{
	return &model->summary;
}
