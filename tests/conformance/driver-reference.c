/* SPDX-License-Identifier: MIT */
/* The conformance suite's default driver under test: the reference KMD (kmd/kmd.c). */
#include "common/driver-interface-private.h"
#include "driver-under-test.h"
#include "test-api/fencescope-test.h"

const struct dxgk_ddi *
fsc_driver_table(void)
{
	static struct dxgk_ddi table;

	kmd_driver_entry(&table);
	return &table;
}

const char *
fsc_driver_name(void)
{
	return "reference";
}
