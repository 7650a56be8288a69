/* SPDX-License-Identifier: MIT */
/*
 * Lost log entries of operations on a shared fence that another process created are inferred
 * (suite e2e). tests/cli/shared-overrun.json: process `user` opens the shared fence of process
 * `owner` (SHF-02) and its user-mode queue signals it and waits for it 20 times, in 20
 * buffers; both fence logs (8 entries) overrun: the waits log by 12, the signals log, which
 * holds each buffer's progress write too (HPF-02), by 32. The OS's fallback scan must read the
 * opened fence (LOG-18), so that the analyzer marks the 16 lost signals and 12 lost waits
 * inferred (GPV-08) rather than never completed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "record-sandbox.h"
#include "trace-reader.h"

#define OPERATIONS 20 /* of each kind */
#define CAPACITY   8  /* entries per log */

struct states {
	size_t count[FSA_OP_UNQUEUED + 1][2]; /* [state][kind: 0 wait, 1 signal] */
	uint64_t fence_global_handle;
	size_t on_other_fences;
};

static fsa_status
keep_op(void *data, const struct fsa_op *op)
{
	struct states *states = data;

	if (op->source != FSA_SRC_USER_MODE_QUEUE)
		return FSA_OK;
	if (op->fence_global_handle != states->fence_global_handle) {
		states->on_other_fences++;
		return FSA_OK;
	}
	cr_assert_leq(op->state, FSA_OP_UNQUEUED);
	states->count[op->state][op->kind == FSA_OP_SIGNAL]++;
	return FSA_OK;
}

Test(shared_overrun, log_18_lost_operations_on_an_opened_shared_fence_are_inferred_gpv_08,
     .timeout = 240)
{
	const char *scenario = FSCT_SOURCE_DIR "/tests/cli/shared-overrun.json";
	struct fsct_sandbox_options options = {
	    .args = (const char *const[]){"record", "-o", "trace", scenario, NULL},
	    .timeout_s = 200,
	};
	struct fsct_outcome outcome = {0};
	struct fst_trace *trace = NULL;
	struct states states = {0};
	struct fsa_model_sink sink = {.data = &states, .op = keep_op};
	struct fsa_model *model = fsa_model_create(&sink);
	const struct fst_event *opened;
	char *error = NULL, *path;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);
	opened = fst_trace_find_event(trace, "fencescope_os:fence_open");
	cr_assert(opened, "the shared fence was opened");
	states.fence_global_handle = fst_event_find_field(opened, "fence_global_handle")->u;
	cr_assert_eq(
	    fst_trace_sum(trace, "fencescope_os:fence_log_overrun", "entries_lost", NULL, NULL),
	    (2 * OPERATIONS - CAPACITY) + (OPERATIONS - CAPACITY), "both logs overran");

	cr_assert_eq(fsa_ingest_into_model(path, model, NULL, NULL, NULL, &error), FSA_OK, "%s",
		     error);
	for (int kind = 0; kind < 2; kind++) {
		const char *name = kind ? "signals" : "waits";

		/* The signals log holds each buffer's progress write too (HPF-02). */
		uint64_t observed = kind ? CAPACITY / 2 : CAPACITY;

		cr_expect_eq(states.count[FSA_OP_OBSERVED][kind], observed, "observed %s", name);
		cr_expect_eq(states.count[FSA_OP_INFERRED][kind], OPERATIONS - observed,
			     "inferred %s", name);
		cr_expect_eq(states.count[FSA_OP_NEVER_COMPLETED][kind], 0, "never completed %s",
			     name);
	}
	cr_expect_eq(states.on_other_fences, 0);

	fsa_model_destroy(model);
	free(path);
	fst_trace_destroy(trace);
	fsct_outcome_clear(&outcome);
}
