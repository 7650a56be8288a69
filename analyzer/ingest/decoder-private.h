/* SPDX-License-Identifier: MIT */
/*
 * The decoder: one Babeltrace 2 message in, a normalized fencescope event (fsa/event.h) or a
 * tracer loss (struct fsa_discard) out. analyzer/ingest's graph and the Babeltrace plugin's sink
 * (analyzer/plugin) both feed it the messages they get from their upstream iterator, so the two
 * read a trace the same way. It builds no graph and owns no message.
 *
 * Speed is the point of this file: what an event class looks like (which payload member goes to
 * which slot, with which getter, and where the packet context keeps `cpu_id`) is worked out once,
 * the first time the class shows up, and kept in a table keyed by the class; an event then costs
 * a table lookup and one getter per member, with no string comparison and no allocation.
 */
#ifndef FSA_INGEST_DECODER_PRIVATE_H
#define FSA_INGEST_DECODER_PRIVATE_H

#include <babeltrace2/babeltrace.h>

#include "fsa/event.h"
#include "fsa/ingest.h"
#include "fsa/model.h"

struct fsa_decoder;

enum fsa_decoded {
	/* Nothing for the analyzer: a stream or packet message, or an event of another provider. */
	FSA_DECODED_NOTHING,
	FSA_DECODED_EVENT,
	FSA_DECODED_DISCARD,
	/* Order mode only (fsa_decoder_set_order): a stream began; fsa_decoder_stream_key() says
	 * which. */
	FSA_DECODED_STREAM,
};

/*
 * What flt.utils.muxer (libbabeltrace2 2.0) orders messages of different streams by when their
 * times are equal (plugins/common/muxing/muxing.c, common_muxing_compare_messages): the trace's
 * UUID (a trace with one first), its name, the stream class id, the stream id. The name is left
 * out: analyzer/ingest splits only traces whose folders all have a UUID, and one UUID is one
 * source component, hence one name. `ordinal` numbers the decoder's streams from 0 in the order
 * they began (never reused).
 */
struct fsa_decoder_stream_key {
	uint32_t ordinal;
	bool has_uuid;
	uint8_t uuid[16];
	uint64_t stream_class_id, stream_id;
};

/* Where a message stands in the muxer's order: its stream and the time the muxer sorts it by
 * (ns from origin, signed; a message without a time takes the time of the message before it,
 * as the muxer does). */
struct fsa_decoder_order {
	uint32_t ordinal;
	int64_t ts;
};

/* Returns: (transfer full) (nullable: out of memory). */
struct fsa_decoder *fsa_decoder_create(void);
void fsa_decoder_destroy(struct fsa_decoder *decoder);
/*
 * Events of a type for which `needs_payload` returns false are given out with their type,
 * timestamp and CPU only, no field read (the model counts them and nothing more). NULL, the
 * default, reads every field. Set it before the first message.
 */
void fsa_decoder_set_payload_filter(struct fsa_decoder *decoder,
				    bool (*needs_payload)(enum fsa_event_type type));

/*
 * For a consumer that reads only the slots marked in the event's `present` (the helper's wire,
 * wire.c): the slots that an event of another class set before are then left as they are instead
 * of being cleared to 0 (one store less per slot of the previous class). False, the default:
 * every slot not present is 0, as fsa/event.h says.
 */
void fsa_decoder_set_present_only(struct fsa_decoder *decoder, bool is_present_only);

/*
 * Decodes `msg`. On FSA_DECODED_EVENT, *event points to the decoder's own event, valid (with its
 * borrowed strings and fence handles) until the next call and while `msg` lives; on
 * FSA_DECODED_DISCARD, *discard is filled. Returns FSA_OK, FSA_ERR_NOMEM, or
 * FSA_ERR_FORMAT_VERSION for a trace_info of a newer major version, with a one-line message in
 * *error_message (transfer full, free()) that does not name the trace.
 */
fsa_status fsa_decoder_decode(struct fsa_decoder *decoder, const bt_message *msg,
			      enum fsa_decoded *what, const struct fsa_event **event,
			      struct fsa_discard *discard, char **error_message);

/*
 * Order mode, for a decoder that reads some of a trace's streams while another process reads the
 * others (analyzer/ingest's split): each stream beginning is given out as FSA_DECODED_STREAM, and
 * after each FSA_DECODED_EVENT or FSA_DECODED_DISCARD fsa_decoder_order() says where the message
 * stands in the muxer's order. Set it before the first message. Off by default.
 */
void fsa_decoder_set_order(struct fsa_decoder *decoder, bool is_ordered);

/*
 * For a graph without flt.utils.muxer (analyzer/ingest's graph when its source has a single
 * output port: one stream, which a muxer would only pass through): the decoder makes the checks
 * of libbabeltrace2 2.0's muxer, and returns FSA_ERR_TRACE, with the muxer's cause in
 * *error_message, where that muxer would have stopped the graph (a message time below the one
 * before, or one with no time in ns from origin). Set it before the first message. Off by
 * default.
 */
void fsa_decoder_set_muxer_checks(struct fsa_decoder *decoder, bool is_muxer_checked);
const struct fsa_decoder_order *fsa_decoder_order(const struct fsa_decoder *decoder);
/* After FSA_DECODED_STREAM: the stream that began. */
const struct fsa_decoder_stream_key *fsa_decoder_stream_key(const struct fsa_decoder *decoder);

/*
 * analyzer/ingest's graph (graph.c) in order mode, for the decoder helper (decode-main.c): each
 * stream's key goes to `stream` as it begins, and before each event or discard callback the
 * message's order is written to *current. NULL `stream`: order mode off (the default). Set it
 * before ingest_graph_read().
 */
void ingest_graph_set_order(fsa_status (*stream)(void *data,
						 const struct fsa_decoder_stream_key *key),
			    struct fsa_decoder_order *current, void *data);

/* Counts so far (trace_count is left 0: the decoder does not know the traces). */
const struct fsa_ingest_stats *fsa_decoder_borrow_stats(const struct fsa_decoder *decoder);

/* Trace time of the last event decoded, FSA_TIME_NONE before the first. */
uint64_t fsa_decoder_last_ts(const struct fsa_decoder *decoder);

#endif /* FSA_INGEST_DECODER_PRIVATE_H */
