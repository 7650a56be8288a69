/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the chain of causes of a wait (fsa/chain.h, docs/analyzer.md "Chains of
 * causes") over a trace's index, for the details pane (issue 16 §1, the viewer's part). The
 * analyzer walks the chain; this file answers its lookups from the trace's ops and packets and
 * turns its links back into items the timeline can select. Not the drawing.
 */
#ifndef FSV_CHAIN_H
#define FSV_CHAIN_H

#include <glib.h>

#include "fsa/chain.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

/* The trace's queue ops and packets sorted by (queue, command buffer): what the lookups
 * search. Built once per trace (O(n log n)), then each chain costs a search per link. */
typedef struct _FsvChainIndex FsvChainIndex;

/* Returns: (transfer full): free with fsv_chain_index_free(). Keeps a reference to TRACE. */
FsvChainIndex *fsv_chain_index_new(FsvTrace *trace);
void fsv_chain_index_free(FsvChainIndex *index);

/* One link of a chain: the op or packet it names (FSV_ITEM_NONE when the index has none), its
 * role, and the part of the chain's time it holds. */
typedef struct {
	FsvItem item;
	enum fsa_chain_role role;
	guint64 hold_begin_ns, hold_end_ns;
} FsvChainLink;

/*
 * The chain of causes of the wait OP (an op index), link 0 the wait itself, at most
 * MAX_LINKS links. Returns: (transfer full) (nullable): an array of FsvChainLink, NULL when OP
 * is no wait; *STOP says why the chain ended, *STOP_ITEM what it stopped at (FSV_ITEM_NONE
 * when the reason names nothing).
 */
GArray *fsv_chain_index_chain_of_wait(FsvChainIndex *index, guint32 op, guint max_links,
				      enum fsa_chain_stop *stop, FsvItem *stop_item);

G_END_DECLS

#endif /* FSV_CHAIN_H */
