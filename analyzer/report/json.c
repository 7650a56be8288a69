/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON scalars (fsa/json.h): big integers as decimal strings, every control character
 * escaped, bytes that are not UTF-8 replaced. A leaf: the JSON report and `fencescope run --json`
 * write through it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fsa/json.h"

/* The length of the well-formed UTF-8 sequence at P (RFC 3629), 0 if it is not one. */
static size_t
utf8_length(const unsigned char *p)
{
	unsigned char c = p[0];
	size_t len = 0;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (len == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f)))
		return 0; /* overlong, or a UTF-16 surrogate */
	if (len == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f)))
		return 0; /* overlong, or above U+10FFFF */
	return len;
}

void
fsa_json_write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *) (s ? s : "");

	putc('"', out);
	while (*p) {
		unsigned char c = *p;
		size_t len;

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(out, "\\u%04x", c);
			} else if (c < 0x80) {
				putc(c, out);
			} else if ((len = utf8_length(p)) == 0) {
				fputs("\\ufffd", out);
			} else {
				fwrite(p, 1, len, out);
				p += len;
				continue;
			}
		}
		p++;
	}
	putc('"', out);
}

void
fsa_json_write_u64(FILE *out, uint64_t v)
{
	if (v <= FSA_JSON_MAX_SAFE_INTEGER)
		fprintf(out, "%" PRIu64, v);
	else
		fprintf(out, "\"%" PRIu64 "\"", v);
}

void
fsa_json_write_i64(FILE *out, int64_t v)
{
	uint64_t magnitude = v < 0 ? 0 - (uint64_t) v : (uint64_t) v;

	if (magnitude <= FSA_JSON_MAX_SAFE_INTEGER)
		fprintf(out, "%" PRId64, v);
	else
		fprintf(out, "\"%" PRId64 "\"", v);
}

void
fsa_json_write_double(FILE *out, double v)
{
	char text[40];

	if (!isfinite(v)) {
		fputs("null", out);
		return;
	}
	snprintf(text, sizeof(text), "%.17g", v);
	/* "%.17g" follows the locale; JSON wants a point. */
	for (char *p = text; *p; p++)
		if (*p == ',')
			*p = '.';
	fputs(text, out);
	if (!strpbrk(text, ".eE"))
		fputs(".0", out);
}
