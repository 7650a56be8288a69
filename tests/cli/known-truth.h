/* SPDX-License-Identifier: MIT */
/*
 * What the known-answer tests share (test-known-answer.c, test-known-edges.c,
 * test-known-discards.c): a model sink that keeps every rebuilt box, the emulator's ground truth
 * read from the same trace (fencescope_hw:fence_value_write, gpu_wait_end, and
 * fencescope_kmd:update_current_value, which the analyzer never uses), the release of a wait by
 * that truth (GPV-07), and the tolerance a rebuilt time has against it in each clock. It does not
 * record (record-sandbox.h) and does not read traces itself (trace-reader.h).
 */
#ifndef FSCT_KNOWN_TRUTH_H
#define FSCT_KNOWN_TRUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "fsa/model.h"
#include "trace-reader.h"

/*
 * Realtime: how late a ground-truth event may be stamped after the instant its GPU time stands
 * for (a thread preempted between the GPU's clock read and its tracepoint). A loaded 2-core CI
 * machine was seen at 4.5 ms, more than one scheduler slice; the rebuilt time itself is held to
 * the counter's own answer within the fit's tolerance, so this bound only catches gross errors.
 */
#define FSCT_RT_PREEMPT_NS 50000000

/* Every box and progress-fence step the model gave out, in the order it gave them. */
struct fsct_rebuilt {
	struct fsa_op *ops;
	size_t op_count, op_capacity;
	struct fsa_fence_value *steps; /* progress fences' value steps */
	size_t step_count, step_capacity;
};

/* fsa_model_sink callbacks; `data` is a struct fsct_rebuilt. */
fsa_status fsct_keep_op(void *data, const struct fsa_op *op);
fsa_status fsct_keep_step(void *data, const struct fsa_fence_value *step);
void fsct_rebuilt_clear(struct fsct_rebuilt *rebuilt);
/* Returns: (transfer none) (nullable) the box with that id. */
const struct fsa_op *fsct_rebuilt_find_op(const struct fsct_rebuilt *rebuilt, uint64_t id);

/* A ground-truth event: a CurrentValue write or a GPU wait's release. */
struct fsct_truth {
	bool is_gpu;             /* fence_value_write / gpu_wait_end, else update_current_value */
	uint64_t hwqueue_handle; /* GPU events */
	uint64_t fence_global_handle, value;
	uint64_t gpu_ts; /* GPU events */
	int64_t ts_ns;
	const struct fsa_op *op; /* the rebuilt box matched to it, if the test matched one */
};

struct fsct_truths {
	struct fsct_truth *items;
	size_t count;
};

/* The writes (is_write) or the GPU wait releases of `trace` that survived, in trace order.
 * Release with free(truths.items). */
struct fsct_truths fsct_truths_collect(const struct fst_trace *trace, bool is_write);

/* GPV-07 on the ground truth: the last write, no later than `end_ns` + `tolerance_ns`, that
 * brought `fence` from below `value` to `value` or more — the first one unless a regression
 * (a GPU signal below CurrentValue, which lowers it) took the fence below `value` again; NULL
 * for a wait at or below the initial value that no regression took the fence below. */
const struct fsct_truth *fsct_truth_release(const struct fsct_truths *writes,
					    const struct fsa_fence_info *fence, uint64_t value,
					    int64_t end_ns, int64_t tolerance_ns);

/* The ground-truth event `name` (fencescope_hw:…) for the queue, fence and value of `op` at GPU
 * tick `gpu_ts`, or NULL. */
const struct fst_event *fsct_truth_event(const struct fst_trace *trace, const char *name,
					 const struct fsa_op *op, uint64_t gpu_ts);

/* The mapping's error bound for `adapter_id`: ceil(ns per tick of the fit) + ceil(the fit's
 * maximum residual) (docs/analyzer.md "Tolerance"). */
int64_t fsct_tolerance_of(const struct fsa_model *model, uint32_t adapter_id);

/* How far truth − rebuilt may go for a time of a GPU counter ticking every `tick_ns`: within the
 * tolerance in sim; in realtime the tracer stamps after the GPU read the clock, never before (a
 * tick and the tolerance aside), and late by little but up to a preemption. */
void fsct_truth_window(bool is_realtime, int64_t tolerance, int64_t tick_ns, int64_t *low,
		       int64_t *high);

#endif /* FSCT_KNOWN_TRUTH_H */
