/**
 * `--event-ttl` on `kvol server` and `kvol up`: kube-apiserver's flag, a Go duration (`1h0m0s`,
 * `30m`, `2h`) for how long an Event is kept after its last write. Like kube-apiserver, whole
 * seconds count (the etcd lease is granted in seconds); anything under one second is refused.
 */
import { msPerSecond } from "../runtime/duration.ts";
import { parseDurationMs } from "../sim/faults/go-duration.ts";

export const eventTtlUsage = `  --event-ttl D   how long an Event is kept after its last write, as a Go duration (default 1h0m0s)`;

/** Seconds of an `--event-ttl` value; throws an Error naming the flag when it is not a duration of 1s or more. */
export function parseEventTtlFlag(text: string): number {
  // A bare number has no unit: Go's time.ParseDuration refuses it, and so does kube-apiserver.
  const durationMs = /^\s*[0-9.]+\s*$/.test(text) ? undefined : parseDurationMs(text);
  if (durationMs === undefined) {
    throw new Error(`--event-ttl must be a duration like 1h0m0s, 30m or 90s, got ${JSON.stringify(text)}`);
  }
  const seconds = Math.floor(durationMs / msPerSecond);
  if (seconds < 1) throw new Error(`--event-ttl must be at least 1s, got ${JSON.stringify(text)}`);
  return seconds;
}
