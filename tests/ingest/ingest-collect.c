/* SPDX-License-Identifier: MIT */
/*
 * Keeps a deep copy of what analyzer/ingest delivers, for the tests (ingest-collect.h). A test
 * helper: it allocates per event, which the analyzer itself never does.
 */
#define _GNU_SOURCE

#include "ingest-collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fsa_status
collect_event(void *data, const struct fsa_event *event)
{
	struct fsti_result *r = data;
	struct fsti_event *copy;

	if (r->event_count == r->event_capacity) {
		size_t capacity = r->event_capacity ? r->event_capacity * 2 : 1024;
		struct fsti_event *events = realloc(r->events, capacity * sizeof(*events));

		if (!events)
			return FSA_ERR_NOMEM;
		r->events = events;
		r->event_capacity = capacity;
	}
	copy = &r->events[r->event_count++];
	memset(copy, 0, sizeof(*copy));
	copy->ev = *event;
	for (int s = 0; s < FSA_S_COUNT; s++) {
		copy->ev.s[s] = NULL;
		if (event->s[s] && !(copy->s[s] = strdup(event->s[s])))
			return FSA_ERR_NOMEM;
	}
	copy->ev.fence_handles = NULL;
	if (event->fence_handle_count) {
		copy->fence_handles = malloc(event->fence_handle_count * sizeof(uint64_t));
		if (!copy->fence_handles)
			return FSA_ERR_NOMEM;
		memcpy(copy->fence_handles, event->fence_handles,
		       event->fence_handle_count * sizeof(uint64_t));
	}
	return FSA_OK;
}

static fsa_status
collect_discard(void *data, const struct fsa_discard *discard)
{
	struct fsti_result *r = data;

	if (r->discard_count == r->discard_capacity) {
		size_t capacity = r->discard_capacity ? r->discard_capacity * 2 : 16;
		struct fsa_discard *discards = realloc(r->discards, capacity * sizeof(*discards));
		size_t *at = discards ? realloc(r->discard_at, capacity * sizeof(*at)) : NULL;

		if (discards)
			r->discards = discards;
		if (!at)
			return FSA_ERR_NOMEM;
		r->discard_at = at;
		r->discard_capacity = capacity;
	}
	r->discard_at[r->discard_count] = r->event_count;
	r->discards[r->discard_count++] = *discard;
	return FSA_OK;
}

static bool
collect_progress(void *data, uint64_t events, double fraction)
{
	struct fsti_result *r = data;

	(void) events;
	r->progress_calls++;
	r->last_fraction = fraction;
	return false;
}

static void
collect_note(void *data, const char *text)
{
	struct fsti_result *r = data;
	char *notes = NULL;

	if (asprintf(&notes, "%s%s\n", r->notes ? r->notes : "", text) < 0)
		abort();
	free(r->notes);
	r->notes = notes;
}

void
fsti_collect(const char *trace, struct fsti_result *result)
{
	const struct fsa_ingest_callbacks callbacks = {
	    .data = result,
	    .event = collect_event,
	    .discard = collect_discard,
	    .progress = collect_progress,
	    .note = collect_note,
	};

	memset(result, 0, sizeof(*result));
	result->status = fsa_ingest_run(trace, &callbacks, &result->stats, &result->error);
}

void
fsti_result_fini(struct fsti_result *result)
{
	for (size_t i = 0; i < result->event_count; i++) {
		for (int s = 0; s < FSA_S_COUNT; s++)
			free(result->events[i].s[s]);
		free(result->events[i].fence_handles);
	}
	free(result->events);
	free(result->discards);
	free(result->discard_at);
	free(result->error);
	free(result->notes);
	memset(result, 0, sizeof(*result));
}

size_t
fsti_count(const struct fsti_result *result, enum fsa_event_type type)
{
	size_t n = 0;

	for (size_t i = 0; i < result->event_count; i++)
		n += result->events[i].ev.type == type;
	return n;
}
