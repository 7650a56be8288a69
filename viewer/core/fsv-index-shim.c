/* SPDX-License-Identifier: MIT */
/*
 * SCAFFOLDING, removed when s9-idx's INDEX-API commit is merged: the fsv-index.h API done the
 * slow way so that the loader and the builder can be written and tested before the real index
 * file exists. The "index" here only holds the key; mapping it reads the trace again in process.
 */
#define _GNU_SOURCE
#include "fsv-index.h"

#include <stdlib.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#define SHIM_MAGIC "FSVI-SHIM 1\n"

static gint
compare_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static void
hash_tree(GChecksum *sum, const char *root, const char *rel)
{
	g_autofree char *dir_path = rel ? g_build_filename(root, rel, NULL) : g_strdup(root);
	g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const char *name;

	if (dir == NULL)
		return;
	while ((name = g_dir_read_name(dir)))
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, compare_names);
	for (guint i = 0; i < names->len; i++) {
		g_autofree char *child_rel =
		    rel ? g_build_filename(rel, names->pdata[i], NULL) : g_strdup(names->pdata[i]);
		g_autofree char *child = g_build_filename(root, child_rel, NULL);
		GStatBuf st;
		g_autofree char *line = NULL;

		if (g_lstat(child, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			hash_tree(sum, root, child_rel);
			continue;
		}
		line = g_strdup_printf("%s %lld %lld.%09ld %llu\n", child_rel, (long long) st.st_size,
				       (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
				       (unsigned long long) st.st_ino);
		g_checksum_update(sum, (const guchar *) line, -1);
	}
}

char *
fsv_index_key(const char *trace_path, GError **error)
{
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	g_autofree char *real = realpath(trace_path, NULL);

	if (real == NULL) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", trace_path,
			    g_strerror(errno));
		return NULL;
	}
	g_checksum_update(sum, (const guchar *) "shim\n", -1);
	g_checksum_update(sum, (const guchar *) real, -1);
	hash_tree(sum, real, NULL);
	return g_strdup(g_checksum_get_string(sum));
}

char *
fsv_index_cache_file(const char *trace_path, GError **error)
{
	g_autofree char *key = fsv_index_key(trace_path, error);
	g_autofree char *dir = NULL;
	g_autofree char *name = NULL;

	if (key == NULL)
		return NULL;
	dir = g_build_filename(g_get_user_cache_dir(), "fencescope", "index", NULL);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", dir,
			    g_strerror(errno));
		return NULL;
	}
	name = g_strconcat(key, ".fsvi", NULL);
	return g_build_filename(dir, name, NULL);
}

bool
fsv_index_save(const FsvTrace *trace, const char *key, const char *file, GError **error)
{
	g_autofree char *text = g_strconcat(SHIM_MAGIC, key, "\n", NULL);

	(void) trace;
	return g_file_set_contents(file, text, -1, error);
}

FsvTrace *
fsv_index_map(const char *file, const char *expected_key, const char *trace_path, GError **error)
{
	g_autofree char *text = NULL;
	g_autofree char *want = g_strconcat(SHIM_MAGIC, expected_key, "\n", NULL);

	if (!g_file_get_contents(file, &text, NULL, error))
		return NULL;
	if (strcmp(text, want) != 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: not an index of %s",
			    file, trace_path);
		return NULL;
	}
	return fsv_trace_load(trace_path, NULL, NULL, NULL, error);
}
