/* SPDX-License-Identifier: MIT */
/*
 * Damaged copies of the sample traces, for the tests of ingest, the CLI and the viewer: each
 * function edits a copy in place (never traces/ itself).
 */
#ifndef FST_DAMAGE_H
#define FST_DAMAGE_H

#include <stdbool.h>

/*
 * Writes 0xff 0xff 0xff 0x8f (a length above 2^31 wherever a sequence length lands) at places in
 * the second half of `stream` (a stream file of the trace folder `trace`), one place at a time,
 * until the real `babeltrace2 -o dummy` dies by a signal on the result (libbabeltrace2 2.0.4
 * does). The search is seeded, so the same sample gives the same damage. Returns true when
 * found (the file is left damaged), false after `tries` places (the file is left intact).
 */
bool fst_damage_until_babeltrace_crashes(const char *trace, const char *stream, int tries);

/* Sets the top bit of the first packet's content_size in its LTTng packet context (bytes 48-55,
 * little-endian): a packet that claims exabytes. */
bool fst_damage_huge_content_size(const char *stream);

#endif /* FST_DAMAGE_H */
