/* SPDX-License-Identifier: MIT */
/*
 * Go to time's parser (viewer/core/fsv-time.h, suite unit) over traces/frame-pipeline: the times
 * `fencescope report` prints, absolute (trace ns, "S.NNNNNNNNN s", exact to the ns) and relative
 * ("+1.500 ms" of --times relative and the ruler, "+1.5ms" typed), spaces and minus signs as
 * people paste them, and the one-line refusals: not a time, outside the trace.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <gio/gio.h>

#include "fsv-time.h"
#include "fsv-trace.h"

static FsvTrace *trace;

static void
load(void)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autoptr(GError) error = NULL;

	trace = fsv_trace_load(path, NULL, NULL, NULL, &error);
	cr_assert_not_null(trace, "%s", error ? error->message : "");
}

static void
unload(void)
{
	g_clear_pointer(&trace, fsv_trace_unref);
}

TestSuite(go_to_time, .init = load, .fini = unload, .timeout = 120);

static guint64
parse(const char *text)
{
	g_autoptr(GError) error = NULL;
	guint64 ns = 0;

	cr_assert(fsv_trace_parse_time(trace, text, &ns, &error), "'%s': %s", text,
		  error ? error->message : "");
	return ns;
}

static char *
refusal(const char *text)
{
	GError *error = NULL;
	guint64 ns = 12345;
	char *message;

	cr_assert_not(fsv_trace_parse_time(trace, text, &ns, &error), "'%s' accepted", text);
	cr_assert_eq(ns, 12345, "a refused time changed the output");
	cr_assert(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT));
	cr_assert_null(strchr(error->message, '\n'), "one line: %s", error->message);
	message = g_strdup(error->message);
	g_error_free(error);
	return message;
}

Test(go_to_time, absolute_report_times_are_exact_to_the_ns)
{
	guint64 t = fsv_trace_get_begin_ns(trace) + 123456789;
	g_autofree char *ns = g_strdup_printf("%" G_GUINT64_FORMAT, t);
	g_autofree char *seconds = g_strdup_printf(
	    "%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT " s", t / 1000000000, t % 1000000000);
	g_autofree char *tight = g_strdup_printf("%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT "s",
						 t / 1000000000, t % 1000000000);

	cr_assert_eq(parse(ns), t);
	cr_assert_eq(parse(seconds), t, "%s", seconds);
	cr_assert_eq(parse(tight), t, "%s", tight);
}

Test(go_to_time, relative_times_count_from_the_first_event)
{
	guint64 t0 = fsv_trace_get_begin_ns(trace);

	cr_assert_eq(parse("+1.5ms"), t0 + 1500000);
	cr_assert_eq(parse("+1.500 ms"), t0 + 1500000);
	cr_assert_eq(parse("  +850 ns "), t0 + 850);
	cr_assert_eq(parse("+1.234\u2009567 ms"), t0 + 1234567); /* a thin space */
	cr_assert_eq(parse("+0 ns"), t0);
	cr_assert_eq(parse("+2 s"), t0 + 2000000000);
	/* Before the first event, as the ruler labels left of it: "−1 ms". */
	cr_assert_eq(parse("\u22121 ms"), t0 - 1000000);
	cr_assert_eq(parse("-250us"), t0 - 250000);
}

Test(go_to_time, bad_input_is_refused_in_one_line)
{
	g_autofree char *word = refusal("soon");
	g_autofree char *empty = refusal("");
	g_autofree char *unit = refusal("+3 parsecs");
	g_autofree char *early = refusal("2.5ms");
	g_autofree char *late = refusal("+1h");
	g_autofree char *far = refusal("+100 s");

	cr_assert_not_null(strstr(word, "not a time"), "%s", word);
	cr_assert_not_null(strstr(early, "outside the trace"), "%s", early);
	/* Trace time 2.5 ms was most likely meant since the start. */
	cr_assert_not_null(strstr(early, "+TIME"), "%s", early);
	cr_assert_not_null(strstr(far, "outside the trace"), "%s", far);
	cr_assert_null(strstr(far, "+TIME"), "%s", far);
	(void) empty;
	(void) unit;
	(void) late;
}

/* The parser without a trace (`view --at` is checked before anything opens) reads what go to
 * time reads, and the trace only resolves it: one implementation (review of issue 15). */
Test(go_to_time, typed_times_parse_without_a_trace_and_resolve_against_it)
{
	static const char *const texts[] = {"+1.5ms", "+1.234\u2009567 ms", "\u22121 ms", "-250us",
					    "+0 ns"};
	g_autoptr(GError) error = NULL;
	FsvTypedTime time;
	guint64 ns = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
		cr_assert(fsv_time_parse(texts[i], &time, NULL), "%s", texts[i]);
		cr_assert(time.is_relative, "%s", texts[i]);
		cr_assert(fsv_trace_resolve_time(trace, &time, texts[i], &ns, NULL), "%s",
			  texts[i]);
		cr_assert_eq(ns, parse(texts[i]), "%s", texts[i]);
	}
	cr_assert(fsv_time_parse("1795455649.5 s", &time, NULL));
	cr_assert_not(time.is_relative);
	cr_assert_eq(time.ns, G_GUINT64_CONSTANT(1795455649500000000));
	cr_assert(fsv_time_parse("-2ms", &time, NULL));
	cr_assert(time.is_back);
	cr_assert_eq(time.ns, 2000000);
	/* Not a time: refused without a trace, in go to time's words. */
	cr_assert_not(fsv_time_parse("1.5xs", &time, &error));
	cr_assert_not_null(strstr(error->message, "not a time"), "%s", error->message);
	g_clear_error(&error);
	/* A time, but not in this trace: only the trace can say so. */
	cr_assert(fsv_time_parse("2.5ms", &time, NULL));
	cr_assert_not(fsv_trace_resolve_time(trace, &time, "2.5ms", &ns, &error));
	cr_assert_not_null(strstr(error->message, "outside the trace"), "%s", error->message);
}
