/* SPDX-License-Identifier: MIT */
/*
 * Frames from the model's vsync and flip markers (fsa/frames.h, docs/analyzer.md "Frames"). A
 * vsync that latched a flip (its value2) and the flip's marker (flip_queued → flip_done, value2
 * = that vsync's count) are the two halves of one frame; the model gives the vsync first (an
 * instant goes out at once) and the flip when flip_done closes it, so a latched vsync waits here
 * for its flip marker, at most FSA_FRAME_HOLD_VSYNCS vsyncs. Either half alone still makes the
 * frame when the other was lost: the flip_done names its vsync's count, the vsync its flip id.
 *
 * It is not a report: no statistics here, only the frames in order, per display.
 */
#include <stdlib.h>
#include <string.h>

#include "fsa/frames.h"

struct held {
	uint64_t vsync_count;
	bool has_vsync, has_flip;
	struct fsa_frame frame; /* the fields known so far */
};

struct display {
	uint32_t adapter_id, source_id;
	uint64_t vsyncs_seen;
	uint64_t last_count, last_ns; /* the latest vsync event: count 0 none */
	uint64_t period_ns;
	/* The previous frame given: its vsync count (0 none) and time. */
	uint64_t frame_count, frame_end_ns, frame_index;
	struct held *held; /* by vsync_count, ascending */
	size_t held_len, held_cap;
};

struct fsa_frame_builder {
	fsa_frame_fn on_frame;
	void *data;
	struct display *displays;
	size_t display_len, display_cap;
	struct fsa_frame *pending; /* presents never on screen, given at finish */
	size_t pending_len, pending_cap;
	uint64_t frame_count;
	fsa_status status; /* the first error: the builder stops */
};

struct fsa_frame_builder *
fsa_frame_builder_create(fsa_frame_fn on_frame, void *data)
{
	struct fsa_frame_builder *builder = calloc(1, sizeof(*builder));

	if (!builder)
		return NULL;
	builder->on_frame = on_frame;
	builder->data = data;
	return builder;
}

void
fsa_frame_builder_destroy(struct fsa_frame_builder *builder)
{
	if (!builder)
		return;
	for (size_t i = 0; i < builder->display_len; i++)
		free(builder->displays[i].held);
	free(builder->displays);
	free(builder->pending);
	free(builder);
}

uint64_t
fsa_frame_builder_frame_count(const struct fsa_frame_builder *builder)
{
	return builder->frame_count;
}

/* Grows *array (of *cap elements of size `size`) to hold one more; false when out of memory. */
static bool
reserve_one(void **array, size_t *cap, size_t len, size_t size)
{
	size_t new_cap;
	void *grown;

	if (len < *cap)
		return true;
	new_cap = *cap ? *cap * 2 : 4;
	grown = realloc(*array, new_cap * size);
	if (!grown)
		return false;
	*array = grown;
	*cap = new_cap;
	return true;
}

static struct display *
get_display(struct fsa_frame_builder *builder, uint32_t adapter_id, uint32_t source_id)
{
	struct display *display;

	for (size_t i = 0; i < builder->display_len; i++) {
		display = &builder->displays[i];
		if (display->adapter_id == adapter_id && display->source_id == source_id)
			return display;
	}
	if (!reserve_one((void **) &builder->displays, &builder->display_cap, builder->display_len,
			 sizeof(*builder->displays)))
		return NULL;
	display = &builder->displays[builder->display_len++];
	*display = (struct display){
	    .adapter_id = adapter_id,
	    .source_id = source_id,
	    .period_ns = FSA_TIME_NONE,
	    .frame_end_ns = FSA_TIME_NONE,
	};
	return display;
}

/* The held frame of vsync `count`, made in its place when new; NULL when out of memory. */
static struct held *
get_held(struct display *display, uint64_t count)
{
	size_t at = display->held_len;

	for (size_t i = 0; i < display->held_len; i++) {
		if (display->held[i].vsync_count == count)
			return &display->held[i];
		if (display->held[i].vsync_count > count) {
			at = i;
			break;
		}
	}
	if (!reserve_one((void **) &display->held, &display->held_cap, display->held_len,
			 sizeof(*display->held)))
		return NULL;
	memmove(&display->held[at + 1], &display->held[at],
		(display->held_len - at) * sizeof(*display->held));
	display->held_len++;
	display->held[at] = (struct held){
	    .vsync_count = count,
	    .frame =
		{
		    .adapter_id = display->adapter_id,
		    .source_id = display->source_id,
		    .vsync_count = count,
		    .end_ns = FSA_TIME_NONE,
		    .queued_ns = FSA_TIME_NONE,
		    .done_ns = FSA_TIME_NONE,
		    .present_latency_ns = FSA_TIME_NONE,
		    .process_id = UINT32_MAX,
		},
	};
	return &display->held[at];
}

/* Complete: both halves, or one half and the other surely lost (at the end: whatever it has). */
static bool
is_complete(const struct display *display, const struct held *held, bool is_final)
{
	if (is_final || (held->has_vsync && held->has_flip))
		return true;
	/* The flip_done came, and the vsync it names is already past: that vsync event is lost. */
	if (held->has_flip && display->last_count >= held->vsync_count)
		return true;
	/* The vsync latched a flip whose marker never came (no flip_queued in the trace). */
	return held->has_vsync && display->last_count >= held->vsync_count + FSA_FRAME_HOLD_VSYNCS;
}

static fsa_status
give(struct fsa_frame_builder *builder, struct display *display, struct held *held)
{
	struct fsa_frame frame = held->frame;
	fsa_status status;

	frame.index = ++display->frame_index;
	frame.vsync_period_ns = display->period_ns;
	if (display->frame_count && held->vsync_count > display->frame_count) {
		frame.missed_vsyncs = held->vsync_count - display->frame_count - 1;
		frame.begin_ns = display->frame_end_ns;
	} else {
		frame.missed_vsyncs = 0;
		frame.begin_ns = FSA_TIME_NONE;
	}
	frame.frame_time_ns = frame.begin_ns != FSA_TIME_NONE && frame.end_ns != FSA_TIME_NONE &&
				      frame.end_ns >= frame.begin_ns
				  ? frame.end_ns - frame.begin_ns
				  : FSA_TIME_NONE;
	display->frame_count = held->vsync_count;
	display->frame_end_ns = frame.end_ns;
	builder->frame_count++;
	status = builder->on_frame ? builder->on_frame(builder->data, &frame) : FSA_OK;
	if (status != FSA_OK)
		builder->status = status;
	return status;
}

/* Gives the held frames that are complete, in vsync order. */
static fsa_status
release(struct fsa_frame_builder *builder, struct display *display, bool is_final)
{
	size_t given = 0;
	fsa_status status = FSA_OK;

	while (given < display->held_len && is_complete(display, &display->held[given], is_final)) {
		status = give(builder, display, &display->held[given]);
		given++;
		if (status != FSA_OK)
			break;
	}
	if (given == 0)
		return status; /* nothing to move (held may still be NULL: memmove of NULL is UB) */
	memmove(display->held, &display->held[given],
		(display->held_len - given) * sizeof(*display->held));
	display->held_len -= given;
	return status;
}

static fsa_status
on_vsync(struct fsa_frame_builder *builder, struct display *display, const struct fsa_marker *m)
{
	uint64_t count = m->value;

	if (display->last_count && count > display->last_count && m->begin_ns >= display->last_ns)
		display->period_ns =
		    (m->begin_ns - display->last_ns) / (count - display->last_count);
	if (count > display->last_count) {
		display->last_count = count;
		display->last_ns = m->begin_ns;
	}
	display->vsyncs_seen++;
	if (m->value2 && count > display->frame_count) {
		struct held *held = get_held(display, count);

		if (!held)
			return builder->status = FSA_ERR_NOMEM;
		held->has_vsync = true;
		held->frame.end_ns = m->begin_ns;
		held->frame.flip_id = m->value2;
	}
	return release(builder, display, false);
}

static fsa_status
on_flip(struct fsa_frame_builder *builder, struct display *display, const struct fsa_marker *m)
{
	struct held *held;

	if (m->end_ns == FSA_TIME_NONE || !m->value2) {
		/* Never on screen by the end of the trace (the model closes it at its finish). */
		struct fsa_frame frame = {
		    .adapter_id = display->adapter_id,
		    .source_id = display->source_id,
		    .flip_id = m->value,
		    .begin_ns = m->begin_ns,
		    .end_ns = FSA_TIME_NONE,
		    .frame_time_ns = FSA_TIME_NONE,
		    .queued_ns = m->begin_ns,
		    .done_ns = FSA_TIME_NONE,
		    .present_latency_ns = FSA_TIME_NONE,
		    .process_id = m->process_id,
		    .context_handle = m->context_handle,
		    .vsync_period_ns = FSA_TIME_NONE,
		    .is_pending = true,
		};

		if (!reserve_one((void **) &builder->pending, &builder->pending_cap,
				 builder->pending_len, sizeof(*builder->pending)))
			return builder->status = FSA_ERR_NOMEM;
		builder->pending[builder->pending_len++] = frame;
		return FSA_OK;
	}
	if (m->value2 <= display->frame_count)
		return FSA_OK; /* its frame went out without it (held too long) */
	held = get_held(display, m->value2);
	if (!held)
		return builder->status = FSA_ERR_NOMEM;
	held->has_flip = true;
	if (!held->frame.flip_id)
		held->frame.flip_id = m->value;
	held->frame.queued_ns = m->begin_ns;
	held->frame.done_ns = m->end_ns;
	held->frame.present_latency_ns =
	    m->end_ns >= m->begin_ns ? m->end_ns - m->begin_ns : FSA_TIME_NONE;
	held->frame.process_id = m->process_id;
	held->frame.context_handle = m->context_handle;
	return release(builder, display, false);
}

fsa_status
fsa_frame_builder_add_marker(struct fsa_frame_builder *builder, const struct fsa_marker *marker)
{
	struct display *display;

	if (builder->status != FSA_OK)
		return builder->status;
	if (marker->kind != FSA_MARK_VSYNC && marker->kind != FSA_MARK_FLIP)
		return FSA_OK;
	display = get_display(builder, marker->adapter_id, (uint32_t) marker->other_handle);
	if (!display)
		return builder->status = FSA_ERR_NOMEM;
	return marker->kind == FSA_MARK_VSYNC ? on_vsync(builder, display, marker)
					      : on_flip(builder, display, marker);
}

static int
compare_pending(const void *a, const void *b)
{
	const struct fsa_frame *x = a, *y = b;

	if (x->adapter_id != y->adapter_id)
		return x->adapter_id < y->adapter_id ? -1 : 1;
	if (x->source_id != y->source_id)
		return x->source_id < y->source_id ? -1 : 1;
	return x->flip_id < y->flip_id ? -1 : x->flip_id > y->flip_id;
}

fsa_status
fsa_frame_builder_finish(struct fsa_frame_builder *builder)
{
	fsa_status status = builder->status;

	for (size_t i = 0; status == FSA_OK && i < builder->display_len; i++)
		status = release(builder, &builder->displays[i], true);
	if (builder->pending_len > 1)
		qsort(builder->pending, builder->pending_len, sizeof(*builder->pending),
		      compare_pending);
	for (size_t i = 0; status == FSA_OK && i < builder->pending_len; i++) {
		struct fsa_frame *frame = &builder->pending[i];
		struct display *display = get_display(builder, frame->adapter_id, frame->source_id);

		if (!display)
			return builder->status = FSA_ERR_NOMEM;
		frame->index = ++display->frame_index;
		if (builder->on_frame)
			status = builder->on_frame(builder->data, frame);
	}
	builder->pending_len = 0;
	if (status != FSA_OK)
		builder->status = status;
	return status;
}
