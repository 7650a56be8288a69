/* SPDX-License-Identifier: MIT */
/* Work in progress: the model's skeleton so that the other parts build against its API. */
#include <stdlib.h>

#include "model-private.h"

struct fsa_model {
	struct fsa_model_sink sink;
	struct fsa_summary summary;
};

struct fsa_model *
fsa_model_create(const struct fsa_model_sink *sink)
{
	struct fsa_model *model = calloc(1, sizeof(*model));

	if (model && sink)
		model->sink = *sink;
	return model;
}

void
fsa_model_destroy(struct fsa_model *model)
{
	free(model);
}

fsa_status
fsa_model_add_event(struct fsa_model *model, const struct fsa_event *event)
{
	model->summary.event_count++;
	model->summary.event_counts[event->type]++;
	return FSA_OK;
}

fsa_status
fsa_model_add_discard(struct fsa_model *model, const struct fsa_discard *discard)
{
	(void) model;
	(void) discard;
	return FSA_OK;
}

fsa_status
fsa_model_finish(struct fsa_model *model)
{
	(void) model;
	return FSA_OK;
}

const struct fsa_summary *
fsa_model_borrow_summary(const struct fsa_model *model)
{
	return &model->summary;
}

size_t
fsa_model_process_count(const struct fsa_model *model)
{
	(void) model;
	return 0;
}
