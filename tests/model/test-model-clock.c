/* SPDX-License-Identifier: MIT */
/*
 * GPU time → trace time as ingest hands it over (docs/trace-format.md "GPU time to trace time",
 * GPV-04): a clock_correlation whose cpu_ts_ns is a raw reading of the trace clock, converted by
 * the reader with the clock class (offset included), and the trace clock's name. The events are
 * built here as ingest builds them from a real trace: an epoch offset, a pair event stamped a
 * little after its sample.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "model-fixture.h"

/* The clock class offset of an LTTng clock: ns since the epoch at the clock's zero. */
#define ORIGIN UINT64_C(1795460000000000000)
/* Raw CLOCK_MONOTONIC (or sim word) readings, 100 MHz counter: tick t ↔ raw 10 t. */
#define RAW0 UINT64_C(5000000000)

static void
objects(uint8_t clock_mode, uint64_t ts)
{
	feed_ok("trace_info", ts, "format_major", U(1), "format_minor", U(0), "clock_mode",
		U(clock_mode), NULL);
	feed_ok("adapter_create", ts, "adapter_id", U(0), "engine_count", U(2),
		"gpu_ts_frequency_hz", U(100000000), NULL);
	feed_ok("process_create", ts, "process_id", U(PID), NULL);
	feed_ok("device_create", ts, "process_id", U(PID), "adapter_id", U(0), "device_handle", DEV,
		NULL);
	feed_ok("context_create", ts, "process_id", U(PID), "device_handle", DEV, "context_handle",
		CTX, "engine_id", U(0), NULL);
	feed_ok("hwqueue_create", ts, "process_id", U(PID), "context_handle", CTX, "hwqueue_handle",
		UQ, "engine_id", U(0), "submission_mode", U(FSTP_SUBMISSION_MODE_USER_MODE),
		"progress_fence_handle", UINT64_C(0x8004000000000001), NULL);
	feed_ok("fence_create", ts, "process_id", U(PID), "adapter_id", U(0), "fence_global_handle",
		FA_G, "fence_handle", FA, "initial_value", U(0), NULL);
}

/* A pair as ingest gives it: stamped `late_ns` after its sample, on clock `clock`. */
static void
pair(uint64_t raw, uint64_t gpu, uint8_t clock, uint64_t late_ns)
{
	struct fsa_event ev;

	fsa_event_clear(&ev);
	ev.type = FSA_EV_CLOCK_CORRELATION;
	ev.ts_ns = ORIGIN + raw + late_ns;
	ev.trace_clock = clock;
	ev.cpu_ts_trace_ns = ORIGIN + raw;
	fsa_event_set(&ev, FSA_F_ADAPTER_ID, 0);
	fsa_event_set(&ev, FSA_F_CPU_TS_NS, raw);
	fsa_event_set(&ev, FSA_F_GPU_TS, gpu);
	fsa_event_set(&ev, FSA_F_GPU_TS_FREQUENCY_HZ, 100000000);
	cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK);
}

/* A wait queued at raw time `queued_raw`, run on the GPU from tick `observed` to `end`. */
static void
wait_box(uint64_t queued_raw, uint64_t observed, uint64_t end, uint64_t read_raw)
{
	feed_ok("fence_wait_queued", ORIGIN + queued_raw, "process_id", U(PID), "hwqueue_handle",
		UQ, "fence_handle", FA, "fence_value", U(1), "progress_value", U(1), NULL);
	feed_ok("fence_log_entry", ORIGIN + read_raw, "hwqueue_handle", UQ, "log_type",
		U(FSTP_LOG_TYPE_WAITS), "entry_position", U(0), "fence_handle", FA,
		"fence_global_handle", FA_G, "fence_value", U(1), "operation",
		U(FSTP_LOG_OPERATION_WAIT_UNBLOCKED), "observed_gpu_ts", U(observed), "end_gpu_ts",
		U(end), NULL);
}

TestSuite(model_clock, .init = fixture_setup, .fini = fixture_teardown);

/* The bug of issue 10: in realtime the model took cpu_ts_ns (raw CLOCK_MONOTONIC) as trace time,
 * 56 years before the events (whose time includes the clock class offset): every box ended
 * before it was queued. */
Test(model_clock, gpv_04_realtime_pairs_land_on_the_trace_clock_with_its_offset)
{
	const struct fsa_op *op;
	const struct fsa_summary *sum;

	objects(FSTP_CLOCK_MODE_REALTIME, ORIGIN + RAW0);
	pair(RAW0, RAW0 / 10, FSA_TRACE_CLOCK_MONOTONIC, 700);
	wait_box(RAW0 + 1000, (RAW0 + 3000) / 10, (RAW0 + 8000) / 10, RAW0 + 20000);
	pair(RAW0 + 10000000, (RAW0 + 10000000) / 10, FSA_TRACE_CLOCK_MONOTONIC, 900);
	cr_assert_eq(finish(), FSA_OK);

	op = find_op(FSA_OP_WAIT, UQ, 1);
	cr_assert_not_null(op);
	cr_assert_eq(op->queued_ns, ORIGIN + RAW0 + 1000);
	/* The sample, not the (later) event timestamp: exact. */
	cr_assert_eq(op->observed_ns, ORIGIN + RAW0 + 3000);
	cr_assert_eq(op->end_ns, ORIGIN + RAW0 + 8000);
	cr_assert_eq(count_anomalies(FSA_ANOM_END_BEFORE_QUEUED), 0);
	cr_assert_eq(count_anomalies(FSA_ANOM_TRACE_CLOCK_MISMATCH), 0);
	sum = fsa_model_borrow_summary(model);
	cr_assert_eq(sum->trace_clock, FSA_TRACE_CLOCK_MONOTONIC);
	cr_assert_eq(sum->gpu_time, FSA_GPU_TIME_CORRELATED);
}

/* Sim: cpu_ts_ns is the sim clock word, converted the same way. */
Test(model_clock, gpv_04_sim_pairs_land_on_the_trace_clock_exactly)
{
	const struct fsa_op *op;

	objects(FSTP_CLOCK_MODE_SIM, ORIGIN + RAW0);
	pair(RAW0, RAW0 / 10, FSA_TRACE_CLOCK_SIM, 0);
	wait_box(RAW0 + 1000, (RAW0 + 3000) / 10, (RAW0 + 8000) / 10, RAW0 + 20000);
	pair(RAW0 + 10000000, (RAW0 + 10000000) / 10, FSA_TRACE_CLOCK_SIM, 0);
	cr_assert_eq(finish(), FSA_OK);
	op = find_op(FSA_OP_WAIT, UQ, 1);
	cr_assert_not_null(op);
	cr_assert_eq(op->end_ns, ORIGIN + RAW0 + 8000);
	cr_assert_eq(fsa_model_borrow_summary(model)->gpu_time, FSA_GPU_TIME_CORRELATED);
}

/* A sim-mode runtime recorded with LTTng's own clock (plain lttng without the clock plugin):
 * virtual GPU times have no place on a real clock. Said once, visibly, and the box ends where
 * its entry was read instead of at a made-up time. */
Test(model_clock, a_sim_run_on_a_real_trace_clock_is_said_and_not_mapped)
{
	const struct fsa_op *op;
	const struct fsa_summary *sum;
	/* Virtual time 1 s; the real clock reads RAW0 and moves 1 µs per event. */
	const uint64_t virtual0 = 1000000000;

	objects(FSTP_CLOCK_MODE_SIM, ORIGIN + RAW0);
	{
		struct fsa_event ev;

		fsa_event_clear(&ev);
		ev.type = FSA_EV_CLOCK_CORRELATION;
		ev.ts_ns = ORIGIN + RAW0 + 500;
		ev.trace_clock = FSA_TRACE_CLOCK_MONOTONIC;
		ev.cpu_ts_trace_ns = ORIGIN + virtual0; /* a virtual time read as monotonic */
		fsa_event_set(&ev, FSA_F_ADAPTER_ID, 0);
		fsa_event_set(&ev, FSA_F_CPU_TS_NS, virtual0);
		fsa_event_set(&ev, FSA_F_GPU_TS, virtual0 / 10);
		fsa_event_set(&ev, FSA_F_GPU_TS_FREQUENCY_HZ, 100000000);
		cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK);
	}
	wait_box(RAW0 + 1000, (virtual0 + 3000) / 10, (virtual0 + 8000) / 10, RAW0 + 2000);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_eq(count_anomalies(FSA_ANOM_TRACE_CLOCK_MISMATCH), 1);
	for (size_t i = 0; i < got.anomaly_count; i++)
		if (got.anomalies[i].kind == FSA_ANOM_TRACE_CLOCK_MISMATCH) {
			cr_assert_eq(got.anomalies[i].a, FSA_TRACE_CLOCK_SIM);
			cr_assert_eq(got.anomalies[i].b, FSA_TRACE_CLOCK_MONOTONIC);
		}
	sum = fsa_model_borrow_summary(model);
	cr_assert_eq(sum->gpu_time, FSA_GPU_TIME_UNMAPPED);
	cr_assert_str_eq(fsa_gpu_time_name(sum->gpu_time), "unmapped");
	op = find_op(FSA_OP_WAIT, UQ, 1);
	cr_assert_not_null(op);
	cr_assert_eq(op->end_ns, ORIGIN + RAW0 + 2000, "the box ends at its read");
	cr_assert_eq(count_anomalies(FSA_ANOM_END_BEFORE_QUEUED), 0);
}

/* Without any usable pair a packet stays at its own events' times; it used to get
 * FSA_TIME_NONE for both ends and was drawn across the whole trace. */
Test(model_clock, a_packet_without_clock_pairs_stays_at_its_events)
{
	objects(FSTP_CLOCK_MODE_REALTIME, ORIGIN + RAW0);
	feed_ok("packet_start", ORIGIN + RAW0 + 1000, "adapter_id", U(0), "engine_id", U(0),
		"hwqueue_handle", UQ, "packet_id", U(7), "progress_value", U(1), "gpu_ts", U(555),
		NULL);
	feed_ok("packet_end", ORIGIN + RAW0 + 3000, "adapter_id", U(0), "engine_id", U(0),
		"hwqueue_handle", UQ, "packet_id", U(7), "progress_value", U(1), "gpu_ts", U(777),
		"status", U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.packet_count, 1);
	cr_assert_eq(got.packets[0].start_ns, ORIGIN + RAW0 + 1000);
	cr_assert_eq(got.packets[0].end_ns, ORIGIN + RAW0 + 3000);
}

/* A realtime runtime under another real clock: the pair's own event time is the best instant on
 * the trace clock. Said, and good to the tracer's latency. */
Test(model_clock, a_realtime_run_on_another_clock_uses_the_pair_event_times_and_says_so)
{
	const struct fsa_op *op;

	objects(FSTP_CLOCK_MODE_REALTIME, ORIGIN + RAW0);
	pair(RAW0, RAW0 / 10, FSA_TRACE_CLOCK_OTHER, 0);
	wait_box(RAW0 + 1000, (RAW0 + 3000) / 10, (RAW0 + 8000) / 10, RAW0 + 20000);
	pair(RAW0 + 10000000, (RAW0 + 10000000) / 10, FSA_TRACE_CLOCK_OTHER, 0);
	cr_assert_eq(finish(), FSA_OK);
	op = find_op(FSA_OP_WAIT, UQ, 1);
	cr_assert_not_null(op);
	cr_assert_eq(op->end_ns, ORIGIN + RAW0 + 8000);
	cr_assert_eq(count_anomalies(FSA_ANOM_TRACE_CLOCK_MISMATCH), 1);
	cr_assert_eq(fsa_model_borrow_summary(model)->gpu_time, FSA_GPU_TIME_EVENT_STAMPED);
}

/* Two pairs close together measure the counter's rate only to a tick over their distance: each
 * pair's GPU side is whole ticks. Extrapolated 10 times as far, that error grew tenfold (a realtime
 * log-overrun recording was 100 ns off the counter 1 ms past two pairs 100 µs apart). A GPU time
 * further past the last pair than the pairs lie apart waits for the next pair instead. */
Test(model_clock, gpv_04_a_rate_measured_over_a_short_segment_is_not_extrapolated_far)
{
	const struct fsa_op *op;

	objects(FSTP_CLOCK_MODE_REALTIME, 1000000);
	/* A 100 MHz counter, gpu = floor(cpu / 10): the first sample 0.9 tick past its tick. */
	feed_ok("clock_correlation", 1000009, "adapter_id", U(0), "cpu_ts_ns", U(1000009), "gpu_ts",
		U(100000), "gpu_ts_frequency_hz", U(100000000), NULL);
	feed_ok("clock_correlation", 1100000, "adapter_id", U(0), "cpu_ts_ns", U(1100000), "gpu_ts",
		U(110000), "gpu_ts_frequency_hz", U(100000000), NULL);
	feed_ok("fence_signal_queued", 1100100, "process_id", U(PID), "hwqueue_handle", UQ,
		"fence_handle", FA, "fence_value", U(1), "progress_value", U(1), NULL);
	/* Ran 1 ms past the last pair, ten times the pairs' distance. */
	feed_ok("fence_log_entry", 2150000, "hwqueue_handle", UQ, "log_type",
		U(FSTP_LOG_TYPE_SIGNALS), "entry_position", U(0), "fence_handle", FA,
		"fence_global_handle", FA_G, "fence_value", U(1), "operation",
		U(FSTP_LOG_OPERATION_SIGNAL_EXECUTED), "observed_gpu_ts", U(0), "end_gpu_ts",
		U(210000), NULL);
	cr_assert_eq(got.op_count, 0, "waits for the next pair");
	feed_ok("clock_correlation", 2200000, "adapter_id", U(0), "cpu_ts_ns", U(2200000), "gpu_ts",
		U(220000), "gpu_ts_frequency_hz", U(100000000), NULL);
	cr_assert_eq(got.op_count, 1);
	op = find_op(FSA_OP_SIGNAL, UQ, 1);
	cr_assert_eq(op->end_ns, 2100000, "interpolated: %llu", (unsigned long long) op->end_ns);
	cr_assert_eq(finish(), FSA_OK);
}

/* A signal of queue UQ and a wait of queue UQ2 for its value, on an adapter without any clock
 * pair (a recording at --loglevel INFO): the GPU ends the signal at tick SIGNAL_END and unblocks
 * the wait at tick WAIT_END, the OS reads the wait log 12 µs before the signal log (as the
 * realtime runtime did), and both boxes end at their reads. */
static void
read_before_its_signal(uint64_t signal_end, uint64_t wait_end)
{
	objects(FSTP_CLOCK_MODE_REALTIME, ORIGIN + RAW0);
	feed_ok("hwqueue_create", ORIGIN + RAW0, "process_id", U(PID), "context_handle", CTX,
		"hwqueue_handle", UQ2, "engine_id", U(0), "submission_mode",
		U(FSTP_SUBMISSION_MODE_USER_MODE), "progress_fence_handle",
		UINT64_C(0x8004000000000002), NULL);
	SIGNAL_QUEUED(ORIGIN + RAW0 + 100, UQ, FA, 1, 1);
	WAIT_QUEUED(ORIGIN + RAW0 + 200, UQ2, FA, 1, 1);
	WAIT_ENTRY(ORIGIN + RAW0 + 50000, UQ2, 0, FA, FA_G, 1, wait_end - 5, wait_end);
	SIGNAL_ENTRY(ORIGIN + RAW0 + 62000, UQ, 0, FA, FA_G, 1, signal_end);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
}

/* GPV-07 without clock pairs: boxes end at their log reads, which are not in the order the GPU
 * ran them (one log is read before another), so the release is found in the adapter's own ticks:
 * a realtime --loglevel INFO recording of producer-consumer had 0 signal→wait edges (the sim one,
 * whose reads share an instant, 206). The wait's end moves to its release's read (counted as a
 * clamped time), so the edge never points back in trace time. */
Test(model_clock, gpv_07_boxes_at_their_reads_are_ordered_by_their_gpu_ticks)
{
	const struct fsa_op *signal = NULL, *wait = NULL;

	read_before_its_signal(1000, 1010);
	for (size_t i = 0; i < got.op_count; i++) {
		if (got.ops[i].hwqueue_handle == UQ && got.ops[i].kind == FSA_OP_SIGNAL &&
		    got.ops[i].fence_global_handle == FA_G)
			signal = &got.ops[i];
		if (got.ops[i].hwqueue_handle == UQ2 && got.ops[i].kind == FSA_OP_WAIT)
			wait = &got.ops[i];
	}
	cr_assert_not_null(signal);
	cr_assert_not_null(wait);
	cr_assert_eq(signal->end_ns, ORIGIN + RAW0 + 62000, "at its read");
	cr_assert_eq(got.edge_count, 1);
	cr_assert_eq(got.edges[0].signal_op_id, signal->id);
	cr_assert_eq(got.edges[0].wait_op_id, wait->id);
	cr_assert_eq(wait->end_ns, signal->end_ns, "moved from its read to its release's");
	cr_assert_geq(got.edges[0].wait_end_ns, got.edges[0].signal_end_ns);
	cr_assert_eq(fsa_model_borrow_summary(model)->clamped_times, 1);
}

/* The same reads, but the GPU ran the signal after the wait ended: not its release (GPV-08: no
 * edge rather than a wrong one). */
Test(model_clock, gpv_07_a_signal_that_ran_after_the_wait_by_gpu_ticks_is_not_its_release)
{
	read_before_its_signal(1020, 1010);
	cr_assert_eq(got.edge_count, 0);
}
