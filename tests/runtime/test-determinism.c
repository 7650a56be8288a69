/* SPDX-License-Identifier: MIT */
/*
 * Sim mode is deterministic: the same seed and the same calls give the same sequence of
 * events, which the runtime folds into stats.trace_hash; another seed gives another one. The
 * workload draws its queues, durations, values and waits from fsr_runtime_random(), so the
 * seed reaches the model through the only door a scenario has.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"

TestSuite(determinism);

#define ROUNDS 40

static struct fsr_runtime_stats
run_workload(uint64_t seed)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;
	struct fst_wait_result results[ROUNDS] = {{0}};
	struct fsr_runtime_stats stats;
	fsr_handle queues[3];
	fsr_handle fences[2];
	uint64_t signalled[2] = {0, 0};

	fst_rt_config_init(&runtime_config, &adapter_config);
	runtime_config.seed = seed;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	queues[0] = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	queues[1] = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	queues[2] = fst_queue_new(fx.process, fx.context_copy, FSR_SUBMIT_KERNEL_MODE);
	fences[0] = fst_fence_new(fx.process, fx.device, 0);
	fences[1] = fst_fence_new(fx.process, fx.device, 0);

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t r = fsr_runtime_random(fx.runtime);
		int q = (int) (r % 3);
		int f = (int) ((r >> 8) & 1);
		struct fsr_cmdbuf *cmdbuf = NULL;

		cr_assert_eq(fsr_cmdbuf_create(fx.process, queues[q], &cmdbuf), FSR_OK);
		/* Wait for a value of the other fence that is already promised. */
		if (signalled[1 - f] > 0 && (r >> 9) & 1)
			cr_assert_eq(fsr_cmdbuf_wait(cmdbuf, fences[1 - f],
						     1 + (r >> 10) % signalled[1 - f]),
				     FSR_OK);
		cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1 + (r >> 16) % 5000), FSR_OK);
		signalled[f] += 1 + (r >> 32) % 3;
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fences[f], signalled[f]), FSR_OK);
		cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
		if ((r >> 40) % 3 == 0)
			cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fences[f], signalled[f],
							      (r >> 42) % 40000, fst_wait_record,
							      &results[i]),
				     FSR_OK);
		cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) +
								   (r >> 48) % 30000),
			     FSR_OK);
	}
	fst_run_until_idle();
	/* Each fence ends at the value of its last signal to run, which a slower queue may have
	 * recorded earlier: a GPU signal writes N (spec 001). Every buffer ran. */
	for (int q = 0; q < 3; q++)
		cr_assert_eq(fst_last_completed(fx.process, queues[q]),
			     fst_last_queued(fx.process, queues[q]), "the workload ran");
	stats = fst_stats();
	fst_rt_teardown();
	return stats;
}

Test(determinism, same_seed_gives_the_same_event_sequence)
{
	struct fsr_runtime_stats first = run_workload(42);
	struct fsr_runtime_stats second = run_workload(42);

	cr_assert_gt(first.events, 100, "a workload worth hashing");
	cr_expect_eq(first.trace_hash, second.trace_hash);
	cr_expect_eq(first.events, second.events);
	cr_expect_eq(first.steps, second.steps);
	cr_expect_eq(first.interrupts, second.interrupts);
	cr_expect_eq(first.log_entries_read, second.log_entries_read);
}

Test(determinism, another_seed_gives_another_event_sequence)
{
	struct fsr_runtime_stats first = run_workload(42);
	struct fsr_runtime_stats other = run_workload(43);

	cr_expect_neq(first.trace_hash, other.trace_hash);
}

Test(determinism, random_numbers_follow_the_seed)
{
	struct fsr_runtime_config config = {.clock_mode = FSR_CLOCK_SIM, .seed = 7};
	struct fsr_runtime *runtimes[3] = {NULL, NULL, NULL};

	cr_assert_eq(fsr_runtime_create(&config, &runtimes[0]), FSR_OK);
	cr_assert_eq(fsr_runtime_create(&config, &runtimes[1]), FSR_OK);
	config.seed = 8;
	cr_assert_eq(fsr_runtime_create(&config, &runtimes[2]), FSR_OK);
	for (int i = 0; i < 16; i++) {
		uint64_t a = fsr_runtime_random(runtimes[0]);

		cr_expect_eq(a, fsr_runtime_random(runtimes[1]), "draw %d", i);
		cr_expect_neq(a, fsr_runtime_random(runtimes[2]), "draw %d", i);
	}
	for (int i = 0; i < 3; i++)
		fsr_runtime_destroy(runtimes[i]);
}

/*
 * What the hash is for: it must change when any event, field or order changes, not only when
 * the number or kind of events does. Each pair below fires the same number of events and
 * differs in one field, in the order of two events, or in one event's name alone.
 */
enum hash_case {
	SIGNAL_5,
	SIGNAL_6,
	SIGNAL_A_THEN_B,
	SIGNAL_B_THEN_A,
	QUEUE_SIGNAL,
	QUEUE_WAIT,
};

static struct fsr_runtime_stats
run_hash_case(enum hash_case which)
{
	struct fsr_runtime_stats stats;
	struct fsr_cmdbuf *cmdbuf = NULL;
	fsr_handle queue;
	fsr_handle a;
	fsr_handle b;

	fst_rt_setup();
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	a = fst_fence_new(fx.process, fx.device, 0);
	b = fst_fence_new(fx.process, fx.device, 0);
	switch (which) {
	case SIGNAL_5:
	case SIGNAL_6:
		cr_assert_eq(fsr_fence_signal_cpu(fx.process, a, which == SIGNAL_5 ? 5 : 6),
			     FSR_OK);
		break;
	case SIGNAL_A_THEN_B:
	case SIGNAL_B_THEN_A:
		cr_assert_eq(fsr_fence_signal_cpu(fx.process, which == SIGNAL_A_THEN_B ? a : b, 1),
			     FSR_OK);
		cr_assert_eq(fsr_fence_signal_cpu(fx.process, which == SIGNAL_A_THEN_B ? b : a, 1),
			     FSR_OK);
		break;
	case QUEUE_SIGNAL:
	case QUEUE_WAIT:
		/* fence_signal_queued and fence_wait_queued carry the same fields (GPV-02). */
		cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
		cr_assert_eq(
		    (which == QUEUE_SIGNAL ? fsr_cmdbuf_signal : fsr_cmdbuf_wait)(cmdbuf, a, 1),
		    FSR_OK);
		fsr_cmdbuf_destroy(cmdbuf);
		break;
	}
	fst_run_until_idle();
	stats = fst_stats();
	fst_rt_teardown();
	return stats;
}

static void
expect_other_hash(enum hash_case one, enum hash_case other)
{
	struct fsr_runtime_stats first = run_hash_case(one);
	struct fsr_runtime_stats again = run_hash_case(one);
	struct fsr_runtime_stats second = run_hash_case(other);

	cr_assert_eq(first.events, second.events, "the same number of events");
	cr_expect_eq(first.trace_hash, again.trace_hash);
	cr_expect_neq(first.trace_hash, second.trace_hash);
}

Test(determinism, trace_hash_changes_with_one_field)
{
	expect_other_hash(SIGNAL_5, SIGNAL_6);
}

Test(determinism, trace_hash_changes_with_the_order_of_events)
{
	expect_other_hash(SIGNAL_A_THEN_B, SIGNAL_B_THEN_A);
}

Test(determinism, trace_hash_changes_with_an_event_name)
{
	expect_other_hash(QUEUE_SIGNAL, QUEUE_WAIT);
}
