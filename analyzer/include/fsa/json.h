/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON scalars, as every JSON output of fencescope writes them (the JSON report, `run
 * --json`; the Perfetto export follows the same rules): docs/report-schema.md "JSON numbers and
 * strings".
 * - An integer is a JSON number when it is a safe integer (|n| ≤ 2^53 − 1, JavaScript's
 *   Number.MAX_SAFE_INTEGER: a double holds it and no other integer rounds to it), else a
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

/* The largest integer written as a JSON number: 2^53 − 1 (Number.MAX_SAFE_INTEGER). */
#define FSA_JSON_MAX_SAFE_INTEGER 9007199254740991ULL

FSA_API void fsa_json_write_string(FILE *out, const char *s);
FSA_API void fsa_json_write_u64(FILE *out, uint64_t v);
FSA_API void fsa_json_write_i64(FILE *out, int64_t v);
/* Text that reads back as the same double ("%.17g", with ".0" on whole numbers). */
FSA_API void fsa_json_write_double(FILE *out, double v);

#endif /* FSA_JSON_H */
