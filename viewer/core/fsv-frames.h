/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: a trace's frames (issue 16 §3, the viewer's part): the frames fsa_frame_builder
 * gives (fsa/frames.h, docs/analyzer.md "Frames"), run over the model's markers while the trace
 * is built (in the index builder's process when the index is built there), stored in the
 * trace and its index file, one frames row (FSV_ROW_FRAMES) per display that has any. What a
 * frame is, is the analyzer's answer; this file keeps it and answers "which frames lie in this
 * time range of this row". Not the drawing (fsv-render.c) nor the critical path (fsv-chain.h).
 */
#ifndef FSV_FRAMES_H
#define FSV_FRAMES_H

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

/* One frame: struct fsa_frame, compacted without padding (it is index file bytes), plus the
 * span its box is drawn over and its row. Times FSV_TIME_NONE when unknown, as in fsa_frame. */
typedef struct {
	guint64 index;       /* 1, 2, … per display; pending presents continue the numbering */
	guint64 flip_id;     /* the flip on screen from this frame on */
	guint64 vsync_count; /* the vsync that latched it (0 for a pending present) */
	guint64 begin_ns, end_ns, frame_time_ns, missed_vsyncs;
	guint64 queued_ns, done_ns, present_latency_ns;
	guint64 context_handle; /* the presenting context, 0 unknown */
	/* The display's vsync period as last measured at this frame (fsa_frame's, or the one of an
	 * earlier frame when this one has none, as the report reads it): the frame's budget. */
	guint64 vsync_period_ns;
	/* The box: [begin, end] of the frame; a display's first frame (no vsync before it) from
	 * its flip_queued; a frame whose latching vsync is lost ends at its flip_done; a pending
	 * present from its flip_queued to the end of the trace. draw_end ≥ draw_begin. */
	guint64 draw_begin_ns, draw_end_ns;
	guint32 adapter_id, source_id;
	guint32 process_id; /* UINT32_MAX unknown */
	guint32 row;        /* its frames row */
	guint32 is_pending; /* 0 or 1 */
	guint32 reserved;   /* 0 */
} FsvFrame;

/* How a frame compares with its display's budget (docs/viewer.md "Frames"). */
typedef enum {
	FSV_FRAME_ON_TIME, /* frame time within the budget (fsv_frame_is_over_budget()) */
	FSV_FRAME_OVER,    /* over the budget, no vsync missed */
	FSV_FRAME_MISSED,  /* one or more vsyncs brought no new frame before it */
	FSV_FRAME_PENDING, /* a present never on screen by the end of the trace */
	FSV_FRAME_UNKNOWN, /* frame time unknown (first frame, lost vsync) */
} FsvFrameGrade;

guint fsv_trace_get_frame_count(const FsvTrace *trace);
/* Returns: (transfer none). Frames are stored per display in frame order (display rows in row
 * order; a display's pending presents after its frames). */
const FsvFrame *fsv_trace_get_frame(const FsvTrace *trace, guint32 frame);
/* The frames of a frames row (of any other row: none) and the median of their vsync periods (0
 * when none is known; the row's label shows it unless a budget is given; without one, each
 * frame is graded against its own period, fsv_view_get_frame_budget()). Returns: (transfer
 * none): *n frames, consecutive from *first (a frame index). */
const FsvFrame *fsv_trace_get_row_frames(const FsvTrace *trace, guint32 row, guint32 *first,
					 guint *n, guint64 *budget_ns);
/* Returns: (transfer full) (nullable): the second line of frames row ROW's label when its frames
 * are graded against BUDGET_NS given (--frame-budget): "N frames · budget 20.000 ms (given)"; NULL
 * when BUDGET_NS is 0 or ROW is no frames row (its stored sublabel, with the median period,
 * stands). */
char *fsv_trace_dup_frames_sublabel(const FsvTrace *trace, guint32 row, guint64 budget_ns);
/* The frame numbered NUMBER (fsa_frame.index) of the first display that has one, else
 * FSV_INDEX_NONE. */
guint32 fsv_trace_find_frame(const FsvTrace *trace, guint64 number);
/* FRAME's grade against BUDGET_NS (0: its own vsync_period_ns, as the report's default). */
FsvFrameGrade fsv_frame_grade(const FsvFrame *frame, guint64 budget_ns);
/* Whether FRAME is over BUDGET_NS (0: its vsync_period_ns, the display's vsync period as last
 * measured at it) by the report's rule, fsa_frame_is_over_budget(): a frame that missed a
 * vsync is (graded FSV_FRAME_MISSED all the same); a pending present never is. */
gboolean fsv_frame_is_over_budget(const FsvFrame *frame, guint64 budget_ns);
/* The flip marker FLIP_ID, queued at QUEUED_NS, on the display row of frames row ROW (the row
 * before it), by bisection; FSV_INDEX_NONE when that row has none. */
guint32 fsv_trace_find_frame_flip(const FsvTrace *trace, guint32 row, guint64 flip_id,
				  guint64 queued_ns);

G_END_DECLS

#endif /* FSV_FRAMES_H */
