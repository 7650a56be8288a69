/* SPDX-License-Identifier: MIT */
/*
 * Conformance: a driver's doorbell DDIs (spec 000, UMS-15, UMS-21 to UMS-23), seen through the
 * public API and the event tap only. A dedicated-doorbell GPU with 2 physical doorbells and 5
 * user-mode queues submitting round robin (i915's intel_guc_steal_guc_ids shape): the driver
 * must victimize the least recently used doorbell (the design's LRU: the last ConnectDoorbell
 * or NotifyWorkSubmission it saw), never the connecting one, and in UMS-23's order — the OS's
 * DxgkCbDisconnectDoorbell before the GPU takes anything for the new queue; every submission
 * must run, once, in order.
 */
#include <inttypes.h>
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"
#include "fencescope-tp-enums.h"

#define QUEUES 5
#define ROUNDS 3

static fsr_handle queues[QUEUES];

static void
setup_two_doorbells(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;

	fsc_config_init(&runtime_config, &config);
	config.doorbell_model = FSR_DOORBELL_DEDICATED;
	config.physical_doorbells = 2;
	fsc_setup_with(&runtime_config, &config);
	for (uint32_t i = 0; i < QUEUES; i++) {
		queues[i] = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
		cr_assert_eq(fsr_doorbell_create(fx.process, queues[i], 0, 0), FSR_OK);
	}
}

TestSuite(doorbell, .init = setup_two_doorbells, .fini = fsc_teardown);

static void
submit_round_robin(void)
{
	for (uint32_t r = 0; r < ROUNDS; r++)
		for (uint32_t i = 0; i < QUEUES; i++)
			fst_submit_work(fx.process, queues[i], 10);
}

static uint32_t
queue_index(uint64_t handle)
{
	for (uint32_t i = 0; i < QUEUES; i++)
		if (queues[i] == handle)
			return i;
	return UINT32_MAX;
}

/* doorbell_victimize: adapter, victim queue, victim doorbell, connecting queue, physical */
Test(doorbell, ums_22_the_least_recently_used_doorbell_is_victimized)
{
	size_t mark = fsc_event_count();
	size_t at = mark;

	submit_round_robin();
	fst_run_until_idle();
	cr_assert_eq(fsc_count(mark, "fencescope_kmd:doorbell_victimize", FSC_ANY, 0),
		     QUEUES * ROUNDS - 2);
	/* Submission s (from the third) is queue s mod 5's, and takes queue (s − 2) mod 5's. */
	for (uint32_t s = 2; s < QUEUES * ROUNDS; s++) {
		const struct fsc_event *event;

		at = fsc_find(at, "fencescope_kmd:doorbell_victimize", FSC_ANY, 0);
		cr_assert_neq(at, FSC_NONE);
		event = fsc_event_at(at);
		cr_expect_eq(queue_index(event->fields[3]), s % QUEUES, "steal %u", s);
		cr_expect_eq(queue_index(event->fields[1]), (s + QUEUES - 2) % QUEUES,
			     "steal %u took queue %u", s, queue_index(event->fields[1]));
		cr_expect_neq(event->fields[1], event->fields[3],
			      "UMS-22: never the connecting one");
		at++;
	}
}

/*
 * UMS-23: for each steal, nothing is taken for the new queue (its connect's ring_fetch) before
 * the OS has disconnected the victim (doorbell_disconnect, reason VICTIMIZED): until then the
 * victim's mapping still names the physical doorbell.
 */
Test(doorbell, ums_23_the_victim_is_disconnected_before_the_doorbell_serves_the_new_queue)
{
	size_t mark = fsc_event_count();
	size_t at = mark;
	uint32_t steals = 0;

	submit_round_robin();
	while ((at = fsc_find(at, "fencescope_kmd:doorbell_victimize", FSC_ANY, 0)) != FSC_NONE) {
		const struct fsc_event *victimize = fsc_event_at(at);
		uint64_t beneficiary = victimize->fields[3];
		uint64_t victim = victimize->fields[1];
		size_t ring = FSC_NONE;
		size_t disconnect;

		/* The beneficiary's ring (on its dummy page) that led to this connect. */
		for (size_t i = mark; i < at; i++) {
			const struct fsc_event *e = fsc_event_at(i);

			if (strcmp(e->name, "fencescope_umd:doorbell_ring") == 0 &&
			    e->fields[1] == beneficiary)
				ring = i;
		}
		cr_assert_neq(ring, FSC_NONE);
		disconnect = fsc_find(ring, "fencescope_kmd:doorbell_disconnect", 1, victim);
		cr_assert(disconnect < at, "the victim's disconnect comes before the steal");
		cr_expect_eq(fsc_event_at(disconnect)->fields[5],
			     FSTP_DISCONNECT_REASON_VICTIMIZED);
		cr_expect_eq(fsc_event_at(disconnect)->fields[4],
			     FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
		for (size_t i = ring; i < disconnect; i++) {
			const struct fsc_event *e = fsc_event_at(i);

			if (strcmp(e->name, "fencescope_hw:ring_fetch") == 0 &&
			    e->fields[2] == beneficiary) {
				fsc_dump_events(ring);
				cr_assert_fail("UMS-23: the GPU took queue %" PRIx64
					       "'s work before queue %" PRIx64 " was disconnected",
					       beneficiary, victim);
			}
		}
		steals++;
		at++;
	}
	cr_assert_eq(steals, QUEUES * ROUNDS - 2);
}

Test(doorbell, ums_15_every_submission_runs_once_in_order_across_victimizations)
{
	size_t mark = fsc_event_count();

	submit_round_robin();
	fst_run_until_idle();
	for (uint32_t i = 0; i < QUEUES; i++) {
		size_t at = mark;

		cr_expect_eq(fst_last_completed(fx.process, queues[i]), ROUNDS, "queue %u", i);
		cr_expect_eq(fsc_count(mark, "fencescope_hw:packet_end", 2, queues[i]), ROUNDS);
		for (uint64_t n = 1; n <= ROUNDS; n++) {
			at = fsc_find(at, "fencescope_hw:packet_end", 2, queues[i]);
			cr_assert_neq(at, FSC_NONE);
			cr_expect_eq(fsc_event_at(at)->fields[4], n, "queue %u in order", i);
			at++;
		}
	}
}

/*
 * TRM-01: a process ends right after its UMD rang a connected doorbell, before the command
 * processor serviced the ring. The OS's DisconnectDoorbell (reason TERMINATION) must make the
 * GPU take the write pointer, as every disconnect does: the buffer runs before the wait for
 * LastQueuedValue ends and the queue goes.
 */
Test(doorbell, trm_01_termination_runs_a_last_ring_the_gpu_had_not_serviced)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_DISCONNECTED_RETRY;
	size_t mark;
	size_t wait_end;
	size_t disconnect;

	cr_assert_eq(fsr_doorbell_connect(fx.process, queues[0], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	mark = fsc_event_count();
	fst_submit_work(fx.process, queues[0], 10); /* rings; no engine has stepped since */
	cr_assert_eq(fsr_process_terminate(fx.process, false), FSR_OK);
	fx.process = NULL;
	disconnect = fsc_find(mark, "fencescope_kmd:doorbell_disconnect", 1, queues[0]);
	cr_assert_neq(disconnect, FSC_NONE);
	cr_expect_eq(fsc_event_at(disconnect)->fields[5], FSTP_DISCONNECT_REASON_TERMINATION);
	wait_end = fsc_find(mark, "fencescope_os:termination_step", 1, queues[0]);
	while (wait_end != FSC_NONE &&
	       fsc_event_at(wait_end)->fields[2] != FSTP_TERMINATION_STEP_WAIT_END)
		wait_end = fsc_find(wait_end + 1, "fencescope_os:termination_step", 1, queues[0]);
	cr_assert_neq(wait_end, FSC_NONE, "no end of the wait for LastQueuedValue");
	cr_assert_eq(fsc_event_at(wait_end)->fields[3], 1,
		     "TRM-01: the last buffer was lost (progress %" PRIu64 " of 1)",
		     fsc_event_at(wait_end)->fields[3]);
	cr_assert_eq(fsc_find(mark, "fencescope_hw:packet_end", 2, queues[0]) < wait_end, true);
}
