/* SPDX-License-Identifier: MIT */
/*
 * analyzer/ingest: reads a trace with libbabeltrace2 and hands its fencescope events, normalized
 * (fsa/event.h), and its tracer losses (fsa_discard) to callbacks, one pass, in time order.
 *
 * A path is found like the babeltrace2 CLI finds it: a trace folder, or any folder above traces
 * (an lttng session folder with ust/uid/…/64-bit inside just works); every CTF trace under it is
 * read, one src.ctf.fs component per trace UUID, merged by flt.utils.muxer. A `net://` URL reads
 * an lttng live session through src.ctf.lttng-live (session-not-found-action=end).
 */
#ifndef FSA_INGEST_H
#define FSA_INGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "fsa/event.h"
#include "fsa/export.h"
#include "fsa/model.h"

struct fsa_ingest_callbacks {
	void *data;
	/* Returning non-FSA_OK stops reading; fsa_ingest_run() returns it. */
	fsa_status (*event)(void *data, const struct fsa_event *event);
	fsa_status (*discard)(void *data, const struct fsa_discard *discard);
	/* Called now and then (about every 64k events); fraction in [0, 1] when the reader can
	 * tell (bytes of stream files read so far), else negative. Returning true cancels. */
	bool (*progress)(void *data, uint64_t events, double fraction);
	/* Optional: events of a type it says no to come without fields (type, time and CPU
	 * only), which saves decoding them. NULL: every field of every event. */
	bool (*needs_payload)(enum fsa_event_type type);
	/* Optional: a one-line note on something that lost nothing (a file of the trace folder
	 * that is not a CTF stream, skipped), before the first event. NULL: the note goes to
	 * stderr, "fencescope: note: …". */
	void (*note)(void *data, const char *text);
};

struct fsa_ingest_stats {
	uint64_t events; /* every event message, fencescope or not */
	uint64_t fencescope_events;
	uint64_t other_events;     /* events of other providers (ignored) */
	uint64_t discarded_events; /* summed over discarded-events messages */
	uint64_t discarded_packets;
	uint32_t trace_count; /* CTF traces found */
};

/*
 * Reads TRACE (a path or a net:// URL) to its end. Returns FSA_OK, a callback's status, or an
 * error with a one-line message in *error_message (transfer full, free with free(); may be NULL
 * to ignore): FSA_ERR_IO (no such path, no CTF trace under it), FSA_ERR_TRACE (the trace cannot
 * be decoded; what was read before the damage has been delivered), FSA_ERR_FORMAT_VERSION.
 */
FSA_API fsa_status fsa_ingest_run(const char *trace, const struct fsa_ingest_callbacks *callbacks,
				  struct fsa_ingest_stats *stats, char **error_message);

/*
 * A folder that holds several recordings (LTTng sessions: their metadata differ in trace_name,
 * trace_creation_datetime or hostname) is never merged: fsa_ingest_run() refuses it with
 * FSA_ERR_IO and a message that lists them. This finds the folder of one of them: RECORDING is
 * its trace name, the whole name as listed, or its folder (as listed, or relative to TRACE).
 * *path: (transfer full, free()) the folder to give to fsa_ingest_run(). Returns FSA_OK,
 * FSA_ERR_IO (no such path, no or several recordings of that name, with the list in
 * *error_message) or FSA_ERR_NOMEM.
 */
/*
 * Removes the temporary folders that fsa_ingest_run() made in this process and has not removed
 * yet (its views of a trace: docs/analyzer.md "Two decoders", "Two processes").
 * Async-signal-safe: for a SIGINT/SIGTERM handler, which then ends the process.
 */
FSA_API void fsa_ingest_remove_temporary(void);

FSA_API fsa_status fsa_ingest_pick_recording(const char *trace, const char *recording, char **path,
					     char **error_message);

/* Convenience: reads TRACE into a model (fsa_model_add_event / _add_discard / _finish). */
FSA_API fsa_status fsa_ingest_into_model(const char *trace, struct fsa_model *model,
					 bool (*progress)(void *data, uint64_t events,
							  double fraction),
					 void *progress_data, struct fsa_ingest_stats *stats,
					 char **error_message);

#endif /* FSA_INGEST_H */
