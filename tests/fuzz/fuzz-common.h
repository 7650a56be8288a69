/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share: a scratch folder, files, the analysis `fencescope report` runs
 * with its outcome checked (docs/fuzzing.md lists the properties), and the watch on the decoder
 * child's sanitizer reports. A broken property aborts, so libFuzzer saves the input.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Prints "fuzz: property broken: …" and aborts. */
void fuzz_fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Once per process: a scratch folder (removed at exit), and the environment of every decoder
 * child: its sanitizer reports go to files in the scratch folder, a hang is cut after 3 s.
 * Returns: (transfer none) the folder. */
const char *fuzz_setup(void);

/* The whole file; aborts when it cannot. Returns: (transfer full) free(). */
unsigned char *fuzz_file_read(const char *path, size_t *size);
/* Writes DIR/NAME; aborts when it cannot. */
void fuzz_file_write(const char *dir, const char *name, const uint8_t *bytes, size_t size);

/*
 * Reads TRACE through fsa_ingest_into_model into a report written as text, CSV and JSON, and
 * checks the outcome: a full result; a partial one with a one-line reason; or a clean one-line
 * error that names the trace. Then checks the decoder child's sanitizer reports: one whose
 * stack is in our code (analyzer/, the helper) is a broken property; one in libbabeltrace2 or
 * GLib is what the child is there to contain.
 */
void fuzz_analyze(const char *trace);

#endif /* FUZZ_COMMON_H */
