/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, PRE-07: DxgkDdiSubmitCommand of a resubmitted non-paging packet programs the
 * GPU with the fence id the preempted packet had, not the new one the OS gave it: the
 * completion then reports an old fence id. Built on the reference driver, which programs the
 * packet's own (hw_fence_id); the fence ids of the last packets are remembered by packet id.
 */
#include "faulty.h"

#define REMEMBERED 1024

static uint64_t fence_ids[REMEMBERED]; /* by packet id % REMEMBERED */

static void
reusing_submit_command(void *miniport, struct hw_dma_packet *packet)
{
	uint64_t reused = 0;

	if (packet->resubmission_of && !packet->is_paging)
		reused = fence_ids[packet->resubmission_of % REMEMBERED];
	fence_ids[packet->packet_id % REMEMBERED] = reused ? reused : packet->fence_id;
	reference.DxgkDdiSubmitCommand(miniport, packet);
	if (reused)
		packet->hw_fence_id = reused;
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiSubmitCommand = reusing_submit_command;
}

const char *
fsc_driver_name(void)
{
	return "pre-07-reuses-fence-ids";
}
