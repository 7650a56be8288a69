/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the timeline's drawing, with cairo only, so the GTK widget (through
 * gtk_snapshot_append_cairo), `fencescope render` (image, SVG and PDF surfaces) and the tests
 * draw the same pixels. It reads an FsvTrace through an FsvView and draws: the time ruler with
 * adaptive units, the row labels, packets, fence wait boxes (light pink, with their queued and
 * stalled-on-GPU phases) and signal boxes (dark pink), inferred and never-completed operations
 * (hatched / outlined), doorbell ticks, a queue's doorbell connection band, victimization
 * arrows, suspended ranges, F- and D-state rows, preempted packets joined to their resubmitted
 * pieces, preemption brackets by reason, TDR stages, engine and adapter resets, contexts in
 * error, display rows (vsyncs, flips, missed vsyncs), page faults (a flash, tied to their
 * recovery when selected) and injected-fault markers, GPU VA space rows (mappings by page size,
 * reserve/free ticks), cross-adapter fence rows under each adapter with the propagation arrows
 * between them, hatched overlays where data was lost, CurrentValue steps on fence rows, the
 * selection with its dependency arrows, a range selection, a measurement, bookmarks and the go-to
 * marker; and, in a strip of its own under the timeline, the legend.
 *
 * Every visible row costs O(pixels), not O(items): far zooms draw the level-of-detail
 * aggregates (fsv-lod.h), never hiding an item a full draw would show as a pixel.
 *
 * It keeps no state between calls and changes nothing in the view.
 */
#ifndef FSV_RENDER_H
#define FSV_RENDER_H

#include <stdbool.h>

#include <cairo.h>
#include <glib.h>

#include "fsv-query.h"
#include "fsv-trace.h"
#include "fsv-view.h"

G_BEGIN_DECLS

typedef struct {
	/* The selected item (kind FSV_ITEM_NONE: nothing): highlighted, with arrows from a
	 * selected signal to the waits it released and from a selected wait to its signal. */
	FsvItem selection;
	/* A range selection, drawn shaded (has_range false: none). */
	bool has_range;
	guint64 range_begin_ns, range_end_ns;
	/* A measurement between two times, drawn as a bracket with its duration. */
	bool has_measure;
	guint64 measure_a_ns, measure_b_ns;
	/* The go-to-time marker (Ctrl+G, issue 15 §3): a line at cursor_ns when has_cursor. */
	bool has_cursor;
	guint64 cursor_ns;
	/* The trace's bookmarks: n_bookmarks lines with a flag and their name (names may be
	 * NULL). Not owned: valid for the draw. */
	const guint64 *bookmark_ns;
	const char *const *bookmark_names;
	guint n_bookmarks;
	/* Ops not matching an active search are drawn faded (NULL or empty: none). Borrowed: the
	 * caller keeps a reference while it draws with these options. */
	const FsvQuery *query;
	/* The item under the pointer, outlined (kind FSV_ITEM_NONE: none). */
	FsvItem hover;
	/* Items outlined in the dependency colour, each joined to the one before it by a line:
	 * the chain of causes of the selected wait (fsv-chain.h). Not owned: valid for the draw. */
	const FsvItem *highlights;
	guint n_highlights;
	/* fsv_render_to_file adds the legend's strip under the timeline (fsv_render_draw never
	 * draws a legend: it would cover rows). */
	bool show_legend;
	bool show_ruler_grid; /* faint vertical lines at the ruler's major ticks */
	/* Draws every item one by one, without level-of-detail (tests compare both). */
	bool no_lod;
	/* Font family for every text; NULL: "DejaVu Sans" (stable across machines: renders
	 * compared in tests must not depend on fontconfig's default). */
	const char *font_family;
} FsvRenderOptions;

/* Options with their defaults: nothing selected, legend and grid shown. */
void fsv_render_options_init(FsvRenderOptions *options);

/* What one draw did, for benchmarks and tests. */
typedef struct {
	guint64 items_drawn;   /* ops, packets, markers drawn one by one */
	guint64 buckets_drawn; /* level-of-detail aggregates drawn */
} FsvRenderStats;

/*
 * Draws the timeline of VIEW (its trace, size, viewport and layout) on CR, whose user space
 * must map (0, 0) – (width, height) of the view onto the surface. Paints the background
 * itself. STATS may be NULL.
 */
void fsv_render_draw(cairo_t *cr, FsvTrace *trace, const FsvView *view,
		     const FsvRenderOptions *options);
void fsv_render_draw_with_stats(cairo_t *cr, FsvTrace *trace, const FsvView *view,
				const FsvRenderOptions *options, FsvRenderStats *stats);

typedef enum {
	FSV_RENDER_FORMAT_PNG,
	FSV_RENDER_FORMAT_SVG,
	FSV_RENDER_FORMAT_PDF,
} FsvRenderFormat;

/*
 * The legend (what each colour and mark means, only the entries the trace has) is a strip of
 * its own under the timeline, so it never covers data; the window shows the same strip (it can
 * be hidden), `render` appends it to the image. Its height at WIDTH px: entries flow into as
 * many columns as the width holds.
 */
int fsv_render_get_legend_height(FsvTrace *trace, const FsvView *view, int width);
/* Draws the legend strip at (0, 0) – (WIDTH, its height) of CR. FONT_FAMILY NULL: DejaVu Sans.
 * VIEW (nullable): the counter tracks it shows are named (issue 15 §4). */
void fsv_render_draw_legend(cairo_t *cr, FsvTrace *trace, const FsvView *view, int width,
			    const char *font_family);

/* The format a file name asks for by its extension (.png, .svg, .pdf); false for others. */
bool fsv_render_format_from_path(const char *path, FsvRenderFormat *format);

/*
 * Draws VIEW into a PNG, SVG or PDF file (what `fencescope render` does). Returns false with
 * *error set (G_IO_ERROR_*) when the file cannot be written.
 */
bool fsv_render_to_file(FsvTrace *trace, const FsvView *view, const FsvRenderOptions *options,
			FsvRenderFormat format, const char *path, GError **error);

/* Colours of the timeline, for the GTK legend or details panel to match: r, g, b in [0, 1]. */
typedef enum {
	FSV_COLOR_WAIT_QUEUED,  /* light pink, the queued phase of a wait */
	FSV_COLOR_WAIT_STALLED, /* a deeper light pink, the stalled-on-GPU phase */
	FSV_COLOR_SIGNAL,       /* dark pink */
	FSV_COLOR_PACKET,
	FSV_COLOR_PACKET_PREEMPTED,
	FSV_COLOR_PACKET_FAULTED,
	FSV_COLOR_DOORBELL,
	FSV_COLOR_PREEMPTION,
	FSV_COLOR_TDR,
	FSV_COLOR_RESET,
	FSV_COLOR_PAGE_FAULT,
	FSV_COLOR_LOSS,
	FSV_COLOR_SELECTION,
	FSV_COLOR_ARROW,
	/* A queue's doorbell connection band, by status word (docs/viewer.md "Doorbells"). */
	FSV_COLOR_DOORBELL_CONNECTED,
	FSV_COLOR_DOORBELL_NOTIFY_KMD,
	FSV_COLOR_DOORBELL_RETRY,
	FSV_COLOR_DOORBELL_ABORT,
	FSV_COLOR_VICTIMIZE, /* the arrow victim → beneficiary */
	FSV_COLOR_SUSPENDED, /* hatching of suspended, F1 and D3 ranges */
	/* Issue 13 (docs/viewer.md "Preemption, TDR, resets and display"). Preemption brackets
	 * take the colour of their reason: TIME_SLICE FSV_COLOR_PREEMPTION, PRIORITY, SUSPEND
	 * FSV_COLOR_SUSPENDED, TDR FSV_COLOR_TDR, TERMINATION, POWER. */
	FSV_COLOR_PACKET_PAGING, /* paging packets (PRE-06) */
	FSV_COLOR_PREEMPT_PRIORITY,
	FSV_COLOR_PREEMPT_TERMINATION,
	FSV_COLOR_PREEMPT_POWER,
	FSV_COLOR_CONTEXT_ERROR,  /* hatching of a context in error (TDR-04) */
	FSV_COLOR_VSYNC,          /* vsync ticks on a display row (PRE-13) */
	FSV_COLOR_FLIP,           /* flips, queued → done */
	FSV_COLOR_MISSED_VSYNC,   /* a vsync that presented nothing new */
	FSV_COLOR_FAULT_INJECTED, /* the fault injector's ground truth */
	/* Issue 14 (docs/viewer.md "GpuMmu, page faults and cross-adapter fences"): VA mappings
	 * by page size (MMU-12; a mapping of system memory is drawn paler, MMU-11), and the
	 * cross-adapter propagation arrows (XAD-07). */
	FSV_COLOR_VA_4K,
	FSV_COLOR_VA_64K,
	FSV_COLOR_PROPAGATION,
	/* The colours of the other queues' packets: a queue's packets take FSV_COLOR_PACKET or
	 * one of these seven, by a hash of its handle (GPUView colours packets by queue). */
	FSV_COLOR_PACKET_QUEUE_1,
	FSV_COLOR_PACKET_QUEUE_2,
	FSV_COLOR_PACKET_QUEUE_3,
	FSV_COLOR_PACKET_QUEUE_4,
	FSV_COLOR_PACKET_QUEUE_5,
	FSV_COLOR_PACKET_QUEUE_6,
	FSV_COLOR_PACKET_QUEUE_7,
	/* Outlines and text of boxes (issue 15 §5: every colour fsv-render.c draws is named
	 * here): */
	FSV_COLOR_WAIT_OUTLINE,
	FSV_COLOR_SIGNAL_OUTLINE,
	FSV_COLOR_OP_TEXT,      /* labels on pale pink (waits, fence steps, "+k more") */
	FSV_COLOR_TEXT_ON_PALE, /* labels on pale VA mappings */
	FSV_COLOR_PIECE_TEXT,   /* a preempted piece's connector label, its legend entry */
	FSV_COLOR_CUT_EDGE,     /* a preempted piece's torn right edge */
	FSV_COLOR_HOVER,        /* the outline of the item under the pointer */
	FSV_COLOR_MEASURE,      /* a measurement's bracket */
	FSV_COLOR_MEASURE_TEXT, /* and its duration */
	/* The chrome: background, rows, labels, ruler, legend. */
	FSV_COLOR_BACKGROUND,    /* white: the time area, notches, label pills */
	FSV_COLOR_INK,           /* black, drawn translucent: packet and mapping outlines */
	FSV_COLOR_GROUP_STRIPE,  /* the time area of a group row */
	FSV_COLOR_ODD_STRIPE,    /* every other row */
	FSV_COLOR_ROW_SEPARATOR, /* the line under each row */
	FSV_COLOR_GRID,          /* the ruler's major ticks across the rows */
	FSV_COLOR_LABEL_BACKGROUND,
	FSV_COLOR_LABEL_HEADER, /* a group row's label */
	FSV_COLOR_LABEL_SEPARATOR,
	FSV_COLOR_DISCLOSURE,     /* ▾ / ▸ of a group, and of a row with stacked lanes */
	FSV_COLOR_TEXT,           /* row labels, the trace's name, the legend's title */
	FSV_COLOR_TEXT_DIM,       /* sublabels, the ruler's note, "no GPU queues…" */
	FSV_COLOR_TEXT_SECONDARY, /* ruler labels, legend entries */
	FSV_COLOR_RULER_BACKGROUND,
	FSV_COLOR_RULER_TICK,
	FSV_COLOR_RULE, /* the ruler's and the labels' edges */
	FSV_COLOR_LEGEND_BORDER,
	/* Issue 15 §4 (docs/viewer.md "Counter tracks"): an engine's busy fraction, a queue's
	 * depth. The fence rows' step line is FSV_COLOR_SIGNAL. */
	FSV_COLOR_COUNTER_BUSY,
	FSV_COLOR_COUNTER_DEPTH,
	/* Issue 16 §3: frames rows (docs/viewer.md "Frames"), a frame by its frame time against
	 * the display's budget (fsv-frames.h FsvFrameGrade): on time, over it, after a missed
	 * vsync, a pending present (hatched), frame time unknown. */
	FSV_COLOR_FRAME_ON_TIME,
	FSV_COLOR_FRAME_OVER,
	FSV_COLOR_FRAME_MISSED,
	FSV_COLOR_FRAME_PENDING,
	FSV_COLOR_FRAME_UNKNOWN,
	FSV_COLOR_COUNT,
} FsvColor;

void fsv_render_get_color(FsvColor color, double rgb[3]);

G_END_DECLS

#endif /* FSV_RENDER_H */
