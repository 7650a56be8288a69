/* SPDX-License-Identifier: MIT */
/*
 * `fencescope report --live`: the rolling summary printed while a trace is read (issue 16 §4),
 * typically a live LTTng session (net:// URL) that is still recording. Every interval it writes
 * one compact block — events, operations, wait and signal latency p50/p99, losses and anomalies
 * so far — in the report's format (text block, one JSON line, one CSV row), and once more when
 * the reading ends; the full report follows as without --live. It only watches what the model
 * produces (a tee in front of the report's sink, the model's running summary): the report's
 * numbers are computed as without --live, so the final report is the same. docs/user-guide.md
 * "Live".
 */
#ifndef FENCESCOPE_REPORT_LIVE_H
#define FENCESCOPE_REPORT_LIVE_H

#include <stdint.h>
#include <stdio.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "fsa/report.h"

/* The shortest --interval: a summary costs a few quantile walks and a write. */
#define FS_LIVE_MIN_INTERVAL_NS     (100ULL * 1000 * 1000)
#define FS_LIVE_DEFAULT_INTERVAL_NS (1000ULL * 1000 * 1000)

struct fs_live_summary;

/*
 * Summaries every INTERVAL_NS of wall-clock time, written to OUT in FORMAT.
 * Returns: (transfer full) (nullable: out of memory); release with fs_live_summary_destroy().
 */
struct fs_live_summary *fs_live_summary_create(uint64_t interval_ns, enum fsa_report_format format,
					       FILE *out);
void fs_live_summary_destroy(struct fs_live_summary *live);

/*
 * The sink to create the model with: it counts and measures what the model emits, then hands
 * every item to INNER (copied; the report's sink). Returns: (transfer none) valid as long as
 * LIVE.
 */
const struct fsa_model_sink *fs_live_summary_wrap_sink(struct fs_live_summary *live,
						       const struct fsa_model_sink *inner);

/*
 * fsa_ingest_into_model() with the summaries: reads TRACE into MODEL (created with the wrapped
 * sink), writing a summary every interval and a last one when the reading ends (also after a
 * damaged or cut stream). Same statuses and messages as fsa_ingest_into_model().
 */
fsa_status fs_live_summary_ingest(struct fs_live_summary *live, const char *trace,
				  struct fsa_model *model, struct fsa_ingest_stats *stats,
				  char **error_message);

#endif /* FENCESCOPE_REPORT_LIVE_H */
