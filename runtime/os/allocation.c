/* SPDX-License-Identifier: MIT */
/*
 * Video memory allocations of a device as the OS keeps them (spec 000, RES-01 to RES-06;
 * docs/runtime.md "Residency as built"): today the ring buffer and the ring buffer control of
 * user-mode queues. The UMD creates one (fsr_allocation_create), makes it resident
 * (fsr_allocation_make_resident) and names it when it creates a HWQueue and its doorbell; the OS
 * counts the references — the UMD's handle, the HWQueue that runs from it, each doorbell that
 * names it (RES-03) — and frees the storage with the last one. Eviction (the D3 power-down)
 * only clears the resident flag: the storage, the CPU's and the GPU's view alike, stays, so the
 * ring is writable in every state (RES-05). What a device still has when it is destroyed goes
 * with it (RES-04).
 *
 * What it is not: the kernel-mode path's residency and paging (the GpuMmu work), GPU
 * virtual addresses.
 */
#include <stdlib.h>

#include "os/os-private.h"

#define OS_ALLOCATION_PAGE_BYTES 4096u

static void
trace_residency(struct os_allocation *allocation)
{
	bool is_resident = atomic_load_explicit(&allocation->is_resident, memory_order_relaxed);

	FSR_TRACE(allocation->device->adapter->runtime, fencescope_os, allocation_residency,
		  allocation->process_id, allocation->handle, (uint8_t) is_resident,
		  (int) (is_resident ? FSTP_SEGMENT_LOCAL : FSTP_SEGMENT_SYSTEM));
}

fsr_status
os_allocation_new(struct os_device *device, uint64_t size_bytes, bool is_resident,
		  struct os_allocation **allocation)
{
	struct fsr_runtime *runtime = device->adapter->runtime;
	struct os_allocation *a;

	if (size_bytes == 0 || size_bytes > (UINT64_C(1) << 32))
		return FSR_ERR_INVALID_ARGUMENT;
	a = calloc(1, sizeof(*a));
	if (!a)
		return FSR_ERR_NO_RESOURCES;
	a->storage = calloc(1, size_bytes);
	if (!a->storage) {
		free(a);
		return FSR_ERR_NO_RESOURCES;
	}
	a->handle = rt_new_kernel_handle(runtime, RT_OBJECT_ALLOCATION);
	a->device = device;
	a->process_id = device->process->id;
	a->size_bytes = size_bytes;
	a->refs = 1;
	atomic_init(&a->is_resident, false);
	a->next_in_device = device->allocations;
	device->allocations = a;
	FSR_TRACE(runtime, fencescope_os, allocation_create, a->process_id, device->handle,
		  a->handle, size_bytes, (int) FSTP_SEGMENT_SYSTEM, OS_ALLOCATION_PAGE_BYTES);
	if (is_resident)
		os_allocation_set_resident(a, true);
	*allocation = a;
	return FSR_OK;
}

void
os_allocation_ref(struct os_allocation *allocation)
{
	allocation->refs++;
}

void
os_allocation_unref(struct os_allocation *allocation)
{
	FSR_ASSERT_PRE("allocation-unref:has-refs", allocation->refs > 0);
	if (--allocation->refs > 0)
		return;
	for (struct os_allocation **link = &allocation->device->allocations; *link;
	     link = &(*link)->next_in_device) {
		if (*link == allocation) {
			*link = allocation->next_in_device;
			break;
		}
	}
	/* RES-02, RES-03: the storage goes with the last reference, never before. */
	FSR_TRACE(allocation->device->adapter->runtime, fencescope_os, allocation_destroy,
		  allocation->process_id, allocation->handle);
	free(allocation->storage);
	free(allocation);
}

void
os_allocation_set_resident(struct os_allocation *allocation, bool is_resident)
{
	if (atomic_load_explicit(&allocation->is_resident, memory_order_relaxed) == is_resident)
		return;
	/* Eviction keeps the storage and the UMD's view of it (RES-05, RES-06). */
	atomic_store_explicit(&allocation->is_resident, is_resident, memory_order_release);
	trace_residency(allocation);
}

bool
os_allocation_is_resident(const struct os_allocation *allocation)
{
	return atomic_load_explicit(&allocation->is_resident, memory_order_relaxed);
}

fsr_status
os_allocation_lookup(struct fsr_process *process, fsr_handle handle,
		     struct os_allocation **allocation)
{
	struct rt_object *object;
	fsr_status status = os_kmt_lookup(process, handle, RT_OBJECT_ALLOCATION, &object);

	if (status == FSR_OK)
		*allocation = object->pointer;
	return status;
}

/* The UMD lets go of its handle: the storage stays while the OS holds references. */
static void
drop_umd_handle(struct fsr_process *process, struct os_allocation *allocation)
{
	free(rt_map_remove(&process->handles, allocation->handle));
	allocation->has_umd_handle = false;
	os_allocation_unref(allocation);
}

void
os_device_free_allocations(struct os_device *device)
{
	/* RES-04: what the UMD did not free goes with the device (its queues went first). */
	while (device->allocations) {
		struct os_allocation *allocation = device->allocations;

		FSR_ASSERT_PRE("device-free-allocations:only-umd-references",
			       allocation->has_umd_handle && allocation->refs == 1);
		drop_umd_handle(device->process, allocation);
	}
}

/* ---- the thunks ------------------------------------------------------------------------- */

fsr_status
fsr_allocation_create(struct fsr_process *process, fsr_handle device_handle, uint64_t size_bytes,
		      fsr_handle *allocation_handle)
{
	struct fsr_runtime *runtime;
	struct rt_object *object;
	struct os_allocation *allocation = NULL;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	rt_lock(runtime);
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status == FSR_OK && !allocation_handle)
		status = FSR_ERR_INVALID_ARGUMENT;
	if (status == FSR_OK)
		status = os_allocation_new(object->pointer, size_bytes, false, &allocation);
	if (status == FSR_OK) {
		struct rt_object *entry = calloc(1, sizeof(*entry));

		if (!entry || rt_map_insert(&process->handles, allocation->handle, entry) != 0) {
			free(entry);
			os_allocation_unref(allocation);
			status = FSR_ERR_NO_RESOURCES;
		} else {
			*entry =
			    (struct rt_object){.type = RT_OBJECT_ALLOCATION, .pointer = allocation};
			allocation->has_umd_handle = true;
			*allocation_handle = allocation->handle;
		}
	}
	if (status != FSR_OK)
		rt_refuse(runtime, process->id, "CreateAllocation", device_handle, status);
	rt_unlock(runtime);
	return status;
}

fsr_status
fsr_allocation_make_resident(struct fsr_process *process, fsr_handle allocation_handle)
{
	struct os_allocation *allocation;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = os_allocation_lookup(process, allocation_handle, &allocation);
	if (status == FSR_OK)
		os_allocation_set_resident(allocation, true);
	else
		rt_refuse(process->runtime, process->id, "MakeResident", allocation_handle, status);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_allocation_destroy(struct fsr_process *process, fsr_handle allocation_handle)
{
	struct os_allocation *allocation;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(process->runtime);
	status = os_allocation_lookup(process, allocation_handle, &allocation);
	if (status == FSR_OK)
		drop_umd_handle(process, allocation);
	else
		rt_refuse(process->runtime, process->id, "DestroyAllocation", allocation_handle,
			  status);
	rt_unlock(process->runtime);
	return status;
}

fsr_status
fsr_test_allocation_evict(struct fsr_process *process, fsr_handle allocation_handle)
{
	struct os_allocation *allocation;
	fsr_status status;

	rt_lock(process->runtime);
	status = os_allocation_lookup(process, allocation_handle, &allocation);
	if (status == FSR_OK)
		os_allocation_set_resident(allocation, false);
	rt_unlock(process->runtime);
	return status;
}
