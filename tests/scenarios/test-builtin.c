/* SPDX-License-Identifier: MIT */
/*
 * The built-in scenarios keep their promises: each one runs to the end in sim mode with the
 * totals its description implies, the same seed gives the same run, and the realtime clock
 * gives the same counts (only the timing differs).
 */
#include <stdlib.h>
#include <criterion/criterion.h>

#include <fencescope/scenario.h>

static struct fsr_scenario_totals
run_scenario(const char *name, enum fsr_clock_mode clock_mode, uint64_t seed, uint64_t scale)
{
	const struct fsr_scenario *scenario = fsr_scenario_find_builtin(name);
	struct fsr_scenario_options options = {
	    .clock_mode = clock_mode, .seed = seed, .scale = scale};
	struct fsr_scenario_totals totals;
	char *error = NULL;

	cr_assert_not_null(scenario, "no built-in scenario %s", name);
	cr_assert_eq(fsr_scenario_run(scenario, &options, &totals, &error), FSR_OK, "%s: %s", name,
		     error ? error : "");
	free(error);
	return totals;
}

Test(builtin, every_listed_scenario_is_found_by_name_and_runs)
{
	size_t count;
	const struct fsr_scenario *const *builtins = fsr_scenario_builtins(&count);

	cr_assert_geq(count, 5);
	for (size_t i = 0; i < count; i++) {
		struct fsr_scenario_totals totals;

		cr_expect_eq(fsr_scenario_find_builtin(builtins[i]->name), builtins[i]);
		cr_expect_not_null(builtins[i]->description);
		totals = run_scenario(builtins[i]->name, FSR_CLOCK_SIM, 1, 0);
		cr_expect_gt(totals.events, 0, "%s fired no event", builtins[i]->name);
		cr_expect_gt(totals.submissions, 0);
	}
	cr_expect_null(fsr_scenario_find_builtin("no-such-scenario"));
}

/* SYN-11: the two queues synchronise through GPU waits and signals, not CPU waits. */
Test(builtin, syn_11_producer_consumer_signals_and_waits_once_per_round)
{
	struct fsr_scenario_totals totals = run_scenario("producer-consumer", FSR_CLOCK_SIM, 1, 50);

	cr_expect_eq(totals.gpu_signals, 50);
	cr_expect_eq(totals.gpu_waits, 50);
	cr_expect_eq(totals.submissions, 100);
	/*
	 * LOG-11: every operation wrote its entry, and so did every buffer's progress write
	 * (HPF-02: 100 user-mode buffers); nothing was lost at the default size.
	 */
	cr_expect_eq(totals.log_entries_read, 100 + 100);
	cr_expect_eq(totals.log_entries_lost, 0);
}

Test(builtin, pre_13_frame_pipeline_presents_every_frame_on_vsync)
{
	struct fsr_scenario_totals totals = run_scenario("frame-pipeline", FSR_CLOCK_SIM, 1, 30);
	struct fsr_scenario_totals realtime =
	    run_scenario("frame-pipeline", FSR_CLOCK_REALTIME, 1, 30);

	cr_expect_eq(totals.submissions, 60);  /* an upload and a render a frame */
	cr_expect_eq(totals.gpu_waits, 30);    /* render waits for the upload */
	cr_expect_eq(totals.gpu_signals, 30);  /* render signals */
	cr_expect_eq(totals.kernel_waits, 30); /* the upload waits for the previous render */
	cr_expect_eq(totals.kernel_signals, 30);
	cr_expect_eq(totals.flips, 30);
	/*
	 * The run ends once the last flip is on screen (the OS's interrupt latency after its
	 * vsync). Without a missed vsync that would be vsync 30; frame 8 renders for longer than a
	 * frame, so one vsync passes without a flip and the rest land a vsync later: vsync 31.
	 */
	cr_expect_geq(totals.virtual_ns, 31u * 16666667u);
	cr_expect_lt(totals.virtual_ns, 32u * 16666667u);
	cr_expect_eq(realtime.flips, 30);
	cr_expect_eq(realtime.submissions, 60);
}

Test(builtin, log_overrun_loses_entries_and_accounts_for_every_one)
{
	struct fsr_scenario_totals totals = run_scenario("log-overrun", FSR_CLOCK_SIM, 1, 5);

	cr_expect_eq(totals.gpu_signals, 200);
	cr_expect_gt(totals.log_entries_lost, 0, "LOG-16: the overrun was not provoked");
	/*
	 * LOG-17: what was not read was counted as lost, exactly: the signals and the progress
	 * write of every (user-mode) buffer (HPF-02).
	 */
	cr_expect_eq(totals.log_entries_read + totals.log_entries_lost,
		     totals.gpu_signals + totals.submissions);
}

Test(builtin, cpu_waiters_all_end_satisfied)
{
	struct fsr_scenario_totals totals = run_scenario("cpu-waiters", FSR_CLOCK_SIM, 1, 16);

	cr_expect_eq(totals.cpu_waits, 64);
	cr_expect_eq(totals.gpu_signals, 64);
}

Test(builtin, stress_scales_with_its_parameter)
{
	struct fsr_scenario_totals small = run_scenario("stress", FSR_CLOCK_SIM, 1, 100);
	struct fsr_scenario_totals large = run_scenario("stress", FSR_CLOCK_SIM, 1, 1000);

	cr_expect_eq(small.gpu_signals, 300);
	cr_expect_eq(large.gpu_signals, 3000);
	cr_expect_eq(large.kernel_waits, 250);
	cr_expect_gt(large.events, 9 * small.events);
}

Test(builtin, same_seed_same_run_another_seed_another_run)
{
	struct fsr_scenario_totals a = run_scenario("producer-consumer", FSR_CLOCK_SIM, 7, 40);
	struct fsr_scenario_totals b = run_scenario("producer-consumer", FSR_CLOCK_SIM, 7, 40);
	struct fsr_scenario_totals c = run_scenario("producer-consumer", FSR_CLOCK_SIM, 8, 40);

	cr_expect_eq(a.events, b.events);
	cr_expect_eq(a.virtual_ns, b.virtual_ns);
	cr_expect_eq(a.work_gpu_ticks, b.work_gpu_ticks);
	cr_expect_neq(a.work_gpu_ticks, c.work_gpu_ticks, "the seed did not change the work");
}

Test(builtin, realtime_clock_gives_the_same_counts)
{
	struct fsr_scenario_totals sim = run_scenario("producer-consumer", FSR_CLOCK_SIM, 3, 40);
	struct fsr_scenario_totals realtime =
	    run_scenario("producer-consumer", FSR_CLOCK_REALTIME, 3, 40);

	cr_expect_eq(realtime.gpu_signals, sim.gpu_signals);
	cr_expect_eq(realtime.gpu_waits, sim.gpu_waits);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.work_gpu_ticks, sim.work_gpu_ticks);
	/* 40 signals, 40 waits, and the progress writes of the 80 buffers (HPF-02). */
	cr_expect_eq(realtime.log_entries_read + realtime.log_entries_lost, 80 + 80);
}

/*
 * UMS-22, UMS-23: 6 queues on 2 dedicated doorbells in a ring of waits and signals; every
 * buffer still runs once (its progress write is in the logs, HPF-02) whatever the victimizations.
 * The victimizations themselves are counted from a recording (tests/cli/test-doorbell-report.c).
 */
Test(builtin, ums_22_doorbell_pressure_runs_every_buffer_in_both_clocks)
{
	struct fsr_scenario_totals sim = run_scenario("doorbell-pressure", FSR_CLOCK_SIM, 1, 10);
	struct fsr_scenario_totals realtime =
	    run_scenario("doorbell-pressure", FSR_CLOCK_REALTIME, 1, 10);

	cr_expect_eq(sim.submissions, 6 * 10 * 2);
	cr_expect_eq(sim.gpu_signals, 6 * 10);
	cr_expect_eq(sim.gpu_waits, 6 * 10 - 1); /* queue 0 waits from its second round on */
	cr_expect_eq(sim.log_entries_read + sim.log_entries_lost,
		     sim.submissions + sim.gpu_signals + sim.gpu_waits);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_signals, sim.gpu_signals);
	cr_expect_eq(realtime.gpu_waits, sim.gpu_waits);
	cr_expect_eq(realtime.work_gpu_ticks, sim.work_gpu_ticks);
	cr_expect_eq(realtime.log_entries_read + realtime.log_entries_lost,
		     sim.log_entries_read + sim.log_entries_lost);
}

/* UMS-17, UMS-18: 32 queues on the global doorbell, chains of 4, in both clocks. */
Test(builtin, ums_18_doorbell_global_runs_every_buffer_in_both_clocks)
{
	struct fsr_scenario_totals sim = run_scenario("doorbell-global", FSR_CLOCK_SIM, 1, 3);
	struct fsr_scenario_totals realtime =
	    run_scenario("doorbell-global", FSR_CLOCK_REALTIME, 1, 3);

	cr_expect_eq(sim.submissions, 32 * 3);
	cr_expect_eq(sim.gpu_signals, 32 * 3);
	cr_expect_eq(sim.gpu_waits, 24 * 3);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_waits, sim.gpu_waits);
	cr_expect_eq(realtime.log_entries_read + realtime.log_entries_lost,
		     sim.log_entries_read + sim.log_entries_lost);
}

/*
 * FST-06, FST-07, DST-04, DST-08: power-states, 4 rounds of 3 buffers; every buffer runs once
 * (its signal and its progress write are in the logs) though engines go to F1 and the device
 * to D3 between them, in both clocks. F1 and D3 are counted from a recording
 * (tests/cli/test-doorbell-report.c).
 */
Test(builtin, fst_07_dst_08_power_states_runs_every_buffer_in_both_clocks)
{
	struct fsr_scenario_totals sim = run_scenario("power-states", FSR_CLOCK_SIM, 1, 4);
	struct fsr_scenario_totals realtime =
	    run_scenario("power-states", FSR_CLOCK_REALTIME, 1, 4);

	cr_expect_eq(sim.submissions, 3 * 4);
	cr_expect_eq(sim.gpu_signals, 3 * 4);
	cr_expect_eq(sim.cpu_waits, 3 * 4);
	cr_expect_eq(sim.log_entries_read + sim.log_entries_lost,
		     sim.submissions + sim.gpu_signals);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_signals, sim.gpu_signals);
	cr_expect_eq(realtime.work_gpu_ticks, sim.work_gpu_ticks);
	cr_expect_eq(realtime.log_entries_read + realtime.log_entries_lost,
		     sim.log_entries_read + sim.log_entries_lost);
}

/*
 * SUS-05, TRM-01, TRM-04, UMS-16: suspend-terminate, 2 rounds: per round 6 buffers of the main
 * process (3 written while its 3D context is suspended), 2 of a process ended normally, 2 of one
 * ended abnormally (abandoned), 1 before the device loss and 1 resubmitted on the fall-back's
 * kernel-mode queue; the run ends without error in both clocks.
 */
Test(builtin, sus_05_trm_04_ums_16_suspend_terminate_runs_in_both_clocks)
{
	struct fsr_scenario_totals sim = run_scenario("suspend-terminate", FSR_CLOCK_SIM, 1, 2);
	struct fsr_scenario_totals realtime =
	    run_scenario("suspend-terminate", FSR_CLOCK_REALTIME, 1, 2);

	cr_expect_eq(sim.submissions, (6 + 2 + 2 + 1 + 1) * 2);
	cr_expect_eq(sim.gpu_signals, 6 * 2);
	cr_expect_eq(sim.kernel_signals, 2);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_signals, sim.gpu_signals);
	cr_expect_eq(realtime.kernel_signals, sim.kernel_signals);
	cr_expect_eq(realtime.work_gpu_ticks, sim.work_gpu_ticks);
}

/*
 * TDR-01 to TDR-06: tdr-hang and adapter-reset, 2 rounds: per round the hung app's wait ends
 * with DEVICE_LOST (the scenario fails otherwise), its re-created queue runs one buffer, and the
 * innocent's 4 render and 4 compute buffers all complete — in both clocks.
 */
Test(builtin, tdr_04_tdr_05_tdr_06_tdr_scenarios_complete_the_innocent_work_in_both_clocks)
{
	const char *const names[] = {"tdr-hang", "adapter-reset"};

	for (size_t i = 0; i < 2; i++) {
		struct fsr_scenario_totals sim = run_scenario(names[i], FSR_CLOCK_SIM, 1, 2);
		struct fsr_scenario_totals realtime =
		    run_scenario(names[i], FSR_CLOCK_REALTIME, 1, 2);

		cr_expect_eq(sim.submissions, 2 * (1 + 8 + 1), "%s", names[i]);
		cr_expect_eq(sim.gpu_signals, 2 * (4 + 1), "%s", names[i]);
		cr_expect_eq(sim.kernel_signals, 2 * 4, "%s", names[i]);
		cr_expect_eq(sim.cpu_waits, 2 * 4, "%s", names[i]);
		/* The TDR delay passed in virtual time (2 s a round). */
		cr_expect_geq(sim.virtual_ns, 2 * FSR_DEFAULT_TDR_DELAY_NS, "%s", names[i]);
		cr_expect_eq(realtime.submissions, sim.submissions, "%s", names[i]);
		cr_expect_eq(realtime.gpu_signals, sim.gpu_signals, "%s", names[i]);
		cr_expect_eq(realtime.kernel_signals, sim.kernel_signals, "%s", names[i]);
		cr_expect_eq(realtime.cpu_waits, sim.cpu_waits, "%s", names[i]);
		/* Sim mode stays deterministic through a TDR: the same run again. */
		{
			struct fsr_scenario_totals again =
			    run_scenario(names[i], FSR_CLOCK_SIM, 1, 2);

			cr_expect_eq(again.events, sim.events, "%s", names[i]);
			cr_expect_eq(again.virtual_ns, sim.virtual_ns, "%s", names[i]);
		}
	}
}

/*
 * PRE-15: priority-inversion and timeslice-mix run to the end in both clocks with the totals
 * their description gives (the preemptions themselves: tests/runtime/test-preempt.c).
 */
Test(builtin, pre_15_priority_inversion_and_timeslice_mix_run_in_both_clocks)
{
	struct fsr_scenario_totals pi = run_scenario("priority-inversion", FSR_CLOCK_SIM, 1, 2);
	struct fsr_scenario_totals pi_rt =
	    run_scenario("priority-inversion", FSR_CLOCK_REALTIME, 1, 2);
	struct fsr_scenario_totals ts = run_scenario("timeslice-mix", FSR_CLOCK_SIM, 1, 2);
	struct fsr_scenario_totals ts_rt = run_scenario("timeslice-mix", FSR_CLOCK_REALTIME, 1, 1);

	cr_expect_eq(pi.submissions, 4 * 2);
	cr_expect_eq(pi.gpu_signals, 3 * 2);
	cr_expect_eq(pi.kernel_signals, 2);
	cr_expect_eq(pi.cpu_waits, 4 * 2);
	cr_expect_eq(pi_rt.submissions, pi.submissions);
	cr_expect_eq(ts.submissions, 4 * 2);
	cr_expect_eq(ts.gpu_signals, 2 * 2);
	cr_expect_eq(ts.kernel_signals, 2 * 2);
	cr_expect_eq(ts.work_gpu_ticks, 4 * 2 * 200000);
	cr_expect_eq(ts_rt.submissions, 4);
	/* Sim mode stays deterministic with the scheduler's timer and preemptions. */
	{
		struct fsr_scenario_totals pi2 =
		    run_scenario("priority-inversion", FSR_CLOCK_SIM, 1, 2);
		struct fsr_scenario_totals ts2 = run_scenario("timeslice-mix", FSR_CLOCK_SIM, 1, 2);

		cr_expect_eq(pi2.events, pi.events);
		cr_expect_eq(pi2.virtual_ns, pi.virtual_ns);
		cr_expect_eq(ts2.events, ts.events);
		cr_expect_eq(ts2.virtual_ns, ts.virtual_ns);
	}
}

/*
 * PRE-15 under sim-mode interleaving: the GPU and the OS switch at every shared word while the
 * scheduler preempts; both scenarios run to the end with their totals, seed after seed.
 */
Test(builtin, pre_15_scheduling_scenarios_under_interleaving)
{
	static const char *const names[] = {"priority-inversion", "timeslice-mix"};

	for (uint64_t seed = 1; seed <= 6; seed++) {
		for (size_t i = 0; i < 2; i++) {
			struct fsr_scenario_options options = {.clock_mode = FSR_CLOCK_SIM,
							       .seed = 1,
							       .scale = 1,
							       .interleave_seed = seed};
			struct fsr_scenario_totals totals;
			char *error = NULL;

			cr_assert_eq(fsr_scenario_run(fsr_scenario_find_builtin(names[i]), &options,
						      &totals, &error),
				     FSR_OK, "%s, interleave seed %llu: %s", names[i],
				     (unsigned long long) seed, error ? error : "");
			free(error);
			cr_expect_eq(totals.submissions, 4, "%s", names[i]);
		}
	}
}

/*
 * TDR-01 to TDR-06 under sim-mode interleaving: the hang, its detection, the preemption request,
 * the resets and the re-creation run with the GPU and the OS switching at every shared word;
 * both scenarios end with their totals (the hung app's DEVICE_LOST included), seed after seed.
 */
Test(builtin, tdr_scenarios_under_interleaving)
{
	static const char *const names[] = {"tdr-hang", "adapter-reset"};

	for (uint64_t seed = 1; seed <= 4; seed++) {
		for (size_t i = 0; i < 2; i++) {
			struct fsr_scenario_options options = {.clock_mode = FSR_CLOCK_SIM,
							       .seed = 1,
							       .scale = 1,
							       .interleave_seed = seed};
			struct fsr_scenario_totals totals;
			char *error = NULL;

			cr_assert_eq(fsr_scenario_run(fsr_scenario_find_builtin(names[i]), &options,
						      &totals, &error),
				     FSR_OK, "%s, interleave seed %llu: %s", names[i],
				     (unsigned long long) seed, error ? error : "");
			free(error);
			cr_expect_eq(totals.submissions, 1 + 8 + 1, "%s", names[i]);
			cr_expect_eq(totals.cpu_waits, 4, "%s", names[i]);
		}
	}
}

/* MMU-06, MMU-07 under sim-mode interleaving: mapping-churn's totals, seed after seed, and the
 * same seed twice gives the same run. */
Test(builtin, mmu_06_mapping_churn_under_interleaving)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		uint64_t events[2];

		for (int run = 0; run < 2; run++) {
			struct fsr_scenario_options options = {.clock_mode = FSR_CLOCK_SIM,
							       .seed = 1,
							       .scale = 3,
							       .interleave_seed = seed};
			struct fsr_scenario_totals totals;
			char *error = NULL;

			cr_assert_eq(fsr_scenario_run(fsr_scenario_find_builtin("mapping-churn"),
						      &options, &totals, &error),
				     FSR_OK, "interleave seed %llu: %s", (unsigned long long) seed,
				     error ? error : "");
			free(error);
			cr_expect_eq(totals.submissions, 3 * 3);
			events[run] = totals.events;
		}
		cr_expect_eq(events[0], events[1], "interleave seed %llu: the same run",
			     (unsigned long long) seed);
	}
}

/* MMU-06, MMU-07: mapping-churn runs every round in both clocks, the same counts. */
Test(builtin, mmu_06_mmu_07_mapping_churn_runs_every_buffer_in_both_clocks)
{
	struct fsr_scenario_totals sim = run_scenario("mapping-churn", FSR_CLOCK_SIM, 1, 6);
	struct fsr_scenario_totals realtime =
	    run_scenario("mapping-churn", FSR_CLOCK_REALTIME, 1, 6);
	struct fsr_scenario_totals again = run_scenario("mapping-churn", FSR_CLOCK_SIM, 1, 6);

	cr_expect_eq(sim.submissions, 3 * 6);
	cr_expect_eq(sim.gpu_signals, 3 * 6);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_signals, sim.gpu_signals);
	cr_expect_eq(realtime.work_gpu_ticks, sim.work_gpu_ticks);
	cr_expect_eq(again.events, sim.events, "deterministic in sim");
	cr_expect_eq(again.virtual_ns, sim.virtual_ns);
}

/*
 * MMU-14, TDR-06: page-fault, 2 rounds: per round the faulty app's write lands, its write queued
 * behind a gate faults once the range is unmapped and the gate opened (its wait ends
 * DEVICE_LOST, the scenario fails otherwise), its new context of the same device runs; the
 * innocent's 6 frames and compute packet complete — in both clocks, the same events twice in sim
 * mode, and under interleaving seeds.
 */
Test(builtin, mmu_14_tdr_06_page_fault_scenario_runs_in_both_clocks)
{
	struct fsr_scenario_totals sim = run_scenario("page-fault", FSR_CLOCK_SIM, 1, 2);
	struct fsr_scenario_totals again = run_scenario("page-fault", FSR_CLOCK_SIM, 1, 2);
	struct fsr_scenario_totals realtime = run_scenario("page-fault", FSR_CLOCK_REALTIME, 1, 2);

	cr_expect_eq(sim.submissions, 2 * (1 + 1 + 6 + 1 + 1));
	cr_expect_eq(sim.gpu_signals, 2 * (1 + 6 + 1));
	cr_expect_eq(sim.gpu_waits, 2);
	cr_expect_eq(sim.kernel_signals, 2);
	cr_expect_eq(sim.cpu_waits, 2 * 5);
	cr_expect_eq(again.events, sim.events);
	cr_expect_eq(again.virtual_ns, sim.virtual_ns);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_signals, sim.gpu_signals);
	cr_expect_eq(realtime.cpu_waits, sim.cpu_waits);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct fsr_scenario_options options = {
		    .clock_mode = FSR_CLOCK_SIM, .seed = 1, .scale = 2, .interleave_seed = seed};
		struct fsr_scenario_totals totals;
		char *error = NULL;

		cr_assert_eq(fsr_scenario_run(fsr_scenario_find_builtin("page-fault"), &options,
					      &totals, &error),
			     FSR_OK, "interleave seed %llu: %s", (unsigned long long) seed,
			     error ? error : "");
		free(error);
		cr_expect_eq(totals.submissions, sim.submissions);
	}
}

/*
 * XAD-12, XAD-13 (spec 001 scenario 1): the iGPU -> dGPU pipeline over cross-adapter fences
 * runs every frame's waits and signals on both adapters, in both clocks.
 */
Test(builtin, xad_12_cross_adapter_runs_every_frame_on_both_adapters)
{
	struct fsr_scenario_totals sim = run_scenario("cross-adapter", FSR_CLOCK_SIM, 1, 20);
	struct fsr_scenario_totals realtime =
	    run_scenario("cross-adapter", FSR_CLOCK_REALTIME, 1, 20);

	cr_expect_eq(sim.submissions, 40); /* a render on the iGPU, a compose on the dGPU */
	cr_expect_eq(sim.gpu_waits, 40);
	cr_expect_eq(sim.gpu_signals, 40);
	cr_expect_eq(sim.cpu_signals, 2); /* the settings, every 10th frame, through the dGPU */
	cr_expect_eq(sim.cpu_waits, 6);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_waits, sim.gpu_waits);
	cr_expect_eq(realtime.cpu_waits, sim.cpu_waits);
}

/* XAD-14 (scenario 2a): software and CPU waits on an iGPU without native fences. */
Test(builtin, xad_14_cross_adapter_2a_waits_on_the_non_native_igpu)
{
	struct fsr_scenario_totals sim = run_scenario("cross-adapter-2a", FSR_CLOCK_SIM, 1, 20);
	struct fsr_scenario_totals realtime =
	    run_scenario("cross-adapter-2a", FSR_CLOCK_REALTIME, 1, 20);

	cr_expect_eq(sim.submissions, 40);
	cr_expect_eq(sim.kernel_waits, 20); /* the iGPU's software waits on the dGPU's frames */
	cr_expect_eq(sim.kernel_signals, 20);
	cr_expect_eq(sim.gpu_signals, 20);
	cr_expect_eq(sim.gpu_waits, 0);
	cr_expect_eq(sim.cpu_waits, 19);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.cpu_waits, sim.cpu_waits);
}

/* XAD-15, XAD-16 (scenario 2b): CPU-applied signals on the non-native iGPU, waits on the dGPU. */
Test(builtin, xad_15_cross_adapter_2b_signals_from_the_non_native_igpu)
{
	struct fsr_scenario_totals sim = run_scenario("cross-adapter-2b", FSR_CLOCK_SIM, 1, 20);
	struct fsr_scenario_totals realtime =
	    run_scenario("cross-adapter-2b", FSR_CLOCK_REALTIME, 1, 20);

	cr_expect_eq(sim.submissions, 42); /* decode and render a frame, 2 settings waits */
	cr_expect_eq(sim.kernel_signals, 20);
	cr_expect_eq(sim.gpu_waits, 22);
	cr_expect_eq(sim.cpu_signals, 2); /* the settings, through the iGPU */
	cr_expect_eq(sim.cpu_waits, 6);
	cr_expect_eq(realtime.submissions, sim.submissions);
	cr_expect_eq(realtime.gpu_waits, sim.gpu_waits);
}

/*
 * XAD-07 under sim-mode interleaving: the GPUs and the OS switch at every shared word while
 * signals propagate between adapters; the three cross-adapter scenarios end with their totals,
 * seed after seed, and a seed replays the same run.
 */
Test(builtin, xad_07_cross_adapter_scenarios_under_interleaving)
{
	static const char *const names[] = {"cross-adapter", "cross-adapter-2a",
					    "cross-adapter-2b"};
	static const uint64_t submissions[] = {40, 40, 42};

	for (uint64_t seed = 1; seed <= 6; seed++) {
		for (size_t i = 0; i < 3; i++) {
			struct fsr_scenario_options options = {.clock_mode = FSR_CLOCK_SIM,
							       .seed = 1,
							       .scale = 20,
							       .interleave_seed = seed};
			struct fsr_scenario_totals totals;
			struct fsr_scenario_totals again;
			char *error = NULL;

			cr_assert_eq(fsr_scenario_run(fsr_scenario_find_builtin(names[i]), &options,
						      &totals, &error),
				     FSR_OK, "%s, interleave seed %llu: %s", names[i],
				     (unsigned long long) seed, error ? error : "");
			free(error);
			cr_expect_eq(totals.submissions, submissions[i], "%s", names[i]);
			cr_assert_eq(fsr_scenario_run(fsr_scenario_find_builtin(names[i]), &options,
						      &again, &error),
				     FSR_OK);
			cr_expect_eq(again.events, totals.events, "%s, seed %llu: not replayed",
				     names[i], (unsigned long long) seed);
			cr_expect_eq(again.virtual_ns, totals.virtual_ns);
		}
	}
}
