/* SPDX-License-Identifier: MIT */
/*
 * What every faulty variant shares: the reference driver's table, into which a variant puts its
 * one wrong entry. A variant is white-box (it wraps the reference driver, whose entries take
 * the runtime's private types), but the suite that rejects it is not.
 */
#ifndef FSC_FAULTY_H
#define FSC_FAULTY_H

#include "runtime-private.h"
#include "driver-under-test.h"

/* The reference table, filled once; a variant's entries call through it. */
static struct dxgk_ddi reference;
static struct dxgk_ddi faulty;

/* The variant's change to `faulty`, a copy of `reference`. */
static void make_faulty(struct dxgk_ddi *ddi);

const struct dxgk_ddi *
fsc_driver_table(void)
{
	kmd_driver_entry(&reference);
	faulty = reference;
	make_faulty(&faulty);
	return &faulty;
}

#endif /* FSC_FAULTY_H */
