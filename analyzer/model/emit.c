/* SPDX-License-Identifier: MIT */
/*
 * What the model gives out that is not a box, a packet or a marker: anomalies (counted in the
 * summary as they go) and losses, handed to the sink, whose refusal stops the model; and the
 * stable sort by time that makes what is given out at the end deterministic. A leaf: every other
 * file of the model calls it, it calls none of them. What it is not: the boxes (ops.c), packets
 * (packets.c) or markers (markers.c) themselves.
 */
#include <stdlib.h>

#include "model-private.h"

struct timed_item {
	uint64_t ns;
	size_t order;
	void *item;
};

static int
compare_timed(const void *a, const void *b)
{
	const struct timed_item *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

bool
sort_by_time(void **items, size_t count, uint64_t (*time_of)(const void *item))
{
	struct timed_item *timed;

	if (count < 2)
		return true;
	timed = malloc(count * sizeof(*timed));
	if (!timed)
		return false;
	for (size_t i = 0; i < count; i++)
		timed[i] =
		    (struct timed_item){.ns = time_of(items[i]), .order = i, .item = items[i]};
	qsort(timed, count, sizeof(*timed), compare_timed);
	for (size_t i = 0; i < count; i++)
		items[i] = timed[i].item;
	free(timed);
	return true;
}

fsa_status
emit_anomaly(struct fsa_model *model, struct fsa_anomaly *anomaly)
{
	fsa_status status = FSA_OK;

	model->summary.anomaly_counts[anomaly->kind]++;
	if (model->sink.anomaly)
		status = model->sink.anomaly(model->sink.data, anomaly);
	if (status)
		model->failed = status;
	return status;
}

fsa_status
emit_loss(struct fsa_model *model, const struct fsa_loss *loss)
{
	fsa_status status = FSA_OK;

	if (model->sink.loss)
		status = model->sink.loss(model->sink.data, loss);
	if (status)
		model->failed = status;
	return status;
}
