/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the index file and its cache (fsv-index.h; issue 15 §1, suite unit). A trace
 * saved and mapped back answers every accessor as the built one did (items, rows, the LODs'
 * visits at several zooms, the details text of every item); a changed trace gets another key
 * and is not served; a truncated file, a flipped byte and an out-of-bounds index (with its
 * checksum recomputed) and a damaged bool (a byte 2) are refused; two writers of one file at
 * once leave a whole file and no temporary file. The cache's cap removes the least recently used
 * index files first, never the one being opened nor anything that is not an index file, once
 * each with two pruners at once; FENCESCOPE_INDEX_CACHE_MAX is read with its suffixes. Rows
 * indexed by one thread or several give the same file.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "fsv-index.h"
#include "fsv-trace-storage.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"

static char *tmp_dir;

static void
setup(void)
{
	GError *error = NULL;

	tmp_dir = g_dir_make_tmp("fsv-test-index-XXXXXX", &error);
	cr_assert_null(error);
	/* A private cache: fsv_index_cache_file() writes under it. */
	g_setenv("XDG_CACHE_HOME", tmp_dir, TRUE);
}

static void
remove_tree(const char *path)
{
	GDir *dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir))) {
		g_autofree char *child = g_build_filename(path, name, NULL);

		if (g_file_test(child, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(child, G_FILE_TEST_IS_SYMLINK))
			remove_tree(child);
		else
			g_unlink(child);
	}
	if (dir)
		g_dir_close(dir);
	g_rmdir(path);
}

static void
teardown(void)
{
	remove_tree(tmp_dir);
	g_free(tmp_dir);
}

TestSuite(index, .init = setup, .fini = teardown, .timeout = 120);

static FsvTrace *
load(const char *name)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	GError *error = NULL;
	FsvTrace *trace = fsv_trace_load(path, NULL, NULL, NULL, &error);

	cr_assert_not_null(trace, "%s: %s", name, error ? error->message : "?");
	return trace;
}

static char *
save(const FsvTrace *trace, const char *key)
{
	char *file = g_build_filename(tmp_dir, "trace.fsvi", NULL);
	GError *error = NULL;

	cr_assert(fsv_index_save(trace, key, file, &error), "%s", error ? error->message : "?");
	return file;
}

/* Every field and text of an item's description, joined. */
static char *
describe(const FsvTrace *trace, FsvItemKind kind, guint32 index, guint32 row)
{
	FsvItem item = {kind, index, row};
	g_auto(GStrv) fields = fsv_trace_describe_item(trace, &item);
	g_autofree char *title = fsv_trace_dup_item_title(trace, &item);
	g_autofree char *joined = g_strjoinv("\n", fields);

	return g_strconcat(title, "\n", joined, NULL);
}

static void
assert_same_text(char *a, char *b, const char *what, guint32 i)
{
	cr_assert_str_eq(a, b, "%s %u differs", what, i);
	g_free(a);
	g_free(b);
}

typedef struct {
	GString *out;
} Visit;

static bool
visit_item(const FsvLodItem *item, gpointer data)
{
	Visit *v = data;

	g_string_append_printf(v->out, "i%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%u;",
			       item->begin_ns, item->end_ns, item->id);
	return true;
}

static bool
visit_bucket(const FsvLodBucket *b, gpointer data)
{
	Visit *v = data;

	g_string_append_printf(v->out, "b%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%u,%u;",
			       b->begin_ns, b->end_ns, b->count, b->top);
	return true;
}

/* What a LOD visits over the whole trace at a few zooms. */
static char *
lod_visits(const FsvTrace *trace, const FsvLod *lod)
{
	static const double zooms[] = {0, 1, 100, 1e4, 1e6, 1e8};
	Visit v = {g_string_new(lod ? "" : "none")};

	for (guint z = 0; lod && z < G_N_ELEMENTS(zooms); z++)
		fsv_lod_visit(lod, fsv_trace_get_begin_ns(trace), fsv_trace_get_end_ns(trace),
			      zooms[z], visit_item, visit_bucket, &v);
	return g_string_free(v.out, FALSE);
}

static void
assert_same_list(const guint32 *a, guint na, const guint32 *b, guint nb, const char *what)
{
	cr_assert_eq(na, nb, "%s: %u vs %u", what, na, nb);
	cr_assert(na == 0 || memcmp(a, b, na * sizeof(guint32)) == 0, "%s differ", what);
}

/* Every accessor of MAPPED answers as BUILT's. */
static void
assert_same_trace(const FsvTrace *built, const FsvTrace *mapped)
{
	cr_assert_str_eq(fsv_trace_get_path(built), fsv_trace_get_path(mapped));
	cr_assert_str_eq(fsv_trace_get_name(built), fsv_trace_get_name(mapped));
	cr_assert_eq(fsv_trace_get_begin_ns(built), fsv_trace_get_begin_ns(mapped));
	cr_assert_eq(fsv_trace_get_end_ns(built), fsv_trace_get_end_ns(mapped));
	cr_assert_eq(fsv_trace_get_partial_error(built) == NULL,
		     fsv_trace_get_partial_error(mapped) == NULL);
	cr_assert_str_eq(fsv_trace_get_summary(built)->runtime_version,
			 fsv_trace_get_summary(mapped)->runtime_version);
	cr_assert_eq(fsv_trace_get_summary(built)->event_count,
		     fsv_trace_get_summary(mapped)->event_count);
	cr_assert_eq(fsv_trace_get_ingest_stats(built)->events,
		     fsv_trace_get_ingest_stats(mapped)->events);
	cr_assert_eq(_fsv_trace_get_memory_size(built), _fsv_trace_get_memory_size(mapped));

	cr_assert_eq(fsv_trace_get_op_count(built), fsv_trace_get_op_count(mapped));
	for (guint32 i = 0; i < fsv_trace_get_op_count(built); i++) {
		guint na, nb;
		const guint32 *ea = fsv_trace_get_op_edges(built, i, &na);
		const guint32 *eb = fsv_trace_get_op_edges(mapped, i, &nb);

		cr_assert(memcmp(fsv_trace_get_op(built, i), fsv_trace_get_op(mapped, i),
				 sizeof(FsvOp)) == 0,
			  "op %u differs", i);
		assert_same_list(ea, na, eb, nb, "edges");
		cr_assert_eq(fsv_trace_find_op_by_id(mapped, fsv_trace_get_op(built, i)->id), i);
		assert_same_text(describe(built, FSV_ITEM_OP, i, fsv_trace_get_op(built, i)->row),
				 describe(mapped, FSV_ITEM_OP, i, fsv_trace_get_op(built, i)->row),
				 "op", i);
	}
	cr_assert_eq(fsv_trace_get_packet_count(built), fsv_trace_get_packet_count(mapped));
	for (guint32 i = 0; i < fsv_trace_get_packet_count(built); i++) {
		guint32 row = fsv_trace_get_packet(built, i)->row;

		cr_assert(memcmp(fsv_trace_get_packet(built, i), fsv_trace_get_packet(mapped, i),
				 sizeof(FsvPacket)) == 0,
			  "packet %u differs", i);
		assert_same_text(describe(built, FSV_ITEM_PACKET, i, row),
				 describe(mapped, FSV_ITEM_PACKET, i, row), "packet", i);
	}
	cr_assert_eq(fsv_trace_get_marker_count(built), fsv_trace_get_marker_count(mapped));
	for (guint32 i = 0; i < fsv_trace_get_marker_count(built); i++) {
		guint32 row = fsv_trace_get_marker(built, i)->row;

		cr_assert(memcmp(fsv_trace_get_marker(built, i), fsv_trace_get_marker(mapped, i),
				 sizeof(FsvMarker)) == 0,
			  "marker %u differs", i);
		assert_same_text(describe(built, FSV_ITEM_MARKER, i, row),
				 describe(mapped, FSV_ITEM_MARKER, i, row), "marker", i);
	}
	cr_assert_eq(fsv_trace_get_loss_count(built), fsv_trace_get_loss_count(mapped));
	for (guint32 i = 0; i < fsv_trace_get_loss_count(built); i++)
		assert_same_text(describe(built, FSV_ITEM_LOSS, i, FSV_INDEX_NONE),
				 describe(mapped, FSV_ITEM_LOSS, i, FSV_INDEX_NONE), "loss", i);
	cr_assert_eq(fsv_trace_get_anomaly_count(built), fsv_trace_get_anomaly_count(mapped));
	cr_assert_eq(fsv_trace_get_process_count(built), fsv_trace_get_process_count(mapped));
	for (guint i = 0; i < fsv_trace_get_process_count(built); i++)
		cr_assert_str_eq(fsv_trace_get_process(built, i)->name,
				 fsv_trace_get_process(mapped, i)->name);
	cr_assert_eq(fsv_trace_get_clock_fit_count(built), fsv_trace_get_clock_fit_count(mapped));

	cr_assert_eq(fsv_trace_get_row_count(built), fsv_trace_get_row_count(mapped));
	for (guint32 r = 0; r < fsv_trace_get_row_count(built); r++) {
		const FsvRow *a = fsv_trace_get_row(built, r), *b = fsv_trace_get_row(mapped, r);
		const guint32 *la, *lb;
		const FsvFenceStep *sa, *sb;
		guint na, nb;

		cr_assert_str_eq(a->label, b->label);
		cr_assert_str_eq(a->sublabel, b->sublabel);
		cr_assert_eq(a->kind, b->kind);
		cr_assert_eq(a->parent, b->parent);
		cr_assert_eq(a->lane_count, b->lane_count);
		cr_assert_eq(a->op_count, b->op_count);
		cr_assert_eq(a->hwqueue_handle, b->hwqueue_handle);
		cr_assert_eq(a->value_max, b->value_max);
		la = fsv_trace_get_row_ops(built, r, &na);
		lb = fsv_trace_get_row_ops(mapped, r, &nb);
		assert_same_list(la, na, lb, nb, "row ops");
		la = fsv_trace_get_row_packets(built, r, &na);
		lb = fsv_trace_get_row_packets(mapped, r, &nb);
		assert_same_list(la, na, lb, nb, "row packets");
		la = fsv_trace_get_row_markers(built, r, &na);
		lb = fsv_trace_get_row_markers(mapped, r, &nb);
		assert_same_list(la, na, lb, nb, "row markers");
		sa = fsv_trace_get_fence_steps(built, r, &na);
		sb = fsv_trace_get_fence_steps(mapped, r, &nb);
		cr_assert_eq(na, nb);
		cr_assert(na == 0 || memcmp(sa, sb, na * sizeof(*sa)) == 0);
		for (guint i = 0; i < na; i++)
			assert_same_text(describe(built, FSV_ITEM_FENCE_STEP, i, r),
					 describe(mapped, FSV_ITEM_FENCE_STEP, i, r), "step", i);
		assert_same_text(describe(built, FSV_ITEM_ROW, r, r),
				 describe(mapped, FSV_ITEM_ROW, r, r), "row", r);
		for (guint lane = 0; lane < 8; lane++) {
			assert_same_text(lod_visits(built, _fsv_trace_get_op_lod(built, r, lane)),
					 lod_visits(mapped, _fsv_trace_get_op_lod(mapped, r, lane)),
					 "op lane of row", r);
			assert_same_text(
			    lod_visits(built, _fsv_trace_get_packet_lod(built, r, lane)),
			    lod_visits(mapped, _fsv_trace_get_packet_lod(mapped, r, lane)),
			    "packet lane of row", r);
			assert_same_text(lod_visits(built, _fsv_trace_get_va_lod(built, r, lane)),
					 lod_visits(mapped, _fsv_trace_get_va_lod(mapped, r, lane)),
					 "VA lane of row", r);
		}
		for (int layer = 0; layer < FSV_MARKER_LAYER_COUNT; layer++)
			assert_same_text(
			    lod_visits(built, _fsv_trace_get_marker_lod(built, r, layer)),
			    lod_visits(mapped, _fsv_trace_get_marker_lod(mapped, r, layer)),
			    "marker layer of row", r);
		if (a->hwqueue_handle && a->kind == FSV_ROW_QUEUE)
			cr_assert_eq(fsv_trace_find_queue_row(mapped, a->hwqueue_handle),
				     fsv_trace_find_queue_row(built, a->hwqueue_handle));
		if (a->kind == FSV_ROW_FENCE)
			cr_assert_eq(fsv_trace_find_fence_row(mapped, a->fence_global_handle), r);
		if (a->kind == FSV_ROW_XFENCE)
			cr_assert_eq(fsv_trace_find_xfence_row(mapped, a->fence_global_handle,
							       a->adapter_id),
				     r);
		if (a->kind == FSV_ROW_VA_SPACE)
			cr_assert_eq(fsv_trace_find_va_row(mapped, a->process_id, a->adapter_id),
				     r);
	}
}

static void
round_trip(const char *name)
{
	g_autoptr(FsvTrace) built = load(name);
	g_autofree char *file = save(built, "test-key");
	GError *error = NULL;
	g_autoptr(FsvTrace) mapped =
	    fsv_index_map(file, "test-key", fsv_trace_get_path(built), &error);

	cr_assert_not_null(mapped, "%s: %s", name, error ? error->message : "?");
	assert_same_trace(built, mapped);
}

Test(index, saved_trace_maps_back_with_every_accessor_equal)
{
	/* Traces with every kind of row and item: queues and CPU waits, packets in pieces,
	 * doorbells, TDRs and resets, power states, displays, VA spaces and page faults,
	 * cross-adapter fences, losses. */
	static const char *const names[] = {
	    "stress",     "frame-pipeline", "log-overrun",       "tdr-hang",      "power-states",
	    "page-fault", "cross-adapter",  "doorbell-pressure", "adapter-reset", "cpu-waiters",
	};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++)
		round_trip(names[i]);
}

/* The index holds the trace's bytes only: the padding of each stored anomaly (after kind and
 * process_id) is zero, not what the analyzer's memory held (tdr-hang's and five other traces'
 * index files differed from one build to the next). */
Test(index, anomalies_are_stored_without_stray_padding_bytes)
{
	static const char *const names[] = {"tdr-hang", "adapter-reset", "fault-injection",
					    "page-fault"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autoptr(FsvTrace) trace = load(names[i]);
		guint n = fsv_trace_get_anomaly_count(trace);

		cr_assert_gt(n, 0, "%s has anomalies", names[i]);
		for (guint k = 0; k < n; k++) {
			const guint8 *bytes = (const guint8 *) fsv_trace_get_anomaly(trace, k);
			gsize kind_end = sizeof(enum fsa_anomaly_kind);
			gsize pid_end = offsetof(struct fsa_anomaly, process_id) + sizeof(uint32_t);

			for (gsize b = kind_end; b < offsetof(struct fsa_anomaly, ts_ns); b++)
				cr_assert_eq(bytes[b], 0, "%s anomaly %u byte %zu", names[i], k, b);
			for (gsize b = pid_end; b < offsetof(struct fsa_anomaly, hwqueue_handle);
			     b++)
				cr_assert_eq(bytes[b], 0, "%s anomaly %u byte %zu", names[i], k, b);
		}
	}
}

Test(index, empty_trace_maps_back)
{
	g_autoptr(FsvTrace) built = _fsv_trace_new_from_events("empty", NULL, 0);
	g_autofree char *file = save(built, "k");
	GError *error = NULL;
	g_autoptr(FsvTrace) mapped = fsv_index_map(file, "k", "empty", &error);

	cr_assert_not_null(mapped, "%s", error ? error->message : "?");
	assert_same_trace(built, mapped);
}

/* A copy of a trace folder from traces/ in the temporary folder. */
static char *
copy_trace(const char *name)
{
	g_autofree char *from = g_build_filename(FST_TRACES, name, NULL);
	char *to = g_build_filename(tmp_dir, name, NULL);
	g_autofree char *command = g_strdup_printf("cp -r '%s' '%s'", from, to);
	int status;

	cr_assert(g_spawn_command_line_sync(command, NULL, NULL, &status, NULL));
	cr_assert_eq(status, 0);
	return to;
}

/* The first stream file under DIR (a file whose name has no '.' and is not metadata). */
static char *
find_stream_file(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;
	char *found = NULL;

	while (d && !found && (name = g_dir_read_name(d))) {
		g_autofree char *path = g_build_filename(dir, name, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			found = find_stream_file(path);
		else if (strcmp(name, "metadata") != 0 && !strchr(name, '.'))
			found = g_strdup(path);
	}
	if (d)
		g_dir_close(d);
	return found;
}

Test(index, key_changes_when_a_stream_file_is_touched_or_grown)
{
	g_autofree char *trace_path = copy_trace("producer-consumer");
	g_autofree char *stream = find_stream_file(trace_path);
	g_autofree char *key = NULL, *touched = NULL, *grown = NULL, *again = NULL;
	g_autofree char *file = NULL;
	g_autoptr(FsvTrace) built = NULL;
	g_autoptr(FsvTrace) stale = NULL;
	g_autoptr(FsvTrace) fresh = NULL;
	GError *error = NULL;
	FILE *f;

	cr_assert_not_null(stream);
	key = fsv_index_key(trace_path, &error);
	cr_assert_not_null(key, "%s", error ? error->message : "?");
	again = fsv_index_key(trace_path, NULL);
	cr_assert_str_eq(key, again, "the same trace has the same key");
	file = fsv_index_cache_file(trace_path, &error);
	cr_assert_not_null(file);
	cr_assert(g_str_has_prefix(file, tmp_dir), "in XDG_CACHE_HOME: %s", file);
	cr_assert(g_str_has_suffix(file, ".fsvi"));
	cr_assert(strstr(file, key) != NULL);
	built = fsv_trace_load(trace_path, NULL, NULL, NULL, &error);
	cr_assert_not_null(built);
	cr_assert(fsv_index_save(built, key, file, &error));

	/* Touched: a new mtime, another key; the old file is not served for it. */
	{
		struct timespec times[2] = {{0, UTIME_OMIT}, {1234567890, 123456789}};

		cr_assert_eq(utimensat(AT_FDCWD, stream, times, 0), 0);
	}
	touched = fsv_index_key(trace_path, NULL);
	cr_assert_str_neq(touched, key);
	stale = fsv_index_map(file, touched, trace_path, &error);
	cr_assert_null(stale);
	cr_assert_eq(error->domain, FSV_TRACE_ERROR);
	cr_assert_eq(error->code, FSV_TRACE_ERROR_INDEX);
	cr_assert(strstr(error->message, "stale") != NULL, "%s", error->message);
	g_clear_error(&error);
	/* Grown: another size, another key again. */
	f = fopen(stream, "ab");
	cr_assert_not_null(f);
	fputc(0, f);
	fclose(f);
	grown = fsv_index_key(trace_path, NULL);
	cr_assert_str_neq(grown, touched);
	cr_assert_str_neq(grown, key);
	/* The cache file of the changed trace is another file. */
	{
		g_autofree char *other = fsv_index_cache_file(trace_path, NULL);

		cr_assert_str_neq(other, file);
		cr_assert_not(g_file_test(other, G_FILE_TEST_EXISTS));
	}
	/* The unchanged key still maps. */
	fresh = fsv_index_map(file, key, trace_path, &error);
	cr_assert_not_null(fresh, "%s", error ? error->message : "?");
}

Test(index, key_of_a_missing_path_is_an_io_error)
{
	GError *error = NULL;
	g_autofree char *key = fsv_index_key("/nonexistent/trace", &error);

	cr_assert_null(key);
	cr_assert_eq(error->code, FSV_TRACE_ERROR_IO);
	g_error_free(error);
}

static void
assert_refused(const char *file, const char *key, const char *expected)
{
	GError *error = NULL;
	FsvTrace *mapped = fsv_index_map(file, key, "x", &error);

	cr_assert_null(mapped, "a damaged file was mapped (%s)", expected);
	cr_assert_eq(error->domain, FSV_TRACE_ERROR);
	cr_assert_eq(error->code, FSV_TRACE_ERROR_INDEX);
	cr_assert(strchr(error->message, '\n') == NULL, "one line");
	if (expected)
		cr_assert(strstr(error->message, expected) != NULL, "%s: not %s", error->message,
			  expected);
	g_error_free(error);
}

Test(index, truncated_file_is_refused)
{
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autofree char *file = save(built, "k");
	g_autofree char *data = NULL;
	gsize size;

	cr_assert(g_file_get_contents(file, &data, &size, NULL));
	for (gsize cut = 0; cut < size; cut += MAX(size / 17, 1)) {
		cr_assert(g_file_set_contents(file, data, (gssize) cut, NULL));
		assert_refused(file, "k", NULL);
	}
	cr_assert(g_file_set_contents(file, data, (gssize) size - 1, NULL));
	assert_refused(file, "k", "truncated");
}

Test(index, one_flipped_byte_anywhere_is_refused)
{
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autofree char *file = save(built, "k");
	g_autofree char *data = NULL;
	gsize size;
	guint64 ops, n_ops;

	cr_assert(g_file_get_contents(file, &data, &size, NULL));
	/* Bytes all over the file (header, table, every section, padding). */
	for (gsize at = 0; at < size; at += MAX(size / 211, 1)) {
		data[at] ^= 0x20;
		cr_assert(g_file_set_contents(file, data, (gssize) size, NULL));
		assert_refused(file, "k", NULL);
		data[at] ^= 0x20;
	}
	/* A byte of data no bounds check reads (an op's begin time): only the checksum sees
	 * it. */
	cr_assert(_fsv_index_find_section(file, "OPS_", &ops, &n_ops, NULL));
	cr_assert_gt(n_ops, 0);
	data[ops + G_STRUCT_OFFSET(FsvOp, begin_ns)] ^= 1;
	cr_assert(g_file_set_contents(file, data, (gssize) size, NULL));
	assert_refused(file, "k", "checksum");
	data[ops + G_STRUCT_OFFSET(FsvOp, begin_ns)] ^= 1;
	/* Put back, it maps again. */
	cr_assert(g_file_set_contents(file, data, (gssize) size, NULL));
	{
		g_autoptr(FsvTrace) mapped = fsv_index_map(file, "k", "x", NULL);

		cr_assert_not_null(mapped);
	}
}

/* Writes VALUE (4 bytes) at OFFSET of FILE and recomputes its checksum. */
static void
patch_u32(const char *file, guint64 offset, guint32 value)
{
	g_autofree char *data = NULL;
	gsize size;

	cr_assert(g_file_get_contents(file, &data, &size, NULL));
	cr_assert_lt(offset + 4, size);
	memcpy(data + offset, &value, 4);
	cr_assert(g_file_set_contents(file, data, (gssize) size, NULL));
	cr_assert(_fsv_index_update_checksum(file, NULL));
}

Test(index, out_of_bounds_index_with_a_good_checksum_is_refused)
{
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autofree char *file = save(built, "k");
	g_autofree char *pristine = NULL;
	gsize size;
	guint64 offset, count;
	struct {
		const char *tag;
		gsize element_size, field;
	} cases[] = {
	    {"OPS_", sizeof(FsvOp), G_STRUCT_OFFSET(FsvOp, row)},
	    {"OPS_", sizeof(FsvOp), G_STRUCT_OFFSET(FsvOp, signal_op)},
	    {"PKTS", sizeof(FsvPacket), G_STRUCT_OFFSET(FsvPacket, row)},
	    {"MRKS", sizeof(FsvMarker), G_STRUCT_OFFSET(FsvMarker, row)},
	    {"ROPS", sizeof(guint32), 0},
	    {"EDGO", sizeof(guint32), 0},
	    {"LODI", sizeof(FsvLodItem), G_STRUCT_OFFSET(FsvLodItem, id)},
	    {"LODB", sizeof(FsvLodBucket), G_STRUCT_OFFSET(FsvLodBucket, top)},
	    {"RDAT", 4, 0}, /* a row's first op offset */
	    /* A row's lane count, which the view sizes its lanes by. */
	    {"ROWS", sizeof(FsvStoredRow),
	     G_STRUCT_OFFSET(FsvStoredRow, row) + G_STRUCT_OFFSET(FsvRow, lane_count)},
	    /* Format 6: a marker style's kind and flags (kind 0, flags 0xff). */
	    {"MKST", sizeof(FsvMarkerStyle), 0},
	};
	guint32 fence_row = FSV_INDEX_NONE;

	cr_assert(g_file_get_contents(file, &pristine, &size, NULL));
	{
		/* The unpatched file with a recomputed checksum maps. */
		g_autoptr(FsvTrace) mapped = NULL;

		cr_assert(_fsv_index_update_checksum(file, NULL));
		mapped = fsv_index_map(file, "k", "x", NULL);
		cr_assert_not_null(mapped);
	}
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		cr_assert(_fsv_index_find_section(file, cases[i].tag, &offset, &count, NULL));
		cr_assert_gt(count, 0, "%s empty", cases[i].tag);
		patch_u32(file, offset + (count - 1) * cases[i].element_size + cases[i].field,
			  0x7fffff00);
		assert_refused(file, "k", "out of bounds");
		cr_assert(g_file_set_contents(file, pristine, (gssize) size, NULL));
	}
	/* Format 6: a fence row's step blocks (FsvCounterRow.block) past the STPB array. */
	for (guint32 r = 0; r < fsv_trace_get_row_count(built) && fence_row == FSV_INDEX_NONE; r++)
		if (fsv_trace_get_row(built, r)->kind == FSV_ROW_FENCE)
			fence_row = r;
	cr_assert_neq(fence_row, FSV_INDEX_NONE);
	cr_assert(_fsv_index_find_section(file, "CROW", &offset, &count, NULL));
	patch_u32(file,
		  offset + fence_row * sizeof(FsvCounterRow) +
		      G_STRUCT_OFFSET(FsvCounterRow, block),
		  0x7fffff00);
	assert_refused(file, "k", "fence row blocks out of bounds");
	cr_assert(g_file_set_contents(file, pristine, (gssize) size, NULL));
}

/* Writes the byte VALUE at OFFSET of FILE and recomputes its checksum. */
static void
patch_u8(const char *file, guint64 offset, guint8 value)
{
	g_autofree char *data = NULL;
	gsize size;

	cr_assert(g_file_get_contents(file, &data, &size, NULL));
	cr_assert_lt(offset, size);
	data[offset] = (char) value;
	cr_assert(g_file_set_contents(file, data, (gssize) size, NULL));
	cr_assert(_fsv_index_update_checksum(file, NULL));
}

/* Issue 15 §1: a stored bool holding a byte other than 0 or 1 (reading it as a bool would be
 * undefined behaviour) is refused like an index out of bounds, in every array that stores
 * one. */
Test(index, damaged_bool_with_a_good_checksum_is_refused)
{
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autofree char *file = save(built, "k");
	g_autofree char *pristine = NULL;
	gsize size;
	guint64 offset, count;
	struct {
		const char *tag;
		gsize element_size, field;
	} cases[] = {
	    {"SCAL", sizeof(FsvTraceScalars),
	     G_STRUCT_OFFSET(FsvTraceScalars, summary) +
		 G_STRUCT_OFFSET(struct fsa_summary, has_trace_info)},
	    {"SCAL", sizeof(FsvTraceScalars), G_STRUCT_OFFSET(FsvTraceScalars, has_paging_packets)},
	    {"PKTS", sizeof(FsvPacket), G_STRUCT_OFFSET(FsvPacket, is_context_switch)},
	    {"PKTS", sizeof(FsvPacket), G_STRUCT_OFFSET(FsvPacket, is_user_mode)},
	    {"PKTS", sizeof(FsvPacket), G_STRUCT_OFFSET(FsvPacket, is_paging)},
	    {"PKST", sizeof(FsvPacketStyle), G_STRUCT_OFFSET(FsvPacketStyle, is_paging)},
	    {"MRKS", sizeof(FsvMarker), G_STRUCT_OFFSET(FsvMarker, is_open)},
	    {"MRKS", sizeof(FsvMarker), G_STRUCT_OFFSET(FsvMarker, is_missed)},
	    {"ROWS", sizeof(FsvStoredRow),
	     G_STRUCT_OFFSET(FsvStoredRow, row) + G_STRUCT_OFFSET(FsvRow, has_doorbell_band)},
	    {"ROWS", sizeof(FsvStoredRow),
	     G_STRUCT_OFFSET(FsvStoredRow, row) + G_STRUCT_OFFSET(FsvRow, has_event_strip)},
	    {"CROW", sizeof(FsvCounterRow), G_STRUCT_OFFSET(FsvCounterRow, is_wide)},
	    {"PROC", sizeof(FsvStoredProcess),
	     G_STRUCT_OFFSET(FsvStoredProcess, info) +
		 G_STRUCT_OFFSET(struct fsa_process_info, is_abnormal_termination)},
	    {"QUEU", sizeof(struct fsa_queue_info),
	     G_STRUCT_OFFSET(struct fsa_queue_info, is_user_mode)},
	    {"CTXS", sizeof(struct fsa_context_info),
	     G_STRUCT_OFFSET(struct fsa_context_info, has_schedule)},
	    {"ENGS", sizeof(struct fsa_engine_info),
	     G_STRUCT_OFFSET(struct fsa_engine_info, ums_supported)},
	    {"ENGS", sizeof(struct fsa_engine_info),
	     G_STRUCT_OFFSET(struct fsa_engine_info, is_preemption_aware)},
	    {"FENC", sizeof(struct fsa_fence_info),
	     G_STRUCT_OFFSET(struct fsa_fence_info, is_shared)},
	    {"FENC", sizeof(struct fsa_fence_info),
	     G_STRUCT_OFFSET(struct fsa_fence_info, is_cross_adapter)},
	    {"FENC", sizeof(struct fsa_fence_info),
	     G_STRUCT_OFFSET(struct fsa_fence_info, is_progress_fence)},
	};

	cr_assert(g_file_get_contents(file, &pristine, &size, NULL));
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		cr_assert(_fsv_index_find_section(file, cases[i].tag, &offset, &count, NULL));
		cr_assert_gt(count, 0, "%s empty", cases[i].tag);
		/* 1 is a bool: the file still maps (the check is of the byte, not of the
		 * field's meaning). */
		patch_u8(file, offset + (count - 1) * cases[i].element_size + cases[i].field, 1);
		{
			GError *error = NULL;
			g_autoptr(FsvTrace) mapped = fsv_index_map(file, "k", "x", &error);

			cr_assert_not_null(mapped, "case %u (%s): %s", i, cases[i].tag,
					   error ? error->message : "?");
		}
		patch_u8(file, offset + (count - 1) * cases[i].element_size + cases[i].field, 2);
		assert_refused(file, "k", "bool out of bounds");
		cr_assert(g_file_set_contents(file, pristine, (gssize) size, NULL));
	}
}

/* The rows are indexed by several threads (fsv-trace-build.c's index_rows), each into its own
 * arrays appended in row order afterwards, the edges on a thread of their own meanwhile, and the
 * counters' rows prepared by several threads (fsv-counters.c): the index file is the same bytes
 * with one thread and with several, on traces with many rows, lanes, aggregated slots and VA
 * mapping lanes. */
Test(index, rows_indexed_by_several_threads_give_the_same_file)
{
	static const char *const names[] = {"stress", "deep-queue", "mapping-churn",
					    "frame-pipeline"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree char *one = NULL;
		g_autofree char *several = NULL;
		gsize n_one, n_several;

		g_setenv("FSV_BUILD_THREADS", "1", TRUE);
		{
			g_autoptr(FsvTrace) built = load(names[i]);
			g_autofree char *file = save(built, "k");

			cr_assert(g_file_get_contents(file, &one, &n_one, NULL));
		}
		g_setenv("FSV_BUILD_THREADS", "3", TRUE);
		{
			g_autoptr(FsvTrace) built = load(names[i]);
			g_autofree char *file = save(built, "k");

			cr_assert(g_file_get_contents(file, &several, &n_several, NULL));
		}
		cr_assert_eq(n_one, n_several, "%s: sizes differ", names[i]);
		cr_assert(memcmp(one, several, n_one) == 0, "%s: the files differ", names[i]);
	}
	g_unsetenv("FSV_BUILD_THREADS");
}

/* fsv_index_save copies the arrays through a shared mapping of the file (fallocate'd), or with
 * pwrite where the file system cannot (FSV_INDEX_SAVE_WRITE=1 takes that path): the same bytes
 * either way, padding included, for a trace whose last section is empty too. */
Test(index, mapped_and_written_saves_give_the_same_file)
{
	static const char *const names[] = {"stress", "frame-pipeline", "cross-adapter", NULL};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autoptr(FsvTrace) built =
		    names[i] ? load(names[i]) : _fsv_trace_new_from_events("empty", NULL, 0);
		g_autofree char *mapped_bytes = NULL;
		g_autofree char *written_bytes = NULL;
		gsize n_mapped, n_written;
		GError *error = NULL;

		g_unsetenv("FSV_INDEX_SAVE_WRITE");
		{
			g_autofree char *file = save(built, "k");
			g_autoptr(FsvTrace) mapped = fsv_index_map(file, "k", "x", &error);

			cr_assert_not_null(mapped, "%s", error ? error->message : "?");
			cr_assert(g_file_get_contents(file, &mapped_bytes, &n_mapped, NULL));
		}
		g_setenv("FSV_INDEX_SAVE_WRITE", "1", TRUE);
		{
			g_autofree char *file = save(built, "k");

			cr_assert(g_file_get_contents(file, &written_bytes, &n_written, NULL));
		}
		g_unsetenv("FSV_INDEX_SAVE_WRITE");
		cr_assert_eq(n_mapped, n_written, "%s: sizes differ",
			     names[i] ? names[i] : "empty");
		cr_assert(memcmp(mapped_bytes, written_bytes, n_mapped) == 0,
			  "%s: the files differ", names[i] ? names[i] : "empty");
	}
}

/* A save that cannot allocate the file (here over RLIMIT_FSIZE; a full disk the same way)
 * fails with an error, leaves neither the file nor a temporary one, and never dies of a
 * SIGBUS while copying into the mapping. */
Test(index, save_that_cannot_allocate_the_file_fails_and_leaves_nothing)
{
	g_autoptr(FsvTrace) built = load("stress");
	g_autofree char *file = g_build_filename(tmp_dir, "big.fsvi", NULL);
	struct rlimit old, small = {64 * 1024, 0};
	GError *error = NULL;
	const char *entry;
	GDir *dir;
	bool ok;

	cr_assert(getrlimit(RLIMIT_FSIZE, &old) == 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	cr_assert(setrlimit(RLIMIT_FSIZE, &small) == 0);
	ok = fsv_index_save(built, "k", file, &error);
	setrlimit(RLIMIT_FSIZE, &old);
	cr_assert_not(ok, "a %.0f kB file saved under a 64 kB limit",
		      _fsv_trace_get_memory_size(built) / 1e3);
	cr_assert_not_null(error);
	g_clear_error(&error);
	dir = g_dir_open(tmp_dir, 0, NULL);
	cr_assert_not_null(dir);
	while ((entry = g_dir_read_name(dir)))
		cr_assert(strstr(entry, "big.fsvi") == NULL, "left behind: %s", entry);
	g_dir_close(dir);
}

/* The model hands the ops over out of id order on the stress trace: the build sorts them
 * (sort_ops_by_id: keys, then one move per op along the permutation's cycles), each op once,
 * none lost or doubled. */
Test(index, ops_come_out_in_id_order_each_once)
{
	static const char *const names[] = {"stress", "frame-pipeline", "deep-queue"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autoptr(FsvTrace) built = load(names[i]);
		guint n = fsv_trace_get_op_count(built);
		g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);

		for (guint k = 1; k < n; k++)
			cr_assert_lt(fsv_trace_get_op(built, k - 1)->id,
				     fsv_trace_get_op(built, k)->id, "%s: op %u", names[i], k);
		for (guint k = 0; k < n; k++) {
			const FsvOp *op = fsv_trace_get_op(built, k);

			g_hash_table_add(seen, (gpointer) &op->id);
		}
		cr_assert_eq(g_hash_table_size(seen), n, "%s", names[i]);
	}
}

/* index_edges buckets the edges by op, then sorts each op's list and drops its duplicates (the
 * model gives each edge twice): every op's edges are in index order, each once, and go both
 * ways; a wait's signal_op is its one edge. */
Test(index, edges_are_in_index_order_each_once_and_both_ways)
{
	static const char *const names[] = {"stress", "frame-pipeline", "deep-queue", "cpu-waiters",
					    "cross-adapter"};
	guint longest = 0;

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autoptr(FsvTrace) built = load(names[i]);
		guint n_ops = fsv_trace_get_op_count(built), total = 0;

		for (guint32 op = 0; op < n_ops; op++) {
			guint n = 0;
			const guint32 *e = fsv_trace_get_op_edges(built, op, &n);
			const FsvOp *o = fsv_trace_get_op(built, op);

			total += n;
			longest = MAX(longest, n);
			for (guint k = 0; k < n; k++) {
				guint m = 0;
				const guint32 *back = fsv_trace_get_op_edges(built, e[k], &m);
				bool found = false;

				cr_assert(k == 0 || e[k - 1] < e[k], "%s: op %u's edges %u, %u",
					  names[i], op, e[k - 1], e[k]);
				for (guint j = 0; j < m; j++)
					found |= back[j] == op;
				cr_assert(found, "%s: %u -> %u, not back", names[i], op, e[k]);
			}
			if (o->kind == FSA_OP_WAIT)
				cr_assert_eq(o->signal_op, n > 0 ? e[0] : FSV_INDEX_NONE,
					     "%s: op %u", names[i], op);
		}
		cr_assert_eq(total, 2 * fsv_trace_get_summary(built)->edge_count, "%s", names[i]);
	}
	cr_assert_gt(longest, 2, "some signal releases several waits");
}

/* The builder's save (_fsv_index_save_and_drop) writes the same file as fsv_index_save, though it
 * gives each array's pages back as soon as they are copied, and leaves nothing else behind. */
Test(index, the_builders_dropping_save_gives_the_same_file)
{
	static const char *const names[] = {"stress", "frame-pipeline", "cross-adapter"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree char *kept_bytes = NULL;
		g_autofree char *dropped_bytes = NULL;
		g_autofree char *file = g_build_filename(tmp_dir, "dropped.fsvi", NULL);
		gsize n_kept, n_dropped;
		GError *error = NULL;

		{
			g_autoptr(FsvTrace) built = load(names[i]);
			g_autofree char *kept = save(built, "k");

			cr_assert(g_file_get_contents(kept, &kept_bytes, &n_kept, NULL));
		}
		{
			g_autoptr(FsvTrace) built = load(names[i]);

			cr_assert(_fsv_index_save_and_drop(built, "k", file, &error), "%s",
				  error ? error->message : "?");
			cr_assert(g_file_get_contents(file, &dropped_bytes, &n_dropped, NULL));
		}
		cr_assert_eq(n_kept, n_dropped, "%s: sizes differ", names[i]);
		cr_assert(memcmp(kept_bytes, dropped_bytes, n_kept) == 0, "%s: the files differ",
			  names[i]);
		{
			g_autoptr(FsvTrace) mapped = fsv_index_map(file, "k", names[i], &error);

			cr_assert_not_null(mapped, "%s", error ? error->message : "?");
		}
	}
}

Test(index, wrong_key_is_refused)
{
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autofree char *file = save(built, "k1");

	assert_refused(file, "k2", "stale");
}

typedef struct {
	const FsvTrace *trace;
	const char *file;
	guint rounds;
	bool ok;
} Writer;

static gpointer
writer_thread(gpointer data)
{
	Writer *w = data;

	w->ok = true;
	for (guint i = 0; i < w->rounds; i++)
		w->ok &= fsv_index_save(w->trace, "k", w->file, NULL);
	return NULL;
}

Test(index, two_writers_of_one_file_leave_it_whole_and_no_temporary_file)
{
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autofree char *dir = g_build_filename(tmp_dir, "cache", NULL);
	g_autofree char *file = g_build_filename(dir, "same.fsvi", NULL);
	Writer a = {built, file, 20, false}, b = {built, file, 20, false};
	GThread *ta, *tb;
	GDir *d;
	const char *name;
	guint files = 0;

	cr_assert_eq(g_mkdir_with_parents(dir, 0700), 0);
	ta = g_thread_new("a", writer_thread, &a);
	tb = g_thread_new("b", writer_thread, &b);
	/* Meanwhile, a reader: whatever it maps is whole. */
	for (guint i = 0; i < 20; i++) {
		g_autoptr(FsvTrace) mapped = fsv_index_map(file, "k", "x", NULL);

		if (mapped)
			cr_assert_eq(fsv_trace_get_op_count(mapped), fsv_trace_get_op_count(built));
	}
	g_thread_join(ta);
	g_thread_join(tb);
	cr_assert(a.ok && b.ok, "both writers succeed");
	{
		GError *error = NULL;
		g_autoptr(FsvTrace) mapped =
		    fsv_index_map(file, "k", fsv_trace_get_path(built), &error);

		cr_assert_not_null(mapped, "%s", error ? error->message : "?");
		assert_same_trace(built, mapped);
	}
	d = g_dir_open(dir, 0, NULL);
	while ((name = g_dir_read_name(d))) {
		cr_assert_str_eq(name, "same.fsvi", "left behind: %s", name);
		files++;
	}
	g_dir_close(d);
	cr_assert_eq(files, 1);
}

/* ---- The cache's cap (FENCESCOPE_INDEX_CACHE_MAX) ----------------------------------------- */

/* A cache file named after key number I (64 hex digits), SIZE bytes, last used at second
 * USED_S. */
static char *
make_cache_file(const char *folder, guint i, gsize size, time_t used_s)
{
	g_autofree char *name = g_strdup_printf("%064x.fsvi", i + 1);
	g_autofree char *data = g_malloc0(size);
	char *path = g_build_filename(folder, name, NULL);
	struct timespec times[2] = {{used_s, 0}, {used_s, 0}};

	cr_assert(g_file_set_contents(path, data, (gssize) size, NULL));
	cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
	return path;
}

static char *
make_cache_folder(void)
{
	char *folder = g_build_filename(tmp_dir, "cache-cap", NULL);

	cr_assert_eq(g_mkdir_with_parents(folder, 0700), 0);
	return folder;
}

Test(index, cache_cap_removes_least_recently_used_first_never_the_one_opened)
{
	g_autofree char *folder = make_cache_folder();
	g_autofree char *tmp = g_build_filename(folder, "aa.fsvi.tmp.XYZ123", NULL);
	g_autofree char *build = g_build_filename(folder, "build-1-ABCDEF", NULL);
	g_autofree char *other = g_build_filename(folder, "notes.txt", NULL);
	char *files[5];

	/* Five index files of 1000 bytes, file 0 used longest ago, file 4 last. */
	for (guint i = 0; i < 5; i++)
		files[i] = make_cache_file(folder, i, 1000, 1000000 + 100 * (time_t) i);
	/* A save in progress, a builder's folder and another file: not index files. */
	cr_assert(g_file_set_contents(tmp, "x", 1, NULL));
	cr_assert_eq(g_mkdir(build, 0700), 0);
	cr_assert(g_file_set_contents(other, "x", 1, NULL));

	/* Under the cap: nothing goes. */
	cr_assert_eq(fsv_index_cache_prune(folder, 5000, NULL), 0);
	for (guint i = 0; i < 5; i++)
		cr_assert(g_file_test(files[i], G_FILE_TEST_EXISTS));
	/* 2500 bytes, file 0 being opened: files 1, 2, 3 go (oldest first), 0 and 4 stay. */
	cr_assert_eq(fsv_index_cache_prune(folder, 2500, files[0]), 3);
	cr_assert(g_file_test(files[0], G_FILE_TEST_EXISTS), "the file being opened went");
	for (guint i = 1; i < 4; i++)
		cr_assert_not(g_file_test(files[i], G_FILE_TEST_EXISTS), "file %u stayed", i);
	cr_assert(g_file_test(files[4], G_FILE_TEST_EXISTS), "the most recent one went");
	/* A cap of 0: only the one being opened stays, even over the cap. */
	cr_assert_eq(fsv_index_cache_prune(folder, 0, files[4]), 1);
	cr_assert_not(g_file_test(files[0], G_FILE_TEST_EXISTS));
	cr_assert(g_file_test(files[4], G_FILE_TEST_EXISTS));
	cr_assert_eq(fsv_index_cache_prune(folder, 0, files[4]), 0);
	cr_assert(g_file_test(tmp, G_FILE_TEST_EXISTS), "a save's temporary file went");
	cr_assert(g_file_test(build, G_FILE_TEST_IS_DIR), "a build folder went");
	cr_assert(g_file_test(other, G_FILE_TEST_EXISTS), "a file not of the cache went");
	for (guint i = 0; i < 5; i++)
		g_free(files[i]);
}

Test(index, cache_touch_makes_a_file_the_most_recently_used)
{
	g_autofree char *folder = make_cache_folder();
	g_autofree char *old = make_cache_file(folder, 0, 1000, 1000000);
	g_autofree char *recent = make_cache_file(folder, 1, 1000, 2000000);

	fsv_index_cache_touch(old);
	cr_assert_eq(fsv_index_cache_prune(folder, 1500, NULL), 1);
	cr_assert(g_file_test(old, G_FILE_TEST_EXISTS), "the file used last went");
	cr_assert_not(g_file_test(recent, G_FILE_TEST_EXISTS));
	/* A file already gone: nothing to mark, no error. */
	fsv_index_cache_touch(recent);
}

Test(index, cache_cap_reads_the_environment)
{
	struct {
		const char *value;
		guint64 expected;
	} cases[] = {
	    {NULL, FSV_INDEX_CACHE_MAX_DEFAULT},
	    {"", FSV_INDEX_CACHE_MAX_DEFAULT},
	    {"0", 0},
	    {"12345", 12345},
	    {"2K", 2048},
	    {"3m", G_GUINT64_CONSTANT(3) << 20},
	    {"10G", G_GUINT64_CONSTANT(10) << 30},
	    {" 1T ", G_GUINT64_CONSTANT(1) << 40},
	    {"lots", FSV_INDEX_CACHE_MAX_DEFAULT},
	    {"5X", FSV_INDEX_CACHE_MAX_DEFAULT},
	    {"-1", FSV_INDEX_CACHE_MAX_DEFAULT},
	    {"99999999999999T", FSV_INDEX_CACHE_MAX_DEFAULT}, /* overflows 64 bits */
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		if (cases[i].value)
			g_setenv("FENCESCOPE_INDEX_CACHE_MAX", cases[i].value, TRUE);
		else
			g_unsetenv("FENCESCOPE_INDEX_CACHE_MAX");
		cr_assert_eq(fsv_index_cache_get_max(), cases[i].expected, "\"%s\"",
			     cases[i].value ? cases[i].value : "(unset)");
	}
	g_unsetenv("FENCESCOPE_INDEX_CACHE_MAX");
}

typedef struct {
	const char *folder;
	guint removed;
} Pruner;

static gpointer
pruner_thread(gpointer data)
{
	Pruner *p = data;

	for (guint round = 0; round < 20; round++)
		p->removed += fsv_index_cache_prune(p->folder, 10 * 1000, NULL);
	return NULL;
}

/* Two viewers capping one cache at once: each file is removed once, by one of them, and what
 * stays is the most recently used files under the cap. */
Test(index, two_pruners_at_once_remove_each_file_once)
{
	g_autofree char *folder = make_cache_folder();
	Pruner a = {folder, 0}, b = {folder, 0};
	GThread *ta, *tb;

	for (guint i = 0; i < 200; i++)
		g_free(make_cache_file(folder, i, 1000, 1000000 + (time_t) i));
	ta = g_thread_new("a", pruner_thread, &a);
	tb = g_thread_new("b", pruner_thread, &b);
	g_thread_join(ta);
	g_thread_join(tb);
	cr_assert_eq(a.removed + b.removed, 190);
	for (guint i = 0; i < 200; i++) {
		g_autofree char *name = g_strdup_printf("%064x.fsvi", i + 1);
		g_autofree char *path = g_build_filename(folder, name, NULL);

		cr_assert_eq(g_file_test(path, G_FILE_TEST_EXISTS), i >= 190, "file %u", i);
	}
}
