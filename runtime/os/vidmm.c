/* SPDX-License-Identifier: MIT */
/*
 * The OS's video memory manager (VidMm) for the GpuMmu model (spec 004; docs/runtime.md
 * "GpuMmu as built"): each process's GPU virtual address space on each adapter (MMU-01), its
 * reservations and mappings (MMU-04, MMU-06, MMU-07, MMU-10), and its page tables, which VidMm
 * allocates, grows, updates, keeps resident and frees (MMU-02) — a resizable root above
 * fixed-size tables (MMU-03) — knowing only their geometry (the driver's GpuMmu caps), never
 * their format: every entry is written by the driver (DxgkDdiUpdatePageTable), every root
 * programmed by it (DxgkDdiSetRootPageTable).
 *
 * MMU-09 (linked adapters, a mapping targeting a peer GPU's instance) is not modelled: every
 * adapter is one GPU with its own VA spaces (docs/runtime.md "Rules no test cites").
 *
 * What it is not: the public thunks (os/va.c), the allocations themselves (os/allocation.c,
 * which calls in here to unmap an allocation that goes), the walk (hw/mmu.c). Lock held.
 */
#include <stdlib.h>
#include <string.h>

#include "os/os-private.h"

#define LARGE_PAGE FSR_GPU_LARGE_PAGE_BYTES
#define SMALL_PAGE FSR_GPU_PAGE_BYTES

/* A page table as VidMm keeps it: its memory (the driver's format) and its children. */
struct os_page_table {
	uint64_t id; /* the trace's table_id */
	uint32_t level;
	uint32_t entry_count;
	uint32_t page_size_bytes; /* a leaf: its pages; above it: 0 */
	void *memory;             /* owned; zero-filled, then written by the driver only */
	/*
	 * Above the leaf: the table each entry names (NULL: invalid entry); the level above the
	 * leaf has two per entry (dual PDE): [2 i] the 4 KB leaf, [2 i + 1] the 64 KB one.
	 */
	struct os_page_table **children;
	/* A leaf: its valid entries; above it: its children. 0 (but the root): it is freed. */
	uint32_t used;
	struct os_page_table *next_free; /* unlinked, to be freed after the TLB flush */
};

/* A reserved range (MMU-06): the UMD's, or one VidMm picked for a single mapping. */
struct os_va_range {
	uint64_t va;
	uint64_t size_bytes;
	bool is_for_mapping;      /* made by fsr_va_map with no VA: goes with its mapping */
	struct os_va_range *next; /* sorted by va */
};

struct os_va_mapping {
	uint64_t va;
	uint64_t size_bytes;
	uint64_t offset_bytes;
	struct os_allocation *allocation; /* weak: the allocation unmaps itself before it goes */
	uint32_t page_size_bytes;         /* of its page table entries */
	bool is_read_only;
	bool is_os_picked;
	struct os_va_mapping *next; /* sorted by va */
};

struct os_va_space {
	struct fsr_process *process;
	struct fsr_adapter *adapter;
	uint64_t va_size_bytes;
	struct os_page_table *root; /* owned */
	struct os_va_range *ranges;
	struct os_va_mapping *mappings;
};

/* ---- geometry (the caps) -------------------------------------------------------------------- */

static const struct dxgk_gpummu_caps *
caps_of(const struct os_va_space *space)
{
	return &space->adapter->gpummu_caps;
}

static uint32_t
leaf_level(const struct os_va_space *space)
{
	return caps_of(space)->level_count - 1;
}

/* The lowest VA bit an entry of `level` indexes, for pages of `page_bytes` at the leaf. */
static uint32_t
level_shift(const struct os_va_space *space, uint32_t level, uint32_t page_bytes)
{
	if (level == leaf_level(space) && page_bytes == LARGE_PAGE)
		return 16;
	return caps_of(space)->levels[level].va_shift;
}

static uint32_t
level_entries(const struct os_va_space *space, uint32_t level, uint32_t page_bytes)
{
	const struct dxgk_gpummu_caps *caps = caps_of(space);

	if (level == leaf_level(space) && page_bytes == LARGE_PAGE)
		return UINT32_C(1) << caps->leaf_64kb_index_bit_count;
	return UINT32_C(1) << caps->levels[level].index_bit_count;
}

static uint32_t
entry_index(const struct os_va_space *space, uint32_t level, uint32_t page_bytes, uint64_t va)
{
	uint32_t shift = level_shift(space, level, page_bytes);

	if (level == 0)
		return (uint32_t) (va >> shift);
	return (uint32_t) ((va >> shift) & (level_entries(space, level, page_bytes) - 1));
}

/* Child slots of a table above the leaf: two per entry just above it (dual PDE). */
static uint32_t
child_slots(const struct os_va_space *space, uint32_t level)
{
	return level + 1 == leaf_level(space) && caps_of(space)->is_dual_pde_supported ? 2 : 1;
}

/* The bytes of a table of `level` with `entries` entries (the caps' entry size). */
static size_t
table_bytes(const struct os_va_space *space, uint32_t level, uint32_t entries)
{
	return (size_t) entries * caps_of(space)->levels[level].entry_bytes;
}

/* MMU-02: the driver's caps, checked once per adapter; false when they make no sense. */
bool
os_vidmm_query_caps(struct fsr_adapter *adapter)
{
	struct dxgk_gpummu_caps caps = {0};
	uint32_t bits = 0;

	if (adapter->has_gpummu_caps)
		return true;
	if (!adapter->ddi.DxgkDdiQueryAdapterInfo ||
	    adapter->ddi.DxgkDdiQueryAdapterInfo(adapter->miniport, DXGKQAITYPE_GPUMMUCAPS, &caps,
						 sizeof(caps)) != 0)
		return false;
	if (caps.level_count < 2 || caps.level_count > DXGK_MAX_PAGE_TABLE_LEVELS ||
	    caps.va_bit_count > 48 || caps.table_alignment_bytes < 4096 ||
	    (caps.table_alignment_bytes & (caps.table_alignment_bytes - 1)) ||
	    !adapter->ddi.DxgkDdiGetRootPageTableSize || !adapter->ddi.DxgkDdiSetRootPageTable ||
	    !adapter->ddi.DxgkDdiUpdatePageTable || !adapter->ddi.DxgkDdiFlushTlb)
		return false;
	/* The levels tile the VA from bit 12 (MMU-10) to the top, each below the one above. */
	for (uint32_t l = caps.level_count; l-- > 0;) {
		if (caps.levels[l].va_shift != 12 + bits || caps.levels[l].index_bit_count == 0 ||
		    caps.levels[l].index_bit_count > 12 || caps.levels[l].entry_bytes == 0 ||
		    caps.levels[l].entry_bytes > 64)
			return false;
		bits += caps.levels[l].index_bit_count;
	}
	if (12 + bits != caps.va_bit_count)
		return false;
	if (caps.is_64kb_page_supported &&
	    (!caps.is_dual_pde_supported ||
	     caps.levels[caps.level_count - 1].index_bit_count != 9 ||
	     caps.leaf_64kb_index_bit_count != 5))
		return false;
	adapter->gpummu_caps = caps;
	adapter->has_gpummu_caps = true;
	return true;
}

/* ---- page tables ------------------------------------------------------------------------ */

static void *
table_memory(const struct os_va_space *space, size_t bytes)
{
	size_t alignment = caps_of(space)->table_alignment_bytes;
	size_t rounded = (bytes + alignment - 1) & ~(alignment - 1);
	void *memory = aligned_alloc(alignment, rounded);

	if (memory)
		memset(memory, 0, rounded);
	return memory;
}

/* MMU-02: a new table of `level`, resident in the adapter's memory segment. */
static struct os_page_table *
table_new(struct os_va_space *space, uint32_t level, uint32_t entry_count, uint32_t page_bytes,
	  size_t bytes)
{
	struct fsr_adapter *adapter = space->adapter;
	struct os_page_table *table = calloc(1, sizeof(*table));

	if (!table)
		return NULL;
	table->memory = table_memory(space, bytes);
	if (level != leaf_level(space))
		table->children = calloc((size_t) entry_count * child_slots(space, level),
					 sizeof(*table->children));
	if (!table->memory || (level != leaf_level(space) && !table->children)) {
		free(table->memory);
		free(table->children);
		free(table);
		return NULL;
	}
	table->id = ++adapter->next_page_table_id;
	table->level = level;
	table->entry_count = entry_count;
	table->page_size_bytes = level == leaf_level(space) ? page_bytes : 0;
	FSR_TRACE(adapter->runtime, fencescope_os, page_table_create, adapter->id,
		  space->process->id, table->id, level, entry_count, (int) FSTP_SEGMENT_LOCAL);
	FSR_TRACE(adapter->runtime, fencescope_os, page_table_residency, adapter->id,
		  space->process->id, table->id, (uint8_t) 1, (int) FSTP_SEGMENT_LOCAL);
	return table;
}

/* Post-order: the children first (page_table_destroy each). */
static void
table_free(struct os_va_space *space, struct os_page_table *table)
{
	if (table->children) {
		uint32_t slots = table->entry_count * child_slots(space, table->level);

		for (uint32_t i = 0; i < slots; i++)
			if (table->children[i])
				table_free(space, table->children[i]);
	}
	FSR_TRACE(space->adapter->runtime, fencescope_os, page_table_destroy, space->adapter->id,
		  space->process->id, table->id);
	free(table->children);
	free(table->memory);
	free(table);
}

/* DxgkDdiUpdatePageTable of `count` entries of `table` from `first`. */
static void
update_entries(struct os_va_space *space, struct os_page_table *table, uint32_t first,
	       uint32_t count, uint64_t first_va, const struct dxgk_pte *entries)
{
	struct dxgk_update_page_table args = {
	    .process_id = space->process->id,
	    .table_id = table->id,
	    .table = table->memory,
	    .level = table->level,
	    .first_entry = first,
	    .entry_count = count,
	    .first_va = first_va,
	    .entries = entries,
	};

	space->adapter->ddi.DxgkDdiUpdatePageTable(space->adapter->miniport, &args);
}

/* One entry of a table above the leaf names `child` (a leaf of `page_bytes` pages). */
static void
link_child(struct os_va_space *space, struct os_page_table *table, uint32_t index,
	   struct os_page_table *child, uint32_t page_bytes)
{
	struct dxgk_pte entry = {
	    .is_valid = true,
	    .page_size_bytes = child_slots(space, table->level) == 2 ? page_bytes : 0,
	    .address = child->memory,
	};
	uint64_t first_va = (uint64_t) index << level_shift(space, table->level, SMALL_PAGE);

	update_entries(space, table, index, 1, first_va, &entry);
}

/* The root's entry i names its child again (after a resize). */
static void
relink_root(struct os_va_space *space, struct os_page_table *root)
{
	for (uint32_t i = 0; i < root->entry_count; i++)
		if (root->children[i])
			link_child(space, root, i, root->children[i], 0);
}

/* Every context of the process on the adapter translates through `root` from now on. */
static void
program_root(struct os_va_space *space, struct os_page_table *root)
{
	struct fsr_adapter *adapter = space->adapter;

	for (struct os_device *device = space->process->devices; device;
	     device = device->next_in_process) {
		if (device->adapter != adapter)
			continue;
		for (struct os_context *context = device->contexts; context;
		     context = context->next_in_device)
			adapter->ddi.DxgkDdiSetRootPageTable(adapter->miniport, context,
							     root->memory, root->entry_count);
	}
}

/*
 * MMU-03: the root grows to cover VAs below `end` (the driver sizes it,
 * DxgkDdiGetRootPageTableSize): a new root, its entries written again, every context
 * programmed with it, then the old one freed (page_table_resize). The root never shrinks.
 */
static fsr_status
grow_root(struct os_va_space *space, uint64_t end)
{
	struct fsr_adapter *adapter = space->adapter;
	struct os_page_table *root = space->root;
	uint32_t shift = level_shift(space, 0, SMALL_PAGE);
	uint32_t max_entries = level_entries(space, 0, SMALL_PAGE);
	uint64_t needed = (end + (UINT64_C(1) << shift) - 1) >> shift;
	uint32_t count;
	size_t bytes;
	void *memory;
	struct os_page_table **children;
	void *old_memory = root->memory;
	uint32_t old_count = root->entry_count;

	if (needed <= root->entry_count)
		return FSR_OK;
	count = root->entry_count * 2 > needed ? root->entry_count * 2 : (uint32_t) needed;
	if (count > max_entries)
		count = max_entries;
	bytes = adapter->ddi.DxgkDdiGetRootPageTableSize(adapter->miniport, &count);
	if (count < needed || count > max_entries)
		return FSR_ERR_NO_RESOURCES;
	memory = table_memory(space, bytes);
	children = calloc(count, sizeof(*children));
	if (!memory || !children) {
		free(memory);
		free(children);
		return FSR_ERR_NO_RESOURCES;
	}
	memcpy(children, root->children, root->entry_count * sizeof(*children));
	free(root->children);
	root->children = children;
	root->memory = memory;
	root->entry_count = count;
	FSR_TRACE(adapter->runtime, fencescope_os, page_table_resize, adapter->id,
		  space->process->id, root->id, old_count, count);
	/* The new root is filled before any context is pointed at it. */
	relink_root(space, root);
	program_root(space, root);
	free(old_memory); /* SetRootPageTable returned: no engine walks it any more */
	return FSR_OK;
}

/* The leaf table of `page_bytes` pages that translates `va`, made (and linked) if needed. */
static struct os_page_table *
leaf_for(struct os_va_space *space, uint64_t va, uint32_t page_bytes)
{
	struct os_page_table *table = space->root;
	uint32_t leaf = leaf_level(space);

	for (uint32_t level = 0; level < leaf; level++) {
		uint32_t index = entry_index(space, level, SMALL_PAGE, va);
		uint32_t slot = child_slots(space, level) == 2
				    ? index * 2 + (page_bytes == LARGE_PAGE ? 1 : 0)
				    : index;
		struct os_page_table *child = table->children[slot];

		if (!child) {
			uint32_t child_page = level + 1 == leaf ? page_bytes : SMALL_PAGE;
			uint32_t entries = level_entries(space, level + 1, child_page);

			child = table_new(space, level + 1, entries, child_page,
					  table_bytes(space, level + 1, entries));
			if (!child)
				return NULL;
			table->children[slot] = child;
			table->used++;
			link_child(space, table, index, child, child_page);
		}
		table = child;
	}
	return table;
}

/*
 * The tables on the way to the leaf of `page_bytes` pages that translates `va`, root first
 * (path[0 .. leaf]), and each one's slot in its parent (slots[1 .. leaf]); false when a table
 * on the way is missing.
 */
static bool
find_path(struct os_va_space *space, uint64_t va, uint32_t page_bytes,
	  struct os_page_table *path[DXGK_MAX_PAGE_TABLE_LEVELS],
	  uint32_t slots[DXGK_MAX_PAGE_TABLE_LEVELS])
{
	uint32_t leaf = leaf_level(space);

	path[0] = space->root;
	for (uint32_t level = 0; level < leaf; level++) {
		uint32_t index = entry_index(space, level, SMALL_PAGE, va);

		slots[level + 1] = child_slots(space, level) == 2
				       ? index * 2 + (page_bytes == LARGE_PAGE ? 1 : 0)
				       : index;
		if (index >= path[level]->entry_count ||
		    !(path[level + 1] = path[level]->children[slots[level + 1]]))
			return false;
	}
	return true;
}

/*
 * MMU-02: the leaf entries of [va, va + size) written: to the pages of `mapping` from its
 * offset (making the tables on the way), or invalid (mapping NULL: the tables exist). One
 * DxgkDdiUpdatePageTable per leaf table touched. *pages_done: the pages written.
 */
static fsr_status
write_leaves(struct os_va_space *space, uint64_t va, uint64_t size, uint32_t page_bytes,
	     const struct os_va_mapping *mapping, uint64_t *pages_done)
{
	uint32_t leaf_entries = level_entries(space, leaf_level(space), page_bytes);
	struct dxgk_pte *entries = calloc(leaf_entries, sizeof(*entries));
	uint64_t pages = size / page_bytes;
	uint64_t page = 0;
	fsr_status status = FSR_OK;

	if (!entries)
		return FSR_ERR_NO_RESOURCES;
	while (page < pages) {
		uint64_t first_va = va + page * page_bytes;
		struct os_page_table *path[DXGK_MAX_PAGE_TABLE_LEVELS];
		uint32_t slots[DXGK_MAX_PAGE_TABLE_LEVELS];
		struct os_page_table *leaf =
		    mapping ? leaf_for(space, first_va, page_bytes)
			    : (find_path(space, first_va, page_bytes, path, slots)
				   ? path[leaf_level(space)]
				   : NULL);
		uint32_t first = entry_index(space, leaf_level(space), page_bytes, first_va);
		uint32_t count = 0;

		if (!leaf) {
			status = FSR_ERR_NO_RESOURCES;
			break;
		}
		while (page < pages && first + count < leaf_entries) {
			struct dxgk_pte *entry = &entries[count];

			*entry = (struct dxgk_pte){.page_size_bytes = page_bytes};
			if (mapping) {
				entry->is_valid = true;
				entry->is_read_only = mapping->is_read_only;
				entry->address = (char *) mapping->allocation->storage +
						 mapping->offset_bytes + (first_va - mapping->va) +
						 (uint64_t) count * page_bytes;
			}
			count++;
			page++;
		}
		update_entries(space, leaf, first, count, first_va, entries);
		/* Mappings never overlap: a map turns invalid entries valid, an unmap back. */
		if (mapping)
			leaf->used += count;
		else
			leaf->used -= count;
	}
	free(entries);
	*pages_done = page;
	return status;
}

/*
 * MMU-02: the tables [va, va + size) left empty are unlinked from their parents (each parent
 * entry written invalid), leaves first and up to the root's children, and queued on *freed:
 * the caller flushes the TLB, then frees them (free_unlinked).
 */
static void
unlink_empty(struct os_va_space *space, uint64_t va, uint64_t size, uint32_t page_bytes,
	     struct os_page_table **freed)
{
	uint32_t leaf = leaf_level(space);
	uint64_t span = UINT64_C(1)
			<< level_shift(space, leaf - 1, SMALL_PAGE); /* one leaf's VAs */

	for (uint64_t at = va & ~(span - 1); at < va + size; at += span) {
		struct os_page_table *path[DXGK_MAX_PAGE_TABLE_LEVELS];
		uint32_t slots[DXGK_MAX_PAGE_TABLE_LEVELS];

		if (!find_path(space, at, page_bytes, path, slots))
			continue;
		for (uint32_t level = leaf; level > 0 && path[level]->used == 0; level--) {
			struct os_page_table *parent = path[level - 1];
			uint32_t index = entry_index(space, level - 1, SMALL_PAGE, at);
			struct dxgk_pte entry = {
			    .page_size_bytes = child_slots(space, level - 1) == 2 ? page_bytes : 0};

			parent->children[slots[level]] = NULL;
			parent->used--;
			update_entries(
			    space, parent, index, 1,
			    (uint64_t) index << level_shift(space, level - 1, SMALL_PAGE), &entry);
			path[level]->next_free = *freed;
			*freed = path[level];
		}
	}
}

/* After the TLB flush: no walk is left in the unlinked tables (page_table_destroy each). */
static void
free_unlinked(struct os_va_space *space, struct os_page_table *freed)
{
	while (freed) {
		struct os_page_table *next = freed->next_free;

		table_free(space, freed);
		freed = next;
	}
}

/* An unmap's page-table work: entries invalid, empty tables unlinked, flush, tables freed. */
static void
clear_range(struct os_va_space *space, uint64_t va, uint64_t size, uint32_t page_bytes)
{
	struct os_page_table *freed = NULL;
	uint64_t pages_done;

	if (size == 0)
		return;
	(void) write_leaves(space, va, size, page_bytes, NULL, &pages_done);
	unlink_empty(space, va, size, page_bytes, &freed);
	space->adapter->ddi.DxgkDdiFlushTlb(space->adapter->miniport);
	free_unlinked(space, freed);
}

/* ---- VA spaces ---------------------------------------------------------------------------- */

struct os_va_space *
os_vidmm_find_space(struct fsr_process *process, struct fsr_adapter *adapter)
{
	return process->va_spaces[adapter->id];
}

fsr_status
os_vidmm_get_space(struct fsr_process *process, struct fsr_adapter *adapter,
		   struct os_va_space **space_out)
{
	struct os_va_space *space = process->va_spaces[adapter->id];
	uint32_t root_entries = 1;
	size_t bytes;

	if (space) {
		*space_out = space;
		return FSR_OK;
	}
	if (!os_vidmm_query_caps(adapter))
		return FSR_ERR_NOT_SUPPORTED;
	space = calloc(1, sizeof(*space));
	if (!space)
		return FSR_ERR_NO_RESOURCES;
	space->process = process;
	space->adapter = adapter;
	space->va_size_bytes = UINT64_C(1) << adapter->gpummu_caps.va_bit_count;
	/* MMU-03: the root starts with one entry and grows with the VAs in use. */
	bytes = adapter->ddi.DxgkDdiGetRootPageTableSize(adapter->miniport, &root_entries);
	if (root_entries == 0 || root_entries > level_entries(space, 0, SMALL_PAGE)) {
		free(space);
		return FSR_ERR_NOT_SUPPORTED;
	}
	FSR_TRACE(adapter->runtime, fencescope_os, va_space_create, adapter->id, process->id,
		  space->va_size_bytes, adapter->gpummu_caps.level_count, root_entries);
	space->root = table_new(space, 0, root_entries, 0, bytes);
	if (!space->root) {
		FSR_TRACE(adapter->runtime, fencescope_os, va_space_destroy, adapter->id,
			  process->id);
		free(space);
		return FSR_ERR_NO_RESOURCES;
	}
	process->va_spaces[adapter->id] = space;
	/* MMU-01: the process's contexts on the adapter translate through it from now on. */
	program_root(space, space->root);
	*space_out = space;
	return FSR_OK;
}

void
os_vidmm_context_created(struct os_context *context)
{
	struct os_va_space *space =
	    os_vidmm_find_space(context->device->process, context->device->adapter);

	if (space)
		space->adapter->ddi.DxgkDdiSetRootPageTable(space->adapter->miniport, context,
							    space->root->memory,
							    space->root->entry_count);
}

/* ---- reservations -------------------------------------------------------------------------- */

static uint64_t
align_up(uint64_t value, uint64_t alignment)
{
	return (value + alignment - 1) & ~(alignment - 1);
}

static bool
is_page_aligned(uint64_t value)
{
	return (value & (SMALL_PAGE - 1)) == 0;
}

static bool
overlaps(uint64_t va, uint64_t size, uint64_t other_va, uint64_t other_size)
{
	return va < other_va + other_size && other_va < va + size;
}

/* MMU-06: the lowest free range of `size` in [min_va, max_va), 64 KB aligned; 0 if none. */
static uint64_t
pick_va(const struct os_va_space *space, uint64_t size, uint64_t min_va, uint64_t max_va)
{
	uint64_t low = min_va > LARGE_PAGE ? min_va : LARGE_PAGE; /* VA 0 is never mapped */
	uint64_t high = max_va && max_va < space->va_size_bytes ? max_va : space->va_size_bytes;
	uint64_t candidate = align_up(low, LARGE_PAGE);

	for (const struct os_va_range *range = space->ranges; range; range = range->next) {
		if (range->va >= candidate + size)
			break;
		if (range->va + range->size_bytes > candidate)
			candidate = align_up(range->va + range->size_bytes, LARGE_PAGE);
	}
	if (candidate < low || candidate + size > high || candidate + size < candidate)
		return 0;
	return candidate;
}

static fsr_status
insert_range(struct os_va_space *space, uint64_t va, uint64_t size, bool is_for_mapping,
	     bool is_os_picked, uint64_t min_va, uint64_t max_va)
{
	struct os_va_range *range = calloc(1, sizeof(*range));
	struct os_va_range **link = &space->ranges;
	fsr_status status = grow_root(space, va + size);

	if (!range || status != FSR_OK) {
		free(range);
		return status != FSR_OK ? status : FSR_ERR_NO_RESOURCES;
	}
	*range =
	    (struct os_va_range){.va = va, .size_bytes = size, .is_for_mapping = is_for_mapping};
	while (*link && (*link)->va < va)
		link = &(*link)->next;
	range->next = *link;
	*link = range;
	FSR_TRACE(space->adapter->runtime, fencescope_os, va_reserve, space->adapter->id,
		  space->process->id, va, size, min_va, max_va, (uint8_t) is_os_picked);
	return FSR_OK;
}

/* Checks a UMD range request (MMU-10) and picks its VA when asked to. */
static fsr_status
place_range(const struct os_va_space *space, uint64_t size, uint64_t min_va, uint64_t max_va,
	    uint64_t fixed_va, uint64_t *va)
{
	if (size == 0 || !is_page_aligned(size) || !is_page_aligned(fixed_va) ||
	    !is_page_aligned(min_va) || !is_page_aligned(max_va) || size > space->va_size_bytes ||
	    (max_va && max_va <= min_va))
		return FSR_ERR_INVALID_ARGUMENT;
	if (fixed_va) {
		if (fixed_va + size > space->va_size_bytes || fixed_va + size < fixed_va)
			return FSR_ERR_INVALID_ARGUMENT;
		for (const struct os_va_range *range = space->ranges; range; range = range->next)
			if (overlaps(fixed_va, size, range->va, range->size_bytes))
				return FSR_ERR_BAD_STATE;
		*va = fixed_va;
		return FSR_OK;
	}
	*va = pick_va(space, size, min_va, max_va);
	return *va ? FSR_OK : FSR_ERR_NO_RESOURCES;
}

fsr_status
os_vidmm_reserve(struct os_va_space *space, uint64_t size, uint64_t min_va, uint64_t max_va,
		 uint64_t fixed_va, uint64_t *va)
{
	fsr_status status = place_range(space, size, min_va, max_va, fixed_va, va);

	if (status == FSR_OK)
		status = insert_range(space, *va, size, false, fixed_va == 0, min_va, max_va);
	return status;
}

static void
remove_range(struct os_va_space *space, struct os_va_range *range)
{
	for (struct os_va_range **link = &space->ranges; *link; link = &(*link)->next) {
		if (*link == range) {
			*link = range->next;
			break;
		}
	}
	FSR_TRACE(space->adapter->runtime, fencescope_os, va_free, space->adapter->id,
		  space->process->id, range->va, range->size_bytes);
	free(range);
}

static struct os_va_range *
find_range(struct os_va_space *space, uint64_t va, uint64_t size)
{
	for (struct os_va_range *range = space->ranges; range; range = range->next)
		if (range->va <= va && va + size <= range->va + range->size_bytes)
			return range;
	return NULL;
}

/* ---- mappings ---------------------------------------------------------------------------- */

/* MMU-06: the entries invalid, the TLB flushed, the mapping gone (va_unmap, and va_free for a
 * picked one's own range). */
static void
unmap(struct os_va_space *space, struct os_va_mapping *mapping)
{
	struct fsr_adapter *adapter = space->adapter;

	for (struct os_va_mapping **link = &space->mappings; *link; link = &(*link)->next) {
		if (*link == mapping) {
			*link = mapping->next;
			break;
		}
	}
	clear_range(space, mapping->va, mapping->size_bytes, mapping->page_size_bytes);
	mapping->allocation->mapping_count--;
	FSR_TRACE(adapter->runtime, fencescope_os, va_unmap, space->process->id, mapping->va,
		  mapping->size_bytes, adapter->id);
	if (mapping->is_os_picked)
		remove_range(space, find_range(space, mapping->va, mapping->size_bytes));
	free(mapping);
}

fsr_status
os_vidmm_free(struct os_va_space *space, uint64_t va, uint64_t size)
{
	struct os_va_range *range = find_range(space, va, size);

	if (!range || range->va != va || range->size_bytes != size || range->is_for_mapping)
		return FSR_ERR_INVALID_ARGUMENT;
	/* MMU-06: what is still mapped in the range goes first. */
	for (struct os_va_mapping *mapping = space->mappings, *next; mapping; mapping = next) {
		next = mapping->next;
		if (overlaps(mapping->va, mapping->size_bytes, va, size))
			unmap(space, mapping);
	}
	remove_range(space, range);
	return FSR_OK;
}

/* MMU-12: 64 KB entries where the allocation and the whole range allow them. */
static uint32_t
mapping_page_size(const struct os_va_space *space, const struct os_allocation *allocation,
		  uint64_t va, uint64_t offset, uint64_t size)
{
	uint64_t mask = LARGE_PAGE - 1;

	if (allocation->page_size_bytes == LARGE_PAGE && caps_of(space)->is_64kb_page_supported &&
	    !(va & mask) && !(offset & mask) && !(size & mask))
		return LARGE_PAGE;
	return SMALL_PAGE;
}

fsr_status
os_vidmm_map(struct os_va_space *space, struct os_allocation *allocation,
	     const struct fsr_va_map_args *args, uint64_t *va_out)
{
	struct fsr_adapter *adapter = space->adapter;
	struct os_va_mapping *mapping;
	uint64_t size = args->size_bytes;
	uint64_t va = args->va;
	uint64_t storage_bytes = align_up(allocation->size_bytes, allocation->page_size_bytes);
	uint64_t pages_done = 0;
	fsr_status status;

	/* MMU-10: the interface's granularity; the range inside the allocation. */
	if (size == 0 || !is_page_aligned(size) || !is_page_aligned(args->offset_bytes) ||
	    !is_page_aligned(va) || args->offset_bytes >= storage_bytes ||
	    size > storage_bytes - args->offset_bytes || allocation->device->adapter != adapter)
		return FSR_ERR_INVALID_ARGUMENT;
	if (va) {
		struct os_va_range *range;

		if (va + size > space->va_size_bytes || va + size < va)
			return FSR_ERR_INVALID_ARGUMENT;
		range = find_range(space, va, size);
		if (!range || range->is_for_mapping)
			return FSR_ERR_BAD_STATE;
		for (const struct os_va_mapping *m = space->mappings; m; m = m->next)
			if (overlaps(va, size, m->va, m->size_bytes))
				return FSR_ERR_BAD_STATE;
	} else {
		status = place_range(space, size, args->min_va, args->max_va, 0, &va);
		if (status != FSR_OK)
			return status;
	}
	mapping = calloc(1, sizeof(*mapping));
	if (!mapping)
		return FSR_ERR_NO_RESOURCES;
	if (!args->va) {
		status = insert_range(space, va, size, true, true, args->min_va, args->max_va);
		if (status != FSR_OK) {
			free(mapping);
			return status;
		}
	}
	*mapping = (struct os_va_mapping){
	    .va = va,
	    .size_bytes = size,
	    .offset_bytes = args->offset_bytes,
	    .allocation = allocation,
	    .page_size_bytes = mapping_page_size(space, allocation, va, args->offset_bytes, size),
	    .is_read_only = args->is_read_only,
	    .is_os_picked = !args->va,
	};
	status = write_leaves(space, va, size, mapping->page_size_bytes, mapping, &pages_done);
	if (status != FSR_OK) {
		/* Whatever was written goes again, and the tables it left empty. */
		clear_range(space, va, pages_done * mapping->page_size_bytes,
			    mapping->page_size_bytes);
		if (mapping->is_os_picked)
			remove_range(space, find_range(space, va, size));
		free(mapping);
		return status;
	}
	{
		struct os_va_mapping **link = &space->mappings;

		while (*link && (*link)->va < va)
			link = &(*link)->next;
		mapping->next = *link;
		*link = mapping;
	}
	allocation->mapping_count++;
	FSR_TRACE(adapter->runtime, fencescope_os, va_map, space->process->id, allocation->handle,
		  va, size, args->offset_bytes, adapter->id, (uint8_t) mapping->is_os_picked,
		  mapping->page_size_bytes, allocation->segment);
	*va_out = va;
	return FSR_OK;
}

fsr_status
os_vidmm_unmap(struct os_va_space *space, uint64_t va, uint64_t size)
{
	for (struct os_va_mapping *mapping = space->mappings; mapping; mapping = mapping->next) {
		if (mapping->va == va && mapping->size_bytes == size) {
			unmap(space, mapping);
			return FSR_OK;
		}
	}
	return FSR_ERR_INVALID_ARGUMENT;
}

void
os_vidmm_unmap_allocation(struct os_allocation *allocation)
{
	struct fsr_process *process = allocation->device->process;
	struct os_va_space *space;

	if (allocation->mapping_count == 0)
		return;
	space = os_vidmm_find_space(process, allocation->device->adapter);
	for (struct os_va_mapping *mapping = space->mappings, *next; mapping; mapping = next) {
		next = mapping->next;
		if (mapping->allocation == allocation)
			unmap(space, mapping);
	}
}

/* ---- residency and the end ---------------------------------------------------------------- */

static void
table_set_resident(struct os_va_space *space, struct os_page_table *table, bool is_resident)
{
	if (table->children) {
		uint32_t slots = table->entry_count * child_slots(space, table->level);

		for (uint32_t i = 0; i < slots; i++)
			if (table->children[i])
				table_set_resident(space, table->children[i], is_resident);
	}
	FSR_TRACE(space->adapter->runtime, fencescope_os, page_table_residency, space->adapter->id,
		  space->process->id, table->id, (uint8_t) is_resident,
		  (int) (is_resident ? FSTP_SEGMENT_LOCAL : FSTP_SEGMENT_SYSTEM));
}

void
os_vidmm_set_resident(struct fsr_adapter *adapter, bool is_resident)
{
	for (struct fsr_process *process = adapter->runtime->processes; process;
	     process = process->next) {
		struct os_va_space *space = process->va_spaces[adapter->id];

		if (space)
			table_set_resident(space, space->root, is_resident);
	}
}

void
os_vidmm_destroy_spaces(struct fsr_process *process)
{
	for (uint32_t a = 0; a < FSR_MAX_ADAPTERS; a++) {
		struct os_va_space *space = process->va_spaces[a];

		if (!space)
			continue;
		while (space->mappings)
			unmap(space, space->mappings);
		while (space->ranges)
			remove_range(space, space->ranges);
		table_free(space, space->root);
		FSR_TRACE(space->adapter->runtime, fencescope_os, va_space_destroy,
			  space->adapter->id, process->id);
		process->va_spaces[a] = NULL;
		free(space);
	}
}

uint64_t
os_vidmm_space_size(const struct os_va_space *space)
{
	return space->va_size_bytes;
}
