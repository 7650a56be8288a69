/* SPDX-License-Identifier: MIT */
/*
 * Names of the normalized events and fields: the one place where the contract's spelling meets
 * the analyzer's enums. Lookups by name happen once per event class, never per event.
 */
#include <string.h>

#include "fsa/event.h"

static const char *const event_names[FSA_EV_COUNT] = {
#define FSA_X(layer, name, NAME) [FSA_EV_##NAME] = "fencescope_" #layer ":" #name,
    FSA_EVENT_TYPES(FSA_X)
#undef FSA_X
};

static const char *const field_names[FSA_F_COUNT] = {
#define FSA_X(name, NAME) [FSA_F_##NAME] = #name,
    FSA_FIELDS(FSA_X)
#undef FSA_X
};

enum fsa_event_type
fsa_event_type_from_name(const char *name)
{
	const char *colon = strchr(name, ':');

	for (int i = 1; i < FSA_EV_COUNT; i++) {
		const char *full = event_names[i];

		if (colon ? strcmp(full, name) == 0 : strcmp(strchr(full, ':') + 1, name) == 0)
			return (enum fsa_event_type) i;
	}
	return FSA_EV_UNKNOWN;
}

const char *
fsa_event_type_name(enum fsa_event_type type)
{
	if (type <= FSA_EV_UNKNOWN || type >= FSA_EV_COUNT)
		return NULL;
	return event_names[type];
}

int
fsa_field_from_name(const char *name)
{
	for (int i = 0; i < FSA_F_COUNT; i++)
		if (strcmp(field_names[i], name) == 0)
			return i;
	return -1;
}

const char *
fsa_field_name(enum fsa_field field)
{
	if ((int) field < 0 || field >= FSA_F_COUNT)
		return NULL;
	return field_names[field];
}
