/* SPDX-License-Identifier: MIT */
/*
 * fuzz-wire: a libFuzzer target over the bytes the decoder child sends to the analysis — the
 * wire format of analyzer/ingest/wire-private.h — which is where our own code parses bytes it
 * did not make: a libbabeltrace2 that went wrong inside the child can send anything before it
 * dies. The real fsa_ingest_into_model() runs, with its real helper spawning, reading and
 * reaping, but the helper is fuzz-wire-helper, which sends the input instead of decoding a
 * trace and then exits, fails, aborts or is killed as the input's first byte says.
 *
 * The seeds (make-seeds.py wire) are what the real `fencescope-decode` sends for the base
 * traces. The properties are docs/fuzzing.md's, checked by fuzz_analyze() (fuzz-common.c): the
 * parent never crashes, hangs or leaks, and ends with a full result, a partial one with a
 * one-line reason, or a one-line error; the report it writes is valid.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz-common.h"
#include "fuzz-target.h"

#ifndef FUZZ_BASE_DIR
#error "FUZZ_BASE_DIR (the folder of base traces) must be defined by the build"
#endif
#ifndef FUZZ_WIRE_HELPER
#error "FUZZ_WIRE_HELPER (the path of fuzz-wire-helper) must be defined by the build"
#endif

static char *fuzz_input_path; /* where each input is written for the helper */
static char *fuzz_trace;      /* a real trace folder: only its path is checked before spawning */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *work = fuzz_setup();
	const char *helper = getenv("FENCESCOPE_FUZZ_WIRE_HELPER");

	(void) argc;
	(void) argv;
	if (!helper || !*helper)
		helper = FUZZ_WIRE_HELPER;
	if (asprintf(&fuzz_input_path, "%s/wire-input", work) < 0 ||
	    asprintf(&fuzz_trace, "%s/producer-consumer", FUZZ_BASE_DIR) < 0)
		fuzz_fail("out of memory");
	if (setenv("FENCESCOPE_DECODE_HELPER", helper, 1) != 0 ||
	    setenv("FENCESCOPE_FUZZ_WIRE_INPUT", fuzz_input_path, 1) != 0)
		fuzz_fail("cannot set the helper's environment");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *file = fopen(fuzz_input_path, "wb");

	if (!file || (size > 0 && fwrite(data, 1, size, file) != size) || fclose(file) != 0)
		fuzz_fail("cannot write %s", fuzz_input_path);
	fuzz_analyze(fuzz_trace);
	return 0;
}
