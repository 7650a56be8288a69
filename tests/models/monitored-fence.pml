/* SPDX-License-Identifier: MIT */
/*
 * The MonitoredValue / CurrentValue / interrupt exchange of a native fence (spec 001,
 * "Synchronization issues"), as the reference runtime implements it, under a weak memory model,
 * for spin. It is what is left of runtime/hw/engine.c (a GPU signal), runtime/kmd/kmd.c
 * (kmd_update_monitored_value), runtime/os/fence.c (os_fence_wait, os_fence_release_waiters)
 * and runtime/os/interrupt.c (the fence-array interrupt handler, read_log) once everything that
 * does not touch the shared words is taken away. It is not a model of queues, scheduling, time
 * or handles: one fence, one signals log, one GPU engine, N_WAITERS blocking CPU waiters.
 *
 * The property is SYN-06, no lost wake-up: once nothing can move any more, every CPU waiter whose
 * value is at most CurrentValue has been released. Along the way: a waiter is never released
 * before CurrentValue reaches its value (NFV-07), and every log entry below FirstFreeEntryIndex
 * that the OS reads is the one the GPU wrote (SYN-08, SYN-10).
 *
 * Memory. A store goes into its writer's store buffer and reaches memory later, when the
 * buffer drains, which the processes gpu_memory and os_memory do nondeterministically; a load
 * reads memory, or the writer's own latest store (store forwarding). That is the store-
 * buffering pattern of the exchange: the GPU stores CurrentValue then loads MonitoredValue, the
 * OS stores MonitoredValue then loads CurrentValue, and without a full fence on a side both
 * loads may read the old values. The GPU keeps one FIFO buffer per word (CurrentValue,
 * FirstFreeEntryIndex, the log entries), so its stores to different words may land in any order
 * (as on PSO or weaker); the OS stores one word, MonitoredValue, through a FIFO buffer (TSO). A
 * full fence waits until its side's buffers are empty. The OS's two actors, a waiter
 * registering and the interrupt handler, run under one lock (the device interrupt level,
 * SYN-03) and are modelled as one CPU with one store buffer.
 *
 * Also abstracted: values are small bytes (NONE stands for UINT64_MAX); the GPU raises the
 * interrupt in the step that reads MonitoredValue, and a second interrupt raised before the OS
 * took the first collapses into it (the weaker assumption for the property); the OS handles the
 * fence-array form only; CPU signals (UpdateCurrentValuesFromCpu), GPU waits, timeouts and
 * several fences or queues are not modelled. Steps that only touch the OS's private state under
 * its lock (scanning the waiter list, copying log entries after the barrier) are one d_step
 * each, which removes interleavings no other process can observe.
 *
 * Variants (spin -D..., one model): each removes one step the rules ask for, and spin must then
 * find the violation (tests/models/meson.build):
 *   OMIT_OS_FENCE     no full fence between the store of MonitoredValue and the resample (SYN-04)
 *   OMIT_GPU_FENCE    no full fence between the GPU's writes and its load of MonitoredValue (SYN-09)
 *   READ_MV_FIRST     the GPU loads MonitoredValue before writing CurrentValue and the log (SYN-09)
 *   OMIT_RESAMPLE     the OS does not resample CurrentValue after UpdateMonitoredValues (SYN-05)
 *   OMIT_LOG_BARRIER  the OS reads log entries without the UpdateNativeFenceLogs barrier (SYN-10)
 */

#ifndef N_SIGNALS
#define N_SIGNALS 3 /* the GPU signals 1, 2, ... N_SIGNALS */
#endif
#ifndef N_WAITERS
#define N_WAITERS 2 /* each waits for a value in 1 .. N_SIGNALS, chosen nondeterministically */
#endif
#define NONE 255      /* MonitoredValue with no waiter: UINT64_MAX (NFV-05) */
#define OS_SB_DEPTH 2 /* a full store buffer stalls its writer until it drains */

/* ---- Memory: what every agent reads once a store has drained. ---------------------------- */
byte current_value = 0;       /* CurrentValue: written by the GPU only (no CPU signal here) */
byte monitored_value = NONE;  /* MonitoredValue: written by the OS (through the KMD) only */
byte first_free_entry = 0;    /* FirstFreeEntryIndex of the signals log */
byte log_entry[N_SIGNALS];    /* FenceValue of each log entry; 0 = not written yet */

/* ---- Store buffers ----------------------------------------------------------------------- */
chan gpu_sb_current = [N_SIGNALS] of { byte };
chan gpu_sb_first_free = [N_SIGNALS] of { byte };
chan gpu_sb_log = [N_SIGNALS] of { byte, byte }; /* slot, FenceValue */
chan os_sb_monitored = [OS_SB_DEPTH] of { byte };
byte os_monitored = NONE; /* the OS's own latest store of MonitoredValue (store forwarding) */

/* ---- Interrupt line and the OS's state ------------------------------------------------- */
bool irq = false;     /* the native fence signaled interrupt; raising it twice collapses */
bool os_lock = false; /* device interrupt level: waiter registration and ISR serialized */
byte wait_value[N_WAITERS];
bool is_waiting[N_WAITERS];  /* in the fence's list of outstanding CPU waiters */
bool is_released[N_WAITERS];
byte started = 0;            /* N_WAITERS once init has started every waiter */
byte os_log_position = 0;    /* where the OS read the log up to (queue->os_log_position) */

#define GPU_SB_EMPTY                                                                    \
	(len(gpu_sb_current) == 0 && len(gpu_sb_first_free) == 0 && len(gpu_sb_log) == 0)
#define OS_SB_EMPTY (len(os_sb_monitored) == 0)

/* The GPU's buffers drain one store at a time, a word at a time, in any order across words. */
active proctype gpu_memory()
{
	byte value, slot;
end:
	do
	:: atomic { gpu_sb_current?value -> current_value = value }
	:: atomic { gpu_sb_first_free?value -> first_free_entry = value }
	:: atomic { gpu_sb_log?slot, value -> log_entry[slot] = value }
	od
}

active proctype os_memory()
{
	byte value;
end:
	do
	:: atomic { os_sb_monitored?value -> monitored_value = value }
	od
}

/*
 * A GPU signal of value n with logging, in SYN-09's order (engine.c run_queue and
 * signal_interrupt_check): write CurrentValue = n, write the log entry, increment
 * FirstFreeEntryIndex, full barrier, read MonitoredValue, raise the interrupt iff n > it (INT-02).
 */
active proctype gpu()
{
	byte n = 1;
	byte monitored;

	do
	:: n <= N_SIGNALS ->
#ifdef READ_MV_FIRST
		monitored = monitored_value;
#endif
		gpu_sb_current!n;
		gpu_sb_log!n - 1, n;
		gpu_sb_first_free!n;
#ifndef OMIT_GPU_FENCE
		GPU_SB_EMPTY; /* SYN-09: the full barrier */
#endif
		/* The interrupt is raised the instant the GPU decides it (INT-02). */
		d_step {
#ifndef READ_MV_FIRST
			monitored = monitored_value;
#endif
			if
			:: n > monitored -> irq = true
			:: else -> skip
			fi;
			monitored = 0;
			n++
		}
	:: else -> break
	od
}

/*
 * os_fence_release_waiters (NFV-09, NFV-04, SYN-05): release every waiter the CurrentValue read
 * satisfies, move MonitoredValue to the least value still waited for minus one (NONE without
 * waiters) through kmd_update_monitored_value (store, full fence, resample: SYN-01, SYN-04), and
 * go round again while the resampled value releases someone.
 */
inline release_waiters()
{
	seen = current_value;
	do
	:: true ->
		/* Under the lock only the OS touches the list: one step for the scan. */
		d_step {
			k = 0;
			least = NONE;
			do
			:: k < N_WAITERS ->
				if
				:: is_waiting[k] && wait_value[k] <= seen ->
					assert(wait_value[k] <= current_value); /* NFV-07: never early */
					is_waiting[k] = false;
					is_released[k] = true
				:: is_waiting[k] && wait_value[k] > seen && wait_value[k] - 1 < least ->
					least = wait_value[k] - 1
				:: else -> skip
				fi;
				k++
			:: else -> break
			od;
			k = 0
		};
		if
		:: least == os_monitored -> break
		:: else ->
			os_sb_monitored!least; /* kmd_update_monitored_value */
			os_monitored = least;
#ifndef OMIT_OS_FENCE
			OS_SB_EMPTY; /* SYN-04: the full fence */
#endif
#ifdef OMIT_RESAMPLE
			break
#else
			seen = current_value /* SYN-05: resample */
#endif
		fi
	od
}

/*
 * read_log (SYN-10): read FirstFreeEntryIndex; if it moved, let the KMD put its barrier
 * (UpdateNativeFenceLogs: the GPU commits its log writes), then read the new entries.
 */
inline read_log()
{
	first_free = first_free_entry;
	if
	:: first_free != os_log_position ->
#ifndef OMIT_LOG_BARRIER
		len(gpu_sb_log) == 0; /* kmd_update_native_fence_logs */
#endif
		d_step {
			k = os_log_position;
			do
			:: k < first_free ->
				assert(log_entry[k] == k + 1); /* SYN-08, SYN-10: the entry the GPU wrote */
				k++
			:: else -> break
			od;
			os_log_position = first_free;
			first_free = 0;
			k = 0
		}
	:: else -> skip
	fi
}

/* The fence-array form of the interrupt (interrupt.c handle_interrupt): waiters, then logs. */
active proctype interrupt_handler()
{
	byte seen, least, first_free, k;
end:
	do
	:: atomic { irq && !os_lock -> irq = false; os_lock = true };
		release_waiters();
		read_log();
		os_lock = false
	od
}

/*
 * A blocking CPU wait (os_fence_wait): already reached, or join the list and let
 * os_fence_release_waiters move MonitoredValue and resample; then sleep until released.
 */
proctype waiter(byte id)
{
	byte seen, least, k;

	atomic { !os_lock -> os_lock = true };
	if
	:: current_value >= wait_value[id] -> is_released[id] = true
	:: else ->
		is_waiting[id] = true; /* NFV-06 */
		release_waiters()
	fi;
	os_lock = false;
	is_released[id] /* asleep; never at an end label: a waiter left asleep is an error too */
}

/*
 * The waiters' values, 1 .. N_SIGNALS each, in every combination; in non-decreasing order only,
 * which loses no behaviour since the waiters are interchangeable and all start at once.
 */
init
{
	byte i = 0, value = 1;

	atomic {
		do
		:: i < N_WAITERS ->
			do
			:: value < N_SIGNALS -> value++
			:: break
			od;
			wait_value[i] = value;
			i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < N_WAITERS -> run waiter(i); i++
		:: else -> break
		od;
		started = N_WAITERS;
		i = 0;
		value = 0
	}
}

/*
 * SYN-06 at quiescence: timeout is executable only when nothing else is, that is when the GPU
 * has finished, every buffer has drained and no interrupt is pending. Every waiter whose value
 * CurrentValue has reached must have been released by then, and MonitoredValue must be the
 * least value still waited for minus one, NONE without waiters (NFV-04, NFV-05).
 */
active proctype quiescence()
{
	byte i = 0, least = NONE;

end:
	timeout ->
	assert(started == N_WAITERS);
	do
	:: i < N_WAITERS ->
		assert(wait_value[i] > current_value || is_released[i]); /* SYN-06 */
		if
		:: is_waiting[i] && wait_value[i] - 1 < least -> least = wait_value[i] - 1
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	assert(monitored_value == least) /* NFV-04, NFV-05 */
}
