/* SPDX-License-Identifier: MIT */
/*
 * The model's hash map (see hmap-private.h). Keys are mixed before probing because handles share
 * their high bits and values are small consecutive integers.
 */
#include <stdlib.h>

#include "hmap-private.h"

static inline size_t
slot_of(uint64_t key, size_t mask)
{
	key ^= key >> 33;
	key *= UINT64_C(0xff51afd7ed558ccd);
	key ^= key >> 33;
	return (size_t) key & mask;
}

void
hmap_fini(struct hmap *map)
{
	free(map->slots);
	*map = (struct hmap){0};
}

void
hmap_fini_values(struct hmap *map)
{
	uint64_t key;
	void *value;

	for (size_t i = 0; hmap_next(map, &i, &key, &value);)
		free(value);
	hmap_fini(map);
}

static bool
grow(struct hmap *map)
{
	size_t capacity = map->mask ? (map->mask + 1) * 2 : 16;
	struct hmap_slot *slots = calloc(capacity, sizeof(*slots));
	struct hmap old = *map;

	if (!slots)
		return false;
	map->slots = slots;
	map->mask = capacity - 1;
	map->count = 0;
	for (size_t i = 0; old.mask && i <= old.mask; i++)
		if (old.slots[i].value)
			hmap_put(map, old.slots[i].key, old.slots[i].value);
	free(old.slots);
	return true;
}

bool
hmap_put(struct hmap *map, uint64_t key, void *value)
{
	size_t i;

	/* Callers store trace values + 1 (a time, a value), which wraps to NULL at UINT64_MAX: an
	 * empty slot's mark. Storing it would break the key's probe run; it means "nothing". */
	if (!value) {
		hmap_remove(map, key);
		return true;
	}
	if ((map->count + 1) * 4 > (map->mask + 1) * 3 || !map->mask)
		if (!grow(map))
			return false;
	for (i = slot_of(key, map->mask); map->slots[i].value; i = (i + 1) & map->mask) {
		if (map->slots[i].key == key) {
			map->slots[i].value = value;
			return true;
		}
	}
	map->slots[i].key = key;
	map->slots[i].value = value;
	map->count++;
	return true;
}

void *
hmap_get(const struct hmap *map, uint64_t key)
{
	if (!map->mask)
		return NULL;
	for (size_t i = slot_of(key, map->mask); map->slots[i].value; i = (i + 1) & map->mask)
		if (map->slots[i].key == key)
			return map->slots[i].value;
	return NULL;
}

size_t
hmap_find(const struct hmap *map, uint64_t key)
{
	if (!map->mask)
		return HMAP_NONE;
	for (size_t i = slot_of(key, map->mask); map->slots[i].value; i = (i + 1) & map->mask)
		if (map->slots[i].key == key)
			return i;
	return HMAP_NONE;
}

void
hmap_slot_remove(struct hmap *map, size_t i)
{
	/* Backward shift: move later members of the probe run into the hole. */
	for (size_t j = (i + 1) & map->mask; map->slots[j].value; j = (j + 1) & map->mask) {
		size_t home = slot_of(map->slots[j].key, map->mask);

		if (((j - home) & map->mask) >= ((j - i) & map->mask)) {
			map->slots[i] = map->slots[j];
			i = j;
		}
	}
	map->slots[i] = (struct hmap_slot){0};
	map->count--;
}

void *
hmap_remove(struct hmap *map, uint64_t key)
{
	size_t i = hmap_find(map, key);
	void *value;

	if (i == HMAP_NONE)
		return NULL;
	value = map->slots[i].value;
	hmap_slot_remove(map, i);
	return value;
}

bool
hmap_next(const struct hmap *map, size_t *cursor, uint64_t *key, void **value)
{
	for (; map->mask && *cursor <= map->mask; (*cursor)++) {
		if (map->slots[*cursor].value) {
			*key = map->slots[*cursor].key;
			*value = map->slots[(*cursor)++].value;
			return true;
		}
	}
	return false;
}

bool
hmap_take_values(struct hmap *map, void ***values, size_t *count)
{
	void **all = NULL;
	uint64_t key;
	void *value;

	*values = NULL;
	*count = 0;
	if (!map->count)
		return true;
	all = malloc(map->count * sizeof(*all));
	if (!all)
		return false;
	for (size_t i = 0; hmap_next(map, &i, &key, &value);)
		all[(*count)++] = value;
	hmap_fini(map);
	*values = all;
	return true;
}
