/* SPDX-License-Identifier: MIT */
/*
 * Termination and device loss of user-mode queues (spec 000, TRM-01 to TRM-07, UMS-16;
 * docs/runtime.md "Termination (TRM) and device loss"). White-box where the rule is about the
 * OS's or the GPU's state at an instant: the event tap checks, as each termination step fires,
 * that the queue's ring and doorbell are still there (TRM-02); the sim-mode interleaving
 * observer checks at each OS read of LastQueuedValue that the queue's doorbell was disconnected
 * before (TRM-01).
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "hw/hw-private.h"
#include "runtime-fixture.h"

#define MAX_EVENTS 8192
#define QUEUES     3

struct term_event {
	const char *name;
	uint64_t fields[8];
};

static struct term_log {
	struct term_event events[MAX_EVENTS];
	size_t count;
	struct os_hwqueue *queues[QUEUES]; /* borrowed before the termination */
	fsr_handle handles[QUEUES];
	uint32_t ring_gone_while_waiting; /* TRM-02 */
	bool is_abnormal;
	uint32_t ring_freed_unsuspended; /* TRM-05 */
	/* the interleaving observer's view (TRM-01) */
	uint32_t disconnect_steps;
	uint32_t wait_begin_steps;
	uint32_t last_queued_reads;
	uint32_t read_before_disconnect;
	bool is_terminating;
} tl;

static int
queue_slot(uint64_t handle)
{
	for (int i = 0; i < QUEUES; i++)
		if (tl.handles[i] == handle && handle)
			return i;
	return -1;
}

/* Lock held: records, and checks what TRM-02 says of the wait. */
static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	(void) user_data;
	if (tl.count < MAX_EVENTS) {
		struct term_event *e = &tl.events[tl.count++];

		e->name = name;
		memcpy(e->fields, fields, (field_count < 8 ? field_count : 8) * sizeof(*fields));
	}
	/* TRM-05: the ring goes right after DestroyDoorbell: by then the GPU runs nothing of it. */
	if (tl.is_abnormal && strcmp(name, "fencescope_kmd:doorbell_destroy") == 0) {
		int q = queue_slot(fields[1]);

		if (q >= 0 && !tl.queues[q]->hw_is_suspended)
			tl.ring_freed_unsuspended++;
	}
	if (strcmp(name, "fencescope_os:termination_step") == 0) {
		int q = queue_slot(fields[1]);

		if (fields[2] == FSTP_TERMINATION_STEP_DISCONNECT)
			tl.disconnect_steps++;
		if (fields[2] == FSTP_TERMINATION_STEP_WAIT_BEGIN)
			tl.wait_begin_steps++;
		/* TRM-02: during the wait the ring and the doorbell are there. */
		if (q >= 0 &&
		    (fields[2] == FSTP_TERMINATION_STEP_WAIT_BEGIN ||
		     fields[2] == FSTP_TERMINATION_STEP_WAIT_END) &&
		    (!tl.queues[q]->ring || !tl.queues[q]->doorbell ||
		     !rt_queue_ring_is_resident(tl.queues[q])))
			tl.ring_gone_while_waiting++;
	}
}

/* TRM-01: when the OS reads a queue's LastQueuedValue, that queue was disconnected already. */
static void
observe(struct fsr_runtime *runtime, const char *actor, enum rt_point point, void *data)
{
	(void) runtime;
	(void) actor;
	(void) data;
	if (!tl.is_terminating || point != RT_POINT_OS_READ_LAST_QUEUED)
		return;
	tl.last_queued_reads++;
	if (tl.disconnect_steps != tl.wait_begin_steps + 1)
		tl.read_before_disconnect++;
}

static void
setup_dedicated(uint32_t physical, uint64_t interleave_seed)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	memset(&tl, 0, sizeof(tl));
	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.doorbell_model = FSR_DOORBELL_DEDICATED;
	adapter_config.physical_doorbells = physical;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	fsr_runtime_set_event_tap(fx.runtime, tap, NULL);
	if (interleave_seed) {
		cr_assert_eq(rt_interleave_enable(fx.runtime, interleave_seed, NULL, 0), FSR_OK);
		rt_interleave_set_observer(fx.runtime, observe, NULL);
	}
}

static void
teardown(void)
{
	if (fx.runtime) {
		rt_interleave_set_observer(fx.runtime, NULL, NULL);
		fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	}
	fst_rt_teardown();
}

TestSuite(termination, .fini = teardown);

/* `count` user-mode queues of the fixture's process, each with a doorbell. */
static void
make_user_queues(uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		tl.handles[i] = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
		cr_assert_eq(fsr_doorbell_create(fx.process, tl.handles[i], 0, 0), FSR_OK);
		tl.queues[i] = fst_borrow_queue(tl.handles[i]);
	}
}

/* The index of the first event at or after `from` named `name` with fields[field] == value. */
static size_t
find(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < tl.count; i++)
		if (strcmp(tl.events[i].name, name) == 0 &&
		    (field < 0 || tl.events[i].fields[field] == value))
			return i;
	return SIZE_MAX;
}

static size_t
find_step(size_t from, fsr_handle queue, enum fstp_termination_step step)
{
	for (size_t i = from; i < tl.count; i++)
		if (strcmp(tl.events[i].name, "fencescope_os:termination_step") == 0 &&
		    tl.events[i].fields[1] == queue && tl.events[i].fields[2] == step)
			return i;
	return SIZE_MAX;
}

static size_t
count_between(size_t from, size_t to, const char *name, int field, uint64_t value)
{
	size_t n = 0;

	for (size_t i = from; i < to && i < tl.count; i++)
		if (strcmp(tl.events[i].name, name) == 0 &&
		    (field < 0 || tl.events[i].fields[field] == value))
			n++;
	return n;
}

/*
 * TRM-06: nothing of the process is left on the GPU — no queue, no doorbell owner — and every
 * allocation made (the queues' ring buffer and ring control allocations) was destroyed.
 */
static void
assert_nothing_left(void)
{
	struct fsr_adapter *adapter = fx.runtime->adapters[0];

	cr_assert_gt(count_between(0, tl.count, "fencescope_os:allocation_create", -1, 0), 0);
	cr_assert_eq(count_between(0, tl.count, "fencescope_os:allocation_destroy", -1, 0),
		     count_between(0, tl.count, "fencescope_os:allocation_create", -1, 0),
		     "TRM-06: a ring allocation of the terminated device remains");

	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		cr_assert_null(adapter->user_queues[e], "engine %u still has a user-mode queue", e);
		cr_assert_null(adapter->gpu->engines[e].run_list, "engine %u's run list", e);
	}
	for (uint32_t k = 0; k < adapter->config.physical_doorbells; k++)
		cr_assert_null(adapter->gpu->doorbells[k].owner, "physical doorbell %u", k);
	cr_assert_null(fx.runtime->km_queues);
}

/*
 * TRM-01, TRM-02, TRM-06, per queue: DisconnectDoorbell (reason TERMINATION), then
 * LastQueuedValue read and waited for — every buffer ends before the wait does, the ring and
 * doorbell still there — then DestroyDoorbell, then the queue; nothing is left afterwards.
 */
Test(termination, trm_01_trm_02_trm_06_normal_termination_steps_in_order_and_nothing_left)
{
	const uint64_t buffers = 3;

	setup_dedicated(2, 0);
	make_user_queues(3); /* 3 queues, 2 physical doorbells: one is disconnected already */
	for (uint64_t n = 0; n < buffers; n++)
		for (int q = 0; q < 3; q++)
			fst_submit_work(fx.process, tl.handles[q], 5000);
	cr_assert_eq(fsr_process_terminate(fx.process, false), FSR_OK);
	fx.process = NULL;

	for (int q = 0; q < 3; q++) {
		fsr_handle h = tl.handles[q];
		size_t disconnect = find_step(0, h, FSTP_TERMINATION_STEP_DISCONNECT);
		size_t wait_begin = find_step(0, h, FSTP_TERMINATION_STEP_WAIT_BEGIN);
		size_t wait_end = find_step(0, h, FSTP_TERMINATION_STEP_WAIT_END);
		size_t destroy = find_step(0, h, FSTP_TERMINATION_STEP_DESTROY);
		size_t ddi_destroy = find(0, "fencescope_kmd:doorbell_destroy", 1, h);
		size_t queue_destroy = find(0, "fencescope_os:hwqueue_destroy", 1, h);
		size_t kmd_disconnect = find(0, "fencescope_kmd:doorbell_disconnect", 1, h);

		cr_assert(disconnect < wait_begin && wait_begin < wait_end &&
			      wait_end < ddi_destroy && ddi_destroy < queue_destroy &&
			      queue_destroy < destroy && destroy != SIZE_MAX,
			  "queue %d: steps out of order (%zu %zu %zu %zu %zu %zu)", q, disconnect,
			  wait_begin, wait_end, ddi_destroy, queue_destroy, destroy);
		/* The queue connected last holds a physical doorbell: its disconnect is
		 * TERMINATION's. */
		if (kmd_disconnect != SIZE_MAX &&
		    kmd_disconnect > find(0, "fencescope_os:process_terminate", -1, 0))
			cr_assert_eq(tl.events[kmd_disconnect].fields[5],
				     FSTP_DISCONNECT_REASON_TERMINATION);
		cr_assert_eq(tl.events[wait_begin].fields[3], buffers, "LastQueuedValue read");
		cr_assert_eq(tl.events[wait_end].fields[3], buffers);
		cr_assert_eq(tl.events[destroy].fields[3], buffers);
		/* Every buffer ran before the wait ended, none after. */
		cr_assert_eq(count_between(0, wait_end, "fencescope_hw:packet_end", 2, h), buffers,
			     "queue %d", q);
		cr_assert_eq(count_between(wait_end, tl.count, "fencescope_hw:packet_end", 2, h),
			     0);
	}
	cr_assert_eq(count_between(0, tl.count, "fencescope_os:process_terminate", -1, 0), 1);
	cr_assert_eq(tl.ring_gone_while_waiting, 0, "TRM-02: a ring went during its wait");
	assert_nothing_left();
}

/*
 * TRM-01 under interleaving: each OS read of LastQueuedValue comes after that queue's
 * DisconnectDoorbell and before its wait begins, with the engines' steps interleaved anywhere.
 */
Test(termination, trm_01_last_queued_value_is_read_after_the_disconnect_seed_sweep, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 12; seed++) {
		setup_dedicated(2, seed);
		make_user_queues(3);
		for (int n = 0; n < 2; n++)
			for (int q = 0; q < 3; q++)
				fst_submit_work(fx.process, tl.handles[q], 100);
		tl.is_terminating = true;
		cr_assert_eq(fsr_process_terminate(fx.process, false), FSR_OK);
		fx.process = NULL;
		cr_assert_eq(tl.last_queued_reads, 3, "seed %lu", (unsigned long) seed);
		cr_assert_eq(tl.read_before_disconnect, 0,
			     "seed %lu: LastQueuedValue read before the disconnect",
			     (unsigned long) seed);
		for (int q = 0; q < 3; q++)
			cr_assert_eq(count_between(0, tl.count, "fencescope_hw:packet_end", 2,
						   tl.handles[q]),
				     2, "seed %lu queue %d", (unsigned long) seed, q);
		assert_nothing_left();
		teardown();
	}
}

/*
 * TRM-01 with a ring that landed on the physical doorbell and that the command processor had
 * not serviced when the process ended: the disconnect takes the write pointer, so it runs.
 */
Test(termination, trm_01_a_ring_not_yet_serviced_at_termination_still_runs)
{
	enum fsr_doorbell_status status;

	setup_dedicated(2, 0);
	make_user_queues(1);
	cr_assert_eq(fsr_doorbell_connect(fx.process, tl.handles[0], &status), FSR_OK);
	fst_submit_work(fx.process, tl.handles[0], 10); /* no engine has stepped since */
	cr_assert_eq(tl.queues[0]->fetched_ptr, 0);
	cr_assert_eq(fsr_process_terminate(fx.process, false), FSR_OK);
	fx.process = NULL;
	cr_assert_eq(count_between(0, tl.count, "fencescope_hw:packet_end", 2, tl.handles[0]), 1);
	cr_assert_eq(
	    tl.events[find_step(0, tl.handles[0], FSTP_TERMINATION_STEP_WAIT_END)].fields[3], 1);
}

/* ---- device loss and the UMD's fall-back (UMS-16) ---------------------------------------- */

/*
 * UMS-16: device loss writes ABORT to every doorbell of the device (connected or not), maps
 * their dummy pages and lets the physical doorbells go; ConnectDoorbell answers ABORT, a
 * submission returns FSR_ERR_DEVICE_LOST, the device takes no new user-mode queue. Another
 * process's queue is untouched and takes the freed physical doorbell without a steal.
 */
Test(termination, ums_16_device_loss_aborts_every_doorbell_and_connect_answers_abort)
{
	struct fsr_process *other;
	fsr_handle other_device, other_context, other_queue, refused;
	struct fsr_hwqueue_config user = {.mode = FSR_SUBMIT_USER_MODE};
	enum fsr_doorbell_status status = FSR_DOORBELL_CONNECTED;
	struct fsr_cmdbuf *cmdbuf;
	size_t mark;

	setup_dedicated(1, 0);
	make_user_queues(2);
	fst_submit_work(fx.process, tl.handles[0], 10); /* connected: the only doorbell */
	fst_run_until_idle();
	mark = tl.count;
	cr_assert_eq(fsr_device_mark_lost(fx.process, fx.device, FSR_DEVICE_LOSS_PAGE_FAULT),
		     FSR_OK);
	cr_assert_neq(find(mark, "fencescope_os:device_lost", 1, fx.device), SIZE_MAX);
	cr_assert_eq(tl.events[find(mark, "fencescope_os:device_lost", 1, fx.device)].fields[2],
		     FSTP_LOSS_REASON_PAGE_FAULT);
	for (int q = 0; q < 2; q++) {
		cr_assert_eq(fsr_doorbell_get_status(fx.process, tl.handles[q], &status), FSR_OK);
		cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_ABORT, "queue %d", q);
		cr_assert_eq(atomic_load(&tl.queues[q]->doorbell->mapping),
			     (uint64_t) (uintptr_t) &tl.queues[q]->doorbell->dummy_page);
	}
	cr_assert_eq(
	    tl.events[find(mark, "fencescope_kmd:doorbell_disconnect", 1, tl.handles[0])].fields[5],
	    FSTP_DISCONNECT_REASON_DEVICE_LOST);
	cr_assert_eq(fsr_doorbell_connect(fx.process, tl.handles[1], &status), FSR_ERR_DEVICE_LOST);
	cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_ABORT);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, tl.handles[0], &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 10), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_ERR_DEVICE_LOST);
	cr_assert_eq(fsr_hwqueue_create(fx.process, fx.context_3d, &user, &refused),
		     FSR_ERR_DEVICE_LOST);
	/* Another process: its queue connects on the doorbell the lost one let go. */
	fst_rt_add_process("other", &other, &other_device, &other_context);
	other_queue = fst_queue_new_without_doorbell(other, other_context);
	cr_assert_eq(fsr_doorbell_create(other, other_queue, 0, 0), FSR_OK);
	mark = tl.count;
	fst_submit_work(other, other_queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(other, other_queue), 1);
	cr_assert_eq(count_between(mark, tl.count, "fencescope_kmd:doorbell_victimize", -1, 0), 0);
	cr_assert_eq(fsr_process_terminate(other, false), FSR_OK);
}

/*
 * UMS-16's fall-back: buffers 1..8 each signal fence F to their number; the GPU has run part
 * of them when the device is lost, two more are submitted after (FSR_ERR_DEVICE_LOST). The
 * fall-back destroys the queue and resubmits to a kernel-mode queue what the GPU had not run:
 * F takes every value 1..10 exactly once, in order, and ends at 10.
 */
Test(termination, ums_16_fall_back_to_kernel_mode_loses_no_buffer_and_runs_none_twice)
{
	const uint64_t before = 8, after = 2;
	uint64_t writes[16] = {0};
	uint64_t last = 0, base = UINT64_MAX;
	bool is_in_order = true;
	fsr_handle fence, kernel_queue = 0;
	uint64_t completed_at_loss;
	fsr_handle global = 0;

	setup_dedicated(2, 0);
	make_user_queues(1);
	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, 0, &fence, &global), FSR_OK);
	for (uint64_t n = 1; n <= before; n++) {
		struct fsr_cmdbuf *cmdbuf;

		cr_assert_eq(fsr_cmdbuf_create(fx.process, tl.handles[0], &cmdbuf), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 20000), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, n), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	}
	/* Part of it runs: the GPU stops somewhere in the middle. */
	for (int i = 0; i < 12; i++) {
		bool has_run;

		fsr_runtime_step(fx.runtime, &has_run);
	}
	completed_at_loss = fst_last_completed(fx.process, tl.handles[0]);
	cr_assert_lt(completed_at_loss, before, "the test wants work left at the loss");
	cr_assert_eq(fsr_device_mark_lost(fx.process, fx.device, FSR_DEVICE_LOSS_TIMEOUT), FSR_OK);
	for (uint64_t n = before + 1; n <= before + after; n++) {
		struct fsr_cmdbuf *cmdbuf;

		cr_assert_eq(fsr_cmdbuf_create(fx.process, tl.handles[0], &cmdbuf), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 20000), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, n), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_ERR_DEVICE_LOST);
	}
	/* Not on a live queue. */
	cr_assert_eq(
	    fsr_hwqueue_fall_back_to_kernel_mode(fx.process, fx.context_3d, &kernel_queue, &base),
	    FSR_ERR_INVALID_HANDLE);
	cr_assert_eq(
	    fsr_hwqueue_fall_back_to_kernel_mode(fx.process, tl.handles[0], &kernel_queue, &base),
	    FSR_OK);
	tl.handles[0] = 0;
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), before + after);
	/* Every value written once, in order: GPU signals of the ring, then the OS's. */
	for (size_t i = 0; i < tl.count; i++) {
		const struct term_event *e = &tl.events[i];
		uint64_t value;

		if (strcmp(e->name, "fencescope_hw:fence_value_write") == 0 &&
		    e->fields[3] == global)
			value = e->fields[4];
		else if (strcmp(e->name, "fencescope_os:km_fence_signal_executed") == 0 &&
			 e->fields[1] == kernel_queue)
			value = e->fields[3];
		else
			continue;
		cr_assert_lt(value, 16);
		writes[value]++;
		if (value != last + 1)
			is_in_order = false;
		last = value;
	}
	for (uint64_t n = 1; n <= before + after; n++)
		cr_assert_eq(writes[n], 1, "value %lu written %lu times", (unsigned long) n,
			     (unsigned long) writes[n]);
	cr_assert(is_in_order);
	/* The new queue's progress values are the old ones minus the base. */
	cr_assert_geq(base, completed_at_loss);
	cr_assert_eq(fst_last_completed(fx.process, kernel_queue), before + after - base);
}

/* ---- abnormal termination (TRM-03 to TRM-05, TRM-07) ------------------------------------ */

/*
 * TRM-03, TRM-04, TRM-05, TRM-06: the device marked in error (device_lost, reason TERMINATION),
 * then per context SuspendContext before any disconnect of its queues; each doorbell
 * disconnected with ABORT (reason TERMINATION); no wait — work still queued is abandoned; the
 * GPU's queue suspended when its ring goes; nothing left afterwards.
 */
Test(termination, trm_03_trm_04_trm_05_abnormal_termination_suspends_first_and_does_not_wait)
{
	size_t start;
	size_t lost;
	uint32_t ran = 0;

	setup_dedicated(2, 0);
	for (int q = 0; q < QUEUES; q++) {
		fsr_handle context = q < 2 ? fx.context_3d : fx.context_compute;

		tl.handles[q] = fst_queue_new_without_doorbell(fx.process, context);
		cr_assert_eq(fsr_doorbell_create(fx.process, tl.handles[q], 0, 0), FSR_OK);
		tl.queues[q] = fst_borrow_queue(tl.handles[q]);
	}
	for (int n = 0; n < 3; n++)
		for (int q = 0; q < QUEUES; q++)
			fst_submit_work(fx.process, tl.handles[q], 50000);
	for (int i = 0; i < 6; i++) {
		bool has_run;

		fsr_runtime_step(fx.runtime, &has_run);
	}
	start = tl.count;
	tl.is_abnormal = true;
	{
		fsr_handle context_of[QUEUES] = {fx.context_3d, fx.context_3d, fx.context_compute};

		cr_assert_eq(fsr_process_terminate(fx.process, true), FSR_OK);
		fx.process = NULL;
		lost = find(start, "fencescope_os:device_lost", -1, 0);
		cr_assert_neq(lost, SIZE_MAX, "TRM-03: the device is marked in error");
		cr_assert_eq(tl.events[lost].fields[2], FSTP_LOSS_REASON_TERMINATION);
		for (int q = 0; q < QUEUES; q++) {
			fsr_handle h = tl.handles[q];
			size_t suspend =
			    find(start, "fencescope_kmd:context_suspend", 1, context_of[q]);
			size_t disconnect = find_step(start, h, FSTP_TERMINATION_STEP_DISCONNECT);
			size_t destroy = find_step(start, h, FSTP_TERMINATION_STEP_DESTROY);
			size_t kmd_disconnect =
			    find(start, "fencescope_kmd:doorbell_disconnect", 1, h);

			cr_assert(lost < suspend && suspend < disconnect && disconnect < destroy &&
				      destroy != SIZE_MAX,
				  "queue %d: out of order (%zu %zu %zu %zu)", q, lost, suspend,
				  disconnect, destroy);
			if (kmd_disconnect != SIZE_MAX) {
				cr_assert_gt(kmd_disconnect, suspend);
				cr_assert_eq(tl.events[kmd_disconnect].fields[4],
					     FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT);
				cr_assert_eq(tl.events[kmd_disconnect].fields[5],
					     FSTP_DISCONNECT_REASON_TERMINATION);
			}
			cr_assert_eq(find_step(start, h, FSTP_TERMINATION_STEP_WAIT_BEGIN),
				     SIZE_MAX, "TRM-04: no wait");
			ran +=
			    (uint32_t) count_between(0, tl.count, "fencescope_hw:packet_end", 2, h);
		}
		cr_assert_eq(
		    tl.events[find(start, "fencescope_kmd:context_suspend", 1, fx.context_3d)]
			.fields[2],
		    2);
	}
	cr_assert_lt(ran, 3 * QUEUES, "TRM-04: queued work is abandoned, not run");
	cr_assert_eq(tl.ring_freed_unsuspended, 0, "TRM-05: a ring freed under a running queue");
	assert_nothing_left();
}

/*
 * TRM-07: process A crashes (abnormal termination) while it shares a fence with process B and
 * has work blocked on it; B's queue, doorbell and the shared fence keep working: B's GPU waits
 * on the fence are released by B's CPU signals, and B's doorbell stays CONNECTED.
 */
Test(termination, trm_07_another_process_sharing_a_fence_keeps_working_after_a_crash)
{
	struct fsr_process *a;
	fsr_handle a_device, a_context, a_queue, a_fence, global;
	fsr_handle b_fence, b_queue;
	enum fsr_doorbell_status status = FSR_DOORBELL_DISCONNECTED_RETRY;

	setup_dedicated(2, 0);
	fst_rt_add_process("a", &a, &a_device, &a_context);
	cr_assert_eq(fsr_fence_create(a, a_device, 0, FSR_FENCE_SHARED, &a_fence, &global), FSR_OK);
	cr_assert_eq(fsr_fence_open(fx.process, fx.device, global, &b_fence), FSR_OK);
	a_queue = fst_queue_new_without_doorbell(a, a_context);
	cr_assert_eq(fsr_doorbell_create(a, a_queue, 0, 0), FSR_OK);
	b_queue = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
	cr_assert_eq(fsr_doorbell_create(fx.process, b_queue, 0, 0), FSR_OK);
	/* A: signals 1, then blocks on 10 before it would signal 11. */
	fst_submit_signal(a, a_queue, a_fence, 1);
	fst_submit_wait(a, a_queue, a_fence, 10);
	fst_submit_signal(a, a_queue, a_fence, 11);
	/* B: waits for A's 1. */
	fst_submit_wait(fx.process, b_queue, b_fence, 1);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, b_queue), 1);
	cr_assert_eq(fst_last_completed(a, a_queue), 1);

	cr_assert_eq(fsr_process_terminate(a, true), FSR_OK);
	/* B goes on: the fence lives on B's handle, B's queue and doorbell work. */
	cr_assert_eq(fst_fence_value(fx.process, b_fence), 1);
	fst_submit_wait(fx.process, b_queue, b_fence, 2);
	fst_submit_work(fx.process, b_queue, 10);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, b_fence, 2), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, b_queue), 3);
	cr_assert_eq(fst_fence_value(fx.process, b_fence), 2,
		     "A's abandoned signal of 11 never ran");
	cr_assert_eq(fsr_doorbell_get_status(fx.process, b_queue, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	cr_assert_eq(fsr_doorbell_connect(fx.process, b_queue, &status), FSR_OK);
}
