/* SPDX-License-Identifier: MIT */

/*
 * Reads CTF traces into struct fst_trace for tests. It finds every directory
 * below the given path that holds a `metadata` file, hands them to src.ctf.fs
 * (one component per trace UUID, each with one output port per stream),
 * merges all ports with flt.utils.muxer, and drains the muxer from a simple
 * sink that copies event, discarded-events and discarded-packets messages
 * into plain C structures. It goes through the libbabeltrace2 C API rather
 * than the babeltrace2 command line so tests see typed values, not text to
 * parse. It is not a general CTF converter: stream, packet and context fields
 * and nested compound values are not copied.
 */

/* For asprintf(), vasprintf() and strdup(). */
#define _GNU_SOURCE

#include "trace-reader.h"

#include <babeltrace2/babeltrace.h>

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define READER_MODULE "fencescope-trace-reader"

/*
 * Components log warnings to stderr (a test log is where a malformed trace
 * should show up); errors reach the caller through *error.
 */
#define READER_LOG_LEVEL BT_LOGGING_LEVEL_WARNING

enum reader_status {
	READER_STATUS_OK = 0,
	READER_STATUS_ERROR = -1,
	READER_STATUS_MEMORY_ERROR = -2,
};

/* Trace directories found below the path given to fst_trace_read(). */
struct reader_dir_list {
	char **paths;
	size_t count;
	size_t capacity;
};

/* What the simple sink fills while the graph runs. */
struct reader_sink {
	struct fst_trace *trace;
	size_t event_capacity;
};

/* Turns a message into one line, since callers print *error as one line. */
static void
reader_line_flatten(char *msg)
{
	for (; msg && *msg; msg++) {
		if (*msg == '\n' || *msg == '\r' || *msg == '\t')
			*msg = ' ';
	}
}

__attribute__((format(printf, 2, 3))) static void
reader_error_set(char **error, const char *fmt, ...)
{
	va_list args;
	char *msg = NULL;

	/* The first failure is the one to report; later ones follow from it. */
	if (!error || *error)
		return;
	va_start(args, fmt);
	if (vasprintf(&msg, fmt, args) < 0)
		msg = NULL;
	va_end(args);
	reader_line_flatten(msg);
	*error = msg;
}

/*
 * Moves the current thread's babeltrace error into *error: the message of its
 * first cause, which is the root cause (the one appended first, closest to
 * the failure), or `fallback` when babeltrace left no cause. The thread's
 * error is always released, even when the caller does not want the message.
 */
static void
reader_error_take_bt(char **error, const char *fallback)
{
	const bt_error *bt_err = bt_current_thread_take_error();
	const char *msg = NULL;

	if (bt_err && bt_error_get_cause_count(bt_err) > 0)
		msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(bt_err, 0));
	if (msg && *msg)
		reader_error_set(error, "%s", msg);
	else
		reader_error_set(error, "%s", fallback);
	if (bt_err)
		bt_error_release(bt_err);
}

static void
reader_dir_list_fini(struct reader_dir_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		free(list->paths[i]);
	free(list->paths);
	memset(list, 0, sizeof(*list));
}

static int
reader_dir_list_append(struct reader_dir_list *list, const char *path)
{
	char *copy = strdup(path);
	int ret = -1;

	if (!copy)
		goto end;
	if (list->count == list->capacity) {
		size_t capacity = list->capacity ? list->capacity * 2 : 8;
		char **paths = realloc(list->paths, capacity * sizeof(*paths));

		if (!paths)
			goto end;
		list->paths = paths;
		list->capacity = capacity;
	}
	list->paths[list->count++] = copy;
	copy = NULL;
	ret = 0;
end:
	free(copy);
	return ret;
}

/* Whether the directory entry at `path` (already lstat'ed) is a regular file. */
static bool
reader_entry_is_file(const char *path, const struct stat *lst)
{
	struct stat st;

	if (S_ISREG(lst->st_mode))
		return true;
	return S_ISLNK(lst->st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Appends `dir` to `list` if it directly contains a file named `metadata`,
 * then walks its subdirectories. Symbolic links to directories are not
 * followed, so a link loop cannot make the walk endless.
 */
static int
reader_dirs_collect(const char *dir, struct reader_dir_list *list, char **error)
{
	DIR *stream = opendir(dir);
	char *child = NULL;
	bool has_metadata = false;
	int ret = -1;

	if (!stream) {
		reader_error_set(error, "cannot open directory %s: %s", dir, strerror(errno));
		goto end;
	}
	for (;;) {
		struct dirent *entry;
		struct stat st;

		errno = 0;
		entry = readdir(stream);
		if (!entry) {
			if (errno) {
				reader_error_set(error, "cannot read directory %s: %s", dir,
						 strerror(errno));
				goto end;
			}
			break;
		}
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		free(child);
		if (asprintf(&child, "%s/%s", dir, entry->d_name) < 0) {
			child = NULL;
			reader_error_set(error, "out of memory");
			goto end;
		}
		if (lstat(child, &st) != 0) {
			reader_error_set(error, "cannot stat %s: %s", child, strerror(errno));
			goto end;
		}
		if (S_ISDIR(st.st_mode)) {
			if (reader_dirs_collect(child, list, error))
				goto end;
		} else if (strcmp(entry->d_name, "metadata") == 0 &&
			   reader_entry_is_file(child, &st)) {
			has_metadata = true;
		}
	}
	if (has_metadata && reader_dir_list_append(list, dir)) {
		reader_error_set(error, "out of memory");
		goto end;
	}
	ret = 0;
end:
	free(child);
	if (stream)
		closedir(stream);
	return ret;
}

static int
reader_path_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Fills `list` with every trace directory at or below `path`, sorted so the
 * source components get their inputs in the same order on every run.
 */
static int
reader_dirs_find(const char *path, struct reader_dir_list *list, char **error)
{
	char *root = strdup(path);
	size_t len;
	int ret = -1;

	if (!root) {
		reader_error_set(error, "out of memory");
		goto end;
	}
	/* "trace/" and "trace" name the same directory; keep paths tidy. */
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		root[--len] = '\0';
	if (reader_dirs_collect(root, list, error))
		goto end;
	if (list->count > 1)
		qsort(list->paths, list->count, sizeof(*list->paths), reader_path_compare);
	ret = 0;
end:
	free(root);
	return ret;
}

static void
reader_field_fini(struct fst_field *field)
{
	free(field->name);
	free(field->enum_label);
	free(field->str);
	free(field->array);
}

static void
reader_event_fini(struct fst_event *event)
{
	size_t i;

	for (i = 0; i < event->field_count; i++)
		reader_field_fini(&event->fields[i]);
	free(event->fields);
	free(event->name);
}

/*
 * Copies a static or dynamic array field. Only arrays of unsigned integers
 * (enumerations included) become FST_FIELD_UNSIGNED_ARRAY; others stay
 * FST_FIELD_OTHER.
 */
static enum reader_status
reader_array_convert(const bt_field *field, const bt_field_class *field_class,
		     struct fst_field *out)
{
	const bt_field_class *element_class =
	    bt_field_class_array_borrow_element_field_class_const(field_class);
	uint64_t len = bt_field_array_get_length(field);
	enum reader_status status = READER_STATUS_OK;
	uint64_t i;

	if (!bt_field_class_type_is(bt_field_class_get_type(element_class),
				    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		goto end;
	if (len > SIZE_MAX / sizeof(*out->array)) {
		status = READER_STATUS_MEMORY_ERROR;
		goto end;
	}
	if (len > 0) {
		out->array = malloc(len * sizeof(*out->array));
		if (!out->array) {
			status = READER_STATUS_MEMORY_ERROR;
			goto end;
		}
	}
	for (i = 0; i < len; i++) {
		const bt_field *element =
		    bt_field_array_borrow_element_field_by_index_const(field, i);

		out->array[i] = bt_field_integer_unsigned_get_value(element);
	}
	out->kind = FST_FIELD_UNSIGNED_ARRAY;
	out->bits = (unsigned int) bt_field_class_integer_get_field_value_range(element_class);
	out->array_len = (size_t) len;
end:
	return status;
}

/* Fills the zeroed `out` from the payload member `field` named `name`. */
static enum reader_status
reader_field_convert(const bt_field *field, const char *name, struct fst_field *out)
{
	const bt_field_class *field_class = bt_field_borrow_class_const(field);
	bt_field_class_type type = bt_field_class_get_type(field_class);
	bt_field_class_enumeration_mapping_label_array labels = NULL;
	uint64_t label_count = 0;
	enum reader_status status = READER_STATUS_MEMORY_ERROR;

	out->kind = FST_FIELD_OTHER;
	out->name = strdup(name);
	if (!out->name)
		goto end;
	out->is_enum = bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ENUMERATION);
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		out->kind = FST_FIELD_UNSIGNED;
		out->bits =
		    (unsigned int) bt_field_class_integer_get_field_value_range(field_class);
		out->u = bt_field_integer_unsigned_get_value(field);
		if (out->is_enum && bt_field_enumeration_unsigned_get_mapping_labels(
					field, &labels, &label_count) !=
					BT_FIELD_ENUMERATION_GET_MAPPING_LABELS_STATUS_OK)
			goto end;
	} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		out->kind = FST_FIELD_SIGNED;
		out->bits =
		    (unsigned int) bt_field_class_integer_get_field_value_range(field_class);
		out->s = bt_field_integer_signed_get_value(field);
		if (out->is_enum &&
		    bt_field_enumeration_signed_get_mapping_labels(field, &labels, &label_count) !=
			BT_FIELD_ENUMERATION_GET_MAPPING_LABELS_STATUS_OK)
			goto end;
	} else if (type == BT_FIELD_CLASS_TYPE_STRING) {
		out->kind = FST_FIELD_STRING;
		out->str = strdup(bt_field_string_get_value(field));
		if (!out->str)
			goto end;
	} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY)) {
		if (reader_array_convert(field, field_class, out) != READER_STATUS_OK)
			goto end;
	}
	if (label_count > 0) {
		out->enum_label = strdup(labels[0]);
		if (!out->enum_label)
			goto end;
	}
	status = READER_STATUS_OK;
end:
	return status;
}

/* Fills the zeroed `out` from an event message; the caller cleans up on failure. */
static enum reader_status
reader_event_convert(const bt_message *msg, struct fst_event *out)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const char *name = bt_event_class_get_name(bt_event_borrow_class_const(event));
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	enum reader_status status = READER_STATUS_MEMORY_ERROR;
	const bt_field_class *payload_class;
	uint64_t i, count;

	out->name = strdup(name ? name : "");
	if (!out->name)
		goto end;
	if (bt_message_event_borrow_stream_class_default_clock_class_const(msg)) {
		const bt_clock_snapshot *snapshot =
		    bt_message_event_borrow_default_clock_snapshot_const(msg);

		out->clock_value = bt_clock_snapshot_get_value(snapshot);
		if (bt_clock_snapshot_get_ns_from_origin(snapshot, &out->ts_ns) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_UNKNOWN(
			    READER_MODULE, "timestamp of event %s overflows int64 ns", out->name);
			status = READER_STATUS_ERROR;
			goto end;
		}
	}
	status = READER_STATUS_OK;
	if (!payload)
		goto end;
	payload_class = bt_field_borrow_class_const(payload);
	count = bt_field_class_structure_get_member_count(payload_class);
	if (count == 0)
		goto end;
	out->fields = calloc((size_t) count, sizeof(*out->fields));
	if (!out->fields) {
		status = READER_STATUS_MEMORY_ERROR;
		goto end;
	}
	out->field_count = (size_t) count;
	for (i = 0; i < count; i++) {
		const bt_field_class_structure_member *member =
		    bt_field_class_structure_borrow_member_by_index_const(payload_class, i);

		status = reader_field_convert(
		    bt_field_structure_borrow_member_field_by_index_const(payload, i),
		    bt_field_class_structure_member_get_name(member), &out->fields[i]);
		if (status != READER_STATUS_OK)
			goto end;
	}
end:
	return status;
}

static enum reader_status
reader_sink_add_event(struct reader_sink *sink, const bt_message *msg)
{
	struct fst_trace *trace = sink->trace;
	struct fst_event *event;
	enum reader_status status = READER_STATUS_MEMORY_ERROR;

	if (trace->event_count == sink->event_capacity) {
		size_t capacity = sink->event_capacity ? sink->event_capacity * 2 : 256;
		struct fst_event *events = realloc(trace->events, capacity * sizeof(*events));

		if (!events)
			goto end;
		trace->events = events;
		sink->event_capacity = capacity;
	}
	event = &trace->events[trace->event_count];
	memset(event, 0, sizeof(*event));
	status = reader_event_convert(msg, event);
	if (status != READER_STATUS_OK) {
		reader_event_fini(event);
		goto end;
	}
	trace->event_count++;
end:
	return status;
}

static enum reader_status
reader_sink_add_message(struct reader_sink *sink, const bt_message *msg)
{
	enum reader_status status = READER_STATUS_OK;
	uint64_t count;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		status = reader_sink_add_event(sink, msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		/* As the analyzer reads it: a count that wrapped (the tracer's counter went
		 * backwards) or none is "at least one" (docs/analyzer.md, "Tracer discards"). */
		if (bt_message_discarded_events_get_count(msg, &count) !=
			BT_PROPERTY_AVAILABILITY_AVAILABLE ||
		    count > INT64_MAX)
			count = 1;
		sink->trace->discarded_events += count;
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		if (bt_message_discarded_packets_get_count(msg, &count) !=
			BT_PROPERTY_AVAILABILITY_AVAILABLE ||
		    count > INT64_MAX)
			count = 1;
		sink->trace->discarded_packets += count;
		break;
	default:
		break;
	}
	return status;
}

static bt_graph_simple_sink_component_consume_func_status
reader_sink_consume(bt_message_iterator *iterator, void *user_data)
{
	struct reader_sink *sink = user_data;
	bt_graph_simple_sink_component_consume_func_status status;
	enum reader_status add_status = READER_STATUS_OK;
	bt_message_array_const msgs;
	uint64_t count = 0;
	uint64_t i;

	switch (bt_message_iterator_next(iterator, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
		goto end;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
		goto end;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
		goto end;
	default:
		status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
		goto end;
	}

	/* Every message reference is ours: put them all, even after a failure. */
	for (i = 0; i < count; i++) {
		if (add_status == READER_STATUS_OK)
			add_status = reader_sink_add_message(sink, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	switch (add_status) {
	case READER_STATUS_OK:
		status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
		break;
	case READER_STATUS_MEMORY_ERROR:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_UNKNOWN(
		    READER_MODULE, "out of memory while copying trace messages");
		status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
		break;
	default:
		status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
		break;
	}
end:
	return status;
}

/* Loads the plugin `name` from the standard places (caller puts the reference). */
static int
reader_plugin_find(const char *name, const bt_plugin **plugin, char **error)
{
	bt_plugin_find_status status;
	int ret = -1;

	/*
	 * fail_on_load_error is false: a broken unrelated plugin in the search
	 * path must not stop a test from reading its trace.
	 */
	status = bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, plugin);
	if (status == BT_PLUGIN_FIND_STATUS_NOT_FOUND) {
		bt_current_thread_clear_error();
		reader_error_set(error, "babeltrace2 plugin \"%s\" not found", name);
		goto end;
	}
	if (status != BT_PLUGIN_FIND_STATUS_OK) {
		reader_error_take_bt(error, "cannot load a babeltrace2 plugin");
		goto end;
	}
	ret = 0;
end:
	return ret;
}

/* Size of a CTF 1.8 metadata packet header: magic, UUID, checksum, sizes, schemes, version. */
#define READER_METADATA_HEADER_SIZE 37
#define READER_TSDL_MAGIC           UINT32_C(0x75d11d57)

static uint32_t
reader_u32_read(const unsigned char *bytes, bool is_swapped)
{
	uint32_t value;

	memcpy(&value, bytes, sizeof(value));
	if (is_swapped)
		value = (value >> 24) | ((value >> 8) & UINT32_C(0xff00)) |
			((value << 8) & UINT32_C(0xff0000)) | (value << 24);
	return value;
}

/*
 * Refuses a packetized metadata file whose packet claims more content than
 * the file holds. libbabeltrace2 2.0.4's packet decoder retries a zero-byte
 * fread() at end of file forever on such a packet, so a truncated trace would
 * hang the test (the babeltrace2 command line hangs the same way) instead of
 * failing it. This walks the packet headers exactly as that decoder does and
 * leaves every other defect, and plain-text metadata, to the decoder.
 */
static int
reader_metadata_check(const char *dir, char **error)
{
	unsigned char header[READER_METADATA_HEADER_SIZE];
	char *path = NULL;
	int fd = -1;
	struct stat st;
	uint64_t offset = 0;
	bool is_swapped = false;
	int ret = -1;

	if (asprintf(&path, "%s/metadata", dir) < 0) {
		path = NULL;
		reader_error_set(error, "out of memory");
		goto end;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		reader_error_set(error, "cannot open %s: %s", path, strerror(errno));
		goto end;
	}
	while (offset + sizeof(header) <= (uint64_t) st.st_size) {
		uint32_t content_size, packet_size;

		if (pread(fd, header, sizeof(header), (off_t) offset) != (ssize_t) sizeof(header))
			break;
		if (offset == 0) {
			/* The first magic number tells packetized from text, and the byte order. */
			if (reader_u32_read(header, false) == READER_TSDL_MAGIC)
				is_swapped = false;
			else if (reader_u32_read(header, true) == READER_TSDL_MAGIC)
				is_swapped = true;
			else
				break;
		}
		content_size = reader_u32_read(header + 24, is_swapped) / 8;
		packet_size = reader_u32_read(header + 28, is_swapped);
		if (content_size < sizeof(header))
			break;
		if (offset + content_size > (uint64_t) st.st_size) {
			reader_error_set(error,
					 "%s: metadata packet at offset %" PRIu64 " claims %" PRIu32
					 " bytes but the file has %" PRIu64 " (truncated trace?)",
					 path, offset, content_size,
					 (uint64_t) st.st_size - offset);
			goto end;
		}
		offset += content_size +
			  (uint32_t) (packet_size - reader_u32_read(header + 24, is_swapped)) / 8;
	}
	ret = 0;
end:
	if (fd >= 0)
		close(fd);
	free(path);
	return ret;
}

/*
 * Asks src.ctf.fs which group the trace directory `dir` belongs to, as the
 * babeltrace2 command line does: *uuid is set to a copy of the trace's UUID
 * (free() it), or to NULL when the trace has none or the query fails. A failed
 * query is not an error here: the query only logs why (it appends no cause),
 * so the directory gets a component of its own, whose creation then fails
 * with a message that names the trace. Only running out of memory fails.
 */
static int
reader_dir_query_group(const bt_component_class_source *source_class, const char *dir, char **uuid,
		       char **error)
{
	bt_value *params = bt_value_map_create();
	bt_query_executor *executor = NULL;
	const bt_value *result = NULL;
	const bt_value *group;
	bt_query_executor_query_status status;
	int ret = -1;

	*uuid = NULL;
	if (!params ||
	    bt_value_map_insert_string_entry(params, "input", dir) !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_map_insert_string_entry(params, "type", "directory") !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
		reader_error_take_bt(error, "out of memory");
		goto end;
	}
	/* Silent: the component logs the same metadata problems once more. */
	executor = bt_query_executor_create(
	    bt_component_class_source_as_component_class_const(source_class),
	    "babeltrace.support-info", params);
	if (!executor || bt_query_executor_set_logging_level(executor, BT_LOGGING_LEVEL_NONE) !=
			     BT_QUERY_EXECUTOR_SET_LOGGING_LEVEL_STATUS_OK) {
		reader_error_take_bt(error, "cannot create a babeltrace2 query executor");
		goto end;
	}
	do {
		status = bt_query_executor_query(executor, &result);
	} while (status == BT_QUERY_EXECUTOR_QUERY_STATUS_AGAIN);
	if (status != BT_QUERY_EXECUTOR_QUERY_STATUS_OK) {
		bt_current_thread_clear_error();
		ret = 0;
		goto end;
	}
	group =
	    bt_value_is_map(result) ? bt_value_map_borrow_entry_value_const(result, "group") : NULL;
	if (group && bt_value_is_string(group)) {
		*uuid = strdup(bt_value_string_get(group));
		if (!*uuid) {
			reader_error_set(error, "out of memory");
			goto end;
		}
	}
	ret = 0;
end:
	bt_value_put_ref(result);
	bt_query_executor_put_ref(executor);
	bt_value_put_ref(params);
	return ret;
}

/* The muxer adds an input port each time one gets connected: find the free one. */
static const bt_port_input *
reader_muxer_borrow_free_input_port(const bt_component_filter *muxer)
{
	uint64_t count = bt_component_filter_get_input_port_count(muxer);
	uint64_t i;

	for (i = 0; i < count; i++) {
		const bt_port_input *port =
		    bt_component_filter_borrow_input_port_by_index_const(muxer, i);

		if (!bt_port_is_connected(bt_port_input_as_port_const(port)))
			return port;
	}
	return NULL;
}

/* Adds a src.ctf.fs component reading `params` and connects all its ports to the muxer. */
static int
reader_source_add(bt_graph *graph, const bt_component_class_source *source_class,
		  const bt_value *params, size_t index, const bt_component_filter *muxer,
		  char **error)
{
	const bt_component_source *source = NULL;
	char name[32];
	uint64_t i, count;
	int ret = -1;

	snprintf(name, sizeof(name), "source-%zu", index);
	if (bt_graph_add_source_component(graph, source_class, name, params, READER_LOG_LEVEL,
					  &source) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		reader_error_take_bt(error, "cannot create a src.ctf.fs component");
		goto end;
	}
	count = bt_component_source_get_output_port_count(source);
	for (i = 0; i < count; i++) {
		const bt_port_output *out =
		    bt_component_source_borrow_output_port_by_index_const(source, i);
		const bt_port_input *in = reader_muxer_borrow_free_input_port(muxer);

		if (!in) {
			reader_error_set(error, "flt.utils.muxer has no free input port");
			goto end;
		}
		if (bt_graph_connect_ports(graph, out, in, NULL) !=
		    BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
			reader_error_take_bt(error, "cannot connect src.ctf.fs to flt.utils.muxer");
			goto end;
		}
	}
	ret = 0;
end:
	return ret;
}

/*
 * Adds the src.ctf.fs components for all trace directories, connected to the
 * muxer. libbabeltrace2 2.0's src.ctf.fs refuses inputs whose UUIDs differ
 * ("Multiple traces given, but UUIDs don't match"), so, like the babeltrace2
 * command line, it makes one component per UUID group: directories that share
 * a UUID (one trace split over several directories) go to the same component,
 * and a trace without a UUID gets a component of its own.
 */
static int
reader_sources_add(bt_graph *graph, const bt_plugin *ctf, const struct reader_dir_list *dirs,
		   const bt_component_filter *muxer, char **error)
{
	const bt_component_class_source *source_class =
	    bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	bt_value **group_params = NULL;
	char **group_uuids = NULL;
	size_t group_count = 0;
	char *uuid = NULL;
	size_t i, g;
	int ret = -1;

	if (!source_class) {
		reader_error_set(error, "babeltrace2 plugin \"ctf\" has no source class \"fs\"");
		goto end;
	}
	group_params = calloc(dirs->count, sizeof(*group_params));
	group_uuids = calloc(dirs->count, sizeof(*group_uuids));
	if (!group_params || !group_uuids) {
		reader_error_set(error, "out of memory");
		goto end;
	}
	for (i = 0; i < dirs->count; i++) {
		bt_value *inputs;

		if (reader_metadata_check(dirs->paths[i], error) ||
		    reader_dir_query_group(source_class, dirs->paths[i], &uuid, error))
			goto end;
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
						    BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
				reader_error_take_bt(error, "out of memory");
				goto end;
			}
		}
		free(uuid);
		uuid = NULL;
		inputs = bt_value_map_borrow_entry_value(group_params[g], "inputs");
		if (bt_value_array_append_string_element(inputs, dirs->paths[i]) !=
		    BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK) {
			reader_error_take_bt(error, "out of memory");
			goto end;
		}
	}
	for (g = 0; g < group_count; g++) {
		if (reader_source_add(graph, source_class, group_params[g], g, muxer, error))
			goto end;
	}
	ret = 0;
end:
	for (g = 0; g < group_count; g++) {
		bt_value_put_ref(group_params[g]);
		free(group_uuids[g]);
	}
	free(group_params);
	free(group_uuids);
	free(uuid);
	return ret;
}

/* Builds src.ctf.fs (one per trace UUID) -> flt.utils.muxer -> simple sink feeding `sink`. */
static int
reader_graph_build(bt_graph *graph, const struct reader_dir_list *dirs, struct reader_sink *sink,
		   char **error)
{
	const bt_plugin *ctf = NULL;
	const bt_plugin *utils = NULL;
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *simple_sink = NULL;
	const bt_component_class_filter *muxer_class;
	int ret = -1;

	if (reader_plugin_find("ctf", &ctf, error) || reader_plugin_find("utils", &utils, error))
		goto end;
	muxer_class = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	if (!muxer_class) {
		reader_error_set(error,
				 "babeltrace2 plugin \"utils\" has no filter class \"muxer\"");
		goto end;
	}
	if (bt_graph_add_filter_component(graph, muxer_class, "muxer", NULL, READER_LOG_LEVEL,
					  &muxer) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		reader_error_take_bt(error, "cannot create the flt.utils.muxer component");
		goto end;
	}
	if (bt_graph_add_simple_sink_component(graph, "sink", NULL, reader_sink_consume, NULL, sink,
					       &simple_sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		reader_error_take_bt(error, "cannot create the sink component");
		goto end;
	}
	if (bt_graph_connect_ports(
		graph, bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
		bt_component_sink_borrow_input_port_by_index_const(simple_sink, 0),
		NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		reader_error_take_bt(error, "cannot connect flt.utils.muxer to the sink");
		goto end;
	}
	if (reader_sources_add(graph, ctf, dirs, muxer, error))
		goto end;
	ret = 0;
end:
	/* The graph keeps its own references to the component classes. */
	bt_plugin_put_ref(utils);
	bt_plugin_put_ref(ctf);
	return ret;
}

/*
 * Runs the graph to the end. libbabeltrace2 2.0's bt_graph_run() reports the
 * end of every sink as BT_GRAPH_RUN_STATUS_OK (there is no _END status for
 * it); AGAIN means a component would block, so wait a little and retry.
 */
static int
reader_graph_run(bt_graph *graph, char **error)
{
	const struct timespec again_delay = {.tv_sec = 0, .tv_nsec = 1000000};
	bt_graph_run_status status;
	int ret = -1;

	for (;;) {
		status = bt_graph_run(graph);
		if (status == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (status != BT_GRAPH_RUN_STATUS_AGAIN) {
			reader_error_take_bt(error, "cannot read the trace");
			goto end;
		}
		nanosleep(&again_delay, NULL);
	}
	ret = 0;
end:
	return ret;
}

int
fst_trace_read(const char *path, struct fst_trace **trace, char **error)
{
	struct reader_dir_list dirs = {0};
	struct reader_sink sink = {0};
	bt_graph *graph = NULL;
	int ret = -1;

	assert(path);
	assert(trace);
	*trace = NULL;
	if (error)
		*error = NULL;
	/* A cause left by an earlier, unrelated call must not become our message. */
	bt_current_thread_clear_error();

	if (reader_dirs_find(path, &dirs, error))
		goto end;
	if (dirs.count == 0) {
		reader_error_set(error, "no CTF trace found under %s", path);
		goto end;
	}
	sink.trace = calloc(1, sizeof(*sink.trace));
	if (!sink.trace) {
		reader_error_set(error, "out of memory");
		goto end;
	}
	graph = bt_graph_create(0);
	if (!graph) {
		reader_error_take_bt(error, "cannot create a babeltrace2 graph");
		goto end;
	}
	if (reader_graph_build(graph, &dirs, &sink, error) || reader_graph_run(graph, error))
		goto end;
	*trace = sink.trace;
	sink.trace = NULL;
	ret = 0;
end:
	bt_graph_put_ref(graph);
	fst_trace_destroy(sink.trace);
	reader_dir_list_fini(&dirs);
	return ret;
}

void
fst_trace_destroy(struct fst_trace *trace)
{
	size_t i;

	if (!trace)
		return;
	for (i = 0; i < trace->event_count; i++)
		reader_event_fini(&trace->events[i]);
	free(trace->events);
	free(trace);
}

const struct fst_event *
fst_trace_find_event(const struct fst_trace *trace, const char *name)
{
	size_t i;

	assert(trace);
	assert(name);
	for (i = 0; i < trace->event_count; i++) {
		if (strcmp(trace->events[i].name, name) == 0)
			return &trace->events[i];
	}
	return NULL;
}

const struct fst_field *
fst_event_find_field(const struct fst_event *event, const char *name)
{
	size_t i;

	assert(event);
	assert(name);
	for (i = 0; i < event->field_count; i++) {
		if (strcmp(event->fields[i].name, name) == 0)
			return &event->fields[i];
	}
	return NULL;
}

static bool
event_matches(const struct fst_event *event, const char *name, const char *field, const char *label)
{
	const struct fst_field *f;

	if (strcmp(event->name, name) != 0)
		return false;
	if (!field)
		return true;
	f = fst_event_find_field(event, field);
	return f && f->enum_label && strcmp(f->enum_label, label) == 0;
}

size_t
fst_trace_count(const struct fst_trace *trace, const char *name, const char *field,
		const char *label)
{
	size_t count = 0;

	for (size_t i = 0; i < trace->event_count; i++)
		count += event_matches(&trace->events[i], name, field, label);
	return count;
}

uint64_t
fst_trace_sum(const struct fst_trace *trace, const char *name, const char *sum_field,
	      const char *field, const char *label)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < trace->event_count; i++) {
		const struct fst_field *f;

		if (!event_matches(&trace->events[i], name, field, label))
			continue;
		f = fst_event_find_field(&trace->events[i], sum_field);
		sum += f ? f->u : 0;
	}
	return sum;
}
