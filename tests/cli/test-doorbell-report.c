/* SPDX-License-Identifier: MIT */
/*
 * The report's doorbell section against the emulator's own events (suite e2e). The doorbell
 * scenarios are recorded with `fencescope record` in sim and realtime mode; this test reads the
 * raw events back (trace-reader.h: libbabeltrace2, not the analyzer) and counts, per queue, the
 * rings (fencescope_umd:doorbell_ring), connects (fencescope_kmd:doorbell_connect),
 * victimizations suffered and caused (fencescope_kmd:doorbell_victimize), the time connected
 * (connect → disconnect or destroy), the time the status word held CONNECTED_NOTIFY_KMD and
 * DISCONNECTED_RETRY and how often it turned DISCONNECTED_ABORT (the word as
 * fencescope_os:doorbell_status stores and the KMD events' own status set it, from one change
 * to the next, to doorbell_destroy, or to the trace's last event: docs/analyzer.md "Doorbell
 * status"), and each reconnect's latency (since the
 * queue's previous disconnect); then per engine the same sums. `fencescope report --format json`
 * must give exactly those numbers (docs/report-schema.md "doorbells"). The scenario's own shape
 * is checked too: on 2 dedicated doorbells each of the 6 queues is victimized once a round
 * (UMS-22, UMS-23); on the global doorbell nothing is (UMS-19).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "record-sandbox.h"
#include "trace-reader.h"

#define MAX_QUEUES    64
#define MAX_RECONNECT 4096

/* doorbell_status values (docs/trace-format.md, enum doorbell_status). */
enum { CONNECTED, NOTIFY_KMD, RETRY, ABORT };

struct truth_queue {
	uint64_t handle, doorbell, context;
	uint32_t engine;
	uint64_t rings, connects, victimized, victimizer;
	uint64_t connected_ns, status_ns[4], aborts;
	/* open intervals: the connected one, the status word's */
	bool is_connected, has_status;
	int64_t connected_since, status_since;
	int status;
	bool has_disconnected;
	int64_t last_disconnect;
	uint64_t reconnects[MAX_RECONNECT];
	size_t reconnect_count;
};

struct truth {
	struct truth_queue queues[MAX_QUEUES];
	size_t queue_count;
	uint64_t contexts[16], context_engines[16];
	size_t context_count;
	uint64_t victimizations;
};

static uint64_t
field(const struct fst_event *event, const char *name)
{
	const struct fst_field *f = fst_event_find_field(event, name);

	cr_assert_not_null(f, "%s has no field %s", event->name, name);
	return f->u;
}

static struct truth_queue *
queue_of(struct truth *truth, uint64_t handle)
{
	for (size_t i = 0; i < truth->queue_count; i++)
		if (truth->queues[i].handle == handle)
			return &truth->queues[i];
	cr_assert_lt(truth->queue_count, MAX_QUEUES);
	truth->queues[truth->queue_count].handle = handle;
	truth->queues[truth->queue_count].engine = UINT32_MAX;
	return &truth->queues[truth->queue_count++];
}

static void
close_connected(struct truth_queue *q, int64_t ts)
{
	if (q->is_connected)
		q->connected_ns += (uint64_t) (ts - q->connected_since);
	q->is_connected = false;
}

static void
close_status(struct truth_queue *q, int64_t ts)
{
	if (q->has_status)
		q->status_ns[q->status] += (uint64_t) (ts - q->status_since);
	q->has_status = false;
}

/* The word takes a value: a change closes the value held and opens the new one (UMS-12, UMS-14,
 * UMS-16, UMS-24); a store of the value already there changes nothing. */
static void
set_status(struct truth_queue *q, uint64_t status, int64_t ts)
{
	cr_assert_lt(status, 4);
	if (q->has_status && q->status == (int) status)
		return;
	close_status(q, ts);
	q->has_status = true;
	q->status = (int) status;
	q->status_since = ts;
	q->aborts += status == ABORT;
}

/* The ground truth, from the raw events in trace order. */
static void
count_truth(const struct fst_trace *trace, struct truth *truth)
{
	int64_t last = trace->event_count ? trace->events[trace->event_count - 1].ts_ns : 0;

	memset(truth, 0, sizeof(*truth));
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *ev = &trace->events[i];
		const char *name = ev->name;
		struct truth_queue *q;

		if (strcmp(name, "fencescope_os:context_create") == 0) {
			cr_assert_lt(truth->context_count, 16);
			truth->contexts[truth->context_count] = field(ev, "context_handle");
			truth->context_engines[truth->context_count++] = field(ev, "engine_id");
		} else if (strcmp(name, "fencescope_os:hwqueue_create") == 0) {
			q = queue_of(truth, field(ev, "hwqueue_handle"));
			q->context = field(ev, "context_handle");
			for (size_t c = 0; c < truth->context_count; c++)
				if (truth->contexts[c] == q->context)
					q->engine = (uint32_t) truth->context_engines[c];
		} else if (strcmp(name, "fencescope_kmd:doorbell_create") == 0) {
			set_status(queue_of(truth, field(ev, "hwqueue_handle")), field(ev, "status"),
				   ev->ts_ns);
		} else if (strcmp(name, "fencescope_umd:doorbell_ring") == 0) {
			queue_of(truth, field(ev, "hwqueue_handle"))->rings++;
		} else if (strcmp(name, "fencescope_kmd:doorbell_connect") == 0) {
			uint64_t status = field(ev, "status");

			q = queue_of(truth, field(ev, "hwqueue_handle"));
			set_status(q, status, ev->ts_ns);
			q->connects++;
			if (q->has_disconnected) {
				cr_assert_lt(q->reconnect_count, MAX_RECONNECT);
				q->reconnects[q->reconnect_count++] =
				    (uint64_t) (ev->ts_ns - q->last_disconnect);
			}
			if (status == CONNECTED || status == NOTIFY_KMD) {
				close_connected(q, ev->ts_ns);
				q->is_connected = true;
				q->connected_since = ev->ts_ns;
			}
		} else if (strcmp(name, "fencescope_kmd:doorbell_disconnect") == 0) {
			q = queue_of(truth, field(ev, "hwqueue_handle"));
			set_status(q, field(ev, "status"), ev->ts_ns);
			close_connected(q, ev->ts_ns);
			q->has_disconnected = true;
			q->last_disconnect = ev->ts_ns;
		} else if (strcmp(name, "fencescope_kmd:doorbell_destroy") == 0) {
			q = queue_of(truth, field(ev, "hwqueue_handle"));
			close_connected(q, ev->ts_ns);
			close_status(q, ev->ts_ns);
		} else if (strcmp(name, "fencescope_kmd:doorbell_victimize") == 0) {
			queue_of(truth, field(ev, "victim_hwqueue_handle"))->victimized++;
			queue_of(truth, field(ev, "connecting_hwqueue_handle"))->victimizer++;
			truth->victimizations++;
		} else if (strcmp(name, "fencescope_os:doorbell_status") == 0) {
			set_status(queue_of(truth, field(ev, "hwqueue_handle")),
				   field(ev, "new_status"), ev->ts_ns);
		}
	}
	/* Still open at the end: up to the trace's last event, as the report counts them. */
	for (size_t i = 0; i < truth->queue_count; i++) {
		close_connected(&truth->queues[i], last);
		close_status(&truth->queues[i], last);
	}
}

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as the report's exact quantiles (analyzer/report/quantile.c). */
static uint64_t
nearest_rank(uint64_t *values, size_t count, double p)
{
	size_t rank = (size_t) (p * (double) count + 0.999999999);

	qsort(values, count, sizeof(*values), compare_u64);
	return values[rank ? rank - 1 : 0];
}

static JsonNode *
report_json(const char *path)
{
	char *command, *text = NULL;
	size_t size = 0;
	FILE *output;
	GError *error = NULL;
	JsonNode *root;

	cr_assert_geq(asprintf(&command, "%s report --format json --sections doorbells %s",
			       FS_FENCESCOPE, path),
		      0);
	output = popen(command, "r");
	cr_assert_not_null(output);
	cr_assert_geq(getdelim(&text, &size, '\0', output), 1);
	cr_assert_eq(pclose(output), 0, "%s failed", command);
	root = json_from_string(text, &error);
	cr_assert_not_null(root, "%s", error ? error->message : "");
	free(text);
	free(command);
	return root;
}

static gint64
member(JsonObject *row, const char *name)
{
	cr_assert(json_object_has_member(row, name), "no %s", name);
	return json_object_get_int_member(row, name);
}

/* Compares every queue row of doorbells.queues, and every engine row, with the truth. */
static void
compare(const struct truth *truth_in, JsonNode *root, const char *label)
{
	struct truth *truth = (struct truth *) truth_in;
	JsonObject *doorbells =
	    json_object_get_object_member(json_node_get_object(root), "doorbells");
	JsonArray *queues = json_object_get_array_member(doorbells, "queues");
	JsonArray *engines = json_object_get_array_member(doorbells, "engines");
	size_t with_doorbell = 0;

	cr_assert_not_null(queues);
	cr_assert_not_null(engines, "%s: no doorbells.engines", label);
	for (size_t i = 0; i < truth->queue_count; i++)
		with_doorbell += truth->queues[i].connects > 0;
	cr_expect_eq(json_array_get_length(queues), with_doorbell, "%s: queue rows", label);
	for (guint r = 0; r < json_array_get_length(queues); r++) {
		JsonObject *row = json_array_get_object_element(queues, r);
		uint64_t handle =
		    strtoull(json_object_get_string_member(row, "hwqueue_handle"), NULL, 16);
		struct truth_queue *q = queue_of(truth, handle);

		cr_expect_eq(member(row, "rings"), (gint64) q->rings, "%s %#" PRIx64 " rings",
			     label, handle);
		cr_expect_eq(member(row, "connects"), (gint64) q->connects, "%s connects", label);
		cr_expect_eq(member(row, "victimized"), (gint64) q->victimized, "%s victimized",
			     label);
		cr_expect_eq(member(row, "victimizer"), (gint64) q->victimizer, "%s victimizer",
			     label);
		cr_expect_eq(member(row, "connected_ns"), (gint64) q->connected_ns,
			     "%s %#" PRIx64 " connected_ns", label, handle);
		cr_expect_eq(member(row, "notify_kmd_ns"), (gint64) q->status_ns[NOTIFY_KMD],
			     "%s notify_kmd_ns", label);
		cr_expect_eq(member(row, "retry_ns"), (gint64) q->status_ns[RETRY],
			     "%s %#" PRIx64 " retry_ns", label, handle);
		cr_expect_eq(member(row, "aborts"), (gint64) q->aborts, "%s aborts", label);
		cr_expect_eq(member(row, "reconnects"), (gint64) q->reconnect_count,
			     "%s reconnects", label);
		if (q->reconnect_count) {
			cr_expect_eq(member(row, "reconnect_max_ns"),
				     (gint64) nearest_rank(q->reconnects, q->reconnect_count, 1.0),
				     "%s reconnect max", label);
			cr_expect_eq(member(row, "reconnect_p50_ns"),
				     (gint64) nearest_rank(q->reconnects, q->reconnect_count, 0.5),
				     "%s reconnect p50", label);
			cr_expect_eq(member(row, "reconnect_p99_ns"),
				     (gint64) nearest_rank(q->reconnects, q->reconnect_count, 0.99),
				     "%s reconnect p99", label);
		}
	}
	for (guint r = 0; r < json_array_get_length(engines); r++) {
		JsonObject *row = json_array_get_object_element(engines, r);
		uint32_t engine = (uint32_t) member(row, "engine_id");
		uint64_t rings = 0, victimized = 0, victimizer = 0, connected = 0, retry = 0;
		uint64_t notify = 0, reconnect_max = 0, reconnects = 0;
		gint64 queue_count = 0;

		for (size_t i = 0; i < truth->queue_count; i++) {
			const struct truth_queue *q = &truth->queues[i];

			if (q->engine != engine || !q->connects)
				continue;
			queue_count++;
			rings += q->rings;
			victimized += q->victimized;
			victimizer += q->victimizer;
			connected += q->connected_ns;
			retry += q->status_ns[RETRY];
			notify += q->status_ns[NOTIFY_KMD];
			reconnects += q->reconnect_count;
			for (size_t k = 0; k < q->reconnect_count; k++)
				if (q->reconnects[k] > reconnect_max)
					reconnect_max = q->reconnects[k];
		}
		cr_expect_eq(member(row, "queues"), queue_count, "%s engine %u queues", label,
			     engine);
		cr_expect_eq(member(row, "rings"), (gint64) rings, "%s engine rings", label);
		cr_expect_eq(member(row, "victimized"), (gint64) victimized, "%s engine victimized",
			     label);
		cr_expect_eq(member(row, "victimizer"), (gint64) victimizer, "%s engine victimizer",
			     label);
		cr_expect_eq(member(row, "connected_ns"), (gint64) connected, "%s engine connected",
			     label);
		cr_expect_eq(member(row, "retry_ns"), (gint64) retry, "%s engine retry", label);
		cr_expect_eq(member(row, "notify_kmd_ns"), (gint64) notify, "%s engine notify-KMD",
			     label);
		cr_expect_eq(member(row, "reconnects"), (gint64) reconnects, "%s engine reconnects",
			     label);
		if (reconnects)
			cr_expect_eq(member(row, "reconnect_max_ns"), (gint64) reconnect_max,
				     "%s engine reconnect max", label);
	}
}

/* Records a doorbell scenario, checks the report against the raw events; returns the truth. */
static void
record_and_compare(const char *scenario, const char *scale, bool is_realtime, struct truth *truth)
{
	const char *args[] = {
	    "record",  "-o",  "trace",  "--clock", is_realtime ? "realtime" : "sim",
	    "--scale", scale, scenario, NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 200};
	struct fsct_outcome outcome = {0};
	struct fst_trace *trace = NULL;
	char *error = NULL, *path, label[96];
	JsonNode *root;

	snprintf(label, sizeof(label), "%s (%s)", scenario, is_realtime ? "realtime" : "sim");
	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record %s: %s", label, outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);
	cr_assert_eq(trace->discarded_events, 0, "%s: the tracer discarded events", label);
	count_truth(trace, truth);
	root = report_json(path);
	compare(truth, root, label);
	json_node_unref(root);
	fst_trace_destroy(trace);
	free(path);
	fsct_outcome_clear(&outcome);
}

/*
 * UMS-22, UMS-23: 6 queues, 2 physical doorbells, 10 rounds. The first two connects find a free
 * doorbell, the other four initial ones victimize, then each queue's first ring of a round finds
 * RETRY and its reconnect victimizes: 4 + 6 × 10, every queue victimized every round.
 */
static void
check_pressure(bool is_realtime)
{
	struct truth truth;

	record_and_compare("doorbell-pressure", "10", is_realtime, &truth);
	cr_expect_eq(truth.victimizations, 4 + 6 * 10);
	for (size_t i = 0; i < truth.queue_count; i++) {
		const struct truth_queue *q = &truth.queues[i];

		cr_expect_eq(q->rings, 2 * 10, "two buffers a round");
		cr_expect_geq(q->victimized, 10, "victimized every round");
		cr_expect_eq(q->connects, 1 + 10, "a reconnect every round");
		if (q->engine == 1)
			cr_expect_gt(q->status_ns[NOTIFY_KMD], 0, "UMS-24: compute notifies");
	}
}

Test(doorbell_report, ums_22_doorbell_pressure_report_matches_the_emulator_in_sim, .timeout = 240)
{
	check_pressure(false);
}

Test(doorbell_report, ums_22_doorbell_pressure_report_matches_the_emulator_in_realtime,
     .timeout = 240)
{
	check_pressure(true);
}

/* UMS-17, UMS-19: 32 queues on the global doorbell connect once each, nothing is victimized. */
static void
check_global(bool is_realtime)
{
	struct truth truth;

	record_and_compare("doorbell-global", "3", is_realtime, &truth);
	cr_expect_eq(truth.victimizations, 0);
	cr_expect_eq(truth.queue_count, 32);
	for (size_t i = 0; i < truth.queue_count; i++) {
		cr_expect_eq(truth.queues[i].connects, 1);
		cr_expect_eq(truth.queues[i].rings, 3);
	}
}

Test(doorbell_report, ums_19_doorbell_global_report_matches_the_emulator_in_sim, .timeout = 240)
{
	check_global(false);
}

Test(doorbell_report, ums_19_doorbell_global_report_matches_the_emulator_in_realtime,
     .timeout = 240)
{
	check_global(true);
}
