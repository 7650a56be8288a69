/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the layout's metrics, shared by fsv-view.c (row heights, hit testing) and
 * fsv-render.c (where to draw), so drawing and hit testing agree to the pixel.
 */
#ifndef FSV_VIEW_PRIVATE_H
#define FSV_VIEW_PRIVATE_H

#define FSV_DEFAULT_LABEL_WIDTH 240
#define FSV_RULER_HEIGHT        32
#define FSV_GROUP_HEIGHT        24
#define FSV_ROW_PAD_TOP         5
#define FSV_ROW_PAD_BOTTOM      3
#define FSV_LANE_HEIGHT         16
#define FSV_PACKET_LANE_HEIGHT  14
/* The strip under a queue's lanes where doorbell rings and other instants are ticked. */
#define FSV_TICK_HEIGHT      7
#define FSV_FENCE_ROW_HEIGHT 30
/* The doorbell connection band under a queue's tick strip (rows with has_doorbell_band). */
#define FSV_BAND_HEIGHT 6
/* An engine's F-state row, an adapter's D-state row. */
#define FSV_POWER_ROW_HEIGHT 18
/* The strip above an engine's packet lanes (rows with has_event_strip): preemption brackets,
 * connectors from a preempted piece to its resubmitted piece, TDR labels. */
#define FSV_EVENT_STRIP_HEIGHT 12
/* A display row (PRE-13): the vsync strip on top, then two sub-lanes of flips. */
#define FSV_VSYNC_STRIP_HEIGHT 10
#define FSV_FLIP_LANE_HEIGHT   12
#define FSV_DISPLAY_ROW_HEIGHT (3 + FSV_VSYNC_STRIP_HEIGHT + 2 + 2 * FSV_FLIP_LANE_HEIGHT + 2)
/* A GPU VA space row (MMU-01): thin lanes of mappings above its tick strip. */
#define FSV_VA_LANE_HEIGHT 12

/* The frame drawn around the selected box, outside it: fsv-render.c strokes a 2 px outline
 * whose outer edge lies this far out left and right, and above and below. */
#define FSV_SELECTION_FRAME_X 1.5
#define FSV_SELECTION_FRAME_Y 2.5

#include "fsv-view.h"

/*
 * The box of an op or packet as drawn (whole pixels, at least 3 px wide when selected: the
 * selected box is drawn so) in its lane or aggregated slot. The renderer draws the selection
 * there and the hit tester answers it there: one function decides both. False when its row is
 * not laid out.
 */
bool _fsv_view_get_box(const FsvView *view, const FsvItem *item, double *x0, double *x1, double *y,
		       double *h);
/* A counter row (issue 15 §4): busy fraction or queue depth, a plot between its top and bottom
 * margins. */
#define FSV_COUNTER_ROW_HEIGHT 24
/* A display's frames row (issue 16 §3): one band of frame boxes with their labels, tall enough
 * for the row label's second line (its frames and budget). */
#define FSV_FRAMES_ROW_HEIGHT     28
#define FSV_COUNTER_MARGIN_TOP    4
#define FSV_COUNTER_MARGIN_BOTTOM 3

#endif /* FSV_VIEW_PRIVATE_H */
