/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvLiveReader, a live LTTng session (net://…) read as it records, for `fencescope
 * view --live` (issue 16 §4). A thread of its own reads the session with analyzer/ingest
 * (libbabeltrace2 runs in ingest's decoder children, as for every trace) and feeds each event
 * and tracer loss once to one analyzer model that lives as long as the session, keeping the
 * items it gives out (FsvTraceAppend, fsv-trace-private.h); about once a second it builds an
 * FsvTrace of everything so far from those and what the model still holds open (fsa_model_peek:
 * operations still open drawn as never completed). When the session ends (it was destroyed) the
 * model is finished and the last trace is the whole session's, the one the recording gives at
 * once.
 *
 * Each build still indexes the whole session so far: the next build waits at least twice as
 * long as the last one took, so the reader spends at most a third of its time building
 * (docs/viewer.md "Live").
 *
 * No GTK: the window marshals the traces to its own thread (viewer/app/fsv-live.c).
 */
#ifndef FSV_LIVE_READER_H
#define FSV_LIVE_READER_H

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

typedef struct _FsvLiveReader FsvLiveReader;

/*
 * Called from the reader's thread: with each newer TRACE while the session records (IS_FINAL
 * false), then once with IS_FINAL true: the whole session's trace (partial, with the cause, when
 * the relay daemon went away under it), or TRACE NULL and ERROR set when the session could not
 * be read at all or sent no event (no such session). TRACE: (transfer none), take a reference
 * to keep it. EVENTS: read so far.
 */
typedef void (*FsvLiveTraceFunc)(FsvTrace *trace, gboolean is_final, guint64 events,
				 const GError *error, gpointer user_data);

/*
 * Starts reading URL, building a trace at most every INTERVAL_MS (0: 1000).
 * Returns: (transfer full): stop and free it with fsv_live_reader_stop().
 */
FsvLiveReader *fsv_live_reader_start(const char *url, guint interval_ms, FsvLiveTraceFunc func,
				     gpointer user_data);
/* Stops reading (if it still runs) and waits for the thread: FUNC is not called after this. */
void fsv_live_reader_stop(FsvLiveReader *reader);
/* Events read so far (any thread). */
guint64 fsv_live_reader_get_events(FsvLiveReader *reader);

G_END_DECLS

#endif /* FSV_LIVE_READER_H */
