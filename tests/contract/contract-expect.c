/* SPDX-License-Identifier: MIT */
/*
 * The contract table as data, and a small reader of the tables of docs/trace-format.md. The
 * document is the contract; this file only knows its two table shapes: an event is a heading
 * "#### `provider:event`" followed by a table whose rows start "| `field` | type |", and the
 * enumerations table has rows "| `name` | LABEL = value, ... |" after the heading
 * "## Enumerations".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract-expect.h"
#include "contract-events.h"

#define FSTC_INT_(name_, type_, bits_, value_)                                                     \
	{.name = #name_, .doc_type = type_, .kind = FSTC_KIND_UNSIGNED, .bits = bits_, .u = value_},
#define FSTC_U8(name, value)  FSTC_INT_(name, "u8", 8, value)
#define FSTC_U16(name, value) FSTC_INT_(name, "u16", 16, value)
#define FSTC_U32(name, value) FSTC_INT_(name, "u32", 32, value)
#define FSTC_U64(name, value) FSTC_INT_(name, "u64", 64, value)
#define FSTC_HEX(name, value) FSTC_INT_(name, "u64 hex", 64, value)
#define FSTC_STR(name_, value_)                                                                    \
	{.name = #name_, .doc_type = "string", .kind = FSTC_KIND_STRING, .str = value_},
#define FSTC_ENUM_u8  FSTC_KIND_UNSIGNED, 8
#define FSTC_ENUM_u16 FSTC_KIND_UNSIGNED, 16
#define FSTC_ENUM_s8  FSTC_KIND_SIGNED, 8
#define FSTC_ENUM_FIELD_(name_, type_, kind_, bits_, value_, label_)                               \
	{.name = #name_,                                                                           \
	 .doc_type = type_,                                                                        \
	 .kind = kind_,                                                                            \
	 .bits = bits_,                                                                            \
	 .is_enum = true,                                                                          \
	 .u = (uint64_t) (value_),                                                                 \
	 .s = (value_),                                                                            \
	 .label = label_},
#define FSTC_ENUM_EXPAND_(...) FSTC_ENUM_FIELD_(__VA_ARGS__)
#define FSTC_ENUM(name, enumeration, backing, value, label)                                        \
	FSTC_ENUM_EXPAND_(name, "enum " #enumeration " : " #backing, FSTC_ENUM_##backing, value,   \
			  label)
/* LTTng writes the length of a sequence as a field of its own, `_<name>_length`, just before it. */
#define FSTC_SEQ(name_, count_, ...)                                                               \
	{.name = "_" #name_ "_length",                                                             \
	 .doc_type = "u32",                                                                        \
	 .kind = FSTC_KIND_UNSIGNED,                                                               \
	 .bits = 32,                                                                               \
	 .u = count_},                                                                             \
	    {.name = #name_,                                                                       \
	     .doc_type = "u64[]",                                                                  \
	     .kind = FSTC_KIND_ARRAY,                                                              \
	     .bits = 64,                                                                           \
	     .array = (const uint64_t[]){__VA_ARGS__},                                             \
	     .array_len = count_},
#define FSTC_FIELDS_(...) ((const struct fstc_field[]){__VA_ARGS__})
#define FSTC_EVENT(provider, event, fields_)                                                       \
	{.name = #provider ":" #event,                                                             \
	 .fields = FSTC_FIELDS_(fields_),                                                          \
	 .field_count = sizeof(FSTC_FIELDS_(fields_)) / sizeof(struct fstc_field)},

const struct fstc_event fstc_events[] = {FSTC_CONTRACT_EVENTS};
const size_t fstc_event_count = sizeof(fstc_events) / sizeof(fstc_events[0]);

static char *
trim_dup(const char *begin, const char *end)
{
	while (begin < end && (*begin == ' ' || *begin == '`'))
		begin++;
	while (end > begin && (end[-1] == ' ' || end[-1] == '`'))
		end--;
	return strndup(begin, (size_t) (end - begin));
}

/* Splits "| a | b | c |" into at most `max` trimmed cells; returns how many. */
static size_t
split_row(const char *line, char **cells, size_t max)
{
	size_t n = 0;
	const char *p = strchr(line, '|');

	while (p && n < max) {
		const char *next = strchr(p + 1, '|');

		if (!next)
			break;
		cells[n++] = trim_dup(p + 1, next);
		p = next;
	}
	return n;
}

static void
free_cells(char **cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(cells[i]);
}

static void
add_enum_values(struct fstc_doc *doc, const char *enumeration, const char *list)
{
	char *copy = strdup(list);
	char *save = NULL;

	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char label[128];
		long long value;

		if (sscanf(item, " %127[A-Z0-9_] = %lld", label, &value) != 2)
			continue;
		doc->enum_values = realloc(doc->enum_values,
					   (doc->enum_value_count + 1) * sizeof(*doc->enum_values));
		doc->enum_values[doc->enum_value_count++] = (struct fstc_doc_enum_value){
		    .enumeration = strdup(enumeration), .label = strdup(label), .value = value};
	}
	free(copy);
}

struct fstc_doc *
fstc_doc_load(char *error, size_t error_size)
{
	FILE *file = fopen(FSTC_TRACE_FORMAT_MD, "r");
	struct fstc_doc *doc = NULL;
	struct fstc_doc_event *event = NULL;
	bool in_enums = false;
	char *line = NULL;
	size_t line_size = 0;

	if (!file) {
		snprintf(error, error_size, "cannot open %s", FSTC_TRACE_FORMAT_MD);
		goto end;
	}
	doc = calloc(1, sizeof(*doc));
	while (getline(&line, &line_size, file) > 0) {
		char *cells[4];
		size_t n;

		if (strncmp(line, "Format version: **", 18) == 0) {
			free(doc->format_version);
			doc->format_version = strndup(line + 18, strcspn(line + 18, "*"));
			continue;
		}
		if (line[0] == '#') {
			event = NULL;
			in_enums = strncmp(line, "## Enumerations", 15) == 0;
			if (strncmp(line, "#### `", 6) == 0) {
				doc->events = realloc(doc->events, (doc->event_count + 1) *
								       sizeof(*doc->events));
				event = &doc->events[doc->event_count++];
				*event = (struct fstc_doc_event){
				    .name = strndup(line + 6, strcspn(line + 6, "`"))};
			}
			continue;
		}
		if (line[0] != '|' || strncmp(line, "|---", 4) == 0)
			continue;
		n = split_row(line, cells, 4);
		if (event && n == 4 && strcmp(cells[0], "field") != 0) {
			event->field_names =
			    realloc(event->field_names, (event->field_count + 1) * sizeof(char *));
			event->field_types =
			    realloc(event->field_types, (event->field_count + 1) * sizeof(char *));
			event->field_names[event->field_count] = strdup(cells[0]);
			event->field_types[event->field_count] = strdup(cells[1]);
			event->field_count++;
		} else if (in_enums && n == 2 && strcmp(cells[0], "enumeration") != 0) {
			add_enum_values(doc, cells[0], cells[1]);
		}
		free_cells(cells, n);
	}
	if (doc->event_count == 0 || !doc->format_version) {
		snprintf(error, error_size, "%s: no event tables or no format version line",
			 FSTC_TRACE_FORMAT_MD);
		fstc_doc_destroy(doc);
		doc = NULL;
	}
end:
	free(line);
	if (file)
		fclose(file);
	return doc;
}

void
fstc_doc_destroy(struct fstc_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->event_count; i++) {
		for (size_t j = 0; j < doc->events[i].field_count; j++) {
			free(doc->events[i].field_names[j]);
			free(doc->events[i].field_types[j]);
		}
		free(doc->events[i].field_names);
		free(doc->events[i].field_types);
		free(doc->events[i].name);
	}
	for (size_t i = 0; i < doc->enum_value_count; i++) {
		free(doc->enum_values[i].enumeration);
		free(doc->enum_values[i].label);
	}
	free(doc->enum_values);
	free(doc->events);
	free(doc->format_version);
	free(doc);
}

const struct fstc_doc_event *
fstc_doc_find_event(const struct fstc_doc *doc, const char *name)
{
	for (size_t i = 0; i < doc->event_count; i++)
		if (strcmp(doc->events[i].name, name) == 0)
			return &doc->events[i];
	return NULL;
}
