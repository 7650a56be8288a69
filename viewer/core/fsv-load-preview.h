/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvLoadPreview, what is loaded so far while a trace's index is being built
 * (issue 15 §1): the rows found so far (adapter → engine → HWQueue, the CPU processes) and for
 * each one a density strip, the number of items (fence operations, packets, markers) the model
 * closed in each of a fixed number of equal time buckets from the first item on. The window draws
 * it while the index builder runs, so a user sees the trace take shape instead of an empty page.
 *
 * It is not the timeline: rows are found from the items alone (the model's tables arrive only at
 * the end), so labels are short ("HWQueue 0x1001"), and an item counts where it was closed, not
 * over its span. A preview is immutable once made and ref-counted (thread-safe): the loader makes
 * a new one per update and the window keeps the latest.
 */
#ifndef FSV_LOAD_PREVIEW_H
#define FSV_LOAD_PREVIEW_H

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

/* Time buckets of every row's strip. */
#define FSV_PREVIEW_BUCKETS 128
/* At most this many rows are kept (the first ones in display order). */
#define FSV_PREVIEW_MAX_ROWS 512

typedef struct {
	/* FSV_ROW_ADAPTER, FSV_ROW_ENGINE, FSV_ROW_QUEUE, FSV_ROW_CPU_GROUP or
	 * FSV_ROW_CPU_PROCESS. */
	FsvRowKind kind;
	guint depth;       /* 0 for adapters and the CPU group */
	char *label;       /* "Adapter 0", "Engine 1", "HWQueue 0x1001", "CPU", "pid 42" */
	guint64 items;     /* items counted on this row so far */
	guint32 max_count; /* the largest of counts[] */
	guint32 counts[FSV_PREVIEW_BUCKETS];
} FsvPreviewRow;

typedef struct _FsvLoadPreview FsvLoadPreview;

FsvLoadPreview *fsv_load_preview_ref(FsvLoadPreview *preview);
void fsv_load_preview_unref(FsvLoadPreview *preview);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvLoadPreview, fsv_load_preview_unref)

guint fsv_load_preview_get_row_count(const FsvLoadPreview *preview);
/* Returns: (transfer none): rows in display order (a parent before its children). */
const FsvPreviewRow *fsv_load_preview_get_row(const FsvLoadPreview *preview, guint row);
/* Bucket b covers [begin + b × bucket_ns, begin + (b + 1) × bucket_ns) of the trace clock. */
guint64 fsv_load_preview_get_begin_ns(const FsvLoadPreview *preview);
guint64 fsv_load_preview_get_bucket_ns(const FsvLoadPreview *preview);
/* Buckets up to the last one that holds an item (0 when there is none). */
guint fsv_load_preview_get_used_buckets(const FsvLoadPreview *preview);
/* Items counted over every row. */
guint64 fsv_load_preview_get_item_count(const FsvLoadPreview *preview);

G_END_DECLS

#endif /* FSV_LOAD_PREVIEW_H */
