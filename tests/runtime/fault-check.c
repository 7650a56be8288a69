/* SPDX-License-Identifier: MIT */
/*
 * The fault injection invariants and accounting (fault-check.h), from the event tap. Small
 * tables searched linearly: a test's run has tens of queues and faults, not thousands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault-check.h"

/* Field indexes: docs/trace-format.md's order, as the tap passes them. */
enum {
	FAULT_ADAPTER = 0,
	FAULT_ENGINE = 1,
	FAULT_QUEUE = 2,
	FAULT_KIND = 3,
	FAULT_DETAIL = 4,
};

#define STATUS_COMPLETED        0
#define STATUS_FAULTED          2
#define TERMINATION_ABNORMAL    1
#define LOSS_INVALID_COMMAND    5
#define WAIT_RESULT_DEVICE_LOST 2
#define INTERRUPT_NATIVE_FENCE  1
#define DELAY_NS                UINT64_C(1000000)
#define GRANULARITY_DMA_BUFFER  100

struct fault {
	enum fsr_fault_kind kind;
	uint64_t adapter, engine, queue, detail;
	bool has_faulted_packet, has_context_error, is_accounted;
};

/* One interrupt raised and not handled yet, FIFO per adapter, engine and type. */
struct raise {
	uint64_t adapter, engine, type;
	uint64_t at_ns;
	size_t delayed; /* 1 + the index of the DELAYED_INTERRUPT fault that held it; 0: none */
	struct raise *next;
};

struct queue_state {
	uint64_t queue, context, progress_fence;
	uint64_t last_progress_write;
	uint64_t last_log_position[2];
	bool has_log_position[2];
};

struct completion {
	uint64_t queue, progress;
};

struct fst_fault_check {
	struct fsr_runtime *runtime;
	struct fault *faults;
	size_t fault_count;
	struct raise *raises; /* in raise order */
	struct raise *last_raise;
	struct queue_state *queues;
	size_t queue_count;
	struct completion *completions;
	size_t completion_count;
	uint64_t *waits; /* waiter ids begun, not ended (0: a freed slot) */
	size_t wait_count;
	uint64_t raised, handled, dropped;
	bool is_tracing;           /* FST_FAULT_CHECK_TRACE set: the events it reads, on stderr */
	char event_violation[256]; /* the first invariant an event broke */
	struct fst_fault_verdict verdict;
};

static void *
grow(void *array, size_t count, size_t size)
{
	void *bigger;

	if (count & (count - 1)) /* room until the next power of two */
		return array;
	bigger = realloc(array, (count ? 2 * count : 1) * size);
	if (!bigger)
		abort();
	return bigger;
}

static void
note_in(char *violation, size_t size, const char *what, uint64_t a, uint64_t b)
{
	if (violation[0] == '\0')
		snprintf(violation, size, "%s (%#llx, %llu)", what, (unsigned long long) a,
			 (unsigned long long) b);
}

/* From an event: kept for every verdict. */
static void
note_violation(struct fst_fault_check *check, const char *what, uint64_t a, uint64_t b)
{
	note_in(check->event_violation, sizeof(check->event_violation), what, a, b);
}

/* From a verdict's own look at the run so far. */
static void
note_verdict(struct fst_fault_check *check, const char *what, uint64_t a, uint64_t b)
{
	note_in(check->verdict.violation, sizeof(check->verdict.violation), what, a, b);
}

static struct queue_state *
queue_of(struct fst_fault_check *check, uint64_t queue)
{
	for (size_t i = 0; i < check->queue_count; i++)
		if (check->queues[i].queue == queue)
			return &check->queues[i];
	return NULL;
}

static void
on_fault(struct fst_fault_check *check, const uint64_t *f)
{
	struct fault *fault;

	check->faults = grow(check->faults, check->fault_count, sizeof(*check->faults));
	fault = &check->faults[check->fault_count++];
	*fault = (struct fault){.kind = (enum fsr_fault_kind) f[FAULT_KIND],
				.adapter = f[FAULT_ADAPTER],
				.engine = f[FAULT_ENGINE],
				.queue = f[FAULT_QUEUE],
				.detail = f[FAULT_DETAIL]};
	if ((unsigned) fault->kind < FSR_FAULT_KIND_COUNT)
		check->verdict.injected[fault->kind]++;
	/* The line acts on the interrupt it just raised: the event right before this one. */
	if (fault->kind == FSR_FAULT_LOST_INTERRUPT) {
		struct raise *raise = check->last_raise;

		if (raise && raise->adapter == fault->adapter && raise->engine == fault->engine &&
		    raise->type == INTERRUPT_NATIVE_FENCE) {
			/* Dropped: it leaves the FIFO, and no handled event may match it. */
			struct raise **link = &check->raises;

			while (*link != raise)
				link = &(*link)->next;
			*link = raise->next;
			free(raise);
			check->dropped++;
			fault->is_accounted = true;
		}
		check->last_raise = NULL;
	} else if (fault->kind == FSR_FAULT_DELAYED_INTERRUPT && check->last_raise &&
		   check->last_raise->adapter == fault->adapter &&
		   check->last_raise->engine == fault->engine) {
		check->last_raise->delayed = check->fault_count; /* 1 + its index */
	}
}

static void
on_raise(struct fst_fault_check *check, const uint64_t *f)
{
	struct raise *raise = calloc(1, sizeof(*raise));
	struct raise **link = &check->raises;

	if (!raise)
		abort();
	*raise = (struct raise){.adapter = f[0],
				.engine = f[1],
				.type = f[2],
				.at_ns = fsr_runtime_now_ns(check->runtime)};
	while (*link)
		link = &(*link)->next;
	*link = raise;
	check->last_raise = raise;
	check->raised++;
}

static void
on_handled(struct fst_fault_check *check, const uint64_t *f)
{
	struct raise **link = &check->raises;

	check->handled++;
	while (*link &&
	       !((*link)->adapter == f[0] && (*link)->engine == f[1] && (*link)->type == f[2]))
		link = &(*link)->next;
	if (!*link) {
		note_violation(check, "interrupt handled that was never raised", f[1], f[2]);
		return;
	}
	struct raise *raise = *link;

	*link = raise->next;
	if (check->last_raise == raise)
		check->last_raise = NULL;
	if (raise->delayed && fsr_runtime_now_ns(check->runtime) - raise->at_ns >= DELAY_NS)
		check->faults[raise->delayed - 1].is_accounted = true;
	free(raise);
}

/* The first fault of `kind` on `queue` (0: any) not accounted for yet. */
static struct fault *
open_fault(struct fst_fault_check *check, enum fsr_fault_kind kind, uint64_t queue)
{
	for (size_t i = 0; i < check->fault_count; i++) {
		struct fault *fault = &check->faults[i];

		if (fault->kind == kind && !fault->is_accounted &&
		    (!queue || fault->queue == queue))
			return fault;
	}
	return NULL;
}

static void
on_packet_end(struct fst_fault_check *check, const uint64_t *f)
{
	uint64_t queue = f[2];
	uint64_t progress = f[4];

	if (f[6] == STATUS_FAULTED) {
		struct fault *fault = open_fault(check, FSR_FAULT_CORRUPT_PACKET, queue);

		if (fault) {
			fault->has_faulted_packet = true;
			fault->is_accounted = fault->has_context_error;
		}
		return;
	}
	if (f[6] != STATUS_COMPLETED || progress == 0)
		return;
	for (size_t i = 0; i < check->completion_count; i++)
		if (check->completions[i].queue == queue &&
		    check->completions[i].progress == progress) {
			check->verdict.repeated_completions++;
			note_violation(check, "a buffer completed twice", queue, progress);
			return;
		}
	check->completions =
	    grow(check->completions, check->completion_count, sizeof(*check->completions));
	check->completions[check->completion_count++] =
	    (struct completion){.queue = queue, .progress = progress};
}

static void
on_context_error(struct fst_fault_check *check, const uint64_t *f)
{
	if (f[4] != LOSS_INVALID_COMMAND)
		return;
	for (size_t i = 0; i < check->fault_count; i++) {
		struct fault *fault = &check->faults[i];
		struct queue_state *queue = queue_of(check, fault->queue);

		if (fault->kind == FSR_FAULT_CORRUPT_PACKET && !fault->is_accounted && queue &&
		    queue->context == f[3]) {
			fault->has_context_error = true;
			fault->is_accounted = fault->has_faulted_packet;
			return;
		}
	}
}

static void
on_progress_write(struct fst_fault_check *check, const uint64_t *f)
{
	struct queue_state *queue = queue_of(check, f[2]);

	if (!queue || queue->progress_fence != f[3])
		return;
	if (f[4] <= queue->last_progress_write) {
		check->verdict.repeated_progress_writes++;
		note_violation(check, "a progress value written again", f[2], f[4]);
	}
	queue->last_progress_write = f[4];
}

static void
on_log_entry(struct fst_fault_check *check, const uint64_t *f)
{
	struct queue_state *queue = queue_of(check, f[0]);
	unsigned type = f[1] & 1u;

	if (!queue)
		return;
	if (queue->has_log_position[type] && f[2] <= queue->last_log_position[type]) {
		check->verdict.repeated_log_entries++;
		note_violation(check, "a log entry read twice", f[0], f[2]);
	}
	queue->has_log_position[type] = true;
	queue->last_log_position[type] = f[2];
}

static void
on_wait(struct fst_fault_check *check, const uint64_t *f, bool is_begin)
{
	if (is_begin) {
		check->waits = grow(check->waits, check->wait_count, sizeof(*check->waits));
		check->waits[check->wait_count++] = f[1];
		return;
	}
	if (f[4] == WAIT_RESULT_DEVICE_LOST)
		check->verdict.device_lost_waits++;
	for (size_t i = 0; i < check->wait_count; i++)
		if (check->waits[i] == f[1]) {
			check->waits[i] = 0;
			return;
		}
}

static void
on_event(void *user_data, const char *name, const uint64_t *f, uint32_t count)
{
	struct fst_fault_check *check = user_data;
	struct fault *fault;

	(void) count;
	check->verdict.events++;
	if (check->is_tracing &&
	    (strstr(name, "interrupt") || strstr(name, "fault") || strstr(name, "terminate") ||
	     strstr(name, "overrun") || strstr(name, "context_error") || strstr(name, "cpu_wait") ||
	     strstr(name, "tdr") || strstr(name, "packet_") || strstr(name, "current_value") ||
	     strstr(name, "preempt")))
		fprintf(stderr, "# %12llu %s %llu %llu %llu %llu %llu\n",
			(unsigned long long) fsr_runtime_now_ns(check->runtime), name,
			(unsigned long long) f[0], (unsigned long long) f[1],
			(unsigned long long) f[2], (unsigned long long) f[3],
			(unsigned long long) f[4]);
	if (!strcmp(name, "fencescope_os:fault_injected")) {
		on_fault(check, f);
	} else if (!strcmp(name, "fencescope_hw:interrupt_raise")) {
		on_raise(check, f);
	} else if (!strcmp(name, "fencescope_os:interrupt_handled")) {
		on_handled(check, f);
	} else if (!strcmp(name, "fencescope_hw:packet_end")) {
		on_packet_end(check, f);
	} else if (!strcmp(name, "fencescope_os:context_error")) {
		on_context_error(check, f);
	} else if (!strcmp(name, "fencescope_hw:fence_value_write")) {
		on_progress_write(check, f);
	} else if (!strcmp(name, "fencescope_os:fence_log_entry")) {
		on_log_entry(check, f);
	} else if (!strcmp(name, "fencescope_os:cpu_wait_begin")) {
		on_wait(check, f, true);
	} else if (!strcmp(name, "fencescope_os:cpu_wait_end")) {
		on_wait(check, f, false);
	} else if (!strcmp(name, "fencescope_os:hwqueue_create")) {
		check->queues = grow(check->queues, check->queue_count, sizeof(*check->queues));
		check->queues[check->queue_count++] =
		    (struct queue_state){.queue = f[2], .context = f[1], .progress_fence = f[6]};
	} else if (!strcmp(name, "fencescope_os:process_terminate")) {
		if (f[1] != TERMINATION_ABNORMAL)
			return;
		for (size_t i = 0; i < check->fault_count; i++)
			if (check->faults[i].kind == FSR_FAULT_PROCESS_KILLED &&
			    !check->faults[i].is_accounted && check->faults[i].detail == f[0]) {
				check->faults[i].is_accounted = true;
				break;
			}
	} else if (!strcmp(name, "fencescope_os:fence_log_overrun")) {
		if ((fault = open_fault(check, FSR_FAULT_LOG_OVERRUN_STORM, f[1])))
			fault->is_accounted = true;
	} else if (!strcmp(name, "fencescope_hw:preempt_complete")) {
		/* Stopped only at the end of its packet: coarser than any finer declared. */
		if (f[5] != GRANULARITY_DMA_BUFFER)
			return;
		for (size_t i = 0; i < check->fault_count; i++) {
			fault = &check->faults[i];
			if (fault->kind == FSR_FAULT_IGNORES_PREEMPTION && !fault->is_accounted &&
			    fault->adapter == f[0] && fault->engine == f[1]) {
				fault->is_accounted = true;
				break;
			}
		}
	} else if (!strcmp(name, "fencescope_os:tdr_begin")) {
		for (size_t i = 0; i < check->fault_count; i++) {
			fault = &check->faults[i];
			if ((fault->kind == FSR_FAULT_HUNG_ENGINE ||
			     fault->kind == FSR_FAULT_IGNORES_PREEMPTION) &&
			    !fault->is_accounted && fault->adapter == f[0] && fault->engine == f[1])
				fault->is_accounted = true;
		}
	}
}

struct fst_fault_check *
fst_fault_check_new(struct fsr_runtime *runtime)
{
	struct fst_fault_check *check = calloc(1, sizeof(*check));

	if (!check)
		abort();
	check->runtime = runtime;
	check->is_tracing = getenv("FST_FAULT_CHECK_TRACE") != NULL;
	fsr_runtime_set_event_tap(runtime, on_event, check);
	return check;
}

void
fst_fault_check_free(struct fst_fault_check *check)
{
	if (!check)
		return;
	fsr_runtime_set_event_tap(check->runtime, NULL, NULL);
	while (check->raises) {
		struct raise *next = check->raises->next;

		free(check->raises);
		check->raises = next;
	}
	free(check->faults);
	free(check->queues);
	free(check->completions);
	free(check->waits);
	free(check);
}

bool
fst_fault_check_verify(struct fst_fault_check *check, struct fst_fault_verdict *verdict)
{
	struct fst_fault_verdict *v = &check->verdict;

	snprintf(v->violation, sizeof(v->violation), "%s", check->event_violation);
	fsr_test_invariants(check->runtime, &v->state);
	v->unmatched_interrupts = (uint32_t) (check->raised - check->handled - check->dropped);
	if (v->unmatched_interrupts)
		note_verdict(check, "interrupts raised and never handled (not dropped)",
			     check->raised, check->handled);
	v->unended_waits = 0;
	for (size_t i = 0; i < check->wait_count; i++)
		if (check->waits[i])
			v->unended_waits++;
	if (v->unended_waits)
		note_verdict(check, "CPU waits that never ended", v->unended_waits, 0);
	if (v->state.stuck_innocent_queues)
		note_verdict(check, "innocent queues with work that never ran",
			     v->state.stuck_innocent_queues, v->state.innocent_queues);
	if (v->state.waiting)
		note_verdict(check, "waiters left without DEVICE_LOST", v->state.waiting,
			     v->state.unreleased_waiters);
	v->invariants_hold = v->violation[0] == '\0' && v->repeated_completions == 0 &&
			     v->repeated_progress_writes == 0 && v->repeated_log_entries == 0;
	for (int kind = 0; kind < FSR_FAULT_KIND_COUNT; kind++)
		v->accounted[kind] = 0;
	for (size_t i = 0; i < check->fault_count; i++)
		if (check->faults[i].is_accounted &&
		    (unsigned) check->faults[i].kind < FSR_FAULT_KIND_COUNT)
			v->accounted[check->faults[i].kind]++;
	for (int kind = 0; kind < FSR_FAULT_KIND_COUNT; kind++)
		if (v->accounted[kind] != v->injected[kind])
			note_verdict(check, fsr_fault_kind_name((enum fsr_fault_kind) kind),
				     v->injected[kind], v->accounted[kind]);
	*verdict = *v;
	return v->invariants_hold && v->violation[0] == '\0';
}
