/**
 * A V8 CPU profile (`.cpuprofile`, what `node --cpu-prof` and the inspector's Profiler write)
 * summarised by source function: self time (samples in the function itself) and total time
 * (samples with the function anywhere on the stack, counted once however deep it recurses), with
 * the function's file:line, most expensive first.
 *
 * A sample lasts until the next one (Chrome DevTools' rule): `timeDeltas[i + 1]` is the duration
 * of sample `i`; the last sample gets the mean interval.
 */
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 writes it. */
  lineNumber: number;
  columnNumber: number;
  scriptId?: string;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds. */
  startTime: number;
  endTime: number;
  /** The leaf node id of each sample. */
  samples?: number[];
  /** Microseconds between consecutive samples (the first: since startTime). */
  timeDeltas?: number[];
}

export interface FunctionCost {
  /** `name file:line` (line 1-based), or V8's pseudo-function such as `(garbage collector)`. */
  function: string;
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  /** Sampled time, root excluded. */
  sampledMs: number;
  functions: FunctionCost[];
}

const microsecondsPerMs = 1_000;

/** `src/api/store/kube-store.ts` for a file URL under `root`; other URLs as they are. */
function displayUrl(url: string, root: string): string {
  if (!url.startsWith("file://")) return url;
  const path = fileURLToPath(url);
  const inside = relative(root, path);
  return inside.startsWith("..") ? path : inside;
}

function functionLabel(frame: CallFrame, root: string): string {
  const name = frame.functionName === "" ? "(anonymous)" : frame.functionName;
  if (frame.url === "") return name;
  return `${name} ${displayUrl(frame.url, root)}:${frame.lineNumber + 1}`;
}

/** The duration of each sample, in microseconds. */
function sampleDurations(profile: CpuProfile): number[] {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length === 0) return [];
  const meanUs = (profile.endTime - profile.startTime) / samples.length;
  return samples.map((_, index) => {
    const next = deltas[index + 1];
    return next === undefined ? meanUs : Math.max(0, next);
  });
}

/**
 * Self and total time per function, sorted by `by` (descending), at most `top` of them. The root
 * node is left out; `(program)`, `(idle)` and `(garbage collector)` stay, as V8 names them.
 */
export function summariseCpuProfile(
  profile: CpuProfile,
  options: { top: number; by: "self" | "total"; root: string },
): ProfileSummary {
  const parent = new Map<number, number>();
  const label = new Map<number, number>();
  const labels: string[] = [];
  const labelIds = new Map<string, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
    if (node.callFrame.functionName === "(root)") continue;
    const text = functionLabel(node.callFrame, options.root);
    let id = labelIds.get(text);
    if (id === undefined) {
      id = labels.length;
      labels.push(text);
      labelIds.set(text, id);
    }
    label.set(node.id, id);
  }
  const selfUs = new Float64Array(labels.length);
  const totalUs = new Float64Array(labels.length);
  // The last sample that counted each function's total: recursion counts once per sample.
  const lastCounted = new Int32Array(labels.length).fill(-1);
  const durations = sampleDurations(profile);
  const samples = profile.samples ?? [];
  let sampledUs = 0;
  for (let index = 0; index < samples.length; index++) {
    const leaf = samples[index] as number;
    const durationUs = durations[index] as number;
    const leafLabel = label.get(leaf);
    if (leafLabel === undefined) continue;
    sampledUs += durationUs;
    selfUs[leafLabel] = (selfUs[leafLabel] as number) + durationUs;
    // A stack is as deep as the node tree; the bound stops a malformed profile with a cycle.
    let node: number | undefined = leaf;
    for (let depth = 0; node !== undefined && depth <= profile.nodes.length; depth++) {
      const id = label.get(node);
      if (id !== undefined && lastCounted[id] !== index) {
        lastCounted[id] = index;
        totalUs[id] = (totalUs[id] as number) + durationUs;
      }
      node = parent.get(node);
    }
  }
  const functions = labels.map((text, id) => ({
    function: text,
    selfMs: (selfUs[id] as number) / microsecondsPerMs,
    totalMs: (totalUs[id] as number) / microsecondsPerMs,
  }));
  const key = options.by === "self" ? "selfMs" : "totalMs";
  functions.sort((a, b) => b[key] - a[key] || a.function.localeCompare(b.function));
  return { sampledMs: sampledUs / microsecondsPerMs, functions: functions.slice(0, options.top) };
}

function percent(partMs: number, wholeMs: number): string {
  return wholeMs === 0 ? "0.0%" : `${((100 * partMs) / wholeMs).toFixed(1)}%`;
}

/** The summary as a text table: self and total in ms and as a share of the sampled time. */
export function formatProfileSummary(summary: ProfileSummary, title: string): string {
  const header = ["self ms", "self %", "total ms", "total %", "function"];
  const rows = summary.functions.map((cost) => [
    cost.selfMs.toFixed(1),
    percent(cost.selfMs, summary.sampledMs),
    cost.totalMs.toFixed(1),
    percent(cost.totalMs, summary.sampledMs),
    cost.function,
  ]);
  return formatTable(`${title} (${summary.sampledMs.toFixed(0)} ms sampled)`, header, rows);
}

/** A text table under `title`: every column right-aligned to its widest cell but the last, a function name. */
export function formatTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padStart(widths[column] ?? 0))).join("  ");
  return [title, line(header), ...rows.map(line), ""].join("\n");
}
