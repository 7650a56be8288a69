/* SPDX-License-Identifier: MIT */
/*
 * `fencescope run`: runs a built-in scenario or a scenario file on the reference runtime,
 * tracing into whatever LTTng session is active, and prints the totals the run produced —
 * the numbers a recording of it must show. `--json` prints them as strict JSON (fsa/json.h:
 * the name escaped, integers of 2^53 and above as decimal strings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <fencescope/scenario.h>

#include "fsa/json.h"

#include "cli.h"

static gchar *clock_name = NULL;
static gint64 seed = 0;
static gint64 scale = 0;
static gint64 interleave_seed = 0;
static gboolean is_list = FALSE;
static gboolean is_json = FALSE;

static const GOptionEntry entries[] = {
    {"clock", 0, 0, G_OPTION_ARG_STRING, &clock_name, "sim (virtual time, default) or realtime",
     "CLOCK"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &seed,
     "seed of the random numbers (default: the scenario's own: a file's seed, or 1)", "N"},
    {"scale", 0, 0, G_OPTION_ARG_INT64, &scale, "size of the workload (see --list)", "N"},
    {"interleave-seed", 0, 0, G_OPTION_ARG_INT64, &interleave_seed,
     "sim clock: interleave the GPU and the OS at every shared word, from seed N (0: off)", "N"},
    {"list", 0, 0, G_OPTION_ARG_NONE, &is_list, "describe the built-in scenarios", NULL},
    {"json", 0, 0, G_OPTION_ARG_NONE, &is_json, "print the totals as JSON", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL},
};

static void
list_scenarios(void)
{
	size_t count;
	const struct fsr_scenario *const *builtins = fsr_scenario_builtins(&count);

	for (size_t i = 0; i < count; i++)
		printf("%-18s %s\n", builtins[i]->name, builtins[i]->description);
	printf("%-18s %s\n", "FILE.json", "your own workload: see docs/scenarios.md");
}

static void
print_totals(const struct fsr_scenario *scenario, const struct fsr_scenario_totals *totals)
{
	const struct {
		const char *key;
		uint64_t value;
	} rows[] = {
	    {"submissions", totals->submissions},
	    {"gpu_signals", totals->gpu_signals},
	    {"gpu_waits", totals->gpu_waits},
	    {"kernel_signals", totals->kernel_signals},
	    {"kernel_waits", totals->kernel_waits},
	    {"cpu_signals", totals->cpu_signals},
	    {"cpu_waits", totals->cpu_waits},
	    {"work_gpu_ticks", totals->work_gpu_ticks},
	    {"log_entries_read", totals->log_entries_read},
	    {"log_entries_lost", totals->log_entries_lost},
	    {"events", totals->events},
	    {"virtual_ns", totals->virtual_ns},
	    {"flips", totals->flips},
	};
	size_t count = sizeof(rows) / sizeof(rows[0]);

	if (is_json) {
		fputs("{\"scenario\": ", stdout);
		fsa_json_write_string(stdout, scenario->name);
		for (size_t i = 0; i < count; i++) {
			printf(", \"%s\": ", rows[i].key);
			fsa_json_write_u64(stdout, rows[i].value);
		}
		printf("}\n");
		return;
	}
	printf("scenario: %s\n", scenario->name);
	for (size_t i = 0; i < count; i++)
		printf("%s: %llu\n", rows[i].key, (unsigned long long) rows[i].value);
}

static int
run(const char *what, const struct fsr_scenario_options *options)
{
	const struct fsr_scenario *scenario = fsr_scenario_find_builtin(what);
	struct fsr_scenario *loaded = NULL;
	struct fsr_scenario_totals totals;
	char *error = NULL;
	int exit_status = FS_EXIT_OK;

	if (!scenario) {
		if (!strchr(what, '/') && !g_str_has_suffix(what, ".json")) {
			fs_error("run",
				 "'%s' is neither a built-in scenario (see --list) nor a "
				 "scenario file",
				 what);
			return FS_EXIT_USAGE;
		}
		if (fsr_scenario_file_load(what, &loaded, &error) != FSR_OK) {
			fs_error("run", "%s", error ? error : "cannot load the scenario file");
			free(error);
			return FS_EXIT_USAGE;
		}
		scenario = loaded;
	}
	if (fsr_scenario_run(scenario, options, &totals, &error) != FSR_OK) {
		fs_error("run", "%s: %s", scenario->name, error ? error : "failed");
		exit_status = FS_EXIT_FAILURE;
	} else {
		print_totals(scenario, &totals);
	}
	free(error);
	if (loaded)
		fsr_scenario_file_free(loaded);
	return exit_status;
}

int
fs_run_main(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("SCENARIO|FILE");
	g_autoptr(GError) error = NULL;
	struct fsr_scenario_options options = {0};

	g_set_prgname("fencescope run");
	g_option_context_set_summary(
	    context, "Runs a built-in scenario or a scenario file on the reference "
		     "runtime and prints its totals.\nIt traces into whatever LTTng "
		     "session is active; `fencescope record` makes one.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fs_error("run", "%s", error->message);
		return FS_EXIT_USAGE;
	}
	if (is_list) {
		list_scenarios();
		return FS_EXIT_OK;
	}
	if (argc != 2) {
		fs_error("run", "expected one scenario name or file (see 'fencescope run --list')");
		return FS_EXIT_USAGE;
	}
	if (clock_name && strcmp(clock_name, "sim") != 0 && strcmp(clock_name, "realtime") != 0) {
		fs_error("run", "--clock is sim or realtime, not '%s'", clock_name);
		return FS_EXIT_USAGE;
	}
	if (seed < 0 || scale < 0 || interleave_seed < 0) {
		fs_error("run", "--seed, --scale and --interleave-seed are not negative");
		return FS_EXIT_USAGE;
	}
	if (interleave_seed && clock_name && strcmp(clock_name, "realtime") == 0) {
		fs_error("run",
			 "--interleave-seed applies to the sim clock: in realtime the engines "
			 "already run beside the OS");
		return FS_EXIT_USAGE;
	}
	options.clock_mode =
	    clock_name && strcmp(clock_name, "realtime") == 0 ? FSR_CLOCK_REALTIME : FSR_CLOCK_SIM;
	options.seed = (uint64_t) seed;
	options.scale = (uint64_t) scale;
	options.interleave_seed = (uint64_t) interleave_seed;
	return run(argv[1], &options);
}
