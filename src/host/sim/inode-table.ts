/**
 * A filesystem's inodes by number. Numbers are handed out in order and never reused, so while most
 * numbers ever handed out are still live, an array indexed by number is the whole table: 8 bytes
 * an inode. A Map per filesystem cost about 40 bytes an inode with its growth slack, and every
 * disk of a large simulated cluster has its own filesystem while every node's holds a dozen
 * directories and files per pod, which made the Maps most of a running pod's simulated-host memory.
 *
 * Once fewer than half of the numbers in the array are live (a node that has run and removed many
 * pods), the table moves to a Map for good, so the dead numbers do not cost 8 bytes each forever.
 */

/** Below this many slots an array is never swapped for a Map: a small one is cheap whatever its holes. */
const minSlotsBeforeSparse = 64;

export class InodeTable<T> {
  /** The inode numbered `firstNumber + i` at `i`, while dense; undefined once sparse. */
  private dense: (T | undefined)[] | undefined = [];
  private sparse: Map<number, T> | undefined;
  private readonly firstNumber: number;
  private live = 0;

  /** `firstNumber`: the lowest number the filesystem hands out (its root directory's). */
  constructor(firstNumber: number) {
    this.firstNumber = firstNumber;
  }

  get size(): number {
    return this.live;
  }

  get(ino: number): T | undefined {
    if (this.dense === undefined) return this.sparse?.get(ino);
    return this.dense[ino - this.firstNumber];
  }

  /** Adds or replaces inode `ino`. Numbers below `firstNumber` are refused. */
  set(ino: number, inode: T): void {
    const index = ino - this.firstNumber;
    if (!Number.isSafeInteger(index) || index < 0) {
      throw new RangeError(`InodeTable: inode number ${ino} is below the first, ${this.firstNumber}`);
    }
    if (this.dense === undefined) {
      if (!this.sparse?.has(ino)) this.live++;
      this.sparse?.set(ino, inode);
      return;
    }
    if (this.dense[index] === undefined) this.live++;
    // Filling the holes up to `index` keeps the array's elements packed rather than a dictionary.
    while (this.dense.length < index) this.dense.push(undefined);
    this.dense[index] = inode;
  }

  /** Removes inode `ino`; false when there was none. */
  delete(ino: number): boolean {
    if (this.dense === undefined) {
      const removed = this.sparse?.delete(ino) ?? false;
      if (removed) this.live--;
      return removed;
    }
    const index = ino - this.firstNumber;
    if (this.dense[index] === undefined) return false;
    this.dense[index] = undefined;
    this.live--;
    if (this.dense.length >= minSlotsBeforeSparse && this.live * 2 < this.dense.length) this.becomeSparse();
    return true;
  }

  private becomeSparse(): void {
    const sparse = new Map<number, T>();
    const dense = this.dense ?? [];
    for (let i = 0; i < dense.length; i++) {
      const inode = dense[i];
      if (inode !== undefined) sparse.set(i + this.firstNumber, inode);
    }
    this.sparse = sparse;
    this.dense = undefined;
  }
}
