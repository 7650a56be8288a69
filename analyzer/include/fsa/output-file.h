/* SPDX-License-Identifier: MIT */
/*
 * An output file that appears under its name only once it is complete: it is written under a
 * temporary name in the same folder ("NAME.tmp-XXXXXX") and renamed into place at the end, so a
 * full disk, an error or Ctrl-C never leaves a truncated file that looks finished, and a failed
 * output never replaces the file that was there. Used by every output of fencescope: the
 * report (`report -o`, the Babeltrace plugin's `path`), the exports and `render -o`.
 *
 * Rules (docs/export.md "Output files"):
 * - an existing folder, device node, FIFO or socket is never replaced, with or without
 *   is_overwrite; with FSA_OUTPUT_INTO_SPECIAL a character device or FIFO (/dev/null,
 *   /dev/stdout, a pipe) is written into directly instead (a stream has nothing to rename);
 * - an existing regular file is replaced only with FSA_OUTPUT_REPLACE; a symbolic link to one
 *   is followed (the file it points to is replaced, the link stays);
 * - the temporary file is removed when the output is abandoned, and by
 *   fsa_output_files_remove_temporary() from a signal handler.
 *
 * It does no I/O of its own beyond creating, renaming and removing: writers open tmp_path.
 */
#ifndef FSA_OUTPUT_FILE_H
#define FSA_OUTPUT_FILE_H

#include <stdbool.h>

#include "fsa/model.h"

enum fsa_output_flags {
	/* Replace an existing regular file (--force). */
	FSA_OUTPUT_REPLACE = 1 << 0,
	/* Write straight into an existing character device or FIFO instead of refusing it. */
	FSA_OUTPUT_INTO_SPECIAL = 1 << 1,
};

/* All zeros is a valid "not begun" state, which fsa_output_file_end() accepts. */
struct fsa_output_file {
	char *path;     /* where the output goes (a symbolic link resolved) */
	char *tmp_path; /* what to write to: the temporary file, or path itself when is_direct */
	bool is_direct; /* path is a device or FIFO written into directly: nothing to rename */
	bool is_replace;
	int slot; /* 1 + the temporary file's place in the signal-cleanup list, or 0 */
};

/*
 * Checks that PATH may be written and creates the (empty) temporary file next to it. Returns
 * FSA_OK, or FSA_ERR_IO / FSA_ERR_INVALID / FSA_ERR_NOMEM with a one-line "PATH: why" in
 * *error_message (transfer full, free(); may be NULL); nothing is then left on disk.
 */
FSA_API fsa_status fsa_output_file_begin(struct fsa_output_file *file, const char *path,
					 unsigned flags, char **error_message);
/*
 * Renames the temporary file to the output's name (refusing to replace a file that appeared
 * meanwhile unless FSA_OUTPUT_REPLACE). After a failure the temporary file is still there for
 * fsa_output_file_end() to remove.
 */
FSA_API fsa_status fsa_output_file_commit(struct fsa_output_file *file, char **error_message);
/* Removes the temporary file if it was not committed, and frees the names. Idempotent. */
FSA_API void fsa_output_file_end(struct fsa_output_file *file);

/*
 * Removes every temporary file this process has begun and not yet committed or ended.
 * Async-signal-safe: for a SIGINT/SIGTERM handler, which then ends the process. Files begun by
 * another process (a forked child) are left alone.
 */
FSA_API void fsa_output_files_remove_temporary(void);

/*
 * Whether two output names denote the same file (same device and inode when they exist, else
 * the same resolved folder and name), so that `--sqlite a.db --perfetto ./a.db` is caught.
 */
FSA_API bool fsa_output_paths_are_same(const char *a, const char *b);

#endif /* FSA_OUTPUT_FILE_H */
