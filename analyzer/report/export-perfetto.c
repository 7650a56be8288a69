/* SPDX-License-Identifier: MIT */
/*
 * `fencescope export --perfetto`: the model's timeline as Chrome trace-event JSON, the format
 * that ui.perfetto.dev and chrome://tracing open (docs/export.md "Perfetto"). One "process" per
 * adapter, tracks ("threads") per HWQueue, engine, doorbell and CPU waiter, complete events for
 * fence boxes and packets, instants for markers, and flow arrows from each signal to the wait it
 * released.
 *
 * It streams: events are written as the model hands them over, with a hand-written JSON writer
 * (no document tree), so memory holds only the tracks, a fixed-size cache of recent operations
 * for the arrows, and the names of queues and processes. The JSON is never sorted: both viewers
 * sort events themselves.
 *
 * Two rules of the viewers shape it. Slices on one track must nest, and fence boxes on one queue
 * overlap (a wait queued early ends late), so a track is split into as many lanes as it needs
 * (one "thread" each). A flow event binds to the slice that encloses its timestamp, and a slice
 * no longer encloses its end, so an arrow is anchored a few nanoseconds before the end of its
 * slice, and every slice lasts at least FLOW_MIN_DUR_NS so that such a point exists even after
 * the viewer rounds microseconds to nanoseconds.
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

#define FLOW_MIN_DUR_NS     6
#define FLOW_INSET_NS       3
#define OP_CACHE_SIZE       65536 /* a power of two */
#define PENDING_EDGES_MAX   4096
#define JS_MAX_SAFE_INTEGER ((UINT64_C(1) << 53) - 1)

/* Chrome "processes" that are not adapters. */
#define PID_UNKNOWN_ADAPTER 1000000
#define PID_CPU             1000001
#define PID_TRACER          1000002
#define PID_ANOMALIES       1000003

enum track_type {
	TRACK_QUEUE,          /* a = hwqueue: fence boxes */
	TRACK_QUEUE_DOORBELL, /* a = hwqueue: doorbell markers */
	TRACK_QUEUE_LOSS,     /* a = hwqueue: log overruns */
	TRACK_ENGINE,         /* a = adapter, b = engine: packets */
	TRACK_ENGINE_EVENTS,  /* a = adapter, b = engine: preemption, TDR, F1, reset, fault */
	TRACK_ADAPTER_EVENTS, /* a = adapter: device-wide markers */
	TRACK_CPU,            /* a = process: CPU waits and signals */
	TRACK_TRACER,         /* a = cpu: tracer discards */
	TRACK_ANOMALY,        /* a = anomaly kind */
};

struct lane {
	uint32_t tid;
	uint64_t min_begin, max_end; /* the envelope of the slices placed on it */
};

struct track {
	enum track_type type;
	uint64_t a, b;
	uint32_t pid;
	uint32_t order; /* creation order, for thread_sort_index */
	struct lane *lanes;
	size_t lane_count;
};

struct cached_op {
	uint64_t op_id;
	bool is_valid;
	uint32_t pid, tid;
	uint64_t begin;   /* of the op's slice */
	uint64_t flow_ts; /* inside the op's slice, near its end */
};

struct queue_name {
	struct fsa_queue_info info;
};

struct process_name {
	uint32_t process_id;
	char *name;
};

struct fsa_perfetto_writer {
	struct fsa_model_sink sink;
	struct fsa_output_file file;
	FILE *out;
	char *error;
	bool is_first_event;
	bool is_finished;
	char *trace_path, *version, *partial;

	struct track *tracks;
	size_t track_count, track_capacity;
	/* Open addressing over tracks (index + 1, 0 empty); capacity a power of two. */
	uint32_t *track_index;
	size_t track_index_capacity;
	uint32_t next_tid;

	uint64_t max_ts; /* the latest time seen, to draw what never ended */
	/* Event times are written relative to this (fsa_perfetto_writer_set_time_base). */
	uint64_t time_base_ns;
	bool is_time_base_set;
	const struct fsa_model *model;

	struct cached_op *op_cache;
	bool has_op;
	uint64_t max_op_id;
	struct fsa_edge *pending;
	size_t pending_count;
	uint64_t flow_count, unbound_edge_count;

	struct queue_name *queues;
	size_t queue_count, queue_capacity;
	struct process_name *processes;
	size_t process_count, process_capacity;
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
	put_us(w, ns > w->time_base_ns ? ns - w->time_base_ns : 0);
}

static void
begin_event(struct fsa_perfetto_writer *w)
{
	put(w, w->is_first_event ? "\n{" : ",\n{");
	w->is_first_event = false;
}

/* Starts an event up to its "args" object (left open): {"name":…,"cat":…,"ph":…,"ts":…,…. */
static void
begin_slice(struct fsa_perfetto_writer *w, const char *name, const char *cat, char ph, uint64_t ts,
	    uint64_t dur, uint32_t pid, uint32_t tid)
{
	begin_event(w);
	put(w, "\"name\":");
	put_string(w, name);
	fprintf(w->out, ",\"cat\":\"%s\",\"ph\":\"%c\",\"ts\":", cat, ph);
	put_ts(w, ts);
	if (ph == 'X') {
		put(w, ",\"dur\":");
		put_us(w, dur);
	} else if (ph == 'i') {
		put(w, ",\"s\":\"t\"");
	}
	fprintf(w->out, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{", pid, tid);
}

static void
end_slice(struct fsa_perfetto_writer *w)
{
	put(w, "}}");
}

/* Tracks and lanes --------------------------------------------------------------------------- */

static uint64_t
track_hash(enum track_type type, uint64_t a, uint64_t b)
{
	uint64_t h = (uint64_t) type * 0x9e3779b97f4a7c15u ^ a * 0xbf58476d1ce4e5b9u ^
		     b * 0x94d049bb133111ebu;

	return h ^ (h >> 31);
}

static fsa_status
track_index_grow(struct fsa_perfetto_writer *w)
{
	size_t capacity = w->track_index_capacity ? w->track_index_capacity * 2 : 64;
	uint32_t *index = calloc(capacity, sizeof(*index));

	if (!index)
		return FSA_ERR_NOMEM;
	for (size_t i = 0; i < w->track_count; i++) {
		const struct track *t = &w->tracks[i];
		size_t slot = track_hash(t->type, t->a, t->b) & (capacity - 1);

		while (index[slot])
			slot = (slot + 1) & (capacity - 1);
		index[slot] = (uint32_t) i + 1;
	}
	free(w->track_index);
	w->track_index = index;
	w->track_index_capacity = capacity;
	return FSA_OK;
}

static uint32_t
adapter_pid(uint32_t adapter_id)
{
	return adapter_id < PID_UNKNOWN_ADAPTER - 1 ? adapter_id + 1 : PID_UNKNOWN_ADAPTER;
}

/* Returns the track, creating it; NULL when out of memory. */
static struct track *
get_track(struct fsa_perfetto_writer *w, enum track_type type, uint64_t a, uint64_t b, uint32_t pid)
{
	size_t slot;
	struct track *t;

	if (w->track_index_capacity) {
		slot = track_hash(type, a, b) & (w->track_index_capacity - 1);
		while (w->track_index[slot]) {
			t = &w->tracks[w->track_index[slot] - 1];
			if (t->type == type && t->a == a && t->b == b)
				return t;
			slot = (slot + 1) & (w->track_index_capacity - 1);
		}
	}
	if ((w->track_count + 1) * 2 > w->track_index_capacity && track_index_grow(w) != FSA_OK)
		return NULL;
	if (w->track_count == w->track_capacity) {
		size_t capacity = w->track_capacity ? w->track_capacity * 2 : 32;
		struct track *tracks = realloc(w->tracks, capacity * sizeof(*tracks));

		if (!tracks)
			return NULL;
		w->tracks = tracks;
		w->track_capacity = capacity;
	}
	t = &w->tracks[w->track_count];
	*t = (struct track){
	    .type = type, .a = a, .b = b, .pid = pid, .order = (uint32_t) w->track_count};
	slot = track_hash(type, a, b) & (w->track_index_capacity - 1);
	while (w->track_index[slot])
		slot = (slot + 1) & (w->track_index_capacity - 1);
	w->track_index[slot] = (uint32_t) w->track_count + 1;
	w->track_count++;
	return t;
}

/* The tid of a lane of T where [begin, end] overlaps nothing; 0 when out of memory. A slice
 * outside a lane's envelope cannot overlap any slice on it, whatever order slices come in. */
static uint32_t
place(struct fsa_perfetto_writer *w, struct track *t, uint64_t begin, uint64_t end)
{
	struct lane *lane;

	for (size_t i = 0; i < t->lane_count; i++) {
		lane = &t->lanes[i];
		if (begin >= lane->max_end) {
			lane->max_end = end;
			return lane->tid;
		}
		if (end <= lane->min_begin) {
			lane->min_begin = begin;
			return lane->tid;
		}
	}
	lane = realloc(t->lanes, (t->lane_count + 1) * sizeof(*lane));
	if (!lane)
		return 0;
	t->lanes = lane;
	lane = &t->lanes[t->lane_count++];
	*lane = (struct lane){.tid = w->next_tid++, .min_begin = begin, .max_end = end};
	return lane->tid;
}

/* Instants need no lane of their own: they nest in any slice. */
static uint32_t
first_lane(struct fsa_perfetto_writer *w, struct track *t, uint64_t ts)
{
	return t->lane_count ? t->lanes[0].tid : place(w, t, ts, ts);
}

static void
see_time(struct fsa_perfetto_writer *w, uint64_t ns)
{
	if (!w->is_time_base_set) {
		const struct fsa_summary *summary =
		    w->model ? fsa_model_borrow_summary(w->model) : NULL;

		if (summary && summary->first_ns != FSA_TIME_NONE)
			w->time_base_ns = summary->first_ns - summary->first_ns % 1000000000;
		w->is_time_base_set = true;
	}
	if (ns != FSA_TIME_NONE && ns > w->max_ts)
		w->max_ts = ns;
}

/* Where what never ended is drawn to: the trace's last event when the model is known, else the
 * latest time the writer has seen. */
static uint64_t
trace_end(const struct fsa_perfetto_writer *w)
{
	const struct fsa_summary *summary = w->model ? fsa_model_borrow_summary(w->model) : NULL;

	if (summary && summary->last_ns != FSA_TIME_NONE && summary->last_ns > w->max_ts)
		return summary->last_ns;
	return w->max_ts;
}

static fsa_status
out_of_memory(struct fsa_perfetto_writer *w)
{
	free(w->error);
	w->error = strdup_printf("%s: out of memory", w->file.path);
	return FSA_ERR_NOMEM;
}

static fsa_status
check_output(struct fsa_perfetto_writer *w)
{
	if (ferror(w->out)) {
		free(w->error);
		w->error = strdup_printf("%s: cannot write: %s", w->file.path, strerror(errno));
		return FSA_ERR_IO;
	}
	return FSA_OK;
}

/* Flow arrows -------------------------------------------------------------------------------- */

static const struct cached_op *
cached(const struct fsa_perfetto_writer *w, uint64_t op_id)
{
	const struct cached_op *c = &w->op_cache[op_id & (OP_CACHE_SIZE - 1)];

	return c->is_valid && c->op_id == op_id ? c : NULL;
}

static void
put_flow(struct fsa_perfetto_writer *w, char ph, uint64_t id, const struct cached_op *c,
	 uint64_t ts)
{
	begin_event(w);
	fprintf(w->out, "\"name\":\"dependency\",\"cat\":\"dependency\",\"ph\":\"%c\",", ph);
	if (ph == 'f')
		put(w, "\"bp\":\"e\",");
	fprintf(w->out, "\"id\":%" PRIu64 ",\"ts\":", id);
	put_ts(w, ts);
	fprintf(w->out, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 "}", c->pid, c->tid);
}

/* Writes the arrow of E if both its slices are known: true when written or never possible. */
static bool
try_flow(struct fsa_perfetto_writer *w, const struct fsa_edge *e, bool is_final)
{
	const struct cached_op *s = cached(w, e->signal_op_id);
	const struct cached_op *f = cached(w, e->wait_op_id);
	/* Ids grow in the order operations close: an id at or below the highest seen whose slice
	 * is not cached will never come (evicted, or an operation without a time). */
	bool is_signal_gone = !s && w->has_op && e->signal_op_id <= w->max_op_id;
	bool is_wait_gone = !f && w->has_op && e->wait_op_id <= w->max_op_id;

	if (s && f) {
		/* An arrow never ends before it starts (issue 10: mapped times may put a wait's end
		 * before its signal's): the wait's point is near the end of its box, the signal's
		 * near the end of its own or, when that is not before the wait's, 1 ns before the
		 * wait's point but never before its box begins; else no arrow. */
		uint64_t s_ts = s->flow_ts, w_ts = f->flow_ts, id;

		if (w_ts <= s_ts) {
			s_ts = w_ts > s->begin + 1 ? w_ts - 1 : s->begin + 1;
			if (s_ts >= w_ts) {
				w->unbound_edge_count++;
				return true;
			}
		}
		id = ++w->flow_count;
		put_flow(w, 's', id, s, s_ts);
		put_flow(w, 'f', id, f, w_ts);
		return true;
	}
	if (is_final || is_signal_gone || is_wait_gone) {
		w->unbound_edge_count++;
		return true;
	}
	return false;
}

static void
retry_pending(struct fsa_perfetto_writer *w, bool is_final)
{
	size_t kept = 0;

	for (size_t i = 0; i < w->pending_count; i++)
		if (!try_flow(w, &w->pending[i], is_final))
			w->pending[kept++] = w->pending[i];
	w->pending_count = kept;
}

static fsa_status
on_edge(void *data, const struct fsa_edge *e)
{
	struct fsa_perfetto_writer *w = data;

	if (try_flow(w, e, false))
		return check_output(w);
	if (w->pending_count == PENDING_EDGES_MAX) {
		/* The oldest is the least likely to be completed. */
		w->unbound_edge_count++;
		memmove(w->pending, w->pending + 1, (PENDING_EDGES_MAX - 1) * sizeof(*w->pending));
		w->pending_count--;
	}
	w->pending[w->pending_count++] = *e;
	return FSA_OK;
}

/* Items ------------------------------------------------------------------------------------- */

static void
format_fence(char *buf, size_t size, uint64_t global_handle, uint64_t local_handle)
{
	if (global_handle)
		snprintf(buf, size, "f0x%" PRIx64, global_handle);
	else
		snprintf(buf, size, "local f0x%" PRIx64, local_handle);
}

static fsa_status
on_op(void *data, const struct fsa_op *op)
{
	struct fsa_perfetto_writer *w = data;
	uint64_t begin = op->queued_ns, end = op->end_ns, dur;
	const char *kind = fsa_op_kind_name(op->kind);
	const char *prefix = "", *cat;
	char fence[48], name[128], cat_buf[48];
	struct track *t;
	uint32_t pid, tid;
	struct cached_op *c;

	see_time(w, op->queued_ns);
	see_time(w, op->end_ns);
	switch (op->state) {
	case FSA_OP_OBSERVED:
		break;
	case FSA_OP_INFERRED:
		begin = op->inferred_begin_ns;
		end = op->inferred_end_ns;
		prefix = "inferred ";
		break;
	case FSA_OP_NEVER_COMPLETED:
		end = trace_end(w);
		prefix = op->kind == FSA_OP_WAIT ? "never unblocked " : "never executed ";
		break;
	case FSA_OP_UNQUEUED:
		begin = op->observed_ns != FSA_TIME_NONE ? op->observed_ns : op->end_ns;
		prefix = "unqueued ";
		break;
	}
	if (begin == FSA_TIME_NONE)
		begin = end;
	if (end == FSA_TIME_NONE)
		end = begin;
	if (!w->has_op || op->id > w->max_op_id)
		w->max_op_id = op->id;
	w->has_op = true;
	if (begin == FSA_TIME_NONE)
		return FSA_OK; /* no time at all: nothing to draw */
	if (end < begin) {
		/* The GPU end maps before the CPU queued time (an anomaly of its own): draw the
		 * span, the args tell which end is which. */
		uint64_t tmp = begin;

		begin = end;
		end = tmp;
	}
	dur = end - begin < FLOW_MIN_DUR_NS ? FLOW_MIN_DUR_NS : end - begin;

	if (op->source == FSA_SRC_CPU) {
		pid = PID_CPU;
		t = get_track(w, TRACK_CPU, op->process_id, 0, pid);
	} else {
		pid = adapter_pid(op->adapter_id);
		t = get_track(w, TRACK_QUEUE, op->hwqueue_handle, 0, pid);
	}
	tid = t ? place(w, t, begin, begin + dur) : 0;
	if (!tid)
		return out_of_memory(w);

	format_fence(fence, sizeof(fence), op->fence_global_handle, op->fence_handle);
	snprintf(name, sizeof(name), "%s%s %s=%" PRIu64, prefix, kind, fence, op->fence_value);
	if (op->state == FSA_OP_OBSERVED) {
		cat = kind;
	} else {
		snprintf(cat_buf, sizeof(cat_buf), "%s.%s", kind, fsa_op_state_name(op->state));
		cat = cat_buf;
	}
	begin_slice(w, name, cat, 'X', begin, dur, pid, tid);
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

	/* The phase of a user-mode wait that stalled the queue on the GPU, nested in its box. */
	if (op->kind == FSA_OP_WAIT && op->observed_ns != FSA_TIME_NONE &&
	    op->end_ns != FSA_TIME_NONE && op->observed_ns > begin &&
	    op->observed_ns < op->end_ns && op->end_ns <= begin + dur) {
		begin_slice(w, "stalled on GPU", "wait.stalled", 'X', op->observed_ns,
			    op->end_ns - op->observed_ns, pid, tid);
		fprintf(w->out, "\"id\":%" PRIu64 "", op->id);
		end_slice(w);
	}

	c = &w->op_cache[op->id & (OP_CACHE_SIZE - 1)];
	*c = (struct cached_op){.op_id = op->id,
				.is_valid = true,
				.pid = pid,
				.tid = tid,
				.begin = begin,
				.flow_ts = begin + dur - FLOW_INSET_NS};
	if (w->pending_count)
		retry_pending(w, false);
	return check_output(w);
}

static fsa_status
on_packet(void *data, const struct fsa_packet *p)
{
	struct fsa_perfetto_writer *w = data;
	uint64_t begin = p->start_ns, end = p->end_ns;
	uint32_t pid = adapter_pid(p->adapter_id), tid;
	struct track *t;
	char name[96];

	see_time(w, p->start_ns);
	see_time(w, p->end_ns);
	if (end == FSA_TIME_NONE)
		end = trace_end(w);
	if (begin == FSA_TIME_NONE)
		begin = end;
	if (begin == FSA_TIME_NONE)
		return FSA_OK;
	if (end < begin)
		end = begin;
	t = get_track(w, TRACK_ENGINE, p->adapter_id, p->engine_id, pid);
	tid = t ? place(w, t, begin, end) : 0;
	if (!tid)
		return out_of_memory(w);
	if (p->status == FSA_PACKET_COMPLETED)
		snprintf(name, sizeof(name), "packet %" PRIu64, p->packet_id);
	else
		snprintf(name, sizeof(name), "packet %" PRIu64 " (%s)", p->packet_id,
			 fsa_packet_status_name(p->status));
	begin_slice(w, name, p->is_paging ? "packet.paging" : "packet", 'X', begin, end - begin,
		    pid, tid);
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

static bool
is_interval_marker(enum fsa_marker_kind kind)
{
	return fsa_marker_kind_is_interval(kind);
}

static fsa_status
on_marker(void *data, const struct fsa_marker *m)
{
	struct fsa_perfetto_writer *w = data;
	uint32_t pid = adapter_pid(m->adapter_id), tid;
	const char *kind = fsa_marker_kind_name(m->kind);
	uint64_t begin = m->begin_ns, end = m->end_ns;
	bool is_interval = is_interval_marker(m->kind);
	struct track *t;

	see_time(w, m->begin_ns);
	see_time(w, m->end_ns);
	if (begin == FSA_TIME_NONE)
		return FSA_OK;
	if (end == FSA_TIME_NONE || end < begin)
		end = is_interval ? trace_end(w) : begin; /* still open at the end of the trace */
	if (m->kind <= FSA_MARK_DOORBELL_DESTROY || m->kind == FSA_MARK_DOORBELL_CONNECTED ||
	    m->kind == FSA_MARK_DOORBELL_STATE)
		t = m->hwqueue_handle
			? get_track(w, TRACK_QUEUE_DOORBELL, m->hwqueue_handle, 0, pid)
			: get_track(w, TRACK_ADAPTER_EVENTS, m->adapter_id, 0, pid);
	else if (m->engine_id != UINT32_MAX)
		t = get_track(w, TRACK_ENGINE_EVENTS, m->adapter_id, m->engine_id, pid);
	else
		t = get_track(w, TRACK_ADAPTER_EVENTS, m->adapter_id, 0, pid);
	if (!t)
		return out_of_memory(w);
	tid = is_interval ? place(w, t, begin, end) : first_lane(w, t, begin);
	if (!tid)
		return out_of_memory(w);
	begin_slice(w, kind, "marker", is_interval ? 'X' : 'i', begin, end - begin, pid, tid);
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
on_loss(void *data, const struct fsa_loss *l)
{
	struct fsa_perfetto_writer *w = data;
	bool is_overrun = fsa_loss_is_per_log(l->kind);
	uint32_t pid = is_overrun ? adapter_pid(l->adapter_id) : PID_TRACER, tid;
	uint64_t begin = l->begin_ns, end = l->end_ns;
	bool is_range_known = begin != FSA_TIME_NONE && end != FSA_TIME_NONE && end >= begin;
	struct track *t;
	char name[128];

	see_time(w, l->end_ns);
	if (!is_range_known) {
		/* Where the loss lies is unknown: mark it where it was reported. */
		begin = end = end != FSA_TIME_NONE     ? end
			      : begin != FSA_TIME_NONE ? begin
						       : w->max_ts;
	}
	t = is_overrun ? get_track(w, TRACK_QUEUE_LOSS, l->hwqueue_handle, 0, pid)
		       : get_track(w, TRACK_TRACER, l->cpu_id, 0, pid);
	tid = t ? place(w, t, begin, end) : 0;
	if (!tid)
		return out_of_memory(w);
	if (is_overrun)
		snprintf(name, sizeof(name), "%s: %" PRIu64 " %s entries lost",
			 l->kind == FSA_LOSS_LOG_GAP ? "log gap" : "log overrun", l->count,
			 l->log_type == FSTP_LOG_TYPE_WAITS ? "wait" : "signal");
	else
		snprintf(name, sizeof(name), "tracer discarded %" PRIu64 " %s", l->count,
			 l->kind == FSA_LOSS_TRACER_EVENTS ? "events" : "packets");
	begin_slice(w, name, "loss", is_range_known ? 'X' : 'i', begin, end - begin, pid, tid);
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
on_anomaly(void *data, const struct fsa_anomaly *a)
{
	struct fsa_perfetto_writer *w = data;
	const char *kind = fsa_anomaly_kind_name(a->kind);
	uint64_t ts;
	struct track *t = get_track(w, TRACK_ANOMALY, a->kind, 0, PID_ANOMALIES);
	uint32_t tid;

	see_time(w, a->ts_ns);
	ts = a->ts_ns != FSA_TIME_NONE ? a->ts_ns : w->max_ts;
	tid = t ? first_lane(w, t, ts) : 0;
	if (!tid)
		return out_of_memory(w);
	begin_slice(w, kind, "anomaly", 'i', ts, 0, PID_ANOMALIES, tid);
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
	status = FSA_ERR_NOMEM;
	w->op_cache = calloc(OP_CACHE_SIZE, sizeof(*w->op_cache));
	w->pending = malloc(PENDING_EDGES_MAX * sizeof(*w->pending));
	w->trace_path = info && info->trace_path ? strdup(info->trace_path) : NULL;
	w->version = info && info->fencescope_version ? strdup(info->fencescope_version) : NULL;
	if (!w->op_cache || !w->pending || (info && info->trace_path && !w->trace_path) ||
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
	w->next_tid = 1;
	w->is_first_event = true;
	/* displayTimeUnit: the viewers show nanoseconds, the unit of every *_ns arg. */
	put(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
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
	for (size_t i = 0; i < w->track_count; i++)
		free(w->tracks[i].lanes);
	free(w->tracks);
	free(w->track_index);
	free(w->op_cache);
	free(w->pending);
	free(w->queues);
	for (size_t i = 0; i < w->process_count; i++)
		free(w->processes[i].name);
	free(w->processes);
	free(w->trace_path);
	free(w->version);
	free(w->partial);
	free(w->error);
	free(w);
}

const struct fsa_model_sink *
fsa_perfetto_writer_borrow_sink(struct fsa_perfetto_writer *w)
{
	return &w->sink;
}

const char *
fsa_perfetto_writer_borrow_error(const struct fsa_perfetto_writer *w)
{
	return w->error;
}

uint64_t
fsa_perfetto_writer_unbound_edge_count(const struct fsa_perfetto_writer *w)
{
	return w->unbound_edge_count;
}

fsa_status
fsa_perfetto_writer_add_queue(struct fsa_perfetto_writer *w, const struct fsa_queue_info *q)
{
	if (w->queue_count == w->queue_capacity) {
		size_t capacity = w->queue_capacity ? w->queue_capacity * 2 : 16;
		struct queue_name *queues = realloc(w->queues, capacity * sizeof(*queues));

		if (!queues)
			return out_of_memory(w);
		w->queues = queues;
		w->queue_capacity = capacity;
	}
	w->queues[w->queue_count++].info = *q;
	return FSA_OK;
}

fsa_status
fsa_perfetto_writer_add_process(struct fsa_perfetto_writer *w, const struct fsa_process_info *p)
{
	char *name = strdup(p->name ? p->name : "");

	if (!name)
		return out_of_memory(w);
	if (w->process_count == w->process_capacity) {
		size_t capacity = w->process_capacity ? w->process_capacity * 2 : 16;
		struct process_name *processes =
		    realloc(w->processes, capacity * sizeof(*processes));

		if (!processes) {
			free(name);
			return out_of_memory(w);
		}
		w->processes = processes;
		w->process_capacity = capacity;
	}
	w->processes[w->process_count++] = (struct process_name){p->process_id, name};
	return FSA_OK;
}

void
fsa_perfetto_writer_set_time_base(struct fsa_perfetto_writer *w, uint64_t base_ns)
{
	w->time_base_ns = base_ns;
	w->is_time_base_set = true;
}

void
fsa_perfetto_writer_set_model(struct fsa_perfetto_writer *w, const struct fsa_model *model)
{
	w->model = model;
}

fsa_status
fsa_perfetto_writer_set_partial(struct fsa_perfetto_writer *w, const char *reason)
{
	free(w->partial);
	w->partial = strdup(reason ? reason : "");
	return w->partial ? FSA_OK : out_of_memory(w);
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

static const struct fsa_queue_info *
find_queue(const struct fsa_perfetto_writer *w, uint64_t handle)
{
	for (size_t i = w->queue_count; i-- > 0;)
		if (w->queues[i].info.hwqueue_handle == handle)
			return &w->queues[i].info;
	return NULL;
}

static const char *
find_process_name(const struct fsa_perfetto_writer *w, uint32_t process_id)
{
	for (size_t i = w->process_count; i-- > 0;)
		if (w->processes[i].process_id == process_id)
			return w->processes[i].name;
	return "";
}

static const char *
engine_type_name(uint8_t type)
{
#define ENGINE_TYPE_NAME_(prefix, name, value) [value] = #name,
	static const char *const names[] = {FSTP_ENGINE_TYPE(ENGINE_TYPE_NAME_, ENGINE_TYPE)};
#undef ENGINE_TYPE_NAME_

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown engine type";
}

/* The engine type of an engine, from a queue on it. */
static const char *
engine_type_of(const struct fsa_perfetto_writer *w, uint64_t adapter_id, uint64_t engine_id)
{
	for (size_t i = 0; i < w->queue_count; i++) {
		const struct fsa_queue_info *q = &w->queues[i].info;

		if (q->adapter_id == adapter_id && q->engine_id == engine_id &&
		    q->engine_type != UINT8_MAX)
			return engine_type_name(q->engine_type);
	}
	return NULL;
}

static void
format_queue(const struct fsa_perfetto_writer *w, char *buf, size_t size, uint64_t handle,
	     const char *what)
{
	const struct fsa_queue_info *q = find_queue(w, handle);

	if (!q) {
		snprintf(buf, size, "hwqueue 0x%" PRIx64 "%s", handle, what);
		return;
	}
	snprintf(buf, size,
		 "hwqueue 0x%" PRIx64 "%s · engine %" PRIu32 " %s · %s · pid %" PRIu32 " %s",
		 handle, what, q->engine_id,
		 q->engine_type != UINT8_MAX ? engine_type_name(q->engine_type) : "",
		 q->is_user_mode ? "user-mode" : "kernel-mode", q->process_id,
		 find_process_name(w, q->process_id));
}

static void
track_name(const struct fsa_perfetto_writer *w, const struct track *t, char *buf, size_t size)
{
	const char *type;

	switch (t->type) {
	case TRACK_QUEUE:
		format_queue(w, buf, size, t->a, "");
		return;
	case TRACK_QUEUE_DOORBELL:
		format_queue(w, buf, size, t->a, " doorbell");
		return;
	case TRACK_QUEUE_LOSS:
		format_queue(w, buf, size, t->a, " lost log entries");
		return;
	case TRACK_ENGINE:
	case TRACK_ENGINE_EVENTS:
		type = engine_type_of(w, t->a, t->b);
		snprintf(buf, size, "engine %" PRIu64 "%s%s%s", t->b, type ? " " : "",
			 type ? type : "", t->type == TRACK_ENGINE ? " packets" : " events");
		return;
	case TRACK_ADAPTER_EVENTS:
		snprintf(buf, size, "adapter events");
		return;
	case TRACK_CPU:
		snprintf(buf, size, "pid %" PRIu64 " %s", t->a,
			 find_process_name(w, (uint32_t) t->a));
		return;
	case TRACK_TRACER:
		if (t->a == UINT32_MAX)
			snprintf(buf, size, "discarded (cpu unknown)");
		else
			snprintf(buf, size, "discarded on cpu %" PRIu64, t->a);
		return;
	case TRACK_ANOMALY:
		snprintf(buf, size, "%s", fsa_anomaly_kind_name((enum fsa_anomaly_kind) t->a));
		return;
	}
	snprintf(buf, size, "track");
}

static void
put_metadata(struct fsa_perfetto_writer *w, const char *what, uint32_t pid, uint32_t tid,
	     const char *key, const char *text, uint64_t number)
{
	begin_event(w);
	fprintf(w->out, "\"name\":\"%s\",\"ph\":\"M\",\"ts\":0,\"pid\":%" PRIu32, what, pid);
	if (tid)
		fprintf(w->out, ",\"tid\":%" PRIu32, tid);
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
	uint32_t *pids = NULL;
	size_t count = 0;
	char name[64];

	/* The pids the tracks use, each once (tracks are few). */
	for (size_t i = 0; i < w->track_count; i++) {
		bool is_known = false;

		for (size_t j = 0; j < count && !is_known; j++)
			is_known = pids[j] == w->tracks[i].pid;
		if (is_known)
			continue;
		uint32_t *more = realloc(pids, (count + 1) * sizeof(*pids));

		if (!more)
			break;
		pids = more;
		pids[count++] = w->tracks[i].pid;
	}
	for (size_t i = 0; i < count; i++) {
		uint32_t pid = pids[i];

		if (pid == PID_CPU)
			snprintf(name, sizeof(name), "CPU waits and signals");
		else if (pid == PID_TRACER)
			snprintf(name, sizeof(name), "tracer losses");
		else if (pid == PID_ANOMALIES)
			snprintf(name, sizeof(name), "anomalies");
		else if (pid == PID_UNKNOWN_ADAPTER)
			snprintf(name, sizeof(name), "unknown adapter");
		else
			snprintf(name, sizeof(name), "adapter %" PRIu32, pid - 1);
		put_metadata(w, "process_name", pid, 0, "name", name, 0);
		put_metadata(w, "process_sort_index", pid, 0, "sort_index", NULL, pid);
	}
	free(pids);
}

fsa_status
fsa_perfetto_writer_finish(struct fsa_perfetto_writer *w, char **error_message)
{
	fsa_status status;
	char name[512], lane_name[540];

	set_error_message(error_message, NULL);
	if (w->is_finished) {
		set_error_message(error_message, "the export was already finished");
		return FSA_ERR_INVALID;
	}
	retry_pending(w, true);
	put_process_names(w);
	for (size_t i = 0; i < w->track_count; i++) {
		const struct track *t = &w->tracks[i];

		track_name(w, t, name, sizeof(name));
		for (size_t lane = 0; lane < t->lane_count; lane++) {
			if (lane)
				snprintf(lane_name, sizeof(lane_name), "%s #%zu", name, lane + 1);
			else
				snprintf(lane_name, sizeof(lane_name), "%s", name);
			put_metadata(w, "thread_name", t->pid, t->lanes[lane].tid, "name",
				     lane_name, 0);
			put_metadata(w, "thread_sort_index", t->pid, t->lanes[lane].tid,
				     "sort_index", NULL, (uint64_t) t->order * 256 + lane);
		}
	}
	put(w, "\n],\"otherData\":{\"generator\":\"fencescope export\"");
	if (w->version)
		arg_str(w, "fencescope_version", w->version);
	if (w->trace_path)
		arg_str(w, "trace_path", w->trace_path);
	if (w->partial)
		arg_str(w, "partial", w->partial);
	arg_u64(w, "time_base_ns", w->time_base_ns);
	arg_u64(w, "dependency_arrows", w->flow_count);
	arg_u64(w, "dependency_edges_without_arrow", w->unbound_edge_count);
	put(w, "}}\n");
	w->is_finished = true;
	status = check_output(w);
	if (fclose(w->out) != 0 && status == FSA_OK) {
		free(w->error);
		w->error = strdup_printf("%s: cannot write: %s", w->file.path, strerror(errno));
		status = FSA_ERR_IO;
	}
	w->out = NULL;
	if (status != FSA_OK) {
		set_error_message(error_message, w->error);
		return status;
	}
	return fsa_output_file_commit(&w->file, error_message);
}
