/* SPDX-License-Identifier: MIT */
/*
 * What the contract tests expect: the events of contract-events.h as data (the values
 * fire-all sends), and the event and enumeration tables of docs/trace-format.md as parsed
 * from the document itself. Both contract tests compare these; neither talks to LTTng here.
 */
#ifndef FENCESCOPE_CONTRACT_EXPECT_H
#define FENCESCOPE_CONTRACT_EXPECT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum fstc_kind {
	FSTC_KIND_UNSIGNED,
	FSTC_KIND_SIGNED,
	FSTC_KIND_STRING,
	FSTC_KIND_ARRAY,
};

struct fstc_field {
	const char *name;
	const char *doc_type; /* the type as docs/trace-format.md writes it */
	enum fstc_kind kind;
	unsigned int bits;
	bool is_enum;
	uint64_t u;
	int64_t s;
	const char *str;
	const char *label;
	const uint64_t *array;
	size_t array_len;
};

struct fstc_event {
	const char *name; /* "provider:event" */
	size_t field_count;
	const struct fstc_field *fields;
};

/* The contract table, in the order fire-all fires it. */
extern const struct fstc_event fstc_events[];
extern const size_t fstc_event_count;

/* One event of the document, with its field names and types as written. */
struct fstc_doc_event {
	char *name;
	size_t field_count;
	char **field_names;
	char **field_types;
};

/* One enumeration member of the document's enumeration table. */
struct fstc_doc_enum_value {
	char *enumeration;
	char *label;
	long long value;
};

struct fstc_doc {
	char *format_version; /* "1.0", from the line "Format version: **1.0**" */
	size_t event_count;
	struct fstc_doc_event *events;
	size_t enum_value_count;
	struct fstc_doc_enum_value *enum_values;
};

/*
 * Parses docs/trace-format.md (its path is built into the tests). Returns NULL and writes
 * a one-line reason to `error` (of `error_size` bytes) when the file is missing or malformed.
 */
struct fstc_doc *fstc_doc_load(char *error, size_t error_size);
void fstc_doc_destroy(struct fstc_doc *doc);
const struct fstc_doc_event *fstc_doc_find_event(const struct fstc_doc *doc, const char *name);

#endif /* FENCESCOPE_CONTRACT_EXPECT_H */
