/* SPDX-License-Identifier: MIT */
/*
 * tests/viewer: the synthetic timelines of the unit tests (test-counters, test-lanes,
 * test-doorbell, test-preempt, test-gpummu, test-describe), written as the normalized events a
 * recording gives the analyzer model and fed to it as the viewer's index builder does. One
 * implementation of what each test used to copy.
 */
#ifndef FST_TIMELINE_H
#define FST_TIMELINE_H

#include <stdint.h>

#include <glib.h>

#include "fsa/event.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

/* An empty list of events (struct fsa_event). Returns: (transfer full). */
GArray *fst_events_new(void);

/*
 * Appends the event NAME (an event name without its provider, as fsa_event_type_from_name()
 * knows it) at trace time TS to EVENTS, with the fields given as pairs of a field name and a
 * uint64_t value, NULL after the last. An unknown event or field fails the test.
 */
void fst_event_add(GArray *events, const char *name, uint64_t ts, ...) G_GNUC_NULL_TERMINATED;

/* EVENTS[FIRST..] in time order as a recording delivers them: stable, so events of the same
 * time keep the order they were written in. */
void fst_events_sort(GArray *events, guint first);

/* A trace named NAME from EVENTS, through the model. Returns: (transfer full). */
FsvTrace *fst_trace_from_events(const char *name, const GArray *events);

G_END_DECLS

#endif /* FST_TIMELINE_H */
