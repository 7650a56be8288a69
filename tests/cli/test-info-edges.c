/* SPDX-License-Identifier: MIT */
/*
 * GPV-07 in a recording without clock pairs (suite e2e): `fencescope record --clock realtime
 * --loglevel INFO producer-consumer` in a sandboxed lttng-sessiond. clock_correlation is a DEBUG
 * event, so every GPU box ends at its log read, and the OS reads the consumer's wait log before
 * the producer's signal log: the model found 0 signal→wait edges where the sim recording has
 * 206 (session 10's note). The emulator's ground truth (fence_value_write, gpu_wait_end) is
 * DEBUG too, so the known answer is the scenario's: the compute queue's wait for value V of the
 * fence is released by the 3D queue's signal of V, for each of the 200 values — what the same
 * scenario's DEBUG recording (and the sim INFO one) shows. Every GPU wait must have that edge.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "record-sandbox.h"

#define MAX_OPS   4096
#define MAX_EDGES 4096

struct seen {
	struct fsa_op ops[MAX_OPS];
	size_t op_count;
	struct fsa_edge edges[MAX_EDGES];
	size_t edge_count;
};

static struct seen seen;

static fsa_status
on_op(void *data, const struct fsa_op *op)
{
	struct seen *s = data;

	cr_assert_lt(s->op_count, MAX_OPS);
	s->ops[s->op_count++] = *op;
	return FSA_OK;
}

static fsa_status
on_edge(void *data, const struct fsa_edge *edge)
{
	struct seen *s = data;

	cr_assert_lt(s->edge_count, MAX_EDGES);
	s->edges[s->edge_count++] = *edge;
	return FSA_OK;
}

static const struct fsa_op *
op_by_id(uint64_t id)
{
	for (size_t i = 0; i < seen.op_count; i++)
		if (seen.ops[i].id == id)
			return &seen.ops[i];
	return NULL;
}

Test(info_edges, gpv_07_realtime_loglevel_info_waits_have_their_release_without_clock_pairs,
     .timeout = 300)
{
	struct fsct_sandbox_options options = {
	    .args = (const char *const[]){"record", "-o", "trace", "--clock", "realtime",
					  "--loglevel", "INFO", "producer-consumer", NULL},
	    .timeout_s = 200,
	};
	struct fsct_outcome outcome = {0};
	const struct fsa_model_sink sink = {.data = &seen, .op = on_op, .edge = on_edge};
	struct fsa_model *model = fsa_model_create(&sink);
	struct fsa_ingest_stats stats = {0};
	char *error = NULL, *path;
	size_t gpu_waits = 0;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fsa_ingest_into_model(path, model, NULL, NULL, &stats, &error), FSA_OK, "%s",
		     error ? error : "");
	cr_assert_eq(stats.discarded_events, 0, "the tracer lost events: not this test's case");
	/* No pair: the boxes are at their reads (fsa/model.h, docs/analyzer.md "GPU time"). */
	for (size_t i = 0; i < fsa_model_clock_fit_count(model); i++)
		cr_assert_eq(fsa_model_borrow_clock_fit(model, i)->pair_count, 0);
	for (size_t i = 0; i < seen.op_count; i++) {
		const struct fsa_op *wait = &seen.ops[i];
		const struct fsa_edge *edge = NULL;
		const struct fsa_op *signal;

		if (wait->kind != FSA_OP_WAIT || wait->source != FSA_SRC_USER_MODE_QUEUE)
			continue;
		gpu_waits++;
		for (size_t e = 0; e < seen.edge_count; e++)
			if (seen.edges[e].wait_op_id == wait->id)
				edge = &seen.edges[e];
		cr_assert_not_null(edge, "the wait for value %" PRIu64 " has no edge",
				   wait->fence_value);
		signal = op_by_id(edge->signal_op_id);
		cr_assert_not_null(signal);
		cr_assert_eq(signal->kind, FSA_OP_SIGNAL);
		cr_assert_eq(signal->source, FSA_SRC_USER_MODE_QUEUE);
		cr_assert_neq(signal->hwqueue_handle, wait->hwqueue_handle);
		cr_assert_eq(signal->fence_global_handle, wait->fence_global_handle);
		cr_assert_eq(signal->fence_value, wait->fence_value,
			     "the wait for %" PRIu64 " released by the signal of %" PRIu64,
			     wait->fence_value, signal->fence_value);
		/* The edge never points back in trace time (the wait's end moves to the read of
		 * its release when that came later). */
		cr_assert_geq(edge->wait_end_ns, edge->signal_end_ns);
		/* And on the GPU the signal ended first. */
		cr_assert_leq(signal->end_gpu_ts, wait->end_gpu_ts);
	}
	cr_assert_eq(gpu_waits, 200, "producer-consumer waits for 200 values");
	fsa_model_destroy(model);
	free(error);
	free(path);
	fsct_outcome_clear(&outcome);
}
