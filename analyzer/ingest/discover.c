/* SPDX-License-Identifier: MIT */
/*
 * Finding the CTF traces under a path the way the babeltrace2 CLI does (every folder that holds a
 * `metadata` file), and a guard against the truncated metadata that makes libbabeltrace2 2.0.4
 * spin forever. It reads only file names and metadata packet headers; what a trace says is the
 * decoder's business, and grouping folders by trace UUID is the graph's (ingest.c).
 */
#define _GNU_SOURCE /* asprintf, vasprintf */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest-private.h"

void
ingest_error_set(char **error, const char *fmt, ...)
{
	va_list args;
	char *msg = NULL;

	/* The first failure is the one to report; later ones follow from it. */
	if (!error || *error)
		return;
	va_start(args, fmt);
	if (vasprintf(&msg, fmt, args) < 0)
		msg = NULL;
	va_end(args);
	/* Callers print it as one line. */
	for (char *p = msg; p && *p; p++) {
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	}
	*error = msg;
}

void
ingest_dirs_fini(struct ingest_dirs *dirs)
{
	for (size_t i = 0; i < dirs->count; i++)
		free(dirs->paths[i]);
	free(dirs->paths);
	*dirs = (struct ingest_dirs){0};
}

static fsa_status
ingest_dirs_append(struct ingest_dirs *dirs, const char *path)
{
	char *copy = strdup(path);

	if (!copy)
		return FSA_ERR_NOMEM;
	if (dirs->count == dirs->capacity) {
		size_t capacity = dirs->capacity ? dirs->capacity * 2 : 8;
		char **paths = realloc(dirs->paths, capacity * sizeof(*paths));

		if (!paths) {
			free(copy);
			return FSA_ERR_NOMEM;
		}
		dirs->paths = paths;
		dirs->capacity = capacity;
	}
	dirs->paths[dirs->count++] = copy;
	return FSA_OK;
}

static bool
ingest_entry_is_file(const char *path, const struct stat *lst)
{
	struct stat st;

	if (S_ISREG(lst->st_mode))
		return true;
	return S_ISLNK(lst->st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static fsa_status
ingest_dirs_collect(const char *dir, struct ingest_dirs *dirs, char **error)
{
	DIR *stream = opendir(dir);
	char *child = NULL;
	bool has_metadata = false;
	fsa_status status = FSA_ERR_IO;

	if (!stream) {
		ingest_error_set(error, "%s: %s", dir, strerror(errno));
		goto end;
	}
	for (;;) {
		struct dirent *entry;
		struct stat st;

		errno = 0;
		entry = readdir(stream);
		if (!entry) {
			if (errno) {
				ingest_error_set(error, "%s: %s", dir, strerror(errno));
				goto end;
			}
			break;
		}
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		free(child);
		if (asprintf(&child, "%s/%s", dir, entry->d_name) < 0) {
			child = NULL;
			status = FSA_ERR_NOMEM;
			goto end;
		}
		if (lstat(child, &st) != 0) {
			ingest_error_set(error, "%s: %s", child, strerror(errno));
			goto end;
		}
		if (S_ISDIR(st.st_mode)) {
			status = ingest_dirs_collect(child, dirs, error);
			if (status != FSA_OK)
				goto end;
			status = FSA_ERR_IO;
		} else if (strcmp(entry->d_name, "metadata") == 0 &&
			   ingest_entry_is_file(child, &st)) {
			has_metadata = true;
		}
	}
	if (has_metadata && ingest_dirs_append(dirs, dir) != FSA_OK) {
		status = FSA_ERR_NOMEM;
		goto end;
	}
	status = FSA_OK;
end:
	if (status == FSA_ERR_NOMEM)
		ingest_error_set(error, "out of memory");
	free(child);
	if (stream)
		closedir(stream);
	return status;
}

static int
ingest_path_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

bool
ingest_is_live_url(const char *trace)
{
	return strncmp(trace, "net://", 6) == 0 || strncmp(trace, "net4://", 7) == 0 ||
	       strncmp(trace, "net6://", 7) == 0;
}

fsa_status
ingest_dirs_find(const char *path, struct ingest_dirs *dirs, char **error)
{
	char *root = strdup(path);
	struct stat st;
	size_t len;
	fsa_status status = FSA_ERR_NOMEM;

	if (!root) {
		ingest_error_set(error, "out of memory");
		goto end;
	}
	/* "trace/" and "trace" name the same folder; keep paths tidy. */
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		root[--len] = '\0';
	if (stat(root, &st) != 0) {
		ingest_error_set(error, "%s", strerror(errno));
		status = FSA_ERR_IO;
		goto end;
	}
	if (!S_ISDIR(st.st_mode)) {
		ingest_error_set(error,
				 "not a folder (give the trace's folder or a folder above it)");
		status = FSA_ERR_IO;
		goto end;
	}
	status = ingest_dirs_collect(root, dirs, error);
	if (status != FSA_OK)
		goto end;
	/* The same component inputs in the same order on every run. */
	if (dirs->count > 1)
		qsort(dirs->paths, dirs->count, sizeof(*dirs->paths), ingest_path_compare);
end:
	free(root);
	return status;
}

/* Size of a CTF 1.8 metadata packet header: magic, UUID, checksum, sizes, schemes, version. */
#define INGEST_METADATA_HEADER_SIZE 37
#define INGEST_TSDL_MAGIC           UINT32_C(0x75d11d57)

static uint32_t
ingest_u32_read(const unsigned char *bytes, bool is_swapped)
{
	uint32_t value;

	memcpy(&value, bytes, sizeof(value));
	if (is_swapped)
		value = __builtin_bswap32(value);
	return value;
}

/* Walks the packet headers exactly as libbabeltrace2's metadata decoder does, and leaves every
 * other defect, and plain-text metadata, to the decoder (which fails cleanly on them). */
fsa_status
ingest_metadata_check(const char *dir, char **error)
{
	unsigned char header[INGEST_METADATA_HEADER_SIZE];
	char *path = NULL;
	int fd = -1;
	struct stat st;
	uint64_t offset = 0;
	bool is_swapped = false;
	fsa_status status = FSA_ERR_TRACE;

	if (asprintf(&path, "%s/metadata", dir) < 0) {
		path = NULL;
		ingest_error_set(error, "out of memory");
		status = FSA_ERR_NOMEM;
		goto end;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		ingest_error_set(error, "%s: %s", path, strerror(errno));
		status = FSA_ERR_IO;
		goto end;
	}
	while (offset + sizeof(header) <= (uint64_t) st.st_size) {
		uint32_t content_bits, packet_bits, content_size;

		if (pread(fd, header, sizeof(header), (off_t) offset) != (ssize_t) sizeof(header))
			break;
		if (offset == 0) {
			/* The first magic number tells packetized from text, and the byte order. */
			if (ingest_u32_read(header, false) == INGEST_TSDL_MAGIC)
				is_swapped = false;
			else if (ingest_u32_read(header, true) == INGEST_TSDL_MAGIC)
				is_swapped = true;
			else
				break;
		}
		content_bits = ingest_u32_read(header + 24, is_swapped);
		packet_bits = ingest_u32_read(header + 28, is_swapped);
		content_size = content_bits / 8;
		if (content_size < sizeof(header) || packet_bits < content_bits)
			break;
		if (offset + content_size > (uint64_t) st.st_size) {
			ingest_error_set(error,
					 "%s: metadata packet at offset %" PRIu64 " claims %" PRIu32
					 " bytes but the file has %" PRIu64 " (truncated trace?)",
					 path, offset, content_size,
					 (uint64_t) st.st_size - offset);
			goto end;
		}
		offset += packet_bits / 8;
	}
	status = FSA_OK;
end:
	if (fd >= 0)
		close(fd);
	free(path);
	return status;
}

char *
ingest_metadata_uuid(const char *dir)
{
	unsigned char head[4096];
	char *path = NULL, *uuid = NULL;
	ssize_t len = -1;
	int fd;

	if (asprintf(&path, "%s/metadata", dir) < 0)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd >= 0) {
		len = pread(fd, head, sizeof(head) - 1, 0);
		close(fd);
	}
	if (len >= INGEST_METADATA_HEADER_SIZE &&
	    (ingest_u32_read(head, false) == INGEST_TSDL_MAGIC ||
	     ingest_u32_read(head, true) == INGEST_TSDL_MAGIC)) {
		/* Packetized: the UUID's 16 bytes follow the magic number. */
		uuid = malloc(33);
		for (int i = 0; uuid && i < 16; i++)
			snprintf(uuid + 2 * i, 3, "%02x", head[4 + i]);
	} else if (len > 0) {
		/* Plain text: `uuid = "…";` in the trace block, the first one in the file. */
		const char *p, *q;

		head[len] = '\0';
		p = strstr((const char *) head, "uuid");
		p = p ? strchr(p, '"') : NULL;
		q = p ? strchr(p + 1, '"') : NULL;
		if (q && q - p < 64)
			uuid = strndup(p + 1, (size_t) (q - p - 1));
	}
	return uuid;
}

void
ingest_error_strip_addresses(char *text)
{
	char *out = text;

	/* Babeltrace's causes carry heap addresses ("msg-addr=0x55bab6b28780"): an error that is
	 * the same on every run must not. Long hexadecimal numbers after 0x become "0x…". */
	for (const char *p = text; p && *p;) {
		size_t digits = 0;

		if (p[0] == '0' && p[1] == 'x') {
			while (isxdigit((unsigned char) p[2 + digits]))
				digits++;
		}
		if (digits >= 8) {
			memcpy(out, "0x\xe2\x80\xa6", 5);
			out += 5;
			p += 2 + digits;
		} else {
			*out++ = *p++;
		}
	}
	if (out)
		*out = '\0';
}
