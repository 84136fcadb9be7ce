/**
 * client-go's Reflector: keeps a cache in step with the API by listing every object, then watching
 * from the list's resourceVersion. When the watch fails — most often 410 Gone because the store
 * compacted the revision it was at — it lists again after a backoff and the cache is reconciled
 * against the fresh list (`ReflectorSink.replace`), so vanished objects are noticed as deletions.
 */
import type { Clock, Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import { Backoff, type BackoffOptions } from "../../runtime/wait-backoff.ts";
import type { ApiObject, ResourceClient, Watch, WatchEvent } from "../client/client.ts";
import { isGone } from "../errors.ts";

/**
 * client-go's reflector backoff (`NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)`): the
 * first relist comes 0.8–1.6 s after a failure, doubling up to 30 s (plus jitter) while failures
 * continue, and back to 0.8 s once two minutes passed without one.
 */
export const relistBackoff: Readonly<BackoffOptions> = {
  initialMs: 800,
  factor: 2,
  capMs: 30_000,
  jitter: 1,
  resetAfterMs: 120_000,
};

/** Where a reflector delivers what it learns. */
export interface ReflectorSink<T> {
  /** The complete set of objects as of `resourceVersion`, after every (re)list. */
  replace(items: readonly T[], resourceVersion: string): void;
  /** One ADDED, MODIFIED or DELETED event, in revision order. */
  apply(event: WatchEvent<T>): void;
}

interface ReflectorOptions {
  clock: Clock;
  /** Draws the backoff jitter, so a seed replays the same relist times. */
  rng: Rng;
  logger: Logger;
}

/** The Status an ERROR watch event carries. */
interface WatchErrorStatus {
  reason?: string;
  code?: number;
  message?: string;
}

function isGoneStatus(status: WatchErrorStatus): boolean {
  return status.reason === "Gone" || status.code === 410;
}

export class Reflector<T extends ApiObject> {
  private readonly resource: ResourceClient<T>;
  private readonly sink: ReflectorSink<T>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly backoff: Backoff;
  /** Bumped on every (re)start and on stop; a callback from an older attempt sees a mismatch and does nothing. */
  private attempt = 0;
  private running = false;
  private watch: Watch | undefined;
  private relistTimer: Timer | undefined;
  private resourceVersion = "";

  constructor(resource: ResourceClient<T>, sink: ReflectorSink<T>, options: ReflectorOptions) {
    this.resource = resource;
    this.sink = sink;
    this.clock = options.clock;
    this.logger = options.logger;
    this.backoff = new Backoff(relistBackoff, options.rng, options.clock);
  }

  /** The revision of the last list, watch event or bookmark seen. */
  lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.listAndWatch();
  }

  stop(): void {
    this.running = false;
    this.abandonAttempt();
    this.relistTimer?.cancel();
    this.relistTimer = undefined;
  }

  private listAndWatch(): void {
    const attempt = ++this.attempt;
    this.listThenWatch(attempt).catch((error: unknown) => this.failed(attempt, "list", error));
  }

  private async listThenWatch(attempt: number): Promise<void> {
    const list = await this.resource.list();
    if (attempt !== this.attempt) return;
    this.resourceVersion = list.resourceVersion;
    this.sink.replace(list.items, list.resourceVersion);
    // No bookmarks: they only help a watch resume from a recent revision, and after any failure
    // this reflector lists again instead of resuming. Without them an idle watch schedules nothing.
    const options = { resourceVersion: list.resourceVersion };
    let watch: Watch;
    try {
      watch = await this.resource.watch(options, (event) => this.onWatchEvent(attempt, event));
    } catch (error) {
      this.failed(attempt, "watch", error);
      return;
    }
    if (attempt === this.attempt) this.watch = watch;
    else watch.stop();
  }

  private onWatchEvent(attempt: number, event: WatchEvent<T>): void {
    if (attempt !== this.attempt) return;
    if (event.type === "ERROR") {
      this.watchClosedWithStatus(attempt, event.object as WatchErrorStatus);
      return;
    }
    const resourceVersion = event.object.metadata?.resourceVersion;
    if (resourceVersion) this.resourceVersion = resourceVersion;
    if (event.type !== "BOOKMARK") this.sink.apply(event);
  }

  private watchClosedWithStatus(attempt: number, status: WatchErrorStatus): void {
    const why = status.message ?? `status ${status.reason ?? "unknown"}`;
    // Gone is routine (the store compacted past the watch's revision); anything else deserves a warning.
    const level = isGoneStatus(status) ? "info" : "warn";
    this.relistAfterBackoff(attempt, level, "watch closed; listing again", why);
  }

  private failed(attempt: number, stage: "list" | "watch", error: unknown): void {
    const why = errorMessage(error);
    const level = isGone(error) ? "info" : "warn";
    this.relistAfterBackoff(attempt, level, `${stage} failed; listing again`, why);
  }

  private relistAfterBackoff(attempt: number, level: "info" | "warn", message: string, why: string): void {
    if (attempt !== this.attempt || !this.running) return;
    this.abandonAttempt();
    const delayMs = this.backoff.step();
    this.logger[level](message, { resource: this.resource.type.plural, error: why, delayMs: Math.round(delayMs) });
    this.relistTimer = this.clock.setTimer(delayMs, () => {
      this.relistTimer = undefined;
      if (this.running) this.listAndWatch();
    });
  }

  /** Ends the current list/watch attempt: its watch is stopped and anything it still delivers is ignored. */
  private abandonAttempt(): void {
    this.attempt++;
    this.watch?.stop();
    this.watch = undefined;
  }
}
