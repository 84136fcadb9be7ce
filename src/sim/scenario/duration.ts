/**
 * Durations as Go and kubectl write them (`500ms`, `30s`, `1m30s`, `1h5m`, `2m3.5s`), and the
 * clock-style times the timeline prints (`00:02:03.500`).
 */

const secondMs = 1_000;
const minuteMs = 60 * secondMs;
const hourMs = 60 * minuteMs;
const unitMs: Readonly<Record<string, number>> = { ms: 1, s: secondMs, m: minuteMs, h: hourMs };
const durationPattern = /^(\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const partPattern = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

export const durationHint = "use 30s, 2m, 1h5m";

/** Milliseconds in `text`, or undefined when it is not a duration; `0` alone is allowed. */
export function parseDuration(text: string): number | undefined {
  if (text === "0") return 0;
  if (!durationPattern.test(text)) return undefined;
  let totalMs = 0;
  for (const [, amount, unit] of text.matchAll(partPattern)) totalMs += Number(amount) * (unitMs[unit ?? ""] ?? 0);
  return Math.round(totalMs);
}

/** The shortest Go-style spelling: `2m`, `1m30s`, `2m3.5s`, `500ms`, `0s`. */
export function formatDuration(durationMs: number): string {
  if (durationMs === 0) return "0s";
  if (durationMs < secondMs) return `${durationMs}ms`;
  const hours = Math.floor(durationMs / hourMs);
  const minutes = Math.floor((durationMs % hourMs) / minuteMs);
  const seconds = (durationMs % minuteMs) / secondMs;
  return [hours > 0 ? `${hours}h` : "", minutes > 0 ? `${minutes}m` : "", seconds > 0 ? `${seconds}s` : ""].join("");
}

const pad = (value: number, width: number) => String(value).padStart(width, "0");

/** `00:02:03.500`: hours, minutes, seconds and milliseconds since the start of the run. */
export function formatClock(runTimeMs: number): string {
  // Jittered timers land between milliseconds; the clock shows the millisecond they fall in.
  const timeMs = Math.floor(runTimeMs);
  const hours = Math.floor(timeMs / hourMs);
  const minutes = Math.floor((timeMs % hourMs) / minuteMs);
  const seconds = Math.floor((timeMs % minuteMs) / secondMs);
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(timeMs % secondMs, 3)}`;
}
