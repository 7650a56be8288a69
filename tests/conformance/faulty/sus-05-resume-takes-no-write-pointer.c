/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, SUS-05: DxgkDdiResumeContext puts the queues back on the list but the command
 * processor does not take their write pointers, so what the UMD wrote and rang during the
 * suspension waits for a new ring. Built on the reference driver: the write pointer each queue
 * had taken before the resume is put back after it.
 */
#include "faulty.h"

#define MAX_QUEUES 64

static void
forgetful_resume_context(void *miniport, struct os_context *context,
			 enum fstp_preempt_reason reason)
{
	uint64_t taken[MAX_QUEUES];
	uint32_t count = 0;

	for (struct os_hwqueue *q = context->queues; q && count < MAX_QUEUES;
	     q = q->next_in_context)
		taken[count++] = q->fetched_ptr;
	reference.DxgkDdiResumeContext(miniport, context, reason);
	count = 0;
	for (struct os_hwqueue *q = context->queues; q && count < MAX_QUEUES;
	     q = q->next_in_context)
		q->fetched_ptr = taken[count++];
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiResumeContext = forgetful_resume_context;
}

const char *
fsc_driver_name(void)
{
	return "sus-05-resume-takes-no-write-pointer";
}
