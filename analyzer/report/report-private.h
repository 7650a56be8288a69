/* SPDX-License-Identifier: MIT */
/*
 * What the report's files share: the accumulators the sink callbacks fill (report.c), the
 * thresholds (threshold.c), and the tables every writer prints (tables.c builds them once, then
 * write-text.c, write-json.c and write-csv.c only format). Keeping one table layer is what keeps
 * the three formats saying the same thing.
 */
#ifndef FSA_REPORT_PRIVATE_H
#define FSA_REPORT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <glib.h>

#include "fsa/report.h"
#include "quantile-private.h"

/* Latency metrics; each has a name in thresholds and tables. */
enum fsa_metric {
	FSA_METRIC_WAIT,         /* queue waits (user and kernel mode): queued → unblocked */
	FSA_METRIC_WAIT_QUEUED,  /* user-mode waits: queued → reached by the GPU */
	FSA_METRIC_WAIT_STALLED, /* user-mode waits: reached by the GPU → unblocked */
	FSA_METRIC_SIGNAL,       /* queue signals: queued → executed */
	FSA_METRIC_CPU_WAIT,     /* cpu_wait_begin → cpu_wait_end */
	FSA_METRIC_COUNT,
};

/* lookup.c */
const char *metric_name(enum fsa_metric metric);

struct fsa_latency {
	struct fsa_quantile q[FSA_METRIC_COUNT];
};

struct fsa_queue_acc {
	uint64_t hwqueue_handle; /* first: the hash key */
	uint32_t process_id;
	uint32_t adapter_id, engine_id;
	enum fsa_op_source source;
	struct fsa_latency latency;
	uint64_t op_states[2][4]; /* [kind][state] */
	/* Doorbells. connected_ns and the times below count an interval still open at the end of
	 * the trace up to that end (open_at_end counts those intervals). */
	uint64_t rings, connects, failed_connects, disconnects, victimized, victimizer;
	uint64_t connected_ns;
	struct fsa_quantile reconnect;
	uint64_t status_ns[4]; /* the status word held FSTP_DOORBELL_STATUS_* (doorbell_status) */
	uint64_t aborts;       /* stores of DISCONNECTED_ABORT to its status word (UMS-16) */
	uint64_t suspended_ns; /* its context suspended (context_suspend → context_resume) */
	uint64_t open_at_end;
	/* Losses of this queue's logs, [log_type]. */
	uint64_t overruns[2], entries_lost[2], inferred_ops[2];
};

struct fsa_fence_acc {
	uint64_t fence_global_handle; /* first: the hash key */
	struct fsa_latency latency;
};

struct fsa_process_acc {
	uint64_t process_id; /* 64-bit and first: the hash key */
	struct fsa_latency latency;
};

struct fsa_engine_acc {
	uint64_t key; /* adapter << 32 | engine; first: the hash key */
	uint32_t adapter_id, engine_id;
	uint64_t packets, by_status[5], resubmissions, busy_ns;
	uint64_t preemptions, preempt_reasons[6];
	struct fsa_quantile preemption;
	/* Doorbells and power (doorbells.engines); open intervals count up to the trace's end. */
	struct fsa_quantile reconnect;
	uint64_t suspended_ns, f1_count, f1_ns, open_at_end;
};

/* An adapter's D-states (doorbells.adapters). */
struct fsa_adapter_acc {
	uint64_t adapter_id; /* first: the hash key */
	uint64_t d3_count, d3_ns, open_at_end;
};

/* One of the longest waits, with what signalled it. */
struct fsa_long_wait {
	struct fsa_op op;
	uint64_t duration_ns;
	bool has_signaller;
	enum fsa_op_source signal_source;
	uint64_t signal_hwqueue_handle;
	uint32_t signal_process_id;
	uint64_t signal_end_ns;
};

/* Loss totals per (kind, queue or stream, log type). */
struct fsa_loss_total {
	enum fsa_loss_kind kind;
	uint64_t hwqueue_handle, stream_id;
	uint8_t log_type;
	uint64_t records, lost, inferred_ops;
	uint64_t first_begin_ns, last_end_ns;
};

/* A slot of the pending edges' index: the edge of `wait_op_id` is at ring position `at` - 1
 * (0: a free slot). */
struct fsa_pending_slot {
	uint64_t wait_op_id;
	uint32_t at;
};

struct fsa_threshold;
struct fsa_recovery;      /* recovery-private.h */
struct fsa_frame_stats;   /* frame-stats-private.h */
struct fsa_critical_path; /* critical-path-private.h */
struct fsa_mmu_xad;       /* mmu-xad-private.h */

struct fsa_report {
	struct fsa_report_options options;
	struct fsa_model_sink sink;
	const struct fsa_model *model;
	char *partial_reason;
	char *trace_path; /* fsa_report_set_trace_path; NULL: not named */

	/* Time filter, resolved at the first callback (relative times need the first event). */
	bool is_range_resolved;
	uint64_t begin_ns, end_ns; /* end FSA_TIME_NONE: unbounded */

	uint64_t op_counts[3][2]; /* [source][kind], in range */
	uint64_t state_counts[4]; /* [state], in range */
	uint64_t edge_count, packet_count, marker_count, loss_count, anomaly_total;

	struct fsa_latency overall;
	struct fsa_quantile reconnect_all; /* every queue's doorbell reconnect latency */
	GHashTable *queues;                /* hwqueue_handle → fsa_queue_acc */
	GHashTable *fences;                /* fence_global_handle → fsa_fence_acc */
	GHashTable *processes;             /* process_id → fsa_process_acc */
	GHashTable *engines;               /* key → fsa_engine_acc */
	GHashTable *adapters;              /* adapter_id → fsa_adapter_acc */
	uint64_t latest_ns; /* the latest time an item named (FSA_TIME_NONE: none yet) */
	/* The last accumulator each of get_queue, get_fence and get_process returned: most
	 * operations in a row are on the same ones (entries stay until the report is freed). */
	struct fsa_queue_acc *last_queue;
	struct fsa_fence_acc *last_fence;
	struct fsa_process_acc *last_process;

	/* Markers other than doorbells and preemption, by kind: duration or count. */
	struct fsa_quantile marker_durations[FSA_MARK_KIND_COUNT];
	uint64_t marker_counts[FSA_MARK_KIND_COUNT];
	GArray *marker_examples; /* struct fsa_marker: TDR, resets, faults, device lost */
	uint64_t marker_example_counts[FSA_MARK_KIND_COUNT];

	/* Longest waits: a min-heap of options.longest_count. */
	struct fsa_long_wait *longest;
	size_t longest_len;
	/* Edges seen before their wait (the model may send either first), by wait op id; a FIFO
	 * bounded to FSA_REPORT_EDGE_MEMORY entries: `pending` holds the copies in arrival order
	 * (a ring), `pending_index` finds the latest copy of a wait op id (open addressing,
	 * FSA_REPORT_EDGE_INDEX slots; each keeps its wait op id, so that a probe reads no edge).
	 * An edge goes by every wait: no allocation and no GHashTable per edge. */
	struct fsa_edge *pending;
	struct fsa_pending_slot *pending_index;
	size_t pending_head, pending_len;

	GArray *losses;      /* struct fsa_loss, the first options.loss_list_count */
	GArray *loss_totals; /* struct fsa_loss_total */
	uint64_t lost_by_kind[FSA_LOSS_KIND_COUNT], loss_records_by_kind[FSA_LOSS_KIND_COUNT];

	uint64_t anomaly_counts[FSA_ANOM_KIND_COUNT];
	GArray *anomaly_examples; /* struct fsa_anomaly, options.example_count per kind */

	/* Scheduling, preemption, TDR, display and faults (format 1.4; recovery.c). */
	struct fsa_recovery *recovery;
	/* GpuMmu and cross-adapter fences (format 1.5; page-faults.c, cross-adapter.c). */
	struct fsa_mmu_xad *mmu_xad;
	/* Frames (schema 2.4; frame-stats.c) and, when asked for, critical paths
	 * (critical-path.c; NULL otherwise). */
	struct fsa_frame_stats *frame_stats;
	struct fsa_critical_path *critical_path;

	GPtrArray *thresholds; /* struct fsa_threshold */
	GPtrArray *failures;   /* char *, after finish */
	/* After finish, one per threshold: "EXPR: measured X" (NULL: no data) and whether it
	 * failed. */
	GPtrArray *threshold_messages;
	GArray *threshold_failed; /* gboolean */
	bool is_finished;
	fsa_status status; /* the first out-of-memory, reported by the callbacks */
};

#define FSA_REPORT_EDGE_MEMORY 1024
/* Twice the memory, a power of two: the index stays at most half full. */
#define FSA_REPORT_EDGE_INDEX (2 * FSA_REPORT_EDGE_MEMORY)

/* report.c: does [begin_ns, end_ns] overlap the time filter (FSA_TIME_NONE: unknown)? */
bool report_in_range(struct fsa_report *report, uint64_t begin_ns, uint64_t end_ns);

/* parse.c */
void report_set_error(char **error_message, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
fsa_status report_parse_number_unit(const char *text, double *number, const char **unit_end,
				    double *unit_ns, bool *has_unit);

/* threshold.c */
fsa_status threshold_parse(const char *expression, struct fsa_threshold **threshold,
			   char **error_message);
/* The same with ALLOW_BASE: the right-hand side may name the base trace's value ("1.10 * base",
 * "base + 1ms"; fencescope diff). */
fsa_status threshold_parse_base(const char *expression, bool allow_base,
				struct fsa_threshold **threshold, char **error_message);
void threshold_destroy(struct fsa_threshold *threshold);
bool threshold_has_base(const struct fsa_threshold *threshold);
/* Its scope ('a' all, 'q' queue, 'f' fence, 'p' process), key, and the quoted stable name that
 * replaces the key in fencescope diff (NULL: none). */
char threshold_scope(const struct fsa_threshold *threshold, uint64_t *key, const char **name);
/* threshold_check() with KEY in place of the threshold's own scope key. */
bool threshold_check_key(const struct fsa_threshold *threshold, struct fsa_report *report,
			 uint64_t key, char **failure);
/* A threshold with base against R (scope key KEY) and BASE (BASE_KEY, the matched object; BASE
 * NULL: unmatched). True when it fails; *message (transfer full) says what was measured. */
bool threshold_check_base(const struct fsa_threshold *threshold, struct fsa_report *base,
			  uint64_t base_key, struct fsa_report *r, uint64_t key, char **message);
/* Evaluates against a finished report: returns true when it fails, with the message in
 * *failure (transfer full, g_free). Also gives the measured value as text in *measured. */
bool threshold_check(const struct fsa_threshold *threshold, struct fsa_report *report,
		     char **failure);
const char *threshold_expression(const struct fsa_threshold *threshold);
/* The series of samples a threshold measures, for fencescope diff, which keeps them per object:
 * the latency metrics (WAIT + enum fsa_metric), packet durations, frame times, present
 * latencies; NONE for counts of other things (measured in each side's report). */
enum threshold_series {
	THRESHOLD_SERIES_NONE = -1,
	THRESHOLD_SERIES_WAIT = 0,
	THRESHOLD_SERIES_PACKET = FSA_METRIC_COUNT,
	THRESHOLD_SERIES_FRAME,
	THRESHOLD_SERIES_PRESENT,
};
enum threshold_series threshold_series(const struct fsa_threshold *threshold);
/* The threshold's statistic of Q (NULL: no sample) against its limit, or with base against the
 * same statistic of BASE (HAS_BASE false: no object matched in the base trace). *message: one
 * line, as threshold_check_base() writes it. */
bool threshold_check_series(const struct fsa_threshold *threshold, struct fsa_quantile *base,
			    bool has_base, struct fsa_quantile *q, char **message);

/* lookup.c: the accumulators thresholds look up; NULL when the key was never seen. */
struct fsa_latency *report_find_latency(struct fsa_report *report, char scope, uint64_t key);
struct fsa_queue_acc *report_find_queue(struct fsa_report *report, uint64_t hwqueue_handle);

/* Durations for humans: fsa_format_duration() in fsa/duration.h, shared with the viewer. */
#include "fsa/duration.h"

/* tables.c: the report as tables, for the writers. */
enum fsa_cell_type {
	FSA_CELL_U64,      /* a count */
	FSA_CELL_I64,      /* a signed code */
	FSA_CELL_DURATION, /* ns; text shows an adaptive unit */
	FSA_CELL_TIME,     /* trace ns; text shows seconds */
	FSA_CELL_HANDLE,   /* hex "0x…" in every format */
	FSA_CELL_F64,
	FSA_CELL_BOOL,
	FSA_CELL_STRING,
	FSA_CELL_DELTA, /* signed ns (the i member); text "+1.230 ms" / "−1.230 ms" */
};

struct fsa_column {
	const char *name;  /* JSON key and CSV header; snake_case, unit suffix */
	const char *title; /* text header */
	enum fsa_cell_type type;
};

struct fsa_cell {
	bool is_null;
	union {
		uint64_t u;
		int64_t i;
		double f;
		bool b;
		char *s; /* owned */
	};
};

struct fsa_table {
	const char *section; /* section name */
	const char *name;    /* JSON key inside the section; CSV "table" column */
	const char *title;   /* text heading */
	bool is_record;      /* one row: a JSON object and "key: value" lines in text */
	size_t column_count;
	const struct fsa_column *columns;
	GArray *cells;          /* struct fsa_cell, row-major */
	const char *empty_text; /* text shown when there are no rows */
	/* Text: how many leading columns name a row; a table split to fit the width repeats them
	 * in every part. 0: write-text.c picks the leading identifier columns. */
	size_t key_columns;
	/* Text: only the first this many columns (the rest are for JSON and CSV); 0: all. */
	size_t text_column_count;
	/* --times relative: FSA_CELL_TIME cells are written as signed ns since this origin (the
	 * trace's first event); FSA_TIME_NONE: absolute. */
	uint64_t time_origin_ns;
};

/* A time cell as written: absolute ns, or ns since the table's origin (may be negative). */
int64_t table_relative_time(const struct fsa_table *table, uint64_t ns);

size_t table_row_count(const struct fsa_table *table);
const struct fsa_cell *table_cell(const struct fsa_table *table, size_t row, size_t column);

/* Returns: (transfer full) a GPtrArray of struct fsa_table, in print order, freeing itself. */
GPtrArray *report_build_tables(struct fsa_report *report);

/* For other table builders (diff.c): an empty list that frees its tables, and a new table
 * appended to it (columns borrowed: static arrays). */
GPtrArray *report_tables_new(void);
struct fsa_table *report_table_add(GPtrArray *tables, const char *section, const char *name,
				   const char *title, bool is_record,
				   const struct fsa_column *columns, size_t column_count,
				   const char *empty_text);

/* The writers over any tables: TITLE is the text's first line, PARTIAL (nullable) a PARTIAL:
 * line under it, LIMIT the width wider tables are split to (0: none); SCHEMA_VERSION the JSON
 * document's. */
fsa_status tables_write_text(GPtrArray *tables, const char *title, const char *partial,
			     size_t limit, FILE *out);
fsa_status tables_write_json(GPtrArray *tables, const char *schema_version, FILE *out);

fsa_status report_write_text(struct fsa_report *report, GPtrArray *tables, FILE *out);
fsa_status report_write_json(struct fsa_report *report, GPtrArray *tables, FILE *out);
fsa_status report_write_csv(struct fsa_report *report, GPtrArray *tables, FILE *out);

#endif /* FSA_REPORT_PRIVATE_H */
