/* SPDX-License-Identifier: MIT */
/*
 * Scenario files (docs/scenarios.md): the examples the document shows are the files of
 * docs/examples, and they load and run in sim mode with the totals it promises; the same seed
 * gives the same run; `scale` multiplies the top-level repeats; and every bad input is refused
 * as "FILE:LINE: problem" with the line of the offending member. Bad inputs are written to a
 * temporary directory by each test, so that the text and the line it is expected to blame read
 * side by side.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <fencescope/scenario.h>

#define EXAMPLE(name) FST_EXAMPLES_DIR "/" name

static char temp_dir[] = "/tmp/fst-scenario-file-XXXXXX";
static char input_path[sizeof(temp_dir) + 16];

static void
make_temp_dir(void)
{
	cr_assert_not_null(mkdtemp(temp_dir));
	snprintf(input_path, sizeof(input_path), "%s/input.json", temp_dir);
}

static void
remove_temp_dir(void)
{
	unlink(input_path);
	rmdir(temp_dir);
}

TestSuite(scenario_file, .init = make_temp_dir, .fini = remove_temp_dir);

/* Writes `text` to the test's input file and returns its path. */
static const char *
write_input(const char *text)
{
	FILE *stream = fopen(input_path, "w");

	cr_assert_not_null(stream);
	cr_assert_eq(fputs(text, stream) >= 0, true);
	cr_assert_eq(fclose(stream), 0);
	return input_path;
}

static struct fsr_scenario_totals
run_file(const char *path, uint64_t seed, uint64_t scale)
{
	struct fsr_scenario_options options = {
	    .clock_mode = FSR_CLOCK_SIM, .seed = seed, .scale = scale};
	struct fsr_scenario_totals totals;
	struct fsr_scenario *scenario = NULL;
	char *error = NULL;

	cr_assert_eq(fsr_scenario_file_load(path, &scenario, &error), FSR_OK, "%s", error);
	cr_assert_null(error);
	cr_assert_eq(fsr_scenario_run(scenario, &options, &totals, &error), FSR_OK, "%s", error);
	cr_assert_null(error);
	fsr_scenario_file_free(scenario);
	return totals;
}

/* Loading `text` fails with "PATH:LINE: ..." containing `fragment`. */
static void
expect_load_error(const char *text, int line, const char *fragment)
{
	const char *path = write_input(text);
	struct fsr_scenario *scenario = NULL;
	char *error = NULL;
	char *prefix = NULL;

	cr_assert_eq(fsr_scenario_file_load(path, &scenario, &error), FSR_ERR_INVALID_ARGUMENT,
		     "loaded, expected an error at line %d", line);
	cr_assert_null(scenario);
	cr_assert_not_null(error);
	cr_assert_gt(asprintf(&prefix, "%s:%d: ", path, line), 0);
	cr_expect_eq(strncmp(error, prefix, strlen(prefix)), 0, "expected \"%s...\", got \"%s\"",
		     prefix, error);
	cr_expect_not_null(strstr(error, fragment), "expected \"%s\" in \"%s\"", fragment, error);
	free(prefix);
	free(error);
}

/* `text` loads, and running it fails with `status` and "PATH:LINE: ..." containing `fragment`. */
static void
expect_run_error(const char *text, fsr_status status, int line, const char *fragment)
{
	const char *path = write_input(text);
	struct fsr_scenario_options options = {.clock_mode = FSR_CLOCK_SIM};
	struct fsr_scenario_totals totals;
	struct fsr_scenario *scenario = NULL;
	char *error = NULL;
	char *prefix = NULL;

	cr_assert_eq(fsr_scenario_file_load(path, &scenario, &error), FSR_OK, "%s", error);
	cr_assert_eq(fsr_scenario_run(scenario, &options, &totals, &error), status,
		     "expected %s (%s)", fsr_status_name(status), error ? error : "no error");
	cr_assert_not_null(error);
	cr_assert_gt(asprintf(&prefix, "%s:%d: ", path, line), 0);
	cr_expect_eq(strncmp(error, prefix, strlen(prefix)), 0, "expected \"%s...\", got \"%s\"",
		     prefix, error);
	cr_expect_not_null(strstr(error, fragment), "expected \"%s\" in \"%s\"", fragment, error);
	free(prefix);
	free(error);
	fsr_scenario_file_free(scenario);
}

/* ---- the documented examples -------------------------------------------------------------- */

Test(scenario_file, producer_consumer_example_runs_with_the_documented_totals)
{
	struct fsr_scenario *scenario = NULL;
	char *error = NULL;
	struct fsr_scenario_totals totals;

	cr_assert_eq(fsr_scenario_file_load(EXAMPLE("producer-consumer.json"), &scenario, &error),
		     FSR_OK, "%s", error);
	cr_expect_str_eq(scenario->name, "producer-consumer-file");
	cr_expect_str_eq(scenario->description,
			 "a 3D queue produces 10 values of a fence that a compute queue consumes "
			 "one by one");
	fsr_scenario_file_free(scenario);

	totals = run_file(EXAMPLE("producer-consumer.json"), 0, 0);
	cr_expect_eq(totals.submissions, 20);
	cr_expect_eq(totals.gpu_signals, 10);
	cr_expect_eq(totals.gpu_waits, 10);
	cr_expect_eq(totals.kernel_signals, 0);
	cr_expect_eq(totals.kernel_waits, 0);
	cr_expect_eq(totals.cpu_signals, 0);
	cr_expect_eq(totals.cpu_waits, 1);
	cr_expect_eq(totals.work_gpu_ticks, 10 * (4000 + 1500));
	/*
	 * Every log entry is read (the logs hold 64 entries, the OS reads them every 1 ms): one
	 * per operation, and one per buffer's progress write (HPF-02), all 20 user-mode.
	 */
	cr_expect_eq(totals.log_entries_read,
		     totals.gpu_signals + totals.gpu_waits + totals.submissions);
	cr_expect_eq(totals.log_entries_lost, 0);
	cr_expect_gt(totals.events, 0);
	/* The producer alone is busy 10 x 4000 ticks at 100 MHz: 400 µs. */
	cr_expect_geq(totals.virtual_ns, 400000);
	cr_expect_lt(totals.virtual_ns, 1000000);
}

Test(scenario_file, shared_fence_example_runs_with_the_documented_totals)
{
	struct fsr_scenario_totals totals = run_file(EXAMPLE("shared-fence.json"), 0, 0);

	cr_expect_eq(totals.submissions, 3 * 8);
	cr_expect_eq(totals.gpu_signals, 2 * 8); /* render and compose */
	cr_expect_eq(totals.gpu_waits, 2 * 8);
	cr_expect_eq(totals.kernel_signals, 8); /* present */
	cr_expect_eq(totals.kernel_waits, 8);
	cr_expect_eq(totals.cpu_signals, 8);
	cr_expect_eq(totals.cpu_waits, 8 + 8 + 2); /* pacing, asynchronous, the last two */
	cr_expect_geq(totals.work_gpu_ticks, 8 * (5000 + 5000 + 1000));
	cr_expect_leq(totals.work_gpu_ticks, 8 * (15000 + 5000 + 1000));
	/* And the progress writes of the 16 user-mode buffers (render, compose; HPF-02). */
	cr_expect_eq(totals.log_entries_read, totals.gpu_signals + totals.gpu_waits + 2 * 8);
	cr_expect_eq(totals.log_entries_lost, 0);
	/* Eight frames, each started 200 µs after the previous one at least. */
	cr_expect_geq(totals.virtual_ns, 8 * 200000);
}

static char *
read_whole(const char *path)
{
	FILE *stream = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;

	cr_assert_not_null(stream, "%s", path);
	cr_assert_eq(getdelim(&text, &size, '\0', stream) > 0, true);
	fclose(stream);
	return text;
}

/* The examples shown in docs/scenarios.md are the files the tests above run, byte for byte. */
Test(scenario_file, the_documented_examples_are_the_example_files)
{
	static const char *const examples[] = {EXAMPLE("producer-consumer.json"),
					       EXAMPLE("shared-fence.json")};
	char *doc = read_whole(FST_EXAMPLES_DIR "/../scenarios.md");
	const char *block = doc;

	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char *example = read_whole(examples[i]);

		block = strstr(block, "```json\n");
		cr_assert_not_null(block, "docs/scenarios.md shows no JSON block for %s",
				   examples[i]);
		block += strlen("```json\n");
		cr_expect_eq(strncmp(block, example, strlen(example)), 0,
			     "docs/scenarios.md's JSON block %zu differs from %s", i + 1,
			     examples[i]);
		cr_expect_eq(strncmp(block + strlen(example), "```", 3), 0);
		free(example);
	}
	free(doc);
}

Test(scenario_file, scale_multiplies_the_top_level_repeats)
{
	struct fsr_scenario_totals totals = run_file(EXAMPLE("producer-consumer.json"), 0, 3);

	cr_expect_eq(totals.submissions, 3 * 20);
	cr_expect_eq(totals.gpu_signals, 3 * 10);
	cr_expect_eq(totals.cpu_waits, 1);
	cr_expect_eq(totals.work_gpu_ticks, 3 * 10 * (4000 + 1500));
}

Test(scenario_file, same_seed_gives_the_same_run)
{
	struct fsr_scenario_totals first = run_file(EXAMPLE("shared-fence.json"), 5, 0);
	struct fsr_scenario_totals second = run_file(EXAMPLE("shared-fence.json"), 5, 0);
	struct fsr_scenario_totals other = run_file(EXAMPLE("shared-fence.json"), 6, 0);
	/* Seed 0 takes the file's "seed" (1). */
	struct fsr_scenario_totals file_seed = run_file(EXAMPLE("shared-fence.json"), 0, 0);
	struct fsr_scenario_totals seed_one = run_file(EXAMPLE("shared-fence.json"), 1, 0);

	cr_expect_eq(memcmp(&first, &second, sizeof(first)), 0);
	cr_expect_eq(first.events, second.events);
	cr_expect_neq(first.work_gpu_ticks, other.work_gpu_ticks, "the seed picks the work");
	cr_expect_eq(memcmp(&file_seed, &seed_one, sizeof(file_seed)), 0);
}

Test(scenario_file, realtime_gives_the_same_counts)
{
	struct fsr_scenario_options options = {.clock_mode = FSR_CLOCK_REALTIME};
	struct fsr_scenario_totals sim = run_file(EXAMPLE("shared-fence.json"), 0, 0);
	struct fsr_scenario_totals realtime;
	struct fsr_scenario *scenario = NULL;
	char *error = NULL;

	cr_assert_eq(fsr_scenario_file_load(EXAMPLE("shared-fence.json"), &scenario, &error),
		     FSR_OK, "%s", error);
	cr_assert_eq(fsr_scenario_run(scenario, &options, &realtime, &error), FSR_OK, "%s", error);
	fsr_scenario_file_free(scenario);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_signals, sim.gpu_signals);
	cr_expect_eq(realtime.gpu_waits, sim.gpu_waits);
	cr_expect_eq(realtime.kernel_signals, sim.kernel_signals);
	cr_expect_eq(realtime.kernel_waits, sim.kernel_waits);
	cr_expect_eq(realtime.cpu_signals, sim.cpu_signals);
	cr_expect_eq(realtime.cpu_waits, sim.cpu_waits);
	cr_expect_eq(realtime.work_gpu_ticks, sim.work_gpu_ticks, "same seed, same work");
	cr_expect_eq(realtime.virtual_ns, 0, "no virtual time in realtime mode");
}

Test(scenario_file, name_and_description_default_to_the_file)
{
	const char *path = write_input("{\n"
				       "  \"processes\": [ { \"name\": \"app\" } ],\n"
				       "  \"script\": []\n"
				       "}\n");
	struct fsr_scenario *scenario = NULL;
	char *error = NULL;
	char *description = NULL;

	cr_assert_eq(fsr_scenario_file_load(path, &scenario, &error), FSR_OK, "%s", error);
	cr_expect_str_eq(scenario->name, "input.json");
	cr_assert_gt(asprintf(&description, "scenario file %s", path), 0);
	cr_expect_str_eq(scenario->description, description);
	free(description);
	fsr_scenario_file_free(scenario);
}

/* ---- running ------------------------------------------------------------------------------ */

Test(scenario_file, a_full_ring_waits_for_space)
{
	/* 256 bytes hold 8 packets; each buffer takes 5 (begin, work, signal, log, progress). */
	const char *path =
	    write_input("{\n"
			"  \"processes\": [ { \"name\": \"app\",\n"
			"    \"queues\": [ { \"name\": \"q\", \"engine\": 0, \"mode\": \"user\",\n"
			"                  \"ring-size-bytes\": 256 } ],\n"
			"    \"fences\": [ { \"name\": \"f\", \"initial\": 5 } ] } ],\n"
			"  \"script\": [ { \"repeat\": 20, \"steps\": [\n"
			"    { \"submit\": \"q\", \"commands\": [ { \"work\": 100 },\n"
			"                                      { \"signal\": \"f\", \"value\": "
			"\"+1\" } ] } ] },\n"
			"    { \"cpu-wait\": \"f\", \"value\": 25, \"mode\": \"polling\" } ]\n"
			"}\n");
	struct fsr_scenario_totals totals = run_file(path, 0, 0);

	cr_expect_eq(totals.submissions, 20);
	cr_expect_eq(totals.gpu_signals, 20);
	cr_expect_eq(totals.cpu_waits, 1);
	cr_expect_eq(totals.work_gpu_ticks, 2000);
}

Test(scenario_file, a_timeout_is_a_result_not_an_error)
{
	const char *path = write_input(
	    "{\n"
	    "  \"processes\": [ { \"name\": \"app\", \"fences\": [ { \"name\": \"f\" } ] } ],\n"
	    "  \"script\": [\n"
	    "    { \"cpu-wait\": \"f\", \"value\": 1, \"timeout-ns\": 5000 },\n"
	    "    { \"cpu-wait\": \"f\", \"value\": 1, \"timeout-ns\": 5000, \"async\": true },\n"
	    "    { \"cpu-signal\": \"f\", \"value\": 3 },\n"
	    "    { \"cpu-signal\": \"f\", \"value\": \"+0\" }\n"
	    "  ]\n"
	    "}\n");
	struct fsr_scenario_totals totals = run_file(path, 0, 0);

	cr_expect_eq(totals.cpu_waits, 2);
	cr_expect_eq(totals.cpu_signals, 2);
	cr_expect_geq(totals.virtual_ns, 5000);
}

Test(scenario_file, a_queue_blocked_at_the_end_is_an_error_naming_it)
{
	expect_run_error("{\n"
			 "  \"processes\": [ { \"name\": \"app\",\n"
			 "    \"queues\": [\n"
			 "      { \"name\": \"q\", \"engine\": \"3d\", \"mode\": \"kernel\" } ],\n"
			 "    \"fences\": [ { \"name\": \"never\" } ] } ],\n"
			 "  \"script\": [ { \"submit\": \"q\", \"commands\": [\n"
			 "    { \"wait\": \"never\", \"value\": 1 } ] } ]\n"
			 "}\n",
			 FSR_ERR_BAD_STATE, 4, "queue \"q\" of process \"app\" is blocked");
}

Test(scenario_file, a_cpu_wait_nothing_can_satisfy_names_its_step_and_iteration)
{
	expect_run_error(
	    "{\n"
	    "  \"processes\": [ { \"name\": \"app\", \"fences\": [ { \"name\": \"f\" } ] } ],\n"
	    "  \"script\": [ { \"repeat\": 3, \"steps\": [\n"
	    "    { \"cpu-signal\": \"f\", \"value\": \"+1\" },\n"
	    "    { \"cpu-wait\": \"f\", \"value\": 2 } ] } ]\n"
	    "}\n",
	    FSR_ERR_BAD_STATE, 5, "(iteration 1 of 3 of the repeat at line 3)");
}

Test(scenario_file, a_cpu_signal_below_the_current_value_names_its_step)
{
	expect_run_error("{\n"
			 "  \"processes\": [ { \"name\": \"app\",\n"
			 "    \"fences\": [ { \"name\": \"f\", \"initial\": 4 } ] } ],\n"
			 "  \"script\": [\n"
			 "    { \"cpu-signal\": \"f\", \"value\": 2 } ]\n"
			 "}\n",
			 FSR_ERR_VALUE_REGRESSION, 5, "below its current value 4");
}

/* ---- refused files ------------------------------------------------------------------------ */

Test(scenario_file, a_missing_file_is_named)
{
	struct fsr_scenario *scenario = NULL;
	char *error = NULL;

	cr_assert_eq(fsr_scenario_file_load("/nonexistent/x.json", &scenario, &error),
		     FSR_ERR_INVALID_ARGUMENT);
	cr_expect_null(scenario);
	cr_expect_str_eq(error, "/nonexistent/x.json: cannot open the file: No such file or "
				"directory");
	free(error);
}

Test(scenario_file, a_syntax_error_gives_json_glib_s_line)
{
	expect_load_error("{\n"
			  "  \"processes\": [ { \"name\": \"app\",\n"
			  "    \"fences\": [ { \"name\": \"f\",\n"
			  "                  \"shared\": tru } ] } ],\n"
			  "  \"script\": []\n"
			  "}\n",
			  4, "unexpected identifier `tru'");
	/* JSON-GLib blames a missing comma where it belongs: after the last token read. */
	expect_load_error("{\n"
			  "  \"processes\": [\n"
			  "    { \"name\": \"app\" }\n"
			  "    { \"name\": \"other\" }\n"
			  "  ],\n"
			  "  \"script\": []\n"
			  "}\n",
			  3, "expected character `,'");
}

Test(scenario_file, an_empty_file_holds_nothing)
{
	expect_load_error("", 1, "holds no JSON value");
}

Test(scenario_file, a_second_top_level_value_is_refused)
{
	expect_load_error("{ \"processes\": [ { \"name\": \"a\" } ], \"script\": [] }\n"
			  "{ \"processes\": [ { \"name\": \"b\" } ], \"script\": [] }\n",
			  2, "a second top-level value");
}

Test(scenario_file, a_duplicate_member_is_refused)
{
	expect_load_error("{\n"
			  "  \"processes\": [ { \"name\": \"app\" } ],\n"
			  "  \"script\": [],\n"
			  "  \"script\": []\n"
			  "}\n",
			  4, "member \"script\" appears twice");
}

Test(scenario_file, an_unknown_queue_names_its_line)
{
	expect_load_error("{\n"
			  "  \"processes\": [ { \"name\": \"app\",\n"
			  "    \"queues\": [ { \"name\": \"gfx\", \"engine\": \"3d\", \"mode\": "
			  "\"user\" } ] } ],\n"
			  "  \"script\": [\n"
			  "    { \"submit\": \"gfx\", \"commands\": [] },\n"
			  "    { \"submit\": \"gxf\", \"commands\": [] }\n"
			  "  ]\n"
			  "}\n",
			  6, "no process has a queue named \"gxf\"");
}

Test(scenario_file, a_missing_member_names_its_object)
{
	expect_load_error("{\n"
			  "  \"processes\": [ { \"name\": \"app\",\n"
			  "    \"queues\": [\n"
			  "      { \"name\": \"gfx\",\n"
			  "        \"engine\": \"3d\" }\n"
			  "    ] } ],\n"
			  "  \"script\": []\n"
			  "}\n",
			  4, "a queue has no \"mode\" member");
	expect_load_error("{\n"
			  "  \"processes\": [ { \"name\": \"app\" } ]\n"
			  "}\n",
			  1, "the top level has no \"script\" member");
}

Test(scenario_file, a_wrong_type_names_its_member)
{
	expect_load_error(
	    "{\n"
	    "  \"processes\": [ { \"name\": \"app\",\n"
	    "    \"queues\": [ { \"name\": \"q\", \"engine\": 0, \"mode\": \"user\" } ] } ],\n"
	    "  \"script\": [ { \"submit\": \"q\", \"commands\": [\n"
	    "    { \"work\": 100 },\n"
	    "    { \"work\": \"2000\" } ] } ]\n"
	    "}\n",
	    6, "\"work\" must be an integer, not a string");
	expect_load_error("{\n"
			  "  \"processes\": { \"name\": \"app\" },\n"
			  "  \"script\": []\n"
			  "}\n",
			  2, "\"processes\" must be an array, not an object");
}

Test(scenario_file, an_unknown_member_is_a_typo)
{
	expect_load_error(
	    "{\n"
	    "  \"processes\": [ { \"name\": \"app\",\n"
	    "    \"queues\": [ { \"name\": \"q\", \"engine\": 0, \"mode\": \"user\" } ] } ],\n"
	    "  \"script\": [ { \"submit\": \"q\",\n"
	    "                \"comands\": [] } ]\n"
	    "}\n",
	    5, "unknown member \"comands\" in a submit step");
}

Test(scenario_file, work_is_at_least_one_tick)
{
	static const char *const format =
	    "{\n"
	    "  \"processes\": [ { \"name\": \"app\",\n"
	    "    \"queues\": [ { \"name\": \"q\", \"engine\": 0, \"mode\": \"user\" } ] } ],\n"
	    "  \"script\": [ { \"submit\": \"q\", \"commands\": [\n"
	    "    { \"work\": %s } ] } ]\n"
	    "}\n";
	char text[512];

	snprintf(text, sizeof(text), format, "0");
	expect_load_error(text, 5, "\"work\" must be at least 1 (0)");
	snprintf(text, sizeof(text), format, "-5");
	expect_load_error(text, 5, "\"work\" must not be negative (-5)");
	snprintf(text, sizeof(text), format, "[300, 200]");
	expect_load_error(text, 5, "ends before it starts");
	snprintf(text, sizeof(text), format, "1.5");
	expect_load_error(text, 5, "not a number with a fraction or an exponent");
}

Test(scenario_file, a_fence_of_another_process_must_be_opened)
{
	expect_load_error(
	    "{\n"
	    "  \"processes\": [\n"
	    "    { \"name\": \"a\", \"fences\": [ { \"name\": \"f\", \"shared\": true } ] },\n"
	    "    { \"name\": \"b\",\n"
	    "      \"queues\": [ { \"name\": \"q\", \"engine\": 0, \"mode\": \"user\" } ] }\n"
	    "  ],\n"
	    "  \"script\": [ { \"submit\": \"q\", \"commands\": [\n"
	    "    { \"wait\": \"f\", \"value\": 1 } ] } ]\n"
	    "}\n",
	    8, "add {\"process\": \"a\", \"fence\": \"f\"} to the \"open-fences\" of \"b\"");
}

Test(scenario_file, only_a_shared_fence_can_be_opened)
{
	expect_load_error("{\n"
			  "  \"processes\": [\n"
			  "    { \"name\": \"a\", \"fences\": [ { \"name\": \"f\" } ] },\n"
			  "    { \"name\": \"b\", \"open-fences\": [\n"
			  "      { \"process\": \"a\",\n"
			  "        \"fence\": \"f\" } ] }\n"
			  "  ],\n"
			  "  \"script\": []\n"
			  "}\n",
			  6, "fence \"f\" of process \"a\" is not shared");
}

Test(scenario_file, a_name_in_two_processes_needs_the_process_member)
{
	expect_load_error("{\n"
			  "  \"processes\": [\n"
			  "    { \"name\": \"a\", \"fences\": [ { \"name\": \"f\" } ] },\n"
			  "    { \"name\": \"b\", \"fences\": [ { \"name\": \"f\" } ] }\n"
			  "  ],\n"
			  "  \"script\": [ { \"cpu-signal\": \"f\", \"value\": 1 } ]\n"
			  "}\n",
			  6, "say which with \"process\"");
}

Test(scenario_file, relative_values_are_checked)
{
	static const char *const format =
	    "{\n"
	    "  \"processes\": [ { \"name\": \"app\", \"fences\": [ { \"name\": \"f\" } ] } ],\n"
	    "  \"script\": [\n"
	    "    { \"%s\": \"f\",\n"
	    "      \"value\": %s } ]\n"
	    "}\n";
	char text[512];

	snprintf(text, sizeof(text), format, "cpu-signal", "\"-1\"");
	expect_load_error(text, 5, "signals only go up");
	snprintf(text, sizeof(text), format, "cpu-wait", "\"+x\"");
	expect_load_error(text, 5, "is neither an integer nor \"+K\" or \"-K\"");
	snprintf(text, sizeof(text), format, "cpu-wait", "true");
	expect_load_error(text, 5, "not a boolean");
}

Test(scenario_file, a_copy_engine_takes_no_user_mode_queue)
{
	expect_load_error("{\n"
			  "  \"processes\": [ { \"name\": \"app\", \"queues\": [\n"
			  "    { \"name\": \"q\", \"engine\": \"copy\",\n"
			  "      \"mode\": \"user\" } ] } ],\n"
			  "  \"script\": []\n"
			  "}\n",
			  4, "UMS-05");
}

Test(scenario_file, a_command_buffer_larger_than_its_ring_is_refused)
{
	expect_load_error(
	    "{\n"
	    "  \"processes\": [ { \"name\": \"app\", \"queues\": [\n"
	    "    { \"name\": \"q\", \"engine\": 0, \"mode\": \"user\",\n"
	    "      \"ring-size-bytes\": 256 } ] } ],\n"
	    "  \"script\": [ { \"submit\": \"q\", \"commands\": [\n"
	    "    { \"work\": 1 }, { \"work\": 1 }, { \"work\": 1 }, { \"work\": 1 },\n"
	    "    { \"work\": 1 }, { \"work\": 1 }, { \"work\": 1 } ] } ]\n"
	    "}\n",
	    5, "takes 288 bytes of ring, more than the 256");
}

/*
 * One limit for the log size (LOG-01): the file's "log-entries" takes what the runtime takes,
 * FSR_MAX_LOG_ENTRIES, and no more. The maximum is run with a kernel-mode queue only: a
 * user-mode queue would allocate two logs of 512 MiB (8 GiB grown when tracing, LOG-20),
 * too much for a test; the adapter is created with the maximum all the same.
 */
static const char log_entries_format[] =
    "{\n"
    "  \"adapters\": [ { \"name\": \"gpu0\",\n"
    "    \"log-entries\": %lu } ],\n"
    "  \"processes\": [ { \"name\": \"app\", \"queues\": [\n"
    "    { \"name\": \"q\", \"engine\": 0, \"mode\": \"kernel\" } ] } ],\n"
    "  \"script\": [ { \"submit\": \"q\", \"commands\": [\n"
    "    { \"work\": 1 } ] } ]\n"
    "}\n";

Test(scenario_file, log_01_log_entries_above_the_runtime_s_maximum_are_refused)
{
	char text[sizeof(log_entries_format) + 32];
	char fragment[64];

	snprintf(text, sizeof(text), log_entries_format, (unsigned long) FSR_MAX_LOG_ENTRIES + 1);
	snprintf(fragment, sizeof(fragment), "\"log-entries\" must be between 1 and %lu",
		 (unsigned long) FSR_MAX_LOG_ENTRIES);
	expect_load_error(text, 3, fragment);
}

Test(scenario_file, log_01_the_runtime_s_maximum_of_log_entries_loads_and_runs)
{
	char text[sizeof(log_entries_format) + 32];
	struct fsr_scenario_totals totals;

	snprintf(text, sizeof(text), log_entries_format, (unsigned long) FSR_MAX_LOG_ENTRIES);
	totals = run_file(write_input(text), 1, 1);
	cr_expect_eq(totals.submissions, 1);
}

Test(scenario_file, log_01_the_runtime_refuses_an_adapter_above_the_maximum_too)
{
	struct fsr_runtime_config runtime_config = {.clock_mode = FSR_CLOCK_SIM};
	struct fsr_adapter_config config;
	struct fsr_runtime *runtime = NULL;
	uint32_t id;

	cr_assert_eq(fsr_runtime_create(&runtime_config, &runtime), FSR_OK);
	fsr_adapter_config_init(&config);
	config.log_capacity_entries = FSR_MAX_LOG_ENTRIES + 1;
	cr_expect_eq(fsr_adapter_create(runtime, &config, &id), FSR_ERR_INVALID_ARGUMENT);
	config.log_capacity_entries = FSR_MAX_LOG_ENTRIES;
	cr_expect_eq(fsr_adapter_create(runtime, &config, &id), FSR_OK);
	fsr_runtime_destroy(runtime);
}

/* Interrupt coalescing (INT-04, INT-06, INT-12): the file takes the runtime's limit, 1 s, and the
 * runtime refuses an adapter above it too. */
static const char coalesce_format[] =
    "{\n"
    "  \"adapters\": [ { \"name\": \"gpu0\", \"interrupt-form\": \"hwqueue\",\n"
    "    \"interrupt-coalesce-ns\": %llu } ],\n"
    "  \"processes\": [ { \"name\": \"app\", \"queues\": [\n"
    "    { \"name\": \"q\", \"engine\": 0, \"mode\": \"user\" } ] } ],\n"
    "  \"script\": [ { \"submit\": \"q\", \"commands\": [\n"
    "    { \"work\": 1 } ] } ]\n"
    "}\n";

Test(scenario_file, int_12_interrupt_coalescing_loads_runs_and_has_a_limit)
{
	char text[sizeof(coalesce_format) + 32];
	char fragment[80];
	struct fsr_scenario_totals totals;
	struct fsr_runtime_config runtime_config = {.clock_mode = FSR_CLOCK_SIM};
	struct fsr_adapter_config config;
	struct fsr_runtime *runtime = NULL;
	uint32_t id;

	snprintf(text, sizeof(text), coalesce_format,
		 (unsigned long long) FSR_MAX_INTERRUPT_COALESCE_NS);
	totals = run_file(write_input(text), 1, 1);
	cr_expect_eq(totals.submissions, 1);

	snprintf(text, sizeof(text), coalesce_format,
		 (unsigned long long) FSR_MAX_INTERRUPT_COALESCE_NS + 1);
	snprintf(fragment, sizeof(fragment), "\"interrupt-coalesce-ns\" must be between 0 and %llu",
		 (unsigned long long) FSR_MAX_INTERRUPT_COALESCE_NS);
	expect_load_error(text, 3, fragment);

	cr_assert_eq(fsr_runtime_create(&runtime_config, &runtime), FSR_OK);
	fsr_adapter_config_init(&config);
	config.interrupt_coalesce_ns = FSR_MAX_INTERRUPT_COALESCE_NS + 1;
	cr_expect_eq(fsr_adapter_create(runtime, &config, &id), FSR_ERR_INVALID_ARGUMENT);
	fsr_runtime_destroy(runtime);
}

/* PRE-13: "displays" and "vsync-period-ns" of an adapter, and present steps. */
static const char present_file[] =
    "{\n"
    "  \"adapters\": [ { \"name\": \"gpu0\", \"displays\": 2, \"vsync-period-ns\": 10000000 } ],\n"
    "  \"processes\": [ { \"name\": \"app\",\n"
    "    \"queues\": [ { \"name\": \"render\", \"engine\": \"3d\", \"mode\": \"user\" } ] } ],\n"
    "  \"script\": [ { \"repeat\": 6, \"steps\": [\n"
    "    { \"submit\": \"render\", \"commands\": [ { \"work\": 400000 } ] },\n"
    "    { \"present\": \"render\", \"display\": 1 } ] } ]\n"
    "}\n";

Test(scenario_file, pre_13_present_steps_flip_on_the_display_s_vsync)
{
	struct fsr_scenario_totals totals = run_file(write_input(present_file), 0, 0);

	cr_expect_eq(totals.submissions, 6);
	cr_expect_eq(totals.flips, 6);
	/* 6 renders of 4 ms back to back, one flip per 10 ms vsync: the last lands at vsync 6. */
	cr_expect_geq(totals.virtual_ns, 6 * 10000000);
	cr_expect_lt(totals.virtual_ns, 7 * 10000000);
}

Test(scenario_file, pre_13_a_present_on_a_display_the_adapter_lacks_is_refused_at_load)
{
	expect_load_error("{\n"
			  "  \"adapters\": [ { \"name\": \"gpu0\", \"displays\": 1 } ],\n"
			  "  \"processes\": [ { \"name\": \"app\",\n"
			  "    \"queues\": [ { \"name\": \"q\", \"engine\": 0,\n"
			  "                  \"mode\": \"user\" } ] } ],\n"
			  "  \"script\": [\n"
			  "    { \"present\": \"q\", \"display\": 1 }\n"
			  "  ]\n"
			  "}\n",
			  7, "adapter \"gpu0\" has no display 1");
	expect_load_error("{\n"
			  "  \"adapters\": [ { \"name\": \"gpu0\", \"vsync-period-ns\": 5 } ],\n"
			  "  \"processes\": [ { \"name\": \"app\" } ],\n"
			  "  \"script\": []\n"
			  "}\n",
			  2, "\"vsync-period-ns\" must be");
}

/* ---- cross-adapter fences (XAD) ------------------------------------------------------------- */

/*
 * XAD-01, XAD-10, XAD-14: a dGPU renderer signals a cross-adapter fence that a process on an
 * iGPU without native fences waits on in a kernel-mode queue (spec 001's scenario 2a).
 */
static const char cross_adapter_file[] =
    "{\n"
    "  \"adapters\": [ { \"name\": \"igpu\", \"native-fences\": false },\n"
    "                  { \"name\": \"dgpu\" } ],\n"
    "  \"processes\": [\n"
    "    { \"name\": \"renderer\", \"adapter\": \"dgpu\",\n"
    "      \"queues\": [ { \"name\": \"render\", \"engine\": \"3d\", \"mode\": \"user\" } ],\n"
    "      \"fences\": [ { \"name\": \"frame\", \"cross-adapter\": true } ] },\n"
    "    { \"name\": \"display\", \"adapter\": \"igpu\",\n"
    "      \"queues\": [ { \"name\": \"scan\", \"engine\": \"3d\", \"mode\": \"kernel\" } ],\n"
    "      \"open-fences\": [ { \"process\": \"renderer\", \"fence\": \"frame\" } ] }\n"
    "  ],\n"
    "  \"script\": [\n"
    "    { \"repeat\": 5, \"steps\": [\n"
    "      { \"submit\": \"scan\", \"process\": \"display\", \"commands\": [\n"
    "        { \"wait\": \"frame\", \"value\": \"+1\" }, { \"work\": 1000 } ] },\n"
    "      { \"submit\": \"render\", \"process\": \"renderer\", \"commands\": [\n"
    "        { \"work\": 5000 }, { \"signal\": \"frame\", \"value\": \"+1\" } ] },\n"
    "      { \"cpu-wait\": \"frame\", \"process\": \"display\", \"value\": \"+0\" }\n"
    "    ] }\n"
    "  ]\n"
    "}\n";

Test(scenario_file, xad_01_xad_14_a_cross_adapter_fence_opened_on_a_non_native_igpu)
{
	struct fsr_scenario_totals totals = run_file(write_input(cross_adapter_file), 1, 0);

	cr_expect_eq(totals.submissions, 10);
	cr_expect_eq(totals.gpu_signals, 5);
	cr_expect_eq(totals.kernel_waits, 5);
	cr_expect_eq(totals.cpu_waits, 5);
}

Test(scenario_file, xad_01_a_fence_without_cross_adapter_is_refused_on_another_adapter)
{
	char *text = strdup(cross_adapter_file);
	char *flag = strstr(text, "\"cross-adapter\": true");

	cr_assert_not_null(flag);
	memcpy(flag, "\"shared\":        true", strlen("\"cross-adapter\": true"));
	expect_load_error(text, 10, "give it \"cross-adapter\": true");
	free(text);
}

Test(scenario_file, xad_17_an_adapter_without_native_fences_takes_no_user_mode_queue)
{
	char *text = strdup(cross_adapter_file);
	char *mode = strstr(text, "\"mode\": \"kernel\"");

	cr_assert_not_null(mode);
	memcpy(mode, "\"mode\": \"user\"  ", strlen("\"mode\": \"kernel\""));
	expect_load_error(text, 9, "has no native fences");
	free(text);
}
