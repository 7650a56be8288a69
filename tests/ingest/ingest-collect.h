/* SPDX-License-Identifier: MIT */
/*
 * Test helper for tests/ingest: runs fsa_ingest_run() on a trace and keeps a copy of everything
 * it delivered (events with their strings and fence handles, discards), so that a test can
 * compare it with what the independent test reader (tests/common/trace-reader.h) sees.
 */
#ifndef FSTI_INGEST_COLLECT_H
#define FSTI_INGEST_COLLECT_H

#include <stddef.h>

#include "fsa/ingest.h"

struct fsti_event {
	struct fsa_event ev; /* its pointers are cleared: see the copies below */
	char *s[FSA_S_COUNT];
	uint64_t *fence_handles;
};

struct fsti_result {
	fsa_status status;
	char *error;
	struct fsa_ingest_stats stats;
	struct fsti_event *events;
	size_t event_count, event_capacity;
	struct fsa_discard *discards;
	size_t *discard_at; /* per discard: how many events had arrived before it */
	size_t discard_count, discard_capacity;
	char *notes; /* the notes, one a line, NULL when none */
	uint64_t progress_calls;
	double last_fraction;
};

/* Reads `trace` into *result (zeroed first); release with fsti_result_fini(). */
void fsti_collect(const char *trace, struct fsti_result *result);
void fsti_result_fini(struct fsti_result *result);

/* Events of one type among the collected ones. */
size_t fsti_count(const struct fsti_result *result, enum fsa_event_type type);

#endif /* FSTI_INGEST_COLLECT_H */
