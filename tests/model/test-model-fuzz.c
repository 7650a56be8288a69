/* SPDX-License-Identifier: MIT */
/*
 * analyzer/model against hostile input: seeded random sequences of every event type, with random
 * present bits and field values drawn from the handles a real trace uses and from the edges of the
 * integer range (0, 1, UINT64_MAX, 2^63, …), random fence handle arrays and random tracer
 * discards. Trace fields are untrusted, so the model must take any of these without crashing,
 * hanging or leaking (the unit suite also runs under ASan, UBSan and LeakSanitizer), must finish,
 * and must account for every event it was given. This is not a correctness test of the rules
 * (test-model.c is); it guards the "malformed input is an anomaly, never an error" promise.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "fencescope-tp-enums.h"
#include "fsa/model.h"
#include "fsa/report.h"

/* xorshift64*: the same sequence on every machine, so a failure names a reproducible seed. */
static uint64_t
next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

static const uint64_t interesting[] = {
    0,
    1,
    2,
    3,
    7,
    255,
    256,
    UINT32_MAX,
    (uint64_t) UINT32_MAX + 1,
    INT64_MAX,
    (uint64_t) INT64_MAX + 1,
    UINT64_MAX,
    UINT64_MAX - 1,
    UINT64_C(0x8003000000000005), /* queue handles */
    UINT64_C(0x8003000000000007),
    UINT64_C(0x8004000000000010), /* fence global handles */
    UINT64_C(0x8004000000000020),
    UINT64_C(0x40), /* fence local handles */
    UINT64_C(0x80),
    UINT64_C(0x8002000000000002), /* context */
    UINT64_C(0x8001000000000001), /* device */
    UINT64_C(0x8005000000000001), /* doorbell */
    1000000,
    100000000,
};

static uint64_t
random_value(uint64_t *state)
{
	uint64_t r = next_random(state);

	switch (r % 4) {
	case 0:
		return next_random(state);
	case 1:
		return next_random(state) % 16;
	default:
		return interesting[(r >> 8) % (sizeof(interesting) / sizeof(interesting[0]))];
	}
}

static uint64_t
random_ts(uint64_t *state, uint64_t *now)
{
	uint64_t r = next_random(state) % 64;

	if (r == 0)
		return 0;
	if (r == 1)
		return UINT64_MAX;
	if (r == 2)
		return *now / 2; /* backwards */
	if (r == 3)
		return next_random(state);
	*now += next_random(state) % 5000;
	return *now;
}

/* What the model gave out: how many items, and a hash of their fields that matter (so that two
 * runs of one seed, one of them peeked, can be compared). */
struct fuzz_counts {
	uint64_t items;
	uint64_t hash;
	uint64_t peeked; /* items the peeks gave */
};

static void
mix(struct fuzz_counts *counts, uint64_t value)
{
	counts->hash = (counts->hash ^ value) * UINT64_C(0x100000001B3);
}

static fsa_status
count_op(void *data, const struct fsa_op *op)
{
	struct fuzz_counts *counts = data;

	counts->items++;
	mix(counts, op->id);
	mix(counts, op->queued_ns);
	mix(counts, op->end_ns);
	mix(counts, op->state);
	mix(counts, op->signal_op_id);
	return FSA_OK;
}

static fsa_status
count_edge(void *data, const struct fsa_edge *edge)
{
	struct fuzz_counts *counts = data;

	counts->items++;
	mix(counts, edge->signal_op_id);
	mix(counts, edge->wait_op_id);
	return FSA_OK;
}

static fsa_status
count_packet(void *data, const struct fsa_packet *packet)
{
	struct fuzz_counts *counts = data;

	counts->items++;
	mix(counts, packet->packet_id);
	mix(counts, packet->start_ns);
	mix(counts, packet->end_ns);
	mix(counts, packet->status);
	return FSA_OK;
}

static fsa_status
count_marker(void *data, const struct fsa_marker *marker)
{
	struct fuzz_counts *counts = data;

	counts->items++;
	mix(counts, marker->kind);
	mix(counts, marker->begin_ns);
	mix(counts, marker->end_ns);
	return FSA_OK;
}

static fsa_status
count_loss(void *data, const struct fsa_loss *loss)
{
	struct fuzz_counts *counts = data;

	counts->items++;
	mix(counts, loss->kind);
	mix(counts, loss->count);
	return FSA_OK;
}

static fsa_status
count_anomaly(void *data, const struct fsa_anomaly *anomaly)
{
	struct fuzz_counts *counts = data;

	counts->items++;
	mix(counts, anomaly->kind);
	mix(counts, anomaly->ts_ns);
	return FSA_OK;
}

/* Feeds `event_count` random events from `seed`, then checks the model counted them all. With
 * `report`, the model's items go to that report instead of being counted. With `peek_every`, the
 * model is peeked (fsa_model_peek, into a sink of its own) after every that many events. Returns
 * what the model gave out (nothing counted with `report`). */
static struct fuzz_counts
run_fuzz_peeked(uint64_t seed, size_t event_count, bool with_trace_info, struct fsa_report *report,
		size_t peek_every)
{
	struct fuzz_counts counts = {0}, peeked = {0};
	struct fsa_model_sink sink = {
	    .data = &counts,
	    .op = count_op,
	    .edge = count_edge,
	    .packet = count_packet,
	    .marker = count_marker,
	    .loss = count_loss,
	    .anomaly = count_anomaly,
	};
	struct fsa_model *m = fsa_model_create(report ? fsa_report_borrow_sink(report) : &sink);
	uint64_t state = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
	uint64_t now = 1000;
	uint64_t accepted = 0;
	uint64_t handles[8];
	const struct fsa_summary *summary;

	cr_assert_not_null(m);
	if (report)
		fsa_report_set_model(report, m);
	if (with_trace_info) {
		struct fsa_event ev;

		fsa_event_clear(&ev);
		ev.type = FSA_EV_TRACE_INFO;
		ev.ts_ns = now;
		fsa_event_set(&ev, FSA_F_FORMAT_MAJOR, FSTP_FORMAT_MAJOR);
		fsa_event_set(&ev, FSA_F_FORMAT_MINOR, 0);
		cr_assert_eq(fsa_model_add_event(m, &ev), FSA_OK);
		accepted++;
	}
	for (size_t i = 0; i < event_count; i++) {
		struct fsa_event ev;
		fsa_status status;

		if (next_random(&state) % 97 == 0) {
			struct fsa_discard d = {
			    .kind =
				next_random(&state) % 2 ? FSA_DISCARD_EVENTS : FSA_DISCARD_PACKETS,
			    .count = random_value(&state),
			    .begin_ns = random_value(&state),
			    .end_ns = random_value(&state),
			    .has_range = next_random(&state) % 2,
			    .stream_id = random_value(&state),
			    .cpu_id = (uint32_t) random_value(&state),
			};

			cr_assert_eq(fsa_model_add_discard(m, &d), FSA_OK, "seed %llu",
				     (unsigned long long) seed);
		}
		fsa_event_clear(&ev);
		ev.type = (enum fsa_event_type)(next_random(&state) % FSA_EV_COUNT);
		ev.ts_ns = random_ts(&state, &now);
		ev.cpu_id = (uint32_t) (next_random(&state) % 3 == 0 ? UINT32_MAX
								     : next_random(&state) % 4);
		for (int f = 0; f < FSA_F_COUNT; f++) {
			/* Mostly present, as real events carry all their fields. */
			if (next_random(&state) % 8 != 0)
				fsa_event_set(&ev, (enum fsa_field) f, random_value(&state));
			else if (next_random(&state) % 2)
				ev.u[f] = random_value(&state); /* value without its bit */
		}
		/* The trace_info type must not stop the run: keep its version readable. */
		if (ev.type == FSA_EV_TRACE_INFO)
			fsa_event_set(&ev, FSA_F_FORMAT_MAJOR, next_random(&state) % 2);
		if (ev.type == FSA_EV_INTERRUPT_HANDLED || ev.type == FSA_EV_INTERRUPT_RAISE ||
		    next_random(&state) % 4 == 0) {
			ev.fence_handle_count = (uint32_t) (next_random(&state) % 9);
			for (uint32_t h = 0; h < ev.fence_handle_count; h++)
				handles[h] = random_value(&state);
			ev.fence_handles = ev.fence_handle_count ? handles : NULL;
		}
		if (next_random(&state) % 2) {
			/* Strings from the trace: quotes, control characters, a comma, bytes that
			 * are not UTF-8 (a lead byte right before the end). */
			static const char *const names[] = {
			    "",      "proc",     "a\"b\\c\n\x01,d", "\xf0",
			    "x\xc3", "\xff\xfe", "caf\xc3\xa9"};

			ev.s[FSA_S_NAME] =
			    names[next_random(&state) % (sizeof(names) / sizeof(names[0]))];
			ev.s[FSA_S_CALL] = "call";
			ev.s[FSA_S_RUNTIME_VERSION] =
			    names[next_random(&state) % (sizeof(names) / sizeof(names[0]))];
		}
		status = fsa_model_add_event(m, &ev);
		cr_assert_eq(status, FSA_OK, "seed %llu event %zu (type %d): %s",
			     (unsigned long long) seed, i, (int) ev.type,
			     fsa_status_string(status));
		accepted++;
		if (peek_every && (i + 1) % peek_every == 0) {
			struct fsa_model_sink peek_sink = sink;

			peek_sink.data = &peeked;
			cr_assert_eq(fsa_model_peek(m, &peek_sink), FSA_OK, "seed %llu event %zu",
				     (unsigned long long) seed, i);
		}
	}
	cr_assert_eq(fsa_model_finish(m), FSA_OK, "seed %llu", (unsigned long long) seed);
	summary = fsa_model_borrow_summary(m);
	cr_assert_eq(summary->event_count, accepted, "seed %llu: %llu counted, %llu given",
		     (unsigned long long) seed, (unsigned long long) summary->event_count,
		     (unsigned long long) accepted);
	/* Every lookup of what the model kept must work too. */
	for (size_t q = 0; q < fsa_model_queue_count(m); q++)
		cr_assert_not_null(fsa_model_borrow_queue(m, q));
	for (size_t f = 0; f < fsa_model_fence_count(m); f++)
		cr_assert_not_null(fsa_model_borrow_fence(m, f));
	for (size_t p = 0; p < fsa_model_process_count(m); p++)
		cr_assert_not_null(fsa_model_borrow_process(m, p)->name);
	for (size_t c = 0; c < fsa_model_clock_fit_count(m); c++)
		(void) fsa_model_gpu_to_trace(m, fsa_model_borrow_clock_fit(m, c)->adapter_id,
					      random_value(&state));
	if (report) {
		FILE *out = tmpfile();

		cr_assert_not_null(out);
		cr_assert_eq(fsa_report_finish(report), FSA_OK, "seed %llu",
			     (unsigned long long) seed);
		for (int f = FSA_REPORT_FORMAT_TEXT; f <= FSA_REPORT_FORMAT_CSV; f++)
			cr_assert_eq(fsa_report_write(report, (enum fsa_report_format) f, out),
				     FSA_OK, "seed %llu format %d", (unsigned long long) seed, f);
		cr_assert_gt(ftell(out), 0);
		fclose(out);
	}
	fsa_model_destroy(m);
	counts.peeked = peeked.items;
	return counts;
}

static void
run_fuzz(uint64_t seed, size_t event_count, bool with_trace_info, struct fsa_report *report)
{
	(void) run_fuzz_peeked(seed, event_count, with_trace_info, report, 0);
}

TestSuite(model_fuzz, .timeout = 120);

/* Issue 16 §4 (s11): a live reader peeks at the model it keeps feeding. Peeking after every
 * event of hostile input never crashes and changes nothing the model gives out: the same items,
 * field for field (by their hash), as the run of the same seed never peeked. */
Test(model_fuzz, peeking_after_every_random_event_changes_nothing_given_out)
{
	uint64_t peeked_items = 0;

	for (uint64_t seed = 1; seed <= 60; seed++) {
		struct fuzz_counts plain = run_fuzz_peeked(seed, 1500, seed % 2, NULL, 0);
		struct fuzz_counts peeked = run_fuzz_peeked(seed, 1500, seed % 2, NULL, 1);

		cr_assert_eq(peeked.items, plain.items, "seed %llu: %llu items, %llu unpeeked",
			     (unsigned long long) seed, (unsigned long long) peeked.items,
			     (unsigned long long) plain.items);
		cr_assert_eq(peeked.hash, plain.hash, "seed %llu: other items",
			     (unsigned long long) seed);
		peeked_items += peeked.peeked;
	}
	/* The peeks saw open items (the model held some): they were not empty looks. */
	cr_assert_gt(peeked_items, 0);
}

Test(model_fuzz, random_events_of_every_type_never_crash_and_all_count)
{
	for (uint64_t seed = 1; seed <= 200; seed++)
		run_fuzz(seed, 2000, seed % 2, NULL);
}

Test(model_fuzz, long_random_sequence_finishes)
{
	run_fuzz(424242, 200000, true, NULL);
}

/* The report takes what the model makes of hostile input (huge durations, unknown handles, loss
 * counts near 2^64) and must finish and write every format; a random time filter and thresholds
 * of every kind run too. */
Test(model_fuzz, random_events_through_the_report_never_crash)
{
	static const char *const thresholds[] = {
	    "p99(wait)>2ms",
	    "max(signal, queue=0x8003000000000005)>=1",
	    "mean(cpu_wait, process=1)<5",
	    "count(anomaly)>0",
	    "lost(any)>0",
	    "lost(log, queue=0x8003000000000007)>0",
	    "total(reconnect)>1s",
	    "p50(preemption)>1",
	    "count(never_completed)>0",
	    "p99.9(wait_stalled, fence=0x8004000000000010)>1us",
	};

	for (uint64_t seed = 1; seed <= 60; seed++) {
		struct fsa_report_options options = {
		    .is_fail_on_loss = seed % 2,
		    .longest_count = seed % 4,
		    .example_count = seed % 3,
		    .loss_list_count = seed % 5,
		};
		struct fsa_report *report;

		if (seed % 3 == 0)
			options.begin = (struct fsa_report_time){
			    .is_set = true, .is_relative = seed % 2, .ns = seed * 1000};
		if (seed % 5 == 0)
			options.end =
			    (struct fsa_report_time){.is_set = true, .ns = UINT64_MAX - seed};
		report = fsa_report_create(&options);
		cr_assert_not_null(report);
		for (size_t t = 0; t < sizeof(thresholds) / sizeof(thresholds[0]); t++)
			cr_assert_eq(fsa_report_add_threshold(report, thresholds[t], NULL), FSA_OK,
				     "%s", thresholds[t]);
		run_fuzz(seed, 3000, seed % 2, report);
		fsa_report_destroy(report);
	}
}
