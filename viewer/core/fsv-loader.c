/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: fsv_trace_open() (fsv-loader.h). The cache lookup (fsv-index.h's key and file),
 * the index builder run with posix_spawn and its protocol read line by line from its stdout, the
 * private folder it writes into, and the mapping of what it wrote. It builds nothing itself: the
 * index is the builder's, its format s9-idx's fsv-index.c.
 *
 * Where files go. The builder writes into a folder of its own, "build-PID-XXXXXX" beside the
 * cache files (same file system, so the finished file is renamed into the cache, never copied); the
 * folder is removed whatever happens — done, failed, crashed or cancelled — so no temporary file
 * outlives an open. Two viewers building one trace each rename a whole file to the same name:
 * both succeed, the last rename stays.
 */
#define _GNU_SOURCE /* realpath */
#include "fsv-loader-private.h"
#include "fsv-load-preview-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsv-index.h"

#define BUILDER_EXE "fencescope-index"

extern char **environ;

static gint builder_runs;

guint
_fsv_loader_get_builder_runs(void)
{
	return (guint) g_atomic_int_get(&builder_runs);
}

char *
_fsv_loader_dup_builder_path(void)
{
	const char *env = g_getenv("FENCESCOPE_INDEX_BUILDER");
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
	g_autofree char *relocated = NULL;

	if (env && *env)
		return g_strdup(env);
	if (self && g_str_has_prefix(self, FSV_BUILD_ROOT "/") &&
	    g_file_test(FSV_INDEX_BUILDER_BUILD_PATH, G_FILE_TEST_IS_EXECUTABLE))
		return g_strdup(FSV_INDEX_BUILDER_BUILD_PATH);
	if (g_file_test(FSV_INDEX_BUILDER_INSTALL_PATH, G_FILE_TEST_IS_EXECUTABLE))
		return g_strdup(FSV_INDEX_BUILDER_INSTALL_PATH);
	if (self) {
		g_autofree char *dir = g_path_get_dirname(self);

		/* A relocated install: PREFIX/bin/program → PREFIX/libexec/fencescope. */
		relocated = g_build_filename(dir, "..", "libexec", "fencescope", BUILDER_EXE, NULL);
		if (g_file_test(relocated, G_FILE_TEST_IS_EXECUTABLE))
			return g_steal_pointer(&relocated);
	}
	return g_strdup(FSV_INDEX_BUILDER_INSTALL_PATH);
}

/* Removes FOLDER and the files in it (the builder writes no subfolder). */
static void
remove_folder(const char *folder)
{
	g_autoptr(GDir) dir = NULL;
	const char *name;

	if (folder == NULL)
		return;
	dir = g_dir_open(folder, 0, NULL);
	while (dir && (name = g_dir_read_name(dir))) {
		g_autofree char *file = g_build_filename(folder, name, NULL);

		g_unlink(file);
	}
	g_rmdir(folder);
}

/*
 * Build folders are named PREFIX-PID-XXXXXX after the process that made them ("build-" in the
 * cache folder, "fencescope-index-build-" in the temporary folder when there is no cache folder).
 * One whose process is gone was left by a viewer that died mid-load (its builder died with it):
 * removed before building, so a crash leaves nothing behind for long.
 */
static void
sweep_orphan_build_folders(const char *folder, const char *prefix)
{
	g_autoptr(GDir) dir = g_dir_open(folder, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir))) {
		guint64 pid;
		g_autofree char *proc = NULL;
		g_auto(GStrv) parts = NULL;

		if (!g_str_has_prefix(name, prefix))
			continue;
		parts = g_strsplit(name + strlen(prefix), "-", 2);
		if (g_strv_length(parts) != 2 ||
		    !g_ascii_string_to_unsigned(parts[0], 10, 1, G_MAXINT32, &pid, NULL))
			continue;
		proc = g_strdup_printf("/proc/%" G_GUINT64_FORMAT, pid);
		if (!g_file_test(proc, G_FILE_TEST_EXISTS)) {
			g_autofree char *orphan = g_build_filename(folder, name, NULL);

			remove_folder(orphan);
		}
	}
}

/* What one run of the builder said on its pipe. */
typedef struct {
	FsvLoadProgressFunc func;
	gpointer user_data;
	FsvLoadProgress progress;
	FsvPreviewParser *parser;
	gboolean has_hello, is_done, is_partial;
	char *failure; /* the builder's "failed" line */
	char *partial; /* the builder's "done partial" cause */
} BuilderRun;

static void
builder_run_clear(BuilderRun *run)
{
	g_clear_pointer(&run->parser, _fsv_preview_parser_free);
	g_clear_pointer(&run->progress.preview, fsv_load_preview_unref);
	g_clear_pointer(&run->failure, g_free);
	g_clear_pointer(&run->partial, g_free);
}

static void
report(BuilderRun *run)
{
	if (run->func)
		run->func(&run->progress, run->user_data);
}

/* One line of the builder's protocol (docs/viewer.md "Loading"). Lines it does not know are
 * skipped: a newer builder may say more. */
static void
builder_line(BuilderRun *run, const char *line)
{
	g_autoptr(GError) error = NULL;

	if (g_str_has_prefix(line, "fencescope-index ")) {
		run->has_hello = TRUE;
	} else if (g_str_has_prefix(line, "progress ")) {
		g_auto(GStrv) fields = g_strsplit(line, " ", 3);
		guint64 events;

		if (g_strv_length(fields) == 3 &&
		    g_ascii_string_to_unsigned(fields[1], 10, 0, G_MAXUINT64, &events, NULL)) {
			run->progress.events = events;
			run->progress.fraction = g_ascii_strtod(fields[2], NULL);
			if (!(run->progress.fraction <= 1.0))
				run->progress.fraction = -1;
			report(run);
		}
	} else if (strcmp(line, "stage saving") == 0) {
		run->progress.stage = FSV_LOAD_STAGE_SAVING;
		report(run);
	} else if (g_str_has_prefix(line, "preview ") || g_str_has_prefix(line, "row ") ||
		   strcmp(line, "end") == 0) {
		FsvLoadPreview *preview = NULL;

		if (!_fsv_preview_parser_feed(run->parser, line, &preview, &error)) {
			g_debug("%s", error->message);
		} else if (preview) {
			g_clear_pointer(&run->progress.preview, fsv_load_preview_unref);
			run->progress.preview = preview;
			report(run);
		}
	} else if (strcmp(line, "done complete") == 0) {
		run->is_done = TRUE;
	} else if (g_str_has_prefix(line, "done partial")) {
		run->is_done = run->is_partial = TRUE;
		g_free(run->partial);
		run->partial = g_strdup(g_strstrip((char *) line + strlen("done partial")));
	} else if (g_str_has_prefix(line, "failed ")) {
		g_free(run->failure);
		run->failure = g_strdup(line + strlen("failed "));
	}
}

static char *
describe_signal(int signal)
{
	const char *abbrev = sigabbrev_np(signal);

	return abbrev ? g_strdup_printf("SIG%s", abbrev) : g_strdup_printf("signal %d", signal);
}

/* Cancel: the builder dies at once (its decoders die with it, PR_SET_PDEATHSIG); its pipe then
 * ends and the reading loop stops. Runs in the thread that cancels. */
static void
kill_builder(GCancellable *cancellable, gpointer data)
{
	(void) cancellable;
	kill((pid_t) GPOINTER_TO_INT(data), SIGKILL);
}

/*
 * Starts BUILDER with ARGV, its stdout into a pipe whose reading end is returned in *out_fd.
 * posix_spawn (a vfork), never fork: fork copies the page tables of the whole process while the
 * other threads wait on them, and in the viewer the process holds GTK and a mapped trace of
 * hundreds of megabytes; the UI thread stalled 150 ms at each open (as analyzer/ingest spawns
 * its decoders, for the same reason).
 */
static int
spawn_builder(const char *builder, char **argv, pid_t *pid, int *out_fd)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t signals;
	int fds[2];
	int err;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return errno;
	posix_spawn_file_actions_init(&actions);
	posix_spawnattr_init(&attr);
	/* No blocked signal and default actions (the viewer's threads may block some). */
	sigemptyset(&signals);
	posix_spawnattr_setsigmask(&attr, &signals);
	sigaddset(&signals, SIGPIPE);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	posix_spawnattr_setsigdefault(&attr, &signals);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
	err = posix_spawn(pid, builder, &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	close(fds[1]);
	if (err != 0) {
		close(fds[0]);
		return err;
	}
	*out_fd = fds[0];
	return 0;
}

/* Waits for the builder PID to end (it has said its last line). */
static int
reap_builder(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/*
 * Runs the builder on PATH into FILE. Returns FALSE with *error set when it did not write FILE
 * (failed, crashed, killed, cancelled). When it said "done" and closed its pipe it may still be
 * freeing its memory (a second for a 100 M event trace): then *unreaped is its pid, for the
 * caller to reap once it has mapped FILE, so that the two overlap; else 0.
 */
static gboolean
run_builder(const char *path, const char *key, const char *file, BuilderRun *run,
	    GCancellable *cancellable, pid_t *unreaped, GError **error)
{
	g_autofree char *builder = _fsv_loader_dup_builder_path();
	char *argv[] = {builder,       (char *) "--key", (char *) key,  (char *) "--output",
			(char *) file, (char *) "--",    (char *) path, NULL};
	pid_t pid;
	int fd = -1, status = 0, err;
	gulong handler;
	FILE *pipe;
	char *line = NULL;
	size_t size = 0;
	ssize_t len;

	err = spawn_builder(builder, argv, &pid, &fd);
	if (err != 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO,
			    "%s: cannot start the index builder %s: %s", path, builder,
			    g_strerror(err));
		return FALSE;
	}
	g_atomic_int_inc(&builder_runs);
	run->progress.builder_pid = (GPid) pid;
	run->progress.stage = FSV_LOAD_STAGE_READING;
	report(run);

	/* Called at once when already cancelled. */
	handler = cancellable ? g_cancellable_connect(cancellable, G_CALLBACK(kill_builder),
						      GINT_TO_POINTER((int) pid), NULL)
			      : 0;
	pipe = fdopen(fd, "r");
	if (pipe == NULL) {
		close(fd);
		kill(pid, SIGKILL);
	}
	while (pipe && (len = getline(&line, &size, pipe)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		builder_line(run, line);
	}
	free(line);
	if (pipe)
		fclose(pipe);
	/* The pipe ended: the builder closed it after its last line, exited or died. No kill
	 * after this (the pid is reaped and could be another process's next). */
	if (handler)
		g_cancellable_disconnect(cancellable, handler);
	*unreaped = 0;
	run->progress.builder_pid = 0;
	if (run->is_done && !g_cancellable_is_cancelled(cancellable)) {
		/* FILE is whole (written and renamed before "done"); whatever the builder does
		 * now, exiting, is no longer the index's business. */
		*unreaped = pid;
		return TRUE;
	}
	status = reap_builder(pid);
	if (g_cancellable_is_cancelled(cancellable)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: loading cancelled", path);
		return FALSE;
	}
	if (WIFSIGNALED(status)) {
		g_autofree char *name = describe_signal(WTERMSIG(status));

		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_TRACE,
			    "%s: the index builder %s (%s)", path,
			    WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGTERM
				? "was killed"
				: "crashed",
			    name);
		return FALSE;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == FSV_INDEX_EXIT_FAILED && run->failure) {
		/* The builder's one line is fsv_trace_load()'s, which starts with the path. */
		g_set_error_literal(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_TRACE, run->failure);
		return FALSE;
	}
	if (!WIFEXITED(status) ||
	    (WEXITSTATUS(status) != FSV_INDEX_EXIT_COMPLETE &&
	     WEXITSTATUS(status) != FSV_INDEX_EXIT_PARTIAL) ||
	    !run->is_done) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_TRACE,
			    "%s: the index builder %s ended without an index (exit status %d)",
			    path, builder, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return FALSE;
	}
	return TRUE;
}

static gboolean
is_cache_disabled(FsvOpenFlags flags)
{
	const char *env = g_getenv("FENCESCOPE_NO_INDEX_CACHE");

	return (flags & FSV_OPEN_NO_CACHE) || (env && *env && strcmp(env, "0") != 0);
}

/* The folder of the cache files, created: where builds go too, with the cache off as well (a
 * folder on disk: /tmp may be memory, and an index is hundreds of megabytes). */
static char *
cache_folder(const char *cache_file, GError **error)
{
	g_autofree char *dir =
	    cache_file ? g_path_get_dirname(cache_file)
		       : g_build_filename(g_get_user_cache_dir(), "fencescope", "index", NULL);

	if (g_mkdir_with_parents(dir, 0700) != 0) {
		int saved = errno;

		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", dir,
			    g_strerror(saved));
		return NULL;
	}
	return g_steal_pointer(&dir);
}

/* The cache's cap (FENCESCOPE_INDEX_CACHE_MAX): the least recently used index files go, never
 * CACHE_FILE, the one being opened (docs/viewer.md "Index file and cache"). */
static void
prune_cache(const char *cache_file)
{
	g_autofree char *folder = g_path_get_dirname(cache_file);

	fsv_index_cache_prune(folder, fsv_index_cache_get_max(), cache_file);
}

FsvTrace *
fsv_trace_open(const char *path, FsvOpenFlags flags, FsvLoadProgressFunc progress,
	       gpointer user_data, GCancellable *cancellable, GError **error)
{
	gboolean use_cache = !is_cache_disabled(flags);
	g_autofree char *key = NULL;
	g_autofree char *cache_file = NULL;
	g_autofree char *folder = NULL;
	g_autofree char *build_dir = NULL;
	g_autofree char *built = NULL;
	g_autoptr(GError) local_error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	BuilderRun run = {.func = progress, .user_data = user_data};
	const char *prefix = "build-";
	pid_t unreaped = 0;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	if (g_cancellable_set_error_if_cancelled(cancellable, error))
		return NULL;
	run.progress.fraction = -1;
	run.progress.stage = FSV_LOAD_STAGE_CACHE;
	if (strstr(path, "://")) {
		/* A live session (net://…) has no identity on disk: built every time, never
		 * cached, under a key of this open alone. */
		use_cache = FALSE;
		key = g_uuid_string_random();
	} else {
		key = fsv_index_key(path, &local_error);
	}
	if (key == NULL) {
		/* No such path, or unreadable: fsv_trace_load()'s words, in the builder's place. */
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s", local_error->message);
		return NULL;
	}
	if (use_cache) {
		cache_file = fsv_index_cache_file(path, &local_error);
		if (cache_file == NULL) {
			/* No cache folder: open without one rather than not at all. */
			g_debug("no index cache: %s", local_error->message);
			g_clear_error(&local_error);
			use_cache = FALSE;
		}
	}
	if (use_cache && g_file_test(cache_file, G_FILE_TEST_IS_REGULAR)) {
		report(&run);
		trace = fsv_index_map(cache_file, key, path, &local_error);
		if (trace) {
			/* Used now: the last file the cap removes. */
			fsv_index_cache_touch(cache_file);
			prune_cache(cache_file);
			return g_steal_pointer(&trace);
		}
		/* Stale or damaged: never trusted, rebuilt (and replaced below). */
		g_debug("%s: rebuilding the index: %s", path, local_error->message);
		g_clear_error(&local_error);
	}

	folder = cache_folder(cache_file, &local_error);
	if (folder == NULL) {
		/* No cache folder (a read-only home, say): build in the temporary folder, and keep
		 * nothing. */
		g_debug("no index cache: %s", local_error->message);
		g_clear_error(&local_error);
		use_cache = FALSE;
		folder = g_strdup(g_get_tmp_dir());
		prefix = "fencescope-index-build-";
	}
	sweep_orphan_build_folders(folder, prefix);
	{
		g_autofree char *name = g_strdup_printf("%s%d-XXXXXX", prefix, (int) getpid());

		build_dir = g_build_filename(folder, name, NULL);
	}
	if (g_mkdtemp(build_dir) == NULL) {
		int saved = errno;

		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", build_dir,
			    g_strerror(saved));
		return NULL;
	}
	built = g_build_filename(build_dir, "index.fsvi", NULL);
	run.parser = _fsv_preview_parser_new();
	if (run_builder(path, key, built, &run, cancellable, &unreaped, error)) {
		run.progress.stage = FSV_LOAD_STAGE_MAPPING;
		report(&run);
		trace = fsv_index_map(built, key, path, &local_error);
		if (unreaped)
			reap_builder(unreaped);
		if (trace == NULL)
			g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO,
				    "%s: the index the builder wrote cannot be read: %s", path,
				    local_error->message);
		else if (use_cache && !run.is_partial && g_rename(built, cache_file) != 0)
			g_debug("%s: not kept in the cache: %s", cache_file, g_strerror(errno));
		else if (use_cache && !run.is_partial)
			prune_cache(cache_file);
	}
	/* What the builder wrote and was not renamed into the cache goes; a mapping stays valid
	 * after its file is unlinked. */
	remove_folder(build_dir);
	builder_run_clear(&run);
	return g_steal_pointer(&trace);
}
