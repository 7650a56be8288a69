/* SPDX-License-Identifier: MIT */
/*
 * A map from a key (kind, a, b) to the position of an element in its owner's array, for the
 * Perfetto writers' tracks (perfetto-tracks.c) and counter series (perfetto-counters.c): open
 * addressing with the keys in the slots, so a lookup reads only the index. The owner keeps its
 * elements; the index never moves them.
 *
 *     struct key_index keys = {0};
 *     uint32_t at = key_index_find(&keys, kind, a, b);  // position + 1, 0 when absent
 *     if (!at && !key_index_add(&keys, kind, a, b, count)) ... out of memory
 *     key_index_free(&keys);
 */
#ifndef FSA_REPORT_KEY_INDEX_PRIVATE_H
#define FSA_REPORT_KEY_INDEX_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct key_index_slot {
	uint64_t a, b;
	uint32_t kind;
	uint32_t at; /* position + 1; 0: empty */
};

struct key_index {
	struct key_index_slot *slots;
	size_t capacity; /* a power of two, or 0 */
	size_t count;
};

/* The position + 1 of (KIND, A, B), 0 when it has none. */
uint32_t key_index_find(const struct key_index *keys, uint32_t kind, uint64_t a, uint64_t b);
/* Gives (KIND, A, B), not in KEYS yet, the position AT (< UINT32_MAX). False when out of memory
 * (KEYS unchanged). */
bool key_index_add(struct key_index *keys, uint32_t kind, uint64_t a, uint64_t b, uint32_t at);
void key_index_free(struct key_index *keys);

#endif /* FSA_REPORT_KEY_INDEX_PRIVATE_H */
