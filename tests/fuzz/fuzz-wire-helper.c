/* SPDX-License-Identifier: MIT */
/*
 * fuzz-wire-helper: stands in for the decoder helper `fencescope-decode` under fuzz-wire.c. It
 * takes the helper's command line (--fd N … TRACE) and ignores the trace: it writes the input
 * named by FENCESCOPE_FUZZ_WIRE_INPUT to fd N as if it had decoded it, then meets the end the
 * input's first byte asks for, so that the reading side sees every way a decoder can end.
 *
 * Input: byte 0 bits 0-1 the end (0 exit 0, 1 exit 1, 2 abort(), 3 SIGKILL), bits 2-7 the size
 * of each write (k: 1 + 61·k bytes, 0: everything in one write); then the bytes to send.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char *
helper_read(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	unsigned char *bytes;
	long length = 0;

	if (!file || fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
	    fseek(file, 0, SEEK_SET) != 0)
		exit(1);
	bytes = malloc((size_t) length + 1);
	if (!bytes || fread(bytes, 1, (size_t) length, file) != (size_t) length)
		exit(1);
	fclose(file);
	*size = (size_t) length;
	return bytes;
}

int
main(int argc, char **argv)
{
	const char *input = getenv("FENCESCOPE_FUZZ_WIRE_INPUT");
	unsigned char *bytes;
	size_t size, chunk, sent = 1;
	int fd = -1, end;

	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--fd") == 0)
			fd = atoi(argv[i + 1]);
	}
	if (fd < 0 || !input)
		return 1;
	bytes = helper_read(input, &size);
	if (size == 0) {
		free(bytes);
		return 0;
	}
	chunk = (bytes[0] >> 2) ? 1 + 61 * (size_t) (bytes[0] >> 2) : size;
	while (sent < size) {
		size_t len = size - sent < chunk ? size - sent : chunk;
		ssize_t n = write(fd, bytes + sent, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the reader went away */
		sent += (size_t) n;
	}
	close(fd);
	end = bytes[0] & 3;
	free(bytes);
	switch (end) {
	case 1:
		return 1;
	case 2:
		abort();
	case 3:
		raise(SIGKILL);
		return 1;
	default:
		return 0;
	}
}
