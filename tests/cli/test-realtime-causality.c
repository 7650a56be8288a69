/* SPDX-License-Identifier: MIT */
/*
 * The runtime's own trace keeps causality in realtime mode (suite e2e). `fencescope record
 * --clock realtime` records a built-in scenario in a sandboxed lttng-sessiond, and the raw
 * events are checked against each other, without the analyzer (whose mapping of GPU time is
 * not what is tested here):
 *
 * - no released wait ends before the signal that released it (GPV-07's premise): a GPU wait's
 *   end is its `gpu_wait_end.gpu_ts` (the log entry's end timestamp), a CPU wait's end and a
 *   kernel-mode wait's end are their events; a signal is the time of the event that closes its
 *   box — `fence_value_write.gpu_ts` (the log entry's end) for the GPU, `km_fence_signal_executed`
 *   for a kernel-mode queue, `cpu_signal` for the CPU, and the driver's `update_current_value`
 *   for a kernel-mode queue's progress fence;
 * - every hw event's `gpu_ts` is the GPU time at which the event was emitted: mapped onto
 *   CLOCK_MONOTONIC through the clock_correlation pairs (whose `cpu_ts_ns` is CLOCK_MONOTONIC in
 *   realtime), it agrees with the event's raw clock value (LTTng's default clock is
 *   CLOCK_MONOTONIC in ns; the raw value, not ns from origin, so the clock class offset plays
 *   no part).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "record-sandbox.h"
#include "trace-reader.h"

__extension__ typedef __int128 i128;

/*
 * The median lag allowed between a hw event's GPU time and its trace stamp: the clock is read,
 * then the tracepoint reads its own, a few hundred ns later unless the thread is preempted in
 * between, which a loaded machine does now and then (so only the median is bounded).
 */
#define MEDIAN_HW_LAG_NS 5000
#define MAX_CHECKS       (1u << 20)
#define MAX_REPORTED     8
#define NO_TIME          INT64_MIN

struct clock_pair {
	uint32_t adapter_id;
	uint64_t cpu_ns;
	uint64_t gpu_ts;
	uint64_t frequency_hz;
};

/* The linear map of one adapter's GPU ticks onto CLOCK_MONOTONIC: its first and last pair. */
struct gpu_map {
	bool is_known;
	struct clock_pair first, last;
	uint64_t tick_ns; /* one tick, rounded up: the truncation a mapped time can carry */
};

#define MAX_ADAPTERS 8
#define MAX_ENGINES  16
#define MAX_DISPLAYS 8

struct fence_signal {
	uint64_t fence_global;
	uint64_t value;
	int64_t time_ns;      /* CLOCK_MONOTONIC */
	int64_t tolerance_ns; /* a GPU time mapped onto it is good to a tick */
	const char *what;
};

struct fence_name {
	uint32_t process_id;
	uint64_t fence_handle;
	uint64_t fence_global;
};

struct fence_origin {
	uint64_t fence_global;
	uint64_t initial_value;
};

struct facts {
	struct gpu_map maps[MAX_ADAPTERS];
	struct fence_signal *signals;
	size_t signal_count;
	struct fence_name *names;
	size_t name_count;
	struct fence_origin *origins;
	size_t origin_count;
	uint64_t *km_progress_fences;
	size_t km_progress_count;
};

static uint64_t
field_u(const struct fst_event *event, const char *name)
{
	const struct fst_field *field = fst_event_find_field(event, name);

	cr_assert(field, "%s has no field %s", event->name, name);
	return field->u;
}

static bool
is_event(const struct fst_event *event, const char *name)
{
	return strcmp(event->name, name) == 0;
}

static void *
grow(void *array, size_t count, size_t size)
{
	void *bigger = realloc(array, (count + 1) * size);

	cr_assert(bigger);
	return bigger;
}

static void
read_clock_pairs(const struct fst_trace *trace, struct facts *facts)
{
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		struct clock_pair pair;
		struct gpu_map *map;

		if (!is_event(event, "fencescope_kmd:clock_correlation"))
			continue;
		pair = (struct clock_pair){.adapter_id = (uint32_t) field_u(event, "adapter_id"),
					   .cpu_ns = field_u(event, "cpu_ts_ns"),
					   .gpu_ts = field_u(event, "gpu_ts"),
					   .frequency_hz = field_u(event, "gpu_ts_frequency_hz")};
		cr_assert_lt(pair.adapter_id, MAX_ADAPTERS);
		cr_assert_gt(pair.frequency_hz, 0);
		map = &facts->maps[pair.adapter_id];
		if (!map->is_known || pair.gpu_ts < map->first.gpu_ts)
			map->first = pair;
		if (!map->is_known || pair.gpu_ts > map->last.gpu_ts)
			map->last = pair;
		map->tick_ns = (1000000000u + pair.frequency_hz - 1) / pair.frequency_hz;
		map->is_known = true;
	}
}

/* GPU ticks of an adapter → CLOCK_MONOTONIC ns, through its first and last clock pair. */
static int64_t
gpu_to_monotonic(const struct facts *facts, uint32_t adapter_id, uint64_t gpu_ts)
{
	const struct gpu_map *map = &facts->maps[adapter_id];
	i128 ticks = (i128) gpu_ts - (i128) map->first.gpu_ts;
	i128 span_ns = (i128) map->last.cpu_ns - (i128) map->first.cpu_ns;
	i128 span_ticks = (i128) map->last.gpu_ts - (i128) map->first.gpu_ts;

	cr_assert(adapter_id < MAX_ADAPTERS && map->is_known, "adapter %u has no clock pair",
		  adapter_id);
	if (span_ticks <= 0) /* one pair: the nominal frequency */
		return (int64_t) ((i128) map->first.cpu_ns +
				  ticks * 1000000000 / (i128) map->first.frequency_hz);
	return (int64_t) ((i128) map->first.cpu_ns + ticks * span_ns / span_ticks);
}

static void
read_fence_names(const struct fst_trace *trace, struct facts *facts)
{
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		bool is_create = is_event(event, "fencescope_os:fence_create");

		if (is_create || is_event(event, "fencescope_os:fence_open")) {
			facts->names = grow(facts->names, facts->name_count, sizeof(*facts->names));
			facts->names[facts->name_count++] = (struct fence_name){
			    .process_id = (uint32_t) field_u(event, "process_id"),
			    .fence_handle = field_u(event, "fence_handle"),
			    .fence_global = field_u(event, "fence_global_handle")};
		}
		if (is_create) {
			facts->origins =
			    grow(facts->origins, facts->origin_count, sizeof(*facts->origins));
			facts->origins[facts->origin_count++] = (struct fence_origin){
			    .fence_global = field_u(event, "fence_global_handle"),
			    .initial_value = field_u(event, "initial_value")};
		}
		if (is_event(event, "fencescope_os:hwqueue_create") &&
		    strcmp(fst_event_find_field(event, "submission_mode")->enum_label,
			   "KERNEL_MODE") == 0) {
			facts->km_progress_fences =
			    grow(facts->km_progress_fences, facts->km_progress_count,
				 sizeof(*facts->km_progress_fences));
			facts->km_progress_fences[facts->km_progress_count++] =
			    field_u(event, "progress_fence_handle");
		}
	}
}

/* A process-local handle → the global one; the OS's own waits name the global handle. */
static uint64_t
global_of(const struct facts *facts, uint32_t process_id, uint64_t fence_handle)
{
	for (size_t i = 0; i < facts->name_count; i++)
		if (facts->names[i].process_id == process_id &&
		    facts->names[i].fence_handle == fence_handle)
			return facts->names[i].fence_global;
	return fence_handle;
}

static uint64_t
initial_value_of(const struct facts *facts, uint64_t fence_global)
{
	for (size_t i = 0; i < facts->origin_count; i++)
		if (facts->origins[i].fence_global == fence_global)
			return facts->origins[i].initial_value;
	return 0; /* progress fences start at 0 */
}

static bool
is_km_progress_fence(const struct facts *facts, uint64_t fence_global)
{
	for (size_t i = 0; i < facts->km_progress_count; i++)
		if (facts->km_progress_fences[i] == fence_global)
			return true;
	return false;
}

static void
add_signal(struct facts *facts, uint64_t fence_global, uint64_t value, int64_t time_ns,
	   int64_t tolerance_ns, const char *what)
{
	facts->signals = grow(facts->signals, facts->signal_count, sizeof(*facts->signals));
	facts->signals[facts->signal_count++] = (struct fence_signal){.fence_global = fence_global,
								      .value = value,
								      .time_ns = time_ns,
								      .tolerance_ns = tolerance_ns,
								      .what = what};
}

static void
read_signals(const struct fst_trace *trace, struct facts *facts)
{
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		int64_t stamp = (int64_t) event->clock_value;

		if (is_event(event, "fencescope_hw:fence_value_write")) {
			uint32_t adapter_id = (uint32_t) field_u(event, "adapter_id");

			add_signal(facts, field_u(event, "fence_global_handle"),
				   field_u(event, "fence_value"),
				   gpu_to_monotonic(facts, adapter_id, field_u(event, "gpu_ts")),
				   (int64_t) facts->maps[adapter_id].tick_ns, "GPU signal");
		} else if (is_event(event, "fencescope_os:km_fence_signal_executed"))
			add_signal(facts,
				   global_of(facts, (uint32_t) field_u(event, "process_id"),
					     field_u(event, "fence_handle")),
				   field_u(event, "fence_value"), stamp, 0, "kernel-mode signal");
		else if (is_event(event, "fencescope_os:cpu_signal"))
			add_signal(facts,
				   global_of(facts, (uint32_t) field_u(event, "process_id"),
					     field_u(event, "fence_handle")),
				   field_u(event, "fence_value"), stamp, 0, "CPU signal");
		else if (is_event(event, "fencescope_kmd:update_current_value") &&
			 !field_u(event, "notification_only") &&
			 is_km_progress_fence(facts, field_u(event, "fence_global_handle")))
			add_signal(facts, field_u(event, "fence_global_handle"),
				   field_u(event, "fence_value"), stamp, 0,
				   "kernel-mode progress write");
	}
}

/* The first signal in time that brought the fence to a value ≥ V (GPV-07), or NULL. */
static const struct fence_signal *
releasing_signal(const struct facts *facts, uint64_t fence_global, uint64_t value)
{
	const struct fence_signal *first = NULL;

	for (size_t i = 0; i < facts->signal_count; i++) {
		const struct fence_signal *signal = &facts->signals[i];

		if (signal->fence_global == fence_global && signal->value >= value &&
		    (!first || signal->time_ns < first->time_ns))
			first = signal;
	}
	return first;
}

struct tally {
	size_t checked;
	size_t broken;
	int64_t worst_ns;
};

static void
check_release(const struct facts *facts, struct tally *tally, const char *wait,
	      uint64_t fence_global, uint64_t value, int64_t end_ns, int64_t tolerance_ns)
{
	const struct fence_signal *signal;
	int64_t early;

	if (value <= initial_value_of(facts, fence_global))
		return; /* nothing released it */
	signal = releasing_signal(facts, fence_global, value);
	if (!signal)
		return;
	tally->checked++;
	early = signal->time_ns - end_ns;
	if (early <= tolerance_ns + signal->tolerance_ns)
		return;
	if (tally->broken < MAX_REPORTED)
		cr_log_error("%s of fence 0x%" PRIx64 " >= %" PRIu64 " ends %" PRId64
			     " ns before the %s of %" PRIu64 " that released it",
			     wait, fence_global, value, early, signal->what, signal->value);
	tally->broken++;
	if (early > tally->worst_ns)
		tally->worst_ns = early;
}

static void
check_releases(const struct fst_trace *trace, const struct facts *facts, const char *scenario)
{
	struct tally tally = {0};

	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		int64_t stamp = (int64_t) event->clock_value;

		if (is_event(event, "fencescope_hw:gpu_wait_end")) {
			uint32_t adapter_id = (uint32_t) field_u(event, "adapter_id");

			/* Its gpu_ts is the end timestamp of the wait's log entry. */
			check_release(facts, &tally, "GPU wait",
				      field_u(event, "fence_global_handle"),
				      field_u(event, "fence_value"),
				      gpu_to_monotonic(facts, adapter_id, field_u(event, "gpu_ts")),
				      (int64_t) facts->maps[adapter_id].tick_ns);
		} else if (is_event(event, "fencescope_os:km_fence_wait_unblocked")) {
			check_release(facts, &tally, "kernel-mode wait",
				      global_of(facts, (uint32_t) field_u(event, "process_id"),
						field_u(event, "fence_handle")),
				      field_u(event, "fence_value"), stamp, 0);
		} else if (is_event(event, "fencescope_os:cpu_wait_end") &&
			   strcmp(fst_event_find_field(event, "result")->enum_label, "SATISFIED") ==
			       0) {
			check_release(facts, &tally, "CPU wait",
				      global_of(facts, (uint32_t) field_u(event, "process_id"),
						field_u(event, "fence_handle")),
				      field_u(event, "fence_value"), stamp, 0);
		}
	}
	fprintf(stderr,
		"%s: %zu released waits, %zu end before their signal (worst by %" PRId64 " ns)\n",
		scenario, tally.checked, tally.broken, tally.worst_ns);
	cr_expect_gt(tally.checked, 0, "%s: no released wait to check", scenario);
	cr_expect_eq(tally.broken, 0,
		     "%s: %zu of %zu released waits end before the signal that released them "
		     "(worst by %" PRId64 " ns)",
		     scenario, tally.broken, tally.checked, tally.worst_ns);
}

static int
compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/*
 * A hw event's GPU time is read when its operation happens: after everything its engine did
 * before (the engine's previous event was emitted) and before the event itself is emitted.
 * Both bounds hold whatever the load: a thread preempted in between only widens the window.
 */
static void
check_hw_stamps(const struct fst_trace *trace, const struct facts *facts, const char *scenario)
{
	/* per engine, then per display (a vsync names its display, not an engine) */
	uint64_t previous[MAX_ADAPTERS][MAX_ENGINES + MAX_DISPLAYS] = {{0}};
	int64_t *lags = NULL;
	size_t count = 0, late = 0, stale = 0;
	int64_t worst_stale = 0;

	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];
		const struct fst_field *gpu_ts;
		uint32_t adapter_id, engine_id;
		int64_t at, tick;

		if (strncmp(event->name, "fencescope_hw:", 14) != 0 ||
		    !(gpu_ts = fst_event_find_field(event, "gpu_ts")))
			continue;
		adapter_id = (uint32_t) field_u(event, "adapter_id");
		if (fst_event_find_field(event, "engine_id")) {
			engine_id = (uint32_t) field_u(event, "engine_id");
			cr_assert_lt(engine_id, MAX_ENGINES);
		} else {
			engine_id = (uint32_t) field_u(event, "source_id");
			cr_assert_lt(engine_id, MAX_DISPLAYS);
			engine_id += MAX_ENGINES;
		}
		at = gpu_to_monotonic(facts, adapter_id, gpu_ts->u);
		tick = (int64_t) facts->maps[adapter_id].tick_ns;
		if (at > (int64_t) event->clock_value + tick) {
			if (late++ < MAX_REPORTED)
				cr_log_error("%s at %" PRIu64 ": its gpu_ts maps %" PRId64
					     " ns after it was emitted",
					     event->name, event->clock_value,
					     at - (int64_t) event->clock_value);
		}
		if (previous[adapter_id][engine_id] &&
		    at + tick < (int64_t) previous[adapter_id][engine_id]) {
			int64_t by = (int64_t) previous[adapter_id][engine_id] - at;

			if (stale++ < MAX_REPORTED)
				cr_log_error("%s at %" PRIu64 ": its gpu_ts maps %" PRId64
					     " ns before the engine's previous event",
					     event->name, event->clock_value, by);
			if (by > worst_stale)
				worst_stale = by;
		}
		previous[adapter_id][engine_id] = event->clock_value;
		lags = grow(lags, count, sizeof(*lags));
		lags[count++] = (int64_t) event->clock_value - at;
		cr_assert_lt(count, MAX_CHECKS);
	}
	cr_assert_gt(count, 0, "%s: no hw event with a gpu_ts", scenario);
	qsort(lags, count, sizeof(*lags), compare_i64);
	fprintf(stderr,
		"%s: %zu hw events, stamp - gpu_ts: min %" PRId64 " p50 %" PRId64 " p99 %" PRId64
		" max %" PRId64 " ns; %zu stale (worst by %" PRId64 " ns)\n",
		scenario, count, lags[0], lags[count / 2], lags[count * 99 / 100], lags[count - 1],
		stale, worst_stale);
	cr_expect_eq(late, 0, "%s: %zu hw events carry a GPU time after their trace stamp",
		     scenario, late);
	cr_expect_eq(
	    stale, 0,
	    "%s: %zu of %zu hw events carry a GPU time read before their engine's previous "
	    "event (worst by %" PRId64 " ns)",
	    scenario, stale, count, worst_stale);
	cr_expect_leq(lags[count / 2], MEDIAN_HW_LAG_NS,
		      "%s: hw events' gpu_ts lag their trace stamp: median %" PRId64 " ns",
		      scenario, lags[count / 2]);
	free(lags);
}

static void
record_and_check(const char *scenario)
{
	struct fsct_sandbox_options options = {
	    .args = (const char *const[]){"record", "-o", "trace", "--clock", "realtime", scenario,
					  NULL},
	    .timeout_s = 200,
	};
	struct fsct_outcome outcome = {0};
	struct fst_trace *trace = NULL;
	struct facts facts = {0};
	char *error = NULL, *path;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);
	cr_assert_eq(trace->discarded_events, 0);

	read_clock_pairs(trace, &facts);
	read_fence_names(trace, &facts);
	read_signals(trace, &facts);
	check_releases(trace, &facts, scenario);
	check_hw_stamps(trace, &facts, scenario);

	free(facts.signals);
	free(facts.names);
	free(facts.origins);
	free(facts.km_progress_fences);
	free(path);
	fst_trace_destroy(trace);
	fsct_outcome_clear(&outcome);
}

Test(realtime_causality,
     frame_pipeline_waits_end_after_their_signal_and_hw_times_are_read_when_they_happen_gpv_07,
     .timeout = 240)
{
	record_and_check("frame-pipeline");
}

Test(realtime_causality,
     producer_consumer_waits_end_after_their_signal_and_hw_times_are_read_when_they_happen_gpv_07,
     .timeout = 240)
{
	record_and_check("producer-consumer");
}
