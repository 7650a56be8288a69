/* SPDX-License-Identifier: MIT */
/*
 * `fencescope diff` (fsa/diff.h): two reports side by side. Each side is a report (report.c) fed
 * through a sink that also keeps the packet durations (per queue, per process and in all); at
 * the end every queue, fence and process of each model gets a stable name (docs/report-schema.md
 * "Stable names"), the two sides are matched by those names, and the tables below compare each
 * statistic with a stated test of noise:
 *
 * - a quantile (p50, p95, p99) changed beyond noise when the distribution-free 95% confidence
 *   intervals of that quantile in BASE and in NEW (order statistics at the binomial ranks
 *   n·p ± 1.96·√(n·p·(1−p))) are disjoint; when a side's quantiles come from the histogram
 *   (more than 4096 samples) the change must also exceed the histogram's resolution (1/128);
 * - a count changed beyond noise when |NEW − BASE| > 1.96·√(NEW + BASE) (two Poisson counts);
 * - max is one sample: no test.
 *
 * No random numbers: the same two traces always give the same verdicts, and a trace against
 * itself gives zero deltas and no change. Per display, the frame time and present latency of
 * the frames that reached the screen come from fsa/frames.h, fed the markers as they pass.
 */
#include <math.h>
#include <string.h>

#include "fsa/diff.h"
#include "fsa/frames.h"
#include "report-private.h"

#define DIFF_METRIC_PACKET          FSA_METRIC_COUNT
#define DIFF_METRIC_FRAME_TIME      (FSA_METRIC_COUNT + 1)
#define DIFF_METRIC_PRESENT_LATENCY (FSA_METRIC_COUNT + 2)
#define DIFF_METRIC_MISSED_FRAME    (FSA_METRIC_COUNT + 3)
#define DIFF_METRICS                (FSA_METRIC_COUNT + 4)
#define DIFF_FRAME_METRICS          3
#define DIFF_Z                      1.96

struct diff_object {
	char scope;                /* 'a' the whole trace, 'p' process, 'q' queue, 'f' fence */
	char *name;                /* stable name, unique within the scope */
	uint64_t key;              /* process id or handle in its own trace */
	struct diff_object *match; /* the other side's, NULL: added or removed */
	struct fsa_quantile *q[DIFF_METRICS]; /* borrowed; NULL: no sample */
};

struct diff_side {
	struct fsa_report *report;
	const struct fsa_model *model;
	char *path;
	char *partial;
	struct fsa_model_sink sink;
	const struct fsa_model_sink *report_sink;
	GHashTable *queue_packets;   /* hwqueue_handle → struct fsa_quantile */
	GHashTable *process_packets; /* process id → struct fsa_quantile */
	struct fsa_quantile packet_all;
	/* Frames (fsa/frames.h): per display (adapter << 32 | source) and in all. */
	struct fsa_frame_builder *frames;
	GHashTable *display_frames; /* key → struct diff_display */
	/* Frame time, present latency, frame time of the frames that missed a vsync. */
	struct fsa_quantile frame_all[DIFF_FRAME_METRICS];
	GPtrArray *objects;  /* struct diff_object, [0] the whole trace */
	GHashTable *by_name; /* "scope:name" → struct diff_object (borrowed) */
};

struct fsa_diff {
	struct fsa_diff_options options;
	struct diff_side sides[2];
	GPtrArray *thresholds; /* struct fsa_threshold */
	GPtrArray *messages;   /* char *, one per threshold after finish */
	GArray *failed;        /* gboolean, one per threshold */
	GPtrArray *failures;   /* char *, the failed ones */
	bool is_finished;
};

static const char *const metric_names[DIFF_METRICS] = {
    "wait",       "wait_queued",     "wait_stalled",      "signal", "cpu_wait", "packet",
    "frame_time", "present_latency", "missed_frame_time",
};
/* Every metric has its name. */
G_STATIC_ASSERT(G_N_ELEMENTS(metric_names) == DIFF_METRICS);
/* A threshold's series is the index of the metric it measures (threshold_series()). */
G_STATIC_ASSERT((int) THRESHOLD_SERIES_PACKET == DIFF_METRIC_PACKET);
G_STATIC_ASSERT((int) THRESHOLD_SERIES_FRAME == DIFF_METRIC_FRAME_TIME);
G_STATIC_ASSERT((int) THRESHOLD_SERIES_PRESENT == DIFF_METRIC_PRESENT_LATENCY);

/* A display's frames: frame time and present latency of the frames that reached the screen. */
struct diff_display {
	uint64_t key; /* adapter << 32 | source; first: the hash key */
	uint32_t adapter_id, source_id;
	struct fsa_quantile q[DIFF_FRAME_METRICS];
};

/* --- The sink: the report's, plus packet durations ------------------------------------------ */

static void
quantile_free(gpointer data)
{
	quantile_fini(data);
	g_free(data);
}

static struct fsa_quantile *
packet_quantile(GHashTable *table, uint64_t key)
{
	struct fsa_quantile *q = g_hash_table_lookup(table, &key);

	if (!q) {
		uint64_t *k = g_new(uint64_t, 1);

		*k = key;
		q = g_new0(struct fsa_quantile, 1);
		quantile_init(q);
		g_hash_table_insert(table, k, q);
	}
	return q;
}

static fsa_status
side_op(void *data, const struct fsa_op *op)
{
	struct diff_side *s = data;

	return s->report_sink->op ? s->report_sink->op(s->report_sink->data, op) : FSA_OK;
}

static fsa_status
side_edge(void *data, const struct fsa_edge *edge)
{
	struct diff_side *s = data;

	return s->report_sink->edge ? s->report_sink->edge(s->report_sink->data, edge) : FSA_OK;
}

/* A packet's duration is its execution on the engine, start → end; with --begin/--end, of the
 * packets that overlap the window, as the report counts them. */
static fsa_status
side_packet(void *data, const struct fsa_packet *packet)
{
	struct diff_side *s = data;

	if (packet->start_ns != FSA_TIME_NONE && packet->end_ns != FSA_TIME_NONE &&
	    packet->end_ns >= packet->start_ns &&
	    report_in_range(s->report, packet->start_ns, packet->end_ns)) {
		uint64_t ns = packet->end_ns - packet->start_ns;
		const struct fsa_queue_info *queue =
		    s->model ? fsa_model_find_queue(s->model, packet->hwqueue_handle) : NULL;
		fsa_status status = quantile_add(&s->packet_all, ns);

		if (status == FSA_OK)
			status = quantile_add(
			    packet_quantile(s->queue_packets, packet->hwqueue_handle), ns);
		if (status == FSA_OK && queue)
			status = quantile_add(
			    packet_quantile(s->process_packets, queue->process_id), ns);
		if (status != FSA_OK)
			return status;
	}
	return s->report_sink->packet ? s->report_sink->packet(s->report_sink->data, packet)
				      : FSA_OK;
}

static void
display_free(gpointer data)
{
	struct diff_display *d = data;

	for (int i = 0; i < DIFF_FRAME_METRICS; i++)
		quantile_fini(&d->q[i]);
	g_free(d);
}

/* Frames that reached the screen (not pending presents): their frame time and present latency
 * per display and in all. */
static fsa_status
side_frame(void *data, const struct fsa_frame *frame)
{
	struct diff_side *s = data;
	uint64_t key = (uint64_t) frame->adapter_id << 32 | frame->source_id;
	struct diff_display *d;
	uint64_t values[DIFF_FRAME_METRICS] = {frame->frame_time_ns, frame->present_latency_ns,
					       frame->missed_vsyncs > 0 ? frame->frame_time_ns
									: FSA_TIME_NONE};

	/* Pending presents are left out; with --begin/--end, the frames that overlap the window
	 * (the report's frames section counts the same ones, frame-stats.c). */
	if (frame->is_pending ||
	    !report_in_range(s->report,
			     frame->begin_ns != FSA_TIME_NONE ? frame->begin_ns : frame->end_ns,
			     frame->end_ns))
		return FSA_OK;
	d = g_hash_table_lookup(s->display_frames, &key);
	if (!d) {
		d = g_new0(struct diff_display, 1);
		d->key = key;
		d->adapter_id = frame->adapter_id;
		d->source_id = frame->source_id;
		for (int i = 0; i < DIFF_FRAME_METRICS; i++)
			quantile_init(&d->q[i]);
		g_hash_table_insert(s->display_frames, &d->key, d);
	}
	for (int i = 0; i < DIFF_FRAME_METRICS; i++) {
		fsa_status status = FSA_OK;

		if (values[i] == FSA_TIME_NONE)
			continue;
		status = quantile_add(&d->q[i], values[i]);
		if (status == FSA_OK)
			status = quantile_add(&s->frame_all[i], values[i]);
		if (status != FSA_OK)
			return status;
	}
	return FSA_OK;
}

static fsa_status
side_marker(void *data, const struct fsa_marker *marker)
{
	struct diff_side *s = data;
	fsa_status status = fsa_frame_builder_add_marker(s->frames, marker);

	if (status != FSA_OK)
		return status;
	return s->report_sink->marker ? s->report_sink->marker(s->report_sink->data, marker)
				      : FSA_OK;
}

static fsa_status
side_loss(void *data, const struct fsa_loss *loss)
{
	struct diff_side *s = data;

	return s->report_sink->loss ? s->report_sink->loss(s->report_sink->data, loss) : FSA_OK;
}

static fsa_status
side_anomaly(void *data, const struct fsa_anomaly *anomaly)
{
	struct diff_side *s = data;

	return s->report_sink->anomaly ? s->report_sink->anomaly(s->report_sink->data, anomaly)
				       : FSA_OK;
}

static fsa_status
side_fence_value(void *data, const struct fsa_fence_value *step)
{
	struct diff_side *s = data;

	return s->report_sink->fence_value ? s->report_sink->fence_value(s->report_sink->data, step)
					   : FSA_OK;
}

static void
object_free(gpointer data)
{
	struct diff_object *o = data;

	g_free(o->name);
	g_free(o);
}

static bool
side_init(struct diff_side *s, const struct fsa_report_options *diff_options)
{
	struct fsa_report_options options = {
	    .begin = diff_options->begin,
	    .end = diff_options->end,
	    .frame_budget_ns = diff_options->frame_budget_ns,
	    .is_time_relative = diff_options->is_time_relative,
	};

	s->report = fsa_report_create(&options);
	if (!s->report)
		return false;
	s->report_sink = fsa_report_borrow_sink(s->report);
	s->sink = (struct fsa_model_sink){
	    .data = s,
	    .op = side_op,
	    .edge = side_edge,
	    .packet = side_packet,
	    .marker = side_marker,
	    .loss = side_loss,
	    .anomaly = side_anomaly,
	    .fence_value = side_fence_value,
	};
	s->queue_packets =
	    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, quantile_free);
	s->process_packets =
	    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, quantile_free);
	quantile_init(&s->packet_all);
	for (int i = 0; i < DIFF_FRAME_METRICS; i++)
		quantile_init(&s->frame_all[i]);
	s->display_frames = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, display_free);
	s->frames = fsa_frame_builder_create(side_frame, s);
	if (!s->frames)
		return false;
	s->objects = g_ptr_array_new_with_free_func(object_free);
	s->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return true;
}

static void
side_fini(struct diff_side *s)
{
	fsa_report_destroy(s->report);
	g_free(s->path);
	g_free(s->partial);
	if (s->queue_packets)
		g_hash_table_destroy(s->queue_packets);
	if (s->process_packets)
		g_hash_table_destroy(s->process_packets);
	quantile_fini(&s->packet_all);
	for (int i = 0; i < DIFF_FRAME_METRICS; i++)
		quantile_fini(&s->frame_all[i]);
	fsa_frame_builder_destroy(s->frames);
	if (s->display_frames)
		g_hash_table_destroy(s->display_frames);
	if (s->objects)
		g_ptr_array_free(s->objects, TRUE);
	if (s->by_name)
		g_hash_table_destroy(s->by_name);
}

struct fsa_diff *
fsa_diff_create(const struct fsa_diff_options *options)
{
	struct fsa_diff *diff = g_new0(struct fsa_diff, 1);

	if (options)
		diff->options = *options;
	for (int i = 0; i < 2; i++) {
		if (!side_init(&diff->sides[i], &diff->options.report)) {
			fsa_diff_destroy(diff);
			return NULL;
		}
	}
	diff->thresholds = g_ptr_array_new_with_free_func((GDestroyNotify) threshold_destroy);
	diff->messages = g_ptr_array_new_with_free_func(g_free);
	diff->failed = g_array_new(FALSE, TRUE, sizeof(gboolean));
	diff->failures = g_ptr_array_new_with_free_func(g_free);
	return diff;
}

void
fsa_diff_destroy(struct fsa_diff *diff)
{
	if (!diff)
		return;
	for (int i = 0; i < 2; i++)
		side_fini(&diff->sides[i]);
	if (diff->thresholds)
		g_ptr_array_free(diff->thresholds, TRUE);
	if (diff->messages)
		g_ptr_array_free(diff->messages, TRUE);
	if (diff->failed)
		g_array_free(diff->failed, TRUE);
	if (diff->failures)
		g_ptr_array_free(diff->failures, TRUE);
	g_free(diff);
}

const struct fsa_model_sink *
fsa_diff_borrow_sink(struct fsa_diff *diff, enum fsa_diff_side side)
{
	return &diff->sides[side == FSA_DIFF_NEW].sink;
}

void
fsa_diff_set_model(struct fsa_diff *diff, enum fsa_diff_side side, const struct fsa_model *model,
		   const char *path)
{
	struct diff_side *s = &diff->sides[side == FSA_DIFF_NEW];

	s->model = model;
	fsa_report_set_model(s->report, model);
	g_free(s->path);
	s->path = g_strdup(path);
}

fsa_status
fsa_diff_set_partial(struct fsa_diff *diff, enum fsa_diff_side side, const char *reason)
{
	struct diff_side *s = &diff->sides[side == FSA_DIFF_NEW];

	g_free(s->partial);
	s->partial = g_strdup(reason ? reason : "the trace could not be read to its end");
	return fsa_report_set_partial(s->report, s->partial);
}

fsa_status
fsa_diff_add_threshold(struct fsa_diff *diff, const char *expression, char **error_message)
{
	struct fsa_threshold *threshold = NULL;
	fsa_status status = threshold_parse_base(expression, true, &threshold, error_message);

	if (status == FSA_OK)
		g_ptr_array_add(diff->thresholds, threshold);
	return status;
}

/* --- Stable names --------------------------------------------------------------------------- */

static const char *
engine_type_name(uint8_t type)
{
	static const char *const names[] = {"3d", "compute", "copy", "video"};

	return type < G_N_ELEMENTS(names) ? names[type] : "engine";
}

static struct diff_object *
side_add_object(struct diff_side *s, char scope, char *name, uint64_t key)
{
	struct diff_object *o = g_new0(struct diff_object, 1);
	struct fsa_latency *latency =
	    scope == 'd' ? NULL : report_find_latency(s->report, scope, key);

	o->scope = scope;
	o->name = name;
	o->key = key;
	for (int m = 0; m < FSA_METRIC_COUNT; m++)
		o->q[m] = latency && latency->q[m].count ? &latency->q[m] : NULL;
	g_ptr_array_add(s->objects, o);
	g_hash_table_insert(s->by_name, g_strdup_printf("%c:%s", scope, name), o);
	return o;
}

static int
compare_display(gconstpointer a, gconstpointer b)
{
	const struct diff_display *x = *(const struct diff_display *const *) a;
	const struct diff_display *y = *(const struct diff_display *const *) b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Displays by adapter and source id: "gpuA.displayS". */
static void
add_displays(struct diff_side *s)
{
	GPtrArray *displays = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, s->display_frames);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		g_ptr_array_add(displays, value);

	g_ptr_array_sort(displays, compare_display);
	for (size_t i = 0; i < displays->len; i++) {
		struct diff_display *d = displays->pdata[i];
		struct diff_object *o = side_add_object(
		    s, 'd', g_strdup_printf("gpu%u.display%u", d->adapter_id, d->source_id),
		    d->key);

		for (int m = 0; m < DIFF_FRAME_METRICS; m++)
			o->q[DIFF_METRIC_FRAME_TIME + m] = d->q[m].count ? &d->q[m] : NULL;
	}
	g_ptr_array_free(displays, TRUE);
}

/* Names per docs/report-schema.md "Stable names": a process by its name and its rank among
 * the processes of that name; a queue by its process, adapter, engine type and index among the
 * adapter's engines of that type, mode and rank among that process's queues there; a fence by
 * its creating process and its rank among that process's fences. Ranks count in creation order
 * from 1. */
static void
side_name_objects(struct diff_side *s)
{
	GHashTable *process_names =
	    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	GHashTable *ranks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	struct diff_object *all = side_add_object(s, 'a', g_strdup("trace"), 0);
	size_t count;

	all->q[DIFF_METRIC_PACKET] = s->packet_all.count ? &s->packet_all : NULL;
	for (int i = 0; i < DIFF_FRAME_METRICS; i++)
		all->q[DIFF_METRIC_FRAME_TIME + i] =
		    s->frame_all[i].count ? &s->frame_all[i] : NULL;
	add_displays(s);
	if (!s->model)
		goto end;
	count = fsa_model_process_count(s->model);
	for (size_t i = 0; i < count; i++) {
		const struct fsa_process_info *p = fsa_model_borrow_process(s->model, i);
		const char *base = p->name && p->name[0] ? p->name : "process";
		char *rank_key = g_strdup_printf("p:%s", base);
		size_t rank = GPOINTER_TO_SIZE(g_hash_table_lookup(ranks, rank_key)) + 1;
		uint64_t *pid = g_new(uint64_t, 1);
		struct diff_object *o;
		struct fsa_quantile *packets;

		g_hash_table_replace(ranks, rank_key, GSIZE_TO_POINTER(rank));
		*pid = p->process_id;
		o = side_add_object(s, 'p', g_strdup_printf("%s#%zu", base, rank), p->process_id);
		g_hash_table_replace(process_names, pid, g_strdup(o->name));
		packets = g_hash_table_lookup(s->process_packets, pid);
		o->q[DIFF_METRIC_PACKET] = packets && packets->count ? packets : NULL;
	}
	count = fsa_model_queue_count(s->model);
	for (size_t i = 0; i < count; i++) {
		const struct fsa_queue_info *q = fsa_model_borrow_queue(s->model, i);
		uint64_t pid = q->process_id;
		const char *process = g_hash_table_lookup(process_names, &pid);
		size_t engine_count = fsa_model_engine_count(s->model), index = 0;
		char *engine, *rank_key;
		size_t rank;
		struct diff_object *o;
		struct fsa_quantile *packets;

		for (size_t e = 0; e < engine_count; e++) {
			const struct fsa_engine_info *info = fsa_model_borrow_engine(s->model, e);

			index += info->adapter_id == q->adapter_id &&
				 info->engine_type == q->engine_type &&
				 info->engine_id < q->engine_id;
		}
		engine = q->engine_type == UINT8_MAX
			     ? g_strdup_printf("gpu%u.engine%u", q->adapter_id, q->engine_id)
			     : g_strdup_printf("gpu%u.%s%zu", q->adapter_id,
					       engine_type_name(q->engine_type), index);
		rank_key = g_strdup_printf("q:%s/%s/%s", process ? process : "?", engine,
					   q->is_user_mode ? "user" : "kernel");
		rank = GPOINTER_TO_SIZE(g_hash_table_lookup(ranks, rank_key)) + 1;
		g_hash_table_replace(ranks, g_strdup(rank_key), GSIZE_TO_POINTER(rank));
		o = side_add_object(s, 'q', g_strdup_printf("%s#%zu", rank_key + 2, rank),
				    q->hwqueue_handle);
		packets = g_hash_table_lookup(s->queue_packets, &q->hwqueue_handle);
		o->q[DIFF_METRIC_PACKET] = packets && packets->count ? packets : NULL;
		g_free(rank_key);
		g_free(engine);
	}
	count = fsa_model_fence_count(s->model);
	for (size_t i = 0; i < count; i++) {
		const struct fsa_fence_info *f = fsa_model_borrow_fence(s->model, i);
		uint64_t pid = f->creator_process_id;
		const char *process = g_hash_table_lookup(process_names, &pid);
		char *rank_key = g_strdup_printf("f:%s", process ? process : "?");
		size_t rank = GPOINTER_TO_SIZE(g_hash_table_lookup(ranks, rank_key)) + 1;

		g_hash_table_replace(ranks, rank_key, GSIZE_TO_POINTER(rank));
		side_add_object(s, 'f',
				g_strdup_printf("%s/fence#%zu", process ? process : "?", rank),
				f->fence_global_handle);
	}
end:
	g_hash_table_destroy(ranks);
	g_hash_table_destroy(process_names);
}

static struct diff_object *
side_find_key(struct diff_side *s, char scope, uint64_t key)
{
	for (size_t i = 0; i < s->objects->len; i++) {
		struct diff_object *o = s->objects->pdata[i];

		if (o->scope == scope && (scope == 'a' || o->key == key))
			return o;
	}
	return NULL;
}

/* --- Statistics and the noise tests ------------------------------------------------------- */

/* The 95% distribution-free confidence interval of the p-quantile: the order statistics at the
 * binomial ranks n·p ± z·√(n·p·(1−p)), clamped to the sample. */
static void
quantile_interval(struct fsa_quantile *q, double p, uint64_t *low, uint64_t *high)
{
	double n = (double) q->count, mid = n * p, half = DIFF_Z * sqrt(n * p * (1 - p));
	double low_rank = floor(mid - half), high_rank = ceil(mid + half) + 1;

	low_rank = low_rank < 1 ? 1 : low_rank > n ? n : low_rank;
	high_rank = high_rank < 1 ? 1 : high_rank > n ? n : high_rank;
	/* Nearest rank: p = (k − ½)/n gives the k-th smallest value. */
	*low = quantile_value(q, (low_rank - 0.5) / n);
	*high = quantile_value(q, (high_rank - 0.5) / n);
}

static bool
count_beyond_noise(uint64_t base, uint64_t new_count)
{
	double d = fabs((double) new_count - (double) base);

	return d > DIFF_Z * sqrt((double) base + (double) new_count);
}

/* --- Tables --------------------------------------------------------------------------------- */

static void
add_cell(struct fsa_table *t, struct fsa_cell cell)
{
	g_array_append_val(t->cells, cell);
}

static void
add_u64(struct fsa_table *t, uint64_t v)
{
	add_cell(t, (struct fsa_cell){.u = v});
}

static void
add_i64(struct fsa_table *t, int64_t v)
{
	add_cell(t, (struct fsa_cell){.i = v});
}

static void
add_f64(struct fsa_table *t, double v)
{
	add_cell(t, (struct fsa_cell){.f = v});
}

static void
add_bool(struct fsa_table *t, bool v)
{
	add_cell(t, (struct fsa_cell){.b = v});
}

static void
add_str(struct fsa_table *t, const char *s)
{
	add_cell(t, s ? (struct fsa_cell){.s = g_strdup(s)} : (struct fsa_cell){.is_null = true});
}

static void
add_null(struct fsa_table *t)
{
	add_cell(t, (struct fsa_cell){.is_null = true});
}

static const char *
scope_name(char scope)
{
	return scope == 'p'   ? "process"
	       : scope == 'q' ? "queue"
	       : scope == 'f' ? "fence"
	       : scope == 'd' ? "display"
			      : "trace";
}

static char *
key_text(const struct diff_object *o)
{
	if (!o)
		return NULL;
	if (o->scope == 'a')
		return g_strdup("-");
	if (o->scope == 'd')
		return g_strdup_printf("%u.%u", (unsigned) (o->key >> 32), (unsigned) o->key);
	return o->scope == 'p' ? g_strdup_printf("%" G_GUINT64_FORMAT, o->key)
			       : g_strdup_printf("0x%" G_GINT64_MODIFIER "x", o->key);
}

static const struct fsa_column trace_columns[] = {
    {"base_path", "base", FSA_CELL_STRING},
    {"new_path", "new", FSA_CELL_STRING},
    {"base_events", "base events", FSA_CELL_U64},
    {"new_events", "new events", FSA_CELL_U64},
    {"base_partial_reason", "base partial because", FSA_CELL_STRING},
    {"new_partial_reason", "new partial because", FSA_CELL_STRING},
    {"matched", "matched", FSA_CELL_U64},
    {"added", "added", FSA_CELL_U64},
    {"removed", "removed", FSA_CELL_U64},
    {"changes_beyond_noise", "changes beyond noise", FSA_CELL_U64},
    {"quantile_test", "quantile test", FSA_CELL_STRING},
    {"count_test", "count test", FSA_CELL_STRING},
};

static const struct fsa_column times_columns[] = {
    {"path", "trace", FSA_CELL_STRING},
    {"first_ns", "first event", FSA_CELL_TIME},
    {"last_ns", "last event", FSA_CELL_TIME},
    {"filter_begin_ns", "filter begin", FSA_CELL_TIME},
    {"filter_end_ns", "filter end", FSA_CELL_TIME},
    {"origin_ns", "origin (trace ns)", FSA_CELL_U64},
};

/* With --begin/--end or relative times: each trace's time range and the window compared in it,
 * one table per side, because with --times relative each side's times count from its own first
 * event (the table's origin, also given as origin_ns; null in absolute mode). */
static void
add_times_tables(struct fsa_diff *diff, GPtrArray *tables)
{
	static const char *const names[2] = {"base_times", "new_times"};
	static const char *const titles[2] = {"Times in BASE", "Times in NEW"};
	const struct fsa_report_options *o = &diff->options.report;

	if (!o->begin.is_set && !o->end.is_set && !o->is_time_relative)
		return;
	for (int i = 0; i < 2; i++) {
		struct diff_side *s = &diff->sides[i];
		const struct fsa_summary *summary =
		    s->model ? fsa_model_borrow_summary(s->model) : NULL;
		uint64_t first = summary ? summary->first_ns : FSA_TIME_NONE;
		uint64_t last = summary ? summary->last_ns : FSA_TIME_NONE;
		struct fsa_table *t =
		    report_table_add(tables, "diff", names[i], titles[i], true, times_columns,
				     G_N_ELEMENTS(times_columns), NULL);

		/* Resolves the window in this trace (a no-op once an item was filtered). */
		report_in_range(s->report, FSA_TIME_NONE, FSA_TIME_NONE);
		add_str(t, s->path);
		add_cell(t, (struct fsa_cell){.is_null = first == FSA_TIME_NONE, .u = first});
		add_cell(t, (struct fsa_cell){.is_null = last == FSA_TIME_NONE, .u = last});
		add_cell(t,
			 (struct fsa_cell){.is_null = !o->begin.is_set, .u = s->report->begin_ns});
		add_cell(t, (struct fsa_cell){.is_null = s->report->end_ns == FSA_TIME_NONE,
					      .u = s->report->end_ns});
		if (o->is_time_relative && first != FSA_TIME_NONE) {
			t->time_origin_ns = first;
			add_u64(t, first);
		} else {
			add_null(t);
		}
	}
}

static const struct fsa_column match_columns[] = {
    {"scope", "scope", FSA_CELL_STRING},   {"name", "name", FSA_CELL_STRING},
    {"status", "status", FSA_CELL_STRING}, {"base_key", "base", FSA_CELL_STRING},
    {"new_key", "new", FSA_CELL_STRING},
};

static const struct fsa_column count_columns[] = {
    {"scope", "scope", FSA_CELL_STRING},    {"name", "name", FSA_CELL_STRING},
    {"metric", "metric", FSA_CELL_STRING},  {"base", "base", FSA_CELL_U64},
    {"new", "new", FSA_CELL_U64},           {"delta", "delta", FSA_CELL_I64},
    {"delta_pct", "delta %", FSA_CELL_F64}, {"is_beyond_noise", "beyond noise", FSA_CELL_BOOL},
};

static const struct fsa_column latency_columns[] = {
    {"scope", "scope", FSA_CELL_STRING},
    {"name", "name", FSA_CELL_STRING},
    {"metric", "metric", FSA_CELL_STRING},
    {"stat", "stat", FSA_CELL_STRING},
    {"base_ns", "base", FSA_CELL_DURATION},
    {"new_ns", "new", FSA_CELL_DURATION},
    {"delta_ns", "delta", FSA_CELL_DELTA},
    {"delta_pct", "delta %", FSA_CELL_F64},
    {"is_beyond_noise", "beyond noise", FSA_CELL_BOOL},
    {"base_low_ns", "base 95% from", FSA_CELL_DURATION},
    {"base_high_ns", "base to", FSA_CELL_DURATION},
    {"new_low_ns", "new 95% from", FSA_CELL_DURATION},
    {"new_high_ns", "new to", FSA_CELL_DURATION},
};

static const struct fsa_column anomaly_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},     {"base", "base", FSA_CELL_U64},
    {"new", "new", FSA_CELL_U64},          {"delta", "delta", FSA_CELL_I64},
    {"status", "status", FSA_CELL_STRING},
};

static const struct fsa_column loss_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},
    {"base_lost", "base lost", FSA_CELL_U64},
    {"new_lost", "new lost", FSA_CELL_U64},
    {"delta_lost", "delta", FSA_CELL_I64},
    {"base_records", "base records", FSA_CELL_U64},
    {"new_records", "new records", FSA_CELL_U64},
};

static const struct fsa_column threshold_columns[] = {
    {"expression", "expression", FSA_CELL_STRING},
    {"is_failed", "failed", FSA_CELL_BOOL},
    {"result", "result", FSA_CELL_STRING},
};

static void
add_pct(struct fsa_table *t, double base, double new_value)
{
	if (base == 0)
		add_null(t);
	else
		add_f64(t, round((new_value - base) / base * 100000) / 1000);
}

static uint64_t
count_of(const struct diff_object *o, int metric)
{
	return o && o->q[metric] ? o->q[metric]->count : 0;
}

/* The count row and the p50/p95/p99/max rows of one metric of a matched pair; returns how many
 * of them changed beyond noise. */
static size_t
add_metric_rows(struct fsa_table *counts, struct fsa_table *latency, struct diff_object *b,
		struct diff_object *n, int metric)
{
	static const struct {
		const char *name;
		double p;
	} stats[] = {{"p50", 0.50}, {"p95", 0.95}, {"p99", 0.99}, {"max", 1.0}};
	uint64_t bc = count_of(b, metric), nc = count_of(n, metric);
	size_t changes = 0;
	bool is_beyond;

	if (bc == 0 && nc == 0)
		return 0;
	is_beyond = count_beyond_noise(bc, nc);
	changes += is_beyond;
	add_str(counts, scope_name(n->scope));
	add_str(counts, n->name);
	add_str(counts, metric_names[metric]);
	add_u64(counts, bc);
	add_u64(counts, nc);
	add_i64(counts, (int64_t) nc - (int64_t) bc);
	add_pct(counts, (double) bc, (double) nc);
	add_bool(counts, is_beyond);
	if (bc == 0 || nc == 0)
		return changes;
	for (size_t i = 0; i < G_N_ELEMENTS(stats); i++) {
		struct fsa_quantile *bq = b->q[metric], *nq = n->q[metric];
		bool is_max = stats[i].p >= 1.0;
		uint64_t bv = is_max ? bq->max : quantile_value(bq, stats[i].p);
		uint64_t nv = is_max ? nq->max : quantile_value(nq, stats[i].p);
		uint64_t bl = 0, bh = 0, nl = 0, nh = 0;

		add_str(latency, scope_name(n->scope));
		add_str(latency, n->name);
		add_str(latency, metric_names[metric]);
		add_str(latency, stats[i].name);
		add_u64(latency, bv);
		add_u64(latency, nv);
		add_i64(latency, (int64_t) (nv - bv));
		add_pct(latency, (double) bv, (double) nv);
		if (is_max) {
			for (int c = 0; c < 5; c++)
				add_null(latency);
			continue;
		}
		quantile_interval(bq, stats[i].p, &bl, &bh);
		quantile_interval(nq, stats[i].p, &nl, &nh);
		is_beyond = nl > bh || nh < bl;
		/* Histogram quantiles are within 1/256 of the truth: a smaller change is not one.
		 */
		if (is_beyond && (!quantile_is_exact(bq) || !quantile_is_exact(nq)))
			is_beyond =
			    (double) (nv > bv ? nv - bv : bv - nv) > (double) MAX(nv, bv) / 128.0;
		changes += is_beyond;
		add_bool(latency, is_beyond);
		add_u64(latency, bl);
		add_u64(latency, bh);
		add_u64(latency, nl);
		add_u64(latency, nh);
	}
	return changes;
}

static GPtrArray *
diff_build_tables(struct fsa_diff *diff)
{
	struct diff_side *base = &diff->sides[0], *new_side = &diff->sides[1];
	GPtrArray *tables = report_tables_new();
	struct fsa_table *traces =
	    report_table_add(tables, "diff", "traces", "Traces", true, trace_columns,
			     G_N_ELEMENTS(trace_columns), NULL);
	struct fsa_table *match;

	add_times_tables(diff, tables);
	match = report_table_add(tables, "diff", "matching", "Added and removed (matched by name)",
				 false, match_columns, G_N_ELEMENTS(match_columns),
				 "every queue, fence and process matched");
	struct fsa_table *counts =
	    report_table_add(tables, "diff", "counts", "Operation counts", false, count_columns,
			     G_N_ELEMENTS(count_columns), "no operation in either trace");
	struct fsa_table *latency = report_table_add(
	    tables, "diff", "latency", "Latency percentiles", false, latency_columns,
	    G_N_ELEMENTS(latency_columns), "no metric measured in both traces");
	struct fsa_table *anomalies = report_table_add(
	    tables, "diff", "anomalies", "Anomalies by kind", false, anomaly_columns,
	    G_N_ELEMENTS(anomaly_columns), "no anomaly in either");
	struct fsa_table *losses =
	    report_table_add(tables, "diff", "losses", "Lost data by kind", false, loss_columns,
			     G_N_ELEMENTS(loss_columns), NULL);
	size_t matched = 0, added = 0, removed = 0, changes = 0;

	counts->key_columns = 3;
	latency->key_columns = 4;
	/* The confidence intervals are for JSON and CSV: text stays one line per row. */
	latency->text_column_count = 9;
	match->key_columns = 2;
	for (size_t i = 0; i < new_side->objects->len; i++) {
		struct diff_object *n = new_side->objects->pdata[i];

		if (!n->match) {
			char *key = key_text(n);

			added++;
			add_str(match, scope_name(n->scope));
			add_str(match, n->name);
			add_str(match, "added");
			add_null(match);
			add_str(match, key);
			g_free(key);
			continue;
		}
		matched++;
		for (int m = 0; m < DIFF_METRICS; m++)
			changes += add_metric_rows(counts, latency, n->match, n, m);
	}
	for (size_t i = 0; i < base->objects->len; i++) {
		struct diff_object *b = base->objects->pdata[i];
		char *key;

		if (b->match)
			continue;
		removed++;
		key = key_text(b);
		add_str(match, scope_name(b->scope));
		add_str(match, b->name);
		add_str(match, "removed");
		add_str(match, key);
		add_null(match);
		g_free(key);
	}
	for (int k = 0; k < FSA_ANOM_KIND_COUNT; k++) {
		uint64_t bc = base->report->anomaly_counts[k],
			 nc = new_side->report->anomaly_counts[k];

		if (bc == 0 && nc == 0)
			continue;
		add_str(anomalies, fsa_anomaly_kind_name(k));
		add_u64(anomalies, bc);
		add_u64(anomalies, nc);
		add_i64(anomalies, (int64_t) nc - (int64_t) bc);
		add_str(anomalies, bc == 0   ? "new"
				   : nc == 0 ? "vanished"
				   : nc > bc ? "more"
				   : nc < bc ? "fewer"
					     : "same");
	}
	for (int k = 0; k < FSA_LOSS_KIND_COUNT; k++) {
		add_str(losses, fsa_loss_kind_name(k));
		add_u64(losses, base->report->lost_by_kind[k]);
		add_u64(losses, new_side->report->lost_by_kind[k]);
		add_i64(losses, (int64_t) new_side->report->lost_by_kind[k] -
				    (int64_t) base->report->lost_by_kind[k]);
		add_u64(losses, base->report->loss_records_by_kind[k]);
		add_u64(losses, new_side->report->loss_records_by_kind[k]);
	}
	for (int i = 0; i < 2; i++)
		add_str(traces, diff->sides[i].path);
	for (int i = 0; i < 2; i++) {
		const struct fsa_summary *summary =
		    diff->sides[i].model ? fsa_model_borrow_summary(diff->sides[i].model) : NULL;

		add_u64(traces, summary ? summary->event_count : 0);
	}
	add_str(traces, base->partial);
	add_str(traces, new_side->partial);
	add_u64(traces, matched);
	add_u64(traces, added);
	add_u64(traces, removed);
	add_u64(traces, changes);
	add_str(traces, "p50/p95/p99: the 95% order-statistic confidence intervals of BASE and NEW "
			"are disjoint");
	add_str(traces, "|NEW - BASE| > 1.96 * sqrt(BASE + NEW)");
	if (diff->thresholds->len > 0) {
		struct fsa_table *t =
		    report_table_add(tables, "thresholds", "thresholds", "Thresholds", false,
				     threshold_columns, G_N_ELEMENTS(threshold_columns), NULL);

		for (size_t i = 0; i < diff->thresholds->len; i++) {
			add_str(t, threshold_expression(diff->thresholds->pdata[i]));
			add_bool(t, g_array_index(diff->failed, gboolean, i));
			add_str(t, diff->messages->pdata[i]);
		}
	}
	return tables;
}

static const struct {
	const char *name;
	enum fsa_diff_table table;
} table_names[] = {
    {"traces", FSA_DIFF_TRACES}, {"times", FSA_DIFF_TIMES},     {"matching", FSA_DIFF_MATCHING},
    {"counts", FSA_DIFF_COUNTS}, {"latency", FSA_DIFF_LATENCY}, {"anomalies", FSA_DIFF_ANOMALIES},
    {"losses", FSA_DIFF_LOSSES},
};

fsa_status
fsa_diff_parse_tables(const char *text, unsigned *tables, char **error_message)
{
	char **words = g_strsplit(text ? text : "", ",", -1);
	fsa_status status = FSA_OK;

	*tables = 0;
	for (size_t i = 0; words[i] && status == FSA_OK; i++) {
		const char *word = g_strstrip(words[i]);
		bool is_known = strcmp(word, "all") == 0;

		if (is_known)
			*tables |= FSA_DIFF_ALL_TABLES;
		for (size_t t = 0; t < G_N_ELEMENTS(table_names) && !is_known; t++) {
			if (strcmp(word, table_names[t].name) == 0) {
				*tables |= table_names[t].table;
				is_known = true;
			}
		}
		if (!is_known) {
			report_set_error(error_message,
					 "'%s' is not a table of diff (traces, times, matching, "
					 "counts, latency, anomalies, losses, all)",
					 word);
			status = FSA_ERR_INVALID;
		}
	}
	if (status == FSA_OK && !*tables) {
		report_set_error(error_message, "--sections names no table");
		status = FSA_ERR_INVALID;
	}
	g_strfreev(words);
	return status;
}

/* The tables --sections left out are dropped once built: the counts of `traces` (changes beyond
 * noise, matched) are the same whatever is shown. */
static void
drop_unselected_tables(const struct fsa_diff *diff, GPtrArray *tables)
{
	unsigned selected = diff->options.tables ? diff->options.tables : FSA_DIFF_ALL_TABLES;

	for (guint i = tables->len; i-- > 0;) {
		const struct fsa_table *t = tables->pdata[i];
		unsigned bit = strcmp(t->section, "thresholds") == 0 ? 0
			       : g_str_has_suffix(t->name, "_times") ? FSA_DIFF_TIMES
								     : 0;

		for (size_t n = 0; n < G_N_ELEMENTS(table_names) && !bit; n++)
			if (strcmp(t->name, table_names[n].name) == 0 &&
			    strcmp(t->section, "diff") == 0)
				bit = table_names[n].table;
		if (bit && !(selected & bit))
			g_ptr_array_remove_index(tables, i);
	}
}

/* --- Finish and write ----------------------------------------------------------------------- */

static struct diff_object *
side_find_name(struct diff_side *s, char scope, const char *name)
{
	char *key = g_strdup_printf("%c:%s", scope, name);
	struct diff_object *o = g_hash_table_lookup(s->by_name, key);

	g_free(key);
	return o;
}

/* A scope names NEW's object by key, or in diff by its stable name; BASE's is the one matched
 * to it. A name found in neither trace measures nothing. */
static void
check_thresholds(struct fsa_diff *diff)
{
	struct diff_side *base = &diff->sides[0], *new_side = &diff->sides[1];

	for (size_t i = 0; i < diff->thresholds->len; i++) {
		const struct fsa_threshold *t = diff->thresholds->pdata[i];
		uint64_t key = 0;
		const char *name = NULL;
		char scope = threshold_scope(t, &key, &name);
		struct diff_object *n = name ? side_find_name(new_side, scope, name)
					     : side_find_key(new_side, scope, key);
		struct diff_object *b = n      ? n->match
					: name ? side_find_name(base, scope, name)
					       : NULL;
		char *message = NULL;
		gboolean is_failed = FALSE;

		enum threshold_series series = threshold_series(t);

		if (name && !n) {
			message = g_strdup_printf("%s: no %s named %s in the new trace%s",
						  threshold_expression(t), scope_name(scope), name,
						  b ? " (it is in the base)" : "");
		} else if (series != THRESHOLD_SERIES_NONE && n) {
			/* The samples the tables show: packet, frame and present series are the
			 * diff's own, the latency metrics the report's (borrowed). */
			is_failed = threshold_check_series(t, b ? b->q[series] : NULL, b != NULL,
							   n->q[series], &message);
		} else if (!threshold_has_base(t)) {
			is_failed =
			    threshold_check_key(t, new_side->report, n ? n->key : key, &message);
			if (!message)
				message = g_strdup_printf("%s: no value in the new trace",
							  threshold_expression(t));
		} else {
			is_failed =
			    threshold_check_base(t, b ? base->report : NULL, b ? b->key : 0,
						 new_side->report, n ? n->key : key, &message);
		}
		g_ptr_array_add(diff->messages, message);
		g_array_append_val(diff->failed, is_failed);
		if (is_failed)
			g_ptr_array_add(diff->failures, g_strdup(message));
	}
}

fsa_status
fsa_diff_finish(struct fsa_diff *diff)
{
	fsa_status status = FSA_OK;

	if (diff->is_finished)
		return FSA_OK;
	for (int i = 0; i < 2 && status == FSA_OK; i++)
		status = fsa_frame_builder_finish(diff->sides[i].frames);
	for (int i = 0; i < 2 && status == FSA_OK; i++)
		status = fsa_report_finish(diff->sides[i].report);
	if (status != FSA_OK)
		return status;
	for (int i = 0; i < 2; i++)
		side_name_objects(&diff->sides[i]);
	for (size_t i = 0; i < diff->sides[1].objects->len; i++) {
		struct diff_object *n = diff->sides[1].objects->pdata[i];
		char *key = g_strdup_printf("%c:%s", n->scope, n->name);
		struct diff_object *b = g_hash_table_lookup(diff->sides[0].by_name, key);

		g_free(key);
		if (b) {
			n->match = b;
			b->match = n;
		}
	}
	check_thresholds(diff);
	diff->is_finished = true;
	return FSA_OK;
}

fsa_status
fsa_diff_write(struct fsa_diff *diff, enum fsa_report_format format, FILE *out)
{
	fsa_status status = diff->is_finished ? FSA_OK : fsa_diff_finish(diff);
	GPtrArray *tables;

	if (status != FSA_OK)
		return status;
	tables = diff_build_tables(diff);
	drop_unselected_tables(diff, tables);
	switch (format) {
	case FSA_REPORT_FORMAT_JSON:
		status = tables_write_json(tables, FSA_DIFF_SCHEMA_VERSION, out);
		break;
	case FSA_REPORT_FORMAT_CSV:
		status = report_write_csv(NULL, tables, out);
		break;
	case FSA_REPORT_FORMAT_TEXT:
	default: {
		char *title = g_strdup_printf("fencescope diff  %s  %s",
					      diff->sides[0].path ? diff->sides[0].path : "BASE",
					      diff->sides[1].path ? diff->sides[1].path : "NEW");
		char *partial = NULL;

		if (diff->sides[0].partial || diff->sides[1].partial)
			partial = g_strdup_printf(
			    "%s%s%s%s%s", diff->sides[0].partial ? "base: " : "",
			    diff->sides[0].partial ? diff->sides[0].partial : "",
			    diff->sides[0].partial && diff->sides[1].partial ? "; " : "",
			    diff->sides[1].partial ? "new: " : "",
			    diff->sides[1].partial ? diff->sides[1].partial : "");
		status = tables_write_text(tables, title, partial,
					   diff->options.is_text_wide ? 0 : FSA_REPORT_TEXT_COLUMNS,
					   out);
		g_free(partial);
		g_free(title);
		break;
	}
	}
	g_ptr_array_free(tables, TRUE);
	if (status == FSA_OK && (fflush(out) != 0 || ferror(out)))
		status = FSA_ERR_IO;
	return status;
}

size_t
fsa_diff_failure_count(const struct fsa_diff *diff)
{
	return diff->failures->len;
}

const char *
fsa_diff_borrow_failure(const struct fsa_diff *diff, size_t index)
{
	return index < diff->failures->len ? diff->failures->pdata[index] : NULL;
}
