/* SPDX-License-Identifier: MIT */
/*
 * What the UI tests read of an FsvWindow: its timeline, whether a load is running, the error
 * shown, and the details pane as text. Not for the application's own use.
 */
#ifndef FSV_WINDOW_PRIVATE_H
#define FSV_WINDOW_PRIVATE_H

#include "fsv-ops-table.h"
#include "fsv-timeline.h"
#include "fsv-window.h"

G_BEGIN_DECLS

/* Returns: (transfer none). */
FsvTimeline *_fsv_window_get_timeline(FsvWindow *self);
/* Returns: (transfer none): the operations table (shown or not). */
FsvOpsTable *_fsv_window_get_ops_table(FsvWindow *self);
gboolean _fsv_window_is_loading(FsvWindow *self);
/* Whether the loading bar (progress and Cancel) is shown. */
gboolean _fsv_window_is_progress_shown(FsvWindow *self);
/* Returns: (transfer none): the page shown: "empty", "loading" (what is loaded so far) or
 * "trace". */
const char *_fsv_window_get_page(FsvWindow *self);
/* Rows of the loading page's preview (0 before the first preview). */
guint _fsv_window_get_preview_row_count(FsvWindow *self);
/* The index builder of the running load, 0 when none runs (a cache hit, or no load). */
GPid _fsv_window_get_builder_pid(FsvWindow *self);
/* Returns: (transfer none) (nullable): the one-line error shown, NULL when none. */
const char *_fsv_window_get_error(FsvWindow *self);
/* Returns: (transfer full): the details pane, "Title\nname: value\n…". */
char *_fsv_window_dup_details_text(FsvWindow *self);
/* Returns: (transfer none): the status line under the timeline. */
const char *_fsv_window_get_status(FsvWindow *self);
/* Sets the search entry's text (as typing would), and presses Enter in it. */
void _fsv_window_set_search_text(FsvWindow *self, const char *text);
void _fsv_window_activate_search(FsvWindow *self);
/* Gives the search entry the focus (Ctrl+F) and presses Escape in it (its "stop-search"). */
void _fsv_window_focus_search(FsvWindow *self);
void _fsv_window_stop_search(FsvWindow *self);
/* Clicks the link of the NTH (from 0) details field named NAME ("Released by", "  Wait",
 * "Packet"), as the pointer would. Returns whether there was such a link and it was followed. */
gboolean _fsv_window_click_details_link(FsvWindow *self, const char *name, guint nth);
/* Whether a fsv_window_set_start() is still to be applied (the trace not loaded or laid out). */
gboolean _fsv_window_is_start_pending(FsvWindow *self);
/* Whether the search entry shows its text as an error (a term the filter cannot read). */
gboolean _fsv_window_search_has_error(FsvWindow *self);

/* Go to time: the one-line error under the entry ("" when none); types TEXT and presses Enter. */
const char *_fsv_window_get_goto_error(FsvWindow *self);
void _fsv_window_go_to_text(FsvWindow *self, const char *text);
gboolean _fsv_window_is_legend_shown(FsvWindow *self);
guint _fsv_window_get_bookmark_count(FsvWindow *self);

/* Hooks of fsv-live.c (a live session followed in the window). Cancels the load that runs, if
 * any, and hides its bar. */
void _fsv_window_stop_loading(FsvWindow *self);
/* Shows TRACE in place of the trace shown (its partial cause or clock warning on the error line),
 * without adding it to the recent traces. */
void _fsv_window_show_live_trace(FsvWindow *self, FsvTrace *trace);
/* The bar under the header: LABEL and TEXT on a pulsing bar; LABEL NULL hides it. */
void _fsv_window_set_live_bar(FsvWindow *self, const char *label, const char *text);
/* Returns: (transfer none) (nullable): the bar's box, for a button of its own. */
GtkBox *_fsv_window_get_progress_box(FsvWindow *self);
/* The one-line error; NULL hides it. */
void _fsv_window_show_error(FsvWindow *self, const char *message);

/*
 * Hooks of fsv-compare.c (a second trace beside the first, docs/viewer.md "Comparing two
 * traces"). The window's own timeline, whatever has the focus: */
FsvTimeline *_fsv_window_get_base_timeline(FsvWindow *self);
/* The flags the window opens traces with (fsv_window_set_open_flags: --no-cache). */
FsvOpenFlags _fsv_window_get_open_flags(FsvWindow *self);
/* The timeline of the side that does not have the focus in a comparison, NULL without one
 * (_fsv_window_get_timeline() is the side that has it). */
FsvTimeline *_fsv_window_get_other_timeline(FsvWindow *self);
/* TIMELINE, showing TRACE (referenced), joins the window as the other side of a comparison:
 * the details pane, operations table, search, go to time and bookmarks follow whichever of the
 * two timelines has the focus; each keeps its own bookmarks and chains of causes. */
void _fsv_window_set_compared(FsvWindow *self, FsvTimeline *timeline, FsvTrace *trace);
/* Back to one trace: the base timeline followed again; nothing when not comparing. */
void _fsv_window_unset_compared(FsvWindow *self);

G_END_DECLS

#endif /* FSV_WINDOW_PRIVATE_H */
