/* SPDX-License-Identifier: MIT */
/*
 * analyzer/ingest's graph: src.ctf.fs (one component per trace UUID, as the babeltrace2 CLI makes
 * them) or src.ctf.lttng-live → flt.utils.muxer → a simple sink that hands each message to the
 * decoder (decoder.c) and what comes out to the caller's callbacks; a trace folder of one stream
 * goes to the sink without the muxer (ingest_graph_build()). One pass, in time order,
 * nothing kept but the decoder's per-class tables: memory does not grow with the trace.
 *
 * It does not interpret events (the model does) nor find trace folders (discover.c). Errors
 * become one line naming the trace; Babeltrace's own cause is quoted, its logging kept quiet so
 * that a damaged trace gives one clear line instead of a page of warnings.
 */
#define _GNU_SOURCE /* asprintf */

#include <babeltrace2/babeltrace.h>

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decoder-private.h"
#include "fsa/ingest.h"
#include "ingest-private.h"

#define INGEST_PROGRESS_EVERY 65536

/*
 * Components stay quiet: their causes reach the one-line message. FENCESCOPE_BT_LOG=1 (or a
 * Babeltrace level letter, T D I W E) lets them log to stderr, to see why a trace was refused.
 */
static bt_logging_level
ingest_log_level(void)
{
	const char *env = getenv("FENCESCOPE_BT_LOG");

	if (!env || !*env || strcmp(env, "0") == 0)
		return BT_LOGGING_LEVEL_NONE;
	switch (env[0]) {
	case 'T':
		return BT_LOGGING_LEVEL_TRACE;
	case 'D':
		return BT_LOGGING_LEVEL_DEBUG;
	case 'I':
		return BT_LOGGING_LEVEL_INFO;
	case 'E':
		return BT_LOGGING_LEVEL_ERROR;
	default:
		return BT_LOGGING_LEVEL_WARNING;
	}
}

struct ingest_run {
	const struct fsa_ingest_callbacks *callbacks;
	struct fsa_decoder *decoder;
	/* The first non-OK status of a callback or the decoder: it stops the graph. */
	fsa_status status;
	char *error;
	uint64_t next_progress;
	/* Trace time range from the stream indexes, for the progress fraction. */
	bool has_range;
	uint64_t range_begin, range_end;
};

/* Moves the thread's Babeltrace error into *error: its first cause, the one closest to the
 * failure, after `what`. The thread's error is always released. */
static void
ingest_error_take_bt(char **error, const char *what)
{
	const bt_error *bt_err = bt_current_thread_take_error();
	const char *cause = NULL;

	if (bt_err && bt_error_get_cause_count(bt_err) > 0)
		cause = bt_error_cause_get_message(bt_error_borrow_cause_by_index(bt_err, 0));
	bool was_set = error && *error;

	if (cause && *cause)
		ingest_error_set(error, "%s: %s", what, cause);
	else
		ingest_error_set(error, "%s", what);
	if (error && !was_set)
		ingest_error_strip_addresses(*error);
	if (bt_err)
		bt_error_release(bt_err);
}

static double
ingest_fraction(const struct ingest_run *run)
{
	uint64_t ts = fsa_decoder_last_ts(run->decoder);

	if (!run->has_range || ts == FSA_TIME_NONE || run->range_end <= run->range_begin)
		return -1.0;
	if (ts <= run->range_begin)
		return 0.0;
	if (ts >= run->range_end)
		return 1.0;
	return (double) (ts - run->range_begin) / (double) (run->range_end - run->range_begin);
}

static fsa_status (*ingest_order_stream)(void *data, const struct fsa_decoder_stream_key *key);
static struct fsa_decoder_order *ingest_order_current;
static void *ingest_order_data;

void
ingest_graph_set_order(fsa_status (*stream)(void *data, const struct fsa_decoder_stream_key *key),
		       struct fsa_decoder_order *current, void *data)
{
	ingest_order_stream = stream;
	ingest_order_current = current;
	ingest_order_data = data;
}

static fsa_status
ingest_message_handle(struct ingest_run *run, const bt_message *msg)
{
	const struct fsa_ingest_callbacks *cb = run->callbacks;
	const struct fsa_event *event = NULL;
	struct fsa_discard discard;
	enum fsa_decoded what;
	fsa_status status;

	status = fsa_decoder_decode(run->decoder, msg, &what, &event, &discard, &run->error);
	if (status != FSA_OK)
		return status;
	if (ingest_order_stream) {
		const struct fsa_decoder_order *order = fsa_decoder_order(run->decoder);

		/* Order mode: where the event or discard stands, for the reader's merge. */
		if (what == FSA_DECODED_STREAM)
			return ingest_order_stream(ingest_order_data,
						   fsa_decoder_stream_key(run->decoder));
		/* Member by member: the decoder has just stored them one by one, and a copy of the
		 * whole struct (one 16-byte load) cannot take them from the store buffer: a stall
		 * per event that was 10 % of this function's samples. */
		ingest_order_current->ordinal = order->ordinal;
		ingest_order_current->ts = order->ts;
	}
	if (what == FSA_DECODED_EVENT) {
		const struct fsa_ingest_stats *stats = fsa_decoder_borrow_stats(run->decoder);

		if (cb->event) {
			status = cb->event(cb->data, event);
			if (status != FSA_OK)
				return status;
		}
		if (stats->events >= run->next_progress) {
			run->next_progress = stats->events + INGEST_PROGRESS_EVERY;
			if (cb->progress &&
			    cb->progress(cb->data, stats->events, ingest_fraction(run)))
				return FSA_ERR_CANCELLED;
		}
	} else if (what == FSA_DECODED_DISCARD && cb->discard) {
		return cb->discard(cb->data, &discard);
	}
	return FSA_OK;
}

static bt_graph_simple_sink_component_consume_func_status
ingest_sink_consume(bt_message_iterator *iterator, void *user_data)
{
	struct ingest_run *run = user_data;
	bt_message_array_const msgs;
	uint64_t count = 0;

	bt_message_iterator_next_status next_status;

	next_status = bt_message_iterator_next(iterator, &msgs, &count);
	switch (next_status) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	/* Every message reference is ours: put them all, also after a stop. */
	for (uint64_t i = 0; i < count; i++) {
		if (run->status == FSA_OK)
			run->status = ingest_message_handle(run, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	/* A stop asked by a callback or the decoder is not Babeltrace's error: no cause. */
	return run->status == FSA_OK ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK
				     : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
}

static fsa_status
ingest_plugin_find(const char *name, const bt_plugin **plugin, char **error)
{
	/* fail_on_load_error is false: a broken unrelated plugin must not stop the reading. */
	bt_plugin_find_status status =
	    bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, plugin);

	if (status == BT_PLUGIN_FIND_STATUS_OK)
		return FSA_OK;
	if (status == BT_PLUGIN_FIND_STATUS_NOT_FOUND) {
		bt_current_thread_clear_error();
		ingest_error_set(error,
				 "babeltrace2 plugin \"%s\" not found (is babeltrace2 "
				 "installed?)",
				 name);
	} else {
		ingest_error_take_bt(error, "cannot load a babeltrace2 plugin");
	}
	return FSA_ERR_IO;
}

/* Runs query `object` on `source_class` with `params`; *result is NULL when the query fails. */
static void
ingest_query(const bt_component_class_source *source_class, const char *object,
	     const bt_value *params, const bt_value **result)
{
	bt_query_executor *executor = bt_query_executor_create(
	    bt_component_class_source_as_component_class_const(source_class), object, params);
	bt_query_executor_query_status status;

	*result = NULL;
	if (!executor || bt_query_executor_set_logging_level(executor, BT_LOGGING_LEVEL_NONE) !=
			     BT_QUERY_EXECUTOR_SET_LOGGING_LEVEL_STATUS_OK) {
		bt_current_thread_clear_error();
		goto end;
	}
	do {
		status = bt_query_executor_query(executor, result);
	} while (status == BT_QUERY_EXECUTOR_QUERY_STATUS_AGAIN);
	if (status != BT_QUERY_EXECUTOR_QUERY_STATUS_OK) {
		*result = NULL;
		/* The component creation that follows fails with a cause that names the trace. */
		bt_current_thread_clear_error();
	}
end:
	bt_query_executor_put_ref(executor);
}

static bool
ingest_value_ns(const bt_value *map, const char *key, uint64_t *ns)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(map, key);

	if (v && bt_value_is_signed_integer(v) && bt_value_integer_signed_get(v) >= 0) {
		*ns = (uint64_t) bt_value_integer_signed_get(v);
		return true;
	}
	if (v && bt_value_is_unsigned_integer(v)) {
		*ns = bt_value_integer_unsigned_get(v);
		return true;
	}
	return false;
}

/* Widens the run's time range with the streams' ranges (babeltrace.trace-infos: from the
 * packet indexes, without decoding events). Only for the progress fraction. */
static void
ingest_range_add(struct ingest_run *run, const bt_component_class_source *source_class,
		 const bt_value *params)
{
	const bt_value *traces = NULL;

	ingest_query(source_class, "babeltrace.trace-infos", params, &traces);
	for (uint64_t t = 0;
	     traces && bt_value_is_array(traces) && t < bt_value_array_get_length(traces); t++) {
		const bt_value *trace = bt_value_array_borrow_element_by_index_const(traces, t);
		const bt_value *streams =
		    bt_value_is_map(trace)
			? bt_value_map_borrow_entry_value_const(trace, "stream-infos")
			: NULL;

		for (uint64_t s = 0; streams && bt_value_is_array(streams) &&
				     s < bt_value_array_get_length(streams);
		     s++) {
			const bt_value *stream =
			    bt_value_array_borrow_element_by_index_const(streams, s);
			const bt_value *range =
			    bt_value_is_map(stream)
				? bt_value_map_borrow_entry_value_const(stream, "range-ns")
				: NULL;
			uint64_t begin, end;

			if (!range || !bt_value_is_map(range) ||
			    !ingest_value_ns(range, "begin", &begin) ||
			    !ingest_value_ns(range, "end", &end))
				continue;
			if (!run->has_range || begin < run->range_begin)
				run->range_begin = begin;
			if (!run->has_range || end > run->range_end)
				run->range_end = end;
			run->has_range = true;
		}
	}
	bt_value_put_ref(traces);
}

/* The muxer adds an input port each time one gets connected: find the free one. */
static const bt_port_input *
ingest_muxer_free_port(const bt_component_filter *muxer)
{
	uint64_t count = bt_component_filter_get_input_port_count(muxer);

	for (uint64_t i = 0; i < count; i++) {
		const bt_port_input *port =
		    bt_component_filter_borrow_input_port_by_index_const(muxer, i);

		if (!bt_port_is_connected(bt_port_input_as_port_const(port)))
			return port;
	}
	return NULL;
}

/* The source components of a graph being built, connected once all are there. */
struct ingest_sources {
	const bt_component_source **sources;
	size_t count;
};

/* Adds a source component with `params` (numbered `index`) to `sources`, unconnected. */
static fsa_status
ingest_source_add(bt_graph *graph, const bt_component_class_source *source_class,
		  const bt_value *params, size_t index, struct ingest_sources *sources,
		  char **error)
{
	const bt_component_source **grown;
	char name[32];

	grown = realloc(sources->sources, (sources->count + 1) * sizeof(*grown));
	if (!grown) {
		ingest_error_set(error, "out of memory");
		return FSA_ERR_NOMEM;
	}
	sources->sources = grown;
	snprintf(name, sizeof(name), "source-%zu", index);
	if (bt_graph_add_source_component(graph, source_class, name, params, ingest_log_level(),
					  &sources->sources[sources->count]) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		ingest_error_take_bt(error, "cannot read the trace");
		return FSA_ERR_TRACE;
	}
	sources->count++;
	return FSA_OK;
}

/* Connects every output port of `sources` to the muxer. */
static fsa_status
ingest_sources_connect(bt_graph *graph, const struct ingest_sources *sources,
		       const bt_component_filter *muxer, char **error)
{
	for (size_t s = 0; s < sources->count; s++) {
		uint64_t count = bt_component_source_get_output_port_count(sources->sources[s]);

		for (uint64_t i = 0; i < count; i++) {
			const bt_port_output *out =
			    bt_component_source_borrow_output_port_by_index_const(
				sources->sources[s], i);
			const bt_port_input *in = ingest_muxer_free_port(muxer);

			if (!in || bt_graph_connect_ports(graph, out, in, NULL) !=
				       BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
				ingest_error_take_bt(error,
						     "cannot connect a source to flt.utils.muxer");
				return FSA_ERR_TRACE;
			}
		}
	}
	return FSA_OK;
}

/* The one output port of `sources`, or NULL when they have several (or none). */
static const bt_port_output *
ingest_sources_single_port(const struct ingest_sources *sources)
{
	const bt_port_output *port = NULL;

	for (size_t s = 0; s < sources->count; s++) {
		uint64_t count = bt_component_source_get_output_port_count(sources->sources[s]);

		if (count == 0)
			continue;
		if (port || count > 1)
			return NULL;
		port =
		    bt_component_source_borrow_output_port_by_index_const(sources->sources[s], 0);
	}
	return port;
}

/*
 * One src.ctf.fs per trace UUID: libbabeltrace2 2.0's src.ctf.fs refuses inputs whose UUIDs
 * differ, so folders that share a UUID (one trace split over folders) go to one component, and a
 * trace without a UUID gets a component of its own — as the babeltrace2 CLI does it.
 */
static fsa_status
ingest_fs_sources_add(struct ingest_run *run, bt_graph *graph, const bt_plugin *ctf,
		      const struct ingest_dirs *dirs, struct ingest_sources *sources,
		      uint32_t *trace_count, char **error)
{
	const bt_component_class_source *source_class =
	    bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	bt_value **group_params = NULL;
	char **group_uuids = NULL;
	size_t group_count = 0, g;
	fsa_status status = FSA_ERR_NOMEM;

	if (!source_class) {
		ingest_error_set(error, "babeltrace2 plugin \"ctf\" has no source class \"fs\"");
		status = FSA_ERR_IO;
		goto end;
	}
	group_params = calloc(dirs->count, sizeof(*group_params));
	group_uuids = calloc(dirs->count, sizeof(*group_uuids));
	if (!group_params || !group_uuids)
		goto end;
	for (size_t i = 0; i < dirs->count; i++) {
		char *uuid;
		bt_value *inputs;

		status = ingest_metadata_check(dirs->paths[i], error);
		if (status != FSA_OK)
			goto end;
		status = FSA_ERR_NOMEM;
		uuid = ingest_metadata_uuid(dirs->paths[i]);
		for (g = 0; uuid && g < group_count; g++) {
			if (group_uuids[g] && strcmp(group_uuids[g], uuid) == 0)
				break;
		}
		if (!uuid || g == group_count) {
			g = group_count++;
			group_uuids[g] = uuid;
			uuid = NULL;
			group_params[g] = bt_value_map_create();
			if (!group_params[g] || bt_value_map_insert_empty_array_entry(
						    group_params[g], "inputs", &inputs) !=
						    BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)
				goto end;
		}
		free(uuid);
		inputs = bt_value_map_borrow_entry_value(group_params[g], "inputs");
		if (bt_value_array_append_string_element(inputs, dirs->paths[i]) !=
		    BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK)
			goto end;
	}
	for (g = 0; g < group_count; g++) {
		status = ingest_source_add(graph, source_class, group_params[g], g, sources, error);
		if (status != FSA_OK)
			goto end;
		/* Only now: libbabeltrace2 2.0.4's queries abort (instead of failing) on folders
		 * that the component refuses cleanly, such as one with a stray non-CTF file. */
		ingest_range_add(run, source_class, group_params[g]);
	}
	*trace_count = (uint32_t) group_count;
	status = FSA_OK;
end:
	if (status == FSA_ERR_NOMEM) {
		bt_current_thread_clear_error();
		ingest_error_set(error, "out of memory");
	}
	for (g = 0; g < group_count; g++) {
		bt_value_put_ref(group_params[g]);
		free(group_uuids[g]);
	}
	free(group_params);
	free(group_uuids);
	return status;
}

static fsa_status
ingest_live_source_add(bt_graph *graph, const bt_plugin *ctf, const char *url,
		       struct ingest_sources *sources, char **error)
{
	const bt_component_class_source *source_class =
	    bt_plugin_borrow_source_component_class_by_name_const(ctf, "lttng-live");
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	fsa_status status = FSA_ERR_NOMEM;

	if (!source_class) {
		ingest_error_set(error,
				 "babeltrace2 plugin \"ctf\" has no source class \"lttng-live\"");
		status = FSA_ERR_IO;
		goto end;
	}
	/* End, rather than wait, when the session is not (or no longer) there. */
	if (!params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_array_append_string_element(inputs, url) !=
		BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK ||
	    bt_value_map_insert_string_entry(params, "session-not-found-action", "end") !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
		bt_current_thread_clear_error();
		ingest_error_set(error, "out of memory");
		goto end;
	}
	status = ingest_source_add(graph, source_class, params, 0, sources, error);
end:
	bt_value_put_ref(params);
	return status;
}

/*
 * The sources, then their way to the sink: through flt.utils.muxer, or, when the sources of a
 * trace folder have a single output port (one stream: what each of two decoders reads), straight
 * to the sink, the decoder making the muxer's checks (fsa_decoder_set_muxer_checks()). A muxer of
 * one input passes every message through in its order: the sink gets the same messages, and
 * the muxer's per-message work (its queue, its time lookup, one more message iterator) is saved.
 * A live session always has its muxer (its inactivity messages, its streams that come and go).
 */
static fsa_status
ingest_graph_build(struct ingest_run *run, bt_graph *graph, const char *trace,
		   const struct ingest_dirs *dirs, uint32_t *trace_count, char **error)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_class_filter *muxer_class;
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *sink = NULL;
	const bt_port_output *single = NULL;
	struct ingest_sources sources = {0};
	fsa_status status;

	status = ingest_plugin_find("ctf", &ctf, error);
	if (status == FSA_OK)
		status = ingest_plugin_find("utils", &utils, error);
	if (status != FSA_OK)
		goto end;
	if (dirs) {
		status = ingest_fs_sources_add(run, graph, ctf, dirs, &sources, trace_count, error);
		single = ingest_sources_single_port(&sources);
	} else {
		status = ingest_live_source_add(graph, ctf, trace, &sources, error);
		*trace_count = 1;
	}
	if (status != FSA_OK)
		goto end;
	status = FSA_ERR_TRACE;
	if (bt_graph_add_simple_sink_component(graph, "fencescope", NULL, ingest_sink_consume, NULL,
					       run, &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		ingest_error_take_bt(error, "cannot create the sink");
		goto end;
	}
	if (single) {
		if (bt_graph_connect_ports(
			graph, single, bt_component_sink_borrow_input_port_by_index_const(sink, 0),
			NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
			ingest_error_take_bt(error, "cannot connect the source to the sink");
			goto end;
		}
		fsa_decoder_set_muxer_checks(run->decoder, true);
		status = FSA_OK;
		goto end;
	}
	muxer_class = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	if (!muxer_class) {
		ingest_error_set(error, "babeltrace2 plugin \"utils\" has no filter \"muxer\"");
		goto end;
	}
	if (bt_graph_add_filter_component(graph, muxer_class, "muxer", NULL, ingest_log_level(),
					  &muxer) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		ingest_error_take_bt(error, "cannot create flt.utils.muxer");
		goto end;
	}
	if (bt_graph_connect_ports(graph,
				   bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		ingest_error_take_bt(error, "cannot create the sink");
		goto end;
	}
	status = ingest_sources_connect(graph, &sources, muxer, error);
end:
	free(sources.sources);
	/* The graph holds its own references to the component classes. */
	bt_plugin_put_ref(utils);
	bt_plugin_put_ref(ctf);
	return status;
}

static void (*ingest_heartbeat)(void *data);
static void *ingest_heartbeat_data;
static bool ingest_present_only;

void
ingest_graph_set_present_only(bool is_present_only)
{
	ingest_present_only = is_present_only;
}

void
ingest_graph_set_heartbeat(void (*heartbeat)(void *data), void *data)
{
	ingest_heartbeat = heartbeat;
	ingest_heartbeat_data = data;
}

static fsa_status
ingest_graph_run(struct ingest_run *run, bt_graph *graph, bool is_live, char **error)
{
	unsigned again_count = 0;

	/* AGAIN: a source has nothing yet (lttng-live between timer ticks). */
	const struct timespec again_delay = {.tv_sec = 0,
					     .tv_nsec = is_live ? 20 * 1000000 : 1000000};
	bt_graph_run_status status;

	for (;;) {
		status = bt_graph_run(graph);
		if (status == BT_GRAPH_RUN_STATUS_OK)
			return FSA_OK;
		if (status != BT_GRAPH_RUN_STATUS_AGAIN)
			break;
		/* Nothing yet is not a hang: say so to fsa_ingest_run() about once a second. */
		if (ingest_heartbeat && ++again_count % (is_live ? 50 : 1000) == 0)
			ingest_heartbeat(ingest_heartbeat_data);
		nanosleep(&again_delay, NULL);
	}
	if (run->status != FSA_OK) {
		/* Stopped by us: Babeltrace's error only says "the sink failed". */
		bt_current_thread_clear_error();
		return run->status;
	}
	if (status == BT_GRAPH_RUN_STATUS_MEMORY_ERROR) {
		bt_current_thread_clear_error();
		ingest_error_set(error, "out of memory");
		return FSA_ERR_NOMEM;
	}
	if (is_live) {
		/* Nothing read: the session cannot be reached (IO). Something read: the stream
		 * broke (a relay daemon that stops before its viewers saw the end), a partial
		 * trace. */
		ingest_error_take_bt(error, "cannot read the live session");
		return fsa_decoder_borrow_stats(run->decoder)->events ? FSA_ERR_TRACE : FSA_ERR_IO;
	}
	ingest_error_take_bt(error, "cannot decode the trace");
	return FSA_ERR_TRACE;
}

fsa_status
ingest_graph_read(const char *trace, const struct fsa_ingest_callbacks *callbacks,
		  struct fsa_ingest_stats *stats, char **error_message)
{
	static const struct fsa_ingest_callbacks no_callbacks = {0};
	struct ingest_run run = {
	    .callbacks = callbacks ? callbacks : &no_callbacks,
	    .next_progress = INGEST_PROGRESS_EVERY,
	};
	struct ingest_dirs dirs = {0};
	bool is_live;
	uint32_t trace_count = 0;
	bt_graph *graph = NULL;
	char *error = NULL;
	fsa_status status = FSA_ERR_NOMEM;

	if (error_message)
		*error_message = NULL;
	if (stats)
		*stats = (struct fsa_ingest_stats){0};
	if (!trace) {
		ingest_error_set(&error, "no trace given");
		status = FSA_ERR_INVALID;
		goto end;
	}
	/* A cause left by an earlier, unrelated call must not become our message. */
	bt_current_thread_clear_error();
	is_live = ingest_is_live_url(trace);
	if (!is_live) {
		status = ingest_dirs_find(trace, &dirs, &error);
		if (status != FSA_OK)
			goto end;
		if (dirs.count == 0) {
			ingest_error_set(&error,
					 "no CTF trace found (no folder with a metadata file)");
			status = FSA_ERR_IO;
			goto end;
		}
	}
	run.decoder = fsa_decoder_create();
	if (run.decoder) {
		fsa_decoder_set_payload_filter(run.decoder,
					       callbacks ? callbacks->needs_payload : NULL);
		fsa_decoder_set_present_only(run.decoder, ingest_present_only);
		fsa_decoder_set_order(run.decoder, ingest_order_stream != NULL);
	}
	graph = bt_graph_create(0);
	if (!run.decoder || !graph) {
		bt_current_thread_clear_error();
		ingest_error_set(&error, "out of memory");
		status = FSA_ERR_NOMEM;
		goto end;
	}
	status =
	    ingest_graph_build(&run, graph, trace, is_live ? NULL : &dirs, &trace_count, &error);
	if (status == FSA_OK) {
		status = ingest_graph_run(&run, graph, is_live, &error);
	}
	if (status == FSA_OK && run.callbacks->progress)
		run.callbacks->progress(run.callbacks->data,
					fsa_decoder_borrow_stats(run.decoder)->events,
					is_live ? -1.0 : 1.0);
end:
	if (stats && run.decoder) {
		*stats = *fsa_decoder_borrow_stats(run.decoder);
		stats->trace_count = trace_count;
	}
	/* The decoder's message (format version) is the first one that counts. */
	if (run.error) {
		free(error);
		error = run.error;
		run.error = NULL;
	}
	if (status != FSA_OK && error_message) {
		if (asprintf(error_message, "%s: %s%s", trace ? trace : "(null)",
			     error ? error : fsa_status_string(status),
			     status == FSA_ERR_TRACE && ingest_log_level() == BT_LOGGING_LEVEL_NONE
				 ? " (FENCESCOPE_BT_LOG=1 shows Babeltrace's log)"
				 : "") < 0)
			*error_message = NULL;
	}
	free(error);
	bt_graph_put_ref(graph);
	fsa_decoder_destroy(run.decoder);
	ingest_dirs_fini(&dirs);
	return status;
}
