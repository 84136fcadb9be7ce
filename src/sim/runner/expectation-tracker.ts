/**
 * Decides one expectation while the run goes: after every step the runner hands each undecided
 * tracker the time, the cluster and the Events seen in that step; at the end (or when an invariant
 * stops the run) `finish` decides what is left. Rules in `docs/scenarios.md`, "expect".
 */
import type { Event } from "../../api/objects.ts";
import { resolveResourceName } from "../../api/resources.ts";
import type { Cluster } from "../cluster.ts";
import type { Condition } from "../conditions/ast.ts";
import { evaluateCondition } from "../conditions/evaluate.ts";
import { refNameMatches } from "../conditions/object-ref.ts";
import { formatClock } from "../scenario/duration.ts";
import type { EventMatcher, Expectation } from "../scenario/model.ts";
import type { EventOccurrence } from "./event-observer.ts";
import type { Verdict } from "./verdict.ts";

export interface StepState {
  /** Run time now. */
  readonly nowMs: number;
  readonly cluster: Cluster;
  readonly occurrences: readonly EventOccurrence[];
}

/** How the run ended: its natural end, or stopped early by an invariant violation. */
export type RunEnding = { readonly stopped: false } | { readonly stopped: true; readonly reason: string };

export class ExpectationTracker {
  private verdict: Verdict | undefined;
  private eventTimes = 0;
  private firstMatch: EventOccurrence | undefined;

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
        return this.stepEvent(
          state,
          e.matcher,
          e.afterMs,
          e.withinMs === undefined ? undefined : e.afterMs + e.withinMs,
          e.count,
        );
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
        return this.closeEventWindow(state.nowMs, e.count);
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

  private stepEvent(
    state: StepState,
    matcher: EventMatcher,
    fromMs: number,
    untilMs: number | undefined,
    count: number | undefined,
  ): void {
    const inWindow = state.nowMs >= fromMs && (untilMs === undefined || state.nowMs <= untilMs);
    if (inWindow) {
      for (const occurrence of state.occurrences) {
        if (!eventMatches(occurrence.event, matcher)) continue;
        this.eventTimes += occurrence.times;
        this.firstMatch ??= occurrence;
      }
    }
    if (count === undefined && this.firstMatch !== undefined) {
      this.decide(
        "passed",
        this.firstMatch.atMs,
        `recorded at ${formatClock(this.firstMatch.atMs)}: ${describeEvent(this.firstMatch.event)}`,
      );
    } else if (count !== undefined && this.eventTimes > count) {
      this.decide(
        "failed",
        state.nowMs,
        `recorded ${timesText(this.eventTimes)}, expected ${timesText(count)}${firstText(this.firstMatch)}`,
      );
    } else if (untilMs !== undefined && state.nowMs >= untilMs) {
      this.closeEventWindow(untilMs, count);
    }
  }

  private closeEventWindow(atMs: number, count: number | undefined): Verdict {
    if (count === undefined) return this.decide("failed", atMs, `no matching Event by ${formatClock(atMs)}`);
    if (this.eventTimes === count) return this.decide("passed", atMs, `recorded ${timesText(count)}`);
    return this.decide(
      "failed",
      atMs,
      `recorded ${timesText(this.eventTimes)}, expected ${timesText(count)}${firstText(this.firstMatch)}`,
    );
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
      return await evaluateCondition(condition, state.cluster);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
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

function firstText(first: EventOccurrence | undefined): string {
  return first === undefined ? "" : ` (first at ${formatClock(first.atMs)}: ${describeEvent(first.event)})`;
}
