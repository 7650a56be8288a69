/* SPDX-License-Identifier: MIT */
/*
 * The UMD's ready user-mode queue (spec 000, "User-mode submission"; docs/runtime.md "Calls, in
 * order"): a user-mode HWQueue takes work only through its doorbell (UMS-05, UMS-13), so a UMD
 * that wants to submit makes the queue, its doorbell and the connection, in the spec's order —
 * CreateHwQueue (UserModeSubmission), CreateDoorbell (UMS-08 to UMS-10), ConnectDoorbell
 * (UMS-12, UMS-15). This is the one place that sequence is written: the built-in scenarios,
 * file scenarios, tests and the benchmark all call it.
 *
 * What it is not: the thunks themselves (os/queue.c, os/doorbell.c), the ring (umd/cmdbuf.c).
 */
#include "os/os-private.h"

fsr_status
fsr_hwqueue_create_user_mode(struct fsr_process *process, fsr_handle context,
			     const struct fsr_hwqueue_config *config, fsr_handle *hwqueue)
{
	struct fsr_hwqueue_config user_mode = {.mode = FSR_SUBMIT_USER_MODE};
	fsr_handle queue = 0;
	fsr_status status;

	if (!process || !hwqueue || (config && config->mode != FSR_SUBMIT_USER_MODE))
		return FSR_ERR_INVALID_ARGUMENT;
	if (config)
		user_mode = *config;
	status = fsr_hwqueue_create(process, context, &user_mode, &queue);
	if (status != FSR_OK)
		return status;
	/* CreateDoorbell, then ConnectDoorbell: each refusal is already a call_failed. */
	status = fsr_doorbell_create(process, queue, 0, 0);
	if (status == FSR_OK)
		status = fsr_doorbell_connect(process, queue, NULL);
	if (status != FSR_OK) {
		fsr_hwqueue_destroy(process, queue);
		return status;
	}
	*hwqueue = queue;
	return FSR_OK;
}
