/**
 * Measurement helpers for the benchmarks. Every figure is reported beside a baseline measured in
 * the same process right before it, so the ratio means something on any machine.
 */
import { performance } from "node:perf_hooks";
import { msPerSecond } from "../src/runtime/duration.ts";

export interface Row {
  group: string;
  measure: string;
  value: number;
  unit: string;
  baselineName: string;
  baseline: number;
  /** How the ratio reads: "higher is better" (rates) or "lower is better" (memory). */
  better: "higher" | "lower";
}

/** Runs `work` once and returns how many operations per second it did. */
export async function ratePerSecond(operations: number, work: () => Promise<void> | void): Promise<number> {
  const started = performance.now();
  await work();
  const elapsedMs = performance.now() - started;
  return operations / (elapsedMs / msPerSecond);
}

/** Heap bytes retained by what `build` returns (kept alive until measured). Needs --expose-gc. */
export async function retainedBytes(build: () => Promise<unknown> | unknown): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run the benchmarks with node --expose-gc (npm run bench does)");
  await settle(gc);
  const before = process.memoryUsage().heapUsed;
  const kept = await build();
  await settle(gc);
  const after = process.memoryUsage().heapUsed;
  keepAlive.push(kept);
  keepAlive.length = 0;
  return after - before;
}

/** Lets pending callbacks run (they may still hold the previous measurement's objects), then collects. */
async function settle(gc: () => void): Promise<void> {
  for (let turn = 0; turn < 3; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
}

/** Holds a measured structure until its size has been read, so the collector cannot free it early. */
const keepAlive: unknown[] = [];

function format(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(value >= 100 ? 0 : 1);
}

export function printTable(rows: readonly Row[]): void {
  const lines = rows.map((r) => [
    r.group,
    r.measure,
    `${format(r.value)} ${r.unit}`,
    // A phase with no raw counterpart has no baseline (NaN): no ratio either.
    Number.isNaN(r.baseline) ? r.baselineName : `${r.baselineName}: ${format(r.baseline)} ${r.unit}`,
    Number.isNaN(r.baseline) ? "-" : `${(r.value / r.baseline).toFixed(3)} (${r.better} is better)`,
  ]);
  const header = ["group", "measure", "value", "baseline", "ratio"];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  const render = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  console.log(render(header));
  console.log(render(widths.map((w) => "-".repeat(w))));
  for (const line of lines) console.log(render(line));
}
