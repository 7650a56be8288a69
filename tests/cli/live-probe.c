/* SPDX-License-Identifier: MIT */
/*
 * `live-probe URL`: a test helper of tests/cli/test-live.c. It follows a live session with the
 * viewer's FsvLiveReader (viewer/core/fsv-live-reader.h), as `fencescope view --live` does, and
 * prints one line per trace the reader hands on,
 *   trace EVENTS END_NS OPS PACKETS
 * then, when the session ends,
 *   final EVENTS END_NS OPS PACKETS FENCESCOPE_EVENTS PARTIAL
 * (PARTIAL: 0 or 1), or `failed MESSAGE`. Exit status 0 after `final`, 1 after `failed`.
 */
#include <stdio.h>

#include <glib.h>

#include "fsv-live-reader.h"

typedef struct {
	GMutex lock;
	GCond done;
	gboolean is_done, has_failed;
} Probe;

static void
on_trace(FsvTrace *trace, gboolean is_final, guint64 events, const GError *error,
	 gpointer user_data)
{
	Probe *probe = user_data;

	if (trace)
		printf("%s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %u %u",
		       is_final ? "final" : "trace", events, fsv_trace_get_end_ns(trace),
		       fsv_trace_get_op_count(trace), fsv_trace_get_packet_count(trace));
	if (trace && is_final)
		printf(" %" G_GUINT64_FORMAT " %d", fsv_trace_get_summary(trace)->event_count,
		       fsv_trace_get_partial_error(trace) != NULL);
	if (trace)
		printf("\n");
	else
		printf("failed %s\n", error ? error->message : "?");
	fflush(stdout);
	if (!is_final)
		return;
	g_mutex_lock(&probe->lock);
	probe->is_done = TRUE;
	probe->has_failed = trace == NULL;
	g_cond_signal(&probe->done);
	g_mutex_unlock(&probe->lock);
}

int
main(int argc, char **argv)
{
	Probe probe = {0};
	FsvLiveReader *reader;

	if (argc != 2) {
		fprintf(stderr, "usage: live-probe URL\n");
		return 2;
	}
	g_mutex_init(&probe.lock);
	g_cond_init(&probe.done);
	reader = fsv_live_reader_start(argv[1], 300, on_trace, &probe);
	g_mutex_lock(&probe.lock);
	while (!probe.is_done)
		g_cond_wait(&probe.done, &probe.lock);
	g_mutex_unlock(&probe.lock);
	fsv_live_reader_stop(reader);
	return probe.has_failed ? 1 : 0;
}
