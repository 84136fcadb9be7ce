/**
 * Faults of node-side volume expansion: a node that cannot grow a mounted filesystem (resize2fs
 * answers EPERM, as in a node plugin without CAP_SYS_RESOURCE). Growing an unmounted filesystem
 * still works, so the claim finishes growing when its pod restarts.
 */
import type { FaultDefinition, FaultParam } from "./fault.ts";
import { FaultArgs } from "./fault-args.ts";
import { kubeletHost, runningKubeletNodes } from "./fault-targets.ts";
import { operationBackoffCap } from "./reaction-timings.ts";

const nodeParam: FaultParam = {
  name: "node",
  type: "string",
  required: true,
  description: "The node, by the name of its Node object (it must run a kubelet).",
};

export const onlineResizeDenied: FaultDefinition = {
  name: "online-resize-denied",
  models:
    "The node cannot grow a mounted filesystem: online resize2fs fails with `Permission denied to resize filesystem` " +
    "(a CSI node plugin in a container without CAP_SYS_RESOURCE). Growing an unmounted one still works.",
  kubernetesReaction:
    "The external-resizer grows the disk and the claim waits at FileSystemResizePending (NodeResizePending). At its " +
    "next pod sync the kubelet calls NodeExpandVolume; disk.csi.kvol.io answers Internal and the pod gets Warning " +
    '`VolumeResizeFailed` `NodeExpandVolume.NodeExpandVolume failed for volume "<pv>" : Expander.NodeExpand failed ' +
    "to expand the volume : rpc error: code = Internal desc = NodeExpandVolume: growing the filesystem on <device> " +
    "failed: … resize2fs: Permission denied to resize filesystem …`, retried with backoff (500 ms doubling to " +
    `${operationBackoffCap}); the claim gets the NodeResizeError condition and keeps its old capacity while the pod ` +
    "runs. When the pod is deleted and recreated, the driver grows the filesystem before mounting it and the " +
    "kubelet's NodeExpandVolume after SetUp succeeds: `FileSystemResizeSuccessful`, the claim shows the new capacity.",
  healing: "The next NodeExpandVolume retry grows the mounted filesystem online; the pod keeps running.",
  params: [nodeParam],
  async inject(cluster, params) {
    const args = new FaultArgs(onlineResizeDenied, params);
    kubeletHost(cluster, args, args.string("node")).denyOnlineResize(true);
  },
  async heal(cluster, params) {
    const args = new FaultArgs(onlineResizeDenied, params);
    kubeletHost(cluster, args, args.string("node")).denyOnlineResize(false);
  },
  targets: async (cluster) => runningKubeletNodes(cluster).map((node) => ({ node })),
};
