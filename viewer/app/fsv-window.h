/* SPDX-License-Identifier: MIT */
/*
 * FsvWindow: one trace in one window. The header bar opens traces (button, Ctrl+O, recent
 * traces, drag and drop of a folder) and searches; a bar under it shows loading progress with
 * Cancel, or a one-line error; the body is the empty state (how to record a trace) or the
 * timeline with the details pane (the selected item, the range's statistics, the measurement).
 */
#ifndef FSV_WINDOW_H
#define FSV_WINDOW_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define FSV_TYPE_WINDOW (fsv_window_get_type())

G_DECLARE_FINAL_TYPE(FsvWindow, fsv_window, FSV, WINDOW, GtkApplicationWindow)

/* Returns: (transfer none): a new window of APPLICATION (nullable: a window without an
 * application, as the UI tests make). */
FsvWindow *fsv_window_new(GtkApplication *application);

/* Starts loading FILE (a trace folder) in a worker thread. The trace shown so far stays until
 * the new one is loaded; on failure it stays, and the error is shown in one line. */
void fsv_window_open(FsvWindow *self, GFile *file);

/*
 * Where the window starts once the next trace it opens is loaded (`fencescope view --select-op
 * ID --at TIME`): with HAS_OP, the operation with analyzer op id OP_ID (as `fencescope report`
 * prints it) selected and zoomed to; with HAS_AT, the time axis centred on AT_NS (trace ns, or
 * from the trace's first event when AT_IS_RELATIVE). An id or time the trace does not have is
 * said in the window's one-line error.
 */
void fsv_window_set_start(FsvWindow *self, gboolean has_op, guint64 op_id, gboolean has_at,
			  gboolean at_is_relative, guint64 at_ns);

G_END_DECLS

#endif /* FSV_WINDOW_H */
