/* SPDX-License-Identifier: MIT */
/*
 * The text report: aligned tables for a human, 120 columns wide unless --wide (a wider table is
 * split into parts that repeat its key columns), durations with an adaptive unit
 * (fsa/duration.h: 850 ns, 1.230 µs, 4.560 ms, 1.234 s, as the viewer writes them), trace times
 * in seconds (with --times relative, "+1.500 ms" since the first event, as the viewer writes
 * them), handles in hex. Scripts should read the JSON or CSV instead: this layout may change
 * between releases.
 */
#include <inttypes.h>
#include <string.h>

#include "fsa/duration.h"
#include "report-private.h"

/* --times relative: "+1.500 ms" since the first event, as the viewer's ruler and details write
 * it ("−" before it). */
static char *
relative_time_text(const struct fsa_table *t, uint64_t ns)
{
	int64_t rel = table_relative_time(t, ns);
	char buf[64];

	fsa_format_duration(buf, sizeof(buf),
			    rel < 0 ? (uint64_t) 0 - (uint64_t) rel : (uint64_t) rel);
	return g_strdup_printf("%s%s", rel < 0 ? "−" : "+", buf);
}

static char *
cell_text(const struct fsa_table *t, const struct fsa_column *column, const struct fsa_cell *cell)
{
	char buf[64];

	if (cell->is_null)
		return g_strdup("-");
	switch (column->type) {
	case FSA_CELL_U64:
		return g_strdup_printf("%" PRIu64, cell->u);
	case FSA_CELL_I64:
		return g_strdup_printf("%" PRId64, cell->i);
	case FSA_CELL_DELTA:
		fsa_format_duration(buf, sizeof(buf),
				    cell->i < 0 ? (uint64_t) 0 - (uint64_t) cell->i
						: (uint64_t) cell->i);
		return g_strdup_printf("%s%s", cell->i < 0 ? "−" : "+", buf);
	case FSA_CELL_DURATION:
		fsa_format_duration(buf, sizeof(buf), cell->u);
		return g_strdup(buf);
	case FSA_CELL_TIME:
		if (t->time_origin_ns != FSA_TIME_NONE)
			return relative_time_text(t, cell->u);
		return g_strdup_printf("%" PRIu64 ".%09" PRIu64 " s", cell->u / 1000000000,
				       cell->u % 1000000000);
	case FSA_CELL_HANDLE:
		return g_strdup_printf("0x%" PRIx64, cell->u);
	case FSA_CELL_F64:
		return g_strdup_printf("%.3f", cell->f);
	case FSA_CELL_BOOL:
		return g_strdup(cell->b ? "yes" : "no");
	case FSA_CELL_STRING:
		return g_strdup(cell->s);
	}
	return g_strdup("?");
}

static bool
is_left_aligned(const struct fsa_column *column)
{
	return column->type == FSA_CELL_STRING || column->type == FSA_CELL_BOOL;
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t
text_width(const char *s)
{
	return g_utf8_strlen(s, -1);
}

/* A left-aligned last column is not padded: no line ends in spaces. */
static void
print_padded(FILE *out, const char *text, size_t width, bool is_left, bool is_last)
{
	size_t len = text_width(text);
	size_t pad = width > len ? width - len : 0;

	if (!is_left)
		fprintf(out, "%*s", (int) pad, "");
	fputs(text, out);
	if (is_left && !is_last)
		fprintf(out, "%*s", (int) pad, "");
}

static void
print_heading(FILE *out, const char *title, char underline)
{
	size_t width = text_width(title);

	fprintf(out, "%s\n", title);
	for (size_t i = 0; i < width; i++)
		fputc(underline, out);
	fputc('\n', out);
}

static void
print_record(FILE *out, const struct fsa_table *t)
{
	size_t width = 0;

	for (size_t c = 0; c < t->column_count; c++)
		width = MAX(width, text_width(t->columns[c].title));
	for (size_t c = 0; c < t->column_count; c++) {
		char *text = cell_text(t, &t->columns[c], table_cell(t, 0, c));

		fputs("  ", out);
		print_padded(out, t->columns[c].title, width, true, false);
		fprintf(out, "  %s\n", text);
		g_free(text);
	}
}

/* Columns that name a row rather than measure it: the leading run of them is what a split
 * table repeats in each part, so every line still says which queue, fence or engine it is. */
static bool
is_key_column(const struct fsa_column *column)
{
	static const char *const names[] = {
	    "rank",           "hwqueue_handle", "fence_global_handle",
	    "context_handle", "process_id",     "name",
	    "adapter_id",     "engine_id",      "source_id",
	    "metric",         "kind",           "reason",
	    "granularity",    "ts_ns",          "from_adapter_id",
	    "to_adapter_id",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		if (strcmp(column->name, names[i]) == 0)
			return true;
	return false;
}

/* The key columns of T: its own count, else the leading identifier columns, kept to at most
 * half of LIMIT so that every part still has room for values. */
static size_t
key_column_count(const struct fsa_table *t, size_t shown, const size_t *widths, size_t limit)
{
	size_t keys = t->key_columns, width = 1;

	if (keys == 0)
		while (keys < shown && is_key_column(&t->columns[keys]))
			keys++;
	if (keys == 0 || keys >= shown)
		keys = 1;
	for (size_t c = 0; c < keys; c++) {
		width += 1 + widths[c];
		if (width > limit / 2)
			return c > 0 ? c : 1;
	}
	return keys;
}

/* One part of a table: the key columns, then columns [first, last). */
static void
print_part(FILE *out, const struct fsa_table *t, char **texts, const size_t *widths, size_t rows,
	   size_t keys, size_t first, size_t last)
{
	for (size_t r = 0; r <= rows; r++) {
		fputs(" ", out);
		for (size_t i = 0; i < keys + (last - first); i++) {
			size_t c = i < keys ? i : first + (i - keys);
			const char *text =
			    r == 0 ? t->columns[c].title : texts[(r - 1) * t->column_count + c];

			fputc(' ', out);
			print_padded(out, text, widths[c], is_left_aligned(&t->columns[c]),
				     c + 1 == last);
		}
		fputc('\n', out);
	}
}

/* The end of the part that starts at column FIRST: columns while the line fits TARGET (at
 * least one column). */
static size_t
split_next(const size_t *widths, size_t count, size_t key_width, size_t first, size_t target)
{
	size_t last = first + 1, width = key_width + 1 + widths[first];

	while (last < count && width + 1 + widths[last] <= target)
		width += 1 + widths[last++];
	return last;
}

static size_t
split_parts(const size_t *widths, size_t count, size_t keys, size_t key_width, size_t target)
{
	size_t parts = 0;

	for (size_t first = keys; first < count; parts++)
		first = split_next(widths, count, key_width, first, target);
	return parts;
}

/* A table wider than LIMIT (0: no limit) is written in parts that fit, one after another, each
 * repeating the key columns: a reader of a 120-column terminal never sees a line wrap. */
static void
print_table(FILE *out, const struct fsa_table *t, size_t limit)
{
	/* The columns text shows (the others are for JSON and CSV). */
	size_t shown = t->text_column_count && t->text_column_count < t->column_count
			   ? t->text_column_count
			   : t->column_count;
	size_t rows = table_row_count(t);
	size_t *widths = g_new0(size_t, t->column_count);
	char **texts = g_new0(char *, rows * t->column_count);
	size_t total = 1;

	if (rows == 0) {
		fprintf(out, "  (%s)\n", t->empty_text ? t->empty_text : "none");
		g_free(widths);
		g_free(texts);
		return;
	}
	for (size_t c = 0; c < shown; c++)
		widths[c] = text_width(t->columns[c].title);
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < shown; c++) {
			char *text = cell_text(t, &t->columns[c], table_cell(t, r, c));

			texts[r * t->column_count + c] = text;
			widths[c] = MAX(widths[c], text_width(text));
		}
	}
	for (size_t c = 0; c < shown; c++)
		total += 1 + widths[c];
	if (limit == 0 || total <= limit) {
		print_part(out, t, texts, widths, rows, 0, 0, shown);
	} else {
		size_t keys = key_column_count(t, shown, widths, limit), key_width = 1;

		for (size_t c = 0; c < keys; c++)
			key_width += 1 + widths[c];
		size_t parts = split_parts(widths, shown, keys, key_width, limit);
		size_t values = 0, target;

		/* As many parts as a greedy fill needs, but balanced: no part of one lone column.
		 */
		for (size_t c = keys; c < shown; c++)
			values += 1 + widths[c];
		target = MIN(limit, key_width + (values + parts - 1) / parts);
		while (target < limit &&
		       split_parts(widths, shown, keys, key_width, target) > parts)
			target++;
		for (size_t first = keys; first < shown;) {
			size_t last = split_next(widths, shown, key_width, first, target);

			if (first > keys)
				fputc('\n', out);
			print_part(out, t, texts, widths, rows, keys, first, last);
			first = last;
		}
	}
	for (size_t i = 0; i < rows * t->column_count; i++)
		g_free(texts[i]);
	g_free(texts);
	g_free(widths);
}

fsa_status
tables_write_text(GPtrArray *tables, const char *title, const char *partial, size_t limit,
		  FILE *out)
{
	const char *section = NULL;

	fprintf(out, "%s\n", title);
	if (partial)
		fprintf(out, "PARTIAL: %s\n", partial);
	for (size_t i = 0; i < tables->len; i++) {
		const struct fsa_table *t = tables->pdata[i];

		if (!section || strcmp(section, t->section) != 0) {
			char *upper = g_ascii_strup(t->section, -1);

			fprintf(out, "\n");
			print_heading(out, upper, '=');
			g_free(upper);
			section = t->section;
		}
		fprintf(out, "\n");
		print_heading(out, t->title, '-');
		if (t->is_record)
			print_record(out, t);
		else
			print_table(out, t, limit);
	}
	return ferror(out) ? FSA_ERR_IO : FSA_OK;
}

fsa_status
report_write_text(struct fsa_report *report, GPtrArray *tables, FILE *out)
{
	char *title = report->trace_path
			  ? g_strdup_printf("fencescope report  %s", report->trace_path)
			  : g_strdup("fencescope report");
	fsa_status status =
	    tables_write_text(tables, title, report->partial_reason,
			      report->options.is_text_wide ? 0 : FSA_REPORT_TEXT_COLUMNS, out);

	g_free(title);
	return status;
}
