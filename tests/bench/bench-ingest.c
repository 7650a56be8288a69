/* SPDX-License-Identifier: MIT */
/*
 * scripts/bench analyzer's program: reads a trace with analyzer/ingest and nothing else
 * (`ingest`: a callback that only touches each event), or into a model without a sink
 * (`model`), and prints what it read on stdout as `key value` lines. Wall time and peak memory
 * are measured by the script around the process, the same way as for `babeltrace2 -o dummy`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsa/ingest.h"
#include "fsa/model.h"

struct bench_sum {
	uint64_t events;
	uint64_t checksum;
};

/* Reads a value so the compiler cannot drop the decoding it depends on. */
static fsa_status
bench_event(void *data, const struct fsa_event *event)
{
	struct bench_sum *sum = data;

	sum->events++;
	sum->checksum += event->ts_ns ^ (uint64_t) event->type;
	return FSA_OK;
}

int
main(int argc, char **argv)
{
	struct fsa_ingest_stats stats;
	struct bench_sum sum = {0};
	char *error = NULL;
	fsa_status status;

	if (argc != 3 || (strcmp(argv[1], "ingest") != 0 && strcmp(argv[1], "model") != 0)) {
		fprintf(stderr, "usage: %s ingest|model TRACE\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "ingest") == 0) {
		const struct fsa_ingest_callbacks callbacks = {.data = &sum, .event = bench_event};

		status = fsa_ingest_run(argv[2], &callbacks, &stats, &error);
	} else {
		struct fsa_model *model = fsa_model_create(NULL);

		if (!model) {
			fprintf(stderr, "bench-ingest: out of memory\n");
			return 1;
		}
		status = fsa_ingest_into_model(argv[2], model, NULL, NULL, &stats, &error);
		fsa_model_destroy(model);
	}
	if (status != FSA_OK) {
		fprintf(stderr, "bench-ingest: %s\n", error ? error : fsa_status_string(status));
		free(error);
		return 1;
	}
	printf("events %llu\nfencescope_events %llu\nchecksum %llu\n",
	       (unsigned long long) stats.events, (unsigned long long) stats.fencescope_events,
	       (unsigned long long) sum.checksum);
	return 0;
}
