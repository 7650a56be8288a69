/* SPDX-License-Identifier: MIT */
/*
 * What fsa_ingest_run() checks in a trace folder before the decoder reads it, with plain file
 * reads (no Babeltrace): which recording each trace folder belongs to (LTTng's metadata `env`
 * block: trace_name, trace_creation_datetime, hostname), and which stream files are cut short
 * (LTTng's index files, index/STREAM.idx, list every packet with its offset and size; a stream
 * file shorter than its index says is truncated).
 *
 * libbabeltrace2 2.0.4 reads a stream cut at a packet boundary without a word (it only warns
 * that the index does not match, and scans the file), and refuses a stream cut inside a packet
 * outright, losing every other stream too; it also refuses a whole folder in which one file does
 * not start with the CTF packet magic. So such a trace is read through a view: a temporary folder
 * of symbolic links to the intact files, with a copy of the whole packets of each truncated
 * stream, removed when the reading ends. What was cut off becomes a loss. A file without the
 * magic is left out of the view: a damaged stream when its name (CHANNEL_CPU) or an index file
 * says it is a stream of the trace (all of it is a loss), else a stray file (a notes.txt: skipped
 * with a note, nothing lost).
 *
 * Several recordings under one path are never merged (their queue handles would collide):
 * ingest_recordings_check() refuses them with a list, and fsa_ingest_pick_recording() (public,
 * for --recording) finds the folder of one.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsa/ingest.h"
#include "ingest-private.h"

#define CHECK_METADATA_HEADER_SIZE 37
#define CHECK_TSDL_MAGIC           UINT32_C(0x75d11d57)
#define CHECK_INDEX_MAGIC          UINT32_C(0xc1f1dcc1)
#define CHECK_CTF_MAGIC            UINT32_C(0xc1fc1fc1)

static uint32_t
check_u32(const unsigned char *bytes, bool is_big)
{
	return is_big ? (uint32_t) bytes[0] << 24 | (uint32_t) bytes[1] << 16 |
			    (uint32_t) bytes[2] << 8 | bytes[3]
		      : (uint32_t) bytes[3] << 24 | (uint32_t) bytes[2] << 16 |
			    (uint32_t) bytes[1] << 8 | bytes[0];
}

static uint64_t
check_u64_be(const unsigned char *bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | bytes[i];
	return v;
}

static unsigned char *
check_file_read(const char *path, size_t max, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	unsigned char *bytes = NULL;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		size_t len = (size_t) st.st_size < max ? (size_t) st.st_size : max;

		bytes = malloc(len + 1);
		n = bytes ? pread(fd, bytes, len, 0) : -1;
		if (n < 0) {
			free(bytes);
			bytes = NULL;
		} else {
			bytes[n] = '\0';
			*size = (size_t) n;
		}
	}
	close(fd);
	return bytes;
}

char *
ingest_metadata_text(const char *dir)
{
	char *path = NULL;
	unsigned char *bytes;
	size_t size = 0, offset = 0, len = 0;
	char *text;
	bool is_big;

	if (asprintf(&path, "%s/metadata", dir) < 0)
		return NULL;
	bytes = check_file_read(path, 64 * 1024 * 1024, &size);
	free(path);
	if (!bytes)
		return NULL;
	if (size < CHECK_METADATA_HEADER_SIZE || (check_u32(bytes, false) != CHECK_TSDL_MAGIC &&
						  check_u32(bytes, true) != CHECK_TSDL_MAGIC))
		return (char *) bytes; /* plain text */
	is_big = check_u32(bytes, true) == CHECK_TSDL_MAGIC;
	text = malloc(size + 1);
	while (text && offset + CHECK_METADATA_HEADER_SIZE <= size) {
		uint32_t content = check_u32(bytes + offset + 24, is_big) / 8;
		uint32_t packet = check_u32(bytes + offset + 28, is_big) / 8;

		if (content < CHECK_METADATA_HEADER_SIZE || packet < content ||
		    offset + content > size)
			break;
		memcpy(text + len, bytes + offset + CHECK_METADATA_HEADER_SIZE,
		       content - CHECK_METADATA_HEADER_SIZE);
		len += content - CHECK_METADATA_HEADER_SIZE;
		offset += packet;
	}
	if (text)
		text[len] = '\0';
	free(bytes);
	return text;
}

/* The value of `key = …;` after `block {` in TSDL text: a quoted string without its quotes, or
 * the bare token. NULL when absent. (transfer full) */
static char *
check_tsdl_value(const char *text, const char *block, const char *key)
{
	const char *p = text ? strstr(text, block) : NULL;
	const char *end = p ? strstr(p, "};") : NULL;
	size_t key_len = strlen(key);

	for (; p && p < end; p++) {
		const char *v;

		p = strstr(p, key);
		if (!p || p >= end)
			return NULL;
		/* A whole word followed by `=`. */
		if ((p[-1] != '\t' && p[-1] != ' ' && p[-1] != '\n' && p[-1] != '{') ||
		    (p[key_len] != ' ' && p[key_len] != '\t' && p[key_len] != '='))
			continue;
		v = p + key_len;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v++ != '=')
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v == '"') {
			const char *q = strchr(v + 1, '"');

			return q ? strndup(v + 1, (size_t) (q - v - 1)) : NULL;
		}
		return strndup(v, strcspn(v, "; \t\n"));
	}
	return NULL;
}

char *
ingest_recording_id(const char *dir)
{
	char *text = ingest_metadata_text(dir);
	char *name = check_tsdl_value(text, "env {", "trace_name");
	char *date = check_tsdl_value(text, "env {", "trace_creation_datetime");
	char *host = check_tsdl_value(text, "env {", "hostname");
	char *id = NULL;

	/* A trace that does not say is a recording of its own folder. */
	if (name || date) {
		if (asprintf(&id, "%s (%s%s%s)", name ? name : "?", date ? date : "?",
			     host ? ", " : "", host ? host : "") < 0)
			id = NULL;
	} else if (asprintf(&id, "%s", dir) < 0) {
		id = NULL;
	}
	free(name);
	free(date);
	free(host);
	free(text);
	return id;
}

__extension__ typedef __int128 check_i128;

/* The trace clock: ns from origin = offset_s·1e9 + (offset + cycles)·1e9/freq. */
struct check_clock {
	bool is_known;
	uint64_t freq;
	int64_t offset_s;
	int64_t offset;
};

static struct check_clock
check_clock_read(const char *dir)
{
	char *text = ingest_metadata_text(dir);
	char *freq = check_tsdl_value(text, "clock {", "freq");
	char *offset_s = check_tsdl_value(text, "clock {", "offset_s");
	char *offset = check_tsdl_value(text, "clock {", "offset");
	struct check_clock clock = {0};

	if (freq && strtoull(freq, NULL, 10) > 0) {
		clock.is_known = true;
		clock.freq = strtoull(freq, NULL, 10);
		clock.offset_s = offset_s ? strtoll(offset_s, NULL, 10) : 0;
		clock.offset = offset ? strtoll(offset, NULL, 10) : 0;
	}
	free(freq);
	free(offset_s);
	free(offset);
	free(text);
	return clock;
}

static uint64_t
check_clock_ns(const struct check_clock *clock, uint64_t cycles)
{
	check_i128 ns = (check_i128) clock->offset_s * 1000000000 +
			((check_i128) clock->offset + (check_i128) cycles) * 1000000000 /
			    (check_i128) clock->freq;

	return ns < 0 ? 0 : ns > (check_i128) UINT64_MAX ? UINT64_MAX : (uint64_t) ns;
}

void
ingest_truncations_fini(struct ingest_truncations *t)
{
	for (size_t i = 0; i < t->count; i++)
		free(t->items[i].file);
	free(t->items);
	*t = (struct ingest_truncations){0};
}

static struct ingest_truncation *
check_item_add(struct ingest_truncations *out)
{
	if (out->count == out->capacity) {
		size_t capacity = out->capacity ? out->capacity * 2 : 4;
		struct ingest_truncation *items = realloc(out->items, capacity * sizeof(*items));

		if (!items)
			return NULL;
		out->items = items;
		out->capacity = capacity;
	}
	return &out->items[out->count++];
}

/* LTTng names a per-CPU stream file CHANNEL_CPU: the CPU, UINT32_MAX when the name is not so. */
static uint32_t
check_cpu_of(const char *name)
{
	const char *underscore = strrchr(name, '_');

	if (underscore && underscore != name && underscore[1] &&
	    strspn(underscore + 1, "0123456789") == strlen(underscore + 1))
		return (uint32_t) strtoul(underscore + 1, NULL, 10);
	return UINT32_MAX;
}

/* Whether a non-empty file starts with the CTF packet magic (either byte order). */
static bool
check_has_ctf_magic(const char *file)
{
	unsigned char magic[4];
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, magic, sizeof(magic), 0) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return true; /* unreadable: the decoder says why */
	return n == (ssize_t) sizeof(magic) && (check_u32(magic, false) == CHECK_CTF_MAGIC ||
						check_u32(magic, true) == CHECK_CTF_MAGIC);
}

/* One stream file against its index; a file without the CTF magic is a damaged stream or a
 * stray file (enum ingest_cut_kind says which is which). */
static fsa_status
check_stream(const char *dir, const char *name, const struct check_clock *clock,
	     struct ingest_truncations *out)
{
	char *file = NULL, *index = NULL;
	unsigned char *bytes = NULL;
	size_t size = 0;
	struct stat st;
	uint32_t entry_len = 0;
	uint64_t kept_end = 0, lost = 0, begin = UINT64_MAX, end = 0, stream_id = 0;
	size_t count = 0;
	bool has_index, has_magic;
	struct ingest_truncation *item;
	fsa_status status = FSA_ERR_NOMEM;

	if (asprintf(&file, "%s/%s", dir, name) < 0 ||
	    asprintf(&index, "%s/index/%s.idx", dir, name) < 0)
		goto end;
	status = FSA_OK;
	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		goto end;
	/* src.ctf.fs takes an empty file for a stream without packets (its index may say some
	 * were cut off). */
	has_magic = st.st_size == 0 || check_has_ctf_magic(file);
	bytes = check_file_read(index, 256 * 1024 * 1024, &size);
	/* Header: magic, major, minor, entry length (big-endian u32s); then the entries: offset,
	 * packet_size (bits), content_size (bits), timestamp_begin, timestamp_end,
	 * events_discarded, stream_id (big-endian u64s), and more in index 1.1. */
	has_index = bytes && size >= 16 && check_u32(bytes, true) == CHECK_INDEX_MAGIC &&
		    (entry_len = check_u32(bytes + 12, true)) >= 56;
	count = has_index ? (size - 16) / entry_len : 0;
	for (size_t i = 0; i < count; i++) {
		const unsigned char *e = bytes + 16 + i * entry_len;
		uint64_t offset = check_u64_be(e), packet = check_u64_be(e + 8) / 8;

		stream_id = check_u64_be(e + 48);
		/* A damaged stream loses every packet; a cut one those past the cut. */
		if (has_magic && offset + packet <= (uint64_t) st.st_size) {
			if (offset + packet > kept_end)
				kept_end = offset + packet;
			continue;
		}
		lost++;
		if (check_u64_be(e + 24) < begin)
			begin = check_u64_be(e + 24);
		if (check_u64_be(e + 32) > end)
			end = check_u64_be(e + 32);
	}
	if (has_magic && lost == 0)
		goto end;
	item = check_item_add(out);
	if (!item) {
		status = FSA_ERR_NOMEM;
		goto end;
	}
	*item = (struct ingest_truncation){
	    .kind = has_magic ? INGEST_CUT_SHORT : INGEST_CUT_DAMAGED,
	    .file = file,
	    .packets_lost = lost,
	    .packets = count,
	    .kept_bytes = kept_end,
	    .file_bytes = (uint64_t) st.st_size,
	    .stream_id = stream_id,
	    .cpu_id = check_cpu_of(name),
	};
	file = NULL;
	if (!has_magic && !bytes && item->cpu_id == UINT32_MAX) {
		/* Neither its name nor an index file says it is a stream of this trace. */
		item->kind = INGEST_CUT_STRAY;
	} else if (!has_magic && !has_index) {
		/* A stream without an index: its packets cannot be counted, one at least is lost.
		 */
		item->packets_lost = 1;
	}
	if (clock->is_known && begin <= end) {
		item->has_range = true;
		item->begin_ns = check_clock_ns(clock, begin);
		item->end_ns = check_clock_ns(clock, end);
	}
end:
	free(bytes);
	free(index);
	free(file);
	return status;
}

fsa_status
ingest_truncations_find(const struct ingest_dirs *dirs, struct ingest_truncations *out)
{
	for (size_t i = 0; i < dirs->count; i++) {
		DIR *stream = opendir(dirs->paths[i]);
		struct check_clock clock;
		struct dirent *entry;

		if (!stream)
			continue;
		clock = check_clock_read(dirs->paths[i]);
		while ((entry = readdir(stream))) {
			fsa_status status;

			if (entry->d_name[0] == '.' || strcmp(entry->d_name, "metadata") == 0 ||
			    strcmp(entry->d_name, "index") == 0)
				continue;
			status = check_stream(dirs->paths[i], entry->d_name, &clock, out);
			if (status != FSA_OK) {
				closedir(stream);
				return status;
			}
		}
		closedir(stream);
	}
	return FSA_OK;
}

/* Copies the first `len` bytes of `from` into a new file `to`. */
static bool
check_copy_prefix(const char *from, const char *to, uint64_t len)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = in >= 0 ? open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
	uint64_t done = 0;
	bool is_ok = in >= 0 && out >= 0;

	while (is_ok && done < len) {
		char buf[65536];
		size_t want = len - done < sizeof(buf) ? (size_t) (len - done) : sizeof(buf);
		ssize_t n = pread(in, buf, want, (off_t) done);

		is_ok = n > 0 && write(out, buf, (size_t) n) == n;
		done += n > 0 ? (uint64_t) n : 0;
	}
	if (out >= 0 && close(out) != 0)
		is_ok = false;
	if (in >= 0)
		close(in);
	return is_ok;
}

static const struct ingest_truncation *
check_truncation_of(const struct ingest_truncations *t, const char *file)
{
	for (size_t i = 0; i < t->count; i++) {
		if (strcmp(t->items[i].file, file) == 0)
			return &t->items[i];
	}
	return NULL;
}

/*
 * Every file and folder of the views on disk, for fsa_ingest_remove_temporary() (a signal
 * handler: a fixed list, read without locks or allocation). A slot holds a path from just before
 * it is made until just after it is removed, so that a signal at any point finds every path that
 * exists (a path remembered but not made yet only fails to unlink); one made when every slot is
 * taken is only removed by ingest_view_remove(). Remembering a path only after making it left
 * the view behind when Ctrl-C came in between: its folder was not empty, so rmdir failed.
 */
#define CHECK_TEMPORARY_SLOTS 256
static _Atomic(char *) check_temporary[CHECK_TEMPORARY_SLOTS];
static _Atomic(pid_t) check_temporary_owner[CHECK_TEMPORARY_SLOTS];

static void
check_temporary_remember(const char *path)
{
	char *copy = strdup(path);

	for (int i = 0; copy && i < CHECK_TEMPORARY_SLOTS; i++) {
		char *expected = NULL;

		atomic_store(&check_temporary_owner[i], getpid());
		if (atomic_compare_exchange_strong(&check_temporary[i], &expected, copy))
			return;
	}
	free(copy);
}

/* Forgets every path at or under `view`. */
static void
check_temporary_forget(const char *view)
{
	size_t len = strlen(view);

	for (int i = 0; i < CHECK_TEMPORARY_SLOTS; i++) {
		char *path = atomic_load(&check_temporary[i]);

		if (path && strncmp(path, view, len) == 0 && (path[len] == '/' || !path[len]) &&
		    atomic_compare_exchange_strong(&check_temporary[i], &path, NULL))
			free(path);
	}
}

void
fsa_ingest_remove_temporary(void)
{
	int saved_errno = errno;
	pid_t self = getpid();

	/* The links and copies first, then the folders: dN before the view that holds it. */
	for (int pass = 0; pass < 3; pass++) {
		for (int i = CHECK_TEMPORARY_SLOTS; i-- > 0;) {
			char *path = atomic_load(&check_temporary[i]);

			if (!path || atomic_load(&check_temporary_owner[i]) != self)
				continue;
			if (pass == 0 ? unlink(path) == 0 : rmdir(path) == 0)
				atomic_store(&check_temporary[i], NULL);
		}
	}
	errno = saved_errno;
}

/* view/dN mirrors dirs->paths[N]: links to every file but the truncated streams, which are
 * copied up to their last whole packet (or left out when none is whole). No index: the
 * decoder scans the packets itself. */
static bool
check_split_skips(const struct ingest_split *split, int part, const char *file)
{
	for (size_t i = 0; split && i < split->count; i++) {
		if (strcmp(split->files[i], file) == 0)
			return split->part[i] != part;
	}
	return false;
}

static fsa_status
check_view_fill(const char *view, const struct ingest_dirs *dirs,
		const struct ingest_truncations *t, const struct ingest_split *split, int part,
		char **error)
{
	for (size_t i = 0; i < dirs->count; i++) {
		char *sub = NULL;
		DIR *stream;
		struct dirent *entry;
		fsa_status status = FSA_OK;

		if (asprintf(&sub, "%s/d%zu", view, i) < 0) {
			ingest_error_set(error, "cannot make a view of the trace: out of memory");
			return FSA_ERR_NOMEM;
		}
		check_temporary_remember(sub);
		if (mkdir(sub, 0700) != 0) {
			ingest_error_set(error, "cannot make a view of the trace: %s",
					 strerror(errno));
			check_temporary_forget(sub);
			free(sub);
			return FSA_ERR_IO;
		}
		stream = opendir(dirs->paths[i]);
		while (stream && status == FSA_OK && (entry = readdir(stream))) {
			char *from = NULL, *to = NULL;
			const struct ingest_truncation *cut;
			bool is_ok = true;

			if (entry->d_name[0] == '.' || strcmp(entry->d_name, "index") == 0)
				continue;
			if (asprintf(&from, "%s/%s", dirs->paths[i], entry->d_name) < 0 ||
			    asprintf(&to, "%s/%s", sub, entry->d_name) < 0) {
				status = FSA_ERR_NOMEM;
			} else if (check_split_skips(split, part, from)) {
				/* The other decoder's stream. */
			} else if ((cut = check_truncation_of(t, from))) {
				/* Damaged streams and stray files are left out. */
				if (cut->kind == INGEST_CUT_SHORT && cut->kept_bytes > 0) {
					check_temporary_remember(to);
					is_ok = check_copy_prefix(from, to, cut->kept_bytes);
				}
			} else {
				char *absolute = realpath(from, NULL);

				check_temporary_remember(to);
				is_ok = absolute && symlink(absolute, to) == 0;
				free(absolute);
			}
			if (!is_ok) {
				int saved_errno = errno;
				struct stat made;

				ingest_error_set(error, "cannot make a view of the trace: %s: %s",
						 to, strerror(saved_errno));
				/* Not made: forgotten (ingest_view_remove() would forget it too).
				 */
				if (lstat(to, &made) != 0)
					check_temporary_forget(to);
				status = FSA_ERR_IO;
			}
			free(from);
			free(to);
		}
		if (stream)
			closedir(stream);
		free(sub);
		if (status != FSA_OK)
			return status;
	}
	return FSA_OK;
}

/* Removes PATH (a file, or with IS_FOLDER an empty folder), then forgets it: in the other order
 * a signal in between would leave it on disk, known to no one. */
static void
check_temporary_remove(const char *path, bool is_folder)
{
	if (is_folder ? rmdir(path) == 0 : unlink(path) == 0)
		check_temporary_forget(path);
}

void
ingest_view_remove(char *view)
{
	DIR *top;
	struct dirent *entry;

	if (!view)
		return;
	top = opendir(view);
	while (top && (entry = readdir(top))) {
		char *sub = NULL;
		DIR *stream;
		struct dirent *file;

		if (entry->d_name[0] == '.' || asprintf(&sub, "%s/%s", view, entry->d_name) < 0)
			continue;
		stream = opendir(sub);
		while (stream && (file = readdir(stream))) {
			char *path = NULL;

			if (strcmp(file->d_name, ".") != 0 && strcmp(file->d_name, "..") != 0 &&
			    asprintf(&path, "%s/%s", sub, file->d_name) >= 0)
				check_temporary_remove(path, false);
			free(path);
		}
		if (stream)
			closedir(stream);
		check_temporary_remove(sub, true);
		free(sub);
	}
	if (top)
		closedir(top);
	check_temporary_remove(view, true);
	/* Whatever could not be removed is forgotten all the same: the path is freed. */
	check_temporary_forget(view);
	free(view);
}

/* mkdtemp(), but with the name remembered before the folder is made (see check_temporary). */
static fsa_status
check_view_mkdtemp(const char *tmp, char **view, char **error)
{
	static const char letters[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static _Atomic uint64_t counter;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	for (int attempt = 0; attempt < 1000; attempt++) {
		uint64_t bits = ((uint64_t) now.tv_nsec << 16) ^ (uint64_t) now.tv_sec ^
				((uint64_t) getpid() << 40) ^
				(atomic_fetch_add(&counter, 1) * UINT64_C(0x9e3779b97f4a7c15));
		char name[7];
		char *path = NULL;

		for (int i = 0; i < 6; i++, bits /= sizeof(letters) - 1)
			name[i] = letters[bits % (sizeof(letters) - 1)];
		name[6] = '\0';
		if (asprintf(&path, "%s/fencescope-view-%s", tmp, name) < 0)
			return FSA_ERR_NOMEM;
		int saved_errno;

		check_temporary_remember(path);
		if (mkdir(path, 0700) == 0) {
			*view = path;
			return FSA_OK;
		}
		saved_errno = errno;
		check_temporary_forget(path);
		if (saved_errno != EEXIST) {
			ingest_error_set(error, "cannot make a view of the trace: %s: %s", path,
					 strerror(saved_errno));
			free(path);
			return FSA_ERR_IO;
		}
		free(path);
	}
	ingest_error_set(error, "cannot make a view of the trace in %s: every name is taken", tmp);
	return FSA_ERR_IO;
}

static fsa_status
check_view_create(const struct ingest_dirs *dirs, const struct ingest_truncations *t,
		  const struct ingest_split *split, int part, char **view, char **error)
{
	const char *tmp = getenv("TMPDIR");
	char *path = NULL;
	fsa_status status;

	status = check_view_mkdtemp(tmp && *tmp ? tmp : "/tmp", &path, error);
	if (status != FSA_OK)
		return status;
	status = check_view_fill(path, dirs, t, split, part, error);
	if (status != FSA_OK) {
		ingest_view_remove(path);
		return status;
	}
	*view = path;
	return FSA_OK;
}

fsa_status
ingest_view_create(const struct ingest_dirs *dirs, const struct ingest_truncations *t, char **view,
		   char **error)
{
	return check_view_create(dirs, t, NULL, 0, view, error);
}

fsa_status
ingest_view_create_part(const struct ingest_dirs *dirs, const struct ingest_truncations *t,
			const struct ingest_split *split, int part, char **view, char **error)
{
	return check_view_create(dirs, t, split, part, view, error);
}

void
ingest_split_fini(struct ingest_split *split)
{
	for (size_t i = 0; i < split->count; i++)
		free(split->files[i]);
	free(split->files);
	free(split->part);
	free(split->keys);
	free(split->sizes);
	*split = (struct ingest_split){0};
}

/* The stream a stream file belongs to, from its LTTng index (1.1 names the stream instance):
 * false when there is no such index or it has no packet. */
static bool
check_stream_key(const char *dir, const char *name, uint64_t *class_id, uint64_t *instance_id)
{
	char *index = NULL;
	unsigned char *bytes;
	size_t size = 0;
	bool is_ok;

	if (asprintf(&index, "%s/index/%s.idx", dir, name) < 0)
		return false;
	bytes = check_file_read(index, 16 + 72, &size);
	free(index);
	/* Header: magic, major, minor, entry length; entry: ... stream_id at 48, (1.1)
	 * stream_instance_id at 56. */
	is_ok = bytes && size >= 16 + 72 && check_u32(bytes, true) == CHECK_INDEX_MAGIC &&
		check_u32(bytes + 4, true) == 1 && check_u32(bytes + 8, true) >= 1 &&
		check_u32(bytes + 12, true) >= 72;
	if (is_ok) {
		*class_id = check_u64_be(bytes + 16 + 48);
		*instance_id = check_u64_be(bytes + 16 + 56);
	}
	free(bytes);
	return is_ok;
}

bool
ingest_split_plan(const struct ingest_dirs *dirs, const struct ingest_truncations *t,
		  struct ingest_split *split)
{
	char **uuids = calloc(dirs->count ? dirs->count : 1, sizeof(*uuids));
	bool is_ok = uuids != NULL;

	*split = (struct ingest_split){0};
	for (size_t i = 0; is_ok && i < t->count; i++)
		is_ok = t->items[i].kind == INGEST_CUT_STRAY;
	for (size_t i = 0; is_ok && i < dirs->count; i++) {
		DIR *stream = opendir(dirs->paths[i]);
		struct dirent *entry;

		/* A trace without a UUID would be ordered by its name, which a view changes. */
		uuids[i] = ingest_metadata_uuid(dirs->paths[i]);
		is_ok = stream && uuids[i];
		while (is_ok && (entry = readdir(stream))) {
			char *file = NULL;
			struct stat st;
			uint64_t class_id, instance_id;

			if (entry->d_name[0] == '.' || strcmp(entry->d_name, "metadata") == 0 ||
			    strcmp(entry->d_name, "index") == 0)
				continue;
			if (asprintf(&file, "%s/%s", dirs->paths[i], entry->d_name) < 0) {
				is_ok = false;
				break;
			}
			if (check_truncation_of(t, file) || stat(file, &st) != 0 ||
			    !S_ISREG(st.st_mode)) {
				free(file);
				continue;
			}
			/* A stream file without an index 1.1 cannot be placed: no split. */
			is_ok = check_stream_key(dirs->paths[i], entry->d_name, &class_id,
						 &instance_id);
			if (is_ok && split->count == split->capacity) {
				size_t capacity = split->capacity ? split->capacity * 2 : 16;
				char **files = realloc(split->files, capacity * sizeof(*files));
				uint8_t *part = files ? realloc(split->part, capacity) : NULL;
				uint64_t *keys =
				    part ? realloc(split->keys, capacity * 3 * sizeof(*keys))
					 : NULL;
				uint64_t *sizes =
				    keys ? realloc(split->sizes, capacity * sizeof(*sizes)) : NULL;

				if (files)
					split->files = files;
				if (part)
					split->part = part;
				if (keys)
					split->keys = keys;
				if (sizes)
					split->sizes = sizes;
				is_ok = sizes != NULL;
				if (is_ok)
					split->capacity = capacity;
			}
			if (!is_ok) {
				free(file);
				break;
			}
			/* The folders of one UUID are one trace: their first folder stands for it.
			 */
			size_t trace = i;

			for (size_t j = 0; j < i; j++) {
				if (strcmp(uuids[j], uuids[i]) == 0) {
					trace = j;
					break;
				}
			}
			split->files[split->count] = file;
			split->keys[split->count * 3] = trace;
			split->keys[split->count * 3 + 1] = class_id;
			split->keys[split->count * 3 + 2] = instance_id;
			split->sizes[split->count] = (uint64_t) st.st_size;
			split->count++;
		}
		if (stream)
			closedir(stream);
	}
	/* One stream in several files (LTTng's tracefile rotation) stays whole: no split. */
	for (size_t a = 0; is_ok && a < split->count; a++) {
		for (size_t b = a + 1; is_ok && b < split->count; b++)
			is_ok = memcmp(&split->keys[a * 3], &split->keys[b * 3],
				       3 * sizeof(uint64_t)) != 0;
	}
	/* The largest first, each to the part with fewer bytes so far (the first to part 0). */
	for (size_t i = 0; is_ok && i < split->count; i++)
		split->part[i] = UINT8_MAX; /* not placed yet */
	for (size_t n = 0; is_ok && n < split->count; n++) {
		size_t pick = SIZE_MAX;

		for (size_t i = 0; i < split->count; i++) {
			/* Equal sizes by name: the same split on every run. */
			if (split->part[i] == UINT8_MAX &&
			    (pick == SIZE_MAX || split->sizes[i] > split->sizes[pick] ||
			     (split->sizes[i] == split->sizes[pick] &&
			      strcmp(split->files[i], split->files[pick]) < 0)))
				pick = i;
		}
		split->part[pick] = split->bytes[1] < split->bytes[0] ? 1 : 0;
		split->bytes[split->part[pick]] += split->sizes[pick];
	}
	is_ok = is_ok && split->count >= 2 && split->bytes[0] > 0 && split->bytes[1] > 0;
	for (size_t i = 0; uuids && i < dirs->count; i++)
		free(uuids[i]);
	free(uuids);
	if (!is_ok)
		ingest_split_fini(split);
	return is_ok;
}

/* The recordings under a path: each one's id (ingest_recording_id) and the deepest folder that
 * holds all its trace folders. */
struct ingest_recording {
	char *id;
	char *folder;
};

struct ingest_recordings {
	struct ingest_recording *items;
	size_t count;
};

static void
ingest_recordings_fini(struct ingest_recordings *r)
{
	for (size_t i = 0; i < r->count; i++) {
		free(r->items[i].id);
		free(r->items[i].folder);
	}
	free(r->items);
	*r = (struct ingest_recordings){0};
}

/* The longest common folder of `a` and `b` (both without a trailing slash). */
static size_t
ingest_common_folder(const char *a, const char *b)
{
	size_t len = 0, i = 0;

	for (; a[i] && a[i] == b[i]; i++) {
		if (a[i] == '/')
			len = i;
	}
	if ((!a[i] || a[i] == '/') && (!b[i] || b[i] == '/'))
		len = i;
	return len;
}

/* Widens each recording's folder up to the highest folder under `root` that holds no other
 * recording ("two/a" rather than "two/a/ust/uid/0/64-bit"). */
static void
ingest_recordings_widen(struct ingest_recordings *r, const struct ingest_dirs *dirs,
			const char *root)
{
	size_t root_len = strlen(root);

	while (root_len > 1 && root[root_len - 1] == '/')
		root_len--;
	for (size_t i = 0; i < r->count; i++) {
		char *folder = r->items[i].folder;

		for (;;) {
			char *slash = strrchr(folder, '/');
			size_t len = slash ? (size_t) (slash - folder) : 0;
			bool is_alone = true;

			if (!slash || len <= root_len || strncmp(folder, root, root_len) != 0)
				break;
			for (size_t d = 0; d < dirs->count && is_alone; d++) {
				char *id = NULL;

				if (strncmp(dirs->paths[d], folder, len) != 0 ||
				    dirs->paths[d][len] != '/')
					continue;
				id = ingest_recording_id(dirs->paths[d]);
				is_alone = id && strcmp(id, r->items[i].id) == 0;
				free(id);
			}
			if (!is_alone)
				break;
			*slash = '\0';
		}
	}
}

static fsa_status
ingest_recordings_find(const struct ingest_dirs *dirs, struct ingest_recordings *out)
{
	*out = (struct ingest_recordings){0};
	out->items = calloc(dirs->count ? dirs->count : 1, sizeof(*out->items));
	if (!out->items)
		return FSA_ERR_NOMEM;
	for (size_t i = 0; i < dirs->count; i++) {
		char *id = ingest_recording_id(dirs->paths[i]);
		size_t r = 0;

		if (!id)
			return FSA_ERR_NOMEM;
		while (r < out->count && strcmp(out->items[r].id, id) != 0)
			r++;
		if (r == out->count) {
			out->items[out->count].id = id;
			out->items[out->count++].folder = strdup(dirs->paths[i]);
			if (!out->items[r].folder)
				return FSA_ERR_NOMEM;
			continue;
		}
		free(id);
		out->items[r].folder[ingest_common_folder(out->items[r].folder, dirs->paths[i])] =
		    '\0';
	}
	return FSA_OK;
}

/* "ID in FOLDER; ID in FOLDER…" (transfer full) */
static char *
ingest_recordings_list(const struct ingest_recordings *r)
{
	char *list = NULL;

	for (size_t i = 0; i < r->count; i++) {
		char *next = NULL;

		if (asprintf(&next, "%s%s%s in %s", list ? list : "", list ? "; " : "",
			     r->items[i].id, r->items[i].folder) < 0)
			next = NULL;
		free(list);
		list = next;
	}
	return list;
}

/* Refuses a folder that holds several recordings (their queue handles would collide). */
fsa_status
ingest_recordings_check(const struct ingest_dirs *dirs, const char *root, char **error)
{
	struct ingest_recordings r;
	fsa_status status = ingest_recordings_find(dirs, &r);

	if (status == FSA_OK && r.count > 1) {
		ingest_recordings_widen(&r, dirs, root);
		char *list = ingest_recordings_list(&r);

		ingest_error_set(error,
				 "the folder holds %zu recordings, and fencescope never merges "
				 "recordings: %s. Give one recording's folder, or pick one with "
				 "--recording NAME",
				 r.count, list ? list : "");
		free(list);
		status = FSA_ERR_IO;
	} else if (status == FSA_ERR_NOMEM) {
		ingest_error_set(error, "out of memory");
	}
	ingest_recordings_fini(&r);
	return status;
}

fsa_status
fsa_ingest_pick_recording(const char *trace, const char *recording, char **path,
			  char **error_message)
{
	struct ingest_dirs dirs = {0};
	struct ingest_recordings r = {0};
	char *error = NULL;
	size_t found = SIZE_MAX, matches = 0;
	fsa_status status;

	*path = NULL;
	if (error_message)
		*error_message = NULL;
	status = ingest_dirs_find(trace, &dirs, &error);
	if (status == FSA_OK)
		status = ingest_recordings_find(&dirs, &r);
	if (status == FSA_OK)
		ingest_recordings_widen(&r, &dirs, trace);
	for (size_t i = 0; status == FSA_OK && i < r.count; i++) {
		const char *id = r.items[i].id;
		size_t name_len = strcspn(id, " ");
		const char *folder = r.items[i].folder;
		size_t trace_len = strlen(trace);

		/* NAME: the trace name, the whole id, or the folder (as listed, or relative to
		 * TRACE). */
		while (trace_len > 1 && trace[trace_len - 1] == '/')
			trace_len--;
		if ((strlen(recording) == name_len && strncmp(id, recording, name_len) == 0) ||
		    strcmp(id, recording) == 0 || strcmp(folder, recording) == 0 ||
		    (strncmp(folder, trace, trace_len) == 0 && folder[trace_len] == '/' &&
		     strcmp(folder + trace_len + 1, recording) == 0)) {
			found = i;
			matches++;
		}
	}
	if (status == FSA_OK && matches == 1) {
		*path = strdup(r.items[found].folder);
		if (!*path)
			status = FSA_ERR_NOMEM;
	} else if (status == FSA_OK) {
		char *list = ingest_recordings_list(&r);

		ingest_error_set(&error, "%s recording is called \"%s\" (%s: %s)",
				 matches ? "more than one" : "no", recording,
				 r.count ? "there are" : "no recording at all", list ? list : "");
		free(list);
		status = FSA_ERR_IO;
	}
	if (status != FSA_OK && error_message &&
	    asprintf(error_message, "%s: %s", trace, error ? error : fsa_status_string(status)) < 0)
		*error_message = NULL;
	free(error);
	ingest_recordings_fini(&r);
	ingest_dirs_fini(&dirs);
	return status;
}
