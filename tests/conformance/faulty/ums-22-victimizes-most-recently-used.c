/* SPDX-License-Identifier: MIT */
/*
 * Faulty driver, UMS-22: when no physical doorbell is free, DxgkDdiConnectDoorbell victimizes
 * the *most* recently used connected doorbell instead of the least recently used one. Built on
 * the reference driver: before each connect it makes the doorbell the reference would pick
 * look the newest, so the reference picks the other one.
 */
#include "faulty.h"

/* The connected doorbells this variant has seen, by the reference's last-use numbers. */
#define SEEN 64
static struct os_doorbell *seen[SEEN];

static int
mru_connect_doorbell(void *miniport, struct os_doorbell *doorbell, uint32_t *physical,
		     struct rt_doorbell_page **page, enum fstp_doorbell_status *status)
{
	struct os_doorbell *oldest = NULL;
	struct os_doorbell *newest = NULL;

	for (uint32_t i = 0; i < SEEN; i++) {
		struct os_doorbell *d = seen[i];

		if (!d || !d->kmd_is_connected || d == doorbell)
			continue;
		if (!oldest || d->kmd_last_use < oldest->kmd_last_use)
			oldest = d;
		if (!newest || d->kmd_last_use > newest->kmd_last_use)
			newest = d;
	}
	/* Swap their ages: the reference's LRU then takes the most recently used one. */
	if (oldest && newest && oldest != newest) {
		uint64_t age = oldest->kmd_last_use;

		oldest->kmd_last_use = newest->kmd_last_use;
		newest->kmd_last_use = age;
	}
	for (uint32_t i = 0; i < SEEN; i++) {
		if (seen[i] == doorbell)
			break;
		if (!seen[i]) {
			seen[i] = doorbell;
			break;
		}
	}
	return reference.DxgkDdiConnectDoorbell(miniport, doorbell, physical, page, status);
}

static void
make_faulty(struct dxgk_ddi *ddi)
{
	ddi->DxgkDdiConnectDoorbell = mru_connect_doorbell;
}

const char *
fsc_driver_name(void)
{
	return "ums-22-victimizes-most-recently-used";
}
