/**
 * A fault campaign (`npm run campaign`): random fault schedules spread over many scenarios, until a
 * number of schedules has run or a wall-time budget is spent. Schedule `i` (counted from 0) goes to
 * scenario `i mod S` and uses seed `firstSeed + i`, drawn exactly as `kvol sim explore` draws one
 * seed: the same first seed gives the same schedules, whatever the budget cut off. Each scenario is
 * first played once without added faults (its span, and a check that it holds on its own); a
 * schedule that breaks an invariant or a timeline step is replayed, shrunk and handed to
 * `onFailure` (which saves it), and the campaign goes on with the next schedule. A campaign may be
 * split over processes by `shard`: each runs the schedules whose index it owns (`shardOwns`), unchanged.
 */
import type { Clock } from "../../runtime/clock.ts";
import { Rng } from "../../runtime/rng.ts";
import type { FaultDefinition } from "../faults/fault.ts";
import { exploreRngStreamName } from "./constants.ts";
import {
  type ExploreFailure,
  type ExploreRuns,
  failureOf,
  isFailure,
  minimise,
  type RandomRunOutcome,
  type RunFailure,
} from "./explore.ts";
import { drawFaultSlots } from "./fault-slots.ts";
import { replayCommand } from "./replay-command.ts";

/** One scenario of the campaign. */
export interface CampaignTarget {
  /** How the summary names it (`008-force-detach-dead-node`). */
  readonly name: string;
  /** The scenario file, as replay commands name it. */
  readonly file: string;
  readonly runs: ExploreRuns;
  /** The seed of the run without added faults (the scenario's own seed). */
  readonly baselineSeed: number;
}

export interface CampaignOptions {
  /** Stop after this many schedules. */
  readonly schedules: number;
  /** Stop starting schedules once this much wall time has passed. */
  readonly budgetMs: number;
  /** The seed of schedule 0; schedule i uses firstSeed + i. */
  readonly firstSeed: number;
  readonly catalogue: readonly FaultDefinition[];
  readonly maxFaults?: number;
  /** Wall time, for the budget only (the runs themselves are on virtual time). */
  readonly clock: Pick<Clock, "now">;
  /** Called with each failure, shrunk, as soon as it is found. */
  readonly onFailure?: (failure: CampaignFailure) => void | Promise<void>;
  /** Run only the schedules this shard owns (`shardOwns`; processes sharing one campaign); default all. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** Called before each schedule's run (what a stalled run was). */
  readonly onStart?: (target: CampaignTarget, seed: number) => void;
  /** Called after each schedule with the number run so far. */
  readonly onSchedule?: (target: CampaignTarget, seed: number, outcome: RandomRunOutcome, count: number) => void;
}

export interface CampaignFailure {
  readonly scenario: CampaignTarget;
  /** True when the scenario fails with no added fault at all. */
  readonly withoutFaults: boolean;
  readonly failure: ExploreFailure;
}

export interface ScenarioTally {
  readonly name: string;
  schedules: number;
  failures: number;
  /** Schedules in which a timeline step failed (not failures: see `campaignFailureOf`). */
  stepsFailed: number;
  /** Whole runs spent: baseline, schedules, replays and shrinking. */
  runs: number;
  /** Wall time spent on the schedules' own runs (not the baseline, replays or shrinking). */
  scheduleWallMs: number;
}

export interface CampaignResult {
  readonly tallies: readonly ScenarioTally[];
  readonly schedulesRun: number;
  readonly failures: readonly CampaignFailure[];
  readonly wallMs: number;
  /** Why it stopped: every schedule asked for ran, or the budget ran out first. */
  readonly stoppedBy: "schedules" | "budget";
}

/** A scenario's span, or why it cannot be explored (it fails without added faults). */
type Baseline = { readonly spanMs: number; readonly broken: boolean };

export async function runCampaign(
  targets: readonly CampaignTarget[],
  options: CampaignOptions,
): Promise<CampaignResult> {
  if (targets.length === 0) throw new RangeError("campaign: no scenario to run");
  if (!Number.isSafeInteger(options.schedules) || options.schedules < 1) {
    throw new RangeError(`campaign: schedules must be a whole number >= 1, got ${options.schedules}`);
  }
  if (options.catalogue.length === 0) throw new RangeError("campaign: the catalogue of faults to draw from is empty");
  const startedMs = options.clock.now();
  const tallies = targets.map((target) => ({
    name: target.name,
    schedules: 0,
    failures: 0,
    stepsFailed: 0,
    runs: 0,
    scheduleWallMs: 0,
  }));
  const baselines = new Map<number, Baseline>();
  const failures: CampaignFailure[] = [];
  const report = async (failure: CampaignFailure) => {
    failures.push(failure);
    await options.onFailure?.(failure);
  };
  let schedulesRun = 0;
  let stoppedBy: CampaignResult["stoppedBy"] = "schedules";
  const shard = options.shard ?? { index: 0, count: 1 };
  for (let index = 0; index < options.schedules; index++) {
    if (!shardOwns(shard, index, targets.length)) continue;
    if (options.clock.now() - startedMs >= options.budgetMs) {
      stoppedBy = "budget";
      break;
    }
    const slot = index % targets.length;
    const target = targets[slot] as CampaignTarget;
    const tally = tallies[slot] as ScenarioTally;
    const baseline = baselines.get(slot) ?? (await playBaseline(target, tally, report));
    baselines.set(slot, baseline);
    if (baseline.broken) continue;
    const seed = options.firstSeed + index;
    const rng = new Rng(seed).stream(exploreRngStreamName);
    const slots = drawFaultSlots(rng, {
      spanMs: baseline.spanMs,
      ...(options.maxFaults === undefined ? {} : { maxFaults: options.maxFaults }),
    });
    options.onStart?.(target, seed);
    const runStartedMs = options.clock.now();
    const outcome = await target.runs.random(seed, slots, options.catalogue, rng);
    tally.scheduleWallMs += options.clock.now() - runStartedMs;
    schedulesRun++;
    tally.schedules++;
    tally.runs++;
    options.onSchedule?.(target, seed, outcome, schedulesRun);
    if (outcome.failedStep !== undefined) tally.stepsFailed++;
    const found = campaignFailureOf(outcome);
    if (!isFailure(found)) continue;
    const { failure, runsSpent } = await minimise(target.runs, { file: target.file }, seed, outcome.schedule, found);
    tally.runs += runsSpent;
    tally.failures++;
    await report({ scenario: target, withoutFaults: false, failure });
  }
  return { tallies, schedulesRun, failures, wallMs: options.clock.now() - startedMs, stoppedBy };
}

/**
 * Whether the shard runs schedule `index`. Schedule i = b·S + r (S scenarios) belongs to shard
 * (r + b) mod N: each round of S schedules is split evenly, and the split turns by one scenario
 * each round, so every shard plays every scenario in turn. (Owning i mod N instead gave each of two
 * shards over an even number of scenarios only half of them, and a budget cut the slow half short.)
 */
export function shardOwns(
  shard: { readonly index: number; readonly count: number },
  index: number,
  scenarios: number,
): boolean {
  const round = Math.floor(index / scenarios);
  return ((index % scenarios) + round) % shard.count === shard.index;
}

/**
 * What counts as a failure in a campaign: an invariant violated. A timeline step that failed is
 * counted (`stepsFailed`) but not shrunk: the scenarios' own steps were written for a fault-free
 * cluster, and a random fault often makes one fail as it would in life (a write into a pod whose
 * node is off, a delete of a pod the node's eviction already removed, the scenario's own fault on a
 * node that is already down) — the fault doing its job, not a bug. `kvol sim explore` on one
 * scenario still stops at a failed step, for the scenario's author.
 */
export function campaignFailureOf(outcome: RunFailure): RunFailure {
  return outcome.violation === undefined ? {} : { violation: outcome.violation };
}

/** Plays the scenario without added faults: its span, and a failure when it fails on its own. */
async function playBaseline(
  target: CampaignTarget,
  tally: ScenarioTally,
  report: (failure: CampaignFailure) => Promise<void>,
): Promise<Baseline> {
  const outcome = await target.runs.replay(target.baselineSeed, []);
  tally.runs++;
  if (!isFailure(outcome)) return { spanMs: outcome.endMs, broken: false };
  tally.failures++;
  const failure: ExploreFailure = {
    seed: target.baselineSeed,
    found: [],
    shrunk: [],
    ...failureOf(outcome),
    reproduced: true,
    shrinkRuns: 0,
    replayCommand: replayCommand(target.file, target.baselineSeed, []),
  };
  await report({ scenario: target, withoutFaults: true, failure });
  return { spanMs: outcome.endMs, broken: true };
}
