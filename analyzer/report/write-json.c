/* SPDX-License-Identifier: MIT */
/*
 * The JSON report (docs/report-schema.md): {"schema_version": "1.0", SECTION: {TABLE: …}}, where
 * a one-row table is an object and any other table an array of objects keyed by column name.
 * Times and durations are integer nanoseconds, handles "0x…" strings (a u64 handle does not fit
 * a JavaScript number), unknown values null. json-glib builds it: the report is small.
 */
#include <inttypes.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "report-private.h"

static void
add_cell(JsonBuilder *b, const struct fsa_column *column, const struct fsa_cell *cell)
{
	char buf[32];

	if (cell->is_null) {
		json_builder_add_null_value(b);
		return;
	}
	switch (column->type) {
	case FSA_CELL_U64:
	case FSA_CELL_DURATION:
	case FSA_CELL_TIME:
		json_builder_add_int_value(b, (gint64) cell->u);
		break;
	case FSA_CELL_I64:
		json_builder_add_int_value(b, cell->i);
		break;
	case FSA_CELL_HANDLE:
		snprintf(buf, sizeof(buf), "0x%" PRIx64, cell->u);
		json_builder_add_string_value(b, buf);
		break;
	case FSA_CELL_F64:
		json_builder_add_double_value(b, cell->f);
		break;
	case FSA_CELL_BOOL:
		json_builder_add_boolean_value(b, cell->b);
		break;
	case FSA_CELL_STRING:
		json_builder_add_string_value(b, cell->s);
		break;
	}
}

static void
add_row(JsonBuilder *b, const struct fsa_table *t, size_t row)
{
	json_builder_begin_object(b);
	for (size_t c = 0; c < t->column_count; c++) {
		json_builder_set_member_name(b, t->columns[c].name);
		add_cell(b, &t->columns[c], fsa_table_cell(t, row, c));
	}
	json_builder_end_object(b);
}

fsa_status
fsa_report_write_json(struct fsa_report *report, GPtrArray *tables, FILE *out)
{
	JsonBuilder *b = json_builder_new();
	const char *section = NULL;

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "schema_version");
	json_builder_add_string_value(b, FSA_REPORT_SCHEMA_VERSION);
	for (size_t i = 0; i < tables->len; i++) {
		const struct fsa_table *t = tables->pdata[i];

		if (!section || strcmp(section, t->section) != 0) {
			if (section)
				json_builder_end_object(b);
			json_builder_set_member_name(b, t->section);
			json_builder_begin_object(b);
			section = t->section;
		}
		json_builder_set_member_name(b, t->name);
		if (t->is_record) {
			add_row(b, t, 0);
		} else {
			json_builder_begin_array(b);
			for (size_t r = 0; r < fsa_table_row_count(t); r++)
				add_row(b, t, r);
			json_builder_end_array(b);
		}
	}
	if (section)
		json_builder_end_object(b);
	json_builder_end_object(b);
	(void) report;

	JsonNode *root = json_builder_get_root(b);
	JsonGenerator *generator = json_generator_new();

	json_generator_set_pretty(generator, TRUE);
	json_generator_set_indent(generator, 2);
	json_generator_set_root(generator, root);

	gsize length = 0;
	gchar *text = json_generator_to_data(generator, &length);
	fsa_status status = FSA_OK;

	if (fwrite(text, 1, length, out) != length || fputc('\n', out) == EOF)
		status = FSA_ERR_IO;
	g_free(text);
	g_object_unref(generator);
	json_node_unref(root);
	g_object_unref(b);
	return status;
}
