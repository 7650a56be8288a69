/* SPDX-License-Identifier: MIT */
/*
 * Conformance: what the driver says of the GPU's engines (UMS-04) and what the OS does with it
 * (UMS-05). The emulated GPU's 3D and compute engines take user-mode submission, its copy
 * engines do not: a driver must describe each engine as the GPU has it.
 */
#include <criterion/criterion.h>

#include "conformance.h"
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
	cr_expect_eq(fsr_hwqueue_create(fx.process, fx.context_3d, &user_mode, &queue), FSR_OK);
	fst_queue_new(fx.process, fx.context_copy, FSR_SUBMIT_KERNEL_MODE);
}
