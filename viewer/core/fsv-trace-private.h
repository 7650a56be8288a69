/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: what fsv-view.c and fsv-render.c read from an FsvTrace beyond its public API —
 * the level-of-detail indexes of each row's lanes. Not for the GTK app: it goes through
 * fsv-view.h and fsv-render.h.
 */
#ifndef FSV_TRACE_PRIVATE_H
#define FSV_TRACE_PRIVATE_H

#include "fsv-lod.h"
#include "fsv-trace.h"

G_BEGIN_DECLS

/* Ops of a queue or CPU row (item ids: op indexes), one index per lane; NULL when the row has
 * no ops in that lane. */
const FsvLod *_fsv_trace_get_op_lod(const FsvTrace *trace, guint32 row, guint lane);
/* Packets of an engine row (item ids: packet indexes), one per lane. */
const FsvLod *_fsv_trace_get_packet_lod(const FsvTrace *trace, guint32 row, guint lane);
/* Markers of a row (item ids: marker indexes). */
const FsvLod *_fsv_trace_get_marker_lod(const FsvTrace *trace, guint32 row);
/* Bytes of the index (ops, packets, markers, LODs), for the benchmark. */
gsize _fsv_trace_get_memory_size(const FsvTrace *trace);

G_END_DECLS

#endif /* FSV_TRACE_PRIVATE_H */
