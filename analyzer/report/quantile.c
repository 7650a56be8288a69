/* SPDX-License-Identifier: MIT */
/*
 * Latency quantiles in bounded memory (quantile-private.h). Exact samples first, because most
 * statistics of a small trace have few values and a golden file should show exact numbers; past
 * the cap, the samples are folded into a log-linear histogram and never kept again. The error
 * bound is documented in docs/report-schema.md ("Quantiles").
 */
#include <stdlib.h>
#include <string.h>

#include "quantile-private.h"

void
quantile_init(struct fsa_quantile *q)
{
	*q = (struct fsa_quantile){.min = UINT64_MAX};
}

void
quantile_fini(struct fsa_quantile *q)
{
	free(q->samples);
	for (size_t i = 0; i < FSA_QUANTILE_OCTAVES; i++)
		free(q->octaves[i]);
	quantile_init(q);
}

static void
bucket_of(uint64_t value, size_t *octave, size_t *sub)
{
	struct fsa_quantile_bucket b = quantile_bucket(value);

	*octave = b.octave;
	*sub = b.sub;
}

/* The value a bucket stands for: its midpoint, so the error is at most half its width. */
static uint64_t
bucket_value(size_t octave, size_t sub)
{
	if (octave == 0)
		return sub;
	unsigned shift = (unsigned) octave - 1;
	uint64_t low = ((uint64_t) FSA_QUANTILE_SUBS + sub) << shift;
	uint64_t width = UINT64_C(1) << shift;

	return low + width / 2;
}

static fsa_status
histogram_add(struct fsa_quantile *q, uint64_t value)
{
	size_t octave, sub;

	bucket_of(value, &octave, &sub);
	if (!q->octaves[octave]) {
		q->octaves[octave] = calloc(FSA_QUANTILE_SUBS, sizeof(uint64_t));
		if (!q->octaves[octave])
			return FSA_ERR_NOMEM;
	}
	q->octaves[octave][sub]++;
	return FSA_OK;
}

static fsa_status
switch_to_histogram(struct fsa_quantile *q)
{
	fsa_status status = FSA_OK;

	for (size_t i = 0; i < q->sample_len; i++) {
		status = histogram_add(q, q->samples[i]);
		if (status != FSA_OK)
			return status;
	}
	free(q->samples);
	q->samples = NULL;
	q->sample_len = q->sample_cap = 0;
	q->is_histogram = true;
	return status;
}

fsa_status
quantile_add_slow(struct fsa_quantile *q, uint64_t value)
{
	fsa_status status = FSA_OK;

	if (!q->is_histogram && q->sample_len == FSA_QUANTILE_SAMPLE_CAP) {
		status = switch_to_histogram(q);
		if (status != FSA_OK)
			return status;
	}
	if (q->is_histogram) {
		status = histogram_add(q, value);
	} else {
		if (q->sample_len == q->sample_cap) {
			size_t cap = q->sample_cap ? q->sample_cap * 2 : 16;
			uint64_t *samples = realloc(q->samples, cap * sizeof(*samples));

			if (!samples)
				return FSA_ERR_NOMEM;
			q->samples = samples;
			q->sample_cap = cap;
		}
		q->samples[q->sample_len++] = value;
		q->is_sorted = false;
	}
	if (status != FSA_OK)
		return status;
	q->count++;
	/* Durations from a hostile trace can be near 2^64: the sum saturates, it never wraps. */
	q->total = value > UINT64_MAX - q->total ? UINT64_MAX : q->total + value;
	if (value < q->min)
		q->min = value;
	if (value > q->max)
		q->max = value;
	return FSA_OK;
}

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

uint64_t
quantile_value(struct fsa_quantile *q, double p)
{
	if (q->count == 0)
		return FSA_TIME_NONE;
	if (p <= 0)
		return q->min;
	if (p >= 1)
		return q->max;

	/* Nearest rank, 1-based; the small epsilon keeps 0.95 × 100 from becoming 95.000…01. */
	double exact_rank = p * (double) q->count;
	uint64_t rank = (uint64_t) (exact_rank - 1e-9);

	if ((double) rank < exact_rank - 1e-9)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > q->count)
		rank = q->count;

	if (!q->is_histogram) {
		if (!q->is_sorted) {
			qsort(q->samples, q->sample_len, sizeof(*q->samples), compare_u64);
			q->is_sorted = true;
		}
		return q->samples[rank - 1];
	}
	uint64_t seen = 0;

	for (size_t octave = 0; octave < FSA_QUANTILE_OCTAVES; octave++) {
		if (!q->octaves[octave])
			continue;
		for (size_t sub = 0; sub < FSA_QUANTILE_SUBS; sub++) {
			seen += q->octaves[octave][sub];
			if (seen >= rank) {
				uint64_t value = bucket_value(octave, sub);

				if (value < q->min)
					value = q->min;
				if (value > q->max)
					value = q->max;
				return value;
			}
		}
	}
	return q->max;
}

bool
quantile_is_exact(const struct fsa_quantile *q)
{
	return !q->is_histogram;
}
