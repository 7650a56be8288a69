/* SPDX-License-Identifier: MIT */
/*
 * The conformance suite's fixture: the runtime fixture of tests/runtime/runtime-fixture.h (its
 * `fx` and fst_* helpers), but with an adapter whose kernel-mode driver is the driver under test
 * (driver-under-test.h) and an event tap that records every event the runtime fires. Tests
 * written on it use only the public fsr_* API, the test-only API of
 * runtime/test-api/fencescope-test.h and these helpers, never the reference driver's internals,
 * so that they hold any driver to the rules (docs/driver-interface.md, "Checking your driver").
 */
#ifndef FSC_CONFORMANCE_H
#define FSC_CONFORMANCE_H

#include <stddef.h>
#include <stdint.h>

#include "fencescope-test.h"
#include "runtime-fixture.h"

/* Not found (fsc_find). */
#define FSC_NONE SIZE_MAX
/* Any value of a field (fsc_find, fsc_count). */
#define FSC_ANY (-1)

/* One event the tap saw, in firing order. */
struct fsc_event {
	const char *name; /* "provider:event" */
	uint64_t fields[FSR_EVENT_TAP_MAX_FIELDS];
	uint32_t field_count;
};

/* The fixture's configurations (those of fst_rt_config_init). */
void fsc_config_init(struct fsr_runtime_config *runtime_config,
		     struct fsr_adapter_config *adapter_config);
/*
 * The runtime with the tap set, then one adapter driven by the driver under test, one process
 * with a device and a context per engine, in `fx`. The tap sees the adapter's creation.
 */
void fsc_setup_with(const struct fsr_runtime_config *runtime_config,
		    const struct fsr_adapter_config *adapter_config);
void fsc_setup(void);
void fsc_teardown(void);

/* How many events the tap saw so far: a mark for fsc_find. */
size_t fsc_event_count(void);
const struct fsc_event *fsc_event_at(size_t index);
/*
 * The index of the first event at or after `from` named `name` whose field `field` is `value`
 * (FSC_ANY: any event of that name), FSC_NONE if there is none.
 */
size_t fsc_find(size_t from, const char *name, int field, uint64_t value);
/* How many events at or after `from` match, as fsc_find. */
size_t fsc_count(size_t from, const char *name, int field, uint64_t value);
/* The events from `from` on, one a line, on stderr: for a failing test's log. */
void fsc_dump_events(size_t from);

/* A global handle for a local one of the fixture's process (fsr_fence_create gives both). */
fsr_handle fsc_shared_fence_new(struct fsr_process *process, fsr_handle device,
				fsr_handle *global_handle);

#endif /* FSC_CONFORMANCE_H */
