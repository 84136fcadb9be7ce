/**
 * What the node-fencing controller needs of a storage system: a declaration of which volumes it can
 * fence, whether it can fence now, and a fence that resolves only once the storage confirms that
 * the node's I/O fails. The controller fences a node only when every volume the node holds is
 * covered by a fencer that confirms; otherwise it records why it did not fence.
 *
 * Implementations: the simulated world's (cloud disks, RBD: `cmd/sim-storage-fencer.ts`) and the
 * real disk driver's loop-device fence (`csi/drivers/disk/loop-fencer.ts`).
 */
import type { PersistentVolume } from "../../api/objects.ts";

export interface FenceResult {
  /** True only when the storage confirms the node's reads and writes now fail. */
  readonly confirmed: boolean;
  /** What was done or why it is not confirmed, for the Node's condition and event. */
  readonly detail: string;
}

export interface StorageFencer {
  /** The storage it fences, as messages name it (`disk.csi.kvol.io`, `kubernetes.io/rbd`). */
  readonly name: string;
  /** Whether the volume's storage is one this fencer can cut a node off from. */
  covers(pv: PersistentVolume): boolean;
  /** Why it cannot fence at the moment (its backend lacks the means), or undefined when it can. */
  unavailable(): Promise<string | undefined>;
  /** Cuts the node off; idempotent. Resolves with the storage's confirmation. */
  fence(nodeName: string): Promise<FenceResult>;
  /**
   * What of this storage the node still holds (an RBD mapping, an attached disk, the node's own loop
   * device), as the storage sees it. Unfencing waits until it is nothing: a kubelet that restarted
   * may have forgotten a stale mount its `volumesInUse` no longer names, and lifting the fence
   * under it would make it a second writer.
   */
  heldBy(nodeName: string): Promise<readonly string[]>;
  /** Lets the node in again; idempotent. */
  unfence(nodeName: string): Promise<void>;
}
