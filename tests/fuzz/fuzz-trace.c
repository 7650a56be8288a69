/* SPDX-License-Identifier: MIT */
/*
 * fuzz-trace: a libFuzzer target over the trace surface, through the public path every tool
 * takes (analyzer/ingest → analyzer/model → analyzer/report), as `fencescope report` wires it.
 *
 * Structure-aware: an input is one selector byte and a payload. The selector's two low bits say
 * which file of a small base trace (tests/fuzz/base/NAME/, cut from traces/) the payload
 * replaces — 0 the big stream file fencescope_1, 1 the metadata (plain TSDL text, so mutations
 * land in the text), 2 the other stream file fencescope_0, 3 none: the payload becomes a stray
 * notes.txt beside the trace's files — and its other bits pick the base trace. The seeds
 * (make-seeds.py) are every base file with its selector, so libFuzzer starts from real streams
 * and real metadata.
 *
 * What it checks, for every input (docs/fuzzing.md): the fencescope side never crashes, hangs
 * or leaks (libFuzzer with AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer), and
 * the analysis ends with a full result, a partial one with a one-line reason, or a clean
 * one-line error that names the trace — never an unknown status, a message of several lines, a
 * heap address in a message, or a JSON report that does not parse. A failed check aborts, so
 * libFuzzer saves the input. libbabeltrace2's own crashes are the decoder's business (it runs in
 * a child process); they must end as a partial report, not here.
 *
 * Built twice: with clang's -fsanitize=fuzzer in the fuzz tree (meson -Dfuzz=true, scripts/fuzz),
 * and with replay-main.c in every tree, where it replays the saved regression inputs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "fuzz-target.h"

#ifndef FUZZ_BASE_DIR
#error "FUZZ_BASE_DIR (the folder of base traces) must be defined by the build"
#endif

/* The files a base trace has, in selector order; the fourth selector adds a stray file. */
enum { FUZZ_BASE_FILE_COUNT = 3 };
static const char *const fuzz_file_names[] = {"fencescope_1", "metadata", "fencescope_0",
					      "notes.txt"};

struct fuzz_base {
	char *name;
	unsigned char *bytes[FUZZ_BASE_FILE_COUNT]; /* Owned */
	size_t sizes[FUZZ_BASE_FILE_COUNT];
};

static struct fuzz_base *fuzz_bases; /* Owned, for the life of the process */
static size_t fuzz_base_count;
static char *fuzz_trace_dir; /* in fuzz_setup()'s folder: rewritten for every input */

static int
fuzz_dir_filter(const struct dirent *entry)
{
	return entry->d_name[0] != '.';
}

/* Loads every tests/fuzz/base/NAME/ (sorted, so a selector means the same base everywhere). */
static void
fuzz_bases_load(void)
{
	const char *base_dir = getenv("FENCESCOPE_FUZZ_BASE");
	struct dirent **entries = NULL;
	int count;

	if (!base_dir || !*base_dir)
		base_dir = FUZZ_BASE_DIR;
	count = scandir(base_dir, &entries, fuzz_dir_filter, alphasort);
	if (count <= 0)
		fuzz_fail("no base traces in %s", base_dir);
	fuzz_bases = calloc((size_t) count, sizeof(*fuzz_bases));
	if (!fuzz_bases)
		fuzz_fail("out of memory");
	for (int i = 0; i < count; i++) {
		struct fuzz_base *base = &fuzz_bases[fuzz_base_count++];

		base->name = strdup(entries[i]->d_name);
		for (size_t f = 0; f < FUZZ_BASE_FILE_COUNT; f++) {
			char *path = NULL;

			if (asprintf(&path, "%s/%s/%s", base_dir, base->name, fuzz_file_names[f]) <
			    0)
				fuzz_fail("out of memory");
			base->bytes[f] = fuzz_file_read(path, &base->sizes[f]);
			free(path);
		}
		free(entries[i]);
	}
	free(entries);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	fuzz_bases_load();
	if (asprintf(&fuzz_trace_dir, "%s/trace", fuzz_setup()) < 0)
		fuzz_fail("out of memory");
	return 0;
}

/* Lays out the trace folder for one input: the base's files, one of them (or a stray file)
 * replaced by the payload. */
static void
fuzz_trace_write(const uint8_t *data, size_t size)
{
	unsigned selector = data[0] & 3u;
	const struct fuzz_base *base = &fuzz_bases[(data[0] >> 2) % fuzz_base_count];

	if (mkdir(fuzz_trace_dir, 0700) != 0 && errno != EEXIST)
		fuzz_fail("cannot create %s: %s", fuzz_trace_dir, strerror(errno));
	for (unsigned f = 0; f < FUZZ_BASE_FILE_COUNT; f++) {
		if (f == selector)
			fuzz_file_write(fuzz_trace_dir, fuzz_file_names[f], data + 1, size - 1);
		else
			fuzz_file_write(fuzz_trace_dir, fuzz_file_names[f], base->bytes[f],
					base->sizes[f]);
	}
	if (selector == 3) {
		fuzz_file_write(fuzz_trace_dir, fuzz_file_names[3], data + 1, size - 1);
	} else {
		char *stray = NULL;

		if (asprintf(&stray, "%s/%s", fuzz_trace_dir, fuzz_file_names[3]) < 0)
			fuzz_fail("out of memory");
		unlink(stray);
		free(stray);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_trace_write(data, size);
	fuzz_analyze(fuzz_trace_dir);
	return 0;
}
