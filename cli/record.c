/* SPDX-License-Identifier: MIT */
/*
 * `fencescope record`: records a scenario or any command in a real LTTng session, perf-style.
 * It talks to lttng-sessiond through liblttng-ctl (never through the `lttng` command), starts
 * the session daemon itself when none is reachable (with a private LTTNG_HOME when not root)
 * and, for live sessions, a relay daemon; it stops exactly the daemons it started, and
 * destroys its session whatever happens: program crash, Ctrl-C, SIGTERM or a failed step. It
 * prints where the trace is on stdout and the tracer's discarded-event count on stderr. At the
 * end it opens the trace and reads up to its first fencescope event: a trace that cannot be
 * read (its file system filled up) or that holds no event fails; the analysis itself is
 * `fencescope report`'s business.
 *
 * What it starts ends with it, also when `record` itself is killed (kill -9): a small watchdog
 * process, forked first, learns the pids of the program and of the daemons `record` started
 * and the session's name through a pipe; if the pipe closes before `record` said it is done,
 * the watchdog ends the program, destroys the session (the trace so far is kept) and stops
 * those daemons. As root, where every recording shares the one root session daemon, a lock
 * (/var/run/lttng/fencescope-record.lock) lets one `record` at a time use it; a second one
 * refuses with the first one's pid, so that neither stops the daemon under the other. Sim-clock
 * recordings of one user share the sim clock word, and take a lock next to it likewise.
 *
 * Signals are blocked for the whole command and taken synchronously (sigtimedwait) rather
 * than by asynchronous handlers: an interruption then never lands in the middle of a
 * liblttng-ctl call, and the clean-up runs in ordinary context with the ordinary API.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <lttng/lttng.h>

#include <fencescope/scenario.h>

#include "fsa/ingest.h"

#include "cli.h"

#define RECORD_COMMAND "record"
#define CHANNEL_NAME   "fencescope"
#define EVENT_PATTERN  "fencescope_*"
/*
 * 8 sub-buffers of 4 MiB per CPU: the built-in scenarios emit their events from few threads
 * in bursts, and this holds the largest burst with room to spare, so that nothing is lost.
 */
#define DEFAULT_SUBBUF_SIZE   (UINT64_C(4) << 20)
#define SUBBUF_COUNT          8
#define MIN_SUBBUF_SIZE       UINT64_C(4096)
#define LIVE_TIMER_US         1000000ULL
#define DEFAULT_OUTPUT_FORMAT "fencescope-trace-%Y%m%d-%H%M%S"
#define PRIVATE_DIR_TEMPLATE  "fencescope-XXXXXX"
#define EMPTY_LOAD_DIR_NAME   "no-sessions"
#define ROOT_SESSIOND_PID     "/var/run/lttng/lttng-sessiond.pid"
#define USER_SESSIOND_PID     ".lttng/lttng-sessiond.pid"
/* The relay daemon we start listens on the default ports, on the loopback interface only. */
#define LOCAL_RELAYD_URL  "net://localhost"
#define LOCAL_CONTROL_ARG "--control-port=tcp://localhost:5342"
#define LOCAL_DATA_ARG    "--data-port=tcp://localhost:5343"
#define LOCAL_LIVE_ARG    "--live-port=tcp://localhost:5344"
#define LOCAL_LIVE_PORT   5344
/* How long the relay daemon we started outlives a destroyed live session for its readers. */
#define LIVE_READERS_MS  30000
#define WAIT_TICK_MS     100
#define PROGRAM_GRACE_MS 5000
#define DAEMON_TERM_MS   10000
#define DAEMON_KILL_MS   5000
#define EXIT_INTERRUPTED 130
/* The program fired no fencescope event: nothing was recorded. */
#define EXIT_NOTHING_RECORDED 3
#define ROOT_LOCK_PATH        "/var/run/lttng/fencescope-record.lock"
#define SIM_LOCK_FORMAT       "/dev/shm/fencescope-sim-clock-%u.lock"
#define WATCHDOG_PROGRAM_MS   2000

typedef enum {
	/* Bad usage or input: exit status 2. */
	FS_RECORD_ERROR_USAGE,
	/* Anything else that went wrong: exit status 1. */
	FS_RECORD_ERROR_FAILED,
	/* SIGINT, SIGTERM or SIGHUP: the recording was cut short on purpose (exit status 130). */
	FS_RECORD_ERROR_INTERRUPTED,
	/* The trace could not be written whole (a full file system): exit status 4. */
	FS_RECORD_ERROR_INCOMPLETE,
	/* The program fired no fencescope event: exit status 3. */
	FS_RECORD_ERROR_NOTHING_RECORDED,
} FsRecordError;

#define FS_RECORD_ERROR fs_record_error_quark()

static GQuark
fs_record_error_quark(void)
{
	return g_quark_from_static_string("fs-record-error-quark");
}

typedef struct lttng_session_descriptor FsLttngSessionDescriptor;
typedef struct lttng_handle FsLttngHandle;
typedef struct lttng_channel FsLttngChannel;
typedef struct lttng_event FsLttngEvent;
typedef struct lttng_destruction_handle FsLttngDestructionHandle;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsLttngSessionDescriptor, lttng_session_descriptor_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsLttngHandle, lttng_destroy_handle)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsLttngChannel, lttng_channel_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsLttngEvent, lttng_event_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsLttngDestructionHandle, lttng_destruction_handle_destroy)

/* The command line, as GOptionContext fills it, and what is derived from it. */
typedef struct {
	char *output_dir;
	gboolean is_snapshot;
	gboolean is_live;
	char *relayd_url;
	char *subbuf_size_text;
	char *read_timer_text;
	char *loglevel_text;
	char *clock;
	char *seed;
	char *scale;
	char *interleave_seed;
	char **faults;
	char *fault_seed;
	gboolean fail_on_loss;
	/* Derived: sub-buffer size in bytes, loglevel (-1: all), the command to trace. */
	uint64_t subbuf_size;
	guint64 read_timer_us; /* 0: the tracer wakes the consumer at each full sub-buffer */
	int loglevel;
	char **command;
	/* What is recorded, for progress messages: "scenario NAME" or the program. */
	char *label;
	/* A sim-mode scenario: its events carry virtual time through the sim clock plugin. */
	gboolean uses_sim_clock;
} RecordOptions;

/* The state of one recording: what exists and must be undone. */
typedef struct {
	RecordOptions options;
	gboolean show_progress;
	char *session_name;
	/* Absolute; NULL when a remote relay daemon writes the trace. */
	char *output_dir;
	gboolean has_created_output_dir;
	/* Where the daemons we start keep their state; LTTNG_HOME too when not root. */
	char *private_dir;
	pid_t sessiond_pid;
	pid_t relayd_pid;
	/* The relay daemon's control URL, or NULL for a local session. */
	char *relayd_url;
	gboolean has_session;
	gboolean is_started;
	GPid program_pid;
	/* SIGINT, SIGTERM or SIGHUP once received, else 0. */
	int interrupt_signal;
	gboolean has_discarded_count;
	uint64_t discarded_events;
	/* A trace was written: its path (or relay daemon URL) is printed at the end. */
	gboolean has_trace;
	/* The write end of the watchdog's pipe, and the watchdog; -1 when there is none. */
	int watchdog_fd;
	pid_t watchdog_pid;
	/* Held (flock) while a root `record` uses the root session daemon, and while a sim-clock
	 * recording uses the user's sim clock word; -1 otherwise. */
	int root_lock_fd;
	int sim_lock_fd;
} Recorder;

static void
record_options_clear(RecordOptions *o)
{
	g_clear_pointer(&o->output_dir, g_free);
	g_clear_pointer(&o->relayd_url, g_free);
	g_clear_pointer(&o->subbuf_size_text, g_free);
	g_clear_pointer(&o->read_timer_text, g_free);
	g_clear_pointer(&o->loglevel_text, g_free);
	g_clear_pointer(&o->clock, g_free);
	g_clear_pointer(&o->seed, g_free);
	g_clear_pointer(&o->scale, g_free);
	g_clear_pointer(&o->interleave_seed, g_free);
	g_clear_pointer(&o->faults, g_strfreev);
	g_clear_pointer(&o->fault_seed, g_free);
	g_clear_pointer(&o->command, g_strfreev);
	g_clear_pointer(&o->label, g_free);
}

static void
recorder_clear(Recorder *r)
{
	record_options_clear(&r->options);
	g_clear_pointer(&r->session_name, g_free);
	g_clear_pointer(&r->output_dir, g_free);
	g_clear_pointer(&r->private_dir, g_free);
	g_clear_pointer(&r->relayd_url, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Recorder, recorder_clear)

static void recorder_progress(const Recorder *r, const char *format, ...) G_GNUC_PRINTF(2, 3);

static void
recorder_progress(const Recorder *r, const char *format, ...)
{
	va_list args;

	if (!r->show_progress)
		return;
	fprintf(stderr, "fencescope " RECORD_COMMAND ": ");
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
}

static gboolean fail(GError **error, FsRecordError code, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

/* Sets *error and returns FALSE, so that a failing step reads `return fail(...)`. */
static gboolean
fail(GError **error, FsRecordError code, const char *format, ...)
{
	va_list args;
	g_autofree char *message = NULL;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error_literal(error, FS_RECORD_ERROR, code, message);
	return FALSE;
}

/* liblttng-ctl returns negative error codes from some calls, enum values from others. */
static gboolean
fail_lttng(GError **error, int lttng_status, const char *what)
{
	return fail(error, FS_RECORD_ERROR_FAILED, "%s: %s", what,
		    lttng_strerror(lttng_status < 0 ? lttng_status : -lttng_status));
}

/* Keeps the first error of a sequence: later ones are mostly its consequences. */
static void
keep_first_error(GError **first, GError *error)
{
	if (!error)
		return;
	if (*first)
		g_error_free(error);
	else
		g_propagate_error(first, error);
}

/* ---------------------------------------------------------------------------------------- */
/* Options */

/* Parses "4M", "512k", "1G" or a byte count: a power of two of at least a page. */
static gboolean
parse_subbuf_size(const char *text, uint64_t *size, GError **error)
{
	static const char units[] = "kKmMgG";
	char *end = NULL;
	guint64 value = g_ascii_strtoull(text, &end, 10);
	unsigned int shift = 0;

	if (end != text && *end && !end[1] && strchr(units, *end)) {
		shift = 10 * (unsigned int) (1 + (strchr(units, *end) - units) / 2);
		end++;
	}
	if (!g_ascii_isdigit(text[0]) || *end || value == 0 || value > (G_MAXUINT64 >> shift) ||
	    ((value << shift) & ((value << shift) - 1)) || (value << shift) < MIN_SUBBUF_SIZE)
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "--subbuf-size %s: expected a power of two of at least 4k, such as "
			    "256k, 4M or 1G",
			    text);
	*size = value << shift;
	return TRUE;
}

/* LTTng-UST log levels, most severe first; --loglevel L records L and everything above. */
static const char *const loglevel_names[] = {
    "EMERG",        "ALERT",      "CRIT",           "ERR",           "WARNING",
    "NOTICE",       "INFO",       "DEBUG_SYSTEM",   "DEBUG_PROGRAM", "DEBUG_PROCESS",
    "DEBUG_MODULE", "DEBUG_UNIT", "DEBUG_FUNCTION", "DEBUG_LINE",    "DEBUG",
};

static gboolean
parse_loglevel(const char *text, int *loglevel, GError **error)
{
	const char *name = g_ascii_strncasecmp(text, "TRACE_", 6) ? text : text + 6;
	guint64 number;

	for (size_t i = 0; i < G_N_ELEMENTS(loglevel_names); i++) {
		if (!g_ascii_strcasecmp(name, loglevel_names[i])) {
			*loglevel = (int) i;
			return TRUE;
		}
	}
	if (g_ascii_string_to_unsigned(text, 10, 0, G_N_ELEMENTS(loglevel_names) - 1, &number,
				       NULL)) {
		*loglevel = (int) number;
		return TRUE;
	}
	return fail(error, FS_RECORD_ERROR_USAGE,
		    "--loglevel %s: expected an LTTng-UST log level (EMERG ... DEBUG, or 0 ... 14)",
		    text);
}

static gboolean
check_unsigned_option(const char *name, const char *text, GError **error)
{
	if (!text || g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64, NULL, NULL))
		return TRUE;
	return fail(error, FS_RECORD_ERROR_USAGE, "%s %s: expected an unsigned integer", name,
		    text);
}

/* A scenario must be a scenario file that loads or a built-in name, checked before recording. */
static gboolean
check_scenario(const char *scenario, GError **error)
{
	struct fsr_scenario *file = NULL;
	g_autofree char *message = NULL;

	if (!g_file_test(scenario, G_FILE_TEST_EXISTS)) {
		if (fsr_scenario_find_builtin(scenario))
			return TRUE;
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "'%s' is neither a built-in scenario nor a file "
			    "('fencescope run --list' lists the scenarios)",
			    scenario);
	}
	if (fsr_scenario_file_load(scenario, &file, &message) != FSR_OK)
		return fail(error, FS_RECORD_ERROR_USAGE, "%s", message ? message : scenario);
	fsr_scenario_file_free(file);
	return TRUE;
}

/* The traced command for a scenario: `fencescope run [--clock C] [--seed N] [--scale N] S`. */
static gboolean
options_set_scenario_command(RecordOptions *o, const char *scenario, GError **error)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();

	if (!check_unsigned_option("--seed", o->seed, error) ||
	    !check_unsigned_option("--scale", o->scale, error) ||
	    !check_unsigned_option("--interleave-seed", o->interleave_seed, error) ||
	    !check_unsigned_option("--fault-seed", o->fault_seed, error) ||
	    !check_scenario(scenario, error))
		return FALSE;
	if (o->clock && strcmp(o->clock, "sim") && strcmp(o->clock, "realtime"))
		return fail(error, FS_RECORD_ERROR_USAGE, "--clock %s: expected sim or realtime",
			    o->clock);
	g_strv_builder_add_many(builder, fs_self_path(), "run", NULL);
	if (o->clock)
		g_strv_builder_add_many(builder, "--clock", o->clock, NULL);
	if (o->seed)
		g_strv_builder_add_many(builder, "--seed", o->seed, NULL);
	if (o->scale)
		g_strv_builder_add_many(builder, "--scale", o->scale, NULL);
	if (o->interleave_seed)
		g_strv_builder_add_many(builder, "--interleave-seed", o->interleave_seed, NULL);
	for (guint i = 0; o->faults && o->faults[i]; i++)
		g_strv_builder_add_many(builder, "--fault", o->faults[i], NULL);
	if (o->fault_seed)
		g_strv_builder_add_many(builder, "--fault-seed", o->fault_seed, NULL);
	g_strv_builder_add(builder, scenario);
	o->command = g_strv_builder_end(builder);
	o->label = g_strdup_printf("scenario %s", scenario);
	o->uses_sim_clock = !o->clock || strcmp(o->clock, "sim") == 0;
	return TRUE;
}

/*
 * The sim clock plugin next to this executable: in the build tree, runtime/ beside cli/;
 * installed, LIBDIR/fencescope/. NULL if neither exists.
 */
static char *
dup_sim_clock_plugin_path(void)
{
	g_autofree char *bin_dir = g_path_get_dirname(fs_self_path());
	g_autofree char *in_build =
	    g_build_filename(bin_dir, "..", "runtime", "libfencescope-sim-clock.so", NULL);

	if (g_file_test(in_build, G_FILE_TEST_EXISTS))
		return g_steal_pointer(&in_build);
	if (g_file_test(FS_SIM_CLOCK_PLUGIN, G_FILE_TEST_EXISTS))
		return g_strdup(FS_SIM_CLOCK_PLUGIN);
	return NULL;
}

/* The traced command after `--`: checked here so that a typo starts no daemon. */
static gboolean
options_set_command(RecordOptions *o, char **command, GError **error)
{
	g_autofree char *path = NULL;

	if (!command[0] || !command[0][0])
		return fail(error, FS_RECORD_ERROR_USAGE, "missing command after '--'");
	if (o->seed || o->scale || o->interleave_seed || o->faults || o->fault_seed)
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "--seed, --scale, --interleave-seed, --fault and --fault-seed apply to "
			    "a scenario, not to a command");
	if (o->clock && strcmp(o->clock, "sim") && strcmp(o->clock, "realtime"))
		return fail(error, FS_RECORD_ERROR_USAGE, "--clock %s: expected sim or realtime",
			    o->clock);
	/* The program learns the clock from FENCESCOPE_CLOCK (recorder_spawn_program). */
	o->uses_sim_clock = o->clock && strcmp(o->clock, "sim") == 0;
	path = g_find_program_in_path(command[0]);
	if (!path)
		return fail(error, FS_RECORD_ERROR_USAGE, "cannot execute %s: no such program%s",
			    command[0], strchr(command[0], '/') ? "" : " in PATH");
	o->command = g_strdupv(command);
	o->label = g_strdup(command[0]);
	return TRUE;
}

static gboolean
options_check_modes(RecordOptions *o, GError **error)
{
	if (o->is_live && o->is_snapshot)
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "--live and --snapshot cannot be combined");
	if (o->relayd_url && o->output_dir)
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "-o does not apply with --relayd: the relay daemon chooses where "
			    "it writes");
	if (o->relayd_url && !g_str_has_prefix(o->relayd_url, "net://") &&
	    !g_str_has_prefix(o->relayd_url, "net6://"))
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "--relayd %s: expected net://HOST[:CONTROL_PORT[:DATA_PORT]]",
			    o->relayd_url);
	if (o->subbuf_size_text && !parse_subbuf_size(o->subbuf_size_text, &o->subbuf_size, error))
		return FALSE;
	if (o->read_timer_text && !g_ascii_string_to_unsigned(o->read_timer_text, 10, 0, G_MAXUINT,
							      &o->read_timer_us, NULL))
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "--read-timer %s: expected microseconds, such as 20000 (0: none)",
			    o->read_timer_text);
	return !o->loglevel_text || parse_loglevel(o->loglevel_text, &o->loglevel, error);
}

static GOptionContext *
options_new_context(RecordOptions *o)
{
	const GOptionEntry entries[] = {
	    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output_dir,
	     "Write the trace to DIR (new or empty; default ./fencescope-trace-DATE-TIME)", "DIR"},
	    {"snapshot", 0, 0, G_OPTION_ARG_NONE, &o->is_snapshot,
	     "Flight recorder: keep the latest events in memory, write them at the end or on "
	     "SIGUSR1",
	     NULL},
	    {"live", 0, 0, G_OPTION_ARG_NONE, &o->is_live,
	     "Stream through a relay daemon that readers can follow while recording", NULL},
	    {"relayd", 0, 0, G_OPTION_ARG_STRING, &o->relayd_url,
	     "Stream to the relay daemon at URL (net://HOST[:CTRL[:DATA]]) instead of starting "
	     "one",
	     "URL"},
	    {"subbuf-size", 0, 0, G_OPTION_ARG_STRING, &o->subbuf_size_text,
	     "Size of each of the 8 sub-buffers per CPU (default 4M)", "SIZE"},
	    {"read-timer", 0, 0, G_OPTION_ARG_STRING, &o->read_timer_text,
	     "Let the consumer drain the buffers every USEC microseconds instead of at each full "
	     "sub-buffer (default 0: at each)",
	     "USEC"},
	    {"loglevel", 0, 0, G_OPTION_ARG_STRING, &o->loglevel_text,
	     "Record only events at LEVEL or more severe (LTTng-UST levels, EMERG ... DEBUG)",
	     "LEVEL"},
	    {"clock", 0, 0, G_OPTION_ARG_STRING, &o->clock,
	     "Clock: sim (virtual time) or realtime; a command gets it in FENCESCOPE_CLOCK "
	     "(default realtime)",
	     "sim|realtime"},
	    {"seed", 0, 0, G_OPTION_ARG_STRING, &o->seed, "Scenario random seed", "N"},
	    {"scale", 0, 0, G_OPTION_ARG_STRING, &o->scale, "Scenario size (rounds or frames)",
	     "N"},
	    {"interleave-seed", 0, 0, G_OPTION_ARG_STRING, &o->interleave_seed,
	     "Sim clock: interleave the GPU and the OS at every shared word, from seed N", "N"},
	    {"fault", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->faults,
	     "Sim clock: inject a fault into the scenario (fencescope run --fault; repeatable)",
	     "SPEC"},
	    {"fault-seed", 0, 0, G_OPTION_ARG_STRING, &o->fault_seed,
	     "Sim clock: random faults every workload survives, from seed N (fencescope run)", "N"},
	    {"fail-on-loss", 0, 0, G_OPTION_ARG_NONE, &o->fail_on_loss,
	     "Exit with status 1 when the tracer discarded events", NULL},
	    G_OPTION_ENTRY_NULL,
	};
	GOptionContext *context = g_option_context_new("(SCENARIO|FILE | -- CMD [ARGS...])");

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	    context, "Record a scenario, or any program, in a real LTTng session: starts "
		     "lttng-sessiond when none is running,\nenables the fencescope_* events, "
		     "runs the program, stops and destroys the session, and prints where\nthe "
		     "trace is on stdout (its last line) and the discarded-event count on stderr.");
	g_option_context_set_description(
	    context, "Exit status: 0 recorded, 1 failure (also when the program failed), 2 bad "
		     "usage, 3 nothing recorded\n(no fencescope event), 4 the trace is incomplete "
		     "(full file system), 130 interrupted.\nSee docs/recording.md.");
	return context;
}

/* Splits argv at the first "--": options and SCENARIO before it, the command after it. */
static gboolean
record_options_parse(RecordOptions *o, int argc, char **argv, GError **error)
{
	g_autoptr(GOptionContext) context = options_new_context(o);
	int split = 1;
	int rest_count;
	g_autofree char **rest = NULL;
	g_autoptr(GError) parse_error = NULL;

	while (split < argc && strcmp(argv[split], "--"))
		split++;
	rest_count = split;
	rest = g_new0(char *, split + 1);
	memcpy(rest, argv, sizeof(char *) * (size_t) split);
	o->subbuf_size = DEFAULT_SUBBUF_SIZE;
	o->loglevel = -1;
	g_set_prgname("fencescope " RECORD_COMMAND);
	if (!g_option_context_parse(context, &rest_count, &rest, &parse_error))
		return fail(error, FS_RECORD_ERROR_USAGE, "%s", parse_error->message);
	if (!options_check_modes(o, error))
		return FALSE;
	if (split < argc && rest_count == 1)
		return options_set_command(o, argv + split + 1, error);
	if (split == argc && rest_count == 2)
		return options_set_scenario_command(o, rest[1], error);
	return fail(error, FS_RECORD_ERROR_USAGE, "%s; see '%s --help'",
		    rest_count == 1 ? "missing SCENARIO, FILE or -- CMD"
				    : "expected one SCENARIO or FILE, or -- CMD",
		    g_get_prgname());
}

/* ---------------------------------------------------------------------------------------- */
/* Files and processes */

static gboolean
dir_is_empty(const char *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);

	return !dir || !g_dir_read_name(dir);
}

/* The names in a directory, to tell the entry that a snapshot adds. */
static GHashTable *
list_dir(const char *path)
{
	GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir)))
		g_hash_table_add(names, g_strdup(name));
	return names;
}

/* The path of an entry of dir that is not in old (any entry when old is NULL), or NULL. */
static char *
dup_new_entry(const char *path, GHashTable *old)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir))) {
		if (!old || !g_hash_table_contains(old, name))
			return g_build_filename(path, name, NULL);
	}
	return NULL;
}

/* A CTF trace is at or below path: some directory holds a `metadata` file. */
static gboolean
dir_has_trace(const char *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir))) {
		g_autofree char *child = g_build_filename(path, name, NULL);

		if (g_file_test(child, G_FILE_TEST_IS_SYMLINK))
			continue;
		if (!strcmp(name, "metadata") && g_file_test(child, G_FILE_TEST_IS_REGULAR))
			return TRUE;
		if (g_file_test(child, G_FILE_TEST_IS_DIR) && dir_has_trace(child))
			return TRUE;
	}
	return FALSE;
}

/* Removes path and the directories below it if they hold no file: a trace with no event. */
static void
remove_empty_dirs(const char *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir))) {
		g_autofree char *child = g_build_filename(path, name, NULL);

		if (!g_file_test(child, G_FILE_TEST_IS_SYMLINK) &&
		    g_file_test(child, G_FILE_TEST_IS_DIR))
			remove_empty_dirs(child);
	}
	g_rmdir(path);
}

static int
remove_tree_entry(const char *path, const struct stat *info, int type, struct FTW *walk)
{
	(void) info;
	(void) type;
	(void) walk;
	remove(path);
	return 0;
}

/* The new or empty directory the trace goes to; a non-empty one is bad usage. */
static gboolean
recorder_prepare_output_dir(Recorder *r, GError **error)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree char *name = NULL;

	if (r->options.relayd_url)
		return TRUE;
	name = r->options.output_dir ? g_strdup(r->options.output_dir)
				     : g_date_time_format(now, DEFAULT_OUTPUT_FORMAT);
	r->output_dir = g_canonicalize_filename(name, NULL);
	if (g_file_test(r->output_dir, G_FILE_TEST_EXISTS)) {
		if (g_file_test(r->output_dir, G_FILE_TEST_IS_DIR) && dir_is_empty(r->output_dir))
			return TRUE;
		return fail(error, FS_RECORD_ERROR_USAGE,
			    "output directory %s exists and is not an empty directory",
			    r->output_dir);
	}
	if (g_mkdir_with_parents(r->output_dir, 0755))
		return fail(error, FS_RECORD_ERROR_FAILED, "cannot create output directory %s: %s",
			    r->output_dir, g_strerror(errno));
	r->has_created_output_dir = TRUE;
	return TRUE;
}

static void
child_restore_signals(gpointer data)
{
	sigset_t none;

	(void) data;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* A daemon's launcher gets a session of its own: a Ctrl-C at the terminal is for us. */
static void
daemon_child_setup(gpointer data)
{
	child_restore_signals(data);
	setsid();
}

/* The last non-empty line of a daemon's error output, to quote it in one line. */
static char *
dup_last_line(const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);

	for (guint i = g_strv_length(lines); i > 0; i--) {
		g_strstrip(lines[i - 1]);
		if (lines[i - 1][0])
			return g_strdup(lines[i - 1]);
	}
	return NULL;
}

/*
 * Runs a daemon's launcher (`--daemonize`/`-d`), which exits once the daemon is ready. As we
 * are a child subreaper, the daemon then becomes our child, so that we can wait for it. A
 * daemon that fails says why on stderr, if at all, so hint is what to suggest otherwise.
 */
static gboolean
spawn_daemon(const char *const *argv, const char *hint, GError **error)
{
	g_autofree char *errors = NULL;
	g_autofree char *line = NULL;
	g_autoptr(GError) spawn_error = NULL;
	int wait_status = 0;

	if (!g_spawn_sync(NULL, (char **) argv, NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, daemon_child_setup,
			  NULL, NULL, &errors, &wait_status, &spawn_error))
		return fail(error, FS_RECORD_ERROR_FAILED, "cannot start %s: %s", argv[0],
			    spawn_error->message);
	if (g_spawn_check_wait_status(wait_status, &spawn_error))
		return TRUE;
	line = dup_last_line(errors);
	return fail(error, FS_RECORD_ERROR_FAILED, "%s did not start: %s%s", argv[0],
		    line ? line : spawn_error->message, line ? "" : hint);
}

/* A child of ours (we are a subreaper) whose command name is name, or -1. */
static pid_t
find_child_named(const char *name)
{
	g_autoptr(GDir) proc = g_dir_open("/proc", 0, NULL);
	const char *entry;

	while (proc && (entry = g_dir_read_name(proc))) {
		g_autofree char *path = g_build_filename("/proc", entry, "stat", NULL);
		g_autofree char *stat = NULL;
		const char *open;
		const char *close;
		long ppid = 0;

		if (!g_ascii_isdigit(entry[0]) || !g_file_get_contents(path, &stat, NULL, NULL))
			continue;
		open = strchr(stat, '(');
		close = strrchr(stat, ')');
		if (!open || !close || sscanf(close + 1, " %*c %ld", &ppid) != 1 ||
		    ppid != (long) getpid())
			continue;
		if ((size_t) (close - open - 1) == strlen(name) &&
		    !strncmp(open + 1, name, strlen(name)))
			return (pid_t) strtol(entry, NULL, 10);
	}
	return -1;
}

static gboolean
has_exited(pid_t pid)
{
	pid_t got = waitpid(pid, NULL, WNOHANG);

	/* Not our child after all (ECHILD): it is gone when it can no longer be signalled. */
	return got == pid || (got < 0 && errno == ECHILD && kill(pid, 0) && errno == ESRCH);
}

static gboolean
wait_for_exit(pid_t pid, int timeout_ms)
{
	for (int waited = 0; waited < timeout_ms; waited += WAIT_TICK_MS) {
		if (has_exited(pid))
			return TRUE;
		g_usleep(WAIT_TICK_MS * 1000);
	}
	return has_exited(pid);
}

/* Stops a daemon we started, and only it: SIGTERM, wait, SIGKILL as a last resort. */
static gboolean
stop_daemon(const char *name, pid_t *pid, GError **error)
{
	gboolean is_stopped;

	if (*pid <= 0)
		return TRUE;
	kill(*pid, SIGTERM);
	is_stopped = wait_for_exit(*pid, DAEMON_TERM_MS);
	if (!is_stopped) {
		kill(*pid, SIGKILL);
		is_stopped = wait_for_exit(*pid, DAEMON_KILL_MS);
	}
	if (!is_stopped)
		return fail(error, FS_RECORD_ERROR_FAILED, "%s (pid %ld) did not exit", name,
			    (long) *pid);
	*pid = -1;
	return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* The watchdog */

/* Whether pid still runs (for a process that is not, or no longer, our child). */
static gboolean
is_alive(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%ld/stat", (long) pid);
	g_autofree char *stat = NULL;
	const char *close;

	if (pid <= 0)
		return FALSE;
	waitpid(pid, NULL, WNOHANG); /* reaps it if it is our child */
	if (kill(pid, 0) != 0)
		return FALSE;
	/* A zombie that is not ours has ended: its new parent reaps it. */
	if (g_file_get_contents(path, &stat, NULL, NULL) && (close = strrchr(stat, ')')) &&
	    close[1] == ' ' && close[2] == 'Z')
		return FALSE;
	return TRUE;
}

/* SIGTERM, up to timeout_ms for it to end, then SIGKILL. */
static void
end_process(pid_t pid, int timeout_ms)
{
	if (pid <= 0 || !is_alive(pid))
		return;
	kill(pid, SIGTERM);
	for (int waited = 0; waited < timeout_ms && is_alive(pid); waited += 20)
		g_usleep(20 * 1000);
	if (is_alive(pid))
		kill(pid, SIGKILL);
}

/*
 * The watchdog's life: reads from fd "P pid" (the program), "S pid" / "R pid" (a session or
 * relay daemon `record` started), "N name" (the session), "H dir" (the LTTNG_HOME of a private
 * daemon) and "D" (done: `record` cleans up itself). When the pipe closes without "D",
 * `record` was killed: it ends the program, stops and destroys the session (what was recorded
 * is written), then stops the daemons.
 */
static _Noreturn void
watchdog_main(int fd)
{
	FILE *in = fdopen(fd, "r");
	char line[256];
	pid_t program = -1, sessiond = -1, relayd = -1;
	char session[200] = "";
	gboolean is_done = FALSE;
	int null_fd = open("/dev/null", O_RDWR);

	/* Holding record's stdout or stderr open would keep a reader of them waiting. */
	if (null_fd >= 0) {
		dup2(null_fd, STDIN_FILENO);
		dup2(null_fd, STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
	}
	while (in && fgets(line, sizeof(line), in)) {
		long pid = strtol(line + 1, NULL, 10);

		g_strchomp(line);
		if (line[0] == 'P')
			program = (pid_t) pid;
		else if (line[0] == 'S')
			sessiond = (pid_t) pid;
		else if (line[0] == 'R')
			relayd = (pid_t) pid;
		else if (line[0] == 'N' && line[1] == ' ')
			g_strlcpy(session, line + 2, sizeof(session));
		else if (line[0] == 'H' && line[1] == ' ')
			g_setenv("LTTNG_HOME", line + 2, TRUE);
		else if (line[0] == 'D')
			is_done = TRUE;
	}
	if (is_done)
		_exit(0);
	end_process(program, WATCHDOG_PROGRAM_MS);
	if (session[0]) {
		lttng_stop_tracing(session);
		lttng_destroy_session(session);
	}
	end_process(relayd, DAEMON_TERM_MS);
	end_process(sessiond, DAEMON_TERM_MS);
	_exit(0);
}

/* Forks the watchdog. Without one (fork failed), `record` still works, unguarded. */
static void
recorder_start_watchdog(Recorder *r)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		watchdog_main(fds[0]);
	}
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return;
	}
	r->watchdog_fd = fds[1];
	r->watchdog_pid = pid;
}

static void watchdog_tell(const Recorder *r, const char *format, ...) G_GNUC_PRINTF(2, 3);

static void
watchdog_tell(const Recorder *r, const char *format, ...)
{
	va_list args;

	if (r->watchdog_fd < 0)
		return;
	va_start(args, format);
	if (vdprintf(r->watchdog_fd, format, args) < 0) {
		/* A watchdog gone is no reason to stop recording. */
	}
	va_end(args);
}

/* `record` ends normally: the watchdog exits without touching anything. */
static void
recorder_stop_watchdog(Recorder *r)
{
	if (r->watchdog_fd < 0)
		return;
	watchdog_tell(r, "D\n");
	close(r->watchdog_fd);
	r->watchdog_fd = -1;
	waitpid(r->watchdog_pid, NULL, 0);
	r->watchdog_pid = -1;
}

/*
 * Takes an exclusive lock on PATH for as long as this process (and its watchdog) lives, and
 * writes our pid into it; *fd is the lock. When another process holds it, fails with WHY and
 * that process's pid ("another fencescope record (pid N) WHY").
 */
static gboolean
take_lock(const char *path, const char *why, int *fd, GError **error)
{
	g_autofree char *holder = NULL;
	char pid_text[32];
	int lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (lock_fd < 0)
		return fail(error, FS_RECORD_ERROR_FAILED, "cannot open %s: %s", path,
			    g_strerror(errno));
	if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
		close(lock_fd);
		g_file_get_contents(path, &holder, NULL, NULL);
		return fail(error, FS_RECORD_ERROR_FAILED, "another fencescope record (pid %s) %s",
			    holder && holder[0] ? g_strstrip(holder) : "unknown", why);
	}
	snprintf(pid_text, sizeof(pid_text), "%ld\n", (long) getpid());
	if (ftruncate(lock_fd, 0) != 0 || pwrite(lock_fd, pid_text, strlen(pid_text), 0) < 0) {
		/* The pid is only for the message of a second `record`. */
	}
	*fd = lock_fd;
	return TRUE;
}

/*
 * Two recordings must not share what would mix their events up (the locks are released when
 * the process and its watchdog end, also on kill -9):
 * - a sim-clock recording: every sim runtime and clock plugin of one user reads and advances
 *   the same clock word (/dev/shm/fencescope-sim-clock-UID), so two at once would stamp each
 *   other's events; one at a time per user (lock next to the word);
 * - as root, the one root session daemon (/var/run/lttng): the `record` that started it would
 *   stop it at its end under the other; one at a time.
 */
static gboolean
recorder_take_locks(Recorder *r, GError **error)
{
	g_autofree char *sim_lock = NULL;

	if (r->options.uses_sim_clock) {
		sim_lock = g_strdup_printf(SIM_LOCK_FORMAT, (unsigned int) getuid());
		if (!take_lock(sim_lock,
			       "is recording on the sim clock, which all sim recordings of a user "
			       "share; wait until it ends, or record with --clock realtime",
			       &r->sim_lock_fd, error))
			return FALSE;
	}
	if (geteuid() != 0)
		return TRUE;
	g_mkdir_with_parents("/var/run/lttng", 0755);
	return take_lock(ROOT_LOCK_PATH,
			 "is recording with the root session daemon; wait until it ends, or "
			 "record as a user other than root (each gets a session daemon of its own)",
			 &r->root_lock_fd, error);
}

/* ---------------------------------------------------------------------------------------- */
/* Daemons */

static gboolean
recorder_make_private_dir(Recorder *r, GError **error)
{
	g_autofree char *load_dir = NULL;
	g_autoptr(GError) tmp_error = NULL;

	r->private_dir = g_dir_make_tmp(PRIVATE_DIR_TEMPLATE, &tmp_error);
	if (!r->private_dir)
		return fail(error, FS_RECORD_ERROR_FAILED, "cannot create a private directory: %s",
			    tmp_error->message);
	load_dir = g_build_filename(r->private_dir, EMPTY_LOAD_DIR_NAME, NULL);
	if (g_mkdir(load_dir, 0700))
		return fail(error, FS_RECORD_ERROR_FAILED, "cannot create %s: %s", load_dir,
			    g_strerror(errno));
	return TRUE;
}

static pid_t
read_sessiond_pid(const Recorder *r)
{
	g_autofree char *path = geteuid() == 0
				    ? g_strdup(ROOT_SESSIOND_PID)
				    : g_build_filename(r->private_dir, USER_SESSIOND_PID, NULL);
	g_autofree char *text = NULL;
	guint64 pid = 0;

	if (g_file_get_contents(path, &text, NULL, NULL) &&
	    g_ascii_string_to_unsigned(g_strstrip(text), 10, 1, G_MAXINT, &pid, NULL))
		return (pid_t) pid;
	/* No readable pid file: it is still the one child of ours with that name. */
	return find_child_named("lttng-sessiond");
}

/*
 * Uses the session daemon that the client library reaches, or starts one. Not as root, the
 * daemon gets a private LTTNG_HOME, exported so that this process (liblttng-ctl) and the
 * traced program (lttng-ust) find it there and nowhere else. `--load` of an empty directory
 * keeps it from loading and starting the user's auto-load sessions.
 */
static gboolean
recorder_ensure_sessiond(Recorder *r, GError **error)
{
	g_autofree char *load_arg = NULL;

	if (lttng_session_daemon_alive() == 1) {
		/*
		 * The daemon's processes must load the sim clock plugin too, or their packet
		 * timestamps and the trace's clock would not match the events': without it, the
		 * recording keeps LTTng's clock.
		 */
		if (r->options.uses_sim_clock)
			g_printerr("fencescope record: a session daemon is already running: event "
				   "times are LTTng's clock, not the sim clock\n");
		r->options.uses_sim_clock = FALSE;
		return TRUE;
	}
	if (!recorder_make_private_dir(r, error))
		return FALSE;
	if (r->options.uses_sim_clock) {
		g_autofree char *plugin = dup_sim_clock_plugin_path();

		if (plugin)
			g_setenv("LTTNG_UST_CLOCK_PLUGIN", plugin,
				 TRUE); /* the daemons inherit it */
		else
			r->options.uses_sim_clock = FALSE;
	}
	if (geteuid() != 0) {
		g_setenv("LTTNG_HOME", r->private_dir, TRUE);
		watchdog_tell(r, "H %s\n", r->private_dir);
	}
	load_arg = g_strdup_printf("--load=%s/%s", r->private_dir, EMPTY_LOAD_DIR_NAME);
	recorder_progress(r, "starting lttng-sessiond");
	if (!spawn_daemon((const char *const[]){"lttng-sessiond", "--daemonize", "--no-kernel",
						load_arg, NULL},
			  "", error))
		return FALSE;
	r->sessiond_pid = read_sessiond_pid(r);
	watchdog_tell(r, "S %ld\n", (long) r->sessiond_pid);
	if (r->sessiond_pid <= 0 || lttng_session_daemon_alive() != 1)
		return fail(error, FS_RECORD_ERROR_FAILED, "lttng-sessiond started but %s",
			    r->sessiond_pid <= 0 ? "its pid is unknown" : "it is not reachable");
	return TRUE;
}

/* The host part of a net:// URL: "[::1]" or "example.com"; the URL has "://" in it. */
static char *
dup_url_host(const char *url)
{
	const char *host = strstr(url, "://") + 3;

	if (host[0] == '[')
		return g_strndup(host, strcspn(host, "]") + 1);
	return g_strndup(host, strcspn(host, ":/"));
}

static gboolean
url_has_path(const char *url)
{
	g_autofree char *host = dup_url_host(url);

	return strchr(strstr(url, "://") + 3 + strlen(host), '/') != NULL;
}

/*
 * --relayd URL without a trace directory gets the session name as one: the relay daemon then
 * writes to its BASE/HOSTNAME/SESSION, which the printed URL names. A live session without
 * --relayd streams to a relay daemon of ours writing to -o DIR.
 */
static gboolean
recorder_start_relayd(Recorder *r, GError **error)
{
	g_autofree char *output_arg = NULL;

	if (r->options.relayd_url) {
		r->relayd_url =
		    url_has_path(r->options.relayd_url)
			? g_strdup(r->options.relayd_url)
			: g_strdup_printf("%s/%s", r->options.relayd_url, r->session_name);
		return TRUE;
	}
	if (!r->options.is_live)
		return TRUE;
	output_arg = g_strdup_printf("--output=%s", r->output_dir);
	recorder_progress(r, "starting lttng-relayd");
	if (!spawn_daemon((const char *const[]){"lttng-relayd", "--daemonize", LOCAL_CONTROL_ARG,
						LOCAL_DATA_ARG, LOCAL_LIVE_ARG, output_arg, NULL},
			  " (is another relay daemon using ports 5342 to 5344?)", error))
		return FALSE;
	r->relayd_pid = find_child_named("lttng-relayd");
	watchdog_tell(r, "R %ld\n", (long) r->relayd_pid);
	if (r->relayd_pid <= 0)
		return fail(error, FS_RECORD_ERROR_FAILED,
			    "lttng-relayd started but its pid is unknown");
	r->relayd_url = g_strdup(LOCAL_RELAYD_URL);
	return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* The session */

static FsLttngSessionDescriptor *
recorder_new_descriptor(const Recorder *r)
{
	const char *name = r->session_name;

	if (r->options.is_live)
		return lttng_session_descriptor_live_network_create(name, r->relayd_url, NULL,
								    LIVE_TIMER_US);
	if (r->options.is_snapshot && r->relayd_url)
		return lttng_session_descriptor_snapshot_network_create(name, r->relayd_url, NULL);
	if (r->options.is_snapshot)
		return lttng_session_descriptor_snapshot_local_create(name, r->output_dir);
	if (r->relayd_url)
		return lttng_session_descriptor_network_create(name, r->relayd_url, NULL);
	return lttng_session_descriptor_local_create(name, r->output_dir);
}

/* User space, one set of buffers per user: what `lttng enable-channel -u` makes. */
static struct lttng_domain
ust_domain(void)
{
	struct lttng_domain domain;

	memset(&domain, 0, sizeof(domain));
	domain.type = LTTNG_DOMAIN_UST;
	domain.buf_type = LTTNG_BUFFER_PER_UID;
	return domain;
}

static FsLttngHandle *
recorder_new_handle(const Recorder *r)
{
	struct lttng_domain domain = ust_domain();

	return lttng_create_handle(r->session_name, &domain);
}

static gboolean
recorder_create_session(Recorder *r, GError **error)
{
	g_autoptr(FsLttngSessionDescriptor) descriptor = recorder_new_descriptor(r);
	enum lttng_error_code code;

	if (!descriptor)
		return fail(error, FS_RECORD_ERROR_USAGE, "invalid relay daemon URL %s",
			    r->relayd_url ? r->relayd_url : "");
	watchdog_tell(r, "N %s\n", r->session_name);
	code = lttng_create_session_ext(descriptor);
	if (code != LTTNG_OK)
		return fail_lttng(error, (int) code, "cannot create the session");
	r->has_session = TRUE;
	return TRUE;
}

/* One UST channel, sized so that the built-in scenarios lose nothing. */
static gboolean
enable_channel(struct lttng_handle *handle, const RecordOptions *o, GError **error)
{
	struct lttng_domain domain = ust_domain();
	g_autoptr(FsLttngChannel) channel = lttng_channel_create(&domain);
	int status;

	if (!channel)
		return fail_lttng(error, -LTTNG_ERR_NOMEM, "cannot create the channel");
	g_strlcpy(channel->name, CHANNEL_NAME, sizeof(channel->name));
	channel->attr.subbuf_size = o->subbuf_size;
	channel->attr.num_subbuf = SUBBUF_COUNT;
	channel->attr.read_timer_interval = (unsigned int) o->read_timer_us;
	channel->attr.overwrite = o->is_snapshot ? 1 : 0;
	status = lttng_enable_channel(handle, channel);
	return status >= 0 || fail_lttng(error, status, "cannot create the channel");
}

static gboolean
enable_event(struct lttng_handle *handle, const RecordOptions *o, GError **error)
{
	g_autoptr(FsLttngEvent) event = lttng_event_create();
	int status;

	if (!event)
		return fail_lttng(error, -LTTNG_ERR_NOMEM, "cannot enable the events");
	g_strlcpy(event->name, EVENT_PATTERN, sizeof(event->name));
	event->type = LTTNG_EVENT_TRACEPOINT;
	event->loglevel_type =
	    o->loglevel < 0 ? LTTNG_EVENT_LOGLEVEL_ALL : LTTNG_EVENT_LOGLEVEL_RANGE;
	event->loglevel = o->loglevel;
	status = lttng_enable_event_with_exclusions(handle, event, CHANNEL_NAME, NULL, 0, NULL);
	return status >= 0 ||
	       fail_lttng(error, status, "cannot enable the " EVENT_PATTERN " events");
}

static gboolean
recorder_enable_events(const Recorder *r, GError **error)
{
	g_autoptr(FsLttngHandle) handle = recorder_new_handle(r);

	if (!handle)
		return fail_lttng(error, -LTTNG_ERR_NOMEM, "cannot enable the events");
	return enable_channel(handle, &r->options, error) &&
	       enable_event(handle, &r->options, error);
}

static gboolean
recorder_start_session(Recorder *r, GError **error)
{
	int status = lttng_start_tracing(r->session_name);

	if (status < 0)
		return fail_lttng(error, status, "cannot start the session");
	r->is_started = TRUE;
	return TRUE;
}

/* Reads the channel's discarded-event count; the session must still exist. */
static gboolean
recorder_read_discarded(Recorder *r, GError **error)
{
	g_autoptr(FsLttngHandle) handle = recorder_new_handle(r);
	g_autofree struct lttng_channel *channels = NULL;
	int count = handle ? lttng_list_channels(handle, &channels) : -LTTNG_ERR_NOMEM;

	if (count < 0)
		return fail_lttng(error, count, "cannot read the discarded-event count");
	for (int i = 0; i < count; i++) {
		if (strcmp(channels[i].name, CHANNEL_NAME))
			continue;
		if (lttng_channel_get_discarded_event_count(&channels[i], &r->discarded_events))
			break;
		r->has_discarded_count = TRUE;
		return TRUE;
	}
	return fail(error, FS_RECORD_ERROR_FAILED,
		    "cannot read the discarded-event count of channel " CHANNEL_NAME);
}

/* Writes the snapshot buffers' content to the session's output and prints where. */
static gboolean
recorder_take_snapshot(Recorder *r, GError **error)
{
	g_autoptr(GHashTable) old = r->output_dir ? list_dir(r->output_dir) : NULL;
	g_autofree char *path = NULL;
	int status;

	recorder_progress(r, "recording a snapshot");
	status = lttng_snapshot_record(r->session_name, NULL, 1);
	if (status < 0)
		return fail_lttng(error, status, "cannot record a snapshot");
	path = r->output_dir ? dup_new_entry(r->output_dir, old) : NULL;
	printf("%s\n", path ? path : r->relayd_url);
	fflush(stdout);
	/* A snapshot of empty buffers is an empty directory: that is not a trace. */
	r->has_trace = r->has_trace || !path || dir_has_trace(path);
	return TRUE;
}

/* lttng_stop_tracing() waits until the consumer has written everything the program traced. */
static gboolean
recorder_stop_session(Recorder *r, GError **error)
{
	int status;

	if (!r->is_started)
		return TRUE;
	recorder_progress(r, "stopping the session");
	status = lttng_stop_tracing(r->session_name);
	r->is_started = FALSE;
	if (status < 0)
		return fail_lttng(error, status, "cannot stop the session");
	if (r->options.is_snapshot && r->program_pid > 0 && !recorder_take_snapshot(r, error))
		return FALSE;
	return recorder_read_discarded(r, error);
}

/* Destroys the session and waits until its trace is closed, also on the relay daemon. */
static gboolean
recorder_destroy_session(Recorder *r, GError **error)
{
	g_autoptr(FsLttngDestructionHandle) handle = NULL;
	enum lttng_error_code code;
	enum lttng_error_code result = LTTNG_OK;

	if (!r->has_session)
		return TRUE;
	code = lttng_destroy_session_ext(r->session_name, &handle);
	r->has_session = FALSE;
	if (code == LTTNG_OK && lttng_destruction_handle_wait_for_completion(handle, -1) !=
				    LTTNG_DESTRUCTION_HANDLE_STATUS_COMPLETED)
		code = LTTNG_ERR_UNK;
	if (code == LTTNG_OK && lttng_destruction_handle_get_result(handle, &result) !=
				    LTTNG_DESTRUCTION_HANDLE_STATUS_OK)
		code = LTTNG_ERR_UNK;
	if (code == LTTNG_OK)
		code = result;
	if (code != LTTNG_OK)
		return fail_lttng(error, (int) code, "cannot destroy the session");
	return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* The traced program */

static int
take_signal(const sigset_t *set, int timeout_ms)
{
	struct timespec timeout = {
	    .tv_sec = timeout_ms / 1000,
	    .tv_nsec = (long) (timeout_ms % 1000) * 1000000L,
	};

	return sigtimedwait(set, NULL, &timeout);
}

static void
interrupt_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* Fails with FS_RECORD_ERROR_INTERRUPTED once SIGINT, SIGTERM or SIGHUP has arrived. */
static gboolean
recorder_check_interrupt(Recorder *r, GError **error)
{
	sigset_t set;
	int signal_number;

	interrupt_signals(&set);
	signal_number = take_signal(&set, 0);
	if (signal_number > 0 && !r->interrupt_signal)
		r->interrupt_signal = signal_number;
	if (!r->interrupt_signal)
		return TRUE;
	return fail(error, FS_RECORD_ERROR_INTERRUPTED, "interrupted by SIG%s",
		    sigabbrev_np(r->interrupt_signal));
}

static gboolean
recorder_spawn_program(Recorder *r, GError **error)
{
	/* Keep lttng-ust's default registration wait: a shorter one loses the first events. */
	g_auto(GStrv) environment =
	    g_environ_unsetenv(g_get_environ(), "LTTNG_UST_REGISTER_TIMEOUT");
	g_autoptr(GError) spawn_error = NULL;

	/* The program's clock must be the daemon's: the sim clock plugin, or LTTng's own. */
	if (!r->options.uses_sim_clock)
		environment = g_environ_unsetenv(environment, "LTTNG_UST_CLOCK_PLUGIN");
	/* A program of one's own runs its runtime in this clock mode (docs/recording.md). */
	environment = g_environ_setenv(environment, "FENCESCOPE_CLOCK",
				       r->options.uses_sim_clock ? "sim" : "realtime", TRUE);

	if (g_spawn_async(NULL, r->options.command, environment,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
			      G_SPAWN_CHILD_INHERITS_STDIN,
			  child_restore_signals, NULL, &r->program_pid, &spawn_error)) {
		watchdog_tell(r, "P %ld\n", (long) r->program_pid);
		return TRUE;
	}
	return fail(error, FS_RECORD_ERROR_FAILED, "%s", spawn_error->message);
}

static gboolean
program_check_status(int wait_status, GError **error)
{
	if (WIFSIGNALED(wait_status))
		return fail(error, FS_RECORD_ERROR_FAILED, "program killed by signal %d",
			    WTERMSIG(wait_status));
	if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status))
		return fail(error, FS_RECORD_ERROR_FAILED, "program exited with status %d",
			    WEXITSTATUS(wait_status));
	return TRUE;
}

/*
 * Waits for the program. SIGINT/SIGTERM/SIGHUP are passed on to it (killed after a grace
 * period); SIGUSR1 takes a snapshot in snapshot mode. A failed snapshot does not stop the
 * recording: it is reported as a warning.
 */
static gboolean
recorder_wait_program(Recorder *r, GError **error)
{
	sigset_t set;
	gint64 kill_time = G_MAXINT64;
	int wait_status = 0;

	interrupt_signals(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR1);
	while (waitpid(r->program_pid, &wait_status, WNOHANG) != r->program_pid) {
		int signal_number = take_signal(&set, WAIT_TICK_MS);
		g_autoptr(GError) snapshot_error = NULL;

		if (signal_number == SIGUSR1 && r->options.is_snapshot &&
		    !recorder_take_snapshot(r, &snapshot_error))
			fs_error(RECORD_COMMAND, "warning: %s", snapshot_error->message);
		if (sigismember(&set, signal_number) == 1 && signal_number != SIGCHLD &&
		    signal_number != SIGUSR1 && !r->interrupt_signal) {
			r->interrupt_signal = signal_number;
			kill(r->program_pid, signal_number);
			kill_time =
			    g_get_monotonic_time() + PROGRAM_GRACE_MS * G_TIME_SPAN_MILLISECOND;
		}
		if (g_get_monotonic_time() >= kill_time)
			kill(r->program_pid, SIGKILL);
	}
	if (r->interrupt_signal)
		return recorder_check_interrupt(r, error);
	return program_check_status(wait_status, error);
}

/* ---------------------------------------------------------------------------------------- */
/* The whole recording */

static gboolean
recorder_set_up(Recorder *r, GError **error)
{
	return recorder_check_interrupt(r, error) && recorder_ensure_sessiond(r, error) &&
	       recorder_check_interrupt(r, error) && recorder_start_relayd(r, error) &&
	       recorder_check_interrupt(r, error) && recorder_create_session(r, error) &&
	       recorder_enable_events(r, error) && recorder_check_interrupt(r, error) &&
	       recorder_start_session(r, error);
}

static void
recorder_print_live_url(const Recorder *r)
{
	char host_name[256] = "localhost";
	g_autofree char *relay_host = dup_url_host(r->relayd_url);

	gethostname(host_name, sizeof(host_name) - 1);
	printf("net://%s/host/%s/%s\n", relay_host, host_name, r->session_name);
	fflush(stdout);
}

static gboolean
recorder_trace_program(Recorder *r, GError **error)
{
	if (r->options.is_live)
		recorder_print_live_url(r);
	recorder_progress(r, "recording %s into session %s (Ctrl-C stops)", r->options.label,
			  r->session_name);
	return recorder_spawn_program(r, error) && recorder_wait_program(r, error);
}

/* Whether a TCP connection to LOCAL_LIVE_PORT is established in /proc/net/tcp or tcp6: a live
 * reader still attached to the relay daemon we started (the port is ours while it runs). */
static gboolean
has_live_reader(void)
{
	const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};

	for (size_t t = 0; t < G_N_ELEMENTS(tables); t++) {
		g_autofree char *text = NULL;
		g_auto(GStrv) lines = NULL;

		if (!g_file_get_contents(tables[t], &text, NULL, NULL))
			continue;
		lines = g_strsplit(text, "\n", -1);
		/* "sl local_address rem_address st ...": ADDR:PORT in hex, state 01 established. */
		for (size_t i = 1; lines[i]; i++) {
			g_auto(GStrv) fields = g_strsplit_set(g_strstrip(lines[i]), " ", -1);
			const char *words[4] = {NULL};
			size_t n = 0;
			const char *port;

			for (size_t f = 0; fields[f] && n < G_N_ELEMENTS(words); f++)
				if (*fields[f])
					words[n++] = fields[f];
			if (n < 4 || !(port = strrchr(words[1], ':')))
				continue;
			if (strtoul(port + 1, NULL, 16) == LOCAL_LIVE_PORT &&
			    !strcmp(words[3], "01"))
				return TRUE;
		}
	}
	return FALSE;
}

/*
 * A live session is destroyed: its readers get the end of the stream from the relay daemon
 * (src.ctf.lttng-live sees the session closed once it has read every packet) and end by
 * themselves, cleanly. Stopping our relay daemon at once would cut a reader that is still
 * behind ("connection reset", a partial report): wait, up to LIVE_READERS_MS, for the readers to
 * go away. Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops waiting.
 */
static void
recorder_wait_live_readers(Recorder *r)
{
	gint64 deadline = g_get_monotonic_time() + LIVE_READERS_MS * G_TIME_SPAN_MILLISECOND;
	gboolean is_told = FALSE;
	sigset_t set;

	if (!r->options.is_live || r->relayd_pid <= 0)
		return;
	interrupt_signals(&set);
	while (has_live_reader() && g_get_monotonic_time() < deadline) {
		int signal_number;

		if (!is_told)
			recorder_progress(r, "waiting for live readers to finish (Ctrl-C stops)");
		is_told = TRUE;
		/* The recording is complete: a signal here only cuts the readers short. */
		signal_number = take_signal(&set, WAIT_TICK_MS);
		if (signal_number > 0)
			break;
	}
}

/* Undoes whatever exists, in order; the first error is kept in *error if it is unset. */
static void
recorder_tear_down(Recorder *r, GError **error)
{
	GError *errors[4] = {NULL, NULL, NULL, NULL};

	recorder_stop_session(r, &errors[0]);
	recorder_destroy_session(r, &errors[1]);
	recorder_wait_live_readers(r);
	stop_daemon("lttng-relayd", &r->relayd_pid, &errors[2]);
	stop_daemon("lttng-sessiond", &r->sessiond_pid, &errors[3]);
	if (!r->output_dir && !r->options.is_snapshot)
		r->has_trace = r->program_pid > 0 && !errors[1];
	for (size_t i = 0; i < G_N_ELEMENTS(errors); i++)
		keep_first_error(error, errors[i]);
	if (r->private_dir && r->sessiond_pid <= 0 && r->relayd_pid <= 0)
		nftw(r->private_dir, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (r->output_dir && !r->options.is_snapshot)
		r->has_trace = dir_has_trace(r->output_dir);
	if (r->has_created_output_dir && !dir_has_trace(r->output_dir))
		remove_empty_dirs(r->output_dir);
}

/* Where the trace is: -o DIR, DIR/HOSTNAME/SESSION-DATETIME from our relay daemon, or a URL. */
static char *
recorder_dup_trace_path(const Recorder *r)
{
	g_autofree char *host_dir = NULL;

	if (!r->output_dir)
		return g_strdup(r->relayd_url);
	if (!r->options.is_live)
		return g_strdup(r->output_dir);
	host_dir = dup_new_entry(r->output_dir, NULL);
	return host_dir ? dup_new_entry(host_dir, NULL) : NULL;
}

static fsa_status
stop_at_first_event(void *data, const struct fsa_event *event)
{
	(void) event;
	*(gboolean *) data = TRUE;
	return FSA_ERR_CANCELLED;
}

/*
 * After the session is gone: a local trace is opened and read up to its first fencescope event
 * (Babeltrace indexes every packet of every stream first, so a stream cut short by a full file
 * system fails here), and its file system must have room left. A trace with no event at all
 * means the program fired none. Keeps the first error.
 */
static void
recorder_check_trace(Recorder *r, GError **error)
{
	g_autofree char *path = NULL;
	g_autofree char *why = NULL;
	struct fsa_ingest_callbacks callbacks = {0};
	struct fsa_ingest_stats stats = {0};
	gboolean has_event = FALSE;
	struct statvfs fs;
	fsa_status status;

	if (r->options.is_snapshot || !r->output_dir || (*error && !r->has_trace))
		return;
	if (!r->has_trace) {
		fail(error, FS_RECORD_ERROR_NOTHING_RECORDED,
		     "nothing was recorded: %s fired no fencescope event (is it built with the "
		     "runtime, docs/recording.md \"Recording your own program\"?)",
		     r->options.label);
		return;
	}
	path = recorder_dup_trace_path(r);
	if (!path)
		return;
	if (statvfs(r->output_dir, &fs) == 0 &&
	    (uint64_t) fs.f_bavail * fs.f_frsize < r->options.subbuf_size) {
		/*
		 * The full file system is the cause: a failure of LTTng's before it (the session's
		 * destruction failing to rotate its last chunk onto the full disk, depending on
		 * when the disk filled) is its consequence, kept in the message.
		 */
		g_autofree char *before =
		    *error ? g_strdup_printf("; before it: %s", (*error)->message) : g_strdup("");

		g_clear_error(error);
		g_set_error(error, FS_RECORD_ERROR, FS_RECORD_ERROR_INCOMPLETE,
			    "the trace is incomplete: the file system of %s is full "
			    "(%" G_GUINT64_FORMAT " bytes left, less than a sub-buffer)%s",
			    r->output_dir, (guint64) fs.f_bavail * fs.f_frsize, before);
		return;
	}
	callbacks.data = &has_event;
	callbacks.event = stop_at_first_event;
	status = fsa_ingest_run(path, &callbacks, &stats, &why);
	if (status != FSA_OK && status != FSA_ERR_CANCELLED) {
		keep_first_error(error, g_error_new(FS_RECORD_ERROR, FS_RECORD_ERROR_INCOMPLETE,
						    "the trace is incomplete and cannot be read "
						    "(%s)",
						    why ? why : fsa_status_string(status)));
		free(why);
		why = NULL;
		return;
	}
	free(why);
	why = NULL;
	if (has_event)
		return;
	keep_first_error(error, g_error_new(FS_RECORD_ERROR, FS_RECORD_ERROR_NOTHING_RECORDED,
					    "nothing was recorded: %s fired no fencescope event",
					    r->options.label));
	/* A trace without an event is no trace: the directory this `record` made goes. */
	if (r->has_created_output_dir) {
		nftw(r->output_dir, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
		r->has_trace = FALSE;
	}
}

/* Prints the outcome and returns the exit status. */
static int
recorder_report(const Recorder *r, const GError *error)
{
	g_autofree char *path = NULL;

	if (r->has_trace && !r->options.is_snapshot) {
		path = recorder_dup_trace_path(r);
		printf("%s\n", path ? path : r->output_dir);
		fflush(stdout);
	}
	if (r->has_discarded_count) {
		fprintf(stderr, "discarded events: %" G_GUINT64_FORMAT "\n", r->discarded_events);
		if (r->discarded_events)
			fs_error(
			    RECORD_COMMAND,
			    "warning: the tracer discarded events; try a larger --subbuf-size");
	}
	if (error) {
		fs_error(RECORD_COMMAND, "%s", error->message);
		if (error->code == FS_RECORD_ERROR_INTERRUPTED)
			return EXIT_INTERRUPTED;
		if (error->code == FS_RECORD_ERROR_INCOMPLETE)
			return FS_EXIT_OUTPUT;
		if (error->code == FS_RECORD_ERROR_NOTHING_RECORDED)
			return EXIT_NOTHING_RECORDED;
		return error->code == FS_RECORD_ERROR_USAGE ? FS_EXIT_USAGE : FS_EXIT_FAILURE;
	}
	if (r->discarded_events && r->options.fail_on_loss)
		return FS_EXIT_FAILURE;
	return FS_EXIT_OK;
}

static int
recorder_record(Recorder *r)
{
	g_autoptr(GError) error = NULL;
	sigset_t blocked;

	interrupt_signals(&blocked);
	sigaddset(&blocked, SIGCHLD);
	sigaddset(&blocked, SIGUSR1);
	sigprocmask(SIG_BLOCK, &blocked, NULL);
	/* The daemons we start become our children when their launchers exit. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r->session_name = g_strdup_printf("fencescope-%ld-%ld", (long) getpid(), (long) time(NULL));
	r->show_progress = isatty(STDERR_FILENO);
	/* The watchdog shares the locks: it holds them while it cleans up after a kill -9. */
	if (recorder_check_interrupt(r, &error) && recorder_take_locks(r, &error)) {
		recorder_start_watchdog(r);
		if (recorder_set_up(r, &error))
			recorder_trace_program(r, &error);
	}
	recorder_tear_down(r, &error);
	recorder_stop_watchdog(r);
	if (r->root_lock_fd >= 0)
		close(r->root_lock_fd);
	if (r->sim_lock_fd >= 0)
		close(r->sim_lock_fd);
	r->root_lock_fd = r->sim_lock_fd = -1;
	if (!error || error->code != FS_RECORD_ERROR_USAGE)
		recorder_check_trace(r, &error);
	return recorder_report(r, error);
}

int
fs_record_main(int argc, char **argv)
{
	g_auto(Recorder) r = {
	    .sessiond_pid = -1,
	    .relayd_pid = -1,
	    .watchdog_fd = -1,
	    .watchdog_pid = -1,
	    .root_lock_fd = -1,
	    .sim_lock_fd = -1,
	};
	g_autoptr(GError) error = NULL;

	if (!record_options_parse(&r.options, argc, argv, &error) ||
	    !recorder_prepare_output_dir(&r, &error)) {
		fs_error(RECORD_COMMAND, "%s", error->message);
		return error->code == FS_RECORD_ERROR_USAGE ? FS_EXIT_USAGE : FS_EXIT_FAILURE;
	}
	return recorder_record(&r);
}
