/* SPDX-License-Identifier: MIT */
/*
 * Report schema 2.3 through the model, from synthetic format 1.5 events: `page_faults` (each
 * fault joined with the OS's handling and the TDR sequence of reason PAGE_FAULT that recovered
 * from it, and the work lost: MMU-14, TDR-06), `memory` (VA spaces and mapping lifetimes: MMU-02,
 * 03, 06, 07, 12) and `cross_adapter` (opens, propagation and the signal → release latency
 * across adapters, each mapped through its own clock: XAD-07, XAD-08, XAD-10), with their
 * thresholds. Every expected number is computed by hand from the events below.
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

TestSuite(report_mmu, .fini = teardown);

#define DEV2 U64(0x8001000000000002)
#define CTX2 U64(0x8002000000000006)
#define QU   U64(0x800300000000000b) /* user-mode queue on adapter 1 */
#define FX   U64(0x100)              /* process 1's handle of the cross-adapter fence */
#define FX2  U64(0x200)              /* process 2's */
#define FX_G U64(0x8004000000000030)

/* Adapter 0: engines 0 and 1, process 1 with contexts A (engine 0, queues QA and QB) and C
 * (engine 1, queue QC), kernel mode; format 1.5. */
static void
objects(uint64_t ts)
{
	ev("trace_info", ts, "format_major", U64(1), "format_minor", U64(5), NULL);
	ev("process_create", ts, "process_id", U64(1), NULL);
	ev("device_create", ts, "process_id", U64(1), "adapter_id", U64(0), "device_handle", DEV,
	   NULL);
	ev("context_create", ts, "process_id", U64(1), "device_handle", DEV, "context_handle",
	   CTX_A, "engine_id", U64(0), NULL);
	ev("context_create", ts, "process_id", U64(1), "device_handle", DEV, "context_handle",
	   CTX_C, "engine_id", U64(1), NULL);
	ev("hwqueue_create", ts, "process_id", U64(1), "context_handle", CTX_A, "hwqueue_handle",
	   QA, "engine_id", U64(0), "submission_mode", U64(FSTP_SUBMISSION_MODE_KERNEL_MODE), NULL);
	ev("hwqueue_create", ts, "process_id", U64(1), "context_handle", CTX_A, "hwqueue_handle",
	   QB, "engine_id", U64(0), "submission_mode", U64(FSTP_SUBMISSION_MODE_KERNEL_MODE), NULL);
	ev("hwqueue_create", ts, "process_id", U64(1), "context_handle", CTX_C, "hwqueue_handle",
	   QC, "engine_id", U64(1), "submission_mode", U64(FSTP_SUBMISSION_MODE_KERNEL_MODE), NULL);
}

static void
hw_fault(uint64_t ts, uint64_t engine, uint64_t context, uint64_t va, uint64_t access,
	 uint64_t packet_id)
{
	ev("page_fault", ts, "adapter_id", U64(0), "engine_id", engine, "process_id", U64(1),
	   "context_handle", context, "gpu_va", va, "fault_type", U64(FSTP_FAULT_TYPE_NOT_MAPPED),
	   "gpu_ts", U64(0), "access", access, "packet_id", packet_id, NULL);
}

/*
 * Packet 7 (QA, engine 0) runs 100 → 150 and faults writing 0xdead000 at 150; the OS handles it
 * at 160 (context scope), recovers with an engine reset (tdr 170 → 190) that aborts packet 8 (QB,
 * 120 → 185). Packet 9 (QC, engine 1) faults reading 0xbeef000 at 300: the OS never handles it.
 */
Test(report_mmu, mmu_14_tdr_06_page_faults_with_handling_recovery_and_work_lost)
{
	JsonNode *root;

	setup_with(NULL);
	objects(10);
	ev("packet_start", 100, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QA,
	   "packet_id", U64(7), "progress_value", U64(7), NULL);
	ev("packet_start", 120, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QB,
	   "packet_id", U64(8), "progress_value", U64(8), NULL);
	hw_fault(150, 0, CTX_A, 0xdead000, FSTP_ACCESS_KIND_WRITE, 7);
	ev("packet_end", 150, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QA,
	   "packet_id", U64(7), "progress_value", U64(7), "status", U64(FSTP_PACKET_STATUS_FAULTED),
	   NULL);
	ev("fencescope_os:page_fault", 160, "adapter_id", U64(0), "engine_id", U64(0), "process_id",
	   U64(1), "context_handle", CTX_A, "gpu_va", U64(0xdead000), "access",
	   U64(FSTP_ACCESS_KIND_WRITE), "fault_type", U64(FSTP_FAULT_TYPE_NOT_MAPPED), "scope",
	   U64(FSTP_FAULT_SCOPE_CONTEXT), NULL);
	ev("tdr_begin", 170, "adapter_id", U64(0), "engine_id", U64(0), "reason",
	   U64(FSTP_LOSS_REASON_PAGE_FAULT), "context_handle", CTX_A, NULL);
	ev("context_error", 175, "adapter_id", U64(0), "process_id", U64(1), "device_handle", DEV,
	   "context_handle", CTX_A, "reason", U64(FSTP_LOSS_REASON_PAGE_FAULT), NULL);
	ev("engine_reset", 180, "adapter_id", U64(0), "engine_id", U64(0), "is_success", U64(1),
	   NULL);
	ev("packet_end", 185, "adapter_id", U64(0), "engine_id", U64(0), "hwqueue_handle", QB,
	   "packet_id", U64(8), "progress_value", U64(8), "status", U64(FSTP_PACKET_STATUS_ABORTED),
	   NULL);
	ev("tdr_end", 190, "adapter_id", U64(0), "engine_id", U64(0), "result",
	   U64(FSTP_TDR_RESULT_ENGINE_RESET), NULL);
	ev("packet_start", 250, "adapter_id", U64(0), "engine_id", U64(1), "hwqueue_handle", QC,
	   "packet_id", U64(9), "progress_value", U64(9), NULL);
	hw_fault(300, 1, CTX_C, 0xbeef000, FSTP_ACCESS_KIND_READ, 9);
	cr_assert_eq(fsa_report_add_threshold(report, "count(page_fault)>1", NULL), FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "count(page_fault, process=2)>0", NULL),
		     FSA_OK);
	root = finish_json();

	assert_str_at(root, "$.schema_version", "2.4");
	cr_assert_eq(int_at(root, "$.page_faults.summary.faults"), 2);
	cr_assert_eq(int_at(root, "$.page_faults.summary.engine_faults"), 2);
	cr_assert_eq(int_at(root, "$.page_faults.summary.handled"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.unhandled"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.context_scope"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.device_scope"), 0);
	cr_assert_eq(int_at(root, "$.page_faults.summary.reads"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.writes"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.recovered_engine_reset"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.no_recovery"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.packets_faulted"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.packets_aborted"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.summary.lost_gpu_ns"), 50 + 65);
	cr_assert_eq(int_at(root, "$.page_faults.handling[0].count"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.handling[0].max_ns"), 10);

	cr_assert_eq(count_at(root, "$.page_faults.faults[*]"), 2);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].ts_ns"), 150);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].handled_ns"), 160);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].process_id"), 1);
	assert_str_at(root, "$.page_faults.faults[0].context_handle", "0x8002000000000002");
	assert_str_at(root, "$.page_faults.faults[0].hwqueue_handle", "0x8003000000000005");
	assert_str_at(root, "$.page_faults.faults[0].gpu_va", "0xdead000");
	assert_str_at(root, "$.page_faults.faults[0].access", "write");
	assert_str_at(root, "$.page_faults.faults[0].fault_type", "not_mapped");
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].packet_id"), 7);
	assert_str_at(root, "$.page_faults.faults[0].scope", "context");
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].handling_ns"), 10);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].tdr_begin_ns"), 170);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].tdr_end_ns"), 190);
	assert_str_at(root, "$.page_faults.faults[0].recovery", "engine_reset");
	cr_assert(bool_at(root, "$.page_faults.faults[0].engine_reset"));
	cr_assert(is_null_at(root, "$.page_faults.faults[0].adapter_reset"));
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].contexts_in_error"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].packets_faulted"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].packets_aborted"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.faults[0].lost_gpu_ns"), 115);
	/* The same recovery in the tdr section, reason page_fault. */
	assert_str_at(root, "$.tdr.sequences[0].reason", "page_fault");
	cr_assert_eq(int_at(root, "$.tdr.sequences[0].tdr_begin_ns"), 170);

	cr_assert_eq(int_at(root, "$.page_faults.faults[1].ts_ns"), 300);
	cr_assert(is_null_at(root, "$.page_faults.faults[1].handled_ns"));
	cr_assert(is_null_at(root, "$.page_faults.faults[1].scope"));
	cr_assert(is_null_at(root, "$.page_faults.faults[1].recovery"));
	assert_str_at(root, "$.page_faults.faults[1].access", "read");
	cr_assert_eq(int_at(root, "$.page_faults.faults[1].engine_id"), 1);
	cr_assert_eq(int_at(root, "$.page_faults.faults[1].packets_faulted"), 0);

	cr_assert_eq(fsa_report_failure_count(report), 1, "count(page_fault)>1 only");
	cr_assert(strstr(fsa_report_borrow_failure(report, 0), "count(page_fault)>1"));
	json_node_unref(root);
}

/* A 64 KB mapping of 256 KiB (local) from 100 to 400, a 4 KB one of 12 KiB (system) from 200 to
 * the end; two page tables created, one resize, two updates. */
Test(report_mmu, mmu_06_07_12_memory_section_va_spaces_and_mapping_lifetimes)
{
	JsonNode *root;

	setup_with(NULL);
	objects(10);
	ev("va_space_create", 20, "adapter_id", U64(0), "process_id", U64(1), "va_size_bytes",
	   U64(1) << 40, "page_table_levels", U64(4), "root_entry_count", U64(512), NULL);
	ev("va_reserve", 30, "adapter_id", U64(0), "process_id", U64(1), "gpu_va", U64(0x100000),
	   "size_bytes", U64(0x200000), "is_os_picked", U64(1), NULL);
	ev("page_table_create", 40, "adapter_id", U64(0), "process_id", U64(1), "table_id",
	   U64(0x70), "level", U64(0), "entry_count", U64(512), NULL);
	ev("page_table_create", 41, "adapter_id", U64(0), "process_id", U64(1), "table_id",
	   U64(0x71), "level", U64(3), "entry_count", U64(512), NULL);
	ev("page_table_resize", 42, "adapter_id", U64(0), "process_id", U64(1), "table_id",
	   U64(0x70), "old_entry_count", U64(512), "new_entry_count", U64(1024), NULL);
	ev("va_map", 100, "process_id", U64(1), "allocation_handle", U64(0xa1), "gpu_va",
	   U64(0x100000), "size_bytes", U64(0x40000), "adapter_id", U64(0), "page_size_bytes",
	   U64(65536), "segment", U64(FSTP_SEGMENT_LOCAL), NULL);
	ev("page_table_update", 101, "process_id", U64(1), "gpu_va", U64(0x100000), "page_count",
	   U64(4), "page_size_bytes", U64(65536), "is_valid", U64(1), "adapter_id", U64(0),
	   "table_id", U64(0x71), "level", U64(3), "first_entry", U64(0), NULL);
	ev("va_map", 200, "process_id", U64(1), "allocation_handle", U64(0xb1), "gpu_va",
	   U64(0x200000), "size_bytes", U64(0x3000), "adapter_id", U64(0), "page_size_bytes",
	   U64(4096), "segment", U64(FSTP_SEGMENT_SYSTEM), "is_os_picked", U64(1), NULL);
	ev("va_unmap", 400, "process_id", U64(1), "gpu_va", U64(0x100000), "size_bytes",
	   U64(0x40000), "adapter_id", U64(0), NULL);
	ev("page_table_update", 401, "process_id", U64(1), "gpu_va", U64(0x100000), "page_count",
	   U64(4), "page_size_bytes", U64(65536), "is_valid", U64(0), "adapter_id", U64(0),
	   "table_id", U64(0x71), "level", U64(3), "first_entry", U64(0), NULL);
	root = finish_json();

	cr_assert_eq(count_at(root, "$.memory.va_spaces[*]"), 1);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].process_id"), 1);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].created_ns"), 20);
	cr_assert(is_null_at(root, "$.memory.va_spaces[0].destroyed_ns"));
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].page_table_levels"), 4);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].reserves"), 1);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].reserved_peak_bytes"), 0x200000);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].maps"), 2);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].unmaps"), 1);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].os_picked"), 2);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].mapped_peak_bytes"), 0x43000);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].mapped_end_bytes"), 0x3000);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].maps_4k"), 1);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].maps_64k"), 1);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].mapped_64k_peak_bytes"), 0x40000);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].mapped_64k_end_bytes"), 0);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].mapped_4k_end_bytes"), 0x3000);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].mapped_local_peak_bytes"), 0x40000);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].mapped_system_end_bytes"), 0x3000);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].page_tables_created"), 2);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].page_tables_peak"), 2);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].root_resizes"), 1);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].root_entries_max"), 1024);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].page_table_updates"), 2);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].entries_written"), 4);
	cr_assert_eq(int_at(root, "$.memory.va_spaces[0].entries_invalidated"), 4);
	cr_assert_eq(count_at(root, "$.memory.mappings[*]"), 1);
	cr_assert_eq(int_at(root, "$.memory.mappings[0].open_at_end"), 1);
	cr_assert_eq(int_at(root, "$.memory.mappings[0].count"), 1);
	cr_assert_eq(int_at(root, "$.memory.mappings[0].max_ns"), 300);
	json_node_unref(root);
}

/* Adapter 1 counts 50 MHz ticks from 5000 at trace time 1000 (20 ns per tick); process 2 waits
 * on its user-mode queue QU for the fence process 1 signals on kernel-mode queue QA of adapter
 * 0. */
static void
two_adapters(void)
{
	objects(10);
	ev("adapter_create", 10, "adapter_id", U64(1), "engine_count", U64(1),
	   "gpu_ts_frequency_hz", U64(50000000), NULL);
	ev("clock_correlation", 10, "adapter_id", U64(1), "cpu_ts_ns", U64(1000), "gpu_ts",
	   U64(5000), "gpu_ts_frequency_hz", U64(50000000), NULL);
	ev("clock_correlation", 10, "adapter_id", U64(1), "cpu_ts_ns", U64(1000000), "gpu_ts",
	   U64(5000 + 999000 / 20), "gpu_ts_frequency_hz", U64(50000000), NULL);
	ev("process_create", 10, "process_id", U64(2), NULL);
	ev("device_create", 10, "process_id", U64(2), "adapter_id", U64(1), "device_handle", DEV2,
	   NULL);
	ev("context_create", 10, "process_id", U64(2), "device_handle", DEV2, "context_handle",
	   CTX2, "engine_id", U64(0), NULL);
	ev("hwqueue_create", 10, "process_id", U64(2), "context_handle", CTX2, "hwqueue_handle", QU,
	   "engine_id", U64(0), "submission_mode", U64(FSTP_SUBMISSION_MODE_USER_MODE),
	   "progress_fence_handle", U64(0x8004000000000005), NULL);
	ev("fence_create", 11, "process_id", U64(1), "adapter_id", U64(0), "fence_global_handle",
	   FX_G, "fence_handle", FX, "is_shared", U64(1), "is_cross_adapter", U64(1),
	   "fence_object", U64(FSTP_FENCE_OBJECT_NATIVE), NULL);
	ev("fence_cross_adapter_open", 12, "process_id", U64(2), "fence_global_handle", FX_G,
	   "fence_handle", FX2, "adapter_id", U64(1), "creator_adapter_id", U64(0), "created_as",
	   U64(FSTP_FENCE_OBJECT_NATIVE), "opened_as", U64(FSTP_FENCE_OBJECT_NATIVE), NULL);
	ev("fence_open", 12, "process_id", U64(2), "fence_global_handle", FX_G, "fence_handle", FX2,
	   NULL);
}

/* One frame: the wait is queued at 2000 and reached by the GPU at 3000 (tick 5100); the signal
 * runs at 5000 on adapter 0, is propagated at 5200, notified at 5300, and releases the wait at
 * 6000 (tick 5250). A second wait, queued at 7000 after the signal, is released at once (8000)
 * and does not count as a propagation. */
Test(report_mmu, xad_07_08_10_cross_adapter_section_latencies_each_adapter_on_its_clock)
{
	JsonNode *root;

	setup_with(NULL);
	two_adapters();
	ev("fence_wait_queued", 2000, "process_id", U64(2), "hwqueue_handle", QU, "fence_handle",
	   FX2, "fence_value", U64(1), "progress_value", U64(1), NULL);
	ev("fence_signal_queued", 4000, "process_id", U64(1), "hwqueue_handle", QA, "fence_handle",
	   FX, "fence_value", U64(1), "progress_value", U64(1), NULL);
	ev("km_fence_signal_executed", 5000, "process_id", U64(1), "hwqueue_handle", QA,
	   "fence_handle", FX, "fence_value", U64(1), NULL);
	ev("fence_propagate", 5200, "fence_global_handle", FX_G, "from_adapter_id", U64(0),
	   "to_adapter_id", U64(1), "fence_value", U64(1), NULL);
	ev("update_current_value", 5300, "adapter_id", U64(1), "fence_global_handle", FX_G,
	   "fence_value", U64(1), "notification_only", U64(1), NULL);
	ev("fence_log_entry", 6100, "hwqueue_handle", QU, "log_type", U64(FSTP_LOG_TYPE_WAITS),
	   "entry_position", U64(0), "fence_handle", FX2, "fence_global_handle", FX_G,
	   "fence_value", U64(1), "operation", U64(FSTP_LOG_OPERATION_WAIT_UNBLOCKED),
	   "observed_gpu_ts", U64(5100), "end_gpu_ts", U64(5250), NULL);
	ev("fence_wait_queued", 7000, "process_id", U64(2), "hwqueue_handle", QU, "fence_handle",
	   FX2, "fence_value", U64(1), "progress_value", U64(2), NULL);
	ev("fence_log_entry", 8100, "hwqueue_handle", QU, "log_type", U64(FSTP_LOG_TYPE_WAITS),
	   "entry_position", U64(1), "fence_handle", FX2, "fence_global_handle", FX_G,
	   "fence_value", U64(1), "operation", U64(FSTP_LOG_OPERATION_WAIT_UNBLOCKED),
	   "observed_gpu_ts", U64(5350), "end_gpu_ts", U64(5350), NULL);
	ev("clock_correlation", 2000000, "adapter_id", U64(1), "cpu_ts_ns", U64(2000000), "gpu_ts",
	   U64(5000 + 1999000 / 20), "gpu_ts_frequency_hz", U64(50000000), NULL);
	cr_assert_eq(fsa_report_add_threshold(report, "p99(propagation)>900ns", NULL), FSA_OK);
	cr_assert_eq(fsa_report_add_threshold(report, "max(propagation)<1us", NULL), FSA_OK);
	root = finish_json();

	cr_assert_eq(count_at(root, "$.cross_adapter.fences[*]"), 1);
	assert_str_at(root, "$.cross_adapter.fences[0].fence_global_handle", "0x8004000000000030");
	assert_str_at(root, "$.cross_adapter.fences[0].created_as", "native");
	cr_assert_eq(int_at(root, "$.cross_adapter.fences[0].opens"), 1);
	cr_assert_eq(int_at(root, "$.cross_adapter.fences[0].propagations"), 1);
	cr_assert_eq(int_at(root, "$.cross_adapter.fences[0].notifications"), 1);
	cr_assert_eq(int_at(root, "$.cross_adapter.opens[0].adapter_id"), 1);
	assert_str_at(root, "$.cross_adapter.opens[0].opened_as", "native");

	/* Three metrics per row, in enum order. */
	cr_assert_eq(count_at(root, "$.cross_adapter.adapters[*]"), 3);
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[0].from_adapter_id"), 0);
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[0].to_adapter_id"), 1);
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[0].propagations"), 1);
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[0].notified"), 1);
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[0].edges"), 2);
	assert_str_at(root, "$.cross_adapter.adapters[0].metric", "signal_to_release");
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[0].count"), 1, "the late wait is not");
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[0].max_ns"), 1000);
	assert_str_at(root, "$.cross_adapter.adapters[1].metric", "signal_to_propagate");
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[1].max_ns"), 200);
	assert_str_at(root, "$.cross_adapter.adapters[2].metric", "propagate_to_notification");
	cr_assert_eq(int_at(root, "$.cross_adapter.adapters[2].max_ns"), 100);
	cr_assert_eq(count_at(root, "$.cross_adapter.propagation[*]"), 3);
	assert_str_at(root, "$.cross_adapter.propagation[0].fence_global_handle",
		      "0x8004000000000030");
	cr_assert_eq(int_at(root, "$.cross_adapter.propagation[0].max_ns"), 1000);

	cr_assert_eq(fsa_report_failure_count(report), 1);
	cr_assert(strstr(fsa_report_borrow_failure(report, 0), "p99(propagation)>900ns"));
	json_node_unref(root);
}

/* A format 1.4 trace shows none of the 2.3 sections unless --sections names them. */
Test(report_mmu, sections_23_hidden_for_older_traces_unless_named)
{
	JsonNode *root;
	struct fsa_report_options options = {
	    .sections = FSA_REPORT_PAGE_FAULTS | FSA_REPORT_MEMORY | FSA_REPORT_CROSS_ADAPTER};

	setup_with(NULL);
	ev("trace_info", 10, "format_major", U64(1), "format_minor", U64(4), NULL);
	ev("process_create", 11, "process_id", U64(1), NULL);
	root = finish_json();
	cr_assert_eq(count_at(root, "$.page_faults"), 0);
	cr_assert_eq(count_at(root, "$.memory"), 0);
	cr_assert_eq(count_at(root, "$.cross_adapter"), 0);
	json_node_unref(root);
	teardown();

	setup_with(&options);
	ev("trace_info", 10, "format_major", U64(1), "format_minor", U64(4), NULL);
	root = finish_json();
	cr_assert_eq(int_at(root, "$.page_faults.summary.faults"), 0);
	cr_assert_eq(count_at(root, "$.memory.va_spaces[*]"), 0);
	cr_assert_eq(count_at(root, "$.cross_adapter.fences[*]"), 0);
	json_node_unref(root);
}

/* The text and CSV writers print the 2.3 tables as JSON does (one table layer). */
Test(report_mmu, text_and_csv_carry_the_23_tables)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out;

	setup_with(NULL);
	two_adapters();
	ev("fence_propagate", 5200, "fence_global_handle", FX_G, "from_adapter_id", U64(0),
	   "to_adapter_id", U64(1), "fence_value", U64(1), NULL);
	cr_assert_eq(fsa_model_finish(model), FSA_OK);
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	out = open_memstream(&text, &size);
	cr_assert_eq(fsa_report_write(report, FSA_REPORT_FORMAT_CSV, out), FSA_OK);
	fclose(out);
	cr_assert(strstr(text, "section,table,from_adapter_id,to_adapter_id,propagations,notified,"
			       "edges,metric,count,"),
		  "%s", text);
	cr_assert(strstr(text, "cross_adapter,adapters,0,1,1,0,0,signal_to_release,0,"), "%s",
		  text);
	cr_assert(strstr(text, "cross_adapter,opens,12,0x8004000000000030,2,0x200,1,0,native,"
			       "native"),
		  "%s", text);
	cr_assert(strstr(text, "page_faults,summary,0,"), "%s", text);
	free(text);
	text = NULL;
	out = open_memstream(&text, &size);
	cr_assert_eq(fsa_report_write(report, FSA_REPORT_FORMAT_TEXT, out), FSA_OK);
	fclose(out);
	cr_assert(strstr(text, "PAGE_FAULTS"), "%s", text);
	cr_assert(strstr(text, "CROSS_ADAPTER"), "%s", text);
	cr_assert(strstr(text, "propagate_to_notification"), "%s", text);
	cr_assert(strstr(text, "(no GPU VA space)"), "%s", text);
	free(text);
}
