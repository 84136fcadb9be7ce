/**
 * The grace a node gets before it is fenced: `--fence-after` (cluster-wide) or a StorageClass's
 * `fencing.kvol.io/fence-after` annotation, both Go durations (`30s`, `1m`). The shortest that
 * applies to a node wins. Values under `fenceAfterMinimumMs` are refused with the field named.
 */
import { fenceAfterMinimumMs } from "./constants.ts";

const msPerUnit: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const termPattern = /(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h)/y;

/** Milliseconds of a Go duration (`30s`, `1m30s`); undefined when the text is not one. */
function goDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  termPattern.lastIndex = 0;
  let totalMs = 0;
  // Each match consumes at least two characters: the loop ends within trimmed.length passes.
  while (termPattern.lastIndex < trimmed.length) {
    const match = termPattern.exec(trimmed);
    if (match === null) return undefined;
    totalMs += Number(match[1]) * (msPerUnit[match[2] ?? ""] ?? Number.NaN);
  }
  return Number.isFinite(totalMs) ? Math.round(totalMs) : undefined;
}

/** The grace in milliseconds; throws an Error naming `field` when the value is not a duration of 10s or more. */
export function parseFenceAfter(text: string, field: string): number {
  const durationMs = goDurationMs(text);
  if (durationMs === undefined) {
    throw new Error(`${field} must be a duration like 30s or 1m, got ${JSON.stringify(text)}`);
  }
  if (durationMs < fenceAfterMinimumMs) {
    throw new Error(
      `${field} must be at least 10s (a live kubelet renews its Lease every 10s), got ${JSON.stringify(text)}`,
    );
  }
  return durationMs;
}

/** The flag's help line, shared by `kvol up` and `kvol server`. */
export const fenceAfterUsage =
  "  --fence-after D    fence a node holding volumes at the storage, then taint it out-of-service, once it has\n" +
  "                     been silent for D (a Go duration, 10s or more; off by default; docs/fencing.md)";
