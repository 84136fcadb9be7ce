/**
 * Durations and instants printed the way Go's fmt prints time.Duration and time.Time, so messages
 * copied from Kubernetes (`No retries permitted until … (durationBeforeRetry 2m2s)`) read word for word
 * the same in kvol.
 */

/** Milliseconds in a second, for converting Kubernetes' second-valued fields (grace periods, probe periods). */
export const msPerSecond = 1000;

const nanosPerMicro = 1_000n;
const nanosPerMilli = 1_000_000n;
const nanosPerSecond = 1_000_000_000n;
const nanosPerMilliNumber = 1e6;

/** The digits after the decimal point of `value / 10^precision`, trailing zeros dropped ("" if none). */
function fractionDigits(value: bigint, precision: number): string {
  const digits = (value % 10n ** BigInt(precision)).toString().padStart(precision, "0").replace(/0+$/, "");
  return digits === "" ? "" : `.${digits}`;
}

function formatBelowOneSecond(nanos: bigint): string {
  if (nanos < nanosPerMicro) return `${nanos}ns`;
  if (nanos < nanosPerMilli) return `${nanos / nanosPerMicro}${fractionDigits(nanos, 3)}µs`;
  return `${nanos / nanosPerMilli}${fractionDigits(nanos, 6)}ms`;
}

function formatFromOneSecond(nanos: bigint): string {
  const seconds = nanos / nanosPerSecond;
  const secondsText = `${seconds % 60n}${fractionDigits(nanos, 9)}s`;
  const minutes = seconds / 60n;
  if (minutes === 0n) return secondsText;
  const hours = minutes / 60n;
  const minutesText = `${minutes % 60n}m${secondsText}`;
  return hours === 0n ? minutesText : `${hours}h${minutesText}`;
}

/**
 * Go's `time.Duration.String()` for a duration in milliseconds (fractions kept to the nanosecond):
 * `0s`, `1.5ms`, `500ms`, `1s`, `2m2s`, `1h0m0s`.
 */
export function formatGoDuration(durationMs: number): string {
  if (!Number.isFinite(durationMs))
    throw new RangeError(`formatGoDuration: durationMs must be finite, got ${durationMs}`);
  const signedNanos = BigInt(Math.round(durationMs * nanosPerMilliNumber));
  const negative = signedNanos < 0n;
  const nanos = negative ? -signedNanos : signedNanos;
  if (nanos === 0n) return "0s";
  const text = nanos < nanosPerSecond ? formatBelowOneSecond(nanos) : formatFromOneSecond(nanos);
  return negative ? `-${text}` : text;
}

/**
 * Go's `time.Time.String()` for a UTC instant without a monotonic reading:
 * `2026-01-01 00:00:00.5 +0000 UTC` (fractional seconds only when non-zero, trailing zeros dropped).
 * A double holding epoch milliseconds resolves about a quarter of a microsecond, so finer digits are noise.
 */
export function formatGoTime(epochMs: number): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`formatGoTime: epochMs must be finite, got ${epochMs}`);
  const wholeMs = Math.floor(epochMs);
  const iso = new Date(wholeMs).toISOString();
  // Clamped so rounding a fraction just below the next millisecond cannot spill into it.
  const subMilliNanos = BigInt(
    Math.min(Math.round((epochMs - wholeMs) * nanosPerMilliNumber), nanosPerMilliNumber - 1),
  );
  const nanosOfSecond = BigInt(new Date(wholeMs).getUTCMilliseconds()) * nanosPerMilli + subMilliNanos;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fractionDigits(nanosOfSecond, 9)} +0000 UTC`;
}
