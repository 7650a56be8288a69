/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, MMU-02: DxgkDdiUpdatePageTable writes the leaf entries the OS asked for and,
 * when it maps, one more after them (the next page of the allocation), so a VA just past every
 * mapping translates where the GPU should fault.
 */
#include "faulty.h"

#include <stdlib.h>
#include <string.h>

static void
one_too_many_update_page_table(void *miniport, const struct dxgk_update_page_table *args)
{
	struct dxgk_update_page_table more = *args;
	uint32_t capacity =
	    args->entry_count && args->entries[0].page_size_bytes == 65536 ? 32 : 512;
	struct dxgk_pte *entries;

	if (args->level != HW_MMU_LEVELS - 1 || args->entry_count == 0 ||
	    !args->entries[0].is_valid || args->first_entry + args->entry_count >= capacity) {
		reference.DxgkDdiUpdatePageTable(miniport, args);
		return;
	}
	entries = calloc(args->entry_count + 1, sizeof(*entries));
	memcpy(entries, args->entries, args->entry_count * sizeof(*entries));
	entries[args->entry_count] = entries[args->entry_count - 1];
	entries[args->entry_count].address = (char *) entries[args->entry_count].address +
					     entries[args->entry_count].page_size_bytes;
	more.entries = entries;
	more.entry_count++;
	reference.DxgkDdiUpdatePageTable(miniport, &more);
	free(entries);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiUpdatePageTable = one_too_many_update_page_table;
}

const char *
fsc_driver_name(void)
{
	return "mmu-02-maps-one-page-too-many";
}
