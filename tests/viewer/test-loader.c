/* SPDX-License-Identifier: MIT */
/*
 * The loader without GTK (suite unit): fsv_trace_open() on copies of traces/frame-pipeline (a
 * new folder is a new key, so every test starts with nothing cached), each test in a cache
 * folder of its own (XDG_CACHE_HOME). The second open of a trace comes from the cache (no
 * builder runs); --no-cache and FENCESCOPE_NO_INDEX_CACHE build every time and write no cache
 * file; a damaged cache file is rebuilt; a builder killed (SIGKILL) or crashed (SIGSEGV) is one
 * line; cancel kills the builder and leaves no temporary file; a damaged trace opens partial and
 * is not cached; two opens of one trace at once (two threads, two processes) both succeed; the
 * preview names rows the trace has; build folders of dead viewers are swept; without a cache
 * folder an open still works; the cache's cap removes the least recently used index first.
 * `fencescope render` twice on a trace gives the same PNG bytes,
 * the second from the cache (the builder is made unreachable for it). The preview's line
 * protocol round-trips and refuses lines it cannot read.
 */
#define _DEFAULT_SOURCE /* truncate() */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib/gstdio.h>

#include "fsv-index.h"
#include "fsv-load-preview-private.h"
#include "fsv-loader-private.h"

static char *work;  /* this test's folder: the cache and the trace copies */
static char *trace; /* a copy of traces/frame-pipeline under work */

static char *
copy_trace(const char *name, const char *as)
{
	g_autofree char *sample = g_build_filename(FST_TRACES, name, NULL);
	char *copy = g_build_filename(work, as, NULL);
	g_autofree char *cp = g_strdup_printf("cp -r '%s' '%s'", sample, copy);

	cr_assert_eq(system(cp), 0, "%s", cp);
	return copy;
}

static void
setup(void)
{
	g_autofree char *cache = NULL;

	work = g_dir_make_tmp("fsv-loader-XXXXXX", NULL);
	cr_assert_not_null(work);
	cache = g_build_filename(work, "cache", NULL);
	/* Before anything asks GLib for it (it keeps the first answer). */
	g_setenv("XDG_CACHE_HOME", cache, TRUE);
	g_unsetenv("FENCESCOPE_NO_INDEX_CACHE");
	g_unsetenv("FENCESCOPE_INDEX_BUILDER");
	g_unsetenv("FENCESCOPE_INDEX_HOLD_MS");
	g_unsetenv("FENCESCOPE_INDEX_CACHE_MAX");
	trace = copy_trace("frame-pipeline", "frame-pipeline");
}

static void
teardown(void)
{
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", work);

	cr_assert_eq(system(rm), 0);
	g_clear_pointer(&trace, g_free);
	g_clear_pointer(&work, g_free);
}

TestSuite(loader, .init = setup, .fini = teardown, .timeout = 120);

static char *
cache_file_of(const char *path)
{
	g_autoptr(GError) error = NULL;
	char *file = fsv_index_cache_file(path, &error);

	cr_assert_not_null(file, "%s", error ? error->message : "");
	return file;
}

/* Files and folders in the cache folder whose name starts with "build-" (a builder's private
 * folder) or holds ".tmp" (a save's temporary file). */
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

static FsvTrace *
open_ok(const char *path, FsvOpenFlags flags)
{
	g_autoptr(GError) error = NULL;
	FsvTrace *opened = fsv_trace_open(path, flags, NULL, NULL, NULL, &error);

	cr_assert_not_null(opened, "%s", error ? error->message : "");
	return opened;
}

Test(loader, second_open_comes_from_the_cache)
{
	g_autoptr(FsvTrace) direct = fsv_trace_load(trace, NULL, NULL, NULL, NULL);
	g_autoptr(FsvTrace) first = NULL;
	g_autoptr(FsvTrace) second = NULL;
	g_autofree char *cache_file = NULL;

	cr_assert_not_null(direct);
	first = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_eq(_fsv_loader_get_builder_runs(), 1);
	cache_file = cache_file_of(trace);
	cr_assert(g_file_test(cache_file, G_FILE_TEST_IS_REGULAR), "no %s", cache_file);
	second = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_eq(_fsv_loader_get_builder_runs(), 1, "the second open ran the builder");
	for (int i = 0; i < 2; i++) {
		FsvTrace *opened = i == 0 ? first : second;

		cr_assert_str_eq(fsv_trace_get_path(opened), trace);
		cr_assert_eq(fsv_trace_get_op_count(opened), fsv_trace_get_op_count(direct));
		cr_assert_eq(fsv_trace_get_packet_count(opened),
			     fsv_trace_get_packet_count(direct));
		cr_assert_eq(fsv_trace_get_row_count(opened), fsv_trace_get_row_count(direct));
		cr_assert_null(fsv_trace_get_partial_error(opened));
	}
	cr_assert_eq(count_leftovers(), 0);
}

/* The cache's cap (FENCESCOPE_INDEX_CACHE_MAX, about two and a half index files here): opening
 * a third trace removes the least recently used index, not the one reopened in between, never
 * the one being opened. */
Test(loader, cache_is_capped_least_recently_used_first)
{
	g_autofree char *b = copy_trace("frame-pipeline", "b");
	g_autofree char *c = copy_trace("frame-pipeline", "c");
	g_autofree char *file_a = cache_file_of(trace);
	g_autofree char *file_b = cache_file_of(b);
	g_autofree char *file_c = cache_file_of(c);
	g_autofree char *cap = NULL;
	GStatBuf st;

	fsv_trace_unref(open_ok(trace, FSV_OPEN_DEFAULT));
	cr_assert_eq(g_stat(file_a, &st), 0);
	cap = g_strdup_printf("%" G_GUINT64_FORMAT, (guint64) st.st_size * 5 / 2);
	g_setenv("FENCESCOPE_INDEX_CACHE_MAX", cap, TRUE);
	g_usleep(20000); /* file times are a clock tick apart at least */
	fsv_trace_unref(open_ok(b, FSV_OPEN_DEFAULT));
	g_usleep(20000);
	/* A reopen from the cache makes A the most recently used. */
	fsv_trace_unref(open_ok(trace, FSV_OPEN_DEFAULT));
	cr_assert_eq(_fsv_loader_get_builder_runs(), 2);
	g_usleep(20000);
	fsv_trace_unref(open_ok(c, FSV_OPEN_DEFAULT));
	cr_assert(g_file_test(file_a, G_FILE_TEST_EXISTS), "the index reopened last went");
	cr_assert_not(g_file_test(file_b, G_FILE_TEST_EXISTS), "the least recently used stayed");
	cr_assert(g_file_test(file_c, G_FILE_TEST_EXISTS), "the index just built went");
	/* A cap under one file keeps the one being opened. */
	g_setenv("FENCESCOPE_INDEX_CACHE_MAX", "1", TRUE);
	fsv_trace_unref(open_ok(c, FSV_OPEN_DEFAULT));
	cr_assert_eq(_fsv_loader_get_builder_runs(), 3, "C was not served from the cache");
	cr_assert(g_file_test(file_c, G_FILE_TEST_EXISTS));
	cr_assert_not(g_file_test(file_a, G_FILE_TEST_EXISTS));
	g_unsetenv("FENCESCOPE_INDEX_CACHE_MAX");
	cr_assert_eq(count_leftovers(), 0);
}

Test(loader, no_cache_flag_builds_every_time_and_keeps_no_file)
{
	g_autofree char *cache_file = cache_file_of(trace);

	for (int i = 0; i < 2; i++) {
		g_autoptr(FsvTrace) opened = open_ok(trace, FSV_OPEN_NO_CACHE);

		cr_assert_gt(fsv_trace_get_op_count(opened), 0);
	}
	cr_assert_eq(_fsv_loader_get_builder_runs(), 2);
	cr_assert_not(g_file_test(cache_file, G_FILE_TEST_EXISTS), "%s was written", cache_file);
	cr_assert_eq(count_leftovers(), 0);
}

Test(loader, no_index_cache_environment_bypasses_a_valid_cache)
{
	g_autoptr(FsvTrace) cached = open_ok(trace, FSV_OPEN_DEFAULT);
	g_autoptr(FsvTrace) again = NULL;

	cr_assert_eq(_fsv_loader_get_builder_runs(), 1);
	g_setenv("FENCESCOPE_NO_INDEX_CACHE", "1", TRUE);
	again = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_eq(_fsv_loader_get_builder_runs(), 2, "the cache was read");
	cr_assert_eq(fsv_trace_get_op_count(again), fsv_trace_get_op_count(cached));
}

Test(loader, damaged_cache_file_is_rebuilt_not_trusted)
{
	g_autoptr(FsvTrace) first = open_ok(trace, FSV_OPEN_DEFAULT);
	g_autofree char *cache_file = cache_file_of(trace);
	g_autoptr(FsvTrace) second = NULL;

	cr_assert(g_file_set_contents(cache_file, "not an index\n", -1, NULL));
	second = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_eq(_fsv_loader_get_builder_runs(), 2, "a damaged cache file was served");
	cr_assert_eq(fsv_trace_get_op_count(second), fsv_trace_get_op_count(first));
	/* The rebuilt index replaced it: the next open maps it. */
	g_clear_pointer(&second, fsv_trace_unref);
	second = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_eq(_fsv_loader_get_builder_runs(), 2);
}

typedef struct {
	int signal;
	FsvLoadStage stage_seen;
	GPid killed;
	GCancellable *cancel; /* cancel instead of kill, at the first preview */
	FsvLoadPreview *last_preview;
} Killer;

static void
kill_builder(const FsvLoadProgress *progress, gpointer user_data)
{
	Killer *killer = user_data;

	if (progress->preview && progress->preview != killer->last_preview) {
		g_clear_pointer(&killer->last_preview, fsv_load_preview_unref);
		killer->last_preview = fsv_load_preview_ref(progress->preview);
	}
	if (killer->killed || progress->builder_pid == 0)
		return;
	if (killer->cancel) {
		if (progress->preview == NULL)
			return; /* mid-load: the builder has read the trace, not written it */
		killer->killed = progress->builder_pid;
		g_cancellable_cancel(killer->cancel);
		return;
	}
	killer->killed = progress->builder_pid;
	cr_assert_eq(kill(progress->builder_pid, killer->signal), 0, "%s", g_strerror(errno));
}

static void
assert_builder_end_is_one_line(int signal, const char *words, const char *signal_name)
{
	Killer killer = {.signal = signal};
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) opened = NULL;
	g_autofree char *cache_file = cache_file_of(trace);

	/* The builder waits once it has read the trace: it is surely still running. */
	g_setenv("FENCESCOPE_INDEX_HOLD_MS", "20000", TRUE);
	opened = fsv_trace_open(trace, FSV_OPEN_DEFAULT, kill_builder, &killer, NULL, &error);
	cr_assert_null(opened);
	cr_assert_neq(killer.killed, 0);
	cr_assert_not_null(error);
	cr_assert_not_null(strstr(error->message, trace), "error: %s", error->message);
	cr_assert_not_null(strstr(error->message, words), "error: %s", error->message);
	cr_assert_not_null(strstr(error->message, signal_name), "error: %s", error->message);
	cr_assert_null(strchr(error->message, '\n'), "error: %s", error->message);
	cr_assert_not(g_file_test(cache_file, G_FILE_TEST_EXISTS));
	cr_assert_eq(count_leftovers(), 0);
	g_clear_pointer(&killer.last_preview, fsv_load_preview_unref);
}

Test(loader, killed_builder_ends_in_one_line)
{
	assert_builder_end_is_one_line(SIGKILL, "index builder was killed", "SIGKILL");
}

Test(loader, crashed_builder_ends_in_one_line)
{
	assert_builder_end_is_one_line(SIGSEGV, "index builder crashed", "SIGSEGV");
}

Test(loader, cancel_kills_the_builder_and_leaves_no_temporary_file)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	Killer killer = {.cancel = cancellable};
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) opened = NULL;
	g_autofree char *cache_file = cache_file_of(trace);
	g_autofree char *stat_path = NULL;
	gint64 start = g_get_monotonic_time();

	g_setenv("FENCESCOPE_INDEX_HOLD_MS", "20000", TRUE);
	opened =
	    fsv_trace_open(trace, FSV_OPEN_DEFAULT, kill_builder, &killer, cancellable, &error);
	cr_assert_null(opened);
	cr_assert(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED), "error: %s",
		  error ? error->message : "none");
	cr_assert_lt(g_get_monotonic_time() - start, 15 * G_USEC_PER_SEC,
		     "cancel waited for the builder");
	cr_assert_neq(killer.killed, 0);
	/* Reaped, not a zombie: no such process any more. */
	stat_path = g_strdup_printf("/proc/%d", (int) killer.killed);
	cr_assert_not(g_file_test(stat_path, G_FILE_TEST_EXISTS), "builder %d still exists",
		      (int) killer.killed);
	cr_assert_not(g_file_test(cache_file, G_FILE_TEST_EXISTS));
	cr_assert_eq(count_leftovers(), 0);
	g_clear_pointer(&killer.last_preview, fsv_load_preview_unref);
}

Test(loader, damaged_trace_opens_partial_and_is_not_cached)
{
	g_autofree char *copy = copy_trace("frame-pipeline", "damaged");
	g_autofree char *stream =
	    g_build_filename(copy, "ust", "uid", "0", "64-bit", "fencescope_0", NULL);
	g_autofree char *cache_file = NULL;
	g_autoptr(FsvTrace) opened = NULL;
	GStatBuf st;

	cr_assert_eq(g_stat(stream, &st), 0, "%s", stream);
	cr_assert_eq(truncate(stream, st.st_size / 2), 0);
	opened = open_ok(copy, FSV_OPEN_DEFAULT);
	cr_assert_not_null(fsv_trace_get_partial_error(opened), "no partial error");
	cr_assert_not_null(strstr(fsv_trace_get_partial_error(opened), "fencescope_0"), "%s",
			   fsv_trace_get_partial_error(opened));
	{
		/* What was read before the damage, as an in-process read gives it. */
		g_autoptr(FsvTrace) direct = fsv_trace_load(copy, NULL, NULL, NULL, NULL);

		cr_assert_not_null(direct);
		cr_assert_str_eq(fsv_trace_get_partial_error(opened),
				 fsv_trace_get_partial_error(direct));
		cr_assert_eq(fsv_trace_get_summary(opened)->event_count,
			     fsv_trace_get_summary(direct)->event_count);
		cr_assert_eq(fsv_trace_get_op_count(opened), fsv_trace_get_op_count(direct));
	}
	cache_file = cache_file_of(copy);
	cr_assert_not(g_file_test(cache_file, G_FILE_TEST_EXISTS), "a partial index was cached");
	cr_assert_eq(count_leftovers(), 0);
}

Test(loader, missing_builder_is_one_line_error)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) opened = NULL;

	g_setenv("FENCESCOPE_INDEX_BUILDER", "/nonexistent/fencescope-index", TRUE);
	opened = fsv_trace_open(trace, FSV_OPEN_DEFAULT, NULL, NULL, NULL, &error);
	cr_assert_null(opened);
	cr_assert_not_null(strstr(error->message, trace), "error: %s", error->message);
	cr_assert_not_null(strstr(error->message, "index builder"), "error: %s", error->message);
	cr_assert_null(strchr(error->message, '\n'), "error: %s", error->message);
	cr_assert_eq(count_leftovers(), 0);
}

Test(loader, missing_trace_names_it_in_one_line)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) opened = fsv_trace_open("/nonexistent/fencescope-trace",
						    FSV_OPEN_DEFAULT, NULL, NULL, NULL, &error);

	cr_assert_null(opened);
	cr_assert_not_null(strstr(error->message, "/nonexistent/fencescope-trace"), "error: %s",
			   error->message);
	cr_assert_null(strchr(error->message, '\n'), "error: %s", error->message);
	cr_assert_eq(_fsv_loader_get_builder_runs(), 0);
}

/* A build folder left by a viewer that died mid-load (its process is gone) is removed by the
 * next build; one of a live process is not. */
Test(loader, build_folders_of_dead_viewers_are_swept)
{
	g_autofree char *folder =
	    g_build_filename(g_get_user_cache_dir(), "fencescope", "index", NULL);
	g_autofree char *dead = g_build_filename(folder, "build-2147483646-abcdef", NULL);
	g_autofree char *dead_file = g_build_filename(dead, "index.fsvi.tmp", NULL);
	g_autofree char *live_name = g_strdup_printf("build-%d-abcdef", (int) getppid());
	g_autofree char *live = g_build_filename(folder, live_name, NULL);
	g_autoptr(FsvTrace) opened = NULL;

	cr_assert_eq(g_mkdir_with_parents(dead, 0700), 0);
	cr_assert_eq(g_mkdir_with_parents(live, 0700), 0);
	cr_assert(g_file_set_contents(dead_file, "half an index", -1, NULL));
	opened = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_not(g_file_test(dead, G_FILE_TEST_EXISTS), "%s is still there", dead);
	cr_assert(g_file_test(live, G_FILE_TEST_IS_DIR), "a live viewer's folder was removed");
	cr_assert_eq(g_rmdir(live), 0);
}

/* A cache folder that cannot be made (here a file stands in its way) does not stop an open: the
 * index is built in the temporary folder and nothing is kept. */
Test(loader, opens_without_a_cache_folder)
{
	g_autofree char *cache = g_build_filename(work, "cache", NULL);
	g_autofree char *mine = g_strdup_printf("fencescope-index-build-%d-", (int) getpid());
	g_autoptr(FsvTrace) opened = NULL;
	g_autoptr(GDir) dir = NULL;
	const char *name;

	cr_assert(g_file_set_contents(cache, "in the way", -1, NULL));
	opened = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_gt(fsv_trace_get_op_count(opened), 0);
	opened = (fsv_trace_unref(opened), open_ok(trace, FSV_OPEN_DEFAULT));
	cr_assert_eq(_fsv_loader_get_builder_runs(), 2, "something was cached");
	/* The builds went to the temporary folder, and left nothing there. */
	dir = g_dir_open(g_get_tmp_dir(), 0, NULL);
	while (dir && (name = g_dir_read_name(dir)))
		cr_assert_not(g_str_has_prefix(name, mine), "%s/%s was left", g_get_tmp_dir(),
			      name);
}

static gpointer
open_in_thread(gpointer data)
{
	g_autoptr(GError) error = NULL;
	FsvTrace *opened = fsv_trace_open(data, FSV_OPEN_DEFAULT, NULL, NULL, NULL, &error);

	if (opened == NULL)
		g_printerr("open: %s\n", error->message);
	return opened;
}

Test(loader, two_opens_of_one_trace_at_once_both_succeed)
{
	GThread *a = g_thread_new("open-a", open_in_thread, trace);
	GThread *b = g_thread_new("open-b", open_in_thread, trace);
	g_autoptr(FsvTrace) ta = g_thread_join(a);
	g_autoptr(FsvTrace) tb = g_thread_join(b);
	g_autoptr(FsvTrace) again = NULL;

	cr_assert_not_null(ta);
	cr_assert_not_null(tb);
	cr_assert_eq(fsv_trace_get_op_count(ta), fsv_trace_get_op_count(tb));
	cr_assert_eq(count_leftovers(), 0);
	/* Whichever rename came last, the cache holds a whole index. */
	again = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_eq(fsv_trace_get_op_count(again), fsv_trace_get_op_count(ta));
	cr_assert_leq(_fsv_loader_get_builder_runs(), 2);
}

static void
keep_last_preview(const FsvLoadProgress *progress, gpointer user_data)
{
	FsvLoadPreview **last = user_data;

	if (progress->preview && progress->preview != *last) {
		g_clear_pointer(last, fsv_load_preview_unref);
		*last = fsv_load_preview_ref(progress->preview);
	}
}

Test(loader, preview_names_the_rows_the_trace_has)
{
	FsvLoadPreview *preview = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) opened =
	    fsv_trace_open(trace, FSV_OPEN_DEFAULT, keep_last_preview, &preview, NULL, &error);
	guint queues = 0, engines = 0;
	guint64 items = 0;

	cr_assert_not_null(opened, "%s", error ? error->message : "");
	cr_assert_not_null(preview, "no preview arrived");
	cr_assert_gt(fsv_load_preview_get_row_count(preview), 0);
	for (guint r = 0; r < fsv_load_preview_get_row_count(preview); r++) {
		const FsvPreviewRow *row = fsv_load_preview_get_row(preview, r);
		guint64 sum = 0;

		for (guint b = 0; b < FSV_PREVIEW_BUCKETS; b++)
			sum += row->counts[b];
		cr_assert_eq(sum, row->items, "row %s: strip %lu, items %lu", row->label,
			     (unsigned long) sum, (unsigned long) row->items);
		items += row->items;
		if (row->kind == FSV_ROW_QUEUE) {
			guint64 handle =
			    g_ascii_strtoull(row->label + strlen("HWQueue "), NULL, 16);

			cr_assert(g_str_has_prefix(row->label, "HWQueue 0x"), "%s", row->label);
			cr_assert_neq(fsv_trace_find_queue_row(opened, handle), FSV_INDEX_NONE,
				      "the preview's %s is no queue of the trace", row->label);
			cr_assert_geq(row->depth, 1);
			queues++;
		}
		if (row->kind == FSV_ROW_ENGINE)
			engines++;
		/* A parent before its children. */
		if (r > 0)
			cr_assert_leq(row->depth,
				      fsv_load_preview_get_row(preview, r - 1)->depth + 1);
	}
	cr_assert_gt(queues, 0);
	cr_assert_gt(engines, 0);
	cr_assert_eq(items, fsv_load_preview_get_item_count(preview));
	cr_assert_geq(items, fsv_trace_get_op_count(opened) / 2,
		      "the preview counted %lu items of %u ops", (unsigned long) items,
		      fsv_trace_get_op_count(opened));
	fsv_load_preview_unref(preview);
}

/* ---- The preview's protocol ---- */

Test(loader, preview_block_round_trips_through_the_parser)
{
	g_autoptr(FsvPreviewCollector) collector = _fsv_preview_collector_new();
	g_autoptr(FsvPreviewParser) parser = _fsv_preview_parser_new();
	g_autoptr(FsvLoadPreview) want = NULL;
	g_autoptr(FsvLoadPreview) got = NULL;
	g_autoptr(GString) block = g_string_new(NULL);
	g_auto(GStrv) lines = NULL;
	struct fsa_model_sink sink;

	_fsv_preview_collector_init_sink(collector, &sink);
	for (guint i = 0; i < 5000; i++) {
		struct fsa_op op = {.kind = FSA_OP_WAIT,
				    .state = FSA_OP_OBSERVED,
				    .hwqueue_handle = 0x1000 + i % 3,
				    .adapter_id = 0,
				    .engine_id = i % 2 ? 1 : UINT32_MAX,
				    .queued_ns = 1000000 + i * 977,
				    .observed_ns = FSA_TIME_NONE,
				    .end_ns = 1000500 + i * 977};
		struct fsa_packet packet = {.adapter_id = 1,
					    .engine_id = 0,
					    .start_ns = 1000000 + i * 1500,
					    .end_ns = 1000900 + i * 1500};

		cr_assert_eq(sink.op(sink.data, &op), FSA_OK);
		if (i % 4 == 0)
			cr_assert_eq(sink.packet(sink.data, &packet), FSA_OK);
	}
	cr_assert(_fsv_preview_collector_has_news(collector));
	want = _fsv_preview_collector_snapshot(collector);
	_fsv_preview_collector_write(collector, block);
	cr_assert_not(_fsv_preview_collector_has_news(collector));
	lines = g_strsplit(block->str, "\n", -1);
	for (guint i = 0; lines[i] && *lines[i]; i++) {
		FsvLoadPreview *preview = NULL;
		g_autoptr(GError) error = NULL;

		cr_assert(_fsv_preview_parser_feed(parser, lines[i], &preview, &error), "%s: %s",
			  lines[i], error ? error->message : "");
		if (preview)
			got = preview;
	}
	cr_assert_not_null(got);
	cr_assert_eq(fsv_load_preview_get_row_count(got), fsv_load_preview_get_row_count(want));
	/* Adapter 0, its engine 1 with the three queues (each moved under it once an item named
	 * its engine), adapter 1 and its engine 0. */
	cr_assert_eq(fsv_load_preview_get_row_count(got), 7);
	cr_assert_eq(fsv_load_preview_get_begin_ns(got), fsv_load_preview_get_begin_ns(want));
	cr_assert_eq(fsv_load_preview_get_bucket_ns(got), fsv_load_preview_get_bucket_ns(want));
	cr_assert_eq(fsv_load_preview_get_item_count(got), 5000 + 1250);
	cr_assert_lt(fsv_load_preview_get_bucket_ns(got) * FSV_PREVIEW_BUCKETS,
		     4 * (guint64) 5000 * 1500, "buckets wider than they need be");
	for (guint r = 0; r < fsv_load_preview_get_row_count(got); r++) {
		const FsvPreviewRow *a = fsv_load_preview_get_row(want, r);
		const FsvPreviewRow *b = fsv_load_preview_get_row(got, r);

		cr_assert_str_eq(a->label, b->label);
		cr_assert_eq(a->kind, b->kind);
		cr_assert_eq(a->depth, b->depth);
		cr_assert_eq(a->items, b->items);
		cr_assert_eq(a->max_count, b->max_count);
		cr_assert_arr_eq(a->counts, b->counts, sizeof(a->counts));
	}
}

Test(loader, preview_parser_refuses_what_it_cannot_read)
{
	const char *bad[] = {
	    "preview 1 0 128 1",           /* a zero bucket width */
	    "preview 1 1024 64 1",         /* another bucket count */
	    "preview 1 1024 128 99999",    /* too many rows */
	    "row 2 1 5 1,2,3 HWQueue 0x1", /* a row outside a block */
	    "end",
	};

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(FsvPreviewParser) parser = _fsv_preview_parser_new();
		g_autoptr(GError) error = NULL;
		FsvLoadPreview *preview = NULL;

		cr_assert_not(_fsv_preview_parser_feed(parser, bad[i], &preview, &error), "%s",
			      bad[i]);
		cr_assert_null(preview);
		cr_assert_not_null(error);
	}
	{
		/* A block cut short (a killed builder) gives no preview; the next one starts
		 * over. */
		g_autoptr(FsvPreviewParser) parser = _fsv_preview_parser_new();
		FsvLoadPreview *preview = NULL;
		g_autoptr(GError) error = NULL;

		cr_assert(_fsv_preview_parser_feed(parser, "preview 1 1024 128 2", &preview, NULL));
		cr_assert(
		    _fsv_preview_parser_feed(parser, "row 0 0 0 - Adapter 0", &preview, NULL));
		cr_assert_not(_fsv_preview_parser_feed(parser, "end", &preview, &error));
		cr_assert_null(preview);
		cr_assert_not(
		    _fsv_preview_parser_feed(parser, "row 1 1 x - Engine 0", &preview, NULL));
		cr_assert(_fsv_preview_parser_feed(parser, "preview 1 1024 128 1", &preview, NULL));
		cr_assert(_fsv_preview_parser_feed(parser, "row 1 1 3 1,,2 Engine 0", &preview,
						   NULL) == FALSE);
		cr_assert(_fsv_preview_parser_feed(parser, "preview 1 1024 128 1", &preview, NULL));
		cr_assert(
		    _fsv_preview_parser_feed(parser, "row 1 1 3 1,0,2 Engine 0", &preview, NULL));
		cr_assert(_fsv_preview_parser_feed(parser, "end", &preview, NULL));
		cr_assert_not_null(preview);
		cr_assert_eq(fsv_load_preview_get_used_buckets(preview), 3);
		cr_assert_str_eq(fsv_load_preview_get_row(preview, 0)->label, "Engine 0");
		fsv_load_preview_unref(preview);
	}
}

/* ---- `fencescope render` through the loader ---- */

static void
render(const char *path, const char *out, const char *builder, int want_status)
{
	g_auto(GStrv) env = g_get_environ();
	const char *argv[] = {FS_FENCESCOPE, "render", path, "-o", out, "-q", NULL};
	g_autofree char *err = NULL;
	g_autoptr(GError) error = NULL;
	int status;

	if (builder)
		env = g_environ_setenv(env, "FENCESCOPE_INDEX_BUILDER", builder, TRUE);
	cr_assert(g_spawn_sync(NULL, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
			       NULL, &err, &status, &error),
		  "%s", error ? error->message : "");
	cr_assert_eq(WEXITSTATUS(status), want_status, "render %s: %s", path, err);
}

Test(loader, render_twice_gives_the_same_png_the_second_from_the_cache)
{
	g_autofree char *first = g_build_filename(work, "first.png", NULL);
	g_autofree char *second = g_build_filename(work, "second.png", NULL);
	g_autofree char *third = g_build_filename(work, "third.png", NULL);
	g_autofree char *a = NULL;
	g_autofree char *b = NULL;
	gsize na, nb;

	render(trace, first, NULL, 0);
	/* No builder to run: only the cache can serve it. */
	render(trace, second, "/nonexistent/fencescope-index", 0);
	cr_assert(g_file_get_contents(first, &a, &na, NULL));
	cr_assert(g_file_get_contents(second, &b, &nb, NULL));
	cr_assert_gt(na, 1000);
	cr_assert_eq(na, nb, "the PNGs differ in size");
	cr_assert_eq(memcmp(a, b, na), 0, "the PNGs differ");
	/* --no-cache does not read it: without a builder it cannot open. */
	{
		const char *argv[] = {FS_FENCESCOPE, "render", trace,        "-o",
				      third,         "-q",     "--no-cache", NULL};
		g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "FENCESCOPE_INDEX_BUILDER",
						     "/nonexistent/fencescope-index", TRUE);
		g_autofree char *err = NULL;
		int status;

		cr_assert(g_spawn_sync(NULL, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
				       NULL, NULL, &err, &status, NULL));
		cr_assert_eq(WEXITSTATUS(status), 2, "render --no-cache: %s", err);
		cr_assert_not_null(strstr(err, "index builder"), "%s", err);
	}
}

/* Two processes (two `fencescope render`, as two viewers would) opening one trace at once: both
 * build it, both succeed, the cache holds a whole index and no build folder is left. */
Test(loader, two_renders_of_one_trace_at_once_both_succeed)
{
	g_autofree char *a_png = g_build_filename(work, "a.png", NULL);
	g_autofree char *b_png = g_build_filename(work, "b.png", NULL);
	const char *a_argv[] = {FS_FENCESCOPE, "render", trace, "-o", a_png, "-q", NULL};
	const char *b_argv[] = {FS_FENCESCOPE, "render", trace, "-o", b_png, "-q", NULL};
	g_autoptr(GSubprocess) a = NULL;
	g_autoptr(GSubprocess) b = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) cached = NULL;
	g_autofree char *a_bytes = NULL;
	g_autofree char *b_bytes = NULL;
	gsize na, nb;

	a = g_subprocess_newv(a_argv, G_SUBPROCESS_FLAGS_NONE, &error);
	cr_assert_not_null(a, "%s", error ? error->message : "");
	b = g_subprocess_newv(b_argv, G_SUBPROCESS_FLAGS_NONE, &error);
	cr_assert_not_null(b, "%s", error ? error->message : "");
	cr_assert(g_subprocess_wait_check(a, NULL, &error), "first: %s", error->message);
	cr_assert(g_subprocess_wait_check(b, NULL, &error), "second: %s", error->message);
	cr_assert(g_file_get_contents(a_png, &a_bytes, &na, NULL));
	cr_assert(g_file_get_contents(b_png, &b_bytes, &nb, NULL));
	cr_assert(na == nb && memcmp(a_bytes, b_bytes, na) == 0, "the two renders differ");
	cr_assert_eq(count_leftovers(), 0);
	/* The index either one left maps. */
	g_setenv("FENCESCOPE_INDEX_BUILDER", "/nonexistent/fencescope-index", TRUE);
	cached = open_ok(trace, FSV_OPEN_DEFAULT);
	cr_assert_gt(fsv_trace_get_op_count(cached), 0);
}
