/* SPDX-License-Identifier: MIT */
/*
 * `fencescope view [--select-op ID] [--at TIME] [--frame-budget TIME] [--compare NEW [--align B=N]]
 * [TRACE]`: opens
 * the GTK viewer. It only finds
 * `fencescope-view` and execs it: next to this binary (an installed bindir), in the build tree
 * (build/cli/ → build/viewer/app/), in the configured bindir, then on PATH. A TRACE that does not
 * exist is refused here with one line, so a typo never opens an empty window.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <stdlib.h>

#include "cli.h"
#include "fsa/report.h"
#include "fsv-align.h"

#define VIEW_COMMAND "view"
#define VIEW_EXE     "fencescope-view"

/* Returns: (transfer full) (nullable): the viewer's path, NULL when it is nowhere. */
static char *
find_viewer(void)
{
	g_autofree char *self_dir = g_path_get_dirname(fs_self_path());
	char *candidates[] = {
	    g_build_filename(self_dir, VIEW_EXE, NULL),
	    g_build_filename(self_dir, "..", "viewer", "app", VIEW_EXE, NULL),
	    g_build_filename(FS_BINDIR, VIEW_EXE, NULL),
	    g_find_program_in_path(VIEW_EXE),
	};
	char *found = NULL;

	for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
		if (!found && candidates[i] &&
		    g_file_test(candidates[i], G_FILE_TEST_IS_EXECUTABLE))
			found = g_steal_pointer(&candidates[i]);
		g_free(candidates[i]);
	}
	return found;
}

/* TEXT without its spaces: `fencescope report` prints "1795513402.024431610 s" and groups
 * digits ("1.234 567 ms"); a time copied from it must read as it was printed. Returns: (transfer
 * full). */
static char *
dup_without_spaces(const char *text)
{
	char *copy = g_strdup(text);
	char *to = copy;

	for (const char *from = text; *from; from++) {
		if (!g_ascii_isspace(*from))
			*to++ = *from;
	}
	*to = '\0';
	return copy;
}

/* Decimal digits that fit 64 bits: an op id as `fencescope report` prints it. */
static bool
is_op_id(const char *text)
{
	char *end = NULL;

	if (!g_ascii_isdigit(text[0]))
		return false;
	errno = 0;
	g_ascii_strtoull(text, &end, 10);
	return errno == 0 && *end == '\0';
}

int
fs_view_main(int argc, char **argv)
{
	g_auto(GStrv) rest = NULL;
	g_autofree char *recording = NULL;
	g_autofree char *select_op = NULL;
	g_autofree char *at = NULL;
	g_autofree char *compare = NULL;
	g_autofree char *align = NULL;
	g_autofree char *frame_budget = NULL;
	g_autoptr(GOptionContext) context = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *viewer = NULL;
	gboolean no_cache = FALSE, is_live = FALSE;
	const GOptionEntry entries[] = {
	    {"live", 0, 0, G_OPTION_ARG_NONE, &is_live,
	     "TRACE is a live session's URL (net://RELAYHOST/host/HOSTNAME/SESSION): follow it as "
	     "it records, the timeline following the newest events",
	     NULL},
	    {"no-cache", 0, 0, G_OPTION_ARG_NONE, &no_cache,
	     "Build the trace's index again, without reading or writing the index cache", NULL},
	    {"recording", 0, 0, G_OPTION_ARG_STRING, &recording,
	     "Of a folder holding several recordings, the one named NAME (its LTTng trace name "
	     "or its folder); with --compare, BASE_NAME:NEW_NAME names one in TRACE and one in NEW",
	     "NAME"},
	    {"select-op", 0, 0, G_OPTION_ARG_STRING, &select_op,
	     "Open with the operation of this op id (as fencescope report prints it) selected "
	     "and zoomed to",
	     "ID"},
	    {"at", 0, 0, G_OPTION_ARG_STRING, &at,
	     "Open centred on TIME: trace ns as fencescope report prints them, a duration "
	     "(2.5ms), or +DURATION from the trace's start (+1.5ms)",
	     "TIME"},
	    {"compare", 0, 0, G_OPTION_ARG_FILENAME, &compare,
	     "Show the trace NEW below TRACE on one time axis, zooming and panning together "
	     "(yesterday's build against today's; fencescope diff gives the numbers)",
	     "NEW"},
	    {"align", 0, 0, G_OPTION_ARG_STRING, &align,
	     "With --compare: draw BASE_TIME of TRACE and NEW_TIME of NEW at the same x (times as "
	     "--at takes them, op:ID, or frame:N); default: the trace starts",
	     "BASE_TIME=NEW_TIME"},
	    {"frame-budget", 0, 0, G_OPTION_ARG_STRING, &frame_budget,
	     "Frames: a frame over TIME is over budget, as fencescope report --frame-budget "
	     "grades it (default: the display's vsync period)",
	     "TIME"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "[TRACE]"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *exec_argv[16] = {NULL};
	int n_args = 0;

	/* G_OPTION_REMAINING names [TRACE] in the usage line; the parameter string would name it
	 * twice. */
	context = g_option_context_new(NULL);
	g_set_prgname("fencescope " VIEW_COMMAND);
	g_option_context_set_summary(
	    context, "Opens TRACE (a trace folder or an lttng session folder) in fencescope-view,\n"
		     "or an empty viewer window that says how to record one. Keys and mouse:\n"
		     "docs/user-guide.md \"Using the viewer\", or Ctrl+? in the window.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fs_error(VIEW_COMMAND, "%s", error->message);
		return FS_EXIT_USAGE;
	}
	if (rest && rest[0] && rest[1]) {
		fs_error(VIEW_COMMAND, "give at most one TRACE; see 'fencescope view --help'");
		return FS_EXIT_USAGE;
	}
	/* --live URL: a live session (docs/user-guide.md "Live"); the other options place a trace
	 * on disk. */
	if (is_live && (!rest || !rest[0] || !strstr(rest[0], "://"))) {
		fs_error(VIEW_COMMAND, "--live follows a live session: give its URL, "
				       "net://RELAYHOST/host/HOSTNAME/SESSION");
		return FS_EXIT_USAGE;
	}
	if (is_live && (recording || select_op || at || compare)) {
		fs_error(VIEW_COMMAND,
			 "--live takes none of --recording, --select-op, --at, --compare");
		return FS_EXIT_USAGE;
	}
	if (rest && rest[0] && !is_live && !g_file_test(rest[0], G_FILE_TEST_EXISTS)) {
		fs_error(VIEW_COMMAND, "%s: no such file or folder", rest[0]);
		return FS_EXIT_USAGE;
	}
	/* --compare NEW [--align BASE=NEW] (docs/viewer.md "Comparing two traces"). */
	if (compare && !(rest && rest[0])) {
		fs_error(VIEW_COMMAND, "--compare shows NEW below a TRACE: give the TRACE");
		return FS_EXIT_USAGE;
	}
	if (compare && !g_file_test(compare, G_FILE_TEST_EXISTS)) {
		fs_error(VIEW_COMMAND, "--compare %s: no such file or folder", compare);
		return FS_EXIT_USAGE;
	}
	if (align && !compare) {
		fs_error(VIEW_COMMAND,
			 "--align places the trace --compare names: give --compare NEW");
		return FS_EXIT_USAGE;
	}
	if (align) {
		g_autoptr(GError) align_error = NULL;
		FsvAlignSpec spec;

		if (!fsv_align_parse(align, &spec, &align_error)) {
			fs_error(VIEW_COMMAND, "--align: %s", align_error->message);
			return FS_EXIT_USAGE;
		}
		fsv_align_spec_clear(&spec);
	}
	if (recording && !(rest && rest[0])) {
		fs_error(VIEW_COMMAND, "--recording picks a recording under a TRACE: give one");
		return FS_EXIT_USAGE;
	}
	if ((select_op || at) && !(rest && rest[0])) {
		fs_error(VIEW_COMMAND, "--select-op and --at place a TRACE: give one");
		return FS_EXIT_USAGE;
	}
	/* Checked here too, with the words of the other commands, before a window opens. */
	if (select_op && !is_op_id(select_op)) {
		fs_error(VIEW_COMMAND,
			 "--select-op %s: not an op id (a decimal number, as fencescope report "
			 "prints it)",
			 select_op);
		return FS_EXIT_USAGE;
	}
	if (at) {
		g_autofree char *compact = dup_without_spaces(at);
		struct fsa_report_time time;
		char *why = NULL;

		if (fsa_report_parse_time(compact, &time, &why) != FSA_OK) {
			fs_error(VIEW_COMMAND, "--at %s: %s", at, why ? why : "not a time");
			free(why);
			return FS_EXIT_USAGE;
		}
	}
	if (frame_budget) {
		uint64_t ns = 0;
		char *why = NULL;

		if (fsa_report_parse_frame_budget(frame_budget, &ns, &why) != FSA_OK) {
			fs_error(VIEW_COMMAND, "--frame-budget %s: %s", frame_budget,
				 why ? why : "invalid");
			free(why);
			return FS_EXIT_USAGE;
		}
	}
	/* --recording NAME picks TRACE's; with --compare, BASE_NAME:NEW_NAME picks one in each, as
	 * fencescope diff's does (an empty side keeps its path as given). */
	if (recording && compare && strchr(recording, ':')) {
		const char *colon = strchr(recording, ':');
		g_autofree char *base_name = g_strndup(recording, (gsize) (colon - recording));

		if ((base_name[0] && !fs_recording_pick(VIEW_COMMAND, &rest[0], base_name)) ||
		    (colon[1] && !fs_recording_pick(VIEW_COMMAND, &compare, colon + 1)))
			return FS_EXIT_FAILURE;
	} else if (recording && !fs_recording_pick(VIEW_COMMAND, &rest[0], recording)) {
		return FS_EXIT_FAILURE;
	}
	viewer = find_viewer();
	if (viewer == NULL) {
		fs_error(VIEW_COMMAND, "%s is not installed (build it with meson: it needs GTK 4)",
			 VIEW_EXE);
		return FS_EXIT_FAILURE;
	}
	exec_argv[n_args++] = viewer;
	if (no_cache)
		exec_argv[n_args++] = (char *) "--no-cache";
	if (select_op) {
		exec_argv[n_args++] = (char *) "--select-op";
		exec_argv[n_args++] = select_op;
	}
	if (at) {
		exec_argv[n_args++] = (char *) "--at";
		exec_argv[n_args++] = at;
	}
	if (compare) {
		exec_argv[n_args++] = (char *) "--compare";
		exec_argv[n_args++] = compare;
	}
	if (align) {
		exec_argv[n_args++] = (char *) "--align";
		exec_argv[n_args++] = align;
	}
	if (frame_budget) {
		exec_argv[n_args++] = (char *) "--frame-budget";
		exec_argv[n_args++] = frame_budget;
	}
	if (is_live) {
		exec_argv[n_args++] = (char *) "--live";
		exec_argv[n_args++] = rest[0];
		exec_argv[n_args] = NULL;
		execv(viewer, exec_argv);
		fs_error(VIEW_COMMAND, "%s: %s", viewer, strerror(errno));
		return FS_EXIT_FAILURE;
	}
	exec_argv[n_args++] = rest ? rest[0] : NULL;
	execv(viewer, exec_argv);
	fs_error(VIEW_COMMAND, "%s: %s", viewer, strerror(errno));
	return FS_EXIT_FAILURE;
}
