/* SPDX-License-Identifier: MIT */
/*
 * Sim-mode interleaving: the hardware and the OS truly concurrent, deterministically. Without
 * it a sim step runs to its end before the next one starts, so the GPU and the OS never meet
 * between two accesses to a shared word. With it every actor (each engine, the OS actor, and
 * the API caller — the thread that called the public API, inside a DDI such as
 * UpdateMonitoredValues or writing a ring) runs on a thread of its own, and the threads pass
 * one baton: exactly one runs at a time. At each point (an accessor of common-private.h, before
 * its access) the scheduler may hand the baton to another actor: one switched out earlier, or
 * a new step of an actor (one due at this instant, or any engine, whose command processor
 * polls, UMS-18; a step that finds nothing due does nothing). Which one is decided by a seeded
 * PRNG (its own, not fsr_runtime_random's, so a run without interleaving is unchanged) and by a
 * test's script, so the same seed gives the same run.
 *
 * The runtime lock becomes the scheduler's: an actor that holds it and is switched out keeps
 * it; one that needs it leaves the baton until the holder lets go. Engines do not take it for
 * their step, only to call the interrupt routine (rt_isr_enter). When the caller lets go of
 * the lock, every actor still in the middle of a step runs to its end first, so that the caller
 * returns to its program with nothing half done. This file knows nothing of GPUs or fences.
 */
#include <stdlib.h>
#include <string.h>

#include "common/common-private.h"

#define IL_MAX_SLOTS (RT_MAX_ACTORS + 1)
#define IL_CALLER    0
#define IL_NONE      (-1)

/* One actor's thread; slot 0 is the caller (the thread that runs the public API). */
struct il_slot {
	struct rt_interleave *il;
	int index;
	struct rt_actor *actor; /* NULL for the caller */
	pthread_t thread;
	bool has_thread;
	bool has_command; /* run one step */
	bool is_mid_step;
	enum rt_point until; /* scripted: hand the baton back on reaching it */
	int return_to;
	uint32_t occurrences[RT_POINT_COUNT];
};

struct rt_interleave {
	struct fsr_runtime *runtime;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int baton;
	bool is_exiting;
	struct il_slot slots[IL_MAX_SLOTS];
	int slot_count;
	int ready[IL_MAX_SLOTS]; /* switched out at a point, in the order they were */
	int ready_count;
	int lock_holder;
	int lock_waiters[IL_MAX_SLOTS];
	int lock_waiter_count;
	uint64_t seed;
	uint64_t rng;
	struct rt_interleave_switch *script;
	bool *fired;
	size_t script_count;
	rt_interleave_observer observer;
	void *observer_data;
	struct rt_interleave_stats stats;
};

static _Thread_local struct rt_interleave *il_thread_state;
static _Thread_local int il_thread_slot;

static const char *const point_names[RT_POINT_COUNT] = {
    [RT_POINT_NONE] = "none",
    [RT_POINT_STEP_END] = "step-end",
    [RT_POINT_GPU_READ_WRITE_PTR] = "gpu-read-write-ptr",
    [RT_POINT_GPU_READ_READ_PTR] = "gpu-read-read-ptr",
    [RT_POINT_GPU_WRITE_READ_PTR] = "gpu-write-read-ptr",
    [RT_POINT_GPU_READ_RING_SLOT] = "gpu-read-ring-slot",
    [RT_POINT_GPU_READ_CURRENT_VALUE] = "gpu-read-current-value",
    [RT_POINT_GPU_WRITE_CURRENT_VALUE] = "gpu-write-current-value",
    [RT_POINT_GPU_WRITE_LOG_ENTRY] = "gpu-write-log-entry",
    [RT_POINT_GPU_READ_LOG_HEADER] = "gpu-read-log-header",
    [RT_POINT_GPU_WRITE_LOG_HEADER] = "gpu-write-log-header",
    [RT_POINT_GPU_BARRIER] = "gpu-barrier",
    [RT_POINT_GPU_READ_MONITORED_VALUE] = "gpu-read-monitored-value",
    [RT_POINT_OS_READ_CURRENT_VALUE] = "os-read-current-value",
    [RT_POINT_OS_WRITE_CURRENT_VALUE] = "os-write-current-value",
    [RT_POINT_OS_READ_MONITORED_VALUE] = "os-read-monitored-value",
    [RT_POINT_OS_WRITE_MONITORED_VALUE] = "os-write-monitored-value",
    [RT_POINT_OS_BARRIER] = "os-barrier",
    [RT_POINT_OS_READ_LOG_HEADER] = "os-read-log-header",
    [RT_POINT_OS_READ_LOG_ENTRY] = "os-read-log-entry",
    [RT_POINT_OS_READ_LAST_QUEUED] = "os-read-last-queued",
    [RT_POINT_OS_READ_RING] = "os-read-ring",
    [RT_POINT_UMD_READ_WRITE_PTR] = "umd-read-write-ptr",
    [RT_POINT_UMD_READ_READ_PTR] = "umd-read-read-ptr",
    [RT_POINT_UMD_WRITE_RING_SLOT] = "umd-write-ring-slot",
    [RT_POINT_UMD_WRITE_LAST_QUEUED] = "umd-write-last-queued",
    [RT_POINT_UMD_WRITE_WRITE_PTR] = "umd-write-write-ptr",
    [RT_POINT_UMD_READ_LAST_QUEUED] = "umd-read-last-queued",
    [RT_POINT_USER_READ_CURRENT_VALUE] = "user-read-current-value",
    [RT_POINT_USER_READ_MONITORED_VALUE] = "user-read-monitored-value",
    [RT_POINT_UMD_RING_DOORBELL] = "umd-ring-doorbell",
    [RT_POINT_UMD_READ_DOORBELL_STATUS] = "umd-read-doorbell-status",
    [RT_POINT_OS_WRITE_DOORBELL_STATUS] = "os-write-doorbell-status",
    [RT_POINT_OS_ROTATE_DOORBELL] = "os-rotate-doorbell",
    [RT_POINT_GPU_READ_DOORBELL] = "gpu-read-doorbell",
};

const char *
rt_point_name(enum rt_point point)
{
	return point < RT_POINT_COUNT && point_names[point] ? point_names[point] : "?";
}

/* splitmix64: the scheduler's own generator. */
static uint64_t
il_random(struct rt_interleave *il)
{
	uint64_t z = (il->rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int
il_self(struct rt_interleave *il)
{
	return il_thread_state == il ? il_thread_slot : IL_CALLER;
}

static const char *
il_label(struct rt_interleave *il, int slot)
{
	return slot == IL_CALLER ? "caller" : il->slots[slot].actor->label;
}

/* Slot i + 1 is the clock's actor i; actors join as adapters are added. */
static void
il_sync_slots(struct rt_interleave *il)
{
	struct rt_clock *clock = &il->runtime->clock;

	for (size_t i = 0; i < clock->actor_count; i++) {
		struct il_slot *slot = &il->slots[i + 1];

		if (!slot->actor) {
			slot->actor = clock->actors[i];
			slot->il = il;
			slot->index = (int) i + 1;
			slot->until = RT_POINT_NONE;
			slot->return_to = IL_NONE;
		}
	}
	il->slot_count = (int) clock->actor_count + 1;
}

static int
il_slot_of_actor(struct rt_interleave *il, struct rt_actor *actor)
{
	il_sync_slots(il);
	for (int s = 1; s < il->slot_count; s++)
		if (il->slots[s].actor == actor)
			return s;
	abort(); /* every actor joins the clock before it runs */
}

static int
il_slot_of_label(struct rt_interleave *il, const char *label)
{
	if (strcmp(label, "caller") == 0)
		return IL_CALLER;
	for (int s = 1; s < il->slot_count; s++)
		if (strcmp(il->slots[s].actor->label, label) == 0)
			return s;
	return IL_NONE;
}

static bool
il_is_ready(struct rt_interleave *il, int slot)
{
	for (int i = 0; i < il->ready_count; i++)
		if (il->ready[i] == slot)
			return true;
	return false;
}

static void
il_ready_remove(struct rt_interleave *il, int slot)
{
	for (int i = 0; i < il->ready_count; i++) {
		if (il->ready[i] == slot) {
			memmove(&il->ready[i], &il->ready[i + 1],
				(size_t) (il->ready_count - i - 1) * sizeof(il->ready[0]));
			il->ready_count--;
			return;
		}
	}
}

/* The next of the switched-out actors to resume: random when seeded, else the latest. */
static int
il_ready_pick(struct rt_interleave *il)
{
	int i = il->seed ? (int) (il_random(il) % (uint64_t) il->ready_count) : il->ready_count - 1;
	int slot = il->ready[i];

	il_ready_remove(il, slot);
	return slot;
}

static void
il_give(struct rt_interleave *il, int slot)
{
	il->baton = slot;
	pthread_cond_broadcast(&il->cond);
}

static void
il_wait_baton(struct rt_interleave *il, int me)
{
	while (il->baton != me)
		pthread_cond_wait(&il->cond, &il->mutex);
}

static void *il_thread(void *data);

/* A new step of `slot`'s actor, on its thread (mutex held, the slot not in a step). */
static void
il_start(struct rt_interleave *il, int slot)
{
	struct il_slot *s = &il->slots[slot];

	s->is_mid_step = true;
	s->has_command = true;
	if (!s->has_thread) {
		if (pthread_create(&s->thread, NULL, il_thread, s) != 0)
			abort(); /* the scheduler cannot lose an actor */
		s->has_thread = true;
	}
}

static bool
il_can_run(struct rt_interleave *il, int slot)
{
	return il_is_ready(il, slot) || (slot != IL_CALLER && !il->slots[slot].is_mid_step);
}

/* `me` is switched out at a point and hands the baton to `to` (mutex held). */
static void
il_switch(struct rt_interleave *il, int me, int to)
{
	il->ready[il->ready_count++] = me;
	if (il_is_ready(il, to)) {
		il_ready_remove(il, to);
	} else {
		rt_clock_take_due(il->runtime, il->slots[to].actor);
		il->stats.started++;
		il_start(il, to);
	}
	il_give(il, to);
	il_wait_baton(il, me);
}

/* `me`'s step ended: the baton goes to whoever was switched out, else back to the caller. */
static void
il_step_end(struct rt_interleave *il, int me)
{
	struct il_slot *s = &il->slots[me];
	int next = IL_CALLER;

	if (s->return_to != IL_NONE && il_is_ready(il, s->return_to)) {
		next = s->return_to;
		il_ready_remove(il, next);
	} else if (il->ready_count > 0) {
		next = il_ready_pick(il);
	}
	s->return_to = IL_NONE;
	s->until = RT_POINT_NONE;
	il_give(il, next);
}

static void *
il_thread(void *data)
{
	struct il_slot *s = data;
	struct rt_interleave *il = s->il;

	il_thread_state = il;
	il_thread_slot = s->index;
	pthread_mutex_lock(&il->mutex);
	for (;;) {
		while (il->baton != s->index || (!s->has_command && !il->is_exiting))
			pthread_cond_wait(&il->cond, &il->mutex);
		if (!s->has_command)
			break; /* exiting */
		s->has_command = false;
		pthread_mutex_unlock(&il->mutex);
		rt_clock_run_actor(il->runtime, s->actor);
		pthread_mutex_lock(&il->mutex);
		s->is_mid_step = false;
		il_step_end(il, s->index);
	}
	il_give(il, IL_CALLER);
	pthread_mutex_unlock(&il->mutex);
	return NULL;
}

/* The clock's run_step: the step rt_clock_step chose, on the actor's thread. */
static void
il_run_step(struct fsr_runtime *runtime, struct rt_actor *actor)
{
	struct rt_interleave *il = runtime->interleave;
	int slot;

	pthread_mutex_lock(&il->mutex);
	FSR_ASSERT_PRE("interleave-run-step:by-the-caller", il_self(il) == IL_CALLER);
	FSR_ASSERT_PRE("interleave-run-step:nothing-switched-out", il->ready_count == 0);
	slot = il_slot_of_actor(il, actor);
	il_start(il, slot);
	il_give(il, slot);
	il_wait_baton(il, IL_CALLER);
	pthread_mutex_unlock(&il->mutex);
}

void
rt_interleave_point(struct fsr_runtime *runtime, enum rt_point point)
{
	struct rt_interleave *il = runtime->interleave;
	struct il_slot *s;
	int me;
	int to = IL_NONE;

	if (il->observer)
		il->observer(runtime, il_label(il, il_self(il)), point, il->observer_data);
	pthread_mutex_lock(&il->mutex);
	il_sync_slots(il);
	me = il_self(il);
	s = &il->slots[me];
	il->stats.points++;
	s->occurrences[point]++;
	if (s->until == point) {
		/* A scripted run ends here: its actor waits, the one that started it goes on. */
		int back = s->return_to;

		s->until = RT_POINT_NONE;
		s->return_to = IL_NONE;
		if (back != IL_NONE && il_is_ready(il, back)) {
			il->stats.switches++;
			il_switch(il, me, back);
		}
		goto end;
	}
	/* The caller is an actor only inside the OS (lock held): outside, it is the program. */
	if (me == IL_CALLER && il->lock_holder != IL_CALLER)
		goto end;
	for (size_t i = 0; i < il->script_count; i++) {
		const struct rt_interleave_switch *sw = &il->script[i];
		int target;

		if (il->fired[i] || sw->at != point || s->occurrences[point] != sw->occurrence ||
		    strcmp(sw->actor, il_label(il, me)) != 0)
			continue;
		target = il_slot_of_label(il, sw->to);
		if (target == IL_NONE || target == me || !il_can_run(il, target))
			continue;
		il->fired[i] = true;
		il->slots[target].until = sw->until;
		il->slots[target].return_to = me;
		to = target;
		break;
	}
	if (to == IL_NONE && il->seed && il_random(il) % 4 == 0) {
		int candidates[IL_MAX_SLOTS];
		int count = 0;

		for (int c = 0; c < il->slot_count; c++)
			if (c != me && il_can_run(il, c))
				candidates[count++] = c;
		if (count > 0)
			to = candidates[il_random(il) % (uint64_t) count];
	}
	if (to != IL_NONE) {
		il->stats.switches++;
		il->stats.by_point[point][to == IL_CALLER                             ? 0
					  : il->slots[to].actor == &runtime->os_actor ? 1
										      : 2]++;
		il_switch(il, me, to);
	}
end:
	pthread_mutex_unlock(&il->mutex);
}

void
rt_interleave_lock(struct fsr_runtime *runtime)
{
	struct rt_interleave *il = runtime->interleave;
	int me;

	pthread_mutex_lock(&il->mutex);
	il_sync_slots(il);
	me = il_self(il);
	FSR_ASSERT_PRE("interleave-lock:not-recursive", il->lock_holder != me);
	if (il->lock_holder != IL_NONE) {
		/* The holder was switched out: it is ready, and hands the lock over when done. */
		FSR_ASSERT_PRE("interleave-lock:holder-can-run", il->ready_count > 0);
		il->lock_waiters[il->lock_waiter_count++] = me;
		il_give(il, il_ready_pick(il));
		il_wait_baton(il, me);
	} else {
		il->lock_holder = me;
	}
	FSR_ASSERT_PRE("interleave-lock:held", il->lock_holder == me);
	pthread_mutex_unlock(&il->mutex);
}

void
rt_interleave_unlock(struct fsr_runtime *runtime)
{
	struct rt_interleave *il = runtime->interleave;
	int me;

	pthread_mutex_lock(&il->mutex);
	me = il_self(il);
	FSR_ASSERT_PRE("interleave-unlock:held", il->lock_holder == me);
	il->lock_holder = IL_NONE;
	if (il->lock_waiter_count > 0) {
		il->lock_holder = il->lock_waiters[0];
		memmove(&il->lock_waiters[0], &il->lock_waiters[1],
			(size_t) --il->lock_waiter_count * sizeof(il->lock_waiters[0]));
		il->ready[il->ready_count++] = il->lock_holder;
	}
	/* The caller goes back to its program with every step it let run finished. */
	while (me == IL_CALLER && il->ready_count > 0) {
		il_give(il, il_ready_pick(il));
		il_wait_baton(il, IL_CALLER);
	}
	pthread_mutex_unlock(&il->mutex);
}

fsr_status
rt_interleave_enable(struct fsr_runtime *runtime, uint64_t seed,
		     const struct rt_interleave_switch *script, size_t script_count)
{
	struct rt_interleave *il;

	if (!runtime || runtime->clock.mode != FSR_CLOCK_SIM || runtime->interleave ||
	    (script_count && !script))
		return FSR_ERR_INVALID_ARGUMENT;
	il = calloc(1, sizeof(*il));
	if (!il)
		return FSR_ERR_NO_RESOURCES;
	if (script_count) {
		il->script = malloc(script_count * sizeof(*script));
		il->fired = calloc(script_count, sizeof(*il->fired));
		if (!il->script || !il->fired) {
			free(il->script);
			free(il->fired);
			free(il);
			return FSR_ERR_NO_RESOURCES;
		}
		memcpy(il->script, script, script_count * sizeof(*script));
		il->script_count = script_count;
	}
	il->runtime = runtime;
	pthread_mutex_init(&il->mutex, NULL);
	pthread_cond_init(&il->cond, NULL);
	il->baton = IL_CALLER;
	il->lock_holder = IL_NONE;
	il->seed = seed;
	il->rng = seed;
	il->slots[IL_CALLER].il = il;
	il->slots[IL_CALLER].until = RT_POINT_NONE;
	il->slots[IL_CALLER].return_to = IL_NONE;
	il_sync_slots(il);
	runtime->interleave = il;
	runtime->clock.run_step = il_run_step;
	return FSR_OK;
}

void
rt_interleave_set_observer(struct fsr_runtime *runtime, rt_interleave_observer observer, void *data)
{
	if (!runtime->interleave)
		return;
	runtime->interleave->observer = observer;
	runtime->interleave->observer_data = data;
}

void
rt_interleave_get_stats(struct fsr_runtime *runtime, struct rt_interleave_stats *stats)
{
	if (runtime->interleave)
		*stats = runtime->interleave->stats;
	else
		*stats = (struct rt_interleave_stats){0};
}

size_t
rt_interleave_fired(struct fsr_runtime *runtime)
{
	size_t fired = 0;

	if (!runtime->interleave)
		return 0;
	for (size_t i = 0; i < runtime->interleave->script_count; i++)
		fired += runtime->interleave->fired[i];
	return fired;
}

void
rt_interleave_fini(struct fsr_runtime *runtime)
{
	struct rt_interleave *il = runtime->interleave;

	if (!il)
		return;
	pthread_mutex_lock(&il->mutex);
	il->is_exiting = true;
	for (int s = 1; s < il->slot_count; s++) {
		if (!il->slots[s].has_thread)
			continue;
		il_give(il, s);
		il_wait_baton(il, IL_CALLER);
	}
	pthread_mutex_unlock(&il->mutex);
	for (int s = 1; s < il->slot_count; s++)
		if (il->slots[s].has_thread)
			pthread_join(il->slots[s].thread, NULL);
	pthread_cond_destroy(&il->cond);
	pthread_mutex_destroy(&il->mutex);
	free(il->script);
	free(il->fired);
	free(il);
	runtime->interleave = NULL;
	runtime->clock.run_step = NULL;
}
