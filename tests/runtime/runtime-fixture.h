/* SPDX-License-Identifier: MIT */
/*
 * The fixture every runtime unit test starts from: a sim-mode runtime with one adapter (3D,
 * compute and copy engines), one process with a device and a context per engine, and short
 * helpers that record, submit and read back with Criterion assertions, so that a test reads
 * as the scenario it checks. It is not a scenario language: tests that need more call the
 * public API directly.
 */
#ifndef FST_RUNTIME_FIXTURE_H
#define FST_RUNTIME_FIXTURE_H

#include <fencescope/runtime.h>

struct os_hwqueue;

struct fst_rt {
	struct fsr_runtime *runtime;
	uint32_t adapter_id;
	struct fsr_process *process; /* NULL once a test has terminated it */
	fsr_handle device;
	fsr_handle context_3d;      /* engine 0 */
	fsr_handle context_compute; /* engine 1 */
	fsr_handle context_copy;    /* engine 2: no user-mode submission (UMS-05) */
};

extern struct fst_rt fx;

/*
 * The fixture's configurations: sim mode, a fixed seed, and logs that keep their size when
 * an LTTng session happens to trace the test (LOG-20), so log capacities are what tests set.
 */
void fst_rt_config_init(struct fsr_runtime_config *runtime_config,
			struct fsr_adapter_config *adapter_config);
void fst_rt_setup_with(const struct fsr_runtime_config *runtime_config,
		       const struct fsr_adapter_config *adapter_config);
/* As fst_rt_setup_with, on an adapter whose driver is `ddi` (fsr_adapter_create_with_ddi). */
struct dxgk_ddi;
void fst_rt_setup_with_ddi(const struct fsr_runtime_config *runtime_config,
			   const struct fsr_adapter_config *adapter_config,
			   const struct dxgk_ddi *ddi);
/* TestSuite(.init, .fini) with the default configurations. */
void fst_rt_setup(void);
void fst_rt_teardown(void);

/* Another process on the fixture's adapter, with a device and a 3D context. */
void fst_rt_add_process(const char *name, struct fsr_process **process, fsr_handle *device,
			fsr_handle *context_3d);

/* A queue ready for work: a user-mode one has its doorbell, connected (UMS-13). */
fsr_handle fst_queue_new(struct fsr_process *process, fsr_handle context,
			 enum fsr_submission_mode mode);
/* A user-mode HWQueue with no doorbell yet, for the tests of the doorbell calls themselves. */
fsr_handle fst_queue_new_without_doorbell(struct fsr_process *process, fsr_handle context);
fsr_handle fst_fence_new(struct fsr_process *process, fsr_handle device, uint64_t initial_value);

/* One command buffer each; they return its progress value. */
uint64_t fst_submit_signal(struct fsr_process *process, fsr_handle hwqueue, fsr_handle fence,
			   uint64_t value);
uint64_t fst_submit_wait(struct fsr_process *process, fsr_handle hwqueue, fsr_handle fence,
			 uint64_t value);
uint64_t fst_submit_work(struct fsr_process *process, fsr_handle hwqueue, uint64_t gpu_ticks);

uint64_t fst_fence_value(struct fsr_process *process, fsr_handle fence);
uint64_t fst_monitored_value(struct fsr_process *process, fsr_handle fence);
uint64_t fst_last_completed(struct fsr_process *process, fsr_handle hwqueue);
uint64_t fst_last_queued(struct fsr_process *process, fsr_handle hwqueue);

void fst_run_until_idle(void);
/* White-box: the OS's queue behind a handle of the fixture's process (fails the test if none). */
struct os_hwqueue *fst_borrow_queue(fsr_handle handle);
struct fsr_runtime_stats fst_stats(void);

/* What an asynchronous CPU wait ended with: pass one as user_data of fst_wait_record. */
struct fst_wait_result {
	int call_count;
	fsr_status status;
	uint64_t observed_value;
};
void fst_wait_record(fsr_status status, uint64_t observed_value, void *user_data);

/*
 * An event tap on fx.runtime (the test API's fsr_runtime_set_event_tap) that records every
 * event fired until fst_tap_stop or the teardown: its name and first fields, in firing order.
 */
struct fst_event {
	const char *name; /* "provider:event" */
	uint64_t fields[10];
};
void fst_tap_start(void);
void fst_tap_stop(void);
size_t fst_tap_event_count(void);
const struct fst_event *fst_tap_event(size_t index);
/* Events from index `from` on named `name` whose field `field` is `value` (field < 0: any). */
size_t fst_tap_count(size_t from, const char *name, int field, uint64_t value);

#endif /* FST_RUNTIME_FIXTURE_H */
