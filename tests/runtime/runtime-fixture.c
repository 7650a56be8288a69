/* SPDX-License-Identifier: MIT */
/*
 * The runtime unit tests' fixture (runtime-fixture.h). Every helper asserts that the call it
 * wraps succeeded: a helper is for the steps a test relies on, not for the one it checks.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "runtime-fixture.h"
#include "runtime-private.h"

struct fst_rt fx;

void
fst_rt_config_init(struct fsr_runtime_config *runtime_config,
		   struct fsr_adapter_config *adapter_config)
{
	*runtime_config = (struct fsr_runtime_config){.clock_mode = FSR_CLOCK_SIM, .seed = 1};
	fsr_adapter_config_init(adapter_config);
	adapter_config->keep_log_size_when_tracing = true;
}

void
fst_rt_setup_with_ddi(const struct fsr_runtime_config *runtime_config,
		      const struct fsr_adapter_config *adapter_config, const struct dxgk_ddi *ddi)
{
	fx = (struct fst_rt){0};
	cr_assert_eq(fsr_runtime_create(runtime_config, &fx.runtime), FSR_OK);
	if (ddi)
		cr_assert_eq(
		    fsr_adapter_create_with_ddi(fx.runtime, adapter_config, ddi, &fx.adapter_id),
		    FSR_OK);
	else
		cr_assert_eq(fsr_adapter_create(fx.runtime, adapter_config, &fx.adapter_id),
			     FSR_OK);
	cr_assert_eq(fsr_process_create(fx.runtime, "fixture", &fx.process), FSR_OK);
	cr_assert_eq(fsr_device_create(fx.process, fx.adapter_id, &fx.device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &fx.context_3d), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 1, &fx.context_compute), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 2, &fx.context_copy), FSR_OK);
}

void
fst_rt_setup_with(const struct fsr_runtime_config *runtime_config,
		  const struct fsr_adapter_config *adapter_config)
{
	fst_rt_setup_with_ddi(runtime_config, adapter_config, NULL);
}

void
fst_rt_setup(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fst_rt_config_init(&runtime_config, &adapter_config);
	fst_rt_setup_with(&runtime_config, &adapter_config);
}

void
fst_rt_teardown(void)
{
	fsr_runtime_destroy(fx.runtime);
	fx = (struct fst_rt){0};
	fst_tap_stop();
}

static struct fst_tap_state {
	struct fst_event *events;
	size_t count;
	size_t capacity;
	bool is_on;
} tap;

/* Lock held, from whatever actor fired the event: record only. */
static void
tap_record(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct fst_event *event;

	(void) user_data;
	if (tap.count == tap.capacity) {
		size_t capacity = tap.capacity ? 2 * tap.capacity : 1024;
		struct fst_event *events = realloc(tap.events, capacity * sizeof(*events));

		if (!events)
			abort();
		tap.events = events;
		tap.capacity = capacity;
	}
	event = &tap.events[tap.count++];
	*event = (struct fst_event){.name = name};
	for (uint32_t i = 0; i < field_count && i < 10; i++)
		event->fields[i] = fields[i];
}

void
fst_tap_start(void)
{
	tap.count = 0;
	tap.is_on = true;
	fsr_runtime_set_event_tap(fx.runtime, tap_record, NULL);
}

void
fst_tap_stop(void)
{
	if (tap.is_on && fx.runtime)
		fsr_runtime_set_event_tap(fx.runtime, NULL, NULL);
	free(tap.events);
	tap = (struct fst_tap_state){0};
}

size_t
fst_tap_event_count(void)
{
	return tap.count;
}

const struct fst_event *
fst_tap_event(size_t index)
{
	cr_assert_lt(index, tap.count);
	return &tap.events[index];
}

size_t
fst_tap_count(size_t from, const char *name, int field, uint64_t value)
{
	size_t count = 0;

	for (size_t i = from; i < tap.count; i++)
		if (strcmp(tap.events[i].name, name) == 0 &&
		    (field < 0 || tap.events[i].fields[field] == value))
			count++;
	return count;
}

void
fst_rt_add_process(const char *name, struct fsr_process **process, fsr_handle *device,
		   fsr_handle *context_3d)
{
	cr_assert_eq(fsr_process_create(fx.runtime, name, process), FSR_OK);
	cr_assert_eq(fsr_device_create(*process, fx.adapter_id, device), FSR_OK);
	if (context_3d)
		cr_assert_eq(fsr_context_create(*process, *device, 0, context_3d), FSR_OK);
}

fsr_handle
fst_queue_new(struct fsr_process *process, fsr_handle context, enum fsr_submission_mode mode)
{
	struct fsr_hwqueue_config config = {.mode = mode};
	fsr_handle hwqueue = 0;

	if (mode == FSR_SUBMIT_USER_MODE)
		cr_assert_eq(fsr_hwqueue_create_user_mode(process, context, &config, &hwqueue),
			     FSR_OK);
	else
		cr_assert_eq(fsr_hwqueue_create(process, context, &config, &hwqueue), FSR_OK);
	return hwqueue;
}

fsr_handle
fst_queue_new_without_doorbell(struct fsr_process *process, fsr_handle context)
{
	struct fsr_hwqueue_config config = {.mode = FSR_SUBMIT_USER_MODE};
	fsr_handle hwqueue = 0;

	cr_assert_eq(fsr_hwqueue_create(process, context, &config, &hwqueue), FSR_OK);
	return hwqueue;
}

fsr_handle
fst_fence_new(struct fsr_process *process, fsr_handle device, uint64_t initial_value)
{
	fsr_handle fence = 0;

	cr_assert_eq(fsr_fence_create(process, device, initial_value, 0, &fence, NULL), FSR_OK);
	return fence;
}

enum submit_op {
	SUBMIT_SIGNAL,
	SUBMIT_WAIT,
	SUBMIT_WORK,
};

static uint64_t
submit_one(struct fsr_process *process, fsr_handle hwqueue, enum submit_op op, fsr_handle fence,
	   uint64_t value)
{
	struct fsr_cmdbuf *cmdbuf = NULL;
	uint64_t progress_value = 0;

	cr_assert_eq(fsr_cmdbuf_create(process, hwqueue, &cmdbuf), FSR_OK);
	switch (op) {
	case SUBMIT_SIGNAL:
		cr_assert_eq(fsr_cmdbuf_signal(cmdbuf, fence, value), FSR_OK);
		break;
	case SUBMIT_WAIT:
		cr_assert_eq(fsr_cmdbuf_wait(cmdbuf, fence, value), FSR_OK);
		break;
	case SUBMIT_WORK:
		cr_assert_eq(fsr_cmdbuf_work(cmdbuf, value), FSR_OK);
		break;
	}
	cr_assert_eq(fsr_cmdbuf_submit(cmdbuf, &progress_value), FSR_OK);
	return progress_value;
}

uint64_t
fst_submit_signal(struct fsr_process *process, fsr_handle hwqueue, fsr_handle fence, uint64_t value)
{
	return submit_one(process, hwqueue, SUBMIT_SIGNAL, fence, value);
}

uint64_t
fst_submit_wait(struct fsr_process *process, fsr_handle hwqueue, fsr_handle fence, uint64_t value)
{
	return submit_one(process, hwqueue, SUBMIT_WAIT, fence, value);
}

uint64_t
fst_submit_work(struct fsr_process *process, fsr_handle hwqueue, uint64_t gpu_ticks)
{
	return submit_one(process, hwqueue, SUBMIT_WORK, 0, gpu_ticks);
}

uint64_t
fst_fence_value(struct fsr_process *process, fsr_handle fence)
{
	uint64_t value = 0;

	cr_assert_eq(fsr_fence_read(process, fence, &value), FSR_OK);
	return value;
}

uint64_t
fst_monitored_value(struct fsr_process *process, fsr_handle fence)
{
	uint64_t value = 0;

	/* NFV-03: user mode cannot read it; the test-only accessor of os/os-private.h does. */
	cr_assert_eq(fsr_test_fence_read_monitored(process, fence, &value), FSR_OK);
	return value;
}

uint64_t
fst_last_completed(struct fsr_process *process, fsr_handle hwqueue)
{
	uint64_t last_completed = 0;

	cr_assert_eq(fsr_hwqueue_get_progress(process, hwqueue, NULL, &last_completed), FSR_OK);
	return last_completed;
}

uint64_t
fst_last_queued(struct fsr_process *process, fsr_handle hwqueue)
{
	uint64_t last_queued = 0;

	cr_assert_eq(fsr_hwqueue_get_progress(process, hwqueue, &last_queued, NULL), FSR_OK);
	return last_queued;
}

void
fst_run_until_idle(void)
{
	cr_assert_eq(fsr_runtime_run_until_idle(fx.runtime), FSR_OK);
}

struct fsr_runtime_stats
fst_stats(void)
{
	struct fsr_runtime_stats stats;

	fsr_runtime_get_stats(fx.runtime, &stats);
	return stats;
}

void
fst_wait_record(fsr_status status, uint64_t observed_value, void *user_data)
{
	struct fst_wait_result *result = user_data;

	result->call_count++;
	result->status = status;
	result->observed_value = observed_value;
}

struct os_hwqueue *
fst_borrow_queue(fsr_handle handle)
{
	for (struct os_device *d = fx.process->devices; d; d = d->next_in_process)
		for (struct os_context *c = d->contexts; c; c = c->next_in_device)
			for (struct os_hwqueue *q = c->queues; q; q = q->next_in_context)
				if (q->handle == handle)
					return q;
	cr_assert_fail("no queue %#lx", (unsigned long) handle);
	return NULL;
}
