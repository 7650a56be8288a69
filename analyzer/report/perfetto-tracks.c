/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto exports' shared layer (perfetto-tracks-private.h): the model sink that places
 * every item on a track and a lane and hands it to an encoder (the JSON or the protobuf
 * writer). It is what both formats mean by a track, a lane, a name, an arrow and a time; it is
 * not an encoding (it writes no byte) and keeps no item after handing it over.
 *
 * Two rules of the viewers shape it. Slices on one track must nest, and fence boxes on one
 * queue overlap (a wait queued early ends late), so a track is split into as many lanes as it
 * needs. A flow event binds to the slice that encloses its timestamp, and a slice no longer
 * encloses its end, so an arrow is anchored a few nanoseconds before the end of its box, and
 * every box lasts at least PERFETTO_FLOW_MIN_DUR_NS so that such a point exists even after a
 * viewer rounds microseconds to nanoseconds. Memory: the tracks and lanes, a fixed-size cache
 * of recent operations for the arrows, the edges waiting for their boxes (bounded), names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fencescope-tp-enums.h"

#include "export-file-private.h"
#include "perfetto-tracks-private.h"

#define FLOW_MIN_DUR_NS   6
#define FLOW_INSET_NS     3
#define OP_CACHE_SIZE     65536 /* a power of two */
#define PENDING_EDGES_MAX 4096

/* Errors ------------------------------------------------------------------------------------ */

fsa_status
perfetto_tracks_fail(struct perfetto_tracks *pt, fsa_status status)
{
	int error = errno;

	free(pt->error);
	if (status == FSA_ERR_IO)
		pt->error = strdup_printf("%s: cannot write: %s", pt->path, strerror(error));
	else
		pt->error = strdup_printf("%s: out of memory", pt->path);
	return status;
}

/* Time ---------------------------------------------------------------------------------------- */

void
perfetto_tracks_see_time(struct perfetto_tracks *pt, uint64_t ns)
{
	if (!pt->is_time_base_set) {
		const struct fsa_summary *summary =
		    pt->model ? fsa_model_borrow_summary(pt->model) : NULL;

		if (summary && summary->first_ns != FSA_TIME_NONE)
			pt->time_base_ns = summary->first_ns - summary->first_ns % 1000000000;
		pt->is_time_base_set = true;
	}
	if (ns != FSA_TIME_NONE && ns > pt->max_ts)
		pt->max_ts = ns;
}

uint64_t
perfetto_tracks_relative(const struct perfetto_tracks *pt, uint64_t ns)
{
	return ns > pt->time_base_ns ? ns - pt->time_base_ns : 0;
}

/* Where what never ended is drawn to: the trace's last event when the model is known, else the
 * latest time seen. */
static uint64_t
trace_end(const struct perfetto_tracks *pt)
{
	const struct fsa_summary *summary = pt->model ? fsa_model_borrow_summary(pt->model) : NULL;

	if (summary && summary->last_ns != FSA_TIME_NONE && summary->last_ns > pt->max_ts)
		return summary->last_ns;
	return pt->max_ts;
}

/* Tracks and lanes ------------------------------------------------------------------------------
 */

static uint32_t
adapter_pid(uint32_t adapter_id)
{
	return adapter_id < PERFETTO_PID_UNKNOWN_ADAPTER - 1 ? adapter_id + 1
							     : PERFETTO_PID_UNKNOWN_ADAPTER;
}

struct perfetto_track *
perfetto_tracks_get(struct perfetto_tracks *pt, enum perfetto_track_type type, uint64_t a,
		    uint64_t b, uint32_t pid)
{
	uint32_t at = key_index_find(&pt->track_keys, type, a, b);
	struct perfetto_track *t;

	if (at)
		return &pt->tracks[at - 1];
	if (pt->track_count == pt->track_capacity) {
		size_t capacity = pt->track_capacity ? pt->track_capacity * 2 : 32;
		struct perfetto_track *tracks = realloc(pt->tracks, capacity * sizeof(*tracks));

		if (!tracks)
			return NULL;
		pt->tracks = tracks;
		pt->track_capacity = capacity;
	}
	if (!key_index_add(&pt->track_keys, type, a, b, (uint32_t) pt->track_count))
		return NULL;
	t = &pt->tracks[pt->track_count];
	*t = (struct perfetto_track){
	    .type = type, .a = a, .b = b, .pid = pid, .order = (uint32_t) pt->track_count};
	pt->track_count++;
	return t;
}

/* Like perfetto_tracks_get(), recording the failure. */
static fsa_status
get_track(struct perfetto_tracks *pt, enum perfetto_track_type type, uint64_t a, uint64_t b,
	  uint32_t pid, struct perfetto_track **track)
{
	*track = perfetto_tracks_get(pt, type, a, b, pid);
	return *track ? FSA_OK : perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
}

static fsa_status
add_lane(struct perfetto_tracks *pt, struct perfetto_track *t, uint64_t begin, uint64_t end,
	 uint64_t *id)
{
	struct perfetto_lane *lane = realloc(t->lanes, (t->lane_count + 1) * sizeof(*lane));

	*id = 0;
	if (!lane)
		return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
	t->lanes = lane;
	lane = &t->lanes[t->lane_count++];
	*lane =
	    (struct perfetto_lane){.id = ++pt->next_lane_id, .min_begin = begin, .max_end = end};
	pt->lane_count++;
	if (pt->encoder->lane_added) {
		fsa_status status = pt->encoder->lane_added(pt->encoder_data, t, lane);

		if (status != FSA_OK)
			return status;
	}
	*id = lane->id;
	return FSA_OK;
}

/* The lane of T where [begin, end] overlaps nothing. A slice outside a lane's envelope cannot
 * overlap any slice on it, whatever order slices come in; one placed before a lane's slices
 * must end before they begin (strictly, unless the encoder allows touching). */
static fsa_status
place(struct perfetto_tracks *pt, struct perfetto_track *t, uint64_t begin, uint64_t end,
      uint64_t *id)
{
	bool may_touch = pt->encoder->may_end_at_later_begin;

	for (size_t i = 0; i < t->lane_count; i++) {
		struct perfetto_lane *lane = &t->lanes[i];

		if (begin >= lane->max_end) {
			lane->max_end = end;
			*id = lane->id;
			return FSA_OK;
		}
		if (end < lane->min_begin || (may_touch && end == lane->min_begin)) {
			lane->min_begin = begin;
			*id = lane->id;
			return FSA_OK;
		}
	}
	return add_lane(pt, t, begin, end, id);
}

fsa_status
perfetto_tracks_first_lane(struct perfetto_tracks *pt, struct perfetto_track *t, uint64_t ts,
			   uint64_t *id)
{
	/* Instants need no lane of their own: they nest in any slice. */
	if (t->lane_count) {
		*id = t->lanes[0].id;
		return FSA_OK;
	}
	return add_lane(pt, t, ts, ts, id);
}

/* Names --------------------------------------------------------------------------------------- */

fsa_status
perfetto_tracks_add_queue(struct perfetto_tracks *pt, const struct fsa_queue_info *q)
{
	if (pt->queue_count == pt->queue_capacity) {
		size_t capacity = pt->queue_capacity ? pt->queue_capacity * 2 : 16;
		struct fsa_queue_info *queues = realloc(pt->queues, capacity * sizeof(*queues));

		if (!queues)
			return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
		pt->queues = queues;
		pt->queue_capacity = capacity;
	}
	pt->queues[pt->queue_count++] = *q;
	return FSA_OK;
}

fsa_status
perfetto_tracks_add_process(struct perfetto_tracks *pt, const struct fsa_process_info *p)
{
	char *name = strdup(p->name ? p->name : "");

	if (!name)
		return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
	if (pt->process_count == pt->process_capacity) {
		size_t capacity = pt->process_capacity ? pt->process_capacity * 2 : 16;
		struct perfetto_process_name *processes =
		    realloc(pt->processes, capacity * sizeof(*processes));

		if (!processes) {
			free(name);
			return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
		}
		pt->processes = processes;
		pt->process_capacity = capacity;
	}
	pt->processes[pt->process_count++] = (struct perfetto_process_name){p->process_id, name};
	return FSA_OK;
}

/* Queues: those given, the latest of a handle first; else the model's. */
static const struct fsa_queue_info *
find_queue(const struct perfetto_tracks *pt, uint64_t handle)
{
	if (!pt->queue_count)
		return pt->model ? fsa_model_find_queue(pt->model, handle) : NULL;
	for (size_t i = pt->queue_count; i-- > 0;)
		if (pt->queues[i].hwqueue_handle == handle)
			return &pt->queues[i];
	return NULL;
}

static size_t
queue_count(const struct perfetto_tracks *pt)
{
	if (pt->queue_count)
		return pt->queue_count;
	return pt->model ? fsa_model_queue_count(pt->model) : 0;
}

static const struct fsa_queue_info *
queue_at(const struct perfetto_tracks *pt, size_t i)
{
	return pt->queue_count ? &pt->queues[i] : fsa_model_borrow_queue(pt->model, i);
}

static const char *
process_name(const struct perfetto_tracks *pt, uint32_t process_id)
{
	const struct fsa_process_info *p;

	if (pt->process_count) {
		for (size_t i = pt->process_count; i-- > 0;)
			if (pt->processes[i].process_id == process_id)
				return pt->processes[i].name;
		return "";
	}
	p = pt->model ? fsa_model_find_process(pt->model, process_id) : NULL;
	return p && p->name ? p->name : "";
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
engine_type_of(const struct perfetto_tracks *pt, uint64_t adapter_id, uint64_t engine_id)
{
	size_t n = queue_count(pt);

	for (size_t i = 0; i < n; i++) {
		const struct fsa_queue_info *q = queue_at(pt, i);

		if (q->adapter_id == adapter_id && q->engine_id == engine_id &&
		    q->engine_type != UINT8_MAX)
			return engine_type_name(q->engine_type);
	}
	return NULL;
}

static void
format_queue(const struct perfetto_tracks *pt, char *buf, size_t size, uint64_t handle,
	     const char *what)
{
	const struct fsa_queue_info *q = find_queue(pt, handle);

	if (!q) {
		snprintf(buf, size, "hwqueue 0x%" PRIx64 "%s", handle, what);
		return;
	}
	snprintf(buf, size,
		 "hwqueue 0x%" PRIx64 "%s · engine %" PRIu32 " %s · %s · pid %" PRIu32 " %s",
		 handle, what, q->engine_id,
		 q->engine_type != UINT8_MAX ? engine_type_name(q->engine_type) : "",
		 q->is_user_mode ? "user-mode" : "kernel-mode", q->process_id,
		 process_name(pt, q->process_id));
}

void
perfetto_tracks_track_name(const struct perfetto_tracks *pt, const struct perfetto_track *t,
			   char *buf, size_t size)
{
	const char *type;

	switch (t->type) {
	case PERFETTO_TRACK_QUEUE:
		format_queue(pt, buf, size, t->a, "");
		return;
	case PERFETTO_TRACK_QUEUE_DOORBELL:
		format_queue(pt, buf, size, t->a, " doorbell");
		return;
	case PERFETTO_TRACK_QUEUE_LOSS:
		format_queue(pt, buf, size, t->a, " lost log entries");
		return;
	case PERFETTO_TRACK_ENGINE:
	case PERFETTO_TRACK_ENGINE_EVENTS:
		type = engine_type_of(pt, t->a, t->b);
		snprintf(buf, size, "engine %" PRIu64 "%s%s%s", t->b, type ? " " : "",
			 type ? type : "",
			 t->type == PERFETTO_TRACK_ENGINE ? " packets" : " events");
		return;
	case PERFETTO_TRACK_ADAPTER_EVENTS:
		snprintf(buf, size, "adapter events");
		return;
	case PERFETTO_TRACK_CPU:
		snprintf(buf, size, "pid %" PRIu64 " %s", t->a, process_name(pt, (uint32_t) t->a));
		return;
	case PERFETTO_TRACK_TRACER:
		if (t->a == UINT32_MAX)
			snprintf(buf, size, "discarded (cpu unknown)");
		else
			snprintf(buf, size, "discarded on cpu %" PRIu64, t->a);
		return;
	case PERFETTO_TRACK_ANOMALY:
		snprintf(buf, size, "%s", fsa_anomaly_kind_name((enum fsa_anomaly_kind) t->a));
		return;
	case PERFETTO_TRACK_EXPORT:
		snprintf(buf, size, "export");
		return;
	case PERFETTO_TRACK_DISPLAY:
		snprintf(buf, size, "display %" PRIu64 " frames", t->b);
		return;
	}
	snprintf(buf, size, "track");
}

void
perfetto_process_name(uint32_t pid, char *buf, size_t size)
{
	if (pid == PERFETTO_PID_CPU)
		snprintf(buf, size, "CPU waits and signals");
	else if (pid == PERFETTO_PID_TRACER)
		snprintf(buf, size, "tracer losses");
	else if (pid == PERFETTO_PID_ANOMALIES)
		snprintf(buf, size, "anomalies");
	else if (pid == PERFETTO_PID_EXPORT)
		snprintf(buf, size, "fencescope export");
	else if (pid == PERFETTO_PID_UNKNOWN_ADAPTER)
		snprintf(buf, size, "unknown adapter");
	else
		snprintf(buf, size, "adapter %" PRIu32, pid - 1);
}

void
perfetto_format_fence(char *buf, size_t size, uint64_t global_handle, uint64_t local_handle)
{
	if (global_handle)
		snprintf(buf, size, "f0x%" PRIx64, global_handle);
	else
		snprintf(buf, size, "local f0x%" PRIx64, local_handle);
}

/* Flow arrows ---------------------------------------------------------------------------------- */

static const struct perfetto_cached_op *
cached(const struct perfetto_tracks *pt, uint64_t op_id)
{
	const struct perfetto_cached_op *c = &pt->op_cache[op_id & (OP_CACHE_SIZE - 1)];

	return c->is_valid && c->op_id == op_id ? c : NULL;
}

/*
 * An arrow never ends before it starts (issue 10: mapped times may put a wait's end before its
 * signal's): the wait's point is near the end of its box, the signal's near the end of its own
 * or, when that is not before the wait's, 1 ns before the wait's point but never before its
 * box begins; else no arrow (counted).
 */
static fsa_status
put_flow(struct perfetto_tracks *pt, const struct perfetto_cached_op *s,
	 const struct perfetto_cached_op *f)
{
	uint64_t s_ts = s->flow_ts, w_ts = f->flow_ts;

	if (w_ts <= s_ts) {
		s_ts = w_ts > s->begin + 1 ? w_ts - 1 : s->begin + 1;
		if (s_ts >= w_ts) {
			pt->unbound_edge_count++;
			return FSA_OK;
		}
	}
	return pt->encoder->flow(
	    pt->encoder_data, ++pt->flow_count,
	    &(struct perfetto_span){.pid = s->pid, .lane = s->lane, .begin = s_ts, .end = s_ts},
	    &(struct perfetto_span){.pid = f->pid, .lane = f->lane, .begin = w_ts, .end = w_ts});
}

/* Writes the arrow of E if both its boxes are known: *IS_DONE when written or never possible. */
static fsa_status
try_flow(struct perfetto_tracks *pt, const struct fsa_edge *e, bool is_final, bool *is_done)
{
	const struct perfetto_cached_op *s = cached(pt, e->signal_op_id);
	const struct perfetto_cached_op *f = cached(pt, e->wait_op_id);
	/* Ids grow in the order operations close: an id at or below the highest seen whose box
	 * is not cached will never come (evicted, or an operation without a time). */
	bool is_signal_gone = !s && pt->has_op && e->signal_op_id <= pt->max_op_id;
	bool is_wait_gone = !f && pt->has_op && e->wait_op_id <= pt->max_op_id;

	*is_done = true;
	if (s && f)
		return put_flow(pt, s, f);
	if (is_final || is_signal_gone || is_wait_gone)
		pt->unbound_edge_count++;
	else
		*is_done = false;
	return FSA_OK;
}

static fsa_status
retry_pending(struct perfetto_tracks *pt, bool is_final)
{
	size_t kept = 0;
	fsa_status status = FSA_OK;

	for (size_t i = 0; i < pt->pending_count; i++) {
		bool is_done = true;

		if (status == FSA_OK)
			status = try_flow(pt, &pt->pending[i], is_final, &is_done);
		if (!is_done)
			pt->pending[kept++] = pt->pending[i];
	}
	pt->pending_count = kept;
	return status;
}

static fsa_status
on_edge(void *data, const struct fsa_edge *e)
{
	struct perfetto_tracks *pt = data;
	bool is_done;
	fsa_status status = try_flow(pt, e, false, &is_done);

	if (status != FSA_OK || is_done)
		return status;
	if (pt->pending_count == PENDING_EDGES_MAX) {
		/* The oldest is the least likely to be completed. */
		pt->unbound_edge_count++;
		memmove(pt->pending, pt->pending + 1,
			(PENDING_EDGES_MAX - 1) * sizeof(*pt->pending));
		pt->pending_count--;
	}
	pt->pending[pt->pending_count++] = *e;
	return FSA_OK;
}

/* Items -----------------------------------------------------------------------------------------
 */

static fsa_status
on_op(void *data, const struct fsa_op *op)
{
	struct perfetto_tracks *pt = data;
	uint64_t begin = op->queued_ns, end = op->end_ns, dur, lane;
	const char *kind = fsa_op_kind_name(op->kind);
	char category[48];
	struct perfetto_op_box box = {.prefix = "", .category = kind};
	struct perfetto_track *t;
	fsa_status status;

	perfetto_tracks_see_time(pt, op->queued_ns);
	perfetto_tracks_see_time(pt, op->end_ns);
	switch (op->state) {
	case FSA_OP_OBSERVED:
		break;
	case FSA_OP_INFERRED:
		begin = op->inferred_begin_ns;
		end = op->inferred_end_ns;
		box.prefix = "inferred ";
		break;
	case FSA_OP_NEVER_COMPLETED:
		end = trace_end(pt);
		box.prefix = op->kind == FSA_OP_WAIT ? "never unblocked " : "never executed ";
		break;
	case FSA_OP_UNQUEUED:
		begin = op->observed_ns != FSA_TIME_NONE ? op->observed_ns : op->end_ns;
		box.prefix = "unqueued ";
		break;
	}
	if (begin == FSA_TIME_NONE)
		begin = end;
	if (end == FSA_TIME_NONE)
		end = begin;
	if (!pt->has_op || op->id > pt->max_op_id)
		pt->max_op_id = op->id;
	pt->has_op = true;
	if (pt->counters && perfetto_counters_add_op(pt->counters, op, begin, end) != FSA_OK)
		return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
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
	if (op->source == FSA_SRC_CPU)
		status = get_track(pt, PERFETTO_TRACK_CPU, op->process_id, 0, PERFETTO_PID_CPU, &t);
	else
		status = get_track(pt, PERFETTO_TRACK_QUEUE, op->hwqueue_handle, 0,
				   adapter_pid(op->adapter_id), &t);
	if (status == FSA_OK)
		status = place(pt, t, begin, begin + dur, &lane);
	if (status != FSA_OK)
		return status;
	box.span =
	    (struct perfetto_span){.pid = t->pid, .lane = lane, .begin = begin, .end = begin + dur};
	if (op->state != FSA_OP_OBSERVED) {
		snprintf(category, sizeof(category), "%s.%s", kind, fsa_op_state_name(op->state));
		box.category = category;
	}
	/* The phase of a user-mode wait that stalled the queue on the GPU, nested in its box. */
	box.has_stall = op->kind == FSA_OP_WAIT && op->observed_ns != FSA_TIME_NONE &&
			op->end_ns != FSA_TIME_NONE && op->observed_ns > begin &&
			op->observed_ns < op->end_ns && op->end_ns <= begin + dur;
	box.stall_begin = op->observed_ns;
	box.stall_end = op->end_ns;
	status = pt->encoder->op(pt->encoder_data, op, &box);
	if (status != FSA_OK)
		return status;

	pt->op_cache[op->id & (OP_CACHE_SIZE - 1)] =
	    (struct perfetto_cached_op){.op_id = op->id,
					.is_valid = true,
					.pid = t->pid,
					.lane = lane,
					.begin = begin,
					.flow_ts = begin + dur - FLOW_INSET_NS};
	return pt->pending_count ? retry_pending(pt, false) : FSA_OK;
}

static fsa_status
on_packet(void *data, const struct fsa_packet *p)
{
	struct perfetto_tracks *pt = data;
	uint64_t begin = p->start_ns, end = p->end_ns, lane;
	struct perfetto_track *t;
	fsa_status status;

	perfetto_tracks_see_time(pt, p->start_ns);
	perfetto_tracks_see_time(pt, p->end_ns);
	if (end == FSA_TIME_NONE)
		end = trace_end(pt);
	if (begin == FSA_TIME_NONE)
		begin = end;
	if (begin == FSA_TIME_NONE)
		return FSA_OK;
	if (end < begin)
		end = begin;
	if (pt->counters && perfetto_counters_add_packet(pt->counters, p, begin, end) != FSA_OK)
		return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
	status = get_track(pt, PERFETTO_TRACK_ENGINE, p->adapter_id, p->engine_id,
			   adapter_pid(p->adapter_id), &t);
	if (status == FSA_OK)
		status = place(pt, t, begin, end, &lane);
	if (status != FSA_OK)
		return status;
	return pt->encoder->packet(
	    pt->encoder_data, p,
	    &(struct perfetto_span){.pid = t->pid, .lane = lane, .begin = begin, .end = end});
}

static fsa_status
on_marker(void *data, const struct fsa_marker *m)
{
	struct perfetto_tracks *pt = data;
	uint32_t pid = adapter_pid(m->adapter_id);
	uint64_t begin = m->begin_ns, end = m->end_ns, lane;
	bool is_interval = fsa_marker_kind_is_interval(m->kind);
	struct perfetto_track *t;
	fsa_status status;

	perfetto_tracks_see_time(pt, m->begin_ns);
	perfetto_tracks_see_time(pt, m->end_ns);
	if (begin == FSA_TIME_NONE)
		return FSA_OK;
	if (end == FSA_TIME_NONE || end < begin)
		end = is_interval ? trace_end(pt) : begin; /* still open at the end of the trace */
	if (m->kind <= FSA_MARK_DOORBELL_DESTROY || m->kind == FSA_MARK_DOORBELL_CONNECTED ||
	    m->kind == FSA_MARK_DOORBELL_STATE)
		status = m->hwqueue_handle ? get_track(pt, PERFETTO_TRACK_QUEUE_DOORBELL,
						       m->hwqueue_handle, 0, pid, &t)
					   : get_track(pt, PERFETTO_TRACK_ADAPTER_EVENTS,
						       m->adapter_id, 0, pid, &t);
	else if (m->engine_id != UINT32_MAX)
		status = get_track(pt, PERFETTO_TRACK_ENGINE_EVENTS, m->adapter_id, m->engine_id,
				   pid, &t);
	else
		status = get_track(pt, PERFETTO_TRACK_ADAPTER_EVENTS, m->adapter_id, 0, pid, &t);
	if (status == FSA_OK)
		status = is_interval ? place(pt, t, begin, end, &lane)
				     : perfetto_tracks_first_lane(pt, t, begin, &lane);
	if (status == FSA_OK)
		status = pt->encoder->marker(
		    pt->encoder_data, m,
		    &(struct perfetto_span){.pid = pid, .lane = lane, .begin = begin, .end = end},
		    is_interval);
	if (status == FSA_OK && pt->frames)
		status = fsa_frame_builder_add_marker(pt->frames, m);
	return status;
}

/* A frame of fsa/frames.h (docs/analyzer.md "Frames"): a slice from the vsync of the display's
 * previous frame to the vsync that latched its flip, on the display's track. A frame without
 * both times (a display's first, a lost vsync) and a pending present are not drawn. */
static fsa_status
on_frame(void *data, const struct fsa_frame *f)
{
	struct perfetto_tracks *pt = data;
	struct perfetto_track *t;
	uint64_t lane;
	fsa_status status;

	if (f->is_pending || f->begin_ns == FSA_TIME_NONE || f->end_ns == FSA_TIME_NONE ||
	    f->end_ns < f->begin_ns)
		return FSA_OK;
	status = get_track(pt, PERFETTO_TRACK_DISPLAY, f->adapter_id, f->source_id,
			   adapter_pid(f->adapter_id), &t);
	if (status == FSA_OK)
		status = place(pt, t, f->begin_ns, f->end_ns, &lane);
	if (status != FSA_OK)
		return status;
	return pt->encoder->frame(
	    pt->encoder_data, f,
	    &(struct perfetto_span){
		.pid = t->pid, .lane = lane, .begin = f->begin_ns, .end = f->end_ns});
}

static fsa_status
on_loss(void *data, const struct fsa_loss *l)
{
	struct perfetto_tracks *pt = data;
	bool is_overrun = fsa_loss_is_per_log(l->kind);
	uint32_t pid = is_overrun ? adapter_pid(l->adapter_id) : PERFETTO_PID_TRACER;
	uint64_t begin = l->begin_ns, end = l->end_ns, lane;
	bool is_range_known = begin != FSA_TIME_NONE && end != FSA_TIME_NONE && end >= begin;
	struct perfetto_track *t;
	fsa_status status;

	perfetto_tracks_see_time(pt, l->end_ns);
	if (!is_range_known) {
		/* Where the loss lies is unknown: mark it where it was reported. */
		begin = end = end != FSA_TIME_NONE     ? end
			      : begin != FSA_TIME_NONE ? begin
						       : pt->max_ts;
	}
	status = is_overrun
		     ? get_track(pt, PERFETTO_TRACK_QUEUE_LOSS, l->hwqueue_handle, 0, pid, &t)
		     : get_track(pt, PERFETTO_TRACK_TRACER, l->cpu_id, 0, pid, &t);
	if (status == FSA_OK)
		status = is_range_known ? place(pt, t, begin, end, &lane)
					: perfetto_tracks_first_lane(pt, t, begin, &lane);
	if (status != FSA_OK)
		return status;
	return pt->encoder->loss(
	    pt->encoder_data, l,
	    &(struct perfetto_span){.pid = pid, .lane = lane, .begin = begin, .end = end},
	    is_range_known);
}

static fsa_status
on_anomaly(void *data, const struct fsa_anomaly *a)
{
	struct perfetto_tracks *pt = data;
	uint64_t ts, lane;
	struct perfetto_track *t;
	fsa_status status =
	    get_track(pt, PERFETTO_TRACK_ANOMALY, a->kind, 0, PERFETTO_PID_ANOMALIES, &t);

	perfetto_tracks_see_time(pt, a->ts_ns);
	ts = a->ts_ns != FSA_TIME_NONE ? a->ts_ns : pt->max_ts;
	if (status == FSA_OK)
		status = perfetto_tracks_first_lane(pt, t, ts, &lane);
	if (status != FSA_OK)
		return status;
	return pt->encoder->anomaly(
	    pt->encoder_data, a,
	    &(struct perfetto_span){
		.pid = PERFETTO_PID_ANOMALIES, .lane = lane, .begin = ts, .end = ts});
}

static fsa_status
on_fence_value(void *data, const struct fsa_fence_value *v)
{
	struct perfetto_tracks *pt = data;

	perfetto_tracks_see_time(pt, v->ts_ns);
	if (perfetto_counters_add_fence_value(pt->counters, v) != FSA_OK)
		return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
	return FSA_OK;
}

/* Counter tracks ---------------------------------------------------------------------------------
 */

static fsa_status
write_counter(void *data, enum perfetto_counter_kind kind, uint64_t a, uint64_t b,
	      uint32_t adapter_id, size_t count, const uint64_t *ns, const int64_t *values)
{
	struct perfetto_tracks *pt = data;
	char name[160];
	const char *type;
	struct perfetto_counter_track track = {
	    .pid = adapter_pid(adapter_id), .kind = kind, .name = name};
	fsa_status status;

	if (!count)
		return FSA_OK; /* a fence without a time: no track */
	track.id = ++pt->next_lane_id;
	track.order = (uint32_t) (pt->track_count + pt->counter_track_count++);
	switch (kind) {
	case PERFETTO_COUNTER_BUSY:
		type = engine_type_of(pt, a, b);
		snprintf(name, sizeof(name), "engine %" PRIu64 "%s%s busy", b, type ? " " : "",
			 type ? type : "");
		break;
	case PERFETTO_COUNTER_DEPTH:
		snprintf(name, sizeof(name), "hwqueue 0x%" PRIx64 " depth", a);
		break;
	case PERFETTO_COUNTER_FENCE:
	default:
		snprintf(name, sizeof(name), "fence 0x%" PRIx64 " CurrentValue", a);
		break;
	}
	status = pt->encoder->counter_track ? pt->encoder->counter_track(pt->encoder_data, &track)
					    : FSA_OK;
	for (size_t i = 0; i < count && status == FSA_OK; i++) {
		perfetto_tracks_see_time(pt, ns[i]);
		status = pt->encoder->counter(pt->encoder_data, &track, ns[i], values[i]);
	}
	return status;
}

fsa_status
perfetto_tracks_set_counters(struct perfetto_tracks *pt, bool has_counters)
{
	if (!has_counters) {
		perfetto_counters_free(pt->counters);
		pt->counters = NULL;
		pt->sink.fence_value = NULL;
		return FSA_OK;
	}
	if (!pt->counters)
		pt->counters = perfetto_counters_new();
	if (!pt->counters)
		return perfetto_tracks_fail(pt, FSA_ERR_NOMEM);
	pt->sink.fence_value = on_fence_value;
	return FSA_OK;
}

void
perfetto_tracks_set_counter_resolution(struct perfetto_tracks *pt, uint64_t resolution_ns)
{
	pt->counter_resolution_ns = resolution_ns;
}

/* Life cycle ------------------------------------------------------------------------------------
 */

fsa_status
perfetto_tracks_init(struct perfetto_tracks *pt, const struct perfetto_encoder *encoder,
		     void *encoder_data, const char *path)
{
	pt->encoder = encoder;
	pt->encoder_data = encoder_data;
	pt->path = path;
	pt->op_cache = calloc(OP_CACHE_SIZE, sizeof(*pt->op_cache));
	pt->pending = malloc(PENDING_EDGES_MAX * sizeof(*pt->pending));
	if (encoder->frame)
		pt->frames = fsa_frame_builder_create(on_frame, pt);
	if (!pt->op_cache || !pt->pending || (encoder->frame && !pt->frames))
		return FSA_ERR_NOMEM;
	pt->sink = (struct fsa_model_sink){
	    .data = pt,
	    .op = on_op,
	    .edge = on_edge,
	    .packet = on_packet,
	    .marker = on_marker,
	    .loss = on_loss,
	    .anomaly = on_anomaly,
	};
	return encoder->counter ? perfetto_tracks_set_counters(pt, true) : FSA_OK;
}

void
perfetto_tracks_clear(struct perfetto_tracks *pt)
{
	for (size_t i = 0; i < pt->track_count; i++)
		free(pt->tracks[i].lanes);
	free(pt->tracks);
	key_index_free(&pt->track_keys);
	free(pt->op_cache);
	free(pt->pending);
	free(pt->queues);
	for (size_t i = 0; i < pt->process_count; i++)
		free(pt->processes[i].name);
	free(pt->processes);
	fsa_frame_builder_destroy(pt->frames);
	perfetto_counters_free(pt->counters);
	free(pt->error);
}

void
perfetto_tracks_set_model(struct perfetto_tracks *pt, const struct fsa_model *model)
{
	pt->model = model;
}

void
perfetto_tracks_set_time_base(struct perfetto_tracks *pt, uint64_t base_ns)
{
	pt->time_base_ns = base_ns;
	pt->is_time_base_set = true;
}

fsa_status
perfetto_tracks_finish(struct perfetto_tracks *pt)
{
	fsa_status status = pt->frames ? fsa_frame_builder_finish(pt->frames) : FSA_OK;

	if (status == FSA_OK)
		status = retry_pending(pt, true);
	if (status == FSA_OK && pt->counters) {
		status = perfetto_counters_write(pt->counters, pt->model, pt->counter_resolution_ns,
						 write_counter, pt);
		if (status == FSA_ERR_NOMEM && !pt->error)
			perfetto_tracks_fail(pt, status);
	}
	return status;
}
