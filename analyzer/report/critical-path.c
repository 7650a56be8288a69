/* SPDX-License-Identifier: MIT */
/*
 * Critical paths for the report (critical-path-private.h; docs/report-schema.md
 * `critical_path`). With frames, a frame's path covers the frame, from the previous frame's
 * vsync to its own: its flip waited for the vsync since the OS programmed it (`vsync`); the OS
 * programmed it when the later of two things happened — the render it shows ended on a queue of
 * the presenting context (`present`, then the chain of that render's packet, fsa/chain.h), or
 * the previous flip reached the screen (`previous_flip`: the display held it; that flip's own
 * path is the previous frame's); fsa_chain_of_frame() (fsa/chain.h) walks it, the viewer's frame
 * path too. Without frames, a wait's path is its chain cut at its queued
 * time. Every link's hold is cut to the path's span, so the holds tile it from where the chain
 * stopped (a CPU submission after the span's begin leaves the time before it held by none).
 *
 * Memory: the store's 88 bytes per operation and per packet (plus 4 or 8 of index), only when
 * the section is asked for.
 */
#include <stdlib.h>

#include "critical-path-private.h"
#include "frame-stats-private.h"
#include "report-private.h"

/* Links of one chain at most; a longer one stops with "limit". */
#define CP_MAX_LINKS 1024

struct fsa_critical_path *
critical_path_new(void)
{
	struct fsa_critical_path *cp = g_new0(struct fsa_critical_path, 1);

	cp->store = fsa_chain_store_create();
	cp->paths = g_array_new(FALSE, FALSE, sizeof(struct fsa_cp_path));
	cp->links = g_array_new(FALSE, FALSE, sizeof(struct fsa_path_link));
	if (!cp->store) {
		critical_path_free(cp);
		return NULL;
	}
	return cp;
}

void
critical_path_free(struct fsa_critical_path *cp)
{
	if (!cp)
		return;
	fsa_chain_store_destroy(cp->store);
	g_array_free(cp->paths, TRUE);
	g_array_free(cp->links, TRUE);
	g_free(cp);
}

fsa_status
critical_path_on_op(struct fsa_report *r, const struct fsa_op *op)
{
	return fsa_chain_store_add_op(r->critical_path->store, op);
}

fsa_status
critical_path_on_packet(struct fsa_report *r, const struct fsa_packet *packet)
{
	return fsa_chain_store_add_packet(r->critical_path->store, packet);
}

static uint64_t
clip(uint64_t ns, uint64_t low, uint64_t high)
{
	return ns < low ? low : ns > high ? high : ns;
}

/* A wait's chain as its path's links, cut to the path. */
static void
add_chain_links(struct fsa_critical_path *cp, struct fsa_cp_path *path,
		const struct fsa_chain *chain)
{
	for (size_t i = 0; i < chain->length; i++) {
		const struct fsa_chain_link *l = &chain->links[i];
		struct fsa_path_link link = {
		    .role = fsa_chain_role_name(l->role),
		    .has_item = true,
		    .item = l->item,
		    .hold_begin_ns = clip(l->hold_begin_ns, path->begin_ns, path->end_ns),
		    .hold_end_ns = clip(l->hold_end_ns, path->begin_ns, path->end_ns),
		};

		g_array_append_val(cp->links, link);
		path->link_count++;
	}
}

/* The previous frame of the same display among the kept ones before index i, NULL none. */
static const struct fsa_frame *
previous_frame(const GArray *frames, size_t i)
{
	const struct fsa_frame *frame = &g_array_index(frames, struct fsa_frame, i);

	while (i-- > 0) {
		const struct fsa_frame *p = &g_array_index(frames, struct fsa_frame, i);

		if (p->adapter_id == frame->adapter_id && p->source_id == frame->source_id &&
		    !p->is_pending)
			return p;
	}
	return NULL;
}

/* The frame's path (fsa_chain_of_frame, shared with the viewer) into cp->paths and cp->links. */
static void
frame_path(struct fsa_report *r, const GArray *frames, size_t i, struct fsa_chain *chain,
	   struct fsa_frame_path *scratch)
{
	struct fsa_critical_path *cp = r->critical_path;
	const struct fsa_frame *frame = &g_array_index(frames, struct fsa_frame, i);
	struct fsa_cp_path path = {
	    .is_frame = true,
	    .frame = *frame,
	    .first_link = cp->links->len,
	    .stop = "unexplained",
	};

	if (fsa_chain_of_frame(fsa_chain_store_borrow_source(cp->store), frame,
			       previous_frame(frames, i), chain, scratch) == FSA_OK) {
		g_array_append_vals(cp->links, scratch->links, (guint) scratch->length);
		path.link_count = scratch->length;
		path.begin_ns = scratch->begin_ns;
		path.end_ns = scratch->end_ns;
		path.stop = scratch->stop;
	}
	g_array_append_val(cp->paths, path);
}

/* Longer frame time first; of equal ones the earlier frame. */
static gint
compare_frame_time(gconstpointer a, gconstpointer b)
{
	const struct fsa_frame *x = *(const struct fsa_frame *const *) a;
	const struct fsa_frame *y = *(const struct fsa_frame *const *) b;
	uint64_t tx = x->frame_time_ns == FSA_TIME_NONE ? 0 : x->frame_time_ns;
	uint64_t ty = y->frame_time_ns == FSA_TIME_NONE ? 0 : y->frame_time_ns;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

static gint
compare_pointer(gconstpointer a, gconstpointer b)
{
	const void *x = *(const void *const *) a, *y = *(const void *const *) b;

	return x < y ? -1 : x > y;
}

/* Every frame, or the --critical-path=N slowest in trace order. */
static void
frame_paths(struct fsa_report *r, struct fsa_chain *chain)
{
	const GArray *frames = r->frame_stats->kept;
	GPtrArray *chosen = g_ptr_array_new();
	struct fsa_frame_path scratch = {.capacity = chain->capacity + 2};

	scratch.links = g_new(struct fsa_path_link, scratch.capacity);

	for (guint i = 0; i < frames->len; i++) {
		struct fsa_frame *frame = &g_array_index(frames, struct fsa_frame, i);

		if (!frame->is_pending)
			g_ptr_array_add(chosen, frame);
	}
	if (r->options.critical_path_count && chosen->len > r->options.critical_path_count) {
		g_ptr_array_sort(chosen, compare_frame_time);
		g_ptr_array_set_size(chosen, (guint) r->options.critical_path_count);
		g_ptr_array_sort(chosen, compare_pointer);
	}
	for (guint k = 0; k < chosen->len; k++) {
		size_t i = (size_t) ((const struct fsa_frame *) chosen->pdata[k] -
				     &g_array_index(frames, struct fsa_frame, 0));

		frame_path(r, frames, i, chain, &scratch);
	}
	g_free(scratch.links);
	g_ptr_array_free(chosen, TRUE);
}

struct long_wait {
	uint64_t id, duration_ns;
};

/* Longer first; of equal ones the earlier operation (as `longest`). */
static gint
compare_long_wait(gconstpointer a, gconstpointer b)
{
	const struct long_wait *x = a, *y = b;

	if (x->duration_ns != y->duration_ns)
		return x->duration_ns > y->duration_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The N longest waits (observed, in the time filter): each one's chain cut at its queued time. */
static void
wait_paths(struct fsa_report *r, struct fsa_chain *chain)
{
	struct fsa_critical_path *cp = r->critical_path;
	const struct fsa_chain_source *source = fsa_chain_store_borrow_source(cp->store);
	size_t n = r->options.critical_path_count ? r->options.critical_path_count : 10;
	GArray *waits = g_array_new(FALSE, FALSE, sizeof(struct long_wait));

	for (size_t i = 0; i < fsa_chain_store_op_count(cp->store); i++) {
		const struct fsa_chain_item *op = fsa_chain_store_borrow_op(cp->store, i);

		if (op->type != FSA_CHAIN_ITEM_WAIT || op->state != FSA_OP_OBSERVED ||
		    op->queued_ns == FSA_TIME_NONE || op->end_ns == FSA_TIME_NONE ||
		    op->end_ns < op->queued_ns || !report_in_range(r, op->queued_ns, op->end_ns))
			continue;
		g_array_append_val(waits, ((struct long_wait){op->id, op->end_ns - op->queued_ns}));
	}
	g_array_sort(waits, compare_long_wait);
	for (guint k = 0; k < waits->len && k < n; k++) {
		struct long_wait *w = &g_array_index(waits, struct long_wait, k);
		struct fsa_cp_path path = {
		    .wait_op_id = w->id,
		    .first_link = cp->links->len,
		    .stop = "unexplained",
		};
		struct fsa_chain_options options;

		source->find_op(source->data, w->id, &path.wait);
		path.begin_ns = path.wait.queued_ns;
		path.end_ns = path.wait.end_ns;
		options = (struct fsa_chain_options){.horizon_ns = path.begin_ns};
		if (fsa_chain_of_wait(source, w->id, &options, chain) == FSA_OK) {
			add_chain_links(cp, &path, chain);
			path.stop = fsa_chain_stop_name(chain->stop);
		}
		g_array_append_val(cp->paths, path);
	}
	g_array_free(waits, TRUE);
}

fsa_status
critical_path_finish(struct fsa_report *r)
{
	struct fsa_critical_path *cp = r->critical_path;
	struct fsa_chain_link *links = g_new(struct fsa_chain_link, CP_MAX_LINKS);
	struct fsa_chain chain = {.links = links, .capacity = CP_MAX_LINKS};
	fsa_status status = fsa_chain_store_seal(cp->store);

	g_array_set_size(cp->paths, 0);
	g_array_set_size(cp->links, 0);
	for (size_t i = 0; status == FSA_OK && r->model && i < fsa_model_queue_count(r->model); i++)
		status = fsa_chain_store_add_queue(cp->store, fsa_model_borrow_queue(r->model, i));
	if (status == FSA_OK) {
		cp->has_frames = false;
		for (guint i = 0; r->frame_stats->kept && i < r->frame_stats->kept->len; i++)
			if (!g_array_index(r->frame_stats->kept, struct fsa_frame, i).is_pending)
				cp->has_frames = true;
		if (cp->has_frames)
			frame_paths(r, &chain);
		else
			wait_paths(r, &chain);
	}
	g_free(links);
	return status;
}
