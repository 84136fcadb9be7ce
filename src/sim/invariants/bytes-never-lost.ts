/**
 * Invariant `bytes-never-lost`: bytes written to a volume (through `writeToVolume`) are still on
 * its storage for as long as they are owed (see `data-ledger.ts`): the disk or image still exists
 * and has not been reformatted, the NFS export is still exported, and the file holds exactly what
 * was last written to it. Read on the backend directly, so the check neither depends on a mount
 * existing nor hangs on an unreachable server.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import type { SimFilesystem } from "../../host/sim/filesystem.ts";
import { ClusterView } from "./cluster-view.ts";
import { type LedgerEntry, ledgerOf } from "./data-ledger.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { formatVirtualTime } from "./object-history.ts";

const name = "bytes-never-lost";

/** The filesystem the entry's bytes live in now, or why there is none. */
function filesystemOf(cluster: Cluster, entry: LedgerEntry): SimFilesystem | string {
  const problem = storageGone(cluster, entry);
  if (problem !== undefined) return problem;
  const backend = entry.backend;
  if (backend.kind === "filesystem") return backend.fs;
  if (backend.storage.content !== backend.content || backend.storage.content.kind !== "filesystem") {
    return `${entry.storage} was reformatted or wiped after the write`;
  }
  return backend.storage.content.fs;
}

/** Whether the disk, image or export the bytes were written to still exists as the same storage. */
function storageGone(cluster: Cluster, entry: LedgerEntry): string | undefined {
  const [kind, ...rest] = entry.storage.split("/");
  const id = rest.join("/");
  const backend = entry.backend;
  if (kind === "disk" && backend.kind === "block") {
    const disks = cluster.world.disks;
    return disks.has(id) && disks.disk(id).storage === backend.storage ? undefined : `${entry.storage} was deleted`;
  }
  if (kind === "rbd" && backend.kind === "block") {
    const [pool = "", image = ""] = rest;
    return cluster.world.rbd.image(pool, image)?.storage === backend.storage
      ? undefined
      : `${entry.storage} was deleted`;
  }
  if (kind === "nfs" && backend.kind === "filesystem") {
    const separator = id.indexOf(":");
    const server = cluster.world.nfsServer(id.slice(0, separator));
    const exported = server?.resolve(id.slice(separator + 1))?.nfsExport.fs;
    return exported === backend.fs ? undefined : `${entry.storage} is no longer exported`;
  }
  return undefined;
}

/** What is wrong with the file, or undefined when it holds exactly the bytes written. */
function fileProblem(fs: SimFilesystem, entry: LedgerEntry): string | undefined {
  let ino: number | undefined = fs.rootIno;
  for (const component of entry.fsPath.split("/").filter(Boolean)) {
    const dir = fs.inode(ino);
    ino = dir.type === "directory" ? fs.lookup(ino, component) : undefined;
    if (ino === undefined) return `${entry.path} is gone`;
  }
  const inode = fs.inode(ino);
  if (inode.type !== "file") return `${entry.path} is no longer a file (it is a ${inode.type})`;
  const data = fs.readData(ino);
  if (!sameBytes(data, entry.bytes)) {
    return `${entry.path} holds ${data.length} bytes that differ from the ${entry.bytes.length} written`;
  }
  return undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

export const bytesNeverLost: Invariant = {
  name,
  description:
    "Bytes written to a volume stay on its storage (disk, RBD image, NFS export, driver directory) for as long as its claim is bound or its PV retained, wherever the volume is mounted next.",
  check(cluster) {
    const violations: Violation[] = [];
    for (const entry of ledgerOf(cluster).owed(ClusterView.of(cluster))) {
      const fs = filesystemOf(cluster, entry);
      const problem = typeof fs === "string" ? fs : fileProblem(fs, entry);
      if (problem === undefined) continue;
      violations.push({
        invariant: name,
        message: `bytes written to ${entry.volume} at ${formatVirtualTime(entry.writtenAtMs)} by ${entry.pod} on ${entry.nodeName} are lost: ${problem}`,
        objects: [entry.volume.split(" ")[0] ?? entry.volume, entry.storage, entry.pod],
      });
    }
    return violations;
  },
};
