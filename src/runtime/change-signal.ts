/**
 * What a cache tells the loops that read it: a generation bumped on every change (a loop compares it
 * with the one its last pass saw), and listeners called after every change (a parked loop wakes;
 * see parking-loop.ts). Both caches of the kubelet's volume manager and both of the attach/detach
 * controller signal their changes through one of these.
 */
export class ChangeSignal {
  private generationCounter = 0;
  private readonly listeners: (() => void)[] = [];

  /** Changes so far. */
  get generation(): number {
    return this.generationCounter;
  }

  /** Calls `listener` after every change from now on (listeners are never removed: they live as long as the cache). */
  subscribe(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Records a change and tells every listener, in the order they subscribed. */
  changed(): void {
    this.generationCounter++;
    for (const listener of this.listeners) listener();
  }
}

/**
 * A cache whose changes a loop waits on: the generation and `onChange` its readers see, and
 * `changed()` for its own mutations. The four volume caches extend it.
 */
export abstract class ChangeSignalledCache {
  private readonly changes = new ChangeSignal();

  /** Bumped on every change signalled to the listeners. */
  get generation(): number {
    return this.changes.generation;
  }

  /** Calls `listener` after every change that can affect a decision (the reconciler parks until one). */
  onChange(listener: () => void): void {
    this.changes.subscribe(listener);
  }

  /** Records a change and wakes the listeners. */
  protected changed(): void {
    this.changes.changed();
  }
}
