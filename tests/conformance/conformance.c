/* SPDX-License-Identifier: MIT */
/*
 * The conformance suite's fixture (conformance.h): the runtime fixture's objects on an adapter
 * driven by the driver under test, and the event tap that records what the runtime fires.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "conformance.h"
#include "driver-under-test.h"

static struct fsc_event *events;
static size_t event_count;
static size_t event_capacity;

/* The tap: runs with the runtime lock held, so it only copies. */
static void
record_event(void *user_data, const char *name, const uint64_t *fields, uint32_t field_count)
{
	struct fsc_event *event;

	(void) user_data;
	if (event_count == event_capacity) {
		size_t capacity = event_capacity ? 2 * event_capacity : 1024;
		struct fsc_event *grown = realloc(events, capacity * sizeof(*events));

		if (!grown)
			abort();
		events = grown;
		event_capacity = capacity;
	}
	event = &events[event_count++];
	event->name = name;
	event->field_count = field_count;
	memcpy(event->fields, fields, field_count * sizeof(*fields));
}

void
fsc_config_init(struct fsr_runtime_config *runtime_config,
		struct fsr_adapter_config *adapter_config)
{
	fst_rt_config_init(runtime_config, adapter_config);
}

void
fsc_setup_with(const struct fsr_runtime_config *runtime_config,
	       const struct fsr_adapter_config *adapter_config)
{
	fx = (struct fst_rt){0};
	event_count = 0;
	cr_assert_eq(fsr_runtime_create(runtime_config, &fx.runtime), FSR_OK);
	fsr_runtime_set_event_tap(fx.runtime, record_event, NULL);
	cr_assert_eq(fsr_adapter_create_with_ddi(fx.runtime, adapter_config, fsc_driver_table(),
						 &fx.adapter_id),
		     FSR_OK, "driver %s: CreateAdapter", fsc_driver_name());
	cr_assert_eq(fsr_process_create(fx.runtime, "conformance", &fx.process), FSR_OK);
	cr_assert_eq(fsr_device_create(fx.process, fx.adapter_id, &fx.device), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 0, &fx.context_3d), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 1, &fx.context_compute), FSR_OK);
	cr_assert_eq(fsr_context_create(fx.process, fx.device, 2, &fx.context_copy), FSR_OK);
}

void
fsc_setup(void)
{
	struct fsr_runtime_config runtime_config;
	struct fsr_adapter_config adapter_config;

	fsc_config_init(&runtime_config, &adapter_config);
	fsc_setup_with(&runtime_config, &adapter_config);
}

void
fsc_teardown(void)
{
	fst_rt_teardown();
	free(events);
	events = NULL;
	event_count = 0;
	event_capacity = 0;
}

size_t
fsc_event_count(void)
{
	return event_count;
}

const struct fsc_event *
fsc_event_at(size_t index)
{
	cr_assert_lt(index, event_count, "no event %zu", index);
	return &events[index];
}

static bool
matches(const struct fsc_event *event, const char *name, int field, uint64_t value)
{
	if (strcmp(event->name, name) != 0)
		return false;
	return field == FSC_ANY ||
	       ((uint32_t) field < event->field_count && event->fields[field] == value);
}

size_t
fsc_find(size_t from, const char *name, int field, uint64_t value)
{
	for (size_t i = from; i < event_count; i++)
		if (matches(&events[i], name, field, value))
			return i;
	return FSC_NONE;
}

size_t
fsc_count(size_t from, const char *name, int field, uint64_t value)
{
	size_t count = 0;

	for (size_t i = from; i < event_count; i++)
		count += matches(&events[i], name, field, value);
	return count;
}

void
fsc_dump_events(size_t from)
{
	for (size_t i = from; i < event_count; i++) {
		fprintf(stderr, "# %zu %s", i, events[i].name);
		for (uint32_t f = 0; f < events[i].field_count; f++)
			fprintf(stderr, " %#llx", (unsigned long long) events[i].fields[f]);
		fputc('\n', stderr);
	}
}

fsr_handle
fsc_shared_fence_new(struct fsr_process *process, fsr_handle device, fsr_handle *global_handle)
{
	fsr_handle fence = 0;

	cr_assert_eq(fsr_fence_create(process, device, 0, FSR_FENCE_SHARED, &fence, global_handle),
		     FSR_OK);
	return fence;
}
