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

/*
 * Parses TEXT into a trace time of TRACE:
 *  - absolute, as the report prints it: trace ns ("1795455649123456789") or seconds and a unit
 *    ("1795455649.123456789 s", "1795455649123.5 ms"), exact to the ns;
 *  - relative to the trace's first event, as the viewer's ruler and `report --times relative`
 *    write it: "+1.5ms", "+1.500 ms", "+850 ns" (a leading "−" or "-" counts back).
 * Spaces (thin and no-break ones too) are ignored. A time outside the trace (its first event to
 * its last, with a second of slack each side) is refused: "2.5ms" was most likely meant as
 * "+2.5ms". Returns false with a one-line *error (G_IO_ERROR_INVALID_ARGUMENT) otherwise.
 */
bool fsv_trace_parse_time(const FsvTrace *trace, const char *text, guint64 *ns, GError **error);

G_END_DECLS

#endif /* FSV_TIME_H */
