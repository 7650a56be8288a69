/* SPDX-License-Identifier: MIT */
/*
 * Frames (fsa/frames.h, docs/analyzer.md "Frames") from synthetic vsync and flip markers, in the
 * order the model gives them: a vsync instant at once, a flip when its flip_done closes it. Each
 * test is one rule of the definition (PRE-13: a flip takes effect at a vsync, never between).
 */
#include <criterion/criterion.h>

#include "fsa/frames.h"

#define PERIOD UINT64_C(16666667)
#define V0     UINT64_C(1000000000) /* vsync 0's time */

static struct fsa_frame got[64];
static size_t got_len;

static fsa_status
keep(void *data, const struct fsa_frame *frame)
{
	(void) data;
	cr_assert_lt(got_len, 64);
	got[got_len++] = *frame;
	return FSA_OK;
}

static struct fsa_frame_builder *builder;

static void
setup(void)
{
	got_len = 0;
	builder = fsa_frame_builder_create(keep, NULL);
	cr_assert_not_null(builder);
}

static void
teardown(void)
{
	fsa_frame_builder_destroy(builder);
}

TestSuite(frames, .init = setup, .fini = teardown);

static uint64_t
vsync_ns(uint64_t count)
{
	return V0 + count * PERIOD;
}

static void
vsync(uint64_t count, uint64_t flip_id)
{
	struct fsa_marker m = {.kind = FSA_MARK_VSYNC,
			       .begin_ns = vsync_ns(count),
			       .end_ns = vsync_ns(count),
			       .adapter_id = 0,
			       .engine_id = UINT32_MAX,
			       .process_id = UINT32_MAX,
			       .other_handle = 0,
			       .value = count,
			       .value2 = flip_id};

	cr_assert_eq(fsa_frame_builder_add_marker(builder, &m), FSA_OK);
}

/* flip_queued at `queued`, flip_done 2 µs after vsync `count` (0: still pending). */
static void
flip(uint64_t flip_id, uint64_t queued, uint64_t count)
{
	struct fsa_marker m = {.kind = FSA_MARK_FLIP,
			       .begin_ns = queued,
			       .end_ns = count ? vsync_ns(count) + 2000 : FSA_TIME_NONE,
			       .adapter_id = 0,
			       .engine_id = UINT32_MAX,
			       .process_id = 1,
			       .context_handle = 0x8002000000000002,
			       .other_handle = 0,
			       .value = flip_id,
			       .value2 = count};

	cr_assert_eq(fsa_frame_builder_add_marker(builder, &m), FSA_OK);
}

Test(frames, pre_13_a_trace_without_flips_gives_no_frames)
{
	for (uint64_t n = 1; n <= 10; n++)
		vsync(n, 0);
	cr_assert_eq(fsa_frame_builder_finish(builder), FSA_OK);
	cr_assert_eq(got_len, 0);
	cr_assert_eq(fsa_frame_builder_frame_count(builder), 0);
}

Test(frames, pre_13_one_flip_per_vsync_gives_frames_one_period_long)
{
	for (uint64_t n = 1; n <= 5; n++) {
		vsync(n, n);
		flip(n, vsync_ns(n) - 5000000, n);
	}
	cr_assert_eq(fsa_frame_builder_finish(builder), FSA_OK);
	cr_assert_eq(got_len, 5);
	cr_assert_eq(got[0].index, 1);
	cr_assert_eq(got[0].begin_ns, FSA_TIME_NONE, "a display's first frame has no begin");
	cr_assert_eq(got[0].frame_time_ns, FSA_TIME_NONE);
	for (size_t i = 1; i < 5; i++) {
		cr_assert_eq(got[i].index, i + 1);
		cr_assert_eq(got[i].flip_id, i + 1);
		cr_assert_eq(got[i].vsync_count, i + 1);
		cr_assert_eq(got[i].begin_ns, vsync_ns(i));
		cr_assert_eq(got[i].end_ns, vsync_ns(i + 1));
		cr_assert_eq(got[i].frame_time_ns, PERIOD);
		cr_assert_eq(got[i].missed_vsyncs, 0);
		cr_assert_eq(got[i].queued_ns, vsync_ns(i + 1) - 5000000);
		cr_assert_eq(got[i].done_ns, vsync_ns(i + 1) + 2000);
		cr_assert_eq(got[i].present_latency_ns, 5002000);
		cr_assert_eq(got[i].vsync_period_ns, PERIOD);
		cr_assert_eq(got[i].process_id, 1);
		cr_assert_not(got[i].is_pending);
	}
}

Test(frames, pre_13_a_vsync_without_a_new_flip_is_missed_and_the_next_frame_is_two_periods)
{
	vsync(1, 1);
	flip(1, vsync_ns(1) - 1000, 1);
	vsync(2, 0); /* the render of flip 2 was late */
	vsync(3, 2);
	flip(2, vsync_ns(2) + 3000000, 3);
	cr_assert_eq(fsa_frame_builder_finish(builder), FSA_OK);
	cr_assert_eq(got_len, 2);
	cr_assert_eq(got[1].vsync_count, 3);
	cr_assert_eq(got[1].missed_vsyncs, 1);
	cr_assert_eq(got[1].frame_time_ns, 2 * PERIOD);
}

Test(frames, a_frame_waits_for_its_flip_marker_and_goes_out_in_vsync_order)
{
	vsync(1, 1);
	cr_assert_eq(got_len, 0, "vsync 1 latched flip 1: its flip_done is still to come");
	vsync(2, 2);
	flip(1, vsync_ns(1) - 1000, 1);
	cr_assert_eq(got_len, 1);
	flip(2, vsync_ns(2) - 1000, 2);
	cr_assert_eq(got_len, 2);
	cr_assert_eq(got[0].flip_id, 1);
	cr_assert_eq(got[1].flip_id, 2);
}

Test(frames, a_lost_vsync_event_keeps_the_frame_from_its_flip_done_with_no_time)
{
	vsync(1, 1);
	flip(1, vsync_ns(1) - 1000, 1);
	/* vsync 2's event was discarded by the tracer; flip_done still names it. */
	flip(2, vsync_ns(2) - 1000, 2);
	vsync(3, 3);
	flip(3, vsync_ns(3) - 1000, 3);
	cr_assert_eq(fsa_frame_builder_finish(builder), FSA_OK);
	cr_assert_eq(got_len, 3);
	cr_assert_eq(got[1].vsync_count, 2);
	cr_assert_eq(got[1].end_ns, FSA_TIME_NONE);
	cr_assert_eq(got[1].frame_time_ns, FSA_TIME_NONE);
	cr_assert_eq(got[1].done_ns, vsync_ns(2) + 2000);
	cr_assert_eq(got[2].begin_ns, FSA_TIME_NONE, "its begin is the lost vsync");
	cr_assert_eq(got[2].missed_vsyncs, 0);
}

Test(frames, a_latched_flip_without_its_flip_marker_goes_out_after_the_hold)
{
	vsync(1, 1); /* flip 1's flip_queued is not in the trace: no flip marker */
	for (uint64_t n = 2; n < 1 + FSA_FRAME_HOLD_VSYNCS; n++)
		vsync(n, 0);
	cr_assert_eq(got_len, 0);
	vsync(1 + FSA_FRAME_HOLD_VSYNCS, 0);
	cr_assert_eq(got_len, 1);
	cr_assert_eq(got[0].flip_id, 1);
	cr_assert_eq(got[0].queued_ns, FSA_TIME_NONE);
	cr_assert_eq(got[0].present_latency_ns, FSA_TIME_NONE);
	cr_assert_eq(got[0].end_ns, vsync_ns(1));
}

Test(frames, a_present_pending_at_the_end_comes_last_marked_pending)
{
	vsync(1, 1);
	flip(1, vsync_ns(1) - 1000, 1);
	vsync(2, 0);
	flip(2, vsync_ns(2) + 1000, 0); /* closed open by the model's finish */
	cr_assert_eq(fsa_frame_builder_finish(builder), FSA_OK);
	cr_assert_eq(got_len, 2);
	cr_assert_not(got[0].is_pending);
	cr_assert(got[1].is_pending);
	cr_assert_eq(got[1].index, 2);
	cr_assert_eq(got[1].flip_id, 2);
	cr_assert_eq(got[1].vsync_count, 0);
	cr_assert_eq(got[1].end_ns, FSA_TIME_NONE);
	cr_assert_eq(got[1].queued_ns, vsync_ns(2) + 1000);
	cr_assert_eq(fsa_frame_builder_frame_count(builder), 1, "a pending present is no frame");
}

Test(frames, displays_are_apart)
{
	struct fsa_marker m = {.kind = FSA_MARK_VSYNC,
			       .begin_ns = vsync_ns(1) + 7,
			       .end_ns = vsync_ns(1) + 7,
			       .other_handle = 1,
			       .value = 1,
			       .value2 = 9};

	vsync(1, 1);
	flip(1, vsync_ns(1) - 1000, 1);
	cr_assert_eq(fsa_frame_builder_add_marker(builder, &m), FSA_OK);
	cr_assert_eq(fsa_frame_builder_finish(builder), FSA_OK);
	cr_assert_eq(got_len, 2);
	cr_assert_eq(got[1].source_id, 1);
	cr_assert_eq(got[1].index, 1);
	cr_assert_eq(got[1].flip_id, 9);
}
