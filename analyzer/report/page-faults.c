/* SPDX-License-Identifier: MIT */
/*
 * Page faults and VA mappings for the report (trace format 1.5, docs/report-schema.md 2.3
 * `page_faults` and `memory`): the engine's faults and the OS's handling are kept whole (a fault
 * ends a context or a device: they are rare) and, once recovery_finish() has assembled the TDR
 * sequences, each fault is joined with its handling and with the sequence of reason PAGE_FAULT
 * that recovered from it (MMU-14, TDR-06) and the work it lost. Mapping lifetimes are bounded
 * statistics per VA space. The VA-space counts themselves are the model's
 * (fsa_model_borrow_va_space), read by tables.c.
 */
#include <string.h>

#include "mmu-xad-private.h"
#include "recovery-private.h"
#include "report-private.h"

#include "fencescope-tp-enums.h"

static void
mapping_free(gpointer data)
{
	struct fsa_mapping_acc *acc = data;

	quantile_fini(&acc->lifetime);
	g_free(acc);
}

static guint
xad_hash(gconstpointer key)
{
	const struct fsa_xad_acc *a = key;

	return g_int64_hash(&a->fence_global_handle) ^ (a->from_adapter_id * 31u) ^
	       (a->to_adapter_id * 131u);
}

static gboolean
xad_equal(gconstpointer x, gconstpointer y)
{
	const struct fsa_xad_acc *a = x, *b = y;

	return a->fence_global_handle == b->fence_global_handle &&
	       a->from_adapter_id == b->from_adapter_id && a->to_adapter_id == b->to_adapter_id;
}

static void
xad_free(gpointer data)
{
	struct fsa_xad_acc *acc = data;

	for (int i = 0; i < FSA_XAD_METRIC_COUNT; i++)
		quantile_fini(&acc->q[i]);
	g_free(acc);
}

struct fsa_mmu_xad *
mmu_xad_new(void)
{
	struct fsa_mmu_xad *m = g_new0(struct fsa_mmu_xad, 1);

	m->hw_faults = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	m->os_faults = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	m->rows = g_array_new(FALSE, FALSE, sizeof(struct fsa_fault_row));
	quantile_init(&m->handling);
	quantile_init(&m->release_all);
	m->mappings = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, mapping_free);
	m->xad = g_hash_table_new_full(xad_hash, xad_equal, NULL, xad_free);
	m->signal_ends = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	m->waiting = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	m->signal_order = g_new0(uint64_t, FSA_XAD_MEMORY);
	m->waiting_order = g_new0(uint64_t, FSA_XAD_MEMORY);
	return m;
}

void
mmu_xad_free(struct fsa_mmu_xad *m)
{
	if (!m)
		return;
	g_array_free(m->hw_faults, TRUE);
	g_array_free(m->os_faults, TRUE);
	g_array_free(m->rows, TRUE);
	quantile_fini(&m->handling);
	quantile_fini(&m->release_all);
	g_hash_table_destroy(m->mappings);
	g_hash_table_destroy(m->xad);
	g_hash_table_destroy(m->signal_ends);
	g_hash_table_destroy(m->waiting);
	g_free(m->signal_order);
	g_free(m->waiting_order);
	g_free(m);
}

/* Format 1.5 markers in range: faults kept whole, mapping lifetimes folded. */
fsa_status
mmu_on_marker(struct fsa_report *r, const struct fsa_marker *marker)
{
	struct fsa_mmu_xad *m = r->mmu_xad;

	switch (marker->kind) {
	case FSA_MARK_PAGE_FAULT:
		m->has_data = true;
		g_array_append_val(m->hw_faults, *marker);
		return FSA_OK;
	case FSA_MARK_PAGE_FAULT_HANDLED:
		m->has_data = true;
		g_array_append_val(m->os_faults, *marker);
		if (marker->latency_ns != FSA_TIME_NONE)
			return quantile_add(&m->handling, marker->latency_ns);
		return FSA_OK;
	case FSA_MARK_VA_RESERVE:
	case FSA_MARK_VA_FREE:
		m->has_data = true;
		return FSA_OK;
	case FSA_MARK_VA_MAPPING: {
		uint64_t key = (uint64_t) marker->process_id << 32 | marker->adapter_id;
		struct fsa_mapping_acc *acc = g_hash_table_lookup(m->mappings, &key);

		m->has_data = true;
		if (!acc) {
			acc = g_new0(struct fsa_mapping_acc, 1);
			acc->key = key;
			acc->process_id = marker->process_id;
			acc->adapter_id = marker->adapter_id;
			quantile_init(&acc->lifetime);
			g_hash_table_insert(m->mappings, &acc->key, acc);
		}
		if (marker->end_ns == FSA_TIME_NONE) {
			acc->open_at_end++;
			return FSA_OK;
		}
		return quantile_add(&acc->lifetime, marker->end_ns >= marker->begin_ns
							? marker->end_ns - marker->begin_ns
							: 0);
	}
	default:
		return FSA_OK;
	}
}

static gint
compare_marker_time(gconstpointer a, gconstpointer b)
{
	const struct fsa_marker *x = a, *y = b;

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

static bool
within(uint64_t ts, uint64_t begin, uint64_t end)
{
	return ts != FSA_TIME_NONE && ts >= begin && (end == FSA_TIME_NONE || ts <= end);
}

/* TDR-06: the first TDR sequence of reason PAGE_FAULT on the fault's engine that began at or after
 * the fault, not taken by an earlier fault. */
static const struct fsa_tdr_sequence *
fault_sequence(struct fsa_report *r, const struct fsa_fault_row *row, bool *used)
{
	GArray *sequences = r->recovery->sequences;

	for (size_t i = 0; i < sequences->len; i++) {
		const struct fsa_tdr_sequence *s =
		    &g_array_index(sequences, struct fsa_tdr_sequence, i);

		if (used[i] || s->reason != FSTP_LOSS_REASON_PAGE_FAULT ||
		    s->adapter_id != row->adapter_id || s->engine_id != row->engine_id ||
		    s->begin_ns == FSA_TIME_NONE || s->begin_ns < row->ts_ns)
			continue;
		used[i] = true;
		return s;
	}
	return NULL;
}

static void
add_recovery(struct fsa_report *r, struct fsa_fault_row *row, bool *used_sequences)
{
	const struct fsa_tdr_sequence *s = fault_sequence(r, row, used_sequences);
	GArray *lost = r->recovery->lost_packets;

	if (s) {
		row->tdr_begin_ns = s->begin_ns;
		row->tdr_end_ns = s->end_ns;
		row->result = s->result;
		row->engine_reset = s->engine_reset;
		row->adapter_reset = s->adapter_reset;
		row->contexts_in_error = s->contexts_in_error;
		row->devices_lost = s->devices_lost;
	}
	for (size_t i = 0; i < lost->len; i++) {
		const struct fsa_packet *p = &g_array_index(lost, struct fsa_packet, i);
		bool counts;

		/* The faulting packet, whose GPU end may map a tick before the fault's CPU time. */
		bool is_faulting = row->packet_id && p->packet_id == row->packet_id &&
				   p->engine_id == row->engine_id &&
				   p->status == FSA_PACKET_FAULTED;

		if (p->adapter_id != row->adapter_id)
			continue;
		if (s)
			counts = is_faulting ||
				 ((p->engine_id == row->engine_id || s->adapter_reset >= 0) &&
				  within(p->end_ns, row->ts_ns, s->end_ns));
		else
			counts = is_faulting;
		if (!counts)
			continue;
		if (p->status == FSA_PACKET_FAULTED)
			row->packets_faulted++;
		else
			row->packets_aborted++;
		if (p->start_ns != FSA_TIME_NONE && p->end_ns != FSA_TIME_NONE &&
		    p->end_ns >= p->start_ns)
			row->lost_gpu_ns += p->end_ns - p->start_ns;
	}
}

static struct fsa_fault_row
row_of(const struct fsa_marker *m)
{
	return (struct fsa_fault_row){
	    .ts_ns = m->begin_ns,
	    .handled_ns = FSA_TIME_NONE,
	    .adapter_id = m->adapter_id,
	    .engine_id = m->engine_id,
	    .process_id = m->process_id,
	    .context_handle = m->context_handle,
	    .hwqueue_handle = m->hwqueue_handle,
	    .gpu_va = m->value,
	    .access = m->code2,
	    .fault_type = m->code,
	    .scope = -1,
	    .latency_ns = FSA_TIME_NONE,
	    .tdr_begin_ns = FSA_TIME_NONE,
	    .tdr_end_ns = FSA_TIME_NONE,
	    .result = -1,
	    .engine_reset = -1,
	    .adapter_reset = -1,
	};
}

static gint
compare_row_time(gconstpointer a, gconstpointer b)
{
	const struct fsa_fault_row *x = a, *y = b;

	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/*
 * MMU-14, TDR-06: each engine fault with the OS's handling of it (the handled marker that names
 * its packet on that engine, at or after it), each handling without an engine fault on its own,
 * and each with the recovery that followed.
 */
void
mmu_finish(struct fsa_report *r)
{
	struct fsa_mmu_xad *m = r->mmu_xad;
	bool *used_os = g_new0(bool, m->os_faults->len + 1);
	bool *used_sequences = g_new0(bool, r->recovery->sequences->len + 1);

	g_array_set_size(m->rows, 0);
	g_array_sort(m->hw_faults, compare_marker_time);
	g_array_sort(m->os_faults, compare_marker_time);
	for (size_t i = 0; i < m->hw_faults->len; i++) {
		const struct fsa_marker *hw = &g_array_index(m->hw_faults, struct fsa_marker, i);
		struct fsa_fault_row row = row_of(hw);

		row.packet_id = hw->value2;
		for (size_t k = 0; k < m->os_faults->len; k++) {
			const struct fsa_marker *os =
			    &g_array_index(m->os_faults, struct fsa_marker, k);

			if (used_os[k] || os->adapter_id != hw->adapter_id ||
			    os->engine_id != hw->engine_id || os->begin_ns < hw->begin_ns ||
			    os->other_handle != hw->value2)
				continue;
			used_os[k] = true;
			row.handled_ns = os->begin_ns;
			row.scope = (int64_t) os->value2;
			row.latency_ns = os->latency_ns;
			if (!row.hwqueue_handle)
				row.hwqueue_handle = os->hwqueue_handle;
			break;
		}
		g_array_append_val(m->rows, row);
	}
	for (size_t k = 0; k < m->os_faults->len; k++) {
		const struct fsa_marker *os = &g_array_index(m->os_faults, struct fsa_marker, k);
		struct fsa_fault_row row;

		if (used_os[k])
			continue;
		row = row_of(os);
		row.handled_ns = os->begin_ns;
		row.scope = (int64_t) os->value2;
		row.packet_id = os->other_handle;
		g_array_append_val(m->rows, row);
	}
	g_array_sort(m->rows, compare_row_time);
	for (size_t i = 0; i < m->rows->len; i++)
		add_recovery(r, &g_array_index(m->rows, struct fsa_fault_row, i), used_sequences);
	g_free(used_os);
	g_free(used_sequences);
}

bool
mmu_xad_is_shown(const struct fsa_report *r)
{
	const struct fsa_summary *sum = r->model ? fsa_model_borrow_summary(r->model) : NULL;

	if (r->mmu_xad->has_data || (r->model && fsa_model_va_space_count(r->model)))
		return true;
	return sum && sum->has_trace_info &&
	       (sum->format_major > 1 || (sum->format_major == 1 && sum->format_minor >= 5));
}
