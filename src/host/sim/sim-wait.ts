/**
 * How a simulated operation waits for the outside world (an NFS server coming back, a FUSE daemon)
 * without time passing on its own: a `Signal` wakes waiters when a condition may have changed, and a
 * `Cancellation` ends a wait early (a command's timeout, a reboot, a power-off). Only the waiting
 * operation is blocked; everything else on the node keeps running, as on a real kernel.
 */

/** A notification that some condition may have changed; waiters re-check it. */
export class Signal {
  private waiters: Array<() => void> = [];

  /** Resolves on the next `notify`. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const woken = this.waiters;
    this.waiters = [];
    for (const wake of woken) wake();
  }
}

/** Ends waits early with an error; a child is cancelled with its parent. */
export class Cancellation {
  private reason: Error | undefined;
  private readonly listeners = new Set<(reason: Error) => void>();
  private readonly detachFromParent: (() => void) | undefined;

  constructor(parent?: Cancellation) {
    if (parent === undefined) return;
    if (parent.reason !== undefined) {
      this.reason = parent.reason;
      return;
    }
    const onParentCancel = (reason: Error) => this.cancel(reason);
    parent.listeners.add(onParentCancel);
    this.detachFromParent = () => parent.listeners.delete(onParentCancel);
  }

  get cancelled(): boolean {
    return this.reason !== undefined;
  }

  cancel(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.detachFromParent?.();
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener(reason);
  }

  throwIfCancelled(): void {
    if (this.reason !== undefined) throw this.reason;
  }

  /** Stops listening to the parent once the operation this cancellation guards has ended. */
  dispose(): void {
    this.detachFromParent?.();
  }

  /** Settles like `promise`, or rejects with the cancellation reason if that comes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.reason !== undefined) return Promise.reject(this.reason);
    return new Promise<T>((resolve, reject) => {
      const onCancel = (reason: Error) => reject(reason);
      this.listeners.add(onCancel);
      promise.then(
        (value) => {
          this.listeners.delete(onCancel);
          resolve(value);
        },
        (error: unknown) => {
          this.listeners.delete(onCancel);
          reject(error);
        },
      );
    });
  }
}

/**
 * Waits until `isReady()` holds, re-checking each time `signal` fires. Every pass is driven by a
 * notification, so the loop costs nothing while the world stands still; a cancellation ends it.
 */
export async function waitUntil(isReady: () => boolean, signal: Signal, cancellation: Cancellation): Promise<void> {
  while (!isReady()) {
    cancellation.throwIfCancelled();
    await cancellation.race(signal.next());
  }
}
