/* SPDX-License-Identifier: MIT */
/*
 * The handle map of common/map-private.h. Handles are mixed with a 64-bit finalizer before probing,
 * because they are sequential and would otherwise cluster.
 */
#include <stdlib.h>

#include "common/map-private.h"

#define RT_MAP_REMOVED UINT64_MAX

static size_t
slot_of(uint64_t key, size_t capacity)
{
	key ^= key >> 33;
	key *= UINT64_C(0xff51afd7ed558ccd);
	key ^= key >> 33;
	return (size_t) key & (capacity - 1);
}

void
rt_map_init(struct rt_map *map)
{
	*map = (struct rt_map){0};
}

void
rt_map_fini(struct rt_map *map)
{
	free(map->slots);
	*map = (struct rt_map){0};
}

static int
grow(struct rt_map *map)
{
	size_t capacity = map->capacity ? map->capacity * 2 : 16;
	struct rt_map_slot *old = map->slots;
	size_t old_capacity = map->capacity;

	if (map->count * 2 < map->capacity)
		capacity = map->capacity; /* only tombstones to clear */
	map->slots = calloc(capacity, sizeof(*map->slots));
	if (!map->slots) {
		map->slots = old;
		return -1;
	}
	map->capacity = capacity;
	map->count = 0;
	map->used = 0;
	for (size_t i = 0; i < old_capacity; i++)
		if (old[i].key != 0 && old[i].key != RT_MAP_REMOVED)
			rt_map_insert(map, old[i].key, old[i].value);
	free(old);
	return 0;
}

int
rt_map_insert(struct rt_map *map, uint64_t key, void *value)
{
	size_t i;

	if ((map->used + 1) * 4 > map->capacity * 3 && grow(map) != 0)
		return -1;
	for (i = slot_of(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
		if (map->slots[i].key == 0 || map->slots[i].key == RT_MAP_REMOVED)
			break;
	}
	if (map->slots[i].key == 0)
		map->used++;
	map->slots[i] = (struct rt_map_slot){.key = key, .value = value};
	map->count++;
	return 0;
}

static struct rt_map_slot *
find(const struct rt_map *map, uint64_t key)
{
	if (map->capacity == 0)
		return NULL;
	for (size_t i = slot_of(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
		if (map->slots[i].key == key)
			return &map->slots[i];
		if (map->slots[i].key == 0)
			return NULL;
	}
}

void *
rt_map_get(const struct rt_map *map, uint64_t key)
{
	struct rt_map_slot *slot = find(map, key);

	return slot ? slot->value : NULL;
}

void *
rt_map_remove(struct rt_map *map, uint64_t key)
{
	struct rt_map_slot *slot = find(map, key);
	void *value;

	if (!slot)
		return NULL;
	value = slot->value;
	slot->key = RT_MAP_REMOVED;
	slot->value = NULL;
	map->count--;
	return value;
}

int
rt_map_next(const struct rt_map *map, size_t *cursor, uint64_t *key, void **value)
{
	for (; *cursor < map->capacity; (*cursor)++) {
		const struct rt_map_slot *slot = &map->slots[*cursor];

		if (slot->key != 0 && slot->key != RT_MAP_REMOVED) {
			*key = slot->key;
			*value = slot->value;
			(*cursor)++;
			return 1;
		}
	}
	return 0;
}
