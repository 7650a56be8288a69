/* SPDX-License-Identifier: MIT */
/*
 * GpuMmu (format 1.5, seed 004): per process and adapter GPU virtual address spaces and their
 * statistics (MMU-01..03, 06, 10..13), VA reservations (instants), VA mappings (intervals from
 * va_map to the va_unmap that covers them, MMU-04, 06, 07), page tables (counted: MMU-02, 03) and
 * page faults (MMU-14, TDR-06): the engine's fencescope_hw:page_fault is a marker on the engine,
 * the OS's fencescope_os:page_fault a marker on the process and context that answers it.
 *
 * What it is not: the TDR that follows a fault (markers.c: tdr, engine_reset, adapter_reset,
 * context_error) or the packets it faulted (packets.c).
 */
#include <stdlib.h>

#include "model-private.h"

static uint64_t
space_key(uint32_t process_id, uint32_t adapter_id)
{
	return ((uint64_t) process_id << 32) | adapter_id;
}

static uint64_t
mapping_key(uint32_t process_id, uint32_t adapter_id, uint64_t gpu_va)
{
	return hmap_key2(space_key(process_id, adapter_id), gpu_va);
}

static unsigned
page_size_index(uint64_t page_size_bytes)
{
	return page_size_bytes == 4096 ? 0 : page_size_bytes == 65536 ? 1 : 2;
}

static uint32_t
adapter_of(const struct fsa_event *ev)
{
	/* va_map, va_unmap and page_table_update name their adapter since format 1.5 only. */
	return fsa_event_has(ev, FSA_F_ADAPTER_ID) ? (uint32_t) ev->u[FSA_F_ADAPTER_ID] : 0;
}

/* The VA space of (process, adapter); made (not created by the trace) when new. */
static struct fsa_va_space_info *
space_get(struct fsa_model *model, uint32_t process_id, uint32_t adapter_id)
{
	uint64_t key = space_key(process_id, adapter_id);
	struct fsa_va_space_info *space = hmap_get(&model->va_spaces, key);

	if (space)
		return space;
	if (model->va_space_count == model->va_space_capacity) {
		size_t capacity = model->va_space_capacity ? 2 * model->va_space_capacity : 8;
		struct fsa_va_space_info **list =
		    realloc(model->va_space_list, capacity * sizeof(*list));

		if (!list)
			return NULL;
		model->va_space_list = list;
		model->va_space_capacity = capacity;
	}
	space = calloc(1, sizeof(*space));
	if (!space || !hmap_put(&model->va_spaces, key, space)) {
		free(space);
		return NULL;
	}
	space->process_id = process_id;
	space->adapter_id = adapter_id;
	space->created_ns = FSA_TIME_NONE;
	space->destroyed_ns = FSA_TIME_NONE;
	model->va_space_list[model->va_space_count++] = space;
	return space;
}

static void
peak(uint64_t *peak_value, uint64_t value)
{
	if (value > *peak_value)
		*peak_value = value;
}

static uint64_t
sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* `bytes` of a mapping with this page size and segment come (sign +1) or go (sign -1). */
static void
account_mapped(struct fsa_va_space_info *space, uint64_t bytes, uint64_t page_size, int64_t segment,
	       int sign)
{
	unsigned p = page_size_index(page_size);
	unsigned s = segment == FSTP_SEGMENT_LOCAL ? 1 : 0;

	if (sign > 0) {
		space->mapped_bytes += bytes;
		space->mapped_bytes_by_page_size[p] += bytes;
		space->mapped_bytes_by_segment[s] += bytes;
		peak(&space->mapped_bytes_peak, space->mapped_bytes);
		peak(&space->mapped_bytes_peak_by_page_size[p],
		     space->mapped_bytes_by_page_size[p]);
		peak(&space->mapped_bytes_peak_by_segment[s], space->mapped_bytes_by_segment[s]);
	} else {
		space->mapped_bytes = sub_floor(space->mapped_bytes, bytes);
		space->mapped_bytes_by_page_size[p] =
		    sub_floor(space->mapped_bytes_by_page_size[p], bytes);
		space->mapped_bytes_by_segment[s] =
		    sub_floor(space->mapped_bytes_by_segment[s], bytes);
	}
}

fsa_status
memory_on_va_space(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_va_space_info *space = space_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID],
						    (uint32_t) ev->u[FSA_F_ADAPTER_ID]);

	if (!space)
		return model->failed = FSA_ERR_NOMEM;
	if (ev->type == FSA_EV_VA_SPACE_DESTROY) { /* MMU-01, MMU-02: with every table left */
		space->destroyed_ns = ev->ts_ns;
		space->page_tables_live = 0;
		return FSA_OK;
	}
	/* MMU-01, 02, 03: an address space with its root page table. */
	space->created_ns = ev->ts_ns;
	space->va_size_bytes = ev->u[FSA_F_VA_SIZE_BYTES];
	space->page_table_levels = (uint32_t) ev->u[FSA_F_PAGE_TABLE_LEVELS];
	space->root_entry_count = (uint32_t) ev->u[FSA_F_ROOT_ENTRY_COUNT];
	if (space->root_entry_count > space->root_entry_count_max)
		space->root_entry_count_max = space->root_entry_count;
	return FSA_OK;
}

/* Opens a mapping interval (the marker is copied). */
static fsa_status
mapping_open(struct fsa_model *model, const struct fsa_marker *m)
{
	uint64_t key = mapping_key(m->process_id, m->adapter_id, m->value);
	struct fsa_marker *open = hmap_get(&model->mappings, key);

	if (open) {
		/* Mapped again at a VA still mapped (the unmap is not in the trace): the old
		 * mapping ends where the new one begins. */
		struct fsa_va_space_info *space =
		    space_get(model, open->process_id, open->adapter_id);

		if (space)
			account_mapped(space, open->value2, (uint64_t) open->code2, open->code, -1);
		open->end_ns = m->begin_ns;
		if (markers_emit(model, open))
			return model->failed;
	} else {
		open = malloc(sizeof(*open));
		if (!open || !hmap_put(&model->mappings, key, open)) {
			free(open);
			return model->failed = FSA_ERR_NOMEM;
		}
	}
	*open = *m;
	open->end_ns = FSA_TIME_NONE;
	return FSA_OK;
}

/*
 * An unmap of [va, va + size) ends every open mapping of that VA space it overlaps; the parts of a
 * mapping outside the range stay mapped, as new intervals from the unmap on. Returns the bytes it
 * took off the mappings.
 */
static fsa_status
mapping_unmap(struct fsa_model *model, struct fsa_va_space_info *space, uint64_t ts, uint64_t va,
	      uint64_t size)
{
	uint64_t end = va + size < va ? UINT64_MAX : va + size;
	struct fsa_marker **hit = NULL;
	size_t hit_count = 0, hit_capacity = 0;
	uint64_t exact = mapping_key(space->process_id, space->adapter_id, va);
	struct fsa_marker *m = hmap_get(&model->mappings, exact);
	fsa_status status = FSA_OK;

	if (m && m->process_id == space->process_id && m->adapter_id == space->adapter_id &&
	    m->value == va && m->value2 == size) {
		/* The usual case: the unmap of one whole mapping. */
		hmap_remove(&model->mappings, exact);
		account_mapped(space, m->value2, (uint64_t) m->code2, m->code, -1);
		m->end_ns = ts;
		status = markers_emit(model, m);
		free(m);
		return status;
	}
	for (size_t cursor = 0;;) {
		uint64_t key;
		void *value;

		if (!hmap_next(&model->mappings, &cursor, &key, &value))
			break;
		m = value;
		if (m->process_id != space->process_id || m->adapter_id != space->adapter_id ||
		    m->value >= end || m->value + m->value2 <= va)
			continue;
		if (hit_count == hit_capacity) {
			size_t capacity = hit_capacity ? 2 * hit_capacity : 4;
			struct fsa_marker **grown = realloc(hit, capacity * sizeof(*grown));

			if (!grown) {
				free(hit);
				return model->failed = FSA_ERR_NOMEM;
			}
			hit = grown;
			hit_capacity = capacity;
		}
		hit[hit_count++] = m;
	}
	for (size_t i = 0; i < hit_count && !status; i++) {
		struct fsa_marker was = *hit[i];
		uint64_t was_end = was.value + was.value2;

		hmap_remove(&model->mappings,
			    mapping_key(was.process_id, was.adapter_id, was.value));
		account_mapped(space, was.value2, (uint64_t) was.code2, was.code, -1);
		hit[i]->end_ns = ts;
		status = markers_emit(model, hit[i]);
		free(hit[i]);
		/* What is left of it stays mapped. */
		if (!status && was.value < va) {
			struct fsa_marker left = was;

			left.begin_ns = ts;
			left.value2 = va - was.value;
			account_mapped(space, left.value2, (uint64_t) left.code2, left.code, +1);
			status = mapping_open(model, &left);
		}
		if (!status && was_end > end) {
			struct fsa_marker right = was;

			right.begin_ns = ts;
			right.value = end;
			right.value2 = was_end - end;
			account_mapped(space, right.value2, (uint64_t) right.code2, right.code, +1);
			status = mapping_open(model, &right);
		}
	}
	free(hit);
	return status;
}

fsa_status
memory_on_va_range(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t process = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	uint32_t adapter = adapter_of(ev);
	struct fsa_va_space_info *space = space_get(model, process, adapter);
	struct fsa_marker m = markers_at(FSA_MARK_VA_RESERVE, ev->ts_ns);
	uint64_t size = ev->u[FSA_F_SIZE_BYTES];

	if (!space)
		return model->failed = FSA_ERR_NOMEM;
	m.adapter_id = adapter;
	m.process_id = process;
	m.value = ev->u[FSA_F_GPU_VA];
	m.value2 = size;
	switch (ev->type) {
	case FSA_EV_VA_RESERVE: /* MMU-06, MMU-10 */
		space->reserve_count++;
		if (ev->u[FSA_F_IS_OS_PICKED])
			space->reserve_os_picked_count++;
		space->reserved_bytes += size;
		peak(&space->reserved_bytes_peak, space->reserved_bytes);
		m.code = ev->u[FSA_F_IS_OS_PICKED] != 0;
		return markers_emit(model, &m);
	case FSA_EV_VA_FREE: /* MMU-06 */
		space->free_count++;
		space->reserved_bytes = sub_floor(space->reserved_bytes, size);
		m.kind = FSA_MARK_VA_FREE;
		return markers_emit(model, &m);
	case FSA_EV_VA_MAP: { /* MMU-04, 06, 07, 11, 12 */
		uint64_t page_size = ev->u[FSA_F_PAGE_SIZE_BYTES];
		unsigned s = ev->u[FSA_F_SEGMENT] == FSTP_SEGMENT_LOCAL ? 1 : 0;

		space->map_count++;
		if (ev->u[FSA_F_IS_OS_PICKED])
			space->map_os_picked_count++;
		space->map_count_by_page_size[page_size_index(page_size)]++;
		space->map_count_by_segment[s]++;
		m.kind = FSA_MARK_VA_MAPPING;
		m.other_handle = ev->u[FSA_F_ALLOCATION_HANDLE];
		m.code = (int64_t) ev->u[FSA_F_SEGMENT];
		m.code2 = (int64_t) page_size;
		account_mapped(space, size, page_size, m.code, +1);
		return mapping_open(model, &m);
	}
	case FSA_EV_VA_UNMAP: /* MMU-06 */
		space->unmap_count++;
		return mapping_unmap(model, space, ev->ts_ns, m.value, size);
	default:
		return FSA_OK;
	}
}

fsa_status
memory_on_page_table(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_va_space_info *space =
	    space_get(model, (uint32_t) ev->u[FSA_F_PROCESS_ID], adapter_of(ev));

	if (!space)
		return model->failed = FSA_ERR_NOMEM;
	switch (ev->type) {
	case FSA_EV_PAGE_TABLE_CREATE: /* MMU-02, MMU-03 */
		space->page_tables_created++;
		space->page_tables_live++;
		peak(&space->page_tables_live_peak, space->page_tables_live);
		break;
	case FSA_EV_PAGE_TABLE_DESTROY:
		space->page_tables_destroyed++;
		space->page_tables_live = sub_floor(space->page_tables_live, 1);
		break;
	case FSA_EV_PAGE_TABLE_RESIZE: /* MMU-03: the resizable root */
		space->root_resizes++;
		if (ev->u[FSA_F_NEW_ENTRY_COUNT] > space->root_entry_count_max)
			space->root_entry_count_max = (uint32_t) ev->u[FSA_F_NEW_ENTRY_COUNT];
		break;
	case FSA_EV_PAGE_TABLE_RESIDENCY: /* MMU-02 */
		if (ev->u[FSA_F_IS_RESIDENT])
			space->page_tables_made_resident++;
		else
			space->page_tables_evicted++;
		break;
	case FSA_EV_PAGE_TABLE_UPDATE: /* MMU-02, MMU-03: entries the KMD wrote */
		space->page_table_updates++;
		if (ev->u[FSA_F_IS_VALID])
			space->entries_written += ev->u[FSA_F_PAGE_COUNT];
		else
			space->entries_invalidated += ev->u[FSA_F_PAGE_COUNT];
		break;
	default:
		break;
	}
	return FSA_OK;
}

/*
 * MMU-14, TDR-06. The engine's fault (fencescope_hw:page_fault) is a marker on the engine at once,
 * and is kept until the OS answers it; the OS's (fencescope_os:page_fault) is a marker on the
 * process and context, joined with the engine's latest unanswered fault (the trace's order:
 * hw page_fault → interrupt → os page_fault).
 */
fsa_status
memory_on_page_fault(struct fsa_model *model, const struct fsa_event *ev)
{
	uint32_t adapter = (uint32_t) ev->u[FSA_F_ADAPTER_ID];
	uint32_t engine = (uint32_t) ev->u[FSA_F_ENGINE_ID];
	uint64_t key = ENGINE_KEY(adapter, engine);
	struct fsa_marker m = markers_at(FSA_MARK_PAGE_FAULT, ev->ts_ns);
	struct fsa_marker *hw;
	struct fsa_va_space_info *space;
	fsa_status status;

	m.adapter_id = adapter;
	m.engine_id = engine;
	m.process_id = (uint32_t) ev->u[FSA_F_PROCESS_ID];
	m.context_handle = ev->u[FSA_F_CONTEXT_HANDLE];
	m.value = ev->u[FSA_F_GPU_VA];
	m.code = (int64_t) ev->u[FSA_F_FAULT_TYPE];
	m.code2 = (int64_t) ev->u[FSA_F_ACCESS];
	if (ev->type == FSA_EV_PAGE_FAULT) {
		const struct packet_rec *packet =
		    hmap_get(&model->packets, hmap_key2(adapter, ev->u[FSA_F_PACKET_ID]));

		m.value2 = ev->u[FSA_F_PACKET_ID];
		if (packet)
			m.hwqueue_handle = packet->packet.hwqueue_handle;
		status = markers_emit(model, &m);
		if (status)
			return status;
		hw = hmap_get(&model->hw_faults, key);
		if (!hw) {
			hw = malloc(sizeof(*hw));
			if (!hw || !hmap_put(&model->hw_faults, key, hw)) {
				free(hw);
				return model->failed = FSA_ERR_NOMEM;
			}
		}
		*hw = m;
		return FSA_OK;
	}
	m.kind = FSA_MARK_PAGE_FAULT_HANDLED;
	m.value2 = ev->u[FSA_F_SCOPE];
	hw = hmap_remove(&model->hw_faults, key);
	if (hw) {
		m.other_handle = hw->value2;
		m.hwqueue_handle = hw->hwqueue_handle;
		m.latency_ns = ev->ts_ns >= hw->begin_ns ? ev->ts_ns - hw->begin_ns : 0;
		free(hw);
	}
	space = space_get(model, m.process_id, adapter);
	if (!space)
		return model->failed = FSA_ERR_NOMEM;
	space->page_faults++;
	return markers_emit(model, &m);
}

fsa_status
memory_finish(struct fsa_model *model)
{
	/* Engine faults the OS never answered stay markers of their own (given out already). */
	hmap_fini_values(&model->hw_faults);
	return markers_close_all(model, &model->mappings);
}

void
memory_free(struct fsa_model *model)
{
	for (size_t i = 0; i < model->va_space_count; i++)
		free(model->va_space_list[i]);
	free(model->va_space_list);
	hmap_fini(&model->va_spaces);
	hmap_fini_values(&model->mappings);
	hmap_fini_values(&model->hw_faults);
}

size_t
fsa_model_va_space_count(const struct fsa_model *model)
{
	return model->va_space_count;
}

const struct fsa_va_space_info *
fsa_model_borrow_va_space(const struct fsa_model *model, size_t index)
{
	return index < model->va_space_count ? model->va_space_list[index] : NULL;
}

const struct fsa_va_space_info *
fsa_model_find_va_space(const struct fsa_model *model, uint32_t process_id, uint32_t adapter_id)
{
	return hmap_get(&model->va_spaces, space_key(process_id, adapter_id));
}
