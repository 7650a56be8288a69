/* SPDX-License-Identifier: MIT */
/*
 * The two clocks of the runtime, one interface. Actors (engines, the OS) are state machines
 * whose step says when it wants to run next; the clock decides how that happens.
 *
 * Sim mode is a discrete-event loop in virtual time: a binary heap of timers, one valid timer
 * per actor (a later kick for an earlier time supersedes it by generation), ties broken by
 * arrival order, so the same calls always give the same sequence. Nothing runs unless the
 * caller steps the loop, directly or by blocking in a wait.
 *
 * Realtime mode gives each actor a thread on CLOCK_MONOTONIC that sleeps on a futex word
 * until its next due time or a kick; blocked callers sleep on a futex word of their own.
 * This file knows nothing of GPUs or fences.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/common-private.h"
#include "common/sim-clock-private.h"

/*
 * When this process records through the sim clock plugin (LTTNG_UST_CLOCK_PLUGIN names
 * libfencescope-sim-clock), sim time is published to the plugin's shared word so that event
 * timestamps are virtual time (runtime/clock-plugin.c).
 */
static _Atomic uint64_t *sim_trace_clock_word;
static pthread_once_t sim_trace_clock_once = PTHREAD_ONCE_INIT;

static void
sim_trace_clock_look_up(void)
{
	const char *plugin = getenv("LTTNG_UST_CLOCK_PLUGIN");

	if (plugin && strstr(plugin, "fencescope-sim-clock"))
		sim_trace_clock_word = fsr_sim_clock_map();
}

static _Atomic uint64_t *
sim_trace_clock(void)
{
	pthread_once(&sim_trace_clock_once, sim_trace_clock_look_up);
	return sim_trace_clock_word;
}

static void
sim_set_now(struct rt_clock *clock, uint64_t now_ns)
{
	clock->now_ns = now_ns;
	if (clock->trace_clock)
		fsr_sim_clock_advance(clock->trace_clock, now_ns);
}

/*
 * Sim-mode recordings: no two events get the same timestamp. LTTng-UST writes an event to the
 * ring buffer of the CPU the thread runs on, so a thread that migrates puts consecutive events
 * into two streams; the reader's muxer orders streams by time only, and two events of one
 * instant in two streams could come out in either order (a log read reordered: a false
 * overrun count, a loss range ending before it begins, a timestamp going backwards). So each
 * event takes a nanosecond of virtual time of its own: the event fired at now_ns, and virtual
 * time, and with it the shared word, moves to now_ns + 1. Only the runtime moves the word; the
 * plugin and the consumer daemon only read it, so a packet boundary the consumer writes is
 * never after an event that follows it and never before one that precedes it. Virtual time
 * and the trace clock stay one clock: GPU timestamps read after an event map onto the next
 * event's time exactly. A timer due during those nanoseconds runs at the end of them.
 */
void
rt_clock_tick_after_event(struct rt_clock *clock)
{
	sim_set_now(clock, clock->now_ns + 1);
}

static uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns)
{
	struct timespec ts = {.tv_sec = (time_t) (timeout_ns / 1000000000u),
			      .tv_nsec = (long) (timeout_ns % 1000000000u)};

	syscall(SYS_futex, (uint32_t *) word, FUTEX_WAIT_PRIVATE, expected,
		timeout_ns == FSR_NEVER ? NULL : &ts, NULL, 0);
}

static void
futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *) word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void
rt_clock_init(struct rt_clock *clock, enum fsr_clock_mode mode)
{
	*clock = (struct rt_clock){.mode = mode, .now_ns = 1000000000u};
	atomic_init(&clock->is_running, false);
	atomic_init(&clock->steps, 0);
	if (mode == FSR_CLOCK_SIM && (clock->trace_clock = sim_trace_clock())) {
		/* Continue after any earlier run: the trace clock never goes back. */
		uint64_t published = atomic_load(clock->trace_clock);

		if (published > clock->now_ns)
			clock->now_ns = published;
		sim_set_now(clock, clock->now_ns);
	}
}

void
rt_clock_fini(struct rt_clock *clock)
{
	free(clock->heap);
	clock->heap = NULL;
}

uint64_t
rt_clock_now(struct fsr_runtime *runtime)
{
	if (runtime->clock.mode == FSR_CLOCK_SIM)
		return runtime->clock.now_ns;
	return monotonic_ns();
}

uint64_t
rt_clock_trace_ns(struct fsr_runtime *runtime, uint64_t now_ns)
{
	struct rt_clock *clock = &runtime->clock;

	/*
	 * The word is at least the runtime's virtual time and more only when another sim runtime
	 * of the same user moved it further: events are then stamped with the word, not with this
	 * runtime's time, and the pair must say so.
	 */
	if (clock->mode == FSR_CLOCK_SIM && clock->trace_clock) {
		uint64_t word = atomic_load_explicit(clock->trace_clock, memory_order_relaxed);

		return word > now_ns ? word : now_ns;
	}
	return now_ns;
}

/* ---- sim: the timer heap ------------------------------------------------------------------ */

static bool
timer_before(const struct rt_timer *a, const struct rt_timer *b)
{
	return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void
heap_push(struct rt_clock *clock, struct rt_timer timer)
{
	size_t i;

	if (clock->heap_count == clock->heap_capacity) {
		size_t capacity = clock->heap_capacity ? clock->heap_capacity * 2 : 64;
		struct rt_timer *heap = realloc(clock->heap, capacity * sizeof(*heap));

		if (!heap)
			abort(); /* the model cannot lose a timer: out of memory is fatal */
		clock->heap = heap;
		clock->heap_capacity = capacity;
	}
	i = clock->heap_count++;
	while (i > 0 && timer_before(&timer, &clock->heap[(i - 1) / 2])) {
		clock->heap[i] = clock->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	clock->heap[i] = timer;
}

static struct rt_timer
heap_pop(struct rt_clock *clock)
{
	struct rt_timer top = clock->heap[0];
	struct rt_timer last = clock->heap[--clock->heap_count];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= clock->heap_count)
			break;
		if (child + 1 < clock->heap_count &&
		    timer_before(&clock->heap[child + 1], &clock->heap[child]))
			child++;
		if (!timer_before(&clock->heap[child], &last))
			break;
		clock->heap[i] = clock->heap[child];
		i = child;
	}
	if (clock->heap_count > 0)
		clock->heap[i] = last;
	return top;
}

static bool
timer_is_valid(const struct rt_timer *timer)
{
	return timer->actor->is_scheduled && timer->actor->generation == timer->generation;
}

/* Drops superseded timers from the top so heap[0] is the next real one. */
static bool
heap_peek_valid(struct rt_clock *clock)
{
	while (clock->heap_count > 0 && !timer_is_valid(&clock->heap[0]))
		heap_pop(clock);
	return clock->heap_count > 0;
}

static void
sim_schedule(struct rt_clock *clock, struct rt_actor *actor, uint64_t at_ns, bool is_weak)
{
	if (at_ns < clock->now_ns)
		at_ns = clock->now_ns;
	if (actor->is_scheduled) {
		if (actor->due_ns <= at_ns) {
			/* Running earlier than asked is harmless: the step says what is due. */
			if (actor->is_scheduled_weak && !is_weak) {
				actor->is_scheduled_weak = false;
				clock->strong_count++;
			}
			return;
		}
		if (!actor->is_scheduled_weak)
			clock->strong_count--;
	}
	actor->is_scheduled = true;
	actor->is_scheduled_weak = is_weak;
	actor->due_ns = at_ns;
	actor->generation++;
	if (!is_weak)
		clock->strong_count++;
	heap_push(clock, (struct rt_timer){.due_ns = at_ns,
					   .seq = clock->seq++,
					   .generation = actor->generation,
					   .actor = actor});
}

void
rt_clock_run_actor(struct fsr_runtime *runtime, struct rt_actor *actor)
{
	struct rt_clock *clock = &runtime->clock;
	uint64_t next;

	actor->next_is_weak = false;
	next = actor->step(actor, clock->now_ns);
	if (next != FSR_NEVER)
		sim_schedule(clock, actor, next, actor->next_is_weak);
	atomic_fetch_add_explicit(&clock->steps, 1, memory_order_relaxed);
}

void
rt_clock_take_due(struct fsr_runtime *runtime, struct rt_actor *actor)
{
	struct rt_clock *clock = &runtime->clock;

	/* Its timer is left in the heap, invalid: heap_peek_valid drops it. */
	if (!actor->is_scheduled || actor->due_ns > clock->now_ns)
		return;
	actor->is_scheduled = false;
	if (!actor->is_scheduled_weak)
		clock->strong_count--;
}

bool
rt_clock_step(struct fsr_runtime *runtime)
{
	struct rt_clock *clock = &runtime->clock;
	struct rt_timer timer;
	struct rt_actor *actor;

	if (!heap_peek_valid(clock))
		return false;
	timer = heap_pop(clock);
	actor = timer.actor;
	actor->is_scheduled = false;
	if (!actor->is_scheduled_weak)
		clock->strong_count--;
	/* Events may have moved virtual time past the due time (rt_clock_tick_after_event). */
	if (timer.due_ns > clock->now_ns)
		sim_set_now(clock, timer.due_ns);
	clock->is_stepping = true;
	if (clock->run_step) /* sim-mode interleaving: on the actor's thread */
		clock->run_step(runtime, actor);
	else
		rt_clock_run_actor(runtime, actor);
	clock->is_stepping = false;
	if (runtime->clock.after_step)
		runtime->clock.after_step(runtime);
	return true;
}

/* ---- realtime: a thread per actor --------------------------------------------------------- */

/*
 * A polling actor spins instead of sleeping: until its poll finds work, a kick comes, its due
 * time passes or the clock stops (true: step again), or its poll says there is nothing to watch
 * (false: sleep as usual).
 */
static bool
poll_until(struct rt_actor *actor, uint64_t next)
{
	struct fsr_runtime *runtime = actor->runtime;

	for (uint32_t spins = 0;; spins++) {
		enum rt_poll poll;

		if (atomic_load_explicit(&actor->kick, memory_order_relaxed) ||
		    !atomic_load_explicit(&runtime->clock.is_running, memory_order_relaxed))
			return true;
		poll = actor->poll(actor);
		if (poll != RT_POLL_SPIN)
			return poll == RT_POLL_WORK;
		/*
		 * The clock is read now and then only: a spin is a few loads. So is the CPU given
		 * up: on a machine with more runnable threads than cores (the UMD's among them), a
		 * spinner that never yields holds back the work it waits for.
		 */
		if (spins % 64 == 63) {
			if (next != FSR_NEVER && monotonic_ns() >= next)
				return true;
			sched_yield();
		}
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

static void *
actor_thread(void *data)
{
	struct rt_actor *actor = data;
	struct fsr_runtime *runtime = actor->runtime;

	for (;;) {
		uint64_t now;
		uint64_t next;

		/*
		 * Clear the kick before testing is_running: a stop that lands between the two
		 * then leaves kick = 1, and the wait below returns at once.
		 */
		atomic_store(&actor->kick, 0);
		if (!atomic_load(&runtime->clock.is_running))
			break;
		now = monotonic_ns();
		next = actor->step(actor, now);
		atomic_fetch_add_explicit(&runtime->clock.steps, 1, memory_order_relaxed);
		if (runtime->clock.after_step)
			runtime->clock.after_step(runtime);
		now = monotonic_ns();
		if (next != FSR_NEVER && next <= now)
			continue;
		if (actor->poll && poll_until(actor, next))
			continue;
		/*
		 * A kick that came during the step leaves kick = 1 and the wait returns at once.
		 * is_sleeping before the wait's look at kick, the kicker's kick before its look at
		 * is_sleeping (both seq_cst): either the wait sees the kick or the kicker wakes it.
		 */
		atomic_store(&actor->is_sleeping, 1);
		futex_wait(&actor->kick, 0, next == FSR_NEVER ? FSR_NEVER : next - now);
		atomic_store(&actor->is_sleeping, 0);
	}
	return NULL;
}

void
rt_clock_add_actor(struct fsr_runtime *runtime, struct rt_actor *actor)
{
	struct rt_clock *clock = &runtime->clock;

	size_t same_name = 0;

	actor->runtime = runtime;
	atomic_init(&actor->kick, 0);
	atomic_init(&actor->is_sleeping, 0);
	for (size_t i = 0; i < clock->actor_count; i++)
		same_name += strcmp(clock->actors[i]->name, actor->name) == 0;
	if (strcmp(actor->name, "os") == 0)
		snprintf(actor->label, sizeof(actor->label), "%s", actor->name);
	else
		snprintf(actor->label, sizeof(actor->label), "%s%zu", actor->name, same_name);
	clock->actors[clock->actor_count++] = actor;
	if (clock->mode == FSR_CLOCK_REALTIME && atomic_load(&clock->is_running)) {
		if (pthread_create(&actor->thread, NULL, actor_thread, actor) == 0)
			actor->has_thread = true;
	}
}

fsr_status
rt_clock_start(struct fsr_runtime *runtime)
{
	struct rt_clock *clock = &runtime->clock;

	if (clock->mode != FSR_CLOCK_REALTIME)
		return FSR_OK;
	atomic_store(&clock->is_running, true);
	for (size_t i = 0; i < clock->actor_count; i++) {
		struct rt_actor *actor = clock->actors[i];

		if (!actor->has_thread &&
		    pthread_create(&actor->thread, NULL, actor_thread, actor) == 0)
			actor->has_thread = true;
		if (!actor->has_thread)
			return FSR_ERR_NO_RESOURCES;
	}
	return FSR_OK;
}

void
rt_clock_stop(struct fsr_runtime *runtime)
{
	struct rt_clock *clock = &runtime->clock;

	if (clock->mode != FSR_CLOCK_REALTIME)
		return;
	atomic_store(&clock->is_running, false);
	for (size_t i = 0; i < clock->actor_count; i++) {
		struct rt_actor *actor = clock->actors[i];

		if (!actor->has_thread)
			continue;
		atomic_store(&actor->kick, 1);
		futex_wake(&actor->kick);
		pthread_join(actor->thread, NULL);
		actor->has_thread = false;
	}
}

void
rt_clock_kick(struct fsr_runtime *runtime, struct rt_actor *actor, uint64_t at_ns)
{
	if (runtime->clock.mode == FSR_CLOCK_SIM) {
		sim_schedule(&runtime->clock, actor, at_ns, false);
		return;
	}
	/*
	 * Realtime actors compute their own due times; a kick makes them look now. A system call
	 * only for an actor that sleeps, or may be going to (actor_thread): one that is stepping
	 * or spinning sees kick = 1 before it sleeps; and a kick already pending was or will be
	 * seen the same way, or woken by whoever set it.
	 */
	if (atomic_exchange(&actor->kick, 1) == 0 && atomic_load(&actor->is_sleeping))
		futex_wake(&actor->kick);
}

void
rt_clock_kick_weak(struct fsr_runtime *runtime, struct rt_actor *actor, uint64_t at_ns)
{
	if (runtime->clock.mode == FSR_CLOCK_SIM)
		sim_schedule(&runtime->clock, actor, at_ns, true);
	else
		rt_clock_kick(runtime, actor, at_ns);
}

void
rt_clock_wake(_Atomic uint32_t *done)
{
	atomic_store(done, 1);
	futex_wake(done);
}

fsr_status
rt_clock_block(struct fsr_runtime *runtime, _Atomic uint32_t *done, uint64_t deadline_ns)
{
	struct rt_clock *clock = &runtime->clock;

	if (clock->mode == FSR_CLOCK_SIM) {
		FSR_ASSERT_PRE("clock-block:not-in-a-step", !clock->is_stepping);
		while (!atomic_load(done)) {
			if (!heap_peek_valid(clock) || clock->strong_count == 0) {
				if (deadline_ns == FSR_NEVER)
					return FSR_ERR_BAD_STATE;
				/* Only housekeeping is left: jump to the deadline through it. */
			}
			if (!heap_peek_valid(clock) || clock->heap[0].due_ns > deadline_ns) {
				if (deadline_ns != FSR_NEVER && deadline_ns > clock->now_ns)
					sim_set_now(clock, deadline_ns);
				return FSR_ERR_TIMEOUT;
			}
			rt_clock_step(runtime);
		}
		return FSR_OK;
	}
	while (!atomic_load(done)) {
		uint64_t now = monotonic_ns();

		if (now >= deadline_ns)
			return FSR_ERR_TIMEOUT;
		futex_wait(done, 0, deadline_ns == FSR_NEVER ? FSR_NEVER : deadline_ns - now);
	}
	return FSR_OK;
}
