/**
 * Deferral to the end of the event loop's current I/O turn: `afterIo(fn)` runs `fn` once every
 * I/O callback that is ready now (requests that arrived together on different connections) has
 * run with its promise chains. It is not a timer — no time passes and no Clock is involved — which
 * is why the SQLite store can use it to gather the writes of concurrent requests into one commit
 * under any clock.
 *
 * A VirtualClock waits for deferred work between its tasks (`afterIoPending`), so a task's writes
 * are acknowledged before the next task runs, as when they were committed one by one.
 */

let pendingCallbacks = 0;
let settledWaiters: (() => void)[] = [];

function settledOne(): void {
  pendingCallbacks--;
  if (pendingCallbacks > 0 || settledWaiters.length === 0) return;
  const waiters = settledWaiters;
  settledWaiters = [];
  for (const resolve of waiters) resolve();
}

/** Runs `fn` after the I/O callbacks that are ready now; `fn` must not throw. */
export function afterIo(fn: () => void): void {
  pendingCallbacks++;
  setImmediate(() => {
    settledOne();
    fn();
  });
}

/**
 * Counts `work` as deferred until it settles: I/O on another thread that acknowledges deferred
 * writes (the SQLite store's fsync), which a VirtualClock gives turns to as it does to `afterIo`.
 */
export function deferUntilSettled(work: Promise<unknown>): void {
  pendingCallbacks++;
  work.then(settledOne, settledOne);
}

/** Resolves once no `afterIo` callback or deferred work is pending. */
export function afterIoSettled(): Promise<void> {
  if (pendingCallbacks === 0) return Promise.resolve();
  return new Promise((resolve) => settledWaiters.push(resolve));
}

/** True while some `afterIo` callback or deferred work has not run yet. */
export function afterIoPending(): boolean {
  return pendingCallbacks > 0;
}
