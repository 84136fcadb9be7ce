/**
 * Two CPU profiles of the same benchmark at two sizes, compared by each function's share of the
 * sampled time: a function whose share grows with the size is a term that grows faster than the
 * rest. Shares, not milliseconds, because the profiler samples wall time and a loaded machine
 * stretches every function of one run alike.
 */
import { formatTable, type ProfileSummary } from "./cpu-profile-summary.ts";

export interface ShareChange {
  function: string;
  /** Self time as a fraction of the sampled time, 0–1. */
  beforeShare: number;
  afterShare: number;
}

function selfShares(summary: ProfileSummary): Map<string, number> {
  const whole = summary.sampledMs;
  return new Map(summary.functions.map((cost) => [cost.function, whole === 0 ? 0 : cost.selfMs / whole]));
}

/**
 * The `top` functions whose self share grew most from `before` to `after` (largest growth first,
 * then by name). Pass summaries of every function (`top: Infinity`), or a function outside one of
 * them counts as 0 there.
 */
export function growingShares(before: ProfileSummary, after: ProfileSummary, top: number): ShareChange[] {
  const was = selfShares(before);
  const now = selfShares(after);
  const names = new Set([...was.keys(), ...now.keys()]);
  const changes = [...names].map((name) => ({
    function: name,
    beforeShare: was.get(name) ?? 0,
    afterShare: now.get(name) ?? 0,
  }));
  changes.sort(
    (a, b) => b.afterShare - b.beforeShare - (a.afterShare - a.beforeShare) || a.function.localeCompare(b.function),
  );
  return changes.slice(0, top);
}

const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;

/** The changes as a text table: self share before, after, and the difference in points. */
export function formatShareChanges(changes: readonly ShareChange[], title: string): string {
  const header = ["before", "after", "change", "function"];
  const rows = changes.map((change) => [
    percent(change.beforeShare),
    percent(change.afterShare),
    `${change.afterShare >= change.beforeShare ? "+" : ""}${((change.afterShare - change.beforeShare) * 100).toFixed(1)}`,
    change.function,
  ]);
  return formatTable(title, header, rows);
}
