/* SPDX-License-Identifier: MIT */
/*
 * FsvBookmarks (fsv-bookmarks.h): one JSON file per trace,
 *   {"version": 1, "trace": "/real/path", "bookmarks": [{"name": "…", "ns": 123}, …]}
 * read whole and written whole (a user has tens of bookmarks, not millions).
 */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "fsv-bookmarks.h"

#define BOOKMARKS_VERSION 1

struct _FsvBookmarks {
	char *trace_path;    /* the real path, the key */
	char *file;          /* DATA_DIR/fencescope/bookmarks/KEY.json */
	GArray *items;       /* FsvBookmark, in time order */
	gboolean is_damaged; /* the file on disk could not be read: set it aside before saving */
	guint next_number;   /* for "Bookmark N" */
};

static void
bookmark_clear(gpointer data)
{
	FsvBookmark *bookmark = data;

	g_free(bookmark->name);
}

/* The trace's real path: symbolic links and ".." resolved, so two spellings of one trace share
 * their bookmarks. A path that does not exist (any more) keeps its canonical spelling. */
static char *
real_trace_path(const char *trace_path)
{
	g_autofree char *canonical = g_canonicalize_filename(trace_path, NULL);
	char *real = realpath(canonical, NULL);

	if (real) {
		char *copy = g_strdup(real);

		free(real);
		return copy;
	}
	return g_steal_pointer(&canonical);
}

/* Inserts keeping time order; equal times keep the order they were added in. */
static guint
insert_sorted(GArray *items, FsvBookmark *bookmark)
{
	guint at = items->len;

	while (at > 0 && g_array_index(items, FsvBookmark, at - 1).ns > bookmark->ns)
		at--;
	g_array_insert_val(items, at, *bookmark);
	return at;
}

/* Reads FILE into ITEMS; false with *why (transfer full) when it is not a bookmarks file. */
static gboolean
read_file(const char *file, GArray *items, char **why)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error = NULL;
	JsonObject *root;
	JsonArray *list;

	if (!json_parser_load_from_file(parser, file, &error)) {
		*why = g_strdup(error->message);
		return FALSE;
	}
	if (!JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser))) {
		*why = g_strdup("not a JSON object");
		return FALSE;
	}
	root = json_node_get_object(json_parser_get_root(parser));
	if (!json_object_has_member(root, "bookmarks") ||
	    !JSON_NODE_HOLDS_ARRAY(json_object_get_member(root, "bookmarks"))) {
		*why = g_strdup("no \"bookmarks\" list");
		return FALSE;
	}
	list = json_object_get_array_member(root, "bookmarks");
	for (guint i = 0; i < json_array_get_length(list); i++) {
		JsonNode *node = json_array_get_element(list, i);
		JsonObject *entry;
		FsvBookmark bookmark;
		JsonNode *ns, *name;

		entry = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
		ns = entry ? json_object_get_member(entry, "ns") : NULL;
		name = entry ? json_object_get_member(entry, "name") : NULL;
		if (!ns || json_node_get_value_type(ns) != G_TYPE_INT64 ||
		    json_node_get_int(ns) < 0 || !name ||
		    json_node_get_value_type(name) != G_TYPE_STRING) {
			*why = g_strdup_printf("bookmark %u is not {\"name\": TEXT, \"ns\": N}",
					       i + 1);
			return FALSE;
		}
		bookmark.ns = (guint64) json_node_get_int(ns);
		bookmark.name = g_strdup(json_node_get_string(name));
		insert_sorted(items, &bookmark);
	}
	return TRUE;
}

FsvBookmarks *
fsv_bookmarks_load(const char *trace_path, const char *data_dir, char **warning)
{
	FsvBookmarks *bookmarks = g_new0(FsvBookmarks, 1);
	g_autofree char *key = NULL;
	g_autofree char *name = NULL;
	g_autofree char *why = NULL;

	g_return_val_if_fail(trace_path != NULL, NULL);
	if (warning)
		*warning = NULL;
	bookmarks->trace_path = real_trace_path(trace_path);
	key = g_compute_checksum_for_string(G_CHECKSUM_SHA256, bookmarks->trace_path, -1);
	name = g_strdup_printf("%.32s.json", key);
	bookmarks->file = g_build_filename(data_dir ? data_dir : g_get_user_data_dir(),
					   "fencescope", "bookmarks", name, NULL);
	bookmarks->items = g_array_new(FALSE, FALSE, sizeof(FsvBookmark));
	g_array_set_clear_func(bookmarks->items, bookmark_clear);
	bookmarks->next_number = 1;
	if (!g_file_test(bookmarks->file, G_FILE_TEST_EXISTS))
		return bookmarks;
	if (!read_file(bookmarks->file, bookmarks->items, &why)) {
		g_array_set_size(bookmarks->items, 0);
		bookmarks->is_damaged = TRUE;
		if (warning)
			*warning = g_strdup_printf("Bookmarks not loaded: %s is damaged (%s)",
						   bookmarks->file, why);
	}
	bookmarks->next_number = bookmarks->items->len + 1;
	return bookmarks;
}

void
fsv_bookmarks_free(FsvBookmarks *bookmarks)
{
	if (bookmarks == NULL)
		return;
	g_array_unref(bookmarks->items);
	g_free(bookmarks->file);
	g_free(bookmarks->trace_path);
	g_free(bookmarks);
}

const char *
fsv_bookmarks_get_path(const FsvBookmarks *bookmarks)
{
	return bookmarks->file;
}

guint
fsv_bookmarks_get_count(const FsvBookmarks *bookmarks)
{
	return bookmarks->items->len;
}

const FsvBookmark *
fsv_bookmarks_get(const FsvBookmarks *bookmarks, guint i)
{
	g_return_val_if_fail(i < bookmarks->items->len, NULL);
	return &g_array_index(bookmarks->items, FsvBookmark, i);
}

guint
fsv_bookmarks_add(FsvBookmarks *bookmarks, guint64 ns, const char *name)
{
	FsvBookmark bookmark = {.ns = ns};

	if (name && *name)
		bookmark.name = g_strdup(name);
	else
		bookmark.name = g_strdup_printf("Bookmark %u", bookmarks->next_number);
	bookmarks->next_number++;
	return insert_sorted(bookmarks->items, &bookmark);
}

void
fsv_bookmarks_rename(FsvBookmarks *bookmarks, guint i, const char *name)
{
	FsvBookmark *bookmark;

	g_return_if_fail(i < bookmarks->items->len);
	g_return_if_fail(name != NULL);
	bookmark = &g_array_index(bookmarks->items, FsvBookmark, i);
	g_free(bookmark->name);
	bookmark->name = g_strdup(name);
}

void
fsv_bookmarks_remove(FsvBookmarks *bookmarks, guint i)
{
	g_return_if_fail(i < bookmarks->items->len);
	g_array_remove_index(bookmarks->items, i);
}

static char *
to_json(const FsvBookmarks *bookmarks)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonGenerator) generator = json_generator_new();
	g_autoptr(JsonNode) root = NULL;

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "version");
	json_builder_add_int_value(builder, BOOKMARKS_VERSION);
	json_builder_set_member_name(builder, "trace");
	json_builder_add_string_value(builder, bookmarks->trace_path);
	json_builder_set_member_name(builder, "bookmarks");
	json_builder_begin_array(builder);
	for (guint i = 0; i < bookmarks->items->len; i++) {
		const FsvBookmark *bookmark = &g_array_index(bookmarks->items, FsvBookmark, i);

		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "name");
		json_builder_add_string_value(builder, bookmark->name);
		json_builder_set_member_name(builder, "ns");
		json_builder_add_int_value(builder, (gint64) bookmark->ns);
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	root = json_builder_get_root(builder);
	json_generator_set_root(generator, root);
	json_generator_set_pretty(generator, TRUE);
	return json_generator_to_data(generator, NULL);
}

gboolean
fsv_bookmarks_save(FsvBookmarks *bookmarks, GError **error)
{
	g_autofree char *dir = NULL;
	g_autofree char *text = NULL;

	g_return_val_if_fail(bookmarks != NULL, FALSE);
	dir = g_path_get_dirname(bookmarks->file);
	text = to_json(bookmarks);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "%s: %s", dir,
			    g_strerror(errno));
		return FALSE;
	}
	if (bookmarks->is_damaged) {
		g_autofree char *aside = g_strconcat(bookmarks->file, ".damaged", NULL);

		/* Kept for whoever wants to repair it by hand; a failure only loses it. */
		(void) g_rename(bookmarks->file, aside);
		bookmarks->is_damaged = FALSE;
	}
	/* g_file_set_contents writes a temporary file in the same folder, syncs and renames it
	 * over the old one: a reader sees the old file or the new one, never half of either. */
	return g_file_set_contents(bookmarks->file, text, -1, error);
}
