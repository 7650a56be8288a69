/* SPDX-License-Identifier: MIT */
/*
 * Processes as the OS knows them: their creation and termination (TRM-01 to TRM-07; the
 * steps of each queue's are os_hwqueue_end's, os/queue.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "os/os-private.h"

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

/* Everything of a process's termination but its freeing (lock NOT held). */
static void
end_process(struct fsr_process *process, bool is_abnormal)
{
	struct fsr_runtime *runtime = process->runtime;

	rt_lock(runtime);
	FSR_TRACE(runtime, fencescope_os, process_terminate, process->id,
		  is_abnormal ? FSTP_TERMINATION_ABNORMAL : FSTP_TERMINATION_NORMAL);
	rt_unlock(runtime);

	/*
	 * Per device, per queue (docs/runtime.md "Termination (TRM) and device loss"). Normal
	 * (TRM-01, TRM-02): DisconnectDoorbell, LastQueuedValue read after it and waited for with
	 * the ring resident, then DestroyDoorbell, the ring, DestroyHwQueue. Abnormal (TRM-03,
	 * TRM-04): the device in error, SuspendContext per context, then the same without the
	 * wait. Then the contexts and the device go (TRM-06); other processes are not touched
	 * (TRM-07).
	 */
	while (process->devices) {
		struct os_device *device = process->devices;

		/*
		 * DST-05: a normal termination wakes a device in D3 first (nothing when it is in
		 * D0): the work it waits for, suspended and evicted, runs only then.
		 */
		if (!is_abnormal)
			fsr_adapter_set_power(runtime, device->adapter->id, FSR_DEVICE_POWER_D0);
		rt_lock(runtime);
		if (is_abnormal) {
			/* TRM-03: the device in error first (its doorbells read ABORT from now). */
			device->is_in_error = true;
			FSR_TRACE(runtime, fencescope_os, device_lost, process->id, device->handle,
				  (int) FSTP_LOSS_REASON_TERMINATION);
		}
		for (struct os_context *c = device->contexts; c; c = c->next_in_device) {
			/*
			 * TRM-03, TRM-05: SuspendContext (reason TERMINATION) takes the context's
			 * queues off the run list, rings still resident, before any of them is
			 * disconnected or its ring freed.
			 */
			if (is_abnormal)
				os_context_suspend(c, FSTP_PREEMPT_REASON_TERMINATION);
			while (c->queues)
				os_hwqueue_end(process, c->queues,
					       is_abnormal ? OS_QUEUE_TERMINATE_ABNORMAL
							   : OS_QUEUE_TERMINATE,
					       NULL);
		}
		rt_unlock(runtime);
		os_run_callbacks(runtime);
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
	rt_map_init(&process->handles); /* empty: a killed process's husk answers no handle */
	/* MMU-02: its GPU VA spaces and their page tables, once its devices are gone. */
	os_vidmm_destroy_spaces(process);
	rt_unlock(runtime);
	os_run_callbacks(runtime);
}

void
os_kmt_end_killed_process(struct fsr_process *process)
{
	end_process(process, true);
}

fsr_status
fsr_process_terminate(struct fsr_process *process, bool is_abnormal)
{
	struct fsr_runtime *runtime;
	struct fsr_process **link;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	/* A process the fault injector killed has been ended already: only freed here. */
	if (!process->is_killed)
		end_process(process, is_abnormal);
	rt_lock(runtime);
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
