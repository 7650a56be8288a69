/* SPDX-License-Identifier: MIT */
/*
 * FsvApplication: activation opens an empty window (which says how to record a trace), "open"
 * opens one window per trace folder given on the command line. Windows are not unique per
 * trace: comparing two recordings side by side is a normal thing to do.
 */
#include "fsv-config.h"

#include "fsv-application.h"

#include <errno.h>
#include <stdlib.h>

#include "fsa/report.h"
#include "fsv-align.h"
#include "fsv-compare.h"
#include "fsv-live.h"
#include "fsv-time.h"
#include "fsv-window-private.h"
#include "fsv-window.h"

struct _FsvApplication {
	GtkApplication parent_instance;

	/* --select-op ID, --at TIME: where the windows of the traces given start. */
	gboolean has_select_op, has_at;
	guint64 select_op;
	char *at;                /* as typed: each window reads it against its trace (fsv-time.h) */
	FsvOpenFlags open_flags; /* --no-cache */
	guint64 frame_budget_ns; /* --frame-budget TIME, 0 each display's vsync period */
	char *live_url;          /* --live URL: the window follows that live session */
	/* --compare NEW, --align BASE=NEW: the first trace's window shows NEW below it
	 * (fsv-compare.h). */
	char *compare_path;
	char *align;
};

G_DEFINE_FINAL_TYPE(FsvApplication, fsv_application, GTK_TYPE_APPLICATION)

static void
fsv_application_activate(GApplication *app)
{
	GtkWindow *window = gtk_application_get_active_window(GTK_APPLICATION(app));

	if (window == NULL) {
		window = GTK_WINDOW(fsv_window_new(GTK_APPLICATION(app)));
		fsv_window_set_open_flags(FSV_WINDOW(window), FSV_APPLICATION(app)->open_flags);
		fsv_window_set_frame_budget(FSV_WINDOW(window),
					    FSV_APPLICATION(app)->frame_budget_ns);
		if (FSV_APPLICATION(app)->live_url)
			fsv_window_follow_live(FSV_WINDOW(window), FSV_APPLICATION(app)->live_url);
		else if (FSV_APPLICATION(app)->compare_path)
			_fsv_window_show_error(FSV_WINDOW(window),
					       "--compare shows NEW below a trace: give the TRACE "
					       "to compare it with");
	}
	gtk_window_present(window);
}

static void
fsv_application_open(GApplication *app, GFile **files, gint n_files, const gchar *hint)
{
	(void) hint;
	for (gint i = 0; i < n_files; i++) {
		FsvApplication *self = FSV_APPLICATION(app);
		FsvWindow *window = fsv_window_new(GTK_APPLICATION(app));

		fsv_window_set_start(window, self->has_select_op, self->select_op,
				     self->has_at ? self->at : NULL);
		fsv_window_set_open_flags(window, FSV_APPLICATION(app)->open_flags);
		fsv_window_set_frame_budget(window, self->frame_budget_ns);
		fsv_window_open(window, files[i]);
		/* --compare: NEW loads beside the first trace at once, and is shown below it. */
		if (i == 0 && self->compare_path) {
			g_autoptr(GFile) compared =
			    g_file_new_for_commandline_arg(self->compare_path);

			fsv_window_compare(window, compared, self->align);
		}
		gtk_window_present(GTK_WINDOW(window));
	}
}

static void
quit_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	(void) action;
	(void) parameter;
	g_application_quit(G_APPLICATION(user_data));
}

static void
about_activated(GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
	static const char *authors[] = {"The fencescope authors", NULL};
	GtkWindow *parent = gtk_application_get_active_window(GTK_APPLICATION(user_data));

	(void) action;
	(void) parameter;
	gtk_show_about_dialog(parent, "program-name", "fencescope viewer", "logo-icon-name",
			      FSV_APPLICATION_ID, "version", FSV_VERSION, "comments",
			      "GPU fence waits, signals, packets and lost data on a timeline",
			      "license-type", GTK_LICENSE_MIT_X11, "authors", authors, NULL);
}

static void
fsv_application_startup(GApplication *app)
{
	static const GActionEntry entries[] = {
	    {.name = "quit", .activate = quit_activated},
	    {.name = "about", .activate = about_activated},
	};
	static const char *quit_accels[] = {"<Control>q", NULL};
	static const char *open_accels[] = {"<Control>o", NULL};
	static const char *find_accels[] = {"<Control>f", NULL};
	static const char *close_accels[] = {"<Control>w", NULL};
	static const char *goto_accels[] = {"<Control>g", NULL};
	static const char *table_accels[] = {"<Control>t", NULL};
	static const char *busy_accels[] = {"<Control><Shift>b", NULL};
	static const char *depth_accels[] = {"<Control><Shift>d", NULL};
	static const char *align_accels[] = {"<Control>l", NULL};

	G_APPLICATION_CLASS(fsv_application_parent_class)->startup(app);
	g_action_map_add_action_entries(G_ACTION_MAP(app), entries, G_N_ELEMENTS(entries), app);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "app.quit", quit_accels);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.open", open_accels);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.close", close_accels);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.find", find_accels);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.go-to-time", goto_accels);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.show-table", table_accels);
	/* Issue 15 §4: counter rows on and off. */
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.show-busy", busy_accels);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.show-depth", depth_accels);
	/* Comparing two traces: align the selected operation of each. */
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.align-here", align_accels);
	/* Single letters (W A S D F Z M L B) are the timeline's own shortcuts, active only while it
	 * has the focus, so typing them in the search entry never zooms. */
	gtk_window_set_default_icon_name(FSV_APPLICATION_ID);
}

/* Decimal digits only: an op id as `fencescope report` prints it. */
static gboolean
parse_op_id(const char *text, guint64 *id)
{
	char *end = NULL;

	if (!g_ascii_isdigit(text[0]))
		return FALSE;
	errno = 0;
	*id = g_ascii_strtoull(text, &end, 10);
	return errno == 0 && end && *end == '\0';
}

/* --select-op and --at are checked here, before anything opens: a bad value is one line on
 * stderr and exit status 2, as every fencescope command does. */
static int
fsv_application_handle_local_options(GApplication *app, GVariantDict *options)
{
	FsvApplication *self = FSV_APPLICATION(app);
	const char *text = NULL;

	if (g_variant_dict_lookup(options, "select-op", "&s", &text)) {
		if (!parse_op_id(text, &self->select_op)) {
			g_printerr(
			    "fencescope-view: --select-op %s: not an op id (a decimal number, "
			    "as fencescope report prints it)\n",
			    text);
			return 2;
		}
		self->has_select_op = TRUE;
	}
	/* The parser of go to time (fsv-time.h): here only whether it is a time; whether the
	 * trace has it is said in the window. */
	if (g_variant_dict_lookup(options, "at", "&s", &text)) {
		g_autoptr(GError) error = NULL;
		FsvTypedTime time;

		if (!fsv_time_parse(text, &time, &error)) {
			g_printerr("fencescope-view: --at: %s\n", error->message);
			return 2;
		}
		g_free(self->at);
		self->at = g_strdup(text);
		self->has_at = TRUE;
	}
	/* --live URL: a live session's URL (net://…), read as it records (docs/viewer.md "Live").
	 */
	if (g_variant_dict_lookup(options, "live", "&s", &text)) {
		if (!g_str_has_prefix(text, "net://") && !g_str_has_prefix(text, "net4://") &&
		    !g_str_has_prefix(text, "net6://")) {
			g_printerr("fencescope-view: --live %s: not a live session's URL "
				   "(net://RELAYHOST/host/HOSTNAME/SESSION)\n",
				   text);
			return 2;
		}
		g_free(self->live_url);
		self->live_url = g_strdup(text);
	}
	/* --compare NEW [--align BASE=NEW] (docs/viewer.md "Comparing two traces"): checked here,
	 * as --at is; whether the traces have those points is said in the window. */
	if (g_variant_dict_lookup(options, "compare", "^&ay", &text)) {
		if (!g_file_test(text, G_FILE_TEST_EXISTS)) {
			g_printerr("fencescope-view: --compare %s: no such file or folder\n", text);
			return 2;
		}
		g_free(self->compare_path);
		self->compare_path = g_strdup(text);
	}
	if (g_variant_dict_lookup(options, "align", "&s", &text)) {
		g_autoptr(GError) error = NULL;
		FsvAlignSpec spec;

		if (self->compare_path == NULL) {
			g_printerr(
			    "fencescope-view: --align places the trace --compare names: give "
			    "--compare NEW\n");
			return 2;
		}
		if (!fsv_align_parse(text, &spec, &error)) {
			g_printerr("fencescope-view: --align: %s\n", error->message);
			return 2;
		}
		fsv_align_spec_clear(&spec);
		g_free(self->align);
		self->align = g_strdup(text);
	}
	if (self->compare_path && self->live_url) {
		g_printerr("fencescope-view: --compare compares traces on disk, not a --live "
			   "session\n");
		return 2;
	}
	/* --frame-budget TIME: the report's option, parsed by the report's code. */
	if (g_variant_dict_lookup(options, "frame-budget", "&s", &text)) {
		char *why = NULL;

		if (fsa_report_parse_frame_budget(text, &self->frame_budget_ns, &why) != FSA_OK) {
			g_printerr("fencescope-view: --frame-budget %s: %s\n", text,
				   why ? why : "invalid");
			free(why);
			return 2;
		}
	}
	/* --no-cache: every window of this run builds its indexes again (docs/user-guide.md). */
	if (g_variant_dict_contains(options, "no-cache"))
		self->open_flags |= FSV_OPEN_NO_CACHE;
	return -1;
}

static void
fsv_application_finalize(GObject *object)
{
	g_free(FSV_APPLICATION(object)->live_url);
	g_free(FSV_APPLICATION(object)->compare_path);
	g_free(FSV_APPLICATION(object)->align);
	g_free(FSV_APPLICATION(object)->at);
	G_OBJECT_CLASS(fsv_application_parent_class)->finalize(object);
}

static void
fsv_application_class_init(FsvApplicationClass *klass)
{
	GApplicationClass *app_class = G_APPLICATION_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = fsv_application_finalize;
	app_class->handle_local_options = fsv_application_handle_local_options;
	app_class->activate = fsv_application_activate;
	app_class->open = fsv_application_open;
	app_class->startup = fsv_application_startup;
}

static void
fsv_application_init(FsvApplication *self)
{
	g_application_add_main_option(G_APPLICATION(self), "select-op", 0, G_OPTION_FLAG_NONE,
				      G_OPTION_ARG_STRING,
				      "Select the operation with this op id (as fencescope report "
				      "prints it) and zoom to it",
				      "ID");
	g_application_add_main_option(G_APPLICATION(self), "at", 0, G_OPTION_FLAG_NONE,
				      G_OPTION_ARG_STRING,
				      "Centre the timeline on TIME: a trace time as fencescope "
				      "report prints it (ns, or 1795455649.5 s), or +DURATION from "
				      "the trace's start (+1.5ms)",
				      "TIME");
	g_application_add_main_option(
	    G_APPLICATION(self), "frame-budget", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_STRING,
	    "Frames: a frame over TIME is over budget, as fencescope "
	    "report --frame-budget grades it (default: the display's vsync "
	    "period)",
	    "TIME");
	g_application_add_main_option(G_APPLICATION(self), "no-cache", 0, G_OPTION_FLAG_NONE,
				      G_OPTION_ARG_NONE,
				      "Build the trace's index again, without reading or writing "
				      "the index cache",
				      NULL);
	g_application_add_main_option(G_APPLICATION(self), "live", 0, G_OPTION_FLAG_NONE,
				      G_OPTION_ARG_STRING,
				      "Follow the live session at URL as it records "
				      "(net://RELAYHOST/host/HOSTNAME/SESSION)",
				      "URL");
	g_application_add_main_option(G_APPLICATION(self), "compare", 0, G_OPTION_FLAG_NONE,
				      G_OPTION_ARG_FILENAME,
				      "Show the trace NEW below the first TRACE, on one time axis "
				      "(yesterday's build against today's)",
				      "NEW");
	g_application_add_main_option(
	    G_APPLICATION(self), "align", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_STRING,
	    "With --compare: draw BASE_TIME of TRACE and NEW_TIME of NEW at "
	    "the same x (times as --at takes them, op:ID or frame:N); default: the "
	    "trace starts",
	    "BASE_TIME=NEW_TIME");
	g_application_set_option_context_parameter_string(G_APPLICATION(self), "[TRACE…]");
}

FsvApplication *
fsv_application_new(void)
{
	return g_object_new(FSV_TYPE_APPLICATION, "application-id", FSV_APPLICATION_ID, "flags",
			    G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
			    "resource-base-path", "/org/fencescope/Viewer", NULL);
}
