/* SPDX-License-Identifier: MIT */
/*
 * The words a user types for a report: durations ("1.5s", "200ms"), times (a duration, or
 * "+DURATION" from the trace's first event), section lists and format names. Every error is
 * one line that quotes what was typed, because it goes straight to stderr.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-private.h"

void
report_set_error(char **error_message, const char *format, ...)
{
	va_list args;
	char *message = NULL;

	if (!error_message)
		return;
	va_start(args, format);
	if (vasprintf(&message, format, args) < 0)
		message = NULL;
	va_end(args);
	free(*error_message);
	*error_message = message;
}

static const struct {
	const char *suffix;
	double ns;
} units[] = {
    {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9},
};

fsa_status
report_parse_number_unit(const char *text, double *number, const char **unit_end, double *unit_ns,
			 bool *has_unit)
{
	const char *p = text;
	char *end = NULL;

	while (isspace((unsigned char) *p))
		p++;
	if (!isdigit((unsigned char) *p) && *p != '.')
		return FSA_ERR_INVALID;
	errno = 0;
	*number = strtod(p, &end);
	if (end == p || errno != 0 || !isfinite(*number) || *number < 0)
		return FSA_ERR_INVALID;
	/* strtod accepts hex and exponents: only plain decimals are durations. */
	for (const char *c = p; c < end; c++)
		if (!isdigit((unsigned char) *c) && *c != '.')
			return FSA_ERR_INVALID;
	*has_unit = false;
	*unit_ns = 1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t len = strlen(units[i].suffix);

		if (strncmp(end, units[i].suffix, len) == 0 && !isalpha((unsigned char) end[len])) {
			*unit_ns = units[i].ns;
			*has_unit = true;
			end += len;
			break;
		}
	}
	*unit_end = end;
	return FSA_OK;
}

/* -Wpedantic: 128-bit integers are a GNU extension, which gcc and clang both have. */
__extension__ typedef unsigned __int128 u128;

/*
 * The decimal at the start of `text` (digits, at most one '.', as report_parse_number_unit
 * checked) times `unit_ns`, rounded to the nearest ns, in integers: an absolute trace time near
 * 2^60 ns needs every digit, and a double's step there is 256 ns. False when it is 2^64 or more.
 */
static bool
decimal_to_ns(const char *text, uint64_t unit_ns, uint64_t *ns)
{
	const char *p = text;
	u128 whole = 0, fraction = 0, scale = 1, value;

	while (isspace((unsigned char) *p))
		p++;
	for (; isdigit((unsigned char) *p); p++) {
		whole = whole * 10 + (unsigned) (*p - '0');
		if (whole > UINT64_MAX)
			return false;
	}
	if (*p == '.') {
		/* 19 fraction digits are far below a nanosecond in any unit: the rest is dropped.
		 */
		for (p++; isdigit((unsigned char) *p); p++) {
			if (scale < UINT64_C(10000000000000000000)) {
				fraction = fraction * 10 + (unsigned) (*p - '0');
				scale *= 10;
			}
		}
	}
	value = whole * unit_ns + (fraction * unit_ns * 2 + scale) / (scale * 2);
	if (value > UINT64_MAX)
		return false;
	*ns = (uint64_t) value;
	return true;
}

fsa_status
fsa_report_parse_duration(const char *text, uint64_t *ns, char **error_message)
{
	double number, unit_ns;
	const char *end;
	bool has_unit;

	if (!text || report_parse_number_unit(text, &number, &end, &unit_ns, &has_unit) != FSA_OK) {
		report_set_error(error_message,
				 "'%s' is not a duration (a number with ns, us, ms or s)",
				 text ? text : "");
		return FSA_ERR_INVALID;
	}
	while (isspace((unsigned char) *end))
		end++;
	if (*end != '\0') {
		report_set_error(error_message,
				 "'%s' is not a duration: unknown unit '%s' (ns, us, ms or s)",
				 text, end);
		return FSA_ERR_INVALID;
	}
	(void) number;
	if (!decimal_to_ns(text, (uint64_t) unit_ns, ns)) {
		report_set_error(error_message, "'%s' is too long a duration", text);
		return FSA_ERR_INVALID;
	}
	return FSA_OK;
}

fsa_status
fsa_report_parse_frame_budget(const char *text, uint64_t *ns, char **error_message)
{
	fsa_status status = fsa_report_parse_duration(text, ns, error_message);

	if (status == FSA_OK && *ns == 0) {
		report_set_error(error_message, "takes a duration above 0");
		return FSA_ERR_INVALID;
	}
	return status;
}

fsa_status
fsa_report_parse_time(const char *text, struct fsa_report_time *time, char **error_message)
{
	struct fsa_report_time result = {.is_set = true};
	const char *p = text ? text : "";

	while (isspace((unsigned char) *p))
		p++;
	if (*p == '+') {
		result.is_relative = true;
		p++;
	}
	if (fsa_report_parse_duration(p, &result.ns, NULL) != FSA_OK) {
		report_set_error(error_message,
				 "'%s' is not a time: give trace nanoseconds, a duration like "
				 "1.5s or 200ms, or +DURATION from the trace's start",
				 text ? text : "");
		return FSA_ERR_INVALID;
	}
	*time = result;
	return FSA_OK;
}

static const char *const section_names[] = {
    "summary",   "latency",       "longest", "doorbells",     "preemption", "losses",
    "anomalies", "clocks",        "tdr",     "display",       "faults",     "page_faults",
    "memory",    "cross_adapter", "frames",  "critical_path",
};

const char *
fsa_report_section_name(enum fsa_report_section section)
{
	for (size_t i = 0; i < sizeof(section_names) / sizeof(section_names[0]); i++)
		if (section == (1u << i))
			return section_names[i];
	return NULL;
}

fsa_status
fsa_report_parse_sections(const char *text, unsigned *sections, char **error_message)
{
	unsigned result = 0;
	const char *p = text ? text : "";

	while (*p) {
		size_t len = strcspn(p, ",");
		const char *word = p;
		size_t word_len = len;
		bool is_known = false;

		while (word_len && isspace((unsigned char) *word)) {
			word++;
			word_len--;
		}
		while (word_len && isspace((unsigned char) word[word_len - 1]))
			word_len--;
		if (word_len == 3 && strncmp(word, "all", 3) == 0) {
			result |= FSA_REPORT_ALL_SECTIONS;
			is_known = true;
		}
		for (size_t i = 0;
		     !is_known && i < sizeof(section_names) / sizeof(section_names[0]); i++) {
			if (strlen(section_names[i]) == word_len &&
			    strncmp(word, section_names[i], word_len) == 0) {
				result |= 1u << i;
				is_known = true;
			}
		}
		if (!is_known) {
			report_set_error(
			    error_message,
			    "'%.*s' is not a section (summary, latency, longest, "
			    "doorbells, preemption, losses, anomalies, clocks, tdr, display, "
			    "faults, page_faults, memory, cross_adapter, frames, critical_path, "
			    "all)",
			    (int) word_len, word);
			return FSA_ERR_INVALID;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!result) {
		report_set_error(error_message, "no section named in '%s'", text ? text : "");
		return FSA_ERR_INVALID;
	}
	*sections = result;
	return FSA_OK;
}

fsa_status
fsa_report_parse_format(const char *text, enum fsa_report_format *format, char **error_message)
{
	if (text && strcmp(text, "text") == 0)
		*format = FSA_REPORT_FORMAT_TEXT;
	else if (text && strcmp(text, "json") == 0)
		*format = FSA_REPORT_FORMAT_JSON;
	else if (text && strcmp(text, "csv") == 0)
		*format = FSA_REPORT_FORMAT_CSV;
	else {
		report_set_error(error_message, "'%s' is not a format (text, json or csv)",
				 text ? text : "");
		return FSA_ERR_INVALID;
	}
	return FSA_OK;
}
