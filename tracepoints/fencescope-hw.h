/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST provider `fencescope_hw`:
 * What the emulated GPU does — packets on engines, ring fetches, fence value
 * writes and GPU waits (ground truth that no real GPU reports), interrupts, engine state
 * changes, preemption completion and page faults. Timestamps are GPU ticks.
 *
 * docs/trace-format.md gives the meaning and unit of every field; this header only declares
 * the layout, and tests/contract checks that the two agree. Fields carry handles and values,
 * never pointers, and a tracepoint call neither allocates nor takes a lock.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fencescope_hw

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "fencescope-hw.h"

#if !defined(FENCESCOPE_HW_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FENCESCOPE_HW_H

#include <stdint.h>
#include <lttng/tracepoint.h>
#include "fencescope-tp-enums.h"

/* These macros are a declarative table, laid out by hand. */
/* clang-format off */

LTTNG_UST_TRACEPOINT_ENUM(fencescope_hw, packet_status, FSTP_TP_ENUM_VALUES(PACKET_STATUS))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_hw, interrupt_type, FSTP_TP_ENUM_VALUES(INTERRUPT_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_hw, interrupt_form, FSTP_TP_ENUM_VALUES(INTERRUPT_FORM))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_hw, engine_state, FSTP_TP_ENUM_VALUES(ENGINE_STATE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_hw, preempt_granularity, FSTP_TP_ENUM_VALUES(PREEMPT_GRANULARITY))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_hw, fault_type, FSTP_TP_ENUM_VALUES(FAULT_TYPE))
LTTNG_UST_TRACEPOINT_ENUM(fencescope_hw, access_kind, FSTP_TP_ENUM_VALUES(ACCESS_KIND))

/* packet_start (GPV-09, PRE-15) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, packet_start,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, packet_id, uint64_t, progress_value,
	                  uint64_t, gpu_ts),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, packet_id, packet_id)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, packet_start, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* packet_end (GPV-09, PRE-09) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, packet_end,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, packet_id, uint64_t, progress_value,
	                  uint64_t, gpu_ts, int, status),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, packet_id, packet_id)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)
		lttng_ust_field_enum(fencescope_hw, packet_status, uint8_t, status, status)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, packet_end, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* ring_fetch (UMS-13, UMS-18, SUS-05) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, ring_fetch,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, read_ptr_bytes,
	                  uint64_t, write_ptr_bytes, uint64_t, gpu_ts),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, read_ptr_bytes, read_ptr_bytes)
		lttng_ust_field_integer(uint64_t, write_ptr_bytes, write_ptr_bytes)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, ring_fetch, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* fence_value_write (NFV-01, INT-02, SYN-09) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, fence_value_write,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, fence_global_handle,
	                  uint64_t, fence_value, uint64_t, monitored_value, uint8_t, is_interrupt,
	                  uint64_t, gpu_ts),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)
		lttng_ust_field_integer(uint64_t, monitored_value, monitored_value)
		lttng_ust_field_integer(uint8_t, is_interrupt, is_interrupt)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, fence_value_write, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* Shared layout of gpu_wait_begin, gpu_wait_end. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_hw, gpu_wait,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, fence_global_handle,
	                  uint64_t, fence_value, uint64_t, gpu_ts),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_global_handle, fence_global_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)))

/* gpu_wait_begin (NFV-10, NFV-11, LOG-08) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_hw, gpu_wait, fencescope_hw, gpu_wait_begin,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, fence_global_handle,
	                  uint64_t, fence_value, uint64_t, gpu_ts))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, gpu_wait_begin, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* gpu_wait_end (NFV-11, GPV-07) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_hw, gpu_wait, fencescope_hw, gpu_wait_end,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, hwqueue_handle, uint64_t, fence_global_handle,
	                  uint64_t, fence_value, uint64_t, gpu_ts))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, gpu_wait_end, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* interrupt_raise (INT-02, INT-04, INT-07, INT-11) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, interrupt_raise,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id, int, type,
	                  int, form, uint64_t, hwqueue_handle, uint32_t, fence_handles_count,
	                  const uint64_t *, fence_handles),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_hw, interrupt_type, uint8_t, type, type)
		lttng_ust_field_enum(fencescope_hw, interrupt_form, uint8_t, form, form)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_sequence(uint64_t, fence_handles, fence_handles, uint32_t, fence_handles_count)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, interrupt_raise, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* engine_state_change (FST-02, TDR-03) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, engine_state_change,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  int, new_state),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_enum(fencescope_hw, engine_state, uint8_t, new_state, new_state)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, engine_state_change, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* preempt_complete (PRE-03, PRE-09) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, preempt_complete,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint64_t, context_handle, uint64_t, request_id, uint64_t, packet_id,
	                  int, granularity, uint64_t, gpu_ts, uint64_t, work_left_ticks),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer(uint64_t, request_id, request_id)
		lttng_ust_field_integer(uint64_t, packet_id, packet_id)
		lttng_ust_field_enum(fencescope_hw, preempt_granularity, uint16_t, granularity, granularity)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)
		lttng_ust_field_integer(uint64_t, work_left_ticks, work_left_ticks)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, preempt_complete, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* vsync (PRE-13; format 1.4) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, vsync,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, source_id, uint64_t, vsync_count,
	                  uint64_t, flip_id, uint64_t, gpu_ts),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, source_id, source_id)
		lttng_ust_field_integer(uint64_t, vsync_count, vsync_count)
		lttng_ust_field_integer(uint64_t, flip_id, flip_id)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, vsync, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* page_fault (MMU-14, TDR-06; access and packet_id: format 1.5) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_hw, page_fault,
	LTTNG_UST_TP_ARGS(uint32_t, adapter_id, uint32_t, engine_id,
	                  uint32_t, process_id, uint64_t, context_handle, uint64_t, gpu_va,
	                  int, fault_type, uint64_t, gpu_ts, int, access, uint64_t, packet_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter_id, adapter_id)
		lttng_ust_field_integer(uint32_t, engine_id, engine_id)
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, context_handle, context_handle)
		lttng_ust_field_integer_hex(uint64_t, gpu_va, gpu_va)
		lttng_ust_field_enum(fencescope_hw, fault_type, uint8_t, fault_type, fault_type)
		lttng_ust_field_integer(uint64_t, gpu_ts, gpu_ts)
		lttng_ust_field_enum(fencescope_hw, access_kind, uint8_t, access, access)
		lttng_ust_field_integer(uint64_t, packet_id, packet_id)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_hw, page_fault, LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR)

/* clang-format on */

#endif /* FENCESCOPE_HW_H */

#include <lttng/tracepoint-event.h>
