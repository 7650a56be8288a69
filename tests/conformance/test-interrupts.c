/* SPDX-License-Identifier: MIT */
/*
 * Conformance: interrupts (INT), held against the driver under test through the public API and
 * the event tap. Every interrupt the GPU raises must reach the OS through the driver's
 * interrupt routine in the form the adapter has (INT-01, INT-02, INT-11, INT-14), and the OS
 * handles each form as the spec says: a NULL array scans every waiter (INT-06), a queue handle
 * reads every log entry written since the last read (INT-13). No periodic log read runs here,
 * so that only interrupts release waiters.
 */
#include <criterion/criterion.h>

#include "conformance.h"
#include "fencescope-tp-enums.h"

/* interrupt_handled: adapter, engine, type, form, queue, fence_count, released */
enum { HANDLED_TYPE = 2, HANDLED_FORM = 3, HANDLED_QUEUE = 4, HANDLED_RELEASED = 6 };

static void
setup_form(enum fsr_interrupt_form form)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fsc_config_init(&runtime_config, &adapter_config);
	runtime_config.log_read_period_ns = FSR_INFINITE;
	adapter_config.interrupt_form = form;
	fsc_setup_with(&runtime_config, &adapter_config);
}

static void
setup_fence_array(void)
{
	setup_form(FSR_INTERRUPT_FENCE_ARRAY);
}

static void
setup_null_array(void)
{
	setup_form(FSR_INTERRUPT_NULL_ARRAY);
}

static void
setup_hwqueue(void)
{
	setup_form(FSR_INTERRUPT_HWQUEUE);
}

TestSuite(int_fence_array, .init = setup_fence_array, .fini = fsc_teardown);
TestSuite(int_null_array, .init = setup_null_array, .fini = fsc_teardown);
TestSuite(int_hwqueue, .init = setup_hwqueue, .fini = fsc_teardown);

/* Waits (async) for `value` of each of `count` fences, then signals them all in one buffer. */
static void
wait_then_signal(fsr_handle queue, const fsr_handle *fences, struct fst_wait_result *results,
		 int count, uint64_t value)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	for (int i = 0; i < count; i++)
		cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fences[i], value, FSR_INFINITE,
						      fst_wait_record, &results[i]),
			     FSR_OK);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	for (int i = 0; i < count; i++)
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fences[i], value), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
}

static void
expect_released(const struct fst_wait_result *results, int count, uint64_t value)
{
	for (int i = 0; i < count; i++) {
		cr_expect_eq(results[i].call_count, 1, "waiter %d released once", i);
		cr_expect_eq(results[i].status, FSR_OK, "waiter %d", i);
		cr_expect_eq(results[i].observed_value, value, "waiter %d", i);
	}
}

Test(int_fence_array, int_02_signal_above_monitored_value_interrupts_and_releases_the_waiter)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fst_wait_result result = {0};
	size_t mark = fsc_event_count();

	fst_submit_signal(fx.process, queue, fence, 1);
	fst_run_until_idle();
	cr_expect_eq(fsc_count(mark, "fencescope_hw:interrupt_raise", FSC_ANY, 0), 0,
		     "no waiter: MonitoredValue is UINT64_MAX, no interrupt");

	/* A waiter for 3: MonitoredValue is 2, and a signal of 2 is not above it. */
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 3, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	mark = fsc_event_count();
	fst_submit_signal(fx.process, queue, fence, 2);
	fst_run_until_idle();
	cr_expect_eq(fsc_count(mark, "fencescope_hw:interrupt_raise", FSC_ANY, 0), 0,
		     "a signal equal to MonitoredValue raises none");
	cr_expect_eq(result.call_count, 0);

	mark = fsc_event_count();
	fst_submit_signal(fx.process, queue, fence, 3);
	fst_run_until_idle();
	cr_expect_eq(fsc_count(mark, "fencescope_hw:interrupt_raise", FSC_ANY, 0), 1);
	cr_expect_eq(fsc_count(mark, "fencescope_os:interrupt_handled", HANDLED_TYPE,
			       FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED),
		     1, "the interrupt reached the OS through the driver's routine");
	expect_released(&result, 1, 3);
}

/*
 * INT-04, INT-14: without the OptimizedNativeFenceSignaledInterrupt cap, an adapter of the
 * fence-array form names the signalled fence in each native fence interrupt, never a HWQueue.
 */
Test(int_fence_array, int_04_int_14_without_the_cap_interrupts_name_the_fence)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[2] = {fst_fence_new(fx.process, fx.device, 0),
				fst_fence_new(fx.process, fx.device, 0)};
	struct fst_wait_result results[2] = {{0}};
	size_t mark = fsc_event_count();
	size_t handled_count = 0;

	wait_then_signal(queue, fences, results, 2, 1);
	fst_run_until_idle();
	for (size_t i = fsc_find(mark, "fencescope_os:interrupt_handled", HANDLED_TYPE,
				 FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED);
	     i != FSC_NONE; i = fsc_find(i + 1, "fencescope_os:interrupt_handled", HANDLED_TYPE,
					 FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED)) {
		handled_count++;
		cr_expect_eq(fsc_event_at(i)->fields[HANDLED_FORM], FSTP_INTERRUPT_FORM_FENCE_ARRAY,
			     "event %zu: a fence array", i);
		cr_expect_eq(fsc_event_at(i)->fields[5], 1, "event %zu: of one fence", i);
	}
	cr_expect_eq(handled_count, 2, "one per signal above MonitoredValue");
	expect_released(results, 2, 1);
}

Test(int_fence_array, int_01_kernel_mode_work_completes_through_dma_completed_interrupts)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	size_t mark = fsc_event_count();
	uint64_t progress = fst_submit_work(fx.process, queue, 100);

	fst_run_until_idle();
	cr_expect_eq(fst_last_completed(fx.process, queue), progress);
	cr_expect_geq(fsc_count(mark, "fencescope_os:interrupt_handled", HANDLED_TYPE,
				FSTP_INTERRUPT_TYPE_DMA_COMPLETED),
		      1);
}

/*
 * INT-06: a NULL array tells the OS nothing of which fences moved, so it scans every waiter.
 * Both waiters are released by that scan, before the OS reads any log of the engine: a log
 * tells the OS where a signal ran and when, not whom to wake.
 */
Test(int_null_array, int_06_null_array_interrupt_scans_every_waiter_before_reading_logs)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[2] = {fst_fence_new(fx.process, fx.device, 0),
				fst_fence_new(fx.process, fx.device, 0)};
	struct fst_wait_result results[2] = {{0}};
	size_t mark = fsc_event_count();
	size_t handled, first_log_entry;

	wait_then_signal(queue, fences, results, 2, 1);
	fst_run_until_idle();
	expect_released(results, 2, 1);

	handled = fsc_find(mark, "fencescope_os:interrupt_handled", HANDLED_FORM,
			   FSTP_INTERRUPT_FORM_NULL_ARRAY);
	cr_assert_neq(handled, FSC_NONE);
	cr_expect_eq(fsc_event_at(handled)->fields[HANDLED_RELEASED], 2,
		     "the first interrupt's scan released both");
	first_log_entry = fsc_find(mark, "fencescope_os:fence_log_entry", FSC_ANY, 0);
	for (int i = 0; i < 2; i++) {
		size_t released = fsc_find(mark, "fencescope_os:cpu_wait_end", 2, fences[i]);

		if (released == FSC_NONE || released > first_log_entry)
			fsc_dump_events(mark);
		cr_assert_neq(released, FSC_NONE);
		cr_expect_lt(released, first_log_entry, "waiter %d released by the scan", i);
	}
}

/*
 * INT-11, INT-14: under the OptimizedNativeFenceSignaledInterrupt cap every native fence
 * interrupt names the HWQueue that ran the signal (not a fence array), and the OS reads that
 * queue's log.
 */
Test(int_hwqueue, int_11_int_14_interrupts_name_the_hwqueue_under_the_optimized_cap)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[2] = {fst_fence_new(fx.process, fx.device, 0),
				fst_fence_new(fx.process, fx.device, 0)};
	struct fst_wait_result results[2] = {{0}};
	size_t mark = fsc_event_count();
	size_t handled_count = 0;

	wait_then_signal(queue, fences, results, 2, 1);
	fst_run_until_idle();
	for (size_t i = fsc_find(mark, "fencescope_os:interrupt_handled", FSC_ANY, 0);
	     i != FSC_NONE; i = fsc_find(i + 1, "fencescope_os:interrupt_handled", FSC_ANY, 0)) {
		const struct fsc_event *handled = fsc_event_at(i);

		if (handled->fields[HANDLED_TYPE] != FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED)
			continue;
		handled_count++;
		cr_expect_eq(handled->fields[HANDLED_FORM], FSTP_INTERRUPT_FORM_HWQUEUE,
			     "event %zu: the HWQueue form", i);
		cr_expect_eq(handled->fields[HANDLED_QUEUE], queue, "event %zu: names the queue",
			     i);
	}
	cr_expect_geq(handled_count, 1);
	cr_expect_geq(fsc_count(mark, "fencescope_os:fence_log_read", 1, queue), 1);
	expect_released(results, 2, 1);
}

/*
 * INT-13: one HWQueue interrupt covers every entry the queue logged since the OS's last read.
 * Both signals run before the OS handles the first interrupt, which releases both waiters:
 * the second finds nothing new.
 */
Test(int_hwqueue, int_13_one_hwqueue_interrupt_covers_every_entry_since_the_last_read)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[2] = {fst_fence_new(fx.process, fx.device, 0),
				fst_fence_new(fx.process, fx.device, 0)};
	struct fst_wait_result results[2] = {{0}};
	size_t mark = fsc_event_count();
	size_t handled;

	wait_then_signal(queue, fences, results, 2, 1);
	fst_run_until_idle();
	expect_released(results, 2, 1);
	handled = fsc_find(mark, "fencescope_os:interrupt_handled", HANDLED_TYPE,
			   FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED);
	cr_assert_neq(handled, FSC_NONE);
	/* Both signals, and the progress writes of the buffers (HPF-02) that ran by then. */
	cr_expect_geq(fsc_count(mark, "fencescope_os:fence_log_entry", 1, FSTP_LOG_TYPE_SIGNALS),
		      2);
	if (fsc_event_at(handled)->fields[HANDLED_RELEASED] != 2)
		fsc_dump_events(mark);
	cr_expect_eq(fsc_event_at(handled)->fields[HANDLED_RELEASED], 2,
		     "the first interrupt released the waiters of both entries");
}
