/* SPDX-License-Identifier: MIT */
/*
 * A map from 64-bit keys (handles) to pointers: open addressing with linear probing and
 * tombstones. Key 0 is reserved. It holds no lock; its owner locks.
 */
#ifndef FENCESCOPE_UTIL_MAP_H
#define FENCESCOPE_UTIL_MAP_H

#include <stddef.h>
#include <stdint.h>

struct rt_map_slot {
	uint64_t key; /* 0: empty, UINT64_MAX: removed */
	void *value;
};

struct rt_map {
	struct rt_map_slot *slots;
	size_t capacity; /* a power of two */
	size_t count;
	size_t used; /* count + tombstones */
};

void rt_map_init(struct rt_map *map);
void rt_map_fini(struct rt_map *map);
/* Returns 0, or -1 when out of memory. `key` must not be 0 or UINT64_MAX nor present. */
int rt_map_insert(struct rt_map *map, uint64_t key, void *value);
void *rt_map_get(const struct rt_map *map, uint64_t key);
/* Returns the removed value, NULL if absent. */
void *rt_map_remove(struct rt_map *map, uint64_t key);

/* Iteration: for (size_t i = 0; rt_map_next(map, &i, &key, &value);) ... */
int rt_map_next(const struct rt_map *map, size_t *cursor, uint64_t *key, void **value);

#endif /* FENCESCOPE_UTIL_MAP_H */
