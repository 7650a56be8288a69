/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON scalars, as every JSON output of fencescope writes them (the JSON report, `run
 * --json`; the Perfetto export follows the same rules): docs/report-schema.md "JSON numbers and
 * strings".
 * - An integer is a JSON number when an IEEE double holds it exactly (|n| ≤ 2^53), else a
 *   string of its decimal digits ("1795306066865228219"), so that JavaScript, jq and Python's
 *   json module never round it; readers take either (Python: int(v); jq: v|tostring).
 * - A string escapes '"', '\\' and every control character (U+0000–U+001F, and U+007F), and
 *   bytes that are not UTF-8 become U+FFFD, so any name a trace carries parses.
 * - A double that is not finite is null.
 * Not a JSON library: no parsing, no nesting; the writers lay out their own objects.
 */
#ifndef FSA_JSON_H
#define FSA_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "fsa/export.h"

/* The largest integer a double holds exactly, with every smaller one: 2^53. */
#define FSA_JSON_MAX_EXACT_INTEGER 9007199254740992ULL

FSA_API void fsa_json_write_string(FILE *out, const char *s);
FSA_API void fsa_json_write_u64(FILE *out, uint64_t v);
FSA_API void fsa_json_write_i64(FILE *out, int64_t v);
/* Text that reads back as the same double ("%.17g", with ".0" on whole numbers). */
FSA_API void fsa_json_write_double(FILE *out, double v);

#endif /* FSA_JSON_H */
