/* SPDX-License-Identifier: MIT */
/*
 * GPU → trace time (docs/trace-format.md "GPU time to trace time", GPV-04). Each adapter's
 * clock_correlation pairs are kept (16 bytes per pair, one pair per correlation period); a GPU
 * timestamp maps by linear interpolation between the two pairs around it, so a counter that
 * drifts is followed piece by piece, and by extrapolation of the last segment past the last
 * pair (the nominal frequency with a single pair). The least-squares line over all pairs and its
 * residual are reported so a user can judge the counter. Integer arithmetic (128-bit) keeps a
 * sim-mode trace exact to the counter's resolution.
 */
#include <math.h>
#include <stdlib.h>

#include "model-private.h"

/* -Wpedantic: 128-bit integers are a GNU extension, which gcc and clang both have. */
__extension__ typedef __int128 i128;

struct clock_state *
fsa_clock_get(struct fsa_model *model, uint32_t adapter_id, bool create)
{
	struct clock_state *clocks;

	for (size_t i = 0; i < model->clock_count; i++)
		if (model->clocks[i].fit.adapter_id == adapter_id)
			return &model->clocks[i];
	if (!create)
		return NULL;
	clocks = realloc(model->clocks, (model->clock_count + 1) * sizeof(*clocks));
	if (!clocks)
		return NULL;
	model->clocks = clocks;
	clocks[model->clock_count] = (struct clock_state){.fit.adapter_id = adapter_id};
	return &clocks[model->clock_count++];
}

/* The clock that the runtime sampled for cpu_ts_ns, as trace_info tells its clock mode. */
static enum fsa_trace_clock
sampled_clock(const struct fsa_summary *sum)
{
	if (!sum->has_trace_info)
		return FSA_TRACE_CLOCK_UNSAID; /* another driver's trace: take the contract's word
						*/
	return sum->clock_mode == FSTP_CLOCK_MODE_SIM ? FSA_TRACE_CLOCK_SIM
						      : FSA_TRACE_CLOCK_MONOTONIC;
}

/*
 * The CPU side of a pair (docs/trace-format.md "GPU time to trace time"). cpu_ts_ns is a raw
 * reading of the clock the runtime sampled; ingest converted it with the trace's clock class, so
 * it lands on the time base of the event timestamps whatever the clock's origin (the clock class
 * offset: the Unix epoch for LTTng's clocks). When the trace clock is not the clock the runtime
 * sampled, the pair's own event timestamp is the only instant on the trace clock: good to the
 * tracer's latency if both clocks run in real time, meaningless if the runtime ran on virtual time
 * (a sim run recorded without the sim clock plugin), where GPU times are then not placed at all.
 */
fsa_status
fsa_clock_on_correlation(struct fsa_model *model, const struct fsa_event *ev)
{
	struct fsa_summary *sum = &model->summary;
	enum fsa_trace_clock sampled = sampled_clock(sum);
	uint64_t cpu_ns = ev->u[FSA_F_CPU_TS_NS];
	enum fsa_gpu_time gpu_time = FSA_GPU_TIME_CORRELATED;

	sum->trace_clock = ev->trace_clock;
	if (ev->trace_clock == FSA_TRACE_CLOCK_UNSAID) {
		/* Synthetic events: cpu_ts_ns is on the time base of ts_ns already. */
	} else if ((sampled == FSA_TRACE_CLOCK_UNSAID || sampled == ev->trace_clock) &&
		   ev->cpu_ts_trace_ns != FSA_TIME_NONE) {
		cpu_ns = ev->cpu_ts_trace_ns;
	} else if (sampled == FSA_TRACE_CLOCK_SIM) {
		gpu_time = FSA_GPU_TIME_UNMAPPED;
	} else {
		gpu_time = FSA_GPU_TIME_EVENT_STAMPED;
		cpu_ns = ev->ts_ns;
	}
	if (gpu_time > sum->gpu_time)
		sum->gpu_time = (uint8_t) gpu_time;
	if (gpu_time != FSA_GPU_TIME_CORRELATED && !model->is_clock_mismatch_said) {
		struct fsa_anomaly anomaly = {
		    .kind = FSA_ANOM_TRACE_CLOCK_MISMATCH,
		    .ts_ns = ev->ts_ns,
		    .a = sampled,
		    .b = ev->trace_clock,
		};

		model->is_clock_mismatch_said = true;
		if (emit_anomaly(model, &anomaly))
			return model->failed;
	}
	if (sum->gpu_time == FSA_GPU_TIME_UNMAPPED) {
		/* The adapter is known, without pairs: its boxes end where the OS read them. */
		struct clock_state *clock =
		    fsa_clock_get(model, (uint32_t) ev->u[FSA_F_ADAPTER_ID], true);

		if (!clock)
			return model->failed = FSA_ERR_NOMEM;
		clock->is_unmapped = true;
		return FSA_OK;
	}
	if (!fsa_clock_add_pair(model, (uint32_t) ev->u[FSA_F_ADAPTER_ID], cpu_ns,
				ev->u[FSA_F_GPU_TS], ev->u[FSA_F_GPU_TS_FREQUENCY_HZ]))
		return model->failed = FSA_ERR_NOMEM;
	return FSA_OK;
}

bool
fsa_clock_add_pair(struct fsa_model *model, uint32_t adapter_id, uint64_t cpu_ns, uint64_t gpu_ts,
		   uint64_t nominal_hz)
{
	struct clock_state *clock = fsa_clock_get(model, adapter_id, true);

	if (!clock)
		return false;
	if (nominal_hz)
		clock->fit.nominal_hz = nominal_hz;
	/* A pair that does not move the counter forward cannot define a segment. */
	if (clock->pair_count && gpu_ts <= clock->pairs[clock->pair_count - 1].gpu_ts)
		return true;
	if (clock->pair_count == clock->pair_capacity) {
		size_t capacity = clock->pair_capacity ? clock->pair_capacity * 2 : 64;
		struct clock_pair *pairs = realloc(clock->pairs, capacity * sizeof(*pairs));

		if (!pairs)
			return false;
		clock->pairs = pairs;
		clock->pair_capacity = capacity;
	}
	clock->pairs[clock->pair_count++] = (struct clock_pair){.gpu_ts = gpu_ts, .cpu_ns = cpu_ns};
	clock->fit.pair_count = clock->pair_count;
	return true;
}

/*
 * A GPU timestamp is mapped for good once a pair at or after it exists: it is then interpolated
 * between the two pairs around it, which follows a counter's drift exactly as long as the drift is
 * constant between pairs, whatever its size. Past the last pair it is also final once two pairs
 * have measured the counter's rate, if it lies no further past the last pair than the last segment
 * is long (and FSA_CLOCK_HORIZON_NS at most): the last segment's slope is then extrapolated, exact
 * for a drift that does not change, and boxes go out about in the order they ended. The segment's
 * length bounds the error: each pair's GPU side is whole ticks, so the measured rate is off by up
 * to two ticks over the segment, which extrapolated as far again costs two ticks at most (a
 * segment of 100 µs extrapolated over 1 ms cost 100 ns). With a single pair the rate is only the
 * nominal frequency, wrong by the whole drift (800 ppm: 8 µs over 10 ms): the box waits for the
 * second pair, one correlation period later or the runtime's pair at shutdown (or the end of the
 * trace, or FSA_CLOCK_WAIT_NS). Extrapolated times are counted in the fit's `extrapolated`.
 */
bool
fsa_clock_is_final(const struct clock_state *clock, uint64_t gpu_ts)
{
	uint64_t last, span, horizon;

	if (clock && clock->is_unmapped)
		return true; /* nothing will ever map it: its box ends at its read now */
	if (!clock || !clock->pair_count)
		return false;
	last = clock->pairs[clock->pair_count - 1].gpu_ts;
	if (gpu_ts <= last)
		return true;
	if (clock->pair_count < 2)
		return false;
	span = last - clock->pairs[clock->pair_count - 2].gpu_ts;
	horizon = (uint64_t) ((double) clock->fit.nominal_hz * (FSA_CLOCK_HORIZON_NS / 1e9));
	if (span < horizon)
		horizon = span;
	return gpu_ts - last <= horizon;
}

void
fsa_clock_unmapped_add(struct fsa_model *model, uint32_t adapter_id, int delta)
{
	struct clock_state *clock = fsa_clock_get(model, adapter_id, delta > 0);

	if (!clock)
		return;
	if (delta > 0)
		clock->unmapped_count++;
	else if (clock->unmapped_count)
		clock->unmapped_count--;
}

/*
 * The latest trace time up to which every box that waits for a clock pair is known to end later:
 * such a box maps after the last pair of its adapter (its GPU time is past that pair's), so items
 * that ended up to that pair's CPU time can go out without overtaking it. FSA_TIME_NONE when no
 * box waits; 0 while an adapter with waiting boxes has no pair at all.
 */
uint64_t
fsa_clock_frontier(const struct fsa_model *model)
{
	uint64_t frontier = FSA_TIME_NONE;

	for (size_t i = 0; i < model->clock_count; i++) {
		const struct clock_state *clock = &model->clocks[i];
		uint64_t edge;

		if (!clock->unmapped_count || clock->is_unmapped)
			continue;
		edge = clock->pair_count ? clock->pairs[clock->pair_count - 1].cpu_ns : 0;
		if (edge < frontier)
			frontier = edge;
	}
	return frontier;
}

static uint64_t
map_on(const struct clock_pair *a, uint64_t gpu_ts, i128 num, i128 den)
{
	i128 delta = (i128) gpu_ts - (i128) a->gpu_ts;
	i128 product, quotient, t;

	/* Both factors come from the trace and can be near 2^64 each: a product past 2^127 is
	 * off the trace clock either way, so it saturates instead of overflowing. */
	if (__builtin_mul_overflow(delta, num, &product))
		return (delta < 0) != (num < 0) ? 0 : UINT64_MAX - 1;
	/* Mostly both fit 64 bits: the processor's division, the same quotient (both truncate
	 * toward zero) without the 128-bit division's call. */
	if (product >= -(i128) INT64_MAX && product <= (i128) INT64_MAX && den > 0 &&
	    den <= (i128) INT64_MAX)
		quotient = (i128) ((int64_t) product / (int64_t) den);
	else
		quotient = product / den;
	if (__builtin_add_overflow((i128) a->cpu_ns, quotient, &t))
		return UINT64_MAX - 1;
	if (t < 0)
		return 0;
	if (t >= (i128) UINT64_MAX)
		return UINT64_MAX - 1;
	return (uint64_t) t;
}

static uint64_t map_known(const struct clock_state *clock, uint64_t gpu_ts);

/*
 * A time mapped past the last pair (or before the first) is extrapolated: counted, with its
 * distance, so the report can bound the error (docs/analyzer.md "GPU time").
 */
uint64_t
fsa_clock_map(struct clock_state *clock, uint64_t gpu_ts)
{
	uint64_t ns = map_known(clock, gpu_ts);
	uint64_t edge_ns;

	if (!clock || !clock->pair_count || ns == FSA_TIME_NONE)
		return ns;
	if (gpu_ts > clock->pairs[clock->pair_count - 1].gpu_ts)
		edge_ns = clock->pairs[clock->pair_count - 1].cpu_ns;
	else if (gpu_ts < clock->pairs[0].gpu_ts)
		edge_ns = clock->pairs[0].cpu_ns;
	else
		return ns;
	clock->fit.extrapolated_count++;
	if ((ns > edge_ns ? ns - edge_ns : edge_ns - ns) > clock->fit.extrapolated_max_ns)
		clock->fit.extrapolated_max_ns = ns > edge_ns ? ns - edge_ns : edge_ns - ns;
	return ns;
}

uint64_t
fsa_clock_map_const(const struct clock_state *clock, uint64_t gpu_ts)
{
	return map_known(clock, gpu_ts);
}

static uint64_t
map_known(const struct clock_state *clock, uint64_t gpu_ts)
{
	size_t lo = 0, hi;
	const struct clock_pair *p;

	if (!clock || !clock->pair_count)
		return FSA_TIME_NONE;
	p = clock->pairs;
	if (clock->pair_count == 1) {
		uint64_t hz = clock->fit.nominal_hz ? clock->fit.nominal_hz : 1000000000u;

		return map_on(&p[0], gpu_ts, 1000000000, hz);
	}
	/* The last pair at or below gpu_ts; the first segment before the first pair. */
	hi = clock->pair_count - 1;
	if (gpu_ts >= p[hi].gpu_ts) {
		lo = hi - 1;
	} else if (gpu_ts <= p[0].gpu_ts) {
		lo = 0;
	} else {
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (p[mid].gpu_ts <= gpu_ts)
				lo = mid;
			else
				hi = mid;
		}
	}
	return map_on(&p[lo], gpu_ts, (i128) p[lo + 1].cpu_ns - (i128) p[lo].cpu_ns,
		      (i128) p[lo + 1].gpu_ts - (i128) p[lo].gpu_ts);
}

void
fsa_clock_finish(struct clock_state *clock)
{
	struct fsa_clock_fit *fit = &clock->fit;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, n = (double) clock->pair_count;
	double x0, y0, sse = 0, max = 0;

	if (!clock->pair_count)
		return;
	/* Relative to the first pair, subtracted as integers: trace times near 2^60 ns have a
	 * 256 ns step as doubles. */
	x0 = (double) clock->pairs[0].gpu_ts;
	y0 = (double) clock->pairs[0].cpu_ns;
	fit->anchor_gpu_ts = clock->pairs[0].gpu_ts;
	fit->anchor_cpu_ns = clock->pairs[0].cpu_ns;
	for (size_t i = 0; i < clock->pair_count; i++) {
		double x = (double) (int64_t) (clock->pairs[i].gpu_ts - clock->pairs[0].gpu_ts);
		double y = (double) (int64_t) (clock->pairs[i].cpu_ns - clock->pairs[0].cpu_ns);

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	if (clock->pair_count == 1 || n * sxx - sx * sx == 0) {
		fit->ns_per_tick = fit->nominal_hz ? 1e9 / (double) fit->nominal_hz : 1.0;
	} else {
		fit->ns_per_tick = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	}
	{
		double b = fit->ns_per_tick;
		double a_c = (sy - b * sx) / n; /* intercept in centred coordinates */

		for (size_t i = 0; i < clock->pair_count; i++) {
			double x =
			    (double) (int64_t) (clock->pairs[i].gpu_ts - clock->pairs[0].gpu_ts);
			double y =
			    (double) (int64_t) (clock->pairs[i].cpu_ns - clock->pairs[0].cpu_ns);
			double r = y - (a_c + b * x);

			sse += r * r;
			if (fabs(r) > max)
				max = fabs(r);
		}
		fit->offset_ns = y0 + a_c - b * x0;
	}
	fit->residual_rms_ns = sqrt(sse / n);
	fit->residual_max_ns = max;
	/* The counter against its nominal frequency, from the fit: ns_per_tick = 1e9 / true Hz. */
	fit->drift_ppm = clock->pair_count > 1 && fit->nominal_hz && fit->ns_per_tick > 0
			     ? (1e9 / fit->ns_per_tick / (double) fit->nominal_hz - 1.0) * 1e6
			     : 0.0;
}
