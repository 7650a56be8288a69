/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: drawing a frames row (issue 16 §3, docs/viewer.md "Frames"): one box per frame
 * of a display (fsv-frames.h), from the vsync before it to the vsync that latched it, filled by
 * how its frame time compares with its budget (the view's, --frame-budget, else the display's
 * vsync period as measured at it); a pending present hatched from its
 * flip_queued to the end of the trace; "#12 · 16.7 ms" inside a box wide enough. The level of
 * detail is the frames' FsvLod: a frame a pixel or wider is drawn as itself, narrower ones as
 * their bucket, coloured as its worst frame (the LOD's top, ranked by fsv-frames.c: missed, then
 * the longest frame time, then pending, then unknown), so every frame shows at every zoom as at
 * least a 1 px mark and one over budget is never hidden by its neighbours. The
 * selected frame's outline is fsv-render.c's (draw_selection, above everything). Not the hit
 * testing (fsv-view.c asks the same LOD).
 */
#include "fsv-render-private.h"

#include <math.h>

#include "fsv-frames.h"
#include "fsv-frames-private.h"
#include "fsv-lod.h"

#define GRADES (FSV_FRAME_UNKNOWN + 1)

typedef struct {
	cairo_t *cr;
	FsvTrace *trace;
	const FsvView *view;
	guint64 budget_ns;
	double x_min, x_max;
	/* Per grade: x0, x1 pairs of the boxes to fill. */
	GArray *boxes[GRADES];
	GArray *labels; /* guint32 frame indexes wide enough for a label */
	guint64 *drawn;
} FramePass;

static FsvColor
grade_color(FsvFrameGrade grade)
{
	switch (grade) {
	case FSV_FRAME_ON_TIME:
		return FSV_COLOR_FRAME_ON_TIME;
	case FSV_FRAME_OVER:
		return FSV_COLOR_FRAME_OVER;
	case FSV_FRAME_MISSED:
		return FSV_COLOR_FRAME_MISSED;
	case FSV_FRAME_PENDING:
		return FSV_COLOR_FRAME_PENDING;
	default:
		return FSV_COLOR_FRAME_UNKNOWN;
	}
}

static void
add_box(FramePass *p, guint32 frame, guint64 begin, guint64 end, bool is_bucket)
{
	const FsvFrame *f = fsv_trace_get_frame(p->trace, frame);
	FsvFrameGrade grade = fsv_frame_grade(f, p->budget_ns);
	double x0 = fsv_view_time_to_x(p->view, begin), x1 = fsv_view_time_to_x(p->view, end);
	double box[2];

	if (x1 < p->x_min || x0 > p->x_max)
		return;
	/* On whole pixels: a frame narrower than a pixel is one pixel of its own colour, never
	 * a blend with its neighbours'. */
	x0 = floor(MAX(x0, p->x_min - 2));
	x1 = floor(MIN(x1, p->x_max + 2));
	/* A gap of a pixel between frames wide enough to tell apart. */
	if (!is_bucket && x1 - x0 >= 6)
		x1 -= 1;
	if (x1 - x0 < 1)
		x1 = x0 + 1;
	box[0] = x0;
	box[1] = x1;
	g_array_append_vals(p->boxes[grade], box, 2);
	if (!is_bucket && x1 - x0 >= 24)
		g_array_append_val(p->labels, frame);
	(*p->drawn)++;
}

static bool
frame_item(const FsvLodItem *item, gpointer data)
{
	add_box(data, item->id, item->begin_ns, item->end_ns, false);
	return true;
}

static bool
frame_bucket(const FsvLodBucket *b, gpointer data)
{
	add_box(data, b->top, b->begin_ns, b->end_ns, true);
	return true;
}

/* Diagonal lines over [x0, x1] × [y, y + h], clipped to it. */
static void
hatch(cairo_t *cr, double x0, double x1, double y, double h)
{
	cairo_save(cr);
	cairo_rectangle(cr, x0, y, x1 - x0, h);
	cairo_clip(cr);
	for (double x = floor(x0 / 6) * 6 - h; x < x1; x += 6) {
		cairo_move_to(cr, x, y + h);
		cairo_line_to(cr, x + h, y);
	}
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
	cairo_restore(cr);
}

static void
draw_label(FramePass *p, guint32 frame, double y, double h)
{
	const FsvFrame *f = fsv_trace_get_frame(p->trace, frame);
	double x0 = MAX(fsv_view_time_to_x(p->view, f->draw_begin_ns), p->x_min);
	double x1 = MIN(fsv_view_time_to_x(p->view, f->draw_end_ns), p->x_max);
	g_autofree char *time = f->frame_time_ns != FSV_TIME_NONE
				    ? fsv_format_duration(f->frame_time_ns)
				    : g_strdup(f->is_pending ? "pending" : "?");
	g_autofree char *full = g_strdup_printf("#%" G_GUINT64_FORMAT " · %s", f->index, time);
	g_autofree char *shorter = g_strdup_printf("#%" G_GUINT64_FORMAT, f->index);
	cairo_text_extents_t e;
	const char *text = full;

	cairo_text_extents(p->cr, full, &e);
	if (e.x_advance > x1 - x0 - 6) {
		text = shorter;
		cairo_text_extents(p->cr, shorter, &e);
		if (e.x_advance > x1 - x0 - 6)
			return;
	}
	/* White on the red of a missed vsync, dark text elsewhere. */
	_fsv_render_set_color(p->cr,
			      fsv_frame_grade(f, p->budget_ns) == FSV_FRAME_MISSED
				  ? FSV_COLOR_BACKGROUND
				  : FSV_COLOR_TEXT,
			      1);
	cairo_move_to(p->cr, x0 + 3, y + h / 2 + 3.5);
	cairo_show_text(p->cr, text);
}

void
_fsv_render_frames_row(cairo_t *cr, FsvTrace *trace, const FsvView *view, guint32 row, double y,
		       double h, double x_min, double x_max, const char *font_family,
		       guint64 *frames_drawn)
{
	const FsvLod *lod = _fsv_trace_get_frame_lod(trace, row);
	FramePass p = {cr, trace, view, 0, x_min, x_max, {NULL}, NULL, frames_drawn};
	double by = y + 3, bh = h - 6;
	guint32 first;
	guint n;

	if (!lod)
		return;
	/* Each frame against the view's budget (--frame-budget), else its own (budget_ns 0), as
	 * the report grades it. */
	fsv_trace_get_row_frames(trace, row, &first, &n, NULL);
	p.budget_ns = fsv_view_get_frame_budget(view);
	for (guint g = 0; g < GRADES; g++)
		p.boxes[g] = g_array_new(FALSE, FALSE, sizeof(double));
	p.labels = g_array_new(FALSE, FALSE, sizeof(guint32));
	fsv_lod_visit(lod, fsv_view_x_to_time(view, x_min), fsv_view_x_to_time(view, x_max),
		      fsv_view_get_ns_per_px(view), frame_item, frame_bucket, &p);
	/* The worse grades over the better ones: a frame over budget is never under another. */
	for (guint g = 0; g < GRADES; g++) {
		static const FsvFrameGrade order[GRADES] = {FSV_FRAME_ON_TIME, FSV_FRAME_UNKNOWN,
							    FSV_FRAME_PENDING, FSV_FRAME_OVER,
							    FSV_FRAME_MISSED};
		GArray *boxes = p.boxes[order[g]];

		for (guint i = 0; i < boxes->len; i += 2) {
			double x0 = g_array_index(boxes, double, i);
			double x1 = g_array_index(boxes, double, i + 1);

			if (order[g] == FSV_FRAME_PENDING) {
				_fsv_render_set_color(cr, FSV_COLOR_FRAME_PENDING, 0.25);
				cairo_rectangle(cr, x0, by, x1 - x0, bh);
				cairo_fill(cr);
				_fsv_render_set_color(cr, FSV_COLOR_FRAME_PENDING, 0.9);
				hatch(cr, x0, x1, by, bh);
			} else {
				cairo_rectangle(cr, x0, by, x1 - x0, bh);
			}
		}
		if (order[g] != FSV_FRAME_PENDING) {
			_fsv_render_set_color(cr, grade_color(order[g]), 1);
			cairo_fill(cr);
		}
		g_array_unref(boxes);
	}
	cairo_select_font_face(cr, font_family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 9);
	for (guint i = 0; i < p.labels->len; i++)
		draw_label(&p, g_array_index(p.labels, guint32, i), by, bh);
	g_array_unref(p.labels);
}
