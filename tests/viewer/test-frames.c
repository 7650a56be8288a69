/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: frames rows and per-frame critical paths (issue 16 §3, suite unit). The viewer's
 * frames are the report's `frames` section's (frame-pipeline: counts, missed vsyncs, the
 * longest frames field by field; realtime-producer-consumer: none, and no frames row); the
 * viewer's critical path of each of frame-pipeline's slowest frames is the report's
 * `critical_path` section for it (same links: role, kind, id, queue, time held; same shares);
 * a click on a frame hits it, every frame is drawn at every zoom; the frames section saves and
 * maps back, a damaged one is refused, and the loader rebuilds it.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "fsa/ingest.h"
#include "fsa/report.h"
#include "fsv-chain.h"
#include "fsv-frames.h"
#include "fsv-index.h"
#include "fsv-loader-private.h"
#include "fsv-loader.h"
#include "fsv-render.h"
#include "fsv-trace-storage.h"
#include "fsv-view.h"
#include "fst-timeline.h"

static char *work;

static void
setup(void)
{
	work = g_dir_make_tmp("fsv-frames-XXXXXX", NULL);
	cr_assert_not_null(work);
	g_setenv("XDG_CACHE_HOME", work, TRUE);
	g_unsetenv("FENCESCOPE_NO_INDEX_CACHE");
}

static void
teardown(void)
{
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", work);

	cr_assert_eq(system(rm), 0);
	g_clear_pointer(&work, g_free);
}

TestSuite(frames, .init = setup, .fini = teardown, .timeout = 300);

static FsvTrace *
load(const char *name)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	GError *error = NULL;
	FsvTrace *trace = fsv_trace_load(path, NULL, NULL, NULL, &error);

	cr_assert_not_null(trace, "%s: %s", name, error ? error->message : "?");
	return trace;
}

/* The report of traces/NAME (in this process, as `fencescope report -f json -s SECTIONS
 * [--critical-path=COUNT]` would write it), parsed. */
static JsonNode *
report_json_budget(const char *name, unsigned sections, size_t critical_path_count,
		   guint64 frame_budget_ns)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	struct fsa_report_options options = {.sections = sections,
					     .critical_path_count = critical_path_count,
					     .frame_budget_ns = frame_budget_ns};
	struct fsa_report *report = fsa_report_create(&options);
	struct fsa_model *model;
	struct fsa_ingest_stats stats = {0};
	char *message = NULL, *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	g_autoptr(JsonParser) parser = json_parser_new();

	cr_assert_not_null(report);
	model = fsa_model_create(fsa_report_borrow_sink(report));
	fsa_report_set_model(report, model);
	cr_assert_eq(fsa_ingest_into_model(path, model, NULL, NULL, &stats, &message), FSA_OK, "%s",
		     message ? message : "");
	cr_assert_eq(fsa_report_finish(report), FSA_OK);
	cr_assert_eq(fsa_report_write(report, FSA_REPORT_FORMAT_JSON, out), FSA_OK);
	fclose(out);
	fsa_model_destroy(model);
	fsa_report_destroy(report);
	free(message);
	cr_assert(json_parser_load_from_data(parser, text, (gssize) size, NULL));
	free(text);
	return json_node_copy(json_parser_get_root(parser));
}

static JsonNode *
report_json(const char *name, unsigned sections, size_t critical_path_count)
{
	return report_json_budget(name, sections, critical_path_count, 0);
}

static JsonArray *
table(JsonNode *root, const char *section, const char *name)
{
	JsonObject *s = json_object_get_object_member(json_node_get_object(root), section);

	if (!s || !json_object_has_member(s, name))
		return NULL;
	return json_object_get_array_member(s, name);
}

/* An integer member: a number, a decimal string above 2^53, or null (UINT64_MAX). */
static guint64
u64(JsonObject *row, const char *name)
{
	JsonNode *node = json_object_get_member(row, name);

	cr_assert_not_null(node, "no member %s", name);
	if (JSON_NODE_HOLDS_NULL(node))
		return UINT64_MAX;
	if (json_node_get_value_type(node) == G_TYPE_STRING)
		return g_ascii_strtoull(json_node_get_string(node), NULL, 10);
	return (guint64) json_node_get_int(node);
}

static const char *
str(JsonObject *row, const char *name)
{
	JsonNode *node = json_object_get_member(row, name);

	return node && !JSON_NODE_HOLDS_NULL(node) ? json_node_get_string(node) : "";
}

/* The frame of display (ADAPTER, SOURCE) numbered INDEX, FSV_INDEX_NONE when none. */
static guint32
find_frame(const FsvTrace *trace, guint32 adapter, guint32 source, guint64 index)
{
	for (guint32 i = 0; i < fsv_trace_get_frame_count(trace); i++) {
		const FsvFrame *f = fsv_trace_get_frame(trace, i);

		if (f->adapter_id == adapter && f->source_id == source && f->index == index)
			return i;
	}
	return FSV_INDEX_NONE;
}

static guint
frames_rows(const FsvTrace *trace)
{
	guint n = 0;

	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_FRAMES) {
			/* Right under its display (same parent, same display). */
			const FsvRow *row = fsv_trace_get_row(trace, r);
			const FsvRow *display = fsv_trace_get_row(trace, r - 1);

			cr_assert_eq(display->kind, FSV_ROW_DISPLAY);
			cr_assert_eq(display->parent, row->parent);
			cr_assert_eq(display->source_id, row->source_id);
			n++;
		}
	return n;
}

/* The viewer's frames against the report's `frames` section. */
static void
check_frames_equal_report_with_budget(const char *name, guint64 budget_ns)
{
	g_autoptr(FsvTrace) trace = load(name);
	JsonNode *root = report_json_budget(name, FSA_REPORT_FRAMES, 0, budget_ns);
	JsonArray *times = table(root, "frames", "frame_times");
	JsonArray *presents = table(root, "frames", "presents");
	JsonArray *longest = table(root, "frames", "longest");
	guint displays = times ? json_array_get_length(times) : 0;
	guint counted = 0;

	cr_assert_eq(frames_rows(trace), displays, "%s: a frames row per display with frames",
		     name);
	for (guint d = 0; d < displays; d++) {
		JsonObject *t = json_array_get_object_element(times, d);
		JsonObject *p = json_array_get_object_element(presents, d);
		guint32 adapter = (guint32) u64(t, "adapter_id"),
			source = (guint32) u64(t, "source_id");
		guint64 frames = 0, pending = 0, missed = 0, max = 0;

		for (guint32 i = 0; i < fsv_trace_get_frame_count(trace); i++) {
			const FsvFrame *f = fsv_trace_get_frame(trace, i);

			if (f->adapter_id != adapter || f->source_id != source)
				continue;
			counted++;
			if (f->is_pending) {
				pending++;
				continue;
			}
			frames++;
			missed += f->missed_vsyncs;
			if (f->frame_time_ns != FSV_TIME_NONE)
				max = MAX(max, f->frame_time_ns);
		}
		cr_assert_eq(frames, u64(t, "frames"), "%s: frames", name);
		cr_assert_eq(missed, u64(t, "missed_vsyncs"), "%s: missed vsyncs", name);
		cr_assert_eq(max, u64(t, "frame_time_max_ns"), "%s: longest frame time", name);
		cr_assert_eq(pending, u64(p, "pending"), "%s: pending presents", name);
		/* Over budget by the report's rule and budget: the viewer's amber frames and the
		 * red ones over budget are the report's frame_over_budget, frame for frame. */
		{
			guint64 over = 0;

			for (guint32 i = 0; i < fsv_trace_get_frame_count(trace); i++) {
				const FsvFrame *f = fsv_trace_get_frame(trace, i);
				FsvFrameGrade grade = fsv_frame_grade(f, budget_ns);
				gboolean is_over = fsv_frame_is_over_budget(f, budget_ns);

				if (f->adapter_id != adapter || f->source_id != source)
					continue;
				over += is_over;
				cr_assert_eq(
				    grade == FSV_FRAME_OVER, is_over && f->missed_vsyncs == 0,
				    "%s: frame %" PRIu64 " graded %d", name, f->index, grade);
			}
			cr_assert_eq(over, u64(t, "over_budget"),
				     "%s: frames over budget (budget %" PRIu64 " ns)", name,
				     budget_ns);
		}
	}
	cr_assert_eq(counted, fsv_trace_get_frame_count(trace), "%s: frames of no display", name);
	for (guint i = 0; longest && i < json_array_get_length(longest); i++) {
		JsonObject *l = json_array_get_object_element(longest, i);
		guint32 k = find_frame(trace, (guint32) u64(l, "adapter_id"),
				       (guint32) u64(l, "source_id"), u64(l, "frame"));
		const FsvFrame *f;

		cr_assert_neq(k, FSV_INDEX_NONE, "%s: frame %" PRIu64 " missing", name,
			      u64(l, "frame"));
		f = fsv_trace_get_frame(trace, k);
		cr_assert_eq(f->flip_id, u64(l, "flip_id"));
		cr_assert_eq(f->vsync_count, u64(l, "vsync_count"));
		cr_assert_eq(f->end_ns, u64(l, "end_ns"));
		cr_assert_eq(f->frame_time_ns, u64(l, "frame_time_ns"));
		cr_assert_eq(f->missed_vsyncs, u64(l, "missed_vsyncs"));
		cr_assert_eq(f->present_latency_ns, u64(l, "present_latency_ns"));
		cr_assert_eq(f->process_id == UINT32_MAX ? UINT64_MAX : f->process_id,
			     u64(l, "process_id"));
	}
	json_node_unref(root);
}

/* The same with the report's default budget (each display's vsync period). */
static void
check_frames_equal_report(const char *name)
{
	check_frames_equal_report_with_budget(name, 0);
}

Test(frames, frame_pipeline_frames_equal_the_reports_frames_section)
{
	g_autoptr(FsvTrace) trace = load("frame-pipeline");

	check_frames_equal_report("frame-pipeline");
	/* 120 frames, the one that missed a vsync among them (traces/README.md). */
	cr_assert_eq(fsv_trace_get_frame_count(trace), 120);
}

/* Issue 16 §3: a frame the viewer draws over budget is one the report counts over budget, with
 * the display's vsync period (43 of diff-slow's 100 frames) or a budget given (--frame-budget). */
Test(frames, frames_over_budget_are_the_reports_with_its_budget_or_one_given)
{
	check_frames_equal_report("diff-slow");
	check_frames_equal_report_with_budget("diff-slow", 20000000);
	check_frames_equal_report_with_budget("frame-pipeline", 12000000);
	/* 1.6 % under the 16.667 ms period: over by the report's 1 µs tolerance (the viewer's
	 * first rule let 2 % pass). */
	check_frames_equal_report_with_budget("frame-pipeline", 16400000);
	check_frames_equal_report_with_budget("diff-base", 16000000);
}

Test(frames, realtime_trace_without_a_display_has_no_frames_as_the_report)
{
	g_autoptr(FsvTrace) trace = load("realtime-producer-consumer");

	check_frames_equal_report("realtime-producer-consumer");
	cr_assert_eq(fsv_trace_get_frame_count(trace), 0);
}

/* ---- The critical path of a frame --------------------------------------------------------- */

static const char *
link_kind(const FsvPathLink *l)
{
	if (!l->has_item)
		return "flip";
	return l->chain.type == FSA_CHAIN_ITEM_WAIT     ? "wait"
	       : l->chain.type == FSA_CHAIN_ITEM_SIGNAL ? "signal"
							: "packet";
}

Test(frames, critical_path_of_the_slowest_frames_equals_the_reports)
{
	g_autoptr(FsvTrace) trace = load("frame-pipeline");
	FsvChainIndex *index = fsv_chain_index_new(trace);
	JsonNode *root =
	    report_json("frame-pipeline", FSA_REPORT_FRAMES | FSA_REPORT_CRITICAL_PATH, 10);
	JsonArray *paths = table(root, "critical_path", "paths");
	JsonArray *links = table(root, "critical_path", "links");
	JsonArray *shares = table(root, "critical_path", "shares");
	guint with_chain = 0;

	cr_assert_eq(json_array_get_length(paths), 10, "the 10 slowest frames");
	for (guint p = 0; p < json_array_get_length(paths); p++) {
		JsonObject *jp = json_array_get_object_element(paths, p);
		guint64 path_id = u64(jp, "path");
		guint32 frame = find_frame(trace, 0, 0, u64(jp, "frame"));
		g_autoptr(FsvFramePath) path = NULL;
		g_autoptr(GArray) viewer_shares = NULL;
		guint l = 0, s = 0;

		cr_assert_neq(frame, FSV_INDEX_NONE);
		path = fsv_chain_index_path_of_frame(index, frame, 1024);
		cr_assert_not_null(path);
		cr_assert_eq(path->begin_ns, u64(jp, "begin_ns"), "frame %" PRIu64,
			     u64(jp, "frame"));
		cr_assert_eq(path->end_ns - path->begin_ns, u64(jp, "duration_ns"));
		cr_assert_eq(path->links->len, u64(jp, "links"));
		cr_assert_str_eq(path->stop, str(jp, "stop"));
		with_chain += path->links->len > 2;
		for (guint k = 0; k < json_array_get_length(links); k++) {
			JsonObject *jl = json_array_get_object_element(links, k);
			const FsvPathLink *vl;
			g_autofree char *queue = NULL;

			if (u64(jl, "path") != path_id)
				continue;
			cr_assert_lt(l, path->links->len);
			vl = &g_array_index(path->links, FsvPathLink, l++);
			cr_assert_str_eq(vl->role, str(jl, "role"), "frame %" PRIu64 " link %u",
					 u64(jp, "frame"), l);
			cr_assert_str_eq(link_kind(vl), str(jl, "kind"));
			cr_assert_eq(vl->has_item ? vl->chain.id : vl->flip_id, u64(jl, "id"));
			queue = vl->has_item && vl->chain.hwqueue_handle
				    ? g_strdup_printf("0x%" PRIx64, vl->chain.hwqueue_handle)
				    : g_strdup("");
			cr_assert_str_eq(queue, str(jl, "hwqueue_handle"));
			cr_assert_eq(vl->hold_end_ns - vl->hold_begin_ns, u64(jl, "held_ns"));
			/* Each op or packet of the chain is one the timeline can select; each
			 * display link, its flip on the display row. */
			if (vl->has_item)
				cr_assert_neq(vl->item.kind, FSV_ITEM_NONE);
			else
				cr_assert_eq(vl->item.kind, FSV_ITEM_MARKER, "flip %" PRIu64,
					     vl->flip_id);
		}
		cr_assert_eq(l, path->links->len);
		viewer_shares = fsv_frame_path_shares(trace, path);
		for (guint k = 0; k < json_array_get_length(shares); k++) {
			JsonObject *js = json_array_get_object_element(shares, k);
			const FsvPathShare *vs;

			if (u64(js, "path") != path_id)
				continue;
			cr_assert_lt(s, viewer_shares->len);
			vs = &g_array_index(viewer_shares, FsvPathShare, s++);
			cr_assert_str_eq(vs->scope, str(js, "scope"));
			cr_assert_str_eq(vs->key, str(js, "key"));
			cr_assert_eq(vs->held_ns, u64(js, "held_ns"));
		}
		cr_assert_eq(s, viewer_shares->len);
	}
	/* The slowest frames are the long renders: their paths run through the render's chain. */
	cr_assert_gt(with_chain, 0);
	json_node_unref(root);
	fsv_chain_index_free(index);
}

/* ---- Hit testing and level of detail ------------------------------------------------------ */

/* The colour of FSV_COLOR_* as an RGB24 pixel. */
static guint32
pixel_of(FsvColor id)
{
	double c[3];

	fsv_render_get_color(id, c);
	return (guint32) (c[0] * 255 + 0.5) << 16 | (guint32) (c[1] * 255 + 0.5) << 8 |
	       (guint32) (c[2] * 255 + 0.5);
}

/* The pixels of SURFACE's line through the middle of a row drawn at Y, H high. */
static const guint32 *
row_middle_pixels(cairo_surface_t *surface, double y, double h)
{
	return (const guint32 *) (cairo_image_surface_get_data(surface) +
				  (int) (y + h / 2) * cairo_image_surface_get_stride(surface));
}

/* Whether two RGB24 pixels differ by at most 3 in each channel (antialiasing aside). */
static bool
is_near(guint32 a, guint32 b)
{
	return abs((int) (a >> 16 & 0xff) - (int) (b >> 16 & 0xff)) <= 3 &&
	       abs((int) (a >> 8 & 0xff) - (int) (b >> 8 & 0xff)) <= 3 &&
	       abs((int) (a & 0xff) - (int) (b & 0xff)) <= 3;
}

static guint32
frames_row(const FsvTrace *trace)
{
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_FRAMES)
			return r;
	cr_assert_fail("no frames row");
	return FSV_INDEX_NONE;
}

Test(frames, click_on_a_frame_selects_it)
{
	g_autoptr(FsvTrace) trace = load("frame-pipeline");
	g_autoptr(FsvView) view = fsv_view_new(trace);
	guint32 row = frames_row(trace), first;
	guint n;
	double y, h;

	fsv_view_set_size(view, 1600, 2000);
	fsv_trace_get_row_frames(trace, row, &first, &n, NULL);
	cr_assert_eq(n, 120);
	for (guint i = 0; i < n; i += 7) {
		const FsvFrame *f = fsv_trace_get_frame(trace, first + i);
		guint64 mid = f->draw_begin_ns + (f->draw_end_ns - f->draw_begin_ns) / 2;
		FsvItem hit;

		/* Zoomed on the frame: the middle of its box. */
		fsv_view_set_range(view, f->draw_begin_ns - 20000000, f->draw_end_ns + 20000000);
		cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
		cr_assert(fsv_view_hit_test(view, fsv_view_time_to_x(view, mid), y + h / 2, &hit));
		cr_assert_eq(hit.kind, FSV_ITEM_FRAME);
		cr_assert_eq(hit.index, first + i, "frame #%" PRIu64, f->index);
		cr_assert_eq(hit.row, row);
	}
}

/* Every frame covers at least a pixel of its column in the frames row, whatever the zoom:
 * from the whole trace in 200 px to a 100 ms window. */
Test(frames, every_frame_is_drawn_at_every_zoom)
{
	g_autoptr(FsvTrace) trace = load("frame-pipeline");
	guint32 row = frames_row(trace), first;
	guint n;
	static const int widths[] = {440, 800, 1600};

	fsv_trace_get_row_frames(trace, row, &first, &n, NULL);
	for (guint w = 0; w < G_N_ELEMENTS(widths); w++) {
		g_autoptr(FsvView) view = fsv_view_new(trace);
		cairo_surface_t *surface;
		cairo_t *cr;
		FsvRenderOptions options;
		double y, h;
		guint missing = 0;

		fsv_view_set_size(view, widths[w], 1200);
		fsv_view_fit(view);
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, widths[w], 1200);
		cr = cairo_create(surface);
		fsv_render_options_init(&options);
		fsv_render_draw(cr, trace, view, &options);
		cairo_surface_flush(surface);
		cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
		for (guint i = 0; i < n; i++) {
			const FsvFrame *f = fsv_trace_get_frame(trace, first + i);
			int x0 = (int) floor(fsv_view_time_to_x(view, f->draw_begin_ns));
			int x1 = (int) floor(fsv_view_time_to_x(view, f->draw_end_ns));
			bool is_drawn = false;

			/* A non-background pixel of the box's band in its columns. */
			for (int x = MAX(x0, 0); x <= MIN(x1, widths[w] - 1) && !is_drawn; x++) {
				guint32 c = row_middle_pixels(surface, y, h)[x] & 0xffffff;

				is_drawn = c != pixel_of(FSV_COLOR_BACKGROUND) && c != 0xf4f5f8 &&
					   c != 0xffffff;
			}
			missing += !is_drawn;
		}
		cr_assert_eq(missing, 0, "%u frames not drawn at %d px", missing, widths[w]);
		cairo_destroy(cr);
		cairo_surface_destroy(surface);
	}
}

/* A frame that missed a vsync is never hidden by its on-time neighbours: on diff-slow (43 of its
 * frames miss one) drawn whole in 440 px, each such frame's columns hold the missed colour. */
Test(frames, missed_frames_stand_out_at_a_far_zoom)
{
	g_autoptr(FsvTrace) trace = load("diff-slow");
	guint32 row = frames_row(trace), first;
	guint n;
	guint32 want;
	/* 200 px of time: frames 2 to 3 px wide; 40 px: the on-time frames (16.7 ms, below the
	 * level's size class) in buckets drawn after the missed ones, which are items. */
	static const int widths[][2] = {{440, 240}, {60, 20}};

	want = pixel_of(FSV_COLOR_FRAME_MISSED);
	fsv_trace_get_row_frames(trace, row, &first, &n, NULL);
	for (guint w = 0; w < G_N_ELEMENTS(widths); w++) {
		g_autoptr(FsvView) view = fsv_view_new(trace);
		int width = widths[w][0];
		guint missed = 0, hidden = 0;
		cairo_surface_t *surface;
		cairo_t *cr;
		FsvRenderOptions options;
		double y, h;

		fsv_view_set_size(view, width, 1200);
		fsv_view_set_label_width(view, widths[w][1]);
		fsv_view_fit(view);
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, 1200);
		cr = cairo_create(surface);
		fsv_render_options_init(&options);
		fsv_render_draw(cr, trace, view, &options);
		cairo_surface_flush(surface);
		cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
		for (guint i = 0; i < n; i++) {
			const FsvFrame *f = fsv_trace_get_frame(trace, first + i);
			const guint32 *px = row_middle_pixels(surface, y, h);
			int x0 = (int) floor(fsv_view_time_to_x(view, f->draw_begin_ns));
			int x1 = (int) floor(fsv_view_time_to_x(view, f->draw_end_ns));
			bool is_red = false;

			if (f->missed_vsyncs == 0)
				continue;
			missed++;
			for (int x = MAX(x0, 0); x <= MIN(x1, width - 1) && !is_red; x++)
				is_red = is_near(px[x], want);
			hidden += !is_red;
		}
		cr_assert_eq(missed, 43, "diff-slow: 43 frames miss a vsync (traces/README.md)");
		cr_assert_eq(hidden, 0, "%u of %u missed frames hidden at %d px", hidden, missed,
			     width);
		cairo_destroy(cr);
		cairo_surface_destroy(surface);
	}
}

/* A synthetic display (fst-timeline.h): a vsync every 100 µs from 600 µs; flip 1 queued at
 * 610 µs lands at vsync 2; flip 2 queued at 850 µs lands at vsync 4 (vsync 3 missed); flip 3
 * queued at 1050 µs never lands. Three frames: the first (no vsync before it: drawn from its
 * flip_queued, frame time unknown), one that missed a vsync, and a pending present drawn to the
 * end of the trace, which a click there selects. */
#define T0    UINT64_C(1000000000)
#define US(n) (T0 + (guint64) (n) *1000)

Test(frames, pending_present_is_drawn_to_the_end_and_hit)
{
	g_autoptr(GArray) events = fst_events_new();
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvView) view = NULL;
	static const guint64 queued[] = {610, 850, 1050};
	const FsvFrame *f;
	guint32 row, first;
	guint n;
	guint64 budget;
	FsvItem hit;
	double y, h;
	g_autofree char *title = NULL;

	for (guint64 k = 1; k <= 8; k++) {
		guint64 flip = k == 2 ? 1 : k == 4 ? 2 : 0;

		for (guint i = 0; i < G_N_ELEMENTS(queued); i++)
			if (queued[i] > 500 + 100 * (k - 1) && queued[i] < 500 + 100 * k)
				fst_event_add(events, "flip_queued", US(queued[i]), "adapter_id",
					      UINT64_C(0), "source_id", UINT64_C(0), "process_id",
					      UINT64_C(42), "context_handle", UINT64_C(0x20),
					      "flip_id", (guint64) i + 1, NULL);
		fst_event_add(events, "vsync", US(500 + 100 * k), "adapter_id", UINT64_C(0),
			      "source_id", UINT64_C(0), "vsync_count", k, "flip_id", flip, "gpu_ts",
			      US(500 + 100 * k), NULL);
		if (flip)
			fst_event_add(events, "flip_done", US(500 + 100 * k) + 1000, "adapter_id",
				      UINT64_C(0), "source_id", UINT64_C(0), "flip_id", flip,
				      "vsync_count", k, NULL);
	}
	trace = fst_trace_from_events("frames", events);
	row = frames_row(trace);
	f = fsv_trace_get_row_frames(trace, row, &first, &n, &budget);
	cr_assert_eq(n, 3);
	cr_assert_eq(budget, 100000, "the vsync period");
	cr_assert_eq(fsv_frame_grade(&f[0], budget), FSV_FRAME_UNKNOWN);
	cr_assert_eq(f[0].draw_begin_ns, US(610));
	cr_assert_eq(f[0].draw_end_ns, US(700));
	cr_assert_eq(fsv_frame_grade(&f[1], budget), FSV_FRAME_MISSED);
	cr_assert_eq(f[1].missed_vsyncs, 1);
	cr_assert_eq(f[1].frame_time_ns, 200000);
	cr_assert_eq(fsv_frame_grade(&f[2], budget), FSV_FRAME_PENDING);
	cr_assert_eq(f[2].index, 3);
	cr_assert_eq(f[2].draw_begin_ns, US(1050));
	cr_assert_eq(f[2].draw_end_ns, fsv_trace_get_end_ns(trace));
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 600);
	fsv_view_fit(view);
	cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
	cr_assert(fsv_view_hit_test(view, fsv_view_time_to_x(view, US(1200)), y + h / 2, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_FRAME);
	cr_assert_eq(hit.index, first + 2);
	title = fsv_trace_dup_item_title(trace, &hit);
	cr_assert_str_eq(title, "Frame #3 (pending present)");
	cr_assert(fsv_view_hit_test(view, fsv_view_time_to_x(view, US(800)), y + h / 2, &hit));
	cr_assert_eq(hit.index, first + 1, "the late frame between its vsyncs");
}

/* A bucket of frames narrower than a pixel is drawn as its worst frame, not its longest box
 * (docs/viewer.md "Level of detail"): a synthetic display, a vsync every 100 µs, a frame latched
 * at each one, but frame 15 misses vsync 16 and a pending present queued at 1750 µs runs to the
 * end of the trace (a box of 250 µs, longer than the missed frame's 200 µs). Both begin in one
 * 4^10 ns slot, so at 2 ms a pixel they share a bucket: the missed frame's red must show there,
 * not the pending present's hatch. */
Test(frames, bucket_shows_its_worst_frame_not_a_pending_present)
{
	g_autoptr(GArray) events = fst_events_new();
	g_autoptr(FsvTrace) trace = NULL;
	g_autoptr(FsvView) view = NULL;
	const FsvFrame *f;
	guint32 row, first, missed = FSV_INDEX_NONE;
	guint n;
	guint64 budget;
	double y, h;
	guint32 want;
	bool is_red = false;
	cairo_surface_t *surface;
	cairo_t *cr;
	FsvRenderOptions options;
	int width = 60;

	for (guint64 k = 1; k <= 20; k++) {
		/* Flip k is queued 50 µs before vsync k and latched there, but flip 16's is late.
		 */
		guint64 flip = k == 16 ? 0 : k;
		guint64 queued = k == 17 ? 1650 : 100 * k - 50;

		if (k != 16)
			fst_event_add(events, "flip_queued", US(queued), "adapter_id", UINT64_C(0),
				      "source_id", UINT64_C(0), "process_id", UINT64_C(42),
				      "context_handle", UINT64_C(0x20), "flip_id", k, NULL);
		if (k == 18)
			fst_event_add(events, "flip_queued", US(1750), "adapter_id", UINT64_C(0),
				      "source_id", UINT64_C(0), "process_id", UINT64_C(42),
				      "context_handle", UINT64_C(0x20), "flip_id", UINT64_C(99),
				      NULL);
		if (k >= 18)
			flip = 0;
		fst_event_add(events, "vsync", US(100 * k), "adapter_id", UINT64_C(0), "source_id",
			      UINT64_C(0), "vsync_count", k, "flip_id", flip, "gpu_ts", US(100 * k),
			      NULL);
		if (flip)
			fst_event_add(events, "flip_done", US(100 * k) + 1000, "adapter_id",
				      UINT64_C(0), "source_id", UINT64_C(0), "flip_id", flip,
				      "vsync_count", k, NULL);
	}
	trace = fst_trace_from_events("frames-bucket", events);
	row = frames_row(trace);
	f = fsv_trace_get_row_frames(trace, row, &first, &n, &budget);
	cr_assert_eq(budget, 100000, "the vsync period");
	cr_assert_eq(fsv_frame_grade(&f[n - 1], budget), FSV_FRAME_PENDING);
	for (guint i = 0; i < n; i++)
		if (fsv_frame_grade(&f[i], budget) == FSV_FRAME_MISSED) {
			cr_assert_eq(missed, FSV_INDEX_NONE, "one frame misses a vsync");
			missed = i;
		}
	cr_assert_neq(missed, FSV_INDEX_NONE);
	cr_assert_lt(f[missed].draw_end_ns - f[missed].draw_begin_ns,
		     f[n - 1].draw_end_ns - f[n - 1].draw_begin_ns,
		     "the pending present's box is the longer one");
	cr_assert_eq(f[missed].draw_begin_ns >> 20, f[n - 1].draw_begin_ns >> 20,
		     "both begin in one 4^10 ns slot");

	view = fsv_view_new(trace);
	fsv_view_set_size(view, width, 600);
	fsv_view_set_label_width(view, 20);
	/* The trace begins at 50 µs: its 2 ms across about a pixel (a viewport, past the zoom-out
	 * limit). */
	fsv_view_set_viewport(view, &(FsvViewport){US(0) - 20000000, 0, 2000000.0});
	cr_assert_geq(fsv_view_get_ns_per_px(view), 1048576.0, "bucketed at level 10");
	cr_assert_lt(fsv_view_get_ns_per_px(view), 4194304.0);
	cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, 600);
	cr = cairo_create(surface);
	fsv_render_options_init(&options);
	fsv_render_draw(cr, trace, view, &options);
	cairo_surface_flush(surface);
	want = pixel_of(FSV_COLOR_FRAME_MISSED);
	{
		const guint32 *px = row_middle_pixels(surface, y, h);
		int x0 = (int) floor(fsv_view_time_to_x(view, f[missed].draw_begin_ns));
		int x1 = (int) floor(fsv_view_time_to_x(view, f[missed].draw_end_ns));

		for (int x = MAX(x0, 0); x <= MIN(x1, width - 1) && !is_red; x++)
			is_red = is_near(px[x], want);
	}
	cr_assert(is_red, "the missed frame's bucket is drawn red, not as the pending present");
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
}

/* ---- The index file ------------------------------------------------------------------------ */

Test(frames, frames_section_round_trips_and_a_damaged_one_is_refused)
{
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autofree char *file = g_build_filename(work, "trace.fsvi", NULL);
	g_autoptr(FsvTrace) mapped = NULL;
	GError *error = NULL;
	guint64 offset, count;

	cr_assert(fsv_index_save(built, "k", file, &error), "%s", error ? error->message : "");
	mapped = fsv_index_map(file, "k", fsv_trace_get_path(built), &error);
	cr_assert_not_null(mapped, "%s", error ? error->message : "");
	cr_assert_eq(fsv_trace_get_frame_count(mapped), fsv_trace_get_frame_count(built));
	for (guint32 i = 0; i < fsv_trace_get_frame_count(built); i++)
		cr_assert(memcmp(fsv_trace_get_frame(built, i), fsv_trace_get_frame(mapped, i),
				 sizeof(FsvFrame)) == 0,
			  "frame %u differs", i);
	for (guint32 r = 0; r < fsv_trace_get_row_count(built); r++) {
		guint32 fb, fm;
		guint nb, nm;
		guint64 bb, bm;

		fsv_trace_get_row_frames(built, r, &fb, &nb, &bb);
		fsv_trace_get_row_frames(mapped, r, &fm, &nm, &bm);
		cr_assert(fb == fm && nb == nm && bb == bm, "row %u frames differ", r);
	}
	/* A frame on a row that is no frames row, with its checksum recomputed. */
	cr_assert(_fsv_index_find_section(file, "FRMS", &offset, &count, NULL));
	cr_assert_gt(count, 0);
	{
		g_autofree char *data = NULL;
		gsize size;
		guint32 row = 0;

		cr_assert(g_file_get_contents(file, &data, &size, NULL));
		memcpy(data + offset + G_STRUCT_OFFSET(FsvFrame, row), &row, sizeof(row));
		cr_assert(g_file_set_contents(file, data, (gssize) size, NULL));
		cr_assert(_fsv_index_update_checksum(file, NULL));
	}
	cr_assert_null(fsv_index_map(file, "k", "x", &error));
	cr_assert_eq(error->code, FSV_TRACE_ERROR_INDEX);
	cr_assert(strstr(error->message, "frame out of bounds"), "%s", error->message);
	g_clear_error(&error);
}

Test(frames, loader_rebuilds_a_damaged_frames_section_with_the_same_frames)
{
	g_autofree char *trace_path = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autoptr(FsvTrace) built = load("frame-pipeline");
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) first =
	    fsv_trace_open(trace_path, FSV_OPEN_DEFAULT, NULL, NULL, NULL, &error);
	g_autoptr(FsvTrace) second = NULL;
	g_autofree char *cache = NULL;
	guint64 offset, count;
	guint runs;

	cr_assert_not_null(first, "%s", error ? error->message : "");
	runs = _fsv_loader_get_builder_runs();
	/* The builder process's frames are the in-process build's. */
	cr_assert_eq(fsv_trace_get_frame_count(first), fsv_trace_get_frame_count(built));
	for (guint32 i = 0; i < fsv_trace_get_frame_count(built); i++)
		cr_assert(memcmp(fsv_trace_get_frame(built, i), fsv_trace_get_frame(first, i),
				 sizeof(FsvFrame)) == 0);
	g_clear_pointer(&first, fsv_trace_unref);
	cache = fsv_index_cache_file(trace_path, &error);
	cr_assert_not_null(cache);
	cr_assert(_fsv_index_find_section(cache, "FRRW", &offset, &count, NULL));
	cr_assert_gt(count, 0);
	{
		g_autofree char *data = NULL;
		gsize size;
		guint32 lod = 0x7fffff00;

		cr_assert(g_file_get_contents(cache, &data, &size, NULL));
		memcpy(data + offset + G_STRUCT_OFFSET(FsvFrameRow, lod), &lod, sizeof(lod));
		cr_assert(g_file_set_contents(cache, data, (gssize) size, NULL));
		cr_assert(_fsv_index_update_checksum(cache, NULL));
	}
	second = fsv_trace_open(trace_path, FSV_OPEN_DEFAULT, NULL, NULL, NULL, &error);
	cr_assert_not_null(second, "%s", error ? error->message : "");
	cr_assert_eq(_fsv_loader_get_builder_runs(), runs + 1, "a damaged frames section was used");
	cr_assert_eq(fsv_trace_get_frame_count(second), fsv_trace_get_frame_count(built));
}

/* The viewer takes the report's --frame-budget (`fencescope view|render --frame-budget TIME`,
 * fsv_view_set_frame_budget()): drawn whole at 1600 px (frames 16 px wide), diff-slow's frames
 * that did not miss a vsync are amber exactly when the report, given the same budget, counts
 * them over it: none with the vsync period (its 43 over budget are the 43 missed ones), 56 more
 * with 12 ms (the report's 99), none with 20 ms. The label and the details say the budget. */
Test(frames, drawn_frames_are_graded_against_the_budget_given_as_the_report)
{
	g_autoptr(FsvTrace) trace = load("diff-slow");
	guint32 row = frames_row(trace), first;
	guint n;
	static const guint64 budgets[] = {0, 12000000, 20000000};
	guint32 amber = pixel_of(FSV_COLOR_FRAME_OVER);

	fsv_trace_get_row_frames(trace, row, &first, &n, NULL);
	for (guint b = 0; b < G_N_ELEMENTS(budgets); b++) {
		g_autoptr(FsvView) view = fsv_view_new(trace);
		JsonNode *root = report_json_budget("diff-slow", FSA_REPORT_FRAMES, 0, budgets[b]);
		JsonObject *t =
		    json_array_get_object_element(table(root, "frames", "frame_times"), 0);
		guint64 report_over = u64(t, "over_budget"), missed_over = 0, drawn_over = 0;
		cairo_surface_t *surface =
		    cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1600, 900);
		cairo_t *cr = cairo_create(surface);
		FsvRenderOptions options;
		FsvItem item = {FSV_ITEM_FRAME, first, row};
		g_auto(GStrv) fields = NULL;
		g_autofree char *sublabel = fsv_trace_dup_frames_sublabel(trace, row, budgets[b]);
		double y, h;

		fsv_view_set_size(view, 1600, 900);
		fsv_view_set_frame_budget(view, budgets[b]);
		fsv_view_fit(view);
		fsv_render_options_init(&options);
		fsv_render_draw(cr, trace, view, &options);
		cairo_surface_flush(surface);
		cr_assert(fsv_view_get_row_geometry(view, row, &y, &h));
		for (guint i = 0; i < n; i++) {
			const FsvFrame *f = fsv_trace_get_frame(trace, first + i);
			const guint32 *px = row_middle_pixels(surface, y, h);
			int x = (int) floor(fsv_view_time_to_x(
			    view, f->draw_begin_ns + (f->draw_end_ns - f->draw_begin_ns) / 2));

			if (f->is_pending || f->frame_time_ns == FSV_TIME_NONE)
				continue;
			if (f->missed_vsyncs > 0) {
				missed_over += fsv_frame_is_over_budget(f, budgets[b]);
				continue;
			}
			drawn_over += (px[x] & 0xffffff) == amber;
		}
		cr_assert_eq(drawn_over + missed_over, report_over,
			     "budget %" PRIu64 " ns: %" PRIu64 " amber + %" PRIu64
			     " missed over it, the report %" PRIu64,
			     budgets[b], drawn_over, missed_over, report_over);
		cr_assert_eq(drawn_over, budgets[b] == 12000000 ? 56 : 0);
		/* The row's second line and the details pane name the budget given, and say
		 * " · over" exactly for a frame over it. */
		if (budgets[b] == 0)
			cr_assert_null(sublabel);
		else
			cr_assert(sublabel && strstr(sublabel, "(given)"), "%s", sublabel);
		for (guint k = 0; k < n; k++) {
			const FsvFrame *f = fsv_trace_get_frame(trace, first + k);
			const char *budget_field = NULL;

			if (f->is_pending)
				continue;
			item.index = first + k;
			g_clear_pointer(&fields, g_strfreev);
			fields = fsv_trace_describe_item_with_links(trace, &item, budgets[b], NULL);
			for (guint i = 0; fields[i] && fields[i + 1]; i += 2)
				if (strcmp(fields[i], "Budget") == 0)
					budget_field = fields[i + 1];
			cr_assert_not_null(budget_field, "frame %u has no Budget field", k);
			cr_assert_eq(strstr(budget_field, "(given)") != NULL, budgets[b] != 0, "%s",
				     budget_field);
			cr_assert_eq(g_str_has_suffix(budget_field, " · over"),
				     fsv_frame_is_over_budget(f, budgets[b]), "frame %u: %s", k,
				     budget_field);
		}
		/* The row described: its second line, as drawn. */
		{
			FsvItem row_item = {FSV_ITEM_ROW, row, row};
			g_auto(GStrv) row_fields =
			    fsv_trace_describe_item_with_links(trace, &row_item, budgets[b], NULL);
			bool has_given = false;

			for (guint i = 0; row_fields[i] && row_fields[i + 1]; i += 2)
				has_given |= strstr(row_fields[i + 1], "(given)") != NULL;
			cr_assert_eq(has_given, budgets[b] != 0);
		}
		/* A newer trace of a live session keeps it (fsv_view_copy_state()). */
		{
			g_autoptr(FsvView) next = fsv_view_new(trace);

			fsv_view_copy_state(next, view);
			cr_assert_eq(fsv_view_get_frame_budget(next), budgets[b]);
		}
		json_node_unref(root);
		cairo_destroy(cr);
		cairo_surface_destroy(surface);
	}
}
