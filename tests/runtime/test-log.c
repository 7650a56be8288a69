/* SPDX-License-Identifier: MIT */
/*
 * Native fence logs of user-mode queues (LOG): one entry per GPU signal executed and per GPU
 * wait unblocked, with the fields and timestamps the spec names — the progress write that ends
 * every command buffer is a signal of the queue's native progress fence, so each buffer adds
 * one entry to its queue's signals log (HPF-02, LOG-11); the OS reads every entry once,
 * and a reader that falls behind by more than a log's capacity reports exactly how many
 * entries it lost, reads the rest and falls back to scanning the device's fences. The entries
 * themselves are looked at white-box, through runtime-private.h, because user mode cannot
 * read the logs (LOG-12).
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

#define SMALL_LOG 8

static void
setup_small_logs(enum fsr_interrupt_form form)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	/* The OS reads only on interrupts and when a queue is destroyed. */
	runtime_config.log_read_period_ns = FSR_INFINITE;
	adapter_config.log_capacity_entries = SMALL_LOG;
	adapter_config.keep_log_size_when_tracing = true; /* or LOG-20 makes them 16 times larger */
	adapter_config.interrupt_form = form;
	fst_rt_setup_with(&runtime_config, &adapter_config);
}

static void
setup_small_logs_fence_array(void)
{
	setup_small_logs(FSR_INTERRUPT_FENCE_ARRAY);
}

static void
setup_small_logs_hwqueue(void)
{
	setup_small_logs(FSR_INTERRUPT_HWQUEUE);
}

TestSuite(log, .init = fst_rt_setup, .fini = fst_rt_teardown);
TestSuite(log_overrun, .init = setup_small_logs_fence_array, .fini = fst_rt_teardown);
TestSuite(log_overrun_hwqueue, .init = setup_small_logs_hwqueue, .fini = fst_rt_teardown);

/* Position (WraparoundCount × capacity + FirstFreeEntryIndex) of one log of a queue. */
static uint64_t
log_position(fsr_handle queue, enum fstp_log_type type)
{
	struct hw_fence_log *log = &fst_borrow_queue(queue)->logs[type];
	uint64_t header = atomic_load(&log->header);

	return (header >> 32) * log->capacity + (uint32_t) header;
}

static const struct hw_log_entry *
log_entry(fsr_handle queue, enum fstp_log_type type, uint64_t position)
{
	struct hw_fence_log *log = &fst_borrow_queue(queue)->logs[type];

	return &log->entries[position % log->capacity];
}

#define N 5

/* Queue `waiter` waits for 1..N on `fence`; `signaller` works, then signals each. */
static void
submit_waits_and_signals(fsr_handle waiter, fsr_handle signaller, fsr_handle fence)
{
	for (uint64_t i = 1; i <= N; i++)
		fst_submit_wait(fx.process, waiter, fence, i);
	for (uint64_t i = 1; i <= N; i++) {
		fst_submit_work(fx.process, signaller, 200);
		fst_submit_signal(fx.process, signaller, fence, i);
	}
}

/* LOG-05, LOG-11: the UMD puts a log instruction after each wait and signal; each writes one. */
Test(log, log_05_log_11_one_entry_per_signal_executed_and_per_wait_unblocked)
{
	fsr_handle waiter = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle signaller = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_runtime_stats stats;

	submit_waits_and_signals(waiter, signaller, fence);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, waiter), N);

	/* Each buffer's progress write is a signal too: N buffers, then 2N (work, signal). */
	cr_expect_eq(log_position(waiter, FSTP_LOG_TYPE_WAITS), N);
	cr_expect_eq(log_position(waiter, FSTP_LOG_TYPE_SIGNALS), N);
	cr_expect_eq(log_position(signaller, FSTP_LOG_TYPE_WAITS), 0);
	cr_expect_eq(log_position(signaller, FSTP_LOG_TYPE_SIGNALS), N + 2 * N);

	/* Destroying a queue reads its logs a last time. */
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, waiter), FSR_OK);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, signaller), FSR_OK);
	stats = fst_stats();
	cr_expect_eq(stats.log_entries_read, N + N + 3 * N);
	cr_expect_eq(stats.log_entries_lost, 0);
}

Test(log, log_08_log_09_wait_entries_are_observed_before_they_end)
{
	fsr_handle waiter = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle signaller = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);

	submit_waits_and_signals(waiter, signaller, fence);
	fst_run_until_idle();
	for (uint64_t p = 0; p < N; p++) {
		const struct hw_log_entry *entry = log_entry(waiter, FSTP_LOG_TYPE_WAITS, p);

		cr_expect_eq(entry->operation, FSTP_LOG_OPERATION_WAIT_UNBLOCKED, "entry %lu",
			     (unsigned long) p);
		cr_expect_eq(entry->fence_value, p + 1);
		cr_expect_eq(entry->native_fence, (uint32_t) fence, "LOG-10: the local handle");
		cr_expect_neq(entry->end_gpu_ts, 0);
		/* Each wait blocks while the other queue works: strictly before. */
		cr_expect_lt(entry->observed_gpu_ts, entry->end_gpu_ts, "LOG-09, entry %lu",
			     (unsigned long) p);
	}
}

/*
 * The signaller's buffers are work (progress 2i-1), then signal i (progress 2i): its signals
 * log holds, per i, the progress write 2i-1, the signal i, the progress write 2i. The progress
 * entries name the handle the UMD knows the progress fence by (LOG-10), which is no handle a
 * fence call accepts: user mode can neither signal nor wait on the progress fence itself.
 */
Test(log, log_07_log_10_hpf_02_signal_and_progress_entries_hold_value_and_ascending_end_timestamps)
{
	fsr_handle waiter = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle signaller = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint32_t progress_handle = fst_borrow_queue(signaller)->progress_fence_local_handle;
	uint64_t previous_end = 0;
	uint64_t previous_signal_end = 0;

	submit_waits_and_signals(waiter, signaller, fence);
	fst_run_until_idle();
	cr_assert_neq(progress_handle, 0);
	cr_assert_eq(log_position(signaller, FSTP_LOG_TYPE_SIGNALS), 3 * N);
	for (uint64_t p = 0; p < 3 * N; p++) {
		const struct hw_log_entry *entry = log_entry(signaller, FSTP_LOG_TYPE_SIGNALS, p);
		uint64_t i = p / 3 + 1;

		cr_expect_eq(entry->operation, FSTP_LOG_OPERATION_SIGNAL_EXECUTED);
		if (p % 3 == 1) {
			cr_expect_eq(entry->fence_value, i);
			cr_expect_eq(entry->native_fence, (uint32_t) fence);
			/* Work runs between two signals: strictly later. */
			cr_expect_gt(entry->end_gpu_ts, previous_signal_end, "entry %lu",
				     (unsigned long) p);
			previous_signal_end = entry->end_gpu_ts;
		} else {
			cr_expect_eq(entry->fence_value, p % 3 == 0 ? 2 * i - 1 : 2 * i);
			cr_expect_eq(entry->native_fence, progress_handle, "HPF-02, entry %lu",
				     (unsigned long) p);
		}
		/* A progress write may share its signal's instant (LOG-21), never go back. */
		cr_expect_geq(entry->end_gpu_ts, previous_end, "LOG-22, entry %lu",
			      (unsigned long) p);
		cr_expect_neq(entry->end_gpu_ts, 0);
		previous_end = entry->end_gpu_ts;
	}
	cr_expect_neq(fsr_fence_signal_cpu(fx.process, progress_handle, 100), FSR_OK,
		      "the progress fence's log handle is no fence handle of the process");
}

Test(log, log_02_kernel_mode_queues_write_no_log)
{
	fsr_handle waiter = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle signaller =
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);

	submit_waits_and_signals(waiter, signaller, fence);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, waiter), N);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, waiter), FSR_OK);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, signaller), FSR_OK);
	cr_expect_eq(fst_stats().log_entries_read, 0);
}

/*
 * LOG-06: the GPU writes the entries with no OS or driver involvement (no interrupt, no read,
 * yet the header moved); LOG-16: it never waits for the reader, overwrites and counts its wraps;
 * LOG-17: the reader that comes late reports exactly what it lost.
 */
Test(log_overrun, log_06_log_16_log_17_lagging_reader_reports_exactly_the_entries_lost)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_runtime_stats stats;

	/* 10 buffers, each a signal and its progress write (HPF-02): 20 entries. */
	for (uint64_t i = 1; i <= 10; i++)
		fst_submit_signal(fx.process, queue, fence, i);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), 10);
	cr_assert_eq(fst_stats().interrupts, 0, "no waiter, no interrupt, no read");
	cr_assert_eq(fst_stats().log_entries_read, 0);

	/* LOG-16: the GPU wrapped twice and overwrote what nobody read. */
	cr_expect_eq(atomic_load(&fst_borrow_queue(queue)->logs[FSTP_LOG_TYPE_SIGNALS].header),
		     (UINT64_C(2) << 32) | 4);
	for (uint64_t p = 12; p < 20; p++)
		cr_expect_eq(log_entry(queue, FSTP_LOG_TYPE_SIGNALS, p)->fence_value, p / 2 + 1);

	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	stats = fst_stats();
	cr_expect_eq(stats.log_entries_lost, 20 - SMALL_LOG);
	cr_expect_eq(stats.log_entries_read, SMALL_LOG);
}

Test(log_overrun, log_17_reader_keeping_up_across_a_wrap_loses_nothing)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result results[2] = {{0}};
	uint64_t value = 0;

	/*
	 * Twice: 2 silent signals, then one a waiter asks for, whose interrupt reads the log: 3
	 * buffers, 6 entries with their progress writes (HPF-02).
	 */
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 2; i++)
			fst_submit_signal(fx.process, queue, fence, ++value);
		cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fence, ++value, FSR_INFINITE,
						      fst_wait_record, &results[round]),
			     FSR_OK);
		fst_submit_signal(fx.process, queue, fence, value);
		fst_run_until_idle();
		cr_assert_eq(results[round].call_count, 1);
		cr_expect_eq(fst_stats().log_entries_read, 6 * ((uint64_t) round + 1));
	}
	cr_expect_eq(log_position(queue, FSTP_LOG_TYPE_SIGNALS), 12, "one wrap at 8");
	cr_expect_eq(fst_stats().log_entries_lost, 0);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	cr_expect_eq(fst_stats().log_entries_lost, 0);
	cr_expect_eq(fst_stats().log_entries_read, 12);
}

Test(log_overrun, log_17_wait_and_signal_logs_overrun_separately)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_runtime_stats stats;

	/*
	 * 10 buffers of a signal and a satisfied wait: the waits log lost 2 of its 10, the
	 * signals log 12 of its 20 (each buffer's progress write is logged there, HPF-02).
	 */
	for (uint64_t i = 1; i <= 10; i++) {
		struct fsr_cmdbuf *cmdbuf = NULL;

		cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, i), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_wait(cmdbuf, fence, i), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	}
	fst_run_until_idle();
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	stats = fst_stats();
	cr_expect_eq(stats.log_entries_lost, (10 - SMALL_LOG) + (20 - SMALL_LOG));
	cr_expect_eq(stats.log_entries_read, 2 * SMALL_LOG);
}

Test(log_overrun_hwqueue, log_18_overrun_falls_back_to_the_fence_values_of_the_device)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle waited = fst_fence_new(fx.process, fx.device, 0);
	fsr_handle busy = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result result = {0};
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, waited, 1, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	/*
	 * The signal the waiter needs raises an interrupt that names only the queue (INT-11);
	 * before the OS reads the log, 20 more entries overwrite the one that names the fence.
	 */
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, waited, 1), FSR_OK);
	for (uint64_t i = 1; i <= 20; i++)
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, busy, i), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_run_until_idle();

	/* 21 signals and the buffer's progress write (HPF-02). */
	cr_expect_eq(fst_stats().log_entries_lost, 22 - SMALL_LOG);
	cr_expect_eq(result.call_count, 1, "released by the fallback scan");
	cr_expect_eq(result.status, FSR_OK);
	cr_expect_eq(result.observed_value, 1);
}

/*
 * LOG-18 with a shared fence another process created (SHF-02): process B opens it, twice, and
 * its queue's signals of it overrun B's signals log. B's device created nothing but its queue's
 * progress fence, so a scan of only the fences it created would never read the shared fence,
 * and nobody could tell which of the lost operations had happened. Each fence is read once.
 */
Test(log_overrun, log_18_scan_covers_opened_shared_fences)
{
	struct fsr_process *process_b = NULL;
	fsr_handle device_b = 0, context_b = 0, queue_b;
	fsr_handle global_handle = 0, fence_a = 0, fence_b = 0, fence_b_again = 0;
	uint64_t scanned_before;

	cr_assert_eq(
	    fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_SHARED, &fence_a, &global_handle),
	    FSR_OK);
	fst_rt_add_process("b", &process_b, &device_b, &context_b);
	cr_assert_eq(fsr_fence_open(process_b, device_b, global_handle, &fence_b), FSR_OK);
	cr_assert_eq(fsr_fence_open(process_b, device_b, global_handle, &fence_b_again), FSR_OK);
	queue_b = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	for (uint64_t i = 1; i <= 20; i++)
		fst_submit_signal(process_b, queue_b, i % 2 ? fence_b : fence_b_again, i);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence_a), 20);
	scanned_before = fst_stats().fences_scanned;

	/*
	 * Destroying the queue reads its logs: the signals log, 20 signals and 20 progress writes
	 * (HPF-02), lost 40 - SMALL_LOG entries.
	 */
	cr_assert_eq(fsr_hwqueue_destroy(process_b, queue_b), FSR_OK);
	cr_expect_eq(fst_stats().log_entries_lost, 40 - SMALL_LOG);
	cr_expect_eq(fst_stats().fences_scanned - scanned_before, 2,
		     "the queue's progress fence and the opened shared fence, once");
	cr_assert_eq(fsr_process_terminate(process_b, false), FSR_OK);
}

/*
 * LOG-21, LOG-22: entries written behind the GPU's back, as a chained adapter or a faulty one
 * would, with a zero timestamp, a repeated one and one going backwards. The OS accepts them
 * all, reports the zero and the backwards one, and leaves the zero out of the monotonic check.
 */
Test(log, log_21_log_22_zero_and_backward_timestamps_are_read_and_reported)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct os_hwqueue *os_queue = fst_borrow_queue(queue);
	const uint64_t end_gpu_ts[] = {1000, 0, 1000, 900, 1100};
	struct fsr_runtime_stats before = fst_stats();
	struct fsr_runtime_stats after;

	struct hw_fence_log *log = &os_queue->logs[FSTP_LOG_TYPE_SIGNALS];

	/* As the GPU writes them: the entries, then FirstFreeEntryIndex (LOG-14). */
	for (uint32_t i = 0; i < 5; i++)
		log->entries[i] = (struct hw_log_entry){
		    .fence_value = i + 1,
		    .native_fence = (uint32_t) fence,
		    .operation = FSTP_LOG_OPERATION_SIGNAL_EXECUTED,
		    .end_gpu_ts = end_gpu_ts[i],
		};
	atomic_store(&log->header, 5);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK); /* the last read */
	after = fst_stats();
	cr_expect_eq(after.log_entries_read - before.log_entries_read, 5, "every entry is read");
	/* One zero (entry 1) and one backwards (900 after 1000); the repeat is fine. */
	cr_expect_eq(after.log_anomalies - before.log_anomalies, 2);
	cr_expect_eq(after.log_entries_lost, before.log_entries_lost);
}

/*
 * LOG-22: a zero timestamp (allowed, LOG-21) says nothing of time, so it must not become the
 * baseline the next entry is checked against: 900 after 1000 and a zero still goes backwards.
 */
Test(log, log_22_zero_timestamp_does_not_reset_the_monotonic_baseline)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct hw_fence_log *log = &fst_borrow_queue(queue)->logs[FSTP_LOG_TYPE_SIGNALS];
	const uint64_t end_gpu_ts[] = {1000, 0, 900};
	struct fsr_runtime_stats before = fst_stats();

	for (uint32_t i = 0; i < 3; i++)
		log->entries[i] = (struct hw_log_entry){
		    .fence_value = i + 1,
		    .native_fence = (uint32_t) fence,
		    .operation = FSTP_LOG_OPERATION_SIGNAL_EXECUTED,
		    .end_gpu_ts = end_gpu_ts[i],
		};
	atomic_store(&log->header, 3);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK); /* the last read */
	cr_expect_eq(fst_stats().log_anomalies - before.log_anomalies, 2,
		     "the zero, and 900 going back from 1000");
}

/*
 * LOG-12, LOG-14 (spec 001, "Log buffer mechanism" 4): the UMD programs the entry a payload goes
 * to, and the GPU increments FirstFreeEntryIndex itself for every entry it writes — it never
 * takes the UMD's index into the header. Here the UMD's counter is moved on white-box (a UMD
 * that skipped entries, breaking LOG-13): the payloads land where the UMD said, and the header
 * still advances by one per entry, wrapping at the capacity with WraparoundCount (LOG-16).
 */
Test(log_overrun, log_12_log_14_gpu_increments_first_free_entry_index_whatever_entry_the_umd_chose)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct os_hwqueue *os_queue = fst_borrow_queue(queue);
	struct hw_fence_log *log = &os_queue->logs[FSTP_LOG_TYPE_SIGNALS];
	uint64_t header;

	/*
	 * The UMD's next entry is the last one of the log, the header's is 0. Each buffer logs
	 * its signal, then its progress write (HPF-02).
	 */
	os_queue->umd_log_position[FSTP_LOG_TYPE_SIGNALS] = SMALL_LOG - 1;
	fst_submit_signal(fx.process, queue, fence, 1);
	fst_submit_signal(fx.process, queue, fence, 2);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), 2);

	cr_expect_eq(log->entries[SMALL_LOG - 1].fence_value, 1, "LOG-12: the UMD's entry");
	cr_expect_eq(log->entries[SMALL_LOG - 1].native_fence, (uint32_t) fence);
	cr_expect_eq(log->entries[1].fence_value, 2, "LOG-12: the UMD's entries, wrapped");
	cr_expect_eq(log->entries[1].native_fence, (uint32_t) fence);
	header = atomic_load(&log->header);
	cr_expect_eq((uint32_t) header, 4, "LOG-14: four entries written, FirstFreeEntryIndex 4");
	cr_expect_eq(header >> 32, 0, "LOG-16: the GPU's index has not wrapped");

	/* Two more buffers: the GPU's own index reaches the capacity and wraps. */
	for (uint64_t v = 3; v <= 4; v++)
		fst_submit_signal(fx.process, queue, fence, v);
	fst_run_until_idle();
	header = atomic_load(&log->header);
	cr_expect_eq((uint32_t) header, 0, "LOG-14: 8 entries in a log of 8");
	cr_expect_eq(header >> 32, 1, "LOG-16: WraparoundCount counts the GPU's own wrap");
}
