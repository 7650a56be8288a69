/* SPDX-License-Identifier: MIT */
/* analyzer/report: the (kind, a, b) → position index of key-index-private.h. */
#include "key-index-private.h"

#include <stdlib.h>

static uint64_t
key_hash(uint32_t kind, uint64_t a, uint64_t b)
{
	uint64_t h = ((uint64_t) kind + 1) * 0x9e3779b97f4a7c15u ^ a * 0xbf58476d1ce4e5b9u ^
		     b * 0x94d049bb133111ebu;

	return h ^ (h >> 31);
}

/* The slot of (KIND, A, B) in SLOTS of CAPACITY: its own, or the empty one it would take. */
static struct key_index_slot *
slot_of(struct key_index_slot *slots, size_t capacity, uint32_t kind, uint64_t a, uint64_t b)
{
	size_t i = key_hash(kind, a, b) & (capacity - 1);

	while (slots[i].at && !(slots[i].kind == kind && slots[i].a == a && slots[i].b == b))
		i = (i + 1) & (capacity - 1);
	return &slots[i];
}

uint32_t
key_index_find(const struct key_index *keys, uint32_t kind, uint64_t a, uint64_t b)
{
	if (!keys->capacity)
		return 0;
	return slot_of(keys->slots, keys->capacity, kind, a, b)->at;
}

static bool
grow(struct key_index *keys)
{
	size_t capacity = keys->capacity ? keys->capacity * 2 : 64;
	struct key_index_slot *slots = calloc(capacity, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < keys->capacity; i++) {
		const struct key_index_slot *s = &keys->slots[i];

		if (s->at)
			*slot_of(slots, capacity, s->kind, s->a, s->b) = *s;
	}
	free(keys->slots);
	keys->slots = slots;
	keys->capacity = capacity;
	return true;
}

bool
key_index_add(struct key_index *keys, uint32_t kind, uint64_t a, uint64_t b, uint32_t at)
{
	/* At most half full: probes stay short. */
	if ((keys->count + 1) * 2 > keys->capacity && !grow(keys))
		return false;
	*slot_of(keys->slots, keys->capacity, kind, a, b) =
	    (struct key_index_slot){.a = a, .b = b, .kind = kind, .at = at + 1};
	keys->count++;
	return true;
}

void
key_index_free(struct key_index *keys)
{
	free(keys->slots);
	*keys = (struct key_index){0};
}
