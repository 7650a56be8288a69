/* SPDX-License-Identifier: MIT */
/*
 * Frame statistics for the report's `frames` section (frame-stats-private.h): the frames of
 * fsa/frames.h, in the time filter, folded per display. A frame is over budget when its frame
 * time exceeds the budget (--frame-budget, else the display's vsync period) by more than the
 * 1 µs mapping tolerance. Memory: bounded per display, plus every frame when the critical path
 * is asked for (120 bytes each).
 */
#include <stdlib.h>

#include "fsa/chain.h"
#include "frame-stats-private.h"
#include "report-private.h"

static void
display_free(gpointer data)
{
	struct fsa_frame_display_acc *d = data;

	quantile_fini(&d->frame_time);
	quantile_fini(&d->present_latency);
	g_free(d);
}

static struct fsa_frame_display_acc *
get_display(struct fsa_frame_stats *stats, uint32_t adapter_id, uint32_t source_id)
{
	uint64_t key = (uint64_t) adapter_id << 32 | source_id;
	struct fsa_frame_display_acc *d = g_hash_table_lookup(stats->displays, &key);

	if (!d) {
		d = g_new0(struct fsa_frame_display_acc, 1);
		d->key = key;
		d->adapter_id = adapter_id;
		d->source_id = source_id;
		d->vsync_period_ns = FSA_TIME_NONE;
		quantile_init(&d->frame_time);
		quantile_init(&d->present_latency);
		g_hash_table_insert(stats->displays, &d->key, d);
	}
	return d;
}

uint64_t
frame_stats_budget(const struct fsa_report *r, const struct fsa_frame_display_acc *d)
{
	return r->options.frame_budget_ns ? r->options.frame_budget_ns : d->vsync_period_ns;
}

/* Longer frame time first; of equal ones the earlier frame. */
static bool
is_longer(const struct fsa_frame *a, const struct fsa_frame *b)
{
	if (a->frame_time_ns != b->frame_time_ns)
		return a->frame_time_ns > b->frame_time_ns;
	if (a->adapter_id != b->adapter_id || a->source_id != b->source_id)
		return a->adapter_id < b->adapter_id ||
		       (a->adapter_id == b->adapter_id && a->source_id < b->source_id);
	return a->index < b->index;
}

static void
offer_longest(struct fsa_report *r, const struct fsa_frame *frame)
{
	GArray *longest = r->frame_stats->longest;
	guint at = longest->len;

	if (frame->frame_time_ns == FSA_TIME_NONE)
		return;
	while (at > 0 && is_longer(frame, &g_array_index(longest, struct fsa_frame, at - 1)))
		at--;
	if (at >= r->options.longest_count)
		return;
	g_array_insert_val(longest, at, *frame);
	if (longest->len > r->options.longest_count)
		g_array_set_size(longest, (guint) r->options.longest_count);
}

static fsa_status
on_frame(void *data, const struct fsa_frame *frame)
{
	struct fsa_report *r = data;
	struct fsa_frame_stats *stats = r->frame_stats;
	struct fsa_frame_display_acc *d = get_display(stats, frame->adapter_id, frame->source_id);
	uint64_t end = frame->is_pending ? frame->queued_ns : frame->end_ns;
	uint64_t begin = frame->begin_ns != FSA_TIME_NONE ? frame->begin_ns : end;
	fsa_status status = FSA_OK;

	if (frame->vsync_period_ns != FSA_TIME_NONE)
		d->vsync_period_ns = frame->vsync_period_ns;
	if (!report_in_range(r, begin, end))
		return FSA_OK;
	if (stats->kept)
		g_array_append_val(stats->kept, *frame);
	if (frame->is_pending) {
		d->pending++;
		return FSA_OK;
	}
	d->frames++;
	d->missed_vsyncs += frame->missed_vsyncs;
	d->frames_missing_vsyncs += frame->missed_vsyncs > 0;
	stats->missed_vsyncs_all += frame->missed_vsyncs;
	if (frame->frame_time_ns != FSA_TIME_NONE) {
		uint64_t budget = frame_stats_budget(r, d);

		status = quantile_add(&d->frame_time, frame->frame_time_ns);
		if (status == FSA_OK)
			status = quantile_add(&stats->frame_time_all, frame->frame_time_ns);
		if (fsa_frame_is_over_budget(frame->frame_time_ns, budget)) {
			d->over_budget++;
			stats->over_budget_all++;
		}
		offer_longest(r, frame);
	}
	if (status == FSA_OK && frame->present_latency_ns != FSA_TIME_NONE) {
		status = quantile_add(&d->present_latency, frame->present_latency_ns);
		if (status == FSA_OK)
			status =
			    quantile_add(&stats->present_latency_all, frame->present_latency_ns);
	}
	return status;
}

struct fsa_frame_stats *
frame_stats_new(struct fsa_report *r, bool is_keeping)
{
	struct fsa_frame_stats *stats = g_new0(struct fsa_frame_stats, 1);

	stats->builder = fsa_frame_builder_create(on_frame, r);
	stats->displays = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, display_free);
	stats->kept = is_keeping ? g_array_new(FALSE, FALSE, sizeof(struct fsa_frame)) : NULL;
	stats->longest = g_array_new(FALSE, FALSE, sizeof(struct fsa_frame));
	quantile_init(&stats->frame_time_all);
	quantile_init(&stats->present_latency_all);
	if (!stats->builder) {
		frame_stats_free(stats);
		return NULL;
	}
	return stats;
}

void
frame_stats_free(struct fsa_frame_stats *stats)
{
	if (!stats)
		return;
	fsa_frame_builder_destroy(stats->builder);
	g_hash_table_destroy(stats->displays);
	if (stats->kept)
		g_array_free(stats->kept, TRUE);
	g_array_free(stats->longest, TRUE);
	quantile_fini(&stats->frame_time_all);
	quantile_fini(&stats->present_latency_all);
	g_free(stats);
}

fsa_status
frame_stats_on_marker(struct fsa_report *r, const struct fsa_marker *marker)
{
	if (marker->kind != FSA_MARK_VSYNC && marker->kind != FSA_MARK_FLIP)
		return FSA_OK;
	r->frame_stats->has_display = true;
	/* A display's vsyncs make its row even when it shows no frame. */
	get_display(r->frame_stats, marker->adapter_id, (uint32_t) marker->other_handle);
	return fsa_frame_builder_add_marker(r->frame_stats->builder, marker);
}

fsa_status
frame_stats_finish(struct fsa_report *r)
{
	return fsa_frame_builder_finish(r->frame_stats->builder);
}

bool
frame_stats_is_shown(const struct fsa_report *r)
{
	return r->frame_stats->has_display;
}
