/* SPDX-License-Identifier: MIT */
/*
 * Workloads for the runtime: the built-in scenarios and the ones users write in scenario files
 * (docs/scenarios.md). A scenario builds its own runtime (adapters, processes, queues, fences),
 * runs its script to the end, tears everything down, and reports the totals it knows it
 * produced, so that a recording of it can be checked event by event. `fencescope run` is the
 * command-line face of this header.
 *
 * Built-in scenarios are plain C and live in libfencescope-scenarios with the file parser.
 */
#ifndef FENCESCOPE_SCENARIO_H
#define FENCESCOPE_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include <fencescope/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a run produced, as the trace must show it. */
struct fsr_scenario_totals {
	uint64_t submissions;      /* command buffers submitted (user and kernel mode) */
	uint64_t gpu_signals;      /* fence signals executed by an engine (user-mode queues) */
	uint64_t gpu_waits;        /* fence waits unblocked on an engine (user-mode queues) */
	uint64_t kernel_signals;   /* fence signals of kernel-mode queues (OS software commands) */
	uint64_t kernel_waits;     /* fence waits of kernel-mode queues */
	uint64_t cpu_signals;      /* SignalSynchronizationObjectFromCpu calls */
	uint64_t cpu_waits;        /* CPU waits that ended (any result) */
	uint64_t work_gpu_ticks;   /* GPU time of all work packets */
	uint64_t log_entries_read; /* from fsr_runtime_stats at the end */
	uint64_t log_entries_lost; /* from fsr_runtime_stats at the end: > 0 means an overrun */
	uint64_t events;           /* tracepoints fired */
	uint64_t virtual_ns;       /* sim mode: virtual time the run took */
	uint64_t flips;            /* presents (fsr_present) that queued a flip */
};

struct fsr_scenario_options {
	enum fsr_clock_mode clock_mode;
	uint64_t seed; /* 0: the scenario's own (a file's "seed", or 1) */
	/* Size knob: rounds or frames; 0 means the scenario's default. */
	uint64_t scale;
	/*
	 * Sim mode only: fsr_runtime_config.interleave_seed — the hardware and the OS interleave
	 * at every access to a shared word, deterministically (docs/runtime.md, "Interleaving").
	 * 0: off.
	 */
	uint64_t interleave_seed;
	/*
	 * Sim mode only: fsr_runtime_config.fault_plan (<fencescope/fault.h>, docs/robustness.md),
	 * over a scenario file's own "faults". NULL: none (a file's own apply).
	 */
	const struct fsr_fault_plan *fault_plan;
};

struct fsr_scenario;

typedef fsr_status (*fsr_scenario_run_func)(const struct fsr_scenario *scenario,
					    const struct fsr_scenario_options *options,
					    struct fsr_scenario_totals *totals, char **error);

struct fsr_scenario {
	const char *name;
	const char *description; /* one line, for `fencescope run --list` */
	fsr_scenario_run_func run;
	void *data; /* file scenarios: the parsed file */
};

/* The built-in scenarios, in the order `--list` shows them. Returns: (transfer none). */
FSR_API const struct fsr_scenario *const *fsr_scenario_builtins(size_t *count);

/* A built-in scenario by name, or NULL. Returns: (transfer none). */
FSR_API const struct fsr_scenario *fsr_scenario_find_builtin(const char *name);

/*
 * Runs a scenario. On failure returns the status and sets *error (nullable out-param) to a
 * malloc'd one-line message; free it with free().
 */
FSR_API fsr_status fsr_scenario_run(const struct fsr_scenario *scenario,
				    const struct fsr_scenario_options *options,
				    struct fsr_scenario_totals *totals, char **error);

/*
 * Loads a scenario file (docs/scenarios.md). On failure returns FSR_ERR_INVALID_ARGUMENT and
 * sets *error to "FILE:LINE: problem" (malloc'd). Returns: (transfer full) in *scenario;
 * release it with fsr_scenario_file_free().
 */
FSR_API fsr_status fsr_scenario_file_load(const char *path, struct fsr_scenario **scenario,
					  char **error);
FSR_API void fsr_scenario_file_free(struct fsr_scenario *scenario);

#ifdef __cplusplus
}
#endif

#endif /* FENCESCOPE_SCENARIO_H */
