/* SPDX-License-Identifier: MIT */
/*
 * Parsing a scenario file's script (file-private.h): submit, cpu-signal, cpu-wait, run-for-ns
 * and repeat steps, their values ("+K", "-K") and the names they use, resolved to the queues
 * and fences of the processes file-parse.c read.
 */
#include <string.h>

#include "file-private.h"

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
		return sf_read_uint(load, node, "value", 0, G_MAXINT64, &value->absolute, error);
	}
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"value\" must be an integer or a string \"+K\"%s, not %s",
			       is_signal ? "" : " or \"-K\"", sf_describe(node));
	text = json_node_get_string(node);
	if ((text[0] != '+' && text[0] != '-') || !g_ascii_isdigit(text[1]) ||
	    !g_ascii_string_to_unsigned(text + 1, 10, 0, G_MAXINT64, &delta, NULL))
		return sf_fail(
		    load, sf_line_of(load, node), error,
		    "\"value\" \"%s\" is neither an integer nor \"+K\"%s with K a decimal "
		    "number",
		    text, is_signal ? "" : " or \"-K\"");
	if (text[0] == '-' && is_signal)
		return sf_fail(
		    load, sf_line_of(load, node), error,
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
	if (!sf_read_name(load, member, "process", &name, error))
		return FALSE;
	*process = sf_find_process(file, name);
	if (!*process)
		return sf_fail(load, sf_line_of(load, member), error, "no process named \"%s\"",
			       name);
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

	if (!sf_read_name(load, node, kind, &name, error))
		return FALSE;
	if (process) {
		g_autoptr(GString) known = g_string_new(NULL);

		*object = is_queue ? (gpointer) sf_find_queue(file, process, name)
				   : (gpointer) sf_find_binding(file, process, name);
		if (*object)
			return TRUE;
		append_names(known, file, process, is_queue);
		return sf_fail(load, sf_line_of(load, node), error,
			       "process \"%s\" has no %s \"%s\" (its %ss: %s)", process->name,
			       is_queue ? "queue" : "fence", name, is_queue ? "queue" : "fence",
			       known->str);
	}
	for (guint p = 0; p < file->processes->len; p++) {
		struct sf_process *candidate = g_ptr_array_index(file->processes, p);
		gpointer found = is_queue ? (gpointer) sf_find_queue(file, candidate, name)
					  : (gpointer) sf_find_binding(file, candidate, name);

		if (!found)
			continue;
		g_string_append_printf(others, "%s\"%s\"", count ? ", " : "", candidate->name);
		if (count++ == 0)
			*object = found;
	}
	if (count == 0)
		return sf_fail(load, sf_line_of(load, node), error,
			       "no process has a %s named \"%s\"", is_queue ? "queue" : "fence",
			       name);
	if (count > 1)
		return sf_fail(
		    load, sf_line_of(load, node), error,
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

	if (!sf_read_name(load, node, "fence", &name, error))
		return FALSE;
	*binding = sf_find_binding(file, process, name);
	if (*binding)
		return TRUE;
	for (guint i = 0; i < file->bindings->len; i++) {
		struct sf_binding *other = g_ptr_array_index(file->bindings, i);

		if (strcmp(other->name, name) == 0 && !other->is_opened)
			return sf_fail(
			    load, sf_line_of(load, node), error,
			    "process \"%s\" has no fence \"%s\"; process \"%s\" has one: "
			    "give it \"shared\": true and add {\"process\": \"%s\", "
			    "\"fence\": \"%s\"} to the \"open-fences\" of \"%s\"",
			    process->name, name, other->process->name, other->process->name, name,
			    process->name);
	}
	return sf_fail(load, sf_line_of(load, node), error, "process \"%s\" has no fence \"%s\"",
		       process->name, name);
}

static gboolean
parse_work(const SfLoad *load, JsonNode *node, struct sf_command *command, GError **error)
{
	JsonArray *range;

	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		if (!sf_read_uint(load, node, "work", 1, G_MAXINT64, &command->work_min, error))
			return FALSE;
		command->work_max = command->work_min;
		return TRUE;
	}
	range = json_node_get_array(node);
	if (json_array_get_length(range) != 2)
		return sf_fail(
		    load, sf_line_of(load, node), error,
		    "\"work\" must be a number of GPU ticks or a range [min, max], not an "
		    "array of %u",
		    json_array_get_length(range));
	if (!sf_read_uint(load, json_array_get_element(range, 0), "work", 1, G_MAXINT64,
			  &command->work_min, error) ||
	    !sf_read_uint(load, json_array_get_element(range, 1), "work", 1, G_MAXINT64,
			  &command->work_max, error))
		return FALSE;
	if (command->work_max < command->work_min)
		return sf_fail(load, sf_line_of(load, node), error,
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
	struct sf_command command = {.line = sf_line_of(load, node)};
	JsonObject *object;
	JsonNode *member;
	bool has_work;
	bool has_wait;
	bool has_signal;

	if (!sf_read_object(load, node, "a command", &object, error))
		return FALSE;
	has_work = json_object_has_member(object, "work");
	has_wait = json_object_has_member(object, "wait");
	has_signal = json_object_has_member(object, "signal");
	if (has_work + has_wait + has_signal != 1)
		return sf_fail(load, command.line, error,
			       "a command has exactly one of \"work\", \"wait\", \"signal\"");
	if (has_work) {
		command.kind = SF_COMMAND_WORK;
		if (!sf_check_members(load, object, "a work command", work_members, error) ||
		    !parse_work(load, json_object_get_member(object, "work"), &command, error))
			return FALSE;
	} else {
		const char *kind = has_wait ? "wait" : "signal";

		command.kind = has_wait ? SF_COMMAND_WAIT : SF_COMMAND_SIGNAL;
		member = json_object_get_member(object, kind);
		command.line = sf_line_of(load, member);
		if (!sf_check_members(load, object,
				      has_wait ? "a wait command" : "a signal command",
				      fence_members, error) ||
		    !resolve_command_fence(load, file, member, step->queue->process,
					   &command.binding, error) ||
		    !sf_need_member(load, object, "value", has_wait ? "a wait" : "a signal",
				    &member, error) ||
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

	if (!sf_check_members(load, object, "a submit step", members, error) ||
	    !parse_step_process(load, file, object, &process, error) ||
	    !resolve_name(load, file, json_object_get_member(object, "submit"), "submit", process,
			  true, &queue, error) ||
	    !sf_need_member(load, object, "commands", "a submit step", &member, error) ||
	    !sf_read_array(load, member, "commands", &commands, error))
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
			return sf_fail(load, step->line, error,
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

	if (!sf_check_members(load, object, "a cpu-signal step", members, error) ||
	    !parse_step_process(load, file, object, &process, error) ||
	    !resolve_name(load, file, json_object_get_member(object, "cpu-signal"), "cpu-signal",
			  process, false, &binding, error) ||
	    !sf_need_member(load, object, "value", "a cpu-signal step", &member, error) ||
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

	if (!sf_check_members(load, object, "a cpu-wait step", members, error) ||
	    !parse_step_process(load, file, object, &process, error) ||
	    !resolve_name(load, file, json_object_get_member(object, "cpu-wait"), "cpu-wait",
			  process, false, &binding, error) ||
	    !sf_need_member(load, object, "value", "a cpu-wait step", &member, error) ||
	    !parse_value(load, member, false, &step->value, error))
		return FALSE;
	step->binding = binding;
	step->timeout_ns = FSR_INFINITE;
	member = json_object_get_member(object, "timeout-ns");
	if (member && JSON_NODE_HOLDS_VALUE(member) &&
	    json_node_get_value_type(member) == G_TYPE_STRING) {
		if (strcmp(json_node_get_string(member), "infinite") != 0)
			return sf_fail(
			    load, sf_line_of(load, member), error,
			    "\"timeout-ns\" must be an integer or \"infinite\", not \"%s\"",
			    json_node_get_string(member));
	} else if (member && !sf_read_uint(load, member, "timeout-ns", 0, G_MAXINT64,
					   &step->timeout_ns, error)) {
		return FALSE;
	}
	member = json_object_get_member(object, "mode");
	if (member) {
		guint mode;

		if (!sf_read_keyword(load, member, "mode", modes, &mode, error))
			return FALSE;
		_Static_assert(FSR_WAIT_BLOCKING == 0 && FSR_WAIT_POLLING == 1, "modes[] order");
		step->mode = (enum fsr_wait_mode) mode;
	}
	member = json_object_get_member(object, "async");
	if (member && !sf_read_bool(load, member, "async", &step->is_async, error))
		return FALSE;
	if (step->is_async && step->mode == FSR_WAIT_POLLING)
		return sf_fail(
		    load, sf_line_of(load, member), error,
		    "an asynchronous wait is a blocking waiter in the OS: it cannot poll");
	return TRUE;
}

/* PRE-13: a present of what a queue rendered, on a display of the queue's adapter. */
static gboolean
parse_present(const SfLoad *load, const SfFile *file, JsonObject *object, struct sf_step *step,
	      GError **error)
{
	static const char *const members[] = {"present", "process", "display", NULL};
	struct sf_process *process;
	const struct sf_adapter *adapter;
	gpointer queue = NULL;
	JsonNode *member;
	uint64_t display = 0;

	if (!sf_check_members(load, object, "a present step", members, error) ||
	    !parse_step_process(load, file, object, &process, error) ||
	    !resolve_name(load, file, json_object_get_member(object, "present"), "present", process,
			  true, &queue, error))
		return FALSE;
	step->queue = queue;
	adapter = g_ptr_array_index(file->adapters, step->queue->process->adapter);
	member = json_object_get_member(object, "display");
	if (member && !sf_read_uint(load, member, "display", 0, G_MAXINT64, &display, error))
		return FALSE;
	if (display >= adapter->config.display_count)
		return sf_fail(load, member ? sf_line_of(load, member) : step->line, error,
			       "adapter \"%s\" has no display %" G_GUINT64_FORMAT
			       " (its \"displays\": %u)",
			       adapter->name, display, adapter->config.display_count);
	step->display = (uint32_t) display;
	return TRUE;
}

static gboolean
parse_step(const SfLoad *load, const SfFile *file, JsonNode *node, bool is_top_level,
	   GPtrArray *steps, GError **error)
{
	static const char *const kinds[] = {"submit", "cpu-signal", "cpu-wait", "run-for-ns",
					    "repeat", "present",    NULL};
	static const char *const run_members[] = {"run-for-ns", NULL};
	static const char *const repeat_members[] = {"repeat", "steps", NULL};
	struct sf_step *step;
	JsonObject *object;
	JsonNode *member = NULL;
	int kind = -1;

	if (!sf_read_object(load, node, "a step", &object, error))
		return FALSE;
	for (int k = 0; kinds[k]; k++) {
		JsonNode *candidate = json_object_get_member(object, kinds[k]);

		if (!candidate)
			continue;
		if (kind >= 0)
			return sf_fail(
			    load, sf_line_of(load, candidate), error,
			    "a step is one thing: \"%s\" and \"%s\" cannot be in one step",
			    kinds[kind], kinds[k]);
		kind = k;
		member = candidate;
	}
	if (kind < 0)
		return sf_fail(load, sf_object_line(load, object), error,
			       "a step needs one of \"submit\", \"cpu-signal\", \"cpu-wait\", "
			       "\"run-for-ns\", \"repeat\", \"present\"");
	step = g_new0(struct sf_step, 1);
	step->kind = (enum sf_step_kind) kind;
	step->line = sf_line_of(load, member);
	g_ptr_array_add(steps, step);
	switch (step->kind) {
	case SF_STEP_SUBMIT:
		return parse_submit(load, file, object, step, error);
	case SF_STEP_CPU_SIGNAL:
		return parse_cpu_signal(load, file, object, step, error);
	case SF_STEP_CPU_WAIT:
		return parse_cpu_wait(load, file, object, step, error);
	case SF_STEP_RUN_FOR:
		return sf_check_members(load, object, "a run-for-ns step", run_members, error) &&
		       sf_read_uint(load, member, "run-for-ns", 1, G_MAXINT64, &step->duration_ns,
				    error);
	case SF_STEP_REPEAT:
		step->is_top_level = is_top_level;
		step->steps = g_ptr_array_new_with_free_func(sf_step_free);
		if (!sf_check_members(load, object, "a repeat step", repeat_members, error) ||
		    !sf_read_uint(load, member, "repeat", 0, G_MAXINT64, &step->count, error) ||
		    !sf_need_member(load, object, "steps", "a repeat step", &member, error))
			return FALSE;
		return sf_parse_steps(load, file, member, false, step->steps, error);
	case SF_STEP_PRESENT:
		return parse_present(load, file, object, step, error);
	}
	g_assert_not_reached();
}

gboolean
sf_parse_steps(const SfLoad *load, const SfFile *file, JsonNode *node, bool is_top_level,
	       GPtrArray *steps, GError **error)
{
	JsonArray *array;

	if (!sf_read_array(load, node, is_top_level ? "script" : "steps", &array, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(array); i++)
		if (!parse_step(load, file, json_array_get_element(array, i), is_top_level, steps,
				error))
			return FALSE;
	return TRUE;
}
