/* SPDX-License-Identifier: MIT */
/*
 * Interrupt coalescing (adapter config interrupt_coalesce_ns): a native fence signaled
 * interrupt stays pending on the GPU's line for that long, and the signals of the same engine
 * that need one meanwhile join it. The fence-array form then names every fence signalled since
 * (INT-04), and collapses to the NULL array past FSR_MAX_INTERRUPT_FENCES (INT-06); the HWQueue
 * form covers every log entry of its queue (INT-13) and becomes the NULL-HWQueue form when a
 * second queue signals (INT-12). Either way every fence is covered (INT-07) and the OS releases
 * every waiter. The interrupts are seen where they reach the driver: a wrapped
 * DxgkDdiInterruptRoutine (docs/driver-interface.md), white-box through runtime-private.h.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

#define COALESCE_NS 10000 /* 10 µs: every signal of one command buffer without work joins */
#define MAX_SEEN    64

struct seen_interrupt {
	enum fstp_interrupt_form form;
	fsr_handle queue;
	uint32_t fence_count;
	fsr_handle fences[FSR_MAX_INTERRUPT_FENCES];
};

static struct dxgk_ddi reference;
static struct seen_interrupt seen[MAX_SEEN];
static size_t seen_count;

/* The driver's routine, after noting what each native fence signaled interrupt carries. */
static void
recording_interrupt_routine(void *miniport, struct hw_interrupt *interrupt)
{
	if (!interrupt->is_retirement &&
	    interrupt->type == FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED) {
		struct seen_interrupt *s = &seen[seen_count];

		cr_assert_lt(seen_count, MAX_SEEN);
		seen_count++;
		s->form = interrupt->form;
		s->queue = interrupt->queue ? interrupt->queue->handle : 0;
		s->fence_count = interrupt->fence_count;
		for (uint32_t i = 0; i < interrupt->fence_count; i++)
			s->fences[i] = interrupt->fences[i];
	}
	reference.DxgkDdiInterruptRoutine(miniport, interrupt);
}

/* The fixture, on an adapter whose interrupt routine is recorded. */
static void
setup_with(enum fsr_interrupt_form form, uint64_t coalesce_ns)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	struct dxgk_ddi ddi;

	kmd_driver_entry(&reference);
	ddi = reference;
	ddi.DxgkDdiInterruptRoutine = recording_interrupt_routine;
	fst_rt_config_init(&runtime_config, &adapter_config);
	/* Only interrupts read the logs: no periodic read hides a missing one. */
	runtime_config.log_read_period_ns = FSR_INFINITE;
	adapter_config.interrupt_form = form;
	adapter_config.interrupt_coalesce_ns = coalesce_ns;
	fst_rt_setup_with_ddi(&runtime_config, &adapter_config, &ddi);
	seen_count = 0;
}

static void
setup_fence_array(void)
{
	setup_with(FSR_INTERRUPT_FENCE_ARRAY, COALESCE_NS);
}

static void
setup_fence_array_at_once(void)
{
	setup_with(FSR_INTERRUPT_FENCE_ARRAY, 0);
}

static void
setup_hwqueue(void)
{
	setup_with(FSR_INTERRUPT_HWQUEUE, COALESCE_NS);
}

TestSuite(coalesce, .init = setup_fence_array, .fini = fst_rt_teardown);
TestSuite(coalesce_off, .init = setup_fence_array_at_once, .fini = fst_rt_teardown);
TestSuite(coalesce_hwqueue, .init = setup_hwqueue, .fini = fst_rt_teardown);

/* `count` fences, each with a CPU waiter for 1 (MonitoredValue 0: a signal of 1 interrupts). */
static void
fences_with_waiters(size_t count, fsr_handle *fences, fsr_handle *global_handles,
		    struct fst_wait_result *results)
{
	for (size_t i = 0; i < count; i++) {
		cr_assert_eq(
		    fsr_fence_create(fx.process, fx.device, 0, 0, &fences[i], &global_handles[i]),
		    FSR_OK);
		cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fences[i], 1, FSR_INFINITE,
						      fst_wait_record, &results[i]),
			     FSR_OK);
	}
}

/* One command buffer that signals each fence to 1, back to back. */
static void
submit_signals(fsr_handle queue, const fsr_handle *fences, size_t count)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	for (size_t i = 0; i < count; i++)
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fences[i], 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
}

static bool
names(const struct seen_interrupt *s, fsr_handle global_handle)
{
	for (uint32_t i = 0; i < s->fence_count; i++)
		if (s->fences[i] == global_handle)
			return true;
	return false;
}

static void
expect_all_released(const struct fst_wait_result *results, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		cr_expect_eq(results[i].call_count, 1, "waiter %zu released once", i);
		cr_expect_eq(results[i].status, FSR_OK, "waiter %zu satisfied", i);
	}
}

Test(coalesce, int_04_one_interrupt_names_every_fence_signalled_while_it_was_pending)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[3], global_handles[3];
	struct fst_wait_result results[3] = {{0}};
	fsr_handle again[4];

	fences_with_waiters(3, fences, global_handles, results);
	/* The first fence twice: named once. */
	again[0] = fences[0];
	again[1] = fences[1];
	again[2] = fences[2];
	again[3] = fences[0];
	submit_signals(queue, again, 4);
	fst_run_until_idle();

	cr_assert_eq(seen_count, 1, "the signals share one interrupt");
	cr_expect_eq(seen[0].form, FSTP_INTERRUPT_FORM_FENCE_ARRAY);
	cr_expect_eq(seen[0].fence_count, 3, "INT-04: every fence signalled, each once");
	for (size_t i = 0; i < 3; i++)
		cr_expect(names(&seen[0], global_handles[i]), "INT-07: fence %zu is named", i);
	cr_expect_eq(seen[0].queue, queue, "one queue signalled");
	expect_all_released(results, 3);
}

Test(coalesce, int_06_int_07_more_fences_than_the_array_holds_collapse_to_the_null_array)
{
	enum { COUNT = FSR_MAX_INTERRUPT_FENCES + 1 };
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[COUNT], global_handles[COUNT];
	struct fst_wait_result results[COUNT] = {{0}};

	fences_with_waiters(COUNT, fences, global_handles, results);
	submit_signals(queue, fences, COUNT);
	fst_run_until_idle();

	cr_assert_eq(seen_count, 1);
	cr_expect_eq(seen[0].form, FSTP_INTERRUPT_FORM_NULL_ARRAY,
		     "INT-06: the GPU cannot tell the subset any more");
	cr_expect_eq(seen[0].fence_count, 0);
	expect_all_released(results, COUNT); /* INT-07: the OS scans every waiter */
}

Test(coalesce, int_02_a_signal_after_the_interrupt_went_up_raises_a_new_one)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[2], global_handles[2];
	struct fst_wait_result results[2] = {{0}};

	fences_with_waiters(2, fences, global_handles, results);
	fst_submit_signal(fx.process, queue, fences[0], 1);
	fst_submit_work(fx.process, queue, COALESCE_NS); /* 100 µs at 100 MHz: past the window */
	fst_submit_signal(fx.process, queue, fences[1], 1);
	fst_run_until_idle();

	cr_assert_eq(seen_count, 2);
	cr_expect_eq(seen[0].fence_count, 1);
	cr_expect_eq(seen[0].fences[0], global_handles[0]);
	cr_expect_eq(seen[1].fence_count, 1);
	cr_expect_eq(seen[1].fences[0], global_handles[1]);
	expect_all_released(results, 2);
}

Test(coalesce_off, int_04_without_coalescing_every_signal_raises_its_own_interrupt)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[3], global_handles[3];
	struct fst_wait_result results[3] = {{0}};

	fences_with_waiters(3, fences, global_handles, results);
	submit_signals(queue, fences, 3);
	fst_run_until_idle();

	cr_assert_eq(seen_count, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_expect_eq(seen[i].form, FSTP_INTERRUPT_FORM_FENCE_ARRAY);
		cr_expect_eq(seen[i].fence_count, 1);
		cr_expect_eq(seen[i].fences[0], global_handles[i]);
	}
	expect_all_released(results, 3);
}

Test(coalesce_hwqueue, int_13_signals_of_one_queue_share_one_hwqueue_interrupt)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[2], global_handles[2];
	struct fst_wait_result results[2] = {{0}};

	fences_with_waiters(2, fences, global_handles, results);
	submit_signals(queue, fences, 2);
	fst_run_until_idle();

	cr_assert_eq(seen_count, 1);
	cr_expect_eq(seen[0].form, FSTP_INTERRUPT_FORM_HWQUEUE);
	cr_expect_eq(seen[0].queue, queue, "INT-11: the queue that signalled");
	expect_all_released(results, 2); /* INT-13: through its log */
}

Test(coalesce_hwqueue, int_12_signals_of_two_queues_collapse_to_the_null_hwqueue_form)
{
	fsr_handle first = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle second = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fences[2], global_handles[2];
	struct fst_wait_result results[2] = {{0}};

	fences_with_waiters(2, fences, global_handles, results);
	submit_signals(first, &fences[0], 1);
	submit_signals(second, &fences[1], 1);
	fst_run_until_idle();

	cr_assert_eq(seen_count, 1);
	cr_expect_eq(seen[0].form, FSTP_INTERRUPT_FORM_NULL_HWQUEUE,
		     "INT-12: the GPU cannot name one queue");
	cr_expect_eq(seen[0].queue, 0);
	expect_all_released(results, 2); /* the OS read every queue of the engine */
}
