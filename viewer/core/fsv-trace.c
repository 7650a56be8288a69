/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvTrace (fsv-trace.h) as stored (fsv-trace-storage.h): its accessors, which
 * read flat arrays whether they were just built (fsv-trace-build.c) or mapped from an index
 * file (fsv-index.c), the views derived from them, and the marker helpers of
 * fsv-trace-private.h. Descriptions for the details panel live in fsv-describe.c.
 */
#include "fsv-trace-storage.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "fencescope-tp-enums.h"

G_DEFINE_QUARK(fsv - trace - error - quark, fsv_trace_error)

#define FSV_TRACE_ARRAY_INFO(field, type, tag)                                                     \
	{tag, sizeof(type), G_STRUCT_OFFSET(FsvTrace, field), G_STRUCT_OFFSET(FsvTrace, n_##field)},
const FsvTraceArrayInfo _fsv_trace_arrays[] = {FSV_TRACE_ARRAYS(FSV_TRACE_ARRAY_INFO)};
#undef FSV_TRACE_ARRAY_INFO
const guint _fsv_trace_array_count = G_N_ELEMENTS(_fsv_trace_arrays);

FsvTrace *
_fsv_trace_new_empty(const char *path)
{
	FsvTrace *trace = g_new0(FsvTrace, 1);
	g_autofree char *clean = g_strdup(path);
	gsize len = strlen(clean);

	while (len > 1 && clean[len - 1] == '/')
		clean[--len] = '\0';
	trace->ref_count = 1;
	trace->path = g_strdup(path);
	trace->name = g_path_get_basename(clean);
	return trace;
}

static const char *
string_at(const FsvTrace *trace, guint64 offset)
{
	return offset < trace->n_strings ? trace->strings + offset : "";
}

void
_fsv_trace_derive(FsvTrace *trace)
{
	const FsvTraceScalars *sc = trace->scalars;

	trace->row_views = g_new0(FsvRow, MAX(trace->n_rows, 1));
	for (gsize r = 0; r < trace->n_rows; r++) {
		trace->row_views[r] = trace->rows[r].row;
		trace->row_views[r].label = (char *) string_at(trace, trace->rows[r].label);
		trace->row_views[r].sublabel = (char *) string_at(trace, trace->rows[r].sublabel);
	}
	trace->process_views = g_new0(struct fsa_process_info, MAX(trace->n_processes, 1));
	for (gsize i = 0; i < trace->n_processes; i++) {
		trace->process_views[i] = trace->processes[i].info;
		trace->process_views[i].name = string_at(trace, trace->processes[i].name);
	}
	trace->summary = sc->summary;
	trace->summary.runtime_version = string_at(trace, sc->runtime_version);
	trace->partial_error =
	    sc->partial_error == FSV_STRING_NONE ? NULL : string_at(trace, sc->partial_error);
	trace->lod_views = g_new0(FsvLod, MAX(trace->n_lods, 1));
	for (gsize i = 0; i < trace->n_lods; i++)
		_fsv_lod_init_view(&trace->lod_views[i], &trace->lods[i], trace->lod_items,
				   trace->lod_buckets);
	_fsv_trace_derive_counters(trace);
}

void
_fsv_trace_derive_counters(FsvTrace *trace)
{
	FsvCounters *c = &trace->counters;

	c->rows = trace->counter_rows;
	c->n_rows = trace->n_counter_rows;
	c->busy_begin = trace->busy_begin;
	c->busy_end = trace->busy_end;
	c->busy_before = trace->busy_before;
	c->n_busy = MIN(trace->n_busy_begin, MIN(trace->n_busy_end, trace->n_busy_before));
	c->depth_base = trace->depth_base;
	c->n_depth_base = trace->n_depth_base;
	c->depth_offset = trace->depth_offset;
	c->depth_value16 = trace->depth_value16;
	c->n_depth = MIN(trace->n_depth_offset, trace->n_depth_value16);
	c->depth_ns = trace->depth_ns;
	c->depth_value = trace->depth_value;
	c->n_depth_wide = MIN(trace->n_depth_ns, trace->n_depth_value);
	c->pyramid = trace->counter_pyramid;
	c->n_pyramid = trace->n_counter_pyramid;
	c->step_block_ns = trace->step_block_ns;
	c->n_step_block_ns = trace->n_step_block_ns;
}

const FsvCounters *
_fsv_trace_get_counters(const FsvTrace *trace)
{
	return &trace->counters;
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
	if (trace->mapping) {
		munmap(trace->mapping, trace->mapping_size);
	} else {
		for (guint i = 0; i < _fsv_trace_array_count; i++)
			g_free(*_fsv_trace_array_data(trace, &_fsv_trace_arrays[i]));
	}
	g_free(trace->row_views);
	g_free(trace->process_views);
	g_free(trace->lod_views);
	g_free(trace->path);
	g_free(trace->name);
	g_free(trace);
}

guint8
_fsv_fence_object_of(const struct fsa_fence_info *fences, gsize n_fences,
		     const struct fsa_cross_open *xopens, gsize n_xopens, guint64 fence,
		     guint32 adapter_id)
{
	const struct fsa_fence_info *f = NULL;

	for (gsize i = 0; i < n_fences && !f; i++)
		if (fences[i].fence_global_handle == fence)
			f = &fences[i];
	for (gsize i = 0; i < n_xopens; i++) {
		const struct fsa_cross_open *o = &xopens[i];

		if (o->fence_handle != fence)
			continue;
		if (o->adapter_id == adapter_id)
			return o->opened_as;
		if (o->creator_adapter_id == adapter_id)
			return o->created_as;
	}
	return f && f->adapter_id == adapter_id ? f->fence_object : FSTP_FENCE_OBJECT_NATIVE;
}

guint8
fsv_trace_get_fence_object(const FsvTrace *trace, guint64 fence, guint32 adapter_id)
{
	return _fsv_fence_object_of(trace->fences, trace->n_fences, trace->xopens, trace->n_xopens,
				    fence, adapter_id);
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
	return trace->scalars->begin_ns;
}

guint64
fsv_trace_get_end_ns(const FsvTrace *trace)
{
	return trace->scalars->end_ns;
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
		/* On the right clock but without a single clock pair for an adapter whose log
		 * entries were read: recorded at --loglevel INFO (clock_correlation is DEBUG), the
		 * model placed those boxes at their reads (docs/analyzer.md "GPU time"). */
		if (trace->summary.anomaly_counts[FSA_ANOM_NO_CLOCK_CORRELATION] > 0)
			return "GPU times not placed: the trace has no clock_correlation events "
			       "(DEBUG: recorded with --loglevel INFO?); GPU boxes end at their "
			       "log "
			       "read";
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
	return &trace->scalars->stats;
}

guint
fsv_trace_get_row_count(const FsvTrace *trace)
{
	return (guint) trace->n_rows;
}

const FsvRow *
fsv_trace_get_row(const FsvTrace *trace, guint32 row)
{
	g_return_val_if_fail(row < trace->n_rows, NULL);
	return &trace->row_views[row];
}

/* KEYS (sorted by key): the row of KEY, FSV_INDEX_NONE when none. */
static guint32
find_row_key(const FsvRowKey *keys, gsize n, guint64 key)
{
	gsize lo = 0, hi = n;

	while (lo < hi) {
		gsize mid = lo + (hi - lo) / 2;

		if (keys[mid].key == key)
			return keys[mid].row;
		if (keys[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FSV_INDEX_NONE;
}

guint32
fsv_trace_find_queue_row(const FsvTrace *trace, guint64 hwqueue_handle)
{
	return find_row_key(trace->queue_rows, trace->n_queue_rows, hwqueue_handle);
}

guint32
fsv_trace_find_fence_row(const FsvTrace *trace, guint64 fence_global_handle)
{
	return find_row_key(trace->fence_rows, trace->n_fence_rows, fence_global_handle);
}

guint32
fsv_trace_find_va_row(const FsvTrace *trace, guint32 process_id, guint32 adapter_id)
{
	return find_row_key(trace->va_rows, trace->n_va_rows,
			    (guint64) process_id << 32 | adapter_id);
}

guint32
fsv_trace_find_xfence_row(const FsvTrace *trace, guint64 fence, guint32 adapter_id)
{
	gsize lo = 0, hi = trace->n_xfence_rows;

	while (lo < hi) {
		gsize mid = lo + (hi - lo) / 2;
		const FsvXfenceRow *x = &trace->xfence_rows[mid];

		if (x->fence_global_handle == fence && x->adapter_id == adapter_id)
			return x->row;
		if (x->fence_global_handle < fence ||
		    (x->fence_global_handle == fence && x->adapter_id < adapter_id))
			lo = mid + 1;
		else
			hi = mid;
	}
	return FSV_INDEX_NONE;
}

const struct fsa_va_space_info *
fsv_trace_find_va_space(const FsvTrace *trace, guint32 process_id, guint32 adapter_id)
{
	for (gsize i = 0; i < trace->n_va_spaces; i++) {
		const struct fsa_va_space_info *v = &trace->va_spaces[i];

		if (v->process_id == process_id && v->adapter_id == adapter_id)
			return v;
	}
	return NULL;
}

guint
fsv_trace_get_op_count(const FsvTrace *trace)
{
	return (guint) trace->n_ops;
}

const FsvOp *
fsv_trace_get_op(const FsvTrace *trace, guint32 op)
{
	g_return_val_if_fail(op < trace->n_ops, NULL);
	return &trace->ops[op];
}

guint32
fsv_trace_find_op_by_id(const FsvTrace *trace, guint64 op_id)
{
	gsize lo = 0, hi = trace->n_ops;

	while (lo < hi) {
		gsize mid = lo + (hi - lo) / 2;
		guint64 id = trace->ops[mid].id;

		if (id == op_id)
			return (guint32) mid;
		if (id < op_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FSV_INDEX_NONE;
}

const guint32 *
fsv_trace_get_row_ops(const FsvTrace *trace, guint32 row, guint *n_ops)
{
	*n_ops = 0;
	g_return_val_if_fail(row < trace->n_rows, NULL);
	*n_ops = trace->row_data[row].n_ops;
	return trace->row_ops + trace->row_data[row].ops_start;
}

guint
fsv_trace_get_packet_count(const FsvTrace *trace)
{
	return (guint) trace->n_packets;
}

const FsvPacket *
fsv_trace_get_packet(const FsvTrace *trace, guint32 packet)
{
	g_return_val_if_fail(packet < trace->n_packets, NULL);
	return &trace->packets[packet];
}

const guint32 *
fsv_trace_get_row_packets(const FsvTrace *trace, guint32 row, guint *n_packets)
{
	*n_packets = 0;
	g_return_val_if_fail(row < trace->n_rows, NULL);
	*n_packets = trace->row_data[row].n_packets;
	return trace->row_packets + trace->row_data[row].packets_start;
}

guint
fsv_trace_get_marker_count(const FsvTrace *trace)
{
	return (guint) trace->n_markers;
}

const FsvMarker *
fsv_trace_get_marker(const FsvTrace *trace, guint32 marker)
{
	g_return_val_if_fail(marker < trace->n_markers, NULL);
	return &trace->markers[marker];
}

const guint32 *
fsv_trace_get_row_markers(const FsvTrace *trace, guint32 row, guint *n_markers)
{
	*n_markers = 0;
	g_return_val_if_fail(row < trace->n_rows, NULL);
	*n_markers = trace->row_data[row].n_markers;
	return trace->row_markers + trace->row_data[row].markers_start;
}

guint
fsv_trace_get_loss_count(const FsvTrace *trace)
{
	return (guint) trace->n_losses;
}

const FsvLoss *
fsv_trace_get_loss(const FsvTrace *trace, guint32 loss)
{
	g_return_val_if_fail(loss < trace->n_losses, NULL);
	return &trace->losses[loss];
}

const FsvFenceStep *
fsv_trace_get_fence_steps(const FsvTrace *trace, guint32 row, guint *n_steps)
{
	*n_steps = 0;
	g_return_val_if_fail(row < trace->n_rows, NULL);
	*n_steps = trace->row_data[row].n_steps;
	return trace->steps + trace->row_data[row].steps_start;
}

const guint32 *
fsv_trace_get_op_edges(const FsvTrace *trace, guint32 op, guint *n)
{
	*n = 0;
	g_return_val_if_fail(op < trace->n_ops, NULL);
	*n = trace->edge_start[op + 1] - trace->edge_start[op];
	return trace->edge_ops + trace->edge_start[op];
}

guint
fsv_trace_get_anomaly_count(const FsvTrace *trace)
{
	return (guint) trace->n_anomalies;
}

const struct fsa_anomaly *
fsv_trace_get_anomaly(const FsvTrace *trace, guint32 anomaly)
{
	g_return_val_if_fail(anomaly < trace->n_anomalies, NULL);
	return &trace->anomalies[anomaly];
}

guint
fsv_trace_get_process_count(const FsvTrace *trace)
{
	return (guint) trace->n_processes;
}

const struct fsa_process_info *
fsv_trace_get_process(const FsvTrace *trace, guint index)
{
	g_return_val_if_fail(index < trace->n_processes, NULL);
	return &trace->process_views[index];
}

const struct fsa_process_info *
fsv_trace_find_process(const FsvTrace *trace, guint32 process_id)
{
	for (gsize i = 0; i < trace->n_processes; i++)
		if (trace->process_views[i].process_id == process_id)
			return &trace->process_views[i];
	return NULL;
}

guint
fsv_trace_get_queue_count(const FsvTrace *trace)
{
	return (guint) trace->n_queues;
}

const struct fsa_queue_info *
fsv_trace_get_queue(const FsvTrace *trace, guint index)
{
	g_return_val_if_fail(index < trace->n_queues, NULL);
	return &trace->queues[index];
}

const struct fsa_queue_info *
fsv_trace_find_queue(const FsvTrace *trace, guint64 hwqueue_handle)
{
	for (gsize i = 0; i < trace->n_queues; i++)
		if (trace->queues[i].hwqueue_handle == hwqueue_handle)
			return &trace->queues[i];
	return NULL;
}

const struct fsa_context_info *
fsv_trace_find_context(const FsvTrace *trace, guint64 context_handle)
{
	for (gsize i = 0; i < trace->n_contexts; i++)
		if (trace->contexts[i].context_handle == context_handle)
			return &trace->contexts[i];
	return NULL;
}

const struct fsa_engine_info *
fsv_trace_find_engine(const FsvTrace *trace, guint32 adapter_id, guint32 engine_id)
{
	for (gsize i = 0; i < trace->n_engines; i++) {
		const struct fsa_engine_info *e = &trace->engines[i];

		if (e->adapter_id == adapter_id && e->engine_id == engine_id)
			return e;
	}
	return NULL;
}

bool
fsv_trace_ticks_to_ns(const FsvTrace *trace, guint32 adapter_id, guint64 ticks, guint64 *ns)
{
	for (gsize i = 0; i < trace->n_clock_fits; i++) {
		const struct fsa_clock_fit *f = &trace->clock_fits[i];
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
	for (gsize i = 0; i < trace->n_fences; i++)
		if (trace->fences[i].fence_global_handle == fence_global_handle)
			return &trace->fences[i];
	return NULL;
}

guint
fsv_trace_get_clock_fit_count(const FsvTrace *trace)
{
	return (guint) trace->n_clock_fits;
}

const struct fsa_clock_fit *
fsv_trace_get_clock_fit(const FsvTrace *trace, guint index)
{
	g_return_val_if_fail(index < trace->n_clock_fits, NULL);
	return &trace->clock_fits[index];
}

bool
fsv_trace_trace_to_gpu(const FsvTrace *trace, guint32 adapter_id, guint64 ns, guint64 *gpu_ts)
{
	for (gsize i = 0; i < trace->n_clock_fits; i++) {
		const struct fsa_clock_fit *f = &trace->clock_fits[i];
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

guint8
_fsv_trace_get_op_kind(const FsvTrace *trace, guint32 op)
{
	g_return_val_if_fail(op < trace->n_op_kinds, 0);
	return trace->op_kinds[op];
}

const FsvPacketStyle *
_fsv_trace_get_packet_style(const FsvTrace *trace, guint32 packet)
{
	g_return_val_if_fail(packet < trace->n_packet_styles, NULL);
	return &trace->packet_styles[packet];
}

const FsvMarkerStyle *
_fsv_trace_get_marker_style(const FsvTrace *trace, guint32 marker)
{
	g_return_val_if_fail(marker < trace->n_marker_styles, NULL);
	return &trace->marker_styles[marker];
}

void
_fsv_trace_prefetch_op_kind(const FsvTrace *trace, guint32 op)
{
	if (op < trace->n_op_kinds)
		__builtin_prefetch(&trace->op_kinds[op]);
}

void
_fsv_trace_prefetch_packet_style(const FsvTrace *trace, guint32 packet)
{
	if (packet < trace->n_packet_styles)
		__builtin_prefetch(&trace->packet_styles[packet]);
}

void
_fsv_trace_prefetch_marker_style(const FsvTrace *trace, guint32 marker)
{
	if (marker < trace->n_marker_styles)
		__builtin_prefetch(&trace->marker_styles[marker]);
}

FsvMarkerStyle
_fsv_marker_style_of(const FsvMarker *m)
{
	return (FsvMarkerStyle){
	    .kind = m->kind,
	    .flags = (guint8) ((m->is_open ? FSV_MARKER_STYLE_OPEN : 0) |
			       (m->is_missed ? FSV_MARKER_STYLE_MISSED : 0) |
			       (m->code2 == 65536 ? FSV_MARKER_STYLE_64K : 0)),
	    .lane = m->lane,
	    .code = (gint8) CLAMP(m->code, G_MININT8, G_MAXINT8),
	};
}

void
_fsv_marker_from_style(const FsvMarkerStyle *style, guint64 begin_ns, guint64 end_ns,
		       FsvMarker *out)
{
	memset(out, 0, sizeof(*out));
	out->begin_ns = begin_ns;
	out->end_ns = end_ns;
	out->kind = style->kind;
	out->is_open = (style->flags & FSV_MARKER_STYLE_OPEN) != 0;
	out->is_missed = (style->flags & FSV_MARKER_STYLE_MISSED) != 0;
	out->lane = style->lane;
	out->code = style->code;
	out->code2 = style->flags & FSV_MARKER_STYLE_64K ? 65536 : 0;
}

/* The LOD at index I, NULL when it has no items. */
static const FsvLod *
lod_at(const FsvTrace *trace, guint32 i)
{
	if (i >= trace->n_lods || trace->lods[i].n_items == 0)
		return NULL;
	return &trace->lod_views[i];
}

const FsvLod *
_fsv_trace_get_op_lod(const FsvTrace *trace, guint32 row, guint lane)
{
	const FsvRowData *d;

	g_return_val_if_fail(row < trace->n_rows, NULL);
	d = &trace->row_data[row];
	if (lane >= d->n_lane_lods || d->n_ops == 0)
		return NULL;
	return lod_at(trace, d->lane_lods + lane);
}

const FsvLod *
_fsv_trace_get_packet_lod(const FsvTrace *trace, guint32 row, guint lane)
{
	const FsvRowData *d;

	g_return_val_if_fail(row < trace->n_rows, NULL);
	d = &trace->row_data[row];
	if (lane >= d->n_lane_lods || d->n_ops != 0)
		return NULL;
	return lod_at(trace, d->lane_lods + lane);
}

const FsvLod *
_fsv_trace_get_stack_lod(const FsvTrace *trace, guint32 row, guint first_lane, bool *is_union)
{
	const FsvRowData *d;

	*is_union = false;
	g_return_val_if_fail(row < trace->n_rows, NULL);
	d = &trace->row_data[row];
	for (guint h = 0; h < 2; h++)
		if (d->stack_lods[h] != FSV_INDEX_NONE && d->stack_first[h] == first_lane) {
			*is_union = d->stack_is_union[h] != 0;
			return lod_at(trace, d->stack_lods[h]);
		}
	return NULL;
}

const FsvLod *
_fsv_trace_get_va_lod(const FsvTrace *trace, guint32 row, guint lane)
{
	const FsvRowData *d;

	if (row >= trace->n_rows)
		return NULL;
	d = &trace->row_data[row];
	if (lane >= d->n_va_lods)
		return NULL;
	return lod_at(trace, d->va_lods + lane);
}

const FsvLod *
_fsv_trace_get_marker_lod(const FsvTrace *trace, guint32 row, FsvMarkerLayer layer)
{
	g_return_val_if_fail(layer < FSV_MARKER_LAYER_COUNT, NULL);
	g_return_val_if_fail(row < trace->n_rows, NULL);
	return lod_at(trace, trace->row_data[row].marker_lods[layer]);
}

gsize
_fsv_trace_get_memory_size(const FsvTrace *trace)
{
	gsize size = 0;

	for (guint i = 0; i < _fsv_trace_array_count; i++)
		size += _fsv_trace_arrays[i].element_size *
			*_fsv_trace_array_count_of((FsvTrace *) trace, &_fsv_trace_arrays[i]);
	return size;
}

bool
_fsv_trace_find_fault_recovery(const FsvTrace *trace, guint32 marker, FsvFaultRecovery *rec)
{
	const FsvMarker *f;
	guint64 tdr_begin = FSV_TIME_NONE, tdr_end = FSV_TIME_NONE;
	bool tdr_is_page_fault = false;

	rec->tdr = rec->engine_reset = rec->adapter_reset = FSV_INDEX_NONE;
	rec->context_error = rec->device_lost = FSV_INDEX_NONE;
	g_return_val_if_fail(marker < trace->n_markers, false);
	f = &trace->markers[marker];
	/* TDR-06: the recovery of its engine that began at or after it; one for a page fault
	 * first, else the earliest. */
	for (guint32 i = 0; i < trace->n_markers; i++) {
		const FsvMarker *m = &trace->markers[i];
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
	for (guint32 i = 0; i < trace->n_markers; i++) {
		const FsvMarker *m = &trace->markers[i];
		bool in_tdr = rec->tdr != FSV_INDEX_NONE && m->begin_ns >= tdr_begin &&
			      m->begin_ns <= tdr_end;

		if (m->kind == FSA_MARK_ENGINE_RESET && in_tdr && m->adapter_id == f->adapter_id &&
		    m->engine_id == trace->markers[rec->tdr].engine_id &&
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
	return kind < 64 && (trace->scalars->marker_kinds >> kind & 1);
}

bool
_fsv_trace_has_paging_packets(const FsvTrace *trace)
{
	return trace->scalars->has_paging_packets;
}

bool
_fsv_trace_has_resubmitted_pieces(const FsvTrace *trace)
{
	return trace->scalars->has_resubmitted_pieces;
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
