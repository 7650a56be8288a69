/* SPDX-License-Identifier: MIT */
/*
 * FsvOpsTable: every fence operation of a trace as a table beside the timeline (issue 15 §3):
 * kind, source, state, queue, process, fence, value, queued, end, duration, phases and op id,
 * sortable by any column (a click on a header) and filtered by the search language
 * (fsv-query.h), the same query that fades the timeline.
 *
 * Millions of rows: the list model holds only an array of op indexes (the filtered, sorted
 * permutation) and makes a row object for the rows GTK asks for, i.e. the visible ones. The
 * permutation of a large trace is computed in a worker thread; the previous one stays shown
 * until it is done.
 *
 * It does not draw the timeline and owns no selection of its own: the window ties its
 * "op-selected" signal to the timeline, and the timeline's selection back with
 * fsv_ops_table_select_op().
 */
#ifndef FSV_OPS_TABLE_H
#define FSV_OPS_TABLE_H

#include <gtk/gtk.h>

#include "fsv-query.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

#define FSV_TYPE_OPS_TABLE (fsv_ops_table_get_type())

G_DECLARE_FINAL_TYPE(FsvOpsTable, fsv_ops_table, FSV, OPS_TABLE, GtkWidget)

/* The columns, left to right. */
typedef enum {
	FSV_OPS_COLUMN_KIND,
	FSV_OPS_COLUMN_SOURCE,
	FSV_OPS_COLUMN_STATE,
	FSV_OPS_COLUMN_QUEUE,
	FSV_OPS_COLUMN_PROCESS,
	FSV_OPS_COLUMN_FENCE,
	FSV_OPS_COLUMN_VALUE,
	FSV_OPS_COLUMN_QUEUED,
	FSV_OPS_COLUMN_END,
	FSV_OPS_COLUMN_DURATION,
	FSV_OPS_COLUMN_PHASES,
	FSV_OPS_COLUMN_OP_ID,
	FSV_OPS_COLUMN_COUNT,
	/* No sort column: time order (box start, then op index). */
	FSV_OPS_COLUMN_NONE = FSV_OPS_COLUMN_COUNT,
} FsvOpsColumn;

GtkWidget *fsv_ops_table_new(void);

/* Lists every op of TRACE (referenced; NULL empties the table). */
void fsv_ops_table_set_trace(FsvOpsTable *self, FsvTrace *trace);
/* Lists only the ops matching QUERY (referenced; NULL or empty: every op). */
void fsv_ops_table_set_query(FsvOpsTable *self, FsvQuery *query);

/*
 * Sorts by COLUMN as a click on its header does (FSV_OPS_COLUMN_NONE: time order).
 * GTK_SORT_ASCENDING puts the smallest first, except on Duration, where the first click puts
 * the longest first (GTK_SORT_DESCENDING).
 */
void fsv_ops_table_sort(FsvOpsTable *self, FsvOpsColumn column, GtkSortType order);
/* The sort shown (column FSV_OPS_COLUMN_NONE: time order). */
FsvOpsColumn fsv_ops_table_get_sort(FsvOpsTable *self, GtkSortType *order);

/* Whether a filter or sort is being computed in a worker thread (the rows shown are the
 * previous ones until it is done). */
gboolean fsv_ops_table_is_busy(FsvOpsTable *self);
/* Rows listed, and the op index of a row (FSV_INDEX_NONE past the end). */
guint fsv_ops_table_get_n_rows(FsvOpsTable *self);
guint32 fsv_ops_table_get_row_op(FsvOpsTable *self, guint position);
/* Returns: (transfer full): the text of a cell, as shown. */
char *fsv_ops_table_dup_cell_text(FsvOpsTable *self, guint position, FsvOpsColumn column);

/*
 * Selects the row of op OP and scrolls it into view, without emitting "op-selected" (the
 * timeline's selection calls this). FSV_INDEX_NONE, or an op the filter hides, clears the
 * table's selection. Returns whether the op's row is listed.
 */
gboolean fsv_ops_table_select_op(FsvOpsTable *self, guint32 op);
/* The row selected (GTK_INVALID_LIST_POSITION when none). */
guint fsv_ops_table_get_selected(FsvOpsTable *self);
/* Selects row POSITION as a click would: emits "op-selected". */
void fsv_ops_table_select_row(FsvOpsTable *self, guint position);

G_END_DECLS

#endif /* FSV_OPS_TABLE_H */
