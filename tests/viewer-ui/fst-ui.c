/* SPDX-License-Identifier: MIT */
/*
 * tests/viewer-ui: the shared fixtures of the UI tests (fst-ui.h). Compiled into each test
 * executable (meson: fst_ui_dep), which gives FST_SOURCE_ROOT and FST_BUILD_DIR.
 */
#include "fst-ui.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "fsv-application.h"

static char *work_dir; /* this test's temporary folder, NULL outside a test */

void
fst_ui_begin(gboolean has_own_cache)
{
	g_autofree char *config = NULL;

	work_dir = g_dir_make_tmp("fsv-ui-XXXXXX", NULL);
	cr_assert_not_null(work_dir);
	config = g_build_filename(work_dir, "config", NULL);
	/* Before anything asks GLib for them: it keeps the first answer. */
	g_setenv("XDG_CONFIG_HOME", config, TRUE);
	if (has_own_cache) {
		g_autofree char *cache = g_build_filename(work_dir, "cache", NULL);

		g_setenv("XDG_CACHE_HOME", cache, TRUE);
	}
	gtk_init();
}

void
fst_ui_end(void)
{
	g_autofree char *rm = NULL;

	if (work_dir == NULL)
		return;
	rm = g_strdup_printf("rm -rf '%s'", work_dir);
	cr_expect_eq(system(rm), 0, "%s", rm);
	g_clear_pointer(&work_dir, g_free);
}

const char *
fst_ui_get_work_dir(void)
{
	cr_assert_not_null(work_dir, "fst_ui_begin() was not called");
	return work_dir;
}

char *
fst_ui_trace_path(const char *name)
{
	return g_build_filename(FST_SOURCE_ROOT, "traces", name, NULL);
}

void
fst_ui_spin_until(gboolean (*done)(void), gint64 timeout_us)
{
	gint64 deadline = g_get_monotonic_time() + timeout_us;

	while (!done() && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	cr_assert(done(), "timed out waiting for the window");
}

void
fst_ui_settle(void)
{
	for (int i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
	g_usleep(20000);
	for (int i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
}

FsvWindow *
fst_ui_window_new(int width, int height)
{
	FsvWindow *window = fsv_window_new(NULL);

	gtk_window_set_default_size(GTK_WINDOW(window), width, height);
	gtk_window_present(GTK_WINDOW(window));
	return window;
}

void
fst_ui_wait_loaded(FsvWindow *window, gint64 timeout_us)
{
	gint64 deadline = g_get_monotonic_time() + timeout_us;

	while (_fsv_window_is_loading(window) && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	cr_assert_not(_fsv_window_is_loading(window), "timed out waiting for the load");
}

void
fst_ui_open_path(FsvWindow *window, const char *path)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);

	fsv_window_open(window, file);
	cr_assert(_fsv_window_is_loading(window));
	fst_ui_wait_loaded(window, FST_UI_LOAD_TIMEOUT_US);
}

void
fst_ui_open_trace(FsvWindow *window, const char *name)
{
	g_autofree char *path = fst_ui_trace_path(name);

	fst_ui_open_path(window, path);
}

FsvWindow *
fst_ui_window_new_with_trace(const char *name, int width, int height)
{
	FsvWindow *window = fst_ui_window_new(width, height);

	fst_ui_open_trace(window, name);
	cr_assert_null(_fsv_window_get_error(window), "error: %s", _fsv_window_get_error(window));
	fst_ui_settle();
	return window;
}

void
fst_ui_window_destroy(FsvWindow *window)
{
	gtk_window_destroy(GTK_WINDOW(window));
	fst_ui_settle();
}

gboolean
fst_ui_timeline_is_laid_out(FsvTimeline *timeline)
{
	const FsvView *view = fsv_timeline_get_view(timeline);

	return gtk_widget_get_mapped(GTK_WIDGET(timeline)) && view &&
	       gtk_widget_get_width(GTK_WIDGET(timeline)) > 100 &&
	       fsv_view_get_width(view) == gtk_widget_get_width(GTK_WIDGET(timeline));
}

GdkTexture *
fst_ui_screenshot(GtkWidget *widget)
{
	g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new(widget);
	g_autoptr(GtkSnapshot) snapshot = NULL;
	g_autoptr(GskRenderNode) node = NULL;
	int width = gtk_widget_get_width(widget);
	int height = gtk_widget_get_height(widget);

	/* A layout still pending (the legend's strip follows the width a refit left) draws nothing
	 * yet: let it settle. */
	for (int i = 0; i < 50 && !node; i++) {
		if (i > 0)
			fst_ui_settle();
		snapshot = gtk_snapshot_new();
		gdk_paintable_snapshot(paintable, snapshot, width, height);
		node = gtk_snapshot_free_to_node(g_steal_pointer(&snapshot));
	}
	cr_assert_not_null(node, "nothing drawn");
	return gsk_renderer_render_texture(gtk_native_get_renderer(gtk_widget_get_native(widget)),
					   node, &GRAPHENE_RECT_INIT(0, 0, width, height));
}

GdkTexture *
fst_ui_save_screenshot(GtkWidget *widget, const char *name)
{
	GdkTexture *texture = fst_ui_screenshot(widget);
	g_autofree char *path = g_build_filename(FST_BUILD_DIR, name, NULL);

	cr_expect(gdk_texture_save_to_png(texture, path), "%s not written", path);
	return texture;
}

guint
fst_ui_count_colour(GdkTexture *texture, const double rgb[3], int distance, int x0, int y0, int x1,
		    int y1)
{
	int width = gdk_texture_get_width(texture), height = gdk_texture_get_height(texture);
	gsize stride = (gsize) width * 4;
	g_autofree guchar *data = g_malloc(stride * (gsize) height);
	guint count = 0;

	gdk_texture_download(texture, data, stride);
	for (int y = MAX(y0, 0); y < MIN(y1, height); y++) {
		for (int x = MAX(x0, 0); x < MIN(x1, width); x++) {
			/* GDK_MEMORY_DEFAULT is B8G8R8A8 premultiplied: opaque here. */
			const guchar *p = data + (gsize) y * stride + (gsize) x * 4;

			if (abs(p[2] - (int) lround(rgb[0] * 255)) <= distance &&
			    abs(p[1] - (int) lround(rgb[1] * 255)) <= distance &&
			    abs(p[0] - (int) lround(rgb[2] * 255)) <= distance)
				count++;
		}
	}
	return count;
}

static void
on_window_added(GtkApplication *app, GtkWindow *added, FstUiRun *run)
{
	(void) app;
	run->window = FSV_WINDOW(added);
}

int
fst_ui_run_application(const char *const *argv, GSourceFunc poll, FstUiRun *run)
{
	g_autoptr(FsvApplication) app = fsv_application_new();
	int argc = (int) g_strv_length((char **) argv);
	guint source;
	int status;

	run->app = G_APPLICATION(app);
	g_signal_connect(app, "window-added", G_CALLBACK(on_window_added), run);
	source = g_timeout_add(20, poll, run);
	status = g_application_run(G_APPLICATION(app), argc, (char **) argv);
	if (!run->is_done)
		g_source_remove(source);
	run->app = NULL;
	return status;
}

void
fst_ui_run_finish(FstUiRun *run)
{
	run->is_done = TRUE;
	gtk_window_destroy(GTK_WINDOW(run->window));
	g_application_quit(run->app);
}

gboolean
fst_ui_has_xdotool(void)
{
	g_autofree char *xdotool = g_find_program_in_path("xdotool");

	return xdotool != NULL;
}

void
fst_ui_xdotool(const char *format, ...)
{
	g_autofree char *arguments = NULL;
	g_autofree char *command = NULL;
	g_autofree char *err = NULL;
	int status = -1;
	va_list args;

	va_start(args, format);
	arguments = g_strdup_vprintf(format, args);
	va_end(args);
	command = g_strdup_printf("xdotool %s", arguments);
	cr_assert(g_spawn_command_line_sync(command, NULL, &err, &status, NULL), "%s", command);
	cr_assert_eq(status, 0, "%s: %s", command, err ? err : "");
}
