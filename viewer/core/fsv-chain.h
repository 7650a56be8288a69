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
#include "fsv-frames.h"
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

/*
 * Issue 16 §3: the critical path of a frame (fsv-frames.h), by the same code
 * `fencescope report --critical-path` uses for a frame (fsa_chain_of_frame(), fsa/chain.h;
 * docs/analyzer.md "Chains of causes"): from the previous frame's vsync to its own, the flip
 * waiting for its vsync ("vsync"), then either the previous flip the display still held
 * ("previous_flip") or the render it shows ("present") and that render's packet's chain of
 * causes, each link's hold cut to the frame. The links tile the path's time.
 */
typedef struct {
	/* The op or packet (FSV_ITEM_NONE for the display's links, and for an op or packet the
	 * index does not hold); for "vsync", "present", "previous_flip" the flip's marker when
	 * the display row has it. */
	FsvItem item;
	/* fsa_chain_role_name() of a chain link, or "vsync", "present", "previous_flip". */
	const char *role;
	bool has_item;               /* an op or packet of the chain (not a display link) */
	struct fsa_chain_item chain; /* has_item: the op or packet as the chain saw it */
	guint64 flip_id;             /* !has_item: the flip */
	guint64 hold_begin_ns, hold_end_ns;
} FsvPathLink;

typedef struct {
	guint32 frame;
	guint64 begin_ns, end_ns;
	GArray *links;    /* FsvPathLink, in path order (the frame's end first) */
	const char *stop; /* a fsa_chain_stop name, "previous_flip" or "unexplained" */
} FsvFramePath;

/* Returns: (transfer full) (nullable: FRAME out of range or a pending present): free with
 * fsv_frame_path_free(). At most MAX_LINKS links of the render's chain. */
FsvFramePath *fsv_chain_index_path_of_frame(FsvChainIndex *index, guint32 frame, guint max_links);
void fsv_frame_path_free(FsvFramePath *path);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvFramePath, fsv_frame_path_free)

/* The share of a path per queue, engine, process and display (fsa_chain_path_shares(), as the
 * report's `shares` table): scope "queue" (key "0x…" handle), "engine" ("adapter:engine"),
 * "process" (pid), "display" ("adapter:source"); by scope in that order, then most held first, then
 * key. */
typedef struct {
	const char *scope;
	char key[40];
	guint64 held_ns;
} FsvPathShare;

/* Returns: (transfer full): an array of FsvPathShare. */
GArray *fsv_frame_path_shares(FsvTrace *trace, const FsvFramePath *path);

G_END_DECLS

#endif /* FSV_CHAIN_H */
