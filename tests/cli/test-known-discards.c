/* SPDX-License-Identifier: MIT */
/*
 * The known-answer check on a recording with tracer discards (issue 10, "Done means"). The
 * scenario file known-discards.json submits bursts of 200 short command buffers as fast as the
 * CPU can, each burst followed by 50 ms of quiet; recorded in realtime with 4 KiB sub-buffers
 * (8 per CPU) drained every 20 ms (--read-timer), every burst overflows them and LTTng discards
 * events, and every pause lets the consumer drain them, so the recording goes on after each loss
 * and the fence logs get holes (log_gap) rather than a missing tail. The test asserts that discards
 * happened in more than one burst, then checks the rebuilt trace against the emulator's ground
 * truth that survived in it:
 *
 * 1. the tracer_discarded_events losses add up to what Babeltrace counts, and lie in the trace;
 * 2. every observed user-mode box was closed by a log entry that is in the trace, ends on the GPU
 *    counter's own answer within the fit's tolerance, and on its ground-truth event (when that
 *    survived) within the known-answer test's window for realtime;
 * 3. every edge names the signal whose write first brought the fence to the wait's value, per the
 *    surviving writes; a wait whose releasing write was lost, or after a gap of a signal log that
 *    hid signals of unknown value, may have no edge, never a wrong one (edges withheld while a
 *    signal log was read late are counted, not failed: the model waits FSA_EDGE_LAG_NS for it);
 * 4. no silent hole: every inferred box lies in a log_gap loss of its queue and log, every
 *    log_gap overlaps a tracer discard, and every box never completed or without its queued
 *    event has a tracer discard where its missing event would have been.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fencescope-tp-enums.h"
#include "fsa/ingest.h"
#include "fsa/model.h"
#include "known-truth.h"
#include "record-sandbox.h"
#include "trace-reader.h"

#define FSCT_GPU_HZ 100000000u /* the scenario's adapter: the default counter, no offset */
/* How long after the GPU wrote an entry the OS may read it: the scenario's read period (200 µs)
 * and an interrupt, plus a scheduler slice in realtime. */
#define FSCT_READ_LAG_NS 10000000
/* From the last event to the end of the last packets, when `record` stopped the session. */
#define FSCT_STOP_NS 1000000000

struct losses {
	struct fsa_loss *items;
	size_t count;
};

static fsa_status
keep_loss(void *data, const struct fsa_loss *loss)
{
	struct losses *losses = data;

	losses->items = realloc(losses->items, (losses->count + 1) * sizeof(*losses->items));
	cr_assert_not_null(losses->items);
	losses->items[losses->count++] = *loss;
	return FSA_OK;
}

struct recording {
	struct fsct_outcome outcome;
	struct fst_trace *trace;
	struct fsa_model *model;
	struct fsct_rebuilt rebuilt;
	struct losses losses;
	int64_t first_ns, last_ns;
};

static struct recording *recording;

static fsa_status
keep_op_of(void *data, const struct fsa_op *op)
{
	return fsct_keep_op(&((struct recording *) data)->rebuilt, op);
}

static fsa_status
keep_loss_of(void *data, const struct fsa_loss *loss)
{
	return keep_loss(&((struct recording *) data)->losses, loss);
}

/* Records and analyzes the scenario. Criterion runs each test in a process of its own, so each
 * test checks a recording of its own (about 1 s each). */
static void
record_and_analyze(void)
{
	/* The consumer drains every 20 ms, not at each full sub-buffer: every burst overflows
	 * the 4 KiB sub-buffers whatever the machine's load (at each, a quiet machine kept up). */
	const char *const args[] = {"record",   "-o",
				    "trace",    "--subbuf-size",
				    "4k",       "--read-timer",
				    "20000",    "--clock",
				    "realtime", FSCT_SOURCE_DIR "/tests/cli/known-discards.json",
				    NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 120};
	struct fsa_model_sink sink;
	char *error = NULL, *path;

	recording = calloc(1, sizeof(*recording));
	cr_assert_not_null(recording);
	sink = (struct fsa_model_sink){.data = recording, .op = keep_op_of, .loss = keep_loss_of};
	cr_assert_eq(fsct_record_in_sandbox(&options, &recording->outcome), 0, "%s",
		     recording->outcome.setup_error);
	cr_assert_eq(recording->outcome.exit_status, 0, "record: %s", recording->outcome.err);
	path = fsct_dup_last_line(recording->outcome.out);
	cr_assert_eq(fst_trace_read(path, &recording->trace, &error), 0, "%s", error);
	cr_assert_gt(recording->trace->event_count, 0);
	recording->first_ns = recording->trace->events[0].ts_ns;
	recording->last_ns = recording->trace->events[recording->trace->event_count - 1].ts_ns;
	recording->model = fsa_model_create(&sink);
	cr_assert_not_null(recording->model);
	cr_assert_eq(fsa_ingest_into_model(path, recording->model, NULL, NULL, NULL, &error),
		     FSA_OK, "%s", error);
	cr_assert_eq(fsa_model_borrow_summary(recording->model)->clock_mode,
		     FSTP_CLOCK_MODE_REALTIME);
	free(path);
}

static void
forget_recording(void)
{
	if (!recording)
		return;
	fsa_model_destroy(recording->model);
	fst_trace_destroy(recording->trace);
	fsct_rebuilt_clear(&recording->rebuilt);
	free(recording->losses.items);
	fsct_outcome_clear(&recording->outcome);
	free(recording);
	recording = NULL;
}

TestSuite(known_discards, .init = record_and_analyze, .fini = forget_recording, .timeout = 180);

static bool
is_tracer_discard(const struct fsa_loss *loss)
{
	return loss->kind == FSA_LOSS_TRACER_EVENTS || loss->kind == FSA_LOSS_TRACER_PACKETS;
}

/* Whether a tracer discard's range meets [begin, end]. */
static bool
has_discard_between(int64_t begin, int64_t end)
{
	for (size_t i = 0; i < recording->losses.count; i++) {
		const struct fsa_loss *loss = &recording->losses.items[i];

		if (is_tracer_discard(loss) && (int64_t) loss->begin_ns <= end &&
		    (int64_t) loss->end_ns >= begin)
			return true;
	}
	return false;
}

Test(known_discards, discards_come_in_several_bursts_and_add_up_to_babeltrace_s_count)
{
	const struct fsa_summary *sum = fsa_model_borrow_summary(recording->model);
	uint64_t total = 0, gaps = 0;
	int64_t first_end = INT64_MAX, last_begin = 0;

	cr_log_info("known-discards: %zu events kept, %" PRIu64 " discarded by the tracer, "
		    "%" PRIu64 " log entries missing",
		    recording->trace->event_count, recording->trace->discarded_events,
		    sum->log_entries_missing);
	cr_assert_gt(recording->trace->discarded_events, 0, "4 KiB sub-buffers lost nothing");
	for (size_t i = 0; i < recording->losses.count; i++) {
		const struct fsa_loss *loss = &recording->losses.items[i];

		if (loss->kind == FSA_LOSS_LOG_GAP)
			gaps++;
		if (!is_tracer_discard(loss))
			continue;
		cr_expect_eq(loss->kind, FSA_LOSS_TRACER_EVENTS, "LTTng discards events");
		cr_expect_gt(loss->count, 0, "discard %zu", i);
		cr_assert_neq(loss->begin_ns, FSA_TIME_NONE, "a discard without a time range");
		cr_expect_leq(loss->begin_ns, loss->end_ns);
		cr_expect_geq((int64_t) loss->begin_ns, recording->first_ns - 1000000,
			      "discard %zu begins before the trace", i);
		/* The range ends at its packet's end: for a stream's last packet, when the session
		 * stopped, which is after the last event but not by much. */
		cr_expect_leq((int64_t) loss->end_ns, recording->last_ns + FSCT_STOP_NS,
			      "discard %zu ends after the trace", i);
		total += loss->count;
		if ((int64_t) loss->end_ns < first_end)
			first_end = (int64_t) loss->end_ns;
		if ((int64_t) loss->begin_ns > last_begin)
			last_begin = (int64_t) loss->begin_ns;
	}
	cr_expect_eq(total, recording->trace->discarded_events);
	cr_expect_eq(sum->tracer_discarded_events, recording->trace->discarded_events);
	/* Bursts 50 ms apart: a discard that ends before another begins 20 ms later. */
	cr_expect_gt(last_begin - first_end, 20000000,
		     "the tracer discarded in one burst only: the recording did not go on");
	cr_expect_gt(gaps, 0, "the discards left no hole in a fence log");
}

/* The fencescope_os:fence_log_entry that closed `op`, if it is in the trace. */
static bool
has_log_entry(const struct fsa_op *op)
{
	for (size_t i = 0; i < recording->trace->event_count; i++) {
		const struct fst_event *e = &recording->trace->events[i];

		if (strcmp(e->name, "fencescope_os:fence_log_entry") == 0 &&
		    fst_event_find_field(e, "hwqueue_handle")->u == op->hwqueue_handle &&
		    fst_event_find_field(e, "entry_position")->u == op->log_position &&
		    fst_event_find_field(e, "fence_value")->u == op->fence_value &&
		    fst_event_find_field(e, "end_gpu_ts")->u == op->end_gpu_ts)
			return true;
	}
	return false;
}

/* Checks a rebuilt time against the counter's own answer and, if it survived, its truth. */
static void
expect_on_truth(const struct fsa_op *op, uint64_t rebuilt, uint64_t gpu_ts,
		const struct fst_event *truth, const char *what, size_t *truth_lost)
{
	int64_t tolerance = fsct_tolerance_of(recording->model, op->adapter_id);
	int64_t tick = 1000000000 / FSCT_GPU_HZ + 1, low, high;
	/* The counter is a pure function of CLOCK_MONOTONIC: raw ns × Hz / 1e9 (no offset). */
	int64_t offset =
	    recording->trace->events[0].ts_ns - (int64_t) recording->trace->events[0].clock_value;
	int64_t exact = offset + (int64_t) (gpu_ts * (1000000000 / FSCT_GPU_HZ));

	cr_expect(llabs((int64_t) rebuilt - exact) <= tolerance,
		  "%s of op %" PRIu64 " (value %" PRIu64 "): rebuilt %" PRIu64
		  ", the counter says %" PRId64,
		  what, op->id, op->fence_value, rebuilt, exact);
	if (!truth) {
		(*truth_lost)++;
		return;
	}
	fsct_truth_window(true, tolerance, tick, &low, &high);
	cr_expect(truth->ts_ns - (int64_t) rebuilt >= low &&
		      truth->ts_ns - (int64_t) rebuilt <= high,
		  "%s of op %" PRIu64 " (value %" PRIu64 "): rebuilt %" PRIu64 ", truth %" PRId64,
		  what, op->id, op->fence_value, rebuilt, truth->ts_ns);
}

Test(known_discards, observed_boxes_were_closed_by_surviving_entries_and_land_on_the_truth)
{
	size_t checked = 0, truth_lost = 0;

	for (size_t i = 0; i < recording->rebuilt.op_count; i++) {
		const struct fsa_op *op = &recording->rebuilt.ops[i];
		const char *name = op->kind == FSA_OP_SIGNAL ? "fencescope_hw:fence_value_write"
							     : "fencescope_hw:gpu_wait_end";

		if (op->source != FSA_SRC_USER_MODE_QUEUE || op->state != FSA_OP_OBSERVED)
			continue;
		cr_expect(has_log_entry(op),
			  "op %" PRIu64 " (%s, value %" PRIu64 ", position %" PRIu64
			  ") is observed, but its log entry is not in the trace",
			  op->id, fsa_op_kind_name(op->kind), op->fence_value, op->log_position);
		cr_assert_neq(op->end_gpu_ts, 0);
		expect_on_truth(op, op->end_ns, op->end_gpu_ts,
				fsct_truth_event(recording->trace, name, op, op->end_gpu_ts),
				op->kind == FSA_OP_SIGNAL ? "signal end" : "wait end", &truth_lost);
		if (op->kind == FSA_OP_WAIT && op->observed_gpu_ts &&
		    op->observed_ns != FSA_TIME_NONE)
			expect_on_truth(op, op->observed_ns, op->observed_gpu_ts,
					fsct_truth_event(recording->trace,
							 "fencescope_hw:gpu_wait_begin", op,
							 op->observed_gpu_ts),
					"wait observed", &truth_lost);
		checked++;
	}
	cr_log_info("known-discards: %zu observed boxes checked, %zu times without their "
		    "ground truth (discarded)",
		    checked, truth_lost);
	cr_expect_gt(checked, 100);
}

/* The rebuilt signal box of a GPU write: same queue, fence and value (values of the scenario's
 * fence are signalled once each). */
static const struct fsa_op *
signal_of(const struct fsct_truth *write)
{
	for (size_t i = 0; i < recording->rebuilt.op_count; i++) {
		const struct fsa_op *op = &recording->rebuilt.ops[i];

		if (op->kind == FSA_OP_SIGNAL && op->source == FSA_SRC_USER_MODE_QUEUE &&
		    op->hwqueue_handle == write->hwqueue_handle &&
		    op->fence_global_handle == write->fence_global_handle &&
		    op->fence_value == write->value)
			return op;
	}
	return NULL;
}

/*
 * Whether the data that decides which signal released `wait` was lost: a gap of a signal log that
 * no inferred box fills (signals of unknown fence and value ran after its begin) began before the
 * releasing signal ended, or the signal log was being read across a gap when the wait ended (the
 * model could not yet tell whether a signal before it had run).
 */
static bool
has_unmatched_signal_gap(const struct fsa_op *wait, const struct fsa_op *release)
{
	for (size_t i = 0; i < recording->losses.count; i++) {
		const struct fsa_loss *gap = &recording->losses.items[i];

		if (gap->kind != FSA_LOSS_LOG_GAP || gap->log_type != FSTP_LOG_TYPE_SIGNALS)
			continue;
		if (gap->begin_ns <= wait->end_ns && wait->end_ns <= gap->end_ns)
			return true;
		if (gap->inferred_ops < gap->count && gap->begin_ns < release->end_ns)
			return true;
	}
	return false;
}

Test(known_discards, every_edge_names_the_releasing_signal_and_lost_releases_have_none)
{
	struct fsct_truths writes = fsct_truths_collect(recording->trace, true);
	size_t edges = 0, right = 0, wrong = 0, withheld = 0, excused = 0, unverifiable = 0;

	for (size_t i = 0; i < recording->rebuilt.op_count; i++) {
		const struct fsa_op *wait = &recording->rebuilt.ops[i], *signal, *truth_signal;
		const struct fsa_fence_info *fence;
		const struct fsct_truth *release;
		uint64_t end;

		if (wait->kind != FSA_OP_WAIT || wait->source != FSA_SRC_USER_MODE_QUEUE ||
		    !wait->fence_global_handle ||
		    (wait->state != FSA_OP_OBSERVED && wait->state != FSA_OP_INFERRED &&
		     wait->state != FSA_OP_UNQUEUED))
			continue;
		fence = fsa_model_find_fence(recording->model, wait->fence_global_handle);
		cr_assert_not_null(fence);
		if (fence->is_progress_fence)
			continue;
		end = wait->state == FSA_OP_INFERRED ? wait->inferred_end_ns : wait->end_ns;
		signal = wait->signal_op_id
			     ? fsct_rebuilt_find_op(&recording->rebuilt, wait->signal_op_id)
			     : NULL;
		edges += signal != NULL;
		/* Realtime writes are stamped up to a preemption late. */
		release = fsct_truth_release(&writes, fence, wait->fence_value, (int64_t) end,
					     FSCT_RT_PREEMPT_NS);
		/* The fence's values go up by one per signal: a surviving first write above the
		 * wait's value means the write of that value was discarded. */
		if (!release || release->value != wait->fence_value) {
			unverifiable++;
			if (signal && signal->fence_value != wait->fence_value) {
				wrong++;
				cr_log_error("wait op %" PRIu64 " (>= %" PRIu64
					     ") whose release was lost: edge to signal op %" PRIu64
					     " = %" PRIu64,
					     wait->id, wait->fence_value, signal->id,
					     signal->fence_value);
			}
			continue;
		}
		truth_signal = signal_of(release);
		if (!signal) {
			if (wait->state == FSA_OP_OBSERVED && truth_signal &&
			    truth_signal->state == FSA_OP_OBSERVED &&
			    !has_unmatched_signal_gap(wait, truth_signal)) {
				withheld++;
				cr_log_info(
				    "wait op %" PRIu64 " (>= %" PRIu64
				    ") has no edge; released by observed signal op %" PRIu64,
				    wait->id, wait->fence_value, truth_signal->id);
			} else {
				excused++;
			}
			continue;
		}
		if (signal == truth_signal) {
			right++;
		} else {
			wrong++;
			cr_log_error("wait op %" PRIu64 " (>= %" PRIu64
				     "): edge to signal op %" PRIu64 " = %" PRIu64
				     ", released by op %" PRIu64,
				     wait->id, wait->fence_value, signal->id, signal->fence_value,
				     truth_signal ? truth_signal->id : 0);
		}
	}
	cr_log_info("known-discards: %zu edges: %zu right, %zu wrong; %zu waits without edge for "
		    "lost signal data, %zu more withheld while a signal log was behind; %zu waits "
		    "whose releasing write was discarded",
		    edges, right, wrong, excused, withheld, unverifiable);
	cr_expect_eq(wrong, 0, "no wrong edge");
	cr_expect_gt(right, 0, "no edge survived the discards");
	free(writes.items);
}

/* Whether a log_gap of the op's queue and log holds [begin, end]. */
static bool
has_gap_around(const struct fsa_op *op, uint64_t begin, uint64_t end)
{
	uint8_t log_type = op->kind == FSA_OP_WAIT ? FSTP_LOG_TYPE_WAITS : FSTP_LOG_TYPE_SIGNALS;

	for (size_t i = 0; i < recording->losses.count; i++) {
		const struct fsa_loss *loss = &recording->losses.items[i];

		if (fsa_loss_is_per_log(loss->kind) && loss->hwqueue_handle == op->hwqueue_handle &&
		    loss->log_type == log_type && loss->begin_ns <= begin && end <= loss->end_ns)
			return true;
	}
	return false;
}

/* When the GPU completed `op` per the surviving truth (its write, or its wait's release), or -1.
 */
static int64_t
truth_completion(const struct fsa_op *op, const struct fsct_truths *writes,
		 const struct fsct_truths *releases)
{
	const struct fsct_truths *t = op->kind == FSA_OP_SIGNAL ? writes : releases;

	for (size_t i = 0; i < t->count; i++)
		if (t->items[i].is_gpu && t->items[i].hwqueue_handle == op->hwqueue_handle &&
		    t->items[i].fence_global_handle == op->fence_global_handle &&
		    t->items[i].value == op->fence_value)
			return t->items[i].ts_ns;
	return -1;
}

Test(known_discards, every_inferred_or_unfinished_box_lies_in_a_loss)
{
	struct fsct_truths writes = fsct_truths_collect(recording->trace, true);
	struct fsct_truths releases = fsct_truths_collect(recording->trace, false);
	size_t inferred = 0, never_completed = 0, unqueued = 0;

	for (size_t i = 0; i < recording->losses.count; i++) {
		const struct fsa_loss *gap = &recording->losses.items[i];

		if (gap->kind == FSA_LOSS_LOG_GAP)
			cr_expect(has_discard_between((int64_t) gap->begin_ns - FSCT_READ_LAG_NS,
						      (int64_t) gap->end_ns + FSCT_READ_LAG_NS),
				  "log gap of %" PRIu64 " entries at position %" PRIu64
				  " without a tracer discard",
				  gap->count, gap->cached_position);
		cr_expect_neq(gap->kind, FSA_LOSS_LOG_OVERRUN, "the scenario's logs never overrun");
	}
	for (size_t i = 0; i < recording->rebuilt.op_count; i++) {
		const struct fsa_op *op = &recording->rebuilt.ops[i];
		int64_t done;

		switch (op->state) {
		case FSA_OP_INFERRED:
			inferred++;
			cr_expect(
			    op->source == FSA_SRC_USER_MODE_QUEUE &&
				has_gap_around(op, op->inferred_begin_ns, op->inferred_end_ns),
			    "inferred op %" PRIu64 " lies in no log_gap of its queue", op->id);
			break;
		case FSA_OP_NEVER_COMPLETED:
			never_completed++;
			if (op->source != FSA_SRC_USER_MODE_QUEUE) {
				cr_expect(has_discard_between((int64_t) op->queued_ns,
							      recording->last_ns),
					  "op %" PRIu64
					  " never completed, and nothing was lost after "
					  "it was queued",
					  op->id);
				break;
			}
			/* Its entry was read after the GPU completed it, and lost. */
			done = truth_completion(op, &writes, &releases);
			cr_expect(has_discard_between(done < 0 ? (int64_t) op->queued_ns : done,
						      done < 0 ? recording->last_ns
							       : done + FSCT_READ_LAG_NS),
				  "%s op %" PRIu64 " (value %" PRIu64
				  ") never completed without a discard when its entry came",
				  fsa_op_kind_name(op->kind), op->id, op->fence_value);
			break;
		case FSA_OP_UNQUEUED:
			unqueued++;
			cr_expect(has_discard_between(recording->first_ns, (int64_t) op->end_ns),
				  "op %" PRIu64 " lost its queued event without a discard", op->id);
			break;
		case FSA_OP_OBSERVED:
			break;
		}
	}
	cr_log_info("known-discards: %zu inferred, %zu never completed, %zu without queued event",
		    inferred, never_completed, unqueued);
	free(writes.items);
	free(releases.items);
}
