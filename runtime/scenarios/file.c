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
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include <fencescope/scenario.h>

/* The runtime's limit on adapters (FSR_ERR_NO_RESOURCES beyond); checked here to give a line. */
#define SF_MAX_ADAPTERS 8
/* A command buffer is 32-byte packets (queue.h): begin and progress write, then the commands. */
#define SF_PACKET_BYTES       32u
#define SF_DEFAULT_RING_BYTES (64u * 1024u)
#define SF_MAX_RING_BYTES     (16u * 1024u * 1024u)
#define SF_MAX_LOG_ENTRIES    (1u << 20)
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
	GPtrArray *adapters;  /* struct sf_adapter */
	GPtrArray *processes; /* struct sf_process */
	GPtrArray *queues;    /* struct sf_queue, of every process */
	GPtrArray *fences;    /* struct sf_fence */
	GPtrArray *bindings;  /* struct sf_binding, of every process */
	GPtrArray *script;    /* struct sf_step */
};

typedef struct sf_file SfFile;

static void
adapter_free(gpointer data)
{
	struct sf_adapter *adapter = data;

	g_free(adapter->name);
	g_free(adapter);
}

static void
process_free(gpointer data)
{
	struct sf_process *process = data;

	g_free(process->name);
	g_free(process);
}

static void
queue_free(gpointer data)
{
	struct sf_queue *queue = data;

	g_free(queue->name);
	g_free(queue);
}

static void
binding_free(gpointer data)
{
	struct sf_binding *binding = data;

	g_free(binding->name);
	g_free(binding->open_process);
	g_free(binding->open_fence);
	g_free(binding);
}

static void
step_free(gpointer data)
{
	struct sf_step *step = data;

	g_clear_pointer(&step->commands, g_array_unref);
	g_clear_pointer(&step->steps, g_ptr_array_unref);
	g_free(step);
}

static void
sf_file_free(SfFile *file)
{
	g_free(file->path);
	g_free(file->name);
	g_free(file->description);
	g_clear_pointer(&file->adapters, g_ptr_array_unref);
	g_clear_pointer(&file->processes, g_ptr_array_unref);
	g_clear_pointer(&file->queues, g_ptr_array_unref);
	g_clear_pointer(&file->fences, g_ptr_array_unref);
	g_clear_pointer(&file->bindings, g_ptr_array_unref);
	g_clear_pointer(&file->script, g_ptr_array_unref);
	g_free(file);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SfFile, sf_file_free)

static SfFile *
sf_file_new(const char *path)
{
	SfFile *file = g_new0(SfFile, 1);

	file->path = g_strdup(path);
	file->adapters = g_ptr_array_new_with_free_func(adapter_free);
	file->processes = g_ptr_array_new_with_free_func(process_free);
	file->queues = g_ptr_array_new_with_free_func(queue_free);
	file->fences = g_ptr_array_new_with_free_func(g_free);
	file->bindings = g_ptr_array_new_with_free_func(binding_free);
	file->script = g_ptr_array_new_with_free_func(step_free);
	return file;
}

static struct sf_process *
find_process(const SfFile *file, const char *name)
{
	for (guint i = 0; i < file->processes->len; i++) {
		struct sf_process *process = g_ptr_array_index(file->processes, i);

		if (strcmp(process->name, name) == 0)
			return process;
	}
	return NULL;
}

static struct sf_queue *
find_queue(const SfFile *file, const struct sf_process *process, const char *name)
{
	for (guint i = 0; i < file->queues->len; i++) {
		struct sf_queue *queue = g_ptr_array_index(file->queues, i);

		if (queue->process == process && strcmp(queue->name, name) == 0)
			return queue;
	}
	return NULL;
}

static struct sf_binding *
find_binding(const SfFile *file, const struct sf_process *process, const char *name)
{
	for (guint i = 0; i < file->bindings->len; i++) {
		struct sf_binding *binding = g_ptr_array_index(file->bindings, i);

		if (binding->process == process && strcmp(binding->name, name) == 0)
			return binding;
	}
	return NULL;
}

/* ---- reading JSON with lines ------------------------------------------------------------- */

/*
 * What the parser's signals tell while it reads. JSON-GLib emits "object-member" and
 * "array-element" once the value is read, when the current line is the value's (its last
 * line), and "object-start"/"array-start" when the opening bracket is read: a container is
 * blamed at its opening bracket, which is where its key usually is too.
 */
struct sf_load {
	const char *path;
	GHashTable *node_lines;      /* JsonNode * → line */
	GHashTable *container_lines; /* JsonObject * or JsonArray * → line of its bracket */
	GArray *open_lines;          /* guint: lines of the brackets still open, innermost last */
	GHashTable *member_names;    /* JsonObject * → set of member names read so far */
	guint top_level_values;
	guint extra_value_line; /* JSON-GLib keeps the last of several top-level values */
	guint duplicate_line;
	char *duplicate_name;
};

typedef struct sf_load SfLoad;

static SfLoad *
sf_load_new(const char *path)
{
	SfLoad *load = g_new0(SfLoad, 1);

	load->path = path;
	load->node_lines = g_hash_table_new(g_direct_hash, g_direct_equal);
	load->container_lines = g_hash_table_new(g_direct_hash, g_direct_equal);
	load->open_lines = g_array_new(FALSE, FALSE, sizeof(guint));
	load->member_names = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						   (GDestroyNotify) g_hash_table_unref);
	return load;
}

static void
sf_load_free(SfLoad *load)
{
	g_hash_table_unref(load->node_lines);
	g_hash_table_unref(load->container_lines);
	g_array_unref(load->open_lines);
	g_hash_table_unref(load->member_names);
	g_free(load->duplicate_name);
	g_free(load);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SfLoad, sf_load_free)

static void
on_container_start(JsonParser *parser, gpointer user_data)
{
	SfLoad *load = user_data;
	guint line = json_parser_get_current_line(parser);

	if (load->open_lines->len == 0 && load->top_level_values++ > 0 &&
	    load->extra_value_line == 0)
		load->extra_value_line = line;
	g_array_append_val(load->open_lines, line);
}

static void
on_container_end(SfLoad *load, gpointer container)
{
	guint line;

	g_assert(load->open_lines->len > 0);
	line = g_array_index(load->open_lines, guint, load->open_lines->len - 1);
	g_array_set_size(load->open_lines, load->open_lines->len - 1);
	g_hash_table_insert(load->container_lines, container, GUINT_TO_POINTER(line));
}

static void
on_object_end(JsonParser *parser, JsonObject *object, gpointer user_data)
{
	(void) parser;
	on_container_end(user_data, object);
}

static void
on_array_end(JsonParser *parser, JsonArray *array, gpointer user_data)
{
	(void) parser;
	on_container_end(user_data, array);
}

static void
note_node_line(JsonParser *parser, SfLoad *load, JsonNode *node)
{
	gpointer container = NULL;
	guint line;

	if (JSON_NODE_HOLDS_OBJECT(node))
		container = json_node_get_object(node);
	else if (JSON_NODE_HOLDS_ARRAY(node))
		container = json_node_get_array(node);
	if (container)
		line = GPOINTER_TO_UINT(g_hash_table_lookup(load->container_lines, container));
	else
		line = json_parser_get_current_line(parser);
	g_hash_table_insert(load->node_lines, node, GUINT_TO_POINTER(line));
}

static void
on_object_member(JsonParser *parser, JsonObject *object, const char *name, gpointer user_data)
{
	SfLoad *load = user_data;
	GHashTable *names = g_hash_table_lookup(load->member_names, object);
	JsonNode *node = json_object_get_member(object, name);

	/* JSON-GLib keeps the last of two members of one name: a typo's twin would go unseen. */
	if (!names) {
		names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		g_hash_table_insert(load->member_names, object, names);
	}
	if (!g_hash_table_add(names, g_strdup(name)) && load->duplicate_line == 0) {
		load->duplicate_line = json_parser_get_current_line(parser);
		load->duplicate_name = g_strdup(name);
	}
	if (node)
		note_node_line(parser, load, node);
}

static void
on_array_element(JsonParser *parser, JsonArray *array, int index, gpointer user_data)
{
	note_node_line(parser, user_data, json_array_get_element(array, (guint) index));
}

static guint
line_of(const SfLoad *load, JsonNode *node)
{
	return GPOINTER_TO_UINT(g_hash_table_lookup(load->node_lines, node));
}

static guint
object_line(const SfLoad *load, JsonObject *object)
{
	return GPOINTER_TO_UINT(g_hash_table_lookup(load->container_lines, object));
}

static GQuark
sf_error_quark(void)
{
	return g_quark_from_static_string("fsr-scenario-file-error");
}

static gboolean fail(const SfLoad *load, guint line, GError **error, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

/* Sets "PATH:LINE: problem" (or "PATH: problem" without a line) and returns FALSE. */
static gboolean
fail(const SfLoad *load, guint line, GError **error, const char *format, ...)
{
	g_autofree char *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	if (line > 0)
		g_set_error(error, sf_error_quark(), 0, "%s:%u: %s", load->path, line, message);
	else
		g_set_error(error, sf_error_quark(), 0, "%s: %s", load->path, message);
	return FALSE;
}

static const char *
describe(JsonNode *node)
{
	switch (JSON_NODE_TYPE(node)) {
	case JSON_NODE_OBJECT:
		return "an object";
	case JSON_NODE_ARRAY:
		return "an array";
	case JSON_NODE_NULL:
		return "null";
	case JSON_NODE_VALUE:
		break;
	}
	switch (json_node_get_value_type(node)) {
	case G_TYPE_INT64:
		return "an integer";
	case G_TYPE_DOUBLE:
		return "a number with a fraction or an exponent";
	case G_TYPE_BOOLEAN:
		return "a boolean";
	case G_TYPE_STRING:
		return "a string";
	default:
		return "a value of an unknown type";
	}
}

/* Unknown members are errors: a misspelt optional member would silently take its default. */
static gboolean
check_members(const SfLoad *load, JsonObject *object, const char *what, const char *const *allowed,
	      GError **error)
{
	g_autoptr(GList) names = json_object_get_members(object);

	for (GList *l = names; l; l = l->next) {
		const char *name = l->data;

		if (!g_strv_contains(allowed, name)) {
			g_autofree char *known = g_strjoinv(", ", (char **) allowed);

			return fail(load, line_of(load, json_object_get_member(object, name)),
				    error, "unknown member \"%s\" in %s (known: %s)", name, what,
				    known);
		}
	}
	return TRUE;
}

static gboolean
need_member(const SfLoad *load, JsonObject *object, const char *name, const char *what,
	    JsonNode **node, GError **error)
{
	*node = json_object_get_member(object, name);
	if (!*node)
		return fail(load, object_line(load, object), error, "%s has no \"%s\" member", what,
			    name);
	return TRUE;
}

static gboolean
read_string(const SfLoad *load, JsonNode *node, const char *name, const char **value,
	    GError **error)
{
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return fail(load, line_of(load, node), error, "\"%s\" must be a string, not %s",
			    name, describe(node));
	*value = json_node_get_string(node);
	return TRUE;
}

static gboolean
read_name(const SfLoad *load, JsonNode *node, const char *name, const char **value, GError **error)
{
	if (!read_string(load, node, name, value, error))
		return FALSE;
	if (**value == '\0')
		return fail(load, line_of(load, node), error, "\"%s\" must not be empty", name);
	return TRUE;
}

static gboolean
read_uint(const SfLoad *load, JsonNode *node, const char *name, uint64_t min, uint64_t max,
	  uint64_t *value, GError **error)
{
	gint64 number;

	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
		return fail(load, line_of(load, node), error, "\"%s\" must be an integer, not %s",
			    name, describe(node));
	number = json_node_get_int(node);
	/* JSON-GLib reads integers above 2^63 - 1 as -1: they land here too. */
	if (number < 0)
		return fail(load, line_of(load, node), error,
			    "\"%s\" must not be negative (%" G_GINT64_FORMAT "%s)", name, number,
			    number == -1 ? ", or above 2^63 - 1, which JSON-GLib reads as -1" : "");
	if ((uint64_t) number < min || (uint64_t) number > max) {
		if (max >= G_MAXINT64)
			return fail(load, line_of(load, node), error,
				    "\"%s\" must be at least %" G_GUINT64_FORMAT
				    " (%" G_GINT64_FORMAT ")",
				    name, min, number);
		return fail(load, line_of(load, node), error,
			    "\"%s\" must be between %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
			    " (%" G_GINT64_FORMAT ")",
			    name, min, max, number);
	}
	*value = (uint64_t) number;
	return TRUE;
}

static gboolean
read_bool(const SfLoad *load, JsonNode *node, const char *name, bool *value, GError **error)
{
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_BOOLEAN)
		return fail(load, line_of(load, node), error,
			    "\"%s\" must be true or false, not %s", name, describe(node));
	*value = json_node_get_boolean(node);
	return TRUE;
}

static gboolean
read_array(const SfLoad *load, JsonNode *node, const char *name, JsonArray **value, GError **error)
{
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return fail(load, line_of(load, node), error, "\"%s\" must be an array, not %s",
			    name, describe(node));
	*value = json_node_get_array(node);
	return TRUE;
}

static gboolean
read_object(const SfLoad *load, JsonNode *node, const char *what, JsonObject **value,
	    GError **error)
{
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return fail(load, line_of(load, node), error, "%s must be an object, not %s", what,
			    describe(node));
	*value = json_node_get_object(node);
	return TRUE;
}

/* One of `names` (NULL-terminated); its index in *value. */
static gboolean
read_keyword(const SfLoad *load, JsonNode *node, const char *name, const char *const *names,
	     guint *value, GError **error)
{
	g_autofree char *known = NULL;
	const char *text;

	if (!read_string(load, node, name, &text, error))
		return FALSE;
	for (guint i = 0; names[i]; i++) {
		if (strcmp(text, names[i]) == 0) {
			*value = i;
			return TRUE;
		}
	}
	known = g_strjoinv(", ", (char **) names);
	return fail(load, line_of(load, node), error, "\"%s\" must be one of %s, not \"%s\"", name,
		    known, text);
}

/* ---- top level, runtime and adapters ----------------------------------------------------- */

static const char *const engine_names[] = {"3d", "compute", "copy", NULL};

static gboolean
parse_runtime(const SfLoad *load, SfFile *file, JsonNode *node, GError **error)
{
	static const char *const members[] = {"log-read-period-ns", "interrupt-latency-ns",
					      "clock-correlation-period-ns", NULL};
	struct fsr_runtime_config *config = &file->runtime_config;
	JsonObject *object;
	JsonNode *member;

	if (!read_object(load, node, "\"runtime\"", &object, error) ||
	    !check_members(load, object, "\"runtime\"", members, error))
		return FALSE;
	member = json_object_get_member(object, "log-read-period-ns");
	if (member && JSON_NODE_HOLDS_VALUE(member) &&
	    json_node_get_value_type(member) == G_TYPE_STRING) {
		const char *text = json_node_get_string(member);

		if (strcmp(text, "never") != 0)
			return fail(load, line_of(load, member), error,
				    "\"log-read-period-ns\" must be an integer or \"never\", not "
				    "\"%s\"",
				    text);
		config->log_read_period_ns = FSR_INFINITE;
	} else if (member && !read_uint(load, member, "log-read-period-ns", 1, G_MAXINT64,
					&config->log_read_period_ns, error)) {
		return FALSE;
	}
	member = json_object_get_member(object, "interrupt-latency-ns");
	if (member && !read_uint(load, member, "interrupt-latency-ns", 1, G_MAXINT64,
				 &config->interrupt_latency_ns, error))
		return FALSE;
	member = json_object_get_member(object, "clock-correlation-period-ns");
	if (member && !read_uint(load, member, "clock-correlation-period-ns", 1, G_MAXINT64,
				 &config->clock_correlation_period_ns, error))
		return FALSE;
	return TRUE;
}

static gboolean
parse_engines(const SfLoad *load, JsonNode *node, struct fsr_adapter_config *config, GError **error)
{
	JsonArray *array;
	guint length;

	if (!read_array(load, node, "engines", &array, error))
		return FALSE;
	length = json_array_get_length(array);
	if (length == 0 || length > FSR_MAX_ENGINES)
		return fail(load, line_of(load, node), error,
			    "\"engines\" must list 1 to %d engines, not %u", FSR_MAX_ENGINES,
			    length);
	config->engine_count = length;
	for (guint e = 0; e < length; e++) {
		guint type;

		if (!read_keyword(load, json_array_get_element(array, e), "engines", engine_names,
				  &type, error))
			return FALSE;
		config->engine_types[e] = (enum fsr_engine_type) type;
	}
	return TRUE;
}

static gboolean
parse_adapter(const SfLoad *load, SfFile *file, JsonNode *node, GError **error)
{
	static const char *const members[] = {"name",
					      "engines",
					      "gpu-frequency-hz",
					      "gpu-ts-offset",
					      "gpu-ts-drift-ppm",
					      "log-entries",
					      "keep-log-size-when-tracing",
					      "interrupt-form",
					      NULL};
	static const char *const forms[] = {"fence-array", "null-array", "hwqueue", NULL};
	static const enum fsr_interrupt_form form_values[] = {
	    FSR_INTERRUPT_FENCE_ARRAY, FSR_INTERRUPT_NULL_ARRAY, FSR_INTERRUPT_HWQUEUE};
	struct sf_adapter *adapter;
	struct fsr_adapter_config *config;
	JsonObject *object;
	JsonNode *member;
	const char *name;
	uint64_t number;

	if (!read_object(load, node, "an adapter", &object, error) ||
	    !check_members(load, object, "an adapter", members, error) ||
	    !need_member(load, object, "name", "an adapter", &member, error) ||
	    !read_name(load, member, "name", &name, error))
		return FALSE;
	for (guint i = 0; i < file->adapters->len; i++) {
		if (strcmp(((struct sf_adapter *) g_ptr_array_index(file->adapters, i))->name,
			   name) == 0)
			return fail(load, line_of(load, member), error,
				    "a second adapter named \"%s\"", name);
	}
	if (file->adapters->len == SF_MAX_ADAPTERS)
		return fail(load, line_of(load, node), error,
			    "the runtime takes at most %d adapters", SF_MAX_ADAPTERS);
	adapter = g_new0(struct sf_adapter, 1);
	adapter->name = g_strdup(name);
	adapter->line = line_of(load, node);
	g_ptr_array_add(file->adapters, adapter);
	config = &adapter->config;
	fsr_adapter_config_init(config);

	member = json_object_get_member(object, "engines");
	if (member && !parse_engines(load, member, config, error))
		return FALSE;
	member = json_object_get_member(object, "gpu-frequency-hz");
	if (member) {
		if (!read_uint(load, member, "gpu-frequency-hz", 1, G_MAXINT64, &number, error))
			return FALSE;
		config->gpu_ts_frequency_hz = number;
	}
	member = json_object_get_member(object, "gpu-ts-offset");
	if (member &&
	    !read_uint(load, member, "gpu-ts-offset", 0, G_MAXINT64, &config->gpu_ts_offset, error))
		return FALSE;
	member = json_object_get_member(object, "gpu-ts-drift-ppm");
	if (member) {
		gint64 drift;

		if (!JSON_NODE_HOLDS_VALUE(member) ||
		    json_node_get_value_type(member) != G_TYPE_INT64)
			return fail(load, line_of(load, member), error,
				    "\"gpu-ts-drift-ppm\" must be an integer, not %s",
				    describe(member));
		drift = json_node_get_int(member);
		if (drift < -SF_MAX_DRIFT_PPM || drift > SF_MAX_DRIFT_PPM)
			return fail(
			    load, line_of(load, member), error,
			    "\"gpu-ts-drift-ppm\" must be between -%d and %d (%" G_GINT64_FORMAT
			    ")",
			    SF_MAX_DRIFT_PPM, SF_MAX_DRIFT_PPM, drift);
		config->gpu_ts_drift_ppm = (int32_t) drift;
	}
	member = json_object_get_member(object, "log-entries");
	if (member) {
		if (!read_uint(load, member, "log-entries", 1, SF_MAX_LOG_ENTRIES, &number, error))
			return FALSE;
		config->log_capacity_entries = (uint32_t) number;
	}
	member = json_object_get_member(object, "keep-log-size-when-tracing");
	if (member && !read_bool(load, member, "keep-log-size-when-tracing",
				 &config->keep_log_size_when_tracing, error))
		return FALSE;
	member = json_object_get_member(object, "interrupt-form");
	if (member) {
		guint form;

		if (!read_keyword(load, member, "interrupt-form", forms, &form, error))
			return FALSE;
		config->interrupt_form = form_values[form];
	}
	return TRUE;
}

/* ---- processes ---------------------------------------------------------------------------- */

static gboolean
parse_engine(const SfLoad *load, JsonNode *node, const struct sf_adapter *adapter, uint32_t *engine,
	     GError **error)
{
	const struct fsr_adapter_config *config = &adapter->config;

	if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING) {
		guint type;

		if (!read_keyword(load, node, "engine", engine_names, &type, error))
			return FALSE;
		for (uint32_t e = 0; e < config->engine_count; e++) {
			if (config->engine_types[e] == (enum fsr_engine_type) type) {
				*engine = e;
				return TRUE;
			}
		}
		return fail(load, line_of(load, node), error, "adapter \"%s\" has no %s engine",
			    adapter->name, engine_names[type]);
	}
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
		return fail(
		    load, line_of(load, node), error,
		    "\"engine\" must be an engine index or one of 3d, compute, copy, not %s",
		    describe(node));
	if (json_node_get_int(node) < 0 || json_node_get_int(node) >= config->engine_count)
		return fail(load, line_of(load, node), error,
			    "adapter \"%s\" has no engine %" G_GINT64_FORMAT
			    " (its engines are 0 to %u)",
			    adapter->name, json_node_get_int(node), config->engine_count - 1);
	*engine = (uint32_t) json_node_get_int(node);
	return TRUE;
}

static gboolean
parse_queue(const SfLoad *load, SfFile *file, struct sf_process *process, JsonNode *node,
	    GError **error)
{
	static const char *const members[] = {"name", "engine", "mode", "ring-size-bytes", NULL};
	static const char *const modes[] = {"kernel", "user", NULL};
	const struct sf_adapter *adapter = g_ptr_array_index(file->adapters, process->adapter);
	struct sf_queue *queue;
	JsonObject *object;
	JsonNode *member;
	const char *name;
	uint32_t engine = 0;
	guint mode = 0;
	uint64_t ring_bytes = SF_DEFAULT_RING_BYTES;

	if (!read_object(load, node, "a queue", &object, error) ||
	    !check_members(load, object, "a queue", members, error) ||
	    !need_member(load, object, "name", "a queue", &member, error) ||
	    !read_name(load, member, "name", &name, error))
		return FALSE;
	if (find_queue(file, process, name))
		return fail(load, line_of(load, member), error,
			    "process \"%s\" has a second queue named \"%s\"", process->name, name);
	if (!need_member(load, object, "engine", "a queue", &member, error) ||
	    !parse_engine(load, member, adapter, &engine, error) ||
	    !need_member(load, object, "mode", "a queue", &member, error) ||
	    !read_keyword(load, member, "mode", modes, &mode, error))
		return FALSE;
	_Static_assert(FSR_SUBMIT_KERNEL_MODE == 0 && FSR_SUBMIT_USER_MODE == 1, "modes[] order");
	if (mode == FSR_SUBMIT_USER_MODE && adapter->config.engine_types[engine] == FSR_ENGINE_COPY)
		return fail(load, line_of(load, member), error,
			    "a copy engine takes no user-mode queue (UMS-05): use \"kernel\"");
	member = json_object_get_member(object, "ring-size-bytes");
	if (member) {
		if (mode != FSR_SUBMIT_USER_MODE)
			return fail(load, line_of(load, member), error,
				    "\"ring-size-bytes\" is for user-mode queues only");
		if (!read_uint(load, member, "ring-size-bytes", 8 * SF_PACKET_BYTES,
			       SF_MAX_RING_BYTES, &ring_bytes, error))
			return FALSE;
		if (ring_bytes % SF_PACKET_BYTES != 0)
			return fail(
			    load, line_of(load, member), error,
			    "\"ring-size-bytes\" must be a multiple of %u (%" G_GUINT64_FORMAT ")",
			    SF_PACKET_BYTES, ring_bytes);
	}
	queue = g_new0(struct sf_queue, 1);
	queue->name = g_strdup(name);
	queue->line = line_of(load, node);
	queue->index = file->queues->len;
	queue->process = process;
	queue->engine = engine;
	queue->config.mode = (enum fsr_submission_mode) mode;
	if (mode == FSR_SUBMIT_USER_MODE) {
		queue->config.ring_size_bytes = (uint32_t) ring_bytes;
		queue->ring_bytes = (uint32_t) ring_bytes;
	}
	g_ptr_array_add(file->queues, queue);
	return TRUE;
}

static struct sf_binding *
add_binding(const SfLoad *load, SfFile *file, struct sf_process *process, JsonNode *name_node,
	    const char *name, GError **error)
{
	struct sf_binding *binding;

	if (find_binding(file, process, name)) {
		fail(load, line_of(load, name_node), error,
		     "process \"%s\" has a second fence named \"%s\"", process->name, name);
		return NULL;
	}
	binding = g_new0(struct sf_binding, 1);
	binding->name = g_strdup(name);
	binding->index = file->bindings->len;
	binding->process = process;
	g_ptr_array_add(file->bindings, binding);
	return binding;
}

static gboolean
parse_fence(const SfLoad *load, SfFile *file, struct sf_process *process, JsonNode *node,
	    GError **error)
{
	static const char *const members[] = {"name", "initial", "shared", NULL};
	struct sf_binding *binding;
	struct sf_fence *fence;
	JsonObject *object;
	JsonNode *member;
	JsonNode *name_node;
	const char *name;

	if (!read_object(load, node, "a fence", &object, error) ||
	    !check_members(load, object, "a fence", members, error) ||
	    !need_member(load, object, "name", "a fence", &name_node, error) ||
	    !read_name(load, name_node, "name", &name, error))
		return FALSE;
	binding = add_binding(load, file, process, name_node, name, error);
	if (!binding)
		return FALSE;
	binding->line = line_of(load, node);
	fence = g_new0(struct sf_fence, 1);
	fence->index = file->fences->len;
	fence->owner = process;
	g_ptr_array_add(file->fences, fence);
	binding->fence = fence;
	member = json_object_get_member(object, "initial");
	if (member && !read_uint(load, member, "initial", 0, G_MAXINT64, &fence->initial, error))
		return FALSE;
	member = json_object_get_member(object, "shared");
	if (member && !read_bool(load, member, "shared", &fence->is_shared, error))
		return FALSE;
	return TRUE;
}

/* An opened fence; what it opens is looked up once every process is read (resolve_opens). */
static gboolean
parse_open_fence(const SfLoad *load, SfFile *file, struct sf_process *process, JsonNode *node,
		 GError **error)
{
	static const char *const members[] = {"name", "process", "fence", NULL};
	struct sf_binding *binding;
	JsonObject *object;
	JsonNode *process_node;
	JsonNode *fence_node;
	JsonNode *name_node;
	const char *other;
	const char *fence;
	const char *name;

	if (!read_object(load, node, "an opened fence", &object, error) ||
	    !check_members(load, object, "an opened fence", members, error) ||
	    !need_member(load, object, "process", "an opened fence", &process_node, error) ||
	    !read_name(load, process_node, "process", &other, error) ||
	    !need_member(load, object, "fence", "an opened fence", &fence_node, error) ||
	    !read_name(load, fence_node, "fence", &fence, error))
		return FALSE;
	name_node = json_object_get_member(object, "name");
	if (!name_node)
		name_node = fence_node; /* the name defaults to the opened fence's */
	if (!read_name(load, name_node, "name", &name, error))
		return FALSE;
	binding = add_binding(load, file, process, name_node, name, error);
	if (!binding)
		return FALSE;
	binding->line = line_of(load, node);
	binding->is_opened = true;
	binding->open_process = g_strdup(other);
	binding->open_fence = g_strdup(fence);
	binding->open_process_line = line_of(load, process_node);
	binding->open_fence_line = line_of(load, fence_node);
	return TRUE;
}

/* Runs `parse` on each element of the optional array member `name` of `object`. */
static gboolean
parse_each(const SfLoad *load, SfFile *file, struct sf_process *process, JsonObject *object,
	   const char *name,
	   gboolean (*parse)(const SfLoad *, SfFile *, struct sf_process *, JsonNode *, GError **),
	   GError **error)
{
	JsonNode *member = json_object_get_member(object, name);
	JsonArray *array;

	if (!member)
		return TRUE;
	if (!read_array(load, member, name, &array, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(array); i++)
		if (!parse(load, file, process, json_array_get_element(array, i), error))
			return FALSE;
	return TRUE;
}

static gboolean
parse_process(const SfLoad *load, SfFile *file, JsonNode *node, GError **error)
{
	static const char *const members[] = {"name",   "adapter",     "queues",
					      "fences", "open-fences", NULL};
	struct sf_process *process;
	JsonObject *object;
	JsonNode *member;
	const char *name;

	if (!read_object(load, node, "a process", &object, error) ||
	    !check_members(load, object, "a process", members, error) ||
	    !need_member(load, object, "name", "a process", &member, error) ||
	    !read_name(load, member, "name", &name, error))
		return FALSE;
	if (find_process(file, name))
		return fail(load, line_of(load, member), error, "a second process named \"%s\"",
			    name);
	process = g_new0(struct sf_process, 1);
	process->name = g_strdup(name);
	process->line = line_of(load, node);
	process->index = file->processes->len;
	g_ptr_array_add(file->processes, process);

	member = json_object_get_member(object, "adapter");
	if (member) {
		const char *adapter;
		guint a;

		if (!read_name(load, member, "adapter", &adapter, error))
			return FALSE;
		for (a = 0; a < file->adapters->len; a++)
			if (strcmp(
				((struct sf_adapter *) g_ptr_array_index(file->adapters, a))->name,
				adapter) == 0)
				break;
		if (a == file->adapters->len)
			return fail(load, line_of(load, member), error, "no adapter named \"%s\"",
				    adapter);
		process->adapter = a;
	} else if (file->adapters->len > 1) {
		return fail(load, object_line(load, object), error,
			    "process \"%s\" needs an \"adapter\" member: there are %u adapters",
			    name, file->adapters->len);
	}
	return parse_each(load, file, process, object, "queues", parse_queue, error) &&
	       parse_each(load, file, process, object, "fences", parse_fence, error) &&
	       parse_each(load, file, process, object, "open-fences", parse_open_fence, error);
}

/* SHF-02: a process opens a shared fence that another process created. */
static gboolean
resolve_opens(const SfLoad *load, SfFile *file, GError **error)
{
	for (guint i = 0; i < file->bindings->len; i++) {
		struct sf_binding *binding = g_ptr_array_index(file->bindings, i);
		struct sf_process *owner;
		struct sf_binding *target;

		if (!binding->is_opened)
			continue;
		owner = find_process(file, binding->open_process);
		if (!owner)
			return fail(load, binding->open_process_line, error,
				    "no process named \"%s\"", binding->open_process);
		if (owner == binding->process)
			return fail(load, binding->open_process_line, error,
				    "process \"%s\" opens a fence of its own: use its name",
				    owner->name);
		target = find_binding(file, owner, binding->open_fence);
		if (!target || target->is_opened)
			return fail(load, binding->open_fence_line, error,
				    "process \"%s\" creates no fence named \"%s\"", owner->name,
				    binding->open_fence);
		if (!target->fence->is_shared)
			return fail(load, binding->open_fence_line, error,
				    "fence \"%s\" of process \"%s\" is not shared: give it "
				    "\"shared\": true",
				    target->name, owner->name);
		if (owner->adapter != binding->process->adapter)
			return fail(
			    load, binding->line, error,
			    "fence \"%s\" lives on the adapter of process \"%s\": the runtime "
			    "does not share fences across adapters",
			    target->name, owner->name);
		binding->fence = target->fence;
	}
	return TRUE;
}

/* ---- the script --------------------------------------------------------------------------- */

/* An integer, "+K" (the fence's script value + K) or, for waits, "-K" (minus K, at least 0). */
static gboolean
parse_value(const SfLoad *load, JsonNode *node, bool is_signal, struct sf_value *value,
	    GError **error)
{
	const char *text;
	guint64 delta;

	if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_INT64) {
		*value = (struct sf_value){0};
		return read_uint(load, node, "value", 0, G_MAXINT64, &value->absolute, error);
	}
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return fail(load, line_of(load, node), error,
			    "\"value\" must be an integer or a string \"+K\"%s, not %s",
			    is_signal ? "" : " or \"-K\"", describe(node));
	text = json_node_get_string(node);
	if ((text[0] != '+' && text[0] != '-') || !g_ascii_isdigit(text[1]) ||
	    !g_ascii_string_to_unsigned(text + 1, 10, 0, G_MAXINT64, &delta, NULL))
		return fail(load, line_of(load, node), error,
			    "\"value\" \"%s\" is neither an integer nor \"+K\"%s with K a decimal "
			    "number",
			    text, is_signal ? "" : " or \"-K\"");
	if (text[0] == '-' && is_signal)
		return fail(load, line_of(load, node), error,
			    "a signal's \"value\" cannot be \"%s\": signals only go up (\"+K\" or "
			    "an integer)",
			    text);
	*value = (struct sf_value){.is_relative = true,
				   .delta = text[0] == '-' ? -(int64_t) delta : (int64_t) delta};
	return TRUE;
}

static void
append_names(GString *text, const SfFile *file, const struct sf_process *process, bool is_queue)
{
	GPtrArray *array = is_queue ? file->queues : file->bindings;
	guint count = 0;

	for (guint i = 0; i < array->len; i++) {
		const char *name;

		if (is_queue) {
			const struct sf_queue *queue = g_ptr_array_index(array, i);

			if (queue->process != process)
				continue;
			name = queue->name;
		} else {
			const struct sf_binding *binding = g_ptr_array_index(array, i);

			if (binding->process != process)
				continue;
			name = binding->name;
		}
		g_string_append_printf(text, "%s\"%s\"", count++ ? ", " : "", name);
	}
	if (count == 0)
		g_string_append(text, "none");
}

/* The optional "process" member of a step: NULL when absent. */
static gboolean
parse_step_process(const SfLoad *load, const SfFile *file, JsonObject *object,
		   struct sf_process **process, GError **error)
{
	JsonNode *member = json_object_get_member(object, "process");
	const char *name;

	*process = NULL;
	if (!member)
		return TRUE;
	if (!read_name(load, member, "process", &name, error))
		return FALSE;
	*process = find_process(file, name);
	if (!*process)
		return fail(load, line_of(load, member), error, "no process named \"%s\"", name);
	return TRUE;
}

/*
 * A queue or fence named by a step: in `process` when the step says which, otherwise in the
 * one process that has that name.
 */
static gboolean
resolve_name(const SfLoad *load, const SfFile *file, JsonNode *node, const char *kind,
	     struct sf_process *process, bool is_queue, gpointer *object, GError **error)
{
	g_autoptr(GString) others = g_string_new(NULL);
	const char *name;
	guint count = 0;

	if (!read_name(load, node, kind, &name, error))
		return FALSE;
	if (process) {
		g_autoptr(GString) known = g_string_new(NULL);

		*object = is_queue ? (gpointer) find_queue(file, process, name)
				   : (gpointer) find_binding(file, process, name);
		if (*object)
			return TRUE;
		append_names(known, file, process, is_queue);
		return fail(load, line_of(load, node), error,
			    "process \"%s\" has no %s \"%s\" (its %ss: %s)", process->name,
			    is_queue ? "queue" : "fence", name, is_queue ? "queue" : "fence",
			    known->str);
	}
	for (guint p = 0; p < file->processes->len; p++) {
		struct sf_process *candidate = g_ptr_array_index(file->processes, p);
		gpointer found = is_queue ? (gpointer) find_queue(file, candidate, name)
					  : (gpointer) find_binding(file, candidate, name);

		if (!found)
			continue;
		g_string_append_printf(others, "%s\"%s\"", count ? ", " : "", candidate->name);
		if (count++ == 0)
			*object = found;
	}
	if (count == 0)
		return fail(load, line_of(load, node), error, "no process has a %s named \"%s\"",
			    is_queue ? "queue" : "fence", name);
	if (count > 1)
		return fail(load, line_of(load, node), error,
			    "processes %s all have a %s named \"%s\": say which with \"process\"",
			    others->str, is_queue ? "queue" : "fence", name);
	return TRUE;
}

/* A fence named in a command buffer: only the submitting process's own names count. */
static gboolean
resolve_command_fence(const SfLoad *load, const SfFile *file, JsonNode *node,
		      struct sf_process *process, struct sf_binding **binding, GError **error)
{
	const char *name;

	if (!read_name(load, node, "fence", &name, error))
		return FALSE;
	*binding = find_binding(file, process, name);
	if (*binding)
		return TRUE;
	for (guint i = 0; i < file->bindings->len; i++) {
		struct sf_binding *other = g_ptr_array_index(file->bindings, i);

		if (strcmp(other->name, name) == 0 && !other->is_opened)
			return fail(load, line_of(load, node), error,
				    "process \"%s\" has no fence \"%s\"; process \"%s\" has one: "
				    "give it \"shared\": true and add {\"process\": \"%s\", "
				    "\"fence\": \"%s\"} to the \"open-fences\" of \"%s\"",
				    process->name, name, other->process->name, other->process->name,
				    name, process->name);
	}
	return fail(load, line_of(load, node), error, "process \"%s\" has no fence \"%s\"",
		    process->name, name);
}

static gboolean
parse_work(const SfLoad *load, JsonNode *node, struct sf_command *command, GError **error)
{
	JsonArray *range;

	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		if (!read_uint(load, node, "work", 1, G_MAXINT64, &command->work_min, error))
			return FALSE;
		command->work_max = command->work_min;
		return TRUE;
	}
	range = json_node_get_array(node);
	if (json_array_get_length(range) != 2)
		return fail(load, line_of(load, node), error,
			    "\"work\" must be a number of GPU ticks or a range [min, max], not an "
			    "array of %u",
			    json_array_get_length(range));
	if (!read_uint(load, json_array_get_element(range, 0), "work", 1, G_MAXINT64,
		       &command->work_min, error) ||
	    !read_uint(load, json_array_get_element(range, 1), "work", 1, G_MAXINT64,
		       &command->work_max, error))
		return FALSE;
	if (command->work_max < command->work_min)
		return fail(load, line_of(load, node), error,
			    "\"work\" range [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
			    "] ends before it starts",
			    command->work_min, command->work_max);
	return TRUE;
}

static gboolean
parse_command(const SfLoad *load, const SfFile *file, struct sf_step *step, JsonNode *node,
	      GError **error)
{
	static const char *const work_members[] = {"work", NULL};
	static const char *const fence_members[] = {"wait", "signal", "value", NULL};
	struct sf_command command = {.line = line_of(load, node)};
	JsonObject *object;
	JsonNode *member;
	bool has_work;
	bool has_wait;
	bool has_signal;

	if (!read_object(load, node, "a command", &object, error))
		return FALSE;
	has_work = json_object_has_member(object, "work");
	has_wait = json_object_has_member(object, "wait");
	has_signal = json_object_has_member(object, "signal");
	if (has_work + has_wait + has_signal != 1)
		return fail(load, command.line, error,
			    "a command has exactly one of \"work\", \"wait\", \"signal\"");
	if (has_work) {
		command.kind = SF_COMMAND_WORK;
		if (!check_members(load, object, "a work command", work_members, error) ||
		    !parse_work(load, json_object_get_member(object, "work"), &command, error))
			return FALSE;
	} else {
		const char *kind = has_wait ? "wait" : "signal";

		command.kind = has_wait ? SF_COMMAND_WAIT : SF_COMMAND_SIGNAL;
		member = json_object_get_member(object, kind);
		command.line = line_of(load, member);
		if (!check_members(load, object, has_wait ? "a wait command" : "a signal command",
				   fence_members, error) ||
		    !resolve_command_fence(load, file, member, step->queue->process,
					   &command.binding, error) ||
		    !need_member(load, object, "value", has_wait ? "a wait" : "a signal", &member,
				 error) ||
		    !parse_value(load, member, !has_wait, &command.value, error))
			return FALSE;
	}
	g_array_append_val(step->commands, command);
	return TRUE;
}

static gboolean
parse_submit(const SfLoad *load, const SfFile *file, JsonObject *object, struct sf_step *step,
	     GError **error)
{
	static const char *const members[] = {"submit", "process", "commands", NULL};
	struct sf_process *process;
	gpointer queue = NULL;
	JsonNode *member;
	JsonArray *commands;
	uint64_t packets = 2; /* the UMD's begin and progress write (HPF-02) */

	if (!check_members(load, object, "a submit step", members, error) ||
	    !parse_step_process(load, file, object, &process, error) ||
	    !resolve_name(load, file, json_object_get_member(object, "submit"), "submit", process,
			  true, &queue, error) ||
	    !need_member(load, object, "commands", "a submit step", &member, error) ||
	    !read_array(load, member, "commands", &commands, error))
		return FALSE;
	step->queue = queue;
	step->commands = g_array_new(FALSE, FALSE, sizeof(struct sf_command));
	for (guint i = 0; i < json_array_get_length(commands); i++) {
		if (!parse_command(load, file, step, json_array_get_element(commands, i), error))
			return FALSE;
		packets++;
		/* LOG-05: on a user-mode queue each fence instruction has its log payload. */
		if (g_array_index(step->commands, struct sf_command, i).kind != SF_COMMAND_WORK &&
		    step->queue->config.mode == FSR_SUBMIT_USER_MODE)
			packets++;
	}
	if (step->queue->config.mode == FSR_SUBMIT_USER_MODE) {
		if (packets * SF_PACKET_BYTES > step->queue->ring_bytes)
			return fail(load, step->line, error,
				    "this command buffer takes %" G_GUINT64_FORMAT
				    " bytes of ring, more than the %u of queue \"%s\" "
				    "(\"ring-size-bytes\")",
				    packets * SF_PACKET_BYTES, step->queue->ring_bytes,
				    step->queue->name);
		step->ring_bytes = (uint32_t) (packets * SF_PACKET_BYTES);
	}
	return TRUE;
}

static gboolean
parse_cpu_signal(const SfLoad *load, const SfFile *file, JsonObject *object, struct sf_step *step,
		 GError **error)
{
	static const char *const members[] = {"cpu-signal", "process", "value", NULL};
	struct sf_process *process;
	gpointer binding = NULL;
	JsonNode *member;

	if (!check_members(load, object, "a cpu-signal step", members, error) ||
	    !parse_step_process(load, file, object, &process, error) ||
	    !resolve_name(load, file, json_object_get_member(object, "cpu-signal"), "cpu-signal",
			  process, false, &binding, error) ||
	    !need_member(load, object, "value", "a cpu-signal step", &member, error) ||
	    !parse_value(load, member, true, &step->value, error))
		return FALSE;
	step->binding = binding;
	return TRUE;
}

static gboolean
parse_cpu_wait(const SfLoad *load, const SfFile *file, JsonObject *object, struct sf_step *step,
	       GError **error)
{
	static const char *const members[] = {"cpu-wait", "process", "value", "timeout-ns",
					      "mode",     "async",   NULL};
	static const char *const modes[] = {"blocking", "polling", NULL};
	struct sf_process *process;
	gpointer binding = NULL;
	JsonNode *member;

	if (!check_members(load, object, "a cpu-wait step", members, error) ||
	    !parse_step_process(load, file, object, &process, error) ||
	    !resolve_name(load, file, json_object_get_member(object, "cpu-wait"), "cpu-wait",
			  process, false, &binding, error) ||
	    !need_member(load, object, "value", "a cpu-wait step", &member, error) ||
	    !parse_value(load, member, false, &step->value, error))
		return FALSE;
	step->binding = binding;
	step->timeout_ns = FSR_INFINITE;
	member = json_object_get_member(object, "timeout-ns");
	if (member && JSON_NODE_HOLDS_VALUE(member) &&
	    json_node_get_value_type(member) == G_TYPE_STRING) {
		if (strcmp(json_node_get_string(member), "infinite") != 0)
			return fail(load, line_of(load, member), error,
				    "\"timeout-ns\" must be an integer or \"infinite\", not \"%s\"",
				    json_node_get_string(member));
	} else if (member && !read_uint(load, member, "timeout-ns", 0, G_MAXINT64,
					&step->timeout_ns, error)) {
		return FALSE;
	}
	member = json_object_get_member(object, "mode");
	if (member) {
		guint mode;

		if (!read_keyword(load, member, "mode", modes, &mode, error))
			return FALSE;
		_Static_assert(FSR_WAIT_BLOCKING == 0 && FSR_WAIT_POLLING == 1, "modes[] order");
		step->mode = (enum fsr_wait_mode) mode;
	}
	member = json_object_get_member(object, "async");
	if (member && !read_bool(load, member, "async", &step->is_async, error))
		return FALSE;
	if (step->is_async && step->mode == FSR_WAIT_POLLING)
		return fail(load, line_of(load, member), error,
			    "an asynchronous wait is a blocking waiter in the OS: it cannot poll");
	return TRUE;
}

static gboolean parse_steps(const SfLoad *load, const SfFile *file, JsonNode *node,
			    bool is_top_level, GPtrArray *steps, GError **error);

static gboolean
parse_step(const SfLoad *load, const SfFile *file, JsonNode *node, bool is_top_level,
	   GPtrArray *steps, GError **error)
{
	static const char *const kinds[] = {"submit",     "cpu-signal", "cpu-wait",
					    "run-for-ns", "repeat",     NULL};
	static const char *const run_members[] = {"run-for-ns", NULL};
	static const char *const repeat_members[] = {"repeat", "steps", NULL};
	struct sf_step *step;
	JsonObject *object;
	JsonNode *member = NULL;
	int kind = -1;

	if (!read_object(load, node, "a step", &object, error))
		return FALSE;
	for (int k = 0; kinds[k]; k++) {
		JsonNode *candidate = json_object_get_member(object, kinds[k]);

		if (!candidate)
			continue;
		if (kind >= 0)
			return fail(load, line_of(load, candidate), error,
				    "a step is one thing: \"%s\" and \"%s\" cannot be in one step",
				    kinds[kind], kinds[k]);
		kind = k;
		member = candidate;
	}
	if (kind < 0)
		return fail(load, object_line(load, object), error,
			    "a step needs one of \"submit\", \"cpu-signal\", \"cpu-wait\", "
			    "\"run-for-ns\", \"repeat\"");
	step = g_new0(struct sf_step, 1);
	step->kind = (enum sf_step_kind) kind;
	step->line = line_of(load, member);
	g_ptr_array_add(steps, step);
	switch (step->kind) {
	case SF_STEP_SUBMIT:
		return parse_submit(load, file, object, step, error);
	case SF_STEP_CPU_SIGNAL:
		return parse_cpu_signal(load, file, object, step, error);
	case SF_STEP_CPU_WAIT:
		return parse_cpu_wait(load, file, object, step, error);
	case SF_STEP_RUN_FOR:
		return check_members(load, object, "a run-for-ns step", run_members, error) &&
		       read_uint(load, member, "run-for-ns", 1, G_MAXINT64, &step->duration_ns,
				 error);
	case SF_STEP_REPEAT:
		step->is_top_level = is_top_level;
		step->steps = g_ptr_array_new_with_free_func(step_free);
		if (!check_members(load, object, "a repeat step", repeat_members, error) ||
		    !read_uint(load, member, "repeat", 0, G_MAXINT64, &step->count, error) ||
		    !need_member(load, object, "steps", "a repeat step", &member, error))
			return FALSE;
		return parse_steps(load, file, member, false, step->steps, error);
	}
	g_assert_not_reached();
}

static gboolean
parse_steps(const SfLoad *load, const SfFile *file, JsonNode *node, bool is_top_level,
	    GPtrArray *steps, GError **error)
{
	JsonArray *array;

	if (!read_array(load, node, is_top_level ? "script" : "steps", &array, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(array); i++)
		if (!parse_step(load, file, json_array_get_element(array, i), is_top_level, steps,
				error))
			return FALSE;
	return TRUE;
}

static SfFile *
parse_file(const SfLoad *load, JsonNode *root, GError **error)
{
	static const char *const members[] = {"name",     "description", "seed",   "runtime",
					      "adapters", "processes",   "script", NULL};
	g_autoptr(SfFile) file = sf_file_new(load->path);
	JsonObject *object;
	JsonNode *member;
	JsonArray *array;
	const char *text;

	if (!read_object(load, root, "the top level", &object, error) ||
	    !check_members(load, object, "the top level", members, error))
		return NULL;
	member = json_object_get_member(object, "name");
	if (member && !read_name(load, member, "name", &text, error))
		return NULL;
	file->name = member ? g_strdup(text) : g_path_get_basename(load->path);
	member = json_object_get_member(object, "description");
	if (member && !read_string(load, member, "description", &text, error))
		return NULL;
	file->description =
	    member ? g_strdup(text) : g_strdup_printf("scenario file %s", load->path);
	member = json_object_get_member(object, "seed");
	if (member && !read_uint(load, member, "seed", 0, G_MAXINT64, &file->seed, error))
		return NULL;
	member = json_object_get_member(object, "runtime");
	if (member && !parse_runtime(load, file, member, error))
		return NULL;

	member = json_object_get_member(object, "adapters");
	if (member) {
		if (!read_array(load, member, "adapters", &array, error))
			return NULL;
		if (json_array_get_length(array) == 0) {
			fail(load, line_of(load, member), error,
			     "\"adapters\" is empty: leave it out for one default adapter");
			return NULL;
		}
		for (guint i = 0; i < json_array_get_length(array); i++)
			if (!parse_adapter(load, file, json_array_get_element(array, i), error))
				return NULL;
	} else {
		struct sf_adapter *adapter = g_new0(struct sf_adapter, 1);

		adapter->name = g_strdup("gpu0");
		adapter->line = object_line(load, object);
		fsr_adapter_config_init(&adapter->config);
		g_ptr_array_add(file->adapters, adapter);
	}

	if (!need_member(load, object, "processes", "the top level", &member, error) ||
	    !read_array(load, member, "processes", &array, error))
		return NULL;
	if (json_array_get_length(array) == 0) {
		fail(load, line_of(load, member), error, "\"processes\" is empty");
		return NULL;
	}
	for (guint i = 0; i < json_array_get_length(array); i++)
		if (!parse_process(load, file, json_array_get_element(array, i), error))
			return NULL;
	if (!resolve_opens(load, file, error))
		return NULL;

	if (!need_member(load, object, "script", "the top level", &member, error) ||
	    !parse_steps(load, file, member, true, file->script, error))
		return NULL;
	return g_steal_pointer(&file);
}

/* ---- loading ------------------------------------------------------------------------------ */

static gboolean
read_contents(const SfLoad *load, GString *contents, GError **error)
{
	FILE *stream = fopen(load->path, "rb");
	char buffer[16384];
	size_t count;
	int saved_errno;

	if (!stream)
		return fail(load, 0, error, "cannot open the file: %s", g_strerror(errno));
	while ((count = fread(buffer, 1, sizeof(buffer), stream)) > 0)
		g_string_append_len(contents, buffer, (gssize) count);
	saved_errno = errno;
	if (ferror(stream)) {
		fclose(stream);
		return fail(load, 0, error, "cannot read the file: %s", g_strerror(saved_errno));
	}
	fclose(stream);
	return TRUE;
}

/*
 * JSON-GLib's syntax errors read "<data>:LINE:COLUMN: Parse error: problem"; they become
 * "PATH:LINE: syntax error at column COLUMN: problem".
 */
static gboolean
fail_syntax(const SfLoad *load, const GError *json_error, GError **error)
{
	const char *message = json_error->message;
	const char *prefix = "<data>:";

	if (g_str_has_prefix(message, prefix)) {
		const char *start = message + strlen(prefix);
		char *end = NULL;
		guint64 line = g_ascii_strtoull(start, &end, 10);
		guint64 column = 0;
		bool has_column = false;

		if (end != start && *end == ':') {
			start = end + 1;
			column = g_ascii_strtoull(start, &end, 10);
			has_column = end != start;
		}
		if (has_column && line > 0 && line <= G_MAXUINT && g_str_has_prefix(end, ": ")) {
			message = end + 2;
			if (g_str_has_prefix(message, "Parse error: "))
				message += strlen("Parse error: ");
			return fail(load, (guint) line, error,
				    "syntax error at column %" G_GUINT64_FORMAT ": %s", column,
				    message);
		}
	}
	return fail(load, 0, error, "syntax error: %s", message);
}

static SfFile *
sf_file_load(const char *path, GError **error)
{
	g_autoptr(SfLoad) load = sf_load_new(path);
	g_autoptr(GString) contents = g_string_new(NULL);
	g_autoptr(JsonParser) parser = NULL;
	g_autoptr(GError) json_error = NULL;
	const char *invalid;
	JsonNode *root;

	if (!read_contents(load, contents, error))
		return NULL;
	if (!g_utf8_validate_len(contents->str, contents->len, &invalid)) {
		guint line = 1;

		for (const char *c = contents->str; c < invalid; c++)
			line += *c == '\n';
		{
			fail(load, line, error, "not UTF-8 text (or a NUL byte)");
			return NULL;
		}
	}
	parser = json_parser_new();
	g_signal_connect(parser, "object-start", G_CALLBACK(on_container_start), load);
	g_signal_connect(parser, "array-start", G_CALLBACK(on_container_start), load);
	g_signal_connect(parser, "object-end", G_CALLBACK(on_object_end), load);
	g_signal_connect(parser, "array-end", G_CALLBACK(on_array_end), load);
	g_signal_connect(parser, "object-member", G_CALLBACK(on_object_member), load);
	g_signal_connect(parser, "array-element", G_CALLBACK(on_array_element), load);
	if (!json_parser_load_from_data(parser, contents->str, (gssize) contents->len,
					&json_error)) {
		fail_syntax(load, json_error, error);
		return NULL;
	}
	if (load->duplicate_line) {
		fail(load, load->duplicate_line, error, "member \"%s\" appears twice",
		     load->duplicate_name);
		return NULL;
	}
	if (load->extra_value_line) {
		fail(load, load->extra_value_line, error,
		     "a second top-level value: a file holds one object");
		return NULL;
	}
	root = json_parser_get_root(parser);
	if (!root) {
		fail(load, 1, error, "the file holds no JSON value");
		return NULL;
	}
	if (JSON_NODE_HOLDS_OBJECT(root))
		g_hash_table_insert(
		    load->node_lines, root,
		    GUINT_TO_POINTER(object_line(load, json_node_get_object(root))));
	else
		g_hash_table_insert(load->node_lines, root, GUINT_TO_POINTER(1));
	return parse_file(load, root, error);
}

/* ---- running ------------------------------------------------------------------------------ */

/* A command buffer of a user-mode queue that may still hold ring space. */
struct sf_in_flight {
	uint64_t progress_value;
	uint32_t bytes;
};

struct sf_queue_state {
	fsr_handle context;
	fsr_handle hwqueue;
	GQueue in_flight; /* struct sf_in_flight, oldest first */
	uint64_t in_flight_bytes;
};

struct sf_run {
	const SfFile *file;
	struct fsr_scenario_totals *totals;
	struct fsr_runtime *runtime;
	uint64_t start_ns;
	uint32_t *adapter_ids;
	struct fsr_process **processes; /* NULL once terminated */
	fsr_handle *devices;
	struct sf_queue_state *queues;
	fsr_handle *fence_globals;   /* per fence */
	uint64_t *script_values;     /* per fence: see run_value */
	fsr_handle *binding_handles; /* per binding: the process-local handle */
	_Atomic uint64_t async_waits_ended;
	char *error;
	bool has_iteration; /* the error names the innermost repeat iteration already */
};

typedef struct sf_run SfRun;

static SfRun *
sf_run_new(const SfFile *file, struct fsr_scenario_totals *totals)
{
	SfRun *run = g_new0(SfRun, 1);

	run->file = file;
	run->totals = totals;
	run->adapter_ids = g_new0(uint32_t, file->adapters->len);
	run->processes = g_new0(struct fsr_process *, file->processes->len);
	run->devices = g_new0(fsr_handle, file->processes->len);
	run->queues = g_new0(struct sf_queue_state, file->queues->len);
	for (guint q = 0; q < file->queues->len; q++)
		g_queue_init(&run->queues[q].in_flight);
	run->fence_globals = g_new0(fsr_handle, file->fences->len);
	run->script_values = g_new0(uint64_t, file->fences->len);
	run->binding_handles = g_new0(fsr_handle, file->bindings->len);
	atomic_init(&run->async_waits_ended, 0);
	return run;
}

static void
sf_run_free(SfRun *run)
{
	/* Normally destroyed by run_teardown; this is for a run that could not get that far. */
	if (run->runtime)
		fsr_runtime_destroy(run->runtime);
	for (guint q = 0; q < run->file->queues->len; q++)
		g_queue_clear_full(&run->queues[q].in_flight, g_free);
	g_free(run->adapter_ids);
	g_free(run->processes);
	g_free(run->devices);
	g_free(run->queues);
	g_free(run->fence_globals);
	g_free(run->script_values);
	g_free(run->binding_handles);
	g_free(run->error);
	g_free(run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SfRun, sf_run_free)

static fsr_status run_fail(SfRun *run, guint line, fsr_status status, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

/* Notes "PATH:LINE: what: STATUS" (the first failure only) and returns `status`. */
static fsr_status
run_fail(SfRun *run, guint line, fsr_status status, const char *format, ...)
{
	g_autofree char *what = NULL;
	va_list args;

	if (run->error)
		return status;
	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	if (line > 0)
		run->error = g_strdup_printf("%s:%u: %s: %s", run->file->path, line, what,
					     fsr_status_name(status));
	else
		run->error =
		    g_strdup_printf("%s: %s: %s", run->file->path, what, fsr_status_name(status));
	return status;
}

static fsr_status
run_setup(SfRun *run, const struct fsr_scenario_options *options)
{
	const SfFile *file = run->file;
	struct fsr_runtime_config config = file->runtime_config;
	fsr_status status;

	config.clock_mode = options->clock_mode;
	config.seed = options->seed ? options->seed : file->seed;
	status = fsr_runtime_create(&config, &run->runtime);
	if (status != FSR_OK)
		return run_fail(run, 0, status, "fsr_runtime_create failed");
	for (guint a = 0; a < file->adapters->len; a++) {
		const struct sf_adapter *adapter = g_ptr_array_index(file->adapters, a);

		status = fsr_adapter_create(run->runtime, &adapter->config, &run->adapter_ids[a]);
		if (status != FSR_OK)
			return run_fail(run, adapter->line, status,
					"adapter \"%s\": fsr_adapter_create failed", adapter->name);
	}
	for (guint p = 0; p < file->processes->len; p++) {
		const struct sf_process *process = g_ptr_array_index(file->processes, p);

		status = fsr_process_create(run->runtime, process->name, &run->processes[p]);
		if (status != FSR_OK)
			return run_fail(run, process->line, status,
					"process \"%s\": fsr_process_create failed", process->name);
		status = fsr_device_create(run->processes[p], run->adapter_ids[process->adapter],
					   &run->devices[p]);
		if (status != FSR_OK)
			return run_fail(run, process->line, status,
					"process \"%s\": fsr_device_create failed", process->name);
	}
	for (guint q = 0; q < file->queues->len; q++) {
		const struct sf_queue *queue = g_ptr_array_index(file->queues, q);
		struct fsr_process *process = run->processes[queue->process->index];
		struct sf_queue_state *state = &run->queues[q];

		status = fsr_context_create(process, run->devices[queue->process->index],
					    queue->engine, &state->context);
		if (status == FSR_OK)
			status = fsr_hwqueue_create(process, state->context, &queue->config,
						    &state->hwqueue);
		if (status != FSR_OK)
			return run_fail(run, queue->line, status,
					"queue \"%s\" of process \"%s\": creating it failed",
					queue->name, queue->process->name);
	}
	/* Created fences first, so that every global handle exists when the opens come. */
	for (int pass = 0; pass < 2; pass++) {
		for (guint b = 0; b < file->bindings->len; b++) {
			const struct sf_binding *binding = g_ptr_array_index(file->bindings, b);
			const struct sf_fence *fence = binding->fence;
			guint p = binding->process->index;

			if (binding->is_opened != (pass == 1))
				continue;
			if (!binding->is_opened) {
				status = fsr_fence_create(
				    run->processes[p], run->devices[p], fence->initial,
				    fence->is_shared ? FSR_FENCE_SHARED : 0,
				    &run->binding_handles[b], &run->fence_globals[fence->index]);
				run->script_values[fence->index] = fence->initial;
			} else {
				status = fsr_fence_open(run->processes[p], run->devices[p],
							run->fence_globals[fence->index],
							&run->binding_handles[b]);
			}
			if (status != FSR_OK)
				return run_fail(run, binding->line, status,
						"fence \"%s\" of process \"%s\": %s failed",
						binding->name, binding->process->name,
						binding->is_opened ? "fsr_fence_open"
								   : "fsr_fence_create");
		}
	}
	run->start_ns = fsr_runtime_now_ns(run->runtime);
	return FSR_OK;
}

/*
 * A fence value as the script means it. Each fence has a script value: its initial value,
 * raised by every signal the script records (a GPU signal command or a cpu-signal step) to the
 * value signalled when that is higher. "+K" is the script value + K, "-K" the script value - K
 * or 0 if that is negative. The script value follows the script, not the GPU: it moves when a
 * signal is recorded, however long the GPU takes to execute it.
 */
static fsr_status
run_value(SfRun *run, guint line, const struct sf_binding *binding, const struct sf_value *value,
	  uint64_t *result)
{
	uint64_t script_value = run->script_values[binding->fence->index];

	if (!value->is_relative) {
		*result = value->absolute;
	} else if (value->delta >= 0) {
		if (script_value > UINT64_MAX - (uint64_t) value->delta)
			return run_fail(run, line, FSR_ERR_INVALID_ARGUMENT,
					"fence \"%s\" at %" G_GUINT64_FORMAT " + %" G_GINT64_FORMAT
					" overflows",
					binding->name, script_value, value->delta);
		*result = script_value + (uint64_t) value->delta;
	} else {
		uint64_t below = (uint64_t) -value->delta;

		*result = script_value > below ? script_value - below : 0;
	}
	return FSR_OK;
}

static void
note_signal(SfRun *run, const struct sf_binding *binding, uint64_t value)
{
	uint64_t *script_value = &run->script_values[binding->fence->index];

	*script_value = MAX(*script_value, value);
}

/*
 * A UMD waits for ring space on the queue's progress fence: keep the bytes of the buffers
 * that may not be done within the ring, waiting for the oldest one when they would not be.
 */
static fsr_status
make_ring_room(SfRun *run, const struct sf_step *step)
{
	const struct sf_queue *queue = step->queue;
	struct sf_queue_state *state = &run->queues[queue->index];
	struct fsr_process *process = run->processes[queue->process->index];

	while (state->in_flight_bytes + step->ring_bytes > queue->ring_bytes) {
		struct sf_in_flight *oldest = g_queue_pop_head(&state->in_flight);
		fsr_status status;

		g_assert(oldest);
		status = fsr_hwqueue_wait_progress(process, state->hwqueue, oldest->progress_value,
						   FSR_INFINITE);
		state->in_flight_bytes -= oldest->bytes;
		g_free(oldest);
		if (status != FSR_OK)
			return run_fail(run, step->line, status,
					"the ring of queue \"%s\" is full and its oldest command "
					"buffer does not complete (a GPU wait that nothing "
					"signals?)",
					queue->name);
	}
	return FSR_OK;
}

static fsr_status
run_command(SfRun *run, const struct sf_step *step, struct fsr_cmdbuf *cmdbuf,
	    const struct sf_command *command, uint64_t *work_ticks)
{
	const struct sf_binding *binding = command->binding;
	fsr_handle handle;
	uint64_t value;
	fsr_status status;

	if (command->kind == SF_COMMAND_WORK) {
		uint64_t ticks = command->work_min;

		if (command->work_max > command->work_min)
			ticks += fsr_runtime_random(run->runtime) %
				 (command->work_max - command->work_min + 1);
		status = fsr_cmdbuf_work(cmdbuf, ticks);
		if (status != FSR_OK)
			return run_fail(run, command->line, status,
					"work of %" G_GUINT64_FORMAT
					" GPU ticks on queue \"%s\": fsr_cmdbuf_work failed",
					ticks, step->queue->name);
		*work_ticks += ticks;
		return FSR_OK;
	}
	status = run_value(run, command->line, binding, &command->value, &value);
	if (status != FSR_OK)
		return status;
	handle = run->binding_handles[binding->index];
	if (command->kind == SF_COMMAND_WAIT) {
		status = fsr_cmdbuf_wait(cmdbuf, handle, value);
	} else {
		status = fsr_cmdbuf_signal(cmdbuf, handle, value);
		if (status == FSR_OK)
			note_signal(run, binding, value);
	}
	if (status != FSR_OK)
		return run_fail(run, command->line, status,
				"%s \"%s\" %" G_GUINT64_FORMAT " on queue \"%s\": %s failed",
				command->kind == SF_COMMAND_WAIT ? "wait for" : "signal of",
				binding->name, value, step->queue->name,
				command->kind == SF_COMMAND_WAIT ? "fsr_cmdbuf_wait"
								 : "fsr_cmdbuf_signal");
	return FSR_OK;
}

static fsr_status
run_submit(SfRun *run, const struct sf_step *step)
{
	const struct sf_queue *queue = step->queue;
	struct sf_queue_state *state = &run->queues[queue->index];
	struct fsr_process *process = run->processes[queue->process->index];
	bool is_user_mode = queue->config.mode == FSR_SUBMIT_USER_MODE;
	struct fsr_scenario_totals *totals = run->totals;
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t work_ticks = 0;
	uint64_t waits = 0;
	uint64_t signals = 0;
	uint64_t progress_value = 0;
	fsr_status status;

	if (is_user_mode) {
		status = make_ring_room(run, step);
		if (status != FSR_OK)
			return status;
	}
	status = fsr_cmdbuf_create(process, state->hwqueue, &cmdbuf);
	if (status != FSR_OK)
		return run_fail(run, step->line, status, "queue \"%s\": fsr_cmdbuf_create failed",
				queue->name);
	for (guint c = 0; c < step->commands->len; c++) {
		const struct sf_command *command =
		    &g_array_index(step->commands, struct sf_command, c);

		status = run_command(run, step, cmdbuf, command, &work_ticks);
		if (status != FSR_OK) {
			fsr_cmdbuf_destroy(cmdbuf);
			return status;
		}
		waits += command->kind == SF_COMMAND_WAIT;
		signals += command->kind == SF_COMMAND_SIGNAL;
	}
	/* The buffer is freed whatever submit returns. */
	status = fsr_cmdbuf_submit(cmdbuf, &progress_value);
	if (status != FSR_OK)
		return run_fail(run, step->line, status, "queue \"%s\": fsr_cmdbuf_submit failed",
				queue->name);
	totals->submissions++;
	totals->work_gpu_ticks += work_ticks;
	if (is_user_mode) {
		struct sf_in_flight *in_flight = g_new(struct sf_in_flight, 1);

		totals->gpu_waits += waits;
		totals->gpu_signals += signals;
		in_flight->progress_value = progress_value;
		in_flight->bytes = step->ring_bytes;
		g_queue_push_tail(&state->in_flight, in_flight);
		state->in_flight_bytes += step->ring_bytes;
	} else {
		totals->kernel_waits += waits;
		totals->kernel_signals += signals;
	}
	return FSR_OK;
}

static fsr_status
run_cpu_signal(SfRun *run, const struct sf_step *step)
{
	const struct sf_binding *binding = step->binding;
	struct fsr_process *process = run->processes[binding->process->index];
	fsr_handle handle = run->binding_handles[binding->index];
	uint64_t value;
	uint64_t current = 0;
	fsr_status status;

	status = run_value(run, step->line, binding, &step->value, &value);
	if (status != FSR_OK)
		return status;
	status = fsr_fence_signal_cpu(process, handle, value);
	if (status == FSR_ERR_VALUE_REGRESSION &&
	    fsr_fence_read(process, handle, &current) == FSR_OK)
		return run_fail(run, step->line, status,
				"cpu-signal of \"%s\" to %" G_GUINT64_FORMAT
				" in process \"%s\", below its current value %" G_GUINT64_FORMAT,
				binding->name, value, binding->process->name, current);
	if (status != FSR_OK)
		return run_fail(run, step->line, status,
				"cpu-signal of \"%s\" to %" G_GUINT64_FORMAT
				" in process \"%s\": fsr_fence_signal_cpu failed",
				binding->name, value, binding->process->name);
	note_signal(run, binding, value);
	run->totals->cpu_signals++;
	return FSR_OK;
}

static void
on_async_wait_end(fsr_status status, uint64_t observed_value, void *user_data)
{
	SfRun *run = user_data;

	(void) status;
	(void) observed_value;
	/* In realtime mode this runs on the OS's thread. */
	atomic_fetch_add(&run->async_waits_ended, 1);
}

static fsr_status
run_cpu_wait(SfRun *run, const struct sf_step *step)
{
	const struct sf_binding *binding = step->binding;
	struct fsr_process *process = run->processes[binding->process->index];
	fsr_handle handle = run->binding_handles[binding->index];
	uint64_t value;
	fsr_status status;

	status = run_value(run, step->line, binding, &step->value, &value);
	if (status != FSR_OK)
		return status;
	if (step->is_async) {
		/* Counted when its callback runs (on_async_wait_end). */
		status = fsr_fence_wait_cpu_async(process, handle, value, step->timeout_ns,
						  on_async_wait_end, run);
		if (status != FSR_OK)
			return run_fail(run, step->line, status,
					"cpu-wait for \"%s\" >= %" G_GUINT64_FORMAT
					" in process \"%s\": fsr_fence_wait_cpu_async failed",
					binding->name, value, binding->process->name);
		return FSR_OK;
	}
	status = fsr_fence_wait_cpu(process, handle, value, step->timeout_ns, step->mode);
	/* A wait that began ended, whatever its result; a refused call never began. */
	if (status == FSR_OK || status == FSR_ERR_TIMEOUT || status == FSR_ERR_BAD_STATE ||
	    status == FSR_ERR_DESTROYED)
		run->totals->cpu_waits++;
	/* A timeout is a result the script asked for; nothing else is. */
	if (status == FSR_ERR_BAD_STATE)
		return run_fail(run, step->line, status,
				"cpu-wait for \"%s\" >= %" G_GUINT64_FORMAT
				" in process \"%s\": nothing left to run can signal it",
				binding->name, value, binding->process->name);
	if (status != FSR_OK && status != FSR_ERR_TIMEOUT)
		return run_fail(run, step->line, status,
				"cpu-wait for \"%s\" >= %" G_GUINT64_FORMAT
				" in process \"%s\": fsr_fence_wait_cpu failed",
				binding->name, value, binding->process->name);
	return FSR_OK;
}

static fsr_status
run_for(SfRun *run, const struct sf_step *step)
{
	uint64_t now = fsr_runtime_now_ns(run->runtime);
	uint64_t until =
	    now > UINT64_MAX - step->duration_ns ? UINT64_MAX - 1 : now + step->duration_ns;
	fsr_status status = fsr_runtime_run_until(run->runtime, until);

	if (status != FSR_OK)
		return run_fail(run, step->line, status,
				"run-for-ns %" G_GUINT64_FORMAT ": fsr_runtime_run_until failed",
				step->duration_ns);
	return FSR_OK;
}

static fsr_status run_steps(SfRun *run, const GPtrArray *steps, uint64_t scale);

static fsr_status
run_repeat(SfRun *run, const struct sf_step *step, uint64_t scale)
{
	uint64_t count = step->count;

	/* `scale` multiplies the repeat counts of the top level only (docs/scenarios.md). */
	if (step->is_top_level && scale > 0) {
		if (count > 0 && scale > UINT64_MAX / count)
			return run_fail(run, step->line, FSR_ERR_INVALID_ARGUMENT,
					"repeat %" G_GUINT64_FORMAT
					" times scale %" G_GUINT64_FORMAT " overflows",
					count, scale);
		count *= scale;
	}
	for (uint64_t i = 0; i < count; i++) {
		fsr_status status = run_steps(run, step->steps, scale);

		if (status != FSR_OK) {
			if (!run->has_iteration) {
				char *error = g_strdup_printf("%s (iteration %" G_GUINT64_FORMAT
							      " of %" G_GUINT64_FORMAT
							      " of the repeat at line %u)",
							      run->error, i + 1, count, step->line);

				g_free(run->error);
				run->error = error;
				run->has_iteration = true;
			}
			return status;
		}
	}
	return FSR_OK;
}

static fsr_status
run_steps(SfRun *run, const GPtrArray *steps, uint64_t scale)
{
	for (guint i = 0; i < steps->len; i++) {
		const struct sf_step *step = g_ptr_array_index(steps, i);
		fsr_status status = FSR_OK;

		switch (step->kind) {
		case SF_STEP_SUBMIT:
			status = run_submit(run, step);
			break;
		case SF_STEP_CPU_SIGNAL:
			status = run_cpu_signal(run, step);
			break;
		case SF_STEP_CPU_WAIT:
			status = run_cpu_wait(run, step);
			break;
		case SF_STEP_RUN_FOR:
			status = run_for(run, step);
			break;
		case SF_STEP_REPEAT:
			status = run_repeat(run, step, scale);
			break;
		}
		if (status != FSR_OK)
			return status;
	}
	return FSR_OK;
}

/* Lets everything run, then checks that every command buffer the script submitted is done. */
static fsr_status
run_drain(SfRun *run)
{
	const SfFile *file = run->file;
	fsr_status status = fsr_runtime_run_until_idle(run->runtime);

	if (status != FSR_OK)
		return run_fail(run, 0, status, "fsr_runtime_run_until_idle failed");
	for (guint q = 0; q < file->queues->len; q++) {
		const struct sf_queue *queue = g_ptr_array_index(file->queues, q);
		uint64_t queued = 0;
		uint64_t completed = 0;

		status = fsr_hwqueue_get_progress(run->processes[queue->process->index],
						  run->queues[q].hwqueue, &queued, &completed);
		if (status != FSR_OK)
			return run_fail(run, queue->line, status,
					"queue \"%s\": fsr_hwqueue_get_progress failed",
					queue->name);
		if (completed < queued)
			return run_fail(run, queue->line, FSR_ERR_BAD_STATE,
					"queue \"%s\" of process \"%s\" is blocked when the script "
					"ends, with %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
					" command buffers done (a GPU wait that nothing signals?)",
					queue->name, queue->process->name, completed, queued);
	}
	return FSR_OK;
}

/*
 * Terminates the processes (normally, letting their work finish; abnormally after a failure,
 * which may have left a queue blocked), records the runtime's counts and destroys it.
 */
static fsr_status
run_teardown(SfRun *run, fsr_status status)
{
	const SfFile *file = run->file;
	struct fsr_runtime_stats stats;

	if (!run->runtime)
		return status;
	for (guint p = 0; p < file->processes->len; p++) {
		const struct sf_process *process = g_ptr_array_index(file->processes, p);
		fsr_status terminated;

		if (!run->processes[p])
			continue;
		terminated = fsr_process_terminate(run->processes[p], status != FSR_OK);
		run->processes[p] = NULL;
		if (status == FSR_OK && terminated != FSR_OK)
			status =
			    run_fail(run, process->line, terminated,
				     "process \"%s\": fsr_process_terminate failed", process->name);
	}
	fsr_runtime_get_stats(run->runtime, &stats);
	run->totals->log_entries_read = stats.log_entries_read;
	run->totals->log_entries_lost = stats.log_entries_lost;
	run->totals->events = stats.events;
	if (fsr_runtime_get_clock_mode(run->runtime) == FSR_CLOCK_SIM)
		run->totals->virtual_ns = fsr_runtime_now_ns(run->runtime) - run->start_ns;
	fsr_runtime_destroy(run->runtime);
	run->runtime = NULL;
	return status;
}

static fsr_status
sf_file_run(const struct fsr_scenario *scenario, const struct fsr_scenario_options *options,
	    struct fsr_scenario_totals *totals, char **error)
{
	g_autoptr(SfRun) run = NULL;
	fsr_status status;

	if (error)
		*error = NULL;
	if (!scenario || !scenario->data || !options || !totals)
		return FSR_ERR_INVALID_ARGUMENT;
	*totals = (struct fsr_scenario_totals){0};
	run = sf_run_new(scenario->data, totals);
	status = run_setup(run, options);
	if (status == FSR_OK)
		status = run_steps(run, run->file->script, options->scale);
	if (status == FSR_OK)
		status = run_drain(run);
	status = run_teardown(run, status);
	/* Every asynchronous wait has ended by now: the runtime ends them when it goes. */
	totals->cpu_waits += atomic_load(&run->async_waits_ended);
	if (status != FSR_OK && error)
		*error = strdup(run->error ? run->error : fsr_status_name(status));
	return status;
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
	file = sf_file_load(path, &local_error);
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
