/* SPDX-License-Identifier: MIT */
/*
 * fsti-ingest-read TRACE: reads a trace with fsa_ingest_run() and no callbacks, prints the event
 * count, or the one-line error on stderr and exits 1. The damaged-trace tests run it as a child
 * process, where libbabeltrace2 may crash on corrupted bytes without taking the test down.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fsa/ingest.h"

int
main(int argc, char **argv)
{
	struct fsa_ingest_stats stats;
	char *error = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: fsti-ingest-read TRACE\n");
		return 2;
	}
	if (fsa_ingest_run(argv[1], NULL, &stats, &error) != FSA_OK) {
		fprintf(stderr, "fsti-ingest-read: %s\n", error ? error : "out of memory");
		free(error);
		return 1;
	}
	printf("%llu\n", (unsigned long long) stats.fencescope_events);
	return 0;
}
