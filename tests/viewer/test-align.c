/* SPDX-License-Identifier: MIT */
/*
 * A comparison's shared time mapping (viewer/core/fsv-align.h, suite unit, no display) over
 * traces/diff-base and traces/diff-slow, the two runs of one scenario `fencescope diff` compares:
 * `--align BASE=NEW` read and refused in one line, resolved against each trace (times as --at
 * takes them, op:ID), the offset's saturation, and the property the compare pane rests on: a
 * view of NEW given BASE's viewport moved by the offset draws every time t of BASE and t +
 * offset of NEW at the same x, after any zoom or pan of either; the union extent makes F fit
 * both traces.
 */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gio/gio.h>

#include "fsv-align.h"
#include "fsv-frames.h"
#include "fsv-trace.h"
#include "fsv-view.h"

static FsvTrace *base, *slow;

static FsvTrace *
load_trace(const char *name)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	g_autoptr(GError) error = NULL;
	FsvTrace *trace = fsv_trace_load(path, NULL, NULL, NULL, &error);

	cr_assert_not_null(trace, "%s: %s", name, error ? error->message : "");
	return trace;
}

static void
load(void)
{
	base = load_trace("diff-base");
	slow = load_trace("diff-slow");
}

static void
unload(void)
{
	g_clear_pointer(&base, fsv_trace_unref);
	g_clear_pointer(&slow, fsv_trace_unref);
}

TestSuite(align, .init = load, .fini = unload, .timeout = 120);

/* The refusal of TEXT (one line); transfer full. */
static char *
refusal(const char *text)
{
	FsvAlignSpec spec;
	GError *error = NULL;
	char *message;

	cr_assert_not(fsv_align_parse(text, &spec, &error), "'%s' accepted", text);
	cr_assert(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT));
	cr_assert_null(strchr(error->message, '\n'), "one line: %s", error->message);
	message = g_strdup(error->message);
	g_error_free(error);
	return message;
}

Test(align, align_reads_times_as_at_does_and_op_ids)
{
	FsvAlignSpec spec;
	g_autoptr(GError) error = NULL;

	cr_assert(fsv_align_parse("+1.5ms=+2 ms", &spec, &error), "%s",
		  error ? error->message : "");
	cr_assert_eq(spec.base_point.kind, FSV_ALIGN_POINT_TIME);
	cr_assert(spec.base_point.time.is_relative);
	cr_assert_eq(spec.base_point.time.ns, 1500000);
	cr_assert_eq(spec.new_point.kind, FSV_ALIGN_POINT_TIME);
	cr_assert_eq(spec.new_point.time.ns, 2000000);
	fsv_align_spec_clear(&spec);

	cr_assert(fsv_align_parse("op:12=op:15", &spec, &error));
	cr_assert_eq(spec.base_point.kind, FSV_ALIGN_POINT_OP);
	cr_assert_eq(spec.base_point.op_id, 12);
	cr_assert_eq(spec.new_point.kind, FSV_ALIGN_POINT_OP);
	cr_assert_eq(spec.new_point.op_id, 15);
	cr_assert_str_eq(spec.new_point.text, "op:15");
	fsv_align_spec_clear(&spec);

	/* Absolute trace ns on one side, an op on the other. */
	cr_assert(fsv_align_parse("1795455649123456789=op:3", &spec, &error));
	cr_assert_not(spec.base_point.time.is_relative);
	cr_assert_eq(spec.base_point.time.ns, G_GUINT64_CONSTANT(1795455649123456789));
	fsv_align_spec_clear(&spec);
}

Test(align, align_that_is_no_pair_of_points_is_refused_in_one_line_naming_the_side)
{
	g_autofree char *no_equal = refusal("+1ms");
	g_autofree char *two_equals = refusal("+1ms=+2ms=+3ms");
	g_autofree char *no_base = refusal("=+2ms");
	g_autofree char *bad_op = refusal("op:x=+2ms");
	g_autofree char *bad_new = refusal("+1ms=banana");

	cr_assert_not_null(strstr(no_equal, "BASE_TIME=NEW_TIME"), "%s", no_equal);
	cr_assert_not_null(strstr(two_equals, "BASE_TIME=NEW_TIME"), "%s", two_equals);
	cr_assert_not_null(strstr(no_base, "BASE is missing"), "%s", no_base);
	cr_assert_not_null(strstr(bad_op, "BASE 'op:x': not an op id"), "%s", bad_op);
	cr_assert(g_str_has_prefix(bad_new, "NEW: "), "%s", bad_new);
}

Test(align, resolving_gives_new_time_minus_base_time)
{
	FsvAlignSpec spec;
	g_autoptr(GError) error = NULL;
	gint64 offset = 0;
	const FsvOp *op3, *op5;

	/* Relative times: each from its own trace's start. */
	cr_assert(fsv_align_parse("+1ms=+3ms", &spec, NULL));
	cr_assert(fsv_align_resolve(&spec, base, slow, &offset, &error), "%s",
		  error ? error->message : "");
	cr_assert_eq(offset, fsv_align_starts(base, slow) + 2000000);
	fsv_align_spec_clear(&spec);

	/* Op ids: each op's start. */
	op3 = fsv_trace_get_op(base, fsv_trace_find_op_by_id(base, 3));
	op5 = fsv_trace_get_op(slow, fsv_trace_find_op_by_id(slow, 5));
	cr_assert(fsv_align_parse("op:3=op:5", &spec, NULL));
	cr_assert(fsv_align_resolve(&spec, base, slow, &offset, &error));
	cr_assert_eq(offset, (gint64) op5->begin_ns - (gint64) op3->begin_ns);
	fsv_align_spec_clear(&spec);
}

Test(align, an_op_or_time_the_trace_lacks_is_refused_naming_the_side)
{
	FsvAlignSpec spec;
	g_autoptr(GError) op_error = NULL;
	g_autoptr(GError) time_error = NULL;
	gint64 offset = 77;

	cr_assert(fsv_align_parse("op:3=op:999999999", &spec, NULL));
	cr_assert_not(fsv_align_resolve(&spec, base, slow, &offset, &op_error));
	cr_assert_eq(offset, 77);
	cr_assert_not_null(
	    strstr(op_error->message, "NEW op:999999999: diff-slow has no operation"), "%s",
	    op_error->message);
	fsv_align_spec_clear(&spec);

	cr_assert(fsv_align_parse("+1000s=+1ms", &spec, NULL));
	cr_assert_not(fsv_align_resolve(&spec, base, slow, &offset, &time_error));
	cr_assert(g_str_has_prefix(time_error->message, "BASE: '+1000s' is outside the trace"),
		  "%s", time_error->message);
	fsv_align_spec_clear(&spec);
}

/* `frame:N` aligns frame number N's start (its box's left edge, fsv_align_frame_ns(): the vsync
 * before it); a frame the trace lacks, or a number that is none, is refused naming the side. */
Test(align, frame_numbers_align_the_frames_starts)
{
	FsvAlignSpec spec;
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) lack_error = NULL;
	g_autofree char *bad = refusal("frame:x=frame:2");
	guint32 f3 = fsv_trace_find_frame(base, 3), f5 = fsv_trace_find_frame(slow, 5);
	gint64 offset = 0;

	cr_assert_neq(f3, FSV_INDEX_NONE);
	cr_assert_neq(f5, FSV_INDEX_NONE);
	cr_assert(fsv_align_parse("frame:3=frame:5", &spec, &error), "%s",
		  error ? error->message : "");
	cr_assert_eq(spec.base_point.kind, FSV_ALIGN_POINT_FRAME);
	cr_assert_eq(spec.new_point.kind, FSV_ALIGN_POINT_FRAME);
	cr_assert(fsv_align_resolve(&spec, base, slow, &offset, &error), "%s",
		  error ? error->message : "");
	cr_assert_eq(fsv_align_frame_ns(base, f3), fsv_trace_get_frame(base, f3)->draw_begin_ns);
	cr_assert_eq(offset, (gint64) fsv_trace_get_frame(slow, f5)->draw_begin_ns -
				 (gint64) fsv_trace_get_frame(base, f3)->draw_begin_ns);
	fsv_align_spec_clear(&spec);

	cr_assert(fsv_align_parse("frame:3=frame:999999", &spec, NULL));
	cr_assert_not(fsv_align_resolve(&spec, base, slow, &offset, &lack_error));
	cr_assert_not_null(strstr(lack_error->message, "NEW frame:999999: diff-slow has no frame"),
			   "%s", lack_error->message);
	fsv_align_spec_clear(&spec);
	cr_assert_not_null(strstr(bad, "BASE 'frame:x': not a frame number"), "%s", bad);
}

Test(align, offsets_and_shifts_saturate_instead_of_wrapping)
{
	cr_assert_eq(fsv_align_offset(10, 25), 15);
	cr_assert_eq(fsv_align_offset(25, 10), -15);
	cr_assert_eq(fsv_align_offset(0, UINT64_MAX), G_MAXINT64);
	cr_assert_eq(fsv_align_offset(UINT64_MAX, 0), -G_MAXINT64);
	cr_assert_eq(fsv_align_shift(100, -30), 70);
	cr_assert_eq(fsv_align_shift(100, -300), 0);
	cr_assert_eq(fsv_align_shift(UINT64_MAX - 10, 100), UINT64_MAX - 1);
	cr_assert_eq(fsv_align_shift(fsv_align_shift(12345, 678), -678), 12345);
}

/* Every 97th pixel: the x of a BASE time and of that time + OFFSET in NEW's view agree. */
static void
assert_same_x(const FsvView *base_view, const FsvView *new_view, gint64 offset)
{
	for (double x = fsv_view_get_label_width(base_view); x < fsv_view_get_width(base_view);
	     x += 97) {
		guint64 t = fsv_view_x_to_time(base_view, x);
		double bx = fsv_view_time_to_x(base_view, t);
		double nx = fsv_view_time_to_x(new_view, fsv_align_shift(t, offset));

		cr_assert_float_eq(bx, nx, 1e-6, "t %" G_GUINT64_FORMAT ": base x %g, new x %g", t,
				   bx, nx);
	}
	cr_assert_eq(fsv_view_get_ns_per_px(base_view), fsv_view_get_ns_per_px(new_view));
}

Test(align, a_view_given_the_other_views_viewport_draws_aligned_times_at_the_same_x)
{
	g_autoptr(FsvView) base_view = fsv_view_new(base);
	g_autoptr(FsvView) new_view = fsv_view_new(slow);
	const FsvOp *op3 = fsv_trace_get_op(base, fsv_trace_find_op_by_id(base, 3));
	const FsvOp *op5 = fsv_trace_get_op(slow, fsv_trace_find_op_by_id(slow, 5));
	gint64 offset = fsv_align_offset(op3->begin_ns, op5->begin_ns);
	FsvViewport viewport, shifted, back;

	fsv_view_set_size(base_view, 1600, 700);
	fsv_view_set_size(new_view, 1600, 700);
	/* Deep zooms (a fraction of a ns per pixel) and pans by fractions of a pixel: the
	 * fraction of the left edge must travel with the offset. */
	fsv_view_zoom(base_view, 3000.0, 900.5);
	fsv_view_pan(base_view, 123.37);
	for (int step = 0; step < 4; step++) {
		fsv_view_get_viewport(base_view, &viewport);
		fsv_align_viewport(&viewport, offset, &shifted);
		fsv_view_set_viewport(new_view, &shifted);
		assert_same_x(base_view, new_view, offset);
		/* Both selected ops' starts at one x. */
		cr_assert_float_eq(fsv_view_time_to_x(base_view, op3->begin_ns),
				   fsv_view_time_to_x(new_view, op5->begin_ns), 1e-6);
		fsv_view_zoom(base_view, step % 2 ? 7.5 : 1.0 / 3.0, 400.25 + step);
		fsv_view_pan(base_view, -57.5 * step);
	}
	/* The other way: NEW moved, BASE given NEW's viewport moved back. */
	fsv_view_zoom(new_view, 40.0, 1000.0);
	fsv_view_pan(new_view, 0.3);
	fsv_view_get_viewport(new_view, &viewport);
	fsv_align_viewport(&viewport, -offset, &back);
	fsv_view_set_viewport(base_view, &back);
	assert_same_x(base_view, new_view, offset);
}

Test(align, a_following_view_is_not_held_by_its_own_zoom_out_limit)
{
	g_autoptr(FsvView) base_view = fsv_view_new(base);
	g_autoptr(FsvView) new_view = fsv_view_new(slow);
	FsvViewport viewport, shifted;

	/* diff-slow lasts longer than diff-base: BASE zoomed out as far as NEW's span allows is
	 * past BASE's own limit, and must still be followed exactly. */
	fsv_view_set_size(base_view, 1200, 600);
	fsv_view_set_size(new_view, 1200, 600);
	fsv_view_zoom(new_view, 1e-9, 700);
	fsv_view_get_viewport(new_view, &viewport);
	fsv_align_viewport(&viewport, -fsv_align_starts(base, slow), &shifted);
	fsv_view_set_viewport(base_view, &shifted);
	cr_assert_eq(fsv_view_get_ns_per_px(base_view), fsv_view_get_ns_per_px(new_view));
	assert_same_x(base_view, new_view, fsv_align_starts(base, slow));
}

Test(align, the_union_extent_makes_fit_show_both_traces_whole)
{
	g_autoptr(FsvView) base_view = fsv_view_new(base);
	g_autoptr(FsvView) new_view = fsv_view_new(slow);
	/* NEW_time = BASE_time + offset: NEW's start lies 5 ms before BASE's. */
	gint64 offset = fsv_align_starts(base, slow) + 5000000;
	guint64 begin, end;

	cr_assert_gt(fsv_trace_get_end_ns(slow) - fsv_trace_get_begin_ns(slow),
		     fsv_trace_get_end_ns(base) - fsv_trace_get_begin_ns(base));
	fsv_align_union(base, slow, offset, &begin, &end);
	cr_assert_eq(begin, fsv_trace_get_begin_ns(base) - 5000000);
	cr_assert_eq(end, fsv_align_shift(fsv_trace_get_end_ns(slow), -offset));
	fsv_view_set_size(base_view, 1500, 600);
	fsv_view_set_size(new_view, 1500, 600);
	fsv_view_set_extent(base_view, begin, end);
	fsv_view_set_extent(new_view, fsv_align_shift(begin, offset), fsv_align_shift(end, offset));
	fsv_view_fit(base_view);
	fsv_view_fit(new_view);
	/* Each shows the union, and both the same span at the same scale. */
	cr_assert_leq(fsv_view_get_begin_ns(base_view), begin);
	cr_assert_geq(fsv_view_get_end_ns(base_view), end);
	cr_assert_leq(fsv_view_get_begin_ns(new_view), fsv_trace_get_begin_ns(slow));
	cr_assert_geq(fsv_view_get_end_ns(new_view), fsv_trace_get_end_ns(slow));
	cr_assert_float_eq(fsv_view_get_ns_per_px(base_view), fsv_view_get_ns_per_px(new_view),
			   1e-9 * fsv_view_get_ns_per_px(base_view));
	/* Back to the trace's own span. */
	fsv_view_set_extent(base_view, 0, 0);
	fsv_view_fit(base_view);
	cr_assert_lt(fsv_view_get_end_ns(base_view) - fsv_view_get_begin_ns(base_view),
		     end - begin);
}

Test(align, the_offset_reads_with_its_sign_in_the_viewers_units)
{
	g_autofree char *zero = fsv_align_format_offset(0);
	g_autofree char *later = fsv_align_format_offset(1500000);
	g_autofree char *earlier = fsv_align_format_offset(-250000);

	cr_assert_str_eq(zero, "0 ns");
	cr_assert(g_str_has_prefix(later, "+1.5"), "%s", later);
	cr_assert(g_str_has_suffix(later, "ms"), "%s", later);
	cr_assert(g_str_has_prefix(earlier, "−250"), "%s", earlier);
}
