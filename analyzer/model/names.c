/* SPDX-License-Identifier: MIT */
/*
 * The stable names of the model's enums: reports, exports and the viewer print these, and
 * docs/report-schema.md lists them, so a name never changes once released.
 */
#include "fsa/model.h"

#define NAME_OR(table, index, fallback)                                                            \
	((size_t) (index) < sizeof(table) / sizeof((table)[0]) && (table)[index] ? (table)[index]  \
										 : (fallback))

const char *
fsa_status_string(fsa_status status)
{
	switch (status) {
	case FSA_OK:
		return "success";
	case FSA_ERR_NOMEM:
		return "out of memory";
	case FSA_ERR_INVALID:
		return "invalid argument";
	case FSA_ERR_FORMAT_VERSION:
		return "unsupported trace format version";
	case FSA_ERR_IO:
		return "cannot read the trace";
	case FSA_ERR_TRACE:
		return "the trace cannot be decoded";
	case FSA_ERR_CANCELLED:
		return "cancelled";
	}
	return "unknown error";
}

const char *
fsa_op_kind_name(enum fsa_op_kind kind)
{
	static const char *const names[] = {[FSA_OP_WAIT] = "wait", [FSA_OP_SIGNAL] = "signal"};

	return NAME_OR(names, kind, "unknown");
}

const char *
fsa_op_source_name(enum fsa_op_source source)
{
	static const char *const names[] = {
	    [FSA_SRC_USER_MODE_QUEUE] = "user_mode",
	    [FSA_SRC_KERNEL_MODE_QUEUE] = "kernel_mode",
	    [FSA_SRC_CPU] = "cpu",
	};

	return NAME_OR(names, source, "unknown");
}

const char *
fsa_op_state_name(enum fsa_op_state state)
{
	static const char *const names[] = {
	    [FSA_OP_OBSERVED] = "observed",
	    [FSA_OP_INFERRED] = "inferred",
	    [FSA_OP_NEVER_COMPLETED] = "never_completed",
	    [FSA_OP_UNQUEUED] = "unqueued",
	};

	return NAME_OR(names, state, "unknown");
}

const char *
fsa_marker_kind_name(enum fsa_marker_kind kind)
{
	static const char *const names[] = {
	    [FSA_MARK_DOORBELL_RING] = "doorbell_ring",
	    [FSA_MARK_DOORBELL_CREATE] = "doorbell_create",
	    [FSA_MARK_DOORBELL_CONNECT] = "doorbell_connect",
	    [FSA_MARK_DOORBELL_DISCONNECT] = "doorbell_disconnect",
	    [FSA_MARK_DOORBELL_VICTIMIZE] = "doorbell_victimize",
	    [FSA_MARK_DOORBELL_DESTROY] = "doorbell_destroy",
	    [FSA_MARK_ENGINE_RESET] = "engine_reset",
	    [FSA_MARK_PAGE_FAULT] = "page_fault",
	    [FSA_MARK_DEVICE_LOST] = "device_lost",
	    [FSA_MARK_LOG_RESIZE] = "log_resize",
	    [FSA_MARK_CALL_FAILED] = "call_failed",
	    [FSA_MARK_PREEMPTION] = "preemption",
	    [FSA_MARK_TDR] = "tdr",
	    [FSA_MARK_CONTEXT_SUSPENDED] = "context_suspended",
	    [FSA_MARK_ENGINE_F1] = "engine_f1",
	    [FSA_MARK_DEVICE_D3] = "device_d3",
	    [FSA_MARK_DOORBELL_CONNECTED] = "doorbell_connected",
	    [FSA_MARK_DOORBELL_STATE] = "doorbell_state",
	    [FSA_MARK_TDR_DETECT] = "tdr_detect",
	    [FSA_MARK_ADAPTER_RESET] = "adapter_reset",
	    [FSA_MARK_VSYNC] = "vsync",
	    [FSA_MARK_FAULT_INJECTED] = "fault_injected",
	    [FSA_MARK_CONTEXT_ERROR] = "context_error",
	    [FSA_MARK_FLIP] = "flip",
	    [FSA_MARK_INTERRUPT_LATE] = "interrupt_late",
	    [FSA_MARK_INTERRUPT_UNHANDLED] = "interrupt_unhandled",
	    [FSA_MARK_PAGE_FAULT_HANDLED] = "page_fault_handled",
	    [FSA_MARK_VA_RESERVE] = "va_reserve",
	    [FSA_MARK_VA_FREE] = "va_free",
	    [FSA_MARK_FENCE_NOTIFICATION] = "fence_notification",
	    [FSA_MARK_VA_MAPPING] = "va_mapping",
	    [FSA_MARK_FENCE_PROPAGATION] = "fence_propagation",
	};

	return NAME_OR(names, kind, "unknown");
}

const char *
fsa_loss_kind_name(enum fsa_loss_kind kind)
{
	static const char *const names[] = {
	    [FSA_LOSS_LOG_OVERRUN] = "log_overrun",
	    [FSA_LOSS_TRACER_EVENTS] = "tracer_discarded_events",
	    [FSA_LOSS_TRACER_PACKETS] = "tracer_discarded_packets",
	    [FSA_LOSS_LOG_GAP] = "log_gap",
	};

	return NAME_OR(names, kind, "unknown");
}

const char *
fsa_anomaly_kind_name(enum fsa_anomaly_kind kind)
{
	static const char *const names[] = {
	    [FSA_ANOM_TIMESTAMP_BACKWARDS] = "timestamp_backwards",
	    [FSA_ANOM_ZERO_TIMESTAMP] = "zero_timestamp",
	    [FSA_ANOM_GPU_TIMESTAMP_BACKWARDS] = "gpu_timestamp_backwards",
	    [FSA_ANOM_OBSERVED_AFTER_END] = "observed_after_end",
	    [FSA_ANOM_WAIT_NEVER_UNBLOCKED] = "wait_never_unblocked",
	    [FSA_ANOM_SIGNAL_NEVER_EXECUTED] = "signal_never_executed",
	    [FSA_ANOM_VALUE_REGRESSION] = "value_regression",
	    [FSA_ANOM_OP_ON_DESTROYED_FENCE] = "op_on_destroyed_fence",
	    [FSA_ANOM_LOG_ENTRY_WITHOUT_QUEUED] = "log_entry_without_queued",
	    [FSA_ANOM_QUEUED_WITHOUT_LOG_ENTRY] = "queued_without_log_entry",
	    [FSA_ANOM_END_BEFORE_QUEUED] = "end_before_queued",
	    [FSA_ANOM_UNKNOWN_FENCE] = "unknown_fence",
	    [FSA_ANOM_UNKNOWN_QUEUE] = "unknown_queue",
	    [FSA_ANOM_NO_CLOCK_CORRELATION] = "no_clock_correlation",
	    [FSA_ANOM_TRACE_CLOCK_MISMATCH] = "trace_clock_mismatch",
	};

	return NAME_OR(names, kind, "unknown");
}

const char *
fsa_packet_status_name(enum fsa_packet_status status)
{
	switch (status) {
	case FSA_PACKET_COMPLETED:
		return "completed";
	case FSA_PACKET_PREEMPTED:
		return "preempted";
	case FSA_PACKET_FAULTED:
		return "faulted";
	case FSA_PACKET_ABORTED:
		return "aborted";
	case FSA_PACKET_NEVER_ENDED:
		return "never_ended";
	}
	return "unknown";
}

const char *
fsa_trace_clock_name(enum fsa_trace_clock clock)
{
	static const char *const names[] = {
	    [FSA_TRACE_CLOCK_UNSAID] = "unknown",
	    [FSA_TRACE_CLOCK_MONOTONIC] = "monotonic",
	    [FSA_TRACE_CLOCK_SIM] = "fencescope_sim",
	    [FSA_TRACE_CLOCK_OTHER] = "other",
	};

	return NAME_OR(names, clock, "unknown");
}

const char *
fsa_gpu_time_name(enum fsa_gpu_time gpu_time)
{
	static const char *const names[] = {
	    [FSA_GPU_TIME_CORRELATED] = "correlated",
	    [FSA_GPU_TIME_EVENT_STAMPED] = "event_stamped",
	    [FSA_GPU_TIME_UNMAPPED] = "unmapped",
	};

	return NAME_OR(names, gpu_time, "unknown");
}
