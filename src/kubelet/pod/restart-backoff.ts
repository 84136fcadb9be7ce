/**
 * The container restart back-off behind CrashLoopBackOff (client-go flowcontrol.Backoff as the
 * kubelet uses it): the first restart of a container happens at once; each later one waits, from
 * when the container last exited, 10 s doubling up to 5 min. A container that has not needed a
 * restart for 10 min starts over from 10 s.
 */
import {
  containerRestartBackoffInitialMs,
  containerRestartBackoffMaxMs,
  containerRestartBackoffResetMs,
} from "../constants.ts";

interface BackoffEntry {
  backoffMs: number;
  lastUpdateMs: number;
}

export class RestartBackoff {
  private readonly entries = new Map<string, BackoffEntry>();

  /** How long the restart must still wait (0 = restart now), given when the container exited. */
  remainingMs(key: string, exitedAtMs: number, nowMs: number): number {
    const entry = this.entries.get(key);
    if (entry === undefined || this.expired(entry, nowMs)) return 0;
    return Math.max(0, exitedAtMs + entry.backoffMs - nowMs);
  }

  /** The current delay of `key` (what the CrashLoopBackOff message shows). */
  currentMs(key: string): number {
    return this.entries.get(key)?.backoffMs ?? containerRestartBackoffInitialMs;
  }

  /** Records a restart: the next one waits twice as long (Backoff.Next). */
  next(key: string, nowMs: number): void {
    const entry = this.entries.get(key);
    if (entry === undefined || this.expired(entry, nowMs)) {
      this.entries.set(key, { backoffMs: containerRestartBackoffInitialMs, lastUpdateMs: nowMs });
      return;
    }
    entry.backoffMs = Math.min(entry.backoffMs * 2, containerRestartBackoffMaxMs);
    entry.lastUpdateMs = nowMs;
  }

  /** Forgets every key starting with `prefix` (a pod that is gone). */
  forgetPrefix(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  private expired(entry: BackoffEntry, nowMs: number): boolean {
    return nowMs - entry.lastUpdateMs > containerRestartBackoffResetMs;
  }
}

/** The back-off key of one container of one pod. */
export function restartBackoffKey(podUID: string, containerName: string): string {
  return `${podUID}/${containerName}`;
}
