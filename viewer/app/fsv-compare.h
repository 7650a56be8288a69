/* SPDX-License-Identifier: MIT */
/*
 * viewer/app: comparing two traces in one window (issue 16 §2), `fencescope view BASE --compare
 * NEW [--align BASE_TIME=NEW_TIME]` or View ▸ Compare With…: NEW's timeline below BASE's (a
 * GtkPaned; each with its own rows, labels, scrollbars and vertical scroll), loaded as any trace
 * is (index builder out of process, cache, progress, Cancel), and both on one time axis: NEW_time
 * = BASE_time + offset (viewer/core/fsv-align.h), so zooming or panning either moves the other.
 * The offset aligns the traces' starts by default, else the points --align names, or the
 * selected operation (or go-to marker) of each (Align Here, Ctrl+L). The details pane,
 * operations table, search and bookmarks follow the timeline that has the focus (fsv-window.c).
 * docs/viewer.md "Comparing two traces".
 */
#ifndef FSV_COMPARE_H
#define FSV_COMPARE_H

#include "fsv-timeline.h"
#include "fsv-window.h"

G_BEGIN_DECLS

/*
 * Opens FILE (a trace folder) below the window's trace, in place of a comparison shown. ALIGN
 * (nullable): `--align`'s "BASE=NEW" (fsv_align_parse(); a text it refuses, or points a trace
 * lacks, are said in the window's one-line error and the starts are aligned instead). A trace
 * that cannot be opened is said there too and the window keeps its own trace alone. Started
 * before the window's own trace is loaded (`--compare` on the command line), both load at once
 * and NEW is shown once the window's is.
 */
void fsv_window_compare(FsvWindow *window, GFile *file, const char *align);
/* Back to one trace: NEW's pane closed, its load cancelled; nothing when not comparing. */
void fsv_window_close_compare(FsvWindow *window);

/* Hooks of fsv-window.c: the pane and the win.compare, win.align-here and win.close-compare
 * actions (at init); the window's own trace was shown (a NEW loaded first joins it); the
 * comparison's part of the FSV_TEST_STATE_FILE dump ([compare]). */
void _fsv_compare_install(FsvWindow *window);
/* The window's dispose: the comparison closed, Compare With…'s chooser destroyed. */
void _fsv_compare_dispose(FsvWindow *window);
void _fsv_compare_base_shown(FsvWindow *window);
void _fsv_compare_dump_state(FsvWindow *window, GKeyFile *file);

/* Tests. Returns: (transfer none) (nullable): NEW's timeline while it is shown. */
FsvTimeline *_fsv_compare_get_timeline(FsvWindow *window);
/* Whether NEW is loading. */
gboolean _fsv_compare_is_loading(FsvWindow *window);
/* The offset (NEW_time − BASE_time) while NEW is shown. */
gboolean _fsv_compare_get_offset(FsvWindow *window, gint64 *offset_ns);
/* Returns: (transfer none) (nullable): the pane's line on the alignment while NEW is shown. */
const char *_fsv_compare_get_offset_text(FsvWindow *window);
/* Align Here (Ctrl+L), as the key does. */
void _fsv_compare_align_here(FsvWindow *window);

G_END_DECLS

#endif /* FSV_COMPARE_H */
