/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvLiveReader (fsv-live-reader.h). The log of what arrived is one byte array of
 * records: an event is its type, times and CPU, its presence bits, the values of the fields it
 * has, its strings (interned: names repeat) and its fence handle list; a tracer loss is its
 * struct. A replay decodes the records one at a time into one scratch event, so a rebuild needs
 * no second copy of the session.
 */
#include "fsv-live-reader.h"

#include <string.h>

#include "fsv-trace-private.h"

#define LIVE_DEFAULT_INTERVAL_MS 1000
/* The clock is looked at every this many events (and whenever the reader waits for data). */
#define LIVE_CLOCK_EVERY 1024

enum { LIVE_RECORD_EVENT = 1, LIVE_RECORD_DISCARD = 2 };

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
	GByteArray *log;
	GStringChunk *strings;
	GPtrArray *handle_lists; /* g_free'd fence handle arrays */
	guint64 events_at_build;
	gint64 next_build_us;
};

/* Replay state: where in the log, and the scratch records handed out. */
typedef struct {
	const GByteArray *log;
	gsize at;
	struct fsa_event event;
	struct fsa_discard discard;
} LiveReplay;

static void
log_put(GByteArray *log, const void *bytes, gsize size)
{
	g_byte_array_append(log, bytes, (guint) size);
}

static void
log_get(LiveReplay *replay, void *bytes, gsize size)
{
	memcpy(bytes, replay->log->data + replay->at, size);
	replay->at += size;
}

static void
log_event(FsvLiveReader *reader, const struct fsa_event *event)
{
	GByteArray *log = reader->log;
	guint8 kind = LIVE_RECORD_EVENT;
	guint32 type = (guint32) event->type;
	guint32 handle_count = event->fence_handle_count;

	log_put(log, &kind, 1);
	log_put(log, &type, sizeof(type));
	log_put(log, &event->ts_ns, sizeof(event->ts_ns));
	log_put(log, &event->trace_clock, sizeof(event->trace_clock));
	log_put(log, &event->cpu_ts_trace_ns, sizeof(event->cpu_ts_trace_ns));
	log_put(log, &event->cpu_id, sizeof(event->cpu_id));
	log_put(log, event->present, sizeof(event->present));
	for (guint f = 0; f < FSA_F_COUNT; f++)
		if (fsa_event_has(event, (enum fsa_field) f))
			log_put(log, &event->u[f], sizeof(event->u[f]));
	for (guint s = 0; s < FSA_S_COUNT; s++) {
		const char *text =
		    event->s[s] ? g_string_chunk_insert_const(reader->strings, event->s[s]) : NULL;

		log_put(log, &text, sizeof(text));
	}
	if (!event->fence_handles)
		handle_count = 0;
	log_put(log, &handle_count, sizeof(handle_count));
	if (handle_count > 0) {
		guint64 *handles =
		    g_memdup2(event->fence_handles, handle_count * sizeof(*event->fence_handles));

		g_ptr_array_add(reader->handle_lists, handles);
		log_put(log, &handles, sizeof(handles));
	}
}

static gboolean
replay_next(gpointer data, const struct fsa_event **event, const struct fsa_discard **discard)
{
	LiveReplay *replay = data;
	guint8 kind;
	guint32 type, handle_count;

	*event = NULL;
	*discard = NULL;
	if (replay->at >= replay->log->len)
		return FALSE;
	log_get(replay, &kind, 1);
	if (kind == LIVE_RECORD_DISCARD) {
		log_get(replay, &replay->discard, sizeof(replay->discard));
		*discard = &replay->discard;
		return TRUE;
	}
	fsa_event_clear(&replay->event);
	log_get(replay, &type, sizeof(type));
	replay->event.type = (enum fsa_event_type) type;
	log_get(replay, &replay->event.ts_ns, sizeof(replay->event.ts_ns));
	log_get(replay, &replay->event.trace_clock, sizeof(replay->event.trace_clock));
	log_get(replay, &replay->event.cpu_ts_trace_ns, sizeof(replay->event.cpu_ts_trace_ns));
	log_get(replay, &replay->event.cpu_id, sizeof(replay->event.cpu_id));
	log_get(replay, replay->event.present, sizeof(replay->event.present));
	for (guint f = 0; f < FSA_F_COUNT; f++)
		if (fsa_event_has(&replay->event, (enum fsa_field) f))
			log_get(replay, &replay->event.u[f], sizeof(replay->event.u[f]));
	for (guint s = 0; s < FSA_S_COUNT; s++)
		log_get(replay, &replay->event.s[s], sizeof(replay->event.s[s]));
	log_get(replay, &handle_count, sizeof(handle_count));
	replay->event.fence_handle_count = handle_count;
	if (handle_count > 0)
		log_get(replay, &replay->event.fence_handles, sizeof(replay->event.fence_handles));
	*event = &replay->event;
	return TRUE;
}

/* The trace of everything logged so far. Returns: (transfer full) (nullable). */
static FsvTrace *
reader_build(FsvLiveReader *reader, const struct fsa_ingest_stats *stats, const char *partial_error)
{
	LiveReplay *replay = g_new0(LiveReplay, 1);
	FsvTrace *trace;

	replay->log = reader->log;
	trace = _fsv_trace_new_from_replay(reader->url, replay_next, replay, stats, partial_error);
	g_free(replay);
	return trace;
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
	trace = reader_build(reader, NULL, NULL);
	took = g_get_monotonic_time() - now;
	g_debug("%s: rebuilt from %" G_GUINT64_FORMAT " events in %.3f s", reader->url, events,
		(double) took / 1e6);
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
	log_event(reader, event);
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
	guint8 kind = LIVE_RECORD_DISCARD;

	log_put(reader->log, &kind, 1);
	log_put(reader->log, discard, sizeof(*discard));
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
		trace = reader_build(reader, &stats, status == FSA_OK ? NULL : message);
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
	reader->log = g_byte_array_new();
	reader->strings = g_string_chunk_new(4096);
	reader->handle_lists = g_ptr_array_new_with_free_func(g_free);
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
	g_byte_array_unref(reader->log);
	g_string_chunk_free(reader->strings);
	g_ptr_array_unref(reader->handle_lists);
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
