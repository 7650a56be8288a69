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
 * GpuMmu allocations (spec 004, MMU-05, MMU-11 to MMU-13; fsr_allocation_create_with_config)
 * are placed in a segment with a page size, sized to a whole number of pages and resident from
 * their creation; every allocation's storage is aligned to its page size so that page table
 * entries can point into it. An allocation that goes is unmapped first (os/vidmm.c).
 *
 * What it is not: the kernel-mode path's residency and paging, GPU virtual addresses
 * (os/vidmm.c).
 */
#include <stdlib.h>
#include <string.h>

#include "os/os-private.h"

#define OS_ALLOCATION_PAGE_BYTES 4096u

static void
trace_residency(struct os_allocation *allocation)
{
	bool is_resident = atomic_load_explicit(&allocation->is_resident, memory_order_relaxed);
	int segment = is_resident ? FSTP_SEGMENT_LOCAL : FSTP_SEGMENT_SYSTEM;

	/* A GpuMmu allocation lives in its own segment while resident (MMU-11). */
	if (allocation->is_gpummu && is_resident)
		segment = allocation->segment;
	FSR_TRACE(allocation->device->adapter->runtime, fencescope_os, allocation_residency,
		  allocation->process_id, allocation->handle, (uint8_t) is_resident, segment);
}

/* The allocation with its storage, not linked or traced yet. */
static struct os_allocation *
allocation_make(struct os_device *device, uint64_t size_bytes, uint32_t page_size_bytes)
{
	/* MMU-13: storage aligned to the page size and a whole number of pages long. */
	uint64_t storage_bytes =
	    (size_bytes + page_size_bytes - 1) & ~(uint64_t) (page_size_bytes - 1);
	struct os_allocation *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->storage = aligned_alloc(page_size_bytes, storage_bytes);
	if (!a->storage) {
		free(a);
		return NULL;
	}
	memset(a->storage, 0, storage_bytes);
	a->handle = rt_new_kernel_handle(device->adapter->runtime, RT_OBJECT_ALLOCATION);
	a->device = device;
	a->process_id = device->process->id;
	a->size_bytes = size_bytes;
	a->refs = 1;
	a->segment = FSTP_SEGMENT_SYSTEM;
	a->page_size_bytes = page_size_bytes;
	atomic_init(&a->is_resident, false);
	return a;
}

static void
allocation_link(struct os_device *device, struct os_allocation *a, bool is_resident)
{
	a->next_in_device = device->allocations;
	device->allocations = a;
	FSR_TRACE(device->adapter->runtime, fencescope_os, allocation_create, a->process_id,
		  device->handle, a->handle, a->size_bytes, a->segment, a->page_size_bytes);
	if (is_resident)
		os_allocation_set_resident(a, true);
}

fsr_status
os_allocation_new(struct os_device *device, uint64_t size_bytes, bool is_resident,
		  struct os_allocation **allocation)
{
	struct os_allocation *a;

	if (size_bytes == 0 || size_bytes > (UINT64_C(1) << 32))
		return FSR_ERR_INVALID_ARGUMENT;
	/*
	 * The rings' and the OS's own allocations keep the size they were asked for (their
	 * allocation_create as before GpuMmu); their storage is whole 4 KB pages all the same.
	 */
	a = allocation_make(device, size_bytes, OS_ALLOCATION_PAGE_BYTES);
	if (!a)
		return FSR_ERR_NO_RESOURCES;
	allocation_link(device, a, is_resident);
	*allocation = a;
	return FSR_OK;
}

fsr_status
os_allocation_new_in_segment(struct os_device *device, uint64_t size_bytes, int segment,
			     uint32_t page_size_bytes, struct os_allocation **allocation)
{
	struct os_allocation *a;
	uint64_t rounded;

	if (size_bytes == 0 || size_bytes > (UINT64_C(1) << 32))
		return FSR_ERR_INVALID_ARGUMENT;
	/* MMU-13: sized as a multiple of the page size (rounded up). */
	rounded = (size_bytes + page_size_bytes - 1) & ~(uint64_t) (page_size_bytes - 1);
	a = allocation_make(device, rounded, page_size_bytes);
	if (!a)
		return FSR_ERR_NO_RESOURCES;
	a->segment = segment;
	a->is_gpummu = true;
	allocation_link(device, a, true);
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
	/* MMU-06: no GPU VA names an allocation whose handle is gone. */
	os_vidmm_unmap_allocation(allocation);
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

/* The handle the UMD gets for a new allocation; false without memory (then freed). */
static bool
give_umd_handle(struct fsr_process *process, struct os_allocation *allocation,
		fsr_handle *allocation_handle)
{
	struct rt_object *entry = calloc(1, sizeof(*entry));

	if (!entry || rt_map_insert(&process->handles, allocation->handle, entry) != 0) {
		free(entry);
		os_allocation_unref(allocation);
		return false;
	}
	*entry = (struct rt_object){.type = RT_OBJECT_ALLOCATION, .pointer = allocation};
	allocation->has_umd_handle = true;
	*allocation_handle = allocation->handle;
	return true;
}

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
	if (status == FSR_OK && !give_umd_handle(process, allocation, allocation_handle))
		status = FSR_ERR_NO_RESOURCES;
	if (status != FSR_OK)
		rt_refuse(runtime, process->id, "CreateAllocation", device_handle, status);
	rt_unlock(runtime);
	return status;
}

/* MMU-12: the page sizes a segment takes (64 KB only where the driver supports it). */
static bool
is_page_size_valid(struct fsr_adapter *adapter, enum fsr_segment segment, uint32_t page_size)
{
	if (page_size == FSR_GPU_PAGE_BYTES)
		return true;
	return page_size == FSR_GPU_LARGE_PAGE_BYTES && segment == FSR_SEGMENT_LOCAL &&
	       os_vidmm_query_caps(adapter) && adapter->gpummu_caps.is_64kb_page_supported;
}

fsr_status
fsr_allocation_create_with_config(struct fsr_process *process, fsr_handle device_handle,
				  const struct fsr_allocation_config *config,
				  fsr_handle *allocation_handle)
{
	struct fsr_runtime *runtime;
	struct rt_object *object;
	struct os_allocation *allocation = NULL;
	struct os_device *device;
	uint32_t page_size;
	fsr_status status;

	if (!process)
		return FSR_ERR_INVALID_ARGUMENT;
	runtime = process->runtime;
	rt_lock(runtime);
	status = os_kmt_lookup(process, device_handle, RT_OBJECT_DEVICE, &object);
	if (status != FSR_OK)
		goto end;
	device = object->pointer;
	page_size =
	    config && config->page_size_bytes ? config->page_size_bytes : FSR_GPU_PAGE_BYTES;
	if (!config || !allocation_handle ||
	    (config->segment != FSR_SEGMENT_SYSTEM && config->segment != FSR_SEGMENT_LOCAL) ||
	    !is_page_size_valid(device->adapter, config->segment, page_size)) {
		status = FSR_ERR_INVALID_ARGUMENT;
		goto end;
	}
	status = os_allocation_new_in_segment(device, config->size_bytes, (int) config->segment,
					      page_size, &allocation);
	if (status == FSR_OK && !give_umd_handle(process, allocation, allocation_handle))
		status = FSR_ERR_NO_RESOURCES;
end:
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
