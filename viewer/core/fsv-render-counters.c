/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the drawing of the counter tracks (issue 15 §4, docs/viewer.md "Counter
 * tracks"), called from fsv-render.c for busy, depth and fence rows:
 *
 * - busy: per pixel column, a bar up to the exact share of the column's span during which a
 *   packet ran (fsv_counters_busy_ns);
 * - depth and CurrentValue: per pixel column, the true minimum and maximum of the step function
 *   over the column's span: a light fill up to the maximum and a dark segment from the minimum
 *   to the maximum, so a one-nanosecond spike shows at any zoom as a pixel-wide line.
 *
 * The columns are answered in one sweep per row (fsv_counters_*_columns: a galloping search from
 * the previous column, the min/max pyramid across crowded ones), runs of equal columns merged into
 * one rectangle: the cost is the pixels', never the points'. A fence row keeps the look it had (a
 * pale area under its line, the value of the wider steps written above it). The y-axis labels (the
 * row's largest value at the top, 0 at the bottom) are drawn in the label column, never over the
 * data.
 */
#include "fsv-render.h"
#include "fsv-render-private.h"
#include "fsv-trace-private.h"
#include "fsv-view-private.h"

#include <inttypes.h>
#include <math.h>

/* Rectangles of one colour, merged along x while they have the same y and height. */
typedef struct {
	cairo_t *cr;
	double x0, x1, y, h; /* the open run, x1 ≤ x0 when none */
} Run;

static void
run_flush(Run *run)
{
	if (run->x1 > run->x0 && run->h > 0)
		cairo_rectangle(run->cr, run->x0, run->y, run->x1 - run->x0, run->h);
	run->x1 = run->x0;
}

static void
run_add(Run *run, double x, double y, double h)
{
	if (run->x1 > run->x0 && run->x1 == x && run->y == y && run->h == h) {
		run->x1 = x + 1;
		return;
	}
	run_flush(run);
	run->x0 = x;
	run->x1 = x + 1;
	run->y = y;
	run->h = h;
}

typedef struct {
	double top, bottom; /* the plot's y extent */
	double max;         /* the value at the top */
} Plot;

static double
plot_y(const Plot *plot, double value)
{
	if (plot->max <= 0)
		return plot->bottom;
	return floor(plot->bottom - value / plot->max * (plot->bottom - plot->top));
}

/* The row's value range: busy [0, 1], depth [0, largest], a fence [smallest, largest]. */
static void
row_plot(FsvTrace *trace, guint32 row, double y, double h, Plot *plot, guint64 *base)
{
	const FsvRow *r = fsv_trace_get_row(trace, row);

	*base = 0;
	if (r->kind == FSV_ROW_FENCE || r->kind == FSV_ROW_XFENCE) {
		/* Room for the value labels above the line. */
		plot->top = y + 6;
		plot->bottom = y + h - 4;
		*base = r->value_min;
		plot->max = (double) (r->value_max - r->value_min);
		return;
	}
	plot->top = y + FSV_COUNTER_MARGIN_TOP;
	plot->bottom = y + h - FSV_COUNTER_MARGIN_BOTTOM;
	plot->max = r->kind == FSV_ROW_BUSY ? 1.0 : fsv_counters_get_depth_max(trace, row);
}

/* A fence's step line: the value of its widest steps written above it. */
static void
fence_labels(cairo_t *cr, FsvTrace *trace, const FsvView *view, guint32 row, const Plot *plot,
	     guint64 base, double x_min, double x_max, double y, const char *font_family)
{
	guint n = 0;
	const FsvFenceStep *s = fsv_trace_get_fence_steps(trace, row, &n);
	guint64 tb = fsv_view_x_to_time(view, x_min), te = fsv_view_x_to_time(view, x_max);
	double last_label_x = -1e9;
	/* The step in force at the left edge, then the next ones while they are 40 px wide (a
	 * bounded number: at most one per 40 px). The searches go through the row's step blocks
	 * (fsv-counters.h), not over the steps. */
	guint lo = fsv_counters_fence_step_after(trace, row, 0, tb);
	guint drawn = 0;

	cairo_select_font_face(cr, font_family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 9);
	_fsv_render_set_color(cr, FSV_COLOR_OP_TEXT, 1);
	for (guint k = lo > 0 ? lo - 1 : 0; k < n && s[k].ns <= te && drawn < 64; k++) {
		double x0 = MAX(fsv_view_time_to_x(view, s[k].ns), x_min);
		double x1 = k + 1 < n ? fsv_view_time_to_x(view, s[k + 1].ns) : x_max;
		char v[32];

		if (x1 - x0 < 40 || x0 - last_label_x < 40) {
			/* Jump to the first step at least 40 px further: the steps in between are
			 * too narrow for a label. */
			guint64 t = fsv_view_x_to_time(view, x0 + 40);
			/* The first step at t or later. */
			guint a = t == 0 ? k + 1
					 : fsv_counters_fence_step_after(trace, row, k + 1, t - 1);

			k = a > k + 1 ? a - 2 : k;
			continue;
		}
		g_snprintf(v, sizeof(v), "%" PRIu64, s[k].value);
		cairo_move_to(cr, floor(x0) + 3,
			      MAX(plot_y(plot, (double) (s[k].value - base)) - 3, y + 9));
		cairo_show_text(cr, v);
		last_label_x = x0;
		drawn++;
	}
}

void
_fsv_render_counter_row(cairo_t *cr, FsvTrace *trace, const FsvView *view, guint32 row, double y,
			double h, double x_min, double x_max, const char *font_family,
			guint64 *columns_drawn)
{
	const FsvRow *r = fsv_trace_get_row(trace, row);
	/* Colours of fsv-render.c's table: busy, depth, and the dark pink of signals for a
	 * fence's line. The busy bars nearly solid; the depth and value areas light under
	 * their solid min – max line. */
	double rgb[3];
	bool is_fence = r->kind == FSV_ROW_FENCE || r->kind == FSV_ROW_XFENCE;
	guint64 trace_begin = fsv_trace_get_begin_ns(trace),
		trace_end = fsv_trace_get_end_ns(trace);
	Run fill = {cr, 0, 0, 0, 0}, line = {cr, 0, 0, 0, 0};
	GArray *lines = g_array_new(FALSE, FALSE, sizeof(double));
	g_autofree guint64 *begin = NULL, *end = NULL, *lo = NULL, *hi = NULL;
	g_autofree bool *has = NULL;
	guint64 base;
	double x0;
	guint n;
	Plot plot;

	fsv_render_get_color(r->kind == FSV_ROW_BUSY    ? FSV_COLOR_COUNTER_BUSY
			     : r->kind == FSV_ROW_DEPTH ? FSV_COLOR_COUNTER_DEPTH
							: FSV_COLOR_SIGNAL,
			     rgb);
	row_plot(trace, row, y, h, &plot, &base);
	/* The columns' spans, then every column's answer in one sweep. */
	x0 = floor(x_min);
	n = x_max > x0 ? (guint) ceil(x_max - x0) : 0;
	begin = g_new(guint64, MAX(n, 1));
	end = g_new(guint64, MAX(n, 1));
	lo = g_new(guint64, MAX(n, 1));
	hi = g_new(guint64, MAX(n, 1));
	has = g_new(bool, MAX(n, 1));
	for (guint i = 0; i < n; i++)
		fsv_view_get_column_span(view, x0 + i, &begin[i], &end[i]);
	if (r->kind == FSV_ROW_BUSY) {
		fsv_counters_busy_columns(trace, row, begin, end, n, hi);
	} else if (r->kind == FSV_ROW_DEPTH) {
		g_autofree guint32 *dlo = g_new(guint32, MAX(n, 1));
		g_autofree guint32 *dhi = g_new(guint32, MAX(n, 1));

		fsv_counters_depth_columns(trace, row, begin, end, n, dlo, dhi);
		for (guint i = 0; i < n; i++) {
			lo[i] = dlo[i];
			hi[i] = dhi[i];
		}
	} else {
		fsv_counters_fence_columns(trace, row, begin, end, n, lo, hi, has);
	}
	cairo_new_path(cr);
	for (guint i = 0; i < n; i++) {
		double x = x0 + i, y_lo, y_hi;

		if (end[i] <= trace_begin || begin[i] > trace_end)
			continue;
		if (r->kind == FSV_ROW_BUSY) {
			if (hi[i] == 0)
				continue;
			/* Any busy time shows as a pixel at least. */
			y_hi = MIN(plot_y(&plot, (double) hi[i] / (double) (end[i] - begin[i])),
				   plot.bottom - 1);
			run_add(&fill, x, y_hi, plot.bottom - y_hi);
		} else {
			if (is_fence && !has[i])
				continue;
			y_hi = plot_y(&plot, (double) (hi[i] - base));
			y_lo = plot_y(&plot, (double) (lo[i] - base));
			if (hi[i] > 0 || is_fence)
				run_add(&fill, x, y_hi, plot.bottom - y_hi + 1);
			/* The line: from the maximum down to the minimum, 2 px tall at least. */
			{
				double seg[3] = {x, y_hi - 1, y_lo - y_hi + 2};

				g_array_append_vals(lines, seg, 3);
			}
		}
		(*columns_drawn)++;
	}
	run_flush(&fill);
	cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2],
			      r->kind == FSV_ROW_BUSY ? 0.8
			      : is_fence              ? 0.12
						      : 0.3);
	cairo_fill(cr);
	for (guint i = 0; i < lines->len; i += 3) {
		const double *seg = &g_array_index(lines, double, i);

		run_add(&line, seg[0], seg[1], seg[2]);
	}
	run_flush(&line);
	cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], is_fence ? 0.9 : 1.0);
	cairo_fill(cr);
	g_array_unref(lines);
	if (is_fence)
		fence_labels(cr, trace, view, row, &plot, base, x_min, x_max, y, font_family);
}

void
_fsv_render_counter_axis(cairo_t *cr, FsvTrace *trace, guint32 row, double y, double h,
			 double label_width, const char *font_family)
{
	const FsvRow *r = fsv_trace_get_row(trace, row);
	char top[32];
	cairo_text_extents_t e;
	guint64 base;
	Plot plot;

	row_plot(trace, row, y, h, &plot, &base);
	if (r->kind == FSV_ROW_BUSY)
		g_snprintf(top, sizeof(top), "100 %%");
	else if (r->kind == FSV_ROW_DEPTH)
		g_snprintf(top, sizeof(top), "max %" G_GUINT32_FORMAT,
			   fsv_counters_get_depth_max(trace, row));
	else
		return;
	cairo_select_font_face(cr, font_family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 8.5);
	_fsv_render_set_color(cr, FSV_COLOR_TEXT_DIM, 1);
	cairo_text_extents(cr, top, &e);
	cairo_move_to(cr, label_width - 6 - e.x_advance, plot.top + 7);
	cairo_show_text(cr, top);
	cairo_text_extents(cr, "0", &e);
	cairo_move_to(cr, label_width - 6 - e.x_advance, plot.bottom);
	cairo_show_text(cr, "0");
	/* Ticks of the axis at the plot's top and bottom. */
	cairo_rectangle(cr, label_width - 4, plot.top, 3, 1);
	cairo_rectangle(cr, label_width - 4, plot.bottom, 3, 1);
	cairo_rectangle(cr, label_width - 2, plot.top, 1, plot.bottom - plot.top + 1);
	cairo_fill(cr);
}
