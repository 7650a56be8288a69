/* SPDX-License-Identifier: MIT */
/*
 * An LTTng-UST clock plugin (lttng/ust-clock.h) that makes a sim-mode recording carry the
 * runtime's virtual time: every process of the session loads it through
 * LTTNG_UST_CLOCK_PLUGIN — the session daemon and its consumer daemon as well as the traced
 * program — and reads one shared word, /dev/shm/fencescope-sim-clock-UID, which sim-mode
 * runtimes advance as their virtual time moves (runtime/clock.c). The consumer daemon opens
 * and closes packets with that same clock, so packet boundaries stay in order with the events.
 * The word only grows: a second run continues where the first stopped.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <lttng/ust-clock.h>

#include "common/sim-clock-private.h"

static _Atomic uint64_t *clock_word;

static uint64_t
read64(void)
{
	return atomic_load_explicit(clock_word, memory_order_relaxed);
}

static uint64_t
freq(void)
{
	return 1000000000u;
}

static int
uuid(char *out)
{
	/* One UUID for every sim clock: all sim recordings share the same time base. */
	static const char id[] = "f3c0e5c0-5eed-4c10-8c0c-000000000001";

	memcpy(out, id, LTTNG_UST_UUID_STR_LEN);
	return 0;
}

static const char *
name(void)
{
	return "fencescope_sim";
}

static const char *
description(void)
{
	return "fencescope runtime virtual time (sim mode), ns";
}

void lttng_ust_clock_plugin_init(void);

void
lttng_ust_clock_plugin_init(void)
{
	clock_word = fsr_sim_clock_map();
	if (!clock_word) {
		fprintf(stderr, "fencescope-sim-clock: cannot map the shared clock word; events "
				"keep LTTng's default clock\n");
		return;
	}
	if (lttng_ust_trace_clock_set_read64_cb(read64) ||
	    lttng_ust_trace_clock_set_freq_cb(freq) || lttng_ust_trace_clock_set_uuid_cb(uuid) ||
	    lttng_ust_trace_clock_set_name_cb(name) ||
	    lttng_ust_trace_clock_set_description_cb(description) ||
	    lttng_ust_enable_trace_clock_override())
		fprintf(stderr, "fencescope-sim-clock: LTTng-UST refused the clock override\n");
}
