/**
 * One copy of each recently seen string: a recorder writes the same messages over and over ("Created
 * container app", the scheduler's "0/1000 nodes are available: …"), each built afresh by its caller,
 * and every stored Event kept its own copy of the text for an hour. Returning the copy seen first
 * lets thousands of Events share one string; the bound keeps the table small for recorders whose
 * messages never repeat (those naming a volume or a pod).
 */
export class RecentStrings {
  /** Insertion order is the eviction order: the first string seen goes first. */
  private readonly seen = new Map<string, string>();
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`RecentStrings: maxEntries must be a positive integer, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.seen.size;
  }

  /** The remembered string equal to `text`, or `text` itself (remembered from now on). */
  intern(text: string): string {
    const known = this.seen.get(text);
    if (known !== undefined) return known;
    this.seen.set(text, text);
    if (this.seen.size > this.maxEntries) this.seen.delete(this.seen.keys().next().value as string);
    return text;
  }
}
