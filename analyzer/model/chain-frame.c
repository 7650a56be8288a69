/* SPDX-License-Identifier: MIT */
/*
 * A frame's critical path and the shares of a path (fsa/chain.h; docs/analyzer.md "Chains of
 * causes"): one implementation for the report's `critical_path` section and the viewer's frame
 * path, over the caller's struct fsa_chain_source, so both show the same path.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsa/chain.h"

static uint64_t
clip(uint64_t ns, uint64_t low, uint64_t high)
{
	return ns < low ? low : ns > high ? high : ns;
}

/* A link of the display (no operation or packet): the flip FLIP_ID, queued at QUEUED_NS,
 * holding [begin, end] cut to the path. */
static void
add_display_link(struct fsa_frame_path *path, const char *role, uint64_t flip_id,
		 uint64_t queued_ns, uint64_t begin, uint64_t end)
{
	path->links[path->length++] = (struct fsa_path_link){
	    .role = role,
	    .flip_id = flip_id,
	    .flip_queued_ns = queued_ns,
	    .hold_begin_ns = clip(begin, path->begin_ns, path->end_ns),
	    .hold_end_ns = clip(end, path->begin_ns, path->end_ns),
	};
}

/* The render a present showed: the packet that ended last, at or before AT, on a queue of the
 * presenting context; of equal ends on two queues, the first queue in the model's order. One
 * packet_before (a binary search) per queue of the context. */
static bool
find_render(const struct fsa_chain_source *source, const struct fsa_frame *frame, uint64_t at,
	    struct fsa_chain_item *render)
{
	uint64_t some[16], *queues = some;
	size_t count;
	bool found = false;

	if (!frame->context_handle || !source->context_queues || !source->packet_before)
		return false;
	count = source->context_queues(source->data, frame->context_handle, some, 16);
	if (count > 16) {
		queues = malloc(count * sizeof(*queues));
		if (!queues)
			return false;
		count = source->context_queues(source->data, frame->context_handle, queues, count);
	}
	for (size_t i = 0; i < count; i++) {
		struct fsa_chain_item packet;

		if (!source->packet_before(source->data, queues[i], at, &packet))
			continue;
		if (!found || packet.end_ns > render->end_ns) {
			*render = packet;
			found = true;
		}
	}
	if (queues != some)
		free(queues);
	return found;
}

fsa_status
fsa_chain_of_frame(const struct fsa_chain_source *source, const struct fsa_frame *frame,
		   const struct fsa_frame *previous, struct fsa_chain *chain,
		   struct fsa_frame_path *path)
{
	uint64_t end = frame->end_ns != FSA_TIME_NONE ? frame->end_ns : frame->done_ns;
	uint64_t queued = frame->queued_ns, tolerance = FSA_CHAIN_TOLERANCE_NS;
	struct fsa_chain_item render;
	bool has_render, is_display_bound;

	if (!source || !frame || !chain || !path || frame->is_pending ||
	    path->capacity < chain->capacity + 2)
		return FSA_ERR_INVALID;
	path->length = 0;
	path->stop = "unexplained";
	path->end_ns = end;
	/* A display's first frame has no previous vsync: its path goes back as far as its chain
	 * does, and begins where that stops. */
	path->begin_ns = frame->begin_ns != FSA_TIME_NONE ? frame->begin_ns : 0;
	if (end == FSA_TIME_NONE || queued == FSA_TIME_NONE) {
		/* The vsync and the flip_done, or the flip_queued, are not in the trace. */
		path->begin_ns = path->end_ns = end != FSA_TIME_NONE ? end : 0;
		return FSA_OK;
	}
	if (path->begin_ns > end)
		path->begin_ns = end;
	add_display_link(path, "vsync", frame->flip_id, queued, queued, end);
	has_render = find_render(source, frame, queued + tolerance, &render);
	is_display_bound = previous && previous->done_ns != FSA_TIME_NONE &&
			   previous->done_ns <= queued + tolerance &&
			   (!has_render || previous->done_ns >= render.end_ns);
	if (is_display_bound) {
		/* From the previous flip's vsync (the frame's begin) to this flip's programming:
		 * the display had it until the vsync interrupt's handling. */
		add_display_link(path, "previous_flip", previous->flip_id, previous->queued_ns,
				 path->begin_ns, queued);
		path->stop = "previous_flip";
	} else if (has_render) {
		struct fsa_chain_options options = {.horizon_ns = path->begin_ns};

		add_display_link(path, "present", frame->flip_id, queued, render.end_ns, queued);
		if (render.end_ns <= path->begin_ns) {
			path->stop = fsa_chain_stop_name(FSA_CHAIN_STOP_HORIZON);
		} else if (fsa_chain_of_packet(source, &render, &options, chain) == FSA_OK) {
			for (size_t i = 0; i < chain->length; i++) {
				const struct fsa_chain_link *l = &chain->links[i];

				path->links[path->length++] = (struct fsa_path_link){
				    .role = fsa_chain_role_name(l->role),
				    .has_item = true,
				    .item = l->item,
				    .hold_begin_ns =
					clip(l->hold_begin_ns, path->begin_ns, path->end_ns),
				    .hold_end_ns =
					clip(l->hold_end_ns, path->begin_ns, path->end_ns),
				};
			}
			path->stop = fsa_chain_stop_name(chain->stop);
		}
	}
	if (!path->begin_ns) {
		path->begin_ns = end;
		for (size_t k = 0; k < path->length; k++)
			if (path->links[k].hold_begin_ns < path->begin_ns)
				path->begin_ns = path->links[k].hold_begin_ns;
	}
	return FSA_OK;
}

static size_t
share_add(struct fsa_path_share *shares, size_t n, const char *scope, const char *key,
	  uint64_t queue, uint64_t held)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(shares[i].scope, scope) == 0 && strcmp(shares[i].key, key) == 0) {
			shares[i].held_ns += held;
			return n;
		}
	}
	shares[n] =
	    (struct fsa_path_share){.scope = scope, .hwqueue_handle = queue, .held_ns = held};
	snprintf(shares[n].key, sizeof(shares[n].key), "%s", key);
	return n + 1;
}

static int
scope_rank(const char *scope)
{
	return strcmp(scope, "queue") == 0     ? 0
	       : strcmp(scope, "engine") == 0  ? 1
	       : strcmp(scope, "process") == 0 ? 2
					       : 3;
}

/* By scope (queue, engine, process, display), then most held first, then key. */
static int
compare_share(const void *a, const void *b)
{
	const struct fsa_path_share *x = a, *y = b;
	int rx = scope_rank(x->scope), ry = scope_rank(y->scope);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->held_ns != y->held_ns)
		return x->held_ns > y->held_ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

size_t
fsa_chain_path_shares(const struct fsa_chain_source *source, const struct fsa_path_link *links,
		      size_t count, uint32_t display_adapter_id, uint32_t display_source_id,
		      struct fsa_path_share *out)
{
	size_t n = 0;
	char key[40];

	for (size_t i = 0; i < count; i++) {
		const struct fsa_path_link *l = &links[i];
		uint64_t held = l->hold_end_ns - l->hold_begin_ns;
		uint32_t adapter = l->item.adapter_id, engine = l->item.engine_id,
			 process = l->item.process_id;
		struct fsa_queue_info q;

		if (!l->has_item) {
			snprintf(key, sizeof(key), "%" PRIu32 ":%" PRIu32, display_adapter_id,
				 display_source_id);
			n = share_add(out, n, "display", key, 0, held);
			continue;
		}
		if (l->item.hwqueue_handle && source && source->find_queue &&
		    source->find_queue(source->data, l->item.hwqueue_handle, &q)) {
			adapter = adapter == UINT32_MAX ? q.adapter_id : adapter;
			engine = engine == UINT32_MAX ? q.engine_id : engine;
			process = process == UINT32_MAX ? q.process_id : process;
		}
		if (l->item.hwqueue_handle) {
			snprintf(key, sizeof(key), "0x%" PRIx64, l->item.hwqueue_handle);
			n = share_add(out, n, "queue", key, l->item.hwqueue_handle, held);
		}
		if (adapter != UINT32_MAX && engine != UINT32_MAX) {
			snprintf(key, sizeof(key), "%" PRIu32 ":%" PRIu32, adapter, engine);
			n = share_add(out, n, "engine", key, 0, held);
		}
		if (process != UINT32_MAX) {
			snprintf(key, sizeof(key), "%" PRIu32, process);
			n = share_add(out, n, "process", key, 0, held);
		}
	}
	qsort(out, n, sizeof(*out), compare_share);
	return n;
}
