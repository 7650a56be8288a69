/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST provider `fencescope_kmd`:
 * The DDIs of the kernel-mode driver of the emulated GPU — engine description,
 * GPU clock calibration, doorbells and their victimization, fence log buffers, monitored and
 * current value updates, context suspend/resume, engine reset and page tables.
 *
 * docs/trace-format.md gives the meaning and unit of every field; this header only declares
 * the layout, and tests/contract checks that the two agree. Fields carry handles and values,
 * never pointers, and a tracepoint call neither allocates nor takes a lock.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fencescope_kmd

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "fencescope-kmd.h"

#if !defined(FENCESCOPE_KMD_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FENCESCOPE_KMD_H

#include <stdint.h>
#include <lttng/tracepoint.h>
#include "fencescope-tp-enums.h"

/* These macros are a declarative table, laid out by hand. */
/* clang-format off */

LTTNG_UST_TRACEPOINT_ENUM(fencescope_kmd, engine_type, FSTP_TP_ENUM_VALUES(ENGINE_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_kmd, preempt_granularity, FSTP_TP_ENUM_VALUES(PREEMPT_GRANULARITY))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_kmd, doorbell_status, FSTP_TP_ENUM_VALUES(DOORBELL_STATUS))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_kmd, disconnect_reason, FSTP_TP_ENUM_VALUES(DISCONNECT_REASON))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_kmd, log_type, FSTP_TP_ENUM_VALUES(LOG_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_kmd, preempt_reason, FSTP_TP_ENUM_VALUES(PREEMPT_REASON))

/* engine_describe (UMS-04, PRE-03) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, engine_describe,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  int, engine_type, uint8_t, ums_supported, int, preempt_granularity,
	                  int, compute_preempt_granularity, uint8_t, is_preemption_aware),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_kmd, engine_type, uint8_t, engine_type, engine_type)
		lttng_ust_field_integer(uint8_t, ums_supported, ums_supported)
		lttng_ust_field_enum(fencescope_kmd, preempt_granularity, uint16_t, preempt_granularity, preempt_granularity)
		lttng_ust_field_enum(fencescope_kmd, preempt_granularity, uint16_t, compute_preempt_granularity, compute_preempt_granularity)
		lttng_ust_field_integer(uint8_t, is_preemption_aware, is_preemption_aware)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, engine_describe, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* clock_correlation (GPV-04) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, clock_correlation,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, cpu_ts_ns,
	                  uint64_t, gpu_ts, uint64_t, gpu_ts_frequency_hz),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint64_t, cpu_ts_ns, cpu_ts_ns)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)
		lttng_ust_field_integer(uint64_t, gpu_ts_frequency_hz, gpu_ts_frequency_hz)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, clock_correlation, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* doorbell_create (UMS-08, UMS-09, RES-01) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, doorbell_create,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, doorbell_handle, int, status),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, doorbell_handle, doorbell_handle)
		lttng_ust_field_enum(fencescope_kmd, doorbell_status, uint8_t, status, status)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, doorbell_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* doorbell_connect (UMS-12, UMS-15, FST-06, DST-04) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, doorbell_connect,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, doorbell_handle, uint32_t, physical_doorbell, int, status),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, doorbell_handle, doorbell_handle)
		lttng_ust_field_integer(uint32_t, physical_doorbell, physical_doorbell)
		lttng_ust_field_enum(fencescope_kmd, doorbell_status, uint8_t, status, status)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, doorbell_connect, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* doorbell_disconnect (UMS-23, FST-04, DST-01, TDR-04) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, doorbell_disconnect,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, doorbell_handle, uint32_t, physical_doorbell, int, status,
	                  int, reason),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, doorbell_handle, doorbell_handle)
		lttng_ust_field_integer(uint32_t, physical_doorbell, physical_doorbell)
		lttng_ust_field_enum(fencescope_kmd, doorbell_status, uint8_t, status, status)
		lttng_ust_field_enum(fencescope_kmd, disconnect_reason, uint8_t, reason, reason)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, doorbell_disconnect, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* doorbell_victimize (UMS-22, UMS-23, UMS-24) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, doorbell_victimize,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, victim_hwqueue_handle,
	                  uint64_t, victim_doorbell_handle, uint64_t, connecting_hwqueue_handle,
	                  uint32_t, physical_doorbell),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, victim_hwqueue_handle, victim_hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, victim_doorbell_handle, victim_doorbell_handle)
		lttng_ust_field_integer_hex(uint64_t, connecting_hwqueue_handle, connecting_hwqueue_handle)
		lttng_ust_field_integer(uint32_t, physical_doorbell, physical_doorbell)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, doorbell_victimize, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* doorbell_destroy (RES-02, TRM-01) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, doorbell_destroy,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, doorbell_handle),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, doorbell_handle, doorbell_handle)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, doorbell_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* set_fence_log_buffer (LOG-03, LOG-04) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, set_fence_log_buffer,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, hwqueue_handle,
	                  int, log_type, uint32_t, capacity_entries, uint32_t, generation),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_enum(fencescope_kmd, log_type, uint8_t, log_type, log_type)
		lttng_ust_field_integer(uint32_t, capacity_entries, capacity_entries)
		lttng_ust_field_integer(uint32_t, generation, generation)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, set_fence_log_buffer, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* update_monitored_value (NFV-04, NFV-05, NFV-06, SYN-01, SYN-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, update_monitored_value,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, fence_global_handle,
	                  uint64_t, monitored_value, uint32_t, waiter_count,
	                  uint64_t, current_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, monitored_value, monitored_value)
		lttng_ust_field_integer(uint32_t, waiter_count, waiter_count)
		lttng_ust_field_integer(uint64_t, current_value, current_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, update_monitored_value, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* update_current_value (NFV-13, XAD-08) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, update_current_value,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, fence_global_handle,
	                  uint64_t, fence_value, uint8_t, notification_only),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)
		lttng_ust_field_integer(uint8_t, notification_only, notification_only)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, update_current_value, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* create_native_fence (SHF-01, INT-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, create_native_fence,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, fence_global_handle,
	                  uint64_t, initial_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, initial_value, initial_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, create_native_fence, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* Shared layout of open_native_fence, close_native_fence. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_kmd, native_fence_handle,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id,
	                  uint64_t, fence_global_handle, uint64_t, fence_handle),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)))

/* open_native_fence (SHF-01, SHF-02) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_kmd, native_fence_handle, fencescope_kmd, open_native_fence,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id,
	                  uint64_t, fence_global_handle, uint64_t, fence_handle))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, open_native_fence, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* close_native_fence (SHF-03, SHF-04) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_kmd, native_fence_handle, fencescope_kmd, close_native_fence,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, process_id,
	                  uint64_t, fence_global_handle, uint64_t, fence_handle))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, close_native_fence, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* destroy_native_fence (SHF-04, SHF-05, INT-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, destroy_native_fence,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, fence_global_handle,
	                  uint64_t, final_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, final_value, final_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, destroy_native_fence, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* update_native_fence_logs (SYN-10) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, update_native_fence_logs,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, hwqueue_handles_count,
	                  const uint64_t *, hwqueue_handles),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_sequence(uint64_t, hwqueue_handles, hwqueue_handles, uint32_t, hwqueue_handles_count)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, update_native_fence_logs, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* Shared layout of context_suspend, context_resume. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_kmd, context_run_list,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, context_handle,
	                  uint32_t, hwqueue_count, int, reason),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer(uint32_t, hwqueue_count, hwqueue_count)
		lttng_ust_field_enum(fencescope_kmd, preempt_reason, uint8_t, reason, reason)))

/* context_suspend (SUS-01, DST-01, TRM-03) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_kmd, context_run_list, fencescope_kmd, context_suspend,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, context_handle,
	                  uint32_t, hwqueue_count, int, reason))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, context_suspend, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* context_resume (SUS-04, DST-05) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_kmd, context_run_list, fencescope_kmd, context_resume,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint64_t, context_handle,
	                  uint32_t, hwqueue_count, int, reason))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, context_resume, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* engine_reset (TDR-06) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, engine_reset,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint8_t, is_success),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer(uint8_t, is_success, is_success)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, engine_reset, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* adapter_reset (TDR-06; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, adapter_reset,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint8_t, is_success),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint8_t, is_success, is_success)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, adapter_reset, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* page_table_update (MMU-02, MMU-03; adapter_id .. first_entry: format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_kmd, page_table_update,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, gpu_va,
	                  uint32_t, page_count, uint32_t, page_size_bytes, uint8_t, is_valid,
	                  uint32_t, adapter_id, uint64_t, table_id, uint32_t, level,
	                  uint32_t, first_entry),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, gpu_va, gpu_va)
		lttng_ust_field_integer(uint32_t, page_count, page_count)
		lttng_ust_field_integer(uint32_t, page_size_bytes, page_size_bytes)
		lttng_ust_field_integer(uint8_t, is_valid, is_valid)
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer_hex(uint64_t, table_id, table_id)
		lttng_ust_field_integer(uint32_t, level, level)
		lttng_ust_field_integer(uint32_t, first_entry, first_entry)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_kmd, page_table_update, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* clang-format on */

#endif /* FENCESCOPE_KMD_H */

#include <lttng/tracepoint-event.h>
