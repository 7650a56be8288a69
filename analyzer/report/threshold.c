/* SPDX-License-Identifier: MIT */
/*
 * --fail-if thresholds: "STAT(METRIC[, SCOPE=VALUE]) OP NUMBER[UNIT]", checked against the
 * finished report so CI can fail a build on a latency regression or on lost data. The grammar is
 * documented in docs/report-schema.md ("Thresholds"); every parse error names what was wrong in
 * one line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frame-stats-private.h"
#include "mmu-xad-private.h"
#include "recovery-private.h"
#include "report-private.h"

enum stat_kind { STAT_COUNT, STAT_MIN, STAT_MAX, STAT_TOTAL, STAT_MEAN, STAT_QUANTILE, STAT_LOST };

enum target {
	TARGET_LATENCY,     /* metric: enum fsa_metric */
	TARGET_RECONNECT,   /* doorbell reconnect latency */
	TARGET_PREEMPTION,  /* preemption durations */
	TARGET_TDR,         /* TDR durations */
	TARGET_PROPAGATION, /* cross-adapter signal → release latency (2.3) */
	TARGET_FRAME,       /* frame times, every display (2.4) */
	TARGET_PRESENT,     /* present latency (flip_queued → flip_done), every display (2.4) */
	TARGET_PACKET,      /* fencescope diff only: packet durations (packet_start → end) */
	TARGET_ANOMALY,     /* count only */
	TARGET_STATE,       /* count only: ops in a state (metric: enum fsa_op_state) */
	TARGET_OVERRUN,     /* count only: overrun records */
	TARGET_LOSS,        /* count only: loss records of every kind */
	TARGET_LOST,        /* lost(): metric 0 log, 1 events, 2 packets, 3 any */
	TARGET_FAULT,       /* count only: injected faults, metric 0 unaccounted, 1 all (2.2) */
	TARGET_PAGE_FAULT,  /* count only: GPU page faults (page_faults rows; 2.3) */
	TARGET_FRAME_COUNT, /* count only: frames over budget (metric 0), missed vsyncs (1); 2.4 */
};

enum compare { CMP_GT, CMP_GE, CMP_LT, CMP_LE, CMP_EQ, CMP_NE };

struct fsa_threshold {
	char *expression;
	enum stat_kind stat;
	double p; /* STAT_QUANTILE, in [0, 1] */
	enum target target;
	int metric;
	char scope; /* 'a' all, 'q' queue, 'f' fence, 'p' process, 'd' display (diff, by name) */
	uint64_t scope_key;
	/* fencescope diff: a quoted stable name instead of a key ("app#1/gpu0.3d0/user#1"). */
	char *scope_name;
	bool allow_names;
	int anomaly_kind; /* -1: all */
	enum compare compare;
	double value; /* ns for durations, else a count */
	bool is_duration;
	/* fencescope diff: "FACTOR * base [+|- OFFSET]": the limit is FACTOR times the same
	 * statistic in the base trace, plus OFFSET (ns for durations; value above is the offset).
	 */
	bool has_base;
	double base_factor;
};

static const char *const compare_names[] = {">", ">=", "<", "<=", "==", "!="};

const char *
threshold_expression(const struct fsa_threshold *threshold)
{
	return threshold->expression;
}

void
threshold_destroy(struct fsa_threshold *threshold)
{
	if (!threshold)
		return;
	free(threshold->expression);
	free(threshold->scope_name);
	free(threshold);
}

static void
skip_space(const char **p)
{
	while (isspace((unsigned char) **p))
		(*p)++;
}

/* A word of letters, digits, '_' and '.'; returns its length. */
static size_t
word_length(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char) p[n]) || p[n] == '_' || p[n] == '.')
		n++;
	return n;
}

static bool
word_is(const char *word, size_t len, const char *name)
{
	return strlen(name) == len && strncmp(word, name, len) == 0;
}

static fsa_status
parse_stat(struct fsa_threshold *t, const char *word, size_t len)
{
	static const struct {
		const char *name;
		enum stat_kind stat;
	} stats[] = {
	    {"count", STAT_COUNT}, {"min", STAT_MIN},   {"max", STAT_MAX},
	    {"total", STAT_TOTAL}, {"mean", STAT_MEAN}, {"lost", STAT_LOST},
	};

	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		if (word_is(word, len, stats[i].name)) {
			t->stat = stats[i].stat;
			return FSA_OK;
		}
	}
	if (len >= 2 && word[0] == 'p' && isdigit((unsigned char) word[1])) {
		char buf[32];
		char *end = NULL;

		if (len - 1 >= sizeof(buf))
			return FSA_ERR_INVALID;
		memcpy(buf, word + 1, len - 1);
		buf[len - 1] = '\0';
		errno = 0;
		double p = strtod(buf, &end);

		if (errno || *end || !(p > 0 && p <= 100))
			return FSA_ERR_INVALID;
		t->stat = STAT_QUANTILE;
		t->p = p / 100;
		return FSA_OK;
	}
	return FSA_ERR_INVALID;
}

static fsa_status
parse_target(struct fsa_threshold *t, const char *word, size_t len, char **error_message)
{
	static const struct {
		const char *name;
		enum target target;
		int metric;
	} targets[] = {
	    {"wait", TARGET_LATENCY, FSA_METRIC_WAIT},
	    {"wait_queued", TARGET_LATENCY, FSA_METRIC_WAIT_QUEUED},
	    {"wait_stalled", TARGET_LATENCY, FSA_METRIC_WAIT_STALLED},
	    {"signal", TARGET_LATENCY, FSA_METRIC_SIGNAL},
	    {"cpu_wait", TARGET_LATENCY, FSA_METRIC_CPU_WAIT},
	    {"reconnect", TARGET_RECONNECT, 0},
	    {"preemption", TARGET_PREEMPTION, 0},
	    {"tdr", TARGET_TDR, 0},
	    {"anomaly", TARGET_ANOMALY, 0},
	    {"inferred", TARGET_STATE, FSA_OP_INFERRED},
	    {"never_completed", TARGET_STATE, FSA_OP_NEVER_COMPLETED},
	    {"unqueued", TARGET_STATE, FSA_OP_UNQUEUED},
	    {"overrun", TARGET_OVERRUN, 0},
	    {"loss", TARGET_LOSS, 0},
	    {"fault_unaccounted", TARGET_FAULT, 0},
	    {"fault_injected", TARGET_FAULT, 1},
	    {"propagation", TARGET_PROPAGATION, 0},
	    {"page_fault", TARGET_PAGE_FAULT, 0},
	    {"frame", TARGET_FRAME, 0},
	    {"frame_time", TARGET_FRAME, 0},
	    {"present", TARGET_PRESENT, 0},
	    {"present_latency", TARGET_PRESENT, 0},
	    {"packet", TARGET_PACKET, 0},
	    {"frame_over_budget", TARGET_FRAME_COUNT, 0},
	    {"missed_vsync", TARGET_FRAME_COUNT, 1},
	};
	static const char *const lost_names[] = {"log", "events", "packets", "any"};

	if (t->stat == STAT_LOST) {
		for (size_t i = 0; i < 4; i++) {
			if (word_is(word, len, lost_names[i])) {
				t->target = TARGET_LOST;
				t->metric = (int) i;
				return FSA_OK;
			}
		}
		report_set_error(error_message,
				 "'%s': lost() takes log, events, packets or any, not '%.*s'",
				 t->expression, (int) len, word);
		return FSA_ERR_INVALID;
	}
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		if (!word_is(word, len, targets[i].name))
			continue;
		t->target = targets[i].target;
		t->metric = targets[i].metric;
		bool is_count_only = t->target >= TARGET_ANOMALY;

		/* A report keeps no packet durations; diff does (docs/report-schema.md "Diff"). */
		if (t->target == TARGET_PACKET && !t->allow_names) {
			report_set_error(error_message,
					 "'%s': packet is a metric of fencescope diff; a report "
					 "has no packet durations",
					 t->expression);
			return FSA_ERR_INVALID;
		}

		if (is_count_only && t->stat != STAT_COUNT) {
			report_set_error(error_message, "'%s': %.*s only has count()",
					 t->expression, (int) len, word);
			return FSA_ERR_INVALID;
		}
		return FSA_OK;
	}
	report_set_error(error_message,
			 "'%s': unknown metric '%.*s' (wait, wait_queued, wait_stalled, signal, "
			 "cpu_wait, reconnect, preemption, tdr, anomaly, inferred, "
			 "never_completed, unqueued, overrun, loss, fault_unaccounted, "
			 "fault_injected, propagation, page_fault, frame, present, "
			 "frame_over_budget, missed_vsync; diff: packet)",
			 t->expression, (int) len, word);
	return FSA_ERR_INVALID;
}

static fsa_status
parse_scope(struct fsa_threshold *t, const char **pp, char **error_message)
{
	const char *p = *pp;
	size_t len = word_length(p);
	const char *name = p;

	p += len;
	skip_space(&p);
	if (!len || *p != '=') {
		report_set_error(error_message, "'%s': expected SCOPE=VALUE after ','",
				 t->expression);
		return FSA_ERR_INVALID;
	}
	p++;
	skip_space(&p);
	/* A quoted value: a stable name of fencescope diff (docs/report-schema.md "Stable names").
	 */
	if (*p == '"' || *p == '\'') {
		const char *close = strchr(p + 1, *p);
		char scope = word_is(name, len, "queue")     ? 'q'
			     : word_is(name, len, "fence")   ? 'f'
			     : word_is(name, len, "process") ? 'p'
			     : word_is(name, len, "display") ? 'd'
							     : 0;
		/* What each metric can be scoped to by name: the diff objects that hold it. */
		bool is_allowed =
		    (t->target == TARGET_LATENCY && scope != 'd') ||
		    (t->target == TARGET_PACKET && (scope == 'q' || scope == 'p')) ||
		    ((t->target == TARGET_FRAME || t->target == TARGET_PRESENT) && scope == 'd');

		if (!t->allow_names) {
			report_set_error(
			    error_message,
			    "'%s': a quoted name is a scope of fencescope diff; a report "
			    "takes a handle or process id",
			    t->expression);
			return FSA_ERR_INVALID;
		}
		if (!close || close == p + 1) {
			report_set_error(error_message, "'%s': '%.*s=' needs a name between quotes",
					 t->expression, (int) len, name);
			return FSA_ERR_INVALID;
		}
		if (!scope || !is_allowed) {
			report_set_error(
			    error_message,
			    "'%s': a name scopes wait, wait_queued, wait_stalled, signal "
			    "or cpu_wait by queue=, fence= or process=, packet by queue= or "
			    "process=, frame and present by display=",
			    t->expression);
			return FSA_ERR_INVALID;
		}
		t->scope_name = strndup(p + 1, (size_t) (close - p - 1));
		if (!t->scope_name)
			return FSA_ERR_NOMEM;
		t->scope = scope;
		*pp = close + 1;
		return FSA_OK;
	}
	size_t value_len = word_length(p);
	const char *value = p;

	if (!value_len) {
		report_set_error(error_message, "'%s': '%.*s=' needs a value", t->expression,
				 (int) len, name);
		return FSA_ERR_INVALID;
	}
	*pp = p + value_len;
	if (word_is(name, len, "kind")) {
		if (t->target != TARGET_ANOMALY) {
			report_set_error(error_message, "'%s': kind= only applies to anomaly",
					 t->expression);
			return FSA_ERR_INVALID;
		}
		for (int k = 0; k < FSA_ANOM_KIND_COUNT; k++) {
			if (word_is(value, value_len, fsa_anomaly_kind_name(k))) {
				t->anomaly_kind = k;
				return FSA_OK;
			}
		}
		report_set_error(error_message, "'%s': '%.*s' is not an anomaly kind",
				 t->expression, (int) value_len, value);
		return FSA_ERR_INVALID;
	}
	char scope = word_is(name, len, "queue")     ? 'q'
		     : word_is(name, len, "fence")   ? 'f'
		     : word_is(name, len, "process") ? 'p'
						     : 0;

	if (word_is(name, len, "display")) {
		report_set_error(error_message,
				 "'%s': display= takes a stable name between quotes "
				 "(display=\"gpu0.display0\"), in fencescope diff",
				 t->expression);
		return FSA_ERR_INVALID;
	}
	if (!scope) {
		report_set_error(error_message,
				 "'%s': unknown scope '%.*s' (queue, fence, process or kind)",
				 t->expression, (int) len, name);
		return FSA_ERR_INVALID;
	}
	bool is_allowed =
	    t->target == TARGET_LATENCY ||
	    (t->target == TARGET_PACKET && (scope == 'q' || scope == 'p')) ||
	    (scope == 'p' && t->target == TARGET_PAGE_FAULT) ||
	    (scope == 'q' &&
	     (t->target == TARGET_RECONNECT || t->target == TARGET_STATE ||
	      t->target == TARGET_OVERRUN || (t->target == TARGET_LOST && t->metric == 0)));

	if (!is_allowed) {
		report_set_error(error_message, "'%s': this metric has no %.*s= scope",
				 t->expression, (int) len, name);
		return FSA_ERR_INVALID;
	}
	char buf[32];
	char *end = NULL;

	if (value_len >= sizeof(buf)) {
		report_set_error(error_message, "'%s': '%.*s' is not a number", t->expression,
				 (int) value_len, value);
		return FSA_ERR_INVALID;
	}
	memcpy(buf, value, value_len);
	buf[value_len] = '\0';
	errno = 0;
	t->scope_key = strtoull(buf, &end, 0);
	if (errno || *end || buf[0] == '-') {
		report_set_error(error_message, "'%s': '%s' is not a number (decimal or 0x…)",
				 t->expression, buf);
		return FSA_ERR_INVALID;
	}
	t->scope = scope;
	return FSA_OK;
}

/* After the comparison: "NUMBER[UNIT]", or with ALLOW_BASE "[FACTOR [*]] base [+|- NUMBER[UNIT]]".
 */
static fsa_status
parse_limit(struct fsa_threshold *t, const char *p, bool allow_base, char **error_message)
{
	double number = 0, unit_ns = 1;
	const char *unit_end = NULL;
	bool has_unit = false;
	size_t len = word_length(p);

	t->base_factor = 1;
	if (!word_is(p, len, "base")) {
		if (report_parse_number_unit(p, &number, &unit_end, &unit_ns, &has_unit) !=
		    FSA_OK) {
			report_set_error(error_message, "'%s': expected a number%s at '%s'",
					 t->expression, allow_base ? " or base" : "", p);
			return FSA_ERR_INVALID;
		}
		p = unit_end;
		skip_space(&p);
		if (*p == '*') {
			p++;
			skip_space(&p);
		}
		len = word_length(p);
		if (!word_is(p, len, "base")) {
			if (has_unit && !t->is_duration) {
				report_set_error(error_message, "'%s': a count takes no time unit",
						 t->expression);
				return FSA_ERR_INVALID;
			}
			if (*p != '\0') {
				report_set_error(error_message, "'%s': unexpected '%s' at the end",
						 t->expression, p);
				return FSA_ERR_INVALID;
			}
			t->value = number * unit_ns;
			return FSA_OK;
		}
		if (has_unit) {
			report_set_error(error_message, "'%s': the factor of base takes no unit",
					 t->expression);
			return FSA_ERR_INVALID;
		}
		t->base_factor = number;
	}
	if (!allow_base) {
		report_set_error(error_message,
				 "'%s': base is the other trace of fencescope diff; a report has "
				 "none",
				 t->expression);
		return FSA_ERR_INVALID;
	}
	t->has_base = true;
	p += len;
	skip_space(&p);
	if (*p == '+' || *p == '-') {
		double sign = *p == '-' ? -1 : 1;

		p++;
		skip_space(&p);
		if (report_parse_number_unit(p, &number, &unit_end, &unit_ns, &has_unit) !=
		    FSA_OK) {
			report_set_error(error_message, "'%s': expected a number at '%s'",
					 t->expression, p);
			return FSA_ERR_INVALID;
		}
		if (has_unit && !t->is_duration) {
			report_set_error(error_message, "'%s': a count takes no time unit",
					 t->expression);
			return FSA_ERR_INVALID;
		}
		t->value = sign * number * unit_ns;
		p = unit_end;
		skip_space(&p);
	}
	if (*p != '\0') {
		report_set_error(error_message, "'%s': unexpected '%s' at the end", t->expression,
				 p);
		return FSA_ERR_INVALID;
	}
	return FSA_OK;
}

fsa_status
threshold_parse(const char *expression, struct fsa_threshold **threshold, char **error_message)
{
	return threshold_parse_base(expression, false, threshold, error_message);
}

fsa_status
threshold_parse_base(const char *expression, bool allow_base, struct fsa_threshold **threshold,
		     char **error_message)
{
	/* Two-character operators first. */
	static const enum compare order[] = {CMP_GE, CMP_LE, CMP_EQ, CMP_NE, CMP_GT, CMP_LT};
	struct fsa_threshold *t = calloc(1, sizeof(*t));
	fsa_status status = FSA_ERR_INVALID;
	const char *p = expression ? expression : "";
	bool has_compare = false;
	const char *stat_word = NULL;
	size_t len;

	if (!t)
		return FSA_ERR_NOMEM;
	t->expression = strdup(p);
	t->allow_names = allow_base;
	t->scope = 'a';
	t->anomaly_kind = -1;
	if (!t->expression) {
		status = FSA_ERR_NOMEM;
		goto end;
	}
	skip_space(&p);
	len = word_length(p);
	if (!len || parse_stat(t, p, len) != FSA_OK) {
		report_set_error(error_message,
				 "'%s': expected count, min, max, total, mean, pNN or lost "
				 "followed by '('",
				 t->expression);
		goto end;
	}
	stat_word = p;
	p += len;
	skip_space(&p);
	if (*p != '(') {
		report_set_error(error_message, "'%s': expected '(' after '%.*s'", t->expression,
				 (int) len, stat_word);
		goto end;
	}
	p++;
	skip_space(&p);
	len = word_length(p);
	if (parse_target(t, p, len, error_message) != FSA_OK)
		goto end;
	p += len;
	skip_space(&p);
	if (*p == ',') {
		p++;
		skip_space(&p);
		if (parse_scope(t, &p, error_message) != FSA_OK)
			goto end;
		skip_space(&p);
	}
	if (*p != ')') {
		report_set_error(error_message, "'%s': expected ')' at '%s'", t->expression, p);
		goto end;
	}
	p++;
	skip_space(&p);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t n = strlen(compare_names[order[i]]);

		if (strncmp(p, compare_names[order[i]], n) == 0) {
			t->compare = order[i];
			p += n;
			has_compare = true;
			break;
		}
	}
	if (!has_compare) {
		report_set_error(error_message,
				 "'%s': expected a comparison (>, >=, <, <=, ==, !=) at '%s'",
				 t->expression, p);
		goto end;
	}
	skip_space(&p);
	t->is_duration = t->stat != STAT_COUNT && t->stat != STAT_LOST;
	if (parse_limit(t, p, allow_base, error_message) != FSA_OK)
		goto end;
	*threshold = t;
	t = NULL;
	status = FSA_OK;
end:
	threshold_destroy(t);
	return status;
}

static bool
compare(enum compare c, double measured, double limit)
{
	switch (c) {
	case CMP_GT:
		return measured > limit;
	case CMP_GE:
		return measured >= limit;
	case CMP_LT:
		return measured < limit;
	case CMP_LE:
		return measured <= limit;
	case CMP_EQ:
		return measured == limit;
	case CMP_NE:
		return measured != limit;
	}
	return false;
}

/* The statistic's value, or false when an empty statistic has none (min, max, mean, pNN). */
static bool
quantile_stat(const struct fsa_threshold *t, struct fsa_quantile *q, double *value)
{
	if (!q) {
		*value = 0;
		return t->stat == STAT_COUNT || t->stat == STAT_TOTAL;
	}
	switch (t->stat) {
	case STAT_COUNT:
		*value = (double) q->count;
		return true;
	case STAT_TOTAL:
		*value = (double) q->total;
		return true;
	default:
		break;
	}
	if (q->count == 0)
		return false;
	switch (t->stat) {
	case STAT_MIN:
		*value = (double) q->min;
		break;
	case STAT_MAX:
		*value = (double) q->max;
		break;
	case STAT_MEAN:
		*value = (double) q->total / (double) q->count;
		break;
	default:
		*value = (double) quantile_value(q, t->p);
		break;
	}
	return true;
}

static uint64_t
sum_queues(struct fsa_report *r, const struct fsa_threshold *t,
	   uint64_t (*get)(const struct fsa_queue_acc *queue, int metric))
{
	GHashTableIter iter;
	gpointer value;
	uint64_t sum = 0;

	g_hash_table_iter_init(&iter, r->queues);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct fsa_queue_acc *queue = value;

		if (t->scope == 'a' || queue->hwqueue_handle == t->scope_key)
			sum += get(queue, t->metric);
	}
	return sum;
}

static uint64_t
queue_state_count(const struct fsa_queue_acc *queue, int state)
{
	return queue->op_states[0][state] + queue->op_states[1][state];
}

static uint64_t
queue_overruns(const struct fsa_queue_acc *queue, int metric)
{
	(void) metric;
	return queue->overruns[0] + queue->overruns[1];
}

static uint64_t
queue_entries_lost(const struct fsa_queue_acc *queue, int metric)
{
	(void) metric;
	return queue->entries_lost[0] + queue->entries_lost[1];
}

/* The statistic T names, measured in R with the scope key KEY; false when it has no value. */
static bool
threshold_measure(const struct fsa_threshold *t, struct fsa_report *r, uint64_t key, double *value)
{
	struct fsa_threshold scoped = *t;
	double measured = 0;
	bool has_value = true;

	scoped.scope_key = key;
	t = &scoped;

	switch (t->target) {
	case TARGET_LATENCY: {
		struct fsa_latency *latency = report_find_latency(r, t->scope, t->scope_key);

		has_value = quantile_stat(t, latency ? &latency->q[t->metric] : NULL, &measured);
		break;
	}
	case TARGET_RECONNECT:
		if (t->scope == 'q') {
			struct fsa_queue_acc *queue = report_find_queue(r, t->scope_key);

			has_value = quantile_stat(t, queue ? &queue->reconnect : NULL, &measured);
		} else {
			has_value = quantile_stat(t, &r->reconnect_all, &measured);
		}
		break;
	case TARGET_PREEMPTION:
		has_value = quantile_stat(t, &r->marker_durations[FSA_MARK_PREEMPTION], &measured);
		if (t->stat == STAT_COUNT)
			measured = (double) r->marker_counts[FSA_MARK_PREEMPTION];
		break;
	case TARGET_TDR:
		has_value = quantile_stat(t, &r->marker_durations[FSA_MARK_TDR], &measured);
		if (t->stat == STAT_COUNT)
			measured = (double) r->marker_counts[FSA_MARK_TDR];
		break;
	case TARGET_ANOMALY:
		measured = (double) (t->anomaly_kind < 0 ? r->anomaly_total
							 : r->anomaly_counts[t->anomaly_kind]);
		break;
	case TARGET_STATE:
		measured = (double) (t->scope == 'a' ? r->state_counts[t->metric]
						     : sum_queues(r, t, queue_state_count));
		break;
	case TARGET_OVERRUN:
		measured = (double) (t->scope == 'a' ? r->loss_records_by_kind[FSA_LOSS_LOG_OVERRUN]
						     : sum_queues(r, t, queue_overruns));
		break;
	case TARGET_LOSS:
		measured = (double) r->loss_count;
		break;
	case TARGET_FAULT: {
		const struct fsa_recovery *rc = r->recovery;
		uint64_t sum = 0;

		for (size_t k = 0; k < 8; k++)
			sum += t->metric ? rc->injected[k] : rc->injected[k] - rc->accounted[k];
		measured = (double) sum;
		break;
	}
	case TARGET_PROPAGATION:
		has_value = quantile_stat(t, xad_release_all(r), &measured);
		break;
	case TARGET_FRAME:
		has_value = quantile_stat(t, &r->frame_stats->frame_time_all, &measured);
		break;
	case TARGET_PRESENT:
		has_value = quantile_stat(t, &r->frame_stats->present_latency_all, &measured);
		break;
	case TARGET_PACKET:
		/* Measured by fencescope diff on its own series (threshold_check_series). */
		has_value = quantile_stat(t, NULL, &measured);
		break;
	case TARGET_FRAME_COUNT:
		measured = (double) (t->metric ? r->frame_stats->missed_vsyncs_all
					       : r->frame_stats->over_budget_all);
		break;
	case TARGET_PAGE_FAULT: {
		const GArray *rows = r->mmu_xad->rows;
		uint64_t sum = 0;

		for (size_t i = 0; i < rows->len; i++)
			sum +=
			    t->scope == 'a' ||
			    g_array_index(rows, struct fsa_fault_row, i).process_id == t->scope_key;
		measured = (double) sum;
		break;
	}
	case TARGET_LOST:
		if (t->metric == 3)
			measured = (double) r->lost_by_kind[0] + (double) r->lost_by_kind[1] +
				   (double) r->lost_by_kind[2] +
				   (double) r->lost_by_kind[FSA_LOSS_LOG_GAP]; /* never wraps */
		else if (t->metric == 0 && t->scope == 'q')
			measured = (double) sum_queues(r, t, queue_entries_lost);
		else
			measured = (double) r->lost_by_kind[t->metric];
		break;
	}
	*value = measured;
	return has_value;
}

static void
value_text(const struct fsa_threshold *t, double value, char *text, size_t size)
{
	if (t->is_duration)
		fsa_format_duration(text, size, value < 0 ? 0 : (uint64_t) llround(value));
	else
		snprintf(text, size, "%.0f", value);
}

bool
threshold_check(const struct fsa_threshold *t, struct fsa_report *r, char **failure)
{
	return threshold_check_key(t, r, t->scope_key, failure);
}

bool
threshold_check_key(const struct fsa_threshold *t, struct fsa_report *r, uint64_t key,
		    char **failure)
{
	double measured = 0;
	char text[64];

	if (!threshold_measure(t, r, key, &measured)) {
		*failure = NULL;
		return false;
	}
	value_text(t, measured, text, sizeof(text));
	*failure = g_strdup_printf("%s: measured %s", t->expression, text);
	return compare(t->compare, measured, t->value);
}

bool
threshold_has_base(const struct fsa_threshold *t)
{
	return t->has_base;
}

char
threshold_scope(const struct fsa_threshold *t, uint64_t *key, const char **name)
{
	*key = t->scope_key;
	*name = t->scope_name;
	return t->scope;
}

/* The verdict of a threshold with base on the two values measured (HAS_*: false when a side has
 * none). */
static bool
check_base_values(const struct fsa_threshold *t, bool has_measured, double measured, bool has_base,
		  double base_value, char **message)
{
	double limit;
	char text[64], base_text[64], limit_text[64];

	if (!has_measured) {
		*message = g_strdup_printf("%s: no value in the new trace", t->expression);
		return false;
	}
	value_text(t, measured, text, sizeof(text));
	if (!has_base) {
		*message = g_strdup_printf("%s: measured %s, no value in the base trace",
					   t->expression, text);
		return false;
	}
	limit = t->base_factor * base_value + t->value;
	value_text(t, base_value, base_text, sizeof(base_text));
	value_text(t, limit, limit_text, sizeof(limit_text));
	*message = g_strdup_printf("%s: measured %s, base %s, limit %s", t->expression, text,
				   base_text, limit_text);
	return compare(t->compare, measured, limit);
}

bool
threshold_check_base(const struct fsa_threshold *t, struct fsa_report *base, uint64_t base_key,
		     struct fsa_report *r, uint64_t key, char **message)
{
	double measured = 0, base_value = 0;
	bool has_measured = threshold_measure(t, r, key, &measured);
	bool has_base = has_measured && base && threshold_measure(t, base, base_key, &base_value);

	return check_base_values(t, has_measured, measured, has_base, base_value, message);
}

enum threshold_series
threshold_series(const struct fsa_threshold *t)
{
	switch (t->target) {
	case TARGET_LATENCY:
		return (enum threshold_series)(THRESHOLD_SERIES_WAIT + t->metric);
	case TARGET_PACKET:
		return THRESHOLD_SERIES_PACKET;
	case TARGET_FRAME:
		return THRESHOLD_SERIES_FRAME;
	case TARGET_PRESENT:
		return THRESHOLD_SERIES_PRESENT;
	default:
		return THRESHOLD_SERIES_NONE;
	}
}

bool
threshold_check_series(const struct fsa_threshold *t, struct fsa_quantile *base, bool has_base,
		       struct fsa_quantile *q, char **message)
{
	double measured = 0, base_value = 0;
	bool has_measured = quantile_stat(t, q, &measured);
	char text[64];

	if (t->has_base) {
		has_base = has_measured && has_base && quantile_stat(t, base, &base_value);
		return check_base_values(t, has_measured, measured, has_base, base_value, message);
	}
	if (!has_measured) {
		*message = g_strdup_printf("%s: no value in the new trace", t->expression);
		return false;
	}
	value_text(t, measured, text, sizeof(text));
	*message = g_strdup_printf("%s: measured %s", t->expression, text);
	return compare(t->compare, measured, t->value);
}
