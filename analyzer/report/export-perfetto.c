/* SPDX-License-Identifier: MIT */
/*
 * `fencescope export --perfetto`: the model's timeline as Chrome trace-event JSON, the format
 * that ui.perfetto.dev and chrome://tracing open (docs/export.md "Perfetto"). One "process" per
 * adapter, tracks ("threads") per HWQueue, engine, doorbell and CPU waiter, complete events for
 * fence boxes and packets, instants for markers, flow arrows from each signal to the wait it
 * released, and at the end counter events ("ph":"C") for engine busy, queue depth and fence
 * CurrentValue.
 *
 * It streams: events are written as the model hands them over, with a hand-written JSON writer
 * (no document tree), so memory holds only the tracks, a fixed-size cache of recent operations
 * for the arrows, the names of queues and processes, and the counters' change points. The JSON
 * is never sorted: both viewers sort events themselves.
 *
 * Where each item goes (tracks, lanes, names, arrows, times) is decided by the layer both
 * Perfetto writers share (perfetto-tracks.c); this file is its JSON encoder: a lane is a
 * "thread" (its tid the lane's id), slices are complete events ("ph":"X"), and the thread and
 * process names are written at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fencescope-tp-enums.h"
#include "fsa/json.h"
#include "fsa/export-writers.h"

#include "export-file-private.h"
#include "perfetto-tracks-private.h"

#define JS_MAX_SAFE_INTEGER ((UINT64_C(1) << 53) - 1)

struct fsa_perfetto_writer {
	struct perfetto_tracks tracks; /* the model sink: where each item goes */
	struct fsa_output_file file;
	FILE *out;
	bool is_first_event;
	bool is_finished;
	char *trace_path, *version, *partial;
};

/* JSON output ------------------------------------------------------------------------------ */

static void
put(struct fsa_perfetto_writer *w, const char *text)
{
	fputs(text, w->out);
}

/* A JSON string any strict parser accepts, whatever name the trace carries (fsa/json.h). */
static void
put_string(struct fsa_perfetto_writer *w, const char *s)
{
	fsa_json_write_string(w->out, s);
}

/* Microseconds with the nanoseconds as exact decimals: no floating point on the way out. */
static void
put_us(struct fsa_perfetto_writer *w, uint64_t ns)
{
	fprintf(w->out, "%" PRIu64 ".%03u", ns / 1000, (unsigned) (ns % 1000));
}

/* A u64 as a number while JavaScript holds it exactly, else as a decimal string. */
static void
put_u64(struct fsa_perfetto_writer *w, uint64_t v)
{
	if (v <= JS_MAX_SAFE_INTEGER)
		fprintf(w->out, "%" PRIu64, v);
	else
		fprintf(w->out, "\"%" PRIu64 "\"", v);
}

static void
put_hex(struct fsa_perfetto_writer *w, uint64_t v)
{
	fprintf(w->out, "\"0x%" PRIx64 "\"", v);
}

/* Args: `,"key":value`. The first arg of an object is written by the caller. */
static void
arg_u64(struct fsa_perfetto_writer *w, const char *key, uint64_t v)
{
	fprintf(w->out, ",\"%s\":", key);
	put_u64(w, v);
}

static void
arg_hex(struct fsa_perfetto_writer *w, const char *key, uint64_t v)
{
	fprintf(w->out, ",\"%s\":", key);
	put_hex(w, v);
}

static void
arg_time(struct fsa_perfetto_writer *w, const char *key, uint64_t ns)
{
	if (ns == FSA_TIME_NONE)
		fprintf(w->out, ",\"%s\":null", key);
	else
		arg_u64(w, key, ns);
}

static void
arg_id32(struct fsa_perfetto_writer *w, const char *key, uint32_t v)
{
	if (v == UINT32_MAX)
		fprintf(w->out, ",\"%s\":null", key);
	else
		fprintf(w->out, ",\"%s\":%" PRIu32, key, v);
}

static void
arg_str(struct fsa_perfetto_writer *w, const char *key, const char *v)
{
	fprintf(w->out, ",\"%s\":", key);
	put_string(w, v);
}

static void
arg_bool(struct fsa_perfetto_writer *w, const char *key, bool v)
{
	fprintf(w->out, ",\"%s\":%s", key, v ? "true" : "false");
}

/* A time as the viewer sees it: relative to the time base, never negative. */
static void
put_ts(struct fsa_perfetto_writer *w, uint64_t ns)
{
	put_us(w, perfetto_tracks_relative(&w->tracks, ns));
}

static void
begin_event(struct fsa_perfetto_writer *w)
{
	put(w, w->is_first_event ? "\n{" : ",\n{");
	w->is_first_event = false;
}

/* Starts an event up to its "args" object (left open): {"name":…,"cat":…,"ph":…,"ts":…,…. A
 * complete event ('X') lasts from the span's begin to its end, an instant ('i') is at its
 * begin. */
static void
begin_slice(struct fsa_perfetto_writer *w, const char *name, const char *cat, char ph,
	    const struct perfetto_span *span)
{
	begin_event(w);
	put(w, "\"name\":");
	put_string(w, name);
	fprintf(w->out, ",\"cat\":\"%s\",\"ph\":\"%c\",\"ts\":", cat, ph);
	put_ts(w, span->begin);
	if (ph == 'X') {
		put(w, ",\"dur\":");
		put_us(w, span->end - span->begin);
	} else if (ph == 'i') {
		put(w, ",\"s\":\"t\"");
	}
	fprintf(w->out, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu64 ",\"args\":{", span->pid,
		span->lane);
}

static void
end_slice(struct fsa_perfetto_writer *w)
{
	put(w, "}}");
}

static fsa_status
check_output(struct fsa_perfetto_writer *w)
{
	return ferror(w->out) ? perfetto_tracks_fail(&w->tracks, FSA_ERR_IO) : FSA_OK;
}

/* The encoder: items ------------------------------------------------------------------------ */

static void
put_flow(struct fsa_perfetto_writer *w, char ph, uint64_t id, const struct perfetto_span *at)
{
	begin_event(w);
	fprintf(w->out, "\"name\":\"dependency\",\"cat\":\"dependency\",\"ph\":\"%c\",", ph);
	if (ph == 'f')
		put(w, "\"bp\":\"e\",");
	fprintf(w->out, "\"id\":%" PRIu64 ",\"ts\":", id);
	put_ts(w, at->begin);
	fprintf(w->out, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu64 "}", at->pid, at->lane);
}

static fsa_status
encode_flow(void *data, uint64_t id, const struct perfetto_span *from,
	    const struct perfetto_span *to)
{
	struct fsa_perfetto_writer *w = data;

	put_flow(w, 's', id, from);
	put_flow(w, 'f', id, to);
	return check_output(w);
}

static fsa_status
encode_op(void *data, const struct fsa_op *op, const struct perfetto_op_box *box)
{
	struct fsa_perfetto_writer *w = data;
	const char *kind = fsa_op_kind_name(op->kind);
	char fence[48], name[128];

	perfetto_format_fence(fence, sizeof(fence), op->fence_global_handle, op->fence_handle);
	snprintf(name, sizeof(name), "%s%s %s=%" PRIu64, box->prefix, kind, fence, op->fence_value);
	begin_slice(w, name, box->category, 'X', &box->span);
	fprintf(w->out, "\"id\":%" PRIu64, op->id);
	arg_str(w, "kind", kind);
	arg_str(w, "source", fsa_op_source_name(op->source));
	arg_str(w, "state", fsa_op_state_name(op->state));
	arg_bool(w, "is_inferred", op->state == FSA_OP_INFERRED);
	if (op->source != FSA_SRC_CPU)
		arg_hex(w, "hwqueue_handle", op->hwqueue_handle);
	arg_u64(w, "process_id", op->process_id);
	arg_id32(w, "adapter_id", op->adapter_id);
	arg_id32(w, "engine_id", op->engine_id);
	arg_hex(w, "fence_handle", op->fence_handle);
	arg_hex(w, "fence_global_handle", op->fence_global_handle);
	arg_u64(w, "fence_value", op->fence_value);
	arg_u64(w, "progress_value", op->progress_value);
	arg_time(w, "queued_ns", op->queued_ns);
	arg_time(w, "observed_ns", op->observed_ns);
	arg_time(w, "end_ns", op->end_ns);
	if (op->state == FSA_OP_INFERRED) {
		arg_time(w, "inferred_begin_ns", op->inferred_begin_ns);
		arg_time(w, "inferred_end_ns", op->inferred_end_ns);
	}
	if (op->queued_ns != FSA_TIME_NONE && op->end_ns != FSA_TIME_NONE &&
	    op->end_ns >= op->queued_ns)
		arg_u64(w, "duration_ns", op->end_ns - op->queued_ns);
	arg_u64(w, "observed_gpu_ts", op->observed_gpu_ts);
	arg_u64(w, "end_gpu_ts", op->end_gpu_ts);
	if (op->log_position != UINT64_MAX)
		arg_u64(w, "log_position", op->log_position);
	if (op->source == FSA_SRC_CPU && op->kind == FSA_OP_WAIT) {
		arg_u64(w, "cpu_wait_result", op->cpu_wait_result);
		arg_u64(w, "observed_value", op->observed_value);
	}
	if (op->signal_op_id)
		arg_u64(w, "signal_op_id", op->signal_op_id);
	end_slice(w);
	if (box->has_stall) {
		struct perfetto_span stall = box->span;

		stall.begin = box->stall_begin;
		stall.end = box->stall_end;
		begin_slice(w, "stalled on GPU", "wait.stalled", 'X', &stall);
		fprintf(w->out, "\"id\":%" PRIu64 "", op->id);
		end_slice(w);
	}
	return check_output(w);
}

static fsa_status
encode_packet(void *data, const struct fsa_packet *p, const struct perfetto_span *span)
{
	struct fsa_perfetto_writer *w = data;
	char name[96];

	if (p->status == FSA_PACKET_COMPLETED)
		snprintf(name, sizeof(name), "packet %" PRIu64, p->packet_id);
	else
		snprintf(name, sizeof(name), "packet %" PRIu64 " (%s)", p->packet_id,
			 fsa_packet_status_name(p->status));
	begin_slice(w, name, p->is_paging ? "packet.paging" : "packet", 'X', span);
	fprintf(w->out, "\"packet_id\":%" PRIu64, p->packet_id);
	arg_str(w, "status", fsa_packet_status_name(p->status));
	arg_hex(w, "hwqueue_handle", p->hwqueue_handle);
	if (p->resubmission_of)
		arg_u64(w, "resubmission_of", p->resubmission_of);
	arg_u64(w, "progress_value", p->progress_value);
	arg_bool(w, "is_user_mode", p->is_user_mode);
	arg_bool(w, "is_paging", p->is_paging);
	arg_time(w, "queued_ns", p->queued_ns);
	arg_time(w, "start_ns", p->start_ns);
	arg_time(w, "end_ns", p->end_ns);
	arg_u64(w, "start_gpu_ts", p->start_gpu_ts);
	arg_u64(w, "end_gpu_ts", p->end_gpu_ts);
	/* Format 1.4 (PRE-05..07): only when the trace says. */
	if (p->fence_id)
		arg_u64(w, "fence_id", p->fence_id);
	if (p->is_context_switch)
		arg_bool(w, "is_context_switch", true);
	end_slice(w);
	return check_output(w);
}

static fsa_status
encode_marker(void *data, const struct fsa_marker *m, const struct perfetto_span *span,
	      bool is_interval)
{
	struct fsa_perfetto_writer *w = data;
	const char *kind = fsa_marker_kind_name(m->kind);

	begin_slice(w, kind, "marker", is_interval ? 'X' : 'i', span);
	fprintf(w->out, "\"kind\":\"%s\"", kind);
	arg_time(w, "begin_ns", m->begin_ns);
	arg_time(w, "end_ns", m->end_ns);
	arg_id32(w, "adapter_id", m->adapter_id);
	arg_id32(w, "engine_id", m->engine_id);
	arg_id32(w, "process_id", m->process_id);
	arg_hex(w, "hwqueue_handle", m->hwqueue_handle);
	arg_hex(w, "context_handle", m->context_handle);
	arg_hex(w, "doorbell_handle", m->doorbell_handle);
	arg_hex(w, "other_handle", m->other_handle);
	arg_u64(w, "value", m->value);
	fprintf(w->out, ",\"code\":%" PRId64, m->code);
	if (m->latency_ns != FSA_TIME_NONE)
		arg_u64(w, "latency_ns", m->latency_ns);
	/* Format 1.4's second value and code (docs/analyzer.md), only when set. */
	if (m->value2)
		arg_u64(w, "value2", m->value2);
	if (m->code2)
		fprintf(w->out, ",\"code2\":%" PRId64, m->code2);
	end_slice(w);
	return check_output(w);
}

static fsa_status
encode_loss(void *data, const struct fsa_loss *l, const struct perfetto_span *span,
	    bool is_range_known)
{
	struct fsa_perfetto_writer *w = data;
	bool is_overrun = fsa_loss_is_per_log(l->kind);
	char name[128];

	if (is_overrun)
		snprintf(name, sizeof(name), "%s: %" PRIu64 " %s entries lost",
			 l->kind == FSA_LOSS_LOG_GAP ? "log gap" : "log overrun", l->count,
			 l->log_type == FSTP_LOG_TYPE_WAITS ? "wait" : "signal");
	else
		snprintf(name, sizeof(name), "tracer discarded %" PRIu64 " %s", l->count,
			 l->kind == FSA_LOSS_TRACER_EVENTS ? "events" : "packets");
	begin_slice(w, name, "loss", is_range_known ? 'X' : 'i', span);
	fprintf(w->out, "\"kind\":\"%s\"", fsa_loss_kind_name(l->kind));
	arg_u64(w, "count", l->count);
	arg_time(w, "begin_ns", l->begin_ns);
	arg_time(w, "end_ns", l->end_ns);
	arg_bool(w, "is_range_known", is_range_known);
	if (is_overrun) {
		arg_id32(w, "adapter_id", l->adapter_id);
		arg_hex(w, "hwqueue_handle", l->hwqueue_handle);
		arg_str(w, "log_type", l->log_type == FSTP_LOG_TYPE_WAITS ? "WAITS" : "SIGNALS");
		arg_u64(w, "cached_position", l->cached_position);
		arg_u64(w, "new_position", l->new_position);
		arg_u64(w, "inferred_ops", l->inferred_ops);
	} else {
		arg_u64(w, "stream_id", l->stream_id);
		arg_id32(w, "cpu_id", l->cpu_id);
	}
	end_slice(w);
	return check_output(w);
}

static fsa_status
encode_anomaly(void *data, const struct fsa_anomaly *a, const struct perfetto_span *span)
{
	struct fsa_perfetto_writer *w = data;
	const char *kind = fsa_anomaly_kind_name(a->kind);

	begin_slice(w, kind, "anomaly", 'i', span);
	fprintf(w->out, "\"kind\":\"%s\"", kind);
	arg_time(w, "ts_ns", a->ts_ns);
	arg_id32(w, "process_id", a->process_id);
	arg_hex(w, "hwqueue_handle", a->hwqueue_handle);
	arg_hex(w, "fence_handle", a->fence_handle);
	arg_hex(w, "fence_global_handle", a->fence_global_handle);
	arg_u64(w, "fence_value", a->fence_value);
	if (a->op_id)
		arg_u64(w, "op_id", a->op_id);
	arg_u64(w, "a", a->a);
	arg_u64(w, "b", a->b);
	end_slice(w);
	return check_output(w);
}

/* A counter event: {"name":<track>,"cat":"counter","ph":"C","ts":…,"pid":…,"args":{"value":…}};
 * the viewers key a counter track by its process and name. */
static fsa_status
encode_counter(void *data, const struct perfetto_counter_track *track, uint64_t ts, int64_t value)
{
	struct fsa_perfetto_writer *w = data;

	begin_event(w);
	put(w, "\"name\":");
	put_string(w, track->name);
	put(w, ",\"cat\":\"counter\",\"ph\":\"C\",\"ts\":");
	put_ts(w, ts);
	fprintf(w->out, ",\"pid\":%" PRIu32 ",\"args\":{\"value\":%" PRId64 "}}", track->pid,
		value);
	return check_output(w);
}

/* Complete events may end where a later slice of their lane begins; threads are named at the
 * end, from the tracks. */
static const struct perfetto_encoder json_encoder = {
    .may_end_at_later_begin = true,
    .op = encode_op,
    .packet = encode_packet,
    .marker = encode_marker,
    .loss = encode_loss,
    .anomaly = encode_anomaly,
    .flow = encode_flow,
    .counter = encode_counter,
};

/* Life cycle ---------------------------------------------------------------------------------- */

fsa_status
fsa_perfetto_writer_create(const char *path, bool is_overwrite, const struct fsa_export_info *info,
			   struct fsa_perfetto_writer **writer, char **error_message)
{
	struct fsa_perfetto_writer *w = NULL;
	fsa_status status;

	*writer = NULL;
	set_error_message(error_message, NULL);
	w = calloc(1, sizeof(*w));
	if (!w) {
		status = FSA_ERR_NOMEM;
		goto end;
	}
	status = fsa_output_file_begin(&w->file, path, is_overwrite ? FSA_OUTPUT_REPLACE : 0,
				       error_message);
	if (status != FSA_OK)
		goto end;
	status = perfetto_tracks_init(&w->tracks, &json_encoder, w, w->file.path);
	if (status != FSA_OK)
		goto end;
	status = FSA_ERR_NOMEM;
	w->trace_path = info && info->trace_path ? strdup(info->trace_path) : NULL;
	w->version = info && info->fencescope_version ? strdup(info->fencescope_version) : NULL;
	if ((info && info->trace_path && !w->trace_path) ||
	    (info && info->fencescope_version && !w->version))
		goto end;
	w->out = fopen(w->file.tmp_path, "w");
	if (!w->out) {
		if (error_message)
			*error_message = strdup_printf("%s: %s", path, strerror(errno));
		status = FSA_ERR_IO;
		goto end;
	}
	setvbuf(w->out, NULL, _IOFBF, 1 << 20);
	w->is_first_event = true;
	/* displayTimeUnit: the viewers show nanoseconds, the unit of every *_ns arg. */
	put(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	status = FSA_OK;
end:
	if (status == FSA_ERR_NOMEM && error_message && !*error_message)
		*error_message = strdup("out of memory");
	if (status != FSA_OK) {
		fsa_perfetto_writer_destroy(w);
		w = NULL;
	}
	*writer = w;
	return status;
}

void
fsa_perfetto_writer_destroy(struct fsa_perfetto_writer *w)
{
	if (!w)
		return;
	if (w->out)
		fclose(w->out);
	fsa_output_file_end(&w->file);
	perfetto_tracks_clear(&w->tracks);
	free(w->trace_path);
	free(w->version);
	free(w->partial);
	free(w);
}

const struct fsa_model_sink *
fsa_perfetto_writer_borrow_sink(struct fsa_perfetto_writer *w)
{
	return &w->tracks.sink;
}

const char *
fsa_perfetto_writer_borrow_error(const struct fsa_perfetto_writer *w)
{
	return w->tracks.error;
}

uint64_t
fsa_perfetto_writer_unbound_edge_count(const struct fsa_perfetto_writer *w)
{
	return w->tracks.unbound_edge_count;
}

fsa_status
fsa_perfetto_writer_add_queue(struct fsa_perfetto_writer *w, const struct fsa_queue_info *q)
{
	return perfetto_tracks_add_queue(&w->tracks, q);
}

fsa_status
fsa_perfetto_writer_add_process(struct fsa_perfetto_writer *w, const struct fsa_process_info *p)
{
	return perfetto_tracks_add_process(&w->tracks, p);
}

void
fsa_perfetto_writer_set_time_base(struct fsa_perfetto_writer *w, uint64_t base_ns)
{
	perfetto_tracks_set_time_base(&w->tracks, base_ns);
}

void
fsa_perfetto_writer_set_model(struct fsa_perfetto_writer *w, const struct fsa_model *model)
{
	perfetto_tracks_set_model(&w->tracks, model);
}

void
fsa_perfetto_writer_set_counter_resolution(struct fsa_perfetto_writer *w, uint64_t resolution_ns)
{
	perfetto_tracks_set_counter_resolution(&w->tracks, resolution_ns);
}

fsa_status
fsa_perfetto_writer_set_counters(struct fsa_perfetto_writer *w, bool has_counters)
{
	return perfetto_tracks_set_counters(&w->tracks, has_counters);
}

fsa_status
fsa_perfetto_writer_set_partial(struct fsa_perfetto_writer *w, const char *reason)
{
	free(w->partial);
	w->partial = strdup(reason ? reason : "");
	return w->partial ? FSA_OK : perfetto_tracks_fail(&w->tracks, FSA_ERR_NOMEM);
}

fsa_status
fsa_perfetto_writer_add_model(struct fsa_perfetto_writer *w, const struct fsa_model *model)
{
	fsa_status status = FSA_OK;
	size_t n = fsa_model_process_count(model);

	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = fsa_perfetto_writer_add_process(w, fsa_model_borrow_process(model, i));
	n = fsa_model_queue_count(model);
	for (size_t i = 0; i < n && status == FSA_OK; i++)
		status = fsa_perfetto_writer_add_queue(w, fsa_model_borrow_queue(model, i));
	return status;
}

static void
put_metadata(struct fsa_perfetto_writer *w, const char *what, uint32_t pid, uint64_t tid,
	     const char *key, const char *text, uint64_t number)
{
	begin_event(w);
	fprintf(w->out, "\"name\":\"%s\",\"ph\":\"M\",\"ts\":0,\"pid\":%" PRIu32, what, pid);
	if (tid)
		fprintf(w->out, ",\"tid\":%" PRIu64, tid);
	fprintf(w->out, ",\"args\":{\"%s\":", key);
	if (text)
		put_string(w, text);
	else
		put_u64(w, number);
	put(w, "}}");
}

static void
put_process_names(struct fsa_perfetto_writer *w)
{
	const struct perfetto_tracks *pt = &w->tracks;
	uint32_t *pids = NULL;
	size_t count = 0;
	char name[64];

	/* The pids the tracks use, each once (tracks are few). */
	for (size_t i = 0; i < pt->track_count; i++) {
		bool is_known = false;

		for (size_t j = 0; j < count && !is_known; j++)
			is_known = pids[j] == pt->tracks[i].pid;
		if (is_known)
			continue;
		uint32_t *more = realloc(pids, (count + 1) * sizeof(*pids));

		if (!more)
			break;
		pids = more;
		pids[count++] = pt->tracks[i].pid;
	}
	for (size_t i = 0; i < count; i++) {
		perfetto_process_name(pids[i], name, sizeof(name));
		put_metadata(w, "process_name", pids[i], 0, "name", name, 0);
		put_metadata(w, "process_sort_index", pids[i], 0, "sort_index", NULL, pids[i]);
	}
	free(pids);
}

static void
put_thread_names(struct fsa_perfetto_writer *w)
{
	const struct perfetto_tracks *pt = &w->tracks;
	char name[512], lane_name[540];

	for (size_t i = 0; i < pt->track_count; i++) {
		const struct perfetto_track *t = &pt->tracks[i];

		perfetto_tracks_track_name(pt, t, name, sizeof(name));
		for (size_t lane = 0; lane < t->lane_count; lane++) {
			if (lane)
				snprintf(lane_name, sizeof(lane_name), "%s #%zu", name, lane + 1);
			else
				snprintf(lane_name, sizeof(lane_name), "%s", name);
			put_metadata(w, "thread_name", t->pid, t->lanes[lane].id, "name", lane_name,
				     0);
			put_metadata(w, "thread_sort_index", t->pid, t->lanes[lane].id,
				     "sort_index", NULL, (uint64_t) t->order * 256 + lane);
		}
	}
}

fsa_status
fsa_perfetto_writer_finish(struct fsa_perfetto_writer *w, char **error_message)
{
	fsa_status status;

	set_error_message(error_message, NULL);
	if (w->is_finished) {
		set_error_message(error_message, "the export was already finished");
		return FSA_ERR_INVALID;
	}
	/* Its counter tracks and frames may fail (out of memory): then no file, as the protobuf
	 * writer does, never a file without them. */
	status = perfetto_tracks_finish(&w->tracks);
	put_process_names(w);
	put_thread_names(w);
	put(w, "\n],\"otherData\":{\"generator\":\"fencescope export\"");
	if (w->version)
		arg_str(w, "fencescope_version", w->version);
	if (w->trace_path)
		arg_str(w, "trace_path", w->trace_path);
	if (w->partial)
		arg_str(w, "partial", w->partial);
	arg_u64(w, "time_base_ns", w->tracks.time_base_ns);
	arg_u64(w, "dependency_arrows", w->tracks.flow_count);
	arg_u64(w, "dependency_edges_without_arrow", w->tracks.unbound_edge_count);
	put(w, "}}\n");
	w->is_finished = true;
	if (status == FSA_OK)
		status = check_output(w);
	if (fclose(w->out) != 0 && status == FSA_OK)
		status = perfetto_tracks_fail(&w->tracks, FSA_ERR_IO);
	w->out = NULL;
	if (status != FSA_OK) {
		set_error_message(error_message, w->tracks.error);
		return status;
	}
	return fsa_output_file_commit(&w->file, error_message);
}
