/* SPDX-License-Identifier: MIT */
/*
 * Parsing a scenario file (file-private.h): the top level, the runtime, the adapters and the
 * processes with their queues and fences, and the references between processes (SHF-02);
 * the script's steps are file-parse-steps.c's. Loading checks all that can be checked without
 * running; what only the runtime can refuse is reported by file-run.c.
 */
#include <string.h>

#include "file-private.h"

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

	if (!sf_read_object(load, node, "\"runtime\"", &object, error) ||
	    !sf_check_members(load, object, "\"runtime\"", members, error))
		return FALSE;
	member = json_object_get_member(object, "log-read-period-ns");
	if (member && JSON_NODE_HOLDS_VALUE(member) &&
	    json_node_get_value_type(member) == G_TYPE_STRING) {
		const char *text = json_node_get_string(member);

		if (strcmp(text, "never") != 0)
			return sf_fail(
			    load, sf_line_of(load, member), error,
			    "\"log-read-period-ns\" must be an integer or \"never\", not "
			    "\"%s\"",
			    text);
		config->log_read_period_ns = FSR_INFINITE;
	} else if (member && !sf_read_uint(load, member, "log-read-period-ns", 1, G_MAXINT64,
					   &config->log_read_period_ns, error)) {
		return FALSE;
	}
	member = json_object_get_member(object, "interrupt-latency-ns");
	if (member && !sf_read_uint(load, member, "interrupt-latency-ns", 1, G_MAXINT64,
				    &config->interrupt_latency_ns, error))
		return FALSE;
	member = json_object_get_member(object, "clock-correlation-period-ns");
	if (member && !sf_read_uint(load, member, "clock-correlation-period-ns", 1, G_MAXINT64,
				    &config->clock_correlation_period_ns, error))
		return FALSE;
	return TRUE;
}

/* The fault kinds as files name them: the trace's names in lower case, '-' for '_'. */
static const char *const fault_kind_names[] = {
    "hung-engine",    "ignores-preemption", "lost-interrupt",    "delayed-interrupt",
    "corrupt-packet", "process-killed",     "log-overrun-storm", NULL};

/* One fault of "faults"' "list": its kind, adapter (by name), engine, when, parameter. */
static gboolean
parse_fault(const SfLoad *load, SfFile *file, JsonNode *node, struct fsr_fault *fault,
	    GError **error)
{
	static const char *const members[] = {"kind", "adapter",   "engine", "at-ns",
					      "nth",  "parameter", NULL};
	JsonObject *object;
	JsonNode *member;
	guint kind;
	uint64_t number;

	*fault = (struct fsr_fault){.engine_id = FSR_FAULT_ANY_ENGINE};
	if (!sf_read_object(load, node, "a fault", &object, error) ||
	    !sf_check_members(load, object, "a fault", members, error) ||
	    !sf_need_member(load, object, "kind", "a fault", &member, error) ||
	    !sf_read_keyword(load, member, "kind", fault_kind_names, &kind, error))
		return FALSE;
	fault->kind = (enum fsr_fault_kind) kind;
	member = json_object_get_member(object, "adapter");
	if (member) {
		const char *name;
		guint a;

		if (!sf_read_name(load, member, "adapter", &name, error))
			return FALSE;
		for (a = 0; a < file->adapters->len; a++)
			if (!strcmp(
				((struct sf_adapter *) g_ptr_array_index(file->adapters, a))->name,
				name))
				break;
		if (a == file->adapters->len)
			return sf_fail(load, sf_line_of(load, member), error,
				       "no adapter is named \"%s\"", name);
		fault->adapter_id = a;
	}
	member = json_object_get_member(object, "engine");
	if (member && !sf_read_uint(load, member, "engine", 0, FSR_MAX_ENGINES - 1, &number, error))
		return FALSE;
	if (member)
		fault->engine_id = (uint32_t) number;
	member = json_object_get_member(object, "at-ns");
	if (member && !sf_read_uint(load, member, "at-ns", 0, G_MAXINT64, &fault->at_ns, error))
		return FALSE;
	member = json_object_get_member(object, "nth");
	if (member && !sf_read_uint(load, member, "nth", 1, G_MAXUINT32, &number, error))
		return FALSE;
	if (member)
		fault->nth = (uint32_t) number;
	member = json_object_get_member(object, "parameter");
	if (member &&
	    !sf_read_uint(load, member, "parameter", 0, G_MAXINT64, &fault->parameter, error))
		return FALSE;
	if (fault->kind == FSR_FAULT_DELAYED_INTERRUPT && fault->parameter &&
	    fault->parameter < FSR_FAULT_MIN_DELAY_NS)
		return sf_fail(load, sf_line_of(load, member), error,
			       "a delayed interrupt's \"parameter\" is at least %llu ns",
			       (unsigned long long) FSR_FAULT_MIN_DELAY_NS);
	if (fault->kind == FSR_FAULT_LOG_OVERRUN_STORM && fault->parameter > 64)
		return sf_fail(load, sf_line_of(load, member), error,
			       "a storm's \"parameter\" is at most 64 capacities");
	return TRUE;
}

/*
 * "faults" (docs/scenarios.md, docs/robustness.md): the runtime's fault plan — "list", faults
 * at chosen points, and a seeded random plan ("seed", "rates" in faults per million
 * opportunities by kind, "max").
 */
static gboolean
parse_faults(const SfLoad *load, SfFile *file, JsonNode *node, GError **error)
{
	static const char *const members[] = {"list", "seed", "rates", "max", NULL};
	struct fsr_fault_plan *plan = &file->faults;
	JsonObject *object;
	JsonNode *member;
	JsonArray *array;
	uint64_t number;

	if (!sf_read_object(load, node, "\"faults\"", &object, error) ||
	    !sf_check_members(load, object, "\"faults\"", members, error))
		return FALSE;
	member = json_object_get_member(object, "list");
	if (member) {
		if (!sf_read_array(load, member, "list", &array, error))
			return FALSE;
		if (json_array_get_length(array) > FSR_MAX_FAULTS)
			return sf_fail(load, sf_line_of(load, member), error,
				       "\"list\" holds at most %d faults", FSR_MAX_FAULTS);
		for (guint i = 0; i < json_array_get_length(array); i++)
			if (!parse_fault(load, file, json_array_get_element(array, i),
					 &plan->faults[plan->count++], error))
				return FALSE;
	}
	member = json_object_get_member(object, "seed");
	if (member && !sf_read_uint(load, member, "seed", 1, G_MAXINT64, &plan->random_seed, error))
		return FALSE;
	member = json_object_get_member(object, "max");
	if (member && !sf_read_uint(load, member, "max", 1, G_MAXUINT32, &number, error))
		return FALSE;
	if (member)
		plan->random_max = (uint32_t) number;
	member = json_object_get_member(object, "rates");
	if (member) {
		JsonObject *rates;

		if (!sf_read_object(load, member, "\"rates\"", &rates, error) ||
		    !sf_check_members(load, rates, "\"rates\"", fault_kind_names, error))
			return FALSE;
		for (int kind = 0; kind < FSR_FAULT_KIND_COUNT; kind++) {
			JsonNode *rate = json_object_get_member(rates, fault_kind_names[kind]);

			if (rate && !sf_read_uint(load, rate, fault_kind_names[kind], 0, 1000000,
						  &number, error))
				return FALSE;
			if (rate)
				plan->random_ppm[kind] = (uint32_t) number;
		}
	}
	file->has_faults = true;
	return TRUE;
}

static gboolean
parse_engines(const SfLoad *load, JsonNode *node, struct fsr_adapter_config *config, GError **error)
{
	JsonArray *array;
	guint length;

	if (!sf_read_array(load, node, "engines", &array, error))
		return FALSE;
	length = json_array_get_length(array);
	if (length == 0 || length > FSR_MAX_ENGINES)
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"engines\" must list 1 to %d engines, not %u", FSR_MAX_ENGINES,
			       length);
	config->engine_count = length;
	for (guint e = 0; e < length; e++) {
		guint type;

		if (!sf_read_keyword(load, json_array_get_element(array, e), "engines",
				     engine_names, &type, error))
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
					      "interrupt-coalesce-ns",
					      "displays",
					      "vsync-period-ns",
					      "native-fences",
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

	if (!sf_read_object(load, node, "an adapter", &object, error) ||
	    !sf_check_members(load, object, "an adapter", members, error) ||
	    !sf_need_member(load, object, "name", "an adapter", &member, error) ||
	    !sf_read_name(load, member, "name", &name, error))
		return FALSE;
	for (guint i = 0; i < file->adapters->len; i++) {
		if (strcmp(((struct sf_adapter *) g_ptr_array_index(file->adapters, i))->name,
			   name) == 0)
			return sf_fail(load, sf_line_of(load, member), error,
				       "a second adapter named \"%s\"", name);
	}
	if (file->adapters->len == SF_MAX_ADAPTERS)
		return sf_fail(load, sf_line_of(load, node), error,
			       "the runtime takes at most %d adapters", SF_MAX_ADAPTERS);
	adapter = g_new0(struct sf_adapter, 1);
	adapter->name = g_strdup(name);
	adapter->line = sf_line_of(load, node);
	g_ptr_array_add(file->adapters, adapter);
	config = &adapter->config;
	fsr_adapter_config_init(config);

	member = json_object_get_member(object, "engines");
	if (member && !parse_engines(load, member, config, error))
		return FALSE;
	member = json_object_get_member(object, "gpu-frequency-hz");
	if (member) {
		if (!sf_read_uint(load, member, "gpu-frequency-hz", 1, G_MAXINT64, &number, error))
			return FALSE;
		config->gpu_ts_frequency_hz = number;
	}
	member = json_object_get_member(object, "gpu-ts-offset");
	if (member && !sf_read_uint(load, member, "gpu-ts-offset", 0, G_MAXINT64,
				    &config->gpu_ts_offset, error))
		return FALSE;
	member = json_object_get_member(object, "gpu-ts-drift-ppm");
	if (member) {
		gint64 drift;

		if (!JSON_NODE_HOLDS_VALUE(member) ||
		    json_node_get_value_type(member) != G_TYPE_INT64)
			return sf_fail(load, sf_line_of(load, member), error,
				       "\"gpu-ts-drift-ppm\" must be an integer, not %s",
				       sf_describe(member));
		drift = json_node_get_int(member);
		if (drift < -SF_MAX_DRIFT_PPM || drift > SF_MAX_DRIFT_PPM)
			return sf_fail(
			    load, sf_line_of(load, member), error,
			    "\"gpu-ts-drift-ppm\" must be between -%d and %d (%" G_GINT64_FORMAT
			    ")",
			    SF_MAX_DRIFT_PPM, SF_MAX_DRIFT_PPM, drift);
		config->gpu_ts_drift_ppm = (int32_t) drift;
	}
	member = json_object_get_member(object, "log-entries");
	if (member) {
		if (!sf_read_uint(load, member, "log-entries", 1, FSR_MAX_LOG_ENTRIES, &number,
				  error))
			return FALSE;
		config->log_capacity_entries = (uint32_t) number;
	}
	member = json_object_get_member(object, "keep-log-size-when-tracing");
	if (member && !sf_read_bool(load, member, "keep-log-size-when-tracing",
				    &config->keep_log_size_when_tracing, error))
		return FALSE;
	member = json_object_get_member(object, "interrupt-form");
	if (member) {
		guint form;

		if (!sf_read_keyword(load, member, "interrupt-form", forms, &form, error))
			return FALSE;
		config->interrupt_form = form_values[form];
	}
	member = json_object_get_member(object, "interrupt-coalesce-ns");
	if (member &&
	    !sf_read_uint(load, member, "interrupt-coalesce-ns", 0, FSR_MAX_INTERRUPT_COALESCE_NS,
			  &config->interrupt_coalesce_ns, error))
		return FALSE;
	/* PRE-13: displays (VidPN sources) with their vsync, for present steps. */
	member = json_object_get_member(object, "displays");
	if (member) {
		if (!sf_read_uint(load, member, "displays", 0, FSR_MAX_DISPLAYS, &number, error))
			return FALSE;
		config->display_count = (uint32_t) number;
	}
	member = json_object_get_member(object, "vsync-period-ns");
	if (member && !sf_read_uint(load, member, "vsync-period-ns", FSR_MIN_VSYNC_PERIOD_NS,
				    FSR_MAX_VSYNC_PERIOD_NS, &config->vsync_period_ns, error))
		return FALSE;
	/* XAD-10, XAD-11, XAD-17: an adapter without native fences (spec 001's scenario 2). */
	member = json_object_get_member(object, "native-fences");
	if (member) {
		bool is_native;

		if (!sf_read_bool(load, member, "native-fences", &is_native, error))
			return FALSE;
		config->no_native_fences = !is_native;
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

		if (!sf_read_keyword(load, node, "engine", engine_names, &type, error))
			return FALSE;
		for (uint32_t e = 0; e < config->engine_count; e++) {
			if (config->engine_types[e] == (enum fsr_engine_type) type) {
				*engine = e;
				return TRUE;
			}
		}
		return sf_fail(load, sf_line_of(load, node), error,
			       "adapter \"%s\" has no %s engine", adapter->name,
			       engine_names[type]);
	}
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
		return sf_fail(
		    load, sf_line_of(load, node), error,
		    "\"engine\" must be an engine index or one of 3d, compute, copy, not %s",
		    sf_describe(node));
	if (json_node_get_int(node) < 0 || json_node_get_int(node) >= config->engine_count)
		return sf_fail(load, sf_line_of(load, node), error,
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

	if (!sf_read_object(load, node, "a queue", &object, error) ||
	    !sf_check_members(load, object, "a queue", members, error) ||
	    !sf_need_member(load, object, "name", "a queue", &member, error) ||
	    !sf_read_name(load, member, "name", &name, error))
		return FALSE;
	if (sf_find_queue(file, process, name))
		return sf_fail(load, sf_line_of(load, member), error,
			       "process \"%s\" has a second queue named \"%s\"", process->name,
			       name);
	if (!sf_need_member(load, object, "engine", "a queue", &member, error) ||
	    !parse_engine(load, member, adapter, &engine, error) ||
	    !sf_need_member(load, object, "mode", "a queue", &member, error) ||
	    !sf_read_keyword(load, member, "mode", modes, &mode, error))
		return FALSE;
	_Static_assert(FSR_SUBMIT_KERNEL_MODE == 0 && FSR_SUBMIT_USER_MODE == 1, "modes[] order");
	if (mode == FSR_SUBMIT_USER_MODE && adapter->config.engine_types[engine] == FSR_ENGINE_COPY)
		return sf_fail(load, sf_line_of(load, member), error,
			       "a copy engine takes no user-mode queue (UMS-05): use \"kernel\"");
	if (mode == FSR_SUBMIT_USER_MODE && adapter->config.no_native_fences)
		return sf_fail(load, sf_line_of(load, member), error,
			       "adapter \"%s\" has no native fences: it takes no user-mode queue, "
			       "use \"kernel\"",
			       adapter->name);
	member = json_object_get_member(object, "ring-size-bytes");
	if (member) {
		if (mode != FSR_SUBMIT_USER_MODE)
			return sf_fail(load, sf_line_of(load, member), error,
				       "\"ring-size-bytes\" is for user-mode queues only");
		if (!sf_read_uint(load, member, "ring-size-bytes", 8 * SF_PACKET_BYTES,
				  SF_MAX_RING_BYTES, &ring_bytes, error))
			return FALSE;
		if (ring_bytes % SF_PACKET_BYTES != 0)
			return sf_fail(
			    load, sf_line_of(load, member), error,
			    "\"ring-size-bytes\" must be a multiple of %u (%" G_GUINT64_FORMAT ")",
			    SF_PACKET_BYTES, ring_bytes);
	}
	queue = g_new0(struct sf_queue, 1);
	queue->name = g_strdup(name);
	queue->line = sf_line_of(load, node);
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

	if (sf_find_binding(file, process, name)) {
		sf_fail(load, sf_line_of(load, name_node), error,
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
	static const char *const members[] = {"name", "initial", "shared", "cross-adapter", NULL};
	struct sf_binding *binding;
	struct sf_fence *fence;
	JsonObject *object;
	JsonNode *member;
	JsonNode *name_node;
	const char *name;

	if (!sf_read_object(load, node, "a fence", &object, error) ||
	    !sf_check_members(load, object, "a fence", members, error) ||
	    !sf_need_member(load, object, "name", "a fence", &name_node, error) ||
	    !sf_read_name(load, name_node, "name", &name, error))
		return FALSE;
	binding = add_binding(load, file, process, name_node, name, error);
	if (!binding)
		return FALSE;
	binding->line = sf_line_of(load, node);
	fence = g_new0(struct sf_fence, 1);
	fence->index = file->fences->len;
	fence->owner = process;
	g_ptr_array_add(file->fences, fence);
	binding->fence = fence;
	member = json_object_get_member(object, "initial");
	if (member && !sf_read_uint(load, member, "initial", 0, G_MAXINT64, &fence->initial, error))
		return FALSE;
	member = json_object_get_member(object, "shared");
	if (member && !sf_read_bool(load, member, "shared", &fence->is_shared, error))
		return FALSE;
	/* XAD-01: processes of other adapters may open it; it is shared with them. */
	member = json_object_get_member(object, "cross-adapter");
	if (member && !sf_read_bool(load, member, "cross-adapter", &fence->is_cross_adapter, error))
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

	if (!sf_read_object(load, node, "an opened fence", &object, error) ||
	    !sf_check_members(load, object, "an opened fence", members, error) ||
	    !sf_need_member(load, object, "process", "an opened fence", &process_node, error) ||
	    !sf_read_name(load, process_node, "process", &other, error) ||
	    !sf_need_member(load, object, "fence", "an opened fence", &fence_node, error) ||
	    !sf_read_name(load, fence_node, "fence", &fence, error))
		return FALSE;
	name_node = json_object_get_member(object, "name");
	if (!name_node)
		name_node = fence_node; /* the name defaults to the opened fence's */
	if (!sf_read_name(load, name_node, "name", &name, error))
		return FALSE;
	binding = add_binding(load, file, process, name_node, name, error);
	if (!binding)
		return FALSE;
	binding->line = sf_line_of(load, node);
	binding->is_opened = true;
	binding->open_process = g_strdup(other);
	binding->open_fence = g_strdup(fence);
	binding->open_process_line = sf_line_of(load, process_node);
	binding->open_fence_line = sf_line_of(load, fence_node);
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
	if (!sf_read_array(load, member, name, &array, error))
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

	if (!sf_read_object(load, node, "a process", &object, error) ||
	    !sf_check_members(load, object, "a process", members, error) ||
	    !sf_need_member(load, object, "name", "a process", &member, error) ||
	    !sf_read_name(load, member, "name", &name, error))
		return FALSE;
	if (sf_find_process(file, name))
		return sf_fail(load, sf_line_of(load, member), error,
			       "a second process named \"%s\"", name);
	process = g_new0(struct sf_process, 1);
	process->name = g_strdup(name);
	process->line = sf_line_of(load, node);
	process->index = file->processes->len;
	g_ptr_array_add(file->processes, process);

	member = json_object_get_member(object, "adapter");
	if (member) {
		const char *adapter;
		guint a;

		if (!sf_read_name(load, member, "adapter", &adapter, error))
			return FALSE;
		for (a = 0; a < file->adapters->len; a++)
			if (strcmp(
				((struct sf_adapter *) g_ptr_array_index(file->adapters, a))->name,
				adapter) == 0)
				break;
		if (a == file->adapters->len)
			return sf_fail(load, sf_line_of(load, member), error,
				       "no adapter named \"%s\"", adapter);
		process->adapter = a;
	} else if (file->adapters->len > 1) {
		return sf_fail(load, sf_object_line(load, object), error,
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
		owner = sf_find_process(file, binding->open_process);
		if (!owner)
			return sf_fail(load, binding->open_process_line, error,
				       "no process named \"%s\"", binding->open_process);
		if (owner == binding->process)
			return sf_fail(load, binding->open_process_line, error,
				       "process \"%s\" opens a fence of its own: use its name",
				       owner->name);
		target = sf_find_binding(file, owner, binding->open_fence);
		if (!target || target->is_opened)
			return sf_fail(load, binding->open_fence_line, error,
				       "process \"%s\" creates no fence named \"%s\"", owner->name,
				       binding->open_fence);
		if (!target->fence->is_shared && !target->fence->is_cross_adapter)
			return sf_fail(load, binding->open_fence_line, error,
				       "fence \"%s\" of process \"%s\" is not shared: give it "
				       "\"shared\": true",
				       target->name, owner->name);
		if (owner->adapter != binding->process->adapter && !target->fence->is_cross_adapter)
			return sf_fail(
			    load, binding->line, error,
			    "fence \"%s\" lives on the adapter of process \"%s\": give it "
			    "\"cross-adapter\": true to open it on another adapter",
			    target->name, owner->name);
		binding->fence = target->fence;
	}
	return TRUE;
}

/* ---- the whole file ----------------------------------------------------------------------- */

SfFile *
sf_parse_file(const SfLoad *load, GError **error)
{
	static const char *const members[] = {"name",    "description", "seed",
					      "runtime", "adapters",    "processes",
					      "script",  "faults",      NULL};
	const char *path = sf_load_get_path(load);
	g_autoptr(SfFile) file = sf_file_new(path);
	JsonObject *object;
	JsonNode *member;
	JsonArray *array;
	const char *text;

	if (!sf_read_object(load, sf_load_get_root(load), "the top level", &object, error) ||
	    !sf_check_members(load, object, "the top level", members, error))
		return NULL;
	member = json_object_get_member(object, "name");
	if (member && !sf_read_name(load, member, "name", &text, error))
		return NULL;
	file->name = member ? g_strdup(text) : g_path_get_basename(path);
	member = json_object_get_member(object, "description");
	if (member && !sf_read_string(load, member, "description", &text, error))
		return NULL;
	file->description = member ? g_strdup(text) : g_strdup_printf("scenario file %s", path);
	member = json_object_get_member(object, "seed");
	if (member && !sf_read_uint(load, member, "seed", 0, G_MAXINT64, &file->seed, error))
		return NULL;
	member = json_object_get_member(object, "runtime");
	if (member && !parse_runtime(load, file, member, error))
		return NULL;

	member = json_object_get_member(object, "adapters");
	if (member) {
		if (!sf_read_array(load, member, "adapters", &array, error))
			return NULL;
		if (json_array_get_length(array) == 0) {
			sf_fail(load, sf_line_of(load, member), error,
				"\"adapters\" is empty: leave it out for one default adapter");
			return NULL;
		}
		for (guint i = 0; i < json_array_get_length(array); i++)
			if (!parse_adapter(load, file, json_array_get_element(array, i), error))
				return NULL;
	} else {
		struct sf_adapter *adapter = g_new0(struct sf_adapter, 1);

		adapter->name = g_strdup("gpu0");
		adapter->line = sf_object_line(load, object);
		fsr_adapter_config_init(&adapter->config);
		g_ptr_array_add(file->adapters, adapter);
	}

	member = json_object_get_member(object, "faults");
	if (member && !parse_faults(load, file, member, error))
		return NULL;

	if (!sf_need_member(load, object, "processes", "the top level", &member, error) ||
	    !sf_read_array(load, member, "processes", &array, error))
		return NULL;
	if (json_array_get_length(array) == 0) {
		sf_fail(load, sf_line_of(load, member), error, "\"processes\" is empty");
		return NULL;
	}
	for (guint i = 0; i < json_array_get_length(array); i++)
		if (!parse_process(load, file, json_array_get_element(array, i), error))
			return NULL;
	if (!resolve_opens(load, file, error))
		return NULL;

	if (!sf_need_member(load, object, "script", "the top level", &member, error) ||
	    !sf_parse_steps(load, file, member, true, file->script, error))
		return NULL;
	return g_steal_pointer(&file);
}
