/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: aligning two traces for a comparison (`fencescope view BASE --compare NEW`,
 * docs/viewer.md "Comparing two traces"). The two timelines share one time mapping: a time of
 * NEW is a time of BASE plus an offset, NEW_time = BASE_time + offset_ns, so both views have
 * the same scale and NEW's left edge is BASE's plus the offset; zooming or panning either moves
 * the other the same way.
 *
 * This file holds the arithmetic and the reading of `--align BASE=NEW`; it knows no GTK (the
 * window's compare pane, viewer/app/fsv-compare.c, drives it) and draws nothing.
 */
#ifndef FSV_ALIGN_H
#define FSV_ALIGN_H

#include <stdbool.h>

#include <glib.h>

#include "fsv-time.h"
#include "fsv-trace.h"
#include "fsv-view.h"

G_BEGIN_DECLS

/* One side of `--align BASE=NEW` as typed: a time (what `--at` and go to time take: trace ns,
 * "S.NNN s", "+1.5ms" from the trace's start) or an operation's start, "op:ID" (its analyzer op
 * id, as `fencescope report` prints it). */
typedef enum {
	FSV_ALIGN_POINT_TIME,
	FSV_ALIGN_POINT_OP,
	FSV_ALIGN_POINT_FRAME, /* "frame:N": frame number N's start (fsv_align_frame_ns()) */
} FsvAlignPointKind;

typedef struct {
	FsvAlignPointKind kind;
	FsvTypedTime time; /* FSV_ALIGN_POINT_TIME */
	guint64 op_id;     /* FSV_ALIGN_POINT_OP; the frame number for FSV_ALIGN_POINT_FRAME */
	char *text;        /* as typed, for messages; owned */
} FsvAlignPoint;

/* Where a frame is aligned (Align Here with a frame selected, `frame:N`): its start, the left
 * edge of its box — the vsync before it, or its flip_queued when no vsync came before it. */
guint64 fsv_align_frame_ns(const FsvTrace *trace, guint32 frame);

/* `--align BASE=NEW`: the point of BASE and the point of NEW drawn at the same x. */
typedef struct {
	FsvAlignPoint base_point, new_point;
} FsvAlignSpec;

/*
 * Reads TEXT, "BASE=NEW", each side a time or "op:ID", without the traces (checked before any
 * window opens). Returns false with a one-line *error (G_IO_ERROR_INVALID_ARGUMENT) when it is
 * not. Free with fsv_align_spec_clear().
 */
bool fsv_align_parse(const char *text, FsvAlignSpec *spec, GError **error);
void fsv_align_spec_clear(FsvAlignSpec *spec);

/*
 * The trace time POINT names in TRACE: the time (fsv_trace_resolve_time: inside the trace, with
 * its slack) or the start of the operation with that op id. False with a one-line *error naming
 * the side (SIDE, "BASE" or "NEW") when the trace has no such time or op.
 */
bool fsv_align_point_resolve(const FsvAlignPoint *point, const FsvTrace *trace, const char *side,
			     guint64 *ns, GError **error);
/* The offset that draws SPEC's two points at the same x: NEW's time minus BASE's. */
bool fsv_align_resolve(const FsvAlignSpec *spec, const FsvTrace *base, const FsvTrace *new_trace,
		       gint64 *offset_ns, GError **error);

/* NEW_NS − BASE_NS, saturated to the gint64 range: the offset that aligns those two times. */
gint64 fsv_align_offset(guint64 base_ns, guint64 new_ns);
/* The default alignment: the two traces' first events at the same x. */
gint64 fsv_align_starts(const FsvTrace *base, const FsvTrace *new_trace);
/* NS + OFFSET_NS, saturated to [0, UINT64_MAX − 1]: a BASE time in NEW's times (and with
 * −offset, back). */
guint64 fsv_align_shift(guint64 ns, gint64 offset_ns);

/*
 * FROM's viewport moved by OFFSET_NS (same scale, left edge + offset, the fraction kept): what
 * NEW's view shows when BASE's shows FROM (OFFSET_NS = offset), or BASE's when NEW's does
 * (−offset). Exact: a time t of FROM and t + offset of TO lie at the same x.
 */
void fsv_align_viewport(const FsvViewport *from, gint64 offset_ns, FsvViewport *to);

/*
 * The union of both traces' spans in BASE's times ([*begin_ns, *end_ns]): what each view fits
 * (fsv_view_set_extent, NEW's shifted by the offset) so that F shows both traces whole.
 */
void fsv_align_union(const FsvTrace *base, const FsvTrace *new_trace, gint64 offset_ns,
		     guint64 *begin_ns, guint64 *end_ns);

/* The offset as the compare pane shows it: "+1.500 ms", "−250.0 µs", "0 ns" (the duration
 * formatting of the rest of the viewer, with its sign). Returns: (transfer full). */
char *fsv_align_format_offset(gint64 offset_ns);

G_END_DECLS

#endif /* FSV_ALIGN_H */
