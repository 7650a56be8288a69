/* SPDX-License-Identifier: MIT */
/*
 * The report's `frames` section (schema 2.4, docs/report-schema.md) from synthetic vsync and flip
 * markers handed to the report's sink as the model gives them: the budget (the display's vsync
 * period, or --frame-budget), frames over it, missed vsyncs, pending presents, the time filter,
 * when the section shows, and the frame thresholds. Every expected number is counted by hand.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "fsa/frames.h"
#include "fsa/report.h"

#define PERIOD UINT64_C(16666667)
#define V0     UINT64_C(1000000000)

static struct fsa_report *report;

static void
teardown(void)
{
	fsa_report_destroy(report);
	report = NULL;
}

TestSuite(report_frames, .fini = teardown);

static void
make(const struct fsa_report_options *options)
{
	report = fsa_report_create(options);
	cr_assert_not_null(report);
}

static void
marker(const struct fsa_marker *m)
{
	const struct fsa_model_sink *sink = fsa_report_borrow_sink(report);

	cr_assert_eq(sink->marker(sink->data, m), FSA_OK);
}

static uint64_t
at(uint64_t vsync)
{
	return V0 + vsync * PERIOD;
}

static void
vsync(uint64_t count, uint64_t flip_id)
{
	marker(&(struct fsa_marker){.kind = FSA_MARK_VSYNC,
				    .begin_ns = at(count),
				    .end_ns = at(count),
				    .engine_id = UINT32_MAX,
				    .process_id = UINT32_MAX,
				    .value = count,
				    .value2 = flip_id});
}

static void
flip(uint64_t flip_id, uint64_t queued, uint64_t count)
{
	marker(&(struct fsa_marker){.kind = FSA_MARK_FLIP,
				    .begin_ns = queued,
				    .end_ns = count ? at(count) + 2000 : FSA_TIME_NONE,
				    .engine_id = UINT32_MAX,
				    .process_id = 1,
				    .context_handle = 0x8002000000000002,
				    .value = flip_id,
				    .value2 = count});
}

/*
 * Vsyncs 1..10; flips 1..8 land at vsyncs 1, 2, 3, 5, 6, 7, 9, 10 (vsyncs 4 and 8 latch none),
 * each queued 4 ms before its vsync; flip 9 is queued after vsync 10 and never lands.
 * Frame times: -, 1, 1, 2, 1, 1, 2, 1 periods. Present latency: 4.002 ms each.
 */
static void
feed(void)
{
	static const uint64_t lands[] = {1, 2, 3, 5, 6, 7, 9, 10};
	size_t next = 0;

	for (uint64_t n = 1; n <= 10; n++) {
		bool has_flip = next < 8 && lands[next] == n;

		vsync(n, has_flip ? next + 1 : 0);
		if (has_flip) {
			flip(next + 1, at(n) - 4000000, n);
			next++;
		}
	}
	flip(9, at(10) + 1000, 0);
}

static JsonObject *
row(JsonNode *root, const char *name, guint index)
{
	JsonObject *frames = json_object_get_object_member(json_node_get_object(root), "frames");
	JsonArray *table;

	cr_assert_not_null(frames);
	table = json_object_get_array_member(frames, name);
	cr_assert_gt(json_array_get_length(table), index);
	return json_array_get_object_element(table, index);
}

static JsonNode *
written_json(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	JsonParser *parser = json_parser_new();
	JsonNode *root;

	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	cr_assert_eq(fsa_report_write(report, FSA_REPORT_FORMAT_JSON, out), FSA_OK);
	fclose(out);
	cr_assert(json_parser_load_from_data(parser, text, -1, NULL), "%s", text);
	root = json_node_copy(json_parser_get_root(parser));
	g_object_unref(parser);
	free(text);
	return root;
}

static char *
written_text(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	cr_assert_eq(fsa_report_write(report, FSA_REPORT_FORMAT_TEXT, out), FSA_OK);
	fclose(out);
	return text;
}

Test(report_frames, pre_13_frame_times_budget_missed_vsyncs_and_a_pending_present)
{
	JsonNode *root;
	JsonObject *times, *presents, *longest;

	make(NULL);
	feed();
	root = written_json();
	times = row(root, "frame_times", 0);
	cr_assert_eq(json_object_get_int_member(times, "frames"), 8);
	cr_assert_eq(json_object_get_int_member(times, "frame_time_p50_ns"), (gint64) PERIOD);
	cr_assert_eq(json_object_get_int_member(times, "frame_time_max_ns"), (gint64) (2 * PERIOD));
	cr_assert_eq(json_object_get_int_member(times, "budget_ns"), (gint64) PERIOD,
		     "the default budget is the display's vsync period");
	cr_assert_eq(json_object_get_int_member(times, "over_budget"), 2);
	cr_assert_eq(json_object_get_int_member(times, "missed_vsyncs"), 2);
	cr_assert_eq(json_object_get_int_member(times, "frames_after_missed"), 2);
	presents = row(root, "presents", 0);
	cr_assert_eq(json_object_get_int_member(presents, "presents"), 8);
	cr_assert_eq(json_object_get_int_member(presents, "pending"), 1);
	cr_assert_eq(json_object_get_int_member(presents, "latency_max_ns"), 4002000);
	longest = row(root, "longest", 0);
	cr_assert_eq(json_object_get_int_member(longest, "frame"), 4, "the first two-period frame");
	cr_assert_eq(json_object_get_int_member(longest, "flip_id"), 4);
	cr_assert_eq(json_object_get_int_member(longest, "vsync_count"), 5);
	cr_assert_eq(json_object_get_int_member(longest, "missed_vsyncs"), 1);
	cr_assert_eq(json_object_get_int_member(row(root, "longest", 1), "frame"), 7);
	json_node_unref(root);
}

Test(report_frames, frame_budget_option_replaces_the_vsync_period)
{
	struct fsa_report_options options = {.frame_budget_ns = 2 * PERIOD + 1};
	JsonNode *root;

	make(&options);
	feed();
	root = written_json();
	cr_assert_eq(json_object_get_int_member(row(root, "frame_times", 0), "over_budget"), 0);
	cr_assert_eq(json_object_get_int_member(row(root, "frame_times", 0), "budget_ns"),
		     (gint64) (2 * PERIOD + 1));
	json_node_unref(root);
}

/* The rule compares a difference: a budget within the tolerance of UINT64_MAX (the parser
 * takes one) made budget + tolerance wrap to a few ns, and every frame was over it. */
Test(report_frames, a_budget_near_the_largest_time_puts_no_frame_over_it)
{
	struct fsa_report_options options = {.frame_budget_ns = UINT64_MAX - 1};
	JsonNode *root;

	cr_assert_not(fsa_frame_is_over_budget(33333333, UINT64_MAX - 1));
	cr_assert_not(fsa_frame_is_over_budget(UINT64_MAX - 1, UINT64_MAX - 500));
	cr_assert(fsa_frame_is_over_budget(20000000, 16666667));
	cr_assert_not(fsa_frame_is_over_budget(16667667, 16666667), "within the tolerance");
	make(&options);
	feed();
	root = written_json();
	cr_assert_eq(json_object_get_int_member(row(root, "frame_times", 0), "over_budget"), 0);
	json_node_unref(root);
}

Test(report_frames, time_filter_keeps_the_frames_that_overlap_it)
{
	/* Frames 5..8 end at vsyncs 6, 7, 9, 10; frame 5 begins at vsync 5. */
	struct fsa_report_options options = {.begin = {.is_set = true, .ns = at(5) + 1}};
	JsonNode *root;

	make(&options);
	feed();
	root = written_json();
	cr_assert_eq(json_object_get_int_member(row(root, "frame_times", 0), "frames"), 4);
	cr_assert_eq(json_object_get_int_member(row(root, "frame_times", 0), "missed_vsyncs"), 1);
	json_node_unref(root);
}

Test(report_frames, thresholds_on_frames)
{
	char *error = NULL;

	make(NULL);
	cr_assert_eq(fsa_report_add_threshold(report, "count(missed_vsync)>1", &error), FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "count(frame_over_budget)>=2", &error),
		     FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "max(frame)>34ms", &error), FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "p99(present)>4ms", &error), FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "mean(missed_vsync)>1", &error),
		     FSA_ERR_INVALID);
	free(error);
	feed();
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	cr_assert_eq(fsa_report_failure_count(report), 3);
	cr_assert_str_eq(fsa_report_borrow_failure(report, 0), "count(missed_vsync)>1: measured 2");
	cr_assert_str_eq(fsa_report_borrow_failure(report, 1),
			 "count(frame_over_budget)>=2: measured 2");
	cr_assert_str_eq(fsa_report_borrow_failure(report, 2),
			 "p99(present)>4ms: measured 4.002 ms");
}

Test(report_frames, a_trace_without_a_display_shows_no_section_unless_named)
{
	struct fsa_report_options named = {.sections = FSA_REPORT_FRAMES};
	char *text;

	make(NULL);
	text = written_text();
	cr_assert_null(strstr(text, "FRAMES"), "%s", text);
	free(text);
	fsa_report_destroy(report);
	make(&named);
	text = written_text();
	cr_assert_not_null(strstr(text, "(no frames (the trace has no flips))"), "%s", text);
	free(text);
}

Test(report_frames, vsyncs_without_flips_give_no_frames)
{
	char *text;

	make(NULL);
	for (uint64_t n = 1; n <= 4; n++)
		vsync(n, 0);
	text = written_text();
	cr_assert_not_null(strstr(text, "FRAMES"), "a display shows the section: %s", text);
	cr_assert_not_null(strstr(text, "(no frames (the trace has no flips))"), "%s", text);
	free(text);
}
