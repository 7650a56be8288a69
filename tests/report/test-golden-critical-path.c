/* SPDX-License-Identifier: MIT */
/*
 * The frames and critical_path sections (issue 16 §1, §3; docs/report-schema.md 2.4) over
 * traces/: golden files in the three formats (traces/<name>/expected-critical-path.*, written
 * by scripts/regen-golden), and known answers taken from the scenarios, not from the output:
 *
 * - frame-pipeline (runtime/scenarios/builtin.c): every 8th frame renders for 20 to 25 ms
 *   (2 000 000 to 2 500 000 ticks of the 100 MHz GPU counter), longer than a 60 Hz frame; the
 *   others for 4 to 12 ms. So the path of each of those frames must come from its render — the
 *   present waited for the render queue's packet, at least 20 ms long — and not from the
 *   display, and the one frame that missed a vsync must be held mostly by the render.
 * - producer-consumer: the consumer (compute queue) waits for each value the producer (3D
 *   queue) signals, so the longest waits' paths must go through the producer's signal and lie
 *   on the producer queue.
 *
 * The render and producer queues are found from the report's own summary.queues (mode and
 * engine as the scenario creates them), never from the critical path.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "report-run.h"

#define FRAME_LONG_EVERY    8
#define LONG_RENDER_MIN_NS  UINT64_C(20000000) /* 2 000 000 ticks at 100 MHz */
#define FRAME_PIPELINE_ARGS "-s", "frames,critical_path", "--critical-path", "--end", "+420ms"
#define PRODUCER_ARGS       "-s", "longest,critical_path", "--critical-path=3"

static char *
run_report(const char *scenario, const char *format, bool is_frames)
{
	char *trace = g_build_filename(FS_TRACES, scenario, NULL);
	/* Run from the source tree with "traces/NAME", as scripts/regen-golden does: the text's
	 * first line names the trace as given. */
	g_autofree char *root = g_path_get_dirname(FS_TRACES);
	g_autofree char *relative = g_build_filename("traces", scenario, NULL);
	const char *frames[] = {"report", "--format", format, FRAME_PIPELINE_ARGS, relative, NULL};
	const char *waits[] = {"report", "--format", format, PRODUCER_ARGS, relative, NULL};
	struct fst_run run;
	char *out;

	fst_run_fencescope_in(root, is_frames ? frames : waits, &run);
	cr_assert_eq(run.exit_status, 0, "fencescope report %s: %s", trace, run.err);
	out = g_steal_pointer(&run.out);
	fst_run_clear(&run);
	g_free(trace);
	return out;
}

static void
check(const char *scenario, const char *format, const char *expected_name)
{
	char *expected_path = g_build_filename(FS_TRACES, scenario, expected_name, NULL);
	char *expected = NULL;
	char *out = run_report(scenario, format, strcmp(scenario, "frame-pipeline") == 0);

	cr_assert(g_file_get_contents(expected_path, &expected, NULL, NULL),
		  "%s is missing: run scripts/regen-golden", expected_path);
	if (strcmp(out, expected) != 0) {
		char **want = g_strsplit(expected, "\n", -1), **got = g_strsplit(out, "\n", -1);
		size_t line = 0;

		while (want[line] && got[line] && strcmp(want[line], got[line]) == 0)
			line++;
		cr_assert(false, "%s differs at line %zu:\n  expected: %s\n  got:      %s",
			  expected_path, line + 1, want[line] ? want[line] : "(end)",
			  got[line] ? got[line] : "(end)");
		g_strfreev(want);
		g_strfreev(got);
	}
	g_free(out);
	g_free(expected);
	g_free(expected_path);
}

Test(golden_critical_path, frame_pipeline_text)
{
	check("frame-pipeline", "text", "expected-critical-path.txt");
}

Test(golden_critical_path, frame_pipeline_json)
{
	check("frame-pipeline", "json", "expected-critical-path.json");
}

Test(golden_critical_path, frame_pipeline_csv)
{
	check("frame-pipeline", "csv", "expected-critical-path.csv");
}

Test(golden_critical_path, producer_consumer_text)
{
	check("producer-consumer", "text", "expected-critical-path.txt");
}

Test(golden_critical_path, producer_consumer_json)
{
	check("producer-consumer", "json", "expected-critical-path.json");
}

Test(golden_critical_path, producer_consumer_csv)
{
	check("producer-consumer", "csv", "expected-critical-path.csv");
}

/* --- Known answers ---------------------------------------------------------------------------- */

static JsonNode *
report_json(const char *scenario, const char *const *extra)
{
	char *trace = g_build_filename(FS_TRACES, scenario, NULL);
	const char *args[16] = {"report", "--format", "json"};
	size_t n = 3;
	struct fst_run run;
	JsonParser *parser = json_parser_new();
	JsonNode *root;

	while (*extra)
		args[n++] = *extra++;
	args[n++] = trace;
	args[n] = NULL;
	fst_run_fencescope(args, &run);
	cr_assert_eq(run.exit_status, 0, "fencescope report %s: %s", trace, run.err);
	cr_assert(json_parser_load_from_data(parser, run.out, -1, NULL));
	root = json_node_copy(json_parser_get_root(parser));
	g_object_unref(parser);
	fst_run_clear(&run);
	g_free(trace);
	return root;
}

static JsonArray *
table(JsonNode *root, const char *section, const char *name)
{
	JsonObject *s = json_object_get_object_member(json_node_get_object(root), section);

	cr_assert_not_null(s, "no section %s", section);
	return json_object_get_array_member(s, name);
}

/* An integer member: a number, or a decimal string above 2^53 (docs/report-schema.md). */
static uint64_t
u64(JsonObject *row, const char *name)
{
	JsonNode *node = json_object_get_member(row, name);

	cr_assert_not_null(node, "no member %s", name);
	if (JSON_NODE_HOLDS_NULL(node))
		return UINT64_MAX;
	if (json_node_get_value_type(node) == G_TYPE_STRING)
		return g_ascii_strtoull(json_node_get_string(node), NULL, 10);
	return (uint64_t) json_node_get_int(node);
}

/* The handle of the queue summary.queues says has this mode and engine. */
static char *
queue_of(JsonNode *root, const char *mode, uint64_t engine)
{
	JsonArray *queues = table(root, "summary", "queues");
	char *handle = NULL;

	for (guint i = 0; i < json_array_get_length(queues); i++) {
		JsonObject *q = json_array_get_object_element(queues, i);

		if (strcmp(json_object_get_string_member(q, "mode"), mode) == 0 &&
		    u64(q, "engine_id") == engine) {
			cr_assert_null(handle, "two %s queues on engine %" PRIu64, mode, engine);
			handle = g_strdup(json_object_get_string_member(q, "hwqueue_handle"));
		}
	}
	cr_assert_not_null(handle, "no %s queue on engine %" PRIu64, mode, engine);
	return handle;
}

static bool
is_string(JsonObject *row, const char *name, const char *value)
{
	JsonNode *node = json_object_get_member(row, name);

	return node && !JSON_NODE_HOLDS_NULL(node) &&
	       strcmp(json_node_get_string(node), value) == 0;
}

Test(known_critical_path, frame_pipeline_long_renders_are_the_critical_path_of_their_frames)
{
	const char *args[] = {"-s", "summary,frames,critical_path", "--critical-path", NULL};
	JsonNode *root = report_json("frame-pipeline", args);
	char *render = queue_of(root, "user_mode", 0); /* the 3D engine's queue */
	JsonArray *paths = table(root, "critical_path", "paths");
	JsonArray *links = table(root, "critical_path", "links");
	JsonArray *longest = table(root, "frames", "longest");
	size_t long_frames = 0;

	cr_assert_eq(json_array_get_length(paths), 120, "a path per frame");
	for (guint p = 0; p < json_array_get_length(paths); p++) {
		JsonObject *path = json_array_get_object_element(paths, p);
		uint64_t frame = u64(path, "frame"), path_id = u64(path, "path");
		bool has_long_render = false;

		/* One present per frame, in order: frame f shows flip f, rendered f-th. */
		if (frame % FRAME_LONG_EVERY != 0)
			continue;
		long_frames++;
		cr_assert(!is_string(path, "stop", "previous_flip"),
			  "frame %" PRIu64 " is held by the display, not its long render", frame);
		cr_assert(is_string(path, "critical_queue", render),
			  "frame %" PRIu64 ": the critical queue is not the render queue %s", frame,
			  render);
		for (guint l = 0; l < json_array_get_length(links); l++) {
			JsonObject *link = json_array_get_object_element(links, l);

			if (u64(link, "path") != path_id || !is_string(link, "role", "run") ||
			    !is_string(link, "hwqueue_handle", render))
				continue;
			has_long_render |=
			    u64(link, "end_ns") - u64(link, "begin_ns") >= LONG_RENDER_MIN_NS;
		}
		cr_assert(has_long_render,
			  "frame %" PRIu64
			  ": its path does not run through a render of 20 ms or more",
			  frame);
	}
	cr_assert_eq(long_frames, 120 / FRAME_LONG_EVERY);
	/* The first long render finds the display's flip queue empty: the one frame that missed
	 * a vsync (33.3 ms, two periods) is held by it for more than half its time. */
	{
		JsonObject *late = json_array_get_object_element(longest, 0);
		uint64_t late_frame = u64(late, "frame");

		cr_assert_eq(u64(late, "missed_vsyncs"), 1);
		cr_assert_eq(late_frame % FRAME_LONG_EVERY, 0,
			     "the late frame %" PRIu64 " is not a long render", late_frame);
		for (guint p = 0; p < json_array_get_length(paths); p++) {
			JsonObject *path = json_array_get_object_element(paths, p);

			if (u64(path, "frame") != late_frame)
				continue;
			cr_assert_gt(json_object_get_double_member(path, "critical_queue_percent"),
				     50.0);
		}
	}
	g_free(render);
	json_node_unref(root);
}

Test(known_critical_path, producer_consumer_longest_waits_lie_on_the_producer_queue)
{
	const char *args[] = {"-s", "summary,critical_path", "--critical-path=5", NULL};
	JsonNode *root = report_json("producer-consumer", args);
	char *producer = queue_of(root, "user_mode", 0);
	char *consumer = queue_of(root, "user_mode", 1);
	JsonArray *paths = table(root, "critical_path", "paths");
	JsonArray *links = table(root, "critical_path", "links");

	cr_assert_eq(json_array_get_length(paths), 5);
	for (guint p = 0; p < json_array_get_length(paths); p++) {
		JsonObject *path = json_array_get_object_element(paths, p);
		uint64_t path_id = u64(path, "path");
		guint seen = 0;

		cr_assert(is_string(path, "subject", "wait"));
		cr_assert(is_string(path, "critical_queue", producer), "path %" PRIu64, path_id);
		for (guint l = 0; l < json_array_get_length(links); l++) {
			JsonObject *link = json_array_get_object_element(links, l);

			if (u64(link, "path") != path_id)
				continue;
			/* The consumer's wait, then the producer's signal that released it. */
			if (seen == 0)
				cr_assert(is_string(link, "role", "wait") &&
					  is_string(link, "hwqueue_handle", consumer));
			if (seen == 1)
				cr_assert(is_string(link, "role", "signal") &&
					  is_string(link, "hwqueue_handle", producer));
			seen++;
		}
		cr_assert_geq(seen, 3, "path %" PRIu64 " stops at the signal", path_id);
	}
	g_free(producer);
	g_free(consumer);
	json_node_unref(root);
}

/* --- The options ------------------------------------------------------------------------------ */

static struct fst_run
run_args(const char *const *args)
{
	struct fst_run run;

	fst_run_fencescope(args, &run);
	return run;
}

Test(critical_path_cli, bad_counts_and_budgets_are_usage_errors)
{
	char *trace = g_build_filename(FS_TRACES, "frame-pipeline", NULL);
	const char *zero[] = {"report", "--critical-path=0", trace, NULL};
	const char *word[] = {"report", "--critical-path=many", trace, NULL};
	const char *budget[] = {"report", "--frame-budget=0", trace, NULL};
	const char *const *bad[] = {zero, word, budget};

	for (size_t i = 0; i < 3; i++) {
		struct fst_run run = run_args(bad[i]);

		cr_assert_eq(run.exit_status, 2, "%s: %d", bad[i][1], run.exit_status);
		cr_assert_not_null(
		    strstr(run.err, bad[i][1][2] == 'c' ? "--critical-path" : "--frame-budget"),
		    "%s", run.err);
		cr_assert_eq(run.out[0], '\0', "nothing on standard output: %s", run.out);
		fst_run_clear(&run);
	}
	g_free(trace);
}

Test(critical_path_cli, the_option_without_n_leaves_the_trace_a_trace)
{
	char *trace = g_build_filename(FS_TRACES, "producer-consumer", NULL);
	const char *args[] = {"report", "-s", "summary", "--critical-path", trace, NULL};
	struct fst_run run = run_args(args);

	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	cr_assert_not_null(strstr(run.out, "Critical path of the longest waits"), "%s", run.out);
	cr_assert_not_null(strstr(run.out, "\n    10 wait "), "ten paths by default: %s", run.out);
	fst_run_clear(&run);
	g_free(trace);
}

Test(critical_path_cli, all_sections_leave_the_critical_path_out)
{
	char *trace = g_build_filename(FS_TRACES, "frame-pipeline", NULL);
	const char *args[] = {"report", "-s", "all", trace, NULL};
	struct fst_run run = run_args(args);

	cr_assert_eq(run.exit_status, 0, "%s", run.err);
	cr_assert_null(strstr(run.out, "CRITICAL_PATH"));
	cr_assert_not_null(strstr(run.out, "FRAMES"), "a trace with flips shows its frames");
	fst_run_clear(&run);
	g_free(trace);
}
