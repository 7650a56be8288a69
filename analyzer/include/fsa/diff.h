/* SPDX-License-Identifier: MIT */
/*
 * analyzer/report: `fencescope diff BASE NEW`, what changed between two traces (issue 16 §2).
 * Each trace is read through its own model into its own report (fsa/report.h) plus the packet
 * durations the report does not keep; the diff then matches queues, fences and processes across
 * the two by stable names (never by handles, which differ from run to run), and writes counts
 * and latency percentiles with their deltas and whether each change is beyond noise, the
 * anomalies and losses of each side, and what was added or removed (docs/report-schema.md
 * "Diff"). It is not a second report: per-trace detail is `fencescope report`'s.
 *
 * Typical use:
 *
 *     struct fsa_diff *diff = fsa_diff_create(&options);
 *     for (side = 0; side < 2; side++) {        // FSA_DIFF_BASE, FSA_DIFF_NEW
 *             struct fsa_model *model = fsa_model_create(fsa_diff_borrow_sink(diff, side));
 *             fsa_diff_set_model(diff, side, model, path);
 *             ... fsa_ingest_into_model(path, model, ...) ...
 *             models[side] = model;              // kept until the diff is written
 *     }
 *     fsa_diff_finish(diff);
 *     fsa_diff_write(diff, FSA_REPORT_FORMAT_TEXT, stdout);
 *     if (fsa_diff_failure_count(diff) > 0) ... exit 3 ...
 */
#ifndef FSA_DIFF_H
#define FSA_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fsa/report.h"

/* The version of the diff's JSON document ("schema_version"). */
#define FSA_DIFF_SCHEMA_VERSION "1.0"

enum fsa_diff_side {
	FSA_DIFF_BASE = 0,
	FSA_DIFF_NEW = 1,
};

/* The diff's tables, a bit mask; their names (the JSON keys under "diff") are the --sections
 * words. */
enum fsa_diff_table {
	FSA_DIFF_TRACES = 1u << 0,    /* "traces" */
	FSA_DIFF_TIMES = 1u << 1,     /* "times": base_times and new_times */
	FSA_DIFF_MATCHING = 1u << 2,  /* "matching" */
	FSA_DIFF_COUNTS = 1u << 3,    /* "counts" */
	FSA_DIFF_LATENCY = 1u << 4,   /* "latency" */
	FSA_DIFF_ANOMALIES = 1u << 5, /* "anomalies" */
	FSA_DIFF_LOSSES = 1u << 6,    /* "losses" */
	FSA_DIFF_ALL_TABLES = (1u << 7) - 1,
};

struct fsa_diff_options {
	bool is_text_wide; /* text: one line per row (fsa_report_options.is_text_wide) */
	unsigned tables;   /* enum fsa_diff_table bits; 0 means all (the thresholds always) */
	/* What each side's report counts, the same for both: the time filter (begin/end;
	 * a relative time is from each trace's own first event, so the same window of two runs
	 * is compared), the frame budget (frame_over_budget). The diff's own series (packets,
	 * frames) keep what overlaps the same window. is_time_relative: times the diff prints
	 * are relative to each trace's first event. Other fields are ignored. */
	struct fsa_report_options report;
};

struct fsa_diff;

/* Returns: (transfer full) (nullable: out of memory). NULL options: defaults. */
FSA_API struct fsa_diff *fsa_diff_create(const struct fsa_diff_options *options);
FSA_API void fsa_diff_destroy(struct fsa_diff *diff);

/* Returns: (transfer none) the sink to create SIDE's model with. */
FSA_API const struct fsa_model_sink *fsa_diff_borrow_sink(struct fsa_diff *diff,
							  enum fsa_diff_side side);

/* SIDE's model (borrowed: it must live until the diff is written) and the trace's path as the
 * user named it (copied). Call before feeding the model. */
FSA_API void fsa_diff_set_model(struct fsa_diff *diff, enum fsa_diff_side side,
				const struct fsa_model *model, const char *path);

/* SIDE was read only in part (a damaged trace): the output says so with REASON (copied). */
FSA_API fsa_status fsa_diff_set_partial(struct fsa_diff *diff, enum fsa_diff_side side,
					const char *reason);

/*
 * A --fail-if threshold: the grammar of fsa_report_add_threshold(), measured in NEW, whose limit
 * may name the same statistic in BASE: "p99(wait) > 1.10 * base", "count(anomaly) > base",
 * "max(signal, queue=0x8003000000000005) > base + 1ms" (a scope's key is NEW's handle or
 * process id; BASE's value is that of the object matched to it), "p99(wait,
 * queue=\"app#1/gpu0.3d0/user#1\") > base" (a quoted stable name). FSA_ERR_INVALID with a
 * one-line reason in *error_message (transfer full, free(); may be NULL).
 */
FSA_API fsa_status fsa_diff_add_threshold(struct fsa_diff *diff, const char *expression,
					  char **error_message);

/* After both models are finished: the statistics, the matching and the thresholds. */
FSA_API fsa_status fsa_diff_finish(struct fsa_diff *diff);

/* Writes the finished diff. FSA_ERR_IO when writing fails. */
FSA_API fsa_status fsa_diff_write(struct fsa_diff *diff, enum fsa_report_format format, FILE *out);

/* --sections: a comma-separated list of table names (enum fsa_diff_table), or "all". FSA_OK, or
 * FSA_ERR_INVALID with a one-line reason in *error_message (transfer full, free()). */
FSA_API fsa_status fsa_diff_parse_tables(const char *text, unsigned *tables, char **error_message);

/* After fsa_diff_finish(): the thresholds that failed, one line each. Returns: (transfer none). */
FSA_API size_t fsa_diff_failure_count(const struct fsa_diff *diff);
FSA_API const char *fsa_diff_borrow_failure(const struct fsa_diff *diff, size_t index);

#endif /* FSA_DIFF_H */
