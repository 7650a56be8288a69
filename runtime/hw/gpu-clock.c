/* SPDX-License-Identifier: MIT */
/*
 * The GPU's timestamp counter: its value at a CPU instant (frequency, offset and drift of the
 * adapter's configuration) and its ticks in nanoseconds. A leaf of hw/, so that the engines and
 * the doorbells can both date what they do; not the clock the runtime runs on (common/clock.c).
 */
#include "hw/hw-private.h"

__extension__ typedef unsigned __int128 rt_u128;

static uint64_t
effective_hz(const struct fsr_adapter *adapter)
{
	int64_t drift = (int64_t) adapter->config.gpu_ts_frequency_hz *
			adapter->config.gpu_ts_drift_ppm / 1000000;

	return (uint64_t) ((int64_t) adapter->config.gpu_ts_frequency_hz + drift);
}

uint64_t
hw_gpu_ts(struct fsr_adapter *adapter, uint64_t cpu_ns)
{
	return adapter->config.gpu_ts_offset +
	       (uint64_t) ((rt_u128) cpu_ns * effective_hz(adapter) / 1000000000u);
}

uint64_t
hw_ticks_to_ns(struct fsr_adapter *adapter, uint64_t ticks)
{
	return (uint64_t) ((rt_u128) ticks * 1000000000u / effective_hz(adapter));
}
