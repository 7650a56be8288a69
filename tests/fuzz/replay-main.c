/* SPDX-License-Identifier: MIT */
/*
 * A main() for a fuzz target outside the clang fuzz tree: runs every file named on the command
 * line, and every file in every folder named (sorted, hidden files skipped), through
 * LLVMFuzzerTestOneInput once, as libFuzzer does when given files. The regression inputs saved
 * under tests/fuzz/regressions/ replay this way in the ordinary and sanitizer builds, so a crash
 * the fuzzer found once stays fixed without clang.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz-target.h"

static size_t replay_count;

static void
replay_file(const char *path)
{
	FILE *file = fopen(path, "rb");
	unsigned char *bytes = NULL;
	long length = 0;

	if (!file || fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
	    fseek(file, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	/* One byte more than needed: a zero-length input still gets a valid pointer. */
	bytes = malloc((size_t) length + 1);
	if (!bytes || fread(bytes, 1, (size_t) length, file) != (size_t) length) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		exit(2);
	}
	fclose(file);
	printf("replay: %s (%ld bytes)\n", path, length);
	fflush(stdout);
	LLVMFuzzerTestOneInput(bytes, (size_t) length);
	free(bytes);
	replay_count++;
}

static int
replay_filter(const struct dirent *entry)
{
	return entry->d_name[0] != '.';
}

static void
replay_path(const char *path)
{
	struct dirent **entries = NULL;
	struct stat st;
	int count;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}
	count = scandir(path, &entries, replay_filter, alphasort);
	for (int i = 0; i < count; i++) {
		char *child = NULL;

		if (asprintf(&child, "%s/%s", path, entries[i]->d_name) < 0)
			exit(2);
		replay_path(child);
		free(child);
		free(entries[i]);
	}
	free(entries);
}

int
main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		replay_path(argv[i]);
	printf("replay: %zu inputs, every property held\n", replay_count);
	return 0;
}
