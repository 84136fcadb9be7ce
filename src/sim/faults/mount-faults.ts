/**
 * Faults inside a node's mount world: a mount helper missing, a FUSE daemon killed, and a mount
 * something keeps busy.
 */
import { posix } from "node:path";
import type { Cluster } from "../../cmd/cluster.ts";
import { defaultNamespace } from "../../cmd/constants.ts";
import type { ProcessInfo } from "../../host/host.ts";
import { isFuseProgram } from "../../host/sim/commands/fuse.ts";
import { simCommands } from "../../host/sim/sim-commands.ts";
import type { MountHold, SimHost } from "../../host/sim/sim-host.ts";
import { defaultKubeletRootDir } from "../../volume/paths.ts";
import { podVolumeMount } from "../conditions/mount-health.ts";
import type { FaultDefinition, FaultParam, FaultParams } from "./fault.ts";
import { FaultArgs } from "./fault-args.ts";
import { kubeletHost, runningKubeletHost, runningKubeletNodes } from "./fault-targets.ts";
import { operationBackoffCap } from "./reaction-timings.ts";

const nodeParam: FaultParam = {
  name: "node",
  type: "string",
  required: true,
  description: "The node, by the name of its Node object (it must run a kubelet).",
};

/** Helpers whose absence random exploration tries: NFS (seed 002) and FUSE mounts. */
const exploredHelpers = ["mount.nfs", "mount.fuse"];

/** Where pods' volumes are mounted; busy mounts are looked for below it. */
const podsDir = `${defaultKubeletRootDir}/pods/`;

export const mountHelperMissing: FaultDefinition = {
  name: "mount-helper-missing",
  models:
    "A node lacks the mount helper of a filesystem (`mount.nfs` without nfs-utils / nfs-common, seed 002): " +
    "mount(8) cannot hand the mount to it.",
  kubernetesReaction:
    "mount(8) exits with status 32 and the kubelet reports Warning FailedMount " +
    '`MountVolume.SetUp failed for volume "<name>" : mount failed: exit status 32` followed by ' +
    "`Mounting command: mount`, `Mounting arguments: -t nfs <server>:<path> /var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~nfs/<name>` " +
    "and util-linux's `Output: mount: wrong fs type, bad option, bad superblock on <server>:<path>, missing codepage " +
    "or helper program, or other error`. It retries with backoff (500 ms doubling to " +
    `${operationBackoffCap}) and after 2m3s adds \`Unable to attach or mount volumes: unmounted volumes=[<name>] …\`; ` +
    "the pod stays ContainerCreating.",
  healing:
    "The helper is installed: the next retry mounts and the pod starts (a retry may wait out its backoff; deleting the pod starts over at once).",
  params: [
    nodeParam,
    {
      name: "helper",
      type: "string",
      required: false,
      default: "mount.nfs",
      description: "The binary that goes missing: `mount.nfs`, `mount.nfs4`, `mount.fuse`, `rbd`, `mkfs.xfs`, ….",
    },
  ],
  async inject(cluster, params) {
    const { host, helper } = helperTarget(cluster, params);
    host.removeCommand(helper);
  },
  async heal(cluster, params) {
    const { host, helper } = helperTarget(cluster, params);
    host.installCommand(helper);
  },
  targets: async (cluster) =>
    runningKubeletNodes(cluster).flatMap((node) => exploredHelpers.map((helper) => ({ node, helper }))),
};

function helperTarget(cluster: Cluster, params: FaultParams): { host: SimHost; helper: string } {
  const args = new FaultArgs(mountHelperMissing, params);
  const helper = args.string("helper");
  if (!simCommands.has(helper)) {
    throw args.error(`parameter "helper": the node model has no command named "${helper}"`);
  }
  return { host: kubeletHost(cluster, args, args.string("node")), helper };
}

export const fuseDaemonKilled: FaultDefinition = {
  name: "fuse-daemon-killed",
  models:
    "The FUSE daemon serving a volume dies (OOM kill, a crash, or its CSI plugin container going away, seed 003); " +
    "the kernel keeps its `fuse.*` mount, which nobody serves any more.",
  kubernetesReaction:
    "Every access to the mount fails with ENOTCONN: `Transport endpoint is not connected`. The kubelet does not " +
    "notice (its actual state still says mounted; there is no periodic health check): running containers get I/O " +
    "errors, and a new pod of the same volume on the node is published from the dead staging mount. Deleting the " +
    "pod recovers when the driver unmounts the corrupted path (mount-utils skips the mount-point check for " +
    "corrupted mounts). kvol's `repairCorruptedCsiMounts` node option, on by default, republishes such mounts at " +
    "the next pod sync instead.",
  params: [
    nodeParam,
    {
      name: "daemon",
      type: "string",
      required: false,
      description: "The daemon's name (`kvolfs:<volume id>`); every FUSE daemon on the node when left out.",
    },
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(fuseDaemonKilled, params);
    const node = args.string("node");
    const name = args.optionalString("daemon");
    const host = runningKubeletHost(cluster, args, node);
    const daemons = (await fuseDaemons(cluster, node)).filter((daemon) => name === undefined || daemon.name === name);
    if (daemons.length === 0) {
      throw args.error(`no FUSE daemon${name === undefined ? "" : ` named "${name}"`} runs on node "${node}"`);
    }
    for (const daemon of daemons) await host.killProcess(daemon.pid);
  },
  async targets(cluster) {
    const targets: FaultParams[] = [];
    for (const node of runningKubeletNodes(cluster)) {
      for (const daemon of await fuseDaemons(cluster, node)) targets.push({ node, daemon: daemon.name });
    }
    return targets;
  },
};

async function fuseDaemons(cluster: Cluster, node: string): Promise<ProcessInfo[]> {
  const daemons = await cluster.world.node(node).daemons();
  return daemons.filter((daemon) => isFuseProgram(posix.basename(daemon.command)));
}

/** The holders `mount-busy` put in place, per cluster, by what the parameters name, so `heal` can release them. */
const heldMounts = new WeakMap<Cluster, Map<string, MountHold>>();

const mountBusyParams: readonly FaultParam[] = [
  { ...nodeParam, required: false, description: `${nodeParam.description} With \`pod\`, the pod's node by default.` },
  {
    name: "path",
    type: "string",
    required: false,
    description:
      "A path on the mount to hold (a pod's volume directory under /var/lib/kubelet/pods); or give `pod` and `volume`.",
  },
  {
    name: "pod",
    type: "string",
    required: false,
    description: "The pod whose volume mount to hold, as `name` or `namespace/name`; with `volume`, instead of `path`.",
  },
  {
    name: "volume",
    type: "string",
    required: false,
    description: "The volume's name in the pod's `spec.volumes`; with `pod`.",
  },
  {
    name: "command",
    type: "string",
    required: false,
    description: "The command line of the holding process, as `fuser -m` would name it (default `sh`).",
  },
];

export const mountBusy: FaultDefinition = {
  name: "mount-busy",
  models:
    "Something on the node keeps a volume's mount busy: a process with an open file or its working directory " +
    "there, or the mount leaked into another mount namespace (k/k #104945).",
  kubernetesReaction:
    "umount fails with `target is busy`, so the kubelet's teardown of a deleted pod fails " +
    '(`UnmountVolume.TearDown failed for volume "<name>" …`, no event) and is retried with backoff (500 ms doubling ' +
    `to ${operationBackoffCap}). The pod stays Terminating, a StatefulSet does not recreate it, and the volume is ` +
    "neither unstaged nor detached.",
  healing: "The holder lets go: the next teardown retry unmounts, the pod object goes away, and detach follows.",
  params: mountBusyParams,
  async inject(cluster, params) {
    const args = new FaultArgs(mountBusy, params);
    const key = holdKeyOf(args);
    const { node, path } = await busyTarget(cluster, args);
    const host = runningKubeletHost(cluster, args, node);
    const holds = heldMounts.get(cluster) ?? new Map<string, MountHold>();
    heldMounts.set(cluster, holds);
    if (holds.has(key)) throw args.error(`the mount at "${path}" on node "${node}" is already held`);
    holds.set(key, await host.holdMountBusy(path, args.optionalString("command")));
  },
  async heal(cluster, params) {
    const key = holdKeyOf(new FaultArgs(mountBusy, params));
    heldMounts.get(cluster)?.get(key)?.release();
    heldMounts.get(cluster)?.delete(key);
  },
  async targets(cluster) {
    const targets: FaultParams[] = [];
    for (const node of runningKubeletNodes(cluster)) {
      for (const mount of await cluster.world.node(node).mountInfo()) {
        if (mount.mountPoint.startsWith(podsDir)) targets.push({ node, path: mount.mountPoint });
      }
    }
    return targets;
  },
};

/** The node and mount path the parameters name: `node` and `path`, or `pod` and `volume`. */
async function busyTarget(cluster: Cluster, args: FaultArgs): Promise<{ node: string; path: string }> {
  const path = args.optionalString("path");
  const podText = args.optionalString("pod");
  const volume = args.optionalString("volume");
  if ((path === undefined) === (podText === undefined)) {
    throw args.error('give either "path", or "pod" and "volume"');
  }
  if (path !== undefined) {
    const node = args.optionalString("node");
    if (node === undefined) throw args.error('parameter "node" is required with "path"');
    return { node, path };
  }
  if (volume === undefined) throw args.error('parameter "volume" is required with "pod"');
  const { namespace, name } = podKey(podText ?? "");
  const pod = await cluster.tryGet("Pod", namespace, name);
  if (pod === undefined) throw args.error(`parameter "pod": no pod ${namespace}/${name}`);
  const node = args.optionalString("node") ?? pod.spec?.nodeName;
  if (node === undefined) throw args.error(`parameter "pod": pod ${namespace}/${name} is not scheduled to a node yet`);
  kubeletHost(cluster, args, node);
  const mount = await podVolumeMount(cluster, pod, volume, node);
  if (mount === undefined) {
    throw args.error(`volume "${volume}" of pod ${namespace}/${name} is not mounted on node "${node}"`);
  }
  return { node, path: mount.mountPoint };
}

function podKey(text: string): { namespace: string; name: string } {
  const [first = "", second] = text.split("/", 2);
  return second === undefined ? { namespace: defaultNamespace, name: first } : { namespace: first, name: second };
}

/** One hold per thing named: a pod's volume, or a node's path. */
function holdKeyOf(args: FaultArgs): string {
  const pod = args.optionalString("pod");
  if (pod !== undefined) {
    const { namespace, name } = podKey(pod);
    return holdKey(`pod ${namespace}/${name}`, args.optionalString("volume") ?? "");
  }
  return holdKey(args.optionalString("node") ?? "", args.optionalString("path") ?? "");
}

function holdKey(node: string, path: string): string {
  return `${node}\u0000${path}`;
}
