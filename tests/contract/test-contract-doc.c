/* SPDX-License-Identifier: MIT */
/*
 * The contract on paper: docs/trace-format.md, the contract table that fire-all sends, and
 * the enumerations of tracepoints/fencescope-tp-enums.h must agree event by event, field by
 * field and value by value. The recording half of the guard is test-contract-record.c.
 */
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>

#include "contract-expect.h"
#include "fencescope-tp-enums.h"

static struct fstc_doc *doc;

static void
load_doc(void)
{
	char error[256] = "";

	doc = fstc_doc_load(error, sizeof(error));
	cr_assert_not_null(doc, "%s", error);
}

static void
free_doc(void)
{
	fstc_doc_destroy(doc);
}

TestSuite(contract_doc, .init = load_doc, .fini = free_doc);

Test(contract_doc, format_version_is_the_one_the_runtime_emits)
{
	char version[32];

	snprintf(version, sizeof(version), "%d.%d", FSTP_FORMAT_MAJOR, FSTP_FORMAT_MINOR);
	cr_expect_str_eq(doc->format_version, version);
}

Test(contract_doc, every_contract_event_is_documented_with_its_fields_in_order)
{
	for (size_t i = 0; i < fstc_event_count; i++) {
		const struct fstc_event *event = &fstc_events[i];
		const struct fstc_doc_event *documented = fstc_doc_find_event(doc, event->name);

		cr_assert_not_null(documented, "%s is not in docs/trace-format.md", event->name);
		cr_assert_eq(documented->field_count, event->field_count,
			     "%s: %zu fields documented, %zu in the contract table", event->name,
			     documented->field_count, event->field_count);
		for (size_t j = 0; j < event->field_count; j++) {
			cr_expect_str_eq(documented->field_names[j], event->fields[j].name,
					 "%s: field %zu", event->name, j);
			cr_expect_str_eq(documented->field_types[j], event->fields[j].doc_type,
					 "%s.%s: type", event->name, event->fields[j].name);
		}
	}
}

Test(contract_doc, every_documented_event_is_in_the_contract_table_once)
{
	for (size_t i = 0; i < doc->event_count; i++) {
		size_t found = 0;

		for (size_t j = 0; j < fstc_event_count; j++)
			found += strcmp(fstc_events[j].name, doc->events[i].name) == 0;
		cr_expect_eq(found, 1,
			     "%s is documented but appears %zu times in the contract table",
			     doc->events[i].name, found);
	}
	cr_expect_eq(doc->event_count, fstc_event_count);
}

struct enum_member {
	const char *enumeration;
	const char *label;
	long long value;
};

#define MEMBER_(prefix, name, val) {.label = #name, .value = (val)},
#define ENUMERATION_(type, prefix)                                                                 \
	{#type,                                                                                    \
	 sizeof((struct enum_member[]){FSTP_##prefix(MEMBER_, prefix)}) /                          \
	     sizeof(struct enum_member),                                                           \
	 (struct enum_member[]){FSTP_##prefix(MEMBER_, prefix)}},

static const struct {
	const char *name;
	size_t count;
	const struct enum_member *members;
} enumerations[] = {FSTP_ENUMERATIONS(ENUMERATION_)};

Test(contract_doc, enumerations_have_the_documented_values)
{
	size_t total = 0;

	for (size_t i = 0; i < sizeof(enumerations) / sizeof(enumerations[0]); i++) {
		for (size_t m = 0; m < enumerations[i].count; m++) {
			const struct enum_member *member = &enumerations[i].members[m];
			bool found = false;

			for (size_t d = 0; d < doc->enum_value_count && !found; d++) {
				const struct fstc_doc_enum_value *v = &doc->enum_values[d];

				found = strcmp(v->enumeration, enumerations[i].name) == 0 &&
					strcmp(v->label, member->label) == 0 &&
					v->value == member->value;
			}
			cr_expect(found, "%s: %s = %lld is not in the enumerations table",
				  enumerations[i].name, member->label, member->value);
		}
		total += enumerations[i].count;
	}
	cr_expect_eq(doc->enum_value_count, total,
		     "the document lists %zu enumeration values, the header %zu",
		     doc->enum_value_count, total);
}
