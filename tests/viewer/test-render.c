/* SPDX-License-Identifier: MIT */
/*
 * Rendered timelines (suite golden): `fencescope render` of each traces/NAME compared with
 * traces/NAME/expected.png (scripts/regen-renders) within a tolerance — at most 0.5% of the
 * pixels may differ by more than 48 in a channel, for font rasterization that varies between
 * machines — plus SVG and PDF output, the level-of-detail draw against a full draw, the
 * selection's dependency arrows, and the command's errors.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <cairo.h>
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "fsv-render.h"
#include "fsv-trace.h"
#include "fsv-view.h"

#define MAX_DIFF_FRACTION 0.005
#define CHANNEL_THRESHOLD 48

typedef struct {
	int status;
	char *err;
} Run;

static Run
run(const char *const *args)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	int wait_status = 0;
	Run r = {0};

	g_ptr_array_add(argv, (gpointer) FS_FENCESCOPE);
	for (size_t i = 0; args[i]; i++)
		g_ptr_array_add(argv, (gpointer) args[i]);
	g_ptr_array_add(argv, NULL);
	cr_assert(g_spawn_sync(NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
			       NULL, NULL, &r.err, &wait_status, &error),
		  "%s", error ? error->message : "");
	r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
	return r;
}

/* Fraction of pixels differing by more than CHANNEL_THRESHOLD in any channel. */
static double
diff_fraction(cairo_surface_t *a, cairo_surface_t *b)
{
	int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
	int sa = cairo_image_surface_get_stride(a), sb = cairo_image_surface_get_stride(b);
	const unsigned char *pa, *pb;
	long differ = 0;

	cairo_surface_flush(a);
	cairo_surface_flush(b);
	pa = cairo_image_surface_get_data(a);
	pb = cairo_image_surface_get_data(b);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int c = 0; c < 4; c++)
				if (abs(pa[y * sa + 4 * x + c] - pb[y * sb + 4 * x + c]) >
				    CHANNEL_THRESHOLD) {
					differ++;
					break;
				}
	return (double) differ / ((double) w * h);
}

static void
check_golden(const char *name)
{
	g_autofree char *trace = g_build_filename(FST_TRACES, name, NULL);
	g_autofree char *expected = g_build_filename(trace, "expected.png", NULL);
	g_autofree char *out = g_strdup_printf("%s/render-%s.png", FST_OUT_DIR, name);
	const char *args[] = {"render", trace, "-o", out, "-q", NULL};
	Run r = run(args);
	cairo_surface_t *got, *want;
	double frac;

	cr_assert_eq(r.status, 0, "fencescope render %s: %s", name, r.err);
	g_free(r.err);
	got = cairo_image_surface_create_from_png(out);
	want = cairo_image_surface_create_from_png(expected);
	cr_assert_eq(cairo_surface_status(got), CAIRO_STATUS_SUCCESS);
	cr_assert_eq(cairo_surface_status(want), CAIRO_STATUS_SUCCESS,
		     "%s: missing or unreadable; run scripts/regen-renders", expected);
	cr_assert_eq(cairo_image_surface_get_width(got), cairo_image_surface_get_width(want));
	cr_assert_eq(cairo_image_surface_get_height(got), cairo_image_surface_get_height(want),
		     "%s: the layout's height changed", name);
	frac = diff_fraction(got, want);
	cr_assert_leq(frac, MAX_DIFF_FRACTION,
		      "%s: %.3f%% of the pixels differ from %s (kept: %s); if the change is "
		      "deliberate, run scripts/regen-renders and review the images",
		      name, frac * 100, expected, out);
	cairo_surface_destroy(got);
	cairo_surface_destroy(want);
}

TestSuite(render);

Test(render, frame_pipeline_matches_reference)
{
	check_golden("frame-pipeline");
}

Test(render, log_overrun_matches_reference)
{
	check_golden("log-overrun");
}

Test(render, producer_consumer_matches_reference)
{
	check_golden("producer-consumer");
}

Test(render, cpu_waiters_matches_reference)
{
	check_golden("cpu-waiters");
}

Test(render, stress_matches_reference)
{
	check_golden("stress");
}

/* Issue 12: doorbell bands, ring ticks and victimization arrows (dedicated model, 6 queues on
 * 2 physical doorbells), and 32 queues on the global doorbell. */
Test(render, doorbell_pressure_matches_reference)
{
	check_golden("doorbell-pressure");
}

Test(render, doorbell_global_matches_reference)
{
	check_golden("doorbell-global");
}

/* Issue 10: a sim run recorded with plain lttng says in the drawing why its GPU times are not
 * placed, and its packets stay at their events. */
Test(render, sim_plain_lttng_matches_reference)
{
	check_golden("sim-plain-lttng");
}

/* Issue 10: a realtime recording draws its boxes where they ran, not across the whole trace. */
Test(render, realtime_producer_consumer_matches_reference)
{
	check_golden("realtime-producer-consumer");
}

/* Issue 13: preempted and resubmitted pieces, brackets by reason, TDR stages, contexts in error,
 * an adapter reset across its adapter's rows. traces/ gets these recordings (and their
 * reference renders) after the runtime that makes them is merged: until then the test says it
 * has nothing to compare. */
static void
check_golden_if_recorded(const char *name)
{
	g_autofree char *trace = g_build_filename(FST_TRACES, name, NULL);

	if (!g_file_test(trace, G_FILE_TEST_IS_DIR))
		cr_skip_test("traces/%s is not recorded yet", name);
	check_golden(name);
}

Test(render, priority_inversion_matches_reference)
{
	check_golden_if_recorded("priority-inversion");
}

Test(render, timeslice_mix_matches_reference)
{
	check_golden_if_recorded("timeslice-mix");
}

Test(render, tdr_hang_matches_reference)
{
	check_golden_if_recorded("tdr-hang");
}

Test(render, adapter_reset_matches_reference)
{
	check_golden_if_recorded("adapter-reset");
}

/* Issue 14: page faults on engine, queue and VA rows; VA mappings by page size; cross-adapter
 * fence rows under both adapters with their propagation arrows. Skipped until traces/ has
 * them, as above. */
Test(render, page_fault_matches_reference)
{
	check_golden_if_recorded("page-fault");
}

Test(render, mapping_churn_matches_reference)
{
	check_golden_if_recorded("mapping-churn");
}

Test(render, cross_adapter_matches_reference)
{
	check_golden_if_recorded("cross-adapter");
}

Test(render, cross_adapter_2a_matches_reference)
{
	check_golden_if_recorded("cross-adapter-2a");
}

Test(render, cross_adapter_2b_matches_reference)
{
	check_golden_if_recorded("cross-adapter-2b");
}

static void
check_magic(const char *ext, const char *magic)
{
	g_autofree char *trace = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autofree char *out = g_strdup_printf("%s/render-frame-pipeline.%s", FST_OUT_DIR, ext);
	const char *args[] = {"render",  trace,   "-o",    out,     "--width", "1200",
			      "--begin", "+10ms", "--end", "+60ms", "-q",      NULL};
	g_autofree char *data = NULL;
	gsize len = 0;
	Run r = run(args);

	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	cr_assert(g_file_get_contents(out, &data, &len, NULL));
	cr_assert_gt(len, 1000);
	cr_assert(strncmp(data, magic, strlen(magic)) == 0, "%s does not start with %s", out,
		  magic);
}

Test(render, svg_and_pdf_are_written)
{
	check_magic("svg", "<?xml");
	check_magic("pdf", "%PDF");
}

static cairo_surface_t *
draw(FsvTrace *trace, const FsvView *view, const FsvRenderOptions *o)
{
	cairo_surface_t *s = cairo_image_surface_create(
	    CAIRO_FORMAT_ARGB32, fsv_view_get_width(view), fsv_view_get_height(view));
	cairo_t *cr = cairo_create(s);

	fsv_render_draw(cr, trace, view, o);
	cairo_destroy(cr);
	return s;
}

Test(render, level_of_detail_draws_what_a_full_draw_draws)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "stress", NULL);
	g_autoptr(FsvTrace) trace = fsv_trace_load(path, NULL, NULL, NULL, NULL);
	g_autoptr(FsvView) view = NULL;
	FsvRenderOptions lod, full;

	cr_assert_not_null(trace);
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 800, 700);
	fsv_render_options_init(&lod);
	lod.show_legend = false;
	full = lod;
	full.no_lod = true;
	/* Whole trace (buckets in use) and two zooms. */
	for (int z = 0; z < 3; z++) {
		cairo_surface_t *a, *b;
		double frac;

		if (z > 0)
			fsv_view_zoom(view, z == 1 ? 8 : 200, 500);
		a = draw(trace, view, &lod);
		b = draw(trace, view, &full);
		frac = diff_fraction(a, b);
		cr_assert_leq(frac, 0.02, "zoom %d: LOD and full draws differ on %.2f%%", z,
			      frac * 100);
		cairo_surface_destroy(a);
		cairo_surface_destroy(b);
	}
}

static long
count_color(cairo_surface_t *s, int r, int g, int b)
{
	int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *p;
	long n = 0;

	cairo_surface_flush(s);
	p = cairo_image_surface_get_data(s);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			const unsigned char *px = p + y * stride + 4 * x; /* BGRA */

			n += abs(px[2] - r) < 20 && abs(px[1] - g) < 20 && abs(px[0] - b) < 20;
		}
	return n;
}

Test(render, selected_signal_draws_arrows_to_its_waits)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autoptr(FsvTrace) trace = fsv_trace_load(path, NULL, NULL, NULL, NULL);
	g_autoptr(FsvView) view = NULL;
	FsvRenderOptions o;
	guint32 signal = FSV_INDEX_NONE;
	cairo_surface_t *plain, *selected;
	double rgb[3];
	int r, g, b;

	cr_assert_not_null(trace);
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace) && signal == FSV_INDEX_NONE; i++) {
		guint n = 0;

		fsv_trace_get_op_edges(trace, i, &n);
		if (fsv_trace_get_op(trace, i)->kind == FSA_OP_SIGNAL && n > 0)
			signal = i;
	}
	cr_assert_neq(signal, FSV_INDEX_NONE);
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1200, 600);
	{
		const FsvOp *s = fsv_trace_get_op(trace, signal);
		guint n = 0;
		const guint32 *w = fsv_trace_get_op_edges(trace, signal, &n);
		guint64 b0 = s->begin_ns, e0 = fsv_trace_get_op(trace, w[0])->end_ns;

		fsv_view_set_range(view, MIN(b0, e0) - 100000, MAX(s->end_ns, e0) + 100000);
	}
	fsv_render_options_init(&o);
	o.show_legend = false;
	plain = draw(trace, view, &o);
	o.selection = (FsvItem){FSV_ITEM_OP, signal, fsv_trace_get_op(trace, signal)->row};
	selected = draw(trace, view, &o);
	fsv_render_get_color(FSV_COLOR_ARROW, rgb);
	r = (int) (rgb[0] * 255 + 0.5);
	g = (int) (rgb[1] * 255 + 0.5);
	b = (int) (rgb[2] * 255 + 0.5);
	cr_assert_gt(count_color(selected, r, g, b), count_color(plain, r, g, b) + 40,
		     "the selection adds arrow-coloured pixels");
	cairo_surface_destroy(plain);
	cairo_surface_destroy(selected);
}

/* Dark (text) pixels in [x0, x1) × [y0, y1). */
static long
count_label_pixels(cairo_surface_t *s, int x0, int x1, int y0, int y1)
{
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *p;
	long n = 0;

	cairo_surface_flush(s);
	p = cairo_image_surface_get_data(s);
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++) {
			const unsigned char *px = p + y * stride + 4 * x; /* BGRA */

			n += px[2] < 160 && px[1] < 160 && px[0] < 160;
		}
	return n;
}

/* A major tick 10 px from the right edge: its label would not fit, and a cut label ("+2.0"
 * for "+2.0 s", or a bare "+") reads as another value, so none is drawn there. */
Test(render, ruler_draws_no_label_the_right_edge_would_cut)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autoptr(FsvTrace) trace = fsv_trace_load(path, NULL, NULL, NULL, NULL);
	g_autoptr(FsvView) view = NULL;
	FsvRenderOptions o;
	cairo_surface_t *s;
	guint64 base;
	int rh;

	cr_assert_not_null(trace);
	base = fsv_trace_get_begin_ns(trace);
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 300);
	/* 1000 ns per pixel: a major tick every 100 µs = 100 px; the one at +2 ms lands on
	 * x = 240 + 1350 = 1590. */
	fsv_view_set_range(view, base + 650000, base + 650000 + 1360 * 1000);
	cr_assert_float_eq(fsv_view_time_to_x(view, base + 2000000), 1590, 1e-6);
	fsv_render_options_init(&o);
	o.show_legend = false;
	o.show_ruler_grid = false;
	s = draw(trace, view, &o);
	rh = fsv_view_get_ruler_height(view);
	/* The tick at 1590 is drawn; the label text would start at 1593. */
	cr_assert_gt(count_label_pixels(s, 1500, 1580, rh - 24, rh - 11), 0,
		     "the label of the tick at 1490 is drawn");
	cr_assert_eq(count_label_pixels(s, 1592, 1600, rh - 24, rh - 11), 0,
		     "a cut label is drawn at the right edge");
	cairo_surface_destroy(s);
}

static void
check_error(const char *const *args, int status, const char *needle)
{
	Run r = run(args);

	cr_assert_eq(r.status, status, "exit %d, wanted %d: %s", r.status, status, r.err);
	cr_assert(g_str_has_prefix(r.err, "fencescope render: "), "%s", r.err);
	cr_assert(strstr(r.err, needle), "'%s' not in: %s", needle, r.err);
	cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
	g_free(r.err);
}

Test(render, bad_input_is_a_one_line_error)
{
	g_autofree char *trace = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autofree char *out = g_strdup_printf("%s/render-error.png", FST_OUT_DIR);
	const char *missing[] = {"render", "/nonexistent/trace", "-o", out, NULL};
	const char *ext[] = {"render", trace, "-o", "out.gif", NULL};
	const char *no_out[] = {"render", trace, NULL};
	const char *order[] = {"render", trace,   "-o",   out, "--begin",
			       "+5ms",   "--end", "+1ms", NULL};
	const char *bad_time[] = {"render", trace, "-o", out, "--begin", "soon", NULL};
	const char *unwritable[] = {"render", trace, "-o", "/nonexistent/dir/x.png", NULL};
	const char *bad_op[] = {"render", trace, "-o", out, "--select-op", "999999999", NULL};

	check_error(missing, 2, "/nonexistent/trace");
	check_error(ext, 2, ".png, .svg or .pdf");
	check_error(no_out, 2, "-o FILE");
	check_error(order, 2, "--end must be after --begin");
	check_error(bad_time, 2, "--begin soon");
	check_error(unwritable, 4, "/nonexistent/dir/x.png");
	check_error(bad_op, 2, "no such op");
}

/* Options that once drew something else than asked, or blamed an option not given: a
 * +DURATION past the end of time wrapped around to an early time (exit 0), a negative op id
 * was silently ignored, and a --begin after the trace's end alone said '--end must be after
 * --begin'. */
Test(render, out_of_range_options_are_refused_by_name)
{
	g_autofree char *trace = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autofree char *out = g_strdup_printf("%s/render-range.png", FST_OUT_DIR);
	const char *wrap[] = {"render", trace,           "-o", out, "--begin", "+18000000000s",
			      "--end",  "+18000000001s", NULL};
	const char *wrap_end[] = {"render", trace, "-o", out, "--end", "+18000000000s", NULL};
	const char *negative_op[] = {"render", trace, "-o", out, "--select-op", "-5", NULL};
	const char *late_begin[] = {"render", trace, "-o", out, "--begin", "+3s", NULL};
	const char *early_end[] = {"render", trace, "-o", out, "--end", "5", NULL};
	const char *fine[] = {"render", trace, "-o", out, "-q", "--begin", "+1s", NULL};
	const char *zero_budget[] = {"render", trace, "-o", out, "--frame-budget", "0", NULL};
	const char *bad_budget[] = {"render", trace, "-o", out, "--frame-budget", "2parsecs", NULL};
	Run r;

	check_error(wrap, 2, "--begin +18000000000s: too far after the trace's start");
	check_error(wrap_end, 2, "--end +18000000000s: too far after the trace's start");
	check_error(negative_op, 2, "--select-op -5: an op id is not negative");
	check_error(late_begin, 2, "--begin +3s: at or after the trace's end");
	check_error(early_end, 2, "--end 5: at or before the trace's start");
	check_error(zero_budget, 2, "--frame-budget 0: takes a duration above 0");
	check_error(bad_budget, 2, "--frame-budget 2parsecs: ");
	r = run(fine);
	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
}

/* `fencescope view --frame-budget` is checked, as the report checks it, before the viewer is
 * started: a bad one is one line and exit status 2, with no display needed. */
Test(render, view_refuses_a_bad_frame_budget_before_starting_the_viewer)
{
	g_autofree char *trace = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	static const char *const bad[][2] = {{"0", "takes a duration above 0"},
					     {"2parsecs", "unknown unit"},
					     {"-5ms", "not a duration"}};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		const char *args[] = {"view", "--frame-budget", bad[i][0], trace, NULL};
		Run r = run(args);

		cr_assert_eq(r.status, 2, "--frame-budget %s: exit %d: %s", bad[i][0], r.status,
			     r.err);
		cr_assert(g_str_has_prefix(r.err, "fencescope view: --frame-budget "), "%s", r.err);
		cr_assert(strstr(r.err, bad[i][1]), "'%s' not in: %s", bad[i][1], r.err);
		cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
		g_free(r.err);
	}
}

/* `fencescope render --frame-budget 12ms` grades diff-slow's frames against 12 ms: 56 frames
 * that are on time against the display's 16.7 ms turn amber, so the two images differ (what
 * each frame is drawn as: test-frames.c). */
Test(render, frame_budget_changes_the_frames_drawn)
{
	g_autofree char *trace = g_build_filename(FST_TRACES, "diff-slow", NULL);
	g_autofree char *plain = g_strdup_printf("%s/render-budget-none.png", FST_OUT_DIR);
	g_autofree char *given = g_strdup_printf("%s/render-budget-12ms.png", FST_OUT_DIR);
	const char *args_plain[] = {"render", trace, "-q", "-o", plain, NULL};
	const char *args_given[] = {"render", trace, "-q",  "--frame-budget",
				    "12ms",   "-o",  given, NULL};
	cairo_surface_t *a, *b;
	Run r;

	r = run(args_plain);
	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	r = run(args_given);
	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	a = cairo_image_surface_create_from_png(plain);
	b = cairo_image_surface_create_from_png(given);
	cr_assert_eq(cairo_surface_status(a), CAIRO_STATUS_SUCCESS);
	cr_assert_eq(cairo_surface_status(b), CAIRO_STATUS_SUCCESS);
	cr_assert_gt(diff_fraction(a, b), 0.0005, "the budget changed nothing drawn");
	cairo_surface_destroy(a);
	cairo_surface_destroy(b);
	g_unlink(plain);
	g_unlink(given);
}

/* Regression: the report wrote "13.05 ms" where the viewer's details pane wrote "13.049 ms"
 * (and "1.23 us" against "1.230 µs"): one formatter (fsa/duration.h) now writes both. The
 * longest wait of frame-pipeline (row 1 of the text report, whose last column is its op id) is
 * checked against the viewer. */
Test(render, report_and_viewer_write_a_duration_the_same_way)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *path = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autoptr(FsvTrace) t = fsv_trace_load(path, NULL, NULL, NULL, &error);
	g_autofree char *out = NULL, *text = NULL, *cmd = NULL;
	const FsvOp *op;
	guint32 index;
	int status = -1;

	cr_assert_not_null(t, "%s", error ? error->message : "");
	/* --wide: one line per row, the op id last on row 1's line. */
	cmd = g_strdup_printf("'%s' report --wide -s longest '%s'", FS_FENCESCOPE, path);
	cr_assert(g_spawn_command_line_sync(cmd, &out, NULL, &status, NULL));
	cr_assert(g_spawn_check_wait_status(status, NULL));
	/* Row 1 of "Longest waits": "   1 DURATION user_mode … OP". */
	const char *first = strstr(out, "\n   1 ");
	cr_assert_not_null(first, "no row 1 in:\n%s", out);
	const char *eol = strchr(first + 1, '\n');
	g_autofree char *line =
	    eol ? g_strndup(first + 1, (gsize) (eol - first - 1)) : g_strdup(first + 1);
	const char *last = strrchr(g_strchomp(line), ' ');
	cr_assert_not_null(last);
	guint64 op_id = g_ascii_strtoull(last + 1, NULL, 10);
	cr_assert_gt(op_id, 0, "row 1: %s", line);
	index = fsv_trace_find_op_by_id(t, op_id);
	cr_assert_neq(index, FSV_INDEX_NONE);
	op = fsv_trace_get_op(t, index);
	text = fsv_format_duration(op->op_end_ns - op->queued_ns);
	g_autofree char *row = g_strdup_printf("\n   1 %s ", text);
	cr_expect(strstr(out, row), "the viewer's \"%s\" is not the report's:\n%s", text, out);
}

/* docs/viewer.md "Lanes" through the command: cpu-waiters queues 256 signals at once on one
 * queue. Collapsed, its row is six lanes high; `--expand-lanes` shows all of them; selecting
 * an op of the aggregated slot expands its row so that the op is seen in its own lane, drawn
 * on top with the selection's outline. */
static int
png_height(const char *path)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png(path);
	int h;

	cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "%s", path);
	h = cairo_image_surface_get_height(s);
	cairo_surface_destroy(s);
	return h;
}

Test(render, deep_rows_expand_on_request_and_for_the_selected_op)
{
	g_autofree char *trace_path = g_build_filename(FST_TRACES, "cpu-waiters", NULL);
	g_autoptr(FsvTrace) trace = fsv_trace_load(trace_path, NULL, NULL, NULL, NULL);
	g_autofree char *collapsed = g_strdup_printf("%s/render-lanes-collapsed.png", FST_OUT_DIR);
	g_autofree char *expanded = g_strdup_printf("%s/render-lanes-expanded.png", FST_OUT_DIR);
	g_autofree char *selected = g_strdup_printf("%s/render-lanes-selected.png", FST_OUT_DIR);
	g_autofree char *id = NULL;
	guint32 deep = FSV_INDEX_NONE;
	const FsvOp *op;
	const char *plain[] = {"render", trace_path, "-o", collapsed, "-q", NULL};
	const char *all[] = {"render", trace_path, "-o", expanded, "--expand-lanes", "-q", NULL};
	Run r;

	cr_assert_not_null(trace);
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace) && deep == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_op(trace, i)->lane == 100)
			deep = i;
	cr_assert_neq(deep, FSV_INDEX_NONE, "an op in lane 100");
	op = fsv_trace_get_op(trace, deep);
	id = g_strdup_printf("%" G_GUINT64_FORMAT, op->id);
	r = run(plain);
	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	r = run(all);
	cr_assert_eq(r.status, 0, "%s", r.err);
	g_free(r.err);
	/* Up to the 4000 px a default height stops at. */
	cr_assert_geq(png_height(expanded),
		      MIN(4000, png_height(collapsed) +
				    (int) (fsv_trace_get_row(trace, op->row)->lane_count - 6) * 16),
		      "every lane of the deep row is drawn");
	{
		const char *sel[] = {"render",      trace_path, "-o", selected,
				     "--select-op", id,         "-q", NULL};
		g_autoptr(FsvView) view = fsv_view_new(trace);
		FsvItem item = {FSV_ITEM_OP, deep, op->row};
		cairo_surface_t *s;
		double x0, y, h;

		r = run(sel);
		cr_assert_eq(r.status, 0, "%s", r.err);
		g_free(r.err);
		cr_assert_gt(png_height(selected), png_height(collapsed), "its row expanded");
		/* Where the command drew it: the same view, revealed, at the same size. */
		cr_assert(fsv_view_reveal_item(view, &item));
		fsv_view_set_size(view, 1600, png_height(selected));
		fsv_view_fit(view);
		cr_assert(fsv_view_get_lane_geometry(view, op->row, op->lane, &y, &h));
		x0 = fsv_view_time_to_x(view, op->begin_ns);
		s = cairo_image_surface_create_from_png(selected);
		/* The outline's top edge in the selection colour (#1e66f5) just above the box. */
		{
			int stride = cairo_image_surface_get_stride(s);
			const unsigned char *p = cairo_image_surface_get_data(s);
			int blue = 0;

			for (int x = (int) x0 + 2; x < (int) x0 + 12; x++) {
				const unsigned char *px = p + (int) (y - 2) * stride + 4 * x;

				blue += abs(px[2] - 0x1e) < 40 && abs(px[1] - 0x66) < 40 &&
					abs(px[0] - 0xf5) < 40;
			}
			cr_assert_gt(blue, 5, "the selected op is outlined in its own lane");
		}
		cairo_surface_destroy(s);
	}
}
