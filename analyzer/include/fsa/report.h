/* SPDX-License-Identifier: MIT */
/*
 * analyzer/report: the scripted analysis report of `fencescope report` and of
 * sink.fencescope.report. A report is a model sink (fsa/model.h): it folds every operation,
 * edge, packet, marker, loss and anomaly into bounded statistics as the model streams them, then
 * reads the model's queues, fences, processes, summary and clock fits once at the end, and writes
 * text, JSON or CSV (docs/report-schema.md). Its memory grows with the number of queues, fences
 * and processes, never with the length of the trace: latency quantiles keep exact samples up to
 * a cap and then switch to a log-linear histogram with a relative error of at most 1/256.
 *
 * It is not an exporter of every item (that is fsa/export-*.h, SQLite and Perfetto) and it never
 * reads a trace itself: analyzer/ingest feeds the model that feeds it.
 *
 * Typical use:
 *
 *     struct fsa_report *report = fsa_report_create(&options);
 *     struct fsa_model *model = fsa_model_create(fsa_report_borrow_sink(report));
 *     fsa_report_set_model(report, model);
 *     ... feed the model (fsa_ingest_into_model) ...
 *     fsa_report_finish(report);
 *     fsa_report_write(report, FSA_REPORT_FORMAT_JSON, stdout);
 *     if (fsa_report_failure_count(report) > 0) ... exit 3 ...
 *     fsa_model_destroy(model); fsa_report_destroy(report);
 */
#ifndef FSA_REPORT_H
#define FSA_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fsa/export.h"
#include "fsa/model.h"

/* The version of the JSON document (its "schema_version"); see docs/report-schema.md. */
#define FSA_REPORT_SCHEMA_VERSION "2.4"

enum fsa_report_format {
	FSA_REPORT_FORMAT_TEXT,
	FSA_REPORT_FORMAT_JSON,
	FSA_REPORT_FORMAT_CSV,
};

/* Sections, a bit mask. Their names (fsa_report_section_name) are the --sections words. */
enum fsa_report_section {
	FSA_REPORT_SUMMARY = 1u << 0,   /* "summary" */
	FSA_REPORT_LATENCY = 1u << 1,   /* "latency": wait/signal statistics per queue/fence/... */
	FSA_REPORT_LONGEST = 1u << 2,   /* "longest": the longest waits and who signalled them */
	FSA_REPORT_DOORBELLS = 1u << 3, /* "doorbells" */
	FSA_REPORT_PREEMPTION = 1u
				<< 4,   /* "preemption": preemption, TDR, resets, faults, packets */
	FSA_REPORT_LOSSES = 1u << 5,    /* "losses": overruns and tracer discards */
	FSA_REPORT_ANOMALIES = 1u << 6, /* "anomalies" */
	FSA_REPORT_CLOCKS = 1u << 7,    /* "clocks": GPU → trace clock fits */
	FSA_REPORT_TDR = 1u << 8,       /* "tdr": TDR sequences, contexts in error (2.2) */
	FSA_REPORT_DISPLAY = 1u << 9,   /* "display": vsyncs and flips (2.2) */
	FSA_REPORT_FAULTS = 1u << 10,   /* "faults": injected faults accounted for (2.2) */
	FSA_REPORT_PAGE_FAULTS = 1u << 11,   /* "page_faults": GPU page faults, recovery (2.3) */
	FSA_REPORT_MEMORY = 1u << 12,        /* "memory": GPU VA spaces, page tables (2.3) */
	FSA_REPORT_CROSS_ADAPTER = 1u << 13, /* "cross_adapter": propagation latency (2.3) */
	FSA_REPORT_FRAMES = 1u << 14,        /* "frames": frame times per display (2.4) */
	/* Every section above: the default, and what "all" names. */
	FSA_REPORT_ALL_SECTIONS = (1u << 15) - 1,
	/* "critical_path" (2.4): off unless named; it keeps a record per operation and packet. */
	FSA_REPORT_CRITICAL_PATH = 1u << 15,
};

/* A time given on a command line: absolute trace ns, or relative to the trace's first event. */
struct fsa_report_time {
	bool is_set;
	bool is_relative;
	uint64_t ns;
};

struct fsa_report_options {
	unsigned sections; /* enum fsa_report_section bits; 0 means all */
	/* Only operations, markers and losses overlapping [begin, end] count (both inclusive);
	 * anomalies count when their timestamp is in it. Unset: unbounded. */
	struct fsa_report_time begin, end;
	size_t longest_count;   /* entries of "longest"; 0 means the default, 10 */
	size_t example_count;   /* examples listed per anomaly kind; 0 means the default, 5 */
	size_t loss_list_count; /* loss records listed one by one; 0 means the default, 100 */
	bool is_fail_on_loss;   /* any overrun or tracer discard is a failure (exit status 3) */
	/* Every trace time written as signed ns since the trace's first event (text: "+1.500 ms",
	 * the viewer's formatting) instead of absolute trace ns; the summary section then gains a
	 * "times" table with the origin (docs/report-schema.md "Relative times"). */
	bool is_time_relative;
	/* Text only: tables keep one line per row however wide (--wide). By default a table wider
	 * than FSA_REPORT_TEXT_COLUMNS is split into parts that fit, each repeating the row's key
	 * columns (docs/report-schema.md "Text"). */
	bool is_text_wide;
	/* `frames`: a frame is over budget past this frame time; 0: the display's vsync period. */
	uint64_t frame_budget_ns;
	/* `critical_path`: without frames, the paths of this many longest waits; 0: 10. */
	size_t critical_path_count;
};

/* The width the text report fits in unless is_text_wide. */
#define FSA_REPORT_TEXT_COLUMNS 120

struct fsa_report;

/* Returns: (transfer full) (nullable: out of memory or invalid options). NULL options: defaults. */
FSA_API struct fsa_report *fsa_report_create(const struct fsa_report_options *options);
FSA_API void fsa_report_destroy(struct fsa_report *report);

/* Returns: (transfer none) the sink to create the model with; valid while the report lives. */
FSA_API const struct fsa_model_sink *fsa_report_borrow_sink(struct fsa_report *report);

/*
 * The model the report reads at fsa_report_finish() (queues, fences, processes, summary, clock
 * fits) and whose first timestamp anchors relative times. Borrowed: it must outlive the report's
 * use of it. Without a model, relative times count from 0 and the lookups are skipped.
 */
FSA_API void fsa_report_set_model(struct fsa_report *report, const struct fsa_model *model);

/*
 * Parses and adds a --fail-if threshold (grammar in docs/report-schema.md), e.g.
 * "p99(wait)>2ms", "count(anomaly, kind=wait_never_unblocked)>0", "lost(log)>0". Returns FSA_OK
 * or FSA_ERR_INVALID with a one-line reason in *error_message (transfer full, free(); may be
 * NULL to ignore).
 */
FSA_API fsa_status fsa_report_add_threshold(struct fsa_report *report, const char *expression,
					    char **error_message);

/*
 * Marks the report as covering only part of the trace (a damaged trace): the summary says so
 * with this one-line reason. The string is copied.
 */
FSA_API fsa_status fsa_report_set_partial(struct fsa_report *report, const char *reason);

/*
 * The trace the report is about, as the user named it: the text report's first line reads
 * "fencescope report  PATH". The string is copied; NULL forgets it.
 */
FSA_API fsa_status fsa_report_set_trace_path(struct fsa_report *report, const char *path);

/* After fsa_model_finish(): computes the statistics and evaluates the thresholds. */
FSA_API fsa_status fsa_report_finish(struct fsa_report *report);

/* Writes the finished report. Returns FSA_ERR_IO when writing fails. */
FSA_API fsa_status fsa_report_write(struct fsa_report *report, enum fsa_report_format format,
				    FILE *out);

/* After fsa_report_finish(): how many thresholds (and --fail-on-loss) failed, and why, one line
 * each: "p99(wait) > 2 ms: 3.12 ms". Returns: (transfer none). */
FSA_API size_t fsa_report_failure_count(const struct fsa_report *report);
FSA_API const char *fsa_report_borrow_failure(const struct fsa_report *report, size_t index);

/* "summary", "latency", … for one section bit; NULL for anything else. */
FSA_API const char *fsa_report_section_name(enum fsa_report_section section);

/*
 * Parsers for command-line values. Each returns FSA_OK, or FSA_ERR_INVALID with a one-line
 * reason in *error_message (transfer full, free(); may be NULL).
 *
 * fsa_report_parse_sections: a comma-separated list of section names, or "all".
 * fsa_report_parse_format: "text", "json" or "csv".
 * fsa_report_parse_duration: "1500", "1500ns", "2.5us", "200ms", "1.5s" → ns (no unit: ns).
 * fsa_report_parse_frame_budget: --frame-budget's value (of report, diff, view and render): a
 * duration above 0.
 * fsa_report_parse_time: a duration as absolute trace time, or "+DURATION" relative to the
 * trace's first event.
 */
FSA_API fsa_status fsa_report_parse_sections(const char *text, unsigned *sections,
					     char **error_message);
FSA_API fsa_status fsa_report_parse_format(const char *text, enum fsa_report_format *format,
					   char **error_message);
FSA_API fsa_status fsa_report_parse_duration(const char *text, uint64_t *ns, char **error_message);
FSA_API fsa_status fsa_report_parse_frame_budget(const char *text, uint64_t *ns,
						 char **error_message);
FSA_API fsa_status fsa_report_parse_time(const char *text, struct fsa_report_time *time,
					 char **error_message);

#endif /* FSA_REPORT_H */
