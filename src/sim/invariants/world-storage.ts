/**
 * Reading the simulated world as the invariants need it: which storage a node's block device or
 * mount lives on, and how to name a mount in a report. Only running nodes have a kernel to read; a
 * powered-off node has no mounts and no devices (its attachments live on in the disk provider).
 */
import type { BlockDevice } from "../../host/sim/devices.ts";
import type { MountEntry } from "../../host/sim/mount-table.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import type { SimWorld } from "../../host/sim/sim-world.ts";
import type { Superblock } from "../../host/sim/superblock.ts";
import { diskDevicePath } from "../../host/sim/world/disk-provider.ts";
import { diskIdentity, nfsIdentity, rbdIdentity, type StorageIdentity } from "./storage-identity.ts";

const diskLinkPrefix = diskDevicePath("");
const nfsFsTypes = new Set(["nfs", "nfs4"]);

/** The cloud disk or RBD image behind a device; undefined for loop devices. */
export function identityOfDevice(device: BlockDevice): StorageIdentity | undefined {
  if (device.kind === "rbd" && device.rbd !== undefined) return rbdIdentity(device.rbd.pool, device.rbd.image);
  if (device.kind !== "disk") return undefined;
  const link = device.links.find((candidate) => candidate.startsWith(diskLinkPrefix));
  return link === undefined ? undefined : diskIdentity(link.slice(diskLinkPrefix.length));
}

/** Identities by superblock: checks ask for every mount after every step, and a superblock's storage never changes. */
const identityBySuperblock = new WeakMap<Superblock, StorageIdentity | null>();

/** The storage a mount shows: its device's disk or image, or the NFS export it was mounted from. */
export function identityOfMount(entry: MountEntry): StorageIdentity | undefined {
  const superblock = entry.superblock;
  const known = identityBySuperblock.get(superblock);
  if (known !== undefined) return known ?? undefined;
  const server = nfsServerOf(entry);
  const identity =
    superblock.device !== undefined
      ? identityOfDevice(superblock.device)
      : server === undefined
        ? undefined
        : nfsIdentity(server, superblock.source.slice(server.length + 1));
  identityBySuperblock.set(superblock, identity ?? null);
  return identity;
}

/** The NFS server address of an NFS mount (`10.0.0.2` of `10.0.0.2:/exports/a`). */
export function nfsServerOf(entry: MountEntry): string | undefined {
  if (!nfsFsTypes.has(entry.superblock.fsType)) return undefined;
  const separator = entry.superblock.source.indexOf(":/");
  return separator > 0 ? entry.superblock.source.slice(0, separator) : undefined;
}

/** Whether a mount lives on a device that comes from the storage world (a cloud disk or an RBD image). */
export function isAttachedStorageMount(entry: MountEntry): boolean {
  const kind = entry.superblock.device?.kind;
  return kind === "disk" || kind === "rbd";
}

/** `node/node-a:/var/lib/kubelet/…`: a mount as reports name it. */
export function mountObjectName(nodeName: string, mountPoint: string): string {
  return `${nodeNameKey(nodeName)}:${mountPoint}`;
}

/** `node/node-a`: the machine (not the Node object), as reports and histories name it. */
export function nodeNameKey(nodeName: string): string {
  return `node/${nodeName}`;
}

interface RunningNode {
  readonly name: string;
  readonly host: SimHost;
}

/** The world's nodes that are powered on, in the order they were added. */
export function runningNodes(world: SimWorld): RunningNode[] {
  const running: RunningNode[] = [];
  for (const name of world.nodeNames()) {
    const host = world.node(name);
    if (host.poweredOn) running.push({ name, host });
  }
  return running;
}
