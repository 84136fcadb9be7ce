/**
 * The attached (volume, node) pairs no pod wants: the detach pass's candidates, kept as the desired
 * and actual states change, so a pass visits only these instead of every attachment.
 *
 * The detach pass must visit them in the actual state's own order — volumes in the order they were
 * first attached (again, after a full detach), and each volume's nodes in the order they were
 * attached — because which detach starts first shows in the timeline. Each volume carries its place
 * in that order (a number from a counter); the nodes of one volume are ordered by its own map of
 * them, which nearly always holds one. The pairs are kept sorted: adding or removing one is a binary
 * search and a splice.
 */
import { invariant } from "../../../runtime/assert.ts";

/** A volume of the actual state, as far as the order goes. */
export interface OrderedVolume {
  /** When the volume's entry was created: later entries come later. */
  readonly order: number;
  /** Its nodes, in the order they were attached. */
  readonly nodesAttachedTo: ReadonlyMap<string, unknown>;
}

export interface UnwantedAttachment<V extends OrderedVolume, A> {
  readonly volumeName: string;
  readonly nodeName: string;
  readonly volume: V;
  readonly attachment: A;
}

/**
 * Negative when the entry's pair comes before (otherVolume, otherNode) in the actual state's order.
 * Two nodes of one volume are ordered by its `nodesAttachedTo`: when neither is there, an entry
 * outlived its attachment, and there is no order to find.
 */
function compare(
  entry: UnwantedAttachment<OrderedVolume, unknown>,
  otherVolume: OrderedVolume,
  otherNode: string,
): number {
  const { volume, nodeName } = entry;
  if (volume !== otherVolume) return volume.order - otherVolume.order;
  if (nodeName === otherNode) return 0;
  for (const node of volume.nodesAttachedTo.keys()) {
    if (node === nodeName) return -1;
    if (node === otherNode) return 1;
  }
  invariant(
    false,
    `volume "${entry.volumeName}" on node "${nodeName}"`,
    () => `ordered against node "${otherNode}", but neither node is in the volume's nodesAttachedTo`,
  );
}

export class UnwantedAttachments<V extends OrderedVolume, A> {
  private readonly sorted: UnwantedAttachment<V, A>[] = [];

  /** Adds the pair (a no-op when it is already there). Its node must be in `volume.nodesAttachedTo`. */
  add(entry: UnwantedAttachment<V, A>): void {
    const index = this.search(entry.volume, entry.nodeName);
    if (this.isAt(index, entry.volume, entry.nodeName)) return;
    this.sorted.splice(index, 0, entry);
  }

  /** Removes the pair (a no-op when it is not there); call before the node leaves `volume.nodesAttachedTo`. */
  delete(volume: V, nodeName: string): void {
    const index = this.search(volume, nodeName);
    if (this.isAt(index, volume, nodeName)) this.sorted.splice(index, 1);
  }

  /** The pairs in the actual state's order. */
  entries(): readonly UnwantedAttachment<V, A>[] {
    return this.sorted;
  }

  private isAt(index: number, volume: V, nodeName: string): boolean {
    const entry = this.sorted[index];
    return entry !== undefined && entry.volume === volume && entry.nodeName === nodeName;
  }

  /** The first index whose pair is not before (volume, nodeName). */
  private search(volume: V, nodeName: string): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = this.sorted[middle] as UnwantedAttachment<V, A>;
      if (compare(entry, volume, nodeName) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
