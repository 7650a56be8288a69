/* SPDX-License-Identifier: MIT */
/*
 * What ingest.c (the graph) and discover.c (finding the CTF traces under a path) share: the list
 * of trace folders and one-line error messages. Not part of the public API.
 */
#ifndef FSA_INGEST_PRIVATE_H
#define FSA_INGEST_PRIVATE_H

#include <stddef.h>

#include "fsa/model.h"

/* CTF trace folders (each holds a `metadata` file), sorted. */
struct ingest_dirs {
	char **paths;
	size_t count, capacity;
};

void ingest_dirs_fini(struct ingest_dirs *dirs);

/*
 * Every folder at or below `path` that directly holds a file named `metadata`, like the
 * babeltrace2 CLI finds them. Symbolic links to folders are not followed (no endless walk).
 * Returns FSA_OK (possibly with no folder), FSA_ERR_IO (no such path, not a folder, unreadable)
 * or FSA_ERR_NOMEM, with the message in *error.
 */
fsa_status ingest_dirs_find(const char *path, struct ingest_dirs *dirs, char **error);

/*
 * Refuses a packetized metadata file whose packet claims more bytes than the file holds:
 * libbabeltrace2 2.0.4 retries a zero-byte read at the end of such a file forever, so a
 * truncated trace would hang instead of failing. Returns FSA_OK or FSA_ERR_TRACE.
 */
fsa_status ingest_metadata_check(const char *dir, char **error);

/* Sets *error (when error is non-NULL and *error still NULL) to the formatted one-line text. */
__attribute__((format(printf, 2, 3))) void ingest_error_set(char **error, const char *fmt, ...);

#endif /* FSA_INGEST_PRIVATE_H */
