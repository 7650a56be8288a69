/* SPDX-License-Identifier: MIT */
/*
 * The enumerations of the fencescope trace contract (docs/trace-format.md), written once.
 *
 * Each enumeration is an X-macro list of (NAME, value) pairs. From one list come both the C
 * enumeration that the runtime passes to a tracepoint (`enum fstp_doorbell_status`, with
 * constants `FSTP_DOORBELL_STATUS_CONNECTED`, ...) and the `lttng_ust_field_enum_value()`
 * mappings that a provider header writes into the trace metadata, so the two can never
 * disagree. This header holds no LTTng types and may be included by plain C code; it is not
 * a provider header (those are fencescope-{umd,os,kmd,hw}.h).
 *
 * The numeric values are part of the contract: a reader may store them. Where the spec's
 * public headers give a value, it is kept; otherwise values are ours and only grow.
 */
#ifndef FENCESCOPE_TP_ENUMS_H
#define FENCESCOPE_TP_ENUMS_H

/* Format version emitted by fencescope_os:trace_info and checked by the analyzer. */
#define FSTP_FORMAT_MAJOR 1
#define FSTP_FORMAT_MINOR 5

/* How the runtime's clocks run: virtual time (discrete events) or CLOCK_MONOTONIC. */
#define FSTP_CLOCK_MODE(X, P)                                                                      \
	X(P, SIM, 0)                                                                               \
	X(P, REALTIME, 1)

/* Engine (node) kinds an adapter reports (UMS-04). */
#define FSTP_ENGINE_TYPE(X, P)                                                                     \
	X(P, GRAPHICS_3D, 0)                                                                       \
	X(P, COMPUTE, 1)                                                                           \
	X(P, COPY, 2)                                                                              \
	X(P, VIDEO, 3)

/* Doorbell models of the adapter (UMS-17, UMS-20). */
#define FSTP_DOORBELL_MODEL(X, P)                                                                  \
	X(P, NONE, 0)                                                                              \
	X(P, GLOBAL, 1)                                                                            \
	X(P, DEDICATED, 2)

/* How a HWQueue takes work (UMS-02). */
#define FSTP_SUBMISSION_MODE(X, P)                                                                 \
	X(P, KERNEL_MODE, 0)                                                                       \
	X(P, USER_MODE, 1)

/* D3DDDI_DOORBELL_STATUS, as the spec's public headers name it. */
#define FSTP_DOORBELL_STATUS(X, P)                                                                 \
	X(P, CONNECTED, 0)                                                                         \
	X(P, CONNECTED_NOTIFY_KMD, 1)                                                              \
	X(P, DISCONNECTED_RETRY, 2)                                                                \
	X(P, DISCONNECTED_ABORT, 3)

/* Why a doorbell was disconnected. */
#define FSTP_DISCONNECT_REASON(X, P)                                                               \
	X(P, VICTIMIZED, 0)                                                                        \
	X(P, ENGINE_F1, 1)                                                                         \
	X(P, DEVICE_D3, 2)                                                                         \
	X(P, TERMINATION, 3)                                                                       \
	X(P, DEVICE_LOST, 4)                                                                       \
	X(P, DESTROY, 5)

/* D3DDDI_NATIVEFENCE_TYPE. */
#define FSTP_FENCE_TYPE(X, P)                                                                      \
	X(P, DEFAULT, 0)                                                                           \
	X(P, INTRA_GPU, 1)

/* DXGK_NATIVE_FENCE_LOG_TYPE: every UMS HWQueue has one log of each (LOG-01). */
#define FSTP_LOG_TYPE(X, P)                                                                        \
	X(P, WAITS, 0)                                                                             \
	X(P, SIGNALS, 1)

/* DXGK_NATIVE_FENCE_LOG_OPERATION: what a log entry records (LOG-07, LOG-08). */
#define FSTP_LOG_OPERATION(X, P)                                                                   \
	X(P, SIGNAL_EXECUTED, 0)                                                                   \
	X(P, WAIT_UNBLOCKED, 1)

/* Why the OS changed the size of a fence log (LOG-04, LOG-20). */
#define FSTP_LOG_RESIZE_REASON(X, P)                                                               \
	X(P, CONFIGURED, 0)                                                                        \
	X(P, TRACING_ENABLED, 1)                                                                   \
	X(P, AFTER_OVERRUN, 2)

/* A fence log entry that breaks the timestamp rules (LOG-09, LOG-21, LOG-22). */
#define FSTP_LOG_ANOMALY(X, P)                                                                     \
	X(P, ZERO_TIMESTAMP, 0)                                                                    \
	X(P, TIMESTAMP_BACKWARDS, 1)                                                               \
	X(P, OBSERVED_AFTER_END, 2)                                                                \
	X(P, UNKNOWN_FENCE, 3)

/* Why the OS scanned the CurrentValue of every fence a device has open (LOG-18, INT-06). */
#define FSTP_SCAN_REASON(X, P)                                                                     \
	X(P, LOG_OVERRUN, 0)                                                                       \
	X(P, NULL_FENCE_ARRAY, 1)                                                                  \
	X(P, NULL_HWQUEUE, 2)

/*
 * Interrupt kinds of the emulated GPU (INT-01, INT-03, INT-04, FST-02, MMU-14; DMA_PREEMPTED
 * and CRTC_VSYNC since format 1.4: PRE-03, PRE-13).
 */
#define FSTP_INTERRUPT_TYPE(X, P)                                                                  \
	X(P, DMA_COMPLETED, 0)                                                                     \
	X(P, NATIVE_FENCE_SIGNALED, 1)                                                             \
	X(P, MONITORED_FENCE_SIGNALED, 2)                                                          \
	X(P, ENGINE_STATE_CHANGE, 3)                                                               \
	X(P, PAGE_FAULT, 4)                                                                        \
	X(P, DMA_PREEMPTED, 5)                                                                     \
	X(P, CRTC_VSYNC, 6)

/* The forms of a native fence signaled interrupt (INT-04, INT-06, INT-11, INT-12). */
#define FSTP_INTERRUPT_FORM(X, P)                                                                  \
	X(P, NOT_FENCE, 0)                                                                         \
	X(P, FENCE_ARRAY, 1)                                                                       \
	X(P, NULL_ARRAY, 2)                                                                        \
	X(P, HWQUEUE, 3)                                                                           \
	X(P, NULL_HWQUEUE, 4)

/* How a CPU waiter waits (NFV-07) and how its wait ended. */
#define FSTP_CPU_WAIT_MODE(X, P)                                                                   \
	X(P, BLOCKING, 0)                                                                          \
	X(P, POLLING, 1)

#define FSTP_CPU_WAIT_RESULT(X, P)                                                                 \
	X(P, SATISFIED, 0)                                                                         \
	X(P, TIMEOUT, 1)                                                                           \
	X(P, DEVICE_LOST, 2)                                                                       \
	X(P, FENCE_DESTROYED, 3)                                                                   \
	X(P, CANCELLED, 4)

/* Engine power states (FST) and device power states (DST). */
#define FSTP_ENGINE_POWER(X, P)                                                                    \
	X(P, F0, 0)                                                                                \
	X(P, F1, 1)

#define FSTP_DEVICE_POWER(X, P)                                                                    \
	X(P, D0, 0)                                                                                \
	X(P, D3, 3)

/* GPU_ENGINE_STATE_CHANGE NewState (FST-02, TDR-03). */
#define FSTP_ENGINE_STATE(X, P)                                                                    \
	X(P, ACTIVE, 0)                                                                            \
	X(P, IDLE, 1)                                                                              \
	X(P, TRANSITION_TO_F1, 2)                                                                  \
	X(P, HUNG, 3)

/* Why the scheduler asked an engine to preempt (PRE, TDR-01). */
#define FSTP_PREEMPT_REASON(X, P)                                                                  \
	X(P, TIME_SLICE, 0)                                                                        \
	X(P, PRIORITY, 1)                                                                          \
	X(P, SUSPEND, 2)                                                                           \
	X(P, TDR, 3)                                                                               \
	X(P, TERMINATION, 4)                                                                       \
	X(P, POWER, 5)

/*
 * Where a preemption stopped the work (PRE-03): D3DKMDT_GRAPHICS_PREEMPTION_GRANULARITY and
 * D3DKMDT_COMPUTE_PREEMPTION_GRANULARITY share their numbering, so one enumeration serves both.
 */
#define FSTP_PREEMPT_GRANULARITY(X, P)                                                             \
	X(P, NONE, 0)                                                                              \
	X(P, DMA_BUFFER_BOUNDARY, 100)                                                             \
	X(P, PRIMITIVE_OR_DISPATCH_BOUNDARY, 200)                                                  \
	X(P, TRIANGLE_OR_THREAD_GROUP_BOUNDARY, 300)                                               \
	X(P, PIXEL_OR_THREAD_BOUNDARY, 400)                                                        \
	X(P, SHADER_BOUNDARY, 500)

/* How a packet left its engine. */
#define FSTP_PACKET_STATUS(X, P)                                                                   \
	X(P, COMPLETED, 0)                                                                         \
	X(P, PREEMPTED, 1)                                                                         \
	X(P, FAULTED, 2)                                                                           \
	X(P, ABORTED, 3)

/* How a process ended (TRM). */
#define FSTP_TERMINATION(X, P)                                                                     \
	X(P, NORMAL, 0)                                                                            \
	X(P, ABNORMAL, 1)

/* A step of a HWQueue's termination (TRM-01, TRM-03; format 1.3). */
#define FSTP_TERMINATION_STEP(X, P)                                                                \
	X(P, DISCONNECT, 0)                                                                        \
	X(P, WAIT_BEGIN, 1)                                                                        \
	X(P, WAIT_END, 2)                                                                          \
	X(P, DESTROY, 3)

/* Why a device was lost or a TDR started (TDR-03, TDR-04, TDR-06). */
#define FSTP_LOSS_REASON(X, P)                                                                     \
	X(P, TIMEOUT, 0)                                                                           \
	X(P, ENGINE_HUNG, 1)                                                                       \
	X(P, PAGE_FAULT, 2)                                                                        \
	X(P, GPU_STOP, 3)                                                                          \
	X(P, TERMINATION, 4)                                                                       \
	X(P, INVALID_COMMAND, 5)

#define FSTP_TDR_RESULT(X, P)                                                                      \
	X(P, ENGINE_RESET, 0)                                                                      \
	X(P, ADAPTER_RESET, 1)                                                                     \
	X(P, FAILED, 2)

/* Memory an allocation lives in (MMU-11). */
#define FSTP_SEGMENT(X, P)                                                                         \
	X(P, SYSTEM, 0)                                                                            \
	X(P, LOCAL, 1)

/* What a GPU page fault hit (MMU-14). */
#define FSTP_FAULT_TYPE(X, P)                                                                      \
	X(P, NOT_MAPPED, 0)                                                                        \
	X(P, READ_ONLY, 1)

/* Whether a GPU access read or wrote memory (MMU-14; format 1.5). */
#define FSTP_ACCESS_KIND(X, P)                                                                     \
	X(P, READ, 0)                                                                              \
	X(P, WRITE, 1)

/* What the OS terminated for a GPU page fault (MMU-14: the context and/or the device). */
#define FSTP_FAULT_SCOPE(X, P)                                                                     \
	X(P, CONTEXT, 0)                                                                           \
	X(P, DEVICE, 1)

/*
 * How a fence object lives on an adapter (XAD-10, XAD-11; format 1.5): a native fence
 * (spec 001) or a regular monitored fence, on an adapter without native fence support.
 */
#define FSTP_FENCE_OBJECT(X, P)                                                                    \
	X(P, NATIVE, 0)                                                                            \
	X(P, MONITORED, 1)

/* A fault the runtime's injector caused (sim mode; format 1.4, docs/robustness.md). */
#define FSTP_FAULT_KIND(X, P)                                                                      \
	X(P, HUNG_ENGINE, 0)                                                                       \
	X(P, IGNORES_PREEMPTION, 1)                                                                \
	X(P, LOST_INTERRUPT, 2)                                                                    \
	X(P, DELAYED_INTERRUPT, 3)                                                                 \
	X(P, CORRUPT_PACKET, 4)                                                                    \
	X(P, PROCESS_KILLED, 5)                                                                    \
	X(P, LOG_OVERRUN_STORM, 6)

/*
 * Result of a runtime call, as carried by fencescope_os:call_failed. The runtime's public
 * status codes use the same values (0 is success, errors are negative).
 */
#define FSTP_STATUS(X, P)                                                                          \
	X(P, OK, 0)                                                                                \
	X(P, INVALID_ARGUMENT, -1)                                                                 \
	X(P, INVALID_HANDLE, -2)                                                                   \
	X(P, DESTROYED, -3)                                                                        \
	X(P, VALUE_REGRESSION, -4)                                                                 \
	X(P, MALFORMED_PACKET, -5)                                                                 \
	X(P, ACCESS_DENIED, -6)                                                                    \
	X(P, NOT_SUPPORTED, -7)                                                                    \
	X(P, NO_RESOURCES, -8)                                                                     \
	X(P, TIMEOUT, -9)                                                                          \
	X(P, DEVICE_LOST, -10)                                                                     \
	X(P, BAD_STATE, -11)

/*
 * The C enumerations. FSTP_ENUM(doorbell_status, DOORBELL_STATUS) declares
 * `enum fstp_doorbell_status` with constants FSTP_DOORBELL_STATUS_<NAME>.
 */
#define FSTP_C_CONSTANT_(prefix, name, value) FSTP_##prefix##_##name = (value),
#define FSTP_ENUM(type, prefix)                                                                    \
	enum fstp_##type                                                                           \
	{                                                                                          \
		FSTP_##prefix(FSTP_C_CONSTANT_, prefix)                                            \
	}

/* Every enumeration of the contract: X(type, PREFIX). */
#define FSTP_ENUMERATIONS(X)                                                                       \
	X(clock_mode, CLOCK_MODE)                                                                  \
	X(engine_type, ENGINE_TYPE)                                                                \
	X(doorbell_model, DOORBELL_MODEL)                                                          \
	X(submission_mode, SUBMISSION_MODE)                                                        \
	X(doorbell_status, DOORBELL_STATUS)                                                        \
	X(disconnect_reason, DISCONNECT_REASON)                                                    \
	X(fence_type, FENCE_TYPE)                                                                  \
	X(log_type, LOG_TYPE)                                                                      \
	X(log_operation, LOG_OPERATION)                                                            \
	X(log_resize_reason, LOG_RESIZE_REASON)                                                    \
	X(log_anomaly, LOG_ANOMALY)                                                                \
	X(scan_reason, SCAN_REASON)                                                                \
	X(interrupt_type, INTERRUPT_TYPE)                                                          \
	X(interrupt_form, INTERRUPT_FORM)                                                          \
	X(cpu_wait_mode, CPU_WAIT_MODE)                                                            \
	X(cpu_wait_result, CPU_WAIT_RESULT)                                                        \
	X(engine_power, ENGINE_POWER)                                                              \
	X(device_power, DEVICE_POWER)                                                              \
	X(engine_state, ENGINE_STATE)                                                              \
	X(preempt_reason, PREEMPT_REASON)                                                          \
	X(preempt_granularity, PREEMPT_GRANULARITY)                                                \
	X(packet_status, PACKET_STATUS)                                                            \
	X(termination, TERMINATION)                                                                \
	X(termination_step, TERMINATION_STEP)                                                      \
	X(loss_reason, LOSS_REASON)                                                                \
	X(tdr_result, TDR_RESULT)                                                                  \
	X(segment, SEGMENT)                                                                        \
	X(fault_type, FAULT_TYPE)                                                                  \
	X(fault_kind, FAULT_KIND)                                                                  \
	X(access_kind, ACCESS_KIND)                                                                \
	X(fault_scope, FAULT_SCOPE)                                                                \
	X(fence_object, FENCE_OBJECT)                                                              \
	X(status, STATUS)

#define FSTP_ENUM_DECLARE_(type, prefix) FSTP_ENUM(type, prefix);
FSTP_ENUMERATIONS(FSTP_ENUM_DECLARE_)

/* The trace metadata mappings, for provider headers: FSTP_TP_ENUM_VALUES(DOORBELL_STATUS). */
#define FSTP_TP_ENUM_VALUE_(prefix, name, value) lttng_ust_field_enum_value(#name, value)
#define FSTP_TP_ENUM_VALUES(prefix)                                                                \
	LTTNG_UST_TP_ENUM_VALUES(FSTP_##prefix(FSTP_TP_ENUM_VALUE_, prefix))

#endif /* FENCESCOPE_TP_ENUMS_H */
