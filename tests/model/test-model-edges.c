/* SPDX-License-Identifier: MIT */
/*
 * analyzer/model: which signal released which wait (GPV-07) when fence values do not only grow —
 * waits at or below the initial value, value regressions, CPU signals overtaking slower GPU
 * signals, signals whose entries are read after the wait's — and the causality of mapped times
 * (docs/analyzer.md "Dependencies", "Tolerance"). GPU tick g is trace time 10 g ns.
 */
#include <criterion/criterion.h>

#include "model-fixture.h"

#define FC   UINT64_C(0xc0) /* local handle of fence C, initial value 5 */
#define FC_G UINT64_C(0x8004000000000030)

#define CPU_SIGNAL(ts, f, v)                                                                       \
	feed_ok("cpu_signal", U(ts), "process_id", U(PID), "fence_handle", U(f), "fence_value",    \
		U(v), NULL)
#define CPU_WAIT(begin, end, id, f, v, observed)                                                   \
	do {                                                                                       \
		feed_ok("cpu_wait_begin", U(begin), "process_id", U(PID), "waiter_id", U(id),      \
			"fence_handle", U(f), "fence_value", U(v), NULL);                          \
		feed_ok("cpu_wait_end", U(end), "process_id", U(PID), "waiter_id", U(id),          \
			"fence_handle", U(f), "fence_value", U(v), "result",                       \
			U(FSTP_CPU_WAIT_RESULT_SATISFIED), "observed_value", U(observed), NULL);   \
	} while (0)

static void
setup(void)
{
	fixture_setup();
	fixture_objects(T0);
	feed_ok("fence_create", T0, "process_id", U(PID), "adapter_id", U(0), "fence_global_handle",
		FC_G, "fence_handle", FC, "initial_value", U(5), NULL);
}

TestSuite(edges, .init = setup, .fini = fixture_teardown);

static const struct fsa_op *
find_source_op(enum fsa_op_kind kind, enum fsa_op_source source, uint64_t fence_global,
	       uint64_t value)
{
	for (size_t i = 0; i < got.op_count; i++)
		if (got.ops[i].kind == kind && got.ops[i].source == source &&
		    got.ops[i].fence_global_handle == fence_global &&
		    got.ops[i].fence_value == value)
			return &got.ops[i];
	return NULL;
}

/* Every edge names the wait's own signal_op_id, and there is one edge per released wait. */
static void
assert_edges_agree_with_ops(void)
{
	size_t released = 0;

	for (size_t i = 0; i < got.op_count; i++)
		if (got.ops[i].kind == FSA_OP_WAIT && got.ops[i].signal_op_id)
			released++;
	cr_assert_eq(got.edge_count, released);
	for (size_t e = 0; e < got.edge_count; e++)
		for (size_t i = 0; i < got.op_count; i++)
			if (got.ops[i].id == got.edges[e].wait_op_id)
				cr_assert_eq(got.ops[i].signal_op_id, got.edges[e].signal_op_id);
}

Test(edges, gpv_07_a_wait_at_or_below_the_initial_value_has_no_edge)
{
	/* Fence C starts at 5: waits for 4 and 5 are satisfied before any signal. */
	CPU_SIGNAL(T0 + 100, FC, 6);
	CPU_WAIT(T0 + 200, T0 + 300, 1, FC, 4, 6);
	WAIT_QUEUED(T0 + 400, UQ2, FC, 5, 1);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FC, FC_G, 5, 100050, 100060);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.edge_count, 0,
		     "a wait at or below the initial value: no signal released it");
	cr_assert_eq(find_source_op(FSA_OP_WAIT, FSA_SRC_CPU, FC_G, 4)->signal_op_id, 0);
	cr_assert_eq(find_op(FSA_OP_WAIT, UQ2, 5)->signal_op_id, 0);
}

Test(edges, gpv_07_a_regression_is_never_the_release_of_a_wait_it_did_not_bring_to_its_value)
{
	/* 0 → 6 → 3 (a regression): the wait for 2 was released by 6, not by the smaller 3. */
	CPU_SIGNAL(T0 + 100, FA, 6);
	CPU_SIGNAL(T0 + 200, FA, 3);
	CPU_WAIT(T0 + 50, T0 + 150, 1, FA, 2, 6);
	CPU_WAIT(T0 + 300, T0 + 310, 2, FA, 2, 3);
	cr_assert_eq(finish(), FSA_OK);
	for (size_t i = 0; i < got.op_count; i++)
		if (got.ops[i].kind == FSA_OP_WAIT)
			cr_assert_eq(got.ops[i].signal_op_id,
				     find_source_op(FSA_OP_SIGNAL, FSA_SRC_CPU, FA_G, 6)->id);
	assert_edges_agree_with_ops();
}

Test(edges, gpv_07_a_signal_below_the_value_takes_the_fence_down_so_the_next_to_reach_it_releases)
{
	/* 0 → 6, then a signal of 3 (a regression: a signal writes N, spec 001, so CurrentValue
	 * goes down to 3), then 10. A wait for 5 that began after the 3 was released by 10. */
	CPU_SIGNAL(T0 + 100, FA, 6);
	CPU_SIGNAL(T0 + 200, FA, 3);
	feed_ok("cpu_wait_begin", T0 + 250, "process_id", U(PID), "waiter_id", U(1), "fence_handle",
		FA, "fence_value", U(5), NULL);
	CPU_SIGNAL(T0 + 300, FA, 10);
	feed_ok("cpu_wait_end", T0 + 320, "process_id", U(PID), "waiter_id", U(1), "fence_handle",
		FA, "fence_value", U(5), "result", U(FSTP_CPU_WAIT_RESULT_SATISFIED),
		"observed_value", U(10), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(find_source_op(FSA_OP_WAIT, FSA_SRC_CPU, FA_G, 5)->signal_op_id,
		     find_source_op(FSA_OP_SIGNAL, FSA_SRC_CPU, FA_G, 10)->id);
	assert_edges_agree_with_ops();
}

Test(edges, gpv_07_a_wait_whose_release_was_forgotten_gets_no_edge)
{
	/* 70 signals: the first ones are forgotten (64 are remembered). A wait for 1 that ends
	 * after them was released by the first, which is no longer known. */
	for (unsigned v = 1; v <= 70; v++)
		CPU_SIGNAL(T0 + 10 * v, FA, v);
	CPU_WAIT(T0 + 1000, T0 + 1010, 1, FA, 1, 70);
	CPU_WAIT(T0 + 1020, T0 + 1030, 2, FA, 69, 70);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(find_source_op(FSA_OP_WAIT, FSA_SRC_CPU, FA_G, 1)->signal_op_id, 0);
	cr_assert_eq(find_source_op(FSA_OP_WAIT, FSA_SRC_CPU, FA_G, 69)->signal_op_id,
		     find_source_op(FSA_OP_SIGNAL, FSA_SRC_CPU, FA_G, 69)->id);
	assert_edges_agree_with_ops();
}

Test(edges, gpv_07_release_is_first_signal_in_time_to_reach_value)
{
	const struct fsa_op *wait;

	/* A GPU signal to 5 is queued first, but a CPU signal to 7 overtakes it (1.001 ms); the GPU
	 * signal then runs at 1.003 ms, a regression to 5. The GPU reaches a wait for 5 at
	 * 1.0035 ms: the fence had reached 5 at 1.001 ms and never went below since. */
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 5, 1);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 5, 1);
	CPU_SIGNAL(T0 + 1000, FA, 7);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FA, FA_G, 5, 100300);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 5, 100350, 100360);
	cr_assert_eq(finish(), FSA_OK);
	wait = find_op(FSA_OP_WAIT, UQ2, 5);
	cr_assert_not_null(wait);
	cr_assert_eq(wait->signal_op_id, find_source_op(FSA_OP_SIGNAL, FSA_SRC_CPU, FA_G, 7)->id);
	cr_assert_eq(count_anomalies(FSA_ANOM_VALUE_REGRESSION), 1);
	assert_edges_agree_with_ops();
}

/*
 * A regression given out before the higher signal that ran before it: the GPU signal to 7 ran
 * at 1.003 ms, but its log entry is read at 1.009 ms, after a CPU signal to 5 at 1.005 ms was
 * given out. The reference runtime's GPU writes N (spec 001), so the fence did go 7 → 5: the
 * signal to 5 is the regression, reported once, found when the earlier signal comes in.
 */
Test(edges, value_regression_is_found_when_the_higher_earlier_signal_is_given_out_later)
{
	const struct fsa_op *lower;
	size_t i;

	SIGNAL_QUEUED(T0 + 100, UQ, FA, 7, 1);
	CPU_SIGNAL(T0 + 5000, FA, 5);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FA, FA_G, 7, 100300);
	CPU_SIGNAL(T0 + 9500, FA, 8);
	cr_assert_eq(finish(), FSA_OK);
	lower = find_source_op(FSA_OP_SIGNAL, FSA_SRC_CPU, FA_G, 5);
	cr_assert_not_null(lower);
	cr_assert_eq(count_anomalies(FSA_ANOM_VALUE_REGRESSION), 1);
	for (i = 0; got.anomalies[i].kind != FSA_ANOM_VALUE_REGRESSION; i++)
		;
	cr_expect_eq(got.anomalies[i].op_id, lower->id, "the signal to 5 is the regression");
	cr_expect_eq(got.anomalies[i].fence_value, 5);
	cr_expect_eq(got.anomalies[i].a, 7, "below the 7 it ran after");
	cr_expect_eq(got.anomalies[i].ts_ns, T0 + 5000);
}

Test(edges, gpv_07_a_wait_waits_for_an_earlier_signal_whose_entry_is_read_later)
{
	const struct fsa_op *wait;

	/* The GPU signal to 5 ran first (1.003 ms) but its log is read after the waiting queue's;
	 * the CPU signal to 7 (1.004 ms) is known at once. The wait for 3 ended at 1.0045 ms. */
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 5, 1);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 3, 1);
	CPU_SIGNAL(T0 + 4000, FA, 7);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 3, 100250, 100450);
	SIGNAL_ENTRY(T0 + 12000, UQ, 0, FA, FA_G, 5, 100300);
	cr_assert_eq(finish(), FSA_OK);
	wait = find_op(FSA_OP_WAIT, UQ2, 3);
	cr_assert_not_null(wait);
	cr_assert_eq(wait->signal_op_id, find_op(FSA_OP_SIGNAL, UQ, 5)->id);
	assert_edges_agree_with_ops();
}

Test(edges, gpv_07_signals_queued_ahead_do_not_hold_a_wait_once_their_log_is_read_past_it)
{
	/* A signal to 2 is queued long before it runs. The wait for 1 is held only until the log
	 * of UQ shows that signal ran after the wait ended; its release is the CPU signal to 1. */
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 2, 1);
	CPU_SIGNAL(T0 + 1000, FA, 1);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 1, 1);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 1, 100050, 100110);
	SIGNAL_QUEUED(T0 + 9500, UQ, FA, 3, 2);
	SIGNAL_ENTRY(T0 + 10000, UQ, 0, FA, FA_G, 2, 100900);
	PAIR(T0 + 11000, (T0 + 11000) / 10); /* every GPU time above is between pairs now */
	/* The wait went out when the log of UQ was read past its end, before the end of trace. */
	cr_assert_eq(got.edge_count, 1);
	cr_assert_eq(find_op(FSA_OP_WAIT, UQ2, 1)->signal_op_id,
		     find_source_op(FSA_OP_SIGNAL, FSA_SRC_CPU, FA_G, 1)->id);
	cr_assert_eq(finish(), FSA_OK);
}

Test(edges, gpv_07_a_signal_lost_to_an_overrun_may_be_the_release_so_no_edge_is_given)
{
	/* A GPU signal to 5 ran somewhere before 1.006 ms, but its entry was overwritten; a CPU
	 * signal to 7 at 1.003 ms. The wait for 5 ended at 1.0035 ms: either may have released it,
	 * so it gets no edge — and certainly not the CPU signal before the scan has spoken. */
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 5, 1);
	SIGNAL_QUEUED(T0 + 110, UQ, FA, 6, 2);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 5, 1);
	CPU_SIGNAL(T0 + 3000, FA, 7);
	feed_ok("fence_log_overrun", T0 + 8000, "adapter_id", U(0), "hwqueue_handle", UQ,
		"log_type", U(FSTP_LOG_TYPE_SIGNALS), "entries_lost", U(1), "capacity_entries",
		U(1), "cached_position", U(0), "new_position", U(2), NULL);
	SIGNAL_ENTRY(T0 + 8000, UQ, 1, FA, FA_G, 6, 100600);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 5, 100250, 100350);
	cr_assert_eq(got.edge_count, 0, "no edge before the fallback scan");
	feed_ok("fence_scan_value", T0 + 10000, "adapter_id", U(0), "fence_global_handle", FA_G,
		"current_value", U(7), NULL);
	feed_ok("fence_scan", T0 + 10000, "adapter_id", U(0), "device_handle", DEV, "reason",
		U(FSTP_SCAN_REASON_LOG_OVERRUN), "fences_scanned", U(2), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 5)->state, FSA_OP_INFERRED);
	cr_assert_eq(find_op(FSA_OP_WAIT, UQ2, 5)->signal_op_id, 0);
	assert_edges_agree_with_ops();
}

Test(edges, gpv_07_a_signal_within_the_tolerance_after_its_wait_moves_the_wait_end_and_is_counted)
{
	const struct fsa_op *wait, *signal;

	/* The signal maps 50 ns after the wait it released (within 1 µs). */
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 5, 1);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 5, 1);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FA, FA_G, 5, 100405);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 5, 100100, 100400);
	cr_assert_eq(finish(), FSA_OK);
	wait = find_op(FSA_OP_WAIT, UQ2, 5);
	signal = find_op(FSA_OP_SIGNAL, UQ, 5);
	cr_assert_eq(wait->signal_op_id, signal->id);
	cr_assert_geq(wait->end_ns, signal->end_ns, "the wait ends no earlier than its signal");
	cr_assert_eq(got.edges[0].wait_end_ns, wait->end_ns);
	cr_assert_eq(fsa_model_borrow_summary(model)->clamped_times, 1);
}

Test(edges, a_packet_mapped_just_before_its_ring_write_starts_at_it_and_is_counted)
{
	/* Ring write at 1.000105 ms; the GPU start maps to 1.0001 ms, 5 ns before (within 1 µs). A
	 * second packet maps 3 µs before its write: kept, and reported. */
	feed_ok("ring_write", T0 + 105, "process_id", U(PID), "hwqueue_handle", UQ,
		"progress_value", U(1), NULL);
	feed_ok("packet_start", T0 + 200, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		UQ, "packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100010), NULL);
	feed_ok("packet_end", T0 + 300, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle", UQ,
		"packet_id", U(1), "progress_value", U(1), "gpu_ts", U(100020), "status",
		U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	feed_ok("ring_write", T0 + 5000, "process_id", U(PID), "hwqueue_handle", UQ,
		"progress_value", U(2), NULL);
	feed_ok("packet_start", T0 + 5100, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		UQ, "packet_id", U(2), "progress_value", U(2), "gpu_ts", U(100200), NULL);
	feed_ok("packet_end", T0 + 5200, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		UQ, "packet_id", U(2), "progress_value", U(2), "gpu_ts", U(100600), "status",
		U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.packet_count, 2);
	cr_assert_eq(got.packets[0].queued_ns, T0 + 105);
	cr_assert_eq(got.packets[0].start_ns, T0 + 105, "moved to its queued time");
	cr_assert_eq(got.packets[0].end_ns, 1000200);
	cr_assert_eq(got.packets[1].start_ns, 1002000, "3 µs off: not moved");
	cr_assert_eq(count_anomalies(FSA_ANOM_END_BEFORE_QUEUED), 1);
	cr_assert_eq(fsa_model_borrow_summary(model)->clamped_times, 1);
}

TestSuite(log_gap, .init = setup, .fini = fixture_teardown);

Test(log_gap, log_13_entries_missing_between_two_read_are_a_loss_and_their_ops_inferred)
{
	const struct fsa_loss *loss;
	size_t inferred = 0;

	/* Four signals in four command buffers; the tracer dropped the entries at positions 1
	 * and 2 (no overrun says so): signals 2 and 3 ran before signal 4, between 1.001 and
	 * 1.004 ms. A fifth signal, queued in a later buffer, stays open. */
	for (unsigned v = 1; v <= 5; v++)
		SIGNAL_QUEUED(T0 + v, UQ, FA, v, v);
	SIGNAL_ENTRY(T0 + 5000, UQ, 0, FA, FA_G, 1, 100100);
	SIGNAL_ENTRY(T0 + 6000, UQ, 3, FA, FA_G, 4, 100400);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_eq(got.loss_count, 1);
	loss = &got.losses[0];
	cr_assert_eq(loss->kind, FSA_LOSS_LOG_GAP);
	cr_assert_str_eq(fsa_loss_kind_name(loss->kind), "log_gap");
	cr_assert_eq(loss->count, 2);
	cr_assert_eq(loss->hwqueue_handle, UQ);
	cr_assert_eq(loss->log_type, FSTP_LOG_TYPE_SIGNALS);
	cr_assert_eq(loss->cached_position, 1, "the first missing position");
	cr_assert_eq(loss->new_position, 3, "the entry read after the gap");
	cr_assert_eq(loss->begin_ns, 1001000);
	cr_assert_eq(loss->end_ns, 1004000);
	cr_assert_eq(loss->inferred_ops, 2);
	for (size_t i = 0; i < got.op_count; i++) {
		if (got.ops[i].state != FSA_OP_INFERRED)
			continue;
		inferred++;
		cr_assert(got.ops[i].fence_value == 2 || got.ops[i].fence_value == 3);
		cr_assert_eq(got.ops[i].inferred_begin_ns, 1001000);
		cr_assert_eq(got.ops[i].inferred_end_ns, 1004000);
	}
	cr_assert_eq(inferred, 2);
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 5)->state, FSA_OP_NEVER_COMPLETED);
	cr_assert_eq(fsa_model_borrow_summary(model)->log_entries_missing, 2);
	cr_assert_eq(fsa_model_borrow_summary(model)->log_entries_lost, 0, "no overrun");
}

Test(log_gap, a_gap_with_more_candidates_than_missing_entries_infers_nothing)
{
	/* One entry missing, two buffers before the entry read after it: which one ran first is
	 * not in the trace, so neither is inferred. */
	SIGNAL_QUEUED(T0 + 1, UQ, FA, 1, 1);
	SIGNAL_QUEUED(T0 + 2, UQ, FA, 2, 2);
	SIGNAL_QUEUED(T0 + 3, UQ, FA, 3, 3);
	SIGNAL_ENTRY(T0 + 6000, UQ, 1, FA, FA_G, 3, 100400);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.loss_count, 1);
	cr_assert_eq(got.losses[0].count, 1);
	cr_assert_eq(got.losses[0].inferred_ops, 0);
	cr_assert_eq(fsa_model_borrow_summary(model)->inferred_ops, 0);
}

Test(log_gap, gpv_08_a_signal_lost_in_a_gap_may_have_released_a_wait_so_it_gets_no_edge)
{
	/* Signal 2's queued event and its entry (position 1) were both discarded by the tracer:
	 * the gap before signal 3's entry has no box to infer. The CPU wait for 2 was released by
	 * that lost signal, not by signal 3; the wait for 1 by signal 1, before the gap. */
	SIGNAL_QUEUED(T0 + 1, UQ, FA, 1, 1);
	SIGNAL_QUEUED(T0 + 3, UQ, FA, 3, 3);
	CPU_WAIT(T0 + 10, T0 + 1500, 1, FA, 1, 1);
	SIGNAL_ENTRY(T0 + 5000, UQ, 0, FA, FA_G, 1, 100100);
	CPU_WAIT(T0 + 20, T0 + 5500, 2, FA, 2, 3);
	SIGNAL_ENTRY(T0 + 6000, UQ, 2, FA, FA_G, 3, 100400);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_eq(got.loss_count, 1);
	cr_assert_eq(got.losses[0].kind, FSA_LOSS_LOG_GAP);
	cr_assert_eq(got.losses[0].inferred_ops, 0);
	cr_assert_eq(find_source_op(FSA_OP_WAIT, FSA_SRC_CPU, FA_G, 1)->signal_op_id,
		     find_op(FSA_OP_SIGNAL, UQ, 1)->id, "released before the gap began");
	cr_assert_eq(find_source_op(FSA_OP_WAIT, FSA_SRC_CPU, FA_G, 2)->signal_op_id, 0,
		     "signal 3 is not provably the first to reach 2");
}

TestSuite(progress, .init = setup, .fini = fixture_teardown);

Test(progress, hpf_02_progress_fence_steps_to_each_completed_buffer_value)
{
	/* UQ's progress fence is 0x8004000000000001, KQ's 0x8004000000000002 (the fixture's). */
	for (unsigned v = 1; v <= 3; v++) {
		feed_ok("packet_start", T0 + 100 * v, "adapter_id", U(0), "engine_id", U(0),
			"hwqueue_handle", UQ, "packet_id", U(v), "progress_value", U(v), "gpu_ts",
			U(100000 + 10 * v), NULL);
		feed_ok("packet_end", T0 + 100 * v + 50, "adapter_id", U(0), "engine_id", U(0),
			"hwqueue_handle", UQ, "packet_id", U(v), "progress_value", U(v), "gpu_ts",
			U(100000 + 10 * v + 5), "status", U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	}
	/* A preempted piece completes nothing. */
	feed_ok("packet_start", T0 + 600, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle",
		UQ, "packet_id", U(4), "progress_value", U(4), "gpu_ts", U(100060), NULL);
	feed_ok("packet_end", T0 + 650, "adapter_id", U(0), "engine_id", U(0), "hwqueue_handle", UQ,
		"packet_id", U(4), "progress_value", U(4), "gpu_ts", U(100065), "status",
		U(FSTP_PACKET_STATUS_PREEMPTED), NULL);
	feed_ok("packet_complete", T0 + 700, "adapter_id", U(0), "engine_id", U(0),
		"hwqueue_handle", KQ, "packet_id", U(9), "progress_value", U(7), NULL);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_eq(got.fence_value_count, 4);
	for (unsigned v = 1; v <= 3; v++) {
		const struct fsa_fence_value *s = NULL;

		for (size_t i = 0; i < got.fence_value_count; i++)
			if (got.fence_values[i].fence_global_handle ==
				UINT64_C(0x8004000000000001) &&
			    got.fence_values[i].value == v)
				s = &got.fence_values[i];
		cr_assert_not_null(s, "step to %u", v);
		cr_assert_eq(s->ts_ns, 1000000 + 100 * v + 50, "at the packet's GPU end");
		cr_assert_eq(s->hwqueue_handle, UQ);
		cr_assert_eq(s->packet_id, v);
	}
	for (size_t i = 0; i < got.fence_value_count; i++) {
		if (got.fence_values[i].fence_global_handle != UINT64_C(0x8004000000000002))
			continue;
		cr_assert_eq(got.fence_values[i].value, 7);
		cr_assert_eq(got.fence_values[i].ts_ns, T0 + 700, "when the OS saw it complete");
	}
	cr_assert_eq(fsa_model_find_fence(model, UINT64_C(0x8004000000000001))->last_value, 3);
}

/* Recorded at INFO (`fencescope record --loglevel INFO`), a trace has no packet_end (DEBUG):
 * the progress fence writes in the queue's signal log are then what steps the progress fence,
 * each at its GPU end (issue 15 §4: the row stayed flat and jumped at the end). */
Test(progress, hpf_02_without_packets_the_progress_fence_writes_step_the_fence)
{
	const uint64_t progress = UINT64_C(0x8004000000000001); /* UQ's */

	for (unsigned v = 1; v <= 3; v++)
		SIGNAL_ENTRY(T0 + 2000 + 100 * v, UQ, v - 1, UINT64_C(0x41), progress, v,
			     100100 + 10 * v);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.op_count, 0, "a progress fence write is no fence operation box");
	cr_assert_eq(got.fence_value_count, 3);
	for (unsigned v = 1; v <= 3; v++) {
		const struct fsa_fence_value *s = &got.fence_values[v - 1];

		cr_assert_eq(s->fence_global_handle, progress);
		cr_assert_eq(s->value, v);
		cr_assert_eq(s->ts_ns, 10 * (100100 + 10 * v), "at its GPU end, mapped");
		cr_assert_eq(s->hwqueue_handle, UQ);
		cr_assert_eq(s->packet_id, 0, "no packet in the trace");
	}
	cr_assert_eq(fsa_model_find_fence(model, progress)->last_value, 3);
}

/* With the packets in the trace, they step the fence (with their ids), and the progress fence
 * writes of the same buffers add nothing. */
Test(progress, hpf_02_with_packets_the_progress_fence_writes_add_no_step)
{
	const uint64_t progress = UINT64_C(0x8004000000000001);

	for (unsigned v = 1; v <= 2; v++) {
		feed_ok("packet_start", T0 + 100 * v, "adapter_id", U(0), "engine_id", U(0),
			"hwqueue_handle", UQ, "packet_id", U(v), "progress_value", U(v), "gpu_ts",
			U(100000 + 10 * v), NULL);
		feed_ok("packet_end", T0 + 100 * v + 50, "adapter_id", U(0), "engine_id", U(0),
			"hwqueue_handle", UQ, "packet_id", U(v), "progress_value", U(v), "gpu_ts",
			U(100000 + 10 * v + 5), "status", U(FSTP_PACKET_STATUS_COMPLETED), NULL);
		SIGNAL_ENTRY(T0 + 2000 + 100 * v, UQ, v - 1, UINT64_C(0x41), progress, v,
			     100000 + 10 * v + 5);
	}
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.fence_value_count, 2);
	for (unsigned v = 1; v <= 2; v++)
		cr_assert_eq(got.fence_values[v - 1].packet_id, v);
}

/* The fixture's objects without its clock pairs, as a recording at INFO has them. */
static void
setup_without_pairs(void)
{
	fixture_setup();
	feed_ok("trace_info", T0, "format_major", U(1), "format_minor", U(0), "clock_mode",
		U(FSTP_CLOCK_MODE_SIM), NULL);
	feed_ok("adapter_create", T0, "adapter_id", U(0), "engine_count", U(2),
		"gpu_ts_frequency_hz", U(100000000), NULL);
	feed_ok("process_create", T0, "process_id", U(PID), NULL);
	feed_ok("device_create", T0, "process_id", U(PID), "adapter_id", U(0), "device_handle", DEV,
		NULL);
	feed_ok("context_create", T0, "process_id", U(PID), "device_handle", DEV, "context_handle",
		CTX, "engine_id", U(0), NULL);
	feed_ok("hwqueue_create", T0, "process_id", U(PID), "context_handle", CTX, "hwqueue_handle",
		UQ, "engine_id", U(0), "submission_mode", U(FSTP_SUBMISSION_MODE_USER_MODE),
		"progress_fence_handle", UINT64_C(0x8004000000000001), NULL);
}

TestSuite(progress_unmapped, .init = setup_without_pairs, .fini = fixture_teardown);

/* Without clock pairs (a recording at INFO: clock_correlation is DEBUG) the writes step the
 * fence at their reads, where the boxes of the same log end. */
Test(progress_unmapped, hpf_02_without_pairs_the_progress_fence_steps_at_each_read)
{
	const uint64_t progress = UINT64_C(0x8004000000000001);

	for (unsigned v = 1; v <= 3; v++)
		SIGNAL_ENTRY(T0 + 2000 + 100 * v, UQ, v - 1, UINT64_C(0x41), progress, v,
			     100100 + 10 * v);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.fence_value_count, 3);
	for (unsigned v = 1; v <= 3; v++) {
		cr_assert_eq(got.fence_values[v - 1].value, v);
		cr_assert_eq(got.fence_values[v - 1].ts_ns, T0 + 2000 + 100 * v, "at its read");
	}
}

Test(edges, a_wait_observed_well_before_it_was_queued_is_reported_not_left_inverted)
{
	/* Observed at 1.001 ms, queued at 1.005 ms (4 µs later), released at 1.008 ms. */
	WAIT_QUEUED(T0 + 5000, UQ, FA, 1, 1);
	WAIT_ENTRY(T0 + 20000, UQ, 0, FA, FA_G, 1, 100100, 100800);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(count_anomalies(FSA_ANOM_END_BEFORE_QUEUED), 1);
	cr_assert_eq(find_op(FSA_OP_WAIT, UQ, 1)->observed_ns, 1001000, "kept, and reported");
}

Test(edges, gpv_07_at_the_end_of_the_trace_a_wait_still_finds_the_signal_that_goes_out_after_it)
{
	const struct fsa_op *wait, *signal;

	/* GPU times 22 ms past the only clock pair: both boxes wait for a pair and go out at the
	 * end of the trace, in the order they ended — the wait first, 50 ns before its signal. */
	SIGNAL_QUEUED(T0 + 100, UQ, FA, 5, 1);
	WAIT_QUEUED(T0 + 200, UQ2, FA, 5, 1);
	SIGNAL_ENTRY(T0 + 9000, UQ, 0, FA, FA_G, 5, 2300405);
	WAIT_ENTRY(T0 + 9000, UQ2, 0, FA, FA_G, 5, 2300100, 2300400);
	cr_assert_eq(got.op_count, 0, "waiting for a clock pair");
	cr_assert_eq(finish(), FSA_OK);
	wait = find_op(FSA_OP_WAIT, UQ2, 5);
	signal = find_op(FSA_OP_SIGNAL, UQ, 5);
	cr_assert_eq(wait->signal_op_id, signal->id);
	cr_assert_eq(wait->end_ns, signal->end_ns);
	cr_assert_eq(got.edge_count, 1);
}

Test(edges, gpv_07_gpv_08_a_release_forgotten_among_signals_inferred_in_its_gap_is_not_replaced)
{
	/* 100 signals in 100 command buffers; the entries of the first 99 were lost (a log gap,
	 * LOG-13): they are inferred, ending with the entry read after the gap, signal 100's, as
	 * it does. Signal 100 goes out first, then the 99 with the same end: the history (64)
	 * forgets signal 100 and keeps inferred ones below 100. These began before it ended, so
	 * they did not take the fence below 100 again (as cli-known-discards saw, 1 run in 10):
	 * signal 101 did not release the wait for 100. Its release is forgotten: no edge
	 * (GPV-08), not 101. */
	for (unsigned v = 1; v <= 101; v++)
		SIGNAL_QUEUED(T0 + v, UQ, FA, v, v);
	feed_ok("cpu_wait_begin", T0 + 200, "process_id", U(PID), "waiter_id", U(1), "fence_handle",
		FA, "fence_value", U(100), NULL);
	/* Past the fixture's last clock pair (extrapolated): while signal 100's box waits for its
	 * mapping the inferred boxes wait behind it, then it goes out first, remembered before
	 * them (ops_flush gives them out only later). */
	SIGNAL_ENTRY(1850000, UQ, 99, FA, FA_G, 100, 180000);
	SIGNAL_ENTRY(1860000, UQ, 100, FA, FA_G, 101, 181000);
	feed_ok("cpu_wait_end", 1900000, "process_id", U(PID), "waiter_id", U(1), "fence_handle",
		FA, "fence_value", U(100), "result", U(FSTP_CPU_WAIT_RESULT_SATISFIED),
		"observed_value", U(101), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.loss_count, 1);
	cr_assert_eq(got.losses[0].inferred_ops, 99);
	cr_assert_eq(count_anomalies(FSA_ANOM_VALUE_REGRESSION), 0);
	cr_assert_neq(find_source_op(FSA_OP_WAIT, FSA_SRC_CPU, FA_G, 100)->signal_op_id,
		      find_op(FSA_OP_SIGNAL, UQ, 101)->id,
		      "signal 101 found the fence at 100 already");
	assert_edges_agree_with_ops();
}

/* UQ's progress fence (model-fixture.c) and the local handle its log entries name. */
#define UQ_PROGRESS_G UINT64_C(0x8004000000000001)
#define UQ_PROGRESS   UINT64_C(0x1000)

/*
 * HPF-02, LOG-11: a user-mode buffer's progress write is logged in its queue's signals log like
 * any signal. It has no queued event and makes no box and no anomaly, but holds its position:
 * the signal entries around it are contiguous, not a gap.
 */
Test(log_gap, hpf_02_log_11_progress_entry_is_no_box_and_keeps_its_position)
{
	SIGNAL_QUEUED(T0 + 1, UQ, FA, 1, 1);
	SIGNAL_QUEUED(T0 + 2, UQ, FA, 2, 2);
	SIGNAL_ENTRY(T0 + 5000, UQ, 0, FA, FA_G, 1, 100100);
	SIGNAL_ENTRY(T0 + 5000, UQ, 1, UQ_PROGRESS, UQ_PROGRESS_G, 1, 100100);
	SIGNAL_ENTRY(T0 + 6000, UQ, 2, FA, FA_G, 2, 100200);
	SIGNAL_ENTRY(T0 + 6000, UQ, 3, UQ_PROGRESS, UQ_PROGRESS_G, 2, 100200);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_eq(count_anomalies(FSA_ANOM_LOG_ENTRY_WITHOUT_QUEUED), 0);
	cr_assert_eq(got.loss_count, 0, "no gap: the progress entries hold positions 1 and 3");
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 1)->state, FSA_OP_OBSERVED);
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 2)->state, FSA_OP_OBSERVED);
	for (size_t i = 0; i < got.op_count; i++)
		cr_assert_neq(got.ops[i].fence_global_handle, UQ_PROGRESS_G, "no progress box");
	cr_assert_eq(fsa_model_borrow_summary(model)->log_entries_read, 4);
}

/*
 * LOG-13 with a progress entry after the gap: the signal of its own buffer ran before the
 * progress write that ends the buffer, so the missing entry is that signal's, inferred.
 */
Test(log_gap, hpf_02_log_13_gap_before_a_progress_entry_infers_the_signal_of_its_buffer)
{
	SIGNAL_QUEUED(T0 + 1, UQ, FA, 1, 1);
	SIGNAL_ENTRY(T0 + 6000, UQ, 1, UQ_PROGRESS, UQ_PROGRESS_G, 1, 100400);
	cr_assert_eq(finish(), FSA_OK);

	cr_assert_eq(got.loss_count, 1);
	cr_assert_eq(got.losses[0].kind, FSA_LOSS_LOG_GAP);
	cr_assert_eq(got.losses[0].count, 1);
	cr_assert_eq(got.losses[0].inferred_ops, 1);
	cr_assert_eq(find_op(FSA_OP_SIGNAL, UQ, 1)->state, FSA_OP_INFERRED);
	cr_assert_eq(count_anomalies(FSA_ANOM_LOG_ENTRY_WITHOUT_QUEUED), 0);
}
