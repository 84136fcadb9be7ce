/**
 * The queue-and-workers half every workload controller shares (the `Run` / `worker` /
 * `processNextWorkItem` of Kubernetes' controllers): keys `namespace/name` go into a rate-limited
 * work queue, workers start once the caches have synced, and a sync that fails is retried with the
 * default controller backoff (5 ms doubling, and an overall 10 per second). The loop also holds the
 * controller's informer handler registrations, so that stopping it stops the keys coming too.
 */
import type { HandlerRegistration } from "../../api/informer/shared-informer.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { defaultControllerRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import type { ControllerContext } from "../controller-context.ts";

/** What the loop waits for before its first sync: the informers the controller reads. */
interface Syncable {
  waitForSync(): Promise<boolean>;
}

interface SyncLoopOptions {
  name: string;
  context: ControllerContext;
  workerCount: number;
  /** Brings one object's world in line with its spec; throwing retries the key with backoff. */
  sync: (key: string) => Promise<void>;
  caches: readonly Syncable[];
}

export class SyncLoop {
  readonly queue: WorkQueue<string>;
  private readonly options: SyncLoopOptions;
  private workers: Promise<void> | undefined;
  private registrations: readonly HandlerRegistration[] = [];

  constructor(options: SyncLoopOptions) {
    this.options = options;
    this.queue = new WorkQueue<string>({
      name: options.name,
      clock: options.context.clock,
      rateLimiter: defaultControllerRateLimiter(options.context.clock),
    });
  }

  /** Starts the workers; `registrations` are the handlers feeding the queue, removed by `stop`. */
  start(registrations: readonly HandlerRegistration[] = []): void {
    this.registrations = [...this.registrations, ...registrations];
    if (this.workers !== undefined) return;
    this.workers = this.runOnceSynced();
  }

  /** Removes the handlers, stops taking keys and resolves once the syncs in progress have finished. */
  async stop(): Promise<void> {
    for (const registration of this.registrations) registration.remove();
    this.registrations = [];
    this.queue.shutDown();
    await this.workers;
  }

  private async runOnceSynced(): Promise<void> {
    const { caches, context, name, sync, workerCount } = this.options;
    const synced = await Promise.all(caches.map((cache) => cache.waitForSync()));
    if (!synced.every(Boolean)) {
      context.logger.info("caches stopped before they synced; not starting workers", { controller: name });
      return;
    }
    await runWorkers(this.queue, workerCount, sync, (key, error) => {
      const why = errorMessage(error);
      context.logger.warn("sync failed; will retry with backoff", { controller: name, key, error: why });
    });
  }
}
