/* SPDX-License-Identifier: MIT */
/*
 * Input from outside, refused where it enters: unknown or stale handles, handles of the wrong
 * kind, command buffers a buggy or hostile UMD wrote, requests the adapter cannot serve.
 * Each refusal returns its status, changes nothing, and leaves the runtime working: every
 * test ends by running a normal submit and wait.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"

TestSuite(bad_input, .init = fst_rt_setup, .fini = fst_rt_teardown);

#define BOGUS_HANDLE UINT64_C(0x4000dead)

/* Packet types as the runtime lays them out (runtime-private.h); a raw one is a UMD's bug. */
#define RAW_WORK   2u
#define RAW_WAIT   3u
#define RAW_SIGNAL 4u

static void
check_runtime_still_works(void)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	uint64_t progress = fst_submit_signal(fx.process, queue, fence, 1);

	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, FSR_INFINITE, FSR_WAIT_BLOCKING),
		     FSR_OK);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
}

Test(bad_input, unknown_handles_are_invalid)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
	struct fst_wait_result result = {0};
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_handle handle = 0;
	uint64_t value = 0;

	cr_expect_eq(fsr_fence_read(fx.process, BOGUS_HANDLE, &value), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, BOGUS_HANDLE, 1), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, BOGUS_HANDLE, 1, 0, FSR_WAIT_BLOCKING),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_wait_cpu_async(fx.process, BOGUS_HANDLE, 1, FSR_INFINITE,
					      fst_wait_record, &result),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(result.call_count, 0);
	cr_expect_eq(fsr_fence_close(fx.process, BOGUS_HANDLE), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_create(fx.process, BOGUS_HANDLE, 0, 0, &handle, NULL),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_context_create(fx.process, BOGUS_HANDLE, 0, &handle),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_hwqueue_create(fx.process, BOGUS_HANDLE, &config, &handle),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_hwqueue_get_progress(fx.process, BOGUS_HANDLE, &value, &value),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, BOGUS_HANDLE, 1, 0),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_hwqueue_destroy(fx.process, BOGUS_HANDLE), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_cmdbuf_create(fx.process, BOGUS_HANDLE, &cmdbuf), FSR_ERR_INVALID_HANDLE);
	cr_expect_null(cmdbuf);
	cr_expect_eq(fsr_context_destroy(fx.process, BOGUS_HANDLE), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_device_destroy(fx.process, BOGUS_HANDLE), FSR_ERR_INVALID_HANDLE);
	check_runtime_still_works();
}

Test(bad_input, handles_of_the_wrong_kind_are_invalid)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t value = 0;

	cr_expect_eq(fsr_fence_read(fx.process, queue, &value), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fx.device, 1), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_hwqueue_get_progress(fx.process, fence, &value, &value),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_cmdbuf_create(fx.process, fx.context_3d, &cmdbuf), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_context_destroy(fx.process, fx.device), FSR_ERR_INVALID_HANDLE);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_signal(cmdbuf, queue, 1), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_cmdbuf_wait(cmdbuf, fx.context_3d, 1), FSR_ERR_INVALID_HANDLE);
	fsr_cmdbuf_destroy(cmdbuf);
	check_runtime_still_works();
}

Test(bad_input, closed_fence_handle_is_refused_everywhere)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t value = 0;

	cr_assert_eq(fsr_fence_close(fx.process, fence), FSR_OK);
	cr_expect_eq(fsr_fence_read(fx.process, fence, &value), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_signal_cpu(fx.process, fence, 1), FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, 0, FSR_WAIT_POLLING),
		     FSR_ERR_INVALID_HANDLE);
	cr_expect_eq(fsr_fence_close(fx.process, fence), FSR_ERR_INVALID_HANDLE, "closed once");
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_ERR_INVALID_HANDLE);
	fsr_cmdbuf_destroy(cmdbuf);
	check_runtime_still_works();
}

Test(bad_input, fence_closed_while_a_queued_signal_names_it_is_signalled_harmlessly)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	cr_assert_eq(fsr_fence_close(fx.process, fence), FSR_OK);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
	check_runtime_still_works();
}

/* Submits a buffer holding a valid signal and one bad raw packet: refused, nothing queued. */
static void
check_raw_packet_is_refused(uint32_t type, uint32_t flags, uint64_t a, uint64_t b, uint64_t c)
{
	fsr_handle queues[2] = {fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE),
				fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE)};

	for (int q = 0; q < 2; q++) {
		fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
		struct fsr_cmdbuf *cmdbuf = NULL;
		uint64_t progress = 0;

		fst_submit_work(fx.process, queues[q], 10);
		fst_run_until_idle();
		cr_assert_eq(fsr_cmdbuf_create(fx.process, queues[q], &cmdbuf), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, 5), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_raw(cmdbuf, type, flags, a, b, c), FSR_OK);
		cr_expect_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_ERR_MALFORMED_PACKET,
			     "packet type %u, queue %d", type, q);
		fst_run_until_idle();
		cr_expect_eq(fst_last_queued(fx.process, queues[q]), 1, "nothing was queued");
		cr_expect_eq(fst_last_completed(fx.process, queues[q]), 1);
		cr_expect_eq(fst_fence_value(fx.process, fence), 0, "its signal did not run");

		/* The next valid buffer takes the value the refused one had. */
		cr_expect_eq(fst_submit_signal(fx.process, queues[q], fence, 1), 2);
		fst_run_until_idle();
		cr_expect_eq(fst_last_completed(fx.process, queues[q]), 2);
		cr_expect_eq(fst_fence_value(fx.process, fence), 1);
	}
	check_runtime_still_works();
}

Test(bad_input, raw_packet_of_unknown_type_is_malformed)
{
	check_raw_packet_is_refused(99, 0, 0, 0, 0);
}

Test(bad_input, raw_fence_signal_packet_is_malformed)
{
	fsr_handle global_handle = 0;
	fsr_handle fence = 0;

	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, 0, &fence, &global_handle), FSR_OK);
	check_raw_packet_is_refused(RAW_SIGNAL, 0, global_handle, 9, fence);
	cr_expect_eq(fst_fence_value(fx.process, fence), 0);
}

Test(bad_input, raw_fence_wait_packet_is_malformed)
{
	fsr_handle global_handle = 0;
	fsr_handle fence = 0;

	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, 0, &fence, &global_handle), FSR_OK);
	check_raw_packet_is_refused(RAW_WAIT, 0, global_handle, 1, fence);
}

Test(bad_input, raw_work_packet_with_bad_fields_is_malformed)
{
	check_raw_packet_is_refused(RAW_WORK, 0, 0, 0, 0);          /* zero ticks */
	check_raw_packet_is_refused(RAW_WORK, 1, 10, 0, 0);         /* flags */
	check_raw_packet_is_refused(RAW_WORK, 0, UINT64_MAX, 0, 0); /* a runaway duration */
}

Test(bad_input, raw_work_packet_is_accepted)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t start = fsr_runtime_now_ns(fx.runtime);
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_raw(cmdbuf, RAW_WORK, 0, 1000, 0, 0), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
	cr_expect_geq(fsr_runtime_now_ns(fx.runtime) - start, 10000, "it ran for 1000 ticks");
}

Test(bad_input, ums_05_user_mode_queue_on_the_copy_engine_is_not_supported)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
	fsr_handle queue = 0;

	cr_expect_eq(fsr_hwqueue_create(fx.process, fx.context_copy, &config, &queue),
		     FSR_ERR_NOT_SUPPORTED);
	cr_expect_eq(queue, 0, "no handle on failure");
	/* UMS-01: the copy engine still takes kernel-mode queues. */
	queue = fst_queue_new(fx.process, fx.context_copy, FSR_SUBMIT_KERNEL_MODE);
	cr_expect_eq(fsr_hwqueue_wait_progress(
			 fx.process, queue, fst_submit_work(fx.process, queue, 10), FSR_INFINITE),
		     FSR_OK);
	check_runtime_still_works();
}

Test(bad_input, ums_05_user_mode_queue_on_a_node_without_the_flag_is_not_supported)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_adapter_config adapter_config;
	fsr_handle device, context, queue = 0;
	uint32_t adapter_id;

	fsr_adapter_config_init(&adapter_config);
	adapter_config.engines_without_user_mode_submission = 1u << 1; /* the compute node */
	cr_assert_eq(fsr_adapter_create(fx.runtime, &adapter_config, &adapter_id), FSR_OK);
	cr_assert_eq(fsr_device_create(fx.process, adapter_id, &device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, device, 1, &context), FSR_OK);
	cr_expect_eq(fsr_hwqueue_create(fx.process, context, &config, &queue),
		     FSR_ERR_NOT_SUPPORTED);
	cr_expect_eq(queue, 0, "no handle on failure");
	/* UMS-01: the node still takes kernel-mode queues. */
	queue = fst_queue_new(fx.process, context, FSR_SUBMIT_KERNEL_MODE);
	cr_expect_eq(fsr_hwqueue_wait_progress(
			 fx.process, queue, fst_submit_work(fx.process, queue, 10), FSR_INFINITE),
		     FSR_OK);
	check_runtime_still_works();
}

/* The emulated GPU's doorbells as fsr_adapter_config can describe them, and no other. */
Test(bad_input, adapter_config_with_impossible_doorbells_is_refused)
{
	struct fsr_adapter_config good, bad;
	uint32_t adapter_id = 0;

	fsr_adapter_config_init(&good);
	bad = good;
	bad.physical_doorbells = 2; /* a global doorbell is one doorbell (UMS-17) */
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_ERR_INVALID_ARGUMENT);
	bad = good;
	bad.doorbell_model = FSR_DOORBELL_DEDICATED;
	bad.physical_doorbells = FSR_MAX_PHYSICAL_DOORBELLS + 1;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_ERR_INVALID_ARGUMENT);
	bad = good;
	bad.doorbell_model = (enum fsr_doorbell_model) 3;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_ERR_INVALID_ARGUMENT);
	bad = good;
	bad.doorbell_size_bytes = 12; /* UMS-06: not a power of two */
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_ERR_INVALID_ARGUMENT);
	bad.doorbell_size_bytes = FSR_MAX_DOORBELL_BYTES * 2;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_ERR_INVALID_ARGUMENT);
	bad.doorbell_size_bytes = FSR_MIN_DOORBELL_BYTES / 2;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_ERR_INVALID_ARGUMENT);
	bad = good;
	bad.engines_without_user_mode_submission = 1u << good.engine_count; /* no such engine */
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(adapter_id, 0, "no adapter made");
	/* The smallest dedicated GPU, and the defaults (0), are accepted. */
	bad = good;
	bad.doorbell_model = FSR_DOORBELL_DEDICATED;
	bad.physical_doorbells = 1;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_OK);
	bad = good;
	bad.doorbell_model = FSR_DOORBELL_NONE;
	bad.physical_doorbells = 0;
	bad.doorbell_size_bytes = 0;
	cr_expect_eq(fsr_adapter_create(fx.runtime, &bad, &adapter_id), FSR_OK);
	check_runtime_still_works();
}

/*
 * UMS-26: a user-mode queue waits on and signals native fences only. The runtime has no other
 * kind of fence: a fence handle is a native fence, and anything else a UMD names in a wait or a
 * signal — another object's handle, a handle of nothing — is refused, with nothing recorded (a
 * fence instruction written raw is refused at submission: raw_fence_*_packet_is_malformed).
 */
Test(bad_input, ums_26_user_mode_queue_waits_on_and_signals_only_native_fences)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	const fsr_handle not_fences[] = {queue, fx.device, fx.context_3d, BOGUS_HANDLE};
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	for (size_t i = 0; i < sizeof(not_fences) / sizeof(not_fences[0]); i++) {
		cr_expect_eq(fsr_cmdbuf_wait(cmdbuf, not_fences[i], 1), FSR_ERR_INVALID_HANDLE);
		cr_expect_eq(fsr_cmdbuf_signal(cmdbuf, not_fences[i], 1), FSR_ERR_INVALID_HANDLE);
	}
	/* The native fence is taken, and the buffer holds only what was accepted. */
	cr_expect_eq(fsr_cmdbuf_signal(cmdbuf, fence, 1), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_OK);
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, progress, FSR_INFINITE), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, fence), 1);
	check_runtime_still_works();
}

Test(bad_input, bad_arguments_are_refused)
{
	struct fsr_ums_caps caps;
	struct fsr_hwqueue_config bad_mode = {.mode = (enum fsr_submission_mode) 7};
	struct fsr_hwqueue_config bad_ring = {.mode = FSR_SUBMIT_USER_MODE, .ring_size_bytes = 33};
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle fence = fst_fence_new(fx.process, fx.device, 0);
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_handle handle = 0;

	cr_expect_eq(fsr_fence_create(fx.process, fx.device, 0, 0x80, &handle, NULL),
		     FSR_ERR_INVALID_ARGUMENT, "unknown flag");
	cr_expect_eq(fsr_fence_wait_cpu(fx.process, fence, 1, 0, (enum fsr_wait_mode) 9),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_fence_wait_cpu_async(fx.process, fence, 1, FSR_INFINITE, NULL, NULL),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fst_monitored_value(fx.process, fence), UINT64_MAX, "no waiter was added");
	cr_expect_eq(fsr_hwqueue_create(fx.process, fx.context_3d, &bad_mode, &handle),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_hwqueue_create(fx.process, fx.context_3d, &bad_ring, &handle),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_hwqueue_create(fx.process, fx.context_3d, NULL, &handle),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_context_create(fx.process, fx.device, 3, &handle),
		     FSR_ERR_INVALID_ARGUMENT, "the adapter has 3 engines");
	cr_expect_eq(fsr_device_create(fx.process, 5, &handle), FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_adapter_query_ums_caps(fx.runtime, 5, &caps), FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_adapter_query_ums_caps(fx.runtime, fx.adapter_id, NULL),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_adapter_query_ums_caps(NULL, fx.adapter_id, &caps),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_work(cmdbuf, 0), FSR_ERR_INVALID_ARGUMENT);
	cr_expect_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK, "the refused work left no trace");
	cr_expect_eq(fsr_cmdbuf_submit(NULL, NULL), FSR_ERR_INVALID_ARGUMENT);
	check_runtime_still_works();
}

Test(bad_input, hpf_01_buffers_submitted_out_of_order_are_refused)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_cmdbuf *first = NULL;
	struct fsr_cmdbuf *second = NULL;
	uint64_t progress = 0;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &first), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &second), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_submit(second, NULL), FSR_ERR_BAD_STATE);
	cr_expect_eq(fst_last_queued(fx.process, queue), 0);
	cr_expect_eq(fsr_cmdbuf_submit(first, &progress), FSR_OK);
	cr_expect_eq(progress, 1);
	cr_expect_eq(fst_submit_work(fx.process, queue, 10), 2, "no hole where the refused was");
	cr_expect_eq(fsr_hwqueue_wait_progress(fx.process, queue, 2, FSR_INFINITE), FSR_OK);
	check_runtime_still_works();
}

Test(bad_input, submitting_to_a_destroyed_queue_is_refused)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 10), FSR_OK);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	cr_expect_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_ERR_DESTROYED);
	check_runtime_still_works();
}
