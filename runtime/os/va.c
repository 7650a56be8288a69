/* SPDX-License-Identifier: MIT */
/*
 * The GPU virtual address thunks the UMD calls (D3DKMTReserveGpuVirtualAddress,
 * FreeGpuVirtualAddress, MapGpuVirtualAddress and the unmap; spec 004, MMU-06, MMU-10): each
 * checks its handles, finds (or has VidMm make) the process's VA space on the device's adapter
 * and hands the rest to os/vidmm.c. A refused call fires call_failed, as every thunk does.
 *
 * What it is not: the VA space's policy (os/vidmm.c), the allocations (os/allocation.c).
 */
#include "os/os-private.h"

/* The device's adapter's VA space of `process`, made when `may_create` (lock held). */
static fsr_status
space_of(struct fsr_process *process, fsr_handle device_handle, bool may_create,
	 struct os_va_space **space)
{
	struct rt_object *object;
	struct os_device *device;
	fsr_status status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);

	if (status != FSR_OK)
		return status;
	device = object->pointer;
	if (may_create)
		return os_vidmm_get_space(process, device->adapter, space);
	*space = os_vidmm_find_space(process, device->adapter);
	/* Nothing was ever reserved or mapped there: no such range. */
	return *space ? FSR_OK : FSR_ERR_INVALID_ARGUMENT;
}

fsr_status
fsr_va_reserve(struct fsr_process *process, fsr_handle device, uint64_t size_bytes, uint64_t min_va,
	       uint64_t max_va, uint64_t fixed_va, uint64_t *va)
{
	struct os_va_space *space;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = va ? space_of(process, device, true, &space) : FSR_ERR_INVALID_ARGUMENT;
	if (status == FSR_OK)
		status = os_vidmm_reserve(space, size_bytes, min_va, max_va, fixed_va, va);
	if (status != FSR_OK)
		rt_refuse(process->runtime, process->id, "ReserveGpuVirtualAddress", device,
			  status);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_va_free(struct fsr_process *process, fsr_handle device, uint64_t va, uint64_t size_bytes)
{
	struct os_va_space *space;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = space_of(process, device, false, &space);
	if (status == FSR_OK)
		status = os_vidmm_free(space, va, size_bytes);
	if (status != FSR_OK)
		rt_refuse(process->runtime, process->id, "FreeGpuVirtualAddress", device, status);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_va_map(struct fsr_process *process, fsr_handle device, const struct fsr_va_map_args *args,
	   uint64_t *va)
{
	struct os_va_space *space = NULL;
	struct os_allocation *allocation = NULL;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = args && va ? FSR_OK : FSR_ERR_INVALID_ARGUMENT;
	if (status == FSR_OK)
		status = os_allocation_lookup(process, args->allocation, &allocation);
	if (status == FSR_OK)
		status = space_of(process, device, true, &space);
	if (status == FSR_OK)
		status = os_vidmm_map(space, allocation, args, va);
	if (status != FSR_OK)
		rt_refuse(process->runtime, process->id, "MapGpuVirtualAddress", device, status);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_va_unmap(struct fsr_process *process, fsr_handle device, uint64_t va, uint64_t size_bytes)
{
	struct os_va_space *space;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = space_of(process, device, false, &space);
	if (status == FSR_OK)
		status = os_vidmm_unmap(space, va, size_bytes);
	if (status != FSR_OK)
		rt_refuse(process->runtime, process->id, "UnmapGpuVirtualAddress", device, status);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_test_context_root_register(struct fsr_process *process, fsr_handle context_handle,
			       uint64_t *root_register)
{
	struct rt_object *object;
	fsr_status status;

	rt_lock(process->runtime);
	status = os_kmt_lookup(process, context_handle, RT_OBJECT_CONTEXT, &object);
	if (status == FSR_OK)
		*root_register = atomic_load_explicit(
		    &((struct os_context *) object->pointer)->hw_root_page_table,
		    memory_order_acquire);
	rt_unlock(process->runtime);
	return status;
}
