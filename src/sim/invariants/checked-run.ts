/**
 * Running a cluster with the invariants checked after every step of virtual time, stopping at the
 * first violation: what a scenario run does, in a form tests and tools can call directly.
 */
import type { Cluster } from "../../cmd/cluster.ts";
import type { InvariantChecker, ViolationReport } from "./checker.ts";

interface CheckedRunOptions {
  /** Stop once this holds (checked after the invariants, every step). */
  until?: () => boolean | Promise<boolean>;
  /** Virtual time to run for, or to allow for `until`; throws when `until` has not held by then. */
  forMs: number;
  /** Names the `until` condition in the timeout error. */
  description?: string;
}

/** Runs until `until` holds or `forMs` passes; returns the first violation report, if any. */
export async function runChecked(
  cluster: Cluster,
  checker: InvariantChecker,
  options: CheckedRunOptions,
): Promise<ViolationReport | undefined> {
  const endMs = cluster.clock.now() + options.forMs;
  let report: ViolationReport | undefined;
  const until = options.until;
  await cluster.runUntil(
    async () => {
      report = await checker.check();
      if (report !== undefined) return true;
      if (until !== undefined) return until();
      return cluster.clock.now() >= endMs;
    },
    {
      timeoutMs: options.forMs + 1,
      ...(options.description === undefined ? {} : { description: options.description }),
    },
  );
  return report;
}
