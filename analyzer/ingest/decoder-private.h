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

/* Counts so far (trace_count is left 0: the decoder does not know the traces). */
const struct fsa_ingest_stats *fsa_decoder_borrow_stats(const struct fsa_decoder *decoder);

/* Trace time of the last event decoded, FSA_TIME_NONE before the first. */
uint64_t fsa_decoder_last_ts(const struct fsa_decoder *decoder);

#endif /* FSA_INGEST_DECODER_PRIVATE_H */
