/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, LOG-01: DxgkDdiSetNativeFenceLogBuffer announces the log the OS handed it, but
 * programs the GPU with half its size, so the GPU wraps the log after 2 KB and overwrites
 * entries the OS has not read while the OS still has room.
 */
#include "faulty.h"

static void
half_size_set_native_fence_log_buffer(void *miniport, struct os_hwqueue *queue,
				      enum fstp_log_type type, struct hw_fence_log *log)
{
	reference.DxgkDdiSetNativeFenceLogBuffer(miniport, queue, type, log);
	queue->logs[type].capacity /= 2; /* the size the GPU wraps at (the memory stays whole) */
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiSetNativeFenceLogBuffer = half_size_set_native_fence_log_buffer;
}

const char *
fsc_driver_name(void)
{
	return "log-01-half-size-log";
}
