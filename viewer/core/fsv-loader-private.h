/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: what the tests read of the loader (fsv-loader.h) and the names the builder and
 * the loader share. Not for the app.
 */
#ifndef FSV_LOADER_PRIVATE_H
#define FSV_LOADER_PRIVATE_H

#include "fsv-loader.h"

G_BEGIN_DECLS

/* The builder's protocol version, its first line ("fencescope-index 1"). */
#define FSV_INDEX_PROTOCOL_VERSION 1
/* The builder's exit statuses. */
#define FSV_INDEX_EXIT_COMPLETE 0
#define FSV_INDEX_EXIT_PARTIAL  1
#define FSV_INDEX_EXIT_FAILED   2

/* How many index builders this process started so far (a cache hit starts none). */
guint _fsv_loader_get_builder_runs(void);
/* Returns: (transfer full): the builder program fsv_trace_open() runs: FENCESCOPE_INDEX_BUILDER,
 * else the build tree's when this program runs from the build tree, else the installed one
 * (LIBEXECDIR/fencescope/fencescope-index), else ../libexec/fencescope/ beside this program. */
char *_fsv_loader_dup_builder_path(void);

G_END_DECLS

#endif /* FSV_LOADER_PRIVATE_H */
