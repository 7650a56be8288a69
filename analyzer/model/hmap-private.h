/* SPDX-License-Identifier: MIT */
/*
 * A map from any 64-bit key to a pointer: open addressing, linear probing, backward-shift
 * deletion (no tombstones, so a map that sees millions of inserts and removes stays small).
 * The analyzer's keys come from the trace, so every value, 0 included, must be a valid key.
 */
#ifndef HMAP_PRIVATE_H
#define HMAP_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t key;
	void *value; /* NULL: empty slot (values are never NULL) */
};

struct hmap {
	struct hmap_slot *slots;
	size_t mask; /* capacity - 1, capacity a power of two; 0 before the first insert */
	size_t count;
};

void hmap_fini(struct hmap *map);
/* The same for a map that owns its values: free()s each of them first. */
void hmap_fini_values(struct hmap *map);
/* Returns false when out of memory. Replaces the value of a present key. A NULL value removes
 * the key. */
bool hmap_put(struct hmap *map, uint64_t key, void *value);
void *hmap_get(const struct hmap *map, uint64_t key);
/* Returns the removed value, NULL if absent. */
void *hmap_remove(struct hmap *map, uint64_t key);
/*
 * For a caller that looks a key up and then replaces or removes it (one probe, not two): the
 * slot of `key`, or HMAP_NONE; then hmap_slot_value(), hmap_slot_set() (a value, never NULL) or
 * hmap_slot_remove() on that slot, before any other change to the map.
 */
#define HMAP_NONE SIZE_MAX
size_t hmap_find(const struct hmap *map, uint64_t key);
void hmap_slot_remove(struct hmap *map, size_t slot);

static inline void *
hmap_slot_value(const struct hmap *map, size_t slot)
{
	return map->slots[slot].value;
}

static inline void
hmap_slot_set(struct hmap *map, size_t slot, void *value)
{
	map->slots[slot].value = value;
}
/*
 * Empties the map into a new array of its values (transfer full, free(); NULL when the map was
 * empty). Returns false when out of memory, and then leaves the map as it was.
 */
bool hmap_take_values(struct hmap *map, void ***values, size_t *count);
/* for (size_t i = 0; hmap_next(map, &i, &key, &value);) — do not modify while iterating. */
bool hmap_next(const struct hmap *map, size_t *cursor, uint64_t *key, void **value);

/* Two 64-bit values into one key (for keys made of a handle and a value). */
static inline uint64_t
hmap_key2(uint64_t a, uint64_t b)
{
	uint64_t h = a * UINT64_C(0x9e3779b97f4a7c15) ^ (b + UINT64_C(0x632be59bd9b4e019));

	return h ^ (h >> 29);
}

#endif /* HMAP_PRIVATE_H */
