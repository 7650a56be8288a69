/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the loader the window and `fencescope render` open traces with (issue 15 §1).
 * fsv_trace_open() serves a trace from the index cache when a valid index of it is there (mapped,
 * not read), else builds the index in a child process, the index builder `fencescope-index`
 * (viewer/builder), forwarding its progress and its preview of what is loaded so far, and maps
 * the file it wrote. libbabeltrace2, the analyzer model and the index build all run in that child
 * (and its decoder children): a crash, an abort or a kill there ends only the child, and the
 * caller gets one line saying so. docs/viewer.md "Loading" describes the protocol and the cache.
 *
 * No GTK: the window calls it from a worker thread, `render` from its main thread.
 */
#ifndef FSV_LOADER_H
#define FSV_LOADER_H

#include <gio/gio.h>
#include <glib.h>

#include "fsv-load-preview.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

typedef enum {
	FSV_OPEN_DEFAULT = 0,
	/* Neither read nor write the index cache: the index is still built out of process, into a
	 * temporary file that is mapped and unlinked. FENCESCOPE_NO_INDEX_CACHE=1 in the
	 * environment sets it for every open. */
	FSV_OPEN_NO_CACHE = 1 << 0,
} FsvOpenFlags;

typedef enum {
	FSV_LOAD_STAGE_CACHE, /* looking for a valid index in the cache, mapping it */
	/* The builder reads the trace (events, fraction, preview), then sorts it and builds the
	 * level-of-detail indexes (fraction 1). */
	FSV_LOAD_STAGE_READING,
	FSV_LOAD_STAGE_SAVING,  /* the builder writes the index file */
	FSV_LOAD_STAGE_MAPPING, /* the builder is done: mapping the file it wrote */
} FsvLoadStage;

typedef struct {
	FsvLoadStage stage;
	guint64 events;  /* events read so far */
	double fraction; /* of the stream files read, in [0, 1]; negative when unknown */
	/* The latest preview of what is loaded so far, NULL before the first. Borrowed: take a
	 * reference (fsv_load_preview_ref) to keep it. */
	FsvLoadPreview *preview;
	GPid builder_pid; /* the builder process while it runs, else 0 */
} FsvLoadProgress;

/* Called from the thread that called fsv_trace_open(), at each stage, at each progress line of
 * the builder (about every 64k events) and at each preview (at most about 6 per second). */
typedef void (*FsvLoadProgressFunc)(const FsvLoadProgress *progress, gpointer user_data);

/*
 * Opens PATH (a trace folder, as fsv_trace_load() takes). Blocking: call it from a worker thread
 * in a GUI. Cancelling CANCELLABLE kills the builder (SIGKILL), removes what it wrote and returns
 * NULL with G_IO_ERROR_CANCELLED.
 *
 * A damaged trace still yields a trace with fsv_trace_get_partial_error() set, as
 * fsv_trace_load() does; such an index is never kept in the cache (the damage may be the
 * reader's and pass). A builder that crashed, aborted or was killed gives NULL and a one-line
 * error naming the trace and the signal.
 *
 * Returns: (transfer full) (nullable): the trace, or NULL with *error set (one line).
 */
FsvTrace *fsv_trace_open(const char *path, FsvOpenFlags flags, FsvLoadProgressFunc progress,
			 gpointer user_data, GCancellable *cancellable, GError **error);

G_END_DECLS

#endif /* FSV_LOADER_H */
