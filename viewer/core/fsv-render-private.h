/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: what fsv-render.c calls in the other files of the drawing — the counter tracks
 * (fsv-render-counters.c, issue 15 §4). Not for the app: it goes through fsv-render.h.
 */
#ifndef FSV_RENDER_PRIVATE_H
#define FSV_RENDER_PRIVATE_H

#include <cairo.h>
#include <glib.h>

#include "fsv-render.h"
#include "fsv-trace.h"
#include "fsv-view.h"

G_BEGIN_DECLS

/*
 * Draws a busy, depth, fence or cross-adapter fence row's counter in [x_min, x_max) of the row
 * at drawing y (height h): one value range per pixel column (docs/viewer.md "Counter tracks").
 * Adds the pixel columns drawn to *COLUMNS_DRAWN.
 */
void _fsv_render_counter_row(cairo_t *cr, FsvTrace *trace, const FsvView *view, guint32 row,
			     double y, double h, double x_min, double x_max,
			     const char *font_family, guint64 *columns_drawn);
/* The y-axis of a busy or depth row, at the right of its label (the label column is
 * LABEL_WIDTH wide): its largest value at the top, 0 at the bottom. */
void _fsv_render_counter_axis(cairo_t *cr, FsvTrace *trace, guint32 row, double y, double h,
			      double label_width, const char *font_family);

/* Issue 16 §3: a frames row's frames in [x_min, x_max) of the row at drawing y (height h)
 * (fsv-render-frames.c, docs/viewer.md "Frames"). Adds the boxes drawn to *FRAMES_DRAWN. */
void _fsv_render_frames_row(cairo_t *cr, FsvTrace *trace, const FsvView *view, guint32 row,
			    double y, double h, double x_min, double x_max, const char *font_family,
			    guint64 *frames_drawn);
/* Sets COLOR of fsv-render.c's colour table at ALPHA (issue 15 §5: no literal colours; the one
 * way both files set a colour of the table). */
void _fsv_render_set_color(cairo_t *cr, FsvColor color, double alpha);

G_END_DECLS

#endif /* FSV_RENDER_PRIVATE_H */
