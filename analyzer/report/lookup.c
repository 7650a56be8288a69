/* SPDX-License-Identifier: MIT */
/*
 * Names and lookups the report's files share: the metric names (thresholds parse them, tables
 * print them) and finding the accumulators of a scope or a queue (thresholds measure them). A
 * leaf: it reads the report's accumulators and calls none of report.c, tables.c, threshold.c or
 * the writers, so they can all depend on it without depending on each other. It is not where the
 * accumulators are filled (report.c) nor where anything is formatted (tables.c, write-*.c).
 */
#include "report-private.h"

static const char *const metric_names[FSA_METRIC_COUNT] = {
    [FSA_METRIC_WAIT] = "wait",
    [FSA_METRIC_WAIT_QUEUED] = "wait_queued",
    [FSA_METRIC_WAIT_STALLED] = "wait_stalled",
    [FSA_METRIC_SIGNAL] = "signal",
    [FSA_METRIC_CPU_WAIT] = "cpu_wait",
};

const char *
metric_name(enum fsa_metric metric)
{
	return (size_t) metric < FSA_METRIC_COUNT ? metric_names[metric] : "unknown";
}

struct fsa_latency *
report_find_latency(struct fsa_report *report, char scope, uint64_t key)
{
	switch (scope) {
	case 'a':
		return &report->overall;
	case 'q': {
		struct fsa_queue_acc *queue = g_hash_table_lookup(report->queues, &key);

		return queue ? &queue->latency : NULL;
	}
	case 'f': {
		struct fsa_fence_acc *fence = g_hash_table_lookup(report->fences, &key);

		return fence ? &fence->latency : NULL;
	}
	case 'p': {
		struct fsa_process_acc *process = g_hash_table_lookup(report->processes, &key);

		return process ? &process->latency : NULL;
	}
	}
	return NULL;
}

struct fsa_queue_acc *
report_find_queue(struct fsa_report *report, uint64_t hwqueue_handle)
{
	return g_hash_table_lookup(report->queues, &hwqueue_handle);
}
