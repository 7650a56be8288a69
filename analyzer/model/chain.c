/* SPDX-License-Identifier: MIT */
/*
 * The chain of causes of a wait (fsa/chain.h; the rules are docs/analyzer.md "Chains of
 * causes", each named R1..R7 here). A walk back in time: `at` is the frontier, the time the
 * next link must explain; each link holds [its begin, at] and moves `at` back to its begin, so
 * the links tile the time they cover. Three things get explained in turn — why a wait ended,
 * why a signal ran, why a packet ran when it did — by a loop, not recursion, so a long chain
 * costs no stack.
 *
 * It is not a store: every operation and packet comes through the caller's lookups.
 */
#include <string.h>

#include "fsa/chain.h"

static const char *const role_names[] = {"wait", "stall", "signal", "run", "queue", "engine",
					 "submit"};
static const char *const stop_names[] = {
    "cpu_submission", "cpu_signal", "trace_start", "horizon",   "not_observed", "inferred",
    "unqueued",       "release_unknown", "no_packet", "unexplained", "limit"};

const char *
fsa_chain_role_name(enum fsa_chain_role role)
{
	return (size_t) role < sizeof(role_names) / sizeof(role_names[0]) ? role_names[role]
									    : "unknown";
}

const char *
fsa_chain_stop_name(enum fsa_chain_stop stop)
{
	return (size_t) stop < sizeof(stop_names) / sizeof(stop_names[0]) ? stop_names[stop]
									    : "unknown";
}

enum step {
	EXPLAIN_WAIT,   /* why `item` (a wait) ended when it did */
	EXPLAIN_SIGNAL, /* why `item` (a signal) ran when it did */
	EXPLAIN_PACKET, /* why `item` (a packet) ended when it did */
	DONE,
};

struct walk {
	const struct fsa_chain_source *source;
	struct fsa_chain *chain;
	uint64_t horizon_ns, tolerance_ns;
	uint64_t at; /* the frontier: the next link holds up to here */
	enum step step;
	enum fsa_chain_role role; /* of the next link */
	struct fsa_chain_item item;
};

static bool
find_op(const struct walk *w, uint64_t id, struct fsa_chain_item *out)
{
	return w->source->find_op && id && w->source->find_op(w->source->data, id, out);
}

static void
stop(struct walk *w, enum fsa_chain_stop reason, const struct fsa_chain_item *item)
{
	w->chain->stop = reason;
	w->chain->has_stop_item = item != NULL;
	if (item)
		w->chain->stop_item = *item;
	w->step = DONE;
}

static bool
is_in_chain(const struct walk *w, enum fsa_chain_role role, const struct fsa_chain_item *item)
{
	for (size_t i = 0; i < w->chain->length; i++) {
		const struct fsa_chain_link *l = &w->chain->links[i];

		if (l->role == role && l->item.type == item->type && l->item.id == item->id &&
		    l->item.hwqueue_handle == item->hwqueue_handle)
			return true;
	}
	return false;
}

/*
 * Appends a link holding [begin, at] and moves the frontier to begin. Returns false (and stops
 * the walk) when the array is full, when the link reaches the horizon (cut there), or when the
 * item is in the chain already in that role (a loop: data the rules do not expect).
 */
static bool
add_link(struct walk *w, enum fsa_chain_role role, const struct fsa_chain_item *item,
	 uint64_t begin)
{
	struct fsa_chain_link *link;
	bool is_cut = false;

	if (w->chain->length == w->chain->capacity) {
		stop(w, FSA_CHAIN_STOP_LIMIT, item);
		return false;
	}
	if (is_in_chain(w, role, item)) {
		stop(w, FSA_CHAIN_STOP_UNEXPLAINED, item);
		return false;
	}
	if (begin == FSA_TIME_NONE || begin > w->at)
		begin = w->at;
	if (w->horizon_ns && begin < w->horizon_ns) {
		begin = w->horizon_ns < w->at ? w->horizon_ns : w->at;
		is_cut = true;
	}
	link = &w->chain->links[w->chain->length++];
	link->role = role;
	link->item = *item;
	link->hold_begin_ns = begin;
	link->hold_end_ns = w->at;
	w->at = begin;
	if (is_cut) {
		stop(w, FSA_CHAIN_STOP_HORIZON, NULL);
		return false;
	}
	return true;
}

/* R1, R2: a wait ends when the signal that released it ran; it holds the release latency. */
static void
explain_wait(struct walk *w)
{
	struct fsa_chain_item wait = w->item, signal;

	if (wait.state == FSA_OP_NEVER_COMPLETED || wait.state == FSA_OP_INFERRED) {
		if (add_link(w, w->role, &wait, w->at))
			stop(w,
			     wait.state == FSA_OP_INFERRED ? FSA_CHAIN_STOP_INFERRED
							   : FSA_CHAIN_STOP_NOT_OBSERVED,
			     &wait);
		return;
	}
	if (!find_op(w, wait.signal_op_id, &signal) || signal.type != FSA_CHAIN_ITEM_SIGNAL) {
		if (add_link(w, w->role, &wait, w->at))
			stop(w, FSA_CHAIN_STOP_RELEASE_UNKNOWN, &wait);
		return;
	}
	if (!add_link(w, w->role, &wait, signal.end_ns))
		return;
	w->step = EXPLAIN_SIGNAL;
	w->role = FSA_CHAIN_SIGNAL;
	w->item = signal;
}

/* R3: a queue's signal runs at the end of its command buffer's packet. */
static void
explain_signal(struct walk *w)
{
	struct fsa_chain_item signal = w->item, packet;
	const struct fsa_chain_source *s = w->source;
	enum fsa_chain_stop reason;

	if (signal.source == FSA_SRC_CPU)
		reason = FSA_CHAIN_STOP_CPU_SIGNAL;
	else if (signal.state == FSA_OP_INFERRED)
		reason = FSA_CHAIN_STOP_INFERRED;
	else if (signal.state == FSA_OP_UNQUEUED || !signal.progress_value)
		reason = FSA_CHAIN_STOP_UNQUEUED;
	else if (!s->find_packet || !s->find_packet(s->data, signal.hwqueue_handle,
						    signal.progress_value, &packet) ||
		 packet.end_ns == FSA_TIME_NONE)
		reason = FSA_CHAIN_STOP_NO_PACKET;
	else {
		if (!add_link(w, FSA_CHAIN_SIGNAL, &signal, packet.end_ns))
			return;
		w->step = EXPLAIN_PACKET;
		w->role = FSA_CHAIN_RUN;
		w->item = packet;
		return;
	}
	if (add_link(w, FSA_CHAIN_SIGNAL, &signal, w->at))
		stop(w, reason, &signal);
}

static uint64_t
later_of(uint64_t a, uint64_t b)
{
	return a == FSA_TIME_NONE ? b : b == FSA_TIME_NONE ? a : a > b ? a : b;
}

/* R4: a wait of the packet's own command buffer, reached inside the packet (user mode), that
 * stalled it: the latest ending one. */
static bool
stall_inside(const struct walk *w, const struct fsa_chain_item *packet,
	     struct fsa_chain_item *stall)
{
	const struct fsa_chain_source *s = w->source;
	struct fsa_chain_item wait;
	bool found = false;

	for (size_t i = 0; s->cmdbuf_wait && packet->progress_value &&
			   s->cmdbuf_wait(s->data, packet->hwqueue_handle, packet->progress_value,
					  i, &wait);
	     i++) {
		uint64_t reached = later_of(packet->start_ns, wait.start_ns);

		if (wait.state != FSA_OP_OBSERVED || wait.end_ns == FSA_TIME_NONE ||
		    reached == FSA_TIME_NONE || wait.end_ns > w->at + w->tolerance_ns ||
		    wait.end_ns <= reached + w->tolerance_ns)
			continue;
		if (!found || wait.end_ns > stall->end_ns) {
			*stall = wait;
			found = true;
		}
	}
	return found;
}

enum cause { CAUSE_NONE, CAUSE_SUBMIT, CAUSE_ENGINE, CAUSE_QUEUE, CAUSE_WAIT };

struct candidate {
	enum cause cause;
	uint64_t ns;
	struct fsa_chain_item item;
};

/* The latest cause wins; of equal times the one ranked higher (a wait, then the queue, then the
 * engine, then the CPU) says more. */
static void
offer(struct candidate *best, enum cause cause, uint64_t ns, const struct fsa_chain_item *item)
{
	if (best->cause == CAUSE_NONE || ns > best->ns || (ns == best->ns && cause > best->cause)) {
		best->cause = cause;
		best->ns = ns;
		best->item = *item;
	}
}

/* R5: what the packet's start waited for. */
static struct candidate
start_cause(const struct walk *w, const struct fsa_chain_item *packet, uint64_t start)
{
	const struct fsa_chain_source *s = w->source;
	uint64_t limit = start + w->tolerance_ns, submitted = packet->queued_ns;
	struct candidate best = {.cause = CAUSE_NONE};
	struct fsa_chain_item other;

	/* A wait of its command buffer that stalled the queue before the packet (kernel mode). */
	for (size_t i = 0; s->cmdbuf_wait && packet->progress_value &&
			   s->cmdbuf_wait(s->data, packet->hwqueue_handle, packet->progress_value,
					  i, &other);
	     i++) {
		if (other.queued_ns != FSA_TIME_NONE &&
		    (submitted == FSA_TIME_NONE || other.queued_ns < submitted))
			submitted = other.queued_ns;
		if (other.state == FSA_OP_OBSERVED && other.end_ns != FSA_TIME_NONE &&
		    other.queued_ns != FSA_TIME_NONE && other.end_ns <= limit &&
		    other.end_ns > other.queued_ns + w->tolerance_ns)
			offer(&best, CAUSE_WAIT, other.end_ns, &other);
	}
	if (s->previous_packet && packet->progress_value &&
	    s->previous_packet(s->data, packet->hwqueue_handle, packet->progress_value, &other) &&
	    other.end_ns != FSA_TIME_NONE && other.end_ns <= limit)
		offer(&best, CAUSE_QUEUE, other.end_ns, &other);
	if (s->engine_packet_before && packet->engine_id != UINT32_MAX &&
	    s->engine_packet_before(s->data, packet->adapter_id, packet->engine_id,
				    packet->hwqueue_handle, limit, &other) &&
	    other.end_ns != FSA_TIME_NONE)
		offer(&best, CAUSE_ENGINE, other.end_ns, &other);
	if (submitted != FSA_TIME_NONE && submitted <= limit)
		offer(&best, CAUSE_SUBMIT, submitted, packet);
	return best;
}

/* R4..R6: a packet ran from what let it start to its end. */
static void
explain_packet(struct walk *w)
{
	struct fsa_chain_item packet = w->item, stall;
	enum fsa_chain_role role = w->role;
	struct candidate cause;

	if (packet.end_ns == FSA_TIME_NONE || packet.start_ns == FSA_TIME_NONE) {
		if (add_link(w, role, &packet, w->at))
			stop(w, FSA_CHAIN_STOP_UNEXPLAINED, &packet);
		return;
	}
	if (stall_inside(w, &packet, &stall)) {
		if (!add_link(w, role, &packet, stall.end_ns))
			return;
		w->step = EXPLAIN_WAIT;
		w->role = FSA_CHAIN_STALL;
		w->item = stall;
		return;
	}
	cause = start_cause(w, &packet, packet.start_ns);
	if (!add_link(w, role, &packet, cause.cause == CAUSE_NONE ? packet.start_ns : cause.ns))
		return;
	switch (cause.cause) {
	case CAUSE_NONE:
		stop(w,
		     packet.queued_ns == FSA_TIME_NONE ? FSA_CHAIN_STOP_TRACE_START
						       : FSA_CHAIN_STOP_UNEXPLAINED,
		     &packet);
		return;
	case CAUSE_SUBMIT: /* R6 */
		if (add_link(w, FSA_CHAIN_SUBMIT, &packet, w->at))
			stop(w, FSA_CHAIN_STOP_CPU_SUBMISSION, NULL);
		return;
	case CAUSE_WAIT:
		w->step = EXPLAIN_WAIT;
		w->role = FSA_CHAIN_STALL;
		break;
	case CAUSE_QUEUE:
		w->step = EXPLAIN_PACKET;
		w->role = FSA_CHAIN_QUEUE;
		break;
	case CAUSE_ENGINE:
		w->step = EXPLAIN_PACKET;
		w->role = FSA_CHAIN_ENGINE;
		break;
	}
	w->item = cause.item;
}

static void
walk_run(struct walk *w)
{
	while (w->step != DONE) {
		switch (w->step) {
		case EXPLAIN_WAIT:
			explain_wait(w);
			break;
		case EXPLAIN_SIGNAL:
			explain_signal(w);
			break;
		case EXPLAIN_PACKET:
			explain_packet(w);
			break;
		case DONE:
			break;
		}
	}
}

static void
walk_init(struct walk *w, const struct fsa_chain_source *source,
	  const struct fsa_chain_options *options, struct fsa_chain *chain)
{
	*w = (struct walk){
	    .source = source,
	    .chain = chain,
	    .horizon_ns = options ? options->horizon_ns : 0,
	    .tolerance_ns = options && options->tolerance_ns ? options->tolerance_ns
							     : FSA_CHAIN_TOLERANCE_NS,
	};
	chain->length = 0;
	chain->stop = FSA_CHAIN_STOP_UNEXPLAINED;
	chain->has_stop_item = false;
	memset(&chain->stop_item, 0, sizeof(chain->stop_item));
}

fsa_status
fsa_chain_of_wait(const struct fsa_chain_source *source, uint64_t wait_op_id,
		  const struct fsa_chain_options *options, struct fsa_chain *chain)
{
	struct walk w;

	walk_init(&w, source, options, chain);
	if (!find_op(&w, wait_op_id, &w.item) || w.item.type != FSA_CHAIN_ITEM_WAIT)
		return FSA_ERR_INVALID;
	/* R7: a wait that never ended, or inferred, is explained up to what is known of it. */
	w.at = w.item.end_ns != FSA_TIME_NONE     ? w.item.end_ns
	       : w.item.queued_ns != FSA_TIME_NONE ? w.item.queued_ns
						   : 0;
	w.step = EXPLAIN_WAIT;
	w.role = FSA_CHAIN_WAIT;
	walk_run(&w);
	return FSA_OK;
}

fsa_status
fsa_chain_of_packet(const struct fsa_chain_source *source, const struct fsa_chain_item *packet,
		    const struct fsa_chain_options *options, struct fsa_chain *chain)
{
	struct walk w;

	walk_init(&w, source, options, chain);
	if (!packet || packet->type != FSA_CHAIN_ITEM_PACKET)
		return FSA_ERR_INVALID;
	w.item = *packet;
	w.at = packet->end_ns != FSA_TIME_NONE ? packet->end_ns : 0;
	w.step = EXPLAIN_PACKET;
	w.role = FSA_CHAIN_RUN;
	walk_run(&w);
	return FSA_OK;
}
