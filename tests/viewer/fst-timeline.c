/* SPDX-License-Identifier: MIT */
/*
 * tests/viewer: synthetic timelines as normalized events (fst-timeline.h).
 */
#include "fst-timeline.h"

#include <stdarg.h>

#include <criterion/criterion.h>

#include "fsv-trace-private.h"

GArray *
fst_events_new(void)
{
	return g_array_new(FALSE, FALSE, sizeof(struct fsa_event));
}

void
fst_event_add(GArray *events, const char *name, uint64_t ts, ...)
{
	struct fsa_event e;
	const char *field;
	va_list args;

	fsa_event_clear(&e);
	e.type = fsa_event_type_from_name(name);
	cr_assert_neq(e.type, FSA_EV_UNKNOWN, "no event %s", name);
	e.ts_ns = ts;
	e.cpu_id = UINT32_MAX;
	va_start(args, ts);
	while ((field = va_arg(args, const char *))) {
		int slot = fsa_field_from_name(field);
		uint64_t value = va_arg(args, uint64_t);

		cr_assert_geq(slot, 0, "no field %s", field);
		fsa_event_set(&e, (enum fsa_field) slot, value);
	}
	va_end(args);
	g_array_append_val(events, e);
}

static gint
compare_event_ts(gconstpointer a, gconstpointer b, gpointer unused)
{
	const struct fsa_event *x = a, *y = b;

	(void) unused;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

void
fst_events_sort(GArray *events, guint first)
{
	g_return_if_fail(first <= events->len);
	/* g_qsort_with_data is a stable merge sort (GLib ≥ 2.32). */
	g_qsort_with_data(&g_array_index(events, struct fsa_event, first),
			  (gint) (events->len - first), sizeof(struct fsa_event), compare_event_ts,
			  NULL);
}

FsvTrace *
fst_trace_from_events(const char *name, const GArray *events)
{
	return _fsv_trace_new_from_events(name, (const struct fsa_event *) events->data,
					  events->len);
}
