/* SPDX-License-Identifier: MIT */
/*
 * The CSV report (docs/report-schema.md "CSV"): one table after another, each a header row and
 * its data rows, separated by an empty line. Every row starts with the section and table names,
 * so `grep '^latency,queues,'` (or a CSV reader that skips other tables) picks one table.
 * Values are raw: integer nanoseconds, "0x…" handles, true/false, an empty field for unknown.
 */
#include <inttypes.h>
#include <string.h>

#include "report-private.h"

static void
put_string(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void
put_cell(FILE *out, const struct fsa_table *t, const struct fsa_column *column,
	 const struct fsa_cell *cell)
{
	if (cell->is_null)
		return;
	switch (column->type) {
	case FSA_CELL_TIME:
		/* --times relative: signed ns since the first event. */
		if (t->time_origin_ns != FSA_TIME_NONE) {
			fprintf(out, "%" PRId64, table_relative_time(t, cell->u));
			break;
		}
		fprintf(out, "%" PRIu64, cell->u);
		break;
	case FSA_CELL_U64:
	case FSA_CELL_DURATION:
		fprintf(out, "%" PRIu64, cell->u);
		break;
	case FSA_CELL_I64:
	case FSA_CELL_DELTA:
		fprintf(out, "%" PRId64, cell->i);
		break;
	case FSA_CELL_HANDLE:
		fprintf(out, "0x%" PRIx64, cell->u);
		break;
	case FSA_CELL_F64:
		fprintf(out, "%.17g", cell->f);
		break;
	case FSA_CELL_BOOL:
		fputs(cell->b ? "true" : "false", out);
		break;
	case FSA_CELL_STRING:
		put_string(out, cell->s);
		break;
	}
}

fsa_status
report_write_csv(struct fsa_report *report, GPtrArray *tables, FILE *out)
{
	(void) report;
	for (size_t i = 0; i < tables->len; i++) {
		const struct fsa_table *t = tables->pdata[i];

		if (i > 0)
			fputc('\n', out);
		fputs("section,table", out);
		for (size_t c = 0; c < t->column_count; c++)
			fprintf(out, ",%s", t->columns[c].name);
		fputc('\n', out);
		for (size_t r = 0; r < table_row_count(t); r++) {
			fprintf(out, "%s,%s", t->section, t->name);
			for (size_t c = 0; c < t->column_count; c++) {
				fputc(',', out);
				put_cell(out, t, &t->columns[c], table_cell(t, r, c));
			}
			fputc('\n', out);
		}
	}
	return ferror(out) ? FSA_ERR_IO : FSA_OK;
}
