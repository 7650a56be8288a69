/* SPDX-License-Identifier: MIT */
/*
 * `fencescope export --sqlite`: every item the model produces, one row each, in an SQLite file
 * whose tables, units and views docs/export.md documents, so that any further report is one SQL
 * query away. Rows go in as the model streams them, through prepared statements in one
 * transaction; indexes and views are created at the end, when building them is cheapest. The
 * file is written under a temporary name and renamed when complete (fsa/output-file.h).
 *
 * It computes no statistics: the views do, in SQL. Unknown values (FSA_TIME_NONE, UINT32_MAX
 * ids, absent handles) are NULL, so aggregates skip them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "fencescope-tp-enums.h"
#include "fsa/export-writers.h"
#include "fsa/frames.h"
#include "recovery-private.h"

#include "export-file-private.h"

enum stmt_id {
	STMT_OP,
	STMT_EDGE,
	STMT_PACKET,
	STMT_MARKER,
	STMT_LOSS,
	STMT_ANOMALY,
	STMT_PROCESS,
	STMT_QUEUE,
	STMT_FENCE,
	STMT_CLOCK_FIT,
	STMT_META,
	STMT_SUMMARY,
	STMT_CONTEXT,
	STMT_ENGINE,
	STMT_VA_SPACE,
	STMT_CROSS_OPEN,
	STMT_FRAME,
	STMT_COUNT,
};

/* The schema. Each column's unit and meaning is in docs/export.md; keep them together. */
static const char schema_sql[] =
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);\n"
    "CREATE TABLE summary (key TEXT PRIMARY KEY, value INTEGER);\n"
    "CREATE TABLE processes (process_id INTEGER PRIMARY KEY, name TEXT, created_ns INTEGER,"
    " terminated_ns INTEGER, is_abnormal_termination INTEGER);\n"
    "CREATE TABLE queues (hwqueue_handle INTEGER PRIMARY KEY, process_id INTEGER,"
    " context_handle INTEGER, adapter_id INTEGER, engine_id INTEGER, engine_type TEXT,"
    " is_user_mode INTEGER, ring_size_bytes INTEGER, progress_fence_handle INTEGER,"
    " created_ns INTEGER, destroyed_ns INTEGER, wait_count INTEGER, signal_count INTEGER,"
    " packet_count INTEGER);\n"
    "CREATE TABLE fences (fence_global_handle INTEGER PRIMARY KEY, adapter_id INTEGER,"
    " creator_process_id INTEGER, creator_fence_handle INTEGER, fence_type INTEGER,"
    " is_shared INTEGER, is_cross_adapter INTEGER, is_progress_fence INTEGER,"
    " initial_value INTEGER, last_value INTEGER, final_value INTEGER, created_ns INTEGER,"
    " destroyed_ns INTEGER, wait_count INTEGER, signal_count INTEGER, fence_object TEXT,"
    " cross_open_count INTEGER, propagation_count INTEGER, notification_count INTEGER);\n"
    "CREATE TABLE operations (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, source TEXT NOT NULL,"
    " state TEXT NOT NULL, hwqueue_handle INTEGER, process_id INTEGER, adapter_id INTEGER,"
    " engine_id INTEGER, fence_handle INTEGER, fence_global_handle INTEGER,"
    " fence_value INTEGER, progress_value INTEGER, queued_ns INTEGER, observed_ns INTEGER,"
    " end_ns INTEGER, inferred_begin_ns INTEGER, inferred_end_ns INTEGER,"
    " observed_gpu_ts INTEGER, end_gpu_ts INTEGER, log_position INTEGER,"
    " cpu_wait_result TEXT, observed_value INTEGER, signal_op_id INTEGER,"
    " duration_ns INTEGER, queued_phase_ns INTEGER, stalled_phase_ns INTEGER);\n"
    "CREATE TABLE edges (signal_op_id INTEGER, wait_op_id INTEGER,"
    " fence_global_handle INTEGER, signal_value INTEGER, wait_value INTEGER,"
    " signal_source TEXT, wait_source TEXT, signal_hwqueue_handle INTEGER,"
    " wait_hwqueue_handle INTEGER, signal_process_id INTEGER, wait_process_id INTEGER,"
    " signal_end_ns INTEGER, wait_end_ns INTEGER, release_latency_ns INTEGER,"
    " signal_adapter_id INTEGER, wait_adapter_id INTEGER);\n"
    "CREATE TABLE packets (id INTEGER PRIMARY KEY, adapter_id INTEGER, engine_id INTEGER,"
    " hwqueue_handle INTEGER, packet_id INTEGER, resubmission_of INTEGER,"
    " progress_value INTEGER, is_user_mode INTEGER, is_paging INTEGER, queued_ns INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, start_gpu_ts INTEGER, end_gpu_ts INTEGER,"
    " status TEXT, duration_ns INTEGER, queue_delay_ns INTEGER, fence_id INTEGER,"
    " is_context_switch INTEGER, context_handle INTEGER);\n"
    "CREATE TABLE markers (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, begin_ns INTEGER,"
    " end_ns INTEGER, duration_ns INTEGER, adapter_id INTEGER, engine_id INTEGER,"
    " process_id INTEGER, hwqueue_handle INTEGER, context_handle INTEGER,"
    " doorbell_handle INTEGER, other_handle INTEGER, value INTEGER, code INTEGER,"
    " latency_ns INTEGER, value2 INTEGER, code2 INTEGER);\n"
    "CREATE TABLE losses (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, count INTEGER,"
    " begin_ns INTEGER, end_ns INTEGER, adapter_id INTEGER, hwqueue_handle INTEGER,"
    " log_type TEXT, cached_position INTEGER, new_position INTEGER, inferred_ops INTEGER,"
    " stream_id INTEGER, cpu_id INTEGER);\n"
    "CREATE TABLE anomalies (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, ts_ns INTEGER,"
    " process_id INTEGER, hwqueue_handle INTEGER, fence_handle INTEGER,"
    " fence_global_handle INTEGER, fence_value INTEGER, op_id INTEGER, a INTEGER,"
    " b INTEGER);\n";

/* The rest of the schema: a string of its own, under C99's 4095 characters. */
static const char schema_more_sql[] =
    "CREATE TABLE clock_fits (adapter_id INTEGER PRIMARY KEY, pair_count INTEGER,"
    " nominal_hz INTEGER, offset_ns REAL, ns_per_tick REAL, residual_rms_ns REAL,"
    " residual_max_ns REAL, drift_ppm REAL, extrapolated INTEGER, extrapolated_max_ns INTEGER);\n"
    "CREATE TABLE contexts (context_handle INTEGER PRIMARY KEY, process_id INTEGER,"
    " device_handle INTEGER, adapter_id INTEGER, engine_id INTEGER, priority INTEGER,"
    " time_slice_ns INTEGER, schedule_count INTEGER, created_ns INTEGER, destroyed_ns INTEGER,"
    " error_ns INTEGER, error_reason TEXT);\n"
    "CREATE TABLE engines (adapter_id INTEGER, engine_id INTEGER, engine_type TEXT,"
    " ums_supported INTEGER, preempt_granularity TEXT, compute_preempt_granularity TEXT,"
    " is_preemption_aware INTEGER, PRIMARY KEY (adapter_id, engine_id));\n"
    /* Format 1.5: GpuMmu and cross-adapter fences. */
    "CREATE TABLE va_spaces (process_id INTEGER, adapter_id INTEGER, created_ns INTEGER,"
    " destroyed_ns INTEGER, va_size_bytes INTEGER, page_table_levels INTEGER,"
    " root_entry_count INTEGER, root_entry_count_max INTEGER, reserve_count INTEGER,"
    " free_count INTEGER, reserved_bytes_peak INTEGER, map_count INTEGER, unmap_count INTEGER,"
    " os_picked_count INTEGER, mapped_bytes_peak INTEGER, mapped_bytes_end INTEGER,"
    " mapped_4k_bytes_peak INTEGER, mapped_64k_bytes_peak INTEGER,"
    " mapped_system_bytes_peak INTEGER, mapped_local_bytes_peak INTEGER,"
    " page_tables_created INTEGER, page_tables_destroyed INTEGER, page_tables_peak INTEGER,"
    " root_resizes INTEGER, page_table_updates INTEGER, entries_written INTEGER,"
    " entries_invalidated INTEGER, page_tables_made_resident INTEGER,"
    " page_tables_evicted INTEGER, page_faults INTEGER,"
    " PRIMARY KEY (process_id, adapter_id));\n"
    "CREATE TABLE cross_opens (fence_global_handle INTEGER, ts_ns INTEGER, process_id INTEGER,"
    " fence_handle INTEGER, adapter_id INTEGER, creator_adapter_id INTEGER, created_as TEXT,"
    " opened_as TEXT);\n";

/* Frames per display (fsa/frames.h, docs/analyzer.md "Frames"). */
static const char schema_frames_sql[] =
    "CREATE TABLE frames (adapter_id INTEGER, source_id INTEGER, frame_index INTEGER,"
    " flip_id INTEGER, vsync_count INTEGER, begin_ns INTEGER, end_ns INTEGER,"
    " frame_time_ns INTEGER, missed_vsyncs INTEGER, queued_ns INTEGER, done_ns INTEGER,"
    " present_latency_ns INTEGER, process_id INTEGER, context_handle INTEGER,"
    " vsync_period_ns INTEGER, is_pending INTEGER,"
    " PRIMARY KEY (adapter_id, source_id, frame_index));\n";

/*
 * Engine utilization (docs/export.md "Views"): the union of each engine's packet executions as
 * busy intervals (packets that overlap or touch are one interval), the gaps between them, the
 * busy time over the whole trace and per window of utilization_window.window_ns (1 ms unless
 * changed with UPDATE). Its own string: C99 allows 4095 characters.
 */
static const char engine_views_sql[] =
    "CREATE TABLE utilization_window (window_ns INTEGER NOT NULL);\n"
    "INSERT INTO utilization_window VALUES (1000000);\n"
    "CREATE VIEW engine_busy_intervals AS\n"
    " WITH p AS (SELECT adapter_id, engine_id, start_ns, end_ns,\n"
    "  MAX(end_ns) OVER (PARTITION BY adapter_id, engine_id ORDER BY start_ns, end_ns\n"
    "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end_ns\n"
    "  FROM packets WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL AND end_ns >= start_ns),\n"
    " s AS (SELECT *, SUM(CASE WHEN prev_end_ns IS NULL OR start_ns > prev_end_ns THEN 1\n"
    "  ELSE 0 END) OVER (PARTITION BY adapter_id, engine_id ORDER BY start_ns, end_ns\n"
    "  ROWS UNBOUNDED PRECEDING) AS island FROM p)\n"
    " SELECT adapter_id, engine_id, MIN(start_ns) AS begin_ns, MAX(end_ns) AS end_ns,\n"
    "  MAX(end_ns) - MIN(start_ns) AS duration_ns, COUNT(*) AS packet_count\n"
    " FROM s GROUP BY adapter_id, engine_id, island;\n"
    "CREATE VIEW engine_idle_gaps AS\n"
    " SELECT adapter_id, engine_id, begin_ns, end_ns, end_ns - begin_ns AS duration_ns\n"
    " FROM (SELECT adapter_id, engine_id, end_ns AS begin_ns,\n"
    "  LEAD(begin_ns) OVER (PARTITION BY adapter_id, engine_id ORDER BY begin_ns) AS end_ns\n"
    "  FROM engine_busy_intervals) WHERE end_ns IS NOT NULL;\n"
    "CREATE VIEW engine_utilization AS\n"
    " SELECT adapter_id, engine_id, SUM(packet_count) AS packet_count,\n"
    "  COUNT(*) AS busy_interval_count, SUM(duration_ns) AS busy_ns,\n"
    "  (SELECT value FROM summary WHERE key = 'last_ns') -\n"
    "  (SELECT value FROM summary WHERE key = 'first_ns') AS trace_ns,\n"
    "  CAST(SUM(duration_ns) AS REAL) / NULLIF((SELECT value FROM summary WHERE key =\n"
    "  'last_ns') - (SELECT value FROM summary WHERE key = 'first_ns'), 0) AS busy_fraction\n"
    " FROM engine_busy_intervals GROUP BY adapter_id, engine_id;\n"
    "CREATE VIEW engine_utilization_windows AS\n"
    " WITH RECURSIVE w(window_ns) AS (SELECT MAX(window_ns, 1) FROM utilization_window\n"
    "  LIMIT 1),\n"
    " piece(adapter_id, engine_id, window_begin_ns, begin_ns, end_ns, last_ns) AS (\n"
    "  SELECT adapter_id, engine_id, begin_ns / window_ns * window_ns, begin_ns,\n"
    "   MIN(end_ns, (begin_ns / window_ns + 1) * window_ns), end_ns\n"
    "  FROM engine_busy_intervals, w\n"
    "  UNION ALL\n"
    "  SELECT adapter_id, engine_id, window_begin_ns + window_ns, end_ns,\n"
    "   MIN(last_ns, window_begin_ns + 2 * window_ns), last_ns\n"
    "  FROM piece, w WHERE end_ns < last_ns)\n"
    " SELECT adapter_id, engine_id, window_begin_ns, (SELECT window_ns FROM w) AS window_ns,\n"
    "  SUM(end_ns - begin_ns) AS busy_ns,\n"
    "  CAST(SUM(end_ns - begin_ns) AS REAL) / (SELECT window_ns FROM w) AS busy_fraction\n"
    " FROM piece GROUP BY adapter_id, engine_id, window_begin_ns;\n";

/* Frame times per display: nearest-rank percentiles as op_latency's, frames that missed a vsync. */
static const char frame_views_sql[] =
    "CREATE VIEW frame_times AS\n"
    " WITH ranked AS (SELECT adapter_id, source_id, frame_time_ns, missed_vsyncs,\n"
    "  ROW_NUMBER() OVER (PARTITION BY adapter_id, source_id ORDER BY frame_time_ns) AS rn,\n"
    "  COUNT(*) OVER (PARTITION BY adapter_id, source_id) AS n\n"
    "  FROM frames WHERE frame_time_ns IS NOT NULL)\n"
    " SELECT adapter_id, source_id, n AS count, MIN(frame_time_ns) AS min_ns,\n"
    "  MAX(CASE WHEN rn = (n * 50 + 99) / 100 THEN frame_time_ns END) AS p50_ns,\n"
    "  MAX(CASE WHEN rn = (n * 95 + 99) / 100 THEN frame_time_ns END) AS p95_ns,\n"
    "  MAX(CASE WHEN rn = (n * 99 + 99) / 100 THEN frame_time_ns END) AS p99_ns,\n"
    "  MAX(frame_time_ns) AS max_ns, SUM(missed_vsyncs > 0) AS frames_with_missed_vsyncs,\n"
    "  SUM(missed_vsyncs) AS missed_vsyncs\n"
    " FROM ranked GROUP BY adapter_id, source_id;\n";

/* Created after the rows are in: an index built once is faster than one kept up per insert. */
static const char finish_sql[] =
    "CREATE INDEX operations_by_queue ON operations (hwqueue_handle, kind, end_ns);\n"
    "CREATE INDEX operations_by_fence ON operations (fence_global_handle, fence_value);\n"
    "CREATE INDEX operations_by_process ON operations (process_id, kind);\n"
    "CREATE INDEX operations_by_duration ON operations (kind, duration_ns);\n"
    "CREATE INDEX edges_by_wait ON edges (wait_op_id);\n"
    "CREATE INDEX edges_by_signal ON edges (signal_op_id);\n"
    "CREATE INDEX packets_by_engine ON packets (adapter_id, engine_id, start_ns);\n"
    "CREATE INDEX packets_by_queue ON packets (hwqueue_handle, start_ns);\n"
    "CREATE INDEX markers_by_kind ON markers (kind, begin_ns);\n"
    /* Latency per queue and kind: nearest-rank percentiles (the value at rank ceil(p × n)). */
    "CREATE VIEW op_latency AS\n"
    " WITH ranked AS (SELECT hwqueue_handle, process_id, kind, duration_ns,\n"
    "  ROW_NUMBER() OVER (PARTITION BY hwqueue_handle, kind ORDER BY duration_ns) AS rn,\n"
    "  COUNT(*) OVER (PARTITION BY hwqueue_handle, kind) AS n\n"
    "  FROM operations WHERE state = 'observed' AND duration_ns IS NOT NULL)\n"
    " SELECT hwqueue_handle, MIN(process_id) AS process_id, kind, n AS count,\n"
    "  MIN(duration_ns) AS min_ns,\n"
    "  MAX(CASE WHEN rn = (n * 50 + 99) / 100 THEN duration_ns END) AS p50_ns,\n"
    "  MAX(CASE WHEN rn = (n * 95 + 99) / 100 THEN duration_ns END) AS p95_ns,\n"
    "  MAX(CASE WHEN rn = (n * 99 + 99) / 100 THEN duration_ns END) AS p99_ns,\n"
    "  MAX(duration_ns) AS max_ns, SUM(duration_ns) AS total_ns\n"
    " FROM ranked GROUP BY hwqueue_handle, kind;\n"
    "CREATE VIEW wait_latency AS SELECT * FROM op_latency WHERE kind = 'wait';\n"
    "CREATE VIEW signal_latency AS SELECT * FROM op_latency WHERE kind = 'signal';\n"
    /* Each wait with the signal that released it and that signal's queue. */
    "CREATE VIEW wait_dependencies AS\n"
    " SELECT w.id AS wait_op_id, w.hwqueue_handle AS wait_hwqueue_handle,\n"
    "  w.process_id AS wait_process_id, w.fence_global_handle, w.fence_value AS wait_value,\n"
    "  w.queued_ns AS wait_queued_ns, w.end_ns AS wait_end_ns,\n"
    "  w.duration_ns AS wait_duration_ns, e.signal_op_id,\n"
    "  e.signal_hwqueue_handle, e.signal_process_id, e.signal_value, e.signal_end_ns,\n"
    "  e.release_latency_ns, w.observed_ns AS wait_observed_ns,\n"
    "  w.queued_phase_ns AS wait_queued_phase_ns, w.stalled_phase_ns AS wait_stalled_phase_ns,\n"
    "  w.state AS wait_state, w.source AS wait_source\n"
    " FROM operations w LEFT JOIN edges e ON e.wait_op_id = w.id WHERE w.kind = 'wait';\n"
    "CREATE VIEW doorbell_reconnects AS\n"
    " SELECT hwqueue_handle, COUNT(*) AS count, MIN(latency_ns) AS min_ns,\n"
    "  AVG(latency_ns) AS avg_ns, MAX(latency_ns) AS max_ns\n"
    " FROM markers WHERE kind = 'doorbell_connect' AND latency_ns IS NOT NULL\n"
    " GROUP BY hwqueue_handle;\n"
    "CREATE VIEW lost_data AS\n"
    " SELECT kind, hwqueue_handle, log_type, COUNT(*) AS records, SUM(count) AS lost,\n"
    "  SUM(inferred_ops) AS inferred_ops, MIN(begin_ns) AS first_ns, MAX(end_ns) AS last_ns\n"
    " FROM losses GROUP BY kind, hwqueue_handle, log_type;\n";

static const char *const stmt_sql[STMT_COUNT] = {
    [STMT_OP] = "INSERT INTO operations VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
		" ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
    [STMT_EDGE] = "INSERT INTO edges VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		  " ?13, ?14, ?15, ?16)",
    [STMT_PACKET] = "INSERT INTO packets VALUES (NULL, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
		    " ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
    [STMT_MARKER] = "INSERT INTO markers VALUES (NULL, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
		    " ?12, ?13, ?14, ?15, ?16, ?17)",
    [STMT_LOSS] = "INSERT INTO losses VALUES (NULL, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
		  " ?12, ?13)",
    [STMT_ANOMALY] = "INSERT INTO anomalies VALUES (NULL, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		     " ?11)",
    [STMT_PROCESS] = "INSERT OR REPLACE INTO processes VALUES (?1, ?2, ?3, ?4, ?5)",
    [STMT_QUEUE] = "INSERT OR REPLACE INTO queues VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		   " ?10, ?11, ?12, ?13, ?14)",
    [STMT_FENCE] = "INSERT OR REPLACE INTO fences VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		   " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
    [STMT_CLOCK_FIT] =
	"INSERT OR REPLACE INTO clock_fits VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [STMT_META] = "INSERT OR REPLACE INTO meta VALUES (?1, ?2)",
    [STMT_SUMMARY] = "INSERT OR REPLACE INTO summary VALUES (?1, ?2)",
    [STMT_CONTEXT] = "INSERT OR REPLACE INTO contexts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		     " ?9, ?10, ?11, ?12)",
    [STMT_ENGINE] = "INSERT OR REPLACE INTO engines VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [STMT_VA_SPACE] = "INSERT OR REPLACE INTO va_spaces VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		      " ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,"
		      " ?24, ?25, ?26, ?27, ?28, ?29, ?30)",
    [STMT_CROSS_OPEN] = "INSERT INTO cross_opens VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [STMT_FRAME] = "INSERT OR REPLACE INTO frames VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		   " ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
};

struct fsa_sqlite_writer {
	struct fsa_model_sink sink;
	struct fsa_output_file file;
	sqlite3 *db;
	sqlite3_stmt *stmts[STMT_COUNT];
	bool is_in_transaction;
	char *error;
	/* Frames from the vsync and flip markers as they pass (fsa/frames.h). */
	struct fsa_frame_builder *frames;
};

static const char *
engine_type_name(uint8_t type)
{
#define ENGINE_TYPE_NAME_(prefix, name, value) [value] = #name,
	static const char *const names[] = {FSTP_ENGINE_TYPE(ENGINE_TYPE_NAME_, ENGINE_TYPE)};
#undef ENGINE_TYPE_NAME_

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

static const char *
log_type_name(uint8_t type)
{
	return type == FSTP_LOG_TYPE_WAITS     ? "WAITS"
	       : type == FSTP_LOG_TYPE_SIGNALS ? "SIGNALS"
					       : NULL;
}

static const char *
cpu_wait_result_name(uint8_t result)
{
#define CPU_WAIT_RESULT_NAME_(prefix, name, value) [value] = #name,
	static const char *const names[] = {
	    FSTP_CPU_WAIT_RESULT(CPU_WAIT_RESULT_NAME_, CPU_WAIT_RESULT)};
#undef CPU_WAIT_RESULT_NAME_

	return result < sizeof(names) / sizeof(names[0]) ? names[result] : NULL;
}

static void
set_error(struct fsa_sqlite_writer *w, const char *what)
{
	free(w->error);
	w->error = strdup_printf("%s: %s: %s", w->file.path ? w->file.path : "sqlite", what,
				 w->db ? sqlite3_errmsg(w->db) : "cannot open");
}

/* Binding helpers: unknown values become NULL. SQLite integers are signed 64-bit; a u64 above
 * INT64_MAX is stored as its two's complement (docs/export.md). */
static inline void
bind_u64(sqlite3_stmt *s, int i, uint64_t v)
{
	sqlite3_bind_int64(s, i, (sqlite3_int64) v);
}

static inline void
bind_time(sqlite3_stmt *s, int i, uint64_t ns)
{
	if (ns == FSA_TIME_NONE)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, (sqlite3_int64) ns);
}

static inline void
bind_id32(sqlite3_stmt *s, int i, uint32_t id)
{
	if (id == UINT32_MAX)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, id);
}

/* A handle or id for which 0 means "none". */
static inline void
bind_nonzero(sqlite3_stmt *s, int i, uint64_t v)
{
	if (v == 0)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, (sqlite3_int64) v);
}

static inline void
bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (text)
		sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static inline void
bind_span(sqlite3_stmt *s, int i, uint64_t begin, uint64_t end)
{
	if (begin == FSA_TIME_NONE || end == FSA_TIME_NONE || end < begin)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, (sqlite3_int64) (end - begin));
}

static fsa_status
step(struct fsa_sqlite_writer *w, enum stmt_id id, const char *what)
{
	sqlite3_stmt *s = w->stmts[id];
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		set_error(w, what);
		return FSA_ERR_IO;
	}
	return FSA_OK;
}

static fsa_status
on_op(void *data, const struct fsa_op *op)
{
	struct fsa_sqlite_writer *w = data;
	sqlite3_stmt *s = w->stmts[STMT_OP];
	bool is_cpu = op->source == FSA_SRC_CPU;

	bind_u64(s, 1, op->id);
	bind_text(s, 2, fsa_op_kind_name(op->kind));
	bind_text(s, 3, fsa_op_source_name(op->source));
	bind_text(s, 4, fsa_op_state_name(op->state));
	if (is_cpu)
		sqlite3_bind_null(s, 5);
	else
		bind_u64(s, 5, op->hwqueue_handle);
	bind_u64(s, 6, op->process_id);
	bind_id32(s, 7, op->adapter_id);
	bind_id32(s, 8, op->engine_id);
	bind_u64(s, 9, op->fence_handle);
	bind_nonzero(s, 10, op->fence_global_handle);
	bind_u64(s, 11, op->fence_value);
	if (is_cpu)
		sqlite3_bind_null(s, 12);
	else
		bind_u64(s, 12, op->progress_value);
	bind_time(s, 13, op->queued_ns);
	bind_time(s, 14, op->observed_ns);
	bind_time(s, 15, op->end_ns);
	bind_time(s, 16, op->state == FSA_OP_INFERRED ? op->inferred_begin_ns : FSA_TIME_NONE);
	bind_time(s, 17, op->state == FSA_OP_INFERRED ? op->inferred_end_ns : FSA_TIME_NONE);
	bind_nonzero(s, 18, op->observed_gpu_ts);
	bind_nonzero(s, 19, op->end_gpu_ts);
	bind_time(s, 20, op->log_position);
	if (is_cpu && op->kind == FSA_OP_WAIT && op->state == FSA_OP_OBSERVED) {
		bind_text(s, 21, cpu_wait_result_name(op->cpu_wait_result));
		bind_u64(s, 22, op->observed_value);
	} else {
		sqlite3_bind_null(s, 21);
		sqlite3_bind_null(s, 22);
	}
	bind_nonzero(s, 23, op->signal_op_id);
	bind_span(s, 24, op->queued_ns, op->end_ns);
	/* The two phases of a wait (docs/trace-format.md "How a fence box is rebuilt"). */
	bind_span(s, 25, op->queued_ns, op->observed_ns);
	bind_span(s, 26, op->observed_ns, op->end_ns);
	return step(w, STMT_OP, "cannot insert an operation");
}

static fsa_status
on_edge(void *data, const struct fsa_edge *e)
{
	struct fsa_sqlite_writer *w = data;
	sqlite3_stmt *s = w->stmts[STMT_EDGE];

	bind_u64(s, 1, e->signal_op_id);
	bind_u64(s, 2, e->wait_op_id);
	bind_u64(s, 3, e->fence_global_handle);
	bind_u64(s, 4, e->signal_value);
	bind_u64(s, 5, e->wait_value);
	bind_text(s, 6, fsa_op_source_name(e->signal_source));
	bind_text(s, 7, fsa_op_source_name(e->wait_source));
	bind_nonzero(s, 8, e->signal_hwqueue_handle);
	bind_nonzero(s, 9, e->wait_hwqueue_handle);
	bind_u64(s, 10, e->signal_process_id);
	bind_u64(s, 11, e->wait_process_id);
	bind_time(s, 12, e->signal_end_ns);
	bind_time(s, 13, e->wait_end_ns);
	bind_span(s, 14, e->signal_end_ns, e->wait_end_ns);
	/* A signal on one adapter releasing a wait on another (cross-adapter fences, 1.5). */
	bind_id32(s, 15, e->signal_adapter_id);
	bind_id32(s, 16, e->wait_adapter_id);
	return step(w, STMT_EDGE, "cannot insert an edge");
}

static fsa_status
on_packet(void *data, const struct fsa_packet *p)
{
	struct fsa_sqlite_writer *w = data;
	sqlite3_stmt *s = w->stmts[STMT_PACKET];

	bind_id32(s, 2, p->adapter_id);
	bind_id32(s, 3, p->engine_id);
	bind_nonzero(s, 4, p->hwqueue_handle);
	bind_u64(s, 5, p->packet_id);
	bind_nonzero(s, 6, p->resubmission_of);
	bind_u64(s, 7, p->progress_value);
	sqlite3_bind_int(s, 8, p->is_user_mode);
	sqlite3_bind_int(s, 9, p->is_paging);
	bind_time(s, 10, p->queued_ns);
	bind_time(s, 11, p->start_ns);
	bind_time(s, 12, p->end_ns);
	bind_nonzero(s, 13, p->start_gpu_ts);
	bind_nonzero(s, 14, p->end_gpu_ts);
	bind_text(s, 15, fsa_packet_status_name(p->status));
	bind_span(s, 16, p->start_ns, p->end_ns);
	bind_span(s, 17, p->queued_ns, p->start_ns);
	bind_nonzero(s, 18, p->fence_id);
	sqlite3_bind_int(s, 19, p->is_context_switch);
	bind_nonzero(s, 20, p->context_handle);
	return step(w, STMT_PACKET, "cannot insert a packet");
}

static fsa_status
on_marker(void *data, const struct fsa_marker *m)
{
	struct fsa_sqlite_writer *w = data;
	sqlite3_stmt *s = w->stmts[STMT_MARKER];

	bind_text(s, 2, fsa_marker_kind_name(m->kind));
	bind_time(s, 3, m->begin_ns);
	bind_time(s, 4, m->end_ns);
	bind_span(s, 5, m->begin_ns, m->end_ns);
	bind_id32(s, 6, m->adapter_id);
	bind_id32(s, 7, m->engine_id);
	bind_id32(s, 8, m->process_id);
	bind_nonzero(s, 9, m->hwqueue_handle);
	bind_nonzero(s, 10, m->context_handle);
	bind_nonzero(s, 11, m->doorbell_handle);
	bind_nonzero(s, 12, m->other_handle);
	bind_u64(s, 13, m->value);
	sqlite3_bind_int64(s, 14, m->code);
	bind_time(s, 15, m->latency_ns);
	bind_u64(s, 16, m->value2);
	sqlite3_bind_int64(s, 17, m->code2);
	if (step(w, STMT_MARKER, "cannot insert a marker") != FSA_OK)
		return FSA_ERR_IO;
	return fsa_frame_builder_add_marker(w->frames, m);
}

/* A frame of the frame builder: one row of `frames`. */
static fsa_status
on_frame(void *data, const struct fsa_frame *f)
{
	struct fsa_sqlite_writer *w = data;
	sqlite3_stmt *s = w->stmts[STMT_FRAME];

	bind_id32(s, 1, f->adapter_id);
	bind_u64(s, 2, f->source_id);
	bind_u64(s, 3, f->index);
	bind_u64(s, 4, f->flip_id);
	bind_nonzero(s, 5, f->vsync_count);
	bind_time(s, 6, f->begin_ns);
	bind_time(s, 7, f->end_ns);
	bind_time(s, 8, f->frame_time_ns);
	bind_u64(s, 9, f->missed_vsyncs);
	bind_time(s, 10, f->queued_ns);
	bind_time(s, 11, f->done_ns);
	bind_time(s, 12, f->present_latency_ns);
	bind_id32(s, 13, f->process_id);
	bind_nonzero(s, 14, f->context_handle);
	bind_time(s, 15, f->vsync_period_ns);
	sqlite3_bind_int(s, 16, f->is_pending);
	return step(w, STMT_FRAME, "cannot insert a frame");
}

static fsa_status
on_loss(void *data, const struct fsa_loss *l)
{
	struct fsa_sqlite_writer *w = data;
	sqlite3_stmt *s = w->stmts[STMT_LOSS];
	bool is_overrun = fsa_loss_is_per_log(l->kind);

	bind_text(s, 2, fsa_loss_kind_name(l->kind));
	bind_u64(s, 3, l->count);
	bind_time(s, 4, l->begin_ns);
	bind_time(s, 5, l->end_ns);
	bind_id32(s, 6, l->adapter_id);
	if (is_overrun) {
		bind_u64(s, 7, l->hwqueue_handle);
		bind_text(s, 8, log_type_name(l->log_type));
		bind_u64(s, 9, l->cached_position);
		bind_u64(s, 10, l->new_position);
		bind_u64(s, 11, l->inferred_ops);
		sqlite3_bind_null(s, 12);
		sqlite3_bind_null(s, 13);
	} else {
		for (int i = 7; i <= 11; i++)
			sqlite3_bind_null(s, i);
		bind_u64(s, 12, l->stream_id);
		bind_id32(s, 13, l->cpu_id);
	}
	return step(w, STMT_LOSS, "cannot insert a loss");
}

static fsa_status
on_anomaly(void *data, const struct fsa_anomaly *a)
{
	struct fsa_sqlite_writer *w = data;
	sqlite3_stmt *s = w->stmts[STMT_ANOMALY];

	bind_text(s, 2, fsa_anomaly_kind_name(a->kind));
	bind_time(s, 3, a->ts_ns);
	bind_id32(s, 4, a->process_id);
	bind_nonzero(s, 5, a->hwqueue_handle);
	bind_nonzero(s, 6, a->fence_handle);
	bind_nonzero(s, 7, a->fence_global_handle);
	bind_u64(s, 8, a->fence_value);
	bind_nonzero(s, 9, a->op_id);
	bind_u64(s, 10, a->a);
	bind_u64(s, 11, a->b);
	return step(w, STMT_ANOMALY, "cannot insert an anomaly");
}

static fsa_status
put_meta(struct fsa_sqlite_writer *w, const char *key, const char *value)
{
	sqlite3_stmt *s = w->stmts[STMT_META];

	bind_text(s, 1, key);
	bind_text(s, 2, value);
	return step(w, STMT_META, "cannot write meta");
}

static fsa_status
put_summary(struct fsa_sqlite_writer *w, const char *key, uint64_t value, bool is_known)
{
	sqlite3_stmt *s = w->stmts[STMT_SUMMARY];

	bind_text(s, 1, key);
	if (is_known)
		bind_u64(s, 2, value);
	else
		sqlite3_bind_null(s, 2);
	return step(w, STMT_SUMMARY, "cannot write the summary");
}

static fsa_status
exec(struct fsa_sqlite_writer *w, const char *sql, const char *what)
{
	if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		set_error(w, what);
		return FSA_ERR_IO;
	}
	return FSA_OK;
}

fsa_status
fsa_sqlite_writer_create(const char *path, bool is_overwrite, const struct fsa_export_info *info,
			 struct fsa_sqlite_writer **writer, char **error_message)
{
	struct fsa_sqlite_writer *w = NULL;
	fsa_status status;
	char version[16];

	*writer = NULL;
	set_error_message(error_message, NULL);
	w = calloc(1, sizeof(*w));
	if (!w) {
		set_error_message(error_message, "out of memory");
		status = FSA_ERR_NOMEM;
		goto end;
	}
	status = fsa_output_file_begin(&w->file, path, is_overwrite ? FSA_OUTPUT_REPLACE : 0,
				       error_message);
	if (status != FSA_OK)
		goto end;
	status = FSA_ERR_IO;
	/* One connection, used by one thread at a time: no mutex on every call (about 4 % of an
	 * export's CPU time went to locking them). */
	if (sqlite3_open_v2(w->file.tmp_path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		set_error(w, "cannot open");
		goto end;
	}
	/* The file is private until renamed, and deleted if anything fails: no journal is needed,
	 * and none makes 10 M rows several times faster to insert. */
	if (exec(w,
		 "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
		 "PRAGMA cache_size = -16384; PRAGMA page_size = 8192;",
		 "cannot configure") != FSA_OK)
		goto end;
	if (exec(w, schema_sql, "cannot create the tables") != FSA_OK ||
	    exec(w, schema_more_sql, "cannot create the tables") != FSA_OK ||
	    exec(w, schema_frames_sql, "cannot create the tables") != FSA_OK)
		goto end;
	w->frames = fsa_frame_builder_create(on_frame, w);
	if (!w->frames) {
		set_error_message(error_message, "out of memory");
		status = FSA_ERR_NOMEM;
		goto end;
	}
	for (int i = 0; i < STMT_COUNT; i++) {
		if (sqlite3_prepare_v3(w->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &w->stmts[i], NULL) != SQLITE_OK) {
			set_error(w, "cannot prepare a statement");
			goto end;
		}
	}
	if (exec(w, "BEGIN", "cannot begin a transaction") != FSA_OK)
		goto end;
	w->is_in_transaction = true;
	snprintf(version, sizeof(version), "%d", FSA_SQLITE_SCHEMA_VERSION);
	if (put_meta(w, "schema_version", version) != FSA_OK ||
	    put_meta(w, "trace_path", info ? info->trace_path : NULL) != FSA_OK ||
	    put_meta(w, "fencescope_version", info ? info->fencescope_version : NULL) != FSA_OK ||
	    put_meta(w, "sqlite_version", sqlite3_libversion()) != FSA_OK)
		goto end;
	w->sink = (struct fsa_model_sink){
	    .data = w,
	    .op = on_op,
	    .edge = on_edge,
	    .packet = on_packet,
	    .marker = on_marker,
	    .loss = on_loss,
	    .anomaly = on_anomaly,
	};
	status = FSA_OK;
end:
	if (status != FSA_OK && w) {
		if (error_message && !*error_message && w->error)
			*error_message = strdup(w->error);
		fsa_sqlite_writer_destroy(w);
		w = NULL;
	}
	*writer = w;
	return status;
}

void
fsa_sqlite_writer_destroy(struct fsa_sqlite_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < STMT_COUNT; i++)
		sqlite3_finalize(w->stmts[i]);
	sqlite3_close(w->db);
	fsa_output_file_end(&w->file);
	fsa_frame_builder_destroy(w->frames);
	free(w->error);
	free(w);
}

const struct fsa_model_sink *
fsa_sqlite_writer_borrow_sink(struct fsa_sqlite_writer *w)
{
	return &w->sink;
}

const char *
fsa_sqlite_writer_borrow_error(const struct fsa_sqlite_writer *w)
{
	return w->error;
}

fsa_status
fsa_sqlite_writer_add_process(struct fsa_sqlite_writer *w, const struct fsa_process_info *p)
{
	sqlite3_stmt *s = w->stmts[STMT_PROCESS];

	bind_u64(s, 1, p->process_id);
	bind_text(s, 2, p->name && *p->name ? p->name : NULL);
	bind_time(s, 3, p->created_ns);
	bind_time(s, 4, p->terminated_ns);
	sqlite3_bind_int(s, 5, p->is_abnormal_termination);
	return step(w, STMT_PROCESS, "cannot insert a process");
}

fsa_status
fsa_sqlite_writer_add_queue(struct fsa_sqlite_writer *w, const struct fsa_queue_info *q)
{
	sqlite3_stmt *s = w->stmts[STMT_QUEUE];

	bind_u64(s, 1, q->hwqueue_handle);
	bind_u64(s, 2, q->process_id);
	bind_nonzero(s, 3, q->context_handle);
	bind_id32(s, 4, q->adapter_id);
	bind_id32(s, 5, q->engine_id);
	bind_text(s, 6, engine_type_name(q->engine_type));
	sqlite3_bind_int(s, 7, q->is_user_mode);
	bind_u64(s, 8, q->ring_size_bytes);
	bind_nonzero(s, 9, q->progress_fence_handle);
	bind_time(s, 10, q->created_ns);
	bind_time(s, 11, q->destroyed_ns);
	bind_u64(s, 12, q->wait_count);
	bind_u64(s, 13, q->signal_count);
	bind_u64(s, 14, q->packet_count);
	return step(w, STMT_QUEUE, "cannot insert a queue");
}

fsa_status
fsa_sqlite_writer_add_fence(struct fsa_sqlite_writer *w, const struct fsa_fence_info *f)
{
	sqlite3_stmt *s = w->stmts[STMT_FENCE];

	bind_u64(s, 1, f->fence_global_handle);
	bind_id32(s, 2, f->adapter_id);
	bind_u64(s, 3, f->creator_process_id);
	bind_u64(s, 4, f->creator_fence_handle);
	sqlite3_bind_int(s, 5, f->fence_type);
	sqlite3_bind_int(s, 6, f->is_shared);
	sqlite3_bind_int(s, 7, f->is_cross_adapter);
	sqlite3_bind_int(s, 8, f->is_progress_fence);
	bind_u64(s, 9, f->initial_value);
	bind_u64(s, 10, f->last_value);
	bind_u64(s, 11, f->final_value);
	bind_time(s, 12, f->created_ns);
	bind_time(s, 13, f->destroyed_ns);
	bind_u64(s, 14, f->wait_count);
	bind_u64(s, 15, f->signal_count);
	bind_text(s, 16, f->fence_object == FSTP_FENCE_OBJECT_MONITORED ? "monitored" : "native");
	bind_u64(s, 17, f->cross_open_count);
	bind_u64(s, 18, f->propagation_count);
	bind_u64(s, 19, f->notification_count);
	return step(w, STMT_FENCE, "cannot insert a fence");
}

fsa_status
fsa_sqlite_writer_add_clock_fit(struct fsa_sqlite_writer *w, const struct fsa_clock_fit *c)
{
	sqlite3_stmt *s = w->stmts[STMT_CLOCK_FIT];

	bind_u64(s, 1, c->adapter_id);
	bind_u64(s, 2, c->pair_count);
	bind_u64(s, 3, c->nominal_hz);
	sqlite3_bind_double(s, 4, c->offset_ns);
	sqlite3_bind_double(s, 5, c->ns_per_tick);
	sqlite3_bind_double(s, 6, c->residual_rms_ns);
	sqlite3_bind_double(s, 7, c->residual_max_ns);
	sqlite3_bind_double(s, 8, c->drift_ppm);
	bind_u64(s, 9, c->extrapolated_count);
	bind_u64(s, 10, c->extrapolated_max_ns);
	return step(w, STMT_CLOCK_FIT, "cannot insert a clock fit");
}

fsa_status
fsa_sqlite_writer_set_summary(struct fsa_sqlite_writer *w, const struct fsa_summary *sum)
{
	fsa_status status = FSA_OK;
	char text[64];

	snprintf(text, sizeof(text), "%u.%u", sum->format_major, sum->format_minor);
	if (put_meta(w, "format_version", sum->has_trace_info ? text : NULL) != FSA_OK ||
	    put_meta(w, "runtime_version", sum->runtime_version) != FSA_OK ||
	    put_meta(w, "clock_mode",
		     !sum->has_trace_info                          ? NULL
		     : sum->clock_mode == FSTP_CLOCK_MODE_SIM      ? "sim"
		     : sum->clock_mode == FSTP_CLOCK_MODE_REALTIME ? "realtime"
								   : "unknown") != FSA_OK ||
	    put_meta(w, "trace_clock",
		     sum->trace_clock ? fsa_trace_clock_name(sum->trace_clock) : NULL) != FSA_OK ||
	    put_meta(w, "gpu_time", fsa_gpu_time_name(sum->gpu_time)) != FSA_OK)
		return FSA_ERR_IO;

#define PUT(key, value) (status = status != FSA_OK ? status : put_summary(w, key, value, true))
	status = put_summary(w, "first_ns", sum->first_ns, sum->first_ns != FSA_TIME_NONE);
	if (status == FSA_OK)
		status = put_summary(w, "last_ns", sum->last_ns, sum->last_ns != FSA_TIME_NONE);
	PUT("event_count", sum->event_count);
	for (int i = 0; i < FSA_EV_COUNT; i++) {
		const char *name = fsa_event_type_name((enum fsa_event_type) i);
		const char *colon = name ? strchr(name, ':') : NULL;

		if (sum->event_counts[i] == 0)
			continue;
		snprintf(text, sizeof(text), "events.%s", colon ? colon + 1 : "other");
		PUT(text, sum->event_counts[i]);
	}
	for (int src = 0; src < 3; src++)
		for (int kind = 0; kind < 2; kind++) {
			snprintf(text, sizeof(text), "ops.%s.%s",
				 fsa_op_source_name((enum fsa_op_source) src),
				 fsa_op_kind_name((enum fsa_op_kind) kind));
			PUT(text, sum->op_counts[src][kind]);
		}
	PUT("inferred_ops", sum->inferred_ops);
	PUT("never_completed_ops", sum->never_completed_ops);
	PUT("unqueued_ops", sum->unqueued_ops);
	PUT("edge_count", sum->edge_count);
	PUT("packet_count", sum->packet_count);
	PUT("log_entries_read", sum->log_entries_read);
	PUT("log_entries_lost", sum->log_entries_lost);
	PUT("overrun_count", sum->overrun_count);
	PUT("tracer_discarded_events", sum->tracer_discarded_events);
	PUT("tracer_discarded_packets", sum->tracer_discarded_packets);
	PUT("log_entries_missing", sum->log_entries_missing);
	PUT("clamped_times", sum->clamped_times);
	for (int i = 0; i < FSA_ANOM_KIND_COUNT; i++) {
		snprintf(text, sizeof(text), "anomalies.%s",
			 fsa_anomaly_kind_name((enum fsa_anomaly_kind) i));
		PUT(text, sum->anomaly_counts[i]);
	}
#undef PUT
	return status;
}

fsa_status
fsa_sqlite_writer_set_partial(struct fsa_sqlite_writer *w, const char *reason)
{
	return put_meta(w, "partial", reason);
}

static fsa_status
add_context(struct fsa_sqlite_writer *w, const struct fsa_context_info *c)
{
	sqlite3_stmt *s = w->stmts[STMT_CONTEXT];

	bind_u64(s, 1, c->context_handle);
	bind_u64(s, 2, c->process_id);
	bind_nonzero(s, 3, c->device_handle);
	bind_id32(s, 4, c->adapter_id);
	bind_id32(s, 5, c->engine_id);
	if (c->has_schedule) {
		bind_u64(s, 6, c->priority);
		bind_u64(s, 7, c->time_slice_ns);
	} else {
		sqlite3_bind_null(s, 6);
		sqlite3_bind_null(s, 7);
	}
	bind_u64(s, 8, c->schedule_count);
	bind_time(s, 9, c->created_ns);
	bind_time(s, 10, c->destroyed_ns);
	bind_time(s, 11, c->error_ns);
	bind_text(s, 12, c->error_ns == FSA_TIME_NONE ? NULL : loss_reason_name(c->error_reason));
	return step(w, STMT_CONTEXT, "cannot insert a context");
}

static fsa_status
add_engine(struct fsa_sqlite_writer *w, const struct fsa_engine_info *e)
{
	sqlite3_stmt *s = w->stmts[STMT_ENGINE];

	bind_u64(s, 1, e->adapter_id);
	bind_u64(s, 2, e->engine_id);
	bind_text(s, 3, engine_type_name(e->engine_type));
	sqlite3_bind_int(s, 4, e->ums_supported);
	bind_text(s, 5, preempt_granularity_name(e->preempt_granularity));
	bind_text(s, 6, preempt_granularity_name(e->compute_preempt_granularity));
	sqlite3_bind_int(s, 7, e->is_preemption_aware);
	return step(w, STMT_ENGINE, "cannot insert an engine");
}

/* A GPU VA space and what happened in it (format 1.5, MMU-01..14). */
static fsa_status
add_va_space(struct fsa_sqlite_writer *w, const struct fsa_va_space_info *v)
{
	sqlite3_stmt *s = w->stmts[STMT_VA_SPACE];

	bind_u64(s, 1, v->process_id);
	bind_u64(s, 2, v->adapter_id);
	bind_time(s, 3, v->created_ns);
	bind_time(s, 4, v->destroyed_ns);
	bind_u64(s, 5, v->va_size_bytes);
	bind_u64(s, 6, v->page_table_levels);
	bind_u64(s, 7, v->root_entry_count);
	bind_u64(s, 8, v->root_entry_count_max);
	bind_u64(s, 9, v->reserve_count);
	bind_u64(s, 10, v->free_count);
	bind_u64(s, 11, v->reserved_bytes_peak);
	bind_u64(s, 12, v->map_count);
	bind_u64(s, 13, v->unmap_count);
	bind_u64(s, 14, v->map_os_picked_count + v->reserve_os_picked_count);
	bind_u64(s, 15, v->mapped_bytes_peak);
	bind_u64(s, 16, v->mapped_bytes);
	bind_u64(s, 17, v->mapped_bytes_peak_by_page_size[0]);
	bind_u64(s, 18, v->mapped_bytes_peak_by_page_size[1]);
	bind_u64(s, 19, v->mapped_bytes_peak_by_segment[FSTP_SEGMENT_SYSTEM]);
	bind_u64(s, 20, v->mapped_bytes_peak_by_segment[FSTP_SEGMENT_LOCAL]);
	bind_u64(s, 21, v->page_tables_created);
	bind_u64(s, 22, v->page_tables_destroyed);
	bind_u64(s, 23, v->page_tables_live_peak);
	bind_u64(s, 24, v->root_resizes);
	bind_u64(s, 25, v->page_table_updates);
	bind_u64(s, 26, v->entries_written);
	bind_u64(s, 27, v->entries_invalidated);
	bind_u64(s, 28, v->page_tables_made_resident);
	bind_u64(s, 29, v->page_tables_evicted);
	bind_u64(s, 30, v->page_faults);
	return step(w, STMT_VA_SPACE, "cannot insert a VA space");
}

/* A fence opened on another adapter than its creator's (format 1.5, XAD-10, XAD-11). */
static fsa_status
add_cross_open(struct fsa_sqlite_writer *w, uint64_t fence, const struct fsa_cross_open *o)
{
	sqlite3_stmt *s = w->stmts[STMT_CROSS_OPEN];

	bind_u64(s, 1, fence);
	bind_time(s, 2, o->ts_ns);
	bind_u64(s, 3, o->process_id);
	bind_u64(s, 4, o->fence_handle);
	bind_u64(s, 5, o->adapter_id);
	bind_u64(s, 6, o->creator_adapter_id);
	bind_text(s, 7, o->created_as == FSTP_FENCE_OBJECT_MONITORED ? "monitored" : "native");
	bind_text(s, 8, o->opened_as == FSTP_FENCE_OBJECT_MONITORED ? "monitored" : "native");
	return step(w, STMT_CROSS_OPEN, "cannot insert a cross-adapter open");
}

fsa_status
fsa_sqlite_writer_add_model(struct fsa_sqlite_writer *w, const struct fsa_model *model)
{
	fsa_status status = FSA_OK;
	size_t n;

	n = fsa_model_process_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = fsa_sqlite_writer_add_process(w, fsa_model_borrow_process(model, i));
	n = fsa_model_queue_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = fsa_sqlite_writer_add_queue(w, fsa_model_borrow_queue(model, i));
	n = fsa_model_fence_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++) {
		const struct fsa_fence_info *f = fsa_model_borrow_fence(model, i);

		status = fsa_sqlite_writer_add_fence(w, f);
		for (size_t k = 0; k < f->cross_open_count && status == FSA_OK; k++)
			status = add_cross_open(
			    w, f->fence_global_handle,
			    fsa_model_borrow_cross_open(model, f->fence_global_handle, k));
	}
	n = fsa_model_va_space_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = add_va_space(w, fsa_model_borrow_va_space(model, i));
	n = fsa_model_clock_fit_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = fsa_sqlite_writer_add_clock_fit(w, fsa_model_borrow_clock_fit(model, i));
	n = fsa_model_context_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = add_context(w, fsa_model_borrow_context(model, i));
	n = fsa_model_engine_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = add_engine(w, fsa_model_borrow_engine(model, i));
	if (status == FSA_OK)
		status = fsa_sqlite_writer_set_summary(w, fsa_model_borrow_summary(model));
	return status;
}

fsa_status
fsa_sqlite_writer_finish(struct fsa_sqlite_writer *w, char **error_message)
{
	fsa_status status = FSA_ERR_IO;

	set_error_message(error_message, NULL);
	if (!w->is_in_transaction) {
		set_error_message(error_message, "the export was already finished");
		return FSA_ERR_INVALID;
	}
	/* The frames the builder still holds (the last vsyncs', pending presents). */
	if (fsa_frame_builder_finish(w->frames) != FSA_OK) {
		if (!w->error)
			w->error = strdup("out of memory");
		goto end;
	}
	if (exec(w, finish_sql, "cannot create the indexes and views") != FSA_OK ||
	    exec(w, engine_views_sql, "cannot create the engine views") != FSA_OK ||
	    exec(w, frame_views_sql, "cannot create the frame views") != FSA_OK)
		goto end;
	if (exec(w, "COMMIT", "cannot commit") != FSA_OK)
		goto end;
	w->is_in_transaction = false;
	for (int i = 0; i < STMT_COUNT; i++) {
		sqlite3_finalize(w->stmts[i]);
		w->stmts[i] = NULL;
	}
	if (sqlite3_close(w->db) != SQLITE_OK) {
		set_error(w, "cannot close");
		goto end;
	}
	w->db = NULL;
	status = fsa_output_file_commit(&w->file, error_message);
	return status;
end:
	set_error_message(error_message, w->error);
	return status;
}
