/* SPDX-License-Identifier: MIT */
/*
 * The SQLite exporter on synthetic items: each sink callback and add_* call becomes the row
 * docs/export.md describes (values, units, NULL for unknown), the views compute what they say,
 * and the output file appears only when complete and never replaces a file unless asked to.
 */
#define _GNU_SOURCE
#include <stdarg.h>

#include <criterion/criterion.h>
#include <sqlite3.h>

#include "fencescope-tp-enums.h"
#include "fsa/export-writers.h"

#include "export-test-util.h"

static struct fsa_sqlite_writer *writer;
static sqlite3 *db;

static void
setup(void)
{
	fst_make_dir();
}

static void
teardown(void)
{
	if (db)
		sqlite3_close(db);
	fsa_sqlite_writer_destroy(writer);
	fst_remove_dir();
}

TestSuite(export_sqlite, .init = setup, .fini = teardown);

static const struct fsa_model_sink *
start(void)
{
	struct fsa_export_info info = {.trace_path = "traces/x", .fencescope_version = "9.9.9"};
	char *error = NULL;

	cr_assert_eq(fsa_sqlite_writer_create(fst_path("out.db"), false, &info, &writer, &error),
		     FSA_OK, "%s", error ? error : "");
	return fsa_sqlite_writer_borrow_sink(writer);
}

static void
finish_and_open(void)
{
	char *error = NULL;

	cr_assert_eq(fsa_sqlite_writer_finish(writer, &error), FSA_OK, "%s", error ? error : "");
	cr_assert_eq(sqlite3_open_v2(fst_path("out.db"), &db, SQLITE_OPEN_READONLY, NULL),
		     SQLITE_OK);
}

/* The single integer a query returns; INT64_MIN for NULL. */
static int64_t
query_int(const char *sql)
{
	sqlite3_stmt *s;
	int64_t v;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s: no row", sql);
	v = sqlite3_column_type(s, 0) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static char *
query_text(const char *sql)
{
	sqlite3_stmt *s;
	char *v;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s: no row", sql);
	v = sqlite3_column_text(s, 0) ? strdup((const char *) sqlite3_column_text(s, 0)) : NULL;
	sqlite3_finalize(s);
	return v;
}

static void
assert_text(const char *sql, const char *expected)
{
	char *v = query_text(sql);

	cr_assert(v && strcmp(v, expected) == 0, "%s: '%s', expected '%s'", sql, v ? v : "NULL",
		  expected);
	free(v);
}

Test(export_sqlite, observed_wait_has_its_duration_and_phases)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op op = fst_op(7, FSA_OP_WAIT, 1000, 5000);

	op.observed_ns = 3000;
	op.observed_gpu_ts = 111;
	op.end_gpu_ts = 222;
	op.log_position = 9;
	op.signal_op_id = 3;
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	finish_and_open();

	cr_assert_eq(query_int("SELECT COUNT(*) FROM operations"), 1);
	assert_text("SELECT kind FROM operations WHERE id = 7", "wait");
	assert_text("SELECT source FROM operations WHERE id = 7", "user_mode");
	assert_text("SELECT state FROM operations WHERE id = 7", "observed");
	cr_assert_eq(query_int("SELECT hwqueue_handle FROM operations"), 0x100);
	cr_assert_eq(query_int("SELECT fence_global_handle FROM operations"), 0x12);
	cr_assert_eq(query_int("SELECT fence_value FROM operations"), 5);
	cr_assert_eq(query_int("SELECT duration_ns FROM operations"), 4000);
	cr_assert_eq(query_int("SELECT queued_phase_ns FROM operations"), 2000);
	cr_assert_eq(query_int("SELECT stalled_phase_ns FROM operations"), 2000);
	cr_assert_eq(query_int("SELECT observed_gpu_ts FROM operations"), 111);
	cr_assert_eq(query_int("SELECT end_gpu_ts FROM operations"), 222);
	cr_assert_eq(query_int("SELECT log_position FROM operations"), 9);
	cr_assert_eq(query_int("SELECT signal_op_id FROM operations"), 3);
	cr_assert_eq(query_int("SELECT inferred_begin_ns FROM operations"), INT64_MIN);
	cr_assert_eq(query_int("SELECT cpu_wait_result FROM operations"), INT64_MIN);
}

Test(export_sqlite, unknown_values_are_null)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op never = fst_op(1, FSA_OP_WAIT, 1000, FSA_TIME_NONE);
	struct fsa_op cpu = fst_op(2, FSA_OP_WAIT, 2000, 2500);

	never.state = FSA_OP_NEVER_COMPLETED;
	never.adapter_id = UINT32_MAX;
	never.fence_global_handle = 0;
	cpu.source = FSA_SRC_CPU;
	cpu.hwqueue_handle = 0;
	cpu.cpu_wait_result = FSTP_CPU_WAIT_RESULT_TIMEOUT;
	cpu.observed_value = 4;
	cr_assert_eq(sink->op(sink->data, &never), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &cpu), FSA_OK);
	finish_and_open();

	assert_text("SELECT state FROM operations WHERE id = 1", "never_completed");
	cr_assert_eq(query_int("SELECT end_ns FROM operations WHERE id = 1"), INT64_MIN);
	cr_assert_eq(query_int("SELECT duration_ns FROM operations WHERE id = 1"), INT64_MIN);
	cr_assert_eq(query_int("SELECT adapter_id FROM operations WHERE id = 1"), INT64_MIN);
	cr_assert_eq(query_int("SELECT fence_global_handle FROM operations WHERE id = 1"),
		     INT64_MIN);
	cr_assert_eq(query_int("SELECT observed_gpu_ts FROM operations WHERE id = 1"), INT64_MIN);
	assert_text("SELECT source FROM operations WHERE id = 2", "cpu");
	cr_assert_eq(query_int("SELECT hwqueue_handle FROM operations WHERE id = 2"), INT64_MIN);
	assert_text("SELECT cpu_wait_result FROM operations WHERE id = 2", "TIMEOUT");
	cr_assert_eq(query_int("SELECT observed_value FROM operations WHERE id = 2"), 4);
	cr_assert_eq(query_int("SELECT duration_ns FROM operations WHERE id = 2"), 500);
}

Test(export_sqlite, overrun_and_its_inferred_operations)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op inferred = fst_op(4, FSA_OP_SIGNAL, 1000, FSA_TIME_NONE);
	struct fsa_loss overrun = {
	    .kind = FSA_LOSS_LOG_OVERRUN,
	    .count = 37,
	    .begin_ns = 900,
	    .end_ns = 4000,
	    .adapter_id = 0,
	    .hwqueue_handle = 0x100,
	    .log_type = FSTP_LOG_TYPE_SIGNALS,
	    .cached_position = 10,
	    .new_position = 79,
	    .inferred_ops = 1,
	};
	struct fsa_loss tracer = {
	    .kind = FSA_LOSS_TRACER_EVENTS,
	    .count = 12,
	    .begin_ns = FSA_TIME_NONE,
	    .end_ns = FSA_TIME_NONE,
	    .adapter_id = UINT32_MAX,
	    .stream_id = 3,
	    .cpu_id = 1,
	};

	inferred.state = FSA_OP_INFERRED;
	inferred.inferred_begin_ns = 900;
	inferred.inferred_end_ns = 4000;
	cr_assert_eq(sink->op(sink->data, &inferred), FSA_OK);
	cr_assert_eq(sink->loss(sink->data, &overrun), FSA_OK);
	cr_assert_eq(sink->loss(sink->data, &tracer), FSA_OK);
	finish_and_open();

	assert_text("SELECT state FROM operations", "inferred");
	cr_assert_eq(query_int("SELECT inferred_begin_ns FROM operations"), 900);
	cr_assert_eq(query_int("SELECT inferred_end_ns FROM operations"), 4000);
	cr_assert_eq(query_int("SELECT count FROM losses WHERE kind = 'log_overrun'"), 37);
	assert_text("SELECT log_type FROM losses WHERE kind = 'log_overrun'", "SIGNALS");
	cr_assert_eq(query_int("SELECT inferred_ops FROM losses WHERE kind = 'log_overrun'"), 1);
	cr_assert_eq(query_int("SELECT new_position - cached_position FROM losses WHERE kind = "
			       "'log_overrun'"),
		     69);
	cr_assert_eq(query_int("SELECT count FROM losses WHERE kind = 'tracer_discarded_events'"),
		     12);
	cr_assert_eq(
	    query_int("SELECT begin_ns FROM losses WHERE kind = 'tracer_discarded_events'"),
	    INT64_MIN);
	cr_assert_eq(query_int("SELECT cpu_id FROM losses WHERE kind = 'tracer_discarded_events'"),
		     1);
	cr_assert_eq(query_int("SELECT lost FROM lost_data WHERE kind = 'log_overrun'"), 37);
}

Test(export_sqlite, edges_packets_markers_and_anomalies)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op signal = fst_op(1, FSA_OP_SIGNAL, 100, 200);
	struct fsa_op wait = fst_op(2, FSA_OP_WAIT, 50, 260);
	struct fsa_edge edge;
	struct fsa_packet packet = {
	    .adapter_id = 0,
	    .engine_id = 1,
	    .hwqueue_handle = 0x100,
	    .packet_id = 17,
	    .progress_value = 3,
	    .is_user_mode = true,
	    .queued_ns = 10,
	    .start_ns = 40,
	    .end_ns = 140,
	    .status = FSA_PACKET_PREEMPTED,
	};
	struct fsa_marker connect = {
	    .kind = FSA_MARK_DOORBELL_CONNECT,
	    .begin_ns = 300,
	    .end_ns = 300,
	    .adapter_id = 0,
	    .engine_id = UINT32_MAX,
	    .process_id = 42,
	    .hwqueue_handle = 0x100,
	    .doorbell_handle = 0x55,
	    .value = 2,
	    .code = -3,
	    .latency_ns = 77,
	};
	struct fsa_anomaly anomaly = {
	    .kind = FSA_ANOM_WAIT_NEVER_UNBLOCKED,
	    .ts_ns = 999,
	    .process_id = 42,
	    .hwqueue_handle = 0x100,
	    .fence_handle = 7,
	    .fence_global_handle = 0x12,
	    .fence_value = 9,
	    .op_id = 2,
	};

	wait.hwqueue_handle = 0x200;
	edge = fst_edge(&signal, &wait);
	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &wait), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);
	cr_assert_eq(sink->packet(sink->data, &packet), FSA_OK);
	cr_assert_eq(sink->marker(sink->data, &connect), FSA_OK);
	cr_assert_eq(sink->anomaly(sink->data, &anomaly), FSA_OK);
	finish_and_open();

	cr_assert_eq(query_int("SELECT release_latency_ns FROM edges"), 60);
	cr_assert_eq(query_int("SELECT signal_hwqueue_handle FROM wait_dependencies"), 0x100);
	cr_assert_eq(query_int("SELECT wait_duration_ns FROM wait_dependencies"), 210);
	cr_assert_eq(query_int("SELECT duration_ns FROM packets"), 100);
	cr_assert_eq(query_int("SELECT queue_delay_ns FROM packets"), 30);
	assert_text("SELECT status FROM packets", "preempted");
	assert_text("SELECT kind FROM markers", "doorbell_connect");
	cr_assert_eq(query_int("SELECT code FROM markers"), -3);
	cr_assert_eq(query_int("SELECT engine_id FROM markers"), INT64_MIN);
	cr_assert_eq(query_int("SELECT max_ns FROM doorbell_reconnects"), 77);
	assert_text("SELECT kind FROM anomalies", "wait_never_unblocked");
	cr_assert_eq(query_int("SELECT op_id FROM anomalies"), 2);
}

/* Issue 16 §5: each wait's queued and stalled phases beside the signal that released it. */
Test(export_sqlite, wait_dependencies_have_the_wait_phases)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op signal = fst_op(1, FSA_OP_SIGNAL, 100, 200);
	struct fsa_op wait = fst_op(2, FSA_OP_WAIT, 50, 260);
	struct fsa_op cpu_wait = fst_op(3, FSA_OP_WAIT, 70, 90);
	struct fsa_edge edge;

	wait.hwqueue_handle = 0x200;
	wait.observed_ns = 120;
	cpu_wait.source = FSA_SRC_CPU;
	cpu_wait.hwqueue_handle = 0;
	edge = fst_edge(&signal, &wait);
	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &wait), FSA_OK);
	cr_assert_eq(sink->op(sink->data, &cpu_wait), FSA_OK);
	cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);
	finish_and_open();

	cr_assert_eq(query_int("SELECT COUNT(*) FROM wait_dependencies"), 2);
	cr_assert_eq(
	    query_int("SELECT wait_observed_ns FROM wait_dependencies WHERE wait_op_id = 2"), 120);
	cr_assert_eq(
	    query_int("SELECT wait_queued_phase_ns FROM wait_dependencies WHERE wait_op_id = 2"),
	    70);
	cr_assert_eq(
	    query_int("SELECT wait_stalled_phase_ns FROM wait_dependencies WHERE wait_op_id = 2"),
	    140);
	assert_text("SELECT wait_state FROM wait_dependencies WHERE wait_op_id = 2", "observed");
	assert_text("SELECT wait_source FROM wait_dependencies WHERE wait_op_id = 3", "cpu");
	/* One phase only: no GPU time for the end of the queued phase. */
	cr_assert_eq(
	    query_int("SELECT wait_queued_phase_ns FROM wait_dependencies WHERE wait_op_id = 3"),
	    INT64_MIN);
	cr_assert_eq(query_int("SELECT signal_op_id FROM wait_dependencies WHERE wait_op_id = 3"),
		     INT64_MIN);
}

static struct fsa_packet
engine_packet(uint32_t engine_id, uint64_t packet_id, uint64_t start_ns, uint64_t end_ns)
{
	return (struct fsa_packet){
	    .adapter_id = 0,
	    .engine_id = engine_id,
	    .hwqueue_handle = 0x100,
	    .packet_id = packet_id,
	    .queued_ns = start_ns,
	    .start_ns = start_ns,
	    .end_ns = end_ns,
	    .status = FSA_PACKET_COMPLETED,
	};
}

/* Busy intervals are the union of an engine's packets; idle gaps lie between them; the trace-wide
 * fraction divides by last_ns - first_ns; windows split intervals at window_ns multiples. */
Test(export_sqlite, engine_utilization_and_idle_gap_views)
{
	const struct fsa_model_sink *sink = start();
	/* Engine 1: [1000, 1500] ∪ [1200, 1800] (overlapping) ∪ [1800, 2000] (touching), then
	 * [5000, 7500]. Engine 2: [0, 100]. A packet that never ended is no busy time. */
	struct fsa_packet packets[] = {
	    engine_packet(1, 1, 1000, 1500), engine_packet(1, 3, 1800, 2000),
	    engine_packet(1, 2, 1200, 1800), engine_packet(1, 4, 5000, 7500),
	    engine_packet(2, 5, 0, 100),     engine_packet(1, 6, 9000, FSA_TIME_NONE),
	};
	struct fsa_summary summary = {.first_ns = 0, .last_ns = 10000};

	packets[5].status = FSA_PACKET_NEVER_ENDED;
	for (size_t i = 0; i < sizeof(packets) / sizeof(packets[0]); i++)
		cr_assert_eq(sink->packet(sink->data, &packets[i]), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_set_summary(writer, &summary), FSA_OK);
	finish_and_open();

	cr_assert_eq(query_int("SELECT COUNT(*) FROM engine_busy_intervals WHERE engine_id = 1"),
		     2);
	cr_assert_eq(query_int("SELECT end_ns FROM engine_busy_intervals WHERE engine_id = 1 AND "
			       "begin_ns = 1000"),
		     2000);
	cr_assert_eq(query_int("SELECT packet_count FROM engine_busy_intervals WHERE engine_id = 1 "
			       "AND begin_ns = 1000"),
		     3);
	cr_assert_eq(query_int("SELECT COUNT(*) FROM engine_idle_gaps"), 1);
	cr_assert_eq(query_int("SELECT begin_ns FROM engine_idle_gaps"), 2000);
	cr_assert_eq(query_int("SELECT duration_ns FROM engine_idle_gaps"), 3000);
	cr_assert_eq(query_int("SELECT COUNT(*) FROM engine_idle_gaps WHERE duration_ns >= 5000"),
		     0);
	cr_assert_eq(query_int("SELECT busy_ns FROM engine_utilization WHERE engine_id = 1"), 3500);
	cr_assert_eq(query_int("SELECT packet_count FROM engine_utilization WHERE engine_id = 1"),
		     4);
	cr_assert_eq(query_int("SELECT trace_ns FROM engine_utilization WHERE engine_id = 1"),
		     10000);
	cr_assert_eq(query_int("SELECT CAST(busy_fraction * 1000 AS INTEGER) FROM "
			       "engine_utilization WHERE engine_id = 1"),
		     350);
	cr_assert_eq(query_int("SELECT busy_ns FROM engine_utilization WHERE engine_id = 2"), 100);
	/* 1 ms windows: everything falls in window 0. */
	cr_assert_eq(
	    query_int("SELECT COUNT(*) FROM engine_utilization_windows WHERE engine_id = 1"), 1);
	cr_assert_eq(
	    query_int("SELECT busy_ns FROM engine_utilization_windows WHERE engine_id = 1"), 3500);
	sqlite3_close(db);
	/* 1 µs windows: [1000, 2000] is window 1000 whole; [5000, 7500] is 5000, 6000 and half
	 * of 7000. */
	cr_assert_eq(sqlite3_open(fst_path("out.db"), &db), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_exec(db, "UPDATE utilization_window SET window_ns = 1000", NULL, NULL, NULL),
	    SQLITE_OK);
	cr_assert_eq(
	    query_int("SELECT COUNT(*) FROM engine_utilization_windows WHERE engine_id = 1"), 4);
	cr_assert_eq(query_int("SELECT busy_ns FROM engine_utilization_windows WHERE engine_id = 1 "
			       "AND window_begin_ns = 1000"),
		     1000);
	cr_assert_eq(query_int("SELECT busy_ns FROM engine_utilization_windows WHERE engine_id = 1 "
			       "AND window_begin_ns = 6000"),
		     1000);
	cr_assert_eq(query_int("SELECT busy_ns FROM engine_utilization_windows WHERE engine_id = 1 "
			       "AND window_begin_ns = 7000"),
		     500);
	cr_assert_eq(query_int("SELECT CAST(busy_fraction * 100 AS INTEGER) FROM "
			       "engine_utilization_windows WHERE engine_id = 1 AND "
			       "window_begin_ns = 7000"),
		     50);
	cr_assert_eq(query_int("SELECT SUM(busy_ns) FROM engine_utilization_windows WHERE "
			       "engine_id = 1"),
		     3500);
}

static struct fsa_marker
display_marker(enum fsa_marker_kind kind, uint64_t begin_ns, uint64_t end_ns, uint64_t value,
	       uint64_t value2)
{
	return (struct fsa_marker){.kind = kind,
				   .begin_ns = begin_ns,
				   .end_ns = end_ns,
				   .adapter_id = 0,
				   .engine_id = UINT32_MAX,
				   .process_id = kind == FSA_MARK_FLIP ? 42 : UINT32_MAX,
				   .other_handle = 0,
				   .value = value,
				   .value2 = value2};
}

/* Issue 16 §5: the frames of fsa/frames.h (docs/analyzer.md "Frames"), one row each, and the
 * frame_times view. Vsyncs every 1000 ns; flip 1 latched at vsync 2, flip 2 at vsync 4 (vsync 3
 * missed), flip 3 queued and never on screen. */
Test(export_sqlite, frames_table_and_frame_times_view)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_marker markers[] = {
	    display_marker(FSA_MARK_VSYNC, 1000, 1000, 1, 0),
	    display_marker(FSA_MARK_VSYNC, 2000, 2000, 2, 1),
	    display_marker(FSA_MARK_FLIP, 1200, 2010, 1, 2),
	    display_marker(FSA_MARK_VSYNC, 3000, 3000, 3, 0),
	    display_marker(FSA_MARK_VSYNC, 4000, 4000, 4, 2),
	    display_marker(FSA_MARK_FLIP, 2500, 4005, 2, 4),
	    display_marker(FSA_MARK_FLIP, 4500, FSA_TIME_NONE, 3, 0),
	};

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		cr_assert_eq(sink->marker(sink->data, &markers[i]), FSA_OK);
	finish_and_open();

	cr_assert_eq(query_int("SELECT COUNT(*) FROM frames"), 3);
	cr_assert_eq(query_int("SELECT COUNT(*) FROM frames WHERE is_pending = 0"), 2);
	cr_assert_eq(query_int("SELECT flip_id FROM frames WHERE frame_index = 1"), 1);
	cr_assert_eq(query_int("SELECT vsync_count FROM frames WHERE frame_index = 1"), 2);
	cr_assert_eq(query_int("SELECT end_ns FROM frames WHERE frame_index = 1"), 2000);
	cr_assert_eq(query_int("SELECT begin_ns FROM frames WHERE frame_index = 1"), INT64_MIN);
	cr_assert_eq(query_int("SELECT frame_time_ns FROM frames WHERE frame_index = 1"),
		     INT64_MIN);
	cr_assert_eq(query_int("SELECT present_latency_ns FROM frames WHERE frame_index = 1"), 810);
	cr_assert_eq(query_int("SELECT process_id FROM frames WHERE frame_index = 1"), 42);
	cr_assert_eq(query_int("SELECT begin_ns FROM frames WHERE flip_id = 2"), 2000);
	cr_assert_eq(query_int("SELECT frame_time_ns FROM frames WHERE flip_id = 2"), 2000);
	cr_assert_eq(query_int("SELECT missed_vsyncs FROM frames WHERE flip_id = 2"), 1);
	cr_assert_eq(query_int("SELECT is_pending FROM frames WHERE flip_id = 3"), 1);
	cr_assert_eq(query_int("SELECT vsync_count FROM frames WHERE flip_id = 3"), INT64_MIN);
	cr_assert_eq(query_int("SELECT begin_ns FROM frames WHERE flip_id = 3"), 4500);
	cr_assert_eq(query_int("SELECT count FROM frame_times"), 1);
	cr_assert_eq(query_int("SELECT p99_ns FROM frame_times"), 2000);
	cr_assert_eq(query_int("SELECT frames_with_missed_vsyncs FROM frame_times"), 1);
	/* The markers are rows as before. */
	cr_assert_eq(query_int("SELECT COUNT(*) FROM markers"), 7);
}

Test(export_sqlite, latency_view_gives_nearest_rank_percentiles)
{
	const struct fsa_model_sink *sink = start();

	/* 100 waits lasting 1..100 µs, given in a shuffled order, and one signal. */
	for (uint64_t i = 0; i < 100; i++) {
		uint64_t d = (i * 37) % 100 + 1;
		struct fsa_op op = fst_op(i + 1, FSA_OP_WAIT, 1000000, 1000000 + d * 1000);

		cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	}
	struct fsa_op signal = fst_op(200, FSA_OP_SIGNAL, 0, 5);

	cr_assert_eq(sink->op(sink->data, &signal), FSA_OK);
	finish_and_open();

	cr_assert_eq(query_int("SELECT count FROM wait_latency"), 100);
	cr_assert_eq(query_int("SELECT min_ns FROM wait_latency"), 1000);
	cr_assert_eq(query_int("SELECT p50_ns FROM wait_latency"), 50000);
	cr_assert_eq(query_int("SELECT p95_ns FROM wait_latency"), 95000);
	cr_assert_eq(query_int("SELECT p99_ns FROM wait_latency"), 99000);
	cr_assert_eq(query_int("SELECT max_ns FROM wait_latency"), 100000);
	cr_assert_eq(query_int("SELECT total_ns FROM wait_latency"), 5050000);
	cr_assert_eq(query_int("SELECT p99_ns FROM signal_latency"), 5);
	cr_assert_eq(query_int("SELECT COUNT(*) FROM op_latency"), 2);
}

Test(export_sqlite, model_tables_meta_and_summary)
{
	struct fsa_queue_info queue = {
	    .hwqueue_handle = 0x100,
	    .process_id = 42,
	    .context_handle = 0x30,
	    .adapter_id = 0,
	    .engine_id = 1,
	    .engine_type = FSTP_ENGINE_TYPE_COPY,
	    .is_user_mode = true,
	    .ring_size_bytes = 4096,
	    .created_ns = 5,
	    .destroyed_ns = FSA_TIME_NONE,
	    .wait_count = 3,
	    .signal_count = 4,
	};
	struct fsa_fence_info fence = {
	    .fence_global_handle = 0x12,
	    .adapter_id = 0,
	    .creator_process_id = 42,
	    .creator_fence_handle = 7,
	    .is_shared = true,
	    .last_value = 9,
	    .final_value = 9,
	    .created_ns = 4,
	    .destroyed_ns = 900,
	};
	struct fsa_process_info process = {
	    .process_id = 42, .name = "game", .created_ns = 1, .terminated_ns = FSA_TIME_NONE};
	struct fsa_clock_fit fit = {.adapter_id = 0,
				    .pair_count = 3,
				    .extrapolated_count = 4,
				    .extrapolated_max_ns = 2500,
				    .nominal_hz = 1000000000,
				    .ns_per_tick = 1.0,
				    .residual_rms_ns = 0.5};
	struct fsa_summary summary = {
	    .format_major = 1,
	    .format_minor = 0,
	    .has_trace_info = true,
	    .clock_mode = FSTP_CLOCK_MODE_SIM,
	    .runtime_version = "0.1.0",
	    .first_ns = 1,
	    .last_ns = 1000,
	    .event_count = 55,
	    .log_entries_lost = 37,
	};

	summary.op_counts[FSA_SRC_USER_MODE_QUEUE][FSA_OP_WAIT] = 3;
	summary.event_counts[FSA_EV_FENCE_WAIT_QUEUED] = 3;
	summary.anomaly_counts[FSA_ANOM_VALUE_REGRESSION] = 2;
	summary.gpu_time = FSA_GPU_TIME_UNMAPPED;
	start();
	cr_assert_eq(fsa_sqlite_writer_add_queue(writer, &queue), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_add_fence(writer, &fence), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_add_process(writer, &process), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_add_clock_fit(writer, &fit), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_set_summary(writer, &summary), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_set_partial(writer, "stream 3 truncated"), FSA_OK);
	finish_and_open();

	assert_text("SELECT engine_type FROM queues", "COPY");
	cr_assert_eq(query_int("SELECT destroyed_ns FROM queues"), INT64_MIN);
	cr_assert_eq(query_int("SELECT signal_count FROM queues"), 4);
	cr_assert_eq(query_int("SELECT is_shared FROM fences"), 1);
	cr_assert_eq(query_int("SELECT destroyed_ns FROM fences"), 900);
	assert_text("SELECT name FROM processes", "game");
	cr_assert_eq(query_int("SELECT pair_count FROM clock_fits"), 3);
	cr_assert_eq(query_int("SELECT extrapolated FROM clock_fits"), 4);
	cr_assert_eq(query_int("SELECT extrapolated_max_ns FROM clock_fits"), 2500);
	assert_text("SELECT value FROM meta WHERE key = 'gpu_time'", "unmapped");
	assert_text("SELECT value FROM meta WHERE key = 'schema_version'", "1");
	assert_text("SELECT value FROM meta WHERE key = 'format_version'", "1.0");
	assert_text("SELECT value FROM meta WHERE key = 'clock_mode'", "sim");
	assert_text("SELECT value FROM meta WHERE key = 'trace_path'", "traces/x");
	assert_text("SELECT value FROM meta WHERE key = 'fencescope_version'", "9.9.9");
	assert_text("SELECT value FROM meta WHERE key = 'partial'", "stream 3 truncated");
	cr_assert_eq(query_int("SELECT value FROM summary WHERE key = 'event_count'"), 55);
	cr_assert_eq(query_int("SELECT value FROM summary WHERE key = 'ops.user_mode.wait'"), 3);
	cr_assert_eq(query_int("SELECT value FROM summary WHERE key = "
			       "'events.fence_wait_queued'"),
		     3);
	cr_assert_eq(query_int("SELECT value FROM summary WHERE key = "
			       "'anomalies.value_regression'"),
		     2);
	cr_assert_eq(query_int("SELECT value FROM summary WHERE key = 'log_entries_lost'"), 37);
}

Test(export_sqlite, reads_what_a_model_keeps)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_model *model = fsa_model_create(sink);

	cr_assert_not_null(model);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_add_model(writer, model), FSA_OK);
	fsa_model_destroy(model);
	finish_and_open();
	cr_assert_eq(query_int("SELECT value FROM summary WHERE key = 'event_count'"), 0);
	cr_assert_eq(query_int("SELECT value FROM summary WHERE key = 'first_ns'"), INT64_MIN);
}

Test(export_sqlite, large_u64_values_keep_their_bits)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_op op = fst_op(1, FSA_OP_SIGNAL, 1, 2);

	op.fence_value = UINT64_MAX - 1;
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	finish_and_open();
	cr_assert_eq((uint64_t) query_int("SELECT fence_value FROM operations"), UINT64_MAX - 1);
}

Test(export_sqlite, file_appears_only_when_finished)
{
	start();
	cr_assert_eq(access(fst_path("out.db"), F_OK), -1);
	cr_assert_eq(fst_dir_file_count(), 1, "only the temporary file");
	fsa_sqlite_writer_destroy(writer);
	writer = NULL;
	cr_assert_eq(fst_dir_file_count(), 0, "an unfinished export leaves nothing");
}

Test(export_sqlite, refuses_to_replace_a_file_unless_asked)
{
	struct fsa_sqlite_writer *other = NULL;
	char *error = NULL;
	FILE *f = fopen(fst_path("out.db"), "w");

	cr_assert_not_null(f);
	fputs("keep me", f);
	fclose(f);
	cr_assert_eq(fsa_sqlite_writer_create(fst_path("out.db"), false, NULL, &other, &error),
		     FSA_ERR_IO);
	cr_assert_null(other);
	cr_assert_not_null(error);
	cr_assert(strstr(error, "exists"), "%s", error);
	free(error);
	cr_assert_eq(fst_dir_file_count(), 1);

	cr_assert_eq(fsa_sqlite_writer_create(fst_path("out.db"), true, NULL, &writer, &error),
		     FSA_OK);
	finish_and_open();
	cr_assert_eq(query_int("SELECT COUNT(*) FROM operations"), 0);
	cr_assert_eq(fst_dir_file_count(), 1);
}

Test(export_sqlite, unwritable_place_is_a_clear_error)
{
	char *error = NULL;

	cr_assert_eq(
	    fsa_sqlite_writer_create("/nonexistent-dir/out.db", false, NULL, &writer, &error),
	    FSA_ERR_IO);
	cr_assert_null(writer);
	cr_assert(error && strstr(error, "/nonexistent-dir/out.db"), "%s", error ? error : "");
	free(error);
	cr_assert_eq(fsa_sqlite_writer_create(fst_dir, false, NULL, &writer, &error), FSA_ERR_IO);
	cr_assert(error && strstr(error, "folder"), "%s", error ? error : "");
	free(error);
}

static void
feed_model(struct fsa_model *model, const char *name, uint64_t ts, ...)
{
	struct fsa_event ev;
	va_list args;
	const char *field;

	fsa_event_clear(&ev);
	ev.type = fsa_event_type_from_name(name);
	ev.ts_ns = ts;
	va_start(args, ts);
	while ((field = va_arg(args, const char *)))
		fsa_event_set(&ev, (enum fsa_field) fsa_field_from_name(field),
			      va_arg(args, uint64_t));
	va_end(args);
	cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK, "%s", name);
}

/* Format 1.4: packets' fence id and context switch flag, markers' value2/code2 (the preemption's
 * granularity and work left), and the contexts and engines tables (PRE-01, PRE-06, PRE-15). */
Test(export_sqlite, pre_15_contexts_engines_fence_ids_and_granularity)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_model *model = fsa_model_create(sink);
	const uint64_t dev = 0x8001000000000001, ctx = 0x8002000000000002, q = 0x8003000000000005;

	feed_model(model, "engine_describe", 10, "adapter_id", (uint64_t) 0, "engine_id",
		   (uint64_t) 1, "engine_type", (uint64_t) FSTP_ENGINE_TYPE_COMPUTE,
		   "preempt_granularity", (uint64_t) FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY,
		   "compute_preempt_granularity",
		   (uint64_t) FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY,
		   "is_preemption_aware", (uint64_t) 1, NULL);
	feed_model(model, "device_create", 11, "process_id", (uint64_t) 3, "adapter_id",
		   (uint64_t) 0, "device_handle", dev, NULL);
	feed_model(model, "context_create", 12, "process_id", (uint64_t) 3, "device_handle", dev,
		   "context_handle", ctx, "engine_id", (uint64_t) 1, NULL);
	feed_model(model, "context_schedule", 13, "adapter_id", (uint64_t) 0, "process_id",
		   (uint64_t) 3, "context_handle", ctx, "engine_id", (uint64_t) 1, "priority",
		   (uint64_t) 7, "time_slice_ns", (uint64_t) 500000, NULL);
	feed_model(model, "hwqueue_create", 14, "process_id", (uint64_t) 3, "context_handle", ctx,
		   "hwqueue_handle", q, "engine_id", (uint64_t) 1, "submission_mode",
		   (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	feed_model(model, "packet_queued", 20, "adapter_id", (uint64_t) 0, "engine_id",
		   (uint64_t) 1, "hwqueue_handle", q, "packet_id", (uint64_t) 4, "fence_id",
		   (uint64_t) 41, NULL);
	feed_model(model, "packet_start", 30, "adapter_id", (uint64_t) 0, "engine_id", (uint64_t) 1,
		   "hwqueue_handle", q, "packet_id", (uint64_t) 4, NULL);
	feed_model(model, "preempt_request", 40, "adapter_id", (uint64_t) 0, "engine_id",
		   (uint64_t) 1, "context_handle", ctx, "request_id", (uint64_t) 1, "reason",
		   (uint64_t) FSTP_PREEMPT_REASON_TIME_SLICE, NULL);
	feed_model(model, "packet_end", 50, "adapter_id", (uint64_t) 0, "engine_id", (uint64_t) 1,
		   "hwqueue_handle", q, "packet_id", (uint64_t) 4, "status",
		   (uint64_t) FSTP_PACKET_STATUS_PREEMPTED, NULL);
	feed_model(model, "preempt_complete", 50, "adapter_id", (uint64_t) 0, "engine_id",
		   (uint64_t) 1, "context_handle", ctx, "request_id", (uint64_t) 1, "packet_id",
		   (uint64_t) 4, "granularity",
		   (uint64_t) FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY,
		   "work_left_ticks", (uint64_t) 123, NULL);
	feed_model(model, "context_error", 60, "adapter_id", (uint64_t) 0, "process_id",
		   (uint64_t) 3, "device_handle", dev, "context_handle", ctx, "reason",
		   (uint64_t) FSTP_LOSS_REASON_INVALID_COMMAND, NULL);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_add_model(writer, model), FSA_OK);
	finish_and_open();
	fsa_model_destroy(model);

	cr_assert_eq(query_int("SELECT fence_id FROM packets"), 41);
	cr_assert_eq(query_int("SELECT is_context_switch FROM packets"), 0);
	cr_assert_eq(query_int("SELECT context_handle FROM packets"), (int64_t) ctx);
	cr_assert_eq(query_int("SELECT code2 FROM markers WHERE kind = 'preemption'"),
		     FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY);
	cr_assert_eq(query_int("SELECT value2 FROM markers WHERE kind = 'preemption'"), 123);
	cr_assert_eq(query_int("SELECT end_ns FROM markers WHERE kind = 'context_error'"),
		     INT64_MIN, "open at the end");
	cr_assert_eq(query_int("SELECT priority FROM contexts"), 7);
	cr_assert_eq(query_int("SELECT time_slice_ns FROM contexts"), 500000);
	cr_assert_eq(query_int("SELECT error_ns FROM contexts"), 60);
	assert_text("SELECT error_reason FROM contexts", "invalid_command");
	assert_text("SELECT compute_preempt_granularity FROM engines",
		    "triangle_or_thread_group_boundary");
	assert_text("SELECT preempt_granularity FROM engines", "dma_buffer_boundary");
	cr_assert_eq(query_int("SELECT is_preemption_aware FROM engines"), 1);
}

/* Format 1.5: VA spaces, cross-adapter opens, the fence's object and counts, markers of the new
 * kinds and an edge from a CPU signal to a wait on a kernel-mode queue of adapter 1 (MMU-06,
 * MMU-14, XAD-07, XAD-10). */
Test(export_sqlite, mmu_14_xad_10_va_spaces_cross_opens_and_new_markers)
{
	const struct fsa_model_sink *sink = start();
	struct fsa_model *model = fsa_model_create(sink);
	const uint64_t dev = 0x8001000000000001, ctx = 0x8002000000000002, q = 0x8003000000000005;
	const uint64_t fence = 0x8004000000000030;

	feed_model(model, "device_create", 11, "process_id", (uint64_t) 3, "adapter_id",
		   (uint64_t) 1, "device_handle", dev, NULL);
	feed_model(model, "context_create", 12, "process_id", (uint64_t) 3, "device_handle", dev,
		   "context_handle", ctx, "engine_id", (uint64_t) 0, NULL);
	feed_model(model, "hwqueue_create", 14, "process_id", (uint64_t) 3, "context_handle", ctx,
		   "hwqueue_handle", q, "engine_id", (uint64_t) 0, "submission_mode",
		   (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	feed_model(model, "fence_create", 15, "process_id", (uint64_t) 2, "adapter_id",
		   (uint64_t) 0, "fence_global_handle", fence, "fence_handle", (uint64_t) 0x10,
		   "is_cross_adapter", (uint64_t) 1, "fence_object",
		   (uint64_t) FSTP_FENCE_OBJECT_NATIVE, NULL);
	feed_model(model, "fence_cross_adapter_open", 16, "process_id", (uint64_t) 3,
		   "fence_global_handle", fence, "fence_handle", (uint64_t) 0x20, "adapter_id",
		   (uint64_t) 1, "creator_adapter_id", (uint64_t) 0, "created_as",
		   (uint64_t) FSTP_FENCE_OBJECT_NATIVE, "opened_as",
		   (uint64_t) FSTP_FENCE_OBJECT_MONITORED, NULL);
	feed_model(model, "fence_open", 16, "process_id", (uint64_t) 3, "fence_global_handle",
		   fence, "fence_handle", (uint64_t) 0x20, NULL);
	feed_model(model, "va_space_create", 17, "adapter_id", (uint64_t) 1, "process_id",
		   (uint64_t) 3, "va_size_bytes", (uint64_t) 1 << 40, "page_table_levels",
		   (uint64_t) 4, "root_entry_count", (uint64_t) 512, NULL);
	feed_model(model, "va_map", 18, "process_id", (uint64_t) 3, "allocation_handle",
		   (uint64_t) 0xa1, "gpu_va", (uint64_t) 0x10000, "size_bytes", (uint64_t) 0x10000,
		   "adapter_id", (uint64_t) 1, "page_size_bytes", (uint64_t) 65536, "segment",
		   (uint64_t) FSTP_SEGMENT_LOCAL, NULL);
	feed_model(model, "fence_wait_queued", 20, "process_id", (uint64_t) 3, "hwqueue_handle", q,
		   "fence_handle", (uint64_t) 0x20, "fence_value", (uint64_t) 1, NULL);
	feed_model(model, "cpu_signal", 30, "process_id", (uint64_t) 2, "fence_handle",
		   (uint64_t) 0x10, "fence_value", (uint64_t) 1, NULL);
	feed_model(model, "km_fence_wait_unblocked", 40, "process_id", (uint64_t) 3,
		   "hwqueue_handle", q, "fence_handle", (uint64_t) 0x20, "fence_value",
		   (uint64_t) 1, NULL);
	feed_model(model, "fence_propagate", 35, "fence_global_handle", fence, "from_adapter_id",
		   (uint64_t) 0, "to_adapter_id", (uint64_t) 1, "fence_value", (uint64_t) 1, NULL);
	feed_model(model, "update_current_value", 38, "adapter_id", (uint64_t) 1,
		   "fence_global_handle", fence, "fence_value", (uint64_t) 1, "notification_only",
		   (uint64_t) 1, NULL);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	cr_assert_eq(fsa_sqlite_writer_add_model(writer, model), FSA_OK);
	finish_and_open();
	fsa_model_destroy(model);

	assert_text("SELECT fence_object FROM fences", "native");
	cr_assert_eq(query_int("SELECT cross_open_count FROM fences"), 1);
	cr_assert_eq(query_int("SELECT propagation_count FROM fences"), 1);
	cr_assert_eq(query_int("SELECT notification_count FROM fences"), 1);
	assert_text("SELECT opened_as FROM cross_opens", "monitored");
	cr_assert_eq(query_int("SELECT adapter_id FROM cross_opens"), 1);
	cr_assert_eq(query_int("SELECT mapped_bytes_peak FROM va_spaces"), 0x10000);
	cr_assert_eq(query_int("SELECT mapped_64k_bytes_peak FROM va_spaces"), 0x10000);
	cr_assert_eq(query_int("SELECT page_table_levels FROM va_spaces"), 4);
	cr_assert_eq(query_int("SELECT wait_adapter_id FROM edges"), 1);
	cr_assert_eq(query_int("SELECT signal_adapter_id FROM edges"), INT64_MIN, "a CPU signal");
	cr_assert_eq(query_int("SELECT value2 FROM markers WHERE kind = 'va_mapping'"), 0x10000);
	/* Monitored on adapter 1: no driver call there (XAD-14), an instant. */
	cr_assert_eq(query_int("SELECT end_ns FROM markers WHERE kind = 'fence_propagation'"), 35);
	cr_assert_eq(query_int("SELECT code2 FROM markers WHERE kind = 'fence_propagation'"), 1);
	cr_assert_eq(query_int("SELECT COUNT(*) FROM markers WHERE kind = 'fence_notification'"),
		     1);
}
