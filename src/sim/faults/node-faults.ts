/**
 * Faults of whole nodes and their kubelet: power loss, a crash and reboot, a network partition from
 * the API server, and a kubelet restart.
 */
import type { Cluster } from "../../cmd/cluster.ts";
import { letAftermathRun } from "./aftermath.ts";
import type { FaultDefinition, FaultParam, FaultParams } from "./fault.ts";
import { FaultArgs } from "./fault-args.ts";
import { kubeletHost, runningKubeletHost, runningKubeletNodes } from "./fault-targets.ts";
import { forceDetachWait, nodeMonitorGracePeriod, podGcPeriod, unreachableToleration } from "./reaction-timings.ts";

const nodeParam: FaultParam = {
  name: "node",
  type: "string",
  required: true,
  description: "The node, by the name of its Node object (it must run a kubelet).",
};

/** What every node that stops reporting goes through in the node lifecycle controller. */
const nodeGoesUnknown =
  `After node-monitor-grace-period (${nodeMonitorGracePeriod}) the node lifecycle controller sets the ` +
  "node's Ready condition to Unknown (reason NodeStatusUnknown, `Kubelet stopped posting node status.`) and " +
  "taints it `node.kubernetes.io/unreachable` NoSchedule and NoExecute; pods tolerate the NoExecute taint for " +
  `${unreachableToleration}, then taint eviction deletes them and they stay Terminating, because no kubelet confirms it.`;

export const nodePowerOff: FaultDefinition = {
  name: "node-power-off",
  models:
    "The machine loses power (host failure, pulled cable, a VM stopped from the cloud console): the kubelet gets no " +
    "chance to clean up, every process and kernel mount is gone, and attached cloud disks stay attached.",
  kubernetesReaction:
    `${nodeGoesUnknown} The volumes of those pods stay attached to the dead node: a replacement pod on another node ` +
    'gets Warning FailedAttachVolume `Multi-Attach error for volume "<pv>" Volume is already used by pod(s) <old-pod>` ' +
    "and waits in ContainerCreating (a StatefulSet creates no replacement at all). It moves only when the old pod " +
    `object goes: force-deleted, the disk is force-detached ${forceDetachWait} later from the not-Ready node; with ` +
    `the \`node.kubernetes.io/out-of-service\` taint, pod GC (every ${podGcPeriod}) deletes the pod and the detach is immediate.`,
  healing:
    "Power returns: the machine boots, its kubelet starts, reconstructs the pod volumes it finds on disk and tears " +
    "down those of pods that no longer exist; the node is Ready again at its first status update.",
  params: [nodeParam],
  async inject(cluster, params) {
    const args = new FaultArgs(nodePowerOff, params);
    const node = args.string("node");
    runningKubeletHost(cluster, args, node);
    // The machine is off at once; the kubelet process dies with it.
    letAftermathRun(cluster, `powering off ${node}`, cluster.powerOff(node));
  },
  async heal(cluster, params) {
    const args = new FaultArgs(nodePowerOff, params);
    const node = args.string("node");
    // The machine is on at once; its kubelet then starts and registers on the cluster's time.
    if (!kubeletHost(cluster, args, node).poweredOn) letAftermathRun(cluster, `booting ${node}`, cluster.powerOn(node));
  },
  targets: async (cluster) => nodeTargets(cluster),
};

export const nodeCrash: FaultDefinition = {
  name: "node-crash",
  models:
    "The node crashes (kernel panic, watchdog reset) and reboots: processes, kernel mounts, loop devices and RBD " +
    "mappings are gone; the root disk with /var/lib/kubelet and attached cloud disks survive.",
  kubernetesReaction:
    "The new kubelet reconstructs each volume directory under /var/lib/kubelet/pods as Uncertain, keeps " +
    "node.status.volumesInUse until it has, so nothing is detached meanwhile, and mounts the volumes again for pods " +
    "still bound to the node (MountDevice and SetUp, which must be idempotent) while it tears down those of deleted " +
    `pods. A downtime longer than ${nodeMonitorGracePeriod} also makes the node Ready=Unknown meanwhile.`,
  params: [
    nodeParam,
    {
      name: "downtime",
      type: "duration",
      required: false,
      default: 0,
      description: "How long the machine stays down before it boots again.",
    },
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(nodeCrash, params);
    const node = args.string("node");
    const downtimeMs = args.durationMs("downtime");
    runningKubeletHost(cluster, args, node);
    letAftermathRun(cluster, `crashing and rebooting ${node}`, crashAndReboot(cluster, node, downtimeMs));
  },
  targets: async (cluster) => nodeTargets(cluster).flatMap((target) => [target, { ...target, downtime: "1m" }]),
};

export const nodePartition: FaultDefinition = {
  name: "node-partition",
  models:
    "The node loses its network path to the API server (a firewall change, a broken route) while it keeps running: " +
    "the kubelet's requests fail with `dial tcp …: connect: no route to host` and its watches end. (In kvol the " +
    "node's CSI plugins keep their own API access.)",
  kubernetesReaction:
    `The kubelet cannot renew its Lease or post status. ${nodeGoesUnknown} Unlike a power-off, the containers keep ` +
    "running and every volume stays mounted on the node: if an admin force-deletes the pods, the replacement's " +
    `volume is force-detached from the still-running node after ${forceDetachWait} — the data-corruption risk ` +
    "Kubernetes accepts there.",
  healing:
    "The network returns: the kubelet lists and watches again, its Lease makes the node Ready, it learns which pods " +
    "were deleted, tears their volumes down, and the volumes are detached once node status stops listing them in use.",
  params: [nodeParam],
  async inject(cluster, params) {
    const args = new FaultArgs(nodePartition, params);
    const node = args.string("node");
    runningKubeletHost(cluster, args, node);
    cluster.apiFaults.partition(node);
  },
  async heal(cluster, params) {
    const args = new FaultArgs(nodePartition, params);
    const node = args.string("node");
    kubeletHost(cluster, args, node);
    cluster.apiFaults.reconnect(node);
  },
  targets: async (cluster) => nodeTargets(cluster).filter((target) => !cluster.apiFaults.isPartitioned(target.node)),
};

export const kubeletRestart: FaultDefinition = {
  name: "kubelet-restart",
  models:
    "The kubelet process restarts (an upgrade, a crash, `systemctl restart kubelet`) while the machine keeps its " +
    "mounts, containers and processes; only daemons in the kubelet's own scope die with it.",
  kubernetesReaction:
    "All in-memory volume state is lost. The new kubelet reconstructs volumes from the pod directories as Uncertain, " +
    "keeps the last node.status.volumesInUse until it has (so the attach/detach controller detaches nothing " +
    "meanwhile), mounts again what running pods still need (NodeStage/NodePublish on mounted paths must succeed) " +
    "and tears down volumes of pods deleted while it was down.",
  params: [nodeParam],
  async inject(cluster, params) {
    const args = new FaultArgs(kubeletRestart, params);
    const node = args.string("node");
    runningKubeletHost(cluster, args, node);
    // The old process is dead at once; the new one starts and reconstructs on the cluster's time.
    letAftermathRun(cluster, `restarting the kubelet on ${node}`, cluster.restartKubelet(node));
  },
  targets: async (cluster) => nodeTargets(cluster),
};

/** The machine goes down now, and boots again at once or `downtimeMs` later. */
async function crashAndReboot(cluster: Cluster, node: string, downtimeMs: number): Promise<void> {
  await Promise.all([cluster.powerOff(node), downtimeMs > 0 ? cluster.clock.sleep(downtimeMs) : undefined]);
  // A cluster shutting down drains its timers; a machine must not boot into it. A node powered on
  // meanwhile (another fault healed) has nothing left to do.
  if (cluster.isStopping || cluster.world.node(node).poweredOn) return;
  await cluster.powerOn(node);
}

function nodeTargets(cluster: Cluster): Array<FaultParams & { node: string }> {
  return runningKubeletNodes(cluster).map((node) => ({ node }));
}
