/* SPDX-License-Identifier: MIT */
/*
 * The runtime's tracing, end to end (suite e2e): record fencescope-sim-workload with a private
 * lttng-sessiond, read the trace back with libbabeltrace2, and check that the runtime's state
 * changes arrived with the totals the workload implies — 40 signals, 20 GPU waits on a
 * user-mode queue, 2 software waits on a kernel-mode queue — and that every fence log entry is
 * either read or counted as lost to an overrun (LOG-11, LOG-17, LOG-19). Then record the same
 * seed again: the events and their fields must be the same, in the same order.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "lttng-harness.h"
#include "trace-reader.h"

#define SIGNALS      40
#define GPU_WAITS    20
#define KERNEL_WAITS 2

static struct fst_trace *
record(const char *seed, char *dir)
{
	const char *const argv[] = {FST_SIM_WORKLOAD, seed, NULL};
	struct fst_record_options options = {
	    .argv = argv,
	    .event_pattern = "fencescope_*",
	    .timeout_s = 90,
	};
	struct fst_trace *trace = NULL;
	char *error = NULL;

	cr_assert_not_null(mkdtemp(dir));
	options.output_dir = dir;
	cr_assert_eq(fst_lttng_record(&options, &error), 0, "recording failed: %s", error);
	cr_assert_eq(fst_trace_read(dir, &trace, &error), 0, "reading failed: %s", error);
	return trace;
}

static uint64_t
field_u64(const struct fst_event *event, const char *name)
{
	for (size_t f = 0; f < event->field_count; f++)
		if (strcmp(event->fields[f].name, name) == 0)
			return event->fields[f].u;
	cr_assert_fail("%s has no field %s", event->name, name);
	return 0;
}

/* One global fence as the driver's events show it. */
struct traced_fence {
	uint64_t global_handle;
	unsigned int open_handles;
	bool has_been_opened;
	bool is_destroyed;
};

/*
 * SHF-01, SHF-04, SHF-05 read from the recorded trace: CreateNativeFence before any open of
 * the fence, OpenNativeFence of the creator right after it; DestroyNativeFence once, after
 * every handle's CloseNativeFence; nothing names a fence after its destruction.
 */
static void
expect_native_fence_ddi_order(const struct fst_trace *trace)
{
	struct traced_fence fences[4096];
	size_t fence_count = 0;
	size_t destroyed = 0;

	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		struct traced_fence *fence = NULL;
		uint64_t global;

		if (strncmp(event->name, "fencescope_kmd:", 15) != 0 ||
		    !strstr(event->name, "_native_fence") || strstr(event->name, "logs"))
			continue;
		global = field_u64(event, "fence_global_handle");
		for (size_t f = 0; f < fence_count; f++)
			if (fences[f].global_handle == global)
				fence = &fences[f];
		if (strcmp(event->name, "fencescope_kmd:create_native_fence") == 0) {
			cr_assert_null(fence, "0x%llx created twice", (unsigned long long) global);
			cr_assert_lt(fence_count, sizeof(fences) / sizeof(fences[0]));
			fences[fence_count++] = (struct traced_fence){.global_handle = global};
			continue;
		}
		cr_assert_not_null(fence, "%s of 0x%llx before its create_native_fence (SHF-01)",
				   event->name, (unsigned long long) global);
		cr_assert_not(fence->is_destroyed, "%s of 0x%llx after its destruction",
			      event->name, (unsigned long long) global);
		if (strcmp(event->name, "fencescope_kmd:open_native_fence") == 0) {
			if (!fence->has_been_opened)
				cr_expect_str_eq(trace->events[i - 1].name,
						 "fencescope_kmd:create_native_fence",
						 "SHF-01: the creator's open follows the create");
			fence->has_been_opened = true;
			fence->open_handles++;
		} else if (strcmp(event->name, "fencescope_kmd:close_native_fence") == 0) {
			cr_assert_gt(fence->open_handles, 0, "a close without an open");
			fence->open_handles--;
		} else if (strcmp(event->name, "fencescope_kmd:destroy_native_fence") == 0) {
			cr_expect_eq(fence->open_handles, 0,
				     "SHF-04: DestroyNativeFence after every CloseNativeFence");
			fence->is_destroyed = true;
			destroyed++;
		}
	}
	cr_expect_gt(fence_count, 0, "the workload creates fences");
	cr_expect_gt(destroyed, 0, "and destroys some while the runtime runs");
}

Test(runtime_record, every_fence_operation_is_queued_and_logged_or_counted_lost, .timeout = 120)
{
	char dir[] = "/tmp/fsrt-trace-XXXXXX";
	struct fst_trace *trace = record("5", dir);
	size_t executed;
	size_t unblocked;
	uint64_t lost_signals;
	uint64_t lost_waits;

	cr_expect_eq(trace->discarded_events, 0);
	cr_expect_eq(fst_trace_count(trace, "fencescope_os:trace_info", NULL, NULL), 1);
	cr_expect_eq(fst_trace_count(trace, "fencescope_umd:fence_signal_queued", NULL, NULL),
		     SIGNALS);
	cr_expect_eq(fst_trace_count(trace, "fencescope_umd:fence_wait_queued", NULL, NULL),
		     GPU_WAITS + KERNEL_WAITS);
	cr_expect_eq(fst_trace_count(trace, "fencescope_hw:fence_value_write", NULL, NULL) -
			 fst_trace_count(trace, "fencescope_umd:ring_write", NULL, NULL),
		     SIGNALS, "one value write per signal, plus one progress write per buffer");
	cr_expect_eq(fst_trace_count(trace, "fencescope_os:km_fence_wait_unblocked", NULL, NULL),
		     KERNEL_WAITS);
	cr_expect_eq(fst_trace_count(trace, "fencescope_hw:gpu_wait_end", NULL, NULL), GPU_WAITS);

	/* LOG-11 and LOG-17: each operation's entry was read, or counted in an overrun. */
	executed =
	    fst_trace_count(trace, "fencescope_os:fence_log_entry", "operation", "SIGNAL_EXECUTED");
	unblocked =
	    fst_trace_count(trace, "fencescope_os:fence_log_entry", "operation", "WAIT_UNBLOCKED");
	lost_signals = fst_trace_sum(trace, "fencescope_os:fence_log_overrun", "entries_lost",
				     "log_type", "SIGNALS");
	lost_waits = fst_trace_sum(trace, "fencescope_os:fence_log_overrun", "entries_lost",
				   "log_type", "WAITS");
	/* The signals logs hold the progress write of each user-mode buffer too (HPF-02). */
	cr_expect_eq(executed + lost_signals,
		     SIGNALS + fst_trace_count(trace, "fencescope_umd:ring_write", NULL, NULL),
		     "%zu read + %llu lost", executed, (unsigned long long) lost_signals);
	cr_expect_eq(unblocked + lost_waits, GPU_WAITS, "%zu read + %llu lost", unblocked,
		     (unsigned long long) lost_waits);
	/* The workload's logs hold 16 entries and are read rarely: an overrun must happen. */
	cr_expect_gt(lost_signals, 0, "no overrun was provoked");
	cr_expect_geq(fst_trace_count(trace, "fencescope_os:fence_scan", NULL, NULL), 1,
		      "an overrun falls back to a scan (LOG-18)");
	cr_expect_geq(fst_trace_count(trace, "fencescope_kmd:clock_correlation", NULL, NULL), 1);
	cr_expect_geq(fst_trace_count(trace, "fencescope_kmd:update_monitored_value", NULL, NULL),
		      2);

	expect_native_fence_ddi_order(trace);
	cr_expect_geq(fst_trace_count(trace, "fencescope_kmd:update_native_fence_logs", NULL, NULL),
		      1, "SYN-10: the barrier before log entries are read");

	fst_trace_destroy(trace);
	fst_remove_tree(dir);
}

Test(runtime_record, same_seed_records_the_same_events_and_fields, .timeout = 200)
{
	char first_dir[] = "/tmp/fsrt-trace-XXXXXX";
	char second_dir[] = "/tmp/fsrt-trace-XXXXXX";
	struct fst_trace *first = record("11", first_dir);
	struct fst_trace *second = record("11", second_dir);

	cr_assert_eq(first->event_count, second->event_count);
	for (size_t i = 0; i < first->event_count; i++) {
		const struct fst_event *a = &first->events[i];
		const struct fst_event *b = &second->events[i];

		cr_assert_str_eq(a->name, b->name, "event %zu", i);
		cr_assert_eq(a->field_count, b->field_count);
		for (size_t j = 0; j < a->field_count; j++) {
			cr_expect_eq(a->fields[j].u, b->fields[j].u, "event %zu %s.%s", i, a->name,
				     a->fields[j].name);
			cr_expect_eq(a->fields[j].s, b->fields[j].s);
		}
	}
	fst_trace_destroy(first);
	fst_trace_destroy(second);
	fst_remove_tree(first_dir);
	fst_remove_tree(second_dir);
}
