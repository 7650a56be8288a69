/* SPDX-License-Identifier: MIT */
/*
 * Presentation (PRE-13): the OS's flip queue of each display (VidPN source) and the present
 * thunk. A present (fsr_present) names a queue: the flip shows what that queue's command buffers
 * submitted so far render. It waits in the OS — not in the caller — for the queue to complete
 * the progress value it had queued then (an OS waiter on the queue's progress fence, which
 * moves MonitoredValue as any waiter does), then, once every flip presented before it on that
 * display is on screen, the OS has the driver program an MMIO flip on the next vsync
 * (DxgkDdiSetVidPnSourceAddress, FlipOnNextVSync: flip_queued). The display latches it at its
 * next vertical sync and its CRTC_VSYNC interrupt names it; that interrupt's deferred handling
 * fires flip_done and programs the next flip. So one flip per display is in the hardware at a
 * time, flips show in present order, one per vsync at most: two presents in one frame queue,
 * the second lands a vsync after the first (it never replaces it).
 *
 * The scheduler may preempt the engines at any moment meanwhile (PRE-13): nothing here depends
 * on the engines once a flip's rendering is complete, and the display latches only at a vsync,
 * so a preemption neither tears nor delays a flip.
 *
 * Not here: the display's scan-out and vsync (hw/display.c), the DDI (kmd/kmd.c).
 */
#include <stdlib.h>

#include "os/os-private.h"

/* A presented flip, in its display's queue until it is on screen (or dropped). */
struct os_flip {
	uint64_t flip_id;
	struct fsr_adapter *adapter;
	uint32_t source_id;
	uint32_t process_id;
	fsr_handle context_handle;
	bool is_ready; /* its rendering is complete */
	struct os_flip *next;
};

/* A caller of fsr_present blocked while the display's queue is full (on its stack). */
struct os_presenter {
	_Atomic uint32_t done;
	struct os_presenter *next;
};

/* The OS's side of one display. */
struct os_display {
	struct os_flip *head; /* present order; the head alone may be programmed */
	struct os_flip *tail;
	uint32_t count;
	bool is_programmed;   /* the head is in the display's flip register */
	uint64_t vsync_count; /* the last vsync the OS heard of */
	uint64_t on_screen;   /* the last flip done (0: the surface of power-up) */
	struct os_presenter *blocked;
};

void
os_displays_init(struct fsr_adapter *adapter)
{
	struct dxgk_drivercaps caps = {0};

	if (adapter->config.display_count == 0)
		return;
	adapter->os_displays = calloc(adapter->config.display_count, sizeof(struct os_display));
	if (!adapter->os_displays)
		abort(); /* a display without its queue could not present */
	/* PRE-13: the driver must flip by MMIO on the next vsync, and say so. */
	if (adapter->ddi.DxgkDdiQueryAdapterInfo(adapter->miniport, DXGKQAITYPE_DRIVERCAPS, &caps,
						 sizeof(caps)) != 0 ||
	    !caps.flip_caps.flip_on_vsync_mmio) {
		rt_refuse(adapter->runtime, 0, "QueryAdapterInfo", adapter->id,
			  FSR_ERR_NOT_SUPPORTED);
		return;
	}
	adapter->has_flip_on_vsync_mmio = true;
}

void
os_displays_fini(struct fsr_adapter *adapter)
{
	for (uint32_t s = 0; adapter->os_displays && s < adapter->config.display_count; s++) {
		while (adapter->os_displays[s].head) {
			struct os_flip *flip = adapter->os_displays[s].head;

			adapter->os_displays[s].head = flip->next;
			free(flip);
		}
	}
	free(adapter->os_displays);
	adapter->os_displays = NULL;
}

/* A blocked present may go on: the queue has room again. */
static void
wake_presenter(struct os_display *display)
{
	struct os_presenter *presenter = display->blocked;

	if (!presenter)
		return;
	display->blocked = presenter->next;
	rt_clock_wake(&presenter->done);
}

/* PRE-13: the head of the queue, once rendered, goes to the display's flip register. */
static void
program_head(struct fsr_adapter *adapter, uint32_t source_id)
{
	struct os_display *display = &adapter->os_displays[source_id];
	struct os_flip *flip = display->head;
	struct dxgk_set_vidpn_source_address args;

	if (!flip || !flip->is_ready || display->is_programmed)
		return;
	args = (struct dxgk_set_vidpn_source_address){
	    .vidpn_source_id = source_id,
	    .flip_id = flip->flip_id,
	    .flags = {.flip_on_next_vsync = true},
	};
	FSR_TRACE(adapter->runtime, fencescope_os, flip_queued, adapter->id, source_id,
		  flip->process_id, flip->context_handle, flip->flip_id);
	if (adapter->ddi.DxgkDdiSetVidPnSourceAddress(adapter->miniport, &args) != 0) {
		/* The driver refused it: the flip is dropped, the next one tried. */
		rt_refuse(adapter->runtime, flip->process_id, "SetVidPnSourceAddress",
			  flip->flip_id, FSR_ERR_NOT_SUPPORTED);
		display->head = flip->next;
		if (!display->head)
			display->tail = NULL;
		display->count--;
		free(flip);
		wake_presenter(display);
		program_head(adapter, source_id);
		return;
	}
	display->is_programmed = true;
}

/* Takes `flip` out of its display's queue (not programmed) and frees it. */
static void
drop_flip(struct os_display *display, struct os_flip *flip)
{
	struct os_flip *previous = NULL;

	for (struct os_flip *f = display->head; f; previous = f, f = f->next) {
		if (f != flip)
			continue;
		if (previous)
			previous->next = f->next;
		else
			display->head = f->next;
		if (display->tail == f)
			display->tail = previous;
		display->count--;
		free(f);
		wake_presenter(display);
		return;
	}
}

/* An OS_WAITER_FLIP waiter ended (os_waiter_finish): the flip is ready, or dropped. */
static void
flip_rendered(struct fsr_runtime *runtime, struct os_flip *flip, fsr_status status)
{
	struct os_display *display = &flip->adapter->os_displays[flip->source_id];
	struct fsr_adapter *adapter = flip->adapter;
	uint32_t source_id = flip->source_id;

	(void) runtime;
	if (status != FSR_OK) {
		/* Its queue went before the rendering completed: nothing to show. */
		drop_flip(display, flip);
	} else {
		flip->is_ready = true;
	}
	program_head(adapter, source_id);
}

void
os_display_vsync(struct fsr_adapter *adapter, const struct hw_interrupt *interrupt)
{
	struct os_display *display;
	struct os_flip *flip;

	if (!adapter->os_displays || interrupt->vidpn_source_id >= adapter->config.display_count) {
		rt_refuse(adapter->runtime, 0, "CrtcVsyncInterrupt", interrupt->vidpn_source_id,
			  FSR_ERR_INVALID_ARGUMENT);
		return;
	}
	display = &adapter->os_displays[interrupt->vidpn_source_id];
	display->vsync_count = interrupt->vsync_count;
	flip = display->head;
	if (!display->is_programmed || !flip || flip->flip_id != interrupt->flip_id) {
		/* Still the last flip done: nothing new latched. Else not the OS's flip at all. */
		if (interrupt->flip_id != display->on_screen)
			rt_refuse(adapter->runtime, 0, "CrtcVsyncInterrupt", interrupt->flip_id,
				  FSR_ERR_INVALID_ARGUMENT);
		return;
	}
	/*
	 * PRE-13: on screen since the vsync that latched it — this one, or an earlier one whose
	 * interrupt did not reach the OS: the display reports what it scans out, not what changed.
	 */
	FSR_TRACE(adapter->runtime, fencescope_os, flip_done, adapter->id,
		  interrupt->vidpn_source_id, flip->flip_id, interrupt->flip_vsync_count);
	display->on_screen = flip->flip_id;
	display->is_programmed = false;
	display->head = flip->next;
	if (!display->head)
		display->tail = NULL;
	display->count--;
	free(flip);
	wake_presenter(display);
	program_head(adapter, interrupt->vidpn_source_id);
}

bool
os_displays_are_idle(struct fsr_runtime *runtime)
{
	for (uint32_t a = 0; a < runtime->adapter_count; a++) {
		struct fsr_adapter *adapter = runtime->adapters[a];

		for (uint32_t s = 0; adapter->os_displays && s < adapter->config.display_count; s++)
			if (adapter->os_displays[s].head && adapter->os_displays[s].head->is_ready)
				return false;
	}
	return true;
}

/* The queue behind a present: a live queue of `process` on an adapter with that display. */
static fsr_status
lookup_present_queue(struct fsr_process *process, fsr_handle hwqueue, uint32_t source_id,
		     struct os_hwqueue **queue)
{
	struct rt_object *object;
	struct os_hwqueue *found;
	fsr_status status = os_kmt_lookup(process, hwqueue, RT_OBJECT_HWQUEUE, &object);

	if (status != FSR_OK)
		return status;
	found = object->pointer;
	if (source_id >= found->adapter->config.display_count)
		return FSR_ERR_INVALID_ARGUMENT;
	if (!found->adapter->has_flip_on_vsync_mmio)
		return FSR_ERR_NOT_SUPPORTED; /* PRE-13 */
	if (found->context->device->is_lost || found->context->device->is_in_error)
		return FSR_ERR_DEVICE_LOST;
	*queue = found;
	return FSR_OK;
}

/*
 * While the display's queue is full, the caller sleeps (lock let go) until a flip leaves it,
 * then looks its queue up again: it may have gone meanwhile.
 */
static fsr_status
wait_for_room(struct fsr_process *process, fsr_handle hwqueue, uint32_t source_id,
	      struct os_hwqueue **queue)
{
	struct fsr_runtime *runtime = process->runtime;
	fsr_status status = FSR_OK;

	while (status == FSR_OK &&
	       (*queue)->adapter->os_displays[source_id].count >= FSR_MAX_QUEUED_FLIPS) {
		struct os_display *display = &(*queue)->adapter->os_displays[source_id];
		struct os_presenter presenter = {.done = 0};
		struct os_presenter **link = &display->blocked;

		while (*link)
			link = &(*link)->next;
		*link = &presenter;
		rt_unlock(runtime);
		os_run_callbacks(runtime);
		status = rt_clock_block(runtime, &presenter.done, FSR_NEVER);
		rt_lock(runtime);
		for (link = &display->blocked; *link; link = &(*link)->next) {
			if (*link == &presenter) {
				*link = presenter.next;
				break;
			}
		}
		if (status == FSR_OK)
			status = lookup_present_queue(process, hwqueue, source_id, queue);
	}
	return status;
}

fsr_status
fsr_present(struct fsr_process *process, fsr_handle hwqueue, uint32_t source_id, uint64_t *flip_id)
{
	struct fsr_runtime *runtime = process->runtime;
	struct os_hwqueue *queue = NULL;
	struct os_display *display;
	struct os_flip *flip;
	struct os_waiter *waiter;
	uint64_t value;
	fsr_status status;

	rt_lock(runtime);
	status = lookup_present_queue(process, hwqueue, source_id, &queue);
	if (status == FSR_OK)
		status = wait_for_room(process, hwqueue, source_id, &queue);
	if (status != FSR_OK) {
		rt_refuse(runtime, process->id, "Present", hwqueue, status);
		goto end;
	}
	flip = calloc(1, sizeof(*flip));
	waiter = calloc(1, sizeof(*waiter));
	if (!flip || !waiter) {
		free(flip);
		free(waiter);
		status = rt_refuse(runtime, process->id, "Present", hwqueue, FSR_ERR_NO_RESOURCES);
		goto end;
	}
	display = &queue->adapter->os_displays[source_id];
	*flip = (struct os_flip){.flip_id = ++queue->adapter->next_flip_id,
				 .adapter = queue->adapter,
				 .source_id = source_id,
				 .process_id = process->id,
				 .context_handle = queue->context->handle};
	if (display->tail)
		display->tail->next = flip;
	else
		display->head = flip;
	display->tail = flip;
	display->count++;
	if (flip_id)
		*flip_id = flip->flip_id;
	/* What the queue has submitted so far: the flip waits, in the OS, for it to complete. */
	value = rt_queue_last_queued(queue, RT_POINT_OS_READ_LAST_QUEUED);
	*waiter = (struct os_waiter){.id = ++runtime->next_waiter_id,
				     .kind = OS_WAITER_FLIP,
				     .value = value,
				     .deadline_ns = FSR_NEVER,
				     .process_id = process->id,
				     .fence_handle = queue->progress_fence->global_handle,
				     .flip = flip,
				     .flip_rendered = flip_rendered};
	/* As any OS waiter: MonitoredValue moves, and a value already reached releases it. */
	os_fence_add_waiter(queue->progress_fence, waiter);
	os_fence_release_waiters(queue->progress_fence);
end:
	rt_unlock(runtime);
	os_run_callbacks(runtime);
	return status;
}
