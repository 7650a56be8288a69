/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the timeline's drawing (fsv-render.h). One pass, back to front: background and
 * row stripes, lost-data overlays, per row its packets / boxes / markers / fence steps, the
 * selection with its dependency arrows, range and measurement, bookmarks and the go-to marker,
 * the row labels (drawn last so boxes never cover them), the ruler. The legend is drawn apart,
 * in a strip of its own under the timeline (fsv_render_draw_legend), never over a row.
 *
 * Speed: a row's lane is walked through its level-of-detail index (fsv-lod.h), and the
 * rectangles are not filled one by one but batched per colour and merged when they touch
 * (adjacent sub-pixel boxes and buckets become one run), then filled with one cairo_fill() per
 * colour per lane. Outlines and labels are only drawn for boxes wide enough to show them, so
 * their number is bounded by the pixels too.
 *
 * Colours follow GPUView: fence waits light pink (the stalled-on-GPU phase a deeper pink than
 * the queued phase), signals dark pink; inferred operations are hatched, never-completed ones
 * outlined and open to the right, unqueued ones have a dashed left edge.
 */
#include "fsv-render.h"
#include "fsv-render-private.h"
#include "fsv-frames.h"
#include "fsv-trace-private.h"
#include "fsv-view-private.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fencescope-tp-enums.h"

static const double colors[FSV_COLOR_COUNT][3] = {
    [FSV_COLOR_WAIT_QUEUED] = {1.00, 0.80, 0.86},      /* #ffccdb light pink */
    [FSV_COLOR_WAIT_STALLED] = {0.96, 0.58, 0.71},     /* #f594b5 */
    [FSV_COLOR_SIGNAL] = {0.76, 0.09, 0.36},           /* #c2175c dark pink */
    [FSV_COLOR_PACKET] = {0.35, 0.55, 0.85},           /* #598cd9 */
    [FSV_COLOR_PACKET_PREEMPTED] = {0.96, 0.62, 0.04}, /* #f59e0b */
    [FSV_COLOR_PACKET_FAULTED] = {0.86, 0.15, 0.15},   /* #dc2626 */
    [FSV_COLOR_DOORBELL] = {0.29, 0.33, 0.41},         /* #4a5568 */
    [FSV_COLOR_PREEMPTION] = {0.92, 0.55, 0.05},
    [FSV_COLOR_TDR] = {0.86, 0.15, 0.15},
    [FSV_COLOR_RESET] = {0.49, 0.23, 0.93}, /* #7c3aed */
    [FSV_COLOR_PAGE_FAULT] = {0.73, 0.11, 0.11},
    [FSV_COLOR_LOSS] = {0.90, 0.24, 0.24},
    [FSV_COLOR_SELECTION] = {0.12, 0.40, 0.96}, /* #1e66f5 */
    [FSV_COLOR_ARROW] = {0.12, 0.40, 0.96},
    [FSV_COLOR_DOORBELL_CONNECTED] = {0.13, 0.60, 0.33},  /* #21994f green */
    [FSV_COLOR_DOORBELL_NOTIFY_KMD] = {0.05, 0.58, 0.67}, /* #0d94ab teal */
    [FSV_COLOR_DOORBELL_RETRY] = {0.96, 0.70, 0.16},      /* #f5b329 amber */
    [FSV_COLOR_DOORBELL_ABORT] = {0.80, 0.10, 0.10},      /* #cc1a1a red */
    [FSV_COLOR_VICTIMIZE] = {0.85, 0.45, 0.10},           /* #d97319 orange */
    [FSV_COLOR_SUSPENDED] = {0.45, 0.48, 0.55},           /* #737a8c grey */
    [FSV_COLOR_PACKET_PAGING] = {0.55, 0.43, 0.39},       /* #8c6e63 brown */
    [FSV_COLOR_PREEMPT_PRIORITY] = {0.05, 0.60, 0.52},    /* #0d9985 teal green */
    [FSV_COLOR_PREEMPT_TERMINATION] = {0.42, 0.31, 0.16}, /* #6b4f29 dark brown */
    [FSV_COLOR_PREEMPT_POWER] = {0.29, 0.44, 0.65},       /* #4a70a6 steel blue */
    [FSV_COLOR_CONTEXT_ERROR] = {0.55, 0.18, 0.18},       /* #8c2e2e dark red */
    [FSV_COLOR_VSYNC] = {0.25, 0.28, 0.35},               /* #404759 slate */
    [FSV_COLOR_FLIP] = {0.16, 0.50, 0.73},                /* #2980ba blue */
    [FSV_COLOR_MISSED_VSYNC] = {0.86, 0.15, 0.15},        /* #dc2626 red */
    [FSV_COLOR_FAULT_INJECTED] = {0.75, 0.15, 0.83},      /* #c026d3 fuchsia */
    [FSV_COLOR_VA_4K] = {0.16, 0.62, 0.56},               /* #299e8f teal */
    [FSV_COLOR_VA_64K] = {0.42, 0.36, 0.78},              /* #6b5cc7 violet */
    [FSV_COLOR_PROPAGATION] = {0.05, 0.55, 0.75},         /* #0d8cbf cyan blue */
    [FSV_COLOR_PACKET_QUEUE_1] = {0.30, 0.66, 0.52},
    [FSV_COLOR_PACKET_QUEUE_2] = {0.55, 0.45, 0.80},
    [FSV_COLOR_PACKET_QUEUE_3] = {0.28, 0.63, 0.72},
    [FSV_COLOR_PACKET_QUEUE_4] = {0.45, 0.52, 0.68},
    [FSV_COLOR_PACKET_QUEUE_5] = {0.50, 0.66, 0.36},
    [FSV_COLOR_PACKET_QUEUE_6] = {0.42, 0.40, 0.70},
    [FSV_COLOR_PACKET_QUEUE_7] = {0.24, 0.50, 0.62},
    [FSV_COLOR_WAIT_OUTLINE] = {0.78, 0.35, 0.50},
    [FSV_COLOR_SIGNAL_OUTLINE] = {0.45, 0.03, 0.20},
    [FSV_COLOR_OP_TEXT] = {0.35, 0.05, 0.18}, /* #590d2e dark wine */
    [FSV_COLOR_TEXT_ON_PALE] = {0.10, 0.10, 0.15},
    [FSV_COLOR_PIECE_TEXT] = {0.72, 0.36, 0.02},
    [FSV_COLOR_CUT_EDGE] = {0.45, 0.20, 0.00},
    [FSV_COLOR_HOVER] = {0.30, 0.30, 0.35},
    [FSV_COLOR_MEASURE] = {0.05, 0.55, 0.45},
    [FSV_COLOR_MEASURE_TEXT] = {0.05, 0.45, 0.38},
    [FSV_COLOR_BACKGROUND] = {1.00, 1.00, 1.00},
    [FSV_COLOR_INK] = {0.00, 0.00, 0.00},
    [FSV_COLOR_GROUP_STRIPE] = {0.955, 0.96, 0.97},
    [FSV_COLOR_ODD_STRIPE] = {0.985, 0.987, 0.99},
    [FSV_COLOR_ROW_SEPARATOR] = {0.91, 0.92, 0.94},
    [FSV_COLOR_GRID] = {0.20, 0.25, 0.35},
    [FSV_COLOR_LABEL_BACKGROUND] = {0.965, 0.97, 0.98},
    [FSV_COLOR_LABEL_HEADER] = {0.89, 0.91, 0.94},
    [FSV_COLOR_LABEL_SEPARATOR] = {0.82, 0.84, 0.88},
    [FSV_COLOR_DISCLOSURE] = {0.35, 0.38, 0.45},
    [FSV_COLOR_TEXT] = {0.12, 0.14, 0.18},
    [FSV_COLOR_TEXT_DIM] = {0.42, 0.45, 0.52},
    [FSV_COLOR_TEXT_SECONDARY] = {0.20, 0.22, 0.27},
    [FSV_COLOR_RULER_BACKGROUND] = {0.93, 0.94, 0.96},
    [FSV_COLOR_RULER_TICK] = {0.45, 0.48, 0.55},
    [FSV_COLOR_RULE] = {0.75, 0.77, 0.82},
    [FSV_COLOR_LEGEND_BORDER] = {0.55, 0.58, 0.65},
    [FSV_COLOR_COUNTER_BUSY] = {0.07, 0.53, 0.51},  /* #128782 teal */
    [FSV_COLOR_COUNTER_DEPTH] = {0.30, 0.33, 0.72}, /* #4d54b8 indigo */
    [FSV_COLOR_FRAME_ON_TIME] = {0.53, 0.81, 0.56}, /* #87cf8f green */
    [FSV_COLOR_FRAME_OVER] = {0.98, 0.70, 0.26},    /* #fab342 amber */
    [FSV_COLOR_FRAME_MISSED] = {0.86, 0.15, 0.15},  /* #dc2626 red, as a missed vsync */
    [FSV_COLOR_FRAME_PENDING] = {0.55, 0.58, 0.65}, /* #8c94a6 grey, hatched */
    [FSV_COLOR_FRAME_UNKNOWN] = {0.80, 0.82, 0.86}, /* #ccd1db pale grey */
};

/* Packets take the colour of their queue, as GPUView colours them: one of eight. */
#define PACKET_COLORS 8

static FsvColor
packet_color(guint k)
{
	return k == 0 ? FSV_COLOR_PACKET : FSV_COLOR_PACKET_QUEUE_1 + (k - 1);
}

void
fsv_render_get_color(FsvColor color, double rgb[3])
{
	g_return_if_fail(color < FSV_COLOR_COUNT);
	memcpy(rgb, colors[color], sizeof(colors[color]));
}

void
fsv_render_options_init(FsvRenderOptions *o)
{
	memset(o, 0, sizeof(*o));
	o->selection.kind = FSV_ITEM_NONE;
	o->selection.index = o->selection.row = FSV_INDEX_NONE;
	o->hover = o->selection;
	o->show_legend = true;
	o->show_ruler_grid = true;
}

/* ---- Batches of rectangles ------------------------------------------------------------- */

enum batch_style {
	BATCH_WAIT_QUEUED,
	BATCH_WAIT_STALLED,
	BATCH_SIGNAL,
	BATCH_FADED_WAIT,
	BATCH_FADED_SIGNAL,
	BATCH_PACKET0, /* + palette index */
	BATCH_PACKET_PREEMPTED = BATCH_PACKET0 + 8,
	BATCH_PACKET_FAULTED,
	BATCH_PACKET_PAGING,
	BATCH_TICK,
	BATCH_BAND_CONNECTED, /* + FSTP_DOORBELL_STATUS_* */
	BATCH_BAND_NOTIFY_KMD,
	BATCH_BAND_RETRY,
	BATCH_BAND_ABORT,
	BATCH_VSYNC,
	BATCH_MISSED_VSYNC,
	/* Preemption brackets by reason (FSTP_PREEMPT_REASON_*, 6 of them): bars and legs apart,
	 * so that consecutive ones merge. */
	BATCH_CUT_NOTCH, /* a preempted piece's torn edge: notches in the background colour */
	BATCH_CUT_EDGE,  /* and its dark outline */
	BATCH_PREEMPT_BAR0,
	BATCH_PREEMPT_LEG0 = BATCH_PREEMPT_BAR0 + 6,
	/* VA mappings (MMU-11, MMU-12): by page size, local (video) memory solid, system memory
	 * pale. */
	BATCH_VA_4K_LOCAL = BATCH_PREEMPT_LEG0 + 6,
	BATCH_VA_64K_LOCAL,
	BATCH_VA_4K_SYSTEM,
	BATCH_VA_64K_SYSTEM,
	/* Cross-adapter propagations on the notified row's strip, NotificationOnly ticks
	 * (XAD-07, XAD-08). */
	BATCH_PROPAGATION,
	/* The aggregated slot of a collapsed row ("+k more", docs/viewer.md "Lanes"): the union
	 * of its lanes' boxes, paler than a lane's, waits / signals / packets. */
	BATCH_STACK_WAIT,
	BATCH_STACK_SIGNAL,
	BATCH_STACK_PACKET,
	BATCH_STACK_END, /* a tick where each of its boxes (or buckets) ends */
	BATCH_COUNT,
};

typedef struct {
	GArray *rects; /* double[4]: x0, y, x1, h; the last one is the open run */
} Batch;

typedef struct {
	cairo_t *cr;
	FsvTrace *trace;
	const FsvView *view;
	const FsvRenderOptions *opt;
	FsvRenderStats *stats;
	double x_min, x_max; /* the time area */
	double lane_y, lane_h;
	guint32 row;
	Batch batches[BATCH_COUNT];
	GArray *details;  /* guint32 ids of items wide enough for an outline/label */
	GArray *specials; /* guint32 ids of inferred / never-completed / unqueued ops */
	GArray *tri[3];   /* double: tick-strip triangles per colour (MarkerCtx.tri) */
	/* Packets drawn one by one whose connector to their resubmitted piece is drawn when the
	 * row is done (PRE-06, PRE-07): the earlier piece of each pair. */
	GArray *pieces;
	/* Torn right edges of preempted pieces drawn in a lane: double[4] x, y, h, depth. */
	GArray *cuts;
	/* Page faults of the row being drawn (MMU-14): x of each flash, x of each label, and the
	 * right edge of the last label (flush_faults). */
	GArray *fault_xs, *fault_labels;
	double fault_label_end;
	bool has_query; /* an active search: ops that do not match it are faded */
	const char *font;
	double label_end; /* right edge of the last box labelled in this lane */
	/* Outlines are drawn only for at most one box per 4 px; past that, collecting stops. */
	guint details_cap;
} RenderPass;

static void
batch_add(RenderPass *pass, enum batch_style s, double x0, double x1, double y, double h)
{
	GArray *a = pass->batches[s].rects;

	/* Whole pixels: cairo fills pixel-aligned boxes without antialiasing work, and a box
	 * covers exactly the columns [floor(x0), ceil(x1)) the LOD invariant speaks of. Every
	 * item shows as one pixel at least: the invariant's other half. */
	x0 = floor(MAX(x0, pass->x_min - 1));
	x1 = ceil(MIN(x1, pass->x_max + 1));
	if (x1 - x0 < 1.0)
		x1 = x0 + 1.0;
	if (a->len > 0) {
		double *last = &g_array_index(a, double, a->len - 4);

		if (last[1] == y && last[3] == h && x0 <= last[2] + 0.5 && x1 >= last[0] - 0.5) {
			last[0] = MIN(last[0], x0);
			last[2] = MAX(last[2], x1);
			return;
		}
	}
	{
		double r[4] = {x0, y, x1, h};

		g_array_append_vals(a, r, 4);
	}
}

static void
set_rgb(cairo_t *cr, const double rgb[3], double alpha)
{
	cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], alpha);
}

void
_fsv_render_set_color(cairo_t *cr, FsvColor color, double alpha)
{
	g_return_if_fail(color < FSV_COLOR_COUNT);
	set_rgb(cr, colors[color], alpha);
}

/* The colour of a preemption bracket by its reason (FSTP_PREEMPT_REASON_*, PRE-04, TDR-01). */
static FsvColor
preempt_reason_color(gint64 reason)
{
	switch (reason) {
	case FSTP_PREEMPT_REASON_PRIORITY:
		return FSV_COLOR_PREEMPT_PRIORITY;
	case FSTP_PREEMPT_REASON_SUSPEND:
		return FSV_COLOR_SUSPENDED;
	case FSTP_PREEMPT_REASON_TDR:
		return FSV_COLOR_TDR;
	case FSTP_PREEMPT_REASON_TERMINATION:
		return FSV_COLOR_PREEMPT_TERMINATION;
	case FSTP_PREEMPT_REASON_POWER:
		return FSV_COLOR_PREEMPT_POWER;
	case FSTP_PREEMPT_REASON_TIME_SLICE:
	default:
		return FSV_COLOR_PREEMPTION;
	}
}

static void
batch_style_source(cairo_t *cr, enum batch_style s)
{
	if (s >= BATCH_PREEMPT_BAR0 && s < BATCH_PREEMPT_LEG0) {
		_fsv_render_set_color(cr, preempt_reason_color(s - BATCH_PREEMPT_BAR0), 1);
		return;
	}
	if (s >= BATCH_PREEMPT_LEG0 && s < BATCH_VA_4K_LOCAL) {
		_fsv_render_set_color(cr, preempt_reason_color(s - BATCH_PREEMPT_LEG0), 0.9);
		return;
	}
	switch (s) {
	case BATCH_WAIT_QUEUED:
		_fsv_render_set_color(cr, FSV_COLOR_WAIT_QUEUED, 1);
		break;
	case BATCH_WAIT_STALLED:
		_fsv_render_set_color(cr, FSV_COLOR_WAIT_STALLED, 1);
		break;
	case BATCH_SIGNAL:
		_fsv_render_set_color(cr, FSV_COLOR_SIGNAL, 1);
		break;
	case BATCH_FADED_WAIT:
		_fsv_render_set_color(cr, FSV_COLOR_WAIT_QUEUED, 0.3);
		break;
	case BATCH_FADED_SIGNAL:
		_fsv_render_set_color(cr, FSV_COLOR_SIGNAL, 0.2);
		break;
	case BATCH_PACKET_PREEMPTED:
		_fsv_render_set_color(cr, FSV_COLOR_PACKET_PREEMPTED, 1);
		break;
	case BATCH_PACKET_FAULTED:
		_fsv_render_set_color(cr, FSV_COLOR_PACKET_FAULTED, 1);
		break;
	case BATCH_PACKET_PAGING:
		_fsv_render_set_color(cr, FSV_COLOR_PACKET_PAGING, 1);
		break;
	case BATCH_TICK:
		_fsv_render_set_color(cr, FSV_COLOR_DOORBELL, 0.85);
		break;
	case BATCH_BAND_CONNECTED:
	case BATCH_BAND_NOTIFY_KMD:
	case BATCH_BAND_RETRY:
	case BATCH_BAND_ABORT:
		_fsv_render_set_color(cr, FSV_COLOR_DOORBELL_CONNECTED + (s - BATCH_BAND_CONNECTED),
				      1);
		break;
	case BATCH_VSYNC:
		_fsv_render_set_color(cr, FSV_COLOR_VSYNC, 0.8);
		break;
	case BATCH_MISSED_VSYNC:
		_fsv_render_set_color(cr, FSV_COLOR_MISSED_VSYNC, 1);
		break;
	case BATCH_CUT_NOTCH:
		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 1);
		break;
	case BATCH_VA_4K_LOCAL:
		_fsv_render_set_color(cr, FSV_COLOR_VA_4K, 1);
		break;
	case BATCH_VA_64K_LOCAL:
		_fsv_render_set_color(cr, FSV_COLOR_VA_64K, 1);
		break;
	case BATCH_VA_4K_SYSTEM:
	case BATCH_VA_64K_SYSTEM: {
		/* Pale: 45% of the colour over white, opaque (pixman fills opaque runs fastest;
		 * a far zoom has thousands of them). */
		const double *k =
		    colors[s == BATCH_VA_4K_SYSTEM ? FSV_COLOR_VA_4K : FSV_COLOR_VA_64K];

		cairo_set_source_rgb(cr, 1 - 0.45 * (1 - k[0]), 1 - 0.45 * (1 - k[1]),
				     1 - 0.45 * (1 - k[2]));
		break;
	}
	case BATCH_PROPAGATION:
		_fsv_render_set_color(cr, FSV_COLOR_PROPAGATION, 1);
		break;
	case BATCH_CUT_EDGE:
		_fsv_render_set_color(cr, FSV_COLOR_CUT_EDGE, 0.9);
		break;
	case BATCH_STACK_WAIT:
		_fsv_render_set_color(cr, FSV_COLOR_WAIT_STALLED, 0.55);
		break;
	case BATCH_STACK_SIGNAL:
		_fsv_render_set_color(cr, FSV_COLOR_SIGNAL, 0.45);
		break;
	case BATCH_STACK_PACKET:
		_fsv_render_set_color(cr, FSV_COLOR_PACKET, 0.45);
		break;
	case BATCH_STACK_END:
		_fsv_render_set_color(cr, FSV_COLOR_OP_TEXT, 0.55);
		break;
	default:
		_fsv_render_set_color(cr, packet_color(s - BATCH_PACKET0), 1);
		break;
	}
}

static void
batch_flush(RenderPass *pass)
{
	for (guint s = 0; s < BATCH_COUNT; s++) {
		GArray *a = pass->batches[s].rects;

		if (a->len == 0)
			continue;
		for (guint i = 0; i < a->len; i += 4) {
			const double *r = &g_array_index(a, double, i);

			cairo_rectangle(pass->cr, r[0], r[1], r[2] - r[0], r[3]);
		}
		batch_style_source(pass->cr, s);
		cairo_fill(pass->cr);
		g_array_set_size(a, 0);
	}
}

/* ---- Text ------------------------------------------------------------------------------ */

static void
font(RenderPass *pass, double size, bool is_bold)
{
	cairo_select_font_face(pass->cr, pass->font, CAIRO_FONT_SLANT_NORMAL,
			       is_bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(pass->cr, size);
}

/* Draws TEXT with its baseline at (x, y), cut with "…" to fit MAX_WIDTH. Measuring is what
 * costs (hundreds of labels per frame): one measure of the whole text, then a cut estimated
 * from its average glyph width, corrected by a few measures at most. */
static void
text_fit(cairo_t *cr, double x, double y, const char *text, double max_width)
{
	cairo_text_extents_t e;
	glong n, keep;

	if (max_width < 8)
		return;
	cairo_text_extents(cr, text, &e);
	if (e.x_advance <= max_width) {
		cairo_move_to(cr, x, y);
		cairo_show_text(cr, text);
		return;
	}
	n = g_utf8_strlen(text, -1);
	keep = (glong) ((double) n * (max_width / e.x_advance)) - 1;
	for (int tries = 0; keep > 0 && tries < 4; tries++, keep--) {
		g_autofree char *cut = g_utf8_substring(text, 0, keep);
		g_autofree char *buf = g_strconcat(cut, "…", NULL);

		cairo_text_extents(cr, buf, &e);
		if (e.x_advance <= max_width) {
			cairo_move_to(cr, x, y);
			cairo_show_text(cr, buf);
			return;
		}
	}
}

static double
text_width(cairo_t *cr, const char *text)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, text, &e);
	return e.x_advance;
}

/* ---- Patterns -------------------------------------------------------------------------- */

/* Diagonal hatching in RGB over a translucent fill of the same colour. */
static void
fill_hatched(cairo_t *cr, double x, double y, double w, double h, const double rgb[3],
	     double fill_alpha, double line_alpha)
{
	cairo_save(cr);
	cairo_rectangle(cr, x, y, w, h);
	cairo_clip(cr);
	set_rgb(cr, rgb, fill_alpha);
	cairo_paint(cr);
	set_rgb(cr, rgb, line_alpha);
	cairo_set_line_width(cr, 1.0);
	for (double k = floor((x - h) / 6.0) * 6.0; k < x + w; k += 6.0) {
		cairo_move_to(cr, k, y + h);
		cairo_line_to(cr, k + h, y);
	}
	cairo_stroke(cr);
	cairo_restore(cr);
}

/* ---- Ops ------------------------------------------------------------------------------- */

static bool
op_is_faded(const RenderPass *pass, const FsvOp *o)
{
	return pass->has_query && !fsv_query_match_op(pass->opt->query, o);
}

static bool
draw_op_item(const FsvLodItem *item, gpointer data)
{
	RenderPass *pass = data;
	const FsvOp *o = fsv_trace_get_op(pass->trace, item->id);
	double x0 = fsv_view_time_to_x(pass->view, o->begin_ns);
	double x1 = fsv_view_time_to_x(pass->view, o->end_ns);
	bool is_faded = op_is_faded(pass, o);

	pass->stats->items_drawn++;
	if (o->state != FSA_OP_OBSERVED) {
		g_array_append_val(pass->specials, item->id);
		return true;
	}
	if (is_faded) {
		batch_add(pass, o->kind == FSA_OP_WAIT ? BATCH_FADED_WAIT : BATCH_FADED_SIGNAL, x0,
			  x1, pass->lane_y, pass->lane_h);
	} else if (o->kind == FSA_OP_SIGNAL) {
		batch_add(pass, BATCH_SIGNAL, x0, x1, pass->lane_y, pass->lane_h);
	} else if (o->observed_ns != FSV_TIME_NONE && o->observed_ns >= o->begin_ns &&
		   o->observed_ns <= o->end_ns) {
		double xm = fsv_view_time_to_x(pass->view, o->observed_ns);

		if (xm - x0 >= 1.0 || x1 - xm < 1.0)
			batch_add(pass, BATCH_WAIT_QUEUED, x0, MAX(xm, x0), pass->lane_y,
				  pass->lane_h);
		if (x1 - xm >= 0.5 || xm - x0 < 1.0)
			batch_add(pass, BATCH_WAIT_STALLED, xm, x1, pass->lane_y, pass->lane_h);
	} else {
		batch_add(pass, BATCH_WAIT_QUEUED, x0, x1, pass->lane_y, pass->lane_h);
	}
	if (x1 - x0 >= 4.0 && !is_faded && pass->details->len <= pass->details_cap)
		g_array_append_val(pass->details, item->id);
	return true;
}

static bool
draw_op_bucket(const FsvLodBucket *b, gpointer data)
{
	RenderPass *pass = data;
	/* The top's kind from the small kind array; the op itself only to match a filter
	 * (fsv-trace-private.h). */
	bool is_faded = pass->has_query && op_is_faded(pass, fsv_trace_get_op(pass->trace, b->top));
	enum batch_style s;

	pass->stats->buckets_drawn++;
	if (_fsv_trace_get_op_kind(pass->trace, b->top) == FSA_OP_SIGNAL)
		s = is_faded ? BATCH_FADED_SIGNAL : BATCH_SIGNAL;
	else
		s = is_faded ? BATCH_FADED_WAIT : BATCH_WAIT_STALLED;
	batch_add(pass, s, fsv_view_time_to_x(pass->view, b->begin_ns),
		  fsv_view_time_to_x(pass->view, b->end_ns), pass->lane_y, pass->lane_h);
	return true;
}

static void
draw_special_op(RenderPass *pass, const FsvOp *o)
{
	cairo_t *cr = pass->cr;
	double x0 = MAX(fsv_view_time_to_x(pass->view, o->begin_ns), pass->x_min - 2);
	double x1 = MIN(fsv_view_time_to_x(pass->view, o->end_ns), pass->x_max + 2);
	double y = pass->lane_y, h = pass->lane_h;
	const double *rgb =
	    colors[o->kind == FSA_OP_WAIT ? FSV_COLOR_WAIT_STALLED : FSV_COLOR_SIGNAL];
	double alpha = op_is_faded(pass, o) ? 0.25 : 1.0;

	if (x1 - x0 < 1.0)
		x1 = x0 + 1.0;
	switch (o->state) {
	case FSA_OP_INFERRED:
		/* Happened somewhere in this range: hatched on white, never a solid box
		 * (GPV-08), so it stands out from the observed boxes it overlaps. */
		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, alpha);
		cairo_rectangle(cr, x0, y, x1 - x0, h);
		cairo_fill(cr);
		fill_hatched(cr, x0, y, x1 - x0, h, rgb, 0.15 * alpha, 0.9 * alpha);
		set_rgb(cr, rgb, alpha);
		cairo_set_line_width(cr, 1.0);
		cairo_rectangle(cr, x0 + 0.5, y + 0.5, x1 - x0 - 1, h - 1);
		cairo_stroke(cr);
		break;
	case FSA_OP_NEVER_COMPLETED: {
		const double dash[] = {3.0, 2.0};

		set_rgb(cr, rgb, 0.25 * alpha);
		cairo_rectangle(cr, x0, y, x1 - x0, h);
		cairo_fill(cr);
		set_rgb(cr, rgb, alpha);
		cairo_set_line_width(cr, 1.5);
		cairo_move_to(cr, x1, y + 0.75);
		cairo_line_to(cr, x0 + 0.75, y + 0.75);
		cairo_line_to(cr, x0 + 0.75, y + h - 0.75);
		cairo_line_to(cr, x1, y + h - 0.75);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		break;
	}
	case FSA_OP_UNQUEUED:
	default: {
		const double dash[] = {2.0, 2.0};

		set_rgb(cr,
			colors[o->kind == FSA_OP_WAIT ? FSV_COLOR_WAIT_QUEUED : FSV_COLOR_SIGNAL],
			alpha);
		cairo_rectangle(cr, x0, y, x1 - x0, h);
		cairo_fill(cr);
		set_rgb(cr, rgb, alpha);
		cairo_set_line_width(cr, 1.0);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, x0 + 0.5, y);
		cairo_line_to(cr, x0 + 0.5, y + h);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		break;
	}
	}
}

/* Outline and label of a box wide enough to carry them. */
static void
draw_op_detail(RenderPass *pass, const FsvOp *o)
{
	cairo_t *cr = pass->cr;
	double x0 = fsv_view_time_to_x(pass->view, o->begin_ns);
	double x1 = fsv_view_time_to_x(pass->view, o->end_ns);
	double vx0 = MAX(x0, pass->x_min), vx1 = MIN(x1, pass->x_max);
	char label[64];

	if (vx0 < pass->label_end) {
		/* Overlaps the previous labelled box of this lane: its label would cover ours. */
		vx0 = pass->label_end;
	}
	cairo_set_line_width(cr, 1.0);
	if (o->kind == FSA_OP_WAIT)
		_fsv_render_set_color(cr, FSV_COLOR_WAIT_OUTLINE, 0.9);
	else
		_fsv_render_set_color(cr, FSV_COLOR_SIGNAL_OUTLINE, 0.9);
	cairo_rectangle(cr, floor(x0) + 0.5, pass->lane_y + 0.5, MAX(floor(x1) - floor(x0), 1.0),
			pass->lane_h - 1);
	cairo_stroke(cr);
	if (vx1 - vx0 < 36)
		return;
	pass->label_end = vx1;
	if (o->kind == FSA_OP_WAIT)
		g_snprintf(label, sizeof(label), "W 0x%" PRIx64 " ≥ %" PRIu64, o->fence_handle,
			   o->fence_value);
	else
		g_snprintf(label, sizeof(label), "S 0x%" PRIx64 " = %" PRIu64, o->fence_handle,
			   o->fence_value);
	/* Whole labels only: "S 0x4…" tells nothing and clutters a dense lane. */
	if (text_width(cr, label) > vx1 - vx0 - 6)
		return;
	if (o->kind == FSA_OP_WAIT)
		_fsv_render_set_color(cr, FSV_COLOR_OP_TEXT, 1);
	else
		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 1);
	cairo_move_to(cr, vx0 + 3, pass->lane_y + pass->lane_h - 4);
	cairo_show_text(cr, label);
}

/* ---- Packets --------------------------------------------------------------------------- */

/* Paging packets (PRE-06) keep their own colour even when preempted: their cut edge and
 * connector say that they were; the other preempted pieces are orange, faulted or aborted ones
 * red, the rest take their queue's colour. */
static enum batch_style
packet_style_of(bool is_paging, guint8 status, guint64 hwqueue_handle)
{
	if (is_paging)
		return BATCH_PACKET_PAGING;
	if (status == FSA_PACKET_PREEMPTED)
		return BATCH_PACKET_PREEMPTED;
	if (status == FSA_PACKET_FAULTED || status == FSA_PACKET_ABORTED)
		return BATCH_PACKET_FAULTED;
	return BATCH_PACKET0 + (guint) (hwqueue_handle * 2654435761u >> 8) % PACKET_COLORS;
}

static enum batch_style
packet_style(const FsvPacket *p)
{
	return packet_style_of(p->is_paging, p->status, p->hwqueue_handle);
}

static bool
draw_packet_item(const FsvLodItem *item, gpointer data)
{
	RenderPass *pass = data;
	const FsvPacket *p = fsv_trace_get_packet(pass->trace, item->id);
	double x0 = fsv_view_time_to_x(pass->view, p->start_ns);
	double x1 = fsv_view_time_to_x(pass->view, p->end_ns);

	pass->stats->items_drawn++;
	batch_add(pass, packet_style(p), x0, x1, pass->lane_y, pass->lane_h);
	if (x1 - x0 >= 4.0 && pass->details->len <= pass->details_cap)
		g_array_append_val(pass->details, item->id);
	/* The connector of a preempted piece, drawn once: from the earlier piece, or from this
	 * one's earlier piece when that lies left of the view (the walk does not visit it). */
	if (pass->pieces->len <= pass->details_cap) {
		if (p->next_piece != FSV_INDEX_NONE)
			g_array_append_val(pass->pieces, item->id);
		else if (p->prev_piece != FSV_INDEX_NONE &&
			 fsv_view_time_to_x(
			     pass->view, fsv_trace_get_packet(pass->trace, p->prev_piece)->end_ns) <
			     pass->x_min - 2)
			g_array_append_val(pass->pieces, p->prev_piece);
	}
	return true;
}

static bool
draw_packet_bucket(const FsvLodBucket *b, gpointer data)
{
	RenderPass *pass = data;
	/* The top's style from the small style array, not the packet (fsv-trace-private.h). */
	const FsvPacketStyle *top = _fsv_trace_get_packet_style(pass->trace, b->top);

	pass->stats->buckets_drawn++;
	batch_add(pass, packet_style_of(top->is_paging, top->status, top->hwqueue_handle),
		  fsv_view_time_to_x(pass->view, b->begin_ns),
		  fsv_view_time_to_x(pass->view, b->end_ns), pass->lane_y, pass->lane_h);
	return true;
}

static void
draw_packet_detail(RenderPass *pass, const FsvPacket *p)
{
	cairo_t *cr = pass->cr;
	double x0 = fsv_view_time_to_x(pass->view, p->start_ns);
	double x1 = fsv_view_time_to_x(pass->view, p->end_ns);
	double vx0 = MAX(x0, pass->x_min), vx1 = MIN(x1, pass->x_max);
	char label[48];

	_fsv_render_set_color(cr, FSV_COLOR_INK, 0.35);
	cairo_set_line_width(cr, 1.0);
	cairo_rectangle(cr, floor(x0) + 0.5, pass->lane_y + 0.5, MAX(floor(x1) - floor(x0), 1.0),
			pass->lane_h - 1);
	cairo_stroke(cr);
	if (p->status == FSA_PACKET_PREEMPTED && x1 <= pass->x_max + 4) {
		/* PRE-04: the work stopped at a boundary here: a torn (zigzag) right edge, drawn
		 * with the lane's others (draw_cuts). */
		double cut[4] = {floor(x1) + 0.5, pass->lane_y, pass->lane_h, MIN(3.0, x1 - x0)};

		g_array_append_vals(pass->cuts, cut, 4);
	}
	if (vx1 - vx0 < 30)
		return;
	/* A resubmitted piece says so: "↻ 12" (it resumes packet 11's work). */
	if (p->prev_piece != FSV_INDEX_NONE || p->resubmission_of != 0)
		g_snprintf(label, sizeof(label), "↻ %" PRIu64, p->packet_id);
	else
		g_snprintf(label, sizeof(label), "%" PRIu64, p->packet_id);
	_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 1);
	text_fit(cr, vx0 + 3, pass->lane_y + pass->lane_h - 3, label, vx1 - vx0 - 6);
}

/* The torn edges collected by draw_packet_detail, castellated and pixel-aligned so that they
 * batch like boxes (a zigzag path per piece cost a time-sliced trace 15 ms a frame): the
 * second and fourth quarter of the right edge notched D px deep, a dark outline along it. */
static void
draw_cuts(RenderPass *pass)
{
	for (guint i = 0; i < pass->cuts->len; i += 4) {
		const double *k = &g_array_index(pass->cuts, double, i);
		double xe = floor(k[0]) + 1, y = k[1], h = k[2], d = MAX(floor(k[3]), 1), q = h / 4;

		batch_add(pass, BATCH_CUT_NOTCH, xe - d, xe, y + q, q);
		batch_add(pass, BATCH_CUT_NOTCH, xe - d, xe, y + 3 * q, q);
		batch_add(pass, BATCH_CUT_EDGE, xe - 1, xe, y, q);
		batch_add(pass, BATCH_CUT_EDGE, xe - d - 1, xe - d, y + q, q);
		batch_add(pass, BATCH_CUT_EDGE, xe - 1, xe, y + 2 * q, q);
		batch_add(pass, BATCH_CUT_EDGE, xe - d - 1, xe - d, y + 3 * q, q);
	}
	g_array_set_size(pass->cuts, 0);
	batch_flush(pass);
}

/* ---- Markers --------------------------------------------------------------------------- */

static FsvColor
marker_color(guint8 kind)
{
	switch (kind) {
	case FSA_MARK_PREEMPTION:
		return FSV_COLOR_PREEMPTION;
	case FSA_MARK_TDR:
	case FSA_MARK_TDR_DETECT:
	case FSA_MARK_DEVICE_LOST:
		return FSV_COLOR_TDR;
	case FSA_MARK_ENGINE_RESET:
	case FSA_MARK_ADAPTER_RESET:
		return FSV_COLOR_RESET;
	case FSA_MARK_PAGE_FAULT:
		return FSV_COLOR_PAGE_FAULT;
	default:
		return FSV_COLOR_DOORBELL;
	}
}

typedef struct {
	RenderPass *pass;
	double row_y, row_h;
	double tick_y;           /* the tick strip (fsv_view_get_strip_geometry) */
	double band_y, band_h;   /* the doorbell band, band_h 0 when the row has none */
	double strip_y, strip_h; /* an engine's event strip, strip_h 0 when the row has none */
	FsvRowKind row_kind;
	guint32 id; /* the marker being drawn (an item's, a bucket's top) */
	/* Triangles in the tick strip, per colour (TRI_*): x of each, filled as one path per
	 * colour when the layer is done (flush_triangles), at least 2 px apart. */
	GArray *tri[3];
	GArray *arrows; /* victimize marker ids to draw arrows for, NULL: none */
} MarkerPass;

enum { TRI_CONNECT, TRI_CUT, TRI_FAILED };

/* The triangles collected by draw_marker: one path and one fill per colour. */
static void
flush_triangles(MarkerPass *m)
{
	const double *tc[3] = {colors[FSV_COLOR_DOORBELL_CONNECTED], colors[FSV_COLOR_VICTIMIZE],
			       colors[FSV_COLOR_TDR]};
	cairo_t *cr = m->pass->cr;

	for (int k = 0; k < 3; k++) {
		GArray *xs = m->tri[k];

		if (!xs || xs->len == 0)
			continue;
		for (guint i = 0; i < xs->len; i++) {
			double x = g_array_index(xs, double, i);

			cairo_move_to(cr, x + 0.5 - 3, m->tick_y + FSV_TICK_HEIGHT);
			cairo_line_to(cr, x + 0.5 + 3, m->tick_y + FSV_TICK_HEIGHT);
			cairo_line_to(cr, x + 0.5, m->tick_y);
			cairo_close_path(cr);
		}
		set_rgb(cr, tc[k], 1);
		cairo_fill(cr);
		g_array_set_size(xs, 0);
	}
}

/* The band colour of a status word (doorbell_state code), or of a connected interval. */
static enum batch_style
band_style(const FsvMarker *mk)
{
	if (mk->kind == FSA_MARK_DOORBELL_CONNECTED)
		return mk->code == FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD ? BATCH_BAND_NOTIFY_KMD
									     : BATCH_BAND_CONNECTED;
	switch (mk->code) {
	case FSTP_DOORBELL_STATUS_CONNECTED:
		return BATCH_BAND_CONNECTED;
	case FSTP_DOORBELL_STATUS_CONNECTED_NOTIFY_KMD:
		return BATCH_BAND_NOTIFY_KMD;
	case FSTP_DOORBELL_STATUS_DISCONNECTED_ABORT:
		return BATCH_BAND_ABORT;
	default:
		return BATCH_BAND_RETRY;
	}
}

/* PRE-13: a flip from queued to done in its sub-lane of the display row, labelled with its id
 * when wide enough; one still pending at the end of the trace pale, open to the right. */
static void
draw_flip(MarkerPass *m, const FsvMarker *mk, bool is_bucket, double x0, double x1)
{
	RenderPass *pass = m->pass;
	cairo_t *cr = pass->cr;
	const double *rgb = colors[FSV_COLOR_FLIP];
	double y, h;

	if (!fsv_view_get_lane_geometry(pass->view, pass->row, mk->lane, &y, &h))
		return;
	if (x1 - x0 < 1)
		x1 = x0 + 1;
	set_rgb(cr, rgb, mk->is_open ? 0.3 : 0.85);
	cairo_rectangle(cr, floor(x0), y, MAX(ceil(x1) - floor(x0), 1), h);
	cairo_fill(cr);
	if (is_bucket || x1 - x0 < 4)
		return;
	set_rgb(cr, rgb, 1);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, floor(x0) + 0.5, y + 0.5, MAX(floor(x1) - floor(x0) - 1, 1), h - 1);
	cairo_stroke(cr);
	if (x1 - x0 >= 44) {
		char label[40];

		g_snprintf(label, sizeof(label), "flip %" PRIu64, _fsv_flip_id(mk));
		font(pass, 8.5, false);
		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 1);
		text_fit(cr, MAX(x0, pass->x_min) + 3, y + h - 2, label,
			 MIN(x1, pass->x_max) - MAX(x0, pass->x_min) - 6);
	}
}

/* MMU-14: a page fault's glyph, a flash 9 px wide and 12 px high with its top at (x, y). */
static void
page_fault_path(cairo_t *cr, double x, double y)
{
	cairo_move_to(cr, x + 1.5, y);
	cairo_line_to(cr, x - 3.5, y + 7);
	cairo_line_to(cr, x - 0.5, y + 7);
	cairo_line_to(cr, x - 2.5, y + 12);
	cairo_line_to(cr, x + 4.5, y + 4.5);
	cairo_line_to(cr, x + 1.2, y + 4.5);
	cairo_line_to(cr, x + 3.5, y);
	cairo_close_path(cr);
}

/* The flash red with a white halo, so that it shows over packets of any colour. */
static void
page_fault_glyph(cairo_t *cr, double x, double y)
{
	page_fault_path(cr, x, y);
	_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.9);
	cairo_set_line_width(cr, 2);
	cairo_stroke_preserve(cr);
	_fsv_render_set_color(cr, FSV_COLOR_PAGE_FAULT, 1);
	cairo_fill(cr);
}

/* The faults collected by draw_marker for one row, in three paths whatever their number: the
 * hairlines, every halo, then every flash (a halo drawn after a flash would erase it), and
 * the labels. */
static void
flush_faults(MarkerPass *m)
{
	RenderPass *pass = m->pass;
	cairo_t *cr = pass->cr;
	GArray *xs = pass->fault_xs;

	if (xs->len > 0) {
		for (guint i = 0; i < xs->len; i++)
			cairo_rectangle(cr, g_array_index(xs, double, i) - 0.5, m->row_y + 8, 1,
					m->row_h - 8);
		_fsv_render_set_color(cr, FSV_COLOR_PAGE_FAULT, 0.7);
		cairo_fill(cr);
		for (guint i = 0; i < xs->len; i++)
			page_fault_path(cr, g_array_index(xs, double, i), m->row_y + 1);
		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.9);
		cairo_set_line_width(cr, 2);
		cairo_stroke_preserve(cr);
		_fsv_render_set_color(cr, FSV_COLOR_PAGE_FAULT, 1);
		cairo_fill(cr);
	}
	if (pass->fault_labels->len > 0) {
		double tw;

		font(pass, 8.5, true);
		tw = text_width(cr, "PAGE FAULT");
		/* On a white backing: the label lies over the faulted packet and the TDR band. */
		for (guint i = 0; i < pass->fault_labels->len; i++)
			cairo_rectangle(cr, g_array_index(pass->fault_labels, double, i) + 4,
					m->row_y + m->row_h - 12, tw + 3, 10);
		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.85);
		cairo_fill(cr);
		_fsv_render_set_color(cr, FSV_COLOR_PAGE_FAULT, 1);
		for (guint i = 0; i < pass->fault_labels->len; i++) {
			cairo_move_to(cr, g_array_index(pass->fault_labels, double, i) + 5,
				      m->row_y + m->row_h - 4);
			cairo_show_text(cr, "PAGE FAULT");
		}
	}
	g_array_set_size(xs, 0);
	g_array_set_size(pass->fault_labels, 0);
	pass->fault_label_end = -1e9;
}

static void
draw_marker(MarkerPass *m, const FsvMarker *mk, bool is_bucket, double bx0, double bx1)
{
	RenderPass *pass = m->pass;
	cairo_t *cr = pass->cr;
	double x0 = is_bucket ? bx0 : fsv_view_time_to_x(pass->view, mk->begin_ns);
	double x1 = is_bucket ? bx1 : fsv_view_time_to_x(pass->view, mk->end_ns);
	double tick_y = m->tick_y;
	const double *rgb = colors[marker_color(mk->kind)];

	x0 = MAX(x0, pass->x_min - 2);
	x1 = MIN(x1, pass->x_max + 2);
	if (_fsv_marker_is_vsync(mk)) {
		/* PRE-13: a tick per vsync in the display's strip (a bucket: a run over its
		 * extent); a missed one red, 2 px wide and down through the flips. */
		if (mk->is_missed)
			batch_add(pass, BATCH_MISSED_VSYNC, x0 - 0.5, MAX(x1, x0 + 1) + 0.5, tick_y,
				  m->row_y + m->row_h - 2 - tick_y);
		else
			batch_add(pass, BATCH_VSYNC, x0, MAX(x1, x0 + 1), tick_y,
				  FSV_TICK_HEIGHT + 3);
		return;
	}
	if (_fsv_marker_is_flip(mk)) {
		draw_flip(m, mk, is_bucket, x0, x1);
		return;
	}
	switch (mk->kind) {
	case FSA_MARK_DOORBELL_RING:
		/* One tick per ring; a bucket of rings (far zooms) one run over their extent. */
		batch_add(pass, BATCH_TICK, x0, MAX(x1, x0 + 1), tick_y + 1, FSV_TICK_HEIGHT - 1);
		break;
	case FSA_MARK_DOORBELL_STATE:
	case FSA_MARK_DOORBELL_CONNECTED:
		if (m->band_h > 0) {
			batch_add(pass, band_style(mk), x0, MAX(x1, x0 + 1), m->band_y,
				  m->band_h - 1);
		} else {
			/* Not a queue row (a doorbell of an unknown queue): a line under the
			 * ticks, as before the band existed. */
			_fsv_render_set_color(cr, FSV_COLOR_DOORBELL_CONNECTED, 0.7);
			cairo_rectangle(cr, x0, tick_y + FSV_TICK_HEIGHT, MAX(x1 - x0, 1.0), 1.5);
			cairo_fill(cr);
		}
		break;
	case FSA_MARK_DOORBELL_CREATE:
	case FSA_MARK_DOORBELL_CONNECT:
	case FSA_MARK_DOORBELL_DISCONNECT:
	case FSA_MARK_DOORBELL_VICTIMIZE:
	case FSA_MARK_DOORBELL_DESTROY:
	case FSA_MARK_LOG_RESIZE:
	case FSA_MARK_CALL_FAILED: {
		int tc =
		    mk->kind == FSA_MARK_DOORBELL_CONNECT || mk->kind == FSA_MARK_DOORBELL_CREATE
			? TRI_CONNECT
		    : mk->kind == FSA_MARK_CALL_FAILED ? TRI_FAILED
						       : TRI_CUT;
		GArray *xs = m->tri[tc];
		double x = floor(x0);

		/* A triangle is 6 px wide: one within 2 px of the previous of its colour adds
		 * nothing visible. */
		if (xs && (xs->len == 0 || fabs(g_array_index(xs, double, xs->len - 1) - x) >= 2))
			g_array_append_val(xs, x);
		break;
	}
	case FSA_MARK_PAGE_FAULT:
	case FSA_MARK_PAGE_FAULT_HANDLED: {
		/* MMU-14: a red flash at the top of the row and a hairline down through it; on an
		 * engine row "PAGE FAULT" at the bottom when there is room (its queue rows say "in
		 * error: page fault" once the OS put the context in error). Collected, drawn by
		 * flush_faults: a flash within 2 px of the previous adds nothing visible. */
		double x = floor(x0) + 0.5;
		GArray *xs = pass->fault_xs;

		if (xs->len > 0 && fabs(g_array_index(xs, double, xs->len - 1) - x) < 2)
			break;
		g_array_append_val(xs, x);
		if (!is_bucket && m->row_kind == FSV_ROW_ENGINE && x >= pass->fault_label_end) {
			g_array_append_val(pass->fault_labels, x);
			pass->fault_label_end = x + 70;
		}
		break;
	}
	case FSA_MARK_DEVICE_LOST: {
		/* A downward triangle at the top of the row, and a hairline through it. */
		double x = floor(x0) + 0.5;

		set_rgb(cr, rgb, 0.6);
		cairo_set_line_width(cr, 1);
		cairo_move_to(cr, x, m->row_y);
		cairo_line_to(cr, x, m->row_y + m->row_h);
		cairo_stroke(cr);
		set_rgb(cr, rgb, 1);
		cairo_move_to(cr, x - 4.5, m->row_y + 1);
		cairo_line_to(cr, x + 4.5, m->row_y + 1);
		cairo_line_to(cr, x, m->row_y + 8);
		cairo_close_path(cr);
		cairo_fill(cr);
		if (mk->kind == FSA_MARK_DEVICE_LOST && !is_bucket &&
		    m->row_kind == FSV_ROW_QUEUE) {
			font(pass, 9, true);
			cairo_move_to(cr, x + 6, m->row_y + 9);
			cairo_show_text(cr, "device lost");
		}
		break;
	}
	case FSA_MARK_ENGINE_RESET: {
		double x = floor(x0) + 0.5;

		set_rgb(cr, rgb, 1);
		cairo_set_line_width(cr, 2);
		/* TDR-06: a failed engine reset (promoted to an adapter reset) is dashed. */
		if (!mk->code) {
			const double dash[] = {3.0, 2.0};

			cairo_set_dash(cr, dash, 2, 0);
		}
		cairo_move_to(cr, x, m->row_y + 1);
		cairo_line_to(cr, x, m->row_y + m->row_h - 1);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		font(pass, 9, true);
		cairo_move_to(cr, x + 3, m->row_y + 10);
		cairo_show_text(cr, mk->code ? "RESET" : "RESET FAILED");
		break;
	}
	case FSA_MARK_PREEMPTION: {
		/* A bracket above the lanes, request → complete, in the colour of its reason; its
		 * legs reach down over the packets. A request never completed (the engine hung) is
		 * open to the right. Batched per reason: a time-sliced trace has thousands. */
		double top = m->strip_h > 0 ? m->strip_y : m->row_y + 1;
		double bottom = m->row_y + m->row_h - 2;
		guint reason = mk->code >= 0 && mk->code < 6 ? (guint) mk->code : 0;

		if (mk->is_open && !is_bucket) {
			const double dash[] = {3.0, 2.0};

			_fsv_render_set_color(cr, preempt_reason_color(mk->code), 0.95);
			cairo_set_line_width(cr, 3);
			cairo_set_dash(cr, dash, 2, 0);
			cairo_move_to(cr, x0, top + 1.5);
			cairo_line_to(cr, MAX(x1, x0 + 2), top + 1.5);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
		} else {
			batch_add(pass, BATCH_PREEMPT_BAR0 + reason, x0, MAX(x1, x0 + 2), top, 3);
		}
		batch_add(pass, BATCH_PREEMPT_LEG0 + reason, x0, x0 + 1, top + 3, bottom - top - 3);
		if (!mk->is_open && x1 - x0 >= 3)
			batch_add(pass, BATCH_PREEMPT_LEG0 + reason, x1 - 1, x1, top + 3,
				  bottom - top - 3);
		break;
	}
	case FSA_MARK_TDR:
		/* TDR-04..06: the recovery, named with its guilty context when known. */
		set_rgb(cr, rgb, 0.18);
		cairo_rectangle(cr, x0, m->row_y, MAX(x1 - x0, 2.0), m->row_h);
		cairo_fill(cr);
		set_rgb(cr, rgb, 1);
		cairo_rectangle(cr, x0, m->row_y, MAX(x1 - x0, 2.0), 3);
		cairo_fill(cr);
		if (x1 - x0 > 30 && !is_bucket) {
			char label[64];

			if (mk->context_handle)
				g_snprintf(label, sizeof(label), "TDR · guilty ctx 0x%" PRIx64,
					   mk->context_handle);
			else
				g_snprintf(label, sizeof(label), "TDR");
			font(pass, 9, true);
			text_fit(cr, MAX(x0, pass->x_min) + 3, m->row_y + 13, label,
				 MIN(x1, pass->x_max) - MAX(x0, pass->x_min) - 6);
		}
		break;
	case FSA_MARK_TDR_DETECT: {
		/* TDR-02: the stall the watchdog found, hatched over the lanes, "no progress for
		 * …" in the strip, and a tick at the detection. */
		double top = m->strip_h > 0 ? m->strip_y + m->strip_h : m->row_y + 2;
		double xd = floor(fsv_view_time_to_x(pass->view, mk->end_ns)) + 0.5;

		fill_hatched(cr, x0, top, MAX(x1 - x0, 1.0), m->row_y + m->row_h - 2 - top, rgb,
			     0.06, 0.30);
		set_rgb(cr, rgb, 1);
		cairo_set_line_width(cr, 1.5);
		cairo_move_to(cr, xd, m->strip_h > 0 ? m->strip_y : m->row_y);
		cairo_line_to(cr, xd, m->row_y + m->row_h - 2);
		cairo_stroke(cr);
		if (!is_bucket && x1 - x0 > 60) {
			g_autofree char *d = fsv_format_duration(mk->value);
			g_autofree char *label = g_strdup_printf(
			    "%s for %s",
			    mk->code == FSTP_LOSS_REASON_ENGINE_HUNG ? "hung" : "no progress", d);

			font(pass, 8.5, true);
			text_fit(cr, MAX(x0, pass->x_min) + 3,
				 (m->strip_h > 0 ? m->strip_y : m->row_y) + 10, label,
				 MIN(xd, pass->x_max) - MAX(x0, pass->x_min) - 6);
		}
		break;
	}
	case FSA_MARK_CONTEXT_ERROR: {
		/* TDR-04: the context's queues greyed out and hatched dark red from the error on,
		 * labelled with its reason at the bottom (a suspension's label is at the top). */
		const double *red = colors[FSV_COLOR_CONTEXT_ERROR];
		double top = m->row_y + 1, bottom = tick_y + FSV_TICK_HEIGHT;
		static const char *const reasons[] = {"timeout",     "engine hung",
						      "page fault",  "GPU stopped",
						      "termination", "invalid command"};
		char label[48];

		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.55);
		cairo_rectangle(cr, x0, top, MAX(x1 - x0, 1.0), bottom - top);
		cairo_fill(cr);
		fill_hatched(cr, x0, top, MAX(x1 - x0, 1.0), bottom - top, red, 0.08, 0.45);
		g_snprintf(label, sizeof(label), "in error: %s",
			   mk->code >= 0 && mk->code < (gint64) G_N_ELEMENTS(reasons)
			       ? reasons[mk->code]
			       : "unknown");
		font(pass, 9, true);
		if (!is_bucket && x1 - x0 >= text_width(cr, label) + 8) {
			double tw = text_width(cr, label), lx = MAX(x0, pass->x_min) + 3;

			_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.85);
			cairo_rectangle(cr, lx - 1, bottom - 11, tw + 3, 11);
			cairo_fill(cr);
			set_rgb(cr, red, 1);
			cairo_move_to(cr, lx, bottom - 2);
			cairo_show_text(cr, label);
		}
		break;
	}
	case FSA_MARK_VA_RESERVE:
	case FSA_MARK_VA_FREE: {
		/* MMU-06: a VA range reserved (green) or freed (orange), a triangle in the tick
		 * strip. */
		GArray *xs = m->tri[mk->kind == FSA_MARK_VA_RESERVE ? TRI_CONNECT : TRI_CUT];
		double x = floor(x0);

		if (xs && (xs->len == 0 || fabs(g_array_index(xs, double, xs->len - 1) - x) >= 2))
			g_array_append_val(xs, x);
		break;
	}
	case FSA_MARK_FENCE_NOTIFICATION:
		/* XAD-08: a NotificationOnly update of this adapter, a tick in the strip (batched:
		 * one per update, a run over a bucket's extent). */
		batch_add(pass, BATCH_PROPAGATION, x0, MAX(x1, x0 + 1), tick_y,
			  FSV_TICK_HEIGHT - 3);
		break;
	case FSA_MARK_FENCE_PROPAGATION:
		/* XAD-07: propagate → NotificationOnly update, a bar along the strip of the row
		 * notified (the arrow from the other adapter is drawn over the rows). */
		batch_add(pass, BATCH_PROPAGATION, x0, MAX(x1, x0 + 1),
			  tick_y + FSV_TICK_HEIGHT - 3, 3);
		break;
	case FSA_MARK_FAULT_INJECTED: {
		/* The fault injector's ground truth: a small diamond at the top of the row. */
		double x = floor(x0) + 0.5, y = m->row_y + 5;

		_fsv_render_set_color(cr, FSV_COLOR_FAULT_INJECTED, 1);
		cairo_move_to(cr, x, y - 4);
		cairo_line_to(cr, x + 4, y);
		cairo_line_to(cr, x, y + 4);
		cairo_line_to(cr, x - 4, y);
		cairo_close_path(cr);
		cairo_fill(cr);
		break;
	}
	case FSA_MARK_INTERRUPT_LATE:
		/* Raise → handled, 1 ms or more: an amber bar along the row's bottom. */
		_fsv_render_set_color(cr, FSV_COLOR_DOORBELL_RETRY, 1);
		cairo_rectangle(cr, x0, m->row_y + m->row_h - 4, MAX(x1 - x0, 1.0), 2);
		cairo_fill(cr);
		break;
	case FSA_MARK_INTERRUPT_UNHANDLED: {
		/* Raised and never handled: a red ring at the row's bottom. */
		_fsv_render_set_color(cr, FSV_COLOR_TDR, 1);
		cairo_set_line_width(cr, 1.25);
		cairo_new_sub_path(cr);
		cairo_arc(cr, floor(x0) + 0.5, m->row_y + m->row_h - 5, 2.5, 0, 2 * G_PI);
		cairo_stroke(cr);
		break;
	}
	case FSA_MARK_CONTEXT_SUSPENDED:
	case FSA_MARK_ENGINE_F1:
	case FSA_MARK_DEVICE_D3: {
		const double *grey = colors[FSV_COLOR_SUSPENDED];
		double top = tick_y, bottom = tick_y + FSV_TICK_HEIGHT;
		const char *label = NULL;

		if (m->row_kind == FSV_ROW_ENGINE_POWER || m->row_kind == FSV_ROW_DEVICE_POWER) {
			/* The state row: the low-power range hatched over the row. */
			top = m->row_y + 2;
			bottom = m->row_y + m->row_h - 3;
			label = mk->kind == FSA_MARK_ENGINE_F1 ? "F1" : "D3";
		} else if (m->row_kind == FSV_ROW_QUEUE && mk->kind == FSA_MARK_CONTEXT_SUSPENDED) {
			/* SUS-01: the queue's lanes and tick strip, hatched. */
			top = m->row_y + 1;
			label = "suspended";
		}
		fill_hatched(cr, x0, top, MAX(x1 - x0, 1.0), bottom - top, grey, 0.12, 0.35);
		font(pass, 9, true);
		if (label && !is_bucket && x1 - x0 >= text_width(cr, label) + 8) {
			set_rgb(cr, grey, 1);
			cairo_move_to(cr, MAX(x0, pass->x_min) + 3, top + 10);
			cairo_show_text(cr, label);
		}
		break;
	}
	default:
		break;
	}
}

static bool
draw_marker_item(const FsvLodItem *item, gpointer data)
{
	MarkerPass *m = data;

	m->pass->stats->items_drawn++;
	m->id = item->id;
	draw_marker(m, fsv_trace_get_marker(m->pass->trace, item->id), false, 0, 0);
	return true;
}

/* A bucket is drawn from its top marker's style (_fsv_trace_get_marker_style), never from the
 * marker: at a far zoom the buckets' tops are spread over the whole marker array (issue 15 §1).
 * A TDR detection's bucket still reads its marker (its tick is at the marker's end): they are a
 * handful per trace. */
static bool
draw_marker_bucket(const FsvLodBucket *b, gpointer data)
{
	MarkerPass *m = data;
	const FsvMarkerStyle *style = _fsv_trace_get_marker_style(m->pass->trace, b->top);
	FsvMarker proxy;

	m->pass->stats->buckets_drawn++;
	m->id = b->top;
	if (style->kind == FSA_MARK_TDR_DETECT)
		proxy = *fsv_trace_get_marker(m->pass->trace, b->top);
	else
		_fsv_marker_from_style(style, b->begin_ns, b->end_ns, &proxy);
	draw_marker(m, &proxy, true, fsv_view_time_to_x(m->pass->view, b->begin_ns),
		    fsv_view_time_to_x(m->pass->view, b->end_ns));
	return true;
}

static bool
collect_arrow(const FsvLodItem *item, gpointer data)
{
	MarkerPass *m = data;

	g_array_append_val(m->arrows, item->id);
	return true;
}

static bool
collect_arrow_bucket(const FsvLodBucket *b, gpointer data)
{
	MarkerPass *m = data;

	g_array_append_val(m->arrows, b->top);
	return true;
}

/* ---- Rows ------------------------------------------------------------------------------ */

static int
compare_op_begin(gconstpointer a, gconstpointer b, gpointer data)
{
	const FsvOp *x = fsv_trace_get_op(data, *(const guint32 *) a);
	const FsvOp *y = fsv_trace_get_op(data, *(const guint32 *) b);

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/* What a bucket FSV_LOD_AHEAD ahead will read (fsv_lod_visit_ahead). */
static void
op_ahead(guint32 top, gpointer data)
{
	_fsv_trace_prefetch_op_kind(((RenderPass *) data)->trace, top);
}

static void
packet_ahead(guint32 top, gpointer data)
{
	_fsv_trace_prefetch_packet_style(((RenderPass *) data)->trace, top);
}

static void
marker_ahead(guint32 top, gpointer data)
{
	_fsv_trace_prefetch_marker_style(((MarkerPass *) data)->pass->trace, top);
}

static void
draw_lane_items(RenderPass *pass, const FsvLod *lod, bool is_packets)
{
	guint64 b = fsv_view_x_to_time(pass->view, pass->x_min - 2);
	guint64 e = fsv_view_x_to_time(pass->view, pass->x_max + 2);

	if (!lod)
		return;
	g_array_set_size(pass->details, 0);
	g_array_set_size(pass->specials, 0);
	if (is_packets)
		fsv_lod_visit_ahead(lod, b, e, fsv_view_get_ns_per_px(pass->view), draw_packet_item,
				    pass->opt->no_lod ? NULL : draw_packet_bucket, packet_ahead,
				    pass);
	else
		fsv_lod_visit_ahead(lod, b, e, fsv_view_get_ns_per_px(pass->view), draw_op_item,
				    pass->opt->no_lod ? NULL : draw_op_bucket, op_ahead, pass);
	batch_flush(pass);
	for (guint i = 0; i < pass->specials->len; i++)
		draw_special_op(
		    pass, fsv_trace_get_op(pass->trace, g_array_index(pass->specials, guint32, i)));
	font(pass, 9, false);
	pass->label_end = -1e9;
	/* Outlines only where they stay readable: at most one per 4 pixels. */
	if (pass->details->len <= pass->details_cap && !is_packets)
		g_array_sort_with_data(pass->details, compare_op_begin, pass->trace);
	if (pass->details->len <= pass->details_cap)
		for (guint i = 0; i < pass->details->len; i++) {
			guint32 id = g_array_index(pass->details, guint32, i);

			if (is_packets)
				draw_packet_detail(pass, fsv_trace_get_packet(pass->trace, id));
			else
				draw_op_detail(pass, fsv_trace_get_op(pass->trace, id));
		}
	draw_cuts(pass);
}

/* docs/viewer.md "Lanes": the aggregated slot of a collapsed row, the union of the boxes of
 * its lanes (the same level-of-detail walk as a lane, so the same pixels the hit tester finds)
 * in one pale colour, labelled "+k more ▾" where a run is wide enough. */
typedef struct {
	RenderPass *pass;
	enum batch_style style;
	bool has_ends; /* the index holds the boxes, not their union: ticks at their ends */
} StackPass;

/* The union of the stacked boxes, and a tick where each ends: in a deep queue the ends are
 * what differs (they were all queued early), so the collapsed slot still shows when each of
 * its boxes completed. */
static void
stack_add(StackPass *sp, guint64 begin_ns, guint64 end_ns)
{
	RenderPass *pass = sp->pass;
	double x1 = fsv_view_time_to_x(pass->view, end_ns);

	batch_add(pass, sp->style, fsv_view_time_to_x(pass->view, begin_ns), x1, pass->lane_y,
		  pass->lane_h);
	if (sp->has_ends)
		batch_add(pass, BATCH_STACK_END, x1 - 1, x1, pass->lane_y, pass->lane_h);
}

static bool
draw_stack_item(const FsvLodItem *item, gpointer data)
{
	StackPass *sp = data;

	sp->pass->stats->items_drawn++;
	stack_add(sp, item->begin_ns, item->end_ns);
	return true;
}

static bool
draw_stack_bucket(const FsvLodBucket *b, gpointer data)
{
	StackPass *sp = data;

	sp->pass->stats->buckets_drawn++;
	stack_add(sp, b->begin_ns, b->end_ns);
	return true;
}

static void
draw_stack(RenderPass *pass, guint32 row, const FsvLaneSlot *slot)
{
	const FsvRow *r = fsv_trace_get_row(pass->trace, row);
	bool is_union = false;
	const FsvLod *lod = _fsv_trace_get_stack_lod(pass->trace, row, slot->first_lane, &is_union);
	StackPass sp = {pass,
			r->kind == FSV_ROW_ENGINE                ? BATCH_STACK_PACKET
			: slot->first_lane < r->first_lower_lane ? BATCH_STACK_WAIT
								 : BATCH_STACK_SIGNAL,
			!is_union};
	guint64 b = fsv_view_x_to_time(pass->view, pass->x_min - 2);
	guint64 e = fsv_view_x_to_time(pass->view, pass->x_max + 2);
	GArray *runs = pass->batches[sp.style].rects;
	g_autoptr(GArray) labels = g_array_new(FALSE, FALSE, sizeof(double));
	char text[48];
	double label_end = -1e9, tw;

	if (!lod)
		return;
	fsv_lod_visit(lod, b, e, fsv_view_get_ns_per_px(pass->view), draw_stack_item,
		      pass->opt->no_lod ? NULL : draw_stack_bucket, &sp);
	g_snprintf(text, sizeof(text), "+%u more ▾", slot->lane_count);
	font(pass, 9, true);
	tw = text_width(pass->cr, text);
	for (guint i = 0; i < runs->len; i += 4) {
		const double *k = &g_array_index(runs, double, i);
		double x0 = MAX(k[0], pass->x_min), x1 = MIN(k[2], pass->x_max);

		if (x1 - x0 >= tw + 8 && x0 >= label_end) {
			g_array_append_val(labels, x0);
			label_end = x0 + MAX(tw + 8, 160);
		}
	}
	batch_flush(pass);
	for (guint i = 0; i < labels->len; i++) {
		double x = g_array_index(labels, double, i);

		/* On a pale pill, over the end ticks. */
		_fsv_render_set_color(pass->cr, FSV_COLOR_BACKGROUND, 0.85);
		cairo_rectangle(pass->cr, x + 2, pass->lane_y + 1, tw + 4, pass->lane_h - 2);
		cairo_fill(pass->cr);
		_fsv_render_set_color(pass->cr, FSV_COLOR_OP_TEXT, 1);
		cairo_move_to(pass->cr, x + 4, pass->lane_y + pass->lane_h - 4);
		cairo_show_text(pass->cr, text);
	}
}

/* PRE-06, PRE-07: each preempted piece drawn one by one is joined to its resubmitted piece by a
 * dashed arc through the event strip, with a head on the resubmitted piece; the selected pair's
 * arc is drawn in the selection colour. */
static void
draw_piece_connectors(RenderPass *pass)
{
	cairo_t *cr = pass->cr;
	const FsvItem *sel = &pass->opt->selection;
	guint32 selected = FSV_INDEX_NONE;
	double last_x1 = -1e9;

	if (pass->pieces->len == 0)
		return;
	cairo_save(cr);
	cairo_set_line_width(cr, 1.0);
	/* Two passes over one path each: the arcs in one stroke (solid: dashing thousands of
	 * them cost a time-sliced trace 10 ms a frame), their heads in one fill; the selected
	 * pair's arc last, on top. Pieces less than 2 px apart have nothing visible to join; a
	 * head within 2 px of the previous one adds nothing. */
	for (int round = 0; round < 2; round++) {
		for (guint i = 0; i < pass->pieces->len; i++) {
			guint32 id = g_array_index(pass->pieces, guint32, i);
			const FsvPacket *p = fsv_trace_get_packet(pass->trace, id);
			double x0, y0, x1, y1, peak, dx;

			if (!fsv_view_get_piece_connector(pass->view, id, &x0, &y0, &x1, &y1,
							  &peak) ||
			    MAX(x0, x1) < pass->x_min - 2 || MIN(x0, x1) > pass->x_max + 2 ||
			    x1 - x0 < 2)
				continue;
			if (sel->kind == FSV_ITEM_PACKET &&
			    (sel->index == id || sel->index == p->next_piece)) {
				selected = id;
				continue;
			}
			if (round == 0) {
				dx = MIN(MAX((x1 - x0) / 3, 2), 24);
				cairo_move_to(cr, x0 - 0.5, y0 + 1);
				cairo_curve_to(cr, x0 + dx, peak, x1 - dx, peak, x1 + 1,
					       y0 == y1 ? y1 - 1 : y1);
			} else if (fabs(x1 - last_x1) >= 2) {
				/* The head, pointing down onto the resubmitted piece. */
				cairo_move_to(cr, x1 + 1, y1 + 1);
				cairo_line_to(cr, x1 - 2.5, y1 - 4);
				cairo_line_to(cr, x1 + 4.5, y1 - 4);
				cairo_close_path(cr);
				last_x1 = x1;
			}
		}
		_fsv_render_set_color(cr, FSV_COLOR_PIECE_TEXT, 1);
		if (round == 0)
			cairo_stroke(cr);
		else
			cairo_fill(cr);
	}
	if (selected != FSV_INDEX_NONE) {
		double x0, y0, x1, y1, peak, dx;

		fsv_view_get_piece_connector(pass->view, selected, &x0, &y0, &x1, &y1, &peak);
		dx = MIN(MAX((x1 - x0) / 3, 2), 24);
		_fsv_render_set_color(cr, FSV_COLOR_SELECTION, 1);
		cairo_set_line_width(cr, 2);
		cairo_move_to(cr, x0 - 0.5, y0 + 1);
		cairo_curve_to(cr, x0 + dx, peak, x1 - dx, peak, x1 + 1, y0 == y1 ? y1 - 1 : y1);
		cairo_stroke(cr);
		cairo_move_to(cr, x1 + 1, y1 + 1);
		cairo_line_to(cr, x1 - 3, y1 - 5);
		cairo_line_to(cr, x1 + 5, y1 - 5);
		cairo_close_path(cr);
		cairo_fill(cr);
	}
	cairo_restore(cr);
}

/* The victimization arrows (UMS-23): from the victim's band down or up to the beneficiary's, at
 * the victimization's time, one per victimize item or bucket visited (bounded by the pixels),
 * for every laid-out queue row (a victim scrolled out of sight still points at a visible
 * beneficiary). The selected one is drawn in the selection colour. */
static void
draw_victim_arrows(RenderPass *pass, GArray *ids)
{
	cairo_t *cr = pass->cr;
	guint64 b = fsv_view_x_to_time(pass->view, pass->x_min - 2);
	guint64 e = fsv_view_x_to_time(pass->view, pass->x_max + 2);
	guint n = fsv_view_get_visible_row_count(pass->view);
	MarkerPass m = {pass, 0, 0, 0, 0, 0, 0, 0, FSV_ROW_QUEUE, 0, {NULL, NULL, NULL}, ids};
	guint32 selected = FSV_INDEX_NONE;
	double last_x = -1e9, last_y0 = 0, last_y1 = 0;

	g_array_set_size(ids, 0);
	for (guint i = 0; i < n; i++) {
		guint32 row = fsv_view_get_visible_row(pass->view, i, NULL, NULL);
		const FsvLod *lod =
		    _fsv_trace_get_marker_lod(pass->trace, row, FSV_MARKER_LAYER_VICTIM);

		if (lod)
			fsv_lod_visit(lod, b, e, fsv_view_get_ns_per_px(pass->view), collect_arrow,
				      pass->opt->no_lod ? NULL : collect_arrow_bucket, &m);
	}
	/* Shafts and dots are pixel-aligned rectangles, all in one fill (cairo's fast path); the
	 * heads, triangles, in another. An arrow between the same rows as the previous one and
	 * within 2 px of it is left out (it would add nothing visible). The selected one is drawn
	 * last, on top. */
	_fsv_render_set_color(cr, FSV_COLOR_VICTIMIZE, 0.85);
	for (int round = 0; round < 2; round++) {
		for (guint i = 0; i < ids->len; i++) {
			guint32 id = g_array_index(ids, guint32, i);
			double x, y0, y1, dir, tip;

			if (pass->opt->selection.kind == FSV_ITEM_MARKER &&
			    pass->opt->selection.index == id) {
				selected = id;
				continue;
			}
			if (!fsv_view_get_victim_arrow(pass->view, id, &x, &y0, &y1) ||
			    (fabs(x - last_x) < 2 && y0 == last_y0 && y1 == last_y1))
				continue;
			last_x = x;
			last_y0 = y0;
			last_y1 = y1;
			dir = y1 > y0 ? 1 : -1;
			tip = y1 - dir;
			if (round == 0) {
				double top = floor(MIN(y0, tip - dir * 5)),
				       bottom = ceil(MAX(y0, tip - dir * 5));

				cairo_rectangle(cr, floor(x), top, 1, bottom - top);
				cairo_rectangle(cr, floor(x) - 1, floor(y0) - 1, 3, 3);
			} else {
				cairo_move_to(cr, x, tip);
				cairo_line_to(cr, x - 3.5, tip - dir * 6);
				cairo_line_to(cr, x + 3.5, tip - dir * 6);
				cairo_close_path(cr);
			}
		}
		cairo_fill(cr);
		last_x = -1e9;
	}
	if (selected != FSV_INDEX_NONE) {
		double x, y0, y1, dir, tip;

		if (fsv_view_get_victim_arrow(pass->view, selected, &x, &y0, &y1)) {
			dir = y1 > y0 ? 1 : -1;
			tip = y1 - dir;
			_fsv_render_set_color(cr, FSV_COLOR_SELECTION, 1);
			cairo_set_line_width(cr, 2);
			cairo_move_to(cr, x, y0);
			cairo_line_to(cr, x, tip - dir * 5);
			cairo_stroke(cr);
			cairo_move_to(cr, x, tip);
			cairo_line_to(cr, x - 4, tip - dir * 7);
			cairo_line_to(cr, x + 4, tip - dir * 7);
			cairo_close_path(cr);
			cairo_fill(cr);
			cairo_arc(cr, x, y0, 2.5, 0, 2 * G_PI);
			cairo_fill(cr);
		}
	}
}

/* TDR-06: each adapter reset is a purple line over every visible row of its adapter, labelled
 * on the adapter's row; drawn after the rows so that no box covers it. Resets are few: every one
 * in view is drawn. */
static bool
collect_reset(const FsvLodItem *item, gpointer data)
{
	RenderPass *pass = data;

	if (fsv_trace_get_marker(pass->trace, item->id)->kind == FSA_MARK_ADAPTER_RESET)
		g_array_append_val(pass->specials, item->id);
	return true;
}

static void
draw_adapter_resets(RenderPass *pass)
{
	cairo_t *cr = pass->cr;
	guint64 b = fsv_view_x_to_time(pass->view, pass->x_min - 2);
	guint64 e = fsv_view_x_to_time(pass->view, pass->x_max + 2);
	guint n = fsv_view_get_visible_row_count(pass->view);

	if (!_fsv_trace_has_marker_kind(pass->trace, FSA_MARK_ADAPTER_RESET))
		return;
	for (guint i = 0; i < n; i++) {
		guint32 row = fsv_view_get_visible_row(pass->view, i, NULL, NULL);
		const FsvLod *lod =
		    _fsv_trace_get_marker_lod(pass->trace, row, FSV_MARKER_LAYER_RESET);
		double y0, y1;

		if (fsv_trace_get_row(pass->trace, row)->kind != FSV_ROW_ADAPTER || !lod ||
		    !fsv_view_get_group_extent(pass->view, row, &y0, &y1))
			continue;
		g_array_set_size(pass->specials, 0);
		fsv_lod_visit(lod, b, e, 0, collect_reset, NULL, pass);
		for (guint k = 0; k < pass->specials->len; k++) {
			guint32 id = g_array_index(pass->specials, guint32, k);
			const FsvMarker *mk = fsv_trace_get_marker(pass->trace, id);
			double x = floor(fsv_view_time_to_x(pass->view, mk->begin_ns)) + 0.5;
			const char *label = mk->code ? "ADAPTER RESET" : "ADAPTER RESET FAILED";

			pass->stats->items_drawn++;
			_fsv_render_set_color(cr, FSV_COLOR_RESET, 1);
			cairo_set_line_width(cr, 2.5);
			if (!mk->code) {
				const double dash[] = {4.0, 2.0};

				cairo_set_dash(cr, dash, 2, 0);
			}
			cairo_move_to(cr, x, y0 + 1);
			cairo_line_to(cr, x, y1 - 1);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			font(pass, 9, true);
			_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.85);
			cairo_rectangle(cr, x + 3, y0 + 4, text_width(cr, label) + 4, 12);
			cairo_fill(cr);
			_fsv_render_set_color(cr, FSV_COLOR_RESET, 1);
			cairo_move_to(cr, x + 5, y0 + 14);
			cairo_show_text(cr, label);
		}
	}
	g_array_set_size(pass->specials, 0);
}

/* ---- GPU VA space rows (MMU-04, MMU-06, MMU-07, MMU-11, MMU-12) ----------------------- */

/* A mapping's colour: its page size (4 KB teal, 64 KB violet), pale in system memory. */
static enum batch_style
va_style(const FsvMarker *m)
{
	bool is_64k = m->code2 == 65536;
	bool is_system = m->code == FSTP_SEGMENT_SYSTEM;

	return is_system ? (is_64k ? BATCH_VA_64K_SYSTEM : BATCH_VA_4K_SYSTEM)
			 : (is_64k ? BATCH_VA_64K_LOCAL : BATCH_VA_4K_LOCAL);
}

static bool
draw_va_item(const FsvLodItem *item, gpointer data)
{
	RenderPass *pass = data;
	const FsvMarker *m = fsv_trace_get_marker(pass->trace, item->id);
	double x0 = fsv_view_time_to_x(pass->view, m->begin_ns);
	double x1 = fsv_view_time_to_x(pass->view, m->end_ns);

	pass->stats->items_drawn++;
	batch_add(pass, va_style(m), x0, x1, pass->lane_y, pass->lane_h);
	if (x1 - x0 >= 4.0 && pass->details->len <= pass->details_cap)
		g_array_append_val(pass->details, item->id);
	return true;
}

static bool
draw_va_bucket(const FsvLodBucket *b, gpointer data)
{
	RenderPass *pass = data;
	FsvMarker proxy;

	/* From the top mapping's style, not the mapping (draw_marker_bucket). */
	_fsv_marker_from_style(_fsv_trace_get_marker_style(pass->trace, b->top), b->begin_ns,
			       b->end_ns, &proxy);
	pass->stats->buckets_drawn++;
	batch_add(pass, va_style(&proxy), fsv_view_time_to_x(pass->view, b->begin_ns),
		  fsv_view_time_to_x(pass->view, b->end_ns), pass->lane_y, pass->lane_h);
	return true;
}

static int
compare_marker_begin(gconstpointer a, gconstpointer b, gpointer data)
{
	const FsvMarker *x = fsv_trace_get_marker(data, *(const guint32 *) a);
	const FsvMarker *y = fsv_trace_get_marker(data, *(const guint32 *) b);

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/* "0x7f0000 · 256 KB · 64K · local": the range, its size, page size and segment, as much of it
 * as fits. */
static void
va_label(char *buf, gsize size, const FsvMarker *m)
{
	g_autofree char *bytes = g_format_size_full(m->value2, G_FORMAT_SIZE_IEC_UNITS);

	g_snprintf(buf, size, "0x%" PRIx64 " · %s · %s · %s", m->value, bytes,
		   m->code2 == 65536  ? "64K"
		   : m->code2 == 4096 ? "4K"
				      : "?",
		   m->code == FSTP_SEGMENT_SYSTEM ? "system" : "local");
}

static void
draw_va_lanes(RenderPass *pass, guint32 row)
{
	const FsvRow *r = fsv_trace_get_row(pass->trace, row);
	guint64 b = fsv_view_x_to_time(pass->view, pass->x_min - 2);
	guint64 e = fsv_view_x_to_time(pass->view, pass->x_max + 2);

	for (guint lane = 0; lane < r->lane_count; lane++) {
		const FsvLod *lod = _fsv_trace_get_va_lod(pass->trace, row, lane);

		if (!lod || !fsv_view_get_lane_geometry(pass->view, row, lane, &pass->lane_y,
							&pass->lane_h))
			continue;
		g_array_set_size(pass->details, 0);
		fsv_lod_visit(lod, b, e, fsv_view_get_ns_per_px(pass->view), draw_va_item,
			      pass->opt->no_lod ? NULL : draw_va_bucket, pass);
		batch_flush(pass);
		if (pass->details->len > pass->details_cap)
			continue;
		/* Outlines and labels of the mappings wide enough, in time order; a still-mapped
		 * one (open at the end) has no right edge; a label that would overlap the previous
		 * one of the lane is left out (measuring text is what costs). */
		g_array_sort_with_data(pass->details, compare_marker_begin, pass->trace);
		pass->label_end = -1e9;
		font(pass, 8.5, false);
		for (guint i = 0; i < pass->details->len; i++) {
			const FsvMarker *m = fsv_trace_get_marker(
			    pass->trace, g_array_index(pass->details, guint32, i));
			double x0 = fsv_view_time_to_x(pass->view, m->begin_ns);
			double x1 = fsv_view_time_to_x(pass->view, m->end_ns);
			double vx0 = MAX(x0, pass->x_min), vx1 = MIN(x1, pass->x_max);
			char label[96];

			_fsv_render_set_color(pass->cr, FSV_COLOR_INK, 0.35);
			cairo_set_line_width(pass->cr, 1);
			cairo_move_to(pass->cr, floor(x1) - 0.5, pass->lane_y + 0.5);
			cairo_line_to(pass->cr, floor(x0) + 0.5, pass->lane_y + 0.5);
			cairo_line_to(pass->cr, floor(x0) + 0.5, pass->lane_y + pass->lane_h - 0.5);
			cairo_line_to(pass->cr, floor(x1) - 0.5, pass->lane_y + pass->lane_h - 0.5);
			if (!m->is_open)
				cairo_close_path(pass->cr);
			cairo_stroke(pass->cr);
			if (vx0 < pass->label_end)
				vx0 = pass->label_end;
			if (vx1 - vx0 < 40)
				continue;
			pass->label_end = vx1;
			va_label(label, sizeof(label), m);
			set_rgb(pass->cr,
				colors[m->code == FSTP_SEGMENT_SYSTEM ? FSV_COLOR_TEXT_ON_PALE
								      : FSV_COLOR_BACKGROUND],
				1);
			text_fit(pass->cr, vx0 + 3, pass->lane_y + pass->lane_h - 2, label,
				 vx1 - vx0 - 6);
		}
	}
}

/* ---- Cross-adapter propagation arrows (XAD-07) ------------------------------------------- */

/* Whether a propagation is the selection's: the propagation itself, the signal it carried (its
 * value2 is the signal's op id), or a wait on the notified adapter that signal released. */
static bool
propagation_is_selected(RenderPass *pass, guint32 id)
{
	const FsvItem *sel = &pass->opt->selection;
	const FsvMarker *m = fsv_trace_get_marker(pass->trace, id);
	const FsvOp *o;

	if (sel->kind == FSV_ITEM_MARKER)
		return sel->index == id;
	if (sel->kind != FSV_ITEM_OP || sel->index >= fsv_trace_get_op_count(pass->trace) ||
	    m->value2 == 0)
		return false;
	o = fsv_trace_get_op(pass->trace, sel->index);
	if (o->kind == FSA_OP_SIGNAL)
		return o->id == m->value2;
	return o->signal_op != FSV_INDEX_NONE && o->adapter_id == (guint32) m->code &&
	       fsv_trace_get_op(pass->trace, o->signal_op)->id == m->value2;
}

static void
propagation_arrow_path(cairo_t *cr, double x0, double y0, double x1, double y1, double head)
{
	double ang = atan2(y1 - y0, x1 - x0);

	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1 - head * 0.8 * cos(ang), y1 - head * 0.8 * sin(ang));
}

static void
propagation_head_path(cairo_t *cr, double x0, double y0, double x1, double y1, double head)
{
	double ang = atan2(y1 - y0, x1 - x0);

	cairo_move_to(cr, x1, y1);
	cairo_line_to(cr, x1 - head * cos(ang - 0.45), y1 - head * sin(ang - 0.45));
	cairo_line_to(cr, x1 - head * cos(ang + 0.45), y1 - head * sin(ang + 0.45));
	cairo_close_path(cr);
}

/* Every propagation whose arrow lies in view, from the signalling adapter's fence row to the
 * notified one's: one per item or bucket of each laid-out cross-adapter fence row's
 * propagation layer (bounded by the pixels), always drawn; the selected one (or the one of the
 * selected signal) thicker, in the selection colour, on top. */
static void
draw_propagation_arrows(RenderPass *pass, GArray *ids)
{
	cairo_t *cr = pass->cr;
	guint64 b = fsv_view_x_to_time(pass->view, pass->x_min - 2);
	guint64 e = fsv_view_x_to_time(pass->view, pass->x_max + 2);
	guint n = fsv_view_get_visible_row_count(pass->view);
	MarkerPass m = {pass, 0, 0, 0, 0, 0, 0, 0, FSV_ROW_XFENCE, 0, {NULL, NULL, NULL}, ids};
	double last_x = -1e9, last_y0 = 0;

	if (!_fsv_trace_has_marker_kind(pass->trace, FSA_MARK_FENCE_PROPAGATION))
		return;
	g_array_set_size(ids, 0);
	for (guint i = 0; i < n; i++) {
		guint32 row = fsv_view_get_visible_row(pass->view, i, NULL, NULL);
		const FsvLod *lod =
		    fsv_trace_get_row(pass->trace, row)->kind == FSV_ROW_XFENCE
			? _fsv_trace_get_marker_lod(pass->trace, row, FSV_MARKER_LAYER_PROPAGATION)
			: NULL;

		if (lod)
			fsv_lod_visit(lod, b, e, fsv_view_get_ns_per_px(pass->view), collect_arrow,
				      pass->opt->no_lod ? NULL : collect_arrow_bucket, &m);
	}
	/* Four passes, each one path and one cairo call whatever the number of arrows: slanted
	 * shafts (stroked), vertical ones (notified within the pixel: pixel-aligned rectangles,
	 * cairo's fast path, as the victimization arrows), the heads, then the selected arrow
	 * on top. An arrow from the same row less than 3 px from the previous one adds nothing
	 * visible and is left out. */
	for (int round = 0; round < 4; round++) {
		for (guint i = 0; i < ids->len; i++) {
			guint32 id = g_array_index(ids, guint32, i);
			double x0, y0, x1, y1;
			bool is_selected = propagation_is_selected(pass, id);
			bool is_vertical;

			if (!fsv_view_get_propagation_arrow(pass->view, id, &x0, &y0, &x1, &y1) ||
			    (round < 3 && is_selected) || (round == 3 && !is_selected))
				continue;
			if (round < 3 && fabs(x0 - last_x) < 3 && y0 == last_y0)
				continue;
			last_x = x0;
			last_y0 = y0;
			is_vertical = fabs(x1 - x0) < 1;
			if (round == 0 && !is_vertical) {
				propagation_arrow_path(cr, x0, y0, x1, y1, 6);
				cairo_new_sub_path(cr);
				cairo_arc(cr, x0, y0, 1.75, 0, 2 * G_PI);
			} else if (round == 1 && is_vertical) {
				double dir = y1 > y0 ? 1 : -1;
				double top = floor(MIN(y0, y1 - dir * 5)),
				       bottom = ceil(MAX(y0, y1 - dir * 5));

				cairo_rectangle(cr, floor(x0), top, 1, bottom - top);
				cairo_rectangle(cr, floor(x0) - 1, floor(y0) - 1, 3, 3);
			} else if (round == 2) {
				propagation_head_path(cr, x0, y0, x1, y1, 6);
			} else if (round == 3) {
				_fsv_render_set_color(cr, FSV_COLOR_SELECTION, 1);
				cairo_set_line_width(cr, 2);
				propagation_arrow_path(cr, x0, y0, x1, y1, 8);
				cairo_new_sub_path(cr);
				cairo_arc(cr, x0, y0, 2.5, 0, 2 * G_PI);
				cairo_stroke(cr);
				propagation_head_path(cr, x0, y0, x1, y1, 8);
				cairo_fill(cr);
			}
		}
		_fsv_render_set_color(cr, FSV_COLOR_PROPAGATION, 0.9);
		if (round == 0) {
			cairo_set_line_width(cr, 1.25);
			cairo_stroke(cr);
		} else if (round < 3) {
			cairo_fill(cr);
		}
		last_x = -1e9;
	}
}

static void
draw_row_content(RenderPass *pass, guint32 row, double y, double h)
{
	const FsvRow *r = fsv_trace_get_row(pass->trace, row);
	MarkerPass m = {
	    pass, y, h, 0, 0, 0, 0, 0, r->kind, 0, {pass->tri[0], pass->tri[1], pass->tri[2]},
	    NULL};
	static const FsvMarkerLayer layers[] = {
	    FSV_MARKER_LAYER_BAND,   FSV_MARKER_LAYER_BACK,   FSV_MARKER_LAYER_RING,
	    FSV_MARKER_LAYER_VSYNC,  FSV_MARKER_LAYER_OTHER,  FSV_MARKER_LAYER_RESET,
	    FSV_MARKER_LAYER_MISSED, FSV_MARKER_LAYER_VICTIM, FSV_MARKER_LAYER_FAULT};
	double tick_h;

	pass->row = row;
	/* Issue 15 §4: counter rows and the fence rows' step line (fsv-render-counters.c). */
	if (r->kind == FSV_ROW_FENCE || r->kind == FSV_ROW_BUSY || r->kind == FSV_ROW_DEPTH) {
		_fsv_render_counter_row(pass->cr, pass->trace, pass->view, row, y, h, pass->x_min,
					pass->x_max, pass->font, &pass->stats->buckets_drawn);
		return;
	}
	/* Issue 16 §3: a display's frames (fsv-render-frames.c). */
	if (r->kind == FSV_ROW_FRAMES) {
		_fsv_render_frames_row(pass->cr, pass->trace, pass->view, row, y, h, pass->x_min,
				       pass->x_max, pass->font, &pass->stats->buckets_drawn);
		return;
	}
	/* XAD-03: a cross-adapter fence's value as this adapter sees it, then its markers. */
	if (r->kind == FSV_ROW_XFENCE)
		_fsv_render_counter_row(pass->cr, pass->trace, pass->view, row, y, h, pass->x_min,
					pass->x_max, pass->font, &pass->stats->buckets_drawn);
	if (r->kind == FSV_ROW_VA_SPACE)
		draw_va_lanes(pass, row);
	g_array_set_size(pass->pieces, 0);
	/* The row's lanes as laid out: a lane, or a collapsed row's aggregated slot. */
	for (guint slot = 0; slot < fsv_view_get_lane_slot_count(pass->view, row); slot++) {
		FsvLaneSlot ls;
		const FsvLod *ops, *packets;

		if (!fsv_view_get_lane_slot(pass->view, row, slot, &ls))
			continue;
		/* An expanded row can be taller than the view: only its slots in sight. */
		if (ls.y + ls.height < fsv_view_get_ruler_height(pass->view) ||
		    ls.y > fsv_view_get_height(pass->view))
			continue;
		pass->lane_y = ls.y;
		pass->lane_h = ls.height;
		if (ls.lane_count > 1) {
			draw_stack(pass, row, &ls);
			continue;
		}
		ops = _fsv_trace_get_op_lod(pass->trace, row, ls.first_lane);
		packets = _fsv_trace_get_packet_lod(pass->trace, row, ls.first_lane);
		if (ops)
			draw_lane_items(pass, ops, false);
		else if (packets)
			draw_lane_items(pass, packets, true);
	}
	draw_piece_connectors(pass);
	if (!fsv_view_get_strip_geometry(pass->view, row, FSV_STRIP_EVENTS, &m.strip_y, &m.strip_h))
		m.strip_h = 0;
	fsv_view_get_strip_geometry(pass->view, row, FSV_STRIP_TICKS, &m.tick_y, &tick_h);
	if (!fsv_view_get_strip_geometry(pass->view, row, FSV_STRIP_BAND, &m.band_y, &m.band_h))
		m.band_h = 0;
	if (r->kind == FSV_ROW_ENGINE_POWER || r->kind == FSV_ROW_DEVICE_POWER) {
		/* F0 / D0 wherever no low-power range is drawn: a thin line over the trace. */
		double x0 = MAX(fsv_view_time_to_x(pass->view, fsv_trace_get_begin_ns(pass->trace)),
				pass->x_min);
		double x1 = MIN(fsv_view_time_to_x(pass->view, fsv_trace_get_end_ns(pass->trace)),
				pass->x_max);

		if (x1 > x0) {
			_fsv_render_set_color(pass->cr, FSV_COLOR_DOORBELL_CONNECTED, 0.5);
			cairo_rectangle(pass->cr, x0, y + h / 2 - 1, x1 - x0, 2);
			cairo_fill(pass->cr);
		}
	}
	/* Band first (under everything), then ring ticks, other markers, victimizations. */
	for (guint i = 0; i < G_N_ELEMENTS(layers); i++) {
		const FsvLod *lod = _fsv_trace_get_marker_lod(pass->trace, row, layers[i]);
		guint64 b = fsv_view_x_to_time(pass->view, pass->x_min - 2);
		guint64 e = fsv_view_x_to_time(pass->view, pass->x_max + 2);

		if (!lod)
			continue;
		fsv_lod_visit_ahead(lod, b, e, fsv_view_get_ns_per_px(pass->view), draw_marker_item,
				    pass->opt->no_lod ? NULL : draw_marker_bucket, marker_ahead,
				    &m);
		batch_flush(pass);
		flush_triangles(&m);
		flush_faults(&m);
	}
}

/* The label of a row at drawing y (height h); the rows start at TOP (under the ruler). The
 * label's text and triangle stay at the top of what is in sight of the row, so an expanded
 * deep row scrolled into its middle still says which row it is. */
static void
draw_row_label(RenderPass *pass, guint32 row, double row_y, double h, double top)
{
	cairo_t *cr = pass->cr;
	const FsvRow *r = fsv_trace_get_row(pass->trace, row);
	bool is_group = fsv_view_row_has_children(pass->view, row);
	double x = 8 + r->depth * 14, lw = fsv_view_get_label_width(pass->view);
	/* A frames row graded against a budget given says so instead of its median period. */
	g_autofree char *given =
	    fsv_trace_dup_frames_sublabel(pass->trace, row, fsv_view_get_frame_budget(pass->view));
	const char *sublabel = given ? given : r->sublabel;
	bool is_header = r->kind == FSV_ROW_ADAPTER || r->kind == FSV_ROW_CPU_GROUP ||
			 r->kind == FSV_ROW_FENCE_GROUP || r->kind == FSV_ROW_VA_GROUP;
	/* Where the text goes: the row's top, or the top of the rows' area when the row starts
	 * above it and has room for its two lines below it. */
	double y = row_y < top && !is_header ? MAX(row_y, MIN(top, row_y + h - 30)) : row_y;

	if (is_header)
		_fsv_render_set_color(cr, FSV_COLOR_LABEL_HEADER, 1);
	else
		_fsv_render_set_color(cr, FSV_COLOR_LABEL_BACKGROUND, 1);
	cairo_rectangle(cr, 0, row_y, lw, h);
	cairo_fill(cr);
	if (pass->opt->selection.kind == FSV_ITEM_ROW && pass->opt->selection.index == row) {
		_fsv_render_set_color(cr, FSV_COLOR_SELECTION, 0.15);
		cairo_rectangle(cr, 0, row_y, lw, h);
		cairo_fill(cr);
	}
	/* A row whose label folds something has the disclosure triangle, ▾ unfolded and ▸ folded:
	 * a group its children, a leaf row with stacked lanes (a deep queue) its lanes, as a click
	 * on the label does (fsv_timeline_select_at; issue 15 §2). */
	if (is_group || fsv_view_row_has_stacked_lanes(pass->view, row)) {
		double cx = x + 4, cy = y + (is_header ? h / 2 : 11);
		bool is_unfolded = is_group ? fsv_view_is_row_expanded(pass->view, row)
					    : fsv_view_is_row_lanes_expanded(pass->view, row);

		_fsv_render_set_color(cr, FSV_COLOR_DISCLOSURE, 1);
		if (is_unfolded) {
			cairo_move_to(cr, cx - 4, cy - 2);
			cairo_line_to(cr, cx + 4, cy - 2);
			cairo_line_to(cr, cx, cy + 3);
		} else {
			cairo_move_to(cr, cx - 2, cy - 4);
			cairo_line_to(cr, cx - 2, cy + 4);
			cairo_line_to(cr, cx + 3, cy);
		}
		cairo_close_path(cr);
		cairo_fill(cr);
	}
	x += 12;
	_fsv_render_set_color(cr, FSV_COLOR_TEXT, 1);
	font(pass, 11, is_header || r->kind == FSV_ROW_ENGINE);
	if (is_header) {
		text_fit(cr, x, y + h / 2 + 4, r->label, lw - x - 6);
		if (sublabel[0]) {
			double w = text_width(cr, r->label) + 8;

			font(pass, 9.5, false);
			_fsv_render_set_color(cr, FSV_COLOR_TEXT_DIM, 1);
			text_fit(cr, x + w, y + h / 2 + 4, sublabel, lw - x - w - 6);
		}
	} else {
		text_fit(cr, x, y + 14, r->label, lw - x - 6);
		if (sublabel[0] && h >= 26) {
			font(pass, 9.5, false);
			_fsv_render_set_color(cr, FSV_COLOR_TEXT_DIM, 1);
			text_fit(cr, x, y + 25, sublabel, lw - x - 6);
		}
	}
	if (r->kind == FSV_ROW_BUSY || r->kind == FSV_ROW_DEPTH)
		_fsv_render_counter_axis(cr, pass->trace, row, row_y, h, lw, pass->font);
	_fsv_render_set_color(cr, FSV_COLOR_LABEL_SEPARATOR, 1);
	cairo_rectangle(cr, 0, row_y + h - 1, lw, 1);
	cairo_fill(cr);
}

/* ---- Ruler ----------------------------------------------------------------------------- */

/* A "nice" step (1, 2, 5 × 10^k ns) at least MIN_PX apart. */
static guint64
nice_step(double ns_per_px, double min_px)
{
	double want = ns_per_px * min_px;
	guint64 step = 1;

	while ((double) step < want && step < UINT64_MAX / 10) {
		if ((double) (step * 2) >= want)
			return step * 2;
		if ((double) (step * 5) >= want)
			return step * 5;
		step *= 10;
	}
	return step;
}

/* "+1.5 ms" with the unit the step calls for and as many decimals as it needs. */
static void
format_tick(char *buf, gsize size, guint64 rel, guint64 step)
{
	static const struct {
		guint64 div;
		const char *unit;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "µs"}, {1, "ns"}};
	guint u = 0;
	int decimals = 0;

	/* The unit of the value itself ("+766.5 ms", not "+766500 µs"), but never more than
	 * three decimal digits finer than the step, so labels stay short. */
	while (u + 1 < G_N_ELEMENTS(units) &&
	       (units[u].div > MAX(rel, step) || units[u].div / 1000 > step))
		u++;
	/* As many decimals as the step needs in that unit. */
	for (guint64 d = units[u].div; d > 1 && step % d != 0 && decimals < 9; d /= 10)
		decimals++;
	if (rel == 0)
		g_snprintf(buf, size, "0");
	else
		g_snprintf(buf, size, "+%.*f %s", decimals, (double) rel / (double) units[u].div,
			   units[u].unit);
}

static void
draw_ruler(RenderPass *pass)
{
	cairo_t *cr = pass->cr;
	int rh = fsv_view_get_ruler_height(pass->view), w = fsv_view_get_width(pass->view);
	double p = fsv_view_get_ns_per_px(pass->view);
	guint64 base = fsv_trace_get_begin_ns(pass->trace);
	guint64 step = nice_step(p, 90), minor = step / (step % 5 == 0 && step >= 5 ? 5 : 2);
	guint64 tb = fsv_view_x_to_time(pass->view, pass->x_min),
		te = fsv_view_x_to_time(pass->view, pass->x_max);
	guint64 first;

	_fsv_render_set_color(cr, FSV_COLOR_RULER_BACKGROUND, 1);
	cairo_rectangle(cr, 0, 0, w, rh);
	cairo_fill(cr);
	_fsv_render_set_color(cr, FSV_COLOR_RULE, 1);
	cairo_rectangle(cr, 0, rh - 1, w, 1);
	cairo_fill(cr);
	if (minor == 0)
		minor = step;
	/* Ticks count from the trace's first event, so "0" is where the trace begins. */
	first = tb > base ? base + (tb - base) / minor * minor : base - (base - tb) / minor * minor;
	cairo_set_line_width(cr, 1);
	font(pass, 10, false);
	for (guint64 t = first; t <= te + minor && t >= first; t += minor) {
		double x = floor(fsv_view_time_to_x(pass->view, t)) + 0.5;
		guint64 rel = t >= base ? t - base : base - t;
		bool is_major = rel % step == 0;

		if (x < pass->x_min || x > pass->x_max)
			continue;
		_fsv_render_set_color(cr, FSV_COLOR_RULER_TICK, 1);
		cairo_move_to(cr, x, rh - (is_major ? 10 : 4));
		cairo_line_to(cr, x, rh - 1);
		cairo_stroke(cr);
		if (is_major) {
			char label[48];

			format_tick(label, sizeof(label), rel, step);
			if (t < base)
				label[0] = '-';
			/* A label the right edge would cut ("+2.0" of "+2.0 s", or a bare "+")
			 * misreads: only whole labels. */
			if (x + 3 + text_width(cr, label) > pass->x_max)
				continue;
			_fsv_render_set_color(cr, FSV_COLOR_TEXT_SECONDARY, 1);
			cairo_move_to(cr, x + 3, rh - 13);
			cairo_show_text(cr, label);
		}
	}
	/* Scale note in the corner above the labels: what one major step is. */
	{
		g_autofree char *d = fsv_format_duration(step);
		g_autofree char *name = g_strdup_printf("%s", fsv_trace_get_name(pass->trace));
		g_autofree char *note = g_strdup_printf("%s / division", d);

		_fsv_render_set_color(cr, FSV_COLOR_TEXT, 1);
		font(pass, 11, true);
		text_fit(cr, 8, 14, name, fsv_view_get_label_width(pass->view) - 12);
		font(pass, 9.5, false);
		_fsv_render_set_color(cr, FSV_COLOR_TEXT_DIM, 1);
		text_fit(cr, 8, 27, note, fsv_view_get_label_width(pass->view) - 12);
	}
}

static void
draw_grid(RenderPass *pass, double top, double bottom)
{
	cairo_t *cr = pass->cr;
	double p = fsv_view_get_ns_per_px(pass->view);
	guint64 base = fsv_trace_get_begin_ns(pass->trace), step = nice_step(p, 90);
	guint64 tb = fsv_view_x_to_time(pass->view, pass->x_min),
		te = fsv_view_x_to_time(pass->view, pass->x_max);
	guint64 first =
	    tb > base ? base + (tb - base) / step * step : base - (base - tb) / step * step;

	_fsv_render_set_color(cr, FSV_COLOR_GRID, 0.07);
	cairo_set_line_width(cr, 1);
	for (guint64 t = first; t <= te && t >= first; t += step) {
		double x = floor(fsv_view_time_to_x(pass->view, t)) + 0.5;

		if (x < pass->x_min)
			continue;
		cairo_move_to(cr, x, top);
		cairo_line_to(cr, x, bottom);
	}
	cairo_stroke(cr);
}

/* ---- Losses, selection, arrows, range, legend ------------------------------------------- */

static void
draw_losses(RenderPass *pass, double top, double bottom)
{
	cairo_t *cr = pass->cr;

	for (guint32 i = 0; i < fsv_trace_get_loss_count(pass->trace); i++) {
		const FsvLoss *l = fsv_trace_get_loss(pass->trace, i);
		double x0 = MAX(fsv_view_time_to_x(pass->view, l->begin_ns), pass->x_min);
		double x1 = MIN(fsv_view_time_to_x(pass->view, l->end_ns), pass->x_max);
		double y = top, h = bottom - top;
		char label[64];

		if (x1 < pass->x_min || x0 > pass->x_max)
			continue;
		if (x1 - x0 < 3) {
			x0 = (x0 + x1) / 2 - 1.5;
			x1 = x0 + 3;
		}
		if (l->row != FSV_INDEX_NONE &&
		    !fsv_view_get_row_geometry(pass->view, l->row, &y, &h))
			continue;
		fill_hatched(cr, x0, y, x1 - x0, h, colors[FSV_COLOR_LOSS], 0.10, 0.55);
		_fsv_render_set_color(cr, FSV_COLOR_LOSS, 0.9);
		cairo_rectangle(cr, x0, y, 1.5, h);
		cairo_rectangle(cr, x1 - 1.5, y, 1.5, h);
		cairo_fill(cr);
		if (fsa_loss_is_per_log(l->loss.kind))
			g_snprintf(label, sizeof(label), "%" PRIu64 " log entries lost",
				   l->loss.count);
		else
			g_snprintf(label, sizeof(label), "%" PRIu64 " %s discarded", l->loss.count,
				   l->loss.kind == FSA_LOSS_TRACER_EVENTS ? "events" : "packets");
		font(pass, 9.5, true);
		if (x1 - x0 > text_width(cr, label) + 8) {
			double ty = y + MIN(h - 3, 12);

			_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.85);
			cairo_rectangle(cr, x0 + 3, ty - 9, text_width(cr, label) + 4, 12);
			cairo_fill(cr);
			_fsv_render_set_color(cr, FSV_COLOR_LOSS, 1);
			cairo_move_to(cr, x0 + 5, ty);
			cairo_show_text(cr, label);
		}
	}
}

/* Where an item sits: x range and lane rectangle. False when its row is not laid out. */
static bool
item_rect(RenderPass *pass, const FsvItem *it, double *x0, double *x1, double *y, double *h)
{
	switch (it->kind) {
	case FSV_ITEM_OP: {
		const FsvOp *o;

		if (it->index >= fsv_trace_get_op_count(pass->trace))
			return false;
		o = fsv_trace_get_op(pass->trace, it->index);
		*x0 = fsv_view_time_to_x(pass->view, o->begin_ns);
		*x1 = fsv_view_time_to_x(pass->view, o->end_ns);
		return o->row != FSV_INDEX_NONE &&
		       fsv_view_get_lane_geometry(pass->view, o->row, o->lane, y, h);
	}
	case FSV_ITEM_PACKET: {
		const FsvPacket *p;

		if (it->index >= fsv_trace_get_packet_count(pass->trace))
			return false;
		p = fsv_trace_get_packet(pass->trace, it->index);
		*x0 = fsv_view_time_to_x(pass->view, p->start_ns);
		*x1 = fsv_view_time_to_x(pass->view, p->end_ns);
		return p->row != FSV_INDEX_NONE &&
		       fsv_view_get_lane_geometry(pass->view, p->row, p->lane, y, h);
	}
	case FSV_ITEM_MARKER: {
		const FsvMarker *m;

		if (it->index >= fsv_trace_get_marker_count(pass->trace))
			return false;
		m = fsv_trace_get_marker(pass->trace, it->index);
		*x0 = fsv_view_time_to_x(pass->view, m->begin_ns) - 2;
		*x1 = fsv_view_time_to_x(pass->view, m->end_ns) + 2;
		if (m->row == FSV_INDEX_NONE)
			return false;
		/* A VA mapping: its lane. */
		if (m->kind == FSA_MARK_VA_MAPPING) {
			*x0 += 2;
			*x1 -= 2;
			return fsv_view_get_lane_geometry(pass->view, m->row, m->lane, y, h);
		}
		/* A connection state: its stretch of the band. */
		if (_fsv_marker_layer(m->kind) == FSV_MARKER_LAYER_BAND &&
		    fsv_view_get_strip_geometry(pass->view, m->row, FSV_STRIP_BAND, y, h)) {
			*x0 += 2;
			*x1 -= 2;
			return true;
		}
		return fsv_view_get_row_geometry(pass->view, m->row, y, h);
	}
	case FSV_ITEM_FRAME: {
		const FsvFrame *f;

		if (it->index >= fsv_trace_get_frame_count(pass->trace))
			return false;
		f = fsv_trace_get_frame(pass->trace, it->index);
		*x0 = fsv_view_time_to_x(pass->view, f->draw_begin_ns);
		*x1 = fsv_view_time_to_x(pass->view, f->draw_end_ns);
		if (!fsv_view_get_row_geometry(pass->view, f->row, y, h))
			return false;
		*y += 3;
		*h -= 6;
		return true;
	}
	case FSV_ITEM_COUNTER: {
		guint64 b, e;

		if (!fsv_counters_get_item_span(pass->trace, it, &b, &e))
			return false;
		*x0 = fsv_view_time_to_x(pass->view, b);
		*x1 = fsv_view_time_to_x(pass->view, e);
		return fsv_view_get_row_geometry(pass->view, it->row, y, h);
	}
	default:
		return false;
	}
}

static void
outline_item(RenderPass *pass, const FsvItem *it, const double rgb[3], double width)
{
	double x0, x1, y, h;

	if (!item_rect(pass, it, &x0, &x1, &y, &h))
		return;
	if (x1 - x0 < 3) {
		x0 = (x0 + x1) / 2 - 1.5;
		x1 = x0 + 3;
	}
	set_rgb(pass->cr, rgb, 1);
	cairo_set_line_width(pass->cr, width);
	cairo_rectangle(pass->cr, floor(x0) - 0.5, y - 1.5, floor(x1) - floor(x0) + 2, h + 3);
	cairo_stroke(pass->cr);
}

/* An arrow from the end of a signal box to the end (unblock) of a wait box. */
static void
arrow(RenderPass *pass, double xa, double ya, double xb, double yb)
{
	cairo_t *cr = pass->cr;
	double dx = MAX(fabs(xb - xa) * 0.4, 20), ang;

	_fsv_render_set_color(cr, FSV_COLOR_ARROW, 0.9);
	cairo_set_line_width(cr, 1.5);
	cairo_move_to(cr, xa, ya);
	cairo_curve_to(cr, xa + dx, ya, xb - dx, yb, xb, yb);
	cairo_stroke(cr);
	ang = atan2(yb - yb, xb - (xb - dx));
	cairo_move_to(cr, xb, yb);
	cairo_line_to(cr, xb - 7 * cos(ang - 0.45), yb - 7 * sin(ang - 0.45));
	cairo_line_to(cr, xb - 7 * cos(ang + 0.45), yb - 7 * sin(ang + 0.45));
	cairo_close_path(cr);
	cairo_fill(cr);
	cairo_arc(cr, xa, ya, 2.5, 0, 2 * G_PI);
	cairo_fill(cr);
}

static bool
op_anchor(RenderPass *pass, guint32 op, double *x, double *y)
{
	const FsvOp *o = fsv_trace_get_op(pass->trace, op);
	double ly, lh;

	if (o->row == FSV_INDEX_NONE ||
	    !fsv_view_get_lane_geometry(pass->view, o->row, o->lane, &ly, &lh))
		return false;
	*x = fsv_view_time_to_x(pass->view, o->end_ns);
	*y = ly + lh / 2;
	return true;
}

static bool
is_page_fault(const FsvMarker *m)
{
	return m->kind == FSA_MARK_PAGE_FAULT || m->kind == FSA_MARK_PAGE_FAULT_HANDLED;
}

/* MMU-14, TDR-06: a selected page fault is tied to the recovery that followed: the TDR band,
 * the engine and adapter resets inside it and the context in error are outlined in the
 * selection colour, and a dashed line runs from the fault's flash to the TDR's start. */
static void
draw_fault_recovery(RenderPass *pass, const FsvItem *sel)
{
	cairo_t *cr = pass->cr;
	FsvFaultRecovery rec;
	double fy, fh, ty, th;

	if (!_fsv_trace_find_fault_recovery(pass->trace, sel->index, &rec))
		return;
	{
		const guint32 steps[] = {rec.tdr, rec.engine_reset, rec.adapter_reset,
					 rec.context_error};

		for (guint i = 0; i < G_N_ELEMENTS(steps); i++)
			if (steps[i] != FSV_INDEX_NONE)
				outline_item(pass,
					     &(FsvItem){FSV_ITEM_MARKER, steps[i], FSV_INDEX_NONE},
					     colors[FSV_COLOR_SELECTION], 1.5);
	}
	if (rec.tdr != FSV_INDEX_NONE && sel->row != FSV_INDEX_NONE &&
	    fsv_view_get_row_geometry(pass->view, sel->row, &fy, &fh) &&
	    fsv_view_get_row_geometry(pass->view, fsv_trace_get_marker(pass->trace, rec.tdr)->row,
				      &ty, &th)) {
		const FsvMarker *f = fsv_trace_get_marker(pass->trace, sel->index);
		const FsvMarker *tdr = fsv_trace_get_marker(pass->trace, rec.tdr);
		double xf = floor(fsv_view_time_to_x(pass->view, f->begin_ns)) + 0.5;
		double xt = floor(fsv_view_time_to_x(pass->view, tdr->begin_ns)) + 0.5;
		const double dash[] = {3.0, 2.0};

		_fsv_render_set_color(cr, FSV_COLOR_SELECTION, 1);
		cairo_set_line_width(cr, 1.5);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, xf + 4, fy + 6);
		cairo_line_to(cr, MAX(xt, xf + 6), ty + 2);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
}

/* The selected op or packet over everything else (docs/viewer.md "Lanes"): its box again, in
 * its lane or in the aggregated slot that stands for it, then its outline around the frame
 * the hit tester answers it in (_fsv_view_get_box: one function for both). */
static void
draw_selected_box(RenderPass *pass, const FsvItem *sel)
{
	double x0, x1, y, h;
	FsvLodItem item = {0, 0, sel->index};

	if (!_fsv_view_get_box(pass->view, sel, &x0, &x1, &y, &h))
		return;
	pass->lane_y = y;
	pass->lane_h = h;
	g_array_set_size(pass->details, 0);
	g_array_set_size(pass->specials, 0);
	g_array_set_size(pass->cuts, 0);
	cairo_save(pass->cr);
	/* Over whatever lies in its frame: the background first. */
	_fsv_render_set_color(pass->cr, FSV_COLOR_BACKGROUND, 1);
	cairo_rectangle(pass->cr, x0 - 0.5, y - 0.5, x1 - x0 + 1, h + 1);
	cairo_fill(pass->cr);
	if (sel->kind == FSV_ITEM_OP) {
		const FsvOp *o = fsv_trace_get_op(pass->trace, sel->index);

		item.begin_ns = o->begin_ns;
		item.end_ns = o->end_ns;
		draw_op_item(&item, pass);
		batch_flush(pass);
		if (pass->specials->len)
			draw_special_op(pass, o);
		font(pass, 9, false);
		pass->label_end = -1e9;
		if (pass->details->len)
			draw_op_detail(pass, o);
	} else {
		const FsvPacket *p = fsv_trace_get_packet(pass->trace, sel->index);

		item.begin_ns = p->start_ns;
		item.end_ns = p->end_ns;
		draw_packet_item(&item, pass);
		batch_flush(pass);
		font(pass, 9, false);
		if (pass->details->len)
			draw_packet_detail(pass, p);
		draw_cuts(pass);
	}
	g_array_set_size(pass->pieces, 0);
	_fsv_render_set_color(pass->cr, FSV_COLOR_SELECTION, 1);
	cairo_set_line_width(pass->cr, 2);
	cairo_rectangle(pass->cr, x0 - 0.5, y - 1.5, x1 - x0 + 1, h + 3);
	cairo_stroke(pass->cr);
	cairo_restore(pass->cr);
}

/* The chain of causes of the selected wait (FsvRenderOptions.highlights): each link's box
 * outlined, a dashed line from each link's start to the end of the link it explains (link k
 * holds the time just before link k − 1). */
static void
draw_highlights(RenderPass *pass)
{
	const FsvItem *items = pass->opt->highlights;
	double px0 = 0, px1 = 0, py = 0, ph = 0;
	bool has_prev = false;

	for (guint i = 0; i < pass->opt->n_highlights; i++) {
		double x0, x1, y, h;
		bool is_drawn = item_rect(pass, &items[i], &x0, &x1, &y, &h);

		if (is_drawn) {
			outline_item(pass, &items[i], colors[FSV_COLOR_ARROW], 1.5);
			if (has_prev) {
				_fsv_render_set_color(pass->cr, FSV_COLOR_ARROW, 0.8);
				cairo_set_line_width(pass->cr, 1);
				cairo_set_dash(pass->cr, (const double[]){3, 2}, 2, 0);
				cairo_move_to(pass->cr, x1, y + h / 2);
				cairo_line_to(pass->cr, px0, py + ph / 2);
				cairo_stroke(pass->cr);
				cairo_set_dash(pass->cr, NULL, 0, 0);
			}
		}
		has_prev = is_drawn;
		px0 = x0;
		px1 = x1;
		py = y;
		ph = h;
	}
	(void) px1;
}

static void
draw_selection(RenderPass *pass)
{
	const FsvItem *sel = &pass->opt->selection;

	if (pass->opt->n_highlights > 0)
		draw_highlights(pass);
	if (pass->opt->hover.kind != FSV_ITEM_NONE)
		outline_item(pass, &pass->opt->hover, colors[FSV_COLOR_HOVER], 1);
	if (sel->kind == FSV_ITEM_NONE)
		return;
	if (sel->kind == FSV_ITEM_OP && sel->index < fsv_trace_get_op_count(pass->trace)) {
		guint n = 0;
		const guint32 *edges = fsv_trace_get_op_edges(pass->trace, sel->index, &n);
		const FsvOp *o = fsv_trace_get_op(pass->trace, sel->index);
		double sx, sy, wx, wy;

		/* Signal → the waits it released; wait → its signal (the arrow still points from
		 * the signal to the wait). Capped: a signal can release thousands of waits. */
		for (guint i = 0; i < n && i < 256; i++) {
			guint32 other = edges[i];
			guint32 s = o->kind == FSA_OP_SIGNAL ? sel->index : other;
			guint32 w = o->kind == FSA_OP_SIGNAL ? other : sel->index;

			if (op_anchor(pass, s, &sx, &sy) && op_anchor(pass, w, &wx, &wy)) {
				arrow(pass, sx, sy, wx, wy);
				outline_item(pass, &(FsvItem){FSV_ITEM_OP, other, FSV_INDEX_NONE},
					     colors[FSV_COLOR_ARROW], 1);
			}
		}
	}
	if (sel->kind == FSV_ITEM_MARKER && sel->index < fsv_trace_get_marker_count(pass->trace) &&
	    is_page_fault(fsv_trace_get_marker(pass->trace, sel->index))) {
		const FsvMarker *f = fsv_trace_get_marker(pass->trace, sel->index);
		double y, h;

		draw_fault_recovery(pass, sel);
		outline_item(pass, sel, colors[FSV_COLOR_SELECTION], 2);
		/* The flash over the outlines: they stack within a pixel or two of it. */
		if (fsv_view_get_row_geometry(
			pass->view, sel->row != FSV_INDEX_NONE ? sel->row : f->row, &y, &h))
			page_fault_glyph(pass->cr,
					 floor(fsv_view_time_to_x(pass->view, f->begin_ns)) + 0.5,
					 y + 1);
		return;
	}
	/* An op or packet was drawn with its outline by draw_selected_box. */
	if (sel->kind != FSV_ITEM_OP && sel->kind != FSV_ITEM_PACKET)
		outline_item(pass, sel, colors[FSV_COLOR_SELECTION], 2);
}

static void
draw_range_and_measure(RenderPass *pass, double top, double bottom)
{
	cairo_t *cr = pass->cr;
	const FsvRenderOptions *o = pass->opt;

	if (o->has_range) {
		guint64 a = MIN(o->range_begin_ns, o->range_end_ns),
			b = MAX(o->range_begin_ns, o->range_end_ns);
		double x0 = MAX(fsv_view_time_to_x(pass->view, a), pass->x_min);
		double x1 = MIN(fsv_view_time_to_x(pass->view, b), pass->x_max);
		g_autofree char *d = fsv_format_duration(b - a);

		if (x1 >= x0) {
			_fsv_render_set_color(cr, FSV_COLOR_SELECTION, 0.10);
			cairo_rectangle(cr, x0, 0, MAX(x1 - x0, 1), bottom);
			cairo_fill(cr);
			_fsv_render_set_color(cr, FSV_COLOR_SELECTION, 0.8);
			cairo_rectangle(cr, x0, 0, 1, bottom);
			cairo_rectangle(cr, x1 - 1, 0, 1, bottom);
			cairo_fill(cr);
			font(pass, 10, true);
			cairo_move_to(cr, (x0 + x1) / 2 - text_width(cr, d) / 2, 11);
			cairo_show_text(cr, d);
		}
	}
	if (o->has_measure) {
		guint64 a = MIN(o->measure_a_ns, o->measure_b_ns),
			b = MAX(o->measure_a_ns, o->measure_b_ns);
		double x0 = fsv_view_time_to_x(pass->view, a),
		       x1 = fsv_view_time_to_x(pass->view, b);
		double y = top + 14;
		g_autofree char *d = fsv_format_duration(b - a);
		double tw;

		_fsv_render_set_color(cr, FSV_COLOR_MEASURE, 0.95);
		cairo_set_line_width(cr, 1);
		cairo_move_to(cr, floor(x0) + 0.5, top);
		cairo_line_to(cr, floor(x0) + 0.5, bottom);
		cairo_move_to(cr, floor(x1) + 0.5, top);
		cairo_line_to(cr, floor(x1) + 0.5, bottom);
		cairo_stroke(cr);
		cairo_set_line_width(cr, 1.5);
		cairo_move_to(cr, x0, y);
		cairo_line_to(cr, x1, y);
		cairo_stroke(cr);
		font(pass, 10, true);
		tw = text_width(cr, d);
		_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 0.9);
		cairo_rectangle(cr, (x0 + x1) / 2 - tw / 2 - 3, y - 12, tw + 6, 13);
		cairo_fill(cr);
		_fsv_render_set_color(cr, FSV_COLOR_MEASURE_TEXT, 1);
		cairo_move_to(cr, (x0 + x1) / 2 - tw / 2, y - 2);
		cairo_show_text(cr, d);
	}
}

/* A bookmark or the go-to-time marker: a line down the rows with a flag in the ruler, named. */
static void
draw_time_mark(RenderPass *pass, guint64 ns, const char *name, double top, double bottom,
	       bool is_cursor)
{
	cairo_t *cr = pass->cr;
	double x = floor(fsv_view_time_to_x(pass->view, ns)) + 0.5;

	if (x < pass->x_min - 1 || x > pass->x_max + 1)
		return;
	if (is_cursor)
		cairo_set_source_rgba(cr, 0.85, 0.35, 0.05, 0.95);
	else
		cairo_set_source_rgba(cr, 0.45, 0.25, 0.70, 0.9);
	cairo_set_line_width(cr, is_cursor ? 1.5 : 1);
	cairo_move_to(cr, x, 0);
	cairo_line_to(cr, x, bottom);
	cairo_stroke(cr);
	cairo_move_to(cr, x, top - 12);
	cairo_line_to(cr, x + 7, top - 9);
	cairo_line_to(cr, x, top - 6);
	cairo_close_path(cr);
	cairo_fill(cr);
	if (name && *name) {
		font(pass, 9.5, false);
		text_fit(cr, x + 9, top - 3, name, MAX(pass->x_max - x - 12, 0));
	}
}

static void
draw_time_marks(RenderPass *pass, double top, double bottom)
{
	const FsvRenderOptions *o = pass->opt;

	for (guint i = 0; i < o->n_bookmarks; i++)
		draw_time_mark(pass, o->bookmark_ns[i],
			       o->bookmark_names ? o->bookmark_names[i] : NULL, top, bottom, false);
	if (o->has_cursor)
		draw_time_mark(pass, o->cursor_ns, NULL, top, bottom, true);
}

typedef enum {
	SW_SOLID,
	SW_SPLIT,
	SW_HATCH,
	SW_OPEN,
	SW_TICK,
	SW_TRIANGLE,
	SW_BAR,
	SW_CONNECTOR, /* a dashed arc with a head: preempted piece → resubmitted piece */
	SW_TICKS2,    /* three ticks of one colour, a fourth (wider) of the other */
	SW_VLINE,     /* a thick vertical line (an adapter reset) */
	SW_DIAMOND,   /* a small diamond (an injected fault) */
	SW_BRACKET,   /* a preemption bracket, split in two colours */
	SW_FLASH,     /* a page fault's flash */
	SW_TRI2,      /* two triangles, one of each colour */
	SW_ARROW,     /* a slanted arrow (cross-adapter propagation) */
} SwatchKind;

typedef struct {
	const char *text;
	SwatchKind kind;
	FsvColor color, color2; /* color2: the right half of a SW_SPLIT */
} LegendEntry;

/* The legend's entries for TRACE: the base ones, then those of items the trace has (a trace
 * without doorbells, preemption, … keeps the legend it had). ENTRIES holds LEGEND_MAX. */
#define LEGEND_MAX 42

static guint
legend_collect(FsvTrace *trace, const FsvView *view, LegendEntry *entries)
{
	static const LegendEntry base[] = {
	    {"Wait: queued | stalled on GPU", SW_SPLIT, FSV_COLOR_WAIT_QUEUED,
	     FSV_COLOR_WAIT_STALLED},
	    {"Signal", SW_SOLID, FSV_COLOR_SIGNAL, FSV_COLOR_SIGNAL},
	    {"Inferred (log entry lost)", SW_HATCH, FSV_COLOR_WAIT_STALLED, FSV_COLOR_WAIT_STALLED},
	    {"Never completed", SW_OPEN, FSV_COLOR_WAIT_STALLED, FSV_COLOR_WAIT_STALLED},
	    {"Packet / ring submission", SW_SOLID, FSV_COLOR_PACKET, FSV_COLOR_PACKET},
	    {"Preempted packet", SW_SOLID, FSV_COLOR_PACKET_PREEMPTED, FSV_COLOR_PACKET_PREEMPTED},
	    {"Doorbell ring", SW_TICK, FSV_COLOR_DOORBELL, FSV_COLOR_DOORBELL},
	    {"Preemption", SW_BAR, FSV_COLOR_PREEMPTION, FSV_COLOR_PREEMPTION},
	    {"TDR / reset", SW_BAR, FSV_COLOR_TDR, FSV_COLOR_TDR},
	    {"Page fault", SW_FLASH, FSV_COLOR_PAGE_FAULT, FSV_COLOR_PAGE_FAULT},
	    {"Data lost", SW_HATCH, FSV_COLOR_LOSS, FSV_COLOR_LOSS},
	    {"Dependency (signal → wait)", SW_BAR, FSV_COLOR_ARROW, FSV_COLOR_ARROW},
	};
	/* Entries of issue 12's items, only for traces that have them (older renders stay). */
	static const LegendEntry doorbell[] = {
	    {"Doorbell: connected | notify KMD", SW_SPLIT, FSV_COLOR_DOORBELL_CONNECTED,
	     FSV_COLOR_DOORBELL_NOTIFY_KMD},
	    {"Doorbell: retry | abort", SW_SPLIT, FSV_COLOR_DOORBELL_RETRY,
	     FSV_COLOR_DOORBELL_ABORT},
	};
	static const LegendEntry victim = {"Victimized → beneficiary", SW_BAR, FSV_COLOR_VICTIMIZE,
					   FSV_COLOR_VICTIMIZE};
	static const LegendEntry low_power = {"Suspended / F1 / D3", SW_HATCH, FSV_COLOR_SUSPENDED,
					      FSV_COLOR_SUSPENDED};
	/* Issue 13's items, only for traces that have them. */
	static const LegendEntry paging = {"Paging packet", SW_SOLID, FSV_COLOR_PACKET_PAGING,
					   FSV_COLOR_PACKET_PAGING};
	static const LegendEntry display[] = {
	    {"Vsync | missed vsync", SW_TICKS2, FSV_COLOR_VSYNC, FSV_COLOR_MISSED_VSYNC},
	    {"Flip: queued → on screen", SW_SOLID, FSV_COLOR_FLIP, FSV_COLOR_FLIP},
	};
	static const LegendEntry recovery[] = {
	    {"TDR: no progress (detected)", SW_HATCH, FSV_COLOR_TDR, FSV_COLOR_TDR},
	    {"Adapter reset (all its rows)", SW_VLINE, FSV_COLOR_RESET, FSV_COLOR_RESET},
	    {"Context in error", SW_HATCH, FSV_COLOR_CONTEXT_ERROR, FSV_COLOR_CONTEXT_ERROR},
	    {"Fault injected", SW_DIAMOND, FSV_COLOR_FAULT_INJECTED, FSV_COLOR_FAULT_INJECTED},
	};
	/* Issue 16 §3: frames rows, only for traces with frames. */
	static const LegendEntry frames[] = {
	    {"Frame: on time | over budget", SW_SPLIT, FSV_COLOR_FRAME_ON_TIME,
	     FSV_COLOR_FRAME_OVER},
	    {"Frame: missed vsync | pending", SW_SPLIT, FSV_COLOR_FRAME_MISSED,
	     FSV_COLOR_FRAME_PENDING},
	};
	bool has_display = false;
	/* Issue 14's items, only for traces that have them. */
	static const LegendEntry gpummu[] = {
	    {"VA mapping: 4 KB | 64 KB pages", SW_SPLIT, FSV_COLOR_VA_4K, FSV_COLOR_VA_64K},
	    {"VA reserve | free", SW_TRI2, FSV_COLOR_DOORBELL_CONNECTED, FSV_COLOR_VICTIMIZE},
	    {"Cross-adapter propagation", SW_ARROW, FSV_COLOR_PROPAGATION, FSV_COLOR_PROPAGATION},
	};
	static const LegendEntry pieces = {"Preempted → resubmitted piece", SW_CONNECTOR,
					   FSV_COLOR_PACKET_PREEMPTED, FSV_COLOR_PACKET_PREEMPTED};
	static const LegendEntry reasons[] = {
	    {"Preemption: time slice | priority", SW_BRACKET, FSV_COLOR_PREEMPTION,
	     FSV_COLOR_PREEMPT_PRIORITY},
	    {"Preemption: suspend | TDR", SW_BRACKET, FSV_COLOR_SUSPENDED, FSV_COLOR_TDR},
	};
	/* Issue 15 §4: counter tracks, only while such rows are shown (VIEW NULL: never). */
	static const LegendEntry counters[] = {
	    {"Engine busy fraction", SW_SOLID, FSV_COLOR_COUNTER_BUSY, FSV_COLOR_COUNTER_BUSY},
	    {"Queue depth (min – max)", SW_SOLID, FSV_COLOR_COUNTER_DEPTH, FSV_COLOR_COUNTER_DEPTH},
	};
	bool has_counter[FSV_COUNTER_KIND_COUNT] = {false};
	guint n = G_N_ELEMENTS(base);

	G_STATIC_ASSERT(G_N_ELEMENTS(base) + 30 <= LEGEND_MAX);
	memcpy(entries, base, sizeof(base));
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_DOORBELL_STATE) ||
	    _fsv_trace_has_marker_kind(trace, FSA_MARK_DOORBELL_CONNECTED)) {
		entries[n++] = doorbell[0];
		entries[n++] = doorbell[1];
	}
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_DOORBELL_VICTIMIZE))
		entries[n++] = victim;
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_CONTEXT_SUSPENDED) ||
	    _fsv_trace_has_marker_kind(trace, FSA_MARK_ENGINE_F1) ||
	    _fsv_trace_has_marker_kind(trace, FSA_MARK_DEVICE_D3))
		entries[n++] = low_power;
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_PREEMPTION)) {
		entries[n++] = reasons[0];
		entries[n++] = reasons[1];
	}
	if (_fsv_trace_has_resubmitted_pieces(trace))
		entries[n++] = pieces;
	if (_fsv_trace_has_paging_packets(trace))
		entries[n++] = paging;
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_TDR_DETECT))
		entries[n++] = recovery[0];
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_ADAPTER_RESET))
		entries[n++] = recovery[1];
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_CONTEXT_ERROR))
		entries[n++] = recovery[2];
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_FAULT_INJECTED))
		entries[n++] = recovery[3];
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace) && !has_display; r++)
		has_display = fsv_trace_get_row(trace, r)->kind == FSV_ROW_DISPLAY;
	if (has_display) {
		entries[n++] = display[0];
		entries[n++] = display[1];
	}
	if (fsv_trace_get_frame_count(trace) > 0) {
		entries[n++] = frames[0];
		entries[n++] = frames[1];
	}
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_VA_MAPPING))
		entries[n++] = gpummu[0];
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_VA_RESERVE) ||
	    _fsv_trace_has_marker_kind(trace, FSA_MARK_VA_FREE))
		entries[n++] = gpummu[1];
	if (_fsv_trace_has_marker_kind(trace, FSA_MARK_FENCE_PROPAGATION))
		entries[n++] = gpummu[2];
	for (guint32 r = 0; view && r < fsv_trace_get_row_count(trace); r++) {
		FsvCounterKind kind = fsv_counter_kind_of_row(fsv_trace_get_row(trace, r));

		if (kind != FSV_COUNTER_KIND_COUNT && fsv_view_get_show_counter(view, kind))
			has_counter[kind] = true;
	}
	for (guint k = 0; k < FSV_COUNTER_KIND_COUNT; k++)
		if (has_counter[k])
			entries[n++] = counters[k];
	g_assert(n <= LEGEND_MAX);
	return n;
}

/* The legend is a strip of its own under the timeline, never over it (issue 15 §3): entries
 * flow into as many columns of LEGEND_COLUMN_WIDTH px as the width holds, column by column. */
#define LEGEND_COLUMN_WIDTH 200
#define LEGEND_LINE_HEIGHT  16
#define LEGEND_TOP          22 /* the "Legend" heading */
#define LEGEND_BOTTOM       6

static void
legend_layout(guint n, int width, guint *columns, guint *rows)
{
	*columns = CLAMP((guint) MAX(width - 16, 0) / LEGEND_COLUMN_WIDTH, 1u, MAX(n, 1u));
	*rows = (n + *columns - 1) / *columns;
}

int
fsv_render_get_legend_height(FsvTrace *trace, const FsvView *view, int width)
{
	LegendEntry entries[LEGEND_MAX];
	guint columns, rows;

	g_return_val_if_fail(trace != NULL, 0);
	legend_layout(legend_collect(trace, view, entries), width, &columns, &rows);
	return LEGEND_TOP + (int) rows * LEGEND_LINE_HEIGHT + LEGEND_BOTTOM;
}

static void
legend_draw_entries(RenderPass *pass, const LegendEntry *entries, guint n, guint rows)
{
	cairo_t *cr = pass->cr;

	for (guint i = 0; i < n; i++) {
		double ex = 8 + (i / rows) * LEGEND_COLUMN_WIDTH;
		double ey = LEGEND_TOP + (i % rows) * LEGEND_LINE_HEIGHT;
		const double *rgb = colors[entries[i].color];

		switch (entries[i].kind) {
		case SW_SPLIT:
			set_rgb(cr, rgb, 1);
			cairo_rectangle(cr, ex, ey, 11, 10);
			cairo_fill(cr);
			_fsv_render_set_color(cr, entries[i].color2, 1);
			cairo_rectangle(cr, ex + 11, ey, 11, 10);
			cairo_fill(cr);
			break;
		case SW_SOLID:
			set_rgb(cr, rgb, 1);
			cairo_rectangle(cr, ex, ey, 22, 10);
			cairo_fill(cr);
			break;
		case SW_HATCH:
			fill_hatched(cr, ex, ey, 22, 10, rgb, 0.15, 0.9);
			break;
		case SW_OPEN:
			set_rgb(cr, rgb, 0.25);
			cairo_rectangle(cr, ex, ey, 22, 10);
			cairo_fill(cr);
			set_rgb(cr, rgb, 1);
			cairo_move_to(cr, ex + 22, ey + 0.5);
			cairo_line_to(cr, ex + 0.5, ey + 0.5);
			cairo_line_to(cr, ex + 0.5, ey + 9.5);
			cairo_line_to(cr, ex + 22, ey + 9.5);
			cairo_stroke(cr);
			break;
		case SW_TICK:
			set_rgb(cr, rgb, 1);
			for (int k = 0; k < 4; k++)
				cairo_rectangle(cr, ex + 2 + k * 6, ey + 2, 1, 8);
			cairo_fill(cr);
			break;
		case SW_TRIANGLE:
			set_rgb(cr, rgb, 1);
			cairo_move_to(cr, ex + 6, ey);
			cairo_line_to(cr, ex + 16, ey);
			cairo_line_to(cr, ex + 11, ey + 8);
			cairo_close_path(cr);
			cairo_fill(cr);
			break;
		case SW_CONNECTOR:
			set_rgb(cr, rgb, 1);
			cairo_rectangle(cr, ex, ey + 5, 6, 5);
			cairo_rectangle(cr, ex + 16, ey + 5, 6, 5);
			cairo_fill(cr);
			_fsv_render_set_color(cr, FSV_COLOR_PIECE_TEXT, 1);
			cairo_set_line_width(cr, 1.0);
			cairo_move_to(cr, ex + 6, ey + 5);
			cairo_curve_to(cr, ex + 9, ey, ex + 14, ey, ex + 17, ey + 4);
			cairo_stroke(cr);
			break;
		case SW_VLINE:
			set_rgb(cr, rgb, 1);
			cairo_rectangle(cr, ex + 10, ey - 1, 2.5, 12);
			cairo_fill(cr);
			break;
		case SW_DIAMOND:
			set_rgb(cr, rgb, 1);
			cairo_move_to(cr, ex + 11, ey);
			cairo_line_to(cr, ex + 16, ey + 5);
			cairo_line_to(cr, ex + 11, ey + 10);
			cairo_line_to(cr, ex + 6, ey + 5);
			cairo_close_path(cr);
			cairo_fill(cr);
			break;
		case SW_TICKS2:
			set_rgb(cr, rgb, 1);
			for (int k = 0; k < 3; k++)
				cairo_rectangle(cr, ex + 2 + k * 5, ey, 1, 10);
			cairo_fill(cr);
			_fsv_render_set_color(cr, entries[i].color2, 1);
			cairo_rectangle(cr, ex + 18, ey, 2, 10);
			cairo_fill(cr);
			break;
		case SW_BRACKET:
			set_rgb(cr, rgb, 1);
			cairo_rectangle(cr, ex, ey, 10, 3);
			cairo_rectangle(cr, ex, ey, 1.5, 10);
			cairo_rectangle(cr, ex + 8.5, ey, 1.5, 10);
			cairo_fill(cr);
			_fsv_render_set_color(cr, entries[i].color2, 1);
			cairo_rectangle(cr, ex + 12, ey, 10, 3);
			cairo_rectangle(cr, ex + 12, ey, 1.5, 10);
			cairo_rectangle(cr, ex + 20.5, ey, 1.5, 10);
			cairo_fill(cr);
			break;
		case SW_FLASH:
			page_fault_glyph(cr, ex + 10, ey - 1);
			break;
		case SW_TRI2:
			for (int k = 0; k < 2; k++) {
				double tx = ex + 5 + 12 * k;

				_fsv_render_set_color(cr, k ? entries[i].color2 : entries[i].color,
						      1);
				cairo_move_to(cr, tx - 4, ey + 10);
				cairo_line_to(cr, tx + 4, ey + 10);
				cairo_line_to(cr, tx, ey + 2);
				cairo_close_path(cr);
				cairo_fill(cr);
			}
			break;
		case SW_ARROW:
			set_rgb(cr, rgb, 1);
			cairo_set_line_width(cr, 1.5);
			propagation_arrow_path(cr, ex + 2, ey + 1, ex + 20, ey + 9, 6);
			cairo_stroke(cr);
			propagation_head_path(cr, ex + 2, ey + 1, ex + 20, ey + 9, 6);
			cairo_fill(cr);
			break;
		case SW_BAR:
		default:
			set_rgb(cr, rgb, 1);
			cairo_rectangle(cr, ex, ey + 3, 22, 4);
			cairo_fill(cr);
			break;
		}
		_fsv_render_set_color(cr, FSV_COLOR_TEXT_SECONDARY, 1);
		cairo_move_to(cr, ex + 28, ey + 9);
		cairo_show_text(cr, entries[i].text);
	}
}

void
fsv_render_draw_legend(cairo_t *cr, FsvTrace *trace, const FsvView *view, int width,
		       const char *font_family)
{
	LegendEntry entries[LEGEND_MAX];
	RenderPass pass = {.cr = cr, .trace = trace};
	guint n, columns, rows;
	int height;

	g_return_if_fail(cr != NULL && trace != NULL);
	pass.font = font_family ? font_family : "DejaVu Sans";
	n = legend_collect(trace, view, entries);
	legend_layout(n, width, &columns, &rows);
	height = fsv_render_get_legend_height(trace, view, width);
	cairo_save(cr);
	cairo_rectangle(cr, 0, 0, width, height);
	cairo_clip(cr);
	_fsv_render_set_color(cr, FSV_COLOR_LABEL_BACKGROUND, 1);
	cairo_paint(cr);
	_fsv_render_set_color(cr, FSV_COLOR_RULE, 1);
	cairo_rectangle(cr, 0, 0, width, 1);
	cairo_fill(cr);
	font(&pass, 10, true);
	_fsv_render_set_color(cr, FSV_COLOR_TEXT, 1);
	cairo_move_to(cr, 8, 15);
	cairo_show_text(cr, "Legend");
	font(&pass, 9.5, false);
	legend_draw_entries(&pass, entries, n, rows);
	cairo_restore(cr);
}

/* ---- Entry points ---------------------------------------------------------------------- */

void
fsv_render_draw_with_stats(cairo_t *cr, FsvTrace *trace, const FsvView *view,
			   const FsvRenderOptions *options, FsvRenderStats *stats)
{
	FsvRenderOptions defaults;
	FsvRenderStats local = {0};
	RenderPass pass = {0};
	int w = fsv_view_get_width(view), h = fsv_view_get_height(view);
	int rh = fsv_view_get_ruler_height(view), lw = fsv_view_get_label_width(view);
	guint n_visible = fsv_view_get_visible_row_count(view);

	g_return_if_fail(cr != NULL && trace != NULL && view != NULL);
	if (!options) {
		fsv_render_options_init(&defaults);
		options = &defaults;
	}
	pass.cr = cr;
	pass.trace = trace;
	pass.view = view;
	pass.opt = options;
	pass.stats = stats ? stats : &local;
	memset(pass.stats, 0, sizeof(*pass.stats));
	pass.x_min = lw;
	pass.x_max = w;
	pass.has_query = fsv_query_is_active(options->query);
	pass.details_cap = (guint) MAX((w - lw) / 4, 1);
	pass.font = options->font_family ? options->font_family : "DejaVu Sans";
	for (guint s = 0; s < BATCH_COUNT; s++)
		pass.batches[s].rects = g_array_new(FALSE, FALSE, sizeof(double));
	pass.details = g_array_new(FALSE, FALSE, sizeof(guint32));
	pass.specials = g_array_new(FALSE, FALSE, sizeof(guint32));
	pass.pieces = g_array_new(FALSE, FALSE, sizeof(guint32));
	pass.cuts = g_array_new(FALSE, FALSE, sizeof(double));
	pass.fault_xs = g_array_new(FALSE, FALSE, sizeof(double));
	pass.fault_labels = g_array_new(FALSE, FALSE, sizeof(double));
	pass.fault_label_end = -1e9;
	for (int k = 0; k < 3; k++)
		pass.tri[k] = g_array_new(FALSE, FALSE, sizeof(double));

	cairo_save(cr);
	_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 1);
	cairo_rectangle(cr, 0, 0, w, h);
	cairo_fill(cr);

	/* Row stripes and contents, clipped to the time area under the ruler. */
	cairo_save(cr);
	cairo_rectangle(cr, lw, rh, w - lw, h - rh);
	cairo_clip(cr);
	for (guint i = 0; i < n_visible; i++) {
		double y, rowh;
		guint32 row = fsv_view_get_visible_row(view, i, NULL, NULL);
		const FsvRow *r = fsv_trace_get_row(trace, row);

		fsv_view_get_row_geometry(view, row, &y, &rowh);
		if (y + rowh < rh || y > h)
			continue;
		if (r->kind == FSV_ROW_ADAPTER || r->kind == FSV_ROW_CPU_GROUP ||
		    r->kind == FSV_ROW_FENCE_GROUP || r->kind == FSV_ROW_VA_GROUP)
			_fsv_render_set_color(cr, FSV_COLOR_GROUP_STRIPE, 1);
		else if (i % 2)
			_fsv_render_set_color(cr, FSV_COLOR_ODD_STRIPE, 1);
		else
			_fsv_render_set_color(cr, FSV_COLOR_BACKGROUND, 1);
		cairo_rectangle(cr, lw, y, w - lw, rowh);
		cairo_fill(cr);
		_fsv_render_set_color(cr, FSV_COLOR_ROW_SEPARATOR, 1);
		cairo_rectangle(cr, lw, y + rowh - 1, w - lw, 1);
		cairo_fill(cr);
	}
	if (options->show_ruler_grid)
		draw_grid(&pass, rh, h);
	for (guint i = 0; i < n_visible; i++) {
		double y, rowh;
		guint32 row = fsv_view_get_visible_row(view, i, NULL, NULL);

		fsv_view_get_row_geometry(view, row, &y, &rowh);
		if (y + rowh < rh || y > h)
			continue;
		draw_row_content(&pass, row, y, rowh);
	}
	draw_losses(
	    &pass, rh,
	    MIN((double) h, rh + fsv_view_get_content_height(view) - fsv_view_get_scroll_y(view)));
	/* The selected op or packet over every row, under the arrows (as fsv_view_hit_test_selected
	 * answers). */
	if (options->selection.kind == FSV_ITEM_OP || options->selection.kind == FSV_ITEM_PACKET)
		draw_selected_box(&pass, &options->selection);
	draw_victim_arrows(&pass, pass.specials);
	draw_propagation_arrows(&pass, pass.specials);
	draw_adapter_resets(&pass);
	draw_selection(&pass);
	cairo_restore(cr);

	/* Labels, drawn after the content so nothing covers them. */
	cairo_save(cr);
	cairo_rectangle(cr, 0, rh, lw, h - rh);
	cairo_clip(cr);
	_fsv_render_set_color(cr, FSV_COLOR_LABEL_BACKGROUND, 1);
	cairo_rectangle(cr, 0, rh, lw, h - rh);
	cairo_fill(cr);
	for (guint i = 0; i < n_visible; i++) {
		double y, rowh;
		guint32 row = fsv_view_get_visible_row(view, i, NULL, NULL);

		fsv_view_get_row_geometry(view, row, &y, &rowh);
		if (y + rowh < rh || y > h)
			continue;
		draw_row_label(&pass, row, y, rowh, rh);
	}
	cairo_restore(cr);
	_fsv_render_set_color(cr, FSV_COLOR_RULE, 1);
	cairo_rectangle(cr, lw - 1, 0, 1, h);
	cairo_fill(cr);

	draw_ruler(&pass);
	cairo_save(cr);
	cairo_rectangle(cr, lw, 0, w - lw, h);
	cairo_clip(cr);
	draw_range_and_measure(&pass, rh, h);
	draw_time_marks(&pass, rh, h);
	cairo_restore(cr);

	if (n_visible == 0) {
		const char *msg = "No GPU queues, fences or packets in this trace";

		font(&pass, 13, false);
		_fsv_render_set_color(cr, FSV_COLOR_TEXT_DIM, 1);
		cairo_move_to(cr, lw + (w - lw) / 2.0 - text_width(cr, msg) / 2, rh + 60);
		cairo_show_text(cr, msg);
	}
	if (fsv_trace_get_partial_error(trace)) {
		g_autofree char *msg =
		    g_strdup_printf("Partial trace: %s", fsv_trace_get_partial_error(trace));

		font(&pass, 10, true);
		_fsv_render_set_color(cr, FSV_COLOR_LOSS, 1);
		text_fit(cr, lw + 8, h - 8, msg, w - lw - 16);
	} else if (fsv_trace_get_clock_warning(trace)) {
		font(&pass, 10, true);
		_fsv_render_set_color(cr, FSV_COLOR_LOSS, 1);
		text_fit(cr, lw + 8, h - 8, fsv_trace_get_clock_warning(trace), w - lw - 16);
	}
	/* The legend is not drawn here: it has a strip of its own under the timeline
	 * (fsv_render_draw_legend), so it never covers a row. */
	cairo_restore(cr);

	for (guint s = 0; s < BATCH_COUNT; s++)
		g_array_unref(pass.batches[s].rects);
	g_array_unref(pass.details);
	g_array_unref(pass.specials);
	g_array_unref(pass.pieces);
	g_array_unref(pass.cuts);
	g_array_unref(pass.fault_xs);
	g_array_unref(pass.fault_labels);
	for (int k = 0; k < 3; k++)
		g_array_unref(pass.tri[k]);
}

void
fsv_render_draw(cairo_t *cr, FsvTrace *trace, const FsvView *view, const FsvRenderOptions *options)
{
	fsv_render_draw_with_stats(cr, trace, view, options, NULL);
}

bool
fsv_render_format_from_path(const char *path, FsvRenderFormat *format)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot)
		return false;
	if (g_ascii_strcasecmp(dot, ".png") == 0)
		*format = FSV_RENDER_FORMAT_PNG;
	else if (g_ascii_strcasecmp(dot, ".svg") == 0)
		*format = FSV_RENDER_FORMAT_SVG;
	else if (g_ascii_strcasecmp(dot, ".pdf") == 0)
		*format = FSV_RENDER_FORMAT_PDF;
	else
		return false;
	return true;
}

bool
fsv_render_to_file(FsvTrace *trace, const FsvView *view, const FsvRenderOptions *options,
		   FsvRenderFormat format, const char *path, GError **error)
{
	int w = fsv_view_get_width(view), h = fsv_view_get_height(view);
	int legend_h = options->show_legend ? fsv_render_get_legend_height(trace, view, w) : 0;
	cairo_surface_t *surface;
	cairo_status_t status;
	cairo_t *cr;

	g_return_val_if_fail(trace && view && path, false);
	/* The legend's strip goes under the timeline, as in the window. */
	h += legend_h;
	switch (format) {
	case FSV_RENDER_FORMAT_SVG:
		surface = cairo_svg_surface_create(path, w, h);
		break;
	case FSV_RENDER_FORMAT_PDF:
		surface = cairo_pdf_surface_create(path, w, h);
		break;
	case FSV_RENDER_FORMAT_PNG:
	default:
		surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
		break;
	}
	status = cairo_surface_status(surface);
	if (status != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(surface);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path,
			    cairo_status_to_string(status));
		return false;
	}
	cr = cairo_create(surface);
	fsv_render_draw(cr, trace, view, options);
	if (legend_h > 0) {
		cairo_translate(cr, 0, h - legend_h);
		fsv_render_draw_legend(cr, trace, view, w, options->font_family);
	}
	status = cairo_status(cr);
	cairo_destroy(cr);
	if (status == CAIRO_STATUS_SUCCESS && format == FSV_RENDER_FORMAT_PNG)
		status = cairo_surface_write_to_png(surface, path);
	cairo_surface_finish(surface);
	if (status == CAIRO_STATUS_SUCCESS)
		status = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	if (status != CAIRO_STATUS_SUCCESS) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot write: %s", path,
			    cairo_status_to_string(status));
		return false;
	}
	return true;
}
