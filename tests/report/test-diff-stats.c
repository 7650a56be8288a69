/* SPDX-License-Identifier: MIT */
/*
 * The diff's statistics and noise tests (analyzer/report/diff.c, docs/report-schema.md "The
 * noise test") from synthetic sink calls, no trace: signals of chosen durations on each side,
 * then the JSON diff's "trace" rows. Each case's verdict follows from the stated test by hand:
 * a median shifted far past its 95% interval is beyond noise, one shifted by a few ranks is not;
 * counts against 1.96·√(base + new); a trace against itself has zero deltas.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "fsa/diff.h"

/* COUNT signals on one queue whose durations are FIRST, FIRST + STEP, … */
static void
feed_signals(struct fsa_diff *diff, enum fsa_diff_side side, size_t count, uint64_t first,
	     uint64_t step)
{
	const struct fsa_model_sink *sink = fsa_diff_borrow_sink(diff, side);

	for (size_t i = 0; i < count; i++) {
		uint64_t queued = 1000000 + i * 100000;
		struct fsa_op op = {
		    .id = i + 1,
		    .kind = FSA_OP_SIGNAL,
		    .source = FSA_SRC_USER_MODE_QUEUE,
		    .state = FSA_OP_OBSERVED,
		    .hwqueue_handle = 0x8003000000000005,
		    .process_id = 1,
		    .engine_id = 1,
		    .fence_handle = 1,
		    .fence_global_handle = 0x8004000000000006,
		    .fence_value = i + 1,
		    .queued_ns = queued,
		    .observed_ns = queued + first + i * step,
		    .end_ns = queued + first + i * step,
		    .inferred_begin_ns = FSA_TIME_NONE,
		    .inferred_end_ns = FSA_TIME_NONE,
		    .log_position = UINT64_MAX,
		};

		cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	}
}

/* The finished diff as JSON. */
static JsonParser *
diff_json(struct fsa_diff *diff, JsonObject **root)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	JsonParser *parser = json_parser_new();

	cr_assert_eq(fsa_diff_finish(diff), FSA_OK);
	cr_assert_eq(fsa_diff_write(diff, FSA_REPORT_FORMAT_JSON, out), FSA_OK);
	fclose(out);
	cr_assert(json_parser_load_from_data(parser, text, -1, NULL), "%s", text);
	*root = json_object_get_object_member(json_node_get_object(json_parser_get_root(parser)),
					      "diff");
	free(text);
	return parser;
}

static JsonObject *
trace_row(JsonObject *diff, const char *table, const char *stat)
{
	JsonArray *rows = json_object_get_array_member(diff, table);

	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);

		if (strcmp(json_object_get_string_member(row, "scope"), "trace") == 0 &&
		    strcmp(json_object_get_string_member(row, "metric"), "signal") == 0 &&
		    (!stat || strcmp(json_object_get_string_member(row, "stat"), stat) == 0))
			return row;
	}
	cr_assert(false, "no trace signal row in %s", table);
	return NULL;
}

static bool
is_beyond(JsonObject *row)
{
	return json_object_get_boolean_member(row, "is_beyond_noise");
}

Test(diff_stats, identical_sides_have_zero_deltas_and_no_change)
{
	struct fsa_diff *diff = fsa_diff_create(NULL);
	JsonObject *root;
	JsonParser *parser;

	feed_signals(diff, FSA_DIFF_BASE, 100, 1000, 1);
	feed_signals(diff, FSA_DIFF_NEW, 100, 1000, 1);
	parser = diff_json(diff, &root);
	for (const char *const *stat = (const char *const[]){"p50", "p95", "p99", "max", NULL};
	     *stat; stat++) {
		JsonObject *row = trace_row(root, "latency", *stat);

		cr_assert_eq(json_object_get_int_member(row, "delta_ns"), 0, "%s", *stat);
		cr_assert_eq(json_object_get_int_member(row, "base_ns"),
			     json_object_get_int_member(row, "new_ns"));
	}
	cr_assert_not(is_beyond(trace_row(root, "latency", "p50")));
	cr_assert(
	    json_object_get_null_member(trace_row(root, "latency", "max"), "is_beyond_noise"));
	cr_assert_not(is_beyond(trace_row(root, "counts", NULL)));
	cr_assert_eq(json_object_get_int_member(json_object_get_object_member(root, "traces"),
						"changes_beyond_noise"),
		     0);
	g_object_unref(parser);
	fsa_diff_destroy(diff);
}

/* Base 1000…1099 ns, new 1500…1599 ns: the medians (1049, 1549) are 500 ns apart, the 95%
 * intervals (ranks 40 and 61 of 100: 1039…1060 and 1539…1560) are disjoint. */
Test(diff_stats, a_median_moved_past_its_interval_is_beyond_noise)
{
	struct fsa_diff *diff = fsa_diff_create(NULL);
	JsonObject *root, *p50;
	JsonParser *parser;

	feed_signals(diff, FSA_DIFF_BASE, 100, 1000, 1);
	feed_signals(diff, FSA_DIFF_NEW, 100, 1500, 1);
	parser = diff_json(diff, &root);
	p50 = trace_row(root, "latency", "p50");
	cr_assert_eq(json_object_get_int_member(p50, "base_ns"), 1049);
	cr_assert_eq(json_object_get_int_member(p50, "new_ns"), 1549);
	cr_assert_eq(json_object_get_int_member(p50, "delta_ns"), 500);
	cr_assert_float_eq(json_object_get_double_member(p50, "delta_pct"), 47.664, 1e-9);
	cr_assert_eq(json_object_get_int_member(p50, "base_low_ns"), 1039);
	cr_assert_eq(json_object_get_int_member(p50, "base_high_ns"), 1060);
	cr_assert_eq(json_object_get_int_member(p50, "new_low_ns"), 1539);
	cr_assert_eq(json_object_get_int_member(p50, "new_high_ns"), 1560);
	cr_assert(is_beyond(p50));
	/* Same number of signals: the count did not change. */
	cr_assert_not(is_beyond(trace_row(root, "counts", NULL)));
	g_object_unref(parser);
	fsa_diff_destroy(diff);
}

/* Base 1000…1099 ns, new 1005…1104 ns: a 5 ns shift, well inside the intervals' 21 ns width. */
Test(diff_stats, a_median_moved_within_its_interval_is_noise)
{
	struct fsa_diff *diff = fsa_diff_create(NULL);
	JsonObject *root, *p50;
	JsonParser *parser;

	feed_signals(diff, FSA_DIFF_BASE, 100, 1000, 1);
	feed_signals(diff, FSA_DIFF_NEW, 100, 1005, 1);
	parser = diff_json(diff, &root);
	p50 = trace_row(root, "latency", "p50");
	cr_assert_eq(json_object_get_int_member(p50, "delta_ns"), 5);
	cr_assert_not(is_beyond(p50));
	g_object_unref(parser);
	fsa_diff_destroy(diff);
}

/* Counts: |160 − 100| = 60 > 1.96·√260 ≈ 31.6 is beyond noise; |110 − 100| = 10 < 1.96·√210
 * ≈ 28.4 is not. */
Test(diff_stats, counts_are_tested_as_two_poisson_counts)
{
	for (int beyond = 0; beyond < 2; beyond++) {
		struct fsa_diff *diff = fsa_diff_create(NULL);
		JsonObject *root, *row;
		JsonParser *parser;

		feed_signals(diff, FSA_DIFF_BASE, 100, 1000, 1);
		feed_signals(diff, FSA_DIFF_NEW, beyond ? 160 : 110, 1000, 1);
		parser = diff_json(diff, &root);
		row = trace_row(root, "counts", NULL);
		cr_assert_eq(json_object_get_int_member(row, "delta"), beyond ? 60 : 10);
		cr_assert_eq(is_beyond(row), (bool) beyond);
		g_object_unref(parser);
		fsa_diff_destroy(diff);
	}
}

/* A threshold relative to the base: NEW's p50 1549 ns against 1.2 × 1049 ns = 1258.8 ns. */
Test(diff_stats, a_threshold_relative_to_base_fails_on_the_regression_only)
{
	struct fsa_diff *diff = fsa_diff_create(NULL);
	char *error = NULL;

	cr_assert_eq(fsa_diff_add_threshold(diff, "p50(signal) > 1.2 * base", &error), FSA_OK);
	cr_assert_eq(fsa_diff_add_threshold(diff, "p50(signal) > base + 600ns", &error), FSA_OK);
	cr_assert_eq(fsa_diff_add_threshold(diff, "count(signal) != base", &error), FSA_OK);
	cr_assert_eq(fsa_diff_add_threshold(diff, "p50(signal) > base *", &error), FSA_ERR_INVALID);
	cr_assert_str_eq(error, "'p50(signal) > base *': unexpected '*' at the end");
	free(error);
	feed_signals(diff, FSA_DIFF_BASE, 100, 1000, 1);
	feed_signals(diff, FSA_DIFF_NEW, 100, 1500, 1);
	cr_assert_eq(fsa_diff_finish(diff), FSA_OK);
	cr_assert_eq(fsa_diff_failure_count(diff), 1);
	cr_assert_str_eq(fsa_diff_borrow_failure(diff, 0),
			 "p50(signal) > 1.2 * base: measured 1.549 µs, base 1.049 µs, limit "
			 "1.259 µs");
	fsa_diff_destroy(diff);
}
