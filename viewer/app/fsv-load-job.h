/* SPDX-License-Identifier: MIT */
/*
 * FsvLoadJob: one trace folder opened off the UI thread — fsv_trace_open() (the index from the
 * cache or from the index builder process, fsv-loader.h) in a worker thread, its progress read
 * on the main thread every 100 ms, its trace or error handed back on the main thread. The
 * window's own trace and a comparison's NEW (fsv-compare.h) are both loaded by one.
 *
 * It is not what shows the progress (the owner's callback does, usually through
 * fsv_load_view_show_progress) nor what is done with the trace. A live session is not loaded
 * by one either: its reader hands over a trace every second (fsv-live.h).
 */
#ifndef FSV_LOAD_JOB_H
#define FSV_LOAD_JOB_H

#include <gio/gio.h>

#include "fsv-loader.h"

G_BEGIN_DECLS

typedef struct _FsvLoadJob FsvLoadJob;

/* On the main thread, every 100 ms while the job runs: what the thread last reported (PROGRESS
 * and its preview borrowed; fraction negative while unknown). */
typedef void (*FsvLoadJobProgressFunc)(const FsvLoadProgress *progress, gpointer user_data);
/*
 * On the main thread, once, when the thread is over: TRACE (transfer none: take a reference to
 * keep it), or ERROR (one line), or both NULL when fsv_load_job_cancel() stopped it first.
 * The owner still releases the job (fsv_load_job_destroy), from here or later.
 */
typedef void (*FsvLoadJobDoneFunc)(FsvTrace *trace, const GError *error, gpointer user_data);

/*
 * Starts loading PATH with FLAGS. APPLICATION (nullable) is held while the thread runs:
 * quitting then would leave the builder's wait undone. PROGRESS (nullable) and DONE are called
 * with USER_DATA on the main thread (the thread-default context of this call) until the job is
 * destroyed.
 *
 * Returns: (transfer full): the job; release it with fsv_load_job_destroy().
 */
FsvLoadJob *fsv_load_job_start(const char *path, FsvOpenFlags flags, GApplication *application,
			       FsvLoadJobProgressFunc progress, FsvLoadJobDoneFunc done,
			       gpointer user_data);
/* Asks the thread to stop (its builder is killed); DONE still comes, with both NULL (or with
 * the trace, if it was loaded before it could stop). */
void fsv_load_job_cancel(FsvLoadJob *job);
/* The index builder of the running load, 0 when none runs (a cache hit, or the thread over). */
GPid fsv_load_job_get_builder_pid(FsvLoadJob *job);
/* Releases JOB: a job still running is cancelled and calls nothing more (its thread ends on its
 * own, and only then lets the application go). */
void fsv_load_job_destroy(FsvLoadJob *job);

G_END_DECLS

#endif /* FSV_LOAD_JOB_H */
