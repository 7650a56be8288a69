/* SPDX-License-Identifier: MIT */
/*
 * The report's `critical_path` section (docs/report-schema.md, schema 2.4): when it is asked
 * for, report.c hands every operation and packet to a struct fsa_chain_store (fsa/chain.h) kept
 * here, and at the end critical_path_finish() walks the critical path of each frame (when the
 * trace has frames) or of the N longest waits; tables.c prints the paths, their links and the
 * share of each queue, engine, process and display.
 */
#ifndef FSA_CRITICAL_PATH_PRIVATE_H
#define FSA_CRITICAL_PATH_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "fsa/chain.h"
#include "fsa/frames.h"

struct fsa_report;

/* One path: of a frame (from the previous frame's vsync to its own) or of a wait (queued →
 * unblocked). */
struct fsa_cp_path {
	bool is_frame;
	struct fsa_frame frame; /* is_frame */
	uint64_t wait_op_id;    /* !is_frame */
	struct fsa_chain_item wait;
	uint64_t begin_ns, end_ns;
	size_t first_link, link_count; /* in fsa_critical_path.links */
	const char *stop;              /* a fsa_chain_stop name, or "previous_flip", … */
};

/* Links are struct fsa_path_link (fsa/chain.h): frames add links that are no operation or
 * packet — the flip waiting for the vsync ("vsync"), the OS programming it once the render ended
 * ("present"), the previous flip still on screen ("previous_flip") —; their display is the
 * path's frame's. */
struct fsa_critical_path {
	struct fsa_chain_store *store; /* owned */
	GArray *paths;                 /* struct fsa_cp_path */
	GArray *links;                 /* struct fsa_path_link */
	bool has_frames;               /* the paths are frames' */
};

struct fsa_critical_path *critical_path_new(void);
void critical_path_free(struct fsa_critical_path *cp);
fsa_status critical_path_on_op(struct fsa_report *r, const struct fsa_op *op);
fsa_status critical_path_on_packet(struct fsa_report *r, const struct fsa_packet *packet);
/* After the frames are final: seals the store and walks every path. */
fsa_status critical_path_finish(struct fsa_report *r);

#endif /* FSA_CRITICAL_PATH_PRIVATE_H */
