/* SPDX-License-Identifier: MIT */
/*
 * `fencescope export` end to end over the recorded sample traces (traces/): the SQLite rows and
 * the Perfetto events agree with the run's totals (totals.txt) and with the report's golden
 * counts (expected.json), and bad input gives one line on stderr and the documented exit
 * status, never a half-written file.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <json-glib/json-glib.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export-test-util.h"

static sqlite3 *db;
static JsonParser *parser;

static void
setup(void)
{
	fst_make_dir();
}

static void
teardown(void)
{
	if (db)
		sqlite3_close(db);
	if (parser)
		g_object_unref(parser);
	/* A copied trace, if any, then the outputs. */
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", fst_dir);

	if (system(cmd) != 0)
		fst_remove_dir();
}

TestSuite(export_cli, .init = setup, .fini = teardown);

struct run {
	int status;
	char *err;
};

/* Runs fencescope with ARGS (NULL-terminated); returns its exit status and stderr. */
static struct run
fencescope(const char *first, ...)
{
	GPtrArray *argv = g_ptr_array_new();
	struct run r = {0};
	g_autoptr(GError) error = NULL;
	int wait_status;
	va_list args;

	g_ptr_array_add(argv, (char *) FST_FENCESCOPE);
	va_start(args, first);
	for (const char *a = first; a; a = va_arg(args, const char *))
		g_ptr_array_add(argv, (char *) a);
	va_end(args);
	g_ptr_array_add(argv, NULL);
	cr_assert(g_spawn_sync(NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
			       NULL, NULL, &r.err, &wait_status, &error),
		  "%s", error ? error->message : "");
	g_ptr_array_unref(argv);
	r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128;
	return r;
}

static int64_t
query_int(const char *sql)
{
	sqlite3_stmt *s;
	int64_t v;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s: no row", sql);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* "key: value" of traces/NAME/totals.txt. */
static int64_t
total(const char *trace, const char *key)
{
	g_autofree char *path = g_strdup_printf("%s/%s/totals.txt", FST_TRACES, trace);
	g_autofree char *text = NULL;
	g_autofree char *needle = g_strdup_printf("\n%s: ", key);
	const char *hit;

	cr_assert(g_file_get_contents(path, &text, NULL, NULL), "%s", path);
	hit = strstr(text, needle);
	cr_assert_not_null(hit, "%s has no %s", path, key);
	return g_ascii_strtoll(hit + strlen(needle), NULL, 10);
}

/* summary.trace.KEY of traces/NAME/expected.json, the report's golden file. */
static int64_t
golden(JsonObject *trace, const char *key)
{
	JsonNode *node = json_object_get_member(trace, key);

	cr_assert(node, "expected.json has no summary.trace.%s", key);
	/* Integers above 2^53 (trace times) are decimal strings (docs/report-schema.md). */
	if (json_node_get_value_type(node) == G_TYPE_STRING)
		return (int64_t) g_ascii_strtoull(json_node_get_string(node), NULL, 10);
	return json_node_get_int(node);
}

static JsonObject *
golden_summary(const char *name)
{
	g_autofree char *path = g_strdup_printf("%s/%s/expected.json", FST_TRACES, name);
	g_autoptr(GError) error = NULL;
	JsonParser *p = json_parser_new();
	JsonObject *root;

	cr_assert(json_parser_load_from_file(p, path, &error), "%s", error ? error->message : "");
	root = json_node_get_object(json_parser_get_root(p));
	/* The objects live as long as the parser: the test's length. */
	if (parser)
		g_object_unref(parser);
	parser = p;
	return json_object_get_object_member(json_object_get_object_member(root, "summary"),
					     "trace");
}

Test(export_cli, frame_pipeline_rows_match_the_run_and_the_report)
{
	const char *trace = FST_TRACES "/frame-pipeline";
	g_autofree char *db_path = g_strdup(fst_path("fp.db"));
	g_autofree char *json_path = g_strdup(fst_path("fp.json"));
	struct run r =
	    fencescope("export", trace, "--sqlite", db_path, "--perfetto", json_path, NULL);
	JsonObject *g = golden_summary("frame-pipeline");

	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);

	/* The run's own totals: what the runtime did. */
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE source = 'user_mode' AND "
			       "kind = 'wait'"),
		     total("frame-pipeline", "gpu_waits"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE source = 'user_mode' AND "
			       "kind = 'signal'"),
		     total("frame-pipeline", "gpu_signals"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE source = 'kernel_mode' AND "
			       "kind = 'wait'"),
		     total("frame-pipeline", "kernel_waits"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE source = 'kernel_mode' AND "
			       "kind = 'signal'"),
		     total("frame-pipeline", "kernel_signals"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM packets"),
		     total("frame-pipeline", "submissions"));
	cr_expect_eq(query_int("SELECT value FROM summary WHERE key = 'event_count'"),
		     total("frame-pipeline", "events"));
	cr_expect_eq(query_int("SELECT value FROM summary WHERE key = 'log_entries_read'"),
		     total("frame-pipeline", "log_entries_read"));

	/* The report's golden counts: the same analysis, another writer. */
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE source = 'cpu' AND kind = "
			       "'wait'"),
		     golden(g, "cpu_waits"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE state = 'observed'"),
		     golden(g, "observed_ops"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM edges"), golden(g, "edges"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM queues"), golden(g, "queues"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM fences"), golden(g, "fences"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM processes"), golden(g, "processes"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM anomalies"), golden(g, "anomalies"));
	cr_expect_eq(query_int("SELECT value FROM summary WHERE key = 'first_ns'"),
		     golden(g, "first_ns"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM wait_dependencies WHERE signal_op_id IS NOT "
			       "NULL"),
		     golden(g, "edges"));
	/* Every flip of the run reached the screen: one frame each (docs/analyzer.md "Frames"). */
	cr_expect_eq(query_int("SELECT COUNT(*) FROM frames WHERE is_pending = 0"),
		     total("frame-pipeline", "flips"));
	cr_expect_eq(query_int("SELECT SUM(count) + COUNT(*) FROM frame_times"),
		     total("frame-pipeline", "flips"),
		     "every frame but each display's first has a time");
	cr_expect_gt(
	    query_int("SELECT COUNT(*) FROM engine_utilization WHERE busy_fraction > 0 AND "
		      "busy_fraction <= 1"),
	    0);

	/* Perfetto: one box per operation, one arrow per edge, each arrow paired. */
	{
		g_autoptr(JsonParser) p = json_parser_new();
		g_autoptr(GError) error = NULL;
		g_autoptr(GHashTable) starts = g_hash_table_new(g_int64_hash, g_int64_equal);
		g_autoptr(GHashTable) finishes = g_hash_table_new(g_int64_hash, g_int64_equal);
		g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(gint64));
		JsonArray *events;
		int64_t boxes = 0;

		cr_assert(json_parser_load_from_file(p, json_path, &error), "%s",
			  error ? error->message : "");
		events = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)),
						      "traceEvents");
		for (guint i = 0; i < json_array_get_length(events); i++) {
			JsonObject *e = json_array_get_object_element(events, i);
			const char *ph = json_object_get_string_member(e, "ph");
			const char *cat = json_object_get_string_member_with_default(e, "cat", "");

			if (strcmp(ph, "X") == 0 &&
			    (g_str_has_prefix(cat, "wait") || g_str_has_prefix(cat, "signal")) &&
			    strcmp(cat, "wait.stalled") != 0)
				boxes++;
			if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
				gint64 id = json_object_get_int_member(e, "id");

				g_array_append_val(ids, id);
				g_hash_table_add(ph[0] == 's' ? starts : finishes,
						 &g_array_index(ids, gint64, ids->len - 1));
			}
		}
		cr_expect_eq(boxes, query_int("SELECT COUNT(*) FROM operations"));
		cr_expect_eq(g_hash_table_size(starts), (guint) golden(g, "edges"));
		cr_expect_eq(g_hash_table_size(finishes), (guint) golden(g, "edges"));
	}
}

/* docs/analyzer.md "Tolerance": mapped times respect causality in every writer (frame-pipeline
 * had 324 of 360 packets starting 1-9 ns before their ring write, and 108 of 359 arrows ending
 * before they started). */
Test(export_cli, frame_pipeline_times_respect_causality_no_null_delay_no_backwards_arrow)
{
	g_autofree char *db_path = g_strdup(fst_path("fpc.db"));
	g_autofree char *json_path = g_strdup(fst_path("fpc.json"));
	struct run r = fencescope("export", FST_TRACES "/frame-pipeline", "--sqlite", db_path,
				  "--perfetto", json_path, NULL);
	g_autoptr(JsonParser) p = json_parser_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(GHashTable) starts =
	    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	JsonArray *events;
	guint arrows = 0, backwards = 0;

	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	/* 120 frames: a copy upload and a 3D render each (the present is a flip, no packet) */
	cr_assert_eq(query_int("SELECT COUNT(*) FROM packets WHERE queued_ns IS NOT NULL"), 240);
	cr_expect_eq(query_int("SELECT COUNT(*) FROM packets WHERE queued_ns IS NOT NULL AND "
			       "start_ns IS NOT NULL AND queue_delay_ns IS NULL"),
		     0);
	cr_expect_eq(query_int("SELECT COUNT(*) FROM packets WHERE end_ns < start_ns"), 0);
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE end_ns < queued_ns OR "
			       "observed_ns < queued_ns OR end_ns < observed_ns"),
		     0);
	cr_expect_eq(query_int("SELECT COUNT(*) FROM edges WHERE wait_end_ns < signal_end_ns"), 0);
	/* Whether any time needed clamping depends on the recording (the model tests clamp). */
	cr_expect_geq(query_int("SELECT COUNT(*) FROM summary WHERE key = 'clamped_times'"), 1);

	cr_assert(json_parser_load_from_file(p, json_path, &error), "%s",
		  error ? error->message : "");
	events = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)),
					      "traceEvents");
	/* Pass 0 keeps each arrow's start ("s"), pass 1 compares its finish ("f") to it. */
	for (int pass = 0; pass < 2; pass++)
		for (guint i = 0; i < json_array_get_length(events); i++) {
			JsonObject *e = json_array_get_object_element(events, i);
			const char *ph = json_object_get_string_member(e, "ph");
			gint64 id;
			double ts, *start;

			if (strcmp(ph, pass == 0 ? "s" : "f") != 0)
				continue;
			id = json_object_get_int_member(e, "id");
			ts = json_object_get_double_member(e, "ts");
			if (pass == 0) {
				start = g_new(double, 1);
				*start = ts;
				g_hash_table_insert(starts, g_memdup2(&id, sizeof(id)), start);
				continue;
			}
			start = g_hash_table_lookup(starts, &id);
			cr_assert_not_null(start, "arrow %" G_GINT64_FORMAT " has no start", id);
			arrows++;
			if (ts < *start)
				backwards++;
		}
	/* 120 GPU and 120 kernel-mode waits, each released by a signal; the first upload's wait
	 * (on the render of no frame) is satisfied by the initial value: no arrow. */
	cr_expect_eq(arrows, 239);
	cr_expect_eq(backwards, 0, "%u of %u arrows end before they start", backwards, arrows);
}

Test(export_cli, log_overrun_losses_and_inferred_operations)
{
	g_autofree char *db_path = g_strdup(fst_path("lo.db"));
	struct run r = fencescope("export", FST_TRACES "/log-overrun", "--sqlite", db_path, NULL);
	JsonObject *g = golden_summary("log-overrun");

	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_expect_eq(query_int("SELECT COALESCE(SUM(count), 0) FROM losses WHERE kind = "
			       "'log_overrun'"),
		     total("log-overrun", "log_entries_lost"));
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations WHERE state = 'inferred'"),
		     golden(g, "inferred_ops"));
	cr_expect_eq(query_int("SELECT COALESCE(SUM(inferred_ops), 0) FROM losses"),
		     golden(g, "inferred_ops"));
}

Test(export_cli, time_filter_keeps_what_overlaps_it)
{
	g_autofree char *all_path = g_strdup(fst_path("all.db"));
	g_autofree char *part_path = g_strdup(fst_path("part.db"));
	struct run r =
	    fencescope("export", FST_TRACES "/frame-pipeline", "--sqlite", all_path, NULL);
	int64_t first, all_ops, expected;

	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	r = fencescope("export", FST_TRACES "/frame-pipeline", "--sqlite", part_path, "--begin",
		       "+500ms", "--end", "+1s", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);

	cr_assert_eq(sqlite3_open_v2(all_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	first = query_int("SELECT value FROM summary WHERE key = 'first_ns'");
	all_ops = query_int("SELECT COUNT(*) FROM operations");
	{
		g_autofree char *sql = g_strdup_printf(
		    "SELECT COUNT(*) FROM operations WHERE end_ns >= %" G_GINT64_FORMAT
		    " AND queued_ns <= %" G_GINT64_FORMAT,
		    first + 500000000, first + 1000000000);

		expected = query_int(sql);
	}
	sqlite3_close(db);
	cr_assert_eq(sqlite3_open_v2(part_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_expect_eq(query_int("SELECT COUNT(*) FROM operations"), expected);
	cr_expect_gt(expected, 0);
	cr_expect_lt(expected, all_ops);
}

Test(export_cli, bad_input_is_one_line_and_exit_status_2_and_an_existing_output_4)
{
	g_autofree char *out = g_strdup(fst_path("x.db"));
	struct run r;

	r = fencescope("export", FST_TRACES "/frame-pipeline", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(g_str_has_prefix(r.err, "fencescope export: "), "%s", r.err);
	g_free(r.err);

	r = fencescope("export", "/nonexistent/trace", "--sqlite", out, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(g_str_has_prefix(r.err, "fencescope export: /nonexistent/trace"), "%s", r.err);
	cr_expect_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
	g_free(r.err);
	cr_expect_eq(fst_dir_file_count(), 0, "nothing is left behind");

	cr_assert(g_file_set_contents(out, "keep", -1, NULL));
	/* An output that exists is the output's failure (4), not bad usage. */
	r = fencescope("export", FST_TRACES "/frame-pipeline", "--sqlite", out, NULL);
	cr_expect_eq(r.status, 4);
	cr_expect(strstr(r.err, "exists"), "%s", r.err);
	g_free(r.err);
	r = fencescope("export", FST_TRACES "/frame-pipeline", "--sqlite", out, "--force", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_expect_eq(fst_dir_file_count(), 1);
}

Test(export_cli, damaged_trace_gives_a_partial_export_that_says_so)
{
	g_autofree char *copy = g_strdup(fst_path("trace"));
	g_autofree char *cmd = g_strdup_printf("cp -r '%s/frame-pipeline' '%s'", FST_TRACES, copy);
	g_autofree char *stream = g_strdup_printf("%s/ust/uid/0/64-bit/fencescope_0", copy);
	g_autofree char *db_path = g_strdup(fst_path("partial.db"));
	struct stat st;
	struct run r;
	sqlite3_stmt *s;

	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(stat(stream, &st), 0);
	cr_assert_eq(truncate(stream, st.st_size / 2), 0);
	r = fencescope("export", copy, "--sqlite", db_path, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "exporting what was read"), "%s", r.err);
	g_free(r.err);
	cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'partial'", -1, &s, NULL),
	    SQLITE_OK);
	cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "meta.partial is set");
	cr_expect(strstr((const char *) sqlite3_column_text(s, 0), "fencescope_0"), "%s",
		  sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	/* Babeltrace indexes stream files before the first message, so here "what was read" is
	 * nothing: the export is still a complete, valid database of it. */
	cr_expect_eq(query_int("SELECT COUNT(*) FROM summary WHERE key = 'event_count'"), 1);
}

/* The first byte of a file: '{' for JSON, 0x0a (Trace.packet = 1, length-delimited) for a
 * Perfetto protobuf trace. */
static int
first_byte(const char *path)
{
	FILE *f = fopen(path, "rb");
	int c;

	cr_assert_not_null(f, "%s", path);
	c = fgetc(f);
	fclose(f);
	return c;
}

/* docs/export.md: --perfetto writes JSON for a name ending in .json and the protobuf trace for
 * any other, unless --perfetto-format says. */
Test(export_cli, perfetto_format_follows_the_name_unless_told)
{
	const char *trace = FST_TRACES "/frame-pipeline";
	struct run r;

	r = fencescope("export", "-q", trace, "--perfetto", fst_path("a.pftrace"), NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_expect_eq(first_byte(fst_path("a.pftrace")), 0x0a);
	r = fencescope("export", "-q", trace, "--perfetto", fst_path("a.perfetto-trace"), NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_expect_eq(first_byte(fst_path("a.perfetto-trace")), 0x0a);
	r = fencescope("export", "-q", trace, "--perfetto", fst_path("a.json"), NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_expect_eq(first_byte(fst_path("a.json")), '{');
	r = fencescope("export", "-q", trace, "--perfetto", fst_path("b.pftrace"),
		       "--perfetto-format", "json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_expect_eq(first_byte(fst_path("b.pftrace")), '{');
	r = fencescope("export", "-q", trace, "--perfetto", fst_path("b.json"), "--perfetto-format",
		       "proto", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_expect_eq(first_byte(fst_path("b.json")), 0x0a);

	r = fencescope("export", trace, "--perfetto", fst_path("c.pftrace"), "--perfetto-format",
		       "xml", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "proto or json"), "%s", r.err);
	g_free(r.err);
	r = fencescope("export", trace, "--sqlite", fst_path("c.db"), "--perfetto-format", "json",
		       NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "needs --perfetto"), "%s", r.err);
	g_free(r.err);
	cr_expect_eq(fst_dir_file_count(), 5, "the refused runs leave nothing");
}

/* How many times NEEDLE occurs in the file PATH. */
static int
count_in_file(const char *path, const char *needle)
{
	g_autofree char *text = NULL;
	int n = 0;

	cr_assert(g_file_get_contents(path, &text, NULL, NULL), "%s", path);
	for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle))
		n++;
	return n;
}

/* docs/export.md "Counter tracks": by default the Perfetto file has engine busy, queue depth
 * and fence CurrentValue tracks; --no-counters leaves them out; --counter-resolution 0 writes
 * every change, so a depth track has at least as many points as with the 1 ms default (a busy
 * track's per cent per millisecond may have more than its exact 100/0 steps). */
Test(export_cli, counter_tracks_by_default_none_with_no_counters)
{
	const char *trace = FST_TRACES "/frame-pipeline";
	struct run r;
	int coarse, exact;

	r = fencescope("export", "-q", trace, "--perfetto", fst_path("a.json"), NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	coarse = count_in_file(fst_path("a.json"), " depth\",\"cat\":\"counter\"");
	cr_expect_gt(coarse, 0);
	cr_expect_gt(count_in_file(fst_path("a.json"), " busy\",\"cat\":\"counter\""), 0);
	cr_expect_gt(count_in_file(fst_path("a.json"), " CurrentValue\",\"cat\":\"counter\""), 0);
	r = fencescope("export", "-q", trace, "--perfetto", fst_path("b.json"),
		       "--counter-resolution", "0", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	exact = count_in_file(fst_path("b.json"), " depth\",\"cat\":\"counter\"");
	cr_expect_geq(exact, coarse);
	r = fencescope("export", "-q", trace, "--perfetto", fst_path("c.json"), "--no-counters",
		       NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_expect_eq(count_in_file(fst_path("c.json"), "\"ph\":\"C\""), 0);

	r = fencescope("export", trace, "--perfetto", fst_path("d.json"), "--counter-resolution",
		       "soon", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "not a duration"), "%s", r.err);
	g_free(r.err);
	r = fencescope("export", trace, "--sqlite", fst_path("d.db"), "--no-counters", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "needs --perfetto"), "%s", r.err);
	g_free(r.err);
	cr_expect_eq(fst_dir_file_count(), 3, "the refused runs leave nothing");
}
