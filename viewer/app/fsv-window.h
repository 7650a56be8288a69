/* SPDX-License-Identifier: MIT */
/*
 * FsvWindow: one trace in one window. The header bar opens traces (button, Ctrl+O, recent
 * traces, drag and drop of a folder) and searches; a bar under it shows loading progress with
 * Cancel, or a one-line error; the body is the empty state (how to record a trace) or the
 * timeline with the operations table under it (Ctrl+T) and the details pane (the selected item
 * with its references as links, the range's statistics, the measurement).
 */
#ifndef FSV_WINDOW_H
#define FSV_WINDOW_H

#include <gtk/gtk.h>

#include "fsv-loader.h"

G_BEGIN_DECLS

#define FSV_TYPE_WINDOW (fsv_window_get_type())

G_DECLARE_FINAL_TYPE(FsvWindow, fsv_window, FSV, WINDOW, GtkApplicationWindow)

/* Returns: (transfer none): a new window of APPLICATION (nullable: a window without an
 * application, as the UI tests make). */
FsvWindow *fsv_window_new(GtkApplication *application);

/* Starts loading FILE (a trace folder) with fsv_trace_open() in a worker thread: from the index
 * cache, else by the index builder process, whose preview of what is loaded so far the window
 * shows meanwhile. The trace shown so far stays until the new one is loaded; on failure
 * (including a builder that crashed or was killed) it comes back, and the error is shown in one
 * line. */
void fsv_window_open(FsvWindow *self, GFile *file);
/* Flags of the next opens (FSV_OPEN_NO_CACHE: `fencescope-view --no-cache`). */
void fsv_window_set_open_flags(FsvWindow *self, FsvOpenFlags flags);
/* The budget frames are graded against in both timelines and the details pane, as the
 * report's --frame-budget (`fencescope-view --frame-budget TIME`); 0, the default: each
 * display's vsync period. */
void fsv_window_set_frame_budget(FsvWindow *self, guint64 budget_ns);

/*
 * Where the window starts once the next trace it opens is loaded (`fencescope view --select-op
 * ID --at TIME`): with HAS_OP, the operation with analyzer op id OP_ID (as `fencescope report`
 * prints it) selected and zoomed to; with AT (nullable), the time axis centred on that time,
 * read as go to time reads it (fsv_trace_parse_time(): one parser for both). An id or time the
 * trace does not have is said in the window's one-line error, in go to time's words.
 */
void fsv_window_set_start(FsvWindow *self, gboolean has_op, guint64 op_id, const char *at);

G_END_DECLS

#endif /* FSV_WINDOW_H */
