/* SPDX-License-Identifier: MIT */
/*
 * The details pane's links (viewer/core/fsv-describe.c, suite unit; issue 15 §3): an op's
 * "Packet" link names its command buffer — the first piece of the packet of its queue with its
 * progress value — on recorded traces of traces/ (user- and kernel-mode queues, preempted and
 * resubmitted pieces, several queues on one engine), the same as a scan of the engine's
 * packets; and on an engine of 200 000 packets it is found without that scan (which took
 * 13–35 ms a details pane on the 12 M-event stress trace). And the chain of causes of a wait
 * (viewer/core/fsv-chain.h over s10-cp's fsa/chain.h) on four traces: it starts at the wait and
 * the signal that released it, its links tile the time, every link is an item of the trace.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "fencescope-tp-enums.h"
#include "fst-timeline.h"
#include "fsv-chain.h"
#include "fsv-trace.h"

/* What the details pane links "Packet" to for op INDEX, FSV_INDEX_NONE without such a link. */
static guint32
packet_link(const FsvTrace *trace, guint32 index)
{
	FsvItem item = {FSV_ITEM_OP, index, fsv_trace_get_op(trace, index)->row};
	GArray *links = NULL;
	char **fields = fsv_trace_describe_item_with_links(trace, &item, 0, &links);
	guint32 found = FSV_INDEX_NONE;

	for (guint i = 0; fields[2 * i]; i++)
		if (strcmp(fields[2 * i], "Packet") == 0 && i < links->len &&
		    g_array_index(links, FsvItem, i).kind == FSV_ITEM_PACKET)
			found = g_array_index(links, FsvItem, i).index;
	g_strfreev(fields);
	g_array_unref(links);
	return found;
}

/* The scan the link used to make: the first piece, in the engine row's order, of the packet
 * of the op's queue with its progress value. */
static guint32
scanned_packet(const FsvTrace *trace, const FsvOp *o)
{
	guint32 engine_row;
	const guint32 *packets;
	guint n = 0;

	if (o->source == FSA_SRC_CPU || o->row >= fsv_trace_get_row_count(trace))
		return FSV_INDEX_NONE;
	engine_row = fsv_trace_get_row(trace, o->row)->parent;
	if (engine_row == FSV_INDEX_NONE ||
	    fsv_trace_get_row(trace, engine_row)->kind != FSV_ROW_ENGINE)
		return FSV_INDEX_NONE;
	packets = fsv_trace_get_row_packets(trace, engine_row, &n);
	for (guint i = 0; i < n; i++) {
		const FsvPacket *p = fsv_trace_get_packet(trace, packets[i]);

		if (p->hwqueue_handle == o->hwqueue_handle &&
		    p->progress_value == o->progress_value && p->prev_piece == FSV_INDEX_NONE)
			return packets[i];
	}
	return FSV_INDEX_NONE;
}

static void
check_trace(const char *name, guint *linked)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = fsv_trace_load(path, NULL, NULL, NULL, &error);

	cr_assert_not_null(trace, "%s: %s", name, error ? error->message : "");
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);
		guint32 want = scanned_packet(trace, o);

		cr_assert_eq(packet_link(trace, i), want, "%s op %" PRIu64 ": packet %u, not %u",
			     name, o->id, packet_link(trace, i), want);
		*linked += want != FSV_INDEX_NONE;
	}
}

Test(describe, packet_link_is_the_scan_answer_on_recorded_traces, .timeout = 300)
{
	static const char *const names[] = {"producer-consumer",  "frame-pipeline",
					    "priority-inversion", "timeslice-mix",
					    "adapter-reset",      "stress"};
	guint linked = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		check_trace(names[i], &linked);
	cr_assert_gt(linked, 1000, "ops with a packet link: %u", linked);
}

/* ---- An engine of 200 000 packets ---------------------------------------------------------- */

#define PID      UINT64_C(1)
#define DEV      UINT64_C(0x8001000000000001)
#define CTX      UINT64_C(0x8002000000000002)
#define KQ       UINT64_C(0x8003000000000005)
#define KQ2      UINT64_C(0x8003000000000006)
#define FENCE    UINT64_C(0x8004000000000020)
#define FH       UINT64_C(0x20)
#define T0       UINT64_C(1000000000)
#define N_BIG    200000
#define N_LOOKUP 1000

static double
thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Two kernel-mode queues on one engine, packets alternating, each packet of KQ with a signal
 * executed inside it. */
static FsvTrace *
build_big_engine(void)
{
	g_autoptr(GArray) events = fst_events_new();

	fst_event_add(events, "trace_info", T0, "format_major", UINT64_C(1), "format_minor",
		      UINT64_C(5), "clock_mode", (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	fst_event_add(events, "adapter_create", T0, "adapter_id", UINT64_C(0), "engine_count",
		      UINT64_C(1), "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	fst_event_add(events, "clock_correlation", T0, "adapter_id", UINT64_C(0), "cpu_ts_ns", T0,
		      "gpu_ts", T0, "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	fst_event_add(events, "process_create", T0, "process_id", PID, NULL);
	fst_event_add(events, "device_create", T0, "process_id", PID, "adapter_id", UINT64_C(0),
		      "device_handle", DEV, NULL);
	fst_event_add(events, "context_create", T0, "process_id", PID, "device_handle", DEV,
		      "context_handle", CTX, "engine_id", UINT64_C(0), NULL);
	for (guint64 q = KQ; q <= KQ2; q++)
		fst_event_add(events, "hwqueue_create", T0, "process_id", PID, "context_handle",
			      CTX, "hwqueue_handle", q, "engine_id", UINT64_C(0), "submission_mode",
			      (uint64_t) FSTP_SUBMISSION_MODE_KERNEL_MODE, NULL);
	fst_event_add(events, "fence_create", T0, "process_id", PID, "adapter_id", UINT64_C(0),
		      "fence_global_handle", FENCE, "fence_handle", FH, "initial_value",
		      UINT64_C(0), NULL);
	for (guint64 i = 1; i <= N_BIG; i++) {
		guint64 queue = i % 2 ? KQ : KQ2, progress = (i + 1) / 2;
		guint64 start = T0 + 1000 + i * 100, end = start + 90;

		fst_event_add(events, "packet_queued", start, "adapter_id", UINT64_C(0),
			      "engine_id", UINT64_C(0), "hwqueue_handle", queue, "packet_id", i,
			      "fence_id", 1000 + i, NULL);
		fst_event_add(events, "packet_start", start, "adapter_id", UINT64_C(0), "engine_id",
			      UINT64_C(0), "hwqueue_handle", queue, "packet_id", i,
			      "progress_value", progress, "gpu_ts", start, NULL);
		if (queue == KQ) {
			fst_event_add(events, "fence_signal_queued", start, "process_id", PID,
				      "hwqueue_handle", KQ, "fence_handle", FH, "fence_value",
				      progress, "progress_value", progress, NULL);
			fst_event_add(events, "km_fence_signal_executed", start + 50, "process_id",
				      PID, "hwqueue_handle", KQ, "fence_handle", FH, "fence_value",
				      progress, NULL);
		}
		fst_event_add(events, "packet_end", end, "adapter_id", UINT64_C(0), "engine_id",
			      UINT64_C(0), "hwqueue_handle", queue, "packet_id", i,
			      "progress_value", progress, "gpu_ts", end, "status",
			      (uint64_t) FSTP_PACKET_STATUS_COMPLETED, NULL);
	}
	fst_event_add(events, "clock_correlation", T0 + 1000 + (N_BIG + 1) * 100, "adapter_id",
		      UINT64_C(0), "cpu_ts_ns", T0 + 1000 + (N_BIG + 1) * 100, "gpu_ts",
		      T0 + 1000 + (N_BIG + 1) * 100, "gpu_ts_frequency_hz", UINT64_C(1000000000),
		      NULL);
	return fst_trace_from_events("big-engine", events);
}

Test(describe, packet_link_does_not_scan_the_engine, .timeout = 300)
{
	g_autoptr(FsvTrace) trace = build_big_engine();
	guint32 n_ops = fsv_trace_get_op_count(trace);
	double begin, spent;

	cr_assert_null(fsv_trace_get_partial_error(trace), "%s",
		       fsv_trace_get_partial_error(trace));
	cr_assert_eq(fsv_trace_get_packet_count(trace), N_BIG);
	cr_assert_eq(n_ops, N_BIG / 2);
	/* Ops in the last half: a scan from the row's start reads 100 000 packets or more each. */
	begin = thread_cpu_ms();
	for (guint k = 0; k < N_LOOKUP; k++) {
		guint32 i = n_ops / 2 + (guint32) ((guint64) k * (n_ops / 2) / N_LOOKUP);
		const FsvOp *o = fsv_trace_get_op(trace, i);
		guint32 p = packet_link(trace, i);

		cr_assert_neq(p, FSV_INDEX_NONE, "op %" PRIu64 " has its packet", o->id);
		cr_assert_eq(fsv_trace_get_packet(trace, p)->hwqueue_handle, KQ);
		cr_assert_eq(fsv_trace_get_packet(trace, p)->progress_value, o->progress_value);
	}
	spent = thread_cpu_ms() - begin;
	/* A details pane costs microseconds: 1 000 of them well under the 150 ms that one scan
	 * of a 200 000-packet row per pane would take at least. */
	cr_assert_lt(spent, 150.0, "%u details panes took %.1f ms of CPU", N_LOOKUP, spent);
	cr_log_info("%u details panes with their packet link: %.1f ms of CPU", N_LOOKUP, spent);
}

/* ---- The chain of causes of a wait (fsv-chain.h; issue 16 §1, the viewer's part) ----------- */

/* On recorded traces, every released wait's chain starts with the wait and the signal that
 * released it, its links hold parts of the time that tile it back from the wait's end, and
 * every link names an item of the trace. */
static void
check_chains(const char *name, guint *long_chains)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = fsv_trace_load(path, NULL, NULL, NULL, &error);
	FsvChainIndex *index;

	cr_assert_not_null(trace, "%s: %s", name, error ? error->message : "");
	index = fsv_chain_index_new(trace);
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);
		enum fsa_chain_stop stop;
		FsvItem stop_item;
		g_autoptr(GArray) links = NULL;

		links = fsv_chain_index_chain_of_wait(index, i, 64, &stop, &stop_item);
		if (o->kind != FSA_OP_WAIT) {
			cr_assert_null(links, "%s op %" PRIu64 ": no wait, no chain", name, o->id);
			continue;
		}
		cr_assert_not_null(links, "%s op %" PRIu64, name, o->id);
		cr_assert_geq(links->len, 1);
		cr_assert_eq(g_array_index(links, FsvChainLink, 0).item.kind, FSV_ITEM_OP);
		cr_assert_eq(g_array_index(links, FsvChainLink, 0).item.index, i);
		if (o->state == FSA_OP_OBSERVED && o->signal_op != FSV_INDEX_NONE &&
		    o->source != FSA_SRC_CPU && links->len > 1) {
			const FsvChainLink *l1 = &g_array_index(links, FsvChainLink, 1);

			cr_assert_eq(l1->role, FSA_CHAIN_SIGNAL, "%s op %" PRIu64, name, o->id);
			cr_assert_eq(l1->item.index, o->signal_op, "%s op %" PRIu64, name, o->id);
		}
		for (guint k = 0; k < links->len; k++) {
			const FsvChainLink *l = &g_array_index(links, FsvChainLink, k);

			cr_assert_neq(l->item.kind, FSV_ITEM_NONE, "%s op %" PRIu64 " link %u",
				      name, o->id, k);
			cr_assert_leq(l->hold_begin_ns, l->hold_end_ns);
			if (k > 0)
				cr_assert_eq(
				    l->hold_end_ns,
				    g_array_index(links, FsvChainLink, k - 1).hold_begin_ns,
				    "%s op %" PRIu64 ": link %u ends where %u begins", name, o->id,
				    k, k - 1);
		}
		*long_chains += links->len >= 3;
	}
	fsv_chain_index_free(index);
}

Test(describe, chains_of_causes_start_at_the_release_and_tile_the_time, .timeout = 300)
{
	static const char *const names[] = {"producer-consumer", "frame-pipeline",
					    "priority-inversion", "deep-queue"};
	guint long_chains = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		check_chains(names[i], &long_chains);
	cr_assert_gt(long_chains, 100, "chains of 3 links or more: %u", long_chains);
}
