/**
 * client-go's rate-limited work queue, which every controller uses to serialise work per key:
 * - a key added while already waiting is not queued twice;
 * - a key being processed (between `get` and `done`) is never handed to a second worker; adding it
 *   meanwhile marks it dirty and it is queued again when `done` is called;
 * - `addAfter` and `addRateLimited` add the key later, on the Clock;
 * - after `shutDown`, adds are ignored, delayed adds are dropped, and `get` hands out what is still
 *   queued, then resolves undefined.
 */
import type { Clock, Timer } from "./clock.ts";
import type { Metrics } from "./metrics.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { WorkQueueMetrics } from "./workqueue-metrics.ts";

/**
 * Default bound on distinct keys queued or waiting to be queued. Keys are deduplicated, so this is a
 * bound on distinct objects: 150,000 pods plus their claims and volumes stay well below it.
 */
const defaultWorkQueueMaxLength = 1_000_000;

/** Anything but null and undefined, which `get` uses to say "shut down". */
export type WorkQueueKey = string | number | bigint | boolean | symbol | object;

interface WorkQueueOptions<K> {
  /** Appears in errors, to tell queues apart. */
  name: string;
  clock: Clock;
  rateLimiter: RateLimiter<K>;
  /** Adding a key beyond this many queued plus delayed keys throws; see defaultWorkQueueMaxLength. */
  maxLength?: number;
  /** Where the `workqueue_*` metrics of this queue (label `name`) are kept; none when absent. */
  metrics?: Metrics;
}

interface DelayedAdd {
  readyAtMs: number;
  timer: Timer;
}

export class WorkQueue<K extends WorkQueueKey> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<K>;
  private readonly maxLength: number;
  /** Keys ready to hand out, in order; `dirty` holds the same keys plus processing keys re-added. */
  private readonly queue: K[] = [];
  private queueHead = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly delayed = new Map<K, DelayedAdd>();
  private readonly waitingGetters: Array<(key: K | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private readonly metrics: WorkQueueMetrics<K> | undefined;
  private shuttingDown = false;

  constructor(options: WorkQueueOptions<K>) {
    this.name = options.name;
    this.metrics =
      options.metrics === undefined
        ? undefined
        : new WorkQueueMetrics(options.metrics, options.name, () => options.clock.now());
    this.clock = options.clock;
    this.rateLimiter = options.rateLimiter;
    this.maxLength = options.maxLength ?? defaultWorkQueueMaxLength;
    if (!Number.isSafeInteger(this.maxLength) || this.maxLength < 1) {
      throw new RangeError(`work queue ${this.name}: maxLength must be a positive integer, got ${this.maxLength}`);
    }
  }

  /** Queues `key` unless it is already queued; a key being processed is queued again after `done`. */
  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.assertRoomFor("add", key);
    this.metrics?.added(key, this.clock.now());
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Adds `key` after `delayMs`; an earlier pending delayed add of the same key wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (!(delayMs > 0)) {
      if (Number.isNaN(delayMs)) throw new RangeError(`work queue ${this.name}: addAfter delayMs is NaN`);
      this.add(key);
      return;
    }
    const readyAtMs = this.clock.now() + delayMs;
    const existing = this.delayed.get(key);
    if (existing !== undefined && existing.readyAtMs <= readyAtMs) return;
    if (existing === undefined) this.assertRoomFor("addAfter", key);
    existing?.timer.cancel();
    const timer = this.clock.setTimer(delayMs, () => {
      this.delayed.delete(key);
      this.add(key);
    });
    this.delayed.set(key, { readyAtMs, timer });
  }

  /** Adds `key` after the delay its rate limiter assigns to one more failure. */
  addRateLimited(key: K): void {
    this.metrics?.retried();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears `key`'s failure history (call after it was processed successfully). */
  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }

  /** Keys queued and ready to hand out (not counting keys being processed or delayed). */
  len(): number {
    return this.queue.length - this.queueHead;
  }

  /**
   * The next key to process, waiting until one is queued. Resolves undefined once the queue is shut
   * down and empty. The caller must call `done(key)` when it has finished with the key.
   */
  get(): Promise<K | undefined> {
    const key = this.dequeue();
    if (key !== undefined) return Promise.resolve(this.startProcessing(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waitingGetters.push(resolve));
  }

  /** Marks `key` finished; if it was added again meanwhile, queues it now. */
  done(key: K): void {
    if (!this.processing.delete(key)) {
      throw new Error(`work queue ${this.name}: done(${String(key)}) called for a key that is not being processed`);
    }
    this.metrics?.finished(key, this.clock.now());
    if (this.dirty.has(key)) this.enqueue(key);
    if (this.processing.size === 0) this.releaseDrainWaiters();
  }

  /** Stops accepting keys and drops delayed adds; waiting workers get undefined once the queue is empty. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) timer.cancel();
    this.delayed.clear();
    if (this.len() === 0) this.releaseWaitingGetters();
    this.releaseDrainWaiters();
  }

  /** Shuts down, then resolves once no key is being processed (in-flight work has called `done`). */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private assertRoomFor(operation: string, key: K): void {
    if (this.dirty.size + this.delayed.size < this.maxLength) return;
    throw new RangeError(
      `work queue ${this.name}: ${operation}(${String(key)}) would exceed maxLength ${this.maxLength}; ` +
        "keys are being added faster than workers finish them",
    );
  }

  private enqueue(key: K): void {
    const waitingGetter = this.waitingGetters.shift();
    if (waitingGetter !== undefined) {
      waitingGetter(this.startProcessing(key));
      return;
    }
    this.queue.push(key);
  }

  private dequeue(): K | undefined {
    if (this.queueHead >= this.queue.length) return undefined;
    const key = this.queue[this.queueHead] as K;
    this.queueHead++;
    // Reclaim the consumed prefix once it dominates, keeping dequeue O(1) amortised.
    if (this.queueHead * 2 >= this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    return key;
  }

  private startProcessing(key: K): K {
    this.metrics?.handedOut(key, this.clock.now());
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  private releaseWaitingGetters(): void {
    for (const resolve of this.waitingGetters.splice(0)) resolve(undefined);
  }

  private releaseDrainWaiters(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
