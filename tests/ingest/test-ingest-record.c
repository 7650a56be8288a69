/* SPDX-License-Identifier: MIT */
/*
 * analyzer/ingest on fresh recordings (suite e2e): `fencescope record` in a sandbox of its own
 * (tests/cli/record-sandbox.h) records the stress scenario with sub-buffers so small that the
 * tracer discards events; ingest must hand over each loss as an fsa_discard with its count, time
 * range and CPU, summing to what the reference reader counts.
 */
#define _GNU_SOURCE

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ingest-collect.h"
#include "record-sandbox.h"
#include "trace-reader.h"

#define TIMEOUT_S 240

TestSuite(ingest_record, .timeout = TIMEOUT_S + 90);

Test(ingest_record, tracer_losses_become_discards_with_count_and_time_range)
{
	const char *const args[] = {"record", "-o",      "trace", "--subbuf-size", "4k", "--clock",
				    "sim",    "--scale", "5000",  "stress",        NULL};
	const struct fsct_sandbox_options options = {.args = args, .timeout_s = TIMEOUT_S};
	struct fsct_outcome outcome;
	struct fst_trace *ref = NULL;
	struct fsti_result r;
	uint64_t sum = 0;
	char *error = NULL;
	char *path;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "sandbox: %s",
		     outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &ref, &error), 0, "reference reader: %s", error);
	cr_assert_gt(ref->discarded_events, 0, "no loss with 4k sub-buffers: the test needs one");

	fsti_collect(path, &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	/* Events of the trace the analyzer does not read (termination_step) are counted, not
	 * delivered. */
	cr_expect_eq(r.event_count + r.stats.other_events, ref->event_count);
	cr_assert_gt(r.discard_count, 0);
	for (size_t i = 0; i < r.discard_count; i++) {
		const struct fsa_discard *d = &r.discards[i];

		cr_expect_eq(d->kind, FSA_DISCARD_EVENTS);
		/* LTTng counts what it discards, and its stream classes have clocks. */
		cr_expect_gt(d->count, 0, "discard %zu", i);
		cr_expect(d->has_range, "discard %zu", i);
		cr_expect_leq(d->begin_ns, d->end_ns, "discard %zu", i);
		cr_expect_gt(d->begin_ns, 0, "discard %zu", i);
		cr_expect_neq(d->cpu_id, UINT32_MAX, "discard %zu", i);
		sum += d->count;
	}
	cr_expect_eq(sum, ref->discarded_events);
	cr_expect_eq(r.stats.discarded_events, ref->discarded_events);
	fsti_result_fini(&r);
	fst_trace_destroy(ref);
	free(path);
	fsct_outcome_clear(&outcome);
}
