/* SPDX-License-Identifier: MIT */
/*
 * Running a loaded scenario file (file-private.h): the script interpreted on the runtime's
 * public API exactly as a built-in scenario calls it, each refusal reported with the line of
 * its step. Nothing here reads JSON.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "file-private.h"

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
	config.interleave_seed = options->interleave_seed;
	/* The caller's plan (fencescope run --fault, --fault-seed) wins over the file's. */
	config.fault_plan = options->fault_plan ? options->fault_plan
			    : file->has_faults  ? &file->faults
						: NULL;
	status = fsr_runtime_create(&config, &run->runtime);
	if (status == FSR_ERR_NOT_SUPPORTED && config.fault_plan)
		return run_fail(run, 0, status,
				"fsr_runtime_create failed: fault injection needs the sim clock");
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
		/* A user-mode queue with its doorbell, connected (UMS-13: its only way in). */
		if (status == FSR_OK && queue->config.mode == FSR_SUBMIT_USER_MODE)
			status = fsr_hwqueue_create_user_mode(process, state->context,
							      &queue->config, &state->hwqueue);
		else if (status == FSR_OK)
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
				    (fence->is_shared ? FSR_FENCE_SHARED : 0) |
					(fence->is_cross_adapter ? FSR_FENCE_CROSS_ADAPTER : 0),
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
	uint64_t value = 0;
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
	uint64_t value = 0;
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
	uint64_t value = 0;
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

/* PRE-13: fsr_present of what the queue submitted so far (blocks while the flip queue is full). */
static fsr_status
run_present(SfRun *run, const struct sf_step *step)
{
	const struct sf_queue *queue = step->queue;
	fsr_status status = fsr_present(run->processes[queue->process->index],
					run->queues[queue->index].hwqueue, step->display, NULL);

	if (status != FSR_OK)
		return run_fail(run, step->line, status,
				"present of queue \"%s\" on display %u: fsr_present failed",
				queue->name, step->display);
	run->totals->flips++;
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
		case SF_STEP_PRESENT:
			status = run_present(run, step);
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

fsr_status
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
