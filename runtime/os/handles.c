/* SPDX-License-Identifier: MIT */
/*
 * A process's handle table as the OS resolves it: the D3DKMT-style lookup that the OS's own
 * calls and the user-mode driver's thunks share. A file of its own, below fence.c, queue.c and
 * process.c, which all resolve handles.
 */
#include "os/os-private.h"

fsr_status
os_kmt_lookup(struct fsr_process *process, fsr_handle handle, enum rt_object_type type,
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
