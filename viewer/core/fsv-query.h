/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the search language of the viewer (docs/user-guide.md "Search"). One query
 * fades the timeline's boxes that do not match it, filters the operations table and drives
 * Enter's "next match". A query is parsed once into a small expression tree and matched
 * against FsvOps:
 *
 *   dur>2ms and kind=wait
 *   state=inferred|never_completed or (source=user_mode not queue=0x1001)
 *   0x12 value>=5                       (today's syntax: space means "and", a bare number is a
 *                                        fence handle)
 *
 * Fields: dur (end − queued, fsv_op_get_duration), kind, state, source (the analyzer's names,
 * fsa_op_*_name), queue, pid, fence (the local or the global handle), value, op (the analyzer's
 * op id), adapter, engine. Operators = != < <= > >= (handles and names: = and != only);
 * a|b|c after = or != lists alternatives. Terms combine with and, or, not and parentheses.
 *
 * It is not the report's filter and knows no GTK. A parsed query is immutable and
 * ref-counted, so a worker thread (the table's sort) may match with it while the UI thread
 * holds it too.
 */
#ifndef FSV_QUERY_H
#define FSV_QUERY_H

#include <stdbool.h>

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

#define FSV_QUERY_ERROR (fsv_query_error_quark())
typedef enum {
	FSV_QUERY_ERROR_SYNTAX, /* the text is not a query; the message says where */
} FsvQueryError;

GQuark fsv_query_error_quark(void);

typedef struct _FsvQuery FsvQuery;

/*
 * Parses TEXT. An empty text (or only spaces) gives an empty query, which matches every op.
 * On an error returns NULL with *error set to one line naming the term, what is wrong and the
 * character offset where it is ("dur>2xs: unknown unit 'xs' at 5"; offsets count characters
 * from 0, as a text entry's cursor does) and *error_offset (may be NULL) set to that offset.
 *
 * Returns: (transfer full) (nullable): the query; release with fsv_query_unref().
 */
FsvQuery *fsv_query_parse(const char *text, guint *error_offset, GError **error);

FsvQuery *fsv_query_ref(FsvQuery *query);
void fsv_query_unref(FsvQuery *query);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvQuery, fsv_query_unref)

/* Returns: (transfer none): the text the query was parsed from. */
const char *fsv_query_get_text(const FsvQuery *query);
/* Whether QUERY selects anything less than every op: false for NULL and the empty query. */
bool fsv_query_is_active(const FsvQuery *query);
/* Whether OP matches QUERY; every op matches a NULL or empty query. Thread-safe. */
bool fsv_query_match_op(const FsvQuery *query, const FsvOp *op);

/*
 * The duration the search language, the operations table and the details pane give an op:
 * from queued to its end (the model's end_ns) when both are known; else the span its box
 * covers (an inferred op: its inferred range; a never-completed op: from queued to the end of
 * the trace; an unqueued op: 0).
 */
guint64 fsv_op_get_duration(const FsvOp *op);

/*
 * Parses a duration with its unit, "2ms", "1.5 µs", "250ns", "0" (ns, us, µs, ms, s; a
 * fraction is rounded to the nanosecond). Returns false on anything else.
 */
bool fsv_query_parse_duration(const char *text, guint64 *ns);

/* Indexes of the ops matching QUERY in [begin_ns, end_ns], in time order, at most MAX
 * (0: no limit). Returns: (transfer full): a GArray of guint32. */
GArray *fsv_trace_find_ops(const FsvTrace *trace, const FsvQuery *query, guint64 begin_ns,
			   guint64 end_ns, guint max);
/* The op matching QUERY that comes next after op AFTER in time order (begin_ns, then op index
 * as a tie-break), wrapping around to the first match; the first match when AFTER is
 * FSV_INDEX_NONE. FSV_INDEX_NONE when nothing matches. One pass over the ops, no sort. */
guint32 fsv_trace_find_next_op(const FsvTrace *trace, const FsvQuery *query, guint32 after);

G_END_DECLS

#endif /* FSV_QUERY_H */
