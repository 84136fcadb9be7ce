/**
 * The audit log of writes (kube-apiserver's `--audit-log-path` with a policy at level Metadata
 * for every write): one audit.k8s.io/v1 Event per create, update, patch or delete request, refused
 * ones included, as a JSON line appended when the response is complete.
 *
 * The log never holds a request up and never fails one: lines are queued and appended in the
 * background, in order. When the file cannot be written (its directory gone, a full disk, no
 * permission), the events of that attempt are dropped, counted in `apiserver_audit_error_total`,
 * and logged once per run of failures; the next event tries the file again, so logging resumes by
 * itself when the file can be written. A queue past its bound drops its oldest lines the same way.
 */
import { appendFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import type { Counter } from "prom-client";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Metrics } from "../../runtime/metrics.ts";

/** At most this many lines wait for the file; beyond it the oldest are dropped (and counted). */
const maxQueuedLines = 10_000;

export interface AuditSink {
  record(event: Record<string, unknown>): void;
}

export class AuditLog implements AuditSink {
  private readonly path: string;
  private readonly logger: Logger;
  private readonly errors: Counter | undefined;
  private queue: string[] = [];
  private writing: Promise<void> | undefined;
  private failing = false;

  constructor(path: string, logger: Logger, metrics?: Metrics) {
    this.path = path;
    this.logger = logger;
    this.errors = metrics?.counter({
      name: "apiserver_audit_error_total",
      help: "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
      labelNames: ["plugin"],
    });
  }

  record(event: Record<string, unknown>): void {
    this.queue.push(`${JSON.stringify(event)}\n`);
    if (this.queue.length > maxQueuedLines)
      this.dropped(this.queue.splice(0, this.queue.length - maxQueuedLines).length, "the queue is full");
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  /** Resolves when every queued line has been written or dropped (tests, and a clean shutdown). */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async drain(): Promise<void> {
    // Bounded: each pass takes every queued line, and a pass that fails drops them.
    for (let pass = 0; this.queue.length > 0 && pass < maxQueuedLines; pass++) {
      const lines = this.queue;
      this.queue = [];
      try {
        await appendFile(this.path, lines.join(""), { mode: 0o600 });
        if (this.failing) this.logger.info("audit log writable again", { path: this.path });
        this.failing = false;
      } catch (error) {
        this.dropped(lines.length, errorMessage(error));
      }
    }
  }

  private dropped(count: number, why: string): void {
    this.errors?.inc({ plugin: "log" }, count);
    if (this.failing) return;
    this.failing = true;
    this.logger.error("audit events dropped: the audit log cannot be written; requests are served as usual", {
      path: this.path,
      error: why,
      events: count,
    });
  }
}

/**
 * The audit log at `path`, checked writable now (created if missing, as kube-apiserver does at
 * start), so a typo in the path stops the server with a sentence instead of dropping every event.
 */
export function openAuditLog(path: string, logger: Logger, metrics?: Metrics): AuditLog {
  try {
    appendFileSync(path, "", { mode: 0o600 });
  } catch (error) {
    throw new Error(`--audit-log-path ${path}: the audit log cannot be written (${errorMessage(error)})`);
  }
  return new AuditLog(path, logger, metrics);
}
