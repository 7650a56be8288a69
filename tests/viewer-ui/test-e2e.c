/* SPDX-License-Identifier: MIT */
/*
 * End-to-end UI test with real input (suite ui, under Xvfb; issue 15 "Tests"): the real
 * `fencescope-view` opens traces/frame-pipeline in its own process, and xdotool drives it with
 * real X pointer and key events — a resize, a wheel zoom, a drag pan, a click on a box, a
 * Shift+drag range, Ctrl+F with a query and Enter followed by a key that must reach the
 * timeline, a click in the operations table, go to time and a bookmark, L for the legend. Each step
 * waits (with a timeout, no fixed sleeps) for the state the window writes to FSV_TEST_STATE_FILE on
 * every change and checks it: the viewport, the selected op, the range, the search text, the focus.
 * The box to click is found by hit testing a view of the same trace at the viewport the window
 * reports, and the screen is checked too: an xwd capture of the window must show the selection's
 * outline where the box was clicked. A second test opens traces/diff-base with --compare
 * traces/diff-slow and turns the wheel and drags on the lower timeline: both timelines move, on one
 * time axis (docs/viewer.md "Comparing two traces").
 *
 * Skipped, saying so, without xdotool or xwd (scripts/install-deps installs both).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <glib/gstdio.h>

#include "fsv-render.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define STEP_TIMEOUT_US (20 * G_USEC_PER_SEC)
#define LOAD_TIMEOUT_US (90 * G_USEC_PER_SEC)

static GPid viewer_pid;
static char *state_path;
static char *window_id;
static char *work_dir;

/* --- Driving the X server ------------------------------------------------------------------ */

/* Runs a command line, asserting it succeeds. Returns: (transfer full): its standard output. */
static char *run(const char *format, ...) G_GNUC_PRINTF(1, 2);

static char *
run(const char *format, ...)
{
	va_list args;
	g_autofree char *command = NULL;
	g_autofree char *err = NULL;
	g_autoptr(GError) error = NULL;
	char *out = NULL;
	int status = 0;

	va_start(args, format);
	command = g_strdup_vprintf(format, args);
	va_end(args);
	cr_assert(g_spawn_command_line_sync(command, &out, &err, &status, &error), "%s: %s",
		  command, error ? error->message : "");
	cr_assert(g_spawn_check_wait_status(status, NULL), "%s failed: %s", command, err);
	return out;
}

static void xdo(const char *format, ...) G_GNUC_PRINTF(1, 2);

static void
xdo(const char *format, ...)
{
	va_list args;
	g_autofree char *command = NULL;

	va_start(args, format);
	command = g_strdup_vprintf(format, args);
	va_end(args);
	g_free(run("xdotool %s", command));
}

/* --- The window's state -------------------------------------------------------------------- */

typedef struct {
	gboolean is_loaded;
	int x, y, width, height, label_width; /* the timeline in the window */
	guint64 begin_ns, end_ns;
	double ns_per_px, scroll_y;
	int selection_kind;
	guint64 selection_index;
	gboolean has_range;
	guint64 range_begin_ns, range_end_ns;
	gboolean has_cursor;
	guint64 cursor_ns;
	int bookmarks;
	char *search;
	gboolean timeline_has_focus, is_legend_shown, is_goto_focused;
	gboolean has_table;
	int table_x, table_y, table_width, table_height;
	guint32 table_rows[6]; /* ops of the table's first rows */
	guint n_table_rows;
	int row_x[6], row_y[6], row_width[6], row_height[6]; /* rows on screen (0: not shown) */
	char *text;                                          /* the whole dump, for messages */
} State;

static void
state_clear(State *state)
{
	g_free(state->search);
	g_free(state->text);
	memset(state, 0, sizeof(*state));
}

static gboolean
state_read(State *state)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autofree char *text = NULL;
	g_autofree char *scale = NULL, *scroll = NULL;

	state_clear(state);
	if (!g_file_get_contents(state_path, &text, NULL, NULL) ||
	    !g_key_file_load_from_data(file, text, -1, G_KEY_FILE_NONE, NULL))
		return FALSE;
	state->is_loaded = g_key_file_get_boolean(file, "state", "loaded", NULL);
	state->x = g_key_file_get_integer(file, "timeline", "x", NULL);
	state->y = g_key_file_get_integer(file, "timeline", "y", NULL);
	state->width = g_key_file_get_integer(file, "timeline", "width", NULL);
	state->height = g_key_file_get_integer(file, "timeline", "height", NULL);
	state->label_width = g_key_file_get_integer(file, "timeline", "label_width", NULL);
	state->begin_ns = g_key_file_get_uint64(file, "view", "begin_ns", NULL);
	state->end_ns = g_key_file_get_uint64(file, "view", "end_ns", NULL);
	scale = g_key_file_get_string(file, "view", "ns_per_px", NULL);
	scroll = g_key_file_get_string(file, "view", "scroll_y", NULL);
	state->ns_per_px = scale ? g_ascii_strtod(scale, NULL) : 0;
	state->scroll_y = scroll ? g_ascii_strtod(scroll, NULL) : 0;
	state->selection_kind = g_key_file_get_integer(file, "selection", "kind", NULL);
	state->selection_index = g_key_file_get_uint64(file, "selection", "index", NULL);
	state->has_range = g_key_file_has_key(file, "range", "begin_ns", NULL);
	state->range_begin_ns = g_key_file_get_uint64(file, "range", "begin_ns", NULL);
	state->range_end_ns = g_key_file_get_uint64(file, "range", "end_ns", NULL);
	state->has_cursor = g_key_file_has_key(file, "view", "cursor_ns", NULL);
	state->cursor_ns = g_key_file_get_uint64(file, "view", "cursor_ns", NULL);
	state->bookmarks = g_key_file_get_integer(file, "state", "bookmarks", NULL);
	state->search = g_key_file_get_string(file, "search", "text", NULL);
	state->timeline_has_focus =
	    g_key_file_get_boolean(file, "state", "timeline_has_focus", NULL);
	state->is_legend_shown = g_key_file_get_boolean(file, "legend", "shown", NULL);
	state->is_goto_focused = g_key_file_get_boolean(file, "goto", "has_focus", NULL);
	state->has_table = g_key_file_has_key(file, "table", "first_rows", NULL);
	state->table_x = g_key_file_get_integer(file, "table", "x", NULL);
	state->table_y = g_key_file_get_integer(file, "table", "y", NULL);
	state->table_width = g_key_file_get_integer(file, "table", "width", NULL);
	state->table_height = g_key_file_get_integer(file, "table", "height", NULL);
	{
		g_autofree char *rows = g_key_file_get_string(file, "table", "first_rows", NULL);
		g_auto(GStrv) ops = rows && *rows ? g_strsplit(rows, ";", 6) : NULL;

		for (guint i = 0; ops && ops[i]; i++)
			state->table_rows[state->n_table_rows++] =
			    (guint32) g_ascii_strtoull(ops[i], NULL, 10);
	}
	for (guint i = 0; i < 6; i++) {
		char key[16];
		g_autofree char *row = NULL;

		g_snprintf(key, sizeof(key), "row_%u", i);
		row = g_key_file_get_string(file, "table", key, NULL);
		if (row)
			sscanf(row, "%d;%d;%d;%d", &state->row_x[i], &state->row_y[i],
			       &state->row_width[i], &state->row_height[i]);
	}
	state->text = g_steal_pointer(&text);
	return TRUE;
}

typedef gboolean (*StateCheck)(const State *state, gconstpointer data);

/* Polls the state file until CHECK holds (the window rewrites it within 25 ms of a change). */
static void
wait_state(State *state, StateCheck check, gconstpointer data, const char *what)
{
	gint64 deadline = g_get_monotonic_time() + STEP_TIMEOUT_US;

	while (g_get_monotonic_time() < deadline) {
		if (state_read(state) && check(state, data))
			return;
		g_usleep(20000);
	}
	cr_assert(FALSE, "timed out waiting for %s; last state:\n%s", what,
		  state->text ? state->text : "(none)");
}

/* After an input that the window handles over several events (a drag): the state once it has
 * not changed for 200 ms, so the last motion has been handled. */
static void
wait_stable(State *state)
{
	gint64 deadline = g_get_monotonic_time() + STEP_TIMEOUT_US;
	g_autofree char *last = NULL;
	int same = 0;

	while (g_get_monotonic_time() < deadline && same < 10) {
		g_usleep(20000);
		if (!state_read(state))
			continue;
		same = g_strcmp0(last, state->text) == 0 ? same + 1 : 0;
		g_free(last);
		last = g_strdup(state->text);
	}
	cr_assert_eq(same, 10, "the window never settled");
}

static gboolean
is_ready(const State *state, gconstpointer data)
{
	(void) data;
	return state->is_loaded && state->width > 300 && state->ns_per_px > 0;
}

static gboolean
has_width(const State *state, gconstpointer data)
{
	return state->width == GPOINTER_TO_INT(data);
}

static gboolean
scale_differs(const State *state, gconstpointer data)
{
	return fabs(state->ns_per_px - *(const double *) data) > *(const double *) data * 1e-6;
}

static gboolean
begin_differs(const State *state, gconstpointer data)
{
	return state->begin_ns != *(const guint64 *) data;
}

static gboolean
has_op_selected(const State *state, gconstpointer data)
{
	return state->selection_kind == FSV_ITEM_OP &&
	       (data == NULL || state->selection_index == *(const guint32 *) data);
}

static gboolean
has_range(const State *state, gconstpointer data)
{
	(void) data;
	return state->has_range;
}

static gboolean
search_is(const State *state, gconstpointer data)
{
	return g_strcmp0(state->search, data) == 0;
}

static gboolean
has_focus_and_op(const State *state, gconstpointer data)
{
	(void) data;
	return state->timeline_has_focus && state->selection_kind == FSV_ITEM_OP;
}

static gboolean
has_cursor(const State *state, gconstpointer data)
{
	return state->has_cursor && state->cursor_ns == *(const guint64 *) data;
}

static gboolean
has_table_rows(const State *state, gconstpointer data)
{
	(void) data;
	return state->has_table && state->n_table_rows >= 4 && state->table_height > 100 &&
	       state->row_height[0] > 0;
}

static gboolean
has_no_selection(const State *state, gconstpointer data)
{
	(void) data;
	return state->selection_kind == FSV_ITEM_NONE;
}

static gboolean
selection_differs(const State *state, gconstpointer data)
{
	return state->selection_kind == FSV_ITEM_OP &&
	       state->selection_index != *(const guint64 *) data;
}

static gboolean
has_bookmarks(const State *state, gconstpointer data)
{
	return state->bookmarks == GPOINTER_TO_INT(data);
}

static gboolean
legend_is(const State *state, gconstpointer data)
{
	return state->is_legend_shown == GPOINTER_TO_INT(data);
}

/* --- The viewer process -------------------------------------------------------------------- */

/* Starts fencescope-view with ARGS (NULL-terminated, after the program), and finds its window by
 * TITLE once the trace is shown. */
static void
start_viewer_with(const char *const *args, const char *title)
{
	g_autofree char *exe = g_build_filename(FST_VIEWER_BUILD_DIR, "fencescope-view", NULL);
	g_autofree char *xdotool = g_find_program_in_path("xdotool");
	g_autofree char *xwd = g_find_program_in_path("xwd");
	g_autofree char *env_state = NULL, *env_data = NULL, *env_config = NULL;
	g_autoptr(GError) error = NULL;
	char **envp;
	const char *argv[8] = {exe};
	char *out;

	for (guint i = 0; args[i] && i + 1 < G_N_ELEMENTS(argv) - 1; i++)
		argv[i + 1] = args[i];
	if (!xdotool || !xwd)
		cr_skip_test("xdotool or xwd missing (scripts/install-deps installs them)");
	if (!g_getenv("DISPLAY"))
		cr_skip_test("no X display (run under xvfb-run, as scripts/test does)");
	work_dir = g_dir_make_tmp("fsv-e2e-XXXXXX", &error);
	cr_assert_not_null(work_dir, "%s", error ? error->message : "");
	state_path = g_build_filename(work_dir, "state.ini", NULL);
	envp = g_get_environ();
	envp = g_environ_setenv(envp, "FSV_TEST_STATE_FILE", state_path, TRUE);
	/* Bookmarks and settings of this run only, never the user's. */
	env_data = g_build_filename(work_dir, "data", NULL);
	env_config = g_build_filename(work_dir, "config", NULL);
	envp = g_environ_setenv(envp, "XDG_DATA_HOME", env_data, TRUE);
	envp = g_environ_setenv(envp, "XDG_CONFIG_HOME", env_config, TRUE);
	envp = g_environ_setenv(envp, "GDK_BACKEND", "x11", TRUE);
	cr_assert(g_spawn_async(NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
				&viewer_pid, &error),
		  "%s", error->message);
	g_strfreev(envp);
	/* The window, by its title once the trace is shown. */
	out = run("timeout 60 xdotool search --sync --name \"%s\"", title);
	g_strstrip(out);
	cr_assert(*out, "no viewer window");
	window_id = g_strdup(strtok(out, "\n"));
	g_free(out);
}

static void
start_viewer(void)
{
	g_autofree char *trace =
	    g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	const char *args[] = {trace, NULL};

	start_viewer_with(args, "frame-pipeline — fencescope viewer");
}

static void
stop_viewer(void)
{
	if (viewer_pid) {
		kill(viewer_pid, SIGTERM);
		waitpid(viewer_pid, NULL, 0);
		g_spawn_close_pid(viewer_pid);
		viewer_pid = 0;
	}
	if (state_path)
		g_unlink(state_path);
	g_clear_pointer(&state_path, g_free);
	g_clear_pointer(&window_id, g_free);
	g_clear_pointer(&work_dir, g_free);
}

/* --- The screen ---------------------------------------------------------------------------- */

/* Pixels of the window near colour RGB in [x0, x1) × [y0, y1) of an xwd capture (32 bpp
 * ZPixmap, the Xvfb default depth 24). */
static guint
count_screen_colour(const double rgb[3], int distance, int x0, int y0, int x1, int y1)
{
	g_autofree char *path = g_build_filename(work_dir, "window.xwd", NULL);
	g_autofree guchar *data = NULL;
	gsize length;
	guint32 header[25], width, height, bytes_per_line, ncolors, byte_order;
	guint count = 0;

	g_free(run("sh -c 'xwd -silent -id %s > %s'", window_id, path));
	cr_assert(g_file_get_contents(path, (char **) &data, &length, NULL));
	cr_assert_geq(length, sizeof(header));
	for (int i = 0; i < 25; i++)
		header[i] = GUINT32_FROM_BE(((guint32 *) data)[i]);
	cr_assert_eq(header[11], 32, "xwd: %u bits per pixel", header[11]);
	width = header[4];
	height = header[5];
	byte_order = header[7];
	bytes_per_line = header[12];
	ncolors = header[19];
	for (int y = MAX(y0, 0); y < MIN(y1, (int) height); y++) {
		for (int x = MAX(x0, 0); x < MIN(x1, (int) width); x++) {
			gsize at = header[0] + (gsize) ncolors * 12 + (gsize) y * bytes_per_line +
				   (gsize) x * 4;
			const guchar *p = data + at;
			int r, g, b;

			cr_assert_leq(at + 4, length);
			/* LSBFirst: B G R x; MSBFirst: x R G B. */
			r = byte_order == 0 ? p[2] : p[1];
			g = byte_order == 0 ? p[1] : p[2];
			b = byte_order == 0 ? p[0] : p[3];
			if (abs(r - (int) lround(rgb[0] * 255)) <= distance &&
			    abs(g - (int) lround(rgb[1] * 255)) <= distance &&
			    abs(b - (int) lround(rgb[2] * 255)) <= distance)
				count++;
		}
	}
	return count;
}

/* --- Finding a box to click ---------------------------------------------------------------- */

/* A view of TRACE where the window's is: same size, left edge, scale and scroll. */
static FsvView *
view_like_window(FsvTrace *trace, const State *state)
{
	FsvView *view = fsv_view_new(trace);
	double span;

	/* The window shows the counter rows (issue 15 §4) where a bare view hides them. */
	for (guint k = 0; k < FSV_COUNTER_KIND_COUNT; k++)
		fsv_view_set_show_counter(view, k, true);
	fsv_view_set_size(view, state->width, state->height);
	span = state->ns_per_px * fsv_view_get_time_width(view);
	fsv_view_set_range(view, state->begin_ns, state->begin_ns + (guint64) llround(span));
	fsv_view_set_scroll_y(view, state->scroll_y);
	return view;
}

/* The widest op box in view whose middle answers that op over ±4 px (so a pixel of rounding
 * between this view and the window's cannot land the click elsewhere). */
static gboolean
find_box(const FsvView *view, double *x, double *y, guint32 *op)
{
	double best = 0;
	FsvItem hit;

	for (double py = fsv_view_get_ruler_height(view) + 4; py < fsv_view_get_height(view) - 4;
	     py += 2) {
		for (double px = fsv_view_get_label_width(view) + 8;
		     px < fsv_view_get_width(view) - 8; px += 4) {
			guint32 index;
			gboolean is_stable = TRUE;
			double w = 0;

			if (!fsv_view_hit_test(view, px, py, &hit) || hit.kind != FSV_ITEM_OP)
				continue;
			index = hit.index;
			for (int dx = -4; dx <= 4 && is_stable; dx += 2)
				for (int dy = -2; dy <= 2 && is_stable; dy += 2)
					is_stable =
					    fsv_view_hit_test(view, px + dx, py + dy, &hit) &&
					    hit.kind == FSV_ITEM_OP && hit.index == index;
			if (!is_stable)
				continue;
			{
				const FsvOp *o = fsv_trace_get_op(fsv_view_get_trace(view), index);

				w = fsv_view_time_to_x(view, o->end_ns) -
				    fsv_view_time_to_x(view, o->begin_ns);
			}
			if (w > best) {
				best = w;
				*x = px;
				*y = py;
				*op = index;
			}
		}
	}
	return best > 0;
}

/* --- The test ------------------------------------------------------------------------------ */

TestSuite(e2e_window, .fini = stop_viewer, .timeout = 240);

Test(e2e_window, real_pointer_and_keys_zoom_pan_select_range_search_and_go_to)
{
	g_autofree char *trace_path =
	    g_build_filename(FST_SOURCE_ROOT, "traces", "frame-pipeline", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvView) view = NULL;
	State state = {0};
	double scale, x, y, rgb[3];
	guint64 begin, span, t0, at;
	guint32 op = FSV_INDEX_NONE;
	int mid_x, mid_y;

	start_viewer();
	trace = fsv_trace_load(trace_path, NULL, NULL, NULL, &error);
	cr_assert_not_null(trace, "%s", error ? error->message : "");
	t0 = fsv_trace_get_begin_ns(trace);
	{
		gint64 deadline = g_get_monotonic_time() + LOAD_TIMEOUT_US;

		while (!(state_read(&state) && is_ready(&state, NULL)) &&
		       g_get_monotonic_time() < deadline)
			g_usleep(20000);
		cr_assert(is_ready(&state, NULL), "the viewer never showed the trace:\n%s",
			  state.text ? state.text : "(no state)");
	}
	xdo("windowfocus --sync %s", window_id);

	/* A real resize of a fitted view refits it: the whole trace over the new width. */
	span = state.end_ns - state.begin_ns;
	{
		int width = state.width;

		xdo("windowsize --sync %s 1500 860", window_id);
		wait_state(&state, scale_differs, &(double){state.ns_per_px}, "the resize");
		wait_stable(&state);
		cr_assert_neq(state.width, width);
		cr_assert_leq(llabs((long long) (state.end_ns - state.begin_ns) - (long long) span),
			      (long long) (span / 200), "not refitted:\n%s", state.text);
		(void) has_width;
	}

	/* Wheel up over the time area: zoom in about the pointer. */
	mid_x = state.x + state.width / 2 + 120;
	mid_y = state.y + state.height / 2;
	scale = state.ns_per_px;
	{
		guint64 under =
		    state.begin_ns + (guint64) ((mid_x - state.x - state.label_width) * scale);

		xdo("mousemove --window %s %d %d", window_id, mid_x, mid_y);
		xdo("click 4");
		wait_state(&state, scale_differs, &scale, "a wheel zoom");
		wait_stable(&state);
		cr_assert_lt(state.ns_per_px, scale, "the wheel zoomed out:\n%s", state.text);
		/* The time under the pointer stayed under it (a pixel or two). */
		cr_assert_leq(llabs((long long) (state.begin_ns +
						 (guint64) ((mid_x - state.x - state.label_width) *
							    state.ns_per_px)) -
				    (long long) under),
			      (long long) (3 * scale), "zoom not about the pointer:\n%s",
			      state.text);
	}
	xdo("click 4");
	xdo("click 4");
	wait_state(&state, scale_differs, &(double){state.ns_per_px}, "two more notches");

	/* Drag left by 200 px: later times come into view, the scale stays. */
	begin = state.begin_ns;
	scale = state.ns_per_px;
	xdo("mousemove --window %s %d %d mousedown 1", window_id, mid_x, mid_y);
	for (int step = 1; step <= 10; step++)
		xdo("mousemove --window %s %d %d", window_id, mid_x - 20 * step, mid_y);
	xdo("mouseup 1");
	wait_state(&state, begin_differs, &begin, "a drag pan");
	wait_stable(&state);
	cr_assert_gt(state.begin_ns, begin, "the drag panned the wrong way:\n%s", state.text);
	cr_assert_float_eq(state.ns_per_px, scale, scale * 1e-9);
	cr_assert_leq(llabs((long long) (state.begin_ns - begin) - (long long) (200 * scale)),
		      (long long) (8 * scale), "moved by %g px", (state.begin_ns - begin) / scale);

	/* A click on a box: the op hit testing finds there, at the window's viewport, is the one
	 * selected, and the screen shows its outline. */
	view = view_like_window(trace, &state);
	cr_assert(find_box(view, &x, &y, &op), "no op box in view:\n%s", state.text);
	xdo("mousemove --window %s %d %d click 1", window_id, state.x + (int) x, state.y + (int) y);
	wait_state(&state, has_op_selected, &op, "the clicked op selected");
	fsv_render_get_color(FSV_COLOR_SELECTION, rgb);
	{
		const FsvOp *o = fsv_trace_get_op(trace, op);
		int x0 = state.x + (int) floor(fsv_view_time_to_x(view, o->begin_ns)) - 3;
		int x1 = state.x + (int) ceil(fsv_view_time_to_x(view, o->end_ns)) + 3;
		guint outline = 0;

		/* The redraw follows the state by a frame: poll the screen too. */
		for (int tries = 0; tries < 50 && outline < 10; tries++) {
			outline = count_screen_colour(
			    rgb, 40, MAX(x0, state.x + state.label_width), state.y + (int) y - 12,
			    MIN(x1, state.x + state.width), state.y + (int) y + 12);
			if (outline < 10)
				g_usleep(50000);
		}
		cr_assert_geq(outline, 10, "no selection outline on screen around (%g, %g)", x, y);
	}

	/* Shift+drag: a range from the press to the release. */
	xdo("mousemove --window %s %d %d keydown shift mousedown 1", window_id, mid_x - 150, mid_y);
	for (int step = 1; step <= 10; step++)
		xdo("mousemove --window %s %d %d", window_id, mid_x - 150 + 30 * step, mid_y);
	xdo("mouseup 1 keyup shift");
	wait_state(&state, has_range, NULL, "a range selection");
	wait_stable(&state);
	{
		guint64 want_begin =
		    state.begin_ns +
		    (guint64) ((mid_x - 150 - state.x - state.label_width) * state.ns_per_px);
		guint64 want_end = want_begin + (guint64) (300 * state.ns_per_px);

		cr_assert_leq(llabs((long long) (state.range_begin_ns - want_begin)),
			      (long long) (4 * state.ns_per_px), "%s", state.text);
		cr_assert_leq(llabs((long long) (state.range_end_ns - want_end)),
			      (long long) (8 * state.ns_per_px), "%s", state.text);
	}

	/* Ctrl+F, a query, Enter: the next match is selected and keys go back to the timeline, so
	 * F fits the trace instead of being typed into the entry. */
	xdo("key ctrl+f");
	xdo("type --delay 20 kind=signal");
	wait_state(&state, search_is, "kind=signal", "the query typed");
	xdo("key Return");
	wait_state(&state, has_focus_and_op, NULL, "Enter: a match selected, focus back");
	cr_assert_eq(fsv_trace_get_op(trace, (guint32) state.selection_index)->kind, FSA_OP_SIGNAL);
	scale = state.ns_per_px;
	xdo("key f");
	wait_state(&state, scale_differs, &scale, "F fitting the trace");
	cr_assert_str_eq(state.search, "kind=signal", "F was typed into the search");
	cr_assert_gt(state.ns_per_px, scale);

	/* Ctrl+T shows the operations table (filtered by the query); a click on a row selects
	 * that op in the timeline. */
	/* Escape first: with nothing selected the table shows its first rows, unscrolled. */
	xdo("key Escape");
	wait_state(&state, has_no_selection, NULL, "Escape clearing the selection");
	xdo("key ctrl+t");
	wait_state(&state, has_table_rows, NULL, "the operations table");
	wait_stable(&state);
	{
		guint64 before = state.selection_index;
		guint32 rows[6];
		guint n = state.n_table_rows;
		gboolean is_listed = FALSE;

		memcpy(rows, state.table_rows, sizeof(rows));
		/* The third row, where the table says it is drawn; the first when it draws only
		 * that one (GTK 4.8's column view, shown after a query was typed, draws its first
		 * row until it is scrolled: left to the table's owner, s9-table). */
		guint pick = state.row_height[2] > 0 ? 2 : 0;

		xdo("mousemove --window %s %d %d click 1", window_id,
		    state.row_x[pick] + state.row_width[pick] / 4,
		    state.row_y[pick] + state.row_height[pick] / 2);
		wait_state(&state, selection_differs, &before, "a table row selected");
		is_listed = n > pick && rows[pick] == state.selection_index;
		cr_assert(is_listed, "op %" G_GUINT64_FORMAT " is not row %u's:\n%s",
			  state.selection_index, pick, state.text);
		cr_assert_eq(fsv_trace_get_op(trace, (guint32) state.selection_index)->kind,
			     FSA_OP_SIGNAL, "the table lists only what the query matches");
	}
	xdo("windowfocus --sync %s", window_id);
	xdo("key ctrl+t");

	/* Ctrl+G, a relative time, Enter: the marker is there; B bookmarks it. */
	xdo("key ctrl+g");
	/* Typed at once, as a fast typist does: no key may be lost while the bar opens. */

	xdo("type --delay 20 +1.5ms");
	xdo("key Return");
	at = t0 + 1500000;
	wait_state(&state, has_cursor, &at, "go to +1.5ms");
	xdo("key b");
	wait_state(&state, has_bookmarks, GINT_TO_POINTER(1), "a bookmark");

	/* L hides the legend, L shows it again. */
	cr_assert(state.is_legend_shown);
	xdo("key l");
	wait_state(&state, legend_is, GINT_TO_POINTER(FALSE), "the legend hidden");
	xdo("key l");
	wait_state(&state, legend_is, GINT_TO_POINTER(TRUE), "the legend shown");
	state_clear(&state);
}

/* --- Comparing two traces (docs/viewer.md "Comparing two traces") ------------------------- */

typedef struct {
	gboolean is_shown, new_has_focus;
	gint64 offset_ns;
	int new_x, new_y, new_width, new_height, new_label_width;
	guint64 base_begin_ns, new_begin_ns;
	double base_ns_per_px, new_ns_per_px;
	char *text;
} CompareState;

static gboolean
compare_read(CompareState *compare)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autofree char *base_scale = NULL, *new_scale = NULL;

	g_clear_pointer(&compare->text, g_free);
	if (!g_file_get_contents(state_path, &compare->text, NULL, NULL) ||
	    !g_key_file_load_from_data(file, compare->text, -1, G_KEY_FILE_NONE, NULL))
		return FALSE;
	compare->is_shown = g_key_file_get_boolean(file, "compare", "shown", NULL);
	compare->new_has_focus = g_key_file_get_boolean(file, "compare", "new_has_focus", NULL);
	compare->offset_ns = g_key_file_get_int64(file, "compare", "offset_ns", NULL);
	compare->new_x = g_key_file_get_integer(file, "compare", "new_x", NULL);
	compare->new_y = g_key_file_get_integer(file, "compare", "new_y", NULL);
	compare->new_width = g_key_file_get_integer(file, "compare", "new_width", NULL);
	compare->new_height = g_key_file_get_integer(file, "compare", "new_height", NULL);
	compare->new_label_width = g_key_file_get_integer(file, "compare", "new_label_width", NULL);
	compare->base_begin_ns = g_key_file_get_uint64(file, "compare", "base_begin_ns", NULL);
	compare->new_begin_ns = g_key_file_get_uint64(file, "compare", "new_begin_ns", NULL);
	base_scale = g_key_file_get_string(file, "compare", "base_ns_per_px", NULL);
	new_scale = g_key_file_get_string(file, "compare", "new_ns_per_px", NULL);
	compare->base_ns_per_px = base_scale ? g_ascii_strtod(base_scale, NULL) : 0;
	compare->new_ns_per_px = new_scale ? g_ascii_strtod(new_scale, NULL) : 0;
	return TRUE;
}

typedef gboolean (*CompareCheck)(const CompareState *compare, double value);

static void
compare_wait(CompareState *compare, CompareCheck check, double value, const char *what)
{
	gint64 deadline = g_get_monotonic_time() + LOAD_TIMEOUT_US;

	while (g_get_monotonic_time() < deadline) {
		if (compare_read(compare) && check(compare, value))
			return;
		g_usleep(20000);
	}
	cr_assert(FALSE, "timed out waiting for %s; last state:\n%s", what,
		  compare->text ? compare->text : "(none)");
}

static gboolean
compare_is_ready(const CompareState *compare, double value)
{
	(void) value;
	return compare->is_shown && compare->new_width > 300 && compare->new_height > 150 &&
	       compare->new_ns_per_px > 0;
}

static gboolean
compare_scale_differs(const CompareState *compare, double value)
{
	return fabs(compare->new_ns_per_px - value) > value * 1e-6;
}

static gboolean
compare_begin_differs(const CompareState *compare, double value)
{
	return (double) compare->new_begin_ns != value;
}

/* Both timelines on one axis: one scale, NEW's left edge BASE's + the offset, to the ns. */
static void
assert_one_axis(const CompareState *compare)
{
	cr_assert_eq(compare->base_ns_per_px, compare->new_ns_per_px, "scales differ:\n%s",
		     compare->text);
	cr_assert_eq((gint64) (compare->new_begin_ns - compare->base_begin_ns), compare->offset_ns,
		     "left edges not offset by the offset:\n%s", compare->text);
}

Test(e2e_window, real_wheel_and_drag_on_the_lower_timeline_move_both)
{
	g_autofree char *base = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-base", NULL);
	g_autofree char *slow = g_build_filename(FST_SOURCE_ROOT, "traces", "diff-slow", NULL);
	const char *args[] = {base, "--compare", slow, NULL};
	CompareState compare = {0};
	State state = {0};
	double scale;
	guint64 base_begin, new_begin;
	int mid_x, mid_y;

	start_viewer_with(args, "diff-base vs diff-slow — fencescope viewer");
	compare_wait(&compare, compare_is_ready, 0, "NEW shown below BASE");
	xdo("windowfocus --sync %s", window_id);
	wait_stable(&state);
	compare_read(&compare);
	assert_one_axis(&compare);

	/* A real wheel notch over NEW's time area: both zoom, about the pointer in NEW. */
	mid_x = compare.new_x + compare.new_label_width +
		(compare.new_width - compare.new_label_width) / 2 + 90;
	mid_y = compare.new_y + compare.new_height / 2;
	scale = compare.new_ns_per_px;
	xdo("mousemove --window %s %d %d", window_id, mid_x, mid_y);
	xdo("click 4");
	compare_wait(&compare, compare_scale_differs, scale, "a wheel zoom on NEW");
	wait_stable(&state);
	compare_read(&compare);
	cr_assert_lt(compare.new_ns_per_px, scale, "the wheel zoomed out:\n%s", compare.text);
	assert_one_axis(&compare);
	xdo("click 4");
	xdo("click 4");
	compare_wait(&compare, compare_scale_differs, compare.new_ns_per_px, "two more notches");
	wait_stable(&state);

	/* A real drag to the left by 200 px on NEW: later times in both, the scale kept. */
	compare_read(&compare);
	base_begin = compare.base_begin_ns;
	new_begin = compare.new_begin_ns;
	scale = compare.new_ns_per_px;
	xdo("mousemove --window %s %d %d mousedown 1", window_id, mid_x, mid_y);
	for (int step = 1; step <= 10; step++)
		xdo("mousemove --window %s %d %d", window_id, mid_x - 20 * step, mid_y);
	xdo("mouseup 1");
	compare_wait(&compare, compare_begin_differs, (double) new_begin, "a drag pan on NEW");
	wait_stable(&state);
	compare_read(&compare);
	cr_assert_gt(compare.new_begin_ns, new_begin, "NEW panned the wrong way:\n%s",
		     compare.text);
	cr_assert_gt(compare.base_begin_ns, base_begin, "BASE did not follow:\n%s", compare.text);
	cr_assert_eq(compare.new_begin_ns - new_begin, compare.base_begin_ns - base_begin);
	cr_assert_leq(
	    llabs((long long) (compare.new_begin_ns - new_begin) - (long long) (200 * scale)),
	    (long long) (8 * scale), "moved by %g px", (compare.new_begin_ns - new_begin) / scale);
	cr_assert_float_eq(compare.new_ns_per_px, scale, scale * 1e-9);
	assert_one_axis(&compare);
	/* The press gave NEW the focus: the panes follow it. */
	cr_assert(compare.new_has_focus, "NEW does not have the focus:\n%s", compare.text);
	g_free(compare.text);
	state_clear(&state);
}
