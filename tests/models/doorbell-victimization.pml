/* SPDX-License-Identifier: MIT */
/*
 * Dedicated-doorbell victimization with concurrent rings (spec 000, the 0xfeedfeee walk-through),
 * as docs/runtime.md "User-mode submission (design)" plans it, for spin. N_QUEUES user-mode
 * HWQueues share N_PHYSICAL < N_QUEUES physical doorbells; each queue's UMD submits N_SUBMITS
 * times, concurrently with the others, and reconnects on DISCONNECTED_RETRY; ConnectDoorbell
 * victimizes the least recently used connected queue in the spec's order (UMS-22, UMS-23); a
 * command processor services the rings. It is not a model of rings' contents, engines, time,
 * suspend or power states: only the words the protocol shares and the order of its steps.
 *
 * The words (sequentially consistent here: each is one atomic 64-bit word in the runtime, read
 * and written seq_cst, so the weak-memory side is not what this model checks):
 *   write_ptr[q]  the ring control's write pointer: the UMD advances it, then rings
 *   status[q]     the doorbell status word: written by the OS only, read by the UMD after a ring
 *   mapping[q]    DoorbellCpuVirtualAddress: the dummy page or a physical doorbell; the OS
 *                 rotates it. A ring loads it and stores through it in two steps, so a ring can
 *                 land on the physical doorbell an instant after the rotation (a stale ring).
 *   owner[p]      the hardware's table: the queue physical doorbell p is connected to (the KMD
 *                 programs it); `rings` holds the rings that landed and wait for service.
 *   fetched[q]    the write pointer the command processor has taken: it runs queue q's work up
 *                 to there and no further.
 *
 * Checked:
 *   UMS-21  at every moment, a queue's doorbell mapping names the dummy page or a physical
 *           doorbell connected to that queue, and the KMD gives a physical doorbell to at most
 *           one queue (no physical doorbell serves two queues at once);
 *   UMS-13  the command processor never takes a write pointer beyond the queue's own;
 *   UMS-15  at quiescence (spin's timeout: every UMD has finished, every ring is serviced),
 *           every queue's work was taken up to its write pointer: no submission is lost;
 *   UMS-14  a UMD that reads CONNECTED after its ring rang a physical doorbell, not the dummy page;
 *   UMS-22  the victim is never the connecting queue (it is the least recently used one by
 *           construction: the last ConnectDoorbell, the KMD's own view; it does not see rings).
 *
 * Variants (spin -D..., one model), each breaking one step of the design; spin must find the
 * violation (tests/models/meson.build):
 *   CONNECT_BEFORE_DISCONNECT  the KMD connects the new queue before disconnecting the victim
 *                              (against UMS-23's order): a doorbell serves two queues
 *   NO_FETCH_ON_CONNECT        a connect does not take the write pointer: work written while
 *                              disconnected waits for a ring that never comes (UMS-15)
 *   NO_FETCH_ON_DISCONNECT     a disconnect drops the victim without taking its write pointer:
 *                              a ring that landed but was not serviced is lost, though its UMD
 *                              read CONNECTED
 *   TRUST_RING_VALUE           the command processor fetches up to the value rung, not the
 *                              ring control's write pointer: a stale ring makes it run past the
 *                              new owner's write pointer
 *   ROTATE_BEFORE_STATUS       the OS rotates the victim's mapping before writing RETRY: a ring
 *                              into the dummy page can read CONNECTED (UMS-14). No work is lost
 *                              (the disconnect's fetch takes it), which the model shows too: the
 *                              order is needed for UMS-14, the fetch for UMS-15
 */

#ifndef N_QUEUES
#define N_QUEUES 3
#endif
#ifndef N_PHYSICAL
#define N_PHYSICAL 2
#endif
#ifndef N_SUBMITS
#define N_SUBMITS 2
#endif
#define NONE 255  /* no queue, no physical doorbell */
#define DUMMY 254 /* mapping: the doorbell's dummy page */

/* D3DDDI_DOORBELL_STATUS (only the two the protocol uses here) */
#define CONNECTED 0
#define RETRY 2

byte write_ptr[N_QUEUES];
byte status[N_QUEUES] = RETRY;  /* CreateDoorbell: RETRY (UMS-09) */
byte mapping[N_QUEUES] = DUMMY; /* CreateDoorbell: the dummy page (UMS-08) */
byte fetched[N_QUEUES];

byte owner[N_PHYSICAL] = NONE;
/*
 * The rings that landed on physical doorbells and that the command processor has not serviced
 * yet: {physical doorbell, value rung}, in landing order.
 */
chan rings = [N_QUEUES * N_SUBMITS] of { byte, byte };

/* The KMD's bookkeeping: each queue's physical doorbell, and its last use (LRU). */
byte kmd_physical[N_QUEUES] = NONE; /* none assigned at creation (UMS-09) */
byte last_use[N_QUEUES];
byte use_clock = 0;

bool os_lock = false; /* ConnectDoorbell runs under the OS's lock: connects are serialized */
byte finished = 0;    /* UMDs done submitting */

/* Takes queue q's write pointer (the command processor reads the ring control word). */
#define FETCH(q) fetched[q] = write_ptr[q]

/*
 * DxgkCbDisconnectDoorbell then the KMD's hardware disconnect (UMS-23 a and b): the OS writes
 * RETRY and rotates the victim's mapping to its dummy page, returns; the KMD disconnects the
 * physical doorbell, the command processor taking the victim's write pointer first.
 */
inline disconnect_victim(v, p)
{
#ifdef ROTATE_BEFORE_STATUS
	mapping[v] = DUMMY;
	status[v] = RETRY;
#else
	status[v] = RETRY;
	mapping[v] = DUMMY;
#endif
	atomic {
#ifndef NO_FETCH_ON_DISCONNECT
		FETCH(v);
#endif
		owner[p] = NONE;
		kmd_physical[v] = NONE
	}
}

/* The KMD's hardware connect (UMS-23 c): the command processor takes the write pointer. */
inline connect_physical(q, p)
{
	atomic {
		owner[p] = q;
#ifndef NO_FETCH_ON_CONNECT
		FETCH(q);
#endif
		kmd_physical[q] = p
	}
}

/*
 * ConnectDoorbell for queue q, under the OS's lock: DxgkDdiConnectDoorbell (already connected:
 * mark it used; a free physical doorbell; or victimize the least recently used connected queue,
 * never q), then the OS rotates q's mapping to the physical doorbell and writes CONNECTED
 * (UMS-12, UMS-24).
 */
inline connect_doorbell(q)
{
	atomic { !os_lock -> os_lock = true };
	if
	:: kmd_physical[q] != NONE ->
		use_clock++;
		last_use[q] = use_clock
	:: else ->
		/* The KMD's choice: one step, it only reads its own bookkeeping. */
		d_step {
			p = 0;
			do
			:: p < N_PHYSICAL && owner[p] != NONE -> p++
			:: else -> break
			od;
			victim = NONE;
			if
			:: p == N_PHYSICAL ->
				k = 0;
				do
				:: k < N_QUEUES ->
					if
					:: k != q && kmd_physical[k] != NONE &&
					   (victim == NONE || last_use[k] < last_use[victim]) -> victim = k
					:: else -> skip
					fi;
					k++
				:: else -> break
				od;
				p = kmd_physical[victim]
			:: else -> skip
			fi;
			k = 0
		};
		if
		:: victim != NONE ->
			assert(victim != q); /* UMS-22: never the connecting queue */
#ifdef CONNECT_BEFORE_DISCONNECT
			connect_physical(q, p);
			disconnect_victim(victim, p)
#else
			disconnect_victim(victim, p);
			connect_physical(q, p)
#endif
		:: else ->
			connect_physical(q, p)
		fi;
		use_clock++;
		last_use[q] = use_clock;
		mapping[q] = p
	fi;
	status[q] = CONNECTED;
	os_lock = false
}

/*
 * A UMD submitting on queue q (the spec's sequence, less the progress fence): advance the write
 * pointer, ring (load the mapping, store the write pointer through it: a store to the dummy
 * page reaches nothing, UMS-14), read the status, reconnect on RETRY (UMS-15: the connect
 * fetches, no second ring).
 */
proctype umd(byte q)
{
	byte n = 0, m, p, victim, k;

	do
	:: n < N_SUBMITS ->
		write_ptr[q]++;
		m = mapping[q];
		if
		:: m != DUMMY ->
			rings!m, write_ptr[q]
		:: else -> skip
		fi;
		if
		:: status[q] == RETRY -> connect_doorbell(q)
		:: else ->
			/* UMS-14: CONNECTED after a ring means the ring reached a physical doorbell. */
			assert(m != DUMMY)
		fi;
		n++
	:: else -> break
	od;
	finished++
}

/*
 * The command processor: services each ring that landed on a physical doorbell by taking its
 * owner's write pointer (a ring on a doorbell without an owner does nothing).
 */
active proctype command_processor()
{
	byte p, value, o;

end:
	do
	:: atomic {
		rings?p, value ->
		o = owner[p];
		if
		:: o != NONE ->
#ifdef TRUST_RING_VALUE
			fetched[o] = value
#else
			FETCH(o)
#endif
		:: else -> skip
		fi;
		p = 0;
		value = 0;
		o = 0
	}
	od
}

/*
 * UMS-21 and UMS-13 at every moment: the monitor can run only in a state that breaks them, and
 * then fails. Per queue: its mapping names the dummy page or a physical doorbell connected to it
 * (so no physical doorbell serves two queues); the KMD's table agrees with the hardware's (so the
 * KMD gives a physical doorbell to one queue at most); the command processor has not taken more
 * than the queue's write pointer.
 */
#define SERVES_OWN(q)                                                                           \
	((mapping[q] == DUMMY || owner[mapping[q]] == q) &&                                     \
	 (kmd_physical[q] == NONE || owner[kmd_physical[q]] == q))
#define FETCH_BOUNDED(q) (fetched[q] <= write_ptr[q])
#if N_QUEUES == 2
#define ALL(P) (P(0) && P(1))
#elif N_QUEUES == 3
#define ALL(P) (P(0) && P(1) && P(2))
#elif N_QUEUES == 4
#define ALL(P) (P(0) && P(1) && P(2) && P(3))
#else
#error "N_QUEUES: 2 to 4"
#endif

active proctype invariants()
{
end:
	atomic {
		!(ALL(SERVES_OWN) && ALL(FETCH_BOUNDED)) ->
		assert(ALL(SERVES_OWN));   /* UMS-21 */
		assert(ALL(FETCH_BOUNDED)) /* UMS-13 */
	}
}

init
{
	byte q = 0;

	atomic {
		do
		:: q < N_QUEUES -> run umd(q); q++
		:: else -> break
		od;
		q = 0
	}
}

/* UMS-15 at quiescence: every UMD finished and nothing else can move; nothing was lost. */
active proctype quiescence()
{
	byte q = 0;

end:
	timeout ->
	assert(finished == N_QUEUES);
	do
	:: q < N_QUEUES ->
		assert(fetched[q] == write_ptr[q]); /* UMS-15: no submission lost */
		q++
	:: else -> break
	od
}
