/* SPDX-License-Identifier: MIT */
/*
 * Native fence signaled interrupts (INT, SYN): the emulated GPU raises one for a signal iff
 * the new CurrentValue is above MonitoredValue, so signals nobody waits for cost no
 * interrupt; the OS handles each form (fence array, NULL array, HWQueue) by releasing the
 * waiters the value satisfies; and an interrupt that releases nobody is counted as spurious.
 * Counts come from fsr_runtime_get_stats().
 */
#include <string.h>

#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

static void
setup_null_array(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.interrupt_form = FSR_INTERRUPT_NULL_ARRAY;
	fst_rt_setup_with(&runtime_config, &adapter_config);
}

static void
setup_hwqueue(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	/* Only the interrupt reads the log: no periodic read hides a missing one. */
	runtime_config.log_read_period_ns = FSR_INFINITE;
	adapter_config.interrupt_form = FSR_INTERRUPT_HWQUEUE;
	fst_rt_setup_with(&runtime_config, &adapter_config);
}

TestSuite(interrupt, .init = fst_rt_setup, .fini = fst_rt_teardown);
TestSuite(interrupt_null_array, .init = setup_null_array, .fini = fst_rt_teardown);
TestSuite(interrupt_hwqueue, .init = setup_hwqueue, .fini = fst_rt_teardown);

/* One command buffer that signals `fence` with each of `values` in turn. */
static void
submit_signals(fsr_handle queue, fsr_handle fence, const uint64_t *values, int count)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	for (int i = 0; i < count; i++)
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, values[i]), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
}

Test(interrupt, int_02_gpu_signals_without_cpu_waiter_raise_no_interrupt)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	const uint64_t values[] = {1, 2, 3};
	struct fsr_runtime_stats before = fst_stats();
	struct fsr_runtime_stats after;

	submit_signals(queue, fence, values, 3);
	fst_submit_signal(fx.process, queue, fence, 4);
	fst_run_until_idle();

	after = fst_stats();
	cr_assert_eq(fst_fence_value(fx.process, fence), 4, "the signals ran");
	cr_assert_eq(fst_last_completed(fx.process, queue), 2);
	cr_expect_eq(after.interrupts, before.interrupts);
	cr_expect_eq(after.spurious_interrupts, before.spurious_interrupts);
}

Test(interrupt, int_02_interrupt_iff_signal_is_above_monitored_value)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result result = {0};
	const uint64_t below[] = {3, 4};
	uint64_t interrupts = fst_stats().interrupts;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 5, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	cr_assert_eq(fst_monitored_value(fx.process, fence), 4);

	/* 3 and 4 are not above MonitoredValue = 4. */
	submit_signals(queue, fence, below, 2);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), 4);
	cr_expect_eq(fst_stats().interrupts, interrupts);
	cr_expect_eq(result.call_count, 0);

	/* 5 is. */
	fst_submit_signal(fx.process, queue, fence, 5);
	fst_run_until_idle();
	cr_expect_eq(fst_stats().interrupts, interrupts + 1);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_OK);
	cr_expect_eq(result.observed_value, 5);
	cr_expect_eq(fst_stats().spurious_interrupts, 0, "the interrupt released the waiter");

	/* The waiter is gone, MonitoredValue is "none" again: 6 raises nothing. */
	fst_submit_signal(fx.process, queue, fence, 6);
	fst_run_until_idle();
	cr_expect_eq(fst_stats().interrupts, interrupts + 1);
}

Test(interrupt, int_02_blocking_waiter_is_woken_by_one_interrupt)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	const uint64_t values[] = {1, 2};
	uint64_t interrupts = fst_stats().interrupts;

	fst_submit_work(fx.process, queue, 1000);
	submit_signals(queue, fence, values, 2);
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 2, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	fst_run_until_idle();
	/* Signal 1 is not above MonitoredValue = 1; signal 2 is. */
	cr_expect_eq(fst_stats().interrupts, interrupts + 1);
}

Test(interrupt, int_02_kernel_mode_queue_wait_makes_a_gpu_signal_interrupt)
{
	fsr_handle user_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle kernel_queue =
	    fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_runtime_stats before;

	fst_submit_wait(fx.process, kernel_queue, fence, 5);
	fst_run_until_idle();
	/* The OS waits for the kernel-mode queue: it moves MonitoredValue (NFV-04). */
	cr_assert_eq(fst_monitored_value(fx.process, fence), 4);
	before = fst_stats();

	fst_submit_signal(fx.process, user_queue, fence, 5);
	fst_run_until_idle();
	cr_expect_eq(fst_stats().interrupts, before.interrupts + 1);
	cr_expect_eq(fst_last_completed(fx.process, kernel_queue), 1);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX);
}

Test(interrupt, syn_07_interrupt_that_releases_nobody_is_counted_spurious)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result result = {0};
	uint64_t interrupts = fst_stats().interrupts;
	bool has_run = true;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 2, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 2);
	/* Step until the GPU has raised its interrupt, which the OS handles 2 µs later... */
	while (fst_stats().interrupts == interrupts && has_run)
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
	cr_assert_eq(fst_stats().interrupts, interrupts + 1);
	cr_assert_eq(result.call_count, 0, "the OS has not handled it yet");

	/* ...and let a CPU signal of the same value release the waiter first. */
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence, 2), FSR_OK);
	cr_assert_eq(result.call_count, 1);
	cr_expect_eq(fst_stats().spurious_interrupts, 0);
	fst_run_until_idle();
	cr_expect_eq(fst_stats().spurious_interrupts, 1);
	cr_expect_eq(result.call_count, 1, "released once");
}

Test(interrupt_null_array, int_06_null_array_interrupt_releases_waiters_of_every_fence)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence_a = fst_fence_new(fx.process, fx.device, 0);
	fsr_handle fence_b = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result at_a = {0};
	struct fst_wait_result at_b = {0};
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t interrupts = fst_stats().interrupts;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence_a, 1, FSR_INFINITE, fst_wait_record, &at_a),
	    FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence_b, 1, FSR_INFINITE, fst_wait_record, &at_b),
	    FSR_OK);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence_a, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence_b, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_run_until_idle();

	cr_expect_eq(fst_stats().interrupts, interrupts + 2, "one per signal above MonitoredValue");
	cr_expect_eq(at_a.call_count, 1);
	cr_expect_eq(at_a.status, FSR_OK);
	cr_expect_eq(at_b.call_count, 1);
	cr_expect_eq(at_b.status, FSR_OK);
	/* The first scan released both waiters, so the second interrupt found nobody. */
	cr_expect_eq(fst_stats().spurious_interrupts, 1);
}

Test(interrupt_hwqueue, int_11_hwqueue_interrupt_releases_waiters_through_the_log)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result result = {0};
	uint64_t interrupts = fst_stats().interrupts;

	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 3, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	fst_submit_work(fx.process, queue, 500);
	fst_submit_signal(fx.process, queue, fence, 3);
	fst_run_until_idle();

	cr_expect_eq(fst_stats().interrupts, interrupts + 1);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_OK);
	cr_expect_eq(result.observed_value, 3);
	/* Its entry and the progress writes of both buffers (HPF-02, LOG-11). */
	cr_expect_eq(fst_stats().log_entries_read, 3, "the interrupt read the signal's entry");
}

Test(interrupt_hwqueue, int_11_hwqueue_interrupt_releases_progress_waiters)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	uint64_t progress = fst_submit_work(fx.process, queue, 500);

	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
	cr_expect_eq(fst_last_completed(fx.process, queue), progress);
}

/* What the event tap saw of the fixture's first queue's progress fence. */
struct progress_seen {
	uint64_t progress_fence;   /* its global handle, from hwqueue_create */
	uint32_t entries;          /* fence_log_entry events naming it */
	uint32_t bad_entries;      /* of those, not a SIGNAL_EXECUTED in the signals log */
	uint64_t highest_value;    /* the highest value they carried */
	uint64_t hwqueue_released; /* waiters HWQueue-form interrupts released */
};

static void
progress_tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct progress_seen *seen = user_data;

	(void) field_count;
	if (strcmp(name, "fencescope_os:hwqueue_create") == 0 && !seen->progress_fence) {
		seen->progress_fence = fields[6];
	} else if (strcmp(name, "fencescope_os:fence_log_entry") == 0 &&
		   fields[4] == seen->progress_fence) {
		seen->entries++;
		if (fields[1] != FSTP_LOG_TYPE_SIGNALS ||
		    fields[6] != FSTP_LOG_OPERATION_SIGNAL_EXECUTED)
			seen->bad_entries++;
		if (fields[5] > seen->highest_value)
			seen->highest_value = fields[5];
	} else if (strcmp(name, "fencescope_os:interrupt_handled") == 0 &&
		   fields[3] == FSTP_INTERRUPT_FORM_HWQUEUE) {
		seen->hwqueue_released += fields[6];
	}
}

/*
 * INT-11, INT-13, HPF-02, LOG-11: the progress fence is a native fence (spec 001, "Indicating
 * a native progress fence for hardware queues") and the progress write a GPU signal, so it is
 * logged like one, and a HWQueue-form interrupt, which tells the OS nothing but the queue, lets
 * the OS learn of it only from the queue's log: the waiter for progress 3 is released by the
 * entry the OS read, and that read also covers the two progress writes before it, which raised
 * no interrupt (INT-13). An OS that read the progress fence's CurrentValue instead, or a GPU
 * whose progress write left no entry, fails here.
 */
Test(interrupt_hwqueue, int_11_int_13_hpf_02_progress_writes_reach_the_os_through_the_log)
{
	struct progress_seen seen = {0};
	fsr_handle queue;
	uint64_t progress = 0;

	fsr_runtime_set_event_tap(fx.runtime, progress_tap, &seen);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	for (int i = 0; i < 3; i++)
		progress = fst_submit_work(fx.process, queue, 500);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
	fst_run_until_idle();
	fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);

	cr_assert_neq(seen.progress_fence, 0, "hwqueue_create names the progress fence");
	cr_expect_eq(seen.entries, 3, "LOG-11: one entry per progress write, all read");
	cr_expect_eq(seen.bad_entries, 0, "LOG-07: SIGNAL_EXECUTED entries of the signals log");
	cr_expect_eq(seen.highest_value, progress);
	cr_expect_geq(seen.hwqueue_released, 1, "INT-11: the HWQueue interrupt released the wait");
	cr_expect_eq(fst_last_completed(fx.process, queue), progress);
}
