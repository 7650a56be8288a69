/* SPDX-License-Identifier: MIT */
/*
 * A map from any 64-bit key to a pointer: open addressing, linear probing, backward-shift
 * deletion (no tombstones, so a map that sees millions of inserts and removes stays small).
 * The analyzer's keys come from the trace, so every value, 0 included, must be a valid key.
 */
#ifndef FSA_HMAP_H
#define FSA_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fsa_hmap_slot {
	uint64_t key;
	void *value; /* NULL: empty slot (values are never NULL) */
};

struct fsa_hmap {
	struct fsa_hmap_slot *slots;
	size_t mask; /* capacity - 1, capacity a power of two; 0 before the first insert */
	size_t count;
};

void fsa_hmap_fini(struct fsa_hmap *map);
/* The same for a map that owns its values: free()s each of them first. */
void fsa_hmap_fini_values(struct fsa_hmap *map);
/* Returns false when out of memory. Replaces the value of a present key. A NULL value removes
 * the key. */
bool fsa_hmap_put(struct fsa_hmap *map, uint64_t key, void *value);
void *fsa_hmap_get(const struct fsa_hmap *map, uint64_t key);
/* Returns the removed value, NULL if absent. */
void *fsa_hmap_remove(struct fsa_hmap *map, uint64_t key);
/*
 * Empties the map into a new array of its values (transfer full, free(); NULL when the map was
 * empty). Returns false when out of memory, and then leaves the map as it was.
 */
bool fsa_hmap_take_values(struct fsa_hmap *map, void ***values, size_t *count);
/* for (size_t i = 0; fsa_hmap_next(map, &i, &key, &value);) — do not modify while iterating. */
bool fsa_hmap_next(const struct fsa_hmap *map, size_t *cursor, uint64_t *key, void **value);

/* Two 64-bit values into one key (for keys made of a handle and a value). */
static inline uint64_t
fsa_hmap_key2(uint64_t a, uint64_t b)
{
	uint64_t h = a * UINT64_C(0x9e3779b97f4a7c15) ^ (b + UINT64_C(0x632be59bd9b4e019));

	return h ^ (h >> 29);
}

#endif /* FSA_HMAP_H */
