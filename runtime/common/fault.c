/* SPDX-License-Identifier: MIT */
/*
 * The fault injector (sim mode; docs/robustness.md): decides, at each opportunity a layer's
 * hook reports, whether a fault of the plan fires there, and fires fencescope_os:fault_injected
 * for each one that does. It does not act faults out — the hook's layer does, where the fault
 * acts (the interrupt line, the ring, the log writer, the submission) — and the modelled layers
 * know nothing of it beyond their hooks. Random faults draw from a generator of their own, so a
 * plan changes nothing of a run but its faults.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fault-private.h"

struct rt_faults {
	struct fsr_fault_plan plan;
	uint32_t seen[FSR_MAX_FAULTS]; /* opportunities matched so far, per listed fault */
	bool has_fired[FSR_MAX_FAULTS];
	uint64_t rng;          /* splitmix64 state of the random plan */
	uint32_t random_fired; /* random faults so far */
	/*
	 * Queues that had their corrupt packet or their storm: one each per queue, since a second
	 * would have no effect of its own (the queue stopped at the first malformed command; two
	 * storms between two reads are one overrun), and the accounting wants one per fault.
	 */
	uint64_t spent[2][FSR_MAX_FAULTS];
	uint32_t spent_count[2];
	/* Contexts that met a fatal fault (a hang, a corruption, a kill): one each at most. */
	uint64_t doomed[FSR_MAX_FAULTS];
	uint32_t doomed_count;
};

static const char *const kind_names[FSR_FAULT_KIND_COUNT] = {
    "HUNG_ENGINE",    "IGNORES_PREEMPTION", "LOST_INTERRUPT",    "DELAYED_INTERRUPT",
    "CORRUPT_PACKET", "PROCESS_KILLED",     "LOG_OVERRUN_STORM",
};

const char *
fsr_fault_kind_name(enum fsr_fault_kind kind)
{
	return (unsigned) kind < FSR_FAULT_KIND_COUNT ? kind_names[kind] : NULL;
}

int
fsr_fault_kind_from_name(const char *name)
{
	char normal[32];
	size_t length;

	if (!name || (length = strlen(name)) >= sizeof(normal))
		return -1;
	for (size_t i = 0; i <= length; i++)
		normal[i] = name[i] == '-' ? '_' : name[i];
	for (int kind = 0; kind < FSR_FAULT_KIND_COUNT; kind++)
		if (!strcasecmp(normal, kind_names[kind]))
			return kind;
	return -1;
}

static uint64_t
next_random(struct rt_faults *faults)
{
	uint64_t z = (faults->rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A kind's parameter when the plan leaves it 0. */
static uint64_t
default_parameter(enum fsr_fault_kind kind)
{
	switch (kind) {
	case FSR_FAULT_DELAYED_INTERRUPT:
		return FSR_FAULT_MIN_DELAY_NS;
	case FSR_FAULT_LOG_OVERRUN_STORM:
		return 2;
	default:
		return 0;
	}
}

static bool
is_valid_fault(const struct fsr_fault *fault)
{
	if ((unsigned) fault->kind >= FSR_FAULT_KIND_COUNT)
		return false;
	if (fault->kind == FSR_FAULT_DELAYED_INTERRUPT && fault->parameter != 0 &&
	    fault->parameter < FSR_FAULT_MIN_DELAY_NS)
		return false;
	/* A storm of more than 64 capacities is no more of an overrun, only slower. */
	return fault->kind != FSR_FAULT_LOG_OVERRUN_STORM || fault->parameter <= 64;
}

fsr_status
rt_faults_init(struct fsr_runtime *runtime, const struct fsr_fault_plan *plan)
{
	struct rt_faults *faults;

	if (!plan)
		return FSR_OK;
	if (runtime->config.clock_mode != FSR_CLOCK_SIM)
		return FSR_ERR_NOT_SUPPORTED;
	if (plan->count > FSR_MAX_FAULTS)
		return FSR_ERR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < plan->count; i++)
		if (!is_valid_fault(&plan->faults[i]))
			return FSR_ERR_INVALID_ARGUMENT;
	for (int kind = 0; kind < FSR_FAULT_KIND_COUNT; kind++)
		if (plan->random_ppm[kind] > 1000000u)
			return FSR_ERR_INVALID_ARGUMENT;
	faults = calloc(1, sizeof(*faults));
	if (!faults)
		return FSR_ERR_NO_RESOURCES;
	faults->plan = *plan;
	if (!faults->plan.random_max)
		faults->plan.random_max = 16;
	faults->rng = plan->random_seed;
	runtime->faults = faults;
	return FSR_OK;
}

fsr_status
fsr_runtime_add_fault(struct fsr_runtime *runtime, const struct fsr_fault *fault)
{
	static const struct fsr_fault_plan empty;
	fsr_status status = FSR_OK;

	if (!runtime || !fault || !is_valid_fault(fault))
		return FSR_ERR_INVALID_ARGUMENT;
	if (runtime->config.clock_mode != FSR_CLOCK_SIM)
		return FSR_ERR_NOT_SUPPORTED;
	rt_lock(runtime);
	if (!runtime->faults)
		status = rt_faults_init(runtime, &empty);
	if (status == FSR_OK && runtime->faults->plan.count == FSR_MAX_FAULTS)
		status = FSR_ERR_NO_RESOURCES;
	if (status == FSR_OK) {
		uint32_t i = runtime->faults->plan.count++;

		runtime->faults->plan.faults[i] = *fault;
		runtime->faults->seen[i] = 0;
		runtime->faults->has_fired[i] = false;
	}
	rt_unlock(runtime);
	return status;
}

void
rt_faults_fini(struct fsr_runtime *runtime)
{
	free(runtime->faults);
	runtime->faults = NULL;
}

static bool
matches(const struct fsr_fault *fault, enum fsr_fault_kind kind, uint32_t adapter_id,
	uint32_t engine_id, uint64_t hwqueue, uint64_t now)
{
	return fault->kind == kind && fault->adapter_id == adapter_id &&
	       (fault->engine_id == FSR_FAULT_ANY_ENGINE || fault->engine_id == engine_id) &&
	       (fault->hwqueue == 0 || fault->hwqueue == hwqueue) && now >= fault->at_ns;
}

/* The once-per-queue kinds' table: 0 corrupt packets, 1 storms, -1 the other kinds. */
static int
spent_table(enum fsr_fault_kind kind)
{
	return kind == FSR_FAULT_CORRUPT_PACKET ? 0 : kind == FSR_FAULT_LOG_OVERRUN_STORM ? 1 : -1;
}

/* Whether `hwqueue` is no opportunity for `kind` any more; if not, and `is_spending`, it is now. */
static bool
is_spent(struct rt_faults *faults, enum fsr_fault_kind kind, uint64_t hwqueue, bool is_spending)
{
	int table = spent_table(kind);

	if (table < 0)
		return false;
	for (uint32_t i = 0; i < faults->spent_count[table]; i++)
		if (faults->spent[table][i] == hwqueue)
			return true;
	/* Past the table's size, faults of the kind stop: an unaccountable one is worse. */
	if (faults->spent_count[table] == FSR_MAX_FAULTS)
		return true;
	if (is_spending)
		faults->spent[table][faults->spent_count[table]++] = hwqueue;
	return false;
}

bool
rt_fault_take(struct fsr_runtime *runtime, enum fsr_fault_kind kind, uint32_t adapter_id,
	      uint32_t engine_id, uint64_t hwqueue, uint64_t *parameter)
{
	struct rt_faults *faults = runtime->faults;
	uint64_t now = rt_clock_now(runtime);
	bool is_fired = false;

	if (!faults || is_spent(faults, kind, hwqueue, false))
		return false;
	for (uint32_t i = 0; i < faults->plan.count; i++) {
		const struct fsr_fault *fault = &faults->plan.faults[i];

		if (faults->has_fired[i] ||
		    !matches(fault, kind, adapter_id, engine_id, hwqueue, now))
			continue;
		faults->seen[i]++;
		/* Every matching fault counts the opportunity; the first due one fires. */
		if (!is_fired && faults->seen[i] >= (fault->nth ? fault->nth : 1)) {
			faults->has_fired[i] = true;
			is_fired = true;
			*parameter = fault->parameter ? fault->parameter : default_parameter(kind);
		}
	}
	if (!is_fired && faults->plan.random_seed && faults->plan.random_ppm[kind] &&
	    faults->random_fired < faults->plan.random_max &&
	    next_random(faults) % 1000000u < faults->plan.random_ppm[kind]) {
		faults->random_fired++;
		*parameter = default_parameter(kind);
		is_fired = true;
	}
	if (is_fired)
		is_spent(faults, kind, hwqueue, true);
	return is_fired;
}

bool
rt_fault_is_doomed(struct fsr_runtime *runtime, uint64_t context_handle)
{
	struct rt_faults *faults = runtime->faults;

	if (!faults)
		return false;
	for (uint32_t i = 0; i < faults->doomed_count; i++)
		if (faults->doomed[i] == context_handle)
			return true;
	/* Past the table's size no fatal fault fires: an unaccountable one is worse. */
	return faults->doomed_count == FSR_MAX_FAULTS;
}

void
rt_fault_doom(struct fsr_runtime *runtime, uint64_t context_handle)
{
	struct rt_faults *faults = runtime->faults;

	if (faults && !rt_fault_is_doomed(runtime, context_handle))
		faults->doomed[faults->doomed_count++] = context_handle;
}

void
rt_fault_fired(struct fsr_runtime *runtime, enum fsr_fault_kind kind, uint32_t adapter_id,
	       uint32_t engine_id, uint64_t hwqueue, uint64_t detail)
{
	FSR_TRACE(runtime, fencescope_os, fault_injected, adapter_id, engine_id, hwqueue,
		  (int) kind, detail);
	runtime->stats.faults_injected[kind]++;
	/*
	 * The simulator's side, not the OS's: a dropped interrupt may leave a wake-up owed to
	 * the OS's periodic check, so the OS actor's next step is real work (not a weak timer
	 * that a blocked wait would give up on); that step looks again (os/fault.c).
	 */
	if (kind == FSR_FAULT_LOST_INTERRUPT) {
		runtime->is_wakeup_owed = true;
		rt_clock_kick(runtime, &runtime->os_actor, runtime->next_rescan_ns);
	}
}
