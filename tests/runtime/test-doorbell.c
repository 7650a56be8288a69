/* SPDX-License-Identifier: MIT */
/*
 * Doorbells of user-mode queues (spec 000, UMS-08 to UMS-25; docs/runtime.md "User-mode
 * submission"). The victimization test imitates i915's intel_guc_steal_guc_ids selftest: shrink
 * the pool to 2 physical doorbells, make 5 queues want one, submit round robin, and check from
 * the event tap that the steals happened in the documented LRU order, that every submission ran
 * exactly once and in write-pointer order per queue, and — at every event, and under sim-mode
 * interleaving at every point — that no physical doorbell served two queues and no more
 * doorbells were connected than there are physical ones. The global model runs 64 queues.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "hw/hw-private.h"
#include "runtime-fixture.h"

#define MAX_QUEUES  64
#define MAX_VICTIMS 512

/* ---- what the tap sees -------------------------------------------------------------------- */

struct doorbell_log {
	fsr_handle queues[MAX_QUEUES];
	uint32_t queue_count;
	/* doorbell_victimize: (victim, beneficiary) as queue indices, in order */
	uint32_t victims[MAX_VICTIMS][2];
	uint32_t victim_count;
	/* packet_end per queue: the progress values completed, in order */
	uint64_t completed[MAX_QUEUES][32];
	uint32_t completed_count[MAX_QUEUES];
	/* the physical doorbells' owners as the OS's connect and disconnect events tell them */
	uint32_t owner[FSR_MAX_PHYSICAL_DOORBELLS]; /* queue index + 1, 0 when free */
	uint32_t connected;
	uint32_t max_connected;
	uint32_t shared_doorbell; /* a connect on a physical doorbell another queue held */
	uint32_t connects;
	uint32_t notifies;
	uint32_t physical_seen_nonzero; /* global model: a connect on another than doorbell 0 */
	bool is_global;
	/* the interleaving observer's findings */
	uint64_t checks;
	uint32_t mapping_of_other_owner; /* a queue mapped on a physical doorbell it does not own */
	uint32_t mapped_over_physical;   /* more queues mapped on physical doorbells than exist */
	uint32_t dummy_reads_connected;  /* a dummy-page mapping with a CONNECTED status word */
};

static struct doorbell_log db_log;

static uint32_t
queue_index(fsr_handle handle)
{
	for (uint32_t i = 0; i < db_log.queue_count; i++)
		if (db_log.queues[i] == handle)
			return i;
	return UINT32_MAX;
}

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct doorbell_log *log = user_data;

	(void) field_count;
	if (strcmp(name, "fencescope_kmd:doorbell_victimize") == 0) {
		if (log->victim_count < MAX_VICTIMS) {
			log->victims[log->victim_count][0] = queue_index(fields[1]);
			log->victims[log->victim_count][1] = queue_index(fields[3]);
			log->victim_count++;
		}
	} else if (strcmp(name, "fencescope_kmd:doorbell_connect") == 0) {
		uint32_t q = queue_index(fields[1]);
		uint32_t k = (uint32_t) fields[3];

		log->connects++;
		if (k != 0)
			log->physical_seen_nonzero++;
		if (log->is_global)
			return;
		if (log->owner[k] != 0 && log->owner[k] != q + 1)
			log->shared_doorbell++;
		if (log->owner[k] != q + 1)
			log->connected++;
		log->owner[k] = q + 1;
		if (log->connected > log->max_connected)
			log->max_connected = log->connected;
	} else if (strcmp(name, "fencescope_kmd:doorbell_disconnect") == 0) {
		uint32_t q = queue_index(fields[1]);
		uint32_t k = (uint32_t) fields[3];

		if (!log->is_global && log->owner[k] == q + 1) {
			log->owner[k] = 0;
			log->connected--;
		}
	} else if (strcmp(name, "fencescope_umd:notify_work_submission") == 0) {
		log->notifies++;
	} else if (strcmp(name, "fencescope_hw:packet_end") == 0) {
		uint32_t q = queue_index(fields[2]);

		if (q != UINT32_MAX && log->completed_count[q] < 32)
			log->completed[q][log->completed_count[q]++] = fields[4];
	}
}

/*
 * UMS-21, at every interleaving point (the baton held: nothing moves): a queue whose mapping
 * names a physical doorbell is that doorbell's owner in the hardware, and no more queues are
 * mapped on physical doorbells than there are.
 */
static void
check_mappings(struct fsr_runtime *runtime, const char *actor, enum rt_point point, void *data)
{
	struct doorbell_log *log = data;
	struct fsr_adapter *adapter = runtime->adapters[0];
	uint32_t mapped = 0;

	(void) actor;
	(void) point;
	log->checks++;
	for (uint32_t e = 0; e < adapter->config.engine_count; e++) {
		for (struct os_hwqueue *q = adapter->user_queues[e]; q; q = q->next_user_queue) {
			uintptr_t page;

			if (!q->doorbell)
				continue;
			page = (uintptr_t) atomic_load(&q->doorbell->mapping);
			/*
			 * UMS-14: a ring that meets the dummy page is followed by a read of RETRY —
			 * the status is written before a rotation to the dummy page.
			 */
			if (page == (uintptr_t) &q->doorbell->dummy_page &&
			    atomic_load(&q->doorbell->status) <=
				FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD)
				log->dummy_reads_connected++;
			for (uint32_t k = 0; k < adapter->config.physical_doorbells; k++) {
				if (page != (uintptr_t) &adapter->gpu->doorbells[k].page)
					continue;
				mapped++;
				if (adapter->config.doorbell_model == FSR_DOORBELL_DEDICATED &&
				    adapter->gpu->doorbells[k].owner != q)
					log->mapping_of_other_owner++;
			}
		}
	}
	if (adapter->config.doorbell_model == FSR_DOORBELL_DEDICATED &&
	    mapped > adapter->config.physical_doorbells)
		log->mapped_over_physical++;
}

/* ---- setup -------------------------------------------------------------------------------- */

static void
setup_doorbells(enum fsr_doorbell_model model, uint32_t physical, uint32_t notify_engines,
		uint64_t interleave_seed)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	memset(&db_log, 0, sizeof(db_log));
	db_log.is_global = model == FSR_DOORBELL_GLOBAL;
	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.doorbell_model = model;
	adapter_config.physical_doorbells = physical;
	adapter_config.doorbell_notify_kmd_engines = notify_engines;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	fsr_runtime_set_event_tap(fx.runtime, tap, &db_log);
	if (interleave_seed) {
		cr_assert_eq(rt_interleave_enable(fx.runtime, interleave_seed, NULL, 0), FSR_OK);
		rt_interleave_set_observer(fx.runtime, check_mappings, &db_log);
	}
}

static void
teardown_doorbells(void)
{
	if (fx.runtime) {
		rt_interleave_set_observer(fx.runtime, NULL, NULL);
		fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	}
	fst_rt_teardown();
}

TestSuite(doorbell, .fini = teardown_doorbells);

/* `count` user-mode queues, alternating 3D and compute engines when `both_engines`. */
static void
make_queues(uint32_t count, bool both_engines)
{
	for (uint32_t i = 0; i < count; i++) {
		fsr_handle context = both_engines && (i % 2) ? fx.context_compute : fx.context_3d;

		db_log.queues[i] = fst_queue_new_without_doorbell(fx.process, context);
		cr_assert_eq(fsr_doorbell_create(fx.process, db_log.queues[i], 0, 0), FSR_OK);
	}
	db_log.queue_count = count;
}

/* Round robin: `rounds` buffers per queue, each some work and its progress write. */
static void
submit_round_robin(uint32_t rounds)
{
	for (uint32_t r = 0; r < rounds; r++)
		for (uint32_t i = 0; i < db_log.queue_count; i++)
			fst_submit_work(fx.process, db_log.queues[i], 10 + i);
}

/* Every submission ran exactly once, in write-pointer (= progress) order, per queue. */
static void
assert_each_ran_once_in_order(uint32_t rounds)
{
	for (uint32_t i = 0; i < db_log.queue_count; i++) {
		cr_assert_eq(db_log.completed_count[i], rounds, "queue %u ran %u buffers of %u", i,
			     db_log.completed_count[i], rounds);
		for (uint32_t n = 0; n < rounds; n++)
			cr_assert_eq(db_log.completed[i][n], n + 1, "queue %u: buffer %u ran %lu",
				     i, n, (unsigned long) db_log.completed[i][n]);
		cr_assert_eq(fst_last_completed(fx.process, db_log.queues[i]), rounds);
	}
}

/*
 * The design's LRU (docs/runtime.md, "Least recently used"): with 2 physical doorbells and 5
 * queues submitting round robin, every submission from the third on finds its doorbell taken,
 * reconnects, and victimizes queue (k − 2) mod 5.
 */
static void
assert_lru_steals(uint32_t rounds)
{
	uint32_t submissions = rounds * 5;

	cr_assert_eq(db_log.victim_count, submissions - 2);
	for (uint32_t s = 2; s < submissions; s++) {
		uint32_t k = s % 5;

		cr_assert_eq(db_log.victims[s - 2][1], k, "steal %u by queue %u", s - 2,
			     db_log.victims[s - 2][1]);
		cr_assert_eq(db_log.victims[s - 2][0], (k + 3) % 5, "steal %u took queue %u", s - 2,
			     db_log.victims[s - 2][0]);
	}
}

static void
steal_ids(uint64_t interleave_seed)
{
	const uint32_t rounds = 4;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 2, 0, interleave_seed);
	make_queues(5, false);
	submit_round_robin(rounds);
	fst_run_until_idle();
	assert_lru_steals(rounds);
	assert_each_ran_once_in_order(rounds);
	cr_assert_leq(db_log.max_connected, 2);
	cr_assert_eq(db_log.shared_doorbell, 0);
	cr_assert_eq(db_log.mapping_of_other_owner, 0);
	cr_assert_eq(db_log.mapped_over_physical, 0);
	cr_assert_eq(db_log.dummy_reads_connected, 0);
}

Test(doorbell, ums_22_ums_23_steal_ids_two_doorbells_five_queues_round_robin)
{
	steal_ids(0);
}

Test(doorbell, ums_14_ums_21_ums_22_steal_ids_under_interleaving_seed_sweep, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		steal_ids(seed);
		cr_assert_gt(db_log.checks, 0, "seed %lu: the observer never ran",
			     (unsigned long) seed);
		teardown_doorbells();
	}
}

Test(doorbell, ums_17_ums_18_ums_19_global_doorbell_64_queues_nothing_victimized)
{
	const uint32_t rounds = 3;

	setup_doorbells(FSR_DOORBELL_GLOBAL, 1, 0, 0);
	make_queues(64, true);
	submit_round_robin(rounds);
	fst_run_until_idle();
	cr_assert_eq(db_log.victim_count, 0);
	cr_assert_eq(db_log.connects, 64, "one connect per queue, none again");
	cr_assert_eq(db_log.physical_seen_nonzero, 0);
	assert_each_ran_once_in_order(rounds);
}

Test(doorbell, ums_18_global_doorbell_64_queues_under_interleaving, .timeout = 120)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		setup_doorbells(FSR_DOORBELL_GLOBAL, 1, 0, seed);
		make_queues(64, true);
		submit_round_robin(2);
		fst_run_until_idle();
		cr_assert_eq(db_log.victim_count, 0);
		assert_each_ran_once_in_order(2);
		teardown_doorbells();
	}
}

Test(doorbell, ums_08_ums_09_ums_10_create_maps_the_dummy_page_with_retry_and_touches_no_other)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_CONNECTED;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 2, 0, 0);
	make_queues(2, false);
	cr_assert_eq(fsr_doorbell_connect(fx.process, db_log.queues[0], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	cr_assert_eq(fsr_doorbell_connect(fx.process, db_log.queues[1], &status), FSR_OK);
	/* A third doorbell is created with both physical ones taken: nobody is disconnected. */
	db_log.queues[2] = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
	db_log.queue_count = 3;
	cr_assert_eq(fsr_doorbell_create(fx.process, db_log.queues[2], 0, 0), FSR_OK);
	cr_assert_eq(fsr_doorbell_get_status(fx.process, db_log.queues[2], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_RETRY);
	cr_assert_eq(db_log.victim_count, 0);
	cr_assert_eq(fsr_doorbell_get_status(fx.process, db_log.queues[0], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	cr_assert_eq(fsr_doorbell_get_status(fx.process, db_log.queues[1], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
}

Test(doorbell, ums_23_res_06_victim_reads_retry_and_its_reconnect_runs_what_it_wrote_meanwhile)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_CONNECTED;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 1, 0, 0);
	make_queues(2, false);
	fst_submit_work(fx.process, db_log.queues[0], 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, db_log.queues[0]), 1);
	/* Queue 1 takes the only doorbell: queue 0 reads RETRY. */
	fst_submit_work(fx.process, db_log.queues[1], 10);
	cr_assert_eq(db_log.victim_count, 1);
	cr_assert_eq(db_log.victims[0][0], 0);
	cr_assert_eq(db_log.victims[0][1], 1);
	cr_assert_eq(fsr_doorbell_get_status(fx.process, db_log.queues[0], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_RETRY);
	/* UMS-15: its next submission rings the dummy page, reconnects, and runs. */
	fst_submit_work(fx.process, db_log.queues[0], 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, db_log.queues[0]), 2);
	cr_assert_eq(fst_last_completed(fx.process, db_log.queues[1]), 1);
	cr_assert_eq(db_log.victim_count, 2);
}

Test(doorbell, ums_24_ums_25_notify_kmd_doorbell_runs_by_notification_one_per_ring)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_CONNECTED;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 2, 1u << 0, 0);
	make_queues(1, false);
	cr_assert_eq(fsr_doorbell_connect(fx.process, db_log.queues[0], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED_NOTIFY_KMD);
	submit_round_robin(3);
	fst_run_until_idle();
	cr_assert_eq(db_log.notifies, 3);
	assert_each_ran_once_in_order(3);
}

Test(doorbell, ums_11_doorbell_calls_are_refused_where_they_make_no_sense)
{
	fsr_handle kernel_queue;
	enum fsr_doorbell_status status;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 2, 0, 0);
	kernel_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	cr_assert_eq(fsr_doorbell_create(fx.process, kernel_queue, 0, 0), FSR_ERR_NOT_SUPPORTED);
	make_queues(1, false);
	cr_assert_eq(fsr_doorbell_create(fx.process, db_log.queues[0], 0, 0), FSR_ERR_BAD_STATE);
	db_log.queues[1] = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
	cr_assert_eq(fsr_doorbell_connect(fx.process, db_log.queues[1], &status),
		     FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_doorbell_destroy(fx.process, db_log.queues[1]), FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_hwqueue_notify_work_submission(fx.process, db_log.queues[1], 1),
		     FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_doorbell_create(fx.process, 0x1234, 0, 0), FSR_ERR_INVALID_HANDLE);
}

Test(doorbell, res_02_destroy_disconnects_and_the_queue_takes_no_more_work)
{
	struct fsr_cmdbuf *cmdbuf = NULL;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 2, 0, 0);
	make_queues(1, false);
	fst_submit_work(fx.process, db_log.queues[0], 10);
	cr_assert_eq(fsr_doorbell_destroy(fx.process, db_log.queues[0]), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, db_log.queues[0]), 1);
	cr_assert_eq(db_log.connected, 0);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, db_log.queues[0], &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_ERR_BAD_STATE);
	/* The queue still goes cleanly. */
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, db_log.queues[0]), FSR_OK);
}

Test(doorbell, trm_01_destroying_a_queue_with_a_connected_doorbell_waits_for_its_work)
{
	setup_doorbells(FSR_DOORBELL_DEDICATED, 2, 0, 0);
	make_queues(2, false);
	fst_submit_work(fx.process, db_log.queues[0], 1000);
	fst_submit_work(fx.process, db_log.queues[1], 1000);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, db_log.queues[0]), FSR_OK);
	cr_assert_eq(db_log.completed_count[0], 1);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, db_log.queues[1]), 1);
}

/*
 * The model's NO_FETCH_ON_DISCONNECT: a ring lands on a connected doorbell and its UMD reads
 * CONNECTED; the queue is victimized before the command processor services the ring. The
 * disconnect takes the victim's write pointer first, so the work still runs.
 */
Test(doorbell, ums_15_ums_23_a_ring_not_yet_serviced_survives_victimization)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_DISCONNECTED_RETRY;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 1, 0, 0);
	make_queues(2, false);
	cr_assert_eq(fsr_doorbell_connect(fx.process, db_log.queues[0], &status), FSR_OK);
	fst_submit_work(fx.process, db_log.queues[0], 10); /* rings the physical doorbell */
	cr_assert_eq(fsr_doorbell_get_status(fx.process, db_log.queues[0], &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	/* No engine has stepped: queue 1 takes the doorbell before the ring is serviced. */
	fst_submit_work(fx.process, db_log.queues[1], 10);
	cr_assert_eq(db_log.victim_count, 1);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, db_log.queues[0]), 1);
	cr_assert_eq(fst_last_completed(fx.process, db_log.queues[1]), 1);
}

/* The status and rotation events of one doorbell, in firing order. */
struct word_events {
	fsr_handle doorbell_queue;
	char order[256]; /* 'S' status to RETRY, 's' status to CONNECTED*, 'D' to dummy, 'P'
			    physical */
	size_t count;
};

static struct word_events word_log;

static void
word_tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct word_events *log = user_data;

	(void) field_count;
	if (fields[1] != log->doorbell_queue || log->count + 1 >= sizeof(log->order))
		return;
	if (strcmp(name, "fencescope_os:doorbell_status") == 0)
		log->order[log->count++] =
		    fields[4] <= FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD ? 's' : 'S';
	else if (strcmp(name, "fencescope_os:doorbell_rotate") == 0)
		log->order[log->count++] = fields[3] ? 'D' : 'P';
}

/*
 * UMS-14, UMS-12 on the OS's events: the status is written before a rotation to the dummy page
 * (victimization, destroy) and after a rotation to a physical doorbell (connect).
 */
Test(doorbell, ums_12_ums_14_status_before_the_dummy_page_and_after_the_physical_doorbell)
{
	setup_doorbells(FSR_DOORBELL_DEDICATED, 1, 0, 0);
	make_queues(2, false);
	memset(&word_log, 0, sizeof(word_log));
	word_log.doorbell_queue = db_log.queues[0];
	fsr_runtime_set_event_tap(fx.runtime, word_tap, &word_log);
	fst_submit_work(fx.process, db_log.queues[0], 10); /* connect */
	fst_submit_work(fx.process, db_log.queues[1], 10); /* victimizes queue 0 */
	fst_submit_work(fx.process, db_log.queues[0], 10); /* reconnects */
	cr_assert_eq(fsr_doorbell_destroy(fx.process, db_log.queues[0]), FSR_OK);
	fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	cr_assert_str_eq(word_log.order, "PsSDPsSD");
}

/* ---- a queue learns of work only from its doorbell (UMS-13) ------------------------------ */

TestSuite(doorbell_only, .init = fst_rt_setup, .fini = fst_rt_teardown);

Test(doorbell_only, ums_13_a_user_mode_queue_without_a_doorbell_refuses_work)
{
	fsr_handle queue = fst_queue_new_without_doorbell(fx.process, fx.context_3d);
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t progress = 0;

	fst_tap_start();
	cr_assert_eq(fsr_cmdbuf_create(fx.process, queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 10), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress), FSR_ERR_BAD_STATE);
	cr_assert_eq(fst_tap_count(0, "fencescope_os:call_failed", -1, 0), 1);
	cr_assert_eq(fst_tap_count(0, "fencescope_umd:ring_write", -1, 0), 0,
		     "nothing is written into a ring no doorbell announces");
	fst_run_until_idle();
	cr_assert_eq(fst_last_queued(fx.process, queue), 0);
	cr_assert_eq(atomic_load(&fst_borrow_queue(queue)->control->write_ptr_bytes), 0);
	/* With its doorbell connected the same queue takes work, from the value given back. */
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, 0, 0), FSR_OK);
	cr_assert_eq(fsr_doorbell_connect(fx.process, queue, NULL), FSR_OK);
	cr_assert_eq(fst_submit_work(fx.process, queue, 10), 1);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
}

Test(doorbell_only, ums_13_ring_writes_the_gpu_was_not_told_of_do_not_run)
{
	fsr_handle queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct os_hwqueue *os_queue = fst_borrow_queue(queue);

	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
	/*
	 * The write pointer moved by hand, as a UMD that advanced it and never rang: the engine,
	 * woken by a kernel-mode packet of another queue, runs none of it, since it does not
	 * poll the ring.
	 */
	atomic_store(&os_queue->control->write_ptr_bytes,
		     2 * atomic_load(&os_queue->control->write_ptr_bytes));
	fst_submit_work(fx.process,
			fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE), 10);
	fst_run_until_idle();
	cr_assert_eq(atomic_load(&os_queue->control->read_ptr_bytes),
		     atomic_load(&os_queue->control->write_ptr_bytes) / 2);
	/* Put back: the destroy's disconnect would take it and run the empty slots. */
	atomic_store(&os_queue->control->write_ptr_bytes,
		     atomic_load(&os_queue->control->read_ptr_bytes));
}

Test(doorbell_only, ums_08_ums_12_create_user_mode_makes_queue_doorbell_and_connect_in_order)
{
	struct fsr_hwqueue_config kernel_mode = {.mode = FSR_SUBMIT_KERNEL_MODE};
	fsr_handle queue = 0;
	const char *expected[] = {"fencescope_os:hwqueue_create", "fencescope_kmd:doorbell_create",
				  "fencescope_kmd:doorbell_connect"};
	size_t next = 0;

	fst_tap_start();
	cr_assert_eq(fsr_hwqueue_create_user_mode(fx.process, fx.context_3d, NULL, &queue), FSR_OK);
	for (size_t i = 0; i < fst_tap_event_count() && next < 3; i++)
		if (strcmp(fst_tap_event(i)->name, expected[next]) == 0)
			next++;
	cr_assert_eq(next, 3, "CreateHwQueue, CreateDoorbell, ConnectDoorbell, in that order");
	cr_assert_eq(fst_submit_work(fx.process, queue, 10), 1);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
	/* Not for a kernel-mode queue, nor on a node without user-mode submission (UMS-05). */
	cr_assert_eq(fsr_hwqueue_create_user_mode(fx.process, fx.context_3d, &kernel_mode, &queue),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_hwqueue_create_user_mode(fx.process, fx.context_copy, NULL, &queue),
		     FSR_ERR_NOT_SUPPORTED);
}

/*
 * UMS-13: a ring on a connected doorbell is what makes the GPU fetch — one connect, then each
 * submission's ring reads CONNECTED and the command processor takes the new write pointer.
 */
Test(doorbell, ums_13_each_ring_on_a_connected_doorbell_makes_the_gpu_fetch)
{
	enum fsr_doorbell_status status = FSR_DOORBELL_DISCONNECTED_RETRY;
	size_t mark;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 2, 0, 0);
	fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	make_queues(1, false);
	cr_assert_eq(fsr_doorbell_connect(fx.process, db_log.queues[0], &status), FSR_OK);
	fst_tap_start();
	mark = fst_tap_event_count();
	for (uint64_t n = 1; n <= 3; n++) {
		fst_submit_work(fx.process, db_log.queues[0], 10);
		fst_run_until_idle();
		cr_assert_eq(fst_last_completed(fx.process, db_log.queues[0]), n);
	}
	cr_assert_eq(fst_tap_count(mark, "fencescope_kmd:doorbell_connect", -1, 0), 0);
	cr_assert_eq(
	    fst_tap_count(mark, "fencescope_umd:doorbell_ring", 4, FSTP_DOORBELL_STATUS_CONNECTED),
	    3);
	cr_assert_eq(fst_tap_count(mark, "fencescope_hw:ring_fetch", 2, db_log.queues[0]), 3);
}

/* The stale ring: what the observer does and sees. */
static struct stale_ring {
	fsr_handle ringing; /* queue A: its UMD loads the mapping, then... */
	fsr_handle taking;  /* queue B: ...B's UMD connects, victimizing A, before A's store */
	bool is_armed;
	bool has_rotated;
	struct os_hwqueue *b;
	uint64_t rings_before; /* the physical doorbell's count before A's store */
	uint32_t fetch_past_write_ptr;
} stale;

static void
stale_ring_observer(struct fsr_runtime *runtime, const char *actor, enum rt_point point, void *data)
{
	enum fsr_doorbell_status status;

	(void) actor;
	(void) data;
	/* Never, at any point: B's command processor past B's write pointer. */
	if (stale.b && stale.b->fetched_ptr > atomic_load(&stale.b->control->write_ptr_bytes))
		stale.fetch_past_write_ptr++;
	if (!stale.is_armed || point != RT_POINT_UMD_RING_DOORBELL)
		return;
	/* A has loaded its mapping (physical doorbell 0): B's UMD takes the doorbell now. */
	stale.is_armed = false;
	stale.rings_before = atomic_load(&runtime->adapters[0]->gpu->doorbells[0].page.rings);
	cr_assert_eq(fsr_test_doorbell_connect_locked(fx.process, stale.taking, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_CONNECTED);
	stale.has_rotated = true;
}

/*
 * The stale ring (docs/runtime.md "Global and dedicated doorbells"; UMS-14, UMS-20, UMS-21):
 * one physical doorbell; queue A's UMD loads its mapping (the physical doorbell) and, before its
 * store through it (point umd-ring-doorbell), queue B's UMD connects and victimizes A. A's
 * store lands on the doorbell B owns now: a spurious notification of B — the GPU takes B's own
 * write pointer, never more — and A reads RETRY, reconnects, and its buffer runs, once.
 */
Test(doorbell, ums_14_ums_20_a_stale_ring_only_notifies_the_new_owner_spuriously)
{
	const struct rt_interleave_switch script[] = {
	    {"caller", RT_POINT_UMD_READ_DOORBELL_STATUS, 1, "engine0", RT_POINT_STEP_END},
	};
	enum fsr_doorbell_status status = FSR_DOORBELL_DISCONNECTED_RETRY;
	size_t mark;

	setup_doorbells(FSR_DOORBELL_DEDICATED, 1, 0, 0);
	fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	make_queues(2, false);
	memset(&stale, 0, sizeof(stale));
	stale.ringing = db_log.queues[0];
	stale.taking = db_log.queues[1];
	stale.b = fst_borrow_queue(stale.taking);
	fst_submit_work(fx.process, stale.taking, 10); /* B: one buffer, run */
	/* A: two, run, so that A's next write pointer is past anything B ever wrote. */
	fst_submit_work(fx.process, stale.ringing, 10);
	fst_submit_work(fx.process, stale.ringing, 10);
	cr_assert_eq(fsr_doorbell_connect(fx.process, stale.ringing, &status), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, stale.taking), 1);
	cr_assert_eq(fst_last_completed(fx.process, stale.ringing), 2);
	/*
	 * Interleaving with no random switch: the observer acts at A's ring, and the engine
	 * steps between A's store and A's read of the status — while B owns the doorbell.
	 */
	cr_assert_eq(rt_interleave_enable(fx.runtime, 0, script, 1), FSR_OK);
	rt_interleave_set_observer(fx.runtime, stale_ring_observer, NULL);
	fst_tap_start();
	mark = fst_tap_event_count();
	stale.is_armed = true;
	fst_submit_work(fx.process, stale.ringing, 10);
	cr_assert(stale.has_rotated, "the observer never met A's ring");
	cr_assert_eq(rt_interleave_fired(fx.runtime), 1, "the engine stepped after A's store");
	/* A's store landed on the physical doorbell, which B owned by then. */
	cr_assert_eq(atomic_load(&fx.runtime->adapters[0]->gpu->doorbells[0].page.rings),
		     stale.rings_before + 1);
	/* A read RETRY after its ring (UMS-14) and reconnected, victimizing B. */
	cr_assert_eq(fst_tap_count(mark, "fencescope_umd:doorbell_ring", 4,
				   FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY),
		     1);
	cr_assert_eq(fst_tap_count(mark, "fencescope_kmd:doorbell_victimize", -1, 0), 2);
	fst_run_until_idle();
	rt_interleave_set_observer(fx.runtime, NULL, NULL);
	cr_assert_eq(stale.fetch_past_write_ptr, 0);
	cr_assert_eq(fst_last_completed(fx.process, stale.ringing), 3);
	cr_assert_eq(fst_last_completed(fx.process, stale.taking), 1);
	cr_assert_eq(fst_tap_count(mark, "fencescope_hw:packet_end", 2, stale.ringing), 1);
	cr_assert_eq(fst_tap_count(mark, "fencescope_hw:packet_end", 2, stale.taking), 0);
}
