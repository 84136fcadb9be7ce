/**
 * The standard controller worker loop (`processNextWorkItem` in client-go controllers): take a key,
 * handle it, forget its failures on success or re-add it rate-limited on failure, then mark it done.
 * Workers stop when the queue is shut down and empty.
 */
import type { WorkQueue, WorkQueueKey } from "./workqueue.ts";

/** Receives a key whose handler failed; the key has already been re-added with backoff. */
type HandlerErrorReporter<K> = (key: K, error: unknown) => void;

function reportHandlerErrorToStderr<K>(key: K, error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`error syncing ${String(key)} (will retry with backoff): ${text}\n`);
}

async function workerLoop<K extends WorkQueueKey>(
  queue: WorkQueue<K>,
  handler: (key: K) => Promise<void> | void,
  onError: HandlerErrorReporter<K>,
): Promise<void> {
  for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
    try {
      await handler(key);
      queue.forget(key);
    } catch (error) {
      queue.addRateLimited(key);
      onError(key, error);
    } finally {
      queue.done(key);
    }
  }
}

/** Starts `count` workers on `queue`; resolves when all of them have stopped after shutdown. */
export function runWorkers<K extends WorkQueueKey>(
  queue: WorkQueue<K>,
  count: number,
  handler: (key: K) => Promise<void> | void,
  onError: HandlerErrorReporter<K> = reportHandlerErrorToStderr,
): Promise<void> {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`runWorkers: count must be a positive integer, got ${count}`);
  }
  const workers = Array.from({ length: count }, () => workerLoop(queue, handler, onError));
  return Promise.all(workers).then(() => undefined);
}
