/* SPDX-License-Identifier: MIT */
/*
 * FsvLoadView: what the window shows while a trace loads (issue 15 §1) — the rows the index
 * builder found so far, each with a strip of how many items it closed in each stretch of time
 * read so far, and the part of the trace not read yet (estimated from the fraction of the stream
 * files read) greyed to the right. It only draws an FsvLoadPreview; the window (or a comparison's
 * pane) feeds it what its FsvLoadJob reports (fsv-load-job.h).
 */
#ifndef FSV_LOAD_VIEW_H
#define FSV_LOAD_VIEW_H

#include <gtk/gtk.h>

#include "fsv-loader.h"

G_BEGIN_DECLS

#define FSV_TYPE_LOAD_VIEW (fsv_load_view_get_type())
G_DECLARE_FINAL_TYPE(FsvLoadView, fsv_load_view, FSV, LOAD_VIEW, GtkWidget)

GtkWidget *fsv_load_view_new(void);
/* Starts over for a new load of the trace named NAME: no rows, no progress. */
void fsv_load_view_reset(FsvLoadView *self, const char *name);
/* PREVIEW: (nullable) (transfer none): the latest preview; FRACTION negative when unknown. */
void fsv_load_view_update(FsvLoadView *self, FsvLoadPreview *preview, FsvLoadStage stage,
			  guint64 events, double fraction);
/* Shows PROGRESS (a load job's, fsv-load-job.h) on SELF and on BAR, the progress bar beside it:
 * "N events · P %", or "N events" on a pulsing bar while the fraction is unknown. */
void fsv_load_view_show_progress(FsvLoadView *self, GtkProgressBar *bar,
				 const FsvLoadProgress *progress);
/* Returns: (transfer none) (nullable): the preview drawn. */
FsvLoadPreview *fsv_load_view_get_preview(FsvLoadView *self);

G_END_DECLS

#endif /* FSV_LOAD_VIEW_H */
