/* SPDX-License-Identifier: MIT */
/*
 * fuzz-trace: a libFuzzer target over the trace surface, through the public path every tool
 * takes (analyzer/ingest → analyzer/model → analyzer/report), as `fencescope report` wires it.
 *
 * Structure-aware: an input is one selector byte and a payload. The selector's two low bits say
 * which file of a small base trace (tests/fuzz/base/NAME/, cut from traces/) the payload
 * replaces — 0 the big stream file fencescope_1, 1 the metadata (plain TSDL text, so mutations
 * land in the text), 2 the other stream file fencescope_0, 3 none: the payload becomes a stray
 * notes.txt beside the trace's files — and its other bits pick the base trace. The seeds
 * (make-seeds.py) are every base file with its selector, so libFuzzer starts from real streams
 * and real metadata.
 *
 * What it checks, for every input (docs/fuzzing.md): the fencescope side never crashes, hangs
 * or leaks (libFuzzer with AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer), and
 * the analysis ends with a full result, a partial one with a one-line reason, or a clean
 * one-line error that names the trace — never an unknown status, a message of several lines, a
 * heap address in a message, or a JSON report that does not parse. A failed check aborts, so
 * libFuzzer saves the input. libbabeltrace2's own crashes are the decoder's business (it runs in
 * a child process); they must end as a partial report, not here.
 *
 * Built twice: with clang's -fsanitize=fuzzer in the fuzz tree (meson -Dfuzz=true, scripts/fuzz),
 * and with replay-main.c in every tree, where it replays the saved regression inputs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "fsa/report.h"

#include "fuzz-target.h"

#ifndef FUZZ_BASE_DIR
#error "FUZZ_BASE_DIR (the folder of base traces) must be defined by the build"
#endif

/* The files a base trace has, in selector order; the fourth selector adds a stray file. */
enum { FUZZ_BASE_FILE_COUNT = 3 };
static const char *const fuzz_file_names[] = {"fencescope_1", "metadata", "fencescope_0",
					      "notes.txt"};

struct fuzz_base {
	char *name;
	unsigned char *bytes[FUZZ_BASE_FILE_COUNT]; /* Owned */
	size_t sizes[FUZZ_BASE_FILE_COUNT];
};

static struct fuzz_base *fuzz_bases; /* Owned, for the life of the process */
static size_t fuzz_base_count;
static char fuzz_work_dir[] = "/tmp/fencescope-fuzz-XXXXXX";
static char *fuzz_trace_dir; /* fuzz_work_dir/trace: rewritten for every input */

static void fuzz_fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));

static void
fuzz_fail(const char *format, ...)
{
	va_list args;

	fprintf(stderr, "fuzz-trace: property broken: ");
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	abort();
}

static unsigned char *
fuzz_file_read(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	unsigned char *bytes = NULL;
	long length = 0;

	if (!file)
		fuzz_fail("cannot open %s: %s", path, strerror(errno));
	if (fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
	    fseek(file, 0, SEEK_SET) != 0)
		fuzz_fail("cannot size %s", path);
	bytes = malloc((size_t) length + 1);
	if (!bytes || fread(bytes, 1, (size_t) length, file) != (size_t) length)
		fuzz_fail("cannot read %s", path);
	fclose(file);
	*size = (size_t) length;
	return bytes;
}

static void
fuzz_file_write(const char *dir, const char *name, const uint8_t *bytes, size_t size)
{
	char *path = NULL;
	FILE *file;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		fuzz_fail("out of memory");
	file = fopen(path, "wb");
	if (!file || (size > 0 && fwrite(bytes, 1, size, file) != size) || fclose(file) != 0)
		fuzz_fail("cannot write %s: %s", path, strerror(errno));
	free(path);
}

static int
fuzz_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

static void
fuzz_cleanup(void)
{
	nftw(fuzz_work_dir, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (size_t i = 0; i < fuzz_base_count; i++) {
		for (size_t f = 0; f < FUZZ_BASE_FILE_COUNT; f++)
			free(fuzz_bases[i].bytes[f]);
		free(fuzz_bases[i].name);
	}
	free(fuzz_bases);
	free(fuzz_trace_dir);
}

static int
fuzz_dir_filter(const struct dirent *entry)
{
	return entry->d_name[0] != '.';
}

/* Loads every tests/fuzz/base/NAME/ (sorted, so a selector means the same base everywhere). */
static void
fuzz_bases_load(void)
{
	const char *base_dir = getenv("FENCESCOPE_FUZZ_BASE");
	struct dirent **entries = NULL;
	int count;

	if (!base_dir || !*base_dir)
		base_dir = FUZZ_BASE_DIR;
	count = scandir(base_dir, &entries, fuzz_dir_filter, alphasort);
	if (count <= 0)
		fuzz_fail("no base traces in %s", base_dir);
	fuzz_bases = calloc((size_t) count, sizeof(*fuzz_bases));
	if (!fuzz_bases)
		fuzz_fail("out of memory");
	for (int i = 0; i < count; i++) {
		struct fuzz_base *base = &fuzz_bases[fuzz_base_count++];

		base->name = strdup(entries[i]->d_name);
		for (size_t f = 0; f < FUZZ_BASE_FILE_COUNT; f++) {
			char *path = NULL;

			if (asprintf(&path, "%s/%s/%s", base_dir, base->name, fuzz_file_names[f]) <
			    0)
				fuzz_fail("out of memory");
			base->bytes[f] = fuzz_file_read(path, &base->sizes[f]);
			free(path);
		}
		free(entries[i]);
	}
	free(entries);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	/* Babeltrace's components stay quiet; a property failure prints what matters. */
	unsetenv("FENCESCOPE_BT_LOG");
	fuzz_bases_load();
	if (!mkdtemp(fuzz_work_dir))
		fuzz_fail("cannot create %s: %s", fuzz_work_dir, strerror(errno));
	if (asprintf(&fuzz_trace_dir, "%s/trace", fuzz_work_dir) < 0)
		fuzz_fail("out of memory");
	atexit(fuzz_cleanup);
	return 0;
}

/* Lays out the trace folder for one input: the base's files, one of them (or a stray file)
 * replaced by the payload. */
static void
fuzz_trace_write(const uint8_t *data, size_t size)
{
	unsigned selector = data[0] & 3u;
	const struct fuzz_base *base = &fuzz_bases[(data[0] >> 2) % fuzz_base_count];

	if (mkdir(fuzz_trace_dir, 0700) != 0 && errno != EEXIST)
		fuzz_fail("cannot create %s: %s", fuzz_trace_dir, strerror(errno));
	for (unsigned f = 0; f < FUZZ_BASE_FILE_COUNT; f++) {
		if (f == selector)
			fuzz_file_write(fuzz_trace_dir, fuzz_file_names[f], data + 1, size - 1);
		else
			fuzz_file_write(fuzz_trace_dir, fuzz_file_names[f], base->bytes[f],
					base->sizes[f]);
	}
	if (selector == 3) {
		fuzz_file_write(fuzz_trace_dir, fuzz_file_names[3], data + 1, size - 1);
	} else {
		char *stray = NULL;

		if (asprintf(&stray, "%s/%s", fuzz_trace_dir, fuzz_file_names[3]) < 0)
			fuzz_fail("out of memory");
		unlink(stray);
		free(stray);
	}
}

/* A pointer printed into a message makes it differ from run to run: 0x55…/0x56…/0x7f… with
 * at least 12 hex digits is how glibc's heap, the executable and the stacks look on x86-64. */
static bool
fuzz_has_address(const char *text)
{
	for (const char *p = strstr(text, "0x"); p; p = strstr(p + 2, "0x")) {
		size_t digits = strspn(p + 2, "0123456789abcdefABCDEF");

		if (digits == 12 && (strncmp(p + 2, "55", 2) == 0 || strncmp(p + 2, "56", 2) == 0 ||
				     strncmp(p + 2, "7f", 2) == 0))
			return true;
	}
	return false;
}

static void
fuzz_check_message(const char *what, const char *message)
{
	if (!message || !*message)
		fuzz_fail("%s: no message", what);
	if (strchr(message, '\n') || strchr(message, '\r'))
		fuzz_fail("%s is not one line: %s", what, message);
	if (fuzz_has_address(message))
		fuzz_fail("%s holds an address (it would differ from run to run): %s", what,
			  message);
}

/* Writes the finished report in every format; the JSON one must parse. */
static void
fuzz_report_write(struct fsa_report *report)
{
	static const enum fsa_report_format formats[] = {
	    FSA_REPORT_FORMAT_TEXT, FSA_REPORT_FORMAT_CSV, FSA_REPORT_FORMAT_JSON};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char *text = NULL;
		size_t length = 0;
		FILE *out = open_memstream(&text, &length);
		fsa_status status;

		if (!out)
			fuzz_fail("out of memory");
		status = fsa_report_write(report, formats[i], out);
		if (fclose(out) != 0 || status != FSA_OK)
			fuzz_fail("writing the report (format %d) failed: %s", (int) formats[i],
				  fsa_status_string(status));
		if (formats[i] == FSA_REPORT_FORMAT_JSON) {
			JsonParser *parser = json_parser_new();
			GError *error = NULL;

			if (!json_parser_load_from_data(parser, text, (gssize) length, &error))
				fuzz_fail("the JSON report does not parse: %s", error->message);
			g_object_unref(parser);
		}
		free(text);
	}
}

/* The analysis `fencescope report` runs, with its outcome checked instead of printed. */
static void
fuzz_analyze(const char *trace)
{
	struct fsa_report *report = fsa_report_create(NULL);
	struct fsa_model *model = NULL;
	struct fsa_ingest_stats stats = {0};
	char *error = NULL;
	fsa_status status;

	if (!report || !(model = fsa_model_create(fsa_report_borrow_sink(report))))
		fuzz_fail("out of memory");
	fsa_report_set_model(report, model);
	status = fsa_ingest_into_model(trace, model, NULL, NULL, &stats, &error);
	switch (status) {
	case FSA_OK:
		if (error)
			fuzz_fail("a full result with a message: %s", error);
		break;
	case FSA_ERR_TRACE:
		/* A partial result: what was read before the damage, and why it stops. */
		fuzz_check_message("the partial reason", error);
		if (fsa_report_set_partial(report, error) != FSA_OK)
			fuzz_fail("fsa_report_set_partial failed");
		break;
	case FSA_ERR_IO:
	case FSA_ERR_FORMAT_VERSION:
	case FSA_ERR_NOMEM:
		/* A clean error: one line, naming the trace, and no report. */
		fuzz_check_message("the error", error);
		if (strncmp(error, trace, strlen(trace)) != 0)
			fuzz_fail("the error does not name the trace: %s", error);
		goto end;
	default:
		fuzz_fail("unexpected status %d (%s): %s", (int) status, fsa_status_string(status),
			  error ? error : "(no message)");
	}
	if (fsa_report_finish(report) != FSA_OK)
		fuzz_fail("fsa_report_finish failed");
	fuzz_report_write(report);
end:
	free(error);
	fsa_model_destroy(model);
	fsa_report_destroy(report);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_trace_write(data, size);
	fuzz_analyze(fuzz_trace_dir);
	return 0;
}
