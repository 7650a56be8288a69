/* SPDX-License-Identifier: MIT */
/*
 * Conformance: a driver's engine F-states (spec 000, FST-04, FST-06, FST-07), seen through the
 * public API, the test-only fsr_test_engine_request_f1 and the event tap only. An engine with
 * three user-mode queues with doorbells is asked into F1: the driver must leave it running until
 * the OS has disconnected its doorbells — a ring the engine took before that, which the UMD saw
 * CONNECTED and will not repeat, must run — and must bring it back to F0 before it takes a
 * reconnecting queue's work.
 */
#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"
#include "fencescope-tp-enums.h"

#define QUEUES 3

static fsr_handle queues[QUEUES];

static void
setup_power(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;

	fsc_config_init(&runtime_config, &config);
	fsc_setup_with(&runtime_config, &config);
	for (uint32_t i = 0; i < QUEUES; i++) {
		queues[i] = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
		cr_assert_eq(fsr_doorbell_create(fx.process, queues[i], 0, 0), FSR_OK);
		fst_submit_work(fx.process, queues[i], 10);
	}
	fst_run_until_idle();
}

TestSuite(fst, .init = setup_power, .fini = fsc_teardown);

/* Runs steps until the engine's F1 request is up its line (the OS handles it a little later). */
static void
step_until_f1_request(size_t mark)
{
	bool has_run = true;

	fsr_test_engine_request_f1(fx.runtime, fx.adapter_id, 0);
	while (has_run && fsc_find(mark, "fencescope_hw:engine_state_change", 1, 0) == FSC_NONE)
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
	cr_assert(has_run, "the engine asked for F1");
}

/*
 * FST-04: a buffer rung while the doorbell is still CONNECTED, after the engine asked for F1 but
 * before the OS disconnected it, runs: the engine is not powered down before the disconnects,
 * and not with work it took.
 */
Test(fst, fst_04_a_ring_before_the_disconnect_is_not_lost)
{
	size_t mark = fsc_event_count();
	size_t ring;

	step_until_f1_request(mark);
	fst_submit_work(fx.process, queues[0], 1000);
	ring = fsc_find(mark, "fencescope_umd:doorbell_ring", 1, queues[0]);
	cr_assert_neq(ring, FSC_NONE);
	cr_assert_eq(fsc_event_at(ring)->fields[4], FSTP_DOORBELL_STATUS_CONNECTED,
		     "the UMD will not ring again");
	fst_run_until_idle();
	if (fst_last_completed(fx.process, queues[0]) != 2)
		fsc_dump_events(mark);
	cr_assert_eq(fst_last_completed(fx.process, queues[0]), 2,
		     "FST-04: the work rung before the disconnect ran");
}

/* FST-04: every doorbell of the engine is disconnected (ENGINE_F1) before the engine's F1. */
Test(fst, fst_04_doorbells_are_disconnected_before_f1)
{
	size_t mark = fsc_event_count();
	size_t power;

	fsr_test_engine_request_f1(fx.runtime, fx.adapter_id, 0);
	fst_run_until_idle();
	power = fsc_find(mark, "fencescope_os:engine_power", 1, 0);
	cr_assert_neq(power, FSC_NONE, "the engine went to F1");
	cr_expect_eq(fsc_event_at(power)->fields[3], FSTP_ENGINE_POWER_F1);
	for (uint32_t i = 0; i < QUEUES; i++) {
		size_t disconnect =
		    fsc_find(mark, "fencescope_kmd:doorbell_disconnect", 1, queues[i]);

		cr_assert_neq(disconnect, FSC_NONE);
		cr_expect_eq(fsc_event_at(disconnect)->fields[5], FSTP_DISCONNECT_REASON_ENGINE_F1);
		cr_expect_lt(disconnect, power);
	}
}

/*
 * FST-06, FST-07: after F1, every queue's next buffer reconnects, the engine is back in F0
 * before the GPU takes anything, and every buffer written in F1 runs.
 */
Test(fst, fst_06_fst_07_reconnects_wake_the_engine_and_lose_nothing)
{
	size_t mark = fsc_event_count();
	size_t wake;

	fsr_test_engine_request_f1(fx.runtime, fx.adapter_id, 0);
	fst_run_until_idle();
	cr_assert_neq(fsc_find(mark, "fencescope_os:engine_power", 1, 0), FSC_NONE);
	mark = fsc_event_count();
	for (uint32_t i = 0; i < QUEUES; i++)
		fst_submit_work(fx.process, queues[i], 10);
	fst_run_until_idle();
	wake = fsc_find(mark, "fencescope_os:engine_power", 1, 0);
	cr_assert_neq(wake, FSC_NONE);
	cr_expect_eq(fsc_event_at(wake)->fields[3], FSTP_ENGINE_POWER_F0);
	cr_expect_lt(wake, fsc_find(mark, "fencescope_hw:ring_fetch", FSC_ANY, 0));
	for (uint32_t i = 0; i < QUEUES; i++)
		cr_expect_eq(fst_last_completed(fx.process, queues[i]), 2, "queue %u", i);
}

/* ---- device D-states (DST-04 to DST-08) ----------------------------------------------------- */

TestSuite(dst, .init = setup_power, .fini = fsc_teardown);

/*
 * DST-05, DST-06: a ConnectDoorbell in D3 wakes the device (D0), connects the caller and only
 * then resumes the contexts: no context_resume before the caller's doorbell_connect.
 */
Test(dst, dst_05_the_wake_connects_the_caller_before_resuming_any_context)
{
	size_t mark, wake, connect, resume;

	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3), FSR_OK);
	mark = fsc_event_count();
	fst_submit_work(fx.process, queues[0], 10);
	wake = fsc_find(mark, "fencescope_os:device_power", 2, FSTP_DEVICE_POWER_D0);
	connect = fsc_find(mark, "fencescope_kmd:doorbell_connect", 1, queues[0]);
	resume = fsc_find(mark, "fencescope_kmd:context_resume", FSC_ANY, 0);
	cr_assert_neq(wake, FSC_NONE, "DST-04: the device woke");
	cr_assert_neq(connect, FSC_NONE);
	cr_assert_neq(resume, FSC_NONE);
	if (resume < connect)
		fsc_dump_events(mark);
	cr_assert_lt(connect, resume, "DST-05: the caller is connected before any resume");
	cr_expect_lt(wake, connect);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, queues[0]), 2);
}

/* DST-07, DST-08: every queue's buffer written in D3 runs after the one wake. */
Test(dst, dst_07_dst_08_one_wake_and_nothing_lost)
{
	size_t mark;

	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3), FSR_OK);
	mark = fsc_event_count();
	for (uint32_t i = 0; i < QUEUES; i++)
		fst_submit_work(fx.process, queues[i], 10);
	fst_run_until_idle();
	cr_expect_eq(fsc_count(mark, "fencescope_os:device_power", 2, FSTP_DEVICE_POWER_D0), 1);
	for (uint32_t i = 0; i < QUEUES; i++)
		cr_expect_eq(fst_last_completed(fx.process, queues[i]), 2, "queue %u", i);
}
