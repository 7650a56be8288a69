/* SPDX-License-Identifier: MIT */
/*
 * viewer/core on recordings of issue 13's built-in scenarios (suite e2e): each is recorded with
 * `fencescope record --clock sim` in a sandbox of its own (tests/cli/record-sandbox.h: a private
 * session daemon, so no other program's events end up in the trace) into a temporary
 * directory, loaded as `fencescope view` loads it, checked through the view's hit testing and
 * the details pane, and drawn to FST_OUT_DIR/recorded-SCENARIO.png for a look.
 *
 * - priority-inversion: preempted pieces joined to their resubmitted pieces (PRE-06, PRE-07),
 *   priority preemption brackets with the boundary they stopped at (PRE-03, PRE-04);
 * - timeslice-mix: time-slice brackets on both engines;
 * - frame-pipeline: the display row, its flips queued → done, a missed vsync (PRE-13);
 * - tdr-hang, adapter-reset: the TDR stages, the guilty context in error, the adapter reset
 *   across the adapter's rows (TDR-01..06);
 * - page-fault, mapping-churn, cross-adapter (issue 14): the engine's page fault and its
 *   recovery (MMU-14, TDR-06), 4 KB and 64 KB mappings on VA rows (MMU-12), propagation arrows
 *   between the adapters' fence rows (XAD-07). Skipped, saying so, when the runtime built here
 *   has no such scenario.
 *
 * FSV_RECORDED_TRACES=DIR reads DIR/SCENARIO instead of recording (to check the viewer against
 * recordings made with another build).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>
#include <criterion/criterion.h>
#include <glib.h>

#include "fencescope-tp-enums.h"
#include "fsv-render.h"
#include "fsv-trace-private.h"
#include "fsv-trace.h"
#include "fsv-view.h"
#include "record-sandbox.h"

/* Whether the fencescope built here knows SCENARIO (`fencescope run --list`). */
static bool
has_scenario(const char *scenario)
{
	const char *argv[] = {FS_FENCESCOPE, "run", "--list", NULL};
	g_autofree char *out = NULL;
	g_autofree char *pattern = g_strdup_printf("%s ", scenario);
	int status = 0;

	if (!g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
			  NULL, &status, NULL))
		return false;
	return out && (strstr(out, pattern) || strstr(out, scenario));
}

/* Records SCENARIO (sim clock) and loads it; the recording's directory goes with the sandbox's
 * work directory when OUTCOME is cleared. */
static FsvTrace *
record_and_load(const char *scenario, struct fsct_outcome *outcome)
{
	const char *dir = g_getenv("FSV_RECORDED_TRACES");
	const char *args[] = {"record", "-o", "trace", "--clock", "sim", scenario, NULL};
	struct fsct_sandbox_options options = {.args = args, .timeout_s = 200};
	g_autoptr(GError) error = NULL;
	g_autofree char *path = NULL;
	FsvTrace *t;

	if (dir) {
		path = g_build_filename(dir, scenario, NULL);
	} else {
		cr_assert_eq(fsct_record_in_sandbox(&options, outcome), 0, "%s",
			     outcome->setup_error);
		cr_assert_eq(outcome->exit_status, 0, "record %s: %s", scenario, outcome->err);
		path = fsct_dup_last_line(outcome->out);
	}
	t = fsv_trace_load(path, NULL, NULL, NULL, &error);
	cr_assert_not_null(t, "%s", error ? error->message : "");
	cr_assert_null(fsv_trace_get_partial_error(t), "%s", fsv_trace_get_partial_error(t));
	cr_assert_null(fsv_trace_get_clock_warning(t), "%s", fsv_trace_get_clock_warning(t));
	return t;
}

static FsvView *
view_new(FsvTrace *t)
{
	FsvView *v = fsv_view_new(t);

	fsv_view_set_size(v, 1600, 900);
	fsv_view_fit(v);
	return v;
}

static void
render(FsvTrace *t, FsvView *v, const char *scenario)
{
	g_autofree char *name = g_strdup_printf("recorded-%s.png", scenario);
	g_autofree char *path = g_build_filename(FST_OUT_DIR, name, NULL);
	g_autoptr(GError) error = NULL;
	FsvRenderOptions o;

	fsv_render_options_init(&o);
	cr_assert(fsv_render_to_file(t, v, &o, FSV_RENDER_FORMAT_PNG, path, &error), "%s",
		  error ? error->message : "");
}

/* The value of NAME in an item's details, NULL when it has none. */
static char *
detail(FsvTrace *t, FsvItemKind kind, guint32 index, const char *name)
{
	FsvItem item = {kind, index, FSV_INDEX_NONE};
	g_auto(GStrv) d = fsv_trace_describe_item(t, &item);

	for (guint i = 0; d[i] && d[i + 1]; i += 2)
		if (strcmp(d[i], name) == 0)
			return g_strdup(d[i + 1]);
	return NULL;
}

static guint
count_markers(FsvTrace *t, guint8 kind)
{
	guint n = 0;

	for (guint32 i = 0; i < fsv_trace_get_marker_count(t); i++)
		n += fsv_trace_get_marker(t, i)->kind == kind;
	return n;
}

/* Zooms V on [begin, end] widened so that both ends are some pixels in. */
static void
zoom_on(FsvView *v, guint64 begin, guint64 end)
{
	guint64 pad = MAX((end - begin) / 4, 1000);

	fsv_view_set_range(v, begin > pad ? begin - pad : 0, end + pad);
}

TestSuite(recorded, .timeout = 400);

Test(recorded, pre_06_pre_07_priority_inversion_pieces_are_joined_on_the_engine_row)
{
	struct fsct_outcome outcome = {0};
	g_autoptr(FsvTrace) t = record_and_load("priority-inversion", &outcome);
	g_autoptr(FsvView) v = view_new(t);
	guint32 first = FSV_INDEX_NONE;
	guint pieces = 0, priority = 0;

	for (guint32 i = 0; i < fsv_trace_get_packet_count(t); i++) {
		const FsvPacket *p = fsv_trace_get_packet(t, i);

		if (p->next_piece == FSV_INDEX_NONE)
			continue;
		pieces++;
		cr_assert_eq(p->status, FSA_PACKET_PREEMPTED, "packet %" PRIu64, p->packet_id);
		cr_assert_eq(fsv_trace_get_packet(t, p->next_piece)->prev_piece, i);
		cr_assert_eq(fsv_trace_get_packet(t, p->next_piece)->resubmission_of, p->packet_id);
		if (first == FSV_INDEX_NONE)
			first = i;
	}
	cr_assert_gt(pieces, 0, "priority-inversion preempts the low-priority packets");
	for (guint32 i = 0; i < fsv_trace_get_marker_count(t); i++) {
		const FsvMarker *m = fsv_trace_get_marker(t, i);
		g_autofree char *at = NULL;

		if (m->kind != FSA_MARK_PREEMPTION || m->code != FSTP_PREEMPT_REASON_PRIORITY)
			continue;
		priority++;
		/* PRE-03: where the engine stopped, in the details. */
		at = detail(t, FSV_ITEM_MARKER, i, "Stopped at");
		cr_assert_not_null(at, "preemption %u", i);
		cr_assert(fsv_trace_get_row(t, m->row)->kind == FSV_ROW_ENGINE);
		cr_assert(fsv_trace_get_row(t, m->row)->has_event_strip);
	}
	cr_assert_gt(priority, 0);
	/* The first connector, zoomed in: its arc answers the resubmitted piece, whose details
	 * name the preempted one and both fence ids (PRE-07: a new one). */
	{
		const FsvPacket *a = fsv_trace_get_packet(t, first);
		const FsvPacket *b = fsv_trace_get_packet(t, a->next_piece);
		double x0, y0, x1, y1, peak;
		FsvItem hit;
		g_autofree char *of = NULL, *ids = NULL;

		zoom_on(v, a->end_ns, b->start_ns);
		cr_assert(fsv_view_get_piece_connector(v, first, &x0, &y0, &x1, &y1, &peak));
		cr_assert_lt(x0, x1);
		cr_assert(fsv_view_hit_test(v, (x0 + x1) / 2, peak + 1, &hit));
		cr_assert_eq(hit.kind, FSV_ITEM_PACKET);
		cr_assert_eq(hit.index, a->next_piece);
		of = detail(t, FSV_ITEM_PACKET, a->next_piece, "Resubmission of");
		cr_assert_not_null(of);
		ids = detail(t, FSV_ITEM_PACKET, a->next_piece, "Fence ids");
		cr_assert_not_null(ids);
		if (!a->is_paging)
			cr_assert_not_null(strstr(ids, "(new)"), "%s", ids);
	}
	fsv_view_fit(v);
	render(t, v, "priority-inversion");
	fsct_outcome_clear(&outcome);
}

Test(recorded, pre_15_timeslice_mix_has_time_slice_brackets_on_both_engines)
{
	struct fsct_outcome outcome = {0};
	g_autoptr(FsvTrace) t = record_and_load("timeslice-mix", &outcome);
	g_autoptr(FsvView) v = view_new(t);
	GHashTable *engines = g_hash_table_new(g_direct_hash, g_direct_equal);

	for (guint32 i = 0; i < fsv_trace_get_marker_count(t); i++) {
		const FsvMarker *m = fsv_trace_get_marker(t, i);

		if (m->kind == FSA_MARK_PREEMPTION && m->code == FSTP_PREEMPT_REASON_TIME_SLICE)
			g_hash_table_add(engines, GUINT_TO_POINTER(m->row + 1));
	}
	cr_assert_geq(g_hash_table_size(engines), 2, "time slices on the 3D and compute engines");
	g_hash_table_unref(engines);
	render(t, v, "timeslice-mix");
	fsct_outcome_clear(&outcome);
}

Test(recorded, pre_13_frame_pipeline_has_a_display_row_with_flips_and_a_missed_vsync)
{
	struct fsct_outcome outcome = {0};
	g_autoptr(FsvTrace) t = record_and_load("frame-pipeline", &outcome);
	g_autoptr(FsvView) v = view_new(t);
	guint32 display = FSV_INDEX_NONE, missed = FSV_INDEX_NONE;
	guint flips = 0, n = 0;
	const guint32 *list;

	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++)
		if (fsv_trace_get_row(t, r)->kind == FSV_ROW_DISPLAY)
			display = r;
	cr_assert_neq(display, FSV_INDEX_NONE);
	list = fsv_trace_get_row_markers(t, display, &n);
	for (guint i = 0; i < n; i++) {
		const FsvMarker *m = fsv_trace_get_marker(t, list[i]);

		if (m->kind == FSA_MARK_FLIP) {
			flips++;
			cr_assert_not(m->is_open, "flip %" PRIu64 " landed", m->value);
			cr_assert_neq(m->value2, 0, "flip %" PRIu64 " names its vsync", m->value);
		} else if (m->kind == FSA_MARK_VSYNC && m->is_missed && missed == FSV_INDEX_NONE) {
			missed = list[i];
		}
	}
	cr_assert_eq(flips, count_markers(t, FSA_MARK_FLIP), "every flip on the display row");
	cr_assert_gt(flips, 0);
	cr_assert_neq(missed, FSV_INDEX_NONE, "frame-pipeline's long frames miss a vsync");
	/* The missed vsync answers in the display's vsync strip. */
	{
		const FsvMarker *m = fsv_trace_get_marker(t, missed);
		double ty, th;
		FsvItem hit;
		g_autofree char *latched = NULL;

		zoom_on(v, m->begin_ns, m->begin_ns + 1000000);
		cr_assert(fsv_view_get_strip_geometry(v, display, FSV_STRIP_TICKS, &ty, &th));
		cr_assert(fsv_view_hit_test(v, floor(fsv_view_time_to_x(v, m->begin_ns)) + 0.5,
					    ty + th / 2, &hit));
		cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
		cr_assert_eq(hit.index, missed);
		latched = detail(t, FSV_ITEM_MARKER, missed, "Flip latched");
		cr_assert_not_null(strstr(latched, "missed"), "%s", latched);
	}
	fsv_view_fit(v);
	render(t, v, "frame-pipeline");
	fsct_outcome_clear(&outcome);
}

/* TDR-01..06 on a TDR scenario: detection on the engine row, the TDR's preemption request, the
 * recovery naming its guilty context, whose queues are in error; returns the TDR marker. */
static guint32
check_tdr(FsvTrace *t, FsvView *v)
{
	guint32 tdr = FSV_INDEX_NONE, detect = FSV_INDEX_NONE, error = FSV_INDEX_NONE;

	for (guint32 i = 0; i < fsv_trace_get_marker_count(t); i++) {
		guint8 kind = fsv_trace_get_marker(t, i)->kind;

		if (kind == FSA_MARK_TDR && tdr == FSV_INDEX_NONE)
			tdr = i;
		else if (kind == FSA_MARK_TDR_DETECT && detect == FSV_INDEX_NONE)
			detect = i;
		else if (kind == FSA_MARK_CONTEXT_ERROR && error == FSV_INDEX_NONE)
			error = i;
	}
	cr_assert_neq(tdr, FSV_INDEX_NONE);
	cr_assert_neq(detect, FSV_INDEX_NONE);
	cr_assert_neq(error, FSV_INDEX_NONE);
	{
		const FsvMarker *d = fsv_trace_get_marker(t, detect);
		const FsvMarker *r = fsv_trace_get_marker(t, tdr);
		const FsvMarker *e = fsv_trace_get_marker(t, error);
		double sy, sh;
		FsvItem hit;
		g_autofree char *guilty = NULL;

		/* TDR-02: the stall it reports lies before the detection, on the engine row. */
		cr_assert_lt(d->begin_ns, d->end_ns);
		cr_assert_eq(fsv_trace_get_row(t, d->row)->kind, FSV_ROW_ENGINE);
		cr_assert_leq(d->end_ns, r->begin_ns, "detection, then recovery");
		zoom_on(v, d->begin_ns, d->end_ns);
		cr_assert(fsv_view_get_strip_geometry(v, d->row, FSV_STRIP_EVENTS, &sy, &sh));
		cr_assert(fsv_view_hit_test(v, fsv_view_time_to_x(v, (d->begin_ns + d->end_ns) / 2),
					    sy + 2, &hit));
		cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
		cr_assert_eq(hit.index, detect);
		/* TDR-04: the guilty context named, and in error on its queues. */
		cr_assert_neq(r->context_handle, 0);
		cr_assert_eq(e->context_handle, r->context_handle);
		guilty = detail(t, FSV_ITEM_MARKER, tdr, "Guilty context");
		cr_assert_not_null(guilty);
		cr_assert_eq(fsv_trace_get_row(t, e->row)->kind, FSV_ROW_QUEUE);
		cr_assert_eq(fsv_trace_get_row(t, e->row)->context_handle, e->context_handle);
	}
	return tdr;
}

Test(recorded, tdr_01_tdr_hang_shows_detection_recovery_and_the_guilty_context)
{
	struct fsct_outcome outcome = {0};
	FsvTrace *t;
	FsvView *v;

	if (!g_getenv("FSV_RECORDED_TRACES") && !has_scenario("tdr-hang"))
		cr_skip_test("this runtime has no tdr-hang scenario yet");
	t = record_and_load("tdr-hang", &outcome);
	v = view_new(t);
	check_tdr(t, v);
	cr_assert_gt(count_markers(t, FSA_MARK_ENGINE_RESET), 0);
	fsv_view_fit(v);
	render(t, v, "tdr-hang");
	fsv_view_free(v);
	fsv_trace_unref(t);
	fsct_outcome_clear(&outcome);
}

Test(recorded, tdr_06_adapter_reset_crosses_the_adapter_rows)
{
	struct fsct_outcome outcome = {0};
	FsvTrace *t;
	FsvView *v;
	guint32 reset = FSV_INDEX_NONE;

	if (!g_getenv("FSV_RECORDED_TRACES") && !has_scenario("adapter-reset"))
		cr_skip_test("this runtime has no adapter-reset scenario yet");
	t = record_and_load("adapter-reset", &outcome);
	v = view_new(t);
	check_tdr(t, v);
	for (guint32 i = 0; i < fsv_trace_get_marker_count(t) && reset == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_marker(t, i)->kind == FSA_MARK_ADAPTER_RESET)
			reset = i;
	cr_assert_neq(reset, FSV_INDEX_NONE);
	{
		const FsvMarker *m = fsv_trace_get_marker(t, reset);
		guint hits = 0;

		zoom_on(v, m->begin_ns, m->begin_ns + 1000);
		/* Every laid-out queue row of its adapter answers the reset on its line. */
		for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++) {
			const FsvRow *row = fsv_trace_get_row(t, r);
			double ry, rh;
			FsvItem hit;

			if (row->kind != FSV_ROW_QUEUE || row->adapter_id != m->adapter_id ||
			    !fsv_view_get_row_geometry(v, r, &ry, &rh))
				continue;
			cr_assert(fsv_view_hit_test(
			    v, floor(fsv_view_time_to_x(v, m->begin_ns)) + 0.5, ry + rh / 2, &hit));
			cr_assert_eq(hit.kind, FSV_ITEM_MARKER, "row %u", r);
			cr_assert_eq(hit.index, reset, "row %u", r);
			hits++;
		}
		cr_assert_gt(hits, 0);
	}
	fsv_view_fit(v);
	render(t, v, "adapter-reset");
	fsv_view_free(v);
	fsv_trace_unref(t);
	fsct_outcome_clear(&outcome);
}

/* Issue 14. Records SCENARIO, or says why the test is skipped (a runtime without it). */
static FsvTrace *
record_issue_14(const char *scenario, struct fsct_outcome *outcome)
{
	if (!g_getenv("FSV_RECORDED_TRACES") && !has_scenario(scenario))
		cr_skip_test("this runtime has no %s scenario yet", scenario);
	return record_and_load(scenario, outcome);
}

Test(recorded, mmu_14_page_fault_flash_on_the_engine_and_its_recovery_in_the_details)
{
	struct fsct_outcome outcome = {0};
	FsvTrace *t = record_issue_14("page-fault", &outcome);
	FsvView *v = view_new(t);
	guint32 fault = FSV_INDEX_NONE;
	const FsvMarker *m;
	double ry, rh;
	FsvItem hit;
	g_autofree char *va = NULL, *recovery = NULL;

	for (guint32 i = 0; i < fsv_trace_get_marker_count(t) && fault == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_marker(t, i)->kind == FSA_MARK_PAGE_FAULT)
			fault = i;
	cr_assert_neq(fault, FSV_INDEX_NONE, "page-fault has no engine page fault");
	m = fsv_trace_get_marker(t, fault);
	cr_assert_eq(fsv_trace_get_row(t, m->row)->kind, FSV_ROW_ENGINE);
	zoom_on(v, m->begin_ns, m->begin_ns + 1000);
	cr_assert(fsv_view_get_row_geometry(v, m->row, &ry, &rh));
	cr_assert(fsv_view_hit_test(v, fsv_view_time_to_x(v, m->begin_ns) + 1, ry + 5, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(hit.index, fault);
	va = detail(t, FSV_ITEM_MARKER, fault, "Faulting VA");
	recovery = detail(t, FSV_ITEM_MARKER, fault, "Recovery");
	cr_assert_not_null(va);
	cr_assert_not_null(recovery);
	cr_assert_not_null(strstr(recovery, "TDR (PAGE_FAULT)"), "%s", recovery);
	cr_assert_gt(count_markers(t, FSA_MARK_PAGE_FAULT_HANDLED), 0, "the OS's handling");
	fsv_view_fit(v);
	render(t, v, "page-fault");
	fsv_view_free(v);
	fsv_trace_unref(t);
	fsct_outcome_clear(&outcome);
}

Test(recorded, mmu_12_mapping_churn_draws_4k_and_64k_mappings_on_va_rows)
{
	struct fsct_outcome outcome = {0};
	FsvTrace *t = record_issue_14("mapping-churn", &outcome);
	FsvView *v = view_new(t);
	guint rows = 0, k4 = 0, k64 = 0;

	for (guint32 r = 0; r < fsv_trace_get_row_count(t); r++)
		rows += fsv_trace_get_row(t, r)->kind == FSV_ROW_VA_SPACE;
	cr_assert_gt(rows, 0, "no VA space row");
	for (guint32 i = 0; i < fsv_trace_get_marker_count(t); i++) {
		const FsvMarker *m = fsv_trace_get_marker(t, i);

		if (m->kind != FSA_MARK_VA_MAPPING)
			continue;
		cr_assert_eq(fsv_trace_get_row(t, m->row)->kind, FSV_ROW_VA_SPACE);
		k4 += m->code2 == 4096;
		k64 += m->code2 == 65536;
	}
	cr_assert_gt(k4, 0, "no 4 KB mapping");
	cr_assert_gt(k64, 0, "no 64 KB mapping");
	render(t, v, "mapping-churn");
	fsv_view_free(v);
	fsv_trace_unref(t);
	fsct_outcome_clear(&outcome);
}

Test(recorded, xad_07_cross_adapter_propagations_are_arrows_between_the_adapters)
{
	struct fsct_outcome outcome = {0};
	FsvTrace *t = record_issue_14("cross-adapter", &outcome);
	FsvView *v = view_new(t);
	guint32 prop = FSV_INDEX_NONE;
	double x0, y0, x1, y1;
	FsvItem hit;

	for (guint32 i = 0; i < fsv_trace_get_marker_count(t) && prop == FSV_INDEX_NONE; i++)
		if (fsv_trace_get_marker(t, i)->kind == FSA_MARK_FENCE_PROPAGATION)
			prop = i;
	cr_assert_neq(prop, FSV_INDEX_NONE, "cross-adapter has no propagation");
	{
		const FsvMarker *m = fsv_trace_get_marker(t, prop);

		cr_assert_neq(fsv_trace_find_xfence_row(t, m->other_handle, m->adapter_id),
			      FSV_INDEX_NONE, "the signalling adapter's row");
		cr_assert_neq(fsv_trace_find_xfence_row(t, m->other_handle, (guint32) m->code),
			      FSV_INDEX_NONE, "the notified adapter's row");
		zoom_on(v, m->begin_ns, m->is_open ? m->begin_ns + 1000 : m->end_ns);
	}
	cr_assert(fsv_view_get_propagation_arrow(v, prop, &x0, &y0, &x1, &y1));
	cr_assert(fsv_view_hit_test(v, (x0 + x1) / 2, (y0 + y1) / 2, &hit));
	cr_assert_eq(hit.kind, FSV_ITEM_MARKER);
	cr_assert_eq(fsv_trace_get_marker(t, hit.index)->kind, FSA_MARK_FENCE_PROPAGATION);
	fsv_view_fit(v);
	render(t, v, "cross-adapter");
	fsv_view_free(v);
	fsv_trace_unref(t);
	fsct_outcome_clear(&outcome);
}
