/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's known-answer test: `fencescope record` records tests/cli/known-answer.json in
 * sim mode (virtual trace time through the clock plugin) in a sandboxed lttng-sessiond, and
 * analyzer/ingest + analyzer/model rebuild its boxes. The scenario's timing is known exactly: a
 * 3D queue signals every 4000 GPU ticks (40 us at 100 MHz), and the emulator's ground truth is
 * in the same trace (fence_value_write, gpu_wait_begin/end, which the analyzer never uses), with
 * their own virtual timestamps. Every rebuilt time must land on that ground truth within the GPU
 * clock's resolution (one tick, 10 ns).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "record-sandbox.h"
#include "trace-reader.h"

#define TICK_NS 10
#define MAX_OPS 64

struct boxes {
	struct fsa_op ops[MAX_OPS];
	size_t count;
	size_t edges;
};

static fsa_status
keep_op(void *data, const struct fsa_op *op)
{
	struct boxes *boxes = data;

	cr_assert_lt(boxes->count, MAX_OPS);
	boxes->ops[boxes->count++] = *op;
	return FSA_OK;
}

static fsa_status
count_edge(void *data, const struct fsa_edge *edge)
{
	(void) edge;
	((struct boxes *) data)->edges++;
	return FSA_OK;
}

static const struct fsa_op *
find(const struct boxes *boxes, enum fsa_op_kind kind, enum fsa_op_source source, uint64_t value)
{
	for (size_t i = 0; i < boxes->count; i++)
		if (boxes->ops[i].kind == kind && boxes->ops[i].source == source &&
		    boxes->ops[i].fence_value == value)
			return &boxes->ops[i];
	return NULL;
}

/* The ground-truth event of that name for that fence value (the scenario's fence, not the
 * progress fences: those have no fence_value_write with a matching log entry). */
static const struct fst_event *
truth(const struct fst_trace *trace, const char *name, uint64_t fence_global, uint64_t value)
{
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];

		if (strcmp(event->name, name) == 0 &&
		    fst_event_find_field(event, "fence_global_handle")->u == fence_global &&
		    fst_event_find_field(event, "fence_value")->u == value)
			return event;
	}
	return NULL;
}

static void
expect_near(uint64_t rebuilt, int64_t truth_ns, const char *what, uint64_t value)
{
	int64_t delta = (int64_t) rebuilt - truth_ns;

	cr_expect(delta >= -TICK_NS && delta <= TICK_NS,
		  "%s of value %" PRIu64 ": rebuilt %" PRIu64 ", truth %" PRId64 " (off by %" PRId64
		  " ns)",
		  what, value, rebuilt, truth_ns, delta);
}

Test(known_answer, rebuilt_boxes_land_on_the_emulator_ground_truth, .timeout = 240)
{
	const char *scenario = FSCT_SOURCE_DIR "/tests/cli/known-answer.json";
	struct fsct_sandbox_options options = {
	    .args = (const char *const[]){"record", "-o", "trace", scenario, NULL},
	    .timeout_s = 200,
	};
	struct fsct_outcome outcome = {0};
	struct fst_trace *trace = NULL;
	struct boxes boxes = {0};
	struct fsa_model_sink sink = {.data = &boxes, .op = keep_op, .edge = count_edge};
	struct fsa_model *model = fsa_model_create(&sink);
	char *error = NULL, *path;
	uint64_t fence_global = 0;
	const struct fsa_op *previous = NULL;

	cr_assert_eq(fsct_record_in_sandbox(&options, &outcome), 0, "%s", outcome.setup_error);
	cr_assert_eq(outcome.exit_status, 0, "record: %s", outcome.err);
	path = fsct_dup_last_line(outcome.out);
	cr_assert_eq(fst_trace_read(path, &trace, &error), 0, "%s", error);
	cr_assert_eq(fsa_ingest_into_model(path, model, NULL, NULL, NULL, &error), FSA_OK, "%s",
		     error);
	cr_assert_eq(fsa_model_borrow_summary(model)->clock_mode, 0, "a sim-mode recording");

	for (size_t i = 0; i < fsa_model_fence_count(model); i++)
		if (!fsa_model_borrow_fence(model, i)->is_progress_fence)
			fence_global = fsa_model_borrow_fence(model, i)->fence_global_handle;
	cr_assert_neq(fence_global, 0);

	for (uint64_t value = 1; value <= 8; value++) {
		const struct fsa_op *signal =
		    find(&boxes, FSA_OP_SIGNAL, FSA_SRC_USER_MODE_QUEUE, value);
		const struct fsa_op *wait =
		    find(&boxes, FSA_OP_WAIT, FSA_SRC_USER_MODE_QUEUE, value);
		const struct fst_event *written =
		    truth(trace, "fencescope_hw:fence_value_write", fence_global, value);
		const struct fst_event *blocked =
		    truth(trace, "fencescope_hw:gpu_wait_begin", fence_global, value);
		const struct fst_event *released =
		    truth(trace, "fencescope_hw:gpu_wait_end", fence_global, value);

		cr_assert(signal && wait, "value %" PRIu64 ": boxes missing", value);
		cr_assert(written && released, "value %" PRIu64 ": ground truth missing", value);
		cr_expect_eq(signal->state, FSA_OP_OBSERVED);
		cr_expect_eq(wait->state, FSA_OP_OBSERVED);
		/* The signal box ends when the GPU wrote the value. */
		expect_near(signal->end_ns, written->ts_ns, "signal end", value);
		/* The wait box ends when the GPU released the queue. */
		expect_near(wait->end_ns, released->ts_ns, "wait end", value);
		/* It stalled the queue from the moment the GPU reached it (when it blocked at all:
		 * a wait already satisfied never blocks and has no gpu_wait_begin). */
		if (blocked && wait->observed_ns != FSA_TIME_NONE)
			expect_near(wait->observed_ns, blocked->ts_ns, "wait observed", value);
		/* GPV-07: each wait was released by the signal of its value. */
		cr_expect_eq(wait->signal_op_id, signal->id, "value %" PRIu64, value);
		/* The producer's signals are 4000 ticks of work apart. */
		if (previous)
			cr_expect(signal->end_ns - previous->end_ns >= 40000 - TICK_NS &&
				      signal->end_ns - previous->end_ns <= 40000 + TICK_NS,
				  "signals %" PRIu64 " apart", signal->end_ns - previous->end_ns);
		previous = signal;
	}
	cr_expect_geq(boxes.edges, 8);

	fsa_model_destroy(model);
	free(path);
	fst_trace_destroy(trace);
	fsct_outcome_clear(&outcome);
}
