/**
 * The running state the CSI controller sidecars (attacher, provisioner, resizer, capacity and
 * cloning protection) share: their driver startup, work queues named after the driver and retried
 * with the sidecar's backoff, the informer handlers and resync timer feeding them, and a start/stop
 * pair that stops all of it and waits for the syncs in progress.
 */
import type { HandlerRegistration } from "../../api/informer/shared-informer.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { ItemExponentialFailureRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import type { CsiControllerClient } from "./driver-connection.ts";
import { connectToDriver, type DriverInfo } from "./driver-startup.ts";

interface SidecarRunOptions {
  /** The sidecar's name, in the error a second `start` throws. */
  name: string;
  driverName: string;
  clock: Clock;
  logger: Logger;
  /** A failed key is retried after this long, doubling each time up to `retryMaxMs`. */
  retryStartMs: number;
  retryMaxMs: number;
}

/** One queue and what the sidecar does with each of its keys. */
interface QueueWork {
  queue: WorkQueue<string>;
  process: (key: string) => Promise<void>;
}

export class SidecarRun {
  private readonly options: SidecarRunOptions;
  private readonly queues: WorkQueue<string>[] = [];
  private readonly registrations: HandlerRegistration[] = [];
  private resyncTimer: Timer | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(options: SidecarRunOptions) {
    this.options = options;
  }

  /** True once `stop` was called: startup steps check it between their waits. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** A work queue `<name> (<driver>)`, shut down by `stop`. */
  newQueue(name: string): WorkQueue<string> {
    const { driverName, clock, retryStartMs, retryMaxMs } = this.options;
    const queue = new WorkQueue<string>({
      name: `${name} (${driverName})`,
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(retryStartMs, retryMaxMs),
    });
    this.queues.push(queue);
    return queue;
  }

  /** Waits for the driver and reads its identity (csi-lib-utils' startup); undefined once stopped. */
  connect(driver: CsiControllerClient, callTimeoutMs: number): Promise<DriverInfo | undefined> {
    const { driverName, clock, logger } = this.options;
    return connectToDriver({
      driver,
      expectedName: driverName,
      clock,
      logger,
      callTimeoutMs,
      isStopped: () => this.stopped,
    });
  }

  start(run: () => Promise<void>): void {
    if (this.running !== undefined) throw new Error(`${this.options.name}: start() called twice`);
    this.running = run();
  }

  /** Keeps the handlers feeding the queues, to be removed by `stop`. */
  listen(...registrations: HandlerRegistration[]): void {
    this.registrations.push(...registrations);
  }

  resyncEvery(periodMs: number, resync: () => void): void {
    this.resyncTimer = this.options.clock.every(periodMs, resync);
  }

  /** Runs `workerCount` workers on every queue until `stop`; a failed key is logged and retried. */
  async runWorkers(workerCount: number, work: readonly QueueWork[]): Promise<void> {
    const report = (key: string, error: unknown) =>
      this.options.logger.info("sync failed; retrying with backoff", { key, error: errorMessage(error) });
    await Promise.all(work.map(({ queue, process }) => runWorkers(queue, workerCount, process, report)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.resyncTimer?.cancel();
    for (const registration of this.registrations) registration.remove();
    for (const queue of this.queues) queue.shutDown();
    await this.running;
  }
}
