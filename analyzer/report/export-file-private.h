/* SPDX-License-Identifier: MIT */
/*
 * What the exporters share: an output file that appears under its name only once it is complete
 * (a temporary file next to it, renamed at the end), and one-line error messages. Private to
 * analyzer/report.
 */
#ifndef FSA_EXPORT_FILE_PRIVATE_H
#define FSA_EXPORT_FILE_PRIVATE_H

#include <stdbool.h>

#include "fsa/model.h"

struct fsa_export_file {
	char *path;     /* the output's name */
	char *tmp_path; /* where it is written until committed; NULL once committed or removed */
	bool is_overwrite;
};

/*
 * Checks that PATH may be written (it does not exist, or is_overwrite and it is not a folder)
 * and creates an empty temporary file next to it. Returns FSA_OK, or FSA_ERR_IO / FSA_ERR_NOMEM
 * with a message "PATH: why" in *error_message (transfer full).
 */
fsa_status fsa_export_file_begin(struct fsa_export_file *file, const char *path, bool is_overwrite,
				 char **error_message);
/* Renames the temporary file to the output's name (refusing to replace a file that appeared
 * meanwhile unless is_overwrite). */
fsa_status fsa_export_file_commit(struct fsa_export_file *file, char **error_message);
/* Removes the temporary file if it is still there and frees the names. */
void fsa_export_file_end(struct fsa_export_file *file);

/* Returns: (transfer full) (nullable: out of memory) a formatted string. */
char *fsa_strdup_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Sets *error_message (if not NULL) to a copy of MESSAGE, or to NULL when MESSAGE is NULL. */
void fsa_set_error_message(char **error_message, const char *message);

#endif /* FSA_EXPORT_FILE_PRIVATE_H */
