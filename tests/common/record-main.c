/* SPDX-License-Identifier: MIT */
/*
 * fst-record: the isolated recording harness of lttng-harness.c as a command, for benchmarks
 * and scripts that need a private LTTng session daemon for one program.
 * Usage: fst-record [--pattern P] [--subbuf-size S] [--timeout SECONDS] OUTDIR -- CMD [ARG...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lttng-harness.h"

static int
usage(void)
{
	fprintf(stderr, "usage: fst-record [--pattern P] [--subbuf-size S] [--timeout SECONDS] "
			"OUTDIR -- CMD [ARG...]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct fst_record_options options = {.event_pattern = "fencescope_*", .timeout_s = 600};
	char *error = NULL;
	int i = 1;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2]; i += 2) {
		if (i + 1 >= argc)
			return usage();
		if (strcmp(argv[i], "--pattern") == 0)
			options.event_pattern = argv[i + 1];
		else if (strcmp(argv[i], "--subbuf-size") == 0)
			options.subbuf_size = argv[i + 1];
		else if (strcmp(argv[i], "--timeout") == 0)
			options.timeout_s = atoi(argv[i + 1]);
		else
			return usage();
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--") != 0)
		return usage();
	options.output_dir = argv[i];
	options.argv = (const char *const *) &argv[i + 2];
	if (fst_lttng_record(&options, &error) != 0) {
		fprintf(stderr, "fst-record: %s\n", error);
		free(error);
		return 1;
	}
	return 0;
}
