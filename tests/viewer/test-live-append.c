/* SPDX-License-Identifier: MIT */
/*
 * The live viewer's incremental trace (issue 16 §4, s11; FsvTraceAppend in
 * viewer/core/fsv-trace-private.h): one analyzer model fed each event once, a trace built from
 * the items it gave out and what it still holds open (fsa_model_peek). Checked on traces of
 * traces/, each read with analyzer/ingest as the live reader reads a session:
 *   - after N updates (a trace built every STEP events), the session's end gives the very trace
 *     that fsv_trace_load() builds from the whole recording at once: every array of the trace
 *     (ops, packets, markers, edges, rows, lanes, LODs, counters, …) byte for byte. The updates
 *     (peeks) left the model as it was.
 *   - each update is the trace of the events so far: every operation it shows completed is the
 *     operation of that id in the trace a model fed the same events at once gives, with the same
 *     times, state, row and lane; every ended packet and closed marker is there too.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "fsv-trace-storage.h"

#define STEP 250

/* A deep copy of each event (ingest lends them for the call only). */
typedef struct {
	GArray *events;   /* struct fsa_event, strings and handles owned */
	GArray *discards; /* struct fsa_discard */
	FsvTraceAppend *append;
	GPtrArray *updates; /* FsvTrace of each update */
	GArray *update_at;  /* gsize: events fed before each update */
} Feed;

static fsa_status
feed_event(void *data, const struct fsa_event *event)
{
	Feed *feed = data;
	struct fsa_event copy = *event;

	for (guint s = 0; s < FSA_S_COUNT; s++)
		copy.s[s] = g_strdup(event->s[s]);
	copy.fence_handles =
	    event->fence_handles && event->fence_handle_count
		? g_memdup2(event->fence_handles, event->fence_handle_count * sizeof(guint64))
		: NULL;
	g_array_append_val(feed->events, copy);
	_fsv_trace_append_event(feed->append, event, NULL);
	if (feed->events->len % STEP == 0) {
		gsize at = feed->events->len;

		g_ptr_array_add(feed->updates,
				_fsv_trace_append_build(feed->append, FALSE, NULL, NULL));
		g_array_append_val(feed->update_at, at);
	}
	return FSA_OK;
}

static fsa_status
feed_discard(void *data, const struct fsa_discard *discard)
{
	Feed *feed = data;

	g_array_append_val(feed->discards, *discard);
	_fsv_trace_append_event(feed->append, NULL, discard);
	return FSA_OK;
}

static void
feed_clear(Feed *feed)
{
	for (guint i = 0; i < feed->events->len; i++) {
		struct fsa_event *e = &g_array_index(feed->events, struct fsa_event, i);

		for (guint s = 0; s < FSA_S_COUNT; s++)
			g_free((char *) e->s[s]);
		g_free((void *) e->fence_handles);
	}
	g_array_unref(feed->events);
	g_array_unref(feed->discards);
	g_ptr_array_unref(feed->updates);
	g_array_unref(feed->update_at);
	_fsv_trace_append_free(feed->append);
}

/* Every array of A and B, byte for byte (the path it was opened as aside). */
static void
expect_same_arrays(FsvTrace *a, FsvTrace *b, const char *name)
{
	for (guint i = 0; i < _fsv_trace_array_count; i++) {
		const FsvTraceArrayInfo *info = &_fsv_trace_arrays[i];
		gsize na = *_fsv_trace_array_count_of(a, info),
		      nb = *_fsv_trace_array_count_of(b, info);

		cr_expect_eq(na, nb, "%s: %.4s: %zu elements, at once %zu", name, info->tag, na,
			     nb);
		if (na == nb && na > 0)
			cr_expect_eq(
			    memcmp(*_fsv_trace_array_data(a, info), *_fsv_trace_array_data(b, info),
				   na * info->element_size),
			    0, "%s: %.4s differs from the trace built at once", name, info->tag);
	}
}

static gboolean
same_row(FsvTrace *a, guint32 ra, FsvTrace *b, guint32 rb)
{
	const FsvRow *x, *y;

	if (ra == FSV_INDEX_NONE || rb == FSV_INDEX_NONE)
		return ra == rb;
	x = fsv_trace_get_row(a, ra);
	y = fsv_trace_get_row(b, rb);
	return x->kind == y->kind && x->adapter_id == y->adapter_id &&
	       x->engine_id == y->engine_id && x->process_id == y->process_id &&
	       x->hwqueue_handle == y->hwqueue_handle && x->context_handle == y->context_handle &&
	       x->fence_global_handle == y->fence_global_handle;
}

/* UPDATE (the incremental trace of the first N events) against AT_ONCE (a model fed them at
 * once and finished): what UPDATE shows completed is AT_ONCE's. */
static void
expect_update_is_prefix(FsvTrace *update, FsvTrace *at_once, const char *name, gsize n)
{
	guint completed = 0;

	for (guint32 i = 0; i < fsv_trace_get_op_count(update); i++) {
		const FsvOp *o = fsv_trace_get_op(update, i), *p;
		guint32 j;

		if (o->state == FSA_OP_NEVER_COMPLETED)
			continue;
		completed++;
		j = fsv_trace_find_op_by_id(at_once, o->id);
		cr_assert_neq(j, FSV_INDEX_NONE,
			      "%s at %zu events: op %" G_GUINT64_FORMAT
			      " is not in the trace built at once",
			      name, n, o->id);
		p = fsv_trace_get_op(at_once, j);
		cr_expect(o->begin_ns == p->begin_ns && o->end_ns == p->end_ns &&
			      o->state == p->state && o->kind == p->kind &&
			      o->fence_value == p->fence_value,
			  "%s at %zu events: op %" G_GUINT64_FORMAT " differs", name, n, o->id);
		cr_expect(same_row(update, o->row, at_once, p->row),
			  "%s at %zu events: op %" G_GUINT64_FORMAT " on another row", name, n,
			  o->id);
	}
	cr_expect_leq(fsv_trace_get_op_count(update), fsv_trace_get_op_count(at_once),
		      "%s at %zu events", name, n);
	/* The summary counts what is shown: the ops and packets the model gave out and the ones it
	 * still holds (never completed, running). */
	{
		const struct fsa_summary *sum = fsv_trace_get_summary(update);
		guint64 ops = 0, open = 0;

		for (guint s = 0; s < G_N_ELEMENTS(sum->op_counts); s++)
			for (guint k = 0; k < G_N_ELEMENTS(sum->op_counts[0]); k++)
				ops += sum->op_counts[s][k];
		for (guint32 i = 0; i < fsv_trace_get_op_count(update); i++)
			open += fsv_trace_get_op(update, i)->state == FSA_OP_NEVER_COMPLETED;
		cr_expect_eq(ops, fsv_trace_get_op_count(update), "%s at %zu events: op counts",
			     name, n);
		cr_expect_eq(sum->never_completed_ops, open, "%s at %zu events: never completed",
			     name, n);
		cr_expect_eq(sum->packet_count, fsv_trace_get_packet_count(update),
			     "%s at %zu events: packet count", name, n);
	}
	/* Every row of the trace at once is there (rows come from objects, not from items). */
	cr_expect_eq(fsv_trace_get_row_count(update), fsv_trace_get_row_count(at_once),
		     "%s at %zu events: rows", name, n);
	for (guint32 r = 0;
	     r < fsv_trace_get_row_count(update) && r < fsv_trace_get_row_count(at_once); r++)
		cr_expect(same_row(update, r, at_once, r), "%s at %zu events: row %u", name, n, r);
	/* Ended packets and closed markers: as many or more in the trace at once (it also ends
	 * the ones still open). */
	{
		guint ended = 0, ended_at_once = 0;

		for (guint32 i = 0; i < fsv_trace_get_packet_count(update); i++)
			ended += fsv_trace_get_packet(update, i)->status != FSA_PACKET_NEVER_ENDED;
		for (guint32 i = 0; i < fsv_trace_get_packet_count(at_once); i++)
			ended_at_once +=
			    fsv_trace_get_packet(at_once, i)->status != FSA_PACKET_NEVER_ENDED;
		cr_expect_leq(ended, ended_at_once, "%s at %zu events: packets", name, n);
		cr_expect_eq(fsv_trace_get_packet_count(update),
			     fsv_trace_get_packet_count(at_once), "%s at %zu events: packets", name,
			     n);
		/* At once, the interrupts raised and not handled yet become unhandled-interrupt
		 * markers; live they are in flight, not shown. */
		cr_expect_leq(fsv_trace_get_marker_count(update),
			      fsv_trace_get_marker_count(at_once), "%s at %zu events: markers",
			      name, n);
		for (guint32 i = 0, k = 0; i < fsv_trace_get_marker_count(at_once); i++) {
			const FsvMarker *m = fsv_trace_get_marker(at_once, i);

			if (m->kind == FSA_MARK_INTERRUPT_UNHANDLED)
				continue;
			cr_assert_lt(k, fsv_trace_get_marker_count(update),
				     "%s at %zu events: marker %u missing", name, n, i);
			cr_expect_eq(fsv_trace_get_marker(update, k)->kind, m->kind,
				     "%s at %zu events: marker %u", name, n, i);
			cr_expect_eq(fsv_trace_get_marker(update, k)->begin_ns, m->begin_ns,
				     "%s at %zu events: marker %u", name, n, i);
			k++;
		}
	}
	(void) completed;
}

static void
check_trace(const char *name)
{
	g_autofree char *path = g_build_filename(FST_TRACES, name, NULL);
	Feed feed = {
	    .events = g_array_new(FALSE, FALSE, sizeof(struct fsa_event)),
	    .discards = g_array_new(FALSE, FALSE, sizeof(struct fsa_discard)),
	    .append = _fsv_trace_append_new(path),
	    .updates = g_ptr_array_new_with_free_func((GDestroyNotify) fsv_trace_unref),
	    .update_at = g_array_new(FALSE, FALSE, sizeof(gsize)),
	};
	const struct fsa_ingest_callbacks callbacks = {
	    .data = &feed,
	    .event = feed_event,
	    .discard = feed_discard,
	    .needs_payload = fsa_model_needs_payload,
	};
	struct fsa_ingest_stats stats = {0};
	char *message = NULL;
	fsa_status status;
	g_autoptr(FsvTrace) whole = NULL;
	g_autoptr(FsvTrace) at_once = NULL;
	g_autoptr(GError) error = NULL;

	cr_assert_not_null(feed.append);
	status = fsa_ingest_run(path, &callbacks, &stats, &message);
	cr_assert_eq(status, FSA_OK, "%s: %s", name, message ? message : "?");
	free(message);
	cr_assert_geq(feed.updates->len, 2, "%s: %u updates", name, feed.updates->len);
	whole = _fsv_trace_append_build(feed.append, TRUE, &stats, NULL);
	at_once = fsv_trace_load(path, NULL, NULL, NULL, &error);
	cr_assert_not_null(at_once, "%s: %s", name, error->message);
	expect_same_arrays(whole, at_once, name);
	/* Each update against a model fed its events at once (a trace without tracer losses:
	 * _fsv_trace_new_from_events feeds events only). */
	cr_assert_eq(feed.discards->len, 0, "%s has tracer losses", name);
	for (guint u = 0; u < feed.updates->len; u++) {
		gsize n = g_array_index(feed.update_at, gsize, u);
		g_autoptr(FsvTrace) prefix = _fsv_trace_new_from_events(
		    name, (const struct fsa_event *) feed.events->data, n);

		expect_update_is_prefix(g_ptr_array_index(feed.updates, u), prefix, name, n);
	}
	feed_clear(&feed);
}

Test(live_append, frame_pipeline_updates_then_end_equal_the_trace_built_at_once)
{
	check_trace("frame-pipeline");
}

Test(live_append, producer_consumer_updates_then_end_equal_the_trace_built_at_once)
{
	check_trace("producer-consumer");
}

Test(live_append, cpu_waiters_updates_then_end_equal_the_trace_built_at_once)
{
	check_trace("cpu-waiters");
}

Test(live_append, log_overrun_updates_then_end_equal_the_trace_built_at_once)
{
	check_trace("log-overrun");
}

Test(live_append, tdr_hang_updates_then_end_equal_the_trace_built_at_once)
{
	check_trace("tdr-hang");
}

Test(live_append, page_fault_updates_then_end_equal_the_trace_built_at_once)
{
	check_trace("page-fault");
}

Test(live_append, cross_adapter_updates_then_end_equal_the_trace_built_at_once)
{
	check_trace("cross-adapter");
}
