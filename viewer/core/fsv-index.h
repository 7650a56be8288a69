/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the on-disk index of a trace and its cache (s9-idx's API, issue 15 §1). This
 * header is the API text the s9-idx brief gives; its owner's version replaces it when the
 * INDEX-API commit is merged.
 */
#ifndef FSV_INDEX_H
#define FSV_INDEX_H

#include <stdbool.h>

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

/* Identity of a trace on disk: real path, and for every file under it (stream files, metadata,
 * index/ files) its relative name, size, mtime (ns), inode; plus FSV_INDEX_FORMAT_VERSION and the
 * fencescope version. Hex string. A changed trace gets another key, so it is never served stale.
 */
char *fsv_index_key(const char *trace_path, GError **error);
/* $XDG_CACHE_HOME/fencescope/index/<key>.fsvi (g_get_user_cache_dir()), folders created. */
char *fsv_index_cache_file(const char *trace_path, GError **error);
/* Writes TRACE as an index file at FILE: a temporary file beside it, written, fsync'd, renamed
 * into place (two viewers writing the same key at once both succeed and the file is always
 * whole). */
bool fsv_index_save(const FsvTrace *trace, const char *key, const char *file, GError **error);
/* Maps FILE read-only and returns a trace whose arrays point into the mapping. Any failure: NULL
 * with a one-line error — the caller rebuilds; a damaged file is never trusted. The trace's path
 * is TRACE_PATH (not stored paths). */
FsvTrace *fsv_index_map(const char *file, const char *expected_key, const char *trace_path,
			GError **error);

G_END_DECLS

#endif /* FSV_INDEX_H */
