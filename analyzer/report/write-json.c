/* SPDX-License-Identifier: MIT */
/*
 * The JSON report (docs/report-schema.md): {"schema_version": "1.0", SECTION: {TABLE: …}}, where
 * a one-row table is an object and any other table an array of objects keyed by column name.
 * Times and durations are integer nanoseconds, handles "0x…" strings, unknown values null;
 * integers of 2^53 and above are decimal strings and every control character is escaped
 * (fsa/json.h), so the report is strict JSON that jq and Python read exactly. Written straight to
 * the stream, two spaces of indent per level.
 */
#include <inttypes.h>
#include <string.h>

#include "fsa/json.h"
#include "report-private.h"

static void
indent(FILE *out, int level)
{
	fputc('\n', out);
	for (int i = 0; i < level; i++)
		fputs("  ", out);
}

static void
put_cell(FILE *out, const struct fsa_table *t, const struct fsa_column *column,
	 const struct fsa_cell *cell)
{
	if (cell->is_null) {
		fputs("null", out);
		return;
	}
	switch (column->type) {
	case FSA_CELL_TIME:
		/* --times relative: signed ns since the first event. */
		if (t->time_origin_ns != FSA_TIME_NONE) {
			fsa_json_write_i64(out, table_relative_time(t, cell->u));
			break;
		}
		fsa_json_write_u64(out, cell->u);
		break;
	case FSA_CELL_U64:
	case FSA_CELL_DURATION:
		fsa_json_write_u64(out, cell->u);
		break;
	case FSA_CELL_I64:
	case FSA_CELL_DELTA:
		fsa_json_write_i64(out, cell->i);
		break;
	case FSA_CELL_HANDLE:
		fprintf(out, "\"0x%" PRIx64 "\"", cell->u);
		break;
	case FSA_CELL_F64:
		fsa_json_write_double(out, cell->f);
		break;
	case FSA_CELL_BOOL:
		fputs(cell->b ? "true" : "false", out);
		break;
	case FSA_CELL_STRING:
		fsa_json_write_string(out, cell->s);
		break;
	}
}

/* "name" : */
static void
put_key(FILE *out, const char *name)
{
	fsa_json_write_string(out, name);
	fputs(" : ", out);
}

static void
put_row(FILE *out, const struct fsa_table *t, size_t row, int level)
{
	fputc('{', out);
	for (size_t c = 0; c < t->column_count; c++) {
		if (c)
			fputc(',', out);
		indent(out, level + 1);
		put_key(out, t->columns[c].name);
		put_cell(out, t, &t->columns[c], table_cell(t, row, c));
	}
	indent(out, level);
	fputc('}', out);
}

fsa_status
report_write_json(struct fsa_report *report, GPtrArray *tables, FILE *out)
{
	(void) report;
	return tables_write_json(tables, FSA_REPORT_SCHEMA_VERSION, out);
}

fsa_status
tables_write_json(GPtrArray *tables, const char *schema_version, FILE *out)
{
	const char *section = NULL;

	fputc('{', out);
	indent(out, 1);
	put_key(out, "schema_version");
	fsa_json_write_string(out, schema_version);
	for (size_t i = 0; i < tables->len; i++) {
		const struct fsa_table *t = tables->pdata[i];
		size_t rows = table_row_count(t);

		if (!section || strcmp(section, t->section) != 0) {
			if (section) {
				indent(out, 1);
				fputc('}', out);
			}
			fputc(',', out);
			indent(out, 1);
			put_key(out, t->section);
			fputc('{', out);
			section = t->section;
		} else {
			fputc(',', out);
		}
		indent(out, 2);
		put_key(out, t->name);
		if (t->is_record) {
			put_row(out, t, 0, 2);
			continue;
		}
		fputc('[', out);
		for (size_t r = 0; r < rows; r++) {
			if (r)
				fputc(',', out);
			indent(out, 3);
			put_row(out, t, r, 3);
		}
		if (rows)
			indent(out, 2);
		fputc(']', out);
	}
	if (section) {
		indent(out, 1);
		fputc('}', out);
	}
	fputs("\n}\n", out);
	return ferror(out) ? FSA_ERR_IO : FSA_OK;
}
