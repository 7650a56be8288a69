/* SPDX-License-Identifier: MIT */
/*
 * The one way fencescope writes a duration for a human: the text report, threshold messages
 * and the viewer (details pane, range statistics, Δt, the ruler's step) all use it, so the
 * same duration reads the same everywhere. An adaptive unit with three decimals: "850 ns",
 * "1.230 µs", "4.560 ms", "1.234 s" (UTF-8 µ). Machine-readable outputs (JSON, CSV, SQLite)
 * carry integer nanoseconds instead. A leaf: no library, no allocation.
 */
#ifndef FSA_DURATION_H
#define FSA_DURATION_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Enough for any u64 duration: "18446744073.710 s". */
#define FSA_DURATION_TEXT_MAX 32

/* Writes NS as "850 ns", "1.230 µs", "4.560 ms" or "1.234 s" into BUF. */
static inline void
fsa_format_duration(char *buf, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.3f µs", (double) ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.3f ms", (double) ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", (double) ns / 1e9);
}

#endif /* FSA_DURATION_H */
