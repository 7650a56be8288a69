/* SPDX-License-Identifier: MIT */
/*
 * Bookmarks' storage (viewer/app/fsv-bookmarks.h, suite unit, no display): kept per trace real
 * path (two spellings of one path share them, another path does not), in time order, renamed
 * and deleted, saved atomically and read back; a damaged file (not JSON, wrong shape, a
 * negative time) loads as an empty list with a one-line warning, and the next save sets it
 * aside instead of losing it.
 */
#define _DEFAULT_SOURCE /* symlink() */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "fsv-bookmarks.h"

static char *data_dir, *trace_dir;

static void
make_dirs(void)
{
	data_dir = g_dir_make_tmp("fsv-bookmarks-data-XXXXXX", NULL);
	trace_dir = g_dir_make_tmp("fsv-bookmarks-trace-XXXXXX", NULL);
	cr_assert(data_dir && trace_dir);
}

static void
remove_tree(const char *path)
{
	g_autofree char *command = g_strdup_printf("rm -rf '%s'", path);

	cr_assert_eq(system(command), 0);
}

static void
remove_dirs(void)
{
	remove_tree(data_dir);
	remove_tree(trace_dir);
	g_clear_pointer(&data_dir, g_free);
	g_clear_pointer(&trace_dir, g_free);
}

TestSuite(bookmarks, .init = make_dirs, .fini = remove_dirs);

Test(bookmarks, saved_in_time_order_and_read_back_after_rename_and_delete)
{
	g_autoptr(FsvBookmarks) b = fsv_bookmarks_load(trace_dir, data_dir, NULL);
	g_autoptr(FsvBookmarks) again = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *warning = NULL;

	cr_assert_eq(fsv_bookmarks_get_count(b), 0);
	cr_assert(g_str_has_prefix(fsv_bookmarks_get_path(b), data_dir));
	cr_assert_eq(fsv_bookmarks_add(b, 300, "late"), 0);
	cr_assert_eq(fsv_bookmarks_add(b, 100, NULL), 0);
	cr_assert_eq(fsv_bookmarks_add(b, 200, "middle"), 1);
	cr_assert_str_eq(fsv_bookmarks_get(b, 0)->name, "Bookmark 2");
	fsv_bookmarks_rename(b, 1, "renamed \"quoted\" ✓");
	fsv_bookmarks_remove(b, 2);
	cr_assert(fsv_bookmarks_save(b, &error), "%s", error ? error->message : "");

	again = fsv_bookmarks_load(trace_dir, data_dir, &warning);
	cr_assert_null(warning, "%s", warning);
	cr_assert_eq(fsv_bookmarks_get_count(again), 2);
	cr_assert_eq(fsv_bookmarks_get(again, 0)->ns, 100);
	cr_assert_eq(fsv_bookmarks_get(again, 1)->ns, 200);
	cr_assert_str_eq(fsv_bookmarks_get(again, 1)->name, "renamed \"quoted\" ✓");
}

Test(bookmarks, keyed_by_the_real_path_of_the_trace)
{
	g_autofree char *link = g_strconcat(trace_dir, "-link", NULL);
	g_autofree char *base = g_path_get_basename(trace_dir);
	g_autofree char *dotted = g_build_filename(trace_dir, "..", base, NULL);
	g_autofree char *other = g_build_filename(trace_dir, "elsewhere", NULL);
	g_autoptr(FsvBookmarks) b = fsv_bookmarks_load(trace_dir, data_dir, NULL);
	g_autoptr(FsvBookmarks) by_link = NULL, by_dots = NULL, moved = NULL;

	cr_assert_eq(symlink(trace_dir, link), 0);
	fsv_bookmarks_add(b, 42, "here");
	cr_assert(fsv_bookmarks_save(b, NULL));
	by_link = fsv_bookmarks_load(link, data_dir, NULL);
	by_dots = fsv_bookmarks_load(dotted, data_dir, NULL);
	cr_assert_eq(fsv_bookmarks_get_count(by_link), 1);
	cr_assert_eq(fsv_bookmarks_get_count(by_dots), 1);
	/* A trace at another path (moved, copied) does not see them. */
	moved = fsv_bookmarks_load(other, data_dir, NULL);
	cr_assert_eq(fsv_bookmarks_get_count(moved), 0);
	g_unlink(link);
}

static void
check_damaged(const char *content)
{
	g_autoptr(FsvBookmarks) b = fsv_bookmarks_load(trace_dir, data_dir, NULL);
	g_autoptr(FsvBookmarks) damaged = NULL, fixed = NULL;
	g_autofree char *warning = NULL;
	g_autofree char *file = g_strdup(fsv_bookmarks_get_path(b));
	g_autofree char *aside = g_strconcat(file, ".damaged", NULL);
	g_autofree char *kept = NULL;

	fsv_bookmarks_add(b, 1, "x");
	cr_assert(fsv_bookmarks_save(b, NULL));
	cr_assert(g_file_set_contents(file, content, -1, NULL));
	damaged = fsv_bookmarks_load(trace_dir, data_dir, &warning);
	cr_assert_not_null(warning, "'%s' was trusted", content);
	cr_assert_null(strchr(warning, '\n'), "one line: %s", warning);
	cr_assert_not_null(strstr(warning, "damaged"), "%s", warning);
	cr_assert_eq(fsv_bookmarks_get_count(damaged), 0);
	/* The next save keeps the damaged file aside. */
	fsv_bookmarks_add(damaged, 7, "new");
	cr_assert(fsv_bookmarks_save(damaged, NULL));
	cr_assert(g_file_get_contents(aside, &kept, NULL, NULL));
	cr_assert_str_eq(kept, content);
	fixed = fsv_bookmarks_load(trace_dir, data_dir, NULL);
	cr_assert_eq(fsv_bookmarks_get_count(fixed), 1);
	g_unlink(aside);
}

Test(bookmarks, damaged_files_warn_in_one_line_and_are_set_aside)
{
	check_damaged("not json at all");
	check_damaged("[1, 2, 3]");
	check_damaged("{\"bookmarks\": {}}");
	check_damaged("{\"bookmarks\": [{\"name\": \"a\", \"ns\": -5}]}");
	check_damaged("{\"bookmarks\": [{\"name\": 3, \"ns\": 5}]}");
	check_damaged("{\"bookmarks\": [{\"name\": \"trunc");
}
