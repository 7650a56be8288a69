/* SPDX-License-Identifier: MIT */
/*
 * The rolling summary of `fencescope report --live` (report-live.h). Latency quantiles so far
 * come from a log-linear histogram of its own (buckets 1/128 of a power of two wide, as in the
 * report's histogram mode: a quantile is within 0.4 % of the true one, in constant memory however
 * long the session runs); the final report's quantiles are the report's own. Counts (operations,
 * losses, anomalies) are the model's running summary. It is not the report: it decides nothing
 * and changes nothing the report computes.
 */
#define _GNU_SOURCE
#include "report-live.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "fsa/duration.h"
#include "fsa/json.h"

/* Exact below 128 ns; then 128 buckets per power of two, up to 2^64. */
#define LIVE_SUB_BITS 7
#define LIVE_SUBS     (1u << LIVE_SUB_BITS)
#define LIVE_BUCKETS  ((64 - LIVE_SUB_BITS + 1) * LIVE_SUBS)
/* The clock is looked at every this many events (and at each quiet moment of the reader). */
#define LIVE_CLOCK_EVERY 1024

struct live_histogram {
	uint64_t count;
	uint64_t buckets[LIVE_BUCKETS];
};

struct fs_live_summary {
	uint64_t interval_us;
	enum fsa_report_format format;
	FILE *out;
	struct fsa_model_sink inner; /* the report's sink, fed after us */
	struct fsa_model_sink tee;   /* what the model is created with */
	struct fsa_model *model;     /* Weak: set by fs_live_summary_ingest() */
	/* Waits and signals on queues: [FSA_OP_WAIT], [FSA_OP_SIGNAL]. */
	struct live_histogram latency[2];
	uint64_t events, discards;
	gint64 start_us, next_us;
	uint64_t last_events;
	gint64 last_us;
	bool has_csv_header;
};

static size_t
live_bucket_of(uint64_t value)
{
	unsigned e;

	if (value < LIVE_SUBS)
		return (size_t) value;
	e = 63u - (unsigned) __builtin_clzll(value);
	return (size_t) (e - LIVE_SUB_BITS + 1) * LIVE_SUBS +
	       (size_t) ((value >> (e - LIVE_SUB_BITS)) - LIVE_SUBS);
}

/* The middle of bucket B (its value when exact). */
static uint64_t
live_bucket_value(size_t bucket)
{
	size_t octave = bucket / LIVE_SUBS, sub = bucket % LIVE_SUBS;
	unsigned shift;

	if (octave == 0)
		return (uint64_t) sub;
	shift = (unsigned) octave - 1;
	return ((uint64_t) (LIVE_SUBS + sub) << shift) + ((UINT64_C(1) << shift) >> 1);
}

/* The Q-quantile (nearest rank, as the report's), FSA_TIME_NONE when empty. */
static uint64_t
live_quantile(const struct live_histogram *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return FSA_TIME_NONE;
	rank = (uint64_t) (q * (double) h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	for (size_t b = 0; b < LIVE_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank)
			return live_bucket_value(b);
	}
	return FSA_TIME_NONE;
}

/* ---------------------------------------------------------------------------------------- */
/* The tee in front of the report's sink */

static fsa_status
live_op(void *data, const struct fsa_op *op)
{
	struct fs_live_summary *live = data;

	/* The report's "wait" and "signal" latency: observed boxes on queues (not the CPU's),
	 * queued to end. */
	if (op->source != FSA_SRC_CPU && op->state == FSA_OP_OBSERVED &&
	    op->queued_ns != FSA_TIME_NONE && op->end_ns != FSA_TIME_NONE &&
	    op->end_ns >= op->queued_ns && (op->kind == FSA_OP_WAIT || op->kind == FSA_OP_SIGNAL)) {
		struct live_histogram *h = &live->latency[op->kind];

		h->buckets[live_bucket_of(op->end_ns - op->queued_ns)]++;
		h->count++;
	}
	return live->inner.op ? live->inner.op(live->inner.data, op) : FSA_OK;
}

#define LIVE_FORWARD(name, type)                                                                   \
	static fsa_status live_##name(void *data, const type *item)                                \
	{                                                                                          \
		const struct fs_live_summary *live = data;                                         \
		return live->inner.name ? live->inner.name(live->inner.data, item) : FSA_OK;       \
	}
LIVE_FORWARD(edge, struct fsa_edge)
LIVE_FORWARD(packet, struct fsa_packet)
LIVE_FORWARD(marker, struct fsa_marker)
LIVE_FORWARD(loss, struct fsa_loss)
LIVE_FORWARD(anomaly, struct fsa_anomaly)
LIVE_FORWARD(fence_value, struct fsa_fence_value)
#undef LIVE_FORWARD

struct fs_live_summary *
fs_live_summary_create(uint64_t interval_ns, enum fsa_report_format format, FILE *out)
{
	struct fs_live_summary *live = calloc(1, sizeof(*live));

	if (!live)
		return NULL;
	live->interval_us = interval_ns / 1000;
	live->format = format;
	live->out = out;
	return live;
}

void
fs_live_summary_destroy(struct fs_live_summary *live)
{
	free(live);
}

const struct fsa_model_sink *
fs_live_summary_wrap_sink(struct fs_live_summary *live, const struct fsa_model_sink *inner)
{
	live->inner = *inner;
	live->tee = (struct fsa_model_sink){
	    .data = live,
	    .op = live_op,
	    .edge = live_edge,
	    .packet = live_packet,
	    .marker = live_marker,
	    .loss = live_loss,
	    .anomaly = live_anomaly,
	    .fence_value = live_fence_value,
	};
	return &live->tee;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing one summary */

struct live_numbers {
	double elapsed_s, events_per_s;
	uint64_t events, waits, signals, discards;
	uint64_t quantiles[2][2]; /* [kind][p50, p99] */
	uint64_t first_ns, last_ns;
	uint64_t log_lost, log_missing, overruns, tracer_events, tracer_packets, anomalies;
};

static void
live_numbers_take(struct fs_live_summary *live, gint64 now_us, struct live_numbers *n)
{
	const struct fsa_summary *sum = fsa_model_borrow_summary(live->model);
	double since_last_s = (double) (now_us - live->last_us) / 1e6;

	*n = (struct live_numbers){
	    .elapsed_s = (double) (now_us - live->start_us) / 1e6,
	    .events_per_s =
		since_last_s > 0 ? (double) (live->events - live->last_events) / since_last_s : 0,
	    .events = live->events,
	    .discards = live->discards,
	    .first_ns = sum->first_ns,
	    .last_ns = sum->last_ns,
	    .log_lost = sum->log_entries_lost,
	    .log_missing = sum->log_entries_missing,
	    .overruns = sum->overrun_count,
	    .tracer_events = sum->tracer_discarded_events,
	    .tracer_packets = sum->tracer_discarded_packets,
	};
	for (size_t source = 0; source < 3; source++) {
		n->waits += sum->op_counts[source][FSA_OP_WAIT];
		n->signals += sum->op_counts[source][FSA_OP_SIGNAL];
	}
	for (size_t kind = 0; kind < 2; kind++) {
		n->quantiles[kind][0] = live_quantile(&live->latency[kind], 0.50);
		n->quantiles[kind][1] = live_quantile(&live->latency[kind], 0.99);
	}
	for (size_t k = 0; k < FSA_ANOM_KIND_COUNT; k++)
		n->anomalies += sum->anomaly_counts[k];
	live->last_events = live->events;
	live->last_us = now_us;
}

static void
live_text_quantile(FILE *out, uint64_t ns)
{
	char text[FSA_DURATION_TEXT_MAX];

	if (ns == FSA_TIME_NONE) {
		fputs("-", out);
		return;
	}
	fsa_format_duration(text, sizeof(text), ns);
	fputs(text, out);
}

/* The kinds of anomaly seen so far, "kind N, kind N", most frequent kinds as they come. */
static void
live_text_anomalies(FILE *out, const struct fsa_summary *sum)
{
	const char *separator = " (";
	bool has_any = false;

	for (size_t k = 0; k < FSA_ANOM_KIND_COUNT; k++) {
		if (!sum->anomaly_counts[k])
			continue;
		fprintf(out, "%s%s %" PRIu64, separator,
			fsa_anomaly_kind_name((enum fsa_anomaly_kind) k), sum->anomaly_counts[k]);
		separator = ", ";
		has_any = true;
	}
	if (has_any)
		fputs(")", out);
}

static void
live_write_text(struct fs_live_summary *live, const struct live_numbers *n, bool is_end)
{
	FILE *out = live->out;
	char span[FSA_DURATION_TEXT_MAX] = "-";

	if (n->first_ns != FSA_TIME_NONE && n->last_ns != FSA_TIME_NONE &&
	    n->last_ns >= n->first_ns)
		fsa_format_duration(span, sizeof(span), n->last_ns - n->first_ns);
	fprintf(out,
		"live %s %.1f s: %" PRIu64 " events (%.0f/s), trace span %s, %" PRIu64
		" waits, %" PRIu64 " signals\n",
		is_end ? "end" : "at", n->elapsed_s, n->events, n->events_per_s, span, n->waits,
		n->signals);
	fputs("  wait p50 ", out);
	live_text_quantile(out, n->quantiles[FSA_OP_WAIT][0]);
	fputs(" p99 ", out);
	live_text_quantile(out, n->quantiles[FSA_OP_WAIT][1]);
	fputs("  signal p50 ", out);
	live_text_quantile(out, n->quantiles[FSA_OP_SIGNAL][0]);
	fputs(" p99 ", out);
	live_text_quantile(out, n->quantiles[FSA_OP_SIGNAL][1]);
	fputs("\n", out);
	fprintf(out,
		"  lost %" PRIu64 " log entries (%" PRIu64 " overruns), %" PRIu64
		" missing in log gaps, %" PRIu64 " tracer events, %" PRIu64
		" tracer packets; anomalies %" PRIu64,
		n->log_lost, n->overruns, n->log_missing, n->tracer_events, n->tracer_packets,
		n->anomalies);
	live_text_anomalies(out, fsa_model_borrow_summary(live->model));
	fputs("\n", out);
}

static void
live_json_field(FILE *out, const char *name, uint64_t value)
{
	fprintf(out, ",\"%s\":", name);
	if (value == FSA_TIME_NONE)
		fputs("null", out);
	else
		fsa_json_write_u64(out, value);
}

static void
live_write_json(struct fs_live_summary *live, const struct live_numbers *n, bool is_end)
{
	const struct fsa_summary *sum = fsa_model_borrow_summary(live->model);
	FILE *out = live->out;
	const char *separator = "";

	fprintf(out, "{\"live\":\"%s\",\"elapsed_s\":", is_end ? "end" : "at");
	fsa_json_write_double(out, n->elapsed_s);
	fputs(",\"events_per_s\":", out);
	fsa_json_write_double(out, n->events_per_s);
	live_json_field(out, "events", n->events);
	live_json_field(out, "first_ns", n->first_ns);
	live_json_field(out, "last_ns", n->last_ns);
	live_json_field(out, "waits", n->waits);
	live_json_field(out, "signals", n->signals);
	live_json_field(out, "wait_p50_ns", n->quantiles[FSA_OP_WAIT][0]);
	live_json_field(out, "wait_p99_ns", n->quantiles[FSA_OP_WAIT][1]);
	live_json_field(out, "signal_p50_ns", n->quantiles[FSA_OP_SIGNAL][0]);
	live_json_field(out, "signal_p99_ns", n->quantiles[FSA_OP_SIGNAL][1]);
	live_json_field(out, "log_entries_lost", n->log_lost);
	live_json_field(out, "overruns", n->overruns);
	live_json_field(out, "log_entries_missing", n->log_missing);
	live_json_field(out, "tracer_discarded_events", n->tracer_events);
	live_json_field(out, "tracer_discarded_packets", n->tracer_packets);
	live_json_field(out, "anomalies", n->anomalies);
	fputs(",\"anomaly_counts\":{", out);
	for (size_t k = 0; k < FSA_ANOM_KIND_COUNT; k++) {
		if (!sum->anomaly_counts[k])
			continue;
		fprintf(out, "%s\"%s\":", separator,
			fsa_anomaly_kind_name((enum fsa_anomaly_kind) k));
		fsa_json_write_u64(out, sum->anomaly_counts[k]);
		separator = ",";
	}
	fputs("}}\n", out);
}

static void
live_csv_field(FILE *out, uint64_t value)
{
	if (value == FSA_TIME_NONE)
		fputs(",", out);
	else
		fprintf(out, ",%" PRIu64, value);
}

static void
live_write_csv(struct fs_live_summary *live, const struct live_numbers *n, bool is_end)
{
	FILE *out = live->out;

	if (!live->has_csv_header)
		fputs("live,elapsed_s,events_per_s,events,first_ns,last_ns,waits,signals,"
		      "wait_p50_ns,wait_p99_ns,signal_p50_ns,signal_p99_ns,log_entries_lost,"
		      "overruns,log_entries_missing,tracer_discarded_events,tracer_discarded_"
		      "packets,anomalies\n",
		      out);
	live->has_csv_header = true;
	fprintf(out, "%s,%.3f,%.0f", is_end ? "end" : "at", n->elapsed_s, n->events_per_s);
	live_csv_field(out, n->events);
	live_csv_field(out, n->first_ns);
	live_csv_field(out, n->last_ns);
	live_csv_field(out, n->waits);
	live_csv_field(out, n->signals);
	for (size_t kind = 0; kind < 2; kind++) {
		live_csv_field(out, n->quantiles[kind][0]);
		live_csv_field(out, n->quantiles[kind][1]);
	}
	live_csv_field(out, n->log_lost);
	live_csv_field(out, n->overruns);
	live_csv_field(out, n->log_missing);
	live_csv_field(out, n->tracer_events);
	live_csv_field(out, n->tracer_packets);
	live_csv_field(out, n->anomalies);
	fputs("\n", out);
}

static void
live_write(struct fs_live_summary *live, bool is_end)
{
	struct live_numbers numbers;
	gint64 now_us = g_get_monotonic_time();

	live_numbers_take(live, now_us, &numbers);
	switch (live->format) {
	case FSA_REPORT_FORMAT_JSON:
		live_write_json(live, &numbers, is_end);
		break;
	case FSA_REPORT_FORMAT_CSV:
		live_write_csv(live, &numbers, is_end);
		break;
	default:
		live_write_text(live, &numbers, is_end);
		break;
	}
	fflush(live->out);
	live->next_us = now_us + (gint64) live->interval_us;
}

static void
live_tick(struct fs_live_summary *live)
{
	if (g_get_monotonic_time() >= live->next_us)
		live_write(live, false);
}

/* ---------------------------------------------------------------------------------------- */
/* Reading */

static fsa_status
live_event(void *data, const struct fsa_event *event)
{
	struct fs_live_summary *live = data;
	fsa_status status = fsa_model_add_event(live->model, event);

	if (++live->events % LIVE_CLOCK_EVERY == 0)
		live_tick(live);
	return status;
}

static fsa_status
live_discard(void *data, const struct fsa_discard *discard)
{
	struct fs_live_summary *live = data;

	live->discards++;
	return fsa_model_add_discard(live->model, discard);
}

/* Called every 64k events and whenever the reader waits for data (a live session's pauses). */
static bool
live_progress(void *data, uint64_t events, double fraction)
{
	(void) events;
	(void) fraction;
	live_tick(data);
	return false;
}

fsa_status
fs_live_summary_ingest(struct fs_live_summary *live, const char *trace, struct fsa_model *model,
		       struct fsa_ingest_stats *stats, char **error_message)
{
	const struct fsa_ingest_callbacks callbacks = {
	    .data = live,
	    .event = live_event,
	    .discard = live_discard,
	    .progress = live_progress,
	    .needs_payload = fsa_model_needs_payload,
	};
	fsa_status status, finish_status;

	live->model = model;
	live->start_us = live->last_us = g_get_monotonic_time();
	live->next_us = live->start_us + (gint64) live->interval_us;
	status = fsa_ingest_run(trace, &callbacks, stats, error_message);
	/* As fsa_ingest_into_model(): a damaged or cut trace is still analyzed up to the damage. */
	if (status != FSA_OK && status != FSA_ERR_TRACE)
		return status;
	finish_status = fsa_model_finish(model);
	live_write(live, true);
	return status != FSA_OK ? status : finish_status;
}
