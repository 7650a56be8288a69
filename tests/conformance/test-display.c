/* SPDX-License-Identifier: MIT */
/*
 * Conformance: a driver's display flips (PRE-13), through the public API, the test API's view of
 * the display and the event tap only. The scheduler preempts even while flips are pending, so a
 * driver must declare FlipOnVSyncMmIo (DXGK_DRIVERCAPS) and its DxgkDdiSetVidPnSourceAddress
 * with FlipOnNextVSync must leave the surface being scanned out alone until the next vertical
 * sync: the vsync that follows the programming latches the flip, its interrupt reports it, the
 * OS fires flip_done, and no frame is ever torn.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"

#define PERIOD_NS UINT64_C(16666667)

enum { VSYNC_COUNT = 2, VSYNC_FLIP = 3 };
enum { QUEUED_FLIP = 4 };
enum { DONE_FLIP = 2, DONE_VSYNC = 3 };

static fsr_handle queue;
static uint64_t epoch_ns;

static void
setup_display(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;

	fsc_config_init(&runtime_config, &config);
	config.display_count = 1;
	fsc_setup_with(&runtime_config, &config);
	epoch_ns = fsr_runtime_now_ns(fx.runtime);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
}

TestSuite(flip, .init = setup_display, .fini = fsc_teardown);

static struct fsr_test_display_state
display_state(void)
{
	struct fsr_test_display_state state;

	cr_assert_eq(fsr_test_display_get_state(fx.runtime, fx.adapter_id, 0, &state), FSR_OK);
	return state;
}

/* The first vsync after the flip was programmed latched it, and flip_done followed it. */
static uint64_t
check_lands_at_next_vsync(uint64_t flip_id)
{
	size_t queued = fsc_find(0, "fencescope_os:flip_queued", QUEUED_FLIP, flip_id);
	size_t vsync, done;

	cr_assert_neq(queued, FSC_NONE, "flip %lu was never programmed", (unsigned long) flip_id);
	vsync = fsc_find(queued, "fencescope_hw:vsync", FSC_ANY, 0);
	cr_assert_neq(vsync, FSC_NONE, "no vsync after the flip was programmed");
	cr_assert_eq(fsc_event_at(vsync)->fields[VSYNC_FLIP], flip_id,
		     "driver %s: the vsync after flip %lu was programmed latched %lu",
		     fsc_driver_name(), (unsigned long) flip_id,
		     (unsigned long) fsc_event_at(vsync)->fields[VSYNC_FLIP]);
	done = fsc_find(0, "fencescope_os:flip_done", DONE_FLIP, flip_id);
	cr_assert_neq(done, FSC_NONE, "driver %s: no flip_done for flip %lu", fsc_driver_name(),
		      (unsigned long) flip_id);
	cr_assert_gt(done, vsync);
	cr_assert_eq(fsc_event_at(done)->fields[DONE_VSYNC],
		     fsc_event_at(vsync)->fields[VSYNC_COUNT]);
	return fsc_event_at(vsync)->fields[VSYNC_COUNT];
}

Test(flip, pre_13_the_driver_declares_flip_on_vsync_mmio)
{
	uint64_t flip = 0;

	/* The OS refuses presents on an adapter whose driver does not declare it. */
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK,
		     "driver %s: presents refused (FlipOnVSyncMmIo not declared?)",
		     fsc_driver_name());
	cr_assert_eq(fsr_runtime_run_until_idle(fx.runtime), FSR_OK);
	check_lands_at_next_vsync(flip);
}

Test(flip, pre_13_a_flip_never_lands_mid_scan_out)
{
	uint64_t flip = 0;
	struct fsr_test_display_state state;

	cr_assert_eq(fsr_runtime_run_until(fx.runtime, epoch_ns + PERIOD_NS + PERIOD_NS / 3),
		     FSR_OK);
	fst_submit_work(fx.process, queue, 100000);
	cr_assert_eq(fsr_present(fx.process, queue, 0, &flip), FSR_OK);
	/* Its rendering is done a millisecond later; still mid-frame. */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, epoch_ns + 2 * PERIOD_NS - 1), FSR_OK);
	state = display_state();
	cr_assert_eq(state.scanout_flip_id, 0,
		     "driver %s: the surface changed during the scan-out of a frame",
		     fsc_driver_name());
	cr_assert_eq(state.torn_frames, 0, "driver %s: a torn frame", fsc_driver_name());
	cr_assert_eq(fsr_runtime_run_until_idle(fx.runtime), FSR_OK);
	cr_assert_eq(check_lands_at_next_vsync(flip), 2);
	state = display_state();
	cr_assert_eq(state.scanout_flip_id, flip);
	cr_assert_eq(state.torn_frames, 0, "driver %s: a torn frame", fsc_driver_name());
}

Test(flip, pre_13_flips_presented_in_one_frame_land_one_vsync_apart)
{
	uint64_t flips[3];

	for (int i = 0; i < 3; i++)
		cr_assert_eq(fsr_present(fx.process, queue, 0, &flips[i]), FSR_OK);
	cr_assert_eq(fsr_runtime_run_until_idle(fx.runtime), FSR_OK);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(check_lands_at_next_vsync(flips[i]), (uint64_t) i + 1);
	cr_assert_eq(display_state().torn_frames, 0, "driver %s: a torn frame", fsc_driver_name());
}
