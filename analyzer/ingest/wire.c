/* SPDX-License-Identifier: MIT */
/*
 * The decoder helper's wire format (wire-private.h): encoding on the helper's side, decoding on
 * fsa_ingest_run()'s. Cheap because ten million events cross it per benchmark run: only the
 * present slots' raw values are sent, in the order of their schema (the set of present slots, sent
 * once: the reader then copies the values without a slot byte or a present bit each), timestamps
 * as varint deltas, strings, fence handles and raw regions only when there are some (a flags
 * byte), the regions only when they changed since the previous event. It knows the event's layout
 * only through struct fsa_event: new slots pass through as slots, and new members of the struct
 * through the raw regions below.
 */
#define _GNU_SOURCE

#include "wire-private.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WIRE_SCRATCH_SIZE (64 * 1024)
#define WIRE_BUFFER_SIZE  (256 * 1024)
#define WIRE_TAKE_MAX     (64 * 1024)
#define WIRE_UNROLL       _Pragma("GCC unroll 16")
/* "There is data" once per this many bytes: a few hundred wake-ups a second at full speed. */
#define WIRE_NOTIFY_EVERY (256 * 1024)

/*
 * The bytes of struct fsa_event that the encoding does not know member by member: padding
 * today, and whatever member someone adds tomorrow. Each is sent raw when it is not all zero.
 */
struct wire_region {
	size_t offset, len;
};

#define WIRE_END_OF(member)                                                                        \
	(offsetof(struct fsa_event, member) + sizeof(((struct fsa_event *) 0)->member))
#define WIRE_GAP(after, before)                                                                    \
	{                                                                                          \
		WIRE_END_OF(after), offsetof(struct fsa_event, before) - WIRE_END_OF(after)        \
	}

static const struct wire_region wire_regions[] = {
    {0, offsetof(struct fsa_event, type)},
    WIRE_GAP(type, ts_ns),
    WIRE_GAP(ts_ns, cpu_id),
    WIRE_GAP(cpu_id, u),
    WIRE_GAP(u, present),
    WIRE_GAP(present, s),
    WIRE_GAP(s, fence_handles),
    WIRE_GAP(fence_handles, fence_handle_count),
    {WIRE_END_OF(fence_handle_count), sizeof(struct fsa_event) - WIRE_END_OF(fence_handle_count)},
};
#define WIRE_REGION_COUNT (sizeof(wire_regions) / sizeof(wire_regions[0]))

/* The known members in this order; a reordering must come with a new table above. */
_Static_assert(offsetof(struct fsa_event, type) <= offsetof(struct fsa_event, ts_ns) &&
		   WIRE_END_OF(type) <= offsetof(struct fsa_event, ts_ns) &&
		   WIRE_END_OF(ts_ns) <= offsetof(struct fsa_event, cpu_id) &&
		   WIRE_END_OF(cpu_id) <= offsetof(struct fsa_event, u) &&
		   WIRE_END_OF(u) <= offsetof(struct fsa_event, present) &&
		   WIRE_END_OF(present) <= offsetof(struct fsa_event, s) &&
		   WIRE_END_OF(s) <= offsetof(struct fsa_event, fence_handles) &&
		   WIRE_END_OF(fence_handles) <= offsetof(struct fsa_event, fence_handle_count),
	       "struct fsa_event's members moved: update wire_regions in wire.c");
_Static_assert(WIRE_REGION_COUNT <= 16, "the region mask is a varint of 16 bits at most");

static unsigned char *
wire_varint_put(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char) (v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char) v;
	return p;
}

static uint64_t
wire_zigzag(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static int64_t
wire_unzigzag(uint64_t v)
{
	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

bool
ingest_ring_create(size_t size, int *shm_fd, struct ingest_ring **ring)
{
	size_t total = INGEST_RING_DATA_OFFSET + size;
	int fd = memfd_create("fencescope-decode", MFD_CLOEXEC);
	void *map;

	if (fd < 0)
		return false;
	if (ftruncate(fd, (off_t) total) != 0) {
		close(fd);
		return false;
	}
	map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return false;
	}
	*ring = map;
	(*ring)->size = size;
	*shm_fd = fd;
	return true;
}

void
ingest_ring_destroy(struct ingest_ring *ring, size_t size)
{
	if (ring)
		munmap(ring, INGEST_RING_DATA_OFFSET + size);
}

bool
ingest_wire_writer_init(struct ingest_wire_writer *w, int shm_fd, int data_fd, int room_fd)
{
	struct ingest_ring probe;
	void *map;

	*w = (struct ingest_wire_writer){
	    .data_fd = data_fd, .room_fd = room_fd, .capacity = WIRE_SCRATCH_SIZE};
	if (pread(shm_fd, &probe, sizeof(probe), 0) != (ssize_t) sizeof(probe) ||
	    probe.size < INGEST_RING_SIZE_MIN || probe.size > (UINT64_C(1) << 30))
		return false;
	map = mmap(NULL, INGEST_RING_DATA_OFFSET + probe.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   shm_fd, 0);
	if (map == MAP_FAILED)
		return false;
	w->ring = map;
	w->data = (unsigned char *) map + INGEST_RING_DATA_OFFSET;
	w->size = probe.size;
	w->mask = (probe.size & (probe.size - 1)) == 0 ? probe.size - 1 : 0;
	w->buf = malloc(w->capacity);
	return w->buf != NULL;
}

void
ingest_wire_writer_fini(struct ingest_wire_writer *w)
{
	free(w->buf);
	w->buf = NULL;
	free(w->schemas);
	w->schemas = NULL;
	free(w->schema_index);
	w->schema_index = NULL;
	if (w->ring)
		munmap(w->ring, INGEST_RING_DATA_OFFSET + w->size);
	w->ring = NULL;
}

static bool
wire_byte_write(struct ingest_wire_writer *w, int fd)
{
	for (;;) {
		ssize_t n = write(fd, "", 1);

		if (n == 1)
			return true;
		if (n < 0 && errno != EINTR) {
			w->has_failed = true;
			return false;
		}
	}
}

/* Where `head` falls in the ring's data. */
static inline size_t
wire_at(const struct ingest_wire_writer *w, uint64_t head)
{
	return (size_t) (w->mask ? head & w->mask : head % w->size);
}

/* Waits until the ring has `need` free bytes; w->room says how many it has then. */
static bool
wire_room_wait(struct ingest_wire_writer *w, size_t need)
{
	struct ingest_ring *ring = w->ring;
	uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
	uint64_t used;

	while (head - atomic_load(&ring->tail) + need > w->size) {
		char byte;
		ssize_t n;

		atomic_store(&ring->writer_waiting, 1);
		if (head - atomic_load(&ring->tail) + need <= w->size)
			break;
		/* The reader may be asleep: wake it, then sleep until it took something. */
		if (!wire_byte_write(w, w->data_fd))
			return false;
		w->unnotified = 0;
		n = read(w->room_fd, &byte, 1);
		if (n == 0 || (n < 0 && errno != EINTR)) {
			w->has_failed = true;
			return false;
		}
	}
	used = head - atomic_load(&ring->tail);
	w->room = used < w->size ? w->size - used : 0;
	return true;
}

/* Copies the scratch record into the ring and makes it visible: once this returns, the record
 * is the reader's, whatever happens to this process. */
static bool
wire_publish(struct ingest_wire_writer *w, bool is_urgent)
{
	struct ingest_ring *ring = w->ring;
	uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
	size_t at, first;

	if (w->has_failed)
		return false;
	if (w->len > w->size) {
		w->has_failed = true;
		return false;
	}
	if (!wire_room_wait(w, w->len))
		return false;
	at = wire_at(w, head);
	first = w->size - at < w->len ? w->size - at : w->len;
	memcpy(w->data + at, w->buf, first);
	memcpy(w->data, w->buf + first, w->len - first);
	atomic_store_explicit(&ring->head, head + w->len, memory_order_release);
	w->room = w->room > w->len ? w->room - w->len : 0;
	w->unnotified += w->len;
	w->len = 0;
	if (is_urgent || w->unnotified >= WIRE_NOTIFY_EVERY) {
		w->unnotified = 0;
		return wire_byte_write(w, w->data_fd);
	}
	return true;
}

/* Room for a record of up to `need` bytes: in the ring itself when it has that much free and
 * in one piece at its head (no copy then), else in the scratch buffer. */
static inline unsigned char *
wire_reserve(struct ingest_wire_writer *w, size_t need)
{
	if (w->has_failed)
		return NULL;
	w->record = NULL;
	if (need <= w->size / 4) {
		uint64_t head = atomic_load_explicit(&w->ring->head, memory_order_relaxed);
		size_t at = wire_at(w, head);

		if (w->size - at >= need) {
			if (need > w->room && !wire_room_wait(w, need))
				return NULL;
			w->record = w->data + at;
			return w->record;
		}
	}
	if (need > w->capacity) {
		unsigned char *buf = realloc(w->buf, need);

		if (!buf) {
			w->has_failed = true;
			return NULL;
		}
		w->buf = buf;
		w->capacity = need;
	}
	w->len = 0;
	return w->buf;
}

static inline bool
wire_commit(struct ingest_wire_writer *w, unsigned char *end, bool is_urgent)
{
	size_t len;

	if (!w->record) {
		w->len = (size_t) (end - w->buf);
		return wire_publish(w, is_urgent);
	}
	/* Written in place: make it visible. */
	len = (size_t) (end - w->record);
	atomic_store_explicit(&w->ring->head,
			      atomic_load_explicit(&w->ring->head, memory_order_relaxed) + len,
			      memory_order_release);
	w->record = NULL;
	w->room = w->room > len ? w->room - len : 0;
	w->unnotified += len;
	if (is_urgent || w->unnotified >= WIRE_NOTIFY_EVERY) {
		w->unnotified = 0;
		return wire_byte_write(w, w->data_fd);
	}
	return true;
}

/* Whether a raw region of the event differs from what the reader holds (the last one sent). */
static bool
wire_region_differs(const unsigned char *a, const unsigned char *b, size_t len)
{
	/* The regions are padding words and a few members today: compare them as words. */
	if (len == 4) {
		uint32_t x, y;

		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x != y;
	}
	if (len == 8 || len == 16) {
		uint64_t x[2] = {0}, y[2] = {0};

		memcpy(x, a, len);
		memcpy(y, b, len);
		return (x[0] ^ y[0]) | (x[1] ^ y[1]);
	}
	return memcmp(a, b, len) != 0;
}

_Static_assert(FSA_F_COUNT < 256, "a slot and a schema's slot count must fit one byte");

static size_t
wire_schema_hash(const uint64_t *present, size_t capacity)
{
	uint64_t h = 0;

	for (int word = 0; word < FSA_FIELD_WORDS; word++)
		h = (h ^ present[word]) * UINT64_C(0x9e3779b97f4a7c15);
	return (size_t) (h >> 32) & (capacity - 1);
}

static bool
wire_schema_is(const struct ingest_wire_schema *schema, const uint64_t *present)
{
	return memcmp(schema->present, present, sizeof(schema->present)) == 0;
}

/* Indexes schema `id` (the index has room). */
static void
wire_schema_index_put(struct ingest_wire_writer *w, uint32_t id)
{
	size_t i = wire_schema_hash(w->schemas[id].present, w->schema_index_capacity);

	while (w->schema_index[i])
		i = (i + 1) & (w->schema_index_capacity - 1);
	w->schema_index[i] = id + 1;
}

/* A new schema for `present`: kept, indexed and sent as a 'K' record. */
static bool
wire_schema_add(struct ingest_wire_writer *w, const uint64_t *present, uint32_t *id)
{
	struct ingest_wire_schema *schema;
	unsigned char *p;

	/* Only a trace of tens of thousands of event classes could get here: the reader would
	 * refuse more, so the reading stops (a failed write). */
	if (w->schema_count == INGEST_WIRE_SCHEMA_MAX) {
		w->has_failed = true;
		return false;
	}
	if (w->schema_count == w->schema_capacity) {
		size_t capacity = w->schema_capacity ? w->schema_capacity * 2 : 64;
		struct ingest_wire_schema *schemas =
		    realloc(w->schemas, capacity * sizeof(*schemas));

		if (!schemas) {
			w->has_failed = true;
			return false;
		}
		w->schemas = schemas;
		w->schema_capacity = capacity;
	}
	/* Keep the index's load under one half. */
	if ((w->schema_count + 1) * 2 > w->schema_index_capacity) {
		size_t capacity = w->schema_index_capacity ? w->schema_index_capacity * 2 : 256;
		uint32_t *index = calloc(capacity, sizeof(*index));

		if (!index) {
			w->has_failed = true;
			return false;
		}
		free(w->schema_index);
		w->schema_index = index;
		w->schema_index_capacity = capacity;
		for (uint32_t k = 0; k < w->schema_count; k++)
			wire_schema_index_put(w, k);
	}
	*id = (uint32_t) w->schema_count;
	schema = &w->schemas[w->schema_count++];
	memcpy(schema->present, present, sizeof(schema->present));
	schema->count = 0;
	for (int word = 0; word < FSA_FIELD_WORDS; word++) {
		for (uint64_t bits = present[word]; bits; bits &= bits - 1)
			schema->slots[schema->count++] =
			    (uint8_t) (word * 64 + __builtin_ctzll(bits));
	}
	wire_schema_index_put(w, *id);
	p = wire_reserve(w, 1 + 10 + 1 + schema->count);
	if (!p)
		return false;
	*p++ = INGEST_WIRE_SCHEMA;
	p = wire_varint_put(p, *id);
	*p++ = (unsigned char) schema->count;
	memcpy(p, schema->slots, schema->count);
	return wire_commit(w, p + schema->count, false);
}

/* The id of the schema of `present` (an event of `type`), sent first when it is new. */
static inline bool
wire_schema_find(struct ingest_wire_writer *w, enum fsa_event_type type, const uint64_t *present,
		 uint32_t *id)
{
	uint32_t *by_type = (size_t) type < FSA_EV_COUNT ? &w->schema_by_type[type] : NULL;
	size_t i;

	if (by_type && *by_type && wire_schema_is(&w->schemas[*by_type - 1], present)) {
		*id = *by_type - 1;
		return true;
	}
	if (w->schema_index_capacity) {
		i = wire_schema_hash(present, w->schema_index_capacity);
		while (w->schema_index[i]) {
			if (wire_schema_is(&w->schemas[w->schema_index[i] - 1], present)) {
				*id = w->schema_index[i] - 1;
				goto found;
			}
			i = (i + 1) & (w->schema_index_capacity - 1);
		}
	}
	if (!wire_schema_add(w, present, id))
		return false;
found:
	if (by_type)
		*by_type = *id + 1;
	return true;
}

bool
ingest_wire_put_event(struct ingest_wire_writer *w, const struct fsa_event *ev)
{
	size_t strlens[FSA_S_COUNT] = {0};
	const struct ingest_wire_schema *schema;
	size_t need;
	unsigned char *p, *flags_at;
	uint64_t string_mask = 0, region_mask = 0;
	uint32_t schema_id;
	uint32_t handle_count = ev->fence_handles ? ev->fence_handle_count : 0;

	if (!wire_schema_find(w, ev->type, ev->present, &schema_id))
		return false;
	schema = &w->schemas[schema_id];
	need =
	    64 + 8 * (size_t) schema->count + 10 * (size_t) handle_count + sizeof(struct fsa_event);
	for (int s = 0; s < FSA_S_COUNT; s++) {
		if (ev->s[s]) {
			strlens[s] = strlen(ev->s[s]);
			need += 10 + strlens[s];
			string_mask |= UINT64_C(1) << s;
		}
	}
	p = wire_reserve(w, need);
	if (!p)
		return false;
	*p++ = INGEST_WIRE_EVENT;
	p = wire_varint_put(p, schema_id);
	p = wire_varint_put(p, (uint64_t) ev->type);
	p = wire_varint_put(p, wire_zigzag((int64_t) (ev->ts_ns - w->last_ts)));
	w->last_ts = ev->ts_ns;
	p = wire_varint_put(p, (uint64_t) (uint32_t) (ev->cpu_id + 1));
	/* The values raw, in the schema's order: no slot byte, no branch per byte (varints cost
	 * more CPU on both sides than the bytes they save). */
	for (uint32_t i = 0; i < schema->count; i++) {
		memcpy(p, &ev->u[schema->slots[i]], sizeof(uint64_t));
		p += sizeof(uint64_t);
	}
	flags_at = p++;
	*flags_at = 0;
	if (string_mask) {
		*flags_at |= 1;
		p = wire_varint_put(p, string_mask);
		for (uint64_t m = string_mask; m; m &= m - 1) {
			int s = __builtin_ctzll(m);

			p = wire_varint_put(p, strlens[s]);
			memcpy(p, ev->s[s], strlens[s]);
			p += strlens[s];
		}
	}
	if (handle_count) {
		*flags_at |= 2;
		p = wire_varint_put(p, handle_count);
		for (uint32_t i = 0; i < handle_count; i++)
			p = wire_varint_put(p, ev->fence_handles[i]);
	}
	/* Only the regions that changed since the last event: the reader keeps the others.
	 * Unrolled, each region's length is a constant: the empty ones cost nothing. */
	WIRE_UNROLL
	for (size_t i = 0; i < WIRE_REGION_COUNT; i++) {
		if (wire_regions[i].len &&
		    wire_region_differs((const unsigned char *) ev + wire_regions[i].offset,
					w->last_event + wire_regions[i].offset,
					wire_regions[i].len))
			region_mask |= UINT64_C(1) << i;
	}
	if (region_mask) {
		*flags_at |= 4;
		p = wire_varint_put(p, region_mask);
		for (uint64_t m = region_mask; m; m &= m - 1) {
			const struct wire_region *region = &wire_regions[__builtin_ctzll(m)];

			memcpy(p, (const unsigned char *) ev + region->offset, region->len);
			memcpy(w->last_event + region->offset, p, region->len);
			p += region->len;
		}
	}
	if (w->is_ordered) {
		p = wire_varint_put(p, w->order.ordinal);
		p = wire_varint_put(p, wire_zigzag((int64_t) ((uint64_t) w->order.ts - ev->ts_ns)));
	}
	return wire_commit(w, p, false);
}

bool
ingest_wire_put_discard(struct ingest_wire_writer *w, const struct fsa_discard *discard)
{
	unsigned char *p = wire_reserve(w, 1 + sizeof(*discard) + 10 + sizeof(int64_t));

	if (!p)
		return false;
	*p++ = INGEST_WIRE_DISCARD;
	memcpy(p, discard, sizeof(*discard));
	p += sizeof(*discard);
	if (w->is_ordered) {
		p = wire_varint_put(p, w->order.ordinal);
		memcpy(p, &w->order.ts, sizeof(int64_t));
		p += sizeof(int64_t);
	}
	return wire_commit(w, p, false);
}

bool
ingest_wire_put_stream(struct ingest_wire_writer *w, const struct fsa_decoder_stream_key *key)
{
	unsigned char *p = wire_reserve(w, 1 + 10 + 1 + sizeof(key->uuid) + 10 + 10);

	if (!p)
		return false;
	*p++ = INGEST_WIRE_STREAM;
	p = wire_varint_put(p, key->ordinal);
	*p++ = key->has_uuid ? 1 : 0;
	memcpy(p, key->uuid, sizeof(key->uuid));
	p += sizeof(key->uuid);
	p = wire_varint_put(p, key->stream_class_id);
	p = wire_varint_put(p, key->stream_id);
	return wire_commit(w, p, false);
}

bool
ingest_wire_put_progress(struct ingest_wire_writer *w, uint64_t events, double fraction)
{
	unsigned char *p = wire_reserve(w, 1 + 10 + sizeof(fraction));

	if (!p)
		return false;
	*p++ = INGEST_WIRE_PROGRESS;
	p = wire_varint_put(p, events);
	memcpy(p, &fraction, sizeof(fraction));
	return wire_commit(w, p + sizeof(fraction), false);
}

bool
ingest_wire_put_heartbeat(struct ingest_wire_writer *w)
{
	unsigned char *p = wire_reserve(w, 1);

	if (!p)
		return false;
	*p++ = INGEST_WIRE_HEARTBEAT;
	return wire_commit(w, p, true);
}

bool
ingest_wire_put_end(struct ingest_wire_writer *w, int status, const struct fsa_ingest_stats *stats,
		    const char *error)
{
	size_t len = error ? strlen(error) : 0;
	unsigned char *p = wire_reserve(w, 1 + 10 + sizeof(*stats) + 10 + len);

	if (!p)
		return false;
	*p++ = INGEST_WIRE_END;
	p = wire_varint_put(p, wire_zigzag(status));
	memcpy(p, stats, sizeof(*stats));
	p += sizeof(*stats);
	/* 0: no message; else its length + 1. */
	p = wire_varint_put(p, error ? len + 1 : 0);
	memcpy(p, error ? error : "", len);
	return wire_commit(w, p + len, true);
}

bool
ingest_wire_reader_init(struct ingest_wire_reader *r)
{
	*r = (struct ingest_wire_reader){.capacity = 4 * WIRE_BUFFER_SIZE};
	fsa_event_clear(&r->event);
	r->buf = malloc(r->capacity);
	return r->buf != NULL;
}

void
ingest_wire_reader_fini(struct ingest_wire_reader *r)
{
	free(r->schemas);
	free(r->buf);
	free(r->handles);
	free(r->strings);
	*r = (struct ingest_wire_reader){0};
}

size_t
ingest_wire_reader_take(struct ingest_wire_reader *r, struct ingest_ring *ring, size_t size,
			bool *is_writer_waiting)
{
	const unsigned char *data = (const unsigned char *) ring + INGEST_RING_DATA_OFFSET;
	uint64_t tail = r->tail;
	uint64_t avail = atomic_load_explicit(&ring->head, memory_order_acquire) - tail;
	size_t take, at, first;

	*is_writer_waiting = false;
	if (r->is_broken)
		return 0;
	if (avail > size) {
		/* Only a helper gone astray moves head back or past a whole ring. */
		r->is_broken = true;
		return 0;
	}

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->start = 0;
	}
	/* A record longer than the buffer: grow it. */
	if (r->len == r->capacity) {
		unsigned char *buf = realloc(r->buf, r->capacity * 2);

		if (buf) {
			r->buf = buf;
			r->capacity *= 2;
		}
	}
	take = avail < r->capacity - r->len ? (size_t) avail : r->capacity - r->len;
	/* A bite that stays in the cache until it is parsed (the caller takes again until the
	 * ring is empty). */
	if (take > WIRE_TAKE_MAX)
		take = WIRE_TAKE_MAX;
	at = (size_t) (tail % size);
	first = size - at < take ? size - at : take;
	memcpy(r->buf + r->len, data + at, first);
	memcpy(r->buf + r->len + first, data, take - first);
	r->len += take;
	r->tail = tail + take;
	atomic_store(&ring->tail, r->tail);
	*is_writer_waiting = atomic_exchange(&ring->writer_waiting, 0) != 0;
	return take;
}

size_t
ingest_wire_reader_pending(const struct ingest_wire_reader *r)
{
	return r->len - r->start;
}

struct wire_cursor {
	const unsigned char *p, *end;
	bool is_short;
};

static inline uint64_t
wire_varint_get(struct wire_cursor *c)
{
	uint64_t v = 0;

	/* Most values are one byte. */
	if (c->p < c->end && !(*c->p & 0x80))
		return *c->p++;

	for (unsigned shift = 0; shift < 70; shift += 7) {
		unsigned char b;

		if (c->p == c->end) {
			c->is_short = true;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t) (b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	/* Longer than any varint: treat as garbage; the caller's checks stop it. */
	return UINT64_MAX;
}

static bool
wire_bytes_get(struct wire_cursor *c, void *out, size_t len)
{
	if ((size_t) (c->end - c->p) < len) {
		c->is_short = true;
		return false;
	}
	memcpy(out, c->p, len);
	c->p += len;
	return true;
}

/* Returns 1, 0 (short) or -1 (garbage). */
static int
wire_event_get(struct ingest_wire_reader *r, struct wire_cursor *c)
{
	struct fsa_event *ev = &r->event;
	const struct ingest_wire_schema *schema;
	size_t string_at[FSA_S_COUNT], string_used = 0;
	uint64_t schema_id, type, ts_delta, cpu, string_mask, handle_count, region_mask;
	unsigned flags;

	schema_id = wire_varint_get(c);
	type = wire_varint_get(c);
	ts_delta = wire_varint_get(c);
	cpu = wire_varint_get(c);
	if (c->is_short)
		return 0;
	if (schema_id >= r->schema_count || type >= FSA_EV_COUNT)
		return -1;
	schema = &r->schemas[schema_id];
	ev->type = (enum fsa_event_type) type;
	ev->cpu_id = (uint32_t) cpu - 1;
	/* The values, then the flags byte. */
	if ((size_t) (c->end - c->p) <= schema->count * sizeof(uint64_t)) {
		c->is_short = true;
		return 0;
	}
	/* Blank again: only the slots in ev->present are non-zero (the previous event's, or this
	 * one's when an earlier try found it short), and those of this schema are written next;
	 * the others are cleared. The raw regions stay: a record carries only those that changed.
	 */
	for (int word = 0; word < FSA_FIELD_WORDS; word++) {
		uint64_t bits = ev->present[word] & ~schema->present[word];

		while (bits) {
			ev->u[word * 64 + __builtin_ctzll(bits)] = 0;
			bits &= bits - 1;
		}
	}
	memcpy(ev->present, schema->present, sizeof(ev->present));
	for (uint32_t i = 0; i < schema->count; i++) {
		memcpy(&ev->u[schema->slots[i]], c->p, sizeof(uint64_t));
		c->p += sizeof(uint64_t);
	}
	flags = *c->p++;
	if (flags & ~7u)
		return -1;
	string_mask = flags & 1 ? wire_varint_get(c) : 0;
	if (c->is_short)
		return 0;
	/* Most events carry no string: nothing to copy then. */
	for (int s = 0; string_mask && s < FSA_S_COUNT; s++) {
		uint64_t len;

		string_at[s] = SIZE_MAX;
		if (!(string_mask & (UINT64_C(1) << s)))
			continue;
		len = wire_varint_get(c);
		if (c->is_short)
			return 0;
		if (len > (size_t) (c->end - c->p)) {
			c->is_short = true;
			return 0;
		}
		if (string_used + len + 1 > r->string_capacity) {
			size_t capacity = (string_used + len + 1) * 2;
			char *strings = realloc(r->strings, capacity);

			if (!strings)
				return -1;
			r->strings = strings;
			r->string_capacity = capacity;
		}
		memcpy(r->strings + string_used, c->p, len);
		r->strings[string_used + len] = '\0';
		string_at[s] = string_used;
		string_used += len + 1;
		c->p += len;
	}
	handle_count = flags & 2 ? wire_varint_get(c) : 0;
	if (c->is_short)
		return 0;
	if (handle_count > UINT32_MAX)
		return -1;
	if (handle_count > (size_t) (c->end - c->p)) {
		/* Every handle takes at least one byte. */
		c->is_short = true;
		return 0;
	}
	if (handle_count > r->handle_capacity) {
		uint64_t *handles = realloc(r->handles, handle_count * sizeof(*handles));

		if (!handles)
			return -1;
		r->handles = handles;
		r->handle_capacity = handle_count;
	}
	for (uint64_t i = 0; i < handle_count; i++)
		r->handles[i] = wire_varint_get(c);
	region_mask = flags & 4 ? wire_varint_get(c) : 0;
	if (c->is_short)
		return 0;
	if (region_mask >> WIRE_REGION_COUNT)
		return -1;
	/* A short record writes some regions now and the same bytes again when it is whole. */
	for (uint64_t m = region_mask; m; m &= m - 1) {
		const struct wire_region *region = &wire_regions[__builtin_ctzll(m)];

		if (!wire_bytes_get(c, (unsigned char *) ev + region->offset, region->len))
			return 0;
	}
	if (r->is_ordered) {
		uint64_t ordinal = wire_varint_get(c);
		uint64_t ts_delta_order = wire_varint_get(c);

		if (c->is_short)
			return 0;
		if (ordinal > UINT32_MAX)
			return -1;
		r->order.ordinal = (uint32_t) ordinal;
		r->order.ts = (int64_t) (r->last_ts + (uint64_t) wire_unzigzag(ts_delta) +
					 (uint64_t) wire_unzigzag(ts_delta_order));
	}
	/* Whole: only now does the timestamp base move on. */
	ev->ts_ns = r->last_ts + (uint64_t) wire_unzigzag(ts_delta);
	/* Not a memset when there is none: GCC makes a slow `rep stos` of it. */
	for (int s = 0; s < FSA_S_COUNT; s++)
		ev->s[s] =
		    string_mask && string_at[s] != SIZE_MAX ? r->strings + string_at[s] : NULL;
	ev->fence_handles = handle_count ? r->handles : NULL;
	ev->fence_handle_count = (uint32_t) handle_count;
	return 1;
}

/* A 'K' record: the next schema. Returns 1, 0 (short) or -1 (garbage: not the next id, too many,
 * a slot out of range or out of order). */
static int
wire_schema_get(struct ingest_wire_reader *r, struct wire_cursor *c)
{
	struct ingest_wire_schema *schema;
	uint64_t id = wire_varint_get(c);
	unsigned count;

	if (c->is_short || c->p >= c->end) {
		c->is_short = true;
		return 0;
	}
	count = *c->p++;
	if (id != r->schema_count || id >= INGEST_WIRE_SCHEMA_MAX || count > FSA_F_COUNT)
		return -1;
	if ((size_t) (c->end - c->p) < count) {
		c->is_short = true;
		return 0;
	}
	if (r->schema_count == r->schema_capacity) {
		size_t capacity = r->schema_capacity ? r->schema_capacity * 2 : 64;
		struct ingest_wire_schema *schemas =
		    realloc(r->schemas, capacity * sizeof(*schemas));

		if (!schemas)
			return -1;
		r->schemas = schemas;
		r->schema_capacity = capacity;
	}
	schema = &r->schemas[r->schema_count];
	memset(schema->present, 0, sizeof(schema->present));
	schema->count = count;
	for (unsigned i = 0; i < count; i++) {
		unsigned slot = c->p[i];

		if (slot >= FSA_F_COUNT || (i > 0 && slot <= schema->slots[i - 1]))
			return -1;
		schema->slots[i] = (uint8_t) slot;
		schema->present[slot / 64] |= UINT64_C(1) << (slot % 64);
	}
	c->p += count;
	r->schema_count++;
	return 1;
}

/*
 * The raw structs and numbers of a record come from another process, which a damaged trace may
 * have sent astray before it died: they are checked here, where they enter, so that no bool
 * holds a byte other than 0 or 1 (loading one is undefined behaviour), no enum or status is
 * outside its values, and no message spans lines.
 */
static bool
wire_discard_is_valid(const struct fsa_discard *discard)
{
	const unsigned char *bytes = (const unsigned char *) discard;
	unsigned char has_range = bytes[offsetof(struct fsa_discard, has_range)];
	enum fsa_discard_kind kind;

	memcpy(&kind, bytes + offsetof(struct fsa_discard, kind), sizeof(kind));
	return has_range <= 1 && (kind == FSA_DISCARD_EVENTS || kind == FSA_DISCARD_PACKETS);
}

static bool
wire_status_is_valid(int status)
{
	/* fsa_status: FSA_OK and the errors down to FSA_ERR_CANCELLED, the last one. */
	return status <= FSA_OK && status >= FSA_ERR_CANCELLED;
}

/* Control characters (a newline from a corrupted message) become spaces: one line. */
static void
wire_message_flatten(char *message)
{
	for (unsigned char *p = (unsigned char *) message; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = ' ';
	}
}

int
ingest_wire_next(struct ingest_wire_reader *r, struct ingest_wire_record *record)
{
	struct wire_cursor c = {r->buf + r->start, r->buf + r->len, false};
	int result = 1;

	if (r->is_broken)
		return -1;
	/* Schemas are the reader's own business: taken here, never given out. */
	while (c.p < c.end && *c.p == INGEST_WIRE_SCHEMA) {
		c.p++;
		result = wire_schema_get(r, &c);
		if (result <= 0)
			return result;
		r->start = (size_t) (c.p - r->buf);
	}
	if (c.p == c.end)
		return 0;
	record->tag = (enum ingest_wire_tag) * c.p++;
	switch (record->tag) {
	case INGEST_WIRE_EVENT:
		result = wire_event_get(r, &c);
		if (result == 1) {
			r->last_ts = r->event.ts_ns;
			record->event = &r->event;
			/* Member by member: a whole-struct copy (one 16-byte load) of what
			 * wire_event_get() has just stored member by member stalls on the store
			 * buffer, once per event. */
			record->order.ordinal = r->order.ordinal;
			record->order.ts = r->order.ts;
		}
		break;
	case INGEST_WIRE_DISCARD:
		if (wire_bytes_get(&c, &record->discard, sizeof(record->discard)) &&
		    !wire_discard_is_valid(&record->discard))
			return -1;
		if (r->is_ordered) {
			uint64_t ordinal = wire_varint_get(&c);

			if (wire_bytes_get(&c, &record->order.ts, sizeof(int64_t)) &&
			    ordinal > UINT32_MAX)
				return -1;
			record->order.ordinal = (uint32_t) ordinal;
		}
		break;
	case INGEST_WIRE_STREAM: {
		uint64_t ordinal = wire_varint_get(&c);
		unsigned char has_uuid = 0;

		record->key = (struct fsa_decoder_stream_key){0};
		if (wire_bytes_get(&c, &has_uuid, 1) &&
		    wire_bytes_get(&c, record->key.uuid, sizeof(record->key.uuid))) {
			record->key.stream_class_id = wire_varint_get(&c);
			record->key.stream_id = wire_varint_get(&c);
		}
		if (c.is_short)
			break;
		if (ordinal > UINT32_MAX || has_uuid > 1)
			return -1;
		record->key.ordinal = (uint32_t) ordinal;
		record->key.has_uuid = has_uuid == 1;
		break;
	}
	case INGEST_WIRE_PROGRESS:
		record->events = wire_varint_get(&c);
		/* A fraction that is no fraction reads as "cannot tell" (negative). */
		if (wire_bytes_get(&c, &record->fraction, sizeof(record->fraction)) &&
		    !(record->fraction >= 0.0 && record->fraction <= 1.0))
			record->fraction = -1.0;
		break;
	case INGEST_WIRE_HEARTBEAT:
		break;
	case INGEST_WIRE_END: {
		uint64_t len;

		record->status = (int) wire_unzigzag(wire_varint_get(&c));
		wire_bytes_get(&c, &record->stats, sizeof(record->stats));
		len = wire_varint_get(&c);
		record->error = NULL;
		if (c.is_short)
			break;
		if (!wire_status_is_valid(record->status))
			return -1;
		if (len > (size_t) (c.end - c.p) + 1) {
			c.is_short = true;
			break;
		}
		if (len > 0) {
			record->error = strndup((const char *) c.p, len - 1);
			if (!record->error)
				return -1;
			wire_message_flatten(record->error);
			c.p += len - 1;
		}
		break;
	}
	default:
		return -1;
	}
	if (result < 0)
		return -1;
	if (c.is_short || result == 0)
		return 0;
	r->start = (size_t) (c.p - r->buf);
	return 1;
}
