/* SPDX-License-Identifier: MIT */
/*
 * What users type: durations, times, section lists, formats and --fail-if thresholds. Good input
 * gives the exact value; bad input gives FSA_ERR_INVALID and a one-line message that quotes it.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report-private.h"

static uint64_t
duration(const char *text)
{
	uint64_t ns = 0;
	char *error = NULL;

	cr_assert_eq(fsa_report_parse_duration(text, &ns, &error), FSA_OK, "%s: %s", text,
		     error ? error : "");
	free(error);
	return ns;
}

static char *
duration_error(const char *text)
{
	uint64_t ns = 0;
	char *error = NULL;

	cr_assert_eq(fsa_report_parse_duration(text, &ns, &error), FSA_ERR_INVALID, "%s", text);
	cr_assert_not_null(error);
	cr_assert_null(strchr(error, '\n'));
	return error;
}

Test(parse, durations_with_units)
{
	cr_assert_eq(duration("1500"), 1500);
	cr_assert_eq(duration("1500ns"), 1500);
	cr_assert_eq(duration("2.5us"), 2500);
	cr_assert_eq(duration("200ms"), 200000000);
	cr_assert_eq(duration("1.5s"), 1500000000);
	cr_assert_eq(duration("0.000001s"), 1000);
	cr_assert_eq(duration("3µs"), 3000);
}

/* Regression: durations went through a double, whose step near 2^60 is 256 ns, so an absolute
 * trace time copied from a report (sim-mode traces start near 1.8e18 ns) moved --begin/--end by up
 * to 128 ns and let boxes that end or start just outside the range in. */
Test(parse, absolute_trace_times_keep_every_nanosecond)
{
	cr_assert_eq(duration("1795306068205976793"), UINT64_C(1795306068205976793));
	cr_assert_eq(duration("1795306068205976792ns"), UINT64_C(1795306068205976792));
	cr_assert_eq(duration("1795306068.205976793s"), UINT64_C(1795306068205976793));
	cr_assert_eq(duration("1795306068205976.793us"), UINT64_C(1795306068205976793));
	cr_assert_eq(duration("18446744073709551615"), UINT64_MAX);
	cr_assert_eq(duration("0.5ns"), 1);
	cr_assert_eq(duration("0.4ns"), 0);
	cr_assert_eq(duration("1.0000000004999999999999s"), 1000000000);
	cr_assert_eq(duration(".25us"), 250);
	free(duration_error("18446744073709551616"));
	free(duration_error("18446744073.709551616s"));
	free(duration_error("99999999999999999999999999999s"));
}

Test(parse, bad_durations)
{
	char *error = duration_error("1.5 parsecs");

	cr_assert(strstr(error, "1.5 parsecs"), "%s", error);
	free(error);
	free(duration_error(""));
	free(duration_error("-3ms"));
	free(duration_error("ms"));
	free(duration_error("0x10"));
	free(duration_error("1e3"));
}

/* --frame-budget of report, diff, view and render: one parser, a duration above 0. */
Test(parse, frame_budgets)
{
	static const char *const bad[][2] = {{"0", "above 0"},
					     {"0.4ns", "above 0"},
					     {"2parsecs", "unknown unit"},
					     {"-5ms", "not a duration"}};
	uint64_t ns = 0;
	char *error = NULL;

	cr_assert_eq(fsa_report_parse_frame_budget("16.7ms", &ns, &error), FSA_OK);
	cr_assert_eq(ns, 16700000);
	cr_assert_null(error);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(fsa_report_parse_frame_budget(bad[i][0], &ns, &error), FSA_ERR_INVALID,
			     "%s", bad[i][0]);
		cr_assert(error && strstr(error, bad[i][1]), "%s: %s", bad[i][0], error);
		cr_assert_null(strchr(error, '\n'));
		free(error);
		error = NULL;
	}
}

Test(parse, times_absolute_and_relative)
{
	struct fsa_report_time time;
	char *error = NULL;

	cr_assert_eq(fsa_report_parse_time("123456789", &time, NULL), FSA_OK);
	cr_assert(time.is_set);
	cr_assert_not(time.is_relative);
	cr_assert_eq(time.ns, 123456789);
	cr_assert_eq(fsa_report_parse_time("+1.2s", &time, NULL), FSA_OK);
	cr_assert(time.is_relative);
	cr_assert_eq(time.ns, 1200000000);
	cr_assert_eq(fsa_report_parse_time("200ms", &time, NULL), FSA_OK);
	cr_assert_not(time.is_relative);
	cr_assert_eq(time.ns, 200000000);
	cr_assert_eq(fsa_report_parse_time("+-1s", &time, &error), FSA_ERR_INVALID);
	cr_assert(strstr(error, "'+-1s' is not a time"), "%s", error);
	free(error);
}

Test(parse, sections)
{
	unsigned sections = 0;
	char *error = NULL;

	cr_assert_eq(fsa_report_parse_sections("summary,latency", &sections, NULL), FSA_OK);
	cr_assert_eq(sections, FSA_REPORT_SUMMARY | FSA_REPORT_LATENCY);
	cr_assert_eq(fsa_report_parse_sections(" losses , anomalies ", &sections, NULL), FSA_OK);
	cr_assert_eq(sections, FSA_REPORT_LOSSES | FSA_REPORT_ANOMALIES);
	cr_assert_eq(fsa_report_parse_sections("all", &sections, NULL), FSA_OK);
	cr_assert_eq(sections, FSA_REPORT_ALL_SECTIONS);
	cr_assert_eq(fsa_report_parse_sections("summary,bogus", &sections, &error),
		     FSA_ERR_INVALID);
	cr_assert(strstr(error, "'bogus' is not a section"), "%s", error);
	free(error);
	error = NULL;
	cr_assert_eq(fsa_report_parse_sections("", &sections, &error), FSA_ERR_INVALID);
	free(error);
	for (unsigned bit = 1; bit & FSA_REPORT_ALL_SECTIONS; bit <<= 1) {
		const char *name = fsa_report_section_name(bit);

		cr_assert_not_null(name);
		cr_assert_eq(fsa_report_parse_sections(name, &sections, NULL), FSA_OK);
		cr_assert_eq(sections, bit);
	}
}

Test(parse, formats)
{
	enum fsa_report_format format;
	char *error = NULL;

	cr_assert_eq(fsa_report_parse_format("json", &format, NULL), FSA_OK);
	cr_assert_eq(format, FSA_REPORT_FORMAT_JSON);
	cr_assert_eq(fsa_report_parse_format("csv", &format, NULL), FSA_OK);
	cr_assert_eq(format, FSA_REPORT_FORMAT_CSV);
	cr_assert_eq(fsa_report_parse_format("text", &format, NULL), FSA_OK);
	cr_assert_eq(format, FSA_REPORT_FORMAT_TEXT);
	cr_assert_eq(fsa_report_parse_format("xml", &format, &error), FSA_ERR_INVALID);
	cr_assert_str_eq(error, "'xml' is not a format (text, json or csv)");
	free(error);
}

static void
threshold_ok(const char *expression)
{
	struct fsa_threshold *threshold = NULL;
	char *error = NULL;

	cr_assert_eq(threshold_parse(expression, &threshold, &error), FSA_OK, "%s: %s", expression,
		     error ? error : "");
	cr_assert_str_eq(threshold_expression(threshold), expression);
	threshold_destroy(threshold);
}

static void
threshold_bad(const char *expression, const char *expected)
{
	struct fsa_threshold *threshold = NULL;
	char *error = NULL;

	cr_assert_eq(threshold_parse(expression, &threshold, &error), FSA_ERR_INVALID, "%s",
		     expression);
	cr_assert_null(threshold);
	cr_assert_not_null(error);
	cr_assert(strstr(error, expected), "'%s' gave '%s', expected '%s'", expression, error,
		  expected);
	cr_assert_null(strchr(error, '\n'));
	free(error);
}

Test(parse, good_thresholds)
{
	threshold_ok("p99(wait)>2ms");
	threshold_ok("max(signal)>=5ms");
	threshold_ok("count(anomaly)>0");
	threshold_ok("lost(log)>0");
	threshold_ok("p95(wait, queue=0x1f) > 1.5ms");
	threshold_ok("p99.9(cpu_wait, process=3)<=10s");
	threshold_ok("mean(wait_stalled, fence=0x10) != 0");
	threshold_ok("count(anomaly, kind=wait_never_unblocked) > 0");
	threshold_ok("count(inferred, queue=7)==0");
	threshold_ok("lost(events)>0");
	threshold_ok("lost(any) > 0");
	threshold_ok("max(reconnect, queue=0x2)>100us");
	threshold_ok("total(preemption)>1s");
	threshold_ok("count(tdr)>0");
}

Test(parse, bad_thresholds)
{
	threshold_bad("", "expected count, min, max, total, mean, pNN or lost");
	threshold_bad("p99 wait > 2ms", "expected '(' after 'p99'");
	threshold_bad("p101(wait)>2ms", "expected count, min");
	threshold_bad("p99(latency)>2ms", "unknown metric 'latency'");
	threshold_bad("p99(wait>2ms", "expected ')'");
	threshold_bad("p99(wait) 2ms", "expected a comparison");
	threshold_bad("p99(wait)>", "expected a number");
	threshold_bad("p99(wait)>2 parsecs", "unexpected 'parsecs'");
	threshold_bad("count(anomaly)>2ms", "a count takes no time unit");
	threshold_bad("p99(anomaly)>0", "anomaly only has count()");
	threshold_bad("lost(wait)>0", "lost() takes log, events, packets or any");
	threshold_bad("p99(wait, engine=1)>2ms", "unknown scope 'engine'");
	threshold_bad("p99(wait, queue=zz)>2ms", "'zz' is not a number");
	threshold_bad("count(anomaly, kind=bogus)>0", "'bogus' is not an anomaly kind");
	threshold_bad("lost(events, queue=1)>0", "this metric has no queue= scope");
	threshold_bad("p99(wait, queue)>1", "expected SCOPE=VALUE");
}
