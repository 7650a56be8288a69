/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, MMU-03: DxgkDdiSetRootPageTable programs the new root's address but keeps the
 * entry count of a one-entry root, so once the OS has grown the root the GPU's MMU still stops
 * at the first GiB: a mapping above it faults although the OS wrote every table on the way.
 */
#include "faulty.h"

static void
first_size_set_root_page_table(void *miniport, struct os_context *context, void *root,
			       uint32_t entry_count)
{
	reference.DxgkDdiSetRootPageTable(miniport, context, root, entry_count ? 1 : 0);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiSetRootPageTable = first_size_set_root_page_table;
}

const char *
fsc_driver_name(void)
{
	return "mmu-03-root-keeps-its-first-size";
}
