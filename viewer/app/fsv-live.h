/* SPDX-License-Identifier: MIT */
/*
 * viewer/app: a window following a live LTTng session, `fencescope view --live URL` (issue 16
 * §4). The trace shown is replaced by a newer one about once a second (fsv-live-reader.h) while
 * the view stays where it was: following the newest events — the visible span keeps its width
 * and ends at the newest event — or, once the user scrolled back, at the times the user looks
 * at; End (or the bar's Follow button) follows again. When the session ends the window holds
 * the whole session's trace, a normal static trace. docs/viewer.md "Live".
 */
#ifndef FSV_LIVE_H
#define FSV_LIVE_H

#include "fsv-window.h"

G_BEGIN_DECLS

/* Starts following URL (net://…) in WINDOW, in place of what it shows or loads. */
void fsv_window_follow_live(FsvWindow *window, const char *url);
/* Stops following (the trace shown so far stays); nothing when WINDOW does not follow. */
void _fsv_live_stop(FsvWindow *window);
/* Whether WINDOW follows a live session that has not ended, and whether its view follows the
 * newest events (for tests). */
gboolean _fsv_live_is_running(FsvWindow *window);
gboolean _fsv_live_is_following(FsvWindow *window);

/* Tests: shows TRACE as the newest trace of the live session URL (IS_FINAL: its end) as the
 * reader's would be, following URL in WINDOW (without a reader) if it does not yet. */
void _fsv_live_show_trace(FsvWindow *window, const char *url, FsvTrace *trace, gboolean is_final);
/* Returns: (transfer none) (nullable): the bar's Follow button while WINDOW follows a session. */
GtkWidget *_fsv_live_get_follow_button(FsvWindow *window);

G_END_DECLS

#endif /* FSV_LIVE_H */
