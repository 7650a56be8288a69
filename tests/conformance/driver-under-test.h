/* SPDX-License-Identifier: MIT */
/*
 * What the conformance suite is run against: one kernel-mode driver, as the DDI table its
 * DriverEntry fills. Each conformance executable links the suite with exactly one file that
 * defines these: driver-reference.c for the reference driver, faulty/<rule>-*.c for the faulty
 * variants, or a driver of your own (docs/driver-interface.md, "Checking your driver").
 */
#ifndef FSC_DRIVER_UNDER_TEST_H
#define FSC_DRIVER_UNDER_TEST_H

struct dxgk_ddi;

/* The driver's DDI table; the OS copies it when an adapter is created. */
const struct dxgk_ddi *fsc_driver_table(void);
/* A short name for logs. */
const char *fsc_driver_name(void);

#endif /* FSC_DRIVER_UNDER_TEST_H */
