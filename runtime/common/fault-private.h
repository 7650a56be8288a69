/* SPDX-License-Identifier: MIT */
/*
 * The fault injector's hooks (common/fault.c; public plan in <fencescope/fault.h>,
 * docs/robustness.md). Each layer calls them at the one point where a fault acts — the GPU's
 * interrupt line, the ring the UMD wrote, the GPU's log writer, the submission — and then acts
 * the fault out in a few lines of its own; the injector itself decides only *whether* a fault
 * fires and says so in the trace. Sim mode only: runtime->faults is NULL otherwise, and every
 * hook tests it first, so a run without a plan pays one branch per hook.
 */
#ifndef FENCESCOPE_RUNTIME_COMMON_FAULT_PRIVATE_H
#define FENCESCOPE_RUNTIME_COMMON_FAULT_PRIVATE_H

#include "common/common-private.h"

/* Validates `plan` for `config` and installs a copy (runtime creation). */
fsr_status rt_faults_init(struct fsr_runtime *runtime, const struct fsr_fault_plan *plan);
void rt_faults_fini(struct fsr_runtime *runtime);

/*
 * An opportunity for a fault of `kind` at (adapter, engine, hwqueue) now: true when one fires,
 * its parameter (the kind's default filled in) in *parameter. Counts the opportunity for the
 * plan's `nth`. The caller then acts the fault out and calls rt_fault_fired.
 */
bool rt_fault_take(struct fsr_runtime *runtime, enum fsr_fault_kind kind, uint32_t adapter_id,
		   uint32_t engine_id, uint64_t hwqueue, uint64_t *parameter);
/*
 * A context meets at most one fatal fault (a hung engine on its work, a corrupt packet in its
 * ring, its process's kill, which dooms every context of the process): after one, it is in error
 * or dead, and a second could be abandoned before its effect. The hooks of those kinds ask first
 * and doom the context when they fire.
 */
bool rt_fault_is_doomed(struct fsr_runtime *runtime, uint64_t context_handle);
void rt_fault_doom(struct fsr_runtime *runtime, uint64_t context_handle);
/* Fires fencescope_os:fault_injected (the ground truth) and counts it. */
void rt_fault_fired(struct fsr_runtime *runtime, enum fsr_fault_kind kind, uint32_t adapter_id,
		    uint32_t engine_id, uint64_t hwqueue, uint64_t detail);

static inline bool
rt_faults_are_on(const struct fsr_runtime *runtime)
{
	return runtime->faults != NULL;
}

#endif /* FENCESCOPE_RUNTIME_COMMON_FAULT_PRIVATE_H */
