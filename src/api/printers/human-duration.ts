/**
 * Ages as kubectl prints them: apimachinery's `duration.HumanDuration` (`45s`, `5m3s`, `12m`,
 * `3h20m`, `2d`, `1y40d`), so a kvol table reads the same as a Kubernetes one.
 */
import { parseRfc3339 } from "../../runtime/clock.ts";

const msPerSecond = 1000;
const secondsPerMinute = 60;
const minutesPerHour = 60;
const hoursPerDay = 24;
const daysPerYear = 365;

/** Below this many seconds an age prints in seconds only (`119s`). */
const secondsOnlyBelowSeconds = 2 * secondsPerMinute;
/** Below this many minutes an age keeps its seconds (`5m3s`). */
const minutesWithSecondsBelowMinutes = 10;
/** Below this many minutes an age prints in minutes only (`179m`). */
const minutesOnlyBelowMinutes = 3 * minutesPerHour;
/** Below this many hours an age keeps its minutes (`7h30m`). */
const hoursWithMinutesBelowHours = 8;
/** Below this many hours an age prints in hours only (`47h`). */
const hoursOnlyBelowHours = 48;
/** Below this many hours an age keeps its hours (`7d23h`). */
const daysWithHoursBelowHours = 8 * hoursPerDay;
/** Below this many hours an age prints in days only (`729d`). */
const daysOnlyBelowHours = 2 * daysPerYear * hoursPerDay;
/** Below this many hours an age keeps its days (`7y364d`). */
const yearsWithDaysBelowHours = 8 * daysPerYear * hoursPerDay;

function withRemainder(whole: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${whole}${unit}` : `${whole}${unit}${rest}${restUnit}`;
}

/** A duration in milliseconds as kubectl prints an age. */
export function humanDuration(durationMs: number): string {
  const seconds = Math.trunc(durationMs / msPerSecond);
  // Up to a second in the future counts as now: clocks of two machines differ a little.
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < secondsOnlyBelowSeconds) return `${seconds}s`;
  const minutes = Math.trunc(seconds / secondsPerMinute);
  if (minutes < minutesWithSecondsBelowMinutes) return withRemainder(minutes, "m", seconds % secondsPerMinute, "s");
  if (minutes < minutesOnlyBelowMinutes) return `${minutes}m`;
  const hours = Math.trunc(minutes / minutesPerHour);
  if (hours < hoursWithMinutesBelowHours) return withRemainder(hours, "h", minutes % minutesPerHour, "m");
  if (hours < hoursOnlyBelowHours) return `${hours}h`;
  const days = Math.trunc(hours / hoursPerDay);
  if (hours < daysWithHoursBelowHours) return withRemainder(days, "d", hours % hoursPerDay, "h");
  if (hours < daysOnlyBelowHours) return `${days}d`;
  const years = Math.trunc(days / daysPerYear);
  if (hours < yearsWithDaysBelowHours) return withRemainder(years, "y", days % daysPerYear, "d");
  return `${years}y`;
}

/** How long ago an RFC 3339 timestamp was, as kubectl prints it; `<unknown>` without one. */
export function ageSince(timestamp: string | undefined, nowMs: number): string {
  if (timestamp === undefined || timestamp === "") return "<unknown>";
  const thenMs = parseRfc3339(timestamp);
  if (Number.isNaN(thenMs)) return "<unknown>";
  return humanDuration(nowMs - thenMs);
}
