/* SPDX-License-Identifier: MIT */
/*
 * analyzer/ingest on damaged traces: a copy of a sample trace is truncated, overwritten with
 * random bytes or edited, then read. Each case must end — with a one-line error that names the
 * trace, or with what could be read — and never crash or hang (the suite's timeout catches a
 * hang). The format-version case edits trace_info's format_major in the stream bytes to 2.
 */
#define _GNU_SOURCE

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "damage.h"
#include "fencescope-tp-enums.h"
#include "ingest-collect.h"
#include "lttng-harness.h"

extern char **environ;

#define STREAM_DIR "/ust/uid/0/64-bit"

static char work[] = "/tmp/fsti-damage-XXXXXX";
static char *trace_dir; /* work/trace: the copy to damage */

static void
copy_sample(void)
{
	char *cmd = NULL;

	cr_assert_not_null(mkdtemp(work));
	cr_assert_geq(asprintf(&trace_dir, "%s/trace", work), 0);
	cr_assert_geq(asprintf(&cmd, "cp -r '%s/frame-pipeline' '%s'", FSTI_TRACES, trace_dir), 0);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
}

static void
remove_copy(void)
{
	fst_remove_tree(work);
	free(trace_dir);
	trace_dir = NULL;
}

TestSuite(ingest_damage, .init = copy_sample, .fini = remove_copy, .timeout = 60);

static char *
file_path(const char *name)
{
	char *path = NULL;

	cr_assert_geq(asprintf(&path, "%s" STREAM_DIR "/%s", trace_dir, name), 0);
	return path;
}

static unsigned char *
file_read(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *bytes;
	long len;

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	cr_assert_gt(len, 0);
	rewind(f);
	bytes = malloc((size_t) len);
	cr_assert_not_null(bytes);
	cr_assert_eq(fread(bytes, 1, (size_t) len, f), (size_t) len);
	fclose(f);
	*size = (size_t) len;
	return bytes;
}

static void
file_write(const char *path, const unsigned char *bytes, size_t size)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(bytes, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
}

static void
file_truncate(const char *name, double keep)
{
	char *path = file_path(name);
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, (off_t) ((double) st.st_size * keep)), 0);
	free(path);
}

/* Replaces the first `from` in file `name` with `to` (same length). */
static void
file_replace(const char *name, const char *from, const char *to)
{
	char *path = file_path(name);
	size_t size, len = strlen(from);
	unsigned char *bytes = file_read(path, &size);
	unsigned char *hit = memmem(bytes, size, from, len);

	cr_assert_eq(strlen(to), len);
	cr_assert_not_null(hit, "%s has no \"%s\"", path, from);
	memcpy(hit, to, len);
	file_write(path, bytes, size);
	free(bytes);
	free(path);
}

static void
expect_trace_error(const struct fsti_result *r, const char *needle)
{
	cr_expect_eq(r->status, FSA_ERR_TRACE, "status %d: %s", r->status, r->error);
	cr_assert_not_null(r->error);
	cr_expect_eq(strncmp(r->error, trace_dir, strlen(trace_dir)), 0, "message: %s", r->error);
	cr_expect_null(strchr(r->error, '\n'), "message: %s", r->error);
	if (needle)
		cr_expect_not_null(strstr(r->error, needle), "message: %s", r->error);
}

Test(ingest_damage, a_truncated_stream_file_is_a_trace_error_that_names_the_file)
{
	struct fsti_result r;

	file_truncate("fencescope_0", 0.5);
	fsti_collect(trace_dir, &r);
	/* libbabeltrace2 2.0 indexes every packet before the first message: nothing is read. */
	expect_trace_error(&r, "fencescope_0");
	fsti_result_fini(&r);
}

Test(ingest_damage, a_truncated_stream_file_without_index_is_a_trace_error)
{
	struct fsti_result r;

	char *index = file_path("index");

	fst_remove_tree(index);
	free(index);
	file_truncate("fencescope_0", 0.37);
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, "fencescope_0");
	fsti_result_fini(&r);
}

Test(ingest_damage, truncated_metadata_is_refused_instead_of_hanging)
{
	struct fsti_result r;

	file_truncate("metadata", 0.3);
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, "truncated");
	cr_expect_eq(r.event_count, 0);
	fsti_result_fini(&r);
}

Test(ingest_damage, metadata_with_a_corrupted_uuid_is_a_trace_error)
{
	struct fsti_result r;

	char *path = file_path("metadata");
	size_t size;
	unsigned char *bytes = file_read(path, &size);
	unsigned char *hit = memmem(bytes, size, "uuid = \"", 8);

	/* The text's UUID no longer matches the packets' UUID. */
	cr_assert_not_null(hit);
	hit[8] = 'z';
	file_write(path, bytes, size);
	free(bytes);
	free(path);
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, "Cannot create trace");
	fsti_result_fini(&r);
}

Test(ingest_damage, metadata_with_corrupted_text_is_a_trace_error)
{
	struct fsti_result r;

	file_replace("metadata", "event {", "evxnt {");
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, NULL);
	fsti_result_fini(&r);
}

Test(ingest_damage, a_metadata_file_of_plain_text_is_a_trace_error)
{
	char *path = file_path("metadata");
	const char text[] = "this is not TSDL\n";
	struct fsti_result r;

	file_write(path, (const unsigned char *) text, sizeof(text) - 1);
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, NULL);
	fsti_result_fini(&r);
	free(path);
}

/*
 * Random bytes over the second half of a stream file (fixed seed): what comes before the damage
 * is delivered; the damage itself ends the reading with an error, or decodes as garbage values
 * (which is the model's business). Either way, no crash.
 */
Test(ingest_damage, random_bytes_in_a_stream_file_give_what_was_read_before_them)
{
	char *path = file_path("fencescope_0");
	size_t size;
	unsigned char *bytes = file_read(path, &size);
	unsigned int seed = 1;
	struct fsti_result r;

	for (int i = 0; i < 200; i++) {
		size_t at = size / 2 + (size_t) rand_r(&seed) % (size / 2);

		bytes[at] = (unsigned char) rand_r(&seed);
	}
	file_write(path, bytes, size);
	fsti_collect(trace_dir, &r);
	cr_expect(r.status == FSA_OK || r.status == FSA_ERR_TRACE, "status %d: %s", r.status,
		  r.error);
	if (r.status == FSA_ERR_TRACE)
		expect_trace_error(&r, NULL);
	cr_expect_gt(r.event_count, 100, "events before the damage: %zu", r.event_count);
	cr_expect_eq(r.stats.fencescope_events, r.event_count);
	fsti_result_fini(&r);
	free(bytes);
	free(path);
}

/*
 * The child's environment: ours, but with leak detection off under the sanitizers, since
 * libbabeltrace2's CTF decoder leaks on some corrupted packets (its leak, not ours; the
 * in-process tests above keep leak detection for everything ingest itself allocates).
 */
static char **
child_environ(void)
{
	static char *env[256];
	size_t n = 0;

	for (char **e = environ; *e && n < 254; e++) {
		if (strncmp(*e, "ASAN_OPTIONS=", 13) != 0)
			env[n++] = *e;
	}
	env[n++] = (char *) "ASAN_OPTIONS=detect_leaks=0";
	env[n] = NULL;
	return env;
}

/*
 * Runs fsti-ingest-read on the damaged copy in a child process: libbabeltrace2 2.0.4 itself
 * crashes on some corrupted bytes (babeltrace2 -o dummy too), which analyzer/ingest turns into
 * one line on stderr and exit status 1. Returns the child's wait status; *err gets its stderr.
 */
static int
read_in_child(char **err)
{
	char *err_path = NULL;
	char *const argv[] = {(char *) FSTI_INGEST_READ, trace_dir, NULL};
	posix_spawn_file_actions_t actions;
	size_t size = 0;
	pid_t pid;
	int status;
	FILE *f;

	cr_assert_geq(asprintf(&err_path, "%s/stderr", work), 0);
	cr_assert_eq(posix_spawn_file_actions_init(&actions), 0);
	cr_assert_eq(posix_spawn_file_actions_addopen(&actions, 2, err_path,
						      O_WRONLY | O_CREAT | O_TRUNC, 0600),
		     0);
	cr_assert_eq(posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0), 0);
	cr_assert_eq(posix_spawn(&pid, FSTI_INGEST_READ, &actions, NULL, argv, child_environ()), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	posix_spawn_file_actions_destroy(&actions);
	*err = calloc(1, 4096);
	cr_assert_not_null(*err);
	f = fopen(err_path, "r");
	cr_assert_not_null(f);
	size = fread(*err, 1, 4095, f);
	(*err)[size] = '\0';
	fclose(f);
	free(err_path);
	return status;
}

/* Several seeds, over the whole stream file, packet headers included. */
Test(ingest_damage, random_bytes_anywhere_end_with_a_result_or_one_line)
{
	char *path = file_path("fencescope_0");
	size_t size;
	unsigned char *original = file_read(path, &size);
	unsigned char *bytes = malloc(size);

	cr_assert_not_null(bytes);
	for (unsigned int seed = 1; seed <= 8; seed++) {
		unsigned int state = seed;
		char *err = NULL;
		int status;

		memcpy(bytes, original, size);
		for (int i = 0; i < 64; i++)
			bytes[(size_t) rand_r(&state) % size] = (unsigned char) rand_r(&state);
		file_write(path, bytes, size);
		status = read_in_child(&err);
		cr_assert(WIFEXITED(status), "seed %u: killed by signal %d; stderr: %s", seed,
			  WTERMSIG(status), err);
		cr_expect(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1,
			  "seed %u: exit %d; stderr: %s", seed, WEXITSTATUS(status), err);
		if (WEXITSTATUS(status) != 0) {
			/* The last line is the error; a GLib critical may come before it. */
			char *last = strrchr(err, '\n');

			cr_assert_not_null(last, "seed %u: stderr: %s", seed, err);
			*last = '\0';
			last = strrchr(err, '\n');
			last = last ? last + 1 : err;
			cr_expect_not_null(strstr(last, trace_dir), "seed %u: %s", seed, last);
		}
		free(err);
	}
	free(bytes);
	free(original);
	free(path);
}

/*
 * trace_info's payload is format_major (u32), format_minor (u32), runtime_version (string): find
 * those bytes in the stream file (read the version first) and make the major one more.
 */
/* The minor version of the trace make_major_newer changed (it may be older than ours). */
static uint32_t newer_trace_minor;

static void
make_major_newer(void)
{
	struct fsti_result before;
	char *path = file_path("fencescope_0");
	const char *version;
	unsigned char pattern[64];
	size_t size, len;
	unsigned char *bytes, *hit;
	uint32_t major, minor;

	fsti_collect(trace_dir, &before);
	cr_assert_eq(before.status, FSA_OK, "%s", before.error);
	cr_assert_eq(before.events[0].ev.type, FSA_EV_TRACE_INFO);
	/* The trace's own version: it may have been recorded by an older minor version. */
	major = (uint32_t) before.events[0].ev.u[FSA_F_FORMAT_MAJOR];
	minor = (uint32_t) before.events[0].ev.u[FSA_F_FORMAT_MINOR];
	cr_assert_eq(major, FSTP_FORMAT_MAJOR);
	newer_trace_minor = minor;
	version = before.events[0].s[FSA_S_RUNTIME_VERSION];
	len = strlen(version) + 1;
	cr_assert_lt(8 + len, sizeof(pattern));
	memcpy(pattern, &major, 4); /* the trace is little-endian, as this machine */
	memcpy(pattern + 4, &minor, 4);
	memcpy(pattern + 8, version, len);
	bytes = file_read(path, &size);
	hit = memmem(bytes, size, pattern, 8 + len);
	cr_assert_not_null(hit, "trace_info not found in %s", path);
	hit[0] = FSTP_FORMAT_MAJOR + 1;
	file_write(path, bytes, size);
	free(bytes);
	free(path);
	fsti_result_fini(&before);
}

Test(ingest_damage, a_newer_major_format_is_refused_with_a_clear_message)
{
	struct fsti_result r;
	char *expected = NULL;

	make_major_newer();
	fsti_collect(trace_dir, &r);
	cr_expect_eq(r.status, FSA_ERR_FORMAT_VERSION, "status %d: %s", r.status, r.error);
	cr_assert_geq(
	    asprintf(&expected, "%s: trace format %d.%d is newer than this fencescope reads (%d.x)",
		     trace_dir, FSTP_FORMAT_MAJOR + 1, newer_trace_minor, FSTP_FORMAT_MAJOR),
	    0);
	cr_assert_not_null(r.error);
	cr_expect_str_eq(r.error, expected);
	/* trace_info comes first: nothing of the newer format reaches the caller. */
	cr_expect_eq(r.event_count, 0);
	free(expected);
	fsti_result_fini(&r);
}

Test(ingest_damage, into_model_refuses_a_newer_major_format_too)
{
	struct fsa_model *model = fsa_model_create(NULL);
	char *error = NULL;

	cr_assert_not_null(model);
	make_major_newer();
	cr_expect_eq(fsa_ingest_into_model(trace_dir, model, NULL, NULL, NULL, &error),
		     FSA_ERR_FORMAT_VERSION, "%s", error);
	cr_assert_not_null(error);
	cr_expect_not_null(strstr(error, "is newer than this fencescope reads"), "%s", error);
	free(error);
	fsa_model_destroy(model);
}

/* No heap address ("0x55d0e60ac7f0") in a message that must be the same on every run. */
static void
expect_no_address(const char *message)
{
	for (const char *p = message; p && (p = strstr(p, "0x")); p += 2) {
		size_t digits = strspn(p + 2, "0123456789abcdefABCDEF");

		cr_expect_lt(digits, 8, "an address in: %s", message);
	}
}

/*
 * libbabeltrace2 2.0.4 crashes on a sequence length above 2^31 (babeltrace2 -o dummy too). The
 * decoder runs in a child process: its crash ends only the child, and everything it decoded
 * before the damage comes through, with a cause that is the same from run to run.
 */
Test(ingest_damage, a_libbabeltrace2_crash_keeps_what_was_read_before_it_with_a_stable_cause)
{
	char *stream = file_path("fencescope_0");
	struct fsti_result r, again;

	cr_assert(fst_damage_until_babeltrace_crashes(trace_dir, stream, 300),
		  "no damage of %s crashes babeltrace2", stream);
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, "libbabeltrace2 crashed (SIG");
	cr_expect_gt(r.event_count, 100, "events before the crash: %zu", r.event_count);
	cr_expect_eq(r.stats.fencescope_events, r.event_count);
	expect_no_address(r.error);
	fsti_collect(trace_dir, &again);
	cr_expect_str_eq(again.error, r.error);
	cr_expect_eq(again.event_count, r.event_count);
	fsti_result_fini(&again);
	fsti_result_fini(&r);
	free(stream);
}

/* A packet context that claims exabytes made libbabeltrace2 abort. */
Test(ingest_damage, a_packet_that_claims_exabytes_is_a_trace_error_not_an_abort)
{
	char *stream = file_path("fencescope_0");
	struct fsti_result r;

	cr_assert(fst_damage_huge_content_size(stream));
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, NULL);
	expect_no_address(r.error);
	fsti_result_fini(&r);
	free(stream);
}

/* Big-endian metadata over little-endian streams: a Babeltrace query aborted on it. */
Test(ingest_damage, big_endian_metadata_is_a_trace_error_not_an_abort)
{
	struct fsti_result r;

	file_replace("metadata", "byte_order = le", "byte_order = be");
	fsti_collect(trace_dir, &r);
	expect_trace_error(&r, "magic");
	expect_no_address(r.error);
	fsti_result_fini(&r);
}

/*
 * A decoder that hangs (here the real lttng-live source, waiting forever for a relay daemon that
 * accepted the connection and never answers) is stopped after FENCESCOPE_DECODE_TIMEOUT seconds.
 */
Test(ingest_damage, a_decoder_that_hangs_is_stopped_after_the_timeout)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	int listener = socket(AF_INET, SOCK_STREAM, 0);
	char *url = NULL;
	struct fsti_result r;

	cr_assert_geq(listener, 0);
	cr_assert_eq(bind(listener, (struct sockaddr *) &addr, sizeof(addr)), 0);
	cr_assert_eq(listen(listener, 4), 0);
	cr_assert_eq(getsockname(listener, (struct sockaddr *) &addr, &len), 0);
	cr_assert_geq(asprintf(&url, "net://127.0.0.1:%u/host/nowhere/session",
			       (unsigned) ntohs(addr.sin_port)),
		      0);
	cr_assert_eq(setenv("FENCESCOPE_DECODE_TIMEOUT", "1", 1), 0);
	fsti_collect(url, &r);
	cr_assert_eq(unsetenv("FENCESCOPE_DECODE_TIMEOUT"), 0);
	cr_expect_eq(r.status, FSA_ERR_TRACE, "status %d: %s", r.status, r.error);
	cr_assert_not_null(r.error);
	cr_expect_not_null(strstr(r.error, "sent nothing for 1 s"), "%s", r.error);
	fsti_result_fini(&r);
	free(url);
	close(listener);
}

/* Events of the intact sample recorded on `cpu`. */
static size_t
sample_events_on_cpu(uint32_t cpu)
{
	char *sample = NULL;
	struct fsti_result r;
	size_t count = 0;

	cr_assert_geq(asprintf(&sample, "%s/frame-pipeline", FSTI_TRACES), 0);
	fsti_collect(sample, &r);
	cr_assert_eq(r.status, FSA_OK, "%s", r.error);
	for (size_t i = 0; i < r.event_count; i++)
		count += r.events[i].ev.cpu_id == cpu;
	fsti_result_fini(&r);
	free(sample);
	return count;
}

/* The view of a truncated trace is made in TMPDIR: point it at the test's folder, to see it go. */
static char *
tmpdir_in_work(void)
{
	char *tmp = NULL;

	cr_assert_geq(asprintf(&tmp, "%s/tmp", work), 0);
	cr_assert_eq(mkdir(tmp, 0700), 0);
	cr_assert_eq(setenv("TMPDIR", tmp, 1), 0);
	return tmp;
}

static void
expect_empty_dir(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *entry;

	cr_assert_not_null(dir);
	while ((entry = readdir(dir)))
		cr_expect(strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0,
			  "%s left in %s", entry->d_name, path);
	closedir(dir);
}

static void
expect_cut_loss(const struct fsti_result *r, uint32_t cpu)
{
	cr_assert_eq(r->discard_count, 1);
	cr_expect_eq(r->discards[0].kind, FSA_DISCARD_PACKETS);
	cr_expect_eq(r->discards[0].count, 1);
	cr_expect_eq(r->discards[0].cpu_id, cpu);
	cr_expect(r->discards[0].has_range);
	cr_expect_lt(r->discards[0].begin_ns, r->discards[0].end_ns);
	cr_expect_eq(r->stats.discarded_packets, 1);
}

/* libbabeltrace2 refuses a stream cut inside a packet, and every other stream with it (0 events
 * were kept). The other stream (all of the sample's events: CPU 1's only packet is empty) is
 * read, the cut one is named, and its lost packet is a loss. */
Test(ingest_damage, a_stream_cut_inside_a_packet_keeps_the_other_streams_and_names_the_cut_one)
{
	size_t on_cpu_0 = sample_events_on_cpu(0);
	char *tmp = tmpdir_in_work();
	struct fsti_result r;

	file_truncate("fencescope_1", 0.5);
	fsti_collect(trace_dir, &r);
	unsetenv("TMPDIR");
	expect_trace_error(&r, "fencescope_1 is cut short: 1 of its 1 packets");
	/* Its only packet was cut: nothing of it was read, and the message must not say
	 * otherwise. */
	expect_trace_error(&r, "); no whole packet before the cut: none of its events were read");
	cr_expect_null(strstr(r.error, "the packets before the cut were read"), "%s", r.error);
	cr_expect_gt(on_cpu_0, 100);
	cr_expect_eq(r.event_count, on_cpu_0);
	for (size_t i = 0; i < r.event_count; i++)
		cr_assert_eq(r.events[i].ev.cpu_id, 0, "event %zu", i);
	expect_cut_loss(&r, 1);
	/* The view through which it was read is gone, and no message names it. */
	expect_empty_dir(tmp);
	cr_expect_null(strstr(r.error, "fencescope-view"), "%s", r.error);
	fsti_result_fini(&r);
	free(tmp);
}

/* A stream cut at a packet boundary (here before its only packet) was read without a word. */
Test(ingest_damage, a_stream_cut_at_a_packet_boundary_is_named_and_counted_as_lost)
{
	size_t on_cpu_0 = sample_events_on_cpu(0);
	char *tmp = tmpdir_in_work();
	char *path = file_path("fencescope_1");
	struct fsti_result r;

	cr_assert_eq(truncate(path, 0), 0);
	fsti_collect(trace_dir, &r);
	unsetenv("TMPDIR");
	expect_trace_error(&r, "fencescope_1 is cut short");
	expect_trace_error(&r, "no whole packet before the cut");
	cr_expect_eq(r.event_count, on_cpu_0);
	expect_cut_loss(&r, 1);
	expect_empty_dir(tmp);
	fsti_result_fini(&r);
	free(path);
	free(tmp);
}

/*
 * src.ctf.fs refuses a whole folder in which one file is not a CTF stream. A file that is not a
 * stream of the trace by its name (CHANNEL_CPU) nor by an index file is a stray: the trace is read
 * without it, whole, and a note names it.
 */
Test(ingest_damage, a_stray_text_file_in_the_trace_folder_is_skipped_with_a_note)
{
	size_t on_cpu_0 = sample_events_on_cpu(0), on_cpu_1 = sample_events_on_cpu(1);
	char *tmp = tmpdir_in_work();
	char *notes = file_path("notes.txt");
	const char text[] = "what I recorded, and why\n";
	struct fsti_result r;

	file_write(notes, (const unsigned char *) text, sizeof(text) - 1);
	fsti_collect(trace_dir, &r);
	unsetenv("TMPDIR");
	cr_expect_eq(r.status, FSA_OK, "status %d: %s", r.status, r.error);
	cr_expect_null(r.error, "%s", r.error);
	cr_expect_gt(on_cpu_0 + on_cpu_1, 100);
	cr_expect_eq(r.event_count, on_cpu_0 + on_cpu_1);
	cr_expect_eq(r.discard_count, 0);
	cr_expect_eq(r.stats.discarded_packets, 0);
	cr_assert_not_null(r.notes);
	cr_expect_not_null(strstr(r.notes, "notes.txt is not a CTF stream file: skipped"), "%s",
			   r.notes);
	/* One note, one line. */
	cr_expect_eq(strchr(r.notes, '\n'), r.notes + strlen(r.notes) - 1, "%s", r.notes);
	expect_empty_dir(tmp);
	fsti_result_fini(&r);
	free(notes);
	free(tmp);
}

static void
flip_magic_bit(const char *name)
{
	char *path = file_path(name);
	size_t size;
	unsigned char *bytes = file_read(path, &size);

	bytes[0] ^= 1;
	file_write(path, bytes, size);
	free(bytes);
	free(path);
}

/* A stream of the trace (here by its index file) whose first packet's magic is damaged cannot be
 * read: the other streams are, the damaged one is named, and its packets are a loss. */
Test(ingest_damage, a_stream_with_a_flipped_magic_bit_is_named_and_the_others_are_read)
{
	size_t on_cpu_0 = sample_events_on_cpu(0);
	char *tmp = tmpdir_in_work();
	struct fsti_result r;

	flip_magic_bit("fencescope_1");
	fsti_collect(trace_dir, &r);
	unsetenv("TMPDIR");
	expect_trace_error(&r, "stream file ");
	cr_expect_not_null(strstr(r.error, "fencescope_1 cannot be read"), "%s", r.error);
	cr_expect_null(strstr(r.error, "fencescope-view"), "%s", r.error);
	cr_expect_eq(r.event_count, on_cpu_0);
	for (size_t i = 0; i < r.event_count; i++)
		cr_assert_eq(r.events[i].ev.cpu_id, 0, "event %zu", i);
	expect_cut_loss(&r, 1);
	cr_expect_null(r.notes, "%s", r.notes);
	expect_empty_dir(tmp);
	fsti_result_fini(&r);
	free(tmp);
}

/* Without an index, the name says it: CHANNEL_CPU is a stream of the trace, damaged, not a stray.
 * Its packets cannot be counted: one at least is lost. */
Test(ingest_damage, a_stream_named_channel_cpu_without_index_with_a_flipped_magic_is_damaged)
{
	size_t on_cpu_1 = sample_events_on_cpu(1);
	char *tmp = tmpdir_in_work();
	char *index = file_path("index");
	struct fsti_result r;

	fst_remove_tree(index);
	flip_magic_bit("fencescope_0");
	fsti_collect(trace_dir, &r);
	unsetenv("TMPDIR");
	expect_trace_error(&r, "fencescope_0 cannot be read");
	cr_expect_eq(r.event_count, on_cpu_1);
	cr_assert_eq(r.discard_count, 1);
	cr_expect_eq(r.discards[0].kind, FSA_DISCARD_PACKETS);
	cr_expect_eq(r.discards[0].count, 1);
	cr_expect_eq(r.discards[0].cpu_id, 0);
	cr_expect_null(r.notes, "%s", r.notes);
	expect_empty_dir(tmp);
	fsti_result_fini(&r);
	free(index);
	free(tmp);
}
