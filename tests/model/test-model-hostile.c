/* SPDX-License-Identifier: MIT */
/*
 * analyzer/model on hostile field values, one regression per defect that a hostile trace found:
 * values at the edges of the integer range (UINT64_MAX, 0) in the fields the model does
 * arithmetic on or keys maps with. test-model-fuzz.c finds such defects; these pin them down with
 * exact expectations.
 */
#include <criterion/criterion.h>

#include "hmap.h"
#include "model-fixture.h"

#define U(x) ((uint64_t) (x))
#define T0   UINT64_C(1000000)

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

	/* A second pair one tick after the fixture's, at the end of the trace clock. */
	feed_ok("clock_correlation", T0 + 10, "adapter_id", U(0), "cpu_ts_ns", UINT64_MAX, "gpu_ts",
		U(T0 / 10 + 1), "gpu_ts_frequency_hz", U(100000000), NULL);
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
	struct fsa_hmap map = {0};
	int values[64];

	for (uint64_t k = 0; k < 64; k++)
		cr_assert(fsa_hmap_put(&map, k, &values[k]));
	for (uint64_t k = 0; k < 64; k += 3)
		cr_assert(fsa_hmap_put(&map, k, NULL));
	for (uint64_t k = 0; k < 64; k++) {
		if (k % 3 == 0)
			cr_assert_null(fsa_hmap_get(&map, k), "key %llu", (unsigned long long) k);
		else
			cr_assert_eq(fsa_hmap_get(&map, k), &values[k], "key %llu",
				     (unsigned long long) k);
	}
	cr_assert_eq(map.count, 64 - 22);
	fsa_hmap_fini(&map);
}
