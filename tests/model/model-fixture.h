/* SPDX-License-Identifier: MIT */
/*
 * Synthetic traces for analyzer/model: one adapter (100 MHz GPU counter, GPU tick t maps to trace
 * time 10 t ns through the correlation pairs the fixture writes), one process, a user-mode queue
 * UQ and a kernel-mode queue KQ, two fences (local handles FA, FB), and a sink that keeps
 * everything the model gives out, so tests can assert on exact numbers.
 */
#ifndef FST_MODEL_FIXTURE_H
#define FST_MODEL_FIXTURE_H

#include <stdint.h>

#include "fencescope-tp-enums.h"
#include "fsa/model.h"

#define PID  1
#define UQ   UINT64_C(0x8003000000000005)
#define UQ2  UINT64_C(0x8003000000000009)
#define KQ   UINT64_C(0x8003000000000007)
#define FA   UINT64_C(0x40) /* local handle of fence A */
#define FA_G UINT64_C(0x8004000000000010)
#define FB   UINT64_C(0x80)
#define FB_G UINT64_C(0x8004000000000020)
#define CTX  UINT64_C(0x8002000000000002)
#define DEV  UINT64_C(0x8001000000000001)

struct collected {
	struct fsa_op ops[65536];
	size_t op_count;
	struct fsa_edge edges[32768];
	size_t edge_count;
	struct fsa_packet packets[256];
	size_t packet_count;
	struct fsa_marker markers[256];
	size_t marker_count;
	struct fsa_loss losses[64];
	size_t loss_count;
	struct fsa_anomaly anomalies[256];
	size_t anomaly_count;
	struct fsa_fence_value fence_values[256];
	size_t fence_value_count;
};

extern struct collected got;
extern struct fsa_model *model;

void fixture_setup(void);
void fixture_teardown(void);
/* How far after the fixture's first clock pair its second lies (trace ns). */
#define FIXTURE_PAIR_SPAN_NS UINT64_C(500000)

/* The objects above, created at trace time `ts`, with correlation pairs (ts, ts / 10) and
 * (ts + FIXTURE_PAIR_SPAN_NS, (ts + FIXTURE_PAIR_SPAN_NS) / 10). */
void fixture_objects(uint64_t ts);

/* Feeding events: name without provider, then (field, uint64_t value) pairs ending with NULL. */
fsa_status feed(const char *event, uint64_t ts, ...);
void feed_ok(const char *event, uint64_t ts, ...);
fsa_status finish(void);

const struct fsa_op *find_op(enum fsa_op_kind kind, uint64_t hwqueue, uint64_t value);
size_t count_anomalies(enum fsa_anomaly_kind kind);

#endif /* FST_MODEL_FIXTURE_H */
