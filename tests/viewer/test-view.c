/* SPDX-License-Identifier: MIT */
/*
 * viewer/core FsvTrace and FsvView over the sample traces (suite unit): the index holds what
 * the analyzer reported, rows are laid out contiguously and collapse, time ↔ pixel mapping
 * round-trips and zooms about the pointer, hit testing finds the box drawn under a point, edges
 * go both ways, range statistics add up, and bad input is a clear error.
 */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "fencescope-tp-enums.h"
#include "fst-timeline.h"
#include "fsv-query.h"
#include "fsv-trace.h"
#include "fsv-view.h"

static FsvTrace *trace;
static FsvView *view;

static FsvTrace *
load(const char *name)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	g_autoptr(GError) error = NULL;
	FsvTrace *t = fsv_trace_load(path, NULL, NULL, NULL, &error);

	cr_assert_not_null(t, "%s: %s", path, error ? error->message : "");
	return t;
}

static void
open_frame_pipeline(void)
{
	trace = load("frame-pipeline");
	view = fsv_view_new(trace);
	fsv_view_set_size(view, 1600, 900);
}

static void
close_trace(void)
{
	fsv_view_free(view);
	fsv_trace_unref(trace);
	view = NULL;
	trace = NULL;
}

TestSuite(view, .init = open_frame_pipeline, .fini = close_trace);

Test(view, index_holds_every_operation_the_analyzer_reported)
{
	const struct fsa_summary *s = fsv_trace_get_summary(trace);
	guint64 ops = 0, on_rows = 0;

	for (int src = 0; src < 3; src++)
		ops += s->op_counts[src][0] + s->op_counts[src][1];
	cr_assert_eq(fsv_trace_get_op_count(trace), ops);
	cr_assert_eq(fsv_trace_get_packet_count(trace), s->packet_count);
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++) {
		guint n = 0;
		const guint32 *list = fsv_trace_get_row_ops(trace, r, &n);

		on_rows += n;
		for (guint i = 1; i < n; i++)
			cr_assert_leq(fsv_trace_get_op(trace, list[i - 1])->begin_ns,
				      fsv_trace_get_op(trace, list[i])->begin_ns,
				      "row %u is not sorted", r);
		for (guint i = 0; i < n; i++)
			cr_assert_eq(fsv_trace_get_op(trace, list[i])->row, r);
	}
	cr_assert_eq(on_rows, ops, "every op is on a row");
	cr_assert_gt(fsv_trace_get_end_ns(trace), fsv_trace_get_begin_ns(trace));
	cr_assert_str_eq(fsv_trace_get_name(trace), "frame-pipeline");
	cr_assert_null(fsv_trace_get_partial_error(trace));
}

Test(view, rows_nest_adapter_engine_queue_with_process_in_the_label)
{
	guint queues = 0;

	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++) {
		const FsvRow *row = fsv_trace_get_row(trace, r);

		if (row->parent != FSV_INDEX_NONE)
			cr_assert_lt(row->parent, r, "a parent comes before its children");
		if (row->kind != FSV_ROW_QUEUE)
			continue;
		queues++;
		cr_assert_eq(fsv_trace_get_row(trace, row->parent)->kind, FSV_ROW_ENGINE);
		cr_assert_eq(
		    fsv_trace_get_row(trace, fsv_trace_get_row(trace, row->parent)->parent)->kind,
		    FSV_ROW_ADAPTER);
		cr_assert(strstr(row->sublabel, "pid ") && strstr(row->sublabel, "ctx 0x"),
			  "label: %s / %s", row->label, row->sublabel);
		cr_assert_eq(fsv_trace_find_queue_row(trace, row->hwqueue_handle), r);
		cr_assert(row->lane_count >= 1 && row->lane_count <= FSV_MAX_LANES);
	}
	cr_assert_gt(queues, 0);
}

Test(view, time_and_pixels_round_trip)
{
	fsv_view_set_range(view, 1000000, 2000000);
	cr_assert_float_eq(fsv_view_get_ns_per_px(view), 1e6 / fsv_view_get_time_width(view), 1e-9);
	cr_assert_eq(fsv_view_get_begin_ns(view), 1000000);
	cr_assert_float_eq(fsv_view_time_to_x(view, 1000000), fsv_view_get_label_width(view), 1e-9);
	cr_assert_float_eq(fsv_view_time_to_x(view, 2000000), fsv_view_get_width(view), 1e-6);
	for (double x = 0; x < 1600; x += 37.5) {
		guint64 t = fsv_view_x_to_time(view, x);

		cr_assert_float_eq(fsv_view_time_to_x(view, t), x, 1e-3);
	}
	/* Before the viewport: negative x, no wrap-around. */
	cr_assert_lt(fsv_view_time_to_x(view, 0), 0);
	cr_assert_eq(fsv_view_x_to_time(view, -1e12), 0);
}

Test(view, zoom_keeps_the_time_under_the_pointer)
{
	double x = 900;
	guint64 before = fsv_view_x_to_time(view, x);
	double p = fsv_view_get_ns_per_px(view);

	fsv_view_zoom(view, 2.0, x);
	cr_assert_float_eq(fsv_view_get_ns_per_px(view), p / 2, p * 1e-9);
	cr_assert_leq(llabs((long long) fsv_view_x_to_time(view, x) - (long long) before), 1);
	fsv_view_zoom(view, 1e9, x); /* clamped: at most 100 px per ns */
	cr_assert_geq(fsv_view_get_ns_per_px(view), 0.01);
	fsv_view_fit(view);
	cr_assert_leq(fsv_view_get_begin_ns(view), fsv_trace_get_begin_ns(trace));
	cr_assert_geq(fsv_view_get_end_ns(view), fsv_trace_get_end_ns(trace));
	{
		guint64 b = fsv_view_get_begin_ns(view);

		fsv_view_pan(view, 100);
		cr_assert_float_eq((double) (fsv_view_get_begin_ns(view) - b),
				   100 * fsv_view_get_ns_per_px(view), 1.0);
	}
}

/* Panning far past either end of time stops there: the left edge neither wraps around to the
 * other end of the guint64 range nor takes a double past 2^64 for an integer. */
Test(view, pan_past_either_end_of_time_stops_there)
{
	const guint64 far = G_MAXUINT64 - 1;

	fsv_view_set_range(view, far - 100000, far - 99000);
	fsv_view_zoom(view, 1e9, 1599);
	cr_assert_float_eq(fsv_view_get_ns_per_px(view), 0.01, 1e-12);
	fsv_view_pan(view, 1e8); /* 1 ms to the right: past UINT64_MAX − 1 */
	cr_assert_gt(fsv_view_get_begin_ns(view), far - 100000, "wrapped to %" G_GUINT64_FORMAT,
		     fsv_view_get_begin_ns(view));
	cr_assert_geq(fsv_view_get_end_ns(view), fsv_view_get_begin_ns(view));
	cr_assert_eq(fsv_view_get_end_ns(view), far,
		     "end %" G_GUINT64_FORMAT " begin %" G_GUINT64_FORMAT " p %g",
		     fsv_view_get_end_ns(view), fsv_view_get_begin_ns(view),
		     fsv_view_get_ns_per_px(view));
	fsv_view_pan(view, 1e30);
	cr_assert_eq(fsv_view_get_end_ns(view), far);
	fsv_view_pan(view, -1e30);
	cr_assert_eq(fsv_view_get_begin_ns(view), 0);
	cr_assert_float_eq(fsv_view_time_to_x(view, 0), fsv_view_get_label_width(view), 1e-9);
	/* Zoomed out as far as it goes, at the top of time, a pan right still stops. */
	fsv_view_set_range(view, far - 1000, far);
	fsv_view_zoom(view, 1e-30, 800);
	fsv_view_pan(view, 1e30);
	cr_assert_geq(fsv_view_get_end_ns(view), fsv_view_get_begin_ns(view));
	cr_assert_gt(fsv_view_get_begin_ns(view), far / 2);
	/* And at the deepest zoom near 2^60 ns (real traces' epoch times), pixels still map to
	 * distinct nanoseconds in order. */
	fsv_view_set_range(view, (guint64) 1 << 60, ((guint64) 1 << 60) + 100);
	fsv_view_zoom(view, 1e9, 900);
	for (double x = 240; x < 1600; x += 100)
		cr_assert_lt(fsv_view_x_to_time(view, x), fsv_view_x_to_time(view, x + 100));
}

/* A drawing narrower than the labels (a pane dragged small) keeps a time area of at least a
 * pixel: the right edge never comes before the left one, and the labels come back when the
 * drawing is wide again. */
Test(view, narrow_drawing_keeps_end_after_begin)
{
	int labels = fsv_view_get_label_width(view);

	for (int width = 0; width < 300; width += 7) {
		fsv_view_set_size(view, width, 300);
		cr_assert_lt(fsv_view_get_label_width(view), MAX(width, 1));
		cr_assert_geq(fsv_view_get_end_ns(view), fsv_view_get_begin_ns(view),
			      "width %d: end before begin", width);
		cr_assert_eq(fsv_view_get_time_width(view),
			     MAX(width, 1) - fsv_view_get_label_width(view));
	}
	fsv_view_set_size(view, 1600, 900);
	cr_assert_eq(fsv_view_get_label_width(view), labels);
}

Test(view, layout_is_contiguous_and_collapses)
{
	guint n = fsv_view_get_visible_row_count(view);
	int y_expect = 0, full = fsv_view_get_content_height(view);
	guint32 adapter = FSV_INDEX_NONE, fence_group = FSV_INDEX_NONE;

	cr_assert_gt(n, 0);
	for (guint i = 0; i < n; i++) {
		int y, h;
		double dy, dh;
		guint32 row = fsv_view_get_visible_row(view, i, &y, &h);

		cr_assert_eq(y, y_expect);
		cr_assert_gt(h, 0);
		y_expect += h;
		cr_assert(fsv_view_get_row_geometry(view, row, &dy, &dh));
		cr_assert_eq(fsv_view_row_at_y(view, dy + dh / 2), row);
		cr_assert_eq(fsv_view_row_at_y(view, dy), row);
		cr_assert_eq(fsv_view_row_at_y(view, dy + dh - 0.01), row);
		if (fsv_trace_get_row(trace, row)->kind == FSV_ROW_ADAPTER)
			adapter = row;
		if (fsv_trace_get_row(trace, row)->kind == FSV_ROW_FENCE_GROUP)
			fence_group = row;
		cr_assert_neq(fsv_trace_get_row(trace, row)->kind, FSV_ROW_FENCE,
			      "fence rows start collapsed");
	}
	cr_assert_eq(y_expect, full);
	cr_assert_eq(fsv_view_row_at_y(view, 5), FSV_INDEX_NONE, "the ruler is no row");
	cr_assert_neq(adapter, FSV_INDEX_NONE);
	cr_assert_neq(fence_group, FSV_INDEX_NONE);

	fsv_view_set_row_expanded(view, adapter, false);
	cr_assert_lt(fsv_view_get_content_height(view), full);
	for (guint i = 0; i < fsv_view_get_visible_row_count(view); i++) {
		guint32 row = fsv_view_get_visible_row(view, i, NULL, NULL);

		cr_assert_neq(fsv_trace_get_row(trace, row)->parent, adapter);
		cr_assert_neq(fsv_trace_get_row(trace, row)->kind, FSV_ROW_QUEUE);
	}
	fsv_view_set_row_expanded(view, adapter, true);
	cr_assert_eq(fsv_view_get_content_height(view), full);
	fsv_view_set_row_expanded(view, fence_group, true);
	cr_assert_gt(fsv_view_get_content_height(view), full, "fence rows appear");
	fsv_view_set_show_fence_rows(view, false);
	cr_assert_lt(fsv_view_get_content_height(view), full, "fence group hidden too");
}

/* A wait with a known signal, on a visible row. */
static guint32
find_released_wait(void)
{
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);

		if (o->kind == FSA_OP_WAIT && o->state == FSA_OP_OBSERVED &&
		    o->source == FSA_SRC_USER_MODE_QUEUE && o->signal_op != FSV_INDEX_NONE &&
		    o->end_ns > o->begin_ns)
			return i;
	}
	return FSV_INDEX_NONE;
}

Test(view, hit_test_finds_the_box_under_the_point)
{
	guint32 w = find_released_wait();
	const FsvOp *o;
	double y, h, x;
	FsvItem hit;

	cr_assert_neq(w, FSV_INDEX_NONE);
	o = fsv_trace_get_op(trace, w);
	/* Zoom so the box is 400 px wide, centred. */
	fsv_view_set_range(view, o->begin_ns - (o->end_ns - o->begin_ns),
			   o->end_ns + (o->end_ns - o->begin_ns));
	cr_assert(fsv_view_get_lane_geometry(view, o->row, o->lane, &y, &h));
	x = (fsv_view_time_to_x(view, o->begin_ns) + fsv_view_time_to_x(view, o->end_ns)) / 2;
	cr_assert(fsv_view_hit_test(view, x, y + h / 2, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_OP);
	cr_assert_eq(hit.row, o->row);
	{
		/* Another op may overlap in the same lane; the hit one contains the point. */
		const FsvOp *got = fsv_trace_get_op(trace, hit.index);

		cr_assert_eq(got->lane, o->lane);
		cr_assert_leq(got->begin_ns, fsv_view_x_to_time(view, x) + 1);
		cr_assert_geq(got->end_ns + 1, fsv_view_x_to_time(view, x));
	}
	cr_assert(fsv_view_hit_test(view, 10, y + h / 2, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_ROW);
	cr_assert_eq(hit.index, o->row);
	cr_assert_not(fsv_view_hit_test(view, x, 3, &hit), "the ruler holds no item");
	cr_assert_eq(hit.kind, FSV_ITEM_NONE);
}

Test(view, edges_go_from_signal_to_waits_and_back)
{
	guint checked = 0;

	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);
		guint n = 0, m = 0;
		const guint32 *e;
		bool found = false;

		if (o->kind != FSA_OP_WAIT || o->signal_op == FSV_INDEX_NONE)
			continue;
		e = fsv_trace_get_op_edges(trace, i, &n);
		cr_assert_eq(n, 1, "a wait has one signal");
		cr_assert_eq(e[0], o->signal_op);
		cr_assert_eq(fsv_trace_get_op(trace, o->signal_op)->kind, FSA_OP_SIGNAL);
		cr_assert_eq(fsv_trace_get_op(trace, o->signal_op)->fence_global_handle,
			     o->fence_global_handle);
		e = fsv_trace_get_op_edges(trace, o->signal_op, &m);
		for (guint k = 0; k < m; k++)
			found |= e[k] == i;
		cr_assert(found, "the signal lists the wait it released");
		checked++;
	}
	cr_assert_gt(checked, 0);
	cr_assert_eq(checked, fsv_trace_get_summary(trace)->edge_count);
}

Test(view, range_statistics_add_up)
{
	FsvRangeStats all, none;
	guint64 rows_ops = 0;
	const struct fsa_summary *s = fsv_trace_get_summary(trace);

	fsv_trace_range_stats(trace, 0, UINT64_MAX - 1, &all);
	cr_assert_eq(all.total.wait_count + all.total.signal_count, fsv_trace_get_op_count(trace));
	cr_assert_eq(all.total.packet_count, s->packet_count);
	for (guint i = 0; i < all.rows->len; i++) {
		const FsvRowStats *r = &g_array_index(all.rows, FsvRowStats, i);

		rows_ops += r->wait_count + r->signal_count;
		cr_assert_leq(r->latency_min_ns, r->latency_p50_ns);
		cr_assert_leq(r->latency_p50_ns, r->latency_p99_ns);
		cr_assert_leq(r->latency_p99_ns, r->latency_max_ns);
	}
	cr_assert_eq(rows_ops, fsv_trace_get_op_count(trace));
	cr_assert_gt(all.total.latency_max_ns, 0);
	fsv_range_stats_clear(&all);

	/* Before the trace: nothing. */
	fsv_trace_range_stats(trace, 0, fsv_trace_get_begin_ns(trace) / 2, &none);
	cr_assert_eq(none.total.wait_count + none.total.signal_count + none.total.packet_count, 0);
	cr_assert_eq(none.rows->len, 0);
	fsv_range_stats_clear(&none);
}

Test(view, every_item_has_a_description)
{
	guint32 w = find_released_wait();
	FsvItem item = {FSV_ITEM_OP, w, fsv_trace_get_op(trace, w)->row};
	g_auto(GStrv) fields = fsv_trace_describe_item(trace, &item);
	g_autofree char *title = fsv_trace_dup_item_title(trace, &item);
	bool has_stalled = false, has_gpu = false;
	guint n = g_strv_length(fields);

	cr_assert_eq(n % 2, 0, "names and values in pairs");
	cr_assert_str_eq(fields[0], "Operation");
	cr_assert_str_eq(fields[1], "wait");
	for (guint i = 0; i < n; i += 2) {
		has_stalled |= strcmp(fields[i], "Stalled on GPU") == 0;
		has_gpu |= strstr(fields[i + 1], "GPU") != NULL;
	}
	cr_assert(has_gpu, "times are given in GPU ticks too");
	(void) has_stalled;
	cr_assert(g_str_has_prefix(title, "Wait fence 0x"), "%s", title);
	if (fsv_trace_get_packet_count(trace) > 0) {
		FsvItem p = {FSV_ITEM_PACKET, 0, 0};
		g_auto(GStrv) pf = fsv_trace_describe_item(trace, &p);

		cr_assert_str_eq(pf[0], "Packet");
	}
}

Test(view, find_ops_returns_matches_in_time_order)
{
	guint32 w = find_released_wait();
	const FsvOp *o = fsv_trace_get_op(trace, w);
	g_autofree char *text = g_strdup_printf("fence=0x%" G_GINT64_MODIFIER "x", o->fence_handle);
	g_autoptr(FsvQuery) f = fsv_query_parse(text, NULL, NULL);
	g_autoptr(GArray) found = fsv_trace_find_ops(trace, f, 0, UINT64_MAX - 1, 0);
	bool has_w = false;

	cr_assert_gt(found->len, 0);
	for (guint i = 0; i < found->len; i++) {
		guint32 idx = g_array_index(found, guint32, i);

		has_w |= idx == w;
		cr_assert(fsv_query_match_op(f, fsv_trace_get_op(trace, idx)));
		if (i > 0)
			cr_assert_leq(
			    fsv_trace_get_op(trace, g_array_index(found, guint32, i - 1))->begin_ns,
			    fsv_trace_get_op(trace, idx)->begin_ns);
	}
	cr_assert(has_w);
}

/* The next match after an op, in (begin, index) order, wrapping: stepping from the first
 * match visits every match once, whatever overlaps what. */
Test(view, find_next_op_steps_through_every_match_in_time_order)
{
	g_autoptr(FsvQuery) none = fsv_query_parse("", NULL, NULL);
	g_autoptr(FsvQuery) nothing = fsv_query_parse("value=18446744073709551615", NULL, NULL);
	guint n = fsv_trace_get_op_count(trace), steps = 0;
	g_autoptr(GArray) all = fsv_trace_find_ops(trace, none, 0, UINT64_MAX - 1, 0);
	guint32 op = fsv_trace_find_next_op(trace, none, FSV_INDEX_NONE);

	cr_assert_gt(n, 1);
	cr_assert_eq(all->len, n);
	do {
		cr_assert_eq(op, g_array_index(all, guint32, steps), "step %u", steps);
		op = fsv_trace_find_next_op(trace, none, op);
		steps++;
	} while (steps < n);
	cr_assert_eq(op, g_array_index(all, guint32, 0), "wraps to the first");
	cr_assert_eq(fsv_trace_find_next_op(trace, nothing, FSV_INDEX_NONE), FSV_INDEX_NONE);
	cr_assert_eq(fsv_trace_find_next_op(trace, nothing, 0), FSV_INDEX_NONE);
}

Test(trace, log_overrun_shows_lost_entries_and_inferred_ops)
{
	g_autoptr(FsvTrace) t = load("log-overrun");
	guint64 lost = 0, inferred = 0;

	cr_assert_gt(fsv_trace_get_loss_count(t), 0);
	for (guint32 i = 0; i < fsv_trace_get_loss_count(t); i++) {
		const FsvLoss *l = fsv_trace_get_loss(t, i);

		cr_assert_eq(l->loss.kind, FSA_LOSS_LOG_OVERRUN);
		cr_assert_neq(l->row, FSV_INDEX_NONE, "an overrun is drawn on its queue");
		cr_assert_eq(fsv_trace_get_row(t, l->row)->hwqueue_handle, l->loss.hwqueue_handle);
		cr_assert_leq(l->begin_ns, l->end_ns);
		lost += l->loss.count;
	}
	for (guint32 i = 0; i < fsv_trace_get_op_count(t); i++)
		inferred += fsv_trace_get_op(t, i)->state == FSA_OP_INFERRED;
	cr_assert_eq(lost, fsv_trace_get_summary(t)->log_entries_lost);
	cr_assert_eq(inferred, fsv_trace_get_summary(t)->inferred_ops);
	cr_assert_gt(inferred, 0);
}

Test(trace, fence_rows_step_through_current_value)
{
	g_autoptr(FsvTrace) t = load("producer-consumer");
	guint fences = 0;

	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++) {
		guint n = 0;
		const FsvFenceStep *s;

		if (fsv_trace_get_row(t, r)->kind != FSV_ROW_FENCE)
			continue;
		s = fsv_trace_get_fence_steps(t, r, &n);
		cr_assert_gt(n, 0);
		cr_assert_eq(s[0].op, FSV_INDEX_NONE, "the first step is the initial value");
		for (guint i = 1; i < n; i++)
			cr_assert_leq(s[i - 1].ns, s[i].ns);
		fences++;
	}
	cr_assert_gt(fences, 0);
}

/* HPF-02: a progress fence steps to each completed command buffer's value through the trace;
 * it used to stay at 0 and jump at the end (the OS's teardown wait was its only step). */
Test(trace, hpf_02_progress_fence_rows_step_with_each_completed_buffer)
{
	g_autoptr(FsvTrace) t = load("frame-pipeline");
	guint progress_rows = 0;
	guint64 span = fsv_trace_get_end_ns(t) - fsv_trace_get_begin_ns(t);

	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++) {
		const FsvRow *row = fsv_trace_get_row(t, r);
		const struct fsa_fence_info *f;
		const FsvFenceStep *s;
		guint n = 0, buffers = 0;
		guint64 half_value = 0;

		if (row->kind != FSV_ROW_FENCE)
			continue;
		f = fsv_trace_find_fence(t, row->fence_global_handle);
		if (!f || !f->is_progress_fence || f->last_value < 10)
			continue;
		s = fsv_trace_get_fence_steps(t, r, &n);
		for (guint i = 0; i < n; i++) {
			if (s[i].op == FSV_STEP_BUFFER_COMPLETED) {
				buffers++;
				cr_assert_geq(s[i].value, i > 0 ? s[i - 1].value : 0,
					      "progress only grows");
			}
			if (s[i].ns <= fsv_trace_get_begin_ns(t) + span / 2)
				half_value = s[i].value;
		}
		cr_assert_geq(buffers, 10, "%s: %u steps of completed buffers", row->label,
			      buffers);
		cr_assert_gt(half_value, 0, "%s: still at 0 halfway through the trace", row->label);
		progress_rows++;
	}
	cr_assert_gt(progress_rows, 0);
}

Test(trace, missing_path_is_a_one_line_error)
{
	g_autoptr(GError) error = NULL;
	FsvTrace *t = fsv_trace_load("/nonexistent/trace", NULL, NULL, NULL, &error);

	cr_assert_null(t);
	cr_assert_not_null(error);
	cr_assert(g_error_matches(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO), "%s",
		  error->message);
	cr_assert(g_str_has_prefix(error->message, "/nonexistent/trace"), "%s", error->message);
	cr_assert_null(strchr(error->message, '\n'));
}

static void
count_progress(guint64 events, double fraction, gpointer data)
{
	(void) events;
	(void) fraction;
	(*(int *) data)++;
}

Test(trace, cancelled_load_returns_cancelled)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GError) error = NULL;
	g_autofree char *path = g_build_filename(FST_TRACES, "stress", NULL);
	int calls = 0;
	FsvTrace *t;

	g_cancellable_cancel(cancellable);
	t = fsv_trace_load(path, count_progress, &calls, cancellable, &error);
	cr_assert_null(t, "no half-made trace escapes a cancelled load");
	cr_assert(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED), "%s",
		  error ? error->message : "no error");
	cr_assert_eq(calls, 0);
}

/* Issue 10: the viewer says why GPU times are not placed (a sim run recorded with plain lttng),
 * and says nothing on a trace whose GPU times are correlated. */
Test(view, a_trace_on_the_wrong_clock_carries_a_clock_warning)
{
	g_autoptr(FsvTrace) plain = load("sim-plain-lttng");
	g_autoptr(FsvTrace) realtime = load("realtime-producer-consumer");

	cr_assert_null(fsv_trace_get_clock_warning(trace));
	cr_assert_null(fsv_trace_get_clock_warning(realtime));
	cr_assert_not_null(fsv_trace_get_clock_warning(plain));
	cr_assert_not_null(strstr(fsv_trace_get_clock_warning(plain), "--clock realtime"));
}

/* A user-mode queue's signal and its log entry, on an adapter with clock pairs or without
 * (WITH_PAIRS false: a recording at --loglevel INFO, clock_correlation being DEBUG). */
static FsvTrace *
one_signal_trace(bool with_pairs)
{
	g_autoptr(GArray) events = fst_events_new();
	const uint64_t t0 = UINT64_C(1000000000), queue = UINT64_C(0x8003000000000005),
		       fence = UINT64_C(0x8004000000000020);

	fst_event_add(events, "trace_info", t0, "format_major", UINT64_C(1), "format_minor",
		      UINT64_C(5), "clock_mode", (uint64_t) FSTP_CLOCK_MODE_SIM, NULL);
	fst_event_add(events, "adapter_create", t0, "adapter_id", UINT64_C(0), "engine_count",
		      UINT64_C(1), "gpu_ts_frequency_hz", UINT64_C(1000000000), NULL);
	if (with_pairs)
		fst_event_add(events, "clock_correlation", t0, "adapter_id", UINT64_C(0),
			      "cpu_ts_ns", t0, "gpu_ts", t0, "gpu_ts_frequency_hz",
			      UINT64_C(1000000000), NULL);
	fst_event_add(events, "process_create", t0, "process_id", UINT64_C(1), NULL);
	fst_event_add(events, "device_create", t0, "process_id", UINT64_C(1), "adapter_id",
		      UINT64_C(0), "device_handle", UINT64_C(0x8001000000000001), NULL);
	fst_event_add(events, "context_create", t0, "process_id", UINT64_C(1), "device_handle",
		      UINT64_C(0x8001000000000001), "context_handle", UINT64_C(0x8002000000000002),
		      "engine_id", UINT64_C(0), NULL);
	fst_event_add(events, "hwqueue_create", t0, "process_id", UINT64_C(1), "context_handle",
		      UINT64_C(0x8002000000000002), "hwqueue_handle", queue, "engine_id",
		      UINT64_C(0), "submission_mode", (uint64_t) FSTP_SUBMISSION_MODE_USER_MODE,
		      "progress_fence_handle", UINT64_C(0x8004000000000001), NULL);
	fst_event_add(events, "fence_create", t0, "process_id", UINT64_C(1), "adapter_id",
		      UINT64_C(0), "fence_global_handle", fence, "fence_handle", UINT64_C(0x20),
		      "initial_value", UINT64_C(0), NULL);
	fst_event_add(events, "fence_signal_queued", t0 + 1000, "process_id", UINT64_C(1),
		      "hwqueue_handle", queue, "fence_handle", UINT64_C(0x20), "fence_value",
		      UINT64_C(1), "progress_value", UINT64_C(1), NULL);
	fst_event_add(events, "fence_log_entry", t0 + 9000, "hwqueue_handle", queue, "log_type",
		      (uint64_t) FSTP_LOG_TYPE_SIGNALS, "entry_position", UINT64_C(0),
		      "fence_handle", UINT64_C(0x20), "fence_global_handle", fence, "fence_value",
		      UINT64_C(1), "operation", (uint64_t) FSTP_LOG_OPERATION_SIGNAL_EXECUTED,
		      "observed_gpu_ts", UINT64_C(0), "end_gpu_ts", t0 + 2000, NULL);
	return fst_trace_from_events(with_pairs ? "paired" : "unpaired", events);
}

/* A recording at --loglevel INFO has no clock pairs: its boxes end at their log reads, and the
 * window says so as it does for a trace on the wrong clock (the report called its GPU time
 * "correlated" and nothing else warned). */
Test(view, a_trace_without_clock_pairs_carries_a_clock_warning)
{
	g_autoptr(FsvTrace) unpaired = one_signal_trace(false);
	g_autoptr(FsvTrace) paired = one_signal_trace(true);
	const char *warning = fsv_trace_get_clock_warning(unpaired);

	cr_assert_eq(fsv_trace_get_op_count(unpaired), 1);
	cr_assert_eq(fsv_trace_get_op(unpaired, 0)->op_end_ns, UINT64_C(1000009000),
		     "the box ends at its read");
	cr_assert_not_null(warning);
	cr_assert_not_null(strstr(warning, "clock_correlation"), "%s", warning);
	cr_assert_not_null(strstr(warning, "--loglevel INFO"), "%s", warning);
	cr_assert_eq(fsv_trace_get_op(paired, 0)->op_end_ns, UINT64_C(1000002000),
		     "the box ends at its GPU time");
	cr_assert_null(fsv_trace_get_clock_warning(paired), "%s",
		       fsv_trace_get_clock_warning(paired));
}

/* Issue 15 §5: exported accessors nothing else in the tree called, tested here so that what
 * they return stays what the model reported. */
Test(trace, fence_rows_are_found_by_their_global_handle)
{
	g_autoptr(FsvTrace) t = load("producer-consumer");
	guint fences = 0;

	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++) {
		const FsvRow *row = fsv_trace_get_row(t, r);

		if (row->kind != FSV_ROW_FENCE)
			continue;
		cr_assert_eq(fsv_trace_find_fence_row(t, row->fence_global_handle), r);
		fences++;
	}
	cr_assert_gt(fences, 0);
	cr_assert_eq(fsv_trace_find_fence_row(t, UINT64_C(0xdead0000dead)), FSV_INDEX_NONE);
}

Test(trace, anomalies_are_those_the_summary_counts)
{
	g_autoptr(FsvTrace) t = load("log-overrun");
	const struct fsa_summary *s = fsv_trace_get_summary(t);
	guint64 counted = 0, by_kind[FSA_ANOM_KIND_COUNT] = {0};

	for (int k = 0; k < FSA_ANOM_KIND_COUNT; k++)
		counted += s->anomaly_counts[k];
	cr_assert_eq(fsv_trace_get_anomaly_count(t), counted, "one stored per anomaly counted");
	for (guint32 i = 0; i < fsv_trace_get_anomaly_count(t); i++) {
		const struct fsa_anomaly *a = fsv_trace_get_anomaly(t, i);

		cr_assert_lt((int) a->kind, FSA_ANOM_KIND_COUNT);
		by_kind[a->kind]++;
	}
	for (int k = 0; k < FSA_ANOM_KIND_COUNT; k++)
		cr_assert_eq(by_kind[k], s->anomaly_counts[k], "anomalies of kind %d", k);
}

Test(view, processes_are_listed_and_found_by_pid)
{
	guint n = fsv_trace_get_process_count(trace);

	cr_assert_gt(n, 0);
	for (guint i = 0; i < n; i++) {
		const struct fsa_process_info *p = fsv_trace_get_process(trace, i);

		cr_assert_not_null(p->name);
		cr_assert_eq(fsv_trace_find_process(trace, p->process_id), p);
	}
	/* Every queue row's process is one of them. */
	for (guint32 r = 0; r < fsv_trace_get_row_count(trace); r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_QUEUE)
			cr_assert_not_null(
			    fsv_trace_find_process(trace, fsv_trace_get_row(trace, r)->process_id));
}

Test(view, clock_fits_map_gpu_ticks_onto_the_trace_clock)
{
	guint n = fsv_trace_get_clock_fit_count(trace);

	cr_assert_gt(n, 0, "frame-pipeline correlates its adapter's clock");
	for (guint i = 0; i < n; i++) {
		const struct fsa_clock_fit *fit = fsv_trace_get_clock_fit(trace, i);
		guint64 mid = (fsv_trace_get_begin_ns(trace) + fsv_trace_get_end_ns(trace)) / 2;
		guint64 gpu = 0;

		cr_assert_gt(fit->pair_count, 0);
		cr_assert_gt(fit->ns_per_tick, 0);
		cr_assert(fsv_trace_trace_to_gpu(trace, fit->adapter_id, mid, &gpu));
		/* Back through the fit's line: within its worst residual and a tick. */
		cr_assert_float_eq(fit->offset_ns + fit->ns_per_tick * (double) gpu, (double) mid,
				   fit->residual_max_ns + 2 * fit->ns_per_tick + 512.0);
	}
}

Test(view, the_view_names_its_trace_and_keeps_the_label_width_it_is_given)
{
	cr_assert_eq(fsv_view_get_trace(view), trace);
	fsv_view_set_label_width(view, 300);
	cr_assert_eq(fsv_view_get_label_width(view), 300);
	cr_assert_eq(fsv_view_get_time_width(view), 1600 - 300);
	cr_assert_float_eq(fsv_view_time_to_x(view, fsv_view_get_begin_ns(view)), 300, 1e-6);
	/* Narrower than the labels: the time area keeps a pixel. */
	fsv_view_set_size(view, 200, 900);
	cr_assert_eq(fsv_view_get_label_width(view), 199);
	fsv_view_set_size(view, 1600, 900);
	cr_assert_eq(fsv_view_get_label_width(view), 300, "the width asked for comes back");
}

Test(view, a_hidden_row_leaves_the_layout_with_its_children)
{
	int full = fsv_view_get_content_height(view);
	guint32 engine = FSV_INDEX_NONE;
	double y, h;

	for (guint32 r = 0; r < fsv_trace_get_row_count(trace) && engine == FSV_INDEX_NONE; r++)
		if (fsv_trace_get_row(trace, r)->kind == FSV_ROW_ENGINE &&
		    fsv_view_row_has_children(view, r))
			engine = r;
	cr_assert_neq(engine, FSV_INDEX_NONE);
	fsv_view_set_row_hidden(view, engine, true);
	cr_assert_lt(fsv_view_get_content_height(view), full);
	cr_assert_not(fsv_view_get_row_geometry(view, engine, &y, &h));
	for (guint i = 0; i < fsv_view_get_visible_row_count(view); i++)
		cr_assert_neq(
		    fsv_trace_get_row(trace, fsv_view_get_visible_row(view, i, NULL, NULL))->parent,
		    engine, "its queues go with it");
	fsv_view_set_row_hidden(view, engine, false);
	cr_assert_eq(fsv_view_get_content_height(view), full);
}

/* Issue 15 §2 on a recording: cpu-waiters queues 256 signals at once on one queue and 256 CPU
 * waits; collapsed and expanded, the centre of every op's drawn box hits that op or the
 * aggregated slot drawing it (docs/viewer.md "Lanes"; tests/viewer/test-lanes.c has the pixels
 * and depths 1 to 200). */
static void
check_every_op_hits_itself(FsvTrace *t, FsvView *v, bool *saw_stack)
{
	for (guint32 i = 0; i < fsv_trace_get_op_count(t); i++) {
		const FsvOp *o = fsv_trace_get_op(t, i);
		FsvLaneSlot slot;
		double ly, lh, x, y;
		FsvItem hit;

		if (o->row == FSV_INDEX_NONE ||
		    !fsv_view_get_lane_geometry(v, o->row, o->lane, &ly, &lh))
			continue;
		cr_assert(fsv_view_get_lane_slot(v, o->row,
						 fsv_view_lane_to_slot(v, o->row, o->lane), &slot));
		x = (MAX(fsv_view_time_to_x(v, o->begin_ns), fsv_view_get_label_width(v)) +
		     MIN(fsv_view_time_to_x(v, o->end_ns), fsv_view_get_width(v))) /
		    2;
		/* Scroll the lane into the middle of the view. */
		fsv_view_set_scroll_y(v,
				      fsv_view_get_scroll_y(v) + ly - fsv_view_get_height(v) / 2);
		fsv_view_get_lane_geometry(v, o->row, o->lane, &ly, &lh);
		y = ly + lh / 2;
		cr_assert(fsv_view_hit_test(v, x, y, &hit), "op %u: nothing at its centre", i);
		if (slot.lane_count > 1) {
			*saw_stack = true;
			cr_assert_eq(hit.kind, FSV_ITEM_LANES, "op %u is in the aggregated slot",
				     i);
			cr_assert_eq(hit.index, slot.first_lane);
		} else {
			cr_assert_eq(hit.kind, FSV_ITEM_OP);
			cr_assert_eq(hit.index, i, "op %u's centre hits op %u", i, hit.index);
		}
	}
}

Test(trace, a_256_deep_queue_hits_every_box_collapsed_and_expanded, .timeout = 120)
{
	g_autoptr(FsvTrace) t = load("cpu-waiters");
	g_autoptr(FsvView) v = fsv_view_new(t);
	bool saw_stack = false;
	guint deep = 0;

	fsv_view_set_size(v, 1600, 900);
	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++)
		if (fsv_view_row_has_stacked_lanes(v, r))
			deep = MAX(deep, fsv_trace_get_row(t, r)->lane_count);
	cr_assert_geq(deep, 200, "cpu-waiters has a deep queue (%u lanes)", deep);
	check_every_op_hits_itself(t, v, &saw_stack);
	cr_assert(saw_stack, "collapsed, the deep rows aggregate lanes");
	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++)
		fsv_view_set_row_lanes_expanded(v, r, true);
	saw_stack = false;
	check_every_op_hits_itself(t, v, &saw_stack);
	cr_assert_not(saw_stack, "expanded, every lane is shown");
}
