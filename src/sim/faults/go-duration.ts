/**
 * Durations as scenarios and `kvol fault` write them: Go's `time.ParseDuration` syntax (`30s`,
 * `1m30s`, `500ms`, `1.5h`), or a plain number of milliseconds.
 */

const msPerUnit: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** One `<number><unit>` term; units longest first so `ms` is not read as `m` followed by `s`. */
const termPattern = /(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h)/y;

/** Milliseconds of a Go duration string or a millisecond count; undefined when it is neither. */
export function parseDurationMs(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === "") return undefined;
  termPattern.lastIndex = 0;
  let totalMs = 0;
  // Each pass consumes at least two characters, so the loop ends within text.length passes.
  while (termPattern.lastIndex < text.length) {
    const match = termPattern.exec(text);
    if (match === null) return undefined;
    totalMs += Number(match[1]) * (msPerUnit[match[2] ?? ""] ?? Number.NaN);
  }
  return Number.isFinite(totalMs) ? totalMs : undefined;
}
