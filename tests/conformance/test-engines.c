/* SPDX-License-Identifier: MIT */
/*
 * Conformance: what the driver says of the GPU's engines (UMS-04) and of its doorbells
 * (DxgkDdiQueryAdapterInfo's user-mode submission caps: UMS-06, UMS-17, UMS-20), and what the OS
 * does with it (UMS-05). The emulated GPU's 3D and compute engines take user-mode submission
 * unless the adapter's configuration says a node lacks it, its copy engines never: a driver must
 * describe each engine, and report the doorbells, as the GPU has them.
 */
#include <inttypes.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"
#include "fencescope-tp-enums.h"

TestSuite(ums, .init = fsc_setup, .fini = fsc_teardown);

/* engine_describe: adapter, engine, type, supports_user_mode_submission, granularity */
Test(ums, ums_04_every_engine_is_described_as_the_gpu_has_it)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;

	fsc_config_init(&runtime_config, &config);
	cr_assert_eq(fsc_count(0, "fencescope_kmd:engine_describe", FSC_ANY, 0),
		     config.engine_count);
	for (uint32_t e = 0; e < config.engine_count; e++) {
		size_t at = fsc_find(0, "fencescope_kmd:engine_describe", 1, e);
		const struct fsc_event *describe;

		cr_assert_neq(at, FSC_NONE, "engine %u described", e);
		describe = fsc_event_at(at);
		cr_expect_eq(describe->fields[0], fx.adapter_id);
		cr_expect_eq(describe->fields[2], (uint64_t) config.engine_types[e],
			     "engine %u type", e);
		cr_expect_eq(describe->fields[3], config.engine_types[e] != FSR_ENGINE_COPY,
			     "engine %u: UserModeSubmissionSupported", e);
	}
}

Test(ums, ums_05_user_mode_queue_on_an_engine_without_the_flag_is_refused)
{
	struct fsr_hwqueue_config user_mode = {.mode = FSR_SUBMIT_USER_MODE};
	fsr_handle queue = 0;

	cr_expect_neq(fsr_hwqueue_create(fx.process, fx.context_copy, &user_mode, &queue), FSR_OK,
		      "the copy engine has no UserModeSubmissionSupported");
	cr_expect_eq(fsr_hwqueue_create_user_mode(fx.process, fx.context_3d, &user_mode, &queue),
		     FSR_OK);
	fst_queue_new(fx.process, fx.context_copy, FSR_SUBMIT_KERNEL_MODE);
}

/* adapter_create: adapter, engine_count, doorbell_count, doorbell_model, ... */
static void
expect_adapter_create_reports(uint32_t adapter_id, uint32_t doorbells,
			      enum fsr_doorbell_model model)
{
	size_t at = fsc_find(0, "fencescope_os:adapter_create", 0, adapter_id);

	cr_assert_neq(at, FSC_NONE, "adapter %u created", adapter_id);
	cr_expect_eq(fsc_event_at(at)->fields[2], doorbells, "adapter %u: doorbell_count",
		     adapter_id);
	cr_expect_eq(fsc_event_at(at)->fields[3], (uint64_t) model, "adapter %u: doorbell_model",
		     adapter_id);
}

/* A second adapter of the fixture's runtime, driven by the driver under test. */
static uint32_t
adapter_new(const struct fsr_adapter_config *config)
{
	uint32_t adapter_id = 0;

	cr_assert_eq(
	    fsr_adapter_create_with_ddi(fx.runtime, config, fsc_driver_table(), &adapter_id),
	    FSR_OK);
	return adapter_id;
}

Test(ums, ums_06_ums_17_the_driver_reports_the_doorbell_caps_of_a_global_doorbell_gpu)
{
	struct fsr_ums_caps caps = {0};

	cr_assert_eq(fsr_adapter_query_ums_caps(fx.runtime, fx.adapter_id, &caps), FSR_OK);
	cr_expect_eq(caps.doorbell_model, FSR_DOORBELL_GLOBAL);
	cr_expect_eq(caps.physical_doorbells, 1);
	cr_expect_eq(caps.doorbell_size_bytes, FSR_MIN_DOORBELL_BYTES);
	cr_expect_eq(caps.user_mode_submission_engines, 0x3, "3D and compute, not copy");
	expect_adapter_create_reports(fx.adapter_id, 1, FSR_DOORBELL_GLOBAL);
}

Test(ums, ums_06_ums_20_the_driver_reports_the_doorbell_caps_of_a_dedicated_doorbell_gpu)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;
	struct fsr_ums_caps caps = {0};
	uint32_t adapter_id;

	fsc_config_init(&runtime_config, &config);
	config.doorbell_model = FSR_DOORBELL_DEDICATED;
	config.physical_doorbells = 2;
	config.doorbell_size_bytes = 64;
	adapter_id = adapter_new(&config);
	cr_assert_eq(fsr_adapter_query_ums_caps(fx.runtime, adapter_id, &caps), FSR_OK);
	cr_expect_eq(caps.doorbell_model, FSR_DOORBELL_DEDICATED);
	cr_expect_eq(caps.physical_doorbells, 2);
	cr_expect_eq(caps.doorbell_size_bytes, 64);
	expect_adapter_create_reports(adapter_id, 2, FSR_DOORBELL_DEDICATED);
}

Test(ums, ums_04_ums_05_a_node_without_the_flag_refuses_user_mode_queues)
{
	struct fsr_hwqueue_config user_mode = {.mode = FSR_SUBMIT_USER_MODE};
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config config;
	struct fsr_ums_caps caps = {0};
	fsr_handle device, context_3d, context_compute, queue = 0;
	uint32_t adapter_id;
	size_t mark;

	fsc_config_init(&runtime_config, &config);
	config.engines_without_user_mode_submission = 1u << 0; /* the 3D node lacks the flag */
	adapter_id = adapter_new(&config);
	cr_assert_eq(fsr_adapter_query_ums_caps(fx.runtime, adapter_id, &caps), FSR_OK);
	cr_expect_eq(caps.user_mode_submission_engines, 0x2, "compute only");
	for (size_t at = fsc_find(0, "fencescope_kmd:engine_describe", 0, adapter_id);
	     at != FSC_NONE; at = fsc_find(at + 1, "fencescope_kmd:engine_describe", 0, adapter_id))
		cr_expect_eq(fsc_event_at(at)->fields[3], fsc_event_at(at)->fields[1] == 1,
			     "engine %" PRIu64 ": UserModeSubmissionSupported",
			     fsc_event_at(at)->fields[1]);

	cr_assert_eq(fsr_device_create(fx.process, adapter_id, &device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, device, 0, &context_3d), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, device, 1, &context_compute), FSR_OK);
	mark = fsc_event_count();
	cr_expect_eq(fsr_hwqueue_create(fx.process, context_3d, &user_mode, &queue),
		     FSR_ERR_NOT_SUPPORTED,
		     "UMS-05: the 3D node has no UserModeSubmissionSupported");
	cr_expect_eq(queue, 0, "no handle on failure");
	cr_expect_neq(fsc_find(mark, "fencescope_os:call_failed", 2, context_3d), FSC_NONE,
		      "the refusal is traced");
	/* UMS-01: the same node still takes kernel-mode queues; the compute node takes both. */
	fst_queue_new(fx.process, context_3d, FSR_SUBMIT_KERNEL_MODE);
	cr_expect_eq(fsr_hwqueue_create_user_mode(fx.process, context_compute, &user_mode, &queue),
		     FSR_OK);
}
