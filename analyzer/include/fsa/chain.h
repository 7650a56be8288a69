/* SPDX-License-Identifier: MIT */
/*
 * Why a wait lasted: the chain of its causes (docs/analyzer.md "Chains of causes"). A wait was
 * released by a signal; that signal ran when its queue reached it, at the end of its command
 * buffer's packet; the packet ran once the queue and the engine got to it: after a wait of its
 * own that stalled the queue (whose chain goes on through what released it), after the queue's
 * previous command buffer, after another queue's packet on the engine, or after the CPU
 * submitted it. The chain walks that back, link by link, until a CPU submission or a CPU signal,
 * or until what it needs is not in the trace (an inferred or unqueued operation, an unknown
 * release, a missing packet): then it stops and says why; it never guesses.
 *
 * The model streams and forgets, so the chain is a function over operations and packets the
 * caller keeps: through lookups (struct fsa_chain_source) over the caller's own arrays — the
 * viewer answers them from its index —, or through struct fsa_chain_store, which keeps compact
 * records of what a model sink gives it and answers them (the report uses it).
 *
 * Each link holds a part of the time the chain covers; the parts tile it: link k holds
 * [hold_begin_ns, hold_end_ns] and link k + 1 ends where link k begins. That is the critical
 * path: the share of a queue, an engine or a process is the sum of what its links hold.
 */
#ifndef FSA_CHAIN_H
#define FSA_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsa/export.h"
#include "fsa/frames.h"
#include "fsa/model.h"

/* Two times this close are one instant (mapping error; FSA_CLOCK_TOLERANCE). */
#define FSA_CHAIN_TOLERANCE_NS UINT64_C(1000)

enum fsa_chain_item_type {
	FSA_CHAIN_ITEM_WAIT,
	FSA_CHAIN_ITEM_SIGNAL,
	FSA_CHAIN_ITEM_PACKET,
};

/* One operation or packet, as compact as the chain needs (88 bytes). */
struct fsa_chain_item {
	uint64_t id;             /* the op's id; a packet's packet_id */
	uint64_t hwqueue_handle; /* 0 for CPU operations */
	uint64_t progress_value; /* the command buffer (HPF-02); 0 unknown */
	/* Ops: queued, observed (user-mode waits: the GPU reached it; else FSA_TIME_NONE), end.
	 * Packets: queued, start, end. FSA_TIME_NONE when unknown. */
	uint64_t queued_ns, start_ns, end_ns;
	uint64_t signal_op_id; /* waits: the release (GPV-07), 0 unknown */
	uint64_t fence_global_handle, fence_value;
	uint32_t process_id, adapter_id, engine_id; /* UINT32_MAX unknown */
	uint8_t type;                               /* enum fsa_chain_item_type */
	uint8_t source; /* ops: enum fsa_op_source; packets: KERNEL_ or USER_MODE_QUEUE */
	/* Ops: enum fsa_op_state. Packets: FSA_OP_OBSERVED when it ended, FSA_OP_NEVER_COMPLETED
	 * when it never did. */
	uint8_t state;
};

/* The caller's operations and packets. A NULL lookup finds nothing. Each fills *out and returns
 * true when found. */
struct fsa_chain_source {
	void *data;
	bool (*find_op)(void *data, uint64_t op_id, struct fsa_chain_item *out);
	/* The packet of a queue's command buffer (its last piece when it was preempted). */
	bool (*find_packet)(void *data, uint64_t hwqueue_handle, uint64_t progress_value,
			    struct fsa_chain_item *out);
	/* The packet of that queue's command buffer before this one (the greatest progress value
	 * below progress_value). */
	bool (*previous_packet)(void *data, uint64_t hwqueue_handle, uint64_t progress_value,
				struct fsa_chain_item *out);
	/* The packet of another queue than hwqueue_handle that ended last on (adapter, engine) at
	 * or before at_ns. */
	bool (*engine_packet_before)(void *data, uint32_t adapter_id, uint32_t engine_id,
				     uint64_t hwqueue_handle, uint64_t at_ns,
				     struct fsa_chain_item *out);
	/* The index-th (from 0) wait of a queue's command buffer. */
	bool (*cmdbuf_wait)(void *data, uint64_t hwqueue_handle, uint64_t progress_value,
			    size_t index, struct fsa_chain_item *out);
	/* Frames (fsa_chain_of_frame) and shares (fsa_chain_path_shares) only. */
	/* The packet of a queue that ended last at or before at_ns; of equal ends, the greater
	 * command buffer (one binary search over packets by (queue, end)). */
	bool (*packet_before)(void *data, uint64_t hwqueue_handle, uint64_t at_ns,
			      struct fsa_chain_item *out);
	/* The queues of a context, in the model's queue order (fsa_model_borrow_queue): writes
	 * at most `capacity` handles and returns how many there are. */
	size_t (*context_queues)(void *data, uint64_t context_handle, uint64_t *out,
				 size_t capacity);
	/* A queue's info (its adapter, engine and process). */
	bool (*find_queue)(void *data, uint64_t hwqueue_handle, struct fsa_queue_info *out);
};

enum fsa_chain_role {
	/* The wait asked about (link 0), or a wait that stalled a queue: holds its release, from
	 * the signal's end to its own. */
	FSA_CHAIN_WAIT,
	FSA_CHAIN_STALL,
	/* The signal that released the wait before it: holds from its packet's end to its own. */
	FSA_CHAIN_SIGNAL,
	/* A packet running: holds from what let it start (or from the end of a wait inside it
	 * that stalled it) to its end. RUN: the packet of the signal's command buffer; QUEUE: the
	 * queue's previous command buffer, which the next one queued behind; ENGINE: another
	 * queue's packet that had the engine. */
	FSA_CHAIN_RUN,
	FSA_CHAIN_QUEUE,
	FSA_CHAIN_ENGINE,
	/* The CPU submitted the command buffer before it (an instant, the chain's origin):
	 * item is the command buffer's packet. */
	FSA_CHAIN_SUBMIT,
};

enum fsa_chain_stop {
	FSA_CHAIN_STOP_CPU_SUBMISSION,  /* reached a CPU submission: the cause is the CPU's */
	FSA_CHAIN_STOP_CPU_SIGNAL,      /* a CPU signal released the wait */
	FSA_CHAIN_STOP_TRACE_START,     /* a submission before the trace (no queued time) */
	FSA_CHAIN_STOP_HORIZON,         /* reached the caller's horizon_ns */
	FSA_CHAIN_STOP_NOT_OBSERVED,    /* a wait never completed: nothing released it */
	FSA_CHAIN_STOP_INFERRED,        /* an inferred operation: its times are a range */
	FSA_CHAIN_STOP_UNQUEUED,        /* an unqueued signal: its command buffer is not known */
	FSA_CHAIN_STOP_RELEASE_UNKNOWN, /* a wait without an edge, or whose signal is not kept */
	FSA_CHAIN_STOP_NO_PACKET,       /* the command buffer's packet is not in the trace */
	FSA_CHAIN_STOP_UNEXPLAINED,     /* a packet's start that nothing known explains */
	FSA_CHAIN_STOP_LIMIT,           /* the caller's array of links is full */
	FSA_CHAIN_STOP_KIND_COUNT,
};

struct fsa_chain_link {
	enum fsa_chain_role role;
	struct fsa_chain_item item;
	uint64_t hold_begin_ns, hold_end_ns; /* the part of the chain's time it holds */
};

struct fsa_chain_options {
	/* Stop once the chain reaches back to this time (the last link's hold is cut there): a
	 * wait's queued time gives its critical path. 0: back to the origin. */
	uint64_t horizon_ns;
	uint64_t tolerance_ns; /* 0: FSA_CHAIN_TOLERANCE_NS */
};

struct fsa_chain {
	struct fsa_chain_link *links; /* the caller's array of `capacity` links */
	size_t capacity, length;
	enum fsa_chain_stop stop;
	/* The item the chain stopped at, when the stop names one (INFERRED, UNQUEUED, NO_PACKET,
	 * RELEASE_UNKNOWN: the wait; …); has_stop_item false otherwise. */
	bool has_stop_item;
	struct fsa_chain_item stop_item;
};

/*
 * The chain of the wait `wait_op_id`, into chain->links (capacity set by the caller). Returns
 * FSA_ERR_INVALID when the source has no such wait, FSA_OK otherwise (chain->stop says why it
 * ended).
 */
FSA_API fsa_status fsa_chain_of_wait(const struct fsa_chain_source *source, uint64_t wait_op_id,
				     const struct fsa_chain_options *options,
				     struct fsa_chain *chain);
/* The chain of why a packet ended when it did (its first link is RUN): what a frame's present
 * waited for. */
FSA_API fsa_status fsa_chain_of_packet(const struct fsa_chain_source *source,
				       const struct fsa_chain_item *packet,
				       const struct fsa_chain_options *options,
				       struct fsa_chain *chain);

/*
 * A frame's critical path (docs/analyzer.md "Chains of causes"): it covers the frame, from the
 * previous frame's vsync to its own. Its flip waited for the vsync since the OS programmed it
 * ("vsync"); the OS programmed it when the later of two things happened — the render it shows
 * ended on a queue of the presenting context ("present", then the chain of that render's
 * packet), or the previous flip reached the screen ("previous_flip": the display held it).
 * Every link's hold is cut to the path's span. The report's `critical_path` and the viewer's
 * frame path both come from here.
 */
struct fsa_path_link {
	const char *role; /* fsa_chain_role_name, or "vsync", "present", "previous_flip" */
	bool has_item;    /* false for the display's links, which name a flip */
	struct fsa_chain_item item;
	uint64_t flip_id, flip_queued_ns; /* !has_item: the flip and its flip_queued time */
	uint64_t hold_begin_ns, hold_end_ns;
};

struct fsa_frame_path {
	/* The caller's array: capacity at least the chain's capacity + 2. */
	struct fsa_path_link *links;
	size_t capacity, length;
	uint64_t begin_ns, end_ns;
	const char *stop; /* a fsa_chain_stop name, "previous_flip" or "unexplained" */
};

/* The path of `frame` (not a pending present); `previous` is the previous frame of its display
 * that is not pending, NULL none. `chain` is the caller's scratch for the render's chain (its
 * capacity bounds the links). Returns FSA_ERR_INVALID when path->capacity < chain->capacity + 2
 * or the frame is pending, FSA_OK otherwise. */
FSA_API fsa_status fsa_chain_of_frame(const struct fsa_chain_source *source,
				      const struct fsa_frame *frame,
				      const struct fsa_frame *previous, struct fsa_chain *chain,
				      struct fsa_frame_path *path);

/* The share of a path per queue, engine, process and display (the report's `shares` table):
 * scope "queue" (key "0x…", hwqueue_handle set), "engine" ("adapter:engine"), "process" (pid),
 * "display" ("adapter:source"); a link's unknown adapter, engine or process is its queue's
 * (source->find_queue). */
struct fsa_path_share {
	const char *scope;
	char key[40];
	uint64_t hwqueue_handle; /* queue shares; 0 otherwise */
	uint64_t held_ns;
};

/* Writes the shares of `count` links into out (capacity at least 3 × count + 1), by scope in
 * the order above, then most held first, then key; returns how many. display_adapter_id and
 * display_source_id name the display of the links without an item. */
FSA_API size_t fsa_chain_path_shares(const struct fsa_chain_source *source,
				     const struct fsa_path_link *links, size_t count,
				     uint32_t display_adapter_id, uint32_t display_source_id,
				     struct fsa_path_share *out);

FSA_API const char *fsa_chain_role_name(enum fsa_chain_role role); /* "wait", "stall", … */
FSA_API const char *fsa_chain_stop_name(enum fsa_chain_stop stop); /* "cpu_submission", … */

/* The item of an op or a packet as the store keeps it (an inferred op ends at its inferred end;
 * a packet never ended has no end), for callers that answer the lookups from their own
 * fsa_op and fsa_packet records. */
FSA_API void fsa_chain_item_from_op(const struct fsa_op *op, struct fsa_chain_item *out);
FSA_API void fsa_chain_item_from_packet(const struct fsa_packet *packet,
					struct fsa_chain_item *out);

/* Compact records of ops and packets, e.g. from a model sink, answering the lookups. */
struct fsa_chain_store;

/* Returns: (transfer full) (nullable: out of memory). */
FSA_API struct fsa_chain_store *fsa_chain_store_create(void);
FSA_API void fsa_chain_store_destroy(struct fsa_chain_store *store);
/* Adds one op (CPU signals, which no queue runs, are kept too) or packet. */
FSA_API fsa_status fsa_chain_store_add_op(struct fsa_chain_store *store, const struct fsa_op *op);
FSA_API fsa_status fsa_chain_store_add_packet(struct fsa_chain_store *store,
					      const struct fsa_packet *packet);
/* Sorts and indexes what was added; lookups before it find nothing. Adding after it needs
 * another seal. */
FSA_API fsa_status fsa_chain_store_seal(struct fsa_chain_store *store);
/* Returns: (transfer none) the lookups over the store, valid while it lives. */
FSA_API const struct fsa_chain_source *fsa_chain_store_borrow_source(struct fsa_chain_store *store);
/* The packet of that queue that ended last at or before at_ns; false when none. */
FSA_API bool fsa_chain_store_packet_before(const struct fsa_chain_store *store,
					   uint64_t hwqueue_handle, uint64_t at_ns,
					   struct fsa_chain_item *out);
/* After the seal: the operations kept, by id. Returns: (transfer none). */
FSA_API size_t fsa_chain_store_op_count(const struct fsa_chain_store *store);
FSA_API const struct fsa_chain_item *fsa_chain_store_borrow_op(const struct fsa_chain_store *store,
							       size_t index);
/* Keeps a queue (in the model's order) for the source's context_queues and find_queue. */
FSA_API fsa_status fsa_chain_store_add_queue(struct fsa_chain_store *store,
					     const struct fsa_queue_info *queue);
/* Records kept and the bytes they take (records and indexes). */
FSA_API size_t fsa_chain_store_count(const struct fsa_chain_store *store);
FSA_API size_t fsa_chain_store_bytes(const struct fsa_chain_store *store);

#endif /* FSA_CHAIN_H */
