/* SPDX-License-Identifier: MIT */
/*
 * What the UI tests do to an FsvOpsTable that the public API does not: a click on a column
 * header. Not for the application's own use.
 */
#ifndef FSV_OPS_TABLE_PRIVATE_H
#define FSV_OPS_TABLE_PRIVATE_H

#include "fsv-ops-table.h"

G_BEGIN_DECLS

/* What a click on COLUMN's header does: the sort column reverses its order, another column
 * becomes the sort column (Duration: longest first, others: smallest first). */
void _fsv_ops_table_click_header(FsvOpsTable *self, FsvOpsColumn column);

G_END_DECLS

#endif /* FSV_OPS_TABLE_PRIVATE_H */
