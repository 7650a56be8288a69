/* SPDX-License-Identifier: MIT */
/*
 * Every event of the trace contract with one distinctive value per field, in the order of the
 * tracepoint arguments. tests/contract/fire-all.c expands it into one tracepoint call per event;
 * tests/contract/test-contract.c expands it into the values it expects to read back, and checks
 * it against the field tables of docs/trace-format.md.
 *
 * The includer defines FSTC_EVENT(provider, event, fields) and one macro per field kind:
 * FSTC_U8/U16/U32/U64/HEX(name, value), FSTC_STR(name, value),
 * FSTC_ENUM(name, enumeration, backing, value, label) and FSTC_SEQ(name, count, values...).
 * Integer values set their high bits so that a truncated field cannot pass.
 */
#ifndef FENCESCOPE_CONTRACT_EVENTS_H
#define FENCESCOPE_CONTRACT_EVENTS_H

#include <stdint.h>
#include "fencescope-tp-enums.h"

/* One line per field reads best. */
/* clang-format off */
#define FSTC_CONTRACT_EVENTS \
	FSTC_EVENT(fencescope_umd, fence_wait_queued, \
		FSTC_U32(process_id, UINT32_C(0xc0000000)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000000001a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000000002a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000000035a)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c000000000045a)) \
	) \
	FSTC_EVENT(fencescope_umd, fence_signal_queued, \
		FSTC_U32(process_id, UINT32_C(0xc0000100)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000000101a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000000102a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000001035a)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c000000001045a)) \
	) \
	FSTC_EVENT(fencescope_umd, ring_write, \
		FSTC_U32(process_id, UINT32_C(0xc0000200)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000000201a5)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c000000002025a)) \
		FSTC_U64(write_ptr_bytes, UINT64_C(0xf5c000000002035a)) \
		FSTC_U32(size_bytes, UINT32_C(0xc0000204)) \
	) \
	FSTC_EVENT(fencescope_umd, doorbell_ring, \
		FSTC_U32(process_id, UINT32_C(0xc0000300)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000000301a5)) \
		FSTC_HEX(doorbell_handle, UINT64_C(0xf5c00000000302a5)) \
		FSTC_U64(write_ptr_bytes, UINT64_C(0xf5c000000003035a)) \
		FSTC_ENUM(status, doorbell_status, u8, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, "DISCONNECTED_RETRY") \
	) \
	FSTC_EVENT(fencescope_umd, notify_work_submission, \
		FSTC_U32(process_id, UINT32_C(0xc0000400)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000000401a5)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c000000004025a)) \
	) \
	FSTC_EVENT(fencescope_os, trace_info, \
		FSTC_U32(format_major, UINT32_C(0xc0000500)) \
		FSTC_U32(format_minor, UINT32_C(0xc0000501)) \
		FSTC_STR(runtime_version, "fencescope \u2713 os:trace_info.runtime_version") \
		FSTC_ENUM(clock_mode, clock_mode, u8, FSTP_CLOCK_MODE_REALTIME, "REALTIME") \
	) \
	FSTC_EVENT(fencescope_os, process_create, \
		FSTC_U32(process_id, UINT32_C(0xc0000600)) \
		FSTC_STR(name, "fencescope \u2713 os:process_create.name") \
	) \
	FSTC_EVENT(fencescope_os, process_terminate, \
		FSTC_U32(process_id, UINT32_C(0xc0000700)) \
		FSTC_ENUM(termination, termination, u8, FSTP_TERMINATION_ABNORMAL, "ABNORMAL") \
	) \
	FSTC_EVENT(fencescope_os, adapter_create, \
		FSTC_U32(adapter_id, UINT32_C(0xc0000800)) \
		FSTC_U32(engine_count, UINT32_C(0xc0000801)) \
		FSTC_U32(doorbell_count, UINT32_C(0xc0000802)) \
		FSTC_ENUM(doorbell_model, doorbell_model, u8, FSTP_DOORBELL_MODEL_DEDICATED, "DEDICATED") \
		FSTC_U64(gpu_ts_frequency_hz, UINT64_C(0xf5c000000008045a)) \
		FSTC_U8(native_fences, 1) \
		FSTC_U8(optimized_interrupt, 1) \
	) \
	FSTC_EVENT(fencescope_os, device_create, \
		FSTC_U32(process_id, UINT32_C(0xc0000900)) \
		FSTC_U32(adapter_id, UINT32_C(0xc0000901)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c00000000902a5)) \
	) \
	FSTC_EVENT(fencescope_os, device_destroy, \
		FSTC_U32(process_id, UINT32_C(0xc0000a00)) \
		FSTC_U32(adapter_id, UINT32_C(0xc0000a01)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c00000000a02a5)) \
	) \
	FSTC_EVENT(fencescope_os, device_lost, \
		FSTC_U32(process_id, UINT32_C(0xc0000b00)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c00000000b01a5)) \
		FSTC_ENUM(reason, loss_reason, u8, FSTP_LOSS_REASON_PAGE_FAULT, "PAGE_FAULT") \
	) \
	FSTC_EVENT(fencescope_os, context_create, \
		FSTC_U32(process_id, UINT32_C(0xc0000c00)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c00000000c01a5)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000000c02a5)) \
		FSTC_U32(engine_id, UINT32_C(0xc0000c03)) \
	) \
	FSTC_EVENT(fencescope_os, context_destroy, \
		FSTC_U32(process_id, UINT32_C(0xc0000d00)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c00000000d01a5)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000000d02a5)) \
		FSTC_U32(engine_id, UINT32_C(0xc0000d03)) \
	) \
	FSTC_EVENT(fencescope_os, hwqueue_create, \
		FSTC_U32(process_id, UINT32_C(0xc0000e00)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000000e01a5)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000000e02a5)) \
		FSTC_U32(engine_id, UINT32_C(0xc0000e03)) \
		FSTC_ENUM(submission_mode, submission_mode, u8, FSTP_SUBMISSION_MODE_USER_MODE, "USER_MODE") \
		FSTC_U32(ring_size_bytes, UINT32_C(0xc0000e05)) \
		FSTC_HEX(progress_fence_handle, UINT64_C(0xf5c00000000e06a5)) \
	) \
	FSTC_EVENT(fencescope_os, hwqueue_destroy, \
		FSTC_U32(process_id, UINT32_C(0xc0000f00)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000000f01a5)) \
		FSTC_U64(last_queued_value, UINT64_C(0xf5c00000000f025a)) \
		FSTC_U64(last_completed_value, UINT64_C(0xf5c00000000f035a)) \
	) \
	FSTC_EVENT(fencescope_os, fence_create, \
		FSTC_U32(process_id, UINT32_C(0xc0001000)) \
		FSTC_U32(adapter_id, UINT32_C(0xc0001001)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000001002a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000001003a5)) \
		FSTC_ENUM(fence_type, fence_type, u8, FSTP_FENCE_TYPE_INTRA_GPU, "INTRA_GPU") \
		FSTC_U8(is_shared, 1) \
		FSTC_U8(is_cross_adapter, 1) \
		FSTC_U64(initial_value, UINT64_C(0xf5c000000010075a)) \
		FSTC_ENUM(fence_object, fence_object, u8, FSTP_FENCE_OBJECT_MONITORED, "MONITORED") \
	) \
	FSTC_EVENT(fencescope_os, fence_open, \
		FSTC_U32(process_id, UINT32_C(0xc0001100)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000001101a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000001102a5)) \
	) \
	FSTC_EVENT(fencescope_os, fence_close, \
		FSTC_U32(process_id, UINT32_C(0xc0001200)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000001201a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000001202a5)) \
	) \
	FSTC_EVENT(fencescope_os, fence_destroy, \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000001300a5)) \
		FSTC_U64(final_value, UINT64_C(0xf5c000000013015a)) \
	) \
	FSTC_EVENT(fencescope_os, allocation_create, \
		FSTC_U32(process_id, UINT32_C(0xc0001400)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c00000001401a5)) \
		FSTC_HEX(allocation_handle, UINT64_C(0xf5c00000001402a5)) \
		FSTC_U64(size_bytes, UINT64_C(0xf5c000000014035a)) \
		FSTC_ENUM(segment, segment, u8, FSTP_SEGMENT_LOCAL, "LOCAL") \
		FSTC_U32(page_size_bytes, UINT32_C(0xc0001405)) \
	) \
	FSTC_EVENT(fencescope_os, allocation_destroy, \
		FSTC_U32(process_id, UINT32_C(0xc0001500)) \
		FSTC_HEX(allocation_handle, UINT64_C(0xf5c00000001501a5)) \
	) \
	FSTC_EVENT(fencescope_os, allocation_residency, \
		FSTC_U32(process_id, UINT32_C(0xc0001600)) \
		FSTC_HEX(allocation_handle, UINT64_C(0xf5c00000001601a5)) \
		FSTC_U8(is_resident, 1) \
		FSTC_ENUM(segment, segment, u8, FSTP_SEGMENT_LOCAL, "LOCAL") \
	) \
	FSTC_EVENT(fencescope_os, va_map, \
		FSTC_U32(process_id, UINT32_C(0xc0001700)) \
		FSTC_HEX(allocation_handle, UINT64_C(0xf5c00000001701a5)) \
		FSTC_HEX(gpu_va, UINT64_C(0xf5c00000001702a5)) \
		FSTC_U64(size_bytes, UINT64_C(0xf5c000000017035a)) \
		FSTC_U64(offset_bytes, UINT64_C(0xf5c000000017045a)) \
		FSTC_U32(adapter_id, UINT32_C(0xc0001705)) \
		FSTC_U8(is_os_picked, 1) \
		FSTC_U32(page_size_bytes, UINT32_C(0xc0001707)) \
		FSTC_ENUM(segment, segment, u8, FSTP_SEGMENT_LOCAL, "LOCAL") \
	) \
	FSTC_EVENT(fencescope_os, va_unmap, \
		FSTC_U32(process_id, UINT32_C(0xc0001800)) \
		FSTC_HEX(gpu_va, UINT64_C(0xf5c00000001801a5)) \
		FSTC_U64(size_bytes, UINT64_C(0xf5c000000018025a)) \
		FSTC_U32(adapter_id, UINT32_C(0xc0001803)) \
	) \
	FSTC_EVENT(fencescope_os, submit_command, \
		FSTC_U32(process_id, UINT32_C(0xc0001900)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000001901a5)) \
		FSTC_U64(packet_id, UINT64_C(0xf5c000000019025a)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c000000019035a)) \
		FSTC_U32(command_count, UINT32_C(0xc0001904)) \
	) \
	FSTC_EVENT(fencescope_os, packet_queued, \
		FSTC_U32(adapter_id, UINT32_C(0xc0001a00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0001a01)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000001a02a5)) \
		FSTC_U64(packet_id, UINT64_C(0xf5c00000001a035a)) \
		FSTC_U64(resubmission_of, UINT64_C(0xf5c00000001a045a)) \
		FSTC_U8(is_paging, 1) \
		FSTC_U64(fence_id, UINT64_C(0xf5c00000001a065a)) \
		FSTC_U8(is_context_switch, 1) \
	) \
	FSTC_EVENT(fencescope_os, packet_complete, \
		FSTC_U32(adapter_id, UINT32_C(0xc0001b00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0001b01)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000001b02a5)) \
		FSTC_U64(packet_id, UINT64_C(0xf5c00000001b035a)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c00000001b045a)) \
	) \
	FSTC_EVENT(fencescope_os, km_fence_wait_unblocked, \
		FSTC_U32(process_id, UINT32_C(0xc0001c00)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000001c01a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000001c02a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c00000001c035a)) \
	) \
	FSTC_EVENT(fencescope_os, km_fence_signal_executed, \
		FSTC_U32(process_id, UINT32_C(0xc0001d00)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000001d01a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000001d02a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c00000001d035a)) \
	) \
	FSTC_EVENT(fencescope_os, cpu_wait_begin, \
		FSTC_U32(process_id, UINT32_C(0xc0001e00)) \
		FSTC_U64(waiter_id, UINT64_C(0xf5c00000001e015a)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000001e02a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c00000001e035a)) \
		FSTC_U64(timeout_ns, UINT64_C(0xf5c00000001e045a)) \
		FSTC_ENUM(mode, cpu_wait_mode, u8, FSTP_CPU_WAIT_MODE_POLLING, "POLLING") \
	) \
	FSTC_EVENT(fencescope_os, cpu_wait_end, \
		FSTC_U32(process_id, UINT32_C(0xc0001f00)) \
		FSTC_U64(waiter_id, UINT64_C(0xf5c00000001f015a)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000001f02a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c00000001f035a)) \
		FSTC_ENUM(result, cpu_wait_result, u8, FSTP_CPU_WAIT_RESULT_CANCELLED, "CANCELLED") \
		FSTC_U64(observed_value, UINT64_C(0xf5c00000001f055a)) \
	) \
	FSTC_EVENT(fencescope_os, cpu_signal, \
		FSTC_U32(process_id, UINT32_C(0xc0002000)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000002001a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000020025a)) \
	) \
	FSTC_EVENT(fencescope_os, interrupt_handled, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002100)) \
		FSTC_U32(engine_id, UINT32_C(0xc0002101)) \
		FSTC_ENUM(type, interrupt_type, u8, FSTP_INTERRUPT_TYPE_PAGE_FAULT, "PAGE_FAULT") \
		FSTC_ENUM(form, interrupt_form, u8, FSTP_INTERRUPT_FORM_FENCE_ARRAY, "FENCE_ARRAY") \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000002104a5)) \
		FSTC_U32(fence_count, UINT32_C(0xc0002105)) \
		FSTC_U32(waiters_released, UINT32_C(0xc0002106)) \
	) \
	FSTC_EVENT(fencescope_os, fence_log_read, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002200)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000002201a5)) \
		FSTC_ENUM(log_type, log_type, u8, FSTP_LOG_TYPE_SIGNALS, "SIGNALS") \
		FSTC_U32(first_free_entry_index, UINT32_C(0xc0002203)) \
		FSTC_U32(wraparound_count, UINT32_C(0xc0002204)) \
		FSTC_U32(new_entries, UINT32_C(0xc0002205)) \
	) \
	FSTC_EVENT(fencescope_os, fence_log_entry, \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000002300a5)) \
		FSTC_ENUM(log_type, log_type, u8, FSTP_LOG_TYPE_SIGNALS, "SIGNALS") \
		FSTC_U64(entry_position, UINT64_C(0xf5c000000023025a)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c00000002303a5)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000002304a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000023055a)) \
		FSTC_ENUM(operation, log_operation, u8, FSTP_LOG_OPERATION_WAIT_UNBLOCKED, "WAIT_UNBLOCKED") \
		FSTC_U64(observed_gpu_ts, UINT64_C(0xf5c000000023075a)) \
		FSTC_U64(end_gpu_ts, UINT64_C(0xf5c000000023085a)) \
	) \
	FSTC_EVENT(fencescope_os, fence_log_overrun, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002400)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000002401a5)) \
		FSTC_ENUM(log_type, log_type, u8, FSTP_LOG_TYPE_SIGNALS, "SIGNALS") \
		FSTC_U64(entries_lost, UINT64_C(0xf5c000000024035a)) \
		FSTC_U32(capacity_entries, UINT32_C(0xc0002404)) \
		FSTC_U64(cached_position, UINT64_C(0xf5c000000024055a)) \
		FSTC_U64(new_position, UINT64_C(0xf5c000000024065a)) \
	) \
	FSTC_EVENT(fencescope_os, fence_log_resize, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002500)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000002501a5)) \
		FSTC_ENUM(log_type, log_type, u8, FSTP_LOG_TYPE_SIGNALS, "SIGNALS") \
		FSTC_U32(old_capacity_entries, UINT32_C(0xc0002503)) \
		FSTC_U32(new_capacity_entries, UINT32_C(0xc0002504)) \
		FSTC_ENUM(reason, log_resize_reason, u8, FSTP_LOG_RESIZE_REASON_TRACING_ENABLED, "TRACING_ENABLED") \
	) \
	FSTC_EVENT(fencescope_os, fence_log_anomaly, \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000002600a5)) \
		FSTC_ENUM(log_type, log_type, u8, FSTP_LOG_TYPE_SIGNALS, "SIGNALS") \
		FSTC_U64(entry_position, UINT64_C(0xf5c000000026025a)) \
		FSTC_ENUM(anomaly, log_anomaly, u8, FSTP_LOG_ANOMALY_UNKNOWN_FENCE, "UNKNOWN_FENCE") \
		FSTC_U64(previous_gpu_ts, UINT64_C(0xf5c000000026045a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000026055a)) \
	) \
	FSTC_EVENT(fencescope_os, fence_scan, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002700)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c00000002701a5)) \
		FSTC_ENUM(reason, scan_reason, u8, FSTP_SCAN_REASON_NULL_HWQUEUE, "NULL_HWQUEUE") \
		FSTC_U32(fences_scanned, UINT32_C(0xc0002703)) \
		FSTC_U32(waiters_released, UINT32_C(0xc0002704)) \
	) \
	FSTC_EVENT(fencescope_os, fence_scan_value, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002800)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000002801a5)) \
		FSTC_U64(current_value, UINT64_C(0xf5c000000028025a)) \
	) \
	FSTC_EVENT(fencescope_os, fence_propagate, \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000002900a5)) \
		FSTC_U32(from_adapter_id, UINT32_C(0xc0002901)) \
		FSTC_U32(to_adapter_id, UINT32_C(0xc0002902)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000029035a)) \
	) \
	FSTC_EVENT(fencescope_os, engine_power, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002a00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0002a01)) \
		FSTC_ENUM(old_state, engine_power, u8, FSTP_ENGINE_POWER_F1, "F1") \
		FSTC_ENUM(new_state, engine_power, u8, FSTP_ENGINE_POWER_F1, "F1") \
	) \
	FSTC_EVENT(fencescope_os, device_power, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002b00)) \
		FSTC_ENUM(old_state, device_power, u8, FSTP_DEVICE_POWER_D3, "D3") \
		FSTC_ENUM(new_state, device_power, u8, FSTP_DEVICE_POWER_D3, "D3") \
	) \
	FSTC_EVENT(fencescope_os, preempt_request, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002c00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0002c01)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000002c02a5)) \
		FSTC_U64(request_id, UINT64_C(0xf5c00000002c035a)) \
		FSTC_ENUM(reason, preempt_reason, u8, FSTP_PREEMPT_REASON_TERMINATION, "TERMINATION") \
	) \
	FSTC_EVENT(fencescope_os, tdr_detect, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a500)) \
		FSTC_U32(engine_id, UINT32_C(0xc000a501)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c0000000a502a5)) \
		FSTC_ENUM(reason, loss_reason, u8, FSTP_LOSS_REASON_ENGINE_HUNG, "ENGINE_HUNG") \
		FSTC_U64(stalled_ns, UINT64_C(0xf5c0000000a5045a)) \
	) \
	FSTC_EVENT(fencescope_os, tdr_begin, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002d00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0002d01)) \
		FSTC_ENUM(reason, loss_reason, u8, FSTP_LOSS_REASON_TERMINATION, "TERMINATION") \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000002d03a5)) \
	) \
	FSTC_EVENT(fencescope_os, tdr_end, \
		FSTC_U32(adapter_id, UINT32_C(0xc0002e00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0002e01)) \
		FSTC_ENUM(result, tdr_result, u8, FSTP_TDR_RESULT_ADAPTER_RESET, "ADAPTER_RESET") \
	) \
	FSTC_EVENT(fencescope_os, call_failed, \
		FSTC_U32(process_id, UINT32_C(0xc0002f00)) \
		FSTC_STR(call, "fencescope \u2713 os:call_failed.call") \
		FSTC_HEX(handle, UINT64_C(0xf5c00000002f02a5)) \
		FSTC_ENUM(status, status, s8, FSTP_STATUS_NOT_SUPPORTED, "NOT_SUPPORTED") \
	) \
	FSTC_EVENT(fencescope_os, doorbell_status, \
		FSTC_U32(process_id, UINT32_C(0xc0004200)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004201a5)) \
		FSTC_HEX(doorbell_handle, UINT64_C(0xf5c00000004202a5)) \
		FSTC_ENUM(old_status, doorbell_status, u8, FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD, "CONNECTED_NOTIFY_KMD") \
		FSTC_ENUM(new_status, doorbell_status, u8, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, "DISCONNECTED_RETRY") \
	) \
	FSTC_EVENT(fencescope_os, doorbell_rotate, \
		FSTC_U32(process_id, UINT32_C(0xc0004300)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004301a5)) \
		FSTC_HEX(doorbell_handle, UINT64_C(0xf5c00000004302a5)) \
		FSTC_U8(is_dummy_page, 1) \
		FSTC_U32(physical_doorbell, UINT32_C(0xc0004304)) \
		FSTC_U32(size_bytes, UINT32_C(0xc0004305)) \
	) \
	FSTC_EVENT(fencescope_os, termination_step, \
		FSTC_U32(process_id, UINT32_C(0xc0004400)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004401a5)) \
		FSTC_ENUM(step, termination_step, u8, FSTP_TERMINATION_STEP_WAIT_BEGIN, "WAIT_BEGIN") \
		FSTC_U64(progress_value, UINT64_C(0xc0c0000000004403)) \
	) \
	FSTC_EVENT(fencescope_os, context_schedule, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a600)) \
		FSTC_U32(process_id, UINT32_C(0xc000a601)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c0000000a602a5)) \
		FSTC_U32(engine_id, UINT32_C(0xc000a603)) \
		FSTC_U32(priority, UINT32_C(0xc000a604)) \
		FSTC_U64(time_slice_ns, UINT64_C(0xf5c0000000a6055a)) \
	) \
	FSTC_EVENT(fencescope_os, context_error, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a700)) \
		FSTC_U32(process_id, UINT32_C(0xc000a701)) \
		FSTC_HEX(device_handle, UINT64_C(0xf5c0000000a702a5)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c0000000a703a5)) \
		FSTC_ENUM(reason, loss_reason, u8, FSTP_LOSS_REASON_PAGE_FAULT, "PAGE_FAULT") \
	) \
	FSTC_EVENT(fencescope_os, flip_queued, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a800)) \
		FSTC_U32(source_id, UINT32_C(0xc000a801)) \
		FSTC_U32(process_id, UINT32_C(0xc000a802)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c0000000a803a5)) \
		FSTC_U64(flip_id, UINT64_C(0xf5c0000000a8045a)) \
	) \
	FSTC_EVENT(fencescope_os, flip_done, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a900)) \
		FSTC_U32(source_id, UINT32_C(0xc000a901)) \
		FSTC_U64(flip_id, UINT64_C(0xf5c0000000a9025a)) \
		FSTC_U64(vsync_count, UINT64_C(0xf5c0000000a9035a)) \
	) \
	FSTC_EVENT(fencescope_os, fault_injected, \
		FSTC_U32(adapter_id, UINT32_C(0xc000aa00)) \
		FSTC_U32(engine_id, UINT32_C(0xc000aa01)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c0000000aa02a5)) \
		FSTC_ENUM(kind, fault_kind, u8, FSTP_FAULT_KIND_CORRUPT_PACKET, "CORRUPT_PACKET") \
		FSTC_U64(detail, UINT64_C(0xf5c0000000aa045a)) \
	) \
	FSTC_EVENT(fencescope_os, va_space_create, \
		FSTC_U32(adapter_id, UINT32_C(0xc000ad00)) \
		FSTC_U32(process_id, UINT32_C(0xc000ad01)) \
		FSTC_U64(va_size_bytes, UINT64_C(0xf5c0000000ad025a)) \
		FSTC_U32(page_table_levels, UINT32_C(0xc000ad03)) \
		FSTC_U32(root_entry_count, UINT32_C(0xc000ad04)) \
	) \
	FSTC_EVENT(fencescope_os, va_space_destroy, \
		FSTC_U32(adapter_id, UINT32_C(0xc000ae00)) \
		FSTC_U32(process_id, UINT32_C(0xc000ae01)) \
	) \
	FSTC_EVENT(fencescope_os, va_reserve, \
		FSTC_U32(adapter_id, UINT32_C(0xc000af00)) \
		FSTC_U32(process_id, UINT32_C(0xc000af01)) \
		FSTC_HEX(gpu_va, UINT64_C(0xf5c0000000af02a5)) \
		FSTC_U64(size_bytes, UINT64_C(0xf5c0000000af035a)) \
		FSTC_HEX(min_va, UINT64_C(0xf5c0000000af04a5)) \
		FSTC_HEX(max_va, UINT64_C(0xf5c0000000af05a5)) \
		FSTC_U8(is_os_picked, 1) \
	) \
	FSTC_EVENT(fencescope_os, va_free, \
		FSTC_U32(adapter_id, UINT32_C(0xc000b000)) \
		FSTC_U32(process_id, UINT32_C(0xc000b001)) \
		FSTC_HEX(gpu_va, UINT64_C(0xf5c0000000b002a5)) \
		FSTC_U64(size_bytes, UINT64_C(0xf5c0000000b0035a)) \
	) \
	FSTC_EVENT(fencescope_os, page_table_create, \
		FSTC_U32(adapter_id, UINT32_C(0xc000b100)) \
		FSTC_U32(process_id, UINT32_C(0xc000b101)) \
		FSTC_HEX(table_id, UINT64_C(0xf5c0000000b102a5)) \
		FSTC_U32(level, UINT32_C(0xc000b103)) \
		FSTC_U32(entry_count, UINT32_C(0xc000b104)) \
		FSTC_ENUM(segment, segment, u8, FSTP_SEGMENT_LOCAL, "LOCAL") \
	) \
	FSTC_EVENT(fencescope_os, page_table_resize, \
		FSTC_U32(adapter_id, UINT32_C(0xc000b200)) \
		FSTC_U32(process_id, UINT32_C(0xc000b201)) \
		FSTC_HEX(table_id, UINT64_C(0xf5c0000000b202a5)) \
		FSTC_U32(old_entry_count, UINT32_C(0xc000b203)) \
		FSTC_U32(new_entry_count, UINT32_C(0xc000b204)) \
	) \
	FSTC_EVENT(fencescope_os, page_table_residency, \
		FSTC_U32(adapter_id, UINT32_C(0xc000b300)) \
		FSTC_U32(process_id, UINT32_C(0xc000b301)) \
		FSTC_HEX(table_id, UINT64_C(0xf5c0000000b302a5)) \
		FSTC_U8(is_resident, 1) \
		FSTC_ENUM(segment, segment, u8, FSTP_SEGMENT_LOCAL, "LOCAL") \
	) \
	FSTC_EVENT(fencescope_os, page_table_destroy, \
		FSTC_U32(adapter_id, UINT32_C(0xc000b400)) \
		FSTC_U32(process_id, UINT32_C(0xc000b401)) \
		FSTC_HEX(table_id, UINT64_C(0xf5c0000000b402a5)) \
	) \
	FSTC_EVENT(fencescope_os, page_fault, \
		FSTC_U32(adapter_id, UINT32_C(0xc000b500)) \
		FSTC_U32(engine_id, UINT32_C(0xc000b501)) \
		FSTC_U32(process_id, UINT32_C(0xc000b502)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c0000000b503a5)) \
		FSTC_HEX(gpu_va, UINT64_C(0xf5c0000000b504a5)) \
		FSTC_ENUM(access, access_kind, u8, FSTP_ACCESS_KIND_WRITE, "WRITE") \
		FSTC_ENUM(fault_type, fault_type, u8, FSTP_FAULT_TYPE_READ_ONLY, "READ_ONLY") \
		FSTC_ENUM(scope, fault_scope, u8, FSTP_FAULT_SCOPE_DEVICE, "DEVICE") \
	) \
	FSTC_EVENT(fencescope_os, fence_cross_adapter_open, \
		FSTC_U32(process_id, UINT32_C(0xc000b600)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c0000000b601a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c0000000b602a5)) \
		FSTC_U32(adapter_id, UINT32_C(0xc000b603)) \
		FSTC_U32(creator_adapter_id, UINT32_C(0xc000b604)) \
		FSTC_ENUM(created_as, fence_object, u8, FSTP_FENCE_OBJECT_MONITORED, "MONITORED") \
		FSTC_ENUM(opened_as, fence_object, u8, FSTP_FENCE_OBJECT_NATIVE, "NATIVE") \
	) \
	FSTC_EVENT(fencescope_kmd, engine_describe, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003000)) \
		FSTC_U32(engine_id, UINT32_C(0xc0003001)) \
		FSTC_ENUM(engine_type, engine_type, u8, FSTP_ENGINE_TYPE_VIDEO, "VIDEO") \
		FSTC_U8(ums_supported, 1) \
		FSTC_ENUM(preempt_granularity, preempt_granularity, u16, FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY, "TRIANGLE_OR_THREAD_GROUP_BOUNDARY") \
		FSTC_ENUM(compute_preempt_granularity, preempt_granularity, u16, FSTP_PREEMPT_GRANULARITY_SHADER_BOUNDARY, "SHADER_BOUNDARY") \
		FSTC_U8(is_preemption_aware, 1) \
	) \
	FSTC_EVENT(fencescope_kmd, clock_correlation, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003100)) \
		FSTC_U64(cpu_ts_ns, UINT64_C(0xf5c000000031015a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000031025a)) \
		FSTC_U64(gpu_ts_frequency_hz, UINT64_C(0xf5c000000031035a)) \
	) \
	FSTC_EVENT(fencescope_kmd, doorbell_create, \
		FSTC_U32(process_id, UINT32_C(0xc0003200)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000003201a5)) \
		FSTC_HEX(doorbell_handle, UINT64_C(0xf5c00000003202a5)) \
		FSTC_ENUM(status, doorbell_status, u8, FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT, "DISCONNECTED_ABORT") \
	) \
	FSTC_EVENT(fencescope_kmd, doorbell_connect, \
		FSTC_U32(process_id, UINT32_C(0xc0003300)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000003301a5)) \
		FSTC_HEX(doorbell_handle, UINT64_C(0xf5c00000003302a5)) \
		FSTC_U32(physical_doorbell, UINT32_C(0xc0003303)) \
		FSTC_ENUM(status, doorbell_status, u8, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, "DISCONNECTED_RETRY") \
	) \
	FSTC_EVENT(fencescope_kmd, doorbell_disconnect, \
		FSTC_U32(process_id, UINT32_C(0xc0003400)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000003401a5)) \
		FSTC_HEX(doorbell_handle, UINT64_C(0xf5c00000003402a5)) \
		FSTC_U32(physical_doorbell, UINT32_C(0xc0003403)) \
		FSTC_ENUM(status, doorbell_status, u8, FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT, "DISCONNECTED_ABORT") \
		FSTC_ENUM(reason, disconnect_reason, u8, FSTP_DISCONNECT_REASON_TERMINATION, "TERMINATION") \
	) \
	FSTC_EVENT(fencescope_kmd, doorbell_victimize, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003500)) \
		FSTC_HEX(victim_hwqueue_handle, UINT64_C(0xf5c00000003501a5)) \
		FSTC_HEX(victim_doorbell_handle, UINT64_C(0xf5c00000003502a5)) \
		FSTC_HEX(connecting_hwqueue_handle, UINT64_C(0xf5c00000003503a5)) \
		FSTC_U32(physical_doorbell, UINT32_C(0xc0003504)) \
	) \
	FSTC_EVENT(fencescope_kmd, doorbell_destroy, \
		FSTC_U32(process_id, UINT32_C(0xc0003600)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000003601a5)) \
		FSTC_HEX(doorbell_handle, UINT64_C(0xf5c00000003602a5)) \
	) \
	FSTC_EVENT(fencescope_kmd, set_fence_log_buffer, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003700)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000003701a5)) \
		FSTC_ENUM(log_type, log_type, u8, FSTP_LOG_TYPE_SIGNALS, "SIGNALS") \
		FSTC_U32(capacity_entries, UINT32_C(0xc0003703)) \
		FSTC_U32(generation, UINT32_C(0xc0003704)) \
	) \
	FSTC_EVENT(fencescope_kmd, update_monitored_value, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003800)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000003801a5)) \
		FSTC_U64(monitored_value, UINT64_C(0xf5c000000038025a)) \
		FSTC_U32(waiter_count, UINT32_C(0xc0003803)) \
		FSTC_U64(current_value, UINT64_C(0xf5c000000038045a)) \
	) \
	FSTC_EVENT(fencescope_kmd, update_current_value, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003900)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000003901a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000039025a)) \
		FSTC_U8(notification_only, 1) \
	) \
	FSTC_EVENT(fencescope_kmd, create_native_fence, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a000)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c0000000a001a5)) \
		FSTC_U64(initial_value, UINT64_C(0xf5c0000000a0025a)) \
	) \
	FSTC_EVENT(fencescope_kmd, open_native_fence, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a100)) \
		FSTC_U32(process_id, UINT32_C(0xc000a101)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c0000000a102a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c0000000a103a5)) \
	) \
	FSTC_EVENT(fencescope_kmd, close_native_fence, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a200)) \
		FSTC_U32(process_id, UINT32_C(0xc000a201)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c0000000a202a5)) \
		FSTC_HEX(fence_handle, UINT64_C(0xf5c0000000a203a5)) \
	) \
	FSTC_EVENT(fencescope_kmd, destroy_native_fence, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a300)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c0000000a301a5)) \
		FSTC_U64(final_value, UINT64_C(0xf5c0000000a3025a)) \
	) \
	FSTC_EVENT(fencescope_kmd, update_native_fence_logs, \
		FSTC_U32(adapter_id, UINT32_C(0xc000a400)) \
		FSTC_SEQ(hwqueue_handles, 2, UINT64_C(0xf5c1000000a40000), UINT64_C(0xf5c1000000a40001)) \
	) \
	FSTC_EVENT(fencescope_kmd, context_suspend, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003a00)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000003a01a5)) \
		FSTC_U32(hwqueue_count, UINT32_C(0xc0003a02)) \
		FSTC_ENUM(reason, preempt_reason, u8, FSTP_PREEMPT_REASON_POWER, "POWER") \
	) \
	FSTC_EVENT(fencescope_kmd, context_resume, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003b00)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000003b01a5)) \
		FSTC_U32(hwqueue_count, UINT32_C(0xc0003b02)) \
		FSTC_ENUM(reason, preempt_reason, u8, FSTP_PREEMPT_REASON_TERMINATION, "TERMINATION") \
	) \
	FSTC_EVENT(fencescope_kmd, engine_reset, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003c00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0003c01)) \
		FSTC_U8(is_success, 1) \
	) \
	FSTC_EVENT(fencescope_kmd, adapter_reset, \
		FSTC_U32(adapter_id, UINT32_C(0xc000ab00)) \
		FSTC_U8(is_success, 1) \
	) \
	FSTC_EVENT(fencescope_kmd, page_table_update, \
		FSTC_U32(process_id, UINT32_C(0xc0003d00)) \
		FSTC_HEX(gpu_va, UINT64_C(0xf5c00000003d01a5)) \
		FSTC_U32(page_count, UINT32_C(0xc0003d02)) \
		FSTC_U32(page_size_bytes, UINT32_C(0xc0003d03)) \
		FSTC_U8(is_valid, 1) \
		FSTC_U32(adapter_id, UINT32_C(0xc0003d05)) \
		FSTC_HEX(table_id, UINT64_C(0xf5c00000003d06a5)) \
		FSTC_U32(level, UINT32_C(0xc0003d07)) \
		FSTC_U32(first_entry, UINT32_C(0xc0003d08)) \
	) \
	FSTC_EVENT(fencescope_hw, packet_start, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003e00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0003e01)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000003e02a5)) \
		FSTC_U64(packet_id, UINT64_C(0xf5c00000003e035a)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c00000003e045a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c00000003e055a)) \
	) \
	FSTC_EVENT(fencescope_hw, packet_end, \
		FSTC_U32(adapter_id, UINT32_C(0xc0003f00)) \
		FSTC_U32(engine_id, UINT32_C(0xc0003f01)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000003f02a5)) \
		FSTC_U64(packet_id, UINT64_C(0xf5c00000003f035a)) \
		FSTC_U64(progress_value, UINT64_C(0xf5c00000003f045a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c00000003f055a)) \
		FSTC_ENUM(status, packet_status, u8, FSTP_PACKET_STATUS_PREEMPTED, "PREEMPTED") \
	) \
	FSTC_EVENT(fencescope_hw, ring_fetch, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004000)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004001)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004002a5)) \
		FSTC_U64(read_ptr_bytes, UINT64_C(0xf5c000000040035a)) \
		FSTC_U64(write_ptr_bytes, UINT64_C(0xf5c000000040045a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000040055a)) \
	) \
	FSTC_EVENT(fencescope_hw, fence_value_write, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004100)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004101)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004102a5)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000004103a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000041045a)) \
		FSTC_U64(monitored_value, UINT64_C(0xf5c000000041055a)) \
		FSTC_U8(is_interrupt, 1) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000041075a)) \
	) \
	FSTC_EVENT(fencescope_hw, gpu_wait_begin, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004200)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004201)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004202a5)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000004203a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000042045a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000042055a)) \
	) \
	FSTC_EVENT(fencescope_hw, gpu_wait_end, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004300)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004301)) \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004302a5)) \
		FSTC_HEX(fence_global_handle, UINT64_C(0xf5c00000004303a5)) \
		FSTC_U64(fence_value, UINT64_C(0xf5c000000043045a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000043055a)) \
	) \
	FSTC_EVENT(fencescope_hw, interrupt_raise, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004400)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004401)) \
		FSTC_ENUM(type, interrupt_type, u8, FSTP_INTERRUPT_TYPE_ENGINE_STATE_CHANGE, "ENGINE_STATE_CHANGE") \
		FSTC_ENUM(form, interrupt_form, u8, FSTP_INTERRUPT_FORM_NULL_HWQUEUE, "NULL_HWQUEUE") \
		FSTC_HEX(hwqueue_handle, UINT64_C(0xf5c00000004404a5)) \
		FSTC_SEQ(fence_handles, 3, UINT64_C(0xf5c1000000440500), UINT64_C(0xf5c1000000440501), UINT64_C(0xf5c1000000440502)) \
	) \
	FSTC_EVENT(fencescope_hw, engine_state_change, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004500)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004501)) \
		FSTC_ENUM(new_state, engine_state, u8, FSTP_ENGINE_STATE_HUNG, "HUNG") \
	) \
	FSTC_EVENT(fencescope_hw, preempt_complete, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004600)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004601)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000004602a5)) \
		FSTC_U64(request_id, UINT64_C(0xf5c000000046035a)) \
		FSTC_U64(packet_id, UINT64_C(0xf5c000000046045a)) \
		FSTC_ENUM(granularity, preempt_granularity, u16, FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY, "DMA_BUFFER_BOUNDARY") \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000046065a)) \
		FSTC_U64(work_left_ticks, UINT64_C(0xf5c000000046075a)) \
	) \
	FSTC_EVENT(fencescope_hw, vsync, \
		FSTC_U32(adapter_id, UINT32_C(0xc000ac00)) \
		FSTC_U32(source_id, UINT32_C(0xc000ac01)) \
		FSTC_U64(vsync_count, UINT64_C(0xf5c0000000ac025a)) \
		FSTC_U64(flip_id, UINT64_C(0xf5c0000000ac035a)) \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c0000000ac045a)) \
	) \
	FSTC_EVENT(fencescope_hw, page_fault, \
		FSTC_U32(adapter_id, UINT32_C(0xc0004700)) \
		FSTC_U32(engine_id, UINT32_C(0xc0004701)) \
		FSTC_U32(process_id, UINT32_C(0xc0004702)) \
		FSTC_HEX(context_handle, UINT64_C(0xf5c00000004703a5)) \
		FSTC_HEX(gpu_va, UINT64_C(0xf5c00000004704a5)) \
		FSTC_ENUM(fault_type, fault_type, u8, FSTP_FAULT_TYPE_READ_ONLY, "READ_ONLY") \
		FSTC_U64(gpu_ts, UINT64_C(0xf5c000000047065a)) \
		FSTC_ENUM(access, access_kind, u8, FSTP_ACCESS_KIND_WRITE, "WRITE") \
		FSTC_U64(packet_id, UINT64_C(0xf5c000000047085a)) \
	)
/* clang-format on */

#endif /* FENCESCOPE_CONTRACT_EVENTS_H */
