/**
 * The attached (volume, node) pairs no pod wants: the detach pass's candidates, kept as the desired
 * and actual states change, so a pass visits only these instead of every attachment.
 *
 * The detach pass must visit them in the actual state's own order — volumes in the order they were
 * first attached (again, after a full detach), and each volume's nodes in the order they were
 * attached — because which detach starts first shows in the timeline. Each attachment carries its
 * place in that order as two numbers (its volume's and its own, from one counter), and the pairs
 * are kept sorted by them: adding or removing one is a binary search and a splice.
 */

/** Where an attachment stands in the actual state's iteration order. */
export interface AttachmentOrder {
  /** When its volume entry was created. */
  readonly volumeOrder: number;
  /** When the attachment was created (later than its volume's). */
  readonly order: number;
}

export interface UnwantedAttachment<V, A extends AttachmentOrder> {
  readonly volumeName: string;
  readonly nodeName: string;
  readonly volume: V;
  readonly attachment: A;
}

function compare(a: AttachmentOrder, b: AttachmentOrder): number {
  return a.volumeOrder - b.volumeOrder || a.order - b.order;
}

export class UnwantedAttachments<V, A extends AttachmentOrder> {
  private readonly sorted: UnwantedAttachment<V, A>[] = [];

  get size(): number {
    return this.sorted.length;
  }

  /** Adds the pair (a no-op when it is already there). */
  add(entry: UnwantedAttachment<V, A>): void {
    const index = this.search(entry.attachment);
    if (this.sorted[index]?.attachment === entry.attachment) return;
    this.sorted.splice(index, 0, entry);
  }

  /** Removes the pair of this attachment (a no-op when it is not there). */
  delete(attachment: A): void {
    const index = this.search(attachment);
    if (this.sorted[index]?.attachment === attachment) this.sorted.splice(index, 1);
  }

  has(attachment: A): boolean {
    return this.sorted[this.search(attachment)]?.attachment === attachment;
  }

  /** The pairs in the actual state's order. */
  entries(): readonly UnwantedAttachment<V, A>[] {
    return this.sorted;
  }

  /** The first index whose attachment is not before `attachment`. */
  private search(attachment: AttachmentOrder): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare((this.sorted[middle] as UnwantedAttachment<V, A>).attachment, attachment) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
