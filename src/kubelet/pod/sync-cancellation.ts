/**
 * How a pod worker tells a sync in progress that it is abandoned (Kubernetes cancels the sync's
 * context when the pod starts terminating). The part of an AbortController that pod syncs use —
 * a flag and listeners called at once, in the order they were added — without the EventTarget an
 * AbortController and its signal carry: making one and listening to it cost several microseconds
 * and a few kilobytes of garbage for every sync of every pod.
 */
export class SyncCancellation {
  private listeners: (() => void)[] | undefined;
  private done = false;

  get cancelled(): boolean {
    return this.done;
  }

  /** Marks the sync abandoned and calls each listener once; later calls do nothing. */
  cancel(): void {
    if (this.done) return;
    this.done = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }

  /** Calls `listener` once when the sync is abandoned; never if it already was (check `cancelled` first). */
  onCancel(listener: () => void): void {
    if (this.done) return;
    if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
  }

  /** Forgets `listener` (the work it guarded has settled). */
  offCancel(listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners?.splice(index, 1);
  }
}

/** The sync was abandoned because the pod started terminating (Kubernetes: context canceled). */
export class SyncCancelledError extends Error {
  constructor() {
    super("context canceled");
    this.name = "SyncCancelledError";
  }
}
