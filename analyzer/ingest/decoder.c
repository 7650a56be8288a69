/* SPDX-License-Identifier: MIT */
/*
 * Babeltrace 2 messages → normalized events and tracer losses (see decoder-private.h). It knows the
 * trace contract only through names: the event name gives the type (fsa_event_type_from_name), each
 * payload member name gives a slot (fsa_field_from_name), and the field class says which getter
 * reads it. It does not interpret values; the model does. Unknown members are skipped, so a
 * trace of a newer minor version (added fields) reads as far as this version knows it.
 */
#define _GNU_SOURCE /* asprintf */

#include "decoder-private.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fencescope-tp-enums.h"

enum decoder_member_kind {
	MEMBER_SKIP,
	MEMBER_UNSIGNED,
	MEMBER_SIGNED,
	MEMBER_BOOL,
	MEMBER_STRING,
	MEMBER_FENCE_HANDLES,
};

struct decoder_member {
	uint8_t kind;  /* enum decoder_member_kind */
	uint16_t slot; /* enum fsa_field, or enum fsa_string_field for MEMBER_STRING */
};

struct decoder_read {
	uint32_t index; /* in the payload structure */
	struct decoder_member member;
};

/* What one event class looks like, worked out the first time one of its events shows up. */
struct decoder_class {
	/* A reference is held so the address cannot be reused for another class while cached. */
	const bt_event_class *event_class;
	enum fsa_event_type type; /* FSA_EV_UNKNOWN: not ours, skip */
	bool has_clock;
	/* The stream class's default clock class (borrowed from the event class) and its kind. */
	const bt_clock_class *clock_class;
	uint8_t trace_clock; /* enum fsa_trace_clock */
	/* Index of `cpu_id` in the packet context, -1 when the stream class has none. */
	int64_t cpu_id_index;
	uint64_t member_count;
	struct decoder_member *members;
	/* The members to read, by payload index: the unsigned integers first (most members: one
	 * tight loop, no switch), then the others; skipped members are not listed. */
	struct decoder_read *reads;
	uint32_t read_count, unsigned_count;
	/* Integer slots this class sets, to clear them before the next event of another class. */
	uint16_t *slots;
	uint32_t slot_count;
	uint64_t present[FSA_FIELD_WORDS];
	/* The consumer does not need this type's fields (fsa_decoder_set_payload_filter). */
	bool skips_payload;
};

/* A table slot keeps its key beside the class: a probe reads no class it does not return. */
struct decoder_slot {
	const bt_event_class *key; /* NULL: free */
	struct decoder_class *cls;
};

/* Streams → the `cpu_id` of their current packet, for discarded-events messages, and their
 * ordinal in order mode. */
struct decoder_stream {
	const bt_stream *stream;
	uint32_t cpu_id;
	uint32_t ordinal;
};

struct fsa_decoder {
	/* Open addressing, linear probing, keyed by event class address; never shrinks. */
	struct decoder_slot *table;
	size_t table_capacity; /* a power of two */
	size_t class_count;
	struct decoder_class *last_class;
	/* The class of the event now in `event`, whose slots must be cleared before reuse. */
	struct decoder_class *event_class;
	struct fsa_event event;
	uint64_t *fence_handles;
	size_t fence_handle_capacity;
	struct decoder_stream *streams;
	size_t stream_count, stream_capacity;
	struct fsa_ingest_stats stats;
	uint64_t last_ts;
	bool (*needs_payload)(enum fsa_event_type type);
	/* fsa_decoder_set_present_only(): slots not present are not cleared. */
	bool is_present_only;
	/* The packet whose `cpu_id` was read last (only compared, never dereferenced). */
	const bt_packet *cpu_packet;
	int64_t cpu_index;
	uint32_t cpu_id;
	/* Order mode (fsa_decoder_set_order): the muxer's time of the last message (its
	 * last_returned_ts_ns), the order of the last event or discard, the last stream begun, and
	 * the stream and the packet of the last event (only compared, never dereferenced). */
	bool is_ordered;
	int64_t order_last_ts;
	struct fsa_decoder_order order;
	struct fsa_decoder_stream_key stream_key;
	uint32_t next_ordinal;
	const bt_stream *order_stream;
	const bt_packet *order_packet;
	uint32_t order_stream_ordinal;
	/* fsa_decoder_set_muxer_checks(): no muxer upstream, make its time checks here. */
	bool is_muxer_checked;
};

static const char *const string_field_names[FSA_S_COUNT] = {
    [FSA_S_RUNTIME_VERSION] = "runtime_version",
    [FSA_S_NAME] = "name",
    [FSA_S_CALL] = "call",
};

static size_t
decoder_hash(const void *key, size_t capacity)
{
	uint64_t h = (uint64_t) (uintptr_t) key;

	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return (size_t) h & (capacity - 1);
}

static void
decoder_class_destroy(struct decoder_class *cls)
{
	if (!cls)
		return;
	bt_event_class_put_ref(cls->event_class);
	free(cls->members);
	free(cls->reads);
	free(cls->slots);
	free(cls);
}

struct fsa_decoder *
fsa_decoder_create(void)
{
	struct fsa_decoder *decoder = calloc(1, sizeof(*decoder));

	if (!decoder)
		return NULL;
	decoder->table_capacity = 128;
	decoder->table = calloc(decoder->table_capacity, sizeof(*decoder->table));
	if (!decoder->table) {
		free(decoder);
		return NULL;
	}
	fsa_event_clear(&decoder->event);
	decoder->last_ts = FSA_TIME_NONE;
	decoder->order_last_ts = INT64_MIN;
	return decoder;
}

void
fsa_decoder_destroy(struct fsa_decoder *decoder)
{
	if (!decoder)
		return;
	for (size_t i = 0; i < decoder->table_capacity; i++)
		decoder_class_destroy(decoder->table[i].cls);
	free(decoder->table);
	free(decoder->fence_handles);
	free(decoder->streams);
	free(decoder);
}

void
fsa_decoder_set_payload_filter(struct fsa_decoder *decoder,
			       bool (*needs_payload)(enum fsa_event_type type))
{
	decoder->needs_payload = needs_payload;
}

void
fsa_decoder_set_present_only(struct fsa_decoder *decoder, bool is_present_only)
{
	decoder->is_present_only = is_present_only;
}

void
fsa_decoder_set_order(struct fsa_decoder *decoder, bool is_ordered)
{
	decoder->is_ordered = is_ordered;
}

void
fsa_decoder_set_muxer_checks(struct fsa_decoder *decoder, bool is_muxer_checked)
{
	decoder->is_muxer_checked = is_muxer_checked;
}

const struct fsa_decoder_order *
fsa_decoder_order(const struct fsa_decoder *decoder)
{
	return &decoder->order;
}

const struct fsa_decoder_stream_key *
fsa_decoder_stream_key(const struct fsa_decoder *decoder)
{
	return &decoder->stream_key;
}

const struct fsa_ingest_stats *
fsa_decoder_borrow_stats(const struct fsa_decoder *decoder)
{
	return &decoder->stats;
}

uint64_t
fsa_decoder_last_ts(const struct fsa_decoder *decoder)
{
	return decoder->last_ts;
}

static fsa_status
decoder_table_insert(struct fsa_decoder *decoder, struct decoder_class *cls)
{
	size_t i;

	/* Keep the load under one half. */
	if ((decoder->class_count + 1) * 2 > decoder->table_capacity) {
		size_t capacity = decoder->table_capacity * 2;
		struct decoder_slot *table = calloc(capacity, sizeof(*table));

		if (!table)
			return FSA_ERR_NOMEM;
		for (size_t j = 0; j < decoder->table_capacity; j++) {
			const struct decoder_slot *old = &decoder->table[j];

			if (!old->key)
				continue;
			i = decoder_hash(old->key, capacity);
			while (table[i].key)
				i = (i + 1) & (capacity - 1);
			table[i] = *old;
		}
		free(decoder->table);
		decoder->table = table;
		decoder->table_capacity = capacity;
	}
	i = decoder_hash(cls->event_class, decoder->table_capacity);
	while (decoder->table[i].key)
		i = (i + 1) & (decoder->table_capacity - 1);
	decoder->table[i] = (struct decoder_slot){.key = cls->event_class, .cls = cls};
	decoder->class_count++;
	return FSA_OK;
}

static bool
decoder_is_fence_handles(const bt_field_class *fc, const char *name)
{
	const bt_field_class *element;

	if (strcmp(name, "fence_handles") != 0 ||
	    !bt_field_class_type_is(bt_field_class_get_type(fc), BT_FIELD_CLASS_TYPE_ARRAY))
		return false;
	element = bt_field_class_array_borrow_element_field_class_const(fc);
	return bt_field_class_type_is(bt_field_class_get_type(element),
				      BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER);
}

/* The payload member `name` of class `fc` → how to read it. */
static struct decoder_member
decoder_member_classify(const bt_field_class *fc, const char *name)
{
	bt_field_class_type type = bt_field_class_get_type(fc);
	struct decoder_member member = {.kind = MEMBER_SKIP};
	int slot;

	if (type == BT_FIELD_CLASS_TYPE_STRING) {
		for (int s = 0; s < FSA_S_COUNT; s++) {
			if (strcmp(string_field_names[s], name) == 0) {
				member.kind = MEMBER_STRING;
				member.slot = (uint16_t) s;
			}
		}
		return member;
	}
	if (decoder_is_fence_handles(fc, name)) {
		member.kind = MEMBER_FENCE_HANDLES;
		return member;
	}
	slot = fsa_field_from_name(name);
	if (slot < 0)
		return member;
	member.slot = (uint16_t) slot;
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		member.kind = MEMBER_UNSIGNED;
	else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		member.kind = MEMBER_SIGNED;
	else if (type == BT_FIELD_CLASS_TYPE_BOOL)
		member.kind = MEMBER_BOOL;
	return member;
}

/* Where the stream class's packet context keeps `cpu_id` (an unsigned integer), or -1. */
static int64_t
decoder_cpu_id_index(const bt_stream_class *stream_class)
{
	const bt_field_class *ctx =
	    bt_stream_class_borrow_packet_context_field_class_const(stream_class);
	uint64_t count;

	if (!ctx || bt_field_class_get_type(ctx) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	count = bt_field_class_structure_get_member_count(ctx);
	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_structure_member *member =
		    bt_field_class_structure_borrow_member_by_index_const(ctx, i);
		const bt_field_class *fc =
		    bt_field_class_structure_member_borrow_field_class_const(member);

		if (strcmp(bt_field_class_structure_member_get_name(member), "cpu_id") == 0 &&
		    bt_field_class_type_is(bt_field_class_get_type(fc),
					   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return (int64_t) i;
	}
	return -1;
}

/* Which clock stamped the stream, by its clock class's name (docs/trace-format.md "Time"). */
static uint8_t
decoder_trace_clock(const bt_clock_class *clock_class)
{
	const char *name = clock_class ? bt_clock_class_get_name(clock_class) : NULL;

	if (!name)
		return FSA_TRACE_CLOCK_OTHER;
	if (strcmp(name, "monotonic") == 0)
		return FSA_TRACE_CLOCK_MONOTONIC;
	if (strcmp(name, "fencescope_sim") == 0)
		return FSA_TRACE_CLOCK_SIM;
	return FSA_TRACE_CLOCK_OTHER;
}

static fsa_status
decoder_class_build(const bt_event_class *event_class, struct decoder_class **out)
{
	const bt_stream_class *stream_class = bt_event_class_borrow_stream_class_const(event_class);
	const char *name = bt_event_class_get_name(event_class);
	const bt_field_class *payload =
	    bt_event_class_borrow_payload_field_class_const(event_class);
	struct decoder_class *cls = calloc(1, sizeof(*cls));
	fsa_status status = FSA_ERR_NOMEM;

	if (!cls)
		goto end;
	cls->event_class = event_class;
	bt_event_class_get_ref(event_class);
	cls->cpu_id_index = decoder_cpu_id_index(stream_class);
	cls->clock_class = bt_stream_class_borrow_default_clock_class_const(stream_class);
	cls->has_clock = cls->clock_class != NULL;
	cls->trace_clock = decoder_trace_clock(cls->clock_class);
	/* Only the fencescope_* providers are ours: another provider's event that happens to be
	 * called like one of ours must not be taken for it. */
	if (name && strncmp(name, "fencescope_", strlen("fencescope_")) == 0 && strchr(name, ':'))
		cls->type = fsa_event_type_from_name(name);
	if (cls->type != FSA_EV_UNKNOWN && payload &&
	    bt_field_class_get_type(payload) == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		uint64_t count = bt_field_class_structure_get_member_count(payload);

		cls->members = calloc(count ? count : 1, sizeof(*cls->members));
		cls->slots = calloc(count ? count : 1, sizeof(*cls->slots));
		cls->reads = calloc(count ? count : 1, sizeof(*cls->reads));
		if (!cls->members || !cls->slots || !cls->reads)
			goto end;
		cls->member_count = count;
		for (uint64_t i = 0; i < count; i++) {
			const bt_field_class_structure_member *member =
			    bt_field_class_structure_borrow_member_by_index_const(payload, i);
			struct decoder_member m = decoder_member_classify(
			    bt_field_class_structure_member_borrow_field_class_const(member),
			    bt_field_class_structure_member_get_name(member));

			cls->members[i] = m;
			if (m.kind == MEMBER_UNSIGNED || m.kind == MEMBER_SIGNED ||
			    m.kind == MEMBER_BOOL) {
				cls->slots[cls->slot_count++] = m.slot;
				cls->present[m.slot / 64] |= UINT64_C(1) << (m.slot % 64);
			}
		}
		for (int pass = 0; pass < 2; pass++) {
			for (uint64_t i = 0; i < count; i++) {
				struct decoder_member m = cls->members[i];

				if (m.kind == MEMBER_SKIP ||
				    (m.kind == MEMBER_UNSIGNED) != (pass == 0))
					continue;
				cls->reads[cls->read_count++] =
				    (struct decoder_read){.index = (uint32_t) i, .member = m};
			}
			if (pass == 0)
				cls->unsigned_count = cls->read_count;
		}
	}
	*out = cls;
	cls = NULL;
	status = FSA_OK;
end:
	decoder_class_destroy(cls);
	return status;
}

static fsa_status
decoder_class_find(struct fsa_decoder *decoder, const bt_event_class *event_class,
		   struct decoder_class **out)
{
	size_t i;
	fsa_status status;

	if (decoder->last_class && decoder->last_class->event_class == event_class) {
		*out = decoder->last_class;
		return FSA_OK;
	}
	i = decoder_hash(event_class, decoder->table_capacity);
	while (decoder->table[i].key) {
		if (decoder->table[i].key == event_class) {
			*out = decoder->last_class = decoder->table[i].cls;
			return FSA_OK;
		}
		i = (i + 1) & (decoder->table_capacity - 1);
	}
	status = decoder_class_build(event_class, out);
	if (status != FSA_OK)
		return status;
	/* trace_info is always read: the version check needs it. */
	if (decoder->needs_payload && (*out)->type != FSA_EV_UNKNOWN &&
	    (*out)->type != FSA_EV_TRACE_INFO && !decoder->needs_payload((*out)->type)) {
		(*out)->skips_payload = true;
		(*out)->slot_count = 0;
		memset((*out)->present, 0, sizeof((*out)->present));
	}
	status = decoder_table_insert(decoder, *out);
	if (status != FSA_OK) {
		decoder_class_destroy(*out);
		return status;
	}
	decoder->last_class = *out;
	return FSA_OK;
}

/* Makes the reused event blank again for an event of class `next`. */
static void
decoder_event_reset(struct fsa_decoder *decoder, const struct decoder_class *next)
{
	struct fsa_event *ev = &decoder->event;
	const struct decoder_class *prev = decoder->event_class;

	/* Events of one class set the same slots every time: only a class change clears, and only
	 * for a consumer that reads slots not present. */
	if (prev != next && prev && !decoder->is_present_only) {
		for (uint32_t i = 0; i < prev->slot_count; i++)
			ev->u[prev->slots[i]] = 0;
	}
	memcpy(ev->present, next->present, sizeof(ev->present));
	for (int s = 0; s < FSA_S_COUNT; s++)
		ev->s[s] = NULL;
	ev->fence_handles = NULL;
	ev->fence_handle_count = 0;
	ev->cpu_id = UINT32_MAX;
	ev->type = next->type;
}

static fsa_status
decoder_fence_handles_read(struct fsa_decoder *decoder, const bt_field *field)
{
	uint64_t len = bt_field_array_get_length(field);

	if (len > decoder->fence_handle_capacity) {
		size_t capacity =
		    decoder->fence_handle_capacity ? decoder->fence_handle_capacity : 16;
		uint64_t *handles;

		while (capacity < len)
			capacity *= 2;
		handles = realloc(decoder->fence_handles, capacity * sizeof(*handles));
		if (!handles)
			return FSA_ERR_NOMEM;
		decoder->fence_handles = handles;
		decoder->fence_handle_capacity = capacity;
	}
	for (uint64_t i = 0; i < len; i++)
		decoder->fence_handles[i] = bt_field_integer_unsigned_get_value(
		    bt_field_array_borrow_element_field_by_index_const(field, i));
	decoder->event.fence_handles = len ? decoder->fence_handles : NULL;
	decoder->event.fence_handle_count = (uint32_t) len;
	return FSA_OK;
}

static uint64_t
decoder_snapshot_ns(const bt_clock_snapshot *snapshot)
{
	int64_t ns;

	/* A time before the clock's origin or beyond int64 is not a time: 0 shows it as an
	 * anomaly (zero timestamp) instead of stopping the analysis. */
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, &ns) !=
		BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK ||
	    ns < 0)
		return 0;
	return (uint64_t) ns;
}

/*
 * clock_correlation.cpu_ts_ns is a raw reading of the trace clock (docs/trace-format.md): the
 * clock class converts it to ns from origin exactly as it converts the event timestamps.
 */
static uint64_t
decoder_cycles_ns(const bt_clock_class *clock_class, uint64_t cycles)
{
	int64_t ns;

	if (!clock_class ||
	    bt_clock_class_cycles_to_ns_from_origin(clock_class, cycles, &ns) !=
		BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK ||
	    ns < 0)
		return FSA_EVENT_TIME_NONE;
	return (uint64_t) ns;
}

static struct decoder_stream *decoder_stream_find(struct fsa_decoder *decoder,
						  const bt_stream *stream);

/*
 * The time flt.utils.muxer (libbabeltrace2 2.0, plugins/utils/muxer/muxer.c) gives a message
 * whose clock snapshot is `snapshot`, kept in order_last_ts; NULL: the message has none and keeps
 * the time before. With fsa_decoder_set_muxer_checks() the decoder also stops where that muxer
 * would have stopped the graph: a snapshot that has no time in ns from origin
 * (muxer_msg_iter_do_next_one() after get_msg_ts_ns() failed), or a time below the one before
 * (its "youngest ... is less than ... last returned timestamp"), with the muxer's own cause as
 * ingest_error_take_bt() words it, so that a trace stops with the same message whether a muxer
 * read it or not. Returns FSA_OK or FSA_ERR_TRACE.
 */
static fsa_status
decoder_time_take(struct fsa_decoder *decoder, const bt_clock_snapshot *snapshot,
		  char **error_message)
{
	int64_t ns;

	if (!snapshot)
		return FSA_OK;
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		if (!decoder->is_muxer_checked)
			return FSA_OK;
		if (error_message &&
		    asprintf(error_message, "cannot decode the trace: Cannot find the youngest "
					    "upstream message iterator wrapper: status=ERROR") < 0)
			*error_message = NULL;
		return FSA_ERR_TRACE;
	}
	if (decoder->is_muxer_checked && ns < decoder->order_last_ts) {
		if (error_message &&
		    asprintf(
			error_message,
			"cannot decode the trace: Youngest upstream message iterator wrapper's "
			"timestamp is less than muxer's message iterator's last returned "
			"timestamp: muxer-msg-iter-addr=0x\xe2\x80\xa6, ts=%" PRId64
			", last-returned-ts=%" PRId64,
			ns, decoder->order_last_ts) < 0)
			*error_message = NULL;
		return FSA_ERR_TRACE;
	}
	decoder->order_last_ts = ns;
	return FSA_OK;
}

static fsa_status
decoder_event_decode(struct fsa_decoder *decoder, const bt_message *msg, enum fsa_decoded *what,
		     const struct fsa_event **out, char **error_message)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_packet *packet = NULL;
	bool has_packet = false;
	struct decoder_class *cls;
	struct fsa_event *ev = &decoder->event;
	const bt_field *payload;
	fsa_status status;
	int64_t ns = 0;
	bool has_ns = false;

	status = decoder_class_find(decoder, bt_event_borrow_class_const(event), &cls);
	if (status != FSA_OK)
		return status;
	if (cls->has_clock && decoder->is_muxer_checked) {
		/* Where a muxer would stop, before the event counts as read. */
		status = decoder_time_take(
		    decoder, bt_message_event_borrow_default_clock_snapshot_const(msg),
		    error_message);
		if (status != FSA_OK)
			return status;
		ns = decoder->order_last_ts;
		has_ns = true;
	} else if (cls->has_clock && (cls->type != FSA_EV_UNKNOWN || decoder->is_ordered)) {
		/* A time before the clock's origin or beyond int64 is not a time: 0 shows it as
		 * an anomaly (zero timestamp) instead of stopping the analysis. */
		has_ns = bt_clock_snapshot_get_ns_from_origin(
			     bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) ==
			 BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK;
	}
	decoder->stats.events++;
	if (decoder->is_ordered) {
		if (has_ns)
			decoder->order_last_ts = ns;
		packet = bt_event_borrow_packet_const(event);
		has_packet = true;
		/* A packet is in one stream: the stream is asked for only when the packet changed
		 * (a call less per event; a packet beginning forgets the last one). */
		if (!packet || packet != decoder->order_packet) {
			const bt_stream *stream = bt_event_borrow_stream_const(event);

			decoder->order_packet = packet;
			if (stream != decoder->order_stream) {
				const struct decoder_stream *entry =
				    decoder_stream_find(decoder, stream);

				decoder->order_stream = stream;
				decoder->order_stream_ordinal = entry ? entry->ordinal : UINT32_MAX;
			}
		}
		decoder->order.ordinal = decoder->order_stream_ordinal;
		decoder->order.ts = decoder->order_last_ts;
	}
	if (cls->type == FSA_EV_UNKNOWN) {
		decoder->stats.other_events++;
		return FSA_OK;
	}
	decoder_event_reset(decoder, cls);
	decoder->event_class = cls;
	ev->ts_ns = has_ns && ns >= 0 ? (uint64_t) ns : 0;
	if (cls->cpu_id_index >= 0) {
		if (!has_packet)
			packet = bt_event_borrow_packet_const(event);
		/* Consecutive events mostly share a packet: read its context once. */
		if (packet != decoder->cpu_packet || cls->cpu_id_index != decoder->cpu_index) {
			const bt_field *ctx =
			    packet ? bt_packet_borrow_context_field_const(packet) : NULL;

			decoder->cpu_packet = packet;
			decoder->cpu_index = cls->cpu_id_index;
			decoder->cpu_id =
			    ctx ? (uint32_t) bt_field_integer_unsigned_get_value(
				      bt_field_structure_borrow_member_field_by_index_const(
					  ctx, (uint64_t) cls->cpu_id_index))
				: UINT32_MAX;
		}
		ev->cpu_id = decoder->cpu_id;
	}
	payload = cls->skips_payload || !cls->read_count
		      ? NULL
		      : bt_event_borrow_payload_field_const(event);
	for (uint32_t k = 0; payload && k < cls->unsigned_count; k++) {
		const struct decoder_read *read = &cls->reads[k];

		ev->u[read->member.slot] = bt_field_integer_unsigned_get_value(
		    bt_field_structure_borrow_member_field_by_index_const(payload, read->index));
	}
	for (uint32_t k = cls->unsigned_count; payload && k < cls->read_count; k++) {
		const struct decoder_member m = cls->reads[k].member;
		const bt_field *field = bt_field_structure_borrow_member_field_by_index_const(
		    payload, cls->reads[k].index);

		switch (m.kind) {
		case MEMBER_SIGNED:
			/* Stored sign-extended (fsa/event.h). */
			ev->u[m.slot] = (uint64_t) bt_field_integer_signed_get_value(field);
			break;
		case MEMBER_BOOL:
			ev->u[m.slot] = bt_field_bool_get_value(field) ? 1 : 0;
			break;
		case MEMBER_STRING:
			ev->s[m.slot] = bt_field_string_get_value(field);
			break;
		case MEMBER_FENCE_HANDLES:
			status = decoder_fence_handles_read(decoder, field);
			if (status != FSA_OK)
				return status;
			break;
		default:
			break;
		}
	}
	ev->trace_clock = cls->trace_clock;
	if (cls->type == FSA_EV_CLOCK_CORRELATION)
		ev->cpu_ts_trace_ns = decoder_cycles_ns(cls->clock_class, ev->u[FSA_F_CPU_TS_NS]);
	if (cls->type == FSA_EV_TRACE_INFO && fsa_event_has(ev, FSA_F_FORMAT_MAJOR) &&
	    ev->u[FSA_F_FORMAT_MAJOR] > FSTP_FORMAT_MAJOR) {
		if (error_message && asprintf(error_message,
					      "trace format %" PRIu64 ".%" PRIu64
					      " is newer than this fencescope reads (%d.x)",
					      ev->u[FSA_F_FORMAT_MAJOR], ev->u[FSA_F_FORMAT_MINOR],
					      FSTP_FORMAT_MAJOR) < 0)
			*error_message = NULL;
		return FSA_ERR_FORMAT_VERSION;
	}
	decoder->stats.fencescope_events++;
	decoder->last_ts = ev->ts_ns;
	*what = FSA_DECODED_EVENT;
	*out = ev;
	return FSA_OK;
}

static struct decoder_stream *
decoder_stream_find(struct fsa_decoder *decoder, const bt_stream *stream)
{
	for (size_t i = 0; i < decoder->stream_count; i++) {
		if (decoder->streams[i].stream == stream)
			return &decoder->streams[i];
	}
	return NULL;
}

/* The stream's entry, made when it is new (its ordinal the next one). NULL: out of memory. */
static struct decoder_stream *
decoder_stream_add(struct fsa_decoder *decoder, const bt_stream *stream)
{
	struct decoder_stream *entry = decoder_stream_find(decoder, stream);

	if (entry)
		return entry;
	if (decoder->stream_count == decoder->stream_capacity) {
		size_t capacity = decoder->stream_capacity ? decoder->stream_capacity * 2 : 16;
		struct decoder_stream *streams =
		    realloc(decoder->streams, capacity * sizeof(*streams));

		if (!streams)
			return NULL;
		decoder->streams = streams;
		decoder->stream_capacity = capacity;
	}
	entry = &decoder->streams[decoder->stream_count++];
	*entry = (struct decoder_stream){
	    .stream = stream, .cpu_id = UINT32_MAX, .ordinal = decoder->next_ordinal++};
	return entry;
}

/* Order mode: a stream begins; its key goes out as FSA_DECODED_STREAM. */
static fsa_status
decoder_stream_begin(struct fsa_decoder *decoder, const bt_stream *stream, enum fsa_decoded *what)
{
	const bt_stream_class *stream_class = bt_stream_borrow_class_const(stream);
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	bt_uuid uuid = trace ? bt_trace_get_uuid(trace) : NULL;
	struct decoder_stream *entry;

	/* A stream that begins may have the address of one that ended (its entry is gone). */
	decoder->order_stream = NULL;
	decoder->order_packet = NULL;
	entry = decoder_stream_add(decoder, stream);
	if (!entry)
		return FSA_ERR_NOMEM;
	decoder->stream_key = (struct fsa_decoder_stream_key){
	    .ordinal = entry->ordinal,
	    .has_uuid = uuid != NULL,
	    .stream_class_id = bt_stream_class_get_id(stream_class),
	    .stream_id = bt_stream_get_id(stream),
	};
	if (uuid)
		memcpy(decoder->stream_key.uuid, uuid, sizeof(decoder->stream_key.uuid));
	*what = FSA_DECODED_STREAM;
	return FSA_OK;
}

/* Order mode and muxer checks: the time flt.utils.muxer sorts a message by
 * (plugins/utils/muxer/muxer.c, get_msg_ts_ns): its default clock snapshot, or, for a message
 * that has none, the time of the message before it (decoder_time_take()). */
static fsa_status
decoder_order_time(struct fsa_decoder *decoder, const bt_message *msg, char **error_message)
{
	const bt_clock_snapshot *snapshot = NULL;
	const bt_stream_class *sc = NULL;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
		    bt_message_packet_beginning_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_beginning_default_clock_snapshot(sc))
			snapshot =
			    bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		sc = bt_stream_borrow_class_const(
		    bt_packet_borrow_stream_const(bt_message_packet_end_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_end_default_clock_snapshot(sc))
			snapshot = bt_message_packet_end_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		if (bt_message_stream_beginning_borrow_default_clock_snapshot_const(
			msg, &snapshot) != BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN)
			snapshot = NULL;
		break;
	case BT_MESSAGE_TYPE_STREAM_END:
		if (bt_message_stream_end_borrow_default_clock_snapshot_const(msg, &snapshot) !=
		    BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN)
			snapshot = NULL;
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		sc = bt_stream_borrow_class_const(
		    bt_message_discarded_events_borrow_stream_const(msg));
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
			snapshot =
			    bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		sc = bt_stream_borrow_class_const(
		    bt_message_discarded_packets_borrow_stream_const(msg));
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
			snapshot =
			    bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				msg);
		break;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		snapshot = bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
		break;
	default:
		break;
	}
	return decoder_time_take(decoder, snapshot, error_message);
}

/* Packet beginnings are rare (one per sub-buffer): remember the packet's CPU for its stream. */
static fsa_status
decoder_packet_begin(struct fsa_decoder *decoder, const bt_message *msg)
{
	const bt_packet *packet = bt_message_packet_beginning_borrow_packet_const(msg);
	const bt_stream *stream = bt_packet_borrow_stream_const(packet);
	const bt_field *ctx = bt_packet_borrow_context_field_const(packet);
	const bt_field *cpu =
	    ctx ? bt_field_structure_borrow_member_field_by_name_const(ctx, "cpu_id") : NULL;
	struct decoder_stream *entry = decoder_stream_add(decoder, stream);

	/* A new packet may reuse the address of one that ended: forget the cached CPU. */
	decoder->cpu_packet = NULL;
	decoder->order_packet = NULL;
	if (!entry)
		return FSA_ERR_NOMEM;
	entry->cpu_id = UINT32_MAX;
	if (cpu && bt_field_class_type_is(bt_field_get_class_type(cpu),
					  BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		entry->cpu_id = (uint32_t) bt_field_integer_unsigned_get_value(cpu);
	return FSA_OK;
}

/* A stream that ended may leave its address to a new one: forget it. */
static void
decoder_stream_end(struct fsa_decoder *decoder, const bt_message *msg)
{
	struct decoder_stream *entry =
	    decoder_stream_find(decoder, bt_message_stream_end_borrow_stream_const(msg));

	if (entry)
		*entry = decoder->streams[--decoder->stream_count];
}

static void
decoder_discard_decode(struct fsa_decoder *decoder, const bt_message *msg,
		       struct fsa_discard *discard)
{
	bool is_events = bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_EVENTS;
	const bt_stream *stream = is_events ? bt_message_discarded_events_borrow_stream_const(msg)
					    : bt_message_discarded_packets_borrow_stream_const(msg);
	const bt_stream_class *stream_class = bt_stream_borrow_class_const(stream);
	const struct decoder_stream *entry = decoder_stream_find(decoder, stream);
	bt_property_availability availability;
	uint64_t count = 0;

	*discard = (struct fsa_discard){
	    .kind = is_events ? FSA_DISCARD_EVENTS : FSA_DISCARD_PACKETS,
	    .stream_id = bt_stream_get_id(stream),
	    .cpu_id = entry ? entry->cpu_id : UINT32_MAX,
	};
	availability = is_events ? bt_message_discarded_events_get_count(msg, &count)
				 : bt_message_discarded_packets_get_count(msg, &count);
	/*
	 * Babeltrace counts the events a packet discarded as the difference of the stream's
	 * cumulative discard counter from the previous packet; when the tracer's counter went
	 * backwards, that difference wraps to near 2^64 (seen in realtime recordings with 4 KiB
	 * sub-buffers). Such a count, or none at all, says only that events were lost: at least
	 * one (docs/analyzer.md, "Tracer discards").
	 */
	if (availability == BT_PROPERTY_AVAILABILITY_AVAILABLE && count <= INT64_MAX)
		discard->count = count;
	else
		discard->count = 1;
	if (is_events &&
	    bt_stream_class_discarded_events_have_default_clock_snapshots(stream_class)) {
		discard->begin_ns = decoder_snapshot_ns(
		    bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg));
		discard->end_ns = decoder_snapshot_ns(
		    bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
		discard->has_range = true;
	} else if (!is_events &&
		   bt_stream_class_discarded_packets_have_default_clock_snapshots(stream_class)) {
		discard->begin_ns = decoder_snapshot_ns(
		    bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
			msg));
		discard->end_ns = decoder_snapshot_ns(
		    bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg));
		discard->has_range = true;
	}
	if (decoder->is_ordered) {
		decoder->order.ordinal = entry ? entry->ordinal : UINT32_MAX;
		decoder->order.ts = decoder->order_last_ts;
	}
	/* The stats count a loss of unknown size as one, so that it is never invisible. */
	if (is_events)
		decoder->stats.discarded_events += discard->count ? discard->count : 1;
	else
		decoder->stats.discarded_packets += discard->count ? discard->count : 1;
}

fsa_status
fsa_decoder_decode(struct fsa_decoder *decoder, const bt_message *msg, enum fsa_decoded *what,
		   const struct fsa_event **event, struct fsa_discard *discard,
		   char **error_message)
{
	/* Asked once: a call into libbabeltrace2 per message, and most messages are events. */
	bt_message_type type;

	assert(decoder && msg && what);
	*what = FSA_DECODED_NOTHING;
	type = bt_message_get_type(msg);
	if (type == BT_MESSAGE_TYPE_EVENT)
		return decoder_event_decode(decoder, msg, what, event, error_message);
	/* Events find their time themselves (they read the snapshot anyway). */
	if (decoder->is_ordered || decoder->is_muxer_checked) {
		fsa_status status = decoder_order_time(decoder, msg, error_message);

		if (status != FSA_OK)
			return status;
	}
	if (decoder->is_ordered && type == BT_MESSAGE_TYPE_STREAM_BEGINNING)
		return decoder_stream_begin(
		    decoder, bt_message_stream_beginning_borrow_stream_const(msg), what);
	switch (type) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return decoder_packet_begin(decoder, msg);
	case BT_MESSAGE_TYPE_STREAM_END:
		decoder_stream_end(decoder, msg);
		return FSA_OK;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		decoder_discard_decode(decoder, msg, discard);
		*what = FSA_DECODED_DISCARD;
		return FSA_OK;
	default:
		return FSA_OK;
	}
}
