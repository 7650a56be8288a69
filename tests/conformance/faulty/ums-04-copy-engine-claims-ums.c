/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, UMS-04 (and so UMS-05): DxgkDdiDescribeEngine reports UserModeSubmissionSupported
 * on every engine, the copy engine too, which the GPU cannot feed from a user-mode ring. The OS
 * believes it and lets a user-mode queue be made there.
 */
#include "faulty.h"

static void
boasting_describe_engine(void *miniport, uint32_t engine_id, struct dxgk_engine_caps *caps)
{
	reference.DxgkDdiDescribeEngine(miniport, engine_id, caps);
	caps->supports_user_mode_submission = true;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiDescribeEngine = boasting_describe_engine;
}

const char *
fsc_driver_name(void)
{
	return "ums-04-copy-engine-claims-ums";
}
