/* SPDX-License-Identifier: MIT */
/*
 * Sim-mode interleaving (common/interleave.c, docs/runtime.md "Interleaving"): the GPU, the OS
 * and the API caller switching at the points where they touch shared words. Each rule test
 * replays the one interleaving its rule is about, with a script, and fails under the rule's
 * mutation (tests/mutations/<RULE>.patch); the sweep runs a workload under 500 seeds and checks
 * that no interleaving the scheduler finds loses a wake-up, completes a progress value above
 * LastQueuedValue, or reads a stale log entry. White-box: runtime-private.h.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

#define MS UINT64_C(1000000)

/* ---- setup ------------------------------------------------------------------------------------
 */

static void
setup_interleaved(uint64_t seed, const struct rt_interleave_switch *script, size_t count,
		  uint64_t log_read_period_ns)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	runtime_config.log_read_period_ns = log_read_period_ns;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	cr_assert_eq(rt_interleave_enable(fx.runtime, seed, script, count), FSR_OK);
}

/* ---- invariants ---------------------------------------------------------------------------------
 */

struct invariants {
	uint64_t progress_above_last_queued; /* HPF-04 broken, seen at some point */
	uint64_t checks;
};

/*
 * HPF-04, HPF-08: at no point does a queue's progress fence hold a value above its
 * LastQueuedValue. Read at every point, the baton held: nothing moves meanwhile.
 */
static void
check_progress(struct fsr_runtime *runtime, const char *actor, enum rt_point point, void *data)
{
	struct invariants *inv = data;

	(void) actor;
	(void) point;
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
			for (struct os_hwqueue *q = adapter->user_queues[e]; q;
			     q = q->next_user_queue) {
				inv->checks++;
				if (atomic_load(&q->progress_fence->current_value) >
				    atomic_load(&q->last_queued_value))
					inv->progress_above_last_queued++;
			}
		}
	}
}

/* SYN-06: once nothing runs, no CPU waiter waits for a value its fence has reached. */
static uint32_t
lost_wakeups(struct fsr_process *process)
{
	uint32_t lost = 0;

	for (struct os_device *d = process->devices; d; d = d->next_in_process)
		for (struct fsr_fence *fence = d->fences; fence; fence = fence->next_in_device)
			for (struct os_waiter *w = fence->waiters; w; w = w->next)
				lost += w->value <= atomic_load(&fence->current_value);
	return lost;
}

/*
 * An observer's data lives in the test's frame: it must be gone before the teardown, whose
 * own points would otherwise call it on a dead stack (AddressSanitizer saw hpf_04's).
 */
static void
teardown_interleaved(void)
{
	if (fx.runtime)
		rt_interleave_set_observer(fx.runtime, NULL, NULL);
	fst_rt_teardown();
}

TestSuite(interleave, .fini = teardown_interleaved);

/* ---- the rules
 * ------------------------------------------------------------------------------------ */

/*
 * SYN-05: the GPU's signal lands between the OS's store of MonitoredValue and its resample of
 * CurrentValue, and its MonitoredValue read comes before the OS's store: the GPU raises no
 * interrupt, so only the resample can release the waiter. Without it (the mutation) the waiter
 * sleeps for ever: nothing else would read the fence (no periodic log read).
 */
Test(interleave, syn_01_syn_05_signal_between_monitored_store_and_resample_releases_the_waiter)
{
	const struct rt_interleave_switch script[] = {
	    {"caller", RT_POINT_OS_WRITE_MONITORED_VALUE, 1, "engine0", RT_POINT_STEP_END},
	};
	struct fsr_runtime_stats before;
	fsr_handle queue;
	fsr_handle fence;
	uint64_t now;

	setup_interleaved(0, script, 1, FSR_INFINITE);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	/* The OS's first step (its first log read, a weak timer) is behind us: no log read after.
	 */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime)), FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 1); /* the engine is due now; nothing ran */

	before = fst_stats();
	now = fsr_runtime_now_ns(fx.runtime);

	cr_assert_eq(fsr_fence_wait_cpu(fx.process, fence, 1, 10 * MS, FSR_WAIT_BLOCKING), FSR_OK,
		     "SYN-05: the resample after UpdateMonitoredValues releases the waiter");
	cr_expect_eq(rt_interleave_fired(fx.runtime), 1, "the signal ran inside the DDI");
	cr_expect_eq(fsr_runtime_now_ns(fx.runtime), now, "released at once, by the resample");
	cr_expect_eq(fst_stats().interrupts, before.interrupts,
		     "the GPU read MonitoredValue before the store: no interrupt");
}

/*
 * SYN-07: the GPU's signal lands between the OS's store of MonitoredValue and its resample,
 * and reads the new MonitoredValue: both sides see each other. The resample releases the
 * waiter at once, and the interrupt the GPU raised finds nobody left: spurious, and allowed.
 */
Test(interleave, syn_07_signal_between_monitored_store_and_resample_interrupts_spuriously)
{
	const struct rt_interleave_switch script[] = {
	    {"caller", RT_POINT_OS_BARRIER, 1, "engine0", RT_POINT_STEP_END},
	};
	struct fsr_runtime_stats before;
	struct fsr_runtime_stats after;
	fsr_handle queue;
	fsr_handle fence;
	uint64_t now;

	setup_interleaved(0, script, 1, FSR_INFINITE);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime)), FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 1);
	before = fst_stats();
	now = fsr_runtime_now_ns(fx.runtime);

	cr_assert_eq(fsr_fence_wait_cpu(fx.process, fence, 1, 10 * MS, FSR_WAIT_BLOCKING), FSR_OK);
	cr_expect_eq(fsr_runtime_now_ns(fx.runtime), now, "released at once, by the resample");
	fst_run_until_idle();
	after = fst_stats();
	cr_expect_eq(rt_interleave_fired(fx.runtime), 1);
	cr_expect_eq(after.interrupts, before.interrupts + 1, "the GPU saw the new MonitoredValue");
	cr_expect_eq(after.spurious_interrupts, before.spurious_interrupts + 1,
		     "SYN-07: its interrupt released nobody, and is counted");
}

/*
 * SYN-09: the OS's waiter arrives while the GPU is between its MonitoredValue read and its
 * CurrentValue write — which SYN-09's order makes impossible: CurrentValue is written first,
 * so the GPU reads the MonitoredValue the waiter stored and interrupts. With the read first
 * (the mutation) it saw no waiter, and the waiter, which read the old CurrentValue, is lost.
 */
Test(interleave, syn_09_waiter_arriving_before_the_current_value_write_gets_its_interrupt)
{
	const struct rt_interleave_switch script[] = {
	    {"caller", RT_POINT_OS_READ_CURRENT_VALUE, 1, "engine0",
	     RT_POINT_GPU_WRITE_CURRENT_VALUE},
	};
	struct fsr_runtime_stats before;
	fsr_handle queue;
	fsr_handle fence;

	setup_interleaved(0, script, 1, FSR_INFINITE);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	/* The OS's first step (its first log read, a weak timer) is behind us: no log read after.
	 */
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime)), FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 1);
	before = fst_stats();

	cr_assert_eq(fsr_fence_wait_cpu(fx.process, fence, 1, 10 * MS, FSR_WAIT_BLOCKING), FSR_OK,
		     "SYN-09: CurrentValue before the MonitoredValue read: no wake-up is lost");
	cr_expect_eq(rt_interleave_fired(fx.runtime), 1);
	cr_expect_eq(fst_stats().interrupts, before.interrupts + 1,
		     "the GPU saw the waiter's MonitoredValue and interrupted");
	cr_expect_eq(lost_wakeups(fx.process), 0);
}

/*
 * SYN-10, the GPU's wait entries: nothing after a GPU wait puts a barrier before the work that
 * follows, so its entry stays posted while the OS's periodic read finds FirstFreeEntryIndex
 * moved. Only the driver's UpdateNativeFenceLogs, before the entries are read, shows the entry;
 * read before it (the mutation), the slot is stale: no fence, no timestamps.
 */
Test(interleave, syn_10_periodic_read_sees_a_posted_wait_entry_after_the_barrier)
{
	struct fsr_cmdbuf *cmdbuf = NULL;
	struct fsr_runtime_stats before;
	struct fsr_runtime_stats after;
	fsr_handle queue;
	fsr_handle gate;

	setup_interleaved(0, NULL, 0, 100000); /* the OS reads the logs every 100 µs */
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	gate = fst_fence_new(fx.process, fx.device, 1);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_wait(cmdbuf, gate, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 100000), FSR_OK); /* 1 ms at 100 MHz */
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	before = fst_stats();
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + MS / 2),
		     FSR_OK);
	after = fst_stats();

	cr_assert_eq(after.log_entries_read - before.log_entries_read, 1,
		     "the periodic read, during the work, read the wait's entry");
	cr_expect_eq(after.log_anomalies, before.log_anomalies,
		     "SYN-10: read after UpdateNativeFenceLogs, the entry is the GPU's, not stale");
}

/*
 * SYN-10, the GPU's signal entries: the OS reads the log after the GPU moved FirstFreeEntryIndex
 * and before the GPU's SYN-09 barrier, which would have made the entry visible. The OS's own
 * barrier (UpdateNativeFenceLogs) must come before it reads the entry.
 */
Test(interleave, syn_10_read_between_header_store_and_gpu_barrier_sees_the_entry)
{
	const struct rt_interleave_switch script[] = {
	    {"engine0", RT_POINT_GPU_BARRIER, 1, "os", RT_POINT_STEP_END},
	};
	struct fsr_runtime_stats before;
	struct fsr_runtime_stats after;
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_handle queue;
	fsr_handle fence;

	setup_interleaved(0, script, 1, 1000); /* a periodic read is due whenever the GPU is */
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	/* One buffer: the signal's barrier is the engine's first (the progress write has one). */
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	before = fst_stats();
	fst_run_until_idle();
	after = fst_stats();

	cr_assert_eq(rt_interleave_fired(fx.runtime), 1, "the OS ran inside the GPU's signal");
	cr_expect_eq(after.log_entries_read - before.log_entries_read, 1, "read %llu",
		     (unsigned long long) (after.log_entries_read - before.log_entries_read));
	cr_expect_eq(after.log_anomalies, before.log_anomalies,
		     "SYN-10: the entry read is the GPU's, not the stale slot");
	cr_expect_eq(fst_fence_value(fx.process, fence), 1);
}

/*
 * HPF-04: the GPU runs a whole command buffer between the UMD's two ring stores, at whichever
 * comes second. LastQueuedValue stored first, the GPU sees the old write pointer and runs
 * nothing; the write pointer first (the mutation), it completes the buffer's progress value
 * while LastQueuedValue is still below it.
 */
Test(interleave, hpf_03_hpf_04_gpu_between_the_umd_stores_never_completes_above_last_queued)
{
	const struct rt_interleave_switch script[] = {
	    {"caller", RT_POINT_UMD_WRITE_LAST_QUEUED, 1, "engine0", RT_POINT_STEP_END},
	    {"caller", RT_POINT_UMD_WRITE_WRITE_PTR, 1, "engine0", RT_POINT_STEP_END},
	};
	struct invariants inv = {0};
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_handle queue;

	setup_interleaved(0, script, 2, FSR_INFINITE);
	rt_interleave_set_observer(fx.runtime, check_progress, &inv);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	/*
	 * An empty buffer: its begin and its progress write run in one go. (A signal would stop
	 * the engine at its retirement report, which waits for the interrupt level the UMD's
	 * caller holds.)
	 */
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_run_until_idle();

	cr_expect_eq(rt_interleave_fired(fx.runtime), 2, "the engine ran at both stores");
	cr_expect_gt(inv.checks, 0);
	cr_expect_eq(inv.progress_above_last_queued, 0,
		     "HPF-04: no progress value completes above LastQueuedValue");
	cr_expect_eq(fst_last_completed(fx.process, queue), 1);
	cr_expect_eq(fst_last_queued(fx.process, queue), 1);
}

/* ---- determinism
 * ---------------------------------------------------------------------------------- */

struct run_result {
	uint64_t trace_hash;
	struct rt_interleave_stats stats;
	struct invariants inv;
	uint32_t lost;
	uint64_t anomalies;
	int failed_waits;
	uint64_t elapsed_ns;
};

static void
record_async(fsr_status status, uint64_t observed_value, void *user_data)
{
	int *failed = user_data;

	(void) observed_value;
	if (status != FSR_OK)
		(*failed)++;
}

static void
submit_empty(fsr_handle queue)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
}

/*
 * Two engines, two queues, two fences: queue 0 works and signals F 1..4; queue 1 waits for
 * F 2 and F 4 and signals G after each; empty buffers in between; the caller waits for both
 * fences, blocking and asynchronously, and submits while the GPU runs.
 */
static struct run_result
run_workload(uint64_t seed, bool enable)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	struct run_result result = {0};
	fsr_handle q0;
	fsr_handle q1;
	fsr_handle f;
	fsr_handle g;

	fst_rt_config_init(&runtime_config, &adapter_config);
	/* No periodic log read: it would release a lost waiter late and hide the loss. */
	runtime_config.log_read_period_ns = FSR_INFINITE;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	if (enable) {
		cr_assert_eq(rt_interleave_enable(fx.runtime, seed, NULL, 0), FSR_OK);
		rt_interleave_set_observer(fx.runtime, check_progress, &result.inv);
	}
	q0 = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	q1 = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	f = fst_fence_new(fx.process, fx.device, 0);
	g = fst_fence_new(fx.process, fx.device, 0);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, f, 4, 50 * MS, record_async, &result.failed_waits),
	    FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, g, 2, 50 * MS, record_async, &result.failed_waits),
	    FSR_OK);
	/* Empty buffers on an idle queue run in one go, progress write and all (HPF-04). */
	submit_empty(q1);
	submit_empty(q1);
	fst_submit_wait(fx.process, q1, f, 2);
	fst_submit_signal(fx.process, q1, g, 1);
	for (uint64_t i = 1; i <= 2; i++) {
		fst_submit_work(fx.process, q0, 50);
		fst_submit_signal(fx.process, q0, f, i);
	}
	if (fsr_fence_wait_cpu(fx.process, f, 1, 10 * MS, FSR_WAIT_BLOCKING) != FSR_OK)
		result.failed_waits++;
	fst_submit_wait(fx.process, q1, f, 4);
	fst_submit_signal(fx.process, q1, g, 2);
	for (uint64_t i = 3; i <= 4; i++) {
		fst_submit_work(fx.process, q0, 50);
		submit_empty(q0);
		fst_submit_signal(fx.process, q0, f, i);
	}
	if (fsr_fence_wait_cpu(fx.process, g, 1, 10 * MS, FSR_WAIT_BLOCKING) != FSR_OK)
		result.failed_waits++;
	if (fsr_fence_wait_cpu(fx.process, f, 3, 10 * MS, FSR_WAIT_BLOCKING) != FSR_OK)
		result.failed_waits++;
	if (fsr_fence_wait_cpu(fx.process, g, 2, 10 * MS, FSR_WAIT_BLOCKING) != FSR_OK)
		result.failed_waits++;
	fst_run_until_idle();
	result.lost = lost_wakeups(fx.process);
	result.anomalies = fst_stats().log_anomalies;
	result.trace_hash = fst_stats().trace_hash;
	rt_interleave_get_stats(fx.runtime, &result.stats);
	fst_rt_teardown();
	return result;
}

Test(interleave, same_seed_same_trace)
{
	struct run_result a = run_workload(42, true);
	struct run_result b = run_workload(42, true);
	uint64_t hashes[8];
	size_t distinct = 0;

	cr_expect_gt(a.stats.switches, 0, "seed 42 switches somewhere");
	cr_expect_eq(a.trace_hash, b.trace_hash, "same seed, same trace");
	cr_expect_eq(a.stats.switches, b.stats.switches);
	cr_expect_eq(a.stats.points, b.stats.points);
	for (uint64_t seed = 1; seed <= 8; seed++) {
		uint64_t hash = run_workload(seed, true).trace_hash;
		bool is_new = true;

		for (size_t i = 0; i < distinct; i++)
			is_new &= hashes[i] != hash;
		if (is_new)
			hashes[distinct++] = hash;
	}
	cr_expect_gt(distinct, 1, "other seeds, other interleavings");
}

/* Actors on threads passing the baton, but no switch: the run of a runtime without it. */
Test(interleave, baton_without_switches_changes_nothing)
{
	struct run_result plain = run_workload(0, false);
	struct run_result baton = run_workload(0, true);

	cr_expect_eq(baton.stats.switches, 0);
	cr_expect_gt(baton.stats.points, 0);
	cr_expect_eq(plain.trace_hash, baton.trace_hash);
	cr_expect_eq(plain.failed_waits, 0);
}

Test(interleave, refused_in_realtime)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_REALTIME, .interleave_seed = 1};
	struct fsr_runtime *runtime = NULL;

	cr_expect_eq(fsr_runtime_create(&config, &runtime), FSR_ERR_INVALID_ARGUMENT);
	cr_expect_null(runtime);
}

/* ---- the sweep --------------------------------------------------------------------------------
 */

#define SWEEP_SEEDS 500

static uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/*
 * 500 seeds of the workload: every wait is released (no lost wake-up, SYN-06), no progress
 * value ever completes above LastQueuedValue (HPF-04), no log entry read is stale (SYN-10).
 * Prints how long it took and which points the scheduler switched at.
 */
Test(interleave, sweep_500_seeds_no_lost_wakeup_no_progress_above_last_queued, .timeout = 300)
{
	uint64_t start = monotonic_ns();
	uint64_t by_point[RT_POINT_COUNT][3] = {{0}};
	uint64_t switches = 0;
	uint64_t started = 0;
	uint64_t points = 0;
	uint64_t hashes = 0;
	uint64_t previous_hash = 0;

	for (uint64_t seed = 1; seed <= SWEEP_SEEDS; seed++) {
		struct run_result r = run_workload(seed, true);

		cr_assert_eq(r.failed_waits, 0, "seed %llu: a wait was not released",
			     (unsigned long long) seed);
		cr_assert_eq(r.lost, 0, "seed %llu: a waiter whose value was reached still waits",
			     (unsigned long long) seed);
		cr_assert_eq(r.inv.progress_above_last_queued, 0,
			     "seed %llu: progress above LastQueuedValue",
			     (unsigned long long) seed);
		cr_assert_eq(r.anomalies, 0, "seed %llu: a log entry read was stale",
			     (unsigned long long) seed);
		switches += r.stats.switches;
		started += r.stats.started;
		points += r.stats.points;
		hashes += r.trace_hash != previous_hash;
		previous_hash = r.trace_hash;
		for (int p = 0; p < RT_POINT_COUNT; p++)
			for (int k = 0; k < 3; k++)
				by_point[p][k] += r.stats.by_point[p][k];
	}
	fprintf(stderr,
		"# sweep: %d seeds in %.2f s; %llu points, %llu switches, %llu steps started at a "
		"point, %llu hash changes between consecutive seeds\n",
		SWEEP_SEEDS, (double) (monotonic_ns() - start) / 1e9, (unsigned long long) points,
		(unsigned long long) switches, (unsigned long long) started,
		(unsigned long long) hashes);
	for (int p = 0; p < RT_POINT_COUNT; p++)
		if (by_point[p][0] + by_point[p][1] + by_point[p][2])
			fprintf(stderr, "#   at %-26s to caller %5llu, os %5llu, engine %5llu\n",
				rt_point_name((enum rt_point) p),
				(unsigned long long) by_point[p][0],
				(unsigned long long) by_point[p][1],
				(unsigned long long) by_point[p][2]);
	cr_expect_gt(switches, SWEEP_SEEDS, "the scheduler switched, many times");
}
