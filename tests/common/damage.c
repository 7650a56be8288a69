/* SPDX-License-Identifier: MIT */
/*
 * Damaged copies of the sample traces (damage.h). The crash is searched for with the real
 * babeltrace2 command rather than placed at a fixed offset, so that a re-recorded sample still
 * gives a crashing copy.
 */
#define _GNU_SOURCE

#include "damage.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static unsigned char *
damage_read(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *bytes = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0) {
		rewind(f);
		bytes = malloc((size_t) len);
		if (bytes && fread(bytes, 1, (size_t) len, f) != (size_t) len) {
			free(bytes);
			bytes = NULL;
		}
		*size = (size_t) len;
	}
	fclose(f);
	return bytes;
}

static bool
damage_write(const char *path, const unsigned char *bytes, size_t size)
{
	FILE *f = fopen(path, "wb");
	bool is_ok;

	if (!f)
		return false;
	is_ok = fwrite(bytes, 1, size, f) == size;
	return fclose(f) == 0 && is_ok;
}

/* True when `babeltrace2 -o dummy TRACE` is killed by a signal. */
static bool
damage_babeltrace_crashes(const char *trace)
{
	char *const argv[] = {(char *) "babeltrace2", (char *) "-o", (char *) "dummy",
			      (char *) trace, NULL};
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int status = 0;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "babeltrace2", &actions, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&actions);
		return false;
	}
	posix_spawn_file_actions_destroy(&actions);
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status);
}

bool
fst_damage_until_babeltrace_crashes(const char *trace, const char *stream, int tries)
{
	static const unsigned char length[4] = {0xff, 0xff, 0xff, 0x8f};
	size_t size = 0;
	unsigned char *original = damage_read(stream, &size);
	unsigned char *bytes = original ? malloc(size) : NULL;
	unsigned int state = 7;
	bool is_found = false;

	for (int i = 0; bytes && size > 64 && i < tries && !is_found; i++) {
		size_t at = size / 2 + (size_t) rand_r(&state) % (size / 2 - 8);

		memcpy(bytes, original, size);
		memcpy(bytes + at, length, sizeof(length));
		if (!damage_write(stream, bytes, size))
			break;
		is_found = damage_babeltrace_crashes(trace);
	}
	if (!is_found && original)
		damage_write(stream, original, size);
	free(bytes);
	free(original);
	return is_found;
}

bool
fst_damage_huge_content_size(const char *stream)
{
	size_t size = 0;
	unsigned char *bytes = damage_read(stream, &size);
	bool is_ok = false;

	if (bytes && size > 64) {
		bytes[55] |= 0x80;
		is_ok = damage_write(stream, bytes, size);
	}
	free(bytes);
	return is_ok;
}
