/* SPDX-License-Identifier: MIT */
/*
 * The fuzz targets' shared checks (fuzz-common.h). The analysis is the one `fencescope report`
 * runs (cli/report.c): fsa_ingest_into_model → model → report; the checks are docs/fuzzing.md's.
 *
 * The decoder runs in a child process (the helper `fencescope-decode`), built with the same
 * sanitizers. Its stderr goes nowhere, so its sanitizers are told to write their reports to
 * files here, which are read after each input: a report whose first frame of code (past the
 * sanitizer's and libc's own) is ours fails the input; one in libbabeltrace2, its plugins or
 * GLib is a crash the child exists to contain, and only the partial result counts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "fsa/ingest.h"
#include "fsa/model.h"
#include "fsa/report.h"

#include "fuzz-common.h"

#define FUZZ_CHILD_LOG_PREFIX "child-sanitizer"

static char fuzz_work_dir[] = "/tmp/fencescope-fuzz-XXXXXX";
static bool fuzz_is_set_up;

void
fuzz_fail(const char *format, ...)
{
	va_list args;

	fprintf(stderr, "fuzz: property broken: ");
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	abort();
}

unsigned char *
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
	bytes[length] = '\0';
	*size = (size_t) length;
	return bytes;
}

void
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
}

/* Sets NAME=VALUE in the environment the children inherit; aborts when it cannot. */
static void
fuzz_setenv(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0)
		fuzz_fail("cannot set %s", name);
}

const char *
fuzz_setup(void)
{
	char *options = NULL;

	if (fuzz_is_set_up)
		return fuzz_work_dir;
	if (!mkdtemp(fuzz_work_dir))
		fuzz_fail("cannot create %s: %s", fuzz_work_dir, strerror(errno));
	atexit(fuzz_cleanup);
	fuzz_is_set_up = true;
	/* Babeltrace's components stay quiet; a property failure prints what matters. */
	unsetenv("FENCESCOPE_BT_LOG");
	/* libbabeltrace2 spins forever on some streams (babeltrace2 too); the decoder is cut after
	 * 3 s without a record (60 s for users), well within libFuzzer's -timeout of 25 s, so that
	 * such inputs end as partial results without slowing the run to one input per minute. A
	 * base trace decodes in well under a second. */
	fuzz_setenv("FENCESCOPE_DECODE_TIMEOUT", "3");
	/* Our own sanitizer options were read at start: these reach only the children. Leaks of
	 * a child that is about to exit are not looked for (libbabeltrace2 leaves many). */
	if (asprintf(&options,
		     "log_path=%s/" FUZZ_CHILD_LOG_PREFIX
		     ":detect_leaks=0:handle_abort=0:symbolize=1:abort_on_error=0",
		     fuzz_work_dir) < 0)
		fuzz_fail("out of memory");
	fuzz_setenv("ASAN_OPTIONS", options);
	free(options);
	if (asprintf(&options,
		     "log_path=%s/" FUZZ_CHILD_LOG_PREFIX
		     ":halt_on_error=1:print_stacktrace=1:symbolize=1",
		     fuzz_work_dir) < 0)
		fuzz_fail("out of memory");
	fuzz_setenv("UBSAN_OPTIONS", options);
	free(options);
	return fuzz_work_dir;
}

/* A pointer printed into a message makes it differ from run to run: 0x55…/0x56…/0x7f… with
 * 12 hex digits is how the heap, the executable and the stacks look on x86-64. */
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

/* A frame of the sanitizer's own runtime or of libc: the crash is in whoever called it. */
static bool
fuzz_frame_is_runtime(const char *frame)
{
	static const char *const runtime[] = {
	    " in __asan",  " in __interceptor", " in ___interceptor", " in __sanitizer",
	    " in __ubsan", " in __lsan",        "/libc.so",           " in __GI_",
	    " in abort ",  " in raise ",        " in __pthread_kill", "libclang_rt"};

	for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++) {
		if (strstr(frame, runtime[i]))
			return true;
	}
	return false;
}

static bool
fuzz_frame_is_library(const char *frame)
{
	return strstr(frame, "libbabeltrace2") || strstr(frame, "babeltrace-plugin") ||
	       strstr(frame, "libglib-2.0") || strstr(frame, "libgobject-2.0") ||
	       strstr(frame, "libgmodule-2.0");
}

/* A child's sanitizer report: is the first frame of code ours? UBSan instruments only our code,
 * so its reports are always ours. */
static bool
fuzz_report_is_ours(char *report)
{
	if (strstr(report, "runtime error:"))
		return true;
	for (char *line = strtok(report, "\n"); line; line = strtok(NULL, "\n")) {
		const char *frame = line + strspn(line, " ");

		if (frame[0] != '#' || fuzz_frame_is_runtime(frame))
			continue;
		return !fuzz_frame_is_library(frame);
	}
	/* No frame to judge by: say so rather than let it pass. */
	return true;
}

static int
fuzz_child_log_filter(const struct dirent *entry)
{
	return strncmp(entry->d_name, FUZZ_CHILD_LOG_PREFIX ".",
		       strlen(FUZZ_CHILD_LOG_PREFIX ".")) == 0;
}

static void
fuzz_check_child_reports(void)
{
	struct dirent **entries = NULL;
	int count = scandir(fuzz_work_dir, &entries, fuzz_child_log_filter, alphasort);

	for (int i = 0; i < count; i++) {
		char *path = NULL;
		unsigned char *report;
		char *copy;
		size_t size;

		if (asprintf(&path, "%s/%s", fuzz_work_dir, entries[i]->d_name) < 0)
			fuzz_fail("out of memory");
		report = fuzz_file_read(path, &size);
		copy = strdup((const char *) report);
		if (!copy)
			fuzz_fail("out of memory");
		if (fuzz_report_is_ours(copy))
			fuzz_fail("the decoder child's sanitizer found a bug in our code:\n%s",
				  (const char *) report);
		unlink(path);
		free(copy);
		free(report);
		free(path);
		free(entries[i]);
	}
	free(entries);
}

/*
 * The decoder runs in a child process whose coverage libFuzzer cannot see, and libbabeltrace2 is
 * not instrumented anyway: what comes back is turned into coverage here, in libFuzzer's extra
 * counters, so that an input that changes how far decoding got, or why it stopped, counts as new
 * and is kept. One counter per (status, order of magnitude of the events read), one per shape of
 * the message (its words, without numbers or the trace's path).
 */
enum { FUZZ_OUTCOME_COUNTERS = 256 };
static uint8_t fuzz_outcome_counters[FUZZ_OUTCOME_COUNTERS]
    __attribute__((section("__libfuzzer_extra_counters"), used));

static void
fuzz_note_outcome(fsa_status status, uint64_t events, const char *trace, const char *message)
{
	unsigned magnitude = 0;
	uint32_t hash = 2166136261u;

	while (events) {
		magnitude++;
		events >>= 1;
	}
	fuzz_outcome_counters[((unsigned) -status * 65u + magnitude) %
			      (FUZZ_OUTCOME_COUNTERS / 2)]++;
	if (!message)
		return;
	if (strncmp(message, trace, strlen(trace)) == 0)
		message += strlen(trace);
	for (const unsigned char *p = (const unsigned char *) message; *p; p++) {
		if ((*p >= '0' && *p <= '9') || *p == 'x')
			continue;
		hash = (hash ^ *p) * 16777619u;
	}
	fuzz_outcome_counters[FUZZ_OUTCOME_COUNTERS / 2 + hash % (FUZZ_OUTCOME_COUNTERS / 2)]++;
}

void
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
	fuzz_check_child_reports();
	fuzz_note_outcome(status, stats.fencescope_events, trace, error);
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
