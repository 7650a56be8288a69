/* SPDX-License-Identifier: MIT */
/*
 * What the exporters share besides their output file (fsa/output-file.h): one-line error
 * messages. Private to analyzer/report.
 */
#ifndef FSA_EXPORT_FILE_PRIVATE_H
#define FSA_EXPORT_FILE_PRIVATE_H

#include <stdbool.h>

#include "fsa/model.h"
#include "fsa/output-file.h"

/* Returns: (transfer full) (nullable: out of memory) a formatted string. */
char *strdup_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Sets *error_message (if not NULL) to a copy of MESSAGE, or to NULL when MESSAGE is NULL. */
void set_error_message(char **error_message, const char *message);

#endif /* FSA_EXPORT_FILE_PRIVATE_H */
