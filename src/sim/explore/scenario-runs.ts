/**
 * Explore's runs through the scenario runner: a replay passes the schedule as `extraFaults`; a
 * random run arms a `RandomFaultInjector` on the cluster as soon as it starts (the run's time 0 is
 * that moment) and reports what it injected.
 */

import type { ClusterOptions } from "../../cmd/cluster.ts";
import { formatGoDuration } from "../../runtime/duration.ts";
import { type RunScenarioOptions, runScenario, type ScenarioResult } from "../runner/run-scenario.ts";
import type { Scenario } from "../scenario/model.ts";
import type { ExploreRuns, RunOutcome } from "./explore.ts";
import { RandomFaultInjector } from "./random-fault-injector.ts";

export interface ScenarioRunOptions {
  /** Ends every run at this run time instead of the scenario's end (`--until`). */
  readonly untilMs?: number;
  /** Test-only cluster flags (a deliberately broken controller). */
  readonly clusterOptions?: Partial<ClusterOptions>;
}

function outcomeOf(result: ScenarioResult): RunOutcome {
  const step = result.verdicts.find((verdict) => verdict.kind === "step" && verdict.status === "failed");
  return {
    endMs: result.endMs,
    ...(result.violation === undefined ? {} : { violation: result.violation }),
    ...(step === undefined
      ? {}
      : { failedStep: { atMs: step.atMs ?? result.endMs, step: step.expectation, detail: step.detail } }),
  };
}

export function scenarioRuns(scenario: Scenario, options: ScenarioRunOptions = {}): ExploreRuns {
  const clusterOptions = options.clusterOptions ?? {};
  const base = (seed: number): RunScenarioOptions => ({
    seed,
    ...(options.untilMs === undefined ? {} : { untilMs: options.untilMs }),
  });
  return {
    async replay(seed, schedule) {
      return outcomeOf(await runScenario(scenario, { ...base(seed), extraFaults: schedule, clusterOptions }));
    },
    async random(seed, slots, catalogue, rng) {
      const injector = new RandomFaultInjector(slots, catalogue, rng);
      const onStarted: ClusterOptions["onStarted"] = (cluster) => {
        clusterOptions.onStarted?.(cluster);
        injector.start(cluster, cluster.clock.now());
      };
      const result = await runScenario(scenario, { ...base(seed), clusterOptions: { ...clusterOptions, onStarted } });
      injector.stop();
      const skipped = injector.skipped().map((slot) => `at ${formatGoDuration(slot.atMs)}: ${slot.reason}`);
      return { ...outcomeOf(result), schedule: injector.schedule(), skipped };
    },
  };
}
