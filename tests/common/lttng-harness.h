/* SPDX-License-Identifier: MIT */
/*
 * End-to-end test helper that records the LTTng-UST events of one program run in a private
 * LTTng session daemon: it starts its own lttng-sessiond (isolated from any system-wide or
 * concurrent daemon by a private LTTNG_HOME and, where allowed, private tmpfs mounts on
 * /var/run/lttng and /dev/shm in a mount namespace, inside a user namespace when not root),
 * creates a session writing to a given directory, runs the program, stops and destroys the
 * session, then stops exactly that daemon and nothing else. It is for tests only: it forks,
 * changes its child's namespaces and environment, and is not meant to be linked into the
 * runtime or the analyzer.
 */

#ifndef FST_LTTNG_HARNESS_H
#define FST_LTTNG_HARNESS_H

struct fst_record_options {
	/*
	 * Directory the trace is written to (`lttng create --output`); it must not exist yet
	 * or be empty, and is kept after the call, also when it fails.
	 */
	const char *output_dir;
	/* Program to run, NULL-terminated; argv[0] is a path (not looked up in PATH). */
	const char *const *argv;
	/* Event rule passed to `lttng enable-event -u`, for example "fencescope_*:*". */
	const char *event_pattern;
	/*
	 * Limit in seconds for the whole recording (daemon start to session destruction).
	 * On expiry the running step is killed, then the session is still destroyed and the
	 * daemon stopped, which may take up to about 40 s more.
	 */
	int timeout_s;
	/*
	 * Optional: size of each per-CPU sub-buffer, e.g. "8M" (with 8 sub-buffers), for
	 * programs that emit more than the default channel holds without discarding. NULL keeps
	 * LTTng's default channel.
	 */
	const char *subbuf_size;
};

/*
 * Records the LTTng-UST events matching options->event_pattern that options->argv emits
 * into options->output_dir, using a session daemon of its own that it stops before
 * returning. The program's standard input is /dev/null; its standard output and error go to
 * the helper's private log, whose last line is quoted in error messages.
 *
 * Returns 0 when the session recorded and the program exited with status 0. Otherwise
 * returns -1 and, when error is not NULL, sets *error to a one-line message naming the step
 * that failed, the program's exit status ("program exited with status N", "program killed
 * by signal N") or the timeout: (transfer full), release it with free(). On success *error
 * is set to NULL.
 */
int fst_lttng_record(const struct fst_record_options *options, char **error);

/* Removes a directory tree (a trace a test recorded); returns 0 or -1. */
int fst_remove_tree(const char *path);

#endif /* FST_LTTNG_HARNESS_H */
