/* SPDX-License-Identifier: MIT */
/*
 * FSR_ASSERT_PRE's failure path (common/common-private.h): a file of its own, below everything, so
 * that the clock (common/clock.c), which asserts, and the helpers of common/common.c, which trace
 * through the clock, call each other in no circle.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/common-private.h"

void
rt_abort_precondition(const char *id, const char *cond, const char *file, int line)
{
	fprintf(stderr, "fencescope: precondition %s failed: %s (%s:%d)\n", id, cond, file, line);
	abort();
}
