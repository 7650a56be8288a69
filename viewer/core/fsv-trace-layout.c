/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the rows of an FsvTrace being built (fsv-trace-build-private.h), in display
 * order: adapters with their power and display rows, engines with their queues and
 * cross-adapter fence rows, queues the trace never created, CPU processes, GPU VA spaces,
 * fences; and which row each marker goes on. Called once the model is finished and copied, so
 * every queue, fence, process and marker is known.
 */
#include "fsv-trace-build-private.h"
#include "fsv-frames-private.h"

#include <inttypes.h>
#include <string.h>

#include "fencescope-tp-enums.h"

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
find_process(const TraceBuild *build, guint32 pid)
{
	for (guint i = 0; i < build->processes->len; i++) {
		const struct fsa_process_info *p =
		    &g_array_index(build->processes, struct fsa_process_info, i);

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
add_row(TraceBuild *build, FsvRowKind kind, guint32 parent, char *label, char *sublabel)
{
	FsvRow row = {0};

	row.kind = kind;
	row.parent = parent;
	row.depth =
	    parent == FSV_INDEX_NONE ? 0 : g_array_index(build->rows, FsvRow, parent).depth + 1;
	row.label = label;
	row.sublabel = sublabel ? sublabel : g_strdup("");
	row.adapter_id = row.engine_id = row.process_id = row.source_id = UINT32_MAX;
	row.lane_count = 1;
	row.first_lower_lane = 1;
	g_array_append_val(build->rows, row);
	return build->rows->len - 1;
}

static bool
has_packets_on(const TraceBuild *build, guint32 adapter_id, guint32 engine_id)
{
	for (guint i = 0; i < build->packets->len; i++) {
		const FsvPacket *p = &g_array_index(build->packets, FsvPacket, i);

		if (p->adapter_id == adapter_id && p->engine_id == engine_id)
			return true;
	}
	return false;
}

/* Issue 15 §4: a queue's depth row, right after QUEUE_ROW, under the same parent. Its handles
 * stay 0: what matches rows by queue must keep finding the queue row only. */
static void
add_depth_row(TraceBuild *build, guint32 queue_row)
{
	FsvRow *q = _fsv_build_row_at(build, queue_row);
	guint32 parent = q->parent, adapter_id = q->adapter_id, engine_id = q->engine_id;
	guint32 process_id = q->process_id;
	guint32 d = add_row(build, FSV_ROW_DEPTH, parent, g_strdup("depth"),
			    g_strdup("submitted − completed"));

	_fsv_build_row_at(build, d)->adapter_id = adapter_id;
	_fsv_build_row_at(build, d)->engine_id = engine_id;
	_fsv_build_row_at(build, d)->process_id = process_id;
}

/* Adapters and engines named anywhere (queues, packets, markers), sorted. */
static int
compare_u64(const void *a, const void *b)
{
	guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

	return x < y ? -1 : x > y;
}

guint32
_fsv_build_find_engine_row(const TraceBuild *build, guint32 adapter_id, guint32 engine_id)
{
	for (guint32 r = 0; r < build->rows->len; r++) {
		const FsvRow *row = &g_array_index(build->rows, FsvRow, r);

		if (row->kind == FSV_ROW_ENGINE && row->adapter_id == adapter_id &&
		    row->engine_id == engine_id)
			return r;
	}
	return FSV_INDEX_NONE;
}

static guint32
find_adapter_row(const TraceBuild *build, guint32 adapter_id)
{
	for (guint32 r = 0; r < build->rows->len; r++) {
		const FsvRow *row = &g_array_index(build->rows, FsvRow, r);

		if (row->kind == FSV_ROW_ADAPTER && row->adapter_id == adapter_id)
			return r;
	}
	return FSV_INDEX_NONE;
}

/* Whether the trace has a marker of KIND on that adapter (and engine, unless UINT32_MAX). */
static bool
has_marker_of(const TraceBuild *build, guint8 kind, guint32 adapter_id, guint32 engine_id)
{
	if (!_fsv_build_has_marker_kind(build, kind))
		return false;
	for (guint i = 0; i < build->markers->len; i++) {
		const FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);

		if (m->kind == kind && m->adapter_id == adapter_id &&
		    (engine_id == UINT32_MAX || m->engine_id == engine_id))
			return true;
	}
	return false;
}

static guint32
find_power_row(const TraceBuild *build, FsvRowKind kind, guint32 adapter_id, guint32 engine_id)
{
	for (guint32 r = 0; r < build->rows->len; r++) {
		const FsvRow *row = &g_array_index(build->rows, FsvRow, r);

		if (row->kind == kind && row->adapter_id == adapter_id &&
		    (kind == FSV_ROW_DEVICE_POWER || row->engine_id == engine_id))
			return r;
	}
	return FSV_INDEX_NONE;
}

/* PRE-13: a display row per display (VidPN source) of the adapter that has vsyncs or flips,
 * in source order. */
static void
add_display_rows(TraceBuild *build, guint32 adapter_row, guint32 adapter_id)
{
	guint64 seen = 0; /* sources 0..63 */
	g_autoptr(GArray) more = g_array_new(FALSE, FALSE, sizeof(guint64));

	for (guint i = 0; i < build->markers->len; i++) {
		const FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);
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
		r = add_row(build, FSV_ROW_DISPLAY, adapter_row,
			    g_strdup_printf("Display %" PRIu32, source), g_strdup("vsync · flips"));
		_fsv_build_row_at(build, r)->adapter_id = adapter_id;
		_fsv_build_row_at(build, r)->source_id = source;
		/* Issue 16 §3: its frames right under it (fsv-frames.h). */
		if (_fsv_build_display_has_frames(build, adapter_id, source)) {
			r = add_row(build, FSV_ROW_FRAMES, adapter_row, g_strdup("Frames"),
				    g_strdup(""));
			_fsv_build_row_at(build, r)->adapter_id = adapter_id;
			_fsv_build_row_at(build, r)->source_id = source;
		}
	}
}

static guint32
find_display_row(const TraceBuild *build, guint32 adapter_id, guint32 source_id)
{
	for (guint32 r = 0; r < build->rows->len; r++) {
		const FsvRow *row = &g_array_index(build->rows, FsvRow, r);

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
fence_adapters(const TraceBuild *build, const struct fsa_fence_info *f, GArray *adapters)
{
	g_array_set_size(adapters, 0);
	adapter_set_add(adapters, f->adapter_id);
	for (guint i = 0; i < build->xopens->len; i++) {
		const struct fsa_cross_open *o =
		    &g_array_index(build->xopens, struct fsa_cross_open, i);

		if (o->fence_handle == f->fence_global_handle) {
			adapter_set_add(adapters, o->adapter_id);
			adapter_set_add(adapters, o->creator_adapter_id);
		}
	}
	/* Propagations of a fence the trace never opened elsewhere (one without its
	 * fence_cross_adapter_open): their adapters. */
	if (adapters->len < 2 && f->propagation_count > 0)
		for (guint i = 0; i < build->markers->len; i++) {
			const FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);

			if (m->kind != FSA_MARK_FENCE_PROPAGATION ||
			    m->other_handle != f->fence_global_handle)
				continue;
			adapter_set_add(adapters, m->adapter_id);
			adapter_set_add(adapters, (guint32) m->code);
		}
}

static bool
fence_is_cross_adapter(const TraceBuild *build, const struct fsa_fence_info *f, GArray *adapters)
{
	if (f->fence_global_handle == 0 ||
	    (!f->is_cross_adapter && f->cross_open_count == 0 && f->propagation_count == 0))
		return false;
	fence_adapters(build, f, adapters);
	return f->is_cross_adapter || adapters->len > 1;
}

/* XAD-03, XAD-10: what a fence is on an adapter (fsv_trace_get_fence_object). */
static guint8
build_fence_object(const TraceBuild *build, guint64 fence, guint32 adapter_id)
{
	return _fsv_fence_object_of((const struct fsa_fence_info *) build->fences->data,
				    build->fences->len,
				    (const struct fsa_cross_open *) build->xopens->data,
				    build->xopens->len, fence, adapter_id);
}

/* XAD-03: a row under ADAPTER_ROW for each cross-adapter fence living on that adapter. */
static void
add_xfence_rows(TraceBuild *build, guint32 adapter_row, guint32 adapter_id)
{
	g_autoptr(GArray) adapters = g_array_new(FALSE, FALSE, sizeof(guint32));

	for (guint i = 0; i < build->fences->len; i++) {
		const struct fsa_fence_info *f =
		    &g_array_index(build->fences, struct fsa_fence_info, i);
		bool here = false;
		guint32 r, pair[2];
		GArray *rows;

		if (!fence_is_cross_adapter(build, f, adapters))
			continue;
		for (guint k = 0; k < adapters->len && !here; k++)
			here = g_array_index(adapters, guint32, k) == adapter_id;
		if (!here || _fsv_build_find_xfence_row(build, f->fence_global_handle,
							adapter_id) != FSV_INDEX_NONE)
			continue;
		r = add_row(
		    build, FSV_ROW_XFENCE, adapter_row,
		    g_strdup_printf("Fence 0x%" PRIx64, f->fence_global_handle),
		    g_strdup_printf("cross-adapter · %s here%s",
				    build_fence_object(build, f->fence_global_handle, adapter_id) ==
					    FSTP_FENCE_OBJECT_MONITORED
					? "monitored"
					: "native",
				    f->adapter_id == adapter_id ? " · creator" : ""));
		_fsv_build_row_at(build, r)->adapter_id = adapter_id;
		_fsv_build_row_at(build, r)->process_id = f->creator_process_id;
		_fsv_build_row_at(build, r)->fence_global_handle = f->fence_global_handle;
		rows = g_hash_table_lookup(build->xfence_rows, &f->fence_global_handle);
		if (!rows) {
			rows = g_array_new(FALSE, FALSE, sizeof(guint32));
			g_hash_table_insert(build->xfence_rows,
					    g_memdup2(&f->fence_global_handle, sizeof(guint64)),
					    rows);
		}
		pair[0] = adapter_id;
		pair[1] = r;
		g_array_append_vals(rows, pair, 2);
	}
}

guint32
_fsv_build_find_xfence_row(const TraceBuild *build, guint64 fence, guint32 adapter_id)
{
	GArray *rows = g_hash_table_lookup(build->xfence_rows, &fence);

	for (guint i = 0; rows && i + 1 < rows->len; i += 2)
		if (g_array_index(rows, guint32, i) == adapter_id)
			return g_array_index(rows, guint32, i + 1);
	return FSV_INDEX_NONE;
}

guint32
_fsv_build_find_va_row(const TraceBuild *build, guint32 process_id, guint32 adapter_id)
{
	guint64 key = (guint64) process_id << 32 | adapter_id;
	gpointer v = g_hash_table_lookup(build->va_rows, &key);

	return v ? GPOINTER_TO_UINT(v) - 1 : FSV_INDEX_NONE;
}

static char *
process_label(const TraceBuild *build, guint32 pid)
{
	const struct fsa_process_info *p = find_process(build, pid);

	if (p && p->name && p->name[0])
		return g_strdup_printf("pid %" PRIu32 " %s", pid, p->name);
	return g_strdup_printf("pid %" PRIu32, pid);
}

/* The (adapter, engine) pairs the trace names (queues, packets, markers), sorted, with
 * repeats; engine UINT32_MAX for an adapter's own markers (or a queue's unknown engine). */
static GArray *
collect_engines(const TraceBuild *build)
{
	GArray *engines = g_array_new(FALSE, FALSE, sizeof(guint64));

	for (guint i = 0; i < build->queues->len; i++) {
		const struct fsa_queue_info *q =
		    &g_array_index(build->queues, struct fsa_queue_info, i);
		guint64 key = (guint64) q->adapter_id << 32 | q->engine_id;

		g_array_append_val(engines, key);
	}
	for (guint i = 0; i < build->packets->len; i++) {
		const FsvPacket *p = &g_array_index(build->packets, FsvPacket, i);
		guint64 key = (guint64) p->adapter_id << 32 | p->engine_id;

		if (engines->len == 0 || g_array_index(engines, guint64, engines->len - 1) != key)
			g_array_append_val(engines, key);
	}
	for (guint i = 0; i < build->markers->len; i++) {
		const FsvMarker *m = &g_array_index(build->markers, FsvMarker, i);

		if (m->adapter_id != UINT32_MAX) {
			guint64 key = (guint64) m->adapter_id << 32 | m->engine_id;

			if (m->engine_id == UINT32_MAX ||
			    _fsv_marker_display_source(m) != UINT32_MAX)
				key = (guint64) m->adapter_id << 32 | UINT32_MAX;
			g_array_append_val(engines, key);
		}
	}
	g_array_sort(engines, (GCompareFunc) compare_u64);
	return engines;
}

/* An adapter's row, and its D-state and display rows. */
static guint32
add_adapter_rows(TraceBuild *build, guint32 adapter_id)
{
	guint32 adapter_row = add_row(build, FSV_ROW_ADAPTER, FSV_INDEX_NONE,
				      g_strdup_printf("Adapter %" PRIu32, adapter_id), NULL);

	_fsv_build_row_at(build, adapter_row)->adapter_id = adapter_id;
	/* DST-01: the adapter's D-state, when the trace has D3 ranges for it. */
	if (has_marker_of(build, FSA_MARK_DEVICE_D3, adapter_id, UINT32_MAX)) {
		guint32 p = add_row(build, FSV_ROW_DEVICE_POWER, adapter_row, g_strdup("D-state"),
				    g_strdup("D0 · D3"));

		_fsv_build_row_at(build, p)->adapter_id = adapter_id;
	}
	add_display_rows(build, adapter_row, adapter_id);
	return adapter_row;
}

/* An engine's row under ADAPTER_ROW, its F-state row, and a row per queue of the engine. */
static void
add_engine_rows(TraceBuild *build, guint32 adapter_row, guint32 adapter_id, guint32 engine_id)
{
	const char *type = NULL;
	guint32 engine_row;

	for (guint q = 0; q < build->queues->len && !type; q++) {
		const struct fsa_queue_info *qi =
		    &g_array_index(build->queues, struct fsa_queue_info, q);

		if (qi->adapter_id == adapter_id && qi->engine_id == engine_id)
			type = engine_type_name(qi->engine_type);
	}
	engine_row = add_row(build, FSV_ROW_ENGINE, adapter_row,
			     type ? g_strdup_printf("Engine %" PRIu32 " · %s", engine_id, type)
				  : g_strdup_printf("Engine %" PRIu32, engine_id),
			     NULL);
	_fsv_build_row_at(build, engine_row)->adapter_id = adapter_id;
	_fsv_build_row_at(build, engine_row)->engine_id = engine_id;
	/* FST-03: the engine's F-state, when the trace has F1 ranges for it. */
	if (has_marker_of(build, FSA_MARK_ENGINE_F1, adapter_id, engine_id)) {
		guint32 p = add_row(build, FSV_ROW_ENGINE_POWER, engine_row, g_strdup("F-state"),
				    g_strdup("F0 · F1"));

		_fsv_build_row_at(build, p)->adapter_id = adapter_id;
		_fsv_build_row_at(build, p)->engine_id = engine_id;
	}
	/* Issue 15 §4: the engine's busy fraction, when the trace has its packets. */
	if (has_packets_on(build, adapter_id, engine_id)) {
		guint32 b = add_row(build, FSV_ROW_BUSY, engine_row, g_strdup("busy"),
				    g_strdup("share of time a packet ran"));

		_fsv_build_row_at(build, b)->adapter_id = adapter_id;
		_fsv_build_row_at(build, b)->engine_id = engine_id;
	}
	for (guint q = 0; q < build->queues->len; q++) {
		const struct fsa_queue_info *qi =
		    &g_array_index(build->queues, struct fsa_queue_info, q);
		g_autofree char *proc = NULL;
		guint32 r;

		if (qi->adapter_id != adapter_id || qi->engine_id != engine_id)
			continue;
		proc = process_label(build, qi->process_id);
		r = add_row(build, FSV_ROW_QUEUE, engine_row,
			    g_strdup_printf("HWQueue 0x%" PRIx64, qi->hwqueue_handle),
			    /* The mode first: a narrow label column cuts the end, and the
			     * context handle is the least telling part. */
			    g_strdup_printf("%s · %s · ctx 0x%" PRIx64,
					    qi->is_user_mode ? "user mode" : "kernel mode", proc,
					    qi->context_handle));
		_fsv_build_row_at(build, r)->adapter_id = adapter_id;
		_fsv_build_row_at(build, r)->engine_id = engine_id;
		_fsv_build_row_at(build, r)->process_id = qi->process_id;
		_fsv_build_row_at(build, r)->hwqueue_handle = qi->hwqueue_handle;
		_fsv_build_row_at(build, r)->context_handle = qi->context_handle;
		insert_row_key(build->queue_rows, qi->hwqueue_handle, r);
		add_depth_row(build, r);
	}
}

/* Adapters in id order, each with its engines and queues, closed by its cross-adapter fence
 * rows (XAD-03). */
static void
layout_adapters(TraceBuild *build)
{
	g_autoptr(GArray) engines = collect_engines(build);

	for (guint i = 0; i < engines->len; i++) {
		guint64 key = g_array_index(engines, guint64, i);
		guint32 adapter_id = (guint32) (key >> 32), engine_id = (guint32) key;
		guint32 adapter_row;

		if (i > 0 && g_array_index(engines, guint64, i - 1) == key)
			continue;
		adapter_row = find_adapter_row(build, adapter_id);
		/* XAD-03: the previous adapter's cross-adapter fences close its rows. */
		if (adapter_row == FSV_INDEX_NONE && build->rows->len > 0) {
			guint32 prev = find_adapter_row(
			    build, (guint32) (g_array_index(engines, guint64, i - 1) >> 32));

			if (prev != FSV_INDEX_NONE)
				add_xfence_rows(build, prev,
						_fsv_build_row_at(build, prev)->adapter_id);
		}
		if (adapter_row == FSV_INDEX_NONE)
			adapter_row = add_adapter_rows(build, adapter_id);
		if (engine_id != UINT32_MAX) /* else adapter-wide markers only */
			add_engine_rows(build, adapter_row, adapter_id, engine_id);
	}
	if (engines->len > 0) {
		guint32 last = find_adapter_row(
		    build, (guint32) (g_array_index(engines, guint64, engines->len - 1) >> 32));

		if (last != FSV_INDEX_NONE)
			add_xfence_rows(build, last, _fsv_build_row_at(build, last)->adapter_id);
	}
}

/* Queues the trace never created but ops name (an anomaly): a row each at the end, so their
 * boxes are not lost; then the CPU group with a row per process that has CPU ops. */
static void
layout_unknown_queues_and_cpu(TraceBuild *build)
{
	g_autoptr(GArray) cpu_pids = g_array_new(FALSE, FALSE, sizeof(guint64));
	guint32 cpu_group = FSV_INDEX_NONE;

	for (guint i = 0; i < build->ops->len; i++) {
		const FsvOp *o = &g_array_index(build->ops, FsvOp, i);

		if (o->source == FSA_SRC_CPU) {
			guint64 pid = o->process_id;

			g_array_append_val(cpu_pids, pid);
		} else if (!g_hash_table_contains(build->queue_rows, &o->hwqueue_handle)) {
			guint32 r = add_row(
			    build, FSV_ROW_QUEUE, FSV_INDEX_NONE,
			    g_strdup_printf("HWQueue 0x%" PRIx64 " (unknown)", o->hwqueue_handle),
			    process_label(build, o->process_id));

			_fsv_build_row_at(build, r)->hwqueue_handle = o->hwqueue_handle;
			_fsv_build_row_at(build, r)->process_id = o->process_id;
			insert_row_key(build->queue_rows, o->hwqueue_handle, r);
			add_depth_row(build, r);
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
			    add_row(build, FSV_ROW_CPU_GROUP, FSV_INDEX_NONE, g_strdup("CPU"),
				    g_strdup("waits and signals outside queues"));
		r = add_row(build, FSV_ROW_CPU_PROCESS, cpu_group, process_label(build, pid), NULL);
		_fsv_build_row_at(build, r)->process_id = pid;
	}
}

/* MMU-01: a row per GPU VA space (process, adapter), in the order the trace made them. */
static void
layout_va_spaces(TraceBuild *build)
{
	guint32 va_group = FSV_INDEX_NONE;

	for (guint i = 0; i < build->va_spaces->len; i++) {
		const struct fsa_va_space_info *v =
		    &g_array_index(build->va_spaces, struct fsa_va_space_info, i);
		guint64 key = (guint64) v->process_id << 32 | v->adapter_id;
		guint32 r;

		if (g_hash_table_contains(build->va_rows, &key))
			continue;
		if (va_group == FSV_INDEX_NONE)
			va_group =
			    add_row(build, FSV_ROW_VA_GROUP, FSV_INDEX_NONE, g_strdup("GPU VA"),
				    g_strdup("mappings per process and adapter"));
		r = add_row(build, FSV_ROW_VA_SPACE, va_group, process_label(build, v->process_id),
			    g_strdup_printf("VA space · adapter %" PRIu32, v->adapter_id));
		_fsv_build_row_at(build, r)->process_id = v->process_id;
		_fsv_build_row_at(build, r)->adapter_id = v->adapter_id;
		g_hash_table_insert(build->va_rows, g_memdup2(&key, sizeof(key)),
				    GUINT_TO_POINTER(r + 1));
	}
}

/* The fence group with a row per fence (its CurrentValue). */
static void
layout_fences(TraceBuild *build)
{
	guint32 fence_group = FSV_INDEX_NONE;

	for (guint i = 0; i < build->fences->len; i++) {
		const struct fsa_fence_info *f =
		    &g_array_index(build->fences, struct fsa_fence_info, i);
		guint32 r;

		if (f->fence_global_handle == 0 ||
		    g_hash_table_contains(build->fence_rows, &f->fence_global_handle))
			continue;
		if (fence_group == FSV_INDEX_NONE)
			fence_group = add_row(build, FSV_ROW_FENCE_GROUP, FSV_INDEX_NONE,
					      g_strdup("Fences"), g_strdup("CurrentValue"));
		r = add_row(build, FSV_ROW_FENCE, fence_group,
			    g_strdup_printf("Fence 0x%" PRIx64, f->fence_global_handle),
			    g_strdup_printf("%s%s%s", f->is_progress_fence ? "progress fence" : "",
					    f->is_progress_fence && f->is_shared ? " · " : "",
					    f->is_shared ? "shared" : ""));
		_fsv_build_row_at(build, r)->adapter_id = f->adapter_id;
		_fsv_build_row_at(build, r)->process_id = f->creator_process_id;
		_fsv_build_row_at(build, r)->fence_global_handle = f->fence_global_handle;
		insert_row_key(build->fence_rows, f->fence_global_handle, r);
	}
}

void
_fsv_build_layout_rows(TraceBuild *build)
{
	layout_adapters(build);
	layout_unknown_queues_and_cpu(build);
	layout_va_spaces(build);
	layout_fences(build);
	/* An empty trace still draws one row, so the empty timeline has a place to say so. */
	if (build->rows->len == 0 && (build->markers->len > 0 || build->losses->len > 0))
		add_row(build, FSV_ROW_ADAPTER, FSV_INDEX_NONE, g_strdup("Trace"), NULL);
}

guint32
_fsv_build_find_cpu_row(const TraceBuild *build, guint32 pid)
{
	for (guint32 r = 0; r < build->rows->len; r++) {
		const FsvRow *row = &g_array_index(build->rows, FsvRow, r);

		if (row->kind == FSV_ROW_CPU_PROCESS && row->process_id == pid)
			return r;
	}
	return FSV_INDEX_NONE;
}

/* The row a marker is drawn on: its queue, else its engine, else its adapter, else the
 * first row. */
guint32
_fsv_build_marker_row(const TraceBuild *build, const FsvMarker *m)
{
	guint32 r = FSV_INDEX_NONE;

	if (m->kind == FSA_MARK_ENGINE_F1)
		r = find_power_row(build, FSV_ROW_ENGINE_POWER, m->adapter_id, m->engine_id);
	else if (m->kind == FSA_MARK_PAGE_FAULT && m->engine_id != UINT32_MAX)
		/* MMU-14: the engine's failed translation, on the engine (not its packet's queue).
		 */
		r = _fsv_build_find_engine_row(build, m->adapter_id, m->engine_id);
	else if (m->kind == FSA_MARK_DEVICE_D3)
		r = find_power_row(build, FSV_ROW_DEVICE_POWER, m->adapter_id, UINT32_MAX);
	else if (_fsv_marker_display_source(m) != UINT32_MAX)
		r = find_display_row(build, m->adapter_id, _fsv_marker_display_source(m));
	else if (m->kind == FSA_MARK_VA_MAPPING || m->kind == FSA_MARK_VA_RESERVE ||
		 m->kind == FSA_MARK_VA_FREE)
		r = _fsv_build_find_va_row(build, m->process_id, m->adapter_id);
	else if (m->kind == FSA_MARK_FENCE_PROPAGATION)
		/* XAD-07: on the row of the adapter notified. */
		r = _fsv_build_find_xfence_row(build, m->other_handle, (guint32) m->code);
	else if (m->kind == FSA_MARK_FENCE_NOTIFICATION)
		r = _fsv_build_find_xfence_row(build, m->other_handle, m->adapter_id);
	if (r == FSV_INDEX_NONE && m->hwqueue_handle != 0)
		r = _fsv_build_find_queue_row(build, m->hwqueue_handle);
	if (r == FSV_INDEX_NONE && m->adapter_id != UINT32_MAX && m->engine_id != UINT32_MAX)
		r = _fsv_build_find_engine_row(build, m->adapter_id, m->engine_id);
	if (r == FSV_INDEX_NONE && m->adapter_id != UINT32_MAX)
		r = find_adapter_row(build, m->adapter_id);
	if (r == FSV_INDEX_NONE && build->rows->len > 0)
		r = 0;
	return r;
}

/* ---- Lookups while building ------------------------------------------------------------ */

guint32
_fsv_build_find_queue_row(const TraceBuild *build, guint64 hwqueue_handle)
{
	gpointer v = g_hash_table_lookup(build->queue_rows, &hwqueue_handle);

	return v ? GPOINTER_TO_UINT(v) - 1 : FSV_INDEX_NONE;
}

guint32
_fsv_build_find_fence_row(const TraceBuild *build, guint64 fence_global_handle)
{
	gpointer v = g_hash_table_lookup(build->fence_rows, &fence_global_handle);

	return v ? GPOINTER_TO_UINT(v) - 1 : FSV_INDEX_NONE;
}

const struct fsa_fence_info *
_fsv_build_find_fence(const TraceBuild *build, guint64 fence_global_handle)
{
	for (guint i = 0; i < build->fences->len; i++)
		if (g_array_index(build->fences, struct fsa_fence_info, i).fence_global_handle ==
		    fence_global_handle)
			return &g_array_index(build->fences, struct fsa_fence_info, i);
	return NULL;
}

bool
_fsv_build_has_marker_kind(const TraceBuild *build, guint8 kind)
{
	return kind < 64 && (build->marker_kinds >> kind & 1);
}
