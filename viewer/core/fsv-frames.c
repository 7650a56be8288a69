/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: a trace's frames (fsv-frames.h): fsa_frame_builder run over the model's markers
 * while the trace is built, the frames rows' arrays and level-of-detail indexes, and their
 * accessors. The frames are the analyzer's (docs/analyzer.md "Frames"): this file only stores
 * them, so the viewer's frames are the report's `frames` section's, frame for frame.
 */
#include "fsv-frames.h"
#include "fsv-frames-private.h"
#include "fsv-lod-private.h"

#include "fsa/frames.h"

/* ---- While building --------------------------------------------------------------------- */

static fsa_status
on_frame(void *data, const struct fsa_frame *frame)
{
	TraceBuild *build = data;

	g_array_append_val(build->frames, *frame);
	return FSA_OK;
}

void
_fsv_build_frames_init(TraceBuild *build)
{
	build->frames = g_array_new(FALSE, FALSE, sizeof(struct fsa_frame));
	build->stored_frames = g_array_new(FALSE, TRUE, sizeof(FsvFrame));
	build->frame_rows = g_array_new(FALSE, TRUE, sizeof(FsvFrameRow));
	build->frame_markers = g_array_new(FALSE, FALSE, sizeof(struct fsa_marker));
	/* Out of memory: the trace has no frames rather than no trace. */
	build->frame_builder = fsa_frame_builder_create(on_frame, build);
}

void
_fsv_build_frames_add_marker(TraceBuild *build, const struct fsa_marker *marker)
{
	/* The builder reads only these (fsa/frames.h). */
	if (marker->kind == FSA_MARK_VSYNC || marker->kind == FSA_MARK_FLIP)
		g_array_append_val(build->frame_markers, *marker);
	if (build->frame_builder &&
	    fsa_frame_builder_add_marker(build->frame_builder, marker) != FSA_OK)
		g_clear_pointer(&build->frame_builder, fsa_frame_builder_destroy);
}

void
_fsv_build_frames_finish(TraceBuild *build)
{
	if (build->frame_builder)
		(void) fsa_frame_builder_finish(build->frame_builder);
	g_clear_pointer(&build->frame_builder, fsa_frame_builder_destroy);
}

void
_fsv_build_frames_replay(TraceBuild *to, const TraceBuild *from)
{
	for (guint i = 0; i < from->frame_markers->len; i++)
		_fsv_build_frames_add_marker(
		    to, &g_array_index(from->frame_markers, struct fsa_marker, i));
}

void
_fsv_build_frames_free(TraceBuild *build)
{
	g_clear_pointer(&build->frame_builder, fsa_frame_builder_destroy);
	g_clear_pointer(&build->frames, g_array_unref);
	g_clear_pointer(&build->stored_frames, g_array_unref);
	g_clear_pointer(&build->frame_rows, g_array_unref);
	g_clear_pointer(&build->frame_markers, g_array_unref);
}

bool
_fsv_build_display_has_frames(const TraceBuild *build, guint32 adapter_id, guint32 source_id)
{
	for (guint i = 0; i < build->frames->len; i++) {
		const struct fsa_frame *f = &g_array_index(build->frames, struct fsa_frame, i);

		if (f->adapter_id == adapter_id && f->source_id == source_id)
			return true;
	}
	return false;
}

static FsvFrame
stored_frame(const struct fsa_frame *f, guint32 row, guint64 trace_end_ns)
{
	FsvFrame s = {0};

	s.index = f->index;
	s.flip_id = f->flip_id;
	s.vsync_count = f->vsync_count;
	s.begin_ns = f->begin_ns;
	s.end_ns = f->end_ns;
	s.frame_time_ns = f->frame_time_ns;
	s.missed_vsyncs = f->missed_vsyncs;
	s.queued_ns = f->queued_ns;
	s.done_ns = f->done_ns;
	s.present_latency_ns = f->present_latency_ns;
	s.context_handle = f->context_handle;
	s.vsync_period_ns = f->vsync_period_ns;
	s.adapter_id = f->adapter_id;
	s.source_id = f->source_id;
	s.process_id = f->process_id;
	s.row = row;
	s.is_pending = f->is_pending;
	/* The box (fsv-frames.h). */
	s.draw_end_ns = f->is_pending                ? MAX(trace_end_ns, f->queued_ns)
			: f->end_ns != FSA_TIME_NONE ? f->end_ns
						     : f->done_ns;
	s.draw_begin_ns = f->begin_ns != FSA_TIME_NONE ? f->begin_ns : f->queued_ns;
	if (s.draw_end_ns == FSA_TIME_NONE)
		s.draw_end_ns = s.draw_begin_ns;
	if (s.draw_begin_ns == FSA_TIME_NONE || s.draw_begin_ns > s.draw_end_ns)
		s.draw_begin_ns = s.draw_end_ns;
	return s;
}

static int
compare_u64(const void *a, const void *b)
{
	guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

	return x < y ? -1 : x > y;
}

/* The default budget of a display: the median of its frames' measured vsync periods. */
static guint64
median_period(const FsvFrame *frames, guint n)
{
	g_autofree guint64 *periods = g_new(guint64, MAX(n, 1));
	guint k = 0;

	for (guint i = 0; i < n; i++)
		if (frames[i].vsync_period_ns != FSA_TIME_NONE && frames[i].vsync_period_ns > 0)
			periods[k++] = frames[i].vsync_period_ns;
	if (k == 0)
		return 0;
	qsort(periods, k, sizeof(*periods), compare_u64);
	return periods[k / 2];
}

/* A bucket of frames narrower than a pixel is drawn as its top (fsv-render-frames.c), so the top
 * is its worst frame (docs/viewer.md "Level of detail"): one that missed a vsync (the most missed,
 * then the longest frame time), else the longest frame time, which is over budget whenever any
 * of the bucket's is, whatever the budget; else a pending present; else one of unknown time. Not
 * the longest box: a pending present's runs to the end of the trace and would hide its
 * neighbours. */
/* A frames row's second line: "N frames · budget B" and SUFFIX, "N frames" when B is 0. */
static char *
dup_sublabel(guint count, guint64 budget_ns, const char *suffix)
{
	g_autofree char *budget = NULL;

	if (budget_ns == 0)
		return g_strdup_printf("%u frames", count);
	budget = fsv_format_duration(budget_ns);
	return g_strdup_printf("%u frames · budget %s%s", count, budget, suffix);
}

static guint64
frame_rank(guint32 id, gpointer data)
{
	const FsvFrame *f = &g_array_index((GArray *) data, FsvFrame, id);
	const guint64 low = (UINT64_C(1) << 62) - 1;

	if (f->is_pending)
		return UINT64_C(1) << 62;
	if (f->missed_vsyncs > 0)
		return UINT64_C(3) << 62 | MIN(f->missed_vsyncs, UINT64_C(0xffff)) << 46 |
		       (f->frame_time_ns == FSA_TIME_NONE ? 0
							  : MIN(f->frame_time_ns >> 16, low >> 16));
	if (f->frame_time_ns != FSA_TIME_NONE)
		return UINT64_C(2) << 62 | MIN(f->frame_time_ns, low);
	return 0;
}

void
_fsv_build_index_frames(TraceBuild *build)
{
	g_autoptr(GArray) items = g_array_new(FALSE, FALSE, sizeof(FsvLodItem));

	for (guint32 r = 0; r < build->rows->len; r++) {
		const FsvRow *row = _fsv_build_row_at(build, r);
		FsvFrameRow fr = {r, build->stored_frames->len, 0, FSV_INDEX_NONE, 0};

		if (row->kind != FSV_ROW_FRAMES)
			continue;
		/* The builder gives a display's frames in order, its pending presents last. */
		guint64 period = FSA_TIME_NONE;

		for (guint i = 0; i < build->frames->len; i++) {
			const struct fsa_frame *f =
			    &g_array_index(build->frames, struct fsa_frame, i);
			FsvFrame s;

			if (f->adapter_id != row->adapter_id || f->source_id != row->source_id)
				continue;
			s = stored_frame(f, r, build->end_ns);
			/* A frame's budget is the vsync period last measured at it, as the report
			 * reads it (frame-stats.c): one measured earlier when its own is not. */
			if (s.vsync_period_ns != FSA_TIME_NONE)
				period = s.vsync_period_ns;
			s.vsync_period_ns = period;
			g_array_append_val(build->stored_frames, s);
		}
		fr.count = build->stored_frames->len - fr.first;
		g_array_set_size(items, 0);
		for (guint i = 0; i < fr.count; i++) {
			const FsvFrame *s =
			    &g_array_index(build->stored_frames, FsvFrame, fr.first + i);
			FsvLodItem item = {s->draw_begin_ns, s->draw_end_ns, fr.first + i};

			g_array_append_val(items, item);
		}
		if (fr.count > 0)
			fr.lod = _fsv_lod_build_ranked((const FsvLodItem *) (gpointer) items->data,
						       items->len, FSV_ITEM_FRAME, frame_rank,
						       build->stored_frames, build->lods,
						       build->lod_items, build->lod_buckets);
		fr.budget_ns = median_period(
		    &g_array_index(build->stored_frames, FsvFrame, fr.first), fr.count);
		g_array_append_val(build->frame_rows, fr);
		/* The row's second line: its frames and their budget. */
		{
			FsvRow *w = _fsv_build_row_at(build, r);

			g_free(w->sublabel);
			w->sublabel = dup_sublabel(fr.count, fr.budget_ns, "");
		}
	}
}

void
_fsv_build_freeze_frames(TraceBuild *build, FsvTrace *trace)
{
	trace->frames = _fsv_build_steal_array(build->stored_frames, &trace->n_frames);
	trace->frame_rows = _fsv_build_steal_array(build->frame_rows, &trace->n_frame_rows);
}

/* ---- Reading ----------------------------------------------------------------------------- */

/* The frames row entry of ROW, NULL when ROW is no frames row. */
static const FsvFrameRow *
frame_row(const FsvTrace *trace, guint32 row)
{
	guint lo = 0, hi = (guint) trace->n_frame_rows;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (trace->frame_rows[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < trace->n_frame_rows && trace->frame_rows[lo].row == row ? &trace->frame_rows[lo]
									    : NULL;
}

guint
fsv_trace_get_frame_count(const FsvTrace *trace)
{
	return (guint) trace->n_frames;
}

const FsvFrame *
fsv_trace_get_frame(const FsvTrace *trace, guint32 frame)
{
	g_return_val_if_fail(frame < trace->n_frames, NULL);
	return &trace->frames[frame];
}

const FsvFrame *
fsv_trace_get_row_frames(const FsvTrace *trace, guint32 row, guint32 *first, guint *n,
			 guint64 *budget_ns)
{
	const FsvFrameRow *fr = frame_row(trace, row);

	*first = fr ? fr->first : 0;
	*n = fr ? fr->count : 0;
	if (budget_ns)
		*budget_ns = fr ? fr->budget_ns : 0;
	return fr ? trace->frames + fr->first : trace->frames;
}

char *
fsv_trace_dup_frames_sublabel(const FsvTrace *trace, guint32 row, guint64 budget_ns)
{
	const FsvFrameRow *fr;

	/* Asked for every row label drawn: nothing to look up without a budget given. */
	if (budget_ns == 0 || !(fr = frame_row(trace, row)))
		return NULL;
	return dup_sublabel(fr->count, budget_ns, " (given)");
}

guint32
fsv_trace_find_frame(const FsvTrace *trace, guint64 number)
{
	for (gsize i = 0; i < trace->n_frames; i++)
		if (trace->frames[i].index == number)
			return (guint32) i;
	return FSV_INDEX_NONE;
}

FsvFrameGrade
fsv_frame_grade(const FsvFrame *frame, guint64 budget_ns)
{
	if (frame->is_pending)
		return FSV_FRAME_PENDING;
	if (frame->missed_vsyncs > 0)
		return FSV_FRAME_MISSED;
	if (frame->frame_time_ns == FSA_TIME_NONE)
		return FSV_FRAME_UNKNOWN;
	if (fsv_frame_is_over_budget(frame, budget_ns))
		return FSV_FRAME_OVER;
	return FSV_FRAME_ON_TIME;
}

gboolean
fsv_frame_is_over_budget(const FsvFrame *frame, guint64 budget_ns)
{
	/* The report's rule (fsa/frames.h), on the report's budget. */
	return !frame->is_pending &&
	       fsa_frame_is_over_budget(frame->frame_time_ns,
					budget_ns ? budget_ns : frame->vsync_period_ns);
}

guint32
fsv_trace_find_frame_flip(const FsvTrace *trace, guint32 row, guint64 flip_id, guint64 queued_ns)
{
	guint n = 0, lo = 0, hi;
	const guint32 *markers;

	if (row == 0 || row >= trace->n_rows || queued_ns == FSA_TIME_NONE ||
	    fsv_trace_get_row(trace, row - 1)->kind != FSV_ROW_DISPLAY)
		return FSV_INDEX_NONE;
	markers = fsv_trace_get_row_markers(trace, row - 1, &n);
	hi = n;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (fsv_trace_get_marker(trace, markers[mid])->begin_ns < queued_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint i = lo; i < n; i++) {
		const FsvMarker *m = fsv_trace_get_marker(trace, markers[i]);

		if (m->begin_ns > queued_ns)
			break;
		if (_fsv_marker_is_flip(m) && _fsv_flip_id(m) == flip_id)
			return markers[i];
	}
	return FSV_INDEX_NONE;
}

const FsvLod *
_fsv_trace_get_frame_lod(const FsvTrace *trace, guint32 row)
{
	const FsvFrameRow *fr = frame_row(trace, row);

	if (!fr || fr->lod >= trace->n_lods || trace->lods[fr->lod].n_items == 0)
		return NULL;
	return &trace->lod_views[fr->lod];
}
