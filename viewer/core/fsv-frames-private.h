/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the frames while a trace is built (fsv-trace-build.c hands them the model's
 * markers; fsv-trace-layout.c adds the frames rows) and how they are stored (fsv-frames.h).
 * Kept apart from the other arrays of the trace so that the frames section of the index file
 * (FRMS, FRRW) is this file's alone.
 */
#ifndef FSV_FRAMES_PRIVATE_H
#define FSV_FRAMES_PRIVATE_H

#include "fsv-frames.h"
#include "fsv-lod.h"
#include "fsv-trace-build-private.h"

G_BEGIN_DECLS

/* While building: a frame builder fed with every marker of the model (sink_marker), finished
 * after the model (before the layout, which needs to know which displays have frames). */
void _fsv_build_frames_init(TraceBuild *build);
void _fsv_build_frames_add_marker(TraceBuild *build, const struct fsa_marker *marker);
void _fsv_build_frames_finish(TraceBuild *build);
/* A live update (FsvTraceAppend): feeds TO's frame builder the vsync and flip markers FROM's
 * was fed so far, in their order, so that TO, once finished, has the frames of those markers
 * and of the markers given to TO after this (the ones the model still holds open). */
void _fsv_build_frames_replay(TraceBuild *to, const TraceBuild *from);
void _fsv_build_frames_free(TraceBuild *build);
/* Whether the display (ADAPTER_ID, SOURCE_ID) has frames (after the finish). */
bool _fsv_build_display_has_frames(const TraceBuild *build, guint32 adapter_id, guint32 source_id);
/* After the layout and the rows' LODs: the stored frames and frames rows, their LODs appended
 * to the build's. */
void _fsv_build_index_frames(TraceBuild *build);
/* The trace's frames arrays from the build's (taken). */
void _fsv_build_freeze_frames(TraceBuild *build, FsvTrace *trace);
/* The level-of-detail index of a frames row's frames, NULL when none. */
const FsvLod *_fsv_trace_get_frame_lod(const FsvTrace *trace, guint32 row);

G_END_DECLS

#endif /* FSV_FRAMES_PRIVATE_H */
