/* SPDX-License-Identifier: MIT */
/*
 * Cross-adapter fences (spec 001 "Cross-adapter native fences", XAD-01 to XAD-17): an iGPU (the
 * fixture's adapter 0, native or not) and a dGPU (adapter 1). One fence, created on one adapter
 * and opened on the other, one CurrentValue both GPUs reach, a MonitoredValue per adapter held
 * at 0, and every signal propagated by the OS to the other adapter. The scenario tests assert
 * the step order of spec 001's tables (scenarios 1, 2a, 2b) on the events the runtime fires.
 */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

#define NONE SIZE_MAX

static uint32_t dgpu;
static fsr_handle dgpu_device;
static fsr_handle dgpu_context; /* the dGPU's 3D engine */

static void
add_dgpu(void)
{
	struct fsr_adapter_config config;

	fsr_adapter_config_init(&config);
	config.keep_log_size_when_tracing = true;
	cr_assert_eq(fsr_adapter_create(fx.runtime, &config, &dgpu), FSR_OK);
	cr_assert_eq(fsr_device_create(fx.process, dgpu, &dgpu_device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, dgpu_device, 0, &dgpu_context), FSR_OK);
}

/* Scenario 1: both adapters support native fences. */
static void
setup_both_native(void)
{
	fst_rt_setup();
	add_dgpu();
}

/* Scenario 2: the iGPU (adapter 0) has no native fences, the dGPU has. */
static void
setup_igpu_without_native_fences(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	adapter_config.no_native_fences = true;
	fst_rt_setup_with(&runtime_config, &adapter_config);
	add_dgpu();
}

TestSuite(cross_adapter, .init = setup_both_native, .fini = fst_rt_teardown);
TestSuite(cross_adapter_2, .init = setup_igpu_without_native_fences, .fini = fst_rt_teardown);

/* A cross-adapter fence created on `creator_device`; its global handle in *global. */
static fsr_handle
create_cross(fsr_handle creator_device, uint64_t initial_value, fsr_handle *global)
{
	fsr_handle fence = 0;

	cr_assert_eq(fsr_fence_create(fx.process, creator_device, initial_value,
				      FSR_FENCE_CROSS_ADAPTER, &fence, global),
		     FSR_OK);
	return fence;
}

static fsr_handle
open_on(fsr_handle device, fsr_handle global)
{
	fsr_handle fence = 0;

	cr_assert_eq(fsr_fence_open(fx.process, device, global, &fence), FSR_OK);
	return fence;
}

/* The first event from `from` on named `name` whose field `field` is `value` (field < 0: any). */
static size_t
find(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < fst_tap_event_count(); i++) {
		const struct fst_event *event = fst_tap_event(i);

		if (strcmp(event->name, name) == 0 && (field < 0 || event->fields[field] == value))
			return i;
	}
	return NONE;
}

/* As find, with two fields matched. */
static size_t
find2(size_t from, const char *name, int field1, uint64_t value1, int field2, uint64_t value2)
{
	for (size_t i = from; i < fst_tap_event_count(); i++) {
		const struct fst_event *event = fst_tap_event(i);

		if (strcmp(event->name, name) == 0 && event->fields[field1] == value1 &&
		    event->fields[field2] == value2)
			return i;
	}
	return NONE;
}

/* The field indices used below (the tracepoint headers). */
enum {
	UCV_ADAPTER = 0, /* kmd:update_current_value */
	UCV_FENCE = 1,
	UCV_VALUE = 2,
	UCV_NOTIFICATION_ONLY = 3,
	PROP_FENCE = 0, /* os:fence_propagate */
	PROP_FROM = 1,
	PROP_TO = 2,
	PROP_VALUE = 3,
	FVW_ADAPTER = 0, /* hw:fence_value_write */
	FVW_FENCE = 3,
	FVW_VALUE = 4,
	FVW_MONITORED = 5,
	FVW_IS_INTERRUPT = 6,
	HW_ADAPTER = 0, /* hw:gpu_wait_end, hw:interrupt_raise, os:interrupt_handled */
	HW_QUEUE = 2,
	CWE_FENCE_HANDLE = 2, /* os:cpu_wait_end */
	KM_QUEUE = 1,         /* os:km_fence_* */
	UMV_ADAPTER = 0,      /* kmd:update_monitored_value */
	UMV_FENCE = 1,
	UMV_VALUE = 2,
};

/* ---- creation and opening ------------------------------------------------------------------ */

Test(cross_adapter, xad_01_xad_03_opened_on_the_other_adapter_it_reaches_the_same_current_value)
{
	fsr_handle global = 0;
	fsr_handle on_igpu = create_cross(fx.device, 4, &global);
	fsr_handle on_dgpu;
	fsr_handle dgpu_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);
	size_t open;

	fst_tap_start();
	on_dgpu = open_on(dgpu_device, global);
	open = find(0, "fencescope_os:fence_cross_adapter_open", 1, global);
	cr_assert_neq(open, NONE);
	cr_expect_eq(fst_tap_event(open)->fields[3], dgpu, "opened on the dGPU");
	cr_expect_eq(fst_tap_event(open)->fields[4], fx.adapter_id, "created on the iGPU");
	cr_expect_neq(find(open, "fencescope_os:fence_open", 1, global), NONE,
		      "a fence_open follows");
	cr_expect_eq(fst_fence_value(fx.process, on_dgpu), 4, "the creator's value, at once");

	/*
	 * XAD-03: the dGPU's GPU writes the word the iGPU reads. The iGPU's driver is only told
	 * (NotificationOnly), so the value the iGPU sees is the dGPU's own store.
	 */
	fst_submit_signal(fx.process, dgpu_queue, on_dgpu, 9);
	fst_run_until_idle();
	cr_expect_eq(fst_fence_value(fx.process, on_igpu), 9);
	cr_expect_eq(find2(0, "fencescope_kmd:update_current_value", UCV_ADAPTER, fx.adapter_id,
			   UCV_NOTIFICATION_ONLY, 0),
		     NONE, "nothing but the dGPU's GPU wrote CurrentValue");
}

Test(cross_adapter, xad_02_a_cross_adapter_fence_is_only_of_the_default_type)
{
	fsr_handle fence = 0;
	size_t refused;

	fst_tap_start();
	cr_expect_eq(fsr_fence_create(fx.process, fx.device, 0,
				      FSR_FENCE_CROSS_ADAPTER | FSR_FENCE_INTRA_GPU, &fence, NULL),
		     FSR_ERR_INVALID_ARGUMENT);
	refused = find(0, "fencescope_os:call_failed", -1, 0);
	cr_expect_neq(refused, NONE, "refused loudly");
	cr_expect_eq(find(0, "fencescope_os:fence_create", -1, 0), NONE);
	/* Each flag alone is accepted; the intra-GPU type shows in fence_create.fence_type. */
	cr_expect_eq(fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_INTRA_GPU, &fence, NULL),
		     FSR_OK);
	cr_expect_eq(fst_tap_event(find(0, "fencescope_os:fence_create", -1, 0))->fields[4], 1,
		     "INTRA_GPU");
	cr_expect_eq(
	    fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_CROSS_ADAPTER, &fence, NULL),
	    FSR_OK);
}

Test(cross_adapter, xad_01_a_fence_created_without_the_flag_is_refused_on_another_adapter)
{
	fsr_handle global = 0;
	fsr_handle fence = 0;

	cr_assert_eq(fsr_fence_create(fx.process, fx.device, 0, FSR_FENCE_SHARED, &fence, &global),
		     FSR_OK);
	cr_expect_eq(fsr_fence_open(fx.process, dgpu_device, global, &fence),
		     FSR_ERR_NOT_SUPPORTED);
}

Test(cross_adapter, xad_04_xad_05_monitored_value_is_zero_on_every_adapter_whatever_the_waiters)
{
	fsr_handle global = 0;
	fsr_handle on_igpu;
	fsr_handle on_dgpu;
	struct fst_wait_result igpu_wait = {0};
	struct fst_wait_result dgpu_wait = {0};

	fst_tap_start();
	on_igpu = create_cross(fx.device, 0, &global);
	on_dgpu = open_on(dgpu_device, global);
	cr_expect_eq(fst_monitored_value(fx.process, on_igpu), 0);
	cr_expect_eq(fst_monitored_value(fx.process, on_dgpu), 0);
	/* CPU waiters would move an ordinary fence's MonitoredValue to 4 (NFV-04). */
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_igpu, 5, FSR_INFINITE, fst_wait_record,
					      &igpu_wait),
		     FSR_OK);
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_dgpu, 7, FSR_INFINITE, fst_wait_record,
					      &dgpu_wait),
		     FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, on_igpu), 0);
	cr_expect_eq(fst_monitored_value(fx.process, on_dgpu), 0);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, on_dgpu, 5), FSR_OK);
	cr_expect_eq(igpu_wait.call_count, 1);
	cr_expect_eq(dgpu_wait.call_count, 0);
	cr_expect_eq(fst_monitored_value(fx.process, on_igpu), 0);
	cr_expect_eq(fst_monitored_value(fx.process, on_dgpu), 0);
	cr_assert_eq(fsr_fence_close(fx.process, on_dgpu), FSR_OK);
	cr_expect_eq(fst_monitored_value(fx.process, on_igpu), 0);
	/* Each adapter's driver was given 0, and nothing else, for this fence. */
	cr_expect_neq(find2(0, "fencescope_kmd:update_monitored_value", UMV_ADAPTER, fx.adapter_id,
			    UMV_FENCE, global),
		      NONE);
	cr_expect_neq(
	    find2(0, "fencescope_kmd:update_monitored_value", UMV_ADAPTER, dgpu, UMV_FENCE, global),
	    NONE);
	for (size_t i = 0; i < fst_tap_event_count(); i++) {
		const struct fst_event *event = fst_tap_event(i);

		if (strcmp(event->name, "fencescope_kmd:update_monitored_value") == 0 &&
		    event->fields[UMV_FENCE] == global)
			cr_expect_eq(event->fields[UMV_VALUE], 0, "event %zu", i);
	}
}

Test(cross_adapter, xad_06_every_gpu_signal_interrupts_even_without_any_waiter)
{
	fsr_handle global = 0;
	fsr_handle ordinary_global = 0;
	fsr_handle ordinary = 0;
	fsr_handle on_dgpu = create_cross(dgpu_device, 0, &global);
	fsr_handle dgpu_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);

	cr_assert_eq(fsr_fence_create(fx.process, dgpu_device, 0, 0, &ordinary, &ordinary_global),
		     FSR_OK);
	fst_tap_start();
	for (uint64_t v = 1; v <= 3; v++) {
		fst_submit_signal(fx.process, dgpu_queue, on_dgpu, v);
		fst_submit_signal(fx.process, dgpu_queue, ordinary, v);
	}
	fst_run_until_idle();
	cr_expect_eq(fst_tap_count(0, "fencescope_hw:fence_value_write", FVW_FENCE, global), 3);
	for (size_t i = 0; i < fst_tap_event_count(); i++) {
		const struct fst_event *event = fst_tap_event(i);

		if (strcmp(event->name, "fencescope_hw:fence_value_write") != 0)
			continue;
		if (event->fields[FVW_FENCE] == global) {
			cr_expect_eq(event->fields[FVW_MONITORED], 0);
			cr_expect_eq(event->fields[FVW_IS_INTERRUPT], 1, "XAD-06: value %lu",
				     (unsigned long) event->fields[FVW_VALUE]);
		} else if (event->fields[FVW_FENCE] == ordinary_global) {
			cr_expect_eq(event->fields[FVW_IS_INTERRUPT], 0, "no waiter, no interrupt");
		}
	}
}

Test(cross_adapter, xad_09_a_wait_and_a_signal_on_the_same_gpu_synchronise_on_the_gpu)
{
	fsr_handle global = 0;
	fsr_handle on_dgpu = create_cross(dgpu_device, 0, &global);
	fsr_handle waiter_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);
	fsr_handle compute = 0;
	fsr_handle signal_queue;
	size_t write;
	size_t wait_end;

	open_on(fx.device, global); /* the iGPU holds it too: propagation has somewhere to go */
	cr_assert_eq(fsr_context_create(fx.process, dgpu_device, 1, &compute), FSR_OK);
	signal_queue = fst_queue_new(fx.process, compute, FSR_SUBMIT_USER_MODE);
	fst_tap_start();
	fst_submit_wait(fx.process, waiter_queue, on_dgpu, 6);
	fst_run_until_idle();
	fst_submit_signal(fx.process, signal_queue, on_dgpu, 6);
	fst_run_until_idle();
	write = find(0, "fencescope_hw:fence_value_write", FVW_FENCE, global);
	wait_end = find2(0, "fencescope_hw:gpu_wait_end", HW_ADAPTER, dgpu, 3, global);
	cr_assert_neq(write, NONE);
	cr_assert_neq(wait_end, NONE);
	/*
	 * The dGPU's engine saw its own GPU's write: released before the OS handled the
	 * interrupt, and the dGPU's driver was never told of the value from the CPU.
	 */
	cr_expect_lt(wait_end, find(write, "fencescope_os:interrupt_handled", HW_ADAPTER, dgpu));
	cr_expect_eq(find(0, "fencescope_kmd:update_current_value", UCV_ADAPTER, dgpu), NONE);
	cr_expect_eq(fst_tap_count(0, "fencescope_os:fence_propagate", PROP_TO, dgpu), 0);
	cr_expect_eq(fst_tap_count(0, "fencescope_os:fence_propagate", PROP_TO, fx.adapter_id), 1);
}

Test(cross_adapter, xad_03_the_fence_lives_until_its_last_handle_on_any_adapter)
{
	fsr_handle global = 0;
	fsr_handle on_igpu = create_cross(fx.device, 0, &global);
	fsr_handle on_dgpu = open_on(dgpu_device, global);
	fsr_handle again = 0;

	fst_tap_start();
	cr_assert_eq(fsr_fence_close(fx.process, on_igpu), FSR_OK);
	cr_expect_eq(fst_tap_count(0, "fencescope_os:fence_destroy", -1, 0), 0);
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, on_dgpu, 3), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, on_dgpu), 3);
	/* Still open somewhere: the creator's adapter may open it again, and sees the value. */
	cr_assert_eq(fsr_fence_open(fx.process, fx.device, global, &again), FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, again), 3);
	cr_assert_eq(fsr_fence_close(fx.process, again), FSR_OK);
	cr_assert_eq(fsr_fence_close(fx.process, on_dgpu), FSR_OK);
	cr_expect_eq(fst_tap_count(0, "fencescope_os:fence_destroy", 0, global), 1);
	cr_expect_eq(fsr_fence_open(fx.process, dgpu_device, global, &again),
		     FSR_ERR_INVALID_HANDLE, "the global handle is retired");
}

/* ---- scenario 1: both GPUs support native fences ------------------------------------------ */

Test(cross_adapter, xad_07_xad_08_xad_12_xad_13_scenario_1_gpu_signal_on_the_dgpu)
{
	fsr_handle global = 0;
	fsr_handle on_dgpu = create_cross(dgpu_device, 0, &global);
	fsr_handle on_igpu = open_on(fx.device, global);
	fsr_handle igpu_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	fsr_handle dgpu_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);
	struct fst_wait_result cpu_wait = {0};
	size_t write, raise, propagate, notify, cpu_released, gpu_released;

	/* iGPU WaitFromGPU(hFence, 10): a wait instruction in the command buffer. */
	fst_submit_wait(fx.process, igpu_queue, on_igpu, 10);
	/* iGPU WaitFromCPU(hFence, 10): VidSch's native fence CPU waiter list. */
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_igpu, 10, FSR_INFINITE,
					      fst_wait_record, &cpu_wait),
		     FSR_OK);
	fst_run_until_idle();
	cr_expect_eq(cpu_wait.call_count, 0);
	cr_expect_eq(fst_monitored_value(fx.process, on_igpu), 0, "XAD-05 with a CPU waiter");
	fst_tap_start();
	/* dGPU SignalFromGpu(hFence, 10): the UMD's write-CurrentValue instruction. */
	fst_submit_signal(fx.process, dgpu_queue, on_dgpu, 10);
	fst_run_until_idle();

	write = find(0, "fencescope_hw:fence_value_write", FVW_FENCE, global);
	cr_assert_neq(write, NONE);
	cr_expect_eq(fst_tap_event(write)->fields[FVW_ADAPTER], dgpu);
	cr_expect_eq(fst_tap_event(write)->fields[FVW_IS_INTERRUPT], 1, "MonitoredValue is 0");
	raise = find(write, "fencescope_hw:interrupt_raise", HW_ADAPTER, dgpu);
	propagate = find(raise, "fencescope_os:fence_propagate", PROP_FENCE, global);
	cr_assert_neq(raise, NONE);
	cr_assert_neq(propagate, NONE, "XAD-12: VidSch propagates (hFence, 10) to the iGPU");
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_FROM], dgpu);
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_TO], fx.adapter_id);
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_VALUE], 10);
	notify = find2(propagate, "fencescope_kmd:update_current_value", UCV_ADAPTER, fx.adapter_id,
		       UCV_FENCE, global);
	cr_assert_neq(notify, NONE, "XAD-07: UpdateCurrentValuesFromCpu on the iGPU");
	cr_expect_eq(fst_tap_event(notify)->fields[UCV_NOTIFICATION_ONLY], 1, "XAD-08");
	cr_expect_eq(fst_tap_event(notify)->fields[UCV_VALUE], 10);
	/* XAD-13: then the iGPU's waiters: the KEVENT of the CPU wait, the HW channel's wait. */
	cpu_released = find(notify, "fencescope_os:cpu_wait_end", CWE_FENCE_HANDLE, on_igpu);
	gpu_released =
	    find2(notify, "fencescope_hw:gpu_wait_end", HW_ADAPTER, fx.adapter_id, 3, global);
	cr_expect_neq(cpu_released, NONE);
	cr_expect_neq(gpu_released, NONE, "the KMD's run-list rescan woke the iGPU's engine");
	cr_expect_eq(find(0, "fencescope_hw:gpu_wait_end", -1, 0), gpu_released,
		     "no iGPU wait ended before the notification");
	cr_expect_eq(cpu_wait.call_count, 1);
	cr_expect_eq(cpu_wait.status, FSR_OK);
	cr_expect_eq(fst_fence_value(fx.process, on_igpu), 10);
}

Test(cross_adapter, xad_12_xad_13_scenario_1_cpu_signal_on_the_dgpu)
{
	fsr_handle global = 0;
	fsr_handle on_dgpu = create_cross(dgpu_device, 0, &global);
	fsr_handle on_igpu = open_on(fx.device, global);
	fsr_handle igpu_queue = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_USER_MODE);
	struct fst_wait_result cpu_wait = {0};
	size_t cpu_signal, write, propagate, notify;

	fst_submit_wait(fx.process, igpu_queue, on_igpu, 10);
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_igpu, 10, FSR_INFINITE,
					      fst_wait_record, &cpu_wait),
		     FSR_OK);
	fst_run_until_idle();
	fst_tap_start();
	/* dGPU SignalFromCpu(hFence, 10). */
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, on_dgpu, 10), FSR_OK);
	fst_run_until_idle();
	cpu_signal = find(0, "fencescope_os:cpu_signal", 1, on_dgpu);
	write = find2(cpu_signal, "fencescope_kmd:update_current_value", UCV_ADAPTER, dgpu,
		      UCV_NOTIFICATION_ONLY, 0);
	propagate = find(write, "fencescope_os:fence_propagate", PROP_FENCE, global);
	notify = find2(propagate, "fencescope_kmd:update_current_value", UCV_ADAPTER, fx.adapter_id,
		       UCV_NOTIFICATION_ONLY, 1);
	cr_assert_neq(cpu_signal, NONE);
	cr_assert_neq(write, NONE, "VidSch calls UpdateCurrentValuesFromCpu(hFence, 10)");
	cr_assert_neq(propagate, NONE);
	cr_assert_neq(notify, NONE);
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_FROM], dgpu);
	cr_expect_neq(find(notify, "fencescope_os:cpu_wait_end", CWE_FENCE_HANDLE, on_igpu), NONE);
	cr_expect_neq(
	    find2(notify, "fencescope_hw:gpu_wait_end", HW_ADAPTER, fx.adapter_id, 3, global),
	    NONE);
	cr_expect_eq(cpu_wait.call_count, 1);
}

/* XAD-17: a kernel-mode queue on a native adapter signals and waits in software (VidSch). */
Test(cross_adapter, xad_17_kernel_mode_queues_on_native_adapters_wait_and_signal_in_software)
{
	fsr_handle global = 0;
	fsr_handle on_igpu = create_cross(fx.device, 0, &global);
	fsr_handle on_dgpu = open_on(dgpu_device, global);
	fsr_handle igpu_km = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle dgpu_km = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_KERNEL_MODE);
	size_t executed, propagate, notify, unblocked;

	fst_submit_wait(fx.process, dgpu_km, on_dgpu, 10);
	fst_run_until_idle();
	cr_expect(fst_borrow_queue(dgpu_km)->is_km_blocked, "a software wait in VidSch's list");
	fst_tap_start();
	fst_submit_work(fx.process, igpu_km, 1000);
	fst_submit_signal(fx.process, igpu_km, on_igpu, 10);
	fst_run_until_idle();
	executed = find(0, "fencescope_os:km_fence_signal_executed", KM_QUEUE, igpu_km);
	cr_assert_neq(executed, NONE);
	cr_expect_gt(
	    executed,
	    find2(0, "fencescope_hw:packet_end", HW_ADAPTER, fx.adapter_id, HW_QUEUE, igpu_km),
	    "XAD-16: not before the work ahead of it");
	cr_expect_neq(find2(executed, "fencescope_kmd:update_current_value", UCV_ADAPTER,
			    fx.adapter_id, UCV_NOTIFICATION_ONLY, 0),
		      NONE, "the native iGPU's value goes through its driver");
	propagate = find(executed, "fencescope_os:fence_propagate", PROP_FENCE, global);
	notify = find2(propagate, "fencescope_kmd:update_current_value", UCV_ADAPTER, dgpu,
		       UCV_NOTIFICATION_ONLY, 1);
	unblocked = find(notify, "fencescope_os:km_fence_wait_unblocked", KM_QUEUE, dgpu_km);
	cr_assert_neq(propagate, NONE);
	cr_assert_neq(notify, NONE);
	cr_expect_neq(unblocked, NONE, "the dGPU's software wait goes after the propagation");
	cr_expect_eq(find(0, "fencescope_os:km_fence_wait_unblocked", KM_QUEUE, dgpu_km),
		     unblocked);
}

/* ---- scenario 2: the iGPU has no native fences --------------------------------------------- */

Test(cross_adapter_2, xad_10_a_native_fence_opens_as_a_monitored_fence_on_a_non_native_adapter)
{
	fsr_handle global = 0;
	fsr_handle hwqueue = 0;
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
	size_t open;

	fst_tap_start();
	create_cross(dgpu_device, 0, &global);
	cr_expect_eq(fst_tap_event(find(0, "fencescope_os:fence_create", 2, global))->fields[8], 0,
		     "NATIVE on the dGPU");
	open_on(fx.device, global);
	open = find(0, "fencescope_os:fence_cross_adapter_open", 1, global);
	cr_assert_neq(open, NONE);
	cr_expect_eq(fst_tap_event(open)->fields[5], 0, "created as NATIVE");
	cr_expect_eq(fst_tap_event(open)->fields[6], 1, "opened as MONITORED");
	cr_expect_eq(find(0, "fencescope_kmd:create_native_fence", 0, fx.adapter_id), NONE,
		     "no native fence on the iGPU");
	cr_expect_eq(find(0, "fencescope_kmd:open_native_fence", 0, fx.adapter_id), NONE);
	/* The adapter takes no user-mode queue: user-mode submission needs native fences. */
	cr_expect_neq(fsr_hwqueue_create_user_mode(fx.process, fx.context_3d, &config, &hwqueue),
		      FSR_OK);
}

Test(cross_adapter_2, xad_11_a_monitored_fence_opens_as_a_native_fence_on_a_native_adapter)
{
	fsr_handle global = 0;
	size_t create;
	size_t open;

	fst_tap_start();
	create_cross(fx.device, 0, &global);
	create = find(0, "fencescope_os:fence_create", 2, global);
	cr_assert_neq(create, NONE);
	cr_expect_eq(fst_tap_event(create)->fields[8], 1, "MONITORED on the iGPU");
	cr_expect_eq(fst_tap_event(create)->fields[6], 1, "is_cross_adapter");
	open_on(dgpu_device, global);
	open = find(0, "fencescope_os:fence_cross_adapter_open", 1, global);
	cr_assert_neq(open, NONE);
	cr_expect_eq(fst_tap_event(open)->fields[5], 1, "created as MONITORED");
	cr_expect_eq(fst_tap_event(open)->fields[6], 0, "opened as NATIVE");
	cr_expect_lt(find(create, "fencescope_kmd:create_native_fence", 0, dgpu), open);
}

Test(cross_adapter_2, xad_14_scenario_2a_waits_on_the_non_native_igpu_signal_on_the_dgpu)
{
	fsr_handle global = 0;
	fsr_handle on_dgpu = create_cross(dgpu_device, 0, &global);
	fsr_handle on_igpu = open_on(fx.device, global);
	fsr_handle igpu_km = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle dgpu_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);
	struct fst_wait_result cpu_wait = {0};
	size_t write, propagate, cpu_released, sw_released;

	/* iGPU WaitFromGPU: WaitForSynchronizationObjectFromGpu, the monitored fence list. */
	fst_submit_wait(fx.process, igpu_km, on_igpu, 10);
	/* iGPU WaitFromCPU: the monitored fence CPU waiter list head. */
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_igpu, 10, FSR_INFINITE,
					      fst_wait_record, &cpu_wait),
		     FSR_OK);
	fst_run_until_idle();
	cr_expect(fst_borrow_queue(igpu_km)->is_km_blocked);
	fst_tap_start();
	/* dGPU SignalFromGpu(hFence, 10). */
	fst_submit_signal(fx.process, dgpu_queue, on_dgpu, 10);
	fst_run_until_idle();
	write = find(0, "fencescope_hw:fence_value_write", FVW_FENCE, global);
	cr_assert_neq(write, NONE);
	cr_expect_eq(fst_tap_event(write)->fields[FVW_IS_INTERRUPT], 1, "MV == 0 always");
	propagate = find(write, "fencescope_os:fence_propagate", PROP_FENCE, global);
	cr_assert_neq(propagate, NONE);
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_FROM], dgpu);
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_TO], fx.adapter_id);
	/* The iGPU observes the value itself: no driver call there (a monitored fence). */
	cr_expect_eq(find(0, "fencescope_kmd:update_current_value", UCV_ADAPTER, fx.adapter_id),
		     NONE);
	cpu_released = find(propagate, "fencescope_os:cpu_wait_end", CWE_FENCE_HANDLE, on_igpu);
	sw_released = find(propagate, "fencescope_os:km_fence_wait_unblocked", KM_QUEUE, igpu_km);
	cr_expect_neq(cpu_released, NONE, "the CPU waiter's KEVENT");
	cr_expect_neq(sw_released, NONE, "the software context unblocked");
	cr_expect_eq(find(0, "fencescope_os:km_fence_wait_unblocked", KM_QUEUE, igpu_km),
		     sw_released);
	cr_expect_eq(cpu_wait.call_count, 1);
	cr_expect_eq(fst_fence_value(fx.process, on_igpu), 10);
}

Test(cross_adapter_2, xad_15_xad_16_scenario_2b_gpu_signal_on_the_non_native_igpu)
{
	fsr_handle global = 0;
	fsr_handle on_igpu = create_cross(fx.device, 0, &global);
	fsr_handle on_dgpu = open_on(dgpu_device, global);
	fsr_handle igpu_km = fst_queue_new(fx.process, fx.context_3d, FSR_SUBMIT_KERNEL_MODE);
	fsr_handle dgpu_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);
	struct fst_wait_result cpu_wait = {0};
	size_t work_end, executed, propagate, notify, gpu_released, cpu_released;

	/* dGPU WaitFromGpu(hFence, 10) and WaitFromCpu(hFence, 10). */
	fst_submit_wait(fx.process, dgpu_queue, on_dgpu, 10);
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_dgpu, 10, FSR_INFINITE,
					      fst_wait_record, &cpu_wait),
		     FSR_OK);
	fst_run_until_idle();
	fst_tap_start();
	/* iGPU SignalFromGPU: D3DKMTSignalSynchronizationObjectFromGpu behind some work. */
	fst_submit_work(fx.process, igpu_km, 5000);
	fst_submit_signal(fx.process, igpu_km, on_igpu, 10);
	cr_expect_eq(fst_fence_value(fx.process, on_igpu), 0, "XAD-16: not at submission");
	fst_run_until_idle();
	work_end =
	    find2(0, "fencescope_hw:packet_end", HW_ADAPTER, fx.adapter_id, HW_QUEUE, igpu_km);
	executed = find(0, "fencescope_os:km_fence_signal_executed", KM_QUEUE, igpu_km);
	cr_assert_neq(work_end, NONE);
	cr_assert_neq(executed, NONE);
	cr_expect_lt(work_end, executed, "XAD-16: at the head of the software context only");
	/* VidSch writes the value from the CPU: no driver on the iGPU. */
	cr_expect_eq(find(0, "fencescope_kmd:update_current_value", UCV_ADAPTER, fx.adapter_id),
		     NONE);
	propagate = find(executed, "fencescope_os:fence_propagate", PROP_FENCE, global);
	cr_assert_neq(propagate, NONE);
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_FROM], fx.adapter_id);
	cr_expect_eq(fst_tap_event(propagate)->fields[PROP_TO], dgpu);
	notify = find2(propagate, "fencescope_kmd:update_current_value", UCV_ADAPTER, dgpu,
		       UCV_FENCE, global);
	cr_assert_neq(notify, NONE);
	cr_expect_eq(fst_tap_event(notify)->fields[UCV_NOTIFICATION_ONLY], 1);
	gpu_released = find2(0, "fencescope_hw:gpu_wait_end", HW_ADAPTER, dgpu, 3, global);
	cpu_released = find(0, "fencescope_os:cpu_wait_end", CWE_FENCE_HANDLE, on_dgpu);
	cr_expect_gt(gpu_released, notify, "the dGPU KMD's rescan released the HW channel");
	cr_expect_gt(cpu_released, notify);
	cr_expect_neq(gpu_released, NONE);
	cr_expect_neq(cpu_released, NONE);
	cr_expect_eq(cpu_wait.call_count, 1);
}

Test(cross_adapter_2, xad_15_scenario_2b_cpu_signal_on_the_non_native_igpu)
{
	fsr_handle global = 0;
	fsr_handle on_igpu = create_cross(fx.device, 0, &global);
	fsr_handle on_dgpu = open_on(dgpu_device, global);
	fsr_handle dgpu_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);
	struct fst_wait_result cpu_wait = {0};
	size_t cpu_signal, propagate, notify;

	fst_submit_wait(fx.process, dgpu_queue, on_dgpu, 10);
	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_dgpu, 10, FSR_INFINITE,
					      fst_wait_record, &cpu_wait),
		     FSR_OK);
	fst_run_until_idle();
	fst_tap_start();
	cr_assert_eq(fsr_fence_signal_cpu(fx.process, on_igpu, 10), FSR_OK);
	fst_run_until_idle();
	cpu_signal = find(0, "fencescope_os:cpu_signal", 1, on_igpu);
	propagate = find(cpu_signal, "fencescope_os:fence_propagate", PROP_FENCE, global);
	notify = find2(propagate, "fencescope_kmd:update_current_value", UCV_ADAPTER, dgpu,
		       UCV_NOTIFICATION_ONLY, 1);
	cr_assert_neq(cpu_signal, NONE);
	cr_assert_neq(propagate, NONE, "at once");
	cr_assert_neq(notify, NONE);
	cr_expect_eq(find(0, "fencescope_kmd:update_current_value", UCV_ADAPTER, fx.adapter_id),
		     NONE, "written by VidSch directly");
	cr_expect_gt(find2(0, "fencescope_hw:gpu_wait_end", HW_ADAPTER, dgpu, 3, global), notify);
	cr_expect_gt(find(0, "fencescope_os:cpu_wait_end", CWE_FENCE_HANDLE, on_dgpu), notify);
	cr_expect_eq(cpu_wait.call_count, 1);
}

/* ---- every interrupt form, and a lost device ------------------------------------------------ */

/*
 * XAD-06, XAD-07: whatever form the signalling GPU's interrupt takes — a fence array, the NULL
 * array, the HWQueue form — the OS propagates what it moved to the other adapter.
 */
Test(cross_adapter, xad_06_xad_07_every_interrupt_form_propagates)
{
	static const enum fsr_interrupt_form forms[] = {
	    FSR_INTERRUPT_FENCE_ARRAY, FSR_INTERRUPT_NULL_ARRAY, FSR_INTERRUPT_HWQUEUE};

	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		struct fsr_adapter_config config;
		uint32_t adapter;
		fsr_handle device, context, queue, global = 0, on_signaller, on_igpu;
		struct fst_wait_result result = {0};

		fsr_adapter_config_init(&config);
		config.interrupt_form = forms[f];
		cr_assert_eq(fsr_adapter_create(fx.runtime, &config, &adapter), FSR_OK);
		cr_assert_eq(fsr_device_create(fx.process, adapter, &device), FSR_OK);
		cr_assert_eq(fsr_context_create(fx.process, device, 0, &context), FSR_OK);
		queue = fst_queue_new(fx.process, context, FSR_SUBMIT_USER_MODE);
		on_signaller = create_cross(device, 0, &global);
		on_igpu = open_on(fx.device, global);
		cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_igpu, 3, FSR_INFINITE,
						      fst_wait_record, &result),
			     FSR_OK);
		fst_tap_start();
		fst_submit_signal(fx.process, queue, on_signaller, 3);
		fst_run_until_idle();
		cr_expect_eq(fst_tap_count(0, "fencescope_os:fence_propagate", PROP_FENCE, global),
			     1, "form %zu", f);
		cr_expect_eq(result.call_count, 1, "form %zu: the iGPU's waiter", f);
		fst_tap_stop();
	}
}

/*
 * A TDR with a cross-adapter fence's signal still queued behind the hung work: the guilty
 * context's fences get the lost value (UINT64_MAX) and the OS propagates it, so the other
 * adapter's waiter does not hang.
 */
Test(cross_adapter, xad_07_a_lost_context_s_pending_signal_releases_the_other_adapter)
{
	fsr_handle global = 0;
	fsr_handle on_dgpu = create_cross(dgpu_device, 0, &global);
	fsr_handle on_igpu = open_on(fx.device, global);
	fsr_handle dgpu_queue = fst_queue_new(fx.process, dgpu_context, FSR_SUBMIT_USER_MODE);
	struct fst_wait_result result = {0};
	struct fsr_cmdbuf *cmdbuf = NULL;

	cr_assert_eq(fsr_fence_wait_cpu_async(fx.process, on_igpu, 5, FSR_INFINITE, fst_wait_record,
					      &result),
		     FSR_OK);
	cr_assert_eq(fsr_test_engine_hang(fx.runtime, dgpu, 0, 0), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_create(fx.process, dgpu_queue, &cmdbuf), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_work(cmdbuf, 1000), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, on_dgpu, 5), FSR_OK);
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, NULL), FSR_OK);
	fst_tap_start();
	fst_run_until_idle(); /* the TDR's delay, its recovery */
	cr_expect_neq(find(0, "fencescope_os:context_error", -1, 0), NONE);
	cr_expect_eq(result.call_count, 1, "the iGPU's waiter did not hang");
	cr_expect_eq(result.observed_value, UINT64_MAX);
	cr_expect_neq(
	    find2(0, "fencescope_os:fence_propagate", PROP_FENCE, global, PROP_VALUE, UINT64_MAX),
	    NONE);
}
