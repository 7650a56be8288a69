/* SPDX-License-Identifier: MIT */
/*
 * What the UI tests do to an FsvOpsTable that the public API does not: a click on a column
 * header, the worker thread on a small trace, where a row is on screen. Not for the
 * application's own use.
 */
#ifndef FSV_OPS_TABLE_PRIVATE_H
#define FSV_OPS_TABLE_PRIVATE_H

#include "fsv-ops-table.h"

G_BEGIN_DECLS

/* What a click on COLUMN's header does: the sort column reverses its order, another column
 * becomes the sort column (Duration: longest first, others: smallest first). */
void _fsv_ops_table_click_header(FsvOpsTable *self, FsvOpsColumn column);

/* Ops up to which rows are computed in the UI thread (default 200 000); above, in a worker. */
void _fsv_ops_table_set_sync_max_ops(guint max);

/*
 * Where row POSITION is on screen, in TARGET's coordinates (the window's for a pointer
 * click, e.g. with xdotool): false when the row is not shown (scroll to it first with
 * _fsv_ops_table_scroll_to_row() and let GTK lay it out).
 */
gboolean _fsv_ops_table_get_row_bounds(FsvOpsTable *self, guint position, GtkWidget *target,
				       graphene_rect_t *bounds);
void _fsv_ops_table_scroll_to_row(FsvOpsTable *self, guint position);

G_END_DECLS

#endif /* FSV_OPS_TABLE_PRIVATE_H */
