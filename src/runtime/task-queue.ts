/**
 * The VirtualClock's agenda: scheduled tasks ordered by (due time, sequence number), so tasks due at
 * the same instant run in the order they were scheduled. A binary min-heap keeps insertion and removal
 * O(log n) for the hundreds of thousands of timers a large simulation holds.
 *
 * Cancellation is lazy (the entry is flagged and skipped when it reaches the top) because finding an
 * entry in a heap is O(n); the heap is compacted when cancelled entries pass a quarter of it, so a
 * component that schedules and cancels in a loop cannot grow it without bound.
 */

export interface ScheduledTask {
  readonly dueMs: number;
  readonly sequence: number;
  readonly run: () => void;
  cancelled: boolean;
}

/** Compaction only pays off once the heap is large; below this many entries lazy skipping is cheaper. */
const minEntriesBeforeCompaction = 1024;
/**
 * Share of the heap that cancelled entries may take before a compaction. A cancelled entry keeps
 * its callback, and all it closes over, alive until removed: a scheduler's five-minute requeue
 * timer, cancelled when the pod is placed, held that pod's queue entry long after. A quarter keeps
 * a compaction's cost amortised (each removes at least a quarter of the heap).
 */
const maxCancelledShare = 0.25;

export class TaskQueue<Task extends ScheduledTask = ScheduledTask> {
  private readonly heap: Task[] = [];
  private liveCount = 0;
  private readonly maxLength: number;

  /** `maxLength` bounds the live tasks; exceeding it means a runaway scheduler, so it throws. */
  constructor(maxLength: number) {
    if (!Number.isSafeInteger(maxLength) || maxLength <= 0) {
      throw new RangeError(`TaskQueue maxLength must be a positive integer, got ${maxLength}`);
    }
    this.maxLength = maxLength;
  }

  /** Number of tasks scheduled and not cancelled. */
  get size(): number {
    return this.liveCount;
  }

  push(task: Task): void {
    if (this.liveCount >= this.maxLength) {
      throw new RangeError(
        `cannot schedule more than ${this.maxLength} timers at once; a component is scheduling timers without bound`,
      );
    }
    this.heap.push(task);
    this.siftUp(this.heap.length - 1);
    this.liveCount++;
  }

  /** Marks a task cancelled; returns false when it had already run or been cancelled. */
  cancel(task: Task): boolean {
    if (task.cancelled) return false;
    task.cancelled = true;
    this.liveCount--;
    this.compactIfManyCancelled();
    return true;
  }

  /** The earliest live task without removing it. */
  peek(): Task | undefined {
    this.dropCancelledTop();
    return this.heap[0];
  }

  /** Removes and returns the earliest live task; the task is marked so a later cancel is a no-op. */
  pop(): Task | undefined {
    this.dropCancelledTop();
    const top = this.removeTop();
    if (top === undefined) return undefined;
    top.cancelled = true;
    this.liveCount--;
    return top;
  }

  private dropCancelledTop(): void {
    while (this.heap.length > 0 && this.heap[0]?.cancelled === true) this.removeTop();
  }

  private removeTop(): Task | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top === undefined || last === undefined) return undefined;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private compactIfManyCancelled(): void {
    const cancelled = this.heap.length - this.liveCount;
    if (this.heap.length < minEntriesBeforeCompaction || cancelled <= this.heap.length * maxCancelledShare) return;
    const live = this.heap.filter((task) => !task.cancelled);
    this.heap.length = 0;
    for (const task of live) this.heap.push(task);
    for (let index = (this.heap.length >> 1) - 1; index >= 0; index--) this.siftDown(index);
  }

  private siftUp(start: number): void {
    let index = start;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(index, parent)) return;
      this.swap(index, parent);
      index = parent;
    }
  }

  private siftDown(start: number): void {
    let index = start;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < this.heap.length && this.before(left, smallest)) smallest = left;
      if (right < this.heap.length && this.before(right, smallest)) smallest = right;
      if (smallest === index) return;
      this.swap(index, smallest);
      index = smallest;
    }
  }

  private before(a: number, b: number): boolean {
    const left = this.heap[a] as Task;
    const right = this.heap[b] as Task;
    return left.dueMs < right.dueMs || (left.dueMs === right.dueMs && left.sequence < right.sequence);
  }

  private swap(a: number, b: number): void {
    const left = this.heap[a] as Task;
    this.heap[a] = this.heap[b] as Task;
    this.heap[b] = left;
  }
}
