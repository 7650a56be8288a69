/* SPDX-License-Identifier: MIT */
/*
 * fsa_ingest_run(): reads a trace through the decoder helper, `fencescope-decode`, in a child
 * process, and hands what it sends to the caller's callbacks. libbabeltrace2 2.0.4 aborts or
 * crashes on some damaged traces; in the child that ends only the child, and the caller keeps
 * everything that arrived before, with FSA_ERR_TRACE and a cause that is the same on every run.
 * The child decodes while the caller models, so the two use two cores.
 *
 * The helper is exec'd (posix_spawn), never forked bare: the viewer calls this from a worker
 * thread of a GTK process. It is found next to the build tree when the calling program runs from
 * the build tree, else in LIBEXECDIR/fencescope, else `../libexec/fencescope` beside the
 * program; FENCESCOPE_DECODE_HELPER names another one.
 *
 * Hang policy: a decoder that sends nothing for FENCESCOPE_DECODE_TIMEOUT seconds (default 60,
 * 0 for never) is killed; a live reader that waits for data says it is alive every second, so
 * only a stuck one is cut. The wire format is wire.c's; the graph itself is graph.c's.
 */
#define _GNU_SOURCE /* asprintf, pipe2, F_SETPIPE_SZ */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsa/ingest.h"
#include "ingest-private.h"
#include "wire-private.h"

extern char **environ;

#define INGEST_TIMEOUT_DEFAULT_S 60
#define INGEST_POLL_MS           250
#define INGEST_DECODERS_MAX      2
/* Below this many bytes of streams, one decoder reads a trace: a second one would cost its
 * start (libbabeltrace2's plugins, the metadata) for little. */
#define INGEST_SPLIT_MIN_BYTES (16 * 1024 * 1024)

static char *
ingest_helper_path(void)
{
	const char *env = getenv("FENCESCOPE_DECODE_HELPER");
	char exe[PATH_MAX];
	ssize_t len;
	char *path = NULL;

	if (env && *env)
		return strdup(env);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		if (strncmp(exe, FSA_BUILD_ROOT "/", strlen(FSA_BUILD_ROOT) + 1) == 0 &&
		    access(FSA_DECODE_BUILD_PATH, X_OK) == 0)
			return strdup(FSA_DECODE_BUILD_PATH);
	}
	if (access(FSA_DECODE_INSTALL_PATH, X_OK) == 0)
		return strdup(FSA_DECODE_INSTALL_PATH);
	if (len > 0) {
		char *slash = strrchr(exe, '/');

		/* A relocated install: PREFIX/bin/program → PREFIX/libexec/fencescope. */
		if (slash) {
			*slash = '\0';
			if (asprintf(&path, "%s/../libexec/fencescope/fencescope-decode", exe) < 0)
				path = NULL;
			if (path && access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	return strdup(FSA_DECODE_INSTALL_PATH);
}

static int
ingest_timeout_s(void)
{
	const char *env = getenv("FENCESCOPE_DECODE_TIMEOUT");

	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);

		if (*end == '\0' && v >= 0 && v < INT_MAX / 1000)
			return (int) v;
	}
	return INGEST_TIMEOUT_DEFAULT_S;
}

/* FENCESCOPE_DECODE_RING_KIB: a smaller ring, for tests (wrap-around, a writer that waits). */
static size_t
ingest_ring_size(void)
{
	const char *env = getenv("FENCESCOPE_DECODE_RING_KIB");
	long kib = env && *env ? strtol(env, NULL, 10) : 0;

	if (kib * 1024 >= INGEST_RING_SIZE_MIN && kib <= 1024 * 1024)
		return (size_t) kib * 1024;
	return INGEST_RING_SIZE;
}

/* The event types whose fields the caller needs, as decode-main.c's --payload reads them. */
static char *
ingest_payload_hex(bool (*needs_payload)(enum fsa_event_type type))
{
	size_t digits = (FSA_EV_COUNT + 3) / 4;
	char *hex = malloc(digits + 1);

	if (!hex)
		return NULL;
	for (size_t d = 0; d < digits; d++) {
		unsigned v = 0;

		for (unsigned b = 0; b < 4; b++) {
			size_t type = d * 4 + b;

			if (type < FSA_EV_COUNT && needs_payload((enum fsa_event_type) type))
				v |= 1u << b;
		}
		hex[digits - 1 - d] = "0123456789abcdef"[v];
	}
	hex[digits] = '\0';
	return hex;
}

static const char *
ingest_signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGABRT:
		return "SIGABRT";
	case SIGBUS:
		return "SIGBUS";
	case SIGFPE:
		return "SIGFPE";
	case SIGILL:
		return "SIGILL";
	case SIGKILL:
		return "SIGKILL";
	case SIGTERM:
		return "SIGTERM";
	case SIGINT:
		return "SIGINT";
	default:
		return NULL;
	}
}

/*
 * Our environment for the helper, except under AddressSanitizer: there the helper must die by
 * the signal libbabeltrace2 raises, as it does in a normal build, instead of ASan reporting the
 * fault and exiting 1 (ASAN_OPTIONS gets handle_segv=0 and friends; the helper's stderr is
 * /dev/null anyway). NULL: use `environ` as it is.
 */
static char **
ingest_child_environ(void)
{
	static const char add[] = "handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:"
				  "handle_sigill=0:detect_leaks=0";
	const char *asan = getenv("ASAN_OPTIONS");
	size_t count = 0, n = 0;
	char **env;

	if (!asan)
		return NULL;
	while (environ[count])
		count++;
	env = calloc(count + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		if (strncmp(environ[i], "ASAN_OPTIONS=", 13) == 0) {
			if (asprintf(&env[n], "ASAN_OPTIONS=%s%s%s", asan, *asan ? ":" : "", add) <
			    0)
				env[n] = NULL;
			if (env[n])
				n++;
		} else {
			env[n] = strdup(environ[i]);
			if (env[n])
				n++;
		}
	}
	return env;
}

static void
ingest_child_environ_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* The child's ends of the wire: the ring's memfd, the data pipe's writing end, the room
 * socket's reading end; ours: the data pipe's reading end and the room socket's writing end. */
struct ingest_channel {
	struct ingest_ring *ring;
	size_t ring_size; /* ours: the shared header's size is the helper's to scribble on */
	int shm_fd;
	int data[2];
	int room[2];
};

static void
ingest_channel_close_child_ends(struct ingest_channel *ch)
{
	if (ch->shm_fd >= 0)
		close(ch->shm_fd);
	if (ch->data[1] >= 0)
		close(ch->data[1]);
	if (ch->room[0] >= 0)
		close(ch->room[0]);
	ch->shm_fd = ch->data[1] = ch->room[0] = -1;
}

static void
ingest_channel_fini(struct ingest_channel *ch)
{
	ingest_channel_close_child_ends(ch);
	if (ch->data[0] >= 0)
		close(ch->data[0]);
	if (ch->room[1] >= 0)
		close(ch->room[1]);
	ingest_ring_destroy(ch->ring, ch->ring_size);
	*ch = (struct ingest_channel){.shm_fd = -1, .data = {-1, -1}, .room = {-1, -1}};
}

static fsa_status
ingest_helper_spawn(const char *helper, const char *trace, const char *payload, bool is_ordered,
		    struct ingest_channel *ch, pid_t *pid, char **error)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t signals;
	const char *log = getenv("FENCESCOPE_BT_LOG");
	bool is_logging = log && *log && strcmp(log, "0") != 0;
	char *argv[9];
	char wire[64];
	char **child_env;
	int argc = 0, err;

	ch->ring_size = ingest_ring_size();
	if (!ingest_ring_create(ch->ring_size, &ch->shm_fd, &ch->ring) ||
	    pipe2(ch->data, O_CLOEXEC) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ch->room) != 0) {
		ingest_error_set(error, "cannot start the decoder: %s", strerror(errno));
		return FSA_ERR_IO;
	}
	/* The helper's ends get fixed numbers 3, 4, 5; lift ours above them first, so that no
	 * dup2 lands on a number that is still to be copied (or onto itself, which would keep
	 * close-on-exec). */
	for (int i = 0; i < 3; i++) {
		int *which = i == 0 ? &ch->shm_fd : i == 1 ? &ch->data[1] : &ch->room[0];
		int moved = fcntl(*which, F_DUPFD_CLOEXEC, 10);

		if (moved < 0) {
			ingest_error_set(error, "cannot start the decoder: %s", strerror(errno));
			return FSA_ERR_IO;
		}
		close(*which);
		*which = moved;
	}
	snprintf(wire, sizeof(wire), "3,4,5");
	argv[argc++] = (char *) helper;
	argv[argc++] = (char *) "--wire";
	argv[argc++] = wire;
	if (payload) {
		argv[argc++] = (char *) "--payload";
		argv[argc++] = (char *) payload;
	}
	if (is_ordered)
		argv[argc++] = (char *) "--order";
	argv[argc++] = (char *) "--";
	argv[argc++] = (char *) trace;
	argv[argc] = NULL;

	posix_spawn_file_actions_init(&actions);
	posix_spawnattr_init(&attr);
	/* The child starts with no blocked signal and default actions (the viewer's threads may
	 * block some), in our process group so that Ctrl-C ends it with us. */
	sigemptyset(&signals);
	posix_spawnattr_setsigmask(&attr, &signals);
	sigaddset(&signals, SIGPIPE);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	posix_spawnattr_setsigdefault(&attr, &signals);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	/* Babeltrace's and GLib's complaints before a crash are noise here; the cause comes back
	 * in the end record or as the child's fate. FENCESCOPE_BT_LOG=1 shows them. */
	if (!is_logging)
		posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, ch->shm_fd, 3);
	posix_spawn_file_actions_adddup2(&actions, ch->data[1], 4);
	posix_spawn_file_actions_adddup2(&actions, ch->room[0], 5);
	child_env = ingest_child_environ();
	err = posix_spawn(pid, helper, &actions, &attr, argv, child_env ? child_env : environ);
	ingest_child_environ_free(child_env);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	/* Only the child keeps its ends: our data pipe then sees the end of file when it dies. */
	ingest_channel_close_child_ends(ch);
	if (err != 0) {
		if (err == ENOENT)
			ingest_error_set(
			    error,
			    "the decoder helper %s is missing (build or install "
			    "fencescope-decode, or name it in FENCESCOPE_DECODE_HELPER)",
			    helper);
		else
			ingest_error_set(error, "cannot start the decoder %s: %s", helper,
					 strerror(err));
		return FSA_ERR_IO;
	}
	return FSA_OK;
}

static int
ingest_helper_reap(pid_t pid, bool is_kill)
{
	int wstatus = 0;

	if (is_kill)
		kill(pid, SIGKILL);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	return wstatus;
}

/* One decoder helper and what it sent. */
struct ingest_decoder {
	struct ingest_channel channel;
	struct ingest_wire_reader reader;
	pid_t pid;
	char *view;  /* its view of the trace (transfer full), NULL: the trace or the shared view */
	bool is_eof; /* its data pipe's end of file: it is gone, the ring holds the rest */
	bool is_done; /* nothing more will be taken from it (its end, its ring drained, killed) */
	bool is_killed, is_timeout, is_garbage;
	bool has_head; /* `head` is its next event or discard, not delivered yet */
	struct ingest_wire_record head;
	struct fsa_ingest_stats seen; /* what arrived, for a decoder that died */
	uint64_t events_read;         /* from its progress records */
	double fraction;
	bool has_end;
	int end_status;
	struct fsa_ingest_stats end_stats;
	char *end_error;
	uint64_t last_data_ms;
	/* Order mode: its streams' keys by ordinal. */
	struct fsa_decoder_stream_key *keys;
	size_t key_count;
};

/* The decoders of one reading and the callbacks their records go to. With one decoder every
 * record is handed on as it comes; with two, events and discards go in the muxer's order. */
struct ingest_merge {
	const struct fsa_ingest_callbacks *cb;
	struct ingest_decoder decoders[INGEST_DECODERS_MAX];
	size_t count;
	bool has_delivered; /* something arrived in this round (not quiet) */
};

static void
ingest_decoder_fini(struct ingest_decoder *d)
{
	free(d->end_error);
	free(d->keys);
	ingest_wire_reader_fini(&d->reader);
	ingest_channel_fini(&d->channel);
	ingest_view_remove(d->view);
	*d = (struct ingest_decoder){0};
}

static fsa_status
ingest_decoder_key_add(struct ingest_decoder *d, const struct fsa_decoder_stream_key *key)
{
	if (key->ordinal >= d->key_count) {
		size_t count = (size_t) key->ordinal + 1;
		struct fsa_decoder_stream_key *keys;

		/* Ordinals are given in order: a jump is a helper gone astray. */
		if (count > d->key_count + 1024)
			return FSA_ERR_TRACE;
		keys = realloc(d->keys, count * sizeof(*keys));
		if (!keys)
			return FSA_ERR_NOMEM;
		memset(keys + d->key_count, 0, (count - d->key_count) * sizeof(*keys));
		d->keys = keys;
		d->key_count = count;
	}
	d->keys[key->ordinal] = *key;
	return FSA_OK;
}

/* The progress of the whole reading: events read by all decoders, and the fraction of the one
 * furthest behind (a decoder that ended counts as done). */
static bool
ingest_merge_progress(struct ingest_merge *m)
{
	uint64_t events = 0;
	double fraction = 1.0;

	for (size_t i = 0; i < m->count; i++) {
		const struct ingest_decoder *d = &m->decoders[i];
		double f = d->has_end ? 1.0 : d->fraction;

		events += d->events_read;
		/* A negative fraction ("cannot tell") wins. */
		if (i == 0 || f < fraction)
			fraction = f;
	}
	return m->cb->progress && m->cb->progress(m->cb->data, events, fraction);
}

/*
 * Makes decoder d's next event or discard its head, handing on the other records on the way
 * (progress, stream keys, its end). Returns FSA_OK (a head, or nothing more for now, or d is
 * done), a callback's status, FSA_ERR_CANCELLED, or FSA_ERR_TRACE / FSA_ERR_NOMEM for bytes that
 * are not records (d is then done).
 */
static fsa_status
ingest_decoder_advance(struct ingest_merge *m, struct ingest_decoder *d)
{
	while (!d->has_head && !d->is_done) {
		int got = ingest_wire_next(&d->reader, &d->head);
		fsa_status status;

		if (got < 0) {
			d->is_garbage = d->is_done = true;
			return FSA_OK;
		}
		if (got == 0) {
			bool is_eof = d->is_eof, is_writer_waiting = false;
			size_t taken = ingest_wire_reader_take(
			    &d->reader, d->channel.ring, d->channel.ring_size, &is_writer_waiting);

			if (is_writer_waiting)
				(void) send(d->channel.room[1], "", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (taken > 0) {
				m->has_delivered = true;
				continue;
			}
			/* Gone and drained: a record it began and never ended is dropped. */
			if (is_eof)
				d->is_done = true;
			return FSA_OK;
		}
		switch (d->head.tag) {
		case INGEST_WIRE_EVENT:
		case INGEST_WIRE_DISCARD:
			d->has_head = true;
			break;
		case INGEST_WIRE_PROGRESS:
			d->events_read = d->head.events;
			d->fraction = d->head.fraction;
			if (ingest_merge_progress(m))
				return FSA_ERR_CANCELLED;
			break;
		case INGEST_WIRE_HEARTBEAT:
			break;
		case INGEST_WIRE_STREAM:
			status = ingest_decoder_key_add(d, &d->head.key);
			if (status != FSA_OK) {
				d->is_garbage = d->is_done = true;
				return FSA_OK;
			}
			break;
		case INGEST_WIRE_END:
			/* The end record is the last word: do not wait for the helper's exit. */
			free(d->end_error);
			d->has_end = d->is_done = true;
			d->end_status = d->head.status;
			d->end_stats = d->head.stats;
			d->end_error = d->head.error;
			if (d->end_status == FSA_ERR_CANCELLED ||
			    d->end_status == FSA_ERR_INVALID) {
				/* Only the reader cancels (it then stops the helper and reads no
				 * outcome), and it always names a trace: a helper that ends with
				 * either was sent astray. Damage, here where it enters: with two
				 * decoders the other one is read to its end, as for any partial
				 * reading. */
				char *why = NULL;

				ingest_error_set(&why,
						 "the decoder ended with the status \"%s\", which "
						 "only the reader can give",
						 fsa_status_string((fsa_status) d->end_status));
				free(d->end_error);
				d->end_error = why;
				d->end_status = FSA_ERR_TRACE;
			}
			break;
		}
	}
	return FSA_OK;
}

/* The key of decoder d's head's stream; a zero key for an ordinal it never announced. */
static const struct fsa_decoder_stream_key *
ingest_head_key(const struct ingest_decoder *d)
{
	static const struct fsa_decoder_stream_key none = {0};
	uint32_t ordinal = d->head.order.ordinal;

	return ordinal < d->key_count ? &d->keys[ordinal] : &none;
}

/*
 * Whether a's head goes before b's, as flt.utils.muxer (libbabeltrace2 2.0) would order them:
 * by time, then by trace UUID (a trace with one first), stream class id and stream id
 * (plugins/common/muxing/muxing.c). Heads of different streams never compare equal; the same
 * stream in both decoders cannot happen (whole streams are split), and would keep the decoders'
 * order. Message types are compared only within one stream, which each decoder's own muxer did.
 */
static bool
ingest_head_is_before(const struct ingest_decoder *a, const struct ingest_decoder *b)
{
	const struct fsa_decoder_stream_key *ka, *kb;
	int cmp;

	if (a->head.order.ts != b->head.order.ts)
		return a->head.order.ts < b->head.order.ts;
	ka = ingest_head_key(a);
	kb = ingest_head_key(b);
	if (ka->has_uuid != kb->has_uuid)
		return ka->has_uuid;
	cmp = ka->has_uuid ? memcmp(ka->uuid, kb->uuid, sizeof(ka->uuid)) : 0;
	if (cmp != 0)
		return cmp < 0;
	if (ka->stream_class_id != kb->stream_class_id)
		return ka->stream_class_id < kb->stream_class_id;
	if (ka->stream_id != kb->stream_id)
		return ka->stream_id < kb->stream_id;
	return a < b;
}

static fsa_status
ingest_head_deliver(struct ingest_merge *m, struct ingest_decoder *d)
{
	const struct fsa_ingest_callbacks *cb = m->cb;
	const struct ingest_wire_record *record = &d->head;

	d->has_head = false;
	m->has_delivered = true;
	if (record->tag == INGEST_WIRE_EVENT) {
		d->seen.fencescope_events++;
		return cb->event ? cb->event(cb->data, record->event) : FSA_OK;
	}
	if (record->discard.kind == FSA_DISCARD_EVENTS)
		d->seen.discarded_events += record->discard.count ? record->discard.count : 1;
	else
		d->seen.discarded_packets += record->discard.count ? record->discard.count : 1;
	return cb->discard ? cb->discard(cb->data, &record->discard) : FSA_OK;
}

/* Hands on everything that can go now. Returns FSA_OK or the status that stops the reading. */
static fsa_status
ingest_merge_pump(struct ingest_merge *m)
{
	for (;;) {
		struct ingest_decoder *next = NULL;
		fsa_status status;

		for (size_t i = 0; i < m->count; i++) {
			struct ingest_decoder *d = &m->decoders[i];

			status = ingest_decoder_advance(m, d);
			if (status != FSA_OK)
				return status;
			/* An error that ends the whole reading in one decoder ends it in all. */
			if (m->count > 1 && d->has_end && d->end_status != FSA_OK &&
			    d->end_status != FSA_ERR_TRACE)
				return FSA_OK;
			if (d->has_head) {
				if (!next || (m->count > 1 && ingest_head_is_before(d, next)))
					next = d;
			} else if (!d->is_done && m->count > 1) {
				/* Its next record may go first: wait for it. */
				return FSA_OK;
			}
		}
		if (!next)
			return FSA_OK;
		/* A run of heads of one decoder: while its head still goes first, only it is read
		 * (the others' heads stay where they are). */
		for (;;) {
			bool is_first = true;

			status = ingest_head_deliver(m, next);
			if (status != FSA_OK)
				return status;
			status = ingest_decoder_advance(m, next);
			if (status != FSA_OK)
				return status;
			if (!next->has_head)
				break;
			for (size_t i = 0; i < m->count && is_first; i++) {
				const struct ingest_decoder *other = &m->decoders[i];

				if (other == next)
					continue;
				/* One that is not done may have a record by now that goes first. */
				is_first = other->has_head ? ingest_head_is_before(next, other)
							   : other->is_done;
			}
			if (!is_first)
				break;
		}
	}
}

/* Whether the reading is over: every decoder done, or one ended with an error that ends all. */
static bool
ingest_merge_is_over(const struct ingest_merge *m)
{
	bool is_over = true;

	for (size_t i = 0; i < m->count; i++) {
		const struct ingest_decoder *d = &m->decoders[i];

		if (m->count > 1 && d->has_end && d->end_status != FSA_OK &&
		    d->end_status != FSA_ERR_TRACE)
			return true;
		is_over = is_over && d->is_done && !d->has_head;
	}
	return is_over;
}

static uint64_t
ingest_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* `message` with the view's folders put back as the trace's: view/dN → dirs->paths[N], then
 * view → trace. (transfer full; takes `message`) */
static char *
ingest_message_unview(char *message, const char *view, const struct ingest_dirs *dirs,
		      const char *trace)
{
	for (size_t i = dirs->count + 1; message && view && i-- > 0;) {
		char *from = NULL, *at;
		const char *to = i < dirs->count ? dirs->paths[i] : trace;

		if ((i < dirs->count ? asprintf(&from, "%s/d%zu", view, i)
				     : asprintf(&from, "%s", view)) < 0)
			break;
		while ((at = strstr(message, from))) {
			char *next = NULL;

			if (asprintf(&next, "%.*s%s%s", (int) (at - message), message, to,
				     at + strlen(from)) < 0) {
				free(from);
				return message;
			}
			free(message);
			message = next;
		}
		free(from);
	}
	return message;
}

/* The loss that names the damage in the message: the first cut or damaged stream. */
static const struct ingest_truncation *
ingest_cuts_first_loss(const struct ingest_truncations *cuts)
{
	for (size_t i = 0; i < cuts->count; i++) {
		if (cuts->items[i].kind != INGEST_CUT_STRAY)
			return &cuts->items[i];
	}
	return NULL;
}

static bool
ingest_cuts_has_another_loss(const struct ingest_truncations *cuts,
			     const struct ingest_truncation *first)
{
	for (size_t i = 0; i < cuts->count; i++) {
		if (&cuts->items[i] != first && cuts->items[i].kind != INGEST_CUT_STRAY)
			return true;
	}
	return false;
}

static void
ingest_cut_describe(const struct ingest_truncation *cut, bool has_more, char **error)
{
	const char *more = has_more ? ", and other streams are damaged or cut too" : "";

	if (cut->kind == INGEST_CUT_DAMAGED)
		ingest_error_set(error,
				 "stream file %s cannot be read: it does not start with the CTF "
				 "packet magic number (a damaged packet header); its events are "
				 "lost, the other streams were read%s",
				 cut->file, more);
	else
		/* A cut inside (or before) the first packet leaves no whole packet: saying that
		 * "the packets before the cut were read" would claim events that were never there.
		 */
		ingest_error_set(
		    error,
		    "stream file %s is cut short: %" PRIu64 " of its %" PRIu64
		    " packets are missing or incomplete (%" PRIu64
		    " bytes in the file, whole packets up to byte %" PRIu64 "); %s%s",
		    cut->file, cut->packets_lost, cut->packets, cut->file_bytes, cut->kept_bytes,
		    cut->kept_bytes > 0
			? "the packets before the cut were read"
			: "no whole packet before the cut: none of its events were read",
		    more);
}

/* One note per stray file: the trace is whole, but the user should know the file was not read. */
static void
ingest_strays_note(const struct fsa_ingest_callbacks *cb, const struct ingest_truncations *cuts)
{
	for (size_t i = 0; i < cuts->count; i++) {
		char *text = NULL;

		if (cuts->items[i].kind != INGEST_CUT_STRAY ||
		    asprintf(&text,
			     "%s is not a CTF stream file: skipped (the trace was read "
			     "without it)",
			     cuts->items[i].file) < 0)
			continue;
		if (cb->note)
			cb->note(cb->data, text);
		else
			fprintf(stderr, "fencescope: note: %s\n", text);
		free(text);
	}
}

/* How many decoders read a trace (docs/analyzer.md "Two decoders"): FENCESCOPE_DECODERS=1 or 2,
 * else two when the trace is large enough (INGEST_SPLIT_MIN_BYTES of streams), splits evenly
 * enough (the smaller part at least an eighth), and two processors are online. Two only when
 * ingest_split_plan() finds an exact split, and only with libbabeltrace2 2.0, whose muxer
 * ingest_head_is_before() reproduces. On 2, *split says which decoder reads which stream. */
static size_t
ingest_decoder_count(const struct ingest_dirs *dirs, const struct ingest_truncations *cuts,
		     struct ingest_split *split)
{
	const char *env = getenv("FENCESCOPE_DECODERS");
	bool is_forced = env && strcmp(env, "2") == 0;
	uint64_t total, smaller;

	if ((env && strcmp(env, "1") == 0) || (!is_forced && sysconf(_SC_NPROCESSORS_ONLN) < 2) ||
	    bt_version_get_major() != 2 || bt_version_get_minor() != 0 ||
	    !ingest_split_plan(dirs, cuts, split))
		return 1;
	total = split->bytes[0] + split->bytes[1];
	smaller = split->bytes[0] < split->bytes[1] ? split->bytes[0] : split->bytes[1];
	if (!is_forced && (total < INGEST_SPLIT_MIN_BYTES || smaller < total / 8)) {
		ingest_split_fini(split);
		return 1;
	}
	return 2;
}

/* One decoder's fate as a status and a one-line error (or a whole message naming the trace). */
static fsa_status
ingest_decoder_outcome(const struct ingest_decoder *d, int wstatus, const char *helper,
		       const char *named, int timeout_s, char **error, char **message)
{
	if (d->is_timeout) {
		ingest_error_set(error,
				 "the decoder sent nothing for %d s and was stopped "
				 "(FENCESCOPE_DECODE_TIMEOUT sets the limit)",
				 timeout_s);
		return FSA_ERR_TRACE;
	}
	if (d->is_garbage) {
		ingest_error_set(error, "the decoder sent bytes that are not records");
		return FSA_ERR_TRACE;
	}
	if (d->has_end) {
		/* The graph's message already names the trace. A helper gone astray may send one
		 * that does not, or none: it gets the trace's path. */
		if (d->end_error && strncmp(d->end_error, named, strlen(named)) == 0)
			*message = strdup(d->end_error);
		else if (d->end_error)
			ingest_error_set(error, "%s", d->end_error);
		return (fsa_status) d->end_status;
	}
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		const char *name = ingest_signal_name(sig);
		/* A fault of its own, or a signal from outside (Ctrl-C, kill). */
		bool is_fault = sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS ||
				sig == SIGFPE || sig == SIGILL;

		if (is_fault)
			ingest_error_set(error,
					 "libbabeltrace2 crashed (%s) while decoding the trace "
					 "(a damaged stream file?)",
					 name);
		else if (name)
			ingest_error_set(error, "the decoder was stopped by %s from outside", name);
		else
			ingest_error_set(error, "the decoder was ended by signal %d", sig);
		return FSA_ERR_TRACE;
	}
	ingest_error_set(error, "the decoder %s exited with status %d without finishing", helper,
			 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
	return FSA_ERR_TRACE;
}

fsa_status
fsa_ingest_run(const char *trace, const struct fsa_ingest_callbacks *callbacks,
	       struct fsa_ingest_stats *stats, char **error_message)
{
	static const struct fsa_ingest_callbacks no_callbacks = {0};
	struct ingest_merge m = {.cb = callbacks ? callbacks : &no_callbacks, .count = 1};
	struct ingest_dirs dirs = {0};
	struct ingest_truncations cuts = {0};
	struct ingest_split split = {0};
	const struct ingest_truncation *lost;
	struct fsa_ingest_stats result = {0}, seen = {0};
	char *helper = NULL, *payload = NULL, *error = NULL, *message = NULL, *view = NULL;
	const char *message_view = NULL;
	int timeout_s = ingest_timeout_s();
	bool is_live = false, is_stopped_by_us = false, is_over_by_error = false;
	fsa_status status = FSA_OK;

	for (size_t i = 0; i < INGEST_DECODERS_MAX; i++)
		m.decoders[i] = (struct ingest_decoder){
		    .channel = {.shm_fd = -1, .data = {-1, -1}, .room = {-1, -1}}, .pid = -1};
	if (error_message)
		*error_message = NULL;
	if (stats)
		*stats = (struct fsa_ingest_stats){0};
	if (!trace) {
		ingest_error_set(&error, "no trace given");
		status = FSA_ERR_INVALID;
		goto end;
	}
	is_live = ingest_is_live_url(trace);
	/* Path errors, several recordings and cut streams are found here, without Babeltrace. */
	if (!is_live) {
		status = ingest_dirs_find(trace, &dirs, &error);
		if (status == FSA_OK && dirs.count == 0) {
			ingest_error_set(&error,
					 "no CTF trace found (no folder with a metadata file)");
			status = FSA_ERR_IO;
		}
		if (status == FSA_OK)
			status = ingest_recordings_check(&dirs, trace, &error);
		if (status == FSA_OK)
			status = ingest_truncations_find(&dirs, &cuts);
		if (status == FSA_OK)
			m.count = ingest_decoder_count(&dirs, &cuts, &split);
		/* Two decoders: a view each, holding its streams. */
		for (size_t i = 0; status == FSA_OK && m.count > 1 && i < m.count; i++)
			status = ingest_view_create_part(&dirs, &cuts, &split, (int) i,
							 &m.decoders[i].view, &error);
		if (status == FSA_OK && m.count == 1 && cuts.count > 0)
			status = ingest_view_create(&dirs, &cuts, &view, &error);
		if (status != FSA_OK)
			goto end;
		ingest_strays_note(m.cb, &cuts);
	}
	helper = ingest_helper_path();
	if (m.cb->needs_payload)
		payload = ingest_payload_hex(m.cb->needs_payload);
	if (!helper || (m.cb->needs_payload && !payload)) {
		ingest_error_set(&error, "out of memory");
		status = FSA_ERR_NOMEM;
		goto end;
	}
	for (size_t i = 0; i < m.count; i++) {
		struct ingest_decoder *d = &m.decoders[i];

		if (!ingest_wire_reader_init(&d->reader)) {
			ingest_error_set(&error, "out of memory");
			status = FSA_ERR_NOMEM;
			goto end;
		}
		d->reader.is_ordered = m.count > 1;
		status = ingest_helper_spawn(helper,
					     d->view ? d->view
					     : view  ? view
						     : trace,
					     payload, m.count > 1, &d->channel, &d->pid, &error);
		if (status != FSA_OK)
			goto end;
		d->last_data_ms = ingest_now_ms();
	}
	for (;;) {
		struct pollfd pfds[INGEST_DECODERS_MAX];
		size_t polled[INGEST_DECODERS_MAX], n = 0;
		int ready = 0;

		for (size_t i = 0; i < m.count; i++) {
			if (!m.decoders[i].is_eof) {
				pfds[n] = (struct pollfd){.fd = m.decoders[i].channel.data[0],
							  .events = POLLIN};
				polled[n++] = i;
			}
		}
		m.has_delivered = false;
		if (n > 0)
			ready = poll(pfds, n, INGEST_POLL_MS);
		if (ready < 0 && errno != EINTR) {
			ingest_error_set(&error, "cannot wait for the decoder: %s",
					 strerror(errno));
			status = FSA_ERR_IO;
			is_stopped_by_us = true;
			break;
		}
		for (size_t k = 0; ready > 0 && k < n; k++) {
			struct ingest_decoder *d = &m.decoders[polled[k]];
			char bytes[256];
			ssize_t got;

			if (!pfds[k].revents)
				continue;
			got = read(d->channel.data[0], bytes, sizeof(bytes));
			/* The end of file: the helper is gone (done or dead); what it published is
			 * still in the ring. */
			d->is_eof = got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN);
			d->last_data_ms = ingest_now_ms();
			m.has_delivered = true;
		}
		/* Drain the rings, waking a writer that waits for room, and hand records on. */
		status = ingest_merge_pump(&m);
		if (status != FSA_OK) {
			is_stopped_by_us = true;
			break;
		}
		if (ingest_merge_is_over(&m))
			break;
		if (!m.has_delivered) {
			uint64_t now = ingest_now_ms();

			/* Quiet: let the caller cancel, and cut a decoder that hangs (one that
			 * waits for room in its ring is waiting for us, not hung). */
			if (ingest_merge_progress(&m)) {
				status = FSA_ERR_CANCELLED;
				is_stopped_by_us = true;
				break;
			}
			for (size_t i = 0; timeout_s > 0 && i < m.count; i++) {
				struct ingest_decoder *d = &m.decoders[i];

				if (!d->is_done && !d->has_head &&
				    now - d->last_data_ms >= (uint64_t) timeout_s * 1000) {
					kill(d->pid, SIGKILL);
					d->is_timeout = d->is_killed = d->is_done = true;
				}
			}
			if (ingest_merge_is_over(&m))
				break;
		}
	}
	for (size_t i = 0; i < m.count; i++) {
		struct ingest_decoder *d = &m.decoders[i];

		if (m.count > 1 && d->has_end && d->end_status != FSA_OK &&
		    d->end_status != FSA_ERR_TRACE)
			is_over_by_error = true;
	}
	for (size_t i = 0; i < m.count; i++) {
		struct ingest_decoder *d = &m.decoders[i];
		/* A helper that said its last word is killed too: it may not hang us on its way
		 * out (its exit-time work is only freeing memory). */
		int wstatus = ingest_helper_reap(d->pid, is_stopped_by_us || d->is_killed ||
							     d->has_end || !d->is_eof);
		const char *named = d->view ? d->view : view ? view : trace;
		char *d_error = NULL, *d_message = NULL;
		fsa_status d_status;

		d->pid = -1;
		/* Stopped by us (a callback's status, a cancel, a read error), or by the error
		 * that another decoder ended the reading with: nothing to add. */
		if (is_stopped_by_us || (is_over_by_error && !d->has_end))
			continue;
		d_status = ingest_decoder_outcome(d, wstatus, helper, named, timeout_s, &d_error,
						  &d_message);
		/* The first decoder's error wins, except over an error that ends everything. */
		if (d_status != FSA_OK &&
		    (status == FSA_OK || (status == FSA_ERR_TRACE && d_status != FSA_ERR_TRACE))) {
			status = d_status;
			free(error);
			free(message);
			error = d_error;
			message = d_message;
			message_view = d->view ? d->view : view;
		} else {
			free(d_error);
			free(d_message);
		}
	}
	for (size_t i = 0; i < m.count; i++) {
		const struct ingest_decoder *d = &m.decoders[i];
		struct fsa_ingest_stats one = d->seen;

		if (d->has_end && !is_stopped_by_us) {
			one = d->end_stats;
		} else {
			one.events = d->events_read > d->seen.fencescope_events
					 ? d->events_read
					 : d->seen.fencescope_events;
			one.trace_count = (uint32_t) (is_live ? 1 : dirs.count);
		}
		result.events += one.events;
		result.fencescope_events += one.fencescope_events;
		result.other_events += one.other_events;
		result.discarded_events += one.discarded_events;
		result.discarded_packets += one.discarded_packets;
		if (one.trace_count > result.trace_count)
			result.trace_count = one.trace_count;
	}
	if (is_stopped_by_us)
		result = (struct fsa_ingest_stats){0};
	/* What the cut and damaged streams lost: one loss per stream, after everything that was
	 * read. A stray file lost nothing. */
	for (size_t i = 0; i < cuts.count && !is_stopped_by_us; i++) {
		const struct ingest_truncation *cut = &cuts.items[i];
		const struct fsa_discard loss = {
		    .kind = FSA_DISCARD_PACKETS,
		    .count = cut->packets_lost,
		    .begin_ns = cut->has_range ? cut->begin_ns : 0,
		    .end_ns = cut->has_range ? cut->end_ns : 0,
		    .has_range = cut->has_range,
		    .stream_id = cut->stream_id,
		    .cpu_id = cut->cpu_id,
		};

		if (cut->kind == INGEST_CUT_STRAY)
			continue;
		result.discarded_packets += cut->packets_lost;
		if (m.cb->discard && m.cb->discard(m.cb->data, &loss) != FSA_OK)
			break;
	}
	lost = ingest_cuts_first_loss(&cuts);
	if (lost && (status == FSA_OK || status == FSA_ERR_TRACE) && !message) {
		ingest_cut_describe(lost, ingest_cuts_has_another_loss(&cuts, lost), &error);
		status = FSA_ERR_TRACE;
	} else if (lost && status == FSA_OK) {
		status = FSA_ERR_TRACE;
	}
	if (stats)
		*stats = result;
	stats = NULL;
end:
	for (size_t i = 0; i < m.count; i++) {
		seen.events += m.decoders[i].seen.events;
		seen.fencescope_events += m.decoders[i].seen.fencescope_events;
		seen.discarded_events += m.decoders[i].seen.discarded_events;
		seen.discarded_packets += m.decoders[i].seen.discarded_packets;
	}
	if (stats)
		*stats = seen;
	if (status != FSA_OK && !message) {
		if (asprintf(&message, "%s: %s", trace ? trace : "(null)",
			     error ? error : fsa_status_string(status)) < 0)
			message = NULL;
	}
	message = ingest_message_unview(message, message_view ? message_view : view, &dirs, trace);
	if (status != FSA_OK && error_message) {
		*error_message = message;
		message = NULL;
	}
	free(message);
	free(error);
	free(helper);
	free(payload);
	for (size_t i = 0; i < INGEST_DECODERS_MAX; i++) {
		if (m.decoders[i].pid > 0)
			ingest_helper_reap(m.decoders[i].pid, true);
		ingest_decoder_fini(&m.decoders[i]);
	}
	ingest_view_remove(view);
	ingest_split_fini(&split);
	ingest_truncations_fini(&cuts);
	ingest_dirs_fini(&dirs);
	return status;
}

struct ingest_model {
	struct fsa_model *model;
	bool (*progress)(void *data, uint64_t events, double fraction);
	void *progress_data;
};

static fsa_status
ingest_model_event(void *data, const struct fsa_event *event)
{
	return fsa_model_add_event(((struct ingest_model *) data)->model, event);
}

static fsa_status
ingest_model_discard(void *data, const struct fsa_discard *discard)
{
	return fsa_model_add_discard(((struct ingest_model *) data)->model, discard);
}

static bool
ingest_model_progress(void *data, uint64_t events, double fraction)
{
	struct ingest_model *im = data;

	return im->progress && im->progress(im->progress_data, events, fraction);
}

fsa_status
fsa_ingest_into_model(const char *trace, struct fsa_model *model,
		      bool (*progress)(void *data, uint64_t events, double fraction),
		      void *progress_data, struct fsa_ingest_stats *stats, char **error_message)
{
	struct ingest_model im = {model, progress, progress_data};
	const struct fsa_ingest_callbacks callbacks = {
	    .data = &im,
	    .event = ingest_model_event,
	    .discard = ingest_model_discard,
	    .progress = ingest_model_progress,
	    .needs_payload = fsa_model_needs_payload,
	};
	fsa_status status, finish_status;

	assert(model);
	status = fsa_ingest_run(trace, &callbacks, stats, error_message);
	/* A damaged trace still gives a partial analysis of what was read before the damage. */
	if (status != FSA_OK && status != FSA_ERR_TRACE)
		return status;
	finish_status = fsa_model_finish(model);
	return status != FSA_OK ? status : finish_status;
}
