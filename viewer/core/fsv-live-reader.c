/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvLiveReader (fsv-live-reader.h). Each event and tracer loss that arrives goes
 * once into one analyzer model (FsvTraceAppend, fsv-trace-private.h), which keeps the items it
 * gives out; a trace of the session so far is built from those and what the model still holds
 * open, without reading any event twice.
 */
#include "fsv-live-reader.h"

#include <string.h>

#include "fsv-trace-private.h"

#define LIVE_DEFAULT_INTERVAL_MS 1000
/* The clock is looked at every this many events (and whenever the reader waits for data). */
#define LIVE_CLOCK_EVERY 1024

struct _FsvLiveReader {
	char *url;
	guint interval_ms;
	FsvLiveTraceFunc func;
	gpointer user_data;
	GThread *thread;
	gint is_stopping; /* atomic */
	GMutex lock;
	guint64 shared_events; /* under lock: events as of the last look at the clock */

	/* Owned by the thread. */
	guint64 events;
	FsvTraceAppend *append; /* the session's model and the items it gave out */
	guint64 events_at_build;
	gint64 next_build_us;
};

/* The trace of everything read so far. Returns: (transfer full) (nullable). */
static FsvTrace *
reader_build(FsvLiveReader *reader, gboolean is_final, const struct fsa_ingest_stats *stats,
	     const char *partial_error)
{
	return reader->append
		   ? _fsv_trace_append_build(reader->append, is_final, stats, partial_error)
		   : NULL;
}

static void
reader_share_events(FsvLiveReader *reader)
{
	g_mutex_lock(&reader->lock);
	reader->shared_events = reader->events;
	g_mutex_unlock(&reader->lock);
}

/* Builds and hands on the trace so far when it is time and something new arrived. */
static void
reader_maybe_publish(FsvLiveReader *reader)
{
	gint64 now = g_get_monotonic_time();
	guint64 events = reader->events;
	FsvTrace *trace;
	gint64 took;

	if (now < reader->next_build_us || events == reader->events_at_build)
		return;
	trace = reader_build(reader, FALSE, NULL, NULL);
	took = g_get_monotonic_time() - now;
	g_debug("%s: built the trace of %" G_GUINT64_FORMAT " events in %.3f s", reader->url,
		events, (double) took / 1e6);
	reader->events_at_build = events;
	/* At most a third of the time rebuilding: the rest reads. */
	reader->next_build_us =
	    g_get_monotonic_time() + MAX((gint64) reader->interval_ms * 1000, 2 * took);
	if (trace && !g_atomic_int_get(&reader->is_stopping))
		reader->func(trace, FALSE, events, NULL, reader->user_data);
	if (trace)
		fsv_trace_unref(trace);
}

static fsa_status
reader_event(void *data, const struct fsa_event *event)
{
	FsvLiveReader *reader = data;

	if (g_atomic_int_get(&reader->is_stopping))
		return FSA_ERR_CANCELLED;
	if (reader->append)
		_fsv_trace_append_event(reader->append, event, NULL);
	if (++reader->events % LIVE_CLOCK_EVERY == 0) {
		reader_share_events(reader);
		reader_maybe_publish(reader);
	}
	return FSA_OK;
}

static fsa_status
reader_discard(void *data, const struct fsa_discard *discard)
{
	FsvLiveReader *reader = data;

	if (reader->append)
		_fsv_trace_append_event(reader->append, NULL, discard);
	return FSA_OK;
}

/* About every 64k events, and whenever the reader waits for data (the session's pauses). */
static bool
reader_progress(void *data, uint64_t events, double fraction)
{
	FsvLiveReader *reader = data;

	(void) events;
	(void) fraction;
	if (g_atomic_int_get(&reader->is_stopping))
		return true;
	reader_share_events(reader);
	reader_maybe_publish(reader);
	return g_atomic_int_get(&reader->is_stopping);
}

static gpointer
reader_thread(gpointer data)
{
	FsvLiveReader *reader = data;
	const struct fsa_ingest_callbacks callbacks = {
	    .data = reader,
	    .event = reader_event,
	    .discard = reader_discard,
	    .progress = reader_progress,
	    .needs_payload = fsa_model_needs_payload,
	};
	struct fsa_ingest_stats stats = {0};
	char *message = NULL;
	fsa_status status;
	FsvTrace *trace = NULL;
	g_autoptr(GError) error = NULL;

	reader->next_build_us = g_get_monotonic_time() + (gint64) reader->interval_ms * 1000;
	status = fsa_ingest_run(reader->url, &callbacks, &stats, &message);
	reader_share_events(reader);
	if (g_atomic_int_get(&reader->is_stopping) || status == FSA_ERR_CANCELLED) {
		free(message);
		return NULL;
	}
	/* The session's end (a destroyed session ends the stream: FSA_OK); a relay daemon that
	 * went away under us leaves what arrived, marked partial with the cause. */
	if (status == FSA_OK && reader->events == 0) {
		/* session-not-found-action=end: no such session (or it ended before we came). */
		g_set_error(
		    &error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO,
		    "%s: no event came (no such live session, or it ended before it recorded "
		    "anything)",
		    reader->url);
	} else if (status == FSA_OK || status == FSA_ERR_TRACE) {
		trace = reader_build(reader, TRUE, &stats, status == FSA_OK ? NULL : message);
	}
	if (trace == NULL && error == NULL)
		g_set_error(&error, FSV_TRACE_ERROR,
			    status == FSA_ERR_IO ? FSV_TRACE_ERROR_IO : FSV_TRACE_ERROR_TRACE, "%s",
			    message ? message : fsa_status_string(status));
	reader->func(trace, TRUE, reader->events, error, reader->user_data);
	if (trace)
		fsv_trace_unref(trace);
	free(message);
	return NULL;
}

FsvLiveReader *
fsv_live_reader_start(const char *url, guint interval_ms, FsvLiveTraceFunc func, gpointer user_data)
{
	FsvLiveReader *reader;

	g_return_val_if_fail(url != NULL && func != NULL, NULL);
	reader = g_new0(FsvLiveReader, 1);
	reader->url = g_strdup(url);
	reader->interval_ms = interval_ms ? interval_ms : LIVE_DEFAULT_INTERVAL_MS;
	reader->func = func;
	reader->user_data = user_data;
	reader->append = _fsv_trace_append_new(url);
	g_mutex_init(&reader->lock);
	reader->thread = g_thread_new("fsv-live-reader", reader_thread, reader);
	return reader;
}

void
fsv_live_reader_stop(FsvLiveReader *reader)
{
	if (reader == NULL)
		return;
	g_atomic_int_set(&reader->is_stopping, 1);
	/* The reading stops at its next event or quiet moment (ingest polls every 250 ms). */
	g_thread_join(reader->thread);
	_fsv_trace_append_free(reader->append);
	g_mutex_clear(&reader->lock);
	g_free(reader->url);
	g_free(reader);
}

guint64
fsv_live_reader_get_events(FsvLiveReader *reader)
{
	guint64 events;

	g_return_val_if_fail(reader != NULL, 0);
	g_mutex_lock(&reader->lock);
	events = reader->shared_events;
	g_mutex_unlock(&reader->lock);
	return events;
}
