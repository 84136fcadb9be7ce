/**
 * Snapshots, restores and clones for the catalog drivers (hostpath.csi.kvol.io), as
 * csi-driver-host-path offers them: CreateSnapshot copies the volume's data beside it
 * (host-snapshots.ts), ready at once; DeleteSnapshot deletes the copy; ListSnapshots pages through
 * them; CreateVolume with a content source copies a snapshot's or another volume's data into the
 * new volume. A node-local controller knows only the volumes and snapshots on its own node: one
 * elsewhere is NotFound, as a distributed csi-driver-host-path answers.
 */

import { CsiError } from "../../grpc/errors.ts";
import type {
  CreateSnapshotRequest,
  CreateSnapshotResponse,
  DeleteSnapshotRequest,
  DeleteSnapshotResponse,
  ListSnapshotsRequest,
  ListSnapshotsResponse,
} from "../../proto/types.ts";
import { hostpathSnapshotIdPrefix } from "./constants.ts";
import { factsOfSnapshot, type HostSnapshotStore } from "./host-snapshots.ts";
import type { OperationLocks } from "./operation-locks.ts";
import { requireIdField } from "./request-fields.ts";
import { RestoreHolds } from "./restore-holds.ts";
import {
  type ContentSource,
  checkFitsSource,
  checkSameSource,
  listSnapshotsPage,
  snapshotIdFor,
  snapshotMessage,
} from "./snapshot-rpcs.ts";
import type { AccessType } from "./volume-capabilities.ts";
import type { VolumeCatalog, VolumeRecord } from "./volume-catalog.ts";

interface CatalogSnapshotsOptions {
  store: HostSnapshotStore;
  catalog: VolumeCatalog;
  /** Where a volume's data is (the controller's VolumeStorage). */
  dataPathOf: (record: VolumeRecord) => string;
  locks: OperationLocks;
  /** A node-local controller's node: volumes and snapshots of other nodes are not reachable. */
  nodeId?: string;
}

/** What CreateVolume copies a new volume from. */
export interface SourceData {
  path: string;
  contentSource: { snapshotId: string } | { volumeId: string };
}

export class CatalogSnapshots {
  /** Snapshots a CreateVolume is restoring from now: DeleteSnapshot must not pull their data away. */
  private readonly restores = new RestoreHolds();

  constructor(private readonly options: CatalogSnapshotsOptions) {}

  /** Marks the snapshot of a CreateVolume's content source in use until the returned release is called. */
  holdSource(source: Exclude<ContentSource, undefined>): () => void {
    return this.restores.hold(source);
  }

  createSnapshot(request: CreateSnapshotRequest): Promise<CreateSnapshotResponse> {
    const rpc = "CreateSnapshot";
    const name = requireIdField(request.name, "name", rpc);
    const sourceVolumeId = requireIdField(request.sourceVolumeId, "source_volume_id", rpc);
    const snapshotId = snapshotIdFor(hostpathSnapshotIdPrefix, name);
    const { store, locks } = this.options;
    return locks.run(`snapshot ${snapshotId}`, async () => {
      const existing = await store.get(snapshotId);
      if (existing !== undefined) {
        const facts = factsOfSnapshot(existing);
        checkSameSource(facts, { name, sourceVolumeId });
        return { snapshot: snapshotMessage(facts) };
      }
      const volume = await this.reachableVolume(sourceVolumeId, rpc, "source volume");
      // The volume's lock: no expansion or deletion while its data is copied.
      const made = await locks.run(`volume ${sourceVolumeId}`, () =>
        store.create(snapshotId, name, volume, this.options.dataPathOf(volume)),
      );
      return { snapshot: snapshotMessage(factsOfSnapshot(made)) };
    });
  }

  deleteSnapshot(request: DeleteSnapshotRequest): Promise<DeleteSnapshotResponse> {
    const snapshotId = requireIdField(request.snapshotId, "snapshot_id", "DeleteSnapshot");
    return this.options.locks.run(`snapshot ${snapshotId}`, async () => {
      this.restores.refuseDeleteWhileRestoring(snapshotId);
      await this.options.store.remove(snapshotId);
      return {};
    });
  }

  async listSnapshots(request: ListSnapshotsRequest): Promise<ListSnapshotsResponse> {
    const all = (await this.options.store.list()).filter((record) => this.isReachable(record.nodeId));
    return listSnapshotsPage(all.map(factsOfSnapshot), request);
  }

  /**
   * The data a new volume of `capacityBytes` and `accessType` is copied from: NOT_FOUND for a source
   * this controller does not have, OUT_OF_RANGE for one bigger than the new volume, INVALID_ARGUMENT
   * for one of the other access type (a block volume's file is no directory).
   */
  async sourceData(
    source: Exclude<ContentSource, undefined>,
    capacityBytes: number,
    accessType: AccessType,
  ): Promise<SourceData> {
    const rpc = "CreateVolume";
    if ("snapshotId" in source) {
      const snapshot = await this.options.store.get(source.snapshotId);
      if (snapshot === undefined || !this.isReachable(snapshot.nodeId)) {
        throw new CsiError("NotFound", `${rpc}: source snapshot ${source.snapshotId} does not exist`);
      }
      checkAccessTypes(snapshot.accessType, accessType, `snapshot ${source.snapshotId}`);
      checkFitsSource(capacityBytes, snapshot.sizeBytes, `snapshot ${source.snapshotId}`);
      return { path: this.options.store.dataPath(source.snapshotId), contentSource: source };
    }
    const volume = await this.reachableVolume(source.volumeId, rpc, "source volume");
    checkAccessTypes(volume.accessType, accessType, `volume ${source.volumeId}`);
    checkFitsSource(capacityBytes, volume.capacityBytes, `volume ${source.volumeId}`);
    return { path: this.options.dataPathOf(volume), contentSource: source };
  }

  private async reachableVolume(volumeId: string, rpc: string, what: string): Promise<VolumeRecord> {
    const volume = await this.options.catalog.get(volumeId);
    if (volume === undefined || !this.isReachable(volume.nodeId)) {
      throw new CsiError("NotFound", `${rpc}: ${what} ${volumeId} does not exist`);
    }
    return volume;
  }

  private isReachable(nodeId: string | undefined): boolean {
    return this.options.nodeId === undefined || nodeId === undefined || nodeId === this.options.nodeId;
  }
}

function checkAccessTypes(sourceType: AccessType, wanted: AccessType, what: string): void {
  if (sourceType !== wanted) {
    throw new CsiError(
      "InvalidArgument",
      `CreateVolume: ${what} holds a ${sourceType} volume and cannot become a ${wanted} volume`,
    );
  }
}
