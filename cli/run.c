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
static gchar **fault_specs = NULL;
static gint64 fault_seed = 0;

static const GOptionEntry entries[] = {
    {"clock", 0, 0, G_OPTION_ARG_STRING, &clock_name, "sim (virtual time, default) or realtime",
     "CLOCK"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &seed,
     "seed of the random numbers (default: the scenario's own: a file's seed, or 1)", "N"},
    {"scale", 0, 0, G_OPTION_ARG_INT64, &scale, "size of the workload (see --list)", "N"},
    {"interleave-seed", 0, 0, G_OPTION_ARG_INT64, &interleave_seed,
     "sim clock: interleave the GPU and the OS at every shared word, from seed N (0: off)", "N"},
    {"fault", 0, 0, G_OPTION_ARG_STRING_ARRAY, &fault_specs,
     "sim clock: inject a fault, KIND[:engine=E][:nth=N][:at=NS][:param=P][:adapter=A] "
     "(docs/robustness.md; repeatable)",
     "SPEC"},
    {"fault-seed", 0, 0, G_OPTION_ARG_INT64, &fault_seed,
     "sim clock: random faults every workload survives (lost and delayed interrupts, log "
     "storms, packets ignoring preemption), from seed N (0: off)",
     "N"},
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

/* One --fault SPEC: KIND[:key=value]..., keys engine, nth, at, param, adapter. */
static gboolean
parse_fault_spec(const char *spec, struct fsr_fault *fault)
{
	g_auto(GStrv) parts = g_strsplit(spec, ":", -1);
	int kind = fsr_fault_kind_from_name(parts[0]);

	if (kind < 0) {
		fs_error("run",
			 "--fault %s: no fault kind '%s' (lost-interrupt, delayed-interrupt, "
			 "corrupt-packet, process-killed, log-overrun-storm, hung-engine, "
			 "ignores-preemption)",
			 spec, parts[0]);
		return FALSE;
	}
	*fault = (struct fsr_fault){.kind = (enum fsr_fault_kind) kind,
				    .engine_id = FSR_FAULT_ANY_ENGINE};
	for (int i = 1; parts[i]; i++) {
		char *value = strchr(parts[i], '=');
		char *end = NULL;
		guint64 number;

		if (!value || !value[1]) {
			fs_error("run", "--fault %s: '%s' is not key=value", spec, parts[i]);
			return FALSE;
		}
		*value++ = '\0';
		number = g_ascii_strtoull(value, &end, 10);
		if (*end || *value == '-') {
			fs_error("run", "--fault %s: %s=%s is not a number", spec, parts[i], value);
			return FALSE;
		}
		if (!strcmp(parts[i], "engine") && number < FSR_MAX_ENGINES)
			fault->engine_id = (uint32_t) number;
		else if (!strcmp(parts[i], "nth") && number <= G_MAXUINT32)
			fault->nth = (uint32_t) number;
		else if (!strcmp(parts[i], "at"))
			fault->at_ns = number;
		else if (!strcmp(parts[i], "param"))
			fault->parameter = number;
		else if (!strcmp(parts[i], "adapter") && number < 8)
			fault->adapter_id = (uint32_t) number;
		else {
			fs_error("run", "--fault %s: unknown key or value out of range: %s", spec,
				 parts[i]);
			return FALSE;
		}
	}
	return TRUE;
}

/* --fault and --fault-seed as a plan; FALSE (and a message) on a bad spec. */
static gboolean
build_fault_plan(struct fsr_fault_plan *plan)
{
	*plan = (struct fsr_fault_plan){0};
	for (guint i = 0; fault_specs && fault_specs[i]; i++) {
		if (plan->count == FSR_MAX_FAULTS) {
			fs_error("run", "at most %d --fault", FSR_MAX_FAULTS);
			return FALSE;
		}
		if (!parse_fault_spec(fault_specs[i], &plan->faults[plan->count++]))
			return FALSE;
	}
	if (fault_seed) {
		plan->random_seed = (uint64_t) fault_seed;
		plan->random_ppm[FSR_FAULT_LOST_INTERRUPT] = 20000;
		plan->random_ppm[FSR_FAULT_DELAYED_INTERRUPT] = 20000;
		plan->random_ppm[FSR_FAULT_LOG_OVERRUN_STORM] = 5000;
		plan->random_ppm[FSR_FAULT_IGNORES_PREEMPTION] = 500000;
	}
	return TRUE;
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
	static struct fsr_fault_plan fault_plan;

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
	if (seed < 0 || scale < 0 || interleave_seed < 0 || fault_seed < 0) {
		fs_error("run", "--seed, --scale, --interleave-seed and --fault-seed are not "
				"negative");
		return FS_EXIT_USAGE;
	}
	if ((fault_seed || fault_specs) && clock_name && strcmp(clock_name, "realtime") == 0) {
		fs_error("run", "--fault and --fault-seed apply to the sim clock: a realtime run "
				"cannot replay where a fault fired");
		return FS_EXIT_USAGE;
	}
	if (!build_fault_plan(&fault_plan))
		return FS_EXIT_USAGE;
	if (fault_seed || fault_specs)
		options.fault_plan = &fault_plan;
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
