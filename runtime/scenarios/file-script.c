/* SPDX-License-Identifier: MIT */
/*
 * The loaded script of a scenario file (struct sf_file, file-private.h): making and freeing it,
 * and finding its processes, queues and fence names by name. It reads no JSON and runs nothing.
 */
#include <string.h>

#include "file-private.h"

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

void
sf_step_free(gpointer data)
{
	struct sf_step *step = data;

	g_clear_pointer(&step->commands, g_array_unref);
	g_clear_pointer(&step->steps, g_ptr_array_unref);
	g_free(step);
}

void
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

SfFile *
sf_file_new(const char *path)
{
	SfFile *file = g_new0(SfFile, 1);

	file->path = g_strdup(path);
	file->adapters = g_ptr_array_new_with_free_func(adapter_free);
	file->processes = g_ptr_array_new_with_free_func(process_free);
	file->queues = g_ptr_array_new_with_free_func(queue_free);
	file->fences = g_ptr_array_new_with_free_func(g_free);
	file->bindings = g_ptr_array_new_with_free_func(binding_free);
	file->script = g_ptr_array_new_with_free_func(sf_step_free);
	return file;
}

struct sf_process *
sf_find_process(const SfFile *file, const char *name)
{
	for (guint i = 0; i < file->processes->len; i++) {
		struct sf_process *process = g_ptr_array_index(file->processes, i);

		if (strcmp(process->name, name) == 0)
			return process;
	}
	return NULL;
}

struct sf_queue *
sf_find_queue(const SfFile *file, const struct sf_process *process, const char *name)
{
	for (guint i = 0; i < file->queues->len; i++) {
		struct sf_queue *queue = g_ptr_array_index(file->queues, i);

		if (queue->process == process && strcmp(queue->name, name) == 0)
			return queue;
	}
	return NULL;
}

struct sf_binding *
sf_find_binding(const SfFile *file, const struct sf_process *process, const char *name)
{
	for (guint i = 0; i < file->bindings->len; i++) {
		struct sf_binding *binding = g_ptr_array_index(file->bindings, i);

		if (binding->process == process && strcmp(binding->name, name) == 0)
			return binding;
	}
	return NULL;
}
