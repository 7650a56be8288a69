/* SPDX-License-Identifier: MIT */
/*
 * The layer both Perfetto writers share (perfetto-tracks.c): it is the model sink of a Perfetto
 * export and decides everything that does not depend on the encoding: which track an item goes
 * on (a queue, an engine, a doorbell, a CPU waiter process…), the lanes a track is split into
 * so that its slices nest, the names of tracks and "processes", the times an item is drawn
 * from and to, the flow arrows of the signal → wait edges (bound only when both boxes are
 * known, never ending before they start), the frames, and the time base. It calls an encoder
 * (struct perfetto_encoder) to write each placed item: the Chrome trace-event JSON writer
 * (export-perfetto.c) and the native protobuf writer (export-perfetto-proto.c) are two
 * encoders. It writes nothing itself and is not a public API (docs/export.md "Perfetto").
 */
#ifndef FSA_PERFETTO_TRACKS_PRIVATE_H
#define FSA_PERFETTO_TRACKS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsa/frames.h"
#include "fsa/model.h"

#include "key-index-private.h"
#include "perfetto-counters-private.h"

/* "Processes" that are not adapters (an adapter's is its id + 1). */
#define PERFETTO_PID_UNKNOWN_ADAPTER 1000000
#define PERFETTO_PID_CPU             1000001
#define PERFETTO_PID_TRACER          1000002
#define PERFETTO_PID_ANOMALIES       1000003
#define PERFETTO_PID_EXPORT          1000004 /* protobuf: the export's own account */

enum perfetto_track_type {
	PERFETTO_TRACK_QUEUE,          /* a = hwqueue: fence boxes */
	PERFETTO_TRACK_QUEUE_DOORBELL, /* a = hwqueue: doorbell markers */
	PERFETTO_TRACK_QUEUE_LOSS,     /* a = hwqueue: log overruns */
	PERFETTO_TRACK_ENGINE,         /* a = adapter, b = engine: packets */
	PERFETTO_TRACK_ENGINE_EVENTS,  /* a = adapter, b = engine: preemption, TDR, F1, reset… */
	PERFETTO_TRACK_ADAPTER_EVENTS, /* a = adapter: device-wide markers */
	PERFETTO_TRACK_CPU,            /* a = process: CPU waits and signals */
	PERFETTO_TRACK_TRACER,         /* a = cpu: tracer discards */
	PERFETTO_TRACK_ANOMALY,        /* a = anomaly kind */
	PERFETTO_TRACK_EXPORT,         /* what the export says about itself */
	PERFETTO_TRACK_DISPLAY,        /* a = adapter, b = display (VidPN source): frames */
};

/* A lane of a track: a JSON "thread" (its tid) or a protobuf TrackDescriptor (its uuid). Ids
 * count from 1 over all tracks, in the order lanes are made. */
struct perfetto_lane {
	uint64_t id;
	uint64_t min_begin, max_end; /* the envelope of the slices placed on it */
};

struct perfetto_track {
	enum perfetto_track_type type;
	uint64_t a, b;
	uint32_t pid;
	uint32_t order; /* creation order */
	struct perfetto_lane *lanes;
	size_t lane_count;
};

/* Where an item is drawn: the lane LANE of the process PID, from BEGIN to END (absolute trace
 * ns; END == BEGIN for an instant). */
struct perfetto_span {
	uint32_t pid;
	uint64_t lane;
	uint64_t begin, end;
};

/* An operation's box: its span (at least PERFETTO_FLOW_MIN_DUR_NS long so that an arrow can
 * be anchored inside it), the words its name starts with, its category, and the phase of a
 * user-mode wait that stalled the queue on the GPU, nested in the box, when there is one. */
struct perfetto_op_box {
	struct perfetto_span span;
	const char *prefix;   /* "", "inferred ", "never unblocked ", "never executed ", … */
	const char *category; /* the kind, or kind.state when not observed */
	bool has_stall;
	uint64_t stall_begin, stall_end;
};

/* A counter track (docs/export.md "Counter tracks"): its id (from the lanes' id space), the
 * process it belongs to, its name, and its rank among that process's tracks. */
struct perfetto_counter_track {
	uint64_t id;
	uint32_t pid;
	uint32_t order;
	enum perfetto_counter_kind kind;
	const char *name;
};

/*
 * What an encoder writes. Each callback gets the model's item and where it goes; it returns
 * FSA_OK or an error after setting the layer's error (perfetto_tracks_fail()). Callbacks a
 * writer does not need are NULL: without `frame` the export has no frames, without
 * `lane_added` lanes are only known to the encoder at the end (the JSON writer names its
 * threads there).
 */
struct perfetto_encoder {
	/* True when a slice placed before a lane's slices may end where they begin (JSON's
	 * complete events); false when it must end strictly before (Perfetto pairs a protobuf
	 * BEGIN and END by time, ties in file order). */
	bool may_end_at_later_begin;
	fsa_status (*lane_added)(void *data, const struct perfetto_track *track,
				 const struct perfetto_lane *lane);
	fsa_status (*op)(void *data, const struct fsa_op *op, const struct perfetto_op_box *box);
	fsa_status (*packet)(void *data, const struct fsa_packet *packet,
			     const struct perfetto_span *span);
	fsa_status (*marker)(void *data, const struct fsa_marker *marker,
			     const struct perfetto_span *span, bool is_interval);
	fsa_status (*loss)(void *data, const struct fsa_loss *loss,
			   const struct perfetto_span *span, bool is_range_known);
	fsa_status (*anomaly)(void *data, const struct fsa_anomaly *anomaly,
			      const struct perfetto_span *span);
	fsa_status (*frame)(void *data, const struct fsa_frame *frame,
			    const struct perfetto_span *span);
	/* Arrow ID from a point inside the signal's box to one inside the wait's (FROM.end and
	 * TO.end are unused; FROM.begin < TO.begin). */
	fsa_status (*flow)(void *data, uint64_t id, const struct perfetto_span *from,
			   const struct perfetto_span *to);
	/* A counter track, then its values in time order (each from TS on), at the end of the
	 * export. */
	fsa_status (*counter_track)(void *data, const struct perfetto_counter_track *track);
	fsa_status (*counter)(void *data, const struct perfetto_counter_track *track, uint64_t ts,
			      int64_t value);
};

struct perfetto_cached_op {
	uint64_t op_id;
	bool is_valid;
	uint32_t pid;
	uint64_t lane;
	uint64_t begin;   /* of the op's box */
	uint64_t flow_ts; /* inside the op's box, near its end */
};

struct perfetto_tracks {
	/* The model sink of the export: its data is this layer. */
	struct fsa_model_sink sink;
	const struct perfetto_encoder *encoder;
	void *encoder_data;
	const char *path; /* weak: the output's path, for messages */
	char *error;      /* owned; the first failure's message */

	struct perfetto_track *tracks;
	size_t track_count, track_capacity;
	struct key_index track_keys; /* (type, a, b) → position in tracks */
	uint64_t next_lane_id, lane_count;
	uint64_t counter_track_count;

	uint64_t max_ts; /* the latest time seen, to draw what never ended */
	uint64_t time_base_ns;
	bool is_time_base_set;
	const struct fsa_model *model; /* weak */

	struct perfetto_cached_op *op_cache;
	bool has_op;
	uint64_t max_op_id;
	struct fsa_edge *pending;
	size_t pending_count;
	uint64_t flow_count, unbound_edge_count;

	/* Names given with perfetto_tracks_add_queue/_add_process; without any, the model's. */
	struct fsa_queue_info *queues;
	size_t queue_count, queue_capacity;
	struct perfetto_process_name {
		uint32_t process_id;
		char *name;
	} * processes;
	size_t process_count, process_capacity;

	/* Frames from the vsync and flip markers as they pass (fsa/frames.h); NULL without the
	 * encoder's frame callback. */
	struct fsa_frame_builder *frames;
	/* Owned; the counter tracks' change points until the end, NULL without counters. */
	struct perfetto_counters *counters;
	uint64_t counter_resolution_ns; /* 0: every change */
};

/* Readies PT (zeroed by the caller) for ENCODER; PATH is borrowed. FSA_ERR_NOMEM on failure
 * (PT then holds nothing to release but perfetto_tracks_clear() may be called). */
fsa_status perfetto_tracks_init(struct perfetto_tracks *pt, const struct perfetto_encoder *encoder,
				void *encoder_data, const char *path);
void perfetto_tracks_clear(struct perfetto_tracks *pt);

void perfetto_tracks_set_model(struct perfetto_tracks *pt, const struct fsa_model *model);
void perfetto_tracks_set_time_base(struct perfetto_tracks *pt, uint64_t base_ns);
fsa_status perfetto_tracks_add_queue(struct perfetto_tracks *pt, const struct fsa_queue_info *q);
fsa_status perfetto_tracks_add_process(struct perfetto_tracks *pt,
				       const struct fsa_process_info *p);

/* Counter tracks on (the default) or off; call before the first item. FSA_ERR_NOMEM. */
fsa_status perfetto_tracks_set_counters(struct perfetto_tracks *pt, bool has_counters);
/* 0 (the default): every change of a counter; else see perfetto_counters_write(). */
void perfetto_tracks_set_counter_resolution(struct perfetto_tracks *pt, uint64_t resolution_ns);

/* The end of the items: the last frames, every edge still waiting for its boxes (those get no
 * arrow), then the counter tracks. */
fsa_status perfetto_tracks_finish(struct perfetto_tracks *pt);

/* Notes a time (the time base is fixed at the first call); FSA_TIME_NONE only fixes it. */
void perfetto_tracks_see_time(struct perfetto_tracks *pt, uint64_t ns);
/* A time as written: relative to the time base, never negative. */
uint64_t perfetto_tracks_relative(const struct perfetto_tracks *pt, uint64_t ns);

/* The track (TYPE, A, B) of process PID, made when new; NULL when out of memory. */
struct perfetto_track *perfetto_tracks_get(struct perfetto_tracks *pt,
					   enum perfetto_track_type type, uint64_t a, uint64_t b,
					   uint32_t pid);
/* The lane of T an instant at TS goes on (its first); *LANE = 0 and an error on failure. */
fsa_status perfetto_tracks_first_lane(struct perfetto_tracks *pt, struct perfetto_track *t,
				      uint64_t ts, uint64_t *lane);

/* A track's name ("hwqueue 0x… · engine 0 3D · user-mode · pid 12 app", "engine 1 packets"…)
 * and a "process" name ("adapter 0", "CPU waits and signals"…). */
void perfetto_tracks_track_name(const struct perfetto_tracks *pt, const struct perfetto_track *t,
				char *buf, size_t size);
void perfetto_process_name(uint32_t pid, char *buf, size_t size);
/* "f0x…" for a shared fence, "local f0x…" for one known only by its local handle. */
void perfetto_format_fence(char *buf, size_t size, uint64_t global_handle, uint64_t local_handle);

/* Records a failure and returns STATUS: FSA_ERR_NOMEM "PATH: out of memory", FSA_ERR_IO
 * "PATH: cannot write: <errno>". */
fsa_status perfetto_tracks_fail(struct perfetto_tracks *pt, fsa_status status);

#endif /* FSA_PERFETTO_TRACKS_PRIVATE_H */
