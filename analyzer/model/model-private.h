/* SPDX-License-Identifier: MIT */
/*
 * The model's internal state, shared by model.c (the front: dispatch and finish), objects.c
 * (processes, queues, fences, adapters), ops.c (fence operation boxes, edges, overruns),
 * packets.c, markers.c, clock-fit.c (GPU → trace time) and emit.c (anomalies and losses to the
 * sink). Calls go one way: model.c calls the others; ops.c, packets.c and markers.c call
 * objects.c, clock-fit.c and emit.c; objects.c calls clock-fit.c and emit.c; clock-fit.c calls
 * emit.c; emit.c calls none of them.
 */
#ifndef FSA_MODEL_PRIVATE_H
#define FSA_MODEL_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fencescope-tp-enums.h"
#include "fsa/model.h"
#include "hmap-private.h"

/* An engine of an adapter as one key: adapter_id << 32 | engine_id. */
#define ENGINE_KEY(adapter, engine) (((uint64_t) (adapter) << 32) | (uint32_t) (engine))

/* Signals remembered per fence for matching waits (GPV-07). */
#define FSA_SIGNAL_HISTORY 64
#define FSA_SIGNAL_WINDOW  (2 * FSA_SIGNAL_HISTORY)
/*
 * GPU times mapped onto the trace clock are only as good as the counter's resolution and the
 * correlation; CPU and GPU times closer than this are treated as equal (box ends that map a
 * little before their CPU start, a signal that seems to end just after the wait it released).
 */
#define FSA_CLOCK_TOLERANCE_NS UINT64_C(1000)
/* How far past the last of two or more clock pairs a GPU time is extrapolated at most (and never
 * further than the last two pairs lie apart: clock-fit.c). */
#define FSA_CLOCK_HORIZON_NS 20000000.0
/*
 * How long, in trace time, a closed box or an ended packet waits for a clock correlation pair
 * that covers its GPU times before it is mapped with the pairs known (or placed at its read
 * without any). Without this bound, a trace whose pairs stop (the tracer discarded them) or never
 * come kept every later box until the end: memory grew with the trace, and each flush walked it.
 */
#define FSA_CLOCK_WAIT_NS UINT64_C(1000000000)

/*
 * How long, in trace time, a closed wait waits for the signal that released it to be given out
 * before it goes out without an edge: another queue's signal log may be read later than this
 * queue's wait log (50 ms), and a GPU signal then waits for the clock pair after it
 * (FSA_CLOCK_WAIT_NS at most).
 */
#define FSA_EDGE_LAG_NS (UINT64_C(50000000) + FSA_CLOCK_WAIT_NS)

static inline bool
clock_has_waited(uint64_t closed_ns, uint64_t now_ns)
{
	return now_ns != FSA_TIME_NONE && now_ns > closed_ns &&
	       now_ns - closed_ns >= FSA_CLOCK_WAIT_NS;
}

struct clock_pair {
	uint64_t gpu_ts;
	uint64_t cpu_ns;
};

struct clock_state {
	struct fsa_clock_fit fit;
	struct clock_pair *pairs; /* every pair, in trace order (16 bytes per correlation) */
	size_t pair_count, pair_capacity;
	bool warned; /* NO_CLOCK_CORRELATION reported */
	/* A sim-mode runtime on a real trace clock: no pair is kept, boxes end at their read. */
	bool is_unmapped;
	size_t unmapped_count; /* pending boxes of this adapter waiting for a pair */
};

struct signal_memory {
	uint64_t op_id;
	uint64_t value;
	/* When it ran: begin_ns == end_ns when observed, the range of an inferred signal. */
	uint64_t begin_ns, end_ns;
	enum fsa_op_source source;
	/* Reported as a VALUE_REGRESSION already: a signal is reported once, whichever order
	 * it and the higher signal before it were given out in. */
	bool is_regression;
	/* Its GPU times had no clock pair to be placed with: end_ns is its log read, and
	 * end_gpu_ts (its adapter's ticks) says when it ran (ops.c is_gpu_ordered). The two
	 * bools sit beside `source`, in what was padding: end_gpu_ts alone grew it, 72 → 80
	 * bytes. */
	bool is_at_read;
	uint64_t hwqueue_handle;
	uint64_t fence_handle;
	uint32_t process_id;
	uint32_t
	    adapter_id; /* where it ran (UINT32_MAX: CPU or unknown), for cross-adapter edges */
	uint64_t end_gpu_ts;
};

struct fence_state {
	struct fsa_fence_info info;
	bool is_destroyed;
	/* Highest signalled value and when (for VALUE_REGRESSION). */
	uint64_t max_signal_value;
	uint64_t max_signal_end_ns;
	bool has_signal;
	/* The latest signals given out, in the order they ended, for GPV-07 matching; when full,
	 * the oldest is forgotten, so every forgotten signal ended before every remembered one. */
	struct signal_memory *history; /* grown up to FSA_SIGNAL_HISTORY: most fences see few */
	unsigned history_count, history_capacity;
	/* Once full, `history` is a window that moves on through an allocation of
	 * FSA_SIGNAL_WINDOW entries: forgetting the oldest copies nothing (the window goes back to
	 * the allocation's start once per FSA_SIGNAL_WINDOW - FSA_SIGNAL_HISTORY signals). The
	 * allocation starts history_start entries before `history`. */
	unsigned history_start;
	/* At or after the begin of every remembered signal (it only grows): a signal that ended at
	 * or after it ran after none of them (find_regressions). */
	uint64_t history_begin_max_ns;
	/* The highest value of a forgotten signal: the fence was at least there before the
	 * remembered ones. */
	uint64_t forgotten_max_value;
	/* The latest end of a forgotten signal: the one that brought the fence to
	 * forgotten_max_value ended by then, not necessarily before the remembered ones began (a
	 * signal inferred in a log gap ends with the entry read after the gap, as that entry's own
	 * signal does, but ran long before: equal ends are forgotten in any order). */
	uint64_t forgotten_end_ns;
	bool has_forgotten;
	/* Signals not given out yet (queued and not closed, or closed and waiting for their clock
	 * pair), in no order: one may have run before a wait ended without its entry read yet
	 * (GPV-07 waits for it). Every wait scans them, so what the scan needs is kept here, in
	 * one array, not behind a pointer each. */
	struct open_signal *open_signals;
	uint32_t open_signal_count, open_signal_capacity;
	/* Closed waits held until the signal that released them is given out. */
	struct op_rec *held;
	/* The held waits that are not unreached (op_rec.is_unreached), in the order of `held`:
	 * those a signal of the fence may let go. The unreached ones wait for a signal that may be
	 * their release, or for their lag: bounds over them, exact after each walk of `held`
	 * (ops.c emit()) and loosened by each one held since (lowest value, latest limit,
	 * earliest closed_ns + FSA_EDGE_LAG_NS) tell when one of them may go; until then a
	 * signal that goes out retries only the active ones. held_needs_walk: an unreached wait
	 * became active again outside a walk (its place in `active` is not known). */
	struct op_rec *active;
	uint64_t inert_min_value, inert_max_limit, inert_min_lag_end_ns;
	bool held_needs_walk;
	/* Format 1.5: its opens on other adapters (fence_cross_adapter_open), in trace order. */
	struct fsa_cross_open *cross_opens;
	uint32_t cross_open_capacity;
};

/* One of a fence's open signals: a copy of its box's members that do not change while it is
 * open, and whether the box was closed (given its id). */
struct open_signal {
	uint64_t fence_value;
	uint64_t queued_ns;
	const struct queue_state *queue;
	struct op_rec *rec;
	bool is_closed;
};

struct process_state {
	struct fsa_process_info info;
	char *name;
	struct hmap locals; /* local fence handle → struct fence_state */
	struct hmap closed; /* local handles closed (value: the fence_state) */
};

struct op_rec;

struct overrun_state {
	bool is_pending; /* overrun seen, fallback scan not yet */
	struct fsa_loss loss;
	uint64_t first_end_gpu_ts_after; /* first entry read after the overrun, 0 if none */
};

struct queue_state {
	struct fsa_queue_info info;
	bool is_known; /* named by hwqueue_create */
	/* Open operations: key (fence_handle, value, kind) → first op_rec (chained by next_open).
	 */
	struct hmap open;
	uint64_t open_count;
	/* Per log type: last non-zero end_gpu_ts read, for LOG-22 and the inferred ranges. */
	uint64_t last_end_gpu_ts[2];
	struct overrun_state overrun[2];
	/* Per log type: the entry_position expected next (after the last entry read, or after
	 * the entries an overrun lost), known once the queue's creation or an entry was seen. */
	uint64_t next_position[2];
	bool has_position[2];
	/* Ring writes waiting for their packet_start: progress value → queued ns (+1). */
	struct hmap ring_writes;
	/* Highest progress value known complete (packet_end, packet_complete, destroy). */
	uint64_t completed_progress;
	/* Highest progress value given out as a step of the progress fence (fsa_fence_value). */
	uint64_t progress_stepped;
	/* A packet_end of the queue was read: its packets step the progress fence, not its
	 * progress log entries (ops.c progress_log_entry). */
	bool has_packet_end;
	uint64_t last_disconnect_ns;
};

struct op_rec {
	struct fsa_op op;
	struct queue_state *queue;                /* NULL for CPU operations */
	struct fence_state *fence;                /* NULL when the handle is unknown */
	struct op_rec *next_open;                 /* chain of one open key */
	struct op_rec *open_tail;                 /* the chain's last, kept in its head only */
	struct op_rec *prev, *next;               /* the pending list */
	struct op_rec *held_prev, *held_next;     /* the fence's held waits */
	struct op_rec *active_prev, *active_next; /* its active ones (fence_state.active) */
	bool is_active;
	/* A held wait's last reason to be held: an open signal of its fence that may have ended
	 * before it (NULL when it waits for a release, not for an unknown signal). While that
	 * signal is still open and still may have, the wait stays held: it is not retried. */
	struct op_rec *blocker;
	/* A held wait above its fence's initial value for which no remembered signal could be the
	 * release (ops.c has_no_reach()) when it was last held. */
	bool is_unreached;
	uint32_t open_signal_index; /* in the fence's open_signals, while is_open_signal */
	bool is_held;
	bool is_open_signal;
	bool is_free;       /* on the model's free list */
	uint64_t closed_ns; /* trace time it was closed (edge lag) */
	bool needs_mapping;
	/* Placed at its read (closed_ns): its adapter has no clock pair (ops.c map_times). */
	bool is_at_read;
};

struct packet_rec {
	struct fsa_packet packet;
	struct packet_rec *prev, *next; /* pending list (ended, waiting for a clock pair) */
};

struct fsa_model {
	struct fsa_model_sink sink;
	struct fsa_summary summary;
	fsa_status failed; /* sticky: version refused or a sink stopped us */
	bool is_finished;
	uint64_t last_ts;
	uint64_t next_op_id;
	/* The begin of the earliest signal-log gap whose missing entries are not all inferred
	 * boxes (signals of unknown fence and value ran after it), FSA_TIME_NONE if none. */
	uint64_t unmatched_signal_gap_begin_ns;

	struct hmap processes; /* process_id → process_state */
	struct process_state **process_list;
	size_t process_count, process_capacity;
	struct hmap queues;             /* hwqueue_handle → queue_state */
	struct queue_state *last_queue; /* queue_used()'s last answer */
	struct hmap contexts;           /* context_handle → struct fsa_context_info */
	struct fsa_context_info **context_list;
	size_t context_count, context_capacity;
	struct hmap engines; /* ENGINE_KEY → struct fsa_engine_info */
	struct fsa_engine_info **engine_list;
	size_t engine_count, engine_capacity;
	struct queue_state **queue_list;
	size_t queue_count, queue_capacity;
	struct hmap fences; /* fence_global_handle → fence_state */
	struct fence_state **fence_list;
	size_t fence_count, fence_capacity;
	struct clock_state *clocks; /* indexed by position; found by adapter id */
	size_t clock_count;
	/* adapter_id << 32 | engine_id → engine type (+1) */
	struct hmap engine_types;
	struct hmap context_engines; /* context_handle → engine_id + 1 */

	struct hmap cpu_waits; /* waiter_id → op_rec */
	/* Pending output: closed operations and ended packets not given out yet. */
	struct op_rec *pending_head, *pending_tail;
	size_t pending_count;
	struct op_rec *free_ops; /* recycled boxes, chained by `next` */
	struct packet_rec *pending_packets_head, *pending_packets_tail;
	struct hmap packets;       /* key2(adapter, packet_id) → packet_rec (started) */
	struct hmap packet_queued; /* key2(adapter, packet_id) → queued ns + 1 (KM) */
	struct hmap km_packets;    /* packet_id → queued ns + 1 (submit_command) */
	/* Open intervals: key → struct fsa_marker. */
	struct hmap preemptions, tdrs, suspends, engine_f1, device_d3, doorbells;
	/* Format 1.4: context_handle → context_error interval; key2(adapter, flip_id) → flip. */
	struct hmap context_errors, flips;
	/* Interrupts raised and not handled yet: key (adapter, engine, type) → struct irq_stack. */
	struct hmap interrupts;
	/* Doorbell status word intervals (FSA_MARK_DOORBELL_STATE): doorbell handle → marker. */
	struct hmap doorbell_states;
	/* Last fallback scan values, per adapter: key2(adapter, global) → value + 1. */
	struct hmap scan_values;
	/* Format 1.5 (memory.c): VA spaces, key2(process, adapter) → struct fsa_va_space_info, in
	 * creation order in va_space_list; open VA mappings, mapping_key() → struct fsa_marker;
	 * engine page faults the OS has not answered yet, ENGINE_KEY → struct fsa_marker (the
	 * FSA_MARK_PAGE_FAULT given out). */
	struct hmap va_spaces, mappings, hw_faults;
	struct fsa_va_space_info **va_space_list;
	size_t va_space_count, va_space_capacity;
	/* Format 1.5 (crossadapter.c): propagations waiting for their NotificationOnly update,
	 * key2(fence, to_adapter << 32 ^ value) → struct fsa_marker. */
	struct hmap propagations;
	uint64_t events_since_flush;
	/* For tests (tests/model/test-model-hostile.c): try_emit() calls, and waits that went on
	 * their fence's held list. A held wait is retried only when its reason to be held may
	 * have gone, so the first stays within a few times the second (ops.c). */
	uint64_t try_emit_calls, held_waits;
	char runtime_version[64];
	bool is_clock_mismatch_said; /* TRACE_CLOCK_MISMATCH reported */
};

/* Counts from the trace (entries lost, events discarded) can be anything up to UINT64_MAX: their
 * sums saturate rather than wrap to a small, plausible-looking number. */
static inline uint64_t
add_saturating(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* emit.c */
/* Sorts `items` by the time `time_of` gives, stably (ties keep their order), in O(n log n): the
 * items left open at the end of a hostile trace can be millions. False when out of memory. */
bool sort_by_time(void **items, size_t count, uint64_t (*time_of)(const void *item));
fsa_status emit_anomaly(struct fsa_model *model, struct fsa_anomaly *anomaly);
fsa_status emit_loss(struct fsa_model *model, const struct fsa_loss *loss);

/* objects.c */
/* The queue an event uses: one the trace never created is made and reported (once). */
struct queue_state *queue_used(struct fsa_model *model, uint64_t handle, uint64_t ts);
struct fence_state *fence_of(struct fsa_model *model, uint32_t process_id, uint64_t fence_handle,
			     uint64_t ts, bool *is_closed);
fsa_status objects_on_process_create(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_process_terminate(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_adapter_create(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_engine_describe(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_device_create(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_context_create(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_hwqueue_create(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_hwqueue_destroy(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_fence_create(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_fence_open(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_fence_close(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_fence_destroy(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_monitored_value(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_context_schedule(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_context_destroy(struct fsa_model *model, const struct fsa_event *ev);
fsa_status objects_on_context_error(struct fsa_model *model, const struct fsa_event *ev);
/* The context table's entry, NULL when the trace never named it. */
struct fsa_context_info *context_find(struct fsa_model *model, uint64_t context_handle);
/* Finishes the clock fits and gives fences still alive their final value. */
void objects_finish(struct fsa_model *model);
void objects_free(struct fsa_model *model);

/* packets.c */
fsa_status packets_on_submit_command(struct fsa_model *model, const struct fsa_event *ev);
fsa_status packets_on_ring_write(struct fsa_model *model, const struct fsa_event *ev);
fsa_status packets_on_queued(struct fsa_model *model, const struct fsa_event *ev);
fsa_status packets_on_start(struct fsa_model *model, const struct fsa_event *ev);
fsa_status packets_on_end(struct fsa_model *model, const struct fsa_event *ev);
fsa_status packets_on_complete(struct fsa_model *model, const struct fsa_event *ev);
/* Gives out every ended packet whose times can be mapped; with `is_final`, all of them. */
fsa_status packets_flush(struct fsa_model *model, bool is_final);
/* HPF-02: QUEUE's progress fence reached VALUE at TS (a completed buffer of PACKET_ID, 0 when
 * unknown); nothing when it was there already. */
fsa_status packets_step_progress(struct fsa_model *model, struct queue_state *queue, uint64_t value,
				 uint64_t ts, uint64_t packet_id);
/* Gives out every ended packet, then those that never ended (by start time). */
fsa_status packets_finish(struct fsa_model *model);
void packets_free(struct fsa_model *model);

/* markers.c */
fsa_status markers_on_doorbell(struct fsa_model *model, const struct fsa_event *ev);
fsa_status markers_on_doorbell_state(struct fsa_model *model, const struct fsa_event *ev);
fsa_status markers_on_victimize(struct fsa_model *model, const struct fsa_event *ev);
/* A context destroyed while suspended (abnormal termination, TRM-03) ends its suspension. */
fsa_status markers_on_context_destroy(struct fsa_model *model, const struct fsa_event *ev);
/* Point markers of an engine: resets, fence log resizes (page faults: memory.c). */
fsa_status markers_on_engine_event(struct fsa_model *model, const struct fsa_event *ev,
				   enum fsa_marker_kind kind);
/* Intervals: preemption, TDR, suspend, engine F1, device D3. */
fsa_status markers_on_interval(struct fsa_model *model, const struct fsa_event *ev);
fsa_status markers_on_device_lost(struct fsa_model *model, const struct fsa_event *ev);
fsa_status markers_on_call_failed(struct fsa_model *model, const struct fsa_event *ev);
/* Format 1.4 instants: tdr_detect, adapter_reset, vsync, fault_injected. */
fsa_status markers_on_instant(struct fsa_model *model, const struct fsa_event *ev);
/* context_error opens an interval that the context's destroy closes (TDR-04). */
fsa_status markers_on_context_error(struct fsa_model *model, const struct fsa_event *ev);
/* interrupt_raise / interrupt_handled: late and unhandled interrupts. */
fsa_status markers_on_interrupt(struct fsa_model *model, const struct fsa_event *ev);
/* flip_queued → flip_done (PRE-13). */
fsa_status markers_on_flip(struct fsa_model *model, const struct fsa_event *ev);
/* Gives out the intervals still open, without an end. */
fsa_status markers_finish(struct fsa_model *model);
void markers_free(struct fsa_model *model);

/* memory.c (format 1.5: GpuMmu) */
fsa_status memory_on_va_space(struct fsa_model *model, const struct fsa_event *ev);
fsa_status memory_on_va_range(struct fsa_model *model, const struct fsa_event *ev);
fsa_status memory_on_page_table(struct fsa_model *model, const struct fsa_event *ev);
/* fencescope_hw:page_fault (the engine's marker) and fencescope_os:page_fault (the OS's). */
fsa_status memory_on_page_fault(struct fsa_model *model, const struct fsa_event *ev);
/* Gives out the mappings still open, without an end. */
fsa_status memory_finish(struct fsa_model *model);
void memory_free(struct fsa_model *model);

/* crossadapter.c (format 1.5: XAD) */
fsa_status xad_on_cross_open(struct fsa_model *model, const struct fsa_event *ev);
fsa_status xad_on_propagate(struct fsa_model *model, const struct fsa_event *ev);
fsa_status xad_on_update_current_value(struct fsa_model *model, const struct fsa_event *ev);
fsa_status xad_finish(struct fsa_model *model);
void xad_free(struct fsa_model *model);

/* markers.c: gives a marker to the sink (sets model->failed on a sink's refusal). */
fsa_status markers_emit(struct fsa_model *model, const struct fsa_marker *marker);
/* A marker of `kind` at `ts` with every id UINT32_MAX and no latency. */
struct fsa_marker markers_at(enum fsa_marker_kind kind, uint64_t ts);
/* Gives out, by start time and without an end, the intervals left in `map`, and empties it. */
fsa_status markers_close_all(struct fsa_model *model, struct hmap *map);

/* ops.c */
/* The id of the signal operation of `fence` to `value` closed most recently (open or given
 * out), on `adapter_id` when it ran on a known adapter; 0 when none. */
uint64_t ops_find_signal(struct fsa_model *model, uint64_t fence_global_handle, uint64_t value,
			 uint32_t adapter_id);
fsa_status ops_queued(struct fsa_model *model, const struct fsa_event *ev, enum fsa_op_kind kind);
fsa_status ops_log_entry(struct fsa_model *model, const struct fsa_event *ev);
fsa_status ops_km_closed(struct fsa_model *model, const struct fsa_event *ev,
			 enum fsa_op_kind kind);
fsa_status ops_cpu_wait_begin(struct fsa_model *model, const struct fsa_event *ev);
fsa_status ops_cpu_wait_end(struct fsa_model *model, const struct fsa_event *ev);
fsa_status ops_cpu_signal(struct fsa_model *model, const struct fsa_event *ev);
fsa_status ops_overrun(struct fsa_model *model, const struct fsa_event *ev);
fsa_status ops_scan_value(struct fsa_model *model, const struct fsa_event *ev);
fsa_status ops_scan(struct fsa_model *model, const struct fsa_event *ev);
/* Gives out every pending item that is ready; with `is_final`, all of them. */
fsa_status ops_flush(struct fsa_model *model, bool is_final);
fsa_status ops_finish(struct fsa_model *model);
void ops_free(struct fsa_model *model);

/* clock-fit.c */
struct clock_state *fsa_clock_get(struct fsa_model *model, uint32_t adapter_id, bool create);
/* clock_correlation: a pair on the trace clock, or the mismatch said (sets model->failed). */
fsa_status fsa_clock_on_correlation(struct fsa_model *model, const struct fsa_event *ev);
bool fsa_clock_add_pair(struct fsa_model *model, uint32_t adapter_id, uint64_t cpu_ns,
			uint64_t gpu_ts, uint64_t nominal_hz);
/* True when gpu_ts can be interpolated (a pair at or after it exists). */
bool fsa_clock_is_final(const struct clock_state *clock, uint64_t gpu_ts);
void fsa_clock_unmapped_add(struct fsa_model *model, uint32_t adapter_id, int delta);
uint64_t fsa_clock_frontier(const struct fsa_model *model);
/* Maps with the pairs known, counting extrapolations in the fit. */
uint64_t fsa_clock_map(struct clock_state *clock, uint64_t gpu_ts);
/* The same, for lookups that must not count (fsa_model_gpu_to_trace). */
uint64_t fsa_clock_map_const(const struct clock_state *clock, uint64_t gpu_ts);
void fsa_clock_finish(struct clock_state *clock);

#endif /* FSA_MODEL_PRIVATE_H */
