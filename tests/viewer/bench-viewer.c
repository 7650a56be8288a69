/* SPDX-License-Identifier: MIT */
/*
 * fencescope-bench-viewer TRACE: the viewer's figures, headless (scripts/bench viewer; issue 15
 * §1's targets, issue 6's redraw budget).
 *
 *   first open  fsv_trace_load with a progress callback, as the GTK app's worker thread runs
 *               it, then fsv_index_save of the index into the cache (a private
 *               XDG_CACHE_HOME unless FS_BENCH_CACHE names one): wall time of each and both,
 *               against `babeltrace2 -o dummy` (FS_BENCH_BT2_S, measured by
 *               scripts/bench-viewer) — target ≤ 1.5×; peak RSS of the building process;
 *   open        the first open as the user meets it: fsv_trace_open with the cache file
 *               removed, as the viewer calls it — the builder process (viewer/builder:
 *               decode, build, save; FENCESCOPE_INDEX_BUILDER names another one, e.g. a
 *               baseline's), then the map and check of the file it wrote — until the trace is
 *               ready to draw: wall time against babeltrace2 (target ≤ 1.5×), when the
 *               builder said "stage saving" and when it was done, CPU time of the builder
 *               process with its decoders and of this process (map + check);
 *   cancel      a second load cancelled through its GCancellable after CANCEL_AFTER seconds:
 *               how long the worker takes to return once cancelled;
 *   reopen      in a new process (its memory is the viewer's, not the builder's): the key,
 *               fsv_index_map of the cache file, a view: wall time until ready to draw
 *               (target < 1 s), then the first draw; VmRSS after it, per trace event (target
 *               ≤ 24 bytes);
 *   redraw      fsv_render_draw at 1920x1080 on a cairo image surface of the mapped trace, the
 *               whole trace and 100 ms, 1 ms and 10 µs windows at several positions, each drawn
 *               several times: p50 / p99 / max per zoom, against the 16 ms frame budget; also
 *               with the fence rows expanded and with a selected signal's arrows.
 *
 * Prints a table on stdout; exits 1 if the trace cannot be loaded or its index not mapped.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "fsv-index.h"
#include "fsv-loader.h"
#include "fsv-render.h"
#include "fsv-trace-storage.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define WIDTH        1920
#define HEIGHT       1080
#define POSITIONS    12
#define REPEATS      3
#define CANCEL_AFTER 1.0

static double
now(void)
{
	return (double) g_get_monotonic_time() / 1e6;
}

/* This thread's CPU time, s: a redraw's cost without the time the scheduler gives to others on
 * a shared machine. */
static double
thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time (user + system) of this process, or of its waited-for children (the decoders), in
 * seconds. */
static double
cpu_s(int who)
{
	struct rusage u;

	getrusage(who, &u);
	return (double) u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double) u.ru_stime.tv_sec +
	       u.ru_stime.tv_usec / 1e6;
}

static double
peak_rss_mb(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double) u.ru_maxrss / 1024.0;
}

/* The process's resident memory now (VmRSS), in bytes. */
static guint64
rss_bytes(void)
{
	g_autofree char *status = NULL;
	const char *line;

	if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
		return 0;
	line = strstr(status, "VmRSS:");
	return line ? g_ascii_strtoull(line + 6, NULL, 10) * 1024 : 0;
}

/* Pages of [data, data + size) mapped into this process now (/proc/self/pagemap's present
 * bit), in bytes. */
static guint64
resident_bytes(int pagemap, const void *data, gsize size)
{
	gsize page = (gsize) sysconf(_SC_PAGESIZE);
	guintptr first = (guintptr) data / page, last = ((guintptr) data + size + page - 1) / page;
	guint64 resident = 0;

	for (guintptr p = first; p < last; p++) {
		guint64 entry = 0;

		if (pread(pagemap, &entry, sizeof(entry), (off_t) (p * sizeof(entry))) ==
			(ssize_t) sizeof(entry) &&
		    (entry >> 63 & 1))
			resident += page;
	}
	return resident;
}

/* The arrays of a mapped trace with resident pages, MB each. */
static void
print_resident_arrays(FsvTrace *trace)
{
	int pagemap = open("/proc/self/pagemap", O_RDONLY);

	if (pagemap < 0)
		return;
	printf("  resident pages of the mapped index (MB):");
	for (guint i = 0; i < _fsv_trace_array_count; i++) {
		const FsvTraceArrayInfo *info = &_fsv_trace_arrays[i];
		gsize n = *_fsv_trace_array_count_of(trace, info);
		guint64 r = n ? resident_bytes(pagemap, *_fsv_trace_array_data(trace, info),
					       n * info->element_size)
			      : 0;

		if (r >= 100000)
			printf(" %s %.1f/%.1f", info->tag, r / 1e6, n * info->element_size / 1e6);
	}
	printf("\n");
	close(pagemap);
}

typedef struct {
	guint64 events;
	guint calls;
	/* At the last call (reading is over within 64k events): wall time, CPU time of this
	 * process (the model) and of its waited-for children (0: the decoders are reaped at the
	 * end of reading). */
	double last_at, last_cpu_self;
} Progress;

static void
on_progress(guint64 events, double fraction, gpointer data)
{
	Progress *p = data;

	(void) fraction;
	p->events = events;
	p->calls++;
	p->last_at = now();
	p->last_cpu_self = cpu_s(RUSAGE_SELF);
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static double
pct(GArray *a, double q)
{
	guint i = (guint) (q * a->len + 0.999999);

	return g_array_index(a, double, MIN(MAX(i, 1), a->len) - 1);
}

/* Whether the redraw case NAME is to be run: FS_BENCH_REDRAWS unset, or one of its
 * '|'-separated parts is in NAME (to profile one case: FS_BENCH_REDRAWS="whole trace, fence"
 * FS_BENCH_REPEATS=200 perf record … --reopen TRACE). */
static bool
case_wanted(const char *name)
{
	const char *only = g_getenv("FS_BENCH_REDRAWS");
	g_auto(GStrv) words = NULL;

	if (!only || !*only)
		return true;
	words = g_strsplit(only, "|", -1);
	for (guint i = 0; words[i]; i++)
		if (*words[i] && strstr(name, words[i]))
			return true;
	return false;
}

/* Draws WINDOW-ns views at POSITIONS positions (whole trace when WINDOW is 0), REPEATS times
 * each (FS_BENCH_REPEATS overrides); prints p50, p99 and max in ms. */
static void
bench_zoom(FsvTrace *trace, FsvView *view, cairo_t *cr, const char *name, guint64 window,
	   const FsvRenderOptions *opt)
{
	g_autoptr(GArray) times = g_array_new(FALSE, FALSE, sizeof(double));
	g_autoptr(GArray) cpu_times = g_array_new(FALSE, FALSE, sizeof(double));
	guint64 b = fsv_trace_get_begin_ns(trace), e = fsv_trace_get_end_ns(trace);
	guint64 items = 0, buckets = 0;
	guint positions = window == 0 ? 1 : POSITIONS;
	int repeats = g_getenv("FS_BENCH_REPEATS") ? atoi(g_getenv("FS_BENCH_REPEATS")) : REPEATS;

	if (!case_wanted(name))
		return;
	repeats = MAX(repeats, 1);

	for (guint pos = 0; pos < positions; pos++) {
		guint64 start = b;

		if (window == 0) {
			fsv_view_fit(view);
		} else {
			if (e - b > window)
				start = b + (guint64) ((double) (e - b - window) * (pos + 0.5) /
						       positions);
			fsv_view_set_range(view, start, start + window);
		}
		for (int r = 0; r < repeats; r++) {
			FsvRenderStats st;
			double t0 = now(), c0 = thread_cpu_now(), dt, dc;

			fsv_render_draw_with_stats(cr, trace, view, opt, &st);
			cairo_surface_flush(cairo_get_target(cr));
			dt = (now() - t0) * 1e3;
			dc = (thread_cpu_now() - c0) * 1e3;
			g_array_append_val(times, dt);
			g_array_append_val(cpu_times, dc);
			items += st.items_drawn;
			buckets += st.buckets_drawn;
		}
	}
	qsort(times->data, times->len, sizeof(double), compare_double);
	qsort(cpu_times->data, cpu_times->len, sizeof(double), compare_double);
	printf("  %-28s %6u %8.2f %8.2f %8.2f %10" PRIu64 " %10" PRIu64 "  %8.2f %8.2f  %s\n", name,
	       times->len, pct(times, 0.50), pct(times, 0.99),
	       g_array_index(times, double, times->len - 1), items / times->len,
	       buckets / times->len, pct(cpu_times, 0.50), pct(cpu_times, 0.99),
	       g_array_index(times, double, times->len - 1) < 16.0 ? "ok" : "OVER 16 ms");
}

typedef struct {
	const char *path;
	GCancellable *cancellable;
	double returned_at;
	GError *error;
	FsvTrace *trace;
} CancelRun;

static gpointer
cancel_worker(gpointer data)
{
	CancelRun *c = data;

	c->trace = fsv_trace_load(c->path, NULL, NULL, c->cancellable, &c->error);
	c->returned_at = now();
	return NULL;
}

typedef struct {
	double t0, saving, mapping;
} OpenStages;

static void
on_open_progress(const FsvLoadProgress *progress, gpointer user_data)
{
	OpenStages *s = user_data;

	if (progress->stage == FSV_LOAD_STAGE_SAVING && s->saving == 0)
		s->saving = now() - s->t0;
	if (progress->stage == FSV_LOAD_STAGE_MAPPING && s->mapping == 0)
		s->mapping = now() - s->t0;
}

/* The first open as the viewer runs it (fsv_trace_open, builder process, map + check), with
 * FILE (the cache file) removed first so that it is built. Returns false if it failed. */
static bool
open_as_viewer(const char *path, const char *file, const char *bt2, const char *bt2_cpu)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	OpenStages stages = {0};
	double self0, children0, wall, self, children;

	g_unlink(file);
	self0 = cpu_s(RUSAGE_SELF);
	children0 = cpu_s(RUSAGE_CHILDREN);
	stages.t0 = now();
	trace = fsv_trace_open(path, FSV_OPEN_DEFAULT, on_open_progress, &stages, NULL, &error);
	wall = now() - stages.t0;
	self = cpu_s(RUSAGE_SELF) - self0;
	children = cpu_s(RUSAGE_CHILDREN) - children0;
	if (!trace) {
		fprintf(stderr, "fencescope-bench-viewer: fsv_trace_open: %s\n", error->message);
		return false;
	}
	printf("  open as the viewer does (fsv_trace_open, builder process): ready in %.2f s "
	       "(reading until %.2f s, saving until %.2f s, map + check %.2f s)",
	       wall, stages.saving, stages.mapping, wall - stages.mapping);
	if (bt2 && g_ascii_strtod(bt2, NULL) > 0) {
		double ratio = wall / g_ascii_strtod(bt2, NULL);

		printf("; %.2fx babeltrace2 %s", ratio,
		       ratio <= 1.5 ? "ok (<= 1.5x)" : "OVER 1.5x");
	}
	printf("\n  CPU: open as the viewer does %.2f s (builder with its decoders %.2f s, this "
	       "process %.2f s)",
	       self + children, children, self);
	if (bt2_cpu && g_ascii_strtod(bt2_cpu, NULL) > 0)
		printf("; %.2fx babeltrace2's CPU",
		       (self + children) / g_ascii_strtod(bt2_cpu, NULL));
	printf("\n");
	fflush(stdout);
	return true;
}

/* The signal that released the most waits, or FSV_INDEX_NONE. */
static guint32
busiest_signal(FsvTrace *trace)
{
	guint32 best = FSV_INDEX_NONE;
	guint most = 0;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		guint n = 0;

		fsv_trace_get_op_edges(trace, i, &n);
		if (n > most && fsv_trace_get_op(trace, i)->kind == FSA_OP_SIGNAL) {
			most = n;
			best = i;
		}
	}
	return best;
}

static void
bench_redraws(FsvTrace *trace, FsvView *view, cairo_t *cr, FsvRenderOptions *opt)
{
	guint32 best;

	printf("\n  redraw at %dx%d, image surface, mapped trace (ms)\n", WIDTH, HEIGHT);
	printf("  %-28s %6s %8s %8s %8s %10s %10s  %8s %8s\n", "window", "draws", "p50", "p99",
	       "max", "items", "buckets", "cpu p50", "cpu p99");
	bench_zoom(trace, view, cr, "whole trace", 0, opt);
	bench_zoom(trace, view, cr, "100 ms", 100000000, opt);
	bench_zoom(trace, view, cr, "1 ms", 1000000, opt);
	bench_zoom(trace, view, cr, "10 us", 10000, opt);
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_FENCE_GROUP)
			fsv_view_set_row_expanded(view, r, true);
	bench_zoom(trace, view, cr, "whole trace, fence rows", 0, opt);
	bench_zoom(trace, view, cr, "1 ms, fence rows", 1000000, opt);
	best = busiest_signal(trace);
	if (best != FSV_INDEX_NONE) {
		opt->selection = (FsvItem){FSV_ITEM_OP, best, fsv_trace_get_op(trace, best)->row};
		bench_zoom(trace, view, cr, "whole trace, selection", 0, opt);
		bench_zoom(trace, view, cr, "1 ms, selection", 1000000, opt);
	}
	{
		FsvRenderOptions full = *opt;

		full.no_lod = true;
		full.selection.kind = FSV_ITEM_NONE;
		printf("  without level of detail (for comparison):\n");
		bench_zoom(trace, view, cr, "whole trace, no LOD", 0, &full);
	}
}

/* The reopen, in its own process: key, map, view, first draw; memory; redraws. */
static int
reopen(const char *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvView) view = NULL;
	g_autofree char *key = NULL;
	g_autofree char *file = NULL;
	cairo_surface_t *surface;
	cairo_t *cr;
	FsvRenderOptions opt;
	double t0 = now(), t_key, t_map, t_ready, t_draw;
	guint64 rss_before = rss_bytes(), rss_map, rss_view, rss, events;

	key = fsv_index_key(path, &error);
	if (key)
		file = fsv_index_cache_file(path, &error);
	t_key = now();
	if (file)
		trace = fsv_index_map(file, key, path, &error);
	t_map = now();
	if (!trace) {
		fprintf(stderr, "fencescope-bench-viewer: %s\n", error->message);
		return 1;
	}
	rss_map = rss_bytes();
	view = fsv_view_new(trace);
	fsv_view_set_size(view, WIDTH, HEIGHT);
	t_ready = now();
	rss_view = rss_bytes();
	surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
	cr = cairo_create(surface);
	fsv_render_options_init(&opt);
	fsv_render_draw(cr, trace, view, &opt);
	cairo_surface_flush(surface);
	t_draw = now();
	rss = rss_bytes();
	events = fsv_trace_get_ingest_stats(trace)->events;
	printf("  reopen (new process, valid cache): ready to draw in %.3f s (key %.3f s, map + "
	       "check %.3f s, view %.3f s) %s; first draw %.0f ms\n",
	       t_ready - t0, t_key - t0, t_map - t_key, t_ready - t_map,
	       t_ready - t0 < 1.0 ? "ok (< 1 s)" : "OVER 1 s", (t_draw - t_ready) * 1e3);
	printf("  memory after open + first draw: VmRSS %.1f MB (%.1f MB before opening, %.1f "
	       "after mapping, %.1f with the view), %.1f "
	       "bytes per trace event %s; index %.0f MB mapped\n",
	       rss / 1e6, rss_before / 1e6, rss_map / 1e6, rss_view / 1e6,
	       events ? (double) rss / (double) events : 0.0,
	       events && (double) rss / (double) events <= 24.0 ? "ok (<= 24)" : "OVER 24",
	       _fsv_trace_get_memory_size(trace) / 1e6);
	print_resident_arrays(trace);
	bench_redraws(trace, view, cr, &opt);
	printf("  VmRSS after the redraws: %.1f MB (%.1f bytes per trace event)\n",
	       rss_bytes() / 1e6, events ? (double) rss_bytes() / (double) events : 0.0);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	return 0;
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	g_autofree char *cache = NULL;
	g_autofree char *key = NULL;
	g_autofree char *file = NULL;
	Progress progress = {0};
	double t0, t_load, cpu_load, load_s, save_s, rss_before = peak_rss_mb();
	double cpu_self, cpu_children, load_cpu_self, load_cpu_children;
	const char *bt2 = g_getenv("FS_BENCH_BT2_S");
	const char *bt2_cpu = g_getenv("FS_BENCH_BT2_CPU_S");
	guint64 events;
	int status;

	if (argc == 3 && strcmp(argv[1], "--reopen") == 0)
		return reopen(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: fencescope-bench-viewer TRACE\n");
		return 2;
	}
	if (g_getenv("FS_BENCH_CACHE")) {
		g_setenv("XDG_CACHE_HOME", g_getenv("FS_BENCH_CACHE"), TRUE);
	} else {
		cache = g_dir_make_tmp("fsv-bench-cache-XXXXXX", &error);
		if (!cache) {
			fprintf(stderr, "fencescope-bench-viewer: %s\n", error->message);
			return 1;
		}
		g_setenv("XDG_CACHE_HOME", cache, TRUE);
	}
	t0 = t_load = now();
	cpu_self = cpu_load = cpu_s(RUSAGE_SELF);
	cpu_children = cpu_s(RUSAGE_CHILDREN);
	trace = fsv_trace_load(argv[1], on_progress, &progress, NULL, &error);
	load_s = now() - t0;
	load_cpu_self = cpu_s(RUSAGE_SELF) - cpu_self;
	load_cpu_children = cpu_s(RUSAGE_CHILDREN) - cpu_children;
	if (!trace) {
		fprintf(stderr, "fencescope-bench-viewer: %s\n", error->message);
		return 1;
	}
	t0 = now();
	key = fsv_index_key(argv[1], &error);
	if (key)
		file = fsv_index_cache_file(argv[1], &error);
	if (!file || !fsv_index_save(trace, key, file, &error)) {
		fprintf(stderr, "fencescope-bench-viewer: %s\n", error->message);
		return 1;
	}
	save_s = now() - t0;
	cpu_self = cpu_s(RUSAGE_SELF) - cpu_self;
	events = fsv_trace_get_ingest_stats(trace)->events;
	printf("viewer benchmark: %s\n", argv[1]);
	if (bt2)
		printf("  babeltrace2 -o dummy: %.2f s\n", g_ascii_strtod(bt2, NULL));
	printf("  first open: %.2f s = build %.2f s (%" G_GUINT64_FORMAT
	       " events, %.2f M events/s, %u progress calls) + save %.2f s",
	       load_s + save_s, load_s, events, events / load_s / 1e6, progress.calls, save_s);
	if (bt2 && g_ascii_strtod(bt2, NULL) > 0) {
		double ratio = (load_s + save_s) / g_ascii_strtod(bt2, NULL);

		printf("; %.2fx babeltrace2 %s", ratio,
		       ratio <= 1.5 ? "ok (<= 1.5x)" : "OVER 1.5x");
	}
	/* The build's phases: reading (decoders and model at once) until the last progress
	 * call, then the single process's tail (sorting, lanes, LODs, freeze). */
	printf("\n  build phases: reading %.2f s (this process %.2f s CPU), then index + freeze "
	       "%.2f s (%.2f s CPU)",
	       progress.last_at - t_load, progress.last_cpu_self - cpu_load,
	       t_load + load_s - progress.last_at,
	       cpu_load + load_cpu_self - progress.last_cpu_self);
	/* On a shared machine the wall times follow the load; the CPU times do not (as much):
	 * what the first open costs against babeltrace2's one process, and how many cores the
	 * build kept busy on average (the decoders and the model run at once). */
	printf("\n  CPU: first open %.2f s (this process %.2f s: build %.2f + save %.2f; decoders "
	       "%.2f s), %.2f cores busy on average while building",
	       cpu_self + load_cpu_children, cpu_self, load_cpu_self, cpu_self - load_cpu_self,
	       load_cpu_children, (load_cpu_self + load_cpu_children) / load_s);
	if (bt2_cpu && g_ascii_strtod(bt2_cpu, NULL) > 0)
		printf("; babeltrace2 %.2f s CPU, %.2fx", g_ascii_strtod(bt2_cpu, NULL),
		       (cpu_self + load_cpu_children) / g_ascii_strtod(bt2_cpu, NULL));
	printf("\n  index: %u rows, %u ops, %u packets, %u markers; %.0f MB (%.1f bytes per "
	       "event); peak RSS while building %.0f MB (%.0f MB before)\n",
	       fsv_trace_get_row_count(trace), fsv_trace_get_op_count(trace),
	       fsv_trace_get_packet_count(trace), fsv_trace_get_marker_count(trace),
	       _fsv_trace_get_memory_size(trace) / 1e6,
	       (double) _fsv_trace_get_memory_size(trace) / (double) MAX(events, 1), peak_rss_mb(),
	       rss_before);
	fsv_trace_unref(g_steal_pointer(&trace));

	/* Cancellation: a worker thread, as in the app. */
	{
		CancelRun c = {argv[1], g_cancellable_new(), 0, NULL, NULL};
		GThread *thread = g_thread_new("load", cancel_worker, &c);
		double cancelled_at;

		g_usleep((gulong) (CANCEL_AFTER * 1e6));
		cancelled_at = now();
		g_cancellable_cancel(c.cancellable);
		g_thread_join(thread);
		if (c.trace)
			printf("  cancel: the load finished before the cancel at %.1f s\n",
			       CANCEL_AFTER);
		else
			printf(
			    "  cancel: cancelled after %.1f s, the worker returned %.0f ms later "
			    "(%s)\n",
			    CANCEL_AFTER, (c.returned_at - cancelled_at) * 1e3,
			    c.error ? c.error->message : "?");
		if (c.trace)
			fsv_trace_unref(c.trace);
		g_clear_error(&c.error);
		g_object_unref(c.cancellable);
	}
	fflush(stdout);

	/* The first open the user meets: the builder process, then the map and check. It leaves
	 * the cache file the reopen below maps. */
	if (!open_as_viewer(argv[1], file, bt2, bt2_cpu))
		return 1;

	/* The reopen in a new process: the viewer that opens a trace with a valid cache. */
	{
		const char *child[] = {"/proc/self/exe", "--reopen", argv[1], NULL};

		if (!g_spawn_sync(NULL, (char **) child, NULL, G_SPAWN_CHILD_INHERITS_STDIN, NULL,
				  NULL, NULL, NULL, &status, &error) ||
		    !g_spawn_check_wait_status(status, &error)) {
			fprintf(stderr, "fencescope-bench-viewer: reopen: %s\n", error->message);
			status = 1;
		} else {
			status = 0;
		}
	}
	if (cache) {
		g_unlink(file);
		g_autofree char *dir = g_path_get_dirname(file);
		g_rmdir(dir);
		g_autofree char *parent = g_path_get_dirname(dir);
		g_rmdir(parent);
		g_rmdir(cache);
	}
	return status;
}
