/**
 * Random exploration of one scenario (`kvol sim explore FILE --seeds N`): for each seed, a run with
 * one to a few random faults of the catalogue at random times within the scenario's span, each
 * hitting a target valid at that moment. Only an invariant violation counts as a failure — an
 * expectation may well fail under faults the scenario did not plan for. On the first violation the
 * schedule is replayed to confirm it, shrunk by delta debugging to the fewest faults that still
 * break the same invariant, and returned with the command line that replays it.
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

export interface RunOutcome {
  readonly violation?: RunViolation;
  /** Virtual time at which the run ended (since its start). */
  readonly endMs: number;
  /** Why the run stopped early without a violation: a timeline step the faults made impossible. */
  readonly failedStep?: string;
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

export interface ExploreFailure {
  readonly seed: number;
  /** The schedule the random run injected. */
  readonly found: FaultSchedule;
  /** The smallest schedule found that still breaks the same invariant. */
  readonly shrunk: FaultSchedule;
  /** The violation of the shrunk schedule's replay (the random run's when it did not reproduce). */
  readonly violation: RunViolation;
  /** False when replaying the found schedule did not break the invariant again (then nothing is shrunk). */
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

function violatedInvariants(violation: RunViolation | undefined): Set<string> {
  return new Set((violation?.violations ?? []).map((entry) => entry.invariant));
}

/** Whether `outcome` breaks one of the invariants `original` broke (shrinking must not drift to another bug). */
function breaksSameInvariant(original: RunViolation, outcome: RunOutcome): boolean {
  const wanted = violatedInvariants(original);
  return [...violatedInvariants(outcome.violation)].some((name) => wanted.has(name));
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
  if (baseline.violation !== undefined) {
    return { seedsRun: 0, runs: runCount, spanMs, failure: withoutFaults(options, firstSeed, baseline.violation) };
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
    if (outcome.violation === undefined) continue;
    const { failure, runsSpent } = await minimise(runs, options, seed, outcome.schedule, outcome.violation);
    return { seedsRun: index + 1, runs: runCount + runsSpent, spanMs, failure };
  }
  return { seedsRun: options.seeds, runs: runCount, spanMs };
}

/** The scenario breaks an invariant on its own: no fault is needed to replay it. */
function withoutFaults(options: ExploreOptions, seed: number, violation: RunViolation): ExploreFailure {
  return {
    seed,
    found: [],
    shrunk: [],
    violation,
    reproduced: true,
    shrinkRuns: 0,
    replayCommand: replayCommand(options.file, seed, [], options.replayFlags),
  };
}

/** Replays the failing schedule, then shrinks it to the fewest faults that still break the same invariant. */
async function minimise(
  runs: ExploreRuns,
  options: ExploreOptions,
  seed: number,
  found: FaultSchedule,
  violation: RunViolation,
): Promise<{ failure: ExploreFailure; runsSpent: number }> {
  const command = (schedule: FaultSchedule) => replayCommand(options.file, seed, schedule, options.replayFlags);
  const replayed = await runs.replay(seed, found);
  if (!breaksSameInvariant(violation, replayed) || replayed.violation === undefined) {
    const failure = { seed, found, shrunk: found, violation, reproduced: false, shrinkRuns: 0 };
    return { failure: { ...failure, replayCommand: command(found) }, runsSpent: 1 };
  }
  // ddmin keeps the last failing candidate, so the last failing replay is the shrunk schedule's.
  let lastFailing: RunViolation = replayed.violation;
  const shrunk = await shrinkList(
    found,
    async (candidate) => {
      const outcome = await runs.replay(seed, candidate);
      const fails = breaksSameInvariant(violation, outcome);
      if (fails && outcome.violation !== undefined) lastFailing = outcome.violation;
      return fails;
    },
    shrinkMaxRuns,
  );
  const failure: ExploreFailure = {
    seed,
    found,
    shrunk: shrunk.items,
    violation: lastFailing,
    reproduced: true,
    shrinkRuns: shrunk.runs,
    replayCommand: command(shrunk.items),
  };
  return { failure, runsSpent: 1 + shrunk.runs };
}
