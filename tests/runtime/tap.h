/* SPDX-License-Identifier: MIT */
/*
 * What the runtime's TAP test programs share (they run under ThreadSanitizer, where Criterion
 * cannot): a setup step that bails out, and the count of failed checks the program exits with.
 */
#ifndef FST_RUNTIME_TAP_H
#define FST_RUNTIME_TAP_H

#include <stdio.h>
#include <stdlib.h>

#include <fencescope/runtime.h>

/* Checks that failed; main() exits non-zero when there are any. */
static int failed_checks;

/* Like Criterion's expect: report and go on. */
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("# %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);          \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failed_checks++;                                                           \
		}                                                                                  \
	} while (0)

/* A setup step that fails makes the rest meaningless. */
#define SETUP(call)                                                                                \
	do {                                                                                       \
		fsr_status status_ = (call);                                                       \
		if (status_ != FSR_OK) {                                                           \
			printf("Bail out! %s: %s\n", #call, fsr_status_name(status_));             \
			exit(EXIT_FAILURE);                                                        \
		}                                                                                  \
	} while (0)

#endif
