/* SPDX-License-Identifier: MIT */
/*
 * Conformance: native fence logs (LOG), seen through the event tap. Each user-mode queue gets
 * one waits log and one signals log, handed to the driver (LOG-01, LOG-03), kernel-mode queues
 * none (LOG-02); the OS declares an overrun only when the log position moved by more than the
 * capacity since its last read (LOG-17).
 */
#include <criterion/criterion.h>

#include "conformance.h"
#include "fencescope-tp-enums.h"

#define SMALL_LOG 8

static void
setup_small_logs(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fsc_config_init(&runtime_config, &adapter_config);
	runtime_config.log_read_period_ns = FSR_INFINITE; /* reads: on destroy only */
	adapter_config.log_capacity_entries = SMALL_LOG;
	fsc_setup_with(&runtime_config, &adapter_config);
}

TestSuite(log, .init = fsc_setup, .fini = fsc_teardown);
TestSuite(log_small, .init = setup_small_logs, .fini = fsc_teardown);

/* set_fence_log_buffer: adapter, queue, type, capacity, generation */
Test(log, log_01_log_03_each_user_mode_queue_hands_the_driver_two_logs)
{
	size_t mark = fsc_event_count();
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	size_t waits =
	    fsc_find(mark, "fencescope_kmd:set_fence_log_buffer", 2, FSTP_LOG_TYPE_WAITS);
	size_t signals =
	    fsc_find(mark, "fencescope_kmd:set_fence_log_buffer", 2, FSTP_LOG_TYPE_SIGNALS);

	cr_expect_eq(fsc_count(mark, "fencescope_kmd:set_fence_log_buffer", 1, queue), 2);
	cr_assert_neq(waits, FSC_NONE);
	cr_assert_neq(signals, FSC_NONE);
	cr_expect_lt(waits, signals, "the waits log first");
	cr_expect_eq(fsc_event_at(waits)->fields[3], 4096 / 32, "4 KB of 32-byte entries");
	cr_expect_eq(fsc_event_at(signals)->fields[3], 4096 / 32);

	mark = fsc_event_count();
	fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	cr_expect_eq(fsc_count(mark, "fencescope_kmd:set_fence_log_buffer", FSC_ANY, 0), 0,
		     "LOG-02: a kernel-mode queue has no log");
}

/*
 * Submits one buffer of `count - 1` signals nobody waits for (no interrupt, no read): `count`
 * entries with its progress write (HPF-02, LOG-11). Then the last read.
 */
static size_t
signal_then_destroy(uint64_t count)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;
	size_t mark;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	for (uint64_t i = 1; i < count; i++)
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, i), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_fence_value(fx.process, fence), count - 1);
	mark = fsc_event_count();
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	return mark;
}

Test(log_small, log_17_advance_of_exactly_the_capacity_is_no_overrun)
{
	size_t mark = signal_then_destroy(SMALL_LOG);

	cr_expect_eq(fsc_count(mark, "fencescope_os:fence_log_overrun", FSC_ANY, 0), 0);
	cr_expect_eq(fsc_count(mark, "fencescope_os:fence_scan", FSC_ANY, 0), 0,
		     "no fallback scan (LOG-18)");
	cr_expect_eq(fsc_count(mark, "fencescope_os:fence_log_entry", 1, FSTP_LOG_TYPE_SIGNALS),
		     SMALL_LOG, "every entry read");
	cr_expect_eq(fst_stats().log_entries_lost, 0);
}

/* fence_log_overrun: adapter, queue, type, lost, capacity, cached, position */
Test(log_small, log_17_advance_of_one_more_than_the_capacity_loses_one)
{
	size_t mark = signal_then_destroy(SMALL_LOG + 1);
	size_t overrun = fsc_find(mark, "fencescope_os:fence_log_overrun", FSC_ANY, 0);

	cr_assert_neq(overrun, FSC_NONE);
	cr_expect_eq(fsc_event_at(overrun)->fields[2], FSTP_LOG_TYPE_SIGNALS);
	cr_expect_eq(fsc_event_at(overrun)->fields[3], 1, "one entry lost");
	cr_expect_eq(fsc_count(mark, "fencescope_os:fence_log_overrun", FSC_ANY, 0), 1);
	cr_expect_eq(fst_stats().log_entries_lost, 1);
}

/*
 * LOG-01: a log holds 4 KB of entries, as many as the OS handed the driver: 128 entries (127
 * signals and the buffer's progress write, HPF-02) nobody reads until the queue's last read
 * lose nothing, 129 lose one.
 */
Test(log, log_01_a_log_holds_the_4_kb_the_os_gave_it)
{
	const uint64_t capacity = 4096 / 32;

	for (uint64_t extra = 0; extra < 2; extra++) {
		fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
		fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
		struct fsr_cmdbuf *cmdbuf = NULL;
		uint64_t lost = fst_stats().log_entries_lost;
		size_t mark;

		cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
		for (uint64_t i = 1; i < capacity + extra; i++)
			cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, i), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
		fst_run_until_idle();
		mark = fsc_event_count();
		cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
		cr_expect_eq(fst_stats().log_entries_lost - lost, extra, "%llu signals",
			     (unsigned long long) (capacity + extra));
		cr_expect_eq(
		    fsc_count(mark, "fencescope_os:fence_log_entry", 1, FSTP_LOG_TYPE_SIGNALS),
		    capacity);
	}
}
