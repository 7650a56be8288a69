/* SPDX-License-Identifier: MIT */
/*
 * The report built from synthetic sink calls (no trace, no model): each section's numbers are
 * checked in the JSON output, and the text and CSV outputs are checked to carry the same ones.
 * The operations below are small enough to compute every expected value by hand.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "fencescope-tp-enums.h"
#include "fsa/model.h"
#include "fsa/report.h"

#define NONE FSA_TIME_NONE

static struct fsa_op
make_op(uint64_t id, enum fsa_op_kind kind, enum fsa_op_source source, uint64_t queue,
	uint32_t process, uint64_t fence, uint64_t queued, uint64_t observed, uint64_t end)
{
	return (struct fsa_op){
	    .id = id,
	    .kind = kind,
	    .source = source,
	    .state = FSA_OP_OBSERVED,
	    .hwqueue_handle = queue,
	    .process_id = process,
	    .adapter_id = 0,
	    .engine_id = source == FSA_SRC_CPU ? UINT32_MAX : 1,
	    .fence_handle = 1,
	    .fence_global_handle = fence,
	    .fence_value = id,
	    .queued_ns = queued,
	    .observed_ns = observed,
	    .end_ns = end,
	    .inferred_begin_ns = NONE,
	    .inferred_end_ns = NONE,
	    .log_position = UINT64_MAX,
	};
}

static struct fsa_edge
make_edge(uint64_t signal_op, uint64_t wait_op, uint64_t signal_queue, uint32_t signal_process,
	  uint64_t signal_end, uint64_t wait_end)
{
	return (struct fsa_edge){
	    .signal_op_id = signal_op,
	    .wait_op_id = wait_op,
	    .fence_global_handle = 0xf1,
	    .signal_source = FSA_SRC_USER_MODE_QUEUE,
	    .wait_source = FSA_SRC_USER_MODE_QUEUE,
	    .signal_hwqueue_handle = signal_queue,
	    .signal_process_id = signal_process,
	    .signal_end_ns = signal_end,
	    .wait_end_ns = wait_end,
	};
}

static struct fsa_marker
make_marker(enum fsa_marker_kind kind, uint64_t queue, uint64_t begin, uint64_t end)
{
	return (struct fsa_marker){
	    .kind = kind,
	    .begin_ns = begin,
	    .end_ns = end,
	    .adapter_id = 0,
	    .engine_id = 1,
	    .process_id = 1,
	    .hwqueue_handle = queue,
	    .latency_ns = NONE,
	};
}

/* The operations of the hand-computed example; see the expected values in each test. */
static void
feed(struct fsa_report *report)
{
	const struct fsa_model_sink *sink = fsa_report_borrow_sink(report);
	void *d = sink->data;

	/* Wait 1 on 0x10: 1000 → 3000, reached by the GPU at 1500 (queued 500, stalled 1500). */
	struct fsa_op op1 =
	    make_op(1, FSA_OP_WAIT, FSA_SRC_USER_MODE_QUEUE, 0x10, 1, 0xf1, 1000, 1500, 3000);
	/* Wait 2 on 0x10: 2000 → 2100, one phase. Its edge comes first (from queue 0x30). */
	struct fsa_op op2 =
	    make_op(2, FSA_OP_WAIT, FSA_SRC_USER_MODE_QUEUE, 0x10, 1, 0xf1, 2000, NONE, 2100);
	/* Signal 3 on 0x20 (process 2): 500 → 2900. */
	struct fsa_op op3 =
	    make_op(3, FSA_OP_SIGNAL, FSA_SRC_USER_MODE_QUEUE, 0x20, 2, 0xf1, 500, NONE, 2900);
	/* CPU wait 4 of process 1: 100 → 5000. */
	struct fsa_op op4 = make_op(4, FSA_OP_WAIT, FSA_SRC_CPU, 0, 1, 0xf1, 100, NONE, 5000);
	/* Wait 5 on 0x10 never unblocked; signal 6 on 0x20 inferred between 3000 and 3500. */
	struct fsa_op op5 =
	    make_op(5, FSA_OP_WAIT, FSA_SRC_USER_MODE_QUEUE, 0x10, 1, 0xf2, 4000, NONE, NONE);
	struct fsa_op op6 =
	    make_op(6, FSA_OP_SIGNAL, FSA_SRC_USER_MODE_QUEUE, 0x20, 2, 0xf2, 2500, NONE, NONE);
	struct fsa_edge edge2 = make_edge(9, 2, 0x30, 3, 2050, 2100);
	struct fsa_edge edge1 = make_edge(3, 1, 0x20, 2, 2900, 3000);

	op5.state = FSA_OP_NEVER_COMPLETED;
	op6.state = FSA_OP_INFERRED;
	op6.inferred_begin_ns = 3000;
	op6.inferred_end_ns = 3500;

	cr_assert_eq(sink->op(d, &op3), FSA_OK);
	cr_assert_eq(sink->op(d, &op1), FSA_OK);
	cr_assert_eq(sink->edge(d, &edge1), FSA_OK);
	cr_assert_eq(sink->edge(d, &edge2), FSA_OK);
	cr_assert_eq(sink->op(d, &op2), FSA_OK);
	cr_assert_eq(sink->op(d, &op4), FSA_OK);
	cr_assert_eq(sink->op(d, &op5), FSA_OK);
	cr_assert_eq(sink->op(d, &op6), FSA_OK);

	/* Doorbells of 0x10: three rings, a reconnect after 7 us, victimized by 0x20. */
	struct fsa_marker m = make_marker(FSA_MARK_DOORBELL_RING, 0x10, 1100, 1100);

	for (int i = 0; i < 3; i++)
		cr_assert_eq(sink->marker(d, &m), FSA_OK);
	m = make_marker(FSA_MARK_DOORBELL_CONNECT, 0x10, 1200, 1200);
	m.latency_ns = 7000;
	sink->marker(d, &m);
	m = make_marker(FSA_MARK_DOORBELL_VICTIMIZE, 0x10, 1300, 1300);
	m.other_handle = 0x20;
	sink->marker(d, &m);
	m = make_marker(FSA_MARK_DOORBELL_DISCONNECT, 0x10, 1300, 1300);
	sink->marker(d, &m);
	/* A 500 ns time-slice preemption of engine 1, a 2 us TDR, a page fault. */
	m = make_marker(FSA_MARK_PREEMPTION, 0, 100, 600);
	m.code = 0;
	sink->marker(d, &m);
	m = make_marker(FSA_MARK_TDR, 0, 1000, 3000);
	sink->marker(d, &m);
	m = make_marker(FSA_MARK_PAGE_FAULT, 0x10, 1800, 1800);
	m.value = 0xdead000;
	sink->marker(d, &m);

	struct fsa_packet packet = {
	    .adapter_id = 0,
	    .engine_id = 1,
	    .hwqueue_handle = 0x10,
	    .packet_id = 1,
	    .queued_ns = 50,
	    .start_ns = 100,
	    .end_ns = 900,
	    .status = FSA_PACKET_PREEMPTED,
	};
	sink->packet(d, &packet);
	packet.resubmission_of = 1;
	packet.packet_id = 2;
	packet.start_ns = 1000;
	packet.end_ns = 1200;
	packet.status = FSA_PACKET_COMPLETED;
	sink->packet(d, &packet);

	/* 24 signal-log entries of 0x20 overwritten, one op inferred; 5 events discarded. */
	struct fsa_loss overrun = {
	    .kind = FSA_LOSS_LOG_OVERRUN,
	    .count = 24,
	    .begin_ns = 1000,
	    .end_ns = 2000,
	    .hwqueue_handle = 0x20,
	    .log_type = 1,
	    .cached_position = 16,
	    .new_position = 56,
	    .inferred_ops = 1,
	};
	struct fsa_loss discard = {
	    .kind = FSA_LOSS_TRACER_EVENTS,
	    .count = 5,
	    .begin_ns = 400,
	    .end_ns = 450,
	    .stream_id = 3,
	    .cpu_id = 1,
	};

	cr_assert_eq(sink->loss(d, &overrun), FSA_OK);
	cr_assert_eq(sink->loss(d, &discard), FSA_OK);

	/* Seven hang candidates: all counted, the first five listed. */
	for (uint64_t i = 0; i < 7; i++) {
		struct fsa_anomaly a = {
		    .kind = FSA_ANOM_WAIT_NEVER_UNBLOCKED,
		    .ts_ns = 4000 + i,
		    .process_id = 1,
		    .hwqueue_handle = 0x10,
		    .op_id = 5,
		};
		cr_assert_eq(sink->anomaly(d, &a), FSA_OK);
	}
}

static char *
write_report(struct fsa_report *report, enum fsa_report_format format)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	cr_assert_eq(fsa_report_write(report, format, out), FSA_OK);
	fclose(out);
	return text;
}

static JsonNode *
json_report(struct fsa_report *report)
{
	char *text = write_report(report, FSA_REPORT_FORMAT_JSON);
	GError *error = NULL;
	JsonNode *root = json_from_string(text, &error);

	cr_assert_not_null(root, "%s", error ? error->message : "");
	free(text);
	return root;
}

/* The one value at PATH (JSONPath), as an integer; fails the test unless exactly one matches. */
static gint64
int_at(JsonNode *root, const char *path)
{
	GError *error = NULL;
	JsonNode *result = json_path_query(path, root, &error);
	JsonArray *array = json_node_get_array(result);

	cr_assert_eq(json_array_get_length(array), 1, "%s matched %u values", path,
		     json_array_get_length(array));
	cr_assert_eq(json_node_get_value_type(json_array_get_element(array, 0)), G_TYPE_INT64,
		     "%s is not an integer", path);
	gint64 value = json_array_get_int_element(array, 0);

	json_node_unref(result);
	return value;
}

static char *
string_at(JsonNode *root, const char *path)
{
	JsonNode *result = json_path_query(path, root, NULL);
	JsonArray *array = json_node_get_array(result);

	cr_assert_eq(json_array_get_length(array), 1, "%s matched %u values", path,
		     json_array_get_length(array));
	char *value = g_strdup(json_array_get_string_element(array, 0));

	json_node_unref(result);
	return value;
}

static bool
is_null_at(JsonNode *root, const char *path)
{
	JsonNode *result = json_path_query(path, root, NULL);
	JsonArray *array = json_node_get_array(result);
	bool is_null = json_array_get_length(array) == 1 && json_array_get_null_element(array, 0);

	json_node_unref(result);
	return is_null;
}

static size_t
count_at(JsonNode *root, const char *path)
{
	JsonNode *result = json_path_query(path, root, NULL);
	size_t n = json_array_get_length(json_node_get_array(result));

	json_node_unref(result);
	return n;
}

static struct fsa_report *
fed_report(const struct fsa_report_options *options)
{
	struct fsa_report *report = fsa_report_create(options);

	cr_assert_not_null(report);
	feed(report);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	return report;
}

Test(report, schema_version_and_summary_counts)
{
	struct fsa_report *report = fed_report(NULL);
	JsonNode *root = json_report(report);
	char *version = string_at(root, "$.schema_version");

	cr_assert_str_eq(version, FSA_REPORT_SCHEMA_VERSION);
	g_free(version);
	cr_assert_eq(int_at(root, "$.summary.trace.user_mode_waits"), 3);
	cr_assert_eq(int_at(root, "$.summary.trace.user_mode_signals"), 2);
	cr_assert_eq(int_at(root, "$.summary.trace.cpu_waits"), 1);
	cr_assert_eq(int_at(root, "$.summary.trace.observed_ops"), 4);
	cr_assert_eq(int_at(root, "$.summary.trace.inferred_ops"), 1);
	cr_assert_eq(int_at(root, "$.summary.trace.never_completed_ops"), 1);
	cr_assert_eq(int_at(root, "$.summary.trace.edges"), 2);
	cr_assert_eq(int_at(root, "$.summary.trace.packets"), 2);
	cr_assert_eq(int_at(root, "$.summary.trace.log_entries_lost"), 24);
	cr_assert_eq(int_at(root, "$.summary.trace.tracer_discarded_events"), 5);
	cr_assert_eq(int_at(root, "$.summary.trace.anomalies"), 7);
	/* Queues sorted by handle, with their operations by state. */
	cr_assert_eq(count_at(root, "$.summary.queues[*]"), 2);
	char *handle = string_at(root, "$.summary.queues[0].hwqueue_handle");

	cr_assert_str_eq(handle, "0x10");
	g_free(handle);
	cr_assert_eq(int_at(root, "$.summary.queues[0].waits"), 3);
	cr_assert_eq(int_at(root, "$.summary.queues[0].never_completed"), 1);
	cr_assert_eq(int_at(root, "$.summary.queues[1].inferred"), 1);
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, latency_overall_per_queue_fence_process)
{
	struct fsa_report *report = fed_report(NULL);
	JsonNode *root = json_report(report);

	/* overall rows: wait, wait_queued, wait_stalled, signal, cpu_wait. */
	cr_assert_eq(int_at(root, "$.latency.overall[0].count"), 2);
	cr_assert_eq(int_at(root, "$.latency.overall[0].min_ns"), 100);
	cr_assert_eq(int_at(root, "$.latency.overall[0].p50_ns"), 100);
	cr_assert_eq(int_at(root, "$.latency.overall[0].p99_ns"), 2000);
	cr_assert_eq(int_at(root, "$.latency.overall[0].max_ns"), 2000);
	cr_assert_eq(int_at(root, "$.latency.overall[0].total_ns"), 2100);
	cr_assert_eq(int_at(root, "$.latency.overall[1].total_ns"), 500);
	cr_assert_eq(int_at(root, "$.latency.overall[2].total_ns"), 1500);
	cr_assert_eq(int_at(root, "$.latency.overall[3].max_ns"), 2400);
	cr_assert_eq(int_at(root, "$.latency.overall[4].max_ns"), 4900);
	/* Queue 0x10: wait, wait_queued, wait_stalled; queue 0x20: signal. */
	cr_assert_eq(count_at(root, "$.latency.queues[*]"), 4);
	cr_assert_eq(int_at(root, "$.latency.queues[0].count"), 2);
	cr_assert_eq(int_at(root, "$.latency.queues[3].total_ns"), 2400);
	cr_assert_eq(int_at(root, "$.latency.queues[3].process_id"), 2);
	/* Fence 0xf1: wait (2), wait_queued, wait_stalled, signal, cpu_wait. */
	cr_assert_eq(count_at(root, "$.latency.fences[*]"), 5);
	cr_assert_eq(int_at(root, "$.latency.fences[4].total_ns"), 4900);
	/* Process 1: wait, wait_queued, wait_stalled, cpu_wait; process 2: signal. */
	cr_assert_eq(count_at(root, "$.latency.processes[*]"), 5);
	cr_assert_eq(int_at(root, "$.latency.processes[4].process_id"), 2);
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, longest_waits_name_their_signaller)
{
	struct fsa_report *report = fed_report(NULL);
	JsonNode *root = json_report(report);

	cr_assert_eq(count_at(root, "$.longest.waits[*]"), 3);
	cr_assert_eq(int_at(root, "$.longest.waits[0].duration_ns"), 4900);
	cr_assert(is_null_at(root, "$.longest.waits[0].signal_hwqueue_handle"));
	cr_assert_eq(int_at(root, "$.longest.waits[1].op_id"), 1);
	cr_assert_eq(int_at(root, "$.longest.waits[1].queued_phase_ns"), 500);
	cr_assert_eq(int_at(root, "$.longest.waits[1].stalled_phase_ns"), 1500);
	char *queue = string_at(root, "$.longest.waits[1].signal_hwqueue_handle");

	cr_assert_str_eq(queue, "0x20");
	g_free(queue);
	/* The edge of wait 2 came before the wait itself. */
	queue = string_at(root, "$.longest.waits[2].signal_hwqueue_handle");
	cr_assert_str_eq(queue, "0x30");
	g_free(queue);
	cr_assert_eq(int_at(root, "$.longest.waits[2].signal_process_id"), 3);
	json_node_unref(root);
	fsa_report_destroy(report);
}

/* The edges seen before their wait are a FIFO of FSA_REPORT_EDGE_MEMORY (1024): the oldest one's
 * wait op id is forgotten, even when a later edge of the same wait came since (the report has
 * always done so; the ring and index of report.c keep it). */
Test(report, pending_edges_forget_the_oldest_wait_id)
{
	struct fsa_report_options options = {.longest_count = 4};
	struct fsa_report *report = fsa_report_create(&options);
	const struct fsa_model_sink *sink = fsa_report_borrow_sink(report);
	struct fsa_edge edge = make_edge(1, 5000, 0x51, 5, 100, 200);

	cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);
	for (uint64_t wait = 1; wait <= 1022; wait++) {
		edge = make_edge(10000 + wait, wait, 0x40, 4, 100, 200);
		cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);
	}
	edge = make_edge(2, 5000, 0x52, 5, 100, 200);
	cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);
	/* The 1025th: out goes the first, and wait 5000's id with it. */
	edge = make_edge(3, 6000, 0x60, 6, 100, 200);
	cr_assert_eq(sink->edge(sink->data, &edge), FSA_OK);

	const uint64_t waits[][2] = {{5000, 9000}, {1, 8000}, {6000, 7000}, {1022, 6000}};

	for (size_t i = 0; i < 4; i++) {
		struct fsa_op op = make_op(waits[i][0], FSA_OP_WAIT, FSA_SRC_KERNEL_MODE_QUEUE,
					   0x10, 1, 0xf1, 10000, NONE, 10000 + waits[i][1]);

		cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	}
	fsa_report_finish(report);
	JsonNode *root = json_report(report);
	const char *const signallers[] = {NULL, "0x40", "0x60", "0x40"};

	cr_assert_eq(count_at(root, "$.longest.waits[*]"), 4);
	for (size_t i = 0; i < 4; i++) {
		char path[64];

		snprintf(path, sizeof(path), "$.longest.waits[%zu].op_id", i);
		cr_assert_eq(int_at(root, path), (int64_t) waits[i][0]);
		snprintf(path, sizeof(path), "$.longest.waits[%zu].signal_hwqueue_handle", i);
		if (!signallers[i]) {
			cr_assert(is_null_at(root, path), "wait %zu", i);
			continue;
		}
		char *queue = string_at(root, path);

		cr_assert_str_eq(queue, signallers[i], "wait %zu", i);
		g_free(queue);
	}
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, longest_keeps_only_the_top_n)
{
	struct fsa_report_options options = {.longest_count = 3};
	struct fsa_report *report = fsa_report_create(&options);
	const struct fsa_model_sink *sink = fsa_report_borrow_sink(report);

	/* Durations 1..1000 in a scrambled order: the top three are 1000, 999, 998. */
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t duration = (i * 7919) % 1000 + 1;
		struct fsa_op op = make_op(i + 1, FSA_OP_WAIT, FSA_SRC_KERNEL_MODE_QUEUE, 0x10, 1,
					   0xf1, 10000, NONE, 10000 + duration);

		sink->op(sink->data, &op);
	}
	fsa_report_finish(report);
	JsonNode *root = json_report(report);

	cr_assert_eq(count_at(root, "$.longest.waits[*]"), 3);
	cr_assert_eq(int_at(root, "$.longest.waits[0].duration_ns"), 1000);
	cr_assert_eq(int_at(root, "$.longest.waits[1].duration_ns"), 999);
	cr_assert_eq(int_at(root, "$.longest.waits[2].duration_ns"), 998);
	cr_assert_eq(int_at(root, "$.latency.overall[0].count"), 1000);
	cr_assert_eq(int_at(root, "$.latency.overall[0].p50_ns"), 500);
	cr_assert_eq(int_at(root, "$.latency.overall[0].p95_ns"), 950);
	cr_assert_eq(int_at(root, "$.latency.overall[0].p99_ns"), 990);
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, doorbells_preemption_and_faults)
{
	struct fsa_report *report = fed_report(NULL);
	JsonNode *root = json_report(report);

	cr_assert_eq(count_at(root, "$.doorbells.queues[*]"), 2);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].rings"), 3);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].connects"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].victimized"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].disconnects"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].reconnect_max_ns"), 7000);
	cr_assert_eq(int_at(root, "$.doorbells.queues[1].victimizer"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.reconnect[0].count"), 1);
	cr_assert_eq(int_at(root, "$.preemption.engines[0].packets"), 2);
	cr_assert_eq(int_at(root, "$.preemption.engines[0].preempted"), 1);
	cr_assert_eq(int_at(root, "$.preemption.engines[0].resubmissions"), 1);
	cr_assert_eq(int_at(root, "$.preemption.engines[0].busy_ns"), 1000);
	cr_assert_eq(int_at(root, "$.preemption.preemptions[0].time_slice"), 1);
	cr_assert_eq(int_at(root, "$.preemption.preemptions[0].max_ns"), 500);
	/* Marker rows: preemption, tdr, page_fault (an instant: counted, no duration). */
	cr_assert_eq(count_at(root, "$.preemption.markers[*]"), 3);
	cr_assert_eq(int_at(root, "$.preemption.markers[1].total_ns"), 2000);
	cr_assert_eq(int_at(root, "$.preemption.markers[2].count"), 1);
	cr_assert(is_null_at(root, "$.preemption.markers[2].max_ns"));
	cr_assert_eq(count_at(root, "$.preemption.examples[*]"), 2);
	json_node_unref(root);
	fsa_report_destroy(report);
}

/* A report fed only doorbell, suspend and power markers of queue 0x10 (adapter 0, engine 1). */
static struct fsa_report *
doorbell_report(void)
{
	struct fsa_report *report = fsa_report_create(NULL);
	const struct fsa_model_sink *sink = fsa_report_borrow_sink(report);
	struct fsa_marker m;

	cr_assert_not_null(report);
	/* RETRY 100 → 300, NOTIFY_KMD 300 → 1000, RETRY 1000 → open (the trace ends at 5000). */
	m = make_marker(FSA_MARK_DOORBELL_STATE, 0x10, 100, 300);
	m.code = FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY;
	cr_assert_eq(sink->marker(sink->data, &m), FSA_OK);
	m = make_marker(FSA_MARK_DOORBELL_CONNECT, 0x10, 300, 300);
	m.code = FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD;
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DOORBELL_CONNECTED, 0x10, 300, 1000);
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DOORBELL_STATE, 0x10, 300, 1000);
	m.code = FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD;
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DOORBELL_VICTIMIZE, 0x10, 1000, 1000);
	m.other_handle = 0x20;
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DOORBELL_CONNECT, 0x20, 1000, 1000);
	sink->marker(sink->data, &m);
	/* The engine in F1 1500 → 2500 and again from 4000 on; the adapter in D3 2000 → 2400. */
	m = make_marker(FSA_MARK_ENGINE_F1, 0, 1500, 2500);
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DEVICE_D3, 0, 2000, 2400);
	m.engine_id = UINT32_MAX;
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DOORBELL_STATE, 0x20, 4800, 5000);
	m.code = FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT;
	sink->marker(sink->data, &m);
	/* What is still open comes last, as the model sends it at its finish. */
	m = make_marker(FSA_MARK_ENGINE_F1, 0, 4000, NONE);
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DOORBELL_STATE, 0x10, 1000, NONE);
	m.code = FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY;
	sink->marker(sink->data, &m);
	m = make_marker(FSA_MARK_DOORBELL_CONNECTED, 0x20, 1000, NONE);
	sink->marker(sink->data, &m);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	return report;
}

/* Issue 12: per queue and per engine, intervals open at the end counted up to the end. */
Test(report, ums_doorbell_section_per_queue_engine_and_adapter)
{
	struct fsa_report *report = doorbell_report();
	JsonNode *root = json_report(report);

	cr_assert_eq(count_at(root, "$.doorbells.queues[*]"), 2);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].notify_kmd_ns"), 700);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].retry_ns"), 200 + 4000);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].connected_ns"), 700);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].victimized"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].open_at_end"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[1].victimizer"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[1].connected_ns"), 4000, "open: to 5000");
	cr_assert_eq(int_at(root, "$.doorbells.queues[1].aborts"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[1].open_at_end"), 1);
	cr_assert_eq(count_at(root, "$.doorbells.engines[*]"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].engine_id"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].queues"), 2);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].connects"), 2);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].victimized"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].connected_ns"), 4700);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].retry_ns"), 4200);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].f1_count"), 2);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].f1_ns"), 1000 + 1000);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].aborts"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].open_at_end"), 3);
	cr_assert_eq(count_at(root, "$.doorbells.adapters[*]"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.adapters[0].d3_ns"), 400);
	cr_assert_eq(int_at(root, "$.doorbells.adapters[0].open_at_end"), 0);
	json_node_unref(root);
	fsa_report_destroy(report);
}

/* Feeds one contract event, fields given as name, value pairs ending with NULL. */
static void
feed_event(struct fsa_model *model, const char *name, uint64_t ts, ...)
{
	struct fsa_event ev;
	va_list args;
	const char *field;

	fsa_event_clear(&ev);
	ev.type = fsa_event_type_from_name(name);
	ev.ts_ns = ts;
	cr_assert_neq(ev.type, FSA_EV_UNKNOWN, "%s", name);
	va_start(args, ts);
	while ((field = va_arg(args, const char *))) {
		int slot = fsa_field_from_name(field);

		cr_assert_geq(slot, 0, "%s", field);
		fsa_event_set(&ev, (enum fsa_field) slot, va_arg(args, uint64_t));
	}
	va_end(args);
	cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK);
}

#define U64(x) ((uint64_t) (x))

/*
 * SUS-01, FST-03, DST-01 through the model: a context suspended 100 → 400 counts for its
 * user-mode queue and once for its engine; the engine's F1 from 500 is still open at the
 * trace's last event (1000) and counts up to it; the adapter's D3 600 → 900.
 */
Test(report, sus_01_suspension_f1_and_d3_through_the_model)
{
	struct fsa_report *report = fsa_report_create(NULL);
	struct fsa_model *model = fsa_model_create(fsa_report_borrow_sink(report));
	const uint64_t ctx = 0x8002000000000002, q = 0x8003000000000005;
	JsonNode *root;

	cr_assert_not_null(model);
	fsa_report_set_model(report, model);
	feed_event(model, "fencescope_os:context_create", 10, "process_id", U64(1), "device_handle",
		   U64(0x8001000000000001), "context_handle", ctx, "engine_id", U64(1), NULL);
	feed_event(model, "fencescope_os:hwqueue_create", 20, "process_id", U64(1),
		   "context_handle", ctx, "hwqueue_handle", q, "engine_id", U64(1),
		   "submission_mode", U64(FSTP_SUBMISSION_MODE_USER_MODE), NULL);
	feed_event(model, "fencescope_kmd:context_suspend", 100, "adapter_id", U64(0),
		   "context_handle", ctx, "hwqueue_count", U64(1), NULL);
	feed_event(model, "fencescope_kmd:context_resume", 400, "adapter_id", U64(0),
		   "context_handle", ctx, "hwqueue_count", U64(1), NULL);
	feed_event(model, "fencescope_os:engine_power", 500, "adapter_id", U64(0), "engine_id",
		   U64(1), "old_state", U64(FSTP_ENGINE_POWER_F0), "new_state",
		   U64(FSTP_ENGINE_POWER_F1), NULL);
	feed_event(model, "fencescope_os:device_power", 600, "adapter_id", U64(0), "old_state",
		   U64(FSTP_DEVICE_POWER_D0), "new_state", U64(FSTP_DEVICE_POWER_D3), NULL);
	feed_event(model, "fencescope_os:device_power", 900, "adapter_id", U64(0), "old_state",
		   U64(FSTP_DEVICE_POWER_D3), "new_state", U64(FSTP_DEVICE_POWER_D0), NULL);
	feed_event(model, "fencescope_os:process_create", 1000, "process_id", U64(2), NULL);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	root = json_report(report);
	cr_assert_eq(count_at(root, "$.doorbells.queues[*]"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.queues[0].suspended_ns"), 300);
	cr_assert_eq(count_at(root, "$.doorbells.engines[*]"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].engine_id"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].suspended_ns"), 300);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].f1_count"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].f1_ns"), 500, "open: up to 1000");
	cr_assert_eq(int_at(root, "$.doorbells.engines[0].open_at_end"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.adapters[0].d3_count"), 1);
	cr_assert_eq(int_at(root, "$.doorbells.adapters[0].d3_ns"), 300);
	json_node_unref(root);
	fsa_report_destroy(report);
	fsa_model_destroy(model);
}

/* Without doorbell, suspend or power markers the section has only its two tables of old. */
Test(report, ums_no_doorbells_no_engine_or_adapter_table)
{
	struct fsa_report *report = fsa_report_create(NULL);
	const struct fsa_model_sink *sink = fsa_report_borrow_sink(report);
	struct fsa_marker m = make_marker(FSA_MARK_PREEMPTION, 0, 100, 600);
	JsonNode *root;

	sink->marker(sink->data, &m);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	root = json_report(report);
	cr_assert_eq(count_at(root, "$.doorbells.queues[*]"), 0);
	cr_assert_eq(count_at(root, "$.doorbells.reconnect[*]"), 1);
	cr_assert_eq(count_at(root, "$.doorbells.engines"), 0);
	cr_assert_eq(count_at(root, "$.doorbells.adapters"), 0);
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, losses_and_anomalies)
{
	struct fsa_report *report = fed_report(NULL);
	JsonNode *root = json_report(report);

	cr_assert_eq(int_at(root, "$.losses.summary.log_entries_lost"), 24);
	cr_assert_eq(int_at(root, "$.losses.summary.overruns"), 1);
	cr_assert_eq(int_at(root, "$.losses.summary.inferred_ops"), 1);
	cr_assert_eq(int_at(root, "$.losses.summary.tracer_discarded_events"), 5);
	cr_assert_eq(count_at(root, "$.losses.totals[*]"), 2);
	char *log = string_at(root, "$.losses.totals[0].log_type");

	cr_assert_str_eq(log, "signals");
	g_free(log);
	/* The loss kinds are the names docs/report-schema.md lists (it said tracer_events). */
	log = string_at(root, "$.losses.totals[0].kind");
	cr_assert_str_eq(log, "log_overrun");
	g_free(log);
	log = string_at(root, "$.losses.totals[1].kind");
	cr_assert_str_eq(log, "tracer_discarded_events");
	g_free(log);
	cr_assert_eq(int_at(root, "$.losses.totals[1].stream_id"), 3);
	cr_assert_eq(count_at(root, "$.losses.records[*]"), 2);
	cr_assert_eq(int_at(root, "$.losses.records[0].new_position"), 56);
	cr_assert_eq(int_at(root, "$.losses.records[0].inferred_ops"), 1);
	cr_assert_eq(count_at(root, "$.anomalies.counts[*]"), FSA_ANOM_KIND_COUNT);
	cr_assert_eq(int_at(root, "$.anomalies.counts[4].count"), 7);
	cr_assert_eq(count_at(root, "$.anomalies.examples[*]"), 5);
	cr_assert_eq(int_at(root, "$.anomalies.examples[4].ts_ns"), 4004);
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, time_filter_counts_overlapping_operations)
{
	struct fsa_report_options options = {
	    .begin = {.is_set = true, .ns = 2500},
	};
	struct fsa_report *report = fed_report(&options);
	JsonNode *root = json_report(report);

	/* Wait 1 (1000 → 3000) overlaps, wait 2 (2000 → 2100) does not. */
	cr_assert_eq(int_at(root, "$.latency.overall[0].count"), 1);
	cr_assert_eq(int_at(root, "$.latency.overall[0].total_ns"), 2000);
	cr_assert_eq(int_at(root, "$.summary.trace.filter_begin_ns"), 2500);
	cr_assert(is_null_at(root, "$.summary.trace.filter_end_ns"));
	/* The overrun (1000 → 2000) and the discard (400 → 450) lie before the range. */
	cr_assert_eq(int_at(root, "$.losses.summary.log_entries_lost"), 0);
	json_node_unref(root);
	fsa_report_destroy(report);

	options = (struct fsa_report_options){
	    .end = {.is_set = true, .ns = 1200},
	};
	report = fed_report(&options);
	root = json_report(report);
	/* Only the CPU wait (100 → 5000) and wait 1 (1000 → 3000) start by 1200. */
	cr_assert_eq(int_at(root, "$.latency.overall[0].count"), 1);
	cr_assert_eq(int_at(root, "$.latency.overall[4].count"), 1);
	cr_assert_eq(int_at(root, "$.latency.overall[3].count"), 1);
	json_node_unref(root);
	fsa_report_destroy(report);
}

/* Regression: a relative --end past the end of the trace clock wrapped around to before the
 * trace's start, so it filtered out what it should have kept. */
Test(report, relative_time_past_the_clock_end_saturates)
{
	struct fsa_report_options options = {
	    .end = {.is_set = true, .is_relative = true, .ns = UINT64_MAX - 500},
	};
	struct fsa_report *report = fsa_report_create(&options);
	struct fsa_model *model = fsa_model_create(NULL);
	struct fsa_event ev;
	JsonNode *root;

	cr_assert_not_null(report);
	cr_assert_not_null(model);
	/* The trace starts at 1000: origin + end would wrap to 499. */
	fsa_event_clear(&ev);
	ev.type = FSA_EV_PROCESS_CREATE;
	ev.ts_ns = 1000;
	cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK);
	fsa_report_set_model(report, model);
	feed(report);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	root = json_report(report);
	cr_assert_eq(int_at(root, "$.latency.overall[0].count"), 2, "waits 1 and 2 are in range");
	cr_assert(is_null_at(root, "$.summary.trace.filter_end_ns"));
	json_node_unref(root);
	fsa_report_destroy(report);
	fsa_model_destroy(model);
}

/* Regression: a process name that is not UTF-8 (it comes from the trace) went into the JSON as
 * is, and strict parsers rejected the whole report; the text writer counted its width with
 * g_utf8_strlen, which reads past the end of such a string. Such bytes become U+FFFD. */
Test(report, names_that_are_not_utf8_are_replaced)
{
	struct fsa_report *report = fsa_report_create(NULL);
	struct fsa_model *model = fsa_model_create(NULL);
	struct fsa_event ev;
	JsonNode *root;
	char *name, *text;

	cr_assert_not_null(report);
	cr_assert_not_null(model);
	fsa_event_clear(&ev);
	ev.type = FSA_EV_PROCESS_CREATE;
	ev.ts_ns = 10;
	fsa_event_set(&ev, FSA_F_PROCESS_ID, 1);
	ev.s[FSA_S_NAME] = "ab\xf0";
	cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	fsa_report_set_model(report, model);
	feed(report);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	text = write_report(report, FSA_REPORT_FORMAT_TEXT);
	cr_assert(g_utf8_validate(text, -1, NULL));
	free(text);
	root = json_report(report);
	name = string_at(root, "$.latency.processes[0].name");
	cr_assert_str_eq(name, "ab\xef\xbf\xbd");
	g_free(name);
	json_node_unref(root);
	fsa_report_destroy(report);
	fsa_model_destroy(model);
}

Test(report, sections_select_what_is_written)
{
	struct fsa_report_options options = {.sections = FSA_REPORT_LOSSES};
	struct fsa_report *report = fed_report(&options);
	JsonNode *root = json_report(report);

	cr_assert_eq(count_at(root, "$.losses"), 1);
	cr_assert_eq(count_at(root, "$.summary"), 0);
	cr_assert_eq(count_at(root, "$.latency"), 0);
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, thresholds_fail_and_pass)
{
	struct fsa_report_options options = {.is_fail_on_loss = true};
	struct fsa_report *report = fsa_report_create(&options);
	static const char *const failing[] = {
	    "p99(wait)>1us",
	    "count(anomaly)>0",
	    "lost(log)>0",
	    "count(anomaly, kind=wait_never_unblocked)>=7",
	    "max(cpu_wait, process=1)==4900",
	    "count(inferred, queue=0x20)>0",
	    "lost(log, queue=0x20)==24",
	};
	static const char *const passing[] = {
	    "max(signal)>=5ms",          "p95(wait, queue=0x10)>1ms",
	    "count(wait, queue=0x99)>0", "p99(wait, queue=0x99)>0",
	    "lost(packets)>0",           "count(anomaly, kind=value_regression)>0",
	};

	for (size_t i = 0; i < sizeof(failing) / sizeof(failing[0]); i++)
		cr_assert_eq(fsa_report_add_threshold(report, failing[i], NULL), FSA_OK);
	for (size_t i = 0; i < sizeof(passing) / sizeof(passing[0]); i++)
		cr_assert_eq(fsa_report_add_threshold(report, passing[i], NULL), FSA_OK);
	feed(report);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	/* --fail-on-loss first, then the failing thresholds in the order given. */
	cr_assert_eq(fsa_report_failure_count(report), 1 + sizeof(failing) / sizeof(failing[0]));
	cr_assert(strstr(fsa_report_borrow_failure(report, 0), "--fail-on-loss: 24 fence log"));
	cr_assert_str_eq(fsa_report_borrow_failure(report, 1), "p99(wait)>1us: measured 2.000 µs");
	cr_assert_str_eq(fsa_report_borrow_failure(report, 3), "lost(log)>0: measured 24");
	JsonNode *root = json_report(report);

	cr_assert_eq(count_at(root, "$.thresholds.results[*]"), 14);
	json_node_unref(root);
	fsa_report_destroy(report);
}

Test(report, text_and_csv_carry_the_same_numbers)
{
	struct fsa_report *report = fed_report(NULL);
	char *text = write_report(report, FSA_REPORT_FORMAT_TEXT);
	char *csv = write_report(report, FSA_REPORT_FORMAT_CSV);

	cr_assert(strstr(text, "LATENCY\n=======\n"), "%s", text);
	cr_assert(strstr(text, "4.900 µs"), "%s", text);
	cr_assert(strstr(text, "0x20"), "%s", text);
	cr_assert(strstr(csv, "section,table,metric,count,min_ns,p50_ns,p95_ns,p99_ns,max_ns,"
			      "total_ns,is_exact\n"),
		  "%s", csv);
	cr_assert(strstr(csv, "\nlatency,overall,wait,2,100,100,2000,2000,2000,2100,true\n"), "%s",
		  csv);
	cr_assert(
	    strstr(csv, "\nlosses,records,log_overrun,24,1000,2000,0,0x20,signals,16,56,1,,\n"),
	    "%s", csv);
	free(text);
	free(csv);
	fsa_report_destroy(report);
}

Test(report, empty_report_is_well_formed)
{
	struct fsa_report *report = fsa_report_create(NULL);

	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	JsonNode *root = json_report(report);

	cr_assert_eq(int_at(root, "$.latency.overall[0].count"), 0);
	cr_assert(is_null_at(root, "$.latency.overall[0].p99_ns"));
	cr_assert_eq(count_at(root, "$.longest.waits[*]"), 0);
	json_node_unref(root);
	char *text = write_report(report, FSA_REPORT_FORMAT_TEXT);

	cr_assert(strstr(text, "(no completed wait)"), "%s", text);
	free(text);
	fsa_report_destroy(report);
}

/* Runs one reader (argv, with "FILE" as the report's path) over TEXT, a JSON report, and
 * returns what it printed. */
static char *
read_with(const char *text, const char *const *argv)
{
	char path[] = "/tmp/fst-report-json-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	GPtrArray *args = g_ptr_array_new();
	char *out = NULL, *err = NULL;
	int status = -1;

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	for (size_t i = 0; argv[i]; i++)
		g_ptr_array_add(args, strcmp(argv[i], "FILE") == 0 ? path : (char *) argv[i]);
	g_ptr_array_add(args, NULL);
	cr_assert(g_spawn_sync(NULL, (char **) args->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
			       &out, &err, &status, NULL));
	cr_expect(g_spawn_check_wait_status(status, NULL), "%s rejected the report: %s", argv[0],
		  err);
	g_ptr_array_unref(args);
	g_free(err);
	unlink(path);
	return out;
}

/* Regression: json-glib wrote a U+001F in a process name raw (python's json and jq reject the
 * whole report), u64 values above 2^63 as negative numbers, and times above 2^53 as numbers
 * that every double-based reader rounds. Integers above 2^53 are now decimal strings and every
 * control character is escaped. */
Test(report, json_is_strict_and_readers_get_every_integer_exactly)
{
	struct fsa_report *report = fsa_report_create(NULL);
	struct fsa_model *model = fsa_model_create(NULL);
	const struct fsa_model_sink *sink = fsa_report_borrow_sink(report);
	const uint64_t t0 = 1795306066865228219ULL; /* a trace time: above 2^53 */
	struct fsa_event ev;
	struct fsa_op op;
	char *text;

	fsa_event_clear(&ev);
	ev.type = FSA_EV_PROCESS_CREATE;
	ev.ts_ns = t0;
	fsa_event_set(&ev, FSA_F_PROCESS_ID, 1);
	ev.s[FSA_S_NAME] = "a\x1f"
			   "b\x01\x7f\"\\";
	cr_assert_eq(fsa_model_add_event(model, &ev), FSA_OK);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	fsa_report_set_model(report, model);
	op = make_op(1, FSA_OP_WAIT, FSA_SRC_USER_MODE_QUEUE, 0x10, 1, 0xf1, t0 + 1, NONE, t0 + 3);
	op.fence_value = 9223372036854775813ULL; /* 2^63 + 5 */
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	op = make_op(2, FSA_OP_WAIT, FSA_SRC_USER_MODE_QUEUE, 0x10, 1, 0xf1, t0 + 2, NONE, t0 + 3);
	op.fence_value = 9007199254740993ULL; /* 2^53 + 1 */
	cr_assert_eq(sink->op(sink->data, &op), FSA_OK);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	text = write_report(report, FSA_REPORT_FORMAT_JSON);
	/* python's json.load is strict by default: a raw control character is an error. */
	const char *python[] = {"python3", "-c",
				"import json, sys\n"
				"r = json.load(open(sys.argv[1]))\n"
				"w = r[\"longest\"][\"waits\"]\n"
				"print(str(r[\"latency\"][\"processes\"][0][\"name\"] == "
				"\"a\\x1fb\\x01\\x7f\\\"\\\\\").lower())\n"
				"print(int(w[0][\"queued_ns\"]), int(w[0][\"fence_value\"]), "
				"int(w[1][\"fence_value\"]), "
				"w[0][\"duration_ns\"], sep=\"\\n\")\n",
				"FILE", NULL};
	const char *jq[] = {"jq", "-r",
			    "(.latency.processes[0].name == \"a\\u001fb\\u0001\\u007f\\\"\\\\\"), "
			    "(.longest.waits[0] | .queued_ns, .fence_value), "
			    ".longest.waits[1].fence_value, .longest.waits[0].duration_ns",
			    "FILE", NULL};
	const char *expected = "true\n1795306066865228220\n9223372036854775813\n"
			       "9007199254740993\n2\n";
	char *out = read_with(text, python);

	cr_expect_str_eq(out, expected, "python3 read:\n%s", out);
	g_free(out);
	out = read_with(text, jq);
	cr_expect_str_eq(out, expected, "jq read:\n%s", out);
	g_free(out);
	free(text);
	fsa_report_destroy(report);
	fsa_model_destroy(model);
}

/* A trace whose adapter has no clock pair (a recording at --loglevel INFO: clock_correlation is a
 * DEBUG event). The model knows the adapter from adapter_create, with a fit of 0 pairs; the
 * report called its GPU time "correlated". It must say the GPU times were not placed, in the
 * summary and in the clock section, in JSON and text; with a pair, it says correlated and has no
 * such table. */
static struct fsa_report *
report_of_one_adapter(bool has_pair, struct fsa_model **model)
{
	struct fsa_report *report = fsa_report_create(NULL);
	struct fsa_event ev;

	*model = fsa_model_create(fsa_report_borrow_sink(report));
	fsa_report_set_model(report, *model);
	fsa_event_clear(&ev);
	ev.type = FSA_EV_TRACE_INFO;
	ev.ts_ns = 1000;
	fsa_event_set(&ev, FSA_F_FORMAT_MAJOR, 1);
	fsa_event_set(&ev, FSA_F_FORMAT_MINOR, 5);
	fsa_event_set(&ev, FSA_F_CLOCK_MODE, FSTP_CLOCK_MODE_SIM);
	cr_assert_eq(fsa_model_add_event(*model, &ev), FSA_OK);
	fsa_event_clear(&ev);
	ev.type = FSA_EV_ADAPTER_CREATE;
	ev.ts_ns = 1000;
	fsa_event_set(&ev, FSA_F_ADAPTER_ID, 0);
	fsa_event_set(&ev, FSA_F_ENGINE_COUNT, 1);
	fsa_event_set(&ev, FSA_F_GPU_TS_FREQUENCY_HZ, 1000000000);
	cr_assert_eq(fsa_model_add_event(*model, &ev), FSA_OK);
	if (has_pair) {
		fsa_event_clear(&ev);
		ev.type = FSA_EV_CLOCK_CORRELATION;
		ev.ts_ns = 2000;
		fsa_event_set(&ev, FSA_F_ADAPTER_ID, 0);
		fsa_event_set(&ev, FSA_F_CPU_TS_NS, 2000);
		fsa_event_set(&ev, FSA_F_GPU_TS, 2000);
		fsa_event_set(&ev, FSA_F_GPU_TS_FREQUENCY_HZ, 1000000000);
		cr_assert_eq(fsa_model_add_event(*model, &ev), FSA_OK);
	}
	cr_assert_eq(fsa_model_finish(*model), FSA_OK);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	return report;
}

Test(report, an_adapter_without_clock_pairs_is_not_called_correlated)
{
	struct fsa_model *model;
	struct fsa_report *report = report_of_one_adapter(false, &model);
	JsonNode *root = json_report(report);
	char *gpu_time = string_at(root, "$.summary.trace.gpu_time");
	char *reason = string_at(root, "$.clocks.not_placed[0].reason");
	char *text = write_report(report, FSA_REPORT_FORMAT_TEXT);

	cr_assert_str_eq(gpu_time, "not_placed");
	cr_assert_eq(int_at(root, "$.clocks.not_placed[0].adapter_id"), 0);
	cr_assert_eq(int_at(root, "$.clocks.fits[0].pairs"), 0);
	cr_assert(g_str_has_prefix(reason, "no clock pair: GPU times not placed"), "%s", reason);
	cr_assert_null(strstr(text, "correlated"), "%s", text);
	cr_assert_not_null(strstr(text, "no clock pair: GPU times not placed"), "%s", text);
	g_free(gpu_time);
	g_free(reason);
	free(text);
	json_node_unref(root);
	fsa_report_destroy(report);
	fsa_model_destroy(model);

	report = report_of_one_adapter(true, &model);
	root = json_report(report);
	gpu_time = string_at(root, "$.summary.trace.gpu_time");
	cr_assert_str_eq(gpu_time, "correlated");
	cr_assert_eq(int_at(root, "$.clocks.fits[0].pairs"), 1);
	text = write_report(report, FSA_REPORT_FORMAT_TEXT);
	cr_assert_null(strstr(text, "not placed"), "%s", text);
	g_free(gpu_time);
	free(text);
	json_node_unref(root);
	fsa_report_destroy(report);
	fsa_model_destroy(model);
}
