/**
 * Random exploration of one scenario (`kvol sim explore FILE --seeds N`): for each seed, a run with
 * one to a few random faults of the catalogue at random times within the scenario's span, each
 * hitting a target valid at that moment. A failure is an invariant violation or a timeline step
 * that failed (a fault's injection, an action the cluster refused) — an expectation, though, may
 * well fail under faults the scenario did not plan for, and is not one. On the first failure the
 * schedule is replayed to confirm it, shrunk by delta debugging to the fewest faults that still
 * fail the same way (the same invariant, or the same step), and returned with the command line
 * that replays it.
 */
import { Rng } from "../../runtime/rng.ts";
import type { FaultDefinition } from "../faults/fault.ts";
import { exploreDefaultFirstSeed, exploreRngStreamName, shrinkMaxRuns } from "./constants.ts";
import type { FaultSchedule } from "./fault-schedule.ts";
import { drawFaultSlots, type FaultSlot } from "./fault-slots.ts";
import { replayCommand } from "./replay-command.ts";
import { shrinkList } from "./shrink.ts";

/** What explore needs to know of a run's invariant violation. */
export interface RunViolation {
  readonly atMs: number;
  readonly violations: ReadonlyArray<{ readonly invariant: string; readonly message: string }>;
}

/** A timeline step of the scenario that failed during a run. */
export interface FailedStep {
  readonly atMs: number;
  /** Which step: `timeline step fault at 2m`. */
  readonly step: string;
  /** Why it failed. */
  readonly detail: string;
}

/** How a run failed: an invariant violation, a failed timeline step, or both. */
export interface RunFailure {
  readonly violation?: RunViolation;
  /** The first timeline step that failed. */
  readonly failedStep?: FailedStep;
}

export interface RunOutcome extends RunFailure {
  /** Virtual time at which the run ended (since its start). */
  readonly endMs: number;
}

export function isFailure(outcome: RunFailure): boolean {
  return outcome.violation !== undefined || outcome.failedStep !== undefined;
}

export interface RandomRunOutcome extends RunOutcome {
  /** The faults the run actually injected (slots with nothing to hit are left out). */
  readonly schedule: FaultSchedule;
  /** Why drawn faults were not injected or not healed, for the seed's line. */
  readonly skipped: readonly string[];
}

/** How explore runs the scenario; `scenario-runs.ts` plugs in the scenario runner. */
export interface ExploreRuns {
  /** One run with `seed` and exactly the faults of `schedule` besides the scenario's own. */
  replay(seed: number, schedule: FaultSchedule): Promise<RunOutcome>;
  /** One run with `seed`, injecting at `slots` faults of `catalogue` and targets picked with `rng` then. */
  random(
    seed: number,
    slots: readonly FaultSlot[],
    catalogue: readonly FaultDefinition[],
    rng: Rng,
  ): Promise<RandomRunOutcome>;
}

export interface ExploreOptions {
  /** The scenario file, as the replay command names it. */
  readonly file: string;
  /** Options the runs are made with besides the seed (`--until 5m`), repeated in the replay command. */
  readonly replayFlags?: readonly string[];
  /** How many seeds to explore. */
  readonly seeds: number;
  /** The first seed; the others follow it. Default `exploreDefaultFirstSeed`. */
  readonly firstSeed?: number;
  readonly catalogue: readonly FaultDefinition[];
  readonly maxFaults?: number;
  /** Called after each explored seed (progress output). */
  readonly onSeed?: (seed: number, outcome: RandomRunOutcome) => void;
}

export interface ExploreFailure extends RunFailure {
  readonly seed: number;
  /** The schedule the random run injected. */
  readonly found: FaultSchedule;
  /** The smallest schedule found that still fails the same way (same invariant or same step). */
  readonly shrunk: FaultSchedule;
  /** False when replaying the found schedule did not fail the same way again (then nothing is shrunk). */
  readonly reproduced: boolean;
  /** Runs spent shrinking. */
  readonly shrinkRuns: number;
  readonly replayCommand: string;
}

export interface ExploreResult {
  /** Seeds explored, the failing one included. */
  readonly seedsRun: number;
  /** Every run, the baseline, replays and shrinking included. */
  readonly runs: number;
  /** The scenario's span without added faults. */
  readonly spanMs: number;
  readonly failure?: ExploreFailure;
}

/** The ways a run failed: the invariants it broke and the step that failed. */
function failureKinds(failure: RunFailure): Set<string> {
  const kinds = new Set((failure.violation?.violations ?? []).map((entry) => `invariant ${entry.invariant}`));
  if (failure.failedStep !== undefined) kinds.add(failure.failedStep.step);
  return kinds;
}

/** Whether `outcome` fails in one of the ways `original` did (shrinking must not drift to another bug). */
function failsTheSameWay(original: RunFailure, outcome: RunFailure): boolean {
  const wanted = failureKinds(original);
  return [...failureKinds(outcome)].some((kind) => wanted.has(kind));
}

/** Only the failure part of an outcome. */
export function failureOf(outcome: RunFailure): RunFailure {
  return {
    ...(outcome.violation === undefined ? {} : { violation: outcome.violation }),
    ...(outcome.failedStep === undefined ? {} : { failedStep: outcome.failedStep }),
  };
}

export async function exploreScenario(runs: ExploreRuns, options: ExploreOptions): Promise<ExploreResult> {
  if (!Number.isSafeInteger(options.seeds) || options.seeds < 1) {
    throw new RangeError(`explore: seeds must be a whole number >= 1, got ${options.seeds}`);
  }
  if (options.catalogue.length === 0) throw new RangeError("explore: the catalogue of faults to draw from is empty");
  const firstSeed = options.firstSeed ?? exploreDefaultFirstSeed;
  let runCount = 1;
  const baseline = await runs.replay(firstSeed, []);
  const spanMs = baseline.endMs;
  if (isFailure(baseline)) {
    return { seedsRun: 0, runs: runCount, spanMs, failure: withoutFaults(options, firstSeed, failureOf(baseline)) };
  }
  for (let index = 0; index < options.seeds; index++) {
    const seed = firstSeed + index;
    const rng = new Rng(seed).stream(exploreRngStreamName);
    const slots = drawFaultSlots(rng, {
      spanMs,
      ...(options.maxFaults === undefined ? {} : { maxFaults: options.maxFaults }),
    });
    const outcome = await runs.random(seed, slots, options.catalogue, rng);
    runCount++;
    options.onSeed?.(seed, outcome);
    if (!isFailure(outcome)) continue;
    const { failure, runsSpent } = await minimise(runs, options, seed, outcome.schedule, failureOf(outcome));
    return { seedsRun: index + 1, runs: runCount + runsSpent, spanMs, failure };
  }
  return { seedsRun: options.seeds, runs: runCount, spanMs };
}

/** The scenario fails on its own: no fault is needed to replay it. */
function withoutFaults(options: ExploreOptions, seed: number, failure: RunFailure): ExploreFailure {
  return {
    seed,
    found: [],
    shrunk: [],
    ...failure,
    reproduced: true,
    shrinkRuns: 0,
    replayCommand: replayCommand(options.file, seed, [], options.replayFlags),
  };
}

/**
 * Replays the failing schedule, then shrinks it to the fewest faults that still fail the same way
 * (also the fault campaign's, `campaign.ts`).
 */
export async function minimise(
  runs: ExploreRuns,
  options: Pick<ExploreOptions, "file" | "replayFlags">,
  seed: number,
  found: FaultSchedule,
  original: RunFailure,
): Promise<{ failure: ExploreFailure; runsSpent: number }> {
  const command = (schedule: FaultSchedule) => replayCommand(options.file, seed, schedule, options.replayFlags);
  const replayed = await runs.replay(seed, found);
  if (!failsTheSameWay(original, replayed)) {
    const failure = { seed, found, shrunk: found, ...original, reproduced: false, shrinkRuns: 0 };
    return { failure: { ...failure, replayCommand: command(found) }, runsSpent: 1 };
  }
  // ddmin keeps the last failing candidate, so the last failing replay is the shrunk schedule's.
  let lastFailing: RunFailure = failureOf(replayed);
  const shrunk = await shrinkList(
    found,
    async (candidate) => {
      const outcome = await runs.replay(seed, candidate);
      const fails = failsTheSameWay(original, outcome);
      if (fails) lastFailing = failureOf(outcome);
      return fails;
    },
    shrinkMaxRuns,
  );
  const failure: ExploreFailure = {
    seed,
    found,
    shrunk: shrunk.items,
    ...lastFailing,
    reproduced: true,
    shrinkRuns: shrunk.runs,
    replayCommand: command(shrunk.items),
  };
  return { failure, runsSpent: 1 + shrunk.runs };
}
