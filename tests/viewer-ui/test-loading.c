/* SPDX-License-Identifier: MIT */
/*
 * UI tests of loading through the index builder (suite ui, under Xvfb; issue 15 §1). The window
 * opens copies of traces/frame-pipeline (a new folder is a new cache key, so the first open
 * builds): while the builder runs, the window shows the rows found so far with their density
 * strips, not an empty page (window-loading.png in the build folder); the second open of a
 * trace comes from the cache without running the builder; a builder killed with SIGKILL mid-load
 * leaves the window on its trace with a one-line error; Cancel kills the builder and leaves no
 * process and no temporary file; a damaged trace opens with the partial banner. The main loop's
 * longest stall while a trace loads and is first drawn is measured by a 2 ms timeout probe and
 * printed (FS_BENCH_TRACE names a large trace to measure on, else traces/stress is used).
 *
 * FsvLoadJob (the load of the window and of a comparison's NEW) hands over its trace once, ends
 * a cancel with neither trace nor error, and calls nothing once destroyed.
 *
 * Each test has a cache folder of its own (XDG_CACHE_HOME under its temporary folder).
 * FENCESCOPE_INDEX_HOLD_MS makes the builder wait once it has read the trace, before it writes
 * the index: a builder that is surely mid-load, to look at, kill or cancel.
 */
#define _GNU_SOURCE /* truncate(), RUSAGE_THREAD */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "fsv-load-job.h"
#include "fsv-loader-private.h"
#include "fst-ui.h"

static FsvWindow *window;

static gboolean
is_loaded(void)
{
	return !_fsv_window_is_loading(window);
}

static gboolean
has_preview(void)
{
	return _fsv_window_get_preview_row_count(window) > 0 || !_fsv_window_is_loading(window);
}

static char *
copy_trace(const char *name, const char *as)
{
	g_autofree char *sample = g_build_filename(FST_SOURCE_ROOT, "traces", name, NULL);
	char *copy = g_build_filename(fst_ui_get_work_dir(), as, NULL);
	g_autofree char *cp = g_strdup_printf("cp -r '%s' '%s'", sample, copy);

	cr_assert_eq(system(cp), 0, "%s", cp);
	return copy;
}

static void
open_path(const char *path)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);

	fsv_window_open(window, file);
	cr_assert(_fsv_window_is_loading(window));
}

static void
make_window(void)
{
	g_autofree char *first = NULL;

	g_unsetenv("FENCESCOPE_INDEX_HOLD_MS");
	g_unsetenv("FENCESCOPE_NO_INDEX_CACHE");
	/* A cache of this test's own (tests run side by side). */
	fst_ui_begin(TRUE);
	window = fst_ui_window_new(1400, 800);
	first = copy_trace("frame-pipeline", "frame-pipeline");
	open_path(first);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	fst_ui_settle();
}

static void
destroy_window(void)
{
	fst_ui_window_destroy(window);
	g_unsetenv("FENCESCOPE_INDEX_HOLD_MS");
	fst_ui_end();
}

TestSuite(loading, .init = make_window, .fini = destroy_window, .timeout = 240);

/* Files in the cache folder of a builder's private folder ("build-…") or a save's temporary
 * file (".tmp"). */
static guint
count_leftovers(void)
{
	g_autofree char *folder =
	    g_build_filename(g_get_user_cache_dir(), "fencescope", "index", NULL);
	g_autoptr(GDir) dir = g_dir_open(folder, 0, NULL);
	const char *name;
	guint n = 0;

	while (dir && (name = g_dir_read_name(dir)))
		if (g_str_has_prefix(name, "build-") || strstr(name, ".tmp"))
			n++;
	return n;
}

static gboolean
process_exists(GPid pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d", (int) pid);

	return g_file_test(path, G_FILE_TEST_EXISTS);
}

Test(loading, shows_the_rows_found_so_far_while_the_builder_runs)
{
	g_autofree char *path = copy_trace("frame-pipeline", "shown-while-loading");
	g_autofree char *shot = g_build_filename(FST_BUILD_DIR, "window-loading.png", NULL);
	g_autoptr(GdkTexture) texture = NULL;
	/* FsvLoadView's strip colour of a queue row (fence operations). */
	const double queue_pink[3] = {0.76, 0.09, 0.36};

	g_setenv("FENCESCOPE_INDEX_HOLD_MS", "4000", TRUE);
	open_path(path);
	cr_assert_str_eq(_fsv_window_get_page(window), "loading",
			 "the window shows '%s' while loading", _fsv_window_get_page(window));
	fst_ui_spin_until(has_preview, FST_UI_LOAD_TIMEOUT_US);
	cr_assert(_fsv_window_is_loading(window), "the load ended before the builder's hold");
	cr_assert_gt(_fsv_window_get_preview_row_count(window), 3);
	cr_assert_str_eq(_fsv_window_get_page(window), "loading");
	cr_assert(_fsv_window_is_progress_shown(window));
	for (int i = 0; i < 10; i++)
		fst_ui_settle();
	texture = fst_ui_screenshot(GTK_WIDGET(window));
	cr_expect(gdk_texture_save_to_png(texture, shot));
	cr_assert_gt(fst_ui_count_colour(texture, queue_pink, 12, 0, 0, G_MAXINT, G_MAXINT), 50,
		     "no queue strip drawn while loading (%s)", shot);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_str_eq(_fsv_window_get_page(window), "trace");
	cr_assert_str_eq(
	    fsv_trace_get_name(fsv_timeline_get_trace(_fsv_window_get_timeline(window))),
	    "shown-while-loading");
}

Test(loading, second_open_of_a_trace_comes_from_the_cache)
{
	g_autofree char *path = copy_trace("frame-pipeline", "opened-twice");
	guint runs = _fsv_loader_get_builder_runs();
	FsvTrace *first;
	guint ops;

	open_path(path);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_eq(_fsv_loader_get_builder_runs(), runs + 1);
	first = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	ops = fsv_trace_get_op_count(first);

	open_path(path);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_eq(_fsv_loader_get_builder_runs(), runs + 1, "the builder ran again");
	cr_assert_neq(fsv_timeline_get_trace(_fsv_window_get_timeline(window)), first);
	cr_assert_eq(
	    fsv_trace_get_op_count(fsv_timeline_get_trace(_fsv_window_get_timeline(window))), ops);
	cr_assert_str_eq(_fsv_window_get_page(window), "trace");
	cr_assert_eq(count_leftovers(), 0);

	/* --no-cache (fencescope-view's flag) builds it again. */
	fsv_window_set_open_flags(window, FSV_OPEN_NO_CACHE);
	open_path(path);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	fsv_window_set_open_flags(window, FSV_OPEN_DEFAULT);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_eq(_fsv_loader_get_builder_runs(), runs + 2);
}

Test(loading, killed_builder_keeps_the_trace_and_says_so_in_one_line)
{
	g_autofree char *path = copy_trace("frame-pipeline", "killed-mid-load");
	FsvTrace *before = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	const char *error;
	GPid pid;

	g_setenv("FENCESCOPE_INDEX_HOLD_MS", "30000", TRUE);
	open_path(path);
	fst_ui_spin_until(has_preview, FST_UI_LOAD_TIMEOUT_US);
	pid = _fsv_window_get_builder_pid(window);
	cr_assert_neq(pid, 0, "no builder runs");
	cr_assert_eq(kill(pid, SIGKILL), 0, "%s", g_strerror(errno));
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error, "a killed builder went without a word");
	cr_assert_not_null(strstr(error, "killed-mid-load"), "error: %s", error);
	cr_assert_not_null(strstr(error, "SIGKILL"), "error: %s", error);
	cr_assert_null(strchr(error, '\n'), "error: %s", error);
	cr_assert_eq(fsv_timeline_get_trace(_fsv_window_get_timeline(window)), before);
	cr_assert_str_eq(_fsv_window_get_page(window), "trace");
	cr_assert_not_null(strstr(gtk_window_get_title(GTK_WINDOW(window)), "frame-pipeline"));
	cr_assert(gtk_widget_get_visible(GTK_WIDGET(window)));
	cr_assert_eq(count_leftovers(), 0);
}

Test(loading, cancel_leaves_no_builder_and_no_temporary_file)
{
	g_autofree char *path = copy_trace("frame-pipeline", "cancelled");
	FsvTrace *before = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	GPid pid;

	g_setenv("FENCESCOPE_INDEX_HOLD_MS", "30000", TRUE);
	open_path(path);
	fst_ui_spin_until(has_preview, FST_UI_LOAD_TIMEOUT_US);
	pid = _fsv_window_get_builder_pid(window);
	cr_assert_neq(pid, 0, "no builder runs");
	cr_assert(gtk_widget_activate_action(GTK_WIDGET(window), "win.cancel-load", NULL));
	fst_ui_spin_until(is_loaded, 10 * G_USEC_PER_SEC);
	cr_assert_not(process_exists(pid), "the builder %d is still there", (int) pid);
	cr_assert_eq(count_leftovers(), 0);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	cr_assert_eq(fsv_timeline_get_trace(_fsv_window_get_timeline(window)), before);
	cr_assert_str_eq(_fsv_window_get_page(window), "trace");
}

Test(loading, damaged_trace_opens_with_the_partial_banner)
{
	g_autofree char *path = copy_trace("stress", "damaged");
	g_autofree char *stream =
	    g_build_filename(path, "ust", "uid", "0", "64-bit", "fencescope_0", NULL);
	const char *error;
	FsvTrace *trace;
	GStatBuf st;

	/* Cut in the middle: what comes before the cut is read. */
	cr_assert_eq(g_stat(stream, &st), 0, "%s", stream);
	cr_assert_eq(truncate(stream, st.st_size / 2 + 123), 0);
	open_path(path);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	error = _fsv_window_get_error(window);
	cr_assert_not_null(error, "a damaged trace opened without a word");
	cr_assert_null(strchr(error, '\n'), "banner: %s", error);
	trace = fsv_timeline_get_trace(_fsv_window_get_timeline(window));
	cr_assert_str_eq(fsv_trace_get_name(trace), "damaged");
	cr_assert_not_null(fsv_trace_get_partial_error(trace));
	cr_assert_str_eq(error, fsv_trace_get_partial_error(trace));
	cr_assert_str_eq(_fsv_window_get_page(window), "trace");
}

/* ---- FsvLoadJob, the load the window and a comparison's NEW both run (fsv-load-job.h) ---- */

/* What a job's callbacks were given. */
typedef struct {
	FsvLoadJob *job; /* Owned, released by on_job_done */
	guint progress_calls, done_calls;
	char *trace_name; /* of the trace handed over, NULL if none */
	char *error;      /* the error's message, NULL if none */
} JobSeen;

static JobSeen seen;

static void
on_job_progress(const FsvLoadProgress *progress, gpointer user_data)
{
	JobSeen *job_seen = user_data;

	(void) progress;
	job_seen->progress_calls++;
}

/* As the window does: the owner releases the job from its end. */
static void
on_job_done(FsvTrace *trace, const GError *error, gpointer user_data)
{
	JobSeen *job_seen = user_data;

	job_seen->done_calls++;
	job_seen->trace_name = trace ? g_strdup(fsv_trace_get_name(trace)) : NULL;
	job_seen->error = error ? g_strdup(error->message) : NULL;
	g_clear_pointer(&job_seen->job, fsv_load_job_destroy);
}

static gboolean
is_job_done(void)
{
	return seen.done_calls > 0;
}

static gboolean
has_job_builder(void)
{
	return seen.job && fsv_load_job_get_builder_pid(seen.job) != 0;
}

static void
begin_load_job(void)
{
	g_unsetenv("FENCESCOPE_INDEX_HOLD_MS");
	g_unsetenv("FENCESCOPE_NO_INDEX_CACHE");
	/* A cache of the test's own: a first open runs the builder. */
	fst_ui_begin(TRUE);
	memset(&seen, 0, sizeof(seen));
}

static void
end_load_job(void)
{
	g_clear_pointer(&seen.job, fsv_load_job_destroy);
	g_clear_pointer(&seen.trace_name, g_free);
	g_clear_pointer(&seen.error, g_free);
	g_unsetenv("FENCESCOPE_INDEX_HOLD_MS");
	fst_ui_end();
}

TestSuite(load_job, .init = begin_load_job, .fini = end_load_job, .timeout = 240);

Test(load_job, hands_over_the_trace_once_on_the_main_thread)
{
	g_autofree char *path = copy_trace("frame-pipeline", "job-loaded");

	seen.job =
	    fsv_load_job_start(path, FSV_OPEN_DEFAULT, NULL, on_job_progress, on_job_done, &seen);
	fst_ui_spin_until(is_job_done, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	cr_assert_eq(seen.done_calls, 1);
	cr_assert_str_eq(seen.trace_name, "job-loaded");
	cr_assert_null(seen.error, "%s", seen.error);
	cr_assert_null(seen.job, "released from its end");
}

/* Starts a load job of PATH whose builder holds before it ends; returns the builder's pid once
 * it runs. */
static GPid
start_held_job(const char *path)
{
	g_setenv("FENCESCOPE_INDEX_HOLD_MS", "30000", TRUE);
	seen.job =
	    fsv_load_job_start(path, FSV_OPEN_DEFAULT, NULL, on_job_progress, on_job_done, &seen);
	fst_ui_spin_until(has_job_builder, FST_UI_LOAD_TIMEOUT_US);
	return fsv_load_job_get_builder_pid(seen.job);
}

Test(load_job, cancelled_it_ends_with_neither_trace_nor_error_and_no_builder)
{
	g_autofree char *path = copy_trace("frame-pipeline", "job-cancelled");
	GPid pid;

	pid = start_held_job(path);
	fsv_load_job_cancel(seen.job);
	fst_ui_spin_until(is_job_done, 10 * G_USEC_PER_SEC);
	cr_assert_eq(seen.done_calls, 1);
	cr_assert_null(seen.trace_name);
	cr_assert_null(seen.error, "a cancel is no error: %s", seen.error);
	cr_assert_not(process_exists(pid), "the builder %d is still there", (int) pid);
	cr_assert_eq(count_leftovers(), 0);
}

/* A newer open, a closed comparison, a closed window: the owner drops the job mid-load, and
 * nothing of it reaches the owner any more. */
Test(load_job, destroyed_mid_load_calls_nothing_more_and_its_builder_is_killed)
{
	g_autofree char *path = copy_trace("frame-pipeline", "job-destroyed");
	gint64 deadline;
	guint progress_calls;
	GPid pid;

	pid = start_held_job(path);
	g_clear_pointer(&seen.job, fsv_load_job_destroy);
	progress_calls = seen.progress_calls;
	/* The thread ends once the builder is killed and its folder removed; its end is then
	 * dispatched on this main loop, which is run well past it. */
	deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while ((process_exists(pid) || count_leftovers() > 0) && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	cr_assert_not(process_exists(pid), "the builder %d is still there", (int) pid);
	cr_assert_eq(count_leftovers(), 0);
	for (int i = 0; i < 10; i++)
		fst_ui_settle();
	cr_assert_eq(seen.done_calls, 0, "a destroyed job called its owner");
	cr_assert_eq(seen.progress_calls, progress_calls, "a destroyed job reported progress");
}

/* ---- Responsiveness ---- */

typedef struct {
	gint64 last_us, worst_us;
	/* The main thread's CPU time between two ticks (CLOCK_THREAD_CPUTIME_ID): on a machine
	 * whose cores are shared, a stall of the process by the scheduler shows in the wall gap
	 * but not here; what the window's own code holds the loop for shows in both. */
	gint64 last_cpu_us, worst_cpu_us;
	gint64 start_us, worst_at_us; /* when the longest wall gap ended, from the open */
	/* Major page faults of the main thread (a mapped index read from disk) in that gap. */
	long last_majflt, worst_majflt;
	/* In the longest wall gap: the main thread's CPU time, and its time runnable but waiting
	 * for a core (the scheduler's run_delay, /proc/thread-self/schedstat). What is left of
	 * the gap, less the 2 ms of the timeout, the thread slept: waiting on something (a lock,
	 * a pipe, the X server), which is what the window could be to blame for. */
	gint64 last_wait_us, worst_gap_cpu_us, worst_gap_wait_us;
	guint ticks;
} Probe;

static long
thread_major_faults(void)
{
	struct rusage usage;

	getrusage(RUSAGE_THREAD, &usage);
	return usage.ru_majflt;
}

static gint64
thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* The main thread's time runnable but not running, waiting for a core (schedstat's second
 * field, ns), -1 when the kernel does not say. */
static gint64
thread_wait_us(void)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) fields = NULL;

	if (!g_file_get_contents("/proc/thread-self/schedstat", &text, NULL, NULL))
		return -1;
	fields = g_strsplit(g_strstrip(text), " ", 3);
	if (g_strv_length(fields) < 2)
		return -1;
	return g_ascii_strtoll(fields[1], NULL, 10) / 1000;
}

static gboolean
probe_tick(gpointer data)
{
	Probe *probe = data;
	gint64 now = g_get_monotonic_time(), cpu = thread_cpu_us(), wait = thread_wait_us();
	long majflt = thread_major_faults();

	if (probe->last_us) {
		if (now - probe->last_us > probe->worst_us) {
			probe->worst_at_us = now - probe->start_us;
			probe->worst_majflt = majflt - probe->last_majflt;
			probe->worst_gap_cpu_us = cpu - probe->last_cpu_us;
			probe->worst_gap_wait_us =
			    wait >= 0 && probe->last_wait_us >= 0 ? wait - probe->last_wait_us : -1;
		}
		probe->worst_us = MAX(probe->worst_us, now - probe->last_us);
		probe->worst_cpu_us = MAX(probe->worst_cpu_us, cpu - probe->last_cpu_us);
	}
	probe->last_us = now;
	probe->last_cpu_us = cpu;
	probe->last_wait_us = wait;
	probe->last_majflt = majflt;
	probe->ticks++;
	return G_SOURCE_CONTINUE;
}

/* What the main thread is doing, sampled every millisecond by another thread (its state and,
 * asleep, the kernel function it sleeps in: /proc/self/task/TID/stat and wchan), so that the
 * sleep in the longest gap can be named: poll (the main loop idle, woken late), a futex (a
 * lock another thread holds), a socket or pipe (the X server, a pipe), a page (the disk). */
typedef struct {
	gint64 us;
	char state;
	char wchan[40];
} Sample;

typedef struct {
	pid_t tid;
	gint stop;
	GMutex lock;
	GArray *samples; /* Sample */
} Sampler;

static gpointer
sampler_thread(gpointer data)
{
	Sampler *sampler = data;
	g_autofree char *stat_path = g_strdup_printf("/proc/self/task/%d/stat", (int) sampler->tid);
	g_autofree char *wchan_path =
	    g_strdup_printf("/proc/self/task/%d/wchan", (int) sampler->tid);
	g_autofree char *syscall_path =
	    g_strdup_printf("/proc/self/task/%d/syscall", (int) sampler->tid);

	while (!g_atomic_int_get(&sampler->stop)) {
		g_autofree char *stat = NULL;
		g_autofree char *wchan = NULL;
		Sample sample = {g_get_monotonic_time(), '?', ""};
		const char *paren;

		if (g_file_get_contents(stat_path, &stat, NULL, NULL) &&
		    (paren = strrchr(stat, ')')) && paren[1] == ' ')
			sample.state = paren[2];
		if (sample.state != 'R' && g_file_get_contents(wchan_path, &wchan, NULL, NULL))
			g_strlcpy(sample.wchan, wchan, sizeof(sample.wchan));
		/* In poll(2), its timeout tells whose poll it is: the main loop's is at most the
		 * probe's 2 ms, a wait for the X server (Xlib) is -1. */
		if (sample.state != 'R') {
			g_autofree char *call = NULL;
			g_auto(GStrv) args = NULL;

			if (g_file_get_contents(syscall_path, &call, NULL, NULL) &&
			    (args = g_strsplit(call, " ", 5)) && g_strv_length(args) >= 4 &&
			    strcmp(args[0], "7") == 0) {
				gint64 timeout = (gint) g_ascii_strtoull(args[3], NULL, 16);

				g_snprintf(sample.wchan, sizeof(sample.wchan),
					   "poll(timeout %" G_GINT64_FORMAT " ms)", timeout);
			}
		}
		g_mutex_lock(&sampler->lock);
		g_array_append_val(sampler->samples, sample);
		g_mutex_unlock(&sampler->lock);
		g_usleep(1000);
	}
	return NULL;
}

static int
compare_counts(gconstpointer a, gconstpointer b, gpointer data)
{
	guint x = GPOINTER_TO_UINT(g_hash_table_lookup(data, *(const char *const *) a));
	guint y = GPOINTER_TO_UINT(g_hash_table_lookup(data, *(const char *const *) b));

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The main thread's samples in [FROM, TO] (monotonic µs): "R 12, S poll_schedule_timeout 30,
 * …", most frequent first. */
static char *
describe_samples(Sampler *sampler, gint64 from, gint64 to)
{
	g_autoptr(GHashTable) counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GPtrArray) keys = g_ptr_array_new();
	GString *out = g_string_new(NULL);
	GHashTableIter iter;
	gpointer key;

	g_mutex_lock(&sampler->lock);
	for (guint i = 0; i < sampler->samples->len; i++) {
		const Sample *sample = &g_array_index(sampler->samples, Sample, i);
		char *name;

		if (sample->us < from || sample->us > to)
			continue;
		name = sample->state == 'R'
			   ? g_strdup("R (running or runnable)")
			   : g_strdup_printf("%c %s", sample->state, sample->wchan);
		g_hash_table_insert(
		    counts, name,
		    GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(counts, name)) + 1));
	}
	g_mutex_unlock(&sampler->lock);
	g_hash_table_iter_init(&iter, counts);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		g_ptr_array_add(keys, key);
	g_ptr_array_sort_with_data(keys, compare_counts, counts);
	for (guint i = 0; i < keys->len; i++)
		g_string_append_printf(
		    out, "%s%s %u", i ? ", " : "", (char *) keys->pdata[i],
		    GPOINTER_TO_UINT(g_hash_table_lookup(counts, keys->pdata[i])));
	return g_string_free(out, FALSE);
}

/* A line of /proc/self/status ("VmHWM", "VmRSS") in kB, -1 when missing. */
static long
status_kb(const char *field)
{
	g_autofree char *text = NULL;
	const char *line;

	if (!g_file_get_contents("/proc/self/status", &text, NULL, NULL) ||
	    !(line = strstr(text, field)))
		return -1;
	return strtol(line + strlen(field) + 1, NULL, 10);
}

static gboolean
is_drawn(void)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);

	return is_loaded() && gtk_widget_get_mapped(GTK_WIDGET(timeline)) &&
	       fsv_timeline_get_view(timeline) != NULL;
}

/* The main loop's longest stall, from the open to the first frames of the opened trace: the
 * gap between two runs of a 2 ms timeout (less its 2 ms), and the main thread's CPU time in
 * that gap. The CPU figure is what the window's own code holds the loop for; the wall gap adds
 * what the scheduler takes on a shared machine. Limits: FSV_FREEZE_LIMIT_MS on the CPU figure
 * (250 ms by default; issue 15 asks 50 ms on the 10 M-event trace, FS_BENCH_TRACE), and
 * FSV_FREEZE_WALL_LIMIT_MS on the wall gap (four times the other by default). */
Test(loading, the_main_loop_never_stalls_while_a_trace_loads)
{
	const char *bench = g_getenv("FS_BENCH_TRACE");
	const char *limit_env = g_getenv("FSV_FREEZE_LIMIT_MS");
	g_autofree char *path = bench && *bench ? g_strdup(bench) : copy_trace("stress", "stress");
	const char *wall_env = g_getenv("FSV_FREEZE_WALL_LIMIT_MS");
	gint64 limit_ms = limit_env ? g_ascii_strtoll(limit_env, NULL, 10) : 250;
	gint64 wall_limit_ms = wall_env ? g_ascii_strtoll(wall_env, NULL, 10) : 4 * limit_ms;

	/* Built by the builder, then mapped from the cache. */
	for (int round = 0; round < 2; round++) {
		Probe probe = {0};
		guint source, runs = _fsv_loader_get_builder_runs();
		gint64 start = g_get_monotonic_time(), worst_ms, loaded_us;
		Sampler sampler = {
		    (pid_t) gettid(), 0, {0}, g_array_new(FALSE, FALSE, sizeof(Sample))};
		GThread *sampling;
		g_autofree char *sampled = NULL;

		g_mutex_init(&sampler.lock);
		sampling = g_thread_new("sampler", sampler_thread, &sampler);
		probe.start_us = start;
		source = g_timeout_add(2, probe_tick, &probe);
		open_path(path);
		while (!is_drawn() && g_get_monotonic_time() - start < 600 * G_USEC_PER_SEC)
			g_main_context_iteration(NULL, TRUE);
		loaded_us = g_get_monotonic_time() - start;
		/* The first frames of the new trace (layout and drawing are the main loop's
		 * too). */
		for (gint64 until = g_get_monotonic_time() + 500000;
		     g_get_monotonic_time() < until;)
			g_main_context_iteration(NULL, TRUE);
		g_source_remove(source);
		g_atomic_int_set(&sampler.stop, 1);
		g_thread_join(sampling);
		sampled = describe_samples(&sampler, start + probe.worst_at_us - probe.worst_us,
					   start + probe.worst_at_us);
		g_array_unref(sampler.samples);
		g_mutex_clear(&sampler.lock);
		cr_assert(is_drawn(), "not loaded");
		cr_assert_null(_fsv_window_get_error(window), "error: %s",
			       _fsv_window_get_error(window));
		cr_assert_eq(_fsv_loader_get_builder_runs(), runs + (round == 0 ? 1 : 0));
		worst_ms = MAX(0, probe.worst_us / 1000 - 2);
		fprintf(
		    stderr,
		    "# freeze probe (%s): %s: loaded in %.2f s; longest main-loop stall "
		    "%" G_GINT64_FORMAT
		    " ms wall (ending %.2f s after the open, %ld major faults in it), %.1f ms of "
		    "the main thread's CPU between two ticks (%u ticks)\n",
		    round == 0 ? "built" : "from the cache", path,
		    (double) loaded_us / G_USEC_PER_SEC, worst_ms,
		    (double) probe.worst_at_us / G_USEC_PER_SEC, probe.worst_majflt,
		    probe.worst_cpu_us / 1000.0, probe.ticks);
		/* Where the longest gap went: the main thread working, waiting for a core, or
		 * asleep (blocked on something: ours to fix if it is long). */
		fprintf(stderr,
			"# longest gap: %.1f ms working, %.1f ms runnable waiting for a core, "
			"%.1f ms asleep (beyond the 2 ms timeout)\n",
			probe.worst_gap_cpu_us / 1000.0, probe.worst_gap_wait_us / 1000.0,
			MAX(0, probe.worst_us - 2000 - probe.worst_gap_cpu_us -
				   MAX(probe.worst_gap_wait_us, 0)) /
			    1000.0);
		fprintf(stderr, "# main thread sampled every ms in that gap: %s\n", sampled);
		/* The viewer's memory: the build's peak is the builder's, not the window's. */
		fprintf(stderr, "# viewer memory after the %s open: VmRSS %ld kB, VmHWM %ld kB\n",
			round == 0 ? "built" : "cached", status_kb("VmRSS:"), status_kb("VmHWM:"));
		cr_assert_lt(probe.worst_cpu_us / 1000, limit_ms,
			     "the main thread worked %.1f ms without returning to its loop",
			     probe.worst_cpu_us / 1000.0);
		cr_assert_lt(worst_ms, wall_limit_ms,
			     "the main loop stalled %" G_GINT64_FORMAT " ms", worst_ms);
	}
}

/* A folder that is no trace, opened in a new window: one line in the error bar, and that line
 * is not selected. (The real window, activated by xdotool, gave the selectable label its first
 * focus and GTK selected all its text: the error showed highlighted. Without a window manager
 * this process's window does not pick that focus, so the check below guards the label's
 * focusability rather than reproducing the highlight; fsv-window.ui says why.) */
Test(loading_bad_path, a_folder_that_is_no_trace_says_so_in_one_line)
{
	g_autofree char *dir = g_dir_make_tmp("fsv-ui-notrace-XXXXXX", NULL);
	g_autofree char *readme = g_build_filename(dir, "readme.txt", NULL);
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
	FsvWindow *fresh;
	GtkWidget *focus;
	const char *error;
	int start = 0, end = 0;

	cr_assert(g_file_set_contents(readme, "no trace here\n", -1, NULL));
	fst_ui_begin(FALSE);
	fresh = fst_ui_window_new(1000, 700);
	window = fresh;
	open_path(dir);
	fst_ui_spin_until(is_loaded, FST_UI_LOAD_TIMEOUT_US);
	fst_ui_settle();
	error = _fsv_window_get_error(fresh);
	cr_assert_not_null(error, "no word about a folder without a trace");
	cr_assert_null(strchr(error, '\n'), "one line: %s", error);
	cr_assert_not_null(strstr(error, "no CTF trace found"), "%s", error);
	/* What the window does when it becomes active (Xvfb has no window manager to activate
	 * it): the first focus stop takes the focus. */
	if (gtk_root_get_focus(GTK_ROOT(fresh)) == NULL)
		gtk_widget_child_focus(GTK_WIDGET(fresh), GTK_DIR_TAB_FORWARD);
	focus = gtk_root_get_focus(GTK_ROOT(fresh));
	cr_assert(!(focus && GTK_IS_LABEL(focus) &&
		    gtk_label_get_selection_bounds(GTK_LABEL(focus), &start, &end)),
		  "the error's text is selected (%d–%d)", start, end);
	fst_ui_window_destroy(fresh);
	window = NULL;
	fst_ui_end();
	cr_assert_eq(system(rm), 0);
}
