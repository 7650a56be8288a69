/* SPDX-License-Identifier: MIT */
/*
 * Engine F-states (spec 000, FST-01 to FST-07; docs/runtime.md "Engine F-states"). An engine
 * with no work asks for F1 through a GPU_ENGINE_STATE_CHANGE interrupt (after the adapter's
 * engine_idle_to_f1_ns, or at once through fsr_test_engine_request_f1); the OS disconnects every
 * doorbell of that engine's queues and only then powers it down; a ConnectDoorbell (or a
 * kernel-mode submission) brings it back to F0 before anything is taken, and what was written
 * meanwhile runs. Checked on the event tap, and under sim-mode interleaving by an observer that
 * looks at the GPU and the OS at every point.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "hw/hw-private.h"
#include "runtime-fixture.h"

#define IDLE_TO_F1_NS  UINT64_C(100000) /* 100 µs */
#define TDR_TIMEOUT_NS UINT64_C(2000000000)

/* Two user-mode queues with doorbells on the 3D engine (0), one on the compute engine (1). */
static fsr_handle q3d[2];
static fsr_handle qcompute;

static void
setup_power(uint64_t idle_to_f1_ns)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.engine_idle_to_f1_ns = idle_to_f1_ns;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	for (int i = 0; i < 2; i++) {
		q3d[i] = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
		cr_assert_eq(fsr_doorbell_create(fx.process, q3d[i], 0, 0), FSR_OK);
	}
	qcompute = fst_queue_new_without_doorbell(fx.process, fx.context_compute);
	cr_assert_eq(fsr_doorbell_create(fx.process, qcompute, 0, 0), FSR_OK);
	fst_tap_start();
}

static void
setup_forced(void)
{
	setup_power(0);
}

static void
setup_timed(void)
{
	setup_power(IDLE_TO_F1_NS);
}

static void
teardown_power(void)
{
	fst_tap_stop();
	if (fx.runtime)
		rt_interleave_set_observer(fx.runtime, NULL, NULL);
	fst_rt_teardown();
}

TestSuite(fst, .init = setup_forced, .fini = teardown_power);
TestSuite(fst_timed, .init = setup_timed, .fini = teardown_power);

/* The index of the first event named `name` at or after `from` with field `field` == value. */
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

static enum fsr_doorbell_status
status_of(fsr_handle queue)
{
	enum fsr_doorbell_status status;

	cr_assert_eq(fsr_doorbell_get_status(fx.process, queue, &status), FSR_OK);
	return status;
}

/* Every queue connected (one buffer each, run), then engine 0 asked into F1 and handled. */
static void
connect_all_then_f1_engine0(void)
{
	fst_submit_work(fx.process, q3d[0], 10);
	fst_submit_work(fx.process, q3d[1], 10);
	fst_submit_work(fx.process, qcompute, 10);
	fst_run_until_idle();
	cr_assert_eq(status_of(q3d[0]), FSR_DOORBELL_CONNECTED);
	fsr_test_engine_request_f1(fx.runtime, fx.adapter_id, 0);
	fst_run_until_idle();
}

/* engine_power: adapter, engine, old state, new state */
static size_t
count_power(size_t from, uint32_t engine, int new_state)
{
	size_t count = 0;

	for (size_t i = from; (i = find(i, "fencescope_os:engine_power", 1, engine)) != SIZE_MAX;
	     i++)
		if (fst_tap_event(i)->fields[3] == (uint64_t) new_state)
			count++;
	return count;
}

Test(fst, fst_off_by_default_no_engine_asks_for_f1)
{
	fst_submit_work(fx.process, q3d[0], 10);
	fst_run_until_idle();
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:engine_state_change", -1, 0), 0);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:engine_power", -1, 0), 0);
	cr_assert_eq(status_of(q3d[0]), FSR_DOORBELL_CONNECTED);
}

/*
 * FST-01, FST-02, FST-03: with engine_idle_to_f1_ns, an engine that finished its work asks for F1
 * that long after (not at the 2 s TDR cadence), through the GPU_ENGINE_STATE_CHANGE interrupt
 * (NewState TRANSITION_TO_F1), which the OS handles (interrupt_handled) without counting it
 * spurious, and it goes to F1 once.
 */
Test(fst_timed, fst_01_fst_02_fst_03_an_idle_engine_asks_for_f1_after_its_idle_time)
{
	uint64_t end_ns = 0;
	uint64_t request_ns = 0;
	bool has_run = true;
	size_t at;

	fst_submit_work(fx.process, q3d[0], 10);
	while (has_run && !request_ns) {
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
		if (!end_ns && find(0, "fencescope_hw:packet_end", 2, q3d[0]) != SIZE_MAX)
			end_ns = fsr_runtime_now_ns(fx.runtime);
		if (find(0, "fencescope_hw:engine_state_change", 1, 0) != SIZE_MAX)
			request_ns = fsr_runtime_now_ns(fx.runtime);
	}
	cr_assert(end_ns && request_ns);
	cr_expect_geq(request_ns - end_ns, IDLE_TO_F1_NS, "asked after %lu ns",
		      (unsigned long) (request_ns - end_ns));
	cr_expect_lt(request_ns - end_ns, 2 * IDLE_TO_F1_NS, "FST-03: soon after its idle time");
	cr_expect_lt(request_ns, TDR_TIMEOUT_NS, "FST-03: sooner than the TDR timeout");
	at = find(0, "fencescope_hw:engine_state_change", 1, 0);
	cr_expect_eq(fst_tap_event(at)->fields[2], FSTP_ENGINE_STATE_TRANSITION_TO_F1);
	fst_run_until_idle();
	cr_expect_neq(
	    find(at, "fencescope_os:interrupt_handled", 2, FSTP_INTERRUPT_TYPE_ENGINE_STATE_CHANGE),
	    SIZE_MAX);
	cr_expect_eq(fst_stats().spurious_interrupts, 0);
	/* One request and one power-down per engine, every engine being idle now. */
	for (uint32_t e = 0; e < 3; e++) {
		cr_expect_eq(fst_tap_count(0, "fencescope_hw:engine_state_change", 1, e), 1,
			     "engine %u", e);
		cr_expect_eq(count_power(0, e, FSTP_ENGINE_POWER_F1), 1, "engine %u", e);
	}
}

/*
 * FST-04: on TRANSITION_TO_F1, every doorbell of the engine's queues is disconnected — status
 * RETRY, rotation to the dummy page, doorbell_disconnect with reason ENGINE_F1 — before the
 * engine's F0 → F1 transition (engine_power).
 */
Test(fst, fst_04_doorbells_are_disconnected_before_the_engine_goes_to_f1)
{
	size_t mark = fst_tap_event_count();
	size_t request, power;

	connect_all_then_f1_engine0();
	request = find(mark, "fencescope_hw:engine_state_change", 1, 0);
	power = find(mark, "fencescope_os:engine_power", 1, 0);
	cr_assert_neq(request, SIZE_MAX);
	cr_assert_neq(power, SIZE_MAX, "engine 0 went to F1");
	cr_expect_eq(fst_tap_event(power)->fields[2], FSTP_ENGINE_POWER_F0);
	cr_expect_eq(fst_tap_event(power)->fields[3], FSTP_ENGINE_POWER_F1);
	for (int i = 0; i < 2; i++) {
		size_t status = find(request, "fencescope_os:doorbell_status", 1, q3d[i]);
		size_t rotate = find(request, "fencescope_os:doorbell_rotate", 1, q3d[i]);
		size_t disconnect = find(request, "fencescope_kmd:doorbell_disconnect", 1, q3d[i]);

		cr_assert_neq(disconnect, SIZE_MAX, "queue %d disconnected", i);
		cr_expect_eq(fst_tap_event(status)->fields[4],
			     FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
		cr_expect_eq(fst_tap_event(rotate)->fields[3], 1, "to the dummy page");
		cr_expect_eq(fst_tap_event(disconnect)->fields[5],
			     FSTP_DISCONNECT_REASON_ENGINE_F1);
		cr_expect_lt(status, rotate, "UMS-14: status before rotation");
		cr_expect_lt(disconnect, power, "FST-04: queue %d disconnected before F1", i);
		cr_expect_eq(status_of(q3d[i]), FSR_DOORBELL_DISCONNECTED_RETRY);
	}
}

/* FST-05: engine 0's F1 leaves engine 1's doorbell connected and engine 1 in F0. */
Test(fst, fst_05_another_engines_doorbells_stay_connected)
{
	size_t mark = fst_tap_event_count();
	size_t after;

	connect_all_then_f1_engine0();
	after = fst_tap_event_count();
	cr_assert_eq(count_power(mark, 0, FSTP_ENGINE_POWER_F1), 1);
	cr_expect_eq(fst_tap_count(mark, "fencescope_kmd:doorbell_disconnect", 1, qcompute), 0);
	cr_expect_eq(fst_tap_count(mark, "fencescope_os:engine_power", 1, 1), 0);
	cr_expect_eq(status_of(qcompute), FSR_DOORBELL_CONNECTED);
	/* ... and it keeps running work without a reconnect. */
	fst_submit_work(fx.process, qcompute, 10);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, qcompute), 2);
	cr_expect_eq(fst_tap_count(after, "fencescope_kmd:doorbell_connect", 1, qcompute), 0);
}

/*
 * FST-06: a submission to a queue of an engine in F1 reads RETRY and reconnects; that
 * ConnectDoorbell brings the engine to F0 (engine_power) before the KMD connects and before the
 * GPU takes anything of the queue.
 */
Test(fst, fst_06_connect_on_an_f1_engine_brings_it_to_f0_first)
{
	size_t mark, wake, connect, fetch;

	connect_all_then_f1_engine0();
	mark = fst_tap_event_count();
	fst_submit_work(fx.process, q3d[0], 10);
	cr_expect_eq(
	    fst_tap_event(find(mark, "fencescope_umd:doorbell_ring", 1, q3d[0]))->fields[4],
	    FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
	wake = find(mark, "fencescope_os:engine_power", 1, 0);
	connect = find(mark, "fencescope_kmd:doorbell_connect", 1, q3d[0]);
	fetch = find(mark, "fencescope_hw:ring_fetch", 2, q3d[0]);
	cr_assert_neq(wake, SIZE_MAX, "FST-06: the engine woke");
	cr_assert_neq(connect, SIZE_MAX);
	cr_assert_neq(fetch, SIZE_MAX);
	cr_expect_eq(fst_tap_event(wake)->fields[2], FSTP_ENGINE_POWER_F1);
	cr_expect_eq(fst_tap_event(wake)->fields[3], FSTP_ENGINE_POWER_F0);
	cr_expect_lt(wake, fetch, "FST-06: F0 before the GPU takes the work");
	cr_expect_lt(wake, connect);
	cr_expect_eq(status_of(q3d[0]), FSR_DOORBELL_CONNECTED);
}

/*
 * FST-07: work written while the engine is in F1 runs after the reconnect, none lost, in order;
 * the other queue of the engine, which wrote nothing, stays RETRY until it submits itself.
 */
Test(fst, fst_07_work_written_in_f1_runs_after_the_reconnect)
{
	size_t mark;

	connect_all_then_f1_engine0();
	mark = fst_tap_event_count();
	for (int n = 0; n < 3; n++)
		fst_submit_work(fx.process, q3d[0], 10);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, q3d[0]), 4);
	cr_expect_eq(fst_tap_count(mark, "fencescope_hw:packet_end", 2, q3d[0]), 3);
	cr_expect_eq(status_of(q3d[1]), FSR_DOORBELL_DISCONNECTED_RETRY);
	fst_submit_work(fx.process, q3d[1], 10);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, q3d[1]), 2);
}

/* FST-01: a kernel-mode submission to an engine in F1 (the OS sees it) wakes the engine. */
Test(fst, fst_01_a_kernel_mode_submission_wakes_an_f1_engine)
{
	fsr_handle km = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t mark;

	connect_all_then_f1_engine0();
	mark = fst_tap_event_count();
	fst_submit_work(fx.process, km, 10);
	fst_run_until_idle();
	cr_expect_eq(count_power(mark, 0, FSTP_ENGINE_POWER_F0), 1);
	cr_expect_eq(fst_last_completed(fx.process, km), 1);
}

/*
 * A ring the engine took between its request and the OS's handling: the KMD keeps the engine in
 * F0 (no engine_power), the work runs, and the engine asks again once idle.
 */
Test(fst, fst_04_work_taken_after_the_request_keeps_the_engine_in_f0)
{
	bool has_run = true;
	size_t mark;

	fst_submit_work(fx.process, q3d[0], 10);
	fst_run_until_idle();
	mark = fst_tap_event_count();
	fsr_test_engine_request_f1(fx.runtime, fx.adapter_id, 0);
	while (has_run && find(mark, "fencescope_hw:engine_state_change", 1, 0) == SIZE_MAX)
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
	/* The OS handles the interrupt interrupt_latency_ns later: ring now, while CONNECTED. */
	fst_submit_work(fx.process, q3d[0], 1000);
	cr_expect_eq(
	    fst_tap_event(find(mark, "fencescope_umd:doorbell_ring", 1, q3d[0]))->fields[4],
	    FSTP_DOORBELL_STATUS_CONNECTED);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, q3d[0]), 2);
	cr_expect_eq(count_power(mark, 0, FSTP_ENGINE_POWER_F1), 0, "the engine had work");
	cr_expect_eq(status_of(q3d[0]), FSR_DOORBELL_DISCONNECTED_RETRY);
	fst_submit_work(fx.process, q3d[0], 10);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, q3d[0]), 3);
}

/* ---- under interleaving ------------------------------------------------------------------- */

struct power_check {
	uint64_t checks;
	uint32_t f1_with_connected; /* an engine in F1 with a queue still connected in the GPU */
	uint32_t f1_running;        /* an engine in F1 in the middle of running a queue */
};

/*
 * FST-04 at every point (the baton held): an engine in F1 has no queue connected to a physical
 * doorbell in the hardware and is running nothing.
 */
static void
check_power(struct fsr_runtime *runtime, const char *actor, enum rt_point point, void *data)
{
	struct power_check *check = data;
	struct fsr_adapter *adapter = runtime->adapters[0];

	(void) actor;
	(void) point;
	check->checks++;
	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		struct hw_engine *engine = &adapter->gpu->engines[e];

		if (engine->fstate != FSTP_ENGINE_POWER_F1)
			continue;
		if (engine->running_queue || engine->is_busy)
			check->f1_running++;
		for (struct os_hwqueue *q = engine->run_list; q; q = q->next_on_engine)
			if (q->hw_is_doorbell_connected)
				check->f1_with_connected++;
	}
}

/*
 * FST-04, FST-06, FST-07 under 40 interleaving seeds: rounds of submissions to both engines'
 * queues, each round followed by both engines asked into F1: every buffer completes once, and
 * no engine in F1 ever has a connected doorbell or runs.
 */
Test(fst, fst_04_fst_07_f1_and_reconnects_under_interleaving, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct power_check check = {0};
		uint64_t expected = 0;

		if (seed > 1) {
			teardown_power();
			setup_forced();
		}
		cr_assert_eq(rt_interleave_enable(fx.runtime, seed, NULL, 0), FSR_OK);
		rt_interleave_set_observer(fx.runtime, check_power, &check);
		for (int round = 0; round < 4; round++) {
			fst_submit_work(fx.process, q3d[0], 10);
			fst_submit_work(fx.process, q3d[1], 10);
			fst_submit_work(fx.process, qcompute, 10);
			expected++;
			fsr_test_engine_request_f1(fx.runtime, fx.adapter_id, 0);
			fsr_test_engine_request_f1(fx.runtime, fx.adapter_id, 1);
			fst_run_until_idle();
		}
		for (int i = 0; i < 2; i++)
			cr_expect_eq(fst_last_completed(fx.process, q3d[i]), expected, "seed %lu",
				     (unsigned long) seed);
		cr_expect_eq(fst_last_completed(fx.process, qcompute), expected);
		cr_expect_gt(check.checks, 0);
		cr_expect_eq(check.f1_with_connected, 0, "seed %lu", (unsigned long) seed);
		cr_expect_eq(check.f1_running, 0, "seed %lu", (unsigned long) seed);
		cr_expect_gt(fst_tap_count(0, "fencescope_os:engine_power", -1, 0), 0,
			     "seed %lu: some engine went to F1", (unsigned long) seed);
		rt_interleave_set_observer(fx.runtime, NULL, NULL);
	}
}

/* ---- device D-states (DST-01 to DST-08) ----------------------------------------------------- */

TestSuite(dst, .init = setup_forced, .fini = teardown_power);

/* Every queue connected with one buffer run, then the device to D3. */
static void
connect_all_then_d3(void)
{
	fst_submit_work(fx.process, q3d[0], 10);
	fst_submit_work(fx.process, q3d[1], 10);
	fst_submit_work(fx.process, qcompute, 10);
	fst_run_until_idle();
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3), FSR_OK);
}

static bool
is_mapped_on_dummy(fsr_handle handle)
{
	struct os_hwqueue *queue = fst_borrow_queue(handle);

	return atomic_load(&queue->doorbell->mapping) ==
	       (uint64_t) (uintptr_t) &queue->doorbell->dummy_page;
}

/*
 * DST-01, DST-03: SuspendContext for every context on the GPU, then every doorbell disconnected
 * (reason DEVICE_D3), then the rings evicted, then D3 (device_power) last.
 */
Test(dst, dst_01_dst_03_suspend_all_then_disconnect_all_then_evict_then_d3)
{
	fsr_handle queues[3] = {q3d[0], q3d[1], qcompute};
	size_t mark = fst_tap_event_count();
	size_t last_suspend = 0, first_disconnect = SIZE_MAX, last_disconnect = 0, power;

	connect_all_then_d3();
	mark = find(mark, "fencescope_kmd:context_suspend", -1, 0);
	cr_assert_neq(mark, SIZE_MAX);
	cr_expect_eq(fst_tap_count(mark, "fencescope_kmd:context_suspend", -1, 0), 3,
		     "every context of the GPU (3D, compute, copy)");
	for (size_t i = mark; (i = find(i, "fencescope_kmd:context_suspend", -1, 0)) != SIZE_MAX;
	     i++)
		last_suspend = i;
	for (int q = 0; q < 3; q++) {
		size_t d = find(mark, "fencescope_kmd:doorbell_disconnect", 1, queues[q]);

		cr_assert_neq(d, SIZE_MAX, "queue %d disconnected", q);
		cr_expect_eq(fst_tap_event(d)->fields[5], FSTP_DISCONNECT_REASON_DEVICE_D3);
		first_disconnect = d < first_disconnect ? d : first_disconnect;
		last_disconnect = d > last_disconnect ? d : last_disconnect;
		/* DST-03: evicted, and off every run list, so the GPU cannot reach the ring. */
		cr_expect(!rt_queue_ring_is_resident(fst_borrow_queue(queues[q])));
		cr_expect(fst_borrow_queue(queues[q])->hw_is_suspended);
	}
	power = find(mark, "fencescope_os:device_power", -1, 0);
	cr_assert_neq(power, SIZE_MAX);
	cr_expect_eq(fst_tap_event(power)->fields[1], FSTP_DEVICE_POWER_D0);
	cr_expect_eq(fst_tap_event(power)->fields[2], FSTP_DEVICE_POWER_D3);
	cr_expect_lt(last_suspend, first_disconnect, "DST-01: every suspend before any disconnect");
	cr_expect_lt(last_disconnect, power, "DST-01: every disconnect before D3");
	/* DST-01, DST-03: the six ring allocations evicted after the disconnects, before D3. */
	cr_expect_eq(fst_tap_count(mark, "fencescope_os:allocation_residency", 2, 0), 6);
	for (size_t i = mark; (i = find(i, "fencescope_os:allocation_residency", 2, 0)) != SIZE_MAX;
	     i++) {
		cr_expect_gt(i, last_disconnect, "DST-03: evicted after the disconnects");
		cr_expect_lt(i, power, "evicted before D3");
	}
	/* Setting D3 again does nothing. */
	mark = fst_tap_event_count();
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3), FSR_OK);
	cr_expect_eq(fst_tap_event_count(), mark);
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D0), FSR_OK);
}

/* DST-02: after D3 every doorbell maps the dummy page and reads DISCONNECTED_RETRY. */
Test(dst, dst_02_after_d3_every_doorbell_is_on_its_dummy_page_and_reads_retry)
{
	fsr_handle queues[3] = {q3d[0], q3d[1], qcompute};

	connect_all_then_d3();
	for (int q = 0; q < 3; q++) {
		cr_expect_eq(status_of(queues[q]), FSR_DOORBELL_DISCONNECTED_RETRY, "queue %d", q);
		cr_expect(is_mapped_on_dummy(queues[q]), "queue %d", q);
	}
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D0), FSR_OK);
}

/*
 * DST-04, DST-05, DST-06: a submission in D3 reads RETRY and reconnects; that ConnectDoorbell
 * does not fail: D0, the rings resident, the caller connected, then every context resumed —
 * and when it returns, the caller maps a physical doorbell, reads CONNECTED and is resumed.
 */
Test(dst, dst_04_dst_05_dst_06_a_connect_in_d3_wakes_the_device_in_order)
{
	struct os_hwqueue *caller;
	size_t mark, wake, connect, resume;

	connect_all_then_d3();
	mark = fst_tap_event_count();
	fst_submit_work(fx.process, q3d[0], 10);
	wake = find(mark, "fencescope_os:device_power", -1, 0);
	connect = find(mark, "fencescope_kmd:doorbell_connect", 1, q3d[0]);
	resume = find(mark, "fencescope_kmd:context_resume", -1, 0);
	cr_assert_neq(wake, SIZE_MAX, "DST-04: the device woke");
	cr_assert_neq(connect, SIZE_MAX);
	cr_assert_neq(resume, SIZE_MAX);
	cr_expect_eq(fst_tap_event(wake)->fields[2], FSTP_DEVICE_POWER_D0);
	cr_expect_lt(wake, connect, "DST-05: D0 before the connect");
	cr_expect_lt(connect, resume, "DST-05: the caller connected before any resume");
	cr_expect_eq(fst_tap_count(mark, "fencescope_kmd:context_resume", -1, 0), 3);
	cr_expect_eq(fst_tap_event(connect)->fields[4], FSTP_DOORBELL_STATUS_CONNECTED);
	caller = fst_borrow_queue(q3d[0]);
	cr_expect_eq(status_of(q3d[0]), FSR_DOORBELL_CONNECTED, "DST-06");
	cr_expect(!is_mapped_on_dummy(q3d[0]), "DST-06: a physical doorbell");
	cr_expect(rt_queue_ring_is_resident(caller));
	cr_expect(!caller->context->kmd_is_suspended, "DST-06: its context is resumed");
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, q3d[0]), 2);
}

/*
 * DST-07: after the wake one queue caused, every context is resumed but the other queues stay
 * RETRY on their dummy pages until each connects itself; one wake only.
 */
Test(dst, dst_07_other_queues_stay_retry_until_they_connect)
{
	size_t mark;

	connect_all_then_d3();
	mark = fst_tap_event_count();
	fst_submit_work(fx.process, q3d[0], 10);
	fst_run_until_idle();
	cr_expect_eq(status_of(q3d[1]), FSR_DOORBELL_DISCONNECTED_RETRY);
	cr_expect_eq(status_of(qcompute), FSR_DOORBELL_DISCONNECTED_RETRY);
	cr_expect(is_mapped_on_dummy(q3d[1]));
	cr_expect(!fst_borrow_queue(q3d[1])->context->kmd_is_suspended, "resumed all the same");
	cr_expect(!fst_borrow_queue(qcompute)->context->kmd_is_suspended);
	fst_submit_work(fx.process, q3d[1], 10);
	fst_submit_work(fx.process, qcompute, 10);
	fst_run_until_idle();
	cr_expect_eq(fst_tap_count(mark, "fencescope_os:device_power", -1, 0), 1, "one wake");
	cr_expect_eq(fst_last_completed(fx.process, q3d[1]), 2);
	cr_expect_eq(fst_last_completed(fx.process, qcompute), 2);
}

/*
 * DST-08: buffers the UMD wrote in D3 (its ring met the dummy page before the wake) run after
 * the wake, none lost, in order; and a kernel-mode queue's buffer submitted in D3 waits for the
 * wake (its context is suspended), then runs.
 */
Test(dst, dst_08_res_05_work_written_in_d3_runs_after_the_wake)
{
	fsr_handle km = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t mark, ring, wake;

	connect_all_then_d3();
	mark = fst_tap_event_count();
	fst_submit_work(fx.process, km, 10);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, km), 0, "suspended in D3");
	for (int n = 0; n < 3; n++)
		fst_submit_work(fx.process, q3d[0], 10);
	ring = find(mark, "fencescope_umd:doorbell_ring", 1, q3d[0]);
	wake = find(mark, "fencescope_os:device_power", -1, 0);
	cr_assert_neq(ring, SIZE_MAX);
	cr_expect_lt(ring, wake, "written (and rung on the dummy page) in D3");
	cr_expect_eq(fst_tap_event(ring)->fields[4], FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, q3d[0]), 4);
	cr_expect_eq(fst_tap_count(mark, "fencescope_hw:packet_end", 2, q3d[0]), 3);
	cr_expect_eq(fst_last_completed(fx.process, km), 1);
}

/* fsr_adapter_set_power(D0) wakes with no caller: everything resumed, every doorbell RETRY. */
Test(dst, dst_05_a_d0_request_resumes_every_context_and_connects_none)
{
	size_t mark;

	connect_all_then_d3();
	mark = fst_tap_event_count();
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D0), FSR_OK);
	cr_expect_eq(fst_tap_count(mark, "fencescope_os:device_power", -1, 0), 1);
	cr_expect_eq(fst_tap_count(mark, "fencescope_kmd:context_resume", -1, 0), 3);
	cr_expect_eq(fst_tap_count(mark, "fencescope_kmd:doorbell_connect", -1, 0), 0);
	cr_expect_eq(status_of(q3d[0]), FSR_DOORBELL_DISCONNECTED_RETRY);
	cr_expect_eq(fsr_adapter_set_power(fx.runtime, 7, FSR_DEVICE_POWER_D3),
		     FSR_ERR_INVALID_ARGUMENT);
}

struct dstate_check {
	uint64_t checks;
	uint32_t evicted_reachable; /* an evicted ring on the run list or connected (DST-03) */
	uint32_t off_connected;     /* the device in D3 with a doorbell connected (DST-02) */
};

/* DST-02, DST-03 at every point: an evicted ring is suspended and disconnected in the GPU. */
static void
check_dstate(struct fsr_runtime *runtime, const char *actor, enum rt_point point, void *data)
{
	struct dstate_check *check = data;
	struct fsr_adapter *adapter = runtime->adapters[0];

	(void) actor;
	(void) point;
	check->checks++;
	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		struct hw_engine *engine = &adapter->gpu->engines[e];

		for (struct os_hwqueue *q = engine->run_list; q; q = q->next_on_engine) {
			if (!rt_queue_ring_is_resident(q) &&
			    (!q->hw_is_suspended || q->hw_is_doorbell_connected))
				check->evicted_reachable++;
			if (engine->is_device_off && q->hw_is_doorbell_connected)
				check->off_connected++;
		}
	}
}

/*
 * DST-04 to DST-08 under 40 interleaving seeds: rounds of D3, then submissions to the three
 * queues: one wake per round (the first connect; the others find D0), every buffer completes
 * once, and no evicted ring is ever reachable by the GPU.
 */
Test(dst, dst_04_dst_08_d3_and_one_wake_under_interleaving, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct dstate_check check = {0};
		uint64_t expected = 1;
		size_t mark;

		if (seed > 1) {
			teardown_power();
			setup_forced();
		}
		fst_submit_work(fx.process, q3d[0], 10);
		fst_submit_work(fx.process, q3d[1], 10);
		fst_submit_work(fx.process, qcompute, 10);
		fst_run_until_idle();
		mark = fst_tap_event_count();
		cr_assert_eq(rt_interleave_enable(fx.runtime, seed, NULL, 0), FSR_OK);
		rt_interleave_set_observer(fx.runtime, check_dstate, &check);
		for (int round = 0; round < 4; round++) {
			cr_assert_eq(
			    fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3),
			    FSR_OK);
			fst_submit_work(fx.process, q3d[0], 10);
			fst_submit_work(fx.process, qcompute, 10);
			fst_submit_work(fx.process, q3d[1], 10);
			expected++;
			fst_run_until_idle();
		}
		for (int i = 0; i < 2; i++)
			cr_expect_eq(fst_last_completed(fx.process, q3d[i]), expected, "seed %lu",
				     (unsigned long) seed);
		cr_expect_eq(fst_last_completed(fx.process, qcompute), expected);
		cr_expect_eq(
		    fst_tap_count(mark, "fencescope_os:device_power", 2, FSTP_DEVICE_POWER_D0), 4,
		    "seed %lu: one wake a round", (unsigned long) seed);
		cr_expect_gt(check.checks, 0);
		cr_expect_eq(check.evicted_reachable, 0, "seed %lu", (unsigned long) seed);
		cr_expect_eq(check.off_connected, 0, "seed %lu", (unsigned long) seed);
		rt_interleave_set_observer(fx.runtime, NULL, NULL);
	}
}

/*
 * SUS and DST together: a context the application suspended itself stays suspended through the
 * D3 power-down and the wake (no SuspendContext or ResumeContext of its own), and runs once
 * the application resumes it.
 */
Test(dst, dst_05_a_context_suspended_by_the_application_stays_suspended_after_the_wake)
{
	size_t mark;

	fst_submit_work(fx.process, q3d[0], 10);
	fst_submit_work(fx.process, qcompute, 10);
	fst_run_until_idle();
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_compute), FSR_OK);
	mark = fst_tap_event_count();
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3), FSR_OK);
	cr_expect_eq(fst_tap_count(mark, "fencescope_kmd:context_suspend", -1, 0), 2,
		     "3D and copy only: compute is suspended already");
	fst_submit_work(fx.process, q3d[0], 10);
	fst_submit_work(fx.process, qcompute, 10);
	fst_run_until_idle();
	cr_expect_eq(fst_tap_count(mark, "fencescope_kmd:context_resume", -1, 0), 2);
	cr_expect_eq(fst_last_completed(fx.process, q3d[0]), 2);
	cr_expect_eq(fst_last_completed(fx.process, qcompute), 1, "still suspended");
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_compute), FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, qcompute), 2);
}

/*
 * DST-05, TRM-01: a normal termination in D3 wakes the device first (one device_power to D0),
 * so that the work it held — a buffer in flight and one a suspended kernel-mode queue kept —
 * runs before the queues go, rather than being waited for in vain.
 */
Test(dst, dst_05_a_normal_termination_in_d3_wakes_the_device_and_its_work_runs)
{
	fsr_handle km = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t mark;

	fst_submit_work(fx.process, q3d[0], 1000000);
	cr_assert_eq(fsr_adapter_set_power(fx.runtime, fx.adapter_id, FSR_DEVICE_POWER_D3), FSR_OK);
	fst_submit_work(fx.process, km, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_tap_count(0, "fencescope_hw:packet_end", 2, q3d[0]), 0, "held in D3");
	mark = fst_tap_event_count();
	cr_assert_eq(fsr_process_terminate(fx.process, false), FSR_OK);
	fx.process = NULL;
	cr_expect_eq(fst_tap_count(mark, "fencescope_os:device_power", 2, FSTP_DEVICE_POWER_D0), 1);
	cr_expect_eq(fst_tap_count(mark, "fencescope_hw:packet_end", 2, q3d[0]), 1);
	cr_expect_eq(fst_tap_count(mark, "fencescope_hw:packet_end", 2, km), 1);
}
