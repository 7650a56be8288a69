/* SPDX-License-Identifier: MIT */
/*
 * fsa_model_peek (fsa/model.h): what a model still holds, given to a sink without changing the
 * model, so that a reader following a live session can show the session so far without ending
 * its analysis (viewer/core/fsv-live-reader.c, issue 16 §4). Only reads: every item goes out as
 * a copy.
 */
#include <stdlib.h>

#include "model-private.h"

typedef struct {
	const struct fsa_model *model;
	const struct fsa_model_sink *sink;
	uint64_t next_id; /* ids of the open operations: after every id given so far */
} Peek;

/* An operation not given out yet: open, or closed and waiting (a clock pair, its signal). */
static fsa_status
peek_op(Peek *peek, const struct op_rec *rec)
{
	struct fsa_op op = rec->op;

	if (!peek->sink->op)
		return FSA_OK;
	op.state = FSA_OP_NEVER_COMPLETED;
	op.end_ns = FSA_TIME_NONE;
	if (op.id == 0)
		op.id = ++peek->next_id;
	op.signal_op_id = 0;
	return peek->sink->op(peek->sink->data, &op);
}

/* A packet not given out yet: started, or ended and waiting for a clock pair that maps its GPU
 * times (drawn running until it goes out, as an operation waiting is drawn open). */
static fsa_status
peek_packet(Peek *peek, const struct packet_rec *rec)
{
	struct fsa_packet packet = rec->packet;

	if (!peek->sink->packet)
		return FSA_OK;
	packet.status = FSA_PACKET_NEVER_ENDED;
	packet.end_ns = FSA_TIME_NONE;
	packet.end_gpu_ts = 0;
	return peek->sink->packet(peek->sink->data, &packet);
}

static uint64_t
marker_begin_of(const void *item)
{
	return ((const struct fsa_marker *) item)->begin_ns;
}

/* The intervals of MAP still open, by start time as fsa_model_finish() gives them. */
static fsa_status
peek_markers(Peek *peek, const struct hmap *map)
{
	const struct fsa_marker **all;
	size_t count = 0;
	uint64_t key;
	void *value;
	fsa_status status = FSA_OK;

	if (!peek->sink->marker || map->count == 0)
		return FSA_OK;
	all = malloc(map->count * sizeof(*all));
	if (!all)
		return FSA_ERR_NOMEM;
	for (size_t i = 0; count < map->count && hmap_next(map, &i, &key, &value);)
		all[count++] = value;
	if (!sort_by_time((void **) all, count, marker_begin_of))
		status = FSA_ERR_NOMEM;
	for (size_t i = 0; !status && i < count; i++) {
		struct fsa_marker marker = *all[i];

		marker.end_ns = FSA_TIME_NONE; /* still open */
		status = peek->sink->marker(peek->sink->data, &marker);
	}
	free(all);
	return status;
}

fsa_status
fsa_model_peek(const struct fsa_model *model, const struct fsa_model_sink *sink)
{
	Peek peek = {model, sink, model->next_op_id};
	const struct hmap *intervals[] = {
	    &model->preemptions, &model->tdrs,      &model->suspends,        &model->engine_f1,
	    &model->device_d3,   &model->doorbells, &model->doorbell_states, &model->context_errors,
	    &model->flips,       &model->mappings,  &model->propagations,
	};
	fsa_status status = FSA_OK;
	uint64_t key;
	void *value;

	if (model->failed)
		return model->failed;
	if (model->is_finished)
		return FSA_OK;
	/* Closed and waiting to go out: ids of their own already (given when they closed). */
	for (const struct op_rec *rec = model->pending_head; !status && rec; rec = rec->next)
		status = peek_op(&peek, rec);
	for (size_t q = 0; !status && q < model->queue_count; q++)
		for (size_t i = 0;
		     !status && hmap_next(&model->queue_list[q]->open, &i, &key, &value);)
			for (const struct op_rec *rec = value; !status && rec; rec = rec->next_open)
				status = peek_op(&peek, rec);
	for (size_t i = 0; !status && hmap_next(&model->cpu_waits, &i, &key, &value);)
		status = peek_op(&peek, value);
	for (const struct packet_rec *rec = model->pending_packets_head; !status && rec;
	     rec = rec->next)
		status = peek_packet(&peek, rec);
	for (size_t i = 0; !status && hmap_next(&model->packets, &i, &key, &value);)
		status = peek_packet(&peek, value);
	for (size_t m = 0; !status && m < sizeof(intervals) / sizeof(intervals[0]); m++)
		status = peek_markers(&peek, intervals[m]);
	return status;
}
