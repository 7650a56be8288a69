/* SPDX-License-Identifier: MIT */

/*
 * Test helper that reads a whole CTF trace, as LTTng records it, into memory
 * through the libbabeltrace2 C API (src.ctf.fs -> flt.utils.muxer -> a simple
 * sink), so tests can assert on event names, timestamps and payload field
 * values with plain C. It keeps only what tests look at: event class names,
 * default clock snapshots, top-level payload fields (integers, enumerations,
 * strings, arrays of unsigned integers) and discarded-events/packets counts.
 * It is not an analyzer: it loads everything at once, drops stream, packet and
 * context fields, and is meant for the small traces tests record.
 */

#ifndef FENCESCOPE_TESTS_TRACE_READER_H
#define FENCESCOPE_TESTS_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fst_field_kind {
	FST_FIELD_UNSIGNED,
	FST_FIELD_SIGNED,
	FST_FIELD_STRING,
	FST_FIELD_UNSIGNED_ARRAY,
	FST_FIELD_OTHER,
};

/*
 * One top-level payload field. Only the members that match `kind` carry a
 * value; the others are zero or NULL.
 */
struct fst_field {
	/* Member name as babeltrace reports it (LTTng sequence lengths included). */
	char *name;
	enum fst_field_kind kind;
	/* The field class is an enumeration (unsigned or signed). */
	bool is_enum;
	/* First mapping label for the value; NULL if none or not an enumeration. */
	char *enum_label;
	/*
	 * Field value range in bits for integers (e.g. 32, 64); for
	 * FST_FIELD_UNSIGNED_ARRAY, the element's range. 0 otherwise.
	 */
	unsigned int bits;
	/* FST_FIELD_UNSIGNED (also unsigned enumerations). */
	uint64_t u;
	/* FST_FIELD_SIGNED (also signed enumerations). */
	int64_t s;
	/* FST_FIELD_STRING. */
	char *str;
	/*
	 * FST_FIELD_UNSIGNED_ARRAY: elements of a static or dynamic array of
	 * unsigned integers; NULL when array_len is 0.
	 */
	uint64_t *array;
	size_t array_len;
};

struct fst_event {
	/* Event class name as recorded, e.g. "fencescope_umd:fence_wait_queued". */
	char *name;
	/* Default clock snapshot in ns from the clock's origin, 0 if none. */
	int64_t ts_ns;
	/*
	 * The same snapshot's raw value in clock cycles, before the clock class's offset is
	 * added: for LTTng's default clock (1 GHz) the CLOCK_MONOTONIC reading in ns.
	 */
	uint64_t clock_value;
	size_t field_count;
	/* Top-level payload fields, in declaration order. */
	struct fst_field *fields;
};

struct fst_trace {
	size_t event_count;
	/* Events of every stream of every trace found, in muxed time order. */
	struct fst_event *events;
	/* Sum of discarded-events message counts (an unknown count counts as 1). */
	uint64_t discarded_events;
	/* Sum of discarded-packets message counts (an unknown count counts as 1). */
	uint64_t discarded_packets;
};

/*
 * Reads every CTF trace found at or below `path` into memory.
 *
 * `path` is a CTF trace directory (one that contains `metadata`) or any
 * directory above it, such as an LTTng session output folder: every directory
 * below `path` that directly contains a file named `metadata` is read (with
 * one src.ctf.fs component per trace UUID), and flt.utils.muxer merges all
 * streams by time. Symbolic links to directories are not followed.
 *
 * On success returns 0, sets *trace (transfer full: release with
 * fst_trace_destroy()) and sets *error to NULL. On failure returns -1, sets
 * *trace to NULL and sets *error (transfer full: release with free()) to a
 * one-line message, or to NULL if even that message could not be allocated.
 * `error` may be NULL when the caller does not want the message.
 */
int fst_trace_read(const char *path, struct fst_trace **trace, char **error);

/* Releases `trace` and everything it holds. NULL is allowed. */
void fst_trace_destroy(struct fst_trace *trace);

/*
 * Returns: (transfer none) (nullable) the first event, in time order, whose
 * name is `name`, or NULL.
 */
const struct fst_event *fst_trace_find_event(const struct fst_trace *trace, const char *name);

/*
 * Events named `name`; with `field` non-NULL, only those whose enumeration field `field` has
 * the label `label`.
 */
size_t fst_trace_count(const struct fst_trace *trace, const char *name, const char *field,
		       const char *label);

/* Sum of the unsigned field `sum_field` over the events fst_trace_count() would count. */
uint64_t fst_trace_sum(const struct fst_trace *trace, const char *name, const char *sum_field,
		       const char *field, const char *label);

/*
 * Returns: (transfer none) (nullable) the first top-level payload field of
 * `event` named `name`, or NULL.
 */
const struct fst_field *fst_event_find_field(const struct fst_event *event, const char *name);

#endif /* FENCESCOPE_TESTS_TRACE_READER_H */
