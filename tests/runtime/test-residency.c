/* SPDX-License-Identifier: MIT */
/*
 * Residency of a user-mode queue's ring buffer and ring buffer control allocations (spec 000,
 * RES-01 to RES-06; docs/runtime.md "Residency as built"). The UMD makes the two allocations,
 * makes them resident, names them in the queue and in its doorbell; the tap tells when the OS
 * frees their storage (allocation_destroy) and when it evicts or makes them resident
 * (allocation_residency); the OS's reference counts are read white-box.
 */
#include <signal.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/common-private.h"
#include "fencescope-test.h"
#include "runtime-fixture.h"

#define RING_BYTES (64u * 32u)

struct residency_log {
	fsr_handle watched[8];
	uint32_t watched_count;
	uint32_t destroyed[8]; /* allocation_destroy per watched allocation */
	uint32_t residency[8]; /* allocation_residency per watched allocation */
};

static struct residency_log res_log;

static int
watched_index(uint64_t handle)
{
	for (uint32_t i = 0; i < res_log.watched_count; i++)
		if (res_log.watched[i] == handle)
			return (int) i;
	return -1;
}

static void
tap(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct residency_log *log = user_data;
	int i;

	(void) field_count;
	if (strcmp(name, "fencescope_os:allocation_destroy") == 0 &&
	    (i = watched_index(fields[1])) >= 0)
		log->destroyed[i]++;
	else if (strcmp(name, "fencescope_os:allocation_residency") == 0 &&
		 (i = watched_index(fields[1])) >= 0)
		log->residency[i]++;
}

static void
setup_residency(enum fsr_doorbell_model model, uint32_t physical)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	memset(&res_log, 0, sizeof(res_log));
	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.doorbell_model = model;
	adapter_config.physical_doorbells = physical;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	fsr_runtime_set_event_tap(fx.runtime, tap, &res_log);
}

static void
teardown_residency(void)
{
	if (fx.runtime)
		fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	fst_rt_teardown();
}

TestSuite(residency, .fini = teardown_residency);

/* A ring buffer and a ring buffer control of `device`, watched by the tap, resident or not. */
static void
make_ring_allocations(fsr_handle device, bool is_resident, fsr_handle *ring, fsr_handle *control)
{
	cr_assert_eq(fsr_allocation_create(fx.process, device, RING_BYTES, ring), FSR_OK);
	cr_assert_eq(fsr_allocation_create(fx.process, device, 16, control), FSR_OK);
	res_log.watched[res_log.watched_count++] = *ring;
	res_log.watched[res_log.watched_count++] = *control;
	if (is_resident) {
		cr_assert_eq(fsr_allocation_make_resident(fx.process, *ring), FSR_OK);
		cr_assert_eq(fsr_allocation_make_resident(fx.process, *control), FSR_OK);
	}
}

static fsr_status
queue_on(fsr_handle context, fsr_handle ring, fsr_handle control, fsr_handle *queue)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE,
					    .ring_allocation = ring,
					    .ring_control_allocation = control};

	return fsr_hwqueue_create(fx.process, context, &config, queue);
}

/* A user-mode queue of the 3D context on new resident ring allocations, with its doorbell. */
static fsr_handle
queue_with_doorbell(fsr_handle *ring, fsr_handle *control)
{
	fsr_handle queue = 0;

	make_ring_allocations(fx.device, true, ring, control);
	cr_assert_eq(queue_on(fx.context_3d, *ring, *control, &queue), FSR_OK);
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, *ring, *control), FSR_OK);
	return queue;
}

Test(residency, res_01_create_doorbell_on_non_resident_ring_allocations_is_refused)
{
	fsr_handle ring, control, queue = 0, other_ring, other_control;

	setup_residency(FSR_DOORBELL_DEDICATED, 4);
	/* Not resident yet: the queue itself refuses them (it would run from them). */
	make_ring_allocations(fx.device, false, &ring, &control);
	cr_assert_eq(queue_on(fx.context_3d, ring, control, &queue), FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_allocation_make_resident(fx.process, ring), FSR_OK);
	cr_assert_eq(fsr_allocation_make_resident(fx.process, control), FSR_OK);
	cr_assert_eq(queue_on(fx.context_3d, ring, control, &queue), FSR_OK);

	/* Evicted under it: CreateDoorbell refuses, whichever of the two is not resident. */
	cr_assert_eq(fsr_test_allocation_evict(fx.process, ring), FSR_OK);
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, ring, control), FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, 0, 0), FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_allocation_make_resident(fx.process, ring), FSR_OK);
	cr_assert_eq(fsr_test_allocation_evict(fx.process, control), FSR_OK);
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, ring, control), FSR_ERR_BAD_STATE);
	cr_assert_eq(fsr_allocation_make_resident(fx.process, control), FSR_OK);

	/* Allocations that are not the queue's are refused too. */
	make_ring_allocations(fx.device, true, &other_ring, &other_control);
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, other_ring, other_control),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, control, ring),
		     FSR_ERR_INVALID_ARGUMENT);

	/* Resident, and the queue's: created, and the queue runs through it. */
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, ring, control), FSR_OK);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 1);
}

Test(residency, res_02_destroying_the_doorbell_does_not_free_the_ring_allocations)
{
	fsr_handle ring, control, queue;

	setup_residency(FSR_DOORBELL_DEDICATED, 4);
	queue = queue_with_doorbell(&ring, &control);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fsr_doorbell_destroy(fx.process, queue), FSR_OK);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	cr_assert_eq(res_log.destroyed[0] + res_log.destroyed[1], 0,
		     "the doorbell and the queue went, the UMD's handles keep the allocations");
	/* They live until the UMD frees them: still resident, still named by their handles. */
	cr_assert_eq(fsr_allocation_make_resident(fx.process, ring), FSR_OK);
	cr_assert_eq(fsr_allocation_destroy(fx.process, ring), FSR_OK);
	cr_assert_eq(res_log.destroyed[0], 1);
	cr_assert_eq(fsr_allocation_destroy(fx.process, control), FSR_OK);
	cr_assert_eq(res_log.destroyed[1], 1);
	cr_assert_eq(fsr_allocation_destroy(fx.process, ring), FSR_ERR_INVALID_HANDLE);
}

Test(residency, res_03_a_umd_free_during_the_doorbells_lifetime_does_not_release_the_storage)
{
	fsr_handle ring, control, queue;
	struct os_hwqueue *os_queue;
	struct os_allocation *ring_allocation, *control_allocation;

	setup_residency(FSR_DOORBELL_DEDICATED, 4);
	queue = queue_with_doorbell(&ring, &control);
	os_queue = fst_borrow_queue(queue);
	ring_allocation = os_queue->ring_allocation;
	control_allocation = os_queue->ring_control_allocation;
	/* The UMD's handle, the queue and the doorbell. */
	cr_assert_eq(ring_allocation->refs, 3);
	cr_assert_eq(control_allocation->refs, 3);

	cr_assert_eq(fsr_allocation_destroy(fx.process, ring), FSR_OK);
	cr_assert_eq(fsr_allocation_destroy(fx.process, control), FSR_OK);
	cr_assert_eq(res_log.destroyed[0] + res_log.destroyed[1], 0);
	/* The ring is still the queue's: written, rung and run. */
	fst_submit_work(fx.process, queue, 10);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 2);
	cr_assert_eq(fsr_doorbell_destroy(fx.process, queue), FSR_OK);
	cr_assert_eq(res_log.destroyed[0] + res_log.destroyed[1], 0,
		     "the storage outlived the doorbell's references only through the queue's");
	cr_assert_eq(ring_allocation->refs, 1);
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	cr_assert_eq(res_log.destroyed[0], 1);
	cr_assert_eq(res_log.destroyed[1], 1);
}

Test(residency, res_04_device_termination_frees_the_ring_allocations_left)
{
	fsr_handle device, context, ring, control, spare, spare_control, queue = 0;

	setup_residency(FSR_DOORBELL_DEDICATED, 4);
	cr_assert_eq(fsr_device_create(fx.process, fx.adapter_id, &device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, device, 0, &context), FSR_OK);
	make_ring_allocations(device, true, &ring, &control);
	make_ring_allocations(device, false, &spare, &spare_control);
	cr_assert_eq(queue_on(context, ring, control, &queue), FSR_OK);
	cr_assert_eq(fsr_doorbell_create(fx.process, queue, ring, control), FSR_OK);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	/* The OS frees nothing on its own before the device goes. */
	cr_assert_eq(fsr_hwqueue_destroy(fx.process, queue), FSR_OK);
	for (uint32_t i = 0; i < 4; i++)
		cr_assert_eq(res_log.destroyed[i], 0);
	cr_assert_eq(fsr_device_destroy(fx.process, device), FSR_OK);
	for (uint32_t i = 0; i < 4; i++)
		cr_assert_eq(res_log.destroyed[i], 1, "allocation %u freed with its device", i);
	cr_assert_eq(fsr_allocation_destroy(fx.process, ring), FSR_ERR_INVALID_HANDLE);
}

/*
 * RES-05: evicted (as the D3 power-down does once the context is suspended), the ring keeps
 * its storage and the UMD keeps writing it and ringing; made resident again and resumed, all of
 * it runs.
 */
Test(residency, res_05_the_ring_stays_writable_while_evicted)
{
	fsr_handle ring, control, queue;
	struct os_hwqueue *os_queue;
	struct hw_packet *storage;

	setup_residency(FSR_DOORBELL_DEDICATED, 4);
	queue = queue_with_doorbell(&ring, &control);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	os_queue = fst_borrow_queue(queue);
	storage = os_queue->ring;
	cr_assert_eq(fsr_context_suspend(fx.process, fx.context_3d), FSR_OK);
	cr_assert_eq(fsr_test_allocation_evict(fx.process, ring), FSR_OK);
	cr_assert_eq(fsr_test_allocation_evict(fx.process, control), FSR_OK);
	cr_assert_eq(res_log.residency[0], 2, "made resident, then evicted");
	for (int i = 0; i < 3; i++)
		fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_queued(fx.process, queue), 4);
	cr_assert_eq(os_queue->ring, storage, "the UMD's view did not move");
	cr_assert_eq(fsr_allocation_make_resident(fx.process, ring), FSR_OK);
	cr_assert_eq(fsr_allocation_make_resident(fx.process, control), FSR_OK);
	cr_assert_eq(fsr_context_resume(fx.process, fx.context_3d), FSR_OK);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 4);
}

/*
 * RES-05, RES-06: a victimized doorbell's queue keeps its ring resident and mapped — no
 * residency change at the disconnect — and writes it while its status is RETRY.
 */
Test(residency, res_05_res_06_victimization_neither_evicts_nor_unmaps_the_ring)
{
	fsr_handle ring, control, queue, other_ring, other_control, other;
	enum fsr_doorbell_status status = FSR_DOORBELL_CONNECTED;
	struct os_hwqueue *os_queue;
	struct hw_packet *storage;

	setup_residency(FSR_DOORBELL_DEDICATED, 1);
	queue = queue_with_doorbell(&ring, &control);
	other = queue_with_doorbell(&other_ring, &other_control);
	os_queue = fst_borrow_queue(queue);
	storage = os_queue->ring;
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	fst_submit_work(fx.process, other, 10); /* victimizes the first queue's doorbell */
	cr_assert_eq(fsr_doorbell_get_status(fx.process, queue, &status), FSR_OK);
	cr_assert_eq(status, FSR_DOORBELL_DISCONNECTED_RETRY);
	cr_assert_eq(res_log.residency[0], 1, "made resident once, never evicted");
	cr_assert_eq(res_log.residency[1], 1);
	cr_assert(atomic_load(&os_queue->ring_allocation->is_resident));
	cr_assert_eq(os_queue->ring, storage);
	/* Written while RETRY: the ring meets the dummy page, the UMD reconnects, it runs. */
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fst_last_completed(fx.process, queue), 2);
	cr_assert_eq(fst_last_completed(fx.process, other), 1);
}

Test(residency, res_01_ring_allocations_of_another_device_or_too_small_are_refused)
{
	fsr_handle device, ring, control, small, queue = 0;

	setup_residency(FSR_DOORBELL_DEDICATED, 4);
	cr_assert_eq(fsr_device_create(fx.process, fx.adapter_id, &device), FSR_OK);
	make_ring_allocations(device, true, &ring, &control);
	cr_assert_eq(queue_on(fx.context_3d, ring, control, &queue), FSR_ERR_INVALID_ARGUMENT);
	make_ring_allocations(fx.device, true, &ring, &control);
	cr_assert_eq(fsr_allocation_create(fx.process, fx.device, 8, &small), FSR_OK);
	cr_assert_eq(fsr_allocation_make_resident(fx.process, small), FSR_OK);
	cr_assert_eq(queue_on(fx.context_3d, ring, small, &queue), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(queue_on(fx.context_3d, ring, 0, &queue), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(queue_on(fx.context_3d, ring, ring, &queue), FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(fsr_allocation_create(fx.process, fx.device, 0, &small),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_assert_eq(queue_on(fx.context_3d, ring, control, &queue), FSR_OK);
}

/* The hardware's own check: a fetch from an evicted ring is a precondition failure (abort). */
Test(residency, the_gpu_never_fetches_from_a_ring_that_is_not_resident, .signal = SIGABRT)
{
	fsr_handle ring, control, queue;

	setup_residency(FSR_DOORBELL_DEDICATED, 4);
	queue = queue_with_doorbell(&ring, &control);
	fst_submit_work(fx.process, queue, 10);
	fst_run_until_idle();
	cr_assert_eq(fsr_test_allocation_evict(fx.process, ring), FSR_OK);
	fst_submit_work(fx.process, queue, 10); /* not suspended: the engine fetches */
	fst_run_until_idle();
}
