/* SPDX-License-Identifier: MIT */
/*
 * FsvOpsTable (fsv-ops-table.h): a GtkColumnView over FsvOpsModel, a GListModel whose items are
 * made on demand from an array of op indexes, so a table of millions of rows costs 4 bytes a
 * row plus the few row objects GTK keeps for what is on screen.
 *
 * Sorting does not go through GtkSortListModel (it would ask for every item, millions of
 * objects): each column gets a GtkCustomSorter that only tells which column the column view
 * asked first (its primary sort column; GTK 4.8 has no getter for it), and the table computes
 * the permutation itself: the filtered ops' sort keys extracted into one array and sorted
 * (qsort over 16-byte records is cache-friendly where comparing through the ops is not), in a
 * worker thread for large traces.
 */
#include "fsv-ops-table.h"
#include "fsv-ops-table-private.h"

#include <inttypes.h>
#include <stdlib.h>

#include "fsa/model.h"

/* Up to this many ops the rows are computed at once in the UI thread (a few ms); above, in a
 * worker thread. */
#define SYNC_MAX_OPS 200000

/* SYNC_MAX_OPS; the UI tests lower it to run the worker on a small trace. */
static guint sync_max_ops = SYNC_MAX_OPS;

void
_fsv_ops_table_set_sync_max_ops(guint max)
{
	sync_max_ops = max;
}

/* --- Row objects ------------------------------------------------------------------------- */

#define FSV_TYPE_OPS_ROW (fsv_ops_row_get_type())
G_DECLARE_FINAL_TYPE(FsvOpsRow, fsv_ops_row, FSV, OPS_ROW, GObject)

struct _FsvOpsRow {
	GObject parent_instance;
	guint32 op;
};

G_DEFINE_FINAL_TYPE(FsvOpsRow, fsv_ops_row, G_TYPE_OBJECT)

static void
fsv_ops_row_class_init(FsvOpsRowClass *klass)
{
	(void) klass;
}

static void
fsv_ops_row_init(FsvOpsRow *self)
{
	self->op = FSV_INDEX_NONE;
}

/* --- The list model ---------------------------------------------------------------------- */

#define FSV_TYPE_OPS_MODEL (fsv_ops_model_get_type())
G_DECLARE_FINAL_TYPE(FsvOpsModel, fsv_ops_model, FSV, OPS_MODEL, GObject)

struct _FsvOpsModel {
	GObject parent_instance;
	guint32 *rows; /* op indexes, in display order */
	guint n_rows;
};

static GType
ops_model_get_item_type(GListModel *list)
{
	(void) list;
	return FSV_TYPE_OPS_ROW;
}

static guint
ops_model_get_n_items(GListModel *list)
{
	return FSV_OPS_MODEL(list)->n_rows;
}

static gpointer
ops_model_get_item(GListModel *list, guint position)
{
	FsvOpsModel *self = FSV_OPS_MODEL(list);
	FsvOpsRow *row;

	if (position >= self->n_rows)
		return NULL;
	row = g_object_new(FSV_TYPE_OPS_ROW, NULL);
	row->op = self->rows[position];
	return row;
}

static void
ops_model_list_model_init(GListModelInterface *iface)
{
	iface->get_item_type = ops_model_get_item_type;
	iface->get_n_items = ops_model_get_n_items;
	iface->get_item = ops_model_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE(FsvOpsModel, fsv_ops_model, G_TYPE_OBJECT,
			      G_IMPLEMENT_INTERFACE(G_TYPE_LIST_MODEL, ops_model_list_model_init))

static void
fsv_ops_model_finalize(GObject *object)
{
	g_free(FSV_OPS_MODEL(object)->rows);
	G_OBJECT_CLASS(fsv_ops_model_parent_class)->finalize(object);
}

static void
fsv_ops_model_class_init(FsvOpsModelClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = fsv_ops_model_finalize;
}

static void
fsv_ops_model_init(FsvOpsModel *self)
{
	(void) self;
}

/* Takes ROWS (g_malloc'd). */
static void
ops_model_replace(FsvOpsModel *self, guint32 *rows, guint n_rows)
{
	guint removed = self->n_rows;

	g_free(self->rows);
	self->rows = rows;
	self->n_rows = n_rows;
	g_list_model_items_changed(G_LIST_MODEL(self), 0, removed, n_rows);
}

/* --- Computing the rows ------------------------------------------------------------------ */

typedef struct {
	guint64 key;
	guint32 op;
} KeyedOp;

static guint64
sort_key(const FsvOp *op, FsvOpsColumn column)
{
	switch (column) {
	case FSV_OPS_COLUMN_KIND:
		return op->kind;
	case FSV_OPS_COLUMN_SOURCE:
		return op->source;
	case FSV_OPS_COLUMN_STATE:
		return op->state;
	case FSV_OPS_COLUMN_QUEUE:
		return op->hwqueue_handle;
	case FSV_OPS_COLUMN_PROCESS:
		return op->process_id;
	case FSV_OPS_COLUMN_FENCE:
		return op->fence_handle;
	case FSV_OPS_COLUMN_VALUE:
		return op->fence_value;
	case FSV_OPS_COLUMN_QUEUED:
		/* Unqueued ops (no queued time) after every queued one. */
		return op->queued_ns;
	case FSV_OPS_COLUMN_END:
		/* Ops that never ended last. */
		return op->op_end_ns;
	case FSV_OPS_COLUMN_DURATION:
		return fsv_op_get_duration(op);
	case FSV_OPS_COLUMN_PHASES:
		/* The stalled-on-GPU phase: the part of a wait the GPU spent blocked. */
		if (op->observed_ns != FSV_TIME_NONE && op->op_end_ns != FSV_TIME_NONE &&
		    op->op_end_ns >= op->observed_ns)
			return op->op_end_ns - op->observed_ns;
		return 0;
	case FSV_OPS_COLUMN_OP_ID:
		return op->id;
	case FSV_OPS_COLUMN_NONE:
	default:
		return op->begin_ns;
	}
}

static int
compare_keyed(const void *a, const void *b)
{
	const KeyedOp *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/* Equal keys in time order (op index order): a sort is the same from one run to the
	 * next. */
	return x->op < y->op ? -1 : x->op > y->op;
}

typedef struct {
	FsvTrace *trace;
	FsvQuery *query; /* nullable */
	FsvOpsColumn column;
	gboolean is_largest_first;
	guint generation;
	/* Out. */
	guint32 *rows;
	guint n_rows;
} RowsJob;

static void
rows_job_free(gpointer data)
{
	RowsJob *job = data;

	fsv_trace_unref(job->trace);
	if (job->query)
		fsv_query_unref(job->query);
	g_free(job->rows);
	g_free(job);
}

/* Filters and sorts; false when cancelled. */
static gboolean
rows_job_run(RowsJob *job, GCancellable *cancellable)
{
	guint n_ops = fsv_trace_get_op_count(job->trace), n = 0;
	g_autofree KeyedOp *keyed = g_new(KeyedOp, MAX(n_ops, 1));
	guint64 flip = job->is_largest_first ? G_MAXUINT64 : 0;

	for (guint32 i = 0; i < n_ops; i++) {
		const FsvOp *op = fsv_trace_get_op(job->trace, i);

		if ((i & 0xffff) == 0 && g_cancellable_is_cancelled(cancellable))
			return FALSE;
		if (!fsv_query_match_op(job->query, op))
			continue;
		keyed[n].key = sort_key(op, job->column) ^ flip;
		keyed[n].op = i;
		n++;
	}
	qsort(keyed, n, sizeof(*keyed), compare_keyed);
	if (g_cancellable_is_cancelled(cancellable))
		return FALSE;
	job->rows = g_new(guint32, MAX(n, 1));
	for (guint i = 0; i < n; i++)
		job->rows[i] = keyed[i].op;
	job->n_rows = n;
	return TRUE;
}

static void
rows_thread(GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
	(void) source_object;
	if (rows_job_run(task_data, cancellable))
		g_task_return_boolean(task, TRUE);
	else
		g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
}

/* --- The widget -------------------------------------------------------------------------- */

typedef struct {
	FsvOpsTable *table;
	FsvOpsColumn column;
} ColumnRef;

struct _FsvOpsTable {
	GtkWidget parent_instance;

	GtkWidget *box;
	GtkLabel *count_label;
	GtkScrolledWindow *scrolled;
	GtkColumnView *view;
	GtkColumnViewColumn *columns[FSV_OPS_COLUMN_COUNT];
	ColumnRef refs[FSV_OPS_COLUMN_COUNT];
	FsvOpsModel *model;
	GtkSingleSelection *selection;

	FsvTrace *trace;
	FsvQuery *query;
	FsvOpsColumn sort_column;
	GtkSortType sort_order;

	/* The op selected, kept across re-sorts and filters (FSV_INDEX_NONE: none). */
	guint32 selected_op;
	/* Set while the table changes its own selection: no "op-selected" then. */
	gboolean is_syncing;

	/* The worker computing rows, and which request it answers: a newer request makes an
	 * older answer stale. */
	GCancellable *rows_cancellable;
	guint generation;
	gboolean is_busy;

	/* Which column the column view's sorter asked first (the sort probe). */
	FsvOpsColumn probed_column;
	GObject *probe_a, *probe_b;
	gboolean is_sorting_by_api;
};

G_DEFINE_FINAL_TYPE(FsvOpsTable, fsv_ops_table, GTK_TYPE_WIDGET)

enum {
	SIGNAL_OP_SELECTED,
	N_SIGNALS,
};

static guint signals[N_SIGNALS];

static const struct {
	const char *title;
	gboolean is_numeric; /* right-aligned */
	int width;           /* px, wide enough for the usual values */
} column_info[FSV_OPS_COLUMN_COUNT] = {
    [FSV_OPS_COLUMN_KIND] = {"Kind", FALSE, 60},
    [FSV_OPS_COLUMN_SOURCE] = {"Source", FALSE, 100},
    [FSV_OPS_COLUMN_STATE] = {"State", FALSE, 130},
    [FSV_OPS_COLUMN_QUEUE] = {"Queue", TRUE, 160},
    [FSV_OPS_COLUMN_PROCESS] = {"Process", FALSE, 130},
    [FSV_OPS_COLUMN_FENCE] = {"Fence", TRUE, 160},
    [FSV_OPS_COLUMN_VALUE] = {"Value", TRUE, 80},
    [FSV_OPS_COLUMN_QUEUED] = {"Queued", TRUE, 150},
    [FSV_OPS_COLUMN_END] = {"End", TRUE, 150},
    [FSV_OPS_COLUMN_DURATION] = {"Duration", TRUE, 100},
    [FSV_OPS_COLUMN_PHASES] = {"Queued / stalled", TRUE, 170},
    [FSV_OPS_COLUMN_OP_ID] = {"Op id", TRUE, 80},
};

/* A time from the trace's first event, to the nanosecond ("+1967.123456 ms"): rows a few ns
 * apart must not read the same, so not the adaptive units of the ruler's labels. */
static char *
format_time(FsvTrace *trace, guint64 ns)
{
	guint64 base = fsv_trace_get_begin_ns(trace);

	if (ns == FSV_TIME_NONE)
		return g_strdup("—");
	if (ns < base)
		return g_strdup_printf("−%" PRIu64 ".%06" PRIu64 " ms", (base - ns) / 1000000,
				       (base - ns) % 1000000);
	return g_strdup_printf("+%" PRIu64 ".%06" PRIu64 " ms", (ns - base) / 1000000,
			       (ns - base) % 1000000);
}

static char *
format_handle(guint64 handle)
{
	return handle ? g_strdup_printf("0x%" PRIx64, handle) : g_strdup("—");
}

/* The text of op INDEX's cell in COLUMN. Times count from the trace's first event, as the
 * ruler's labels do. */
static char *
format_cell(FsvTrace *trace, guint32 index, FsvOpsColumn column)
{
	const FsvOp *op;

	if (trace == NULL || index >= fsv_trace_get_op_count(trace))
		return g_strdup("");
	op = fsv_trace_get_op(trace, index);
	switch (column) {
	case FSV_OPS_COLUMN_KIND:
		return g_strdup(fsa_op_kind_name(op->kind));
	case FSV_OPS_COLUMN_SOURCE:
		return g_strdup(fsa_op_source_name(op->source));
	case FSV_OPS_COLUMN_STATE:
		return g_strdup(fsa_op_state_name(op->state));
	case FSV_OPS_COLUMN_QUEUE:
		return format_handle(op->hwqueue_handle);
	case FSV_OPS_COLUMN_PROCESS: {
		const struct fsa_process_info *p = fsv_trace_find_process(trace, op->process_id);

		if (p && p->name && p->name[0])
			return g_strdup_printf("%" PRIu32 " %s", op->process_id, p->name);
		return g_strdup_printf("%" PRIu32, op->process_id);
	}
	case FSV_OPS_COLUMN_FENCE:
		return format_handle(op->fence_handle);
	case FSV_OPS_COLUMN_VALUE:
		return g_strdup_printf("%" PRIu64, op->fence_value);
	case FSV_OPS_COLUMN_QUEUED:
		return format_time(trace, op->queued_ns);
	case FSV_OPS_COLUMN_END:
		if (op->op_end_ns == FSV_TIME_NONE && op->state == FSA_OP_NEVER_COMPLETED)
			return g_strdup("never");
		if (op->op_end_ns == FSV_TIME_NONE && op->state == FSA_OP_INFERRED) {
			g_autofree char *t = format_time(trace, op->end_ns);

			return g_strdup_printf("≤ %s", t);
		}
		return format_time(trace, op->op_end_ns);
	case FSV_OPS_COLUMN_DURATION: {
		g_autofree char *d = fsv_format_duration(fsv_op_get_duration(op));

		/* A never-completed op ran at least this long (to the end of the trace). */
		return op->state == FSA_OP_NEVER_COMPLETED ? g_strdup_printf("≥ %s", d)
							   : g_steal_pointer(&d);
	}
	case FSV_OPS_COLUMN_PHASES:
		if (op->kind == FSA_OP_WAIT && op->observed_ns != FSV_TIME_NONE &&
		    op->queued_ns != FSV_TIME_NONE && op->op_end_ns != FSV_TIME_NONE &&
		    op->observed_ns >= op->queued_ns && op->op_end_ns >= op->observed_ns) {
			g_autofree char *q = fsv_format_duration(op->observed_ns - op->queued_ns);
			g_autofree char *s = fsv_format_duration(op->op_end_ns - op->observed_ns);

			return g_strdup_printf("%s / %s", q, s);
		}
		return g_strdup("");
	case FSV_OPS_COLUMN_OP_ID:
		return g_strdup_printf("%" PRIu64, op->id);
	case FSV_OPS_COLUMN_COUNT:
	default:
		return g_strdup("");
	}
}

static void scroll_to_position(FsvOpsTable *self, guint position);

static void
cell_setup(GtkSignalListItemFactory *factory, GtkListItem *item, ColumnRef *ref)
{
	GtkWidget *label = gtk_label_new(NULL);

	(void) factory;
	gtk_label_set_xalign(GTK_LABEL(label), column_info[ref->column].is_numeric ? 1.0f : 0.0f);
	gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
	gtk_label_set_single_line_mode(GTK_LABEL(label), TRUE);
	if (column_info[ref->column].is_numeric)
		gtk_widget_add_css_class(label, "numeric");
	gtk_list_item_set_child(item, label);
}

static void
cell_bind(GtkSignalListItemFactory *factory, GtkListItem *item, ColumnRef *ref)
{
	FsvOpsRow *row = gtk_list_item_get_item(item);
	g_autofree char *text = NULL;

	(void) factory;
	if (row == NULL)
		return;
	text = format_cell(ref->table->trace, row->op, ref->column);
	gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(item)), text);
	/* Which row the cell shows now (cells are recycled as the list scrolls), for
	 * _fsv_ops_table_get_row_bounds(). */
	g_object_set_data(G_OBJECT(gtk_list_item_get_child(item)), "fsv-position",
			  GUINT_TO_POINTER(gtk_list_item_get_position(item) + 1));
}

static void
cell_unbind(GtkSignalListItemFactory *factory, GtkListItem *item, ColumnRef *ref)
{
	(void) factory;
	(void) ref;
	g_object_set_data(G_OBJECT(gtk_list_item_get_child(item)), "fsv-position", NULL);
}

/* The Kind cell's label showing row POSITION under WIDGET, NULL when none is on screen. */
static GtkWidget *
find_row_label(GtkWidget *widget, guint position)
{
	for (GtkWidget *child = gtk_widget_get_first_child(widget); child;
	     child = gtk_widget_get_next_sibling(child)) {
		GtkWidget *found;

		if (GTK_IS_LABEL(child) && gtk_widget_get_mapped(child) &&
		    GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(child), "fsv-position")) ==
			position + 1)
			return child;
		if ((found = find_row_label(child, position)))
			return found;
	}
	return NULL;
}

gboolean
_fsv_ops_table_get_row_bounds(FsvOpsTable *self, guint position, GtkWidget *target,
			      graphene_rect_t *bounds)
{
	GtkWidget *label, *row;
	graphene_rect_t row_bounds, view_bounds;

	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), FALSE);
	label = find_row_label(GTK_WIDGET(self->view), position);
	if (label == NULL)
		return FALSE;
	/* label → its cell → the row. */
	row = gtk_widget_get_parent(gtk_widget_get_parent(label));
	if (row == NULL || !gtk_widget_compute_bounds(row, target, &row_bounds) ||
	    !gtk_widget_compute_bounds(GTK_WIDGET(self->scrolled), target, &view_bounds))
		return FALSE;
	/* Only what the scrolled window shows of it. */
	return graphene_rect_intersection(&row_bounds, &view_bounds, bounds);
}

void
_fsv_ops_table_scroll_to_row(FsvOpsTable *self, guint position)
{
	g_return_if_fail(FSV_IS_OPS_TABLE(self));
	scroll_to_position(self, position);
}

static void
update_count(FsvOpsTable *self)
{
	guint n_ops = self->trace ? fsv_trace_get_op_count(self->trace) : 0;
	g_autofree char *text = NULL;

	if (self->trace == NULL)
		text = g_strdup("No trace");
	else if (fsv_query_is_active(self->query))
		text = g_strdup_printf("%u of %u operations match “%s”%s", self->model->n_rows,
				       n_ops, fsv_query_get_text(self->query),
				       self->is_busy ? " · updating…" : "");
	else
		text = g_strdup_printf("%u operations%s", self->model->n_rows,
				       self->is_busy ? " · updating…" : "");
	gtk_label_set_text(self->count_label, text);
}

static guint
find_position(FsvOpsTable *self, guint32 op)
{
	/* A linear scan of 4-byte indexes: a few ms over millions, once per selection; an
	 * inverse permutation would cost 4 more bytes per op for good. */
	for (guint i = 0; op != FSV_INDEX_NONE && i < self->model->n_rows; i++) {
		if (self->model->rows[i] == op)
			return i;
	}
	return GTK_INVALID_LIST_POSITION;
}

/* The list view inside the column view: GTK 4.8 has no gtk_column_view_scroll_to() (4.12),
 * but its list view has the "list.scroll-to-item" action. */
static GtkWidget *
inner_list_view(FsvOpsTable *self)
{
	for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->view)); child;
	     child = gtk_widget_get_next_sibling(child)) {
		if (GTK_IS_LIST_VIEW(child))
			return child;
	}
	return NULL;
}

static void
scroll_to_position(FsvOpsTable *self, guint position)
{
	GtkWidget *list = inner_list_view(self);

	if (list && position < self->model->n_rows)
		gtk_widget_activate_action(list, "list.scroll-to-item", "u", position);
}

/* Selects POSITION (or nothing) without telling the window. */
static void
select_position_quietly(FsvOpsTable *self, guint position)
{
	self->is_syncing = TRUE;
	gtk_single_selection_set_selected(self->selection, position);
	self->is_syncing = FALSE;
	if (position != GTK_INVALID_LIST_POSITION)
		scroll_to_position(self, position);
}

static void
apply_rows(FsvOpsTable *self, guint32 *rows, guint n_rows)
{
	self->is_syncing = TRUE;
	ops_model_replace(self->model, rows, n_rows);
	self->is_syncing = FALSE;
	select_position_quietly(self, find_position(self, self->selected_op));
	update_count(self);
}

static void
rows_done(GObject *source, GAsyncResult *result, gpointer user_data)
{
	FsvOpsTable *self = FSV_OPS_TABLE(source);
	RowsJob *job = g_task_get_task_data(G_TASK(result));
	g_autoptr(GError) error = NULL;

	(void) user_data;
	if (!g_task_propagate_boolean(G_TASK(result), &error) ||
	    job->generation != self->generation)
		return;
	self->is_busy = FALSE;
	g_clear_object(&self->rows_cancellable);
	apply_rows(self, g_steal_pointer(&job->rows), job->n_rows);
}

/* Recomputes the rows for the trace, query and sort. */
static void
refresh_rows(FsvOpsTable *self)
{
	RowsJob *job;
	g_autoptr(GTask) task = NULL;

	self->generation++;
	if (self->rows_cancellable)
		g_cancellable_cancel(self->rows_cancellable);
	g_clear_object(&self->rows_cancellable);
	self->is_busy = FALSE;
	if (self->trace == NULL) {
		apply_rows(self, NULL, 0);
		return;
	}
	job = g_new0(RowsJob, 1);
	job->trace = fsv_trace_ref(self->trace);
	job->query = self->query ? fsv_query_ref(self->query) : NULL;
	job->column = self->sort_column;
	job->is_largest_first =
	    self->sort_column != FSV_OPS_COLUMN_NONE && self->sort_order == GTK_SORT_DESCENDING;
	job->generation = self->generation;
	if (fsv_trace_get_op_count(self->trace) <= sync_max_ops) {
		rows_job_run(job, NULL);
		apply_rows(self, g_steal_pointer(&job->rows), job->n_rows);
		rows_job_free(job);
		return;
	}
	self->rows_cancellable = g_cancellable_new();
	self->is_busy = TRUE;
	update_count(self);
	task = g_task_new(self, self->rows_cancellable, rows_done, NULL);
	g_task_set_task_data(task, job, rows_job_free);
	g_task_set_return_on_cancel(task, FALSE);
	g_task_run_in_thread(task, rows_thread);
}

/* --- Sorting ------------------------------------------------------------------------------ */

static int
probe_compare(gconstpointer a, gconstpointer b, gpointer user_data)
{
	ColumnRef *ref = user_data;

	(void) a;
	(void) b;
	ref->table->probed_column = ref->column;
	return GTK_ORDERING_SMALLER;
}

/* The column view's primary sort column and its order, read by asking its sorter to compare
 * two objects: the first column sorter it consults is the primary one, and it inverts that
 * sorter's answer when the order is descending. */
static FsvOpsColumn
probe_sort(FsvOpsTable *self, GtkSortType *order)
{
	GtkSorter *sorter = gtk_column_view_get_sorter(self->view);
	GtkOrdering result;

	self->probed_column = FSV_OPS_COLUMN_NONE;
	result =
	    sorter ? gtk_sorter_compare(sorter, self->probe_a, self->probe_b) : GTK_ORDERING_EQUAL;
	*order = result == GTK_ORDERING_LARGER ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING;
	return result == GTK_ORDERING_EQUAL ? FSV_OPS_COLUMN_NONE : self->probed_column;
}

static void
on_sorter_changed(FsvOpsTable *self)
{
	GtkSortType order;
	FsvOpsColumn column = probe_sort(self, &order);

	/* A click that makes Duration the sort column puts the longest first: finding the
	 * longest wait is one click. A second click reverses it, as on any column. */
	if (!self->is_sorting_by_api && column == FSV_OPS_COLUMN_DURATION &&
	    self->sort_column != FSV_OPS_COLUMN_DURATION && order == GTK_SORT_ASCENDING) {
		self->sort_column = column; /* the handler for the call below sees no switch */
		self->sort_order = GTK_SORT_ASCENDING;
		gtk_column_view_sort_by_column(self->view, self->columns[column],
					       GTK_SORT_DESCENDING);
		return;
	}
	if (column == self->sort_column && order == self->sort_order && !self->is_sorting_by_api)
		return;
	self->sort_column = column;
	self->sort_order = order;
	refresh_rows(self);
}

void
fsv_ops_table_sort(FsvOpsTable *self, FsvOpsColumn column, GtkSortType order)
{
	g_return_if_fail(FSV_IS_OPS_TABLE(self));
	g_return_if_fail(column <= FSV_OPS_COLUMN_NONE);
	self->is_sorting_by_api = TRUE;
	gtk_column_view_sort_by_column(
	    self->view, column == FSV_OPS_COLUMN_NONE ? NULL : self->columns[column], order);
	self->is_sorting_by_api = FALSE;
	/* The column view says nothing when the sort does not change. */
	if (self->sort_column != column ||
	    (column != FSV_OPS_COLUMN_NONE && self->sort_order != order)) {
		self->sort_column = column;
		self->sort_order = order;
		refresh_rows(self);
	}
}

FsvOpsColumn
fsv_ops_table_get_sort(FsvOpsTable *self, GtkSortType *order)
{
	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), FSV_OPS_COLUMN_NONE);
	if (order)
		*order = self->sort_order;
	return self->sort_column;
}

void
_fsv_ops_table_click_header(FsvOpsTable *self, FsvOpsColumn column)
{
	GtkSortType order;

	g_return_if_fail(FSV_IS_OPS_TABLE(self));
	g_return_if_fail(column < FSV_OPS_COLUMN_COUNT);
	/* What GtkColumnViewTitle's click does: the primary column reverses, another becomes
	 * primary, ascending. */
	if (probe_sort(self, &order) == column)
		gtk_column_view_sort_by_column(self->view, self->columns[column],
					       order == GTK_SORT_ASCENDING ? GTK_SORT_DESCENDING
									   : GTK_SORT_ASCENDING);
	else
		gtk_column_view_sort_by_column(self->view, self->columns[column],
					       GTK_SORT_ASCENDING);
}

/* --- Selection ---------------------------------------------------------------------------- */

static void
on_selected_changed(FsvOpsTable *self)
{
	guint position = gtk_single_selection_get_selected(self->selection);

	if (self->is_syncing || position == GTK_INVALID_LIST_POSITION)
		return;
	self->selected_op = self->model->rows[position];
	g_signal_emit(self, signals[SIGNAL_OP_SELECTED], 0, self->selected_op);
}

gboolean
fsv_ops_table_select_op(FsvOpsTable *self, guint32 op)
{
	guint position;

	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), FALSE);
	self->selected_op = op;
	position = find_position(self, op);
	select_position_quietly(self, position);
	return position != GTK_INVALID_LIST_POSITION;
}

guint
fsv_ops_table_get_selected(FsvOpsTable *self)
{
	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), GTK_INVALID_LIST_POSITION);
	return gtk_single_selection_get_selected(self->selection);
}

void
fsv_ops_table_select_row(FsvOpsTable *self, guint position)
{
	g_return_if_fail(FSV_IS_OPS_TABLE(self));
	g_return_if_fail(position < self->model->n_rows);
	gtk_single_selection_set_selected(self->selection, position);
	scroll_to_position(self, position);
}

/* --- Contents ----------------------------------------------------------------------------- */

void
fsv_ops_table_set_trace(FsvOpsTable *self, FsvTrace *trace)
{
	g_return_if_fail(FSV_IS_OPS_TABLE(self));
	if (trace)
		fsv_trace_ref(trace);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	self->trace = trace;
	self->selected_op = FSV_INDEX_NONE;
	refresh_rows(self);
}

void
fsv_ops_table_set_query(FsvOpsTable *self, FsvQuery *query)
{
	g_return_if_fail(FSV_IS_OPS_TABLE(self));
	if (query)
		fsv_query_ref(query);
	g_clear_pointer(&self->query, fsv_query_unref);
	self->query = query;
	refresh_rows(self);
}

gboolean
fsv_ops_table_is_busy(FsvOpsTable *self)
{
	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), FALSE);
	return self->is_busy;
}

guint
fsv_ops_table_get_n_rows(FsvOpsTable *self)
{
	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), 0);
	return self->model->n_rows;
}

guint32
fsv_ops_table_get_row_op(FsvOpsTable *self, guint position)
{
	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), FSV_INDEX_NONE);
	return position < self->model->n_rows ? self->model->rows[position] : FSV_INDEX_NONE;
}

char *
fsv_ops_table_dup_cell_text(FsvOpsTable *self, guint position, FsvOpsColumn column)
{
	g_return_val_if_fail(FSV_IS_OPS_TABLE(self), NULL);
	return format_cell(self->trace, fsv_ops_table_get_row_op(self, position), column);
}

/* --- GObject ------------------------------------------------------------------------------ */

GtkWidget *
fsv_ops_table_new(void)
{
	return g_object_new(FSV_TYPE_OPS_TABLE, NULL);
}

static void
fsv_ops_table_dispose(GObject *object)
{
	FsvOpsTable *self = FSV_OPS_TABLE(object);

	if (self->rows_cancellable)
		g_cancellable_cancel(self->rows_cancellable);
	g_clear_object(&self->rows_cancellable);
	/* Removing the columns changes the sorter: nothing to re-sort any more. */
	if (self->view)
		g_signal_handlers_disconnect_by_data(gtk_column_view_get_sorter(self->view), self);
	self->view = NULL;
	self->count_label = NULL;
	g_clear_pointer(&self->box, gtk_widget_unparent);
	g_clear_object(&self->selection);
	g_clear_object(&self->model);
	g_clear_object(&self->probe_a);
	g_clear_object(&self->probe_b);
	g_clear_pointer(&self->trace, fsv_trace_unref);
	g_clear_pointer(&self->query, fsv_query_unref);
	G_OBJECT_CLASS(fsv_ops_table_parent_class)->dispose(object);
}

static void
fsv_ops_table_class_init(FsvOpsTableClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->dispose = fsv_ops_table_dispose;
	/* FsvOpsTable::op-selected: (op index) the user selected a row. */
	signals[SIGNAL_OP_SELECTED] =
	    g_signal_new("op-selected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
			 NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
	gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_css_name(widget_class, "fsv-ops-table");
}

static void
fsv_ops_table_init(FsvOpsTable *self)
{
	self->sort_column = FSV_OPS_COLUMN_NONE;
	self->sort_order = GTK_SORT_ASCENDING;
	self->selected_op = FSV_INDEX_NONE;
	self->probe_a = g_object_new(G_TYPE_OBJECT, NULL);
	self->probe_b = g_object_new(G_TYPE_OBJECT, NULL);
	self->model = g_object_new(FSV_TYPE_OPS_MODEL, NULL);
	self->selection = gtk_single_selection_new(G_LIST_MODEL(g_object_ref(self->model)));
	gtk_single_selection_set_autoselect(self->selection, FALSE);
	gtk_single_selection_set_can_unselect(self->selection, TRUE);
	g_signal_connect_swapped(self->selection, "notify::selected",
				 G_CALLBACK(on_selected_changed), self);

	self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	gtk_widget_set_parent(self->box, GTK_WIDGET(self));
	self->count_label = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(self->count_label, 0);
	gtk_label_set_ellipsize(self->count_label, PANGO_ELLIPSIZE_END);
	gtk_widget_set_margin_start(GTK_WIDGET(self->count_label), 8);
	gtk_widget_set_margin_top(GTK_WIDGET(self->count_label), 3);
	gtk_widget_set_margin_bottom(GTK_WIDGET(self->count_label), 3);
	gtk_widget_add_css_class(GTK_WIDGET(self->count_label), "dim-label");
	gtk_widget_add_css_class(GTK_WIDGET(self->count_label), "caption");
	gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->count_label));

	self->scrolled = GTK_SCROLLED_WINDOW(gtk_scrolled_window_new());
	gtk_widget_set_vexpand(GTK_WIDGET(self->scrolled), TRUE);
	gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->scrolled));
	self->view = GTK_COLUMN_VIEW(
	    gtk_column_view_new(GTK_SELECTION_MODEL(g_object_ref(self->selection))));
	/* The stable name UI tests (xdotool) and CSS find the table by. */
	gtk_widget_set_name(GTK_WIDGET(self->view), "fsv-ops-table");
	gtk_column_view_set_show_column_separators(self->view, TRUE);
	gtk_widget_add_css_class(GTK_WIDGET(self->view), "data-table");
	gtk_scrolled_window_set_child(self->scrolled, GTK_WIDGET(self->view));

	for (int c = 0; c < FSV_OPS_COLUMN_COUNT; c++) {
		GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
		GtkSorter *sorter;

		self->refs[c] = (ColumnRef){.table = self, .column = (FsvOpsColumn) c};
		g_signal_connect(factory, "setup", G_CALLBACK(cell_setup), &self->refs[c]);
		g_signal_connect(factory, "bind", G_CALLBACK(cell_bind), &self->refs[c]);
		g_signal_connect(factory, "unbind", G_CALLBACK(cell_unbind), &self->refs[c]);
		self->columns[c] = gtk_column_view_column_new(column_info[c].title, factory);
		sorter = GTK_SORTER(gtk_custom_sorter_new(probe_compare, &self->refs[c], NULL));
		gtk_column_view_column_set_sorter(self->columns[c], sorter);
		g_object_unref(sorter);
		gtk_column_view_column_set_resizable(self->columns[c], TRUE);
		gtk_column_view_column_set_fixed_width(self->columns[c], column_info[c].width);
		gtk_column_view_append_column(self->view, self->columns[c]);
		g_object_unref(self->columns[c]); /* the view holds it */
	}
	gtk_column_view_column_set_expand(self->columns[FSV_OPS_COLUMN_PROCESS], TRUE);
	g_signal_connect_object(gtk_column_view_get_sorter(self->view), "changed",
				G_CALLBACK(on_sorter_changed), self, G_CONNECT_SWAPPED);
	update_count(self);
}
