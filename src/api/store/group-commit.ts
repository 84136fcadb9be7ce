/**
 * Group commit: writes submitted during one turn of the event loop (concurrent requests, a burst
 * of controller writes) are committed together, one transaction and one fsync for all of them,
 * instead of one each. Each write is still acknowledged only once the commit that holds it is
 * durable, and in submission order, so revisions and watch events follow the commit order.
 *
 * The committer decides each write's outcome inside the transaction: a write that fails its own
 * checks fails alone while the others of its group commit. Only a failed commit (the disk, not a
 * write) fails every write of the group, none of which is then stored.
 */
import { afterIo } from "../../runtime/after-io.ts";
import { invariant } from "../../runtime/assert.ts";

/** What became of one write of a committed group. */
export type WriteOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Commits `writes` in one transaction and returns their outcomes in the same order; throws when
 * the transaction could not be committed, in which case nothing of it may remain visible. A
 * committer whose commits become durable later (an fsync on another thread) returns a promise of
 * the outcomes instead, which it settles once the commit is durable, groups in commit order; the
 * writes submitted meanwhile wait, and are committed together once it has settled.
 */
export type CommitGroup<W, R> = (writes: readonly W[]) => WriteOutcome<R>[] | Promise<WriteOutcome<R>[]>;

interface Queued<W, R> {
  write: W;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<W, R> {
  private queue: Queued<W, R>[] = [];
  private scheduled = false;
  /** Groups committed whose durability has not settled yet. */
  private inFlight = 0;
  private readonly commitGroup: CommitGroup<W, R>;
  private readonly maxGroupWrites: number;

  /** `maxGroupWrites` bounds one transaction; a longer queue is committed in several. */
  constructor(commitGroup: CommitGroup<W, R>, maxGroupWrites: number) {
    if (!Number.isInteger(maxGroupWrites) || maxGroupWrites < 1) {
      throw new RangeError(`maxGroupWrites must be a positive integer, got ${maxGroupWrites}`);
    }
    this.commitGroup = commitGroup;
    this.maxGroupWrites = maxGroupWrites;
  }

  /** Resolves with the write's result once it is durable; rejects with its own failure or the commit's. */
  submit(write: W): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      // While a commit waits to be durable, writes queue up for the next: it then finds every
      // commit in the file durable at once (a read waiting for it is not kept waiting by later ones).
      if (this.inFlight === 0) this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    afterIo(() => this.flush());
  }

  /** Commits every queued write now (before closing the store, say). */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxGroupWrites);
      this.commit(group);
    }
  }

  private commit(group: Queued<W, R>[]): void {
    let outcomes: WriteOutcome<R>[] | Promise<WriteOutcome<R>[]>;
    try {
      outcomes = this.commitGroup(group.map((queued) => queued.write));
    } catch (error) {
      for (const queued of group) queued.reject(error);
      return;
    }
    if (Array.isArray(outcomes)) {
      this.settle(group, outcomes);
      return;
    }
    this.inFlight++;
    outcomes
      .then(
        (durable) => this.settle(group, durable),
        (error: unknown) => {
          for (const queued of group) queued.reject(error);
        },
      )
      .finally(() => {
        this.inFlight--;
        if (this.inFlight === 0 && this.queue.length > 0) this.schedule();
      });
  }

  private settle(group: Queued<W, R>[], outcomes: WriteOutcome<R>[]): void {
    invariant(outcomes.length === group.length, "group commit", () => {
      return `the committer returned ${outcomes.length} outcomes for ${group.length} writes`;
    });
    group.forEach((queued, index) => {
      const outcome = outcomes[index] as WriteOutcome<R>;
      if (outcome.ok) queued.resolve(outcome.value);
      else queued.reject(outcome.error);
    });
  }
}
