/* SPDX-License-Identifier: MIT */
/*
 * Frames of a trace, per display (docs/analyzer.md "Frames"): built from the model's `vsync`
 * and `flip` markers (PRE-13) as they stream out of it. A frame is a flip that reached the
 * screen: its boundary is the vsync at which the display latched it, its frame time the time
 * since the previous such vsync of that display, and the vsyncs between the two that brought no
 * new flip are missed. A present (flip_queued) still pending at the end of the trace is given
 * last, with is_pending set. A trace without flips gives no frames.
 *
 * It is not a model sink itself: a sink (the report, an exporter, the viewer's index) hands it
 * every marker it gets (the builder reads only FSA_MARK_VSYNC and FSA_MARK_FLIP) and calls
 * fsa_frame_builder_finish() after fsa_model_finish(). Memory: a few words per display and the
 * frames of the last FSA_FRAME_HOLD_VSYNCS vsyncs, waiting for their flip_done.
 *
 *     struct fsa_frame_builder *frames = fsa_frame_builder_create(on_frame, data);
 *     ... in the sink's marker callback: fsa_frame_builder_add_marker(frames, marker);
 *     ... after fsa_model_finish(): fsa_frame_builder_finish(frames);
 *     fsa_frame_builder_destroy(frames);
 */
#ifndef FSA_FRAMES_H
#define FSA_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "fsa/export.h"
#include "fsa/model.h"

/* How much longer than its budget a frame may be and still be on time: the clock tolerance
 * (FSA_CHAIN_TOLERANCE_NS). */
#define FSA_FRAME_BUDGET_TOLERANCE_NS UINT64_C(1000)

/* A latched flip whose flip marker has not come this many vsyncs later is given without it (its
 * flip_queued is not in the trace, so the model made no flip marker). */
#define FSA_FRAME_HOLD_VSYNCS 4

struct fsa_frame {
	uint32_t adapter_id, source_id; /* the display (VidPN source) */
	/* 1, 2, … per display in vsync order; pending presents continue the numbering. */
	uint64_t index;
	uint64_t flip_id;     /* the flip on screen from this frame on */
	uint64_t vsync_count; /* N: the vsync that latched it (0 for a pending present) */
	/* The frame: from the vsync of the display's previous frame (FSA_TIME_NONE for its first
	 * frame, or when that vsync event is lost) to vsync N (FSA_TIME_NONE when that vsync event
	 * is lost: the flip_done still names N). */
	uint64_t begin_ns, end_ns;
	uint64_t frame_time_ns; /* end − begin; FSA_TIME_NONE when either is unknown */
	/* Vsyncs after the previous frame's and before N that latched no new flip: N − N_prev − 1
	 * (0 for a display's first frame). */
	uint64_t missed_vsyncs;
	/* The present: flip_queued (the OS programmed the flip once its rendering was complete and
	 * the flip before it on screen) and flip_done (the OS learnt it took effect); FSA_TIME_NONE
	 * when the flip marker is not in the trace. present_latency_ns = done − queued. */
	uint64_t queued_ns, done_ns, present_latency_ns;
	uint32_t process_id;     /* from flip_queued; UINT32_MAX when unknown */
	uint64_t context_handle; /* from flip_queued; 0 when unknown */
	/* The display's vsync period as measured at this frame: between its two latest vsync
	 * events, per vsync; FSA_TIME_NONE before two. */
	uint64_t vsync_period_ns;
	/* A present queued and never on screen by the end of the trace: vsync_count 0, end_ns,
	 * done_ns, frame_time_ns FSA_TIME_NONE, begin_ns = queued_ns. */
	bool is_pending;
};

/*
 * Whether a frame that took FRAME_TIME_NS is over BUDGET_NS: longer by more than
 * FSA_FRAME_BUDGET_TOLERANCE_NS; never when either is unknown (FSA_TIME_NONE) or the budget is 0.
 * The one rule of the report's frame_over_budget and the viewer's frames rows (docs/analyzer.md
 * "Frames"); the budget is --frame-budget, else the display's vsync period as last measured at
 * that frame.
 */
static inline bool
fsa_frame_is_over_budget(uint64_t frame_time_ns, uint64_t budget_ns)
{
	/* As a difference: a budget within the tolerance of UINT64_MAX must not wrap. */
	return frame_time_ns != FSA_TIME_NONE && budget_ns != FSA_TIME_NONE && budget_ns > 0 &&
	       frame_time_ns > budget_ns &&
	       frame_time_ns - budget_ns > FSA_FRAME_BUDGET_TOLERANCE_NS;
}

/* Gets each frame, borrowed for the call; a status other than FSA_OK stops the builder and is
 * returned by the add/finish call that gave the frame. */
typedef fsa_status (*fsa_frame_fn)(void *data, const struct fsa_frame *frame);

struct fsa_frame_builder;

/* Returns: (transfer full) (nullable: out of memory). */
FSA_API struct fsa_frame_builder *fsa_frame_builder_create(fsa_frame_fn on_frame, void *data);
FSA_API void fsa_frame_builder_destroy(struct fsa_frame_builder *builder);
/* Any marker, in the order the model gives them; only vsync and flip markers are read. */
FSA_API fsa_status fsa_frame_builder_add_marker(struct fsa_frame_builder *builder,
						const struct fsa_marker *marker);
/* End of trace: gives the frames still held, then the pending presents (by flip id). */
FSA_API fsa_status fsa_frame_builder_finish(struct fsa_frame_builder *builder);
/* Frames given so far (pending presents not counted). */
FSA_API uint64_t fsa_frame_builder_frame_count(const struct fsa_frame_builder *builder);

#endif /* FSA_FRAMES_H */
