/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the index file (fsv-index.h). Layout, all in the writer's byte order (checked):
 *
 *   IndexHeader          magic, format version, byte order mark, sizes, checksum, key, version
 *   IndexSection[n]      one per array of FSV_TRACE_ARRAYS, in that order: tag, element size,
 *                        offset, count, checksum of its bytes
 *   the arrays           each at an offset aligned to 64 bytes, zero padding between them
 *
 * Mapping checks everything before the trace is used: the header, that the section table is
 * FSV_TRACE_ARRAYS (tags and element sizes) with sections in order, inside the file and not
 * overlapping; then one read of the whole file with pread, in two parts on two threads
 * (check_file; not through the mapping: the pages read stay in the page cache, not in the
 * viewer's resident memory), checks the header's checksum (header and table), each section's
 * checksum, that the padding is zeros, and every stored index of each chunk as it passes
 * (check_section). Only then do the accessors read the mapping, and only the pages they touch
 * become resident.
 *
 * The checksum is this file's own (Hash below; zlib's crc32 until format 5, three times slower,
 * and Debian has no libxxhash-dev on this machine).
 */
#define _GNU_SOURCE
#include "fsv-index.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "fsv-trace-storage.h"

#ifndef FSV_PROJECT_VERSION
#define FSV_PROJECT_VERSION "unknown"
#endif

#define INDEX_MAGIC      "FSVINDEX"
#define INDEX_BYTE_ORDER 0x01020304u
#define INDEX_ALIGN      64
#define INDEX_CHUNK      (4u << 20)

typedef struct {
	char magic[8];
	guint32 format_version;
	guint32 byte_order;
	guint32 header_size;
	guint32 n_sections;
	guint64 file_size;
	guint64 checksum; /* of this header (this field 0) and the section table */
	char key[80];     /* NUL-terminated */
	char version[32]; /* fencescope's, NUL-terminated */
} IndexHeader;

typedef struct {
	char tag[4];
	guint32 element_size;
	guint64 offset;
	guint64 count;
	guint64 checksum; /* of the section's bytes */
} IndexSection;

static gsize
align_up(gsize n)
{
	return (n + INDEX_ALIGN - 1) & ~(gsize) (INDEX_ALIGN - 1);
}

/* ---- Checksum ---------------------------------------------------------------------------- */

/*
 * The checksum of the header and of each section: four 64-bit lanes, each taking every fourth
 * 8-byte word (acc = rotl(acc + word * P2, 31) * P1, xxHash64's round), the tail padded with
 * zeros, the lanes and the length mixed at the end. Every step is a bijection of a lane given
 * the others, so a change within one word is always seen; any other damage slips through with a
 * chance of 2^-64. About three times faster than zlib's crc32 here (0.07 s against 0.20 s of
 * CPU for the 696 MB index of the 12 M event trace), and a section's checksum depends on that
 * section alone, so the checksums do not constrain where the check splits the file. Streaming:
 * fed in chunks of any size.
 */
#define HASH_P1     G_GUINT64_CONSTANT(0x9E3779B185EBCA87)
#define HASH_P2     G_GUINT64_CONSTANT(0xC2B2AE3D27D4EB4F)
#define HASH_P3     G_GUINT64_CONSTANT(0x165667B19E3779F9)
#define HASH_STRIPE 32

typedef struct {
	guint64 acc[4];
	guint8 carry[HASH_STRIPE];
	gsize carry_len;
	guint64 total;
} Hash;

static inline guint64
rotl64(guint64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static void
hash_init(Hash *h)
{
	h->acc[0] = HASH_P1 + HASH_P2;
	h->acc[1] = HASH_P2;
	h->acc[2] = 0;
	h->acc[3] = (guint64) 0 - HASH_P1;
	h->carry_len = 0;
	h->total = 0;
}

static inline void
hash_stripe(Hash *h, const guint8 *p)
{
	for (int k = 0; k < 4; k++) {
		guint64 word;

		memcpy(&word, p + 8 * k, 8);
		h->acc[k] = rotl64(h->acc[k] + word * HASH_P2, 31) * HASH_P1;
	}
}

static void
hash_feed(Hash *h, const void *data, gsize len)
{
	const guint8 *p = data;

	if (len == 0)
		return; /* DATA may be NULL (an empty array) */
	h->total += len;
	if (h->carry_len > 0) {
		gsize take = MIN(len, HASH_STRIPE - h->carry_len);

		memcpy(h->carry + h->carry_len, p, take);
		h->carry_len += take;
		p += take;
		len -= take;
		if (h->carry_len < HASH_STRIPE)
			return;
		hash_stripe(h, h->carry);
		h->carry_len = 0;
	}
	for (; len >= HASH_STRIPE; p += HASH_STRIPE, len -= HASH_STRIPE)
		hash_stripe(h, p);
	memcpy(h->carry, p, len);
	h->carry_len = len;
}

static guint64
hash_end(Hash *h)
{
	guint64 r;

	if (h->carry_len > 0) {
		memset(h->carry + h->carry_len, 0, HASH_STRIPE - h->carry_len);
		hash_stripe(h, h->carry);
	}
	r = rotl64(h->acc[0], 1) + rotl64(h->acc[1], 7) + rotl64(h->acc[2], 12) +
	    rotl64(h->acc[3], 18);
	r ^= h->total * HASH_P3;
	r ^= r >> 33;
	r *= HASH_P2;
	r ^= r >> 29;
	r *= HASH_P3;
	r ^= r >> 32;
	return r;
}

/* The header's checksum: the header with its checksum field 0, then the section table. */
static guint64
header_checksum(const IndexHeader *header, const IndexSection *sections, guint n)
{
	IndexHeader zeroed = *header;
	Hash h;

	zeroed.checksum = 0;
	hash_init(&h);
	hash_feed(&h, &zeroed, sizeof(zeroed));
	hash_feed(&h, sections, n * sizeof(IndexSection));
	return hash_end(&h);
}

/* ---- Key and cache --------------------------------------------------------------------- */

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Adds every file under DIR (RELATIVE to the trace) to SUM, in name order. */
static bool
key_add_folder(GChecksum *sum, const char *dir, const char *relative, GError **error)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, error);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const char *name;

	if (!d)
		return false;
	while ((name = g_dir_read_name(d)))
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, compare_names);
	for (guint i = 0; i < names->len; i++) {
		const char *n = g_ptr_array_index(names, i);
		g_autofree char *path = g_build_filename(dir, n, NULL);
		g_autofree char *rel =
		    relative[0] ? g_build_filename(relative, n, NULL) : g_strdup(n);
		struct stat st;

		if (stat(path, &st) != 0)
			continue; /* vanished or a dangling link: not part of the trace */
		if (S_ISDIR(st.st_mode)) {
			if (!key_add_folder(sum, path, rel, error))
				return false;
		} else if (S_ISREG(st.st_mode)) {
			g_autofree char *line =
			    g_strdup_printf("%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", rel,
					    (guint64) st.st_size,
					    (guint64) st.st_mtim.tv_sec * 1000000000u +
						(guint64) st.st_mtim.tv_nsec,
					    (guint64) st.st_ino);

			g_checksum_update(sum, (const guchar *) line, (gssize) strlen(line));
		}
	}
	return true;
}

char *
fsv_index_key(const char *trace_path, GError **error)
{
	g_autoptr(GChecksum) sum = NULL;
	g_autofree char *real = NULL;
	g_autofree char *head = NULL;
	g_autoptr(GError) local = NULL;
	struct stat st;

	g_return_val_if_fail(trace_path != NULL, NULL);
	real = realpath(trace_path, NULL);
	if (!real || stat(real, &st) != 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", trace_path,
			    g_strerror(errno));
		return NULL;
	}
	sum = g_checksum_new(G_CHECKSUM_SHA256);
	head = g_strdup_printf("fencescope index %d %s\n%s\n", FSV_INDEX_FORMAT_VERSION,
			       FSV_PROJECT_VERSION, real);
	g_checksum_update(sum, (const guchar *) head, (gssize) strlen(head));
	if (S_ISDIR(st.st_mode)) {
		if (!key_add_folder(sum, real, "", &local)) {
			g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s",
				    trace_path, local->message);
			return NULL;
		}
	} else {
		g_autofree char *line = g_strdup_printf(
		    "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", (guint64) st.st_size,
		    (guint64) st.st_mtim.tv_sec * 1000000000u + (guint64) st.st_mtim.tv_nsec,
		    (guint64) st.st_ino);

		g_checksum_update(sum, (const guchar *) line, (gssize) strlen(line));
	}
	return g_strdup(g_checksum_get_string(sum));
}

char *
fsv_index_cache_file(const char *trace_path, GError **error)
{
	g_autofree char *key = fsv_index_key(trace_path, error);
	g_autofree char *dir = NULL;
	g_autofree char *name = NULL;

	if (!key)
		return NULL;
	dir = g_build_filename(g_get_user_cache_dir(), "fencescope", "index", NULL);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", dir,
			    g_strerror(errno));
		return NULL;
	}
	name = g_strconcat(key, ".fsvi", NULL);
	return g_build_filename(dir, name, NULL);
}

/* ---- Cache cap ------------------------------------------------------------------------- */

guint64
fsv_index_cache_get_max(void)
{
	const char *env = g_getenv("FENCESCOPE_INDEX_CACHE_MAX");
	g_autofree char *number = NULL;
	guint64 value, unit = 1;
	gsize len;

	if (!env || !*env)
		return FSV_INDEX_CACHE_MAX_DEFAULT;
	number = g_strstrip(g_strdup(env));
	len = strlen(number);
	if (len > 0) {
		switch (g_ascii_toupper(number[len - 1])) {
		case 'K':
			unit = G_GUINT64_CONSTANT(1) << 10;
			break;
		case 'M':
			unit = G_GUINT64_CONSTANT(1) << 20;
			break;
		case 'G':
			unit = G_GUINT64_CONSTANT(1) << 30;
			break;
		case 'T':
			unit = G_GUINT64_CONSTANT(1) << 40;
			break;
		default:
			break;
		}
		if (unit != 1)
			number[len - 1] = '\0';
	}
	if (!g_ascii_string_to_unsigned(number, 10, 0, G_MAXUINT64 / unit, &value, NULL)) {
		g_debug("FENCESCOPE_INDEX_CACHE_MAX=%s is not a size: the default cap is used",
			env);
		return FSV_INDEX_CACHE_MAX_DEFAULT;
	}
	return value * unit;
}

void
fsv_index_cache_touch(const char *file)
{
	g_return_if_fail(file != NULL);
	if (utimensat(AT_FDCWD, file, NULL, 0) != 0)
		g_debug("%s: not marked as used: %s", file, g_strerror(errno));
}

/* An index file of the cache: 64 hex digits (the key) and ".fsvi"; not a save's temporary file
 * (KEY.fsvi.tmp.XXXXXX) nor a builder's folder. */
static bool
is_index_file_name(const char *name)
{
	gsize len = strlen(name);

	if (len != 64 + strlen(".fsvi") || !g_str_has_suffix(name, ".fsvi"))
		return false;
	for (gsize i = 0; i < 64; i++)
		if (!g_ascii_isxdigit(name[i]))
			return false;
	return true;
}

typedef struct {
	char *path;
	guint64 size;
	gint64 used_ns; /* modification time */
} CacheEntry;

static void
cache_entry_clear(gpointer data)
{
	g_free(((CacheEntry *) data)->path);
}

static int
compare_least_recently_used(const void *a, const void *b)
{
	const CacheEntry *x = a, *y = b;

	if (x->used_ns != y->used_ns)
		return x->used_ns < y->used_ns ? -1 : 1;
	return strcmp(x->path, y->path); /* the same order in every process */
}

guint
fsv_index_cache_prune(const char *folder, guint64 max_bytes, const char *keep)
{
	g_autoptr(GDir) dir = NULL;
	g_autoptr(GArray) entries = g_array_new(FALSE, FALSE, sizeof(CacheEntry));
	g_autofree char *keep_name = keep ? g_path_get_basename(keep) : NULL;
	const char *name;
	guint64 total = 0;
	guint removed = 0;

	g_return_val_if_fail(folder != NULL, 0);
	g_array_set_clear_func(entries, cache_entry_clear);
	dir = g_dir_open(folder, 0, NULL);
	while (dir && (name = g_dir_read_name(dir))) {
		CacheEntry e;
		struct stat st;

		if (!is_index_file_name(name))
			continue;
		e.path = g_build_filename(folder, name, NULL);
		if (lstat(e.path, &st) != 0 || !S_ISREG(st.st_mode)) {
			g_free(e.path);
			continue; /* removed meanwhile, or not a file */
		}
		e.size = (guint64) st.st_size;
		e.used_ns = (gint64) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		total += e.size;
		/* The index being opened is counted, never removed. */
		if (keep_name && strcmp(name, keep_name) == 0) {
			g_free(e.path);
			continue;
		}
		g_array_append_val(entries, e);
	}
	g_array_sort(entries, compare_least_recently_used);
	for (guint i = 0; i < entries->len && total > max_bytes; i++) {
		const CacheEntry *e = &g_array_index(entries, CacheEntry, i);

		/* Another pruner may have removed it already: then it is no longer counted
		 * either way. */
		if (g_unlink(e->path) == 0) {
			removed++;
			g_debug("%s: removed from the index cache (least recently used)", e->path);
		}
		total -= e->size;
	}
	return removed;
}

/* ---- Saving ---------------------------------------------------------------------------- */

/* One array's bytes and where they go in the file. The header, the section table and the zero
 * padding are not pieces. */
typedef struct {
	const void *data;
	gsize size;
	guint64 offset;
} Piece;

static bool
pwrite_all(int fd, const void *data, gsize size, guint64 offset)
{
	const char *p = data;

	while (size > 0) {
		ssize_t n = pwrite(fd, p, size, (off_t) offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		size -= (gsize) n;
		offset += (guint64) n;
	}
	return true;
}

typedef struct {
	FsvTrace *trace;
	IndexSection *sections;
	guint n;
} HashJob;

/* Each section's checksum, in a thread of its own while the caller writes the file: a save
 * takes the longer of the two instead of their sum. */
static gpointer
hash_sections(gpointer data)
{
	HashJob *job = data;

	for (guint i = 0; i < job->n; i++) {
		const FsvTraceArrayInfo *info = &_fsv_trace_arrays[i];
		Hash h;

		hash_init(&h);
		hash_feed(&h, *_fsv_trace_array_data(job->trace, info),
			  job->sections[i].count * info->element_size);
		job->sections[i].checksum = hash_end(&h);
	}
	return NULL;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The bytes [from, to) of the file that one thread copies into it, a window at a time. */
typedef struct {
	int fd;
	const Piece *pieces;
	guint n_pieces;
	guint64 from, to;
	bool drop; /* give the arrays' pages back once copied (_fsv_index_save_and_drop) */
	int error; /* errno of a failed mmap or munmap, else 0 */
} CopyJob;

/* Gives back the whole pages of [data, data + size) (MADV_DONTNEED: they read as zeros after):
 * the page cache's next allocations take them instead of pages new to this machine's memory. */
static void
drop_pages(const void *data, gsize size)
{
	guintptr page = (guintptr) sysconf(_SC_PAGESIZE);
	guintptr a = ((guintptr) data + page - 1) & ~(page - 1);
	guintptr b = ((guintptr) data + size) & ~(page - 1);

	if (b > a)
		madvise((void *) a, b - a, MADV_DONTNEED);
}

/* The size of a copy's window of the file: mapped, filled and unmapped one after the other, so
 * that the saving process never has more than two of them (one per thread) in its resident
 * memory, not the whole file's size (the page cache holds the pages either way). */
#define COPY_WINDOW (32u << 20)

static gpointer
copy_pieces(gpointer data)
{
	CopyJob *job = data;
	guint64 page = (guint64) sysconf(_SC_PAGESIZE);

	for (guint64 w = job->from & ~(page - 1); w < job->to; w += COPY_WINDOW) {
		guint64 end = MIN(w + COPY_WINDOW, job->to);
		guint64 from = MAX(w, job->from);
		char *map = mmap(NULL, (gsize) (end - w), PROT_READ | PROT_WRITE, MAP_SHARED,
				 job->fd, (off_t) w);

		if (map == MAP_FAILED) {
			job->error = errno;
			return NULL;
		}
		/* The window's pages in one call (Linux >= 5.14; else each page faults as it
		 * is written, which costs more): its blocks are allocated (fallocate). A page
		 * shared with the other thread's part is populated by both, harmlessly. */
		madvise(map + (from - w), (gsize) (end - from), MADV_POPULATE_WRITE);
		for (guint i = 0; i < job->n_pieces; i++) {
			const Piece *p = &job->pieces[i];
			guint64 a = MAX(p->offset, from), b = MIN(p->offset + p->size, end);

			if (a >= b)
				continue;
			memcpy(map + (a - w), (const char *) p->data + (a - p->offset),
			       (gsize) (b - a));
			if (job->drop)
				drop_pages((const char *) p->data + (a - p->offset),
					   (gsize) (b - a));
		}
		/* No msync: the pages are the page cache's (see the fsync note in
		 * fsv_index_save). */
		if (munmap(map, (gsize) (end - w)) != 0) {
			job->error = errno;
			return NULL;
		}
	}
	return NULL;
}

/*
 * Writes the arrays into FD through shared writable mappings of it, the file's size allocated
 * first (fallocate: a full disk is an error here, never a SIGBUS while copying), the copy split
 * in two halves on two threads. Through write() the kernel copied every byte into the page
 * cache on one core (14.5 % of the first open's CPU samples, 1.6-1.8 s for 700 MB); here each
 * thread copies straight into the page cache's pages. The padding needs no writing: a fresh
 * file reads as zeros. Returns false with errno set; *TRY_WRITE true if the file system cannot
 * do this (no fallocate, no shared mapping) and the caller should write() instead.
 */
static bool
save_mapped(int fd, guint64 file_size, const Piece *pieces, guint n_pieces, bool drop,
	    bool *try_write)
{
	guint64 data_bytes = 0, half, done = 0;
	CopyJob jobs[2];
	GThread *second;
	void *probe;

	*try_write = false;
	if (fallocate(fd, 0, 0, (off_t) file_size) != 0) {
		*try_write = errno == EOPNOTSUPP || errno == ENOSYS;
		return false;
	}
	/* Whether this file system maps files shared and writable at all. */
	probe = mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (probe == MAP_FAILED) {
		*try_write = errno == ENODEV || errno == EACCES || errno == EINVAL;
		return false;
	}
	munmap(probe, 1);
	/* The split: the byte of the arrays' data that halves it, as a file offset. */
	for (guint i = 0; i < n_pieces; i++)
		data_bytes += pieces[i].size;
	half = pieces[0].offset;
	for (guint i = 0; i < n_pieces; i++) {
		if (done + pieces[i].size >= data_bytes / 2) {
			half = pieces[i].offset + (data_bytes / 2 - done);
			break;
		}
		done += pieces[i].size;
	}
	jobs[0] = (CopyJob){fd, pieces, n_pieces, 0, half, drop, 0};
	jobs[1] = (CopyJob){fd, pieces, n_pieces, half, file_size, drop, 0};
	second = g_thread_new("fsv-index-copy", copy_pieces, &jobs[1]);
	copy_pieces(&jobs[0]);
	g_thread_join(second);
	errno = jobs[0].error ? jobs[0].error : jobs[1].error;
	return errno == 0;
}

/* Writes the arrays into FD with pwrite, one after the other (file systems with no fallocate
 * or no shared writable mapping; FSV_INDEX_SAVE_WRITE=1 in tests). Returns false with errno
 * set. */
static bool
save_written(int fd, guint64 file_size, const Piece *pieces, guint n_pieces)
{
	/* The size first: the padding after an empty last section is not written. */
	if (ftruncate(fd, (off_t) file_size) != 0)
		return false;
	for (guint i = 0; i < n_pieces; i++)
		if (!pwrite_all(fd, pieces[i].data, pieces[i].size, pieces[i].offset))
			return false;
	return true;
}

static bool
index_save(FsvTrace *trace, const char *key, const char *file, bool drop, GError **error)
{
	FsvTrace *t = trace;
	guint n = _fsv_trace_array_count;
	g_autofree IndexSection *sections = g_new0(IndexSection, n);
	g_autofree Piece *pieces = g_new0(Piece, n);
	g_autofree char *tmp = NULL;
	IndexHeader header = {0};
	HashJob job = {t, sections, n};
	GThread *hash_thread;
	guint n_pieces = 0;
	guint64 offset;
	bool ok, try_write = false;
	int saved_errno = 0;
	int fd;

	g_return_val_if_fail(trace && key && file, false);
	g_return_val_if_fail(strlen(key) < sizeof(header.key), false);
	memcpy(header.magic, INDEX_MAGIC, 8);
	header.format_version = FSV_INDEX_FORMAT_VERSION;
	header.byte_order = INDEX_BYTE_ORDER;
	header.header_size = sizeof(IndexHeader);
	header.n_sections = n;
	g_strlcpy(header.key, key, sizeof(header.key));
	g_strlcpy(header.version, FSV_PROJECT_VERSION, sizeof(header.version));
	offset = align_up(sizeof(header) + n * sizeof(IndexSection));
	for (guint i = 0; i < n; i++) {
		const FsvTraceArrayInfo *info = &_fsv_trace_arrays[i];
		gsize size;

		memcpy(sections[i].tag, info->tag, 4);
		sections[i].element_size = (guint32) info->element_size;
		sections[i].count = *_fsv_trace_array_count_of(t, info);
		sections[i].offset = offset;
		size = sections[i].count * info->element_size;
		if (size > 0)
			pieces[n_pieces++] = (Piece){*_fsv_trace_array_data(t, info), size, offset};
		offset = align_up(offset + size);
	}
	/* The last section ends the file: no padding after it. */
	header.file_size =
	    sections[n - 1].offset + sections[n - 1].count * sections[n - 1].element_size;

	tmp = g_strconcat(file, ".tmp.XXXXXX", NULL);
	fd = g_mkstemp_full(tmp, O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", file,
			    g_strerror(errno));
		return false;
	}
	/* The arrays first, while the other thread computes the sections' checksums from them
	 * (nothing changes them meanwhile); the header and the table last, with the checksums. */
	/* Dropping the arrays' pages as they are copied: their checksums first (0.07 s of CPU
	 * for the 700 MB of the 12 M event index). */
	if (drop)
		hash_sections(&job);
	hash_thread = drop ? NULL : g_thread_new("fsv-index-hash", hash_sections, &job);
	if (g_strcmp0(g_getenv("FSV_INDEX_SAVE_WRITE"), "1") == 0) {
		ok = false;
		try_write = true;
	} else {
		ok = save_mapped(fd, header.file_size, pieces, n_pieces, drop, &try_write);
	}
	if (!ok && try_write) {
		g_debug("%s: no shared mapping (%s): written with pwrite", file, g_strerror(errno));
		ok = save_written(fd, header.file_size, pieces, n_pieces);
	}
	if (!ok)
		saved_errno = errno;
	if (hash_thread)
		g_thread_join(hash_thread);
	if (ok) {
		header.checksum = header_checksum(&header, sections, n);
		/* No fsync: this is a cache. A file torn by a crash of the machine fails a
		 * checksum (or its size check) at the next map and is rebuilt, and fsync'ing
		 * hundreds of megabytes held every first open for seconds. The rename below is
		 * still atomic for the processes of this machine. */
		ok = pwrite_all(fd, &header, sizeof(header), 0) &&
		     pwrite_all(fd, sections, n * sizeof(IndexSection), sizeof(header));
		if (!ok)
			saved_errno = errno;
	}
	if (close(fd) != 0 && ok) {
		ok = false;
		saved_errno = errno;
	}
	if (ok && rename(tmp, file) != 0) {
		ok = false;
		saved_errno = errno;
	}
	if (!ok) {
		g_unlink(tmp);
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", file,
			    g_strerror(saved_errno ? saved_errno : EIO));
	}
	return ok;
}

bool
fsv_index_save(const FsvTrace *trace, const char *key, const char *file, GError **error)
{
	return index_save((FsvTrace *) trace, key, file, false, error);
}

bool
_fsv_index_save_and_drop(FsvTrace *trace, const char *key, const char *file, GError **error)
{
	return index_save(trace, key, file, true, error);
}

/* ---- Mapping and checking -------------------------------------------------------------- */

/* Where the check of a section is, across its chunks. */
typedef struct {
	const FsvTrace *trace;
	guint64 prev;    /* edge_start: the previous value */
	gsize lod;       /* lod_items, lod_buckets: the header of the current element */
	guint64 running; /* lods: items and buckets so far */
	guint64 running_buckets;
	const char *problem;
} Check;

static gsize
count_of_kind(const FsvTrace *trace, guint32 kind)
{
	switch (kind) {
	case FSV_ITEM_OP:
		return trace->n_ops;
	case FSV_ITEM_PACKET:
		return trace->n_packets;
	case FSV_ITEM_MARKER:
		return trace->n_markers;
	case FSV_ITEM_FRAME:
		return trace->n_frames;
	default:
		return 0;
	}
}

static bool
index_ok(guint32 i, gsize n)
{
	return i == FSV_INDEX_NONE || i < n;
}

static bool
range_ok(guint64 start, guint64 count, gsize n)
{
	return start <= n && count <= n - start;
}

/* A stored bool is the byte 0 or 1: any other byte (a damaged file) would be undefined
 * behaviour to read as a bool, so it is read as a byte and refused like an index out of
 * bounds. */
#define BOOL_OK(field) (*(const guint8 *) &(field) <= 1)

static bool
lod_kind_is(const FsvTrace *trace, guint64 lod, guint32 kind)
{
	return lod < trace->n_lods && trace->lods[lod].kind == kind;
}

#define FAIL(c, text)                                                                              \
	do {                                                                                       \
		(c)->problem = (text);                                                             \
		return false;                                                                      \
	} while (0)

/*
 * Checks elements [first, first + n) of array INFO, read into DATA: every index and offset they
 * hold lies in bounds. Arrays before it in FSV_TRACE_ARRAYS are already checked and may be read
 * (through the mapping: only small ones are). Returns false with c->problem set.
 */
static bool
check_section(Check *c, const FsvTraceArrayInfo *info, const void *data, gsize first, gsize n)
{
	const FsvTrace *trace = c->trace;
	gsize off = info->data_offset;

#define IS(field) (off == G_STRUCT_OFFSET(FsvTrace, field))
	if (IS(strings)) {
		const char *s = data;

		if (first == 0 && n > 0 && s[0] != '\0')
			FAIL(c, "string pool does not start with \"\"");
		if (first + n == trace->n_strings && s[n - 1] != '\0')
			FAIL(c, "string pool not terminated");
	} else if (IS(scalars)) {
		const FsvTraceScalars *s = data;

		if (s->runtime_version >= trace->n_strings ||
		    (s->partial_error != FSV_STRING_NONE && s->partial_error >= trace->n_strings))
			FAIL(c, "string offset out of bounds");
		if (!BOOL_OK(s->summary.has_trace_info) || s->has_paging_packets > 1 ||
		    s->has_resubmitted_pieces > 1)
			FAIL(c, "bool out of bounds (summary)");
	} else if (IS(ops)) {
		const FsvOp *o = data;

		for (gsize i = 0; i < n; i++)
			if (!index_ok(o[i].row, trace->n_rows) ||
			    !index_ok(o[i].signal_op, trace->n_ops))
				FAIL(c, "operation index out of bounds");
	} else if (IS(packets)) {
		const FsvPacket *p = data;

		for (gsize i = 0; i < n; i++)
			if (!index_ok(p[i].row, trace->n_rows) ||
			    !index_ok(p[i].prev_piece, trace->n_packets) ||
			    !index_ok(p[i].next_piece, trace->n_packets))
				FAIL(c, "packet index out of bounds");
			else if (!BOOL_OK(p[i].is_context_switch) || !BOOL_OK(p[i].is_user_mode) ||
				 !BOOL_OK(p[i].is_paging))
				FAIL(c, "bool out of bounds (packet)");
	} else if (IS(packet_styles)) {
		const FsvPacketStyle *p = data;

		for (gsize i = 0; i < n; i++)
			if (!BOOL_OK(p[i].is_paging))
				FAIL(c, "bool out of bounds (packet style)");
	} else if (IS(markers)) {
		const FsvMarker *m = data;

		for (gsize i = 0; i < n; i++)
			if (!index_ok(m[i].row, trace->n_rows) || m[i].kind >= 64)
				FAIL(c, "marker index out of bounds");
			else if (!BOOL_OK(m[i].is_open) || !BOOL_OK(m[i].is_missed))
				FAIL(c, "bool out of bounds (marker)");
	} else if (IS(marker_styles)) {
		const FsvMarkerStyle *m = data;

		for (gsize i = 0; i < n; i++)
			if (m[i].kind >= 64 ||
			    m[i].flags > (FSV_MARKER_STYLE_OPEN | FSV_MARKER_STYLE_MISSED |
					  FSV_MARKER_STYLE_64K))
				FAIL(c, "marker style out of bounds");
	} else if (IS(losses)) {
		const FsvLoss *l = data;

		for (gsize i = 0; i < n; i++)
			if (!index_ok(l[i].row, trace->n_rows))
				FAIL(c, "loss row out of bounds");
	} else if (IS(edge_start)) {
		const guint32 *e = data;

		for (gsize i = 0; i < n; i++) {
			if ((first + i == 0 && e[i] != 0) || e[i] < c->prev ||
			    e[i] > trace->n_edge_ops ||
			    (first + i + 1 == trace->n_edge_start && e[i] != trace->n_edge_ops))
				FAIL(c, "edge offset out of bounds");
			c->prev = e[i];
		}
	} else if (IS(edge_ops) || IS(row_ops)) {
		const guint32 *e = data;

		for (gsize i = 0; i < n; i++)
			if (e[i] >= trace->n_ops)
				FAIL(c, "operation index out of bounds");
	} else if (IS(row_packets)) {
		const guint32 *e = data;

		for (gsize i = 0; i < n; i++)
			if (e[i] >= trace->n_packets)
				FAIL(c, "packet index out of bounds");
	} else if (IS(row_markers)) {
		const guint32 *e = data;

		for (gsize i = 0; i < n; i++)
			if (e[i] >= trace->n_markers)
				FAIL(c, "marker index out of bounds");
	} else if (IS(steps)) {
		const FsvFenceStep *s = data;

		for (gsize i = 0; i < n; i++)
			if ((!index_ok(s[i].op, trace->n_ops) &&
			     s[i].op != FSV_STEP_BUFFER_COMPLETED &&
			     s[i].op != FSV_STEP_PROPAGATED) ||
			    !index_ok(s[i].marker, trace->n_markers))
				FAIL(c, "fence step index out of bounds");
	} else if (IS(lods)) {
		const FsvLodHeader *h = data;

		for (gsize i = 0; i < n; i++) {
			guint64 buckets = 0;

			if ((h[i].kind != FSV_ITEM_OP && h[i].kind != FSV_ITEM_PACKET &&
			     h[i].kind != FSV_ITEM_MARKER && h[i].kind != FSV_ITEM_FRAME) ||
			    h[i].items_start != c->running ||
			    h[i].buckets_start != c->running_buckets ||
			    !range_ok(h[i].items_start, h[i].n_items, trace->n_lod_items) ||
			    h[i].class_start[0] != 0 ||
			    h[i].class_start[FSV_LOD_CLASSES] != h[i].n_items)
				FAIL(c, "level-of-detail index out of bounds");
			for (guint k = 0; k < FSV_LOD_CLASSES; k++)
				if (h[i].class_start[k] > h[i].class_start[k + 1])
					FAIL(c, "level-of-detail classes out of order");
			for (guint k = 0; k <= FSV_LOD_CLASSES; k++)
				buckets += h[i].level_n[k];
			for (guint k = 0; k <= FSV_LOD_CLASSES; k++)
				if (!range_ok(h[i].level_start[k], h[i].level_n[k], buckets))
					FAIL(c, "level-of-detail level out of bounds");
			if (!range_ok(h[i].buckets_start, buckets, trace->n_lod_buckets))
				FAIL(c, "level-of-detail buckets out of bounds");
			c->running += h[i].n_items;
			c->running_buckets += buckets;
		}
		if (first + n == trace->n_lods && (c->running != trace->n_lod_items ||
						   c->running_buckets != trace->n_lod_buckets))
			FAIL(c, "level-of-detail items not all owned");
	} else if (IS(lod_items) || IS(lod_buckets)) {
		bool items = IS(lod_items);

		for (gsize i = 0; i < n; i++) {
			guint64 k = first + i;
			guint32 id;

			/* The header owning element k (headers are contiguous, in order). */
			while (c->lod < trace->n_lods) {
				const FsvLodHeader *h = &trace->lods[c->lod];
				guint64 end = items ? h->items_start + h->n_items
						    : (c->lod + 1 < trace->n_lods
							   ? trace->lods[c->lod + 1].buckets_start
							   : trace->n_lod_buckets);

				if (k < end)
					break;
				c->lod++;
			}
			if (c->lod >= trace->n_lods)
				FAIL(c, "level-of-detail element without an index");
			id = items ? ((const FsvLodItem *) data)[i].id
				   : ((const FsvLodBucket *) data)[i].top;
			if (id >= count_of_kind(trace, trace->lods[c->lod].kind))
				FAIL(c, "level-of-detail item id out of bounds");
		}
	} else if (IS(rows)) {
		const FsvStoredRow *r = data;

		for (gsize i = 0; i < n; i++)
			if ((r[i].row.parent != FSV_INDEX_NONE && r[i].row.parent >= first + i) ||
			    r[i].label >= trace->n_strings || r[i].sublabel >= trace->n_strings ||
			    r[i].row.kind > FSV_ROW_FRAMES)
				FAIL(c, "row out of bounds");
			else if (!BOOL_OK(r[i].row.has_doorbell_band) ||
				 !BOOL_OK(r[i].row.has_event_strip))
				FAIL(c, "bool out of bounds (row)");
	} else if (IS(counter_rows)) {
		/* Issue 15 §4: a row's counter slice lies inside the arrays of its kind. Those come
		 * after this one in the file: their sizes are known (from the section table), not
		 * their contents, which the queries bound by these slices. */
		const FsvCounterRow *r = data;

		if (first == 0 && trace->n_counter_rows != 0 &&
		    trace->n_counter_rows != trace->n_rows)
			FAIL(c, "counter rows are not one per row");
		for (gsize i = 0; i < n; i++) {
			FsvRowKind kind = trace->rows[first + i].row.kind;

			if (r[i].is_wide > 1)
				FAIL(c, "bool out of bounds (counter row)");
			gsize values = kind == FSV_ROW_BUSY    ? trace->n_busy_begin
				       : kind != FSV_ROW_DEPTH ? (gsize) G_MAXUINT32
				       : r[i].is_wide
					   ? MIN(trace->n_depth_ns, trace->n_depth_value)
					   : MIN(trace->n_depth_offset, trace->n_depth_value16);
			bool has_pyramid = kind == FSV_ROW_DEPTH || kind == FSV_ROW_FENCE ||
					   kind == FSV_ROW_XFENCE;

			if (kind == FSV_ROW_BUSY && (trace->n_busy_end != trace->n_busy_begin ||
						     trace->n_busy_before != trace->n_busy_begin))
				FAIL(c, "busy arrays of different lengths");

			if (!range_ok(r[i].first, r[i].count, values) ||
			    (has_pyramid &&
			     !range_ok(r[i].pyramid, _fsv_counters_pyramid_size(r[i].count),
				       trace->n_counter_pyramid)))
				FAIL(c, "counter row out of bounds");
			if (kind == FSV_ROW_DEPTH && !r[i].is_wide &&
			    !range_ok(r[i].block,
				      (r[i].count + FSV_DEPTH_BLOCK - 1) / FSV_DEPTH_BLOCK,
				      trace->n_depth_base))
				FAIL(c, "depth row blocks out of bounds");
			if ((kind == FSV_ROW_FENCE || kind == FSV_ROW_XFENCE) &&
			    r[i].count != trace->row_data[first + i].n_steps)
				FAIL(c, "counter row of a fence without its steps");
			/* Its step blocks (fsv-counters.h): a damaged time only misplaces a column,
			 * the search stays inside the row's steps. */
			if ((kind == FSV_ROW_FENCE || kind == FSV_ROW_XFENCE) &&
			    !range_ok(r[i].block,
				      (r[i].count + FSV_STEP_BLOCK - 1) / FSV_STEP_BLOCK,
				      trace->n_step_block_ns))
				FAIL(c, "fence row blocks out of bounds");
		}
	} else if (IS(row_data)) {
		const FsvRowData *d = data;

		for (gsize i = 0; i < n; i++) {
			guint32 lane_kind = d[i].n_ops ? FSV_ITEM_OP : FSV_ITEM_PACKET;
			/* Rows are checked already: the row's lane counts, which the view sizes
			 * its lanes by, agree with its LODs. */
			const FsvRow *row = &trace->rows[first + i].row;

			if (row->lane_count < 1 ||
			    row->lane_count > MAX(MAX(d[i].n_lane_lods, d[i].n_va_lods), 1) ||
			    row->first_lower_lane > row->lane_count)
				FAIL(c, "row lane count out of bounds");

			if (!range_ok(d[i].ops_start, d[i].n_ops, trace->n_row_ops) ||
			    !range_ok(d[i].packets_start, d[i].n_packets, trace->n_row_packets) ||
			    !range_ok(d[i].markers_start, d[i].n_markers, trace->n_row_markers) ||
			    !range_ok(d[i].steps_start, d[i].n_steps, trace->n_steps) ||
			    !range_ok(d[i].lane_lods, d[i].n_lane_lods, trace->n_lods) ||
			    !range_ok(d[i].va_lods, d[i].n_va_lods, trace->n_lods))
				FAIL(c, "row range out of bounds");
			for (guint l = 0; l < d[i].n_lane_lods; l++)
				if (!lod_kind_is(trace, (guint64) d[i].lane_lods + l, lane_kind))
					FAIL(c, "row lane index of the wrong kind");
			/* An aggregated slot (fsv-lanes-private.h): a LOD of the row's kind
			 * starting at one of its lanes; none: every field 0. */
			for (guint h = 0; h < 2; h++)
				if (d[i].stack_is_union[h] > 1 ||
				    (d[i].stack_lods[h] == FSV_INDEX_NONE
					 ? d[i].stack_first[h] != 0 || d[i].stack_is_union[h] != 0
					 : !lod_kind_is(trace, d[i].stack_lods[h], lane_kind) ||
					       d[i].stack_first[h] >= d[i].n_lane_lods))
					FAIL(c, "row stacked lanes out of bounds");
			for (guint l = 0; l < d[i].n_va_lods; l++)
				if (!lod_kind_is(trace, (guint64) d[i].va_lods + l,
						 FSV_ITEM_MARKER))
					FAIL(c, "row lane index of the wrong kind");
			for (guint h = 0; h < 2; h++)
				if (d[i].stack_lods[h] != FSV_INDEX_NONE &&
				    !lod_kind_is(trace, d[i].stack_lods[h], lane_kind))
					FAIL(c, "row lane index of the wrong kind");
			for (guint l = 0; l < FSV_MARKER_LAYER_COUNT; l++)
				if (d[i].marker_lods[l] != FSV_INDEX_NONE &&
				    !lod_kind_is(trace, d[i].marker_lods[l], FSV_ITEM_MARKER))
					FAIL(c, "row marker index out of bounds");
		}
	} else if (IS(processes)) {
		const FsvStoredProcess *p = data;

		for (gsize i = 0; i < n; i++)
			if (p[i].name >= trace->n_strings)
				FAIL(c, "process name out of bounds");
			else if (!BOOL_OK(p[i].info.is_abnormal_termination))
				FAIL(c, "bool out of bounds (process)");
	} else if (IS(queues)) {
		const struct fsa_queue_info *q = data;

		for (gsize i = 0; i < n; i++)
			if (!BOOL_OK(q[i].is_user_mode))
				FAIL(c, "bool out of bounds (queue)");
	} else if (IS(contexts)) {
		const struct fsa_context_info *x = data;

		for (gsize i = 0; i < n; i++)
			if (!BOOL_OK(x[i].has_schedule))
				FAIL(c, "bool out of bounds (context)");
	} else if (IS(engines)) {
		const struct fsa_engine_info *e = data;

		for (gsize i = 0; i < n; i++)
			if (!BOOL_OK(e[i].ums_supported) || !BOOL_OK(e[i].is_preemption_aware))
				FAIL(c, "bool out of bounds (engine)");
	} else if (IS(fences)) {
		const struct fsa_fence_info *f = data;

		for (gsize i = 0; i < n; i++)
			if (!BOOL_OK(f[i].is_shared) || !BOOL_OK(f[i].is_cross_adapter) ||
			    !BOOL_OK(f[i].is_progress_fence))
				FAIL(c, "bool out of bounds (fence)");
	} else if (IS(queue_rows) || IS(fence_rows) || IS(va_rows)) {
		const FsvRowKey *k = data;

		for (gsize i = 0; i < n; i++)
			if (k[i].row >= trace->n_rows)
				FAIL(c, "row lookup out of bounds");
	} else if (IS(xfence_rows)) {
		const FsvXfenceRow *x = data;

		for (gsize i = 0; i < n; i++)
			if (x[i].row >= trace->n_rows)
				FAIL(c, "row lookup out of bounds");
	} else if (IS(frames)) {
		/* Issue 16 §3 (fsv-frames.h): each frame on a frames row, its box not reversed. */
		const FsvFrame *f = data;

		for (gsize i = 0; i < n; i++)
			if (f[i].row >= trace->n_rows ||
			    trace->rows[f[i].row].row.kind != FSV_ROW_FRAMES ||
			    f[i].is_pending > 1 || f[i].draw_begin_ns > f[i].draw_end_ns)
				FAIL(c, "frame out of bounds");
	} else if (IS(frame_rows)) {
		/* Sorted by row (looked up by binary search), each a range of the frames with a
		 * level-of-detail index of frames when it has any. */
		const FsvFrameRow *r = data;

		for (gsize i = 0; i < n; i++)
			if (r[i].row >= trace->n_rows ||
			    trace->rows[r[i].row].row.kind != FSV_ROW_FRAMES ||
			    (i > 0 && r[i].row <= r[i - 1].row) ||
			    !range_ok(r[i].first, r[i].count, trace->n_frames) ||
			    (r[i].count == 0 ? r[i].lod != FSV_INDEX_NONE
					     : !lod_kind_is(trace, r[i].lod, FSV_ITEM_FRAME)))
				FAIL(c, "frames row out of bounds");
	}
#undef IS
	return true;
}

static bool
read_all(int fd, void *buffer, gsize size, guint64 offset)
{
	char *p = buffer;

	while (size > 0) {
		ssize_t n = pread(fd, p, size, (off_t) offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		size -= (gsize) n;
		offset += (guint64) n;
	}
	return true;
}

/*
 * One part of the pass over the file: sections [first, end) and the bytes [from, to) that hold
 * them, read with pread: each section's checksum computed and every element checked, the
 * padding before each checked to be zeros. Part 0 also checks the header's checksum (the header
 * and the section table).
 */
typedef struct {
	int fd;
	FsvTrace *trace;
	const IndexHeader *header;
	const IndexSection *sections;
	guint first, end;
	guint64 from, to;
	const char *problem;
} CheckPart;

static gpointer
check_part(gpointer data)
{
	CheckPart *part = data;
	g_autofree char *buffer = g_malloc(INDEX_CHUNK);
	const IndexSection *sections = part->sections;
	guint64 pos = part->from;

	if (part->from == 0) {
		if (header_checksum(part->header, sections, part->header->n_sections) !=
		    part->header->checksum) {
			part->problem = "checksum mismatch (header)";
			return NULL;
		}
		pos = sizeof(IndexHeader) + part->header->n_sections * sizeof(IndexSection);
	}
	for (guint i = part->first; i <= part->end; i++) {
		guint64 start = i < part->end ? sections[i].offset : part->to;
		const FsvTraceArrayInfo *info = i < part->end ? &_fsv_trace_arrays[i] : NULL;
		Check c = {part->trace, 0, 0, 0, 0, NULL};
		gsize per_chunk;
		Hash h;

		/* The padding before this section: zeros (no checksum covers it). */
		while (pos < start) {
			gsize n = (gsize) MIN(start - pos, INDEX_CHUNK);

			if (!read_all(part->fd, buffer, n, pos)) {
				part->problem = "cannot read";
				return NULL;
			}
			for (gsize k = 0; k < n; k++)
				if (buffer[k] != 0) {
					part->problem = "checksum mismatch (padding)";
					return NULL;
				}
			pos += n;
		}
		if (!info)
			break;
		hash_init(&h);
		per_chunk = MAX(INDEX_CHUNK / info->element_size, 1);
		for (guint64 first = 0; first < sections[i].count; first += per_chunk) {
			gsize n = (gsize) MIN(sections[i].count - first, per_chunk);
			gsize bytes = n * info->element_size;

			if (!read_all(part->fd, buffer, bytes, pos)) {
				part->problem = "cannot read";
				return NULL;
			}
			hash_feed(&h, buffer, bytes);
			pos += bytes;
			if (!check_section(&c, info, buffer, (gsize) first, n)) {
				part->problem = c.problem;
				return NULL;
			}
		}
		if (sections[i].count == 0 && !check_section(&c, info, buffer, 0, 0)) {
			part->problem = c.problem;
			return NULL;
		}
		if (hash_end(&h) != sections[i].checksum) {
			part->problem = "checksum mismatch";
			return NULL;
		}
	}
	return NULL;
}

/* The section where the second part of the check starts: the section start nearest the middle
 * of the file, at most the level-of-detail headers' (each section's check reads the contents of
 * sections before it from LODH on — rows, row data, LOD headers — so those must all be in the
 * same part, checked before it; sections before LODH read only counts). */
static guint
check_split(const IndexHeader *header, const IndexSection *sections)
{
	guint best = 0, last = 0;
	guint64 best_gap = G_MAXUINT64;

	for (guint i = 0; i < header->n_sections; i++)
		if (memcmp(_fsv_trace_arrays[i].tag, "LODH", 4) == 0)
			last = i;
	for (guint i = 1; i <= last; i++) {
		guint64 a = sections[i].offset, b = header->file_size - sections[i].offset;
		guint64 gap = a > b ? a - b : b - a;

		if (gap < best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	return best;
}

/* The one pass over the file: every checksum and the check of every section's elements, in two
 * parts on two threads (split at a section): a reopen reads the whole file, hundreds of
 * megabytes. */
static const char *
check_file(int fd, FsvTrace *trace, const IndexHeader *header, const IndexSection *sections)
{
	guint split = check_split(header, sections);
	CheckPart parts[2] = {
	    {fd, trace, header, sections, 0, header->n_sections, 0, header->file_size, NULL},
	    {fd, trace, header, sections, header->n_sections, header->n_sections, header->file_size,
	     header->file_size, NULL},
	};
	GThread *second = NULL;

	/* Always two parts, even for a small file (a thread costs tens of microseconds), so that
	 * the tests of damaged files go through both. */
	if (split > 0) {
		parts[0].end = split;
		parts[0].to = sections[split].offset;
		parts[1].first = split;
		parts[1].from = sections[split].offset;
		second = g_thread_new("fsv-index-check", check_part, &parts[1]);
	}
	check_part(&parts[0]);
	if (second)
		g_thread_join(second);
	return parts[0].problem ? parts[0].problem : parts[1].problem;
}

FsvTrace *
fsv_index_map(const char *file, const char *expected_key, const char *trace_path, GError **error)
{
	g_autoptr(FsvTrace) trace = NULL;
	const IndexHeader *header;
	const IndexSection *sections;
	const char *problem = NULL;
	struct stat st;
	void *map;
	guint64 end;
	int fd;

	g_return_val_if_fail(file && expected_key && trace_path, NULL);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX, "%s: %s", file,
			    g_strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || (gsize) st.st_size < sizeof(IndexHeader)) {
		close(fd);
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX,
			    "%s: not an index file (truncated)", file);
		return NULL;
	}
	map = mmap(NULL, (gsize) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;

		close(fd);
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX, "%s: %s", file,
			    g_strerror(e));
		return NULL;
	}
	trace = _fsv_trace_new_empty(trace_path);
	trace->mapping = map;
	trace->mapping_size = (gsize) st.st_size;
	header = map;
	sections = (const IndexSection *) (header + 1);
	if (memcmp(header->magic, INDEX_MAGIC, 8) != 0)
		problem = "not an index file";
	else if (header->byte_order != INDEX_BYTE_ORDER)
		problem = "written with another byte order";
	else if (header->format_version != FSV_INDEX_FORMAT_VERSION ||
		 header->header_size != sizeof(IndexHeader) ||
		 header->n_sections != _fsv_trace_array_count)
		problem = "another index format version";
	else if (header->file_size != (guint64) st.st_size)
		problem = "truncated or grown";
	else if (memchr(header->key, '\0', sizeof(header->key)) == NULL ||
		 strcmp(header->key, expected_key) != 0)
		problem = "key mismatch (stale)";
	else if (sizeof(IndexHeader) + header->n_sections * sizeof(IndexSection) >
		 header->file_size)
		problem = "section table out of bounds";
	end = sizeof(IndexHeader) + (guint64) _fsv_trace_array_count * sizeof(IndexSection);
	for (guint i = 0; !problem && i < _fsv_trace_array_count; i++) {
		const FsvTraceArrayInfo *info = &_fsv_trace_arrays[i];
		const IndexSection *s = &sections[i];

		if (memcmp(s->tag, info->tag, 4) != 0 || s->element_size != info->element_size)
			problem = "another index format version (section table)";
		else if (s->offset % INDEX_ALIGN != 0 || s->offset < end ||
			 s->offset > header->file_size ||
			 s->count > (header->file_size - s->offset) / info->element_size)
			problem = "section out of bounds";
		else if (i + 1 == _fsv_trace_array_count &&
			 s->offset + s->count * info->element_size != header->file_size)
			problem = "trailing bytes";
		if (problem)
			break;
		end = s->offset + s->count * info->element_size;
		*_fsv_trace_array_data(trace, info) = (char *) map + s->offset;
		*_fsv_trace_array_count_of(trace, info) = (gsize) s->count;
	}
	if (!problem &&
	    (trace->n_scalars != 1 || trace->n_strings == 0 ||
	     trace->n_edge_start != trace->n_ops + 1 || trace->n_row_data != trace->n_rows ||
	     trace->n_op_kinds != trace->n_ops || trace->n_packet_styles != trace->n_packets ||
	     trace->n_marker_styles != trace->n_markers))
		problem = "array sizes disagree";
	if (!problem)
		problem = check_file(fd, trace, header, sections);
	close(fd);
	if (problem) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX, "%s: %s", file, problem);
		return NULL;
	}
	/* Drawing reads items scattered over the arrays (a LOD bucket's longest item, one per
	 * pixel column and lane): without this the kernel maps 64 KB around each page read
	 * (fault-around) and a first draw of the whole trace makes most of the file resident. */
	madvise(map, (gsize) st.st_size, MADV_RANDOM);
	_fsv_trace_derive(trace);
	return g_steal_pointer(&trace);
}

/* ---- Tests ----------------------------------------------------------------------------- */

static bool
read_header(int fd, const char *file, IndexHeader *header, GError **error)
{
	if (!read_all(fd, header, sizeof(*header), 0) ||
	    memcmp(header->magic, INDEX_MAGIC, 8) != 0) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX, "%s: not an index file",
			    file);
		return false;
	}
	return true;
}

bool
_fsv_index_find_section(const char *file, const char *tag, guint64 *offset, guint64 *count,
			GError **error)
{
	IndexHeader header;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	bool found = false;

	if (fd < 0 || !read_header(fd, file, &header, error)) {
		if (fd >= 0)
			close(fd);
		else
			g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_IO, "%s: %s", file,
				    g_strerror(errno));
		return false;
	}
	for (guint i = 0; i < header.n_sections && !found; i++) {
		IndexSection s;

		if (!read_all(fd, &s, sizeof(s), sizeof(header) + i * sizeof(s)))
			break;
		if (memcmp(s.tag, tag, 4) == 0) {
			*offset = s.offset;
			*count = s.count;
			found = true;
		}
	}
	close(fd);
	if (!found)
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX, "%s: no section %s",
			    file, tag);
	return found;
}

bool
_fsv_index_update_checksum(const char *file, GError **error)
{
	g_autofree char *data = NULL;
	gsize size;
	IndexHeader *header;
	IndexSection *sections;

	if (!g_file_get_contents(file, &data, &size, error))
		return false;
	if (size < sizeof(IndexHeader)) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX, "%s: truncated", file);
		return false;
	}
	header = (IndexHeader *) data;
	if (sizeof(IndexHeader) + (guint64) header->n_sections * sizeof(IndexSection) > size) {
		g_set_error(error, FSV_TRACE_ERROR, FSV_TRACE_ERROR_INDEX, "%s: truncated", file);
		return false;
	}
	sections = (IndexSection *) (header + 1);
	for (guint i = 0; i < header->n_sections; i++) {
		Hash h;

		if (sections[i].offset > size ||
		    sections[i].count * sections[i].element_size > size - sections[i].offset)
			continue; /* out of bounds: left as it is, the map refuses it anyway */
		hash_init(&h);
		hash_feed(&h, data + sections[i].offset,
			  sections[i].count * sections[i].element_size);
		sections[i].checksum = hash_end(&h);
	}
	header->checksum = header_checksum(header, sections, header->n_sections);
	return g_file_set_contents(file, data, (gssize) size, error);
}

/* ---- Tests: every trace through an index file ------------------------------------------- */

FsvTrace *
_fsv_trace_maybe_round_trip(FsvTrace *trace)
{
	const char *env = g_getenv("FSV_TRACE_ROUND_TRIP");
	g_autoptr(GError) error = NULL;
	g_autofree char *dir = NULL;
	g_autofree char *file = NULL;
	FsvTrace *mapped;

	if (!env || strcmp(env, "1") != 0)
		return trace;
	dir = g_dir_make_tmp("fsv-round-trip-XXXXXX", &error);
	g_assert_no_error(error);
	file = g_build_filename(dir, "trace.fsvi", NULL);
	mapped = fsv_index_save(trace, "round-trip", file, &error)
		     ? fsv_index_map(file, "round-trip", trace->path, &error)
		     : NULL;
	/* The mapping keeps the data; the file and its folder go (before a failure aborts). */
	g_unlink(file);
	g_rmdir(dir);
	if (!mapped)
		g_error("FSV_TRACE_ROUND_TRIP: %s", error->message);
	fsv_trace_unref(trace);
	return mapped;
}
