/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: counter tracks (issue 15 §4) — what the thin counter rows draw and what range
 * statistics and hit testing read:
 *
 * - an engine's **busy fraction** (FSV_ROW_BUSY, under its engine): the share of a time span
 *   during which at least one of the engine's packets ran ([start_ns, end_ns] of FsvPacket),
 *   exact for any span from prefix sums over the merged busy intervals;
 * - a queue's **depth** (FSV_ROW_DEPTH, right after its queue row): operations submitted minus
 *   operations completed, a step function over time (docs/viewer.md "Counter tracks" defines
 *   both words), kept as sorted change points with a min/max pyramid;
 * - a fence's **CurrentValue** (FSV_ROW_FENCE, FSV_ROW_XFENCE): the fence steps of FsvTrace,
 *   with a min/max pyramid over their values.
 *
 * Every query is O(log n): a pixel column asks for the exact busy time, or the true minimum and
 * maximum of a step function, over its time span, so a redraw costs O(pixels · log n) at any
 * zoom and a one-nanosecond spike is never averaged away. The arrays are built once, at index
 * time, from FsvTrace's public accessors; they are immutable afterwards.
 *
 * It draws nothing (fsv-render-counters.c does) and decides nothing about fences.
 */
#ifndef FSV_COUNTERS_H
#define FSV_COUNTERS_H

#include <stdbool.h>

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

/* The kinds of counter rows that can be hidden together (fsv_view_set_show_counter()). The
 * fence rows' step line has its own switch, fsv_view_set_show_fence_rows(). */
typedef enum {
	FSV_COUNTER_BUSY,  /* engines' busy fraction */
	FSV_COUNTER_DEPTH, /* queues' depth */
	FSV_COUNTER_KIND_COUNT,
} FsvCounterKind;

/*
 * Storage: flat arrays of plain data, listed in fsv-trace-storage.h's FSV_TRACE_ARRAYS, so the
 * index file saves and maps them with the rest of the trace. Per trace row, its slice of the
 * arrays of its kind (busy rows: busy_*; depth rows: depth_*; every row with a pyramid: its
 * first pyramid entry; fence rows: their step blocks; others all 0).
 */
typedef struct {
	guint32 first, count; /* busy intervals or depth change points */
	guint32 pyramid;      /* first entry of its min/max pyramid (depth, fence rows) */
	guint32 max_depth;    /* depth rows: the largest depth */
	/* Depth rows: compact (is_wide 0: times as 32-bit offsets from a 64-bit base per block of
	 * FSV_DEPTH_BLOCK points, depths in 16 bits; block: its first base) or wide (64-bit
	 * times, 32-bit depths: a block spans 2^32 ns or more, or a depth passes 65535). Fence
	 * rows: their first entry of step_block_ns. */
	guint32 block;
	guint32 is_wide;
} FsvCounterRow;

#define FSV_DEPTH_BLOCK 64
/* Fence steps per entry of step_block_ns. */
#define FSV_STEP_BLOCK 16

typedef struct {
	guint64 min, max;
} FsvCounterMinMax;

/* The arrays, as the trace holds them (views into its storage, or a build's g_malloc'd
 * arrays before they are handed to the trace). */
typedef struct _FsvCounters {
	const FsvCounterRow *rows;
	gsize n_rows;
	/* Busy intervals [begin, end) of every busy row, each row's sorted and disjoint, and
	 * the busy time before each. */
	const guint64 *busy_begin, *busy_end, *busy_before;
	gsize n_busy;
	/* Depth change points of every compact depth row: from depth_base[block + i / 64] +
	 * depth_offset[first + i] on, depth_value16[first + i]. */
	const guint64 *depth_base;
	gsize n_depth_base;
	const guint32 *depth_offset;
	const guint16 *depth_value16;
	gsize n_depth;
	/* And of every wide one: from depth_ns[first + i] on, depth_value[first + i]. */
	const guint64 *depth_ns;
	const guint32 *depth_value;
	gsize n_depth_wide;
	const FsvCounterMinMax *pyramid;
	gsize n_pyramid;
	/* Every fence row's step times, one in FSV_STEP_BLOCK: step_block_ns[block + k] is the
	 * time of its step k · FSV_STEP_BLOCK. A pixel column's search runs over these 8-byte
	 * times, then within one block of steps, instead of galloping over the 24-byte steps
	 * (issue 15 §1: at the whole-trace zoom of a 100 M event trace a column spans thousands of
	 * steps, and each probe of the gallop was a cache miss). */
	const guint64 *step_block_ns;
	gsize n_step_block_ns;
} FsvCounters;

/* Fills COUNTERS with new arrays (g_malloc'd, the caller takes them) for TRACE, whose rows,
 * packets, ops and fence steps must be in place (a frozen trace). */
void _fsv_counters_build(const FsvTrace *trace, FsvCounters *counters);
/* Entries of the pyramid over N values (for the index file's checks). */
gsize _fsv_counters_pyramid_size(gsize n);
/* Maps into the process, now, the pages of a mapped trace's arrays that a fence row's pixel-column
 * sweep reads (the fence rows' steps, their step block times, the pyramid): at the whole-trace
 * zoom the sweep reads all of them, and the first draw with the fence rows unfolded took
 * 2 200-2 400 page faults doing it, 22-25 ms of CPU for a 100 M event trace against 6 ms for the
 * next draws (issue 15 §1). Nothing for a built (not mapped) trace. */
void _fsv_counters_populate(const FsvTrace *trace);
/* The same in a thread of its own, holding a reference to TRACE until it is done: what
 * fsv_view_new() starts, so that the pages are mapped by the time the fence rows (folded at
 * first) are unfolded. */
void _fsv_counters_populate_ahead(FsvTrace *trace);

/* The counter kind a row shows, FSV_COUNTER_KIND_COUNT for other rows. */
FsvCounterKind fsv_counter_kind_of_row(const FsvRow *row);

/* ---- Busy (FSV_ROW_BUSY rows, or their engine row) ------------------------------------ */

/* Nanoseconds of [begin_ns, end_ns) during which a packet of the engine ran (exact). */
guint64 fsv_counters_busy_ns(const FsvTrace *trace, guint32 row, guint64 begin_ns, guint64 end_ns);
/* The engine's merged busy intervals: how many there are, and interval I ([*begin, *end)). */
guint fsv_counters_get_busy_count(const FsvTrace *trace, guint32 row);
void fsv_counters_get_busy_interval(const FsvTrace *trace, guint32 row, guint i, guint64 *begin_ns,
				    guint64 *end_ns);

/* ---- Depth (FSV_ROW_DEPTH rows, or their queue row) ----------------------------------- */

/* The queue's depth at NS (0 before its first operation). */
guint32 fsv_counters_depth_at(const FsvTrace *trace, guint32 row, guint64 ns);
/* The smallest and largest depth over [begin_ns, end_ns) (end > begin). */
void fsv_counters_depth_range(const FsvTrace *trace, guint32 row, guint64 begin_ns, guint64 end_ns,
			      guint32 *min, guint32 *max);
/* The largest depth the queue ever had. */
guint32 fsv_counters_get_depth_max(const FsvTrace *trace, guint32 row);
/* The change points: how many, and point I (from *ns on the depth is *depth). */
guint fsv_counters_get_depth_count(const FsvTrace *trace, guint32 row);
void fsv_counters_get_depth_point(const FsvTrace *trace, guint32 row, guint i, guint64 *ns,
				  guint32 *depth);

/* ---- CurrentValue (FSV_ROW_FENCE, FSV_ROW_XFENCE rows) -------------------------------- */

/*
 * The smallest and largest CurrentValue over [begin_ns, end_ns): the step in force at begin_ns
 * and every step inside. False when the fence has no value yet anywhere in the span.
 */
bool fsv_counters_fence_range(const FsvTrace *trace, guint32 row, guint64 begin_ns, guint64 end_ns,
			      guint64 *min, guint64 *max);

/* ---- Pixel columns ---------------------------------------------------------------------- */

/*
 * What the drawing asks, for N pixel columns at once: column i covers [begin[i], end[i])
 * (end > begin, begin non-decreasing, as fsv_view_get_column_span() gives them). Each answer
 * equals the single-span query's above; the columns are swept left to right, so a whole row
 * costs O(N + log n) searches instead of N binary searches.
 */
void fsv_counters_busy_columns(const FsvTrace *trace, guint32 row, const guint64 *begin,
			       const guint64 *end, guint n, guint64 *busy_ns);
void fsv_counters_depth_columns(const FsvTrace *trace, guint32 row, const guint64 *begin,
				const guint64 *end, guint n, guint32 *min, guint32 *max);
/* HAS[i]: whether the fence has a value anywhere in column i (min/max unset when not). */
void fsv_counters_fence_columns(const FsvTrace *trace, guint32 row, const guint64 *begin,
				const guint64 *end, guint n, guint64 *min, guint64 *max, bool *has);
/* The first of fence row ROW's steps (fsv_trace_get_fence_steps) from FROM on whose time is
 * later than NS, their count when none: the columns' search, through the row's step blocks
 * (the fence row's value labels jump with it). */
guint fsv_counters_fence_step_after(const FsvTrace *trace, guint32 row, guint from, guint64 ns);

/* ---- Items (FSV_ITEM_COUNTER) ---------------------------------------------------------- */

/* The item of a busy or depth row at NS (its FsvItem.index), FSV_INDEX_NONE when none: a busy
 * row's busy interval or idle gap there, a depth row's change point in force. */
guint32 fsv_counters_item_at(const FsvTrace *trace, guint32 row, guint64 ns);
/* The span [*begin_ns, *end_ns) of a counter item; false when ITEM is none of them. */
bool fsv_counters_get_item_span(const FsvTrace *trace, const FsvItem *item, guint64 *begin_ns,
				guint64 *end_ns);

G_END_DECLS

#endif /* FSV_COUNTERS_H */
