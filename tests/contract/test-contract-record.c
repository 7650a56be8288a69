/* SPDX-License-Identifier: MIT */
/*
 * The trace contract's guard, end to end: record fire-all (every event of
 * docs/trace-format.md, once, with distinctive values) in a real LTTng session run by a
 * private lttng-sessiond, read the trace back through the libbabeltrace2 C API, and check
 * that every event and every field arrived with the name, type and value sent.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "contract-expect.h"
#include "lttng-harness.h"
#include "trace-reader.h"

static char trace_dir[] = "/tmp/fstc-trace-XXXXXX";
static struct fst_trace *trace;
static struct fstc_doc *doc;

static void
record_fire_all(void)
{
	const char *const argv[] = {FSTC_FIRE_ALL, NULL};
	struct fst_record_options options = {
	    .argv = argv,
	    .event_pattern = "fencescope_*",
	    .timeout_s = 90,
	};
	char doc_error[256] = "";
	char *error = NULL;

	cr_assert_not_null(mkdtemp(trace_dir));
	options.output_dir = trace_dir;
	cr_assert_eq(fst_lttng_record(&options, &error), 0, "recording failed: %s", error);
	cr_assert_eq(fst_trace_read(trace_dir, &trace, &error), 0, "reading failed: %s", error);
	doc = fstc_doc_load(doc_error, sizeof(doc_error));
	cr_assert_not_null(doc, "%s", doc_error);
}

static void
remove_trace(void)
{
	fst_trace_destroy(trace);
	fstc_doc_destroy(doc);
	fst_remove_tree(trace_dir);
}

TestSuite(contract, .init = record_fire_all, .fini = remove_trace, .timeout = 110);

static void
expect_field(const char *event, const struct fst_field *got, const struct fstc_field *want)
{
	cr_expect_str_eq(got->name, want->name, "%s: field name", event);
	cr_expect_eq(got->is_enum, want->is_enum, "%s.%s: enumeration or not", event, want->name);
	switch (want->kind) {
	case FSTC_KIND_UNSIGNED:
		cr_assert_eq(got->kind, FST_FIELD_UNSIGNED, "%s.%s: not unsigned", event,
			     want->name);
		cr_expect_eq(got->bits, want->bits, "%s.%s: %u bits", event, want->name, got->bits);
		cr_expect_eq(got->u, want->u, "%s.%s: %#llx, sent %#llx", event, want->name,
			     (unsigned long long) got->u, (unsigned long long) want->u);
		break;
	case FSTC_KIND_SIGNED:
		cr_assert_eq(got->kind, FST_FIELD_SIGNED, "%s.%s: not signed", event, want->name);
		cr_expect_eq(got->bits, want->bits, "%s.%s: %u bits", event, want->name, got->bits);
		cr_expect_eq(got->s, want->s, "%s.%s: %lld, sent %lld", event, want->name,
			     (long long) got->s, (long long) want->s);
		break;
	case FSTC_KIND_STRING:
		cr_assert_eq(got->kind, FST_FIELD_STRING, "%s.%s: not a string", event, want->name);
		cr_expect_str_eq(got->str, want->str, "%s.%s", event, want->name);
		break;
	case FSTC_KIND_ARRAY:
		cr_assert_eq(got->kind, FST_FIELD_UNSIGNED_ARRAY, "%s.%s: not an array", event,
			     want->name);
		cr_assert_eq(got->array_len, want->array_len, "%s.%s: length", event, want->name);
		for (size_t i = 0; i < want->array_len; i++)
			cr_expect_eq(got->array[i], want->array[i], "%s.%s[%zu]", event, want->name,
				     i);
		break;
	}
	if (want->is_enum)
		cr_expect(got->enum_label && strcmp(got->enum_label, want->label) == 0,
			  "%s.%s: label %s, sent %s", event, want->name,
			  got->enum_label ? got->enum_label : "(none)", want->label);
}

Test(contract, nothing_was_discarded_and_nothing_else_was_recorded)
{
	cr_expect_eq(trace->discarded_events, 0);
	cr_expect_eq(trace->discarded_packets, 0);
	cr_expect_eq(trace->event_count, fstc_event_count, "recorded %zu events, fired %zu",
		     trace->event_count, fstc_event_count);
}

Test(contract, every_event_arrives_in_order_with_every_field_and_value_sent)
{
	cr_assert_geq(trace->event_count, fstc_event_count);
	for (size_t i = 0; i < fstc_event_count; i++) {
		const struct fstc_event *want = &fstc_events[i];
		const struct fst_event *got = &trace->events[i];

		cr_assert_str_eq(got->name, want->name, "event %zu", i);
		cr_assert_eq(got->field_count, want->field_count, "%s: %zu fields, sent %zu",
			     want->name, got->field_count, want->field_count);
		for (size_t j = 0; j < want->field_count; j++)
			expect_field(want->name, &got->fields[j], &want->fields[j]);
	}
}

Test(contract, every_documented_event_is_in_the_trace_with_the_documented_fields)
{
	for (size_t i = 0; i < doc->event_count; i++) {
		const struct fstc_doc_event *documented = &doc->events[i];
		const struct fst_event *got = fst_trace_find_event(trace, documented->name);

		cr_assert_not_null(got, "%s is documented but was not recorded", documented->name);
		cr_assert_eq(got->field_count, documented->field_count, "%s: field count",
			     documented->name);
		for (size_t j = 0; j < got->field_count; j++)
			cr_expect_str_eq(got->fields[j].name, documented->field_names[j], "%s",
					 documented->name);
	}
}

Test(contract, babeltrace2_cli_prints_every_event_once)
{
	char command[256];
	char line[4096];
	size_t *seen = calloc(fstc_event_count, sizeof(*seen));
	FILE *output;

	snprintf(command, sizeof(command), "babeltrace2 '%s' 2>&1", trace_dir);
	output = popen(command, "r");
	cr_assert_not_null(output);
	while (fgets(line, sizeof(line), output)) {
		for (size_t i = 0; i < fstc_event_count; i++) {
			char needle[128];

			snprintf(needle, sizeof(needle), " %s: ", fstc_events[i].name);
			seen[i] += strstr(line, needle) != NULL;
		}
	}
	cr_expect_eq(pclose(output), 0, "babeltrace2 failed");
	for (size_t i = 0; i < fstc_event_count; i++)
		cr_expect_eq(seen[i], 1, "babeltrace2 printed %s %zu times", fstc_events[i].name,
			     seen[i]);
	free(seen);
}
