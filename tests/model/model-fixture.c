/* SPDX-License-Identifier: MIT */
/* The synthetic-trace fixture of the model tests (see model-fixture.h). */
#include <stdarg.h>
#include <string.h>

#include <criterion/criterion.h>

#include "model-fixture.h"

struct collected got;
struct fsa_model *model;

static fsa_status
on_op(void *data, const struct fsa_op *op)
{
	(void) data;
	cr_assert_lt(got.op_count, sizeof(got.ops) / sizeof(got.ops[0]));
	got.ops[got.op_count++] = *op;
	return FSA_OK;
}

static fsa_status
on_edge(void *data, const struct fsa_edge *edge)
{
	(void) data;
	cr_assert_lt(got.edge_count, sizeof(got.edges) / sizeof(got.edges[0]));
	got.edges[got.edge_count++] = *edge;
	return FSA_OK;
}

static fsa_status
on_packet(void *data, const struct fsa_packet *packet)
{
	(void) data;
	cr_assert_lt(got.packet_count, sizeof(got.packets) / sizeof(got.packets[0]));
	got.packets[got.packet_count++] = *packet;
	return FSA_OK;
}

static fsa_status
on_marker(void *data, const struct fsa_marker *marker)
{
	(void) data;
	cr_assert_lt(got.marker_count, sizeof(got.markers) / sizeof(got.markers[0]));
	got.markers[got.marker_count++] = *marker;
	return FSA_OK;
}

static fsa_status
on_loss(void *data, const struct fsa_loss *loss)
{
	(void) data;
	cr_assert_lt(got.loss_count, sizeof(got.losses) / sizeof(got.losses[0]));
	got.losses[got.loss_count++] = *loss;
	return FSA_OK;
}

static fsa_status
on_anomaly(void *data, const struct fsa_anomaly *anomaly)
{
	(void) data;
	cr_assert_lt(got.anomaly_count, sizeof(got.anomalies) / sizeof(got.anomalies[0]));
	got.anomalies[got.anomaly_count++] = *anomaly;
	return FSA_OK;
}

static fsa_status
on_fence_value(void *data, const struct fsa_fence_value *step)
{
	(void) data;
	cr_assert_lt(got.fence_value_count, sizeof(got.fence_values) / sizeof(got.fence_values[0]));
	got.fence_values[got.fence_value_count++] = *step;
	return FSA_OK;
}

void
fixture_setup(void)
{
	struct fsa_model_sink sink = {
	    .op = on_op,
	    .edge = on_edge,
	    .packet = on_packet,
	    .marker = on_marker,
	    .loss = on_loss,
	    .anomaly = on_anomaly,
	    .fence_value = on_fence_value,
	};

	memset(&got, 0, sizeof(got));
	model = fsa_model_create(&sink);
	cr_assert_not_null(model);
}

void
fixture_teardown(void)
{
	fsa_model_destroy(model);
	model = NULL;
}

static fsa_status
vfeed(const char *event, uint64_t ts, va_list args)
{
	struct fsa_event ev;
	const char *field;

	fsa_event_clear(&ev);
	ev.type = fsa_event_type_from_name(event);
	cr_assert_neq(ev.type, FSA_EV_UNKNOWN, "no event %s", event);
	ev.ts_ns = ts;
	while ((field = va_arg(args, const char *))) {
		int slot = fsa_field_from_name(field);
		uint64_t value = va_arg(args, uint64_t);

		cr_assert_geq(slot, 0, "no field %s", field);
		fsa_event_set(&ev, (enum fsa_field) slot, value);
	}
	return fsa_model_add_event(model, &ev);
}

fsa_status
feed(const char *event, uint64_t ts, ...)
{
	va_list args;
	fsa_status status;

	va_start(args, ts);
	status = vfeed(event, ts, args);
	va_end(args);
	return status;
}

void
feed_ok(const char *event, uint64_t ts, ...)
{
	va_list args;
	fsa_status status;

	va_start(args, ts);
	status = vfeed(event, ts, args);
	va_end(args);
	cr_assert_eq(status, FSA_OK, "%s at %llu: %s", event, (unsigned long long) ts,
		     fsa_status_string(status));
}

void
fixture_objects(uint64_t ts)
{
	feed_ok("trace_info", ts, "format_major", U(1), "format_minor", U(0), "clock_mode",
		U(FSTP_CLOCK_MODE_REALTIME), NULL);
	feed_ok("adapter_create", ts, "adapter_id", U(0), "engine_count", U(2),
		"gpu_ts_frequency_hz", U(100000000), NULL);
	feed_ok("clock_correlation", ts, "adapter_id", U(0), "cpu_ts_ns", ts, "gpu_ts", ts / 10,
		"gpu_ts_frequency_hz", U(100000000), NULL);
	/* A second pair half a millisecond later measures the counter's rate (10 ns per tick):
	 * GPU times up to there are interpolated and final at once, and up to as far again past it
	 * extrapolated (docs/analyzer.md "GPU time"), as between the periodic pairs of a real
	 * trace. */
	feed_ok("clock_correlation", ts, "adapter_id", U(0), "cpu_ts_ns", ts + FIXTURE_PAIR_SPAN_NS,
		"gpu_ts", (ts + FIXTURE_PAIR_SPAN_NS) / 10, "gpu_ts_frequency_hz", U(100000000),
		NULL);
	feed_ok("process_create", ts, "process_id", U(PID), NULL);
	feed_ok("device_create", ts, "process_id", U(PID), "adapter_id", U(0), "device_handle", DEV,
		NULL);
	feed_ok("context_create", ts, "process_id", U(PID), "device_handle", DEV, "context_handle",
		CTX, "engine_id", U(0), NULL);
	feed_ok("hwqueue_create", ts, "process_id", U(PID), "context_handle", CTX, "hwqueue_handle",
		UQ, "engine_id", U(0), "submission_mode", U(FSTP_SUBMISSION_MODE_USER_MODE),
		"progress_fence_handle", UINT64_C(0x8004000000000001), NULL);
	feed_ok("hwqueue_create", ts, "process_id", U(PID), "context_handle", CTX, "hwqueue_handle",
		UQ2, "engine_id", U(0), "submission_mode", U(FSTP_SUBMISSION_MODE_USER_MODE),
		"progress_fence_handle", UINT64_C(0x8004000000000003), NULL);
	feed_ok("hwqueue_create", ts, "process_id", U(PID), "context_handle", CTX, "hwqueue_handle",
		KQ, "engine_id", U(0), "submission_mode", U(FSTP_SUBMISSION_MODE_KERNEL_MODE),
		"progress_fence_handle", UINT64_C(0x8004000000000002), NULL);
	feed_ok("fence_create", ts, "process_id", U(PID), "adapter_id", U(0), "fence_global_handle",
		FA_G, "fence_handle", FA, "initial_value", U(0), NULL);
	feed_ok("fence_create", ts, "process_id", U(PID), "adapter_id", U(0), "fence_global_handle",
		FB_G, "fence_handle", FB, "initial_value", U(0), NULL);
}

fsa_status
finish(void)
{
	return fsa_model_finish(model);
}

const struct fsa_op *
find_op(enum fsa_op_kind kind, uint64_t hwqueue, uint64_t value)
{
	for (size_t i = 0; i < got.op_count; i++)
		if (got.ops[i].kind == kind && got.ops[i].hwqueue_handle == hwqueue &&
		    got.ops[i].fence_value == value)
			return &got.ops[i];
	return NULL;
}

size_t
count_anomalies(enum fsa_anomaly_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < got.anomaly_count; i++)
		n += got.anomalies[i].kind == kind;
	return n;
}
