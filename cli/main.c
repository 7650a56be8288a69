/* SPDX-License-Identifier: MIT */
/*
 * `fencescope`: dispatches to a subcommand, perf-style (`fencescope run`, `fencescope record`).
 * Exit status: 0 success, 1 failure, 2 bad usage or input (cli.h has the others).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fencescope/runtime.h>
#include <glib.h>
#include <stdlib.h>

#include "fsa/ingest.h"

#include "fsa/output-file.h"

#include "cli.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
    {"run", fs_run_main, "run a built-in scenario or a scenario file on the reference runtime"},
    {"record", fs_record_main, "record a scenario or a command in a real LTTng session"},
    {"report", fs_report_main, "analyze a trace: latency, longest waits, losses, anomalies"},
    {"diff", fs_diff_main, "compare two traces: latency deltas beyond noise, added and removed"},
    {"export", fs_export_main, "write a trace's fence timeline to SQLite or Perfetto JSON"},
    {"render", fs_render_main, "draw a trace's timeline to PNG, SVG or PDF, without a display"},
    {"view", fs_view_main, "open a trace in the GTK timeline viewer (fencescope-view)"},
};

void
fs_error(const char *subcommand, const char *format, ...)
{
	va_list args;

	fprintf(stderr, "fencescope %s: ", subcommand);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
}

static void
remove_outputs_and_die(int sig)
{
	fsa_output_files_remove_temporary();
	fsa_ingest_remove_temporary();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
fs_remove_outputs_on_signals(void)
{
	static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction action = {.sa_handler = remove_outputs_and_die};

	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaddset(&action.sa_mask, signals[i]);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &action, NULL);
}

const char *
fs_self_path(void)
{
	static char path[PATH_MAX];

	if (!path[0]) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

		path[n > 0 ? n : 0] = '\0';
	}
	return path;
}

static void
print_usage(FILE *out)
{
	fprintf(out, "usage: fencescope [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'fencescope COMMAND --help' describes each command.\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return FS_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("fencescope %s (trace format %d.%d)\n", FSR_VERSION, FSR_TRACE_FORMAT_MAJOR,
		       FSR_TRACE_FORMAT_MINOR);
		return FS_EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_usage(stdout);
		return FS_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "fencescope: '%s' is not a command; see 'fencescope --help'\n", argv[1]);
	return FS_EXIT_USAGE;
}

bool
fs_recording_pick(const char *subcommand, char **trace, const char *recording)
{
	char *path = NULL, *error = NULL;

	if (!recording)
		return true;
	if (fsa_ingest_pick_recording(*trace, recording, &path, &error) != FSA_OK) {
		fs_error(subcommand, "%s", error ? error : "cannot pick the recording");
		free(error);
		return false;
	}
	g_free(*trace);
	*trace = g_strdup(path);
	free(path);
	return true;
}
