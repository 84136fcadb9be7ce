/**
 * An ordered set of string keys for listing by prefix without scanning the whole store: a sorted
 * array cut into chunks (the layout of Python's sortedcontainers). Insert and delete cost a binary
 * search plus a move inside one chunk of at most `maxChunkLength` keys; a range read costs a
 * binary search plus the keys it returns.
 */

/** Chunks split in two past this length; large enough for few chunks, small enough for cheap moves. */
const maxChunkLength = 1024;

/** First index in `sorted` whose value is >= `key` (sorted.length when none). */
function lowerBound(sorted: readonly string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class SortedKeys {
  private readonly chunks: string[][] = [];
  /** The last key of each chunk, for the binary search that picks a chunk. */
  private readonly lastKeys: string[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `key`; false when it was already there. */
  add(key: string): boolean {
    if (this.chunks.length === 0) {
      this.chunks.push([key]);
      this.lastKeys.push(key);
      this.count = 1;
      return true;
    }
    const chunkIndex = Math.min(lowerBound(this.lastKeys, key), this.chunks.length - 1);
    const chunk = this.chunks[chunkIndex] as string[];
    const at = lowerBound(chunk, key);
    if (chunk[at] === key) return false;
    chunk.splice(at, 0, key);
    this.lastKeys[chunkIndex] = chunk[chunk.length - 1] as string;
    this.count++;
    if (chunk.length > maxChunkLength) this.split(chunkIndex);
    return true;
  }

  /** Removes `key`; false when it was not there. */
  delete(key: string): boolean {
    const chunkIndex = lowerBound(this.lastKeys, key);
    const chunk = this.chunks[chunkIndex];
    if (chunk === undefined) return false;
    const at = lowerBound(chunk, key);
    if (chunk[at] !== key) return false;
    chunk.splice(at, 1);
    this.count--;
    if (chunk.length === 0) {
      this.chunks.splice(chunkIndex, 1);
      this.lastKeys.splice(chunkIndex, 1);
    } else {
      this.lastKeys[chunkIndex] = chunk[chunk.length - 1] as string;
    }
    return true;
  }

  /**
   * Calls `visit` for each key >= `startKey`, in order, until it returns false or the keys run out.
   * The set must not change during the walk.
   */
  forEachFrom(startKey: string, visit: (key: string) => boolean): void {
    let chunkIndex = lowerBound(this.lastKeys, startKey);
    let at = chunkIndex < this.chunks.length ? lowerBound(this.chunks[chunkIndex] as string[], startKey) : 0;
    for (; chunkIndex < this.chunks.length; chunkIndex++, at = 0) {
      const chunk = this.chunks[chunkIndex] as string[];
      for (; at < chunk.length; at++) if (!visit(chunk[at] as string)) return;
    }
  }

  private split(chunkIndex: number): void {
    const chunk = this.chunks[chunkIndex] as string[];
    const upper = chunk.splice(chunk.length >>> 1);
    this.chunks.splice(chunkIndex + 1, 0, upper);
    this.lastKeys.splice(chunkIndex, 1, chunk[chunk.length - 1] as string, upper[upper.length - 1] as string);
  }
}
