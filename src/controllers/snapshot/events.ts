import { goQuote } from "../../runtime/go-quote.ts";

/** The snapshot controller's event reasons and messages, word for word as the external-snapshotter writes them. */
export const SnapshotEventReason = {
  creatingSnapshot: "CreatingSnapshot",
  snapshotCreated: "SnapshotCreated",
  snapshotReady: "SnapshotReady",
  contentCreationFailed: "SnapshotContentCreationFailed",
  contentMissing: "SnapshotContentMissing",
  contentMisbound: "SnapshotContentMisbound",
  deletePending: "SnapshotDeletePending",
  snapshotCreationFailed: "SnapshotCreationFailed",
  snapshotDeleteError: "SnapshotDeleteError",
} as const;

/** utils.SnapshotKey: `namespace/name`. */
export function creatingSnapshotMessage(snapshotKey: string): string {
  return `Waiting for a snapshot ${snapshotKey} to be created by the CSI driver.`;
}

export function snapshotCreatedMessage(snapshotKey: string): string {
  return `Snapshot ${snapshotKey} was successfully created by the CSI driver.`;
}

export function snapshotReadyMessage(snapshotKey: string): string {
  return `Snapshot ${snapshotKey} is ready to use.`;
}

export function contentCreationFailedMessage(detail: string): string {
  return `Failed to create snapshot content with error ${detail}`;
}

export function createInputFailedMessage(snapshotName: string, detail: string): string {
  return `failed to get input parameters to create snapshot ${snapshotName}: ${goQuote(detail)}`;
}

export const deletePendingMessage = "Snapshot is being used to restore a PVC";
