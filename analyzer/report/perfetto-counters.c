/* SPDX-License-Identifier: MIT */
/*
 * The counter tracks of the Perfetto exports (perfetto-counters-private.h; docs/export.md
 * "Counter tracks"): the three step functions the viewer draws as counter rows
 * (docs/viewer.md "Counter tracks"), with the viewer's definitions, from the model's items:
 *
 * - busy, per engine: 100 (per cent) while at least one of its packets runs, else 0 (the
 *   packets' slices merged into disjoint intervals, touching ones joined);
 * - depth, per HWQueue: its operations submitted by t minus those completed by t (submitted at
 *   queued_ns, else when the trace first shows the operation; completed at its end, an inferred
 *   one at the end of its inferred range, a never-completed one never), one value per distinct
 *   time, the value after everything at that time;
 * - CurrentValue, per fence with a global handle: its initial value from its creation, each
 *   executed signal's value from its end, each satisfied CPU wait's observed value, and each
 *   value a progress fence reached when a command buffer completed (fsa_fence_value).
 *
 * A value is known only once every item that can change it has come, and the model hands an
 * operation over when it closes (a wait queued at the start and never completed comes at the
 * end), so the change points are kept until the end of the export, then sorted and coalesced
 * (a point whose value equals the previous one is dropped). With a resolution, each interval of
 * that many ns keeps its lowest, highest and last points (busy: the exact per cent of it that
 * was busy), which bounds the size whatever the trace. Memory: 8 bytes per operation
 * submission or completion, 16 per packet, 24 per fence step. It writes nothing itself.
 */
#include <stdlib.h>
#include <string.h>

#include "fencescope-tp-enums.h"

#include "key-index-private.h"
#include "perfetto-counters-private.h"

/* A growable array of ELEM-sized entries. */
struct vec {
	void *data;
	size_t len, cap;
};

struct busy_span {
	uint64_t begin, end;
};

struct fence_step {
	uint64_t ns;
	uint64_t value;
	uint64_t order; /* ties at one time keep the order the model gave them; 0 first */
};

struct series {
	enum perfetto_counter_kind kind;
	uint64_t a, b;
	uint32_t adapter_id;
	struct vec first;  /* busy: spans; depth: submissions (u64); fence: steps */
	struct vec second; /* depth: completions (u64) */
};

struct perfetto_counters {
	struct series *series;
	size_t count, capacity;
	struct key_index keys; /* (kind, a, b) → position in series */
	uint64_t step_order;
};

static bool
vec_push(struct vec *v, const void *elem, size_t size)
{
	if (v->len == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *data = realloc(v->data, cap * size);

		if (!data)
			return false;
		v->data = data;
		v->cap = cap;
	}
	memcpy((char *) v->data + v->len * size, elem, size);
	v->len++;
	return true;
}

struct perfetto_counters *
perfetto_counters_new(void)
{
	return calloc(1, sizeof(struct perfetto_counters));
}

void
perfetto_counters_free(struct perfetto_counters *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->count; i++) {
		free(c->series[i].first.data);
		free(c->series[i].second.data);
	}
	free(c->series);
	key_index_free(&c->keys);
	free(c);
}

/* The series (KIND, A, B), made when new; NULL when out of memory. */
static struct series *
get_series(struct perfetto_counters *c, enum perfetto_counter_kind kind, uint64_t a, uint64_t b,
	   uint32_t adapter_id)
{
	uint32_t at = key_index_find(&c->keys, kind, a, b);

	if (at)
		return &c->series[at - 1];
	if (c->count == c->capacity) {
		size_t capacity = c->capacity ? c->capacity * 2 : 16;
		struct series *series = realloc(c->series, capacity * sizeof(*series));

		if (!series)
			return NULL;
		c->series = series;
		c->capacity = capacity;
	}
	if (!key_index_add(&c->keys, kind, a, b, (uint32_t) c->count))
		return NULL;
	c->series[c->count] =
	    (struct series){.kind = kind, .a = a, .b = b, .adapter_id = adapter_id};
	return &c->series[c->count++];
}

static fsa_status
add_step(struct perfetto_counters *c, uint64_t fence, uint32_t adapter_id, uint64_t ns,
	 uint64_t value)
{
	struct fence_step step = {ns, value, ++c->step_order};
	struct series *s;

	if (ns == FSA_TIME_NONE)
		return FSA_OK;
	s = get_series(c, PERFETTO_COUNTER_FENCE, fence, 0, adapter_id);
	return s && vec_push(&s->first, &step, sizeof(step)) ? FSA_OK : FSA_ERR_NOMEM;
}

fsa_status
perfetto_counters_add_op(struct perfetto_counters *c, const struct fsa_op *op, uint64_t begin,
			 uint64_t end)
{
	fsa_status status = FSA_OK;

	if (op->source != FSA_SRC_CPU) {
		uint64_t submitted = op->queued_ns != FSA_TIME_NONE ? op->queued_ns : begin;
		uint64_t completed = op->end_ns != FSA_TIME_NONE ? op->end_ns : end;
		bool is_never_completed = op->state == FSA_OP_NEVER_COMPLETED;
		struct series *s;

		/* In and out at once: never in the queue. */
		if (submitted == FSA_TIME_NONE ||
		    (!is_never_completed && (completed == FSA_TIME_NONE || completed <= submitted)))
			goto fence;
		s = get_series(c, PERFETTO_COUNTER_DEPTH, op->hwqueue_handle, 0, op->adapter_id);
		if (!s || !vec_push(&s->first, &submitted, sizeof(submitted)) ||
		    (!is_never_completed && !vec_push(&s->second, &completed, sizeof(completed))))
			return FSA_ERR_NOMEM;
	}
fence:
	/* CurrentValue steps: an executed signal's value from its end; a satisfied CPU wait's
	 * observed value. */
	if (!op->fence_global_handle || op->state == FSA_OP_NEVER_COMPLETED)
		return FSA_OK;
	if (op->kind == FSA_OP_SIGNAL)
		status = add_step(c, op->fence_global_handle, op->adapter_id, end, op->fence_value);
	else if (op->source == FSA_SRC_CPU && op->end_ns != FSA_TIME_NONE &&
		 op->cpu_wait_result == FSTP_CPU_WAIT_RESULT_SATISFIED)
		status =
		    add_step(c, op->fence_global_handle, op->adapter_id, end, op->observed_value);
	return status;
}

fsa_status
perfetto_counters_add_packet(struct perfetto_counters *c, const struct fsa_packet *p,
			     uint64_t begin, uint64_t end)
{
	struct busy_span span = {begin, end};
	struct series *s;

	if (begin == FSA_TIME_NONE || end == FSA_TIME_NONE || end <= begin)
		return FSA_OK;
	s = get_series(c, PERFETTO_COUNTER_BUSY, p->adapter_id, p->engine_id, p->adapter_id);
	return s && vec_push(&s->first, &span, sizeof(span)) ? FSA_OK : FSA_ERR_NOMEM;
}

fsa_status
perfetto_counters_add_fence_value(struct perfetto_counters *c, const struct fsa_fence_value *v)
{
	return add_step(c, v->fence_global_handle, UINT32_MAX, v->ts_ns, v->value);
}

/* Writing -------------------------------------------------------------------------------------- */

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static int
compare_span(const void *a, const void *b)
{
	const struct busy_span *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int
compare_step(const void *a, const void *b)
{
	const struct fence_step *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Points of a series, coalesced: a value equal to the last one is no change. */
struct points {
	uint64_t *ns;
	int64_t *value;
	size_t count;
};

static void
point(struct points *p, uint64_t ns, int64_t value)
{
	if (p->count && p->value[p->count - 1] == value)
		return;
	if (p->count && p->ns[p->count - 1] == ns) {
		/* Two values at one time: the later one holds. */
		p->value[p->count - 1] = value;
		if (p->count > 1 && p->value[p->count - 2] == value)
			p->count--;
		return;
	}
	p->ns[p->count] = ns;
	p->value[p->count++] = value;
}

/* Per cent of an interval of RESOLUTION ns that BUSY ns fill, rounded to nearest. */
static int64_t
busy_percent(uint64_t busy, uint64_t resolution)
{
	return (int64_t) ((busy * 200 + resolution) / (2 * resolution));
}

/*
 * Exactly (RESOLUTION 0): 100 from each merged busy interval's begin, 0 from its end. With a
 * resolution: from the start of each interval of RESOLUTION ns, the per cent of it that was
 * busy, exact (the time the merged intervals cover in it).
 */
static void
busy_points(struct series *s, uint64_t resolution, struct points *p)
{
	struct busy_span *spans = s->first.data;
	size_t n = s->first.len;
	uint64_t bucket = UINT64_MAX, busy = 0;

	if (n > 1) /* never qsort(NULL, 0, …): undefined */
		qsort(spans, n, sizeof(*spans), compare_span);
	for (size_t i = 0; i < n;) {
		struct busy_span merged = spans[i++];

		for (; i < n && spans[i].begin <= merged.end; i++)
			if (spans[i].end > merged.end)
				merged.end = spans[i].end;
		if (!resolution) {
			point(p, merged.begin, 100);
			point(p, merged.end, 0);
			continue;
		}
		/* Spread [begin, end) over the intervals it covers. */
		for (uint64_t t = merged.begin; t < merged.end;) {
			uint64_t b = t / resolution;
			uint64_t stop =
			    (b + 1) * resolution < merged.end ? (b + 1) * resolution : merged.end;

			if (b != bucket) {
				if (bucket != UINT64_MAX) {
					point(p, bucket * resolution,
					      busy_percent(busy, resolution));
					if (b > bucket + 1) /* idle intervals between */
						point(p, (bucket + 1) * resolution, 0);
				}
				bucket = b;
				busy = 0;
			}
			busy += stop - t;
			t = stop;
		}
	}
	if (bucket != UINT64_MAX) {
		point(p, bucket * resolution, busy_percent(busy, resolution));
		point(p, (bucket + 1) * resolution, 0);
	}
}

/* The intervals of RESOLUTION ns the spans of S touch, plus one each (an upper bound on the
 * points busy_points() makes). */
static size_t
busy_buckets(const struct series *s, uint64_t resolution)
{
	const struct busy_span *spans = s->first.data;
	size_t n = 0;

	for (size_t i = 0; i < s->first.len; i++)
		n += (size_t) ((spans[i].end - 1) / resolution - spans[i].begin / resolution + 2);
	return n;
}

/*
 * Keeps, of each interval of RESOLUTION ns, the points where the counter reaches its lowest and
 * its highest value there and its last point, so that the values kept are exact where they are
 * and no extreme is lost, whatever the resolution; equal neighbours coalesce.
 */
static void
downsample(struct points *p, uint64_t resolution)
{
	size_t out = 0;

	for (size_t i = 0; i < p->count;) {
		uint64_t bucket = p->ns[i] / resolution;
		size_t j = i, lo = i, hi = i, keep[3];

		for (; j < p->count && p->ns[j] / resolution == bucket; j++) {
			if (p->value[j] < p->value[lo])
				lo = j;
			if (p->value[j] > p->value[hi])
				hi = j;
		}
		keep[0] = lo < hi ? lo : hi;
		keep[1] = lo < hi ? hi : lo;
		keep[2] = j - 1;
		for (int k = 0; k < 3; k++) {
			/* Kept indexes ascend and are never below OUT: in place is safe. */
			if ((k && keep[k] == keep[k - 1]) ||
			    (out && p->value[out - 1] == p->value[keep[k]]))
				continue;
			p->ns[out] = p->ns[keep[k]];
			p->value[out++] = p->value[keep[k]];
		}
		i = j;
	}
	p->count = out;
}

static void
depth_points(struct series *s, struct points *p)
{
	uint64_t *in = s->first.data, *out = s->second.data;
	size_t n_in = s->first.len, n_out = s->second.len, i = 0, j = 0;
	int64_t depth = 0;

	if (n_in > 1)
		qsort(in, n_in, sizeof(*in), compare_u64);
	if (n_out > 1) /* a queue with no completion: data NULL */
		qsort(out, n_out, sizeof(*out), compare_u64);
	/* The first value is the depth before anything happened: 0. */
	while (i < n_in || j < n_out) {
		uint64_t ns = j == n_out || (i < n_in && in[i] <= out[j]) ? in[i] : out[j];

		for (; i < n_in && in[i] == ns; i++)
			depth++;
		for (; j < n_out && out[j] == ns; j++)
			depth--;
		if (p->count == 0 && depth == 0)
			continue;
		point(p, ns, depth);
	}
}

static void
fence_points(struct series *s, struct points *p)
{
	struct fence_step *steps = s->first.data;

	if (s->first.len > 1)
		qsort(steps, s->first.len, sizeof(*steps), compare_step);
	for (size_t i = 0; i < s->first.len; i++)
		point(p, steps[i].ns,
		      steps[i].value > INT64_MAX ? INT64_MAX : (int64_t) steps[i].value);
}

static fsa_status
write_series(struct series *s, uint64_t resolution, perfetto_counter_fn write, void *data)
{
	size_t most = s->kind == PERFETTO_COUNTER_DEPTH  ? s->first.len + s->second.len
		      : s->kind != PERFETTO_COUNTER_BUSY ? s->first.len
		      : resolution                       ? busy_buckets(s, resolution)
							 : 2 * s->first.len;
	struct points p = {malloc((most ? most : 1) * sizeof(uint64_t)),
			   malloc((most ? most : 1) * sizeof(int64_t)), 0};
	fsa_status status = FSA_ERR_NOMEM;

	if (p.ns && p.value) {
		if (s->kind == PERFETTO_COUNTER_BUSY)
			busy_points(s, resolution, &p);
		else if (s->kind == PERFETTO_COUNTER_DEPTH)
			depth_points(s, &p);
		else
			fence_points(s, &p);
		if (resolution && s->kind != PERFETTO_COUNTER_BUSY)
			downsample(&p, resolution);
		status = write(data, s->kind, s->a, s->b, s->adapter_id, p.count, p.ns, p.value);
	}
	free(p.ns);
	free(p.value);
	/* Written: the change points are not needed any more. */
	free(s->first.data);
	free(s->second.data);
	s->first = s->second = (struct vec){0};
	return status;
}

fsa_status
perfetto_counters_write(struct perfetto_counters *c, const struct fsa_model *model,
			uint64_t resolution, perfetto_counter_fn write, void *data)
{
	fsa_status status = FSA_OK;
	size_t n = model ? fsa_model_fence_count(model) : 0;

	/* Each fence of the model with a global handle starts at its initial value when it was
	 * created (at its first step when the trace has no creation time). */
	for (size_t i = 0; i < n && status == FSA_OK; i++) {
		const struct fsa_fence_info *f = fsa_model_borrow_fence(model, i);
		struct series *s;
		struct fence_step first;

		if (!f->fence_global_handle)
			continue;
		s = get_series(c, PERFETTO_COUNTER_FENCE, f->fence_global_handle, 0, f->adapter_id);
		if (!s)
			return FSA_ERR_NOMEM;
		s->adapter_id = f->adapter_id;
		first = (struct fence_step){f->created_ns, f->initial_value, 0};
		if (first.ns == FSA_TIME_NONE) {
			first.ns = UINT64_MAX;
			for (size_t k = 0; k < s->first.len; k++)
				if (((struct fence_step *) s->first.data)[k].ns < first.ns)
					first.ns = ((struct fence_step *) s->first.data)[k].ns;
		}
		if (first.ns != UINT64_MAX && !vec_push(&s->first, &first, sizeof(first)))
			return FSA_ERR_NOMEM;
	}
	for (size_t i = 0; i < c->count && status == FSA_OK; i++)
		if (c->series[i].kind != PERFETTO_COUNTER_FENCE)
			status = write_series(&c->series[i], resolution, write, data);
	/* The fences after the engines and queues: those the model knows, when it is known. */
	for (size_t i = 0; i < c->count && status == FSA_OK; i++) {
		struct series *s = &c->series[i];

		if (s->kind == PERFETTO_COUNTER_FENCE &&
		    (!model || fsa_model_find_fence(model, s->a)))
			status = write_series(s, resolution, write, data);
	}
	return status;
}
