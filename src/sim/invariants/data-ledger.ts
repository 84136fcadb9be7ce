/**
 * The data ledger: bytes a scenario wrote into a volume, remembered against the storage that holds
 * them, so `bytes-never-lost` can check after every step that they are still there — on the backend
 * itself (the disk's or image's filesystem, the NFS export, the node directory a CSI driver keeps),
 * which is what every later mount of the volume, on any node, will show.
 *
 * `writeToVolume` writes through the pod's mount of the volume on its node's SimHost, as the pod's
 * container would, so a write fails as the container's would (EIO under a detached disk, EHOSTDOWN
 * on a node that is off). Only storage that outlives the pod is followed: claims (for as long as the
 * PV stays bound to the claim written through, or is retained) and inline network volumes.
 */
import { posix } from "node:path";
import type { Volume } from "kubernetes-types/core/v1.js";
import type { Pod } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import type { BlockStorage, StorageContent } from "../../host/sim/block-storage.ts";
import type { SimFilesystem } from "../../host/sim/filesystem.ts";
import type { MountEntry } from "../../host/sim/mount-table.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { podVolumesDir } from "../../volume/paths.ts";
import { apiObjectName, type ClusterView } from "./cluster-view.ts";
import { kubeletRootDir } from "./constants.ts";
import { identityOfMount } from "./world-storage.ts";

interface VolumeWrite {
  readonly namespace: string;
  /** The pod's name. */
  readonly pod: string;
  /** The volume's name in the pod spec (`spec.volumes[].name`). */
  readonly volume: string;
  /** Path of the file inside the volume (`db/rows`); parent directories are created. */
  readonly path: string;
  readonly content: string | Uint8Array;
}

/** Where the bytes live: a block device's storage (its current filesystem) or a filesystem itself. */
type Backend =
  | { readonly kind: "block"; readonly storage: BlockStorage; readonly content: StorageContent }
  | { readonly kind: "filesystem"; readonly fs: SimFilesystem };

/** Who keeps the bytes owed: the claim written through (while its PV is bound to it) or nobody (inline). */
type Owner =
  | { readonly kind: "claim"; readonly pvName: string; readonly claimUid: string }
  | { readonly kind: "inline" };

export interface LedgerEntry {
  /** `PersistentVolume/pv-1`, or `Pod/ns/name volume data` for an inline volume. */
  readonly volume: string;
  /** `disk/disk-1`, `nfs/10.0.0.2:/exports`, or `node/node-a:/dev/sda1` for a node's own filesystem. */
  readonly storage: string;
  readonly pod: string;
  readonly path: string;
  /** The path inside the backend's filesystem. */
  readonly fsPath: string;
  readonly bytes: Uint8Array;
  readonly writtenAtMs: number;
  readonly nodeName: string;
  readonly backend: Backend;
  readonly owner: Owner;
}

/** Volume kinds whose contents die with the pod (or are rewritten by the kubelet): not followed. */
const podLifetimeSources = ["emptyDir", "configMap", "secret", "downwardAPI", "projected", "gitRepo"] as const;

class DataLedger {
  /** Backend object → path in its filesystem → the last bytes written there. */
  private readonly entries = new Map<BlockStorage | SimFilesystem, Map<string, LedgerEntry>>();

  record(entry: LedgerEntry): void {
    const key = entry.backend.kind === "block" ? entry.backend.storage : entry.backend.fs;
    const byPath = this.entries.get(key) ?? new Map<string, LedgerEntry>();
    byPath.set(entry.fsPath, entry);
    this.entries.set(key, byPath);
  }

  /** Every entry still owed, after dropping those whose owner let go of the data. */
  owed(view: ClusterView): LedgerEntry[] {
    const owed: LedgerEntry[] = [];
    for (const [key, byPath] of this.entries) {
      for (const [fsPath, entry] of byPath) {
        if (isStillOwed(view, entry)) owed.push(entry);
        else byPath.delete(fsPath);
      }
      if (byPath.size === 0) this.entries.delete(key);
    }
    return owed;
  }

  get size(): number {
    let count = 0;
    for (const byPath of this.entries.values()) count += byPath.size;
    return count;
  }
}

const ledgers = new WeakMap<Cluster, DataLedger>();

export function ledgerOf(cluster: Cluster): DataLedger {
  let ledger = ledgers.get(cluster);
  if (ledger === undefined) {
    ledger = new DataLedger();
    ledgers.set(cluster, ledger);
  }
  return ledger;
}

/**
 * A claim's bytes are owed while its PV exists, is still bound to that claim (same uid), and is
 * not being reclaimed: a Released PV with the Delete or Recycle policy is about to lose them by design.
 */
function isStillOwed(view: ClusterView, entry: LedgerEntry): boolean {
  const owner = entry.owner;
  if (owner.kind === "inline") return true;
  const pv = view.persistentVolume(owner.pvName);
  if (pv === undefined || pv.spec?.claimRef?.uid !== owner.claimUid) return false;
  const phase = pv.status?.phase;
  const reclaiming =
    (phase === "Released" || phase === "Failed") && pv.spec?.persistentVolumeReclaimPolicy !== "Retain";
  return !reclaiming;
}

/** Writes `content` into the pod's volume through its mount, and records it in the cluster's ledger. */
export async function writeToVolume(cluster: Cluster, write: VolumeWrite): Promise<void> {
  const relativePath = checkedRelativePath(write.path);
  const pod = await cluster.get("Pod", write.namespace, write.pod);
  const volume = pod.spec?.volumes?.find((candidate) => candidate.name === write.volume);
  if (volume === undefined) {
    const names = (pod.spec?.volumes ?? []).map((candidate) => candidate.name).join(", ");
    throw new Error(
      `writeToVolume: volume: pod ${write.namespace}/${write.pod} has no volume "${write.volume}" (it has: ${names})`,
    );
  }
  const podLifetime = podLifetimeSources.find((source) => volume[source] !== undefined);
  if (podLifetime !== undefined) {
    throw new Error(
      `writeToVolume: volume: "${write.volume}" of pod ${write.namespace}/${write.pod} is of type ${podLifetime}, whose contents end with the pod; write to a persistent volume`,
    );
  }
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw new Error(`writeToVolume: pod: ${write.namespace}/${write.pod} is not scheduled to a node yet`);
  const owner = await ownerOf(cluster, pod, volume);
  const host = cluster.world.node(nodeName);
  const mount = volumeMountOf(host, pod, owner.kind === "claim" ? owner.pvName : volume.name);
  if (mount === undefined) {
    throw new Error(
      `writeToVolume: volume: "${write.volume}" of pod ${write.namespace}/${write.pod} is not mounted on ${nodeName}; wait until the pod is running`,
    );
  }
  const bytes =
    typeof write.content === "string" ? new TextEncoder().encode(write.content) : new Uint8Array(write.content);
  const filePath = posix.join(mount.mountPoint, relativePath);
  await host.mkdir(posix.dirname(filePath), 0o755, { recursive: true });
  await host.writeFile(filePath, bytes);
  ledgerOf(cluster).record({
    volume:
      owner.kind === "claim"
        ? `PersistentVolume/${owner.pvName}`
        : `${apiObjectName("Pod", pod)} volume ${volume.name}`,
    storage: storageName(nodeName, mount),
    pod: apiObjectName("Pod", pod),
    path: relativePath,
    fsPath: posix.join(mount.rootPath, relativePath),
    bytes,
    writtenAtMs: cluster.clock.now(),
    nodeName,
    backend: backendOf(mount),
    owner,
  });
}

function checkedRelativePath(path: string): string {
  const normalized = posix.normalize(path);
  if (path === "" || posix.isAbsolute(path) || normalized === "." || normalized.startsWith("..")) {
    throw new Error(`writeToVolume: path: must be a relative path inside the volume, got ${JSON.stringify(path)}`);
  }
  return normalized;
}

async function ownerOf(cluster: Cluster, pod: Pod, volume: Volume): Promise<Owner> {
  const namespace = pod.metadata?.namespace ?? "";
  const claimName =
    volume.persistentVolumeClaim?.claimName ?? (volume.ephemeral ? `${pod.metadata?.name}-${volume.name}` : undefined);
  if (claimName === undefined) return { kind: "inline" };
  const claim = await cluster.get("PersistentVolumeClaim", namespace, claimName);
  const pvName = claim.spec?.volumeName;
  if (!pvName || claim.metadata?.uid === undefined) {
    throw new Error(`writeToVolume: volume: claim ${namespace}/${claimName} is not bound to a PersistentVolume yet`);
  }
  return { kind: "claim", pvName, claimUid: claim.metadata.uid };
}

/**
 * The pod's mount of the volume: `pods/<uid>/volumes/<plugin>/<spec name>`, or its `mount`
 * subdirectory for CSI; the topmost when several are stacked.
 */
function volumeMountOf(host: SimHost, pod: Pod, specName: string): MountEntry | undefined {
  const prefix = `${podVolumesDir(kubeletRootDir, pod.metadata?.uid ?? "")}/`;
  let found: MountEntry | undefined;
  for (const entry of host.mountEntries()) {
    if (!entry.mountPoint.startsWith(prefix)) continue;
    const [, name, csiMount] = entry.mountPoint.slice(prefix.length).split("/");
    if (name === specName && (csiMount === undefined || csiMount === "mount")) found = entry;
  }
  return found;
}

function backendOf(mount: MountEntry): Backend {
  const device = mount.superblock.device;
  if (device === undefined) return { kind: "filesystem", fs: mount.superblock.fs };
  return { kind: "block", storage: device.storage, content: device.storage.content };
}

function storageName(nodeName: string, mount: MountEntry): string {
  return identityOfMount(mount)?.key ?? `node/${nodeName}:${mount.superblock.source}`;
}
