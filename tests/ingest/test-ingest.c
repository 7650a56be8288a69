/* SPDX-License-Identifier: MIT */
/*
 * analyzer/ingest over the checked-in traces (traces/): every event the independent test reader
 * (tests/common/trace-reader.c, also libbabeltrace2) sees arrives, in the same order, with the
 * same type, timestamp and field values; the totals the runs printed are in the events; traces
 * are found from a session folder, a nested folder or a folder of several traces; and a path
 * that is not a trace gives a one-line error.
 */
#define _GNU_SOURCE

#include <criterion/criterion.h>
#include <glib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fencescope-tp-enums.h"
#include "ingest-collect.h"
#include "lttng-harness.h"
#include "trace-reader.h"

#define TRACE(name) FSTI_TRACES "/" name

TestSuite(ingest, .timeout = 60);

static uint64_t
totals_get(const char *trace, const char *key)
{
	char *path = NULL;
	char line[256];
	uint64_t value = UINT64_MAX;
	FILE *f;

	cr_assert_geq(asprintf(&path, "%s/totals.txt", trace), 0);
	f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(key);

		if (strncmp(line, key, len) == 0 && line[len] == ':')
			value = strtoull(line + len + 1, NULL, 10);
	}
	fclose(f);
	free(path);
	cr_assert_neq(value, UINT64_MAX, "%s has no %s", trace, key);
	return value;
}

static void
expect_field(const struct fsti_event *got, const struct fst_event *want, const struct fst_field *f,
	     size_t index)
{
	int slot = fsa_field_from_name(f->name);

	if (strcmp(f->name, "fence_handles") == 0) {
		cr_assert_eq(got->ev.fence_handle_count, f->array_len, "event %zu: fence_handles",
			     index);
		for (size_t k = 0; k < f->array_len; k++)
			cr_expect_eq(got->fence_handles[k], f->array[k]);
		return;
	}
	/* update_native_fence_logs' queues (format 1.1): the analyzer counts the event and
	 * builds nothing from it (docs/trace-format.md), so the sequence is not delivered. */
	if (strcmp(f->name, "hwqueue_handles") == 0)
		return;
	if (f->kind == FST_FIELD_STRING) {
		const char *s = strcmp(f->name, "runtime_version") == 0
				    ? got->s[FSA_S_RUNTIME_VERSION]
				: strcmp(f->name, "name") == 0 ? got->s[FSA_S_NAME]
				: strcmp(f->name, "call") == 0 ? got->s[FSA_S_CALL]
							       : NULL;

		cr_assert_not_null(s, "event %zu (%s): string %s not delivered", index, want->name,
				   f->name);
		cr_expect_str_eq(s, f->str);
		return;
	}
	if (slot < 0) {
		/* Only LTTng's own sequence lengths are not contract fields. */
		cr_expect_eq(f->name[0], '_', "event %zu (%s): unknown field %s", index, want->name,
			     f->name);
		return;
	}
	cr_assert(fsa_event_has(&got->ev, slot), "event %zu (%s): %s not present", index,
		  want->name, f->name);
	if (f->kind == FST_FIELD_SIGNED)
		cr_expect_eq(got->ev.u[slot], (uint64_t) f->s, "event %zu (%s): %s", index,
			     want->name, f->name);
	else
		cr_expect_eq(got->ev.u[slot], f->u, "event %zu (%s): %s", index, want->name,
			     f->name);
}

/* The whole trace, event by event, against the reference reader. */
static void
expect_same_as_reader(const char *trace)
{
	struct fsti_result r;
	struct fst_trace *ref = NULL;
	char *error = NULL;

	cr_assert_eq(fst_trace_read(trace, &ref, &error), 0, "reference reader: %s", error);
	fsti_collect(trace, &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	cr_assert_eq(r.event_count, ref->event_count);
	cr_expect_eq(r.stats.events, ref->event_count);
	cr_expect_eq(r.stats.fencescope_events, ref->event_count);
	cr_expect_eq(r.stats.other_events, 0);
	cr_expect_eq(r.stats.trace_count, 1);
	for (size_t i = 0; i < ref->event_count; i++) {
		const struct fst_event *want = &ref->events[i];
		const struct fsti_event *got = &r.events[i];
		int present = 0, expected = 0;

		cr_assert_str_eq(fsa_event_type_name(got->ev.type), want->name, "event %zu", i);
		cr_assert_eq(got->ev.ts_ns, (uint64_t) want->ts_ns, "event %zu", i);
		/* Every stream of an LTTng trace names its CPU in the packet context. */
		cr_expect_neq(got->ev.cpu_id, UINT32_MAX, "event %zu", i);
		for (size_t k = 0; k < want->field_count; k++) {
			expect_field(got, want, &want->fields[k], i);
			expected += fsa_field_from_name(want->fields[k].name) >= 0;
		}
		/* No slot is left over from an earlier event. */
		for (int slot = 0; slot < FSA_F_COUNT; slot++)
			present += fsa_event_has(&got->ev, slot);
		cr_expect_eq(present, expected, "event %zu (%s)", i, want->name);
	}
	cr_expect_eq(r.discard_count, 0);
	fst_trace_destroy(ref);
	fsti_result_fini(&r);
}

Test(ingest, frame_pipeline_is_read_event_by_event_as_the_reference_reader_reads_it)
{
	expect_same_as_reader(TRACE("frame-pipeline"));
}

Test(ingest, producer_consumer_is_read_event_by_event_as_the_reference_reader_reads_it)
{
	expect_same_as_reader(TRACE("producer-consumer"));
}

Test(ingest, log_overrun_is_read_event_by_event_as_the_reference_reader_reads_it)
{
	expect_same_as_reader(TRACE("log-overrun"));
}

Test(ingest, cpu_waiters_is_read_event_by_event_as_the_reference_reader_reads_it)
{
	expect_same_as_reader(TRACE("cpu-waiters"));
}

Test(ingest, stress_is_read_event_by_event_as_the_reference_reader_reads_it)
{
	expect_same_as_reader(TRACE("stress"));
}

/* The decoder helper's ring at its smallest: the stream wraps around it many times and the
 * helper waits for room again and again, and still every event arrives whole and in order. */
Test(ingest, stress_is_read_event_by_event_through_a_ring_many_times_smaller_than_it)
{
	cr_assert_eq(setenv("FENCESCOPE_DECODE_RING_KIB", "16", 1), 0);
	expect_same_as_reader(TRACE("stress"));
	cr_assert_eq(unsetenv("FENCESCOPE_DECODE_RING_KIB"), 0);
}

/* Members of struct fsa_event that the wire sends only when they change (trace_clock,
 * cpu_ts_trace_ns): every event has them, not only the first after a change. */
static void
expect_clock_on_every_event(const char *trace, enum fsa_trace_clock clock)
{
	struct fsti_result r;
	uint64_t last_cpu_ts = 0;
	size_t pairs = 0;

	fsti_collect(trace, &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	cr_assert_gt(r.event_count, 100);
	for (size_t i = 0; i < r.event_count; i++) {
		const struct fsa_event *ev = &r.events[i].ev;

		cr_assert_eq(ev->trace_clock, clock, "%s: event %zu (%s)", trace, i,
			     fsa_event_type_name(ev->type));
		if (ev->type != FSA_EV_CLOCK_CORRELATION)
			continue;
		cr_assert_neq(ev->cpu_ts_trace_ns, FSA_EVENT_TIME_NONE, "%s: event %zu", trace, i);
		cr_assert_gt(ev->cpu_ts_trace_ns, last_cpu_ts, "%s: event %zu", trace, i);
		last_cpu_ts = ev->cpu_ts_trace_ns;
		pairs++;
	}
	cr_expect_gt(pairs, 1, "%s", trace);
	fsti_result_fini(&r);
}

Test(ingest, every_event_of_a_sim_recording_arrives_with_its_clock_and_each_pair_with_its_cpu_time)
{
	expect_clock_on_every_event(TRACE("producer-consumer"), FSA_TRACE_CLOCK_SIM);
}

Test(ingest,
     every_event_of_a_realtime_recording_arrives_with_its_clock_and_each_pair_with_its_cpu_time)
{
	expect_clock_on_every_event(TRACE("realtime-producer-consumer"), FSA_TRACE_CLOCK_MONOTONIC);
}

/* The totals each run printed (totals.txt) that are plain event counts or sums. */
static void
expect_totals(const char *trace)
{
	struct fsti_result r;
	uint64_t lost = 0;

	fsti_collect(trace, &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	cr_expect_eq(r.stats.fencescope_events, totals_get(trace, "events"), "%s", trace);
	cr_expect_eq(fsti_count(&r, FSA_EV_FENCE_LOG_ENTRY), totals_get(trace, "log_entries_read"),
		     "%s", trace);
	for (size_t i = 0; i < r.event_count; i++) {
		if (r.events[i].ev.type == FSA_EV_FENCE_LOG_OVERRUN)
			lost += r.events[i].ev.u[FSA_F_ENTRIES_LOST];
	}
	cr_expect_eq(lost, totals_get(trace, "log_entries_lost"), "%s", trace);
	fsti_result_fini(&r);
}

Test(ingest, every_sample_trace_has_the_totals_its_run_printed)
{
	expect_totals(TRACE("frame-pipeline"));
	expect_totals(TRACE("producer-consumer"));
	expect_totals(TRACE("log-overrun"));
	expect_totals(TRACE("cpu-waiters"));
	expect_totals(TRACE("stress"));
}

Test(ingest, trace_info_carries_the_format_version_and_strings)
{
	struct fsti_result r;
	const struct fsti_event *info;

	fsti_collect(TRACE("frame-pipeline"), &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	cr_assert_gt(r.event_count, 0);
	info = &r.events[0];
	cr_assert_eq(info->ev.type, FSA_EV_TRACE_INFO);
	cr_expect_eq(info->ev.u[FSA_F_FORMAT_MAJOR], FSTP_FORMAT_MAJOR);
	cr_expect_eq(info->ev.u[FSA_F_CLOCK_MODE], FSTP_CLOCK_MODE_SIM);
	cr_assert_not_null(info->s[FSA_S_RUNTIME_VERSION]);
	cr_expect_gt(strlen(info->s[FSA_S_RUNTIME_VERSION]), 0);
	cr_expect_eq(info->ev.cpu_id, 0);
	/* Progress ends at the whole trace. */
	cr_expect_gt(r.progress_calls, 0);
	cr_expect_eq(r.last_fraction, 1.0);
	fsti_result_fini(&r);
}

Test(ingest, a_nested_trace_folder_and_a_trailing_slash_read_the_same_trace)
{
	struct fsti_result whole, nested, slash;

	fsti_collect(TRACE("producer-consumer"), &whole);
	fsti_collect(TRACE("producer-consumer/ust/uid/0/64-bit"), &nested);
	fsti_collect(TRACE("producer-consumer/"), &slash);
	cr_assert_eq(whole.status, FSA_OK, "%s", whole.error);
	cr_assert_eq(nested.status, FSA_OK, "%s", nested.error);
	cr_assert_eq(slash.status, FSA_OK, "%s", slash.error);
	cr_expect_eq(nested.event_count, whole.event_count);
	cr_expect_eq(slash.event_count, whole.event_count);
	cr_expect_eq(nested.events[nested.event_count - 1].ev.ts_ns,
		     whole.events[whole.event_count - 1].ev.ts_ns);
	fsti_result_fini(&whole);
	fsti_result_fini(&nested);
	fsti_result_fini(&slash);
}

/* traces/ holds five traces of five UUIDs: one source each, merged in time order. */
/* traces/ holds five recordings: merged, their handles would collide (1212 false anomalies).
 * They are refused, each named with its folder. */
Test(ingest, a_folder_of_several_recordings_is_refused_with_each_one_named)
{
	GDir *dir = g_dir_open(FSTI_TRACES, 0, NULL);
	const char *name;
	char *count = NULL;
	size_t recordings = 0;
	struct fsti_result r;

	cr_assert_not_null(dir);
	fsti_collect(FSTI_TRACES, &r);
	cr_expect_eq(r.status, FSA_ERR_IO, "status %d: %s", r.status, r.error);
	cr_expect_eq(r.event_count, 0);
	cr_assert_not_null(r.error);
	cr_expect_not_null(strstr(r.error, "--recording"), "%s", r.error);
	cr_expect_null(strchr(r.error, '\n'), "%s", r.error);
	/* Every sample folder is named, followed by "; " or, last, ". ". */
	while ((name = g_dir_read_name(dir))) {
		char *folder = g_build_filename(FSTI_TRACES, name, NULL);
		char *listed = NULL;
		const char *at;

		if (g_file_test(folder, G_FILE_TEST_IS_DIR)) {
			recordings++;
			cr_assert_geq(asprintf(&listed, " in %s", folder), 0);
			/* A folder's name may begin another's (cross-adapter, cross-adapter-2a). */
			at = strstr(r.error, listed);
			while (at && at[strlen(listed)] != ';' && at[strlen(listed)] != '.')
				at = strstr(at + 1, listed);
			cr_expect(at, "%s not named: %s", name, r.error);
			free(listed);
		}
		g_free(folder);
	}
	g_dir_close(dir);
	cr_expect_geq(recordings, 5);
	cr_assert_geq(asprintf(&count, "holds %zu recordings", recordings), 0);
	cr_expect_not_null(strstr(r.error, count), "%s", r.error);
	free(count);
	fsti_result_fini(&r);
}

/* --recording NAME: by its folder under the path, or by its LTTng trace name. */
Test(ingest, one_recording_of_a_folder_of_several_is_picked_by_folder_or_trace_name)
{
	char *path = NULL, *by_name = NULL, *error = NULL, *expected = NULL;
	struct fsti_result r;

	cr_assert_eq(fsa_ingest_pick_recording(FSTI_TRACES, "stress", &path, &error), FSA_OK, "%s",
		     error);
	cr_assert_geq(asprintf(&expected, "%s/stress", FSTI_TRACES), 0);
	cr_expect_str_eq(path, expected);
	fsti_collect(path, &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	cr_expect_eq(r.stats.fencescope_events, totals_get(path, "events"));
	/* By the LTTng trace name (the env block's trace_name), as the refusal lists it. */
	{
		struct fsti_result all;
		const char *start, *end;
		char *name;

		fsti_collect(FSTI_TRACES, &all);
		start = strstr(all.error, "; fencescope-");
		cr_assert_not_null(start, "%s", all.error);
		start += 2;
		end = strchr(start, ' ');
		name = strndup(start, (size_t) (end - start));
		cr_assert_eq(fsa_ingest_pick_recording(FSTI_TRACES, name, &by_name, &error), FSA_OK,
			     "%s", error);
		cr_expect_not_null(strstr(all.error, by_name), "%s in %s", by_name, all.error);
		free(name);
		fsti_result_fini(&all);
	}
	free(path);
	cr_expect_eq(fsa_ingest_pick_recording(FSTI_TRACES, "nothing-like-it", &path, &error),
		     FSA_ERR_IO);
	cr_assert_not_null(error);
	cr_expect_not_null(strstr(error, "no recording is called \"nothing-like-it\""), "%s",
			   error);
	cr_expect_null(path);
	free(error);
	free(by_name);
	free(expected);
	fsti_result_fini(&r);
}

/* One LTTng session can be several CTF traces (per-UID or per-PID buffers, 32 and 64 bit):
 * same trace_name and creation time. Those are still read together, merged in time order. */
Test(ingest, the_folders_of_one_recording_are_read_merged_in_time_order)
{
	char work[] = "/tmp/fsti-one-recording-XXXXXX";
	char *cmd = NULL, *a = NULL, *b = NULL, *meta_a = NULL, *meta_b = NULL;
	char *text_a, *text_b;
	struct fsti_result r;
	size_t size_a, size_b;

	cr_assert_not_null(mkdtemp(work));
	cr_assert_geq(asprintf(&a, "%s/ust/uid/0/64-bit", work), 0);
	cr_assert_geq(asprintf(&b, "%s/ust/uid/1000/64-bit", work), 0);
	cr_assert_geq(asprintf(&cmd,
			       "mkdir -p '%s' '%s' && cp -r '%s'/frame-pipeline/ust/uid/0/64-bit/* "
			       "'%s' && cp -r '%s'/cpu-waiters/ust/uid/0/64-bit/* '%s'",
			       a, b, FSTI_TRACES, a, FSTI_TRACES, b),
		      0);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	/* Give b the session of a: its env block's trace_name and creation time. */
	cr_assert_geq(asprintf(&meta_a, "%s/metadata", a), 0);
	cr_assert_geq(asprintf(&meta_b, "%s/metadata", b), 0);
	cr_assert(g_file_get_contents(meta_a, &text_a, &size_a, NULL));
	cr_assert(g_file_get_contents(meta_b, &text_b, &size_b, NULL));
	{
		const char *keys[] = {"trace_name = \"", "trace_creation_datetime = \""};

		for (size_t k = 0; k < 2; k++) {
			char *va = memmem(text_a, size_a, keys[k], strlen(keys[k]));
			char *vb = memmem(text_b, size_b, keys[k], strlen(keys[k]));
			size_t len;

			cr_assert(va && vb);
			va += strlen(keys[k]);
			vb += strlen(keys[k]);
			len = (size_t) (strchr(va, '"') - va);
			cr_assert_eq(len, (size_t) (strchr(vb, '"') - vb), "%s", keys[k]);
			memcpy(vb, va, len);
		}
	}
	cr_assert(g_file_set_contents(meta_b, text_b, (gssize) size_b, NULL));
	fsti_collect(work, &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	cr_expect_eq(r.stats.trace_count, 2);
	cr_expect_eq(fsti_count(&r, FSA_EV_TRACE_INFO), 2);
	for (size_t i = 1; i < r.event_count; i++)
		cr_assert_geq(r.events[i].ev.ts_ns, r.events[i - 1].ev.ts_ns, "event %zu", i);
	fsti_result_fini(&r);
	fst_remove_tree(work);
	g_free(text_a);
	g_free(text_b);
	free(cmd);
	free(a);
	free(b);
	free(meta_a);
	free(meta_b);
}

static void
expect_one_line_error(const struct fsti_result *r, fsa_status status, const char *path,
		      const char *needle)
{
	cr_expect_eq(r->status, status, "status %d (%s)", r->status, r->error);
	cr_assert_not_null(r->error);
	cr_expect_eq(strncmp(r->error, path, strlen(path)), 0, "message: %s", r->error);
	cr_expect_null(strchr(r->error, '\n'), "message: %s", r->error);
	if (needle)
		cr_expect_not_null(strstr(r->error, needle), "message: %s", r->error);
}

Test(ingest, a_missing_path_is_an_io_error_that_names_it)
{
	struct fsti_result r;

	fsti_collect("/nonexistent/fencescope-trace", &r);
	expect_one_line_error(&r, FSA_ERR_IO, "/nonexistent/fencescope-trace",
			      "No such file or directory");
	cr_expect_eq(r.event_count, 0);
	fsti_result_fini(&r);
}

Test(ingest, a_regular_file_is_an_io_error)
{
	struct fsti_result r;

	fsti_collect(TRACE("frame-pipeline/totals.txt"), &r);
	expect_one_line_error(&r, FSA_ERR_IO, TRACE("frame-pipeline/totals.txt"), "not a folder");
	fsti_result_fini(&r);
}

Test(ingest, an_empty_folder_has_no_ctf_trace)
{
	char dir[] = "/tmp/fsti-empty-XXXXXX";
	struct fsti_result r;

	cr_assert_not_null(mkdtemp(dir));
	fsti_collect(dir, &r);
	expect_one_line_error(&r, FSA_ERR_IO, dir, "no CTF trace found");
	fsti_result_fini(&r);
	rmdir(dir);
}

Test(ingest, a_folder_of_other_files_has_no_ctf_trace)
{
	char dir[] = "/tmp/fsti-other-XXXXXX";
	char *file = NULL, *sub = NULL;
	struct fsti_result r;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_geq(asprintf(&sub, "%s/sub", dir), 0);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_geq(asprintf(&file, "%s/notes.txt", sub), 0);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs("not a trace\n", f);
	fclose(f);
	fsti_collect(dir, &r);
	expect_one_line_error(&r, FSA_ERR_IO, dir, "no CTF trace found");
	fsti_result_fini(&r);
	fst_remove_tree(dir);
	free(file);
	free(sub);
}

Test(ingest, a_net_url_without_a_relay_daemon_is_an_error_not_a_hang)
{
	struct fsti_result r;

	/* Port 9 (discard) on localhost: nothing listens there. */
	fsti_collect("net://127.0.0.1:9/host/nohost/nosession", &r);
	cr_expect_neq(r.status, FSA_OK);
	cr_assert_not_null(r.error);
	cr_expect_null(strchr(r.error, '\n'), "message: %s", r.error);
	fsti_result_fini(&r);
}

Test(ingest, into_model_counts_every_event)
{
	struct fsa_model *model = fsa_model_create(NULL);
	struct fsa_ingest_stats stats;
	char *error = NULL;

	cr_assert_not_null(model);
	cr_assert_eq(fsa_ingest_into_model(TRACE("stress"), model, NULL, NULL, &stats, &error),
		     FSA_OK, "%s", error);
	cr_expect_eq(stats.fencescope_events, totals_get(TRACE("stress"), "events"));
	cr_expect_eq(fsa_model_borrow_summary(model)->event_count, stats.fencescope_events);
	fsa_model_destroy(model);
}

static fsa_status
stop_at_tenth(void *data, const struct fsa_event *event)
{
	int *seen = data;

	(void) event;
	return ++*seen == 10 ? FSA_ERR_INVALID : FSA_OK;
}

Test(ingest, a_callback_status_stops_the_reading_and_is_returned)
{
	int seen = 0;
	const struct fsa_ingest_callbacks callbacks = {.data = &seen, .event = stop_at_tenth};
	char *error = NULL;

	cr_expect_eq(fsa_ingest_run(TRACE("stress"), &callbacks, NULL, &error), FSA_ERR_INVALID);
	cr_expect_eq(seen, 10);
	free(error);
}

/*
 * Two decoder processes (docs/analyzer.md "Two decoders"): whatever FENCESCOPE_DECODERS says, the
 * callbacks get the same events, field by field, and the same discards at the same places, in
 * the order of one libbabeltrace2 muxer over all the streams.
 */

/* A helper that logs its command line to `log` and, when its view holds `kill_stream`, is
 * killed after `kill_after` events (FENCESCOPE_DECODE_KILL_AFTER). Returns its path (g_free). */
static char *
wrapper_make(const char *dir, const char *log, const char *kill_stream, int kill_after)
{
	char *path = g_build_filename(dir, "decode-wrapper.sh", NULL);
	char *text = g_strdup_printf(
	    "#!/bin/sh\n"
	    "echo \"$*\" >> '%s'\n"
	    "for a; do trace=$a; done\n"
	    "if [ -n '%s' ] && [ -e \"$trace/d0/%s\" ]; then\n"
	    "  FENCESCOPE_DECODE_KILL_AFTER=%d; export FENCESCOPE_DECODE_KILL_AFTER\n"
	    "fi\n"
	    "exec '%s' \"$@\"\n",
	    log, kill_stream ? kill_stream : "", kill_stream ? kill_stream : "", kill_after,
	    FSTI_DECODE_HELPER);

	cr_assert(g_file_set_contents(path, text, -1, NULL));
	cr_assert_eq(chmod(path, 0755), 0);
	g_free(text);
	return path;
}

/* Reads `trace` with FENCESCOPE_DECODERS=`decoders`; returns how many decoder processes ran
 * with --order (0: one decoder, as before). */
static size_t
collect_with(const char *trace, const char *decoders, const char *kill_stream, int kill_after,
	     struct fsti_result *r)
{
	char *dir = g_dir_make_tmp("fsti-split-XXXXXX", NULL);
	char *log = g_build_filename(dir, "log", NULL);
	char *wrapper = wrapper_make(dir, log, kill_stream, kill_after);
	char *lines = NULL;
	size_t ordered = 0;

	setenv("FENCESCOPE_DECODERS", decoders, 1);
	setenv("FENCESCOPE_DECODE_HELPER", wrapper, 1);
	fsti_collect(trace, r);
	unsetenv("FENCESCOPE_DECODERS");
	unsetenv("FENCESCOPE_DECODE_HELPER");
	if (g_file_get_contents(log, &lines, NULL, NULL)) {
		for (const char *p = lines; (p = strstr(p, "--order")); p++)
			ordered++;
	}
	g_free(lines);
	unlink(log);
	unlink(wrapper);
	rmdir(dir);
	g_free(wrapper);
	g_free(log);
	g_free(dir);
	return ordered;
}

static void
expect_same_event(const struct fsti_event *a, const struct fsti_event *b, size_t i)
{
	cr_assert_eq(a->ev.type, b->ev.type, "event %zu", i);
	cr_assert_eq(a->ev.ts_ns, b->ev.ts_ns, "event %zu", i);
	cr_assert_eq(a->ev.cpu_id, b->ev.cpu_id, "event %zu", i);
	cr_assert_eq(a->ev.trace_clock, b->ev.trace_clock, "event %zu", i);
	/* Only a clock_correlation's says something (fsa/event.h). */
	if (a->ev.type == FSA_EV_CLOCK_CORRELATION)
		cr_assert_eq(a->ev.cpu_ts_trace_ns, b->ev.cpu_ts_trace_ns, "event %zu", i);
	cr_assert_arr_eq(a->ev.present, b->ev.present, sizeof(a->ev.present), "event %zu", i);
	for (int slot = 0; slot < FSA_F_COUNT; slot++) {
		if (fsa_event_has(&a->ev, slot))
			cr_assert_eq(a->ev.u[slot], b->ev.u[slot], "event %zu slot %d", i, slot);
	}
	for (int s = 0; s < FSA_S_COUNT; s++) {
		cr_assert_eq(!a->s[s], !b->s[s], "event %zu string %d", i, s);
		if (a->s[s])
			cr_assert_str_eq(a->s[s], b->s[s], "event %zu", i);
	}
	cr_assert_eq(a->ev.fence_handle_count, b->ev.fence_handle_count, "event %zu", i);
	for (uint32_t h = 0; h < a->ev.fence_handle_count; h++)
		cr_assert_eq(a->fence_handles[h], b->fence_handles[h], "event %zu", i);
}

static void
expect_two_decoders_as_one(const char *trace, size_t min_discards)
{
	struct fsti_result one, two;

	cr_assert_eq(collect_with(trace, "1", NULL, 0, &one), 0);
	cr_assert_eq(collect_with(trace, "2", NULL, 0, &two), 2, "%s: not split", trace);
	cr_assert_eq(one.status, FSA_OK, "%s", one.error);
	cr_assert_eq(two.status, FSA_OK, "%s", two.error);
	cr_assert_gt(one.event_count, 0);
	cr_assert_eq(two.event_count, one.event_count);
	for (size_t i = 0; i < one.event_count; i++)
		expect_same_event(&two.events[i], &one.events[i], i);
	cr_assert_geq(one.discard_count, min_discards);
	cr_assert_eq(two.discard_count, one.discard_count);
	for (size_t i = 0; i < one.discard_count; i++) {
		const struct fsa_discard *a = &two.discards[i], *b = &one.discards[i];

		cr_expect_eq(two.discard_at[i], one.discard_at[i], "discard %zu", i);
		cr_expect(a->kind == b->kind && a->count == b->count &&
			      a->begin_ns == b->begin_ns && a->end_ns == b->end_ns &&
			      a->has_range == b->has_range && a->stream_id == b->stream_id &&
			      a->cpu_id == b->cpu_id,
			  "discard %zu", i);
	}
	cr_expect_eq(two.stats.events, one.stats.events);
	cr_expect_eq(two.stats.fencescope_events, one.stats.fencescope_events);
	cr_expect_eq(two.stats.other_events, one.stats.other_events);
	cr_expect_eq(two.stats.discarded_events, one.stats.discarded_events);
	cr_expect_eq(two.stats.discarded_packets, one.stats.discarded_packets);
	cr_expect_eq(two.stats.trace_count, one.stats.trace_count);
	cr_expect_eq(two.last_fraction, 1.0);
	fsti_result_fini(&one);
	fsti_result_fini(&two);
}

Test(ingest, two_decoders_break_ties_across_streams_as_the_muxer_does)
{
	/* Every event of fencescope_1 has a twin at the same time in the other decoder's
	 * fencescope_2: the stream id decides, whichever decoder holds the lower one. */
	expect_two_decoders_as_one(FSTI_SPLIT "/ties-copy-last", 0);
	expect_two_decoders_as_one(FSTI_SPLIT "/ties-copy-first", 0);
}

Test(ingest, two_decoders_deliver_discarded_events_where_one_decoder_does)
{
	expect_two_decoders_as_one(FSTI_SPLIT "/discards", 2);
}

Test(ingest, two_decoders_read_recorded_traces_as_one_does)
{
	expect_two_decoders_as_one(TRACE("realtime-producer-consumer"), 0);
	expect_two_decoders_as_one(TRACE("stress"), 0);
	expect_two_decoders_as_one(TRACE("frame-pipeline"), 0);
}

Test(ingest, one_decoder_reads_a_trace_that_cannot_be_split_exactly)
{
	struct fsti_result r;
	char *dir = g_dir_make_tmp("fsti-nosplit-XXXXXX", NULL);
	char *copy = g_strdup_printf("cp -r '%s' '%s/t' && rm -r '%s/t/ust/uid/0/64-bit/index'",
				     TRACE("realtime-producer-consumer"), dir, dir);
	char *trace = g_strdup_printf("%s/t", dir);
	char *remove = g_strdup_printf("rm -rf '%s'", dir);

	/* Without LTTng's index files nothing says which stream a file is. */
	cr_assert_eq(system(copy), 0);
	cr_expect_eq(collect_with(trace, "2", NULL, 0, &r), 0);
	cr_expect_eq(r.status, FSA_OK, "%s", r.error);
	cr_expect_gt(r.event_count, 0);
	fsti_result_fini(&r);
	cr_expect_eq(system(remove), 0);
	g_free(copy);
	g_free(trace);
	g_free(remove);
	g_free(dir);
}

Test(ingest, a_decoder_killed_mid_trace_gives_a_partial_reading_with_the_other_decoders_events)
{
	enum { KEPT = 50 };
	struct fsti_result all, partial;
	size_t cpu0 = 0, at = 0;

	cr_assert_eq(collect_with(TRACE("realtime-producer-consumer"), "1", NULL, 0, &all), 0);
	/* fencescope_0 is CPU 0's stream: its decoder dies after KEPT events. */
	cr_assert_eq(
	    collect_with(TRACE("realtime-producer-consumer"), "2", "fencescope_0", KEPT, &partial),
	    2);
	cr_assert_eq(partial.status, FSA_ERR_TRACE);
	cr_assert_not_null(partial.error);
	cr_expect(strstr(partial.error, "the decoder was stopped by SIGKILL from outside"), "%s",
		  partial.error);
	cr_expect_null(strstr(partial.error, "fencescope-view"), "%s", partial.error);
	/* The events of the full reading less CPU 0's after its first KEPT, in the same order. */
	for (size_t i = 0; i < all.event_count; i++) {
		if (all.events[i].ev.cpu_id == 0 && cpu0++ >= KEPT)
			continue;
		cr_assert_lt(at, partial.event_count, "event %zu missing", i);
		expect_same_event(&partial.events[at++], &all.events[i], i);
	}
	cr_expect_gt(cpu0, KEPT);
	cr_expect_eq(at, partial.event_count);
	cr_expect_eq(partial.stats.fencescope_events, partial.event_count);
	fsti_result_fini(&all);
	fsti_result_fini(&partial);
}

/*
 * A trace folder whose source has one output port (one stream file, as each of two decoders
 * reads) goes to the sink without flt.utils.muxer (analyzer/ingest/graph.c): the events are
 * those of the reference reader, which reads through a muxer.
 */
Test(ingest, a_single_stream_read_without_a_muxer_is_read_as_the_reference_reader_reads_it)
{
	char *dir = g_dir_make_tmp("fsti-single-XXXXXX", NULL);
	char *copy = g_strdup_printf("cp -r '%s' '%s/t' && cd '%s/t/ust/uid/0/64-bit' && "
				     "rm fencescope_1 index/fencescope_1.idx",
				     TRACE("stress"), dir, dir);
	char *trace = g_strdup_printf("%s/t", dir);
	char *remove = g_strdup_printf("rm -rf '%s'", dir);

	cr_assert_eq(system(copy), 0, "%s", copy);
	expect_same_as_reader(trace);
	cr_expect_eq(system(remove), 0);
	g_free(copy);
	g_free(trace);
	g_free(remove);
	g_free(dir);
}

/* Sets the first packet's timestamp_end (LTTng packet context, bytes 40-47, little-endian) to
 * its timestamp_begin + 1000: the packet ends before its events. */
static void
packet_end_move_back(const char *stream)
{
	FILE *f = fopen(stream, "r+b");
	unsigned char bytes[8];
	uint64_t begin = 0;

	cr_assert_not_null(f, "%s", stream);
	cr_assert_eq(fseek(f, 32, SEEK_SET), 0);
	cr_assert_eq(fread(bytes, 1, 8, f), 8);
	for (int i = 7; i >= 0; i--)
		begin = begin << 8 | bytes[i];
	begin += 1000;
	for (int i = 0; i < 8; i++)
		bytes[i] = (unsigned char) (begin >> (8 * i));
	cr_assert_eq(fseek(f, 40, SEEK_SET), 0);
	cr_assert_eq(fwrite(bytes, 1, 8, f), 8);
	cr_assert_eq(fclose(f), 0);
}

/*
 * Without a muxer the decoder stops where libbabeltrace2 2.0's muxer stops a graph (a message
 * time below the one before), after the same events and with the same cause: the same damaged
 * stream read once with its empty sibling stream (two ports, a muxer) and once alone.
 */
Test(ingest, a_single_stream_whose_time_goes_back_stops_where_the_muxer_stops)
{
	char *dir = g_dir_make_tmp("fsti-back-XXXXXX", NULL);
	char *copy = g_strdup_printf("cp -r '%s' '%s/muxed' && cp -r '%s' '%s/alone' && "
				     "cd '%s/alone/ust/uid/0/64-bit' && "
				     "rm fencescope_1 index/fencescope_1.idx",
				     TRACE("stress"), dir, TRACE("stress"), dir, dir);
	char *muxed = g_strdup_printf("%s/muxed", dir);
	char *alone = g_strdup_printf("%s/alone", dir);
	char *stream = NULL;
	char *remove = g_strdup_printf("rm -rf '%s'", dir);
	struct fsti_result a, b;
	const char *cause = "cannot decode the trace: Youngest upstream message iterator wrapper's "
			    "timestamp is less than muxer's message iterator's last returned "
			    "timestamp";

	cr_assert_eq(system(copy), 0, "%s", copy);
	stream = g_strdup_printf("%s/ust/uid/0/64-bit/fencescope_0", muxed);
	packet_end_move_back(stream);
	g_free(stream);
	stream = g_strdup_printf("%s/ust/uid/0/64-bit/fencescope_0", alone);
	packet_end_move_back(stream);
	fsti_collect(muxed, &a);
	fsti_collect(alone, &b);
	cr_assert_eq(a.status, FSA_ERR_TRACE, "%s", a.error);
	cr_assert_eq(b.status, FSA_ERR_TRACE, "%s", b.error);
	cr_assert_not_null(strstr(a.error, cause), "%s", a.error);
	/* The same words after the trace's name. */
	cr_assert_str_eq(strstr(b.error, cause), strstr(a.error, cause));
	cr_assert_gt(a.event_count, 0);
	cr_assert_eq(b.event_count, a.event_count);
	for (size_t i = 0; i < a.event_count; i++)
		expect_same_event(&b.events[i], &a.events[i], i);
	cr_expect_eq(b.stats.events, a.stats.events);
	fsti_result_fini(&a);
	fsti_result_fini(&b);
	cr_expect_eq(system(remove), 0);
	g_free(stream);
	g_free(copy);
	g_free(muxed);
	g_free(alone);
	g_free(remove);
	g_free(dir);
}
