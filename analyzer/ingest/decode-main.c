/* SPDX-License-Identifier: MIT */
/*
 * fencescope-decode: the decoder helper. fsa_ingest_run() runs it in a child process so that
 * libbabeltrace2, which aborts or crashes on some damaged traces, can take only this process
 * down; it reads the trace with the in-process graph (graph.c) and writes every normalized
 * event, loss and progress step to the shared ring of the wire (wire-private.h).
 *
 *   fencescope-decode --wire SHM,DATA,ROOM [--payload HEX] [--order] -- TRACE
 *   fencescope-decode --discard TRACE
 *
 * SHM is the ring's memfd, DATA the "there is data" pipe's writing end, ROOM the "there is room"
 * socket's reading end (file descriptor numbers).
 *
 * --payload: the event types whose fields the reader needs, as a bit set in hexadecimal (bit i
 * for enum fsa_event_type i, lowest first); without it, every field of every type. It is not a
 * command for users: it is installed in LIBEXECDIR/fencescope and its interface may change.
 * --order: this helper reads some of the trace's streams and the reader merges its records with
 * another helper's (analyzer/ingest's split): stream keys and each event's and discard's place in
 * the muxer's order go along (wire-private.h, order mode).
 * --discard decodes every field of every event and throws it away: for fuzzers and by hand, it
 * prints the one-line error of a trace that cannot be read and exits 1 (a crash of
 * libbabeltrace2 is a crash of this process). With --wire, exit status 0: the end record was
 * written (whatever the trace), 1: the reader went away or the command line is wrong.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "decoder-private.h"
#include "ingest-private.h"
#include "wire-private.h"

static uint64_t decode_payload_bits[(FSA_EV_COUNT + 63) / 64];

static bool
decode_needs_payload(enum fsa_event_type type)
{
	return decode_payload_bits[type / 64] & (UINT64_C(1) << (type % 64));
}

static bool
decode_payload_parse(const char *hex)
{
	size_t len = strlen(hex);

	/* Lowest bits last, as a hexadecimal number is written. */
	for (size_t i = 0; i < len; i++) {
		char c = hex[len - 1 - i];
		unsigned v = c >= '0' && c <= '9'   ? (unsigned) (c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned) (c - 'a' + 10)
						    : 16;

		if (v == 16)
			return false;
		for (unsigned b = 0; b < 4; b++) {
			size_t bit = i * 4 + b;

			if ((v & (1u << b)) && bit < FSA_EV_COUNT)
				decode_payload_bits[bit / 64] |= UINT64_C(1) << (bit % 64);
		}
	}
	return true;
}

/* FENCESCOPE_DECODE_KILL_AFTER=N (tests only): the helper kills itself (SIGKILL) after writing N
 * events, as a decoder killed mid-trace; -1: never. */
static long long decode_kill_after = -1;
static long long decode_events_written;

static fsa_status
decode_event(void *data, const struct fsa_event *event)
{
	if (decode_events_written++ == decode_kill_after)
		raise(SIGKILL);
	return ingest_wire_put_event(data, event) ? FSA_OK : FSA_ERR_IO;
}

static fsa_status
decode_discard(void *data, const struct fsa_discard *discard)
{
	return ingest_wire_put_discard(data, discard) ? FSA_OK : FSA_ERR_IO;
}

static bool
decode_progress(void *data, uint64_t events, double fraction)
{
	/* The reader cancels by ending this process; a failed write ends it too. */
	return !ingest_wire_put_progress(data, events, fraction);
}

static fsa_status
decode_stream(void *data, const struct fsa_decoder_stream_key *key)
{
	return ingest_wire_put_stream(data, key) ? FSA_OK : FSA_ERR_IO;
}

static void
decode_heartbeat(void *data)
{
	ingest_wire_put_heartbeat(data);
}

/*
 * A damaged sequence length (a few flipped bytes in a stream file) makes libbabeltrace2 2.0.4
 * allocate and fill an array of that many fields before it notices the packet is too short:
 * gigabytes, for minutes. The helper's memory is therefore capped: the allocation fails, GLib
 * aborts, and the reader reports the crash with what it read before (docs/analyzer.md "Two
 * processes"). Decoding needs far less (it streams). Under a sanitizer, whose shadow memory the cap
 * would count, the sanitizer's own limit on one allocation does it.
 */
#define DECODE_MEMORY_LIMIT_MB 1024

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DECODE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DECODE_SANITIZED 1
#endif
#endif

#ifdef DECODE_SANITIZED
#define DECODE_STR_(x) #x
#define DECODE_STR(x)  DECODE_STR_(x)
const char *__asan_default_options(void);
const char *__tsan_default_options(void);

const char *
__asan_default_options(void)
{
	return "max_allocation_size_mb=" DECODE_STR(DECODE_MEMORY_LIMIT_MB);
}

const char *
__tsan_default_options(void)
{
	return "max_allocation_size_mb=" DECODE_STR(DECODE_MEMORY_LIMIT_MB);
}
#endif

static void
decode_limit_memory(void)
{
#ifndef DECODE_SANITIZED
	struct rlimit limit;
	rlim_t cap = (rlim_t) DECODE_MEMORY_LIMIT_MB << 20;

	if (getrlimit(RLIMIT_DATA, &limit) == 0 &&
	    (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > cap)) {
		limit.rlim_cur = cap;
		(void) setrlimit(RLIMIT_DATA, &limit);
	}
#endif
}

int
main(int argc, char **argv)
{
	struct ingest_wire_writer writer;
	struct fsa_ingest_callbacks callbacks = {
	    .event = decode_event,
	    .discard = decode_discard,
	    .progress = decode_progress,
	};
	struct fsa_ingest_stats stats = {0};
	const char *trace = NULL;
	char *error = NULL;
	int shm_fd = -1, data_fd = -1, room_fd = -1;
	bool is_ordered = false;
	fsa_status status;

	decode_limit_memory();
	if (getenv("FENCESCOPE_DECODE_KILL_AFTER"))
		decode_kill_after = strtoll(getenv("FENCESCOPE_DECODE_KILL_AFTER"), NULL, 10);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--discard") == 0 && i + 2 == argc) {
			struct fsa_ingest_stats discard_stats;
			fsa_status discard_status =
			    ingest_graph_read(argv[i + 1], NULL, &discard_stats, &error);

			if (discard_status != FSA_OK)
				fprintf(stderr, "%s\n",
					error ? error : fsa_status_string(discard_status));
			free(error);
			return discard_status == FSA_OK ? 0 : 1;
		}
		if (strcmp(argv[i], "--wire") == 0 && i + 1 < argc) {
			if (sscanf(argv[++i], "%d,%d,%d", &shm_fd, &data_fd, &room_fd) != 3)
				shm_fd = -1;
		} else if (strcmp(argv[i], "--payload") == 0 && i + 1 < argc) {
			if (!decode_payload_parse(argv[++i]))
				trace = NULL, i = argc;
			callbacks.needs_payload = decode_needs_payload;
		} else if (strcmp(argv[i], "--order") == 0) {
			is_ordered = true;
		} else if (strcmp(argv[i], "--") == 0 && i + 2 == argc) {
			trace = argv[++i];
		} else if (!trace && argv[i][0] != '-') {
			trace = argv[i];
		} else {
			trace = NULL;
			break;
		}
	}
	if (shm_fd < 0 || data_fd < 0 || room_fd < 0 || !trace) {
		fprintf(stderr,
			"usage: %s --wire SHM,DATA,ROOM [--payload HEX] [--order] -- TRACE (run by "
			"fencescope), or %s --discard TRACE\n",
			argv[0], argv[0]);
		return 1;
	}
	/* A reader that went away is a failed write, not a signal; a reader that died (even by
	 * SIGKILL) takes this process with it. */
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!ingest_wire_writer_init(&writer, shm_fd, data_fd, room_fd))
		return 1;
	callbacks.data = &writer;
	ingest_graph_set_heartbeat(decode_heartbeat, &writer);
	/* The wire sends the present slots only. */
	ingest_graph_set_present_only(true);
	if (is_ordered) {
		writer.is_ordered = true;
		ingest_graph_set_order(decode_stream, &writer.order, &writer);
	}
	status = ingest_graph_read(trace, &callbacks, &stats, &error);
	if (writer.has_failed)
		return 1;
	ingest_wire_put_end(&writer, (int) status, &stats, error);
	free(error);
	ingest_wire_writer_fini(&writer);
	return writer.has_failed ? 1 : 0;
}
