/**
 * Invariant `no-leftovers-after-teardown`: once the pods that used a volume on a node are gone (or
 * have finished), nothing of it stays on the node: no mount under the kubelet root (a pod's volume
 * mount, a subPath bind, a per-node global or staging mount), no loop device, no RBD mapping, no
 * FUSE daemon serving a kubelet path.
 *
 * A mount, device or daemon is accounted for when its path names a pod still running on the node
 * (the pod uid in `pods/<uid>/…`, in a global map path, in a loop device's backing file) or a volume
 * such a pod uses (its PV name, disk id, `<pool>-image-<image>`, CSI handle or the handle's staging
 * hash). Before naming a leak the invariant asks whether anything still legitimately uses it, as
 * the kubelet does before UnmountDevice (GetDeviceMountRefs): a global or staging mount is kept while
 * another mount of the same filesystem is (a pod's mount that cannot be torn down because it is
 * busy, a bind outside the kubelet root); a loop device or RBD mapping while a kept mount lives on it;
 * a FUSE daemon while its mount is kept. So a pod Terminating for days on a busy mount keeps its
 * global mount and device without a violation. Teardown takes time, so what is unaccounted for
 * becomes a leftover only after the grace of `constants.ts` (4 min 2.2 s with the default timers),
 * counted while the node can clean up: it is powered on and Ready, the mount is not held busy by a
 * process outside the volume code, and its NFS server answers. A powered-off node's leftovers are not
 * leaks until it is back (and a boot clears them anyway).
 */
import { posix } from "node:path";
import type { Pod } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { fuseArguments, isFuseProgram } from "../../host/sim/commands/fuse.ts";
import type { BlockDevice } from "../../host/sim/devices.ts";
import type { MountEntry } from "../../host/sim/mount-table.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { ClusterView, isNodeReady } from "./cluster-view.ts";
import { kubeletRootDir, leftoverGraceMsFor } from "./constants.ts";
import { perCluster } from "./first-sightings.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { formatVirtualTime } from "./object-history.ts";
import { identityOfDevice, mountObjectName, nfsServerOf, nodeNameKey } from "./world-storage.ts";

const name = "no-leftovers-after-teardown";
const kubeletRootPrefix = `${kubeletRootDir}/`;

/** Something on a node that may outlive its volume. */
interface Candidate {
  /** Unique on the node for this boot. */
  readonly key: string;
  /** `mount /var/lib/kubelet/…`, `loop device /dev/loop0 over …`, `FUSE daemon s3fs (pid 1001) for …`. */
  readonly what: string;
  readonly object: string;
  /** Paths whose components may name what accounts for it. */
  readonly paths: readonly string[];
  /** Tokens (disk ids, image directories) that name it directly. */
  readonly tokens: readonly string[];
  /** The node cannot clean it up now, for a reason outside the volume code. */
  readonly blocked: boolean;
  /** The mount itself, for a mount. */
  readonly mount?: MountEntry;
  /** The device, for a loop device or RBD mapping. */
  readonly device?: BlockDevice;
  /** The mount point a FUSE daemon serves. */
  readonly servedPath?: string;
}

/** Node name → candidate key → when it was first seen unaccounted for. */
const unaccountedSince = perCluster<Cluster, Map<string, Map<string, number>>>(() => new Map());

function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

/** Path components and storage tokens that the live pods on the node account for. */
function accountingTokens(view: ClusterView, nodeName: string): Set<string> {
  const tokens = new Set<string>();
  for (const pod of view.podsOn(nodeName)) {
    if (isTerminal(pod) || pod.metadata?.uid === undefined) continue;
    tokens.add(pod.metadata.uid);
    for (const storage of view.storageOf(pod)) {
      if (storage.pv?.metadata?.name) tokens.add(storage.pv.metadata.name);
      for (const token of storage.identity?.pathTokens ?? []) tokens.add(token);
    }
  }
  return tokens;
}

function isAccounted(candidate: Candidate, tokens: ReadonlySet<string>): boolean {
  if (candidate.tokens.some((token) => tokens.has(token))) return true;
  return candidate.paths.some((path) => path.split("/").some((component) => tokens.has(component)));
}

function mountCandidate(cluster: Cluster, nodeName: string, boot: number, entry: MountEntry): Candidate {
  const server = nfsServerOf(entry);
  const serverDown = server !== undefined && cluster.world.nfsServer(server)?.reachable === false;
  return {
    key: `mount#${boot}#${entry.id}`,
    what: `mount ${entry.mountPoint} (${entry.superblock.fsType} from ${entry.superblock.source})`,
    object: mountObjectName(nodeName, entry.mountPoint),
    paths: [entry.mountPoint],
    tokens: [],
    blocked: entry.busyHolders > 0 || serverDown,
    mount: entry,
  };
}

/**
 * The candidates that stay legitimately: accounted for by a live pod, blocked outside the volume
 * code, or used by something that stays (see the file comment). Grows to a fixpoint: a busy pod
 * mount keeps its global mount, which keeps its device.
 */
function keptCandidates(
  candidates: readonly Candidate[],
  tokens: ReadonlySet<string>,
  mounts: readonly MountEntry[],
): Set<Candidate> {
  const kept = new Set(candidates.filter((candidate) => candidate.blocked || isAccounted(candidate, tokens)));
  const candidateOfMount = new Map<MountEntry, Candidate>();
  for (const candidate of candidates)
    if (candidate.mount !== undefined) candidateOfMount.set(candidate.mount, candidate);
  /** A mount outside the kubelet root is no candidate: whatever made it keeps it, and what it uses. */
  const keptMounts = (): MountEntry[] =>
    mounts.filter((entry) => {
      const candidate = candidateOfMount.get(entry);
      return candidate === undefined || kept.has(candidate);
    });
  for (let round = 0; round <= candidates.length; round++) {
    const users = keptMounts();
    const grown = candidates.filter((candidate) => !kept.has(candidate) && isUsedBy(candidate, users));
    if (grown.length === 0) break;
    for (const candidate of grown) kept.add(candidate);
  }
  return kept;
}

/** Whether one of `users` (mounts that stay) needs the candidate. */
function isUsedBy(candidate: Candidate, users: readonly MountEntry[]): boolean {
  const { mount, device, servedPath } = candidate;
  return users.some((user) => {
    // Another mount of the same subtree (GetMountRefs: same device, same root), as a pod's bind of a global mount.
    if (mount !== undefined)
      return user !== mount && user.superblock === mount.superblock && user.rootIno === mount.rootIno;
    if (device !== undefined) return user.superblock.device === device;
    return servedPath !== undefined && user.mountPoint === servedPath;
  });
}

async function candidatesOn(cluster: Cluster, nodeName: string, host: SimHost): Promise<Candidate[]> {
  const boot = host.bootCount;
  const candidates: Candidate[] = [];
  for (const entry of host.mountEntries()) {
    if (entry.mountPoint.startsWith(kubeletRootPrefix)) candidates.push(mountCandidate(cluster, nodeName, boot, entry));
  }
  for (const device of host.blockDevices()) {
    if (device.kind === "loop") {
      const backing = device.loopBacking?.path ?? "";
      candidates.push({
        key: `loop#${boot}#${device.name}`,
        what: `loop device ${device.path} over ${backing}`,
        object: `${nodeNameKey(nodeName)}:${device.path}`,
        paths: [backing],
        tokens: [],
        blocked: false,
        device,
      });
    } else if (device.kind === "rbd") {
      candidates.push({
        key: `rbd#${boot}#${device.name}`,
        what: `RBD mapping ${device.path} of ${device.rbd?.pool}/${device.rbd?.image}`,
        object: `${nodeNameKey(nodeName)}:${device.path}`,
        paths: [],
        tokens: identityOfDevice(device)?.pathTokens ?? [],
        blocked: false,
        device,
      });
    }
  }
  for (const daemon of await host.daemons()) {
    const target = isFuseProgram(posix.basename(daemon.command)) ? fuseArguments(daemon.args)?.target : undefined;
    if (target === undefined || !target.startsWith(kubeletRootPrefix)) continue;
    candidates.push({
      key: `daemon#${boot}#${daemon.pid}`,
      what: `FUSE daemon ${daemon.name} (pid ${daemon.pid}) serving ${target}`,
      object: `${nodeNameKey(nodeName)}:pid ${daemon.pid}`,
      paths: [target],
      tokens: [],
      blocked: false,
      servedPath: target,
    });
  }
  return candidates;
}

export const noLeftoversAfterTeardown: Invariant = {
  name,
  description:
    "After the pods using a volume are gone from a node, no mount under the kubelet root, loop device, RBD mapping or FUSE daemon of it stays there longer than the teardown grace (4 min 2.2 s by default).",
  async check(cluster) {
    const view = ClusterView.of(cluster);
    const graceMs = leftoverGraceMsFor(cluster.timers);
    const nowMs = cluster.clock.now();
    const sinceByNode = unaccountedSince(cluster);
    const violations: Violation[] = [];
    for (const nodeName of cluster.world.nodeNames()) {
      const host = cluster.world.node(nodeName);
      const previous = sinceByNode.get(nodeName) ?? new Map<string, number>();
      const current = new Map<string, number>();
      sinceByNode.set(nodeName, current);
      if (!host.poweredOn || !isNodeReady(view.node(nodeName))) continue;
      const candidates = await candidatesOn(cluster, nodeName, host);
      if (candidates.length === 0) continue;
      const kept = keptCandidates(candidates, accountingTokens(view, nodeName), host.mountEntries());
      for (const candidate of candidates) {
        if (kept.has(candidate)) continue;
        const sinceMs = previous.get(candidate.key) ?? nowMs;
        current.set(candidate.key, sinceMs);
        if (nowMs - sinceMs < graceMs) continue;
        violations.push({
          invariant: name,
          message: `${candidate.what} on ${nodeName} is left behind: no running pod or volume on the node has accounted for it since ${formatVirtualTime(sinceMs)}, longer than the ${graceMs} ms teardown grace`,
          objects: [candidate.object, nodeNameKey(nodeName), `Node/${nodeName}`],
        });
      }
    }
    return violations;
  },
};
