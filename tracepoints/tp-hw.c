/* SPDX-License-Identifier: MIT */
/*
 * The probes of provider fencescope_hw: the one compilation unit that instantiates its
 * tracepoints and registers them with LTTng-UST when the library is loaded.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "fencescope-hw.h"
