/**
 * The snapshots a CreateVolume is restoring from right now. While one is held, DeleteSnapshot must
 * not pull its data away: the CSI spec's FAILED_PRECONDITION "snapshot in use".
 */
import { CsiError } from "../../grpc/errors.ts";
import type { ContentSource } from "./snapshot-rpcs.ts";

export class RestoreHolds {
  private readonly restoring = new Map<string, number>();

  /**
   * Marks the snapshot of a CreateVolume's content source in use until the returned release is
   * called; a clone's source volume is guarded by its own volume lock instead.
   */
  hold(source: ContentSource): () => void {
    const snapshotId = source !== undefined && "snapshotId" in source ? source.snapshotId : undefined;
    if (snapshotId === undefined) return () => undefined;
    this.restoring.set(snapshotId, (this.restoring.get(snapshotId) ?? 0) + 1);
    return () => {
      const left = (this.restoring.get(snapshotId) ?? 1) - 1;
      if (left === 0) this.restoring.delete(snapshotId);
      else this.restoring.set(snapshotId, left);
    };
  }

  /** Throws FAILED_PRECONDITION while a volume is being restored from `snapshotId`. */
  refuseDeleteWhileRestoring(snapshotId: string): void {
    if (!this.restoring.has(snapshotId)) return;
    throw new CsiError(
      "FailedPrecondition",
      `DeleteSnapshot: snapshot ${snapshotId} is in use: a volume is being restored from it; retry once that has finished`,
    );
  }
}
