/* SPDX-License-Identifier: MIT */
/*
 * The bounded-memory quantile: exact nearest-rank quantiles below the sample cap, within the
 * documented relative error (1/256) above it, and exact count, min, max and total always —
 * checked against a sorted copy of the same values.
 */
#include <stdlib.h>

#include <criterion/criterion.h>

#include "quantile-private.h"

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Nearest rank on a sorted array: the reference the estimator is held to. */
static uint64_t
nearest_rank(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t) (p * (double) n);

	if ((double) rank < p * (double) n)
		rank++;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static uint64_t
next_random(uint64_t *state)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(2685821657736338717);
}

static const double quantiles[] = {0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999};

Test(quantile, empty_has_no_value)
{
	struct fsa_quantile q;

	quantile_init(&q);
	cr_assert_eq(q.count, 0);
	cr_assert_eq(quantile_value(&q, 0.5), FSA_TIME_NONE);
	quantile_fini(&q);
}

Test(quantile, small_set_is_exact)
{
	struct fsa_quantile q;
	static const uint64_t values[] = {50, 10, 40, 20, 30};

	quantile_init(&q);
	for (size_t i = 0; i < 5; i++)
		cr_assert_eq(quantile_add(&q, values[i]), FSA_OK);
	cr_assert_eq(q.count, 5);
	cr_assert_eq(q.min, 10);
	cr_assert_eq(q.max, 50);
	cr_assert_eq(q.total, 150);
	cr_assert_eq(quantile_value(&q, 0.5), 30);
	cr_assert_eq(quantile_value(&q, 0.2), 10);
	cr_assert_eq(quantile_value(&q, 0.21), 20);
	cr_assert_eq(quantile_value(&q, 0.95), 50);
	cr_assert(quantile_is_exact(&q));
	quantile_fini(&q);
}

Test(quantile, exact_up_to_the_cap)
{
	struct fsa_quantile q;
	uint64_t *values = malloc(FSA_QUANTILE_SAMPLE_CAP * sizeof(*values));
	uint64_t state = 42, total = 0;

	quantile_init(&q);
	for (size_t i = 0; i < FSA_QUANTILE_SAMPLE_CAP; i++) {
		values[i] = next_random(&state) % 10000000;
		total += values[i];
		quantile_add(&q, values[i]);
	}
	qsort(values, FSA_QUANTILE_SAMPLE_CAP, sizeof(*values), compare_u64);
	cr_assert(quantile_is_exact(&q));
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		cr_assert_eq(quantile_value(&q, quantiles[i]),
			     nearest_rank(values, FSA_QUANTILE_SAMPLE_CAP, quantiles[i]), "p=%g",
			     quantiles[i]);
	cr_assert_eq(q.total, total);
	cr_assert_eq(q.min, values[0]);
	cr_assert_eq(q.max, values[FSA_QUANTILE_SAMPLE_CAP - 1]);
	free(values);
	quantile_fini(&q);
}

Test(quantile, within_the_error_bound_past_the_cap)
{
	struct fsa_quantile q;
	size_t n = 200000;
	uint64_t *values = malloc(n * sizeof(*values));
	uint64_t state = 7, total = 0;

	quantile_init(&q);
	for (size_t i = 0; i < n; i++) {
		/* Log-uniform from 1 ns to about 1 s: every octave of the histogram is used. */
		unsigned octave = (unsigned) (next_random(&state) % 30);
		uint64_t base = UINT64_C(1) << octave;

		values[i] = base + next_random(&state) % base;
		total += values[i];
		cr_assert_eq(quantile_add(&q, values[i]), FSA_OK);
	}
	qsort(values, n, sizeof(*values), compare_u64);
	cr_assert_not(quantile_is_exact(&q));
	cr_assert_eq(q.count, n);
	cr_assert_eq(q.total, total);
	cr_assert_eq(q.min, values[0]);
	cr_assert_eq(q.max, values[n - 1]);
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++) {
		double exact = (double) nearest_rank(values, n, quantiles[i]);
		double estimate = (double) quantile_value(&q, quantiles[i]);

		cr_assert_leq(estimate > exact ? estimate - exact : exact - estimate, exact / 256.0,
			      "p=%g: %g against %g", quantiles[i], estimate, exact);
	}
	cr_assert_eq(quantile_value(&q, 0), values[0]);
	cr_assert_eq(quantile_value(&q, 1), values[n - 1]);
	free(values);
	quantile_fini(&q);
}

Test(quantile, constant_values_are_exact_in_the_histogram)
{
	struct fsa_quantile q;

	quantile_init(&q);
	for (size_t i = 0; i < 3 * FSA_QUANTILE_SAMPLE_CAP; i++)
		quantile_add(&q, 1234567);
	cr_assert_not(quantile_is_exact(&q));
	/* Clamped to [min, max]: a constant never drifts to the bucket's midpoint. */
	cr_assert_eq(quantile_value(&q, 0.5), 1234567);
	cr_assert_eq(quantile_value(&q, 0.99), 1234567);
	quantile_fini(&q);
}

/* Regression: total_ns wrapped around past 2^64 (two durations of a hostile trace), so the
 * report's "exact sum" and mean() thresholds were wrong. It saturates now. */
Test(quantile, total_saturates_instead_of_wrapping)
{
	struct fsa_quantile q;

	quantile_init(&q);
	cr_assert_eq(quantile_add(&q, UINT64_MAX - 10), FSA_OK);
	cr_assert_eq(quantile_add(&q, 100), FSA_OK);
	cr_assert_eq(q.total, UINT64_MAX);
	cr_assert_eq(q.max, UINT64_MAX - 10);
	cr_assert_eq(quantile_value(&q, 0.99), UINT64_MAX - 10);
	quantile_fini(&q);
}
