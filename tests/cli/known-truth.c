/* SPDX-License-Identifier: MIT */
/*
 * The known-answer tests' shared helpers (known-truth.h): rebuilt boxes kept from the model's
 * sink, the emulator's ground truth found in the trace, and the tolerance between the two. Test
 * code only: it asserts with Criterion.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "known-truth.h"

fsa_status
fsct_keep_op(void *data, const struct fsa_op *op)
{
	struct fsct_rebuilt *r = data;

	if (r->op_count == r->op_capacity) {
		r->op_capacity = r->op_capacity ? r->op_capacity * 2 : 256;
		r->ops = realloc(r->ops, r->op_capacity * sizeof(*r->ops));
		cr_assert_not_null(r->ops);
	}
	r->ops[r->op_count++] = *op;
	return FSA_OK;
}

fsa_status
fsct_keep_step(void *data, const struct fsa_fence_value *step)
{
	struct fsct_rebuilt *r = data;

	if (r->step_count == r->step_capacity) {
		r->step_capacity = r->step_capacity ? r->step_capacity * 2 : 256;
		r->steps = realloc(r->steps, r->step_capacity * sizeof(*r->steps));
		cr_assert_not_null(r->steps);
	}
	r->steps[r->step_count++] = *step;
	return FSA_OK;
}

void
fsct_rebuilt_clear(struct fsct_rebuilt *rebuilt)
{
	free(rebuilt->ops);
	free(rebuilt->steps);
	*rebuilt = (struct fsct_rebuilt){0};
}

const struct fsa_op *
fsct_rebuilt_find_op(const struct fsct_rebuilt *rebuilt, uint64_t id)
{
	for (size_t i = 0; i < rebuilt->op_count; i++)
		if (rebuilt->ops[i].id == id)
			return &rebuilt->ops[i];
	return NULL;
}

static uint64_t
field(const struct fst_event *event, const char *name)
{
	const struct fst_field *f = fst_event_find_field(event, name);

	cr_assert_not_null(f, "%s has no %s", event->name, name);
	return f->u;
}

struct fsct_truths
fsct_truths_collect(const struct fst_trace *trace, bool is_write)
{
	struct fsct_truths t = {calloc(trace->event_count + 1, sizeof(struct fsct_truth)), 0};

	cr_assert_not_null(t.items);
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *e = &trace->events[i];
		bool is_gpu = strcmp(e->name, is_write ? "fencescope_hw:fence_value_write"
						       : "fencescope_hw:gpu_wait_end") == 0;

		if (!is_gpu &&
		    !(is_write && strcmp(e->name, "fencescope_kmd:update_current_value") == 0 &&
		      field(e, "notification_only") == 0))
			continue;
		t.items[t.count++] = (struct fsct_truth){
		    .is_gpu = is_gpu,
		    .hwqueue_handle = is_gpu ? field(e, "hwqueue_handle") : 0,
		    .fence_global_handle = field(e, "fence_global_handle"),
		    .value = field(e, "fence_value"),
		    .gpu_ts = is_gpu ? field(e, "gpu_ts") : 0,
		    .ts_ns = e->ts_ns,
		};
	}
	return t;
}

const struct fsct_truth *
fsct_truth_release(const struct fsct_truths *writes, const struct fsa_fence_info *fence,
		   uint64_t value, int64_t end_ns, int64_t tolerance_ns)
{
	uint64_t current = fence->initial_value;
	const struct fsct_truth *release = NULL;

	/* CurrentValue is what the last write stored: a GPU signal below it lowers it (spec 001,
	 * "write N"), and a later write may bring it to the value again. */
	for (size_t i = 0; i < writes->count; i++) {
		const struct fsct_truth *w = &writes->items[i];

		if (w->fence_global_handle != fence->fence_global_handle)
			continue;
		if (w->ts_ns > end_ns + tolerance_ns)
			break;
		if (current < value && w->value >= value)
			release = w;
		current = w->value;
	}
	return release;
}

const struct fst_event *
fsct_truth_event(const struct fst_trace *trace, const char *name, const struct fsa_op *op,
		 uint64_t gpu_ts)
{
	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_event *event = &trace->events[i];

		if (strcmp(event->name, name) == 0 &&
		    fst_event_find_field(event, "gpu_ts")->u == gpu_ts &&
		    fst_event_find_field(event, "fence_value")->u == op->fence_value &&
		    fst_event_find_field(event, "fence_global_handle")->u ==
			op->fence_global_handle &&
		    fst_event_find_field(event, "hwqueue_handle")->u == op->hwqueue_handle)
			return event;
	}
	return NULL;
}

int64_t
fsct_tolerance_of(const struct fsa_model *model, uint32_t adapter_id)
{
	for (size_t i = 0; i < fsa_model_clock_fit_count(model); i++) {
		const struct fsa_clock_fit *fit = fsa_model_borrow_clock_fit(model, i);

		/*
		 * One tick (a pair's GPU side is whole ticks) plus the fit's residual; a fit that
		 * extrapolated past its last pair adds the error of the last segment's measured
		 * rate, two ticks at most over as far again (docs/analyzer.md, "Tolerance").
		 */
		if (fit->adapter_id == adapter_id)
			return (int64_t) ceil(fit->ns_per_tick) *
				   (fit->extrapolated_count ? 3 : 1) +
			       (int64_t) ceil(fit->residual_max_ns);
	}
	cr_assert_fail("no clock fit for adapter %u", adapter_id);
	return 0;
}

void
fsct_truth_window(bool is_realtime, int64_t tolerance, int64_t tick_ns, int64_t *low, int64_t *high)
{
	*low = is_realtime ? -(tolerance + tick_ns) : -tolerance;
	*high = is_realtime ? tolerance + FSCT_RT_PREEMPT_NS : tolerance;
}
