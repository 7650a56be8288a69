/* SPDX-License-Identifier: MIT */
/*
 * Emulated displays, vertical sync and flips (PRE-13; docs/runtime.md "Display, vsync and flips
 * as built"), in sim mode, on the event tap: a display's vsyncs come exactly one period apart; a
 * present waits in the OS (not in the caller) for its queue's rendering, then the OS programs an
 * MMIO flip (flip_queued) which the display latches at its next vsync only, never during a
 * scan-out (the display's no-tearing watch stays at 0), and the vsync interrupt makes the OS
 * fire flip_done; two presents in one frame queue one vsync apart; presents of two processes
 * show in present order; a full flip queue blocks the presenter; without a display nothing of
 * this happens.
 */
#include <string.h>

#include <stdlib.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "runtime-fixture.h"

#define PERIOD_NS UINT64_C(16666667)   /* the default: 60 Hz */
#define GPU_HZ    UINT64_C(1000000000) /* GPU ticks are ns: gpu_ts differences are exact */

/* Field indexes of the events (docs/trace-format.md). */
enum { VSYNC_COUNT = 2, VSYNC_FLIP = 3, VSYNC_GPU_TS = 4 };
enum { QUEUED_PROCESS = 2, QUEUED_CONTEXT = 3, QUEUED_FLIP = 4 };
enum { DONE_FLIP = 2, DONE_VSYNC = 3 };

static uint64_t epoch_ns;
static fsr_handle queue;

static void
setup_display(uint32_t display_count)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.display_count = display_count;
	adapter_config.gpu_ts_frequency_hz = GPU_HZ;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	/* The displays started with the adapter, at this instant (sim: nothing ran yet). */
	epoch_ns = fsr_runtime_now_ns(fx.runtime);
	fst_tap_start();
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
}

static void
setup_one_display(void)
{
	setup_display(1);
}

static void
setup_no_display(void)
{
	setup_display(0);
}

TestSuite(display, .init = setup_one_display, .fini = fst_rt_teardown);
TestSuite(display_none, .init = setup_no_display, .fini = fst_rt_teardown);

static size_t
find(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < fst_tap_event_count(); i++) {
		const struct fst_event *e = fst_tap_event(i);

		if (strcmp(e->name, name) == 0 && (field < 0 || e->fields[field] == value))
			return i;
	}
	return SIZE_MAX;
}

static const struct fst_event *
event(size_t index)
{
	cr_assert_neq(index, SIZE_MAX, "event not found");
	return fst_tap_event(index);
}

static void
run_until(uint64_t time_ns)
{
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, time_ns), FSR_OK);
}

static struct fsr_test_display_state
display_state(void)
{
	struct fsr_test_display_state state;

	cr_assert_eq(fsr_test_display_get_state(fx.runtime, fx.adapter_id, 0, &state), FSR_OK);
	return state;
}

/*
 * PRE-13's checks of one flip, wherever it happens: it was programmed once (flip_queued), the
 * first vsync after that latched it, and flip_done followed that vsync with its count.
 * Returns the vsync count it landed at.
 */
static uint64_t
check_flip_lands_at_next_vsync(uint64_t flip_id)
{
	size_t queued = find(0, "fencescope_os:flip_queued", QUEUED_FLIP, flip_id);
	size_t vsync = find(queued, "fencescope_hw:vsync", -1, 0);
	size_t done = find(0, "fencescope_os:flip_done", DONE_FLIP, flip_id);

	cr_assert_neq(queued, SIZE_MAX, "flip %lu never programmed", (unsigned long) flip_id);
	cr_assert_eq(find(queued + 1, "fencescope_os:flip_queued", QUEUED_FLIP, flip_id), SIZE_MAX,
		     "flip programmed twice");
	cr_assert_eq(event(vsync)->fields[VSYNC_FLIP], flip_id,
		     "the first vsync after the flip was programmed did not latch it");
	cr_assert_eq(find(vsync + 1, "fencescope_hw:vsync", VSYNC_FLIP, flip_id), SIZE_MAX,
		     "latched twice");
	cr_assert_neq(done, SIZE_MAX, "no flip_done");
	cr_assert_gt(done, vsync, "flip_done before the vsync that latched it");
	cr_assert_eq(event(done)->fields[DONE_VSYNC], event(vsync)->fields[VSYNC_COUNT]);
	return event(vsync)->fields[VSYNC_COUNT];
}

Test(display, pre_13_vsync_period_is_exact_in_sim)
{
	size_t from = 0;
	uint64_t previous_ts = 0;
	struct fsr_runtime_stats stats;

	/* A millisecond past vsync 10, for the OS to handle its interrupt. */
	run_until(epoch_ns + 10 * PERIOD_NS + 1000000);
	for (uint64_t n = 1; n <= 10; n++) {
		size_t vsync = find(from, "fencescope_hw:vsync", -1, 0);
		const struct fst_event *e = event(vsync);

		cr_assert_eq(e->fields[VSYNC_COUNT], n);
		cr_assert_eq(e->fields[VSYNC_FLIP], 0, "no flip was presented");
		/* GPU ticks are ns here: vsync n is n periods after the display started. */
		cr_assert_eq(e->fields[VSYNC_GPU_TS], epoch_ns + n * PERIOD_NS);
		if (n > 1)
			cr_assert_eq(e->fields[VSYNC_GPU_TS] - previous_ts, PERIOD_NS);
		previous_ts = e->fields[VSYNC_GPU_TS];
		/* Each raises CRTC_VSYNC (6), which the OS handles. */
		cr_assert_eq(event(vsync + 1)->fields[2], 6);
		cr_assert_str_eq(event(vsync + 1)->name, "fencescope_hw:interrupt_raise");
		from = vsync + 1;
	}
	cr_assert_eq(find(from, "fencescope_hw:vsync", -1, 0), SIZE_MAX);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:interrupt_handled", 2, 6), 10);
	cr_assert_eq(display_state().vsync_count, 10);
	stats = fst_stats();
	cr_assert_eq(stats.spurious_interrupts, 0, "a vsync interrupt is not a spurious one");
}

Test(display, pre_13_an_idle_display_does_not_keep_the_runtime_busy)
{
	/* Vsyncs without a flip are housekeeping: run_until_idle returns at once. */
	fst_run_until_idle();
	cr_assert_eq(fsr_runtime_now_ns(fx.runtime), epoch_ns);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:vsync", -1, 0), 0);
}

Test(display, pre_13_flip_programmed_mid_frame_lands_at_the_next_vsync_never_mid_scan_out)
{
	uint64_t flip = 0;
	struct fsr_test_display_state state;

	/* Half way through the scan-out of frame 2. */
	run_until(epoch_ns + 2 * PERIOD_NS + PERIOD_NS / 2);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	cr_assert_eq(flip, 1);
	/* Nothing to render: programmed at once, pending in the flip register, not scanned out. */
	state = display_state();
	cr_assert_eq(state.pending_flip_id, 1);
	cr_assert_eq(state.scanout_flip_id, 0, "the flip took effect during the scan-out");
	run_until(epoch_ns + 3 * PERIOD_NS - 1);
	cr_assert_eq(display_state().scanout_flip_id, 0, "the flip took effect before the vsync");
	fst_run_until_idle();
	cr_assert_eq(check_flip_lands_at_next_vsync(flip), 3);
	/* run_until_idle went up to that vsync, for it, and not further. */
	cr_assert_eq(fsr_runtime_now_ns(fx.runtime) >= epoch_ns + 3 * PERIOD_NS, true);
	cr_assert_lt(fsr_runtime_now_ns(fx.runtime), epoch_ns + 4 * PERIOD_NS);
	state = display_state();
	cr_assert_eq(state.scanout_flip_id, 1);
	cr_assert_eq(state.pending_flip_id, 0);
	cr_assert_eq(state.flips_latched, 1);
	cr_assert_eq(state.torn_frames, 0);
}

Test(display, pre_13_flip_queued_names_the_presenting_process_and_context)
{
	uint64_t flip = 0;
	const struct fst_event *queued;

	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	fst_run_until_idle();
	queued = event(find(0, "fencescope_os:flip_queued", QUEUED_FLIP, flip));
	cr_assert_eq(queued->fields[0], fx.adapter_id);
	cr_assert_eq(queued->fields[1], 0);
	cr_assert_eq(queued->fields[QUEUED_PROCESS], fsr_process_get_id(fx.process));
	cr_assert_eq(queued->fields[QUEUED_CONTEXT], fx.context_3d);
}

Test(display, pre_13_present_waits_for_the_rendering_in_the_os_not_in_the_caller)
{
	uint64_t before, flip = 0, progress;
	size_t end, queued;

	/* Rendering of two and a half frames (GPU ticks are ns). */
	progress = fst_submit_work(fx.process, queue, 5 * PERIOD_NS / 2);
	before = fsr_runtime_now_ns(fx.runtime);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	cr_assert_eq(fsr_runtime_now_ns(fx.runtime), before, "the present blocked its caller");
	cr_assert_eq(fst_tap_count(0, "fencescope_os:flip_queued", -1, 0), 0,
		     "programmed before the rendering was done");
	fst_run_until_idle();
	end = find(0, "fencescope_hw:packet_end", 4, progress);
	queued = find(0, "fencescope_os:flip_queued", QUEUED_FLIP, flip);
	cr_assert_neq(end, SIZE_MAX);
	cr_assert_gt(queued, end, "the flip was programmed before its rendering completed");
	/* Rendering ends at 2.5 periods: the flip lands at vsync 3, no later. */
	cr_assert_eq(check_flip_lands_at_next_vsync(flip), 3);
	cr_assert_eq(display_state().torn_frames, 0);
}

Test(display, pre_13_two_flips_in_one_frame_queue_one_vsync_apart)
{
	uint64_t first = 0, second = 0;

	run_until(epoch_ns + PERIOD_NS / 3);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &first), FSR_OK);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &second), FSR_OK);
	cr_assert_eq(second, first + 1);
	fst_run_until_idle();
	cr_assert_eq(check_flip_lands_at_next_vsync(first), 1);
	/* The second is not programmed while the first is pending: it never replaces it. */
	cr_assert_gt(find(0, "fencescope_os:flip_queued", QUEUED_FLIP, second),
		     find(0, "fencescope_os:flip_done", DONE_FLIP, first));
	cr_assert_eq(check_flip_lands_at_next_vsync(second), 2);
	cr_assert_eq(display_state().flips_latched, 2);
	cr_assert_eq(display_state().torn_frames, 0);
}

Test(display, pre_13_presents_of_two_processes_show_in_present_order)
{
	struct fsr_process *other;
	fsr_handle other_device, other_context, other_queue;
	uint64_t slow = 0, quick = 0;

	fst_rt_add_process("other", &other, &other_device, &other_context);
	other_queue = fst_queue_new(other, other_context, FSR_SUBMIT_USER_MODE);
	/* The fixture's process renders for a frame and a half, then the other presents at once. */
	fst_submit_work(fx.process, queue, 3 * PERIOD_NS / 2);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &slow), FSR_OK);
	cr_assert_eq(fsr_present(other, other_queue, 0, &quick), FSR_OK);
	fst_run_until_idle();
	/* The other's flip, ready at once, waits for the one presented before it. */
	cr_assert_eq(check_flip_lands_at_next_vsync(slow), 2);
	cr_assert_eq(check_flip_lands_at_next_vsync(quick), 3);
	cr_assert_eq(
	    event(find(0, "fencescope_os:flip_queued", QUEUED_FLIP, quick))->fields[QUEUED_PROCESS],
	    fsr_process_get_id(other));
	cr_assert_eq(display_state().torn_frames, 0);
}

Test(display, pre_13_a_full_flip_queue_blocks_the_presenter_until_a_flip_is_on_screen)
{
	uint64_t flip = 0;

	for (int i = 0; i < FSR_MAX_QUEUED_FLIPS; i++)
		cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	cr_assert_eq(fsr_runtime_now_ns(fx.runtime), epoch_ns, "blocked with room left");
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	cr_assert_eq(flip, FSR_MAX_QUEUED_FLIPS + 1);
	/* It returned once flip 1 was on screen, at vsync 1 (and the OS's interrupt latency). */
	cr_assert_neq(find(0, "fencescope_os:flip_done", DONE_FLIP, 1), SIZE_MAX);
	cr_assert_geq(fsr_runtime_now_ns(fx.runtime), epoch_ns + PERIOD_NS);
	cr_assert_lt(fsr_runtime_now_ns(fx.runtime), epoch_ns + 2 * PERIOD_NS);
	fst_run_until_idle();
	for (uint64_t f = 1; f <= FSR_MAX_QUEUED_FLIPS + 1; f++)
		cr_assert_eq(check_flip_lands_at_next_vsync(f), f);
}

Test(display, pre_13_a_full_queue_that_nothing_can_empty_is_refused_not_hung)
{
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t flip = 0;

	/* The rendering waits for a signal nobody will make: the first flip never gets ready. */
	fst_submit_wait(fx.process, queue, fence, 1);
	for (int i = 0; i < FSR_MAX_QUEUED_FLIPS; i++)
		cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_ERR_BAD_STATE);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:flip_queued", -1, 0), 0);
	/* The signal comes: everything presented lands, in order, a vsync apart. */
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 1), FSR_OK);
	fst_run_until_idle();
	for (uint64_t f = 1; f <= FSR_MAX_QUEUED_FLIPS; f++)
		check_flip_lands_at_next_vsync(f);
}

Test(display, pre_13_a_flip_whose_queue_dies_unrendered_is_dropped)
{
	struct fsr_process *other;
	fsr_handle other_device, other_context, other_queue, fence;
	uint64_t doomed = 0, next = 0;

	fst_rt_add_process("doomed", &other, &other_device, &other_context);
	other_queue = fst_queue_new(other, other_context, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(other, other_device, 0);
	fst_submit_wait(other, other_queue, fence, 1);
	cr_assert_eq(fsr_present(other, other_queue, 0, &doomed), FSR_OK);
	cr_assert_eq(fsr_process_terminate(other, true), FSR_OK);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &next), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_os:flip_queued", QUEUED_FLIP, doomed), 0);
	check_flip_lands_at_next_vsync(next);
}

Test(display, pre_13_presents_are_refused_on_a_display_the_adapter_lacks)
{
	uint64_t flip = 7;

	cr_assert_eq(fsr_present(fx.process, queue, 1, &flip), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_present(fx.process, 0x1234, 0, &flip), FSR_ERR_INVALID_HANDLE);
	cr_assert_eq(flip, 7);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:call_failed", -1, 0), 2);
}

Test(display_none, pre_13_without_a_display_there_is_no_vsync_and_no_present)
{
	uint64_t flip = 0;

	run_until(epoch_ns + 10 * PERIOD_NS);
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:vsync", -1, 0), 0);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_ERR_INVALID_ARGUMENT);
}

static uint64_t
hash_of_a_presenting_run(uint64_t interleave_seed)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	struct fsr_runtime_stats stats;

	fst_rt_teardown();
	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.display_count = 2;
	runtime_config.interleave_seed = interleave_seed;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	for (uint32_t frame = 0; frame < 12; frame++) {
		fst_submit_work(fx.process, queue, 1000000 + 300000 * (frame % 5));
		cr_assert_eq(fsr_present(fx.process, queue, frame % 2, NULL), FSR_OK);
	}
	fst_run_until_idle();
	stats = fst_stats();
	return stats.trace_hash;
}

Test(display, pre_13_runs_that_present_are_deterministic)
{
	uint64_t first = hash_of_a_presenting_run(0);

	cr_assert_eq(hash_of_a_presenting_run(0), first);
	cr_assert_eq(hash_of_a_presenting_run(5), hash_of_a_presenting_run(5));
}

/*
 * Under sim-mode interleaving (the display, the engine, the OS and the caller switching at
 * every shared word), every flip still lands at the first vsync after it was programmed.
 */
Test(display, pre_13_flips_land_at_the_next_vsync_under_interleaving)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		hash_of_a_presenting_run(seed);
		fst_tap_start();
		for (uint32_t frame = 0; frame < 6; frame++) {
			fst_submit_work(fx.process, queue, 700000 * (frame % 3 + 1));
			cr_assert_eq(fsr_present(fx.process, queue, 0, NULL), FSR_OK);
		}
		fst_run_until_idle();
		for (uint64_t f = 13; f <= 18; f++)
			check_flip_lands_at_next_vsync(f);
		cr_assert_eq(display_state().torn_frames, 0);
		fst_tap_stop();
	}
}

/*
 * PRE-13 with the engine taken away while a flip is pending: a second context on the 3D engine
 * works for three frames in 5 ms items; the presenting queue's 2 ms render runs between them and
 * its flip is programmed for vsync 1. If `suspend_at_ns` is not 0, the busy context is suspended
 * then (the OS's preemption for SUSPEND: its queue leaves the engine at the next boundary) and
 * resumed 4 ms later. Returns the vsync the flip landed at.
 */
static uint64_t
flip_vsync_with_the_engine_taken_away(uint64_t suspend_at_ns)
{
	fsr_handle busy_context, busy_queue;
	struct fsr_cmdbuf *cmdbuf;
	uint64_t flip = 0;

	cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &busy_context), FSR_OK);
	busy_queue = fst_queue_new(fx.process, busy_context, FSR_SUBMIT_USER_MODE);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, busy_queue, &cmdbuf), FSR_OK);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 5000000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_submit_work(fx.process, queue, 2000000);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	if (suspend_at_ns) {
		run_until(epoch_ns + suspend_at_ns);
		/* The flip is pending in the display's register while the engine is taken away. */
		cr_assert_eq(display_state().pending_flip_id, flip);
		cr_assert_eq(fsr_context_suspend(fx.process, busy_context), FSR_OK);
		run_until(epoch_ns + suspend_at_ns + 4000000);
		cr_assert_eq(fsr_context_resume(fx.process, busy_context), FSR_OK);
	}
	fst_run_until_idle();
	cr_assert_eq(display_state().torn_frames, 0);
	return check_flip_lands_at_next_vsync(flip);
}

Test(display, pre_13_suspending_a_context_while_a_flip_is_pending_neither_tears_nor_delays_it)
{
	uint64_t baseline = flip_vsync_with_the_engine_taken_away(0);
	uint64_t suspended;

	cr_assert_eq(baseline, 1);
	/* Again, with the busy context suspended and resumed around vsync 1. */
	fst_rt_teardown();
	setup_display(1);
	suspended = flip_vsync_with_the_engine_taken_away(14000000);
	cr_assert_eq(suspended, baseline, "the flip moved from vsync %lu to %lu",
		     (unsigned long) baseline, (unsigned long) suspended);
	cr_assert_gt(fst_tap_count(0, "fencescope_kmd:context_suspend", -1, 0), 0);
}

/*
 * PRE-13, the rule itself: the scheduler preempts even while flips are pending. The presenting
 * queue renders 2 ms, so its flip is programmed for vsync 1 at about 2 ms; at 3 ms a second
 * context on the same 3D engine gets 40 ms of work in one item (GPU ticks are ns). With
 * `preempt_at_ns` not 0, the OS asks the 3D engine to preempt then (reason PRIORITY), while the
 * flip is pending in the display's register: the engine stops the long item mid-way (shader
 * boundary) and resumes it. Returns the vsync the flip landed at; `request` gets the request's tap
 * index (SIZE_MAX without one).
 */
static uint64_t
flip_vsync_with_a_preemption(uint64_t preempt_at_ns, size_t *request)
{
	fsr_handle busy_context, busy_queue;
	uint64_t flip = 0, request_id = 0;

	*request = SIZE_MAX;
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &busy_context), FSR_OK);
	busy_queue = fst_queue_new(fx.process, busy_context, FSR_SUBMIT_USER_MODE);
	fst_submit_work(fx.process, queue, 2000000);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	/* The flip is programmed once the render is done; then the engine gets the long item. */
	run_until(epoch_ns + 3000000);
	cr_assert_eq(display_state().pending_flip_id, flip, "the flip is not pending");
	fst_submit_work(fx.process, busy_queue, 40000000);
	if (preempt_at_ns) {
		run_until(epoch_ns + preempt_at_ns);
		cr_assert_eq(display_state().pending_flip_id, flip, "no flip pending");
		cr_assert_eq(fsr_test_preempt_request(fx.runtime, fx.adapter_id, 0, 1, &request_id),
			     FSR_OK);
		cr_assert_neq(request_id, 0);
		*request = find(0, "fencescope_os:preempt_request", 3, request_id);
	}
	fst_run_until_idle();
	cr_assert_eq(display_state().torn_frames, 0, "a torn frame");
	return check_flip_lands_at_next_vsync(flip);
}

Test(display, pre_13_the_scheduler_preempts_while_a_flip_is_pending_and_the_flip_still_lands)
{
	size_t request, complete, queued, latched;
	uint64_t baseline = flip_vsync_with_a_preemption(0, &request);
	uint64_t preempted;

	cr_assert_eq(baseline, 1);
	for (uint64_t at_ns = 5000000; at_ns <= PERIOD_NS; at_ns += PERIOD_NS - 5000000 - 1) {
		/* Mid-frame, and a nanosecond before the vsync that is to latch the flip. */
		fst_rt_teardown();
		setup_display(1);
		preempted = flip_vsync_with_a_preemption(at_ns, &request);
		cr_assert_eq(preempted, baseline,
			     "preempted at %lu ns: the flip moved to vsync %lu",
			     (unsigned long) at_ns, (unsigned long) preempted);
		/* The request and its completion came while the flip was pending. */
		queued = find(0, "fencescope_os:flip_queued", -1, 0);
		latched = find(queued, "fencescope_hw:vsync", 3, 1);
		complete = find(0, "fencescope_hw:preempt_complete", -1, 0);
		cr_assert_neq(request, SIZE_MAX);
		cr_assert_neq(complete, SIZE_MAX);
		cr_assert(queued < request && request < latched,
			  "the request was not made mid-flip");
		cr_assert_lt(complete, latched, "the preemption completed after the flip landed");
		/* The engine really stopped the long item mid-way: work was left to resume. */
		cr_assert_gt(event(complete)->fields[7], 0, "nothing was preempted");
		cr_assert_neq(find(0, "fencescope_hw:packet_end", 6, 1), SIZE_MAX,
			      "no packet_end PREEMPTED");
	}
}

Test(display, pre_13_a_kernel_mode_queue_presents_the_same_way)
{
	fsr_handle km_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	uint64_t flip = 0, progress;
	size_t end;

	progress = fst_submit_work(fx.process, km_queue, 3 * PERIOD_NS / 2);
	cr_assert_eq(fsr_present(fx.process, km_queue, 0, &flip), FSR_OK);
	fst_run_until_idle();
	end = find(0, "fencescope_hw:packet_end", 4, progress);
	cr_assert_neq(end, SIZE_MAX);
	cr_assert_gt(find(0, "fencescope_os:flip_queued", QUEUED_FLIP, flip), end);
	cr_assert_eq(check_flip_lands_at_next_vsync(flip), 2);
}

Test(display, pre_13_a_lost_device_presents_nothing)
{
	uint64_t flip = 0;

	cr_assert_eq(fsr_device_mark_lost(fx.process, fx.device, FSR_DEVICE_LOSS_TIMEOUT), FSR_OK);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_ERR_DEVICE_LOST);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_os:flip_queued", -1, 0), 0);
}

/*
 * A driver whose interrupt routine loses the first vsync interrupt that reports a newly latched
 * flip (as a lost interrupt would): the display reports what it scans out, so the next vsync's
 * interrupt reports that flip again, with the vsync that latched it.
 */
static struct dxgk_ddi lossy_ddi;
static dxgk_interrupt_routine reference_isr;
static int lost_vsyncs;

static void
lose_first_flip_vsync(void *miniport, struct hw_interrupt *interrupt)
{
	if (!interrupt->is_retirement && interrupt->type == FSTP_INTERRUPT_TYPE_CRTC_VSYNC &&
	    interrupt->flip_id && interrupt->flip_vsync_count == interrupt->vsync_count &&
	    lost_vsyncs == 0) {
		lost_vsyncs++;
		free(interrupt); /* the OS never gets it */
		return;
	}
	reference_isr(miniport, interrupt);
}

Test(display_none, pre_13_a_lost_vsync_interrupt_delays_flip_done_not_the_flip)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	uint64_t flip = 0;
	size_t done, second_vsync;

	fst_rt_teardown();
	kmd_driver_entry(&lossy_ddi);
	reference_isr = lossy_ddi.DxgkDdiInterruptRoutine;
	lossy_ddi.DxgkDdiInterruptRoutine = lose_first_flip_vsync;
	lost_vsyncs = 0;
	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.display_count = 1;
	fst_rt_setup_with_ddi(&runtime_config, &adapter_config, &lossy_ddi);
	fst_tap_start();
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	/*
	 * Not run_until_idle: once the flip is latched the display's vsyncs are housekeeping again
	 * (it cannot know its interrupt was lost), so only time moving on brings vsync 2.
	 */
	run_until(fsr_runtime_now_ns(fx.runtime) + 2 * PERIOD_NS + 1000000);
	cr_assert_eq(lost_vsyncs, 1);
	/* Latched at vsync 1 (its interrupt lost); the OS learns of it from vsync 2's. */
	cr_assert_eq(check_flip_lands_at_next_vsync(flip), 1);
	second_vsync = find(0, "fencescope_hw:vsync", VSYNC_COUNT, 2);
	done = find(0, "fencescope_os:flip_done", DONE_FLIP, flip);
	cr_assert_gt(done, second_vsync);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:call_failed", -1, 0), 0);
}
