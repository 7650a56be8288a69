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
	guint32 *by_end; /* packets by (queue, end, command buffer) as the store's (queue, end) */
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

/* A packet never ended sorts last, as the store's unknown end (UINT64_MAX). */
static guint64
end_key(const FsvPacket *p)
{
	return p->status == FSA_PACKET_NEVER_ENDED ? G_MAXUINT64 : p->end_ns;
}

/* As the store's packets by (queue, end): of equal ends, by (progress value, id). */
static int
compare_packet_ends(const void *a, const void *b, void *data)
{
	const FsvTrace *trace = data;
	const FsvPacket *x = fsv_trace_get_packet(trace, *(const guint32 *) a);
	const FsvPacket *y = fsv_trace_get_packet(trace, *(const guint32 *) b);

	if (x->hwqueue_handle != y->hwqueue_handle)
		return x->hwqueue_handle < y->hwqueue_handle ? -1 : 1;
	if (end_key(x) != end_key(y))
		return end_key(x) < end_key(y) ? -1 : 1;
	if (x->progress_value != y->progress_value)
		return x->progress_value < y->progress_value ? -1 : 1;
	if (x->packet_id != y->packet_id)
		return x->packet_id < y->packet_id ? -1 : 1;
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
	index->by_end = g_memdup2(index->packets, MAX(index->n_packets, 1) * sizeof(guint32));
	g_qsort_with_data(index->by_end, (gint) index->n_packets, sizeof(guint32),
			  compare_packet_ends, trace);
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
	g_free(index->by_end);
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

/* The packet of a queue that ended last at or before AT_NS: one binary search over by_end. */
static bool
packet_before(void *data, uint64_t queue, uint64_t at_ns, struct fsa_chain_item *out)
{
	FsvChainIndex *index = data;
	guint lo = 0, hi = index->n_packets;
	const FsvPacket *p;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		const FsvPacket *x = fsv_trace_get_packet(index->trace, index->by_end[mid]);

		if (x->hwqueue_handle < queue ||
		    (x->hwqueue_handle == queue && end_key(x) <= at_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	p = fsv_trace_get_packet(index->trace, index->by_end[lo - 1]);
	if (p->hwqueue_handle != queue)
		return false;
	packet_to_item(p, out);
	return true;
}

/* The queues of a context in the model's order (the trace keeps the model's queue list). */
static size_t
context_queues(void *data, uint64_t context_handle, uint64_t *out, size_t capacity)
{
	FsvChainIndex *index = data;
	size_t n = 0;

	for (guint i = 0; i < fsv_trace_get_queue_count(index->trace); i++) {
		const struct fsa_queue_info *q = fsv_trace_get_queue(index->trace, i);

		if (q->context_handle != context_handle)
			continue;
		if (n < capacity)
			out[n] = q->hwqueue_handle;
		n++;
	}
	return n;
}

static bool
trace_find_queue(void *data, uint64_t queue, struct fsa_queue_info *out)
{
	const struct fsa_queue_info *q = fsv_trace_find_queue(data, queue);

	if (!q)
		return false;
	*out = *q;
	return true;
}

static bool
index_find_queue(void *data, uint64_t queue, struct fsa_queue_info *out)
{
	return trace_find_queue(((FsvChainIndex *) data)->trace, queue, out);
}

/* The lookups over the index (binary searches over its sorted arrays). */
static struct fsa_chain_source
index_source(FsvChainIndex *index)
{
	return (struct fsa_chain_source){
	    .data = index,
	    .find_op = find_op,
	    .find_packet = find_packet,
	    .previous_packet = previous_packet,
	    .engine_packet_before = engine_packet_before,
	    .cmdbuf_wait = cmdbuf_wait,
	    .packet_before = packet_before,
	    .context_queues = context_queues,
	    .find_queue = index_find_queue,
	};
}

GArray *
fsv_chain_index_chain_of_wait(FsvChainIndex *index, guint32 op, guint max_links,
			      enum fsa_chain_stop *stop, FsvItem *stop_item)
{
	const struct fsa_chain_source source = index_source(index);
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

/* ---- A frame's critical path (issue 16 §3): fsa_chain_of_frame, as the report ------------ */

/* The timeline's item of a flip marker (fsv_trace_find_frame_flip), FSV_ITEM_NONE when none. */
static FsvItem
flip_item(const FsvTrace *trace, guint32 row, guint64 flip_id, guint64 queued_ns)
{
	guint32 flip = fsv_trace_find_frame_flip(trace, row, flip_id, queued_ns);

	if (flip == FSV_INDEX_NONE)
		return (FsvItem){FSV_ITEM_NONE, FSV_INDEX_NONE, FSV_INDEX_NONE};
	return (FsvItem){FSV_ITEM_MARKER, flip, fsv_trace_get_marker(trace, flip)->row};
}

/* The frame as the analyzer's frame builder gave it. */
static void
frame_to_fsa(const FsvFrame *f, struct fsa_frame *out)
{
	*out = (struct fsa_frame){
	    .adapter_id = f->adapter_id,
	    .source_id = f->source_id,
	    .index = f->index,
	    .flip_id = f->flip_id,
	    .vsync_count = f->vsync_count,
	    .begin_ns = f->begin_ns,
	    .end_ns = f->end_ns,
	    .frame_time_ns = f->frame_time_ns,
	    .missed_vsyncs = f->missed_vsyncs,
	    .queued_ns = f->queued_ns,
	    .done_ns = f->done_ns,
	    .present_latency_ns = f->present_latency_ns,
	    .process_id = f->process_id,
	    .context_handle = f->context_handle,
	    .vsync_period_ns = f->vsync_period_ns,
	    .is_pending = f->is_pending != 0,
	};
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
	const struct fsa_chain_source source = index_source(index);
	const FsvFrame *f, *prev;
	struct fsa_frame fsa_f, fsa_prev;
	g_autofree struct fsa_chain_link *chain_links = NULL;
	g_autofree struct fsa_path_link *links = NULL;
	struct fsa_chain chain = {0};
	struct fsa_frame_path out = {0};
	FsvFramePath *path;

	g_return_val_if_fail(index != NULL, NULL);
	if (frame >= fsv_trace_get_frame_count(index->trace))
		return NULL;
	f = fsv_trace_get_frame(index->trace, frame);
	if (f->is_pending)
		return NULL;
	prev = previous_frame(index->trace, frame);
	frame_to_fsa(f, &fsa_f);
	if (prev)
		frame_to_fsa(prev, &fsa_prev);
	chain.capacity = MAX(max_links, 1);
	chain.links = chain_links = g_new0(struct fsa_chain_link, chain.capacity);
	out.capacity = chain.capacity + 2;
	out.links = links = g_new0(struct fsa_path_link, out.capacity);
	if (fsa_chain_of_frame(&source, &fsa_f, prev ? &fsa_prev : NULL, &chain, &out) != FSA_OK)
		return NULL;
	path = g_new0(FsvFramePath, 1);
	path->frame = frame;
	path->begin_ns = out.begin_ns;
	path->end_ns = out.end_ns;
	path->stop = out.stop;
	path->links = g_array_sized_new(FALSE, FALSE, sizeof(FsvPathLink), (guint) out.length);
	for (size_t i = 0; i < out.length; i++) {
		const struct fsa_path_link *l = &links[i];
		FsvPathLink link = {
		    .item = l->has_item
				? item_of(index, &l->item)
				: flip_item(index->trace, f->row, l->flip_id, l->flip_queued_ns),
		    .role = l->role,
		    .has_item = l->has_item,
		    .chain = l->item,
		    .flip_id = l->flip_id,
		    .hold_begin_ns = l->hold_begin_ns,
		    .hold_end_ns = l->hold_end_ns,
		};

		g_array_append_val(path->links, link);
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

GArray *
fsv_frame_path_shares(FsvTrace *trace, const FsvFramePath *path)
{
	const struct fsa_chain_source source = {.data = trace, .find_queue = trace_find_queue};
	const FsvFrame *f = fsv_trace_get_frame(trace, path->frame);
	guint n_links = path->links->len;
	g_autofree struct fsa_path_link *links = g_new0(struct fsa_path_link, MAX(n_links, 1));
	g_autofree struct fsa_path_share *shares = g_new(struct fsa_path_share, 3 * n_links + 1);
	GArray *out = g_array_new(FALSE, FALSE, sizeof(FsvPathShare));
	size_t n;

	for (guint i = 0; i < n_links; i++) {
		const FsvPathLink *l = &g_array_index(path->links, FsvPathLink, i);

		links[i] = (struct fsa_path_link){
		    .role = l->role,
		    .has_item = l->has_item,
		    .item = l->chain,
		    .flip_id = l->flip_id,
		    .hold_begin_ns = l->hold_begin_ns,
		    .hold_end_ns = l->hold_end_ns,
		};
	}
	/* The report's shares (fsa_chain_path_shares). */
	n = fsa_chain_path_shares(&source, links, n_links, f->adapter_id, f->source_id, shares);
	for (size_t i = 0; i < n; i++) {
		FsvPathShare s = {.scope = shares[i].scope, .held_ns = shares[i].held_ns};

		g_strlcpy(s.key, shares[i].key, sizeof(s.key));
		g_array_append_val(out, s);
	}
	return out;
}
