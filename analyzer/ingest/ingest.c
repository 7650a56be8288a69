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
ingest_helper_spawn(const char *helper, const char *trace, const char *payload,
		    struct ingest_channel *ch, pid_t *pid, char **error)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t signals;
	const char *log = getenv("FENCESCOPE_BT_LOG");
	bool is_logging = log && *log && strcmp(log, "0") != 0;
	char *argv[8];
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

struct ingest_pump {
	const struct fsa_ingest_callbacks *cb;
	struct fsa_ingest_stats seen; /* what arrived, for a decoder that died */
	uint64_t events_read;         /* from its progress records */
	double fraction;
	bool has_end;
	int end_status;
	struct fsa_ingest_stats end_stats;
	char *end_error;
};

/* Hands the records in the buffer to the callbacks. Returns FSA_OK, a callback's status,
 * FSA_ERR_CANCELLED, or FSA_ERR_TRACE for bytes that are not records. */
static fsa_status
ingest_pump_records(struct ingest_pump *pump, struct ingest_wire_reader *reader)
{
	const struct fsa_ingest_callbacks *cb = pump->cb;
	struct ingest_wire_record record;
	fsa_status status;
	int got;

	while ((got = ingest_wire_next(reader, &record)) == 1) {
		switch (record.tag) {
		case INGEST_WIRE_EVENT:
			pump->seen.fencescope_events++;
			if (cb->event) {
				status = cb->event(cb->data, record.event);
				if (status != FSA_OK)
					return status;
			}
			break;
		case INGEST_WIRE_DISCARD:
			if (record.discard.kind == FSA_DISCARD_EVENTS)
				pump->seen.discarded_events +=
				    record.discard.count ? record.discard.count : 1;
			else
				pump->seen.discarded_packets +=
				    record.discard.count ? record.discard.count : 1;
			if (cb->discard) {
				status = cb->discard(cb->data, &record.discard);
				if (status != FSA_OK)
					return status;
			}
			break;
		case INGEST_WIRE_PROGRESS:
			pump->events_read = record.events;
			pump->fraction = record.fraction;
			if (cb->progress && cb->progress(cb->data, record.events, record.fraction))
				return FSA_ERR_CANCELLED;
			break;
		case INGEST_WIRE_HEARTBEAT:
			break;
		case INGEST_WIRE_END:
			free(pump->end_error);
			pump->has_end = true;
			pump->end_status = record.status;
			pump->end_stats = record.stats;
			pump->end_error = record.error;
			break;
		}
	}
	return got < 0 ? FSA_ERR_TRACE : FSA_OK;
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
		ingest_error_set(error,
				 "stream file %s is cut short: %" PRIu64 " of its %" PRIu64
				 " packets are missing or incomplete (%" PRIu64
				 " bytes in the file, whole packets up to byte %" PRIu64
				 "); the packets before the cut were read%s",
				 cut->file, cut->packets_lost, cut->packets, cut->file_bytes,
				 cut->kept_bytes, more);
}

/* One note per stray file: the trace is whole, but the user should know the file was not read. */
static void
ingest_strays_note(const struct ingest_pump *pump, const struct ingest_truncations *cuts)
{
	for (size_t i = 0; i < cuts->count; i++) {
		char *text = NULL;

		if (cuts->items[i].kind != INGEST_CUT_STRAY ||
		    asprintf(&text,
			     "%s is not a CTF stream file: skipped (the trace was read "
			     "without it)",
			     cuts->items[i].file) < 0)
			continue;
		if (pump->cb->note)
			pump->cb->note(pump->cb->data, text);
		else
			fprintf(stderr, "fencescope: note: %s\n", text);
		free(text);
	}
}

fsa_status
fsa_ingest_run(const char *trace, const struct fsa_ingest_callbacks *callbacks,
	       struct fsa_ingest_stats *stats, char **error_message)
{
	static const struct fsa_ingest_callbacks no_callbacks = {0};
	struct ingest_pump pump = {.cb = callbacks ? callbacks : &no_callbacks};
	struct ingest_wire_reader reader = {0};
	struct ingest_dirs dirs = {0};
	struct ingest_truncations cuts = {0};
	const struct ingest_truncation *lost;
	struct ingest_channel channel = {.shm_fd = -1, .data = {-1, -1}, .room = {-1, -1}};
	struct fsa_ingest_stats result = {0};
	char *helper = NULL, *payload = NULL, *error = NULL, *message = NULL, *view = NULL;
	int timeout_s = ingest_timeout_s();
	bool is_live = false, is_killed = false, is_timeout = false, is_garbage = false;
	bool is_stopped_by_us = false;
	uint64_t last_data_ms;
	pid_t pid = -1;
	fsa_status status = FSA_OK;

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
		if (status == FSA_OK && cuts.count > 0)
			status = ingest_view_create(&dirs, &cuts, &view, &error);
		if (status != FSA_OK)
			goto end;
		ingest_strays_note(&pump, &cuts);
	}
	helper = ingest_helper_path();
	if (pump.cb->needs_payload)
		payload = ingest_payload_hex(pump.cb->needs_payload);
	if (!helper || (pump.cb->needs_payload && !payload) || !ingest_wire_reader_init(&reader)) {
		ingest_error_set(&error, "out of memory");
		status = FSA_ERR_NOMEM;
		goto end;
	}
	status = ingest_helper_spawn(helper, view ? view : trace, payload, &channel, &pid, &error);
	if (status != FSA_OK)
		goto end;
	last_data_ms = ingest_now_ms();
	for (bool is_eof = false; !is_eof;) {
		struct pollfd pfd = {.fd = channel.data[0], .events = POLLIN};
		int ready = poll(&pfd, 1, INGEST_POLL_MS);
		bool is_writer_waiting = false;
		size_t taken;

		if (ready < 0 && errno != EINTR) {
			ingest_error_set(&error, "cannot wait for the decoder: %s",
					 strerror(errno));
			status = FSA_ERR_IO;
			is_killed = true;
			break;
		}
		if (ready > 0) {
			char bytes[256];
			ssize_t n = read(channel.data[0], bytes, sizeof(bytes));

			/* The end of file: the helper is gone (done or dead); what it published is
			 * still in the ring. */
			is_eof = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
		}
		/* Drain the ring, waking the writer when it waits for room. */
		do {
			taken = ingest_wire_reader_take(&reader, channel.ring, channel.ring_size,
							&is_writer_waiting);
			if (is_writer_waiting)
				(void) send(channel.room[1], "", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			status = ingest_pump_records(&pump, &reader);
		} while (status == FSA_OK && taken > 0);
		if (status != FSA_OK) {
			is_garbage = status == FSA_ERR_TRACE;
			is_killed = true;
			break;
		}
		/* The end record is the last word: do not wait for the helper's exit. */
		if (pump.has_end)
			break;
		if (ready > 0 || taken > 0) {
			last_data_ms = ingest_now_ms();
		} else if (!is_eof) {
			/* Quiet: let the caller cancel, and cut a decoder that hangs. */
			if (pump.cb->progress &&
			    pump.cb->progress(pump.cb->data, pump.events_read, pump.fraction)) {
				status = FSA_ERR_CANCELLED;
				is_killed = true;
				break;
			}
			if (timeout_s > 0 &&
			    ingest_now_ms() - last_data_ms >= (uint64_t) timeout_s * 1000) {
				is_timeout = is_killed = true;
				break;
			}
		}
	}
	{
		/* A helper that said its last word is killed too: it may not hang us on its way
		 * out (its exit-time work is only freeing memory). */
		int wstatus = ingest_helper_reap(pid, is_killed || pump.has_end);

		is_stopped_by_us = is_killed && !is_timeout && !is_garbage;
		if (is_stopped_by_us) {
			/* A callback's status, a cancel or a read error: nothing to add. */
		} else if (is_timeout) {
			ingest_error_set(&error,
					 "the decoder sent nothing for %d s and was stopped "
					 "(FENCESCOPE_DECODE_TIMEOUT sets the limit)",
					 timeout_s);
			status = FSA_ERR_TRACE;
		} else if (is_garbage) {
			ingest_error_set(&error, "the decoder sent bytes that are not records");
			status = FSA_ERR_TRACE;
		} else if (pump.has_end) {
			const char *named = view ? view : trace;

			status = (fsa_status) pump.end_status;
			result = pump.end_stats;
			/* The graph's message already names the trace. A helper gone astray may
			 * send one that does not, or none: it gets the trace's path below. */
			if (pump.end_error && strncmp(pump.end_error, named, strlen(named)) == 0) {
				message = pump.end_error;
				pump.end_error = NULL;
			} else if (pump.end_error) {
				ingest_error_set(&error, "%s", pump.end_error);
			}
		} else if (WIFSIGNALED(wstatus)) {
			int sig = WTERMSIG(wstatus);
			const char *name = ingest_signal_name(sig);
			/* A fault of its own, or a signal from outside (Ctrl-C, kill). */
			bool is_fault = sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS ||
					sig == SIGFPE || sig == SIGILL;

			if (is_fault)
				ingest_error_set(
				    &error,
				    "libbabeltrace2 crashed (%s) while decoding the trace "
				    "(a damaged stream file?)",
				    name);
			else if (name)
				ingest_error_set(
				    &error, "the decoder was stopped by %s from outside", name);
			else
				ingest_error_set(&error, "the decoder was ended by signal %d", sig);
			status = FSA_ERR_TRACE;
		} else {
			ingest_error_set(&error,
					 "the decoder %s exited with status %d without finishing",
					 helper, WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
			status = FSA_ERR_TRACE;
		}
	}
	if (!pump.has_end) {
		result = pump.seen;
		result.events = pump.events_read > pump.seen.fencescope_events
				    ? pump.events_read
				    : pump.seen.fencescope_events;
		result.trace_count = (uint32_t) (is_live ? 1 : dirs.count);
	}
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
		if (pump.cb->discard && pump.cb->discard(pump.cb->data, &loss) != FSA_OK)
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
	if (stats)
		*stats = pump.seen;
	if (status != FSA_OK && !message) {
		if (asprintf(&message, "%s: %s", trace ? trace : "(null)",
			     error ? error : fsa_status_string(status)) < 0)
			message = NULL;
	}
	message = ingest_message_unview(message, view, &dirs, trace);
	if (status != FSA_OK && error_message) {
		*error_message = message;
		message = NULL;
	}
	free(message);
	free(pump.end_error);
	free(error);
	free(helper);
	free(payload);
	ingest_wire_reader_fini(&reader);
	ingest_channel_fini(&channel);
	ingest_view_remove(view);
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
