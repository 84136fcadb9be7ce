/**
 * Structured logging: one line per record, stamped from the Clock so simulated runs print virtual time
 * and the same seed prints the same log.
 *
 *   2026-01-01T00:00:00.000000Z INFO attachdetach-controller attach succeeded volume=pvc-1 node=node-a
 *
 * Values under sensitive-looking keys (secret, password, token, credentials, …) and values wrapped in
 * `sensitive()` print as `<masked>`, including inside nested objects, because mount options and CSI
 * secrets pass through log calls and must never reach a log file.
 */
import type { Clock } from "./clock.ts";
import { formatRfc3339Micro } from "./clock.ts";
import { errorMessage } from "./error-message.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
type LogFields = Readonly<Record<string, unknown>>;

/** A record after rendering and redaction: sinks only ever see masked text. */
export interface LogRecord {
  readonly timeMs: number;
  readonly level: LogLevel;
  /** The `component` field, printed before the message; "" when none was set. */
  readonly component: string;
  readonly message: string;
  /** Rendered field values in the order they were given (parent fields first). */
  readonly fields: ReadonlyArray<readonly [string, string]>;
}

export interface LogSink {
  write(record: LogRecord): void;
}

const maskedText = "<masked>";
const levelRank: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };
const sensitiveKeyPattern = /secret|password|passwd|token|credential|private[-_]?key|api[-_]?key/i;
const componentKey = "component";

/** A value that must never be printed; the logger renders it as `<masked>`. */
class Sensitive {
  constructor(readonly value: unknown) {}

  toString(): string {
    return maskedText;
  }

  toJSON(): string {
    return maskedText;
  }
}

/** Marks `value` as sensitive so no log line shows it. */
export function sensitive(value: unknown): Sensitive {
  return new Sensitive(value);
}

function isSensitiveKey(key: string): boolean {
  return sensitiveKeyPattern.test(key);
}

function renderObject(value: object): string {
  try {
    return JSON.stringify(value, (key, nested: unknown) =>
      key !== "" && isSensitiveKey(key) ? maskedText : nested instanceof Error ? nested.message : nested,
    );
  } catch (error) {
    return `<unrenderable object: ${errorMessage(error)}>`;
  }
}

function renderValue(key: string, value: unknown): string {
  if (isSensitiveKey(key) || value instanceof Sensitive) return maskedText;
  if (value instanceof Error) return value.message;
  if (typeof value === "object" && value !== null) return renderObject(value);
  return String(value);
}

/** Quotes a value or message that would otherwise break the `key=value` layout of a line. */
function quoteIfNeeded(text: string): string {
  return text === "" || /[\s"=\\]/.test(text) ? JSON.stringify(text) : text;
}

/** The one-line text form: `<time> <LEVEL> [component] <message> key=value…`. */
export function formatLogLine(record: LogRecord): string {
  const parts = [formatRfc3339Micro(record.timeMs), record.level.toUpperCase()];
  if (record.component !== "") parts.push(record.component);
  parts.push(record.message.replace(/\r?\n/g, "\\n"));
  for (const [key, value] of record.fields) parts.push(`${key}=${quoteIfNeeded(value)}`);
  return parts.join(" ");
}

/** Writes each record as a line on stderr. */
export const stderrSink: LogSink = {
  write(record) {
    process.stderr.write(`${formatLogLine(record)}\n`);
  },
};

/** Default bound on records kept by a MemorySink. */
const defaultMemorySinkMaxRecords = 100_000;

/** Keeps records in memory for tests and the simulator timeline; beyond its bound the oldest go first. */
export class MemorySink implements LogSink {
  /** A ring buffer: once full, `oldest` is where the next record overwrites the oldest one. */
  private readonly buffer: LogRecord[] = [];
  private oldest = 0;
  droppedRecords = 0;

  constructor(private readonly maxRecords = defaultMemorySinkMaxRecords) {
    if (!Number.isSafeInteger(maxRecords) || maxRecords < 1) {
      throw new RangeError(`MemorySink: maxRecords must be a positive integer, got ${maxRecords}`);
    }
  }

  write(record: LogRecord): void {
    if (this.buffer.length < this.maxRecords) {
      this.buffer.push(record);
      return;
    }
    this.buffer[this.oldest] = record;
    this.oldest = (this.oldest + 1) % this.maxRecords;
    this.droppedRecords++;
  }

  /** The kept records, oldest first. */
  get records(): LogRecord[] {
    return [...this.buffer.slice(this.oldest), ...this.buffer.slice(0, this.oldest)];
  }

  /** The records as printed lines. */
  lines(): string[] {
    return this.records.map(formatLogLine);
  }
}

interface LoggerOptions {
  clock: Clock;
  sink?: LogSink;
  /** Records below this level are dropped; default "info". */
  level?: LogLevel;
  /** Fields attached to every record, e.g. `{ component: "kubelet" }`. */
  fields?: LogFields;
}

export class Logger {
  private readonly clock: Clock;
  private readonly sink: LogSink;
  private readonly level: LogLevel;
  private readonly fields: LogFields;

  constructor(options: LoggerOptions) {
    this.clock = options.clock;
    this.sink = options.sink ?? stderrSink;
    this.level = options.level ?? "info";
    this.fields = options.fields ?? {};
  }

  /** A child logger adding `fields` (overriding same-named ones) to every record. */
  with(fields: LogFields): Logger {
    return new Logger({ clock: this.clock, sink: this.sink, level: this.level, fields: { ...this.fields, ...fields } });
  }

  isEnabled(level: LogLevel): boolean {
    return levelRank[level] >= levelRank[this.level];
  }

  debug(message: string, fields?: LogFields): void {
    this.log("debug", message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.log("info", message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.log("warn", message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.log("error", message, fields);
  }

  log(level: LogLevel, message: string, fields: LogFields = {}): void {
    if (!this.isEnabled(level)) return;
    const merged: Record<string, unknown> = { ...this.fields, ...fields };
    const component = merged[componentKey];
    delete merged[componentKey];
    this.sink.write({
      timeMs: this.clock.now(),
      level,
      component: component === undefined ? "" : renderValue(componentKey, component),
      message,
      fields: Object.entries(merged).map(([key, value]) => [key, renderValue(key, value)] as const),
    });
  }
}
