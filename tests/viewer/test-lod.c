/* SPDX-License-Identifier: MIT */
/*
 * viewer/core FsvLod on synthetic lanes of random intervals (suite unit). The invariant the
 * timeline depends on: at any zoom and position, every pixel column a full draw would paint
 * for an item is painted by the level-of-detail draw too (an item is visited itself or its
 * bucket's extent covers it), the LOD draw paints nothing farther than 2 px from what the
 * full draw paints, and the number of things visited stays in proportion to the pixels.
 *
 * Pixels are rasterized as fsv-render.c's batch_add does: [floor(x0), ceil(x1)) and at least
 * the column of x0.
 */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "fsv-lod.h"

#define WIDTH 1000

typedef struct {
	guint64 begin;
	double ns_per_px;
	guint8 *px;
	guint64 visited;
} Raster;

static void
paint(Raster *r, guint64 b, guint64 e)
{
	double x0 = ((double) b - (double) r->begin) / r->ns_per_px;
	double x1 = ((double) e - (double) r->begin) / r->ns_per_px;
	long c0 = (long) floor(x0), c1 = (long) ceil(x1);

	if (c1 <= c0)
		c1 = c0 + 1;
	for (long c = MAX(c0, 0); c < MIN(c1, WIDTH); c++)
		r->px[c] = 1;
}

static bool
on_item(const FsvLodItem *item, gpointer data)
{
	Raster *r = data;

	r->visited++;
	paint(r, item->begin_ns, item->end_ns);
	return true;
}

static bool
on_bucket(const FsvLodBucket *b, gpointer data)
{
	Raster *r = data;

	r->visited++;
	cr_assert_gt(b->count, 0);
	paint(r, b->begin_ns, b->end_ns);
	return true;
}

/* Random items: clustered short ones (sub-pixel at most zooms), some long ones, a few
 * instants, spread over SPAN ns. */
static FsvLodItem *
random_items(GRand *rand, gsize n, guint64 span)
{
	FsvLodItem *items = g_new(FsvLodItem, n);

	for (gsize i = 0; i < n; i++) {
		guint64 b = (guint64) g_rand_double_range(rand, 0, (double) span);
		double kind = g_rand_double(rand);
		guint64 d;

		if (kind < 0.05)
			d = 0;
		else if (kind < 0.85)
			d = (guint64) g_rand_double_range(rand, 1, 5000);
		else if (kind < 0.98)
			d = (guint64) g_rand_double_range(rand, 5000, 2e6);
		else
			d = (guint64) g_rand_double_range(rand, 2e6, (double) span / 4);
		items[i] = (FsvLodItem){b, b + d, (guint32) i};
	}
	return items;
}

static void
check_view(const FsvLod *lod, const FsvLodItem *items, gsize n, guint64 begin, double ns_per_px)
{
	g_autofree guint8 *full = g_new0(guint8, WIDTH);
	g_autofree guint8 *lodpx = g_new0(guint8, WIDTH);
	Raster rf = {begin, ns_per_px, full, 0}, rl = {begin, ns_per_px, lodpx, 0};
	guint64 end = begin + (guint64) (ns_per_px * WIDTH);
	guint64 overlapping = 0;

	/* The full draw: every overlapping item, straight from the list. */
	for (gsize i = 0; i < n; i++)
		if (items[i].end_ns >= begin && items[i].begin_ns <= end) {
			paint(&rf, items[i].begin_ns, items[i].end_ns);
			overlapping++;
		}
	fsv_lod_visit(lod, begin, end, ns_per_px, on_item, on_bucket, &rl);
	for (int c = 0; c < WIDTH; c++) {
		cr_assert(
		    !full[c] || lodpx[c],
		    "column %d is painted by the full draw but not by LOD (begin %" G_GUINT64_FORMAT
		    ", %.1f ns/px)",
		    c, begin, ns_per_px);
		if (lodpx[c] && !full[c]) {
			bool is_near = false;

			for (int d = -2; d <= 2 && !is_near; d++)
				is_near = c + d >= 0 && c + d < WIDTH && full[c + d];
			cr_assert(is_near, "LOD paints column %d, 3 px or more from any item", c);
		}
	}
	/* O(pixels): items a quarter pixel long or more (levels are powers of 4), plus at most
	 * four buckets per pixel (a level's slots are as narrow as a quarter pixel). The random
	 * lane overlaps itself, so allow the long items that overlap the window on top. */
	{
		guint64 long_items = 0;

		for (gsize i = 0; i < n; i++)
			if (items[i].end_ns >= begin && items[i].begin_ns <= end &&
			    (double) (items[i].end_ns - items[i].begin_ns) >= ns_per_px / 4)
				long_items++;
		cr_assert_leq(rl.visited, long_items + 4 * WIDTH + 8,
			      "visited %" G_GUINT64_FORMAT " for %d px (%" G_GUINT64_FORMAT
			      " overlapping, %" G_GUINT64_FORMAT " long)",
			      rl.visited, WIDTH, overlapping, long_items);
	}
}

TestSuite(lod);

Test(lod, never_hides_a_pixel_at_any_zoom)
{
	g_autoptr(GRand) rand = g_rand_new_with_seed(20261122);
	const guint64 span = 2000000000; /* 2 s */

	for (int round = 0; round < 4; round++) {
		gsize n = round == 0 ? 50 : round == 1 ? 2000 : 60000;
		g_autofree FsvLodItem *items = random_items(rand, n, span);
		g_autoptr(FsvLod) lod = fsv_lod_new(items, n);
		static const double zooms[] = {0.5, 3, 17, 100, 1000, 4096, 20000, 1e5, 1e6, 2.1e6};

		cr_assert_eq(fsv_lod_get_item_count(lod), n);
		for (gsize z = 0; z < G_N_ELEMENTS(zooms); z++)
			for (int pos = 0; pos < 6; pos++) {
				guint64 begin = (guint64) g_rand_double_range(
				    rand, 0, (double) span - zooms[z] * WIDTH / 2);

				check_view(lod, items, n, begin, zooms[z]);
			}
		/* The whole lane in one window. */
		check_view(lod, items, n, 0, (double) span / WIDTH * 1.05);
	}
}

Test(lod, dense_lane_is_visited_in_buckets)
{
	/* 1 M back-to-back 100 ns items: at 1 ms per pixel the draw must not visit them. */
	const gsize n = 1000000;
	g_autofree FsvLodItem *items = g_new(FsvLodItem, n);
	g_autofree guint8 *px = g_new0(guint8, WIDTH);
	Raster r = {0, 100.0 * n / WIDTH, px, 0};

	for (gsize i = 0; i < n; i++)
		items[i] = (FsvLodItem){i * 100, i * 100 + 90, (guint32) i};
	{
		g_autoptr(FsvLod) lod = fsv_lod_new(items, n);

		fsv_lod_visit(lod, 0, 100 * n, r.ns_per_px, on_item, on_bucket, &r);
		cr_assert_leq(r.visited, 2 * WIDTH + 2, "visited %" G_GUINT64_FORMAT, r.visited);
		for (int c = 0; c < WIDTH; c++)
			cr_assert(px[c], "column %d left empty", c);
	}
}

/* fsv_lod_visit_ahead(): the buckets drawn, those whose top was announced before the previous
 * bucket was drawn (ahead, not just before its own draw), and when each top was announced. */
typedef struct {
	guint drawn, drawn_announced, announcements, announcements_at_previous_draw;
	GHashTable *announced; /* top + 1 → 1 + its announcement's ordinal */
} Ahead;

static bool
ahead_bucket(const FsvLodBucket *b, gpointer data)
{
	Ahead *a = data;
	guint at =
	    GPOINTER_TO_UINT(g_hash_table_lookup(a->announced, GUINT_TO_POINTER(b->top + 1)));

	a->drawn++;
	a->drawn_announced += at > 0 && at - 1 < a->announcements_at_previous_draw;
	a->announcements_at_previous_draw = a->announcements;
	return true;
}

static bool
ahead_item(const FsvLodItem *item, gpointer data)
{
	(void) item;
	(void) data;
	return true;
}

static void
ahead_announce(guint32 top, gpointer data)
{
	Ahead *a = data;

	g_hash_table_insert(a->announced, GUINT_TO_POINTER(top + 1),
			    GUINT_TO_POINTER(++a->announcements));
}

/* Issue 15 §1: what the renderer prefetches is what it draws FSV_LOD_AHEAD buckets later: every
 * bucket drawn after the first FSV_LOD_AHEAD was announced before the bucket before it was
 * drawn, and the visit itself is fsv_lod_visit()'s. */
Test(lod, visit_ahead_announces_each_top_before_it_is_drawn)
{
	const gsize n = 200000;
	g_autofree FsvLodItem *items = g_new(FsvLodItem, n);
	g_autoptr(FsvLod) lod = NULL;
	Ahead a = {0, 0, 0, 0, g_hash_table_new(NULL, NULL)};
	g_autofree guint8 *px = g_new0(guint8, WIDTH);
	Raster plain = {0, 100.0 * n / WIDTH, px, 0};

	for (gsize i = 0; i < n; i++)
		items[i] = (FsvLodItem){i * 100, i * 100 + 90, (guint32) i};
	lod = fsv_lod_new(items, n);
	/* A window inside the lane: buckets follow its end, and are announced. */
	fsv_lod_visit_ahead(lod, 100 * n / 4, 100 * n / 2, plain.ns_per_px, ahead_item,
			    ahead_bucket, ahead_announce, &a);
	fsv_lod_visit(lod, 100 * n / 4, 100 * n / 2, plain.ns_per_px, on_item, on_bucket, &plain);
	cr_assert_gt(a.drawn, 100);
	cr_assert_eq(plain.visited, a.drawn, "the same buckets as fsv_lod_visit");
	cr_assert_geq(a.drawn_announced, a.drawn - FSV_LOD_AHEAD, "%u of %u drawn were announced",
		      a.drawn_announced, a.drawn);
	g_hash_table_unref(a.announced);
}

static bool
count_item(const FsvLodItem *item, gpointer data)
{
	guint8 *seen = data;

	cr_assert_eq(seen[item->id], 0, "item %u visited twice", item->id);
	seen[item->id] = 1;
	return true;
}

Test(lod, without_buckets_visits_each_overlapping_item_once)
{
	g_autoptr(GRand) rand = g_rand_new_with_seed(7);
	const gsize n = 20000;
	g_autofree FsvLodItem *items = random_items(rand, n, 100000000);
	g_autoptr(FsvLod) lod = fsv_lod_new(items, n);
	g_autofree guint8 *seen = g_new0(guint8, n);
	const guint64 b = 30000000, e = 31000000;

	fsv_lod_visit(lod, b, e, 1e6, count_item, NULL, seen);
	for (gsize i = 0; i < n; i++) {
		bool overlaps = items[i].end_ns >= b && items[i].begin_ns <= e;

		cr_assert_eq(seen[i], overlaps, "item %zu: overlaps %d, visited %d", i, overlaps,
			     seen[i]);
	}
}

static bool
keep_bucket(const FsvLodBucket *b, gpointer data)
{
	GArray *out = data;

	g_array_append_val(out, *b);
	return true;
}

static bool
fail_item(const FsvLodItem *item, gpointer data)
{
	(void) data;
	cr_assert_fail("item %u visited one by one at a zoom where it is sub-pixel", item->id);
	return true;
}

Test(lod, bucket_holds_count_extent_and_longest_item)
{
	const FsvLodItem items[] = {{1000, 1010, 0}, {1020, 1090, 1}, {1100, 1105, 2}};
	g_autoptr(FsvLod) lod = fsv_lod_new(items, G_N_ELEMENTS(items));
	g_autoptr(GArray) buckets = g_array_new(FALSE, FALSE, sizeof(FsvLodBucket));
	const FsvLodBucket *b;

	/* 5000 ns per pixel: level 6 (4096 ns slots); the three start in slot 0. */
	fsv_lod_visit(lod, 0, 5000000, 5000, fail_item, keep_bucket, buckets);
	cr_assert_eq(buckets->len, 1);
	b = &g_array_index(buckets, FsvLodBucket, 0);
	cr_assert_eq(b->count, 3);
	cr_assert_eq(b->begin_ns, 1000);
	cr_assert_eq(b->end_ns, 1105);
	cr_assert_eq(b->top, 1, "the longest item is 1, got %u", b->top);
}

Test(lod, empty_lane_visits_nothing)
{
	g_autoptr(FsvLod) lod = fsv_lod_new(NULL, 0);

	cr_assert_eq(fsv_lod_get_item_count(lod), 0);
	fsv_lod_visit(lod, 0, UINT64_MAX - 1, 1000, fail_item, keep_bucket, NULL);
}
