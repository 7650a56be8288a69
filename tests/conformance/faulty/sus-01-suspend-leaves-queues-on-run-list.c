/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, SUS-01: DxgkDdiSuspendContext reports the suspension (context_suspend) but
 * leaves the context's queues on their engine's scheduler list, so their work runs on while
 * the context is suspended (SUS-03, SUS-07). Built on the reference driver: after the
 * reference's suspend, every queue of the context is put back on the list.
 */
#include "faulty.h"

static void
leaky_suspend_context(void *miniport, struct os_context *context, enum fstp_preempt_reason reason)
{
	reference.DxgkDdiSuspendContext(miniport, context, reason);
	for (struct os_hwqueue *q = context->queues; q; q = q->next_in_context)
		q->hw_is_suspended = false;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiSuspendContext = leaky_suspend_context;
}

const char *
fsc_driver_name(void)
{
	return "sus-01-suspend-leaves-queues-on-run-list";
}
