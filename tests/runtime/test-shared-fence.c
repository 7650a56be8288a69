/* SPDX-License-Identifier: MIT */
/*
 * Shared native fences across processes (SHF): a global handle that another process opens to
 * get its own local handle, one CurrentValue seen by all of them, a fence that lives until
 * its last local handle is closed, and global handles that grant nothing until opened.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"

TestSuite(shared_fence, .init = fst_rt_setup, .fini = fst_rt_teardown);

static struct fsr_process *process_b;
static fsr_handle device_b;
static fsr_handle context_b;

static fsr_handle
create_shared(fsr_handle *global_handle)
{
	fsr_handle fence = 0;

	cr_assert_eq(
	    fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_SHARED, &fence, global_handle),
	    FSR_OK);
	fst_rt_add_process("b", &process_b, &device_b, &context_b);
	return fence;
}

Test(shared_fence, shf_02_opening_gives_a_local_handle_of_the_same_fence)
{
	fsr_handle global_handle = 0;
	fsr_handle fence_a = create_shared(&global_handle);
	fsr_handle fence_b = 0;

	cr_assert_eq(fsr_fence_open(process_b, device_b, global_handle, &fence_b), FSR_OK);
	cr_expect_neq(fence_a, global_handle);
	cr_expect_neq(fence_b, global_handle);
	/* Local handles are unique per process only (trace-format.md): each names the fence
	 * in its own process, as the reads and the closes below show. */
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, fence_a, 3), FSR_OK);
	cr_expect_eq(fst_fence_value(process_b, fence_b), 3);
}

Test(shared_fence, shf_08_a_signal_in_one_process_satisfies_a_wait_in_another)
{
	fsr_handle global_handle = 0;
	fsr_handle fence_a = create_shared(&global_handle);
	fsr_handle fence_b = 0;
	struct fst_wait_result result = {0};
	fsr_handle queue_b;

	cr_assert_eq(fsr_fence_open(process_b, device_b, global_handle, &fence_b), FSR_OK);
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fence_a, 7, FSR_INFINITE, fst_wait_record,
					      &result),
		     FSR_OK);
	cr_expect_eq(fst_monitored_value(process_b, fence_b), 6, "one MonitoredValue");

	cr_assert_eq(fsr_fence_signal_cpu(process_b, fence_b, 5), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, fence_a), 5);
	cr_expect_eq(result.call_count, 0);

	/* From B's GPU too. */
	queue_b = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	fst_submit_signal(process_b, queue_b, fence_b, 7);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, fence_a), 7);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_OK);
	cr_expect_eq(result.observed_value, 7);
}

Test(shared_fence, shf_03_shf_04_fence_lives_until_its_last_handle_closes)
{
	fsr_handle global_handle = 0;
	fsr_handle fence_a = create_shared(&global_handle);
	fsr_handle fence_b = 0;
	fsr_handle reopened = 0;

	cr_assert_eq(fsr_fence_open(process_b, device_b, global_handle, &fence_b), FSR_OK);
	cr_assert_eq(fsr_fence_signal_cpu(process_b, fence_b, 2), FSR_OK);

	cr_assert_eq(fsr_fence_close(fx.process, fence_a), FSR_OK);
	cr_expect_eq(fsr_fence_read(fx.process, fence_a, NULL), FSR_ERR_INVALID_HANDLE,
		     "A's handle is gone");
	cr_expect_eq(fst_fence_value(process_b, fence_b), 2, "B's still works");
	cr_expect_eq(fsr_fence_signal_cpu(process_b, fence_b, 3), FSR_OK);
	cr_expect_eq(fsr_fence_wait_cpu(process_b, fence_b, 3, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	/* SHF-03: the global handle stays valid while B holds the fence. */
	cr_expect_eq(fsr_fence_open(fx.process, fx.device, global_handle, &reopened), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, reopened), 3);
	cr_assert_eq(fsr_fence_close(fx.process, reopened), FSR_OK);

	cr_assert_eq(fsr_fence_close(process_b, fence_b), FSR_OK);
	cr_expect_eq(fsr_fence_read(process_b, fence_b, NULL), FSR_ERR_INVALID_HANDLE);
	/* SHF-04: gone with its last handle. */
	cr_expect_neq(fsr_fence_open(process_b, device_b, global_handle, &reopened), FSR_OK);
}

Test(shared_fence, shf_03_fence_outlives_the_process_that_created_it)
{
	fsr_handle global_handle = 0;
	fsr_handle fence_b = 0;
	struct fst_wait_result result = {0};
	fsr_handle queue_b;

	create_shared(&global_handle);
	cr_assert_eq(fsr_fence_open(process_b, device_b, global_handle, &fence_b), FSR_OK);
	cr_assert_eq(fsr_process_terminate(fx.process, false), FSR_OK);
	fx.process = NULL;

	queue_b = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(process_b, fence_b, 4, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	fst_submit_signal(process_b, queue_b, fence_b, 4);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(process_b, fence_b), 4);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_OK);
}

Test(shared_fence, opening_a_fence_that_is_not_shared_is_denied)
{
	fsr_handle global_handle = 0;
	fsr_handle fence = 0;
	fsr_handle opened = 0;

	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, 0, &fence, &global_handle), FSR_OK);
	fst_rt_add_process("b", &process_b, &device_b, NULL);
	cr_expect_eq(fsr_fence_open(process_b, device_b, global_handle, &opened),
		     FSR_ERR_ACCESS_DENIED);
	cr_expect_eq(fsr_fence_wait_cpu(process_b, global_handle, 0, 0, FSR_WAIT_BLOCKING),
		     FSR_ERR_ACCESS_DENIED);
}

Test(shared_fence, global_handle_used_without_opening_is_denied)
{
	fsr_handle global_handle = 0;
	fsr_handle fence_a = create_shared(&global_handle);
	fsr_handle queue_b = fst_queue_new(process_b, context_b, FSR_SUBMIT_USER_MODE);
	struct fst_wait_result result = {0};
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t value = 0;

	cr_expect_eq(fsr_fence_wait_cpu(process_b, global_handle, 1, 0, FSR_WAIT_BLOCKING),
		     FSR_ERR_ACCESS_DENIED);
	cr_expect_eq(fsr_fence_wait_cpu_async(process_b, global_handle, 1, FSR_INFINITE,
					      fst_wait_record, &result),
		     FSR_ERR_ACCESS_DENIED);
	cr_expect_eq(result.call_count, 0, "a refused call runs no callback");
	cr_expect_eq(fsr_fence_signal_cpu(process_b, global_handle, 1), FSR_ERR_ACCESS_DENIED);
	cr_expect_eq(fsr_fence_read(process_b, global_handle, &value), FSR_ERR_ACCESS_DENIED);
	cr_expect_eq(fsr_fence_close(process_b, global_handle), FSR_ERR_ACCESS_DENIED);

	cr_assert_eq(fsr_cmdbuf_create(process_b, queue_b, &cmdbuf), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_wait(cmdbuf, global_handle, 1), FSR_ERR_ACCESS_DENIED);
	cr_expect_eq(fsr_cmdbuf_signal(cmdbuf, global_handle, 1), FSR_ERR_ACCESS_DENIED);
	fsr_cmdbuf_destroy(cmdbuf);

	/* Nothing happened to the fence, and A's own handle still works. */
	cr_expect_eq(fst_fence_value(fx.process, fence_a), 0);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fence_a, 1), FSR_OK);
}
