/* SPDX-License-Identifier: MIT */
/*
 * The finished report as tables: every section is one or more tables of typed cells, built once
 * here and then only formatted by write-text.c, write-json.c and write-csv.c, so the three
 * formats carry the same numbers. Rows are sorted by stable keys (handles, ids, names), never by
 * hash order, so the output of a trace is the same byte for byte on every run (golden tests).
 * The columns are the schema: docs/report-schema.md lists each one.
 */
#include <stdlib.h>
#include <string.h>

#include "critical-path-private.h"
#include "fencescope-tp-enums.h"
#include "frame-stats-private.h"
#include "mmu-xad-private.h"
#include "recovery-private.h"
#include "report-private.h"

#define COLUMNS(array) (array), (sizeof(array) / sizeof((array)[0]))

static void
table_free(gpointer data)
{
	struct fsa_table *table = data;
	size_t rows = table_row_count(table);

	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < table->column_count; c++)
			if (table->columns[c].type == FSA_CELL_STRING)
				g_free(g_array_index(table->cells, struct fsa_cell,
						     r * table->column_count + c)
					   .s);
	g_array_free(table->cells, TRUE);
	g_free(table);
}

GPtrArray *
report_tables_new(void)
{
	return g_ptr_array_new_with_free_func(table_free);
}

size_t
table_row_count(const struct fsa_table *table)
{
	return table->cells->len / table->column_count;
}

const struct fsa_cell *
table_cell(const struct fsa_table *table, size_t row, size_t column)
{
	return &g_array_index(table->cells, struct fsa_cell, row * table->column_count + column);
}

static struct fsa_table *
table_new(GPtrArray *tables, const char *section, const char *name, const char *title,
	  bool is_record, const struct fsa_column *columns, size_t column_count,
	  const char *empty_text)
{
	struct fsa_table *table = g_new0(struct fsa_table, 1);

	table->section = section;
	table->name = name;
	table->title = title;
	table->is_record = is_record;
	table->columns = columns;
	table->column_count = column_count;
	table->cells = g_array_new(FALSE, TRUE, sizeof(struct fsa_cell));
	table->empty_text = empty_text;
	table->time_origin_ns = FSA_TIME_NONE;
	g_ptr_array_add(tables, table);
	return table;
}

struct fsa_table *
report_table_add(GPtrArray *tables, const char *section, const char *name, const char *title,
		 bool is_record, const struct fsa_column *columns, size_t column_count,
		 const char *empty_text)
{
	return table_new(tables, section, name, title, is_record, columns, column_count,
			 empty_text);
}

static void
add_u64(struct fsa_table *t, uint64_t value)
{
	struct fsa_cell cell = {.u = value};

	g_array_append_val(t->cells, cell);
}

/* A u64 where FSA_TIME_NONE (or UINT32_MAX for ids) means "not known". */
static void
add_opt(struct fsa_table *t, uint64_t value, uint64_t none)
{
	struct fsa_cell cell = {.is_null = value == none, .u = value};

	g_array_append_val(t->cells, cell);
}

static void
add_null(struct fsa_table *t)
{
	struct fsa_cell cell = {.is_null = true};

	g_array_append_val(t->cells, cell);
}

static void
add_i64(struct fsa_table *t, int64_t value)
{
	struct fsa_cell cell = {.i = value};

	g_array_append_val(t->cells, cell);
}

static void
add_f64(struct fsa_table *t, double value)
{
	struct fsa_cell cell = {.f = value};

	g_array_append_val(t->cells, cell);
}

static void
add_bool(struct fsa_table *t, bool value)
{
	struct fsa_cell cell = {.b = value};

	g_array_append_val(t->cells, cell);
}

static void
add_str(struct fsa_table *t, const char *value)
{
	/* Names come from the trace: bytes that are not UTF-8 would make the JSON invalid and the
	 * text writer's width count (g_utf8_strlen) read past the end; they become U+FFFD. */
	struct fsa_cell cell = {.is_null = value == NULL,
				.s = value ? g_utf8_make_valid(value, -1) : NULL};

	g_array_append_val(t->cells, cell);
}

/* --- Shared column sets ----------------------------------------------------------------------- */

#define STAT_COLUMNS                                                                               \
	{"count", "count", FSA_CELL_U64}, {"min_ns", "min", FSA_CELL_DURATION},                    \
	    {"p50_ns", "p50", FSA_CELL_DURATION}, {"p95_ns", "p95", FSA_CELL_DURATION},            \
	    {"p99_ns", "p99", FSA_CELL_DURATION}, {"max_ns", "max", FSA_CELL_DURATION},            \
	    {"total_ns", "total", FSA_CELL_DURATION},                                              \
	{                                                                                          \
		"is_exact", "exact", FSA_CELL_BOOL                                                 \
	}

/* The statistic's columns; `count` may differ from the samples (markers without a duration). */
static void
add_stats_count(struct fsa_table *t, struct fsa_quantile *q, uint64_t count)
{
	add_u64(t, count);
	if (q->count == 0) {
		for (int i = 0; i < 5; i++)
			add_null(t);
	} else {
		add_u64(t, q->min);
		add_u64(t, quantile_value(q, 0.50));
		add_u64(t, quantile_value(q, 0.95));
		add_u64(t, quantile_value(q, 0.99));
		add_u64(t, q->max);
	}
	add_u64(t, q->total);
	add_bool(t, quantile_is_exact(q));
}

static void
add_stats(struct fsa_table *t, struct fsa_quantile *q)
{
	add_stats_count(t, q, q->count);
}

static int
compare_key(const void *a, const void *b)
{
	uint64_t x = **(const uint64_t *const *) a, y = **(const uint64_t *const *) b;

	return x < y ? -1 : x > y;
}

/* The values of a hash table whose structs start with their u64 key, sorted by key. */
static GPtrArray *
sorted_values(GHashTable *table)
{
	GPtrArray *values = g_ptr_array_sized_new(g_hash_table_size(table));
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, table);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		g_ptr_array_add(values, value);
	if (values->len > 1)
		qsort(values->pdata, values->len, sizeof(gpointer), compare_key);
	return values;
}

/* g_ptr_array_sort passes pointers to the elements. */
static gint
compare_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static const char *
mode_name(enum fsa_op_source source)
{
	return fsa_op_source_name(source);
}

static const char *
clock_mode_name(uint8_t mode)
{
	return mode == 0 ? "sim" : mode == 1 ? "realtime" : "unknown";
}

static const char *
log_type_name(uint8_t log_type)
{
	return log_type == 0 ? "waits" : log_type == 1 ? "signals" : "unknown";
}

/* --- Sections --------------------------------------------------------------------------------- */

static const struct fsa_column summary_columns[] = {
    {"format_version", "trace format", FSA_CELL_STRING},
    {"has_trace_info", "has trace_info", FSA_CELL_BOOL},
    {"clock_mode", "clock", FSA_CELL_STRING},
    {"trace_clock", "trace clock", FSA_CELL_STRING},
    {"gpu_time", "GPU time", FSA_CELL_STRING},
    {"runtime_version", "runtime", FSA_CELL_STRING},
    {"first_ns", "first event", FSA_CELL_TIME},
    {"last_ns", "last event", FSA_CELL_TIME},
    {"duration_ns", "duration", FSA_CELL_DURATION},
    {"filter_begin_ns", "filter begin", FSA_CELL_TIME},
    {"filter_end_ns", "filter end", FSA_CELL_TIME},
    {"is_partial", "partial", FSA_CELL_BOOL},
    {"partial_reason", "partial because", FSA_CELL_STRING},
    {"events", "events", FSA_CELL_U64},
    {"queues", "queues", FSA_CELL_U64},
    {"fences", "fences", FSA_CELL_U64},
    {"processes", "processes", FSA_CELL_U64},
    {"user_mode_waits", "user-mode waits", FSA_CELL_U64},
    {"user_mode_signals", "user-mode signals", FSA_CELL_U64},
    {"kernel_mode_waits", "kernel-mode waits", FSA_CELL_U64},
    {"kernel_mode_signals", "kernel-mode signals", FSA_CELL_U64},
    {"cpu_waits", "CPU waits", FSA_CELL_U64},
    {"cpu_signals", "CPU signals", FSA_CELL_U64},
    {"observed_ops", "observed ops", FSA_CELL_U64},
    {"inferred_ops", "inferred ops", FSA_CELL_U64},
    {"never_completed_ops", "never completed ops", FSA_CELL_U64},
    {"unqueued_ops", "unqueued ops", FSA_CELL_U64},
    {"edges", "signal→wait edges", FSA_CELL_U64},
    {"packets", "packets", FSA_CELL_U64},
    {"log_entries_read", "log entries read", FSA_CELL_U64},
    {"log_entries_lost", "log entries lost", FSA_CELL_U64},
    {"overruns", "log overruns", FSA_CELL_U64},
    {"tracer_discarded_events", "tracer discarded events", FSA_CELL_U64},
    {"tracer_discarded_packets", "tracer discarded packets", FSA_CELL_U64},
    {"anomalies", "anomalies", FSA_CELL_U64},
    {"clamped_times", "times clamped", FSA_CELL_U64},
};

static const struct fsa_column event_columns[] = {
    {"event", "event", FSA_CELL_STRING},
    {"count", "count", FSA_CELL_U64},
};

static const struct fsa_column queue_columns[] = {
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"process_id", "process", FSA_CELL_U64},
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"mode", "mode", FSA_CELL_STRING},
    {"waits", "waits", FSA_CELL_U64},
    {"signals", "signals", FSA_CELL_U64},
    {"observed", "observed", FSA_CELL_U64},
    {"inferred", "inferred", FSA_CELL_U64},
    {"never_completed", "never completed", FSA_CELL_U64},
    {"unqueued", "unqueued", FSA_CELL_U64},
};

/* The adapters whose GPU times had no clock pair to be placed with (docs/analyzer.md "GPU
 * time"): a recording at --loglevel INFO (clock_correlation is DEBUG). An adapter is known to the
 * model from its adapter_describe, so it has a fit, of 0 pairs. A sim run recorded on a real
 * clock (unmapped) has no pairs either, but for another cause, said by gpu_time and its
 * trace_clock_mismatch anomaly. */
static size_t
unplaced_adapter_count(const struct fsa_report *r, const struct fsa_summary *s)
{
	size_t count = r->model ? fsa_model_clock_fit_count(r->model) : 0, unplaced = 0;

	if (!s || s->gpu_time == FSA_GPU_TIME_UNMAPPED)
		return 0;
	for (size_t i = 0; i < count; i++)
		unplaced += fsa_model_borrow_clock_fit(r->model, i)->pair_count == 0;
	return unplaced;
}

/* summary.gpu_time: how GPU times were placed; "not_placed" when no adapter had a clock pair
 * (the model's CORRELATED is only its starting value then). */
static const char *
gpu_time_text(const struct fsa_report *r, const struct fsa_summary *s)
{
	size_t count = r->model ? fsa_model_clock_fit_count(r->model) : 0;

	if (!s || !count)
		return NULL;
	if (unplaced_adapter_count(r, s) == count)
		return "not_placed";
	return fsa_gpu_time_name(s->gpu_time);
}

static void
build_summary(struct fsa_report *r, GPtrArray *tables)
{
	const struct fsa_summary *s = r->model ? fsa_model_borrow_summary(r->model) : NULL;
	struct fsa_table *t =
	    table_new(tables, "summary", "trace", "Summary", true, COLUMNS(summary_columns), NULL);
	char version[32];

	if (s && s->has_trace_info) {
		snprintf(version, sizeof(version), "%u.%u", s->format_major, s->format_minor);
		add_str(t, version);
	} else {
		add_str(t, NULL);
	}
	add_bool(t, s && s->has_trace_info);
	add_str(t, s && s->has_trace_info ? clock_mode_name(s->clock_mode) : NULL);
	add_str(t, s && s->trace_clock ? fsa_trace_clock_name(s->trace_clock) : NULL);
	add_str(t, gpu_time_text(r, s));
	add_str(t, s && s->runtime_version && s->runtime_version[0] ? s->runtime_version : NULL);
	uint64_t first = s ? s->first_ns : FSA_TIME_NONE, last = s ? s->last_ns : FSA_TIME_NONE;

	add_opt(t, first, FSA_TIME_NONE);
	add_opt(t, last, FSA_TIME_NONE);
	add_opt(t, first != FSA_TIME_NONE && last != FSA_TIME_NONE ? last - first : FSA_TIME_NONE,
		FSA_TIME_NONE);
	add_opt(t, r->options.begin.is_set ? r->begin_ns : FSA_TIME_NONE, FSA_TIME_NONE);
	add_opt(t, r->end_ns, FSA_TIME_NONE);
	add_bool(t, r->partial_reason != NULL);
	add_str(t, r->partial_reason);
	add_u64(t, s ? s->event_count : 0);
	add_u64(t, r->model ? fsa_model_queue_count(r->model) : g_hash_table_size(r->queues));
	add_u64(t, r->model ? fsa_model_fence_count(r->model) : g_hash_table_size(r->fences));
	add_u64(t, r->model ? fsa_model_process_count(r->model) : g_hash_table_size(r->processes));
	add_u64(t, r->op_counts[FSA_SRC_USER_MODE_QUEUE][FSA_OP_WAIT]);
	add_u64(t, r->op_counts[FSA_SRC_USER_MODE_QUEUE][FSA_OP_SIGNAL]);
	add_u64(t, r->op_counts[FSA_SRC_KERNEL_MODE_QUEUE][FSA_OP_WAIT]);
	add_u64(t, r->op_counts[FSA_SRC_KERNEL_MODE_QUEUE][FSA_OP_SIGNAL]);
	add_u64(t, r->op_counts[FSA_SRC_CPU][FSA_OP_WAIT]);
	add_u64(t, r->op_counts[FSA_SRC_CPU][FSA_OP_SIGNAL]);
	for (int state = 0; state < 4; state++)
		add_u64(t, r->state_counts[state]);
	add_u64(t, r->edge_count);
	add_u64(t, r->packet_count);
	add_u64(t, s ? s->log_entries_read : 0);
	add_u64(t, r->lost_by_kind[FSA_LOSS_LOG_OVERRUN]);
	add_u64(t, r->loss_records_by_kind[FSA_LOSS_LOG_OVERRUN]);
	add_u64(t, r->lost_by_kind[FSA_LOSS_TRACER_EVENTS]);
	add_u64(t, r->lost_by_kind[FSA_LOSS_TRACER_PACKETS]);
	add_u64(t, r->anomaly_total);
	add_u64(t, s ? s->clamped_times : 0);

	t = table_new(tables, "summary", "events", "Events by type (whole trace)", false,
		      COLUMNS(event_columns), "no events");
	if (s) {
		/* Sorted by name: the contract's order is not alphabetical. */
		GPtrArray *names = g_ptr_array_new();

		for (int type = 1; type < FSA_EV_COUNT; type++)
			if (s->event_counts[type])
				g_ptr_array_add(names, (gpointer) fsa_event_type_name(type));
		g_ptr_array_sort(names, compare_name);
		for (size_t i = 0; i < names->len; i++) {
			const char *name = names->pdata[i];

			add_str(t, name);
			add_u64(t, s->event_counts[fsa_event_type_from_name(name)]);
		}
		if (s->event_counts[FSA_EV_UNKNOWN]) {
			add_str(t, "(other providers)");
			add_u64(t, s->event_counts[FSA_EV_UNKNOWN]);
		}
		g_ptr_array_free(names, TRUE);
	}

	t = table_new(tables, "summary", "queues", "Hardware queues", false, COLUMNS(queue_columns),
		      "no hardware queue");
	GPtrArray *queues = sorted_values(r->queues);

	for (size_t i = 0; i < queues->len; i++) {
		const struct fsa_queue_acc *q = queues->pdata[i];
		const struct fsa_queue_info *info =
		    r->model ? fsa_model_find_queue(r->model, q->hwqueue_handle) : NULL;
		uint64_t waits = 0, signals = 0;

		for (int state = 0; state < 4; state++) {
			waits += q->op_states[FSA_OP_WAIT][state];
			signals += q->op_states[FSA_OP_SIGNAL][state];
		}
		add_u64(t, q->hwqueue_handle);
		add_opt(t, info ? info->process_id : q->process_id, UINT32_MAX);
		add_opt(t, info ? info->adapter_id : q->adapter_id, UINT32_MAX);
		add_opt(t, info ? info->engine_id : q->engine_id, UINT32_MAX);
		add_str(t, mode_name(info ? (info->is_user_mode ? FSA_SRC_USER_MODE_QUEUE
								: FSA_SRC_KERNEL_MODE_QUEUE)
					  : q->source));
		add_u64(t, waits);
		add_u64(t, signals);
		for (int state = 0; state < 4; state++)
			add_u64(t, q->op_states[0][state] + q->op_states[1][state]);
	}
	g_ptr_array_free(queues, TRUE);
}

static const struct fsa_column overall_columns[] = {
    {"metric", "metric", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static const struct fsa_column latency_queue_columns[] = {
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"process_id", "process", FSA_CELL_U64},
    {"metric", "metric", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static const struct fsa_column latency_fence_columns[] = {
    {"fence_global_handle", "fence", FSA_CELL_HANDLE},
    {"metric", "metric", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static const struct fsa_column latency_process_columns[] = {
    {"process_id", "process", FSA_CELL_U64},
    {"name", "name", FSA_CELL_STRING},
    {"metric", "metric", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static void
build_latency(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "latency", "overall", "Latency, all operations",
					false, COLUMNS(overall_columns), NULL);

	for (int m = 0; m < FSA_METRIC_COUNT; m++) {
		add_str(t, metric_name(m));
		add_stats(t, &r->overall.q[m]);
	}

	t = table_new(tables, "latency", "queues", "Latency per hardware queue", false,
		      COLUMNS(latency_queue_columns), "no queue operation with a duration");
	GPtrArray *values = sorted_values(r->queues);

	for (size_t i = 0; i < values->len; i++) {
		struct fsa_queue_acc *q = values->pdata[i];
		const struct fsa_queue_info *info =
		    r->model ? fsa_model_find_queue(r->model, q->hwqueue_handle) : NULL;

		for (int m = 0; m < FSA_METRIC_COUNT; m++) {
			if (!q->latency.q[m].count)
				continue;
			add_u64(t, q->hwqueue_handle);
			add_opt(t, info ? info->process_id : q->process_id, UINT32_MAX);
			add_str(t, metric_name(m));
			add_stats(t, &q->latency.q[m]);
		}
	}
	g_ptr_array_free(values, TRUE);

	t = table_new(tables, "latency", "fences", "Latency per fence", false,
		      COLUMNS(latency_fence_columns), "no fence operation with a duration");
	values = sorted_values(r->fences);
	for (size_t i = 0; i < values->len; i++) {
		struct fsa_fence_acc *f = values->pdata[i];

		for (int m = 0; m < FSA_METRIC_COUNT; m++) {
			if (!f->latency.q[m].count)
				continue;
			add_u64(t, f->fence_global_handle);
			add_str(t, metric_name(m));
			add_stats(t, &f->latency.q[m]);
		}
	}
	g_ptr_array_free(values, TRUE);

	t = table_new(tables, "latency", "processes", "Latency per process", false,
		      COLUMNS(latency_process_columns), "no process operation with a duration");
	values = sorted_values(r->processes);
	for (size_t i = 0; i < values->len; i++) {
		struct fsa_process_acc *p = values->pdata[i];
		const struct fsa_process_info *info =
		    r->model ? fsa_model_find_process(r->model, (uint32_t) p->process_id) : NULL;

		for (int m = 0; m < FSA_METRIC_COUNT; m++) {
			if (!p->latency.q[m].count)
				continue;
			add_u64(t, p->process_id);
			add_str(t, info && info->name && info->name[0] ? info->name : NULL);
			add_str(t, metric_name(m));
			add_stats(t, &p->latency.q[m]);
		}
	}
	g_ptr_array_free(values, TRUE);
}

static const struct fsa_column longest_columns[] = {
    {"rank", "#", FSA_CELL_U64},
    {"duration_ns", "duration", FSA_CELL_DURATION},
    {"source", "source", FSA_CELL_STRING},
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"process_id", "process", FSA_CELL_U64},
    {"fence_global_handle", "fence", FSA_CELL_HANDLE},
    {"fence_value", "value", FSA_CELL_U64},
    {"queued_ns", "queued at", FSA_CELL_TIME},
    {"end_ns", "unblocked at", FSA_CELL_TIME},
    {"queued_phase_ns", "queued", FSA_CELL_DURATION},
    {"stalled_phase_ns", "stalled", FSA_CELL_DURATION},
    {"signal_source", "signalled by", FSA_CELL_STRING},
    {"signal_hwqueue_handle", "signal queue", FSA_CELL_HANDLE},
    {"signal_process_id", "signal process", FSA_CELL_U64},
    {"signal_end_ns", "signalled at", FSA_CELL_TIME},
    {"op_id", "op", FSA_CELL_U64},
};

static int
compare_long_wait(const void *a, const void *b)
{
	const struct fsa_long_wait *x = a, *y = b;

	if (x->duration_ns != y->duration_ns)
		return x->duration_ns > y->duration_ns ? -1 : 1;
	return x->op.id < y->op.id ? -1 : x->op.id > y->op.id;
}

static void
build_longest(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "longest", "waits", "Longest waits", false,
					COLUMNS(longest_columns), "no completed wait");
	struct fsa_long_wait *sorted = g_memdup2(r->longest, r->longest_len * sizeof(*sorted));

	if (r->longest_len > 1)
		qsort(sorted, r->longest_len, sizeof(*sorted), compare_long_wait);
	for (size_t i = 0; i < r->longest_len; i++) {
		const struct fsa_long_wait *w = &sorted[i];
		const struct fsa_op *op = &w->op;
		bool has_phases = op->observed_ns != FSA_TIME_NONE &&
				  op->observed_ns >= op->queued_ns && op->observed_ns <= op->end_ns;

		add_u64(t, i + 1);
		add_u64(t, w->duration_ns);
		add_str(t, fsa_op_source_name(op->source));
		add_opt(t, op->hwqueue_handle, 0);
		add_u64(t, op->process_id);
		add_u64(t, op->fence_global_handle);
		add_u64(t, op->fence_value);
		add_u64(t, op->queued_ns);
		add_u64(t, op->end_ns);
		add_opt(t, has_phases ? op->observed_ns - op->queued_ns : FSA_TIME_NONE,
			FSA_TIME_NONE);
		add_opt(t, has_phases ? op->end_ns - op->observed_ns : FSA_TIME_NONE,
			FSA_TIME_NONE);
		add_str(t, w->has_signaller ? fsa_op_source_name(w->signal_source) : NULL);
		add_opt(t, w->has_signaller ? w->signal_hwqueue_handle : 0, 0);
		add_opt(t, w->has_signaller ? w->signal_process_id : UINT32_MAX, UINT32_MAX);
		add_opt(t, w->has_signaller ? w->signal_end_ns : FSA_TIME_NONE, FSA_TIME_NONE);
		add_u64(t, op->id);
	}
	g_free(sorted);
}

static const struct fsa_column doorbell_columns[] = {
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"process_id", "process", FSA_CELL_U64},
    {"rings", "rings", FSA_CELL_U64},
    {"connects", "connects", FSA_CELL_U64},
    {"failed_connects", "failed connects", FSA_CELL_U64},
    {"disconnects", "disconnects", FSA_CELL_U64},
    {"victimized", "victimized", FSA_CELL_U64},
    {"victimizer", "victimizer", FSA_CELL_U64},
    {"connected_ns", "connected", FSA_CELL_DURATION},
    {"reconnects", "reconnects", FSA_CELL_U64},
    {"reconnect_min_ns", "reconnect min", FSA_CELL_DURATION},
    {"reconnect_p50_ns", "p50", FSA_CELL_DURATION},
    {"reconnect_p99_ns", "p99", FSA_CELL_DURATION},
    {"reconnect_max_ns", "max", FSA_CELL_DURATION},
    {"notify_kmd_ns", "notify-KMD", FSA_CELL_DURATION},
    {"retry_ns", "retry", FSA_CELL_DURATION},
    {"suspended_ns", "suspended", FSA_CELL_DURATION},
    {"aborts", "aborts", FSA_CELL_U64},
    {"open_at_end", "open at end", FSA_CELL_U64},
};

static const struct fsa_column doorbell_engine_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"queues", "queues", FSA_CELL_U64},
    {"rings", "rings", FSA_CELL_U64},
    {"connects", "connects", FSA_CELL_U64},
    {"victimized", "victimized", FSA_CELL_U64},
    {"victimizer", "victimizer", FSA_CELL_U64},
    {"reconnects", "reconnects", FSA_CELL_U64},
    {"reconnect_min_ns", "reconnect min", FSA_CELL_DURATION},
    {"reconnect_p50_ns", "p50", FSA_CELL_DURATION},
    {"reconnect_p99_ns", "p99", FSA_CELL_DURATION},
    {"reconnect_max_ns", "max", FSA_CELL_DURATION},
    {"connected_ns", "connected", FSA_CELL_DURATION},
    {"notify_kmd_ns", "notify-KMD", FSA_CELL_DURATION},
    {"retry_ns", "retry", FSA_CELL_DURATION},
    {"suspended_ns", "suspended", FSA_CELL_DURATION},
    {"f1_count", "F1", FSA_CELL_U64},
    {"f1_ns", "in F1", FSA_CELL_DURATION},
    {"aborts", "aborts", FSA_CELL_U64},
    {"open_at_end", "open at end", FSA_CELL_U64},
};

static const struct fsa_column doorbell_adapter_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"d3_count", "D3", FSA_CELL_U64},
    {"d3_ns", "in D3", FSA_CELL_DURATION},
    {"open_at_end", "open at end", FSA_CELL_U64},
};

static const struct fsa_column reconnect_columns[] = {
    {"metric", "metric", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static void
add_short_stats(struct fsa_table *t, struct fsa_quantile *q)
{
	add_u64(t, q->count);
	if (!q->count) {
		for (int i = 0; i < 4; i++)
			add_null(t);
		return;
	}
	add_u64(t, q->min);
	add_u64(t, quantile_value(q, 0.50));
	add_u64(t, quantile_value(q, 0.99));
	add_u64(t, q->max);
}

/*
 * The per-engine and per-adapter tables come only with doorbell, suspend or power markers, so
 * that the section of a trace without them stays as it was (docs/report-schema.md).
 */
static bool
has_doorbell_activity(const struct fsa_report *r)
{
	for (int kind = 0; kind < FSA_MARK_KIND_COUNT; kind++) {
		bool is_doorbell =
		    kind <= FSA_MARK_DOORBELL_DESTROY || kind == FSA_MARK_DOORBELL_CONNECTED ||
		    kind == FSA_MARK_DOORBELL_STATE || kind == FSA_MARK_CONTEXT_SUSPENDED ||
		    kind == FSA_MARK_ENGINE_F1 || kind == FSA_MARK_DEVICE_D3;

		if (is_doorbell && r->marker_counts[kind])
			return true;
	}
	return false;
}

/* Per-engine sums of the per-queue doorbell figures, with the engine's own (reconnect latency,
 * suspensions counted once per context, F1), then each adapter's D3. */
static void
build_doorbell_engines(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t =
	    table_new(tables, "doorbells", "engines", "Doorbells and power per engine", false,
		      COLUMNS(doorbell_engine_columns), "no engine with doorbells or power states");
	GPtrArray *queues = sorted_values(r->queues);
	/* on_marker made an accumulator for every engine a doorbell marker named. */
	GPtrArray *engines = sorted_values(r->engines);
	for (size_t e = 0; e < engines->len; e++) {
		struct fsa_engine_acc *engine = engines->pdata[e];
		uint64_t sums[9] = {0}; /* queues rings connects victimized victimizer connected
					   notify retry aborts */
		uint64_t open = engine->open_at_end;

		for (size_t i = 0; i < queues->len; i++) {
			struct fsa_queue_acc *q = queues->pdata[i];
			const struct fsa_queue_info *info =
			    r->model ? fsa_model_find_queue(r->model, q->hwqueue_handle) : NULL;
			uint32_t adapter_id = info ? info->adapter_id : q->adapter_id;
			uint32_t engine_id = info ? info->engine_id : q->engine_id;

			if (adapter_id != engine->adapter_id || engine_id != engine->engine_id ||
			    !(q->rings || q->connects || q->victimized || q->victimizer))
				continue;
			sums[0]++;
			sums[1] += q->rings;
			sums[2] += q->connects;
			sums[3] += q->victimized;
			sums[4] += q->victimizer;
			sums[5] += q->connected_ns;
			sums[6] += q->status_ns[FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD];
			sums[7] += q->status_ns[FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY];
			sums[8] += q->aborts;
			/* The queue's own suspensions are the engine's, counted there once. */
			open += q->open_at_end;
		}
		if (!sums[0] && !engine->f1_count && !engine->suspended_ns)
			continue;
		add_opt(t, engine->adapter_id, UINT32_MAX);
		add_opt(t, engine->engine_id, UINT32_MAX);
		for (int s = 0; s < 5; s++)
			add_u64(t, sums[s]);
		add_short_stats(t, &engine->reconnect);
		add_u64(t, sums[5]);
		add_u64(t, sums[6]);
		add_u64(t, sums[7]);
		add_u64(t, engine->suspended_ns);
		add_u64(t, engine->f1_count);
		add_u64(t, engine->f1_ns);
		add_u64(t, sums[8]);
		add_u64(t, open);
	}
	g_ptr_array_free(engines, TRUE);
	g_ptr_array_free(queues, TRUE);

	t = table_new(tables, "doorbells", "adapters", "Power per adapter", false,
		      COLUMNS(doorbell_adapter_columns), "no adapter in D3");
	engines = sorted_values(r->adapters);
	for (size_t i = 0; i < engines->len; i++) {
		struct fsa_adapter_acc *a = engines->pdata[i];

		add_u64(t, a->adapter_id);
		add_u64(t, a->d3_count);
		add_u64(t, a->d3_ns);
		add_u64(t, a->open_at_end);
	}
	g_ptr_array_free(engines, TRUE);
}

static void
build_doorbells(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "doorbells", "queues", "Doorbells per queue", false,
					COLUMNS(doorbell_columns), "no doorbell activity");
	GPtrArray *values = sorted_values(r->queues);

	for (size_t i = 0; i < values->len; i++) {
		struct fsa_queue_acc *q = values->pdata[i];
		const struct fsa_queue_info *info =
		    r->model ? fsa_model_find_queue(r->model, q->hwqueue_handle) : NULL;

		if (!q->rings && !q->connects && !q->disconnects && !q->victimized &&
		    !q->victimizer && !q->suspended_ns && !q->status_ns[0] && !q->status_ns[1] &&
		    !q->status_ns[2] && !q->status_ns[3] && !q->aborts)
			continue;
		add_u64(t, q->hwqueue_handle);
		add_opt(t, info ? info->process_id : q->process_id, UINT32_MAX);
		add_u64(t, q->rings);
		add_u64(t, q->connects);
		add_u64(t, q->failed_connects);
		add_u64(t, q->disconnects);
		add_u64(t, q->victimized);
		add_u64(t, q->victimizer);
		add_u64(t, q->connected_ns);
		add_short_stats(t, &q->reconnect);
		add_u64(t, q->status_ns[FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD]);
		add_u64(t, q->status_ns[FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY]);
		add_u64(t, q->suspended_ns);
		add_u64(t, q->aborts);
		add_u64(t, q->open_at_end);
	}
	g_ptr_array_free(values, TRUE);

	t = table_new(tables, "doorbells", "reconnect", "Doorbell reconnect latency, all queues",
		      false, COLUMNS(reconnect_columns), NULL);
	add_str(t, "reconnect");
	add_stats(t, &r->reconnect_all);
	if (has_doorbell_activity(r))
		build_doorbell_engines(r, tables);
}

static const struct fsa_column engine_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"packets", "packets", FSA_CELL_U64},
    {"completed", "completed", FSA_CELL_U64},
    {"preempted", "preempted", FSA_CELL_U64},
    {"faulted", "faulted", FSA_CELL_U64},
    {"aborted", "aborted", FSA_CELL_U64},
    {"never_ended", "never ended", FSA_CELL_U64},
    {"resubmissions", "resubmissions", FSA_CELL_U64},
    {"busy_ns", "busy", FSA_CELL_DURATION},
};

static const struct fsa_column preemption_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"time_slice", "time slice", FSA_CELL_U64},
    {"priority", "priority", FSA_CELL_U64},
    {"suspend", "suspend", FSA_CELL_U64},
    {"tdr", "tdr", FSA_CELL_U64},
    {"termination", "termination", FSA_CELL_U64},
    {"power", "power", FSA_CELL_U64},
    STAT_COLUMNS,
};

static const struct fsa_column marker_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static const struct fsa_column marker_example_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},
    {"begin_ns", "begin", FSA_CELL_TIME},
    {"end_ns", "end", FSA_CELL_TIME},
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"process_id", "process", FSA_CELL_U64},
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"value", "value", FSA_CELL_HANDLE},
    {"code", "code", FSA_CELL_I64},
};

static void
build_preemption(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "preemption", "engines", "Packets per engine",
					false, COLUMNS(engine_columns), "no packet");
	GPtrArray *values = sorted_values(r->engines);

	for (size_t i = 0; i < values->len; i++) {
		struct fsa_engine_acc *e = values->pdata[i];

		if (!e->packets)
			continue;
		add_opt(t, e->adapter_id, UINT32_MAX);
		add_opt(t, e->engine_id, UINT32_MAX);
		add_u64(t, e->packets);
		for (int s = 0; s < 5; s++)
			add_u64(t, e->by_status[s]);
		add_u64(t, e->resubmissions);
		add_u64(t, e->busy_ns);
	}

	t = table_new(tables, "preemption", "preemptions", "Preemptions per engine (by reason)",
		      false, COLUMNS(preemption_columns), "no preemption");
	for (size_t i = 0; i < values->len; i++) {
		struct fsa_engine_acc *e = values->pdata[i];

		if (!e->preemptions)
			continue;
		add_opt(t, e->adapter_id, UINT32_MAX);
		add_opt(t, e->engine_id, UINT32_MAX);
		for (int reason = 0; reason < 6; reason++)
			add_u64(t, e->preempt_reasons[reason]);
		add_stats(t, &e->preemption);
	}
	g_ptr_array_free(values, TRUE);

	static const enum fsa_marker_kind kinds[] = {
	    FSA_MARK_PREEMPTION,
	    FSA_MARK_TDR,
	    FSA_MARK_ENGINE_RESET,
	    FSA_MARK_PAGE_FAULT,
	    FSA_MARK_DEVICE_LOST,
	    FSA_MARK_CONTEXT_SUSPENDED,
	    FSA_MARK_ENGINE_F1,
	    FSA_MARK_DEVICE_D3,
	    FSA_MARK_LOG_RESIZE,
	    FSA_MARK_CALL_FAILED,
	    /* Format 1.4 (schema 2.2): listed only when seen, like the others. */
	    FSA_MARK_TDR_DETECT,
	    FSA_MARK_ADAPTER_RESET,
	    FSA_MARK_CONTEXT_ERROR,
	    FSA_MARK_FLIP,
	    FSA_MARK_VSYNC,
	    FSA_MARK_FAULT_INJECTED,
	    FSA_MARK_INTERRUPT_LATE,
	    FSA_MARK_INTERRUPT_UNHANDLED,
	};

	t = table_new(tables, "preemption", "markers",
		      "Preemption, TDR, resets, faults, suspend, power and other markers", false,
		      COLUMNS(marker_columns), "none");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct fsa_quantile *q = &r->marker_durations[kinds[i]];

		if (!r->marker_counts[kinds[i]])
			continue;

		add_str(t, fsa_marker_kind_name(kinds[i]));
		/* Instants and intervals still open have no duration: count them all. */
		add_stats_count(t, q, r->marker_counts[kinds[i]]);
	}

	t = table_new(tables, "preemption", "examples",
		      "First TDRs, engine resets, page faults and device losses", false,
		      COLUMNS(marker_example_columns), "none");
	for (size_t i = 0; i < r->marker_examples->len; i++) {
		const struct fsa_marker *m =
		    &g_array_index(r->marker_examples, struct fsa_marker, i);

		add_str(t, fsa_marker_kind_name(m->kind));
		add_u64(t, m->begin_ns);
		add_opt(t, m->end_ns, FSA_TIME_NONE);
		add_opt(t, m->adapter_id, UINT32_MAX);
		add_opt(t, m->engine_id, UINT32_MAX);
		add_opt(t, m->process_id, UINT32_MAX);
		add_opt(t, m->hwqueue_handle, 0);
		add_u64(t, m->value);
		add_i64(t, m->code);
	}
}

/* --- Schema 2.2: scheduling, preemption, TDR, display, faults (recovery.c) ---------------------
 */

static const struct fsa_column preempt_latency_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"reason", "reason", FSA_CELL_STRING},
    {"granularity", "granularity reached", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static const struct fsa_column slice_engine_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},          {"engine_id", "engine", FSA_CELL_U64},
    {"packets", "pieces run", FSA_CELL_U64},          {"preempted", "preempted", FSA_CELL_U64},
    {"resubmissions", "resubmissions", FSA_CELL_U64}, STAT_COLUMNS,
};

static const struct fsa_column slice_context_columns[] = {
    {"context_handle", "context", FSA_CELL_HANDLE},
    {"process_id", "process", FSA_CELL_U64},
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"priority", "priority", FSA_CELL_U64},
    {"priority_min", "min priority", FSA_CELL_U64},
    {"priority_max", "max priority", FSA_CELL_U64},
    {"time_slice_ns", "time slice", FSA_CELL_DURATION},
    {"schedules", "schedules", FSA_CELL_U64},
    {"error_reason", "error", FSA_CELL_STRING},
    {"packets", "pieces run", FSA_CELL_U64},
    {"preempted", "preempted", FSA_CELL_U64},
    {"resubmissions", "resubmissions", FSA_CELL_U64},
    STAT_COLUMNS,
};

static const struct fsa_column resubmission_summary_columns[] = {
    {"resubmissions", "resubmissions", FSA_CELL_U64},
    {"paging", "paging", FSA_CELL_U64},
    {"same_fence_id", "same fence id", FSA_CELL_U64},
    {"paging_same_fence_id", "paging with the same fence id", FSA_CELL_U64},
};

static const struct fsa_column resubmission_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},        {"engine_id", "engine", FSA_CELL_U64},
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},   {"packet_id", "packet", FSA_CELL_U64},
    {"resubmission_of", "resubmits", FSA_CELL_U64}, {"is_paging", "paging", FSA_CELL_BOOL},
    {"old_fence_id", "old fence id", FSA_CELL_U64}, {"new_fence_id", "new fence id", FSA_CELL_U64},
    {"start_ns", "start", FSA_CELL_TIME},
};

static int
compare_preempt(const void *a, const void *b)
{
	const struct fsa_preempt_acc *x = a, *y = b;

	if (x->adapter_id != y->adapter_id)
		return x->adapter_id < y->adapter_id ? -1 : 1;
	if (x->engine_id != y->engine_id)
		return x->engine_id < y->engine_id ? -1 : 1;
	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	return x->granularity < y->granularity ? -1 : x->granularity > y->granularity;
}

static void
add_slice_columns(struct fsa_table *t, struct fsa_slice_acc *s)
{
	add_u64(t, s->packets);
	add_u64(t, s->preempted);
	add_u64(t, s->resubmissions);
	add_stats(t, &s->length);
}

/* PRE-03, PRE-06, PRE-07, PRE-15 (schema 2.2). */
static void
build_preemption_22(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_recovery *rc = r->recovery;
	struct fsa_table *t =
	    table_new(tables, "preemption", "latency",
		      "Preemption request → complete per engine, reason and granularity reached",
		      false, COLUMNS(preempt_latency_columns), "no preemption");
	GPtrArray *values;

	if (rc->preempts->len > 1)
		qsort(rc->preempts->data, rc->preempts->len, sizeof(struct fsa_preempt_acc),
		      compare_preempt);
	for (size_t i = 0; i < rc->preempts->len; i++) {
		struct fsa_preempt_acc *p = &g_array_index(rc->preempts, struct fsa_preempt_acc, i);

		add_opt(t, p->adapter_id, UINT32_MAX);
		add_opt(t, p->engine_id, UINT32_MAX);
		add_str(t, preempt_reason_name(p->reason));
		add_str(t, preempt_granularity_name(p->granularity));
		add_stats_count(t, &p->latency, p->count);
	}

	t = table_new(tables, "preemption", "slices",
		      "Time slices per engine (run intervals a TIME_SLICE preemption ended)", false,
		      COLUMNS(slice_engine_columns), "no engine");
	values = sorted_values(rc->slice_engines);
	for (size_t i = 0; i < values->len; i++) {
		struct fsa_slice_acc *s = values->pdata[i];

		add_opt(t, s->adapter_id, UINT32_MAX);
		add_opt(t, s->engine_id, UINT32_MAX);
		add_slice_columns(t, s);
	}
	g_ptr_array_free(values, TRUE);

	t = table_new(tables, "preemption", "contexts",
		      "Contexts: priority, time slice and slices (PRE-15)", false,
		      COLUMNS(slice_context_columns), "no context");
	for (size_t i = 0; r->model && i < fsa_model_context_count(r->model); i++) {
		const struct fsa_context_info *c = fsa_model_borrow_context(r->model, i);
		struct fsa_slice_acc *s =
		    g_hash_table_lookup(rc->slice_contexts, &c->context_handle);
		struct fsa_slice_acc empty = {0};

		if (!s) {
			quantile_init(&empty.length);
			s = &empty;
		}
		add_u64(t, c->context_handle);
		add_u64(t, c->process_id);
		add_opt(t, c->adapter_id, UINT32_MAX);
		add_opt(t, c->engine_id, UINT32_MAX);
		if (c->has_schedule) {
			add_u64(t, c->priority);
			add_u64(t, c->priority_min);
			add_u64(t, c->priority_max);
			add_u64(t, c->time_slice_ns);
		} else {
			for (int k = 0; k < 4; k++)
				add_null(t);
		}
		add_u64(t, c->schedule_count);
		if (c->error_ns != FSA_TIME_NONE)
			add_str(t, loss_reason_name(c->error_reason));
		else
			add_null(t);
		add_slice_columns(t, s);
		if (s == &empty)
			quantile_fini(&empty.length);
	}

	t = table_new(tables, "preemption", "resubmission_summary",
		      "Resubmissions after preemption (PRE-06, PRE-07)", true,
		      COLUMNS(resubmission_summary_columns), NULL);
	add_u64(t, rc->resubmission_count);
	add_u64(t, rc->resubmissions_paging);
	add_u64(t, rc->resubmissions_same_fence_id);
	add_u64(t, rc->resubmissions_paging_same_fence_id);

	t = table_new(tables, "preemption", "resubmissions", "First resubmissions", false,
		      COLUMNS(resubmission_columns), "none");
	for (size_t i = 0; i < rc->resubmissions->len; i++) {
		const struct fsa_resubmission *x =
		    &g_array_index(rc->resubmissions, struct fsa_resubmission, i);

		add_opt(t, x->adapter_id, UINT32_MAX);
		add_opt(t, x->engine_id, UINT32_MAX);
		add_opt(t, x->hwqueue_handle, 0);
		add_u64(t, x->packet_id);
		add_u64(t, x->resubmission_of);
		add_bool(t, x->is_paging);
		add_opt(t, x->old_fence_id, 0);
		add_opt(t, x->new_fence_id, 0);
		add_opt(t, x->start_ns, FSA_TIME_NONE);
	}
}

static const struct fsa_column tdr_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"detect_ns", "detected", FSA_CELL_TIME},
    {"stalled_ns", "stalled", FSA_CELL_DURATION},
    {"reason", "reason", FSA_CELL_STRING},
    {"preempt_request_ns", "TDR preemption", FSA_CELL_TIME},
    {"preempt_completed", "completed", FSA_CELL_BOOL},
    {"tdr_begin_ns", "tdr begin", FSA_CELL_TIME},
    {"tdr_end_ns", "tdr end", FSA_CELL_TIME},
    {"result", "result", FSA_CELL_STRING},
    {"engine_reset", "engine reset ok", FSA_CELL_BOOL},
    {"adapter_reset", "adapter reset ok", FSA_CELL_BOOL},
    {"guilty_context_handle", "guilty context", FSA_CELL_HANDLE},
    {"guilty_process_id", "guilty process", FSA_CELL_U64},
    {"contexts_in_error", "contexts in error", FSA_CELL_U64},
    {"devices_lost", "devices lost", FSA_CELL_U64},
    {"packets_lost", "packets lost", FSA_CELL_U64},
    {"lost_gpu_ns", "GPU time lost", FSA_CELL_DURATION},
    {"guilty_unsignalled", "guilty signals never run", FSA_CELL_U64},
};

static const struct fsa_column context_error_columns[] = {
    {"ts_ns", "time", FSA_CELL_TIME},
    {"end_ns", "until", FSA_CELL_TIME},
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"process_id", "process", FSA_CELL_U64},
    {"context_handle", "context", FSA_CELL_HANDLE},
    {"device_handle", "device", FSA_CELL_HANDLE},
    {"reason", "reason", FSA_CELL_STRING},
};

static void
add_opt_bool(struct fsa_table *t, int64_t value)
{
	if (value < 0)
		add_null(t);
	else
		add_bool(t, value != 0);
}

/* TDR-01..06 (schema 2.2). */
static void
build_tdr(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_recovery *rc = r->recovery;
	struct fsa_table *t = table_new(tables, "tdr", "sequences", "TDR sequences", false,
					COLUMNS(tdr_columns), "no TDR");

	for (size_t i = 0; i < rc->sequences->len; i++) {
		const struct fsa_tdr_sequence *s =
		    &g_array_index(rc->sequences, struct fsa_tdr_sequence, i);

		add_opt(t, s->adapter_id, UINT32_MAX);
		add_opt(t, s->engine_id, UINT32_MAX);
		add_opt(t, s->detect_ns, FSA_TIME_NONE);
		if (s->detect_ns != FSA_TIME_NONE)
			add_u64(t, s->stalled_ns);
		else
			add_null(t);
		if (s->reason >= 0)
			add_str(t, loss_reason_name(s->reason));
		else
			add_null(t);
		add_opt(t, s->preempt_ns, FSA_TIME_NONE);
		add_opt_bool(t, s->preempt_ns == FSA_TIME_NONE ? -1 : s->is_preempt_completed);
		add_opt(t, s->begin_ns, FSA_TIME_NONE);
		add_opt(t, s->end_ns, FSA_TIME_NONE);
		if (s->result >= 0)
			add_str(t, tdr_result_name(s->result));
		else if (s->begin_ns == FSA_TIME_NONE && s->is_preempt_completed)
			add_str(t, "preempted");
		else
			add_null(t);
		add_opt_bool(t, s->engine_reset);
		add_opt_bool(t, s->adapter_reset);
		add_opt(t, s->guilty_context, 0);
		add_opt(t, s->guilty_process, UINT32_MAX);
		add_u64(t, s->contexts_in_error);
		add_u64(t, s->devices_lost);
		add_u64(t, s->packets_lost);
		add_u64(t, s->lost_gpu_ns);
		add_u64(t, s->guilty_unsignalled);
	}

	t = table_new(tables, "tdr", "context_errors", "Contexts put in error (TDR-04)", false,
		      COLUMNS(context_error_columns), "none");
	for (size_t i = 0; i < rc->errors->len; i++) {
		const struct fsa_marker *m = &g_array_index(rc->errors, struct fsa_marker, i);

		add_u64(t, m->begin_ns);
		add_opt(t, m->end_ns, FSA_TIME_NONE);
		add_opt(t, m->adapter_id, UINT32_MAX);
		add_opt(t, m->engine_id, UINT32_MAX);
		add_opt(t, m->process_id, UINT32_MAX);
		add_u64(t, m->context_handle);
		add_u64(t, m->other_handle);
		add_str(t, loss_reason_name(m->code));
	}
}

static const struct fsa_column display_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"source_id", "display", FSA_CELL_U64},
    {"vsyncs", "vsyncs", FSA_CELL_U64},
    {"period_min_ns", "period min", FSA_CELL_DURATION},
    {"period_p50_ns", "period p50", FSA_CELL_DURATION},
    {"period_max_ns", "period max", FSA_CELL_DURATION},
    {"flips_queued", "flips queued", FSA_CELL_U64},
    {"flips_done", "flips done", FSA_CELL_U64},
    {"flips_pending", "pending at end", FSA_CELL_U64},
    {"missed_vsync", "missed a vsync", FSA_CELL_U64},
    {"latency_min_ns", "flip min", FSA_CELL_DURATION},
    {"latency_p50_ns", "flip p50", FSA_CELL_DURATION},
    {"latency_p99_ns", "flip p99", FSA_CELL_DURATION},
    {"latency_max_ns", "flip max", FSA_CELL_DURATION},
};

/* PRE-13 (schema 2.2). */
static void
build_display(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "display", "displays", "Displays, vsyncs and flips",
					false, COLUMNS(display_columns), "no display");
	GPtrArray *values = sorted_values(r->recovery->displays);

	for (size_t i = 0; i < values->len; i++) {
		struct fsa_display_acc *d = values->pdata[i];

		add_u64(t, d->adapter_id);
		add_u64(t, d->source_id);
		add_u64(t, d->vsyncs);
		if (d->period.count) {
			add_u64(t, d->period.min);
			add_u64(t, quantile_value(&d->period, 0.50));
			add_u64(t, d->period.max);
		} else {
			for (int k = 0; k < 3; k++)
				add_null(t);
		}
		add_u64(t, d->flips);
		add_u64(t, d->flips_done);
		add_u64(t, d->flips_pending);
		add_u64(t, d->missed);
		if (d->latency.count) {
			add_u64(t, d->latency.min);
			add_u64(t, quantile_value(&d->latency, 0.50));
			add_u64(t, quantile_value(&d->latency, 0.99));
			add_u64(t, d->latency.max);
		} else {
			for (int k = 0; k < 4; k++)
				add_null(t);
		}
	}
	g_ptr_array_free(values, TRUE);
}

static const struct fsa_column fault_kind_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},
    {"injected", "injected", FSA_CELL_U64},
    {"accounted", "accounted", FSA_CELL_U64},
};

static const struct fsa_column fault_columns[] = {
    {"ts_ns", "time", FSA_CELL_TIME},      {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64}, {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"kind", "kind", FSA_CELL_STRING},     {"detail", "detail", FSA_CELL_U64},
};

/* docs/report-schema.md `faults` (schema 2.2). */
static void
build_faults(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_recovery *rc = r->recovery;
	struct fsa_table *t =
	    table_new(tables, "faults", "kinds", "Injected faults and their effects", false,
		      COLUMNS(fault_kind_columns), "no fault injected");

	for (int kind = 0; kind < 8; kind++) {
		if (!rc->injected[kind])
			continue;
		add_str(t, fault_kind_name(kind < 7 ? kind : -1));
		add_u64(t, rc->injected[kind]);
		add_u64(t, rc->accounted[kind]);
	}
	t = table_new(tables, "faults", "unaccounted", "Injected faults without their effect",
		      false, COLUMNS(fault_columns), "none");
	for (size_t i = 0; i < rc->unaccounted->len; i++) {
		const struct fsa_marker *m = &g_array_index(rc->unaccounted, struct fsa_marker, i);

		add_u64(t, m->begin_ns);
		add_opt(t, m->adapter_id, UINT32_MAX);
		add_opt(t, m->engine_id, UINT32_MAX);
		add_opt(t, m->hwqueue_handle, 0);
		add_str(t, fault_kind_name(m->code));
		add_u64(t, m->value);
	}
}

/* --- Schema 2.3: page faults, GPU memory, cross-adapter fences (trace format 1.5) ----------- */

static const char *
access_name(int64_t access)
{
	return access == FSTP_ACCESS_KIND_READ    ? "read"
	       : access == FSTP_ACCESS_KIND_WRITE ? "write"
						  : NULL;
}

static const char *
fault_type_name(int64_t type)
{
	return type == FSTP_FAULT_TYPE_NOT_MAPPED  ? "not_mapped"
	       : type == FSTP_FAULT_TYPE_READ_ONLY ? "read_only"
						   : NULL;
}

static const char *
fault_scope_name(int64_t scope)
{
	return scope == FSTP_FAULT_SCOPE_CONTEXT  ? "context"
	       : scope == FSTP_FAULT_SCOPE_DEVICE ? "device"
						  : NULL;
}

static const char *
fence_object_name(int64_t object)
{
	return object == FSTP_FENCE_OBJECT_NATIVE      ? "native"
	       : object == FSTP_FENCE_OBJECT_MONITORED ? "monitored"
						       : "unknown";
}

static const struct fsa_column fault_summary_columns[] = {
    {"faults", "page faults", FSA_CELL_U64},
    {"engine_faults", "seen by an engine", FSA_CELL_U64},
    {"handled", "handled by the OS", FSA_CELL_U64},
    {"unhandled", "never handled", FSA_CELL_U64},
    {"context_scope", "context terminated", FSA_CELL_U64},
    {"device_scope", "device terminated", FSA_CELL_U64},
    {"reads", "reads", FSA_CELL_U64},
    {"writes", "writes", FSA_CELL_U64},
    {"recovered_engine_reset", "recovered by engine reset", FSA_CELL_U64},
    {"recovered_adapter_reset", "recovered by adapter reset", FSA_CELL_U64},
    {"recovery_failed", "recovery failed", FSA_CELL_U64},
    {"no_recovery", "no recovery in the trace", FSA_CELL_U64},
    {"packets_faulted", "packets faulted", FSA_CELL_U64},
    {"packets_aborted", "packets aborted", FSA_CELL_U64},
    {"lost_gpu_ns", "GPU time lost", FSA_CELL_DURATION},
};

static const struct fsa_column fault_row_columns[] = {
    {"ts_ns", "time", FSA_CELL_TIME},
    {"handled_ns", "handled", FSA_CELL_TIME},
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"engine_id", "engine", FSA_CELL_U64},
    {"process_id", "process", FSA_CELL_U64},
    {"context_handle", "context", FSA_CELL_HANDLE},
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"gpu_va", "GPU VA", FSA_CELL_HANDLE},
    {"access", "access", FSA_CELL_STRING},
    {"fault_type", "fault", FSA_CELL_STRING},
    {"packet_id", "packet", FSA_CELL_U64},
    {"scope", "terminated", FSA_CELL_STRING},
    {"handling_ns", "engine to OS", FSA_CELL_DURATION},
    {"tdr_begin_ns", "tdr begin", FSA_CELL_TIME},
    {"tdr_end_ns", "tdr end", FSA_CELL_TIME},
    {"recovery", "recovery", FSA_CELL_STRING},
    {"engine_reset", "engine reset ok", FSA_CELL_BOOL},
    {"adapter_reset", "adapter reset ok", FSA_CELL_BOOL},
    {"contexts_in_error", "contexts in error", FSA_CELL_U64},
    {"devices_lost", "devices lost", FSA_CELL_U64},
    {"packets_faulted", "packets faulted", FSA_CELL_U64},
    {"packets_aborted", "packets aborted", FSA_CELL_U64},
    {"lost_gpu_ns", "GPU time lost", FSA_CELL_DURATION},
};

static const struct fsa_column metric_stat_columns[] = {
    {"metric", "metric", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static void
add_opt_str(struct fsa_table *t, const char *value)
{
	if (value)
		add_str(t, value);
	else
		add_null(t);
}

/* MMU-14, TDR-06 (schema 2.3). */
static void
build_page_faults(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_mmu_xad *m = r->mmu_xad;
	uint64_t counts[15] = {0};
	struct fsa_table *t;

	for (size_t i = 0; i < m->rows->len; i++) {
		const struct fsa_fault_row *f = &g_array_index(m->rows, struct fsa_fault_row, i);

		counts[0]++;
		counts[2] += f->handled_ns != FSA_TIME_NONE;
		counts[3] += f->handled_ns == FSA_TIME_NONE;
		counts[4] += f->scope == FSTP_FAULT_SCOPE_CONTEXT;
		counts[5] += f->scope == FSTP_FAULT_SCOPE_DEVICE;
		counts[6] += f->access == FSTP_ACCESS_KIND_READ;
		counts[7] += f->access == FSTP_ACCESS_KIND_WRITE;
		counts[8] += f->result == FSTP_TDR_RESULT_ENGINE_RESET;
		counts[9] += f->result == FSTP_TDR_RESULT_ADAPTER_RESET;
		counts[10] += f->result == FSTP_TDR_RESULT_FAILED;
		counts[11] += f->result < 0;
		counts[12] += f->packets_faulted;
		counts[13] += f->packets_aborted;
		counts[14] += f->lost_gpu_ns;
	}
	counts[1] = m->hw_faults->len; /* fencescope_hw:page_fault, handled or not */
	t = table_new(tables, "page_faults", "summary", "GPU page faults", true,
		      COLUMNS(fault_summary_columns), NULL);
	for (size_t i = 0; i < 15; i++)
		add_u64(t, counts[i]);

	t = table_new(tables, "page_faults", "handling", "Engine fault to OS handling", false,
		      COLUMNS(metric_stat_columns), NULL);
	add_str(t, "handling");
	add_stats(t, &m->handling);

	t = table_new(tables, "page_faults", "faults", "Page faults and their recovery", false,
		      COLUMNS(fault_row_columns), "no page fault");
	for (size_t i = 0; i < m->rows->len; i++) {
		const struct fsa_fault_row *f = &g_array_index(m->rows, struct fsa_fault_row, i);

		add_u64(t, f->ts_ns);
		add_opt(t, f->handled_ns, FSA_TIME_NONE);
		add_opt(t, f->adapter_id, UINT32_MAX);
		add_opt(t, f->engine_id, UINT32_MAX);
		add_opt(t, f->process_id, UINT32_MAX);
		add_opt(t, f->context_handle, 0);
		add_opt(t, f->hwqueue_handle, 0);
		add_u64(t, f->gpu_va);
		add_opt_str(t, access_name(f->access));
		add_opt_str(t, fault_type_name(f->fault_type));
		add_opt(t, f->packet_id, 0);
		add_opt_str(t, f->handled_ns == FSA_TIME_NONE ? NULL : fault_scope_name(f->scope));
		add_opt(t, f->latency_ns, FSA_TIME_NONE);
		add_opt(t, f->tdr_begin_ns, FSA_TIME_NONE);
		add_opt(t, f->tdr_end_ns, FSA_TIME_NONE);
		add_opt_str(t, f->result >= 0 ? tdr_result_name(f->result) : NULL);
		add_opt_bool(t, f->engine_reset);
		add_opt_bool(t, f->adapter_reset);
		add_u64(t, f->contexts_in_error);
		add_u64(t, f->devices_lost);
		add_u64(t, f->packets_faulted);
		add_u64(t, f->packets_aborted);
		add_u64(t, f->lost_gpu_ns);
	}
}

static const struct fsa_column va_space_columns[] = {
    {"process_id", "process", FSA_CELL_U64},
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"created_ns", "created", FSA_CELL_TIME},
    {"destroyed_ns", "destroyed", FSA_CELL_TIME},
    {"va_size_bytes", "VA size", FSA_CELL_U64},
    {"page_table_levels", "levels", FSA_CELL_U64},
    {"reserves", "reserves", FSA_CELL_U64},
    {"frees", "frees", FSA_CELL_U64},
    {"reserved_peak_bytes", "reserved peak", FSA_CELL_U64},
    {"maps", "maps", FSA_CELL_U64},
    {"unmaps", "unmaps", FSA_CELL_U64},
    {"os_picked", "VA picked by the OS", FSA_CELL_U64},
    {"mapped_peak_bytes", "mapped peak", FSA_CELL_U64},
    {"mapped_end_bytes", "mapped at end", FSA_CELL_U64},
    {"maps_4k", "4 KB maps", FSA_CELL_U64},
    {"maps_64k", "64 KB maps", FSA_CELL_U64},
    {"mapped_4k_peak_bytes", "4 KB peak", FSA_CELL_U64},
    {"mapped_64k_peak_bytes", "64 KB peak", FSA_CELL_U64},
    {"mapped_4k_end_bytes", "4 KB at end", FSA_CELL_U64},
    {"mapped_64k_end_bytes", "64 KB at end", FSA_CELL_U64},
    {"maps_system", "system maps", FSA_CELL_U64},
    {"maps_local", "local maps", FSA_CELL_U64},
    {"mapped_system_peak_bytes", "system peak", FSA_CELL_U64},
    {"mapped_local_peak_bytes", "local peak", FSA_CELL_U64},
    {"mapped_system_end_bytes", "system at end", FSA_CELL_U64},
    {"mapped_local_end_bytes", "local at end", FSA_CELL_U64},
    {"page_tables_created", "tables created", FSA_CELL_U64},
    {"page_tables_destroyed", "tables destroyed", FSA_CELL_U64},
    {"page_tables_peak", "tables peak", FSA_CELL_U64},
    {"root_resizes", "root resizes", FSA_CELL_U64},
    {"root_entries", "root entries", FSA_CELL_U64},
    {"root_entries_max", "root entries max", FSA_CELL_U64},
    {"page_table_updates", "table updates", FSA_CELL_U64},
    {"entries_written", "entries written", FSA_CELL_U64},
    {"entries_invalidated", "entries invalidated", FSA_CELL_U64},
    {"made_resident", "tables made resident", FSA_CELL_U64},
    {"evicted", "tables evicted", FSA_CELL_U64},
    {"page_faults", "page faults", FSA_CELL_U64},
};

static const struct fsa_column mapping_columns[] = {
    {"process_id", "process", FSA_CELL_U64},
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"open_at_end", "mapped at end", FSA_CELL_U64},
    STAT_COLUMNS,
};

static int
compare_va_space(const void *a, const void *b)
{
	const struct fsa_va_space_info *x = *(const struct fsa_va_space_info *const *) a;
	const struct fsa_va_space_info *y = *(const struct fsa_va_space_info *const *) b;

	if (x->process_id != y->process_id)
		return x->process_id < y->process_id ? -1 : 1;
	return x->adapter_id < y->adapter_id ? -1 : x->adapter_id > y->adapter_id;
}

/* MMU-01..13 (schema 2.3): the model's VA spaces (whole trace) and mapping lifetimes (in range). */
static void
build_memory(struct fsa_report *r, GPtrArray *tables)
{
	size_t count = r->model ? fsa_model_va_space_count(r->model) : 0;
	const struct fsa_va_space_info **spaces =
	    g_new0(const struct fsa_va_space_info *, count + 1);
	struct fsa_table *t = table_new(tables, "memory", "va_spaces", "GPU virtual address spaces",
					false, COLUMNS(va_space_columns), "no GPU VA space");
	GPtrArray *values;

	for (size_t i = 0; i < count; i++)
		spaces[i] = fsa_model_borrow_va_space(r->model, i);
	if (count > 1)
		qsort(spaces, count, sizeof(spaces[0]), compare_va_space);
	for (size_t i = 0; i < count; i++) {
		const struct fsa_va_space_info *v = spaces[i];

		add_opt(t, v->process_id, UINT32_MAX);
		add_opt(t, v->adapter_id, UINT32_MAX);
		add_opt(t, v->created_ns, FSA_TIME_NONE);
		add_opt(t, v->destroyed_ns, FSA_TIME_NONE);
		add_u64(t, v->va_size_bytes);
		add_u64(t, v->page_table_levels);
		add_u64(t, v->reserve_count);
		add_u64(t, v->free_count);
		add_u64(t, v->reserved_bytes_peak);
		add_u64(t, v->map_count);
		add_u64(t, v->unmap_count);
		add_u64(t, v->map_os_picked_count + v->reserve_os_picked_count);
		add_u64(t, v->mapped_bytes_peak);
		add_u64(t, v->mapped_bytes);
		add_u64(t, v->map_count_by_page_size[0]);
		add_u64(t, v->map_count_by_page_size[1]);
		add_u64(t, v->mapped_bytes_peak_by_page_size[0]);
		add_u64(t, v->mapped_bytes_peak_by_page_size[1]);
		add_u64(t, v->mapped_bytes_by_page_size[0]);
		add_u64(t, v->mapped_bytes_by_page_size[1]);
		add_u64(t, v->map_count_by_segment[FSTP_SEGMENT_SYSTEM]);
		add_u64(t, v->map_count_by_segment[FSTP_SEGMENT_LOCAL]);
		add_u64(t, v->mapped_bytes_peak_by_segment[FSTP_SEGMENT_SYSTEM]);
		add_u64(t, v->mapped_bytes_peak_by_segment[FSTP_SEGMENT_LOCAL]);
		add_u64(t, v->mapped_bytes_by_segment[FSTP_SEGMENT_SYSTEM]);
		add_u64(t, v->mapped_bytes_by_segment[FSTP_SEGMENT_LOCAL]);
		add_u64(t, v->page_tables_created);
		add_u64(t, v->page_tables_destroyed);
		add_u64(t, v->page_tables_live_peak);
		add_u64(t, v->root_resizes);
		add_u64(t, v->root_entry_count);
		add_u64(t, v->root_entry_count_max);
		add_u64(t, v->page_table_updates);
		add_u64(t, v->entries_written);
		add_u64(t, v->entries_invalidated);
		add_u64(t, v->page_tables_made_resident);
		add_u64(t, v->page_tables_evicted);
		add_u64(t, v->page_faults);
	}
	g_free(spaces);

	t = table_new(tables, "memory", "mappings", "GPU VA mapping lifetimes", false,
		      COLUMNS(mapping_columns), "no mapping");
	values = sorted_values(r->mmu_xad->mappings);
	for (size_t i = 0; i < values->len; i++) {
		struct fsa_mapping_acc *acc = values->pdata[i];

		add_u64(t, acc->process_id);
		add_u64(t, acc->adapter_id);
		add_u64(t, acc->open_at_end);
		add_stats(t, &acc->lifetime);
	}
	g_ptr_array_free(values, TRUE);
}

static const struct fsa_column xad_fence_columns[] = {
    {"fence_global_handle", "fence", FSA_CELL_HANDLE},
    {"adapter_id", "created on", FSA_CELL_U64},
    {"created_as", "created as", FSA_CELL_STRING},
    {"opens", "opened on other adapters", FSA_CELL_U64},
    {"signals", "signals", FSA_CELL_U64},
    {"waits", "waits", FSA_CELL_U64},
    {"propagations", "propagations", FSA_CELL_U64},
    {"notifications", "NotificationOnly updates", FSA_CELL_U64},
};

static const struct fsa_column xad_open_columns[] = {
    {"ts_ns", "time", FSA_CELL_TIME},
    {"fence_global_handle", "fence", FSA_CELL_HANDLE},
    {"process_id", "process", FSA_CELL_U64},
    {"fence_handle", "local handle", FSA_CELL_HANDLE},
    {"adapter_id", "opened on", FSA_CELL_U64},
    {"creator_adapter_id", "created on", FSA_CELL_U64},
    {"created_as", "created as", FSA_CELL_STRING},
    {"opened_as", "opened as", FSA_CELL_STRING},
};

static const struct fsa_column xad_propagation_columns[] = {
    {"fence_global_handle", "fence", FSA_CELL_HANDLE},
    {"from_adapter_id", "from", FSA_CELL_U64},
    {"to_adapter_id", "to", FSA_CELL_U64},
    {"propagations", "propagations", FSA_CELL_U64},
    {"notified", "notified", FSA_CELL_U64},
    {"edges", "edges", FSA_CELL_U64},
    {"metric", "metric", FSA_CELL_STRING},
    STAT_COLUMNS,
};

static int
compare_xad(const void *a, const void *b)
{
	const struct fsa_xad_acc *x = *(const struct fsa_xad_acc *const *) a;
	const struct fsa_xad_acc *y = *(const struct fsa_xad_acc *const *) b;

	if (x->fence_global_handle != y->fence_global_handle)
		return x->fence_global_handle < y->fence_global_handle ? -1 : 1;
	if (x->from_adapter_id != y->from_adapter_id)
		return x->from_adapter_id < y->from_adapter_id ? -1 : 1;
	return x->to_adapter_id < y->to_adapter_id ? -1 : x->to_adapter_id > y->to_adapter_id;
}

static void
add_xad_rows(struct fsa_table *t, GPtrArray *accs, bool want_pairs)
{
	for (size_t i = 0; i < accs->len; i++) {
		struct fsa_xad_acc *acc = accs->pdata[i];

		if ((acc->fence_global_handle == 0) != want_pairs)
			continue;
		for (int metric = 0; metric < FSA_XAD_METRIC_COUNT; metric++) {
			if (!want_pairs)
				add_u64(t, acc->fence_global_handle);
			add_u64(t, acc->from_adapter_id);
			add_u64(t, acc->to_adapter_id);
			add_u64(t, acc->propagations);
			add_u64(t, acc->notified);
			add_u64(t, acc->edges);
			add_str(t, xad_metric_name(metric));
			add_stats(t, &acc->q[metric]);
		}
	}
}

/* XAD-07, XAD-08, XAD-10, XAD-11 (schema 2.3). */
static void
build_cross_adapter(struct fsa_report *r, GPtrArray *tables)
{
	size_t fence_count = r->model ? fsa_model_fence_count(r->model) : 0;
	struct fsa_table *t =
	    table_new(tables, "cross_adapter", "fences", "Cross-adapter fences", false,
		      COLUMNS(xad_fence_columns), "no cross-adapter fence");
	GPtrArray *accs = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;

	/* The model's fences are in creation order: by handle for stable output. */
	GPtrArray *fences = g_ptr_array_new();

	for (size_t i = 0; i < fence_count; i++) {
		const struct fsa_fence_info *f = fsa_model_borrow_fence(r->model, i);

		if (f->is_cross_adapter || f->cross_open_count)
			g_ptr_array_add(fences, (gpointer) f);
	}
	if (fences->len > 1)
		qsort(fences->pdata, fences->len, sizeof(gpointer), compare_key);
	for (size_t i = 0; i < fences->len; i++) {
		const struct fsa_fence_info *f = fences->pdata[i];

		add_u64(t, f->fence_global_handle);
		add_opt(t, f->adapter_id, UINT32_MAX);
		add_str(t, fence_object_name(f->fence_object));
		add_u64(t, f->cross_open_count);
		add_u64(t, f->signal_count);
		add_u64(t, f->wait_count);
		add_u64(t, f->propagation_count);
		add_u64(t, f->notification_count);
	}
	t = table_new(tables, "cross_adapter", "opens", "Opens on another adapter (XAD-10, XAD-11)",
		      false, COLUMNS(xad_open_columns), "none");
	for (size_t i = 0; i < fences->len; i++) {
		const struct fsa_fence_info *f = fences->pdata[i];

		for (size_t k = 0; k < f->cross_open_count; k++) {
			const struct fsa_cross_open *o =
			    fsa_model_borrow_cross_open(r->model, f->fence_global_handle, k);

			add_u64(t, o->ts_ns);
			add_u64(t, f->fence_global_handle);
			add_u64(t, o->process_id);
			add_u64(t, o->fence_handle);
			add_u64(t, o->adapter_id);
			add_u64(t, o->creator_adapter_id);
			add_str(t, fence_object_name(o->created_as));
			add_str(t, fence_object_name(o->opened_as));
		}
	}
	g_ptr_array_free(fences, TRUE);

	g_hash_table_iter_init(&iter, r->mmu_xad->xad);
	while (g_hash_table_iter_next(&iter, &value, NULL))
		g_ptr_array_add(accs, value);
	if (accs->len > 1)
		qsort(accs->pdata, accs->len, sizeof(gpointer), compare_xad);
	t = table_new(tables, "cross_adapter", "adapters", "Propagation by adapter pair", false,
		      xad_propagation_columns + 1,
		      sizeof(xad_propagation_columns) / sizeof(xad_propagation_columns[0]) - 1,
		      "no propagation");
	add_xad_rows(t, accs, true);
	t = table_new(tables, "cross_adapter", "propagation", "Propagation by fence", false,
		      COLUMNS(xad_propagation_columns), "no propagation");
	add_xad_rows(t, accs, false);
	g_ptr_array_free(accs, TRUE);
}

static const struct fsa_column loss_summary_columns[] = {
    {"log_entries_lost", "log entries lost", FSA_CELL_U64},
    {"overruns", "log overruns", FSA_CELL_U64},
    {"inferred_ops", "inferred operations", FSA_CELL_U64},
    {"tracer_discarded_events", "tracer discarded events", FSA_CELL_U64},
    {"tracer_discarded_event_records", "discarded-events messages", FSA_CELL_U64},
    {"tracer_discarded_packets", "tracer discarded packets", FSA_CELL_U64},
    {"tracer_discarded_packet_records", "discarded-packets messages", FSA_CELL_U64},
    {"log_entries_missing", "log entries missing", FSA_CELL_U64},
    {"log_gaps", "log gaps", FSA_CELL_U64},
    {"records_listed", "records listed", FSA_CELL_U64},
    {"records_not_listed", "records not listed", FSA_CELL_U64},
};

static const struct fsa_column loss_total_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"log_type", "log", FSA_CELL_STRING},
    {"stream_id", "stream", FSA_CELL_U64},
    {"records", "records", FSA_CELL_U64},
    {"lost", "lost", FSA_CELL_U64},
    {"inferred_ops", "inferred ops", FSA_CELL_U64},
    {"first_begin_ns", "first from", FSA_CELL_TIME},
    {"last_end_ns", "last to", FSA_CELL_TIME},
};

static const struct fsa_column loss_record_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},         {"count", "lost", FSA_CELL_U64},
    {"begin_ns", "from", FSA_CELL_TIME},       {"end_ns", "to", FSA_CELL_TIME},
    {"adapter_id", "adapter", FSA_CELL_U64},   {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"log_type", "log", FSA_CELL_STRING},      {"cached_position", "cached pos", FSA_CELL_U64},
    {"new_position", "new pos", FSA_CELL_U64}, {"inferred_ops", "inferred ops", FSA_CELL_U64},
    {"stream_id", "stream", FSA_CELL_U64},     {"cpu_id", "cpu", FSA_CELL_U64},
};

static int
compare_loss_total(const void *a, const void *b)
{
	const struct fsa_loss_total *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->hwqueue_handle != y->hwqueue_handle)
		return x->hwqueue_handle < y->hwqueue_handle ? -1 : 1;
	if (x->log_type != y->log_type)
		return x->log_type < y->log_type ? -1 : 1;
	return x->stream_id < y->stream_id ? -1 : x->stream_id > y->stream_id;
}

static void
build_losses(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "losses", "summary", "Lost data", true,
					COLUMNS(loss_summary_columns), NULL);

	add_u64(t, r->lost_by_kind[FSA_LOSS_LOG_OVERRUN]);
	add_u64(t, r->loss_records_by_kind[FSA_LOSS_LOG_OVERRUN]);
	add_u64(t, r->state_counts[FSA_OP_INFERRED]);
	add_u64(t, r->lost_by_kind[FSA_LOSS_TRACER_EVENTS]);
	add_u64(t, r->loss_records_by_kind[FSA_LOSS_TRACER_EVENTS]);
	add_u64(t, r->lost_by_kind[FSA_LOSS_TRACER_PACKETS]);
	add_u64(t, r->loss_records_by_kind[FSA_LOSS_TRACER_PACKETS]);
	add_u64(t, r->lost_by_kind[FSA_LOSS_LOG_GAP]);
	add_u64(t, r->loss_records_by_kind[FSA_LOSS_LOG_GAP]);
	add_u64(t, r->losses->len);
	add_u64(t, r->loss_count - r->losses->len);

	t = table_new(tables, "losses", "totals", "Losses per queue and log, or per stream", false,
		      COLUMNS(loss_total_columns), "no data lost");
	GArray *totals = g_array_copy(r->loss_totals);

	g_array_sort(totals, compare_loss_total);
	for (size_t i = 0; i < totals->len; i++) {
		const struct fsa_loss_total *l = &g_array_index(totals, struct fsa_loss_total, i);
		bool is_overrun = fsa_loss_is_per_log(l->kind);

		add_str(t, fsa_loss_kind_name(l->kind));
		add_opt(t, is_overrun ? l->hwqueue_handle : 0, 0);
		add_str(t, is_overrun ? log_type_name(l->log_type) : NULL);
		add_opt(t, is_overrun ? FSA_TIME_NONE : l->stream_id, FSA_TIME_NONE);
		add_u64(t, l->records);
		add_u64(t, l->lost);
		add_u64(t, l->inferred_ops);
		add_opt(t, l->first_begin_ns, FSA_TIME_NONE);
		add_opt(t, l->last_end_ns, FSA_TIME_NONE);
	}
	g_array_free(totals, TRUE);

	t = table_new(tables, "losses", "records", "Loss records (in trace order)", false,
		      COLUMNS(loss_record_columns), "no data lost");
	for (size_t i = 0; i < r->losses->len; i++) {
		const struct fsa_loss *l = &g_array_index(r->losses, struct fsa_loss, i);
		bool is_overrun = fsa_loss_is_per_log(l->kind);

		add_str(t, fsa_loss_kind_name(l->kind));
		add_u64(t, l->count);
		add_opt(t, l->begin_ns, FSA_TIME_NONE);
		add_opt(t, l->end_ns, FSA_TIME_NONE);
		add_opt(t, is_overrun ? l->adapter_id : UINT32_MAX, UINT32_MAX);
		add_opt(t, is_overrun ? l->hwqueue_handle : 0, 0);
		add_str(t, is_overrun ? log_type_name(l->log_type) : NULL);
		add_opt(t, is_overrun ? l->cached_position : FSA_TIME_NONE, FSA_TIME_NONE);
		add_opt(t, is_overrun ? l->new_position : FSA_TIME_NONE, FSA_TIME_NONE);
		add_u64(t, l->inferred_ops);
		add_opt(t, is_overrun ? FSA_TIME_NONE : l->stream_id, FSA_TIME_NONE);
		add_opt(t, is_overrun ? UINT32_MAX : l->cpu_id, UINT32_MAX);
	}
}

static const struct fsa_column anomaly_count_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},
    {"count", "count", FSA_CELL_U64},
};

static const struct fsa_column anomaly_example_columns[] = {
    {"kind", "kind", FSA_CELL_STRING},
    {"ts_ns", "at", FSA_CELL_TIME},
    {"process_id", "process", FSA_CELL_U64},
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"fence_handle", "fence (local)", FSA_CELL_HANDLE},
    {"fence_global_handle", "fence", FSA_CELL_HANDLE},
    {"fence_value", "value", FSA_CELL_U64},
    {"op_id", "op", FSA_CELL_U64},
    {"a", "a", FSA_CELL_U64},
    {"b", "b", FSA_CELL_U64},
};

static void
build_anomalies(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "anomalies", "counts", "Anomalies", false,
					COLUMNS(anomaly_count_columns), NULL);

	for (int kind = 0; kind < FSA_ANOM_KIND_COUNT; kind++) {
		add_str(t, fsa_anomaly_kind_name(kind));
		add_u64(t, r->anomaly_counts[kind]);
	}
	t = table_new(tables, "anomalies", "examples", "First anomalies of each kind", false,
		      COLUMNS(anomaly_example_columns), "no anomaly");
	for (size_t i = 0; i < r->anomaly_examples->len; i++) {
		const struct fsa_anomaly *a =
		    &g_array_index(r->anomaly_examples, struct fsa_anomaly, i);

		add_str(t, fsa_anomaly_kind_name(a->kind));
		add_opt(t, a->ts_ns, FSA_TIME_NONE);
		add_opt(t, a->process_id, UINT32_MAX);
		add_opt(t, a->hwqueue_handle, 0);
		add_opt(t, a->fence_handle, 0);
		add_opt(t, a->fence_global_handle, 0);
		add_u64(t, a->fence_value);
		add_opt(t, a->op_id, 0);
		add_u64(t, a->a);
		add_u64(t, a->b);
	}
}

static const struct fsa_column clock_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"pairs", "pairs", FSA_CELL_U64},
    {"nominal_hz", "nominal Hz", FSA_CELL_U64},
    {"offset_ns", "offset ns", FSA_CELL_F64},
    {"ns_per_tick", "ns per tick", FSA_CELL_F64},
    {"residual_rms_ns", "residual rms ns", FSA_CELL_F64},
    {"residual_max_ns", "residual max ns", FSA_CELL_F64},
    {"drift_ppm", "drift ppm", FSA_CELL_F64},
    {"extrapolated", "extrapolated", FSA_CELL_U64},
    {"extrapolated_max_ns", "extrapolated up to", FSA_CELL_DURATION},
};

static const struct fsa_column not_placed_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"reason", "why", FSA_CELL_STRING},
};

/* clocks.not_placed, only when an adapter had no clock pair: its fit row above is all zeros, and
 * its GPU boxes end where the OS read their log entries. */
static void
build_clocks_not_placed(struct fsa_report *r, GPtrArray *tables)
{
	const struct fsa_summary *s = r->model ? fsa_model_borrow_summary(r->model) : NULL;
	size_t count = r->model ? fsa_model_clock_fit_count(r->model) : 0;
	struct fsa_table *t;

	if (!unplaced_adapter_count(r, s))
		return;
	t = table_new(tables, "clocks", "not_placed", "GPU times not placed", false,
		      COLUMNS(not_placed_columns), NULL);
	for (size_t i = 0; i < count; i++) {
		const struct fsa_clock_fit *fit = fsa_model_borrow_clock_fit(r->model, i);

		if (fit->pair_count)
			continue;
		add_u64(t, fit->adapter_id);
		/* clock_correlation is a DEBUG event: a recording at --loglevel INFO has none. */
		add_str(t, "no clock pair: GPU times not placed (boxes end at their log reads; "
			   "--loglevel INFO?)");
	}
}

static void
build_clocks(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "clocks", "fits", "GPU clock → trace clock", false,
					COLUMNS(clock_columns), "no clock correlation");
	size_t count = r->model ? fsa_model_clock_fit_count(r->model) : 0;

	for (size_t i = 0; i < count; i++) {
		const struct fsa_clock_fit *fit = fsa_model_borrow_clock_fit(r->model, i);

		add_u64(t, fit->adapter_id);
		add_u64(t, fit->pair_count);
		add_u64(t, fit->nominal_hz);
		add_f64(t, fit->offset_ns);
		add_f64(t, fit->ns_per_tick);
		add_f64(t, fit->residual_rms_ns);
		add_f64(t, fit->residual_max_ns);
		add_f64(t, fit->drift_ppm);
		add_u64(t, fit->extrapolated_count);
		add_u64(t, fit->extrapolated_max_ns);
	}
	build_clocks_not_placed(r, tables);
}

static const struct fsa_column threshold_columns[] = {
    {"expression", "threshold", FSA_CELL_STRING},
    {"result", "measured", FSA_CELL_STRING},
    {"is_failed", "failed", FSA_CELL_BOOL},
};

static void
build_thresholds(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *t = table_new(tables, "thresholds", "results", "Thresholds", false,
					COLUMNS(threshold_columns), NULL);

	if (r->options.is_fail_on_loss) {
		add_str(t, "--fail-on-loss");
		char *text = g_strdup_printf("%" G_GUINT64_FORMAT " loss records", r->loss_count);

		add_str(t, text);
		g_free(text);
		add_bool(t, r->loss_count > 0);
	}
	for (size_t i = 0; i < r->thresholds->len; i++) {
		const char *message = r->threshold_messages->pdata[i];
		const char *expression = threshold_expression(r->thresholds->pdata[i]);
		size_t prefix = strlen(expression) + 2;

		add_str(t, expression);
		add_str(t, message && strlen(message) > prefix
			       ? message + prefix + strlen("measured ")
			       : "no data");
		add_bool(t, g_array_index(r->threshold_failed, gboolean, i));
	}
}

/* --- Frames and critical paths (schema 2.4; frame-stats.c, critical-path.c) ------------------- */

static const struct fsa_column frame_time_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"source_id", "display", FSA_CELL_U64},
    {"frames", "frames", FSA_CELL_U64},
    {"frame_time_p50_ns", "frame p50", FSA_CELL_DURATION},
    {"frame_time_p95_ns", "frame p95", FSA_CELL_DURATION},
    {"frame_time_p99_ns", "frame p99", FSA_CELL_DURATION},
    {"frame_time_max_ns", "frame max", FSA_CELL_DURATION},
    {"budget_ns", "budget", FSA_CELL_DURATION},
    {"over_budget", "over budget", FSA_CELL_U64},
    {"missed_vsyncs", "missed vsyncs", FSA_CELL_U64},
    {"frames_after_missed", "frames late", FSA_CELL_U64},
};

static const struct fsa_column present_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},      {"source_id", "display", FSA_CELL_U64},
    {"presents", "presents", FSA_CELL_U64},       {"pending", "pending at end", FSA_CELL_U64},
    {"latency_min_ns", "min", FSA_CELL_DURATION}, {"latency_p50_ns", "p50", FSA_CELL_DURATION},
    {"latency_p95_ns", "p95", FSA_CELL_DURATION}, {"latency_p99_ns", "p99", FSA_CELL_DURATION},
    {"latency_max_ns", "max", FSA_CELL_DURATION},
};

static const struct fsa_column longest_frame_columns[] = {
    {"adapter_id", "adapter", FSA_CELL_U64},
    {"source_id", "display", FSA_CELL_U64},
    {"frame", "frame", FSA_CELL_U64},
    {"flip_id", "flip", FSA_CELL_U64},
    {"vsync_count", "vsync", FSA_CELL_U64},
    {"end_ns", "on screen at", FSA_CELL_TIME},
    {"frame_time_ns", "frame time", FSA_CELL_DURATION},
    {"missed_vsyncs", "missed", FSA_CELL_U64},
    {"present_latency_ns", "present latency", FSA_CELL_DURATION},
    {"process_id", "process", FSA_CELL_U64},
};

/* Quantiles of a statistic, or nulls without samples. */
static void
add_quantiles(struct fsa_table *t, struct fsa_quantile *q, bool with_min)
{
	if (!q->count) {
		for (int k = 0; k < (with_min ? 5 : 4); k++)
			add_null(t);
		return;
	}
	if (with_min)
		add_u64(t, q->min);
	add_u64(t, quantile_value(q, 0.50));
	add_u64(t, quantile_value(q, 0.95));
	add_u64(t, quantile_value(q, 0.99));
	add_u64(t, q->max);
}

/* Issue 16 §3: frame times, presents and the longest frames per display (docs/analyzer.md
 * "Frames"). */
static void
build_frames(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_table *times =
	    table_new(tables, "frames", "frame_times", "Frame times per display", false,
		      COLUMNS(frame_time_columns), "no frames (the trace has no flips)");
	struct fsa_table *presents =
	    table_new(tables, "frames", "presents", "Presents (flip_queued → flip_done)", false,
		      COLUMNS(present_columns), "no present");
	struct fsa_table *longest = table_new(tables, "frames", "longest", "Longest frames", false,
					      COLUMNS(longest_frame_columns), "no frame time");
	GPtrArray *values = sorted_values(r->frame_stats->displays);

	for (size_t i = 0; i < values->len; i++) {
		struct fsa_frame_display_acc *d = values->pdata[i];

		if (!d->frames && !d->pending)
			continue;
		add_u64(times, d->adapter_id);
		add_u64(times, d->source_id);
		add_u64(times, d->frames);
		add_quantiles(times, &d->frame_time, false);
		add_opt(times, frame_stats_budget(r, d), FSA_TIME_NONE);
		add_u64(times, d->over_budget);
		add_u64(times, d->missed_vsyncs);
		add_u64(times, d->frames_missing_vsyncs);
		add_u64(presents, d->adapter_id);
		add_u64(presents, d->source_id);
		add_u64(presents, d->present_latency.count);
		add_u64(presents, d->pending);
		add_quantiles(presents, &d->present_latency, true);
	}
	g_ptr_array_free(values, TRUE);
	for (guint i = 0; i < r->frame_stats->longest->len; i++) {
		const struct fsa_frame *f =
		    &g_array_index(r->frame_stats->longest, struct fsa_frame, i);

		add_u64(longest, f->adapter_id);
		add_u64(longest, f->source_id);
		add_u64(longest, f->index);
		add_u64(longest, f->flip_id);
		add_u64(longest, f->vsync_count);
		add_opt(longest, f->end_ns, FSA_TIME_NONE);
		add_u64(longest, f->frame_time_ns);
		add_u64(longest, f->missed_vsyncs);
		add_opt(longest, f->present_latency_ns, FSA_TIME_NONE);
		add_opt(longest, f->process_id, UINT32_MAX);
	}
}

static const struct fsa_column cp_path_columns[] = {
    {"path", "path", FSA_CELL_U64},
    {"subject", "of", FSA_CELL_STRING},
    {"frame", "frame", FSA_CELL_U64},
    {"wait_op_id", "wait op", FSA_CELL_U64},
    {"begin_ns", "begin", FSA_CELL_TIME},
    {"duration_ns", "duration", FSA_CELL_DURATION},
    {"links", "links", FSA_CELL_U64},
    {"critical_queue", "critical queue", FSA_CELL_HANDLE},
    {"critical_queue_percent", "share %", FSA_CELL_F64},
    {"stop", "stop", FSA_CELL_STRING},
};

static const struct fsa_column cp_link_columns[] = {
    {"path", "path", FSA_CELL_U64},
    {"link", "link", FSA_CELL_U64},
    {"role", "role", FSA_CELL_STRING},
    {"kind", "kind", FSA_CELL_STRING},
    {"id", "id", FSA_CELL_U64},
    {"hwqueue_handle", "queue", FSA_CELL_HANDLE},
    {"begin_ns", "begin", FSA_CELL_TIME},
    {"end_ns", "end", FSA_CELL_TIME},
    {"held_ns", "held", FSA_CELL_DURATION},
};

static const struct fsa_column cp_share_columns[] = {
    {"path", "path", FSA_CELL_U64},       {"scope", "scope", FSA_CELL_STRING},
    {"key", "key", FSA_CELL_STRING},      {"held_ns", "held", FSA_CELL_DURATION},
    {"percent", "share %", FSA_CELL_F64},
};

/* The queue, engine, process or display each link's held time counts for
 * (fsa_chain_path_shares, shared with the viewer). Returns: (transfer full). */
static struct fsa_path_share *
path_shares(struct fsa_report *r, const struct fsa_cp_path *path, size_t *count)
{
	const struct fsa_path_link *links =
	    (const struct fsa_path_link *) (void *) r->critical_path->links->data +
	    path->first_link;
	struct fsa_path_share *shares = g_new(struct fsa_path_share, 3 * path->link_count + 1);

	*count = fsa_chain_path_shares(fsa_chain_store_borrow_source(r->critical_path->store),
				       links, path->link_count, path->frame.adapter_id,
				       path->frame.source_id, shares);
	return shares;
}

static double
percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

static const char *
link_kind(const struct fsa_path_link *l)
{
	if (!l->has_item)
		return "flip";
	return l->item.type == FSA_CHAIN_ITEM_WAIT     ? "wait"
	       : l->item.type == FSA_CHAIN_ITEM_SIGNAL ? "signal"
						       : "packet";
}

/* Issue 16 §1: the critical path of each frame, or of the longest waits (docs/analyzer.md
 * "Chains of causes"). */
static void
build_critical_path(struct fsa_report *r, GPtrArray *tables)
{
	struct fsa_critical_path *cp = r->critical_path;
	struct fsa_table *paths =
	    table_new(tables, "critical_path", "paths",
		      cp && cp->has_frames ? "Critical path of each frame"
					   : "Critical path of the longest waits",
		      false, COLUMNS(cp_path_columns), "no frame and no completed wait");
	struct fsa_table *links =
	    table_new(tables, "critical_path", "links", "Operations on each critical path", false,
		      COLUMNS(cp_link_columns), "none");
	struct fsa_table *shares =
	    table_new(tables, "critical_path", "shares",
		      "Share of each path per queue, engine, process, display", false,
		      COLUMNS(cp_share_columns), "none");

	for (guint p = 0; cp && p < cp->paths->len; p++) {
		const struct fsa_cp_path *path = &g_array_index(cp->paths, struct fsa_cp_path, p);
		uint64_t duration = path->end_ns - path->begin_ns;
		size_t share_count;
		struct fsa_path_share *path_share = path_shares(r, path, &share_count);
		const struct fsa_path_share *critical = NULL;

		for (size_t i = 0; i < share_count; i++) {
			const struct fsa_path_share *s = &path_share[i];

			if (strcmp(s->scope, "queue") == 0 &&
			    (!critical || s->held_ns > critical->held_ns))
				critical = s;
		}
		add_u64(paths, p + 1);
		add_str(paths, path->is_frame ? "frame" : "wait");
		add_opt(paths, path->is_frame ? path->frame.index : 0, 0);
		add_opt(paths, path->is_frame ? 0 : path->wait_op_id, 0);
		add_u64(paths, path->begin_ns);
		add_u64(paths, duration);
		add_u64(paths, path->link_count);
		add_opt(paths, critical ? critical->hwqueue_handle : 0, 0);
		if (critical)
			add_f64(paths, percent(critical->held_ns, duration));
		else
			add_null(paths);
		add_str(paths, path->stop);
		for (size_t i = 0; i < path->link_count; i++) {
			const struct fsa_path_link *l =
			    &g_array_index(cp->links, struct fsa_path_link, path->first_link + i);
			uint64_t begin = !l->has_item ? l->hold_begin_ns
					 : l->item.type == FSA_CHAIN_ITEM_PACKET
					     ? l->item.start_ns
					     : l->item.queued_ns;
			uint64_t end = l->has_item ? l->item.end_ns : l->hold_end_ns;

			add_u64(links, p + 1);
			add_u64(links, i + 1);
			add_str(links, l->role);
			add_str(links, link_kind(l));
			add_u64(links, l->has_item ? l->item.id : l->flip_id);
			add_opt(links, l->has_item ? l->item.hwqueue_handle : 0, 0);
			add_opt(links, begin, FSA_TIME_NONE);
			add_opt(links, end, FSA_TIME_NONE);
			add_u64(links, l->hold_end_ns - l->hold_begin_ns);
		}
		for (size_t i = 0; i < share_count; i++) {
			const struct fsa_path_share *s = &path_share[i];

			add_u64(shares, p + 1);
			add_str(shares, s->scope);
			add_str(shares, s->key);
			add_u64(shares, s->held_ns);
			add_f64(shares, percent(s->held_ns, duration));
		}
		g_free(path_share);
	}
}

/* --times relative: the origin of every time is the trace's first event, as in the viewer (0
 * without a model or an event). */
static uint64_t
time_origin(const struct fsa_report *r)
{
	const struct fsa_summary *s = r->model ? fsa_model_borrow_summary(r->model) : NULL;

	return s && s->first_ns != FSA_TIME_NONE ? s->first_ns : 0;
}

static const struct fsa_column times_columns[] = {
    {"times", "times", FSA_CELL_STRING},
    {"origin_ns", "origin (trace ns)", FSA_CELL_U64},
};

/* Marks every table's times relative and says so after the summary (or first, without it), with
 * the origin a script needs to get the absolute times back. */
static void
make_times_relative(struct fsa_report *r, GPtrArray *tables)
{
	uint64_t origin = time_origin(r);
	struct fsa_table *t;
	guint at = 0;

	for (guint i = 0; i < tables->len; i++)
		((struct fsa_table *) tables->pdata[i])->time_origin_ns = origin;
	while (at < tables->len &&
	       strcmp(((struct fsa_table *) tables->pdata[at])->section, "summary") == 0)
		at++;
	t = table_new(tables, "summary", "times", "Times", true, COLUMNS(times_columns), NULL);
	add_str(t, "relative to the first event");
	add_u64(t, origin);
	/* table_new appended it: move it after the summary's tables. */
	g_ptr_array_steal_index(tables, tables->len - 1);
	g_ptr_array_insert(tables, (gint) at, t);
}

int64_t
table_relative_time(const struct fsa_table *table, uint64_t ns)
{
	if (table->time_origin_ns == FSA_TIME_NONE)
		return (int64_t) ns;
	return ns >= table->time_origin_ns ? (int64_t) (ns - table->time_origin_ns)
					   : -(int64_t) (table->time_origin_ns - ns);
}

GPtrArray *
report_build_tables(struct fsa_report *r)
{
	GPtrArray *tables = g_ptr_array_new_with_free_func(table_free);
	unsigned sections = r->options.sections;

	if (sections & FSA_REPORT_SUMMARY)
		build_summary(r, tables);
	if (sections & FSA_REPORT_LATENCY)
		build_latency(r, tables);
	if (sections & FSA_REPORT_LONGEST)
		build_longest(r, tables);
	if (sections & FSA_REPORT_DOORBELLS)
		build_doorbells(r, tables);
	if (sections & FSA_REPORT_PREEMPTION)
		build_preemption(r, tables);
	/* Schema 2.2: for traces of format 1.4 (or with its items), or when named by --sections. */
	bool is_shown = recovery_is_shown(r);
	bool is_named = (r->options.sections & FSA_REPORT_ALL_SECTIONS) != FSA_REPORT_ALL_SECTIONS;

	if ((sections & FSA_REPORT_PREEMPTION) && is_shown)
		build_preemption_22(r, tables);
	if ((sections & FSA_REPORT_TDR) && (is_shown || is_named))
		build_tdr(r, tables);
	if ((sections & FSA_REPORT_DISPLAY) && (is_shown || is_named))
		build_display(r, tables);
	if ((sections & FSA_REPORT_FAULTS) && (is_shown || is_named))
		build_faults(r, tables);
	/* Schema 2.4: for traces with a display, or when named. */
	if ((sections & FSA_REPORT_FRAMES) && (frame_stats_is_shown(r) || is_named))
		build_frames(r, tables);
	if (sections & FSA_REPORT_CRITICAL_PATH)
		build_critical_path(r, tables);
	/* Schema 2.3: for traces of format 1.5 (or with its items), or when named by --sections. */
	bool is_shown_23 = mmu_xad_is_shown(r);

	if ((sections & FSA_REPORT_PAGE_FAULTS) && (is_shown_23 || is_named))
		build_page_faults(r, tables);
	if ((sections & FSA_REPORT_MEMORY) && (is_shown_23 || is_named))
		build_memory(r, tables);
	if ((sections & FSA_REPORT_CROSS_ADAPTER) && (is_shown_23 || is_named))
		build_cross_adapter(r, tables);
	if (sections & FSA_REPORT_LOSSES)
		build_losses(r, tables);
	if (sections & FSA_REPORT_ANOMALIES)
		build_anomalies(r, tables);
	if (sections & FSA_REPORT_CLOCKS)
		build_clocks(r, tables);
	if (r->thresholds->len || r->options.is_fail_on_loss)
		build_thresholds(r, tables);
	if (r->options.is_time_relative)
		make_times_relative(r, tables);
	return tables;
}
