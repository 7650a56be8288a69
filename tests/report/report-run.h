/* SPDX-License-Identifier: MIT */
/*
 * Runs the real `fencescope` binary for the golden and CLI tests and captures what it printed.
 */
#ifndef FST_REPORT_RUN_H
#define FST_REPORT_RUN_H

struct fst_run {
	int exit_status; /* -1 when it did not exit normally (a crash) */
	char *out, *err; /* g_free */
};

/* Runs FS_FENCESCOPE with argv (NULL-terminated, without the program); the child's stderr is
 * echoed to the test's stderr, so a sanitizer report in it reaches the test log. */
void fst_run_fencescope(const char *const *args, struct fst_run *run);
/* The same, in the folder CWD (NULL: the test's own). */
void fst_run_fencescope_in(const char *cwd, const char *const *args, struct fst_run *run);
void fst_run_clear(struct fst_run *run);

#endif /* FST_REPORT_RUN_H */
