/* SPDX-License-Identifier: MIT */
/*
 * Processes as the OS knows them: their handle tables (a D3DKMT-style lookup the user-mode
 * driver calls, fsr_kmt_lookup), their creation and termination (TRM-01, TRM-04), and the
 * callbacks of ended asynchronous waits, run outside the lock after every step.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "os/os-private.h"

fsr_status
fsr_kmt_lookup(struct fsr_process *process, fsr_handle handle, enum rt_object_type type,
	  struct rt_object **object)
{
	struct rt_object *found = rt_map_get(&process->handles, handle);

	if (!found) {
		/* A fence's global handle is not a handle of this process until it opens it. */
		if (type == RT_OBJECT_FENCE && rt_map_get(&process->runtime->fences, handle))
			return FSR_ERR_ACCESS_DENIED;
		return FSR_ERR_INVALID_HANDLE;
	}
	if (found->type != type)
		return FSR_ERR_INVALID_HANDLE;
	*object = found;
	return FSR_OK;
}

void
os_run_callbacks(struct fsr_runtime *runtime)
{
	struct os_waiter *list;

	rt_lock(runtime);
	list = runtime->done_callbacks;
	runtime->done_callbacks = NULL;
	rt_unlock(runtime);
	while (list) {
		struct os_waiter *waiter = list;

		list = waiter->next_done;
		waiter->callback(waiter->status, waiter->observed_value, waiter->user_data);
		free(waiter);
	}
}

/* ---- processes ---------------------------------------------------------------------------- */

fsr_status
fsr_process_create(struct fsr_runtime *runtime, const char *name, struct fsr_process **process_out)
{
	struct fsr_process *process;
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (!name || !process_out) {
		status = rt_refuse(runtime, 0, "CreateProcess", 0, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	process = calloc(1, sizeof(*process));
	if (!process || !(process->name = strdup(name))) {
		free(process);
		status = FSR_ERR_NO_RESOURCES;
		goto end;
	}
	process->runtime = runtime;
	process->id = runtime->next_process_id++;
	rt_map_init(&process->handles);
	process->next = runtime->processes;
	runtime->processes = process;
	FSR_TRACE(runtime, fencescope_os, process_create, process->id, process->name);
	*process_out = process;
end:
	rt_unlock(runtime);
	return status;
}

uint32_t
fsr_process_get_id(const struct fsr_process *process)
{
	return process->id;
}

fsr_status
fsr_process_terminate(struct fsr_process *process, bool is_abnormal)
{
	struct fsr_runtime *runtime;
	struct fsr_process **link;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	rt_lock(runtime);
	FSR_TRACE(runtime, fencescope_os, process_terminate, process->id,
		  is_abnormal ? FSTP_TERMINATION_ABNORMAL : FSTP_TERMINATION_NORMAL);
	rt_unlock(runtime);

	/* TRM-01: normal termination lets every queue finish what it queued; TRM-04: not so. */
	while (process->devices) {
		struct os_device *device = process->devices;

		if (!is_abnormal) {
			for (struct os_context *c = device->contexts; c; c = c->next_in_device) {
				for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
					fsr_hwqueue_wait_progress(
					    process, q->handle, atomic_load(&q->last_queued_value),
					    FSR_INFINITE);
			}
		} else {
			rt_lock(runtime);
			for (struct os_context *c = device->contexts; c; c = c->next_in_device)
				for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
					q->is_abandoned = true;
			rt_unlock(runtime);
		}
		fsr_device_destroy(process, device->handle);
	}

	rt_lock(runtime);
	/* Fence handles not tied to a device that still exists. */
	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;
		struct rt_object *object;

		if (!rt_map_next(&process->handles, &cursor, &key, &value))
			break;
		object = value;
		if (object->type == RT_OBJECT_FENCE)
			os_fence_close_handle(process, key, object->pointer);
		free(object);
	}
	rt_map_fini(&process->handles);
	for (link = &runtime->processes; *link; link = &(*link)->next) {
		if (*link == process) {
			*link = process->next;
			break;
		}
	}
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	free(process->name);
	free(process);
	return FSR_OK;
}
