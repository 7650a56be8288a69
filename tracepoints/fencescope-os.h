/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST provider `fencescope_os`:
 * What the OS graphics kernel does — object lifetimes, the kernel-mode scheduler,
 * CPU waiters and signals, interrupt handling, reading the native fence logs (entries, overruns,
 * fallback scans), power, preemption requests and TDR.
 *
 * docs/trace-format.md gives the meaning and unit of every field; this header only declares
 * the layout, and tests/contract checks that the two agree. Fields carry handles and values,
 * never pointers, and a tracepoint call neither allocates nor takes a lock.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fencescope_os

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "fencescope-os.h"

#if !defined(FENCESCOPE_OS_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FENCESCOPE_OS_H

#include <stdint.h>
#include <lttng/tracepoint.h>
#include "fencescope-tp-enums.h"

/* These macros are a declarative table, laid out by hand. */
/* clang-format off */

LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, clock_mode, FSTP_TP_ENUM_VALUES(CLOCK_MODE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, termination, FSTP_TP_ENUM_VALUES(TERMINATION))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, termination_step, FSTP_TP_ENUM_VALUES(TERMINATION_STEP))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, doorbell_model, FSTP_TP_ENUM_VALUES(DOORBELL_MODEL))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, doorbell_status, FSTP_TP_ENUM_VALUES(DOORBELL_STATUS))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, loss_reason, FSTP_TP_ENUM_VALUES(LOSS_REASON))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, fault_kind, FSTP_TP_ENUM_VALUES(FAULT_KIND))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, submission_mode, FSTP_TP_ENUM_VALUES(SUBMISSION_MODE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, fence_type, FSTP_TP_ENUM_VALUES(FENCE_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, segment, FSTP_TP_ENUM_VALUES(SEGMENT))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, access_kind, FSTP_TP_ENUM_VALUES(ACCESS_KIND))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, fault_type, FSTP_TP_ENUM_VALUES(FAULT_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, fault_scope, FSTP_TP_ENUM_VALUES(FAULT_SCOPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, fence_object, FSTP_TP_ENUM_VALUES(FENCE_OBJECT))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, cpu_wait_mode, FSTP_TP_ENUM_VALUES(CPU_WAIT_MODE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, cpu_wait_result, FSTP_TP_ENUM_VALUES(CPU_WAIT_RESULT))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, interrupt_type, FSTP_TP_ENUM_VALUES(INTERRUPT_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, interrupt_form, FSTP_TP_ENUM_VALUES(INTERRUPT_FORM))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, log_type, FSTP_TP_ENUM_VALUES(LOG_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, log_operation, FSTP_TP_ENUM_VALUES(LOG_OPERATION))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, log_resize_reason, FSTP_TP_ENUM_VALUES(LOG_RESIZE_REASON))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, log_anomaly, FSTP_TP_ENUM_VALUES(LOG_ANOMALY))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, scan_reason, FSTP_TP_ENUM_VALUES(SCAN_REASON))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, engine_power, FSTP_TP_ENUM_VALUES(ENGINE_POWER))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, device_power, FSTP_TP_ENUM_VALUES(DEVICE_POWER))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, preempt_reason, FSTP_TP_ENUM_VALUES(PREEMPT_REASON))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, tdr_result, FSTP_TP_ENUM_VALUES(TDR_RESULT))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_os, status, FSTP_TP_ENUM_VALUES(STATUS))

/* trace_info */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, trace_info,
	LTTNG_UST_TP_ARGS(uint32_t, format_major, uint32_t, format_minor,
	                  const char *, runtime_version, int, clock_mode),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, format_major, format_major)
		lttng_ust_field_integer(uint32_t, format_minor, format_minor)
		lttng_ust_field_string(runtime_version, runtime_version)
		lttng_ust_field_enum(fencescope_os, clock_mode, uint8_t, clock_mode, clock_mode)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, trace_info, LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE)

/* process_create (MMU-01) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, process_create,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, const char *, name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_string(name, name)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, process_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* process_terminate (TRM-01, TRM-03) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, process_terminate,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, int, termination),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_enum(fencescope_os, termination, uint8_t, termination, termination)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, process_terminate, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* adapter_create (UMS-04, UMS-17, UMS-20) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, adapter_create,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_count,
	                  uint32_t, doorbell_count, int, doorbell_model,
	                  uint64_t, gpu_ts_frequency_hz, uint8_t, native_fences,
	                  uint8_t, optimized_interrupt),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_count, engine_count)
		lttng_ust_field_integer(uint32_t, doorbell_count, doorbell_count)
		lttng_ust_field_enum(fencescope_os, doorbell_model, uint8_t, doorbell_model, doorbell_model)
		lttng_ust_field_integer(uint64_t, gpu_ts_frequency_hz, gpu_ts_frequency_hz)
		lttng_ust_field_integer(uint8_t, native_fences, native_fences)
		lttng_ust_field_integer(uint8_t, optimized_interrupt, optimized_interrupt)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, adapter_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* Shared layout of device_create, device_destroy. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_os, device,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint32_t, adapter_id,
	                  uint64_t, device_handle),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, device_handle, device_handle)))

/* device_create */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, device, fencescope_os, device_create,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint32_t, adapter_id,
	                  uint64_t, device_handle))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, device_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* device_destroy (TRM-06) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, device, fencescope_os, device_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint32_t, adapter_id,
	                  uint64_t, device_handle))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, device_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* device_lost (TDR-04, TDR-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, device_lost,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, device_handle,
	                  int, reason),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, device_handle, device_handle)
		lttng_ust_field_enum(fencescope_os, loss_reason, uint8_t, reason, reason)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, device_lost, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* Shared layout of context_create, context_destroy. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_os, context,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, device_handle,
	                  uint64_t, context_handle, uint32_t, engine_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, device_handle, device_handle)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)))

/* context_create (PRE-15) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, context, fencescope_os, context_create,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, device_handle,
	                  uint64_t, context_handle, uint32_t, engine_id))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, context_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* context_destroy (TRM-06) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, context, fencescope_os, context_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, device_handle,
	                  uint64_t, context_handle, uint32_t, engine_id))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, context_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* hwqueue_create (UMS-02, LOG-01, LOG-02) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, hwqueue_create,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, context_handle,
	                  uint64_t, hwqueue_handle, uint32_t, engine_id, int, submission_mode,
	                  uint32_t, ring_size_bytes, uint64_t, progress_fence_handle),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_os, submission_mode, uint8_t, submission_mode, submission_mode)
		lttng_ust_field_integer(uint32_t, ring_size_bytes, ring_size_bytes)
		lttng_ust_field_integer_hex(uint64_t, progress_fence_handle, progress_fence_handle)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, hwqueue_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* hwqueue_destroy (TRM-01, TRM-06) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, hwqueue_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, last_queued_value, uint64_t, last_completed_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, last_queued_value, last_queued_value)
		lttng_ust_field_integer(uint64_t, last_completed_value, last_completed_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, hwqueue_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fence_create (SHF-01, XAD-01, XAD-02; fence_object: format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_create,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint32_t, adapter_id,
	                  uint64_t, fence_global_handle, uint64_t, fence_handle, int, fence_type,
	                  uint8_t, is_shared, uint8_t, is_cross_adapter, uint64_t, initial_value,
	                  int, fence_object),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_enum(fencescope_os, fence_type, uint8_t, fence_type, fence_type)
		lttng_ust_field_integer(uint8_t, is_shared, is_shared)
		lttng_ust_field_integer(uint8_t, is_cross_adapter, is_cross_adapter)
		lttng_ust_field_integer(uint64_t, initial_value, initial_value)
		lttng_ust_field_enum(fencescope_os, fence_object, uint8_t, fence_object, fence_object)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* Shared layout of fence_open, fence_close. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_os, fence_handle,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, fence_global_handle,
	                  uint64_t, fence_handle),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)))

/* fence_open (SHF-02) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, fence_handle, fencescope_os, fence_open,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, fence_global_handle,
	                  uint64_t, fence_handle))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_open, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fence_close (SHF-03, SHF-04) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, fence_handle, fencescope_os, fence_close,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, fence_global_handle,
	                  uint64_t, fence_handle))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_close, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fence_destroy (SHF-04, SHF-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_destroy,
	LTTNG_UST_TP_ARGS(uint64_t, fence_global_handle, uint64_t, final_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, final_value, final_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* allocation_create (MMU-05, MMU-13) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, allocation_create,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, device_handle,
	                  uint64_t, allocation_handle, uint64_t, size_bytes, int, segment,
	                  uint32_t, page_size_bytes),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, device_handle, device_handle)
		lttng_ust_field_integer_hex(uint64_t, allocation_handle, allocation_handle)
		lttng_ust_field_integer(uint64_t, size_bytes, size_bytes)
		lttng_ust_field_enum(fencescope_os, segment, uint8_t, segment, segment)
		lttng_ust_field_integer(uint32_t, page_size_bytes, page_size_bytes)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, allocation_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* allocation_destroy (MMU-05, RES-02) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, allocation_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, allocation_handle),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, allocation_handle, allocation_handle)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, allocation_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* allocation_residency (RES-07, DST-01, DST-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, allocation_residency,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, allocation_handle,
	                  uint8_t, is_resident, int, segment),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, allocation_handle, allocation_handle)
		lttng_ust_field_integer(uint8_t, is_resident, is_resident)
		lttng_ust_field_enum(fencescope_os, segment, uint8_t, segment, segment)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, allocation_residency, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* va_map (MMU-04, MMU-06, MMU-07; adapter_id .. segment: format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, va_map,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, allocation_handle,
	                  uint64_t, gpu_va, uint64_t, size_bytes, uint64_t, offset_bytes,
	                  uint32_t, adapter_id, uint8_t, is_os_picked, uint32_t, page_size_bytes,
	                  int, segment),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, allocation_handle, allocation_handle)
		lttng_ust_field_integer_hex(uint64_t, gpu_va, gpu_va)
		lttng_ust_field_integer(uint64_t, size_bytes, size_bytes)
		lttng_ust_field_integer(uint64_t, offset_bytes, offset_bytes)
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint8_t, is_os_picked, is_os_picked)
		lttng_ust_field_integer(uint32_t, page_size_bytes, page_size_bytes)
		lttng_ust_field_enum(fencescope_os, segment, uint8_t, segment, segment)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, va_map, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* va_unmap (MMU-06; adapter_id: format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, va_unmap,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, gpu_va,
	                  uint64_t, size_bytes, uint32_t, adapter_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, gpu_va, gpu_va)
		lttng_ust_field_integer(uint64_t, size_bytes, size_bytes)
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, va_unmap, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* va_space_create (MMU-01, MMU-02, MMU-03; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, va_space_create,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, va_size_bytes,
	                  uint32_t, page_table_levels, uint32_t, root_entry_count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer(uint64_t, va_size_bytes, va_size_bytes)
		lttng_ust_field_integer(uint32_t, page_table_levels, page_table_levels)
		lttng_ust_field_integer(uint32_t, root_entry_count, root_entry_count)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, va_space_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* va_space_destroy (MMU-01, MMU-02; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, va_space_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, va_space_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* va_reserve (MMU-06, MMU-10; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, va_reserve,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, gpu_va,
	                  uint64_t, size_bytes, uint64_t, min_va, uint64_t, max_va,
	                  uint8_t, is_os_picked),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, gpu_va, gpu_va)
		lttng_ust_field_integer(uint64_t, size_bytes, size_bytes)
		lttng_ust_field_integer_hex(uint64_t, min_va, min_va)
		lttng_ust_field_integer_hex(uint64_t, max_va, max_va)
		lttng_ust_field_integer(uint8_t, is_os_picked, is_os_picked)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, va_reserve, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* va_free (MMU-06; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, va_free,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, gpu_va,
	                  uint64_t, size_bytes),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, gpu_va, gpu_va)
		lttng_ust_field_integer(uint64_t, size_bytes, size_bytes)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, va_free, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* page_table_create (MMU-02, MMU-03; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, page_table_create,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, table_id,
	                  uint32_t, level, uint32_t, entry_count, int, segment),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, table_id, table_id)
		lttng_ust_field_integer(uint32_t, level, level)
		lttng_ust_field_integer(uint32_t, entry_count, entry_count)
		lttng_ust_field_enum(fencescope_os, segment, uint8_t, segment, segment)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, page_table_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* page_table_resize (MMU-03; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, page_table_resize,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, table_id,
	                  uint32_t, old_entry_count, uint32_t, new_entry_count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, table_id, table_id)
		lttng_ust_field_integer(uint32_t, old_entry_count, old_entry_count)
		lttng_ust_field_integer(uint32_t, new_entry_count, new_entry_count)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, page_table_resize, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* page_table_residency (MMU-02; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, page_table_residency,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, table_id,
	                  uint8_t, is_resident, int, segment),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, table_id, table_id)
		lttng_ust_field_integer(uint8_t, is_resident, is_resident)
		lttng_ust_field_enum(fencescope_os, segment, uint8_t, segment, segment)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, page_table_residency, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* page_table_destroy (MMU-02; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, page_table_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, table_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, table_id, table_id)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, page_table_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* page_fault (MMU-14, TDR-06; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, page_fault,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id, uint32_t, process_id,
	                  uint64_t, context_handle, uint64_t, gpu_va, int, access, int, fault_type,
	                  int, scope),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer_hex(uint64_t, gpu_va, gpu_va)
		lttng_ust_field_enum(fencescope_os, access_kind, uint8_t, access, access)
		lttng_ust_field_enum(fencescope_os, fault_type, uint8_t, fault_type, fault_type)
		lttng_ust_field_enum(fencescope_os, fault_scope, uint8_t, scope, scope)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, page_fault, LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR)

/* fence_cross_adapter_open (XAD-03, XAD-10, XAD-11; format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_cross_adapter_open,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, fence_global_handle,
	                  uint64_t, fence_handle, uint32_t, adapter_id, uint32_t, creator_adapter_id,
	                  int, created_as, int, opened_as),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, creator_adapter_id, creator_adapter_id)
		lttng_ust_field_enum(fencescope_os, fence_object, uint8_t, created_as, created_as)
		lttng_ust_field_enum(fencescope_os, fence_object, uint8_t, opened_as, opened_as)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_cross_adapter_open, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* submit_command (RES-08, UMS-07, SUS-07) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, submit_command,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, packet_id, uint64_t, progress_value, uint32_t, command_count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, packet_id, packet_id)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)
		lttng_ust_field_integer(uint32_t, command_count, command_count)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, submit_command, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* packet_queued (PRE-06, PRE-07, PRE-15) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, packet_queued,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, packet_id,
	                  uint64_t, resubmission_of, uint8_t, is_paging,
	                  uint64_t, fence_id, uint8_t, is_context_switch),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, packet_id, packet_id)
		lttng_ust_field_integer(uint64_t, resubmission_of, resubmission_of)
		lttng_ust_field_integer(uint8_t, is_paging, is_paging)
		lttng_ust_field_integer(uint64_t, fence_id, fence_id)
		lttng_ust_field_integer(uint8_t, is_context_switch, is_context_switch)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, packet_queued, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* packet_complete (INT-01, GPV-03) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, packet_complete,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, packet_id, uint64_t, progress_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, packet_id, packet_id)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, packet_complete, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* Shared layout of km_fence_wait_unblocked, km_fence_signal_executed. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_os, km_fence_op,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, fence_handle, uint64_t, fence_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)))

/* km_fence_wait_unblocked (LOG-02, XAD-17, GPV-03) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, km_fence_op, fencescope_os, km_fence_wait_unblocked,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, fence_handle, uint64_t, fence_value))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, km_fence_wait_unblocked, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* km_fence_signal_executed (LOG-02, XAD-16, GPV-03) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_os, km_fence_op, fencescope_os, km_fence_signal_executed,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, fence_handle, uint64_t, fence_value))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, km_fence_signal_executed, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* cpu_wait_begin (NFV-06, NFV-07) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, cpu_wait_begin,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, waiter_id,
	                  uint64_t, fence_handle, uint64_t, fence_value, uint64_t, timeout_ns,
	                  int, mode),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer(uint64_t, waiter_id, waiter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)
		lttng_ust_field_integer(uint64_t, timeout_ns, timeout_ns)
		lttng_ust_field_enum(fencescope_os, cpu_wait_mode, uint8_t, mode, mode)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, cpu_wait_begin, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* cpu_wait_end (NFV-07, NFV-09, SYN-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, cpu_wait_end,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, waiter_id,
	                  uint64_t, fence_handle, uint64_t, fence_value, int, result,
	                  uint64_t, observed_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer(uint64_t, waiter_id, waiter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)
		lttng_ust_field_enum(fencescope_os, cpu_wait_result, uint8_t, result, result)
		lttng_ust_field_integer(uint64_t, observed_value, observed_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, cpu_wait_end, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* cpu_signal (NFV-13) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, cpu_signal,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, fence_handle,
	                  uint64_t, fence_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, cpu_signal, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* interrupt_handled (INT-06, INT-10, INT-11, SYN-07) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, interrupt_handled,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id, int, type,
	                  int, form, uint64_t, hwqueue_handle, uint32_t, fence_count,
	                  uint32_t, waiters_released),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_os, interrupt_type, uint8_t, type, type)
		lttng_ust_field_enum(fencescope_os, interrupt_form, uint8_t, form, form)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint32_t, fence_count, fence_count)
		lttng_ust_field_integer(uint32_t, waiters_released, waiters_released)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, interrupt_handled, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* fence_log_read (SYN-10, LOG-17) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_log_read,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, hwqueue_handle,
	                  int, log_type, uint32_t, first_free_entry_index,
	                  uint32_t, wraparound_count, uint32_t, new_entries),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_os, log_type, uint8_t, log_type, log_type)
		lttng_ust_field_integer(uint32_t, first_free_entry_index, first_free_entry_index)
		lttng_ust_field_integer(uint32_t, wraparound_count, wraparound_count)
		lttng_ust_field_integer(uint32_t, new_entries, new_entries)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_log_read, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* fence_log_entry (LOG-07, LOG-08, LOG-10, GPV-06) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_log_entry,
	LTTNG_UST_TP_ARGS(uint64_t, hwqueue_handle, int, log_type,
	                  uint64_t, entry_position, uint64_t, fence_handle,
	                  uint64_t, fence_global_handle, uint64_t, fence_value, int, operation,
	                  uint64_t, observed_gpu_ts, uint64_t, end_gpu_ts),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_os, log_type, uint8_t, log_type, log_type)
		lttng_ust_field_integer(uint64_t, entry_position, entry_position)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)
		lttng_ust_field_enum(fencescope_os, log_operation, uint8_t, operation, operation)
		lttng_ust_field_integer(uint64_t, observed_gpu_ts, observed_gpu_ts)
		lttng_ust_field_integer(uint64_t, end_gpu_ts, end_gpu_ts)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_log_entry, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fence_log_overrun (LOG-16, LOG-17, LOG-19, GPV-08) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_log_overrun,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, hwqueue_handle,
	                  int, log_type, uint64_t, entries_lost, uint32_t, capacity_entries,
	                  uint64_t, cached_position, uint64_t, new_position),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_os, log_type, uint8_t, log_type, log_type)
		lttng_ust_field_integer(uint64_t, entries_lost, entries_lost)
		lttng_ust_field_integer(uint32_t, capacity_entries, capacity_entries)
		lttng_ust_field_integer(uint64_t, cached_position, cached_position)
		lttng_ust_field_integer(uint64_t, new_position, new_position)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_log_overrun, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* fence_log_resize (LOG-04, LOG-20) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_log_resize,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, hwqueue_handle,
	                  int, log_type, uint32_t, old_capacity_entries,
	                  uint32_t, new_capacity_entries, int, reason),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_os, log_type, uint8_t, log_type, log_type)
		lttng_ust_field_integer(uint32_t, old_capacity_entries, old_capacity_entries)
		lttng_ust_field_integer(uint32_t, new_capacity_entries, new_capacity_entries)
		lttng_ust_field_enum(fencescope_os, log_resize_reason, uint8_t, reason, reason)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_log_resize, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fence_log_anomaly (LOG-09, LOG-21, LOG-22) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_log_anomaly,
	LTTNG_UST_TP_ARGS(uint64_t, hwqueue_handle, int, log_type,
	                  uint64_t, entry_position, int, anomaly, uint64_t, previous_gpu_ts,
	                  uint64_t, gpu_ts),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_os, log_type, uint8_t, log_type, log_type)
		lttng_ust_field_integer(uint64_t, entry_position, entry_position)
		lttng_ust_field_enum(fencescope_os, log_anomaly, uint8_t, anomaly, anomaly)
		lttng_ust_field_integer(uint64_t, previous_gpu_ts, previous_gpu_ts)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_log_anomaly, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* fence_scan (LOG-18, INT-06, INT-12) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_scan,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, device_handle,
	                  int, reason, uint32_t, fences_scanned, uint32_t, waiters_released),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, device_handle, device_handle)
		lttng_ust_field_enum(fencescope_os, scan_reason, uint8_t, reason, reason)
		lttng_ust_field_integer(uint32_t, fences_scanned, fences_scanned)
		lttng_ust_field_integer(uint32_t, waiters_released, waiters_released)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_scan, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fence_scan_value (LOG-18, GPV-08) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_scan_value,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, fence_global_handle,
	                  uint64_t, current_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, current_value, current_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_scan_value, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* fence_propagate (XAD-07, XAD-12, XAD-15) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fence_propagate,
	LTTNG_UST_TP_ARGS(uint64_t, fence_global_handle,
	                  uint32_t, from_adapter_id, uint32_t, to_adapter_id,
	                  uint64_t, fence_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint32_t, from_adapter_id, from_adapter_id)
		lttng_ust_field_integer(uint32_t, to_adapter_id, to_adapter_id)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fence_propagate, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* engine_power (FST-03, FST-04, FST-06) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, engine_power,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  int, old_state, int, new_state),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_os, engine_power, uint8_t, old_state, old_state)
		lttng_ust_field_enum(fencescope_os, engine_power, uint8_t, new_state, new_state)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, engine_power, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* device_power (DST-01, DST-04, DST-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, device_power,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, int, old_state, int, new_state),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_enum(fencescope_os, device_power, uint8_t, old_state, old_state)
		lttng_ust_field_enum(fencescope_os, device_power, uint8_t, new_state, new_state)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, device_power, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* preempt_request (PRE-04, TDR-01) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, preempt_request,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, context_handle, uint64_t, request_id, int, reason),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer(uint64_t, request_id, request_id)
		lttng_ust_field_enum(fencescope_os, preempt_reason, uint8_t, reason, reason)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, preempt_request, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* tdr_detect (TDR-01, TDR-02, TDR-03; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, tdr_detect,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id, uint64_t, context_handle,
	                  int, reason, uint64_t, stalled_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_enum(fencescope_os, loss_reason, uint8_t, reason, reason)
		lttng_ust_field_integer(uint64_t, stalled_ns, stalled_ns)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, tdr_detect, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* tdr_begin (TDR-01, TDR-02, TDR-03, TDR-06) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, tdr_begin,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id, int, reason,
	                  uint64_t, context_handle),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_os, loss_reason, uint8_t, reason, reason)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, tdr_begin, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* tdr_end (TDR-06) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, tdr_end,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id, int, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_os, tdr_result, uint8_t, result, result)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, tdr_end, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* call_failed */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, call_failed,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, const char *, call,
	                  uint64_t, handle, int, status),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_string(call, call)
		lttng_ust_field_integer_hex(uint64_t, handle, handle)
		lttng_ust_field_enum(fencescope_os, status, int8_t, status, status)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, call_failed, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* doorbell_status (UMS-08, UMS-12, UMS-14, UMS-16, UMS-23, UMS-24; format 1.2) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, doorbell_status,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, doorbell_handle, int, old_status, int, new_status),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, doorbell_handle, doorbell_handle)
		lttng_ust_field_enum(fencescope_os, doorbell_status, uint8_t, old_status, old_status)
		lttng_ust_field_enum(fencescope_os, doorbell_status, uint8_t, new_status, new_status)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, doorbell_status, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* doorbell_rotate (UMS-06, UMS-14, UMS-23, RES-06; format 1.2) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, doorbell_rotate,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, doorbell_handle, uint8_t, is_dummy_page,
	                  uint32_t, physical_doorbell, uint32_t, size_bytes),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, doorbell_handle, doorbell_handle)
		lttng_ust_field_integer(uint8_t, is_dummy_page, is_dummy_page)
		lttng_ust_field_integer(uint32_t, physical_doorbell, physical_doorbell)
		lttng_ust_field_integer(uint32_t, size_bytes, size_bytes)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, doorbell_rotate, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* termination_step (TRM-01, TRM-03, TRM-04, TRM-06; format 1.3) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, termination_step,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  int, step, uint64_t, progress_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_os, termination_step, uint8_t, step, step)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, termination_step, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* context_schedule (PRE-15; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, context_schedule,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, context_handle,
	                  uint32_t, engine_id, uint32_t, priority, uint64_t, time_slice_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer(uint32_t, priority, priority)
		lttng_ust_field_integer(uint64_t, time_slice_ns, time_slice_ns)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, context_schedule, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* context_error (TDR-04, TDR-05; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, context_error,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id, uint64_t, device_handle,
	                  uint64_t, context_handle, int, reason),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, device_handle, device_handle)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_enum(fencescope_os, loss_reason, uint8_t, reason, reason)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, context_error, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* flip_queued (PRE-13; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, flip_queued,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, source_id, uint32_t, process_id,
	                  uint64_t, context_handle, uint64_t, flip_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, source_id, source_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer(uint64_t, flip_id, flip_id)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, flip_queued, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* flip_done (PRE-13; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, flip_done,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, source_id, uint64_t, flip_id,
	                  uint64_t, vsync_count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, source_id, source_id)
		lttng_ust_field_integer(uint64_t, flip_id, flip_id)
		lttng_ust_field_integer(uint64_t, vsync_count, vsync_count)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, flip_done, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fault_injected (issue 13 fault injection; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_os, fault_injected,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id, uint64_t, hwqueue_handle,
	                  int, kind, uint64_t, detail),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_os, fault_kind, uint8_t, kind, kind)
		lttng_ust_field_integer(uint64_t, detail, detail)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_os, fault_injected, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* clang-format on */

#endif /* FENCESCOPE_OS_H */

#include <lttng/tracepoint-event.h>
