/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the index file of a trace and its cache (issue 15 §1, docs/viewer.md "Index file
 * and cache"). An FsvTrace is flat arrays (fsv-trace-storage.h); the index file is those arrays
 * as they are in memory, behind a header and a section table, so that opening a trace again is
 * mapping a file instead of decoding it. The file is keyed by the trace's identity on disk, so
 * a changed trace is never served from a stale index, and checked whole (checksum, bounds of
 * every stored index) before it is used, so a damaged file is rebuilt, never trusted.
 *
 * Plain GLib + POSIX, no GTK; every function is thread-safe.
 */
#ifndef FSV_INDEX_H
#define FSV_INDEX_H

#include <stdbool.h>

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

/* The layout of the file and of every array in it: bump it whenever a stored struct or the
 * list of arrays (FSV_TRACE_ARRAYS) changes, or how the builder fills them (5: VA rows take up to
 * 16 lanes, and a 64-bit checksum per section; 6: marker styles, MKST, fence step blocks, STPB,
 * and the frames section, FRMS and FRRW, and the frames rows; 7: a frames row's LOD buckets topped
 * by their worst frame, not their longest; 8: a frame's vsync_period_ns is the one last measured
 * when its own is unknown). Part of the key, and checked when mapping. */
#define FSV_INDEX_FORMAT_VERSION 8

/*
 * The identity of a trace on disk: its real path, and for every file under it (stream files,
 * metadata, index/ files), in name order, its relative name, size, mtime (ns) and inode; plus
 * FSV_INDEX_FORMAT_VERSION and the fencescope version. A changed trace gets another key, so it
 * is never served stale.
 *
 * Returns: (transfer full) (nullable): a hex string (SHA-256), or NULL with *error set (the path
 * cannot be read: FSV_TRACE_ERROR_IO).
 */
char *fsv_index_key(const char *trace_path, GError **error);

/*
 * Where the index of TRACE_PATH lives: $XDG_CACHE_HOME/fencescope/index/<key>.fsvi
 * (g_get_user_cache_dir()), its folders created.
 *
 * Returns: (transfer full) (nullable): the file's path, or NULL with *error set.
 */
char *fsv_index_cache_file(const char *trace_path, GError **error);

/* The cache's default cap (docs/viewer.md "Index file and cache"): 8 GiB, room for the index of a
 * 100 M event trace (5.8 GB) and a few smaller ones. */
#define FSV_INDEX_CACHE_MAX_DEFAULT (G_GUINT64_CONSTANT(8) << 30)

/*
 * The cap of the index cache, in bytes: FENCESCOPE_INDEX_CACHE_MAX when it is set and valid (a
 * number of bytes, or of KiB, MiB, GiB, TiB with a suffix K, M, G, T; 0 keeps only the index
 * being opened), else FSV_INDEX_CACHE_MAX_DEFAULT.
 */
guint64 fsv_index_cache_get_max(void);

/*
 * Marks the cache file FILE as used now (its modification time, which the cache's
 * least-recently-used order reads; the key does not). Errors are ignored: a file another viewer
 * just removed needs no mark.
 */
void fsv_index_cache_touch(const char *file);

/*
 * Caps the index cache in FOLDER: while the index files in it (KEY.fsvi) add up to more than
 * MAX_BYTES, removes the least recently used one (oldest modification time), never KEEP (the
 * index being opened, may be NULL). Temporary files of a save and build folders are not index
 * files: they are never counted nor removed. Safe with other processes saving, mapping or
 * pruning at once: a removed file that another process maps stays valid for it (the mapping
 * keeps it), and a file already removed by another pruner is skipped.
 *
 * Returns: how many files this call removed.
 */
guint fsv_index_cache_prune(const char *folder, guint64 max_bytes, const char *keep);

/*
 * Writes TRACE as an index file at FILE with key KEY: a temporary file beside it, written (its
 * checksums computed by a second thread meanwhile), renamed into place; not fsync'd (a cache: a
 * file torn by a crash of the machine fails its check at the next map and is rebuilt). Two
 * processes writing the same file at once both succeed and the file is always whole (either one's).
 * Returns false with *error set on failure (nothing left behind).
 */
bool fsv_index_save(const FsvTrace *trace, const char *key, const char *file, GError **error);

/*
 * fsv_index_save() for a trace thrown away after it (the builder's, viewer/builder): each array's
 * pages are given back (MADV_DONTNEED) once copied into the file, so that the page cache takes
 * them for the rest instead of pages new to the machine's memory (on a virtual machine these cost
 * several times more to touch). TRACE's arrays read as zeros afterwards: only unref it. The file
 * is the same.
 */
bool _fsv_index_save_and_drop(FsvTrace *trace, const char *key, const char *file, GError **error);

/*
 * Maps FILE read-only and returns a trace whose arrays point into the mapping. Checks the magic,
 * the format version, the byte order, that the key in the file equals EXPECTED_KEY, the checksums
 * of the header and of every section, and that every section and every stored index or offset lies
 * in bounds. On any failure returns NULL with a one-line error (FSV_TRACE_ERROR_INDEX): the caller
 * rebuilds the index. The trace's path is TRACE_PATH (paths are not stored).
 *
 * Returns: (transfer full) (nullable).
 */
FsvTrace *fsv_index_map(const char *file, const char *expected_key, const char *trace_path,
			GError **error);

/* For tests of damaged files (tests/viewer/test-index.c): where the section TAG (4 characters,
 * fsv-trace-storage.h) lies in FILE, and recomputing FILE's checksum after patching it. */
bool _fsv_index_find_section(const char *file, const char *tag, guint64 *offset, guint64 *count,
			     GError **error);
bool _fsv_index_update_checksum(const char *file, GError **error);

G_END_DECLS

#endif /* FSV_INDEX_H */
