/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST provider `fencescope_umd`:
 * What the user-mode driver does in the application's process — recording
 * fence waits and signals into command buffers (the two "queued" conditions of GPV-01, stamped
 * with the CPU time at which the instruction is recorded, GPV-02), writing rings and ringing
 * doorbells.
 *
 * docs/trace-format.md gives the meaning and unit of every field; this header only declares
 * the layout, and tests/contract checks that the two agree. Fields carry handles and values,
 * never pointers, and a tracepoint call neither allocates nor takes a lock.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fencescope_umd

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "fencescope-umd.h"

#if !defined(FENCESCOPE_UMD_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FENCESCOPE_UMD_H

#include <stdint.h>
#include <lttng/tracepoint.h>
#include "fencescope-tp-enums.h"

/* These macros are a declarative table, laid out by hand. */
/* clang-format off */

LTTNG_UST_TRACEPOINT_ENUM(fencescope_umd, doorbell_status, FSTP_TP_ENUM_VALUES(DOORBELL_STATUS))

/* Shared layout of fence_wait_queued, fence_signal_queued. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fencescope_umd, fence_queued,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, fence_handle, uint64_t, fence_value, uint64_t, progress_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, fence_handle, fence_handle)
		lttng_ust_field_integer(uint64_t, fence_value, fence_value)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)))

/* fence_wait_queued (GPV-01, GPV-02, LOG-05) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_umd, fence_queued, fencescope_umd, fence_wait_queued,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, fence_handle, uint64_t, fence_value, uint64_t, progress_value))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_umd, fence_wait_queued, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* fence_signal_queued (GPV-01, GPV-02, LOG-05) */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fencescope_umd, fence_queued, fencescope_umd, fence_signal_queued,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, fence_handle, uint64_t, fence_value, uint64_t, progress_value))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_umd, fence_signal_queued, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* ring_write (HPF-03, HPF-04, UMS-13) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_umd, ring_write,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, progress_value, uint64_t, write_ptr_bytes,
	                  uint32_t, size_bytes),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)
		lttng_ust_field_integer(uint64_t, write_ptr_bytes, write_ptr_bytes)
		lttng_ust_field_integer(uint32_t, size_bytes, size_bytes)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_umd, ring_write, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* doorbell_ring (UMS-13, UMS-14) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_umd, doorbell_ring,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, doorbell_handle, uint64_t, write_ptr_bytes, int, status),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer_hex(uint64_t, doorbell_handle, doorbell_handle)
		lttng_ust_field_integer(uint64_t, write_ptr_bytes, write_ptr_bytes)
		lttng_ust_field_enum(fencescope_umd, doorbell_status, uint8_t, status, status)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_umd, doorbell_ring, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* notify_work_submission (UMS-25) */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_umd, notify_work_submission,
	LTTNG_UST_TP_ARGS(uint32_t, process_id, uint64_t, hwqueue_handle,
	                  uint64_t, progress_value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, process_id, process_id)
		lttng_ust_field_integer_hex(uint64_t, hwqueue_handle, hwqueue_handle)
		lttng_ust_field_integer(uint64_t, progress_value, progress_value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(fencescope_umd, notify_work_submission, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

/* clang-format on */

#endif /* FENCESCOPE_UMD_H */

#include <lttng/tracepoint-event.h>
