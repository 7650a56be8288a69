/* SPDX-License-Identifier: MIT */
/*
 * The emulated displays of the GPU (VidPN sources, PRE-13): each scans out one frame per vsync
 * period and, at every vertical sync, latches its flip register and raises the CRTC_VSYNC
 * interrupt on the GPU's line, naming the flip it scans out from then on and the vsync that
 * latched it (so that a later vsync's interrupt reports a flip whose own was lost). The flip
 * register is
 * double-buffered, as the MMIO flip on the next vsync (FlipOnVSyncMmIo) has it: the driver
 * writes the pending address at any moment, and the scan-out address takes it at the next
 * vsync only, so a surface never changes during a scan-out (no tearing) whatever the GPU's
 * engines do meanwhile — a preemption included, which touches only the engines.
 *
 * Not here: the flip queue and the waits for rendering (the OS's, os/display.c), the DDI
 * (kmd/kmd.c). Like an engine, a display reaches the OS only through the GPU's interrupt line.
 *
 * Time. Vsync n of a display is at epoch + n * period, computed, not accumulated, so sim mode
 * keeps the period exactly. Between flips the next vsync is housekeeping (a weak timer: an idle
 * runtime does not run on for ever because a display refreshes); with a flip pending it is work.
 * In realtime a display thread woken more than a period late counts the vsyncs it slept through
 * and fires one event at the latest, with the count that says so (a late interrupt, as a busy
 * CPU delivers it).
 */
#include <stdlib.h>

#include "hw/hw-private.h"

static struct hw_display *
display_of(struct rt_actor *actor)
{
	return (struct hw_display *) ((char *) actor - offsetof(struct hw_display, actor));
}

static void
display_lock(struct hw_display *display)
{
	if (rt_gpu_is_concurrent(display->adapter->runtime))
		pthread_mutex_lock(&display->lock);
}

static void
display_unlock(struct hw_display *display)
{
	if (rt_gpu_is_concurrent(display->adapter->runtime))
		pthread_mutex_unlock(&display->lock);
}

/* When the next vertical sync is due (display's lock held). */
static uint64_t
next_vsync_ns(const struct hw_display *display)
{
	return rt_add_ns(display->epoch_ns, (display->vsync_count + 1) * display->period_ns);
}

/*
 * The vertical sync (display's lock held): the scan-out of a new frame starts, and the flip
 * register, if programmed, is latched now and only now (PRE-13). Returns the interrupt to raise.
 */
static struct hw_interrupt *
vsync(struct hw_display *display, uint64_t now)
{
	struct fsr_adapter *adapter = display->adapter;
	struct hw_interrupt *interrupt;
	uint64_t latched = display->pending_flip;

	/* Realtime: a thread woken late counts the vsyncs it slept through. */
	display->vsync_count = (now - display->epoch_ns) / display->period_ns;
	if (latched) {
		display->scanout_flip = latched;
		display->scanout_vsync = display->vsync_count;
		display->pending_flip = 0;
		display->flips_latched++;
	}
	FSR_TRACE(adapter->runtime, fencescope_hw, vsync, adapter->id, display->source_id,
		  display->vsync_count, latched, hw_gpu_ts(adapter, now));
	interrupt = calloc(1, sizeof(*interrupt));
	if (!interrupt)
		abort(); /* a lost vsync interrupt would leave its flip pending for ever */
	*interrupt = (struct hw_interrupt){.type = FSTP_INTERRUPT_TYPE_CRTC_VSYNC,
					   .form = FSTP_INTERRUPT_FORM_NOT_FENCE,
					   .adapter = adapter,
					   .engine_id = display->source_id,
					   .vidpn_source_id = display->source_id,
					   .vsync_count = display->vsync_count,
					   .flip_id = display->scanout_flip,
					   .flip_vsync_count = display->scanout_vsync};
	FSR_TRACE(adapter->runtime, fencescope_hw, interrupt_raise, adapter->id, display->source_id,
		  FSTP_INTERRUPT_TYPE_CRTC_VSYNC, FSTP_INTERRUPT_FORM_NOT_FENCE, (uint64_t) 0,
		  (uint32_t) 0, (const uint64_t *) NULL);
	return interrupt;
}

static uint64_t
display_step(struct rt_actor *actor, uint64_t now)
{
	struct hw_display *display = display_of(actor);
	struct fsr_runtime *runtime = display->adapter->runtime;
	struct hw_interrupt *interrupt = NULL;
	uint64_t next;

	rt_lock_gpu(runtime);
	display_lock(display);
	/* Realtime: `now` was read before the lock. A step early (a kick) does only what is due. */
	now = rt_clock_now(runtime);
	if (now >= next_vsync_ns(display))
		interrupt = vsync(display, now);
	next = next_vsync_ns(display);
	/* Only a pending flip makes the next vsync work that keeps the runtime busy. */
	actor->next_is_weak = display->pending_flip == 0;
	display_unlock(display);
	if (interrupt) {
		/*
		 * Up the line to the driver's interrupt routine, at interrupt level: in realtime
		 * the OS's lock, taken once the display's is let go (the order engines keep); in
		 * sim mode the lock the step holds (with interleaving, taken for it).
		 */
		if (rt_gpu_is_concurrent(runtime)) {
			rt_lock(runtime);
			display->adapter->gpu->line.raise(display->adapter->gpu->line.context,
							  interrupt);
			rt_unlock(runtime);
		} else {
			rt_isr_enter(runtime);
			display->adapter->gpu->line.raise(display->adapter->gpu->line.context,
							  interrupt);
			rt_isr_exit(runtime);
		}
	}
	rt_unlock_gpu(runtime);
	return next;
}

void
hw_displays_init(struct fsr_adapter *adapter)
{
	for (uint32_t s = 0; s < adapter->config.display_count; s++) {
		struct hw_display *display = &adapter->gpu->displays[s];

		display->adapter = adapter;
		display->source_id = s;
		display->period_ns = adapter->config.vsync_period_ns;
		display->actor.name = "display";
		display->actor.step = display_step;
		pthread_mutex_init(&display->lock, NULL);
	}
}

void
hw_displays_start(struct fsr_adapter *adapter)
{
	struct fsr_runtime *runtime = adapter->runtime;

	for (uint32_t s = 0; s < adapter->config.display_count; s++) {
		struct hw_display *display = &adapter->gpu->displays[s];
		uint64_t first_vsync_ns;

		/* Before it joins the clock (realtime: its thread), so no lock is needed. */
		display->epoch_ns = rt_clock_now(runtime);
		first_vsync_ns = next_vsync_ns(display);
		rt_clock_add_actor(runtime, &display->actor);
		rt_clock_kick_weak(runtime, &display->actor, first_vsync_ns);
	}
}

void
hw_displays_fini(struct fsr_adapter *adapter)
{
	for (uint32_t s = 0; s < adapter->config.display_count; s++)
		pthread_mutex_destroy(&adapter->gpu->displays[s].lock);
}

void
hw_display_program_flip(struct hw_display *display, uint64_t flip_id)
{
	struct fsr_runtime *runtime = display->adapter->runtime;
	uint64_t due;

	display_lock(display);
	/* PRE-13: the pending address register; the scan-out takes it at the next vsync. */
	display->pending_flip = flip_id;
	due = next_vsync_ns(display);
	display_unlock(display);
	/* That vsync is work now (sim: its weak timer becomes a strong one). */
	rt_clock_kick(runtime, &display->actor, due);
}

void
hw_display_flip_immediate(struct hw_display *display, uint64_t flip_id)
{
	uint64_t now = rt_clock_now(display->adapter->runtime);

	display_lock(display);
	/* Not at a vsync instant: the frame being scanned out shows two surfaces. */
	if (now != rt_add_ns(display->epoch_ns, display->vsync_count * display->period_ns) &&
	    (!display->is_torn_counted || display->torn_vsync != display->vsync_count)) {
		display->torn_frames++;
		display->torn_vsync = display->vsync_count;
		display->is_torn_counted = true;
	}
	display->scanout_flip = flip_id;
	display->scanout_vsync = display->vsync_count;
	display_unlock(display);
}

fsr_status
fsr_test_display_get_state(struct fsr_runtime *runtime, uint32_t adapter_id, uint32_t source_id,
			   struct fsr_test_display_state *state)
{
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (!state || adapter_id >= runtime->adapter_count ||
	    source_id >= runtime->adapters[adapter_id]->config.display_count) {
		status = FSR_ERR_INVALID_ARGUMENT;
	} else {
		struct hw_display *display =
		    &runtime->adapters[adapter_id]->gpu->displays[source_id];

		display_lock(display);
		*state = (struct fsr_test_display_state){
		    .period_ns = display->period_ns,
		    .vsync_count = display->vsync_count,
		    .scanout_flip_id = display->scanout_flip,
		    .pending_flip_id = display->pending_flip,
		    .flips_latched = display->flips_latched,
		    .torn_frames = display->torn_frames,
		};
		display_unlock(display);
	}
	rt_unlock(runtime);
	return status;
}
