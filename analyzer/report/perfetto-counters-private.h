/* SPDX-License-Identifier: MIT */
/*
 * The counter tracks of the Perfetto exports (perfetto-counters.c): engine busy, queue depth
 * and fence CurrentValue as step functions, gathered from the model's items by the shared track
 * layer (perfetto-tracks.c) and handed, series by series, to a writer at the end of the export.
 * Private to analyzer/report.
 */
#ifndef FSA_PERFETTO_COUNTERS_PRIVATE_H
#define FSA_PERFETTO_COUNTERS_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "fsa/model.h"

enum perfetto_counter_kind {
	PERFETTO_COUNTER_BUSY,  /* a = adapter, b = engine: per cent of the time a packet runs */
	PERFETTO_COUNTER_DEPTH, /* a = hwqueue: operations submitted minus completed */
	PERFETTO_COUNTER_FENCE, /* a = fence global handle: CurrentValue */
};

struct perfetto_counters;

/* Returns: (transfer full) (nullable: out of memory). */
struct perfetto_counters *perfetto_counters_new(void);
void perfetto_counters_free(struct perfetto_counters *counters);

/* An operation and the span the export draws it over (before any swap or minimum length:
 * BEGIN as the layer computed it for its state, END likewise); FSA_ERR_NOMEM on failure. */
fsa_status perfetto_counters_add_op(struct perfetto_counters *counters, const struct fsa_op *op,
				    uint64_t begin, uint64_t end);
/* A packet's slice as drawn [BEGIN, END). */
fsa_status perfetto_counters_add_packet(struct perfetto_counters *counters,
					const struct fsa_packet *packet, uint64_t begin,
					uint64_t end);
fsa_status perfetto_counters_add_fence_value(struct perfetto_counters *counters,
					     const struct fsa_fence_value *value);

/* A series' change points: COUNT times (absolute trace ns, ascending) and the value from each
 * on. ADAPTER_ID is the engine's, queue's or fence's adapter (UINT32_MAX unknown). */
typedef fsa_status (*perfetto_counter_fn)(void *data, enum perfetto_counter_kind kind, uint64_t a,
					  uint64_t b, uint32_t adapter_id, size_t count,
					  const uint64_t *ns, const int64_t *values);

/* Computes every series and calls WRITE once per series: engines and queues in the order they
 * first appeared, then fences (with MODEL: the fences it knows, each from its initial value).
 * RESOLUTION 0: every change; else per interval of RESOLUTION ns its lowest, highest and last
 * points (busy: the per cent of each interval that was busy). Releases the change points as it
 * goes. */
fsa_status perfetto_counters_write(struct perfetto_counters *counters,
				   const struct fsa_model *model, uint64_t resolution,
				   perfetto_counter_fn write, void *data);

#endif /* FSA_PERFETTO_COUNTERS_PRIVATE_H */
