/* SPDX-License-Identifier: MIT */
/*
 * Scheduling, preemption, TDR, display and fault accounting for the report (trace format 1.4,
 * docs/report-schema.md 2.2): what report.c's callbacks hand over is folded here, and at the end
 * the TDR sequences are assembled and every injected fault looked for its effect
 * (docs/robustness.md, the rule of "Fault accounting" in docs/report-schema.md `faults`).
 *
 * Memory: statistics are bounded; preempted pieces wait for their preemption marker (and their
 * resubmission) and leave once matched; TDR markers, aborted or faulted packets, faults, their
 * effects and log overruns are kept whole — they are rare, except overruns in a trace that
 * overruns its logs all the time (16 bytes each are kept, as `losses` keeps its records).
 */
#include <stdlib.h>
#include <string.h>

#include "recovery-private.h"
#include "report-private.h"

#include "fencescope-tp-enums.h"

#define NAME_OR_UNKNOWN(table, i)                                                                  \
	((i) >= 0 && (size_t) (i) < sizeof(table) / sizeof((table)[0]) && (table)[i] ? (table)[i]  \
										     : "unknown")

const char *
preempt_reason_name(int64_t reason)
{
	static const char *const names[] = {"time_slice", "priority",    "suspend",
					    "tdr",        "termination", "power"};

	return NAME_OR_UNKNOWN(names, reason);
}

const char *
preempt_granularity_name(int64_t granularity)
{
	switch (granularity) {
	case -1:
		return "not_completed";
	case FSTP_PREEMPT_GRANULARITY_NONE:
		return "none";
	case FSTP_PREEMPT_GRANULARITY_DMA_BUFFER_BOUNDARY:
		return "dma_buffer_boundary";
	case FSTP_PREEMPT_GRANULARITY_PRIMITIVE_OR_DISPATCH_BOUNDARY:
		return "primitive_or_dispatch_boundary";
	case FSTP_PREEMPT_GRANULARITY_TRIANGLE_OR_THREAD_GROUP_BOUNDARY:
		return "triangle_or_thread_group_boundary";
	case FSTP_PREEMPT_GRANULARITY_PIXEL_OR_THREAD_BOUNDARY:
		return "pixel_or_thread_boundary";
	case FSTP_PREEMPT_GRANULARITY_SHADER_BOUNDARY:
		return "shader_boundary";
	default:
		return "unknown";
	}
}

const char *
loss_reason_name(int64_t reason)
{
	static const char *const names[] = {"timeout",  "engine_hung", "page_fault",
					    "gpu_stop", "termination", "invalid_command"};

	return NAME_OR_UNKNOWN(names, reason);
}

const char *
tdr_result_name(int64_t result)
{
	static const char *const names[] = {"engine_reset", "adapter_reset", "failed"};

	return NAME_OR_UNKNOWN(names, result);
}

const char *
fault_kind_name(int64_t kind)
{
	static const char *const names[] = {
	    "hung_engine",    "ignores_preemption", "lost_interrupt",   "delayed_interrupt",
	    "corrupt_packet", "process_killed",     "log_overrun_storm"};

	return NAME_OR_UNKNOWN(names, kind);
}

static void
slice_free(gpointer data)
{
	struct fsa_slice_acc *slice = data;

	quantile_fini(&slice->length);
	g_free(slice);
}

static void
display_free(gpointer data)
{
	struct fsa_display_acc *display = data;

	quantile_fini(&display->period);
	quantile_fini(&display->latency);
	g_free(display);
}

static void
pieces_free(gpointer data)
{
	g_queue_free_full(data, g_free);
}

struct fsa_recovery *
recovery_new(void)
{
	struct fsa_recovery *rc = g_new0(struct fsa_recovery, 1);

	rc->preempts = g_array_new(FALSE, FALSE, sizeof(struct fsa_preempt_acc));
	rc->slice_engines = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, slice_free);
	rc->slice_contexts = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, slice_free);
	rc->slice_markers = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	rc->preempted_pieces =
	    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, pieces_free);
	rc->preempted_fence_ids =
	    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	rc->resubmissions = g_array_new(FALSE, FALSE, sizeof(struct fsa_resubmission));
	rc->displays = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, display_free);
	rc->tdr_markers = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	rc->lost_packets = g_array_new(FALSE, FALSE, sizeof(struct fsa_packet));
	rc->faults = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	rc->effects = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	rc->overruns = g_array_new(FALSE, FALSE, sizeof(struct fsa_loss));
	rc->unsignalled = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	rc->sequences = g_array_new(FALSE, FALSE, sizeof(struct fsa_tdr_sequence));
	rc->errors = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	rc->unaccounted = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	return rc;
}

void
recovery_free(struct fsa_recovery *rc)
{
	if (!rc)
		return;
	for (size_t i = 0; i < rc->preempts->len; i++)
		quantile_fini(&g_array_index(rc->preempts, struct fsa_preempt_acc, i).latency);
	g_array_free(rc->preempts, TRUE);
	g_hash_table_destroy(rc->slice_engines);
	g_hash_table_destroy(rc->slice_contexts);
	g_hash_table_destroy(rc->slice_markers);
	g_hash_table_destroy(rc->preempted_pieces);
	g_hash_table_destroy(rc->preempted_fence_ids);
	g_array_free(rc->resubmissions, TRUE);
	g_hash_table_destroy(rc->displays);
	g_array_free(rc->tdr_markers, TRUE);
	g_array_free(rc->lost_packets, TRUE);
	g_array_free(rc->faults, TRUE);
	g_array_free(rc->effects, TRUE);
	g_array_free(rc->overruns, TRUE);
	g_hash_table_destroy(rc->unsignalled);
	g_array_free(rc->sequences, TRUE);
	g_array_free(rc->errors, TRUE);
	g_array_free(rc->unaccounted, TRUE);
	g_free(rc);
}

static uint64_t *
key_new(uint64_t key)
{
	uint64_t *copy = g_new(uint64_t, 1);

	*copy = key;
	return copy;
}

static uint64_t
packet_key(uint32_t adapter_id, uint64_t packet_id)
{
	/* Packet ids are unique per adapter and small next to 2^48. */
	return (uint64_t) adapter_id << 48 ^ packet_id;
}

static struct fsa_slice_acc *
get_slice(GHashTable *table, uint64_t key, uint32_t adapter_id, uint32_t engine_id,
	  uint64_t context_handle)
{
	struct fsa_slice_acc *slice = g_hash_table_lookup(table, &key);

	if (!slice) {
		slice = g_new0(struct fsa_slice_acc, 1);
		slice->key = key;
		slice->adapter_id = adapter_id;
		slice->engine_id = engine_id;
		slice->context_handle = context_handle;
		quantile_init(&slice->length);
		g_hash_table_insert(table, &slice->key, slice);
	}
	return slice;
}

static struct fsa_slice_acc *
engine_slices(struct fsa_recovery *rc, uint32_t adapter_id, uint32_t engine_id)
{
	return get_slice(rc->slice_engines, (uint64_t) adapter_id << 32 | engine_id, adapter_id,
			 engine_id, 0);
}

static struct fsa_slice_acc *
context_slices(struct fsa_recovery *rc, uint32_t adapter_id, uint32_t engine_id,
	       uint64_t context_handle)
{
	return get_slice(rc->slice_contexts, context_handle, adapter_id, engine_id, context_handle);
}

/* A run interval that a TIME_SLICE preemption ended: one slice of its engine and context. */
struct piece {
	uint64_t length_ns;
	uint32_t engine_id;
	uint64_t context_handle;
};

static fsa_status
add_slice(struct fsa_recovery *rc, uint32_t adapter_id, const struct piece *piece)
{
	fsa_status status = quantile_add(&engine_slices(rc, adapter_id, piece->engine_id)->length,
					 piece->length_ns);

	if (status == FSA_OK && piece->context_handle)
		status = quantile_add(
		    &context_slices(rc, adapter_id, piece->engine_id, piece->context_handle)
			 ->length,
		    piece->length_ns);
	return status;
}

fsa_status
recovery_on_op(struct fsa_report *r, const struct fsa_op *op)
{
	const struct fsa_queue_info *queue;
	uint64_t *count;

	/* The fences a context left: its queues' signals that never executed. */
	if (op->kind != FSA_OP_SIGNAL || op->state != FSA_OP_NEVER_COMPLETED || !r->model ||
	    !op->hwqueue_handle)
		return FSA_OK;
	queue = fsa_model_find_queue(r->model, op->hwqueue_handle);
	if (!queue || !queue->context_handle)
		return FSA_OK;
	count = g_hash_table_lookup(r->recovery->unsignalled, &queue->context_handle);
	if (!count) {
		count = g_new0(uint64_t, 1);
		g_hash_table_insert(r->recovery->unsignalled, key_new(queue->context_handle),
				    count);
	}
	(*count)++;
	return FSA_OK;
}

fsa_status
recovery_on_packet(struct fsa_report *r, const struct fsa_packet *packet)
{
	struct fsa_recovery *rc = r->recovery;
	uint64_t key = packet_key(packet->adapter_id, packet->packet_id);
	uint64_t length = packet->start_ns != FSA_TIME_NONE && packet->end_ns != FSA_TIME_NONE &&
				  packet->end_ns >= packet->start_ns
			      ? packet->end_ns - packet->start_ns
			      : 0;
	struct fsa_slice_acc *engine = engine_slices(rc, packet->adapter_id, packet->engine_id);
	struct fsa_slice_acc *context =
	    packet->context_handle
		? context_slices(rc, packet->adapter_id, packet->engine_id, packet->context_handle)
		: NULL;
	fsa_status status = FSA_OK;

	if (packet->fence_id || packet->is_context_switch)
		rc->has_data = true;
	engine->packets++;
	if (context)
		context->packets++;
	if (packet->resubmission_of) {
		uint64_t old = packet_key(packet->adapter_id, packet->resubmission_of);
		uint64_t *fence = g_hash_table_lookup(rc->preempted_fence_ids, &old);
		struct fsa_resubmission resub = {
		    .adapter_id = packet->adapter_id,
		    .engine_id = packet->engine_id,
		    .hwqueue_handle = packet->hwqueue_handle,
		    .packet_id = packet->packet_id,
		    .resubmission_of = packet->resubmission_of,
		    .old_fence_id = fence ? *fence - 1 : 0,
		    .new_fence_id = packet->fence_id,
		    .is_paging = packet->is_paging,
		    .start_ns = packet->start_ns,
		};

		engine->resubmissions++;
		if (context)
			context->resubmissions++;
		rc->resubmission_count++;
		rc->resubmissions_paging += packet->is_paging;
		if (fence && resub.old_fence_id == resub.new_fence_id) {
			rc->resubmissions_same_fence_id++;
			rc->resubmissions_paging_same_fence_id += packet->is_paging;
		}
		if (rc->resubmissions->len < r->options.example_count)
			g_array_append_val(rc->resubmissions, resub);
		g_hash_table_remove(rc->preempted_fence_ids, &old);
	}
	if (packet->status == FSA_PACKET_PREEMPTED) {
		struct piece piece = {length, packet->engine_id, packet->context_handle};

		engine->preempted++;
		if (context)
			context->preempted++;
		g_hash_table_insert(rc->preempted_fence_ids, key_new(key),
				    g_memdup2(&(uint64_t){packet->fence_id + 1}, sizeof(uint64_t)));
		/* PRE-15: a slice is a run interval that a TIME_SLICE preemption ended. A ring
		 * submission resumes under its packet id: one id may name several pieces and
		 * preemptions, matched in order. */
		guint waiting = GPOINTER_TO_UINT(g_hash_table_lookup(rc->slice_markers, &key));

		if (waiting) {
			if (waiting > 1)
				g_hash_table_insert(rc->slice_markers, key_new(key),
						    GUINT_TO_POINTER(waiting - 1));
			else
				g_hash_table_remove(rc->slice_markers, &key);
			status = add_slice(rc, packet->adapter_id, &piece);
		} else {
			GQueue *pieces = g_hash_table_lookup(rc->preempted_pieces, &key);

			if (!pieces) {
				pieces = g_queue_new();
				g_hash_table_insert(rc->preempted_pieces, key_new(key), pieces);
			}
			g_queue_push_tail(pieces, g_memdup2(&piece, sizeof(piece)));
		}
	} else if (packet->status == FSA_PACKET_ABORTED || packet->status == FSA_PACKET_FAULTED) {
		g_array_append_val(rc->lost_packets, *packet);
	}
	return status;
}

static struct fsa_preempt_acc *
get_preempt(struct fsa_recovery *rc, const struct fsa_marker *m)
{
	struct fsa_preempt_acc *acc;
	int64_t granularity = m->end_ns == FSA_TIME_NONE ? -1 : m->code2;

	for (size_t i = 0; i < rc->preempts->len; i++) {
		acc = &g_array_index(rc->preempts, struct fsa_preempt_acc, i);
		if (acc->adapter_id == m->adapter_id && acc->engine_id == m->engine_id &&
		    acc->reason == m->code && acc->granularity == granularity)
			return acc;
	}
	g_array_set_size(rc->preempts, rc->preempts->len + 1);
	acc = &g_array_index(rc->preempts, struct fsa_preempt_acc, rc->preempts->len - 1);
	*acc = (struct fsa_preempt_acc){
	    .adapter_id = m->adapter_id,
	    .engine_id = m->engine_id,
	    .reason = m->code,
	    .granularity = granularity,
	};
	quantile_init(&acc->latency);
	return acc;
}

/* PRE-03: the finest boundary the engine declared for its kind of work, -1 when unknown. */
static int64_t
declared_granularity(const struct fsa_report *r, uint32_t adapter_id, uint32_t engine_id)
{
	const struct fsa_engine_info *engine =
	    r->model ? fsa_model_find_engine(r->model, adapter_id, engine_id) : NULL;

	if (!engine)
		return -1;
	return engine->engine_type == FSTP_ENGINE_TYPE_COMPUTE ? engine->compute_preempt_granularity
							       : engine->preempt_granularity;
}

static fsa_status
on_preemption(struct fsa_report *r, const struct fsa_marker *m)
{
	struct fsa_recovery *rc = r->recovery;
	struct fsa_preempt_acc *acc = get_preempt(rc, m);
	fsa_status status = FSA_OK;
	int64_t declared = declared_granularity(r, m->adapter_id, m->engine_id);

	acc->count++;
	if (m->end_ns != FSA_TIME_NONE && m->end_ns >= m->begin_ns)
		status = quantile_add(&acc->latency, m->end_ns - m->begin_ns);
	if (m->code2 > 0 || m->value2)
		rc->has_data = true;
	if (m->code == FSTP_PREEMPT_REASON_TDR)
		g_array_append_val(rc->tdr_markers, *m);
	/* Fault accounting (IGNORES_PREEMPTION): stopped at a coarser boundary than declared, or
	 * never completed. */
	if (m->end_ns == FSA_TIME_NONE || (declared >= 0 && m->code2 >= 0 && m->code2 < declared))
		g_array_append_val(rc->effects, *m);
	if (status == FSA_OK && m->code == FSTP_PREEMPT_REASON_TIME_SLICE &&
	    m->end_ns != FSA_TIME_NONE && m->value) {
		uint64_t key = packet_key(m->adapter_id, m->value);
		GQueue *pieces = g_hash_table_lookup(rc->preempted_pieces, &key);

		if (pieces && !g_queue_is_empty(pieces)) {
			struct piece *piece = g_queue_pop_head(pieces);

			status = add_slice(rc, m->adapter_id, piece);
			g_free(piece);
			if (g_queue_is_empty(pieces))
				g_hash_table_remove(rc->preempted_pieces, &key);
		} else {
			guint waiting =
			    GPOINTER_TO_UINT(g_hash_table_lookup(rc->slice_markers, &key));

			g_hash_table_insert(rc->slice_markers, key_new(key),
					    GUINT_TO_POINTER(waiting + 1));
		}
	}
	return status;
}

/* The vsync count a display had at `ts` (0 before its first; UINT64_MAX when older than the
 * vsyncs remembered). */
static uint64_t
vsync_at(const struct fsa_display_acc *d, uint64_t ts)
{
	for (size_t i = 0; i < d->ring_len; i++) {
		size_t at = (d->ring_next + FSA_VSYNC_RING - 1 - i) % FSA_VSYNC_RING;

		if (d->ring_ns[at] <= ts)
			return d->ring_count[at];
	}
	return d->ring_len == FSA_VSYNC_RING ? UINT64_MAX : 0;
}

static struct fsa_display_acc *
get_display(struct fsa_recovery *rc, uint32_t adapter_id, uint64_t source_id)
{
	uint64_t key = (uint64_t) adapter_id << 32 | (uint32_t) source_id;
	struct fsa_display_acc *d = g_hash_table_lookup(rc->displays, &key);

	if (!d) {
		d = g_new0(struct fsa_display_acc, 1);
		d->key = key;
		d->adapter_id = adapter_id;
		d->source_id = (uint32_t) source_id;
		d->last_vsync_ns = FSA_TIME_NONE;
		quantile_init(&d->period);
		quantile_init(&d->latency);
		g_hash_table_insert(rc->displays, &d->key, d);
	}
	return d;
}

/* PRE-13: vsync periods, flip latency, and flips that missed the vsync after their queuing. */
static fsa_status
on_display(struct fsa_report *r, const struct fsa_marker *m)
{
	struct fsa_display_acc *d = get_display(r->recovery, m->adapter_id, m->other_handle);
	fsa_status status = FSA_OK;

	if (m->kind == FSA_MARK_VSYNC) {
		d->vsyncs++;
		if (d->last_vsync_ns != FSA_TIME_NONE && m->begin_ns >= d->last_vsync_ns)
			status = quantile_add(&d->period, m->begin_ns - d->last_vsync_ns);
		d->last_vsync_ns = m->begin_ns;
		d->ring_ns[d->ring_next] = m->begin_ns;
		d->ring_count[d->ring_next] = m->value;
		d->ring_next = (d->ring_next + 1) % FSA_VSYNC_RING;
		if (d->ring_len < FSA_VSYNC_RING)
			d->ring_len++;
		return status;
	}
	d->flips++;
	if (m->end_ns == FSA_TIME_NONE) {
		d->flips_pending++;
		return FSA_OK;
	}
	d->flips_done++;
	if (m->end_ns >= m->begin_ns)
		status = quantile_add(&d->latency, m->end_ns - m->begin_ns);
	/* It should take effect at the first vsync after it was queued. */
	{
		uint64_t before = vsync_at(d, m->begin_ns);

		if (before == UINT64_MAX || (m->value2 && m->value2 > before + 1))
			d->missed++;
	}
	return status;
}

fsa_status
recovery_on_marker(struct fsa_report *r, const struct fsa_marker *m)
{
	struct fsa_recovery *rc = r->recovery;

	if (m->kind >= FSA_MARK_TDR_DETECT && m->kind < FSA_MARK_KIND_COUNT)
		rc->has_data = true;
	switch (m->kind) {
	case FSA_MARK_PREEMPTION:
		return on_preemption(r, m);
	case FSA_MARK_TDR:
	case FSA_MARK_TDR_DETECT:
	case FSA_MARK_ENGINE_RESET:
	case FSA_MARK_ADAPTER_RESET:
	case FSA_MARK_DEVICE_LOST:
		g_array_append_val(rc->tdr_markers, *m);
		break;
	case FSA_MARK_CONTEXT_ERROR:
		g_array_append_val(rc->tdr_markers, *m);
		g_array_append_val(rc->errors, *m);
		break;
	case FSA_MARK_VSYNC:
	case FSA_MARK_FLIP:
		return on_display(r, m);
	case FSA_MARK_FAULT_INJECTED:
		g_array_append_val(rc->faults, *m);
		break;
	case FSA_MARK_INTERRUPT_LATE:
	case FSA_MARK_INTERRUPT_UNHANDLED:
		g_array_append_val(rc->effects, *m);
		break;
	default:
		break;
	}
	return FSA_OK;
}

void
recovery_on_loss(struct fsa_report *r, const struct fsa_loss *loss)
{
	if (loss->kind == FSA_LOSS_LOG_OVERRUN)
		g_array_append_val(r->recovery->overruns, *loss);
}

bool
recovery_is_shown(const struct fsa_report *r)
{
	const struct fsa_summary *sum = r->model ? fsa_model_borrow_summary(r->model) : NULL;

	if (r->recovery->has_data)
		return true;
	if (sum && sum->has_trace_info &&
	    (sum->format_major > 1 || (sum->format_major == 1 && sum->format_minor >= 4)))
		return true;
	for (size_t i = 0; r->model && i < fsa_model_context_count(r->model); i++)
		if (fsa_model_borrow_context(r->model, i)->has_schedule)
			return true;
	return false;
}

/* --- TDR sequences ------------------------------------------------------------------------- */

static gint
compare_marker_time(gconstpointer a, gconstpointer b)
{
	const struct fsa_marker *x = a, *y = b;

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

static struct fsa_tdr_sequence *
new_sequence(struct fsa_recovery *rc, uint32_t adapter_id, uint32_t engine_id)
{
	struct fsa_tdr_sequence s = {
	    .adapter_id = adapter_id,
	    .engine_id = engine_id,
	    .detect_ns = FSA_TIME_NONE,
	    .reason = -1,
	    .preempt_ns = FSA_TIME_NONE,
	    .preempt_complete_ns = FSA_TIME_NONE,
	    .begin_ns = FSA_TIME_NONE,
	    .end_ns = FSA_TIME_NONE,
	    .result = -1,
	    .engine_reset = -1,
	    .adapter_reset = -1,
	    .guilty_process = UINT32_MAX,
	};

	g_array_append_val(rc->sequences, s);
	return &g_array_index(rc->sequences, struct fsa_tdr_sequence, rc->sequences->len - 1);
}

/* The latest sequence of the engine that began at or before `ts` and `is_open` says takes it. */
static struct fsa_tdr_sequence *
latest_sequence(struct fsa_recovery *rc, uint32_t adapter_id, uint32_t engine_id, uint64_t ts,
		bool want_preempt)
{
	for (size_t i = rc->sequences->len; i-- > 0;) {
		struct fsa_tdr_sequence *s =
		    &g_array_index(rc->sequences, struct fsa_tdr_sequence, i);
		uint64_t start = s->detect_ns != FSA_TIME_NONE ? s->detect_ns : s->begin_ns;

		if (s->adapter_id != adapter_id || s->engine_id != engine_id || start > ts)
			continue;
		if (want_preempt ? s->preempt_ns == FSA_TIME_NONE : s->begin_ns == FSA_TIME_NONE)
			return s;
		return NULL; /* the latest one already has it: this one starts another */
	}
	return NULL;
}

static bool
within(uint64_t ts, uint64_t begin, uint64_t end)
{
	return ts != FSA_TIME_NONE && ts >= begin && (end == FSA_TIME_NONE || ts <= end);
}

/* The adapter of a device, through the contexts the model knows; UINT32_MAX unknown. */
static uint32_t
device_adapter(const struct fsa_report *r, uint64_t device_handle)
{
	for (size_t i = 0; r->model && i < fsa_model_context_count(r->model); i++) {
		const struct fsa_context_info *c = fsa_model_borrow_context(r->model, i);

		if (c->device_handle == device_handle)
			return c->adapter_id;
	}
	return UINT32_MAX;
}

/*
 * TDR-01..06: one sequence per tdr_detect (or per tdr_begin without one), in trace order; its
 * TDR preemption request, tdr_begin/end, resets and the contexts, devices and packets lost
 * between its tdr_begin and tdr_end.
 */
static void
assemble_sequences(struct fsa_report *r)
{
	struct fsa_recovery *rc = r->recovery;
	GArray *ms = rc->tdr_markers;

	g_array_set_size(rc->sequences, 0);
	g_array_sort(ms, compare_marker_time);
	for (size_t i = 0; i < ms->len; i++) {
		const struct fsa_marker *m = &g_array_index(ms, struct fsa_marker, i);
		struct fsa_tdr_sequence *s;

		switch (m->kind) {
		case FSA_MARK_TDR_DETECT:
			s = new_sequence(rc, m->adapter_id, m->engine_id);
			s->detect_ns = m->begin_ns;
			s->stalled_ns = m->value;
			s->reason = m->code;
			s->guilty_context = m->context_handle;
			break;
		case FSA_MARK_PREEMPTION:
			s = latest_sequence(rc, m->adapter_id, m->engine_id, m->begin_ns, true);
			if (!s)
				break;
			s->preempt_ns = m->begin_ns;
			s->is_preempt_completed = m->end_ns != FSA_TIME_NONE;
			s->preempt_complete_ns = m->end_ns;
			break;
		case FSA_MARK_TDR:
			s = latest_sequence(rc, m->adapter_id, m->engine_id, m->begin_ns, false);
			if (!s) {
				s = new_sequence(rc, m->adapter_id, m->engine_id);
				s->reason = (int64_t) m->value;
			}
			s->begin_ns = m->begin_ns;
			s->end_ns = m->end_ns;
			/*
			 * TDR-01: a request that completes in time spares the engine its recovery;
			 * a hung engine's completes only once its reset left it idle: not in time.
			 */
			if (s->is_preempt_completed && s->preempt_complete_ns >= m->begin_ns)
				s->is_preempt_completed = false;
			s->result = m->end_ns == FSA_TIME_NONE ? -1 : m->code;
			if (m->context_handle)
				s->guilty_context = m->context_handle;
			break;
		default:
			break;
		}
	}
	for (size_t k = 0; k < rc->sequences->len; k++) {
		struct fsa_tdr_sequence *s =
		    &g_array_index(rc->sequences, struct fsa_tdr_sequence, k);
		const struct fsa_context_info *guilty =
		    r->model && s->guilty_context
			? fsa_model_find_context(r->model, s->guilty_context)
			: NULL;
		uint64_t *unsignalled =
		    s->guilty_context ? g_hash_table_lookup(rc->unsignalled, &s->guilty_context)
				      : NULL;

		if (guilty)
			s->guilty_process = guilty->process_id;
		s->guilty_unsignalled = unsignalled ? *unsignalled : 0;
		if (s->begin_ns == FSA_TIME_NONE)
			continue; /* resolved by its preemption: no recovery */
		for (size_t i = 0; i < ms->len; i++) {
			const struct fsa_marker *m = &g_array_index(ms, struct fsa_marker, i);

			if (!within(m->begin_ns, s->begin_ns, s->end_ns))
				continue;
			if (m->kind == FSA_MARK_ENGINE_RESET && m->adapter_id == s->adapter_id &&
			    m->engine_id == s->engine_id)
				s->engine_reset = m->code;
			else if (m->kind == FSA_MARK_ADAPTER_RESET &&
				 m->adapter_id == s->adapter_id)
				s->adapter_reset = m->code;
			else if (m->kind == FSA_MARK_CONTEXT_ERROR &&
				 m->adapter_id == s->adapter_id)
				s->contexts_in_error++;
			else if (m->kind == FSA_MARK_DEVICE_LOST) {
				uint32_t adapter = device_adapter(r, m->other_handle);

				if (adapter == UINT32_MAX || adapter == s->adapter_id)
					s->devices_lost++;
			}
		}
		/* TDR-04, TDR-06: the work the reset threw away, on the engine (any engine of the
		 * adapter after an adapter reset). */
		for (size_t i = 0; i < rc->lost_packets->len; i++) {
			const struct fsa_packet *p =
			    &g_array_index(rc->lost_packets, struct fsa_packet, i);
			uint64_t from = s->detect_ns != FSA_TIME_NONE ? s->detect_ns : s->begin_ns;

			if (p->adapter_id != s->adapter_id ||
			    (p->engine_id != s->engine_id && s->adapter_reset < 0) ||
			    !within(p->end_ns, from, s->end_ns))
				continue;
			s->packets_lost++;
			if (p->start_ns != FSA_TIME_NONE && p->end_ns >= p->start_ns)
				s->lost_gpu_ns += p->end_ns - p->start_ns;
		}
	}
}

/* --- Fault accounting ------------------------------------------------------------------------ */

/* The same place for two faults of one kind: adapter, engine, and the queue where given. */
static bool
same_place(const struct fsa_marker *a, const struct fsa_marker *b)
{
	if (a->code == FSTP_FAULT_KIND_PROCESS_KILLED)
		return a->value == b->value;
	return a->adapter_id == b->adapter_id && a->engine_id == b->engine_id &&
	       (a->code != FSTP_FAULT_KIND_CORRUPT_PACKET &&
			a->code != FSTP_FAULT_KIND_LOG_OVERRUN_STORM
		    ? true
		    : a->hwqueue_handle == b->hwqueue_handle);
}

struct window {
	uint64_t prev_ns; /* the previous fault of that kind there, 0 none */
	uint64_t from_ns; /* the fault */
	uint64_t next_ns; /* the next one, FSA_TIME_NONE none */
};

static struct window
fault_window(const GArray *faults, size_t index)
{
	const struct fsa_marker *f = &g_array_index(faults, struct fsa_marker, index);
	struct window w = {0, f->begin_ns, FSA_TIME_NONE};

	for (size_t i = index; i-- > 0;) {
		const struct fsa_marker *o = &g_array_index(faults, struct fsa_marker, i);

		if (o->code == f->code && same_place(o, f)) {
			w.prev_ns = o->begin_ns;
			break;
		}
	}
	for (size_t i = index + 1; i < faults->len; i++) {
		const struct fsa_marker *o = &g_array_index(faults, struct fsa_marker, i);

		if (o->code == f->code && same_place(o, f)) {
			w.next_ns = o->begin_ns;
			break;
		}
	}
	return w;
}

static bool
in_window(const struct window *w, uint64_t ts)
{
	return ts != FSA_TIME_NONE && ts >= w->from_ns &&
	       (w->next_ns == FSA_TIME_NONE || ts < w->next_ns);
}

/*
 * The interrupt a lost or delayed fault acted on was raised right before the fault_injected
 * event (the line acts on the interrupt it just raised): the latest raise since the previous
 * fault of that kind there, at or before this one, else the first after it.
 */
static struct fsa_marker *
find_interrupt_effect(struct fsa_recovery *rc, const struct fsa_marker *f, const struct window *w,
		      enum fsa_marker_kind kind, bool *used)
{
	struct fsa_marker *best = NULL;
	size_t best_i = 0;

	for (size_t i = 0; i < rc->effects->len; i++) {
		struct fsa_marker *e = &g_array_index(rc->effects, struct fsa_marker, i);

		if (used[i] || e->kind != kind || e->adapter_id != f->adapter_id ||
		    e->engine_id != f->engine_id)
			continue;
		if (e->begin_ns <= w->from_ns && e->begin_ns > w->prev_ns &&
		    (!best || best->begin_ns > w->from_ns || e->begin_ns >= best->begin_ns)) {
			best = e;
			best_i = i;
		} else if (!best && in_window(w, e->begin_ns)) {
			best = e;
			best_i = i;
		}
	}
	if (best)
		used[best_i] = true;
	return best;
}

static bool
account_fault(struct fsa_report *r, size_t index, bool *used_effects, bool *used_tdrs,
	      bool *used_packets, bool *used_overruns)
{
	struct fsa_recovery *rc = r->recovery;
	const struct fsa_marker *f = &g_array_index(rc->faults, struct fsa_marker, index);
	struct window w = fault_window(rc->faults, index);

	switch (f->code) {
	case FSTP_FAULT_KIND_HUNG_ENGINE:
		/* TDR-02: a tdr_begin on that engine. */
		for (size_t i = 0; i < rc->tdr_markers->len; i++) {
			const struct fsa_marker *m =
			    &g_array_index(rc->tdr_markers, struct fsa_marker, i);

			if (!used_tdrs[i] && m->kind == FSA_MARK_TDR &&
			    m->adapter_id == f->adapter_id && m->engine_id == f->engine_id &&
			    in_window(&w, m->begin_ns))
				return used_tdrs[i] = true;
		}
		return false;
	case FSTP_FAULT_KIND_IGNORES_PREEMPTION:
		/* PRE-03: completed at a coarser boundary than declared, or never completed and
		 * followed by a tdr_begin on that engine. */
		for (size_t i = 0; i < rc->effects->len; i++) {
			const struct fsa_marker *e =
			    &g_array_index(rc->effects, struct fsa_marker, i);

			/* The preempt_complete is the effect: the request it answers may come
			 * before the injection (the injector acts when a request meets the packet).
			 */
			if (used_effects[i] || e->kind != FSA_MARK_PREEMPTION ||
			    e->adapter_id != f->adapter_id || e->engine_id != f->engine_id ||
			    !in_window(&w, e->end_ns != FSA_TIME_NONE ? e->end_ns : e->begin_ns))
				continue;
			if (e->end_ns != FSA_TIME_NONE)
				return used_effects[i] = true;
			for (size_t t = 0; t < rc->tdr_markers->len; t++) {
				const struct fsa_marker *m =
				    &g_array_index(rc->tdr_markers, struct fsa_marker, t);

				if (m->kind == FSA_MARK_TDR && m->adapter_id == e->adapter_id &&
				    m->engine_id == e->engine_id && m->begin_ns >= e->begin_ns)
					return used_effects[i] = true;
			}
		}
		return false;
	case FSTP_FAULT_KIND_LOST_INTERRUPT:
		return find_interrupt_effect(rc, f, &w, FSA_MARK_INTERRUPT_UNHANDLED, used_effects);
	case FSTP_FAULT_KIND_DELAYED_INTERRUPT:
		return find_interrupt_effect(rc, f, &w, FSA_MARK_INTERRUPT_LATE, used_effects);
	case FSTP_FAULT_KIND_CORRUPT_PACKET:
		for (size_t i = 0; i < rc->lost_packets->len; i++) {
			const struct fsa_packet *p =
			    &g_array_index(rc->lost_packets, struct fsa_packet, i);

			if (!used_packets[i] && p->status == FSA_PACKET_FAULTED &&
			    p->adapter_id == f->adapter_id &&
			    (!f->hwqueue_handle || p->hwqueue_handle == f->hwqueue_handle) &&
			    in_window(&w, p->end_ns))
				return used_packets[i] = true;
		}
		return false;
	case FSTP_FAULT_KIND_PROCESS_KILLED: {
		const struct fsa_process_info *p =
		    r->model ? fsa_model_find_process(r->model, (uint32_t) f->value) : NULL;

		return p && p->is_abnormal_termination && in_window(&w, p->terminated_ns);
	}
	case FSTP_FAULT_KIND_LOG_OVERRUN_STORM:
		for (size_t i = 0; i < rc->overruns->len; i++) {
			const struct fsa_loss *l = &g_array_index(rc->overruns, struct fsa_loss, i);

			/* By the read that found it: the range's end is the GPU's time of the
			 * first entry after the lost ones, which a storm may precede. */
			if (!used_overruns[i] && l->hwqueue_handle == f->hwqueue_handle &&
			    in_window(&w, l->read_ns != FSA_TIME_NONE && l->read_ns ? l->read_ns
										    : l->end_ns))
				return used_overruns[i] = true;
		}
		return false;
	default:
		return false;
	}
}

/* docs/report-schema.md `faults`: each injected fault and the one effect that accounts for it. */
static void
account_faults(struct fsa_report *r)
{
	struct fsa_recovery *rc = r->recovery;
	bool *used_effects = g_new0(bool, rc->effects->len + 1);
	bool *used_tdrs = g_new0(bool, rc->tdr_markers->len + 1);
	bool *used_packets = g_new0(bool, rc->lost_packets->len + 1);
	bool *used_overruns = g_new0(bool, rc->overruns->len + 1);

	memset(rc->injected, 0, sizeof(rc->injected));
	memset(rc->accounted, 0, sizeof(rc->accounted));
	g_array_set_size(rc->unaccounted, 0);
	for (size_t i = 0; i < rc->faults->len; i++) {
		const struct fsa_marker *f = &g_array_index(rc->faults, struct fsa_marker, i);
		size_t kind = f->code >= 0 && f->code < 7 ? (size_t) f->code : 7;

		rc->injected[kind]++;
		if (account_fault(r, i, used_effects, used_tdrs, used_packets, used_overruns))
			rc->accounted[kind]++;
		else
			g_array_append_val(rc->unaccounted, *f);
	}
	g_free(used_effects);
	g_free(used_tdrs);
	g_free(used_packets);
	g_free(used_overruns);
}

void
recovery_finish(struct fsa_report *r)
{
	struct fsa_recovery *rc = r->recovery;

	/* The model gives instants at once and intervals when they close: by time. */
	g_array_sort(rc->faults, compare_marker_time);
	g_array_sort(rc->effects, compare_marker_time);
	g_array_sort(rc->errors, compare_marker_time);
	assemble_sequences(r);
	account_faults(r);
}
