/**
 * Plays a scenario on a fresh simulated cluster. Virtual time advances step by step — to the next
 * due timer, timeline action or expectation window edge, as `Cluster.runUntil` does — and after
 * every step the invariants are checked and the open expectations evaluated. A violation stops
 * the run; an action that fails is a failed verdict, and the run goes on. Same scenario, same seed, same options: the same result.
 */
import type { Cluster, ClusterOptions } from "../../cmd/cluster.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { checksOf } from "../conditions/ast.ts";
import type { FaultParams } from "../faults/fault.ts";
import { allInvariants } from "../invariants/catalogue.ts";
import { InvariantChecker, type ViolationReport } from "../invariants/checker.ts";
import type { Invariant } from "../invariants/invariant.ts";
import { formatClock } from "../scenario/duration.ts";
import type { Action, Scenario } from "../scenario/model.ts";
import { faultObject, performAction } from "./actions.ts";
import { startScenarioCluster } from "./build-cluster.ts";
import { defaultScenarioSeed, defaultSettleMs, maxStepsPerRun } from "./constants.ts";
import { EventObserver } from "./event-observer.ts";
import { ExpectationTracker, type RunEnding, type StepState } from "./expectation-tracker.ts";
import { LogCapture } from "./log-capture.ts";
import { type TimelineEntry, TimelineRecorder } from "./timeline.ts";
import type { Verdict } from "./verdict.ts";
import { WriteRecorder } from "./write-recorder.ts";

export type { TimelineEntry, Verdict };

/** A fault added to the scenario's own timeline (`kvol sim explore` draws these at random). */
export interface ScheduledFault {
  atMs: number;
  fault: string;
  params: FaultParams;
  healAtMs?: number;
}

export interface RunScenarioOptions {
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Run time at which the run ends, overriding the scenario's `until`. */
  untilMs?: number;
  extraFaults?: readonly ScheduledFault[];
  /** Test-only cluster flags (a deliberately broken controller, for instance). */
  clusterOptions?: Partial<ClusterOptions>;
  /** Called with the cluster as the run ends, before it is stopped (reading its state over the API, `kvol why`). */
  atEnd?: (cluster: Cluster) => Promise<void>;
  /** Called after every step with the run time, once the invariants held (`kvol sim run --html` records the states). */
  afterStep?: (cluster: Cluster, runMs: number) => Promise<void>;
}

export interface ScenarioResult {
  passed: boolean;
  verdicts: readonly Verdict[];
  /** The violation that stopped the run; its `atMs` is run time like every other time here. */
  violation?: ViolationReport;
  timeline: readonly TimelineEntry[];
  /** Run time at which the run ended (earlier than planned when it was stopped). */
  endMs: number;
  seed: number;
}

interface ScheduledAction {
  readonly atMs: number;
  readonly action: Action;
  readonly note?: string;
  readonly line: number;
}

export async function runScenario(scenario: Scenario, options: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const seed = options.seed ?? scenario.seed ?? defaultScenarioSeed;
  const logCapture = scenario.expectations.some((expectation) => expectation.kind === "log")
    ? new LogCapture()
    : undefined;
  const cluster = await startScenarioCluster(
    scenario.cluster,
    seed,
    withLogCapture(options.clusterOptions, logCapture),
  );
  const writes = await startWriteRecorder(cluster, scenario);
  try {
    const result = await new ScenarioRun(cluster, scenario, options, seed, { logCapture, writes }).run();
    await options.atEnd?.(cluster);
    return result;
  } finally {
    writes?.stop();
    await cluster.stop();
  }
}

/** The cluster options with `capture` also receiving every log record. */
function withLogCapture(
  clusterOptions: Partial<ClusterOptions> | undefined,
  capture: LogCapture | undefined,
): Partial<ClusterOptions> | undefined {
  if (capture === undefined) return clusterOptions;
  const other = clusterOptions?.logSink;
  return {
    ...clusterOptions,
    logSink: {
      write: (record) => {
        capture.write(record);
        other?.write(record);
      },
    },
  };
}

/** Records API writes when a condition counts them, for the kinds they name. */
async function startWriteRecorder(cluster: Cluster, scenario: Scenario): Promise<WriteRecorder | undefined> {
  const checks = scenario.expectations
    .flatMap((expectation) => ("condition" in expectation ? checksOf(expectation.condition) : []))
    .flatMap((check) => (check.type === "write-count" ? [check] : []));
  if (checks.length === 0) return undefined;
  return WriteRecorder.start(cluster, {
    kinds: checks.map((check) => check.object.kind),
    longestWindowMs: Math.max(0, ...checks.map((check) => check.windowMs ?? 0)),
  });
}

/** What the run records for its expectations besides Events: log lines and API writes. */
interface RunRecorders {
  readonly logCapture: LogCapture | undefined;
  readonly writes: WriteRecorder | undefined;
}

/** The actions of the timeline, the heals its faults ask for, and the extra faults, by time. */
function scheduleOf(scenario: Scenario, extraFaults: readonly ScheduledFault[]): ScheduledAction[] {
  const schedule: ScheduledAction[] = [];
  for (const step of scenario.timeline) {
    schedule.push(step);
    if (step.action.type === "fault" && step.action.healAfterMs !== undefined) {
      const { fault, params } = step.action;
      schedule.push({
        atMs: step.atMs + step.action.healAfterMs,
        action: { type: "heal", fault, params },
        line: step.line,
      });
    }
  }
  for (const extra of extraFaults) {
    schedule.push({ atMs: extra.atMs, action: { type: "fault", fault: extra.fault, params: extra.params }, line: 0 });
    if (extra.healAtMs !== undefined) {
      schedule.push({
        atMs: extra.healAtMs,
        action: { type: "heal", fault: extra.fault, params: extra.params },
        line: 0,
      });
    }
  }
  // Array.prototype.sort is stable: same-time actions keep the order written.
  return schedule.sort((a, b) => a.atMs - b.atMs);
}

/**
 * The invariants a run checks: those the scenario names (`never: { invariant: … }`), or all of them
 * when it names none. An invariant left out is not checked at all, so it cannot stop the run.
 */
export function checkedInvariants(scenario: Scenario): readonly Invariant[] {
  const named = new Set<string>();
  for (const expectation of scenario.expectations) {
    if (expectation.kind === "never-violated") named.add(expectation.invariant);
  }
  return named.size === 0 ? allInvariants : allInvariants.filter((invariant) => named.has(invariant.name));
}

class ScenarioRun {
  private readonly startMs: number;
  private readonly schedule: ScheduledAction[];
  private readonly trackers: ExpectationTracker[];
  private readonly checker: InvariantChecker;
  private readonly observer: EventObserver;
  private readonly timeline = new TimelineRecorder();
  private readonly endMs: number;
  private nextAction = 0;
  private violation: ViolationReport | undefined;
  private readonly failedSteps: Verdict[] = [];

  constructor(
    private readonly cluster: Cluster,
    scenario: Scenario,
    private readonly options: RunScenarioOptions,
    private readonly seed: number,
    private readonly recorders: RunRecorders,
  ) {
    this.startMs = cluster.clock.now();
    recorders.logCapture?.startAt(this.startMs);
    this.schedule = scheduleOf(scenario, options.extraFaults ?? []);
    this.trackers = scenario.expectations.map((expectation) => new ExpectationTracker(expectation));
    this.checker = new InvariantChecker(cluster, checkedInvariants(scenario));
    this.observer = new EventObserver(cluster);
    this.endMs = options.untilMs ?? scenario.untilMs ?? this.defaultEndMs();
  }

  async run(): Promise<ScenarioResult> {
    try {
      for (let step = 0; ; step++) {
        if (step >= maxStepsPerRun) {
          throw new Error(`scenario run: still at ${formatClock(this.nowMs())} after ${maxStepsPerRun} steps`);
        }
        await this.performDueActions();
        await this.afterStep();
        if (this.violation !== undefined || this.nowMs() >= this.endMs) break;
        await this.cluster.clock.advanceTo(this.nextStopClockMs());
      }
    } finally {
      this.checker.stop();
    }
    return this.result();
  }

  private nowMs(): number {
    return this.cluster.clock.now() - this.startMs;
  }

  /** One minute after the last action, heal or expectation window. */
  private defaultEndMs(): number {
    const lastActionMs = this.schedule.at(-1)?.atMs ?? 0;
    const horizons = this.trackers.map((tracker) => tracker.horizonMs());
    return Math.max(lastActionMs, ...horizons) + defaultSettleMs;
  }

  /** The next clock time anything can happen: a timer, an action, a window edge, or the end. */
  private nextStopClockMs(): number {
    const now = this.nowMs();
    const runTimes = [this.endMs];
    const action = this.schedule[this.nextAction];
    if (action !== undefined) runTimes.push(action.atMs);
    for (const tracker of this.trackers) {
      if (tracker.decided === undefined) runTimes.push(...tracker.wakeTimes().filter((timeMs) => timeMs > now));
    }
    const nextClockMs = this.startMs + Math.min(...runTimes);
    const dueMs = this.cluster.clock.nextDueTime() ?? nextClockMs;
    return Math.max(this.cluster.clock.now(), Math.min(dueMs, nextClockMs));
  }

  private async performDueActions(): Promise<void> {
    for (let action = this.schedule[this.nextAction]; action !== undefined && action.atMs <= this.nowMs(); ) {
      this.nextAction++;
      try {
        const outcome = await performAction(this.cluster, action.action);
        this.timeline.action(
          this.nowMs(),
          outcome.object,
          action.note ? `${outcome.message} (${action.note})` : outcome.message,
        );
      } catch (error) {
        // The run goes on, as it would after a kubectl command that failed; the verdict records it.
        this.stepFailed(action, error);
      }
      action = this.schedule[this.nextAction];
    }
  }

  private stepFailed(action: ScheduledAction, error: unknown): void {
    const reason = errorMessage(error);
    const what =
      action.action.type === "fault" || action.action.type === "heal" ? faultObject(action.action.params) : "";
    this.timeline.action(this.nowMs(), what, `${action.action.type} failed: ${reason}`);
    this.failedSteps.push({
      expectation: `timeline step ${action.action.type} at ${formatClock(action.atMs)}`,
      kind: "step",
      status: "failed",
      atMs: this.nowMs(),
      detail: reason,
      line: action.line,
    });
  }

  private async afterStep(): Promise<void> {
    const occurrences = await this.observer.observe(this.nowMs());
    this.timeline.events(occurrences);
    const report = await this.checker.check();
    if (report !== undefined) {
      this.violation = { ...report, atMs: report.atMs - this.startMs };
      return;
    }
    const logs = this.recorders.logCapture?.take();
    const writes = this.recorders.writes;
    const state: StepState = {
      nowMs: this.nowMs(),
      cluster: this.cluster,
      occurrences,
      ...(logs === undefined ? {} : { logs }),
      ...(writes === undefined ? {} : { writes }),
    };
    for (const tracker of this.trackers) await tracker.step(state);
    await this.options.afterStep?.(this.cluster, this.nowMs());
  }

  private async result(): Promise<ScenarioResult> {
    const endMs = this.nowMs();
    const writes = this.recorders.writes;
    const state: StepState = {
      nowMs: endMs,
      cluster: this.cluster,
      occurrences: [],
      ...(writes === undefined ? {} : { writes }),
    };
    const ending = this.ending();
    const violated = new Set(this.violation?.violations.map((violation) => violation.invariant) ?? []);
    const verdicts: Verdict[] = [...this.failedSteps];
    for (const tracker of this.trackers) verdicts.push(await tracker.finish(state, ending, violated));
    this.timeline.logs(this.cluster.logs.records, this.startMs, endMs);
    const passed = this.violation === undefined && verdicts.every((verdict) => verdict.status === "passed");
    return {
      passed,
      verdicts,
      ...(this.violation === undefined ? {} : { violation: this.violation }),
      timeline: this.timeline.list(),
      endMs,
      seed: this.seed,
    };
  }

  private ending(): RunEnding {
    if (this.violation !== undefined) {
      const names = [...new Set(this.violation.violations.map((violation) => violation.invariant))].join(", ");
      return { stopped: true, reason: `invariant violated: ${names}` };
    }
    return { stopped: false };
  }
}
