/* SPDX-License-Identifier: MIT */
/*
 * Scenario files (docs/scenarios.md): what the files that load and run them share. The work
 * is split along its steps, each file calling only the ones below it in this list:
 *  - file.c: the public API (fsr_scenario_file_load, fsr_scenario_file_free): loads, parses,
 *    and hands out a scenario whose run is sf_file_run.
 *  - file-parse.c: the top level, the runtime, adapters and processes, the references
 *    between processes; then the script through sf_parse_steps.
 *  - file-parse-steps.c: the script's steps, checked and resolved to the objects they name.
 *  - file-run.c: a loaded script interpreted on the runtime's public API.
 *  - file-json.c: JSON read with the line of every value (JSON-GLib keeps no positions), the
 *    typed readers, and the "FILE:LINE: problem" errors.
 *  - file-script.c: the loaded script (struct sf_file) and its lookups by name.
 * Not part of the library's API: every name here is hidden in the shared library.
 */
#ifndef FENCESCOPE_SCENARIOS_FILE_PRIVATE_H
#define FENCESCOPE_SCENARIOS_FILE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include <fencescope/scenario.h>

/* The runtime's limit on adapters (FSR_ERR_NO_RESOURCES beyond); checked here to give a line. */
#define SF_MAX_ADAPTERS 8
/* A command buffer is 32-byte packets (queue.h): begin and progress write, then the commands. */
#define SF_PACKET_BYTES       32u
#define SF_DEFAULT_RING_BYTES (64u * 1024u)
#define SF_MAX_RING_BYTES     (16u * 1024u * 1024u)
#define SF_MAX_DRIFT_PPM      999999

/* ---- the loaded script ------------------------------------------------------------------- */

struct sf_adapter {
	char *name;
	guint line;
	struct fsr_adapter_config config;
};

struct sf_process {
	char *name;
	guint line;
	guint index;
	guint adapter; /* index in file->adapters */
};

struct sf_queue {
	char *name;
	guint line;
	guint index;
	struct sf_process *process;
	uint32_t engine;
	struct fsr_hwqueue_config config;
	uint32_t ring_bytes; /* user mode: the ring's size, default included */
};

/* A fence object: created by one process, maybe opened by others. */
struct sf_fence {
	guint index;
	struct sf_process *owner;
	uint64_t initial;
	bool is_shared;
	bool is_cross_adapter; /* XAD-01: FSR_FENCE_CROSS_ADAPTER */
};

/* A name of a fence in one process: the fence it created or one it opened (a local handle). */
struct sf_binding {
	char *name;
	guint line;
	guint index;
	struct sf_process *process;
	struct sf_fence *fence; /* set for opened fences once every process is read */
	bool is_opened;
	/* "open-fences": what to open, and the lines to blame if it cannot be. */
	char *open_process;
	char *open_fence;
	guint open_process_line;
	guint open_fence_line;
};

/* A fence value: a number, or relative to the fence's script value (see run_value). */
struct sf_value {
	bool is_relative;
	uint64_t absolute;
	int64_t delta;
};

enum sf_command_kind {
	SF_COMMAND_WORK,
	SF_COMMAND_WAIT,
	SF_COMMAND_SIGNAL,
};

struct sf_command {
	enum sf_command_kind kind;
	guint line;
	uint64_t work_min; /* work: uniform in [work_min, work_max] */
	uint64_t work_max;
	struct sf_binding *binding; /* wait, signal */
	struct sf_value value;
};

enum sf_step_kind {
	SF_STEP_SUBMIT,
	SF_STEP_CPU_SIGNAL,
	SF_STEP_CPU_WAIT,
	SF_STEP_RUN_FOR,
	SF_STEP_REPEAT,
	SF_STEP_PRESENT,
};

struct sf_step {
	enum sf_step_kind kind;
	guint line;
	/* submit */
	struct sf_queue *queue;
	GArray *commands;    /* struct sf_command */
	uint32_t ring_bytes; /* user mode: what the buffer takes in the ring */
	/* cpu-signal, cpu-wait */
	struct sf_binding *binding;
	struct sf_value value;
	uint64_t timeout_ns;
	enum fsr_wait_mode mode;
	bool is_async;
	/* run-for-ns */
	uint64_t duration_ns;
	/* present (with `queue`): the display */
	uint32_t display;
	/* repeat */
	uint64_t count;
	bool is_top_level;
	GPtrArray *steps;
};

struct sf_file {
	char *path;
	char *name;
	char *description;
	uint64_t seed;
	struct fsr_runtime_config runtime_config;
	/* The file's "faults" (docs/scenarios.md), when it has some: runtime_config points here. */
	bool has_faults;
	struct fsr_fault_plan faults;
	GPtrArray *adapters;  /* struct sf_adapter */
	GPtrArray *processes; /* struct sf_process */
	GPtrArray *queues;    /* struct sf_queue, of every process */
	GPtrArray *fences;    /* struct sf_fence */
	GPtrArray *bindings;  /* struct sf_binding, of every process */
	GPtrArray *script;    /* struct sf_step */
};

typedef struct sf_file SfFile;

/* ---- file-script.c: the loaded script ----------------------------------------------------- */

SfFile *sf_file_new(const char *path);
void sf_file_free(SfFile *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SfFile, sf_file_free)
/* Frees a struct sf_step: the GDestroyNotify of every array of steps. */
void sf_step_free(gpointer data);
/* By name; NULL when there is none. A queue or a fence name belongs to one process. */
struct sf_process *sf_find_process(const SfFile *file, const char *name);
struct sf_queue *sf_find_queue(const SfFile *file, const struct sf_process *process,
			       const char *name);
struct sf_binding *sf_find_binding(const SfFile *file, const struct sf_process *process,
				   const char *name);

/* ---- file-json.c: JSON with lines --------------------------------------------------------- */

/* A file read and parsed, with the line of each of its values; owns the JSON tree. */
typedef struct sf_load SfLoad;

/*
 * Reads and parses the file at `path` (which must outlive the result). NULL, with error set
 * to "PATH:LINE: problem", when it cannot be read, is not UTF-8 or not one JSON value, or
 * repeats a member of an object.
 */
SfLoad *sf_load_read(const char *path, GError **error);
void sf_load_free(SfLoad *load);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SfLoad, sf_load_free)
const char *sf_load_get_path(const SfLoad *load);
JsonNode *sf_load_get_root(const SfLoad *load);

/* The line of a value (a container's: of its opening bracket); 0 if unknown. */
guint sf_line_of(const SfLoad *load, JsonNode *node);
guint sf_object_line(const SfLoad *load, JsonObject *object);
/* Sets "PATH:LINE: problem" (or "PATH: problem" when line is 0) and returns FALSE. */
gboolean sf_fail(const SfLoad *load, guint line, GError **error, const char *format, ...)
    G_GNUC_PRINTF(4, 5);
/* "an object", "a string"…: what a value is, for messages. */
const char *sf_describe(JsonNode *node);

/*
 * The readers: each checks the type (and the range) of a value and reports the problem at
 * its line; `name` or `what` is how the message calls the value.
 */
gboolean sf_check_members(const SfLoad *load, JsonObject *object, const char *what,
			  const char *const *allowed, GError **error);
gboolean sf_need_member(const SfLoad *load, JsonObject *object, const char *name, const char *what,
			JsonNode **node, GError **error);
gboolean sf_read_string(const SfLoad *load, JsonNode *node, const char *name, const char **value,
			GError **error);
gboolean sf_read_name(const SfLoad *load, JsonNode *node, const char *name, const char **value,
		      GError **error);
gboolean sf_read_uint(const SfLoad *load, JsonNode *node, const char *name, uint64_t min,
		      uint64_t max, uint64_t *value, GError **error);
gboolean sf_read_bool(const SfLoad *load, JsonNode *node, const char *name, bool *value,
		      GError **error);
gboolean sf_read_array(const SfLoad *load, JsonNode *node, const char *name, JsonArray **value,
		       GError **error);
gboolean sf_read_object(const SfLoad *load, JsonNode *node, const char *what, JsonObject **value,
			GError **error);
gboolean sf_read_keyword(const SfLoad *load, JsonNode *node, const char *name,
			 const char *const *names, guint *value, GError **error);

/* ---- file-parse.c, file-parse-steps.c: parsing and resolving ------------------------------ */

/* The whole file: its processes, their queues and fences, then the script. */
SfFile *sf_parse_file(const SfLoad *load, GError **error);
/* An array of steps into `steps` (struct sf_step); repeat blocks recurse. */
gboolean sf_parse_steps(const SfLoad *load, const SfFile *file, JsonNode *node, bool is_top_level,
			GPtrArray *steps, GError **error);

/* ---- file-run.c: running ------------------------------------------------------------------ */

/* The run callback of a loaded scenario (struct fsr_scenario, data: the SfFile). */
fsr_status sf_file_run(const struct fsr_scenario *scenario,
		       const struct fsr_scenario_options *options,
		       struct fsr_scenario_totals *totals, char **error);

#endif /* FENCESCOPE_SCENARIOS_FILE_PRIVATE_H */
