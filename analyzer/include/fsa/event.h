/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's normalized event: what analyzer/ingest makes of one event of the trace contract
 * (docs/trace-format.md), and all that analyzer/model ever sees. It holds no Babeltrace type, so
 * the model can be driven by synthetic events in unit tests.
 *
 * Every integer field of the contract has one slot, named after the field, in one flat array:
 * `ev->u[FSA_F_FENCE_VALUE]`. A slot the event does not carry is 0 and its bit in `present` is
 * clear. Signed fields (`call_failed.status`) are stored sign-extended. Enumerations are stored as
 * their numbers, which are part of the format (`FSTP_*` in tracepoints/fencescope-tp-enums.h).
 */
#ifndef FSA_EVENT_H
#define FSA_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsa/export.h"

/*
 * The events of trace format 1.x, in the order of docs/trace-format.md for 1.0's; the events 1.1
 * added come after them, then 1.2's (the OS's doorbell words), then 1.3's (termination steps),
 * then 1.4's (scheduling, TDR, display, fault injection), then 1.5's (GpuMmu, cross-adapter
 * fences), so that earlier numbers stay.
 */
/* clang-format off */
#define FSA_EVENT_TYPES(X) \
	X(umd, fence_wait_queued, FENCE_WAIT_QUEUED) \
	X(umd, fence_signal_queued, FENCE_SIGNAL_QUEUED) \
	X(umd, ring_write, RING_WRITE) \
	X(umd, doorbell_ring, DOORBELL_RING) \
	X(umd, notify_work_submission, NOTIFY_WORK_SUBMISSION) \
	X(os, trace_info, TRACE_INFO) \
	X(os, process_create, PROCESS_CREATE) \
	X(os, process_terminate, PROCESS_TERMINATE) \
	X(os, adapter_create, ADAPTER_CREATE) \
	X(os, device_create, DEVICE_CREATE) \
	X(os, device_destroy, DEVICE_DESTROY) \
	X(os, device_lost, DEVICE_LOST) \
	X(os, context_create, CONTEXT_CREATE) \
	X(os, context_destroy, CONTEXT_DESTROY) \
	X(os, hwqueue_create, HWQUEUE_CREATE) \
	X(os, hwqueue_destroy, HWQUEUE_DESTROY) \
	X(os, fence_create, FENCE_CREATE) \
	X(os, fence_open, FENCE_OPEN) \
	X(os, fence_close, FENCE_CLOSE) \
	X(os, fence_destroy, FENCE_DESTROY) \
	X(os, allocation_create, ALLOCATION_CREATE) \
	X(os, allocation_destroy, ALLOCATION_DESTROY) \
	X(os, allocation_residency, ALLOCATION_RESIDENCY) \
	X(os, va_map, VA_MAP) \
	X(os, va_unmap, VA_UNMAP) \
	X(os, submit_command, SUBMIT_COMMAND) \
	X(os, packet_queued, PACKET_QUEUED) \
	X(os, packet_complete, PACKET_COMPLETE) \
	X(os, km_fence_wait_unblocked, KM_FENCE_WAIT_UNBLOCKED) \
	X(os, km_fence_signal_executed, KM_FENCE_SIGNAL_EXECUTED) \
	X(os, cpu_wait_begin, CPU_WAIT_BEGIN) \
	X(os, cpu_wait_end, CPU_WAIT_END) \
	X(os, cpu_signal, CPU_SIGNAL) \
	X(os, interrupt_handled, INTERRUPT_HANDLED) \
	X(os, fence_log_read, FENCE_LOG_READ) \
	X(os, fence_log_entry, FENCE_LOG_ENTRY) \
	X(os, fence_log_overrun, FENCE_LOG_OVERRUN) \
	X(os, fence_log_resize, FENCE_LOG_RESIZE) \
	X(os, fence_log_anomaly, FENCE_LOG_ANOMALY) \
	X(os, fence_scan, FENCE_SCAN) \
	X(os, fence_scan_value, FENCE_SCAN_VALUE) \
	X(os, fence_propagate, FENCE_PROPAGATE) \
	X(os, engine_power, ENGINE_POWER) \
	X(os, device_power, DEVICE_POWER) \
	X(os, preempt_request, PREEMPT_REQUEST) \
	X(os, tdr_begin, TDR_BEGIN) \
	X(os, tdr_end, TDR_END) \
	X(os, call_failed, CALL_FAILED) \
	X(kmd, engine_describe, ENGINE_DESCRIBE) \
	X(kmd, clock_correlation, CLOCK_CORRELATION) \
	X(kmd, doorbell_create, DOORBELL_CREATE) \
	X(kmd, doorbell_connect, DOORBELL_CONNECT) \
	X(kmd, doorbell_disconnect, DOORBELL_DISCONNECT) \
	X(kmd, doorbell_victimize, DOORBELL_VICTIMIZE) \
	X(kmd, doorbell_destroy, DOORBELL_DESTROY) \
	X(kmd, set_fence_log_buffer, SET_FENCE_LOG_BUFFER) \
	X(kmd, update_monitored_value, UPDATE_MONITORED_VALUE) \
	X(kmd, update_current_value, UPDATE_CURRENT_VALUE) \
	X(kmd, context_suspend, CONTEXT_SUSPEND) \
	X(kmd, context_resume, CONTEXT_RESUME) \
	X(kmd, engine_reset, ENGINE_RESET) \
	X(kmd, page_table_update, PAGE_TABLE_UPDATE) \
	X(hw, packet_start, PACKET_START) \
	X(hw, packet_end, PACKET_END) \
	X(hw, ring_fetch, RING_FETCH) \
	X(hw, fence_value_write, FENCE_VALUE_WRITE) \
	X(hw, gpu_wait_begin, GPU_WAIT_BEGIN) \
	X(hw, gpu_wait_end, GPU_WAIT_END) \
	X(hw, interrupt_raise, INTERRUPT_RAISE) \
	X(hw, engine_state_change, ENGINE_STATE_CHANGE) \
	X(hw, preempt_complete, PREEMPT_COMPLETE) \
	X(hw, page_fault, PAGE_FAULT) \
	X(kmd, create_native_fence, CREATE_NATIVE_FENCE) \
	X(kmd, open_native_fence, OPEN_NATIVE_FENCE) \
	X(kmd, close_native_fence, CLOSE_NATIVE_FENCE) \
	X(kmd, destroy_native_fence, DESTROY_NATIVE_FENCE) \
	X(kmd, update_native_fence_logs, UPDATE_NATIVE_FENCE_LOGS) \
	X(os, doorbell_status, DOORBELL_STATUS) \
	X(os, doorbell_rotate, DOORBELL_ROTATE) \
	X(os, termination_step, TERMINATION_STEP) \
	X(os, context_schedule, CONTEXT_SCHEDULE) \
	X(os, tdr_detect, TDR_DETECT) \
	X(os, context_error, CONTEXT_ERROR) \
	X(os, flip_queued, FLIP_QUEUED) \
	X(os, flip_done, FLIP_DONE) \
	X(os, fault_injected, FAULT_INJECTED) \
	X(kmd, adapter_reset, ADAPTER_RESET) \
	X(hw, vsync, VSYNC) \
	X(os, va_space_create, VA_SPACE_CREATE) \
	X(os, va_space_destroy, VA_SPACE_DESTROY) \
	X(os, va_reserve, VA_RESERVE) \
	X(os, va_free, VA_FREE) \
	X(os, page_table_create, PAGE_TABLE_CREATE) \
	X(os, page_table_resize, PAGE_TABLE_RESIZE) \
	X(os, page_table_residency, PAGE_TABLE_RESIDENCY) \
	X(os, page_table_destroy, PAGE_TABLE_DESTROY) \
	X(os, page_fault, OS_PAGE_FAULT) \
	X(os, fence_cross_adapter_open, FENCE_CROSS_ADAPTER_OPEN)

/* Every integer field name of the contract, sorted. */
#define FSA_FIELDS(X) \
	X(access, ACCESS) \
	X(adapter_id, ADAPTER_ID) \
	X(allocation_handle, ALLOCATION_HANDLE) \
	X(anomaly, ANOMALY) \
	X(cached_position, CACHED_POSITION) \
	X(capacity_entries, CAPACITY_ENTRIES) \
	X(clock_mode, CLOCK_MODE) \
	X(command_count, COMMAND_COUNT) \
	X(compute_preempt_granularity, COMPUTE_PREEMPT_GRANULARITY) \
	X(connecting_hwqueue_handle, CONNECTING_HWQUEUE_HANDLE) \
	X(context_handle, CONTEXT_HANDLE) \
	X(cpu_ts_ns, CPU_TS_NS) \
	X(created_as, CREATED_AS) \
	X(creator_adapter_id, CREATOR_ADAPTER_ID) \
	X(current_value, CURRENT_VALUE) \
	X(detail, DETAIL) \
	X(device_handle, DEVICE_HANDLE) \
	X(doorbell_count, DOORBELL_COUNT) \
	X(doorbell_handle, DOORBELL_HANDLE) \
	X(doorbell_model, DOORBELL_MODEL) \
	X(end_gpu_ts, END_GPU_TS) \
	X(engine_count, ENGINE_COUNT) \
	X(engine_id, ENGINE_ID) \
	X(engine_type, ENGINE_TYPE) \
	X(entries_lost, ENTRIES_LOST) \
	X(entry_count, ENTRY_COUNT) \
	X(entry_position, ENTRY_POSITION) \
	X(fault_type, FAULT_TYPE) \
	X(fence_count, FENCE_COUNT) \
	X(fence_global_handle, FENCE_GLOBAL_HANDLE) \
	X(fence_handle, FENCE_HANDLE) \
	X(fence_id, FENCE_ID) \
	X(fence_object, FENCE_OBJECT) \
	X(fence_type, FENCE_TYPE) \
	X(fence_value, FENCE_VALUE) \
	X(fences_scanned, FENCES_SCANNED) \
	X(final_value, FINAL_VALUE) \
	X(first_entry, FIRST_ENTRY) \
	X(first_free_entry_index, FIRST_FREE_ENTRY_INDEX) \
	X(flip_id, FLIP_ID) \
	X(form, FORM) \
	X(format_major, FORMAT_MAJOR) \
	X(format_minor, FORMAT_MINOR) \
	X(from_adapter_id, FROM_ADAPTER_ID) \
	X(generation, GENERATION) \
	X(gpu_ts, GPU_TS) \
	X(gpu_ts_frequency_hz, GPU_TS_FREQUENCY_HZ) \
	X(gpu_va, GPU_VA) \
	X(granularity, GRANULARITY) \
	X(handle, HANDLE) \
	X(hwqueue_count, HWQUEUE_COUNT) \
	X(hwqueue_handle, HWQUEUE_HANDLE) \
	X(initial_value, INITIAL_VALUE) \
	X(is_context_switch, IS_CONTEXT_SWITCH) \
	X(is_cross_adapter, IS_CROSS_ADAPTER) \
	X(is_dummy_page, IS_DUMMY_PAGE) \
	X(is_interrupt, IS_INTERRUPT) \
	X(is_os_picked, IS_OS_PICKED) \
	X(is_paging, IS_PAGING) \
	X(is_preemption_aware, IS_PREEMPTION_AWARE) \
	X(is_resident, IS_RESIDENT) \
	X(is_shared, IS_SHARED) \
	X(is_success, IS_SUCCESS) \
	X(is_valid, IS_VALID) \
	X(kind, KIND) \
	X(last_completed_value, LAST_COMPLETED_VALUE) \
	X(last_queued_value, LAST_QUEUED_VALUE) \
	X(level, LEVEL) \
	X(log_type, LOG_TYPE) \
	X(max_va, MAX_VA) \
	X(min_va, MIN_VA) \
	X(mode, MODE) \
	X(monitored_value, MONITORED_VALUE) \
	X(native_fences, NATIVE_FENCES) \
	X(new_capacity_entries, NEW_CAPACITY_ENTRIES) \
	X(new_entries, NEW_ENTRIES) \
	X(new_entry_count, NEW_ENTRY_COUNT) \
	X(new_position, NEW_POSITION) \
	X(new_state, NEW_STATE) \
	X(new_status, NEW_STATUS) \
	X(notification_only, NOTIFICATION_ONLY) \
	X(observed_gpu_ts, OBSERVED_GPU_TS) \
	X(observed_value, OBSERVED_VALUE) \
	X(offset_bytes, OFFSET_BYTES) \
	X(old_capacity_entries, OLD_CAPACITY_ENTRIES) \
	X(old_entry_count, OLD_ENTRY_COUNT) \
	X(old_state, OLD_STATE) \
	X(old_status, OLD_STATUS) \
	X(opened_as, OPENED_AS) \
	X(operation, OPERATION) \
	X(optimized_interrupt, OPTIMIZED_INTERRUPT) \
	X(packet_id, PACKET_ID) \
	X(page_count, PAGE_COUNT) \
	X(page_size_bytes, PAGE_SIZE_BYTES) \
	X(page_table_levels, PAGE_TABLE_LEVELS) \
	X(physical_doorbell, PHYSICAL_DOORBELL) \
	X(preempt_granularity, PREEMPT_GRANULARITY) \
	X(previous_gpu_ts, PREVIOUS_GPU_TS) \
	X(priority, PRIORITY) \
	X(process_id, PROCESS_ID) \
	X(progress_fence_handle, PROGRESS_FENCE_HANDLE) \
	X(progress_value, PROGRESS_VALUE) \
	X(read_ptr_bytes, READ_PTR_BYTES) \
	X(reason, REASON) \
	X(request_id, REQUEST_ID) \
	X(resubmission_of, RESUBMISSION_OF) \
	X(result, RESULT) \
	X(ring_size_bytes, RING_SIZE_BYTES) \
	X(root_entry_count, ROOT_ENTRY_COUNT) \
	X(scope, SCOPE) \
	X(segment, SEGMENT) \
	X(size_bytes, SIZE_BYTES) \
	X(source_id, SOURCE_ID) \
	X(stalled_ns, STALLED_NS) \
	X(status, STATUS) \
	X(step, STEP) \
	X(submission_mode, SUBMISSION_MODE) \
	X(table_id, TABLE_ID) \
	X(termination, TERMINATION) \
	X(time_slice_ns, TIME_SLICE_NS) \
	X(timeout_ns, TIMEOUT_NS) \
	X(to_adapter_id, TO_ADAPTER_ID) \
	X(type, TYPE) \
	X(ums_supported, UMS_SUPPORTED) \
	X(va_size_bytes, VA_SIZE_BYTES) \
	X(victim_doorbell_handle, VICTIM_DOORBELL_HANDLE) \
	X(victim_hwqueue_handle, VICTIM_HWQUEUE_HANDLE) \
	X(vsync_count, VSYNC_COUNT) \
	X(waiter_count, WAITER_COUNT) \
	X(waiter_id, WAITER_ID) \
	X(waiters_released, WAITERS_RELEASED) \
	X(work_left_ticks, WORK_LEFT_TICKS) \
	X(wraparound_count, WRAPAROUND_COUNT) \
	X(write_ptr_bytes, WRITE_PTR_BYTES)
/* clang-format on */

enum fsa_event_type {
	FSA_EV_UNKNOWN = 0,
#define FSA_X(layer, name, NAME) FSA_EV_##NAME,
	FSA_EVENT_TYPES(FSA_X)
#undef FSA_X
	    FSA_EV_COUNT,
};

enum fsa_field {
#define FSA_X(name, NAME) FSA_F_##NAME,
	FSA_FIELDS(FSA_X)
#undef FSA_X
	    FSA_F_COUNT,
};

/* The string fields, kept apart: they are borrowed, not copied. */
enum fsa_string_field {
	FSA_S_RUNTIME_VERSION, /* trace_info */
	FSA_S_NAME,            /* process_create */
	FSA_S_CALL,            /* call_failed */
	FSA_S_COUNT,
};

#define FSA_FIELD_WORDS ((FSA_F_COUNT + 63) / 64)

/* A time that is not known (the value of FSA_TIME_NONE in fsa/model.h). */
#define FSA_EVENT_TIME_NONE UINT64_MAX

/*
 * The clock that stamped an event, told by the name of its stream's clock class
 * (docs/trace-format.md "Time"). 0 means the reader did not say (synthetic events).
 */
enum fsa_trace_clock {
	FSA_TRACE_CLOCK_UNSAID = 0,
	FSA_TRACE_CLOCK_MONOTONIC, /* "monotonic", LTTng-UST's default clock: CLOCK_MONOTONIC */
	FSA_TRACE_CLOCK_SIM,       /* "fencescope_sim", the runtime's sim clock plugin */
	FSA_TRACE_CLOCK_OTHER,     /* any other clock (another clock plugin) */
};

struct fsa_event {
	enum fsa_event_type type;
	/* Trace clock: ns from the clock's origin, as Babeltrace gives it (the clock class offset
	 * included: for LTTng's clocks, ns since the Unix epoch). */
	uint64_t ts_ns;
	/* enum fsa_trace_clock: the clock class of the event's stream. */
	uint8_t trace_clock;
	/*
	 * clock_correlation only, when trace_clock is not UNSAID: cpu_ts_ns (a raw reading of the
	 * trace clock) converted with the event's clock class onto the time base of ts_ns;
	 * FSA_EVENT_TIME_NONE when it cannot be (out of range). Ingest computes it because the
	 * model sees no clock class.
	 */
	uint64_t cpu_ts_trace_ns;
	/* The CPU the event was recorded on, UINT32_MAX when the trace does not say. */
	uint32_t cpu_id;
	uint64_t u[FSA_F_COUNT];
	uint64_t present[FSA_FIELD_WORDS];
	/* Borrowed until the next event; NULL when absent. */
	const char *s[FSA_S_COUNT];
	/* interrupt_raise.fence_handles: borrowed until the next event. */
	const uint64_t *fence_handles;
	uint32_t fence_handle_count;
};

/*
 * Tracer losses, from Babeltrace's discarded-events and discarded-packets messages: `count`
 * events (or packets) of one stream were lost between `begin_ns` and `end_ns` (trace clock;
 * both 0 when the trace does not say). `count` is 0 when the tracer did not count them.
 */
enum fsa_discard_kind {
	FSA_DISCARD_EVENTS,
	FSA_DISCARD_PACKETS,
};

struct fsa_discard {
	enum fsa_discard_kind kind;
	uint64_t count;
	uint64_t begin_ns;
	uint64_t end_ns;
	bool has_range;
	uint64_t stream_id;
	uint32_t cpu_id;
};

/* "fencescope_umd:fence_wait_queued" or "fence_wait_queued" → type; FSA_EV_UNKNOWN if none. */
FSA_API enum fsa_event_type fsa_event_type_from_name(const char *name);
/* "fencescope_umd:fence_wait_queued" for a type (static storage), NULL for an unknown type. */
FSA_API const char *fsa_event_type_name(enum fsa_event_type type);
/* Field name → slot; returns -1 when the name is not a contract integer field. */
FSA_API int fsa_field_from_name(const char *name);
FSA_API const char *fsa_field_name(enum fsa_field field);

static inline void
fsa_event_clear(struct fsa_event *ev)
{
	*ev = (struct fsa_event){.cpu_id = UINT32_MAX};
}

static inline void
fsa_event_set(struct fsa_event *ev, enum fsa_field field, uint64_t value)
{
	ev->u[field] = value;
	ev->present[field / 64] |= UINT64_C(1) << (field % 64);
}

static inline bool
fsa_event_has(const struct fsa_event *ev, enum fsa_field field)
{
	return ev->present[field / 64] & (UINT64_C(1) << (field % 64));
}

#endif /* FSA_EVENT_H */
