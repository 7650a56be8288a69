/* SPDX-License-Identifier: MIT */
/*
 * The GPU's physical doorbells and how its command processor learns of user-mode work from
 * them (spec 000, UMS-13 to UMS-24; docs/runtime.md "How the command processor learns of work").
 *
 * A physical doorbell is a word the UMD stores to through the mapping the OS gave it, and a
 * count of the rings that landed on it (the doorbell's interrupt to the command processor). The
 * command processor keeps, per queue, the write pointer it has *taken* (fetched_ptr) and runs
 * that queue's ring up to it only; it takes a write pointer when a ring lands on a doorbell
 * that has an owner (dedicated model: that owner; global model: every connected queue of the
 * engine), when the KMD connects, disconnects or notifies. It reads the queue's ring control
 * word, never the value rung: a ring that loaded its mapping before a rotation and landed after
 * the doorbell changed hands is then a spurious notification of the new owner, not a fetch past
 * its write pointer (tests/models/doorbell-victimization.pml, TRUST_RING_VALUE).
 *
 * What it is not: the OS's status word and mapping (os/doorbell.c), the KMD's choice of a
 * physical doorbell and of a victim (kmd/kmd.c).
 */
#include "hw/hw-private.h"

static void
doorbell_lock(struct fsr_adapter *adapter)
{
	if (rt_gpu_is_concurrent(adapter->runtime))
		pthread_mutex_lock(&adapter->gpu->doorbell_lock);
}

static void
doorbell_unlock(struct fsr_adapter *adapter)
{
	if (rt_gpu_is_concurrent(adapter->runtime))
		pthread_mutex_unlock(&adapter->gpu->doorbell_lock);
}

/* The command processor takes `queue`'s write pointer (engine's lock held). */
static void
take_write_ptr(struct hw_engine *engine, struct os_hwqueue *queue)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct fsr_runtime *runtime = adapter->runtime;
	uint64_t write_ptr;

	/*
	 * A powered-down command processor (F1, D3) takes nothing: FST-06 and DST-05 wake it before
	 * a connect. Powered, it reads the ring buffer control from video memory: it must be
	 * resident (DST-03).
	 */
	if (hw_engine_is_off(engine))
		return;
	FSR_ASSERT_PRE("gpu-fetch:ring-resident", rt_queue_ring_is_resident(queue));
	/* Acquire: the slots the UMD wrote before its release of the write pointer (HPF-04). */
	write_ptr = rt_word_load(runtime, &queue->control->write_ptr_bytes, memory_order_acquire,
				 RT_POINT_GPU_READ_WRITE_PTR);
	if (write_ptr == queue->fetched_ptr)
		return;
	queue->fetched_ptr = write_ptr;
	FSR_TRACE(runtime, fencescope_hw, ring_fetch, adapter->id, engine->id, queue->handle,
		  rt_word_load(runtime, &queue->control->read_ptr_bytes, memory_order_relaxed,
			       RT_POINT_NONE),
		  write_ptr, hw_gpu_ts(adapter, rt_clock_now(runtime)));
}

static void
kick_engine(struct hw_engine *engine)
{
	rt_clock_kick(engine->adapter->runtime, &engine->actor,
		      rt_clock_now(engine->adapter->runtime));
}

void
hw_doorbell_connect(struct fsr_adapter *adapter, uint32_t physical, struct os_hwqueue *queue,
		    bool is_notify_kmd)
{
	struct hw_engine *engine = &adapter->gpu->engines[queue->engine_id];

	hw_engine_lock(engine);
	doorbell_lock(adapter);
	/* The hardware switches owners as told: a second owner is the KMD's fault (UMS-21). */
	if (adapter->config.doorbell_model == FSR_DOORBELL_DEDICATED)
		adapter->gpu->doorbells[physical].owner = queue;
	queue->hw_is_doorbell_connected = true;
	queue->hw_is_notify_kmd = is_notify_kmd;
	queue->hw_physical = physical;
	doorbell_unlock(adapter);
	/* UMS-15: work written while disconnected runs without a new ring. */
	take_write_ptr(engine, queue);
	hw_engine_unlock(engine);
	kick_engine(engine);
}

void
hw_doorbell_disconnect(struct fsr_adapter *adapter, uint32_t physical, struct os_hwqueue *queue)
{
	struct hw_engine *engine = &adapter->gpu->engines[queue->engine_id];

	hw_engine_lock(engine);
	/*
	 * First the write pointer: a ring that landed but was not serviced yet is not lost, even
	 * though the UMD may have read CONNECTED after it (the model's NO_FETCH_ON_DISCONNECT).
	 */
	take_write_ptr(engine, queue);
	doorbell_lock(adapter);
	if (adapter->gpu->doorbells[physical].owner == queue)
		adapter->gpu->doorbells[physical].owner = NULL;
	queue->hw_is_doorbell_connected = false;
	doorbell_unlock(adapter);
	hw_engine_unlock(engine);
	kick_engine(engine);
}

void
hw_doorbell_notify(struct fsr_adapter *adapter, struct os_hwqueue *queue)
{
	struct hw_engine *engine = &adapter->gpu->engines[queue->engine_id];

	hw_engine_lock(engine);
	if (!queue->hw_is_suspended) /* SUS-03: ResumeContext takes it (SUS-05) */
		take_write_ptr(engine, queue);
	hw_engine_unlock(engine);
	kick_engine(engine);
}

struct os_hwqueue *
hw_doorbell_owner(struct fsr_adapter *adapter, uint32_t physical)
{
	struct os_hwqueue *owner;

	doorbell_lock(adapter);
	owner = adapter->gpu->doorbells[physical].owner;
	doorbell_unlock(adapter);
	return owner;
}

void
hw_doorbells_init(struct fsr_adapter *adapter)
{
	struct hw_gpu *gpu = adapter->gpu;

	for (uint32_t e = 0; e < adapter->config.engine_count; e++)
		gpu->engine_actors[e] = &gpu->engines[e].actor;
	/*
	 * Which engine serves a doorbell is the command processor's business, not the UMD's: a
	 * ring reaches them all, and each takes what is its own (UMS-20, UMS-18).
	 */
	for (uint32_t k = 0; k < FSR_MAX_PHYSICAL_DOORBELLS; k++) {
		gpu->doorbells[k].page.wake = gpu->engine_actors;
		/* Polling engines (realtime) watch the ring counts: a ring wakes no thread. */
		gpu->doorbells[k].page.wake_count =
		    gpu->engines[0].actor.poll ? 0 : adapter->config.engine_count;
	}
}

struct rt_doorbell_page *
hw_doorbell_page(struct fsr_adapter *adapter, uint32_t physical)
{
	return &adapter->gpu->doorbells[physical].page;
}

bool
hw_engine_doorbells_rang(struct hw_engine *engine)
{
	struct fsr_adapter *adapter = engine->adapter;
	uint32_t count = adapter->config.doorbell_model == FSR_DOORBELL_DEDICATED
			     ? adapter->config.physical_doorbells
			     : 1;

	for (uint32_t k = 0; k < count && k < FSR_MAX_PHYSICAL_DOORBELLS; k++)
		if (atomic_load_explicit(&adapter->gpu->doorbells[k].page.rings,
					 memory_order_relaxed) != engine->seen_rings[k])
			return true;
	return false;
}

void
hw_engine_take_rings(struct hw_engine *engine)
{
	struct fsr_adapter *adapter = engine->adapter;
	struct fsr_runtime *runtime = adapter->runtime;
	uint32_t count = adapter->config.physical_doorbells;

	if (adapter->config.doorbell_model != FSR_DOORBELL_DEDICATED) {
		uint64_t rings = rt_word_load(runtime, &adapter->gpu->doorbells[0].page.rings,
					      memory_order_acquire, RT_POINT_GPU_READ_DOORBELL);

		if (rings == engine->seen_rings[0])
			return;
		engine->seen_rings[0] = rings;
		/* UMS-18: the global doorbell rang, for someone: every connected queue is looked
		 * at. */
		for (struct os_hwqueue *q = engine->run_list; q; q = q->next_on_engine)
			if (q->hw_is_doorbell_connected && !q->hw_is_notify_kmd &&
			    !q->hw_is_suspended)
				take_write_ptr(engine, q);
		return;
	}
	for (uint32_t k = 0; k < count && k < FSR_MAX_PHYSICAL_DOORBELLS; k++) {
		struct hw_doorbell *doorbell = &adapter->gpu->doorbells[k];
		uint64_t rings;
		struct os_hwqueue *owner;

		/* Engine-local: a relaxed look first, so an idle doorbell costs no point. */
		if (atomic_load_explicit(&doorbell->page.rings, memory_order_relaxed) ==
		    engine->seen_rings[k])
			continue;
		doorbell_lock(adapter);
		rings = rt_word_load(runtime, &doorbell->page.rings, memory_order_acquire,
				     RT_POINT_GPU_READ_DOORBELL);
		/* Another engine's queue is that engine's to service (and may go meanwhile). */
		owner = doorbell->owner && doorbell->owner->engine_id == engine->id
			    ? doorbell->owner
			    : NULL;
		doorbell_unlock(adapter);
		engine->seen_rings[k] = rings;
		/*
		 * UMS-20: the owner of this instant; a ring on a doorbell with no owner does
		 * nothing, and on a notify-KMD doorbell the notification is what counts (UMS-24).
		 * A suspended queue is off the scheduler's list: its rings are not looked at,
		 * ResumeContext takes its write pointer (SUS-03, SUS-05).
		 * The owner stays while this engine holds its own lock: moving it, or destroying
		 * the queue, takes that lock.
		 */
		if (owner && !owner->hw_is_notify_kmd && !owner->hw_is_suspended)
			take_write_ptr(engine, owner);
	}
}

void
hw_engine_take_write_ptr(struct hw_engine *engine, struct os_hwqueue *queue)
{
	take_write_ptr(engine, queue);
}
