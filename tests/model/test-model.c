/* SPDX-License-Identifier: MIT */
/*
 * analyzer/model on synthetic event sequences: every box, edge, loss and anomaly rule of
 * docs/trace-format.md "How a fence box is rebuilt", with exact numbers. GPU tick g is trace time
 * 10 g ns (the fixture's 100 MHz counter and its correlation pairs).
 */
#include <inttypes.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "model-fixture.h"

static void
setup(void)
{
	fixture_setup();
	fixture_objects(T0);
}

TestSuite(model, .init = setup, .fini = fixture_teardown);

Test(model, gpv_02_wait_box_opens_at_queued_and_splits_at_observed)
{
	const struct fsa_op *op;

	WAIT_QUEUED(T0 + 1000, UQ, FA, 1, 1);
	/* The GPU reached the wait at tick 100300 (1.003 ms) and was released at 100800. */
	WAIT_ENTRY(T0 + 20000, UQ, 0, FA, FA_G, 1, 100300, 100800);
	cr_assert_eq(finish(), FSA_OK);

	op = find_op(FSA_OP_WAIT, UQ, 1);
	cr_assert_not_null(op);
	cr_assert_eq(op->state, FSA_OP_OBSERVED);
	cr_assert_eq(op->source, FSA_SRC_USER_MODE_QUEUE);
	cr_assert_eq(op->queued_ns, T0 + 1000);
	cr_assert_eq(op->observed_ns, 1003000);
	cr_assert_eq(op->end_ns, 1008000);
	cr_assert_eq(op->observed_gpu_ts, 100300);
	cr_assert_eq(op->end_gpu_ts, 100800);
	cr_assert_eq(op->fence_global_handle, FA_G);
	cr_assert_eq(op->log_position, 0);
}

Test(model, gpv_06_signal_box_closes_at_its_log_entry)
{
	const struct fsa_op *op;

	SIGNAL_QUEUED(T0 + 500, UQ, FB, 7, 1);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FB, FB_G, 7, 100600);
	cr_assert_eq(finish(), FSA_OK);
	op = find_op(FSA_OP_SIGNAL, UQ, 7);
	cr_assert_not_null(op);
	cr_assert_eq(op->queued_ns, T0 + 500);
	cr_assert_eq(op->end_ns, 1006000);
	cr_assert_eq(op->observed_ns, FSA_TIME_NONE, "signals have one phase");
	cr_assert_eq(fsa_model_find_fence(model, FB_G)->last_value, 7);
}

Test(model, gpv_05_boxes_match_by_key_not_by_order)
{
	WAIT_QUEUED(T0 + 100, UQ, FA, 1, 1);
	WAIT_QUEUED(T0 + 200, UQ, FA, 2, 1);
	WAIT_QUEUED(T0 + 300, UQ, FB, 1, 1);
	/* Entries come back in another order than queued. */
	WAIT_ENTRY(T0 + 9000, UQ, 0, FB, FB_G, 1, 0, 100500);
	WAIT_ENTRY(T0 + 9000, UQ, 1, FA, FA_G, 2, 0, 100600);
	WAIT_ENTRY(T0 + 9000, UQ, 2, FA, FA_G, 1, 0, 100700);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.op_count, 3);
	for (size_t i = 0; i < got.op_count; i++) {
		const struct fsa_op *op = &got.ops[i];
		uint64_t queued = op->fence_handle == FB ? T0 + 300 : T0 + 100 * op->fence_value;

		cr_assert_eq(op->queued_ns, queued, "op %zu", i);
		cr_assert_eq(op->observed_ns, FSA_TIME_NONE, "observed 0: one phase");
	}
}

Test(model, log_02_kernel_mode_boxes_close_at_the_os_software_command)
{
	const struct fsa_op *wait, *signal;

	WAIT_QUEUED(T0 + 10, KQ, FA, 3, 1);
	SIGNAL_QUEUED(T0 + 20, KQ, FB, 4, 1);
	feed_ok("km_fence_wait_unblocked", T0 + 5000, "process_id", U(PID), "hwqueue_handle", KQ,
		"fence_handle", FA, "fence_value", U(3), NULL);
	feed_ok("km_fence_signal_executed", T0 + 7000, "process_id", U(PID), "hwqueue_handle", KQ,
		"fence_handle", FB, "fence_value", U(4), NULL);
	cr_assert_eq(finish(), FSA_OK);
	wait = find_op(FSA_OP_WAIT, KQ, 3);
	signal = find_op(FSA_OP_SIGNAL, KQ, 4);
	cr_assert(wait && signal);
	cr_assert_eq(wait->source, FSA_SRC_KERNEL_MODE_QUEUE);
	cr_assert_eq(wait->end_ns - wait->queued_ns, 4990);
	cr_assert_eq(signal->end_ns - signal->queued_ns, 6980);
}

Test(model, gpv_07_edge_joins_signal_and_wait_across_queues)
{
	const struct fsa_op *wait, *signal;

	SIGNAL_QUEUED(T0 + 100, UQ, FA, 5, 1);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 5, 1);
	/* The waiting queue's log is read first; the edge must still be found. */
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 5, 100050, 100400);
	SIGNAL_ENTRY(T0 + 9500, UQ, 0, FA, FA_G, 5, 100390);
	cr_assert_eq(finish(), FSA_OK);
	wait = find_op(FSA_OP_WAIT, UQ2, 5);
	signal = find_op(FSA_OP_SIGNAL, UQ, 5);
	cr_assert(wait && signal);
	cr_assert_eq(wait->signal_op_id, signal->id);
	cr_assert_eq(got.edge_count, 1);
	cr_assert_eq(got.edges[0].signal_op_id, signal->id);
	cr_assert_eq(got.edges[0].wait_op_id, wait->id);
	cr_assert_eq(got.edges[0].signal_hwqueue_handle, UQ);
	cr_assert_eq(got.edges[0].wait_hwqueue_handle, UQ2);
	cr_assert_eq(got.edges[0].fence_global_handle, FA_G);
	/* The signal is given out before the wait it released. */
	cr_assert_lt(signal - got.ops, wait - got.ops);
}

Test(model, gpv_07_wait_is_released_by_the_first_signal_reaching_its_value)
{
	const struct fsa_op *wait;

	SIGNAL_QUEUED(T0 + 100, UQ, FA, 2, 1);
	SIGNAL_QUEUED(T0 + 110, UQ, FA, 4, 2);
	SIGNAL_QUEUED(T0 + 120, UQ, FA, 6, 3);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 3, 1);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FA, FA_G, 2, 100300);
	SIGNAL_ENTRY(T0 + 9000, UQ, 1, FA, FA_G, 4, 100400);
	SIGNAL_ENTRY(T0 + 9000, UQ, 2, FA, FA_G, 6, 100500);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 3, 100100, 100410);
	cr_assert_eq(finish(), FSA_OK);
	wait = find_op(FSA_OP_WAIT, UQ2, 3);
	cr_assert_not_null(wait);
	cr_assert_eq(wait->signal_op_id, find_op(FSA_OP_SIGNAL, UQ, 4)->id);
}

Test(model, nfv_13_cpu_signal_releases_a_cpu_wait)
{
	const struct fsa_op *wait = NULL;

	feed_ok("cpu_wait_begin", T0 + 100, "process_id", U(PID), "waiter_id", U(9), "fence_handle",
		FB, "fence_value", U(2), NULL);
	feed_ok("cpu_signal", T0 + 400, "process_id", U(PID), "fence_handle", FB, "fence_value",
		U(2), NULL);
	feed_ok("cpu_wait_end", T0 + 450, "process_id", U(PID), "waiter_id", U(9), "fence_handle",
		FB, "fence_value", U(2), "result", U(FSTP_CPU_WAIT_RESULT_SATISFIED),
		"observed_value", U(2), NULL);
	cr_assert_eq(finish(), FSA_OK);
	for (size_t i = 0; i < got.op_count; i++)
		if (got.ops[i].kind == FSA_OP_WAIT)
			wait = &got.ops[i];
	cr_assert_not_null(wait);
	cr_assert_eq(wait->source, FSA_SRC_CPU);
	cr_assert_eq(wait->end_ns - wait->queued_ns, 350);
	cr_assert_eq(got.edge_count, 1);
	cr_assert_eq(got.edges[0].signal_source, FSA_SRC_CPU);
}

Test(model, gpv_04_gpu_time_maps_piecewise_between_pairs)
{
	const struct fsa_op *op;
	const struct fsa_clock_fit *fit;

	/* The counter drifts: 10 ns per tick up to 2 ms, then 10.01 ns per tick. */
	PAIR(2000000, 200000);
	PAIR(3001000, 300000);
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 1, 1);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FA, FA_G, 1, 250000);
	PAIR(4002000, 400000);
	cr_assert_eq(finish(), FSA_OK);
	op = find_op(FSA_OP_SIGNAL, UQ, 1);
	cr_assert_not_null(op);
	cr_assert_eq(op->end_ns, 2500500, "halfway between the pairs: %llu",
		     (unsigned long long) op->end_ns);
	cr_assert_eq(fsa_model_gpu_to_trace(model, 0, 150000), 1500000);
	cr_assert_eq(fsa_model_clock_fit_count(model), 1);
	fit = fsa_model_borrow_clock_fit(model, 0);
	cr_assert_eq(fit->pair_count, 5, "the fixture's two and these three");
	cr_assert_gt(fit->residual_max_ns, 0.0, "a drifting counter leaves a residual");
	cr_assert_lt(fit->residual_max_ns, 2000.0);
	cr_assert_float_eq(fit->ns_per_tick, 10.0, 0.01);
}

/*
 * LOG-16..18, GPV-08: a signal log of capacity 4 with 10 signals queued. The OS read entries 0
 * and 1, then found the header at position 10: 10 - 2 - 4 = 4 entries (positions 2..5) lost. It
 * reads positions 6..9 and the scan finds the fence at 10: the four lost signals are inferred,
 * never drawn as observed, between the last entry read before and the first entry after.
 */
Test(model, log_17_overrun_counts_exactly_and_marks_the_lost_operations_inferred)
{
	const struct fsa_loss *loss;
	size_t inferred = 0, observed = 0;

	for (unsigned v = 1; v <= 10; v++)
		SIGNAL_QUEUED(T0 + v, UQ, FA, v, v);
	SIGNAL_ENTRY(T0 + 5000, UQ, 0, FA, FA_G, 1, 100100);
	SIGNAL_ENTRY(T0 + 5000, UQ, 1, FA, FA_G, 2, 100200);
	feed_ok("fence_log_overrun", T0 + 20000, "adapter_id", U(0), "hwqueue_handle", UQ,
		"log_type", U(FSTP_LOG_TYPE_SIGNALS), "entries_lost", U(4), "capacity_entries",
		U(4), "cached_position", U(2), "new_position", U(10), NULL);
	for (unsigned v = 7; v <= 10; v++)
		SIGNAL_ENTRY(T0 + 20000, UQ, v - 1, FA, FA_G, v, 100000 + 100 * v);
	feed_ok("fence_scan_value", T0 + 20000, "adapter_id", U(0), "fence_global_handle", FA_G,
		"current_value", U(10), NULL);
	feed_ok("fence_scan", T0 + 20000, "adapter_id", U(0), "device_handle", DEV, "reason",
		U(FSTP_SCAN_REASON_LOG_OVERRUN), "fences_scanned", U(2), NULL);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_eq(got.loss_count, 1);
	loss = &got.losses[0];
	cr_assert_eq(loss->kind, FSA_LOSS_LOG_OVERRUN);
	cr_assert_eq(loss->count, 4);
	cr_assert_eq(loss->hwqueue_handle, UQ);
	cr_assert_eq(loss->log_type, FSTP_LOG_TYPE_SIGNALS);
	cr_assert_eq(loss->inferred_ops, 4);
	cr_assert_eq(loss->begin_ns, 1002000, "after the last entry read before the overrun");
	cr_assert_eq(loss->end_ns, 1007000, "before the first entry read after it");
	for (size_t i = 0; i < got.op_count; i++) {
		const struct fsa_op *op = &got.ops[i];

		if (op->state == FSA_OP_INFERRED) {
			inferred++;
			cr_assert(op->fence_value >= 3 && op->fence_value <= 6, "value %llu",
				  (unsigned long long) op->fence_value);
			cr_assert_eq(op->end_ns, FSA_TIME_NONE,
				     "inferred ops have no observed end");
			cr_assert_eq(op->inferred_begin_ns, 1002000);
			cr_assert_eq(op->inferred_end_ns, 1007000);
		} else {
			observed++;
			cr_assert_eq(op->state, FSA_OP_OBSERVED);
		}
	}
	cr_assert_eq(inferred, 4);
	cr_assert_eq(observed, 6);
	cr_assert_eq(fsa_model_borrow_summary(model)->log_entries_lost, 4);
	cr_assert_eq(fsa_model_borrow_summary(model)->inferred_ops, 4);
	cr_assert_eq(count_anomalies(FSA_ANOM_SIGNAL_NEVER_EXECUTED), 0);
}

Test(model, log_18_scan_below_the_value_leaves_the_operation_open)
{
	SIGNAL_QUEUED(T0 + 1, UQ, FA, 1, 1);
	SIGNAL_QUEUED(T0 + 2, UQ, FA, 2, 2);
	feed_ok("fence_log_overrun", T0 + 20000, "adapter_id", U(0), "hwqueue_handle", UQ,
		"log_type", U(FSTP_LOG_TYPE_SIGNALS), "entries_lost", U(1), "capacity_entries",
		U(4), "cached_position", U(0), "new_position", U(5), NULL);
	feed_ok("fence_scan_value", T0 + 20000, "adapter_id", U(0), "fence_global_handle", FA_G,
		"current_value", U(1), NULL);
	feed_ok("fence_scan", T0 + 20000, "adapter_id", U(0), "device_handle", DEV, "reason",
		U(FSTP_SCAN_REASON_LOG_OVERRUN), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 1)->state, FSA_OP_INFERRED);
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 2)->state, FSA_OP_NEVER_COMPLETED);
	cr_assert_eq(got.losses[0].inferred_ops, 1);
	cr_assert_eq(count_anomalies(FSA_ANOM_SIGNAL_NEVER_EXECUTED), 1);
}

Test(model, tracer_discarded_events_become_a_loss_with_its_range)
{
	struct fsa_discard discard = {
	    .kind = FSA_DISCARD_EVENTS,
	    .count = 123,
	    .begin_ns = T0 + 10,
	    .end_ns = T0 + 90,
	    .has_range = true,
	    .stream_id = 2,
	    .cpu_id = 1,
	};

	cr_assert_eq(fsa_model_add_discard(model, &discard), FSA_OK);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.loss_count, 1);
	cr_assert_eq(got.losses[0].kind, FSA_LOSS_TRACER_EVENTS);
	cr_assert_eq(got.losses[0].count, 123);
	cr_assert_eq(got.losses[0].begin_ns, T0 + 10);
	cr_assert_eq(got.losses[0].end_ns, T0 + 90);
	cr_assert_eq(got.losses[0].cpu_id, 1);
	cr_assert_eq(fsa_model_borrow_summary(model)->tracer_discarded_events, 123);
}

Test(model, hang_candidate_wait_never_unblocked)
{
	const struct fsa_op *op;

	WAIT_QUEUED(T0 + 100, UQ, FA, 99, 1);
	feed_ok("cpu_wait_begin", T0 + 200, "process_id", U(PID), "waiter_id", U(4), "fence_handle",
		FA, "fence_value", U(99), NULL);
	cr_assert_eq(finish(), FSA_OK);
	op = find_op(FSA_OP_WAIT, UQ, 99);
	cr_assert_eq(op->state, FSA_OP_NEVER_COMPLETED);
	cr_assert_eq(op->end_ns, FSA_TIME_NONE);
	cr_assert_eq(count_anomalies(FSA_ANOM_WAIT_NEVER_UNBLOCKED), 2, "GPU and CPU waits");
}

Test(model, queued_without_log_entry_when_its_buffer_completed)
{
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 1, 1);
	feed_ok("packet_start", T0 + 200, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		UQ, "packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100020), NULL);
	feed_ok("packet_end", T0 + 300, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle", UQ,
		"packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100030), "status",
		U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_anomalies(FSA_ANOM_QUEUED_WITHOUT_LOG_ENTRY), 1);
	cr_assert_eq(count_anomalies(FSA_ANOM_SIGNAL_NEVER_EXECUTED), 0);
}

Test(model, log_entry_without_queued_event_is_an_unqueued_box)
{
	const struct fsa_op *op;

	SIGNAL_ENTRY(T0 + 100, UQ, 0, FA, FA_G, 3, 100050);
	cr_assert_eq(finish(), FSA_OK);
	op = find_op(FSA_OP_SIGNAL, UQ, 3);
	cr_assert_eq(op->state, FSA_OP_UNQUEUED);
	cr_assert_eq(op->queued_ns, FSA_TIME_NONE);
	cr_assert_eq(op->end_ns, 1000500);
	cr_assert_eq(count_anomalies(FSA_ANOM_LOG_ENTRY_WITHOUT_QUEUED), 1);
}

Test(model, log_21_22_zero_and_backwards_gpu_timestamps)
{
	SIGNAL_QUEUED(T0 + 1, UQ, FA, 1, 1);
	SIGNAL_QUEUED(T0 + 2, UQ, FA, 2, 1);
	SIGNAL_QUEUED(T0 + 3, UQ, FA, 3, 1);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FA, FA_G, 1, 100500);
	SIGNAL_ENTRY(T0 + 9000, UQ, 1, FA, FA_G, 2, 0);
	SIGNAL_ENTRY(T0 + 9000, UQ, 2, FA, FA_G, 3, 100400);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_anomalies(FSA_ANOM_ZERO_TIMESTAMP), 1);
	cr_assert_eq(count_anomalies(FSA_ANOM_GPU_TIMESTAMP_BACKWARDS), 1, "zero is left out");
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 2)->end_ns, T0 + 9000,
		     "a zero timestamp ends the box at its read");
}

Test(model, trace_timestamps_going_backwards_and_zero)
{
	feed_ok("cpu_signal", T0 + 500, "process_id", U(PID), "fence_handle", FA, "fence_value",
		U(1), NULL);
	feed_ok("cpu_signal", T0 + 400, "process_id", U(PID), "fence_handle", FA, "fence_value",
		U(2), NULL);
	feed_ok("cpu_signal", 0, "process_id", U(PID), "fence_handle", FA, "fence_value", U(3),
		NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_anomalies(FSA_ANOM_TIMESTAMP_BACKWARDS), 1);
	cr_assert_eq(count_anomalies(FSA_ANOM_ZERO_TIMESTAMP), 1);
}

Test(model, fence_value_regression)
{
	feed_ok("cpu_signal", T0 + 100, "process_id", U(PID), "fence_handle", FA, "fence_value",
		U(5), NULL);
	feed_ok("cpu_signal", T0 + 200, "process_id", U(PID), "fence_handle", FA, "fence_value",
		U(3), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_anomalies(FSA_ANOM_VALUE_REGRESSION), 1);
	for (size_t i = 0; i < got.anomaly_count; i++) {
		if (got.anomalies[i].kind != FSA_ANOM_VALUE_REGRESSION)
			continue;
		cr_assert_eq(got.anomalies[i].a, 5);
		cr_assert_eq(got.anomalies[i].b, 3);
	}
}

Test(model, operations_on_destroyed_or_unknown_fences)
{
	feed_ok("fence_close", T0 + 10, "process_id", U(PID), "fence_global_handle", FB_G,
		"fence_handle", FB, NULL);
	feed_ok("fence_destroy", T0 + 11, "fence_global_handle", FB_G, "final_value", U(0), NULL);
	SIGNAL_QUEUED(T0 + 20, UQ, FB, 1, 1);
	SIGNAL_QUEUED(T0 + 30, UQ, UINT64_C(0x999), 1, 1);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_anomalies(FSA_ANOM_OP_ON_DESTROYED_FENCE), 1);
	cr_assert_eq(count_anomalies(FSA_ANOM_UNKNOWN_FENCE), 1);
	cr_assert_eq(fsa_model_find_fence(model, FB_G)->destroyed_ns, T0 + 11);
}

Test(model, gpu_end_mapping_before_the_queued_time_is_reported_not_clamped)
{
	SIGNAL_QUEUED(T0 + 50000, UQ, FA, 1, 1);
	SIGNAL_ENTRY(T0 + 90000, UQ, 0, FA, FA_G, 1, 100100); /* 1.001 ms < 1.05 ms */
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_anomalies(FSA_ANOM_END_BEFORE_QUEUED), 1);
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 1)->end_ns, 1001000);
}

Test(model, refuses_a_newer_format_major_version)
{
	cr_assert_eq(feed("trace_info", T0 + 1, "format_major", U(FSTP_FORMAT_MAJOR + 1),
			  "format_minor", U(0), NULL),
		     FSA_ERR_FORMAT_VERSION);
	cr_assert_eq(feed("cpu_signal", T0 + 2, "process_id", U(PID), "fence_handle", FA,
			  "fence_value", U(1), NULL),
		     FSA_ERR_FORMAT_VERSION, "the model refuses further events");
}

Test(model, accepts_a_newer_minor_version)
{
	cr_assert_eq(feed("trace_info", T0 + 1, "format_major", U(FSTP_FORMAT_MAJOR),
			  "format_minor", U(FSTP_FORMAT_MINOR + 7), NULL),
		     FSA_OK);
}

Test(model, gpv_09_packets_per_engine_with_preempted_pieces)
{
	feed_ok("submit_command", T0 + 10, "process_id", U(PID), "hwqueue_handle", KQ, "packet_id",
		U(1), "progress_value", U(1), NULL);
	feed_ok("packet_queued", T0 + 20, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(1), NULL);
	feed_ok("packet_start", T0 + 30, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100010), NULL);
	feed_ok("preempt_request", T0 + 40, "adapter_id", U(0), "engine_id", U(0), "context_handle",
		CTX, "request_id", U(77), "reason", U(FSTP_PREEMPT_REASON_TIME_SLICE), NULL);
	feed_ok("packet_end", T0 + 60, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle", KQ,
		"packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100050), "status",
		U(FSTP_PACKET_STATUS_PREEMPTED), NULL);
	feed_ok("preempt_complete", T0 + 60, "adapter_id", U(0), "engine_id", U(0),
		"context_handle", CTX, "request_id", U(77), "packet_id", U(1), "gpu_ts", U(100050),
		NULL);
	feed_ok("packet_queued", T0 + 70, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(2), "resubmission_of", U(1), NULL);
	feed_ok("packet_start", T0 + 80, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(2), "progress_value", U(1), "gpu_ts", U(100080), NULL);
	feed_ok("packet_end", T0 + 100, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle", KQ,
		"packet_id", U(2), "progress_value", U(1), "gpu_ts", U(100100), "status",
		U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.packet_count, 2);
	cr_assert_eq(got.packets[0].queued_ns, T0 + 10, "SubmitCommand opens it");
	cr_assert_eq(got.packets[0].start_ns, 1000100);
	cr_assert_eq(got.packets[0].end_ns, 1000500);
	cr_assert_eq(got.packets[0].status, FSA_PACKET_PREEMPTED);
	cr_assert_eq(got.packets[1].resubmission_of, 1);
	cr_assert_eq(got.packets[1].status, FSA_PACKET_COMPLETED);
	cr_assert_eq(got.marker_count, 1);
	cr_assert_eq(got.markers[0].kind, FSA_MARK_PREEMPTION);
	cr_assert_eq(got.markers[0].end_ns - got.markers[0].begin_ns, 20);
	cr_assert_eq(got.markers[0].value, 1);
}

Test(model, ums_doorbell_timeline_and_reconnect_latency)
{
	const uint64_t db = UINT64_C(0x8005000000000001);
	const struct fsa_marker *connect2 = NULL, *connected = NULL;

	feed_ok("doorbell_create", T0 + 1, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "status", U(FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY), NULL);
	feed_ok("doorbell_connect", T0 + 2, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "physical_doorbell", U(3), "status",
		U(FSTP_DOORBELL_STATUS_CONNECTED), NULL);
	feed_ok("doorbell_ring", T0 + 3, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "write_ptr_bytes", U(64), "status",
		U(FSTP_DOORBELL_STATUS_CONNECTED), NULL);
	feed_ok("doorbell_victimize", T0 + 4, "adapter_id", U(0), "victim_hwqueue_handle", UQ,
		"victim_doorbell_handle", db, "connecting_hwqueue_handle", UQ2, "physical_doorbell",
		U(3), NULL);
	feed_ok("doorbell_disconnect", T0 + 4, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "physical_doorbell", U(3), "status",
		U(FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY), "reason",
		U(FSTP_DISCONNECT_REASON_VICTIMIZED), NULL);
	feed_ok("doorbell_connect", T0 + 1004, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "physical_doorbell", U(5), "status",
		U(FSTP_DOORBELL_STATUS_CONNECTED), NULL);
	cr_assert_eq(finish(), FSA_OK);
	for (size_t i = 0; i < got.marker_count; i++) {
		const struct fsa_marker *m = &got.markers[i];

		if (m->kind == FSA_MARK_DOORBELL_CONNECT && m->begin_ns == T0 + 1004)
			connect2 = m;
		if (m->kind == FSA_MARK_DOORBELL_CONNECTED && m->begin_ns == T0 + 2)
			connected = m;
	}
	cr_assert_not_null(connect2);
	cr_assert_eq(connect2->latency_ns, 1000, "reconnect 1 us after the victimization");
	cr_assert_not_null(connected);
	cr_assert_eq(connected->end_ns, T0 + 4);
	cr_assert_eq(got.marker_count, 12,
		     "create, connect, ring, victimize, disconnect, "
		     "connect, two connected intervals, four status word intervals");
}

/* The status word's intervals (UMS-12, UMS-14, UMS-23): from the OS's doorbell_status stores,
 * tiling the doorbell's life; a connect names the physical doorbell of its interval. */
Test(model, ums_14_doorbell_status_word_intervals_tile_the_doorbell_life)
{
	const uint64_t db = UINT64_C(0x8005000000000001);
	static const struct {
		uint64_t begin, end;
		int64_t code;
		uint64_t value;
	} want[] = {
	    {T0 + 1, T0 + 2, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, UINT32_MAX},
	    {T0 + 2, T0 + 5, FSTP_DOORBELL_STATUS_CONNECTED, 3},
	    {T0 + 5, T0 + 7, FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD, UINT32_MAX},
	    {T0 + 7, T0 + 9, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY, UINT32_MAX},
	    {T0 + 9, FSA_TIME_NONE, FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT, UINT32_MAX},
	};
	size_t n = 0;

	feed_ok("doorbell_create", T0 + 1, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "status", U(FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY), NULL);
	/* UMS-12: the store after the rotation, then ConnectDoorbell's event with its status. */
	feed_ok("doorbell_status", T0 + 2, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "old_status", U(FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY),
		"new_status", U(FSTP_DOORBELL_STATUS_CONNECTED), NULL);
	feed_ok("doorbell_connect", T0 + 3, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "physical_doorbell", U(3), "status",
		U(FSTP_DOORBELL_STATUS_CONNECTED), NULL);
	feed_ok("doorbell_status", T0 + 5, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "old_status", U(FSTP_DOORBELL_STATUS_CONNECTED),
		"new_status", U(FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD), NULL);
	/* A store of the same value changes nothing. */
	feed_ok("doorbell_status", T0 + 6, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "old_status", U(FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD),
		"new_status", U(FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD), NULL);
	/* UMS-14: the store before the rotation to the dummy page and the disconnect event. */
	feed_ok("doorbell_status", T0 + 7, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "old_status", U(FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD),
		"new_status", U(FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY), NULL);
	feed_ok("doorbell_disconnect", T0 + 8, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "physical_doorbell", U(3), "status",
		U(FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY), "reason",
		U(FSTP_DISCONNECT_REASON_VICTIMIZED), NULL);
	feed_ok("doorbell_status", T0 + 9, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, "old_status", U(FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY),
		"new_status", U(FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT), NULL);
	cr_assert_eq(finish(), FSA_OK);
	for (size_t i = 0; i < got.marker_count; i++) {
		const struct fsa_marker *m = &got.markers[i];
		size_t k = 0;

		if (m->kind != FSA_MARK_DOORBELL_STATE)
			continue;
		while (k < sizeof(want) / sizeof(want[0]) && want[k].begin != m->begin_ns)
			k++;
		cr_assert_lt(k, sizeof(want) / sizeof(want[0]), "unexpected interval at %" PRIu64,
			     m->begin_ns);
		cr_assert_eq(m->end_ns, want[k].end, "interval %zu", k);
		cr_assert_eq(m->code, want[k].code, "interval %zu", k);
		cr_assert_eq(m->value, want[k].value, "interval %zu", k);
		cr_assert_eq(m->hwqueue_handle, UQ);
		cr_assert_eq(m->doorbell_handle, db);
		n++;
	}
	cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
}

/*
 * UMS-12, UMS-14, UMS-23: with no doorbell_create in the trace (it began later), the first
 * doorbell_status store opens the word's interval; each changing store closes the previous one
 * where it opens its own, doorbell_destroy closes the last, each doorbell has its own, and one
 * still open at the end goes out without an end.
 */
Test(model, ums_14_doorbell_state_without_create_closed_by_destroy_per_doorbell)
{
	const uint64_t db = UINT64_C(0x8005000000000001), db2 = UINT64_C(0x8005000000000003);
	const struct fsa_marker *status[4] = {NULL};
	size_t count = 0;

#define STATUS(ts, q, d, old, new)                                                                 \
	feed_ok("doorbell_status", U(ts), "process_id", U(PID), "hwqueue_handle", U(q),            \
		"doorbell_handle", U(d), "old_status", U(old), "new_status", U(new), NULL)
	STATUS(T0 + 1, UQ, db, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
	       FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
	STATUS(T0 + 10, UQ, db, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY,
	       FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD);
	STATUS(T0 + 30, UQ, db, FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD,
	       FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
	feed_ok("doorbell_destroy", T0 + 70, "process_id", U(PID), "hwqueue_handle", UQ,
		"doorbell_handle", db, NULL);
	STATUS(T0 + 80, UQ2, db2, FSTP_DOORBELL_STATUS_CONNECTED,
	       FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT);
#undef STATUS
	cr_assert_eq(finish(), FSA_OK);
	for (size_t i = 0; i < got.marker_count; i++)
		if (got.markers[i].kind == FSA_MARK_DOORBELL_STATE && count < 4)
			status[count++] = &got.markers[i];
	cr_assert_eq(count, 4);
	cr_assert_eq(status[0]->begin_ns, T0 + 1);
	cr_assert_eq(status[0]->end_ns, T0 + 10);
	cr_assert_eq(status[0]->code, FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
	cr_assert_eq(status[1]->end_ns, T0 + 30);
	cr_assert_eq(status[1]->code, FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD);
	cr_assert_eq(status[1]->value, UINT32_MAX, "no connect named a physical doorbell");
	cr_assert_eq(status[1]->hwqueue_handle, UQ);
	cr_assert_eq(status[2]->end_ns, T0 + 70, "closed by doorbell_destroy");
	cr_assert_eq(status[3]->hwqueue_handle, UQ2);
	cr_assert_eq(status[3]->code, FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT);
	cr_assert_eq(status[3]->end_ns, FSA_TIME_NONE, "open at the end of the trace");
	cr_assert_str_eq(fsa_marker_kind_name(FSA_MARK_DOORBELL_STATE), "doorbell_state");
}

Test(model, tdr_suspend_and_power_intervals_open_at_the_end_stay_open)
{
	size_t tdr = 0, open_f1 = 0, suspended = 0;

	feed_ok("tdr_begin", T0 + 10, "adapter_id", U(0), "engine_id", U(0), "reason",
		U(FSTP_LOSS_REASON_TIMEOUT), NULL);
	feed_ok("engine_reset", T0 + 15, "adapter_id", U(0), "engine_id", U(0), "is_success", U(1),
		NULL);
	feed_ok("tdr_end", T0 + 20, "adapter_id", U(0), "engine_id", U(0), "result",
		U(FSTP_TDR_RESULT_ENGINE_RESET), NULL);
	feed_ok("context_suspend", T0 + 30, "adapter_id", U(0), "context_handle", CTX,
		"hwqueue_count", U(2), NULL);
	feed_ok("context_resume", T0 + 45, "adapter_id", U(0), "context_handle", CTX,
		"hwqueue_count", U(2), NULL);
	feed_ok("engine_power", T0 + 50, "adapter_id", U(0), "engine_id", U(1), "old_state",
		U(FSTP_ENGINE_POWER_F0), "new_state", U(FSTP_ENGINE_POWER_F1), NULL);
	cr_assert_eq(finish(), FSA_OK);
	for (size_t i = 0; i < got.marker_count; i++) {
		const struct fsa_marker *m = &got.markers[i];

		if (m->kind == FSA_MARK_TDR) {
			tdr++;
			cr_assert_eq(m->end_ns - m->begin_ns, 10);
			cr_assert_eq(m->code, FSTP_TDR_RESULT_ENGINE_RESET);
		} else if (m->kind == FSA_MARK_ENGINE_F1) {
			open_f1++;
			cr_assert_eq(m->end_ns, FSA_TIME_NONE);
		} else if (m->kind == FSA_MARK_CONTEXT_SUSPENDED) {
			suspended++;
			cr_assert_eq(m->end_ns - m->begin_ns, 15);
		}
	}
	cr_assert_eq(tdr, 1);
	cr_assert_eq(open_f1, 1);
	cr_assert_eq(suspended, 1);
}

/* SUS-01, TRM-03: abnormal termination suspends a context and destroys it without a resume:
 * its suspension ends with the context, not at the end of the trace. */
Test(model, sus_01_trm_03_a_context_destroyed_suspended_ends_its_suspension)
{
	size_t suspended = 0;

	feed_ok("context_suspend", T0 + 30, "adapter_id", U(0), "context_handle", CTX,
		"hwqueue_count", U(1), NULL);
	feed_ok("context_destroy", T0 + 70, "process_id", U(PID), "context_handle", CTX, NULL);
	cr_assert_eq(finish(), FSA_OK);
	for (size_t i = 0; i < got.marker_count; i++) {
		const struct fsa_marker *m = &got.markers[i];

		if (m->kind != FSA_MARK_CONTEXT_SUSPENDED)
			continue;
		suspended++;
		cr_assert_eq(m->begin_ns, T0 + 30);
		cr_assert_eq(m->end_ns, T0 + 70, "closed by context_destroy");
	}
	cr_assert_eq(suspended, 1);
}

/* Format 1.4 markers (issue 13). */
static const struct fsa_marker *
find_marker(enum fsa_marker_kind kind, size_t nth)
{
	for (size_t i = 0; i < got.marker_count; i++)
		if (got.markers[i].kind == kind && nth-- == 0)
			return &got.markers[i];
	return NULL;
}

static size_t
count_markers(enum fsa_marker_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < got.marker_count; i++)
		n += got.markers[i].kind == kind;
	return n;
}

/* PRE-15: priority and time slice are kept on the context, the latest one wins. */
Test(model, pre_15_context_schedule_on_the_context_object)
{
	const struct fsa_context_info *context;

	feed_ok("context_schedule", T0 + 1, "adapter_id", U(0), "process_id", U(PID),
		"context_handle", CTX, "engine_id", U(0), "priority", U(4), "time_slice_ns",
		U(2000000), NULL);
	feed_ok("context_schedule", T0 + 2, "adapter_id", U(0), "process_id", U(PID),
		"context_handle", CTX, "engine_id", U(0), "priority", U(9), "time_slice_ns",
		U(1000000), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(fsa_model_context_count(model), 1);
	context = fsa_model_find_context(model, CTX);
	cr_assert_not_null(context);
	cr_assert(context->has_schedule);
	cr_assert_eq(context->priority, 9);
	cr_assert_eq(context->time_slice_ns, 1000000);
	cr_assert_eq(context->schedule_count, 2);
	cr_assert_eq(context->adapter_id, 0, "from its device");
	cr_assert_eq(context->device_handle, DEV);
	cr_assert_eq(context->error_ns, FSA_TIME_NONE);
	cr_assert_null(fsa_model_find_context(model, CTX + 1));
}

/* PRE-01, PRE-02: what engine_describe declares, compute granularity and PreemptionAware. */
Test(model, pre_01_engine_describe_keeps_both_granularities)
{
	const struct fsa_engine_info *engine;

	feed_ok("engine_describe", T0 + 1, "adapter_id", U(0), "engine_id", U(1), "engine_type",
		U(FSTP_ENGINE_TYPE_COMPUTE), "ums_supported", U(1), "preempt_granularity",
		U(FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY),
		"compute_preempt_granularity",
		U(FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY),
		"is_preemption_aware", U(1), NULL);
	cr_assert_eq(finish(), FSA_OK);
	engine = fsa_model_find_engine(model, 0, 1);
	cr_assert_not_null(engine);
	cr_assert_eq(engine->engine_type, FSTP_ENGINE_TYPE_COMPUTE);
	cr_assert_eq(engine->compute_preempt_granularity,
		     FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY);
	cr_assert_eq(engine->preempt_granularity,
		     FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY);
	cr_assert(engine->is_preemption_aware);
	cr_assert(engine->ums_supported);
}

/* PRE-03, PRE-04, PRE-06, PRE-07: the boundary reached and the work left on the preemption
 * marker; the fence id and context switch flag on the packets. */
Test(model, pre_04_preemption_keeps_granularity_and_work_left)
{
	const struct fsa_marker *m;

	feed_ok("packet_queued", T0 + 20, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(1), "fence_id", U(11), NULL);
	feed_ok("packet_start", T0 + 30, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100010), NULL);
	feed_ok("preempt_request", T0 + 40, "adapter_id", U(0), "engine_id", U(0), "context_handle",
		CTX, "request_id", U(5), "reason", U(FSTP_PREEMPT_REASON_PRIORITY), NULL);
	feed_ok("packet_end", T0 + 60, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle", KQ,
		"packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100050), "status",
		U(FSTP_PACKET_STATUS_PREEMPTED), NULL);
	feed_ok("preempt_complete", T0 + 60, "adapter_id", U(0), "engine_id", U(0),
		"context_handle", CTX, "request_id", U(5), "packet_id", U(1), "granularity",
		U(FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY), "gpu_ts", U(100050),
		"work_left_ticks", U(300), NULL);
	feed_ok("packet_queued", T0 + 70, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(2), "resubmission_of", U(1), "fence_id", U(12), NULL);
	feed_ok("packet_queued", T0 + 71, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		U(0), "packet_id", U(3), "is_context_switch", U(1), "fence_id", U(13), NULL);
	feed_ok("packet_start", T0 + 72, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		U(0), "packet_id", U(3), "gpu_ts", U(100072), NULL);
	feed_ok("packet_end", T0 + 73, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		U(0), "packet_id", U(3), "gpu_ts", U(100073), "status",
		U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	feed_ok("packet_start", T0 + 80, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		KQ, "packet_id", U(2), "progress_value", U(1), "gpu_ts", U(100080), NULL);
	feed_ok("packet_end", T0 + 100, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle", KQ,
		"packet_id", U(2), "progress_value", U(1), "gpu_ts", U(100100), "status",
		U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	feed_ok("preempt_request", T0 + 110, "adapter_id", U(0), "engine_id", U(0),
		"context_handle", CTX, "request_id", U(6), "reason", U(FSTP_PREEMPT_REASON_TDR),
		NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.packet_count, 3);
	cr_assert_eq(got.packets[0].fence_id, 11);
	cr_assert_eq(got.packets[0].context_handle, CTX, "from its queue");
	cr_assert_eq(got.packets[1].fence_id, 13);
	cr_assert(got.packets[1].is_context_switch);
	cr_assert_eq(got.packets[2].fence_id, 12, "PRE-07: a new fence id");
	cr_assert_eq(got.packets[2].resubmission_of, 1);
	cr_assert(!got.packets[2].is_context_switch);
	m = find_marker(FSA_MARK_PREEMPTION, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->code, FSTP_PREEMPT_REASON_PRIORITY);
	cr_assert_eq(m->code2, FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY);
	cr_assert_eq(m->value2, 300);
	cr_assert_eq(m->end_ns - m->begin_ns, 20);
	m = find_marker(FSA_MARK_PREEMPTION, 1);
	cr_assert_not_null(m);
	cr_assert_eq(m->end_ns, FSA_TIME_NONE, "never completed");
	cr_assert_eq(m->code2, -1);
}

/* TDR-01..06: a whole TDR sequence and its markers, the context in error until destroyed. */
Test(model, tdr_04_06_sequence_markers_and_context_in_error)
{
	const struct fsa_marker *m;
	const struct fsa_context_info *context;

	feed_ok("tdr_detect", T0 + 10, "adapter_id", U(0), "engine_id", U(0), "context_handle", CTX,
		"reason", U(FSTP_LOSS_REASON_TIMEOUT), "stalled_ns", U(2000000000), NULL);
	feed_ok("preempt_request", T0 + 11, "adapter_id", U(0), "engine_id", U(0), "context_handle",
		CTX, "request_id", U(9), "reason", U(FSTP_PREEMPT_REASON_TDR), NULL);
	feed_ok("tdr_begin", T0 + 20, "adapter_id", U(0), "engine_id", U(0), "reason",
		U(FSTP_LOSS_REASON_TIMEOUT), "context_handle", CTX, NULL);
	feed_ok("engine_reset", T0 + 21, "adapter_id", U(0), "engine_id", U(0), "is_success", U(0),
		NULL);
	feed_ok("adapter_reset", T0 + 22, "adapter_id", U(0), "is_success", U(1), NULL);
	feed_ok("context_error", T0 + 23, "adapter_id", U(0), "process_id", U(PID), "device_handle",
		DEV, "context_handle", CTX, "reason", U(FSTP_LOSS_REASON_TIMEOUT), NULL);
	feed_ok("context_error", T0 + 24, "adapter_id", U(0), "process_id", U(PID), "device_handle",
		DEV, "context_handle", CTX, "reason", U(FSTP_LOSS_REASON_TIMEOUT), NULL);
	feed_ok("device_lost", T0 + 25, "process_id", U(PID), "device_handle", DEV, "reason",
		U(FSTP_LOSS_REASON_TIMEOUT), NULL);
	feed_ok("tdr_end", T0 + 30, "adapter_id", U(0), "engine_id", U(0), "result",
		U(FSTP_TDR_RESULT_ADAPTER_RESET), NULL);
	feed_ok("context_destroy", T0 + 90, "process_id", U(PID), "device_handle", DEV,
		"context_handle", CTX, "engine_id", U(0), NULL);
	cr_assert_eq(finish(), FSA_OK);
	m = find_marker(FSA_MARK_TDR_DETECT, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->begin_ns, m->end_ns, "an instant");
	cr_assert_eq(m->value, 2000000000);
	cr_assert_eq(m->context_handle, CTX);
	cr_assert_eq(m->code, FSTP_LOSS_REASON_TIMEOUT);
	m = find_marker(FSA_MARK_TDR, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->context_handle, CTX, "the guilty context");
	cr_assert_eq(m->code, FSTP_TDR_RESULT_ADAPTER_RESET);
	m = find_marker(FSA_MARK_ADAPTER_RESET, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->code, 1);
	cr_assert_eq(m->begin_ns, T0 + 22);
	cr_assert_eq(count_markers(FSA_MARK_CONTEXT_ERROR), 1, "a second error changes nothing");
	m = find_marker(FSA_MARK_CONTEXT_ERROR, 0);
	cr_assert_eq(m->begin_ns, T0 + 23);
	cr_assert_eq(m->end_ns, T0 + 90, "until the context is destroyed");
	cr_assert_eq(m->other_handle, DEV);
	cr_assert_eq(m->process_id, PID);
	cr_assert_eq(m->code, FSTP_LOSS_REASON_TIMEOUT);
	context = fsa_model_find_context(model, CTX);
	cr_assert_eq(context->error_ns, T0 + 23);
	cr_assert_eq(context->destroyed_ns, T0 + 90);
	cr_assert_eq(find_marker(FSA_MARK_PREEMPTION, 0)->end_ns, FSA_TIME_NONE);
}

Test(model, tdr_04_context_error_open_at_the_end_stays_open)
{
	feed_ok("context_error", T0 + 23, "adapter_id", U(0), "process_id", U(PID), "device_handle",
		DEV, "context_handle", CTX, "reason", U(FSTP_LOSS_REASON_INVALID_COMMAND), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_markers(FSA_MARK_CONTEXT_ERROR), 1);
	cr_assert_eq(find_marker(FSA_MARK_CONTEXT_ERROR, 0)->end_ns, FSA_TIME_NONE);
	cr_assert_eq(find_marker(FSA_MARK_CONTEXT_ERROR, 0)->code,
		     FSTP_LOSS_REASON_INVALID_COMMAND);
}

/* PRE-13: flips are intervals from queued to done, vsyncs instants per display. */
Test(model, pre_13_flips_and_vsyncs)
{
	const struct fsa_marker *m;

	feed_ok("vsync", T0 + 100, "adapter_id", U(0), "source_id", U(1), "vsync_count", U(1),
		"flip_id", U(0), "gpu_ts", U(100100), NULL);
	feed_ok("flip_queued", T0 + 110, "adapter_id", U(0), "source_id", U(1), "process_id",
		U(PID), "context_handle", CTX, "flip_id", U(1), NULL);
	feed_ok("flip_queued", T0 + 120, "adapter_id", U(0), "source_id", U(1), "process_id",
		U(PID), "context_handle", CTX, "flip_id", U(2), NULL);
	feed_ok("vsync", T0 + 200, "adapter_id", U(0), "source_id", U(1), "vsync_count", U(2),
		"flip_id", U(1), "gpu_ts", U(100200), NULL);
	feed_ok("flip_done", T0 + 201, "adapter_id", U(0), "source_id", U(1), "flip_id", U(1),
		"vsync_count", U(2), NULL);
	feed_ok("flip_done", T0 + 202, "adapter_id", U(0), "source_id", U(1), "flip_id", U(7),
		"vsync_count", U(2), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_markers(FSA_MARK_VSYNC), 2);
	m = find_marker(FSA_MARK_VSYNC, 1);
	cr_assert_eq(m->other_handle, 1);
	cr_assert_eq(m->value, 2);
	cr_assert_eq(m->value2, 1);
	cr_assert_eq(count_markers(FSA_MARK_FLIP), 2, "a done without its queued is no flip");
	m = find_marker(FSA_MARK_FLIP, 0);
	cr_assert_eq(m->value, 1);
	cr_assert_eq(m->begin_ns, T0 + 110);
	cr_assert_eq(m->end_ns, T0 + 201);
	cr_assert_eq(m->value2, 2);
	cr_assert_eq(m->context_handle, CTX);
	m = find_marker(FSA_MARK_FLIP, 1);
	cr_assert_eq(m->value, 2);
	cr_assert_eq(m->end_ns, FSA_TIME_NONE, "still pending at the end");
	cr_assert_str_eq(fsa_marker_kind_name(FSA_MARK_FLIP), "flip");
	cr_assert_str_eq(fsa_marker_kind_name(FSA_MARK_VSYNC), "vsync");
}

Test(model, fault_injected_is_an_instant_with_kind_and_detail)
{
	const struct fsa_marker *m;

	feed_ok("fault_injected", T0 + 5, "adapter_id", U(0), "engine_id", U(1), "hwqueue_handle",
		KQ, "kind", U(FSTP_FAULT_KIND_CORRUPT_PACKET), "detail", U(42), NULL);
	cr_assert_eq(finish(), FSA_OK);
	m = find_marker(FSA_MARK_FAULT_INJECTED, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->engine_id, 1);
	cr_assert_eq(m->hwqueue_handle, KQ);
	cr_assert_eq(m->code, FSTP_FAULT_KIND_CORRUPT_PACKET);
	cr_assert_eq(m->value, 42);
	cr_assert_str_eq(fsa_marker_kind_name(FSA_MARK_FAULT_INJECTED), "fault_injected");
	cr_assert_str_eq(fsa_marker_kind_name(FSA_MARK_TDR_DETECT), "tdr_detect");
	cr_assert_str_eq(fsa_marker_kind_name(FSA_MARK_ADAPTER_RESET), "adapter_reset");
	cr_assert_str_eq(fsa_marker_kind_name(FSA_MARK_CONTEXT_ERROR), "context_error");
}

#define RAISE(ts, engine, type)                                                                    \
	feed_ok("interrupt_raise", U(ts), "adapter_id", U(0), "engine_id", U(engine), "type",      \
		U(type), "hwqueue_handle", KQ, NULL)
#define HANDLED(ts, engine, type)                                                                  \
	feed_ok("interrupt_handled", U(ts), "adapter_id", U(0), "engine_id", U(engine), "type",    \
		U(type), "hwqueue_handle", KQ, NULL)

/* Fault accounting: a dropped interrupt stays unhandled at its own time (not moved to the end
 * of the trace), a delayed one is late from its raise to its handling. */
Test(model, int_lost_and_delayed_interrupts_become_markers)
{
	const struct fsa_marker *m;

	RAISE(T0 + 100, 0, FSTP_INTERRUPT_TYPE_DMA_COMPLETED);
	HANDLED(T0 + 150, 0, FSTP_INTERRUPT_TYPE_DMA_COMPLETED);
	RAISE(T0 + 200, 0, FSTP_INTERRUPT_TYPE_DMA_COMPLETED); /* dropped by the line */
	RAISE(T0 + 300, 0, FSTP_INTERRUPT_TYPE_DMA_COMPLETED);
	HANDLED(T0 + 350, 0, FSTP_INTERRUPT_TYPE_DMA_COMPLETED);
	RAISE(T0 + 400, 1, FSTP_INTERRUPT_TYPE_DMA_COMPLETED); /* delayed 2 ms */
	HANDLED(T0 + 400 + 2000000, 1, FSTP_INTERRUPT_TYPE_DMA_COMPLETED);
	RAISE(T0 + 500, 1, FSTP_INTERRUPT_TYPE_PAGE_FAULT);
	HANDLED(T0 + 500 + 999999, 1, FSTP_INTERRUPT_TYPE_PAGE_FAULT); /* just under 1 ms */
	HANDLED(T0 + 3000000, 1, FSTP_INTERRUPT_TYPE_PAGE_FAULT);      /* no raise: ignored */
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_markers(FSA_MARK_INTERRUPT_UNHANDLED), 1);
	m = find_marker(FSA_MARK_INTERRUPT_UNHANDLED, 0);
	cr_assert_eq(m->begin_ns, T0 + 200, "the dropped one, at its raise");
	cr_assert_eq(m->engine_id, 0);
	cr_assert_eq(m->hwqueue_handle, KQ);
	cr_assert_eq(m->code, FSTP_INTERRUPT_TYPE_DMA_COMPLETED);
	cr_assert_eq(count_markers(FSA_MARK_INTERRUPT_LATE), 1);
	m = find_marker(FSA_MARK_INTERRUPT_LATE, 0);
	cr_assert_eq(m->begin_ns, T0 + 400);
	cr_assert_eq(m->end_ns, T0 + 400 + 2000000);
	cr_assert_eq(m->engine_id, 1);
	cr_assert(fsa_marker_kind_is_interval(FSA_MARK_INTERRUPT_LATE));
	cr_assert(!fsa_marker_kind_is_interval(FSA_MARK_INTERRUPT_UNHANDLED));
	cr_assert(!fsa_marker_kind_is_interval(FSA_MARK_VSYNC));
	cr_assert(fsa_marker_kind_is_interval(FSA_MARK_FLIP));
}

/* Streaming: a long run of boxes leaves nothing behind in the model. */
Test(model, memory_follows_live_objects_not_trace_length)
{
	uint64_t ts = T0;

	for (unsigned v = 1; v <= 20000; v++) {
		ts += 1000;
		SIGNAL_QUEUED(ts, UQ, FA, v, v);
		WAIT_QUEUED(ts, UQ2, FA, v, v);
		if (v % 100 == 0)
			PAIR(ts, ts / 10);
		SIGNAL_ENTRY(ts + 500, UQ, v - 1, FA, FA_G, v, (ts + 100) / 10);
		WAIT_ENTRY(ts + 500, UQ2, v - 1, FA, FA_G, v, ts / 10, (ts + 200) / 10);
		cr_assert_eq(fsa_model_borrow_summary(model)
				 ->op_counts[FSA_SRC_USER_MODE_QUEUE][FSA_OP_SIGNAL],
			     v, "every signal goes out as soon as it is read");
	}
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(fsa_model_borrow_summary(model)->edge_count, 20000);
}

/* Everything the model tells a reader it need not decode really leaves no trace but a count. */
static size_t
items_after_event(enum fsa_event_type type, bool with_fields)
{
	struct fsa_event ev;

	fixture_setup();
	fixture_objects(T0);
	fsa_event_clear(&ev);
	ev.type = type;
	ev.ts_ns = T0 + 100;
	if (with_fields)
		for (int f = 0; f < FSA_F_COUNT; f++)
			fsa_event_set(&ev, (enum fsa_field) f, f == FSA_F_FORMAT_MAJOR ? 1 : 5);
	cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK);
	cr_assert_eq(finish(), FSA_OK);
	return got.op_count + got.edge_count + got.packet_count + got.marker_count +
	       got.loss_count + got.anomaly_count + fsa_model_queue_count(model) +
	       fsa_model_fence_count(model) + fsa_model_process_count(model);
}

Test(model_payload, types_read_without_fields_change_nothing_but_counts)
{
	size_t skipped = 0;

	for (int type = 1; type < FSA_EV_COUNT; type++) {
		size_t with, without;

		if (fsa_model_needs_payload((enum fsa_event_type) type))
			continue;
		skipped++;
		with = items_after_event((enum fsa_event_type) type, true);
		fixture_teardown();
		without = items_after_event((enum fsa_event_type) type, false);
		fixture_teardown();
		cr_expect_eq(with, without, "%s", fsa_event_type_name((enum fsa_event_type) type));
	}
	cr_assert_gt(skipped, 10);
	cr_assert(fsa_model_needs_payload(FSA_EV_FENCE_LOG_ENTRY));
	cr_assert(fsa_model_needs_payload(FSA_EV_CLOCK_CORRELATION));
}
