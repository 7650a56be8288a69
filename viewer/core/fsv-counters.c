/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the counter tracks' data (fsv-counters.h). Flat arrays per kind, every row a
 * slice of them (FsvCounterRow), held by the trace like its other arrays (fsv-trace-storage.h)
 * so that the index file saves and maps them as they are:
 *
 * - busy: the engine's packets merged into disjoint busy intervals [begin, end), sorted, with
 *   busy_before[i] the busy time before interval i: the busy time before any t is then one
 *   binary search away, and the busy time of a span the difference of two of them;
 * - depth: change points (ns, depth), sorted, one per distinct time (the depth after every
 *   submission and completion at that time), compact (a 64-bit base per block of 64 points,
 *   32-bit offsets, 16-bit depths) unless a block spans 2^32 ns or a depth 17 bits (wide);
 * - a min/max pyramid over the depth values and over each fence row's step values: level k + 1
 *   holds the min and max of FANOUT entries of level k, so the extremes of any run of points
 *   cost O(FANOUT · log n).
 *
 * It is not the drawing (fsv-render-counters.c) and not the index's storage (fsv-trace.c).
 */
#define _GNU_SOURCE
#include "fsv-counters.h"
#include "fsv-trace-private.h"
#include "fsv-trace-storage.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* Entries per pyramid block. */
#define FANOUT 16

typedef FsvCounterMinMax MinMax;
typedef FsvCounterRow RowSlice;

/* The arrays while they are built. */
typedef struct {
	RowSlice *rows;
	GArray *busy_begin, *busy_end, *busy_before; /* guint64 */
	GArray *depth_base;                          /* guint64, compact rows */
	GArray *depth_offset;                        /* guint32, compact rows */
	GArray *depth_value16;                       /* guint16, compact rows */
	GArray *depth_ns;                            /* guint64, wide rows */
	GArray *depth_value;                         /* guint32, wide rows */
	GArray *pyramid;                             /* MinMax: the depth rows', the fence rows' */
	GArray *step_block_ns;                       /* guint64, fence rows */
} Build;

FsvCounterKind
fsv_counter_kind_of_row(const FsvRow *row)
{
	return row->kind == FSV_ROW_BUSY    ? FSV_COUNTER_BUSY
	       : row->kind == FSV_ROW_DEPTH ? FSV_COUNTER_DEPTH
					    : FSV_COUNTER_KIND_COUNT;
}

/* ---- The min/max pyramid ---------------------------------------------------------------- */

/* Reads level-0 value I of a row (a depth or a fence step's value). */
typedef guint64 (*ValueFunc)(gconstpointer base, gsize i);

static guint64
u32_value_at(gconstpointer base, gsize i)
{
	return ((const guint32 *) base)[i];
}

/* A depth row's points, compact or wide (FsvCounterRow.is_wide); indexes relative to the
 * row's first point. */
typedef struct {
	const FsvCounters *c;
	const FsvCounterRow *s;
} DepthRow;

static inline guint64
depth_ns_at(const DepthRow *d, gsize i)
{
	if (d->s->is_wide)
		return d->c->depth_ns[d->s->first + i];
	return d->c->depth_base[d->s->block + i / FSV_DEPTH_BLOCK] +
	       d->c->depth_offset[d->s->first + i];
}

static inline guint32
depth_at(const DepthRow *d, gsize i)
{
	return d->s->is_wide ? d->c->depth_value[d->s->first + i]
			     : d->c->depth_value16[d->s->first + i];
}

static guint64
depth_value_at(gconstpointer base, gsize i)
{
	return depth_at(base, i);
}

/* The first point in [from, count) after NS, knowing none before FROM is: a galloping search
 * from FROM. */
static gsize
depth_upper(const DepthRow *d, gsize from, guint64 ns)
{
	gsize step = 1, lo = from, hi = d->s->count;

	while (lo + step < hi && depth_ns_at(d, lo + step - 1) <= ns) {
		lo += step;
		step *= 2;
	}
	hi = MIN(hi, lo + step);
	while (lo < hi) {
		gsize mid = lo + (hi - lo) / 2;

		if (depth_ns_at(d, mid) <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static guint64
step_value_at(gconstpointer base, gsize i)
{
	return ((const FsvFenceStep *) base)[i].value;
}

gsize
_fsv_counters_pyramid_size(gsize n)
{
	gsize total = 0;

	for (; n > 1; n = (n + FANOUT - 1) / FANOUT)
		total += (n + FANOUT - 1) / FANOUT;
	return total;
}

/* Entries of level LEVEL ≥ 1 over N values. */
static gsize
level_size(gsize n, guint level)
{
	for (guint l = 0; l < level; l++)
		n = (n + FANOUT - 1) / FANOUT;
	return n;
}

/* Appends the pyramid of N values to PYRAMID: level 1, level 2, … up to a level of one entry.
 * Returns the index of its first entry. */
static guint32
pyramid_build(GArray *pyramid, gconstpointer base, gsize n, ValueFunc value)
{
	guint32 first = pyramid->len;
	gsize below = 0, below_n = n; /* the level under the one being built */

	for (guint level = 1; below_n > 1; level++) {
		gsize size = level_size(n, level), start = pyramid->len;

		for (gsize e = 0; e < size; e++) {
			MinMax m = {G_MAXUINT64, 0};

			for (gsize k = e * FANOUT; k < MIN(below_n, (e + 1) * FANOUT); k++) {
				MinMax c;

				if (level == 1) {
					c.min = c.max = value(base, k);
				} else {
					c = g_array_index(pyramid, MinMax, below + k);
				}
				m.min = MIN(m.min, c.min);
				m.max = MAX(m.max, c.max);
			}
			g_array_append_val(pyramid, m);
		}
		below = start;
		below_n = size;
	}
	return first;
}

/* The min and max of values [i, j) (i < j ≤ n) of a row whose pyramid starts at FIRST: the
 * unaligned ends of the run at each level, its aligned middle one level up. */
static MinMax
pyramid_query(const MinMax *pyramid, guint32 first, gconstpointer base, gsize n, ValueFunc value,
	      gsize i, gsize j)
{
	MinMax m = {G_MAXUINT64, 0};
	gsize offset = first; /* first entry of the current level, when ≥ 1 */

	for (guint level = 0; i < j; level++) {
		while (i < j && (i % FANOUT != 0 || j % FANOUT != 0)) {
			gsize k = i % FANOUT != 0 ? i++ : --j;
			MinMax e;

			if (level == 0)
				e.min = e.max = value(base, k);
			else
				e = pyramid[offset + k];
			m.min = MIN(m.min, e.min);
			m.max = MAX(m.max, e.max);
		}
		if (level > 0)
			offset += level_size(n, level);
		i /= FANOUT;
		j /= FANOUT;
	}
	return m;
}

/* ---- Building --------------------------------------------------------------------------- */

typedef struct {
	guint64 ns;
	gint32 delta;
} DepthChange;

static int
compare_change(const void *a, const void *b)
{
	const DepthChange *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

typedef struct {
	guint64 begin, end;
} Span;

static int
compare_span(const void *a, const void *b)
{
	const Span *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* What a counter row is built from, sorted (prepare_row, on any thread): a busy row's spans
 * or a depth row's changes. */
typedef struct {
	Span *spans;
	DepthChange *changes;
	guint n;
} Prepared;

/* An engine's packets' spans, sorted by begin. */
static void
prepare_busy(const FsvTrace *trace, guint32 engine_row, Prepared *prep)
{
	guint n = 0;
	const guint32 *packets = fsv_trace_get_row_packets(trace, engine_row, &n);
	Span *spans = g_new(Span, MAX(n, 1));
	guint k = 0;

	for (guint i = 0; i < n; i++) {
		const FsvPacket *p = fsv_trace_get_packet(trace, packets[i]);

		if (p->start_ns == FSV_TIME_NONE || p->end_ns == FSV_TIME_NONE ||
		    p->end_ns <= p->start_ns)
			continue;
		spans[k++] = (Span){p->start_ns, p->end_ns};
	}
	qsort(spans, k, sizeof(Span), compare_span);
	prep->spans = spans;
	prep->n = k;
}

/* An engine's packets merged into disjoint busy intervals (touching ones joined). */
static void
build_busy(Build *c, Prepared *prep, RowSlice *slice)
{
	g_autofree Span *spans = g_steal_pointer(&prep->spans);
	guint64 before = 0;
	guint k = prep->n;

	slice->first = c->busy_begin->len;
	for (guint i = 0; i < k;) {
		Span merged = spans[i++];

		for (; i < k && spans[i].begin <= merged.end; i++)
			merged.end = MAX(merged.end, spans[i].end);
		g_array_append_val(c->busy_begin, merged.begin);
		g_array_append_val(c->busy_end, merged.end);
		g_array_append_val(c->busy_before, before);
		before += merged.end - merged.begin;
	}
	slice->count = c->busy_begin->len - slice->first;
}

/*
 * A queue's depth: each of its operations is submitted when it was queued (its queued_ns; an
 * unqueued or inferred one without it: when the trace first shows it, begin_ns) and completed
 * at its end (op_end_ns; an inferred one whose log entry was lost: the latest it can have
 * ended, end_ns, so the depth is an upper bound there; a never-completed one: never).
 */
static void
prepare_depth(const FsvTrace *trace, guint32 queue_row, Prepared *prep)
{
	guint n = 0;
	const guint32 *ops = fsv_trace_get_row_ops(trace, queue_row, &n);
	DepthChange *changes = g_new(DepthChange, MAX(2 * n, 1));
	guint k = 0;

	for (guint i = 0; i < n; i++) {
		const FsvOp *o = fsv_trace_get_op(trace, ops[i]);
		guint64 submitted = o->queued_ns != FSV_TIME_NONE ? o->queued_ns : o->begin_ns;
		guint64 completed = o->op_end_ns != FSV_TIME_NONE ? o->op_end_ns : o->end_ns;

		if (submitted == FSV_TIME_NONE)
			continue;
		if (o->state == FSA_OP_NEVER_COMPLETED) {
			changes[k++] = (DepthChange){submitted, 1};
			continue;
		}
		if (completed == FSV_TIME_NONE || completed <= submitted)
			continue; /* in and out at once: never in the queue */
		changes[k++] = (DepthChange){submitted, 1};
		changes[k++] = (DepthChange){completed, -1};
	}
	qsort(changes, k, sizeof(DepthChange), compare_change);
	prep->changes = changes;
	prep->n = k;
}

/* A queue's depth points (its changes, prepare_depth) into C. */
static void
build_depth(Build *c, Prepared *prep, RowSlice *slice)
{
	g_autofree DepthChange *changes = g_steal_pointer(&prep->changes);
	guint k = prep->n;
	GArray *points, *values;
	gint64 depth = 0;

	/* One point per distinct time, the depth after everything at that time. */
	points = g_array_new(FALSE, FALSE, sizeof(guint64));
	values = g_array_new(FALSE, FALSE, sizeof(guint32));
	slice->max_depth = 0;
	for (guint i = 0; i < k;) {
		guint64 ns = changes[i].ns;
		guint32 value;

		while (i < k && changes[i].ns == ns)
			depth += changes[i++].delta;
		g_assert(depth >= 0);
		value = (guint32) depth;
		/* A time where as many went out as came in changes nothing. */
		if (values->len > 0 && g_array_index(values, guint32, values->len - 1) == value)
			continue;
		g_array_append_val(points, ns);
		g_array_append_val(values, value);
		slice->max_depth = MAX(slice->max_depth, value);
	}
	slice->count = points->len;
	/* Compact unless a block of points spans 2^32 ns or more, or a depth needs 17 bits. */
	slice->is_wide = slice->max_depth > G_MAXUINT16;
	for (guint i = 0; i < points->len && !slice->is_wide; i += FSV_DEPTH_BLOCK) {
		guint last = MIN(i + FSV_DEPTH_BLOCK, points->len) - 1;

		slice->is_wide =
		    g_array_index(points, guint64, last) - g_array_index(points, guint64, i) >
		    G_MAXUINT32;
	}
	if (slice->is_wide) {
		slice->first = c->depth_ns->len;
		g_array_append_vals(c->depth_ns, points->data, points->len);
		g_array_append_vals(c->depth_value, values->data, values->len);
	} else {
		slice->first = c->depth_offset->len;
		slice->block = c->depth_base->len;
		for (guint i = 0; i < points->len; i++) {
			guint64 ns = g_array_index(points, guint64, i);
			guint32 offset;
			guint16 value = (guint16) g_array_index(values, guint32, i);

			if (i % FSV_DEPTH_BLOCK == 0)
				g_array_append_val(c->depth_base, ns);
			offset = (guint32) (ns - g_array_index(c->depth_base, guint64,
							       c->depth_base->len - 1));
			g_array_append_val(c->depth_offset, offset);
			g_array_append_val(c->depth_value16, value);
		}
	}
	slice->pyramid = pyramid_build(c->pyramid, values->data, values->len, u32_value_at);
	g_array_unref(points);
	g_array_unref(values);
}

static gpointer
steal(GArray *array, gsize *n)
{
	*n = array->len;
	return g_array_free(array, FALSE);
}

typedef struct {
	const FsvTrace *trace;
	Prepared *preps; /* one per row */
	guint n_rows;
	gint next; /* the next row to take (atomic) */
} PrepareJobs;

static gpointer
prepare_worker(gpointer data)
{
	PrepareJobs *jobs = data;
	gint r;

	while ((r = g_atomic_int_add(&jobs->next, 1)) < (gint) jobs->n_rows) {
		const FsvRow *row = fsv_trace_get_row(jobs->trace, (guint32) r);

		if (row->kind == FSV_ROW_BUSY)
			prepare_busy(jobs->trace, row->parent, &jobs->preps[r]);
		else if (row->kind == FSV_ROW_DEPTH)
			prepare_depth(jobs->trace, (guint32) r - 1, &jobs->preps[r]);
	}
	return NULL;
}

/* The busy and depth rows' sorted inputs (most of the counters' time: their qsorts), on a
 * _fsv_build_threads' threads; the arrays are then appended in row order on this thread,
 * so they are the same whatever the threads did. */
static Prepared *
prepare_rows(const FsvTrace *trace, guint n_rows)
{
	PrepareJobs jobs = {trace, g_new0(Prepared, MAX(n_rows, 1)), n_rows, 0};
	guint n_threads = _fsv_build_threads(n_rows);
	g_autofree GThread **threads = g_new0(GThread *, n_threads);

	for (guint t = 1; t < n_threads; t++)
		threads[t] = g_thread_new("fsv-counters", prepare_worker, &jobs);
	prepare_worker(&jobs);
	for (guint t = 1; t < n_threads; t++)
		g_thread_join(threads[t]);
	return jobs.preps;
}

void
_fsv_counters_build(const FsvTrace *trace, FsvCounters *out)
{
	guint n_rows = fsv_trace_get_row_count(trace);
	g_autofree Prepared *preps = prepare_rows(trace, n_rows);
	Build c;

	c.rows = g_new0(RowSlice, MAX(n_rows, 1));
	c.busy_begin = g_array_new(FALSE, FALSE, sizeof(guint64));
	c.busy_end = g_array_new(FALSE, FALSE, sizeof(guint64));
	c.busy_before = g_array_new(FALSE, FALSE, sizeof(guint64));
	c.depth_base = g_array_new(FALSE, FALSE, sizeof(guint64));
	c.depth_offset = g_array_new(FALSE, FALSE, sizeof(guint32));
	c.depth_value16 = g_array_new(FALSE, FALSE, sizeof(guint16));
	c.depth_ns = g_array_new(FALSE, FALSE, sizeof(guint64));
	c.depth_value = g_array_new(FALSE, FALSE, sizeof(guint32));
	c.pyramid = g_array_new(FALSE, FALSE, sizeof(MinMax));
	c.step_block_ns = g_array_new(FALSE, FALSE, sizeof(guint64));
	for (guint32 r = 0; r < n_rows; r++) {
		const FsvRow *row = fsv_trace_get_row(trace, r);

		if (row->kind == FSV_ROW_BUSY) {
			build_busy(&c, &preps[r], &c.rows[r]);
		} else if (row->kind == FSV_ROW_DEPTH) {
			build_depth(&c, &preps[r], &c.rows[r]);
		} else if (row->kind == FSV_ROW_FENCE || row->kind == FSV_ROW_XFENCE) {
			guint n = 0;
			const FsvFenceStep *steps = fsv_trace_get_fence_steps(trace, r, &n);

			c.rows[r].count = n;
			c.rows[r].pyramid = pyramid_build(c.pyramid, steps, n, step_value_at);
			c.rows[r].block = c.step_block_ns->len;
			for (guint k = 0; k < n; k += FSV_STEP_BLOCK)
				g_array_append_val(c.step_block_ns, steps[k].ns);
		}
	}
	out->rows = c.rows;
	out->n_rows = n_rows;
	out->busy_begin = steal(c.busy_begin, &out->n_busy);
	out->busy_end = steal(c.busy_end, &out->n_busy);
	out->busy_before = steal(c.busy_before, &out->n_busy);
	out->depth_base = steal(c.depth_base, &out->n_depth_base);
	out->depth_offset = steal(c.depth_offset, &out->n_depth);
	out->depth_value16 = steal(c.depth_value16, &out->n_depth);
	out->depth_ns = steal(c.depth_ns, &out->n_depth_wide);
	out->depth_value = steal(c.depth_value, &out->n_depth_wide);
	out->pyramid = steal(c.pyramid, &out->n_pyramid);
	out->step_block_ns = steal(c.step_block_ns, &out->n_step_block_ns);
}

/* ---- Queries ---------------------------------------------------------------------------- */

/* The counters' slice of ROW, or of the counter row of an engine or queue row. */
static const RowSlice *
slice_of(const FsvTrace *trace, guint32 row, FsvRowKind kind, const FsvCounters **counters)
{
	const FsvCounters *c = _fsv_trace_get_counters(trace);
	const FsvRow *r;

	*counters = c;
	if (!c || row >= c->n_rows)
		return NULL;
	r = fsv_trace_get_row(trace, row);
	/* An engine row: its busy row is among its first children; a queue row: the next row. */
	if (kind == FSV_ROW_BUSY && r->kind == FSV_ROW_ENGINE) {
		for (guint32 k = row + 1; k < c->n_rows && k <= row + 2; k++)
			if (fsv_trace_get_row(trace, k)->kind == FSV_ROW_BUSY)
				return &c->rows[k];
		return NULL;
	}
	if (kind == FSV_ROW_DEPTH && r->kind == FSV_ROW_QUEUE)
		return row + 1 < c->n_rows && fsv_trace_get_row(trace, row + 1)->kind == kind
			   ? &c->rows[row + 1]
			   : NULL;
	if (r->kind == kind || (kind == FSV_ROW_FENCE && r->kind == FSV_ROW_XFENCE))
		return &c->rows[row];
	return NULL;
}

/* MADV_POPULATE_READ over the pages of [DATA, DATA + SIZE) (Linux 5.14; a no-op before). */
static void
populate(const void *data, gsize size)
{
#ifdef MADV_POPULATE_READ
	guintptr page = (guintptr) sysconf(_SC_PAGESIZE);
	guintptr begin = (guintptr) data & ~(page - 1);
	guintptr end = ((guintptr) data + size + page - 1) & ~(page - 1);

	/* In pieces of 1 MB: the drawing thread's own page faults wait while a piece is being
	 * mapped (in one call over the 338 MB of steps, a whole-trace redraw beside it took 26 ms
	 * of CPU instead of 3). */
	for (guintptr at = begin; data && at < end; at += 1 << 20) {
		madvise((void *) at, MIN(end - at, (guintptr) 1 << 20), MADV_POPULATE_READ);
		g_thread_yield();
	}
#else
	(void) data;
	(void) size;
#endif
}

void
_fsv_counters_populate(const FsvTrace *trace)
{
	const FsvCounters *c = _fsv_trace_get_counters(trace);
	const FsvFenceStep *first = NULL, *last = NULL;

	if (!c || !trace->mapping)
		return;
	/* The fence rows' steps are slices of one array: from the first slice to the last. */
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++) {
		guint n = 0;
		const FsvFenceStep *s = fsv_trace_get_fence_steps(trace, r, &n);

		if (n == 0)
			continue;
		if (!first || s < first)
			first = s;
		if (!last || s + n > last)
			last = s + n;
	}
	if (!first)
		return;
	populate(c->step_block_ns, c->n_step_block_ns * sizeof(*c->step_block_ns));
	populate(c->pyramid, c->n_pyramid * sizeof(*c->pyramid));
	populate(first, (gsize) ((const char *) last - (const char *) first));
}

static gpointer
populate_thread(gpointer data)
{
	FsvTrace *trace = data;

	/* Behind the drawing thread, and after the first draw of the view that started it (it
	 * took 17-18 ms alone and 30-42 ms with this mapping beside it, 100 M event trace). */
	setpriority(PRIO_PROCESS, (id_t) gettid(), 19);
	g_usleep(50000);
	_fsv_counters_populate(trace);
	fsv_trace_unref(trace);
	return NULL;
}

void
_fsv_counters_populate_ahead(FsvTrace *trace)
{
	if (!trace->mapping)
		return;
	g_thread_unref(g_thread_new("fsv-populate", populate_thread, fsv_trace_ref(trace)));
}

/* The first index in [lo, hi) of SORTED, u64 times STRIDE bytes apart, whose time is > NS
 * (upper bound): also the end of both gallops below. */
static gsize
upper_bound_strided(const guint64 *sorted, gsize stride, gsize lo, gsize hi, guint64 ns)
{
	while (lo < hi) {
		gsize mid = lo + (hi - lo) / 2;

		if (*(const guint64 *) ((const char *) sorted + mid * stride) <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* upper_bound_strided of an array of u64 times. */
static gsize
upper_bound(const guint64 *sorted, gsize lo, gsize hi, guint64 ns)
{
	return upper_bound_strided(sorted, sizeof(guint64), lo, hi, ns);
}

/* Busy time before NS (in (-∞, NS)). */
static guint64
busy_before(const FsvCounters *c, const RowSlice *s, guint64 ns)
{
	const guint64 *begin = c->busy_begin;
	gsize k = upper_bound(begin, s->first, s->first + s->count, ns);
	guint64 b, e;

	if (k == s->first)
		return 0;
	k--;
	b = begin[k];
	e = c->busy_end[k];
	return c->busy_before[k] + (MIN(ns, e) - b);
}

guint64
fsv_counters_busy_ns(const FsvTrace *trace, guint32 row, guint64 begin_ns, guint64 end_ns)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_BUSY, &c);

	if (!s || s->count == 0 || end_ns <= begin_ns)
		return 0;
	return busy_before(c, s, end_ns) - busy_before(c, s, begin_ns);
}

guint
fsv_counters_get_busy_count(const FsvTrace *trace, guint32 row)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_BUSY, &c);

	return s ? s->count : 0;
}

void
fsv_counters_get_busy_interval(const FsvTrace *trace, guint32 row, guint i, guint64 *begin_ns,
			       guint64 *end_ns)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_BUSY, &c);

	g_return_if_fail(s && i < s->count);
	*begin_ns = c->busy_begin[s->first + i];
	*end_ns = c->busy_end[s->first + i];
}

guint32
fsv_counters_depth_at(const FsvTrace *trace, guint32 row, guint64 ns)
{
	DepthRow d;
	gsize k;

	d.s = slice_of(trace, row, FSV_ROW_DEPTH, &d.c);
	if (!d.s || d.s->count == 0)
		return 0;
	k = depth_upper(&d, 0, ns);
	return k == 0 ? 0 : depth_at(&d, k - 1);
}

/* The min and max depth over the points [a, b) of a row (b > a). */
static MinMax
depth_points_range(const DepthRow *d, gsize a, gsize b)
{
	MinMax m = {G_MAXUINT64, 0};

	if (b - a > 2 * FANOUT)
		return pyramid_query(d->c->pyramid, d->s->pyramid, d, d->s->count, depth_value_at,
				     a, b);
	for (gsize k = a; k < b; k++) {
		guint32 v = depth_at(d, k);

		m.min = MIN(m.min, v);
		m.max = MAX(m.max, v);
	}
	return m;
}

void
fsv_counters_depth_range(const FsvTrace *trace, guint32 row, guint64 begin_ns, guint64 end_ns,
			 guint32 *min, guint32 *max)
{
	DepthRow d;
	gsize a, b;
	MinMax m;

	*min = *max = 0;
	d.s = slice_of(trace, row, FSV_ROW_DEPTH, &d.c);
	if (!d.s || d.s->count == 0)
		return;
	if (end_ns <= begin_ns)
		end_ns = begin_ns + 1;
	/* The depth in force at begin_ns, then every change point inside (begin, end). */
	a = depth_upper(&d, 0, begin_ns);
	b = depth_upper(&d, a, end_ns - 1);
	m.min = m.max = a == 0 ? 0 : depth_at(&d, a - 1);
	if (b > a) {
		MinMax inside = depth_points_range(&d, a, b);

		m.min = MIN(m.min, inside.min);
		m.max = MAX(m.max, inside.max);
	}
	*min = (guint32) m.min;
	*max = (guint32) m.max;
}

guint32
fsv_counters_get_depth_max(const FsvTrace *trace, guint32 row)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_DEPTH, &c);

	return s ? s->max_depth : 0;
}

guint
fsv_counters_get_depth_count(const FsvTrace *trace, guint32 row)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_DEPTH, &c);

	return s ? s->count : 0;
}

void
fsv_counters_get_depth_point(const FsvTrace *trace, guint32 row, guint i, guint64 *ns,
			     guint32 *depth)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_DEPTH, &c);

	DepthRow d = {c, s};

	g_return_if_fail(s && i < s->count);
	*ns = depth_ns_at(&d, i);
	*depth = depth_at(&d, i);
}

bool
fsv_counters_fence_range(const FsvTrace *trace, guint32 row, guint64 begin_ns, guint64 end_ns,
			 guint64 *min, guint64 *max)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_FENCE, &c);
	guint n = 0;
	const FsvFenceStep *steps = fsv_trace_get_fence_steps(trace, row, &n);
	gsize a, b, lo, hi;
	MinMax m;

	if (!s || n == 0)
		return false;
	if (end_ns <= begin_ns)
		end_ns = begin_ns + 1;
	/* a: the first step after begin_ns; b: the first at or after end_ns. */
	for (lo = 0, hi = n; lo < hi;) {
		gsize mid = lo + (hi - lo) / 2;

		if (steps[mid].ns <= begin_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	a = lo;
	for (hi = n; lo < hi;) {
		gsize mid = lo + (hi - lo) / 2;

		if (steps[mid].ns < end_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	b = lo;
	if (a == 0 && b == 0)
		return false;
	m = pyramid_query(c->pyramid, s->pyramid, steps, n, step_value_at, a > 0 ? a - 1 : 0, b);
	*min = m.min;
	*max = m.max;
	return true;
}

guint32
fsv_counters_item_at(const FsvTrace *trace, guint32 row, guint64 ns)
{
	const FsvCounters *c;
	const RowSlice *s;
	gsize k;

	if (row >= fsv_trace_get_row_count(trace))
		return FSV_INDEX_NONE;
	if (fsv_trace_get_row(trace, row)->kind == FSV_ROW_BUSY) {
		s = slice_of(trace, row, FSV_ROW_BUSY, &c);
		if (!s || s->count == 0)
			return FSV_INDEX_NONE;
		k = upper_bound(c->busy_begin, s->first, s->first + s->count, ns) - s->first;
		/* Inside interval k − 1, else in the gap before interval k. */
		if (k > 0 && ns < c->busy_end[s->first + k - 1])
			return (guint32) (2 * (k - 1) + 1);
		return (guint32) (2 * k);
	}
	s = slice_of(trace, row, FSV_ROW_DEPTH, &c);
	if (!s || s->count == 0 || fsv_trace_get_row(trace, row)->kind != FSV_ROW_DEPTH)
		return FSV_INDEX_NONE;
	{
		DepthRow d = {c, s};

		k = depth_upper(&d, 0, ns);
	}
	return k == 0 ? FSV_INDEX_NONE : (guint32) (k - 1);
}

bool
fsv_counters_get_item_span(const FsvTrace *trace, const FsvItem *item, guint64 *begin_ns,
			   guint64 *end_ns)
{
	const FsvCounters *c;
	const RowSlice *s;
	const FsvRow *r;

	if (item->kind != FSV_ITEM_COUNTER || item->row >= fsv_trace_get_row_count(trace))
		return false;
	r = fsv_trace_get_row(trace, item->row);
	if (r->kind == FSV_ROW_BUSY) {
		guint k = item->index / 2;

		s = slice_of(trace, item->row, FSV_ROW_BUSY, &c);
		if (!s || k > s->count || (item->index % 2 == 1 && k >= s->count))
			return false;
		if (item->index % 2 == 1) {
			*begin_ns = c->busy_begin[s->first + k];
			*end_ns = c->busy_end[s->first + k];
		} else {
			*begin_ns =
			    k > 0 ? c->busy_end[s->first + k - 1] : fsv_trace_get_begin_ns(trace);
			*end_ns = k < s->count ? c->busy_begin[s->first + k]
					       : fsv_trace_get_end_ns(trace);
			*end_ns = MAX(*end_ns, *begin_ns);
		}
		return true;
	}
	if (r->kind != FSV_ROW_DEPTH)
		return false;
	s = slice_of(trace, item->row, FSV_ROW_DEPTH, &c);
	if (!s || item->index >= s->count)
		return false;
	{
		DepthRow d = {c, s};

		*begin_ns = depth_ns_at(&d, item->index);
		*end_ns = item->index + 1 < s->count ? depth_ns_at(&d, item->index + 1)
						     : MAX(fsv_trace_get_end_ns(trace), *begin_ns);
	}
	return true;
}

/* ---- Pixel columns ---------------------------------------------------------------------- */

/* The first index in [from, hi) whose value is > NS, knowing none before FROM is: a galloping
 * search from FROM, O(log distance) — the columns of a sweep move it forward a little each. */
static gsize
gallop_upper(const guint64 *sorted, gsize stride, gsize from, gsize hi, guint64 ns)
{
	gsize step = 1, lo = from;

#define AT(i) (*(const guint64 *) ((const char *) sorted + (i) *stride))
	while (lo + step < hi && AT(lo + step - 1) <= ns) {
		lo += step;
		step *= 2;
	}
#undef AT
	return upper_bound_strided(sorted, stride, lo, MIN(hi, lo + step), ns);
}

/* gallop_upper, the search starting at GUESS (in (from, hi)) instead of FROM, galloping from
 * there either way: a sweep's column ends near where the previous column's span, laid from this
 * column's start, ends, and the probes then stay within a cache line or two of it. */
static gsize
gallop_upper_from(const guint64 *sorted, gsize stride, gsize from, gsize hi, guint64 ns,
		  gsize guess)
{
	gsize top, step = 1;

#define AT(i) (*(const guint64 *) ((const char *) sorted + (i) *stride))
	if (guess <= from || guess >= hi)
		return gallop_upper(sorted, stride, from, hi, ns);
	if (AT(guess - 1) <= ns)
		return gallop_upper(sorted, stride, guess, hi, ns);
	/* The answer is TOP or before it (AT(top) > NS), and FROM or after it. */
	top = guess - 1;
	while (top - from >= step && AT(top - step) > ns) {
		top -= step;
		step *= 2;
	}
#undef AT
	return upper_bound_strided(sorted, stride, top - from >= step ? top - step + 1 : from, top,
				   ns);
}

void
fsv_counters_busy_columns(const FsvTrace *trace, guint32 row, const guint64 *begin,
			  const guint64 *end, guint n, guint64 *busy_ns)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_BUSY, &c);
	const guint64 *b, *e, *before;
	gsize k = 0, hi;

	memset(busy_ns, 0, n * sizeof(guint64));
	if (!s || s->count == 0)
		return;
	b = c->busy_begin + s->first;
	e = c->busy_end + s->first;
	before = c->busy_before + s->first;
	hi = s->count;
	for (guint i = 0; i < n; i++) {
		guint64 at[2] = {begin[i], end[i]}, busy[2];

		/* k: the intervals begun by the column's begin; m: by its end. */
		for (int j = 0; j < 2; j++) {
			gsize m = gallop_upper(b, sizeof(guint64), k, hi, at[j]);

			if (j == 0)
				k = m;
			busy[j] = m == 0 ? 0 : before[m - 1] + (MIN(at[j], e[m - 1]) - b[m - 1]);
		}
		busy_ns[i] = busy[1] - busy[0];
	}
}

void
fsv_counters_depth_columns(const FsvTrace *trace, guint32 row, const guint64 *begin,
			   const guint64 *end, guint n, guint32 *min, guint32 *max)
{
	DepthRow d;
	gsize a = 0, b_prev = 0;

	memset(min, 0, n * sizeof(guint32));
	memset(max, 0, n * sizeof(guint32));
	d.s = slice_of(trace, row, FSV_ROW_DEPTH, &d.c);
	if (!d.s || d.s->count == 0)
		return;
	for (guint i = 0; i < n; i++) {
		/* The point in force at begin, then those inside (begin, end). Every point before
		 * the previous column's b lies before its end: a column that starts there (the
		 * usual case) searches from b, a step or two. */
		gsize b;
		guint32 lo, hi;

		a = depth_upper(&d, i > 0 && begin[i] >= end[i - 1] ? MAX(a, b_prev) : a, begin[i]);
		b = depth_upper(&d, a, end[i] - 1);
		b_prev = b;
		lo = hi = a == 0 ? 0 : depth_at(&d, a - 1);
		if (b > a) {
			MinMax m = depth_points_range(&d, a, b);

			lo = MIN(lo, (guint32) m.min);
			hi = MAX(hi, (guint32) m.max);
		}
		min[i] = lo;
		max[i] = hi;
	}
}

/* gallop_upper over a fence row's COUNT steps from FROM, through the row's step blocks
 * (FsvCounters.step_block_ns): a gallop over the block times, then a search in one block. */
static gsize
step_upper(const FsvCounters *c, const RowSlice *s, const FsvFenceStep *steps, gsize count,
	   gsize from, guint64 ns, gsize guess)
{
	gsize n_blocks = (count + FSV_STEP_BLOCK - 1) / FSV_STEP_BLOCK;
	gsize first_block = from / FSV_STEP_BLOCK + 1, k, lo, hi;

	if (first_block >= n_blocks || (guint64) s->block + n_blocks > c->n_step_block_ns)
		return gallop_upper(&steps[0].ns, sizeof(FsvFenceStep), from, count, ns);
	/* The first block starting after FROM whose first step is later than NS: the answer
	 * lies in the block before it, or is its first step. */
	k = gallop_upper_from(c->step_block_ns + s->block, sizeof(guint64), first_block, n_blocks,
			      ns, guess > from ? guess / FSV_STEP_BLOCK + 1 : 0);
	lo = k > first_block ? (k - 1) * FSV_STEP_BLOCK : from;
	hi = k < n_blocks ? k * FSV_STEP_BLOCK : count;
	return gallop_upper(&steps[0].ns, sizeof(FsvFenceStep), lo, hi, ns);
}

guint
fsv_counters_fence_step_after(const FsvTrace *trace, guint32 row, guint from, guint64 ns)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_FENCE, &c);
	guint count = 0;
	const FsvFenceStep *steps = fsv_trace_get_fence_steps(trace, row, &count);

	if (from >= count)
		return count;
	if (!s)
		return (guint) gallop_upper(&steps[0].ns, sizeof(FsvFenceStep), from, count, ns);
	return (guint) step_upper(c, s, steps, count, from, ns, 0);
}

void
fsv_counters_fence_columns(const FsvTrace *trace, guint32 row, const guint64 *begin,
			   const guint64 *end, guint n, guint64 *min, guint64 *max, bool *has)
{
	const FsvCounters *c;
	const RowSlice *s = slice_of(trace, row, FSV_ROW_FENCE, &c);
	guint count = 0;
	const FsvFenceStep *steps = fsv_trace_get_fence_steps(trace, row, &count);
	gsize a = 0, b_prev = 0;

	memset(has, 0, n * sizeof(bool));
	if (!s || count == 0)
		return;
	for (guint i = 0; i < n; i++) {
		gsize b, a_prev = a;
		MinMax m = {G_MAXUINT64, 0};

		a = step_upper(c, s, steps, count,
			       i > 0 && begin[i] >= end[i - 1] ? MAX(a, b_prev) : a, begin[i], 0);
		/* Searched from where the previous column's span, laid from A, would end: within
		 * a cache line or two of the answer, the one prefetched below two columns ago. */
		b = step_upper(c, s, steps, count, a, end[i] - 1,
			       i > 0 && b_prev > a_prev ? a + (b_prev - a_prev) : 0);
		/* At a far zoom a column spans hundreds of steps and its end lies in steps no
		 * column touched yet: each was a cache miss in turn. The block where the column
		 * after next should end (as many steps on as this one took) is fetched ahead. */
		if (i > 0 && b > b_prev && b + 2 * (b - b_prev) < count) {
			gsize at = b + 2 * (b - b_prev);
			const char *ahead =
			    (const char *) &steps[at & ~(gsize) (FSV_STEP_BLOCK - 1)];

			for (gsize off = 0; off < FSV_STEP_BLOCK * sizeof(FsvFenceStep); off += 64)
				__builtin_prefetch(ahead + off);
			/* And the step block times there, where the next search of the blocks
			 * starts (the hint above). */
			if ((guint64) s->block + at / FSV_STEP_BLOCK + 1 < c->n_step_block_ns) {
				__builtin_prefetch(
				    &c->step_block_ns[s->block + at / FSV_STEP_BLOCK]);
				__builtin_prefetch(
				    &c->step_block_ns[s->block + at / FSV_STEP_BLOCK + 1]);
			}
			/* And the pyramid's first level there: the query reads its entries from
			 * the start of their group of FANOUT up to the column's end (16 bytes
			 * each, 4 to a cache line). */
			if ((guint64) s->pyramid + at / FANOUT < c->n_pyramid)
				for (gsize k = at / FANOUT / FANOUT * FANOUT; k <= at / FANOUT;
				     k += 4)
					__builtin_prefetch(&c->pyramid[s->pyramid + k]);
		}
		b_prev = b;
		if (a == 0 && b == 0)
			continue;
		if (b - (a > 0 ? a - 1 : 0) <= 2 * FANOUT) {
			for (gsize k = a > 0 ? a - 1 : 0; k < b; k++) {
				m.min = MIN(m.min, steps[k].value);
				m.max = MAX(m.max, steps[k].value);
			}
		} else {
			m = pyramid_query(c->pyramid, s->pyramid, steps, count, step_value_at,
					  a > 0 ? a - 1 : 0, b);
		}
		min[i] = m.min;
		max[i] = m.max;
		has[i] = true;
	}
}
