/**
 * Keys waiting to expire, earliest first: a binary min-heap ordered by (expiry time, revision), so
 * keys due at the same instant leave in the order they were written. Each entry is three slots in
 * parallel arrays (no object per entry): a store holds one for every Event, and at the scale of
 * Kubernetes' envelope that is over a million of them.
 */

export interface DueKey {
  key: string;
  modRevision: number;
  expiresAtMs: number;
}

export class ExpiryQueue {
  private readonly dueMs: number[] = [];
  private readonly revisions: number[] = [];
  private readonly keys: string[] = [];

  get length(): number {
    return this.keys.length;
  }

  /** When the earliest entry expires (epoch ms), or undefined when the queue is empty. */
  get earliestMs(): number | undefined {
    return this.dueMs[0];
  }

  push(key: string, modRevision: number, expiresAtMs: number): void {
    this.dueMs.push(expiresAtMs);
    this.revisions.push(modRevision);
    this.keys.push(key);
    this.siftUp(this.keys.length - 1);
  }

  /** Removes and returns the earliest entry if it expires at or before `nowMs`. */
  popDue(nowMs: number): DueKey | undefined {
    const first = this.dueMs[0];
    if (first === undefined || first > nowMs) return undefined;
    const due: DueKey = { key: this.keys[0] as string, modRevision: this.revisions[0] as number, expiresAtMs: first };
    this.removeAt(0);
    return due;
  }

  /** Keeps only the entries `keep` accepts (those not superseded by a later write), in heap order. */
  retain(keep: (key: string, modRevision: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.keys.length; i++) {
      const key = this.keys[i] as string;
      const revision = this.revisions[i] as number;
      if (!keep(key, revision)) continue;
      this.dueMs[kept] = this.dueMs[i] as number;
      this.revisions[kept] = revision;
      this.keys[kept] = key;
      kept++;
    }
    this.truncate(kept);
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  clear(): void {
    this.truncate(0);
  }

  private truncate(length: number): void {
    this.dueMs.length = length;
    this.revisions.length = length;
    this.keys.length = length;
  }

  private removeAt(index: number): void {
    const last = this.keys.length - 1;
    if (index !== last) this.move(last, index);
    this.truncate(last);
    if (index < last) this.siftDown(index);
  }

  /** Entry `a` comes before entry `b`. */
  private before(a: number, b: number): boolean {
    const dueA = this.dueMs[a] as number;
    const dueB = this.dueMs[b] as number;
    return dueA < dueB || (dueA === dueB && (this.revisions[a] as number) < (this.revisions[b] as number));
  }

  private move(from: number, to: number): void {
    this.dueMs[to] = this.dueMs[from] as number;
    this.revisions[to] = this.revisions[from] as number;
    this.keys[to] = this.keys[from] as string;
  }

  private swap(a: number, b: number): void {
    const due = this.dueMs[a] as number;
    const revision = this.revisions[a] as number;
    const key = this.keys[a] as string;
    this.move(b, a);
    this.dueMs[b] = due;
    this.revisions[b] = revision;
    this.keys[b] = key;
  }

  private siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.before(child, parent)) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(index: number): void {
    const length = this.keys.length;
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      if (left >= length) return;
      const right = left + 1;
      const smaller = right < length && this.before(right, left) ? right : left;
      if (!this.before(smaller, parent)) return;
      this.swap(smaller, parent);
      parent = smaller;
    }
  }
}
