/**
 * Keeps the log lines of a run for its `log` expectations: every record the cluster's components
 * write (stamped on the virtual clock), handed to the expectation trackers after each step and then
 * dropped, so a long run holds only one step's lines. The kubelet's backoff lines
 * (`… (durationBeforeRetry 2m2s). Error: …`) and TearDown errors are only in its log, as in Kubernetes.
 */
import { formatLogLine, type LogRecord, type LogSink } from "../../runtime/logger.ts";
import type { LogMatcher } from "../scenario/model.ts";

export interface LogOccurrence {
  readonly record: LogRecord;
  /** Run time the line was written at (lines written while the cluster was built count as 0). */
  readonly atMs: number;
}

export class LogCapture implements LogSink {
  private pending: LogRecord[] = [];
  private startMs = 0;

  write(record: LogRecord): void {
    this.pending.push(record);
  }

  /** Run time 0 is cluster clock time `startMs`. */
  startAt(startMs: number): void {
    this.startMs = startMs;
  }

  /** The lines written since the last call, oldest first. */
  take(): LogOccurrence[] {
    const records = this.pending;
    this.pending = [];
    return records.map((record) => ({ record, atMs: Math.max(0, record.timeMs - this.startMs) }));
  }
}

/** Whether a line matches: component, node field and level exactly, `contains` in the message or the fields. */
export function logMatches(record: LogRecord, matcher: LogMatcher): boolean {
  if (record.component !== matcher.component) return false;
  if (matcher.level !== undefined && record.level !== matcher.level) return false;
  if (matcher.node !== undefined && !record.fields.some(([key, value]) => key === "node" && value === matcher.node)) {
    return false;
  }
  return record.message.includes(matcher.contains) || formatLogLine(record).includes(matcher.contains);
}
