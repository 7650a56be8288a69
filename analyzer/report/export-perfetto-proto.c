/* SPDX-License-Identifier: MIT */
/*
 * `fencescope export --perfetto FILE.pftrace`: the model's timeline as a native Perfetto trace
 * (a protobuf `perfetto.protos.Trace` of TracePackets holding TrackDescriptors and TrackEvents),
 * the format ui.perfetto.dev and trace_processor read fastest and that stays small on long
 * traces (docs/export.md "Perfetto"). The JSON writer (export-perfetto.c) stays for small traces.
 *
 * What it writes:
 * - a process track per adapter (and for CPU operations, tracer losses, anomalies), and under it
 *   one named track per HWQueue, engine, doorbell, CPU waiter process…; a track whose slices
 *   overlap (a wait queued early spans the boxes after it) is split into lanes that carry the
 *   same name and parent, which the Perfetto UI merges back into one track with nested rows:
 *   the UI shows one track per queue, not one per lane;
 * - each operation, packet, interval marker and ranged loss as a TYPE_SLICE_BEGIN / END pair,
 *   instants as TYPE_INSTANT, the stalled phase of a user-mode wait as a slice nested in its box;
 * - each signal → wait edge as a flow between two instants placed inside the two boxes, the
 *   wait's never before the signal's;
 * - at the end, the counter tracks (engine busy, queue depth, fence CurrentValue) as
 *   TrackDescriptors with a CounterDescriptor and TYPE_COUNTER events;
 * - names, categories and debug annotation names interned (InternedData on one packet sequence
 *   whose first packet clears the incremental state), so a repeated name costs a varint.
 *
 * It streams: a packet is encoded into a reused buffer and written as the model emits its item;
 * memory holds the tracks, the interning tables, and the same bounded cache of recent operations
 * the JSON writer keeps for the arrows. Where each item goes (tracks, lanes, names, arrows,
 * frames, times) is decided by the layer both Perfetto writers share (perfetto-tracks.c); this
 * file is its protobuf encoder: a lane is a TrackDescriptor written when the lane is made.
 *
 * The encoder is written by hand: the messages used are a handful of varint, fixed64 and
 * length-delimited fields, and a generated library (libprotobuf-c) would add a build dependency
 * and a copy of Perfetto's .proto files for what fits in a few dozen lines. Field numbers are
 * Perfetto's (protos/perfetto/trace/…); each is cited where it is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fencescope-tp-enums.h"
#include "fsa/export-writers.h"

#include "export-file-private.h"
#include "perfetto-tracks-private.h"

#define SEQUENCE_ID 1

/* Perfetto field numbers. trace.proto: Trace. */
#define TRACE_PACKET 1
/* trace_packet.proto: TracePacket. */
#define PACKET_TIMESTAMP              8
#define PACKET_SEQUENCE_ID            10 /* trusted_packet_sequence_id */
#define PACKET_TRACK_EVENT            11
#define PACKET_INTERNED_DATA          12
#define PACKET_SEQUENCE_FLAGS         13
#define PACKET_TRACK_DESCRIPTOR       60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE   2
/* track_event/track_event.proto: TrackEvent. */
#define EVENT_CATEGORY_IIDS        3
#define EVENT_DEBUG_ANNOTATIONS    4
#define EVENT_TYPE                 9
#define EVENT_NAME_IID             10
#define EVENT_TRACK_UUID           11
#define EVENT_FLOW_IDS             47 /* fixed64 */
#define EVENT_TERMINATING_FLOW_IDS 48 /* fixed64 */
#define TYPE_SLICE_BEGIN           1
#define TYPE_SLICE_END             2
#define TYPE_INSTANT               3
#define TYPE_COUNTER               4
#define EVENT_COUNTER_VALUE        30 /* int64 */
/* track_event/track_descriptor.proto: TrackDescriptor. */
#define TRACK_UUID              1
#define TRACK_NAME              2
#define TRACK_PROCESS           3
#define TRACK_PARENT_UUID       5
#define TRACK_CHILD_ORDERING    11
#define TRACK_SIBLING_RANK      12
#define TRACK_SIBLING_MERGE     15
#define TRACK_COUNTER           8 /* CounterDescriptor: a counter track */
#define CHILD_ORDERING_EXPLICIT 3
#define SIBLING_MERGE_BY_NAME   1
/* track_event/process_descriptor.proto: ProcessDescriptor. */
#define PROCESS_PID  1
#define PROCESS_NAME 6
/* interned_data/interned_data.proto: InternedData; EventCategory, EventName and
 * DebugAnnotationName all are {iid = 1, name = 2}. */
#define INTERNED_CATEGORIES       1
#define INTERNED_NAMES            2
#define INTERNED_ANNOTATION_NAMES 3
#define INTERNED_IID              1
#define INTERNED_NAME             2
/* track_event/debug_annotation.proto: DebugAnnotation. */
#define ANNOTATION_NAME_IID 1
#define ANNOTATION_BOOL     2
#define ANNOTATION_UINT     3
#define ANNOTATION_INT      4
#define ANNOTATION_STRING   6

#define WIRE_VARINT  0
#define WIRE_FIXED64 1
#define WIRE_LEN     2

/* A growable byte buffer; is_oom once an allocation failed (then it stops growing). */
struct pb {
	uint8_t *data;
	size_t len, cap;
	bool is_oom;
};

struct intern_entry {
	char *name;
	uint64_t iid;
};

/* Strings → iid, open addressing; capacity a power of two. */
struct intern_table {
	struct intern_entry *entries;
	size_t count, capacity;
	uint64_t next_iid;
};

struct fsa_perfetto_proto_writer {
	struct perfetto_tracks tracks; /* the model sink: where each item goes */
	struct fsa_output_file file;
	FILE *out;
	bool is_finished;
	bool is_first_packet;
	char *trace_path, *version, *partial;

	struct pb event, packet, interned, scratch;
	struct intern_table names, categories, annotation_names;
	uint32_t *pids; /* process tracks written */
	size_t pid_count;
	uint64_t packet_count;
};

/* The uuid of a process track; lanes' uuids are their ids, counted from 1, so that the uuid
 * every event carries is a short varint. */
#define PROCESS_UUID(pid) ((uint64_t) (pid) << 32)

/* Encoding ------------------------------------------------------------------------------------ */

static void
pb_reserve(struct pb *b, size_t more)
{
	size_t capacity;
	uint8_t *data;

	if (b->len + more <= b->cap || b->is_oom)
		return;
	capacity = b->cap ? b->cap : 256;
	while (capacity < b->len + more)
		capacity *= 2;
	data = realloc(b->data, capacity);
	if (!data) {
		b->is_oom = true;
		return;
	}
	b->data = data;
	b->cap = capacity;
}

static size_t
varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void
pb_varint(struct pb *b, uint64_t v)
{
	pb_reserve(b, 10);
	if (b->is_oom)
		return;
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t) v;
}

static void
pb_tag(struct pb *b, uint32_t field, unsigned wire)
{
	pb_varint(b, (uint64_t) field << 3 | wire);
}

static void
pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void
pb_fixed64(struct pb *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, WIRE_FIXED64);
	pb_reserve(b, 8);
	if (b->is_oom)
		return;
	for (int i = 0; i < 8; i++)
		b->data[b->len++] = (uint8_t) (v >> (8 * i));
}

static void
pb_bytes(struct pb *b, uint32_t field, const void *data, size_t len)
{
	pb_tag(b, field, WIRE_LEN);
	pb_varint(b, len);
	pb_reserve(b, len);
	if (b->is_oom)
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

static void
pb_string(struct pb *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* Interning ------------------------------------------------------------------------------------ */

static uint64_t
string_hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t) *s) * 1099511628211u;
	return h;
}

static bool
intern_grow(struct intern_table *t)
{
	size_t capacity = t->capacity ? t->capacity * 2 : 256;
	struct intern_entry *entries = calloc(capacity, sizeof(*entries));

	if (!entries)
		return false;
	for (size_t i = 0; i < t->capacity; i++) {
		size_t slot;

		if (!t->entries[i].name)
			continue;
		slot = string_hash(t->entries[i].name) & (capacity - 1);
		while (entries[slot].name)
			slot = (slot + 1) & (capacity - 1);
		entries[slot] = t->entries[i];
	}
	free(t->entries);
	t->entries = entries;
	t->capacity = capacity;
	return true;
}

static void
intern_clear(struct intern_table *t)
{
	for (size_t i = 0; i < t->capacity; i++)
		free(t->entries[i].name);
	free(t->entries);
}

/*
 * The iid of NAME in T; a name seen for the first time gets the next iid and its definition
 * (an EventCategory, EventName or DebugAnnotationName: {iid = 1, name = 2}) is appended to the
 * packet's InternedData under FIELD. 0 when out of memory.
 */
static uint64_t
intern(struct fsa_perfetto_proto_writer *w, struct intern_table *t, uint32_t field,
       const char *name)
{
	size_t slot, name_len;
	char *copy;

	if ((t->count + 1) * 2 > t->capacity && !intern_grow(t))
		return 0;
	slot = string_hash(name) & (t->capacity - 1);
	while (t->entries[slot].name) {
		if (strcmp(t->entries[slot].name, name) == 0)
			return t->entries[slot].iid;
		slot = (slot + 1) & (t->capacity - 1);
	}
	copy = strdup(name);
	if (!copy)
		return 0;
	t->entries[slot] = (struct intern_entry){copy, ++t->next_iid};
	t->count++;
	name_len = strlen(name);
	pb_tag(&w->interned, field, WIRE_LEN);
	pb_varint(&w->interned,
		  1 + varint_size(t->next_iid) + 1 + varint_size(name_len) + name_len);
	pb_uint(&w->interned, INTERNED_IID, t->next_iid);
	pb_bytes(&w->interned, INTERNED_NAME, name, name_len);
	return t->next_iid;
}

/* Packets ----------------------------------------------------------------------------------- */

static fsa_status
out_of_memory(struct fsa_perfetto_proto_writer *w)
{
	return perfetto_tracks_fail(&w->tracks, FSA_ERR_NOMEM);
}

static fsa_status
check_output(struct fsa_perfetto_proto_writer *w)
{
	return ferror(w->out) ? perfetto_tracks_fail(&w->tracks, FSA_ERR_IO) : FSA_OK;
}

/*
 * Writes one TracePacket: [timestamp], the sequence id, the InternedData gathered since the last
 * packet, then BODY (a TrackEvent or TrackDescriptor, under FIELD). Trace.packet = 1.
 */
static fsa_status
write_packet(struct fsa_perfetto_proto_writer *w, bool has_ts, uint64_t ts, uint32_t field,
	     const struct pb *body)
{
	struct pb *p = &w->packet;

	p->len = 0;
	if (has_ts)
		pb_uint(p, PACKET_TIMESTAMP, ts);
	pb_uint(p, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	if (w->is_first_packet) {
		/* Interned data on this sequence is valid from here on. */
		pb_uint(p, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		w->is_first_packet = false;
	} else if (w->interned.len) {
		pb_uint(p, PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	}
	if (w->interned.len) {
		pb_bytes(p, PACKET_INTERNED_DATA, w->interned.data, w->interned.len);
		w->interned.len = 0;
	}
	pb_bytes(p, field, body->data, body->len);
	if (p->is_oom || body->is_oom || w->interned.is_oom)
		return out_of_memory(w);
	{
		uint8_t header[11];
		size_t n = 0;
		uint64_t len = p->len;

		header[n++] = TRACE_PACKET << 3 | WIRE_LEN;
		while (len >= 0x80) {
			header[n++] = (uint8_t) (len | 0x80);
			len >>= 7;
		}
		header[n++] = (uint8_t) len;
		fwrite(header, 1, n, w->out);
		fwrite(p->data, 1, p->len, w->out);
	}
	w->packet_count++;
	return check_output(w);
}

/* Starts a TrackEvent in w->event: type, track, and (when NAME) its interned name and category. */
static void
begin_event(struct fsa_perfetto_proto_writer *w, unsigned type, uint64_t track_uuid,
	    const char *name, const char *category)
{
	struct pb *e = &w->event;

	e->len = 0;
	pb_uint(e, EVENT_TYPE, type);
	pb_uint(e, EVENT_TRACK_UUID, track_uuid);
	if (name)
		pb_uint(e, EVENT_NAME_IID, intern(w, &w->names, INTERNED_NAMES, name));
	if (category)
		pb_uint(e, EVENT_CATEGORY_IIDS,
			intern(w, &w->categories, INTERNED_CATEGORIES, category));
}

/* A DebugAnnotation {name_iid = 1, uint_value = 3}. */
static void
annotate_uint(struct fsa_perfetto_proto_writer *w, const char *key, uint64_t v)
{
	uint64_t iid = intern(w, &w->annotation_names, INTERNED_ANNOTATION_NAMES, key);

	pb_tag(&w->event, EVENT_DEBUG_ANNOTATIONS, WIRE_LEN);
	pb_varint(&w->event, 1 + varint_size(iid) + 1 + varint_size(v));
	pb_uint(&w->event, ANNOTATION_NAME_IID, iid);
	pb_uint(&w->event, ANNOTATION_UINT, v);
}

/* A DebugAnnotation {name_iid = 1, int_value = 4}. */
static void
annotate_int(struct fsa_perfetto_proto_writer *w, const char *key, int64_t v)
{
	uint64_t iid = intern(w, &w->annotation_names, INTERNED_ANNOTATION_NAMES, key);

	pb_tag(&w->event, EVENT_DEBUG_ANNOTATIONS, WIRE_LEN);
	pb_varint(&w->event, 1 + varint_size(iid) + 1 + varint_size((uint64_t) v));
	pb_uint(&w->event, ANNOTATION_NAME_IID, iid);
	pb_uint(&w->event, ANNOTATION_INT, (uint64_t) v);
}

/* A DebugAnnotation {name_iid = 1, string_value = 6}. */
static void
annotate_string(struct fsa_perfetto_proto_writer *w, const char *key, const char *v)
{
	uint64_t iid = intern(w, &w->annotation_names, INTERNED_ANNOTATION_NAMES, key);
	size_t len = strlen(v);

	pb_tag(&w->event, EVENT_DEBUG_ANNOTATIONS, WIRE_LEN);
	pb_varint(&w->event, 1 + varint_size(iid) + 1 + varint_size(len) + len);
	pb_uint(&w->event, ANNOTATION_NAME_IID, iid);
	pb_bytes(&w->event, ANNOTATION_STRING, v, len);
}

static fsa_status
write_event(struct fsa_perfetto_proto_writer *w, uint64_t ts)
{
	return write_packet(w, true, perfetto_tracks_relative(&w->tracks, ts), PACKET_TRACK_EVENT,
			    &w->event);
}

static fsa_status
end_slice(struct fsa_perfetto_proto_writer *w, uint64_t track_uuid, uint64_t ts)
{
	begin_event(w, TYPE_SLICE_END, track_uuid, NULL, NULL);
	return write_event(w, ts);
}

/* Tracks ------------------------------------------------------------------------------------ */

/* A process track: uuid PROCESS_UUID(pid), written before its first lane. */
static fsa_status
write_process_track(struct fsa_perfetto_proto_writer *w, uint32_t pid)
{
	char name[64];
	struct pb *d = &w->scratch;
	size_t name_len;
	uint32_t *pids;

	for (size_t i = 0; i < w->pid_count; i++)
		if (w->pids[i] == pid)
			return FSA_OK;
	pids = realloc(w->pids, (w->pid_count + 1) * sizeof(*pids));
	if (!pids)
		return out_of_memory(w);
	w->pids = pids;
	w->pids[w->pid_count++] = pid;
	perfetto_process_name(pid, name, sizeof(name));
	name_len = strlen(name);
	d->len = 0;
	pb_uint(d, TRACK_UUID, PROCESS_UUID(pid));
	/* ProcessDescriptor {pid = 1, process_name = 6}. */
	pb_tag(d, TRACK_PROCESS, WIRE_LEN);
	pb_varint(d, 1 + varint_size(pid) + 1 + varint_size(name_len) + name_len);
	pb_uint(d, PROCESS_PID, pid);
	pb_bytes(d, PROCESS_NAME, name, name_len);
	pb_uint(d, TRACK_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
	return write_packet(w, false, 0, PACKET_TRACK_DESCRIPTOR, d);
}

/*
 * A new lane of a track: a TrackDescriptor {uuid, parent_uuid = its process, name = the track's
 * name, sibling_order_rank, sibling_merge_behavior = BY_TRACK_NAME}, so that every lane of one
 * track shows as one track in the UI. Track names are taken from the model when the track's
 * first lane is written: the queue, its engine and process have been created by then (their
 * events come first).
 */
static fsa_status
encode_lane(void *data, const struct perfetto_track *t, const struct perfetto_lane *lane)
{
	struct fsa_perfetto_proto_writer *w = data;
	char name[512];
	struct pb *d = &w->scratch;
	fsa_status status = write_process_track(w, t->pid);

	if (status != FSA_OK)
		return status;
	perfetto_tracks_track_name(&w->tracks, t, name, sizeof(name));
	d->len = 0;
	pb_uint(d, TRACK_UUID, lane->id);
	pb_uint(d, TRACK_PARENT_UUID, PROCESS_UUID(t->pid));
	pb_string(d, TRACK_NAME, name);
	pb_uint(d, TRACK_SIBLING_RANK, t->order);
	pb_uint(d, TRACK_SIBLING_MERGE, SIBLING_MERGE_BY_NAME);
	return write_packet(w, false, 0, PACKET_TRACK_DESCRIPTOR, d);
}

/* Items ------------------------------------------------------------------------------------- */

/*
 * The arrow of an edge: an instant with flow_ids = [id] inside the signal's box and one with
 * terminating_flow_ids = [id] inside the wait's box. Perfetto makes the earlier of the two the
 * start; the layer puts the wait's point strictly after the signal's.
 */
static fsa_status
encode_flow(void *data, uint64_t id, const struct perfetto_span *from,
	    const struct perfetto_span *to)
{
	struct fsa_perfetto_proto_writer *w = data;
	fsa_status status;

	begin_event(w, TYPE_INSTANT, from->lane, "dependency", "dependency");
	pb_fixed64(&w->event, EVENT_FLOW_IDS, id);
	status = write_event(w, from->begin);
	if (status != FSA_OK)
		return status;
	begin_event(w, TYPE_INSTANT, to->lane, "dependency", "dependency");
	pb_fixed64(&w->event, EVENT_TERMINATING_FLOW_IDS, id);
	return write_event(w, to->begin);
}

/* A slice: BEGIN at the span's begin (the event in w->event), END at its end. */
static fsa_status
write_slice(struct fsa_perfetto_proto_writer *w, const struct perfetto_span *span)
{
	fsa_status status = write_event(w, span->begin);

	return status == FSA_OK ? end_slice(w, span->lane, span->end) : status;
}

static fsa_status
encode_op(void *data, const struct fsa_op *op, const struct perfetto_op_box *box)
{
	struct fsa_perfetto_proto_writer *w = data;
	const char *kind = fsa_op_kind_name(op->kind);
	uint64_t lane = box->span.lane;
	char fence[48], name[128];
	fsa_status status;

	/* The name is the fence (interned: a fence's operations share it), the value an arg. */
	perfetto_format_fence(fence, sizeof(fence), op->fence_global_handle, op->fence_handle);
	snprintf(name, sizeof(name), "%s%s %s", box->prefix, kind, fence);
	begin_event(w, TYPE_SLICE_BEGIN, lane, name, box->category);
	annotate_uint(w, "op_id", op->id);
	annotate_uint(w, "value", op->fence_value);
	if (op->signal_op_id)
		annotate_uint(w, "signal_op_id", op->signal_op_id);
	status = write_event(w, box->span.begin);
	/* The phase of a user-mode wait that stalled the queue on the GPU, nested in its box. */
	if (status == FSA_OK && box->has_stall) {
		begin_event(w, TYPE_SLICE_BEGIN, lane, "stalled on GPU", "wait.stalled");
		status = write_event(w, box->stall_begin);
		if (status == FSA_OK)
			status = end_slice(w, lane, box->stall_end);
	}
	return status == FSA_OK ? end_slice(w, lane, box->span.end) : status;
}

static fsa_status
encode_packet(void *data, const struct fsa_packet *p, const struct perfetto_span *span)
{
	struct fsa_perfetto_proto_writer *w = data;
	char name[64];

	if (p->status == FSA_PACKET_COMPLETED)
		snprintf(name, sizeof(name), "packet");
	else
		snprintf(name, sizeof(name), "packet (%s)", fsa_packet_status_name(p->status));
	begin_event(w, TYPE_SLICE_BEGIN, span->lane, name,
		    p->is_paging ? "packet.paging" : "packet");
	annotate_uint(w, "packet_id", p->packet_id);
	annotate_uint(w, "hwqueue_handle", p->hwqueue_handle);
	if (p->resubmission_of)
		annotate_uint(w, "resubmission_of", p->resubmission_of);
	return write_slice(w, span);
}

static fsa_status
encode_marker(void *data, const struct fsa_marker *m, const struct perfetto_span *span,
	      bool is_interval)
{
	struct fsa_perfetto_proto_writer *w = data;

	begin_event(w, is_interval ? TYPE_SLICE_BEGIN : TYPE_INSTANT, span->lane,
		    fsa_marker_kind_name(m->kind), "marker");
	annotate_uint(w, "value", m->value);
	annotate_int(w, "code", m->code);
	if (m->value2)
		annotate_uint(w, "value2", m->value2);
	if (m->code2)
		annotate_int(w, "code2", m->code2);
	if (m->other_handle)
		annotate_uint(w, "other_handle", m->other_handle);
	return is_interval ? write_slice(w, span) : write_event(w, span->begin);
}

static fsa_status
encode_frame(void *data, const struct fsa_frame *f, const struct perfetto_span *span)
{
	struct fsa_perfetto_proto_writer *w = data;

	begin_event(w, TYPE_SLICE_BEGIN, span->lane,
		    f->missed_vsyncs ? "frame (missed vsyncs)" : "frame", "frame");
	annotate_uint(w, "frame_index", f->index);
	annotate_uint(w, "flip_id", f->flip_id);
	annotate_uint(w, "vsync_count", f->vsync_count);
	annotate_uint(w, "frame_time_ns", f->frame_time_ns);
	annotate_uint(w, "missed_vsyncs", f->missed_vsyncs);
	if (f->present_latency_ns != FSA_TIME_NONE)
		annotate_uint(w, "present_latency_ns", f->present_latency_ns);
	return write_slice(w, span);
}

static fsa_status
encode_loss(void *data, const struct fsa_loss *l, const struct perfetto_span *span,
	    bool is_range_known)
{
	struct fsa_perfetto_proto_writer *w = data;
	bool is_overrun = fsa_loss_is_per_log(l->kind);
	char name[96];

	if (is_overrun)
		snprintf(name, sizeof(name), "%s: %s entries lost",
			 l->kind == FSA_LOSS_LOG_GAP ? "log gap" : "log overrun",
			 l->log_type == FSTP_LOG_TYPE_WAITS ? "wait" : "signal");
	else
		snprintf(name, sizeof(name), "tracer discarded %s",
			 l->kind == FSA_LOSS_TRACER_EVENTS ? "events" : "packets");
	begin_event(w, is_range_known ? TYPE_SLICE_BEGIN : TYPE_INSTANT, span->lane, name, "loss");
	annotate_uint(w, "count", l->count);
	if (is_overrun)
		annotate_uint(w, "inferred_ops", l->inferred_ops);
	return is_range_known ? write_slice(w, span) : write_event(w, span->begin);
}

static fsa_status
encode_anomaly(void *data, const struct fsa_anomaly *a, const struct perfetto_span *span)
{
	struct fsa_perfetto_proto_writer *w = data;

	begin_event(w, TYPE_INSTANT, span->lane, fsa_anomaly_kind_name(a->kind), "anomaly");
	if (a->op_id)
		annotate_uint(w, "op_id", a->op_id);
	annotate_uint(w, "hwqueue_handle", a->hwqueue_handle);
	annotate_uint(w, "fence_global_handle", a->fence_global_handle);
	annotate_uint(w, "fence_value", a->fence_value);
	annotate_uint(w, "a", a->a);
	annotate_uint(w, "b", a->b);
	return write_event(w, span->begin);
}

/* A counter track: a TrackDescriptor {uuid, parent_uuid = its process, name, sibling_order_rank
 * after the process's other tracks, counter = CounterDescriptor {}}. */
static fsa_status
encode_counter_track(void *data, const struct perfetto_counter_track *track)
{
	struct fsa_perfetto_proto_writer *w = data;
	struct pb *d = &w->scratch;
	fsa_status status = write_process_track(w, track->pid);

	if (status != FSA_OK)
		return status;
	d->len = 0;
	pb_uint(d, TRACK_UUID, track->id);
	pb_uint(d, TRACK_PARENT_UUID, PROCESS_UUID(track->pid));
	pb_string(d, TRACK_NAME, track->name);
	pb_uint(d, TRACK_SIBLING_RANK, track->order);
	pb_bytes(d, TRACK_COUNTER, "", 0);
	return write_packet(w, false, 0, PACKET_TRACK_DESCRIPTOR, d);
}

/* A TrackEvent {type = TYPE_COUNTER, track_uuid, counter_value}: the value from TS on. */
static fsa_status
encode_counter(void *data, const struct perfetto_counter_track *track, uint64_t ts, int64_t value)
{
	struct fsa_perfetto_proto_writer *w = data;

	begin_event(w, TYPE_COUNTER, track->id, NULL, NULL);
	pb_uint(&w->event, EVENT_COUNTER_VALUE, (uint64_t) value);
	return write_event(w, ts);
}

/* Perfetto pairs BEGIN and END by sorting them by time, ties in file order: a slice placed
 * before a lane's slices must end strictly before they begin. Lanes are written as they are
 * made; frames are drawn. */
static const struct perfetto_encoder proto_encoder = {
    .may_end_at_later_begin = false,
    .lane_added = encode_lane,
    .op = encode_op,
    .packet = encode_packet,
    .marker = encode_marker,
    .loss = encode_loss,
    .anomaly = encode_anomaly,
    .frame = encode_frame,
    .flow = encode_flow,
    .counter_track = encode_counter_track,
    .counter = encode_counter,
};

/* Life cycle -------------------------------------------------------------------------------- */

fsa_status
fsa_perfetto_proto_writer_create(const char *path, bool is_overwrite,
				 const struct fsa_export_info *info,
				 struct fsa_perfetto_proto_writer **writer, char **error_message)
{
	struct fsa_perfetto_proto_writer *w = NULL;
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
	status = perfetto_tracks_init(&w->tracks, &proto_encoder, w, w->file.path);
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
	w->is_first_packet = true;
	status = FSA_OK;
end:
	if (status == FSA_ERR_NOMEM && error_message && !*error_message)
		*error_message = strdup("out of memory");
	if (status != FSA_OK) {
		fsa_perfetto_proto_writer_destroy(w);
		w = NULL;
	}
	*writer = w;
	return status;
}

void
fsa_perfetto_proto_writer_destroy(struct fsa_perfetto_proto_writer *w)
{
	if (!w)
		return;
	if (w->out)
		fclose(w->out);
	fsa_output_file_end(&w->file);
	perfetto_tracks_clear(&w->tracks);
	free(w->pids);
	free(w->event.data);
	free(w->packet.data);
	free(w->interned.data);
	free(w->scratch.data);
	intern_clear(&w->names);
	intern_clear(&w->categories);
	intern_clear(&w->annotation_names);
	free(w->trace_path);
	free(w->version);
	free(w->partial);
	free(w);
}

const struct fsa_model_sink *
fsa_perfetto_proto_writer_borrow_sink(struct fsa_perfetto_proto_writer *w)
{
	return &w->tracks.sink;
}

const char *
fsa_perfetto_proto_writer_borrow_error(const struct fsa_perfetto_proto_writer *w)
{
	return w->tracks.error;
}

uint64_t
fsa_perfetto_proto_writer_unbound_edge_count(const struct fsa_perfetto_proto_writer *w)
{
	return w->tracks.unbound_edge_count;
}

uint64_t
fsa_perfetto_proto_writer_lane_count(const struct fsa_perfetto_proto_writer *w)
{
	return w->tracks.lane_count;
}

uint64_t
fsa_perfetto_proto_writer_track_count(const struct fsa_perfetto_proto_writer *w)
{
	return w->tracks.track_count;
}

void
fsa_perfetto_proto_writer_set_time_base(struct fsa_perfetto_proto_writer *w, uint64_t base_ns)
{
	perfetto_tracks_set_time_base(&w->tracks, base_ns);
}

void
fsa_perfetto_proto_writer_set_model(struct fsa_perfetto_proto_writer *w,
				    const struct fsa_model *model)
{
	perfetto_tracks_set_model(&w->tracks, model);
}

void
fsa_perfetto_proto_writer_set_counter_resolution(struct fsa_perfetto_proto_writer *w,
						 uint64_t resolution_ns)
{
	perfetto_tracks_set_counter_resolution(&w->tracks, resolution_ns);
}

fsa_status
fsa_perfetto_proto_writer_set_counters(struct fsa_perfetto_proto_writer *w, bool has_counters)
{
	return perfetto_tracks_set_counters(&w->tracks, has_counters);
}

fsa_status
fsa_perfetto_proto_writer_set_partial(struct fsa_perfetto_proto_writer *w, const char *reason)
{
	free(w->partial);
	w->partial = strdup(reason ? reason : "");
	return w->partial ? FSA_OK : out_of_memory(w);
}

/*
 * The export's own account, as the JSON's otherData: an instant "fencescope export" on its own
 * track at the trace's first event, its args the time base, the arrow counts, the trace path,
 * the version and, for a damaged trace, `partial`.
 */
static fsa_status
write_export_info(struct fsa_perfetto_proto_writer *w)
{
	struct perfetto_tracks *pt = &w->tracks;
	const struct fsa_summary *summary = pt->model ? fsa_model_borrow_summary(pt->model) : NULL;
	uint64_t ts =
	    summary && summary->first_ns != FSA_TIME_NONE ? summary->first_ns : pt->time_base_ns;
	struct perfetto_track *t =
	    perfetto_tracks_get(pt, PERFETTO_TRACK_EXPORT, 0, 0, PERFETTO_PID_EXPORT);
	uint64_t lane;
	fsa_status status;

	perfetto_tracks_see_time(pt, FSA_TIME_NONE);
	if (!t)
		return out_of_memory(w);
	status = perfetto_tracks_first_lane(pt, t, ts, &lane);
	if (status != FSA_OK)
		return status;
	begin_event(w, TYPE_INSTANT, lane, "fencescope export", "export");
	annotate_uint(w, "time_base_ns", pt->time_base_ns);
	annotate_uint(w, "dependency_arrows", pt->flow_count);
	annotate_uint(w, "dependency_edges_without_arrow", pt->unbound_edge_count);
	if (w->trace_path)
		annotate_string(w, "trace_path", w->trace_path);
	if (w->version)
		annotate_string(w, "fencescope_version", w->version);
	if (w->partial)
		annotate_string(w, "partial", w->partial);
	return write_event(w, ts);
}

fsa_status
fsa_perfetto_proto_writer_finish(struct fsa_perfetto_proto_writer *w, char **error_message)
{
	fsa_status status;

	set_error_message(error_message, NULL);
	if (w->is_finished) {
		set_error_message(error_message, "the export was already finished");
		return FSA_ERR_INVALID;
	}
	w->is_finished = true;
	status = perfetto_tracks_finish(&w->tracks);
	if (status == FSA_OK)
		status = write_export_info(w);
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
