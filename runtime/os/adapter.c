/* SPDX-License-Identifier: MIT */
/*
 * Adapters as the OS adds and removes them. The OS knows its driver only by the DDI table the
 * driver's DriverEntry filled (common/driver-interface-private.h): adding an adapter hands the
 * driver the OS's callback table (DxgkDdiAddAdapter), asks it for its user-mode submission caps
 * (DxgkDdiQueryAdapterInfo), to describe each engine and to calibrate the GPU clock, then
 * connects the GPU's interrupt line to the driver's interrupt routine (DxgkDdiStartDevice).
 * fsr_adapter_create_with_ddi takes any table, so that a test can hand the OS another driver.
 */
#include <stdlib.h>

#include "os/os-private.h"

static const struct dxgk_callbacks os_callbacks = {
    .DxgkCbNotifyInterrupt = os_notify_interrupt,
    .DxgkCbReleasePacketFence = os_release_packet_fence,
    .DxgkCbDisconnectDoorbell = os_disconnect_doorbell_cb,
};

static bool
is_power_of_two(uint32_t value)
{
	return value && !(value & (value - 1));
}

/* PRE-03: a granularity the emulated GPU knows (0: the default). */
static bool
is_granularity_valid(enum fsr_preempt_granularity granularity)
{
	switch (granularity) {
	case FSR_PREEMPT_DEFAULT:
	case FSR_PREEMPT_DMA_BUFFER_BOUNDARY:
	case FSR_PREEMPT_PRIMITIVE_OR_DISPATCH_BOUNDARY:
	case FSR_PREEMPT_TRIANGLE_OR_THREAD_GROUP_BOUNDARY:
	case FSR_PREEMPT_PIXEL_OR_THREAD_BOUNDARY:
	case FSR_PREEMPT_SHADER_BOUNDARY:
		return true;
	}
	return false;
}

/* The configuration's user-mode submission fields, as the emulated GPU can have them. */
static bool
is_ums_config_valid(const struct fsr_adapter_config *config)
{
	uint32_t engines_mask = (uint32_t) ((UINT64_C(1) << config->engine_count) - 1);

	if ((config->engines_without_user_mode_submission | config->doorbell_notify_kmd_engines) &
	    ~engines_mask)
		return false;
	if (config->doorbell_size_bytes && (!is_power_of_two(config->doorbell_size_bytes) ||
					    config->doorbell_size_bytes < FSR_MIN_DOORBELL_BYTES ||
					    config->doorbell_size_bytes > FSR_MAX_DOORBELL_BYTES))
		return false;
	switch (config->doorbell_model) {
	case FSR_DOORBELL_NONE:
	case FSR_DOORBELL_GLOBAL:
		return config->physical_doorbells <= 1;
	case FSR_DOORBELL_DEDICATED:
		return config->physical_doorbells <= FSR_MAX_PHYSICAL_DOORBELLS;
	}
	return false;
}

static void
set_ums_defaults(struct fsr_adapter_config *config)
{
	if (!config->doorbell_model)
		config->doorbell_model = FSR_DOORBELL_GLOBAL;
	if (!config->physical_doorbells)
		config->physical_doorbells = config->doorbell_model == FSR_DOORBELL_GLOBAL ? 1 : 16;
	if (!config->doorbell_size_bytes)
		config->doorbell_size_bytes = FSR_MIN_DOORBELL_BYTES;
}

/* Caps the OS can make doorbells with: a size it can map, one global or a few dedicated ones. */
static bool
are_ums_caps_usable(const struct dxgk_usermodesubmission_caps *caps)
{
	if (caps->doorbell_model == FSR_DOORBELL_NONE)
		return true;
	if (!is_power_of_two(caps->doorbell_size_bytes) ||
	    caps->doorbell_size_bytes < FSR_MIN_DOORBELL_BYTES ||
	    caps->doorbell_size_bytes > FSR_MAX_DOORBELL_BYTES)
		return false;
	if (caps->doorbell_model == FSR_DOORBELL_GLOBAL)
		return caps->physical_doorbells == 1;
	return caps->doorbell_model == FSR_DOORBELL_DEDICATED && caps->physical_doorbells >= 1 &&
	       caps->physical_doorbells <= FSR_MAX_PHYSICAL_DOORBELLS;
}

/*
 * DxgkDdiQueryAdapterInfo(DXGKQAITYPE_USERMODESUBMISSION_CAPS), UMS-06: the OS needs the doorbell
 * size for the dummy page and the physical mapping. Caps that make no sense (or no answer) are
 * the driver's bad input: refused with call_failed, and the adapter then takes no user-mode
 * queue (UMS-05), the rest of it working.
 */
static void
query_ums_caps(struct fsr_adapter *adapter)
{
	struct dxgk_usermodesubmission_caps caps = {0};

	if (adapter->ddi.DxgkDdiQueryAdapterInfo(
		adapter->miniport, DXGKQAITYPE_USERMODESUBMISSION_CAPS, &caps, sizeof(caps)) != 0 ||
	    !are_ums_caps_usable(&caps)) {
		rt_refuse(adapter->runtime, 0, "QueryAdapterInfo", adapter->id,
			  FSR_ERR_NOT_SUPPORTED);
		caps = (struct dxgk_usermodesubmission_caps){0};
	}
	/*
	 * XAD-17: user-mode queues need native fences: an adapter without them takes kernel-mode
	 * queues only.
	 */
	if (caps.doorbell_model == FSR_DOORBELL_NONE || adapter->config.no_native_fences)
		caps = (struct dxgk_usermodesubmission_caps){0};
	adapter->ums_caps = caps;
}

fsr_status
fsr_adapter_create_with_ddi(struct fsr_runtime *runtime, const struct fsr_adapter_config *config,
			    const struct dxgk_ddi *ddi, uint32_t *adapter_id)
{
	struct fsr_adapter *adapter = NULL;
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (!config || !ddi || !adapter_id || config->engine_count == 0 ||
	    config->engine_count > FSR_MAX_ENGINES) {
		status = rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	for (uint32_t e = 0; e < config->engine_count; e++) {
		if (config->engine_types[e] > FSR_ENGINE_COPY ||
		    !is_granularity_valid(config->graphics_preempt_granularity[e]) ||
		    !is_granularity_valid(config->compute_preempt_granularity[e])) {
			status =
			    rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_INVALID_ARGUMENT);
			goto end;
		}
	}
	/*
	 * A counter of at least 1 kHz that drifts by less than 100% (so it runs), and logs small
	 * enough to grow 16 times (LOG-20) within 32 bits: outside that, times overflow.
	 */
	if ((config->gpu_ts_frequency_hz && (config->gpu_ts_frequency_hz < FSR_MIN_GPU_HZ ||
					     config->gpu_ts_frequency_hz > FSR_MAX_GPU_HZ)) ||
	    config->gpu_ts_drift_ppm <= -1000000 || config->gpu_ts_drift_ppm >= 1000000 ||
	    config->log_capacity_entries > FSR_MAX_LOG_ENTRIES ||
	    config->interrupt_coalesce_ns > FSR_MAX_INTERRUPT_COALESCE_NS ||
	    config->engine_idle_to_f1_ns > FSR_MAX_ENGINE_IDLE_TO_F1_NS ||
	    config->display_count > FSR_MAX_DISPLAYS ||
	    (config->vsync_period_ns && (config->vsync_period_ns < FSR_MIN_VSYNC_PERIOD_NS ||
					 config->vsync_period_ns > FSR_MAX_VSYNC_PERIOD_NS)) ||
	    config->context_allocation_bytes > (UINT64_C(1) << 32) ||
	    (config->interrupt_form && (config->interrupt_form < FSR_INTERRUPT_FENCE_ARRAY ||
					config->interrupt_form > FSR_INTERRUPT_HWQUEUE)) ||
	    !is_ums_config_valid(config)) {
		status = rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_INVALID_ARGUMENT);
		goto end;
	}
	if (runtime->adapter_count == FSR_MAX_ADAPTERS) {
		status = rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_NO_RESOURCES);
		goto end;
	}
	adapter = calloc(1, sizeof(*adapter));
	if (!adapter) {
		status = FSR_ERR_NO_RESOURCES;
		goto end;
	}
	adapter->runtime = runtime;
	adapter->id = runtime->adapter_count;
	adapter->config = *config;
	if (!adapter->config.gpu_ts_frequency_hz)
		adapter->config.gpu_ts_frequency_hz = 100000000u;
	if (!adapter->config.log_capacity_entries)
		adapter->config.log_capacity_entries = FSR_DEFAULT_LOG_SIZE / FSR_LOG_ENTRY_BYTES;
	if (!adapter->config.interrupt_form)
		adapter->config.interrupt_form = FSR_INTERRUPT_FENCE_ARRAY;
	if (!adapter->config.vsync_period_ns)
		adapter->config.vsync_period_ns = FSR_DEFAULT_VSYNC_PERIOD_NS;
	if (!adapter->config.scheduling_period_ns)
		adapter->config.scheduling_period_ns = 100000;
	set_ums_defaults(&adapter->config);
	if (!adapter->config.tdr_delay_ns)
		adapter->config.tdr_delay_ns = FSR_DEFAULT_TDR_DELAY_NS;
	if (!adapter->config.tdr_preempt_timeout_ns)
		adapter->config.tdr_preempt_timeout_ns = FSR_DEFAULT_TDR_PREEMPT_TIMEOUT_NS;
	adapter->ddi = *ddi;
	if (os_tdr_init(adapter) != FSR_OK ||
	    adapter->ddi.DxgkDdiAddAdapter(adapter, &os_callbacks, &adapter->miniport) != 0) {
		os_tdr_fini(adapter);
		free(adapter);
		status = rt_refuse(runtime, 0, "CreateAdapter", 0, FSR_ERR_NO_RESOURCES);
		goto end;
	}
	runtime->adapters[runtime->adapter_count++] = adapter;
	query_ums_caps(adapter);
	FSR_TRACE(runtime, fencescope_os, adapter_create, adapter->id, config->engine_count,
		  adapter->ums_caps.physical_doorbells, (int) adapter->ums_caps.doorbell_model,
		  adapter->config.gpu_ts_frequency_hz, !adapter->config.no_native_fences,
		  adapter->config.interrupt_form == FSR_INTERRUPT_HWQUEUE);
	for (uint32_t e = 0; e < config->engine_count; e++)
		adapter->ddi.DxgkDdiDescribeEngine(adapter->miniport, e, &adapter->engine_caps[e]);
	adapter->ddi.DxgkDdiCalibrateGpuClock(adapter->miniport, rt_clock_now(runtime));
	os_displays_init(adapter); /* PRE-13: FlipOnVSyncMmIo */
	*adapter_id = adapter->id;
end:
	rt_unlock(runtime);
	/*
	 * Outside the lock, as the engines join the clock (in realtime mode they start running):
	 * the OS connects the GPU's interrupt line to the driver's interrupt routine.
	 */
	if (status == FSR_OK)
		adapter->ddi.DxgkDdiStartDevice(adapter->miniport,
						adapter->ddi.DxgkDdiInterruptRoutine);
	return status;
}

fsr_status
fsr_adapter_read_gpu_ts(struct fsr_runtime *runtime, uint32_t adapter_id, uint64_t *gpu_ts)
{
	fsr_status status = FSR_OK;

	rt_lock(runtime);
	if (adapter_id >= runtime->adapter_count || !gpu_ts)
		status = FSR_ERR_INVALID_ARGUMENT;
	else
		*gpu_ts = runtime->adapters[adapter_id]->ddi.DxgkDdiReadGpuTimestamp(
		    runtime->adapters[adapter_id]->miniport, rt_clock_now(runtime));
	rt_unlock(runtime);
	return status;
}

fsr_status
fsr_adapter_query_ums_caps(struct fsr_runtime *runtime, uint32_t adapter_id,
			   struct fsr_ums_caps *caps)
{
	fsr_status status = FSR_OK;

	if (!runtime)
		return FSR_ERR_INVALID_ARGUMENT;
	rt_lock(runtime);
	if (adapter_id >= runtime->adapter_count || !caps) {
		status =
		    rt_refuse(runtime, 0, "QueryAdapterInfo", adapter_id, FSR_ERR_INVALID_ARGUMENT);
	} else {
		const struct fsr_adapter *adapter = runtime->adapters[adapter_id];

		*caps = (struct fsr_ums_caps){
		    .doorbell_model = adapter->ums_caps.doorbell_model,
		    .physical_doorbells = adapter->ums_caps.physical_doorbells,
		    .doorbell_size_bytes = adapter->ums_caps.doorbell_size_bytes,
		};
		for (uint32_t e = 0; e < adapter->config.engine_count; e++)
			if (adapter->engine_caps[e].supports_user_mode_submission)
				caps->user_mode_submission_engines |= UINT32_C(1) << e;
	}
	rt_unlock(runtime);
	return status;
}

void
os_adapters_remove(struct fsr_runtime *runtime)
{
	/*
	 * A last clock pair once the engines have stopped: every GPU time of the run then lies
	 * between two pairs and maps by interpolation, never by extrapolating a drifting counter
	 * past the last periodic pair (docs/trace-format.md "GPU time to trace time").
	 */
	rt_lock(runtime);
	for (uint32_t i = 0; i < runtime->adapter_count; i++)
		runtime->adapters[i]->ddi.DxgkDdiCalibrateGpuClock(runtime->adapters[i]->miniport,
								   rt_clock_now(runtime));
	rt_unlock(runtime);
	for (uint32_t i = 0; i < runtime->adapter_count; i++) {
		struct fsr_adapter *adapter = runtime->adapters[i];

		adapter->ddi.DxgkDdiRemoveAdapter(adapter->miniport);
		os_tdr_fini(adapter);
		os_displays_fini(adapter);
		os_paging_queues_free(adapter);
		free(adapter);
	}
	/* Interrupts the OS never handled: their DMA packets are the OS's to free. */
	while (runtime->interrupts_head) {
		struct hw_interrupt *interrupt = runtime->interrupts_head;

		runtime->interrupts_head = interrupt->next;
		free(interrupt->packet);
		free(interrupt);
	}
}
