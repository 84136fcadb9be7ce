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

/** Runs `fn` after the I/O callbacks that are ready now; `fn` must not throw. */
export function afterIo(fn: () => void): void {
  pendingCallbacks++;
  setImmediate(() => {
    pendingCallbacks--;
    fn();
  });
}

/** True while some `afterIo` callback has not run yet. */
export function afterIoPending(): boolean {
  return pendingCallbacks > 0;
}
