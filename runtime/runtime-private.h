/* SPDX-License-Identifier: MIT */
/*
 * Every private header of the runtime at once, for white-box tests (tests/runtime/test-log.c).
 * The runtime's own files include only the header of their layer (and of the layers they may
 * call): common/common-private.h, hw/hw-private.h, kmd/kmd-private.h, os/os-private.h.
 */
#ifndef FENCESCOPE_RUNTIME_PRIVATE_H
#define FENCESCOPE_RUNTIME_PRIVATE_H

#include "common/common-private.h"
#include "hw/hw-private.h"
#include "kmd/kmd-private.h"
#include "os/os-private.h"

#endif /* FENCESCOPE_RUNTIME_PRIVATE_H */
