/* SPDX-License-Identifier: MIT */
/*
 * Report schema 2.2 through the model, from synthetic format 1.4 events: preemption latency per
 * engine, reason and granularity, time slices, contexts, resubmissions (PRE-03, PRE-06, PRE-07,
 * PRE-15), TDR sequences (TDR-01..06), display statistics (PRE-13) and the fault accounting of
 * docs/report-schema.md `faults`, one positive and one negative case per fault kind. Every
 * expected number is computed by hand from the events below.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-glib/json-glib.h>

#include "fencescope-tp-enums.h"
#include "fsa/model.h"
#include "fsa/report.h"

#define U64(x) ((uint64_t) (x))
#define DEV    U64(0x8001000000000001)
#define CTX_A  U64(0x8002000000000002)
#define CTX_B  U64(0x8002000000000003)
#define CTX_C  U64(0x8002000000000004)
#define QA     U64(0x8003000000000005)
#define QB     U64(0x8003000000000007)
#define QC     U64(0x8003000000000009)

static struct fsa_report *report;
static struct fsa_model *model;

static void
setup_with(const struct fsa_report_options *options)
{
	report = fsa_report_create(options);
	cr_assert_not_null(report);
	model = fsa_model_create(fsa_report_borrow_sink(report));
	cr_assert_not_null(model);
	fsa_report_set_model(report, model);
}

static void
teardown(void)
{
	fsa_report_destroy(report);
	fsa_model_destroy(model);
	report = NULL;
	model = NULL;
}

static void
ev(const char *name, uint64_t ts, ...)
{
	struct fsa_event e;
	va_list args;
	const char *field;

	fsa_event_clear(&e);
	e.type = fsa_event_type_from_name(name);
	e.ts_ns = ts;
	cr_assert_neq(e.type, FSA_EV_UNKNOWN, "%s", name);
	va_start(args, ts);
	while ((field = va_arg(args, const char *))) {
		int slot = fsa_field_from_name(field);

		cr_assert_geq(slot, 0, "%s", field);
		fsa_event_set(&e, (enum fsa_field) slot, va_arg(args, uint64_t));
	}
	va_end(args);
	cr_assert_eq(fsa_model_add_event(model, &e), FSA_OK);
}

/* Adapter 0: engine 0 3D (pixel boundary), engine 1 compute (thread group boundary); process 1
 * with contexts A and B on engine 0 (queues QA, QB) and C on engine 1 (QC), all kernel mode. */
static void
objects(uint64_t ts)
{
	ev("trace_info", ts, "format_major", U64(1), "format_minor", U64(4), NULL);
	ev("engine_describe", ts, "adapter_id", U64(0), "engine_id", U64(0), "engine_type",
	   U64(FSTP_ENGINE_TYPE_GRAPHICS_3D), "preempt_granularity",
	   U64(FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY), "compute_preempt_granularity",
	   U64(FSTP_PREEMPT_GRANULARITY_SHADER_BOUNDARY), "is_preemption_aware", U64(1), NULL);
	ev("engine_describe", ts, "adapter_id", U64(0), "engine_id", U64(1), "engine_type",
	   U64(FSTP_ENGINE_TYPE_COMPUTE), "preempt_granularity",
	   U64(FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY), "compute_preempt_granularity",
	   U64(FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY), "is_preemption_aware",
	   U64(1), NULL);
	ev("process_create", ts, "process_id", U64(1), NULL);
	ev("device_create", ts, "process_id", U64(1), "adapter_id", U64(0), "device_handle", DEV,
	   NULL);
	ev("context_create", ts, "process_id", U64(1), "device_handle", DEV, "context_handle",
	   CTX_A, "engine_id", U64(0), NULL);
	ev("context_create", ts, "process_id", U64(1), "device_handle", DEV, "context_handle",
	   CTX_B, "engine_id", U64(0), NULL);
	ev("context_create", ts, "process_id", U64(1), "device_handle", DEV, "context_handle",
	   CTX_C, "engine_id", U64(1), NULL);
	ev("hwqueue_create", ts, "process_id", U64(1), "context_handle", CTX_A, "hwqueue_handle",
	   QA, "engine_id", U64(0), "submission_mode", U64(FSTP_SUBMISSION_MODE_KERNEL_MODE), NULL);
	ev("hwqueue_create", ts, "process_id", U64(1), "context_handle", CTX_B, "hwqueue_handle",
	   QB, "engine_id", U64(0), "submission_mode", U64(FSTP_SUBMISSION_MODE_KERNEL_MODE), NULL);
	ev("hwqueue_create", ts, "process_id", U64(1), "context_handle", CTX_C, "hwqueue_handle",
	   QC, "engine_id", U64(1), "submission_mode", U64(FSTP_SUBMISSION_MODE_KERNEL_MODE), NULL);
}

static void
packet(uint64_t id, uint64_t queue, uint64_t engine, uint64_t fence_id, uint64_t resub,
       uint64_t paging, uint64_t start, uint64_t end, uint64_t status)
{
	ev("packet_queued", start - 5, "adapter_id", U64(0), "engine_id", engine, "hwqueue_handle",
	   queue, "packet_id", id, "resubmission_of", resub, "is_paging", paging, "fence_id",
	   fence_id, NULL);
	ev("packet_start", start, "adapter_id", U64(0), "engine_id", engine, "hwqueue_handle",
	   queue, "packet_id", id, "progress_value", id, NULL);
	if (end)
		ev("packet_end", end, "adapter_id", U64(0), "engine_id", engine, "hwqueue_handle",
		   queue, "packet_id", id, "progress_value", id, "status", status, NULL);
}

static void
preempt(uint64_t request, uint64_t engine, uint64_t reason, uint64_t at, uint64_t done,
	uint64_t packet_id, uint64_t granularity)
{
	ev("preempt_request", at, "adapter_id", U64(0), "engine_id", engine, "context_handle",
	   CTX_A, "request_id", request, "reason", reason, NULL);
	if (done)
		ev("preempt_complete", done, "adapter_id", U64(0), "engine_id", engine,
		   "context_handle", CTX_A, "request_id", request, "packet_id", packet_id,
		   "granularity", granularity, "work_left_ticks", U64(7), NULL);
}

static void
fault(uint64_t ts, uint64_t engine, uint64_t queue, uint64_t kind, uint64_t detail)
{
	ev("fault_injected", ts, "adapter_id", U64(0), "engine_id", engine, "hwqueue_handle", queue,
	   "kind", kind, "detail", detail, NULL);
}

static JsonNode *
finish_json(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out;
	GError *error = NULL;
	JsonNode *root;

	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	out = open_memstream(&text, &size);
	cr_assert_eq(fsa_report_write(report, FSA_REPORT_FORMAT_JSON, out), FSA_OK);
	fclose(out);
	root = json_from_string(text, &error);
	cr_assert_not_null(root, "%s", error ? error->message : "");
	free(text);
	return root;
}

static JsonArray *
query(JsonNode *root, const char *path, JsonNode **result)
{
	*result = json_path_query(path, root, NULL);
	return json_node_get_array(*result);
}

static gint64
int_at(JsonNode *root, const char *path)
{
	JsonNode *result;
	JsonArray *array = query(root, path, &result);
	gint64 value;

	cr_assert_eq(json_array_get_length(array), 1, "%s matched %u values", path,
		     json_array_get_length(array));
	cr_assert_eq(json_node_get_value_type(json_array_get_element(array, 0)), G_TYPE_INT64,
		     "%s is not an integer", path);
	value = json_array_get_int_element(array, 0);
	json_node_unref(result);
	return value;
}

static void
assert_str_at(JsonNode *root, const char *path, const char *expected)
{
	JsonNode *result;
	JsonArray *array = query(root, path, &result);

	cr_assert_eq(json_array_get_length(array), 1, "%s matched %u values", path,
		     json_array_get_length(array));
	cr_assert_str_eq(json_array_get_string_element(array, 0), expected, "%s", path);
	json_node_unref(result);
}

static bool
bool_at(JsonNode *root, const char *path)
{
	JsonNode *result;
	JsonArray *array = query(root, path, &result);
	bool value;

	cr_assert_eq(json_array_get_length(array), 1, "%s matched %u values", path,
		     json_array_get_length(array));
	value = json_array_get_boolean_element(array, 0);
	json_node_unref(result);
	return value;
}

static bool
is_null_at(JsonNode *root, const char *path)
{
	JsonNode *result;
	JsonArray *array = query(root, path, &result);
	bool is_null = json_array_get_length(array) == 1 && json_array_get_null_element(array, 0);

	json_node_unref(result);
	return is_null;
}

static size_t
count_at(JsonNode *root, const char *path)
{
	JsonNode *result;
	size_t n = json_array_get_length(query(root, path, &result));

	json_node_unref(result);
	return n;
}

TestSuite(recovery, .fini = teardown);

/*
 * Packet 1 (context A) runs 100 → 1150 and a TIME_SLICE preemption (1100 → 1150, pixel
 * boundary) ends it; packet 2 (B) runs 1160 → 2200, preempted at the DMA buffer boundary
 * (2160 → 2200); packet 3 resubmits 1 with a new fence id (PRE-07), packet 4 resubmits the
 * paging packet 2 with its fence id (PRE-06); a PRIORITY request at 3100 never completes.
 */
Test(recovery, pre_15_preemption_latency_slices_contexts_and_resubmissions)
{
	JsonNode *root;

	setup_with(NULL);
	objects(10);
	ev("context_schedule", 11, "adapter_id", U64(0), "process_id", U64(1), "context_handle",
	   CTX_A, "engine_id", U64(0), "priority", U64(2), "time_slice_ns", U64(1000), NULL);
	ev("context_schedule", 11, "adapter_id", U64(0), "process_id", U64(1), "context_handle",
	   CTX_B, "engine_id", U64(0), "priority", U64(3), "time_slice_ns", U64(1000), NULL);
	ev("context_schedule", 11, "adapter_id", U64(0), "process_id", U64(1), "context_handle",
	   CTX_B, "engine_id", U64(0), "priority", U64(5), "time_slice_ns", U64(1000), NULL);
	packet(1, QA, 0, 11, 0, 0, 100, 0, 0);
	preempt(1, 0, FSTP_PREEMPT_REASON_TIME_SLICE, 1100, 0, 1, 0);
	ev("packet_end", 1150, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QA,
	   "packet_id", U64(1), "progress_value", U64(1), "status",
	   U64(FSTP_PACKET_STATUS_PREEMPTED), NULL);
	ev("preempt_complete", 1150, "adapter_id", U64(0), "engine_id", U64(0), "context_handle",
	   CTX_A, "request_id", U64(1), "packet_id", U64(1), "granularity",
	   U64(FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY), "work_left_ticks", U64(9), NULL);
	packet(2, QB, 0, 12, 0, 1, 1160, 0, 0);
	preempt(2, 0, FSTP_PREEMPT_REASON_TIME_SLICE, 2160, 0, 2, 0);
	ev("preempt_complete", 2200, "adapter_id", U64(0), "engine_id", U64(0), "context_handle",
	   CTX_B, "request_id", U64(2), "packet_id", U64(2), "granularity",
	   U64(FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY), NULL);
	ev("packet_end", 2200, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QB,
	   "packet_id", U64(2), "progress_value", U64(2), "status",
	   U64(FSTP_PACKET_STATUS_PREEMPTED), NULL);
	packet(3, QA, 0, 13, 1, 0, 2210, 2710, FSTP_PACKET_STATUS_COMPLETED);
	packet(4, QB, 0, 12, 2, 1, 2720, 3000, FSTP_PACKET_STATUS_COMPLETED);
	preempt(3, 0, FSTP_PREEMPT_REASON_PRIORITY, 3100, 0, 0, 0);
	root = finish_json();

	cr_assert_eq(count_at(root, "$.preemption.latency[*]"), 3);
	assert_str_at(root, "$.preemption.latency[0].reason", "time_slice");
	assert_str_at(root, "$.preemption.latency[0].granularity", "dma_buffer_boundary");
	cr_assert_eq(int_at(root, "$.preemption.latency[0].max_ns"), 40);
	assert_str_at(root, "$.preemption.latency[1].granularity", "pixel_or_thread_boundary");
	cr_assert_eq(int_at(root, "$.preemption.latency[1].p50_ns"), 50);
	assert_str_at(root, "$.preemption.latency[2].reason", "priority");
	assert_str_at(root, "$.preemption.latency[2].granularity", "not_completed");
	cr_assert_eq(int_at(root, "$.preemption.latency[2].count"), 1);
	cr_assert(is_null_at(root, "$.preemption.latency[2].p50_ns"));

	cr_assert_eq(count_at(root, "$.preemption.slices[*]"), 1);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].packets"), 4);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].preempted"), 2);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].resubmissions"), 2);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].count"), 2, "two time slices");
	cr_assert_eq(int_at(root, "$.preemption.slices[0].min_ns"), 1040);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].max_ns"), 1050);

	cr_assert_eq(count_at(root, "$.preemption.contexts[*]"), 3);
	cr_assert_eq(int_at(root, "$.preemption.contexts[0].priority"), 2);
	cr_assert_eq(int_at(root, "$.preemption.contexts[0].time_slice_ns"), 1000);
	cr_assert_eq(int_at(root, "$.preemption.contexts[0].count"), 1);
	cr_assert_eq(int_at(root, "$.preemption.contexts[0].max_ns"), 1050);
	cr_assert_eq(int_at(root, "$.preemption.contexts[1].priority"), 5);
	cr_assert_eq(int_at(root, "$.preemption.contexts[1].priority_min"), 3);
	cr_assert_eq(int_at(root, "$.preemption.contexts[1].priority_max"), 5);
	cr_assert_eq(int_at(root, "$.preemption.contexts[1].max_ns"), 1040);
	cr_assert(is_null_at(root, "$.preemption.contexts[2].priority"), "no context_schedule");
	cr_assert(is_null_at(root, "$.preemption.contexts[2].error_reason"));

	cr_assert_eq(int_at(root, "$.preemption.resubmission_summary.resubmissions"), 2);
	cr_assert_eq(int_at(root, "$.preemption.resubmission_summary.paging"), 1);
	cr_assert_eq(int_at(root, "$.preemption.resubmission_summary.same_fence_id"), 1);
	cr_assert_eq(int_at(root, "$.preemption.resubmission_summary.paging_same_fence_id"), 1);
	cr_assert_eq(int_at(root, "$.preemption.resubmissions[0].packet_id"), 3);
	cr_assert_eq(int_at(root, "$.preemption.resubmissions[0].old_fence_id"), 11);
	cr_assert_eq(int_at(root, "$.preemption.resubmissions[0].new_fence_id"), 13);
	cr_assert_eq(int_at(root, "$.preemption.resubmissions[1].old_fence_id"), 12);
	cr_assert_eq(int_at(root, "$.preemption.resubmissions[1].new_fence_id"), 12);
	cr_assert(bool_at(root, "$.preemption.resubmissions[1].is_paging"));
	cr_assert_eq(count_at(root, "$.faults.kinds[*]"), 0, "nothing injected: empty");
	json_node_unref(root);
}

/* PRE-15: a ring submission resumes under its packet id, so one id names two preempted pieces
 * and two TIME_SLICE preemptions: both are slices (300 and 200 ns), matched in order. */
Test(recovery, pre_15_a_ring_packet_preempted_twice_makes_two_slices)
{
	JsonNode *root;

	setup_with(NULL);
	objects(10);
	packet(1, QA, 0, 0, 0, 0, 100, 0, 0);
	preempt(1, 0, FSTP_PREEMPT_REASON_TIME_SLICE, 390, 400, 1,
		FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY);
	ev("packet_end", 400, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QA,
	   "packet_id", U64(1), "progress_value", U64(1), "status",
	   U64(FSTP_PACKET_STATUS_PREEMPTED), NULL);
	ev("packet_start", 500, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QA,
	   "packet_id", U64(1), "progress_value", U64(1), NULL);
	preempt(2, 0, FSTP_PREEMPT_REASON_TIME_SLICE, 690, 700, 1,
		FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY);
	ev("packet_end", 700, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QA,
	   "packet_id", U64(1), "progress_value", U64(1), "status",
	   U64(FSTP_PACKET_STATUS_PREEMPTED), NULL);
	root = finish_json();
	cr_assert_eq(int_at(root, "$.preemption.slices[0].preempted"), 2);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].count"), 2);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].min_ns"), 200);
	cr_assert_eq(int_at(root, "$.preemption.slices[0].max_ns"), 300);
	json_node_unref(root);
}

/*
 * TDR-01..06: engine 0 hangs on packet 1 (from 100); detected at 2000 after 1900 ns, the TDR
 * preemption (2001) never completes, recovery 2100 → 2200: the engine reset fails and is
 * promoted to an adapter reset, context A is put in error, its device lost, packet 1 aborted at
 * 2150 (2050 ns of GPU time lost). Engine 1's detection at 4000 is resolved by its preemption.
 */
Test(recovery, tdr_01_06_sequences_in_order_with_the_work_lost)
{
	JsonNode *root;

	setup_with(NULL);
	objects(10);
	fault(50, 0, QA, FSTP_FAULT_KIND_HUNG_ENGINE, 1);
	packet(1, QA, 0, 11, 0, 0, 100, 0, 0);
	ev("fence_signal_queued", 101, "process_id", U64(1), "hwqueue_handle", QA, "fence_handle",
	   U64(0x40), "fence_value", U64(1), "progress_value", U64(1), NULL);
	ev("tdr_detect", 2000, "adapter_id", U64(0), "engine_id", U64(0), "context_handle", CTX_A,
	   "reason", U64(FSTP_LOSS_REASON_TIMEOUT), "stalled_ns", U64(1900), NULL);
	preempt(9, 0, FSTP_PREEMPT_REASON_TDR, 2001, 0, 0, 0);
	ev("tdr_begin", 2100, "adapter_id", U64(0), "engine_id", U64(0), "reason",
	   U64(FSTP_LOSS_REASON_TIMEOUT), "context_handle", CTX_A, NULL);
	ev("packet_end", 2150, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QA,
	   "packet_id", U64(1), "progress_value", U64(1), "status", U64(FSTP_PACKET_STATUS_ABORTED),
	   NULL);
	ev("engine_reset", 2160, "adapter_id", U64(0), "engine_id", U64(0), "is_success", U64(0),
	   NULL);
	ev("adapter_reset", 2170, "adapter_id", U64(0), "is_success", U64(1), NULL);
	ev("context_error", 2180, "adapter_id", U64(0), "process_id", U64(1), "device_handle", DEV,
	   "context_handle", CTX_A, "reason", U64(FSTP_LOSS_REASON_TIMEOUT), NULL);
	ev("device_lost", 2190, "process_id", U64(1), "device_handle", DEV, "reason",
	   U64(FSTP_LOSS_REASON_TIMEOUT), NULL);
	ev("tdr_end", 2200, "adapter_id", U64(0), "engine_id", U64(0), "result",
	   U64(FSTP_TDR_RESULT_ADAPTER_RESET), NULL);
	ev("context_destroy", 3000, "process_id", U64(1), "device_handle", DEV, "context_handle",
	   CTX_A, "engine_id", U64(0), NULL);
	ev("tdr_detect", 4000, "adapter_id", U64(0), "engine_id", U64(1), "context_handle", CTX_C,
	   "reason", U64(FSTP_LOSS_REASON_TIMEOUT), "stalled_ns", U64(3000), NULL);
	preempt(10, 1, FSTP_PREEMPT_REASON_TDR, 4001, 4050, 0,
		FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY);
	root = finish_json();

	cr_assert_eq(count_at(root, "$.tdr.sequences[*]"), 2);
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].engine_id"), 0);
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].stalled_ns"), 1900);
	assert_str_at(root, "$.tdr.sequences[0].reason", "timeout");
	cr_assert(!bool_at(root, "$.tdr.sequences[0].preempt_completed"));
	assert_str_at(root, "$.tdr.sequences[0].result", "adapter_reset");
	cr_assert(!bool_at(root, "$.tdr.sequences[0].engine_reset"));
	cr_assert(bool_at(root, "$.tdr.sequences[0].adapter_reset"));
	assert_str_at(root, "$.tdr.sequences[0].guilty_context_handle", "0x8002000000000002");
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].guilty_process_id"), 1);
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].contexts_in_error"), 1);
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].devices_lost"), 1);
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].packets_lost"), 1);
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].lost_gpu_ns"), 2050);
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].guilty_unsignalled"), 1);
	cr_assert_eq(int_at(root, "$.tdr.sequences[1].engine_id"), 1);
	cr_assert(bool_at(root, "$.tdr.sequences[1].preempt_completed"));
	assert_str_at(root, "$.tdr.sequences[1].result", "preempted");
	cr_assert(is_null_at(root, "$.tdr.sequences[1].tdr_begin_ns"));
	cr_assert(is_null_at(root, "$.tdr.sequences[1].engine_reset"));
	cr_assert_eq(count_at(root, "$.tdr.context_errors[*]"), 1);
	cr_assert_eq(int_at(root, "$.tdr.context_errors[0].end_ns"), 3000, "until destroyed");
	assert_str_at(root, "$.preemption.contexts[0].error_reason", "timeout");
	assert_str_at(root, "$.faults.kinds[0].kind", "hung_engine");
	cr_assert_eq(int_at(root, "$.faults.kinds[0].injected"), 1);
	cr_assert_eq(int_at(root, "$.faults.kinds[0].accounted"), 1);
	cr_assert_eq(count_at(root, "$.faults.unaccounted[*]"), 0);
	json_node_unref(root);
}

/* PRE-13: vsyncs every 1000 ns; flip 1 (1500) lands at vsync 2, flip 2 (2100) misses vsync 3
 * and lands at 4, flip 3 (4100) is still pending at the end. */
Test(recovery, pre_13_vsync_period_flip_latency_and_missed_vsyncs)
{
	JsonNode *root;

	setup_with(NULL);
	objects(10);
	for (uint64_t v = 1; v <= 4; v++) {
		ev("vsync", 1000 * v, "adapter_id", U64(0), "source_id", U64(0), "vsync_count", v,
		   "flip_id",
		   U64(v == 2   ? 1
		       : v == 4 ? 2
				: 0),
		   NULL);
		if (v == 2 || v == 4)
			ev("flip_done", 1000 * v + 1, "adapter_id", U64(0), "source_id", U64(0),
			   "flip_id", U64(v / 2), "vsync_count", v, NULL);
		if (v == 1)
			ev("flip_queued", 1500, "adapter_id", U64(0), "source_id", U64(0),
			   "process_id", U64(1), "context_handle", CTX_A, "flip_id", U64(1), NULL);
		if (v == 2)
			ev("flip_queued", 2100, "adapter_id", U64(0), "source_id", U64(0),
			   "process_id", U64(1), "context_handle", CTX_A, "flip_id", U64(2), NULL);
	}
	ev("flip_queued", 4100, "adapter_id", U64(0), "source_id", U64(0), "process_id", U64(1),
	   "context_handle", CTX_A, "flip_id", U64(3), NULL);
	root = finish_json();
	cr_assert_eq(count_at(root, "$.display.displays[*]"), 1);
	cr_assert_eq(int_at(root, "$.display.displays[0].vsyncs"), 4);
	cr_assert_eq(int_at(root, "$.display.displays[0].period_min_ns"), 1000);
	cr_assert_eq(int_at(root, "$.display.displays[0].period_max_ns"), 1000);
	cr_assert_eq(int_at(root, "$.display.displays[0].flips_queued"), 3);
	cr_assert_eq(int_at(root, "$.display.displays[0].flips_done"), 2);
	cr_assert_eq(int_at(root, "$.display.displays[0].flips_pending"), 1);
	cr_assert_eq(int_at(root, "$.display.displays[0].missed_vsync"), 1);
	cr_assert_eq(int_at(root, "$.display.displays[0].latency_min_ns"), 501);
	cr_assert_eq(int_at(root, "$.display.displays[0].latency_max_ns"), 1901);
	json_node_unref(root);
}

/* The kinds row of KIND (rows in fault_kind order, only kinds injected). */
static gint64
kind_count(JsonNode *root, const char *kind, const char *column)
{
	size_t rows = count_at(root, "$.faults.kinds[*]");

	for (size_t i = 0; i < rows; i++) {
		char *path = g_strdup_printf("$.faults.kinds[%zu].kind", i);
		JsonNode *result;
		JsonArray *array = query(root, path, &result);
		bool is_it = strcmp(json_array_get_string_element(array, 0), kind) == 0;

		json_node_unref(result);
		g_free(path);
		if (is_it) {
			char *value_path = g_strdup_printf("$.faults.kinds[%zu].%s", i, column);
			gint64 value = int_at(root, value_path);

			g_free(value_path);
			return value;
		}
	}
	cr_assert_fail("no row for %s", kind);
	return -1;
}

/* Fault accounting: for each kind one injection with its effect and one without. */
Test(recovery, faults_each_kind_accounted_only_with_its_effect)
{
	const struct fsa_model_sink *sink;
	struct fsa_loss overrun = {
	    .kind = FSA_LOSS_LOG_OVERRUN,
	    .count = 3,
	    .begin_ns = 1050,
	    .end_ns = 1100,
	    .adapter_id = 0,
	    .hwqueue_handle = QA,
	};
	JsonNode *root;

	setup_with(NULL);
	cr_assert_eq(fsa_report_add_threshold(report, "count(fault_unaccounted)>6", NULL), FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "count(fault_unaccounted)>=7", NULL), FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "count(fault_injected)!=13", NULL), FSA_OK);
	sink = fsa_report_borrow_sink(report);
	objects(10);
	ev("process_create", 11, "process_id", U64(7), NULL);
	ev("process_create", 11, "process_id", U64(8), NULL);
	/* Lost: engine 0's raise is never handled; engine 1's is. */
	ev("interrupt_raise", 100, "adapter_id", U64(0), "engine_id", U64(0), "type",
	   U64(FSTP_INTERRUPT_TYPE_DMA_COMPLETED), NULL);
	fault(100, 0, 0, FSTP_FAULT_KIND_LOST_INTERRUPT, 0);
	ev("interrupt_raise", 200, "adapter_id", U64(0), "engine_id", U64(1), "type",
	   U64(FSTP_INTERRUPT_TYPE_DMA_COMPLETED), NULL);
	fault(200, 1, 0, FSTP_FAULT_KIND_LOST_INTERRUPT, 0);
	ev("interrupt_handled", 210, "adapter_id", U64(0), "engine_id", U64(1), "type",
	   U64(FSTP_INTERRUPT_TYPE_DMA_COMPLETED), NULL);
	/* Delayed: 2 ms on engine 0, 100 ns on engine 1. */
	ev("interrupt_raise", 300, "adapter_id", U64(0), "engine_id", U64(0), "type",
	   U64(FSTP_INTERRUPT_TYPE_MONITORED_FENCE_SIGNALED), NULL);
	fault(300, 0, 0, FSTP_FAULT_KIND_DELAYED_INTERRUPT, 2000000);
	ev("interrupt_raise", 400, "adapter_id", U64(0), "engine_id", U64(1), "type",
	   U64(FSTP_INTERRUPT_TYPE_MONITORED_FENCE_SIGNALED), NULL);
	fault(400, 1, 0, FSTP_FAULT_KIND_DELAYED_INTERRUPT, 2000000);
	ev("interrupt_handled", 500, "adapter_id", U64(0), "engine_id", U64(1), "type",
	   U64(FSTP_INTERRUPT_TYPE_MONITORED_FENCE_SIGNALED), NULL);
	/* Corrupt packet: QA's faults, QB's completes. */
	fault(600, 0, QA, FSTP_FAULT_KIND_CORRUPT_PACKET, 5);
	packet(5, QA, 0, 15, 0, 0, 610, 620, FSTP_PACKET_STATUS_FAULTED);
	fault(700, 0, QB, FSTP_FAULT_KIND_CORRUPT_PACKET, 6);
	packet(6, QB, 0, 16, 0, 0, 710, 720, FSTP_PACKET_STATUS_COMPLETED);
	/* Process killed: 7 ends ABNORMAL, 8 NORMAL. */
	fault(800, 0, 0, FSTP_FAULT_KIND_PROCESS_KILLED, 7);
	fault(800, 0, 0, FSTP_FAULT_KIND_PROCESS_KILLED, 8);
	ev("process_terminate", 900, "process_id", U64(7), "termination",
	   U64(FSTP_TERMINATION_ABNORMAL), NULL);
	ev("process_terminate", 900, "process_id", U64(8), "termination",
	   U64(FSTP_TERMINATION_NORMAL), NULL);
	/* Log overrun storm: QA's log overruns, QB's does not. */
	fault(1000, 0, QA, FSTP_FAULT_KIND_LOG_OVERRUN_STORM, 0);
	cr_assert_eq(sink->loss(sink->data, &overrun), FSA_OK);
	fault(1200, 0, QB, FSTP_FAULT_KIND_LOG_OVERRUN_STORM, 0);
	/* Hung engine: no TDR on engine 1. */
	fault(1300, 1, QC, FSTP_FAULT_KIND_HUNG_ENGINE, 0);
	/* Ignores preemption: engine 0 (3D, pixel declared) stops at the DMA buffer boundary;
	 * engine 1 (compute, thread group declared) stops at the thread group boundary. */
	fault(1400, 0, QA, FSTP_FAULT_KIND_IGNORES_PREEMPTION, 0);
	preempt(20, 0, FSTP_PREEMPT_REASON_PRIORITY, 1500, 1600, 9,
		FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY);
	fault(1650, 1, QC, FSTP_FAULT_KIND_IGNORES_PREEMPTION, 0);
	preempt(21, 1, FSTP_PREEMPT_REASON_PRIORITY, 1700, 1800, 10,
		FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY);
	/* The delayed interrupt of engine 0 comes 2 ms after its raise. */
	ev("interrupt_handled", 300 + 2000000, "adapter_id", U64(0), "engine_id", U64(0), "type",
	   U64(FSTP_INTERRUPT_TYPE_MONITORED_FENCE_SIGNALED), NULL);
	root = finish_json();

	cr_assert_eq(count_at(root, "$.faults.kinds[*]"), 7);
	assert_str_at(root, "$.faults.kinds[0].kind", "hung_engine");
	assert_str_at(root, "$.faults.kinds[6].kind", "log_overrun_storm");
	cr_assert_eq(kind_count(root, "hung_engine", "injected"), 1);
	cr_assert_eq(kind_count(root, "hung_engine", "accounted"), 0);
	static const char *const twice[] = {"ignores_preemption", "lost_interrupt",
					    "delayed_interrupt",  "corrupt_packet",
					    "process_killed",     "log_overrun_storm"};
	for (size_t i = 0; i < sizeof(twice) / sizeof(twice[0]); i++) {
		cr_assert_eq(kind_count(root, twice[i], "injected"), 2, "%s", twice[i]);
		cr_assert_eq(kind_count(root, twice[i], "accounted"), 1, "%s", twice[i]);
	}
	cr_assert_eq(count_at(root, "$.faults.unaccounted[*]"), 7);
	/* --fail-if fails when its expression holds: 7 > 6 and 7 >= 7, not 13 != 13. */
	cr_assert_eq(fsa_report_failure_count(report), 2);
	cr_assert_str_eq(fsa_report_borrow_failure(report, 0),
			 "count(fault_unaccounted)>6: measured 7");
	cr_assert_eq(int_at(root, "$.faults.unaccounted[0].engine_id"), 1, "the handled one");
	assert_str_at(root, "$.faults.unaccounted[0].kind", "lost_interrupt");
	json_node_unref(root);
}

/* A trace of format 1.3 keeps the report of old; naming a 2.2 section still prints it. */
Test(recovery, older_traces_have_no_22_tables_unless_named)
{
	JsonNode *root;
	struct fsa_report_options options = {.sections = FSA_REPORT_FAULTS | FSA_REPORT_SUMMARY};

	setup_with(NULL);
	ev("trace_info", 10, "format_major", U64(1), "format_minor", U64(3), NULL);
	ev("process_create", 11, "process_id", U64(1), NULL);
	root = finish_json();
	cr_assert_eq(count_at(root, "$.tdr"), 0);
	cr_assert_eq(count_at(root, "$.faults"), 0);
	cr_assert_eq(count_at(root, "$.preemption.latency"), 0);
	cr_assert_eq(count_at(root, "$.preemption.engines"), 1);
	json_node_unref(root);
	teardown();

	setup_with(&options);
	ev("trace_info", 10, "format_major", U64(1), "format_minor", U64(3), NULL);
	root = finish_json();
	cr_assert_eq(count_at(root, "$.faults.kinds"), 1);
	cr_assert_eq(count_at(root, "$.faults.kinds[*]"), 0);
	json_node_unref(root);
}
