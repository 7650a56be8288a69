/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvTrace (fsv-trace.h). fsv_trace_load() runs analyzer/ingest into an analyzer
 * model whose sink appends every finished item to compact arrays; when the model is finished it
 * copies the queues, fences, processes, clock fits and summary (the model is then destroyed),
 * lays out the rows, gives each item its row and lane, resolves op ids to indexes, and builds
 * the per-row sorted lists and level-of-detail indexes. After that the trace never changes.
 *
 * Descriptions for the details panel (fsv_trace_describe_item) live here too: they only read
 * the stored items.
 */
#include "fsv-trace.h"
#include "fsv-trace-private.h"
#include "fsv-lanes-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fencescope-tp-enums.h"

G_DEFINE_QUARK(fsv - trace - error - quark, fsv_trace_error)

typedef struct {
	GArray *ops;                       /* guint32 op indexes, sorted by begin_ns */
	GArray *packets;                   /* guint32 */
	GArray *markers;                   /* guint32 */
	GArray *steps;                     /* FsvFenceStep */
	FsvRowLanes *lanes;                /* ops or packets in lanes (fsv-lanes.c) */
	FsvLod *va_lods[FSV_VA_MAX_LANES]; /* VA space rows: mappings per lane */
	FsvLod *marker_lods[FSV_MARKER_LAYER_COUNT];
} RowData;

struct _FsvTrace {
	gint ref_count;
	char *path, *name, *partial_error;
	struct fsa_summary summary;
	char *runtime_version;
	struct fsa_ingest_stats stats;
	guint64 begin_ns, end_ns;

	GArray *rows;      /* FsvRow */
	RowData *row_data; /* one per row */
	GArray *ops;       /* FsvOp, in the analyzer's close order (op id order) */
	GArray *packets;   /* FsvPacket */
	GArray *markers;   /* FsvMarker */
	GArray *losses;    /* FsvLoss */
	GArray *anomalies; /* struct fsa_anomaly */
	/* struct fsa_fence_value: CurrentValue steps without an operation (progress fences) */
	GArray *fence_values;
	GArray *edge_ids; /* pairs of guint64 op ids (signal, wait), while loading */
	guint32 *edge_start, *edge_ops;

	GArray *processes; /* struct fsa_process_info, names owned */
	GArray *queues;    /* struct fsa_queue_info */
	GArray *contexts;  /* struct fsa_context_info */
	GArray *engines;   /* struct fsa_engine_info */
	GArray *fences;    /* struct fsa_fence_info */
	GArray *va_spaces; /* struct fsa_va_space_info (format 1.5) */
	GArray *xopens;    /* struct fsa_cross_open, every fence's (format 1.5) */
	GArray *clock_fits;
	guint64 marker_kinds; /* bit k: the trace has a marker of kind k */
	bool has_paging_packets, has_resubmitted_pieces;
	GHashTable *queue_rows; /* hwqueue handle → row + 1 */
	GHashTable *fence_rows; /* global fence handle → row + 1 */
	GHashTable *va_rows;    /* process id << 32 | adapter id → row + 1 */
	/* Cross-adapter fences (XAD-03): global fence handle → GArray of guint32 pairs (adapter,
	 * row) of its rows under each adapter. */
	GHashTable *xfence_rows;
};

/* ---- Loading: the model's sink ---------------------------------------------------------- */

static fsa_status
sink_op(void *data, const struct fsa_op *op)
{
	FsvTrace *trace = data;
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
		o.end_ns = FSV_TIME_NONE; /* the end of the trace, known at the end */
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
	g_array_append_val(trace->ops, o);
	if (op->kind == FSA_OP_WAIT && op->signal_op_id != 0) {
		guint64 pair[2] = {op->signal_op_id, op->id};

		g_array_append_vals(trace->edge_ids, pair, 2);
	}
	return FSA_OK;
}

/* Edges come twice (the wait's signal_op_id and the edge itself); the edge callback is the
 * authority for waits the model closed before their signal was known. Duplicates are removed
 * when the edges are indexed. */
static fsa_status
sink_edge(void *data, const struct fsa_edge *edge)
{
	FsvTrace *trace = data;
	guint64 pair[2] = {edge->signal_op_id, edge->wait_op_id};

	g_array_append_vals(trace->edge_ids, pair, 2);
	return FSA_OK;
}

static fsa_status
sink_packet(void *data, const struct fsa_packet *packet)
{
	FsvTrace *trace = data;
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
	g_array_append_val(trace->packets, p);
	return FSA_OK;
}

static fsa_status
sink_marker(void *data, const struct fsa_marker *marker)
{
	FsvTrace *trace = data;
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
	g_array_append_val(trace->markers, m);
	return FSA_OK;
}

static fsa_status
sink_loss(void *data, const struct fsa_loss *loss)
{
	FsvTrace *trace = data;
	FsvLoss l = {.loss = *loss, .row = FSV_INDEX_NONE};

	g_array_append_val(trace->losses, l);
	return FSA_OK;
}

static fsa_status
sink_fence_value(void *data, const struct fsa_fence_value *step)
{
	FsvTrace *trace = data;

	g_array_append_val(trace->fence_values, *step);
	return FSA_OK;
}

static fsa_status
sink_anomaly(void *data, const struct fsa_anomaly *anomaly)
{
	FsvTrace *trace = data;

	g_array_append_val(trace->anomalies, *anomaly);
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

/* ---- Loading: rows --------------------------------------------------------------------- */

static const char *
engine_type_name(guint8 type)
{
	switch (type) {
	case FSTP_ENGINE_TYPE_GRAPHICS_3D:
		return "3D";
	case FSTP_ENGINE_TYPE_COMPUTE:
		return "Compute";
	case FSTP_ENGINE_TYPE_COPY:
		return "Copy";
	case FSTP_ENGINE_TYPE_VIDEO:
		return "Video";
	default:
		return NULL;
	}
}

static const struct fsa_process_info *
find_process(const FsvTrace *trace, guint32 pid)
{
	for (guint i = 0; i < trace->processes->len; i++) {
		const struct fsa_process_info *p =
		    &g_array_index(trace->processes, struct fsa_process_info, i);

		if (p->process_id == pid)
			return p;
	}
	return NULL;
}

/* Row lookups by handle: the keys are copies (rows move when t->rows grows). */
static void
insert_row_key(GHashTable *table, guint64 handle, guint32 row)
{
	g_hash_table_insert(table, g_memdup2(&handle, sizeof(handle)), GUINT_TO_POINTER(row + 1));
}

static guint32
add_row(FsvTrace *trace, FsvRowKind kind, guint32 parent, char *label, char *sublabel)
{
	FsvRow row = {0};

	row.kind = kind;
	row.parent = parent;
	row.depth =
	    parent == FSV_INDEX_NONE ? 0 : g_array_index(trace->rows, FsvRow, parent).depth + 1;
	row.label = label;
	row.sublabel = sublabel ? sublabel : g_strdup("");
	row.adapter_id = row.engine_id = row.process_id = row.source_id = UINT32_MAX;
	row.lane_count = 1;
	row.first_lower_lane = 1;
	g_array_append_val(trace->rows, row);
	return trace->rows->len - 1;
}

static FsvRow *
row_at(FsvTrace *trace, guint32 row)
{
	return &g_array_index(trace->rows, FsvRow, row);
}

/* Adapters and engines named anywhere (queues, packets, markers), sorted. */
static int
compare_u64(const void *a, const void *b)
{
	guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

	return x < y ? -1 : x > y;
}

static int
compare_op_id(const void *a, const void *b)
{
	const FsvOp *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static guint32
find_engine_row(const FsvTrace *trace, guint32 adapter_id, guint32 engine_id)
{
	for (guint32 r = 0; r < trace->rows->len; r++) {
		const FsvRow *row = &g_array_index(trace->rows, FsvRow, r);

		if (row->kind == FSV_ROW_ENGINE && row->adapter_id == adapter_id &&
		    row->engine_id == engine_id)
			return r;
	}
	return FSV_INDEX_NONE;
}

static guint32
find_adapter_row(const FsvTrace *trace, guint32 adapter_id)
{
	for (guint32 r = 0; r < trace->rows->len; r++) {
		const FsvRow *row = &g_array_index(trace->rows, FsvRow, r);

		if (row->kind == FSV_ROW_ADAPTER && row->adapter_id == adapter_id)
			return r;
	}
	return FSV_INDEX_NONE;
}

/* Whether the trace has a marker of KIND on that adapter (and engine, unless UINT32_MAX). */
static bool
has_marker_of(const FsvTrace *trace, guint8 kind, guint32 adapter_id, guint32 engine_id)
{
	if (!_fsv_trace_has_marker_kind(trace, kind))
		return false;
	for (guint i = 0; i < trace->markers->len; i++) {
		const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);

		if (m->kind == kind && m->adapter_id == adapter_id &&
		    (engine_id == UINT32_MAX || m->engine_id == engine_id))
			return true;
	}
	return false;
}

static guint32
find_power_row(const FsvTrace *trace, FsvRowKind kind, guint32 adapter_id, guint32 engine_id)
{
	for (guint32 r = 0; r < trace->rows->len; r++) {
		const FsvRow *row = &g_array_index(trace->rows, FsvRow, r);

		if (row->kind == kind && row->adapter_id == adapter_id &&
		    (kind == FSV_ROW_DEVICE_POWER || row->engine_id == engine_id))
			return r;
	}
	return FSV_INDEX_NONE;
}

/* PRE-13: a display row per display (VidPN source) of the adapter that has vsyncs or flips,
 * in source order. */
static void
add_display_rows(FsvTrace *trace, guint32 adapter_row, guint32 adapter_id)
{
	guint64 seen = 0; /* sources 0..63 */
	g_autoptr(GArray) more = g_array_new(FALSE, FALSE, sizeof(guint64));

	for (guint i = 0; i < trace->markers->len; i++) {
		const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);
		guint32 source = _fsv_marker_display_source(m);

		if (source == UINT32_MAX || m->adapter_id != adapter_id)
			continue;
		if (source < 64) {
			seen |= G_GUINT64_CONSTANT(1) << source;
		} else {
			guint64 s = source;

			g_array_append_val(more, s);
		}
	}
	g_array_sort(more, (GCompareFunc) compare_u64);
	for (guint32 s = 0; s < 64 + more->len; s++) {
		guint32 source = s < 64 ? s : (guint32) g_array_index(more, guint64, s - 64);
		guint32 r;

		if ((s < 64 && !(seen >> s & 1)) ||
		    (s > 64 && source == (guint32) g_array_index(more, guint64, s - 65)))
			continue;
		r = add_row(trace, FSV_ROW_DISPLAY, adapter_row,
			    g_strdup_printf("Display %" PRIu32, source), g_strdup("vsync · flips"));
		row_at(trace, r)->adapter_id = adapter_id;
		row_at(trace, r)->source_id = source;
	}
}

static guint32
find_display_row(const FsvTrace *trace, guint32 adapter_id, guint32 source_id)
{
	for (guint32 r = 0; r < trace->rows->len; r++) {
		const FsvRow *row = &g_array_index(trace->rows, FsvRow, r);

		if (row->kind == FSV_ROW_DISPLAY && row->adapter_id == adapter_id &&
		    row->source_id == source_id)
			return r;
	}
	return FSV_INDEX_NONE;
}

/* Adds ADAPTER to the sorted set ADAPTERS (a fence lives on a few adapters). */
static void
adapter_set_add(GArray *adapters, guint32 adapter)
{
	guint i = 0;

	if (adapter == UINT32_MAX)
		return;
	while (i < adapters->len && g_array_index(adapters, guint32, i) < adapter)
		i++;
	if (i < adapters->len && g_array_index(adapters, guint32, i) == adapter)
		return;
	g_array_insert_val(adapters, i, adapter);
}

/* XAD-03: the adapters a fence lives on (created cross-adapter, opened on another adapter, or
 * propagated), in order. */
static void
fence_adapters(const FsvTrace *trace, const struct fsa_fence_info *f, GArray *adapters)
{
	g_array_set_size(adapters, 0);
	adapter_set_add(adapters, f->adapter_id);
	for (guint i = 0; i < trace->xopens->len; i++) {
		const struct fsa_cross_open *o =
		    &g_array_index(trace->xopens, struct fsa_cross_open, i);

		if (o->fence_handle == f->fence_global_handle) {
			adapter_set_add(adapters, o->adapter_id);
			adapter_set_add(adapters, o->creator_adapter_id);
		}
	}
	/* Propagations of a fence the trace never opened elsewhere (one without its
	 * fence_cross_adapter_open): their adapters. */
	if (adapters->len < 2 && f->propagation_count > 0)
		for (guint i = 0; i < trace->markers->len; i++) {
			const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);

			if (m->kind != FSA_MARK_FENCE_PROPAGATION ||
			    m->other_handle != f->fence_global_handle)
				continue;
			adapter_set_add(adapters, m->adapter_id);
			adapter_set_add(adapters, (guint32) m->code);
		}
}

static bool
fence_is_cross_adapter(const FsvTrace *trace, const struct fsa_fence_info *f, GArray *adapters)
{
	if (f->fence_global_handle == 0 ||
	    (!f->is_cross_adapter && f->cross_open_count == 0 && f->propagation_count == 0))
		return false;
	fence_adapters(trace, f, adapters);
	return f->is_cross_adapter || adapters->len > 1;
}

guint8
fsv_trace_get_fence_object(const FsvTrace *trace, guint64 fence, guint32 adapter_id)
{
	const struct fsa_fence_info *f = fsv_trace_find_fence(trace, fence);

	for (guint i = 0; i < trace->xopens->len; i++) {
		const struct fsa_cross_open *o =
		    &g_array_index(trace->xopens, struct fsa_cross_open, i);

		if (o->fence_handle != fence)
			continue;
		if (o->adapter_id == adapter_id)
			return o->opened_as;
		if (o->creator_adapter_id == adapter_id)
			return o->created_as;
	}
	return f && f->adapter_id == adapter_id ? f->fence_object : FSTP_FENCE_OBJECT_NATIVE;
}

/* XAD-03: a row under ADAPTER_ROW for each cross-adapter fence living on that adapter. */
static void
add_xfence_rows(FsvTrace *trace, guint32 adapter_row, guint32 adapter_id)
{
	g_autoptr(GArray) adapters = g_array_new(FALSE, FALSE, sizeof(guint32));

	for (guint i = 0; i < trace->fences->len; i++) {
		const struct fsa_fence_info *f =
		    &g_array_index(trace->fences, struct fsa_fence_info, i);
		bool here = false;
		guint32 r, pair[2];
		GArray *rows;

		if (!fence_is_cross_adapter(trace, f, adapters))
			continue;
		for (guint k = 0; k < adapters->len && !here; k++)
			here = g_array_index(adapters, guint32, k) == adapter_id;
		if (!here || fsv_trace_find_xfence_row(trace, f->fence_global_handle, adapter_id) !=
				 FSV_INDEX_NONE)
			continue;
		r = add_row(trace, FSV_ROW_XFENCE, adapter_row,
			    g_strdup_printf("Fence 0x%" PRIx64, f->fence_global_handle),
			    g_strdup_printf("cross-adapter · %s here%s",
					    fsv_trace_get_fence_object(
						trace, f->fence_global_handle, adapter_id) ==
						    FSTP_FENCE_OBJECT_MONITORED
						? "monitored"
						: "native",
					    f->adapter_id == adapter_id ? " · creator" : ""));
		row_at(trace, r)->adapter_id = adapter_id;
		row_at(trace, r)->process_id = f->creator_process_id;
		row_at(trace, r)->fence_global_handle = f->fence_global_handle;
		rows = g_hash_table_lookup(trace->xfence_rows, &f->fence_global_handle);
		if (!rows) {
			rows = g_array_new(FALSE, FALSE, sizeof(guint32));
			g_hash_table_insert(trace->xfence_rows,
					    g_memdup2(&f->fence_global_handle, sizeof(guint64)),
					    rows);
		}
		pair[0] = adapter_id;
		pair[1] = r;
		g_array_append_vals(rows, pair, 2);
	}
}

guint32
fsv_trace_find_xfence_row(const FsvTrace *trace, guint64 fence, guint32 adapter_id)
{
	GArray *rows = g_hash_table_lookup(trace->xfence_rows, &fence);

	for (guint i = 0; rows && i + 1 < rows->len; i += 2)
		if (g_array_index(rows, guint32, i) == adapter_id)
			return g_array_index(rows, guint32, i + 1);
	return FSV_INDEX_NONE;
}

guint32
fsv_trace_find_va_row(const FsvTrace *trace, guint32 process_id, guint32 adapter_id)
{
	guint64 key = (guint64) process_id << 32 | adapter_id;
	gpointer v = g_hash_table_lookup(trace->va_rows, &key);

	return v ? GPOINTER_TO_UINT(v) - 1 : FSV_INDEX_NONE;
}

const struct fsa_va_space_info *
fsv_trace_find_va_space(const FsvTrace *trace, guint32 process_id, guint32 adapter_id)
{
	for (guint i = 0; i < trace->va_spaces->len; i++) {
		const struct fsa_va_space_info *v =
		    &g_array_index(trace->va_spaces, struct fsa_va_space_info, i);

		if (v->process_id == process_id && v->adapter_id == adapter_id)
			return v;
	}
	return NULL;
}

static char *
process_label(const FsvTrace *trace, guint32 pid)
{
	const struct fsa_process_info *p = find_process(trace, pid);

	if (p && p->name && p->name[0])
		return g_strdup_printf("pid %" PRIu32 " %s", pid, p->name);
	return g_strdup_printf("pid %" PRIu32, pid);
}

static void
layout_rows(FsvTrace *trace)
{
	g_autoptr(GArray) engines = g_array_new(FALSE, FALSE, sizeof(guint64));
	guint32 cpu_group = FSV_INDEX_NONE, fence_group = FSV_INDEX_NONE, va_group = FSV_INDEX_NONE;
	g_autoptr(GArray) cpu_pids = g_array_new(FALSE, FALSE, sizeof(guint64));

	/* (adapter, engine) pairs, engine UINT32_MAX when a queue's engine is unknown. */
	for (guint i = 0; i < trace->queues->len; i++) {
		const struct fsa_queue_info *q =
		    &g_array_index(trace->queues, struct fsa_queue_info, i);
		guint64 key = (guint64) q->adapter_id << 32 | q->engine_id;

		g_array_append_val(engines, key);
	}
	for (guint i = 0; i < trace->packets->len; i++) {
		const FsvPacket *p = &g_array_index(trace->packets, FsvPacket, i);
		guint64 key = (guint64) p->adapter_id << 32 | p->engine_id;

		if (engines->len == 0 || g_array_index(engines, guint64, engines->len - 1) != key)
			g_array_append_val(engines, key);
	}
	for (guint i = 0; i < trace->markers->len; i++) {
		const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);

		if (m->adapter_id != UINT32_MAX) {
			guint64 key = (guint64) m->adapter_id << 32 | m->engine_id;

			if (m->engine_id == UINT32_MAX ||
			    _fsv_marker_display_source(m) != UINT32_MAX)
				key = (guint64) m->adapter_id << 32 | UINT32_MAX;
			g_array_append_val(engines, key);
		}
	}
	g_array_sort(engines, (GCompareFunc) compare_u64);

	for (guint i = 0; i < engines->len; i++) {
		guint64 key = g_array_index(engines, guint64, i);
		guint32 adapter_id = (guint32) (key >> 32), engine_id = (guint32) key;
		guint32 adapter_row, engine_row;
		const char *type = NULL;

		if (i > 0 && g_array_index(engines, guint64, i - 1) == key)
			continue;
		adapter_row = find_adapter_row(trace, adapter_id);
		/* XAD-03: the previous adapter's cross-adapter fences close its rows. */
		if (adapter_row == FSV_INDEX_NONE && trace->rows->len > 0) {
			guint32 prev = find_adapter_row(
			    trace, (guint32) (g_array_index(engines, guint64, i - 1) >> 32));

			if (prev != FSV_INDEX_NONE)
				add_xfence_rows(trace, prev, row_at(trace, prev)->adapter_id);
		}
		if (adapter_row == FSV_INDEX_NONE) {
			adapter_row =
			    add_row(trace, FSV_ROW_ADAPTER, FSV_INDEX_NONE,
				    g_strdup_printf("Adapter %" PRIu32, adapter_id), NULL);
			row_at(trace, adapter_row)->adapter_id = adapter_id;
			/* DST-01: the adapter's D-state, when the trace has D3 ranges for it. */
			if (has_marker_of(trace, FSA_MARK_DEVICE_D3, adapter_id, UINT32_MAX)) {
				guint32 p = add_row(trace, FSV_ROW_DEVICE_POWER, adapter_row,
						    g_strdup("D-state"), g_strdup("D0 · D3"));

				row_at(trace, p)->adapter_id = adapter_id;
			}
			add_display_rows(trace, adapter_row, adapter_id);
		}
		if (engine_id == UINT32_MAX)
			continue; /* adapter-wide markers only */
		for (guint q = 0; q < trace->queues->len && !type; q++) {
			const struct fsa_queue_info *qi =
			    &g_array_index(trace->queues, struct fsa_queue_info, q);

			if (qi->adapter_id == adapter_id && qi->engine_id == engine_id)
				type = engine_type_name(qi->engine_type);
		}
		engine_row =
		    add_row(trace, FSV_ROW_ENGINE, adapter_row,
			    type ? g_strdup_printf("Engine %" PRIu32 " · %s", engine_id, type)
				 : g_strdup_printf("Engine %" PRIu32, engine_id),
			    NULL);
		row_at(trace, engine_row)->adapter_id = adapter_id;
		row_at(trace, engine_row)->engine_id = engine_id;
		/* FST-03: the engine's F-state, when the trace has F1 ranges for it. */
		if (has_marker_of(trace, FSA_MARK_ENGINE_F1, adapter_id, engine_id)) {
			guint32 p = add_row(trace, FSV_ROW_ENGINE_POWER, engine_row,
					    g_strdup("F-state"), g_strdup("F0 · F1"));

			row_at(trace, p)->adapter_id = adapter_id;
			row_at(trace, p)->engine_id = engine_id;
		}
		for (guint q = 0; q < trace->queues->len; q++) {
			const struct fsa_queue_info *qi =
			    &g_array_index(trace->queues, struct fsa_queue_info, q);
			g_autofree char *proc = NULL;
			guint32 r;

			if (qi->adapter_id != adapter_id || qi->engine_id != engine_id)
				continue;
			proc = process_label(trace, qi->process_id);
			r = add_row(trace, FSV_ROW_QUEUE, engine_row,
				    g_strdup_printf("HWQueue 0x%" PRIx64, qi->hwqueue_handle),
				    /* The mode first: a narrow label column cuts the end, and the
				     * context handle is the least telling part. */
				    g_strdup_printf("%s · %s · ctx 0x%" PRIx64,
						    qi->is_user_mode ? "user mode" : "kernel mode",
						    proc, qi->context_handle));
			row_at(trace, r)->adapter_id = adapter_id;
			row_at(trace, r)->engine_id = engine_id;
			row_at(trace, r)->process_id = qi->process_id;
			row_at(trace, r)->hwqueue_handle = qi->hwqueue_handle;
			row_at(trace, r)->context_handle = qi->context_handle;
			insert_row_key(trace->queue_rows, qi->hwqueue_handle, r);
		}
	}
	if (engines->len > 0) {
		guint32 last = find_adapter_row(
		    trace, (guint32) (g_array_index(engines, guint64, engines->len - 1) >> 32));

		if (last != FSV_INDEX_NONE)
			add_xfence_rows(trace, last, row_at(trace, last)->adapter_id);
	}
	/* Queues the trace never created but ops name (an anomaly): a row each at the end, so
	 * their boxes are not lost. */
	for (guint i = 0; i < trace->ops->len; i++) {
		const FsvOp *o = &g_array_index(trace->ops, FsvOp, i);

		if (o->source == FSA_SRC_CPU) {
			guint64 pid = o->process_id;

			g_array_append_val(cpu_pids, pid);
		} else if (!g_hash_table_contains(trace->queue_rows, &o->hwqueue_handle)) {
			guint32 r = add_row(
			    trace, FSV_ROW_QUEUE, FSV_INDEX_NONE,
			    g_strdup_printf("HWQueue 0x%" PRIx64 " (unknown)", o->hwqueue_handle),
			    process_label(trace, o->process_id));

			row_at(trace, r)->hwqueue_handle = o->hwqueue_handle;
			row_at(trace, r)->process_id = o->process_id;
			insert_row_key(trace->queue_rows, o->hwqueue_handle, r);
		}
	}
	g_array_sort(cpu_pids, (GCompareFunc) compare_u64);
	for (guint i = 0; i < cpu_pids->len; i++) {
		guint32 pid = (guint32) g_array_index(cpu_pids, guint64, i);
		guint32 r;

		if (i > 0 && g_array_index(cpu_pids, guint64, i - 1) == pid)
			continue;
		if (cpu_group == FSV_INDEX_NONE)
			cpu_group =
			    add_row(trace, FSV_ROW_CPU_GROUP, FSV_INDEX_NONE, g_strdup("CPU"),
				    g_strdup("waits and signals outside queues"));
		r = add_row(trace, FSV_ROW_CPU_PROCESS, cpu_group, process_label(trace, pid), NULL);
		row_at(trace, r)->process_id = pid;
	}
	/* MMU-01: a row per GPU VA space (process, adapter), in the order the trace made them. */
	for (guint i = 0; i < trace->va_spaces->len; i++) {
		const struct fsa_va_space_info *v =
		    &g_array_index(trace->va_spaces, struct fsa_va_space_info, i);
		guint64 key = (guint64) v->process_id << 32 | v->adapter_id;
		guint32 r;

		if (g_hash_table_contains(trace->va_rows, &key))
			continue;
		if (va_group == FSV_INDEX_NONE)
			va_group =
			    add_row(trace, FSV_ROW_VA_GROUP, FSV_INDEX_NONE, g_strdup("GPU VA"),
				    g_strdup("mappings per process and adapter"));
		r = add_row(trace, FSV_ROW_VA_SPACE, va_group, process_label(trace, v->process_id),
			    g_strdup_printf("VA space · adapter %" PRIu32, v->adapter_id));
		row_at(trace, r)->process_id = v->process_id;
		row_at(trace, r)->adapter_id = v->adapter_id;
		g_hash_table_insert(trace->va_rows, g_memdup2(&key, sizeof(key)),
				    GUINT_TO_POINTER(r + 1));
	}
	for (guint i = 0; i < trace->fences->len; i++) {
		const struct fsa_fence_info *f =
		    &g_array_index(trace->fences, struct fsa_fence_info, i);
		guint32 r;

		if (f->fence_global_handle == 0 ||
		    g_hash_table_contains(trace->fence_rows, &f->fence_global_handle))
			continue;
		if (fence_group == FSV_INDEX_NONE)
			fence_group = add_row(trace, FSV_ROW_FENCE_GROUP, FSV_INDEX_NONE,
					      g_strdup("Fences"), g_strdup("CurrentValue"));
		r = add_row(trace, FSV_ROW_FENCE, fence_group,
			    g_strdup_printf("Fence 0x%" PRIx64, f->fence_global_handle),
			    g_strdup_printf("%s%s%s", f->is_progress_fence ? "progress fence" : "",
					    f->is_progress_fence && f->is_shared ? " · " : "",
					    f->is_shared ? "shared" : ""));
		row_at(trace, r)->adapter_id = f->adapter_id;
		row_at(trace, r)->process_id = f->creator_process_id;
		row_at(trace, r)->fence_global_handle = f->fence_global_handle;
		insert_row_key(trace->fence_rows, f->fence_global_handle, r);
	}
	/* An empty trace still draws one row, so the empty timeline has a place to say so. */
	if (trace->rows->len == 0 && (trace->markers->len > 0 || trace->losses->len > 0))
		add_row(trace, FSV_ROW_ADAPTER, FSV_INDEX_NONE, g_strdup("Trace"), NULL);
}

static guint32
find_cpu_row(const FsvTrace *trace, guint32 pid)
{
	for (guint32 r = 0; r < trace->rows->len; r++) {
		const FsvRow *row = &g_array_index(trace->rows, FsvRow, r);

		if (row->kind == FSV_ROW_CPU_PROCESS && row->process_id == pid)
			return r;
	}
	return FSV_INDEX_NONE;
}

/* The row a marker is drawn on: its queue, else its engine, else its adapter, else the
 * first row. */
static guint32
marker_row(const FsvTrace *trace, const FsvMarker *m)
{
	guint32 r = FSV_INDEX_NONE;

	if (m->kind == FSA_MARK_ENGINE_F1)
		r = find_power_row(trace, FSV_ROW_ENGINE_POWER, m->adapter_id, m->engine_id);
	else if (m->kind == FSA_MARK_PAGE_FAULT && m->engine_id != UINT32_MAX)
		/* MMU-14: the engine's failed translation, on the engine (not its packet's queue).
		 */
		r = find_engine_row(trace, m->adapter_id, m->engine_id);
	else if (m->kind == FSA_MARK_DEVICE_D3)
		r = find_power_row(trace, FSV_ROW_DEVICE_POWER, m->adapter_id, UINT32_MAX);
	else if (_fsv_marker_display_source(m) != UINT32_MAX)
		r = find_display_row(trace, m->adapter_id, _fsv_marker_display_source(m));
	else if (m->kind == FSA_MARK_VA_MAPPING || m->kind == FSA_MARK_VA_RESERVE ||
		 m->kind == FSA_MARK_VA_FREE)
		r = fsv_trace_find_va_row(trace, m->process_id, m->adapter_id);
	else if (m->kind == FSA_MARK_FENCE_PROPAGATION)
		/* XAD-07: on the row of the adapter notified. */
		r = fsv_trace_find_xfence_row(trace, m->other_handle, (guint32) m->code);
	else if (m->kind == FSA_MARK_FENCE_NOTIFICATION)
		r = fsv_trace_find_xfence_row(trace, m->other_handle, m->adapter_id);
	if (r == FSV_INDEX_NONE && m->hwqueue_handle != 0)
		r = fsv_trace_find_queue_row(trace, m->hwqueue_handle);
	if (r == FSV_INDEX_NONE && m->adapter_id != UINT32_MAX && m->engine_id != UINT32_MAX)
		r = find_engine_row(trace, m->adapter_id, m->engine_id);
	if (r == FSV_INDEX_NONE && m->adapter_id != UINT32_MAX)
		r = find_adapter_row(trace, m->adapter_id);
	if (r == FSV_INDEX_NONE && trace->rows->len > 0)
		r = 0;
	return r;
}

/* Sort helpers for per-row index lists: by the item's begin time (a thread-unsafe global
 * would do, but the loader may run in several threads at once). */
typedef struct {
	const FsvTrace *trace;
	int what; /* 0 ops, 1 packets, 2 markers */
} SortCtx;

static guint64
item_begin(const SortCtx *c, guint32 i)
{
	switch (c->what) {
	case 0:
		return g_array_index(c->trace->ops, FsvOp, i).begin_ns;
	case 1:
		return g_array_index(c->trace->packets, FsvPacket, i).start_ns;
	default:
		return g_array_index(c->trace->markers, FsvMarker, i).begin_ns;
	}
}

static int
compare_by_begin(const void *a, const void *b, void *data)
{
	const SortCtx *c = data;
	guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
	guint64 bx = item_begin(c, x), by = item_begin(c, y);

	if (bx != by)
		return bx < by ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void
sort_row_list(const FsvTrace *trace, GArray *list, int what)
{
	SortCtx c = {trace, what};

	g_qsort_with_data(list->data, (gint) list->len, sizeof(guint32), compare_by_begin, &c);
}

/* The row's ops (waits above signals) or packets in lanes, with their level-of-detail indexes
 * (fsv-lanes.c). */
static void
index_row_lanes(FsvTrace *trace, guint32 r)
{
	RowData *d = &trace->row_data[r];
	FsvRow *row = row_at(trace, r);
	bool is_ops = d->ops->len > 0;
	GArray *list = is_ops ? d->ops : d->packets;
	g_autofree FsvLaneItem *items = g_new(FsvLaneItem, MAX(list->len, 1));
	g_autofree guint16 *lanes = g_new(guint16, MAX(list->len, 1));

	for (guint i = 0; i < list->len; i++) {
		guint32 idx = g_array_index(list, guint32, i);

		if (is_ops) {
			const FsvOp *o = &g_array_index(trace->ops, FsvOp, idx);

			items[i] =
			    (FsvLaneItem){o->begin_ns, o->end_ns, idx, o->kind != FSA_OP_WAIT};
		} else {
			const FsvPacket *p = &g_array_index(trace->packets, FsvPacket, idx);

			items[i] = (FsvLaneItem){p->start_ns, p->end_ns, idx, false};
		}
	}
	d->lanes =
	    _fsv_row_lanes_new(items, list->len, lanes, &row->lane_count, &row->first_lower_lane);
	for (guint i = 0; i < list->len; i++) {
		guint32 idx = g_array_index(list, guint32, i);

		if (is_ops)
			g_array_index(trace->ops, FsvOp, idx).lane = lanes[i];
		else
			g_array_index(trace->packets, FsvPacket, idx).lane = lanes[i];
	}
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
compare_edge_pairs(const void *a, const void *b)
{
	const guint32 *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Edges as CSR, both directions: edge_ops[edge_start[op] .. edge_start[op + 1]) are the waits
 * a signal released, or the signal of a wait. */
static void
index_edges(FsvTrace *trace)
{
	guint n_ops = trace->ops->len;
	g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(guint32) * 2);
	guint32 *fill;

	for (guint i = 0; i + 1 < trace->edge_ids->len; i += 2) {
		guint32 s =
		    fsv_trace_find_op_by_id(trace, g_array_index(trace->edge_ids, guint64, i));
		guint32 w =
		    fsv_trace_find_op_by_id(trace, g_array_index(trace->edge_ids, guint64, i + 1));
		guint32 ab[2] = {s, w}, ba[2] = {w, s};

		if (s == FSV_INDEX_NONE || w == FSV_INDEX_NONE)
			continue;
		g_array_append_val(pairs, ab);
		g_array_append_val(pairs, ba);
	}
	g_array_set_size(trace->edge_ids, 0);
	/* qsort's base must not be NULL, even for no elements (UBSan). */
	if (pairs->len > 0)
		qsort(pairs->data, pairs->len, sizeof(guint32) * 2, compare_edge_pairs);
	trace->edge_start = g_new0(guint32, n_ops + 1);
	trace->edge_ops = g_new(guint32, MAX(pairs->len, 1));
	fill = trace->edge_start;
	{
		guint n = 0;

		for (guint i = 0; i < pairs->len; i++) {
			const guint32 *p = &((const guint32 *) pairs->data)[2 * i];

			if (n > 0 && p[0] == ((const guint32 *) pairs->data)[2 * (i - 1)] &&
			    p[1] == ((const guint32 *) pairs->data)[2 * (i - 1) + 1])
				continue; /* duplicate */
			trace->edge_ops[n++] = p[1];
			fill[p[0] + 1]++;
		}
	}
	for (guint i = 0; i < n_ops; i++)
		fill[i + 1] += fill[i];
	for (guint i = 0; i < n_ops; i++) {
		FsvOp *o = &g_array_index(trace->ops, FsvOp, i);

		if (o->kind == FSA_OP_WAIT && trace->edge_start[i + 1] > trace->edge_start[i])
			o->signal_op = trace->edge_ops[trace->edge_start[i]];
	}
}

static void build_marker_lods(FsvTrace *trace, guint32 r, GArray *items);

/* TDR-01: a TDR's preemption request that never completed was abandoned by the recovery that
 * followed on its engine: it is drawn up to that recovery's end, not to the end of the trace
 * (it stays is_open: its details say it never completed). */
static void
end_abandoned_requests(FsvTrace *trace)
{
	if (!_fsv_trace_has_marker_kind(trace, FSA_MARK_TDR))
		return;
	for (guint32 i = 0; i < trace->markers->len; i++) {
		FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);
		guint64 end = FSV_TIME_NONE;

		if (m->kind != FSA_MARK_PREEMPTION || !m->is_open ||
		    m->code != FSTP_PREEMPT_REASON_TDR)
			continue;
		for (guint32 k = 0; k < trace->markers->len; k++) {
			const FsvMarker *r = &g_array_index(trace->markers, FsvMarker, k);

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
index_display_markers(FsvTrace *trace)
{
	for (guint32 r = 0; r < trace->rows->len; r++) {
		GArray *list = trace->row_data[r].markers;
		guint64 first_done = FSV_TIME_NONE, last_done = 0, lane_end[2] = {0, 0};

		if (row_at(trace, r)->kind != FSV_ROW_DISPLAY)
			continue;
		sort_row_list(trace, list, 2);
		for (guint i = 0; i < list->len; i++) {
			FsvMarker *m = &g_array_index(trace->markers, FsvMarker,
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
			FsvMarker *m = &g_array_index(trace->markers, FsvMarker,
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
	const FsvTrace *trace = data;
	const FsvPacket *x = &g_array_index(trace->packets, FsvPacket, *(const guint32 *) a);
	const FsvPacket *y = &g_array_index(trace->packets, FsvPacket, *(const guint32 *) b);

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const guint32 *) a < *(const guint32 *) b ? -1 : 1;
}

static void
link_packet_pieces(FsvTrace *trace)
{
	g_autoptr(GHashTable) last = NULL; /* (adapter, packet id) → latest piece + 1 */
	g_autofree guint32 *order = NULL;
	bool has_pieces = false;

	for (guint32 i = 0; i < trace->packets->len; i++) {
		FsvPacket *p = &g_array_index(trace->packets, FsvPacket, i);

		p->prev_piece = p->next_piece = FSV_INDEX_NONE;
		has_pieces |= p->resubmission_of != 0 || p->status == FSA_PACKET_PREEMPTED;
	}
	if (!has_pieces)
		return;
	order = g_new(guint32, trace->packets->len);
	for (guint32 i = 0; i < trace->packets->len; i++)
		order[i] = i;
	g_qsort_with_data(order, (gint) trace->packets->len, sizeof(guint32), compare_packet_start,
			  trace);
	last = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	for (guint32 k = 0; k < trace->packets->len; k++) {
		guint32 i = order[k];
		FsvPacket *p = &g_array_index(trace->packets, FsvPacket, i);
		/* 24 bits of adapter over 40 of packet id: ids stay far below 2^40. */
		guint64 own = (guint64) p->adapter_id << 40 ^ p->packet_id;
		guint64 of = (guint64) p->adapter_id << 40 ^ p->resubmission_of;
		gpointer v = g_hash_table_lookup(last, p->resubmission_of ? &of : &own);
		FsvPacket *prev =
		    v ? &g_array_index(trace->packets, FsvPacket, GPOINTER_TO_UINT(v) - 1) : NULL;

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
index_xfence_steps(FsvTrace *trace)
{
	if (g_hash_table_size(trace->xfence_rows) == 0)
		return;
	for (guint32 r = 0; r < trace->rows->len; r++) {
		const FsvRow *row = row_at(trace, r);
		const struct fsa_fence_info *f;
		FsvFenceStep s;

		if (row->kind != FSV_ROW_XFENCE)
			continue;
		f = fsv_trace_find_fence(trace, row->fence_global_handle);
		s = (FsvFenceStep){f && f->created_ns != FSA_TIME_NONE ? f->created_ns
								       : trace->begin_ns,
				   f ? f->initial_value : 0, FSV_INDEX_NONE, FSV_INDEX_NONE};
		g_array_append_val(trace->row_data[r].steps, s);
	}
	for (guint32 i = 0; i < trace->ops->len; i++) {
		const FsvOp *o = &g_array_index(trace->ops, FsvOp, i);
		const struct fsa_fence_info *f;
		guint32 r, adapter = o->adapter_id;
		FsvFenceStep s = {o->end_ns, o->fence_value, i, FSV_INDEX_NONE};

		if (o->kind != FSA_OP_SIGNAL || o->state == FSA_OP_NEVER_COMPLETED ||
		    !o->fence_global_handle ||
		    !g_hash_table_contains(trace->xfence_rows, &o->fence_global_handle))
			continue;
		if (adapter == UINT32_MAX &&
		    (f = fsv_trace_find_fence(trace, o->fence_global_handle)))
			adapter = f->adapter_id;
		r = fsv_trace_find_xfence_row(trace, o->fence_global_handle, adapter);
		if (r != FSV_INDEX_NONE)
			g_array_append_val(trace->row_data[r].steps, s);
	}
	for (guint32 i = 0; i < trace->markers->len; i++) {
		const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);
		FsvFenceStep s = {m->is_open ? m->begin_ns : m->end_ns, m->value,
				  FSV_STEP_PROPAGATED, i};

		if (m->kind == FSA_MARK_FENCE_PROPAGATION && m->row != FSV_INDEX_NONE)
			g_array_append_val(trace->row_data[m->row].steps, s);
	}
}

/* MMU-06, MMU-07: a VA space row's mappings in lanes (a mapping goes to the first lane free
 * when it is made; all busy: the one that frees first), one level-of-detail index per lane. */
static void
index_va_mappings(FsvTrace *trace, guint32 r, GArray *items)
{
	RowData *d = &trace->row_data[r];
	guint64 lane_end[FSV_VA_MAX_LANES] = {0};
	guint used = 0;

	for (guint i = 0; i < d->markers->len; i++) {
		FsvMarker *m = &g_array_index(trace->markers, FsvMarker,
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
	row_at(trace, r)->lane_count = MAX(used, 1);
	for (guint lane = 0; lane < used; lane++) {
		g_array_set_size(items, 0);
		for (guint i = 0; i < d->markers->len; i++) {
			guint32 idx = g_array_index(d->markers, guint32, i);
			const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, idx);
			FsvLodItem it = {m->begin_ns, m->end_ns, idx};

			if (m->kind == FSA_MARK_VA_MAPPING && m->lane == lane)
				g_array_append_val(items, it);
		}
		if (items->len > 0)
			d->va_lods[lane] =
			    fsv_lod_new((const FsvLodItem *) items->data, items->len);
	}
}

static void
build_index(FsvTrace *trace)
{
	guint n_rows;

	/* The span of the trace: the model's, widened by anything that reaches further. */
	trace->begin_ns = trace->summary.first_ns != FSA_TIME_NONE ? trace->summary.first_ns : 0;
	trace->end_ns =
	    trace->summary.last_ns != FSA_TIME_NONE ? trace->summary.last_ns : trace->begin_ns;

	/* Ops arrive in id order; sort defensively if they did not. */
	for (guint i = 1; i < trace->ops->len; i++)
		if (g_array_index(trace->ops, FsvOp, i - 1).id >
		    g_array_index(trace->ops, FsvOp, i).id) {
			g_array_sort(trace->ops, compare_op_id);
			break;
		}

	for (guint i = 0; i < trace->markers->len; i++)
		trace->marker_kinds |= G_GUINT64_CONSTANT(1)
				       << g_array_index(trace->markers, FsvMarker, i).kind;
	layout_rows(trace);
	n_rows = trace->rows->len;
	trace->row_data = g_new0(RowData, MAX(n_rows, 1));
	for (guint r = 0; r < n_rows; r++) {
		trace->row_data[r].ops = g_array_new(FALSE, FALSE, sizeof(guint32));
		trace->row_data[r].packets = g_array_new(FALSE, FALSE, sizeof(guint32));
		trace->row_data[r].markers = g_array_new(FALSE, FALSE, sizeof(guint32));
		trace->row_data[r].steps = g_array_new(FALSE, FALSE, sizeof(FsvFenceStep));
	}

	for (guint32 i = 0; i < trace->ops->len; i++) {
		FsvOp *o = &g_array_index(trace->ops, FsvOp, i);
		guint32 fr;

		if (o->end_ns == FSV_TIME_NONE || o->end_ns < o->begin_ns)
			o->end_ns =
			    MAX(trace->end_ns, o->begin_ns == FSV_TIME_NONE ? 0 : o->begin_ns);
		if (o->begin_ns == FSV_TIME_NONE)
			o->begin_ns = o->end_ns;
		o->row = o->source == FSA_SRC_CPU
			     ? find_cpu_row(trace, o->process_id)
			     : fsv_trace_find_queue_row(trace, o->hwqueue_handle);
		if (o->row != FSV_INDEX_NONE)
			g_array_append_val(trace->row_data[o->row].ops, i);
		/* CurrentValue steps: a signal's value from its end; a CPU wait's observed value.
		 */
		fr = o->fence_global_handle
			 ? fsv_trace_find_fence_row(trace, o->fence_global_handle)
			 : FSV_INDEX_NONE;
		if (fr != FSV_INDEX_NONE && o->state != FSA_OP_NEVER_COMPLETED) {
			FsvFenceStep s = {o->end_ns, o->fence_value, i, FSV_INDEX_NONE};

			if (o->kind == FSA_OP_SIGNAL) {
				g_array_append_val(trace->row_data[fr].steps, s);
			} else if (o->source == FSA_SRC_CPU && o->op_end_ns != FSA_TIME_NONE &&
				   o->cpu_wait_result == FSTP_CPU_WAIT_RESULT_SATISFIED) {
				s.value = o->observed_value;
				g_array_append_val(trace->row_data[fr].steps, s);
			}
		}
	}
	for (guint i = 0; i < trace->fences->len; i++) {
		const struct fsa_fence_info *f =
		    &g_array_index(trace->fences, struct fsa_fence_info, i);
		guint32 fr = f->fence_global_handle
				 ? fsv_trace_find_fence_row(trace, f->fence_global_handle)
				 : FSV_INDEX_NONE;
		FsvFenceStep s = {f->created_ns != FSA_TIME_NONE ? f->created_ns : trace->begin_ns,
				  f->initial_value, FSV_INDEX_NONE, FSV_INDEX_NONE};

		if (fr != FSV_INDEX_NONE)
			g_array_prepend_val(trace->row_data[fr].steps, s);
	}
	/* Values the analyzer saw a fence take without an operation: a progress fence reaching
	 * each completed command buffer's value. */
	for (guint i = 0; i < trace->fence_values->len; i++) {
		const struct fsa_fence_value *v =
		    &g_array_index(trace->fence_values, struct fsa_fence_value, i);
		guint32 fr = fsv_trace_find_fence_row(trace, v->fence_global_handle);
		FsvFenceStep s = {v->ts_ns, v->value, FSV_STEP_BUFFER_COMPLETED, FSV_INDEX_NONE};

		if (fr != FSV_INDEX_NONE)
			g_array_append_val(trace->row_data[fr].steps, s);
	}
	for (guint32 i = 0; i < trace->packets->len; i++) {
		FsvPacket *p = &g_array_index(trace->packets, FsvPacket, i);

		if (p->start_ns == FSV_TIME_NONE)
			p->start_ns =
			    p->queued_ns != FSV_TIME_NONE ? p->queued_ns : trace->begin_ns;
		if (p->end_ns == FSV_TIME_NONE || p->end_ns < p->start_ns)
			p->end_ns = MAX(trace->end_ns, p->start_ns);
		p->row = find_engine_row(trace, p->adapter_id, p->engine_id);
		if (p->row != FSV_INDEX_NONE)
			g_array_append_val(trace->row_data[p->row].packets, i);
	}
	link_packet_pieces(trace);
	for (guint32 i = 0; i < trace->markers->len; i++) {
		FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);

		if (m->begin_ns == FSV_TIME_NONE)
			m->begin_ns = trace->begin_ns;
		if (m->end_ns == FSV_TIME_NONE || m->end_ns < m->begin_ns)
			m->end_ns = MAX(trace->end_ns, m->begin_ns);
		m->row = FSV_INDEX_NONE;
		/* SUS-01: a suspended context suspends all its queues: the range goes on each;
		 * TDR-04: so does a context in error. */
		if ((m->kind == FSA_MARK_CONTEXT_SUSPENDED || m->kind == FSA_MARK_CONTEXT_ERROR) &&
		    m->context_handle != 0)
			for (guint32 r = 0; r < n_rows; r++) {
				const FsvRow *row = row_at(trace, r);

				if (row->kind != FSV_ROW_QUEUE ||
				    row->context_handle != m->context_handle ||
				    (m->adapter_id != UINT32_MAX &&
				     row->adapter_id != m->adapter_id))
					continue;
				if (m->row == FSV_INDEX_NONE)
					m->row = r;
				g_array_append_val(trace->row_data[r].markers, i);
			}
		/* TDR-04: a lost device takes every queue of its process down with it (the trace
		 * names the device, not its queues): the loss goes on each of them. */
		if (m->kind == FSA_MARK_DEVICE_LOST && m->process_id != UINT32_MAX)
			for (guint32 r = 0; r < n_rows; r++) {
				const FsvRow *row = row_at(trace, r);

				if (row->kind != FSV_ROW_QUEUE ||
				    row->process_id != m->process_id ||
				    (m->adapter_id != UINT32_MAX &&
				     row->adapter_id != m->adapter_id))
					continue;
				if (m->row == FSV_INDEX_NONE)
					m->row = r;
				g_array_append_val(trace->row_data[r].markers, i);
			}
		if (m->row == FSV_INDEX_NONE) {
			m->row = marker_row(trace, m);
			if (m->row != FSV_INDEX_NONE)
				g_array_append_val(trace->row_data[m->row].markers, i);
		}
		/* MMU-14: the engine's page fault is drawn on its engine's row (its row); the OS's
		 * handling of it on every queue row of the faulting context, which the OS
		 * terminates for it (and on its process's VA space row, below). A trace without
		 * the OS's events (format 1.4 and before) shows the engine's fault there. */
		if ((m->kind == FSA_MARK_PAGE_FAULT_HANDLED ||
		     (m->kind == FSA_MARK_PAGE_FAULT &&
		      !_fsv_trace_has_marker_kind(trace, FSA_MARK_PAGE_FAULT_HANDLED))) &&
		    m->context_handle != 0)
			for (guint32 r = 0; r < n_rows; r++) {
				const FsvRow *row = row_at(trace, r);

				if (r == m->row || row->kind != FSV_ROW_QUEUE ||
				    row->context_handle != m->context_handle ||
				    (m->adapter_id != UINT32_MAX &&
				     row->adapter_id != m->adapter_id))
					continue;
				g_array_append_val(trace->row_data[r].markers, i);
			}
		if (m->kind == FSA_MARK_PAGE_FAULT_HANDLED) {
			guint32 va = fsv_trace_find_va_row(trace, m->process_id, m->adapter_id);

			if (va != FSV_INDEX_NONE && va != m->row)
				g_array_append_val(trace->row_data[va].markers, i);
		}
	}
	index_display_markers(trace);
	index_xfence_steps(trace);
	end_abandoned_requests(trace);
	/* Engine rows with preemptions, pieces or TDR stages get the strip above their lanes. */
	for (guint32 i = 0; i < trace->packets->len; i++) {
		const FsvPacket *p = &g_array_index(trace->packets, FsvPacket, i);

		trace->has_paging_packets |= p->is_paging;
		trace->has_resubmitted_pieces |= p->next_piece != FSV_INDEX_NONE;
		if (p->row != FSV_INDEX_NONE &&
		    (p->prev_piece != FSV_INDEX_NONE || p->next_piece != FSV_INDEX_NONE))
			row_at(trace, p->row)->has_event_strip = true;
	}
	for (guint32 i = 0; i < trace->markers->len; i++) {
		const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);

		if (m->row != FSV_INDEX_NONE && row_at(trace, m->row)->kind == FSV_ROW_ENGINE &&
		    _fsv_marker_uses_event_strip(m->kind))
			row_at(trace, m->row)->has_event_strip = true;
	}
	for (guint i = 0; i < trace->losses->len; i++) {
		FsvLoss *l = &g_array_index(trace->losses, FsvLoss, i);

		l->row = fsa_loss_is_per_log(l->loss.kind)
			     ? fsv_trace_find_queue_row(trace, l->loss.hwqueue_handle)
			     : FSV_INDEX_NONE;
		l->begin_ns =
		    l->loss.begin_ns != FSA_TIME_NONE ? l->loss.begin_ns : trace->begin_ns;
		l->end_ns = l->loss.end_ns != FSA_TIME_NONE ? l->loss.end_ns : trace->end_ns;
		if (l->end_ns < l->begin_ns)
			l->end_ns = l->begin_ns;
	}

	for (guint r = 0; r < n_rows; r++) {
		RowData *d = &trace->row_data[r];
		FsvRow *row = row_at(trace, r);
		g_autoptr(GArray) items = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));

		sort_row_list(trace, d->ops, 0);
		sort_row_list(trace, d->packets, 1);
		sort_row_list(trace, d->markers, 2);
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
		if (d->ops->len > 0 || d->packets->len > 0)
			index_row_lanes(trace, r);
		if (row->kind == FSV_ROW_VA_SPACE)
			index_va_mappings(trace, r, items);
		build_marker_lods(trace, r, items);
	}
	index_edges(trace);
}

bool
_fsv_trace_find_fault_recovery(const FsvTrace *trace, guint32 marker, FsvFaultRecovery *rec)
{
	const FsvMarker *f;
	guint64 tdr_begin = FSV_TIME_NONE, tdr_end = FSV_TIME_NONE;
	bool tdr_is_page_fault = false;

	rec->tdr = rec->engine_reset = rec->adapter_reset = FSV_INDEX_NONE;
	rec->context_error = rec->device_lost = FSV_INDEX_NONE;
	g_return_val_if_fail(marker < trace->markers->len, false);
	f = &g_array_index(trace->markers, FsvMarker, marker);
	/* TDR-06: the recovery of its engine that began at or after it; one for a page fault
	 * first, else the earliest. */
	for (guint32 i = 0; i < trace->markers->len; i++) {
		const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);
		bool is_page_fault;

		if (m->kind != FSA_MARK_TDR || m->adapter_id != f->adapter_id ||
		    (f->engine_id != UINT32_MAX && m->engine_id != f->engine_id) ||
		    m->begin_ns < f->begin_ns)
			continue;
		is_page_fault = m->value == FSTP_LOSS_REASON_PAGE_FAULT;
		if (rec->tdr == FSV_INDEX_NONE || (is_page_fault && !tdr_is_page_fault) ||
		    (is_page_fault == tdr_is_page_fault && m->begin_ns < tdr_begin)) {
			rec->tdr = i;
			tdr_begin = m->begin_ns;
			tdr_end = m->end_ns;
			tdr_is_page_fault = is_page_fault;
		}
	}
	for (guint32 i = 0; i < trace->markers->len; i++) {
		const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, i);
		bool in_tdr = rec->tdr != FSV_INDEX_NONE && m->begin_ns >= tdr_begin &&
			      m->begin_ns <= tdr_end;

		if (m->kind == FSA_MARK_ENGINE_RESET && in_tdr && m->adapter_id == f->adapter_id &&
		    m->engine_id == g_array_index(trace->markers, FsvMarker, rec->tdr).engine_id &&
		    rec->engine_reset == FSV_INDEX_NONE)
			rec->engine_reset = i;
		else if (m->kind == FSA_MARK_ADAPTER_RESET && in_tdr &&
			 m->adapter_id == f->adapter_id && rec->adapter_reset == FSV_INDEX_NONE)
			rec->adapter_reset = i;
		else if (m->kind == FSA_MARK_CONTEXT_ERROR && f->context_handle != 0 &&
			 m->context_handle == f->context_handle && m->begin_ns >= f->begin_ns &&
			 rec->context_error == FSV_INDEX_NONE)
			rec->context_error = i;
		else if (m->kind == FSA_MARK_DEVICE_LOST && f->process_id != UINT32_MAX &&
			 m->process_id == f->process_id && m->begin_ns >= f->begin_ns &&
			 (tdr_end == FSV_TIME_NONE || m->begin_ns <= tdr_end) &&
			 rec->device_lost == FSV_INDEX_NONE)
			rec->device_lost = i;
	}
	return rec->tdr != FSV_INDEX_NONE || rec->context_error != FSV_INDEX_NONE ||
	       rec->device_lost != FSV_INDEX_NONE;
}

/* The layer of a marker kind (fsv-trace-private.h). */
bool
_fsv_trace_has_marker_kind(const FsvTrace *trace, guint8 kind)
{
	return kind < 64 && (trace->marker_kinds >> kind & 1);
}

bool
_fsv_trace_has_paging_packets(const FsvTrace *trace)
{
	return trace->has_paging_packets;
}

bool
_fsv_trace_has_resubmitted_pieces(const FsvTrace *trace)
{
	return trace->has_resubmitted_pieces;
}

bool
_fsv_marker_uses_event_strip(guint8 kind)
{
	return kind == FSA_MARK_PREEMPTION || kind == FSA_MARK_TDR || kind == FSA_MARK_TDR_DETECT;
}

/* ---- Display markers (PRE-13) ----------------------------------------------------------- */

/* vsync: other_handle = source, value = vsync_count, value2 = flip; flip: other_handle =
 * source, value = flip id, value2 = the vsync it took effect at (docs/analyzer.md). */
guint32
_fsv_marker_display_source(const FsvMarker *m)
{
	if (m->kind != FSA_MARK_VSYNC && m->kind != FSA_MARK_FLIP)
		return UINT32_MAX;
	return m->other_handle < UINT32_MAX ? (guint32) m->other_handle : UINT32_MAX - 1;
}

bool
_fsv_marker_is_vsync(const FsvMarker *m)
{
	return m->kind == FSA_MARK_VSYNC;
}

bool
_fsv_marker_is_flip(const FsvMarker *m)
{
	return m->kind == FSA_MARK_FLIP;
}

guint64
_fsv_vsync_flip_id(const FsvMarker *m)
{
	return m->value2;
}

guint64
_fsv_flip_id(const FsvMarker *m)
{
	return m->value;
}

guint64
_fsv_vsync_count(const FsvMarker *m)
{
	return m->value;
}

guint64
_fsv_flip_vsync_count(const FsvMarker *m)
{
	return m->value2;
}

FsvMarkerLayer
_fsv_marker_get_layer(const FsvMarker *m)
{
	if (_fsv_marker_is_vsync(m))
		return m->is_missed ? FSV_MARKER_LAYER_MISSED : FSV_MARKER_LAYER_VSYNC;
	return _fsv_marker_layer(m->kind);
}

FsvMarkerLayer
_fsv_marker_layer(guint8 kind)
{
	switch (kind) {
	case FSA_MARK_DOORBELL_RING:
		return FSV_MARKER_LAYER_RING;
	case FSA_MARK_DOORBELL_STATE:
	case FSA_MARK_DOORBELL_CONNECTED:
		return FSV_MARKER_LAYER_BAND;
	case FSA_MARK_DOORBELL_VICTIMIZE:
		return FSV_MARKER_LAYER_VICTIM;
	case FSA_MARK_CONTEXT_SUSPENDED:
	case FSA_MARK_CONTEXT_ERROR:
	case FSA_MARK_TDR_DETECT:
		return FSV_MARKER_LAYER_BACK;
	case FSA_MARK_ENGINE_RESET:
	case FSA_MARK_ADAPTER_RESET:
		return FSV_MARKER_LAYER_RESET;
	case FSA_MARK_PAGE_FAULT:
	case FSA_MARK_PAGE_FAULT_HANDLED:
		return FSV_MARKER_LAYER_FAULT;
	case FSA_MARK_FENCE_PROPAGATION:
		return FSV_MARKER_LAYER_PROPAGATION;
	case FSA_MARK_VA_MAPPING:
		return FSV_MARKER_LAYER_COUNT; /* in the VA row's lanes (_fsv_trace_get_va_lod) */
	default:
		return FSV_MARKER_LAYER_OTHER;
	}
}

/* A row's markers (sorted) into one level-of-detail index per layer. The band shows the status
 * word's intervals when the trace has them (format 1.2), else the connected intervals. */
static void
build_marker_lods(FsvTrace *trace, guint32 r, GArray *items)
{
	RowData *d = &trace->row_data[r];
	FsvRow *row = row_at(trace, r);
	bool has_states = false;

	for (guint i = 0; i < d->markers->len && !has_states; i++)
		has_states =
		    g_array_index(trace->markers, FsvMarker, g_array_index(d->markers, guint32, i))
			.kind == FSA_MARK_DOORBELL_STATE;
	for (int layer = 0; layer < FSV_MARKER_LAYER_COUNT; layer++) {
		g_array_set_size(items, 0);
		for (guint i = 0; i < d->markers->len; i++) {
			guint32 idx = g_array_index(d->markers, guint32, i);
			const FsvMarker *m = &g_array_index(trace->markers, FsvMarker, idx);
			FsvLodItem it = {m->begin_ns, m->end_ns, idx};

			if ((int) _fsv_marker_get_layer(m) != layer ||
			    (has_states && m->kind == FSA_MARK_DOORBELL_CONNECTED))
				continue;
			g_array_append_val(items, it);
		}
		if (items->len > 0)
			d->marker_lods[layer] =
			    fsv_lod_new((const FsvLodItem *) items->data, items->len);
	}
	row->has_doorbell_band =
	    row->kind == FSV_ROW_QUEUE && d->marker_lods[FSV_MARKER_LAYER_BAND] != NULL;
}

static void
copy_model(FsvTrace *trace, const struct fsa_model *model)
{
	const struct fsa_summary *s = fsa_model_borrow_summary(model);

	trace->summary = *s;
	trace->runtime_version = g_strdup(s->runtime_version ? s->runtime_version : "");
	trace->summary.runtime_version = trace->runtime_version;
	for (size_t i = 0; i < fsa_model_process_count(model); i++) {
		struct fsa_process_info p = *fsa_model_borrow_process(model, i);

		p.name = g_strdup(p.name ? p.name : "");
		g_array_append_val(trace->processes, p);
	}
	for (size_t i = 0; i < fsa_model_queue_count(model); i++)
		g_array_append_val(trace->queues, *fsa_model_borrow_queue(model, i));
	for (size_t i = 0; i < fsa_model_context_count(model); i++)
		g_array_append_val(trace->contexts, *fsa_model_borrow_context(model, i));
	for (size_t i = 0; i < fsa_model_engine_count(model); i++)
		g_array_append_val(trace->engines, *fsa_model_borrow_engine(model, i));
	for (size_t i = 0; i < fsa_model_fence_count(model); i++)
		g_array_append_val(trace->fences, *fsa_model_borrow_fence(model, i));
	for (size_t i = 0; i < fsa_model_clock_fit_count(model); i++)
		g_array_append_val(trace->clock_fits, *fsa_model_borrow_clock_fit(model, i));
	for (size_t i = 0; i < fsa_model_va_space_count(model); i++)
		g_array_append_val(trace->va_spaces, *fsa_model_borrow_va_space(model, i));
	for (size_t i = 0; i < fsa_model_fence_count(model); i++) {
		const struct fsa_fence_info *f = fsa_model_borrow_fence(model, i);
		const struct fsa_cross_open *o;

		for (size_t k = 0;
		     (o = fsa_model_borrow_cross_open(model, f->fence_global_handle, k)); k++) {
			struct fsa_cross_open copy = *o;

			/* Kept by global handle: the local one is the opener's. */
			copy.fence_handle = f->fence_global_handle;
			g_array_append_val(trace->xopens, copy);
		}
	}
}

static FsvTrace *
trace_new(const char *path)
{
	FsvTrace *trace = g_new0(FsvTrace, 1);
	g_autofree char *clean = g_strdup(path);
	gsize len = strlen(clean);

	while (len > 1 && clean[len - 1] == '/')
		clean[--len] = '\0';
	trace->ref_count = 1;
	trace->path = g_strdup(path);
	trace->name = g_path_get_basename(clean);
	trace->rows = g_array_new(FALSE, FALSE, sizeof(FsvRow));
	trace->ops = g_array_new(FALSE, FALSE, sizeof(FsvOp));
	trace->packets = g_array_new(FALSE, FALSE, sizeof(FsvPacket));
	trace->markers = g_array_new(FALSE, FALSE, sizeof(FsvMarker));
	trace->losses = g_array_new(FALSE, FALSE, sizeof(FsvLoss));
	trace->anomalies = g_array_new(FALSE, FALSE, sizeof(struct fsa_anomaly));
	trace->fence_values = g_array_new(FALSE, FALSE, sizeof(struct fsa_fence_value));
	trace->edge_ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	trace->processes = g_array_new(FALSE, FALSE, sizeof(struct fsa_process_info));
	trace->queues = g_array_new(FALSE, FALSE, sizeof(struct fsa_queue_info));
	trace->contexts = g_array_new(FALSE, FALSE, sizeof(struct fsa_context_info));
	trace->engines = g_array_new(FALSE, FALSE, sizeof(struct fsa_engine_info));
	trace->fences = g_array_new(FALSE, FALSE, sizeof(struct fsa_fence_info));
	trace->clock_fits = g_array_new(FALSE, FALSE, sizeof(struct fsa_clock_fit));
	trace->va_spaces = g_array_new(FALSE, FALSE, sizeof(struct fsa_va_space_info));
	trace->xopens = g_array_new(FALSE, FALSE, sizeof(struct fsa_cross_open));
	trace->va_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	trace->xfence_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						   (GDestroyNotify) g_array_unref);
	trace->queue_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	trace->fence_rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	return trace;
}

static void
init_sink(struct fsa_model_sink *sink, FsvTrace *trace)
{
	sink->data = trace;
	sink->op = sink_op;
	sink->edge = sink_edge;
	sink->packet = sink_packet;
	sink->marker = sink_marker;
	sink->loss = sink_loss;
	sink->anomaly = sink_anomaly;
	sink->fence_value = sink_fence_value;
}

FsvTrace *
_fsv_trace_new_from_events(const char *name, const struct fsa_event *events, gsize n)
{
	FsvTrace *trace = trace_new(name);
	struct fsa_model_sink sink = {0};
	struct fsa_model *model;
	fsa_status status = FSA_OK;

	init_sink(&sink, trace);
	model = fsa_model_create(&sink);
	g_assert(model);
	for (gsize i = 0; i < n && status == FSA_OK; i++)
		status = fsa_model_add_event(model, &events[i]);
	if (status == FSA_OK)
		status = fsa_model_finish(model);
	if (status != FSA_OK)
		trace->partial_error = g_strdup(fsa_status_string(status));
	copy_model(trace, model);
	fsa_model_destroy(model);
	build_index(trace);
	return trace;
}

FsvTrace *
fsv_trace_load(const char *path, FsvTraceProgressFunc progress, gpointer user_data,
	       GCancellable *cancellable, GError **error)
{
	g_autoptr(FsvTrace) trace = NULL;
	struct fsa_model *model;
	struct fsa_model_sink sink = {0};
	LoadProgress lp = {progress, user_data, cancellable};
	char *message = NULL;
	fsa_status status;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	/* Cancelled before it starts (as GIO's calls do), or while reading (progress). */
	if (g_cancellable_set_error_if_cancelled(cancellable, error))
		return NULL;
	trace = trace_new(path);
	init_sink(&sink, trace);
	model = fsa_model_create(&sink);
	if (!model) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_NOMEM, "%s: out of memory",
			    path);
		return NULL;
	}
	status = fsa_ingest_into_model(path, model, on_progress, &lp, &trace->stats, &message);
	if (status == FSA_OK || status == FSA_ERR_TRACE)
		copy_model(trace, model);
	fsa_model_destroy(model);
	if (status == FSA_ERR_CANCELLED ||
	    (status != FSA_OK && cancellable && g_cancellable_is_cancelled(cancellable))) {
		free(message);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: loading cancelled", path);
		return NULL;
	}
	if (status == FSA_ERR_TRACE) {
		trace->partial_error = g_strdup(message ? message : "the trace is damaged");
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
	build_index(trace);
	return g_steal_pointer(&trace);
}

FsvTrace *
fsv_trace_ref(FsvTrace *trace)
{
	g_return_val_if_fail(trace != NULL, NULL);
	g_atomic_int_inc(&trace->ref_count);
	return trace;
}

void
fsv_trace_unref(FsvTrace *trace)
{
	if (!trace || !g_atomic_int_dec_and_test(&trace->ref_count))
		return;
	for (guint r = 0; r < trace->rows->len; r++) {
		FsvRow *row = row_at(trace, r);

		g_free(row->label);
		g_free(row->sublabel);
		if (trace->row_data) {
			RowData *d = &trace->row_data[r];

			g_array_unref(d->ops);
			g_array_unref(d->packets);
			g_array_unref(d->markers);
			g_array_unref(d->steps);
			_fsv_row_lanes_free(d->lanes);
			for (guint l = 0; l < FSV_VA_MAX_LANES; l++)
				fsv_lod_free(d->va_lods[l]);
			for (int l = 0; l < FSV_MARKER_LAYER_COUNT; l++)
				fsv_lod_free(d->marker_lods[l]);
		}
	}
	for (guint i = 0; i < trace->processes->len; i++)
		g_free((char *) g_array_index(trace->processes, struct fsa_process_info, i).name);
	g_free(trace->row_data);
	g_array_unref(trace->rows);
	g_array_unref(trace->ops);
	g_array_unref(trace->packets);
	g_array_unref(trace->markers);
	g_array_unref(trace->losses);
	g_array_unref(trace->anomalies);
	g_array_unref(trace->fence_values);
	g_array_unref(trace->edge_ids);
	g_array_unref(trace->processes);
	g_array_unref(trace->queues);
	g_array_unref(trace->contexts);
	g_array_unref(trace->engines);
	g_array_unref(trace->fences);
	g_array_unref(trace->clock_fits);
	g_array_unref(trace->va_spaces);
	g_array_unref(trace->xopens);
	g_hash_table_unref(trace->va_rows);
	g_hash_table_unref(trace->xfence_rows);
	g_hash_table_unref(trace->queue_rows);
	g_hash_table_unref(trace->fence_rows);
	g_free(trace->edge_start);
	g_free(trace->edge_ops);
	g_free(trace->runtime_version);
	g_free(trace->path);
	g_free(trace->name);
	g_free(trace->partial_error);
	g_free(trace);
}

/* ---- Accessors ------------------------------------------------------------------------- */

const char *
fsv_trace_get_path(const FsvTrace *trace)
{
	return trace->path;
}

const char *
fsv_trace_get_name(const FsvTrace *trace)
{
	return trace->name;
}

const char *
fsv_trace_get_partial_error(const FsvTrace *trace)
{
	return trace->partial_error;
}

guint64
fsv_trace_get_begin_ns(const FsvTrace *trace)
{
	return trace->begin_ns;
}

guint64
fsv_trace_get_end_ns(const FsvTrace *trace)
{
	return trace->end_ns;
}

const char *
fsv_trace_get_clock_warning(const FsvTrace *trace)
{
	switch (trace->summary.gpu_time) {
	case FSA_GPU_TIME_UNMAPPED:
		return "GPU times not placed: a sim-mode run recorded with a real clock (record it "
		       "with fencescope record, or run it with --clock realtime); GPU boxes end at "
		       "their log read";
	case FSA_GPU_TIME_EVENT_STAMPED:
		return "GPU times approximate (a few µs): the trace clock is not the clock the "
		       "runtime "
		       "sampled";
	default:
		return NULL;
	}
}

const struct fsa_summary *
fsv_trace_get_summary(const FsvTrace *trace)
{
	return &trace->summary;
}

const struct fsa_ingest_stats *
fsv_trace_get_ingest_stats(const FsvTrace *trace)
{
	return &trace->stats;
}

guint
fsv_trace_get_row_count(const FsvTrace *trace)
{
	return trace->rows->len;
}

const FsvRow *
fsv_trace_get_row(const FsvTrace *trace, guint32 row)
{
	g_return_val_if_fail(row < trace->rows->len, NULL);
	return &g_array_index(trace->rows, FsvRow, row);
}

guint32
fsv_trace_find_queue_row(const FsvTrace *trace, guint64 hwqueue_handle)
{
	gpointer v = g_hash_table_lookup(trace->queue_rows, &hwqueue_handle);

	return v ? GPOINTER_TO_UINT(v) - 1 : FSV_INDEX_NONE;
}

guint32
fsv_trace_find_fence_row(const FsvTrace *trace, guint64 fence_global_handle)
{
	gpointer v = g_hash_table_lookup(trace->fence_rows, &fence_global_handle);

	return v ? GPOINTER_TO_UINT(v) - 1 : FSV_INDEX_NONE;
}

guint
fsv_trace_get_op_count(const FsvTrace *trace)
{
	return trace->ops->len;
}

const FsvOp *
fsv_trace_get_op(const FsvTrace *trace, guint32 op)
{
	g_return_val_if_fail(op < trace->ops->len, NULL);
	return &g_array_index(trace->ops, FsvOp, op);
}

guint32
fsv_trace_find_op_by_id(const FsvTrace *trace, guint64 op_id)
{
	guint lo = 0, hi = trace->ops->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		guint64 id = g_array_index(trace->ops, FsvOp, mid).id;

		if (id == op_id)
			return mid;
		if (id < op_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FSV_INDEX_NONE;
}

static const guint32 *
row_list(const FsvTrace *trace, guint32 row, GArray *(*pick)(RowData *), guint *n)
{
	GArray *a;

	*n = 0;
	g_return_val_if_fail(row < trace->rows->len, NULL);
	a = pick(&trace->row_data[row]);
	*n = a->len;
	return (const guint32 *) a->data;
}

static GArray *
pick_ops(RowData *d)
{
	return d->ops;
}

static GArray *
pick_packets(RowData *d)
{
	return d->packets;
}

static GArray *
pick_markers(RowData *d)
{
	return d->markers;
}

const guint32 *
fsv_trace_get_row_ops(const FsvTrace *trace, guint32 row, guint *n_ops)
{
	return row_list(trace, row, pick_ops, n_ops);
}

guint
fsv_trace_get_packet_count(const FsvTrace *trace)
{
	return trace->packets->len;
}

const FsvPacket *
fsv_trace_get_packet(const FsvTrace *trace, guint32 packet)
{
	g_return_val_if_fail(packet < trace->packets->len, NULL);
	return &g_array_index(trace->packets, FsvPacket, packet);
}

const guint32 *
fsv_trace_get_row_packets(const FsvTrace *trace, guint32 row, guint *n_packets)
{
	return row_list(trace, row, pick_packets, n_packets);
}

guint
fsv_trace_get_marker_count(const FsvTrace *trace)
{
	return trace->markers->len;
}

const FsvMarker *
fsv_trace_get_marker(const FsvTrace *trace, guint32 marker)
{
	g_return_val_if_fail(marker < trace->markers->len, NULL);
	return &g_array_index(trace->markers, FsvMarker, marker);
}

const guint32 *
fsv_trace_get_row_markers(const FsvTrace *trace, guint32 row, guint *n_markers)
{
	return row_list(trace, row, pick_markers, n_markers);
}

guint
fsv_trace_get_loss_count(const FsvTrace *trace)
{
	return trace->losses->len;
}

const FsvLoss *
fsv_trace_get_loss(const FsvTrace *trace, guint32 loss)
{
	g_return_val_if_fail(loss < trace->losses->len, NULL);
	return &g_array_index(trace->losses, FsvLoss, loss);
}

const FsvFenceStep *
fsv_trace_get_fence_steps(const FsvTrace *trace, guint32 row, guint *n_steps)
{
	*n_steps = 0;
	g_return_val_if_fail(row < trace->rows->len, NULL);
	*n_steps = trace->row_data[row].steps->len;
	return (const FsvFenceStep *) trace->row_data[row].steps->data;
}

const guint32 *
fsv_trace_get_op_edges(const FsvTrace *trace, guint32 op, guint *n)
{
	*n = 0;
	g_return_val_if_fail(op < trace->ops->len, NULL);
	*n = trace->edge_start[op + 1] - trace->edge_start[op];
	return trace->edge_ops + trace->edge_start[op];
}

guint
fsv_trace_get_anomaly_count(const FsvTrace *trace)
{
	return trace->anomalies->len;
}

const struct fsa_anomaly *
fsv_trace_get_anomaly(const FsvTrace *trace, guint32 anomaly)
{
	g_return_val_if_fail(anomaly < trace->anomalies->len, NULL);
	return &g_array_index(trace->anomalies, struct fsa_anomaly, anomaly);
}

guint
fsv_trace_get_process_count(const FsvTrace *trace)
{
	return trace->processes->len;
}

const struct fsa_process_info *
fsv_trace_get_process(const FsvTrace *trace, guint index)
{
	g_return_val_if_fail(index < trace->processes->len, NULL);
	return &g_array_index(trace->processes, struct fsa_process_info, index);
}

const struct fsa_process_info *
fsv_trace_find_process(const FsvTrace *trace, guint32 process_id)
{
	return find_process(trace, process_id);
}

const struct fsa_queue_info *
fsv_trace_find_queue(const FsvTrace *trace, guint64 hwqueue_handle)
{
	for (guint i = 0; i < trace->queues->len; i++)
		if (g_array_index(trace->queues, struct fsa_queue_info, i).hwqueue_handle ==
		    hwqueue_handle)
			return &g_array_index(trace->queues, struct fsa_queue_info, i);
	return NULL;
}

const struct fsa_context_info *
fsv_trace_find_context(const FsvTrace *trace, guint64 context_handle)
{
	for (guint i = 0; i < trace->contexts->len; i++)
		if (g_array_index(trace->contexts, struct fsa_context_info, i).context_handle ==
		    context_handle)
			return &g_array_index(trace->contexts, struct fsa_context_info, i);
	return NULL;
}

const struct fsa_engine_info *
fsv_trace_find_engine(const FsvTrace *trace, guint32 adapter_id, guint32 engine_id)
{
	for (guint i = 0; i < trace->engines->len; i++) {
		const struct fsa_engine_info *e =
		    &g_array_index(trace->engines, struct fsa_engine_info, i);

		if (e->adapter_id == adapter_id && e->engine_id == engine_id)
			return e;
	}
	return NULL;
}

bool
fsv_trace_ticks_to_ns(const FsvTrace *trace, guint32 adapter_id, guint64 ticks, guint64 *ns)
{
	for (guint i = 0; i < trace->clock_fits->len; i++) {
		const struct fsa_clock_fit *f =
		    &g_array_index(trace->clock_fits, struct fsa_clock_fit, i);
		double per_tick = f->ns_per_tick > 0.0 ? f->ns_per_tick
				  : f->nominal_hz > 0  ? 1e9 / (double) f->nominal_hz
						       : 0.0;

		if (f->adapter_id != adapter_id || per_tick <= 0.0)
			continue;
		*ns = (guint64) llround((double) ticks * per_tick);
		return true;
	}
	return false;
}

const struct fsa_fence_info *
fsv_trace_find_fence(const FsvTrace *trace, guint64 fence_global_handle)
{
	for (guint i = 0; i < trace->fences->len; i++)
		if (g_array_index(trace->fences, struct fsa_fence_info, i).fence_global_handle ==
		    fence_global_handle)
			return &g_array_index(trace->fences, struct fsa_fence_info, i);
	return NULL;
}

guint
fsv_trace_get_clock_fit_count(const FsvTrace *trace)
{
	return trace->clock_fits->len;
}

const struct fsa_clock_fit *
fsv_trace_get_clock_fit(const FsvTrace *trace, guint index)
{
	g_return_val_if_fail(index < trace->clock_fits->len, NULL);
	return &g_array_index(trace->clock_fits, struct fsa_clock_fit, index);
}

bool
fsv_trace_trace_to_gpu(const FsvTrace *trace, guint32 adapter_id, guint64 ns, guint64 *gpu_ts)
{
	for (guint i = 0; i < trace->clock_fits->len; i++) {
		const struct fsa_clock_fit *f =
		    &g_array_index(trace->clock_fits, struct fsa_clock_fit, i);
		double ticks;

		if (f->adapter_id != adapter_id || f->ns_per_tick <= 0.0)
			continue;
		/* Relative to the exact first pair: the difference is small enough for a double to
		 * keep every nanosecond, which absolute times near 2^60 ns are not. */
		ticks = (double) f->anchor_gpu_ts +
			(double) ((gint64) (ns - f->anchor_cpu_ns)) / f->ns_per_tick;
		*gpu_ts = ticks <= 0.0 ? 0 : (guint64) llround(ticks);
		return true;
	}
	return false;
}

const FsvLod *
_fsv_trace_get_op_lod(const FsvTrace *trace, guint32 row, guint lane)
{
	const FsvRow *r = &g_array_index(trace->rows, FsvRow, row);

	if (r->op_count == 0)
		return NULL;
	return _fsv_row_lanes_get_lod(trace->row_data[row].lanes, lane);
}

const FsvLod *
_fsv_trace_get_packet_lod(const FsvTrace *trace, guint32 row, guint lane)
{
	const FsvRow *r = &g_array_index(trace->rows, FsvRow, row);

	if (r->op_count != 0)
		return NULL;
	return _fsv_row_lanes_get_lod(trace->row_data[row].lanes, lane);
}

const FsvLod *
_fsv_trace_get_stack_lod(const FsvTrace *trace, guint32 row, guint first_lane)
{
	g_return_val_if_fail(row < trace->rows->len, NULL);
	return _fsv_row_lanes_get_stack_lod(trace->row_data[row].lanes, first_lane);
}

const FsvLod *
_fsv_trace_get_va_lod(const FsvTrace *trace, guint32 row, guint lane)
{
	if (lane >= FSV_VA_MAX_LANES || row >= trace->rows->len)
		return NULL;
	return trace->row_data[row].va_lods[lane];
}

const FsvLod *
_fsv_trace_get_marker_lod(const FsvTrace *trace, guint32 row, FsvMarkerLayer layer)
{
	g_return_val_if_fail(layer < FSV_MARKER_LAYER_COUNT, NULL);
	return trace->row_data[row].marker_lods[layer];
}

gsize
_fsv_trace_get_memory_size(const FsvTrace *trace)
{
	gsize size = trace->ops->len * sizeof(FsvOp) + trace->packets->len * sizeof(FsvPacket) +
		     trace->markers->len * sizeof(FsvMarker) +
		     trace->anomalies->len * sizeof(struct fsa_anomaly) +
		     trace->fence_values->len * sizeof(struct fsa_fence_value);

	for (guint r = 0; r < trace->rows->len; r++) {
		const RowData *d = &trace->row_data[r];

		size += (d->ops->len + d->packets->len + d->markers->len) * sizeof(guint32) +
			d->steps->len * sizeof(FsvFenceStep);
		size += _fsv_row_lanes_get_size(d->lanes);
		for (guint l = 0; l < FSV_VA_MAX_LANES; l++)
			if (d->va_lods[l])
				size += fsv_lod_get_size(d->va_lods[l]);
		for (int l = 0; l < FSV_MARKER_LAYER_COUNT; l++)
			if (d->marker_lods[l])
				size += fsv_lod_get_size(d->marker_lods[l]);
	}
	return size + (trace->ops->len + 1) * sizeof(guint32) * 2;
}
