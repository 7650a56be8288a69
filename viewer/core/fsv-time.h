/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: reading a time a person typed (go to time, Ctrl+G; `view --at`): the times that
 * `fencescope report` prints, absolute or relative (`--times relative`), and the viewer's own.
 * It parses only; where the view goes is the widget's business.
 */
#ifndef FSV_TIME_H
#define FSV_TIME_H

#include <stdbool.h>

#include <glib.h>

#include "fsv-trace.h"

G_BEGIN_DECLS

/* A time as typed, before it meets a trace: absolute trace ns, or relative to the trace's
 * first event (counting back when is_back). */
typedef struct {
	guint64 ns;
	bool is_relative, is_back;
} FsvTypedTime;

/*
 * Parses TEXT, without a trace (`view --at` is checked before anything opens):
 *  - absolute, as the report prints it: trace ns ("1795455649123456789") or seconds and a unit
 *    ("1795455649.123456789 s", "1795455649123.5 ms"), exact to the ns;
 *  - relative to the trace's first event, as the viewer's ruler and `report --times relative`
 *    write it: "+1.5ms", "+1.500 ms", "+850 ns" (a leading "−" or "-" counts back).
 * Spaces (thin and no-break ones too) are ignored. Returns false with a one-line *error
 * (G_IO_ERROR_INVALID_ARGUMENT) when it is not a time.
 */
bool fsv_time_parse(const char *text, FsvTypedTime *time, GError **error);

/*
 * TIME (as parsed from TEXT, which the error names) as a trace time of TRACE. A time outside
 * the trace (its first event to its last, with a second of slack each side) is refused with a
 * one-line *error: "2.5ms" was most likely meant as "+2.5ms", and the error says so.
 */
bool fsv_trace_resolve_time(const FsvTrace *trace, const FsvTypedTime *time, const char *text,
			    guint64 *ns, GError **error);

/* fsv_time_parse() then fsv_trace_resolve_time(): what go to time (Ctrl+G) does. */
bool fsv_trace_parse_time(const FsvTrace *trace, const char *text, guint64 *ns, GError **error);

G_END_DECLS

#endif /* FSV_TIME_H */
