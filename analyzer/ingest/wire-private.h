/* SPDX-License-Identifier: MIT */
/*
 * The decoder helper's wire: what `fencescope-decode` (decode-main.c) writes and
 * fsa_ingest_run() (ingest.c) reads back. The bytes go through a ring in shared memory (a memfd
 * the reader creates), so that every record the helper finished is there to read even when
 * libbabeltrace2 crashes the helper a moment later; two pipes only wake the other side up
 * ("there is data" every 256 KiB and at the end, "there is room" when the writer waits), and the
 * first one's end of file says that the helper is gone.
 *
 * A stream of records, each a tag byte and a body of LEB128 varints and a few raw structs; both
 * ends are the same build, so nothing is versioned.
 *
 *   'K' schema: id (the next one, from 0), slot count, then each slot's byte, ascending: one set
 *       of present integer slots. Sent once, before the first event that has it (the events of
 *       one class always have the same set): an event then names it instead of its slots.
 *   'E' event: schema id, type, ts delta from the previous event (zigzag), cpu_id + 1, the raw
 *       8-byte value of each slot of the schema in its order, then a flags byte saying which of
 *       the rest follow (most events have none of them): 1 the strings (mask, then length and
 *       bytes each), 2 fence_handles (count, values), 4 the other bytes of struct fsa_event
 *       (padding, trace_clock, cpu_ts_trace_ns, and any member added to the struct, so that it
 *       passes through without a change here) as raw regions: a mask of the regions that differ
 *       from the previous event's, then their bytes (the reader keeps the others; before the
 *       first event, every region is zero).
 *   'D' discard: struct fsa_discard, raw.
 *   'P' progress: events read (all providers), fraction (raw double).
 *   'H' heartbeat: nothing; the decoder is alive but has nothing yet (a live session).
 *   'Z' end: status (zigzag), struct fsa_ingest_stats raw, error length and bytes.
 *   'S' stream (order mode only): ordinal, has_uuid byte, 16 uuid bytes, stream class id, stream
 *       id: the muxer's key of a stream that began (struct fsa_decoder_stream_key).
 *
 * Order mode (--order: one of several decoders, merged by the reader): an event record ends with
 * its stream's ordinal and the muxer's time less the event's ts_ns (zigzag; 0 almost always), a
 * discard record with the ordinal and the muxer's time raw (struct fsa_decoder_order).
 *
 * It is not an interface: no other program should read it.
 */
#ifndef FSA_INGEST_WIRE_PRIVATE_H
#define FSA_INGEST_WIRE_PRIVATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decoder-private.h"
#include "fsa/event.h"
#include "fsa/ingest.h"

enum ingest_wire_tag {
	INGEST_WIRE_EVENT = 'E',
	INGEST_WIRE_DISCARD = 'D',
	INGEST_WIRE_PROGRESS = 'P',
	INGEST_WIRE_HEARTBEAT = 'H',
	INGEST_WIRE_END = 'Z',
	INGEST_WIRE_STREAM = 'S',
};

/* The schema record ('K'): read by ingest_wire_next() itself, never given out as a record. */
#define INGEST_WIRE_SCHEMA 'K'
/* At most this many schemas (a reader's memory, whatever a helper gone astray sends). */
#define INGEST_WIRE_SCHEMA_MAX 65536

/* One set of present integer slots, and its slots in ascending order. */
struct ingest_wire_schema {
	uint64_t present[FSA_FIELD_WORDS];
	uint32_t count;
	uint8_t slots[FSA_F_COUNT];
};

/* The shared ring's header, at the start of the memfd; the data follows at
 * INGEST_RING_DATA_OFFSET. head and tail count bytes since the start, never wrap. */
struct ingest_ring {
	_Atomic uint64_t head;           /* written and complete (the writer's) */
	_Atomic uint64_t tail;           /* taken by the reader (the reader's) */
	_Atomic uint32_t writer_waiting; /* the writer waits for room on the room pipe */
	uint32_t reserved;
	uint64_t size; /* data bytes */
};

#define INGEST_RING_DATA_OFFSET 4096
/* 16 MiB: the merge of two decoders takes records in the order of their times, so the decoder
 * whose streams are denser over a stretch of time has more to decode while the other waits
 * with a full ring; 4 MiB (~0.05 s of decoding) left them taking turns, 1.3 cores busy on two
 * (docs/analyzer.md "Two decoders"). Only the part a reading writes is ever touched. */
#define INGEST_RING_SIZE     (16 * 1024 * 1024)
#define INGEST_RING_SIZE_MIN (16 * 1024)

/* The reader's side: creates the memfd (close-on-exec) with `size` data bytes and maps it.
 * The reader keeps `size` itself: the header is shared, and a helper gone astray may write any
 * of it (its size included), so the reader never reads back more than `head`. */
bool ingest_ring_create(size_t size, int *shm_fd, struct ingest_ring **ring);
void ingest_ring_destroy(struct ingest_ring *ring, size_t size);

/* The writing end: each record is encoded in a scratch buffer, then published to the ring. */
struct ingest_wire_writer {
	struct ingest_ring *ring;
	unsigned char *data;
	/* The ring's data size, read once (the header is shared), and size - 1 when it is a power
	 * of two (0 otherwise): a record's place is then found without a division. */
	uint64_t size, mask;
	/* Free bytes in the ring as last seen, less what was written since: the reader's tail is
	 * read again only when a record needs more (it only ever frees more). */
	uint64_t room;
	int data_fd; /* "there is data": one byte per 256 KiB published, and at the end */
	int room_fd; /* "there is room": read when the ring is full */
	uint64_t unnotified;
	unsigned char *record; /* the record being written in the ring, NULL: in `buf` */
	unsigned char *buf;
	size_t len, capacity;
	uint64_t last_ts;
	/* The raw regions as the reader holds them (the last sent; zero at first). */
	unsigned char last_event[sizeof(struct fsa_event)];
	/* The schemas sent, by id, an open-addressing index of them by present slots (id + 1;
	 * 0: free), and the one an event of each type had last (id + 1; 0: none yet): the events
	 * of one type mostly have one schema, and types interleave, so this finds an event's
	 * schema at the first compare where the index would hash and probe. */
	struct ingest_wire_schema *schemas;
	size_t schema_count, schema_capacity;
	uint32_t *schema_index;
	size_t schema_index_capacity; /* a power of two */
	uint32_t schema_by_type[FSA_EV_COUNT];
	bool has_failed; /* the reader is gone: nothing more is written */
	/* Order mode: each event and discard carries `order` (written by the graph before each
	 * callback). */
	bool is_ordered;
	struct fsa_decoder_order order;
};

bool ingest_wire_writer_init(struct ingest_wire_writer *w, int shm_fd, int data_fd, int room_fd);
void ingest_wire_writer_fini(struct ingest_wire_writer *w);
/* Each returns false once writing has failed (the reader went away) or memory ran out. */
bool ingest_wire_put_event(struct ingest_wire_writer *w, const struct fsa_event *event);
bool ingest_wire_put_discard(struct ingest_wire_writer *w, const struct fsa_discard *discard);
bool ingest_wire_put_progress(struct ingest_wire_writer *w, uint64_t events, double fraction);
bool ingest_wire_put_heartbeat(struct ingest_wire_writer *w);
bool ingest_wire_put_end(struct ingest_wire_writer *w, int status,
			 const struct fsa_ingest_stats *stats, const char *error);
bool ingest_wire_put_stream(struct ingest_wire_writer *w, const struct fsa_decoder_stream_key *key);

/* One record read back. Pointers (event strings, fence handles) point into the reader's
 * buffers and live until the next ingest_wire_next(). */
struct ingest_wire_record {
	enum ingest_wire_tag tag;
	const struct fsa_event *event;
	struct fsa_discard discard;
	uint64_t events;
	double fraction;
	int status;
	struct fsa_ingest_stats stats;
	char *error;                       /* 'Z' only: (transfer full: free()), NULL when none */
	struct fsa_decoder_order order;    /* 'E' and 'D' in order mode */
	struct fsa_decoder_stream_key key; /* 'S' */
};

struct ingest_wire_reader {
	unsigned char *buf;
	size_t start, len, capacity;
	uint64_t last_ts;
	struct fsa_event event;
	struct fsa_decoder_order order; /* the event's, in order mode */
	uint64_t *handles;
	size_t handle_capacity;
	/* Strings are copied here with their NUL (the wire bytes have none). */
	char *strings;
	size_t string_capacity;
	/* The bytes taken from the ring so far: the shared tail is written, never read back. */
	uint64_t tail;
	/* The ring's head said more than the ring holds: nothing more is a record. */
	bool is_broken;
	/* The writer is in order mode (set after init). */
	bool is_ordered;
	/* The schemas received, by id. */
	struct ingest_wire_schema *schemas;
	size_t schema_count, schema_capacity;
};

bool ingest_wire_reader_init(struct ingest_wire_reader *r);
void ingest_wire_reader_fini(struct ingest_wire_reader *r);
/* Takes what the ring of `size` data bytes holds, up to 64 KiB at a time (a bite parsed while
 * it is still in the cache: call it again until it returns 0), into the reader's buffer and
 * makes room in the ring. Returns the byte count; *is_writer_waiting tells that the writer waits
 * for room (say so on the room pipe). A head that claims more than the ring holds breaks the
 * reader: from then on ingest_wire_next() returns -1. */
size_t ingest_wire_reader_take(struct ingest_wire_reader *r, struct ingest_ring *ring, size_t size,
			       bool *is_writer_waiting);
/* Takes the next whole record out of the buffer: 1 done, 0 it has not fully arrived, -1 the
 * bytes are not a record (a broken helper). */
int ingest_wire_next(struct ingest_wire_reader *r, struct ingest_wire_record *record);
/* Bytes of a record that began but did not end (they are dropped). */
size_t ingest_wire_reader_pending(const struct ingest_wire_reader *r);

#endif /* FSA_INGEST_WIRE_PRIVATE_H */
