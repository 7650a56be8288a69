/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's reference: a bare LTTng-UST tracepoint with the shape of a typical
 * fencescope event (a u32 and four u64), to compare the runtime's cost per event against.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fencescope_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "bench-tp.h"

#if !defined(FENCESCOPE_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FENCESCOPE_BENCH_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/* clang-format off */
LTTNG_UST_TRACEPOINT_EVENT(fencescope_bench, bare,
	LTTNG_UST_TP_ARGS(uint32_t, a, uint64_t, b, uint64_t, c, uint64_t, d, uint64_t, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, a, a)
		lttng_ust_field_integer(uint64_t, b, b)
		lttng_ust_field_integer(uint64_t, c, c)
		lttng_ust_field_integer(uint64_t, d, d)
		lttng_ust_field_integer(uint64_t, e, e)))
/* clang-format on */

#endif /* FENCESCOPE_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
