/* SPDX-License-Identifier: MIT */
/*
 * fuzz-wire-helper: stands in for the decoder helper `fencescope-decode` under fuzz-wire.c. It
 * takes the helper's command line (--wire SHM,DATA,ROOM … -- TRACE) and ignores the trace: it
 * publishes the input named by FENCESCOPE_FUZZ_WIRE_INPUT to the shared ring as if it had
 * decoded it (wire-private.h), then meets the end the input asks for, so that the reading side
 * sees every way a decoder can end — and, as a helper that libbabeltrace2 sent astray could,
 * scribbles on the ring's shared header.
 *
 * Input: byte 0: bits 0-1 the end (0 exit 0, 1 exit 1, 2 abort(), 3 SIGKILL); bits 2-6 the
 * size of each publication (k: 1 + 61·k bytes, 0: everything at once); bit 7: the next 16 bytes
 * are not sent but scribbled once everything is published: a u64 added to the ring's head and
 * a u64 xored into its size (little-endian). Then the bytes to send.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wire-private.h"

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

static void
helper_notify(int fd)
{
	while (write(fd, "", 1) < 0 && errno == EINTR)
		;
}

/* Publishes LEN bytes as the real writer does: wait for room, copy with the wrap, move head. */
static void
helper_publish(struct ingest_ring *ring, uint64_t size, int data_fd, int room_fd,
	       const unsigned char *bytes, size_t len)
{
	unsigned char *data = (unsigned char *) ring + INGEST_RING_DATA_OFFSET;
	uint64_t head = atomic_load(&ring->head);
	size_t at, first;
	char byte;

	while (head - atomic_load(&ring->tail) + len > size) {
		atomic_store(&ring->writer_waiting, 1);
		if (head - atomic_load(&ring->tail) + len <= size)
			break;
		helper_notify(data_fd);
		if (read(room_fd, &byte, 1) <= 0)
			exit(1); /* the reader is gone */
	}
	at = (size_t) (head % size);
	first = size - at < len ? size - at : len;
	memcpy(data + at, bytes, first);
	memcpy(data, bytes + first, len - first);
	atomic_store(&ring->head, head + len);
	helper_notify(data_fd);
}

static uint64_t
helper_u64(const unsigned char *bytes)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | bytes[i];
	return v;
}

int
main(int argc, char **argv)
{
	const char *input = getenv("FENCESCOPE_FUZZ_WIRE_INPUT");
	int shm_fd = -1, data_fd = -1, room_fd = -1, end;
	unsigned char *bytes, *send;
	size_t size, chunk, sent = 0, send_size;
	struct ingest_ring probe, *ring;
	bool is_scribble;

	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--wire") == 0 &&
		    sscanf(argv[i + 1], "%d,%d,%d", &shm_fd, &data_fd, &room_fd) != 3)
			return 1;
	}
	if (shm_fd < 0 || !input)
		return 1;
	if (pread(shm_fd, &probe, sizeof(probe), 0) != (ssize_t) sizeof(probe))
		return 1;
	ring = mmap(NULL, INGEST_RING_DATA_OFFSET + probe.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    shm_fd, 0);
	if (ring == MAP_FAILED)
		return 1;
	bytes = helper_read(input, &size);
	if (size == 0) {
		free(bytes);
		return 0;
	}
	is_scribble = (bytes[0] & 0x80) && size >= 17;
	send = bytes + (is_scribble ? 17 : 1);
	send_size = size - (size_t) (send - bytes);
	chunk = (bytes[0] >> 2) & 0x1f ? 1 + 61 * (size_t) ((bytes[0] >> 2) & 0x1f) : send_size;
	while (sent < send_size) {
		size_t len = send_size - sent < chunk ? send_size - sent : chunk;

		helper_publish(ring, probe.size, data_fd, room_fd, send + sent, len);
		sent += len;
	}
	if (is_scribble) {
		atomic_fetch_add(&ring->head, helper_u64(bytes + 1));
		ring->size ^= helper_u64(bytes + 9);
		helper_notify(data_fd);
	}
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
