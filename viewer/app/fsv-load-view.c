/* SPDX-License-Identifier: MIT */
/*
 * FsvLoadView (fsv-load-view.h). Drawn with GtkSnapshot's own colour nodes and text layouts: a
 * few hundred rectangles per preview (rows × 128 buckets at most), so a redraw costs well under
 * a millisecond and never holds the main loop while the builder runs.
 *
 * Layout: a heading ("Reading NAME…", what is loaded so far), then one 22 px row per preview row,
 * its label indented by depth on the left, its strip on the right. The strip's time axis spans
 * the whole trace as far as it can be guessed: what was read so far (the preview's buckets) over
 * the fraction of the stream files read, so the strips fill from left to right as reading goes
 * on, and the rest is shaded "not read yet".
 */
#include "fsv-load-view.h"

#include <math.h>

#define ROW_HEIGHT    22
#define LABEL_WIDTH   260
#define HEADING_SPACE 64
#define MARGIN        16
#define INDENT        14

struct _FsvLoadView {
	GtkWidget parent_instance;
	char *name;
	FsvLoadPreview *preview;
	FsvLoadStage stage;
	guint64 events;
	double fraction;
};

G_DEFINE_FINAL_TYPE(FsvLoadView, fsv_load_view, GTK_TYPE_WIDGET)

GtkWidget *
fsv_load_view_new(void)
{
	return g_object_new(FSV_TYPE_LOAD_VIEW, NULL);
}

void
fsv_load_view_reset(FsvLoadView *self, const char *name)
{
	g_return_if_fail(FSV_IS_LOAD_VIEW(self));
	g_free(self->name);
	self->name = g_strdup(name);
	g_clear_pointer(&self->preview, fsv_load_preview_unref);
	self->stage = FSV_LOAD_STAGE_CACHE;
	self->events = 0;
	self->fraction = -1;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void
fsv_load_view_update(FsvLoadView *self, FsvLoadPreview *preview, FsvLoadStage stage, guint64 events,
		     double fraction)
{
	gboolean is_new_preview;

	g_return_if_fail(FSV_IS_LOAD_VIEW(self));
	is_new_preview = preview != self->preview;
	if (is_new_preview) {
		g_clear_pointer(&self->preview, fsv_load_preview_unref);
		self->preview = preview ? fsv_load_preview_ref(preview) : NULL;
	}
	if (!is_new_preview && stage == self->stage && events == self->events &&
	    fraction == self->fraction)
		return;
	self->stage = stage;
	self->events = events;
	self->fraction = fraction;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void
fsv_load_view_show_progress(FsvLoadView *self, GtkProgressBar *bar, const FsvLoadProgress *progress)
{
	double fraction = CLAMP(progress->fraction, 0.0, 1.0);
	g_autofree char *text = NULL;

	g_return_if_fail(FSV_IS_LOAD_VIEW(self) && GTK_IS_PROGRESS_BAR(bar));
	fsv_load_view_update(self, progress->preview, progress->stage, progress->events,
			     progress->fraction);
	if (progress->fraction >= 0) {
		gtk_progress_bar_set_fraction(bar, fraction);
		text = g_strdup_printf("%" G_GUINT64_FORMAT " events · %.0f %%", progress->events,
				       100.0 * fraction);
	} else {
		gtk_progress_bar_pulse(bar);
		text = g_strdup_printf("%" G_GUINT64_FORMAT " events", progress->events);
	}
	gtk_progress_bar_set_text(bar, text);
}

FsvLoadPreview *
fsv_load_view_get_preview(FsvLoadView *self)
{
	g_return_val_if_fail(FSV_IS_LOAD_VIEW(self), NULL);
	return self->preview;
}

static void
append_text(GtkSnapshot *snapshot, GtkWidget *widget, const char *text, float x, float y,
	    const GdkRGBA *colour, gboolean is_bold, int max_width)
{
	g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout(widget, NULL);

	if (is_bold)
		pango_layout_set_markup(layout, text, -1);
	else
		pango_layout_set_text(layout, text, -1);
	if (max_width > 0) {
		pango_layout_set_width(layout, max_width * PANGO_SCALE);
		/* The end of a queue handle tells queues apart: cut in the middle. */
		pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_MIDDLE);
	}
	gtk_snapshot_save(snapshot);
	gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(x, y));
	gtk_snapshot_append_layout(snapshot, layout, colour);
	gtk_snapshot_restore(snapshot);
}

/* The colours of the timeline's items: fence operations dark pink (queues), packets blue
 * (engines), CPU operations purple, adapter markers grey. */
static GdkRGBA
row_colour(FsvRowKind kind)
{
	switch (kind) {
	case FSV_ROW_QUEUE:
		return (GdkRGBA){0.76f, 0.09f, 0.36f, 1.0f};
	case FSV_ROW_ENGINE:
		return (GdkRGBA){0.16f, 0.42f, 0.78f, 1.0f};
	case FSV_ROW_CPU_PROCESS:
		return (GdkRGBA){0.48f, 0.25f, 0.63f, 1.0f};
	default:
		return (GdkRGBA){0.45f, 0.47f, 0.50f, 1.0f};
	}
}

static char *
heading_text(FsvLoadView *self)
{
	const char *name = self->name ? self->name : "the trace";
	g_autofree char *escaped = g_markup_escape_text(name, -1);

	switch (self->stage) {
	case FSV_LOAD_STAGE_CACHE:
		return g_strdup_printf("<b>Opening %s…</b>", escaped);
	case FSV_LOAD_STAGE_SAVING:
		return g_strdup_printf("<b>Writing the index of %s…</b>", escaped);
	case FSV_LOAD_STAGE_MAPPING:
		return g_strdup_printf("<b>Opening the index of %s…</b>", escaped);
	case FSV_LOAD_STAGE_READING:
	default:
		return g_strdup_printf(self->fraction >= 0.999 ? "<b>Indexing %s…</b>"
							       : "<b>Reading %s…</b>",
				       escaped);
	}
}

static char *
summary_text(FsvLoadView *self)
{
	guint rows = self->preview ? fsv_load_preview_get_row_count(self->preview) : 0;
	guint64 items = self->preview ? fsv_load_preview_get_item_count(self->preview) : 0;
	g_autoptr(GString) text = g_string_new(NULL);

	g_string_append_printf(text, "%" G_GUINT64_FORMAT " events read", self->events);
	if (self->fraction >= 0)
		g_string_append_printf(text, " (%.0f %% of the streams)", 100 * self->fraction);
	if (self->preview)
		g_string_append_printf(text, " · %u rows, %" G_GUINT64_FORMAT " items so far", rows,
				       items);
	else
		g_string_append(text, " · the rows appear as they are found");
	return g_string_free(g_steal_pointer(&text), FALSE);
}

static void
fsv_load_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	FsvLoadView *self = FSV_LOAD_VIEW(widget);
	int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
	GdkRGBA fg;
	GdkRGBA dim, shade, grid;
	g_autofree char *heading = heading_text(self);
	g_autofree char *summary = summary_text(self);
	float strip_x = LABEL_WIDTH, strip_w = (float) (width - LABEL_WIDTH - MARGIN);
	double loaded_ns = 0, total_ns = 0;
	guint n_rows, shown;

	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	dim = (GdkRGBA){fg.red, fg.green, fg.blue, fg.alpha * 0.6f};
	shade = (GdkRGBA){fg.red, fg.green, fg.blue, fg.alpha * 0.06f};
	grid = (GdkRGBA){fg.red, fg.green, fg.blue, fg.alpha * 0.12f};
	append_text(snapshot, widget, heading, MARGIN, 12, &fg, TRUE, width - 2 * MARGIN);
	append_text(snapshot, widget, summary, MARGIN, 34, &dim, FALSE, width - 2 * MARGIN);
	if (self->preview == NULL || strip_w < 40)
		return;

	/* The time axis: read so far, over the fraction read (the whole trace, as guessed). */
	loaded_ns = (double) fsv_load_preview_get_used_buckets(self->preview) *
		    (double) fsv_load_preview_get_bucket_ns(self->preview);
	total_ns = loaded_ns;
	if (self->fraction > 0.02 && self->fraction < 1)
		total_ns = loaded_ns / self->fraction;
	if (total_ns <= 0)
		total_ns = 1;
	n_rows = fsv_load_preview_get_row_count(self->preview);
	shown = (guint) MAX(0, (height - HEADING_SPACE - ROW_HEIGHT) / ROW_HEIGHT);
	shown = MIN(shown, n_rows);
	{
		float loaded_w = (float) (strip_w * loaded_ns / total_ns);
		float rows_h = (float) (shown * ROW_HEIGHT);

		/* Not read yet: shaded, right of a line at what was read. */
		if (loaded_w < strip_w - 1) {
			gtk_snapshot_append_color(snapshot, &shade,
						  &GRAPHENE_RECT_INIT(strip_x + loaded_w,
								      HEADING_SPACE,
								      strip_w - loaded_w, rows_h));
			gtk_snapshot_append_color(
			    snapshot, &dim,
			    &GRAPHENE_RECT_INIT(strip_x + loaded_w, HEADING_SPACE, 1, rows_h));
		}
	}
	for (guint r = 0; r < shown; r++) {
		const FsvPreviewRow *row = fsv_load_preview_get_row(self->preview, r);
		float y = (float) (HEADING_SPACE + r * ROW_HEIGHT);
		GdkRGBA colour = row_colour(row->kind);
		double bucket_w =
		    strip_w * (double) fsv_load_preview_get_bucket_ns(self->preview) / total_ns;
		double scale = row->max_count ? 1.0 / log1p(row->max_count) : 0;
		gboolean is_group = row->depth == 0;

		append_text(snapshot, widget, row->label, (float) (MARGIN + INDENT * row->depth),
			    y + 2, is_group ? &fg : &dim, FALSE,
			    LABEL_WIDTH - MARGIN - INDENT * (int) row->depth - 8);
		gtk_snapshot_append_color(
		    snapshot, &grid, &GRAPHENE_RECT_INIT(strip_x, y + ROW_HEIGHT - 1, strip_w, 1));
		/* A bar per bucket, its height the log of its count against the row's busiest
		 * bucket: a sparse row still shows where it has items. */
		for (guint b = 0; b < FSV_PREVIEW_BUCKETS && scale > 0; b++) {
			float h, x, w;

			if (row->counts[b] == 0)
				continue;
			h = (float) ((ROW_HEIGHT - 6) * MAX(0.15, log1p(row->counts[b]) * scale));
			x = (float) (strip_x + b * bucket_w);
			w = (float) MAX(1.0, bucket_w - (bucket_w > 3 ? 1 : 0));
			gtk_snapshot_append_color(
			    snapshot, &colour,
			    &GRAPHENE_RECT_INIT(x, y + ROW_HEIGHT - 2 - h, w, h));
		}
	}
	if (shown < n_rows) {
		g_autofree char *more = g_strdup_printf("… and %u more rows", n_rows - shown);

		append_text(snapshot, widget, more, MARGIN,
			    (float) (HEADING_SPACE + shown * ROW_HEIGHT + 2), &dim, FALSE, 0);
	}
}

static void
fsv_load_view_finalize(GObject *object)
{
	FsvLoadView *self = FSV_LOAD_VIEW(object);

	g_clear_pointer(&self->preview, fsv_load_preview_unref);
	g_free(self->name);
	G_OBJECT_CLASS(fsv_load_view_parent_class)->finalize(object);
}

static void
fsv_load_view_class_init(FsvLoadViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->finalize = fsv_load_view_finalize;
	widget_class->snapshot = fsv_load_view_snapshot;
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
	gtk_widget_class_set_css_name(widget_class, "fsv-load-view");
}

static void
fsv_load_view_init(FsvLoadView *self)
{
	self->fraction = -1;
	gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
	gtk_widget_set_vexpand(GTK_WIDGET(self), TRUE);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
				       "What is loaded so far", -1);
}
