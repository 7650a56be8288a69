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

#define U(x) ((uint64_t) (x))
#define T0   UINT64_C(1000000) /* the trace time the tests start at */

/* The contract events most tests feed, written once (feed_ok() fails the test on an error). */
#define WAIT_QUEUED(ts, q, f, v, p)                                                                \
	feed_ok("fence_wait_queued", U(ts), "process_id", U(PID), "hwqueue_handle", U(q),          \
		"fence_handle", U(f), "fence_value", U(v), "progress_value", U(p), NULL)
#define SIGNAL_QUEUED(ts, q, f, v, p)                                                              \
	feed_ok("fence_signal_queued", U(ts), "process_id", U(PID), "hwqueue_handle", U(q),        \
		"fence_handle", U(f), "fence_value", U(v), "progress_value", U(p), NULL)
#define ENTRY(ts, q, pos, f, fg, v, op, obs, end)                                                  \
	feed_ok("fence_log_entry", U(ts), "hwqueue_handle", U(q), "log_type",                      \
		U((op) == FSTP_LOG_OPERATION_WAIT_UNBLOCKED ? FSTP_LOG_TYPE_WAITS                  \
							    : FSTP_LOG_TYPE_SIGNALS),              \
		"entry_position", U(pos), "fence_handle", U(f), "fence_global_handle", U(fg),      \
		"fence_value", U(v), "operation", U(op), "observed_gpu_ts", U(obs), "end_gpu_ts",  \
		U(end), NULL)
#define WAIT_ENTRY(ts, q, pos, f, fg, v, obs, end)                                                 \
	ENTRY(ts, q, pos, f, fg, v, FSTP_LOG_OPERATION_WAIT_UNBLOCKED, obs, end)
#define SIGNAL_ENTRY(ts, q, pos, f, fg, v, end)                                                    \
	ENTRY(ts, q, pos, f, fg, v, FSTP_LOG_OPERATION_SIGNAL_EXECUTED, 0, end)
#define PAIR(ts, gpu)                                                                              \
	feed_ok("clock_correlation", U(ts), "adapter_id", U(0), "cpu_ts_ns", U(ts), "gpu_ts",      \
		U(gpu), "gpu_ts_frequency_hz", U(100000000), NULL)

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
