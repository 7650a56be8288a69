/* SPDX-License-Identifier: MIT */
/*
 * The report's `frames` section (docs/report-schema.md, schema 2.4): report.c hands every marker
 * to a struct fsa_frame_builder (fsa/frames.h) owned here, and the frames it gives (in the time
 * filter) are folded into per-display statistics: frame time and present latency quantiles,
 * frames over the budget, missed vsyncs, the longest frames. When the critical path is asked for,
 * every frame is kept too (critical-path.c reads them).
 */
#ifndef FSA_FRAME_STATS_PRIVATE_H
#define FSA_FRAME_STATS_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "fsa/frames.h"
#include "quantile-private.h"

struct fsa_report;

struct fsa_frame_display_acc {
	uint64_t key; /* first: adapter << 32 | source */
	uint32_t adapter_id, source_id;
	uint64_t frames, pending, missed_vsyncs, frames_missing_vsyncs;
	uint64_t over_budget;
	uint64_t vsync_period_ns; /* the latest measured, FSA_TIME_NONE none */
	struct fsa_quantile frame_time, present_latency;
};

struct fsa_frame_stats {
	struct fsa_frame_builder *builder; /* owned */
	GHashTable *displays;              /* key → fsa_frame_display_acc */
	bool has_display;                  /* a vsync or a flip marker came */
	/* Every frame in range, in the order given (only when the critical path is asked for). */
	GArray *kept; /* struct fsa_frame */
	/* The longest frames (by frame time), at most options.longest_count, longest first. */
	GArray *longest; /* struct fsa_frame */
	/* Over every display, for --fail-if. */
	struct fsa_quantile frame_time_all, present_latency_all;
	uint64_t over_budget_all, missed_vsyncs_all;
};

struct fsa_frame_stats *frame_stats_new(struct fsa_report *r, bool is_keeping);
void frame_stats_free(struct fsa_frame_stats *stats);
fsa_status frame_stats_on_marker(struct fsa_report *r, const struct fsa_marker *marker);
/* After the model finished: the frames still held and the pending presents. */
fsa_status frame_stats_finish(struct fsa_report *r);
/* Whether the section appears by default: the trace has a display. */
bool frame_stats_is_shown(const struct fsa_report *r);
/* The budget a display's frames are held to: --frame-budget, else its vsync period. */
uint64_t frame_stats_budget(const struct fsa_report *r, const struct fsa_frame_display_acc *d);

#endif /* FSA_FRAME_STATS_PRIVATE_H */
