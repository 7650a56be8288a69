/* SPDX-License-Identifier: MIT */
/*
 * Timeout detection and recovery (spec 000, 002, 004; TDR-01 to TDR-06; docs/runtime.md "TDR
 * and recovery as built"). The faults come from the test-only API (a hung engine, an engine
 * that reports Hung, an engine reset that fails); a tap of this file's own records each event
 * with the virtual time it fired at, so that a test reads the TDR's stages in order and when
 * they came.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "runtime-fixture.h"

#define MAX_EVENTS 4096
#define DELAY_NS   FSR_DEFAULT_TDR_DELAY_NS
/* 100 MHz: ticks of GPU work per ns is 1/10 */
#define NS_TO_TICKS(ns) ((ns) / 10u)

struct tdr_event {
	const char *name;
	uint64_t fields[FSR_EVENT_TAP_MAX_FIELDS];
	uint64_t now_ns;
};

static struct {
	struct tdr_event events[MAX_EVENTS];
	size_t count;
} tdr_log;

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct tdr_event *event;

	(void) user_data;
	if (tdr_log.count == MAX_EVENTS)
		return;
	event = &tdr_log.events[tdr_log.count++];
	event->name = name;
	memset(event->fields, 0, sizeof(event->fields));
	memcpy(event->fields, fields, field_count * sizeof(*fields));
	event->now_ns = fx.runtime->clock.now_ns; /* sim: the instant it fired */
}

/* The index of the first event `name` from `from` on (field `field` == value when >= 0). */
static size_t
find(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < tdr_log.count; i++)
		if (strcmp(tdr_log.events[i].name, name) == 0 &&
		    (field < 0 || tdr_log.events[i].fields[field] == value))
			return i;
	return SIZE_MAX;
}

static size_t
count(const char *name, int field, uint64_t value)
{
	size_t n = 0;

	for (size_t i = 0; i < tdr_log.count; i++)
		if (strcmp(tdr_log.events[i].name, name) == 0 &&
		    (field < 0 || tdr_log.events[i].fields[field] == value))
			n++;
	return n;
}

static void
setup_with(const struct fsr_adapter_config *adapter_config, const struct dxgk_ddi *ddi)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;

	memset(&tdr_log, 0, sizeof(tdr_log));
	fst_rt_config_init(&runtime_config, &config);
	if (adapter_config)
		config = *adapter_config;
	fst_rt_setup_with_ddi(&runtime_config, &config, ddi);
	fsr_runtime_set_event_tap(fx.runtime, tap, NULL);
}

static void
setup_tdr(void)
{
	setup_with(NULL, NULL);
}

static void
teardown_tdr(void)
{
	if (fx.runtime)
		fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	fst_rt_teardown();
}

TestSuite(tdr, .init = setup_tdr, .fini = teardown_tdr);

static uint64_t
now_ns(void)
{
	return fsr_runtime_now_ns(fx.runtime);
}

/* One command buffer: work, then a signal of `fence` to `value`. */
static uint64_t
submit_work_then_signal(struct fsr_process *process, fsr_handle queue, uint64_t ticks,
			fsr_handle fence, uint64_t value)
{
	struct fsr_cmdbuf *cmdbuf;
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, ticks), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, value), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	return progress;
}

/* ---- TDR-02: not before the delay, and after it ------------------------------------------ */

Test(tdr, tdr_02_no_tdr_before_the_delay)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	uint64_t progress;

	/* One DMA packet of the delay less 100 us: the engine progresses just in time. */
	progress = fst_submit_work(fx.process, queue, NS_TO_TICKS(DELAY_NS - 100000));
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	cr_assert_eq(count("fencescope_os:tdr_detect", -1, 0), 0);
	cr_assert_eq(count("fencescope_os:preempt_request", -1, 0), 0);
	cr_assert_eq(count("fencescope_os:tdr_begin", -1, 0), 0);
}

Test(tdr, tdr_02_tdr_detects_a_packet_longer_than_the_delay)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	uint64_t submitted = now_ns();
	size_t detect;

	/* The delay and 100 us more: no progress for the delay, detected exactly then. */
	(void) fst_submit_work(fx.process, queue, NS_TO_TICKS(DELAY_NS + 100000));
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, submitted + DELAY_NS + 50000), FSR_OK);
	detect = find(0, "fencescope_os:tdr_detect", -1, 0);
	cr_assert_neq(detect, SIZE_MAX, "no tdr_detect after the delay");
	cr_assert_eq(tdr_log.events[detect].now_ns, submitted + DELAY_NS);
	cr_assert_eq(tdr_log.events[detect].fields[1], 0);             /* the 3D engine */
	cr_assert_eq(tdr_log.events[detect].fields[2], fx.context_3d); /* its work item's */
	cr_assert_eq(tdr_log.events[detect].fields[3], FSTP_LOSS_REASON_TIMEOUT);
	cr_assert_eq(tdr_log.events[detect].fields[4], DELAY_NS);
	cr_assert_eq(count("fencescope_os:tdr_detect", -1, 0), 1);
}

Test(tdr, tdr_02_hung_ring_detected_at_the_tdr_cadence)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	uint64_t start = now_ns();
	size_t detect;

	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, queue), FSR_OK);
	(void) fst_submit_work(fx.process, queue, 1000);
	/* The hung engine spins: the runtime is not idle until the TDR recovered it. */
	fst_run_until_idle();
	detect = find(0, "fencescope_os:tdr_detect", -1, 0);
	cr_assert_neq(detect, SIZE_MAX);
	/* FST-01: ring progress is sampled, so the detection comes at the delay or a sample later.
	 */
	cr_assert_geq(tdr_log.events[detect].now_ns, start + DELAY_NS);
	cr_assert_leq(tdr_log.events[detect].now_ns, start + DELAY_NS + DELAY_NS / 4);
	cr_assert_geq(tdr_log.events[detect].fields[4], DELAY_NS);
}

/* ---- TDR-01: the preemption request first -------------------------------------------------- */

Test(tdr, tdr_01_preemption_request_before_recovery)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	size_t detect, request, begin, reset, error, lost, end;

	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, queue), FSR_OK);
	(void) fst_submit_work(fx.process, queue, 1000);
	fst_run_until_idle();
	detect = find(0, "fencescope_os:tdr_detect", -1, 0);
	request = find(0, "fencescope_os:preempt_request", 4, FSTP_PREEMPT_REASON_TDR);
	begin = find(0, "fencescope_os:tdr_begin", -1, 0);
	reset = find(0, "fencescope_kmd:engine_reset", -1, 0);
	error = find(0, "fencescope_os:context_error", -1, 0);
	lost = find(0, "fencescope_os:device_lost", -1, 0);
	end = find(0, "fencescope_os:tdr_end", -1, 0);
	cr_assert(detect < request && request < begin && begin < reset && reset < error &&
		      error < lost && lost < end && end != SIZE_MAX,
		  "order detect %zu request %zu begin %zu reset %zu error %zu lost %zu end %zu",
		  detect, request, begin, reset, error, lost, end);
	/* The request did not complete within its timeout: then, and only then, recovery. */
	cr_assert_eq(tdr_log.events[begin].now_ns - tdr_log.events[request].now_ns,
		     FSR_DEFAULT_TDR_PREEMPT_TIMEOUT_NS);
	cr_assert_eq(tdr_log.events[request].fields[2], fx.context_3d);
	cr_assert_eq(tdr_log.events[begin].fields[2], FSTP_LOSS_REASON_TIMEOUT);
	cr_assert_eq(tdr_log.events[begin].fields[3], fx.context_3d); /* the guilty context */
	cr_assert_eq(tdr_log.events[reset].fields[2], 1);             /* is_success */
	cr_assert_eq(tdr_log.events[error].fields[3], fx.context_3d);
	cr_assert_eq(tdr_log.events[end].fields[2], FSTP_TDR_RESULT_ENGINE_RESET);
	cr_assert_eq(count("fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_ABORTED), 1);
}

Test(tdr, tdr_01_a_completed_preemption_means_no_recovery)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t progress;

	/* A ring blocked on a GPU wait: work outstanding, no progress, but nothing runs. */
	progress = fst_submit_wait(fx.process, queue, fence, 1);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, now_ns() + DELAY_NS + DELAY_NS / 2), FSR_OK);
	cr_assert_eq(count("fencescope_os:tdr_detect", 2, 0), 1); /* no work item in flight */
	cr_assert_eq(count("fencescope_os:preempt_request", 4, FSTP_PREEMPT_REASON_TDR), 1);
	cr_assert_eq(count("fencescope_os:tdr_begin", -1, 0), 0);
	cr_assert_eq(count("fencescope_os:context_error", -1, 0), 0);
	/* The queue is not in error: the signal releases it. */
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 1), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
}

Test(tdr, tdr_01_a_long_packet_is_preempted_by_the_tdr_not_reset)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	uint64_t progress;
	size_t request, complete;

	/* Longer than the delay, but preemptible (PRE-01): the request completes, no recovery. */
	progress = fst_submit_work(fx.process, queue, NS_TO_TICKS(DELAY_NS * 3 / 2));
	fst_run_until_idle();
	request = find(0, "fencescope_os:preempt_request", 4, FSTP_PREEMPT_REASON_TDR);
	cr_assert_neq(request, SIZE_MAX);
	complete =
	    find(request, "fencescope_hw:preempt_complete", 3, tdr_log.events[request].fields[3]);
	cr_assert_neq(complete, SIZE_MAX, "the TDR's request did not complete");
	cr_assert_eq(count("fencescope_os:tdr_begin", -1, 0), 0);
	cr_assert_eq(count("fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_ABORTED), 0);
	/* Its remainder was resubmitted and ran: the buffer completed. */
	cr_assert_eq(fst_last_completed(fx.process, queue), progress);
}

/* A packet that ignores preemption answers at its end: in time, or too late (recovery). */
static void
ignoring_packet(uint64_t beyond_delay_ns, bool is_recovered)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	uint64_t progress;
	size_t request, complete;

	cr_assert_eq(fsr_test_packet_ignores_preemption(fx.runtime, fx.adapter_id, 0, queue),
		     FSR_OK);
	progress = fst_submit_work(fx.process, queue, NS_TO_TICKS(DELAY_NS + beyond_delay_ns));
	fst_run_until_idle();
	request = find(0, "fencescope_os:preempt_request", 4, FSTP_PREEMPT_REASON_TDR);
	cr_assert_neq(request, SIZE_MAX);
	complete =
	    find(request, "fencescope_hw:preempt_complete", 3, tdr_log.events[request].fields[3]);
	cr_assert_neq(complete, SIZE_MAX);
	if (!is_recovered) {
		/* At its end: a DMA buffer boundary, coarser than the engine declared (SHADER). */
		cr_assert_eq(tdr_log.events[complete].fields[5],
			     FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY);
		cr_assert_eq(tdr_log.events[complete].now_ns - tdr_log.events[request].now_ns,
			     beyond_delay_ns);
		cr_assert_eq(count("fencescope_os:tdr_begin", -1, 0), 0);
		cr_assert_eq(fst_last_completed(fx.process, queue), progress);
	} else {
		/* Not within the preemption timeout: recovery first, the answer after the reset. */
		size_t begin = find(0, "fencescope_os:tdr_begin", -1, 0);

		cr_assert_neq(begin, SIZE_MAX);
		cr_assert_lt(begin, complete);
		cr_assert_eq(count("fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_ABORTED), 1);
		cr_assert_eq(count("fencescope_os:context_error", 3, fx.context_3d), 1);
	}
}

Test(tdr, tdr_01_a_packet_ignoring_preemption_answers_at_its_end_in_time)
{
	ignoring_packet(FSR_DEFAULT_TDR_PREEMPT_TIMEOUT_NS / 2, false);
}

Test(tdr, tdr_01_a_packet_ignoring_preemption_too_long_is_recovered)
{
	ignoring_packet(FSR_DEFAULT_TDR_PREEMPT_TIMEOUT_NS * 5, true);
}

/* Two work items, then a signal: one command buffer. */
static void
submit_two_items(struct fsr_process *process, fsr_handle queue, uint64_t ticks)
{
	struct fsr_cmdbuf *cmdbuf;

	cr_assert_eq(fsr_cmdbuf_create(process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, ticks), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, ticks), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
}

Test(tdr, only_the_ignoring_buffer_s_own_work_ignores_preemption)
{
	/* The other queue first on the engine's run list. */
	fsr_handle other = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle ignoring = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	uint64_t start = now_ns();
	uint64_t request = 0;
	size_t complete;

	cr_assert_eq(fsr_test_packet_ignores_preemption(fx.runtime, fx.adapter_id, 0, ignoring),
		     FSR_OK);
	/*
	 * 100 us items, round robin: the other queue's first, the ignoring one's first (its
	 * buffer begins: it ignores preemption), then the other's second — which does not.
	 */
	submit_two_items(fx.process, other, 10000);
	submit_two_items(fx.process, ignoring, 10000);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, start + 250000), FSR_OK);
	cr_assert_eq(fsr_test_preempt_request(fx.runtime, fx.adapter_id, 0,
					      FSTP_PREEMPT_REASON_PRIORITY, &request),
		     FSR_OK);
	cr_assert_neq(request, 0);
	fst_run_until_idle();
	complete = find(0, "fencescope_hw:preempt_complete", 3, request);
	cr_assert_neq(complete, SIZE_MAX);
	/* The other queue's item stops at the engine's own granularity, not at its end. */
	cr_assert_eq(tdr_log.events[complete].fields[5], FSTP_PREEMPT_GRANULARITY_SHADER_BOUNDARY);
	cr_assert_gt(tdr_log.events[complete].fields[7], 0); /* work left */
}

/* ---- TDR-03: Active->Hung reported by the KMD ------------------------------------------- */

Test(tdr, tdr_03_hung_state_change_starts_recovery_at_once)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t change, detect, request, begin, end;

	(void) fst_submit_work(fx.process, queue, NS_TO_TICKS(DELAY_NS / 2));
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, now_ns() + 1000000), FSR_OK);
	cr_assert_eq(fsr_test_engine_report_hung(fx.runtime, fx.adapter_id, 0), FSR_OK);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, now_ns() + 1000000), FSR_OK);
	change = find(0, "fencescope_hw:engine_state_change", 2, FSTP_ENGINE_STATE_HUNG);
	detect = find(0, "fencescope_os:tdr_detect", 3, FSTP_LOSS_REASON_ENGINE_HUNG);
	request = find(0, "fencescope_os:preempt_request", 4, FSTP_PREEMPT_REASON_TDR);
	begin = find(0, "fencescope_os:tdr_begin", 2, FSTP_LOSS_REASON_ENGINE_HUNG);
	end = find(0, "fencescope_os:tdr_end", -1, 0);
	cr_assert(change < detect && detect < request && request < begin && begin < end &&
		  end != SIZE_MAX);
	/* At once: not after the delay, not after the preemption timeout. */
	cr_assert_eq(tdr_log.events[begin].now_ns, tdr_log.events[detect].now_ns);
	cr_assert_eq(tdr_log.events[begin].fields[3], fx.context_3d);
}

Test(tdr, tdr_03_hung_state_change_recovers_with_the_watchdog_off)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;
	fsr_handle queue;

	teardown_tdr();
	fst_rt_config_init(&runtime_config, &config);
	config.tdr_delay_ns = FSR_INFINITE;
	setup_with(&config, NULL);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, 0), FSR_OK);
	(void) fst_submit_work(fx.process, queue, 1000);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, now_ns() + 3 * DELAY_NS), FSR_OK);
	cr_assert_eq(count("fencescope_os:tdr_detect", -1, 0), 0); /* no watchdog */
	cr_assert_eq(fsr_test_engine_report_hung(fx.runtime, fx.adapter_id, 0), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(count("fencescope_os:tdr_begin", 2, FSTP_LOSS_REASON_ENGINE_HUNG), 1);
	cr_assert_eq(count("fencescope_os:tdr_end", 2, FSTP_TDR_RESULT_ENGINE_RESET), 1);
}

/* ---- TDR-04: the guilty context in error, its device lost; the innocent go on ------------ */

/* A hang of the fixture's 3D context while another process's queue on the same engine works. */
struct two_processes {
	fsr_handle guilty_queue;
	fsr_handle guilty_fence;
	struct fsr_process *innocent;
	fsr_handle innocent_device;
	fsr_handle innocent_context;
	fsr_handle innocent_queue;
	fsr_handle innocent_fence;
	uint64_t innocent_progress;
};

static void
hang_beside_an_innocent(struct two_processes *world, enum fsr_submission_mode mode)
{
	world->guilty_queue = fst_queue_new(fx.process, fx.context_3d, mode);
	world->guilty_fence = fst_fence_new(fx.process, fx.device, 0);
	fst_rt_add_process("innocent", &world->innocent, &world->innocent_device,
			   &world->innocent_context);
	world->innocent_queue = fst_queue_new(world->innocent, world->innocent_context, mode);
	world->innocent_fence = fst_fence_new(world->innocent, world->innocent_device, 0);
	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, world->guilty_queue),
		     FSR_OK);
	(void) submit_work_then_signal(fx.process, world->guilty_queue, 1000, world->guilty_fence,
				       5);
	for (uint64_t v = 1; v <= 4; v++)
		world->innocent_progress = submit_work_then_signal(
		    world->innocent, world->innocent_queue, 100000, world->innocent_fence, v);
}

static void
tdr_04_guilty_in_error_innocent_completes(enum fsr_submission_mode mode)
{
	struct two_processes world;
	struct fst_wait_result waited = {0};
	enum fsr_doorbell_status status;

	hang_beside_an_innocent(&world, mode);
	/* A CPU waiter on the value the hung work would have signalled. */
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, world.guilty_fence, 5, FSR_INFINITE,
					      fst_wait_record, &waited),
		     FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(count("fencescope_os:tdr_end", 2, FSTP_TDR_RESULT_ENGINE_RESET), 1);
	/* Only the guilty context is in error; its device is lost. */
	cr_assert_eq(count("fencescope_os:context_error", -1, 0), 1);
	cr_assert_eq(count("fencescope_os:context_error", 3, fx.context_3d), 1);
	cr_assert_eq(count("fencescope_os:device_lost", 1, fx.device), 1);
	cr_assert_eq(count("fencescope_os:device_lost", 1, world.innocent_device), 0);
	/* Its waiter got DEVICE_LOST, and the fence it would have signalled is signalled. */
	cr_assert_eq(waited.call_count, 1);
	cr_assert_eq(waited.status, FSR_ERR_DEVICE_LOST);
	cr_assert_eq(count("fencescope_os:cpu_wait_end", 4, FSTP_CPU_WAIT_RESULT_DEVICE_LOST), 1);
	cr_assert_eq(fst_fence_value(fx.process, world.guilty_fence), UINT64_MAX);
	/* A new wait on it does not hang. */
	cr_assert_eq(fsr_hwqueue_wait_progress(fx.process, world.guilty_queue, 1, FSR_INFINITE),
		     FSR_OK);
	/* The innocent's work all ran and completed, once. */
	cr_assert_eq(fst_last_completed(world.innocent, world.innocent_queue),
		     world.innocent_progress);
	cr_assert_eq(fst_fence_value(world.innocent, world.innocent_fence), 4);
	cr_assert_eq(count("fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_ABORTED), 1);
	if (mode == FSR_SUBMIT_USER_MODE) {
		/* TDR-04: the guilty device's doorbells DISCONNECTED_ABORT, the innocent's not. */
		cr_assert_eq(fsr_doorbell_get_status(fx.process, world.guilty_queue, &status),
			     FSR_OK);
		cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_ABORT);
		cr_assert_eq(fsr_doorbell_get_status(world.innocent, world.innocent_queue, &status),
			     FSR_OK);
		cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	}
}

Test(tdr, tdr_04_user_mode_guilty_in_error_innocent_completes)
{
	tdr_04_guilty_in_error_innocent_completes(FSR_SUBMIT_USER_MODE);
}

Test(tdr, tdr_04_kernel_mode_guilty_in_error_innocent_completes)
{
	tdr_04_guilty_in_error_innocent_completes(FSR_SUBMIT_KERNEL_MODE);
}

Test(tdr, tdr_04_innocent_gpu_wait_on_a_guilty_fence_is_released)
{
	fsr_handle guilty = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_process *other;
	fsr_handle other_device, other_context, other_compute, innocent, fence, global, view;
	uint64_t progress;

	fst_rt_add_process("innocent", &other, &other_device, &other_context);
	cr_assert_eq(fsr_context_create(other, other_device, 1, &other_compute), FSR_OK);
	innocent = fst_queue_new(other, other_compute, FSR_SUBMIT_USER_MODE);
	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_SHARED, &fence, &global),
		     FSR_OK);
	cr_assert_eq(fsr_fence_open(other, other_device, global, &view), FSR_OK);
	/* The innocent waits on the GPU for a value only the hung work would have signalled. */
	progress = fst_submit_wait(other, innocent, view, 7);
	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, guilty), FSR_OK);
	(void) submit_work_then_signal(fx.process, guilty, 1000, fence, 7);
	fst_run_until_idle();
	cr_assert_eq(count("fencescope_os:context_error", 3, fx.context_3d), 1);
	/* Released, not left blocked forever: its buffer completes. */
	cr_assert_eq(fst_last_completed(other, innocent), progress);
	cr_assert_eq(fst_fence_value(other, view), UINT64_MAX);
}

Test(tdr, tdr_04_a_hang_whose_process_ended_is_still_recovered)
{
	struct fsr_process *guilty;
	fsr_handle device, context, queue, after;
	uint64_t progress;

	fst_rt_add_process("guilty", &guilty, &device, &context);
	queue = fst_queue_new(guilty, context, FSR_SUBMIT_USER_MODE);
	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, queue), FSR_OK);
	(void) fst_submit_work(guilty, queue, 1000);
	/* It crashes while its work hangs the engine: no queue shows the OS that work any more. */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, now_ns() + DELAY_NS / 2), FSR_OK);
	cr_assert_eq(fsr_process_terminate(guilty, true), FSR_OK);
	fst_run_until_idle();
	/* The engine's own word keeps the watch: reset, no context left to put in error. */
	cr_assert_eq(count("fencescope_os:tdr_begin", 3, 0), 1);
	cr_assert_eq(count("fencescope_kmd:engine_reset", 2, 1), 1);
	cr_assert_eq(count("fencescope_os:context_error", -1, 0), 0);
	/* And the engine runs again. */
	after = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	progress = fst_submit_work(fx.process, after, 1000);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, after), progress);
}

/* ---- TDR-05: the UMD re-creates queue, doorbell and ring --------------------------------- */

Test(tdr, tdr_05_old_doorbell_refused_umd_recreates_queue_doorbell_and_ring)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	enum fsr_doorbell_status status = FSR_DOORBELL_CONNECTED;
	fsr_handle device, context, new_queue;
	uint64_t progress;

	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, queue), FSR_OK);
	(void) fst_submit_work(fx.process, queue, 1000);
	fst_run_until_idle();
	cr_assert_eq(count("fencescope_os:device_lost", 1, fx.device), 1);
	/* Reconnecting the old doorbell is no recovery path: it stays ABORT. */
	cr_assert_eq(fsr_doorbell_connect(fx.process, queue, &status), FSR_ERR_DEVICE_LOST);
	cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_ABORT);
	/* A buffer on the old queue is refused too. */
	cr_assert_eq(fsr_doorbell_get_status(fx.process, queue, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_ABORT);
	/* The UMD destroys queue, doorbell and ring (no wait: the context is in error)... */
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	/* ...and re-creates them, as every device resource, on a new device. */
	cr_assert_eq(fsr_device_create(fx.process, fx.adapter_id, &device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, device, 0, &context), FSR_OK);
	cr_assert_eq(fsr_hwqueue_create_user_mode(fx.process, context, NULL, &new_queue), FSR_OK);
	cr_assert_eq(fsr_doorbell_get_status(fx.process, new_queue, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	progress = fst_submit_work(fx.process, new_queue, 1000);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, new_queue), progress);
}

/* ---- TDR-06: a failed engine reset is promoted to an adapter reset ---------------------- */

Test(tdr, tdr_06_failed_engine_reset_promoted_to_adapter_reset)
{
	fsr_handle guilty = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle innocent;
	struct fsr_process *other;
	fsr_handle other_device, other_context, other_compute;
	uint64_t progress;
	size_t engine_reset, adapter_reset, end, resubmitted;

	fst_rt_add_process("innocent", &other, &other_device, &other_context);
	cr_assert_eq(fsr_context_create(other, other_device, 1, &other_compute), FSR_OK);
	innocent = fst_queue_new(other, other_compute, FSR_SUBMIT_KERNEL_MODE);
	cr_assert_eq(fsr_test_engine_reset_fail(fx.runtime, fx.adapter_id, 0, 1), FSR_OK);
	cr_assert_eq(fsr_test_engine_hang(fx.runtime, fx.adapter_id, 0, guilty), FSR_OK);
	(void) fst_submit_work(fx.process, guilty, 1000);
	/*
	 * An innocent DMA packet in flight on the compute engine when the adapter resets (2.1 s
	 * later), itself shorter than the delay.
	 */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, now_ns() + DELAY_NS / 2), FSR_OK);
	progress = fst_submit_work(other, innocent, NS_TO_TICKS(DELAY_NS * 3 / 4));
	fst_run_until_idle();
	engine_reset = find(0, "fencescope_kmd:engine_reset", 2, 0);
	adapter_reset = find(0, "fencescope_kmd:adapter_reset", 1, 1);
	end = find(0, "fencescope_os:tdr_end", 2, FSTP_TDR_RESULT_ADAPTER_RESET);
	cr_assert(engine_reset < adapter_reset && adapter_reset < end && end != SIZE_MAX);
	/* The innocent's packet was aborted, resubmitted under a new id naming it, and ran. */
	cr_assert_eq(count("fencescope_hw:packet_end", 6, FSTP_PACKET_STATUS_ABORTED), 2);
	resubmitted = find(adapter_reset, "fencescope_os:packet_queued", 2, innocent);
	cr_assert_neq(resubmitted, SIZE_MAX);
	cr_assert_neq(tdr_log.events[resubmitted].fields[4], 0); /* resubmission_of */
	cr_assert_eq(fst_last_completed(other, innocent), progress);
	/* Only the guilty context is in error. */
	cr_assert_eq(count("fencescope_os:context_error", -1, 0), 1);
	cr_assert_eq(count("fencescope_os:context_error", 3, fx.context_3d), 1);
}

/* ---- under sim-mode interleaving ------------------------------------------------------------- */

/*
 * TDR-01, TDR-04 under 8 interleaving seeds: the GPU and the OS switch at every shared word while
 * the hang is detected and recovered beside an innocent process; the recovery's order and the
 * innocent's work hold whatever the schedule.
 */
Test(tdr, tdr_01_tdr_04_recovery_holds_under_an_interleaving_seed_sweep, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct two_processes world;
		size_t request, begin, end;

		teardown_tdr();
		setup_tdr();
		cr_assert_eq(rt_interleave_enable(fx.runtime, seed, NULL, 0), FSR_OK);
		hang_beside_an_innocent(&world, FSR_SUBMIT_USER_MODE);
		fst_run_until_idle();
		request = find(0, "fencescope_os:preempt_request", 4, FSTP_PREEMPT_REASON_TDR);
		begin = find(0, "fencescope_os:tdr_begin", -1, 0);
		end = find(0, "fencescope_os:tdr_end", 2, FSTP_TDR_RESULT_ENGINE_RESET);
		cr_assert(request < begin && begin < end && end != SIZE_MAX, "seed %llu",
			  (unsigned long long) seed);
		cr_assert_eq(count("fencescope_os:context_error", 3, fx.context_3d), 1, "seed %llu",
			     (unsigned long long) seed);
		cr_assert_eq(fst_last_completed(world.innocent, world.innocent_queue),
			     world.innocent_progress, "seed %llu", (unsigned long long) seed);
		cr_assert_eq(fst_fence_value(world.innocent, world.innocent_fence), 4, "seed %llu",
			     (unsigned long long) seed);
	}
}
