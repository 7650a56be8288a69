/* SPDX-License-Identifier: MIT */
/*
 * FsvBookmarks: the named times a user marked in one trace (B, or the Bookmarks menu), kept
 * across runs in the user's data directory: g_get_user_data_dir()/fencescope/bookmarks/KEY.json,
 * KEY being a hash of the trace's real path (symbolic links resolved). A trace that is moved or
 * copied elsewhere is another path: its bookmarks stay behind under the old one.
 *
 * GLib and json-glib only (no GTK): the window lists, jumps and edits; this file loads and saves.
 * A save writes a temporary file and renames it over the old one, so a crash never leaves half a
 * file; a damaged file is not trusted: loading says so in one line and starts empty, and the
 * first save sets the damaged file aside (KEY.json.damaged) rather than losing it silently.
 */
#ifndef FSV_BOOKMARKS_H
#define FSV_BOOKMARKS_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
	char *name; /* owned; never NULL */
	guint64 ns; /* trace time */
} FsvBookmark;

typedef struct _FsvBookmarks FsvBookmarks;

/*
 * The bookmarks of the trace at TRACE_PATH, read from DATA_DIR (NULL: g_get_user_data_dir()).
 * Never NULL: a missing file is an empty list; a damaged one too, and *warning (transfer full,
 * nullable) then says so in one line.
 */
FsvBookmarks *fsv_bookmarks_load(const char *trace_path, const char *data_dir, char **warning);
void fsv_bookmarks_free(FsvBookmarks *bookmarks);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvBookmarks, fsv_bookmarks_free)

/* Returns: (transfer none): the file they are kept in. */
const char *fsv_bookmarks_get_path(const FsvBookmarks *bookmarks);
guint fsv_bookmarks_get_count(const FsvBookmarks *bookmarks);
/* Returns: (transfer none): the I-th bookmark, in time order (then in the order added). */
const FsvBookmark *fsv_bookmarks_get(const FsvBookmarks *bookmarks, guint i);

/* Adds a bookmark at NS (NAME NULL or empty: "Bookmark N"); returns its index. */
guint fsv_bookmarks_add(FsvBookmarks *bookmarks, guint64 ns, const char *name);
void fsv_bookmarks_rename(FsvBookmarks *bookmarks, guint i, const char *name);
void fsv_bookmarks_remove(FsvBookmarks *bookmarks, guint i);

/* Writes them atomically (temporary file, then rename). False with *error when it cannot. */
gboolean fsv_bookmarks_save(FsvBookmarks *bookmarks, GError **error);

G_END_DECLS

#endif /* FSV_BOOKMARKS_H */
