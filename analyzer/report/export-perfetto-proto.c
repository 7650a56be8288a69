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
 * - names, categories and debug annotation names interned (InternedData on one packet sequence
 *   whose first packet clears the incremental state), so a repeated name costs a varint.
 *
 * It streams: a packet is encoded into a reused buffer and written as the model emits its item;
 * memory holds the tracks, the interning tables, and the same bounded cache of recent operations
 * the JSON writer keeps for the arrows.
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
#include "fsa/frames.h"

#include "export-file-private.h"

#define FLOW_MIN_DUR_NS   6
#define FLOW_INSET_NS     3
#define OP_CACHE_SIZE     65536 /* a power of two */
#define PENDING_EDGES_MAX 4096
#define SEQUENCE_ID       1

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
/* track_event/track_descriptor.proto: TrackDescriptor. */
#define TRACK_UUID              1
#define TRACK_NAME              2
#define TRACK_PROCESS           3
#define TRACK_PARENT_UUID       5
#define TRACK_CHILD_ORDERING    11
#define TRACK_SIBLING_RANK      12
#define TRACK_SIBLING_MERGE     15
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

/* "Processes" that are not adapters, as in the JSON writer. */
#define PID_UNKNOWN_ADAPTER 1000000
#define PID_CPU             1000001
#define PID_TRACER          1000002
#define PID_ANOMALIES       1000003
#define PID_EXPORT          1000004
#define PROCESS_UUID(pid)   ((uint64_t) (pid) << 32)

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
	TRACK_EXPORT,         /* what the export says about itself */
	TRACK_DISPLAY,        /* a = adapter, b = display (VidPN source): frames */
};

struct lane {
	uint64_t uuid;
	uint64_t min_begin, max_end; /* the envelope of the slices placed on it */
};

struct track {
	enum track_type type;
	uint64_t a, b;
	uint32_t pid;
	uint32_t order;
	struct lane *lanes;
	size_t lane_count;
};

struct cached_op {
	uint64_t op_id;
	bool is_valid;
	uint64_t lane_uuid;
	uint64_t begin, flow_ts; /* the box's begin, and a point inside it near its end */
};

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
	struct fsa_model_sink sink;
	struct fsa_output_file file;
	FILE *out;
	char *error;
	bool is_finished;
	bool is_first_packet;
	char *trace_path, *version, *partial;

	struct pb event, packet, interned, scratch;
	struct intern_table names, categories, annotation_names;

	struct track *tracks;
	size_t track_count, track_capacity;
	uint32_t *track_index; /* open addressing over tracks (index + 1, 0 empty) */
	size_t track_index_capacity;
	uint32_t *pids; /* process tracks written */
	size_t pid_count;
	uint64_t next_uuid;
	uint64_t lane_count;

	uint64_t max_ts;
	uint64_t time_base_ns;
	bool is_time_base_set;
	const struct fsa_model *model;

	struct cached_op *op_cache;
	bool has_op;
	uint64_t max_op_id;
	struct fsa_edge *pending;
	size_t pending_count;
	uint64_t flow_count, unbound_edge_count, inverted_edge_count;
	uint64_t packet_count;
	/* Frames from the vsync and flip markers as they pass (fsa/frames.h). */
	struct fsa_frame_builder *frames;
};

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

/* Packets ----------------------------------------------------------------------------------------
 */

static fsa_status
out_of_memory(struct fsa_perfetto_proto_writer *w)
{
	free(w->error);
	w->error = strdup_printf("%s: out of memory", w->file.path);
	return FSA_ERR_NOMEM;
}

static fsa_status
check_output(struct fsa_perfetto_proto_writer *w)
{
	if (ferror(w->out)) {
		free(w->error);
		w->error = strdup_printf("%s: cannot write: %s", w->file.path, strerror(errno));
		return FSA_ERR_IO;
	}
	return FSA_OK;
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

/* Times as written: relative to the time base (docs/export.md), never negative. */
static uint64_t
rel(const struct fsa_perfetto_proto_writer *w, uint64_t ns)
{
	return ns > w->time_base_ns ? ns - w->time_base_ns : 0;
}

static fsa_status
write_event(struct fsa_perfetto_proto_writer *w, uint64_t ts)
{
	return write_packet(w, true, rel(w, ts), PACKET_TRACK_EVENT, &w->event);
}

static fsa_status
end_slice(struct fsa_perfetto_proto_writer *w, uint64_t track_uuid, uint64_t ts)
{
	begin_event(w, TYPE_SLICE_END, track_uuid, NULL, NULL);
	return write_event(w, ts);
}

/* Tracks -----------------------------------------------------------------------------------------
 */

static uint64_t
track_hash(enum track_type type, uint64_t a, uint64_t b)
{
	uint64_t h = (uint64_t) type * 0x9e3779b97f4a7c15u ^ a * 0xbf58476d1ce4e5b9u ^
		     b * 0x94d049bb133111ebu;

	return h ^ (h >> 31);
}

static uint32_t
adapter_pid(uint32_t adapter_id)
{
	return adapter_id < PID_UNKNOWN_ADAPTER - 1 ? adapter_id + 1 : PID_UNKNOWN_ADAPTER;
}

/* Process tracks have uuid PROCESS_UUID(pid); lanes count from 1, so that the uuid every event
 * carries is a short varint. */
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
	if (pid == PID_CPU)
		snprintf(name, sizeof(name), "CPU waits and signals");
	else if (pid == PID_TRACER)
		snprintf(name, sizeof(name), "tracer losses");
	else if (pid == PID_ANOMALIES)
		snprintf(name, sizeof(name), "anomalies");
	else if (pid == PID_EXPORT)
		snprintf(name, sizeof(name), "fencescope export");
	else if (pid == PID_UNKNOWN_ADAPTER)
		snprintf(name, sizeof(name), "unknown adapter");
	else
		snprintf(name, sizeof(name), "adapter %" PRIu32, pid - 1);
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

static const char *
engine_type_name(uint8_t type)
{
#define ENGINE_TYPE_NAME_(prefix, name, value) [value] = #name,
	static const char *const names[] = {FSTP_ENGINE_TYPE(ENGINE_TYPE_NAME_, ENGINE_TYPE)};
#undef ENGINE_TYPE_NAME_

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown engine type";
}

static const char *
process_name(const struct fsa_perfetto_proto_writer *w, uint32_t process_id)
{
	const struct fsa_process_info *p =
	    w->model ? fsa_model_find_process(w->model, process_id) : NULL;

	return p && p->name ? p->name : "";
}

/* The engine type of an engine, from a queue on it the model knows. */
static const char *
engine_type_of(const struct fsa_perfetto_proto_writer *w, uint64_t adapter_id, uint64_t engine_id)
{
	size_t n = w->model ? fsa_model_queue_count(w->model) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct fsa_queue_info *q = fsa_model_borrow_queue(w->model, i);

		if (q->adapter_id == adapter_id && q->engine_id == engine_id &&
		    q->engine_type != UINT8_MAX)
			return engine_type_name(q->engine_type);
	}
	return NULL;
}

static void
format_queue(const struct fsa_perfetto_proto_writer *w, char *buf, size_t size, uint64_t handle,
	     const char *what)
{
	const struct fsa_queue_info *q = w->model ? fsa_model_find_queue(w->model, handle) : NULL;

	if (!q) {
		snprintf(buf, size, "hwqueue 0x%" PRIx64 "%s", handle, what);
		return;
	}
	snprintf(buf, size,
		 "hwqueue 0x%" PRIx64 "%s · engine %" PRIu32 " %s · %s · pid %" PRIu32 " %s",
		 handle, what, q->engine_id,
		 q->engine_type != UINT8_MAX ? engine_type_name(q->engine_type) : "",
		 q->is_user_mode ? "user-mode" : "kernel-mode", q->process_id,
		 process_name(w, q->process_id));
}

/* Track names are taken from the model when the track's first lane is written: the queue, its
 * engine and process have been created by then (their events come first). */
static void
track_name(const struct fsa_perfetto_proto_writer *w, const struct track *t, char *buf, size_t size)
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
		snprintf(buf, size, "pid %" PRIu64 " %s", t->a, process_name(w, (uint32_t) t->a));
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
	case TRACK_EXPORT:
		snprintf(buf, size, "export");
		return;
	case TRACK_DISPLAY:
		snprintf(buf, size, "display %" PRIu64 " frames", t->b);
		return;
	}
	snprintf(buf, size, "track");
}

static fsa_status
track_index_grow(struct fsa_perfetto_proto_writer *w)
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

/* Returns the track, creating it; NULL when out of memory. */
static struct track *
get_track(struct fsa_perfetto_proto_writer *w, enum track_type type, uint64_t a, uint64_t b,
	  uint32_t pid)
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

/*
 * A new lane of T: a TrackDescriptor {uuid, parent_uuid = its process, name = the track's name,
 * sibling_order_rank, sibling_merge_behavior = BY_TRACK_NAME}, so that every lane of one track
 * shows as one track in the UI. Returns its uuid, 0 on failure (w->error set).
 */
static uint64_t
add_lane(struct fsa_perfetto_proto_writer *w, struct track *t, uint64_t begin, uint64_t end)
{
	struct lane *lane;
	char name[512];
	struct pb *d = &w->scratch;

	if (write_process_track(w, t->pid) != FSA_OK)
		return 0;
	lane = realloc(t->lanes, (t->lane_count + 1) * sizeof(*lane));
	if (!lane) {
		out_of_memory(w);
		return 0;
	}
	t->lanes = lane;
	lane = &t->lanes[t->lane_count++];
	*lane = (struct lane){.uuid = w->next_uuid++, .min_begin = begin, .max_end = end};
	w->lane_count++;
	track_name(w, t, name, sizeof(name));
	d->len = 0;
	pb_uint(d, TRACK_UUID, lane->uuid);
	pb_uint(d, TRACK_PARENT_UUID, PROCESS_UUID(t->pid));
	pb_string(d, TRACK_NAME, name);
	pb_uint(d, TRACK_SIBLING_RANK, t->order);
	pb_uint(d, TRACK_SIBLING_MERGE, SIBLING_MERGE_BY_NAME);
	if (write_packet(w, false, 0, PACKET_TRACK_DESCRIPTOR, d) != FSA_OK)
		return 0;
	return lane->uuid;
}

/* The uuid of a lane of T where [begin, end] overlaps nothing (see export-perfetto.c place());
 * 0 on failure. Perfetto pairs BEGIN and END by sorting them by time, ties in file order: a
 * slice placed after a lane's slices may begin where they end (its BEGIN comes later in the
 * file), one placed before them must end strictly before they begin. */
static uint64_t
place(struct fsa_perfetto_proto_writer *w, struct track *t, uint64_t begin, uint64_t end)
{
	for (size_t i = 0; i < t->lane_count; i++) {
		struct lane *lane = &t->lanes[i];

		if (begin >= lane->max_end) {
			lane->max_end = end;
			return lane->uuid;
		}
		if (end < lane->min_begin) {
			lane->min_begin = begin;
			return lane->uuid;
		}
	}
	return add_lane(w, t, begin, end);
}

/* Instants nest in any slice: the first lane. */
static uint64_t
first_lane(struct fsa_perfetto_proto_writer *w, struct track *t, uint64_t ts)
{
	return t->lane_count ? t->lanes[0].uuid : add_lane(w, t, ts, ts);
}

static fsa_status
lane_failed(struct fsa_perfetto_proto_writer *w)
{
	return w->error ? (ferror(w->out) ? FSA_ERR_IO : FSA_ERR_NOMEM) : out_of_memory(w);
}

static void
see_time(struct fsa_perfetto_proto_writer *w, uint64_t ns)
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

static uint64_t
trace_end(const struct fsa_perfetto_proto_writer *w)
{
	const struct fsa_summary *summary = w->model ? fsa_model_borrow_summary(w->model) : NULL;

	if (summary && summary->last_ns != FSA_TIME_NONE && summary->last_ns > w->max_ts)
		return summary->last_ns;
	return w->max_ts;
}

/* Flow arrows -------------------------------------------------------------------------------------
 */

static const struct cached_op *
cached(const struct fsa_perfetto_proto_writer *w, uint64_t op_id)
{
	const struct cached_op *c = &w->op_cache[op_id & (OP_CACHE_SIZE - 1)];

	return c->is_valid && c->op_id == op_id ? c : NULL;
}

/*
 * The arrow of an edge: an instant with flow_ids = [id] inside the signal's box and one with
 * terminating_flow_ids = [id] inside the wait's box. Perfetto makes the earlier of the two the
 * start, so the wait's point must come strictly after the signal's: near the end of each box,
 * and where the mapped times put the wait's end before the signal's, the signal's point moves
 * earlier in its box (never before its begin). When no such pair of points exists the edge gets
 * no arrow (counted).
 */
static fsa_status
put_flow(struct fsa_perfetto_proto_writer *w, const struct cached_op *s, const struct cached_op *f)
{
	uint64_t s_ts = s->flow_ts, w_ts = f->flow_ts, id;
	fsa_status status;

	if (w_ts <= s_ts) {
		s_ts = w_ts > s->begin + 1 ? w_ts - 1 : s->begin + 1;
		if (s_ts >= w_ts) {
			w->inverted_edge_count++;
			w->unbound_edge_count++;
			return FSA_OK;
		}
	}
	id = ++w->flow_count;
	begin_event(w, TYPE_INSTANT, s->lane_uuid, "dependency", "dependency");
	pb_fixed64(&w->event, EVENT_FLOW_IDS, id);
	status = write_event(w, s_ts);
	if (status != FSA_OK)
		return status;
	begin_event(w, TYPE_INSTANT, f->lane_uuid, "dependency", "dependency");
	pb_fixed64(&w->event, EVENT_TERMINATING_FLOW_IDS, id);
	return write_event(w, w_ts);
}

/* 1 when written or never possible, 0 when to retry later, <0 an error. */
static int
try_flow(struct fsa_perfetto_proto_writer *w, const struct fsa_edge *e, bool is_final)
{
	const struct cached_op *s = cached(w, e->signal_op_id);
	const struct cached_op *f = cached(w, e->wait_op_id);
	bool is_signal_gone = !s && w->has_op && e->signal_op_id <= w->max_op_id;
	bool is_wait_gone = !f && w->has_op && e->wait_op_id <= w->max_op_id;

	if (s && f)
		return put_flow(w, s, f) == FSA_OK ? 1 : -1;
	if (is_final || is_signal_gone || is_wait_gone) {
		w->unbound_edge_count++;
		return 1;
	}
	return 0;
}

static fsa_status
retry_pending(struct fsa_perfetto_proto_writer *w, bool is_final)
{
	size_t kept = 0;

	for (size_t i = 0; i < w->pending_count; i++) {
		int done = try_flow(w, &w->pending[i], is_final);

		if (done < 0)
			return w->error && !ferror(w->out) ? FSA_ERR_NOMEM : FSA_ERR_IO;
		if (!done)
			w->pending[kept++] = w->pending[i];
	}
	w->pending_count = kept;
	return FSA_OK;
}

static fsa_status
on_edge(void *data, const struct fsa_edge *e)
{
	struct fsa_perfetto_proto_writer *w = data;
	int done = try_flow(w, e, false);

	if (done < 0)
		return w->error && !ferror(w->out) ? FSA_ERR_NOMEM : FSA_ERR_IO;
	if (done)
		return FSA_OK;
	if (w->pending_count == PENDING_EDGES_MAX) {
		w->unbound_edge_count++;
		memmove(w->pending, w->pending + 1, (PENDING_EDGES_MAX - 1) * sizeof(*w->pending));
		w->pending_count--;
	}
	w->pending[w->pending_count++] = *e;
	return FSA_OK;
}

/* Items ---------------------------------------------------------------------------------------- */

static fsa_status
on_op(void *data, const struct fsa_op *op)
{
	struct fsa_perfetto_proto_writer *w = data;
	uint64_t begin = op->queued_ns, end = op->end_ns, dur, uuid;
	const char *kind = fsa_op_kind_name(op->kind);
	const char *prefix = "", *cat;
	char name[128], cat_buf[48];
	struct track *t;
	struct cached_op *c;
	fsa_status status;

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
		return FSA_OK;
	if (end < begin) {
		uint64_t tmp = begin;

		begin = end;
		end = tmp;
	}
	dur = end - begin < FLOW_MIN_DUR_NS ? FLOW_MIN_DUR_NS : end - begin;
	if (op->source == FSA_SRC_CPU)
		t = get_track(w, TRACK_CPU, op->process_id, 0, PID_CPU);
	else
		t = get_track(w, TRACK_QUEUE, op->hwqueue_handle, 0, adapter_pid(op->adapter_id));
	if (!t)
		return out_of_memory(w);
	uuid = place(w, t, begin, begin + dur);
	if (!uuid)
		return lane_failed(w);

	/* The name is the fence (interned: a fence's operations share it), the value an arg. */
	if (op->fence_global_handle)
		snprintf(name, sizeof(name), "%s%s f0x%" PRIx64, prefix, kind,
			 op->fence_global_handle);
	else
		snprintf(name, sizeof(name), "%s%s local f0x%" PRIx64, prefix, kind,
			 op->fence_handle);
	if (op->state == FSA_OP_OBSERVED) {
		cat = kind;
	} else {
		snprintf(cat_buf, sizeof(cat_buf), "%s.%s", kind, fsa_op_state_name(op->state));
		cat = cat_buf;
	}
	begin_event(w, TYPE_SLICE_BEGIN, uuid, name, cat);
	annotate_uint(w, "op_id", op->id);
	annotate_uint(w, "value", op->fence_value);
	if (op->signal_op_id)
		annotate_uint(w, "signal_op_id", op->signal_op_id);
	status = write_event(w, begin);
	/* The phase of a user-mode wait that stalled the queue on the GPU, nested in its box. */
	if (status == FSA_OK && op->kind == FSA_OP_WAIT && op->observed_ns != FSA_TIME_NONE &&
	    op->end_ns != FSA_TIME_NONE && op->observed_ns > begin &&
	    op->observed_ns < op->end_ns && op->end_ns <= begin + dur) {
		begin_event(w, TYPE_SLICE_BEGIN, uuid, "stalled on GPU", "wait.stalled");
		status = write_event(w, op->observed_ns);
		if (status == FSA_OK)
			status = end_slice(w, uuid, op->end_ns);
	}
	if (status == FSA_OK)
		status = end_slice(w, uuid, begin + dur);
	if (status != FSA_OK)
		return status;

	c = &w->op_cache[op->id & (OP_CACHE_SIZE - 1)];
	*c = (struct cached_op){.op_id = op->id,
				.is_valid = true,
				.lane_uuid = uuid,
				.begin = begin,
				.flow_ts = begin + dur - FLOW_INSET_NS};
	if (w->pending_count)
		return retry_pending(w, false);
	return FSA_OK;
}

static fsa_status
on_packet(void *data, const struct fsa_packet *p)
{
	struct fsa_perfetto_proto_writer *w = data;
	uint64_t begin = p->start_ns, end = p->end_ns, uuid;
	struct track *t;
	char name[64];
	fsa_status status;

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
	t = get_track(w, TRACK_ENGINE, p->adapter_id, p->engine_id, adapter_pid(p->adapter_id));
	if (!t)
		return out_of_memory(w);
	uuid = place(w, t, begin, end);
	if (!uuid)
		return lane_failed(w);
	if (p->status == FSA_PACKET_COMPLETED)
		snprintf(name, sizeof(name), "packet");
	else
		snprintf(name, sizeof(name), "packet (%s)", fsa_packet_status_name(p->status));
	begin_event(w, TYPE_SLICE_BEGIN, uuid, name, p->is_paging ? "packet.paging" : "packet");
	annotate_uint(w, "packet_id", p->packet_id);
	annotate_uint(w, "hwqueue_handle", p->hwqueue_handle);
	if (p->resubmission_of)
		annotate_uint(w, "resubmission_of", p->resubmission_of);
	status = write_event(w, begin);
	return status == FSA_OK ? end_slice(w, uuid, end) : status;
}

static fsa_status
on_marker(void *data, const struct fsa_marker *m)
{
	struct fsa_perfetto_proto_writer *w = data;
	uint32_t pid = adapter_pid(m->adapter_id);
	const char *kind = fsa_marker_kind_name(m->kind);
	uint64_t begin = m->begin_ns, end = m->end_ns, uuid;
	bool is_interval = fsa_marker_kind_is_interval(m->kind);
	struct track *t;
	fsa_status status;

	see_time(w, m->begin_ns);
	see_time(w, m->end_ns);
	if (begin == FSA_TIME_NONE)
		return FSA_OK;
	if (end == FSA_TIME_NONE || end < begin)
		end = is_interval ? trace_end(w) : begin;
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
	uuid = is_interval ? place(w, t, begin, end) : first_lane(w, t, begin);
	if (!uuid)
		return lane_failed(w);
	begin_event(w, is_interval ? TYPE_SLICE_BEGIN : TYPE_INSTANT, uuid, kind, "marker");
	annotate_uint(w, "value", m->value);
	annotate_int(w, "code", m->code);
	if (m->value2)
		annotate_uint(w, "value2", m->value2);
	if (m->code2)
		annotate_int(w, "code2", m->code2);
	if (m->other_handle)
		annotate_uint(w, "other_handle", m->other_handle);
	status = write_event(w, begin);
	if (status == FSA_OK && is_interval)
		status = end_slice(w, uuid, end);
	return status == FSA_OK ? fsa_frame_builder_add_marker(w->frames, m) : status;
}

/* A frame of fsa/frames.h (docs/analyzer.md "Frames"): a slice from the vsync of the display's
 * previous frame to the vsync that latched its flip, on the display's track. A frame without
 * both times (a display's first, a lost vsync) and a pending present are not drawn. */
static fsa_status
on_frame(void *data, const struct fsa_frame *f)
{
	struct fsa_perfetto_proto_writer *w = data;
	struct track *t;
	uint64_t uuid;
	fsa_status status;

	if (f->is_pending || f->begin_ns == FSA_TIME_NONE || f->end_ns == FSA_TIME_NONE ||
	    f->end_ns < f->begin_ns)
		return FSA_OK;
	t = get_track(w, TRACK_DISPLAY, f->adapter_id, f->source_id, adapter_pid(f->adapter_id));
	if (!t)
		return out_of_memory(w);
	uuid = place(w, t, f->begin_ns, f->end_ns);
	if (!uuid)
		return lane_failed(w);
	begin_event(w, TYPE_SLICE_BEGIN, uuid, f->missed_vsyncs ? "frame (missed vsyncs)" : "frame",
		    "frame");
	annotate_uint(w, "frame_index", f->index);
	annotate_uint(w, "flip_id", f->flip_id);
	annotate_uint(w, "vsync_count", f->vsync_count);
	annotate_uint(w, "frame_time_ns", f->frame_time_ns);
	annotate_uint(w, "missed_vsyncs", f->missed_vsyncs);
	if (f->present_latency_ns != FSA_TIME_NONE)
		annotate_uint(w, "present_latency_ns", f->present_latency_ns);
	status = write_event(w, f->begin_ns);
	return status == FSA_OK ? end_slice(w, uuid, f->end_ns) : status;
}

static fsa_status
on_loss(void *data, const struct fsa_loss *l)
{
	struct fsa_perfetto_proto_writer *w = data;
	bool is_overrun = fsa_loss_is_per_log(l->kind);
	uint32_t pid = is_overrun ? adapter_pid(l->adapter_id) : PID_TRACER;
	uint64_t begin = l->begin_ns, end = l->end_ns, uuid;
	bool is_range_known = begin != FSA_TIME_NONE && end != FSA_TIME_NONE && end >= begin;
	struct track *t;
	char name[96];
	fsa_status status;

	see_time(w, l->end_ns);
	if (!is_range_known)
		begin = end = end != FSA_TIME_NONE     ? end
			      : begin != FSA_TIME_NONE ? begin
						       : w->max_ts;
	t = is_overrun ? get_track(w, TRACK_QUEUE_LOSS, l->hwqueue_handle, 0, pid)
		       : get_track(w, TRACK_TRACER, l->cpu_id, 0, pid);
	if (!t)
		return out_of_memory(w);
	uuid = is_range_known ? place(w, t, begin, end) : first_lane(w, t, begin);
	if (!uuid)
		return lane_failed(w);
	if (is_overrun)
		snprintf(name, sizeof(name), "%s: %s entries lost",
			 l->kind == FSA_LOSS_LOG_GAP ? "log gap" : "log overrun",
			 l->log_type == FSTP_LOG_TYPE_WAITS ? "wait" : "signal");
	else
		snprintf(name, sizeof(name), "tracer discarded %s",
			 l->kind == FSA_LOSS_TRACER_EVENTS ? "events" : "packets");
	begin_event(w, is_range_known ? TYPE_SLICE_BEGIN : TYPE_INSTANT, uuid, name, "loss");
	annotate_uint(w, "count", l->count);
	if (is_overrun)
		annotate_uint(w, "inferred_ops", l->inferred_ops);
	status = write_event(w, begin);
	return status == FSA_OK && is_range_known ? end_slice(w, uuid, end) : status;
}

static fsa_status
on_anomaly(void *data, const struct fsa_anomaly *a)
{
	struct fsa_perfetto_proto_writer *w = data;
	const char *kind = fsa_anomaly_kind_name(a->kind);
	struct track *t = get_track(w, TRACK_ANOMALY, a->kind, 0, PID_ANOMALIES);
	uint64_t ts, uuid;

	see_time(w, a->ts_ns);
	ts = a->ts_ns != FSA_TIME_NONE ? a->ts_ns : w->max_ts;
	if (!t)
		return out_of_memory(w);
	uuid = first_lane(w, t, ts);
	if (!uuid)
		return lane_failed(w);
	begin_event(w, TYPE_INSTANT, uuid, kind, "anomaly");
	if (a->op_id)
		annotate_uint(w, "op_id", a->op_id);
	annotate_uint(w, "hwqueue_handle", a->hwqueue_handle);
	annotate_uint(w, "fence_global_handle", a->fence_global_handle);
	annotate_uint(w, "fence_value", a->fence_value);
	annotate_uint(w, "a", a->a);
	annotate_uint(w, "b", a->b);
	return write_event(w, ts);
}

/* Life cycle ------------------------------------------------------------------------------------
 */

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
	w->frames = fsa_frame_builder_create(on_frame, w);
	if (!w->frames)
		goto end;
	w->is_first_packet = true;
	w->next_uuid = 1; /* process tracks use PROCESS_UUID(pid) */
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
	for (size_t i = 0; i < w->track_count; i++)
		free(w->tracks[i].lanes);
	free(w->tracks);
	free(w->track_index);
	free(w->pids);
	fsa_frame_builder_destroy(w->frames);
	free(w->op_cache);
	free(w->pending);
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
	free(w->error);
	free(w);
}

const struct fsa_model_sink *
fsa_perfetto_proto_writer_borrow_sink(struct fsa_perfetto_proto_writer *w)
{
	return &w->sink;
}

const char *
fsa_perfetto_proto_writer_borrow_error(const struct fsa_perfetto_proto_writer *w)
{
	return w->error;
}

uint64_t
fsa_perfetto_proto_writer_unbound_edge_count(const struct fsa_perfetto_proto_writer *w)
{
	return w->unbound_edge_count;
}

uint64_t
fsa_perfetto_proto_writer_lane_count(const struct fsa_perfetto_proto_writer *w)
{
	return w->lane_count;
}

uint64_t
fsa_perfetto_proto_writer_track_count(const struct fsa_perfetto_proto_writer *w)
{
	return w->track_count;
}

void
fsa_perfetto_proto_writer_set_time_base(struct fsa_perfetto_proto_writer *w, uint64_t base_ns)
{
	w->time_base_ns = base_ns;
	w->is_time_base_set = true;
}

void
fsa_perfetto_proto_writer_set_model(struct fsa_perfetto_proto_writer *w,
				    const struct fsa_model *model)
{
	w->model = model;
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
	const struct fsa_summary *summary = w->model ? fsa_model_borrow_summary(w->model) : NULL;
	uint64_t ts =
	    summary && summary->first_ns != FSA_TIME_NONE ? summary->first_ns : w->time_base_ns;
	struct track *t = get_track(w, TRACK_EXPORT, 0, 0, PID_EXPORT);
	uint64_t uuid;

	see_time(w, FSA_TIME_NONE);
	if (!t)
		return out_of_memory(w);
	uuid = first_lane(w, t, ts);
	if (!uuid)
		return lane_failed(w);
	begin_event(w, TYPE_INSTANT, uuid, "fencescope export", "export");
	annotate_uint(w, "time_base_ns", w->time_base_ns);
	annotate_uint(w, "dependency_arrows", w->flow_count);
	annotate_uint(w, "dependency_edges_without_arrow", w->unbound_edge_count);
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
	status = fsa_frame_builder_finish(w->frames);
	if (status == FSA_OK)
		status = retry_pending(w, true);
	if (status == FSA_OK)
		status = write_export_info(w);
	if (status == FSA_OK)
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
