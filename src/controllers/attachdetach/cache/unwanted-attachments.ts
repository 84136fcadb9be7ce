/**
 * The attached (volume, node) pairs no pod wants: the detach pass's candidates, kept as the desired
 * and actual states change, so a pass visits only these instead of every attachment.
 *
 * The detach pass must visit them in the actual state's own order — volumes in the order they were
 * first attached (again, after a full detach), and each volume's nodes in the order they were
 * attached — because which detach starts first shows in the timeline. Each volume carries its place
 * in that order (a number from a counter); the nodes of one volume are ordered by its own map of
 * them, which nearly always holds one.
 *
 * Cost. A mass deletion adds thousands of pairs and removes them one by one; a sorted array that
 * splices each in and out moves n²/2 entries. Here an addition waits in a small unsorted list, a
 * removal only marks its entry, and the sorted list is rebuilt — the additions sorted and merged in,
 * the removed left out — when it is next read: O(n + k log k) per read after k changes, and a
 * detach pass reads it once and visits all n anyway. The list a read returns is never changed
 * afterwards, so the pass can hold it across its awaits without a copy.
 */
import { invariant } from "../../../runtime/assert.ts";

/** A volume of the actual state, as far as the order goes. */
export interface OrderedVolume<A> {
  /** When the volume's entry was created: later entries come later. */
  readonly order: number;
  /** Its nodes, in the order they were attached, with each node's attachment. */
  readonly nodesAttachedTo: ReadonlyMap<string, A>;
}

export interface UnwantedAttachment<V extends OrderedVolume<A>, A> {
  readonly volumeName: string;
  readonly nodeName: string;
  readonly volume: V;
  /** The pair's attachment: `volume.nodesAttachedTo.get(nodeName)`, one object for as long as the pair is attached. */
  readonly attachment: A;
}

/** An entry as kept here: `removed` once deleted, until the next rebuild drops it. */
interface Entry<V extends OrderedVolume<A>, A> extends UnwantedAttachment<V, A> {
  removed: boolean;
}

const notItsAttachment = "added with an attachment that is not the volume's on that node";
const leftBeforeIndex = "left the volume's nodesAttachedTo before it left the unwanted attachments";

function pairKeyOf(volumeName: string, nodeName: string): string {
  return `volume "${volumeName}" on node "${nodeName}"`;
}

/**
 * Negative when `entry` comes before `other` in the actual state's order. Two nodes of one volume
 * are ordered by its `nodesAttachedTo`: when neither is there, an entry outlived its attachment,
 * and there is no order to find: `add` and `delete` check the attachment is still there, so only a
 * change to `nodesAttachedTo` that skipped `delete` gets here.
 */
function compare<V extends OrderedVolume<A>, A>(entry: Entry<V, A>, other: Entry<V, A>): number {
  const { volume, nodeName } = entry;
  if (volume !== other.volume) return volume.order - other.volume.order;
  if (nodeName === other.nodeName) return 0;
  for (const node of volume.nodesAttachedTo.keys()) {
    if (node === nodeName) return -1;
    if (node === other.nodeName) return 1;
  }
  invariant(
    false,
    pairKeyOf(entry.volumeName, nodeName),
    () => `ordered against node "${other.nodeName}", but neither node is in the volume's nodesAttachedTo`,
  );
}

export class UnwantedAttachments<V extends OrderedVolume<A>, A extends object> {
  /** The pairs in order as of the last read, some maybe removed since; never changed once returned. */
  private sorted: readonly Entry<V, A>[] = [];
  /** Added since the last read, in no order (some maybe removed since). */
  private added: Entry<V, A>[] = [];
  /** Whether `sorted` has a removed entry. */
  private anyRemoved = false;
  /** attachment → its live entry: one per pair. */
  private readonly byAttachment = new Map<A, Entry<V, A>>();

  /**
   * Adds the pair (a no-op when it is already there). `attachment` must be the one in
   * `volume.nodesAttachedTo`, and stay there until the pair is deleted from here.
   */
  add(volumeName: string, nodeName: string, volume: V, attachment: A): void {
    if (this.byAttachment.has(attachment)) return;
    invariant(volume.nodesAttachedTo.get(nodeName) === attachment, pairKeyOf(volumeName, nodeName), notItsAttachment);
    const entry: Entry<V, A> = { volumeName, nodeName, volume, attachment, removed: false };
    this.byAttachment.set(attachment, entry);
    this.added.push(entry);
  }

  /** Removes the pair of this attachment (a no-op when it is not there); call before it leaves `nodesAttachedTo`. */
  delete(attachment: A): void {
    const entry = this.byAttachment.get(attachment);
    if (entry === undefined) return;
    // Checked here, at the change, in the caller that broke the order: the next read would fail
    // instead, in every pass, with the caller long gone.
    invariant(
      entry.volume.nodesAttachedTo.get(entry.nodeName) === attachment,
      pairKeyOf(entry.volumeName, entry.nodeName),
      leftBeforeIndex,
    );
    this.byAttachment.delete(attachment);
    entry.removed = true;
    this.anyRemoved = true;
  }

  /** The pairs in the actual state's order: a list later changes do not alter. */
  entries(): readonly UnwantedAttachment<V, A>[] {
    if (this.added.length > 0 || this.anyRemoved) this.rebuild();
    return this.sorted;
  }

  /** Merges the additions into the kept order and drops the removed entries, into a new list. */
  private rebuild(): void {
    const added = this.added.filter((entry) => !entry.removed).sort(compare);
    const merged: Entry<V, A>[] = [];
    let next = 0;
    for (const entry of this.sorted) {
      if (entry.removed) continue;
      for (let first = added[next]; first !== undefined && compare(first, entry) < 0; first = added[++next]) {
        merged.push(first);
      }
      merged.push(entry);
    }
    // A loop, not push(...rest): a mass deletion adds more entries than a call takes arguments.
    for (; next < added.length; next++) merged.push(added[next] as Entry<V, A>);
    this.sorted = merged;
    this.added = [];
    this.anyRemoved = false;
  }
}
