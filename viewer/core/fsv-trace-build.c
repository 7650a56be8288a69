/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: building an FsvTrace (fsv-trace.h's fsv_trace_load and
 * _fsv_trace_new_from_events). Analyzer/ingest runs into an analyzer model whose sink appends
 * every finished item to a TraceBuild's growing arrays (fsv-trace-build-private.h); when the
 * model is finished its queues, fences, processes, clock fits and summary are copied (the model
 * is then destroyed), the rows are laid out (fsv-trace-layout.c), and build_index's phases give
 * each item its row and lane, resolve op ids to indexes and build the per-row sorted lists and
 * level-of-detail indexes. Finally the TraceBuild is frozen into the flat arrays of an FsvTrace
 * (fsv-trace-storage.h), which never changes afterwards.
 */
#include "fsv-trace-build-private.h"
#include "fsv-frames-private.h"
#include "fsv-lanes-private.h"
#include "fsv-load-preview-private.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "fencescope-tp-enums.h"

/* ---- Loading: the model's sink ---------------------------------------------------------- */

static fsa_status
sink_op(void *data, const struct fsa_op *op)
{
	TraceBuild *build = data;
	FsvOp o = {0};

	o.queued_ns = op->queued_ns;
	o.observed_ns = op->observed_ns;
	o.op_end_ns = op->end_ns;
	switch (op->state) {
	case FSA_OP_INFERRED:
		o.begin_ns = op->inferred_begin_ns;
		o.end_ns = op->inferred_end_ns;
		break;
	case FSA_OP_UNQUEUED:
		o.begin_ns = op->observed_ns != FSA_TIME_NONE ? op->observed_ns : op->end_ns;
		o.end_ns = op->end_ns;
		break;
	case FSA_OP_NEVER_COMPLETED:
		o.begin_ns = op->queued_ns;
		o.end_ns = FSV_TIME_NONE; /* the end of the build, known at the end */
		break;
	case FSA_OP_OBSERVED:
	default:
		o.begin_ns = op->queued_ns;
		o.end_ns = op->end_ns;
		break;
	}
	o.fence_handle = op->fence_handle;
	o.fence_global_handle = op->fence_global_handle;
	o.fence_value = op->fence_value;
	o.progress_value = op->progress_value;
	o.observed_gpu_ts = op->observed_gpu_ts;
	o.end_gpu_ts = op->end_gpu_ts;
	o.log_position = op->log_position;
	o.observed_value = op->observed_value;
	o.id = op->id;
	o.hwqueue_handle = op->hwqueue_handle;
	/* Until the end of loading, signal_op holds nothing: waits find their signal through the
	 * edges (and signal_op_id, kept in log_position's neighbour below). */
	o.signal_op = FSV_INDEX_NONE;
	o.row = FSV_INDEX_NONE;
	o.process_id = op->process_id;
	o.adapter_id = op->adapter_id;
	o.engine_id = op->engine_id;
	o.kind = (guint8) op->kind;
	o.source = (guint8) op->source;
	o.state = (guint8) op->state;
	o.cpu_wait_result = op->cpu_wait_result;
	g_array_append_val(build->ops, o);
	if (op->kind == FSA_OP_WAIT && op->signal_op_id != 0) {
		guint64 pair[2] = {op->signal_op_id, op->id};

		g_array_append_vals(build->edge_ids, pair, 2);
	}
	return FSA_OK;
}

/* Edges come twice (the wait's signal_op_id and the edge itself); the edge callback is the
 * authority for waits the model closed before their signal was known. Duplicates are removed
 * when the edges are indexed. */
static fsa_status
sink_edge(void *data, const struct fsa_edge *edge)
{
	TraceBuild *build = data;
	guint64 pair[2] = {edge->signal_op_id, edge->wait_op_id};

	g_array_append_vals(build->edge_ids, pair, 2);
	return FSA_OK;
}

static fsa_status
sink_packet(void *data, const struct fsa_packet *packet)
{
	TraceBuild *build = data;
	FsvPacket p = {0};

	p.queued_ns = packet->queued_ns;
	p.start_ns = packet->start_ns;
	p.end_ns = packet->end_ns;
	p.start_gpu_ts = packet->start_gpu_ts;
	p.end_gpu_ts = packet->end_gpu_ts;
	p.packet_id = packet->packet_id;
	p.resubmission_of = packet->resubmission_of;
	p.progress_value = packet->progress_value;
	p.hwqueue_handle = packet->hwqueue_handle;
	p.row = FSV_INDEX_NONE;
	p.adapter_id = packet->adapter_id;
	p.engine_id = packet->engine_id;
	p.status = (guint8) packet->status;
	p.is_user_mode = packet->is_user_mode;
	p.is_paging = packet->is_paging;
	p.fence_id = packet->fence_id;
	p.context_handle = packet->context_handle;
	p.is_context_switch = packet->is_context_switch;
	g_array_append_val(build->packets, p);
	return FSA_OK;
}

static fsa_status
sink_marker(void *data, const struct fsa_marker *marker)
{
	TraceBuild *build = data;
	FsvMarker m = {0};

	m.begin_ns = marker->begin_ns;
	m.end_ns = marker->end_ns;
	m.is_open = marker->end_ns == FSA_TIME_NONE;
	m.hwqueue_handle = marker->hwqueue_handle;
	m.context_handle = marker->context_handle;
	m.doorbell_handle = marker->doorbell_handle;
	m.other_handle = marker->other_handle;
	m.value = marker->value;
	m.code = marker->code;
	m.latency_ns = marker->latency_ns;
	m.value2 = marker->value2;
	m.code2 = marker->code2;
	m.row = FSV_INDEX_NONE;
	/* TDR-02: a detection is drawn over the span the engine made no progress in, so it is
	 * kept as that interval: from (detection − stalled_ns) to the detection. */
	if (marker->kind == FSA_MARK_TDR_DETECT && marker->value > 0 &&
	    marker->begin_ns != FSA_TIME_NONE)
		m.begin_ns =
		    marker->begin_ns > marker->value ? marker->begin_ns - marker->value : 0;
	m.adapter_id = marker->adapter_id;
	m.engine_id = marker->engine_id;
	m.process_id = marker->process_id;
	m.kind = (guint8) marker->kind;
	g_array_append_val(build->markers, m);
	_fsv_build_frames_add_marker(build, marker);
	return FSA_OK;
}

static fsa_status
sink_loss(void *data, const struct fsa_loss *loss)
{
	TraceBuild *build = data;
	FsvLoss l = {.loss = *loss, .row = FSV_INDEX_NONE};

	g_array_append_val(build->losses, l);
	return FSA_OK;
}

static fsa_status
sink_fence_value(void *data, const struct fsa_fence_value *step)
{
	TraceBuild *build = data;

	g_array_append_val(build->fence_values, *step);
	return FSA_OK;
}

static fsa_status
sink_anomaly(void *data, const struct fsa_anomaly *anomaly)
{
	TraceBuild *build = data;
	struct fsa_anomaly stored;

	/* Field by field into zeroed bytes: a copy of the whole struct carries its padding (after
	 * kind and process_id), bytes the analyzer never set, into the index file, whose bytes
	 * then differed from one build of the same trace to the next. */
	memset(&stored, 0, sizeof(stored));
	stored.kind = anomaly->kind;
	stored.ts_ns = anomaly->ts_ns;
	stored.process_id = anomaly->process_id;
	stored.hwqueue_handle = anomaly->hwqueue_handle;
	stored.fence_handle = anomaly->fence_handle;
	stored.fence_global_handle = anomaly->fence_global_handle;
	stored.fence_value = anomaly->fence_value;
	stored.op_id = anomaly->op_id;
	stored.a = anomaly->a;
	stored.b = anomaly->b;
	g_array_append_val(build->anomalies, stored);
	return FSA_OK;
}

typedef struct {
	FsvTraceProgressFunc func;
	gpointer user_data;
	GCancellable *cancellable;
} LoadProgress;

static bool
on_progress(void *data, uint64_t events, double fraction)
{
	LoadProgress *p = data;

	if (p->func)
		p->func(events, fraction, p->user_data);
	return p->cancellable && g_cancellable_is_cancelled(p->cancellable);
}

/* An item's sort key (an op's id, a row item's begin time) and where it is: 16 bytes sorted
 * instead of the items themselves (sort_ops_by_id, sort_row_list); equal keys in index order,
 * so the order is the same whatever the sort. */
typedef struct {
	guint64 key;
	guint32 index;
} SortKey;

static int
compare_sort_keys(const void *a, const void *b)
{
	const SortKey *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* OPS (FsvOp) in id order, equal ids in the order they came (a stable sort). The 16-byte keys
 * are sorted, then the ops moved once each, cycle by cycle: g_array_sort moved the 152-byte ops
 * in every pass of its merge sort (its comparisons alone were 1.7 % of a first open's CPU
 * samples on the stress trace, whose ops do not come in id order). */
static void
sort_ops_by_id(GArray *ops)
{
	guint n = ops->len;
	SortKey *order = g_new(SortKey, MAX(n, 1));
	guint32 *from = g_new(guint32, MAX(n, 1));
	FsvOp *op = (FsvOp *) (void *) ops->data;

	for (guint i = 0; i < n; i++)
		order[i] = (SortKey){op[i].id, i};
	qsort(order, n, sizeof(SortKey), compare_sort_keys);
	/* Position k gets the op now at from[k]; a position done is marked from[k] = k. */
	for (guint k = 0; k < n; k++)
		from[k] = order[k].index;
	g_free(order);
	for (guint start = 0; start < n; start++) {
		FsvOp held;
		guint32 j = start;

		if (from[start] == start)
			continue;
		held = op[start];
		for (;;) {
			guint32 s = from[j];

			from[j] = j;
			if (s == start) {
				op[j] = held;
				break;
			}
			op[j] = op[s];
			j = s;
		}
	}
	g_free(from);
}

static guint32
build_find_op_by_id(const TraceBuild *build, guint64 op_id)
{
	guint lo = 0, hi = build->ops->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		guint64 id = g_array_index(build->ops, FsvOp, mid).id;

		if (id == op_id)
			return mid;
		if (id < op_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FSV_INDEX_NONE;
}

/* Where a row's level-of-detail indexes go while its rows are indexed (index_rows): the row's
 * own arrays (FsvLodHeader, FsvLodItem, FsvLodBucket), appended to the trace's in row order
 * afterwards, so that rows can be indexed in any order, by several threads. */
typedef struct {
	GArray *lods, *items, *buckets;
} LodSink;

/* A level-of-detail index of ITEMS (FsvLodItem, ids of KIND) appended to SINK; returns its
 * index there. */
static guint32
add_lod(LodSink *sink, GArray *items, FsvItemKind kind)
{
	return _fsv_lod_build((const FsvLodItem *) items->data, items->len, kind, sink->lods,
			      sink->items, sink->buckets);
}

/* Sort helpers for per-row index lists: by the item's begin time (a thread-unsafe global
 * would do, but the loader may run in several threads at once). */
typedef struct {
	const TraceBuild *build;
	int what; /* 0 ops, 1 packets, 2 markers */
} SortCtx;

static guint64
item_begin(const SortCtx *c, guint32 i)
{
	switch (c->what) {
	case 0:
		return g_array_index(c->build->ops, FsvOp, i).begin_ns;
	case 1:
		return g_array_index(c->build->packets, FsvPacket, i).start_ns;
	default:
		return g_array_index(c->build->markers, FsvMarker, i).begin_ns;
	}
}

/* Sorts a row's list by begin time, then index. Most lists arrive in order or nearly (items
 * are placed in the order of their ids, which follow time): the keys are gathered once (one
 * read of each 152-byte op instead of one per comparison), an ordered list is left as it is,
 * and any other is sorted as keys and written back. */
static void
sort_row_list(const TraceBuild *build, GArray *list, int what)
{
	SortCtx c = {build, what};
	guint32 *ids = (guint32 *) list->data;
	g_autofree SortKey *keys = NULL;
	bool is_sorted = true;

	if (list->len < 2)
		return;
	keys = g_new(SortKey, list->len);
	for (guint i = 0; i < list->len; i++) {
		keys[i] = (SortKey){item_begin(&c, ids[i]), ids[i]};
		if (i > 0 && is_sorted && compare_sort_keys(&keys[i - 1], &keys[i]) > 0)
			is_sorted = false;
	}
	if (is_sorted)
		return;
	qsort(keys, list->len, sizeof(SortKey), compare_sort_keys);
	for (guint i = 0; i < list->len; i++)
		ids[i] = keys[i].index;
}

static int
compare_steps(const void *a, const void *b)
{
	const FsvFenceStep *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static int
compare_u32(const void *a, const void *b)
{
	guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

	return x < y ? -1 : x > y;
}

/* Sorts the N ops of an op's edge list (most have one or two). */
static void
sort_edge_list(guint32 *ops, guint n)
{
	if (n > 16) {
		qsort(ops, n, sizeof(guint32), compare_u32);
		return;
	}
	for (guint i = 1; i < n; i++) {
		guint32 v = ops[i];
		guint j = i;

		for (; j > 0 && ops[j - 1] > v; j--)
			ops[j] = ops[j - 1];
		ops[j] = v;
	}
}

/* Edges as CSR, both directions: edge_ops[edge_start[op] .. edge_start[op + 1]) are the waits
 * a signal released, or the signal of a wait, in index order, each once. Bucketed by op
 * (a counting sort), then each op's short list sorted and its duplicates dropped: the same
 * arrays as sorting all the (op, other) pairs, without qsort's comparisons of millions of
 * pairs (stress-270000: 0.33 s of CPU before). */
static void
index_edges(TraceBuild *build)
{
	guint n_ops = build->ops->len;
	guint n_ids = build->edge_ids->len / 2, n_pairs = 0, n = 0;
	g_autofree guint32 *pairs = g_new(guint32, MAX(2 * (gsize) n_ids, 1));
	g_autofree guint32 *first = g_new0(guint32, (gsize) n_ops + 1);
	g_autofree guint32 *fill = NULL;
	g_autofree guint32 *others = NULL;

	for (guint i = 0; i < n_ids; i++) {
		guint32 s =
		    build_find_op_by_id(build, g_array_index(build->edge_ids, guint64, 2 * i));
		guint32 w =
		    build_find_op_by_id(build, g_array_index(build->edge_ids, guint64, 2 * i + 1));

		if (s == FSV_INDEX_NONE || w == FSV_INDEX_NONE)
			continue;
		pairs[2 * n_pairs] = s;
		pairs[2 * n_pairs + 1] = w;
		n_pairs++;
		first[s + 1]++;
		first[w + 1]++;
	}
	g_array_set_size(build->edge_ids, 0);
	for (guint i = 0; i < n_ops; i++)
		first[i + 1] += first[i];
	fill = g_memdup2(first, sizeof(guint32) * ((gsize) n_ops + 1));
	others = g_new(guint32, MAX(2 * (gsize) n_pairs, 1));
	for (guint i = 0; i < n_pairs; i++) {
		guint32 s = pairs[2 * i], w = pairs[2 * i + 1];

		others[fill[s]++] = w;
		others[fill[w]++] = s;
	}
	build->edge_start = g_new0(guint32, (gsize) n_ops + 1);
	build->edge_ops = g_new(guint32, MAX(2 * (gsize) n_pairs, 1));
	for (guint i = 0; i < n_ops; i++) {
		guint32 *list = others + first[i];
		guint len = first[i + 1] - first[i];

		sort_edge_list(list, len);
		for (guint k = 0; k < len; k++)
			if (k == 0 || list[k] != list[k - 1]) /* else a duplicate */
				build->edge_ops[n++] = list[k];
		build->edge_start[i + 1] = n;
	}
	build->n_edge_ops = n;
	for (guint i = 0; i < n_ops; i++) {
		FsvOp *o = &g_array_index(build->ops, FsvOp, i);

		if (o->kind == FSA_OP_WAIT && build->edge_start[i + 1] > build->edge_start[i])
			o->signal_op = build->edge_ops[build->edge_start[i]];
	}
}

static void build_marker_lods(TraceBuild *build, guint32 r, GArray *items, LodSink *sink);

/* TDR-01: a TDR's preemption request that never completed was abandoned by the recovery that
 * followed on its engine: it is drawn up to that recovery's end, not to the end of the trace
 * (it stays is_open: its details say it never completed). */
static void
end_abandoned_requests(TraceBuild *build)
{
	if (!_fsv_build_has_marker_kind(build, FSA_MARK_TDR))
		return;
	for (guint32 i = 0; i < build->markers->len; i++) {
		FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);
		guint64 end = FSV_TIME_NONE;

		if (m->kind != FSA_MARK_PREEMPTION || !m->is_open ||
		    m->code != FSTP_PREEMPT_REASON_TDR)
			continue;
		for (guint32 k = 0; k < build->markers->len; k++) {
			const FsvMarker *r = &g_array_index(build->markers, FsvMarker, k);

			if (r->kind == FSA_MARK_TDR && r->adapter_id == m->adapter_id &&
			    r->engine_id == m->engine_id && r->begin_ns >= m->begin_ns &&
			    (end == FSV_TIME_NONE || r->end_ns < end))
				end = r->end_ns;
		}
		if (end != FSV_TIME_NONE)
			m->end_ns = end;
	}
}

/* PRE-13, per display row: flips into two sub-lanes (a flip queued while another is pending
 * takes the other one), and the vsyncs that latched nothing while the presenter was presenting
 * (from its first flip done to its last) marked missed. */
static void
index_display_markers(TraceBuild *build)
{
	for (guint32 r = 0; r < build->rows->len; r++) {
		GArray *list = build->row_data[r].markers;
		guint64 first_done = FSV_TIME_NONE, last_done = 0, lane_end[2] = {0, 0};

		if (_fsv_build_row_at(build, r)->kind != FSV_ROW_DISPLAY)
			continue;
		sort_row_list(build, list, 2);
		for (guint i = 0; i < list->len; i++) {
			FsvMarker *m = &g_array_index(build->markers, FsvMarker,
						      g_array_index(list, guint32, i));

			if (!_fsv_marker_is_flip(m))
				continue;
			if (lane_end[0] <= m->begin_ns)
				m->lane = 0;
			else if (lane_end[1] <= m->begin_ns)
				m->lane = 1;
			else
				m->lane = lane_end[0] <= lane_end[1] ? 0 : 1;
			lane_end[m->lane] = MAX(m->end_ns, m->begin_ns + 1);
			if (!m->is_open) {
				first_done = MIN(first_done, m->end_ns);
				last_done = MAX(last_done, m->end_ns);
			}
		}
		for (guint i = 0; i < list->len; i++) {
			FsvMarker *m = &g_array_index(build->markers, FsvMarker,
						      g_array_index(list, guint32, i));

			m->is_missed = _fsv_marker_is_vsync(m) && _fsv_vsync_flip_id(m) == 0 &&
				       first_done != FSV_TIME_NONE && m->begin_ns > first_done &&
				       m->begin_ns < last_done;
		}
	}
}

/* PRE-06, PRE-07, PRE-09: a preempted packet's pieces. A resubmitted DMA packet names the packet
 * it replaces in resubmission_of (packet ids are unique per adapter); a ring submission resumes
 * at its saved point under its own id, without a packet_queued: its next piece is the next one
 * of that id after a piece that ended PREEMPTED. Pieces are taken in start order. */
static int
compare_packet_start(const void *a, const void *b, void *data)
{
	const TraceBuild *build = data;
	const FsvPacket *x = &g_array_index(build->packets, FsvPacket, *(const guint32 *) a);
	const FsvPacket *y = &g_array_index(build->packets, FsvPacket, *(const guint32 *) b);

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const guint32 *) a < *(const guint32 *) b ? -1 : 1;
}

static void
link_packet_pieces(TraceBuild *build)
{
	g_autoptr(GHashTable) last = NULL; /* (adapter, packet id) → latest piece + 1 */
	g_autofree guint32 *order = NULL;
	bool has_pieces = false;

	for (guint32 i = 0; i < build->packets->len; i++) {
		FsvPacket *p = &g_array_index(build->packets, FsvPacket, i);

		p->prev_piece = p->next_piece = FSV_INDEX_NONE;
		has_pieces |= p->resubmission_of != 0 || p->status == FSA_PACKET_PREEMPTED;
	}
	if (!has_pieces)
		return;
	order = g_new(guint32, build->packets->len);
	for (guint32 i = 0; i < build->packets->len; i++)
		order[i] = i;
	g_qsort_with_data(order, (gint) build->packets->len, sizeof(guint32), compare_packet_start,
			  build);
	last = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	for (guint32 k = 0; k < build->packets->len; k++) {
		guint32 i = order[k];
		FsvPacket *p = &g_array_index(build->packets, FsvPacket, i);
		/* 24 bits of adapter over 40 of packet id: ids stay far below 2^40. */
		guint64 own = (guint64) p->adapter_id << 40 ^ p->packet_id;
		guint64 of = (guint64) p->adapter_id << 40 ^ p->resubmission_of;
		gpointer v = g_hash_table_lookup(last, p->resubmission_of ? &of : &own);
		FsvPacket *prev =
		    v ? &g_array_index(build->packets, FsvPacket, GPOINTER_TO_UINT(v) - 1) : NULL;

		if (prev && prev != p && prev->next_piece == FSV_INDEX_NONE &&
		    (p->resubmission_of || (prev->status == FSA_PACKET_PREEMPTED &&
					    prev->hwqueue_handle == p->hwqueue_handle))) {
			p->prev_piece = GPOINTER_TO_UINT(v) - 1;
			prev->next_piece = i;
		}
		g_hash_table_insert(last, g_memdup2(&own, sizeof(own)), GUINT_TO_POINTER(i + 1));
	}
}

/* XAD-03, XAD-07: the CurrentValue of a cross-adapter fence as each adapter sees it: its
 * initial value, the signals that ran on that adapter (or on the CPU, on its creator's row),
 * and the values propagated to it from the other adapter, at their NotificationOnly update (at
 * the propagation when the trace has none). */
static void
index_xfence_steps(TraceBuild *build)
{
	if (g_hash_table_size(build->xfence_rows) == 0)
		return;
	for (guint32 r = 0; r < build->rows->len; r++) {
		const FsvRow *row = _fsv_build_row_at(build, r);
		const struct fsa_fence_info *f;
		FsvFenceStep s;

		if (row->kind != FSV_ROW_XFENCE)
			continue;
		f = _fsv_build_find_fence(build, row->fence_global_handle);
		s = (FsvFenceStep){f && f->created_ns != FSA_TIME_NONE ? f->created_ns
								       : build->begin_ns,
				   f ? f->initial_value : 0, FSV_INDEX_NONE, FSV_INDEX_NONE};
		g_array_append_val(build->row_data[r].steps, s);
	}
	for (guint32 i = 0; i < build->ops->len; i++) {
		const FsvOp *o = &g_array_index(build->ops, FsvOp, i);
		const struct fsa_fence_info *f;
		guint32 r, adapter = o->adapter_id;
		FsvFenceStep s = {o->end_ns, o->fence_value, i, FSV_INDEX_NONE};

		if (o->kind != FSA_OP_SIGNAL || o->state == FSA_OP_NEVER_COMPLETED ||
		    !o->fence_global_handle ||
		    !g_hash_table_contains(build->xfence_rows, &o->fence_global_handle))
			continue;
		if (adapter == UINT32_MAX &&
		    (f = _fsv_build_find_fence(build, o->fence_global_handle)))
			adapter = f->adapter_id;
		r = _fsv_build_find_xfence_row(build, o->fence_global_handle, adapter);
		if (r != FSV_INDEX_NONE)
			g_array_append_val(build->row_data[r].steps, s);
	}
	for (guint32 i = 0; i < build->markers->len; i++) {
		const FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);
		FsvFenceStep s = {m->is_open ? m->begin_ns : m->end_ns, m->value,
				  FSV_STEP_PROPAGATED, i};

		if (m->kind == FSA_MARK_FENCE_PROPAGATION && m->row != FSV_INDEX_NONE)
			g_array_append_val(build->row_data[m->row].steps, s);
	}
}

/* MMU-06, MMU-07: a VA space row's mappings in lanes (a mapping goes to the first lane free
 * when it is made; all busy: the one that frees first), one level-of-detail index per lane. */
static void
index_va_mappings(TraceBuild *build, guint32 r, GArray *items, LodSink *sink)
{
	RowLists *d = &build->row_data[r];
	guint64 lane_end[FSV_VA_MAX_LANES] = {0};
	guint used = 0;

	for (guint i = 0; i < d->markers->len; i++) {
		FsvMarker *m = &g_array_index(build->markers, FsvMarker,
					      g_array_index(d->markers, guint32, i));
		guint lane = FSV_VA_MAX_LANES;

		if (m->kind != FSA_MARK_VA_MAPPING)
			continue;
		for (guint l = 0; l < FSV_VA_MAX_LANES && lane == FSV_VA_MAX_LANES; l++)
			if (lane_end[l] <= m->begin_ns || (l >= used && lane_end[l] == 0))
				lane = l;
		if (lane == FSV_VA_MAX_LANES) {
			lane = 0;
			for (guint l = 1; l < FSV_VA_MAX_LANES; l++)
				if (lane_end[l] < lane_end[lane])
					lane = l;
		}
		lane_end[lane] = MAX(lane_end[lane], MAX(m->end_ns, m->begin_ns + 1));
		used = MAX(used, lane + 1);
		m->lane = (guint8) lane;
	}
	_fsv_build_row_at(build, r)->lane_count = MAX(used, 1);
	for (guint lane = 0; lane < used; lane++) {
		g_array_set_size(items, 0);
		for (guint i = 0; i < d->markers->len; i++) {
			guint32 idx = g_array_index(d->markers, guint32, i);
			const FsvMarker *m = &g_array_index(build->markers, FsvMarker, idx);
			FsvLodItem it = {m->begin_ns, m->end_ns, idx};

			if (m->kind == FSA_MARK_VA_MAPPING && m->lane == lane)
				g_array_append_val(items, it);
		}
		/* Lanes are consecutive LODs (FsvRowData), an empty lane an empty one. */
		if (lane == 0)
			d->va_lods = sink->lods->len;
		add_lod(sink, items, FSV_ITEM_MARKER);
		d->n_va_lods++;
	}
}

/* The span of the trace (the model's), ops in id order, the marker kinds it has. */
static void
index_span(TraceBuild *build)
{
	/* The span of the trace: the model's, widened by anything that reaches further. */
	build->begin_ns = build->summary.first_ns != FSA_TIME_NONE ? build->summary.first_ns : 0;
	build->end_ns =
	    build->summary.last_ns != FSA_TIME_NONE ? build->summary.last_ns : build->begin_ns;

	/* Ops arrive in id order; sort defensively if they did not. */
	for (guint i = 1; i < build->ops->len; i++)
		if (g_array_index(build->ops, FsvOp, i - 1).id >
		    g_array_index(build->ops, FsvOp, i).id) {
			sort_ops_by_id(build->ops);
			break;
		}

	for (guint i = 0; i < build->markers->len; i++)
		build->marker_kinds |= G_GUINT64_CONSTANT(1)
				       << g_array_index(build->markers, FsvMarker, i).kind;
}

/* An empty list of each kind per row. */
static void
alloc_row_lists(TraceBuild *build)
{
	guint n_rows = build->rows->len;

	build->row_data = g_new0(RowLists, MAX(n_rows, 1));
	for (guint r = 0; r < n_rows; r++) {
		build->row_data[r].ops = g_array_new(FALSE, FALSE, sizeof(guint32));
		build->row_data[r].packets = g_array_new(FALSE, FALSE, sizeof(guint32));
		build->row_data[r].markers = g_array_new(FALSE, FALSE, sizeof(guint32));
		build->row_data[r].steps = g_array_new(FALSE, FALSE, sizeof(FsvFenceStep));
		for (guint l = 0; l < FSV_MARKER_LAYER_COUNT; l++)
			build->row_data[r].marker_lods[l] = FSV_INDEX_NONE;
		for (guint h = 0; h < 2; h++)
			build->row_data[r].stack_lods[h] = FSV_INDEX_NONE;
	}
}

/* Each op's span and row; the CurrentValue steps of fence rows: signals, CPU waits, each
 * fence's initial value, progress fences' completed command buffers. */
static void
place_ops_and_steps(TraceBuild *build)
{
	for (guint32 i = 0; i < build->ops->len; i++) {
		FsvOp *o = &g_array_index(build->ops, FsvOp, i);
		guint32 fr;

		if (o->end_ns == FSV_TIME_NONE || o->end_ns < o->begin_ns)
			o->end_ns =
			    MAX(build->end_ns, o->begin_ns == FSV_TIME_NONE ? 0 : o->begin_ns);
		if (o->begin_ns == FSV_TIME_NONE)
			o->begin_ns = o->end_ns;
		o->row = o->source == FSA_SRC_CPU
			     ? _fsv_build_find_cpu_row(build, o->process_id)
			     : _fsv_build_find_queue_row(build, o->hwqueue_handle);
		if (o->row != FSV_INDEX_NONE)
			g_array_append_val(build->row_data[o->row].ops, i);
		/* CurrentValue steps: a signal's value from its end; a CPU wait's observed value.
		 */
		fr = o->fence_global_handle
			 ? _fsv_build_find_fence_row(build, o->fence_global_handle)
			 : FSV_INDEX_NONE;
		if (fr != FSV_INDEX_NONE && o->state != FSA_OP_NEVER_COMPLETED) {
			FsvFenceStep s = {o->end_ns, o->fence_value, i, FSV_INDEX_NONE};

			if (o->kind == FSA_OP_SIGNAL) {
				g_array_append_val(build->row_data[fr].steps, s);
			} else if (o->source == FSA_SRC_CPU && o->op_end_ns != FSA_TIME_NONE &&
				   o->cpu_wait_result == FSTP_CPU_WAIT_RESULT_SATISFIED) {
				s.value = o->observed_value;
				g_array_append_val(build->row_data[fr].steps, s);
			}
		}
	}
	for (guint i = 0; i < build->fences->len; i++) {
		const struct fsa_fence_info *f =
		    &g_array_index(build->fences, struct fsa_fence_info, i);
		guint32 fr = f->fence_global_handle
				 ? _fsv_build_find_fence_row(build, f->fence_global_handle)
				 : FSV_INDEX_NONE;
		FsvFenceStep s = {f->created_ns != FSA_TIME_NONE ? f->created_ns : build->begin_ns,
				  f->initial_value, FSV_INDEX_NONE, FSV_INDEX_NONE};

		if (fr != FSV_INDEX_NONE)
			g_array_prepend_val(build->row_data[fr].steps, s);
	}
	/* Values the analyzer saw a fence take without an operation: a progress fence reaching
	 * each completed command buffer's value. */
	for (guint i = 0; i < build->fence_values->len; i++) {
		const struct fsa_fence_value *v =
		    &g_array_index(build->fence_values, struct fsa_fence_value, i);
		guint32 fr = _fsv_build_find_fence_row(build, v->fence_global_handle);
		FsvFenceStep s = {v->ts_ns, v->value, FSV_STEP_BUFFER_COMPLETED, FSV_INDEX_NONE};

		if (fr != FSV_INDEX_NONE)
			g_array_append_val(build->row_data[fr].steps, s);
	}
}

/* Each packet's span and engine row, and its pieces (PRE-06, PRE-07). */
static void
place_packets(TraceBuild *build)
{
	for (guint32 i = 0; i < build->packets->len; i++) {
		FsvPacket *p = &g_array_index(build->packets, FsvPacket, i);

		if (p->start_ns == FSV_TIME_NONE)
			p->start_ns =
			    p->queued_ns != FSV_TIME_NONE ? p->queued_ns : build->begin_ns;
		if (p->end_ns == FSV_TIME_NONE || p->end_ns < p->start_ns)
			p->end_ns = MAX(build->end_ns, p->start_ns);
		p->row = _fsv_build_find_engine_row(build, p->adapter_id, p->engine_id);
		if (p->row != FSV_INDEX_NONE)
			g_array_append_val(build->row_data[p->row].packets, i);
	}
	link_packet_pieces(build);
}

/* Each marker's span and the rows it goes on. */
static void
place_markers(TraceBuild *build)
{
	guint n_rows = build->rows->len;

	for (guint32 i = 0; i < build->markers->len; i++) {
		FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);

		if (m->begin_ns == FSV_TIME_NONE)
			m->begin_ns = build->begin_ns;
		if (m->end_ns == FSV_TIME_NONE || m->end_ns < m->begin_ns)
			m->end_ns = MAX(build->end_ns, m->begin_ns);
		m->row = FSV_INDEX_NONE;
		/* SUS-01: a suspended context suspends all its queues: the range goes on each;
		 * TDR-04: so does a context in error. */
		if ((m->kind == FSA_MARK_CONTEXT_SUSPENDED || m->kind == FSA_MARK_CONTEXT_ERROR) &&
		    m->context_handle != 0)
			for (guint32 r = 0; r < n_rows; r++) {
				const FsvRow *row = _fsv_build_row_at(build, r);

				if (row->kind != FSV_ROW_QUEUE ||
				    row->context_handle != m->context_handle ||
				    (m->adapter_id != UINT32_MAX &&
				     row->adapter_id != m->adapter_id))
					continue;
				if (m->row == FSV_INDEX_NONE)
					m->row = r;
				g_array_append_val(build->row_data[r].markers, i);
			}
		/* TDR-04: a lost device takes every queue of its process down with it (the trace
		 * names the device, not its queues): the loss goes on each of them. */
		if (m->kind == FSA_MARK_DEVICE_LOST && m->process_id != UINT32_MAX)
			for (guint32 r = 0; r < n_rows; r++) {
				const FsvRow *row = _fsv_build_row_at(build, r);

				if (row->kind != FSV_ROW_QUEUE ||
				    row->process_id != m->process_id ||
				    (m->adapter_id != UINT32_MAX &&
				     row->adapter_id != m->adapter_id))
					continue;
				if (m->row == FSV_INDEX_NONE)
					m->row = r;
				g_array_append_val(build->row_data[r].markers, i);
			}
		if (m->row == FSV_INDEX_NONE) {
			m->row = _fsv_build_marker_row(build, m);
			if (m->row != FSV_INDEX_NONE)
				g_array_append_val(build->row_data[m->row].markers, i);
		}
		/* MMU-14: the engine's page fault is drawn on its engine's row (its row); the OS's
		 * handling of it on every queue row of the faulting context, which the OS
		 * terminates for it (and on its process's VA space row, below). A trace without
		 * the OS's events (format 1.4 and before) shows the engine's fault there. */
		if ((m->kind == FSA_MARK_PAGE_FAULT_HANDLED ||
		     (m->kind == FSA_MARK_PAGE_FAULT &&
		      !_fsv_build_has_marker_kind(build, FSA_MARK_PAGE_FAULT_HANDLED))) &&
		    m->context_handle != 0)
			for (guint32 r = 0; r < n_rows; r++) {
				const FsvRow *row = _fsv_build_row_at(build, r);

				if (r == m->row || row->kind != FSV_ROW_QUEUE ||
				    row->context_handle != m->context_handle ||
				    (m->adapter_id != UINT32_MAX &&
				     row->adapter_id != m->adapter_id))
					continue;
				g_array_append_val(build->row_data[r].markers, i);
			}
		if (m->kind == FSA_MARK_PAGE_FAULT_HANDLED) {
			guint32 va = _fsv_build_find_va_row(build, m->process_id, m->adapter_id);

			if (va != FSV_INDEX_NONE && va != m->row)
				g_array_append_val(build->row_data[va].markers, i);
		}
	}
}

/* Engine rows with preemptions, pieces or TDR stages get the strip above their lanes. */
static void
mark_event_strips(TraceBuild *build)
{
	for (guint32 i = 0; i < build->packets->len; i++) {
		const FsvPacket *p = &g_array_index(build->packets, FsvPacket, i);

		build->has_paging_packets |= p->is_paging;
		build->has_resubmitted_pieces |= p->next_piece != FSV_INDEX_NONE;
		if (p->row != FSV_INDEX_NONE &&
		    (p->prev_piece != FSV_INDEX_NONE || p->next_piece != FSV_INDEX_NONE))
			_fsv_build_row_at(build, p->row)->has_event_strip = true;
	}
	for (guint32 i = 0; i < build->markers->len; i++) {
		const FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);

		if (m->row != FSV_INDEX_NONE &&
		    _fsv_build_row_at(build, m->row)->kind == FSV_ROW_ENGINE &&
		    _fsv_marker_uses_event_strip(m->kind))
			_fsv_build_row_at(build, m->row)->has_event_strip = true;
	}
}

/* Losses: their queue row (per-log losses) and the range drawn. */
static void
place_losses(TraceBuild *build)
{
	for (guint i = 0; i < build->losses->len; i++) {
		FsvLoss *l = &g_array_index(build->losses, FsvLoss, i);

		l->row = fsa_loss_is_per_log(l->loss.kind)
			     ? _fsv_build_find_queue_row(build, l->loss.hwqueue_handle)
			     : FSV_INDEX_NONE;
		l->begin_ns =
		    l->loss.begin_ns != FSA_TIME_NONE ? l->loss.begin_ns : build->begin_ns;
		l->end_ns = l->loss.end_ns != FSA_TIME_NONE ? l->loss.end_ns : build->end_ns;
		if (l->end_ns < l->begin_ns)
			l->end_ns = l->begin_ns;
	}
}

/* A row's lists sorted by time, its fence steps sorted and their value range, its counts. */
static void
sort_row(TraceBuild *build, guint32 r)
{
	RowLists *d = &build->row_data[r];
	FsvRow *row = _fsv_build_row_at(build, r);

	sort_row_list(build, d->ops, 0);
	sort_row_list(build, d->packets, 1);
	sort_row_list(build, d->markers, 2);
	if (d->steps->len > 0)
		qsort(d->steps->data, d->steps->len, sizeof(FsvFenceStep), compare_steps);
	row->value_min = d->steps->len ? UINT64_MAX : 0;
	for (guint i = 0; i < d->steps->len; i++) {
		guint64 v = g_array_index(d->steps, FsvFenceStep, i).value;

		row->value_min = MIN(row->value_min, v);
		row->value_max = MAX(row->value_max, v);
	}
	row->op_count = d->ops->len;
	row->packet_count = d->packets->len;
	row->marker_count = d->markers->len;
}

/* A queue row's ops (waits above signals) or an engine row's packets in lanes, as many as its
 * deepest instant needs (fsv-lanes.c), a LOD per lane (consecutive, an empty lane an empty
 * one) and one per aggregated slot of its collapsed form (docs/viewer.md "Lanes"). */
static void
index_row_lanes(TraceBuild *build, guint32 r, GArray *lod_items, LodSink *sink)
{
	RowLists *d = &build->row_data[r];
	FsvRow *row = _fsv_build_row_at(build, r);
	bool is_ops = d->ops->len > 0;
	GArray *list = is_ops ? d->ops : d->packets;
	FsvItemKind kind = is_ops ? FSV_ITEM_OP : FSV_ITEM_PACKET;
	g_autofree FsvLaneItem *items = g_new(FsvLaneItem, MAX(list->len, 1));
	g_autofree guint16 *lanes = g_new(guint16, MAX(list->len, 1));
	g_autofree guint *count = NULL;
	g_autofree guint *start = NULL;
	g_autofree FsvLodItem *by_lane = NULL;

	if (list->len == 0)
		return;
	for (guint i = 0; i < list->len; i++) {
		guint32 idx = g_array_index(list, guint32, i);

		if (is_ops) {
			const FsvOp *o = &g_array_index(build->ops, FsvOp, idx);

			items[i] =
			    (FsvLaneItem){o->begin_ns, o->end_ns, idx, o->kind != FSA_OP_WAIT};
		} else {
			const FsvPacket *p = &g_array_index(build->packets, FsvPacket, idx);

			items[i] = (FsvLaneItem){p->start_ns, p->end_ns, idx, false};
		}
	}
	row->lane_count = _fsv_lanes_assign(items, list->len, lanes, &row->first_lower_lane);
	for (guint i = 0; i < list->len; i++) {
		guint32 idx = g_array_index(list, guint32, i);

		if (is_ops)
			g_array_index(build->ops, FsvOp, idx).lane = lanes[i];
		else
			g_array_index(build->packets, FsvPacket, idx).lane = lanes[i];
	}
	/* One pass to bucket the items by lane (a row may have hundreds of lanes), then a LOD
	 * per lane. */
	count = g_new0(guint, row->lane_count + 1);
	start = g_new0(guint, row->lane_count + 1);
	by_lane = g_new(FsvLodItem, list->len);
	for (guint i = 0; i < list->len; i++)
		count[lanes[i]]++;
	for (guint l = 1; l <= row->lane_count; l++)
		start[l] = start[l - 1] + count[l - 1];
	memset(count, 0, sizeof(guint) * (row->lane_count + 1));
	for (guint i = 0; i < list->len; i++)
		by_lane[start[lanes[i]] + count[lanes[i]]++] =
		    (FsvLodItem){items[i].begin_ns, items[i].end_ns, items[i].id};
	d->lane_lods = sink->lods->len;
	for (guint l = 0; l < row->lane_count; l++) {
		_fsv_lod_build(by_lane + start[l], count[l], kind, sink->lods, sink->items,
			       sink->buckets);
		d->n_lane_lods++;
	}
	for (int h = 0; h < 2; h++) {
		guint from, to;
		bool is_union = false;

		if (!_fsv_lanes_get_stack(row->lane_count, row->first_lower_lane, h, &from, &to))
			continue;
		g_array_set_size(lod_items, 0);
		_fsv_lanes_get_stack_items(items, lanes, list->len, from, to, lod_items, &is_union);
		d->stack_lods[h] = add_lod(sink, lod_items, kind);
		d->stack_first[h] = from;
		d->stack_is_union[h] = is_union;
	}
}

/* Row R's lists sorted, its lanes, and its level-of-detail indexes into SINK. Touches only
 * what is row R's: its lists, its FsvRow, the lanes of its own items. */
static void
index_row(TraceBuild *build, guint32 r, GArray *items, LodSink *sink)
{
	sort_row(build, r);
	if (build->row_data[r].ops->len > 0 || build->row_data[r].packets->len > 0)
		index_row_lanes(build, r, items, sink);
	if (_fsv_build_row_at(build, r)->kind == FSV_ROW_VA_SPACE)
		index_va_mappings(build, r, items, sink);
	build_marker_lods(build, r, items, sink);
}

typedef struct {
	TraceBuild *build;
	const guint32 *order; /* the rows, most items first */
	guint n_rows;
	gint next;      /* the next entry of order to take (atomic) */
	LodSink *sinks; /* one per row */
} RowJobs;

static gpointer
index_rows_worker(gpointer data)
{
	RowJobs *jobs = data;
	g_autoptr(GArray) items = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));
	gint i;

	while ((i = g_atomic_int_add(&jobs->next, 1)) < (gint) jobs->n_rows) {
		guint32 r = jobs->order[i];
		LodSink *sink = &jobs->sinks[r];

		sink->lods = g_array_new(FALSE, FALSE, sizeof(FsvLodHeader));
		sink->items = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));
		sink->buckets = g_array_new(FALSE, FALSE, sizeof(FsvLodBucket));
		index_row(jobs->build, r, items, sink);
	}
	return NULL;
}

static gsize
row_items(const RowLists *d)
{
	return d->ops->len + d->packets->len + d->markers->len + d->steps->len;
}

static int
compare_rows_by_size(const void *a, const void *b, void *data)
{
	const RowLists *d = data;
	gsize x = row_items(&d[*(const guint32 *) a]), y = row_items(&d[*(const guint32 *) b]);

	if (x != y)
		return x > y ? -1 : 1;
	return *(const guint32 *) a < *(const guint32 *) b   ? -1
	       : *(const guint32 *) a > *(const guint32 *) b ? 1
							     : 0;
}

guint
_fsv_build_threads(guint n_jobs)
{
	const char *env = g_getenv("FSV_BUILD_THREADS");
	guint64 n = 0;

	if (!env || !g_ascii_string_to_unsigned(env, 10, 1, 64, &n, NULL))
		n = MIN(g_get_num_processors(), 4);
	return (guint) MAX(MIN(n, n_jobs), 1);
}

/* Appends row R's LODs (SINK) to the trace's, their offsets and the row's LOD indexes moved by
 * what the rows before it hold: the same arrays as if the rows had been indexed one after the
 * other into the trace's. */
static void
append_row_lods(TraceBuild *build, guint32 r, LodSink *sink)
{
	RowLists *d = &build->row_data[r];
	guint32 base = build->lods->len;
	guint64 items = build->lod_items->len, buckets = build->lod_buckets->len;

	for (guint i = 0; i < sink->lods->len; i++) {
		FsvLodHeader h = g_array_index(sink->lods, FsvLodHeader, i);

		h.items_start += items;
		h.buckets_start += buckets;
		g_array_append_val(build->lods, h);
	}
	g_array_append_vals(build->lod_items, sink->items->data, sink->items->len);
	g_array_append_vals(build->lod_buckets, sink->buckets->data, sink->buckets->len);
	if (d->n_lane_lods > 0)
		d->lane_lods += base;
	if (d->n_va_lods > 0)
		d->va_lods += base;
	for (guint h = 0; h < 2; h++)
		if (d->stack_lods[h] != FSV_INDEX_NONE)
			d->stack_lods[h] += base;
	for (guint l = 0; l < FSV_MARKER_LAYER_COUNT; l++)
		if (d->marker_lods[l] != FSV_INDEX_NONE)
			d->marker_lods[l] += base;
	g_clear_pointer(&sink->lods, g_array_unref);
	g_clear_pointer(&sink->items, g_array_unref);
	g_clear_pointer(&sink->buckets, g_array_unref);
}

/* Every row's sorting, lanes and LODs (most of the build after reading): rows are independent,
 * so they are indexed by a few threads, largest rows first, each into its own LodSink; the
 * sinks are then appended in row order, so the trace is the same whatever the threads did. */
static void
index_rows(TraceBuild *build)
{
	guint n_rows = build->rows->len;
	g_autofree guint32 *order = g_new(guint32, MAX(n_rows, 1));
	g_autofree LodSink *sinks = g_new0(LodSink, MAX(n_rows, 1));
	g_autofree GThread **threads = NULL;
	RowJobs jobs = {build, order, n_rows, 0, sinks};
	guint n_threads = _fsv_build_threads(n_rows);

	for (guint32 r = 0; r < n_rows; r++)
		order[r] = r;
	g_qsort_with_data(order, (gint) n_rows, sizeof(guint32), compare_rows_by_size,
			  build->row_data);
	threads = g_new0(GThread *, n_threads);
	/* This thread is one of them. */
	for (guint t = 1; t < n_threads; t++)
		threads[t] = g_thread_new("fsv-index-rows", index_rows_worker, &jobs);
	index_rows_worker(&jobs);
	for (guint t = 1; t < n_threads; t++)
		g_thread_join(threads[t]);
	for (guint32 r = 0; r < n_rows; r++)
		append_row_lods(build, r, &sinks[r]);
}

/* FSV_BUILD_TIMES=1 prints the wall and CPU time (this process, all its threads) of each phase
 * of the build after reading (the tail) on stderr: one "fsv-build-time PHASE wall MS ms cpu MS
 * ms" line each (docs/viewer.md "Loading"). */
typedef struct {
	gboolean on;
	gint64 last_us, last_cpu_us;
} PhaseClock;

static gint64
process_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
phase_clock_start(PhaseClock *clock)
{
	clock->on = g_getenv("FSV_BUILD_TIMES") != NULL;
	clock->last_us = g_get_monotonic_time();
	clock->last_cpu_us = process_cpu_us();
}

static void
phase_done(PhaseClock *clock, const char *phase)
{
	gint64 now, cpu;

	if (!clock->on)
		return;
	now = g_get_monotonic_time();
	cpu = process_cpu_us();
	g_printerr("fsv-build-time %s wall %.1f ms cpu %.1f ms\n", phase,
		   (double) (now - clock->last_us) / 1000.0,
		   (double) (cpu - clock->last_cpu_us) / 1000.0);
	clock->last_us = now;
	clock->last_cpu_us = cpu;
}

#define PHASE(clock, call)                                                                         \
	do {                                                                                       \
		call;                                                                              \
		phase_done(clock, #call);                                                          \
	} while (0)

static gpointer
index_edges_thread(gpointer build)
{
	index_edges(build);
	return NULL;
}

static void
build_index(TraceBuild *build, PhaseClock *clock)
{
	GThread *edges = NULL;

	PHASE(clock, index_span(build));
	PHASE(clock, _fsv_build_layout_rows(build));
	PHASE(clock, alloc_row_lists(build));
	PHASE(clock, place_ops_and_steps(build));
	PHASE(clock, place_packets(build));
	PHASE(clock, place_markers(build));
	PHASE(clock, index_display_markers(build));
	PHASE(clock, index_xfence_steps(build));
	PHASE(clock, end_abandoned_requests(build));
	PHASE(clock, mark_event_strips(build));
	PHASE(clock, place_losses(build));
	/* The edges (index_edges: ops' ids, kinds and signal_op, the edge arrays) on a thread of
	 * their own while index_rows sorts and lays out the rows (ops' begin, end, kind and lane,
	 * the rows' lists and LODs): they share no field, and index_rows alone leaves a core
	 * idle once its last large rows are taken (stress-270000: 0.94 s CPU in 0.76 s). */
	if (_fsv_build_threads(2) > 1)
		edges = g_thread_new("fsv-index-edges", index_edges_thread, build);
	PHASE(clock, index_rows(build));
	if (edges)
		PHASE(clock, g_thread_join(edges));
	else
		PHASE(clock, index_edges(build));
	PHASE(clock, _fsv_build_index_frames(build));
}

/* A row's markers (sorted) into one level-of-detail index per layer. The band shows the status
 * word's intervals when the trace has them (format 1.2), else the connected intervals. */
static void
build_marker_lods(TraceBuild *build, guint32 r, GArray *items, LodSink *sink)
{
	RowLists *d = &build->row_data[r];
	FsvRow *row = _fsv_build_row_at(build, r);
	bool has_states = false;

	for (guint i = 0; i < d->markers->len && !has_states; i++)
		has_states =
		    g_array_index(build->markers, FsvMarker, g_array_index(d->markers, guint32, i))
			.kind == FSA_MARK_DOORBELL_STATE;
	for (int layer = 0; layer < FSV_MARKER_LAYER_COUNT; layer++) {
		g_array_set_size(items, 0);
		for (guint i = 0; i < d->markers->len; i++) {
			guint32 idx = g_array_index(d->markers, guint32, i);
			const FsvMarker *m = &g_array_index(build->markers, FsvMarker, idx);
			FsvLodItem it = {m->begin_ns, m->end_ns, idx};

			if ((int) _fsv_marker_get_layer(m) != layer ||
			    (has_states && m->kind == FSA_MARK_DOORBELL_CONNECTED))
				continue;
			g_array_append_val(items, it);
		}
		if (items->len > 0)
			d->marker_lods[layer] = add_lod(sink, items, FSV_ITEM_MARKER);
	}
	row->has_doorbell_band =
	    row->kind == FSV_ROW_QUEUE && d->marker_lods[FSV_MARKER_LAYER_BAND] != FSV_INDEX_NONE;
}

static void
copy_model(TraceBuild *build, const struct fsa_model *model)
{
	const struct fsa_summary *s = fsa_model_borrow_summary(model);

	build->summary = *s;
	build->runtime_version = g_strdup(s->runtime_version ? s->runtime_version : "");
	build->summary.runtime_version = build->runtime_version;
	for (size_t i = 0; i < fsa_model_process_count(model); i++) {
		struct fsa_process_info p = *fsa_model_borrow_process(model, i);

		p.name = g_strdup(p.name ? p.name : "");
		g_array_append_val(build->processes, p);
	}
	for (size_t i = 0; i < fsa_model_queue_count(model); i++)
		g_array_append_val(build->queues, *fsa_model_borrow_queue(model, i));
	for (size_t i = 0; i < fsa_model_context_count(model); i++)
		g_array_append_val(build->contexts, *fsa_model_borrow_context(model, i));
	for (size_t i = 0; i < fsa_model_engine_count(model); i++)
		g_array_append_val(build->engines, *fsa_model_borrow_engine(model, i));
	for (size_t i = 0; i < fsa_model_fence_count(model); i++)
		g_array_append_val(build->fences, *fsa_model_borrow_fence(model, i));
	for (size_t i = 0; i < fsa_model_clock_fit_count(model); i++)
		g_array_append_val(build->clock_fits, *fsa_model_borrow_clock_fit(model, i));
	for (size_t i = 0; i < fsa_model_va_space_count(model); i++)
		g_array_append_val(build->va_spaces, *fsa_model_borrow_va_space(model, i));
	for (size_t i = 0; i < fsa_model_fence_count(model); i++) {
		const struct fsa_fence_info *f = fsa_model_borrow_fence(model, i);
		const struct fsa_cross_open *o;

		for (size_t k = 0;
		     (o = fsa_model_borrow_cross_open(model, f->fence_global_handle, k)); k++) {
			/* Field by field: the model's copy has padding of whatever its realloc
			 * left, and two builds of one trace must give the same bytes (index files).
			 */
			struct fsa_cross_open copy = {0};

			copy.ts_ns = o->ts_ns;
			copy.process_id = o->process_id;
			copy.adapter_id = o->adapter_id;
			copy.creator_adapter_id = o->creator_adapter_id;
			copy.created_as = o->created_as;
			copy.opened_as = o->opened_as;
			/* Kept by global handle: the local one is the opener's. */
			copy.fence_handle = f->fence_global_handle;
			g_array_append_val(build->xopens, copy);
		}
	}
}

static TraceBuild *
build_new(const char *path)
{
	TraceBuild *build = g_new0(TraceBuild, 1);

	build->path = g_strdup(path);
	build->rows = g_array_new(FALSE, FALSE, sizeof(FsvRow));
	build->ops = g_array_new(FALSE, FALSE, sizeof(FsvOp));
	build->packets = g_array_new(FALSE, FALSE, sizeof(FsvPacket));
	build->markers = g_array_new(FALSE, FALSE, sizeof(FsvMarker));
	build->losses = g_array_new(FALSE, FALSE, sizeof(FsvLoss));
	build->anomalies = g_array_new(FALSE, FALSE, sizeof(struct fsa_anomaly));
	build->fence_values = g_array_new(FALSE, FALSE, sizeof(struct fsa_fence_value));
	build->edge_ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	build->lods = g_array_new(FALSE, FALSE, sizeof(FsvLodHeader));
	build->lod_items = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));
	build->lod_buckets = g_array_new(FALSE, FALSE, sizeof(FsvLodBucket));
	build->processes = g_array_new(FALSE, FALSE, sizeof(struct fsa_process_info));
	build->queues = g_array_new(FALSE, FALSE, sizeof(struct fsa_queue_info));
	build->contexts = g_array_new(FALSE, FALSE, sizeof(struct fsa_context_info));
	build->engines = g_array_new(FALSE, FALSE, sizeof(struct fsa_engine_info));
	build->fences = g_array_new(FALSE, FALSE, sizeof(struct fsa_fence_info));
	build->clock_fits = g_array_new(FALSE, FALSE, sizeof(struct fsa_clock_fit));
	build->va_spaces = g_array_new(FALSE, FALSE, sizeof(struct fsa_va_space_info));
	build->xopens = g_array_new(FALSE, FALSE, sizeof(struct fsa_cross_open));
	build->va_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	build->xfence_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						   (GDestroyNotify) g_array_unref);
	build->queue_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	build->fence_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	_fsv_build_frames_init(build);
	return build;
}

static void
build_free(TraceBuild *build)
{
	if (!build)
		return;
	for (guint r = 0; r < build->rows->len; r++) {
		FsvRow *row = _fsv_build_row_at(build, r);

		g_free((char *) row->label);
		g_free((char *) row->sublabel);
		if (build->row_data) {
			RowLists *d = &build->row_data[r];

			g_array_unref(d->ops);
			g_array_unref(d->packets);
			g_array_unref(d->markers);
			g_array_unref(d->steps);
		}
	}
	for (guint i = 0; i < build->processes->len; i++)
		g_free((char *) g_array_index(build->processes, struct fsa_process_info, i).name);
	g_free(build->row_data);
	g_array_unref(build->rows);
	g_array_unref(build->ops);
	g_array_unref(build->packets);
	g_array_unref(build->markers);
	g_array_unref(build->losses);
	g_array_unref(build->anomalies);
	g_array_unref(build->fence_values);
	g_array_unref(build->edge_ids);
	g_array_unref(build->lods);
	g_array_unref(build->lod_items);
	g_array_unref(build->lod_buckets);
	g_array_unref(build->processes);
	g_array_unref(build->queues);
	g_array_unref(build->contexts);
	g_array_unref(build->engines);
	g_array_unref(build->fences);
	g_array_unref(build->clock_fits);
	g_array_unref(build->va_spaces);
	g_array_unref(build->xopens);
	g_hash_table_unref(build->va_rows);
	g_hash_table_unref(build->xfence_rows);
	g_hash_table_unref(build->queue_rows);
	g_hash_table_unref(build->fence_rows);
	g_free(build->edge_start);
	g_free(build->edge_ops);
	g_free(build->runtime_version);
	g_free(build->path);
	g_free(build->partial_error);
	_fsv_build_frames_free(build);
	g_free(build);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(TraceBuild, build_free)

static void
init_sink(struct fsa_model_sink *sink, TraceBuild *build)
{
	sink->data = build;
	sink->op = sink_op;
	sink->edge = sink_edge;
	sink->packet = sink_packet;
	sink->marker = sink_marker;
	sink->loss = sink_loss;
	sink->anomaly = sink_anomaly;
	sink->fence_value = sink_fence_value;
}

/* ---- Freezing: TraceBuild → the flat arrays of an FsvTrace ------------------------------ */

gpointer
_fsv_build_steal_array(GArray *array, gsize *n)
{
	gsize len = array->len;
	gpointer data = g_array_steal(array, NULL);

	*n = len;
	/* Never NULL, so that an empty array plus offset 0 is still a valid pointer. */
	return data ? data : g_malloc0(1);
}

/* Appends TEXT (NULL: "") to the string pool, returns its offset. */
static guint64
pool_add(GString *pool, const char *text)
{
	guint64 offset = pool->len;

	if (!text || !text[0])
		return 0; /* the pool starts with "" */
	g_string_append_len(pool, text, (gssize) strlen(text) + 1);
	return offset;
}

static int
compare_row_key(const void *a, const void *b)
{
	const FsvRowKey *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int
compare_xfence_row(const void *a, const void *b)
{
	const FsvXfenceRow *x = a, *y = b;

	if (x->fence_global_handle != y->fence_global_handle)
		return x->fence_global_handle < y->fence_global_handle ? -1 : 1;
	return x->adapter_id < y->adapter_id ? -1 : x->adapter_id > y->adapter_id;
}

/* A hash table of guint64 → row + 1 as a sorted FsvRowKey array. */
static FsvRowKey *
freeze_row_keys(GHashTable *table, gsize *n)
{
	FsvRowKey *keys = g_new0(FsvRowKey, MAX(g_hash_table_size(table), 1));
	GHashTableIter iter;
	gpointer key, value;
	gsize i = 0;

	g_hash_table_iter_init(&iter, table);
	while (g_hash_table_iter_next(&iter, &key, &value))
		keys[i++] = (FsvRowKey){*(const guint64 *) key, GPOINTER_TO_UINT(value) - 1, 0};
	if (i > 1)
		qsort(keys, i, sizeof(*keys), compare_row_key);
	*n = i;
	return keys;
}

static FsvXfenceRow *
freeze_xfence_rows(GHashTable *table, gsize *n)
{
	g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(FsvXfenceRow));
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, table);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		GArray *rows = value;

		for (guint i = 0; i + 1 < rows->len; i += 2) {
			FsvXfenceRow x = {*(const guint64 *) key, g_array_index(rows, guint32, i),
					  g_array_index(rows, guint32, i + 1)};

			g_array_append_val(out, x);
		}
	}
	if (out->len > 1)
		qsort(out->data, out->len, sizeof(FsvXfenceRow), compare_xfence_row);
	return _fsv_build_steal_array(out, n);
}

/* Concatenates the rows' lists (guint32 or FsvFenceStep) into one array. */
static void
freeze_rows(TraceBuild *build, FsvTrace *trace, GString *pool)
{
	guint n_rows = build->rows->len;
	g_autoptr(GArray) ops = g_array_new(FALSE, FALSE, sizeof(guint32));
	g_autoptr(GArray) packets = g_array_new(FALSE, FALSE, sizeof(guint32));
	g_autoptr(GArray) markers = g_array_new(FALSE, FALSE, sizeof(guint32));
	g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(FsvFenceStep));
	g_autoptr(GArray) lods = g_array_new(FALSE, FALSE, sizeof(guint32));

	trace->rows = g_new0(FsvStoredRow, MAX(n_rows, 1));
	trace->n_rows = n_rows;
	trace->row_data = g_new0(FsvRowData, MAX(n_rows, 1));
	trace->n_row_data = n_rows;
	for (guint r = 0; r < n_rows; r++) {
		const FsvRow *row = _fsv_build_row_at(build, r);
		const RowLists *d = &build->row_data[r];
		FsvRowData *out = &trace->row_data[r];
		FsvStoredRow *stored = &trace->rows[r];

		stored->row = *row;
		stored->row.label = stored->row.sublabel = NULL;
		stored->label = pool_add(pool, row->label);
		stored->sublabel = pool_add(pool, row->sublabel);
		out->ops_start = ops->len;
		out->n_ops = d->ops->len;
		g_array_append_vals(ops, d->ops->data, d->ops->len);
		out->packets_start = packets->len;
		out->n_packets = d->packets->len;
		g_array_append_vals(packets, d->packets->data, d->packets->len);
		out->markers_start = markers->len;
		out->n_markers = d->markers->len;
		g_array_append_vals(markers, d->markers->data, d->markers->len);
		out->steps_start = steps->len;
		out->n_steps = d->steps->len;
		g_array_append_vals(steps, d->steps->data, d->steps->len);
		out->lane_lods = d->lane_lods;
		out->n_lane_lods = d->n_lane_lods;
		for (guint h = 0; h < 2; h++) {
			out->stack_lods[h] = d->stack_lods[h];
			out->stack_first[h] = d->stack_first[h];
			out->stack_is_union[h] = d->stack_is_union[h];
		}
		out->va_lods = d->va_lods;
		out->n_va_lods = d->n_va_lods;
		for (guint l = 0; l < FSV_MARKER_LAYER_COUNT; l++)
			out->marker_lods[l] = d->marker_lods[l];
	}
	trace->row_ops = _fsv_build_steal_array(ops, &trace->n_row_ops);
	trace->row_packets = _fsv_build_steal_array(packets, &trace->n_row_packets);
	trace->row_markers = _fsv_build_steal_array(markers, &trace->n_row_markers);
	trace->steps = _fsv_build_steal_array(steps, &trace->n_steps);
}

/* Issue 15 §4: the counter tracks, built from the frozen trace's rows, packets, ops and steps
 * (fsv-counters.c), then held as its arrays. */
static void
freeze_counters(FsvTrace *trace)
{
	FsvCounters c;

	_fsv_counters_build(trace, &c);
	trace->counter_rows = (FsvCounterRow *) c.rows;
	trace->n_counter_rows = c.n_rows;
	trace->busy_begin = (guint64 *) c.busy_begin;
	trace->busy_end = (guint64 *) c.busy_end;
	trace->busy_before = (guint64 *) c.busy_before;
	trace->n_busy_begin = trace->n_busy_end = trace->n_busy_before = c.n_busy;
	trace->depth_base = (guint64 *) c.depth_base;
	trace->n_depth_base = c.n_depth_base;
	trace->depth_offset = (guint32 *) c.depth_offset;
	trace->depth_value16 = (guint16 *) c.depth_value16;
	trace->n_depth_offset = trace->n_depth_value16 = c.n_depth;
	trace->depth_ns = (guint64 *) c.depth_ns;
	trace->depth_value = (guint32 *) c.depth_value;
	trace->n_depth_ns = trace->n_depth_value = c.n_depth_wide;
	trace->counter_pyramid = (FsvCounterMinMax *) c.pyramid;
	trace->n_counter_pyramid = c.n_pyramid;
	trace->step_block_ns = (guint64 *) c.step_block_ns;
	trace->n_step_block_ns = c.n_step_block_ns;
	_fsv_trace_derive_counters(trace);
}

/* The flat FsvTrace of a finished BUILD (its arrays taken; BUILD is then freed by the
 * caller). Returns: (transfer full). */
static FsvTrace *
build_freeze(TraceBuild *build, PhaseClock *clock)
{
	FsvTrace *trace = _fsv_trace_new_empty(build->path);
	GString *pool = g_string_new_len("", 1);
	FsvTraceScalars *sc = g_new0(FsvTraceScalars, 1);

	PHASE(clock, freeze_rows(build, trace, pool));
	sc->summary = build->summary;
	sc->summary.runtime_version = NULL;
	sc->runtime_version = pool_add(pool, build->runtime_version);
	sc->partial_error =
	    build->partial_error ? pool_add(pool, build->partial_error) : FSV_STRING_NONE;
	/* "" would come back as offset 0: the pool's "" is as good. */
	sc->stats = build->stats;
	sc->begin_ns = build->begin_ns;
	sc->end_ns = build->end_ns;
	sc->marker_kinds = build->marker_kinds;
	sc->has_paging_packets = build->has_paging_packets;
	sc->has_resubmitted_pieces = build->has_resubmitted_pieces;
	trace->scalars = sc;
	trace->n_scalars = 1;

	trace->processes = g_new0(FsvStoredProcess, MAX(build->processes->len, 1));
	trace->n_processes = build->processes->len;
	for (guint i = 0; i < build->processes->len; i++) {
		const struct fsa_process_info *p =
		    &g_array_index(build->processes, struct fsa_process_info, i);

		trace->processes[i].info = *p;
		trace->processes[i].info.name = NULL;
		trace->processes[i].name = pool_add(pool, p->name);
	}
	trace->op_kinds = g_new0(guint8, MAX(build->ops->len, 1));
	trace->n_op_kinds = build->ops->len;
	for (guint i = 0; i < build->ops->len; i++)
		trace->op_kinds[i] = g_array_index(build->ops, FsvOp, i).kind;
	trace->packet_styles = g_new0(FsvPacketStyle, MAX(build->packets->len, 1));
	trace->n_packet_styles = build->packets->len;
	for (guint i = 0; i < build->packets->len; i++) {
		const FsvPacket *p = &g_array_index(build->packets, FsvPacket, i);

		trace->packet_styles[i].hwqueue_handle = p->hwqueue_handle;
		trace->packet_styles[i].status = p->status;
		trace->packet_styles[i].is_paging = p->is_paging;
	}
	trace->marker_styles = g_new0(FsvMarkerStyle, MAX(build->markers->len, 1));
	trace->n_marker_styles = build->markers->len;
	for (guint i = 0; i < build->markers->len; i++)
		trace->marker_styles[i] =
		    _fsv_marker_style_of(&g_array_index(build->markers, FsvMarker, i));
	trace->ops = _fsv_build_steal_array(build->ops, &trace->n_ops);
	trace->packets = _fsv_build_steal_array(build->packets, &trace->n_packets);
	trace->markers = _fsv_build_steal_array(build->markers, &trace->n_markers);
	trace->losses = _fsv_build_steal_array(build->losses, &trace->n_losses);
	trace->anomalies = _fsv_build_steal_array(build->anomalies, &trace->n_anomalies);
	trace->edge_start = g_steal_pointer(&build->edge_start);
	trace->n_edge_start = trace->n_ops + 1;
	trace->edge_ops = g_steal_pointer(&build->edge_ops);
	trace->n_edge_ops = build->n_edge_ops;
	phase_done(clock, "freeze styles, ops ... edges");
	PHASE(clock, _fsv_build_freeze_frames(build, trace));
	trace->lods = _fsv_build_steal_array(build->lods, &trace->n_lods);
	trace->lod_items = _fsv_build_steal_array(build->lod_items, &trace->n_lod_items);
	trace->lod_buckets = _fsv_build_steal_array(build->lod_buckets, &trace->n_lod_buckets);
	trace->queues = _fsv_build_steal_array(build->queues, &trace->n_queues);
	trace->contexts = _fsv_build_steal_array(build->contexts, &trace->n_contexts);
	trace->engines = _fsv_build_steal_array(build->engines, &trace->n_engines);
	trace->fences = _fsv_build_steal_array(build->fences, &trace->n_fences);
	trace->va_spaces = _fsv_build_steal_array(build->va_spaces, &trace->n_va_spaces);
	trace->xopens = _fsv_build_steal_array(build->xopens, &trace->n_xopens);
	trace->clock_fits = _fsv_build_steal_array(build->clock_fits, &trace->n_clock_fits);
	trace->queue_rows = freeze_row_keys(build->queue_rows, &trace->n_queue_rows);
	trace->fence_rows = freeze_row_keys(build->fence_rows, &trace->n_fence_rows);
	trace->va_rows = freeze_row_keys(build->va_rows, &trace->n_va_rows);
	trace->xfence_rows = freeze_xfence_rows(build->xfence_rows, &trace->n_xfence_rows);
	trace->n_strings = pool->len;
	trace->strings = g_string_free(pool, FALSE);
	phase_done(clock, "freeze lods ... strings");
	PHASE(clock, _fsv_trace_derive(trace));
	PHASE(clock, freeze_counters(trace));
	return trace;
}

static FsvTrace *
build_finish(TraceBuild *build)
{
	PhaseClock clock;
	FsvTrace *trace;

	phase_clock_start(&clock);
	/* The model has finished: the frames held for their flip_done are final (fsa/frames.h),
	 * and the layout knows which displays have frames rows. */
	PHASE(&clock, _fsv_build_frames_finish(build));
	build_index(build, &clock);
	PHASE(&clock, trace = build_freeze(build, &clock));
	return _fsv_trace_maybe_round_trip(trace);
}

FsvTrace *
_fsv_trace_new_from_events(const char *name, const struct fsa_event *events, gsize n)
{
	g_autoptr(TraceBuild) build = build_new(name);
	struct fsa_model_sink sink = {0};
	struct fsa_model *model;
	fsa_status status = FSA_OK;

	init_sink(&sink, build);
	model = fsa_model_create(&sink);
	g_assert(model);
	for (gsize i = 0; i < n && status == FSA_OK; i++)
		status = fsa_model_add_event(model, &events[i]);
	if (status == FSA_OK)
		status = fsa_model_finish(model);
	if (status != FSA_OK)
		build->partial_error = g_strdup(fsa_status_string(status));
	copy_model(build, model);
	fsa_model_destroy(model);
	return build_finish(build);
}

FsvTrace *
fsv_trace_load(const char *path, FsvTraceProgressFunc progress, gpointer user_data,
	       GCancellable *cancellable, GError **error)
{
	return _fsv_trace_load_teed(path, NULL, progress, user_data, cancellable, error);
}

FsvTrace *
_fsv_trace_load_teed(const char *path, const struct fsa_model_sink *tee,
		     FsvTraceProgressFunc progress, gpointer user_data, GCancellable *cancellable,
		     GError **error)
{
	g_autoptr(TraceBuild) build = NULL;
	struct fsa_model *model;
	struct fsa_model_sink sink = {0};
	struct fsa_model_sink teed;
	FsvSinkTee tee_storage;
	LoadProgress lp = {progress, user_data, cancellable};
	char *message = NULL;
	fsa_status status;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	/* Cancelled before it starts (as GIO's calls do), or while reading (progress). */
	if (g_cancellable_set_error_if_cancelled(cancellable, error))
		return NULL;
	build = build_new(path);
	init_sink(&sink, build);
	/* The index builder's preview counts every item too (fsv-load-preview.h). */
	if (tee)
		_fsv_sink_tee_init(&teed, &tee_storage, &sink, tee);
	model = fsa_model_create(tee ? &teed : &sink);
	if (!model) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_NOMEM, "%s: out of memory",
			    path);
		return NULL;
	}
	status = fsa_ingest_into_model(path, model, on_progress, &lp, &build->stats, &message);
	if (status == FSA_OK || status == FSA_ERR_TRACE)
		copy_model(build, model);
	fsa_model_destroy(model);
	if (status == FSA_ERR_CANCELLED ||
	    (status != FSA_OK && cancellable && g_cancellable_is_cancelled(cancellable))) {
		free(message);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: loading cancelled", path);
		return NULL;
	}
	if (status == FSA_ERR_TRACE) {
		build->partial_error = g_strdup(message ? message : "the trace is damaged");
	} else if (status != FSA_OK) {
		int code = status == FSA_ERR_IO               ? FSV_TRACE_ERROR_IO
			   : status == FSA_ERR_FORMAT_VERSION ? FSV_TRACE_ERROR_FORMAT
			   : status == FSA_ERR_NOMEM          ? FSV_TRACE_ERROR_NOMEM
							      : FSV_TRACE_ERROR_TRACE;

		if (message)
			g_set_error_literal(error, FSV_TRACE_ERROR, code, message);
		else
			g_set_error(error, FSV_TRACE_ERROR, code, "%s: %s", path,
				    fsa_status_string(status));
		free(message);
		return NULL;
	}
	free(message);
	if (g_cancellable_set_error_if_cancelled(cancellable, error))
		return NULL;
	return build_finish(build);
}

/* ---- Live: one model fed as events arrive, its items kept (issue 16 §4) ---------------- */

struct _FsvTraceAppend {
	char *name;
	TraceBuild *items; /* what the model gave out so far: ops, edges, packets, markers, … */
	struct fsa_model *model;
	fsa_status status; /* the model's first failure (the trace is then partial) */
	gboolean model_finished;
};

FsvTraceAppend *
_fsv_trace_append_new(const char *name)
{
	FsvTraceAppend *append = g_new0(FsvTraceAppend, 1);
	struct fsa_model_sink sink = {0};

	append->name = g_strdup(name);
	append->items = build_new(name);
	init_sink(&sink, append->items);
	append->model = fsa_model_create(&sink);
	if (!append->model) {
		_fsv_trace_append_free(append);
		return NULL;
	}
	return append;
}

void
_fsv_trace_append_free(FsvTraceAppend *append)
{
	if (!append)
		return;
	if (append->model)
		fsa_model_destroy(append->model);
	build_free(append->items);
	g_free(append->name);
	g_free(append);
}

void
_fsv_trace_append_event(FsvTraceAppend *append, const struct fsa_event *event,
			const struct fsa_discard *discard)
{
	fsa_status status;

	if (append->status)
		return; /* the model refused (a newer format): what it read stays */
	status = event ? fsa_model_add_event(append->model, event)
		       : fsa_model_add_discard(append->model, discard);
	if (status)
		append->status = status;
}

/* Appends the LEN elements of FROM to a new TraceBuild's array TO. */
static void
append_copy(GArray *to, const GArray *from)
{
	if (from->len > 0)
		g_array_append_vals(to, from->data, from->len);
}

FsvTrace *
_fsv_trace_append_build(FsvTraceAppend *append, gboolean is_final,
			const struct fsa_ingest_stats *stats, const char *partial_error)
{
	TraceBuild *items = append->items;
	g_autoptr(TraceBuild) build = NULL;
	struct fsa_model_sink sink = {0};
	fsa_status status = append->status;
	gint64 start = g_get_monotonic_time(), indexed;
	guint given_ops = 0, given_packets = 0;
	FsvTrace *trace;

	if (is_final) {
		/* The end: the model gives out what it still holds into the items, which are then
		 * exactly what one model fed the whole session gives. The items are taken. */
		if (!status && !append->model_finished)
			status = fsa_model_finish(append->model);
		append->model_finished = TRUE;
		build = g_steal_pointer(&append->items);
		append->items = build_new(append->name);
	} else {
		/* The items so far, copied, and what the model holds open, peeked. */
		build = build_new(append->name);
		append_copy(build->ops, items->ops);
		append_copy(build->edge_ids, items->edge_ids);
		append_copy(build->packets, items->packets);
		append_copy(build->markers, items->markers);
		append_copy(build->losses, items->losses);
		append_copy(build->anomalies, items->anomalies);
		append_copy(build->fence_values, items->fence_values);
		/* The frames of the markers given so far, and of the ones peeked below. */
		_fsv_build_frames_replay(build, items);
		given_ops = build->ops->len;
		given_packets = build->packets->len;
		init_sink(&sink, build);
		if (!status)
			status = fsa_model_peek(append->model, &sink);
	}
	if (status)
		build->partial_error = g_strdup(fsa_status_string(status));
	else if (partial_error)
		build->partial_error = g_strdup(partial_error);
	if (stats)
		build->stats = *stats;
	copy_model(build, append->model);
	/* The summary counts what the model gave out; the peeked items are shown too (open ops as
	 * never completed, packets running): counted, so that the totals are what is drawn. */
	if (!is_final) {
		for (guint i = given_ops; i < build->ops->len; i++) {
			const FsvOp *o = &g_array_index(build->ops, FsvOp, i);

			if (o->source < G_N_ELEMENTS(build->summary.op_counts) &&
			    o->kind < G_N_ELEMENTS(build->summary.op_counts[0]))
				build->summary.op_counts[o->source][o->kind]++;
			build->summary.never_completed_ops++;
		}
		build->summary.packet_count += build->packets->len - given_packets;
	}
	indexed = g_get_monotonic_time();
	trace = build_finish(build);
	/* G_MESSAGES_DEBUG=all: where a live build's time goes (docs/viewer.md "Live"). */
	g_debug("%s: %u ops, %u packets, %u markers: items and peek %.3f s, index %.3f s",
		append->name, fsv_trace_get_op_count(trace), fsv_trace_get_packet_count(trace),
		fsv_trace_get_marker_count(trace), (double) (indexed - start) / 1e6,
		(double) (g_get_monotonic_time() - indexed) / 1e6);
	return trace;
}
