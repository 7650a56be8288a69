/* SPDX-License-Identifier: MIT */
/*
 * How the runtime fires the tracepoints of docs/trace-format.md. FSR_TRACE() fires one
 * through LTTng-UST and also counts it and folds its name and integer fields into
 * `stats.trace_hash`, so that tests can check that a sim-mode run is deterministic without
 * recording it. In a sim-mode recording each event takes a nanosecond of virtual time of its
 * own (rt_clock_tick_after_event): no two events share a timestamp. Call it with the runtime
 * lock held: the counters are not atomic.
 *
 * The hash runs on every event, traced or not, so it is kept to a few instructions a field:
 * one multiply-xorshift step per 64-bit value (rt_hash_u64), and the event's name folded in as
 * one value, its FNV-1a, worked out once per call site and cached there (RT_NAME_ID_). Each
 * step is a bijection of the hash for a given value and of the value for a given hash, so a
 * run whose events, fields or order differ gets another hash (but for 64-bit collisions).
 */
#ifndef FENCESCOPE_TRACE_PRIVATE_H
#define FENCESCOPE_TRACE_PRIVATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "fencescope-umd.h"
#include "fencescope-os.h"
#include "fencescope-kmd.h"
#include "fencescope-hw.h"

#define FSR_FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FSR_FNV_PRIME  UINT64_C(0x100000001b3)
#define RT_HASH_MUL    UINT64_C(0x9e3779b97f4a7c15) /* odd: multiplying by it is a bijection */

/* One field: xor it in, multiply (low bits reach the high ones), xorshift (and back down). */
static inline uint64_t
rt_hash_u64(uint64_t hash, uint64_t value)
{
	hash = (hash ^ value) * RT_HASH_MUL;
	return hash ^ (hash >> 32);
}

/* FNV-1a of a string: an event name, once per call site, and the rare string field. */
static inline uint64_t
rt_fnv1a(const char *text)
{
	uint64_t hash = FSR_FNV_OFFSET;

	for (; *text; text++) {
		hash ^= (unsigned char) *text;
		hash *= FSR_FNV_PRIME;
	}
	return hash;
}

static inline uint64_t
rt_hash_str(uint64_t hash, const char *text)
{
	return rt_hash_u64(hash, rt_fnv1a(text));
}

static inline uint64_t
rt_hash_skip(uint64_t hash, const void *pointer)
{
	(void) pointer;
	return hash;
}

/* Integers are hashed by value, strings by content; sequences (pointers) are left out. */
#define RT_HASH_ARG_(hash, x)                                                                      \
	hash = _Generic((x),                                                                       \
		char *: rt_hash_str,                                                               \
		const char *: rt_hash_str,                                                         \
		uint64_t *: rt_hash_skip,                                                          \
		const uint64_t *: rt_hash_skip,                                                    \
		default: rt_hash_u64)(hash, x)

#define RT_NARGS_(...)                                               RT_NARGS_I_(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define RT_NARGS_I_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, n, ...) n
#define RT_CAT_(a, b)                                                a##b
#define RT_CAT(a, b)                                                 RT_CAT_(a, b)
#define RT_EACH_1(m, h, x)                                           m(h, x)
#define RT_EACH_2(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_1(m, h, __VA_ARGS__)
#define RT_EACH_3(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_2(m, h, __VA_ARGS__)
#define RT_EACH_4(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_3(m, h, __VA_ARGS__)
#define RT_EACH_5(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_4(m, h, __VA_ARGS__)
#define RT_EACH_6(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_5(m, h, __VA_ARGS__)
#define RT_EACH_7(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_6(m, h, __VA_ARGS__)
#define RT_EACH_8(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_7(m, h, __VA_ARGS__)
#define RT_EACH_9(m, h, x, ...)                                                                    \
	m(h, x);                                                                                   \
	RT_EACH_8(m, h, __VA_ARGS__)
#define RT_EACH_10(m, h, x, ...)                                                                   \
	m(h, x);                                                                                   \
	RT_EACH_9(m, h, __VA_ARGS__)

/* The event tap's view of a field: integers by value, strings and sequences as 0. */
static inline uint64_t
rt_tap_u64(uint64_t value)
{
	return value;
}

static inline uint64_t
rt_tap_none(const void *pointer)
{
	(void) pointer;
	return 0;
}

#define RT_TAP_ARG_(fields, x)                                                                     \
	(fields)[rt_tap_n_++] = _Generic((x),                                                      \
		char *: rt_tap_none,                                                               \
		const char *: rt_tap_none,                                                         \
		uint64_t *: rt_tap_none,                                                           \
		const uint64_t *: rt_tap_none,                                                     \
		default: rt_tap_u64)(x)

/* The tap a test registered (fsr_runtime_set_event_tap), if any: a member of struct fsr_runtime. */
struct rt_event_tap {
	void (*tap)(void *user_data, const char *name, const uint64_t *fields,
		    uint32_t field_count);
	void *user_data;
};

#define RT_TAP_FIRE_(runtime, provider, event, ...)                                                \
	do {                                                                                       \
		if ((runtime)->event_tap.tap) {                                                    \
			uint64_t rt_tap_fields_[10];                                               \
			uint32_t rt_tap_n_ = 0;                                                    \
			RT_CAT(RT_EACH_, RT_NARGS_(__VA_ARGS__))                                   \
			(RT_TAP_ARG_, rt_tap_fields_, __VA_ARGS__);                                \
			(runtime)->event_tap.tap((runtime)->event_tap.user_data,                   \
						 #provider ":" #event, rt_tap_fields_, rt_tap_n_); \
		}                                                                                  \
	} while (0)

/*
 * The event's name as one hash value: its FNV-1a, worked out by the call site's first event
 * and kept in a static of its own (never 0 once set). Relaxed atomics: runtimes on other
 * threads may race to store the same value.
 */
#define RT_NAME_ID_(id, name)                                                                      \
	do {                                                                                       \
		static _Atomic uint64_t rt_name_id_;                                               \
		id = atomic_load_explicit(&rt_name_id_, memory_order_relaxed);                     \
		if (!id) {                                                                         \
			id = rt_fnv1a(name) | 1;                                                   \
			atomic_store_explicit(&rt_name_id_, id, memory_order_relaxed);             \
		}                                                                                  \
	} while (0)

/*
 * Each argument evaluated once, into a local of its own type (rt_arg1_ ...): the tracepoint
 * (when a session records), the tap and the hash all read the locals, so an argument that
 * computes (hw_gpu_ts(), a load through a pointer) is not worked out twice, and what each of
 * them sees is one value. __auto_type (a GNU C extension that GCC and clang share; __extension__
 * keeps -Wpedantic quiet) decays an array (a string literal) to a pointer, as passing it would;
 * _Generic then picks the hash by the same type as before.
 */
#define RT_BIND_1(a1) __extension__ __auto_type rt_arg1_ = (a1)
#define RT_BIND_2(a1, a2)                                                                          \
	RT_BIND_1(a1);                                                                             \
	__extension__ __auto_type rt_arg2_ = (a2)
#define RT_BIND_3(a1, a2, a3)                                                                      \
	RT_BIND_2(a1, a2);                                                                         \
	__extension__ __auto_type rt_arg3_ = (a3)
#define RT_BIND_4(a1, a2, a3, a4)                                                                  \
	RT_BIND_3(a1, a2, a3);                                                                     \
	__extension__ __auto_type rt_arg4_ = (a4)
#define RT_BIND_5(a1, a2, a3, a4, a5)                                                              \
	RT_BIND_4(a1, a2, a3, a4);                                                                 \
	__extension__ __auto_type rt_arg5_ = (a5)
#define RT_BIND_6(a1, a2, a3, a4, a5, a6)                                                          \
	RT_BIND_5(a1, a2, a3, a4, a5);                                                             \
	__extension__ __auto_type rt_arg6_ = (a6)
#define RT_BIND_7(a1, a2, a3, a4, a5, a6, a7)                                                      \
	RT_BIND_6(a1, a2, a3, a4, a5, a6);                                                         \
	__extension__ __auto_type rt_arg7_ = (a7)
#define RT_BIND_8(a1, a2, a3, a4, a5, a6, a7, a8)                                                  \
	RT_BIND_7(a1, a2, a3, a4, a5, a6, a7);                                                     \
	__extension__ __auto_type rt_arg8_ = (a8)
#define RT_BIND_9(a1, a2, a3, a4, a5, a6, a7, a8, a9)                                              \
	RT_BIND_8(a1, a2, a3, a4, a5, a6, a7, a8);                                                 \
	__extension__ __auto_type rt_arg9_ = (a9)
#define RT_BIND_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                                        \
	RT_BIND_9(a1, a2, a3, a4, a5, a6, a7, a8, a9);                                             \
	__extension__ __auto_type rt_arg10_ = (a10)
#define RT_LOCALS_1  rt_arg1_
#define RT_LOCALS_2  RT_LOCALS_1, rt_arg2_
#define RT_LOCALS_3  RT_LOCALS_2, rt_arg3_
#define RT_LOCALS_4  RT_LOCALS_3, rt_arg4_
#define RT_LOCALS_5  RT_LOCALS_4, rt_arg5_
#define RT_LOCALS_6  RT_LOCALS_5, rt_arg6_
#define RT_LOCALS_7  RT_LOCALS_6, rt_arg7_
#define RT_LOCALS_8  RT_LOCALS_7, rt_arg8_
#define RT_LOCALS_9  RT_LOCALS_8, rt_arg9_
#define RT_LOCALS_10 RT_LOCALS_9, rt_arg10_

/*
 * The event with its arguments already in locals (RT_LOCALS_n): one expansion each use. The
 * hash, the counter and the tap come first and the tracepoint last (but for the sim trace
 * clock's tick, which must follow the event): nothing reads the arguments after the call into
 * LTTng-UST, so the compiler need not keep them in callee-saved registers or on the stack
 * across it and passes them as a bare tracepoint call would.
 */
#define RT_FIRE_(runtime, provider, event, ...)                                                    \
	do {                                                                                       \
		uint64_t rt_hash_ = 0;                                                             \
		uint64_t rt_name_;                                                                 \
		if ((runtime)->clock.mode == FSR_CLOCK_REALTIME) {                                 \
			/* engines fire without the lock; no hash (not reproducible) */            \
			atomic_fetch_add_explicit(&(runtime)->concurrent_events, 1,                \
						  memory_order_relaxed);                           \
			RT_TAP_FIRE_(runtime, provider, event, __VA_ARGS__);                       \
			lttng_ust_tracepoint(provider, event, __VA_ARGS__);                        \
			break;                                                                     \
		}                                                                                  \
		rt_hash_ = (runtime)->stats.trace_hash;                                            \
		RT_NAME_ID_(rt_name_, #provider ":" #event);                                       \
		rt_hash_ = rt_hash_u64(rt_hash_, rt_name_);                                        \
		RT_CAT(RT_EACH_, RT_NARGS_(__VA_ARGS__))(RT_HASH_ARG_, rt_hash_, __VA_ARGS__);     \
		(runtime)->stats.trace_hash = rt_hash_;                                            \
		(runtime)->stats.events++;                                                         \
		RT_TAP_FIRE_(runtime, provider, event, __VA_ARGS__);                               \
		lttng_ust_tracepoint(provider, event, __VA_ARGS__);                                \
		if ((runtime)->clock.trace_clock)                                                  \
			rt_clock_tick_after_event(&(runtime)->clock);                              \
	} while (0)

#define FSR_TRACE(runtime, provider, event, ...)                                                   \
	do {                                                                                       \
		RT_CAT(RT_BIND_, RT_NARGS_(__VA_ARGS__))(__VA_ARGS__);                             \
		RT_FIRE_(runtime, provider, event, RT_CAT(RT_LOCALS_, RT_NARGS_(__VA_ARGS__)));    \
	} while (0)

/* Whether a session records the fencescope_os provider (the OS grows its logs then, LOG-20). */
#define FSR_IS_TRACING() lttng_ust_tracepoint_enabled(fencescope_os, fence_log_entry)

#endif /* FENCESCOPE_TRACE_PRIVATE_H */
