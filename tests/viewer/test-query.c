/* SPDX-License-Identifier: MIT */
/*
 * viewer/core's search language (fsv-query.h, suite unit): the grammar (terms, and / or / not,
 * parentheses, space as "and", a|b alternatives), every field against a synthetic op, numbers
 * (decimal or 0x hex, never octal), durations with units, errors as one line with the offset,
 * and the matches over a sample trace checked op by op against the trace's own data.
 */
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "fsv-query.h"
#include "fsv-trace.h"

/* A wait of 3 ms on user-mode queue 0x1001: queued at 1 ms, reached at 2 ms, unblocked at 4
 * ms. */
static const FsvOp wait_op = {
    .begin_ns = 1000000,
    .end_ns = 4000000,
    .queued_ns = 1000000,
    .observed_ns = 2000000,
    .op_end_ns = 4000000,
    .fence_handle = 0x12,
    .fence_global_handle = 0x99,
    .fence_value = 5,
    .id = 77,
    .hwqueue_handle = 0x1001,
    .process_id = 42,
    .adapter_id = 0,
    .engine_id = 1,
    .kind = FSA_OP_WAIT,
    .source = FSA_SRC_USER_MODE_QUEUE,
    .state = FSA_OP_OBSERVED,
};

/* Whether TEXT parses and matches wait_op. */
static bool
matches(const char *text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvQuery) q = fsv_query_parse(text, NULL, &error);

	cr_assert_not_null(q, "'%s' refused: %s", text, error ? error->message : "");
	return fsv_query_match_op(q, &wait_op);
}

/* The error message of TEXT, and its offset. */
static char *
error_of(const char *text, guint *offset)
{
	GError *error = NULL;
	FsvQuery *q = fsv_query_parse(text, offset, &error);
	char *message;

	cr_assert_null(q, "'%s' accepted", text);
	cr_assert_not_null(error);
	cr_assert(g_error_matches(error, FSV_QUERY_ERROR, FSV_QUERY_ERROR_SYNTAX));
	cr_assert_null(strchr(error->message, '\n'), "one line: %s", error->message);
	message = g_strdup(error->message);
	g_error_free(error);
	return message;
}

Test(query, empty_query_matches_everything_and_is_not_active)
{
	g_autoptr(FsvQuery) q = fsv_query_parse("  ", NULL, NULL);

	cr_assert_not_null(q);
	cr_assert_not(fsv_query_is_active(q));
	cr_assert_not(fsv_query_is_active(NULL));
	cr_assert(fsv_query_match_op(q, &wait_op));
	cr_assert(fsv_query_match_op(NULL, &wait_op));
	cr_assert_str_eq(fsv_query_get_text(q), "  ");
}

/* The first search's syntax keeps working: space-separated terms are all required, a bare
 * number is a fence handle (local or global). */
Test(query, first_search_syntax_keeps_working)
{
	cr_assert(matches("fence=0x12 value=5"));
	cr_assert(matches("0x99 pid=42 queue=4097"));
	cr_assert(matches("0x12, value=5"));
	cr_assert(matches("handle=0x99 hwqueue=0x1001 process=42"));
	cr_assert_not(matches("value=6"));
	cr_assert_not(matches("fence=0x12 value=6"));
	cr_assert_not(matches("0x13"));
}

Test(query, every_field_matches_its_op_field)
{
	cr_assert(matches("kind=wait"));
	cr_assert_not(matches("kind=signal"));
	cr_assert(matches("kind=wait|signal"));
	cr_assert(matches("state=observed"));
	cr_assert_not(matches("state=inferred|never_completed"));
	cr_assert(matches("state!=inferred|never_completed|unqueued"));
	cr_assert(matches("source=user_mode"));
	cr_assert_not(matches("source=kernel_mode|cpu"));
	cr_assert(matches("queue=0x1001"));
	cr_assert(matches("queue!=0x1002"));
	cr_assert(matches("pid=42"));
	cr_assert(matches("pid>=42 pid<43"));
	cr_assert(matches("fence=0x12"));
	cr_assert(matches("fence=0x99"));
	cr_assert_not(matches("fence!=0x99"), "!= excludes the global handle too");
	cr_assert(matches("value>4 value<=5"));
	cr_assert(matches("value=3|5|7"));
	cr_assert(matches("op=77"));
	cr_assert(matches("id>76"));
	cr_assert(matches("adapter=0 engine=1"));
	cr_assert(matches("KIND=WAIT"), "names and fields are case-insensitive");
}

/* dur is end − queued: 3 ms here, whatever the units. */
Test(query, dur_compares_end_minus_queued_in_any_unit)
{
	cr_assert_eq(fsv_op_get_duration(&wait_op), 3000000);
	cr_assert(matches("dur>2ms"));
	cr_assert(matches("dur=3ms"));
	cr_assert(matches("dur>=3000us"));
	cr_assert(matches("dur<=3000000ns"));
	cr_assert(matches("dur>2999.999µs"));
	cr_assert(matches("duration<0.0031s"));
	cr_assert(matches("dur>0"));
	cr_assert_not(matches("dur<3ms"));
	cr_assert_not(matches("dur>3ms"));
	cr_assert_not(matches("dur!=3ms"));
	cr_assert(matches("dur > 2.5ms"), "spaces around the operator");
}

Test(query, durations_parse_with_units_and_round_to_the_nanosecond)
{
	guint64 ns = 0;

	cr_assert(fsv_query_parse_duration("2ms", &ns));
	cr_assert_eq(ns, 2000000);
	cr_assert(fsv_query_parse_duration("1.5 µs", &ns));
	cr_assert_eq(ns, 1500);
	cr_assert(fsv_query_parse_duration("0.0000000015s", &ns));
	cr_assert_eq(ns, 2);
	cr_assert(fsv_query_parse_duration("250ns", &ns));
	cr_assert_eq(ns, 250);
	cr_assert(fsv_query_parse_duration("0", &ns));
	cr_assert_eq(ns, 0);
	cr_assert_not(fsv_query_parse_duration("2", &ns), "a unit is needed but for 0");
	cr_assert_not(fsv_query_parse_duration("2xs", &ns));
	cr_assert_not(fsv_query_parse_duration("ms", &ns));
	cr_assert_not(fsv_query_parse_duration("1.ms", &ns));
	cr_assert_not(fsv_query_parse_duration("99999999999999999999s", &ns));
}

Test(query, and_or_not_and_parentheses_bind_as_usual)
{
	cr_assert(matches("kind=signal or pid=42"));
	cr_assert_not(matches("kind=signal or pid=43"));
	cr_assert(matches("kind=wait and pid=42"));
	cr_assert_not(matches("not kind=wait"));
	cr_assert(matches("not not kind=wait"));
	cr_assert(matches("not kind=signal and pid=42"));
	/* and binds tighter than or: signal or (wait and pid=43) is false; with parentheses,
	 * (signal or wait) and pid=42 is true. */
	cr_assert_not(matches("kind=signal or kind=wait and pid=43"));
	cr_assert(matches("kind=signal or kind=wait and pid=42"));
	cr_assert(matches("(kind=signal or kind=wait) and pid=42"));
	cr_assert_not(matches("(kind=signal or kind=wait) pid=43"));
	cr_assert(matches("not (kind=signal or pid=43)"));
	cr_assert(matches("((fence=0x12))"));
	cr_assert(matches("KIND=wait AND NOT state=inferred OR pid=1"));
}

/* The brief's example, to the character: the offset is where the unit starts. */
Test(query, errors_are_one_line_with_the_offset)
{
	static const struct {
		const char *text, *message;
		guint offset;
	} cases[] = {
	    {"dur>2xs", "dur>2xs: unknown unit 'xs' at 5", 5},
	    {"dur>2", "dur>2: missing unit (ns, us, µs, ms or s) at 5", 5},
	    {"kind=wat", "kind=wat: unknown kind 'wat' (wait, signal) at 5", 5},
	    {"pid=1 kind>wait", "kind>: kind takes = or != only at 10", 10},
	    {"value<3|4", "value<3|: '|' (one of) only after = or != at 7", 7},
	    {"(kind=wait", "(kind=wait: missing ')' at 10", 10},
	    {"kind=wait)", "): ')' without '(' at 9", 9},
	    {"kind=wait and", "kind=wait and: a term is missing at the end at 13", 13},
	    {"or pid=1", "or: a term is missing before it at 0", 0},
	    {"pid=", "pid=: missing value at 4", 4},
	    {"µs=1",
	     "µs=: unknown field 'µs' (dur, kind, state, source, queue, pid, fence, "
	     "value, op, adapter, engine) at 0",
	     0},
	    {"dur>1µs colour=red",
	     "colour=: unknown field 'colour' (dur, kind, state, source, queue, pid, fence, "
	     "value, op, adapter, engine) at 8",
	     8},
	    {"wait",
	     "wait: unknown term (FIELD=VALUE with a field of dur, kind, state, source, "
	     "queue, pid, fence, value, op, adapter, engine, or a fence handle) at 0",
	     0},
	    {"pid=1 ! pid=2", "!: unexpected '!' at 6", 6},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		guint offset = G_MAXUINT;
		g_autofree char *message = error_of(cases[i].text, &offset);

		cr_assert_str_eq(message, cases[i].message, "'%s'", cases[i].text);
		cr_assert_eq(offset, cases[i].offset, "'%s': offset %u", cases[i].text, offset);
	}
}

/* Numbers are decimal, or hex after 0x: a leading zero is not octal ("value=010" is ten, not
 * eight; "pid=09" is nine), and signs, spaces and an empty hex number are refused. */
Test(query, numbers_are_decimal_or_hex_never_octal)
{
	static const char *const bad[] = {
	    "value=0x",     "value=+5",      "value=-5",
	    "value=",       "fence=0x-1",    "value=5x",
	    "pid=0x1g",     "value=0b1",     "value=18446744073709551616",
	    "fence=0x12=3", "pid=4294967296"};
	FsvOp op = wait_op;

	op.fence_value = 10;
	op.process_id = 9;
	{
		g_autoptr(FsvQuery) q = fsv_query_parse("value=010 pid=09", NULL, NULL);

		cr_assert(fsv_query_match_op(q, &op));
	}
	op.fence_handle = 0x1f;
	op.hwqueue_handle = 0x10;
	op.fence_value = G_MAXUINT64;
	{
		g_autoptr(FsvQuery) q = fsv_query_parse(
		    "fence=0X1F queue=0x0010 value=18446744073709551615", NULL, NULL);

		cr_assert(fsv_query_match_op(q, &op));
	}
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		guint offset;
		g_autofree char *message = error_of(bad[i], &offset);

		cr_assert(strstr(message, " at "), "%s", message);
	}
}

/* Ops whose end is not known still have a duration: the box they are drawn as. */
Test(query, duration_of_inferred_never_completed_and_unqueued_ops)
{
	FsvOp o = wait_op;

	o.state = FSA_OP_NEVER_COMPLETED;
	o.op_end_ns = FSV_TIME_NONE;
	o.end_ns = 9000000; /* the end of the trace */
	cr_assert_eq(fsv_op_get_duration(&o), 8000000);
	o.state = FSA_OP_INFERRED;
	o.end_ns = 2500000; /* inferred before */
	cr_assert_eq(fsv_op_get_duration(&o), 1500000);
	o.state = FSA_OP_UNQUEUED;
	o.queued_ns = FSV_TIME_NONE;
	o.op_end_ns = o.begin_ns = o.end_ns = 4000000;
	cr_assert_eq(fsv_op_get_duration(&o), 0);
}

/* Over a recorded trace: "kind=wait and dur>1ms" keeps exactly the waits longer than 1 ms,
 * counted from the ops' own fields; its negation keeps the rest. */
Test(query, matches_on_frame_pipeline_agree_with_the_ops_fields)
{
	g_autofree char *path = g_build_filename(FST_TRACES, "frame-pipeline", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FsvTrace) trace = fsv_trace_load(path, NULL, NULL, NULL, &error);
	g_autoptr(FsvQuery) q = fsv_query_parse("kind=wait and dur>1ms", NULL, NULL);
	g_autoptr(FsvQuery) n = fsv_query_parse("not (kind=wait and dur>1ms)", NULL, NULL);
	guint expected = 0, got = 0, waits = 0;

	cr_assert_not_null(trace, "%s", error ? error->message : "");
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);
		guint64 end = o->op_end_ns != FSV_TIME_NONE ? o->op_end_ns : o->end_ns;
		guint64 begin = o->queued_ns != FSV_TIME_NONE ? o->queued_ns : o->begin_ns;
		bool want = o->kind == FSA_OP_WAIT && end - begin > 1000000;

		waits += o->kind == FSA_OP_WAIT;
		expected += want;
		got += fsv_query_match_op(q, o);
		cr_assert_eq(fsv_query_match_op(q, o), want, "op %u", i);
		cr_assert_neq(fsv_query_match_op(n, o), want, "op %u", i);
	}
	cr_assert_gt(expected, 0, "the trace has waits over 1 ms");
	cr_assert_lt(expected, waits, "and waits under it");
	cr_assert_eq(got, expected);
}
