/**
 * Runs the invariants after a step of a simulated run and, when one is violated, reports when, what
 * and how it came to be: the violations, and the recent history of every object they name — the API
 * objects' changes and Events (from the shared informers), the world's attachments, mappings, power
 * and mounts (compared after every check), and the latest log lines that mention them.
 *
 *   const checker = new InvariantChecker(cluster);
 *   await cluster.runUntil(async () => (report = await checker.check()) !== undefined || done());
 *
 * Call `check()` after every step: some invariants judge a state by the step it arose in. Besides
 * the catalogue, a check reports every invariant the code asserted and found broken since the last
 * one (`runtime/assert.ts`, invariant `asserted-in-code`): the run stops at the faulty instant, with
 * the object's key, even when the operation that met it reported it as an ordinary failure.
 */
import type { Cluster } from "../../cmd/cluster.ts";
import { type InvariantViolation, onInvariantViolation } from "../../runtime/assert.ts";
import { ApiHistory } from "./api-history.ts";
import { allInvariants } from "./catalogue.ts";
import { ClusterView } from "./cluster-view.ts";
import { reportLogLinesMax } from "./constants.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { formatEntry, formatVirtualTime, ObjectHistory } from "./object-history.ts";
import { WorldHistory } from "./world-history.ts";

/** The name violations asserted by the code itself carry. */
const assertedInCode = "asserted-in-code";

export interface ViolationReport {
  /** Virtual time of the check that found the violations. */
  readonly atMs: number;
  readonly violations: readonly Violation[];
  /** `2026-01-01T00:00:12.345Z Node/node-a: updated: Ready=false …`, oldest first, then the latest log lines naming them. */
  readonly history: readonly string[];
}

export class InvariantChecker {
  private readonly history = new ObjectHistory();
  private readonly apiHistory: ApiHistory;
  private readonly worldHistory: WorldHistory;
  private readonly asserted: InvariantViolation[] = [];
  private readonly stopHearingAsserted: () => void;

  constructor(
    private readonly cluster: Cluster,
    private readonly invariants: readonly Invariant[] = allInvariants,
  ) {
    ClusterView.of(cluster);
    this.apiHistory = new ApiHistory(cluster, this.history);
    this.worldHistory = new WorldHistory(cluster.world, cluster.clock, this.history);
    this.worldHistory.observe();
    this.stopHearingAsserted = onInvariantViolation((violation) => this.asserted.push(violation));
  }

  /** Checks every invariant now; undefined when all hold. */
  async check(): Promise<ViolationReport | undefined> {
    this.worldHistory.observe();
    const violations: Violation[] = this.asserted.splice(0).map((violation) => ({
      invariant: assertedInCode,
      message: violation.message,
      objects: [violation.key],
    }));
    for (const invariant of this.invariants) violations.push(...(await invariant.check(this.cluster)));
    if (violations.length === 0) return undefined;
    return { atMs: this.cluster.clock.now(), violations, history: this.historyOf(violations) };
  }

  /** Stops following the API objects (the cluster's informers keep running). */
  stop(): void {
    this.apiHistory.stop();
    this.stopHearingAsserted();
  }

  private historyOf(violations: readonly Violation[]): string[] {
    const objects = new Set<string>();
    for (const violation of violations) {
      for (const object of violation.objects) {
        objects.add(object);
        const colon = object.indexOf(":");
        if (colon > 0) objects.add(object.slice(0, colon));
      }
    }
    const changes = this.history.entriesOfAll(objects).map(formatEntry);
    return [...changes, ...this.logLinesAbout(objects)];
  }

  /** The latest log lines naming a volume, pod, disk or mount of the violation (node names alone are too common). */
  private logLinesAbout(objects: ReadonlySet<string>): string[] {
    const names = [...objects]
      .filter((object) => !/^(Node|node)\/[^:]*$/.test(object))
      .map((object) => object.slice(object.lastIndexOf("/") + 1))
      .filter((name) => name.length > 0);
    if (names.length === 0) return [];
    const lines: string[] = [];
    const records = this.cluster.logs.records;
    for (let index = records.length - 1; index >= 0 && lines.length < reportLogLinesMax; index--) {
      const record = records[index];
      if (record === undefined) continue;
      const text = `${record.message} ${record.fields.map(([key, value]) => `${key}=${value}`).join(" ")}`;
      if (!names.some((name) => text.includes(name))) continue;
      const component = record.component === "" ? "" : ` ${record.component}`;
      lines.push(`${formatVirtualTime(record.timeMs)} log${component}: ${text.trim()}`);
    }
    return lines.reverse();
  }
}
