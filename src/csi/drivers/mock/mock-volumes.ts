/**
 * The in-memory world of mock.csi.kvol.io: volumes, where the controller published them, and which
 * staging and target paths the node plugin "mounted" — nothing touches a Host. Each operation
 * keeps the CSI spec's idempotency and error codes, so a caller meets the same answers it would
 * from a real driver, minus the mounts.
 */
import { createHash } from "node:crypto";
import { CsiError } from "../../grpc/errors.ts";
import type { Volume, VolumeCapability } from "../../proto/types.ts";
import { capacityFits } from "../common/capacity.ts";
import { maxCsiStringBytes } from "../common/constants.ts";
import { type AccessType, isSingleNodeMode } from "../common/volume-capabilities.ts";

export interface MockVolume {
  name: string;
  volume: Volume;
  accessType: AccessType;
  /** Controller publications: node id → readonly. */
  publishedTo: Map<string, { readonly: boolean; singleNode: boolean }>;
}

interface MockPublication {
  volumeId: string;
  readonly: boolean;
}

/** What the mock's volumes look like now, as plain data (timelines and assertions). */
export interface MockVolumesSnapshot {
  volumes: Array<{ volumeId: string; name: string; capacityBytes: number; publishedNodeIds: string[] }>;
  /** Staging path → volume id. */
  staged: Record<string, string>;
  /** Target path → volume id and read-only flag. */
  published: Record<string, MockPublication>;
}

export class MockVolumes {
  /**
   * The controller's volumes and publications. Several instances of the driver (a node plugin per
   * node, one of them also the controller) may share one map, as a real driver's instances share
   * its backend: a volume created by the controller is then known on every node.
   */
  readonly volumes: Map<string, MockVolume>;
  readonly staged = new Map<string, string>();
  readonly published = new Map<string, MockPublication>();

  constructor(sharedVolumes: Map<string, MockVolume> = new Map()) {
    this.volumes = sharedVolumes;
  }

  create(name: string, capacityBytes: number, accessType: AccessType, topology: Volume["accessibleTopology"]): Volume {
    const existing = [...this.volumes.values()].find((volume) => volume.name === name);
    if (existing !== undefined) {
      const range = { requiredBytes: capacityBytes, limitBytes: capacityBytes };
      if (!capacityFits(existing.volume.capacityBytes, range) || existing.accessType !== accessType) {
        throw new CsiError(
          "AlreadyExists",
          `CreateVolume: volume ${name} already exists with ${existing.volume.capacityBytes} bytes (${existing.accessType})`,
        );
      }
      return existing.volume;
    }
    const volumeId = mockVolumeIdFor(name);
    const volume: Volume = {
      capacityBytes,
      volumeId,
      volumeContext: {},
      contentSource: null,
      accessibleTopology: topology,
    };
    this.volumes.set(volumeId, { name, volume, accessType, publishedTo: new Map() });
    return volume;
  }

  delete(volumeId: string): void {
    const stored = this.volumes.get(volumeId);
    if (stored === undefined) return;
    const users = [
      ...[...stored.publishedTo.keys()].map((node) => `published to node ${node}`),
      ...[...this.staged].filter(([, id]) => id === volumeId).map(([path]) => `staged at ${path}`),
      ...[...this.published].filter(([, p]) => p.volumeId === volumeId).map(([path]) => `published at ${path}`),
    ];
    if (users.length > 0) {
      throw new CsiError("FailedPrecondition", `DeleteVolume: volume ${volumeId} is still in use: ${users.join(", ")}`);
    }
    this.volumes.delete(volumeId);
  }

  require(volumeId: string, rpc: string): MockVolume {
    const stored = this.volumes.get(volumeId);
    if (stored === undefined) throw new CsiError("NotFound", `${rpc}: volume ${volumeId} does not exist`);
    return stored;
  }

  controllerPublish(volumeId: string, nodeId: string, capability: VolumeCapability, readonly: boolean): void {
    const rpc = "ControllerPublishVolume";
    const stored = this.require(volumeId, rpc);
    const same = stored.publishedTo.get(nodeId);
    if (same !== undefined) {
      if (same.readonly !== readonly) {
        throw new CsiError(
          "AlreadyExists",
          `${rpc}: volume ${volumeId} is published to ${nodeId} with readonly=${same.readonly}`,
        );
      }
      return;
    }
    const singleNode = isSingleNodeMode(capability);
    for (const [otherNode, other] of stored.publishedTo) {
      if (other.singleNode || singleNode) {
        throw new CsiError(
          "FailedPrecondition",
          `${rpc}: volume ${volumeId} is already published to node ${otherNode}`,
        );
      }
    }
    stored.publishedTo.set(nodeId, { readonly, singleNode });
  }

  controllerUnpublish(volumeId: string, nodeId: string): void {
    const stored = this.volumes.get(volumeId);
    if (stored === undefined) return;
    if (nodeId === "") stored.publishedTo.clear();
    else stored.publishedTo.delete(nodeId);
  }

  stage(volumeId: string, stagingPath: string): void {
    const current = this.staged.get(stagingPath);
    if (current !== undefined && current !== volumeId) {
      throw new CsiError("AlreadyExists", `NodeStageVolume: ${stagingPath} already holds volume ${current}`);
    }
    this.staged.set(stagingPath, volumeId);
  }

  publish(volumeId: string, targetPath: string, readonly: boolean): void {
    const current = this.published.get(targetPath);
    if (current !== undefined && (current.volumeId !== volumeId || current.readonly !== readonly)) {
      throw new CsiError(
        "AlreadyExists",
        `NodePublishVolume: ${targetPath} already holds volume ${current.volumeId} (readonly=${current.readonly})`,
      );
    }
    this.published.set(targetPath, { volumeId, readonly });
  }

  snapshot(): MockVolumesSnapshot {
    return {
      volumes: [...this.volumes.values()].map((stored) => ({
        volumeId: stored.volume.volumeId,
        name: stored.name,
        capacityBytes: stored.volume.capacityBytes,
        publishedNodeIds: [...stored.publishedTo.keys()],
      })),
      staged: Object.fromEntries(this.staged),
      published: Object.fromEntries([...this.published].map(([path, publication]) => [path, { ...publication }])),
    };
  }
}

/**
 * `mock-<name>` (what tests and fault hooks name), or, when that would pass CSI's 128-byte limit
 * on ids, `mock-<sha256 of name>`: every id the mock hands out is one its own calls accept.
 */
function mockVolumeIdFor(name: string): string {
  const readable = `mock-${name}`;
  if (Buffer.byteLength(readable) <= maxCsiStringBytes) return readable;
  return `mock-${createHash("sha256").update(name).digest("hex")}`;
}
