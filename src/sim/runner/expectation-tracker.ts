/**
 * Decides one expectation while the run goes: after every step the runner hands each undecided
 * tracker the time, the cluster and the Events seen in that step; at the end (or when an invariant
 * stops the run) `finish` decides what is left. Rules in `docs/scenarios.md`, "expect".
 */
import type { Event } from "../../api/objects.ts";
import { resolveResourceName } from "../../api/resources.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Condition } from "../conditions/ast.ts";
import { evaluateCondition } from "../conditions/evaluate.ts";
import { refNameMatches } from "../conditions/object-ref.ts";
import type { WriteCounts } from "../conditions/write-counts.ts";
import { formatClock } from "../scenario/duration.ts";
import type { EventMatcher, Expectation, LogMatcher } from "../scenario/model.ts";
import type { EventOccurrence } from "./event-observer.ts";
import { type LogOccurrence, logMatches } from "./log-capture.ts";
import type { Verdict } from "./verdict.ts";

export interface StepState {
  /** Run time now. */
  readonly nowMs: number;
  readonly cluster: Cluster;
  readonly occurrences: readonly EventOccurrence[];
  /** Log lines written since the previous step (only when the scenario has `log` expectations). */
  readonly logs?: readonly LogOccurrence[];
  /** API writes, for `writes to …` conditions. */
  readonly writes?: WriteCounts;
}

/** What an event or log expectation has seen so far in its window. */
interface Sighting {
  readonly atMs: number;
  readonly text: string;
}

/** How the run ended: its natural end, or stopped early by an invariant violation. */
export type RunEnding = { readonly stopped: false } | { readonly stopped: true; readonly reason: string };

export class ExpectationTracker {
  private verdict: Verdict | undefined;
  private eventTimes = 0;
  private firstMatch: Sighting | undefined;

  constructor(readonly expectation: Expectation) {}

  get decided(): Verdict | undefined {
    return this.verdict;
  }

  /** Run times at which the verdict may change without anything else happening: window edges. */
  wakeTimes(): number[] {
    const e = this.expectation;
    switch (e.kind) {
      case "eventually":
        return [e.afterMs, e.afterMs + e.withinMs];
      case "never":
        return e.untilMs === undefined ? [e.afterMs] : [e.afterMs, e.untilMs];
      case "event":
      case "log":
        return e.withinMs === undefined ? [e.afterMs] : [e.afterMs, e.afterMs + e.withinMs];
      default:
        return [];
    }
  }

  /** The latest time this expectation looks at, for the default end of the run. */
  horizonMs(): number {
    return Math.max(0, ...this.wakeTimes());
  }

  async step(state: StepState): Promise<void> {
    if (this.verdict !== undefined) return;
    const e = this.expectation;
    switch (e.kind) {
      case "eventually":
        return this.stepEventually(state, e.condition, e.afterMs, e.afterMs + e.withinMs);
      case "never":
        return this.stepNever(state, e.condition, e.afterMs, e.untilMs);
      case "event":
        return this.stepSightings(state, eventSightings(state, e.matcher), e.afterMs, e.withinMs, e.count);
      case "log":
        return this.stepSightings(state, logSightings(state, e.matcher), e.afterMs, e.withinMs, e.count);
      default:
        return;
    }
  }

  /** Decides whatever is still open when the run ends; `violatedInvariants` names those that were. */
  async finish(state: StepState, ending: RunEnding, violatedInvariants: ReadonlySet<string>): Promise<Verdict> {
    if (this.verdict !== undefined) return this.verdict;
    const e = this.expectation;
    if (e.kind === "never-violated") {
      return violatedInvariants.has(e.invariant)
        ? this.decide("failed", state.nowMs, `${e.invariant} was violated`)
        : ending.stopped
          ? this.decide("not decided", undefined, `the run stopped at ${formatClock(state.nowMs)}: ${ending.reason}`)
          : this.decide("passed", state.nowMs, "held for the whole run");
    }
    if (ending.stopped) {
      return this.decide("not decided", undefined, `the run stopped at ${formatClock(state.nowMs)}: ${ending.reason}`);
    }
    switch (e.kind) {
      case "eventually":
        return this.decide("failed", state.nowMs, `the run ended at ${formatClock(state.nowMs)} before it held`);
      case "never":
        return this.decide("passed", state.nowMs, "never held");
      case "event":
      case "log":
        return this.closeWindow(state.nowMs, e.count);
      case "final":
        return this.finishFinal(state, e.condition);
    }
  }

  private async stepEventually(state: StepState, condition: Condition, fromMs: number, deadlineMs: number) {
    if (state.nowMs < fromMs) return;
    const holds = await this.evaluate(state, condition);
    if (holds === undefined) return;
    if (holds && state.nowMs <= deadlineMs) this.decide("passed", state.nowMs, `held at ${formatClock(state.nowMs)}`);
    else if (state.nowMs >= deadlineMs) {
      this.decide("failed", state.nowMs, `did not hold by ${formatClock(deadlineMs)}`);
    }
  }

  private async stepNever(state: StepState, condition: Condition, fromMs: number, untilMs: number | undefined) {
    if (state.nowMs < fromMs) return;
    if (untilMs !== undefined && state.nowMs > untilMs) {
      this.decide("passed", untilMs, `never held up to ${formatClock(untilMs)}`);
      return;
    }
    const holds = await this.evaluate(state, condition);
    if (holds) this.decide("failed", state.nowMs, `held at ${formatClock(state.nowMs)}`);
  }

  /** Counts the sightings (Events or log lines, with how many times each) that fall in the window. */
  private stepSightings(
    state: StepState,
    sightings: ReadonlyArray<Sighting & { readonly times: number }>,
    fromMs: number,
    withinMs: number | undefined,
    count: number | undefined,
  ): void {
    const untilMs = withinMs === undefined ? undefined : fromMs + withinMs;
    for (const sighting of sightings) {
      if (sighting.atMs < fromMs || (untilMs !== undefined && sighting.atMs > untilMs)) continue;
      this.eventTimes += sighting.times;
      this.firstMatch ??= sighting;
    }
    if (count === undefined && this.firstMatch !== undefined) {
      this.decide(
        "passed",
        this.firstMatch.atMs,
        `${this.seenWord()} at ${formatClock(this.firstMatch.atMs)}: ${this.firstMatch.text}`,
      );
    } else if (count !== undefined && this.eventTimes > count) {
      this.decide(
        "failed",
        state.nowMs,
        `${this.seenWord()} ${timesText(this.eventTimes)}, expected ${timesText(count)}${firstText(this.firstMatch)}`,
      );
    } else if (untilMs !== undefined && state.nowMs >= untilMs) {
      this.closeWindow(untilMs, count);
    }
  }

  private closeWindow(atMs: number, count: number | undefined): Verdict {
    const what = this.expectation.kind === "log" ? "matching log line" : "matching Event";
    if (count === undefined) return this.decide("failed", atMs, `no ${what} by ${formatClock(atMs)}`);
    if (this.eventTimes === count) return this.decide("passed", atMs, `${this.seenWord()} ${timesText(count)}`);
    return this.decide(
      "failed",
      atMs,
      `${this.seenWord()} ${timesText(this.eventTimes)}, expected ${timesText(count)}${firstText(this.firstMatch)}`,
    );
  }

  private seenWord(): string {
    return this.expectation.kind === "log" ? "logged" : "recorded";
  }

  private async finishFinal(state: StepState, condition: Condition): Promise<Verdict> {
    const holds = await this.evaluate(state, condition);
    if (this.verdict !== undefined) return this.verdict;
    return holds
      ? this.decide("passed", state.nowMs, `held at the end (${formatClock(state.nowMs)})`)
      : this.decide("failed", state.nowMs, `did not hold at the end (${formatClock(state.nowMs)})`);
  }

  /** The condition's value, or undefined after deciding "failed" because it could not be evaluated. */
  private async evaluate(state: StepState, condition: Condition): Promise<boolean | undefined> {
    try {
      return await evaluateCondition(condition, state.cluster, state.writes);
    } catch (error) {
      const reason = errorMessage(error);
      this.decide("failed", state.nowMs, `could not be evaluated at ${formatClock(state.nowMs)}: ${reason}`);
      return undefined;
    }
  }

  private decide(status: Verdict["status"], atMs: number | undefined, detail: string): Verdict {
    const { text, kind, line } = this.expectation;
    this.verdict = { expectation: text, kind, status, ...(atMs === undefined ? {} : { atMs }), detail, line };
    return this.verdict;
  }
}

export function eventMatches(event: Event, matcher: EventMatcher): boolean {
  const involved = event.involvedObject;
  const object = matcher.object;
  if (matcher.reason !== undefined && event.reason !== matcher.reason) return false;
  if (matcher.type !== undefined && event.type !== matcher.type) return false;
  if (matcher.messageContains !== undefined && !(event.message ?? "").includes(matcher.messageContains)) return false;
  if (object === undefined) return true;
  if (involved.kind !== object.kind) return false;
  if (object.name === undefined) return true;
  const namespaced = resolveResourceName(object.kind)?.namespaced ?? false;
  if (namespaced && (involved.namespace ?? "") !== object.namespace) return false;
  return refNameMatches(object, involved.name ?? "");
}

function describeEvent(event: Event): string {
  return `${event.type ?? "Normal"} ${event.reason ?? ""}: ${event.message ?? ""}`;
}

function timesText(times: number): string {
  return times === 1 ? "1 time" : `${times} times`;
}

function firstText(first: Sighting | undefined): string {
  return first === undefined ? "" : ` (first at ${formatClock(first.atMs)}: ${first.text})`;
}

function eventSightings(state: StepState, matcher: EventMatcher): Array<Sighting & { times: number }> {
  return state.occurrences
    .filter((occurrence) => eventMatches(occurrence.event, matcher))
    .map((occurrence) => ({ atMs: occurrence.atMs, times: occurrence.times, text: describeEvent(occurrence.event) }));
}

function logSightings(state: StepState, matcher: LogMatcher): Array<Sighting & { times: number }> {
  return (state.logs ?? [])
    .filter((occurrence) => logMatches(occurrence.record, matcher))
    .map((occurrence) => ({ atMs: occurrence.atMs, times: 1, text: shortened(occurrence.record.message) }));
}

/** A verdict quotes at most this much of a log line (a mount error carries the whole mount output). */
const quotedLogLineMaxChars = 300;

function shortened(message: string): string {
  const oneLine = message.replace(/\r?\n/g, "\\n");
  return oneLine.length <= quotedLogLineMaxChars ? oneLine : `${oneLine.slice(0, quotedLogLineMaxChars)}…`;
}
