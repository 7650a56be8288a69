/* SPDX-License-Identifier: MIT */
/*
 * Scenario files (docs/scenarios.md): users' own workloads, written as JSON, loaded into a
 * checked script and interpreted on the runtime's public API exactly as a built-in scenario
 * calls it. Loading checks all that can be checked without running — types, ranges, unknown
 * members, names and the references between processes, the value syntax — and reports each
 * problem as "FILE:LINE: problem"; running reports what only the runtime can refuse, with the
 * line of the step. It is not a general JSON schema checker, and the script has no variables
 * or conditions: repeat blocks and relative fence values are all it has to say "and so on".
 *
 * JSON-GLib parses. Its tree keeps no positions, so the parser's signals are used to note the
 * line of every member and element while it reads (struct sf_load).
 *
 * This file is the public API; the work is split along its steps (file-private.h says which
 * file does what): reading JSON with lines, parsing and resolving, running.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "file-private.h"

static SfFile *
file_load(const char *path, GError **error)
{
	g_autoptr(SfLoad) load = sf_load_read(path, error);

	if (!load)
		return NULL;
	return sf_parse_file(load, error);
}

/* ---- public API --------------------------------------------------------------------------- */

fsr_status
fsr_scenario_file_load(const char *path, struct fsr_scenario **scenario, char **error)
{
	g_autoptr(GError) local_error = NULL;
	struct fsr_scenario *loaded;
	SfFile *file;

	if (error)
		*error = NULL;
	if (scenario)
		*scenario = NULL;
	if (!path || !scenario) {
		if (error)
			*error = strdup("fsr_scenario_file_load: no path or no scenario pointer");
		return FSR_ERR_INVALID_ARGUMENT;
	}
	file = file_load(path, &local_error);
	if (!file) {
		if (error)
			*error = strdup(local_error->message);
		return FSR_ERR_INVALID_ARGUMENT;
	}
	loaded = g_new0(struct fsr_scenario, 1);
	loaded->name = file->name;
	loaded->description = file->description;
	loaded->run = sf_file_run;
	loaded->data = file;
	*scenario = loaded;
	return FSR_OK;
}

void
fsr_scenario_file_free(struct fsr_scenario *scenario)
{
	if (!scenario)
		return;
	g_assert(scenario->run == sf_file_run);
	sf_file_free(scenario->data);
	g_free(scenario);
}
