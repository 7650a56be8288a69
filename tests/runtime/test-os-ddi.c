/* SPDX-License-Identifier: MIT */
/*
 * How the OS uses the driver's fence DDIs, seen from a driver that records every call it gets
 * (a copy of the reference table whose entries note the call, then run the reference): a fence
 * stays alive while an interrupt naming it is in flight (INT-05), the OS calls
 * DxgkDdiUpdateNativeFenceLogs once per interrupt for every log with new entries before it
 * reads any entry (SYN-10), and creates, opens, closes and destroys native fences in the
 * order of SHF-01 and SHF-04. White-box: the test reads the OS's queued interrupts.
 */
#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

static struct dxgk_ddi reference;

/* The fixture, with an adapter whose driver is `ddi`, interrupts handled after 1 ms. */
static void
setup_with_ddi_logs(const struct dxgk_ddi *ddi, enum fsr_interrupt_form form,
		    uint32_t log_capacity_entries)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	runtime_config.interrupt_latency_ns = 1000000;
	adapter_config.interrupt_form = form;
	if (log_capacity_entries) {
		adapter_config.log_capacity_entries = log_capacity_entries;
		adapter_config.keep_log_size_when_tracing = false;
	}
	fst_rt_setup_with_ddi(&runtime_config, &adapter_config, ddi);
}

static void
setup_with_ddi(const struct dxgk_ddi *ddi, enum fsr_interrupt_form form)
{
	setup_with_ddi_logs(ddi, form, 0);
}

static void
init(void)
{
	kmd_driver_entry(&reference);
}

TestSuite(os_ddi, .init = init, .fini = fst_rt_teardown);

/* Steps the runtime until an interrupt is queued for the OS and not handled yet. */
static void
step_until_interrupt_queued(void)
{
	bool has_run = true;

	while (!fx.runtime->interrupts_head && has_run)
		cr_assert_eq(fsr_runtime_step(fx.runtime, &has_run), FSR_OK);
	cr_assert_not_null(fx.runtime->interrupts_head, "the GPU raised an interrupt");
}

/* What the recording driver saw, in order. */
enum call_kind { CALL_CREATE, CALL_OPEN, CALL_CLOSE, CALL_DESTROY, CALL_UPDATE_LOGS, CALL_SET_LOG };

struct call {
	enum call_kind kind;
	uint64_t global_handle;
	uint32_t process_id;
	uint64_t local_handle;
	uint32_t queue_count;
	bool has_queue_read_entries; /* UPDATE_LOGS: the OS had read an entry already */
	bool is_named_by_interrupt;  /* DESTROY: a queued interrupt still named the fence */
	bool has_watched_queue;      /* UPDATE_LOGS: names a queue of watched_process_id */
	uint32_t capacity;           /* SET_LOG: the log's capacity and generation */
	uint32_t generation;
};

/* UPDATE_LOGS calls note whether they name a queue of this process. */
static uint32_t watched_process_id;

static struct call calls[256];
static unsigned int call_count;

static void
record(struct call call)
{
	cr_assert_lt(call_count, sizeof(calls) / sizeof(calls[0]));
	calls[call_count++] = call;
}

static void
recording_create(void *miniport, struct fsr_fence *fence)
{
	record((struct call){.kind = CALL_CREATE, .global_handle = fence->global_handle});
	reference.DxgkDdiCreateNativeFence(miniport, fence);
}

static void
recording_open(void *miniport, struct fsr_fence *fence, uint32_t process_id, uint64_t local)
{
	record((struct call){.kind = CALL_OPEN,
			     .global_handle = fence->global_handle,
			     .process_id = process_id,
			     .local_handle = local});
	reference.DxgkDdiOpenNativeFence(miniport, fence, process_id, local);
}

static void
recording_close(void *miniport, struct fsr_fence *fence, uint32_t process_id, uint64_t local)
{
	record((struct call){.kind = CALL_CLOSE,
			     .global_handle = fence->global_handle,
			     .process_id = process_id,
			     .local_handle = local});
	reference.DxgkDdiCloseNativeFence(miniport, fence, process_id, local);
}

/* INT-05: no interrupt waiting for the OS may name a fence the driver is told is gone. */
static void
recording_destroy(void *miniport, struct fsr_fence *fence)
{
	struct call call = {.kind = CALL_DESTROY, .global_handle = fence->global_handle};

	for (struct hw_interrupt *i = fx.runtime->interrupts_head; i; i = i->next)
		if (i->type == FSTP_INTERRUPT_TYPE_NATIVE_FENCE_SIGNALED &&
		    i->form == FSTP_INTERRUPT_FORM_FENCE_ARRAY)
			for (uint32_t f = 0; f < i->fence_count; f++)
				if (i->fences[f] == fence->global_handle)
					call.is_named_by_interrupt = true;
	record(call);
	reference.DxgkDdiDestroyNativeFence(miniport, fence);
}

/* SYN-10: the OS has read no entry of these logs beyond what their headers held before. */
static void
recording_update_logs(void *miniport, struct os_hwqueue *const *queues, uint32_t queue_count)
{
	struct call call = {.kind = CALL_UPDATE_LOGS, .queue_count = queue_count};

	for (uint32_t q = 0; q < queue_count; q++)
		if (queues[q]->process->id == watched_process_id)
			call.has_watched_queue = true;
	for (uint32_t q = 0; q < queue_count; q++)
		for (int type = FSTP_LOG_TYPE_WAITS; type <= FSTP_LOG_TYPE_SIGNALS; type++) {
			uint64_t header = atomic_load(&queues[q]->logs[type].header);
			uint64_t position =
			    (header >> 32) * queues[q]->logs[type].capacity + (uint32_t) header;

			/* A log whose header moved has been read up to the old position only. */
			if (queues[q]->os_log_position[type] == position && position != 0 &&
			    type == FSTP_LOG_TYPE_SIGNALS)
				call.has_queue_read_entries = true;
		}
	record(call);
	reference.DxgkDdiUpdateNativeFenceLogs(miniport, queues, queue_count);
}

static void
recording_set_log(void *miniport, struct os_hwqueue *queue, enum fstp_log_type type,
		  struct hw_fence_log *log)
{
	record((struct call){
	    .kind = CALL_SET_LOG, .capacity = log->capacity, .generation = log->generation});
	reference.DxgkDdiSetNativeFenceLogBuffer(miniport, queue, type, log);
}

static struct dxgk_ddi
recording_ddi(void)
{
	struct dxgk_ddi ddi = reference;

	ddi.DxgkDdiSetNativeFenceLogBuffer = recording_set_log;
	ddi.DxgkDdiCreateNativeFence = recording_create;
	ddi.DxgkDdiOpenNativeFence = recording_open;
	ddi.DxgkDdiCloseNativeFence = recording_close;
	ddi.DxgkDdiDestroyNativeFence = recording_destroy;
	ddi.DxgkDdiUpdateNativeFenceLogs = recording_update_logs;
	call_count = 0;
	return ddi;
}

static unsigned int
count_calls(enum call_kind kind, uint64_t global_handle)
{
	unsigned int count = 0;

	for (unsigned int i = 0; i < call_count; i++)
		if (calls[i].kind == kind &&
		    (global_handle == 0 || calls[i].global_handle == global_handle))
			count++;
	return count;
}

Test(os_ddi, int_05_fence_closed_while_its_interrupt_is_in_flight_stays_alive)
{
	struct dxgk_ddi ddi = recording_ddi();
	fsr_handle queue, fence, global;
	struct fst_wait_result result = {0};
	uint64_t spurious;

	setup_with_ddi(&ddi, FSR_INTERRUPT_FENCE_ARRAY);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, 0, &fence, &global), FSR_OK);
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, fence, 1, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 1);
	step_until_interrupt_queued();
	cr_assert_eq(fx.runtime->interrupts_head->fence_count, 1);
	cr_assert_eq(fx.runtime->interrupts_head->fences[0], global);

	/* The last handle closes while the interrupt waits for the OS (its DPC). */
	cr_assert_eq(fsr_fence_close(fx.process, fence), FSR_OK);
	cr_expect_eq(result.call_count, 1);
	cr_expect_eq(result.status, FSR_ERR_DESTROYED);
	cr_expect_eq(count_calls(CALL_DESTROY, global), 0,
		     "the global handle outlives the interrupt that names it");

	spurious = fst_stats().spurious_interrupts;
	fst_run_until_idle();
	cr_expect_null(fx.runtime->interrupts_head);
	cr_assert_eq(count_calls(CALL_DESTROY, global), 1, "destroyed once handled");
	for (unsigned int i = 0; i < call_count; i++)
		cr_expect_not(calls[i].is_named_by_interrupt,
			      "DxgkDdiDestroyNativeFence while a queued interrupt names the fence");
	cr_expect_eq(fst_stats().spurious_interrupts, spurious + 1, "it had no waiter left");
}

/* SYN-10: one interrupt, one DxgkDdiUpdateNativeFenceLogs for every log with new entries. */
Test(os_ddi, syn_10_one_update_native_fence_logs_per_interrupt_for_all_moved_logs)
{
	struct dxgk_ddi ddi = recording_ddi();
	fsr_handle queue_3d, queue_compute, quiet, fence_a, fence_b, fence_c;
	struct fst_wait_result result = {0};
	unsigned int updates = 0;

	setup_with_ddi(&ddi, FSR_INTERRUPT_FENCE_ARRAY);
	queue_3d = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	queue_compute = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	quiet = fst_queue_new(fx.process, fx.context_compute, FSR_SUBMIT_USER_MODE);
	fence_a = fst_fence_new(fx.process, fx.device, 0);
	fence_b = fst_fence_new(fx.process, fx.device, 0);
	fence_c = fst_fence_new(fx.process, fx.device, 0);

	/* Two queues log signals nobody waits for; then one signal interrupts. */
	fst_submit_signal(fx.process, queue_compute, fence_b, 1);
	fst_submit_signal(fx.process, queue_3d, fence_a, 1);
	fst_run_until_idle();
	cr_assert_eq(count_calls(CALL_UPDATE_LOGS, 0), 0,
		     "no interrupt yet, no read (no periodic read)");
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, fence_c, 1, FSR_INFINITE, fst_wait_record,
					      &result),
		     FSR_OK);
	fst_submit_signal(fx.process, queue_3d, fence_c, 1);
	fst_run_until_idle();
	cr_assert_eq(result.call_count, 1);

	for (unsigned int i = 0; i < call_count; i++) {
		if (calls[i].kind != CALL_UPDATE_LOGS)
			continue;
		updates++;
		cr_expect_eq(calls[i].queue_count, 2, "both queues with new entries, not `quiet`");
		cr_expect_not(calls[i].has_queue_read_entries, "called before any entry is read");
	}
	cr_expect_eq(updates, 1, "once for the interrupt, not once per log");
	(void) quiet;
}

/* SHF-01, SHF-03, SHF-04: create → open(A); open(B); close(A); close(B) → destroy. */
Test(os_ddi, shf_01_shf_04_native_fence_ddis_come_in_the_spec_order)
{
	struct dxgk_ddi ddi = recording_ddi();
	struct fsr_process *b;
	fsr_handle b_device, global, a_fence, b_fence;
	uint32_t a_id, b_id;
	unsigned int first;

	setup_with_ddi(&ddi, FSR_INTERRUPT_FENCE_ARRAY);
	fst_rt_add_process("b", &b, &b_device, NULL);
	a_id = fsr_process_get_id(fx.process);
	b_id = fsr_process_get_id(b);
	first = call_count;
	cr_assert_eq(
	    fsr_fence_create(fx.process, fx.device, 7, FSR_FENCE_SHARED, &a_fence, &global),
	    FSR_OK);
	cr_assert_eq(call_count, first + 2);
	cr_expect_eq(calls[first].kind, CALL_CREATE, "SHF-01: CreateNativeFence first");
	cr_expect_eq(calls[first].global_handle, global);
	cr_expect_eq(calls[first + 1].kind, CALL_OPEN, "SHF-01: then OpenNativeFence for A");
	cr_expect_eq(calls[first + 1].process_id, a_id);
	cr_expect_eq(calls[first + 1].local_handle, a_fence);

	cr_assert_eq(fsr_fence_open(b, b_device, global, &b_fence), FSR_OK);
	cr_assert_eq(call_count, first + 3);
	cr_expect_eq(calls[first + 2].kind, CALL_OPEN, "SHF-02");
	cr_expect_eq(calls[first + 2].process_id, b_id);
	cr_expect_eq(calls[first + 2].local_handle, b_fence);

	cr_assert_eq(fsr_fence_close(fx.process, a_fence), FSR_OK);
	cr_assert_eq(call_count, first + 4, "SHF-03: A's close only, the global fence stays");
	cr_expect_eq(calls[first + 3].kind, CALL_CLOSE);
	cr_expect_eq(calls[first + 3].process_id, a_id);
	cr_expect_eq(calls[first + 3].local_handle, a_fence);

	cr_assert_eq(fsr_fence_close(b, b_fence), FSR_OK);
	cr_assert_eq(call_count, first + 6);
	cr_expect_eq(calls[first + 4].kind, CALL_CLOSE, "SHF-04: CloseNativeFence(B) first");
	cr_expect_eq(calls[first + 4].process_id, b_id);
	cr_expect_eq(calls[first + 4].local_handle, b_fence);
	cr_expect_eq(calls[first + 5].kind, CALL_DESTROY, "SHF-04: then DestroyNativeFence");
	cr_expect_eq(calls[first + 5].global_handle, global);
	cr_expect_eq(count_calls(CALL_DESTROY, global), 1, "SHF-05: once");
	cr_expect_eq(fsr_process_terminate(b, false), FSR_OK);
}

/*
 * INT-10: B opened A's shared fence and signals it from B's queue, while A waits on the CPU.
 * The interrupt names the fence; the OS reads the logs of the queues that could have
 * signalled it — B's device's too, not only the device the fence was created on.
 */
Test(os_ddi, int_10_shared_fence_interrupt_reads_the_logs_of_the_opening_devices)
{
	struct dxgk_ddi ddi = recording_ddi();
	struct fsr_process *b;
	fsr_handle b_device, b_context, b_queue, global, a_fence, b_fence;
	struct fst_wait_result result = {0};
	bool has_read_b = false;

	setup_with_ddi(&ddi, FSR_INTERRUPT_FENCE_ARRAY);
	fst_rt_add_process("b", &b, &b_device, &b_context);
	watched_process_id = fsr_process_get_id(b);
	fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE); /* A's, idle */
	b_queue = fst_queue_new(b, b_context, FSR_SUBMIT_USER_MODE);
	cr_assert_eq(
	    fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_SHARED, &a_fence, &global),
	    FSR_OK);
	cr_assert_eq(fsr_fence_open(b, b_device, global, &b_fence), FSR_OK);
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, a_fence, 1, FSR_INFINITE, fst_wait_record,
					      &result),
		     FSR_OK);
	fst_submit_signal(b, b_queue, b_fence, 1);
	fst_run_until_idle();
	cr_assert_eq(result.call_count, 1, "the interrupt released A's waiter");

	/* Before any queue is destroyed (which reads its logs anyway). */
	for (unsigned int i = 0; i < call_count; i++)
		if (calls[i].kind == CALL_UPDATE_LOGS && calls[i].has_watched_queue)
			has_read_b = true;
	cr_expect(has_read_b, "the interrupt read B's queue's log, where the signal is");
	cr_expect_eq(fsr_process_terminate(b, false), FSR_OK);
}

/*
 * LOG-04, LOG-20: tracing starts on a running runtime. The OS reads what the old logs hold,
 * re-creates them 16 times larger and calls SetNativeFenceLogBuffer again for each; later
 * entries are written to the new logs and read from there.
 */
Test(os_ddi, log_04_log_20_tracing_start_recreates_the_logs_grown_after_reading_them)
{
	struct dxgk_ddi ddi = recording_ddi();
	fsr_handle queue, fence, waited;
	struct fst_wait_result result = {0};
	struct fsr_runtime_stats before, after;
	unsigned int first, set_logs = 0, updates_before_set = 0;

	setup_with_ddi_logs(&ddi, FSR_INTERRUPT_FENCE_ARRAY, 8);
	queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fence = fst_fence_new(fx.process, fx.device, 0);
	waited = fst_fence_new(fx.process, fx.device, 0);
	cr_assert_eq(count_calls(CALL_SET_LOG, 0), 2, "LOG-03: one per log at creation");
	for (unsigned int i = 0; i < call_count; i++)
		if (calls[i].kind == CALL_SET_LOG)
			cr_expect_eq(calls[i].capacity, 8, "not tracing yet: the configured size");
	for (uint64_t v = 1; v <= 3; v++)
		fst_submit_signal(fx.process, queue, fence, v); /* no waiter: logged, unread */
	fst_run_until_idle();
	before = fst_stats();

	fsr_test_force_tracing(fx.runtime, true);
	first = call_count;
	cr_assert_eq(fsr_runtime_run_until(fx.runtime, fsr_runtime_now_ns(fx.runtime) + 20000000),
		     FSR_OK);
	for (unsigned int i = first; i < call_count; i++) {
		if (calls[i].kind == CALL_UPDATE_LOGS && set_logs == 0)
			updates_before_set++;
		if (calls[i].kind != CALL_SET_LOG)
			continue;
		set_logs++;
		cr_expect_eq(calls[i].capacity, 8 * 16, "LOG-20: grown 16 times");
		cr_expect_eq(calls[i].generation, 2, "re-created once");
	}
	cr_assert_eq(set_logs, 2, "LOG-04: SetNativeFenceLogBuffer again for each log");
	cr_expect_eq(updates_before_set, 1, "the unread entries were read first");
	after = fst_stats();
	cr_expect_eq(after.log_entries_read - before.log_entries_read, 6,
		     "the three signal entries of the old log, and their buffers' progress "
		     "writes (HPF-02), were read");

	/* Later entries go to the new logs, and an interrupt reads them from there. */
	cr_assert_eq(
	    fsr_fence_wait_cpu_async(fx.process, waited, 1, FSR_INFINITE, fst_wait_record, &result),
	    FSR_OK);
	fst_submit_signal(fx.process, queue, fence, 4);
	fst_submit_signal(fx.process, queue, waited, 1);
	fst_run_until_idle();
	cr_assert_eq(result.call_count, 1);
	cr_expect_eq(fst_stats().log_anomalies, before.log_anomalies, "no unknown or zero entry");
	cr_expect_eq(fst_stats().log_entries_lost, 0);
	cr_expect_eq(count_calls(CALL_SET_LOG, 0), 4, "and no re-creation after");
}
