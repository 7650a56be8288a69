/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's known-answer test (GPV-04, GPV-06). Every built-in scenario (`fencescope run
 * --list`), every example scenario file (every .json in docs/examples/) and every hard scenario
 * file (every .json in tests/cli/hard/) is recorded with `fencescope record`, in sim mode and in
 * realtime mode, in a sandboxed lttng-sessiond; analyzer/ingest + analyzer/model rebuild its boxes.
 * The emulator's ground truth is in the same trace (fencescope_hw:fence_value_write,
 * gpu_wait_begin, gpu_wait_end, which the analyzer never uses), each stamped by the tracer when the
 * GPU did it and carrying the GPU counter's value then. Every rebuilt user-mode signal end, wait
 * end and wait observed time must land on the trace timestamp of its ground-truth event (matched
 * on queue, fence, value and GPU timestamp). The mapping's own error bound is
 *
 *   tolerance = ceil(ns per tick of the fit) + ceil(the fit's maximum residual)
 *
 * Each time is also checked against the emulator's counter itself, a pure function of the CPU
 * clock (gpu_ts = offset + floor(cpu_ns × Hz × (1 + drift) / 1e9), with the adapter's settings from
 * the scenario): inverted, it gives the trace time a GPU tick stands for, in both clocks, within
 * that same tolerance. In sim the ground-truth events are stamped at that very instant (virtual
 * time), so they too must lie within the tolerance: exact to one tick. In realtime the emulated GPU
 * reads CLOCK_MONOTONIC and then fires its tracepoint, which reads the clock again: a ground-truth
 * event is later than the instant its GPU time stands for, never earlier, by the time in between
 * (median 0.1–1.2 µs, but up to tens of µs when the emulator does work or is preempted in that
 * window): no time may be early by more than the tolerance and one tick, none late by more than
 * FSCT_RT_PREEMPT_NS, and the figures are logged (docs/analyzer.md "GPU time", "Tolerance"). The
 * test also records with plain `lttng` commands around `fencescope run`: in realtime the answer is
 * the same; a sim run recorded that way (no sim clock plugin) must be reported as unmapped, never
 * silently wrong.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "known-truth.h"
#include "record-sandbox.h"
#include "trace-reader.h"

#define FSCT_MAX_ADAPTERS 8

/* An adapter's GPU timestamp counter as the scenario configures it (runtime/hw/engine.c). */
struct counter {
	uint64_t hz;     /* effective: nominal × (1 + drift) */
	uint64_t offset; /* counter value at CPU time 0 */
};

struct check {
	const char *label;
	bool is_realtime;
	size_t checked;
	int64_t worst;   /* largest |rebuilt − truth| seen, ns */
	int64_t *deltas; /* truth − rebuilt of every time checked, for the figures */
	size_t delta_count;
	int64_t worst_exact; /* largest |rebuilt − the counter's own answer|, ns */
	struct counter counters[FSCT_MAX_ADAPTERS];
	int64_t clock_offset_ns; /* the trace clock's offset: ns from origin − raw value */
};

/* -Wpedantic: 128-bit integers are a GNU extension, which gcc and clang both have. */
__extension__ typedef unsigned __int128 fsct_u128;

/* The trace time GPU tick `gpu_ts` of `adapter_id` stands for, from the counter's definition. */
static int64_t
counter_answer(const struct check *check, uint32_t adapter_id, uint64_t gpu_ts)
{
	const struct counter *counter = &check->counters[adapter_id];

	cr_assert_lt(adapter_id, FSCT_MAX_ADAPTERS);
	return check->clock_offset_ns +
	       (int64_t) ((fsct_u128) (gpu_ts - counter->offset) * 1000000000u / counter->hz);
}

static void
expect_near(struct check *check, uint64_t rebuilt, uint64_t gpu_ts, const struct fst_event *event,
	    int64_t tolerance, const char *what, const struct fsa_op *op)
{
	int64_t delta = event->ts_ns - (int64_t) rebuilt;
	int64_t exact = (int64_t) rebuilt - counter_answer(check, op->adapter_id, gpu_ts);
	int64_t tick = (int64_t) (1000000000u / check->counters[op->adapter_id].hz) + 1;
	int64_t low, high;

	fsct_truth_window(check->is_realtime, tolerance, tick, &low, &high);
	check->checked++;
	if (llabs(delta) > check->worst)
		check->worst = llabs(delta);
	if (llabs(exact) > check->worst_exact)
		check->worst_exact = llabs(exact);
	check->deltas = realloc(check->deltas, (check->delta_count + 1) * sizeof(*check->deltas));
	cr_assert_not_null(check->deltas);
	check->deltas[check->delta_count++] = delta;
	cr_expect(llabs(exact) <= tolerance,
		  "%s: %s of op %" PRIu64 " (fence 0x%" PRIx64 " value %" PRIu64
		  ", GPU tick %" PRIu64 "): rebuilt %" PRIu64 ", the counter says %" PRId64
		  " (off by %" PRId64 " ns, tolerance %" PRId64 ")",
		  check->label, what, op->id, op->fence_global_handle, op->fence_value, gpu_ts,
		  rebuilt, (int64_t) rebuilt - exact, exact, tolerance);
	cr_expect(delta >= low && delta <= high,
		  "%s: %s of op %" PRIu64 " (fence 0x%" PRIx64 " value %" PRIu64
		  "): rebuilt %" PRIu64 ", truth %" PRId64 " (truth − rebuilt = %" PRId64
		  " ns, tolerance %" PRId64 ")",
		  check->label, what, op->id, op->fence_global_handle, op->fence_value, rebuilt,
		  event->ts_ns, delta, tolerance);
}

/* Analyzes `path` and checks every observed user-mode box against the ground truth. */
static void
check_trace(const char *path, struct check *check)
{
	struct fst_trace *trace = NULL;
	struct fsct_rebuilt ops = {0};
	struct fsa_model_sink sink = {.data = &ops, .op = fsct_keep_op};
	struct fsa_model *model = fsa_model_create(&sink);
	const struct fsa_summary *sum;
	char *error = NULL;

	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s: %s", check->label, error);
	cr_assert_eq(fsa_ingest_into_model(path, model, NULL, NULL, NULL, &error), FSA_OK, "%s: %s",
		     check->label, error);
	cr_assert_gt(trace->event_count, 0);
	/* Both clocks count ns (1 GHz): ns from origin = offset + raw value. */
	check->clock_offset_ns = trace->events[0].ts_ns - (int64_t) trace->events[0].clock_value;
	sum = fsa_model_borrow_summary(model);
	cr_assert_eq(sum->clock_mode, check->is_realtime ? 1 : 0, "%s", check->label);
	cr_expect_eq(sum->gpu_time, FSA_GPU_TIME_CORRELATED, "%s", check->label);
	cr_expect_eq(sum->anomaly_counts[FSA_ANOM_END_BEFORE_QUEUED], 0, "%s", check->label);
	for (size_t i = 0; i < ops.op_count; i++) {
		const struct fsa_op *op = &ops.ops[i];
		const struct fst_event *event;
		int64_t tolerance;

		if (op->source != FSA_SRC_USER_MODE_QUEUE || op->state != FSA_OP_OBSERVED ||
		    !op->end_gpu_ts)
			continue;
		tolerance = fsct_tolerance_of(model, op->adapter_id);
		if (op->kind == FSA_OP_SIGNAL) {
			/* The signal box ends when the GPU wrote the value. */
			event = fsct_truth_event(trace, "fencescope_hw:fence_value_write", op,
						 op->end_gpu_ts);
			cr_expect_not_null(event, "%s: no value write for signal op %" PRIu64,
					   check->label, op->id);
			if (event)
				expect_near(check, op->end_ns, op->end_gpu_ts, event, tolerance,
					    "signal end", op);
			continue;
		}
		/* The wait box ends when the GPU released the queue... */
		event = fsct_truth_event(trace, "fencescope_hw:gpu_wait_end", op, op->end_gpu_ts);
		cr_expect_not_null(event, "%s: no wait end for wait op %" PRIu64, check->label,
				   op->id);
		if (event)
			expect_near(check, op->end_ns, op->end_gpu_ts, event, tolerance, "wait end",
				    op);
		/* ...and stalled it from when the GPU reached it (a wait already satisfied never
		 * blocked and has no gpu_wait_begin of its own). */
		if (op->observed_gpu_ts && op->observed_ns != FSA_TIME_NONE &&
		    (event = fsct_truth_event(trace, "fencescope_hw:gpu_wait_begin", op,
					      op->observed_gpu_ts)))
			expect_near(check, op->observed_ns, op->observed_gpu_ts, event, tolerance,
				    "wait observed", op);
	}
	fsct_rebuilt_clear(&ops);
	fsa_model_destroy(model);
	fst_trace_destroy(trace);
}

static int
compare_deltas(const void *a, const void *b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* The figures of a recording. */
static void
check_finish(struct check *check)
{
	int64_t p50 = 0, p99 = 0;

	if (check->delta_count) {
		qsort(check->deltas, check->delta_count, sizeof(*check->deltas), compare_deltas);
		p50 = check->deltas[check->delta_count / 2];
		p99 = check->deltas[check->delta_count * 99 / 100];
	}
	cr_log_info("%s: %zu times checked; off the counter by %" PRId64
		    " ns at most; ground truth − rebuilt: p50 %" PRId64 " ns, p99 %" PRId64
		    " ns, worst |%" PRId64 "| ns",
		    check->label, check->checked, check->worst_exact, p50, p99, check->worst);
	free(check->deltas);
	check->deltas = NULL;
}

/* The counters a scenario configures: a built-in's are the defaults (fsr_adapter_config_init); a
 * file's adapters may set gpu-frequency-hz, gpu-ts-offset and gpu-ts-drift-ppm
 * (docs/scenarios.md), in the order of adapter ids. */
static void
load_counters(const char *scenario, struct counter *counters)
{
	JsonParser *parser;
	JsonObject *root;
	JsonArray *adapters;
	GError *error = NULL;

	for (size_t i = 0; i < FSCT_MAX_ADAPTERS; i++)
		counters[i] = (struct counter){.hz = 100000000u};
	if (!strstr(scenario, ".json"))
		return;
	parser = json_parser_new();
	cr_assert(json_parser_load_from_file(parser, scenario, &error), "%s: %s", scenario,
		  error ? error->message : "");
	root = json_node_get_object(json_parser_get_root(parser));
	adapters = json_object_has_member(root, "adapters")
		       ? json_object_get_array_member(root, "adapters")
		       : NULL;
	for (guint i = 0; adapters && i < json_array_get_length(adapters) && i < FSCT_MAX_ADAPTERS;
	     i++) {
		JsonObject *adapter = json_array_get_object_element(adapters, i);
		int64_t hz =
		    json_object_get_int_member_with_default(adapter, "gpu-frequency-hz", 100000000);
		int64_t ppm =
		    json_object_get_int_member_with_default(adapter, "gpu-ts-drift-ppm", 0);

		counters[i].hz = (uint64_t) (hz + hz * ppm / 1000000);
		counters[i].offset =
		    (uint64_t) json_object_get_int_member_with_default(adapter, "gpu-ts-offset", 0);
	}
	g_object_unref(parser);
}

/* --scale small enough for a quick recording; 0: the scenario's own size. */
static const char *
scale_of(const char *scenario)
{
	static const struct {
		const char *name, *scale;
	} scales[] = {
	    {"producer-consumer", "40"}, {"frame-pipeline", "12"}, {"log-overrun", "3"},
	    {"cpu-waiters", "16"},       {"stress", "40"},
	};

	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
		if (strcmp(scales[i].name, scenario) == 0)
			return scales[i].scale;
	return strstr(scenario, ".json") ? "1" : "2";
}

static void
record_and_check(const char *scenario, bool is_realtime)
{
	char label[512];
	const char *args[] = {"record",
			      "-o",
			      "trace",
			      "--clock",
			      is_realtime ? "realtime" : "sim",
			      "--scale",
			      scale_of(scenario),
			      scenario,
			      NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 200};
	struct fsct_outcome outcome = {0};
	struct check check = {.label = label, .is_realtime = is_realtime};
	char *path;

	snprintf(label, sizeof(label), "%s (%s)",
		 strrchr(scenario, '/') ? strrchr(scenario, '/') + 1 : scenario,
		 is_realtime ? "realtime" : "sim");
	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "%s: record: %s", label, outcome.err);
	path = fsct_dup_last_line(outcome.out);
	load_counters(scenario, check.counters);
	check_trace(path, &check);
	check_finish(&check);
	free(path);
	fsct_outcome_clear(&outcome);
}

/* Built-in scenarios, as `fencescope run --list` names them (all but FILE.json). */
static size_t
list_builtins(char names[][64], size_t max)
{
	FILE *list = popen(FS_FENCESCOPE " run --list", "r");
	char line[512];
	size_t count = 0;

	cr_assert_not_null(list);
	while (fgets(line, sizeof(line), list) && count < max) {
		char name[64];

		if (sscanf(line, "%63s", name) == 1 && strcmp(name, "FILE.json") != 0)
			strcpy(names[count++], name);
	}
	pclose(list);
	cr_assert_geq(count, 5);
	return count;
}

static void
every_scenario(bool is_realtime)
{
	char names[32][64];
	size_t count = list_builtins(names, 32);
	glob_t files;

	for (size_t i = 0; i < count; i++)
		record_and_check(names[i], is_realtime);
	cr_assert_eq(glob(FSCT_SOURCE_DIR "/docs/examples/*.json", 0, NULL, &files), 0);
	glob(FSCT_SOURCE_DIR "/tests/cli/hard/*.json", GLOB_APPEND, NULL, &files);
	glob(FSCT_SOURCE_DIR "/tests/cli/known-answer*.json", GLOB_APPEND, NULL, &files);
	for (size_t i = 0; i < files.gl_pathc; i++)
		record_and_check(files.gl_pathv[i], is_realtime);
	globfree(&files);
}

Test(known_answer, gpv_04_every_scenario_in_sim_lands_on_the_ground_truth_within_a_tick,
     .timeout = 600)
{
	every_scenario(false);
}

Test(known_answer, gpv_04_every_scenario_in_realtime_lands_on_the_ground_truth, .timeout = 600)
{
	every_scenario(true);
}

/*
 * Plain `lttng` around `fencescope run`, as the README suggests, with a private lttng-sessiond
 * (own mount namespace, tmpfs on /var/run/lttng and /dev/shm; root only). Returns the trace path.
 */
static char *
record_with_plain_lttng(const char *clock, const char *dir)
{
	char *script = NULL, *path = NULL;
	int status;

	cr_assert_gt(asprintf(&script,
			      "unshare -m sh -ec '"
			      "mount -t tmpfs none /var/run/lttng; mount -t tmpfs none /dev/shm; "
			      "export HOME=%s LTTNG_HOME=%s; "
			      "lttng-sessiond --daemonize; "
			      "lttng create plain -o %s/trace >/dev/null; "
			      "lttng enable-event -u \"fencescope_*\" >/dev/null; "
			      "lttng start >/dev/null; "
			      "%s run --clock %s --scale 20 producer-consumer >/dev/null; "
			      "lttng stop >/dev/null; lttng destroy >/dev/null; "
			      "kill $(cat %s/.lttng/lttng-sessiond.pid 2>/dev/null || "
			      "cat /var/run/lttng/lttng-sessiond.pid)'",
			      dir, dir, dir, FS_FENCESCOPE, clock, dir),
		     0);
	status = system(script);
	free(script);
	cr_assert_eq(status, 0, "plain lttng recording (%s) failed", clock);
	cr_assert_gt(asprintf(&path, "%s/trace", dir), 0);
	return path;
}

Test(known_answer, gpv_04_a_realtime_run_recorded_with_plain_lttng_lands_on_the_ground_truth,
     .timeout = 120)
{
	char dir[] = "/tmp/fsct-plain-XXXXXX";
	struct check check = {.label = "plain lttng (realtime)", .is_realtime = true};
	char *path, *cleanup;

	if (geteuid() != 0)
		cr_skip_test("needs root for a private lttng-sessiond");
	cr_assert_not_null(mkdtemp(dir));
	path = record_with_plain_lttng("realtime", dir);
	load_counters("producer-consumer", check.counters);
	check_trace(path, &check);
	cr_expect_gt(check.checked, 0);
	check_finish(&check);
	cr_assert_gt(asprintf(&cleanup, "rm -rf %s", dir), 0);
	cr_expect_eq(system(cleanup), 0);
	free(cleanup);
	free(path);
}

/* Issue 10 §2: a sim run under plain lttng has LTTng's clock while trace_info says sim. GPU
 * times cannot be placed on it; the analysis must say so, not draw boxes at made-up times. */
Test(known_answer, a_sim_run_recorded_with_plain_lttng_is_reported_unmapped, .timeout = 120)
{
	char dir[] = "/tmp/fsct-plain-XXXXXX";
	struct fsa_model *model = fsa_model_create(&(struct fsa_model_sink){0});
	const struct fsa_summary *sum;
	char *path, *error = NULL, *cleanup;

	if (geteuid() != 0)
		cr_skip_test("needs root for a private lttng-sessiond");
	cr_assert_not_null(mkdtemp(dir));
	path = record_with_plain_lttng("sim", dir);
	cr_assert_eq(fsa_ingest_into_model(path, model, NULL, NULL, NULL, &error), FSA_OK, "%s",
		     error);
	sum = fsa_model_borrow_summary(model);
	cr_expect_eq(sum->clock_mode, 0, "trace_info says sim");
	cr_expect_eq(sum->trace_clock, FSA_TRACE_CLOCK_MONOTONIC);
	cr_expect_eq(sum->gpu_time, FSA_GPU_TIME_UNMAPPED);
	cr_expect_eq(sum->anomaly_counts[FSA_ANOM_TRACE_CLOCK_MISMATCH], 1);
	cr_expect_eq(sum->anomaly_counts[FSA_ANOM_END_BEFORE_QUEUED], 0);
	fsa_model_destroy(model);
	cr_assert_gt(asprintf(&cleanup, "rm -rf %s", dir), 0);
	cr_expect_eq(system(cleanup), 0);
	free(cleanup);
	free(path);
}
