/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: words for what the timeline shows — every field of an op, packet, marker, loss
 * or fence step for the details panel and tooltips (with durations, and times both on the trace
 * clock and in GPU ticks), one-line titles and duration formatting with adaptive units. It
 * only reads a loaded FsvTrace.
 */
#include "fsv-trace.h"
#include "fsv-trace-private.h"
#include "fsv-frames.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fencescope-tp-enums.h"
#include "fsa/duration.h"

char *
fsv_format_duration(guint64 ns)
{
	char text[FSA_DURATION_TEXT_MAX];

	if (ns == FSV_TIME_NONE)
		return g_strdup("—");
	/* The report's formatter: one duration reads the same in both. */
	fsa_format_duration(text, sizeof(text), ns);
	return g_strdup(text);
}

char *
fsv_trace_format_time(const FsvTrace *trace, guint64 ns)
{
	guint64 base = fsv_trace_get_begin_ns(trace);
	g_autofree char *d = NULL;

	if (ns == FSV_TIME_NONE)
		return g_strdup("—");
	if (ns < base)
		return g_strdup_printf("−%s", (d = fsv_format_duration(base - ns)));
	return g_strdup_printf("+%s", (d = fsv_format_duration(ns - base)));
}

/* Names and values, appended in pairs. */
static void
add(GPtrArray *out, const char *name, char *value)
{
	g_ptr_array_add(out, g_strdup(name));
	g_ptr_array_add(out, value);
}

/* LINKS (nullable) has one FsvItem per field added so far: fields without a link get
 * FSV_ITEM_NONE. */
static void
pad_links(GArray *links, const GPtrArray *out)
{
	static const FsvItem none = {FSV_ITEM_NONE, FSV_INDEX_NONE, FSV_INDEX_NONE};

	while (links && links->len < out->len / 2)
		g_array_append_val(links, none);
}

/* A field whose value names another item (the details pane makes it a link to TARGET). */
static void
add_link(GPtrArray *out, GArray *links, const char *name, char *value, FsvItem target)
{
	pad_links(links, out);
	if (links)
		g_array_append_val(links, target);
	add(out, name, value);
}

static FsvItem
op_item(const FsvTrace *trace, guint32 op)
{
	return (FsvItem){FSV_ITEM_OP, op, fsv_trace_get_op(trace, op)->row};
}

static FsvItem
packet_item(const FsvTrace *trace, guint32 packet)
{
	return (FsvItem){FSV_ITEM_PACKET, packet, fsv_trace_get_packet(trace, packet)->row};
}

/* Whether packet P is the first piece of the command buffer (QUEUE, PROGRESS): 0 when it
 * is, -1 when it is a first piece of QUEUE queued before it, 1 after it, 2 otherwise. */
static int
compare_first_piece(const FsvPacket *p, guint64 queue, guint64 progress)
{
	if (p->hwqueue_handle != queue || p->prev_piece != FSV_INDEX_NONE)
		return 2;
	return p->progress_value < progress ? -1 : p->progress_value > progress;
}

/* The packet (command buffer) a queue operation belongs to: on its engine, of its queue, with
 * its progress value, its first piece (the one the work was queued as). FSV_INDEX_NONE for CPU
 * operations and when the trace has no such packet.
 *
 * The engine row's packets are sorted by start, and a queue's first pieces start in the order
 * the queue holds them (its progress values rise along the row; only the resubmitted pieces of
 * preempted work come later). So the search starts at the op's end — it ran inside its
 * command buffer, which started before — and walks back to the first first-piece of the queue
 * below the op's progress value, then forward to the first one above it: it visits the other
 * queues' packets around the op's, not the row (a full scan took 13–35 ms on the 12 M-event
 * stress trace for each details pane). The answer is the first such piece in row order, as
 * the scan's was (tests/viewer/test-describe.c holds the two against each other). */
static guint32
find_op_packet(const FsvTrace *trace, const FsvOp *o)
{
	guint32 engine_row, found = FSV_INDEX_NONE;
	const guint32 *packets;
	guint n = 0, lo = 0, hi;

	if (o->source == FSA_SRC_CPU || o->row >= fsv_trace_get_row_count(trace))
		return FSV_INDEX_NONE;
	engine_row = fsv_trace_get_row(trace, o->row)->parent;
	if (engine_row == FSV_INDEX_NONE ||
	    fsv_trace_get_row(trace, engine_row)->kind != FSV_ROW_ENGINE)
		return FSV_INDEX_NONE;
	packets = fsv_trace_get_row_packets(trace, engine_row, &n);
	/* lo: the first packet that starts after the op ended. */
	hi = n;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (fsv_trace_get_packet(trace, packets[mid])->start_ns <= o->end_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint i = lo; i-- > 0;) {
		int order = compare_first_piece(fsv_trace_get_packet(trace, packets[i]),
						o->hwqueue_handle, o->progress_value);

		if (order == 0)
			found = packets[i];
		else if (order < 0)
			break;
	}
	for (guint i = lo; found == FSV_INDEX_NONE && i < n; i++) {
		int order = compare_first_piece(fsv_trace_get_packet(trace, packets[i]),
						o->hwqueue_handle, o->progress_value);

		if (order == 0)
			found = packets[i];
		else if (order == 1)
			break;
	}
	return found;
}

/* "+1.234 ms (1234567890 ns, GPU 123456)": relative, absolute and GPU ticks when known. */
static char *
format_time_full(const FsvTrace *trace, guint64 ns, guint32 adapter_id, guint64 raw_gpu)
{
	g_autofree char *rel = NULL;
	guint64 gpu = 0;

	if (ns == FSV_TIME_NONE)
		return g_strdup("unknown");
	rel = fsv_trace_format_time(trace, ns);
	if (raw_gpu != 0)
		return g_strdup_printf("%s (%" PRIu64 " ns; GPU %" PRIu64 " ticks)", rel, ns,
				       raw_gpu);
	if (adapter_id != UINT32_MAX && fsv_trace_trace_to_gpu(trace, adapter_id, ns, &gpu))
		return g_strdup_printf("%s (%" PRIu64 " ns; GPU ≈%" PRIu64 " ticks)", rel, ns, gpu);
	return g_strdup_printf("%s (%" PRIu64 " ns)", rel, ns);
}

static void
add_time(GPtrArray *out, const FsvTrace *trace, const char *name, guint64 ns, guint32 adapter_id,
	 guint64 raw_gpu)
{
	if (ns != FSV_TIME_NONE)
		add(out, name, format_time_full(trace, ns, adapter_id, raw_gpu));
}

static void
add_duration(GPtrArray *out, const char *name, guint64 a, guint64 b)
{
	if (a != FSV_TIME_NONE && b != FSV_TIME_NONE && b >= a)
		add(out, name, fsv_format_duration(b - a));
}

static const char *
cpu_wait_result_name(guint8 r)
{
	switch (r) {
	case FSTP_CPU_WAIT_RESULT_SATISFIED:
		return "satisfied";
	case FSTP_CPU_WAIT_RESULT_TIMEOUT:
		return "timeout";
	case FSTP_CPU_WAIT_RESULT_DEVICE_LOST:
		return "device lost";
	case FSTP_CPU_WAIT_RESULT_FENCE_DESTROYED:
		return "fence destroyed";
	case FSTP_CPU_WAIT_RESULT_CANCELLED:
		return "cancelled";
	default:
		return "unknown";
	}
}

static char *
process_name(const FsvTrace *trace, guint32 pid)
{
	const struct fsa_process_info *p = fsv_trace_find_process(trace, pid);

	if (p && p->name && p->name[0])
		return g_strdup_printf("%" PRIu32 " (%s)", pid, p->name);
	return g_strdup_printf("%" PRIu32, pid);
}

static void
describe_op(const FsvTrace *trace, guint32 index, GPtrArray *out, GArray *links)
{
	const FsvOp *o = fsv_trace_get_op(trace, index);
	guint n = 0;
	const guint32 *edges = fsv_trace_get_op_edges(trace, index, &n);
	bool is_wait = o->kind == FSA_OP_WAIT;

	add(out, "Operation", g_strdup(fsa_op_kind_name(o->kind)));
	add(out, "State", g_strdup(fsa_op_state_name(o->state)));
	add(out, "Source", g_strdup(fsa_op_source_name(o->source)));
	add(out, "Op id", g_strdup_printf("%" PRIu64, o->id));
	if (o->hwqueue_handle)
		add(out, "HWQueue", g_strdup_printf("0x%" PRIx64, o->hwqueue_handle));
	add(out, "Process", process_name(trace, o->process_id));
	if (o->adapter_id != UINT32_MAX)
		add(out, "Adapter", g_strdup_printf("%" PRIu32, o->adapter_id));
	if (o->engine_id != UINT32_MAX)
		add(out, "Engine", g_strdup_printf("%" PRIu32, o->engine_id));
	add(out, "Fence",
	    g_strdup_printf("0x%" PRIx64 " (global 0x%" PRIx64 ")", o->fence_handle,
			    o->fence_global_handle));
	add(out, "Value", g_strdup_printf("%" PRIu64, o->fence_value));
	if (o->source != FSA_SRC_CPU) {
		guint32 packet = find_op_packet(trace, o);

		add(out, "Progress value", g_strdup_printf("%" PRIu64, o->progress_value));
		if (packet != FSV_INDEX_NONE)
			add_link(out, links, "Packet",
				 g_strdup_printf("packet %" PRIu64,
						 fsv_trace_get_packet(trace, packet)->packet_id),
				 packet_item(trace, packet));
	}
	add_time(out, trace, "Queued", o->queued_ns, o->adapter_id, 0);
	if (is_wait && o->observed_ns != FSV_TIME_NONE)
		add_time(out, trace, "Reached on GPU", o->observed_ns, o->adapter_id,
			 o->observed_gpu_ts);
	add_time(out, trace, is_wait ? "Unblocked" : "Executed", o->op_end_ns, o->adapter_id,
		 o->end_gpu_ts);
	if (o->state == FSA_OP_INFERRED) {
		add_time(out, trace, "Inferred after", o->begin_ns, o->adapter_id, 0);
		add_time(out, trace, "Inferred before", o->end_ns, o->adapter_id, 0);
	}
	if (o->state == FSA_OP_OBSERVED || o->state == FSA_OP_UNQUEUED) {
		add_duration(out, "Duration", o->queued_ns, o->op_end_ns);
		if (is_wait && o->observed_ns != FSV_TIME_NONE) {
			add_duration(out, "Queued phase", o->queued_ns, o->observed_ns);
			add_duration(out, "Stalled on GPU", o->observed_ns, o->op_end_ns);
		}
	} else if (o->state == FSA_OP_NEVER_COMPLETED) {
		add(out, "Duration", g_strdup("never completed (open at the end of the trace)"));
	}
	if (o->log_position != UINT64_MAX && o->source == FSA_SRC_USER_MODE_QUEUE)
		add(out, "Log position", g_strdup_printf("%" PRIu64, o->log_position));
	if (o->source == FSA_SRC_CPU && is_wait) {
		add(out, "Wait result", g_strdup(cpu_wait_result_name(o->cpu_wait_result)));
		add(out, "Observed value", g_strdup_printf("%" PRIu64, o->observed_value));
	}
	if (is_wait) {
		if (o->signal_op != FSV_INDEX_NONE) {
			const FsvOp *s = fsv_trace_get_op(trace, o->signal_op);

			add_link(out, links, "Released by",
				 g_strdup_printf("signal op %" PRIu64 " (value %" PRIu64 ")", s->id,
						 s->fence_value),
				 op_item(trace, o->signal_op));
		} else {
			add(out, "Released by", g_strdup("unknown"));
		}
	} else {
		add(out, "Waits released", g_strdup_printf("%u", n));
		for (guint i = 0; i < n && i < 8; i++) {
			const FsvOp *w = fsv_trace_get_op(trace, edges[i]);

			add_link(out, links, "  Wait",
				 g_strdup_printf("op %" PRIu64 " on 0x%" PRIx64 " (≥ %" PRIu64 ")",
						 w->id, w->hwqueue_handle, w->fence_value),
				 op_item(trace, edges[i]));
		}
	}
}

static char *context_name(const FsvTrace *trace, guint64 handle);

/* The fence operations of a packet's command buffer: those of its queue with its progress
 * value (the first 8). */
static void
describe_packet_ops(const FsvTrace *trace, const FsvPacket *p, GPtrArray *out, GArray *links)
{
	guint32 row =
	    p->hwqueue_handle ? fsv_trace_find_queue_row(trace, p->hwqueue_handle) : FSV_INDEX_NONE;
	const guint32 *ops;
	guint n = 0, shown = 0;

	if (row == FSV_INDEX_NONE)
		return;
	ops = fsv_trace_get_row_ops(trace, row, &n);
	for (guint i = 0; i < n && shown < 8; i++) {
		const FsvOp *o = fsv_trace_get_op(trace, ops[i]);

		if (o->source == FSA_SRC_CPU || o->progress_value != p->progress_value)
			continue;
		add_link(out, links, shown == 0 ? "Operations" : "",
			 g_strdup_printf("%s op %" PRIu64 " fence 0x%" PRIx64 " %s %" PRIu64,
					 fsa_op_kind_name(o->kind), o->id, o->fence_handle,
					 o->kind == FSA_OP_WAIT ? "≥" : "=", o->fence_value),
			 op_item(trace, ops[i]));
		shown++;
	}
}

static void
describe_packet(const FsvTrace *trace, guint32 index, GPtrArray *out, GArray *links)
{
	const FsvPacket *p = fsv_trace_get_packet(trace, index);

	add(out, "Packet", g_strdup_printf("%" PRIu64, p->packet_id));
	add(out, "Status", g_strdup(fsa_packet_status_name(p->status)));
	add(out, "Kind",
	    g_strdup(p->is_context_switch ? "context switch (zero length, PRE-05)"
		     : p->is_paging       ? "paging"
		     : p->is_user_mode    ? "ring submission (user mode)"
					  : "DMA packet"));
	if (p->fence_id)
		add(out, "Fence id", g_strdup_printf("%" PRIu64, p->fence_id));
	/* PRE-06: a resubmitted paging piece keeps its fence id; PRE-07: others get a new one;
	 * PRE-09: a ring submission resumes at its saved point under its own id. */
	if (p->prev_piece != FSV_INDEX_NONE && !p->resubmission_of)
		add(out, "Resumes",
		    g_strdup_printf("%s %" PRIu64 " at its saved point",
				    p->is_user_mode ? "ring submission" : "packet", p->packet_id));
	if (p->prev_piece != FSV_INDEX_NONE && p->resubmission_of &&
	    fsv_trace_get_packet(trace, p->prev_piece)->fence_id && p->fence_id) {
		const FsvPacket *prev = fsv_trace_get_packet(trace, p->prev_piece);

		add(out, "Fence ids",
		    g_strdup_printf("%" PRIu64 " (packet %" PRIu64 ") → %" PRIu64 " %s",
				    prev->fence_id, prev->packet_id, p->fence_id,
				    prev->fence_id == p->fence_id ? "(kept)" : "(new)"));
	}
	if (p->hwqueue_handle)
		add(out, "HWQueue", g_strdup_printf("0x%" PRIx64, p->hwqueue_handle));
	if (p->context_handle)
		add(out, "Context", context_name(trace, p->context_handle));
	add(out, "Adapter", g_strdup_printf("%" PRIu32, p->adapter_id));
	add(out, "Engine", g_strdup_printf("%" PRIu32, p->engine_id));
	add(out, "Progress value", g_strdup_printf("%" PRIu64, p->progress_value));
	/* PRE-06, PRE-07: the pieces of a preempted packet, each named by its packet id. */
	if (p->resubmission_of && p->prev_piece != FSV_INDEX_NONE)
		add_link(out, links, "Resubmission of",
			 g_strdup_printf("packet %" PRIu64, p->resubmission_of),
			 packet_item(trace, p->prev_piece));
	else if (p->resubmission_of)
		add(out, "Resubmission of", g_strdup_printf("packet %" PRIu64, p->resubmission_of));
	if (p->next_piece != FSV_INDEX_NONE)
		add_link(out, links, "Resubmitted as",
			 g_strdup_printf("packet %" PRIu64,
					 fsv_trace_get_packet(trace, p->next_piece)->packet_id),
			 packet_item(trace, p->next_piece));
	if (p->prev_piece != FSV_INDEX_NONE || p->next_piece != FSV_INDEX_NONE) {
		guint32 first = index, n = 1;

		while (fsv_trace_get_packet(trace, first)->prev_piece != FSV_INDEX_NONE &&
		       n < 10000) {
			first = fsv_trace_get_packet(trace, first)->prev_piece;
			n++;
		}
		add(out, "Piece",
		    g_strdup_printf("%u (the work was first queued as packet %" PRIu64 ")", n,
				    fsv_trace_get_packet(trace, first)->packet_id));
	}
	add_time(out, trace, "Queued", p->queued_ns, p->adapter_id, 0);
	add_time(out, trace, "Started", p->start_ns, p->adapter_id, p->start_gpu_ts);
	add_time(out, trace, "Ended", p->end_ns, p->adapter_id, p->end_gpu_ts);
	add_duration(out, "Waited before start", p->queued_ns, p->start_ns);
	add_duration(out, "Ran for", p->start_ns, p->end_ns);
	describe_packet_ops(trace, p, out, links);
}

/* A doorbell status word value by name (FSTP_DOORBELL_STATUS_*). */
static const char *
doorbell_status_name(gint64 code)
{
	switch (code) {
	case FSTP_DOORBELL_STATUS_CONNECTED:
		return "CONNECTED";
	case FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD:
		return "CONNECTED_NOTIFY_KMD (rings must also notify the KMD)";
	case FSTP_DOORBELL_STATUS_DISCONNECTED_RETRY:
		return "DISCONNECTED_RETRY (reconnect, then ring again)";
	case FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT:
		return "DISCONNECTED_ABORT (the queue is dead)";
	default:
		return "unknown";
	}
}

static const char *
disconnect_reason_name(gint64 code)
{
	static const char *const names[] = {"victimized",  "engine F1",   "device D3",
					    "termination", "device lost", "destroy"};

	return code >= 0 && code < (gint64) G_N_ELEMENTS(names) ? names[code] : "unknown";
}

/* Names of the contract's enumerations (docs/trace-format.md "Enumerations"). */
static const char *
preempt_reason_name(gint64 code)
{
	static const char *const names[] = {
	    "TIME_SLICE (its time slice ran out)", "PRIORITY (a higher priority context was ready)",
	    "SUSPEND (the context was suspended)", "TDR (no progress for the TDR delay)",
	    "TERMINATION (its process ended)",     "POWER (the engine or adapter powered down)"};

	return code >= 0 && code < (gint64) G_N_ELEMENTS(names) ? names[code] : "unknown";
}

static const char *
loss_reason_name(gint64 code)
{
	static const char *const names[] = {"TIMEOUT",  "ENGINE_HUNG", "PAGE_FAULT",
					    "GPU_STOP", "TERMINATION", "INVALID_COMMAND"};

	return code >= 0 && code < (gint64) G_N_ELEMENTS(names) ? names[code] : "unknown";
}

static const char *
tdr_result_name(gint64 code)
{
	static const char *const names[] = {"ENGINE_RESET (the engine reset recovered it)",
					    "ADAPTER_RESET (the engine reset failed)",
					    "FAILED (the adapter is stopped)"};

	return code >= 0 && code < (gint64) G_N_ELEMENTS(names) ? names[code] : "unknown";
}

/* A preemption granularity (FSTP_PREEMPT_GRANULARITY_*, PRE-03) in the words of the engine's
 * kind of work: graphics boundaries, or compute ones on a compute engine. */
const char *
_fsv_granularity_name(gint64 code, bool is_compute)
{
	switch (code) {
	case FSTP_PREEMPT_GRANULARITY_NONE:
		return "none";
	case FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY:
		return "DMA buffer boundary";
	case FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY:
		return is_compute ? "dispatch boundary" : "primitive boundary";
	case FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY:
		return is_compute ? "thread group boundary" : "triangle boundary";
	case FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY:
		return is_compute ? "thread boundary" : "pixel boundary";
	case FSTP_PREEMPT_GRANULARITY_SHADER_BOUNDARY:
		return "shader boundary";
	default:
		return "unknown";
	}
}

static const char *
fault_kind_name(gint64 code)
{
	static const char *const names[] = {
	    "HUNG_ENGINE (a packet that never ends)",
	    "IGNORES_PREEMPTION (the engine stops only at a coarser boundary)",
	    "LOST_INTERRUPT (raised, never handled)",
	    "DELAYED_INTERRUPT (handled late)",
	    "CORRUPT_PACKET (a malformed command in a ring)",
	    "PROCESS_KILLED (killed mid-submission)",
	    "LOG_OVERRUN_STORM (fence logs overrun)"};

	return code >= 0 && code < (gint64) G_N_ELEMENTS(names) ? names[code] : "unknown";
}

static const char *
interrupt_type_name(gint64 code)
{
	static const char *const names[] = {"DMA_COMPLETED",
					    "NATIVE_FENCE_SIGNALED",
					    "MONITORED_FENCE_SIGNALED",
					    "ENGINE_STATE_CHANGE",
					    "PAGE_FAULT",
					    "DMA_PREEMPTED",
					    "CRTC_VSYNC"};

	return code >= 0 && code < (gint64) G_N_ELEMENTS(names) ? names[code] : "unknown";
}

/* "0x20 · pid 42 game · priority 8, slice 2 ms": a context with what the trace says of it. */
static char *
context_name(const FsvTrace *trace, guint64 handle)
{
	const struct fsa_context_info *c = fsv_trace_find_context(trace, handle);
	g_autofree char *proc = NULL, *slice = NULL, *d = NULL;

	if (!c)
		return g_strdup_printf("0x%" PRIx64, handle);
	proc = process_name(trace, c->process_id);
	if (!c->has_schedule)
		return g_strdup_printf("0x%" PRIx64 " · pid %s", handle, proc);
	slice = c->time_slice_ns
		    ? g_strdup_printf("time slice %s", (d = fsv_format_duration(c->time_slice_ns)))
		    : g_strdup("no time slice (runs to completion)");
	return g_strdup_printf("0x%" PRIx64 " · pid %s · priority %" PRIu32 ", %s", handle, proc,
			       c->priority, slice);
}

/* "0x8003… · pid 42 game": a queue handle with its process when the trace knows the queue. */
static char *
queue_name(const FsvTrace *trace, guint64 handle)
{
	const struct fsa_queue_info *q = fsv_trace_find_queue(trace, handle);
	g_autofree char *proc = NULL;

	if (!q)
		return g_strdup_printf("HWQueue 0x%" PRIx64, handle);
	proc = process_name(trace, q->process_id);
	return g_strdup_printf("HWQueue 0x%" PRIx64 " · %s", handle, proc);
}

static const char *
fault_type_name(gint64 code)
{
	switch (code) {
	case FSTP_FAULT_TYPE_NOT_MAPPED:
		return "NOT_MAPPED (no valid page table entry)";
	case FSTP_FAULT_TYPE_READ_ONLY:
		return "READ_ONLY (a write to a read-only page)";
	default:
		return "unknown";
	}
}

static const char *
access_name(gint64 code)
{
	return code == FSTP_ACCESS_KIND_WRITE  ? "write"
	       : code == FSTP_ACCESS_KIND_READ ? "read"
					       : "unknown";
}

static char *
format_bytes(guint64 bytes)
{
	g_autofree char *iec = g_format_size_full(bytes, G_FORMAT_SIZE_IEC_UNITS);

	return g_strdup_printf("%s (%" PRIu64 " bytes)", iec, bytes);
}

/* MMU-04, MMU-06, MMU-07, MMU-11, MMU-12: a mapping, a reserve or a free of a process's VA
 * space. */
static void
describe_va(const FsvMarker *m, GPtrArray *out)
{
	add(out, "VA range",
	    g_strdup_printf("0x%" PRIx64 " – 0x%" PRIx64, m->value,
			    m->value2 ? m->value + m->value2 - 1 : m->value));
	add(out, "Size", format_bytes(m->value2));
	if (m->kind == FSA_MARK_VA_MAPPING) {
		add(out, "Page size",
		    m->code2 ? g_strdup_printf("%" PRId64 " KB", m->code2 / 1024)
			     : g_strdup("unknown"));
		add(out, "Segment",
		    g_strdup(m->code == FSTP_SEGMENT_SYSTEM ? "system memory"
							    : "local (video) memory"));
		add(out, "Allocation", g_strdup_printf("0x%" PRIx64, m->other_handle));
		add(out, "Mapped",
		    g_strdup(m->is_open ? "until the end of the trace (never unmapped)"
					: "until its unmap (End)"));
	} else if (m->kind == FSA_MARK_VA_RESERVE) {
		add(out, "VA picked by",
		    g_strdup(m->code ? "the memory manager (between the UMD's bounds)"
				     : "the UMD"));
	}
}

/* XAD-07, XAD-08: a propagation of a cross-adapter fence's signal, or a NotificationOnly update
 * of one adapter. */
static void
describe_propagation(const FsvTrace *trace, const FsvMarker *m, GPtrArray *out)
{
	add(out, "Fence", g_strdup_printf("0x%" PRIx64, m->other_handle));
	add(out, "Value", g_strdup_printf("%" PRIu64, m->value));
	if (m->kind == FSA_MARK_FENCE_NOTIFICATION) {
		add(out, "Update",
		    g_strdup("UpdateCurrentValuesFromCpu, NotificationOnly (no write, XAD-08)"));
		return;
	}
	add(out, "From adapter",
	    g_strdup_printf("%" PRIu32 " (%s)", m->adapter_id,
			    fsv_trace_get_fence_object(trace, m->other_handle, m->adapter_id) ==
				    FSTP_FENCE_OBJECT_MONITORED
				? "monitored"
				: "native"));
	add(out, "To adapter",
	    g_strdup_printf("%" PRId64 " (%s)", m->code,
			    fsv_trace_get_fence_object(trace, m->other_handle, (guint32) m->code) ==
				    FSTP_FENCE_OBJECT_MONITORED
				? "monitored"
				: "native"));
	if (m->code2 == 1)
		/* XAD-14: to a monitored fence the OS makes no driver call and releases at once. */
		add(out, "NotificationOnly update",
		    g_strdup("none: a monitored fence there, the OS releases its waiters itself"));
	else if (m->is_open)
		add(out, "NotificationOnly update", g_strdup("none in the trace"));
	else
		add_duration(out, "Propagate → notified", m->begin_ns, m->end_ns);
	if (m->value2) {
		guint32 sig = fsv_trace_find_op_by_id(trace, m->value2);
		guint n = 0, released = 0;
		const guint32 *edges =
		    sig != FSV_INDEX_NONE ? fsv_trace_get_op_edges(trace, sig, &n) : NULL;
		guint64 last_end = 0;

		add(out, "Signal", g_strdup_printf("op %" PRIu64, m->value2));
		if (sig != FSV_INDEX_NONE) {
			const FsvOp *so = fsv_trace_get_op(trace, sig);

			add_duration(out, "Signal → propagate", so->end_ns, m->begin_ns);
			for (guint i = 0; i < n; i++) {
				const FsvOp *w = fsv_trace_get_op(trace, edges[i]);

				if (w->adapter_id == (guint32) m->code) {
					released++;
					last_end = MAX(last_end, w->end_ns);
				}
			}
			add(out, "Waits released there", g_strdup_printf("%u", released));
			if (released)
				add_duration(out, "Signal → last wait released", so->end_ns,
					     last_end);
		}
	}
}

/* "+12 µs after": how long after the fault a step of its recovery came. */
static char *
after_fault(const FsvMarker *fault, guint64 ns)
{
	g_autofree char *d = fsv_format_duration(ns >= fault->begin_ns ? ns - fault->begin_ns : 0);

	return g_strdup_printf("%s after", d);
}

/* MMU-14, TDR-06: a page fault — the access, the context that did it, and the recovery that
 * followed (the TDR of its engine, the resets inside it, the context in error, the device
 * lost), each with how long after the fault it came. */
static void
describe_page_fault(const FsvTrace *trace, const FsvMarker *m, GPtrArray *out)
{
	FsvFaultRecovery rec;
	guint32 index = (guint32) (m - fsv_trace_get_marker(trace, 0));
	GString *steps = g_string_new(NULL);

	add(out, "Faulting VA", g_strdup_printf("0x%" PRIx64, m->value));
	add(out, "Fault type", g_strdup(fault_type_name(m->code)));
	/* Format 1.5: the access; the engine's fault names its packet, the OS's names what it
	 * terminated and the engine's fault it answers (its packet, the delay). */
	if (trace && fsv_trace_get_summary(trace)->format_minor >= 5 &&
	    fsv_trace_get_summary(trace)->format_major == 1)
		add(out, "Access", g_strdup(access_name(m->code2)));
	if (m->kind == FSA_MARK_PAGE_FAULT && m->value2)
		add(out, "Packet", g_strdup_printf("%" PRIu64, m->value2));
	if (m->kind == FSA_MARK_PAGE_FAULT_HANDLED) {
		add(out, "Terminated",
		    g_strdup(m->value2 == FSTP_FAULT_SCOPE_DEVICE ? "the device (scope DEVICE)"
								  : "the context (scope CONTEXT)"));
		if (m->other_handle)
			add(out, "Packet", g_strdup_printf("%" PRIu64, m->other_handle));
		if (m->latency_ns != FSV_TIME_NONE)
			add(out, "Engine fault → handled", fsv_format_duration(m->latency_ns));
	}
	if (m->context_handle)
		add(out, "Faulting context", context_name(trace, m->context_handle));
	if (!_fsv_trace_find_fault_recovery(trace, index, &rec)) {
		add(out, "Recovery", g_strdup("none in the trace"));
		g_string_free(steps, TRUE);
		return;
	}
	if (rec.tdr != FSV_INDEX_NONE) {
		const FsvMarker *tdr = fsv_trace_get_marker(trace, rec.tdr);
		g_autofree char *when = after_fault(m, tdr->begin_ns);

		add(out, "Recovery",
		    g_strdup_printf("TDR (%s), %s", loss_reason_name((gint64) tdr->value), when));
		g_string_append(steps, "TDR");
		if (rec.engine_reset != FSV_INDEX_NONE) {
			const FsvMarker *r = fsv_trace_get_marker(trace, rec.engine_reset);
			g_autofree char *w = after_fault(m, r->begin_ns);

			add(out, "Engine reset",
			    g_strdup_printf("%s, %s", r->code ? "succeeded" : "failed", w));
			g_string_append_printf(steps, " → engine reset%s",
					       r->code ? "" : " (failed)");
		}
		if (rec.adapter_reset != FSV_INDEX_NONE) {
			const FsvMarker *r = fsv_trace_get_marker(trace, rec.adapter_reset);
			g_autofree char *w = after_fault(m, r->begin_ns);

			add(out, "Adapter reset",
			    g_strdup_printf("%s, %s", r->code ? "succeeded" : "failed", w));
			g_string_append_printf(steps, " → adapter reset%s",
					       r->code ? "" : " (failed)");
		}
		if (!tdr->is_open) {
			g_autofree char *w = after_fault(m, tdr->end_ns);

			add(out, "TDR ended",
			    g_strdup_printf("%s, %s", tdr_result_name(tdr->code), w));
		}
	}
	if (rec.context_error != FSV_INDEX_NONE) {
		const FsvMarker *e = fsv_trace_get_marker(trace, rec.context_error);
		g_autofree char *w = after_fault(m, e->begin_ns);

		add(out, "Context in error", g_steal_pointer(&w));
		g_string_append(steps, steps->len ? " → context in error" : "context in error");
	}
	if (rec.device_lost != FSV_INDEX_NONE) {
		const FsvMarker *d = fsv_trace_get_marker(trace, rec.device_lost);
		g_autofree char *w = after_fault(m, d->begin_ns);

		add(out, "Device lost", g_strdup_printf("0x%" PRIx64 ", %s", d->other_handle, w));
		g_string_append(steps, steps->len ? " → device lost" : "device lost");
	}
	add(out, "Recovery steps", g_string_free(steps, FALSE));
}

/* The fields a doorbell, suspend or power marker means (docs/viewer.md "Doorbells"); false
 * for other kinds, which get the generic value and code. */
static bool
describe_marker_meaning(const FsvTrace *trace, const FsvMarker *m, GPtrArray *out)
{
	/* PRE-13: a display's vsync and flips. */
	if (_fsv_marker_is_vsync(m)) {
		add(out, "Display", g_strdup_printf("%" PRIu32, _fsv_marker_display_source(m)));
		add(out, "Vsync", g_strdup_printf("%" PRIu64, _fsv_vsync_count(m)));
		if (_fsv_vsync_flip_id(m))
			add(out, "Flip latched",
			    g_strdup_printf("%" PRIu64, _fsv_vsync_flip_id(m)));
		else
			add(out, "Flip latched",
			    g_strdup(m->is_missed
					 ? "none: missed, the previous frame was shown again"
					 : "none"));
		return true;
	}
	if (_fsv_marker_is_flip(m)) {
		add(out, "Display", g_strdup_printf("%" PRIu32, _fsv_marker_display_source(m)));
		add(out, "Flip", g_strdup_printf("%" PRIu64, _fsv_flip_id(m)));
		if (m->is_open)
			add(out, "On screen",
			    g_strdup("never (still pending at the end of the trace)"));
		else if (_fsv_flip_vsync_count(m))
			add(out, "On screen at vsync",
			    g_strdup_printf("%" PRIu64, _fsv_flip_vsync_count(m)));
		return true;
	}
	switch (m->kind) {
	case FSA_MARK_DOORBELL_RING:
		add(out, "Write pointer", g_strdup_printf("%" PRIu64 " bytes", m->value));
		add(out, "Status read", g_strdup(doorbell_status_name(m->code)));
		return true;
	case FSA_MARK_DOORBELL_STATE:
	case FSA_MARK_DOORBELL_CONNECTED:
		add(out, "State",
		    g_strdup(doorbell_status_name(m->kind == FSA_MARK_DOORBELL_STATE
						      ? m->code
						      : FSTP_DOORBELL_STATUS_CONNECTED)));
		if (m->kind == FSA_MARK_DOORBELL_CONNECTED || m->value != UINT32_MAX)
			add(out, "Physical doorbell", g_strdup_printf("%" PRIu64, m->value));
		return true;
	case FSA_MARK_DOORBELL_CREATE:
		add(out, "Status", g_strdup(doorbell_status_name(m->code)));
		return true;
	case FSA_MARK_DOORBELL_CONNECT:
		add(out, "Physical doorbell",
		    m->value == UINT32_MAX ? g_strdup("none")
					   : g_strdup_printf("%" PRIu64, m->value));
		add(out, "Status", g_strdup(doorbell_status_name(m->code)));
		return true;
	case FSA_MARK_DOORBELL_DISCONNECT:
		add(out, "Physical doorbell", g_strdup_printf("%" PRIu64, m->value));
		add(out, "Reason", g_strdup(disconnect_reason_name(m->code)));
		return true;
	case FSA_MARK_DOORBELL_VICTIMIZE:
		/* UMS-23: the victim lost its physical doorbell to the beneficiary. */
		add(out, "Victim", queue_name(trace, m->hwqueue_handle));
		add(out, "Beneficiary",
		    m->other_handle ? queue_name(trace, m->other_handle) : g_strdup("unknown"));
		add(out, "Physical doorbell", g_strdup_printf("%" PRIu64, m->value));
		return true;
	case FSA_MARK_CONTEXT_SUSPENDED:
		add(out, "Queues suspended", g_strdup_printf("%" PRIu64, m->value));
		return true;
	case FSA_MARK_ENGINE_F1:
		add(out, "State", g_strdup("F1 (engine powered down)"));
		return true;
	case FSA_MARK_DEVICE_D3:
		add(out, "State", g_strdup("D3 (adapter powered down)"));
		return true;
	case FSA_MARK_PREEMPTION: {
		/* PRE-03, PRE-04, PRE-09, TDR-01. */
		const struct fsa_engine_info *e =
		    fsv_trace_find_engine(trace, m->adapter_id, m->engine_id);
		bool is_compute = e && e->engine_type == FSTP_ENGINE_TYPE_COMPUTE;
		guint64 ns = 0;

		add(out, "Reason", g_strdup(preempt_reason_name(m->code)));
		if (m->value)
			add(out, "Packet preempted", g_strdup_printf("%" PRIu64, m->value));
		if (m->is_open || m->code2 < 0) {
			add(out, "Completed", g_strdup("never (the engine did not stop)"));
		} else {
			add(out, "Stopped at",
			    g_strdup(_fsv_granularity_name(m->code2, is_compute)));
			if (m->value2 == 0)
				add(out, "Work left", g_strdup("none (it stopped at its end)"));
			else if (fsv_trace_ticks_to_ns(trace, m->adapter_id, m->value2, &ns)) {
				g_autofree char *d = fsv_format_duration(ns);

				add(out, "Work left",
				    g_strdup_printf("%" PRIu64 " GPU ticks (%s)", m->value2, d));
			} else
				add(out, "Work left",
				    g_strdup_printf("%" PRIu64 " GPU ticks", m->value2));
		}
		if (e) {
			gint64 declared =
			    is_compute ? e->compute_preempt_granularity : e->preempt_granularity;

			add(out, "Engine declares",
			    g_strdup_printf("%s%s", _fsv_granularity_name(declared, is_compute),
					    e->is_preemption_aware ? ""
								   : " (not PreemptionAware)"));
			/* A coarser boundary than declared: the engine ignored the request until
			 * then (the IGNORES_PREEMPTION fault, or a faulty driver). */
			if (!m->is_open && m->code2 >= 0 && m->code2 < declared)
				add(out, "Note",
				    g_strdup("stopped at a coarser boundary than declared"));
		}
		return true;
	}
	case FSA_MARK_TDR:
		/* TDR-04..06: the recovery interval, tdr_begin → tdr_end. */
		add(out, "Reason", g_strdup(loss_reason_name((gint64) m->value)));
		add(out, "Guilty context",
		    m->context_handle ? context_name(trace, m->context_handle)
				      : g_strdup("none known"));
		add(out, "Result",
		    m->is_open ? g_strdup("still recovering at the end of the trace")
			       : g_strdup(tdr_result_name(m->code)));
		return true;
	case FSA_MARK_TDR_DETECT:
		/* TDR-01..03: the watchdog's finding; the marker spans the stall it reports. */
		add(out, "Reason",
		    g_strdup(m->code == FSTP_LOSS_REASON_ENGINE_HUNG
				 ? "ENGINE_HUNG (the KMD reported the engine Hung)"
				 : "TIMEOUT (no progress for the TDR delay)"));
		add(out, "No progress for", fsv_format_duration(m->value));
		if (m->context_handle)
			add(out, "Context running", context_name(trace, m->context_handle));
		return true;
	case FSA_MARK_ENGINE_RESET:
		add(out, "Result",
		    g_strdup(m->code ? "succeeded" : "failed (promoted to an adapter reset)"));
		return true;
	case FSA_MARK_ADAPTER_RESET:
		/* TDR-06: every engine of the adapter. */
		add(out, "Result",
		    g_strdup(m->code ? "succeeded" : "failed (the adapter is stopped: GPU_STOP)"));
		return true;
	case FSA_MARK_CONTEXT_ERROR:
		/* TDR-04: from context_error to the context's destruction. */
		add(out, "In error", context_name(trace, m->context_handle));
		add(out, "Device", g_strdup_printf("0x%" PRIx64, m->other_handle));
		add(out, "Reason", g_strdup(loss_reason_name(m->code)));
		return true;
	case FSA_MARK_FAULT_INJECTED:
		add(out, "Fault", g_strdup(fault_kind_name(m->code)));
		add(out, "Detail", g_strdup_printf("%" PRIu64, m->value));
		return true;
	case FSA_MARK_INTERRUPT_LATE:
	case FSA_MARK_INTERRUPT_UNHANDLED:
		add(out, "Interrupt", g_strdup(interrupt_type_name(m->code)));
		add(out, "Handled",
		    m->kind == FSA_MARK_INTERRUPT_UNHANDLED
			? g_strdup("never")
			: g_strdup("late (1 ms or more after its raise)"));
		return true;
	case FSA_MARK_DEVICE_LOST:
		add(out, "Device", g_strdup_printf("0x%" PRIx64, m->other_handle));
		add(out, "Reason", g_strdup(loss_reason_name(m->code)));
		return true;
	case FSA_MARK_PAGE_FAULT:
	case FSA_MARK_PAGE_FAULT_HANDLED:
		describe_page_fault(trace, m, out);
		return true;
	case FSA_MARK_VA_MAPPING:
	case FSA_MARK_VA_RESERVE:
	case FSA_MARK_VA_FREE:
		describe_va(m, out);
		return true;
	case FSA_MARK_FENCE_PROPAGATION:
	case FSA_MARK_FENCE_NOTIFICATION:
		describe_propagation(trace, m, out);
		return true;
	default:
		return false;
	}
}

static void
describe_marker(const FsvTrace *trace, guint32 index, GPtrArray *out)
{
	const FsvMarker *m = fsv_trace_get_marker(trace, index);

	add(out, "Marker", g_strdup(fsa_marker_kind_name(m->kind)));
	if (m->kind == FSA_MARK_TDR_DETECT) {
		add_time(out, trace, "Detected", m->end_ns, m->adapter_id, 0);
		add_time(out, trace, "No progress since", m->begin_ns, m->adapter_id, 0);
	} else {
		add_time(out, trace, "Begin", m->begin_ns, m->adapter_id, 0);
	}
	if (m->kind != FSA_MARK_TDR_DETECT && (m->end_ns != m->begin_ns || m->is_open)) {
		add_time(out, trace, "End", m->end_ns, m->adapter_id, 0);
		if (m->is_open)
			add(out, "Duration", g_strdup("still open at the end of the trace"));
		else
			add_duration(out, "Duration", m->begin_ns, m->end_ns);
	}
	if (m->hwqueue_handle && m->kind != FSA_MARK_DOORBELL_VICTIMIZE)
		add(out, "HWQueue", g_strdup_printf("0x%" PRIx64, m->hwqueue_handle));
	if (m->context_handle)
		add(out, "Context", g_strdup_printf("0x%" PRIx64, m->context_handle));
	if (m->doorbell_handle)
		add(out, "Doorbell", g_strdup_printf("0x%" PRIx64, m->doorbell_handle));
	/* Kinds whose other handle their own fields name (a device, the beneficiary, a display,
	 * the fence propagated, the allocation mapped, the faulting packet). */
	if (m->other_handle && m->kind != FSA_MARK_DOORBELL_VICTIMIZE &&
	    m->kind != FSA_MARK_DEVICE_LOST && m->kind != FSA_MARK_CONTEXT_ERROR &&
	    m->kind != FSA_MARK_FENCE_PROPAGATION && m->kind != FSA_MARK_FENCE_NOTIFICATION &&
	    m->kind != FSA_MARK_VA_MAPPING && m->kind != FSA_MARK_PAGE_FAULT_HANDLED &&
	    _fsv_marker_display_source(m) == UINT32_MAX)
		add(out, "Other handle", g_strdup_printf("0x%" PRIx64, m->other_handle));
	if (m->adapter_id != UINT32_MAX)
		add(out, "Adapter", g_strdup_printf("%" PRIu32, m->adapter_id));
	if (m->engine_id != UINT32_MAX)
		add(out, "Engine", g_strdup_printf("%" PRIu32, m->engine_id));
	if (m->process_id != UINT32_MAX)
		add(out, "Process", process_name(trace, m->process_id));
	if (!describe_marker_meaning(trace, m, out)) {
		add(out, "Value",
		    g_strdup_printf("%" PRIu64 " (0x%" PRIx64 ")", m->value, m->value));
		add(out, "Code", g_strdup_printf("%" PRId64, m->code));
	}
	if (m->latency_ns != FSV_TIME_NONE && m->kind == FSA_MARK_DOORBELL_CONNECT)
		add(out, "Reconnect latency", fsv_format_duration(m->latency_ns));
}

static void
describe_loss(const FsvTrace *trace, guint32 index, GPtrArray *out)
{
	const FsvLoss *l = fsv_trace_get_loss(trace, index);
	const struct fsa_loss *x = &l->loss;

	add(out, "Lost data", g_strdup(fsa_loss_kind_name(x->kind)));
	switch (x->kind) {
	case FSA_LOSS_LOG_OVERRUN:
	case FSA_LOSS_LOG_GAP:
		add(out, "Entries lost", g_strdup_printf("%" PRIu64, x->count));
		add(out, "HWQueue", g_strdup_printf("0x%" PRIx64, x->hwqueue_handle));
		add(out, "Log", g_strdup(x->log_type == FSTP_LOG_TYPE_WAITS ? "waits" : "signals"));
		add(out, "Positions",
		    g_strdup_printf("%" PRIu64 " → %" PRIu64, x->cached_position, x->new_position));
		add(out, "Ops inferred", g_strdup_printf("%" PRIu64, x->inferred_ops));
		break;
	case FSA_LOSS_TRACER_EVENTS:
	case FSA_LOSS_TRACER_PACKETS:
		add(out,
		    x->kind == FSA_LOSS_TRACER_EVENTS ? "Events discarded" : "Packets discarded",
		    x->count ? g_strdup_printf("%" PRIu64, x->count) : g_strdup("unknown"));
		add(out, "Stream",
		    g_strdup_printf("%" PRIu64 " (CPU %" PRIu32 ")", x->stream_id, x->cpu_id));
		break;
	case FSA_LOSS_KIND_COUNT:
		break;
	}
	add_time(out, trace, "From", x->begin_ns, UINT32_MAX, 0);
	add_time(out, trace, "To", x->end_ns, UINT32_MAX, 0);
	add_duration(out, "Range", x->begin_ns, x->end_ns);
}

static void
describe_step(const FsvTrace *trace, guint32 row, guint32 index, GPtrArray *out)
{
	guint n = 0;
	const FsvFenceStep *steps = fsv_trace_get_fence_steps(trace, row, &n);
	const FsvRow *r = fsv_trace_get_row(trace, row);

	if (index >= n)
		return;
	add(out, "Fence", g_strdup_printf("0x%" PRIx64, r->fence_global_handle));
	add(out, "CurrentValue", g_strdup_printf("%" PRIu64, steps[index].value));
	add_time(out, trace, "From", steps[index].ns, r->adapter_id, 0);
	if (steps[index].op == FSV_STEP_BUFFER_COMPLETED)
		add(out, "Shown by", g_strdup("command buffer completed"));
	else if (steps[index].op == FSV_STEP_PROPAGATED)
		add(out, "Shown by",
		    g_strdup_printf("propagation from adapter %" PRIu32 " (XAD-07)",
				    fsv_trace_get_marker(trace, steps[index].marker)->adapter_id));
	else if (steps[index].op != FSV_INDEX_NONE)
		add(out, "Shown by",
		    g_strdup_printf("op %" PRIu64, fsv_trace_get_op(trace, steps[index].op)->id));
	else
		add(out, "Shown by", g_strdup("initial value"));
}

static void
describe_row(const FsvTrace *trace, guint32 index, guint64 frame_budget_ns, GPtrArray *out)
{
	const FsvRow *r = fsv_trace_get_row(trace, index);
	char *given = fsv_trace_dup_frames_sublabel(trace, index, frame_budget_ns);

	add(out, "Row", g_strdup(r->label));
	if (given)
		add(out, "", given);
	else if (r->sublabel[0])
		add(out, "", g_strdup(r->sublabel));
	if (r->kind == FSV_ROW_QUEUE) {
		const struct fsa_queue_info *q = fsv_trace_find_queue(trace, r->hwqueue_handle);

		if (q) {
			add(out, "Waits", g_strdup_printf("%" PRIu64, q->wait_count));
			add(out, "Signals", g_strdup_printf("%" PRIu64, q->signal_count));
			add(out, "Packets", g_strdup_printf("%" PRIu64, q->packet_count));
			add(out, "Ring size",
			    g_strdup_printf("%" PRIu32 " bytes", q->ring_size_bytes));
			add(out, "Progress fence",
			    g_strdup_printf("0x%" PRIx64, q->progress_fence_handle));
			add_time(out, trace, "Created", q->created_ns, UINT32_MAX, 0);
			add_time(out, trace, "Destroyed", q->destroyed_ns, UINT32_MAX, 0);
		}
	} else if (r->kind == FSV_ROW_VA_SPACE) {
		/* MMU-01..03, MMU-06: what the model counted in this VA space. */
		const struct fsa_va_space_info *v =
		    fsv_trace_find_va_space(trace, r->process_id, r->adapter_id);

		if (v) {
			add(out, "Adapter", g_strdup_printf("%" PRIu32, v->adapter_id));
			if (v->va_size_bytes)
				add(out, "VA size", format_bytes(v->va_size_bytes));
			add(out, "Page table levels",
			    g_strdup_printf("%" PRIu32, v->page_table_levels));
			add(out, "Reserves / frees",
			    g_strdup_printf("%" PRIu64 " / %" PRIu64, v->reserve_count,
					    v->free_count));
			add(out, "Maps / unmaps",
			    g_strdup_printf("%" PRIu64 " / %" PRIu64, v->map_count,
					    v->unmap_count));
			add(out, "Mapped at the end", format_bytes(v->mapped_bytes));
			add(out, "Mapped at most", format_bytes(v->mapped_bytes_peak));
			add(out, "Page tables created / destroyed",
			    g_strdup_printf("%" PRIu64 " / %" PRIu64, v->page_tables_created,
					    v->page_tables_destroyed));
			add(out, "Root resizes", g_strdup_printf("%" PRIu64, v->root_resizes));
			add(out, "Page table updates",
			    g_strdup_printf("%" PRIu64 " (%" PRIu64 " entries written, %" PRIu64
					    " invalidated)",
					    v->page_table_updates, v->entries_written,
					    v->entries_invalidated));
			add(out, "Page tables resident / evicted",
			    g_strdup_printf("%" PRIu64 " / %" PRIu64, v->page_tables_made_resident,
					    v->page_tables_evicted));
			add(out, "Page faults", g_strdup_printf("%" PRIu64, v->page_faults));
			add_time(out, trace, "Created", v->created_ns, UINT32_MAX, 0);
			add_time(out, trace, "Destroyed", v->destroyed_ns, UINT32_MAX, 0);
		}
	} else if (r->kind == FSV_ROW_XFENCE) {
		const struct fsa_fence_info *f =
		    fsv_trace_find_fence(trace, r->fence_global_handle);

		add(out, "Adapter", g_strdup_printf("%" PRIu32, r->adapter_id));
		add(out, "Here",
		    g_strdup(
			fsv_trace_get_fence_object(trace, r->fence_global_handle, r->adapter_id) ==
				FSTP_FENCE_OBJECT_MONITORED
			    ? "a monitored fence (the adapter has no native fences, XAD-10)"
			    : "a native fence"));
		if (f) {
			add(out, "Created on adapter", g_strdup_printf("%" PRIu32, f->adapter_id));
			add(out, "Propagations", g_strdup_printf("%" PRIu64, f->propagation_count));
			add(out, "NotificationOnly updates",
			    g_strdup_printf("%" PRIu64, f->notification_count));
		}
	} else if (r->kind == FSV_ROW_BUSY) {
		/* Issue 15 §4: what the engine's busy row sums up. */
		guint64 b = fsv_trace_get_begin_ns(trace), e = fsv_trace_get_end_ns(trace);
		guint64 busy = fsv_counters_busy_ns(trace, index, b, e);

		add(out, "Counter", g_strdup("busy fraction: share of time a packet ran"));
		add(out, "Busy over the trace",
		    g_strdup_printf("%.1f %%",
				    e > b ? 100.0 * (double) busy / (double) (e - b) : 0.0));
		add(out, "Busy intervals",
		    g_strdup_printf("%u", fsv_counters_get_busy_count(trace, index)));
	} else if (r->kind == FSV_ROW_DEPTH) {
		add(out, "Counter", g_strdup("queue depth: operations submitted − completed"));
		add(out, "Largest depth",
		    g_strdup_printf("%" G_GUINT32_FORMAT,
				    fsv_counters_get_depth_max(trace, index)));
		add(out, "Change points",
		    g_strdup_printf("%u", fsv_counters_get_depth_count(trace, index)));
	} else if (r->kind == FSV_ROW_FENCE) {
		const struct fsa_fence_info *f =
		    fsv_trace_find_fence(trace, r->fence_global_handle);

		if (f) {
			add(out, "Initial value", g_strdup_printf("%" PRIu64, f->initial_value));
			add(out, "Final value", g_strdup_printf("%" PRIu64, f->final_value));
			add(out, "Waits", g_strdup_printf("%" PRIu64, f->wait_count));
			add(out, "Signals", g_strdup_printf("%" PRIu64, f->signal_count));
		}
	}
	add(out, "Operations", g_strdup_printf("%" PRIu32, r->op_count));
	if (r->packet_count)
		add(out, "Packets drawn", g_strdup_printf("%" PRIu32, r->packet_count));
	if (r->marker_count)
		add(out, "Markers", g_strdup_printf("%" PRIu32, r->marker_count));
}

/* The lanes of a collapsed row's aggregated slot starting at FIRST: to the end of its half. */
static guint
stacked_lane_count(const FsvRow *r, guint first)
{
	guint end = first < r->first_lower_lane ? r->first_lower_lane : r->lane_count;

	return end > first ? end - first : 0;
}

/* docs/viewer.md "Lanes": the aggregated slot of a collapsed row. */
static void
describe_lanes(const FsvTrace *trace, guint32 row, guint first, GPtrArray *out)
{
	const FsvRow *r = fsv_trace_get_row(trace, row);
	guint n = stacked_lane_count(r, first);

	add(out, "Kind", g_strdup("stacked lanes (row collapsed)"));
	add(out, "Row", g_strdup(r->label));
	add(out, "Lanes",
	    g_strdup_printf("%u more (lanes %u – %u of %u)", n, first + 1, first + n,
			    r->lane_count));
	add(out, "Boxes",
	    g_strdup(first < r->first_lower_lane ? "waits"
		     : r->op_count               ? "signals"
						 : "packets"));
	add(out, "Click", g_strdup("expands the row: every box in a lane of its own"));
}

/* Issue 15 §4: a counter row's item: an engine's busy interval or idle gap, a queue's depth
 * from one change point to the next. */
/* ---- Frames (issue 16 §3, fsv-frames.h) --------------------------------------------------- */

static void
describe_frame(const FsvTrace *trace, guint32 index, guint64 frame_budget_ns, GPtrArray *out,
	       GArray *links)
{
	const FsvFrame *f = fsv_trace_get_frame(trace, index);
	guint32 flip = fsv_trace_find_frame_flip(trace, f->row, f->flip_id, f->queued_ns);
	guint64 budget = frame_budget_ns                       ? frame_budget_ns
			 : f->vsync_period_ns != FSV_TIME_NONE ? f->vsync_period_ns
							       : 0;

	add(out, "Frame",
	    g_strdup_printf("#%" PRIu64 "%s", f->index,
			    f->is_pending ? " (pending present: never on screen)" : ""));
	add(out, "Display",
	    g_strdup_printf("adapter %" PRIu32 " · display %" PRIu32, f->adapter_id, f->source_id));
	if (!f->is_pending) {
		add(out, "Frame time", fsv_format_duration(f->frame_time_ns));
		if (budget > 0) {
			g_autofree char *text = fsv_format_duration(budget);

			add(out, "Budget",
			    g_strdup_printf(
				"%s (%s)%s", text,
				frame_budget_ns ? "given" : "the display's vsync period",
				fsv_frame_is_over_budget(f, frame_budget_ns) ? " · over" : ""));
		}
		add(out, "Missed vsyncs", g_strdup_printf("%" PRIu64, f->missed_vsyncs));
		add(out, "Latched at vsync", g_strdup_printf("%" PRIu64, f->vsync_count));
	}
	add_time(out, trace, "From", f->begin_ns, UINT32_MAX, 0);
	add_time(out, trace, "To", f->end_ns, UINT32_MAX, 0);
	if (flip != FSV_INDEX_NONE)
		add_link(out, links, "Flip",
			 g_strdup_printf("%" PRIu64 " (queued → on screen)", f->flip_id),
			 (FsvItem){FSV_ITEM_MARKER, flip, f->row - 1});
	else
		add(out, "Flip", g_strdup_printf("%" PRIu64, f->flip_id));
	add_time(out, trace, "Queued", f->queued_ns, UINT32_MAX, 0);
	add_time(out, trace, "Done", f->done_ns, UINT32_MAX, 0);
	if (f->present_latency_ns != FSV_TIME_NONE)
		add(out, "Present latency", fsv_format_duration(f->present_latency_ns));
	if (f->process_id != UINT32_MAX)
		add(out, "Process", process_name(trace, f->process_id));
	if (f->context_handle)
		add(out, "Context", g_strdup_printf("0x%" PRIx64, f->context_handle));
}

static void
describe_counter(const FsvTrace *trace, const FsvItem *item, GPtrArray *out)
{
	const FsvRow *r = fsv_trace_get_row(trace, item->row);
	const FsvRow *of = fsv_trace_get_row(
	    trace, r->kind == FSV_ROW_BUSY ? r->parent : item->row - 1); /* fsv-trace.h */
	guint64 b, e, span = fsv_trace_get_end_ns(trace) - fsv_trace_get_begin_ns(trace);

	if (!fsv_counters_get_item_span(trace, item, &b, &e))
		return;
	if (r->kind == FSV_ROW_BUSY) {
		guint64 busy = fsv_counters_busy_ns(trace, item->row, fsv_trace_get_begin_ns(trace),
						    fsv_trace_get_end_ns(trace));

		add(out, "Engine", g_strdup(of->label));
		add(out, "State", g_strdup(item->index % 2 ? "busy (a packet ran)" : "idle"));
		add_time(out, trace, "From", b, UINT32_MAX, 0);
		add_time(out, trace, "To", e, UINT32_MAX, 0);
		add_duration(out, "Duration", b, e);
		add(out, "Busy over the trace",
		    g_strdup_printf("%.1f %%", span ? 100.0 * (double) busy / (double) span : 0.0));
		return;
	}
	{
		guint64 ns;
		guint32 depth;

		fsv_counters_get_depth_point(trace, item->row, item->index, &ns, &depth);
		add(out, "Queue", g_strdup(of->label));
		add(out, "Depth",
		    g_strdup_printf("%" G_GUINT32_FORMAT " (submitted − completed)", depth));
		add_time(out, trace, "From", b, UINT32_MAX, 0);
		add_time(out, trace, "To", e, UINT32_MAX, 0);
		add_duration(out, "Duration", b, e);
		add(out, "Largest depth",
		    g_strdup_printf("%" G_GUINT32_FORMAT,
				    fsv_counters_get_depth_max(trace, item->row)));
	}
}

char **
fsv_trace_describe_item(const FsvTrace *trace, const FsvItem *item)
{
	return fsv_trace_describe_item_with_links(trace, item, 0, NULL);
}

char **
fsv_trace_describe_item_with_links(const FsvTrace *trace, const FsvItem *item,
				   guint64 frame_budget_ns, GArray **links)
{
	g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GArray) targets = links ? g_array_new(FALSE, FALSE, sizeof(FsvItem)) : NULL;

	g_return_val_if_fail(trace != NULL && item != NULL, NULL);
	switch (item->kind) {
	case FSV_ITEM_OP:
		if (item->index < fsv_trace_get_op_count(trace))
			describe_op(trace, item->index, out, targets);
		break;
	case FSV_ITEM_PACKET:
		if (item->index < fsv_trace_get_packet_count(trace))
			describe_packet(trace, item->index, out, targets);
		break;
	case FSV_ITEM_MARKER:
		if (item->index < fsv_trace_get_marker_count(trace))
			describe_marker(trace, item->index, out);
		break;
	case FSV_ITEM_LOSS:
		if (item->index < fsv_trace_get_loss_count(trace))
			describe_loss(trace, item->index, out);
		break;
	case FSV_ITEM_FENCE_STEP:
		if (item->row < fsv_trace_get_row_count(trace))
			describe_step(trace, item->row, item->index, out);
		break;
	case FSV_ITEM_ROW:
		if (item->index < fsv_trace_get_row_count(trace))
			describe_row(trace, item->index, frame_budget_ns, out);
		break;
	case FSV_ITEM_LANES:
		if (item->row < fsv_trace_get_row_count(trace))
			describe_lanes(trace, item->row, item->index, out);
		break;
	case FSV_ITEM_COUNTER:
		describe_counter(trace, item, out);
		break;
	case FSV_ITEM_FRAME:
		if (item->index < fsv_trace_get_frame_count(trace))
			describe_frame(trace, item->index, frame_budget_ns, out, targets);
		break;
	case FSV_ITEM_NONE:
	default:
		break;
	}
	if (links) {
		pad_links(targets, out);
		*links = g_steal_pointer(&targets);
	}
	g_ptr_array_set_free_func(out, NULL);
	g_ptr_array_add(out, NULL);
	return (char **) g_ptr_array_free(g_steal_pointer(&out), FALSE);
}

char *
fsv_trace_dup_item_title(const FsvTrace *trace, const FsvItem *item)
{
	g_return_val_if_fail(trace != NULL && item != NULL, NULL);
	switch (item->kind) {
	case FSV_ITEM_OP:
		if (item->index < fsv_trace_get_op_count(trace)) {
			const FsvOp *o = fsv_trace_get_op(trace, item->index);
			const char *state = o->state == FSA_OP_OBSERVED   ? ""
					    : o->state == FSA_OP_INFERRED ? " (inferred)"
					    : o->state == FSA_OP_UNQUEUED ? " (unqueued)"
									  : " (never completed)";

			return o->kind == FSA_OP_WAIT
				   ? g_strdup_printf("Wait fence 0x%" PRIx64 " ≥ %" PRIu64 "%s",
						     o->fence_handle, o->fence_value, state)
				   : g_strdup_printf("Signal fence 0x%" PRIx64 " = %" PRIu64 "%s",
						     o->fence_handle, o->fence_value, state);
		}
		break;
	case FSV_ITEM_PACKET:
		if (item->index < fsv_trace_get_packet_count(trace)) {
			const FsvPacket *p = fsv_trace_get_packet(trace, item->index);

			return g_strdup_printf("Packet %" PRIu64 " (%s)", p->packet_id,
					       fsa_packet_status_name(p->status));
		}
		break;
	case FSV_ITEM_MARKER:
		if (item->index < fsv_trace_get_marker_count(trace)) {
			const FsvMarker *m = fsv_trace_get_marker(trace, item->index);

			if (m->kind == FSA_MARK_DOORBELL_VICTIMIZE)
				return g_strdup_printf(
				    "Doorbell %" PRIu64 " victimized: 0x%" PRIx64 " → 0x%" PRIx64,
				    m->value, m->hwqueue_handle, m->other_handle);
			if (m->kind == FSA_MARK_DOORBELL_STATE) {
				const char *name = doorbell_status_name(m->code);

				return g_strdup_printf("Doorbell %.*s", (int) strcspn(name, " "),
						       name);
			}
			if (m->kind == FSA_MARK_DOORBELL_RING)
				return g_strdup_printf("Doorbell ring, write pointer %" PRIu64,
						       m->value);
			if (_fsv_marker_is_vsync(m))
				return g_strdup_printf("Vsync %" PRIu64 "%s", _fsv_vsync_count(m),
						       m->is_missed ? " (missed)" : "");
			if (_fsv_marker_is_flip(m))
				return g_strdup_printf("Flip %" PRIu64, _fsv_flip_id(m));
			if (m->kind == FSA_MARK_PREEMPTION) {
				const char *r = preempt_reason_name(m->code);
				const struct fsa_engine_info *e =
				    fsv_trace_find_engine(trace, m->adapter_id, m->engine_id);

				/* PRE-03: where it stopped, for the tooltip; "never completed" for
				 * a request the engine did not answer. */
				return g_strdup_printf(
				    "Preemption (%.*s) of packet %" PRIu64 ", %s",
				    (int) strcspn(r, " "), r, m->value,
				    m->is_open || m->code2 < 0
					? "never completed"
					: _fsv_granularity_name(m->code2,
								e && e->engine_type ==
									 FSTP_ENGINE_TYPE_COMPUTE));
			}
			if (m->kind == FSA_MARK_TDR_DETECT) {
				g_autofree char *d = fsv_format_duration(m->value);

				return g_strdup_printf("TDR detection: no progress for %s", d);
			}
			if (m->kind == FSA_MARK_TDR && m->context_handle)
				return g_strdup_printf("TDR, guilty context 0x%" PRIx64,
						       m->context_handle);
			if (m->kind == FSA_MARK_CONTEXT_ERROR)
				return g_strdup_printf("Context 0x%" PRIx64 " in error",
						       m->context_handle);
			if (m->kind == FSA_MARK_ADAPTER_RESET || m->kind == FSA_MARK_ENGINE_RESET)
				return g_strdup_printf("%s reset%s",
						       m->kind == FSA_MARK_ADAPTER_RESET ? "Adapter"
											 : "Engine",
						       m->code ? "" : " (failed)");
			if (m->kind == FSA_MARK_PAGE_FAULT)
				return g_strdup_printf("Page fault at VA 0x%" PRIx64, m->value);
			if (m->kind == FSA_MARK_PAGE_FAULT_HANDLED)
				return g_strdup_printf("Page fault at VA 0x%" PRIx64 " handled",
						       m->value);
			if (m->kind == FSA_MARK_VA_MAPPING) {
				g_autofree char *size =
				    g_format_size_full(m->value2, G_FORMAT_SIZE_IEC_UNITS);

				return g_strdup_printf("VA mapping 0x%" PRIx64 ", %s", m->value,
						       size);
			}
			if (m->kind == FSA_MARK_VA_RESERVE || m->kind == FSA_MARK_VA_FREE) {
				g_autofree char *size =
				    g_format_size_full(m->value2, G_FORMAT_SIZE_IEC_UNITS);

				return g_strdup_printf("VA %s 0x%" PRIx64 ", %s",
						       m->kind == FSA_MARK_VA_RESERVE ? "reserve"
										      : "free",
						       m->value, size);
			}
			if (m->kind == FSA_MARK_FENCE_NOTIFICATION)
				return g_strdup_printf("Fence 0x%" PRIx64 " = %" PRIu64
						       " notified (NotificationOnly)",
						       m->other_handle, m->value);
			if (m->kind == FSA_MARK_FENCE_PROPAGATION)
				return g_strdup_printf(
				    "Fence 0x%" PRIx64 " = %" PRIu64 " propagated, adapter %" PRIu32
				    " → %" PRId64,
				    m->other_handle, m->value, m->adapter_id, m->code);
			if (m->kind == FSA_MARK_FAULT_INJECTED) {
				const char *f = fault_kind_name(m->code);

				return g_strdup_printf("Fault injected: %.*s",
						       (int) strcspn(f, " "), f);
			}
			return g_strdup(fsa_marker_kind_name(m->kind));
		}
		break;
	case FSV_ITEM_COUNTER: {
		guint64 b, e;

		if (!fsv_counters_get_item_span(trace, item, &b, &e))
			break;
		if (fsv_trace_get_row(trace, item->row)->kind == FSV_ROW_BUSY)
			return g_strdup(item->index % 2 ? "Engine busy" : "Engine idle");
		{
			guint64 ns;
			guint32 depth;

			fsv_counters_get_depth_point(trace, item->row, item->index, &ns, &depth);
			return g_strdup_printf("Queue depth %" G_GUINT32_FORMAT, depth);
		}
	}
	case FSV_ITEM_LOSS:
		if (item->index < fsv_trace_get_loss_count(trace)) {
			const FsvLoss *l = fsv_trace_get_loss(trace, item->index);

			if (fsa_loss_is_per_log(l->loss.kind))
				return g_strdup_printf("Fence log %s: %" PRIu64 " entries lost",
						       l->loss.kind == FSA_LOSS_LOG_GAP ? "gap"
											: "overrun",
						       l->loss.count);
			return g_strdup_printf("Tracer discarded %" PRIu64 " %s", l->loss.count,
					       l->loss.kind == FSA_LOSS_TRACER_EVENTS ? "events"
										      : "packets");
		}
		break;
	case FSV_ITEM_FENCE_STEP:
		return g_strdup("CurrentValue");
	case FSV_ITEM_FRAME:
		if (item->index < fsv_trace_get_frame_count(trace)) {
			const FsvFrame *f = fsv_trace_get_frame(trace, item->index);
			g_autofree char *t = fsv_format_duration(f->frame_time_ns);

			return f->is_pending
				   ? g_strdup_printf("Frame #%" PRIu64 " (pending present)",
						     f->index)
				   : g_strdup_printf("Frame #%" PRIu64 " · %s", f->index, t);
		}
		break;
	case FSV_ITEM_ROW:
		if (item->index < fsv_trace_get_row_count(trace))
			return g_strdup(fsv_trace_get_row(trace, item->index)->label);
		break;
	case FSV_ITEM_LANES:
		if (item->row < fsv_trace_get_row_count(trace))
			return g_strdup_printf(
			    "+%u more lanes (click to expand)",
			    stacked_lane_count(fsv_trace_get_row(trace, item->row), item->index));
		break;
	case FSV_ITEM_NONE:
	default:
		break;
	}
	return g_strdup("");
}
