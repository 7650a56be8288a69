/* SPDX-License-Identifier: MIT */
/*
 * analyzer/model on hostile field values, one regression per defect that a hostile trace found:
 * values at the edges of the integer range (UINT64_MAX, 0) in the fields the model does
 * arithmetic on or keys maps with. test-model-fuzz.c finds such defects; these pin them down with
 * exact expectations.
 */
#include <criterion/criterion.h>

#include "hmap-private.h"
#include "model-fixture.h"
#include "model-private.h" /* the model's try_emit_calls and held_waits */

static void
setup(void)
{
	fixture_setup();
	fixture_objects(T0);
}

TestSuite(model_hostile, .init = setup, .fini = fixture_teardown);

/* clock-fit.c map_on: (gpu delta) × (cpu delta of a segment) overflowed __int128 when both are
 * near 2^64 (undefined behaviour; in practice a wrapped, wrong time). It saturates now. */
Test(model_hostile, gpu_time_past_a_huge_clock_segment_saturates)
{
	const struct fsa_op *op;

	/* A third pair one tick after the fixture's two, at the end of the trace clock. */
	feed_ok("clock_correlation", T0 + 10, "adapter_id", U(0), "cpu_ts_ns", UINT64_MAX, "gpu_ts",
		U((T0 + FIXTURE_PAIR_SPAN_NS) / 10 + 1), "gpu_ts_frequency_hz", U(100000000), NULL);
	feed_ok("fence_wait_queued", T0 + 20, "process_id", U(PID), "hwqueue_handle", UQ,
		"fence_handle", FA, "fence_value", U(1), "progress_value", U(1), NULL);
	feed_ok("fence_log_entry", T0 + 30, "hwqueue_handle", UQ, "log_type",
		U(FSTP_LOG_TYPE_WAITS), "entry_position", U(0), "fence_handle", FA,
		"fence_global_handle", FA_G, "fence_value", U(1), "operation",
		U(FSTP_LOG_OPERATION_WAIT_UNBLOCKED), "observed_gpu_ts", U(0), "end_gpu_ts",
		UINT64_MAX, NULL);
	cr_assert_eq(finish(), FSA_OK);
	op = find_op(FSA_OP_WAIT, UQ, 1);
	cr_assert_not_null(op);
	cr_assert_eq(op->end_ns, UINT64_MAX - 1, "end %llu", (unsigned long long) op->end_ns);
	cr_assert_eq(count_anomalies(FSA_ANOM_END_BEFORE_QUEUED), 0);
}

/* hmap.c: a ring_write at trace time UINT64_MAX stored ts + 1 = NULL, an empty slot's mark, over
 * a present key: the probe run broke and other ring writes became unreachable (their
 * packets lost the time they were queued). */
Test(model_hostile, ring_write_at_the_last_nanosecond_keeps_other_ring_writes)
{
	size_t with_queued = 0;

	for (uint64_t p = 1; p <= 24; p++)
		feed_ok("ring_write", T0 + p, "process_id", U(PID), "hwqueue_handle", UQ,
			"progress_value", p, NULL);
	for (uint64_t p = 3; p <= 24; p += 3)
		feed_ok("ring_write", UINT64_MAX, "process_id", U(PID), "hwqueue_handle", UQ,
			"progress_value", p, NULL);
	for (uint64_t p = 1; p <= 24; p++) {
		feed_ok("packet_start", T0 + 100 + p, "adapter_id", U(0), "engine_id", U(0),
			"hwqueue_handle", UQ, "packet_id", p, "progress_value", p, "gpu_ts", U(0),
			NULL);
		feed_ok("packet_end", T0 + 200 + p, "adapter_id", U(0), "engine_id", U(0),
			"hwqueue_handle", UQ, "packet_id", p, "progress_value", p, "gpu_ts", U(0),
			"status", U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	}
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.packet_count, 24);
	for (size_t i = 0; i < got.packet_count; i++) {
		const struct fsa_packet *p = &got.packets[i];

		if (p->progress_value % 3 == 0) {
			/* Queued at UINT64_MAX: "not known". */
			cr_assert_eq(p->queued_ns, FSA_TIME_NONE);
			continue;
		}
		cr_assert_eq(p->queued_ns, T0 + p->progress_value, "progress %llu queued %llu",
			     (unsigned long long) p->progress_value,
			     (unsigned long long) p->queued_ns);
		with_queued++;
	}
	cr_assert_eq(with_queued, 16);
}

Test(model_hostile, hmap_put_of_null_removes_the_key_and_keeps_the_others)
{
	struct hmap map = {0};
	int values[64];

	for (uint64_t k = 0; k < 64; k++)
		cr_assert(hmap_put(&map, k, &values[k]));
	for (uint64_t k = 0; k < 64; k += 3)
		cr_assert(hmap_put(&map, k, NULL));
	for (uint64_t k = 0; k < 64; k++) {
		if (k % 3 == 0)
			cr_assert_null(hmap_get(&map, k), "key %llu", (unsigned long long) k);
		else
			cr_assert_eq(hmap_get(&map, k), &values[k], "key %llu",
				     (unsigned long long) k);
	}
	cr_assert_eq(map.count, 64 - 22);
	hmap_fini(&map);
}

/* take_open's one-probe path (ops.c): a slot found once, then replaced or emptied. Keys share
 * their high bits, as handles do, so the probe runs are long and the backward shift moves. */
Test(model_hostile, hmap_slot_set_and_remove_act_on_the_found_key_only)
{
	struct hmap map = {0};
	int values[512], other;

	for (uint64_t k = 0; k < 512; k++)
		cr_assert(hmap_put(&map, UINT64_C(0xffff000000000000) | k, &values[k]));
	cr_assert_eq(hmap_find(&map, UINT64_C(0xffff000000000000) | 512), HMAP_NONE);
	for (uint64_t k = 0; k < 512; k++) {
		size_t slot = hmap_find(&map, UINT64_C(0xffff000000000000) | k);

		cr_assert_neq(slot, HMAP_NONE, "key %llu", (unsigned long long) k);
		cr_assert_eq(hmap_slot_value(&map, slot), &values[k]);
		if (k % 2 == 0)
			hmap_slot_remove(&map, slot);
		else if (k % 3 == 0)
			hmap_slot_set(&map, slot, &other);
	}
	cr_assert_eq(map.count, 256);
	for (uint64_t k = 0; k < 512; k++) {
		void *value = hmap_get(&map, UINT64_C(0xffff000000000000) | k);

		if (k % 2 == 0)
			cr_assert_null(value, "key %llu", (unsigned long long) k);
		else
			cr_assert_eq(value, k % 3 == 0 ? (void *) &other : (void *) &values[k],
				     "key %llu", (unsigned long long) k);
	}
	hmap_fini(&map);
}

static void
filler_events(uint64_t from_ns, uint64_t to_ns, size_t count)
{
	for (size_t i = 0; i < count; i++)
		feed_ok("process_terminate", from_ns + (to_ns - from_ns) / count * (i + 1),
			"process_id", U(99), NULL);
}

/* ops.c ops_queued walked the chain of its key to append: the same (fence, value) queued
 * again and again without a close cost O(n) each, O(n²) in all (80 000 took 24 s). The chain keeps
 * its tail now; the oldest open box of a key is still the one a log entry closes. */
Test(model_hostile, same_key_queued_again_and_again_closes_oldest_first)
{
	uint64_t queued[4] = {T0 + 10, T0 + 20, T0 + 30, T0 + 40};

	for (int i = 0; i < 3; i++)
		feed_ok("fence_wait_queued", queued[i], "process_id", U(PID), "hwqueue_handle", KQ,
			"fence_handle", FA, "fence_value", U(1), "progress_value", U(1), NULL);
	feed_ok("km_fence_wait_unblocked", T0 + 35, "process_id", U(PID), "hwqueue_handle", KQ,
		"fence_handle", FA, "fence_value", U(1), NULL);
	feed_ok("fence_wait_queued", queued[3], "process_id", U(PID), "hwqueue_handle", KQ,
		"fence_handle", FA, "fence_value", U(1), "progress_value", U(1), NULL);
	for (int i = 0; i < 3; i++)
		feed_ok("km_fence_wait_unblocked", T0 + 50 + (uint64_t) i, "process_id", U(PID),
			"hwqueue_handle", KQ, "fence_handle", FA, "fence_value", U(1), NULL);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.op_count, 4);
	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(got.ops[i].state, FSA_OP_OBSERVED);
		cr_assert_eq(got.ops[i].queued_ns, queued[i], "box %zu queued %llu", i,
			     (unsigned long long) got.ops[i].queued_ns);
	}
}

static uint64_t never_completed;

static fsa_status
count_never_completed(void *data, const struct fsa_op *op)
{
	(void) data;
	never_completed += op->state == FSA_OP_NEVER_COMPLETED;
	return FSA_OK;
}

Test(model_hostile, same_key_queued_again_and_again_stays_linear, .timeout = 60)
{
	struct fsa_model_sink sink = {.op = count_never_completed};
	struct fsa_model *m = fsa_model_create(&sink);
	const uint64_t n = 200000;
	struct fsa_event ev;

	cr_assert_not_null(m);
	for (uint64_t i = 0; i < n; i++) {
		fsa_event_clear(&ev);
		ev.type = FSA_EV_FENCE_WAIT_QUEUED;
		ev.ts_ns = T0 + i;
		fsa_event_set(&ev, FSA_F_HWQUEUE_HANDLE, KQ);
		fsa_event_set(&ev, FSA_F_FENCE_HANDLE, FA);
		fsa_event_set(&ev, FSA_F_FENCE_VALUE, 1);
		cr_assert_eq(fsa_model_add_event(m, &ev), FSA_OK);
	}
	never_completed = 0;
	cr_assert_eq(fsa_model_finish(m), FSA_OK);
	cr_assert_eq(never_completed, n);
	fsa_model_destroy(m);
}

static uint64_t last_begin, out_of_order, given;

static fsa_status
check_packet_order(void *data, const struct fsa_packet *packet)
{
	(void) data;
	out_of_order += packet->start_ns < last_begin;
	last_begin = packet->start_ns;
	given++;
	return FSA_OK;
}

static fsa_status
check_marker_order(void *data, const struct fsa_marker *marker)
{
	(void) data;
	out_of_order += marker->begin_ns < last_begin;
	last_begin = marker->begin_ns;
	given++;
	return FSA_OK;
}

/* model.c fsa_model_finish sorted the packets that never ended, and every kind of interval still
 * open, by insertion: O(n²) for a trace that leaves many open (80 000 took 2.7 s, a million
 * minutes). They are sorted in O(n log n) now, still by start time, ties in the same order. */
Test(model_hostile, many_items_open_at_the_end_are_given_out_by_start_time, .timeout = 60)
{
	struct fsa_model_sink sink = {.packet = check_packet_order};
	struct fsa_model *m = fsa_model_create(&sink);
	const size_t n = 300000;
	struct fsa_event ev;

	cr_assert_not_null(m);
	for (size_t i = 0; i < n; i++) {
		fsa_event_clear(&ev);
		ev.type = FSA_EV_PACKET_START;
		/* Descending start times, the worst case of an insertion sort. */
		ev.ts_ns = T0 + (n - i) * 10;
		fsa_event_set(&ev, FSA_F_PACKET_ID, i + 1);
		fsa_event_set(&ev, FSA_F_HWQUEUE_HANDLE, KQ);
		cr_assert_eq(fsa_model_add_event(m, &ev), FSA_OK);
	}
	last_begin = given = out_of_order = 0;
	cr_assert_eq(fsa_model_finish(m), FSA_OK);
	cr_assert_eq(given, n);
	cr_assert_eq(out_of_order, 0);
	fsa_model_destroy(m);

	sink = (struct fsa_model_sink){.marker = check_marker_order};
	m = fsa_model_create(&sink);
	cr_assert_not_null(m);
	for (size_t i = 0; i < n; i++) {
		fsa_event_clear(&ev);
		ev.type = FSA_EV_PREEMPT_REQUEST;
		ev.ts_ns = T0 + (n - i) * 10;
		fsa_event_set(&ev, FSA_F_REQUEST_ID, i + 1);
		cr_assert_eq(fsa_model_add_event(m, &ev), FSA_OK);
	}
	last_begin = given = out_of_order = 0;
	cr_assert_eq(fsa_model_finish(m), FSA_OK);
	cr_assert_eq(given, n);
	cr_assert_eq(out_of_order, 0);
	fsa_model_destroy(m);
}

/* A box and a packet whose GPU times lie past the clock horizon waited for a correlation pair
 * until the end of the trace: when the pairs stop (a tracer discard) every later box was kept,
 * memory grew with the trace and each flush walked all of them. They wait one second of trace
 * time now, then map with the pairs known (here the single pair and the nominal frequency). */
Test(model_hostile, boxes_and_packets_wait_for_a_clock_pair_one_second_at_most)
{
	/* 100 ms past the only pair, beyond the 20 ms horizon. */
	uint64_t gpu_end = T0 / 10 + 10000000;

	feed_ok("fence_wait_queued", T0 + 1000, "process_id", U(PID), "hwqueue_handle", UQ,
		"fence_handle", FA, "fence_value", U(1), "progress_value", U(1), NULL);
	feed_ok("fence_log_entry", T0 + 100001000, "hwqueue_handle", UQ, "log_type",
		U(FSTP_LOG_TYPE_WAITS), "entry_position", U(0), "fence_handle", FA,
		"fence_global_handle", FA_G, "fence_value", U(1), "operation",
		U(FSTP_LOG_OPERATION_WAIT_UNBLOCKED), "observed_gpu_ts", U(0), "end_gpu_ts",
		gpu_end, NULL);
	feed_ok("packet_start", T0 + 100002000, "adapter_id", U(0), "engine_id", U(0),
		"hwqueue_handle", KQ, "packet_id", U(7), "progress_value", U(1), "gpu_ts", gpu_end,
		NULL);
	feed_ok("packet_end", T0 + 100003000, "adapter_id", U(0), "engine_id", U(0),
		"hwqueue_handle", KQ, "packet_id", U(7), "progress_value", U(1), "gpu_ts",
		gpu_end + 100, "status", U(FSTP_PACKET_STATUS_COMPLETED), NULL);
	/* Nearly a second later: both still wait. */
	filler_events(T0 + 100003000, T0 + 1000000000, 5000);
	cr_assert_eq(got.op_count, 0);
	cr_assert_eq(got.packet_count, 0);
	/* Past a second: out, before the end of the trace (the wait, which no signal releases,
	 * after FSA_EDGE_LAG_NS: 50 ms more than the clock's second). */
	filler_events(T0 + 1000000000, T0 + 1400000000, 10000);
	cr_assert_eq(got.op_count, 1);
	cr_assert_eq(got.packet_count, 1);
	cr_assert_eq(got.ops[0].end_ns, T0 + 100000000);
	cr_assert_eq(got.packets[0].start_ns, T0 + 100000000);
	cr_assert_eq(got.packets[0].end_ns, T0 + 100001000);
	cr_assert_eq(finish(), FSA_OK);
}

/* Counts the trace gives (entries lost, events discarded) were summed with wrap-around: an
 * overrun claiming UINT64_MAX entries plus one more entry read as 4 lost in all. They saturate
 * now, in the summary and in the loss record. */
Test(model_hostile, lost_counts_saturate_instead_of_wrapping)
{
	const struct fsa_summary *sum;
	struct fsa_discard discard = {.kind = FSA_DISCARD_EVENTS, .count = UINT64_MAX - 1};

	for (int i = 0; i < 2; i++)
		feed_ok("fence_log_overrun", T0 + 20000 + (uint64_t) i, "adapter_id", U(0),
			"hwqueue_handle", UQ, "log_type", U(FSTP_LOG_TYPE_SIGNALS), "entries_lost",
			i ? U(5) : UINT64_MAX, "capacity_entries", U(4), "cached_position", U(2),
			"new_position", U(10), NULL);
	cr_assert_eq(fsa_model_add_discard(model, &discard), FSA_OK);
	discard.count = 3;
	cr_assert_eq(fsa_model_add_discard(model, &discard), FSA_OK);
	cr_assert_eq(finish(), FSA_OK);
	sum = fsa_model_borrow_summary(model);
	cr_assert_eq(sum->log_entries_lost, UINT64_MAX);
	cr_assert_eq(sum->tracer_discarded_events, UINT64_MAX);
	cr_assert_eq(got.loss_count, 3);
	for (size_t i = 0; i < got.loss_count; i++)
		if (got.losses[i].kind == FSA_LOSS_LOG_OVERRUN)
			cr_assert_eq(got.losses[i].count, UINT64_MAX);
}

/* Each fence carried room for 64 remembered signals (3 KiB), kept for the whole run even after
 * fence_destroy: a trace that creates and destroys fences by the hundred thousand grew by 3.25 KiB
 * per fence (400 000 lifetimes: 1.3 GB). The memory grows as used now (4, 16, then 64); matching
 * must not change: the wait for the 100th value finds it, the wait for the 50th too, and the wait
 * for the 10th, whose signals were forgotten, gets no edge rather than a wrong one. */
Test(model_hostile, signal_memory_grows_as_used_and_forgets_the_lowest)
{
	static const uint64_t waited[] = {100, 50, 10};

	for (uint64_t v = 1; v <= 100; v++)
		feed_ok("cpu_signal", T0 + 100 * v, "process_id", U(PID), "fence_handle", FB,
			"fence_value", v, NULL);
	for (size_t i = 0; i < 3; i++) {
		feed_ok("cpu_wait_begin", T0 + 20000 + i, "process_id", U(PID), "waiter_id",
			U(i + 1), "fence_handle", FB, "fence_value", waited[i], NULL);
		feed_ok("cpu_wait_end", T0 + 20010 + i, "process_id", U(PID), "waiter_id", U(i + 1),
			"fence_handle", FB, "fence_value", waited[i], "result",
			U(FSTP_CPU_WAIT_RESULT_SATISFIED), "observed_value", U(100), NULL);
	}
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(got.edge_count, 2);
	for (size_t i = 0; i < got.edge_count; i++)
		cr_assert_eq(got.edges[i].signal_value, got.edges[i].wait_value, "wait %llu",
			     (unsigned long long) got.edges[i].wait_value);
}

/*
 * GPV-07, docs/analyzer.md "Held waits": every wait held on a fence was retried (ops.c try_emit,
 * with its scans of the fence's open and remembered signals) each time a signal of that fence
 * went out — quadratic when they stay held. Here, as at the end of a trace whose stream of one
 * CPU ends early, a signal queued on UQ3 whose log is never read may have run before every wait,
 * while 2,000 signals of UQ go out and 2,000 waits of UQ2 are held: 2 million retries before.
 * A held wait is now retried only once what held it may have changed (ops.c is_still_held());
 * what goes out, with which edges, is unchanged.
 */
Test(model_hostile, gpv_07_held_waits_are_not_each_retried_at_every_signal_of_their_fence)
{
	const uint64_t n = 2000, uq3 = UINT64_C(0x800300000000000b);
	uint64_t ts = T0, calls, held;

	feed_ok("hwqueue_create", T0, "process_id", U(PID), "context_handle", CTX, "hwqueue_handle",
		uq3, "engine_id", U(0), "submission_mode", U(FSTP_SUBMISSION_MODE_USER_MODE),
		"progress_fence_handle", UINT64_C(0x800400000000000b), NULL);
	SIGNAL_QUEUED(T0 + 50, uq3, FA, 1000000, 1);
	for (uint64_t v = 1; v <= n; v++) {
		ts += 5000;
		SIGNAL_QUEUED(ts, UQ, FA, v, v);
		WAIT_QUEUED(ts, UQ2, FA, v, v);
		if (v % 100 == 0)
			PAIR(ts, ts / 10);
		SIGNAL_ENTRY(ts + 500, UQ, v - 1, FA, FA_G, v, (ts + 100) / 10);
		WAIT_ENTRY(ts + 500, UQ2, v - 1, FA, FA_G, v, ts / 10, (ts + 200) / 10);
	}
	calls = model->try_emit_calls;
	held = model->held_waits;
	cr_assert_geq(held, n - 100, "the waits are held (%llu)", (unsigned long long) held);
	/* One call for each box when it closes, then at most two retries per held wait. */
	cr_assert_leq(calls, 2 * n + 2 * held, "%llu try_emit calls for %llu held waits",
		      (unsigned long long) calls, (unsigned long long) held);
	cr_assert_eq(finish(), FSA_OK);
	cr_assert_eq(
	    fsa_model_borrow_summary(model)->op_counts[FSA_SRC_USER_MODE_QUEUE][FSA_OP_WAIT], n);
	/* Held to the end, each wait finds its own signal if the fence still remembers it. */
	cr_assert_eq(got.edge_count, FSA_SIGNAL_HISTORY, "%zu edges", got.edge_count);
	for (size_t i = 0; i < got.edge_count; i++)
		cr_assert_eq(got.edges[i].signal_value, got.edges[i].wait_value);
}
