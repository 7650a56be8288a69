/* SPDX-License-Identifier: MIT */
/*
 * analyzer/report exporters: `fencescope export --sqlite` and `--perfetto` (docs/export.md).
 * Each writer is a streaming model sink (fsa/model.h): it writes every operation, edge, packet,
 * marker, loss and anomaly as the model finalizes it and keeps nothing of it but a bounded cache,
 * so memory does not grow with the length of the trace. At the end it writes what the model
 * keeps for the whole analysis (queues, fences, processes, clock fits, summary), taken either
 * from a model (fsa_*_writer_add_model) or item by item (the add_* functions, which unit tests
 * use with synthetic data).
 *
 * Both writers write to a temporary file next to the output and rename it at
 * fsa_*_writer_finish(), so a failed or cancelled export leaves no half-written file; they refuse
 * to replace an existing file unless asked to.
 *
 * These are not the report (fsa/report.h): they compute no statistics beyond what a row needs
 * (durations); the SQLite file's views and a query do that.
 */
#ifndef FSA_EXPORT_WRITERS_H
#define FSA_EXPORT_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsa/export.h"
#include "fsa/model.h"

/* The version of the SQLite schema (meta.schema_version); docs/export.md lists each change. */
#define FSA_SQLITE_SCHEMA_VERSION 1

/* What an export says about where it comes from. Strings are copied; any may be NULL. */
struct fsa_export_info {
	const char *trace_path;
	const char *fencescope_version;
};

/* SQLite ---------------------------------------------------------------------------------- */

struct fsa_sqlite_writer;

/*
 * Starts an SQLite export to PATH (a temporary file until finish). Returns FSA_OK and the writer
 * in *writer (transfer full), or FSA_ERR_IO (PATH exists and !is_overwrite, or its folder cannot
 * be written) / FSA_ERR_NOMEM with a one-line message in *error_message (transfer full, free();
 * may be NULL), in which case nothing is left on disk.
 */
FSA_API fsa_status fsa_sqlite_writer_create(const char *path, bool is_overwrite,
					    const struct fsa_export_info *info,
					    struct fsa_sqlite_writer **writer,
					    char **error_message);
/* Removes the temporary file when finish did not run or failed. NULL is accepted. */
FSA_API void fsa_sqlite_writer_destroy(struct fsa_sqlite_writer *writer);
/* Returns: (transfer none) the sink to create the model with; valid while the writer lives. */
FSA_API const struct fsa_model_sink *
fsa_sqlite_writer_borrow_sink(struct fsa_sqlite_writer *writer);
/* Returns: (transfer none) (nullable) why the last call or callback failed. */
FSA_API const char *fsa_sqlite_writer_borrow_error(const struct fsa_sqlite_writer *writer);

/* The tables of what the model keeps (call after fsa_model_finish()). */
FSA_API fsa_status fsa_sqlite_writer_add_model(struct fsa_sqlite_writer *writer,
					       const struct fsa_model *model);
FSA_API fsa_status fsa_sqlite_writer_add_process(struct fsa_sqlite_writer *writer,
						 const struct fsa_process_info *process);
FSA_API fsa_status fsa_sqlite_writer_add_queue(struct fsa_sqlite_writer *writer,
					       const struct fsa_queue_info *queue);
FSA_API fsa_status fsa_sqlite_writer_add_fence(struct fsa_sqlite_writer *writer,
					       const struct fsa_fence_info *fence);
FSA_API fsa_status fsa_sqlite_writer_add_clock_fit(struct fsa_sqlite_writer *writer,
						   const struct fsa_clock_fit *fit);
FSA_API fsa_status fsa_sqlite_writer_set_summary(struct fsa_sqlite_writer *writer,
						 const struct fsa_summary *summary);
/* Marks the export as covering part of the trace only (meta.partial = REASON). */
FSA_API fsa_status fsa_sqlite_writer_set_partial(struct fsa_sqlite_writer *writer,
						 const char *reason);

/*
 * Creates the indexes and views, commits, and renames the temporary file to PATH. Returns FSA_OK
 * or an error with a one-line message in *error_message (transfer full, free(); may be NULL).
 */
FSA_API fsa_status fsa_sqlite_writer_finish(struct fsa_sqlite_writer *writer, char **error_message);

/* Perfetto (Chrome trace-event JSON) ------------------------------------------------------- */

struct fsa_perfetto_writer;

/* As fsa_sqlite_writer_create(), for a Chrome trace-event JSON file. */
FSA_API fsa_status fsa_perfetto_writer_create(const char *path, bool is_overwrite,
					      const struct fsa_export_info *info,
					      struct fsa_perfetto_writer **writer,
					      char **error_message);
FSA_API void fsa_perfetto_writer_destroy(struct fsa_perfetto_writer *writer);
FSA_API const struct fsa_model_sink *
fsa_perfetto_writer_borrow_sink(struct fsa_perfetto_writer *writer);
FSA_API const char *fsa_perfetto_writer_borrow_error(const struct fsa_perfetto_writer *writer);

/* Names for the tracks: queues (engine, process) and processes (name). Copied. */
FSA_API fsa_status fsa_perfetto_writer_add_model(struct fsa_perfetto_writer *writer,
						 const struct fsa_model *model);
FSA_API fsa_status fsa_perfetto_writer_add_process(struct fsa_perfetto_writer *writer,
						   const struct fsa_process_info *process);
FSA_API fsa_status fsa_perfetto_writer_add_queue(struct fsa_perfetto_writer *writer,
						 const struct fsa_queue_info *queue);
FSA_API fsa_status fsa_perfetto_writer_set_partial(struct fsa_perfetto_writer *writer,
						   const char *reason);
/*
 * Counter tracks (docs/export.md "Counter tracks"): engine busy (per cent), queue depth and fence
 * CurrentValue as step functions, written at finish. On by default; HAS_COUNTERS false leaves
 * them out. Call before the first item. FSA_ERR_NOMEM.
 */
FSA_API fsa_status fsa_perfetto_writer_set_counters(struct fsa_perfetto_writer *writer,
						    bool has_counters);
/*
 * 0 (the default): every change of every counter. RESOLUTION_NS > 0 bounds their size: of each
 * interval of that many ns (aligned to the trace's ns), a counter keeps the points where it is
 * lowest and highest there and its last point (values exact where kept), and the busy tracks
 * give the exact per cent of each interval that was busy.
 */
FSA_API void fsa_perfetto_writer_set_counter_resolution(struct fsa_perfetto_writer *writer,
							uint64_t resolution_ns);

/*
 * Viewers read "ts" as a double of microseconds, which holds nanoseconds only up to about 2^53
 * ns; trace clocks count from the epoch (about 2^61 ns). So event times are written relative to
 * a time base (otherData.time_base_ns; the args keep absolute trace ns). set_time_base sets it;
 * set_model makes the writer take, when the first item comes, the model's first event time
 * rounded down to a whole second. Without either, the base is 0. Call before the first item.
 */
FSA_API void fsa_perfetto_writer_set_time_base(struct fsa_perfetto_writer *writer,
					       uint64_t base_ns);
FSA_API void fsa_perfetto_writer_set_model(struct fsa_perfetto_writer *writer,
					   const struct fsa_model *model);

/*
 * Writes the track names and the closing of the document, and renames the temporary file to
 * PATH. Returns FSA_OK or an error with a one-line message in *error_message.
 */
FSA_API fsa_status fsa_perfetto_writer_finish(struct fsa_perfetto_writer *writer,
					      char **error_message);

/*
 * Flow arrows whose signal or wait slice had left the writer's bounded cache of recent
 * operations when their edge came (see docs/export.md); such an edge keeps its args but has no
 * arrow. Valid after finish.
 */
FSA_API uint64_t fsa_perfetto_writer_unbound_edge_count(const struct fsa_perfetto_writer *writer);

/* Perfetto (native protobuf trace) ------------------------------------------------------------ */

/*
 * A `perfetto.protos.Trace` of TracePackets: TrackDescriptors (a process per adapter, a track per
 * queue, engine… whose overlapping slices go to lanes of the same name, which the Perfetto UI
 * merges) and TrackEvents (slice begin/end, instants, flows for the signal → wait edges) with
 * interned names, streamed. docs/export.md "Perfetto". The functions are those of the JSON
 * writer, for this format; times are written relative to the time base as there.
 */
struct fsa_perfetto_proto_writer;

FSA_API fsa_status fsa_perfetto_proto_writer_create(const char *path, bool is_overwrite,
						    const struct fsa_export_info *info,
						    struct fsa_perfetto_proto_writer **writer,
						    char **error_message);
FSA_API void fsa_perfetto_proto_writer_destroy(struct fsa_perfetto_proto_writer *writer);
FSA_API const struct fsa_model_sink *
fsa_perfetto_proto_writer_borrow_sink(struct fsa_perfetto_proto_writer *writer);
FSA_API const char *
fsa_perfetto_proto_writer_borrow_error(const struct fsa_perfetto_proto_writer *writer);
/* Track names are taken from MODEL (queues, engines, processes) as tracks appear, and the time
 * base from its first event. Call before the first item. */
FSA_API void fsa_perfetto_proto_writer_set_model(struct fsa_perfetto_proto_writer *writer,
						 const struct fsa_model *model);
FSA_API void fsa_perfetto_proto_writer_set_time_base(struct fsa_perfetto_proto_writer *writer,
						     uint64_t base_ns);
FSA_API fsa_status fsa_perfetto_proto_writer_set_partial(struct fsa_perfetto_proto_writer *writer,
							 const char *reason);
/* As fsa_perfetto_writer_set_counters(): counter tracks with a CounterDescriptor, TYPE_COUNTER
 * track events. */
FSA_API fsa_status fsa_perfetto_proto_writer_set_counters(struct fsa_perfetto_proto_writer *writer,
							  bool has_counters);
FSA_API void
fsa_perfetto_proto_writer_set_counter_resolution(struct fsa_perfetto_proto_writer *writer,
						 uint64_t resolution_ns);
FSA_API fsa_status fsa_perfetto_proto_writer_finish(struct fsa_perfetto_proto_writer *writer,
						    char **error_message);
/* Edges without an arrow (as fsa_perfetto_writer_unbound_edge_count(), plus those whose wait
 * box ends before the signal's begins). Valid after finish. */
FSA_API uint64_t
fsa_perfetto_proto_writer_unbound_edge_count(const struct fsa_perfetto_proto_writer *writer);
/* Tracks as the UI shows them (queues, engines, …) and the lanes (TrackDescriptors) they use. */
FSA_API uint64_t
fsa_perfetto_proto_writer_track_count(const struct fsa_perfetto_proto_writer *writer);
FSA_API uint64_t
fsa_perfetto_proto_writer_lane_count(const struct fsa_perfetto_proto_writer *writer);

#endif /* FSA_EXPORT_WRITERS_H */
