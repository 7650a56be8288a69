/* SPDX-License-Identifier: MIT */
/*
 * tests/viewer-ui: what the in-process UI tests share — a test's own folders (its viewer.ini
 * apart from every other test's), a window opened on a trace and loaded, the main loop pumped
 * until a condition holds or until GTK has laid out and drawn, a screenshot and its colours,
 * and xdotool. One implementation of what each test file used to copy.
 *
 * Not for test-e2e.c and test-live.c, which drive fencescope-view in a process of their own.
 */
#ifndef FST_UI_H
#define FST_UI_H

#include <criterion/criterion.h>
#include <gtk/gtk.h>

#include "fsv-window-private.h"

G_BEGIN_DECLS

/* How long a load of one of traces/ may take on a loaded machine before the test fails. */
#define FST_UI_LOAD_TIMEOUT_US (120 * G_USEC_PER_SEC)

/*
 * Starts a test: a temporary folder of its own, XDG_CONFIG_HOME in it (the viewer remembers its
 * settings in viewer.ini there: a test that changes one never changes another's, run side by
 * side) and, with HAS_OWN_CACHE, XDG_CACHE_HOME (the loader's index cache: a first open of a
 * trace then runs the index builder), then gtk_init(). Called first in each suite's .init: GLib
 * keeps the first answer to g_get_user_config_dir(). fst_ui_end() removes the folder.
 */
void fst_ui_begin(gboolean has_own_cache);
void fst_ui_end(void);
/* Returns: (transfer none): the test's temporary folder (fst_ui_begin). */
const char *fst_ui_get_work_dir(void);

/* Returns: (transfer full): the path of traces/NAME in the source tree. */
char *fst_ui_trace_path(const char *name);

/* Iterates the main loop until DONE() holds, failing the test after TIMEOUT_US. */
void fst_ui_spin_until(gboolean (*done)(void), gint64 timeout_us);
/* Lets GTK lay out and draw what changed. */
void fst_ui_settle(void);

/* A window WIDTH × HEIGHT, presented. Returns: (transfer none): destroy it with
 * fst_ui_window_destroy(). */
FsvWindow *fst_ui_window_new(int width, int height);
/* Opens PATH in WINDOW and waits for the load to end (its error line, if any, is the caller's
 * to check). */
void fst_ui_open_path(FsvWindow *window, const char *path);
/* The same for traces/NAME. */
void fst_ui_open_trace(FsvWindow *window, const char *name);
/* A window WIDTH × HEIGHT with traces/NAME loaded without an error line, and settled.
 * Returns: (transfer none). */
FsvWindow *fst_ui_window_new_with_trace(const char *name, int width, int height);
/* Iterates the main loop until WINDOW's load (if any) is over. */
void fst_ui_wait_loaded(FsvWindow *window, gint64 timeout_us);
void fst_ui_window_destroy(FsvWindow *window);
/* Whether TIMELINE is mapped and its view is as wide as the widget (laid out at its real size,
 * and the trace fitted to it). */
gboolean fst_ui_timeline_is_laid_out(FsvTimeline *timeline);

/* WIDGET rendered as the compositor would get it, once its layout has settled.
 * Returns: (transfer full). */
GdkTexture *fst_ui_screenshot(GtkWidget *widget);
/* Writes WIDGET's screenshot to NAME in the test's build folder (FST_BUILD_DIR): left there to
 * look at. Returns: (transfer full): the screenshot. */
GdkTexture *fst_ui_save_screenshot(GtkWidget *widget, const char *name);
/* Pixels of TEXTURE within DISTANCE (0-255 on each channel) of the colour RGB, in the rectangle
 * [X0, X1) × [Y0, Y1) (clipped to the texture). */
guint fst_ui_count_colour(GdkTexture *texture, const double rgb[3], int distance, int x0, int y0,
			  int x1, int y1);

/* fencescope-view's application run in this process (its command line, its own windows). */
typedef struct {
	GApplication *app; /* Weak: while it runs */
	FsvWindow *window; /* Weak: the window it opened, NULL if none */
	gboolean is_done;  /* the test's poll saw what it waited for (fst_ui_run_finish) */
} FstUiRun;

/* Runs the application with ARGV (argv[0] first) until it quits; POLL is called with RUN (the
 * first member of the test's own struct) every 20 ms meanwhile, and ends the run with
 * fst_ui_run_finish(). Returns: the application's exit status. */
int fst_ui_run_application(const char *const *argv, GSourceFunc poll, FstUiRun *run);
/* From POLL, once it has read what the window shows: closes the window, quits the application. */
void fst_ui_run_finish(FstUiRun *run);

/* Whether xdotool can be run; a test that needs it skips itself (cr_skip_test) when not. */
gboolean fst_ui_has_xdotool(void);
/* Runs `xdotool ARGUMENTS` (printf-like) and fails the test unless it exits with 0. */
void fst_ui_xdotool(const char *format, ...) G_GNUC_PRINTF(1, 2);

G_END_DECLS

#endif /* FST_UI_H */
