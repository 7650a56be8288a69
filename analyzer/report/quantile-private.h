/* SPDX-License-Identifier: MIT */
/*
 * A bounded-memory latency statistic: count, min, max and total are exact; quantiles are exact
 * while the statistic holds at most FSA_QUANTILE_SAMPLE_CAP samples, and then come from a
 * log-linear histogram (HDR-histogram style) whose buckets are 1/128 of a power of two wide, so a
 * quantile is off by at most 1/256 of its true value (values below 128 ns stay exact). Its memory
 * is at most the sample cap, or one 1 KiB block per power of two the values span.
 */
#ifndef FSA_REPORT_QUANTILE_PRIVATE_H
#define FSA_REPORT_QUANTILE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsa/model.h"

#define FSA_QUANTILE_SAMPLE_CAP 4096
#define FSA_QUANTILE_SUB_BITS   7
#define FSA_QUANTILE_SUBS       (1u << FSA_QUANTILE_SUB_BITS)
/* Octave 0 holds 0..127 exactly; octave k >= 1 holds [2^(k+6), 2^(k+7)). */
#define FSA_QUANTILE_OCTAVES (64 - FSA_QUANTILE_SUB_BITS + 1)

struct fsa_quantile {
	uint64_t count, min, max, total;
	/* Exact mode. */
	uint64_t *samples;
	size_t sample_len, sample_cap;
	bool is_sorted;
	/* Histogram mode (samples freed): one lazily allocated block per octave. */
	bool is_histogram;
	uint64_t *octaves[FSA_QUANTILE_OCTAVES];
};

void quantile_init(struct fsa_quantile *q);
void quantile_fini(struct fsa_quantile *q);
/* quantile_add() past its inline fast path. */
fsa_status quantile_add_slow(struct fsa_quantile *q, uint64_t value);

/* The histogram bucket of `value` (quantile.c's bucket_of(), inline). */
struct fsa_quantile_bucket {
	size_t octave, sub;
};

static inline struct fsa_quantile_bucket
quantile_bucket(uint64_t value)
{
	struct fsa_quantile_bucket b = {0, (size_t) value};

	if (value >= FSA_QUANTILE_SUBS) {
		unsigned e = 63u - (unsigned) __builtin_clzll(value);

		b.octave = e - FSA_QUANTILE_SUB_BITS + 1;
		b.sub = (size_t) (value >> (e - FSA_QUANTILE_SUB_BITS)) - FSA_QUANTILE_SUBS;
	}
	return b;
}

/* quantile_add() of a value whose bucket the caller worked out (one value added to several
 * statistics: the bucket once). */
static inline fsa_status
quantile_add_in(struct fsa_quantile *q, uint64_t value, struct fsa_quantile_bucket b)
{
	if (!q->is_histogram || !q->octaves[b.octave])
		return quantile_add_slow(q, value);
	q->octaves[b.octave][b.sub]++;
	q->count++;
	/* Durations from a hostile trace can be near 2^64: the sum saturates, it never wraps. */
	q->total = value > UINT64_MAX - q->total ? UINT64_MAX : q->total + value;
	if (value < q->min)
		q->min = value;
	if (value > q->max)
		q->max = value;
	return FSA_OK;
}

/* Called for every operation of a trace, several times each: the common case (histogram
 * mode, its bucket's block there) is inline. */
static inline fsa_status
quantile_add(struct fsa_quantile *q, uint64_t value)
{
	return quantile_add_in(q, value, quantile_bucket(value));
}
/* Nearest rank: the smallest value with at least ceil(p × count) values at or below it; p in
 * [0, 1]. FSA_TIME_NONE for an empty statistic. Not const: exact mode sorts its samples. */
uint64_t quantile_value(struct fsa_quantile *q, double p);
/* True while quantiles are exact (no histogram yet). */
bool quantile_is_exact(const struct fsa_quantile *q);

#endif /* FSA_REPORT_QUANTILE_PRIVATE_H */
