/* SPDX-License-Identifier: MIT */
/*
 * The subcommands of `fencescope` and what they share. Each subcommand parses its own options
 * and returns the process's exit status: 0 success, 1 failure, 2 bad usage or input, 4 an output
 * file could not be created or written (the trace itself was fine).
 */
#ifndef FENCESCOPE_CLI_H
#define FENCESCOPE_CLI_H

#include <stdbool.h>

#include <glib.h>

#include "fsa/report.h"

#define FS_EXIT_OK      0
#define FS_EXIT_FAILURE 1
#define FS_EXIT_USAGE   2
/* `fencescope report`: a --fail-if threshold or --fail-on-loss failed. */
#define FS_EXIT_THRESHOLD 3
/* `report -o`, `export`, `render -o`: an output could not be created or written (no such folder,
 * full disk, exists without --force, not a regular file); nothing was left under its name. */
#define FS_EXIT_OUTPUT 4

/* `fencescope run`: runs a built-in scenario or a scenario file on the reference runtime. */
int fs_run_main(int argc, char **argv);

/* `fencescope record`: records a scenario or a command in a real LTTng session. */
int fs_record_main(int argc, char **argv);

/* `fencescope export`: writes a trace's timeline to SQLite or Perfetto JSON (docs/export.md). */
int fs_export_main(int argc, char **argv);

/* `fencescope report`: analyzes a trace into a text, JSON or CSV report (docs/report-schema.md). */
int fs_report_main(int argc, char **argv);
/* cli/diff.c: `fencescope diff`. */
int fs_diff_main(int argc, char **argv);

/* `fencescope view`: opens a trace in the GTK viewer (execs fencescope-view). */
int fs_view_main(int argc, char **argv);

/* `fencescope render`: draws the viewer's timeline to PNG, SVG or PDF (docs/viewer.md). */
int fs_render_main(int argc, char **argv);

/* Prints "fencescope SUBCOMMAND: message" on stderr (printf-style). */
void fs_error(const char *subcommand, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Makes SIGINT, SIGTERM and SIGHUP remove the temporary files of outputs being written
 * (fsa/output-file.h) before the process ends by the same signal. For the commands that write
 * output files; `record` has its own handling.
 */
void fs_remove_outputs_on_signals(void);

/* --recording NAME of report, export, render and view: replaces *TRACE (g_free()'d) with the
 * folder of that recording under it (fsa_ingest_pick_recording). Does nothing when RECORDING is
 * NULL. Returns false after saying why on stderr. */
bool fs_recording_pick(const char *subcommand, char **trace, const char *recording);

/* The options `report` and `diff` share for choosing what is counted and how times are written
 * (cli/report-options.c): --begin, --end, --times, --relative, --frame-budget, --recording. */
struct fs_choice_args {
	char *begin, *end, *times, *frame_budget, *recording; /* g_free */
	int is_relative;                                      /* gboolean */
};

/* Adds the options to CONTEXT's main group, storing into ARGS (which must outlive the parse);
 * IS_DIFF words the help for two traces. */
void fs_choice_add_entries(GOptionContext *context, struct fs_choice_args *args, bool is_diff);
/* Sets OPTIONS' begin, end, is_time_relative and frame_budget_ns from ARGS; returns FS_EXIT_OK or
 * FS_EXIT_USAGE after one line on stderr naming COMMAND. */
int fs_choice_parse(const char *command, const struct fs_choice_args *args,
		    struct fsa_report_options *options);
void fs_choice_args_clear(struct fs_choice_args *args);

/* The path of this executable, to re-run it (record runs `fencescope run` under a session). */
const char *fs_self_path(void);

#endif /* FENCESCOPE_CLI_H */
