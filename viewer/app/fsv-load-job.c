/* SPDX-License-Identifier: MIT */
/*
 * FsvLoadJob (fsv-load-job.h). The worker thread only writes the latest progress and preview
 * (under a mutex, in the task's data); a 100 ms timeout on the main thread reads them for the
 * owner, so the owner never touches them from the thread and the thread never touches a widget.
 *
 * The job is reference counted between its owner and its GTask's callback: the owner may drop it
 * while the thread still runs (a newer open, a closed window), and the callback then finds it
 * with no owner's callbacks left and only lets it go.
 */
#include "fsv-load-job.h"

/* Shared by the thread (writer) and the main thread's progress timeout (reader): the task's
 * data, freed with the task once the thread is over and its callback has run. */
typedef struct {
	char *path;
	FsvOpenFlags flags;
	GApplication *held; /* Owned and held while the thread runs, nullable */
	GMutex lock;
	/* Under lock. progress.preview is owned: the latest, NULL before the first. */
	FsvLoadProgress progress;
} LoadShared;

struct _FsvLoadJob {
	GCancellable *cancellable; /* Owned */
	LoadShared *shared;        /* Weak: the task's data, alive until done_cb has run */
	guint progress_source;     /* the 100 ms timeout, 0 once the thread is over */
	/* The owner's callbacks, cleared when the owner destroys the job. */
	FsvLoadJobProgressFunc progress;
	FsvLoadJobDoneFunc done;
	gpointer user_data;
};

static void
shared_free(gpointer data)
{
	LoadShared *shared = data;

	g_clear_pointer(&shared->progress.preview, fsv_load_preview_unref);
	g_mutex_clear(&shared->lock);
	if (shared->held) {
		g_application_release(shared->held);
		g_object_unref(shared->held);
	}
	g_free(shared->path);
	g_free(shared);
}

static void
job_clear(gpointer data)
{
	FsvLoadJob *job = data;

	g_clear_handle_id(&job->progress_source, g_source_remove);
	g_clear_object(&job->cancellable);
}

static void
job_unref(FsvLoadJob *job)
{
	g_rc_box_release_full(job, job_clear);
}

/* The thread's progress callback (fsv-loader.h). */
static void
on_thread_progress(const FsvLoadProgress *progress, gpointer user_data)
{
	LoadShared *shared = user_data;
	FsvLoadPreview *old = NULL;

	g_mutex_lock(&shared->lock);
	if (progress->preview != shared->progress.preview) {
		old = shared->progress.preview;
		shared->progress.preview =
		    progress->preview ? fsv_load_preview_ref(progress->preview) : NULL;
	}
	shared->progress.stage = progress->stage;
	shared->progress.events = progress->events;
	shared->progress.fraction = progress->fraction;
	shared->progress.builder_pid = progress->builder_pid;
	g_mutex_unlock(&shared->lock);
	/* Freed outside the lock: the main thread never waits on more than a few stores. */
	if (old)
		fsv_load_preview_unref(old);
}

static void
load_thread(GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
	LoadShared *shared = task_data;
	g_autoptr(GError) error = NULL;
	FsvTrace *trace;

	(void) source_object;
	trace = fsv_trace_open(shared->path, shared->flags, on_thread_progress, shared, cancellable,
			       &error);
	g_mutex_lock(&shared->lock);
	shared->progress.builder_pid = 0;
	g_mutex_unlock(&shared->lock);
	if (trace == NULL)
		g_task_return_error(task, g_steal_pointer(&error));
	else
		g_task_return_pointer(task, trace, (GDestroyNotify) fsv_trace_unref);
}

/* A copy of what the thread last reported; its preview is a reference of the caller's. */
static void
shared_snapshot(LoadShared *shared, FsvLoadProgress *snapshot)
{
	g_mutex_lock(&shared->lock);
	*snapshot = shared->progress;
	if (snapshot->preview)
		fsv_load_preview_ref(snapshot->preview);
	g_mutex_unlock(&shared->lock);
}

static gboolean
progress_tick(gpointer user_data)
{
	FsvLoadJob *job = user_data;
	FsvLoadProgress snapshot;

	shared_snapshot(job->shared, &snapshot);
	job->progress(&snapshot, job->user_data);
	g_clear_pointer(&snapshot.preview, fsv_load_preview_unref);
	return G_SOURCE_CONTINUE;
}

static void
done_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	FsvLoadJob *job = user_data;
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(GError) error = NULL;

	(void) source;
	trace = g_task_propagate_pointer(G_TASK(result), &error);
	g_clear_handle_id(&job->progress_source, g_source_remove);
	job->shared = NULL; /* freed with the task, after this callback */
	if (job->done) {
		FsvLoadJobDoneFunc done = job->done;

		/* Called once; the owner may destroy the job from it. */
		job->done = NULL;
		job->progress = NULL;
		if (trace == NULL &&
		    (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
		     g_error_matches(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_CANCELLED)))
			g_clear_error(&error);
		done(trace, error, job->user_data);
	}
	job_unref(job);
}

FsvLoadJob *
fsv_load_job_start(const char *path, FsvOpenFlags flags, GApplication *application,
		   FsvLoadJobProgressFunc progress, FsvLoadJobDoneFunc done, gpointer user_data)
{
	FsvLoadJob *job;
	LoadShared *shared;
	g_autoptr(GTask) task = NULL;

	g_return_val_if_fail(path != NULL && done != NULL, NULL);
	shared = g_new0(LoadShared, 1);
	g_mutex_init(&shared->lock);
	shared->path = g_strdup(path);
	shared->flags = flags;
	shared->progress.fraction = -1;
	if (application) {
		shared->held = g_object_ref(application);
		g_application_hold(shared->held);
	}
	job = g_rc_box_new0(FsvLoadJob);
	job->cancellable = g_cancellable_new();
	job->shared = shared;
	job->progress = progress;
	job->done = done;
	job->user_data = user_data;
	/* The task's reference, released by done_cb. */
	task = g_task_new(NULL, job->cancellable, done_cb, g_rc_box_acquire(job));
	g_task_set_task_data(task, shared, shared_free);
	/* The callback waits for the thread: the builder is killed and its files removed first. */
	g_task_set_return_on_cancel(task, FALSE);
	if (progress)
		job->progress_source = g_timeout_add(100, progress_tick, job);
	g_task_run_in_thread(task, load_thread);
	return job;
}

void
fsv_load_job_cancel(FsvLoadJob *job)
{
	g_return_if_fail(job != NULL);
	g_cancellable_cancel(job->cancellable);
}

GPid
fsv_load_job_get_builder_pid(FsvLoadJob *job)
{
	GPid pid;

	g_return_val_if_fail(job != NULL, 0);
	if (job->shared == NULL)
		return 0;
	g_mutex_lock(&job->shared->lock);
	pid = job->shared->progress.builder_pid;
	g_mutex_unlock(&job->shared->lock);
	return pid;
}

void
fsv_load_job_destroy(FsvLoadJob *job)
{
	if (job == NULL)
		return;
	g_cancellable_cancel(job->cancellable);
	g_clear_handle_id(&job->progress_source, g_source_remove);
	job->progress = NULL;
	job->done = NULL;
	job->user_data = NULL;
	job_unref(job);
}
