/* SPDX-License-Identifier: MIT */
/*
 * The options `fencescope report` and `fencescope diff` share for choosing what is counted and
 * how times are written: --begin, --end, --times (with --relative for short), --frame-budget and
 * --recording. One implementation, so that the two commands take the same words and give the
 * same one-line errors (docs/report-schema.md "Time filter", "Relative times"). Not the other
 * options of either command.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cli.h"

void
fs_choice_add_entries(GOptionContext *context, struct fs_choice_args *args, bool is_diff)
{
	const GOptionEntry entries[] = {
	    {"begin", 0, 0, G_OPTION_ARG_STRING, &args->begin,
	     is_diff ? "only what overlaps from TIME on: +TIME from each trace's own start (the "
		       "same window of both runs), or an absolute trace time in both"
		     : "only what overlaps from TIME on (ns, 1.5s, 200ms; +TIME from the trace's "
		       "start)",
	     "TIME"},
	    {"end", 0, 0, G_OPTION_ARG_STRING, &args->end, "only what overlaps up to TIME", "TIME"},
	    {"times", 0, 0, G_OPTION_ARG_STRING, &args->times,
	     "absolute (default: trace ns, seconds in text) or relative (ns since the first "
	     "event, \"+1.500 ms\" in text, as the viewer shows them)",
	     "absolute|relative"},
	    {"relative", 0, 0, G_OPTION_ARG_NONE, &args->is_relative,
	     "the same as --times relative", NULL},
	    {"frame-budget", 0, 0, G_OPTION_ARG_STRING, &args->frame_budget,
	     "frames: a frame over TIME is over budget (default: the display's vsync period)",
	     "TIME"},
	    {"recording", 0, 0, G_OPTION_ARG_STRING, &args->recording,
	     is_diff ? "of a folder holding several recordings, the one named NAME (its LTTng "
		       "trace name or its folder), in each trace; BASE_NAME:NEW_NAME names one "
		       "for each"
		     : "Of a folder holding several recordings, the one named NAME (its LTTng "
		       "trace name or its folder)",
	     "NAME"},
	    {NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	/* GOption keeps the entries it is given by value. */
	g_option_context_add_main_entries(context, entries, NULL);
}

void
fs_choice_args_clear(struct fs_choice_args *args)
{
	g_free(args->begin);
	g_free(args->end);
	g_free(args->times);
	g_free(args->frame_budget);
	g_free(args->recording);
	*args = (struct fs_choice_args){0};
}

int
fs_choice_parse(const char *command, const struct fs_choice_args *args,
		struct fsa_report_options *options)
{
	char *error = NULL;
	fsa_status status = FSA_OK;

	if (args->begin)
		status = fsa_report_parse_time(args->begin, &options->begin, &error);
	if (status == FSA_OK && args->end)
		status = fsa_report_parse_time(args->end, &options->end, &error);
	/* --times: absolute by default, the output of earlier releases. */
	if (status == FSA_OK && args->times) {
		if (strcmp(args->times, "relative") == 0) {
			options->is_time_relative = true;
		} else if (strcmp(args->times, "absolute") != 0) {
			error = strdup("--times takes relative or absolute");
			status = FSA_ERR_INVALID;
		} else if (args->is_relative) {
			error = strdup("--relative and --times absolute contradict each other");
			status = FSA_ERR_INVALID;
		}
	}
	if (status == FSA_OK && args->is_relative)
		options->is_time_relative = true;
	if (status == FSA_OK && args->frame_budget) {
		char *why = NULL;

		status = fsa_report_parse_frame_budget(args->frame_budget,
						       &options->frame_budget_ns, &why);
		if (status != FSA_OK && asprintf(&error, "--frame-budget %s: %s",
						 args->frame_budget, why ? why : "invalid") < 0)
			error = NULL;
		free(why);
	}
	if (status != FSA_OK) {
		fs_error(command, "%s", error ? error : "invalid option");
		free(error);
		return FS_EXIT_USAGE;
	}
	if (options->begin.is_set && options->end.is_set &&
	    options->begin.is_relative == options->end.is_relative &&
	    options->end.ns < options->begin.ns) {
		fs_error(command, "--end %s is before --begin %s", args->end, args->begin);
		return FS_EXIT_USAGE;
	}
	return FS_EXIT_OK;
}
