/* SPDX-License-Identifier: MIT */
/*
 * The event tap the suite is built on (fsr_runtime_set_event_tap): every event the runtime
 * fires reaches it once, in firing order, with its fields as integers, and nothing reaches it
 * once it is removed.
 */
#include <criterion/criterion.h>

#include "conformance.h"

TestSuite(tap, .init = fsc_setup, .fini = fsc_teardown);

Test(tap, every_fired_event_reaches_the_tap_once_in_order)
{
	size_t mark = fsc_event_count();
	uint64_t fired = fst_stats().events;
	struct fsr_process *process = NULL;
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	size_t created, signalled, update;

	cr_assert_eq(fsr_process_create(fx.runtime, "tapped", &process), FSR_OK);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 9), FSR_OK);
	cr_expect_eq(fsc_event_count() - mark, fst_stats().events - fired,
		     "as many events as the runtime counted");

	created = fsc_find(mark, "fencescope_os:process_create", FSC_ANY, 0);
	cr_assert_neq(created, FSC_NONE);
	cr_expect_eq(fsc_event_at(created)->field_count, 2);
	cr_expect_eq(fsc_event_at(created)->fields[1], 0, "a string field is 0");
	signalled = fsc_find(mark, "fencescope_os:cpu_signal", FSC_ANY, 0);
	cr_assert_neq(signalled, FSC_NONE);
	cr_expect_gt(signalled, created, "in firing order");
	cr_expect_eq(fsc_event_at(signalled)->field_count, 3);
	cr_expect_eq(fsc_event_at(signalled)->fields[1], fence);
	cr_expect_eq(fsc_event_at(signalled)->fields[2], 9);
	update = fsc_find(signalled, "fencescope_kmd:update_current_value", FSC_ANY, 0);
	cr_expect_eq(update, signalled + 1, "the driver's event right after the OS's");
	cr_assert_eq(fsr_process_terminate(process, false), FSR_OK);
}

Test(tap, a_removed_tap_sees_nothing)
{
	uint64_t fired = fst_stats().events;
	size_t mark;

	fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	mark = fsc_event_count();
	fst_fence_new(fx.process, fx.device, 0);
	cr_expect_gt(fst_stats().events, fired, "events still fire");
	cr_expect_eq(fsc_event_count(), mark, "but reach no tap");
}
