/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the chain of causes of a wait over a trace's index (fsv-chain.h). The lookups
 * of struct fsa_chain_source search two arrays of indexes sorted by (queue, command buffer):
 * the packets (pieces in start order) and the waits of queues (in op id order).
 */
#include "fsv-chain.h"

#include <stdlib.h>

struct _FsvChainIndex {
	FsvTrace *trace;
	guint32 *packets, *waits;
	guint n_packets, n_waits;
};

/* ---- The sorted arrays ------------------------------------------------------------------ */

static int
compare_packets(const void *a, const void *b, void *data)
{
	const FsvTrace *trace = data;
	const FsvPacket *x = fsv_trace_get_packet(trace, *(const guint32 *) a);
	const FsvPacket *y = fsv_trace_get_packet(trace, *(const guint32 *) b);

	if (x->hwqueue_handle != y->hwqueue_handle)
		return x->hwqueue_handle < y->hwqueue_handle ? -1 : 1;
	if (x->progress_value != y->progress_value)
		return x->progress_value < y->progress_value ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (*(const guint32 *) a > *(const guint32 *) b) -
	       (*(const guint32 *) a < *(const guint32 *) b);
}

static int
compare_waits(const void *a, const void *b, void *data)
{
	const FsvTrace *trace = data;
	const FsvOp *x = fsv_trace_get_op(trace, *(const guint32 *) a);
	const FsvOp *y = fsv_trace_get_op(trace, *(const guint32 *) b);

	if (x->hwqueue_handle != y->hwqueue_handle)
		return x->hwqueue_handle < y->hwqueue_handle ? -1 : 1;
	if (x->progress_value != y->progress_value)
		return x->progress_value < y->progress_value ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

FsvChainIndex *
fsv_chain_index_new(FsvTrace *trace)
{
	FsvChainIndex *index = g_new0(FsvChainIndex, 1);
	guint n_ops = fsv_trace_get_op_count(trace);

	g_return_val_if_fail(trace != NULL, NULL);
	index->trace = fsv_trace_ref(trace);
	index->n_packets = fsv_trace_get_packet_count(trace);
	index->packets = g_new(guint32, MAX(index->n_packets, 1));
	for (guint32 i = 0; i < index->n_packets; i++)
		index->packets[i] = i;
	g_qsort_with_data(index->packets, (gint) index->n_packets, sizeof(guint32), compare_packets,
			  trace);
	index->waits = g_new(guint32, MAX(n_ops, 1));
	for (guint32 i = 0; i < n_ops; i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);

		if (o->kind == FSA_OP_WAIT && o->hwqueue_handle && o->source != FSA_SRC_CPU)
			index->waits[index->n_waits++] = i;
	}
	g_qsort_with_data(index->waits, (gint) index->n_waits, sizeof(guint32), compare_waits,
			  trace);
	return index;
}

void
fsv_chain_index_free(FsvChainIndex *index)
{
	if (index == NULL)
		return;
	g_free(index->packets);
	g_free(index->waits);
	fsv_trace_unref(index->trace);
	g_free(index);
}

/* The first position of the packets (IS_PACKETS) or the waits whose (queue, progress) is at
 * least (QUEUE, PROGRESS). */
static guint
lower_bound(const FsvChainIndex *index, bool is_packets, guint64 queue, guint64 progress)
{
	const guint32 *a = is_packets ? index->packets : index->waits;
	guint lo = 0, hi = is_packets ? index->n_packets : index->n_waits;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		guint64 q, p;

		if (is_packets) {
			const FsvPacket *x = fsv_trace_get_packet(index->trace, a[mid]);

			q = x->hwqueue_handle;
			p = x->progress_value;
		} else {
			const FsvOp *x = fsv_trace_get_op(index->trace, a[mid]);

			q = x->hwqueue_handle;
			p = x->progress_value;
		}
		if (q < queue || (q == queue && p < progress))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- Items ------------------------------------------------------------------------------ */

static void
op_to_item(const FsvChainIndex *index, const FsvOp *o, struct fsa_chain_item *out)
{
	*out = (struct fsa_chain_item){
	    .id = o->id,
	    .hwqueue_handle = o->source == FSA_SRC_CPU ? 0 : o->hwqueue_handle,
	    .progress_value = o->progress_value,
	    .queued_ns = o->queued_ns,
	    .start_ns = o->kind == FSA_OP_WAIT && o->source == FSA_SRC_USER_MODE_QUEUE
			    ? o->observed_ns
			    : FSA_TIME_NONE,
	    .end_ns = o->op_end_ns,
	    .signal_op_id = o->signal_op != FSV_INDEX_NONE
				? fsv_trace_get_op(index->trace, o->signal_op)->id
				: 0,
	    .fence_global_handle = o->fence_global_handle,
	    .fence_value = o->fence_value,
	    .process_id = o->process_id,
	    .adapter_id = o->adapter_id,
	    .engine_id = o->engine_id,
	    .type = o->kind == FSA_OP_WAIT ? FSA_CHAIN_ITEM_WAIT : FSA_CHAIN_ITEM_SIGNAL,
	    .source = o->source,
	    .state = o->state,
	};
}

static void
packet_to_item(const FsvPacket *p, struct fsa_chain_item *out)
{
	bool has_ended = p->status != FSA_PACKET_NEVER_ENDED;

	*out = (struct fsa_chain_item){
	    .id = p->packet_id,
	    .hwqueue_handle = p->hwqueue_handle,
	    .progress_value = p->progress_value,
	    .queued_ns = p->queued_ns,
	    .start_ns = p->start_ns,
	    .end_ns = has_ended ? p->end_ns : FSA_TIME_NONE,
	    .process_id = UINT32_MAX,
	    .adapter_id = p->adapter_id,
	    .engine_id = p->engine_id,
	    .type = FSA_CHAIN_ITEM_PACKET,
	    .source = p->is_user_mode ? FSA_SRC_USER_MODE_QUEUE : FSA_SRC_KERNEL_MODE_QUEUE,
	    .state = has_ended ? FSA_OP_OBSERVED : FSA_OP_NEVER_COMPLETED,
	};
}

/* The last piece of the command buffer at position AT of the packets (the first of its
 * (queue, progress)). */
static guint32
last_piece(const FsvChainIndex *index, guint at)
{
	const FsvPacket *first = fsv_trace_get_packet(index->trace, index->packets[at]);
	guint end = at;

	while (end + 1 < index->n_packets) {
		const FsvPacket *p = fsv_trace_get_packet(index->trace, index->packets[end + 1]);

		if (p->hwqueue_handle != first->hwqueue_handle ||
		    p->progress_value != first->progress_value)
			break;
		end++;
	}
	return index->packets[end];
}

/* ---- The lookups of struct fsa_chain_source ----------------------------------------------- */

static bool
find_op(void *data, uint64_t op_id, struct fsa_chain_item *out)
{
	FsvChainIndex *index = data;
	guint32 op = fsv_trace_find_op_by_id(index->trace, op_id);

	if (op == FSV_INDEX_NONE)
		return false;
	op_to_item(index, fsv_trace_get_op(index->trace, op), out);
	return true;
}

static bool
find_packet(void *data, uint64_t queue, uint64_t progress, struct fsa_chain_item *out)
{
	FsvChainIndex *index = data;
	guint at = lower_bound(index, true, queue, progress);
	const FsvPacket *p;

	if (at >= index->n_packets)
		return false;
	p = fsv_trace_get_packet(index->trace, index->packets[at]);
	if (p->hwqueue_handle != queue || p->progress_value != progress)
		return false;
	packet_to_item(fsv_trace_get_packet(index->trace, last_piece(index, at)), out);
	return true;
}

static bool
previous_packet(void *data, uint64_t queue, uint64_t progress, struct fsa_chain_item *out)
{
	FsvChainIndex *index = data;
	guint at = lower_bound(index, true, queue, progress);
	const FsvPacket *p;

	if (at == 0)
		return false;
	p = fsv_trace_get_packet(index->trace, index->packets[at - 1]);
	if (p->hwqueue_handle != queue)
		return false;
	return find_packet(data, queue, p->progress_value, out);
}

static bool
engine_packet_before(void *data, uint32_t adapter, uint32_t engine, uint64_t queue, uint64_t at_ns,
		     struct fsa_chain_item *out)
{
	FsvChainIndex *index = data;
	guint32 row = FSV_INDEX_NONE, best = FSV_INDEX_NONE;
	const guint32 *packets;
	guint n = 0, lo = 0, hi;

	for (guint32 r = 0; r < fsv_trace_get_row_count(index->trace) && row == FSV_INDEX_NONE;
	     r++) {
		const FsvRow *x = fsv_trace_get_row(index->trace, r);

		if (x->kind == FSV_ROW_ENGINE && x->adapter_id == adapter && x->engine_id == engine)
			row = r;
	}
	if (row == FSV_INDEX_NONE)
		return false;
	packets = fsv_trace_get_row_packets(index->trace, row, &n);
	hi = n;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (fsv_trace_get_packet(index->trace, packets[mid])->start_ns <= at_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Back from the last packet that started by AT_NS: an engine runs one packet at a time,
	 * so once one ended by then, those that started before it ended before it. */
	for (guint i = lo; i-- > 0;) {
		const FsvPacket *p = fsv_trace_get_packet(index->trace, packets[i]);

		if (best != FSV_INDEX_NONE &&
		    p->end_ns < fsv_trace_get_packet(index->trace, best)->start_ns)
			break;
		if (p->hwqueue_handle == queue || p->end_ns > at_ns ||
		    p->status == FSA_PACKET_NEVER_ENDED)
			continue;
		if (best == FSV_INDEX_NONE ||
		    p->end_ns > fsv_trace_get_packet(index->trace, best)->end_ns)
			best = packets[i];
	}
	if (best == FSV_INDEX_NONE)
		return false;
	packet_to_item(fsv_trace_get_packet(index->trace, best), out);
	return true;
}

static bool
cmdbuf_wait(void *data, uint64_t queue, uint64_t progress, size_t k, struct fsa_chain_item *out)
{
	FsvChainIndex *index = data;
	guint at = lower_bound(index, false, queue, progress) + (guint) k;
	const FsvOp *o;

	if (at >= index->n_waits)
		return false;
	o = fsv_trace_get_op(index->trace, index->waits[at]);
	if (o->hwqueue_handle != queue || o->progress_value != progress)
		return false;
	op_to_item(index, o, out);
	return true;
}

/* ---- Chains ------------------------------------------------------------------------------ */

/* The timeline's item for a chain item. */
static FsvItem
item_of(const FsvChainIndex *index, const struct fsa_chain_item *c)
{
	FsvItem none = {FSV_ITEM_NONE, FSV_INDEX_NONE, FSV_INDEX_NONE};

	if (c->type != FSA_CHAIN_ITEM_PACKET) {
		guint32 op = fsv_trace_find_op_by_id(index->trace, c->id);

		return op == FSV_INDEX_NONE
			   ? none
			   : (FsvItem){FSV_ITEM_OP, op, fsv_trace_get_op(index->trace, op)->row};
	}
	for (guint at = lower_bound(index, true, c->hwqueue_handle, c->progress_value);
	     at < index->n_packets; at++) {
		guint32 k = index->packets[at];
		const FsvPacket *p = fsv_trace_get_packet(index->trace, k);

		if (p->hwqueue_handle != c->hwqueue_handle ||
		    p->progress_value != c->progress_value)
			break;
		if (p->packet_id == c->id && p->start_ns == c->start_ns)
			return (FsvItem){FSV_ITEM_PACKET, k, p->row};
	}
	return none;
}

GArray *
fsv_chain_index_chain_of_wait(FsvChainIndex *index, guint32 op, guint max_links,
			      enum fsa_chain_stop *stop, FsvItem *stop_item)
{
	const struct fsa_chain_source source = {
	    .data = index,
	    .find_op = find_op,
	    .find_packet = find_packet,
	    .previous_packet = previous_packet,
	    .engine_packet_before = engine_packet_before,
	    .cmdbuf_wait = cmdbuf_wait,
	};
	g_autofree struct fsa_chain_link *links = NULL;
	struct fsa_chain chain = {0};
	struct fsa_chain_options options = {0};
	GArray *out;

	g_return_val_if_fail(index != NULL && stop != NULL && stop_item != NULL, NULL);
	*stop_item = (FsvItem){FSV_ITEM_NONE, FSV_INDEX_NONE, FSV_INDEX_NONE};
	if (op >= fsv_trace_get_op_count(index->trace) ||
	    fsv_trace_get_op(index->trace, op)->kind != FSA_OP_WAIT)
		return NULL;
	links = g_new0(struct fsa_chain_link, MAX(max_links, 1));
	chain.links = links;
	chain.capacity = MAX(max_links, 1);
	if (fsa_chain_of_wait(&source, fsv_trace_get_op(index->trace, op)->id, &options, &chain) !=
	    FSA_OK)
		return NULL;
	out = g_array_sized_new(FALSE, FALSE, sizeof(FsvChainLink), (guint) chain.length);
	for (size_t i = 0; i < chain.length; i++) {
		FsvChainLink link = {item_of(index, &links[i].item), links[i].role,
				     links[i].hold_begin_ns, links[i].hold_end_ns};

		g_array_append_val(out, link);
	}
	*stop = chain.stop;
	if (chain.has_stop_item)
		*stop_item = item_of(index, &chain.stop_item);
	return out;
}

/* ---- A frame's critical path (issue 16 §3) ----------------------------------------------- */

static guint64
clip(guint64 ns, guint64 low, guint64 high)
{
	return ns < low ? low : ns > high ? high : ns;
}

/* The timeline's item of a flip marker (fsv_trace_find_frame_flip), FSV_ITEM_NONE when none. */
static FsvItem
flip_item(const FsvTrace *trace, guint32 row, guint64 flip_id, guint64 queued_ns)
{
	guint32 flip = fsv_trace_find_frame_flip(trace, row, flip_id, queued_ns);

	if (flip == FSV_INDEX_NONE)
		return (FsvItem){FSV_ITEM_NONE, FSV_INDEX_NONE, FSV_INDEX_NONE};
	return (FsvItem){FSV_ITEM_MARKER, flip, fsv_trace_get_marker(trace, flip)->row};
}

/* A link of the display: the flip FLIP_ID (queued at QUEUED_NS) holding [BEGIN, END] cut to
 * the path. */
static void
add_display_link(const FsvChainIndex *index, FsvFramePath *path, const FsvFrame *frame,
		 const char *role, guint64 flip_id, guint64 queued_ns, guint64 begin, guint64 end)
{
	FsvPathLink link = {
	    .item = flip_item(index->trace, frame->row, flip_id, queued_ns),
	    .role = role,
	    .flip_id = flip_id,
	    .hold_begin_ns = clip(begin, path->begin_ns, path->end_ns),
	    .hold_end_ns = clip(end, path->begin_ns, path->end_ns),
	};

	g_array_append_val(path->links, link);
}

/* The render a present showed, as critical-path.c's find_render: the packet that ended last at
 * or before AT on a queue of the presenting context (of equal ends, the greater command
 * buffer, as the store's (queue, end) index orders them). */
static bool
find_render(const FsvChainIndex *index, const FsvFrame *frame, guint64 at,
	    struct fsa_chain_item *render)
{
	const FsvPacket *best = NULL;

	for (guint32 r = 0; frame->context_handle && r < fsv_trace_get_row_count(index->trace);
	     r++) {
		const FsvRow *row = fsv_trace_get_row(index->trace, r);
		guint at_pos;

		if (row->kind != FSV_ROW_QUEUE || row->context_handle != frame->context_handle)
			continue;
		at_pos = lower_bound(index, true, row->hwqueue_handle, 0);
		for (guint i = at_pos; i < index->n_packets; i++) {
			const FsvPacket *p = fsv_trace_get_packet(index->trace, index->packets[i]);

			if (p->hwqueue_handle != row->hwqueue_handle)
				break;
			if (p->status == FSA_PACKET_NEVER_ENDED || p->end_ns > at)
				continue;
			if (!best || p->end_ns > best->end_ns ||
			    (p->end_ns == best->end_ns &&
			     p->hwqueue_handle == best->hwqueue_handle &&
			     p->progress_value >= best->progress_value))
				best = p;
		}
	}
	if (!best)
		return false;
	packet_to_item(best, render);
	return true;
}

/* The previous frame of the same display, NULL none (frames are stored per display in order). */
static const FsvFrame *
previous_frame(const FsvTrace *trace, guint32 frame)
{
	const FsvFrame *f = fsv_trace_get_frame(trace, frame);
	guint32 first;
	guint n;

	fsv_trace_get_row_frames(trace, f->row, &first, &n, NULL);
	while (frame-- > first) {
		const FsvFrame *p = fsv_trace_get_frame(trace, frame);

		if (!p->is_pending)
			return p;
	}
	return NULL;
}

FsvFramePath *
fsv_chain_index_path_of_frame(FsvChainIndex *index, guint32 frame, guint max_links)
{
	const struct fsa_chain_source source = {
	    .data = index,
	    .find_op = find_op,
	    .find_packet = find_packet,
	    .previous_packet = previous_packet,
	    .engine_packet_before = engine_packet_before,
	    .cmdbuf_wait = cmdbuf_wait,
	};
	const FsvFrame *f, *prev;
	FsvFramePath *path;
	guint64 end, queued, tolerance = FSA_CHAIN_TOLERANCE_NS;
	struct fsa_chain_item render;
	bool has_render, is_display_bound;

	g_return_val_if_fail(index != NULL, NULL);
	if (frame >= fsv_trace_get_frame_count(index->trace))
		return NULL;
	f = fsv_trace_get_frame(index->trace, frame);
	if (f->is_pending)
		return NULL;
	prev = previous_frame(index->trace, frame);
	path = g_new0(FsvFramePath, 1);
	path->frame = frame;
	path->links = g_array_new(FALSE, FALSE, sizeof(FsvPathLink));
	path->stop = "unexplained";
	end = f->end_ns != FSA_TIME_NONE ? f->end_ns : f->done_ns;
	queued = f->queued_ns;
	path->end_ns = end;
	/* A display's first frame has no previous vsync: its path goes back as far as its chain
	 * does, and begins where that stops. */
	path->begin_ns = f->begin_ns != FSA_TIME_NONE ? f->begin_ns : 0;
	if (end == FSA_TIME_NONE || queued == FSA_TIME_NONE) {
		path->begin_ns = path->end_ns = end != FSA_TIME_NONE ? end : 0;
		return path;
	}
	if (path->begin_ns > end)
		path->begin_ns = end;
	add_display_link(index, path, f, "vsync", f->flip_id, queued, queued, end);
	has_render = find_render(index, f, queued + tolerance, &render);
	is_display_bound = prev && prev->done_ns != FSA_TIME_NONE &&
			   prev->done_ns <= queued + tolerance &&
			   (!has_render || prev->done_ns >= render.end_ns);
	if (is_display_bound) {
		/* From the previous flip's vsync (the frame's begin) to this flip's programming:
		 * the display had it until the vsync interrupt's handling. */
		add_display_link(index, path, f, "previous_flip", prev->flip_id, prev->queued_ns,
				 path->begin_ns, queued);
		path->stop = "previous_flip";
	} else if (has_render) {
		struct fsa_chain_options options = {.horizon_ns = path->begin_ns};
		g_autofree struct fsa_chain_link *links =
		    g_new0(struct fsa_chain_link, MAX(max_links, 1));
		struct fsa_chain chain = {.links = links, .capacity = MAX(max_links, 1)};

		add_display_link(index, path, f, "present", f->flip_id, queued, render.end_ns,
				 queued);
		if (render.end_ns <= path->begin_ns) {
			path->stop = fsa_chain_stop_name(FSA_CHAIN_STOP_HORIZON);
		} else if (fsa_chain_of_packet(&source, &render, &options, &chain) == FSA_OK) {
			for (size_t i = 0; i < chain.length; i++) {
				FsvPathLink link = {
				    .item = item_of(index, &links[i].item),
				    .role = fsa_chain_role_name(links[i].role),
				    .has_item = true,
				    .chain = links[i].item,
				    .hold_begin_ns =
					clip(links[i].hold_begin_ns, path->begin_ns, path->end_ns),
				    .hold_end_ns =
					clip(links[i].hold_end_ns, path->begin_ns, path->end_ns),
				};

				g_array_append_val(path->links, link);
			}
			path->stop = fsa_chain_stop_name(chain.stop);
		}
	}
	if (!path->begin_ns) {
		path->begin_ns = end;
		for (guint k = 0; k < path->links->len; k++)
			path->begin_ns =
			    MIN(path->begin_ns,
				g_array_index(path->links, FsvPathLink, k).hold_begin_ns);
	}
	return path;
}

void
fsv_frame_path_free(FsvFramePath *path)
{
	if (!path)
		return;
	g_array_unref(path->links);
	g_free(path);
}

static void
share_add(GArray *shares, const char *scope, const char *key, guint64 held)
{
	FsvPathShare s = {.scope = scope, .held_ns = held};

	for (guint i = 0; i < shares->len; i++) {
		FsvPathShare *x = &g_array_index(shares, FsvPathShare, i);

		if (strcmp(x->scope, scope) == 0 && strcmp(x->key, key) == 0) {
			x->held_ns += held;
			return;
		}
	}
	g_strlcpy(s.key, key, sizeof(s.key));
	g_array_append_val(shares, s);
}

static int
scope_rank(const char *scope)
{
	return strcmp(scope, "queue") == 0     ? 0
	       : strcmp(scope, "engine") == 0  ? 1
	       : strcmp(scope, "process") == 0 ? 2
					       : 3;
}

static gint
compare_share(gconstpointer a, gconstpointer b)
{
	const FsvPathShare *x = a, *y = b;
	int rx = scope_rank(x->scope), ry = scope_rank(y->scope);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->held_ns != y->held_ns)
		return x->held_ns > y->held_ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

GArray *
fsv_frame_path_shares(FsvTrace *trace, const FsvFramePath *path)
{
	GArray *shares = g_array_new(FALSE, FALSE, sizeof(FsvPathShare));
	const FsvFrame *f = fsv_trace_get_frame(trace, path->frame);
	char key[40];

	/* As the report's path_shares (analyzer/report/tables.c): a link's unknown adapter,
	 * engine or process is its queue's. */
	for (guint i = 0; i < path->links->len; i++) {
		const FsvPathLink *l = &g_array_index(path->links, FsvPathLink, i);
		guint64 held = l->hold_end_ns - l->hold_begin_ns;
		const struct fsa_queue_info *q =
		    l->has_item && l->chain.hwqueue_handle
			? fsv_trace_find_queue(trace, l->chain.hwqueue_handle)
			: NULL;
		guint32 adapter = l->chain.adapter_id, engine = l->chain.engine_id,
			process = l->chain.process_id;

		if (!l->has_item) {
			g_snprintf(key, sizeof(key), "%" G_GUINT32_FORMAT ":%" G_GUINT32_FORMAT,
				   f->adapter_id, f->source_id);
			share_add(shares, "display", key, held);
			continue;
		}
		if (q) {
			adapter = adapter == UINT32_MAX ? q->adapter_id : adapter;
			engine = engine == UINT32_MAX ? q->engine_id : engine;
			process = process == UINT32_MAX ? q->process_id : process;
		}
		if (l->chain.hwqueue_handle) {
			g_snprintf(key, sizeof(key), "0x%" G_GINT64_MODIFIER "x",
				   l->chain.hwqueue_handle);
			share_add(shares, "queue", key, held);
		}
		if (adapter != UINT32_MAX && engine != UINT32_MAX) {
			g_snprintf(key, sizeof(key), "%" G_GUINT32_FORMAT ":%" G_GUINT32_FORMAT,
				   adapter, engine);
			share_add(shares, "engine", key, held);
		}
		if (process != UINT32_MAX) {
			g_snprintf(key, sizeof(key), "%" G_GUINT32_FORMAT, process);
			share_add(shares, "process", key, held);
		}
	}
	g_array_sort(shares, compare_share);
	return shares;
}
